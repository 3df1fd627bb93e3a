/*
 * test_win_sad_row.c - the window-row SAD helper rv_win_sad_row_rgba and the
 * RV_PROC_BOXN entry of the sample `sad` (CPU forms) against plain loops
 * written here from the definition: the sum over a window row of |R|, |G|,
 * |B| differences against the template row, for each of n adjacent windows.
 *
 * The helper is called directly (kernel.h compiled as C, as a module's CPU
 * half is) for every window width 1..11 and 70, strides 1..4, n = 0..4,
 * window groups ending at the last column of a row (images allocated with
 * no spare bytes, so an ASan build catches any read past the row), odd
 * pitches, and accumulators that do not start at zero. The sample `sad`
 * (RV_PROC_BOXN) goes through a CPU context: score maps and the minimum for
 * rows of 1..7 windows, templates narrower than 4 samples, strides 1..3.
 */
#include "rv_test.h"

#include <ravioli/kernel.h>

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 32);
}

static uint32_t load_px(const unsigned char *base, int64_t pitch, int x, int y)
{
    uint32_t v;
    memcpy(&v, base + y * pitch + (int64_t)x * 4, 4);
    return v;
}

/* the definition: sum over i < ww of |R|, |G|, |B| differences between the
 * image sample (x + i*s, y) and the template sample (i*s, ty) */
static int32_t plain_row_sad(const unsigned char *img, int64_t ip, const unsigned char *tpl, int64_t tp,
                             int x, int y, int ty, int ww, int s)
{
    int32_t sum = 0;
    for (int i = 0; i < ww; i++) {
        const uint32_t p = load_px(img, ip, x + i * s, y), q = load_px(tpl, tp, i * s, ty);
        for (int c = 0; c < 3; c++) {
            const int d = (int)((p >> (8 * c)) & 0xff) - (int)((q >> (8 * c)) & 0xff);
            sum += d < 0 ? -d : d;
        }
    }
    return sum;
}

static void test_helper_vs_loop(void **state)
{
    (void)state;
    uint64_t seed = 2026;
    const int widths[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 70};
    long long checked = 0;
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
        for (int s = 1; s <= 4; s++)
            for (int odd = 0; odd <= 1; odd++) {
                const int bw = widths[wi] * s - (s > 1 ? s / 2 : 0); /* box in pixels */
                const int ww = (bw + s - 1) / s;                       /* window in samples */
                const int bh = 3 * s, wh = 3;
                const int W = bw + 3 * s + 5, H = bh + 2;
                /* image pitch: exactly the row (no spare bytes) or one sample more */
                const int64_t ip = (int64_t)W * 4 + odd * 4, tp = (int64_t)bw * 4 + odd * 12;
                unsigned char *img = malloc((size_t)(ip * (H - 1) + W * 4));
                unsigned char *tpl = malloc((size_t)(tp * (bh - 1) + bw * 4));
                assert_non_null(img);
                assert_non_null(tpl);
                for (int64_t k = 0; k < ip * (H - 1) + W * 4; k++) img[k] = (unsigned char)rnd(&seed);
                for (int64_t k = 0; k < tp * (bh - 1) + bw * 4; k++) tpl[k] = (unsigned char)rnd(&seed);
                for (int n = 0; n <= RV_BOXN; n++) {
                    const int nn = n > 1 ? n : 1;
                    /* window starts: 0, 1, and the last group that fits */
                    const int xlast = W - bw - (nn - 1) * s;
                    const int xs[] = {0, 1, xlast};
                    for (int xi = 0; xi < 3; xi++)
                        for (int y = 0; y + bh <= H; y++)
                            for (int j = 0; j < wh; j++) {
                                const int x = xs[xi];
                                if (x < 0 || x > xlast)
                                    continue;
                                rv_win w = {img, ip, tpl, tp, x, y, ww, wh, s, n};
                                int32_t acc[RV_BOXN], want[RV_BOXN];
                                for (int k = 0; k < RV_BOXN; k++)
                                    acc[k] = want[k] = (int32_t)(rnd(&seed) % 1000) - 500;
                                rv_win_sad_row_rgba(w, j, acc);
                                for (int k = 0; k < nn; k++)
                                    want[k] += plain_row_sad(img, ip, tpl, tp, x + k * s, y + j * s, j * s, ww, s);
                                for (int k = 0; k < RV_BOXN; k++)
                                    if (acc[k] != want[k])
                                        fail_msg("ww=%d s=%d n=%d x=%d y=%d j=%d window %d: %d, want %d", ww, s, n,
                                                 x, y, j, k, acc[k], want[k]);
                                /* rv_win_sad_rows2_rgba: rows j and j + 1 in one call */
                                if (j + 1 < wh) {
                                    int32_t a2[RV_BOXN], w2[RV_BOXN];
                                    for (int k = 0; k < RV_BOXN; k++)
                                        a2[k] = w2[k] = (int32_t)(rnd(&seed) % 1000) - 500;
                                    int32_t a3[RV_BOXN];
                                    memcpy(a3, a2, sizeof(a3));
                                    rv_win_sad_rows2_rgba(w, j, a2);
                                    rv__win_sad_rows2_il_rgba(w, j, a3); /* the GPU's form */
                                    for (int k = 0; k < nn; k++)
                                        for (int jj = j; jj <= j + 1; jj++)
                                            w2[k] += plain_row_sad(img, ip, tpl, tp, x + k * s, y + jj * s, jj * s,
                                                                   ww, s);
                                    for (int k = 0; k < RV_BOXN; k++)
                                        if (a2[k] != w2[k] || a3[k] != w2[k])
                                            fail_msg("rows2 ww=%d s=%d n=%d x=%d y=%d j=%d window %d: %d / %d, "
                                                     "want %d", ww, s, n, x, y, j, k, a2[k], a3[k], w2[k]);
                                }
                                /* rv_win_at: window k alone */
                                for (int k = 0; k < nn; k++) {
                                    const rv_win wk = rv_win_at(w, k);
                                    int32_t a1[RV_BOXN] = {0, 0, 0, 0};
                                    assert_int_equal(wk.n, 1);
                                    assert_int_equal(wk.x, x + k * s);
                                    rv_win_sad_row_rgba(wk, j, a1);
                                    assert_int_equal(a1[0], plain_row_sad(img, ip, tpl, tp, x + k * s, y + j * s,
                                                                          j * s, ww, s));
                                }
                                checked++;
                            }
                }
                free(img);
                free(tpl);
            }
    assert_true(checked > 1000);
}

/* The band helper rv_win_sad_rows_rgba (CPU: row by row, any n and S) and
 * its 16-byte form rv__win_sad_rows_v4_rgba (the GPU's, for four windows at
 * S = 1 on the 16-byte grid; called directly here): rows j0 .. j1-1, empty
 * bands included, against plain loops. The image rows are 16-byte aligned
 * with the pitch rounded up to 16 bytes and no spare bytes after the last
 * row's pitch, so an ASan build catches a 16-byte read past them. */
static void test_rows_band(void **state)
{
    (void)state;
    uint64_t seed = 4242;
    const int widths[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 16, 17, 18, 19, 70};
    long long checked = 0;
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
        for (int extra = 0; extra <= 5; extra++) {
            const int ww = widths[wi], wh = 5;
            const int W = ww + 3 + extra, H = wh + 2;
            const int64_t ip = ((int64_t)W * 4 + 15) / 16 * 16, tp = ((int64_t)ww * 4 + 15) / 16 * 16;
            unsigned char *img = aligned_alloc(16, (size_t)(ip * H));
            unsigned char *tpl = aligned_alloc(16, (size_t)(tp * wh));
            assert_non_null(img);
            assert_non_null(tpl);
            for (int64_t k = 0; k < ip * H; k++) img[k] = (unsigned char)rnd(&seed);
            for (int64_t k = 0; k < tp * wh; k++) tpl[k] = (unsigned char)rnd(&seed);
            static const int bands[][2] = {{0, 5}, {1, 3}, {2, 2}, {4, 5}, {0, 1}};
            for (int x = 0; x + 3 + ww <= W; x++)
                for (int y = 0; y + wh <= H; y++)
                    for (size_t bi = 0; bi < sizeof bands / sizeof bands[0]; bi++) {
                        const int j0 = bands[bi][0], j1 = bands[bi][1];
                        rv_win w = {img, ip, tpl, tp, x, y, ww, wh, 1, 4};
                        int32_t want[RV_BOXN], a1[RV_BOXN], a2[RV_BOXN];
                        for (int k = 0; k < RV_BOXN; k++)
                            want[k] = a1[k] = a2[k] = (int32_t)(rnd(&seed) % 1000) - 500;
                        for (int k = 0; k < 4; k++)
                            for (int j = j0; j < j1; j++)
                                want[k] += plain_row_sad(img, ip, tpl, tp, x + k, y + j, j, ww, 1);
                        rv_win_sad_rows_rgba(w, j0, j1, a1);
                        assert_int_equal(rv__sad_v4_ok(w), x % 4 == 0);
                        if (x % 4 == 0)
                            rv__win_sad_rows_v4_rgba(w, j0, j1, a2);
                        for (int k = 0; k < RV_BOXN; k++)
                            if (a1[k] != want[k] || (x % 4 == 0 && a2[k] != want[k]))
                                fail_msg("band ww=%d W=%d x=%d y=%d rows %d..%d window %d: %d / %d, want %d", ww, W, x,
                                         y, j0, j1, k, a1[k], a2[k], want[k]);
                        checked++;
                    }
            /* fewer than four windows, S = 2: the row path */
            for (int n = 1; n <= 3; n++) {
                rv_win w = {img, ip, tpl, tp, 0, 0, (ww + 1) / 2, 3, 2, n};
                if (2 * ((ww + 1) / 2 - 1) + 2 * (n - 1) >= W)
                    continue;
                int32_t acc[RV_BOXN] = {0, 0, 0, 0};
                rv_win_sad_rows_rgba(w, 0, 3, acc);
                for (int k = 0; k < n; k++) {
                    int32_t v = 0;
                    for (int j = 0; j < 3; j++)
                        v += plain_row_sad(img, ip, tpl, tp, 2 * k, 2 * j, 2 * j, (ww + 1) / 2, 2);
                    assert_int_equal(acc[k], v);
                }
            }
            free(img);
            free(tpl);
        }
    assert_true(checked > 4000);
}

static void fill(RV_Image *im, uint64_t *seed)
{
    ptrdiff_t p;
    unsigned char *d = rv_image_write(im, 0, &p);
    assert_non_null(d);
    for (int y = 0; y < rv_image_height(im); y++)
        for (int x = 0; x < rv_image_width(im) * 4; x++) d[y * p + x] = (unsigned char)(rnd(seed) % 16);
}

static int32_t plain_window_sad(const unsigned char *img, int64_t ip, const unsigned char *tpl, int64_t tp,
                                int x, int y, int bw, int bh, int s)
{
    int32_t sum = 0;
    for (int j = 0; j < (bh + s - 1) / s; j++)
        sum += plain_row_sad(img, ip, tpl, tp, x, y + j * s, j * s, (bw + s - 1) / s, s);
    return sum;
}

static void test_boxn_sample(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    RV_Module *m;
    const RV_Kernel *k;
    assert_int_equal(rv_module_load(ctx, "samples", &m), 0);
    /* sad (two windows a call, two rows a pass) and its variants */
    static const char *const names[] = {"sad", "sad_g4", "sad_g2", "sad_r2", "sad_rs4", "sad_rs1", "sad_rs2",
                                        "sad_rs8", "sad_g2rs4", "sad_g2rs2", "sad_rs4v1"};
    for (size_t kn = 0; kn < sizeof names / sizeof names[0]; kn++) {
    assert_int_equal(rv_kernel_get(m, names[kn], &k), 0);
    /* {W, H, bw, bh}: rows of 1 .. 7 windows at S = 1, narrow and odd templates */
    static const int cfg[][4] = {{5, 4, 5, 2}, {6, 5, 5, 3}, {7, 3, 5, 1}, {8, 6, 5, 5}, {9, 4, 5, 3},
                                 {10, 7, 5, 2}, {11, 5, 5, 4}, {4, 4, 1, 1}, {13, 6, 2, 3}, {17, 9, 3, 7},
                                 {29, 11, 7, 5}};
    uint64_t seed = 99;
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++)
        for (int s = 1; s <= 3; s++) {
            const int W = cfg[c][0], H = cfg[c][1], bw = cfg[c][2], bh = cfg[c][3];
            RV_Image *img, *tpl, *map;
            assert_int_equal(rv_image_create(ctx, W, H, RV_FMT_RGBA8, &img), 0);
            assert_int_equal(rv_image_create(ctx, bw, bh, RV_FMT_RGBA8, &tpl), 0);
            fill(img, &seed);
            fill(tpl, &seed);
            ptrdiff_t ip, tp;
            const unsigned char *id = rv_image_read(img, 0, &ip), *td = rv_image_read(tpl, 0, &tp);
            int32_t best = -1;
            int bx = 0, by = 0;
            for (int y = 0; y <= H - bh; y += s)
                for (int x = 0; x <= W - bw; x += s) {
                    const int32_t v = plain_window_sad(id, ip, td, tp, x, y, bw, bh, s);
                    if (best < 0 || v < best) { best = v; bx = x; by = y; }
                }
            assert_int_equal(rv_image_set_stride(img, s), 0);
            RV_BoxResult r;
            assert_int_equal(rv_proc_box(k, NULL, img, tpl, bw, bh, NULL, 0, RV_MIN, &r), 0);
            if (r.score != (double)best || r.x != bx || r.y != by)
                fail_msg("%s %dx%d box %dx%d S=%d: min %g at (%d,%d), want %d at (%d,%d)", names[kn], W, H, bw, bh, s, r.score,
                         r.x, r.y, best, bx, by);
            const int mw = W - bw + 1, mh = H - bh + 1;
            assert_int_equal(rv_image_create(ctx, mw, mh, RV_FMT_GRAYF32, &map), 0);
            assert_int_equal(rv_proc_box(k, map, img, tpl, bw, bh, NULL, 0, 0, NULL), 0);
            ptrdiff_t mp;
            const unsigned char *md = rv_image_read(map, 0, &mp);
            for (int y = 0; y < mh; y++)
                for (int x = 0; x < mw; x++) {
                    float got;
                    memcpy(&got, md + y * mp + x * 4, 4);
                    const float want = (float)plain_window_sad(id, ip, td, tp, x / s * s, y / s * s, bw, bh, s);
                    if (got != want)
                        fail_msg("%s %dx%d box %dx%d S=%d map (%d,%d): %g, want %g", names[kn], W, H, bw, bh, s, x, y,
                                 got, want);
                }
            rv_image_destroy(&map);
            rv_image_destroy(&img);
            rv_image_destroy(&tpl);
        }
    }
    rv_module_unload(&m);
    rv_context_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_helper_vs_loop),
        cmocka_unit_test(test_rows_band),
        cmocka_unit_test(test_boxn_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
