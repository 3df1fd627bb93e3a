/*
 * test_samples.c - the thesis' sample programs through ravioli (CPU backend,
 * one thread and the pool) against the plain hand-written C loops of
 * examples/plain, exactly, at full resolution.
 */
#include "plain.h"
#include "rv_test.h"
#include "samples_params.h"

typedef struct { int w, h; } size2;
static const size2 sizes[] = {{1, 1}, {17, 3}, {512, 512}, {1919, 1081}};

static void check_equal_rgba(RV_Image *img, const uint32_t *want, int w, int h, const char *what)
{
    ptrdiff_t p;
    const unsigned char *d = rv_image_read(img, 0, &p);
    assert_non_null(d);
    for (int y = 0; y < h; y++)
        if (memcmp(d + y * p, want + (size_t)y * w, (size_t)w * 4) != 0)
            fail_msg("%s %dx%d: row %d differs from the plain C loop", what, w, h, y);
}

static void run_samples(int threads)
{
    RV_Context *ctx = rv_test_cpu_context(threads);
    RV_Module *m;
    assert_int_equal(rv_module_load(ctx, "samples", &m), 0);
    const RV_Kernel *kgray, *kbin, *kedge, *kemb, *kdiff;
    assert_int_equal(rv_kernel_get(m, "gray", &kgray), 0);
    assert_int_equal(rv_kernel_get(m, "binarize", &kbin), 0);
    assert_int_equal(rv_kernel_get(m, "edge", &kedge), 0);
    assert_int_equal(rv_kernel_get(m, "emboss", &kemb), 0);
    assert_int_equal(rv_kernel_get(m, "diff", &kdiff), 0);
    const rv_threshold_params bin = {128}, edge = {0}, dth = {60};

    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        int w = sizes[z].w, h = sizes[z].h;
        RV_Image *src, *dst, *other;
        assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &src), 0);
        assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &dst), 0);
        assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &other), 0);
        rv_test_fill_random(src, 100 + z);
        rv_test_fill_random(other, 200 + z);
        ptrdiff_t sp, op;
        const uint32_t *s = rv_image_read(src, 0, &sp);
        uint32_t *want = malloc((size_t)w * h * 4), *tmp = malloc((size_t)w * h * 4);
        assert_non_null(want);
        const ptrdiff_t wp = (ptrdiff_t)w * 4;

        plain_gray(s, sp, want, wp, w, h);
        assert_int_equal(rv_proc_pix(kgray, dst, src, NULL, 0), 0);
        check_equal_rgba(dst, want, w, h, "GrayScale");

        s = rv_image_read(src, 0, &sp);
        plain_binarize(s, sp, want, wp, w, h, bin.threshold);
        assert_int_equal(rv_proc_pix(kbin, dst, src, &bin, sizeof bin), 0);
        check_equal_rgba(dst, want, w, h, "Binarize");

        s = rv_image_read(src, 0, &sp);
        plain_emboss(s, sp, want, wp, w, h);
        assert_int_equal(rv_proc_nbr(kemb, dst, src, NULL, 0), 0);
        check_equal_rgba(dst, want, w, h, "EmbossFilter");

        s = rv_image_read(src, 0, &sp);
        plain_edge(s, sp, want, wp, w, h, edge.threshold);
        assert_int_equal(rv_proc_nbr(kedge, dst, src, &edge, sizeof edge), 0);
        check_equal_rgba(dst, want, w, h, "EdgeDetect");

        s = rv_image_read(src, 0, &sp);
        const uint32_t *o = rv_image_read(other, 0, &op);
        plain_diff(s, sp, o, op, want, wp, w, h, dth.threshold);
        assert_int_equal(rv_comp_img(kdiff, dst, src, other, &dth, sizeof dth), 0);
        check_equal_rgba(dst, want, w, h, "difference detection");

        /* the thesis' video pipeline, in place: GrayScale -> Binarize -> EdgeDetect */
        s = rv_image_read(src, 0, &sp);
        plain_gray(s, sp, tmp, wp, w, h);
        plain_binarize(tmp, wp, want, wp, w, h, bin.threshold);
        plain_edge(want, wp, tmp, wp, w, h, edge.threshold);
        assert_int_equal(rv_proc_pix(kgray, src, src, NULL, 0), 0);
        assert_int_equal(rv_proc_pix(kbin, src, src, &bin, sizeof bin), 0);
        assert_int_equal(rv_proc_nbr(kedge, src, src, &edge, sizeof edge), 0);
        check_equal_rgba(src, tmp, w, h, "pipeline");

        free(want);
        free(tmp);
        rv_image_destroy(&src);
        rv_image_destroy(&dst);
        rv_image_destroy(&other);
    }
    rv_context_destroy(&ctx);
}

static void test_samples_one_thread(void **state)
{
    (void)state;
    run_samples(1);
}

static void test_samples_pool(void **state)
{
    (void)state;
    run_samples(0);
}

/* Template matching: ravioli's procBox + min reduction against the plain loop. */
static void test_template_matching(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(0);
    RV_Module *m;
    assert_int_equal(rv_module_load(ctx, "samples", &m), 0);
    const RV_Kernel *k;
    assert_int_equal(rv_kernel_get(m, "sad", &k), 0);
    RV_Image *img, *tpl;
    assert_int_equal(rv_image_create(ctx, 131, 97, RV_FMT_RGBA8, &img), 0);
    assert_int_equal(rv_image_create(ctx, 23, 17, RV_FMT_RGBA8, &tpl), 0);
    rv_test_fill_random(img, 5);
    rv_test_fill_random(tpl, 6);
    ptrdiff_t ip, tp;
    const uint32_t *id = rv_image_read(img, 0, &ip), *td = rv_image_read(tpl, 0, &tp);
    int px, py;
    int64_t best = plain_sad_match(id, ip, 131, 97, td, tp, 23, 17, &px, &py);
    RV_BoxResult r;
    assert_int_equal(rv_proc_box(k, NULL, img, tpl, 23, 17, NULL, 0, RV_MIN, &r), 0);
    assert_true(r.score == (double)best);
    assert_int_equal(r.x, px);
    assert_int_equal(r.y, py);
    rv_context_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_one_thread),
        cmocka_unit_test(test_samples_pool),
        cmocka_unit_test(test_template_matching),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
