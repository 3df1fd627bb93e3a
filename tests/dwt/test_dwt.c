/*
 * test_dwt.c - the DWT module on the CPU backend: coefficients against the
 * float64 / integer reference of dwt_ref.h, perfect reconstruction, in place
 * equal to out of place, every wavelet, sizes 1, odd, prime, powers of two,
 * several level counts, both layouts, 1-D and 2-D, fused and chunked rows;
 * wavelet denoising of a luma plane.
 */
#include <limits.h>
#include <time.h>

#include "rv_test.h"

#include "internal.h" /* test_transfer_ctx_backend: a context's backend field */
#include "dwt_ref.h"
#include "copy16_check.h"
#include "frame_api_check.h"

typedef struct cfg {
    RV_DwtWavelet wv;
    int integer;
} cfg;

static const cfg CFGS[] = {
    {RV_DWT_HAAR, 0}, {RV_DWT_HAAR, 1}, {RV_DWT_CDF53, 0}, {RV_DWT_CDF53, 1},
    {RV_DWT_CDF97, 0}, {RV_DWT_DD137, 0}, {RV_DWT_DD137, 1},
};
static const char *WNAME[] = {"?", "haar", "cdf53", "cdf97", "dd137"};

static const int SIZES[][2] = {
    {1, 1}, {1, 7}, {7, 1}, {2, 2}, {3, 5}, {16, 16}, {17, 13}, {31, 64},
    {64, 31}, {97, 101}, {129, 67}, {200, 3}, {2, 9}, {130, 2},
};
static const int LEVELS[] = {1, 2, 3, 6};

static RV_Context *g_ctx;

/* Runs one configuration; returns the transformed coefficients (caller frees). */
static void *run_one(const RV_DwtSettings *s, const void *in, int w, int h, int levels, int inverse)
{
    RV_Dwt *d = NULL;
    int err = rv_dwt_create(g_ctx, s, &d);
    assert_int_equal(err, 0);
    const size_t pitch = (size_t)w * 4 + 12; /* a pitch wider than the row */
    RV_Buffer *b = NULL;
    assert_int_equal(rv_buffer_create(g_ctx, pitch * (size_t)h, &b), 0);
    for (int y = 0; y < h; y++)
        assert_int_equal(rv_buffer_upload(b, (size_t)y * pitch, (const char *)in + (size_t)y * w * 4, (size_t)w * 4), 0);
    err = inverse ? rv_dwt_inverse_buffer(d, b, w, h, pitch, levels) : rv_dwt_forward_buffer(d, b, w, h, pitch, levels);
    if (err)
        fprintf(stderr, "dwt error: %s\n", rv_dwt_error(d));
    assert_int_equal(err, 0);
    void *out = malloc((size_t)w * h * 4);
    for (int y = 0; y < h; y++)
        assert_int_equal(rv_buffer_download(b, (size_t)y * pitch, (char *)out + (size_t)y * w * 4, (size_t)w * 4), 0);
    rv_buffer_destroy(&b);
    rv_dwt_destroy(&d);
    assert_null(d);
    return out;
}

static int g_checked;

static void check_config(const cfg *c, int layout, int method, int fuse, int dims, int w, int h, int levels)
{
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    s.wavelet = c->wv;
    s.type = c->integer ? RV_DWT_I32 : RV_DWT_F32;
    s.layout = layout;
    s.method = method;
    s.dims = dims;
    s.fuse_max_shared = fuse ? 49152 : 0;
    const size_t n = (size_t)w * h;
    uint64_t st = (uint64_t)(w * 7919 + h * 104729 + levels * 31 + c->wv) | 1;
    double *ref = malloc(n * sizeof(double));
    void *in = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        if (c->integer) {
            const int32_t v = (int32_t)(rv_test_rand(&st) % 2001) - 1000;
            ((int32_t *)in)[i] = v;
            ref[i] = v;
        } else {
            const float v = (float)((double)(rv_test_rand(&st) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
            ((float *)in)[i] = v;
            ref[i] = v;
        }
    }
    ref_forward(c->wv, c->integer, layout == RV_DWT_LAYOUT_INTERLEAVED, dims, ref, w, h, levels);
    void *co = run_one(&s, in, w, h, levels, 0);
    double maxref = 1.0;
    for (size_t i = 0; i < n; i++)
        maxref = fmax(maxref, fabs(ref[i]));
    for (size_t i = 0; i < n; i++) {
        if (c->integer) {
            if (((int32_t *)co)[i] != (int32_t)ref[i]) {
                fprintf(stderr, "%s i32 layout %d method %d fuse %d dims %d %dx%d L%d: coefficient %zu (%zu,%zu) = %d, reference %g\n",
                        WNAME[c->wv], layout, method, fuse, dims, w, h, levels, i, i % w, i / w,
                        ((int32_t *)co)[i], ref[i]);
                fail();
            }
        } else if (fabs(((float *)co)[i] - ref[i]) > 2e-6 * maxref * (levels + 1)) {
            fprintf(stderr, "%s f32 layout %d method %d fuse %d dims %d %dx%d L%d: coefficient %zu = %.9g, reference %.9g\n",
                    WNAME[c->wv], layout, method, fuse, dims, w, h, levels, i, ((float *)co)[i], ref[i]);
            fail();
        }
    }
    /* the other method gives the very same bits */
    RV_DwtSettings s2 = s;
    s2.method = method == RV_DWT_IN_PLACE ? RV_DWT_OUT_OF_PLACE : RV_DWT_IN_PLACE;
    void *co2 = run_one(&s2, in, w, h, levels, 0);
    assert_memory_equal(co, co2, n * 4);
    /* perfect reconstruction */
    void *rec = run_one(&s, co, w, h, levels, 1);
    for (size_t i = 0; i < n; i++) {
        if (c->integer) {
            if (((int32_t *)rec)[i] != ((int32_t *)in)[i]) {
                fprintf(stderr, "%s i32 %dx%d L%d: reconstruction differs at %zu\n", WNAME[c->wv], w, h, levels, i);
                fail();
            }
        } else if (fabs(((float *)rec)[i] - ((float *)in)[i]) > 1e-5) {
            fprintf(stderr, "%s f32 layout %d method %d fuse %d dims %d %dx%d L%d: reconstruction %zu = %.9g, input %.9g\n",
                    WNAME[c->wv], layout, method, fuse, dims, w, h, levels, i, ((float *)rec)[i],
                    ((float *)in)[i]);
            fail();
        }
    }
    g_checked++;
    free(rec);
    free(co2);
    free(co);
    free(in);
    free(ref);
}

static void test_all(int dims, int layout)
{
    for (size_t c = 0; c < sizeof(CFGS) / sizeof(CFGS[0]); c++)
        for (size_t z = 0; z < sizeof(SIZES) / sizeof(SIZES[0]); z++)
            for (size_t l = 0; l < sizeof(LEVELS) / sizeof(LEVELS[0]); l++)
                for (int fuse = 0; fuse < 2; fuse++)
                    check_config(&CFGS[c], layout, RV_DWT_IN_PLACE, fuse, dims, SIZES[z][0], SIZES[z][1],
                                 LEVELS[l]);
}

static void test_2d_block(void **state)
{
    (void)state;
    test_all(2, RV_DWT_LAYOUT_BLOCK);
}
static void test_2d_interleaved(void **state)
{
    (void)state;
    test_all(2, RV_DWT_LAYOUT_INTERLEAVED);
}
static void test_1d_block(void **state)
{
    (void)state;
    test_all(1, RV_DWT_LAYOUT_BLOCK);
}
static void test_1d_interleaved(void **state)
{
    (void)state;
    test_all(1, RV_DWT_LAYOUT_INTERLEAVED);
}

/* Long rows: the chunk rearrangement with many chunks (cycles) and a tail. */
static void test_long_rows(void **state)
{
    (void)state;
    const int ws[] = {4096, 4099, 1000 * 13 + 1};
    for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++) {
        check_config(&CFGS[3], RV_DWT_LAYOUT_BLOCK, RV_DWT_IN_PLACE, 0, 2, ws[i], 5, 3);
        check_config(&CFGS[4], RV_DWT_LAYOUT_BLOCK, RV_DWT_IN_PLACE, 0, 1, ws[i], 2, 4);
        check_config(&CFGS[5], RV_DWT_LAYOUT_BLOCK, RV_DWT_OUT_OF_PLACE, 1, 2, 3, ws[i], 2);
    }
    /* in-place fused columns: many tiles of saved halos, several column groups */
    check_config(&CFGS[6], RV_DWT_LAYOUT_BLOCK, RV_DWT_IN_PLACE, 1, 2, 1500, 1101, 2);
    check_config(&CFGS[4], RV_DWT_LAYOUT_BLOCK, RV_DWT_IN_PLACE, 1, 2, 1300, 999, 1);
}

/* Length 1 along both axes: identity; 0 levels: identity. */
static void test_identity(void **state)
{
    (void)state;
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    float v[3] = {0.25f, -3.0f, 7.5f};
    float *o = run_one(&s, v, 1, 1, 5, 0);
    assert_true(o[0] == 0.25f);
    free(o);
    o = run_one(&s, v, 3, 1, 0, 0);
    assert_memory_equal(o, v, sizeof(v));
    free(o);
}

/* Messages (rv_dwt_error, the reason of rv_dwt_settings_check) carry no
 * prefix of the module or the function: the caller adds its own
 * ("rv-dwt: ...", ravioli-run's "stage 'denoise': ..."; docs/dwt.md). */
static void assert_no_prefix(const char *msg)
{
    printf("  message: %s\n", msg);
    assert_true(msg[0] != '\0');
    assert_true(strncmp(msg, "dwt", 3) != 0);
    assert_true(strncmp(msg, "rv_dwt", 6) != 0);
    assert_true(strncmp(msg, "denoise", 7) != 0);
}

static void test_message_convention(void **state)
{
    (void)state;
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    s.type = RV_DWT_I32;
    char why[200];
    assert_int_equal(rv_dwt_settings_check(&s, why, sizeof(why)), RV_EINVAL);
    assert_string_equal(why, "CDF 9/7 is irreversible: f32 data only"); /* the documented example */
    s.dims = 0;
    s.type = RV_DWT_F32;
    assert_int_equal(rv_dwt_settings_check(&s, why, sizeof(why)), RV_EINVAL);
    assert_no_prefix(why);
    rv_dwt_settings_default(&s);
    RV_Dwt *d = NULL;
    assert_int_equal(rv_dwt_create(g_ctx, &s, &d), 0);
    float v[16] = {0};
    assert_int_equal(rv_dwt_forward_host(d, v, v, 4, 4, 16, 33), RV_EINVAL);
    assert_no_prefix(rv_dwt_error(d));
    assert_int_equal(rv_dwt_inverse_host(d, NULL, v, 4, 4, 16, 1), RV_EINVAL);
    assert_no_prefix(rv_dwt_error(d));
    assert_int_equal(rv_dwt_forward_buffer(d, NULL, 4, 4, 16, 1), RV_EINVAL);
    assert_no_prefix(rv_dwt_error(d));
    assert_int_equal(rv_dwt_forward(d, NULL, 1), RV_EINVAL);
    assert_no_prefix(rv_dwt_error(d));
    RV_DwtDenoiseParams p;
    rv_dwt_denoise_default(&p);
    p.levels = -1;
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(g_ctx, 8, 8, RV_FMT_GRAY8, &img), 0);
    assert_int_equal(rv_dwt_denoise(d, img, &p), RV_EINVAL);
    assert_no_prefix(rv_dwt_error(d));
    rv_image_destroy(&img);
    rv_dwt_destroy(&d);
}

static void test_errors(void **state)
{
    (void)state;
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    RV_Dwt *d = NULL;
    char why[200] = "x";
    assert_int_equal(rv_dwt_settings_check(&s, why, sizeof(why)), 0);
    assert_string_equal(why, "");
    s.type = RV_DWT_I32;
    assert_int_equal(rv_dwt_create(g_ctx, &s, &d), RV_EINVAL); /* 9/7 is float only */
    assert_null(d);
    /* the reason, which the failed create has no object to keep */
    assert_int_equal(rv_dwt_settings_check(&s, why, sizeof(why)), RV_EINVAL);
    assert_non_null(strstr(why, "9/7"));
    assert_int_equal(rv_dwt_settings_check(&s, NULL, 0), RV_EINVAL);
    assert_int_equal(rv_dwt_settings_check(&s, why, 4), RV_EINVAL); /* truncated, terminated */
    assert_int_equal(strlen(why), 3);
    rv_dwt_settings_default(&s);
    s.dims = 3;
    assert_int_equal(rv_dwt_create(g_ctx, &s, &d), RV_EINVAL);
    assert_int_equal(rv_dwt_settings_check(&s, why, sizeof(why)), RV_EINVAL);
    assert_non_null(strstr(why, "dims"));
    rv_dwt_settings_default(&s);
    s.wavelet = (RV_DwtWavelet)99;
    assert_int_equal(rv_dwt_settings_check(&s, why, sizeof(why)), RV_EINVAL);
    assert_non_null(strstr(why, "wavelet 99"));
    assert_int_equal(rv_dwt_settings_check(NULL, why, sizeof(why)), RV_EINVAL);
    rv_dwt_settings_default(&s);
    assert_int_equal(rv_dwt_create(NULL, &s, &d), RV_EINVAL);
    assert_null(d);
    assert_int_equal(rv_dwt_create(g_ctx, &s, &d), 0);
    RV_Buffer *b = NULL;
    assert_int_equal(rv_buffer_create(g_ctx, 64, &b), 0);
    assert_int_equal(rv_dwt_forward_buffer(d, b, 8, 4, 16, 1), RV_EINVAL); /* 128 bytes > 64 */
    assert_true(strlen(rv_dwt_error(d)) > 0);
    assert_int_equal(rv_dwt_forward_buffer(d, b, 4, 4, 12, 1), RV_EINVAL); /* pitch < 16 */
    assert_int_equal(rv_dwt_forward_buffer(d, b, 4, 4, 16, -1), RV_EINVAL);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(g_ctx, 8, 8, RV_FMT_GRAY8, &img), 0);
    assert_int_equal(rv_dwt_forward(d, img, 1), RV_EINVAL); /* not GRAYF32 */
    rv_image_destroy(&img);
    rv_buffer_destroy(&b);
    rv_dwt_destroy(&d);
    assert_null(d);
    rv_dwt_destroy(&d); /* NULL is fine */
}

/* The image API on GRAYF32 gives the buffer API's coefficients. */
static void test_image_api(void **state)
{
    (void)state;
    const int w = 37, h = 23;
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(g_ctx, w, h, RV_FMT_GRAYF32, &img), 0);
    rv_test_fill_random(img, 5);
    float *in = malloc((size_t)w * h * 4);
    ptrdiff_t pitch;
    const unsigned char *p = rv_image_read(img, 0, &pitch);
    for (int y = 0; y < h; y++)
        memcpy(in + (size_t)y * w, p + y * pitch, (size_t)w * 4);
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    RV_Dwt *d = NULL;
    assert_int_equal(rv_dwt_create(g_ctx, &s, &d), 0);
    assert_int_equal(rv_dwt_forward(d, img, 3), 0);
    float *co = run_one(&s, in, w, h, 3, 0);
    p = rv_image_read(img, 0, &pitch);
    for (int y = 0; y < h; y++)
        assert_memory_equal(p + y * pitch, co + (size_t)y * w, (size_t)w * 4);
    assert_int_equal(rv_dwt_inverse(d, img, 3), 0);
    p = rv_image_read(img, 0, &pitch);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            assert_true(fabsf(((const float *)(p + y * pitch))[x] - in[(size_t)y * w + x]) < 1e-5f);
    free(co);
    free(in);
    rv_dwt_destroy(&d);
    rv_image_destroy(&img);
}

/* Denoising: threshold 0 gives the frame back; a threshold lowers the error to the clean image. */
/* The example at the top of ravioli/dwt.h, as written there: a 5/3 transform
 * of a GRAYF32 image and back (images take f32 settings; the example once
 * set type I32 too, which rv_dwt_forward refuses). */
static void test_header_example(void **state)
{
    (void)state;
    RV_Context *ctx = g_ctx;
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, 19, 11, RV_FMT_GRAYF32, &img), 0);
    rv_test_fill_random(img, 8);
    ptrdiff_t pitch;
    const unsigned char *p = rv_image_read(img, 0, &pitch);
    float *in = malloc((size_t)19 * 11 * 4);
    for (int y = 0; y < 11; y++)
        memcpy(in + (size_t)y * 19, p + y * pitch, (size_t)19 * 4);
    /* --- ravioli/dwt.h --- */
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);           // CDF 9/7, float, 2-D, block layout, in place
    s.wavelet = RV_DWT_CDF53;              // f32 (i32 samples: the buffer functions)
    RV_Dwt *dwt;
    assert_int_equal(rv_dwt_create(ctx, &s, &dwt), 0);
    assert_int_equal(rv_dwt_forward(dwt, img, 3), 0);          // GRAYF32 image, in its own storage
    assert_int_equal(rv_dwt_inverse(dwt, img, 3), 0);
    rv_dwt_destroy(&dwt);
    /* --- */
    assert_null(dwt);
    p = rv_image_read(img, 0, &pitch);
    for (int y = 0; y < 11; y++)
        for (int x = 0; x < 19; x++)
            assert_true(fabsf(((const float *)(p + y * pitch))[x] - in[(size_t)y * 19 + x]) < 1e-5f);
    free(in);
    rv_image_destroy(&img);
}

/* rv_dwt_ll_size has no error return: any int sizes and levels give an
 * answer without signed overflow (UBSan) and without one loop turn a level
 * (levels = INT_MAX took seconds). */
static void test_ll_size(void **state)
{
    (void)state;
    int lw = 0, lh = 0;
    rv_dwt_ll_size(NULL, 37, 23, 3, &lw, &lh);
    assert_int_equal(lw, 5);
    assert_int_equal(lh, 3);
    rv_dwt_ll_size(NULL, 37, 23, 0, &lw, &lh);
    assert_int_equal(lw, 37);
    assert_int_equal(lh, 23);
    rv_dwt_ll_size(NULL, INT_MAX, INT_MAX, 1, &lw, &lh);
    assert_int_equal(lw, 1073741824);
    assert_int_equal(lh, 1073741824);
    const clock_t t0 = clock();
    rv_dwt_ll_size(NULL, 5, 3, INT_MAX, &lw, &lh);
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 0.1);
    assert_int_equal(lw, 1);
    assert_int_equal(lh, 1);
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    s.dims = 1;
    RV_Dwt *d = NULL;
    assert_int_equal(rv_dwt_create(g_ctx, &s, &d), 0);
    rv_dwt_ll_size(d, 37, 23, INT_MAX, &lw, &lh); /* 1-D: rows only */
    assert_int_equal(lw, 1);
    assert_int_equal(lh, 23);
    rv_dwt_ll_size(d, 37, 23, 2, NULL, NULL);
    rv_dwt_destroy(&d);
}

/* The documented level range is 0..32, and levels past the point where the
 * region is 1 x 1 (1-D: one sample wide) change nothing: 32 levels give the
 * coefficients of just enough levels, in every layout, method and dims
 * (the interleaved layout computed 1 << 31 for level 31: UBSan abort). */
static void test_max_levels(void **state)
{
    (void)state;
    const int w = 13, h = 6;
    for (int wv = RV_DWT_HAAR; wv <= RV_DWT_DD137; wv++)
        for (int lay = 0; lay < 2; lay++)
            for (int m = 0; m < 2; m++)
                for (int dims = 1; dims <= 2; dims++) {
                    RV_DwtSettings s;
                    rv_dwt_settings_default(&s);
                    s.wavelet = (RV_DwtWavelet)wv;
                    s.layout = (RV_DwtLayout)lay;
                    s.method = (RV_DwtMethod)m;
                    s.dims = dims;
                    if (wv != RV_DWT_CDF97)
                        s.type = RV_DWT_I32;
                    RV_Dwt *d = NULL;
                    assert_int_equal(rv_dwt_create(g_ctx, &s, &d), 0);
                    int32_t a[13 * 6], b[13 * 6], c[13 * 6];
                    for (int i = 0; i < w * h; i++) {
                        const int v = (i * 37 + 11) % 200 - 100;
                        if (s.type == RV_DWT_I32)
                            a[i] = v;
                        else {
                            const float f = (float)v;
                            memcpy(&a[i], &f, 4);
                        }
                    }
                    const int need = 4; /* 13 -> 7 -> 4 -> 2 -> 1 (6 -> 3 -> 2 -> 1 -> 1) */
                    assert_int_equal(rv_dwt_forward_host(d, a, b, w, h, (size_t)w * 4, need), 0);
                    assert_int_equal(rv_dwt_forward_host(d, a, c, w, h, (size_t)w * 4, 32), 0);
                    assert_memory_equal(b, c, sizeof(b));
                    assert_int_equal(rv_dwt_inverse_host(d, c, c, w, h, (size_t)w * 4, 32), 0);
                    if (s.type == RV_DWT_I32)
                        assert_memory_equal(a, c, sizeof(a));
                    rv_dwt_destroy(&d);
                }
}

static void test_denoise(void **state)
{
    (void)state;
    const int w = 96, h = 64;
    RV_Image *f = NULL;
    assert_int_equal(rv_image_create(g_ctx, w, h, RV_FMT_YUV420P8, &f), 0);
    uint8_t *clean = malloc((size_t)w * h), *noisy = malloc((size_t)w * h);
    uint64_t st = 99;
    ptrdiff_t pitch;
    uint8_t *y = rv_image_write(f, 0, &pitch);
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            const int c = 60 + i + j / 2;
            const int nz = (int)(rv_test_rand(&st) % 41) - 20;
            int v = c + nz;
            v = v < 0 ? 0 : v > 255 ? 255 : v;
            clean[j * w + i] = (uint8_t)c;
            noisy[j * w + i] = (uint8_t)v;
            y[j * pitch + i] = (uint8_t)v;
        }
    ptrdiff_t cp;
    uint8_t *cb = rv_image_write(f, 1, &cp);
    cb[0] = 77;
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    RV_Dwt *d = NULL;
    assert_int_equal(rv_dwt_create(g_ctx, &s, &d), 0);
    RV_DwtDenoiseParams p;
    rv_dwt_denoise_default(&p);
    p.threshold = 0.0f;
    assert_int_equal(rv_dwt_denoise(d, f, &p), 0);
    const uint8_t *yo = rv_image_read(f, 0, &pitch);
    for (int j = 0; j < h; j++)
        assert_memory_equal(yo + j * pitch, noisy + j * w, (size_t)w);
    p.threshold = 12.0f;
    assert_int_equal(rv_dwt_denoise(d, f, &p), 0);
    yo = rv_image_read(f, 0, &pitch);
    double e0 = 0, e1 = 0;
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            const double a = noisy[j * w + i] - clean[j * w + i], b = yo[j * pitch + i] - clean[j * w + i];
            e0 += a * a;
            e1 += b * b;
        }
    assert_true(e1 < 0.5 * e0);
    assert_int_equal(((const uint8_t *)rv_image_read(f, 1, &cp))[0], 77); /* chroma untouched */
    RV_Image *rgb = NULL;
    assert_int_equal(rv_image_create(g_ctx, 8, 8, RV_FMT_RGBA8, &rgb), 0);
    assert_int_equal(rv_dwt_denoise(d, rgb, &p), RV_EINVAL);
    rv_image_destroy(&rgb);
    /* a frame of another context is refused, as by rv_dwt_forward (its plane
     * may be host memory, or on another stream, for this transform's kernels) */
    RV_Context *c2 = rv_test_cpu_context(1);
    RV_Image *other = NULL;
    assert_int_equal(rv_image_create(c2, 8, 8, RV_FMT_GRAY8, &other), 0);
    assert_int_equal(rv_dwt_denoise(d, other, &p), RV_EINVAL);
    assert_non_null(strstr(rv_dwt_error(d), "another context"));
    rv_image_destroy(&other);
    rv_context_destroy(&c2);
    rv_dwt_destroy(&d);
    rv_image_destroy(&f);
    free(clean);
    free(noisy);
}

/*
 * Host transforms (rv_dwt_forward_host / rv_dwt_inverse_host) with a device
 * memory limit small enough to force stripes at the first levels: the
 * coefficients equal the float64 / integer reference and the buffer API bit
 * for bit, the inverse gives the input back, the held memory stays within
 * the limit, and `out` may be `in`.
 */
static RV_Context *g_xfer; /* a second context: copies overlap kernels (two buffer sets) */

static void check_host(const cfg *c, int dims, int w, int h, int levels, int pairs, int same)
{
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    s.wavelet = c->wv;
    s.type = c->integer ? RV_DWT_I32 : RV_DWT_F32;
    s.dims = dims;
    s.method = pairs & 1 ? RV_DWT_OUT_OF_PLACE : RV_DWT_IN_PLACE;
    /* pairs -4, -5, -6: as -1, -2, -3 below, with host_cascade_min = 1: every level
     * after the striped one follows its stripes (the cascade) where the copies overlap
     * the kernels and the limit leaves room beside the stripes (-6); none without a
     * transfer context (-4), nor where the stripes fill the limit (-5) */
    /* -7: as -3, with only the first level after the striped one in the cascade (its
     * region's bytes as the minimum), the levels after it on its last region */
    /* -8: as -6, in stripes of one pair each (levels whose feeds often bring no pairs) */
    const int cascade = pairs <= -4, first_only = pairs == -7, kst = pairs == -8 ? (h + 1) / 2 : 4;
    if (cascade) {
        pairs = first_only || pairs == -8 ? -3 : pairs + 3;
        s.host_cascade_min = first_only ? (size_t)((w + 1) / 2) * (size_t)((h + 1) / 2) * 4 : 1;
    }
    /* stripes of `pairs` pairs at level 0 (halo H <= 8 pairs on each side) */
    s.device_memory_limit = pairs ? 65536 + (size_t)(4 * pairs + 4 * 8) * (size_t)w * 4 : 0;
    if (pairs == 8) {
        s.transfer_ctx = g_xfer; /* two sets of half the size */
        s.device_memory_limit += (size_t)(4 * pairs + 4 * 8) * (size_t)w * 4;
    }
    /* pairs < 0: a limit just under the image, so that level 0 goes in stripes while
     * its LL region stays on the device for the levels after it (-2: two sets) */
    if (pairs < 0)
        s.device_memory_limit = 65536 + (size_t)w * 4 * (size_t)h - 4;
    if (pairs == -2)
        s.transfer_ctx = g_xfer;
    /* pairs -3: no limit, a transfer context and four stripes asked for (host_stripes):
     * level 0 pipelined although the image fits, when out is not in */
    if (pairs == -3) {
        s.device_memory_limit = 0;
        s.transfer_ctx = g_xfer;
        s.host_stripes = kst;
    }
    const size_t n = (size_t)w * h, pitch = (size_t)w * 4 + 8;
    uint64_t st = (uint64_t)(w * 131 + h * 7 + levels) | 1;
    double *ref = malloc(n * sizeof(double));
    unsigned char *in = calloc(pitch, (size_t)h), *out = calloc(pitch, (size_t)h);
    int32_t *packed = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        if (c->integer) {
            const int32_t v = (int32_t)(rv_test_rand(&st) % 2001) - 1000;
            memcpy(&u, &v, 4);
            ref[i] = v;
        } else {
            const float v = (float)((double)(rv_test_rand(&st) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
            memcpy(&u, &v, 4);
            ref[i] = v;
        }
        memcpy(in + (i / w) * pitch + (i % w) * 4, &u, 4);
        memcpy(packed + i, &u, 4);
    }
    ref_forward(c->wv, c->integer, 0, dims, ref, w, h, levels);
    RV_Dwt *d = NULL;
    assert_int_equal(rv_dwt_create(g_ctx, &s, &d), 0);
    unsigned char *dst = same ? in : out;
    int err = rv_dwt_forward_host(d, in, dst, w, h, pitch, levels);
    if (err)
        fprintf(stderr, "host forward %s %dx%d L%d: %s\n", WNAME[c->wv], w, h, levels, rv_dwt_error(d));
    assert_int_equal(err, 0);
    RV_DwtStats stt;
    rv_dwt_stats(d, &stt);
    for (int k = 0; k < RV_DWT_KERNEL_COUNT; k++) /* (straight-line lifting: GPU only) */
        assert_true(stt.shaped[k] == 0 && stt.launches[k] >= 0);
    if (s.device_memory_limit) {
        assert_true(stt.peak_device_bytes <= (double)s.device_memory_limit);
        if ((size_t)w * 4 * (size_t)h > s.device_memory_limit - 65536)
            if (stt.stripes <= 1) { fprintf(stderr, "no split: %s %dx%d L%d pairs %d stripes %lld\n", WNAME[c->wv], w, h, levels, pairs, stt.stripes); fail(); }
    }
    if (pairs == -3) {
        const int nS = (h + 1) / 2, P = (nS + kst - 1) / kst;
        if (stt.stripes != (same ? 1 : (nS + P - 1) / P)) {
            fprintf(stderr, "%s %dx%d L%d same %d: %lld stripes\n", WNAME[c->wv], w, h, levels, same, stt.stripes);
            fail();
        }
    }
    /* the cascade: levels after the kept region (of at least two rows) followed the stripes */
    {
        const int kept = levels >= 2 && h >= 4 && pairs == -3 && !same;
        const long long want = !cascade || !kept ? 0 : first_only ? 1 : stt.cascade_levels;
        if (stt.cascade_levels != want || (cascade && kept && stt.cascade_levels < 1)) {
            fprintf(stderr, "%s %dx%d L%d pairs %d cascade %d: %lld cascade levels\n", WNAME[c->wv], w, h, levels, pairs,
                    cascade, stt.cascade_levels);
            fail();
        }
    }
    if (pairs == -1 || (pairs == -3 && !same)) {
        /* the LL region was not uploaded again: the stripes' halos are less than it here */
        const double llb = (double)((w + 1) / 2) * ((h + 1) / 2) * 4;
        if (kst == 4 && !(stt.upload_bytes < (double)n * 4 + llb)) { /* (short stripes: halos) */
            fprintf(stderr, "%s %dx%d L%d: %.0f bytes uploaded, the LL region (%.0f) again\n", WNAME[c->wv], w, h,
                    levels, stt.upload_bytes, llb);
            fail();
        }
        /* and each coefficient went down once: the stripes' S rows without their LL part */
        assert_true(stt.download_bytes == (double)n * 4);
    }
    void *buf = run_one(&s, packed, w, h, levels, 0);
    double maxref = 1.0;
    for (size_t i = 0; i < n; i++)
        maxref = fmax(maxref, fabs(ref[i]));
    for (size_t i = 0; i < n; i++) {
        const unsigned char *q = dst + (i / w) * pitch + (i % w) * 4;
        if (memcmp(q, (const char *)buf + i * 4, 4)) {
            fprintf(stderr, "host %s %s dims %d %dx%d L%d pairs %d: coefficient %zu differs from the buffer API\n",
                    WNAME[c->wv], c->integer ? "i32" : "f32", dims, w, h, levels, pairs, i);
            fail();
        }
        double v;
        if (c->integer) {
            int32_t x;
            memcpy(&x, q, 4);
            v = x;
            assert_true(v == ref[i]);
        } else {
            float x;
            memcpy(&x, q, 4);
            v = x;
            assert_true(fabs(v - ref[i]) <= 2e-6 * maxref * (levels + 1));
        }
    }
    /* inverse: back to the input, equal to the buffer API's inverse */
    unsigned char *rec = calloc(pitch, (size_t)h);
    err = rv_dwt_inverse_host(d, dst, same ? dst : rec, w, h, pitch, levels);
    if (err)
        fprintf(stderr, "host inverse: %s\n", rv_dwt_error(d));
    assert_int_equal(err, 0);
    void *binv = run_one(&s, buf, w, h, levels, 1);
    const unsigned char *r = same ? dst : rec;
    for (size_t i = 0; i < n; i++)
        if (memcmp(r + (i / w) * pitch + (i % w) * 4, (const char *)binv + i * 4, 4)) {
            fprintf(stderr, "host inverse %s dims %d %dx%d L%d pairs %d: sample %zu differs from the buffer API\n",
                    WNAME[c->wv], dims, w, h, levels, pairs, i);
            fail();
        }
    rv_dwt_stats(d, &stt);
    if (s.device_memory_limit)
        assert_true(stt.peak_device_bytes <= (double)s.device_memory_limit);
    g_checked++;
    rv_dwt_destroy(&d);
    free(binv);
    free(buf);
    free(rec);
    free(packed);
    free(in);
    free(out);
    free(ref);
}

/* rv_dwt_forward_frame / rv_dwt_inverse_frame (frame_api_check.h) */
static void test_frame_api(void **state)
{
    (void)state;
    frame_api_check(g_ctx);
}

static void test_host_split(void **state)
{
    (void)state;
    static const int sizes[][2] = {{97, 101}, {129, 67}, {33, 300}, {200, 3}, {2, 9}, {1, 7}, {7, 1}, {64, 64}};
    static const int levels[] = {1, 3, 6};
    for (size_t c = 0; c < sizeof(CFGS) / sizeof(CFGS[0]); c++)
        for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
            for (size_t l = 0; l < 3; l++) {
                const int w = sizes[z][0], h = sizes[z][1];
                check_host(&CFGS[c], 2, w, h, levels[l], 0, 0);
                check_host(&CFGS[c], 2, w, h, levels[l], 3, 0);
                check_host(&CFGS[c], 2, w, h, levels[l], 8, (int)(z & 1));
                check_host(&CFGS[c], 1, w, h, levels[l], 2, 0);
            }
    /* the LL region of the striped level kept on the device (forward and inverse,
     * out of place and in place, one and two sets, out = in) */
    for (size_t c = 0; c < sizeof(CFGS) / sizeof(CFGS[0]); c++) {
        check_host(&CFGS[c], 2, 600, 500, 3, -1, 0);
        check_host(&CFGS[c], 2, 601, 333, 5, -2, 1);
        check_host(&CFGS[c], 2, 333, 601, 2, -2, 0);
        /* pipelined although the image fits (host_stripes = 4), one and more levels;
         * out = in stays whole */
        check_host(&CFGS[c], 2, 600, 500, 1, -3, 0);
        check_host(&CFGS[c], 2, 600, 501, 4, -3, 0);
        check_host(&CFGS[c], 2, 600, 500, 3, -3, 1);
        /* the deeper levels following the stripes (the cascade): not under a limit the
         * stripes fill (one and two sets, out = in); pipelined, odd sizes, levels down
         * to regions of 2 rows, and only the first level after the striped one */
        check_host(&CFGS[c], 2, 600, 500, 3, -4, 0);
        check_host(&CFGS[c], 2, 601, 333, 5, -5, 1);
        check_host(&CFGS[c], 2, 333, 601, 2, -5, 0);
        check_host(&CFGS[c], 2, 600, 501, 4, -6, 0);
        check_host(&CFGS[c], 2, 257, 771, 9, -6, 0);
        check_host(&CFGS[c], 2, 3, 400, 3, -6, 0);
        check_host(&CFGS[c], 2, 600, 500, 4, -7, 0);
        check_host(&CFGS[c], 2, 61, 90, 4, -8, 0);
    }
    /* host_stripes without a transfer context, or 1: the image at once; below 0: refused */
    {
        RV_DwtSettings hs;
        rv_dwt_settings_default(&hs);
        hs.host_stripes = 4;
        RV_Dwt *hd = NULL;
        float *a = calloc(64 * 64, 4), *b = calloc(64 * 64, 4);
        RV_DwtStats hst;
        for (int t = 0; t < 2; t++) {
            hs.transfer_ctx = t ? g_xfer : NULL;
            hs.host_stripes = t ? 1 : 4;
            assert_int_equal(rv_dwt_create(g_ctx, &hs, &hd), 0);
            assert_int_equal(rv_dwt_forward_host(hd, a, b, 64, 64, 256, 2), 0);
            rv_dwt_stats(hd, &hst);
            assert_int_equal(hst.stripes, 1);
            rv_dwt_destroy(&hd);
        }
        /* the default below RV_DWT_HOST_PIPE_MIN: whole too */
        hs.host_stripes = 0;
        assert_int_equal(rv_dwt_create(g_ctx, &hs, &hd), 0);
        assert_int_equal(rv_dwt_forward_host(hd, a, b, 64, 64, 256, 2), 0);
        rv_dwt_stats(hd, &hst);
        assert_int_equal(hst.stripes, 1);
        rv_dwt_destroy(&hd);
        hs.host_stripes = -1;
        assert_int_equal(rv_dwt_create(g_ctx, &hs, &hd), RV_EINVAL);
        free(a);
        free(b);
    }
    /* a limit below what one stripe needs is refused */
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    s.device_memory_limit = 65536 + 1024;
    RV_Dwt *d = NULL;
    assert_int_equal(rv_dwt_create(g_ctx, &s, &d), 0);
    float *img = calloc(1000 * 100, 4);
    assert_int_equal(rv_dwt_forward_host(d, img, img, 1000, 100, 4000, 2), RV_ENOMEM);
    assert_true(strlen(rv_dwt_error(d)) > 0);
    assert_int_equal(rv_dwt_forward_host(d, NULL, img, 1000, 100, 4000, 2), RV_EINVAL);
    free(img);
    rv_dwt_destroy(&d);
}

/* rv_dwt_error keeps the latest failure's message until the next failure,
 * as rv_context_error and rv_deband_error do: calls that succeed leave it as
 * it was; "" before any failure. */
static void test_error_kept_on_success(void **state)
{
    (void)state;
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    RV_Dwt *d = NULL;
    assert_int_equal(rv_dwt_create(g_ctx, &s, &d), 0);
    assert_string_equal(rv_dwt_error(d), "");
    float v[16] = {0}, o[16];
    assert_int_equal(rv_dwt_forward_host(d, v, o, 4, 4, 16, 1), 0);
    assert_string_equal(rv_dwt_error(d), "");
    assert_int_equal(rv_dwt_forward_host(d, v, o, 4, 4, 16, 33), RV_EINVAL);
    assert_string_equal(rv_dwt_error(d), "levels 33 outside 0..32");
    assert_int_equal(rv_dwt_forward_host(d, v, o, 4, 4, 16, 2), 0);
    assert_int_equal(rv_dwt_inverse_host(d, o, o, 4, 4, 16, 2), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(g_ctx, 4, 4, RV_FMT_GRAYF32, &img), 0);
    assert_int_equal(rv_dwt_forward(d, img, 2), 0);
    assert_string_equal(rv_dwt_error(d), "levels 33 outside 0..32");
    /* the next failure replaces it */
    assert_int_equal(rv_dwt_forward(d, NULL, 1), RV_EINVAL);
    assert_string_equal(rv_dwt_error(d), "image is NULL");
    assert_int_equal(rv_dwt_inverse(d, img, 2), 0);
    assert_string_equal(rv_dwt_error(d), "image is NULL");
    rv_image_destroy(&img);
    rv_dwt_destroy(&d);

    /* the context's message follows the same rule */
    RV_Image *bad = NULL;
    assert_int_equal(rv_image_create(g_ctx, 0, 4, RV_FMT_GRAY8, &bad), RV_EINVAL);
    char msg[1024];
    snprintf(msg, sizeof(msg), "%s", rv_context_error(g_ctx));
    assert_true(msg[0] != '\0');
    assert_int_equal(rv_image_create(g_ctx, 4, 4, RV_FMT_GRAY8, &img), 0);
    assert_string_equal(rv_context_error(g_ctx), msg);
    rv_image_destroy(&img);
}

/*
 * transfer_ctx must be on the transform's backend: rv_dwt_create refuses
 * another one with RV_EINVAL, and rv_dwt_settings_check_for gives the reason.
 * Only CPU contexts exist without a GPU, so a context is made to report the
 * CUDA backend here by its private field (what rv_context_backend reads;
 * nothing else of it is used before the refusal). test_dwt_gpu checks real
 * CPU / CUDA pairs. Another CPU context, and the transform's own one (taken
 * as NULL: the same coefficients), are accepted.
 */
static void test_transfer_ctx_backend(void **state)
{
    (void)state;
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    s.wavelet = RV_DWT_CDF53;
    s.type = RV_DWT_I32;
    char why[256];
    RV_Dwt *d = NULL;

    /* accepted: no transfer context, another CPU context, the transform's own */
    RV_Context *const ok[3] = {NULL, g_xfer, g_ctx};
    int32_t in[24 * 10], out[3][24 * 10];
    for (int i = 0; i < 24 * 10; i++)
        in[i] = (i * 7919) % 1001 - 500;
    for (int k = 0; k < 3; k++) {
        s.transfer_ctx = ok[k];
        assert_int_equal(rv_dwt_settings_check_for(g_ctx, &s, why, sizeof(why)), 0);
        assert_string_equal(why, "");
        assert_int_equal(rv_dwt_create(g_ctx, &s, &d), 0);
        assert_int_equal(rv_dwt_forward_host(d, in, out[k], 24, 10, 24 * 4, 2), 0);
        rv_dwt_destroy(&d);
    }
    assert_memory_equal(out[1], out[0], sizeof(out[0]));
    assert_memory_equal(out[2], out[0], sizeof(out[0]));

    /* refused: a transfer context on another backend, either way round */
    RV_Context *const made[2] = {g_xfer, g_ctx};
    for (int k = 0; k < 2; k++) {
        s.transfer_ctx = g_xfer;
        made[k]->backend = RV_BACKEND_CUDA;
        const int cerr = rv_dwt_settings_check_for(g_ctx, &s, why, sizeof(why));
        d = (RV_Dwt *)g_ctx; /* must be reset to NULL */
        const int err = rv_dwt_create(g_ctx, &s, &d);
        made[k]->backend = RV_BACKEND_CPU;
        assert_int_equal(cerr, RV_EINVAL);
        assert_int_equal(err, RV_EINVAL);
        assert_null(d);
        printf("  refused: %s\n", why);
        assert_non_null(strstr(why, k == 0 ? "transfer_ctx runs on the cuda backend, the transform's context on cpu"
                                           : "transfer_ctx runs on the cpu backend, the transform's context on cuda"));
        /* settings on their own are fine: the context decides */
        assert_int_equal(rv_dwt_settings_check(&s, why, sizeof(why)), 0);
    }
    /* no context to check against */
    s.transfer_ctx = NULL;
    assert_int_equal(rv_dwt_settings_check_for(NULL, &s, why, sizeof(why)), RV_EINVAL);
    assert_non_null(strstr(why, "context is NULL"));
    /* the settings' own reason comes first */
    s.type = RV_DWT_I32;
    s.wavelet = RV_DWT_CDF97;
    assert_int_equal(rv_dwt_settings_check_for(g_ctx, &s, why, sizeof(why)), RV_EINVAL);
    assert_non_null(strstr(why, "f32 data only"));
}

/* The benchmarks' copy floor kernel, dwt_copy16 (its CPU body). */
static void test_copy16(void **state)
{
    (void)state;
    copy16_check(g_ctx, 0);
    copyrect_check(g_ctx, 0);
}

static int setup(void **state)
{
    (void)state;
    g_ctx = rv_test_cpu_context(2);
    g_xfer = rv_test_cpu_context(1);
    return 0;
}
static int teardown(void **state)
{
    (void)state;
    printf("configurations checked: %d\n", g_checked);
    rv_context_destroy(&g_xfer);
    rv_context_destroy(&g_ctx);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),      cmocka_unit_test(test_errors),
        cmocka_unit_test(test_2d_block),      cmocka_unit_test(test_2d_interleaved),
        cmocka_unit_test(test_1d_block),      cmocka_unit_test(test_1d_interleaved),
        cmocka_unit_test(test_long_rows),     cmocka_unit_test(test_image_api),
        cmocka_unit_test(test_denoise),       cmocka_unit_test(test_host_split),
        cmocka_unit_test(test_frame_api),
        cmocka_unit_test(test_copy16),         cmocka_unit_test(test_message_convention),
        cmocka_unit_test(test_header_example),
        cmocka_unit_test(test_ll_size),
        cmocka_unit_test(test_max_levels),
        cmocka_unit_test(test_transfer_ctx_backend),
        cmocka_unit_test(test_error_kept_on_success),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
