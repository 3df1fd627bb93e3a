/*
 * test_yuv_kernels.c - the colour conversion kernels of module "yuyv"
 * (docs/video.md, "Conversion kernels").
 *
 *   test_video_yuv_kernels      (cpu) every kernel on random images of many
 *       sizes (odd ones, 1x1, 3x2) against references written here from the
 *       definition in docs/video.md (floor divisions in double precision, not
 *       the library's shifts); RGBA -> YUV within 1 code of the real-valued
 *       BT.601 matrix; the kernels equal the library's own conversions (the
 *       synthetic source's YUV frames, the Y4M writer's RGBA -> 4:2:0).
 *   test_video_yuv_kernels_gpu  (gpu) the CUDA forms equal the CPU forms bit
 *       for bit (odd sizes, 1080p, 4K); exit 77 without a GPU.
 */
#include <math.h>
#include <unistd.h>

#include "rv_test.h"
#include "yuyv_params.h"

#include <ravioli/video.h>

/* ------------------------------------------------------------------ */
/* References from the definition                                       */
/* ------------------------------------------------------------------ */

static int refdiv(long long num, long long den) { return (int)floor((double)num / (double)den); }
static int clamp255(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }
static int ref_y(int r, int g, int b) { return 16 + refdiv(66 * r + 129 * g + 25 * b + 128, 256); }
/* chroma of the sums of n pixels' R, G, B: 128 + floor((C256(sum)/n + 128) / 256) */
static int ref_cb(int r, int g, int b, int n) { return 128 + refdiv(-38 * r - 74 * g + 112 * b + 128 * n, 256 * n); }
static int ref_cr(int r, int g, int b, int n) { return 128 + refdiv(112 * r - 94 * g - 18 * b + 128 * n, 256 * n); }
static void ref_rgb(int y, int cb, int cr, unsigned char o[4])
{
    int c = y - 16, d = cb - 128, e = cr - 128;
    o[0] = (unsigned char)clamp255(refdiv(298 * c + 409 * e + 128, 256));
    o[1] = (unsigned char)clamp255(refdiv(298 * c - 100 * d - 208 * e + 128, 256));
    o[2] = (unsigned char)clamp255(refdiv(298 * c + 516 * d + 128, 256));
    o[3] = 255;
}

/* ------------------------------------------------------------------ */
/* Launching                                                            */
/* ------------------------------------------------------------------ */

typedef enum kind { K_YUYV_RGBA, K_RGBA_420, K_RGBA_444, K_420_RGBA, K_444_RGBA, K_YUYV_420, K_RGBA_YUYV, K_420_YUYV, K_N } kind;
static const char *const knames[K_N] = {"yuyv_rgba",   "rgba_yuv420", "rgba_yuv444", "yuv420_rgba",
                                        "yuv444_rgba", "yuyv_yuv420", "rgba_yuyv",   "yuv420_yuyv"};
/* source and destination formats; PACKED = an RGBA8 image of ceil(w/2) pairs */
#define PACKED ((RV_Format)100)
static const RV_Format kin[K_N] = {PACKED, RV_FMT_RGBA8, RV_FMT_RGBA8, RV_FMT_YUV420P8,
                                   RV_FMT_YUV444P8, PACKED, RV_FMT_RGBA8, RV_FMT_YUV420P8};
static const RV_Format kout[K_N] = {RV_FMT_RGBA8, RV_FMT_YUV420P8, RV_FMT_YUV444P8, RV_FMT_RGBA8,
                                    RV_FMT_RGBA8, RV_FMT_YUV420P8, PACKED, PACKED};

static RV_Image *make(RV_Context *ctx, RV_Format f, int w, int h)
{
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, f == PACKED ? (w + 1) / 2 : w, h, f == PACKED ? RV_FMT_RGBA8 : f, &img), 0);
    return img;
}

static void launch(RV_Module *m, kind k, RV_Image *src, RV_Image *dst, int w, int h)
{
    const RV_Kernel *kr = NULL;
    assert_int_equal(rv_kernel_get(m, knames[k], &kr), 0);
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.grid[0] = 1;
    sh.block[0] = 128;
    ptrdiff_t sp, dp;
    if (k == K_YUYV_RGBA) {
        rv_yuyv_args a;
        memset(&a, 0, sizeof(a));
        assert_int_equal(rv_image_kernel_address(src, 0, RV_ACCESS_READ, &a.src, &sp), 0);
        assert_int_equal(rv_image_kernel_address(dst, 0, RV_ACCESS_WRITE, &a.dst, &dp), 0);
        a.src_pitch = sp;
        a.dst_pitch = dp;
        a.pairs = rv_image_width(src);
        a.h = h;
        sh.grid[1] = (unsigned)h;
        assert_int_equal(rv_launch_raw(kr, &sh, &a, sizeof(a)), 0);
        return;
    }
    rv_yuv_args a;
    memset(&a, 0, sizeof(a));
    for (int p = 0; p < rv_image_planes(src); p++) {
        assert_int_equal(rv_image_kernel_address(src, p, RV_ACCESS_READ, &a.src[p], &sp), 0);
        a.src_pitch[p] = sp;
    }
    for (int p = 0; p < rv_image_planes(dst); p++) {
        assert_int_equal(rv_image_kernel_address(dst, p, RV_ACCESS_WRITE, &a.dst[p], &dp), 0);
        a.dst_pitch[p] = dp;
    }
    a.w = w;
    a.h = h;
    const int rows2 = k == K_RGBA_420 || k == K_YUYV_420;
    sh.grid[1] = (unsigned)(rows2 ? (h + 1) / 2 : h);
    assert_int_equal(rv_launch_raw(kr, &sh, &a, sizeof(a)), 0);
}

/* Sample (x, y) of plane p (8-bit planes / RGBA8 bytes). */
static int at(RV_Image *img, int p, int x, int y)
{
    ptrdiff_t pitch;
    const unsigned char *d = rv_image_read(img, p, &pitch);
    assert_non_null(d);
    return d[y * pitch + x];
}

/* Asserts dst == the reference of kernel k applied to src (picture w x h). */
static void check_ref(kind k, RV_Image *src, RV_Image *dst, int w, int h)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    unsigned char e[4];
    switch (k) {
    case K_YUYV_RGBA:
    case K_RGBA_YUYV:
    case K_YUYV_420:
    case K_420_YUYV:
    case K_N:
        break;
    case K_RGBA_444:
    case K_RGBA_420:
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                assert_int_equal(at(dst, 0, x, y), ref_y(at(src, 0, 4 * x, y), at(src, 0, 4 * x + 1, y), at(src, 0, 4 * x + 2, y)));
        if (k == K_RGBA_444) {
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    int r = at(src, 0, 4 * x, y), g = at(src, 0, 4 * x + 1, y), b = at(src, 0, 4 * x + 2, y);
                    assert_int_equal(at(dst, 1, x, y), ref_cb(r, g, b, 1));
                    assert_int_equal(at(dst, 2, x, y), ref_cr(r, g, b, 1));
                }
        } else {
            for (int cy = 0; cy < ch; cy++)
                for (int cx = 0; cx < cw; cx++) {
                    int r = 0, g = 0, b = 0, n = 0;
                    for (int y = 2 * cy; y < 2 * cy + 2 && y < h; y++)
                        for (int x = 2 * cx; x < 2 * cx + 2 && x < w; x++)
                            r += at(src, 0, 4 * x, y), g += at(src, 0, 4 * x + 1, y), b += at(src, 0, 4 * x + 2, y), n++;
                    assert_int_equal(at(dst, 1, cx, cy), ref_cb(r, g, b, n));
                    assert_int_equal(at(dst, 2, cx, cy), ref_cr(r, g, b, n));
                }
        }
        return;
    case K_420_RGBA:
    case K_444_RGBA: {
        const int s = k == K_420_RGBA;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                ref_rgb(at(src, 0, x, y), at(src, 1, x >> s, y >> s), at(src, 2, x >> s, y >> s), e);
                for (int c = 0; c < 4; c++)
                    assert_int_equal(at(dst, 0, 4 * x + c, y), e[c]);
            }
        return;
    }
    }
    if (k == K_YUYV_RGBA) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int p = x / 2;
                ref_rgb(at(src, 0, 4 * p + (x & 1 ? 2 : 0), y), at(src, 0, 4 * p + 1, y), at(src, 0, 4 * p + 3, y), e);
                for (int c = 0; c < 4; c++)
                    assert_int_equal(at(dst, 0, 4 * x + c, y), e[c]);
            }
    } else if (k == K_YUYV_420) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                assert_int_equal(at(dst, 0, x, y), at(src, 0, 4 * (x / 2) + (x & 1 ? 2 : 0), y));
        for (int cy = 0; cy < ch; cy++)
            for (int cx = 0; cx < cw; cx++) {
                int y1 = 2 * cy + 1 < h ? 2 * cy + 1 : 2 * cy;
                /* the rounded mean of the two rows' samples (one row: itself) */
                assert_int_equal(at(dst, 1, cx, cy), (int)floor((at(src, 0, 4 * cx + 1, 2 * cy) + at(src, 0, 4 * cx + 1, y1)) / 2.0 + 0.5));
                assert_int_equal(at(dst, 2, cx, cy), (int)floor((at(src, 0, 4 * cx + 3, 2 * cy) + at(src, 0, 4 * cx + 3, y1)) / 2.0 + 0.5));
            }
    } else if (k == K_RGBA_YUYV) {
        for (int y = 0; y < h; y++)
            for (int p = 0; p < cw; p++) {
                int x0 = 2 * p, x1 = 2 * p + 1 < w ? 2 * p + 1 : 2 * p;
                int r0 = at(src, 0, 4 * x0, y), g0 = at(src, 0, 4 * x0 + 1, y), b0 = at(src, 0, 4 * x0 + 2, y);
                int r1 = at(src, 0, 4 * x1, y), g1 = at(src, 0, 4 * x1 + 1, y), b1 = at(src, 0, 4 * x1 + 2, y);
                assert_int_equal(at(dst, 0, 4 * p, y), ref_y(r0, g0, b0));
                assert_int_equal(at(dst, 0, 4 * p + 2, y), ref_y(r1, g1, b1));
                if (x1 != x0) {
                    assert_int_equal(at(dst, 0, 4 * p + 1, y), ref_cb(r0 + r1, g0 + g1, b0 + b1, 2));
                    assert_int_equal(at(dst, 0, 4 * p + 3, y), ref_cr(r0 + r1, g0 + g1, b0 + b1, 2));
                } else { /* odd edge: the one pixel's chroma */
                    assert_int_equal(at(dst, 0, 4 * p + 1, y), ref_cb(r0, g0, b0, 1));
                    assert_int_equal(at(dst, 0, 4 * p + 3, y), ref_cr(r0, g0, b0, 1));
                }
            }
    } else if (k == K_420_YUYV) {
        for (int y = 0; y < h; y++)
            for (int p = 0; p < cw; p++) {
                int x1 = 2 * p + 1 < w ? 2 * p + 1 : 2 * p;
                assert_int_equal(at(dst, 0, 4 * p, y), at(src, 0, 2 * p, y));
                assert_int_equal(at(dst, 0, 4 * p + 1, y), at(src, 1, p, y / 2));
                assert_int_equal(at(dst, 0, 4 * p + 2, y), at(src, 0, x1, y));
                assert_int_equal(at(dst, 0, 4 * p + 3, y), at(src, 2, p, y / 2));
            }
    }
}

static const int sizes[][2] = {{1, 1}, {3, 2}, {2, 3}, {5, 5}, {17, 9}, {64, 48}, {161, 97}};

static void test_reference(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    RV_Module *m = NULL;
    assert_int_equal(rv_module_load(ctx, "yuyv", &m), 0);
    for (int k = 0; k < K_N; k++)
        for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
            const int w = sizes[z][0], h = sizes[z][1];
            RV_Image *src = make(ctx, kin[k], w, h), *dst = make(ctx, kout[k], w, h);
            rv_test_fill_random(src, (uint64_t)(k * 100 + z));
            rv_test_fill_random(dst, 7); /* no sample may be left over */
            launch(m, (kind)k, src, dst, w, h);
            check_ref((kind)k, src, dst, w, h);
            rv_image_destroy(&src);
            rv_image_destroy(&dst);
        }
    rv_module_unload(&m);
    rv_context_destroy(&ctx);
}

/* All 2^24 RGB triples through rgba_yuv444: within 1 code of the real-valued
 * BT.601 limited-range matrix (Kr 0.299, Kb 0.114, 219/224 steps). */
static void test_accuracy(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    RV_Module *m = NULL;
    assert_int_equal(rv_module_load(ctx, "yuyv", &m), 0);
    RV_Image *src = make(ctx, RV_FMT_RGBA8, 4096, 4096), *dst = make(ctx, RV_FMT_YUV444P8, 4096, 4096);
    ptrdiff_t pitch;
    unsigned char *p = rv_image_write(src, 0, &pitch);
    for (int i = 0; i < 1 << 24; i++) {
        unsigned char *q = p + (i >> 12) * pitch + 4 * (i & 4095);
        q[0] = (unsigned char)(i >> 16), q[1] = (unsigned char)(i >> 8), q[2] = (unsigned char)i, q[3] = 0;
    }
    launch(m, K_RGBA_444, src, dst, 4096, 4096);
    double worst = 0;
    for (int i = 0; i < 1 << 24; i++) {
        double r = i >> 16, g = (i >> 8) & 255, b = i & 255;
        double yy = 16 + (0.299 * r + 0.587 * g + 0.114 * b) * 219.0 / 255.0;
        double cb = 128 + (b - (0.299 * r + 0.587 * g + 0.114 * b)) / 1.772 * 224.0 / 255.0;
        double cr = 128 + (r - (0.299 * r + 0.587 * g + 0.114 * b)) / 1.402 * 224.0 / 255.0;
        int x = i & 4095, y = i >> 12;
        double d0 = fabs(at(dst, 0, x, y) - yy), d1 = fabs(at(dst, 1, x, y) - cb), d2 = fabs(at(dst, 2, x, y) - cr);
        worst = fmax(worst, fmax(d0, fmax(d1, d2)));
    }
    printf("rgba_yuv444: max deviation from real-valued BT.601 over 2^24 triples: %.3f codes\n", worst);
    assert_true(worst <= 1.0);
    rv_image_destroy(&src);
    rv_image_destroy(&dst);
    rv_module_unload(&m);
    rv_context_destroy(&ctx);
}

static int images_equal(RV_Image *a, RV_Image *b)
{
    if (rv_image_planes(a) != rv_image_planes(b))
        return 0;
    for (int p = 0; p < rv_image_planes(a); p++) {
        ptrdiff_t pa, pb;
        const unsigned char *da = rv_image_read(a, p, &pa), *db = rv_image_read(b, p, &pb);
        int bytes = rv_image_plane_width(a, p) * rv_format_info(rv_image_format(a))->sample_bytes;
        for (int y = 0; y < rv_image_plane_height(a, p); y++)
            if (memcmp(da + y * pa, db + y * pb, (size_t)bytes))
                return 0;
    }
    return 1;
}

/* The kernels and the library's conversions are one definition: the
 * synthetic source's 4:2:0 / 4:4:4 frames are its RGBA8 frames through
 * rgba_yuv420 / rgba_yuv444; the Y4M writer writes RGBA8 frames as
 * rgba_yuv420 gives them. */
static void test_library_agrees(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    RV_Module *m = NULL;
    assert_int_equal(rv_module_load(ctx, "yuyv", &m), 0);
    const int w = 93, h = 61;
    RV_Format fmts[3] = {RV_FMT_RGBA8, RV_FMT_YUV420P8, RV_FMT_YUV444P8};
    RV_Image *f[3];
    for (int i = 0; i < 3; i++) {
        RV_SyntheticSettings s;
        rv_synthetic_settings_default(&s);
        s.width = w, s.height = h, s.format = fmts[i], s.realtime = 0;
        RV_Source *src = NULL;
        assert_int_equal(rv_source_open_synthetic(ctx, &s, &src), 0);
        f[i] = make(ctx, fmts[i], w, h);
        for (int k = 0; k < 4; k++) /* frame 3: the box has moved */
            assert_int_equal(rv_source_read(src, f[i], NULL, 0), 0);
        rv_source_close(&src);
    }
    RV_Image *c420 = make(ctx, RV_FMT_YUV420P8, w, h), *c444 = make(ctx, RV_FMT_YUV444P8, w, h);
    launch(m, K_RGBA_420, f[0], c420, w, h);
    launch(m, K_RGBA_444, f[0], c444, w, h);
    assert_true(images_equal(c420, f[1]));
    assert_true(images_equal(c444, f[2]));

    /* Y4M writer: RGBA8 frame -> file -> the same bytes as rgba_yuv420 */
    char path[] = "/tmp/rv_yuvk_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    RV_VideoInfo vi;
    memset(&vi, 0, sizeof(vi));
    vi.width = w, vi.height = h, vi.format = RV_FMT_RGBA8, vi.fps_num = 25, vi.fps_den = 1, vi.bit_depth = 8;
    RV_Sink *sink = NULL;
    assert_int_equal(rv_sink_open_y4m(ctx, path, &vi, &sink), 0);
    assert_int_equal(rv_sink_write(sink, f[0], NULL), 0);
    rv_sink_close(&sink);
    RV_Source *rd = NULL;
    assert_int_equal(rv_source_open_y4m(ctx, path, NULL, &rd), 0);
    RV_Image *back = make(ctx, RV_FMT_YUV420P8, w, h);
    assert_int_equal(rv_source_read(rd, back, NULL, 0), 0);
    rv_source_close(&rd);
    unlink(path);
    assert_true(images_equal(back, c420));

    /* 4:2:0 -> RGBA8 -> 4:2:0 is not the identity in general, but the luma of
     * a 4:4:4 frame made from RGBA8 survives yuv444 -> rgba -> yuv444 within 1 */
    RV_Image *rgb = make(ctx, RV_FMT_RGBA8, w, h), *again = make(ctx, RV_FMT_YUV444P8, w, h);
    launch(m, K_444_RGBA, c444, rgb, w, h);
    launch(m, K_RGBA_444, rgb, again, w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            assert_true(abs(at(again, 0, x, y) - at(c444, 0, x, y)) <= 1);
    RV_Image *imgs[] = {f[0], f[1], f[2], c420, c444, back, rgb, again};
    for (size_t i = 0; i < sizeof(imgs) / sizeof(imgs[0]); i++)
        rv_image_destroy(&imgs[i]);
    rv_module_unload(&m);
    rv_context_destroy(&ctx);
}

/* ------------------------------------------------------------------ */
/* GPU = CPU                                                            */
/* ------------------------------------------------------------------ */

static void copy_host(RV_Image *dst, RV_Image *src)
{
    for (int p = 0; p < rv_image_planes(src); p++) {
        ptrdiff_t sp, dp;
        const unsigned char *s = rv_image_read(src, p, &sp);
        unsigned char *d = rv_image_write(dst, p, &dp);
        int bytes = rv_image_plane_width(src, p) * rv_format_info(rv_image_format(src))->sample_bytes;
        for (int y = 0; y < rv_image_plane_height(src, p); y++)
            memcpy(d + y * dp, s + y * sp, (size_t)bytes);
    }
}

static void test_gpu_equals_cpu(void **state)
{
    (void)state;
    RV_Context *gpu = rv_test_gpu_context();
    RV_Context *cpu = rv_test_cpu_context(0);
    RV_Module *mg = NULL, *mc = NULL;
    assert_int_equal(rv_module_load(gpu, "yuyv", &mg), 0);
    assert_int_equal(rv_module_load(cpu, "yuyv", &mc), 0);
    static const int gs[][2] = {{1, 1}, {3, 2}, {17, 9}, {161, 97}, {1920, 1080}, {3840, 2160}};
    for (int k = 0; k < K_N; k++)
        for (size_t z = 0; z < sizeof(gs) / sizeof(gs[0]); z++) {
            const int w = gs[z][0], h = gs[z][1];
            RV_Image *sc = make(cpu, kin[k], w, h), *dc = make(cpu, kout[k], w, h);
            RV_Image *sg = make(gpu, kin[k], w, h), *dg = make(gpu, kout[k], w, h);
            rv_test_fill_random(sc, (uint64_t)(k * 31 + z + 5));
            copy_host(sg, sc);
            launch(mc, (kind)k, sc, dc, w, h);
            launch(mg, (kind)k, sg, dg, w, h);
            assert_int_equal(rv_context_sync(gpu), 0);
            if (!images_equal(dc, dg))
                fail_msg("%s %dx%d: GPU differs from CPU", knames[k], w, h);
            if (w < 200)
                check_ref((kind)k, sg, dg, w, h);
            rv_image_destroy(&sc);
            rv_image_destroy(&dc);
            rv_image_destroy(&sg);
            rv_image_destroy(&dg);
        }
    printf("8 kernels x %zu sizes: GPU == CPU bit for bit\n", sizeof(gs) / sizeof(gs[0]));
    rv_module_unload(&mg);
    rv_module_unload(&mc);
    rv_context_destroy(&cpu);
    rv_context_destroy(&gpu);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "gpu")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_gpu_equals_cpu)};
        return cmocka_run_group_tests(t, NULL, NULL);
    }
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_accuracy),
        cmocka_unit_test(test_library_agrees),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
