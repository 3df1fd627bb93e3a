/*
 * test_stream_gpu_pipeline.c - the overlapped CUDA pipeline of RV_Streaming
 * (gpu_streams = 1, 2, 3, 4, 8 frames in flight on as many CUDA streams,
 * with the copies on an upload and a download stream and on the frames'
 * own streams: both RV_GpuCopies placements) on the
 * thesis' video program: GrayScale -> Binarize -> EdgeDetect (samples
 * module, in place) over 32 frames of 1920x1080 RGBA.
 *
 * Every delivered frame is hashed in the frame callback (so its host copy
 * must be downloaded and complete when the callback runs) and compared with
 * a reference computed here from the kernels' definitions, for the CPU
 * backend too. Also checked: frame accounting, delivery order, per-frame
 * RV_Data values seen by the callback (the next frame's stages have run
 * already when a frame is delivered), GPU time from CUDA events, and a run
 * with temporal stride 2 whose skipped frames repeat the last output.
 * Exits 77 (skipped) without a GPU.
 */
#include "stream_util.h"


#define W 1920
#define H 1080
#define N 32
#define BIN_T 100

/* ---- input frames and the reference, from the definitions ---- */

static unsigned char in_sample(int i, int x, int y, int c)
{
    /* smooth ramps that move per frame, plus some texture: binarize keeps
     * areas, edge finds their borders; alpha varies to check it is kept */
    unsigned v;
    switch (c) {
    case 0: v = (unsigned)(x / 3 + y / 5 + i * 7); break;
    case 1: v = (unsigned)((x * y) / 1024 + i * 3); break;
    case 2: v = (unsigned)((x ^ y) + i); break;
    default: v = (unsigned)(x + 2 * y); break;
    }
    return (unsigned char)v;
}

static void fill_frame(unsigned char *d, ptrdiff_t pitch, int i)
{
    for (int y = 0; y < H; y++) {
        unsigned char *row = d + y * pitch;
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++)
                row[x * 4 + c] = in_sample(i, x, y, c);
    }
}

/* gray: v = (r+g+b)/3 on r, g, b; binarize: avg of r, g, b >= T -> 255 else
 * 0; edge (threshold 0): |Sobel x| + |Sobel y| of the channel average,
 * clamped to 255, neighbours clamped at the border; alpha kept by all. */
static uint64_t reference_hash(int i, unsigned char *bin /* W*H scratch */, long *white)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int g = (in_sample(i, x, y, 0) + in_sample(i, x, y, 1) + in_sample(i, x, y, 2)) / 3;
            int avg = (g + g + g) / 3;
            bin[y * W + x] = (unsigned char)(avg >= BIN_T ? 255 : 0);
        }
    uint64_t h = RV_TEST_FNV0;
    unsigned char row[W * 4];
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
#define L(dx, dy)                                                                                  \
    ((int)bin[(y + (dy) < 0 ? 0 : y + (dy) >= H ? H - 1 : y + (dy)) * W +                          \
              (x + (dx) < 0 ? 0 : x + (dx) >= W ? W - 1 : x + (dx))])
            int a = L(-1, -1), b = L(0, -1), c = L(1, -1), d = L(-1, 0), f = L(1, 0);
            int g = L(-1, 1), hh = L(0, 1), ii = L(1, 1);
#undef L
            int gx = (c + 2 * f + ii) - (a + 2 * d + g);
            int gy = (g + 2 * hh + ii) - (a + 2 * b + c);
            int m = abs(gx) + abs(gy);
            if (m > 255)
                m = 255;
            *white += m != 0;
            row[x * 4 + 0] = row[x * 4 + 1] = row[x * 4 + 2] = (unsigned char)m;
            row[x * 4 + 3] = in_sample(i, x, y, 3);
        }
        h = rv_test_fnv(h, row, sizeof(row));
    }
    return h;
}

static uint64_t g_ref[N];

static void make_reference(void)
{
    unsigned char *bin = malloc((size_t)W * H);
    assert_non_null(bin);
    long white = 0;
    for (int i = 0; i < N; i++)
        g_ref[i] = reference_hash(i, bin, &white);
    free(bin);
    /* a real picture: edges present, but not everywhere */
    assert_true(white > (long)N * W * H / 1000 && white < (long)N * W * H / 2);
}

/* ---- source, stages, callback ---- */

/* the thesis' edge stage, and the frame index stored for later readers */
static void st_edge(RV_Image *f, RV_Data *d)
{
    const rv_test_chain *c = rv_data_user(d);
    rv_threshold_params p = {0};
    if (rv_data_check(d, rv_proc_nbr(c->edge, f, f, &p, sizeof(p))) < 0)
        return;
    double v = (double)rv_data_frame(d)->index;
    rv_data_put(d, "frame", &v, 1);
}

typedef struct outs {
    uint64_t hash[N];
    int got[N];
    int repeats;
    int bad_repeat, bad_data, bad_order;
    long long last;
    uint64_t last_hash;
} outs;

static int on_frame(void *user, RV_Image *frame, const RV_FrameInfo *fi, const RV_Data *d)
{
    outs *o = user;
    long long i = fi->meta.index;
    if (i < 0 || i >= N || !frame)
        return 1;
    assert_int_equal(rv_image_format(frame), RV_FMT_RGBA8);
    ptrdiff_t pitch;
    const unsigned char *p = rv_image_read(frame, 0, &pitch);
    assert_non_null(p);
    uint64_t h = RV_TEST_FNV0;
    for (int y = 0; y < H; y++)
        h = rv_test_fnv(h, p + y * pitch, (size_t)W * 4);
    if (fi->repeated) {
        /* a skipped frame: the last processed output again */
        o->repeats++;
        if (h != o->last_hash)
            o->bad_repeat++;
        return 0;
    }
    if (i <= o->last)
        o->bad_order++;
    o->last = i;
    o->hash[i] = h;
    o->last_hash = h;
    o->got[i]++;
    double v = -1;
    long long fidx = -1;
    if (rv_data_get(d, "frame", &v, 1, &fidx) != 1 || v != (double)i || fidx != i)
        o->bad_data++;
    return 0;
}

static void run_chain(RV_Context *ctx, int streams, RV_GpuCopies copies, int tstride, outs *o,
                      RV_StreamSummary *sum)
{
    rv_test_chain c;
    rv_test_chain_load(ctx, &c, BIN_T);
    RV_StageVector *sv;
    assert_int_equal(rv_stage_vector_create(ctx, &sv), 0);
    rv_stage_vector_push(sv, rv_test_st_gray, &c, "gray");
    rv_stage_vector_push(sv, rv_test_st_bin, &c, "binarize");
    rv_stage_vector_push(sv, st_edge, &c, "edge");
    RV_VideoInfo vi = rv_test_video_info(W, H, N);
    RV_StreamSettings set;
    rv_stream_settings_default(&set);
    set.adapt.enabled = 0;
    set.gpu_streams = streams;
    set.gpu_copies = copies;
    set.temporal_stride = tstride;
    set.callback_skipped = tstride > 1;
    set.on_frame = on_frame;
    set.user = o;
    memset(o, 0, sizeof(*o));
    o->last = -1;
    assert_int_equal(rv_test_stream_run(ctx, &vi, fill_frame, N, &set, sv, sum), 0);
    rv_stage_vector_destroy(&sv);
    rv_test_chain_unload(&c);
}

static void check_run(const char *what, const outs *o, const RV_StreamSummary *sum, int tstride)
{
    const int nproc = (N + tstride - 1) / tstride;
    assert_int_equal(sum->captured, N);
    assert_int_equal(sum->processed, nproc);
    assert_int_equal(sum->skipped, N - nproc);
    assert_int_equal(sum->dropped, 0);
    assert_int_equal(sum->in_flight, 0);
    assert_int_equal(sum->end, RV_END_EOS);
    assert_int_equal(o->bad_order, 0);
    assert_int_equal(o->bad_data, 0);
    assert_int_equal(o->bad_repeat, 0);
    assert_int_equal(o->repeats, N - nproc);
    for (int i = 0; i < N; i++) {
        int want = i % tstride == 0;
        if (o->got[i] != want) {
            fprintf(stderr, "%s: frame %d delivered %d times, expected %d\n", what, i, o->got[i], want);
            fail();
        }
        if (want && o->hash[i] != g_ref[i]) {
            fprintf(stderr, "%s: frame %d differs from the reference\n", what, i);
            fail();
        }
    }
}

static outs g_o;

static void test_pipeline_equals_reference(void **state)
{
    (void)state;
    RV_Context *gpu = rv_test_gpu_context();
    RV_Context *cpu = rv_test_cpu_context(2);
    make_reference();
    RV_StreamSummary sum;

    run_chain(cpu, 2, RV_GPU_COPIES_DEFAULT, 1, &g_o, &sum);
    check_run("cpu", &g_o, &sum, 1);
    assert_int_equal(sum.gpu_streams, 0);

    /* both copy placements: uploads/downloads on their own streams
     * (default), and on the frames' streams */
    static const int depths[] = {1, 2, 3, 4, 8};
    for (int mode = RV_GPU_COPIES_SPLIT; mode <= RV_GPU_COPIES_PER_FRAME; mode++)
        for (size_t di = 0; di < sizeof(depths) / sizeof(depths[0]); di++) {
            const int streams = depths[di];
            char what[64];
            snprintf(what, sizeof(what), "cuda, %d streams, %s copies", streams,
                     mode == RV_GPU_COPIES_SPLIT ? "split" : "per-frame");
            run_chain(gpu, streams, (RV_GpuCopies)mode, 1, &g_o, &sum);
            check_run(what, &g_o, &sum, 1);
            assert_int_equal(sum.gpu_streams, streams);
            assert_int_equal(sum.gpu_copies, mode);
            /* GPU time per frame from CUDA events: measured and plausible */
            assert_true(sum.gpu_ms_mean > 0 && sum.gpu_ms_mean < 1000);
            assert_true(sum.gpu_wait_ms_mean >= 0 && sum.gpu_wait_ms_mean < 1000);
            printf("%s: %.1f fps, GPU %.3f ms/frame, host wait %.3f ms/frame\n", what, sum.fps,
                   sum.gpu_ms_mean, sum.gpu_wait_ms_mean);
        }
    /* temporal stride 2 with repeats: the pipeline drains before a repeat */
    run_chain(gpu, 2, RV_GPU_COPIES_DEFAULT, 2, &g_o, &sum);
    check_run("cuda, 2 streams, S_T 2", &g_o, &sum, 2);
    run_chain(gpu, 3, RV_GPU_COPIES_PER_FRAME, 2, &g_o, &sum);
    check_run("cuda, 3 streams, per-frame copies, S_T 2", &g_o, &sum, 2);

    rv_context_destroy(&cpu);
    rv_context_destroy(&gpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_pipeline_equals_reference)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
