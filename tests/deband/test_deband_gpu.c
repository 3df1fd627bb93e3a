/*
 * test_deband_gpu.c - the GPU kernels equal the CPU kernels bit for bit for
 * every sample mode, format and depth, and equal the scalar reference on
 * unaligned planes (scalar-store path). Skipped (77) without a GPU.
 */
#include "rv_test.h"
#include "deband_ref.h"

#include <ravioli/deband_kernel.h>

static const int k_modes[5][2] = {{0, 1}, {1, 1}, {1, 0}, {2, 1}, {2, 0}};

static RV_Image *make_src(RV_Context *ctx, RV_Format fmt, int w, int h, uint64_t seed)
{
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, fmt, &img), 0);
    for (int p = 0; p < rv_image_planes(img); p++) {
        const int pw = rv_image_plane_width(img, p), ph = rv_image_plane_height(img, p);
        uint16_t *a = malloc((size_t)pw * ph * 2);
        assert_non_null(a);
        fill_test_plane(a, pw, ph, img_depth(img), p, seed);
        assert_int_equal(img_set_plane(img, p, a), 0);
        free(a);
    }
    return img;
}

/* Launches expected to overlap the grid before them where n would with the
 * sm_90 code: none in a base run (code for older GPUs: each grid waits for
 * the one before, rv_deband_overlapped) */
static int64_t ov(int64_t n)
{
    const int base = rv_test_base_arch();
    return base > 0 && base < 90 ? 0 : n;
}

/* Compares every plane of GPU image g with CPU image c. */
static void expect_same(RV_Image *g, RV_Image *c, const char *what)
{
    for (int p = 0; p < rv_image_planes(g); p++) {
        uint16_t *a = img_get_plane(g, p), *b = img_get_plane(c, p);
        assert_non_null(a);
        assert_non_null(b);
        const int pw = rv_image_plane_width(g, p), ph = rv_image_plane_height(g, p);
        for (int i = 0; i < pw * ph; i++)
            if (a[i] != b[i]) {
                fprintf(stderr, "%s: plane %d (%d,%d): gpu %u cpu %u\n", what, p, i % pw, i / pw, a[i], b[i]);
                fail();
            }
        free(a);
        free(b);
    }
}

static void test_gpu_equals_cpu(void **state)
{
    (void)state;
    RV_Context *gpu = rv_test_gpu_context();
    RV_Context *cpu = rv_test_cpu_context(0);
    static const RV_Format fmts[] = {RV_FMT_YUV420P8, RV_FMT_YUV444P8, RV_FMT_YUV420P16,
                                     RV_FMT_YUV444P16, RV_FMT_GRAY8};
    static const int depths[] = {0, 8, 16};
    static const int sizes[][2] = {{259, 131}, {1, 1}, {3, 2}, {130, 9}, {1280, 720}};
    int n = 0;
    RV_Deband *dg = NULL, *dc = NULL; /* one each: the module (PTX) is loaded once */
    assert_int_equal(rv_deband_create(gpu, &dg), 0);
    assert_int_equal(rv_deband_create(cpu, &dc), 0);
    for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
        for (int d = 0; d < 3; d++)
            for (int m = 0; m < 5; m++)
                for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
                    RV_DebandSettings s;
                    rv_deband_settings_default(&s);
                    s.sample_mode = k_modes[m][0];
                    s.blur_first = k_modes[m][1];
                    s.output_depth = depths[d];
                    s.interlaced = (int)(z & 1);
                    s.dynamic_grain = m & 1;
                    s.seed = (uint32_t)(f * 31 + z);
                    s.cr = 90;
                    /* tiled (shared-memory) kernels up to range 32, __ldg kernels above */
                    static const int ranges[] = {3, 34, 17, 36, 32};
                    s.range = ranges[z];
                    assert_int_equal(rv_deband_configure(dg, &s), 0);
                    assert_int_equal(rv_deband_configure(dc, &s), 0);
                    const int w = sizes[z][0], h = sizes[z][1];
                    RV_Image *sg = make_src(gpu, fmts[f], w, h, f + z);
                    RV_Image *sc = make_src(cpu, fmts[f], w, h, f + z);
                    RV_Image *og = NULL, *oc = NULL;
                    const RV_Format fo = rv_deband_output_format(dg, fmts[f]);
                    assert_int_equal(rv_image_create(gpu, w, h, fo, &og), 0);
                    assert_int_equal(rv_image_create(cpu, w, h, fo, &oc), 0);
                    int err = rv_deband_apply(dg, og, sg, 3);
                    if (err < 0)
                        fprintf(stderr, "gpu apply: %s\n", rv_deband_error(dg));
                    assert_int_equal(err, 0);
                    assert_int_equal(rv_deband_apply(dc, oc, sc, 3), 0);
                    char what[96];
                    snprintf(what, sizeof(what), "%s %dx%d d%d mode %d/%d", rv_format_info(fmts[f])->name,
                             w, h, depths[d], s.sample_mode, s.blur_first);
                    expect_same(og, oc, what);
                    rv_image_destroy(&sg);
                    rv_image_destroy(&sc);
                    rv_image_destroy(&og);
                    rv_image_destroy(&oc);
                    n++;
                }
    rv_deband_destroy(&dg);
    rv_deband_destroy(&dc);
    printf("deband: GPU = CPU bit for bit in %d configurations\n", n);
    rv_context_destroy(&cpu);
    rv_context_destroy(&gpu);
}

/* Unaligned device planes (odd addresses and pitches for 8-bit, 2-byte
 * aligned for 16-bit): the scalar-store path, against the reference. */
static void test_gpu_unaligned_planes(void **state)
{
    (void)state;
    RV_Context *gpu = rv_test_gpu_context();
    RV_Module *mod = NULL;
    assert_int_equal(rv_module_load(gpu, "deband", &mod), 0);
    static const char *const tags[] = {"m0", "m1b", "m1n", "m2b", "m2n"};
    static const int dd[4][2] = {{8, 8}, {8, 16}, {16, 16}, {16, 8}};
    const int w = 77, h = 23;
    int n = 0;
    for (int tiled = 0; tiled < 2; tiled++)
        for (int t = 0; t < 5; t++)
            for (int k = 0; k < 4; k++) {
                const int din = dd[k][0], dout = dd[k][1];
                const size_t bi = (size_t)din / 8, bo = (size_t)dout / 8;
                const size_t soff = bi, sp = bi == 2 ? (size_t)(2 * w + 6) : (size_t)w + 3;
                const size_t doff = bo, dp = bo == 2 ? (size_t)(2 * w + 2) : (size_t)w + 1;
                const size_t ssize = soff + sp * h + 8, dsize = doff + dp * h + 8;
                char name[64];
                snprintf(name, sizeof(name), "deband_%s_%dto%d%s", tags[t], din, dout, tiled ? "_s" : "");
                const RV_Kernel *kern = NULL;
                assert_int_equal(rv_kernel_get(mod, name, &kern), 0);
                RV_DebandSettings s;
                rv_deband_settings_default(&s);
                s.sample_mode = k_modes[t][0];
                s.blur_first = k_modes[t][1];
                s.range = tiled ? 32 : 60;
                s.seed = (uint32_t)(t * 4 + k);
                uint16_t *in = malloc((size_t)w * h * 2), *want = malloc((size_t)w * h * 2);
                unsigned char *hs = calloc(ssize, 1), *hd = calloc(dsize, 1);
                assert_true(in && want && hs && hd);
                fill_test_plane(in, w, h, din, 0, (uint64_t)t);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        if (bi == 2)
                            memcpy(hs + soff + y * sp + 2 * (size_t)x, &in[y * w + x], 2);
                        else
                            hs[soff + y * sp + (size_t)x] = (unsigned char)in[y * w + x];
                    }
                RV_Buffer *bs = NULL, *bd = NULL;
                assert_int_equal(rv_buffer_create(gpu, ssize, &bs), 0);
                assert_int_equal(rv_buffer_create(gpu, dsize, &bd), 0);
                assert_int_equal(rv_buffer_upload(bs, 0, hs, ssize), 0);
                assert_int_equal(rv_buffer_upload(bd, 0, hd, dsize), 0);
                rv_deband_args a;
                memset(&a, 0, sizeof(a));
                a.nplanes = 1;
                a.src[0] = rv_buffer_address(bs) + soff;
                a.dst[0] = rv_buffer_address(bd) + doff;
                a.spitch[0] = (int64_t)sp;
                a.dpitch[0] = (int64_t)dp;
                a.w[0] = w;
                a.h[0] = h;
                a.thr[0] = s.y * 16;
                a.grain[0] = s.grainy * 4;
                a.key_ref[0] = rv_deband_key_ref(s.seed, 0);
                a.key_grain[0] = rv_deband_key_grain(s.seed, 0, 0);
                a.range = s.range;
                a.interlaced = 0;
                a.vec_ok = 0;
                RV_LaunchShape sh;
                memset(&sh, 0, sizeof(sh));
                sh.block[0] = 32;
                sh.block[1] = 8;
                if (tiled) {
                    /* tiles of 32, 64, 96 or 128 rows; blocks: one a tile, or 1, 2
                     * sharing them (double buffering); exactly the tiles' dynamic
                     * shared memory (above 48 KiB for 128 rows of 16-bit samples) */
                    const int ntiles = rv_deband_tile_set(&a, 1 + (t + k) % 4);
                    const int blocks = k % 3 == 0 ? ntiles : k % 3 < ntiles ? k % 3 : ntiles;
                    sh.grid[0] = (unsigned)blocks;
                    sh.grid[1] = 1;
                    sh.shared_bytes = rv_deband_tile_smem_bytes(s.range, din == 16, a.tile_h32,
                                                                ntiles, (unsigned)blocks);
                } else {
                    sh.grid[0] = (unsigned)((w + 127) / 128);
                    sh.grid[1] = (unsigned)((h + 7) / 8);
                }
                sh.grid[2] = 1;
                if (rv_context_backend(gpu) == RV_BACKEND_CPU) { /* (the test run on a CPU context) */
                    sh.block[0] = 1024;
                    sh.block[1] = 1;
                    sh.grid[0] = 1;
                    sh.grid[1] = (unsigned)h;
                }
                assert_int_equal(rv_launch_raw(kern, &sh, &a, sizeof(a)), 0);
                assert_int_equal(rv_buffer_download(bd, 0, hd, dsize), 0);
                ref_deband_plane(in, want, w, h, din, dout, &s, 0, 0);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        unsigned got;
                        if (bo == 2) {
                            uint16_t v;
                            memcpy(&v, hd + doff + y * dp + 2 * (size_t)x, 2);
                            got = v;
                        } else {
                            got = hd[doff + y * dp + (size_t)x];
                        }
                        if (got != want[y * w + x]) {
                            fprintf(stderr, "%s unaligned (%d,%d): got %u want %u\n", name, x, y, got,
                                    want[y * w + x]);
                            fail();
                        }
                    }
                /* nothing written outside the rows */
                assert_int_equal(hd[0], 0);
                for (int y = 0; y < h; y++)
                    for (size_t i = doff + y * dp + (size_t)w * bo; i < doff + (y + 1) * dp; i++)
                        assert_int_equal(hd[i], 0);
                rv_buffer_destroy(&bs);
                rv_buffer_destroy(&bd);
                free(in);
                free(want);
                free(hs);
                free(hd);
                n++;
            }
    printf("deband: %d unaligned launches equal the reference\n", n);
    rv_module_unload(&mod);
    rv_context_destroy(&gpu);
}

/* The tiled entries on a 1280 x 720 frame with tiles of 64, 96, 128 rows
 * (interior tiles: the inner path) and blocks sharing the tiles (double
 * buffering), against the CPU module (rv_deband_apply on a CPU context). */
static void test_gpu_tile_shapes(void **state)
{
    (void)state;
    RV_Context *gpu = rv_test_gpu_context();
    RV_Context *cpu = rv_test_cpu_context(0);
    RV_Module *mod = NULL;
    assert_int_equal(rv_module_load(gpu, "deband", &mod), 0);
    RV_Deband *dc = NULL;
    assert_int_equal(rv_deband_create(cpu, &dc), 0);
    static const char *const tags[] = {"m0", "m1b", "m1n", "m2b", "m2n"};
    static const RV_Format fmts[] = {RV_FMT_YUV444P16, RV_FMT_YUV420P8};
    const int w = 1280, h = 720;
    int n = 0;
    for (int f = 0; f < 2; f++)
        for (int t = 0; t < 5; t++) {
            const int in16 = f == 0;
            RV_DebandSettings s;
            rv_deband_settings_default(&s);
            s.sample_mode = k_modes[t][0];
            s.blur_first = k_modes[t][1];
            s.range = t == 4 ? 32 : 15;
            s.seed = (uint32_t)(7 * t + f);
            assert_int_equal(rv_deband_configure(dc, &s), 0);
            RV_Image *sg = make_src(gpu, fmts[f], w, h, 40 + t);
            RV_Image *sc = make_src(cpu, fmts[f], w, h, 40 + t);
            RV_Image *og = NULL, *oc = NULL;
            assert_int_equal(rv_image_create(gpu, w, h, fmts[f], &og), 0);
            assert_int_equal(rv_image_create(cpu, w, h, fmts[f], &oc), 0);
            assert_int_equal(rv_deband_apply(dc, oc, sc, 0), 0);
            char name[64];
            snprintf(name, sizeof(name), "deband_%s_%dto%d_s", tags[t], in16 ? 16 : 8, in16 ? 16 : 8);
            const RV_Kernel *kern = NULL;
            assert_int_equal(rv_kernel_get(mod, name, &kern), 0);
            rv_deband_args a;
            memset(&a, 0, sizeof(a));
            a.nplanes = rv_image_planes(sg);
            a.range = s.range;
            a.vec_ok = 1;
            a.src_words = 2;
            const int thr[3] = {s.y, s.cb, s.cr};
            for (int p = 0; p < a.nplanes; p++) {
                ptrdiff_t sp = 0, dp = 0;
                assert_int_equal(rv_image_kernel_address(sg, p, RV_ACCESS_READ, &a.src[p], &sp), 0);
                assert_int_equal(rv_image_kernel_address(og, p, RV_ACCESS_WRITE, &a.dst[p], &dp), 0);
                if ((a.src[p] | (uint64_t)sp) & 15u)
                    a.src_words = 1;
                a.spitch[p] = sp;
                a.dpitch[p] = dp;
                a.w[p] = rv_image_plane_width(sg, p);
                a.h[p] = rv_image_plane_height(sg, p);
                a.thr[p] = thr[p] * 16;
                a.grain[p] = (p ? s.grainc : s.grainy) * 4;
                a.key_ref[p] = rv_deband_key_ref(s.seed, p);
                a.key_grain[p] = rv_deband_key_grain(s.seed, p, 0);
            }
            for (int h32 = 2; h32 <= 4; h32++) {
                const int ntiles = rv_deband_tile_set(&a, h32);
                const unsigned blocks = (h32 + t) % 2 ? (unsigned)ntiles : 7u;
                RV_LaunchShape sh;
                memset(&sh, 0, sizeof(sh));
                sh.block[0] = 32;
                sh.block[1] = 8;
                sh.block[2] = 1;
                sh.grid[0] = blocks;
                sh.grid[1] = 1;
                sh.grid[2] = 1;
                sh.shared_bytes = rv_deband_tile_smem_bytes(s.range, in16, h32, ntiles, blocks);
                assert_int_equal(rv_launch_raw(kern, &sh, &a, sizeof(a)), 0);
                for (int p = 0; p < a.nplanes; p++) { /* dst written by the launch */
                    ptrdiff_t dp;
                    assert_int_equal(rv_image_kernel_address(og, p, RV_ACCESS_WRITE, &a.dst[p], &dp), 0);
                }
                for (int p = 0; p < a.nplanes; p++) {
                    uint16_t *x = img_get_plane(og, p), *y = img_get_plane(oc, p);
                    assert_non_null(x);
                    assert_non_null(y);
                    const int pw = a.w[p], ph = a.h[p];
                    for (int i = 0; i < pw * ph; i++)
                        if (x[i] != y[i]) {
                            fprintf(stderr, "%s tiles of %d rows, %u blocks, plane %d (%d,%d): gpu %u cpu %u\n",
                                    name, 32 * h32, blocks, p, i % pw, i / pw, x[i], y[i]);
                            fail();
                        }
                    free(x);
                    free(y);
                }
                n++;
            }
            rv_image_destroy(&sg);
            rv_image_destroy(&sc);
            rv_image_destroy(&og);
            rv_image_destroy(&oc);
        }
    printf("deband: %d tile-shape launches equal the CPU module\n", n);
    rv_deband_destroy(&dc);
    rv_module_unload(&mod);
    rv_context_destroy(&cpu);
    rv_context_destroy(&gpu);
}

/* 40 frames into a ring of 3 outputs og[i % 3] from src[i % 3] (frame
 * indices from f0), on the GPU (dg) and the CPU (dc): each output is
 * rewritten every third frame (WAW), which waits before its stores; the two
 * between overlap (the first frame waits: other work came before it). */
static void ring_of_3(RV_Deband *dg, RV_Deband *dc, RV_Image **og, RV_Image **oc, RV_Image **sg,
                      RV_Image **sc, int f0, const char *what)
{
    const int64_t o0 = rv_deband_overlapped(dg);
    for (int i = 0; i < 40; i++) {
        assert_int_equal(rv_deband_apply(dg, og[i % 3], sg[i % 3], f0 + i), 0);
        assert_int_equal(rv_deband_apply(dc, oc[i % 3], sc[i % 3], f0 + i), 0);
    }
    assert_int_equal(rv_deband_overlapped(dg) - o0, ov(26));
    for (int i = 0; i < 3; i++)
        expect_same(og[i], oc[i], what);
}

/* Frames debanded back to back (rv_deband_overlapped): independent ones
 * start without waiting for the previous grid; a frame that reads the
 * previous output (RAW), writes the previous source (WAR) or output (WAW),
 * or follows other queued work, waits. Every result equals the CPU's. */
static void test_gpu_chained_frames(void **state)
{
    (void)state;
    RV_Context *gpu = rv_test_gpu_context();
    RV_Context *cpu = rv_test_cpu_context(0);
    enum { N = 6 };
    const int w = 1920, h = 1080;
    const RV_Format f = RV_FMT_YUV444P16; /* out = in: outputs can be inputs */
    RV_Deband *dg = NULL, *dc = NULL;
    assert_int_equal(rv_deband_create(gpu, &dg), 0);
    assert_int_equal(rv_deband_create(cpu, &dc), 0);
    RV_DebandSettings s;
    rv_deband_settings_default(&s); /* mode 2, range 15: the tiled entries */
    s.dynamic_grain = 1;            /* the frame index matters: no two frames alike */
    assert_int_equal(rv_deband_configure(dg, &s), 0);
    assert_int_equal(rv_deband_configure(dc, &s), 0);
    RV_Image *sg[N], *sc[N], *og[N], *oc[N];
    for (int i = 0; i < N; i++) {
        sg[i] = make_src(gpu, f, w, h, 100 + i);
        sc[i] = make_src(cpu, f, w, h, 100 + i);
        assert_int_equal(rv_image_create(gpu, w, h, f, &og[i]), 0);
        assert_int_equal(rv_image_create(cpu, w, h, f, &oc[i]), 0);
    }
    /* place every image on the device first (uploads are queued work) */
    for (int i = 0; i < N; i++) {
        ptrdiff_t pitch;
        uint64_t addr;
        assert_int_equal(rv_image_kernel_address(sg[i], 0, RV_ACCESS_READ, &addr, &pitch), 0);
        assert_int_equal(rv_image_kernel_address(og[i], 0, RV_ACCESS_WRITE, &addr, &pitch), 0);
    }
    assert_int_equal(rv_context_sync(gpu), 0);

    /* 1. independent frames: all but the first overlap */
    int64_t o0 = rv_deband_overlapped(dg);
    for (int i = 0; i < N; i++) {
        const uint64_t q = rv_context_queued(gpu);
        assert_int_equal(rv_deband_apply(dg, og[i], sg[i], i), 0);
        assert_true(rv_context_queued(gpu) > q); /* the launch was queued */
        assert_int_equal(rv_deband_apply(dc, oc[i], sc[i], i), 0);
    }
    assert_int_equal(rv_deband_overlapped(dg) - o0, ov(N - 1));
    for (int i = 0; i < N; i++)
        expect_same(og[i], oc[i], "independent frames");

    /* 2. RAW: each frame debands the previous output (og[0] -> og[1] -> ...) */
    assert_int_equal(rv_deband_apply(dg, og[0], sg[0], 7), 0);
    assert_int_equal(rv_deband_apply(dc, oc[0], sc[0], 7), 0);
    o0 = rv_deband_overlapped(dg);
    for (int i = 1; i < N; i++) {
        assert_int_equal(rv_deband_apply(dg, og[i], og[i - 1], 7 + i), 0);
        assert_int_equal(rv_deband_apply(dc, oc[i], oc[i - 1], 7 + i), 0);
    }
    assert_int_equal(rv_deband_overlapped(dg), o0);
    for (int i = 0; i < N; i++)
        expect_same(og[i], oc[i], "each frame from the previous output");

    /* 3. WAR: the next frame writes the source the previous one reads; WAW:
     * it writes the previous one's output; then an independent frame that
     * overlaps again */
    o0 = rv_deband_overlapped(dg);
    assert_int_equal(rv_deband_apply(dg, og[0], sg[0], 20), 0);
    assert_int_equal(rv_deband_apply(dc, oc[0], sc[0], 20), 0);
    assert_int_equal(rv_deband_apply(dg, sg[0], sg[1], 21), 0); /* WAR on sg[0] */
    assert_int_equal(rv_deband_apply(dc, sc[0], sc[1], 21), 0);
    assert_int_equal(rv_deband_apply(dg, sg[0], sg[2], 22), 0); /* WAW on sg[0] */
    assert_int_equal(rv_deband_apply(dc, sc[0], sc[2], 22), 0);
    assert_int_equal(rv_deband_overlapped(dg), o0);
    assert_int_equal(rv_deband_apply(dg, og[3], sg[3], 23), 0); /* disjoint: overlaps */
    assert_int_equal(rv_deband_apply(dc, oc[3], sc[3], 23), 0);
    assert_int_equal(rv_deband_overlapped(dg), o0 + ov(1));
    expect_same(og[0], oc[0], "the frame whose source the next one overwrote");
    expect_same(sg[0], sc[0], "two frames written to one image");
    expect_same(og[3], oc[3], "an independent frame after them");

    /* 4. other work queued in between (an upload): the next frame waits */
    o0 = rv_deband_overlapped(dg);
    assert_int_equal(rv_deband_apply(dg, og[4], sg[4], 30), 0);
    assert_int_equal(rv_deband_apply(dc, oc[4], sc[4], 30), 0);
    RV_Image *tmp = make_src(gpu, f, w, h, 999);
    ptrdiff_t pitch;
    uint64_t addr;
    assert_int_equal(rv_image_kernel_address(tmp, 0, RV_ACCESS_READ, &addr, &pitch), 0);
    assert_int_equal(rv_deband_apply(dg, og[5], sg[5], 31), 0);
    assert_int_equal(rv_deband_apply(dc, oc[5], sc[5], 31), 0);
    assert_int_equal(rv_deband_overlapped(dg), o0);
    expect_same(og[5], oc[5], "a frame after other work");
    rv_image_destroy(&tmp);

    /* 5. a ring of 3 outputs over 40 frames: each output is rewritten
     * every third frame (WAW), which waits before its stores; the two
     * between overlap (the first frame follows the read-back above: it
     * waits) */
    ring_of_3(dg, dc, og, oc, sg + 3, sc + 3, 40, "a ring of 3 outputs");

    /* 6. ping-pong over 24 frames: each frame reads the previous output
     * (RAW: it waits) and overwrites the one before it */
    o0 = rv_deband_overlapped(dg);
    assert_int_equal(rv_deband_apply(dg, og[4], sg[4], 90), 0);
    assert_int_equal(rv_deband_apply(dc, oc[4], sc[4], 90), 0);
    for (int i = 0; i < 24; i++) {
        const int from = 4 + (i & 1), to = 5 - (i & 1);
        assert_int_equal(rv_deband_apply(dg, og[to], og[from], 91 + i), 0);
        assert_int_equal(rv_deband_apply(dc, oc[to], oc[from], 91 + i), 0);
    }
    assert_int_equal(rv_deband_overlapped(dg), o0);
    expect_same(og[4], oc[4], "ping-pong");
    expect_same(og[5], oc[5], "ping-pong");

    /* 7. 40 frames over 20 disjoint sets: a full chain (16 grids) makes the
     * next frame wait before its stores, every 16th */
    RV_Image *rg[20], *rc[20];
    for (int i = 0; i < 20; i++) {
        rg[i] = make_src(gpu, f, 256, 64, 300 + i);
        rc[i] = make_src(cpu, f, 256, 64, 300 + i);
    }
    RV_Image *qg[20], *qc[20];
    for (int i = 0; i < 20; i++) {
        assert_int_equal(rv_image_create(gpu, 256, 64, f, &qg[i]), 0);
        assert_int_equal(rv_image_create(cpu, 256, 64, f, &qc[i]), 0);
        /* (on the device before the frames: uploads are queued work) */
        ptrdiff_t qp;
        uint64_t qa;
        assert_int_equal(rv_image_kernel_address(rg[i], 0, RV_ACCESS_READ, &qa, &qp), 0);
        assert_int_equal(rv_image_kernel_address(qg[i], 0, RV_ACCESS_WRITE, &qa, &qp), 0);
    }
    o0 = rv_deband_overlapped(dg);
    for (int i = 0; i < 40; i++) {
        assert_int_equal(rv_deband_apply(dg, qg[i % 20], rg[i % 20], 200 + i), 0);
        assert_int_equal(rv_deband_apply(dc, qc[i % 20], rc[i % 20], 200 + i), 0);
    }
    /* frame 0 waits (the uploads before it), 16 and 32 find the chain
     * full and start a new one; frames 20 .. 31 rewrite the outputs of
     * 0 .. 11, which are no longer in the chain (16 .. 19 and on): all
     * others overlap */
    assert_int_equal(rv_deband_overlapped(dg) - o0, ov(37));
    for (int i = 0; i < 20; i++) {
        expect_same(qg[i], qc[i], "frames past a full chain");
        rv_image_destroy(&rg[i]);
        rv_image_destroy(&rc[i]);
        rv_image_destroy(&qg[i]);
        rv_image_destroy(&qc[i]);
    }

    /* 8. the ring of part 5 with a filter whose waiting frames compute
     * nothing before their wait (RAVIOLI_DEBAND_DEFER=0; part 5's defer
     * where it pays, rv_deband_defer_pays): the same results */
    RV_Deband *dn = NULL;
    assert_int_equal(setenv("RAVIOLI_DEBAND_DEFER", "0", 1), 0);
    assert_int_equal(rv_deband_create(gpu, &dn), 0);
    assert_int_equal(unsetenv("RAVIOLI_DEBAND_DEFER"), 0);
    assert_int_equal(rv_deband_configure(dn, &s), 0);
    ring_of_3(dn, dc, og, oc, sg + 3, sc + 3, 140,
              "a ring of 3 outputs, nothing computed before the waits");
    rv_deband_destroy(&dn);

    for (int i = 0; i < N; i++) {
        rv_image_destroy(&sg[i]);
        rv_image_destroy(&sc[i]);
        rv_image_destroy(&og[i]);
        rv_image_destroy(&oc[i]);
    }
    assert_int_equal(rv_deband_overlapped(dc), 0); /* the CPU backend queues nothing */
    rv_deband_destroy(&dg);
    rv_deband_destroy(&dc);
    rv_context_destroy(&cpu);
    rv_context_destroy(&gpu);
}

/* The module's code a run uses (a base run, ctest test_deband_gpu_sm<base>:
 * the code for GPUs before sm_90, which the tests above then check against
 * the CPU, frames one after another included). */
static void test_gpu_arch(void **state)
{
    (void)state;
    RV_Context *gpu = rv_test_gpu_context();
    rv_test_check_arch(gpu, "deband", "deband_m2b_8to8_s");
    rv_context_destroy(&gpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_arch),
        cmocka_unit_test(test_gpu_equals_cpu),
        cmocka_unit_test(test_gpu_unaligned_planes),
        cmocka_unit_test(test_gpu_tile_shapes),
        cmocka_unit_test(test_gpu_chained_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
