/*
 * test_stream_yuyv.c - the yuyv module (raw YUYV -> RGBA8 on the backend)
 * and its use as the first stage of a streaming pipeline.
 *
 * Built twice:
 *   test_stream_yuyv (label cpu): the kernel on the CPU backend against the
 *     BT.601 integer definition (docs/video.md) over every (Y, Cb, Cr) triple;
 *   test_stream_gpu_yuyv (label gpu, RV_YUYV_GPU): packed 1080p frames
 *     (960x1080 pairs) through yuyv -> gray -> binarize -> edge in
 *     RV_Streaming on CUDA with 2 and 3 streams, bit-identical to the same
 *     run on the CPU backend, every frame accounted for. Exits 77 without a GPU.
 */
#include "stream_util.h"

#include "../../modules/yuyv/yuyv_params.h"

static int launch_yuyv(const RV_Kernel *k, RV_Image *packed, RV_Image *out)
{
    rv_yuyv_args a;
    memset(&a, 0, sizeof(a));
    ptrdiff_t sp = 0, dp = 0;
    int err = rv_image_kernel_address(packed, 0, RV_ACCESS_READ, &a.src, &sp);
    if (err < 0)
        return err;
    if ((err = rv_image_kernel_address(out, 0, RV_ACCESS_WRITE, &a.dst, &dp)) < 0)
        return err;
    a.src_pitch = sp;
    a.dst_pitch = dp;
    a.pairs = rv_image_width(packed);
    a.h = rv_image_height(packed);
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.grid[0] = 1;
    sh.grid[1] = (unsigned)a.h;
    sh.block[0] = 256;
    return rv_launch_raw(k, &sh, &a, sizeof(a));
}

#ifndef RV_YUYV_GPU

/* From the definition: c = Y - 16, d = Cb - 128, e = Cr - 128;
 * channel = clamp((298 c + k1 d + k2 e + 128) >> 8) where negative sums are 0. */
static int ref_ch(int y, int cb, int cr, int ch)
{
    const int c = y - 16, d = cb - 128, e = cr - 128;
    long v;
    if (ch == 0)
        v = 298L * c + 409L * e + 128;
    else if (ch == 1)
        v = 298L * c - 100L * d - 208L * e + 128;
    else
        v = 298L * c + 516L * d + 128;
    if (v < 0)
        return 0;
    v /= 256;
    return v > 255 ? 255 : (int)v;
}

static void test_kernel_all_triples(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    RV_Module *m = NULL;
    assert_int_equal(rv_module_load(ctx, "yuyv", &m), 0);
    const RV_Kernel *k = NULL;
    assert_int_equal(rv_kernel_get(m, "yuyv_rgba", &k), 0);
    /* pair i (0 .. 2^23): Cb = i >> 15, Cr = (i >> 7) & 255, Y0 = 2 (i & 127), Y1 = Y0 + 1 */
    enum { PW = 4096, PH = 2048 };
    RV_Image *packed = NULL, *out = NULL;
    assert_int_equal(rv_image_create(ctx, PW, PH, RV_FMT_RGBA8, &packed), 0);
    assert_int_equal(rv_image_create(ctx, 2 * PW, PH, RV_FMT_RGBA8, &out), 0);
    ptrdiff_t sp;
    unsigned char *s = rv_image_write(packed, 0, &sp);
    assert_non_null(s);
    for (int y = 0; y < PH; y++)
        for (int x = 0; x < PW; x++) {
            const long i = (long)y * PW + x;
            unsigned char *q = s + y * sp + 4 * x;
            q[0] = (unsigned char)(2 * (i & 127));
            q[1] = (unsigned char)(i >> 15);
            q[2] = (unsigned char)(2 * (i & 127) + 1);
            q[3] = (unsigned char)((i >> 7) & 255);
        }
    assert_int_equal(launch_yuyv(k, packed, out), 0);
    ptrdiff_t dp;
    const unsigned char *o = rv_image_read(out, 0, &dp);
    assert_non_null(o);
    long bad = 0, clipped = 0;
    for (int y = 0; y < PH; y++)
        for (int x = 0; x < PW; x++) {
            const long i = (long)y * PW + x;
            const int cb = (int)(i >> 15), cr = (int)((i >> 7) & 255);
            for (int j = 0; j < 2; j++) {
                const int yy = (int)(2 * (i & 127)) + j;
                const unsigned char *px = o + y * dp + 8 * x + 4 * j;
                for (int ch = 0; ch < 3; ch++) {
                    int want = ref_ch(yy, cb, cr, ch);
                    clipped += want == 0 || want == 255;
                    if (px[ch] != want && bad++ < 5)
                        fprintf(stderr, "Y %d Cb %d Cr %d channel %d: got %d, want %d\n", yy, cb, cr, ch,
                                px[ch], want);
                }
                if (px[3] != 255 && bad++ < 5)
                    fprintf(stderr, "alpha %d\n", px[3]);
            }
        }
    assert_int_equal(bad, 0);
    assert_true(clipped > 0 && clipped < 3L * (1L << 24)); /* the clamps were exercised, not everything */
    /* mid grey: Y 126, Cb = Cr = 128 -> (298 * 110 + 128) >> 8 = 128 */
    assert_int_equal(ref_ch(126, 128, 128, 0), 128);
    rv_image_destroy(&packed);
    rv_image_destroy(&out);
    rv_module_unload(&m);
    rv_context_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_kernel_all_triples)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* RV_YUYV_GPU */

#define PW 960
#define H 1080
#define N 32

/* packed YUYV: a pixel pair per RGBA8 slot */
static void fill_packed(unsigned char *d, ptrdiff_t pitch, int i)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < PW; x++) {
            unsigned char *q = d + y * pitch + 4 * x;
            q[0] = (unsigned char)(16 + (x * 2 + y + i * 9) % 220);      /* Y0 */
            q[1] = (unsigned char)(128 + ((x / 7 + i) % 64) - 32);       /* Cb */
            q[2] = (unsigned char)(16 + (x * 2 + 1 + y / 2 + i * 5) % 220); /* Y1 */
            q[3] = (unsigned char)(128 + ((y / 5) % 80) - 40);          /* Cr */
        }
}

typedef struct chain {
    rv_test_chain base; /* first: the shared stages read it */
    const RV_Kernel *yuyv;
} chain;

static void st_yuyv(RV_Image *f, RV_Data *d)
{
    const chain *c = rv_data_user(d);
    RV_Image *rgba = NULL;
    if (rv_data_check(d, rv_data_image(d, "rgba", 2 * rv_image_width(f), rv_image_height(f), RV_FMT_RGBA8,
                                       &rgba)) < 0)
        return;
    if (rv_data_check(d, launch_yuyv(c->yuyv, f, rgba)) < 0)
        return;
    rv_data_set_frame(d, rgba);
}

typedef struct outs {
    uint64_t hash[N];
    int got[N];
    long white;
} outs;

static int on_frame(void *user, RV_Image *frame, const RV_FrameInfo *fi, const RV_Data *d)
{
    outs *o = user;
    (void)d;
    long long i = fi->meta.index;
    assert_true(i >= 0 && i < N);
    assert_int_equal(rv_image_width(frame), 2 * PW);
    ptrdiff_t pitch;
    const unsigned char *p = rv_image_read(frame, 0, &pitch);
    assert_non_null(p);
    uint64_t h = RV_TEST_FNV0;
    for (int y = 0; y < H; y++) {
        h = rv_test_fnv(h, p + y * pitch, (size_t)PW * 8);
        for (int x = 0; x < 2 * PW; x++)
            o->white += p[y * pitch + 4 * x] != 0;
    }
    o->hash[i] = h;
    o->got[i]++;
    return 0;
}

static void run_chain(RV_Context *ctx, int streams, outs *o)
{
    RV_Module *my = NULL;
    assert_int_equal(rv_module_load(ctx, "yuyv", &my), 0);
    chain c;
    rv_test_chain_load(ctx, &c.base, 110);
    assert_int_equal(rv_kernel_get(my, "yuyv_rgba", &c.yuyv), 0);
    RV_StageVector *sv;
    assert_int_equal(rv_stage_vector_create(ctx, &sv), 0);
    rv_stage_vector_push(sv, st_yuyv, &c, "yuyv");
    rv_stage_vector_push(sv, rv_test_st_gray, &c, "gray");
    rv_stage_vector_push(sv, rv_test_st_bin, &c, "binarize");
    rv_stage_vector_push(sv, rv_test_st_edge, &c, "edge");
    RV_VideoInfo vi = rv_test_video_info(PW, H, 0);
    vi.packed_yuyv = 1;
    RV_StreamSettings set;
    rv_stream_settings_default(&set);
    set.adapt.enabled = 0;
    set.gpu_streams = streams;
    set.on_frame = on_frame;
    set.user = o;
    memset(o, 0, sizeof(*o));
    RV_StreamSummary sum;
    assert_int_equal(rv_test_stream_run(ctx, &vi, fill_packed, N, &set, sv, &sum), 0);
    assert_int_equal(sum.captured, N);
    assert_int_equal(sum.processed, N);
    assert_int_equal(sum.dropped, 0);
    assert_int_equal(sum.in_flight, 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(o->got[i], 1);
    rv_stage_vector_destroy(&sv);
    rv_module_unload(&my);
    rv_test_chain_unload(&c.base);
}

static outs g_cpu, g_gpu;

static void test_yuyv_pipeline_gpu_equals_cpu(void **state)
{
    (void)state;
    RV_Context *gpu = rv_test_gpu_context();
    RV_Context *cpu = rv_test_cpu_context(2);
    run_chain(cpu, 1, &g_cpu);
    /* a real picture: edges, not everywhere */
    assert_true(g_cpu.white > (long)N * PW * H / 500 && g_cpu.white < (long)N * PW * H);
    for (int streams = 2; streams <= 3; streams++) {
        run_chain(gpu, streams, &g_gpu);
        for (int i = 0; i < N; i++)
            if (g_gpu.hash[i] != g_cpu.hash[i]) {
                fprintf(stderr, "%d streams: frame %d differs from the CPU backend\n", streams, i);
                fail();
            }
    }
    rv_context_destroy(&cpu);
    rv_context_destroy(&gpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_yuyv_pipeline_gpu_equals_cpu)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
