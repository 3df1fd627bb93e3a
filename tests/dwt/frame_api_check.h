/*
 * frame_api_check.h - rv_dwt_forward_frame / rv_dwt_inverse_frame on any
 * context (test_dwt on the CPU, test_dwt_gpu on the GPU): the coefficients
 * equal rv_dwt_forward of the luma's samples converted to float here, bit for
 * bit; the inverse writes rv_dwt_inverse of the coefficients rounded half up
 * and clamped to the plane's range (computed here), or the floats themselves
 * into a grayf32 frame; the frame's other planes stay as they were; refused
 * arguments say why.
 */
#ifndef RV_TEST_FRAME_API_CHECK_H
#define RV_TEST_FRAME_API_CHECK_H

#include <math.h>
#include <ravioli/dwt.h>

#include "rv_test.h"

/* Sample (x, y) of plane 0 as a float. */
static float fa_sample(RV_Image *img, int x, int y)
{
    ptrdiff_t pitch = 0;
    const unsigned char *row = (const unsigned char *)rv_image_read(img, 0, &pitch) + y * pitch;
    switch (rv_format_info(rv_image_format(img))->elem_type) {
    case RV_ET_U8: return row[x];
    case RV_ET_U16: return ((const uint16_t *)row)[x];
    default: return ((const float *)row)[x];
    }
}

/* A grayf32 image holding plane 0 of img as floats, times `scale`. */
static RV_Image *fa_float_copy(RV_Context *ctx, RV_Image *img, float scale)
{
    const int w = rv_image_width(img), h = rv_image_height(img);
    RV_Image *f = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_GRAYF32, &f), 0);
    float *v = NULL;
    ptrdiff_t pitch = 0;
    float *vals = malloc((size_t)w * h * sizeof(float));
    assert_non_null(vals);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            vals[y * w + x] = fa_sample(img, x, y) * scale;
    v = rv_image_write(f, 0, &pitch);
    assert_non_null(v);
    for (int y = 0; y < h; y++)
        memcpy((unsigned char *)v + y * pitch, vals + y * w, (size_t)w * sizeof(float));
    free(vals);
    return f;
}

/* Plane p's bytes, to compare before and after. */
static unsigned char *fa_plane(RV_Image *img, int p, size_t *n)
{
    const int pw = rv_image_plane_width(img, p), ph = rv_image_plane_height(img, p);
    const size_t row = (size_t)pw * (size_t)rv_format_info(rv_image_format(img))->sample_bytes;
    ptrdiff_t pitch = 0;
    const unsigned char *s = rv_image_read(img, p, &pitch);
    unsigned char *b = malloc(row * (size_t)ph);
    assert_non_null(b);
    for (int y = 0; y < ph; y++)
        memcpy(b + row * (size_t)y, s + y * pitch, row);
    *n = row * (size_t)ph;
    return b;
}

static void frame_api_check(RV_Context *ctx)
{
    static const RV_Format fmts[] = {RV_FMT_GRAY8, RV_FMT_GRAY16, RV_FMT_YUV420P8, RV_FMT_YUV444P16,
                                     RV_FMT_GRAYF32};
    static const RV_DwtWavelet wls[] = {RV_DWT_HAAR, RV_DWT_CDF53, RV_DWT_CDF97, RV_DWT_DD137};
    static const int sizes[][2] = {{13, 9}, {1, 1}, {40, 3}};
    static const int levels[] = {0, 2, 5};
    int cases = 0;
    for (size_t wi = 0; wi < sizeof(wls) / sizeof(wls[0]); wi++) {
        RV_DwtSettings s;
        rv_dwt_settings_default(&s);
        s.wavelet = wls[wi];
        RV_Dwt *d = NULL;
        assert_int_equal(rv_dwt_create(ctx, &s, &d), 0);
        for (size_t fi = 0; fi < sizeof(fmts) / sizeof(fmts[0]); fi++)
            for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
                for (size_t li = 0; li < sizeof(levels) / sizeof(levels[0]); li++) {
                    const int w = sizes[si][0], h = sizes[si][1], lv = levels[li];
                    const int f32 = fmts[fi] == RV_FMT_GRAYF32;
                    RV_Image *frame = NULL, *coef = NULL, *out = NULL;
                    assert_int_equal(rv_image_create(ctx, w, h, fmts[fi], &frame), 0);
                    rv_test_fill_random(frame, 1000 + 31 * wi + 7 * fi + si + li);
                    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_GRAYF32, &coef), 0);
                    RV_Image *ref = fa_float_copy(ctx, frame, 1.0f);
                    assert_int_equal(rv_dwt_forward(d, ref, lv), 0);
                    size_t n0 = 0;
                    unsigned char *before = fa_plane(frame, 0, &n0);
                    if (rv_dwt_forward_frame(d, frame, coef, lv) != 0)
                        fail_msg("rv_dwt_forward_frame: %s", rv_dwt_error(d));
                    /* the coefficients, bit for bit; the frame as it was */
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++) {
                            const float a = fa_sample(coef, x, y), b = fa_sample(ref, x, y);
                            if (memcmp(&a, &b, sizeof(a)))
                                fail_msg("%s %dx%d wavelet %d, %d levels: coefficient (%d,%d) %.9g, want %.9g",
                                         rv_format_info(fmts[fi])->name, w, h, (int)wi, lv, x, y, (double)a,
                                         (double)b);
                        }
                    size_t n1 = 0;
                    unsigned char *after = fa_plane(frame, 0, &n1);
                    assert_memory_equal(before, after, n0);
                    free(before);
                    free(after);

                    /* the inverse of the coefficients times 1 and times 3 (clamped where integer) */
                    for (int k = 0; k < 2; k++) {
                        const float scale = k ? 3.0f : 1.0f;
                        RV_Image *c = fa_float_copy(ctx, coef, scale), *want = fa_float_copy(ctx, coef, scale);
                        assert_int_equal(rv_dwt_inverse(d, want, lv), 0);
                        assert_int_equal(rv_image_create(ctx, w, h, fmts[fi], &out), 0);
                        rv_test_fill_random(out, 77 + k);
                        const int np = rv_image_planes(out);
                        size_t nc[3] = {0, 0, 0};
                        unsigned char *chroma[3] = {NULL, NULL, NULL};
                        for (int p = 1; p < np; p++)
                            chroma[p] = fa_plane(out, p, &nc[p]);
                        if (rv_dwt_inverse_frame(d, c, out, lv) != 0)
                            fail_msg("rv_dwt_inverse_frame: %s", rv_dwt_error(d));
                        const double maxv = rv_format_info(fmts[fi])->elem_type == RV_ET_U8 ? 255.0 : 65535.0;
                        for (int y = 0; y < h; y++)
                            for (int x = 0; x < w; x++) {
                                const double v = fa_sample(want, x, y);
                                double e = f32 ? v : floor(v + 0.5);
                                if (!f32)
                                    e = e < 0.0 ? 0.0 : e > maxv ? maxv : e;
                                if ((double)fa_sample(out, x, y) != e)
                                    fail_msg("%s %dx%d wavelet %d, %d levels, x%g: sample (%d,%d) %g, want %g",
                                             rv_format_info(fmts[fi])->name, w, h, (int)wi, lv, (double)scale, x, y,
                                             (double)fa_sample(out, x, y), e);
                                /* times 1: the frame's own samples come back */
                                if (k == 0 && !f32 && fa_sample(out, x, y) != fa_sample(frame, x, y))
                                    fail_msg("%s: round trip at (%d,%d): %g, was %g", rv_format_info(fmts[fi])->name,
                                             x, y, (double)fa_sample(out, x, y), (double)fa_sample(frame, x, y));
                            }
                        for (int p = 1; p < np; p++) {
                            size_t n = 0;
                            unsigned char *now = fa_plane(out, p, &n);
                            assert_int_equal(n, nc[p]);
                            assert_memory_equal(now, chroma[p], n); /* other planes untouched */
                            free(now);
                            free(chroma[p]);
                        }
                        rv_image_destroy(&c);
                        rv_image_destroy(&want);
                        rv_image_destroy(&out);
                    }
                    rv_image_destroy(&ref);
                    rv_image_destroy(&coef);
                    rv_image_destroy(&frame);
                    cases++;
                }
        rv_dwt_destroy(&d);
    }
    assert_int_equal(cases, 4 * 5 * 3 * 3);

    /* refused arguments, with their reasons */
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    RV_Dwt *d = NULL;
    assert_int_equal(rv_dwt_create(ctx, &s, &d), 0);
    RV_Image *g8 = NULL, *c = NULL, *small = NULL, *rgba = NULL, *i16 = NULL;
    assert_int_equal(rv_image_create(ctx, 8, 6, RV_FMT_GRAY8, &g8), 0);
    assert_int_equal(rv_image_create(ctx, 8, 6, RV_FMT_GRAYF32, &c), 0);
    assert_int_equal(rv_image_create(ctx, 8, 5, RV_FMT_GRAYF32, &small), 0);
    assert_int_equal(rv_image_create(ctx, 8, 6, RV_FMT_RGBA8, &rgba), 0);
    assert_int_equal(rv_image_create(ctx, 8, 6, RV_FMT_GRAY16, &i16), 0);
    assert_int_equal(rv_dwt_forward_frame(d, g8, small, 1), RV_EINVAL);
    assert_non_null(strstr(rv_dwt_error(d), "GRAYF32 image of the luma's size 8x6"));
    assert_int_equal(rv_dwt_inverse_frame(d, i16, g8, 1), RV_EINVAL); /* coefficients not float */
    assert_int_equal(rv_dwt_forward_frame(d, rgba, c, 1), RV_EINVAL);
    assert_non_null(strstr(rv_dwt_error(d), "no luma plane"));
    assert_int_equal(rv_dwt_forward_frame(d, c, c, 1), RV_EINVAL);
    assert_non_null(strstr(rv_dwt_error(d), "two images"));
    assert_int_equal(rv_dwt_forward_frame(d, NULL, c, 1), RV_EINVAL);
    assert_int_equal(rv_dwt_inverse_frame(d, c, NULL, 1), RV_EINVAL);
    assert_int_equal(rv_dwt_forward_frame(NULL, g8, c, 1), RV_EINVAL);
    assert_int_equal(rv_dwt_forward_frame(d, g8, c, -1), RV_EINVAL);
    RV_Context *c2 = rv_test_cpu_context(1);
    RV_Image *other = NULL;
    assert_int_equal(rv_image_create(c2, 8, 6, RV_FMT_GRAY8, &other), 0);
    assert_int_equal(rv_dwt_forward_frame(d, other, c, 1), RV_EINVAL);
    assert_non_null(strstr(rv_dwt_error(d), "another context"));
    rv_image_destroy(&other);
    rv_context_destroy(&c2);
    rv_dwt_destroy(&d);
    s.type = RV_DWT_I32; /* integer settings take no frames */
    s.wavelet = RV_DWT_CDF53;
    assert_int_equal(rv_dwt_create(ctx, &s, &d), 0);
    assert_int_equal(rv_dwt_forward_frame(d, g8, c, 1), RV_EINVAL);
    assert_non_null(strstr(rv_dwt_error(d), "f32"));
    rv_dwt_destroy(&d);
    rv_image_destroy(&g8);
    rv_image_destroy(&c);
    rv_image_destroy(&small);
    rv_image_destroy(&rgba);
    rv_image_destroy(&i16);
}

#endif
