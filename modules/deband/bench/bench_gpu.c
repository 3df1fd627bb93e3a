/*
 * rv-bench-gpu-deband - GPU deband kernel time against the bandwidth floor.
 *
 * The floor of a frame is (bytes read + bytes written, each plane once) /
 * the device-to-device copy bandwidth measured in the same run with the
 * module's 16-byte copy kernel. Inputs rotate over enough frames to exceed
 * the L2 cache. Timing: many launches queued back to back, then one
 * rv_context_sync, wall clock; median of 5 such runs. "apply" goes through
 * rv_deband_apply, whose frames (other images each) overlap on the GPU
 * (rv_deband_overlapped); "launch" calls rv_launch_raw with prepared
 * arguments whose grids each wait for the previous one (args.independent
 * 0), i.e. one frame at a time (DEBAND_BENCH_INDEP=1: RV_DEBAND_NO_WAIT |
 * RV_DEBAND_EARLY_RELEASE, every grid overlapping the previous one).
 * DEBAND_BENCH_CASES (environment): the cases to run, their indices in
 * cases[] below separated by commas (e.g. "3,0"; default all).
 * DEBAND_BENCH_SETS: frame sets rotated (default: enough for 256 MB).
 * DEBAND_BENCH_FRAMES: the least frames a timed run queues (default 128).
 */
#include "bench_common.h"

#include <ravioli/deband_kernel.h>

#define NRUNS 5

static RV_Context *g_ctx;

static double time_copy_bw(RV_Module *mod)
{
    const RV_Kernel *k = NULL;
    if (rv_kernel_get(mod, "deband_copy", &k) < 0)
        return 0;
    const size_t n = (size_t)512 << 20;
    RV_Buffer *a = NULL, *b = NULL;
    if (rv_buffer_create(g_ctx, n, &a) < 0 || rv_buffer_create(g_ctx, n, &b) < 0)
        return 0;
    rv_deband_copy_args ca = {rv_buffer_address(a), rv_buffer_address(b), n / 16};
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.block[0] = 256;
    sh.grid[0] = 132 * 16;
    double t[NRUNS];
    for (int w = 0; w < 3; w++)
        rv_launch_raw(k, &sh, &ca, sizeof(ca));
    rv_context_sync(g_ctx);
    for (int r = 0; r < NRUNS; r++) {
        const double t0 = bench_now();
        for (int i = 0; i < 10; i++)
            rv_launch_raw(k, &sh, &ca, sizeof(ca));
        rv_context_sync(g_ctx);
        t[r] = (bench_now() - t0) / 10;
    }
    rv_buffer_destroy(&a);
    rv_buffer_destroy(&b);
    return 2.0 * (double)n / bench_median(t, NRUNS);
}

/* Frames a timed run queues: a multiple of nsets, and at least
 * DEBAND_BENCH_FRAMES (default 128), so that the run's fixed part (the
 * first frame's start, the last one's tail, the sync) weighs little: with
 * 4K 16-bit frames (3 sets) and 12 frames a run, it had added 1-1.5 us a
 * frame (docs/perf/deband.md, run N). */
static int frames_per_run(int nsets, double bytes)
{
    const char *fe = getenv("DEBAND_BENCH_FRAMES");
    const int least = fe && atoi(fe) > 0 ? atoi(fe) : 128;
    int k = bytes < 20e6 ? 20 : 4;
    if (k * nsets < least)
        k = (least + nsets - 1) / nsets;
    return k * nsets;
}

typedef struct {
    int w, h;
    RV_Format fin;
    int out_depth;
} bcase;

/* FNV-1a over the rows of all planes of img (downloaded): equal outputs */
static uint64_t img_hash(RV_Image *img)
{
    uint64_t hsh = 1469598103934665603ull;
    const int bpp = rv_format_info(rv_image_format(img))->sample_bytes;
    for (int p = 0; p < rv_image_planes(img); p++) {
        ptrdiff_t pitch = 0;
        const unsigned char *b = rv_image_read(img, p, &pitch);
        if (!b)
            return 0;
        const size_t rb = (size_t)rv_image_plane_width(img, p) * (size_t)bpp;
        for (int y = 0; y < rv_image_plane_height(img, p); y++)
            for (size_t i = 0; i < rb; i++)
                hsh = (hsh ^ b[(size_t)y * (size_t)pitch + i]) * 1099511628211ull;
    }
    return hsh;
}

/* marks dst device-current again (written by a raw launch) */
static void touch_dst(RV_Image *img)
{
    for (int p = 0; p < rv_image_planes(img); p++) {
        uint64_t ad;
        ptrdiff_t pt;
        rv_image_kernel_address(img, p, RV_ACCESS_WRITE, &ad, &pt);
    }
}

/* median over NRUNS of reps prepared launches (us) */
static double time_launches(const RV_Kernel *k, const RV_LaunchShape *sh, const rv_deband_args *args,
                            int nsets, int reps)
{
    double tl[NRUNS];
    for (int i = 0; i < nsets; i++)
        rv_launch_raw(k, sh, &args[i], sizeof(args[0]));
    rv_context_sync(g_ctx);
    for (int r = 0; r < NRUNS; r++) {
        const double t0 = bench_now();
        for (int i = 0; i < reps; i++)
            rv_launch_raw(k, sh, &args[i % nsets], sizeof(args[0]));
        rv_context_sync(g_ctx);
        tl[r] = (bench_now() - t0) / reps;
    }
    return bench_median(tl, NRUNS) * 1e6;
}

/* The copy kernel on a frame's bytes, same rotation and timing as the
 * deband launches: n bytes read and n written, n = (in + out bytes) / 2
 * (16-byte units). What a kernel that moves exactly those bytes takes at
 * this frame size, launch and tail included (us); 0 if it cannot run. */
static double time_copy_frame(RV_Module *mod, double bytes, int nsets, int reps)
{
    const RV_Kernel *k = NULL;
    if (rv_kernel_get(mod, "deband_copy", &k) < 0)
        return 0;
    const uint64_t n16 = (uint64_t)ceil(bytes / 2 / 16);
    RV_Buffer **b = calloc((size_t)nsets * 2, sizeof(*b));
    rv_deband_copy_args *ca = calloc((size_t)nsets, sizeof(*ca));
    double us = 0;
    if (!b || !ca)
        goto out;
    for (int i = 0; i < 2 * nsets; i++)
        if (rv_buffer_create(g_ctx, (size_t)n16 * 16, &b[i]) < 0)
            goto out;
    for (int i = 0; i < nsets; i++)
        ca[i] = (rv_deband_copy_args){rv_buffer_address(b[2 * i]), rv_buffer_address(b[2 * i + 1]), n16};
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.block[0] = 256;
    sh.block[1] = sh.block[2] = 1;
    const uint64_t want = (n16 + 255) / 256;
    sh.grid[0] = (unsigned)(want < 132 * 16 ? want : 132 * 16);
    sh.grid[1] = sh.grid[2] = 1;
    double t[NRUNS];
    for (int i = 0; i < nsets; i++)
        rv_launch_raw(k, &sh, &ca[i], sizeof(ca[0]));
    rv_context_sync(g_ctx);
    for (int r = 0; r < NRUNS; r++) {
        const double t0 = bench_now();
        for (int i = 0; i < reps; i++)
            rv_launch_raw(k, &sh, &ca[i % nsets], sizeof(ca[0]));
        rv_context_sync(g_ctx);
        t[r] = (bench_now() - t0) / reps;
    }
    us = bench_median(t, NRUNS) * 1e6;
out:
    if (b)
        for (int i = 0; i < 2 * nsets; i++)
            rv_buffer_destroy(&b[i]);
    free(b);
    free(ca);
    return us;
}

static const char *sz_of(const bcase *bc)
{
    static char b[16];
    snprintf(b, sizeof(b), "%dx%d", bc->w, bc->h);
    return b;
}

int main(int argc, char **argv)
{
    /* --sweep: also time launch shapes of the tiled entries (checked equal) */
    const int sweep = argc > 1 && strcmp(argv[1], "--sweep") == 0;
    int sweep_bad = 0;
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CUDA;
    s.log_level = RV_LOG_WARN;
    if (rv_context_create(&g_ctx, &s) < 0) {
        printf("rv-bench-gpu-deband: no usable GPU (CUDA context failed): skipped\n");
        return 77;
    }
    RV_Module *mod = NULL;
    if (rv_module_load(g_ctx, "deband", &mod) < 0) {
        fprintf(stderr, "%s\n", rv_context_error(g_ctx));
        return 1;
    }
    const double bw = time_copy_bw(mod);
    printf("device-to-device copy (16-byte kernel, 2 x 512 MiB): %.0f GB/s (read + write)\n", bw / 1e9);
    if (bw <= 0)
        return 1;
    static const bcase cases[] = {
        {1920, 1080, RV_FMT_YUV420P8, 8},   {1920, 1080, RV_FMT_YUV444P16, 16},
        {3840, 2160, RV_FMT_YUV420P8, 8},   {3840, 2160, RV_FMT_YUV444P16, 16},
        {1920, 1080, RV_FMT_YUV420P8, 16},  {3840, 2160, RV_FMT_YUV420P8, 16},
        {1280, 720, RV_FMT_YUV420P8, 8},    {640, 480, RV_FMT_YUV420P8, 8},
        {1280, 720, RV_FMT_YUV444P16, 16},
    };
    static const int modes[5][2] = {{0, 1}, {1, 1}, {1, 0}, {2, 1}, {2, 0}};
    static const char *const mname[5] = {"m0", "m1b", "m1n", "m2b", "m2n"};
    const int ranges[2] = {15, 40}; /* default (tiled kernels), and > 32 (__ldg kernels) */
    printf("\n%-10s %-22s %-10s %10s %10s %10s %9s %9s %9s %9s %9s %6s\n", "size", "format", "mode", "apply us",
           "launch us", "floor us", "floor/ap", "floor/ln", "copy us", "copy/ln", "Mpx/s", "ovl");
    const char *sel = getenv("DEBAND_BENCH_CASES");
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        if (sel && *sel) {
            int want = 0;
            for (const char *q = sel; *q;) {
                char *e;
                const long v = strtol(q, &e, 10);
                if (e == q)
                    break;
                if (v == (long)c)
                    want = 1;
                q = *e == ',' ? e + 1 : e;
            }
            if (!want)
                continue;
        }
        const bcase *bc = &cases[c];
        RV_Deband *db = NULL;
        if (rv_deband_create(g_ctx, &db) < 0)
            return 1;
        RV_DebandSettings ds;
        rv_deband_settings_default(&ds);
        ds.output_depth = bc->out_depth;
        rv_deband_configure(db, &ds);
        const RV_Format fout = rv_deband_output_format(db, bc->fin);
        const double bytes = bench_frame_bytes(bc->w, bc->h, bc->fin) + bench_frame_bytes(bc->w, bc->h, fout);
        int nsets = (int)ceil(256e6 / bytes);
        const char *se = getenv("DEBAND_BENCH_SETS"); /* frame sets rotated (default: > 256 MB) */
        if (se && atoi(se) > 0)
            nsets = atoi(se);
        if (nsets < 2)
            nsets = 2;
        RV_Image **src = calloc((size_t)nsets, sizeof(*src)), **dst = calloc((size_t)nsets, sizeof(*dst));
        rv_deband_args *args = calloc((size_t)nsets, sizeof(*args));
        for (int i = 0; i < nsets; i++) {
            if (rv_image_create(g_ctx, bc->w, bc->h, bc->fin, &src[i]) < 0 ||
                rv_image_create(g_ctx, bc->w, bc->h, fout, &dst[i]) < 0 || bench_fill(src[i], i) < 0) {
                fprintf(stderr, "%s\n", rv_context_error(g_ctx));
                return 1;
            }
        }
        /* the same bytes through the copy kernel at this frame size */
        const int reps = frames_per_run(nsets, bytes);
        const double c_us = time_copy_frame(mod, bytes, nsets, reps);
        char fname[48];
        snprintf(fname, sizeof(fname), "%s->%s", rv_format_info(bc->fin)->name, rv_format_info(fout)->name);
        /* DEBAND_BENCH_ROWS="4,5": only these rows of each frame (0-4: m0, m1b, m1n,
         * m2b, m2n at range 15; 5, 6: m0, m2b at range 40), e.g. for a grid trace */
        const char *rsel = getenv("DEBAND_BENCH_ROWS");
        for (int mr = 0; mr < 7; mr++) {
            if (rsel && *rsel) {
                int want = 0;
                for (const char *q = rsel; *q; q++)
                    want |= *q == '0' + mr;
                if (!want)
                    continue;
            }
            /* all modes at range 15; m0 and m2b also at range 40 */
            const int m = mr < 5 ? mr : mr == 5 ? 0 : 3;
            const int tiled = mr < 5;
            ds.range = ranges[tiled ? 0 : 1];
            ds.sample_mode = modes[m][0];
            ds.blur_first = modes[m][1];
            rv_deband_configure(db, &ds);
            for (int i = 0; i < nsets; i++)
                if (rv_deband_apply(db, dst[i], src[i], i) < 0) {
                    fprintf(stderr, "%s\n", rv_deband_error(db));
                    return 1;
                }
            rv_context_sync(g_ctx);
            double ta[NRUNS];
            const int64_t ov0 = rv_deband_overlapped(db);
            for (int r = 0; r < NRUNS; r++) {
                const double t0 = bench_now();
                for (int i = 0; i < reps; i++)
                    rv_deband_apply(db, dst[i % nsets], src[i % nsets], i);
                rv_context_sync(g_ctx);
                ta[r] = (bench_now() - t0) / reps;
            }
            const double ovl = 100.0 * (double)(rv_deband_overlapped(db) - ov0) / (NRUNS * reps);
            /* prepared launches: the same arguments the library builds */
            char kname[64];
            static const char *const tags[3][2] = {{"m0", "m0"}, {"m1n", "m1b"}, {"m2n", "m2b"}};
            const int in16 = rv_format_info(bc->fin)->sample_bytes == 2, out16 = bc->out_depth == 16;
            snprintf(kname, sizeof(kname), "deband_%s_%dto%d%s", tags[ds.sample_mode][ds.blur_first],
                     in16 ? 16 : 8, out16 ? 16 : 8, tiled ? "_s" : ""); /* static grain: _s */
            const RV_Kernel *k = NULL;
            if (rv_kernel_get(mod, kname, &k) < 0)
                return 1;
            const int thr[3] = {ds.y, ds.cb, ds.cr};
            for (int i = 0; i < nsets; i++) {
                rv_deband_args *a = &args[i];
                memset(a, 0, sizeof(*a));
                a->nplanes = rv_image_planes(src[i]);
                a->range = ds.range;
                a->vec_ok = 1;
                a->src_words = 2; /* image planes: 16-byte aligned, pitch too */
                for (int p = 0; p < a->nplanes; p++) {
                    ptrdiff_t sp, dp;
                    rv_image_kernel_address(src[i], p, RV_ACCESS_READ, &a->src[p], &sp);
                    rv_image_kernel_address(dst[i], p, RV_ACCESS_WRITE, &a->dst[p], &dp);
                    if (((a->src[p] | (uint64_t)sp) & 15u) != 0)
                        a->src_words = 1;
                    a->spitch[p] = sp;
                    a->dpitch[p] = dp;
                    a->w[p] = rv_image_plane_width(src[i], p);
                    a->h[p] = rv_image_plane_height(src[i], p);
                    a->thr[p] = thr[p] * 16;
                    a->grain[p] = (p ? ds.grainc : ds.grainy) * 4;
                    a->key_ref[p] = rv_deband_key_ref(ds.seed, p);
                    a->key_grain[p] = rv_deband_key_grain(ds.seed, p, 0);
                }
            }
            RV_LaunchShape sh;
            memset(&sh, 0, sizeof(sh));
            sh.block[0] = 32;
            sh.block[1] = 8;
            sh.block[2] = 1;
            sh.grid[1] = 1;
            sh.grid[2] = 1;
            if (tiled) { /* the library's shape */
                const char *ie = getenv("DEBAND_BENCH_INDEP");
                for (int i = 0; i < nsets; i++) {
                    /* consecutive launches debanding other frames: overlapping
                     * them is safe; 0 measures one frame at a time (the
                     * tiles as the library chooses them for either) */
                    args[i].independent = ie && *ie == '1' ? RV_DEBAND_NO_WAIT | RV_DEBAND_EARLY_RELEASE : 0;
                    rv_deband_tile_choose(&args[i], ds.sample_mode);
                }
                const int nt = rv_deband_tile_count(&args[0]);
                sh.grid[0] = (unsigned)nt;
                sh.shared_bytes = rv_deband_tile_smem_bytes(ds.range, in16, args[0].tile_h32, nt, sh.grid[0]);
            } else {
                sh.grid[0] = (unsigned)((bc->w + 127) / 128);
                sh.grid[1] = (unsigned)((bc->h + 7) / 8);
                sh.grid[2] = (unsigned)args[0].nplanes;
            }
            const double l_us = time_launches(k, &sh, args, nsets, reps);
            if (tiled && sweep) {
                /* launch shapes: tile height 32..256 rows (h); tiles a block
                 * (tN) or a grid of N blocks a multiprocessor (pN, 132 SMs) */
                rv_context_sync(g_ctx);
                const uint64_t want = img_hash(dst[0]);
                const int h0 = args[0].tile_h32;
                static const int var[][2] = {{1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}, {6, 1}, {8, 1},
                                            {2, 2}, {4, 2}, {2, -8}, {4, -4}};
                printf("  sweep %s %s %s:", sz_of(bc), fname, mname[m]);
                for (size_t v = 0; v < sizeof(var) / sizeof(var[0]); v++) {
                    const int h32 = var[v][0], per = var[v][1];
                    for (int i = 0; i < nsets; i++)
                        rv_deband_tile_set(&args[i], h32);
                    const int nt = args[0].tiles;
                    RV_LaunchShape s2 = sh;
                    s2.grid[0] = per > 0 ? rv_deband_tile_blocks(nt, per) : (unsigned)(132 * -per);
                    if ((int)s2.grid[0] > nt)
                        s2.grid[0] = (unsigned)nt;
                    s2.shared_bytes = rv_deband_tile_smem_bytes(ds.range, in16, h32, nt, s2.grid[0]);
                    rv_launch_raw(k, &s2, &args[0], sizeof(args[0]));
                    rv_context_sync(g_ctx);
                    touch_dst(dst[0]);
                    const int same = img_hash(dst[0]) == want;
                    const double us = time_launches(k, &s2, args, nsets, reps);
                    printf(" h%d%s%d=%.1f%s", 32 * h32, per > 0 ? "t" : "p", per > 0 ? per : -per, us,
                           same ? "" : "(DIFF)");
                    if (!same)
                        sweep_bad++;
                }
                printf("\n");
                for (int i = 0; i < nsets; i++)
                    rv_deband_tile_set(&args[i], h0);
            }
            const double a_us = bench_median(ta, NRUNS) * 1e6;
            const double f_us = bytes / bw * 1e6;
            char sz[16];
            snprintf(sz, sizeof(sz), "%dx%d", bc->w, bc->h);
            char mn[24];
            snprintf(mn, sizeof(mn), "%s r%d", mname[m], ds.range);
            printf("%-10s %-22s %-10s %10.2f %10.1f %10.2f %8.1f%% %8.0f%% %9.1f %8.0f%% %9.0f %5.0f%%\n", sz,
                   fname, mn, a_us, l_us, f_us, 100.0 * f_us / a_us, 100.0 * f_us / l_us, c_us,
                   100.0 * c_us / l_us, (double)bc->w * bc->h / (l_us * 1e-6) / 1e6, ovl);
        }
        for (int i = 0; i < nsets; i++) {
            rv_image_destroy(&src[i]);
            rv_image_destroy(&dst[i]);
        }
        free(src);
        free(dst);
        free(args);
        rv_deband_destroy(&db);
    }
    printf("\napply us: rv_deband_apply back to back, consecutive frames overlapping (other images);\n"
           "launch us: the same grids each waiting for the previous one (one frame at a time)\n"
           "ovl: apply's launches that overlapped the previous frame (rv_deband_overlapped)\n"
           "floor/ap, floor/ln: floor time over measured time = share of the measured copy bandwidth\n"
           "copy us: the copy kernel moving the frame's bytes (half read, half written; same rotation and\n"
           "timing), launch and tail included; copy/ln: copy us over launch us (the floor at this size)\n");
    if (sweep_bad)
        printf("sweep: %d launch shapes gave other outputs than rv_deband_apply\n", sweep_bad);
    rv_module_unload(&mod);
    rv_context_destroy(&g_ctx);
    return sweep_bad ? 1 : 0;
}
