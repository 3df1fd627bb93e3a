/*
 * test_stream_gpu.c - RV_Streaming on the CUDA backend: the same frames
 * through the same stages (gray, edge, binarize in place; then RGBA ->
 * GRAY8 into a scratch image that becomes the output) give bit-identical
 * outputs on the GPU and on the CPU, at spatial strides 1 and 2, with every
 * frame accounted for. Exits 77 (skipped) without a GPU.
 */
#include <stdatomic.h>

#include "stream_util.h"

#define W 97
#define H 61
#define N 12

static void fill_frame(unsigned char *d, ptrdiff_t pitch, int i)
{
    uint64_t r = (uint64_t)i * 0x9E3779B97F4A7C15ULL + 1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W * 4; x++)
            d[y * pitch + x] = (unsigned char)(rv_test_rand(&r) >> 56);
}

typedef struct chain {
    rv_test_chain base; /* first: the shared stages read it */
    const RV_Kernel *luma8;
} chain;

static void st_luma(RV_Image *f, RV_Data *d)
{
    const chain *c = rv_data_user(d);
    RV_Image *g = NULL;
    if (rv_data_check(d, rv_data_image(d, "luma", W, H, RV_FMT_GRAY8, &g)) < 0)
        return;
    if (rv_data_check(d, rv_proc_pix(c->luma8, g, f, NULL, 0)) < 0)
        return;
    rv_data_set_frame(d, g);
}

typedef struct outs {
    unsigned char px[N][W * H];
    int got[N];
} outs;

static int on_frame(void *user, RV_Image *frame, const RV_FrameInfo *fi, const RV_Data *d)
{
    outs *o = user;
    (void)d;
    assert_int_equal(rv_image_format(frame), RV_FMT_GRAY8);
    ptrdiff_t pitch;
    const unsigned char *p = rv_image_read(frame, 0, &pitch);
    assert_non_null(p);
    long long i = fi->meta.index;
    assert_true(i >= 0 && i < N);
    for (int y = 0; y < H; y++)
        memcpy(&o->px[i][y * W], p + y * pitch, W);
    o->got[i] = 1;
    return 0;
}

static void run_chain(RV_Context *ctx, int stride, outs *o)
{
    chain c;
    rv_test_chain_load(ctx, &c.base, 40);
    assert_int_equal(rv_kernel_get(c.base.samples, "luma8", &c.luma8), 0);
    RV_StageVector *sv;
    assert_int_equal(rv_stage_vector_create(ctx, &sv), 0);
    rv_stage_vector_push(sv, rv_test_st_gray, &c, "gray");
    rv_stage_vector_push(sv, rv_test_st_edge, &c, "edge");
    rv_stage_vector_push(sv, rv_test_st_bin, &c, "binarize");
    rv_stage_vector_push(sv, st_luma, &c, "luma");
    RV_VideoInfo vi = rv_test_video_info(W, H, N);
    RV_StreamSettings set;
    rv_stream_settings_default(&set);
    set.adapt.enabled = 0;
    set.spatial_stride = stride;
    set.on_frame = on_frame;
    set.user = o;
    memset(o, 0, sizeof(*o));
    RV_StreamSummary sum;
    assert_int_equal(rv_test_stream_run(ctx, &vi, fill_frame, N, &set, sv, &sum), 0);
    assert_int_equal(sum.captured, N);
    assert_int_equal(sum.processed, N);
    assert_int_equal(sum.in_flight, 0);
    for (int i = 0; i < N; i++)
        assert_true(o->got[i]);
    rv_stage_vector_destroy(&sv);
    rv_test_chain_unload(&c.base);
}

static outs g_cpu, g_gpu;

static void test_gpu_equals_cpu(void **state)
{
    (void)state;
    RV_Context *gpu = rv_test_gpu_context();
    RV_Context *cpu = rv_test_cpu_context(2);
    for (int stride = 1; stride <= 2; stride++) {
        run_chain(cpu, stride, &g_cpu);
        run_chain(gpu, stride, &g_gpu);
        long white = 0; /* the chain must produce a real picture, not a constant */
        for (int i = 0; i < N; i++)
            for (int k = 0; k < W * H; k++)
                white += g_cpu.px[i][k] != 0;
        assert_true(white > N * W * H / 100 && white < N * W * H * 99 / 100);
        for (int i = 0; i < N; i++)
            for (int k = 0; k < W * H; k++)
                if (g_cpu.px[i][k] != g_gpu.px[i][k]) {
                    fprintf(stderr, "stride %d frame %d sample %d: cpu %d gpu %d\n", stride, i, k,
                            g_cpu.px[i][k], g_gpu.px[i][k]);
                    fail();
                }
    }
    rv_context_destroy(&cpu);
    rv_context_destroy(&gpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_gpu_equals_cpu)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
