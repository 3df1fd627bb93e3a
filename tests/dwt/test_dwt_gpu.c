/*
 * test_dwt_gpu.c - the DWT module on the CUDA backend gives the CPU backend's
 * results: int32 bit-exact, float within 1e-6 relative (the kernels avoid FMA
 * contraction, so they are expected to be bit-exact too). Skipped (77)
 * without a GPU.
 */
#include "rv_test.h"

#include <math.h>
#include <ravioli/dwt.h>

#include "copy16_check.h"
#include "frame_api_check.h"

static RV_Context *g_gpu, *g_cpu;

/* One transform of `in` by d (an RV_Dwt of ctx), its result in new memory. */
static void *run_d(RV_Context *ctx, RV_Dwt *d, const void *in, int w, int h, int levels, int inverse)
{
    const size_t n = (size_t)w * h * 4;
    RV_Buffer *b = NULL;
    assert_int_equal(rv_buffer_create(ctx, n, &b), 0);
    assert_int_equal(rv_buffer_upload(b, 0, in, n), 0);
    int err = inverse ? rv_dwt_inverse_buffer(d, b, w, h, (size_t)w * 4, levels)
                      : rv_dwt_forward_buffer(d, b, w, h, (size_t)w * 4, levels);
    if (err)
        fprintf(stderr, "%s\n", rv_dwt_error(d));
    assert_int_equal(err, 0);
    void *out = malloc(n);
    assert_int_equal(rv_buffer_download(b, 0, out, n), 0);
    rv_buffer_destroy(&b);
    return out;
}

/* n samples of a test image from seed st: integers in [-2000, 2000] or floats in [-1, 1). */
static void *test_image(size_t n, int integer, uint64_t st)
{
    void *in = malloc(n * 4);
    assert_non_null(in);
    for (size_t i = 0; i < n; i++) {
        if (integer)
            ((int32_t *)in)[i] = (int32_t)(rv_test_rand(&st) % 4001) - 2000;
        else
            ((float *)in)[i] = (float)((double)(rv_test_rand(&st) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
    return in;
}

/*
 * The transform of s on the CPU (dc) and on the GPU (dg, both created with s)
 * agree, forward and inverse. The same RV_Dwt serves both directions and, in
 * test_gpu_variants, several sizes one after the other, as a caller would use
 * it (and one module load a GPU RV_Dwt instead of one a transform).
 */
static void compare_d(const RV_DwtSettings *sp, RV_Dwt *dc, RV_Dwt *dg, int w, int h, int levels)
{
    const RV_DwtSettings s = *sp;
    const RV_DwtWavelet wv = s.wavelet;
    const int integer = s.type == RV_DWT_I32, layout = s.layout, method = s.method, dims = s.dims;
    const int fuse = s.fuse_max_shared, variant = (int)s.gpu_variant;
    const size_t n = (size_t)w * h;
    void *in = test_image(n, integer, (uint64_t)w * 31 + (uint64_t)h + 7);
    for (int inv = 0; inv < 2; inv++) {
        void *a = run_d(g_cpu, dc, in, w, h, levels, inv), *b = run_d(g_gpu, dg, in, w, h, levels, inv);
        if (integer) {
            assert_memory_equal(a, b, n * 4);
        } else {
            double mx = 1e-30;
            for (size_t i = 0; i < n; i++)
                mx = fmax(mx, fabs(((float *)a)[i]));
            for (size_t i = 0; i < n; i++)
                if (fabs(((float *)a)[i] - ((float *)b)[i]) > 1e-6 * mx) {
                    fprintf(stderr, "wavelet %d %dx%d L%d layout %d method %d fuse %d dims %d variant %d inv %d: sample %zu cpu %.9g gpu %.9g\n",
                            wv, w, h, levels, layout, method, fuse, dims, variant, inv, i, ((float *)a)[i], ((float *)b)[i]);
                    fail();
                }
        }
        free(a);
        free(b);
    }
    free(in);
}

/* compare_d for each of the nz sizes wh[z] (w, h) with one RV_Dwt a backend
 * (each size's buffers grow from the last's). */
static void compare_sizes(const RV_DwtSettings *s, const int (*wh)[2], size_t nz, int levels)
{
    RV_Dwt *dc = NULL, *dg = NULL;
    assert_int_equal(rv_dwt_create(g_cpu, s, &dc), 0);
    assert_int_equal(rv_dwt_create(g_gpu, s, &dg), 0);
    for (size_t z = 0; z < nz; z++)
        compare_d(s, dc, dg, wh[z][0], wh[z][1], levels);
    rv_dwt_destroy(&dc);
    rv_dwt_destroy(&dg);
}

static void compare_s(const RV_DwtSettings *s, int w, int h, int levels)
{
    const int wh[1][2] = {{w, h}};
    compare_sizes(s, wh, 1, levels);
}

static void compare(RV_DwtWavelet wv, int integer, int layout, int method, int fuse, int dims, int w, int h,
                    int levels)
{
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    s.wavelet = wv;
    s.type = integer ? RV_DWT_I32 : RV_DWT_F32;
    s.layout = layout;
    s.method = method;
    s.fuse_max_shared = fuse ? 49152 : 0;
    /* fuse 1: the fused in-place column pass at every size; 2: the default
     * (below 1 << 23 samples a level, one column pass per step) */
    s.col_fuse_min = fuse == 1 ? 1 : 0;
    s.dims = dims;
    compare_s(&s, w, h, levels);
}

/*
 * The GPU kernel variants (gpu_variant: 16-byte column tiles or 4-byte ones,
 * 512 or 256 threads for rows over 8K, row loads by cp.async or through
 * registers, column tiles lifted in registers or in shared memory) all give
 * the CPU's result: rows of
 * 8200..16384 samples with the default 64 KiB of shared memory (fused rows),
 * column regions whose width is a multiple of 32, of 4 but not 32 (a partial
 * 16-byte tile), or of neither (the 4-byte kernel).
 */
static void test_gpu_variants(void **state)
{
    (void)state;
    static const int sizes[][2] = {{16384, 6}, {8200, 9}, {1000, 700}, {100, 300}, {1920, 1080}};
    /* the 64 combinations of bits 1..32, then ROW_SHARED (64) alone, with each of them and
     * with all, then INPLACE_NO_SCRATCH (128) and HALO_OWN (256) alone and with some, then
     * HALO_N32 (512) and L0_STEPS (1024) alone and with some, then COL_TOPDOWN (the column
     * tiles in the order before session 13) alone and with shared-memory lifting */
    static const unsigned more[] = {64, 64 | 1, 64 | 2, 64 | 4, 64 | 8, 64 | 16, 64 | 32, 64 | 63,
                                    128, 128 | 8, 128 | 32, 128 | 64, 128 | 63,
                                    256, 256 | 128, 256 | 32, 256 | 128 | 64 | 63,
                                    512, 512 | 128, 512 | 256, 1024, 1024 | 32, 1024 | 512,
                                    RV_DWT_VARIANT_COL_TOPDOWN, RV_DWT_VARIANT_COL_TOPDOWN | 64 | 8};
    for (unsigned vi = 0; vi < 64 + sizeof(more) / sizeof(more[0]); vi++) {
        const unsigned v = vi < 64 ? vi : more[vi - 64];
        for (int c = 0; c < 3; c++)
            for (int m = 0; m < 2; m++) {
                RV_DwtSettings s;
                rv_dwt_settings_default(&s);
                s.wavelet = c == 0 ? RV_DWT_CDF97 : RV_DWT_DD137;
                s.type = c == 2 ? RV_DWT_I32 : RV_DWT_F32;
                /* the in-place tile variants (16, 32) with the passes they shape, not dwt_colclu */
                s.gpu_variant = v | (v & 48 ? RV_DWT_VARIANT_NO_COLCLU : 0);
                s.col_fuse_min = 1;
                s.method = m ? RV_DWT_OUT_OF_PLACE : RV_DWT_IN_PLACE;
                compare_sizes(&s, sizes, sizeof(sizes) / sizeof(sizes[0]), 3);
            }
    }
}

/*
 * The wavelet and sample type combinations of the module (CDF 9/7 is f32
 * only): *s gets the defaults and the c-th of DWT_WT (Haar, CDF 5/3,
 * DD(13,7): f32, then i32).
 */
enum { DWT_WT = 7 };
static void wavelet_type(int c, RV_DwtSettings *s)
{
    const int k = c < 5 ? c : c + 1; /* skips CDF 9/7 i32 */
    rv_dwt_settings_default(s);
    s->wavelet = (RV_DwtWavelet)(RV_DWT_HAAR + k / 2);
    s->type = k % 2 ? RV_DWT_I32 : RV_DWT_F32;
}

/* Whether the c-th wavelet and type has kernel entries of its own shape (CDF 9/7
 * and DD(13,7) f32: the straight-line lifting; dwt_lvl2d_c97 / _dd hold 528
 * tiles at once on 132 multiprocessors, the plain dwt_lvl2d 396). */
static int wt_shaped(int c)
{
    return c == 4 || c == 5;
}

/*
 * dwt_rowreg (the default row pass since dwt7: one-level rows lifted in
 * registers, taps by warp shuffles, symmetric extension beyond the row) equals
 * the CPU for every wavelet it takes (CDF 5/3 f32 and i32, CDF 9/7, DD(13,7)
 * f32 and i32) and Haar (which it leaves to dwt_rowasync): odd, short and long
 * rows (one partial segment of 512 pairs, many segments, two a warp at 16K;
 * dwt_rowreg_s's 128-pair segments for rows of up to 512 pairs: 1024 and 1000
 * samples, 1026 just above, and every row after the first level of the others),
 * forward and inverse, 2-D and 1-D one level, both methods; and in place with
 * col_fuse_min 1, so that level 0 holds a halo buffer and small levels go
 * through it (the default since dwt7). i32 bit-exact; f32 within 1e-6 of the
 * largest coefficient (compare_s).
 */
static void test_gpu_row_reg(void **state)
{
    (void)state;
    static const int sizes[][2] = {{16384, 6}, {13001, 5}, {8200, 9}, {4099, 33}, {1025, 63},
                                   {1920, 1080}, {1026, 3}, {1024, 7}, {1000, 5}, {77, 9}, {2, 3}, {3, 2}};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int c = 0; c < DWT_WT; c++) {
            RV_DwtSettings s;
            wavelet_type(c, &s);
            for (int m = 0; m < 3; m++) {
                s.method = m == 1 ? RV_DWT_OUT_OF_PLACE : RV_DWT_IN_PLACE;
                s.gpu_variant = 0;
                s.col_fuse_min = m == 2 ? 1 : 0;
                s.dims = 2;
                compare_s(&s, sizes[z][0], sizes[z][1], 3);
                if (m == 2)
                    continue;
                s.dims = 1;
                compare_s(&s, sizes[z][0], sizes[z][1], 1);
            }
        }
}

/*
 * dwt_colreg's tiles at a column's ends (since session 10 lifted in registers
 * through the symmetric extension for CDF 5/3, 9/7 and DD(13,7); Haar's
 * 1-tap steps keep the shared-memory path) equal the CPU, and so do the same
 * tiles with COL_REG_INNER (the shared-memory path): columns of one whole
 * tile of 64 pairs (128 samples: first and last at once; 127: the D band one
 * pair short), two (255, 256), four and more (512, 1024), and 1000 (a partial
 * last tile), 32-column tiles whole and partial (widths 96, 64, 40, 100);
 * every wavelet and type, forward and inverse, both methods, 1-3 levels (the
 * later levels' columns of 64, 128 and 256 samples).
 */
static void test_gpu_col_reg_edges(void **state)
{
    (void)state;
    static const int sizes[][2] = {{96, 128}, {40, 127}, {64, 255}, {100, 256}, {64, 512}, {36, 1024}, {32, 1000}};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int c = 0; c < DWT_WT; c++) {
            RV_DwtSettings s;
            wavelet_type(c, &s);
            for (int v = 0; v < 2; v++)
                for (int m = 0; m < 2; m++) {
                    s.method = m ? RV_DWT_OUT_OF_PLACE : RV_DWT_IN_PLACE;
                    /* (the column passes, not dwt_lvl2d, which takes 64 x 512 otherwise) */
                    s.gpu_variant = (v ? RV_DWT_VARIANT_COL_REG_INNER : 0) | RV_DWT_VARIANT_NO_LEVEL2D;
                    compare_s(&s, sizes[z][0], sizes[z][1], 1 + (int)(z % 3));
                }
        }
}

/*
 * In place with the default col_fuse_min on an image large enough for level 0
 * to take the fused column pass (>= 2^23 samples): the default (levels whose
 * region fits level 0's halo buffer go through it, out of place; larger column
 * groups, small levels fused), each of the two alone (HALO_OWN,
 * INPLACE_NO_SCRATCH) and neither give the CPU's result, forward and inverse,
 * 5 levels.
 */
static void test_gpu_inplace_levels(void **state)
{
    (void)state;
    enum { NC = RV_DWT_VARIANT_NO_COLCLU };
    static const unsigned vs[] = {0, NC, RV_DWT_VARIANT_HALO_OWN | NC, RV_DWT_VARIANT_INPLACE_NO_SCRATCH | NC,
                                  RV_DWT_VARIANT_HALO_N32 | NC,
                                  RV_DWT_VARIANT_INPLACE_NO_SCRATCH | RV_DWT_VARIANT_HALO_OWN | NC};
    for (size_t v = 0; v < sizeof(vs) / sizeof(vs[0]); v++)
        for (int c = 0; c < 3; c++) {
            RV_DwtSettings s;
            rv_dwt_settings_default(&s);
            s.wavelet = c == 0 ? RV_DWT_CDF97 : c == 1 ? RV_DWT_DD137 : RV_DWT_CDF53;
            s.type = c == 0 ? RV_DWT_F32 : RV_DWT_I32;
            s.method = RV_DWT_IN_PLACE;
            s.gpu_variant = vs[v];
            compare_s(&s, 4100, 2050, 5);
        }
}

/*
 * In place at the sizes where level 0 fuses its columns since dwt9 (from 2^20
 * samples, below the old 2^23) with the halos of level 0 in one group, whose
 * buffer then takes the LL regions of later levels: the default, HALO_N32 (the
 * plan of dwt7), L0_STEPS (level 0 by one pass per step, later levels through
 * the one-group buffer) and both give the CPU's result, forward and inverse, 5
 * levels; sizes with one, several and partial column tiles and odd sides.
 */
static void test_gpu_inplace_small(void **state)
{
    (void)state;
    enum { NC = RV_DWT_VARIANT_NO_COLCLU };
    /* (the default takes dwt_lvl2d from 1024 x 512 on; the others keep the passes they test) */
    enum { NL = RV_DWT_VARIANT_NO_LEVEL2D };
    static const unsigned vs[] = {0, NC | NL, RV_DWT_VARIANT_HALO_N32 | NC | NL, RV_DWT_VARIANT_L0_STEPS | NC | NL,
                                  RV_DWT_VARIANT_HALO_N32 | RV_DWT_VARIANT_L0_STEPS | NC | NL};
    static const int sizes[][2] = {{2048, 1024}, {1031, 1100}, {1500, 777}};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (size_t v = 0; v < sizeof(vs) / sizeof(vs[0]); v++)
            for (int c = 0; c < 2; c++) {
                RV_DwtSettings s;
                rv_dwt_settings_default(&s);
                s.wavelet = c == 0 ? RV_DWT_CDF97 : RV_DWT_DD137;
                s.type = c == 0 ? RV_DWT_F32 : RV_DWT_I32;
                s.method = RV_DWT_IN_PLACE;
                s.gpu_variant = vs[v];
                compare_s(&s, sizes[z][0], sizes[z][1], 5);
            }
}

/* The launch counts of one transform (`levels` levels; forward, or with
 * `inverse` the inverse) of a w x h buffer on the GPU. */
static void xform_stats(const RV_DwtSettings *s, int w, int h, int levels, int inverse, RV_DwtStats *st)
{
    RV_Dwt *d = NULL;
    assert_int_equal(rv_dwt_create(g_gpu, s, &d), 0);
    RV_Buffer *b = NULL;
    assert_int_equal(rv_buffer_create(g_gpu, (size_t)w * h * 4, &b), 0);
    if (inverse)
        assert_int_equal(rv_dwt_inverse_buffer(d, b, w, h, (size_t)w * 4, levels), 0);
    else
        assert_int_equal(rv_dwt_forward_buffer(d, b, w, h, (size_t)w * 4, levels), 0);
    rv_dwt_stats(d, st);
    rv_buffer_destroy(&b);
    rv_dwt_destroy(&d);
}

/*
 * dwt_lvl2d (since session 24: a forward 2-D level whose sides are multiples
 * of 64 and whose 64 x 64 tiles the device holds at once, rows and columns in
 * one cooperative pass in place) equals the CPU for every wavelet and type it
 * takes (CDF 5/3 f32 and i32, CDF 9/7, DD(13,7) f32 and i32; Haar keeps the
 * passes): a few tiles (128 x 128, then dwt_tilefused), a column and a row of
 * tiles, rectangles whose next level stops being a multiple of 64 (320 x 192,
 * 640 x 384: then the passes), 1024 x 1024 (three fused levels: 256, 64 and
 * 16 tiles), and 2048 x 1024 (its 512 tiles of level 0 more than an H100 or
 * H200 holds at once, so the passes, but for the CDF 9/7 and DD(13,7) f32
 * entries, which hold 528; then three fused levels), both methods,
 * and the inverse of the same data. The launches are counted, so the path is
 * known to have run; NO_LEVEL2D gives the same results with none.
 */
static void test_gpu_level2d(void **state)
{
    (void)state;
    static const int sizes[][4] = {{128, 128, 2, 1}, {64, 512, 3, 1},   {512, 64, 2, 1},   {320, 192, 3, 1},
                                   {640, 384, 4, 2}, {1024, 1024, 3, 3}, {2048, 1024, 4, 3}};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int c = 0; c < DWT_WT; c++)
            for (int m = 0; m < 2; m++)
                for (int v = 0; v < 2; v++) {
                    RV_DwtSettings s;
                    wavelet_type(c, &s);
                    s.method = m ? RV_DWT_OUT_OF_PLACE : RV_DWT_IN_PLACE;
                    s.gpu_variant = v ? RV_DWT_VARIANT_NO_LEVEL2D : 0;
                    const int w = sizes[z][0], h = sizes[z][1], L = sizes[z][2];
                    compare_s(&s, w, h, L);
                    RV_DwtStats st;
                    xform_stats(&s, w, h, L, 0, &st);
                    const long long n = st.launches[RV_DWT_KERNEL_LEVEL2D];
                    const long long want = v || c < 2 ? 0 : sizes[z][3]; /* c 0, 1: Haar */
                    /* 2048 x 1024: level 0 too on a device that holds 512 tiles at once */
                    if (n != want && !(want == 3 && n == 4)) {
                        fprintf(stderr, "%dx%d L%d wavelet/type %d method %d variant %d: %lld dwt_lvl2d launches, want %lld\n",
                                w, h, L, c, m, v, n, want);
                        fail();
                    }
                    /* the straight-line code of the shape for CDF 9/7 and DD(13,7) f32 only */
                    const int shape = wt_shaped(c);
                    for (int k = 0; k < RV_DWT_KERNEL_COUNT; k++)
                        if (shape ? st.shaped[k] > st.launches[k] || (k == RV_DWT_KERNEL_LEVEL2D && st.shaped[k] != n)
                                  : st.shaped[k] != 0) {
                            fprintf(stderr, "%dx%d L%d wavelet/type %d method %d variant %d: kind %d %lld of %lld launches shaped\n",
                                    w, h, L, c, m, v, k, st.shaped[k], st.launches[k]);
                            fail();
                        }
                }
}

/*
 * Out of place, the last levels by dwt_lvl2o (one pass a level, no counters)
 * from the image into the row buffer and back, the other bands copied back on
 * the side queue: the CPU's result for every wavelet and type it takes, with
 * the run of such levels at its default (levels of at most 2^22 samples),
 * only levels whose tiles the device holds at once (LVL_OOP_SMALL), at any
 * size (LVL_OOP_ALL) and off. Runs of even length (1024^2 two levels;
 * 2048 x 1024 four) and odd (1024^2 three levels: the last in place by
 * dwt_lvl2d; 2048^2 one level: more tiles than the device holds, so into the
 * buffer and copied back; 4096 x 2048 two levels: the first by the passes
 * but with ALL), with dwt_tilefused after them (128^2, 512 x 64: one level, in
 * place) and a run that ends where the next level stops being a multiple of
 * 64 (640 x 384: two levels, then the passes). The
 * launches are counted: one-pass levels, and the copies (two a level that
 * went into the buffer, one for a last level copied back).
 */
static void test_gpu_lvl2o(void **state)
{
    (void)state;
    int bad = 0;
    /* w, h, levels, then dwt_lvl2d + dwt_lvl2o launches and copies for each variant */
    static const int sizes[][11] = {
        /*                    SMALL    default ALL   OFF */
        {1024, 1024, 2,       2, 2,    2, 2,  2, 2,  2, 0},
        {1024, 1024, 3,       3, 2,    3, 2,  3, 2,  3, 0},
        {2048, 1024, 4,       3, 2,    4, 4,  4, 4,  3, 0},
        {2048, 2048, 1,       0, 0,    1, 1,  1, 1,  0, 0},
        {4096, 2048, 2,       0, 0,    1, 1,  2, 2,  0, 0},
        {128, 128, 2,         1, 0,    1, 0,  1, 0,  1, 0},
        {512, 64, 2,          1, 0,    1, 0,  1, 0,  1, 0},
        {640, 384, 4,         2, 2,    2, 2,  2, 2,  2, 0},
    };
    static const unsigned vs[] = {RV_DWT_VARIANT_LVL_OOP_SMALL, 0, RV_DWT_VARIANT_LVL_OOP_ALL,
                                  RV_DWT_VARIANT_LVL_OOP_OFF};
    /* wt_shaped: dwt_lvl2d_c97 and dwt_lvl2d_dd (40 registers) hold four blocks a
     * multiprocessor, 528 tiles, so 2048 x 1024's 512 go in place in one pass: (row
     * of sizes, variant index, launches, copies) where that changes the counts */
    static const int big[][4] = {{2, 0, 4, 4}, {2, 3, 4, 0}, {4, 0, 1, 0}, {4, 1, 1, 0}, {4, 3, 1, 0}};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int c = 2; c < DWT_WT; c++) /* (c 0, 1: Haar, which keeps the passes) */
            for (size_t v = 0; v < sizeof(vs) / sizeof(vs[0]); v++) {
                RV_DwtSettings s;
                wavelet_type(c, &s);
                s.method = RV_DWT_OUT_OF_PLACE;
                s.gpu_variant = vs[v] | RV_DWT_VARIANT_LVL2D_PAIR_OFF; /* (test_gpu_lvl2d2 with it) */
                const int w = sizes[z][0], h = sizes[z][1], L = sizes[z][2];
                compare_s(&s, w, h, L);
                RV_DwtStats st;
                xform_stats(&s, w, h, L, 0, &st);
                const long long nl = st.launches[RV_DWT_KERNEL_LEVEL2D], nc = st.launches[RV_DWT_KERNEL_SPLIT];
                int wl = sizes[z][3 + 2 * v], wc = sizes[z][4 + 2 * v];
                for (size_t b = 0; b < sizeof(big) / sizeof(big[0]); b++)
                    if (wt_shaped(c) && big[b][0] == (int)z && big[b][1] == (int)v) {
                        wl = big[b][2];
                        wc = big[b][3];
                    }
                /* (with SMALL on a device that holds 512 tiles at once: 2048 x 1024's level 0 in
                 * one pass too, 4096 x 2048's level 1 in place) */
                if ((nl != wl || nc != wc) && !(z == 2 && v == 0 && nl == 4 && nc == 4) &&
                    !(z == 4 && v == 0 && nl == 1 && nc == 0)) {
                    fprintf(stderr, "%dx%d L%d wavelet/type %d variant %u: %lld one-pass levels, %lld copies, want %d, %d\n",
                            w, h, L, c, vs[v], nl, nc, wl, wc);
                    bad = 1;
                }
            }
    if (bad)
        fail();
}

/*
 * In place, levels in one cooperative pass by dwt_lvl2d2 (four blocks a
 * multiprocessor): the CPU's result, and the launches counted against
 * PAIR_OFF (dwt_lvl2d only) for devices of 132 multiprocessors (H100 SXM,
 * H200: dwt_lvl2d holds 396 tiles, its entries of the CDF 9/7 and DD(13,7)
 * f32 shapes 528, dwt_lvl2d2 528 blocks). 2048 x 1024 (512
 * tiles, a tile a block) and 2048 x 1216 (608 tiles, two a block; 19 tile
 * rows, so the last block row has one) one level; 2048^2 two levels (1024
 * tiles two a block, then 256); out of place, 2048^2 one level (an odd run
 * whose last level goes in place instead of through the buffer and a copy);
 * THREE: dwt_lvl2d for the levels it holds.
 */
static void test_gpu_lvl2d2(void **state)
{
    (void)state;
    int bad = 0;
    /* w, h, levels, method (1: out of place), variant, one-pass levels, copies, and
     * the one-pass levels for wt_shaped (-1: the same; with PAIR_OFF 2048 x 1024's
     * 512 tiles in one pass by the 528-tile entries) */
    static const unsigned P_OFF = RV_DWT_VARIANT_LVL2D_PAIR_OFF, P_3 = RV_DWT_VARIANT_LVL2D_THREE;
    static const struct {
        int w, h, L, oop;
        unsigned v;
        int nl, nc, nls;
    } cs[] = {
        {2048, 1024, 1, 0, 0, 1, 0, -1},     {2048, 1024, 1, 0, P_OFF, 0, 0, 1},
        {2048, 1216, 1, 0, 0, 1, 0, -1},     {2048, 1216, 1, 0, P_OFF, 0, 0, -1},
        {2048, 2048, 2, 0, 0, 2, 0, -1},     {2048, 2048, 2, 0, P_OFF, 1, 0, -1},
        {2048, 2048, 1, 1, 0, 1, 0, -1},     {2048, 2048, 1, 1, P_OFF, 1, 1, -1},
        {1024, 1024, 3, 0, P_3, 3, 0, -1},   {640, 384, 2, 0, P_3, 2, 0, -1},
    };
    for (size_t z = 0; z < sizeof(cs) / sizeof(cs[0]); z++)
        for (int c = 2; c < DWT_WT; c++) { /* (c 0, 1: Haar, which keeps the passes) */
            RV_DwtSettings s;
            wavelet_type(c, &s);
            s.method = cs[z].oop ? RV_DWT_OUT_OF_PLACE : RV_DWT_IN_PLACE;
            s.gpu_variant = cs[z].v;
            compare_s(&s, cs[z].w, cs[z].h, cs[z].L);
            RV_DwtStats st;
            xform_stats(&s, cs[z].w, cs[z].h, cs[z].L, 0, &st);
            const long long nl = st.launches[RV_DWT_KERNEL_LEVEL2D], nc = st.launches[RV_DWT_KERNEL_SPLIT];
            const int wl = wt_shaped(c) && cs[z].nls >= 0 ? cs[z].nls : cs[z].nl;
            if (nl != wl || nc != cs[z].nc) {
                fprintf(stderr, "%dx%d L%d %s wavelet/type %d variant %u: %lld one-pass levels, %lld copies, want %d, %d\n",
                        cs[z].w, cs[z].h, cs[z].L, cs[z].oop ? "out of place" : "in place", c, cs[z].v, nl, nc,
                        wl, cs[z].nc);
                bad = 1;
            }
        }
    if (bad)
        fail();
}

static void test_gpu_equals_cpu(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {7, 5}, {64, 64}, {97, 101}, {1920, 1080}, {4099, 33}, {13001, 6}, {16384, 4}};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int wv = RV_DWT_HAAR; wv <= RV_DWT_DD137; wv++)
            for (int integer = 0; integer < 2; integer++) {
                if (integer && wv == RV_DWT_CDF97)
                    continue;
                const int w = sizes[z][0], h = sizes[z][1];
                compare(wv, integer, RV_DWT_LAYOUT_BLOCK, RV_DWT_IN_PLACE, 1, 2, w, h, 3);
                compare(wv, integer, RV_DWT_LAYOUT_BLOCK, RV_DWT_OUT_OF_PLACE, 1, 2, w, h, 3);
                compare(wv, integer, RV_DWT_LAYOUT_BLOCK, RV_DWT_IN_PLACE, 0, 2, w, h, 2);
                compare(wv, integer, RV_DWT_LAYOUT_BLOCK, RV_DWT_IN_PLACE, 2, 2, w, h, 3);
                compare(wv, integer, RV_DWT_LAYOUT_INTERLEAVED, RV_DWT_IN_PLACE, 1, 2, w, h, 3);
                compare(wv, integer, RV_DWT_LAYOUT_BLOCK, RV_DWT_IN_PLACE, 1, 1, w, h, 5);
                compare(wv, integer, RV_DWT_LAYOUT_INTERLEAVED, RV_DWT_IN_PLACE, 1, 1, w, h, 5);
            }
}

/* rv_dwt_forward_frame / rv_dwt_inverse_frame on the GPU (frame_api_check.h:
 * the conversions and the transforms' own results on the same context) */
static void test_gpu_frame_api(void **state)
{
    (void)state;
    frame_api_check(g_gpu);
}

static void test_gpu_denoise(void **state)
{
    (void)state;
    const int w = 333, h = 190;
    RV_Image *a = NULL, *b = NULL;
    assert_int_equal(rv_image_create(g_cpu, w, h, RV_FMT_GRAY8, &a), 0);
    assert_int_equal(rv_image_create(g_gpu, w, h, RV_FMT_GRAY8, &b), 0);
    rv_test_fill_random(a, 3);
    rv_test_fill_random(b, 3);
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    RV_Dwt *da = NULL, *db = NULL;
    assert_int_equal(rv_dwt_create(g_cpu, &s, &da), 0);
    assert_int_equal(rv_dwt_create(g_gpu, &s, &db), 0);
    RV_DwtDenoiseParams p;
    rv_dwt_denoise_default(&p);
    assert_int_equal(rv_dwt_denoise(da, a, &p), 0);
    assert_int_equal(rv_dwt_denoise(db, b, &p), 0);
    ptrdiff_t pa, pb;
    const uint8_t *ya = rv_image_read(a, 0, &pa), *yb = rv_image_read(b, 0, &pb);
    int diff = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            diff += ya[y * pa + x] != yb[y * pb + x];
    assert_int_equal(diff, 0);
    rv_dwt_destroy(&da);
    rv_dwt_destroy(&db);
    rv_image_destroy(&a);
    rv_image_destroy(&b);
}

/*
 * Host transforms on the GPU: split into stripes by a small device memory
 * limit (with and without a transfer context, i.e. copies overlapping the
 * kernels), or without a limit by host_stripes (pairs -3), with or without the
 * cascade (the levels after the striped one following its stripes), the
 * coefficients equal the unsplit GPU transform of the buffer
 * API bit for bit, and the inverse gives its inverse; all wavelets and
 * types, odd sizes.
 */
static void host_split(RV_DwtWavelet wv, int integer, int w, int h, int levels, int pairs, RV_Context *xfer,
                       int cascade)
{
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    s.wavelet = wv;
    s.type = integer ? RV_DWT_I32 : RV_DWT_F32;
    s.device_memory_limit = 65536 + (size_t)(4 * pairs + 4 * 8) * (size_t)w * 4;
    if (pairs < 0) /* just under the image: level 0 in stripes, its LL region kept on the device */
        s.device_memory_limit = 65536 + (size_t)w * 4 * (size_t)h - 4;
    if (pairs == -3) { /* no limit: level 0 in five stripes anyway (host_stripes), pipelined */
        s.device_memory_limit = 0;
        s.host_stripes = 5;
    }
    if (cascade) /* every level after the striped one follows its stripes */
        s.host_cascade_min = 1;
    s.transfer_ctx = xfer;
    const size_t n = (size_t)w * h;
    uint32_t *in = test_image(n, integer, (uint64_t)w * 17 + (uint64_t)h * 3 + (uint64_t)levels);
    uint32_t *co = malloc(n * 4), *rec = malloc(n * 4);
    RV_Dwt *d = NULL;
    assert_int_equal(rv_dwt_create(g_gpu, &s, &d), 0);
    int err = rv_dwt_forward_host(d, in, co, w, h, (size_t)w * 4, levels);
    if (err)
        fprintf(stderr, "%s\n", rv_dwt_error(d));
    assert_int_equal(err, 0);
    RV_DwtStats stt;
    rv_dwt_stats(d, &stt);
    if (stt.stripes < 2 || (cascade && levels >= 2 && stt.cascade_levels < 1)) {
        fprintf(stderr, "host split %dx%d L%d: %lld stripes, %lld cascade levels\n", w, h, levels, stt.stripes,
                stt.cascade_levels);
        fail();
    }
    assert_true(!s.device_memory_limit || stt.peak_device_bytes <= (double)s.device_memory_limit);
    assert_int_equal(rv_dwt_inverse_host(d, co, rec, w, h, (size_t)w * 4, levels), 0);
    rv_dwt_destroy(&d);
    RV_DwtSettings u = s;
    u.device_memory_limit = 0;
    u.transfer_ctx = NULL;
    RV_Dwt *du = NULL;
    assert_int_equal(rv_dwt_create(g_gpu, &u, &du), 0);
    uint32_t *ref = run_d(g_gpu, du, in, w, h, levels, 0);
    for (size_t i = 0; i < n; i++)
        if (co[i] != ref[i]) {
            fprintf(stderr, "host split wavelet %d i32 %d %dx%d L%d pairs %d xfer %d cascade %d: coefficient %zu differs\n",
                    wv, integer, w, h, levels, pairs, xfer != NULL, cascade, i);
            fail();
        }
    uint32_t *rref = run_d(g_gpu, du, ref, w, h, levels, 1);
    rv_dwt_destroy(&du);
    assert_memory_equal(rec, rref, n * 4);
    free(rref);
    free(ref);
    free(in);
    free(co);
    free(rec);
}

/* A transfer context on the other backend than the transform's is refused
 * (RV_EINVAL, the reason from rv_dwt_settings_check_for), either way round;
 * the transform's own context is taken. */
static void test_gpu_transfer_ctx_backend(void **state)
{
    (void)state;
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    char why[256];
    RV_Dwt *d = NULL;
    RV_Context *const tr[2] = {g_gpu, g_cpu}, *const xf[2] = {g_cpu, g_gpu};
    for (int k = 0; k < 2; k++) {
        s.transfer_ctx = xf[k];
        assert_int_equal(rv_dwt_settings_check_for(tr[k], &s, why, sizeof(why)), RV_EINVAL);
        printf("  refused: %s\n", why);
        assert_non_null(strstr(why, k == 0 ? "transfer_ctx runs on the cpu backend, the transform's context on cuda"
                                           : "transfer_ctx runs on the cuda backend, the transform's context on cpu"));
        d = (RV_Dwt *)g_cpu; /* must be reset to NULL */
        assert_int_equal(rv_dwt_create(tr[k], &s, &d), RV_EINVAL);
        assert_null(d);
    }
    s.transfer_ctx = g_gpu;
    assert_int_equal(rv_dwt_create(g_gpu, &s, &d), 0);
    float in[32 * 8] = {0}, out[32 * 8];
    assert_int_equal(rv_dwt_forward_host(d, in, out, 32, 8, 32 * 4, 1), 0);
    rv_dwt_destroy(&d);
}

/* The benchmarks' copy floor kernel, dwt_copy16 (its CUDA body; its CPU body too). */
static void test_gpu_copy16(void **state)
{
    (void)state;
    copy16_check(g_gpu, 1);
    copy16_check(g_cpu, 0);
    copyrect_check(g_gpu, 1);
    copyrect_check(g_cpu, 0);
}

static void test_gpu_host_split(void **state)
{
    (void)state;
    RV_Settings cs;
    rv_settings_default(&cs);
    cs.backend = RV_BACKEND_CUDA;
    RV_Context *xfer = NULL;
    assert_int_equal(rv_context_create(&xfer, &cs), 0);
    static const int sizes[][3] = {{333, 257, 3}, {1920, 1080, 4}, {97, 1001, 6}, {4099, 301, 2}};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int wv = RV_DWT_HAAR; wv <= RV_DWT_DD137; wv++)
            for (int integer = 0; integer < 2; integer++) {
                if (integer && wv == RV_DWT_CDF97)
                    continue;
                host_split(wv, integer, sizes[z][0], sizes[z][1], sizes[z][2], 20, NULL, 0);
                host_split(wv, integer, sizes[z][0], sizes[z][1], sizes[z][2], 33, xfer, 0);
                host_split(wv, integer, sizes[z][0], sizes[z][1], sizes[z][2], -1, NULL, 0);
                host_split(wv, integer, sizes[z][0], sizes[z][1], sizes[z][2], -1, xfer, 0);
                host_split(wv, integer, sizes[z][0], sizes[z][1], sizes[z][2], -3, xfer, 0);
                /* the levels after the striped one following its stripes (the cascade) */
                host_split(wv, integer, sizes[z][0], sizes[z][1], sizes[z][2], -3, xfer, 1);
            }
    rv_context_destroy(&xfer);
}

/*
 * host_stripes' automatic choice by the host memory: a 4096 x 4096 f32 image
 * (64 MiB, RV_DWT_HOST_PIPE_MIN) with a transfer context goes in
 * RV_DWT_HOST_STRIPES stripes from page-locked memory (images' planes on the
 * CUDA context) and whole from pageable memory (one stripe, below twice
 * RV_DWT_HOST_STRIPE_MIN_PAGEABLE); the coefficients and the inverse are the
 * same bit for bit either way, and rv_host_memory_locked tells the two apart;
 * the same with the cascade given (host_cascade_min).
 */
/* The host transform of in into out by d; the stripes it uploaded. */
static long long host_stripes_of(RV_Dwt *d, const void *in, void *out, int w, int h, size_t pitch, int levels,
                                 int inverse)
{
    RV_DwtStats st;
    rv_dwt_stats_reset(d);
    const int err = inverse ? rv_dwt_inverse_host(d, in, out, w, h, pitch, levels)
                            : rv_dwt_forward_host(d, in, out, w, h, pitch, levels);
    if (err < 0)
        fail_msg("host transform %dx%d, %d levels, inverse %d: %s", w, h, levels, inverse, rv_dwt_error(d));
    rv_dwt_stats(d, &st);
    return st.stripes;
}

static void test_gpu_host_auto(void **state)
{
    (void)state;
    enum { N = 4096 };
    const size_t n = (size_t)N * N, rb = (size_t)N * 4;
    RV_Settings cs;
    rv_settings_default(&cs);
    cs.backend = RV_BACKEND_CUDA;
    RV_Context *xfer = NULL;
    assert_int_equal(rv_context_create(&xfer, &cs), 0);
    float *in = test_image(n, 0, 4242), *out = malloc(n * 4), *rec = malloc(n * 4);
    assert_non_null(out);
    assert_non_null(rec);
    RV_Image *im[3] = {NULL, NULL, NULL};
    unsigned char *p[3];
    ptrdiff_t pitch[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(rv_image_create(g_gpu, N, N, RV_FMT_GRAYF32, &im[i]), 0);
        assert_non_null(p[i] = rv_image_write(im[i], 0, &pitch[i]));
        assert_int_equal(rv_host_memory_locked(g_gpu, p[i]), 1);
    }
    assert_int_equal(rv_host_memory_locked(g_gpu, in), 0);
    assert_int_equal(rv_host_memory_locked(g_gpu, NULL), 0);
    assert_int_equal(rv_host_memory_locked(g_cpu, in), 0);
    assert_int_equal(pitch[0], pitch[1]);
    assert_int_equal(pitch[0], pitch[2]);
    for (int y = 0; y < N; y++)
        memcpy(p[0] + (size_t)y * (size_t)pitch[0], in + (size_t)y * N, rb);
    for (int levels = 1; levels <= 5; levels += 4) {
        RV_DwtSettings s;
        rv_dwt_settings_default(&s);
        s.transfer_ctx = xfer;
        RV_Dwt *d = NULL;
        assert_int_equal(rv_dwt_create(g_gpu, &s, &d), 0);
        /* forward and inverse: pageable whole, page-locked striped, the same results */
        assert_int_equal(host_stripes_of(d, in, out, N, N, rb, levels, 0), 1);
        assert_int_equal(host_stripes_of(d, p[0], p[1], N, N, (size_t)pitch[0], levels, 0), RV_DWT_HOST_STRIPES);
        for (int y = 0; y < N; y++)
            assert_memory_equal(p[1] + (size_t)y * (size_t)pitch[1], out + (size_t)y * N, rb);
        if (levels > 1) {
            /* the cascade: none by default here (the 2048^2 LL region is under
             * RV_DWT_HOST_CASCADE_MIN); given 16 MiB, level 1 follows the stripes,
             * page-locked or pageable, with the same coefficients */
            RV_DwtStats st;
            rv_dwt_stats(d, &st);
            assert_int_equal(st.cascade_levels, 0);
            RV_DwtSettings sc = s;
            sc.host_cascade_min = (size_t)16 << 20;
            RV_Dwt *dc = NULL;
            assert_int_equal(rv_dwt_create(g_gpu, &sc, &dc), 0);
            assert_int_equal(host_stripes_of(dc, p[0], p[2], N, N, (size_t)pitch[0], levels, 0), RV_DWT_HOST_STRIPES);
            rv_dwt_stats(dc, &st);
            assert_int_equal(st.cascade_levels, 1);
            for (int y = 0; y < N; y++)
                assert_memory_equal(p[2] + (size_t)y * (size_t)pitch[2], out + (size_t)y * N, rb);
            sc.host_stripes = 4; /* pageable: stripes asked for, the cascade given */
            rv_dwt_destroy(&dc);
            assert_int_equal(rv_dwt_create(g_gpu, &sc, &dc), 0);
            assert_int_equal(host_stripes_of(dc, in, rec, N, N, rb, levels, 0), 4);
            rv_dwt_stats(dc, &st);
            assert_int_equal(st.cascade_levels, 1);
            assert_memory_equal(rec, out, n * 4);
            rv_dwt_destroy(&dc);
        }
        assert_int_equal(host_stripes_of(d, out, rec, N, N, rb, levels, 1), 1);
        assert_int_equal(host_stripes_of(d, p[1], p[2], N, N, (size_t)pitch[1], levels, 1), RV_DWT_HOST_STRIPES);
        double mx = 0;
        for (int y = 0; y < N; y++) {
            assert_memory_equal(p[2] + (size_t)y * (size_t)pitch[2], rec + (size_t)y * N, rb);
            for (int x = 0; x < N; x++)
                mx = fmax(mx, fabs((double)rec[(size_t)y * N + x] - in[(size_t)y * N + x]));
        }
        if (!(mx < 1e-5))
            fail_msg("levels %d: reconstruction off by %g", levels, mx);
        rv_dwt_destroy(&d);
    }
    for (int i = 0; i < 3; i++)
        rv_image_destroy(&im[i]);
    free(in);
    free(out);
    free(rec);
    /* pageable, 8192 x 4096 (twice RV_DWT_HOST_STRIPE_MIN_PAGEABLE): two stripes,
     * the coefficients of the whole image */
    {
        const int W = 8192, H = 4096;
        const size_t m = (size_t)W * H, wb = (size_t)W * 4;
        float *a = test_image(m, 0, 77), *c1 = malloc(m * 4), *c2 = malloc(m * 4);
        assert_non_null(c1);
        assert_non_null(c2);
        RV_DwtSettings s;
        rv_dwt_settings_default(&s);
        s.transfer_ctx = xfer;
        RV_Dwt *d = NULL;
        assert_int_equal(rv_dwt_create(g_gpu, &s, &d), 0);
        assert_int_equal(host_stripes_of(d, a, c1, W, H, wb, 1, 0), 2);
        rv_dwt_destroy(&d);
        s.host_stripes = 1;
        assert_int_equal(rv_dwt_create(g_gpu, &s, &d), 0);
        assert_int_equal(rv_dwt_forward_host(d, a, c2, W, H, wb, 1), 0);
        assert_memory_equal(c1, c2, m * 4);
        rv_dwt_destroy(&d);
        free(a);
        free(c1);
        free(c2);
    }
    rv_context_destroy(&xfer);
}

/*
 * Rows too long for a fused row pass (fuse_max_shared 4096: from 1025
 * samples; the default: from 16385) in one windowed pass (dwt_rowwin, out of
 * place), forward and (since session 14) inverse: the CPU's result for CDF
 * 9/7, DD(13,7) (f32, i32) and CDF 5/3 (i32) with one and several windows a
 * row, rows ending inside a window or a segment, odd lengths; in place (2-D)
 * the same rows in groups through level 0's halo buffer; then that these are
 * the passes taken, both senses (no chunk generation, no step passes) and
 * that NO_ROW_WIN takes the old passes instead.
 */
static void test_gpu_row_win(void **state)
{
    (void)state;
    static const int sizes[][4] = {{1030, 40, 1, 4096},  {4099, 33, 3, 4096}, {9000, 5, 2, 4096},
                                   {20001, 3, 3, 4096},  {8193, 9, 1, 4096},  {40000, 4, 2, 0},
                                   {32768, 3, 3, 0},     {16386, 5, 1, 0}};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int c = 0; c < 4; c++) {
            RV_DwtSettings s;
            rv_dwt_settings_default(&s);
            s.wavelet = c == 0 ? RV_DWT_CDF97 : c == 3 ? RV_DWT_CDF53 : RV_DWT_DD137;
            s.type = c == 0 || c == 1 ? RV_DWT_F32 : RV_DWT_I32;
            s.method = RV_DWT_OUT_OF_PLACE;
            if (sizes[z][3])
                s.fuse_max_shared = sizes[z][3];
            compare_s(&s, sizes[z][0], sizes[z][1], sizes[z][2]);
        }
    /* in place, 2-D: groups of long rows through level 0's halo buffer */
    static const int ip[][2] = {{4100, 1000}, {6001, 700}, {2050, 1200}};
    for (size_t z = 0; z < sizeof(ip) / sizeof(ip[0]); z++)
        for (int c = 0; c < 4; c++) {
            RV_DwtSettings s;
            rv_dwt_settings_default(&s);
            s.wavelet = c == 0 ? RV_DWT_CDF97 : c == 3 ? RV_DWT_CDF53 : RV_DWT_DD137;
            s.type = c == 0 || c == 1 ? RV_DWT_F32 : RV_DWT_I32;
            s.method = RV_DWT_IN_PLACE;
            s.fuse_max_shared = 4096;
            compare_s(&s, ip[z][0], ip[z][1], 2);
        }
    /* taken, forward and inverse: no chunk generation, no step pass; NO_ROW_WIN: both */
    for (int v = 0; v < 2; v++)
        for (int inv = 0; inv < 2; inv++) {
            RV_DwtSettings s;
            rv_dwt_settings_default(&s);
            s.method = RV_DWT_IN_PLACE;
            s.fuse_max_shared = 4096;
            s.gpu_variant = v ? RV_DWT_VARIANT_NO_ROW_WIN : 0;
            RV_DwtStats st;
            xform_stats(&s, 4100, 1000, 1, inv, &st);
            if ((st.launches[RV_DWT_KERNEL_CHUNKGEN] > 0) != v || (st.launches[RV_DWT_KERNEL_STEP] > 0) != v)
                fail_msg("in place, variant %d, inverse %d: %lld chunk generations, %lld step passes", v, inv,
                         st.launches[RV_DWT_KERNEL_CHUNKGEN], st.launches[RV_DWT_KERNEL_STEP]);
            rv_dwt_settings_default(&s); /* out of place, 1-D: the windowed pass, or 4 steps and a split */
            s.method = RV_DWT_OUT_OF_PLACE;
            s.dims = 1;
            s.gpu_variant = v ? RV_DWT_VARIANT_NO_ROW_WIN : 0;
            xform_stats(&s, 20000, 2, 1, inv, &st);
            if (st.launches[RV_DWT_KERNEL_STEP] != (v ? 4 : 0) || st.launches[RV_DWT_KERNEL_ROWFUSED] != (v ? 0 : 1))
                fail_msg("variant %d, inverse %d: %lld step passes, %lld row passes", v, inv,
                         st.launches[RV_DWT_KERNEL_STEP], st.launches[RV_DWT_KERNEL_ROWFUSED]);
        }
}

/*
 * dwt_colclu (in place, sm_90: a column pass by clusters that hold whole
 * 32-column strips) equals the CPU for every wavelet and type, forward and
 * inverse, 1-3 levels (clusters of 16 on the H100 and H200): columns of 2
 * and 3 samples (one pair: a tile of 8 pairs and fifteen empty ones), 129
 * (tiles of 8 pairs, the last seven empty), 1000, 2048 (tiles of 64 pairs),
 * 2050 (72 pairs, the last tile partial), 4095 and 4096 (128 pairs, 512
 * threads), 4097 (dwt_colclu16m: 16 pairs a thread, tiles of 144 pairs),
 * 8191 and 8192 (256 pairs), 8193 (too long: the old passes), widths of one
 * partial tile (4, 100), many (1028) and not a multiple of 4 (37: the old
 * passes); then the passes taken: one column pass and no chunk permutation,
 * and with NO_COLCLU the permutation.
 */
static void test_gpu_colclu(void **state)
{
    (void)state;
    static const int sizes[][3] = {{64, 2, 1},    {100, 3, 1},  {36, 129, 2},  {1028, 1000, 3}, {40, 2048, 1},
                                   {36, 2050, 2},  {4, 4095, 2}, {40, 4096, 1}, {100, 4097, 1},  {4, 8191, 2},
                                   {8, 8192, 1},   {36, 8193, 1}, {37, 500, 2}, {4096, 64, 3},
                                   {4100, 37, 2},  {4128, 1000, 1}};
    /* both forms of clusters of 16: two strips a cluster (dwt_colclp, from 128
     * strips: 4100 columns leave the last cluster one strip of 4) and one
     * (COLCLP_OFF) */
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int c = 0; c < DWT_WT; c++)
            for (int one = 0; one < 2; one++) {
                RV_DwtSettings s;
                wavelet_type(c, &s);
                s.method = RV_DWT_IN_PLACE;
                /* (COLGS_OFF: columns of 4097-8192 samples to the clusters of
                 * dwt_colclu16m, not to dwt_colgs16, the default since session 16) */
                /* (NO_LEVEL2D: the column passes, not dwt_lvl2d, at 4096 x 64) */
                s.gpu_variant = RV_DWT_VARIANT_COLGS_OFF | (one ? RV_DWT_VARIANT_COLCLP_OFF : 0) |
                                RV_DWT_VARIANT_NO_LEVEL2D;
                compare_s(&s, sizes[z][0], sizes[z][1], sizes[z][2]);
            }
    for (int v = 0; v < 2; v++) {
        RV_DwtSettings s;
        rv_dwt_settings_default(&s);
        s.method = RV_DWT_IN_PLACE;
        s.gpu_variant = (v ? RV_DWT_VARIANT_NO_COLCLU : 0) | RV_DWT_VARIANT_NO_LEVEL2D;
        RV_DwtStats st;
        xform_stats(&s, 1024, 1024, 1, 0, &st);
        if ((st.launches[RV_DWT_KERNEL_PERMUTE] > 0) != v || st.launches[RV_DWT_KERNEL_COLFUSED] != (v ? 2 : 1))
            fail_msg("variant %d: %lld permutations, %lld column passes", v, st.launches[RV_DWT_KERNEL_PERMUTE],
                     st.launches[RV_DWT_KERNEL_COLFUSED]);
    }
}

/*
 * In place, the cooperative column pass (dwt_colgs16: columns of more than
 * 4096 samples, any length; dwt_colgs with COLGS_SMALL: up to 4096): the
 * CPU's result for every wavelet and type, both senses, in both of its forms
 * (the next strip's loads in flight while one lifts, and COLGS_SERIAL) and
 * without it (COLGS_OFF: clusters up to 8192 samples, the rearrangement
 * beyond). Sizes:
 * partial last tiles (4097, 8191, 16385 samples), more strips than are in
 * flight (blocks take several strips in turn: 1000 and 4100 columns), a
 * partial last strip (36, 4100 columns), one tile a column (37 samples).
 * Then that a 16K column takes one pass and no permutation with it, and the
 * rearrangement without.
 */
static void test_gpu_colgs(void **state)
{
    (void)state;
    static const int sizes[][4] = {
        {100, 4097, 1, 0}, {4, 8191, 2, 0},  {8, 8192, 1, 0},   {1000, 8192, 1, 0}, {36, 8193, 1, 0},
        {40, 16384, 1, 0}, {4, 16385, 2, 0}, {36, 129, 2, 1},   {1028, 1000, 3, 1}, {4100, 37, 2, 1},
        {4100, 1000, 1, 1}, {40, 4096, 1, 1}, {64, 2, 1, 1},
    };
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int c = 0; c < DWT_WT; c++)
            for (int f = 0; f < 3; f++) {
                RV_DwtSettings s;
                wavelet_type(c, &s);
                s.method = RV_DWT_IN_PLACE;
                s.gpu_variant = f == 2   ? RV_DWT_VARIANT_COLGS_OFF
                                : f == 1 ? RV_DWT_VARIANT_COLGS_SERIAL
                                         : 0;
                if (sizes[z][3] && f < 2)
                    s.gpu_variant |= RV_DWT_VARIANT_COLGS_SMALL;
                compare_s(&s, sizes[z][0], sizes[z][1], sizes[z][2]);
            }
    for (int v = 0; v < 2; v++) {
        RV_DwtSettings s;
        rv_dwt_settings_default(&s);
        s.method = RV_DWT_IN_PLACE;
        s.gpu_variant = (v ? RV_DWT_VARIANT_COLGS_OFF : 0) | RV_DWT_VARIANT_NO_LEVEL2D;
        RV_DwtStats st;
        xform_stats(&s, 64, 16384, 1, 0, &st);
        if ((st.launches[RV_DWT_KERNEL_PERMUTE] > 0) != v || (!v && st.launches[RV_DWT_KERNEL_COLFUSED] != 1))
            fail_msg("COLGS_OFF %d: %lld permutations, %lld column passes", v, st.launches[RV_DWT_KERNEL_PERMUTE],
                     st.launches[RV_DWT_KERNEL_COLFUSED]);
    }
}

/*
 * Out of place, the pipelined column pass (dwt_colrp: a block takes its tile
 * row of two strips, the second's loads in flight into a second buffer while
 * the first lifts; COL_PIPE_ALL takes it at any size, the default only from a
 * resident wave of its blocks): the CPU's result for every wavelet and type,
 * both senses, 1-3 levels. Sizes: two strips a block and one (widths 64, 96,
 * 100: a last strip of 4 columns, 36, 4100: 129 strips, odd), one tile a
 * column (128, 127: both ends at once, the D band one pair short), interior
 * tiles (512, 1024, 4096), a partial last tile (1000: dwt_col_body for that
 * tile), the tiles top down (COL_TOPDOWN).
 */
static void test_gpu_colrp(void **state)
{
    (void)state;
    static const int sizes[][3] = {{64, 128, 1}, {100, 127, 2}, {96, 512, 3}, {36, 1024, 2},
                                   {4100, 256, 1}, {132, 1000, 2}, {64, 4096, 1}};
    enum { ALL = RV_DWT_VARIANT_COL_PIPE_ALL | RV_DWT_VARIANT_NO_LEVEL2D };
    static const unsigned vs[] = {ALL, ALL | RV_DWT_VARIANT_COL_TOPDOWN};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int c = 0; c < DWT_WT; c++)
            for (size_t v = 0; v < sizeof(vs) / sizeof(vs[0]); v++) {
                RV_DwtSettings s;
                wavelet_type(c, &s);
                s.method = RV_DWT_OUT_OF_PLACE;
                s.gpu_variant = vs[v];
                compare_s(&s, sizes[z][0], sizes[z][1], sizes[z][2]);
            }
}

/*
 * The straight-line lifting of the CDF 9/7 and DD(13,7) step programs
 * (dwt_col_args.fix, dwt_lvl_args.fix) gives, bit for bit, what the
 * step-by-step lifting gives (RV_DWT_VARIANT_FIX_OFF), forward and inverse, in
 * every kernel that lifts columns or levels in registers: the one-pass levels
 * (dwt_lvl2d2 with two tiles a block, dwt_lvl2d, dwt_lvl2o), the column passes
 * in place by clusters (dwt_colclp at 4096 columns, dwt_colclu16 below, dwt_colclu16m
 * for 8192-sample columns without the cooperative pass), by the cooperative pass
 * (dwt_colgs16) and out of place (dwt_colrp, dwt_colreg); and the row passes
 * (the entries dwt_rowreg_c97 & co.): dwt_rowreg, dwt_rowreg_s (rows of 512 pairs or fewer) and
 * the windowed dwt_rowwin (rows over the fused passes' limit: in place 4100
 * samples with fuse_max_shared 4096, through level 0's halo buffer; out of place
 * 20001, odd). The launches
 * are counted: the same with and without FIX_OFF; with the shape, every row
 * pass and one-pass level count as shaped (rv_dwt_stats), and at least one
 * column pass where the columns go in registers (creg); with FIX_OFF none
 * (RV_DWT_TEST_SHAPED=1 prints the counts).
 */
static void test_gpu_fix_exact(void **state)
{
    (void)state;
    static const unsigned NO_L2D = RV_DWT_VARIANT_NO_LEVEL2D;
    /* w, h, levels, method (1: out of place), variant, fuse_max_shared (0: default),
     * column passes in registers (1: at least one counted as shaped) */
    static const struct {
        int w, h, L, oop;
        unsigned v;
        int fms, creg;
    } cs[] = {
        {2048, 2048, 2, 0, 0, 0, 1},      {2048, 2048, 2, 1, 0, 0, 1},
        {4096, 4096, 2, 0, 0, 0, 1},      {4096, 4096, 3, 1, 0, 0, 1},
        {1920, 1080, 3, 0, NO_L2D, 0, 1}, {1000, 700, 3, 1, NO_L2D, 0, 1},
        {8192, 8192, 1, 0, 0, 0, 1},      {1024, 8192, 1, 0, RV_DWT_VARIANT_COLGS_OFF, 0, 1},
        {1024, 1024, 4, 0, 0, 0, 1},      {4100, 1000, 1, 0, 0, 4096, 1},
        {20001, 24, 1, 1, 0, 0, 0},
    };
    for (size_t z = 0; z < sizeof(cs) / sizeof(cs[0]); z++)
        for (int wv = 0; wv < 2; wv++) {
            const int w = cs[z].w, h = cs[z].h;
            const size_t n = (size_t)w * h;
            float *in = test_image(n, 0, (uint64_t)w * 131 + (uint64_t)h + (uint64_t)wv);
            RV_DwtSettings s;
            rv_dwt_settings_default(&s);
            s.wavelet = wv ? RV_DWT_DD137 : RV_DWT_CDF97;
            s.method = cs[z].oop ? RV_DWT_OUT_OF_PLACE : RV_DWT_IN_PLACE;
            s.gpu_variant = cs[z].v;
            if (cs[z].fms)
                s.fuse_max_shared = cs[z].fms;
            RV_Dwt *df = NULL, *dl = NULL;
            assert_int_equal(rv_dwt_create(g_gpu, &s, &df), 0);
            s.gpu_variant |= RV_DWT_VARIANT_FIX_OFF;
            assert_int_equal(rv_dwt_create(g_gpu, &s, &dl), 0);
            for (int inv = 0; inv < 2; inv++) {
                float *a = run_d(g_gpu, df, in, w, h, cs[z].L, inv), *b = run_d(g_gpu, dl, in, w, h, cs[z].L, inv);
                if (memcmp(a, b, n * 4)) {
                    size_t i = 0;
                    while (i + 1 < n && !memcmp(&a[i], &b[i], 4))
                        i++;
                    fprintf(stderr, "%s %dx%d L%d %s variant %u %s: sample %zu %.9g against %.9g step by step\n",
                            wv ? "DD(13,7)" : "CDF 9/7", w, h, cs[z].L, cs[z].oop ? "out of place" : "in place",
                            cs[z].v, inv ? "inverse" : "forward", i, a[i], b[i]);
                    fail();
                }
                free(a);
                free(b);
            }
            /* the same launches, the shape's straight-line code in df only: every row
             * pass and one-pass level, and where the columns go in registers some column
             * passes (not the halo copies, nor the shared-memory passes of short columns) */
            RV_DwtStats sf, sl;
            rv_dwt_stats(df, &sf);
            rv_dwt_stats(dl, &sl);
            const int R = RV_DWT_KERNEL_ROWFUSED, C = RV_DWT_KERNEL_COLFUSED, L = RV_DWT_KERNEL_LEVEL2D;
            int bad = sf.shaped[R] != sf.launches[R] || sf.shaped[L] != sf.launches[L] ||
                      sf.shaped[C] < (cs[z].creg && sf.launches[C] > 0) || sf.shaped[C] > sf.launches[C];
            for (int k = 0; k < RV_DWT_KERNEL_COUNT; k++)
                bad |= sf.launches[k] != sl.launches[k] || sl.shaped[k] != 0 ||
                       (k != R && k != C && k != L && sf.shaped[k] != 0);
            if (bad || getenv("RV_DWT_TEST_SHAPED")) {
                fprintf(stderr, "%s %dx%d L%d %s variant %u: launches / shaped (step by step: launches / shaped):",
                        wv ? "DD(13,7)" : "CDF 9/7", w, h, cs[z].L, cs[z].oop ? "out of place" : "in place", cs[z].v);
                for (int k = 0; k < RV_DWT_KERNEL_COUNT; k++)
                    fprintf(stderr, " %lld/%lld (%lld/%lld)", sf.launches[k], sf.shaped[k], sl.launches[k], sl.shaped[k]);
                fprintf(stderr, "\n");
                if (bad)
                    fail();
            }
            rv_dwt_destroy(&df);
            rv_dwt_destroy(&dl);
            free(in);
        }
}

/*
 * The module's code for GPUs before sm_90 (a base run, ctest
 * test_dwt_gpu_sm<base>: g_gpu loads the build's compute_<base> PTX): its
 * kernels say so (rv_kernel_arch), the host then takes no cluster or
 * cooperative column pass (at 1024 x 1024 in place the rearrangement, as
 * with RV_DWT_VARIANT_NO_COLCLU on sm_90 code), and the transforms equal the
 * CPU's at sizes where sm_90 code takes those passes (1024 x 1024 and
 * 4100 x 1000 by clusters of 16, 64 x 8192 cooperatively, 2048 x 2048 five
 * levels), in place and out of place. In a plain run: the architecture only.
 */
static void test_gpu_base_arch(void **state)
{
    (void)state;
    rv_test_check_arch(g_gpu, "dwt", "dwt_colclu");
    if (!rv_test_base_arch())
        return;
    RV_DwtSettings s;
    rv_dwt_settings_default(&s);
    s.method = RV_DWT_IN_PLACE;
    s.gpu_variant = RV_DWT_VARIANT_NO_LEVEL2D;
    RV_DwtStats st;
    xform_stats(&s, 1024, 1024, 1, 0, &st);
    if (st.launches[RV_DWT_KERNEL_PERMUTE] == 0 || st.launches[RV_DWT_KERNEL_COLFUSED] != 2)
        fail_msg("base code: %lld permutations, %lld column passes (expected the rearrangement)",
                 st.launches[RV_DWT_KERNEL_PERMUTE], st.launches[RV_DWT_KERNEL_COLFUSED]);
    static const int wh[][2] = {{1024, 1024}, {4100, 1000}, {64, 8192}};
    for (int c = 0; c < DWT_WT; c++)
        for (int oop = 0; oop < 2; oop++) {
            wavelet_type(c, &s);
            s.method = oop ? RV_DWT_OUT_OF_PLACE : RV_DWT_IN_PLACE;
            compare_sizes(&s, wh, sizeof(wh) / sizeof(wh[0]), 1);
            compare_s(&s, 2048, 2048, 5);
        }
}

int main(void)
{
    g_gpu = rv_test_gpu_context();
    g_cpu = rv_test_cpu_context(0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_equals_cpu),
        cmocka_unit_test(test_gpu_row_reg),
        cmocka_unit_test(test_gpu_col_reg_edges),
        cmocka_unit_test(test_gpu_inplace_levels),
        cmocka_unit_test(test_gpu_variants),
        cmocka_unit_test(test_gpu_inplace_small),
        cmocka_unit_test(test_gpu_denoise),
        cmocka_unit_test(test_gpu_host_split),
        cmocka_unit_test(test_gpu_host_auto),
        cmocka_unit_test(test_gpu_copy16),
        cmocka_unit_test(test_gpu_row_win),
        cmocka_unit_test(test_gpu_colclu),
        cmocka_unit_test(test_gpu_colgs),
        cmocka_unit_test(test_gpu_level2d),
        cmocka_unit_test(test_gpu_colrp),
        cmocka_unit_test(test_gpu_lvl2o),
        cmocka_unit_test(test_gpu_lvl2d2),
        cmocka_unit_test(test_gpu_fix_exact),
        cmocka_unit_test(test_gpu_base_arch),
        cmocka_unit_test(test_gpu_transfer_ctx_backend),
        cmocka_unit_test(test_gpu_frame_api),
    };
    /* a base run: the code for older GPUs, by the tests whose expectations do
     * not name sm_90 passes (launch counts of clusters and one-pass levels) */
    const struct CMUnitTest base_tests[] = {
        cmocka_unit_test(test_gpu_base_arch),
        cmocka_unit_test(test_gpu_equals_cpu),
        cmocka_unit_test(test_gpu_inplace_levels),
        cmocka_unit_test(test_gpu_denoise),
        cmocka_unit_test(test_gpu_host_split),
        cmocka_unit_test(test_gpu_frame_api),
    };
    /* RV_DWT_TEST_FILTER="test_gpu_inplace*": run only the matching tests (short device calls) */
    const char *filter = getenv("RV_DWT_TEST_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    int r = rv_test_base_arch() ? cmocka_run_group_tests(base_tests, NULL, NULL)
                                : cmocka_run_group_tests(tests, NULL, NULL);
    rv_context_destroy(&g_gpu);
    rv_context_destroy(&g_cpu);
    return r;
}
