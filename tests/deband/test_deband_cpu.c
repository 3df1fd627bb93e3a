/*
 * test_deband_cpu.c - the deband filter on the CPU backend against the
 * independent scalar reference (deband_ref.h); banding reduction quality on
 * a quantised gradient; borders and tiny images (run under ASan); parameter
 * and call errors.
 */
#include <math.h>

#include "rv_test.h"
#include "deband_ref.h"

#include <ravioli/deband_kernel.h>

typedef struct {
    int mode, blur;
} mode_case;
static const mode_case k_modes[] = {{0, 1}, {1, 1}, {1, 0}, {2, 1}, {2, 0}};
#define NMODES ((int)(sizeof(k_modes) / sizeof(k_modes[0])))

/* Runs rv_deband_apply on a test picture and compares every plane with the
 * reference. */
static void check_against_ref(RV_Context *ctx, RV_Format fmt, int w, int h,
                              const RV_DebandSettings *s, int64_t frame, uint64_t seed)
{
    RV_Deband *db = NULL;
    assert_int_equal(rv_deband_create(ctx, &db), 0);
    assert_int_equal(rv_deband_configure(db, s), 0);
    const RV_Format fout = rv_deband_output_format(db, fmt);
    assert_true(fout != 0);
    RV_Image *src = NULL, *dst = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, fmt, &src), 0);
    assert_int_equal(rv_image_create(ctx, w, h, fout, &dst), 0);
    const int din = img_depth(src), dout = img_depth(dst);
    for (int p = 0; p < rv_image_planes(src); p++) {
        const int pw = rv_image_plane_width(src, p), ph = rv_image_plane_height(src, p);
        uint16_t *a = malloc((size_t)pw * ph * 2);
        assert_non_null(a);
        fill_test_plane(a, pw, ph, din, p, seed);
        assert_int_equal(img_set_plane(src, p, a), 0);
        free(a);
    }
    int err = rv_deband_apply(db, dst, src, frame);
    if (err < 0)
        fprintf(stderr, "apply: %s\n", rv_deband_error(db));
    assert_int_equal(err, 0);
    for (int p = 0; p < rv_image_planes(src); p++) {
        const int pw = rv_image_plane_width(src, p), ph = rv_image_plane_height(src, p);
        uint16_t *in = img_get_plane(src, p), *got = img_get_plane(dst, p);
        uint16_t *want = malloc((size_t)pw * ph * 2);
        assert_non_null(in);
        assert_non_null(got);
        assert_non_null(want);
        ref_deband_plane(in, want, pw, ph, din, dout, s, p, frame);
        for (int i = 0; i < pw * ph; i++) {
            if (got[i] != want[i]) {
                fprintf(stderr,
                        "%s %dx%d -> %d bit, mode %d blur %d il %d dyn %d: plane %d (%d,%d): got %u want %u\n",
                        rv_format_info(fmt)->name, w, h, dout, s->sample_mode, s->blur_first,
                        s->interlaced, s->dynamic_grain, p, i % pw, i / pw, got[i], want[i]);
                fail();
            }
        }
        free(in);
        free(got);
        free(want);
    }
    rv_image_destroy(&src);
    rv_image_destroy(&dst);
    rv_deband_destroy(&db);
    assert_null(db);
}

static void test_matches_reference(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    static const RV_Format fmts[] = {RV_FMT_YUV420P8, RV_FMT_YUV444P8, RV_FMT_YUV420P16,
                                     RV_FMT_YUV444P16, RV_FMT_GRAY8, RV_FMT_GRAY16};
    static const int depths[] = {0, 8, 16};
    int n = 0;
    for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
        for (int d = 0; d < 3; d++)
            for (int m = 0; m < NMODES; m++)
                for (int il = 0; il < 2; il++) {
                    RV_DebandSettings s;
                    rv_deband_settings_default(&s);
                    s.sample_mode = k_modes[m].mode;
                    s.blur_first = k_modes[m].blur;
                    s.output_depth = depths[d];
                    s.interlaced = il;
                    s.dynamic_grain = (m + il) & 1;
                    s.seed = (uint32_t)(f * 131 + (size_t)m * 7 + (size_t)d);
                    s.range = 6 + (int)f;
                    s.cb = 40;
                    s.cr = 100;
                    s.grainc = 30;
                    check_against_ref(ctx, fmts[f], 67, 45, &s, 5 + m, f + 1);
                    n++;
                }
    printf("deband: %d configurations match the reference bit for bit\n", n);
    rv_context_destroy(&ctx);
}

/* Edge cases of the parameters: range 0, threshold 0 (plane untouched),
 * no grain, huge grain (clamping), largest range. */
static void test_parameter_extremes(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_DebandSettings s;
    rv_deband_settings_default(&s);
    s.range = 0;
    check_against_ref(ctx, RV_FMT_YUV420P8, 33, 17, &s, 0, 3);
    rv_deband_settings_default(&s);
    s.y = 0;
    s.grainc = 0;
    check_against_ref(ctx, RV_FMT_YUV444P16, 33, 17, &s, 0, 4);
    s.y = 4095;
    s.grainy = 4095;
    s.range = 255;
    check_against_ref(ctx, RV_FMT_YUV420P16, 40, 300, &s, 0, 5);
    s.output_depth = 8;
    check_against_ref(ctx, RV_FMT_YUV420P16, 300, 40, &s, 0, 6);
    rv_context_destroy(&ctx);
}

/* Threshold 0: the plane is copied (depth converted), whatever the grain. */
static void test_threshold_zero_copies(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_Deband *db = NULL;
    assert_int_equal(rv_deband_create(ctx, &db), 0);
    RV_DebandSettings s;
    rv_deband_settings_default(&s);
    s.y = s.cb = s.cr = 0;
    s.grainy = s.grainc = 500;
    s.output_depth = 16;
    assert_int_equal(rv_deband_configure(db, &s), 0);
    RV_Image *src = NULL, *dst = NULL;
    assert_int_equal(rv_image_create(ctx, 50, 30, RV_FMT_YUV420P8, &src), 0);
    assert_int_equal(rv_image_create(ctx, 50, 30, RV_FMT_YUV420P16, &dst), 0);
    rv_test_fill_random(src, 9);
    assert_int_equal(rv_deband_apply(db, dst, src, 0), 0);
    for (int p = 0; p < 3; p++) {
        uint16_t *in = img_get_plane(src, p), *out = img_get_plane(dst, p);
        const int n = rv_image_plane_width(src, p) * rv_image_plane_height(src, p);
        for (int i = 0; i < n; i++)
            assert_int_equal(out[i], in[i] << 8);
        free(in);
        free(out);
    }
    rv_image_destroy(&src);
    rv_image_destroy(&dst);
    rv_deband_destroy(&db);
    rv_context_destroy(&ctx);
}

/* dynamic_grain: a new pattern each frame; static grain: the same. */
static void test_dynamic_grain(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    RV_Deband *db = NULL;
    assert_int_equal(rv_deband_create(ctx, &db), 0);
    RV_Image *src = NULL, *o1 = NULL, *o2 = NULL;
    assert_int_equal(rv_image_create(ctx, 64, 32, RV_FMT_GRAY8, &src), 0);
    assert_int_equal(rv_image_create(ctx, 64, 32, RV_FMT_GRAY16, &o1), 0);
    assert_int_equal(rv_image_create(ctx, 64, 32, RV_FMT_GRAY16, &o2), 0);
    RV_DebandSettings s;
    rv_deband_settings_default(&s);
    s.output_depth = 16;
    {
        ptrdiff_t pitch;
        unsigned char *px = rv_image_write(src, 0, &pitch);
        assert_non_null(px);
        for (int y = 0; y < 32; y++)
            memset(px + y * pitch, 128, 64);
    }
    for (int dyn = 0; dyn < 2; dyn++) {
        s.dynamic_grain = dyn;
        assert_int_equal(rv_deband_configure(db, &s), 0);
        assert_int_equal(rv_deband_apply(db, o1, src, 10), 0);
        assert_int_equal(rv_deband_apply(db, o2, src, 11), 0);
        uint16_t *a = img_get_plane(o1, 0), *b = img_get_plane(o2, 0);
        int differ = 0;
        for (int i = 0; i < 64 * 32; i++)
            differ += a[i] != b[i];
        printf("dynamic_grain=%d: %d of %d pixels differ between frames 10 and 11\n", dyn, differ,
               64 * 32);
        if (dyn)
            assert_true(differ > 64 * 32 * 95 / 100);
        else
            assert_int_equal(differ, 0);
        free(a);
        free(b);
    }
    rv_image_destroy(&src);
    rv_image_destroy(&o1);
    rv_image_destroy(&o2);
    rv_deband_destroy(&db);
    rv_context_destroy(&ctx);
}

/*
 * Quality, no eyes needed: a smooth 16-bit horizontal ramp (plus a sharp
 * edge) quantised to 8 bits shows bands; debanded to 16 bits it must come
 * much closer to the smooth original, and the edge must stay sharp.
 */
static void test_quality_gradient(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    const int w = 512, h = 128, edge = 384;
    /* ramp over 24 8-bit codes in 384 px: bands 16 px wide; edge: +48 codes */
    double *orig = malloc(sizeof(double) * w * h);
    uint16_t *q8 = malloc(sizeof(uint16_t) * w * h);
    assert_non_null(orig);
    assert_non_null(q8);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double v = 100.0 + 24.0 * x / edge;      /* in 8-bit codes */
            if (x >= edge)
                v = 172.0 + 4.0 * (x - edge) / (w - edge);
            orig[y * w + x] = v * 256.0;
            q8[y * w + x] = (uint16_t)floor(v + 0.5);
        }
    RV_Image *src = NULL, *dst = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_GRAY8, &src), 0);
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_GRAY16, &dst), 0);
    assert_int_equal(img_set_plane(src, 0, q8), 0);
    RV_Deband *db = NULL;
    assert_int_equal(rv_deband_create(ctx, &db), 0);
    RV_DebandSettings s;
    rv_deband_settings_default(&s);
    s.output_depth = 16;
    s.range = 24;
    s.grainy = 0; /* measure the smoothing itself */
    assert_int_equal(rv_deband_configure(db, &s), 0);
    assert_int_equal(rv_deband_apply(db, dst, src, 0), 0);
    uint16_t *out = img_get_plane(dst, 0);
    assert_non_null(out);
    /* error on the ramp, away from the image border and the edge */
    double e0 = 0, e1 = 0;
    long n = 0;
    for (int y = 24; y < h - 24; y++)
        for (int x = 24; x < edge - 24; x++) {
            const double o = orig[y * w + x];
            e0 += (q8[y * w + x] * 256.0 - o) * (q8[y * w + x] * 256.0 - o);
            e1 += (out[y * w + x] - o) * (out[y * w + x] - o);
            n++;
        }
    e0 = sqrt(e0 / n) / 256.0;
    e1 = sqrt(e1 / n) / 256.0;
    /* edge: mean level just left / right of it, and its 1-pixel contrast */
    double left = 0, right = 0;
    int sharp_rows = 0;
    for (int y = 0; y < h; y++) {
        left += out[y * w + edge - 1];
        right += out[y * w + edge];
        if (out[y * w + edge] - out[y * w + edge - 1] >= 44 * 256)
            sharp_rows++;
    }
    left /= h * 256.0;
    right /= h * 256.0;
    printf("quality: RMS error vs smooth original, 8-bit codes: banded %.4f -> debanded %.4f (x%.2f)\n",
           e0, e1, e1 / e0);
    printf("quality: edge at x=%d: mean %.2f | %.2f (input 124 | 172), sharp in %d/%d rows\n", edge,
           left, right, sharp_rows, h);
    /* 4 references with independent quantisation errors: the RMS error can
     * at best halve (1/sqrt(4)); require at least 40% less */
    assert_true(e1 < 0.6 * e0);
    assert_int_equal(sharp_rows, h);
    assert_true(fabs(left - 124.0) < 1.0 && fabs(right - 172.0) < 1.0);
    free(out);
    free(orig);
    free(q8);
    rv_image_destroy(&src);
    rv_image_destroy(&dst);
    rv_deband_destroy(&db);
    rv_context_destroy(&ctx);
}

/* Tiny images through rv_deband_apply (every mode, both depths). */
static void test_tiny_images(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    static const int sizes[][2] = {{1, 1}, {3, 2}, {2, 3}, {1, 9}, {9, 1}, {2, 2}, {5, 5}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (int m = 0; m < NMODES; m++)
            for (int il = 0; il < 2; il++) {
                RV_DebandSettings s;
                rv_deband_settings_default(&s);
                s.sample_mode = k_modes[m].mode;
                s.blur_first = k_modes[m].blur;
                s.interlaced = il;
                s.range = 31;
                s.seed = (uint32_t)(i * 10 + (size_t)m);
                check_against_ref(ctx, RV_FMT_YUV420P8, sizes[i][0], sizes[i][1], &s, 0, i);
                s.output_depth = 16;
                check_against_ref(ctx, RV_FMT_YUV444P16, sizes[i][0], sizes[i][1], &s, 0, i);
            }
    rv_context_destroy(&ctx);
}

/*
 * Borders: every kernel entry launched directly on planes that are exactly
 * w*h samples (no row padding, one allocation each), so that any read or
 * write outside the plane is an ASan error; odd tile shapes too.
 */
static void test_borders_exact_buffers(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    RV_Module *mod = NULL;
    assert_int_equal(rv_module_load(ctx, "deband", &mod), 0);
    static const char *const tags[] = {"m0", "m1b", "m1n", "m2b", "m2n"};
    static const int dd[4][2] = {{8, 8}, {8, 16}, {16, 16}, {16, 8}};
    static const int sizes[][2] = {{1, 1}, {3, 2}, {2, 3}, {17, 4}, {4, 17}, {31, 29}};
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
        for (int t = 0; t < NMODES; t++)
            for (int k = 0; k < 4; k++) {
                const int w = sizes[si][0], h = sizes[si][1];
                const int din = dd[k][0], dout = dd[k][1];
                char name[64];
                snprintf(name, sizeof(name), "deband_%s_%dto%d", tags[t], din, dout);
                const RV_Kernel *kern = NULL;
                assert_int_equal(rv_kernel_get(mod, name, &kern), 0);
                RV_DebandSettings s;
                rv_deband_settings_default(&s);
                s.sample_mode = k_modes[t].mode;
                s.blur_first = k_modes[t].blur;
                s.range = 255;
                s.interlaced = (int)(si & 1);
                s.seed = (uint32_t)(si * 100 + (size_t)t * 10 + (size_t)k);
                const size_t bi = din / 8, bo = dout / 8;
                uint16_t *in = malloc((size_t)w * h * 2), *want = malloc((size_t)w * h * 2);
                unsigned char *sbuf = malloc((size_t)w * h * bi), *dbuf = malloc((size_t)w * h * bo);
                assert_true(in && want && sbuf && dbuf);
                fill_test_plane(in, w, h, din, 0, si);
                for (int i = 0; i < w * h; i++) {
                    if (bi == 2)
                        ((uint16_t *)(void *)sbuf)[i] = in[i];
                    else
                        sbuf[i] = (unsigned char)in[i];
                }
                rv_deband_args a;
                memset(&a, 0, sizeof(a));
                a.nplanes = 1;
                a.src[0] = (uint64_t)(uintptr_t)sbuf;
                a.dst[0] = (uint64_t)(uintptr_t)dbuf;
                a.spitch[0] = (int64_t)(w * bi);
                a.dpitch[0] = (int64_t)(w * bo);
                a.w[0] = w;
                a.h[0] = h;
                a.thr[0] = s.y * 16;
                a.grain[0] = s.grainy * 4;
                a.key_ref[0] = rv_deband_key_ref(s.seed, 0);
                a.key_grain[0] = rv_deband_key_grain(s.seed, 0, 0);
                a.range = s.range;
                a.interlaced = s.interlaced;
                RV_LaunchShape sh;
                memset(&sh, 0, sizeof(sh));
                sh.block[0] = 7; /* tiles of 7 x 3 */
                sh.block[1] = 3;
                sh.grid[0] = (unsigned)((w + 6) / 7);
                sh.grid[1] = (unsigned)((h + 2) / 3);
                sh.grid[2] = 1;
                assert_int_equal(rv_launch_raw(kern, &sh, &a, sizeof(a)), 0);
                ref_deband_plane(in, want, w, h, din, dout, &s, 0, 0);
                for (int i = 0; i < w * h; i++) {
                    const unsigned got = bo == 2 ? ((uint16_t *)(void *)dbuf)[i] : dbuf[i];
                    if (got != want[i]) {
                        fprintf(stderr, "%s %dx%d (%d,%d): got %u want %u\n", name, w, h, i % w,
                                i / w, got, want[i]);
                        fail();
                    }
                }
                free(in);
                free(want);
                free(sbuf);
                free(dbuf);
            }
    rv_module_unload(&mod);
    rv_context_destroy(&ctx);
}

/* Messages (rv_deband_error, rv_deband_settings_check's) carry no prefix
 * of the module or the function: the caller adds its own ("rv-deband: ...",
 * ravioli-run's "stage 'deband': ..."; docs/deband.md). */
static void assert_no_prefix(const char *msg)
{
    printf("  message: %s\n", msg);
    assert_true(msg[0] != '\0');
    assert_true(strncmp(msg, "deband", 6) != 0);
    assert_true(strncmp(msg, "rv_deband", 9) != 0);
}

static void test_message_convention(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_Deband *db = NULL;
    assert_int_equal(rv_deband_create(ctx, &db), 0);
    RV_DebandSettings s;
    rv_deband_settings_default(&s);
    s.range = -1;
    char msg[256];
    assert_int_equal(rv_deband_settings_check(&s, msg, sizeof(msg)), RV_EINVAL);
    assert_string_equal(msg, "range must be 0..255 (got -1)"); /* the documented example */
    assert_int_equal(rv_deband_settings_check(NULL, msg, sizeof(msg)), RV_EINVAL);
    assert_no_prefix(msg);
    assert_int_equal(rv_deband_configure(db, &s), RV_EINVAL);
    assert_no_prefix(rv_deband_error(db));
    RV_Image *a = NULL, *b = NULL;
    assert_int_equal(rv_image_create(ctx, 8, 4, RV_FMT_GRAY8, &a), 0);
    assert_int_equal(rv_image_create(ctx, 8, 4, RV_FMT_RGBA8, &b), 0);
    assert_int_equal(rv_deband_apply(db, a, a, 0), RV_EINVAL);
    assert_no_prefix(rv_deband_error(db));
    assert_int_equal(rv_deband_apply(db, a, b, 0), RV_EINVAL);
    assert_no_prefix(rv_deband_error(db));
    assert_int_equal(rv_deband_apply(db, b, a, 0), RV_EINVAL);
    assert_no_prefix(rv_deband_error(db));
    rv_image_destroy(&a);
    rv_image_destroy(&b);
    rv_deband_destroy(&db);
    rv_context_destroy(&ctx);
}

/* rv_deband_error keeps the latest failure's message until the next failure,
 * as rv_context_error and rv_dwt_error do: calls that succeed (configure,
 * apply) leave it as it was; "" before any failure. */
static void test_error_kept_on_success(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_Deband *db = NULL;
    assert_int_equal(rv_deband_create(ctx, &db), 0);
    assert_string_equal(rv_deband_error(db), "");
    RV_DebandSettings s;
    rv_deband_settings_default(&s);
    RV_Image *a = NULL, *b = NULL;
    assert_int_equal(rv_image_create(ctx, 8, 4, RV_FMT_GRAY8, &a), 0);
    assert_int_equal(rv_image_create(ctx, 8, 4, RV_FMT_GRAY8, &b), 0);
    assert_int_equal(rv_deband_configure(db, &s), 0);
    assert_int_equal(rv_deband_apply(db, b, a, 0), 0);
    assert_string_equal(rv_deband_error(db), "");

    /* a refused configuration, then successes: the message stays */
    s.range = -1;
    assert_int_equal(rv_deband_configure(db, &s), RV_EINVAL);
    assert_string_equal(rv_deband_error(db), "range must be 0..255 (got -1)");
    s.range = 15;
    assert_int_equal(rv_deband_configure(db, &s), 0);
    assert_string_equal(rv_deband_error(db), "range must be 0..255 (got -1)");
    assert_int_equal(rv_deband_apply(db, b, a, 0), 0);
    assert_string_equal(rv_deband_error(db), "range must be 0..255 (got -1)");

    /* the next failure replaces it, and it stays after a success again */
    assert_int_equal(rv_deband_apply(db, a, a, 0), RV_EINVAL);
    assert_non_null(strstr(rv_deband_error(db), "must not be src"));
    assert_int_equal(rv_deband_apply(db, b, a, 1), 0);
    assert_non_null(strstr(rv_deband_error(db), "must not be src"));
    rv_image_destroy(&a);
    rv_image_destroy(&b);
    rv_deband_destroy(&db);
    rv_context_destroy(&ctx);
}

static void expect_bad(RV_Deband *db, const RV_DebandSettings *s, const char *word)
{
    char msg[256];
    assert_int_equal(rv_deband_settings_check(s, msg, sizeof(msg)), RV_EINVAL);
    printf("  refused: %s\n", msg);
    assert_non_null(strstr(msg, word));
    assert_int_equal(rv_deband_configure(db, s), RV_EINVAL);
    assert_non_null(strstr(rv_deband_error(db), word));
}

static void test_parameter_errors(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_Deband *db = NULL;
    assert_int_equal(rv_deband_create(ctx, &db), 0);
    RV_DebandSettings s, d;
    rv_deband_settings_default(&d);
    assert_int_equal(rv_deband_settings_check(&d, NULL, 0), 0);
    s = d; s.range = -1; expect_bad(db, &s, "range");
    s = d; s.range = 256; expect_bad(db, &s, "range");
    s = d; s.y = -3; expect_bad(db, &s, "threshold y");
    s = d; s.cr = 5000; expect_bad(db, &s, "threshold cr");
    s = d; s.grainy = -1; expect_bad(db, &s, "grainy");
    s = d; s.grainc = 4096; expect_bad(db, &s, "grainc");
    s = d; s.sample_mode = 3; expect_bad(db, &s, "unknown sample_mode 3");
    s = d; s.sample_mode = -1; expect_bad(db, &s, "sample_mode");
    s = d; s.blur_first = 2; expect_bad(db, &s, "blur_first");
    s = d; s.dynamic_grain = 7; expect_bad(db, &s, "dynamic_grain");
    s = d; s.interlaced = -1; expect_bad(db, &s, "interlaced");
    s = d; s.output_depth = 10; expect_bad(db, &s, "output_depth");
    assert_int_equal(rv_deband_settings_check(NULL, NULL, 0), RV_EINVAL);
    /* a refused configuration keeps the previous one */
    RV_DebandSettings got;
    rv_deband_get_settings(db, &got);
    assert_memory_equal(&got, &d, sizeof(d));

    /* call errors */
    RV_Image *a = NULL, *b = NULL, *c = NULL, *g = NULL;
    assert_int_equal(rv_image_create(ctx, 16, 8, RV_FMT_YUV420P8, &a), 0);
    assert_int_equal(rv_image_create(ctx, 16, 8, RV_FMT_YUV444P8, &b), 0);
    assert_int_equal(rv_image_create(ctx, 18, 8, RV_FMT_YUV420P8, &c), 0);
    assert_int_equal(rv_image_create(ctx, 16, 8, RV_FMT_RGBA8, &g), 0);
    assert_int_equal(rv_deband_apply(db, a, a, 0), RV_EINVAL);
    printf("  refused: %s\n", rv_deband_error(db));
    assert_non_null(strstr(rv_deband_error(db), "must not be src"));
    assert_int_equal(rv_deband_apply(db, b, a, 0), RV_EINVAL);
    printf("  refused: %s\n", rv_deband_error(db));
    assert_non_null(strstr(rv_deband_error(db), "expected yuv420p8"));
    assert_int_equal(rv_deband_apply(db, c, a, 0), RV_EINVAL);
    printf("  refused: %s\n", rv_deband_error(db));
    assert_non_null(strstr(rv_deband_error(db), "16x8"));
    assert_int_equal(rv_deband_apply(db, a, g, 0), RV_EINVAL);
    printf("  refused: %s\n", rv_deband_error(db));
    assert_non_null(strstr(rv_deband_error(db), "not supported"));
    assert_int_equal(rv_deband_apply(db, NULL, a, 0), RV_EINVAL);
    assert_int_equal(rv_deband_apply(NULL, a, b, 0), RV_EINVAL);
    assert_int_equal(rv_deband_output_format(db, RV_FMT_RGBA8), 0);
    s = d;
    s.output_depth = 16;
    assert_int_equal(rv_deband_configure(db, &s), 0);
    assert_int_equal(rv_deband_output_format(db, RV_FMT_YUV420P8), RV_FMT_YUV420P16);
    s.output_depth = 8;
    assert_int_equal(rv_deband_configure(db, &s), 0);
    assert_int_equal(rv_deband_output_format(db, RV_FMT_YUV444P16), RV_FMT_YUV444P8);
    rv_image_destroy(&a);
    rv_image_destroy(&b);
    rv_image_destroy(&c);
    rv_image_destroy(&g);
    rv_deband_destroy(&db);
    assert_null(db);
    rv_deband_destroy(&db); /* NULL is ignored */
    assert_int_equal(rv_deband_create(NULL, &db), RV_EINVAL);
    assert_int_equal(rv_deband_create(ctx, NULL), RV_EINVAL);
    rv_context_destroy(&ctx);
}

/* The same result with 1 and 2 worker threads. */
/*
 * The generator of the definition (docs/deband.md, via the reference's own
 * hash): over a 512 x 512 plane at range 15 (31 offsets), chi-square tests
 * of the offsets a and b, of pairs of horizontal neighbours (inside a group
 * of 4 samples, which share one group hash, and across groups), vertical
 * neighbours, a against b of the same sample, and the noise bytes of
 * neighbours. Bounds: the mean of the chi-square plus 8 standard
 * deviations (a defect such as two groups positions with related
 * multipliers gives chi-squares of many thousands).
 */
static double chi2(const int *cnt, int bins, double expect)
{
    double c = 0;
    for (int i = 0; i < bins; i++)
        c += (cnt[i] - expect) * (cnt[i] - expect) / expect;
    return c;
}
static void check_chi2(const char *what, const int *cnt, int bins, long n, int df)
{
    const double c = chi2(cnt, bins, (double)n / bins), bound = df + 8.0 * sqrt(2.0 * df);
    printf("generator: %-34s chi2 %9.1f (df %d, bound %.0f)\n", what, c, df, bound);
    assert_true(c < bound);
}
static void test_generator_statistics(void **state)
{
    (void)state;
    enum { W = 512, H = 512, R = 15, N = 2 * R + 1 };
    const uint32_t kref = ref_mix(ref_mix(12345u) + 0x9e3779b9u);
    int *fa = malloc(sizeof(int) * W * H), *fb = malloc(sizeof(int) * W * H);
    int *ft = malloc(sizeof(int) * W * H);
    int *c1 = calloc(N, sizeof(int)), *c2 = calloc(N, sizeof(int));
    int *jin = calloc(N * N, sizeof(int)), *jout = calloc(N * N, sizeof(int));
    int *jb = calloc(N * N, sizeof(int)), *jv = calloc(N * N, sizeof(int));
    int *jab = calloc(N * N, sizeof(int)), *jt = calloc(256 * 256, sizeof(int));
    assert_non_null(fa);
    assert_non_null(fb);
    assert_non_null(ft);
    assert_non_null(jt);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint32_t h1 = ref_hash(kref, x, y);
            fa[y * W + x] = ref_rr((h1 / 256u) % 4096u, 12, R) + R;
            fb[y * W + x] = ref_rr(h1, 32, R) + R;
            ft[y * W + x] = (int)(h1 % 256u);
        }
    long nin = 0, nout = 0, nh = 0, nv = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int i = y * W + x;
            c1[fa[i]]++;
            c2[fb[i]]++;
            jab[fa[i] * N + fb[i]]++;
            if (x + 1 < W) {
                if ((x + 1) % 4) {
                    jin[fa[i] * N + fa[i + 1]]++;
                    nin++;
                } else {
                    jout[fa[i] * N + fa[i + 1]]++;
                    nout++;
                }
                jb[fb[i] * N + fb[i + 1]]++;
                jt[ft[i] * 256 + ft[i + 1]]++;
                nh++;
            }
            if (y + 1 < H) {
                jv[fa[i] * N + fa[i + W]]++;
                nv++;
            }
        }
    check_chi2("offset a", c1, N, (long)W * H, N - 1);
    check_chi2("offset b", c2, N, (long)W * H, N - 1);
    check_chi2("a, b of one sample", jab, N * N, (long)W * H, N * N - 1);
    check_chi2("a of neighbours in a group", jin, N * N, nin, N * N - 1);
    check_chi2("a of neighbours across groups", jout, N * N, nout, N * N - 1);
    check_chi2("b of horizontal neighbours", jb, N * N, nh, N * N - 1);
    check_chi2("a of vertical neighbours", jv, N * N, nv, N * N - 1);
    check_chi2("noise bytes of neighbours", jt, 256 * 256, nh, 256 * 256 - 1);
    free(fa);
    free(fb);
    free(ft);
    free(c1);
    free(c2);
    free(jin);
    free(jout);
    free(jb);
    free(jv);
    free(jab);
    free(jt);
}

/* The arguments of a 3-plane w x h frame (chroma planes >> chroma_shift), range 15. */
static rv_deband_args frame_args(int w, int h, int chroma_shift)
{
    rv_deband_args a;
    memset(&a, 0, sizeof(a));
    a.nplanes = 3;
    a.range = 15;
    for (int p = 0; p < 3; p++) {
        const int s = p ? chroma_shift : 0;
        a.w[p] = (w + s) >> s;
        a.h[p] = (h + s) >> s;
    }
    return a;
}

/* The library's tile heights (rv_deband_tile_choose): 96 rows for 4K
 * 4:4:4, 64 for 4K 4:2:0, 32 for 1080p 4:4:4 and 4:2:0; the
 * count returned is the tiles of that height. */
static void test_tile_choose(void **state)
{
    (void)state;
    /* h32: a waiting launch's tile height */
    static const struct { int w, h, chroma_shift, h32; } c[] = {
        {3840, 2160, 0, 3}, {3840, 2160, 1, 2}, {1920, 1080, 0, 1}, {1920, 1080, 1, 1},
        {1280, 720, 1, 1}, {3, 2, 0, 1},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        rv_deband_args a = frame_args(c[i].w, c[i].h, c[i].chroma_shift);
        const unsigned n = rv_deband_tile_choose(&a, 2);
        assert_int_equal(a.tile_h32, c[i].h32);
        assert_int_equal((int)n, rv_deband_tile_count(&a));
        assert_int_equal((int)n, a.tiles); /* the tile table set too */
        /* a launch that overlaps the previous frame's grid: 128 rows */
        a.independent = RV_DEBAND_NO_WAIT | RV_DEBAND_EARLY_RELEASE;
        memset(a.tile_first, 0, sizeof(a.tile_first));
        a.tiles = 0;
        const unsigned no = rv_deband_tile_choose(&a, 2);
        assert_int_equal(a.tile_h32, 4);
        assert_int_equal((int)no, rv_deband_tile_count(&a));
        assert_int_equal((int)no, a.tiles);
        /* a waiting grid that releases the next early: the rule above */
        a.independent = RV_DEBAND_EARLY_RELEASE;
        rv_deband_tile_choose(&a, 2);
        assert_int_equal(a.tile_h32, c[i].h32);
        /* a launch that waits before its stores: the tallest of 128 and
         * 64 rows whose grid is more than one wave, else the rule above;
         * with the resident blocks unknown, the rule above */
        const int unknown[5] = {0, 0, 0, 0, 0};
        a.independent = RV_DEBAND_WAIT_LATE;
        int def = -1;
        const unsigned nl = rv_deband_tile_choose_late(&a, unknown, unknown, &def);
        assert_int_equal(a.tile_h32, c[i].h32);
        assert_int_equal(def, 0); /* (nothing known: no deferral) */
        assert_int_equal((int)nl, a.tiles);
        assert_int_equal(a.independent, RV_DEBAND_WAIT_LATE);
        const int res[5] = {0, 0, 660, 0, 528}; /* 16-bit tiles on an H200 */
        const int t128 = rv_deband_tile_set(&a, 4), t64 = rv_deband_tile_set(&a, 2);
        const int want = t128 > 528 ? 4 : t64 > 660 ? 2 : c[i].h32;
        rv_deband_tile_choose_late(&a, res, NULL, NULL);
        assert_int_equal(a.tile_h32, want);
        assert_int_equal(a.tiles, rv_deband_tile_count(&a));
        /* with the deferred rows' buffer costing no resident block: the
         * same tiles, deferred */
        rv_deband_tile_choose_late(&a, res, res, &def);
        assert_int_equal(a.tile_h32, want);
        assert_int_equal(def, want == 4 || want == 2);
    }
    /* the frames of run N: 4K 4:4:4 128 rows (1530 tiles), 1080p 4:4:4 64
     * rows (765; 128 rows would be 405, one wave), 1080p 4:2:0 the rule's
     * 32 rows (128 and 64 rows: 215 and 399 tiles) */
    static const struct { int w, h, cs, h32, tiles; } l[] = {
        {3840, 2160, 0, 4, 1530}, {1920, 1080, 0, 2, 765}, {1920, 1080, 1, 1, 34 * 15 + 2 * 17 * 8},
    };
    for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++) {
        rv_deband_args a = frame_args(l[i].w, l[i].h, l[i].cs);
        const int res[5] = {0, 0, 660, 0, 528};
        assert_int_equal((int)rv_deband_tile_choose_late(&a, res, NULL, NULL), l[i].tiles);
        assert_int_equal(a.tile_h32, l[i].h32);
    }
    /* with deferral (run O; 16-bit tiles on an H200: 5 blocks an SM at 32
     * and 64 rows, 4 at 128 (528); with the buffer 4 at 64 rows (528), 3
     * at 128 (396)): 4K 4:4:4 keeps 128 rows without it (1530 tiles, more
     * than two waves of 396), 1080p 4:4:4 takes 128 rows with it (405
     * tiles, one wave of 396 and a block), 1080p 4:2:0 (8-bit: 6 blocks an
     * SM either way) the rule's 32 rows with it */
    static const struct { int w, h, cs, h32, tiles, defer; } ld[] = {
        {3840, 2160, 0, 4, 1530, 0}, {1920, 1080, 0, 4, 405, 1},
        {1920, 1080, 1, 1, 34 * 15 + 2 * 17 * 8, 1},
    };
    for (size_t i = 0; i < sizeof(ld) / sizeof(ld[0]); i++) {
        rv_deband_args a = frame_args(ld[i].w, ld[i].h, ld[i].cs);
        const int r16[5] = {0, 660, 660, 528, 528}, rd16[5] = {0, 528, 528, 396, 396};
        const int r8[5] = {0, 792, 792, 792, 792};
        int def = -1;
        const unsigned n = rv_deband_tile_choose_late(&a, ld[i].cs ? r8 : r16, ld[i].cs ? r8 : rd16, &def);
        assert_int_equal((int)n, ld[i].tiles);
        assert_int_equal(a.tile_h32, ld[i].h32);
        assert_int_equal(def, ld[i].defer);
    }
    /* rv_deband_defer_pays: no resident block lost, or at most two waves */
    assert_true(rv_deband_defer_pays(5000, 528, 528));
    assert_true(rv_deband_defer_pays(792, 528, 396));
    assert_false(rv_deband_defer_pays(793, 528, 396));
    assert_false(rv_deband_defer_pays(10, 528, 0)); /* unknown */
}

/* The tile table of rv_deband_tile_set, walked as the GPU entries walk it
 * (rv_db_tiles_at: plane by tile_first, row as umulhi(r, tile_rcp) or
 * r / tile_cols): every tile of every plane once, in plane, row, column
 * order; tile_rcp set only where exact for all of the plane's tiles (a
 * plane of 32767 tile columns and 5 rows: ceil(2^32 / 32767) is not exact
 * there and must not be used). */
static void test_tile_table(void **state)
{
    (void)state;
    static const struct { int w, h, np, cs; } c[] = {
        {3840, 2160, 3, 1}, {3840, 2160, 3, 0}, {1920, 1080, 3, 1}, {1920, 1080, 3, 0},
        {1, 1, 1, 0},       {129, 33, 1, 0},    {7000, 3000, 3, 1}, {300, 70, 2, 1},
        {32767 * 128, 160, 1, 0},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        for (int h32 = 1; h32 <= 4; h32++) {
            rv_deband_args a;
            memset(&a, 0, sizeof(a));
            a.nplanes = c[i].np;
            for (int p = 0; p < c[i].np; p++) {
                const int s = p ? c[i].cs : 0;
                a.w[p] = (c[i].w + s) >> s;
                a.h[p] = (c[i].h + s) >> s;
            }
            const int n = rv_deband_tile_set(&a, h32);
            assert_int_equal(a.tile_h32, h32);
            assert_int_equal(n, a.tiles);
            assert_int_equal(n, rv_deband_tile_count(&a));
            const int th = 32 * h32;
            int t = 0, inexact = 0;
            for (int p = 0; p < c[i].np; p++) {
                const int cols = (a.w[p] + 127) / 128, rows = (a.h[p] + th - 1) / th;
                assert_int_equal(a.tile_first[p], t);
                assert_int_equal(a.tile_cols[p], cols);
                for (int ty = 0; ty < rows; ty++)
                    for (int tx = 0; tx < cols; tx++, t++) {
                        const int q = t >= a.tile_first[2] ? 2 : t >= a.tile_first[1] ? 1 : 0;
                        const int r = t - a.tile_first[q];
                        const uint32_t m = a.tile_rcp[q];
                        const int ry = m ? (int)(((uint64_t)(uint32_t)r * m) >> 32) : r / a.tile_cols[q];
                        assert_int_equal(q, p);
                        assert_int_equal(ry, ty);
                        assert_int_equal(r - ry * a.tile_cols[q], tx);
                        if (cols >= 2) {
                            const uint64_t m2 = (((uint64_t)1 << 32) + (uint64_t)cols - 1) / (uint64_t)cols;
                            inexact |= (int)(((uint64_t)(uint32_t)r * m2) >> 32) != ty;
                        }
                    }
                /* tile_rcp: 0 exactly where the reciprocal would be wrong
                 * (or for one column) */
                assert_int_equal(a.tile_rcp[p] == 0, cols < 2 || inexact);
                inexact = 0;
            }
            assert_int_equal(t, n);
            for (int p = c[i].np; p < 3; p++) {
                assert_int_equal(a.tile_first[p], n);
                assert_int_equal(a.tile_cols[p], 1);
            }
        }
    /* the inexact case exists: the last plane above has tile_rcp 0 */
    rv_deband_args a;
    memset(&a, 0, sizeof(a));
    a.nplanes = 1;
    a.w[0] = 32767 * 128;
    a.h[0] = 160;
    rv_deband_tile_set(&a, 1);
    assert_int_equal(a.tile_rcp[0], 0);
}

/* Chained frames (deband_kernel.h): which launch may start without waiting
 * for the previous grid. Spans are checked against every grid since the
 * last launch that waited; reads of the same memory do not conflict. */
static rv_deband_span span(uint64_t lo, uint64_t hi)
{
    rv_deband_span s = {lo, hi};
    return s;
}

static void test_chain_rules(void **state)
{
    (void)state;
    rv_deband_chain c;
    memset(&c, 0, sizeof(c));
    /* the first launch waits (nothing to follow) */
    assert_int_equal(rv_deband_chain_add(&c, 1, span(0, 100), span(1000, 1100)), 0);
    assert_int_equal(c.n, 1);
    /* disjoint frames follow one another: no wait */
    assert_int_equal(rv_deband_chain_add(&c, 1, span(100, 200), span(1100, 1200)), 1);
    assert_int_equal(rv_deband_chain_add(&c, 1, span(200, 300), span(1200, 1300)), 1);
    assert_int_equal(c.n, 3);
    /* reading what the chain reads is fine (the same source twice) */
    assert_int_equal(rv_deband_chain_add(&c, 1, span(0, 100), span(1300, 1400)), 1);
    /* something else was queued in between: wait, a new chain */
    assert_int_equal(rv_deband_chain_add(&c, 0, span(400, 500), span(1400, 1500)), 0);
    assert_int_equal(c.n, 1);
    /* reads the output of the chain's first (now only) grid: wait */
    assert_int_equal(rv_deband_chain_add(&c, 1, span(1450, 1460), span(2000, 2100)), 0);
    assert_int_equal(c.n, 1);
    /* writes what the chain's grid reads (the source of the previous
     * launch, 1450..1460): waits before its stores */
    assert_int_equal(rv_deband_chain_add(&c, 1, span(3000, 3100), span(1459, 1470)), RV_DEBAND_CHAIN_LATE);
    assert_int_equal(c.n, 1);
    /* writes what a grid of the chain writes (1459..1470): the same */
    assert_int_equal(rv_deband_chain_add(&c, 1, span(4000, 4100), span(1469, 1480)), RV_DEBAND_CHAIN_LATE);
    /* (and the chain is now that launch alone: its neighbour follows) */
    assert_int_equal(rv_deband_chain_add(&c, 1, span(4100, 4200), span(1480, 1490)), 1);
    /* reads what the chain writes and writes what it reads: at the start */
    assert_int_equal(rv_deband_chain_add(&c, 1, span(1485, 1486), span(4150, 4160)), RV_DEBAND_CHAIN_WAIT);
    /* writes only, but after other queued work: at the start */
    assert_int_equal(rv_deband_chain_add(&c, 1, span(5000, 5100), span(5100, 5200)), 1);
    assert_int_equal(rv_deband_chain_add(&c, 0, span(6000, 6100), span(5000, 5010)), RV_DEBAND_CHAIN_WAIT);
    /* a RAW with an older grid decides over a WAW with a newer one */
    memset(&c, 0, sizeof(c));
    rv_deband_chain_add(&c, 1, span(0, 10), span(10, 20));
    assert_int_equal(rv_deband_chain_add(&c, 1, span(20, 30), span(30, 40)), 1);
    assert_int_equal(rv_deband_chain_add(&c, 1, span(15, 16), span(35, 36)), RV_DEBAND_CHAIN_WAIT);
    /* a conflict with an older grid of the chain, not the last one */
    memset(&c, 0, sizeof(c));
    rv_deband_chain_add(&c, 1, span(0, 10), span(10, 20));
    assert_int_equal(rv_deband_chain_add(&c, 1, span(20, 30), span(30, 40)), 1);
    assert_int_equal(rv_deband_chain_add(&c, 1, span(10, 20), span(40, 50)), 0);
    /* touching ends do not overlap ([lo, hi)) */
    assert_int_equal(rv_deband_chain_add(&c, 1, span(50, 60), span(20, 40)), 1);
    /* at most RV_DEBAND_CHAIN_MAX grids: then a launch waits before its
     * stores (the first at its start: nothing to follow) */
    memset(&c, 0, sizeof(c));
    int waited = 0, late = 0;
    for (int i = 0; i < 3 * RV_DEBAND_CHAIN_MAX; i++) {
        const int r = rv_deband_chain_add(&c, 1, span(100u * i, 100u * i + 50), span(100u * i + 50, 100u * i + 100));
        if (r != RV_DEBAND_CHAIN_FREE) {
            assert_int_equal(i % RV_DEBAND_CHAIN_MAX, 0);
            assert_int_equal(r, i ? RV_DEBAND_CHAIN_LATE : RV_DEBAND_CHAIN_WAIT);
            waited += r == RV_DEBAND_CHAIN_WAIT;
            late += r == RV_DEBAND_CHAIN_LATE;
        }
    }
    assert_int_equal(waited, 1);
    assert_int_equal(late, 2);
    /* a full chain: a read of what it writes waits at the start */
    assert_int_equal(c.n, RV_DEBAND_CHAIN_MAX);
    assert_int_equal(rv_deband_chain_add(&c, 1, span(100u * 47 + 60, 100u * 47 + 61), span(9000, 9001)),
                     RV_DEBAND_CHAIN_WAIT);
    /* a launch's spans: lowest plane start to highest plane end, rows of
     * the plane's width (the last row not padded) */
    rv_deband_args a;
    memset(&a, 0, sizeof(a));
    a.nplanes = 3;
    const uint64_t base = 1u << 20;
    for (int p = 0; p < 3; p++) {
        a.w[p] = p ? 50 : 100;
        a.h[p] = p ? 20 : 40;
        a.spitch[p] = p ? 64 : 128;
        a.dpitch[p] = p ? 128 : 256;
    }
    a.src[0] = base + 5000, a.src[1] = base, a.src[2] = base + 2000;
    a.dst[0] = base + 100000, a.dst[1] = base + 120000, a.dst[2] = base + 130000;
    rv_deband_span s = rv_deband_span_of(&a, 0, 1);
    assert_true(s.lo == base && s.hi == base + 5000 + 128 * 39 + 100);
    s = rv_deband_span_of(&a, 1, 2);
    assert_true(s.lo == base + 100000 && s.hi == base + 130000 + 128 * 19 + 100);
    /* the CPU backend queues nothing: its frames never count as overlapped */
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_Deband *d = NULL;
    assert_int_equal(rv_deband_create(ctx, &d), 0);
    RV_Image *src[2] = {NULL, NULL}, *dst[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(rv_image_create(ctx, 64, 48, RV_FMT_YUV420P8, &src[i]), 0);
        assert_int_equal(rv_image_create(ctx, 64, 48, RV_FMT_YUV420P8, &dst[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(rv_deband_apply(d, dst[i & 1], src[i & 1], i), 0);
    assert_true(rv_deband_overlapped(d) == 0);
    assert_true(rv_context_queued(ctx) == 0);
    assert_true(rv_deband_overlapped(NULL) == 0);
    for (int i = 0; i < 2; i++) {
        rv_image_destroy(&src[i]);
        rv_image_destroy(&dst[i]);
    }
    rv_deband_destroy(&d);
    rv_context_destroy(&ctx);
}

static void test_thread_count_invariant(void **state)
{
    (void)state;
    RV_Context *c1 = rv_test_cpu_context(1), *c2 = rv_test_cpu_context(2);
    RV_DebandSettings s;
    rv_deband_settings_default(&s);
    s.output_depth = 16;
    uint16_t *res[2];
    RV_Context *cs[2] = {c1, c2};
    for (int i = 0; i < 2; i++) {
        RV_Deband *db = NULL;
        RV_Image *src = NULL, *dst = NULL;
        assert_int_equal(rv_deband_create(cs[i], &db), 0);
        assert_int_equal(rv_deband_configure(db, &s), 0);
        assert_int_equal(rv_image_create(cs[i], 2100, 40, RV_FMT_GRAY8, &src), 0);
        assert_int_equal(rv_image_create(cs[i], 2100, 40, RV_FMT_GRAY16, &dst), 0);
        rv_test_fill_random(src, 77);
        assert_int_equal(rv_deband_apply(db, dst, src, 0), 0);
        res[i] = img_get_plane(dst, 0);
        rv_image_destroy(&src);
        rv_image_destroy(&dst);
        rv_deband_destroy(&db);
    }
    assert_memory_equal(res[0], res[1], 2100 * 40 * 2);
    free(res[0]);
    free(res[1]);
    rv_context_destroy(&c1);
    rv_context_destroy(&c2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_reference),
        cmocka_unit_test(test_parameter_extremes),
        cmocka_unit_test(test_threshold_zero_copies),
        cmocka_unit_test(test_dynamic_grain),
        cmocka_unit_test(test_quality_gradient),
        cmocka_unit_test(test_generator_statistics),
        cmocka_unit_test(test_tiny_images),
        cmocka_unit_test(test_borders_exact_buffers),
        cmocka_unit_test(test_parameter_errors),
        cmocka_unit_test(test_thread_count_invariant),
        cmocka_unit_test(test_tile_choose),
        cmocka_unit_test(test_tile_table),
        cmocka_unit_test(test_chain_rules),
        cmocka_unit_test(test_message_convention),
        cmocka_unit_test(test_error_kept_on_success),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
