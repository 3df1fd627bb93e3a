/*
 * test_ops.c - the four higher-order operations and raw kernels on the CPU
 * backend, against references written here from each kernel's definition.
 *
 * Every case runs on odd sizes (1x1, 17x3, 3x17, 64x48, 1919x1081), at
 * spatial strides 1-4, and compares every sample of every plane.
 */
#include <math.h>

#include "rv_test.h"
#include "samples_params.h"
#include "buffer_rows_check.h"

static RV_Context *ctx;
static RV_Module *mod;

typedef struct { int w, h; } size2;
static const size2 sizes[] = {{1, 1}, {17, 3}, {3, 17}, {64, 48}, {1919, 1081}};

static int setup(void **state)
{
    (void)state;
    ctx = rv_test_cpu_context(0);
    if (rv_module_load(ctx, "samples", &mod) < 0) {
        fprintf(stderr, "%s\n", rv_context_error(ctx));
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rv_module_unload(&mod);
    rv_context_destroy(&ctx);
    return 0;
}

static const RV_Kernel *kernel(const char *name)
{
    const RV_Kernel *k = NULL;
    int err = rv_kernel_get(mod, name, &k);
    if (err < 0)
        fail_msg("kernel %s: %s", name, rv_context_error(ctx));
    return k;
}

/* ------------------------------------------------------------------ */
/* Reference element functions (written from the definitions)           */
/* ------------------------------------------------------------------ */

typedef struct plane_view {
    const unsigned char *d;
    ptrdiff_t pitch;
    int w, h;
} plane_view;

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static const void *at(const plane_view *p, int x, int y, int esz)
{
    x = clampi(x, 0, p->w - 1);
    y = clampi(y, 0, p->h - 1);
    return p->d + (ptrdiff_t)y * p->pitch + (ptrdiff_t)x * esz;
}
static uint32_t px(const plane_view *p, int x, int y) { return *(const uint32_t *)at(p, x, y, 4); }
static int chan(uint32_t p, int c) { return (int)((p >> (8 * c)) & 0xff); }
static uint32_t mk(int r, int g, int b, int a)
{
    return (uint32_t)r | (uint32_t)g << 8 | (uint32_t)b << 16 | (uint32_t)a << 24;
}
static int avg3(uint32_t p) { return (chan(p, 0) + chan(p, 1) + chan(p, 2)) / 3; }

/* A reference computes one output element at (x, y) with stride s. */
typedef void (*ref_fn)(const plane_view *a, const plane_view *b, int x, int y, int s,
                       const void *prm, void *out);

static void r_gray(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b; (void)s; (void)prm;
    uint32_t p = px(a, x, y);
    int v = avg3(p);
    *(uint32_t *)out = mk(v, v, v, chan(p, 3));
}
static void r_luma8(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b; (void)s; (void)prm;
    *(uint8_t *)out = (uint8_t)avg3(px(a, x, y));
}
static void r_binarize(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b; (void)s;
    uint32_t p = px(a, x, y);
    int v = avg3(p) >= ((const rv_threshold_params *)prm)->threshold ? 255 : 0;
    *(uint32_t *)out = mk(v, v, v, chan(p, 3));
}
static void r_edge(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b;
    int L[3][3];
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            L[dy + 1][dx + 1] = avg3(px(a, x + dx * s, y + dy * s));
    int gx = (L[0][2] + 2 * L[1][2] + L[2][2]) - (L[0][0] + 2 * L[1][0] + L[2][0]);
    int gy = (L[2][0] + 2 * L[2][1] + L[2][2]) - (L[0][0] + 2 * L[0][1] + L[0][2]);
    int m = abs(gx) + abs(gy);
    int th = ((const rv_threshold_params *)prm)->threshold;
    m = th > 0 ? (m >= th ? 255 : 0) : (m > 255 ? 255 : m);
    *(uint32_t *)out = mk(m, m, m, chan(px(a, x, y), 3));
}
static void r_emboss(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b; (void)prm;
    static const int k[3][3] = {{-2, -1, 0}, {-1, 1, 1}, {0, 1, 2}};
    int acc[3] = {0, 0, 0};
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            for (int c = 0; c < 3; c++)
                acc[c] += k[dy + 1][dx + 1] * chan(px(a, x + dx * s, y + dy * s), c);
    *(uint32_t *)out = mk(clampi(acc[0], 0, 255), clampi(acc[1], 0, 255), clampi(acc[2], 0, 255),
                          chan(px(a, x, y), 3));
}
static void r_diff(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)s;
    uint32_t p = px(a, x, y), q = px(b, x, y);
    int d = abs(chan(p, 0) - chan(q, 0)) + abs(chan(p, 1) - chan(q, 1)) + abs(chan(p, 2) - chan(q, 2));
    int v = d >= ((const rv_threshold_params *)prm)->threshold ? 255 : 0;
    *(uint32_t *)out = mk(v, v, v, 255);
}
static void r_invert8(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b; (void)s; (void)prm;
    *(uint8_t *)out = (uint8_t)(255 - *(const uint8_t *)at(a, x, y, 1));
}
static void r_invert16(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b; (void)s; (void)prm;
    *(uint16_t *)out = (uint16_t)(65535 - *(const uint16_t *)at(a, x, y, 2));
}
static void r_scalef(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b; (void)s;
    const rv_scale_params *p = prm;
    *(float *)out = *(const float *)at(a, x, y, 4) * p->scale + p->offset;
}
static void r_gray16(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b; (void)s; (void)prm;
    uint64_t p = *(const uint64_t *)at(a, x, y, 8);
    uint64_t v = ((p & 0xffff) + ((p >> 16) & 0xffff) + ((p >> 32) & 0xffff)) / 3;
    *(uint64_t *)out = v | v << 16 | v << 32 | (p & 0xffff000000000000ull);
}
static void r_blur8(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b; (void)prm;
    int sum = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            sum += *(const uint8_t *)at(a, x + dx * s, y + dy * s, 1);
    *(uint8_t *)out = (uint8_t)((sum + 4) / 9);
}
static void r_blur16(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b; (void)prm;
    int sum = 0;
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++)
            sum += *(const uint16_t *)at(a, x + dx * s, y + dy * s, 2);
    *(uint16_t *)out = (uint16_t)((sum + 12) / 25);
}
static float fat(const plane_view *a, int x, int y) { return *(const float *)at(a, x, y, 4); }
static void r_laplacef(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)b; (void)prm;
    *(float *)out = fat(a, x - s, y) + fat(a, x + s, y) + fat(a, x, y - s) + fat(a, x, y + s) -
                    4.0f * fat(a, x, y);
}
static void r_absdiff8(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)s; (void)prm;
    int p = *(const uint8_t *)at(a, x, y, 1), q = *(const uint8_t *)at(b, x, y, 1);
    *(uint8_t *)out = (uint8_t)abs(p - q);
}
static void r_subf(const plane_view *a, const plane_view *b, int x, int y, int s, const void *prm, void *out)
{
    (void)s; (void)prm;
    *(float *)out = fat(a, x, y) - fat(b, x, y);
}

/* ------------------------------------------------------------------ */
/* Driver                                                               */
/* ------------------------------------------------------------------ */

static plane_view view_of(RV_Image *img, int p)
{
    plane_view v;
    v.d = rv_image_read(img, p, &v.pitch);
    assert_non_null(v.d);
    v.w = rv_image_plane_width(img, p);
    v.h = rv_image_plane_height(img, p);
    return v;
}

static void compare_plane(const unsigned char *got, ptrdiff_t gp, const unsigned char *want,
                          ptrdiff_t wp, int w, int h, int esz, int is_float, const char *what)
{
    for (int y = 0; y < h; y++) {
        const unsigned char *g = got + (ptrdiff_t)y * gp, *e = want + (ptrdiff_t)y * wp;
        if (is_float) {
            for (int x = 0; x < w; x++) {
                float fg, fe;
                memcpy(&fg, g + 4 * x, 4);
                memcpy(&fe, e + 4 * x, 4);
                if (!(fabsf(fg - fe) <= 1e-6f * fmaxf(1.0f, fabsf(fe))))
                    fail_msg("%s: (%d,%d) got %.9g want %.9g", what, x, y, fg, fe);
            }
        } else if (memcmp(g, e, (size_t)w * esz) != 0) {
            for (int x = 0; x < w; x++)
                if (memcmp(g + x * esz, e + x * esz, esz) != 0)
                    fail_msg("%s: first difference at (%d,%d)", what, x, y);
        }
    }
}

/* Expected output of an element op: reference at each sample, S x S blocks. */
static unsigned char *expect_plane(ref_fn ref, const plane_view *a, const plane_view *b, int esz,
                                   int s, const void *prm)
{
    unsigned char *e = malloc((size_t)a->w * a->h * esz);
    assert_non_null(e);
    unsigned char v[16];
    for (int y = 0; y < a->h; y += s)
        for (int x = 0; x < a->w; x += s) {
            ref(a, b, x, y, s, prm, v);
            for (int yy = y; yy < y + s && yy < a->h; yy++)
                for (int xx = x; xx < x + s && xx < a->w; xx++)
                    memcpy(e + ((size_t)yy * a->w + xx) * esz, v, esz);
        }
    return e;
}

typedef enum { K_PIX, K_NBR, K_COMP } kind;

typedef struct elem_case {
    const char *kernel;
    kind kind;
    RV_Format in, out;
    ref_fn ref;
    const void *prm;
    size_t prm_size;
} elem_case;

static void run_elem_case(const elem_case *c, int w, int h, int s, int in_place, uint64_t seed)
{
    const RV_Kernel *k = kernel(c->kernel);
    RV_Image *a = NULL, *b = NULL, *d = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, c->in, &a), 0);
    rv_test_fill_random(a, seed);
    if (c->kind == K_COMP) {
        assert_int_equal(rv_image_create(ctx, w, h, c->in, &b), 0);
        rv_test_fill_random(b, seed + 1000);
        if (seed & 1) { /* make some pixels equal so thresholds see both sides */
            ptrdiff_t pa, pb;
            const unsigned char *sa = rv_image_read(a, 0, &pa);
            unsigned char *sb = rv_image_write(b, 0, &pb);
            for (int y = 0; y < rv_image_plane_height(a, 0); y += 2)
                memcpy(sb + y * pb, sa + y * pa, (size_t)pa < (size_t)pb ? (size_t)pa : (size_t)pb);
        }
    }
    /* expected, from a copy of the input */
    const RV_FormatInfo *fo = rv_format_info(c->out);
    int np = rv_image_planes(a);
    unsigned char *exp[3] = {NULL, NULL, NULL};
    for (int p = 0; p < np; p++) {
        plane_view va = view_of(a, p), vb;
        if (b)
            vb = view_of(b, p);
        exp[p] = expect_plane(c->ref, &va, b ? &vb : NULL, fo->sample_bytes, s, c->prm);
    }
    assert_int_equal(rv_image_set_stride(a, s), 0);
    if (in_place) {
        d = a;
    } else {
        assert_int_equal(rv_image_create(ctx, w, h, c->out, &d), 0);
        rv_test_fill_random(d, seed + 7); /* every pixel must be overwritten */
    }
    int err;
    if (c->kind == K_PIX)
        err = rv_proc_pix(k, d, a, c->prm, c->prm_size);
    else if (c->kind == K_NBR)
        err = rv_proc_nbr(k, d, a, c->prm, c->prm_size);
    else
        err = rv_comp_img(k, d, a, b, c->prm, c->prm_size);
    if (err < 0)
        fail_msg("%s: %s", c->kernel, rv_context_error(ctx));
    assert_int_equal(rv_image_stride(d), s);
    char what[128];
    for (int p = 0; p < np; p++) {
        plane_view vd = view_of(d, p);
        snprintf(what, sizeof(what), "%s %dx%d s=%d plane %d%s", c->kernel, w, h, s, p,
                 in_place ? " in place" : "");
        compare_plane(vd.d, vd.pitch, exp[p], (ptrdiff_t)vd.w * fo->sample_bytes, vd.w, vd.h,
                      fo->sample_bytes, fo->elem_type == RV_ET_F32, what);
        free(exp[p]);
    }
    if (!in_place)
        rv_image_destroy(&d);
    rv_image_destroy(&a);
    rv_image_destroy(&b);
}

static const rv_threshold_params th100 = {100}, th0 = {0}, th200 = {200};
static const rv_scale_params sc = {1.5f, -0.25f};

static const elem_case cases[] = {
    {"gray", K_PIX, RV_FMT_RGBA8, RV_FMT_RGBA8, r_gray, NULL, 0},
    {"luma8", K_PIX, RV_FMT_RGBA8, RV_FMT_GRAY8, r_luma8, NULL, 0},
    {"binarize", K_PIX, RV_FMT_RGBA8, RV_FMT_RGBA8, r_binarize, &th100, sizeof th100},
    {"invert8", K_PIX, RV_FMT_GRAY8, RV_FMT_GRAY8, r_invert8, NULL, 0},
    {"invert8", K_PIX, RV_FMT_YUV420P8, RV_FMT_YUV420P8, r_invert8, NULL, 0},
    {"invert8", K_PIX, RV_FMT_YUV444P8, RV_FMT_YUV444P8, r_invert8, NULL, 0},
    {"invert16", K_PIX, RV_FMT_GRAY16, RV_FMT_GRAY16, r_invert16, NULL, 0},
    {"invert16", K_PIX, RV_FMT_YUV420P16, RV_FMT_YUV420P16, r_invert16, NULL, 0},
    {"invert16", K_PIX, RV_FMT_YUV444P16, RV_FMT_YUV444P16, r_invert16, NULL, 0},
    {"scalef", K_PIX, RV_FMT_GRAYF32, RV_FMT_GRAYF32, r_scalef, &sc, sizeof sc},
    {"gray16", K_PIX, RV_FMT_RGBA16, RV_FMT_RGBA16, r_gray16, NULL, 0},
    {"edge", K_NBR, RV_FMT_RGBA8, RV_FMT_RGBA8, r_edge, &th0, sizeof th0},
    {"edge", K_NBR, RV_FMT_RGBA8, RV_FMT_RGBA8, r_edge, &th200, sizeof th200},
    {"emboss", K_NBR, RV_FMT_RGBA8, RV_FMT_RGBA8, r_emboss, NULL, 0},
    {"blur8", K_NBR, RV_FMT_GRAY8, RV_FMT_GRAY8, r_blur8, NULL, 0},
    {"blur8", K_NBR, RV_FMT_YUV420P8, RV_FMT_YUV420P8, r_blur8, NULL, 0},
    {"blur16", K_NBR, RV_FMT_YUV444P16, RV_FMT_YUV444P16, r_blur16, NULL, 0},
    {"blur16", K_NBR, RV_FMT_GRAY16, RV_FMT_GRAY16, r_blur16, NULL, 0},
    {"laplacef", K_NBR, RV_FMT_GRAYF32, RV_FMT_GRAYF32, r_laplacef, NULL, 0},
    {"diff", K_COMP, RV_FMT_RGBA8, RV_FMT_RGBA8, r_diff, &th100, sizeof th100},
    {"absdiff8", K_COMP, RV_FMT_YUV420P8, RV_FMT_YUV420P8, r_absdiff8, NULL, 0},
    {"absdiff8", K_COMP, RV_FMT_GRAY8, RV_FMT_GRAY8, r_absdiff8, NULL, 0},
    {"subf", K_COMP, RV_FMT_GRAYF32, RV_FMT_GRAYF32, r_subf, NULL, 0},
};

static void test_elem_ops(void **state)
{
    (void)state;
    uint64_t seed = 1;
    for (size_t c = 0; c < (sizeof(cases) / sizeof(cases[0])); c++)
        for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
            for (int s = 1; s <= 4; s++) {
                /* the largest size: strides 1 and 3 are enough to cover the paths */
                if (sizes[z].w > 1000 && (s == 2 || s == 4))
                    continue;
                run_elem_case(&cases[c], sizes[z].w, sizes[z].h, s, 0, seed++);
            }
}

static void test_in_place(void **state)
{
    (void)state;
    uint64_t seed = 500;
    for (size_t c = 0; c < (sizeof(cases) / sizeof(cases[0])); c++) {
        if (cases[c].in != cases[c].out)
            continue;
        for (int s = 1; s <= 4; s++) {
            run_elem_case(&cases[c], 17, 3, s, 1, seed++);
            run_elem_case(&cases[c], 64, 48, s, 1, seed++);
        }
    }
}

/* The thread count changes nothing (the work split depends on the image only). */
static void test_threads_same_result(void **state)
{
    (void)state;
    RV_Context *c1 = rv_test_cpu_context(1), *c4 = rv_test_cpu_context(4);
    RV_Module *m1, *m4;
    assert_int_equal(rv_module_load(c1, "samples", &m1), 0);
    assert_int_equal(rv_module_load(c4, "samples", &m4), 0);
    const RV_Kernel *k1, *k4;
    assert_int_equal(rv_kernel_get(m1, "meanf", &k1), 0);
    assert_int_equal(rv_kernel_get(m4, "meanf", &k4), 0);
    RV_Image *i1, *i4;
    assert_int_equal(rv_image_create(c1, 640, 480, RV_FMT_GRAYF32, &i1), 0);
    assert_int_equal(rv_image_create(c4, 640, 480, RV_FMT_GRAYF32, &i4), 0);
    rv_test_fill_random(i1, 42);
    rv_test_fill_random(i4, 42);
    RV_BoxResult r1, r4;
    assert_int_equal(rv_proc_box(k1, NULL, i1, NULL, 7, 5, NULL, 0, RV_SUM, &r1), 0);
    assert_int_equal(rv_proc_box(k4, NULL, i4, NULL, 7, 5, NULL, 0, RV_SUM, &r4), 0);
    assert_true(r1.score == r4.score); /* bitwise: same split, same order */
    assert_int_equal(rv_context_threads(c1), 1);
    assert_int_equal(rv_context_threads(c4), 4);
    rv_context_destroy(&c1);
    rv_context_destroy(&c4);
    assert_null(c1);
}

/* ------------------------------------------------------------------ */
/* procBox                                                              */
/* ------------------------------------------------------------------ */

static int64_t ref_sad(const plane_view *img, const plane_view *tpl, int x, int y, int bw, int bh, int s)
{
    int64_t sum = 0;
    for (int j = 0; j < (bh + s - 1) / s; j++)
        for (int i = 0; i < (bw + s - 1) / s; i++) {
            uint32_t p = px(img, x + i * s, y + j * s), q = px(tpl, i * s, j * s);
            for (int c = 0; c < 3; c++)
                sum += abs(chan(p, c) - chan(q, c));
        }
    return sum;
}

static void test_box_sad(void **state)
{
    (void)state;
    const RV_Kernel *k = kernel("sad");
    static const struct { int w, h, bw, bh; } cfg[] = {
        {1, 1, 1, 1}, {17, 3, 5, 2}, {64, 48, 9, 7}, {97, 61, 20, 15}, {395, 372, 70, 72}};
    uint64_t seed = 77;
    for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++)
        for (int s = 1; s <= 4; s++) {
            if (cfg[c].w > 300 && s < 3)
                continue; /* the thesis size at full resolution is covered by test_box_match */
            RV_Image *img, *tpl;
            assert_int_equal(rv_image_create(ctx, cfg[c].w, cfg[c].h, RV_FMT_RGBA8, &img), 0);
            assert_int_equal(rv_image_create(ctx, cfg[c].bw, cfg[c].bh, RV_FMT_RGBA8, &tpl), 0);
            rv_test_fill_random(img, seed++);
            rv_test_fill_random(tpl, seed++);
            plane_view vi = view_of(img, 0), vt = view_of(tpl, 0);
            /* reference: every position on the stride grid */
            int64_t bmin = -1, bmax = -1, sum = 0;
            int minx = 0, miny = 0, maxx = 0, maxy = 0;
            for (int y = 0; y <= cfg[c].h - cfg[c].bh; y += s)
                for (int x = 0; x <= cfg[c].w - cfg[c].bw; x += s) {
                    int64_t v = ref_sad(&vi, &vt, x, y, cfg[c].bw, cfg[c].bh, s);
                    sum += v;
                    if (bmin < 0 || v < bmin) { bmin = v; minx = x; miny = y; }
                    if (bmax < 0 || v > bmax) { bmax = v; maxx = x; maxy = y; }
                }
            assert_int_equal(rv_image_set_stride(img, s), 0);
            RV_BoxResult r;
            assert_int_equal(rv_proc_box(k, NULL, img, tpl, cfg[c].bw, cfg[c].bh, NULL, 0, RV_MIN, &r), 0);
            assert_true(r.score == (double)bmin);
            assert_int_equal(r.x, minx);
            assert_int_equal(r.y, miny);
            assert_int_equal(rv_proc_box(k, NULL, img, tpl, cfg[c].bw, cfg[c].bh, NULL, 0, RV_MAX, &r), 0);
            assert_true(r.score == (double)bmax);
            assert_int_equal(r.x, maxx);
            assert_int_equal(r.y, maxy);
            assert_int_equal(rv_proc_box(k, NULL, img, tpl, cfg[c].bw, cfg[c].bh, NULL, 0, RV_SUM, &r), 0);
            assert_true(r.score == (double)sum);
            /* score map */
            int mw = cfg[c].w - cfg[c].bw + 1, mh = cfg[c].h - cfg[c].bh + 1;
            RV_Image *map;
            assert_int_equal(rv_image_create(ctx, mw, mh, RV_FMT_GRAYF32, &map), 0);
            rv_test_fill_random(map, seed++);
            assert_int_equal(rv_proc_box(k, map, img, tpl, cfg[c].bw, cfg[c].bh, NULL, 0, 0, NULL), 0);
            plane_view vm = view_of(map, 0);
            for (int y = 0; y < mh; y++)
                for (int x = 0; x < mw; x++) {
                    int sx = x / s * s, sy = y / s * s;
                    float want = (float)ref_sad(&vi, &vt, sx, sy, cfg[c].bw, cfg[c].bh, s);
                    float got = *(const float *)at(&vm, x, y, 4);
                    if (got != want)
                        fail_msg("sad map %dx%d s=%d at (%d,%d): %g vs %g", cfg[c].w, cfg[c].h, s, x, y, got, want);
                }
            rv_image_destroy(&map);
            rv_image_destroy(&img);
            rv_image_destroy(&tpl);
        }
}

/* Template cut out of the image is found exactly where it was cut (thesis sizes). */
static void test_box_match(void **state)
{
    (void)state;
    const RV_Kernel *k = kernel("sad");
    RV_Image *img, *tpl;
    assert_int_equal(rv_image_create(ctx, 395, 372, RV_FMT_RGBA8, &img), 0);
    assert_int_equal(rv_image_create(ctx, 70, 72, RV_FMT_RGBA8, &tpl), 0);
    rv_test_fill_random(img, 9);
    ptrdiff_t ip, tp;
    const unsigned char *id = rv_image_read(img, 0, &ip);
    unsigned char *td = rv_image_write(tpl, 0, &tp);
    const int cx = 301, cy = 187;
    for (int y = 0; y < 72; y++)
        memcpy(td + y * tp, id + (cy + y) * ip + cx * 4, 70 * 4);
    RV_BoxResult r;
    assert_int_equal(rv_proc_box(k, NULL, img, tpl, 70, 72, NULL, 0, RV_MIN, &r), 0);
    assert_int_equal(r.x, cx);
    assert_int_equal(r.y, cy);
    assert_true(r.score == 0.0);
    assert_int_equal(r.positions, (long long)(395 - 70 + 1) * (372 - 72 + 1));
    /* a uniform image: every window ties, the first one wins */
    memset(rv_image_write(img, 0, &ip), 0x40, (size_t)ip * 372);
    memset(rv_image_write(tpl, 0, &tp), 0x40, (size_t)tp * 72);
    assert_int_equal(rv_proc_box(k, NULL, img, tpl, 70, 72, NULL, 0, RV_MIN, &r), 0);
    assert_int_equal(r.x, 0);
    assert_int_equal(r.y, 0);
    rv_image_destroy(&img);
    rv_image_destroy(&tpl);
}

static void test_box_ssd_meanf(void **state)
{
    (void)state;
    const RV_Kernel *kssd = kernel("ssd8"), *kmean = kernel("meanf");
    RV_Image *img, *tpl, *fimg, *map;
    assert_int_equal(rv_image_create(ctx, 31, 29, RV_FMT_GRAY8, &img), 0);
    assert_int_equal(rv_image_create(ctx, 6, 4, RV_FMT_GRAY8, &tpl), 0);
    assert_int_equal(rv_image_create(ctx, 31, 29, RV_FMT_GRAYF32, &fimg), 0);
    rv_test_fill_random(img, 3);
    rv_test_fill_random(tpl, 4);
    rv_test_fill_random(fimg, 5);
    plane_view vi = view_of(img, 0), vt = view_of(tpl, 0), vf = view_of(fimg, 0);
    for (int s = 1; s <= 4; s++) {
        rv_image_set_stride(img, s);
        rv_image_set_stride(fimg, s);
        int64_t best = -1;
        int bx = 0, by = 0;
        for (int y = 0; y <= 29 - 4; y += s)
            for (int x = 0; x <= 31 - 6; x += s) {
                int64_t v = 0;
                for (int j = 0; j < (4 + s - 1) / s; j++)
                    for (int i = 0; i < (6 + s - 1) / s; i++) {
                        int d = *(const uint8_t *)at(&vi, x + i * s, y + j * s, 1) -
                                *(const uint8_t *)at(&vt, i * s, j * s, 1);
                        v += d * d;
                    }
                if (best < 0 || v < best) { best = v; bx = x; by = y; }
            }
        RV_BoxResult r;
        assert_int_equal(rv_proc_box(kssd, NULL, img, tpl, 6, 4, NULL, 0, RV_MIN, &r), 0);
        assert_true(r.score == (double)best);
        assert_int_equal(r.x, bx);
        assert_int_equal(r.y, by);

        assert_int_equal(rv_image_create(ctx, 31 - 5 + 1, 29 - 5 + 1, RV_FMT_GRAYF32, &map), 0);
        assert_int_equal(rv_proc_box(kmean, map, fimg, NULL, 5, 5, NULL, 0, 0, NULL), 0);
        plane_view vm = view_of(map, 0);
        double sum = 0.0;
        for (int y = 0; y < vm.h; y++)
            for (int x = 0; x < vm.w; x++) {
                int sx = x / s * s, sy = y / s * s, n = (5 + s - 1) / s;
                float acc = 0.0f;
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < n; i++)
                        acc += fat(&vf, sx + i * s, sy + j * s);
                float want = acc / (float)(n * n);
                float got = *(const float *)at(&vm, x, y, 4);
                assert_true(fabsf(got - want) <= 1e-6f * fmaxf(1.0f, fabsf(want)));
                if (x % s == 0 && y % s == 0)
                    sum += want;
            }
        assert_int_equal(rv_proc_box(kmean, NULL, fimg, NULL, 5, 5, NULL, 0, RV_SUM, &r), 0);
        assert_true(fabs(r.score - sum) <= 1e-5 * fmax(1.0, fabs(sum)));
        rv_image_destroy(&map);
    }
    rv_image_destroy(&img);
    rv_image_destroy(&tpl);
    rv_image_destroy(&fimg);
}

/* ------------------------------------------------------------------ */
/* Raw kernels and buffers                                              */
/* ------------------------------------------------------------------ */

/* A cooperative raw kernel (blocks that wait on one another) cannot run on
 * the CPU backend, which runs blocks one after another: both calls say so. */
static void test_raw_coop_cpu(void **state)
{
    (void)state;
    const RV_Kernel *k = kernel("gridwait");
    RV_LaunchShape sh = {{4, 1, 1}, {64, 1, 1}, 0};
    assert_int_equal(rv_kernel_resident_blocks(k, &sh), RV_ENOSYS);
    assert_non_null(strstr(rv_context_error(ctx), "one after another"));
    rv_gridwait_args a = {0, 0};
    assert_int_equal(rv_launch_raw(k, &sh, &a, sizeof(a)), RV_ENOSYS);
    assert_non_null(strstr(rv_context_error(ctx), "cooperative"));
    /* a shape no backend runs is refused first */
    RV_LaunchShape big = {{1, 1, 1}, {1u << 16, 1u << 16, 1u << 16}, 0};
    assert_int_equal(rv_kernel_resident_blocks(k, &big), RV_EINVAL);
    assert_int_equal(rv_kernel_resident_blocks(NULL, &sh), RV_EINVAL);
    assert_int_equal(rv_kernel_resident_blocks(k, NULL), RV_EINVAL);
}

static void test_raw(void **state)
{
    (void)state;
    const RV_Kernel *k = kernel("addk");
    RV_Image *img;
    assert_int_equal(rv_image_create(ctx, 33, 17, RV_FMT_GRAYF32, &img), 0);
    rv_test_fill_random(img, 11);
    plane_view before = view_of(img, 0);
    float *copy = malloc(33 * 17 * sizeof(float));
    for (int y = 0; y < 17; y++)
        memcpy(copy + y * 33, before.d + y * before.pitch, 33 * sizeof(float));
    rv_addk_args a;
    memset(&a, 0, sizeof(a));
    ptrdiff_t pitch;
    assert_int_equal(rv_image_kernel_address(img, 0, RV_ACCESS_RW, &a.data, &pitch), 0);
    a.pitch = pitch;
    a.w = 33;
    a.h = 17;
    a.k = 0.5f;
    RV_LaunchShape sh = {{1, 17, 1}, {128, 1, 1}, 0};
    assert_int_equal(rv_launch_raw(k, &sh, &a, sizeof(a)), 0);
    plane_view after = view_of(img, 0);
    for (int y = 0; y < 17; y++)
        for (int x = 0; x < 33; x++)
            assert_true(fat(&after, x, y) == copy[y * 33 + x] + 0.5f);
    free(copy);
    /* wrong argument size is refused with a message */
    assert_int_equal(rv_launch_raw(k, &sh, &a, sizeof(a) - 4), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "argument struct"));
    /* launch shapes whose block or thread count wraps around 64 bits
     * (2^22 * 2^21 * 2^21 = 2^64) are too large, not empty */
    RV_LaunchShape big = {{1u << 22, 1u << 21, 1u << 21}, {128, 1, 1}, 0};
    assert_int_equal(rv_launch_raw(k, &big, &a, sizeof(a)), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "too large"));
    RV_LaunchShape bigblk = {{1, 17, 1}, {1u << 22, 1u << 21, 1u << 21}, 0};
    assert_int_equal(rv_launch_raw(k, &bigblk, &a, sizeof(a)), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "too large"));
    rv_image_destroy(&img);

    RV_Buffer *buf;
    assert_int_equal(rv_buffer_create(ctx, 100, &buf), 0);
    assert_int_equal(rv_buffer_size(buf), 100);
    unsigned char in[100], out[100];
    for (int i = 0; i < 100; i++)
        in[i] = (unsigned char)(i * 7);
    assert_int_equal(rv_buffer_upload(buf, 0, in, 100), 0);
    assert_int_equal(rv_buffer_download(buf, 10, out, 90), 0);
    assert_memory_equal(out, in + 10, 90);
    assert_int_equal(rv_buffer_download(buf, 50, out, 51), RV_EINVAL);
    assert_int_not_equal(rv_buffer_address(buf), 0);
    rv_buffer_destroy(&buf);
    assert_null(buf);
    buffer_rows_check(ctx); /* pitched copies */

    /* a chained raw kernel (RV_RAW_KERNEL_CHAINED) runs like a plain one on
     * the CPU: three passes of chainmix over 5 words, against the formula */
    const RV_Kernel *ck = kernel("chainmix");
    RV_Buffer *cb[2];
    assert_int_equal(rv_buffer_create(ctx, 20, &cb[0]), 0);
    assert_int_equal(rv_buffer_create(ctx, 20, &cb[1]), 0);
    uint32_t w[5] = {1, 2, 3, 4, 5}, got[5];
    assert_int_equal(rv_buffer_upload(cb[0], 0, w, sizeof(w)), 0);
    for (int p = 0; p < 3; p++) {
        rv_chainmix_args ca = {rv_buffer_address(cb[p & 1]), rv_buffer_address(cb[(p + 1) & 1]), 5, (uint32_t)p};
        RV_LaunchShape csh = {{2, 1, 1}, {1, 1, 1}, 0};
        assert_int_equal(rv_launch_raw(ck, &csh, &ca, sizeof(ca)), 0);
        uint32_t t[5];
        for (int i = 0; i < 5; i++)
            t[i] = w[(i + 1) % 5] * 2654435761u + (uint32_t)p;
        memcpy(w, t, sizeof(w));
    }
    assert_int_equal(rv_buffer_download(cb[1], 0, got, sizeof(got)), 0);
    assert_memory_equal(got, w, sizeof(w));

    /* the side queue (rv_side_*): on the CPU launches run in order; misuse is an error */
    assert_int_equal(rv_side_begin(NULL), RV_EINVAL);
    assert_int_equal(rv_side_end(ctx), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "rv_side_begin first"));
    assert_int_equal(rv_side_begin(ctx), 0);
    assert_int_equal(rv_side_begin(ctx), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "do not nest"));
    assert_int_equal(rv_side_join(ctx), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "rv_side_end first"));
    {
        rv_chainmix_args ca = {rv_buffer_address(cb[1]), rv_buffer_address(cb[0]), 5, 9u};
        RV_LaunchShape csh = {{2, 1, 1}, {1, 1, 1}, 0};
        assert_int_equal(rv_launch_raw(ck, &csh, &ca, sizeof(ca)), 0);
        uint32_t t[5];
        for (int i = 0; i < 5; i++)
            t[i] = w[(i + 1) % 5] * 2654435761u + 9u;
        memcpy(w, t, sizeof(w));
    }
    assert_int_equal(rv_side_end(ctx), 0);
    assert_int_equal(rv_side_join(ctx), 0);
    assert_int_equal(rv_buffer_download(cb[0], 0, got, sizeof(got)), 0);
    assert_memory_equal(got, w, sizeof(w));
    rv_buffer_destroy(&cb[0]);
    rv_buffer_destroy(&cb[1]);
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

static void expect_error(int err, int code, const char *needle)
{
    assert_int_equal(err, code);
    if (!strstr(rv_context_error(ctx), needle))
        fail_msg("error message '%s' lacks '%s'", rv_context_error(ctx), needle);
}

static void test_errors(void **state)
{
    (void)state;
    RV_Image *rgba, *g8, *small, *yuv;
    assert_int_equal(rv_image_create(ctx, 16, 16, RV_FMT_RGBA8, &rgba), 0);
    assert_int_equal(rv_image_create(ctx, 16, 16, RV_FMT_GRAY8, &g8), 0);
    assert_int_equal(rv_image_create(ctx, 8, 8, RV_FMT_RGBA8, &small), 0);
    assert_int_equal(rv_image_create(ctx, 16, 16, RV_FMT_YUV420P8, &yuv), 0);

    expect_error(rv_proc_pix(kernel("gray"), g8, g8, NULL, 0), RV_EINVAL, "expects rgba");
    expect_error(rv_proc_pix(kernel("gray"), small, rgba, NULL, 0), RV_EINVAL, "does not match");
    expect_error(rv_proc_pix(kernel("binarize"), rgba, rgba, NULL, 0), RV_EINVAL, "4-byte parameter block");
    expect_error(rv_proc_pix(kernel("gray"), rgba, rgba, &th0, sizeof th0), RV_EINVAL, "takes no parameters");
    expect_error(rv_proc_pix(kernel("emboss"), rgba, rgba, NULL, 0), RV_EINVAL, "procNbr kernel, not procPix");
    expect_error(rv_proc_pix(NULL, rgba, rgba, NULL, 0), RV_EINVAL, "kernel is NULL");
    expect_error(rv_proc_box(kernel("sad"), NULL, rgba, small, 20, 4, NULL, 0, RV_MIN, &(RV_BoxResult){0}),
                 RV_EINVAL, "does not fit");
    expect_error(rv_proc_box(kernel("sad"), NULL, rgba, small, 9, 9, NULL, 0, RV_MIN, &(RV_BoxResult){0}),
                 RV_EINVAL, "smaller than");
    expect_error(rv_proc_box(kernel("sad"), NULL, rgba, NULL, 4, 4, NULL, 0, RV_MIN, &(RV_BoxResult){0}),
                 RV_EINVAL, "needs a reference");
    expect_error(rv_proc_box(kernel("sad"), g8, rgba, small, 4, 4, NULL, 0, 0, NULL), RV_EINVAL,
                 "score map must be a 13x13 grayf32");
    expect_error(rv_proc_box(kernel("ssd8"), NULL, yuv, g8, 4, 4, NULL, 0, RV_MIN, &(RV_BoxResult){0}),
                 RV_EINVAL, "one plane");
    expect_error(rv_comp_img(kernel("diff"), rgba, rgba, small, &th0, sizeof th0), RV_EINVAL, "differ in size");

    const RV_Kernel *k;
    expect_error(rv_kernel_get(mod, "no_such_kernel", &k), RV_ENOENT, "rvk_no_such_kernel");
    RV_Module *m;
    expect_error(rv_module_load(ctx, "no_such_module", &m), RV_ENOENT, "no_such_module.so");
    assert_null(m);
    expect_error(rv_module_load(ctx, "/nonexistent/dir/mod.so", &m), RV_ENOENT, "/nonexistent/dir/mod.so");
    /* a module file that exists but cannot be read (a link to itself: ELOOP, as root
     * too) is RV_EIO saying why, by an explicit path and through the search path */
    {
        char dir[] = "/tmp/rv_mod_loop_XXXXXX";
        assert_non_null(mkdtemp(dir));
        char link[4096];
        snprintf(link, sizeof(link), "%s/loop.so", dir);
        assert_int_equal(symlink(link, link), 0);
        expect_error(rv_module_load(ctx, link, &m), RV_EIO, "cannot be read");
        assert_non_null(strstr(rv_context_error(ctx), link));
        RV_Settings s;
        rv_settings_default(&s);
        s.backend = RV_BACKEND_CPU;
        s.module_path = dir;
        s.log = rv_test_quiet_log;
        RV_Context *c2 = NULL;
        assert_int_equal(rv_context_create(&c2, &s), 0);
        assert_int_equal(rv_module_load(c2, "loop", &m), RV_EIO);
        assert_non_null(strstr(rv_context_error(c2), "cannot be read"));
        rv_context_destroy(&c2);
        assert_int_equal(unlink(link), 0);
        assert_int_equal(rmdir(dir), 0);
    }

    RV_Image *bad;
    expect_error(rv_image_create(ctx, 0, 5, RV_FMT_RGBA8, &bad), RV_EINVAL, "outside");
    expect_error(rv_image_create(ctx, 5, RV_MAX_DIM + 1, RV_FMT_RGBA8, &bad), RV_EINVAL, "outside");
    expect_error(rv_image_create(ctx, 5, 5, (RV_Format)99, &bad), RV_EINVAL, "unknown format");
    assert_null(bad);
    assert_null(rv_image_read(rgba, 1, NULL));
    assert_non_null(strstr(rv_context_error(ctx), "plane 1"));
    expect_error(rv_image_set_stride(rgba, 0), RV_EINVAL, "stride 0");

    rv_image_destroy(&rgba);
    rv_image_destroy(&g8);
    rv_image_destroy(&small);
    rv_image_destroy(&yuv);
    assert_null(rgba);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elem_ops),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_threads_same_result),
        cmocka_unit_test(test_box_sad),
        cmocka_unit_test(test_box_match),
        cmocka_unit_test(test_box_ssd_meanf),
        cmocka_unit_test(test_raw),
        cmocka_unit_test(test_raw_coop_cpu),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
