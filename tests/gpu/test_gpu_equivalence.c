/*
 * test_gpu_equivalence.c - every operation and every sample kernel gives the
 * same result on the CUDA backend as on the CPU backend: bit-exact for
 * integer formats, within 1e-6 (relative to the plane's largest magnitude)
 * for float. Sizes 1x1, 17x3, 1919x1081; strides 1..4; all formats (procNbr
 * and gray also at 3841x2161, strides 1, 2, 8: several tiles a block). A few
 * results are also checked against references written here from the
 * definitions (gray, diff, the SAD minimum).
 *
 * Also: coherence (host writes after a GPU op are uploaded again), the
 * device memory pool (repeated operations do not call cuMemAlloc), device
 * out-of-memory (RV_ENOMEM, context still usable), malformed PTX and a
 * missing kernel symbol; the module's forms (fat binary first, an explicit
 * .ptx path, the same results, a stale fat binary's warning).
 *
 * Label `gpu`: exits 77 (skipped) when no GPU is usable.
 */
#include <math.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rv_test.h"
#include "../../modules/samples/samples_params.h"
#include "buffer_rows_check.h"
#include "staged_copies_check.h"

#define RV_ARRAY_LEN_T(a) (sizeof(a) / sizeof((a)[0]))

static RV_Context *cpu, *gpu;
static RV_Module *mcpu, *mgpu;
static int g_checks;

/* Debug log capture (pool statistics, error texts). */
static char g_log[16384];
static rv_test_why g_keep = {g_log, sizeof(g_log)};

static RV_Context *gpu_context_logged(void)
{
    RV_Context *c = rv_test_gpu_context();
    rv_context_destroy(&c);
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CUDA;
    s.log = rv_test_keep_all;
    s.log_opaque = &g_keep;
    s.log_level = RV_LOG_DEBUG;
    assert_int_equal(rv_context_create(&c, &s), 0);
    return c;
}

static const RV_Kernel *kern(RV_Module *m, const char *name)
{
    const RV_Kernel *k = NULL;
    int err = rv_kernel_get(m, name, &k);
    if (err < 0)
        fail_msg("kernel %s: %s", name, rv_context_error(m == mgpu ? gpu : cpu));
    return k;
}

typedef struct pair {
    RV_Image *c, *g;
} pair;

static pair make_pair(int w, int h, RV_Format f, uint64_t seed, int fill)
{
    pair p;
    assert_int_equal(rv_image_create(cpu, w, h, f, &p.c), 0);
    assert_int_equal(rv_image_create(gpu, w, h, f, &p.g), 0);
    if (fill)
        rv_test_fill_random(p.c, seed);
    const RV_FormatInfo *fi = rv_format_info(f);
    for (int pl = 0; pl < rv_image_planes(p.c); pl++) {
        ptrdiff_t pc, pg;
        const unsigned char *s = rv_image_read(p.c, pl, &pc);
        unsigned char *d = rv_image_write(p.g, pl, &pg);
        assert_non_null(s);
        assert_non_null(d);
        int pw = rv_image_plane_width(p.c, pl), ph = rv_image_plane_height(p.c, pl);
        for (int y = 0; y < ph; y++)
            memcpy(d + y * pg, s + y * pc, (size_t)pw * fi->sample_bytes);
    }
    return p;
}

/* Output images are poisoned first so that unwritten pixels show. */
static pair make_out(int w, int h, RV_Format f)
{
    pair p = make_pair(w, h, f, 0, 0);
    for (int pl = 0; pl < rv_image_planes(p.c); pl++) {
        ptrdiff_t pc, pg;
        unsigned char *a = rv_image_write(p.c, pl, &pc);
        unsigned char *b = rv_image_write(p.g, pl, &pg);
        memset(a, 0xA5, (size_t)pc * rv_image_plane_height(p.c, pl));
        memset(b, 0x5A, (size_t)pg * rv_image_plane_height(p.g, pl));
    }
    return p;
}

static void free_pair(pair *p)
{
    rv_image_destroy(&p->c);
    rv_image_destroy(&p->g);
}

static void set_stride(pair *p, int s)
{
    assert_int_equal(rv_image_set_stride(p->c, s), 0);
    assert_int_equal(rv_image_set_stride(p->g, s), 0);
}

static void compare(pair *p, const char *what)
{
    const RV_FormatInfo *fi = rv_format_info(rv_image_format(p->c));
    for (int pl = 0; pl < rv_image_planes(p->c); pl++) {
        ptrdiff_t pc, pg;
        const unsigned char *a = rv_image_read(p->c, pl, &pc);
        const unsigned char *b = rv_image_read(p->g, pl, &pg);
        if (!b)
            fail_msg("%s: download failed: %s", what, rv_context_error(gpu));
        assert_non_null(a);
        int pw = rv_image_plane_width(p->c, pl), ph = rv_image_plane_height(p->c, pl);
        if (fi->elem_type == 4 /* f32 */) {
            double scale = 0;
            for (int y = 0; y < ph; y++)
                for (int x = 0; x < pw; x++)
                    scale = fmax(scale, fabs(((const float *)(a + y * pc))[x]));
            for (int y = 0; y < ph; y++)
                for (int x = 0; x < pw; x++) {
                    float u = ((const float *)(a + y * pc))[x], v = ((const float *)(b + y * pg))[x];
                    if (!(fabs((double)u - (double)v) <= 1e-6 * fmax(scale, 1e-30)))
                        fail_msg("%s: plane %d (%d,%d): cpu %.9g gpu %.9g", what, pl, x, y, u, v);
                }
        } else {
            for (int y = 0; y < ph; y++)
                if (memcmp(a + y * pc, b + y * pg, (size_t)pw * fi->sample_bytes)) {
                    for (int x = 0; x < pw * fi->sample_bytes; x++)
                        if (a[y * pc + x] != b[y * pg + x])
                            fail_msg("%s: plane %d row %d byte %d: cpu %u gpu %u", what, pl, y, x,
                                     a[y * pc + x], b[y * pg + x]);
                }
        }
    }
    g_checks++;
}

static const int sizes[][2] = {{1, 1}, {17, 3}, {1919, 1081}};

typedef enum { PIX, NBR, COMP } opkind;

typedef struct elem_case {
    const char *kernel;
    opkind op;
    RV_Format in, out;
    int params; /* 0 none, 1 threshold, 2 scale */
    int threshold;
} elem_case;

static const elem_case elem_cases[] = {
    {"gray", PIX, RV_FMT_RGBA8, RV_FMT_RGBA8, 0, 0},
    {"luma8", PIX, RV_FMT_RGBA8, RV_FMT_GRAY8, 0, 0},
    {"binarize", PIX, RV_FMT_RGBA8, RV_FMT_RGBA8, 1, 128},
    {"edge", NBR, RV_FMT_RGBA8, RV_FMT_RGBA8, 1, 0},
    {"edge", NBR, RV_FMT_RGBA8, RV_FMT_RGBA8, 1, 100},
    {"emboss", NBR, RV_FMT_RGBA8, RV_FMT_RGBA8, 0, 0},
    {"diff", COMP, RV_FMT_RGBA8, RV_FMT_RGBA8, 1, 90},
    {"invert8", PIX, RV_FMT_GRAY8, RV_FMT_GRAY8, 0, 0},
    {"invert8", PIX, RV_FMT_YUV420P8, RV_FMT_YUV420P8, 0, 0},
    {"invert8", PIX, RV_FMT_YUV444P8, RV_FMT_YUV444P8, 0, 0},
    {"invert16", PIX, RV_FMT_GRAY16, RV_FMT_GRAY16, 0, 0},
    {"invert16", PIX, RV_FMT_YUV420P16, RV_FMT_YUV420P16, 0, 0},
    {"invert16", PIX, RV_FMT_YUV444P16, RV_FMT_YUV444P16, 0, 0},
    {"scalef", PIX, RV_FMT_GRAYF32, RV_FMT_GRAYF32, 2, 0},
    {"gray16", PIX, RV_FMT_RGBA16, RV_FMT_RGBA16, 0, 0},
    {"blur8", NBR, RV_FMT_GRAY8, RV_FMT_GRAY8, 0, 0},
    {"blur8", NBR, RV_FMT_YUV420P8, RV_FMT_YUV420P8, 0, 0},
    {"blur8", NBR, RV_FMT_YUV444P8, RV_FMT_YUV444P8, 0, 0},
    {"blur16", NBR, RV_FMT_GRAY16, RV_FMT_GRAY16, 0, 0},
    {"blur16", NBR, RV_FMT_YUV420P16, RV_FMT_YUV420P16, 0, 0},
    {"blur16", NBR, RV_FMT_YUV444P16, RV_FMT_YUV444P16, 0, 0},
    {"laplacef", NBR, RV_FMT_GRAYF32, RV_FMT_GRAYF32, 0, 0},
    {"absdiff8", COMP, RV_FMT_GRAY8, RV_FMT_GRAY8, 0, 0},
    {"absdiff8", COMP, RV_FMT_YUV420P8, RV_FMT_YUV420P8, 0, 0},
    {"absdiff8", COMP, RV_FMT_YUV444P8, RV_FMT_YUV444P8, 0, 0},
    {"subf", COMP, RV_FMT_GRAYF32, RV_FMT_GRAYF32, 0, 0},
};

static void run_elem_case(const elem_case *ec, int w, int h, int s, uint64_t seed)
{
    char what[160];
    snprintf(what, sizeof(what), "%s %s %dx%d S=%d", ec->kernel, rv_format_info(ec->in)->name, w, h, s);
    const RV_Kernel *kc = kern(mcpu, ec->kernel), *kg = kern(mgpu, ec->kernel);
    pair a = make_pair(w, h, ec->in, seed, 1);
    pair b = make_pair(w, h, ec->in, seed + 1000, 1);
    pair o = make_out(w, h, ec->out);
    set_stride(&a, s);
    set_stride(&b, s);
    rv_threshold_params tp = {ec->threshold};
    rv_scale_params sp = {1.5f, 0.25f};
    const void *prm = ec->params == 1 ? (const void *)&tp : ec->params == 2 ? (const void *)&sp : NULL;
    size_t psz = ec->params == 1 ? sizeof(tp) : ec->params == 2 ? sizeof(sp) : 0;
    for (int side = 0; side < 2; side++) {
        const RV_Kernel *k = side ? kg : kc;
        RV_Image *dst = side ? o.g : o.c, *src = side ? a.g : a.c, *src2 = side ? b.g : b.c;
        int err;
        if (ec->op == PIX)
            err = rv_proc_pix(k, dst, src, prm, psz);
        else if (ec->op == NBR)
            err = rv_proc_nbr(k, dst, src, prm, psz);
        else
            err = rv_comp_img(k, dst, src, src2, prm, psz);
        if (err < 0)
            fail_msg("%s (%s): %s", what, side ? "gpu" : "cpu", rv_context_error(side ? gpu : cpu));
    }
    compare(&o, what);
    free_pair(&a);
    free_pair(&b);
    free_pair(&o);
}

static void test_elem_ops(void **state)
{
    (void)state;
    uint64_t seed = 1;
    for (size_t c = 0; c < RV_ARRAY_LEN_T(elem_cases); c++)
        for (size_t z = 0; z < RV_ARRAY_LEN_T(sizes); z++)
            for (int s = 1; s <= 4; s++)
                run_elem_case(&elem_cases[c], sizes[z][0], sizes[z][1], s, seed++);
}

/* procNbr and the strided fills on a frame larger than one resident wave of
 * blocks (3841x2161: the backend deals several tiles to each block, with
 * odd right and bottom edges), strides 1, 2 and 8. */
static void test_nbr_large(void **state)
{
    (void)state;
    uint64_t seed = 7000;
    static const int strides[] = {1, 2, 8};
    for (size_t c = 0; c < RV_ARRAY_LEN_T(elem_cases); c++) {
        if (elem_cases[c].op != NBR && strcmp(elem_cases[c].kernel, "gray") != 0)
            continue;
        for (size_t k = 0; k < RV_ARRAY_LEN_T(strides); k++)
            run_elem_case(&elem_cases[c], 3841, 2161, strides[k], seed++);
    }
}

/* procBox: every kernel, every reduction, every size and stride. */
typedef struct box_case {
    const char *kernel;
    RV_Format fmt;
    int has_ref;
} box_case;

static const box_case box_cases[] = {
    {"sad", RV_FMT_RGBA8, 1},  /* RV_PROC_BOXN_G: two windows a thread, two rows a pass */
    {"sad1", RV_FMT_RGBA8, 1}, /* RV_PROC_BOX: the one-window form */
    {"sad_g4", RV_FMT_RGBA8, 1}, /* RV_PROC_BOXN: four windows a thread, one row a pass */
    {"sad_g2", RV_FMT_RGBA8, 1}, /* two windows a thread, one row a pass */
    {"sad_r2", RV_FMT_RGBA8, 1}, /* four windows a thread, two rows a pass */
    /* RV_PROC_BOXR: a group's template rows split over R threads, partial
     * sums added by shuffles (four windows, 16-byte reads; R = 4, 1, 2, 8),
     * and round 7's sad split over 4 threads */
    {"sad_rs4", RV_FMT_RGBA8, 1},
    {"sad_rs1", RV_FMT_RGBA8, 1},
    {"sad_rs2", RV_FMT_RGBA8, 1},
    {"sad_rs8", RV_FMT_RGBA8, 1},
    {"sad_g2rs4", RV_FMT_RGBA8, 1},
    {"sad_g2rs2", RV_FMT_RGBA8, 1},
    /* sad_rs4 with one template row a pass (round 9's helper) */
    {"sad_rs4v1", RV_FMT_RGBA8, 1},
    {"ssd8", RV_FMT_GRAY8, 1},
    {"meanf", RV_FMT_GRAYF32, 0},
};

static void run_box_case_sized(const box_case *bc, int w, int h, int bw, int bh, int s, int reduce, uint64_t seed)
{
    char what[160];
    snprintf(what, sizeof(what), "%s %dx%d box %dx%d S=%d reduce=%d", bc->kernel, w, h, bw, bh, s, reduce);
    const RV_Kernel *kc = kern(mcpu, bc->kernel), *kg = kern(mgpu, bc->kernel);
    pair src = make_pair(w, h, bc->fmt, seed, 1);
    pair ref = make_pair(bw, bh, bc->fmt, seed + 77, 1);
    set_stride(&src, s);
    pair map = {NULL, NULL};
    if (!reduce)
        map = make_out(w - bw + 1, h - bh + 1, RV_FMT_GRAYF32);
    RV_BoxResult rc, rg;
    int e1 = rv_proc_box(kc, map.c, src.c, bc->has_ref ? ref.c : NULL, bw, bh, NULL, 0, (RV_Reduce)reduce, &rc);
    if (e1 < 0)
        fail_msg("%s (cpu): %s", what, rv_context_error(cpu));
    int e2 = rv_proc_box(kg, map.g, src.g, bc->has_ref ? ref.g : NULL, bw, bh, NULL, 0, (RV_Reduce)reduce, &rg);
    if (e2 < 0)
        fail_msg("%s (gpu): %s", what, rv_context_error(gpu));
    if (!reduce) {
        compare(&map, what);
        free_pair(&map);
    } else {
        assert_int_equal(rc.positions, rg.positions);
        if (reduce == RV_SUM && bc->fmt == RV_FMT_GRAYF32) {
            if (!(fabs(rc.score - rg.score) <= 1e-6 * fmax(fabs(rc.score), 1e-30)))
                fail_msg("%s: sum cpu %.17g gpu %.17g", what, rc.score, rg.score);
        } else {
            if (rc.score != rg.score)
                fail_msg("%s: score cpu %.17g gpu %.17g", what, rc.score, rg.score);
            if (reduce != RV_SUM && (rc.x != rg.x || rc.y != rg.y))
                fail_msg("%s: position cpu (%d,%d) gpu (%d,%d)", what, rc.x, rc.y, rg.x, rg.y);
        }
        g_checks++;
    }
    free_pair(&src);
    free_pair(&ref);
}

static void run_box_case(const box_case *bc, int w, int h, int s, int reduce, uint64_t seed)
{
    run_box_case_sized(bc, w, h, w < 7 ? w : 7, h < 5 ? h : 5, s, reduce, seed);
}

static void test_box_ops(void **state)
{
    (void)state;
    uint64_t seed = 5000;
    for (size_t c = 0; c < RV_ARRAY_LEN_T(box_cases); c++)
        for (size_t z = 0; z < RV_ARRAY_LEN_T(sizes); z++)
            for (int s = 1; s <= 4; s++)
                for (int r = 0; r <= 3; r++)
                    run_box_case(&box_cases[c], sizes[z][0], sizes[z][1], s, r, seed++);
    /* SAD at the thesis size and one odd template: score maps and minima,
     * the wide-template paths (16-byte shared template reads, a row tail) */
    static const int tm[][2] = {{70, 72}, {69, 71}};
    for (size_t c = 0; c < RV_ARRAY_LEN_T(box_cases); c++) /* the sad forms */
        for (size_t z = 0; z < 2 && strncmp(box_cases[c].kernel, "sad", 3) == 0; z++)
            for (int s = 1; s <= 2; s++)
                for (int r = 0; r <= 1; r++)
                    run_box_case_sized(&box_cases[c], 395, 372, tm[z][0], tm[z][1], s, r, seed++);
}

/* Ties: a constant image, every window scores the same; the position must
 * be (0, 0) on both sides, and MAX likewise. */
static void test_box_ties(void **state)
{
    (void)state;
    const RV_Kernel *kg = kern(mgpu, "ssd8");
    RV_Image *src, *ref;
    assert_int_equal(rv_image_create(gpu, 300, 200, RV_FMT_GRAY8, &src), 0);
    assert_int_equal(rv_image_create(gpu, 9, 9, RV_FMT_GRAY8, &ref), 0);
    for (int s = 1; s <= 3; s++) {
        rv_image_set_stride(src, s);
        for (int r = RV_MIN; r <= RV_MAX; r++) {
            RV_BoxResult res;
            assert_int_equal(rv_proc_box(kg, NULL, src, ref, 9, 9, NULL, 0, (RV_Reduce)r, &res), 0);
            assert_int_equal(res.x, 0);
            assert_int_equal(res.y, 0);
            assert_true(res.score == 0.0);
        }
    }
    /* one unique minimum planted away from the origin, one tie after it */
    ptrdiff_t pitch;
    unsigned char *d = rv_image_write(src, 0, &pitch);
    memset(d, 200, (size_t)pitch * 200);
    for (int y = 0; y < 9; y++) {
        memset(d + (y + 120) * pitch + 210, 0, 9);
        memset(d + (y + 150) * pitch + 30, 0, 9);
    }
    rv_image_set_stride(src, 1);
    RV_BoxResult res;
    assert_int_equal(rv_proc_box(kg, NULL, src, ref, 9, 9, NULL, 0, RV_MIN, &res), 0);
    assert_int_equal(res.x, 210);
    assert_int_equal(res.y, 120);
    assert_true(res.score == 0.0);
    rv_image_destroy(&src);
    rv_image_destroy(&ref);
}

/* Ties of the SAD forms (RV_PROC_BOXN_G, RV_PROC_BOXR with partial sums over
 * threads): a zero patch one column wider than the template gives two
 * adjacent windows of score 0 (in one group or across groups, by its
 * column), another zero patch further down a third; MIN must take the
 * first in window order. MAX: every window off the patches ties, (0, 0).
 * Alpha bytes are random (ignored by the score). */
static void test_box_ties_sad(void **state)
{
    (void)state;
    const int W = 160, H = 120, bw = 13, bh = 10;
    static const int px[] = {38, 39, 40, 41};
    for (size_t c = 0; c < RV_ARRAY_LEN_T(box_cases); c++) {
        if (strncmp(box_cases[c].kernel, "sad", 3) != 0)
            continue;
        for (size_t pi = 0; pi < RV_ARRAY_LEN_T(px); pi++) {
            pair src = make_pair(W, H, RV_FMT_RGBA8, 11 + pi, 1);
            pair ref = make_pair(bw, bh, RV_FMT_RGBA8, 12 + pi, 1);
            uint64_t seed = 77 + pi;
            for (int side = 0; side < 2; side++) { /* the same bytes into the CPU and GPU images */
                uint64_t sd = seed;
                ptrdiff_t p1, p2;
                unsigned char *d = rv_image_write(side ? src.g : src.c, 0, &p1);
                unsigned char *t = rv_image_write(side ? ref.g : ref.c, 0, &p2);
                for (int y = 0; y < H; y++)
                    for (int x = 0; x < W; x++) {
                        const int zero = (y >= 20 && y < 20 + bh && x >= px[pi] && x <= px[pi] + bw) ||
                                         (y >= 70 && y < 70 + bh && x >= 5 && x < 5 + bw);
                        for (int k = 0; k < 3; k++)
                            d[y * p1 + 4 * x + k] = zero ? 0 : 200;
                        sd = sd * 6364136223846793005ull + 1442695040888963407ull;
                        d[y * p1 + 4 * x + 3] = (unsigned char)(sd >> 56);
                    }
                for (int y = 0; y < bh; y++)
                    for (int x = 0; x < bw; x++) {
                        memset(t + y * p2 + 4 * x, 0, 3);
                        sd = sd * 6364136223846793005ull + 1442695040888963407ull;
                        t[y * p2 + 4 * x + 3] = (unsigned char)(sd >> 56);
                    }
            }
            for (int r = RV_MIN; r <= RV_MAX; r++) {
                RV_BoxResult rc, rg;
                assert_int_equal(rv_proc_box(kern(mcpu, box_cases[c].kernel), NULL, src.c, ref.c, bw, bh, NULL, 0,
                                             (RV_Reduce)r, &rc), 0);
                assert_int_equal(rv_proc_box(kern(mgpu, box_cases[c].kernel), NULL, src.g, ref.g, bw, bh, NULL, 0,
                                             (RV_Reduce)r, &rg), 0);
                const int wx = r == RV_MIN ? px[pi] : 0, wy = r == RV_MIN ? 20 : 0;
                const double ws = r == RV_MIN ? 0.0 : 200.0 * 3 * bw * bh;
                if (rc.x != wx || rc.y != wy || rc.score != ws || rg.x != wx || rg.y != wy || rg.score != ws)
                    fail_msg("%s ties (patch at x=%d) reduce=%d: cpu %g (%d,%d), gpu %g (%d,%d), want %g (%d,%d)",
                             box_cases[c].kernel, px[pi], r, rc.score, rc.x, rc.y, rg.score, rg.x, rg.y, ws, wx, wy);
                g_checks++;
            }
            free_pair(&src);
            free_pair(&ref);
        }
    }
}

/* Cooperative raw kernel gridwait: a grid of as many blocks as
 * rv_kernel_resident_blocks() says (two block shapes), each waiting until
 * all have arrived: every block must read the full count (with fewer blocks
 * resident the launch would hang, the ctest timeout ending it). One block
 * more is refused with an error, and the context stays usable. (The CPU
 * backend's refusal: tests/core/test_ops.c.) */
static void test_raw_coop(void **state)
{
    (void)state;
    const RV_Kernel *k = kern(mgpu, "gridwait");
    for (int shape = 0; shape < 2; shape++) {
        RV_LaunchShape sh = {{1, 1, 1}, {shape ? 1024u : 64u, 1, 1}, shape ? 40000u : 0u};
        const int r = rv_kernel_resident_blocks(k, &sh);
        if (r < 1)
            fail_msg("rv_kernel_resident_blocks: %d (%s)", r, rv_context_error(gpu));
        RV_Buffer *cnt = NULL, *out = NULL;
        assert_int_equal(rv_buffer_create(gpu, 4, &cnt), 0);
        assert_int_equal(rv_buffer_create(gpu, (size_t)(r + 1) * 4, &out), 0);
        rv_gridwait_args a = {rv_buffer_address(cnt), rv_buffer_address(out)};
        sh.grid[0] = (unsigned)r;
        print_message("gridwait: %d resident blocks of %u threads, %u shared bytes\n", r, sh.block[0],
                      sh.shared_bytes);
        if (rv_launch_raw(k, &sh, &a, sizeof(a)) < 0)
            fail_msg("gridwait, %d blocks: %s", r, rv_context_error(gpu));
        unsigned *got = malloc((size_t)r * 4);
        assert_non_null(got);
        assert_int_equal(rv_buffer_download(out, 0, got, (size_t)r * 4), 0);
        for (int i = 0; i < r; i++)
            if (got[i] != (unsigned)r)
                fail_msg("gridwait, %d blocks: block %d read %u", r, i, got[i]);
        free(got);
        sh.grid[0] = (unsigned)r + 1;
        assert_true(rv_launch_raw(k, &sh, &a, sizeof(a)) < 0);
        assert_non_null(strstr(rv_context_error(gpu), "gridwait"));
        assert_int_equal(rv_context_sync(gpu), 0);
        rv_buffer_destroy(&cnt);
        rv_buffer_destroy(&out);
    }
}

/* Chained raw kernel chainmix: 64 launches ping-ponging two buffers, each
 * reading the word after its own index from what the launch before wrote,
 * against a reference computed here. On sm_90+ the backend launches it with
 * programmatic dependent launch; a pass that started reading before the
 * previous one finished, or overwrote what the previous one still read,
 * would show up as wrong words. */

static void test_raw_chained(void **state)
{
    (void)state;
    const int n = (1 << 21) + 7, passes = 64;
    const size_t bytes = (size_t)n * 4;
    uint32_t *start = malloc(bytes), *want = malloc(bytes), *tmp = malloc(bytes), *got = malloc(bytes);
    assert_non_null(start);
    assert_non_null(want);
    assert_non_null(tmp);
    assert_non_null(got);
    for (int i = 0; i < n; i++)
        start[i] = (uint32_t)i * 0x9e3779b9u ^ 0x5bd1e995u;
    /* the reference chain, in plain C */
    memcpy(want, start, bytes);
    for (int p = 0; p < passes; p++) {
        for (int i = 0; i < n; i++)
            tmp[i] = want[i + 1 < n ? i + 1 : 0] * 2654435761u + ((uint32_t)p * 7919u + 1u);
        memcpy(want, tmp, bytes);
    }
    for (int side = 0; side < 2; side++) {
        RV_Context *c = side ? gpu : cpu;
        RV_Buffer *b[2] = {NULL, NULL};
        assert_int_equal(rv_buffer_create(c, bytes, &b[0]), 0);
        assert_int_equal(rv_buffer_create(c, bytes, &b[1]), 0);
        assert_int_equal(rv_buffer_upload(b[0], 0, start, bytes), 0);
        const RV_Kernel *k = kern(side ? mgpu : mcpu, "chainmix");
        RV_LaunchShape sh = {{side ? 528u : 4u, 1, 1}, {side ? 256u : 1u, 1, 1}, 0};
        for (int p = 0; p < passes; p++) {
            rv_chainmix_args a = {rv_buffer_address(b[p & 1]), rv_buffer_address(b[(p + 1) & 1]), n,
                                  (uint32_t)p * 7919u + 1u};
            if (rv_launch_raw(k, &sh, &a, sizeof(a)) < 0)
                fail_msg("chainmix: %s", rv_context_error(c));
        }
        assert_int_equal(rv_buffer_download(b[passes & 1], 0, got, bytes), 0);
        rv_buffer_destroy(&b[0]);
        rv_buffer_destroy(&b[1]);
        int bad = 0, first = -1;
        for (int i = 0; i < n; i++)
            if (got[i] != want[i]) {
                if (first < 0)
                    first = i;
                bad++;
            }
        if (bad)
            fail_msg("chainmix (%s): %d of %d words differ from the reference, first at %d: %08x, "
                     "reference %08x", side ? "GPU" : "CPU", bad, n, first, got[first], want[first]);
        g_checks++;
    }
    free(start);
    free(want);
    free(tmp);
    free(got);
}

/* One pass of chainmix in plain C: out[i] = in[i + 1 (wrapping)] * 2654435761 + k. */
static void mix_ref(uint32_t *out, const uint32_t *in, int n, uint32_t k)
{
    for (int i = 0; i < n; i++)
        out[i] = in[i + 1 < n ? i + 1 : 0] * 2654435761u + k;
}

/*
 * Side queue (rv_side_begin / end / join): a chain on the context's queue, a
 * chain on the side queue that starts from the main chain's result (begin
 * must wait for it), more main work beside it that reads the same buffer,
 * and a last main pass after rv_side_join that reads the side chain's result
 * (join must wait for it). Both backends, against the chains in plain C; and
 * the misuse errors.
 */
static void test_side_queue(void **state)
{
    (void)state;
    const int n = (1 << 21) + 7, P = 8, Q = 24;
    const size_t bytes = (size_t)n * 4;
    uint32_t *start = malloc(bytes), *a = malloc(bytes), *b = malloc(bytes), *t = malloc(bytes), *got = malloc(bytes);
    assert_true(start && a && b && t && got);
    for (int i = 0; i < n; i++)
        start[i] = (uint32_t)i * 0x85ebca6bu ^ 0xc2b2ae35u;
    /* reference: main P passes -> M; side Q passes from M -> S; main Q passes from M -> A; last: S -> L */
    memcpy(a, start, bytes);
    for (int p = 0; p < P; p++) {
        mix_ref(t, a, n, (uint32_t)p);
        memcpy(a, t, bytes);
    }
    memcpy(b, a, bytes); /* M */
    for (int q = 0; q < Q; q++) {
        mix_ref(t, b, n, 1000u + (uint32_t)q);
        memcpy(b, t, bytes); /* S */
    }
    for (int q = 0; q < Q; q++) {
        mix_ref(t, a, n, 2000u + (uint32_t)q);
        memcpy(a, t, bytes); /* A */
    }
    mix_ref(t, b, n, 3000u); /* L */
    for (int side = 0; side < 2; side++) {
        RV_Context *c = side ? gpu : cpu;
        const RV_Kernel *k = kern(side ? mgpu : mcpu, "chainmix");
        RV_LaunchShape sh = {{side ? 528u : 4u, 1, 1}, {side ? 256u : 1u, 1, 1}, 0};
        RV_Buffer *bf[7] = {NULL};
        uint64_t ad[7];
        for (int i = 0; i < 7; i++) {
            assert_int_equal(rv_buffer_create(c, bytes, &bf[i]), 0);
            ad[i] = rv_buffer_address(bf[i]);
        }
        assert_int_equal(rv_buffer_upload(bf[0], 0, start, bytes), 0);
#define MIX(FROM, TO, K)                                                                  \
    do {                                                                                 \
        rv_chainmix_args ca_ = {ad[FROM], ad[TO], n, (uint32_t)(K)};                      \
        if (rv_launch_raw(k, &sh, &ca_, sizeof(ca_)) < 0)                                 \
            fail_msg("chainmix: %s", rv_context_error(c));                                \
    } while (0)
        /* misuse first: nothing is queued by these */
        assert_int_equal(rv_side_end(c), RV_EINVAL);
        assert_non_null(strstr(rv_context_error(c), "rv_side_begin first"));
        for (int p = 0; p < P; p++)
            MIX(p & 1, (p + 1) & 1, p);
        const int m = P & 1; /* buffer holding M */
        assert_int_equal(rv_side_begin(c), 0);
        assert_int_equal(rv_side_begin(c), RV_EINVAL);
        assert_non_null(strstr(rv_context_error(c), "do not nest"));
        assert_int_equal(rv_side_join(c), RV_EINVAL);
        for (int q = 0; q < Q; q++)
            MIX(q == 0 ? m : 2 + ((q + 1) & 1), 2 + (q & 1), 1000 + q);
        assert_int_equal(rv_side_end(c), 0);
        for (int q = 0; q < Q; q++)
            MIX(q == 0 ? m : 4 + ((q + 1) & 1), 4 + (q & 1), 2000 + q);
        assert_int_equal(rv_side_join(c), 0);
        MIX(2 + ((Q - 1) & 1), 6, 3000);
#undef MIX
        assert_int_equal(rv_buffer_download(bf[6], 0, got, bytes), 0);
        assert_memory_equal(got, t, bytes);
        assert_int_equal(rv_buffer_download(bf[4 + ((Q - 1) & 1)], 0, got, bytes), 0);
        assert_memory_equal(got, a, bytes);
        for (int i = 0; i < 7; i++)
            rv_buffer_destroy(&bf[i]);
        g_checks++;
    }
    free(start);
    free(a);
    free(b);
    free(t);
    free(got);
}

/* Raw kernel addk (+0.375) on plane 0 of a w x h float image, in place. */
static void launch_addk(const RV_Kernel *k, RV_Image *img, int w, int h)
{
    rv_addk_args a;
    memset(&a, 0, sizeof(a));
    ptrdiff_t pitch;
    assert_int_equal(rv_image_kernel_address(img, 0, RV_ACCESS_RW, &a.data, &pitch), 0);
    a.pitch = pitch;
    a.w = w;
    a.h = h;
    a.k = 0.375f;
    RV_LaunchShape sh = {{1, (unsigned)h, 1}, {128, 1, 1}, 0};
    if (rv_launch_raw(k, &sh, &a, sizeof(a)) < 0)
        fail_msg("addk (%s): %s", rv_kernel_name(k), rv_context_error(rv_image_context(img)));
}

/* Raw kernel addk on a float plane. */

static void test_raw(void **state)
{
    (void)state;
    const int sz[][2] = {{1, 1}, {17, 3}, {1919, 1081}};
    for (int z = 0; z < 3; z++) {
        pair p = make_pair(sz[z][0], sz[z][1], RV_FMT_GRAYF32, 900 + z, 1);
        for (int side = 0; side < 2; side++) {
            launch_addk(kern(side ? mgpu : mcpu, "addk"), side ? p.g : p.c, sz[z][0], sz[z][1]);
        }
        compare(&p, "raw addk");
        /* independent reference: input + k */
        pair q = make_pair(sz[z][0], sz[z][1], RV_FMT_GRAYF32, 900 + z, 1);
        ptrdiff_t p0, p1;
        const float *r = rv_image_read(q.c, 0, &p0);
        const float *g = rv_image_read(p.g, 0, &p1);
        for (int y = 0; y < sz[z][1]; y++)
            for (int x = 0; x < sz[z][0]; x++)
                assert_true(((const float *)((const char *)g + y * p1))[x] ==
                            ((const float *)((const char *)r + y * p0))[x] + 0.375f);
        free_pair(&p);
        free_pair(&q);
    }
}

/* addk (+0.375) on a copy of `in` (a GPU image) by kernel k; the result read back. */
static float *addk_gpu(const RV_Kernel *k, RV_Image *in, int w, int h)
{
    RV_Image *img;
    assert_int_equal(rv_image_create(gpu, w, h, RV_FMT_GRAYF32, &img), 0);
    assert_int_equal(rv_image_copy(img, in), 0);
    launch_addk(k, img, w, h);
    ptrdiff_t pitch;
    float *out = malloc((size_t)w * h * sizeof(float));
    assert_non_null(out);
    const char *r = rv_image_read(img, 0, &pitch);
    assert_non_null(r);
    for (int y = 0; y < h; y++)
        memcpy(out + (size_t)y * w, r + y * pitch, (size_t)w * sizeof(float));
    rv_image_destroy(&img);
    return out;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* The module's forms on the CUDA backend: by name, the fat binary where the
 * build made one (machine code, no JIT on a machine's first load), else the
 * PTX; an explicit .ptx path loads the PTX even beside a fat binary; a path
 * without extension takes the backend's first form. Both forms compute the
 * same, bit for bit. */
static void test_module_forms(void **state)
{
    (void)state;
    if (rv_test_base_arch()) {
        printf("test_module_forms: not in a base run (its GPU context loads compute_%d PTX by name)\n",
               rv_test_base_arch());
        skip();
    }
    const char *path = rv_module_path(mgpu);
#ifdef RV_TEST_FATBIN
    if (!ends_with(path, "/samples.fatbin"))
        fail_msg("module 'samples' loaded from %s, not its fat binary", path);
#else
    if (!ends_with(path, "/samples.ptx"))
        fail_msg("module 'samples' loaded from %s, not its PTX", path);
#endif
    char base[1024], ptx[1100];
    snprintf(base, sizeof(base), "%s", path);
    *strrchr(base, '.') = 0;
    snprintf(ptx, sizeof(ptx), "%s.ptx", base);

    RV_Module *mp = NULL, *mb = NULL;
    if (rv_module_load(gpu, ptx, &mp) < 0)
        fail_msg("%s", rv_context_error(gpu));
    assert_string_equal(rv_module_path(mp), ptx);
    if (rv_module_load(gpu, base, &mb) < 0)
        fail_msg("%s", rv_context_error(gpu));
    assert_ptr_equal(mb, mgpu); /* the same file: the same module */
    rv_module_unload(&mb);
#ifdef RV_TEST_FATBIN
    assert_ptr_not_equal(mp, mgpu);
#else
    assert_ptr_equal(mp, mgpu);
#endif

    const int w = 1000, h = 37;
    RV_Image *in;
    assert_int_equal(rv_image_create(gpu, w, h, RV_FMT_GRAYF32, &in), 0);
    rv_test_fill_random(in, 77);
    float *a = addk_gpu(kern(mgpu, "addk"), in, w, h);
    float *b = addk_gpu(kern(mp, "addk"), in, w, h);
    ptrdiff_t pitch;
    const char *r = rv_image_read(in, 0, &pitch);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const float want = ((const float *)(r + y * pitch))[x] + 0.375f;
            const float ga = a[(size_t)y * w + x], gb = b[(size_t)y * w + x];
            if (memcmp(&ga, &want, sizeof(float)) || memcmp(&gb, &want, sizeof(float)))
                fail_msg("addk at (%d, %d): %s %.9g, %s %.9g, want %.9g", x, y, rv_module_path(mgpu),
                         (double)ga, ptx, (double)gb, (double)want);
        }
    g_checks++;
    free(a);
    free(b);
    rv_image_destroy(&in);
    rv_module_unload(&mp);

#ifdef RV_TEST_FATBIN
    /* a fat binary older than the PTX beside it: still loaded, with a warning
     * (and the load time in the debug log) */
    char dir[] = "/tmp/rv_fatbin_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[3300], fat[1100], stale[1100];
    snprintf(fat, sizeof(fat), "%s.fatbin", base);
    snprintf(cmd, sizeof(cmd), "cp '%s' '%s' '%s/'", fat, ptx, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(stale, sizeof(stale), "%s/samples.ptx", dir);
    struct timespec ts[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
    assert_int_equal(utimensat(AT_FDCWD, stale, ts, 0), 0);
    snprintf(stale, sizeof(stale), "%s/samples.fatbin", dir);
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    assert_int_equal(utimensat(AT_FDCWD, stale, old, 0), 0);
    g_log[0] = 0;
    RV_Context *c = gpu_context_logged();
    snprintf(base, sizeof(base), "%s/samples", dir);
    RV_Module *ms = NULL;
    if (rv_module_load(c, base, &ms) < 0)
        fail_msg("%s", rv_context_error(c));
    assert_string_equal(rv_module_path(ms), stale);
    if (!strstr(g_log, "is older than") || !strstr(g_log, "cuModuleLoadDataEx took"))
        fail_msg("no stale fat binary warning or load time in the log:\n%s", g_log);
    rv_module_unload(&ms);
    rv_context_destroy(&c);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
#endif
}

/* References from the definitions (not through the CPU backend). */
static void test_independent_refs(void **state)
{
    (void)state;
    const int w = 1919, h = 1081;
    pair a = make_pair(w, h, RV_FMT_RGBA8, 42, 1), b = make_pair(w, h, RV_FMT_RGBA8, 43, 1);
    pair o = make_out(w, h, RV_FMT_RGBA8);
    assert_int_equal(rv_proc_pix(kern(mgpu, "gray"), o.g, a.g, NULL, 0), 0);
    ptrdiff_t pa, po, pb;
    const uint8_t *in = rv_image_read(a.c, 0, &pa);
    const uint8_t *out = rv_image_read(o.g, 0, &po);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = in + y * pa + 4 * x, *q = out + y * po + 4 * x;
            int v = (p[0] + p[1] + p[2]) / 3;
            if (q[0] != v || q[1] != v || q[2] != v || q[3] != p[3])
                fail_msg("gray (%d,%d)", x, y);
        }
    rv_threshold_params tp = {100};
    assert_int_equal(rv_comp_img(kern(mgpu, "diff"), o.g, a.g, b.g, &tp, sizeof(tp)), 0);
    const uint8_t *in2 = rv_image_read(b.c, 0, &pb);
    out = rv_image_read(o.g, 0, &po);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = in + y * pa + 4 * x, *p2 = in2 + y * pb + 4 * x, *q = out + y * po + 4 * x;
            int d = abs(p[0] - p2[0]) + abs(p[1] - p2[1]) + abs(p[2] - p2[2]);
            int v = d >= 100 ? 255 : 0;
            if (q[0] != v || q[1] != v || q[2] != v || q[3] != 255)
                fail_msg("diff (%d,%d)", x, y);
        }
    free_pair(&a);
    free_pair(&b);
    free_pair(&o);

    /* SAD template matching: the template cut out of the image is found */
    pair img = make_pair(395, 372, RV_FMT_RGBA8, 7, 1);
    RV_Image *tpl;
    assert_int_equal(rv_image_create(gpu, 70, 72, RV_FMT_RGBA8, &tpl), 0);
    ptrdiff_t pt, pi;
    uint8_t *t = rv_image_write(tpl, 0, &pt);
    const uint8_t *src = rv_image_read(img.c, 0, &pi);
    for (int y = 0; y < 72; y++)
        memcpy(t + y * pt, src + (y + 211) * pi + 4 * 123, 70 * 4);
    RV_BoxResult r;
    assert_int_equal(rv_proc_box(kern(mgpu, "sad"), NULL, img.g, tpl, 70, 72, NULL, 0, RV_MIN, &r), 0);
    assert_int_equal(r.x, 123);
    assert_int_equal(r.y, 211);
    assert_true(r.score == 0.0);
    assert_int_equal(r.positions, (long long)(395 - 70 + 1) * (372 - 72 + 1));
    rv_image_destroy(&tpl);
    free_pair(&img);
}

/* Host writes after a GPU operation reach the GPU; in-place procNbr works. */
static void test_coherence(void **state)
{
    (void)state;
    const RV_Kernel *inv = kern(mgpu, "invert8");
    RV_Image *a, *o;
    assert_int_equal(rv_image_create(gpu, 333, 77, RV_FMT_GRAY8, &a), 0);
    assert_int_equal(rv_image_create(gpu, 333, 77, RV_FMT_GRAY8, &o), 0);
    for (int round = 0; round < 3; round++) {
        ptrdiff_t p;
        uint8_t *d = rv_image_write(a, 0, &p);
        for (int y = 0; y < 77; y++)
            for (int x = 0; x < 333; x++)
                d[y * p + x] = (uint8_t)(x * 7 + y * 3 + round * 11);
        assert_int_equal(rv_proc_pix(inv, o, a, NULL, 0), 0);
        /* a second op on the GPU output: no host round trip needed */
        assert_int_equal(rv_proc_pix(inv, o, o, NULL, 0), 0);
        assert_int_equal(rv_proc_pix(inv, o, o, NULL, 0), 0);
        const uint8_t *r = rv_image_read(o, 0, &p);
        for (int y = 0; y < 77; y++)
            for (int x = 0; x < 333; x++)
                assert_int_equal(r[y * p + x], (uint8_t)(255 - (uint8_t)(x * 7 + y * 3 + round * 11)));
    }
    /* in place neighbourhood op equals the out-of-place one */
    pair s = make_pair(640, 480, RV_FMT_RGBA8, 99, 1);
    pair o2 = make_out(640, 480, RV_FMT_RGBA8);
    const RV_Kernel *em = kern(mgpu, "emboss");
    assert_int_equal(rv_proc_nbr(em, o2.g, s.g, NULL, 0), 0);
    assert_int_equal(rv_proc_nbr(em, s.g, s.g, NULL, 0), 0);
    assert_int_equal(rv_proc_nbr(kern(mcpu, "emboss"), s.c, s.c, NULL, 0), 0);
    compare(&s, "in-place emboss");
    RV_Image *tmp = o2.c;
    o2.c = s.c;
    compare(&o2, "out-of-place emboss");
    o2.c = tmp;
    free_pair(&s);
    free_pair(&o2);
    rv_image_destroy(&a);
    rv_image_destroy(&o);
}

/* Repeated operations reuse pooled device memory; out-of-memory is
 * RV_ENOMEM and leaves the context usable; PTX and symbol errors are clear. */
static void test_pool_oom_errors(void **state)
{
    (void)state;
    g_log[0] = 0;
    RV_Context *c = gpu_context_logged();
    RV_Module *m;
    assert_int_equal(rv_module_load(c, "samples", &m), 0);
    const RV_Kernel *k;
    assert_int_equal(rv_kernel_get(m, "gray", &k), 0);
    RV_Image *src;
    assert_int_equal(rv_image_create(c, 1280, 720, RV_FMT_RGBA8, &src), 0);
    rv_test_fill_random(src, 3);
    for (int i = 0; i < 200; i++) {
        RV_Image *dst;
        assert_int_equal(rv_image_create(c, 1280, 720, RV_FMT_RGBA8, &dst), 0);
        assert_int_equal(rv_proc_pix(k, dst, src, NULL, 0), 0);
        assert_non_null(rv_image_read(dst, 0, NULL));
        rv_image_destroy(&dst);
    }
    /* out of device memory */
    RV_Buffer *huge = NULL;
    int err = rv_buffer_create(c, (size_t)1 << 40, &huge);
    assert_int_equal(err, RV_ENOMEM);
    assert_null(huge);
    assert_non_null(strstr(rv_context_error(c), "GPU memory"));
    /* still usable */
    RV_Image *dst;
    assert_int_equal(rv_image_create(c, 1280, 720, RV_FMT_RGBA8, &dst), 0);
    assert_int_equal(rv_proc_pix(k, dst, src, NULL, 0), 0);
    const uint8_t *s = rv_image_read(src, 0, NULL), *d = rv_image_read(dst, 0, NULL);
    assert_non_null(d);
    assert_int_equal(d[0], (s[0] + s[1] + s[2]) / 3);

    /* missing kernel symbol */
    const RV_Kernel *nk = NULL;
    assert_int_equal(rv_kernel_get(m, "no_such_kernel", &nk), RV_ENOENT);
    assert_non_null(strstr(rv_context_error(c), "rvk_no_such_kernel"));
    assert_non_null(strstr(rv_context_error(c), rv_module_path(m)));

    /* malformed PTX */
    char path[] = "/tmp/rv_bad_ptx_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char ptx[64];
    snprintf(ptx, sizeof(ptx), "%s.ptx", path);
    FILE *f = fopen(ptx, "w");
    assert_non_null(f);
    fputs(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry rvk_x( { this is not ptx }\n", f);
    fclose(f);
    RV_Module *bad = NULL;
    err = rv_module_load(c, ptx, &bad);
    assert_int_equal(err, RV_EBADMSG);
    assert_null(bad);
    assert_non_null(strstr(rv_context_error(c), ptx));
    assert_non_null(strstr(rv_context_error(c), "JIT log"));
    unlink(ptx);
    unlink(path);

    rv_image_destroy(&src);
    rv_image_destroy(&dst);
    rv_module_unload(&m);
    rv_context_destroy(&c);
    /* the backend's statistics at destroy: "N cuMemAlloc calls, M ..." */
    const char *st = strstr(g_log, "cuMemAlloc calls");
    assert_non_null(st);
    if (st > g_log)
        st--; /* the space before "cuMemAlloc" */
    while (st > g_log && st[-1] >= '0' && st[-1] <= '9')
        st--;
    long allocs = strtol(st, NULL, 10);
    /* src, the dst bucket, box scratch: a handful, not 200 */
    if (allocs > 8)
        fail_msg("%ld cuMemAlloc calls for 201 operations (pool not reused); log:\n%s", allocs, g_log);
}

/* rv_buffer_upload_rows / rv_buffer_download_rows through cuMemcpy2D, and on the CPU */
static void test_buffer_rows(void **state)
{
    (void)state;
    buffer_rows_check(gpu);
    buffer_rows_check(cpu);
}

/*
 * Copies between device buffers and pageable host memory of 4 MiB or more go
 * through the context's page-locked staging buffers (staged_copies_check.h);
 * the same copies with staging off (RAVIOLI_CUDA_STAGED=0, the driver's own
 * pageable copies). The debug log says which path ran.
 */
static void test_buffer_staged(void **state)
{
    (void)state;
    g_log[0] = 0;
    RV_Context *c = gpu_context_logged();
    staged_copies_check(c);
    rv_context_destroy(&c);
    if (!strstr(g_log, "pageable copies staged through"))
        fail_msg("the staged path did not run; log:\n%s", g_log);
    /* the driver's pageable copies, the same results */
    g_log[0] = 0;
    setenv("RAVIOLI_CUDA_STAGED", "0", 1);
    c = gpu_context_logged();
    unsetenv("RAVIOLI_CUDA_STAGED");
    staged_copies_check(c);
    rv_context_destroy(&c);
    if (strstr(g_log, "staged through"))
        fail_msg("staged with RAVIOLI_CUDA_STAGED=0; log:\n%s", g_log);
}

static int setup(void **state)
{
    (void)state;
    gpu = rv_test_gpu_context(); /* exits 77 without a GPU */
    cpu = rv_test_cpu_context(0);
    if (rv_module_load(cpu, "samples", &mcpu) < 0 || rv_module_load(gpu, "samples", &mgpu) < 0) {
        fprintf(stderr, "cannot load samples: cpu: %s / gpu: %s\n", rv_context_error(cpu), rv_context_error(gpu));
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    printf("%d comparisons\n", g_checks);
    rv_context_destroy(&cpu);
    rv_context_destroy(&gpu);
    return 0;
}

/* The samples module's code this run uses: the base architecture's in a
 * base run (rv_test.h). */
static void test_arch(void **state)
{
    (void)state;
    rv_test_check_arch(gpu, "samples", "chainmix");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arch),
        cmocka_unit_test(test_independent_refs),
        cmocka_unit_test(test_elem_ops),
        cmocka_unit_test(test_nbr_large),
        cmocka_unit_test(test_box_ops),
        cmocka_unit_test(test_box_ties),
        cmocka_unit_test(test_box_ties_sad),
        cmocka_unit_test(test_raw),
        cmocka_unit_test(test_module_forms),
        cmocka_unit_test(test_raw_chained),
        cmocka_unit_test(test_raw_coop),
        cmocka_unit_test(test_side_queue),
        cmocka_unit_test(test_coherence),
        cmocka_unit_test(test_pool_oom_errors),
        cmocka_unit_test(test_buffer_rows),
        cmocka_unit_test(test_buffer_staged),
    };
    /* decide skip before cmocka runs anything */
    RV_Context *probe = rv_test_gpu_context();
    rv_context_destroy(&probe);
    /* (a base run, ctest gpu_equivalence_sm<base>: every test on the samples
     * module's code for GPUs before sm_90, chained launches plainly; the
     * fat-binary forms are skipped) */
    return cmocka_run_group_tests(tests, setup, teardown);
}
