/*
 * bench_gpu_core.c - rv-bench-gpu-core: the thesis' sample programs on the
 * CUDA backend, next to their peers, measured in one run:
 *
 *   rv kernel   ravioli operation, images already on the GPU (CUDA events
 *               around 50 back-to-back operations, per operation)
 *   rv e2e      upload + operation + download (host clock, median of 20)
 *   direct      the entry the backend would launch (rvkw_ for large procNbr
 *               planes), launched by hand with the backend's grid, and, on
 *               sm_90+, with programmatic dependent launch as the backend
 *               does (cuLaunchKernelEx; RV_BENCH_DIRECT_CHAINED=0: plain):
 *               the framework's own overhead is rv kernel / direct - 1
 *   hand        the program written plainly in CUDA C (hand.cu), one thread
 *               per pixel, launched by hand: no framework at all
 *   torch       PyTorch on the same GPU (torch_bench.py, CUDA events)
 *   copy        cuMemcpyDtoD of the same bytes (scaled by the op's streams / 2):
 *               what a plain copy of that size achieves
 *   floor       bytes moved / device bandwidth measured here with a large
 *               cuMemcpyDtoD (bytes read + written); for template matching
 *               the compute floor: one 32-bit SIMD absolute-difference
 *               instruction per pixel pair at 64 integer lanes per SM
 *   GTX280      the thesis' figures (GrayScale 1.322 ms, Emboss 1.432 ms
 *               at 512x512; template matching 63.46 ms)
 *
 * Image operations rotate over several input/output sets (>= 256 MiB in
 * all) so that the L2 cache (50-60 MB) does not hold the inputs.
 *
 * Template matching: sad-tm is the sample `sad_rs4` (RV_PROC_BOXR: four
 * adjacent windows a group on the 4-window grid, 16-byte reads, two
 * template rows a pass, template rows in 4 bands of warps,
 * docs/perf/cuda-tuning.md rounds 9 and 11), sad-boxn the sample `sad`
 * (RV_PROC_BOXN_G: two windows a thread, two template rows a pass, round
 * 7), sad-tm1 the one-window form `sad1`, same run; then the other forms:
 * sad-g4, sad-g2, sad-r2 (round 7), sad-rs1/2/8 (sad_rs4 at R = 1, 2, 8),
 * sad-g2rs4 and sad-g2rs2 (`sad`'s two-row helper over 4 and 2 bands),
 * sad-rs4v1 (sad_rs4 with round 9's one-row 16-byte helper), and
 * sad-tm', sad-boxn' (both again, for the run's spread). --sad also prints
 * the launch shapes (direct launches) of the multi-window forms.
 *
 * Usage: rv-bench-gpu-core [--quick] [--sad] (--sad: template matching
 * only, no torch). Exits 77 without a GPU.
 */
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ravioli/kernel_abi.h>
#include <ravioli/ravioli.h>

#include "../../modules/samples/samples_params.h"

#define CK(x)                                                                                  \
    do {                                                                                       \
        CUresult r_ = (x);                                                                     \
        if (r_ != CUDA_SUCCESS) {                                                              \
            const char *n_ = "?";                                                              \
            cuGetErrorName(r_, &n_);                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, n_);                    \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

#define RV(x)                                                                                  \
    do {                                                                                       \
        if ((x) < 0) {                                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, rv_context_error(ctx)); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static RV_Context *ctx;
static RV_Module *mod;
static CUmodule hand_mod, samples_mod;
static CUevent ev0, ev1;
static double bw_gbs; /* device bandwidth, GB/s (read + written) */
static int iters = 50;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const RV_Kernel *kern(const char *name)
{
    const RV_Kernel *k;
    RV(rv_kernel_get(mod, name, &k));
    return k;
}

/* ---- torch results ---- */
typedef struct torch_row {
    char op[32];
    int w, h;
    double ms;
} torch_row;
static torch_row torch_rows[64];
static int ntorch;
static char torch_note[600] = "not run";

static void run_torch(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "python3 '%s' 2>&1", RV_BENCH_TORCH_PY);
    FILE *p = popen(cmd, "r");
    if (!p) {
        snprintf(torch_note, sizeof(torch_note), "python3 could not be started");
        return;
    }
    char line[512];
    snprintf(torch_note, sizeof(torch_note), "ok");
    while (fgets(line, sizeof(line), p)) {
        torch_row r;
        if (sscanf(line, "torch %31s %dx%d %lf", r.op, &r.w, &r.h, &r.ms) == 4 &&
            ntorch < (int)(sizeof(torch_rows) / sizeof(torch_rows[0])))
            torch_rows[ntorch++] = r;
        else if (!strncmp(line, "torch unavailable", 17))
            snprintf(torch_note, sizeof(torch_note), "%s", line);
    }
    pclose(p);
}

static double torch_ms(const char *op, int w, int h)
{
    for (int i = 0; i < ntorch; i++)
        if (!strcmp(torch_rows[i].op, op) && torch_rows[i].w == w && torch_rows[i].h == h)
            return torch_rows[i].ms;
    return NAN;
}

/* ---- timing helpers ---- */
typedef void (*op_fn)(void *arg);

/* GPU time per call of fn over `n` back-to-back calls (events on the NULL
 * stream, which orders with ravioli's blocking stream). */
static double gpu_ms(op_fn fn, void *arg, int n)
{
    for (int i = 0; i < 3; i++)
        fn(arg);
    CK(cuCtxSynchronize());
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        CK(cuEventRecord(ev0, 0));
        for (int i = 0; i < n; i++)
            fn(arg);
        CK(cuEventRecord(ev1, 0));
        CK(cuEventSynchronize(ev1));
        float ms;
        CK(cuEventElapsedTime(&ms, ev0, ev1));
        if (ms / n < best)
            best = ms / n;
    }
    return best;
}

/* ---- the operations ---- */
typedef struct op_case {
    const char *name;
    int kind; /* 0 pix, 1 nbr, 2 comp */
    int thr;  /* threshold param, -1 none */
    int reads; /* images read (bytes: reads + 1 written) */
    double thesis_512; /* GTX280 ms at 512x512, 0 if none */
} op_case;

static const op_case cases[] = {
    {"gray", 0, -1, 1, 1.322},
    {"binarize", 0, 128, 1, 0},
    {"edge", 1, 0, 1, 0},
    {"emboss", 1, -1, 1, 1.432},
    {"diff", 2, 90, 2, 0},
};

#define MAX_SETS 64

/* Several input/output sets, used in turn, so that the working set is
 * several times the L2 cache: the timings are of DRAM, not of L2. */
typedef struct op_arg {
    const op_case *c;
    const RV_Kernel *k;
    int nsets, it;
    RV_Image *src[MAX_SETS], *src2[MAX_SETS], *dst[MAX_SETS];
    int w, h;
    /* direct / hand launches */
    CUfunction fdirect, fhand;
    CUfunction fwide; /* procNbr: rvkw_<name>, or NULL */
    rv_args a[MAX_SETS];
    CUdeviceptr dsrc[MAX_SETS], dsrc2[MAX_SETS], ddst[MAX_SETS];
    int pitch_px;
    size_t copy_bytes;
} op_arg;

static void rv_op(void *varg)
{
    op_arg *o = varg;
    const int i = o->it++ % o->nsets;
    rv_threshold_params tp = {o->c->thr};
    const void *prm = o->c->thr >= 0 ? &tp : NULL;
    size_t psz = o->c->thr >= 0 ? sizeof(tp) : 0;
    int err = o->c->kind == 0   ? rv_proc_pix(o->k, o->dst[i], o->src[i], prm, psz)
              : o->c->kind == 1 ? rv_proc_nbr(o->k, o->dst[i], o->src[i], prm, psz)
                                : rv_comp_img(o->k, o->dst[i], o->src[i], o->src2[i], prm, psz);
    RV(err);
}

static int g_sm_count = 132; /* set in main from the device */
static int g_nbr_grid = 0;    /* procNbr direct launches: 0 the backend's rule, 1 one block a
                                 tile (2D), 2 one resident wave (1D), 3 two waves (1D) */
static int g_nbr_per_sm = 0;  /* resident blocks a multiprocessor of the launched entry */
static int g_nbr_wide_per_sm = 0; /* the same for rvkw_<name> (direct mode 0) */

/* What the backend does to a procNbr entry (cuda_backend.c,
 * nbr_shared_carveout): a shared/L1 split that fits as many blocks as
 * registers allow; returns the blocks a multiprocessor then holds. */
static int nbr_setup(CUfunction f)
{
    CUdevice dev;
    int smem = 0, blocks = 0, max_sm = 0;
    CK(cuCtxGetDevice(&dev));
    CK(cuDeviceGetAttribute(&max_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, dev));
    CK(cuFuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    if (smem > 0) {
        CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 100));
        CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 256, 0));
        long long need = (long long)blocks * (smem + 1024);
        int pct = (int)((need * 100 + max_sm - 1) / max_sm);
        CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, pct > 100 ? 100 : pct));
    }
    CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 256, 0));
    return blocks;
}

/* Direct launches as the backend makes them: every generated entry starts
 * with griddepcontrol (kernel.h RV__GRID_CHAIN) and the backend launches it
 * with programmatic dependent launch on sm_90+ (cuda_backend.c
 * launch_chained), so the direct launch does the same; RV_BENCH_DIRECT_CHAINED=0
 * (or RAVIOLI_CUDA_CHAINED=0, which turns the backend's off) launches plainly. */
static int g_direct_chained = 0; /* set in main: compute capability >= 9 */

static void direct_launch(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by, unsigned shmem,
                          void **params)
{
    if (g_direct_chained) {
        CUlaunchAttribute attr;
        memset(&attr, 0, sizeof(attr));
        attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.programmaticStreamSerializationAllowed = 1;
        CUlaunchConfig cfg;
        memset(&cfg, 0, sizeof(cfg));
        cfg.gridDimX = gx;
        cfg.gridDimY = gy;
        cfg.gridDimZ = 1;
        cfg.blockDimX = bx;
        cfg.blockDimY = by;
        cfg.blockDimZ = 1;
        cfg.sharedMemBytes = shmem;
        cfg.hStream = 0;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        const CUresult r = cuLaunchKernelEx(&cfg, f, params, NULL);
        if (r == CUDA_SUCCESS)
            return;
        const char *en = NULL;
        cuGetErrorName(r, &en);
        printf("direct launches: cuLaunchKernelEx with programmatic serialization failed (%s); plain launches from here\n",
               en ? en : "?");
        g_direct_chained = 0;
        CK(cuLaunchKernel(f, gx, gy, 1, bx, by, 1, shmem, 0, params, NULL));
    } else {
        CK(cuLaunchKernel(f, gx, gy, 1, bx, by, 1, shmem, 0, params, NULL));
    }
}

static void direct_op(void *varg)
{
    op_arg *o = varg;
    const int i = o->it++ % o->nsets;
    void *params[1] = {&o->a[i]};
    unsigned gx, gy = (unsigned)(o->h + 7) / 8;
    CUfunction f = o->fdirect;
    if (o->c->kind == 1) {
        /* the entry's strip shapes (kernel_abi.h), chosen as the backend does:
         * 8 x 2 samples a thread, or 2 x 1 when that leaves < 8 warps an SM */
        const long long sx = (o->w + RV_GPU_NBR_COLS - 1) / RV_GPU_NBR_COLS;
        const long long sy = (o->h + RV_GPU_NBR_ROWS - 1) / RV_GPU_NBR_ROWS;
        if (sx * sy < (long long)g_sm_count * 256) {
            gx = (unsigned)(o->w + 31) / 32;
            gy = (unsigned)((o->h + RV_GPU_NBR_ROWS_SMALL - 1) / RV_GPU_NBR_ROWS_SMALL + 7) / 8;
        } else {
            gx = (unsigned)(sx + 31) / 32;
            gy = (unsigned)(sy + 7) / 8;
            /* one tile a block (mode 1); one resident wave of blocks looping
             * over the tiles (mode 2); two waves (mode 3); the backend's
             * rule (mode 0): two waves when there are more tiles than that */
            const long long wave = (long long)g_nbr_per_sm * g_sm_count;
            const long long tiles = (long long)gx * gy;
            long long nb = tiles;
            if (g_nbr_grid == 0 && wave > 0 && tiles > 2 * wave)
                nb = 2 * wave;
            else if (g_nbr_grid == 2 && wave > 0 && tiles > wave)
                nb = wave;
            else if (g_nbr_grid == 3 && wave > 0 && tiles > wave)
                nb = 2 * wave < tiles ? 2 * wave : wave;
            if (nb != tiles) {
                gx = (unsigned)nb;
                gy = 1;
            }
            /* the backend's large-plane rule (cuda_backend.c, kernel.h
             * RV_GPU_NBR_WIDE): rvkw_ in one resident wave once its tiles
             * fill RV_GPU_NBR_WIDE_WAVES waves; only in mode 0 */
            const long long wwave = (long long)g_nbr_wide_per_sm * g_sm_count;
            const long long wt = (long long)((o->w + 32 * RV_GPU_NBR_WIDE_COLS - 1) / (32 * RV_GPU_NBR_WIDE_COLS)) *
                                 ((o->h + 8 * RV_GPU_NBR_WIDE_ROWS - 1) / (8 * RV_GPU_NBR_WIDE_ROWS));
            if (g_nbr_grid == 0 && o->fwide && wwave > 0 && wt >= RV_GPU_NBR_WIDE_WAVES * wwave) {
                f = o->fwide;
                gx = (unsigned)wwave;
                gy = 1;
            }
        }
    } else {
        gx = (unsigned)((o->w + 3) / 4 + 31) / 32; /* 4 RGBA pixels a thread */
    }
    direct_launch(f, gx, gy, 32, 8, 0, params);
}

static void hand_op(void *varg)
{
    op_arg *o = varg;
    const int i = o->it++ % o->nsets;
    int thr = o->c->thr;
    void *p1[] = {&o->dsrc[i], &o->ddst[i], &o->w, &o->h, &o->pitch_px, &thr};
    void *p2[] = {&o->dsrc[i], &o->dsrc2[i], &o->ddst[i], &o->w, &o->h, &o->pitch_px, &thr};
    CK(cuLaunchKernel(o->fhand, (unsigned)(o->w + 31) / 32, (unsigned)(o->h + 7) / 8, 1, 32, 8, 1, 0, 0,
                      o->c->kind == 2 ? p2 : p1, NULL));
}

/* A plain device-to-device copy of one image's bytes: the practical
 * ceiling of a one-in, one-out operation of that size. */
static void copy_op(void *varg)
{
    op_arg *o = varg;
    const int i = o->it++ % o->nsets;
    CK(cuMemcpyDtoDAsync(o->ddst[i], o->dsrc[i], o->copy_bytes, 0));
}

static void fill(RV_Image *img, unsigned seed)
{
    for (int p = 0; p < rv_image_planes(img); p++) {
        ptrdiff_t pitch;
        unsigned char *d = rv_image_write(img, p, &pitch);
        for (long i = 0; i < (long)pitch * rv_image_plane_height(img, p); i++) {
            seed = seed * 1664525u + 1013904223u;
            d[i] = (unsigned char)(seed >> 24);
        }
    }
}

typedef struct row {
    char op[16];
    int w, h;
    double rvk, e2e, direct, hand, torch, floor_ms, thesis, copy;
} row;
static row rows[64];
static int nrows;

/* procNbr S = 1 launch shapes and kernel variants, side by side in this
 * run: this module's entry with one block a tile (2D grid), one resident
 * wave and two waves (1D, blocks loop over tiles), and the same for each
 * module named in RV_BENCH_NBR_ALT ("label=file.ptx,label=file.ptx": e.g.
 * main's kernel.h, or this kernel.h built with -DRV_GPU_NBR_ASYNC=0). */
typedef struct sweep_row {
    char label[24], op[16];
    int w, h, grid, per_sm;
    double ms, floor_ms;
} sweep_row;
static sweep_row sweep_rows[128];
static int nsweep;

static int sweep_mismatch;
static unsigned char *sweep_ref, *sweep_out;
static size_t sweep_bytes;

/* The result of one launch on set 0, against the first launch of this op
 * and size (this module, one block a tile): every shape and variant must
 * give the same bytes. */
static void sweep_check(op_arg *o, const char *label, int g, int first)
{
    const size_t n = (size_t)o->pitch_px * 4 * o->h;
    if (n > sweep_bytes) {
        free(sweep_ref);
        free(sweep_out);
        sweep_ref = malloc(n);
        sweep_out = malloc(n);
        sweep_bytes = n;
        if (!sweep_ref || !sweep_out) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    CK(cuMemsetD8(o->ddst[0], 0x5a, n));
    o->it = 0;
    direct_op(o);
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(first ? sweep_ref : sweep_out, o->ddst[0], n));
    if (!first && memcmp(sweep_ref, sweep_out, n) != 0) {
        fprintf(stderr, "MISMATCH: %s %s %dx%d grid mode %d differs from this module's one-tile-a-block result\n",
                label, o->c->name, o->w, o->h, g);
        sweep_mismatch = 1;
    }
}

static void nbr_sweep_fn(op_arg *o, const op_case *c, int w, int h, const char *label, CUfunction f)
{
    const CUfunction keep = o->fdirect;
    o->fdirect = f;
    g_nbr_per_sm = nbr_setup(f);
    o->pitch_px = (int)(o->a[0].src.pitch / 4);
    for (int g = 1; g <= 3; g++) {
        g_nbr_grid = g;
        sweep_check(o, label, g, g == 1 && !strcmp(label, "this"));
        o->it = 0;
        double ms = gpu_ms(direct_op, o, iters);
        if (nsweep < (int)(sizeof(sweep_rows) / sizeof(sweep_rows[0]))) {
            sweep_row *r = &sweep_rows[nsweep++];
            snprintf(r->label, sizeof(r->label), "%s", label);
            snprintf(r->op, sizeof(r->op), "%s", c->name);
            r->w = w;
            r->h = h;
            r->grid = g;
            r->per_sm = g_nbr_per_sm;
            r->ms = ms;
            r->floor_ms = (double)w * h * 4 * (c->reads + 1) / (bw_gbs * 1e9) * 1e3;
        }
    }
    g_nbr_grid = 0;
    o->fdirect = keep;
    g_nbr_per_sm = nbr_setup(keep);
}

static void nbr_sweep(op_arg *o, const op_case *c, int w, int h)
{
    char sym[64];
    snprintf(sym, sizeof(sym), "rvk_%s", c->name);
    nbr_sweep_fn(o, c, w, h, "this", o->fdirect);
    /* this module's large-plane entry (kernel.h RV_GPU_NBR_WIDE, round 10) */
    CUfunction fw;
    snprintf(sym, sizeof(sym), "rvkw_%s", c->name);
    if (cuModuleGetFunction(&fw, samples_mod, sym) == CUDA_SUCCESS)
        nbr_sweep_fn(o, c, w, h, "this-wide", fw);
    const char *alt = getenv("RV_BENCH_NBR_ALT");
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", alt ? alt : "");
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        static CUmodule mods[8];
        static char paths[8][256];
        static int nmods;
        CUmodule m = NULL;
        for (int i = 0; i < nmods && i < 8; i++) /* (the bound also for gcc -O3's overread check) */
            if (!strcmp(paths[i], eq + 1))
                m = mods[i];
        if (!m && nmods < 8) {
            if (cuModuleLoad(&m, eq + 1) != CUDA_SUCCESS) {
                fprintf(stderr, "RV_BENCH_NBR_ALT: cannot load %s\n", eq + 1);
                continue;
            }
            mods[nmods] = m;
            snprintf(paths[nmods++], sizeof(paths[0]), "%s", eq + 1);
        }
        if (!m)
            continue;
        CUfunction f;
        if (cuModuleGetFunction(&f, m, sym) == CUDA_SUCCESS)
            nbr_sweep_fn(o, c, w, h, tok, f);
    }
}

static void print_sweep(void)
{
    static const char *gname[] = {"", "tile/block", "1 wave", "2 waves"};
    printf("\nprocNbr S = 1 launch shapes (direct launches, ms; blocks/SM = resident blocks a multiprocessor):\n");
    printf("| kernel.h     | op       | size      | grid       | blocks/SM | ms       | %%floor |\n");
    printf("|--------------|----------|-----------|------------|-----------|----------|--------|\n");
    for (int i = 0; i < nsweep; i++) {
        const sweep_row *r = &sweep_rows[i];
        char sz[16];
        snprintf(sz, sizeof(sz), "%dx%d", r->w, r->h);
        printf("| %-12s | %-8s | %-9s | %-10s | %9d | %8.4f | %5.0f%% |\n", r->label, r->op, sz, gname[r->grid],
               r->per_sm, r->ms, r->floor_ms / r->ms * 100);
    }
}

static struct {
    const char *op;
    int s;
    double ms;
} stride_rows[16];
static int nstride;

static void bench_size(int w, int h)
{
    static op_arg o; /* large: keep off the stack */
    memset(&o, 0, sizeof(o));
    const size_t img_bytes = (size_t)w * h * 4;
    int nsets = (int)((256u << 20) / (3 * img_bytes)) + 1;
    if (nsets > MAX_SETS)
        nsets = MAX_SETS;
    o.nsets = nsets;
    o.w = w;
    o.h = h;
    for (int i = 0; i < nsets; i++) {
        RV(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &o.src[i]));
        RV(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &o.src2[i]));
        RV(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &o.dst[i]));
        fill(o.src[i], 1 + i);
        fill(o.src2[i], 1000 + i);
    }
    double copy_ms = NAN;
    for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
        const op_case *c = &cases[ci];
        o.c = c;
        o.k = kern(c->name);
        for (int i = 0; i < nsets; i++) {
            o.it = i;
            rv_op(&o); /* warm: uploads the inputs */
        }
        o.it = 0;
        double rvk = gpu_ms(rv_op, &o, iters);

        /* direct launch of the same entry */
        ptrdiff_t pitch = 0;
        for (int i = 0; i < nsets; i++) {
            uint64_t as, as2, ad;
            RV(rv_image_kernel_address(o.src[i], 0, RV_ACCESS_READ, &as, &pitch));
            RV(rv_image_kernel_address(o.src2[i], 0, RV_ACCESS_READ, &as2, NULL));
            RV(rv_image_kernel_address(o.dst[i], 0, RV_ACCESS_WRITE, &ad, NULL));
            memset(&o.a[i], 0, sizeof(o.a[i]));
            o.a[i].src = (rv_plane){(unsigned char *)(uintptr_t)as, pitch, w, h};
            o.a[i].src2 = (rv_plane){(unsigned char *)(uintptr_t)as2, pitch, w, h};
            o.a[i].dst = (rv_plane){(unsigned char *)(uintptr_t)ad, pitch, w, h};
            o.a[i].s = 1;
            if (c->thr >= 0)
                memcpy(o.a[i].params, &(rv_threshold_params){c->thr}, sizeof(rv_threshold_params));
            o.dsrc[i] = as;
            o.dsrc2[i] = as2;
            o.ddst[i] = ad;
        }
        char sym[64];
        snprintf(sym, sizeof(sym), "rvk_%s", c->name);
        CK(cuModuleGetFunction(&o.fdirect, samples_mod, sym));
        g_nbr_per_sm = c->kind == 1 ? nbr_setup(o.fdirect) : 0;
        o.fwide = NULL;
        g_nbr_wide_per_sm = 0;
        snprintf(sym, sizeof(sym), "rvkw_%s", c->name);
        if (c->kind == 1 && cuModuleGetFunction(&o.fwide, samples_mod, sym) == CUDA_SUCCESS)
            g_nbr_wide_per_sm = nbr_setup(o.fwide);
        else
            o.fwide = NULL;
        g_nbr_grid = 0;
        double direct = gpu_ms(direct_op, &o, iters);
        if (c->kind == 1 && w >= 1920)
            nbr_sweep(&o, c, w, h);

        snprintf(sym, sizeof(sym), "hand_%s", c->name);
        CK(cuModuleGetFunction(&o.fhand, hand_mod, sym));
        o.pitch_px = (int)(pitch / 4);
        double hand = gpu_ms(hand_op, &o, iters);
        if (ci == 0) {
            o.copy_bytes = (size_t)pitch * h;
            copy_ms = gpu_ms(copy_op, &o, iters);
        }

        /* spatial stride S at 4K (every S-th sample, S x S blocks filled) */
        if (w == 3840 && (!strcmp(c->name, "gray") || !strcmp(c->name, "emboss"))) {
            for (int si = 0; si < 4; si++) {
                const int S = 1 << (si == 3 ? 3 : si);
                for (int i = 0; i < nsets; i++)
                    RV(rv_image_set_stride(o.src[i], S));
                o.it = 0;
                if (nstride < 16) {
                    stride_rows[nstride].op = c->name;
                    stride_rows[nstride].s = S;
                    stride_rows[nstride++].ms = gpu_ms(rv_op, &o, iters);
                }
            }
            for (int i = 0; i < nsets; i++)
                RV(rv_image_set_stride(o.src[i], 1));
        }

        /* end to end: inputs stale on the GPU, result read back */
        double t[20];
        for (int i = 0; i < 20; i++) {
            double t0 = now_ms();
            rv_image_write(o.src[0], 0, NULL);
            if (c->kind == 2)
                rv_image_write(o.src2[0], 0, NULL);
            o.it = 0;
            rv_op(&o);
            if (!rv_image_read(o.dst[0], 0, NULL)) {
                fprintf(stderr, "download: %s\n", rv_context_error(ctx));
                exit(1);
            }
            t[i] = now_ms() - t0;
        }
        qsort(t, 20, sizeof(double), cmp_d);

        row *r = &rows[nrows++];
        snprintf(r->op, sizeof(r->op), "%s", c->name);
        r->w = w;
        r->h = h;
        r->rvk = rvk;
        r->e2e = t[10];
        r->direct = direct;
        r->hand = hand;
        r->torch = torch_ms(c->name, w, h);
        r->floor_ms = (double)w * h * 4 * (c->reads + 1) / (bw_gbs * 1e9) * 1e3;
        r->thesis = w == 512 && h == 512 ? c->thesis_512 : 0;
        r->copy = copy_ms * (c->reads + 1) / 2;
    }
    for (int i = 0; i < nsets; i++) {
        rv_image_destroy(&o.src[i]);
        rv_image_destroy(&o.src2[i]);
        rv_image_destroy(&o.dst[i]);
    }
}

/* ---- template matching (thesis: 395x372 image, 70x72 template) ---- */
typedef struct tm_arg {
    const RV_Kernel *k;
    RV_Image *img, *tpl;
    RV_BoxResult res;
    CUfunction fhand, fhand_v;
    int use_v;
    CUdeviceptr dimg, dtpl, best;
    int pitch_px, tpitch_px;
} tm_arg;

static void tm_rv(void *varg)
{
    tm_arg *t = varg;
    RV(rv_proc_box(t->k, NULL, t->img, t->tpl, 70, 72, NULL, 0, RV_MIN, &t->res));
}

static void tm_hand(void *varg)
{
    tm_arg *t = varg;
    int w = 395, h = 372, tw = 70, th = 72;
    CK(cuMemsetD8Async(t->best, 0xff, 8, 0));
    void *p[] = {&t->dimg, &t->pitch_px, &w, &h, &t->dtpl, &t->tpitch_px, &tw, &th, &t->best};
    CK(cuLaunchKernel(t->use_v ? t->fhand_v : t->fhand, (326 + 31) / 32, (301 + 7) / 8, 1, 32, 8, 1, 0, 0, p, NULL));
}

/* kname: "sad" (RV_PROC_BOXN_G, two windows a call, rv_win_sad_rows2_rgba),
 * one of its other forms (sad_g4, sad_g2, sad_r2) or "sad1" (RV_PROC_BOX, one window a call, pixel by pixel: the form before
 * round 6b); the hand-written kernels are timed with the first only. */
static void bench_tm(int sm, int clock_khz, const char *kname, const char *label, int with_hand)
{
    tm_arg t;
    memset(&t, 0, sizeof(t));
    t.k = kern(kname);
    RV(rv_image_create(ctx, 395, 372, RV_FMT_RGBA8, &t.img));
    RV(rv_image_create(ctx, 70, 72, RV_FMT_RGBA8, &t.tpl));
    fill(t.img, 5);
    {
        ptrdiff_t pi, pt;
        const unsigned char *s = rv_image_read(t.img, 0, &pi);
        unsigned char *d = rv_image_write(t.tpl, 0, &pt);
        for (int y = 0; y < 72; y++)
            memcpy(d + y * pt, s + (y + 150) * pi + 4 * 200, 70 * 4);
    }
    tm_rv(&t);
    if (t.res.x != 200 || t.res.y != 150 || t.res.score != 0)
        fprintf(stderr, "template matching (%s): found (%d,%d) score %g, expected (200,150) 0\n", kname, t.res.x,
                t.res.y, t.res.score);
    double rvk = gpu_ms(tm_rv, &t, 20);
    uint64_t a;
    ptrdiff_t pitch;
    RV(rv_image_kernel_address(t.img, 0, RV_ACCESS_READ, &a, &pitch));
    t.dimg = a;
    t.pitch_px = (int)(pitch / 4);
    RV(rv_image_kernel_address(t.tpl, 0, RV_ACCESS_READ, &a, &pitch));
    t.dtpl = a;
    t.tpitch_px = (int)(pitch / 4);
    double hand = NAN, hand_v = NAN;
    if (with_hand) {
        CK(cuMemAlloc(&t.best, 8));
        CK(cuModuleGetFunction(&t.fhand, hand_mod, "hand_sad"));
        hand = gpu_ms(tm_hand, &t, 20);
        CK(cuModuleGetFunction(&t.fhand_v, hand_mod, "hand_sad_v"));
        t.use_v = 1;
        hand_v = gpu_ms(tm_hand, &t, 20);
        printf("template matching: hand SAD (per-channel abs) %.4f ms, hand SAD (__vsadu4) %.4f ms\n", hand,
               hand_v);
        unsigned long long best;
        CK(cuMemcpyDtoH(&best, t.best, 8));
        if ((best & 0xffff) != 200 || ((best >> 16) & 0xffff) != 150)
            fprintf(stderr, "hand_sad found (%llu,%llu)\n", best & 0xffff, (best >> 16) & 0xffff);
        CK(cuMemFree(t.best));
    }
    double e2e[20];
    for (int i = 0; i < 20; i++) {
        double t0 = now_ms();
        rv_image_write(t.img, 0, NULL);
        tm_rv(&t);
        e2e[i] = now_ms() - t0;
    }
    qsort(e2e, 20, sizeof(double), cmp_d);
    row *r = &rows[nrows++];
    snprintf(r->op, sizeof(r->op), "%s", label);
    r->w = 395;
    r->h = 372;
    r->rvk = rvk;
    r->e2e = e2e[10];
    r->direct = NAN;
    r->hand = hand < hand_v ? hand : hand_v;
    r->copy = NAN;
    r->torch = torch_ms("sad", 395, 372);
    double pairs = 326.0 * 301.0 * 70.0 * 72.0;
    r->floor_ms = pairs / ((double)sm * 64.0 * clock_khz * 1e3) * 1e3;
    r->thesis = 63.46;
    printf("template matching (%s): rv kernel %.4f ms, compute floor %.4f ms, %.2fx the floor\n", kname, rvk,
           r->floor_ms, rvk / r->floor_ms);
    rv_image_destroy(&t.img);
    rv_image_destroy(&t.tpl);
}

/* procBox launch shapes for the sad kernels (round 7): the PTX entry
 * launched by hand (cuLaunchKernel, the backend's rv_args, MIN reduction)
 * with blocks of 32, 64, 128 threads, the grid covering the groups once
 * (the backend's rule gives 64 here), and a grid of whole waves of 132 SMs.
 * The entries loop (grid-stride), so every shape is correct; the minimum
 * is checked against (200, 150) score 0. */
typedef struct tmd_arg {
    CUfunction f;
    rv_args a;
    unsigned gx, bx, shmem;
} tmd_arg;

static void tm_direct(void *varg)
{
    tmd_arg *d = varg;
    void *params[] = {&d->a};
    direct_launch(d->f, d->gx, 1, d->bx, 1, d->shmem, params);
}

static void bench_tm_shapes(int sm)
{
    RV_Image *img, *tpl;
    RV(rv_image_create(ctx, 395, 372, RV_FMT_RGBA8, &img));
    RV(rv_image_create(ctx, 70, 72, RV_FMT_RGBA8, &tpl));
    fill(img, 5);
    {
        ptrdiff_t pi, pt;
        const unsigned char *s = rv_image_read(img, 0, &pi);
        unsigned char *d = rv_image_write(tpl, 0, &pt);
        for (int y = 0; y < 72; y++)
            memcpy(d + y * pt, s + (y + 150) * pi + 4 * 200, 70 * 4);
    }
    tmd_arg d;
    memset(&d, 0, sizeof(d));
    uint64_t a;
    ptrdiff_t pitch;
    RV(rv_image_kernel_address(img, 0, RV_ACCESS_READ, &a, &pitch));
    d.a.src.data = (unsigned char *)(uintptr_t)a;
    d.a.src.pitch = pitch;
    d.a.src.w = 395;
    d.a.src.h = 372;
    RV(rv_image_kernel_address(tpl, 0, RV_ACCESS_READ, &a, &pitch));
    d.a.src2.data = (unsigned char *)(uintptr_t)a;
    d.a.src2.pitch = pitch;
    d.a.src2.w = 70;
    d.a.src2.h = 72;
    d.a.s = 1;
    d.a.box_w = 70;
    d.a.box_h = 72;
    d.a.reduce = RV_REDUCE_MIN;
    d.shmem = (unsigned)(RV_GPU_BOX_REF_PITCH(70, 4) * 72);
    CUdeviceptr scratch;
    const size_t ssz = 64 + (size_t)8192 * sizeof(rv_partial);
    CK(cuMemAlloc(&scratch, ssz));
    CK(cuMemsetD8(scratch, 0, ssz));
    d.a.scratch = (uint64_t)scratch;
    /* kr: threads a group (RV_PROC_BOXR's R) */
    static const char *const kn[] = {"sad", "sad_g4", "sad_g2", "sad_r2", "sad_rs4", "sad_rs2", "sad_rs8", "sad_g2rs4", "sad_g2rs2",
                                     "sad_rs4v1"};
    static const int kg[] = {2, 4, 2, 4, 4, 4, 4, 2, 2, 4};
    static const int kr[] = {1, 1, 1, 1, 4, 2, 8, 4, 2, 4};
    printf("\nsad launch shapes (direct launches, ms; G windows a group of R threads (R = 1 except sad_rs*, sad_g2rs4); grid = cdiv(groups x R, block), "
           "then that rounded up to a multiple of the %d SMs):\n", sm);
    printf("| kernel   | G | block | grid  | blocks/SM | ms      | found |\n|---|---|---|---|---|---|---|\n");
    for (int ki = 0; ki < (int)(sizeof(kn) / sizeof(kn[0])); ki++) {
        char sym[64];
        snprintf(sym, sizeof(sym), "rvk_%s", kn[ki]);
        CK(cuModuleGetFunction(&d.f, samples_mod, sym));
        const long long groups = 301LL * ((326 + kg[ki] - 1) / kg[ki]) * kr[ki]; /* threads */
        const unsigned blks[] = {32, 64, 128, 256};
        for (int bi = kr[ki] > 1 ? 1 : 0; bi < (kr[ki] > 1 ? 4 : 3); bi++) {
            for (int gi = 0; gi < 2; gi++) {
                d.bx = blks[bi];
                unsigned gx = (unsigned)((groups + d.bx - 1) / d.bx);
                if (gi == 1) { /* round the grid up to whole multiples of the SM count */
                    gx = (gx + (unsigned)sm - 1) / (unsigned)sm * (unsigned)sm;
                }
                d.gx = gx;
                tm_direct(&d);
                rv_partial res;
                CK(cuMemcpyDtoH(&res, scratch + 16, sizeof(res)));
                const double ms = gpu_ms(tm_direct, &d, 20);
                printf("| %-9s | %d | %5u | %5u | %9.2f | %.4f | %s |\n", kn[ki], kg[ki], d.bx, d.gx,
                       (double)d.gx / sm, ms, res.x == 200 && res.y == 150 && res.score == 0 ? "ok" : "WRONG");
            }
        }
    }
    CK(cuMemFree(scratch));
    rv_image_destroy(&img);
    rv_image_destroy(&tpl);
}

static void measure_bandwidth(void)
{
    const size_t n = (size_t)1 << 30;
    CUdeviceptr a, b;
    CK(cuMemAlloc(&a, n));
    CK(cuMemAlloc(&b, n));
    CK(cuMemsetD8(a, 1, n));
    CK(cuMemcpyDtoD(b, a, n));
    CK(cuCtxSynchronize());
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        CK(cuEventRecord(ev0, 0));
        for (int i = 0; i < 4; i++)
            CK(cuMemcpyDtoDAsync(i & 1 ? a : b, i & 1 ? b : a, n, 0));
        CK(cuEventRecord(ev1, 0));
        CK(cuEventSynchronize(ev1));
        float ms;
        CK(cuEventElapsedTime(&ms, ev0, ev1));
        if (ms / 4 < best)
            best = ms / 4;
    }
    bw_gbs = 2.0 * n / (best * 1e-3) / 1e9;
    CK(cuMemFree(a));
    CK(cuMemFree(b));
}

static void show(double v, const char *fmt, int width)
{
    if (isnan(v) || v == 0)
        printf(" %*s |", width, "-");
    else
        printf(fmt, width, v);
}

int main(int argc, char **argv)
{
    int quick = 0, sad_only = 0;
    for (int i = 1; i < argc; i++) {
        quick |= !strcmp(argv[i], "--quick");
        sad_only |= !strcmp(argv[i], "--sad");
    }
    if (quick)
        iters = 10;
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CUDA;
    s.log_level = RV_LOG_WARN;
    if (rv_context_create(&ctx, &s) < 0) {
        printf("rv-bench-gpu-core: no usable GPU, skipped\n");
        return 77;
    }
    RV(rv_module_load(ctx, "samples", &mod));
    /* ravioli made its (primary) context current on this thread */
    CUdevice dev;
    CK(cuCtxGetDevice(&dev));
    char name[256];
    int sm, clock_khz, drv;
    CK(cuDeviceGetName(name, sizeof(name), dev));
    CK(cuDeviceGetAttribute(&sm, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    g_sm_count = sm;
    CK(cuDeviceGetAttribute(&clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev));
    CK(cuDriverGetVersion(&drv));
    int ccmaj = 0;
    CK(cuDeviceGetAttribute(&ccmaj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    {
        const char *e1 = getenv("RV_BENCH_DIRECT_CHAINED"), *e2 = getenv("RAVIOLI_CUDA_CHAINED");
        g_direct_chained = ccmaj >= 9 && !(e1 && !strcmp(e1, "0")) && !(e2 && !strcmp(e2, "0"));
    }
    CK(cuEventCreate(&ev0, CU_EVENT_DEFAULT));
    CK(cuEventCreate(&ev1, CU_EVENT_DEFAULT));
    CK(cuModuleLoad(&hand_mod, RV_BENCH_HAND_PTX));
    char path[1024];
    snprintf(path, sizeof(path), "%s", rv_module_path(mod));
    CK(cuModuleLoad(&samples_mod, path));

    measure_bandwidth();
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
    printf("rv-bench-gpu-core: %s, %d SMs, %.0f MHz, driver %d.%d, %s\n", name, sm, clock_khz / 1e3,
           drv / 1000, drv % 1000 / 10, date);
    printf("device bandwidth (cuMemcpyDtoD 1 GiB, read+write): %.0f GB/s\n", bw_gbs);
    printf("direct launches: %s\n", g_direct_chained ? "programmatic dependent launch (cuLaunchKernelEx), as the backend" : "plain cuLaunchKernel");

    if (!sad_only) {
        run_torch();
        printf("torch: %s\n", torch_note);
        const int sizes[][2] = {{512, 512}, {1920, 1080}, {3840, 2160}};
        for (int i = 0; i < 3; i++)
            bench_size(sizes[i][0], sizes[i][1]);
    }
    /* sad-tm: the library's fastest form of the SAD score, RV_PROC_BOXR
     * (row-additive: four windows a group, 16-byte reads, template rows in
     * R = 4 bands of warps; round 9); sad-boxn: `sad`, the window-score form
     * (RV_PROC_BOXN, two windows and two template rows a pass; round 7);
     * sad-tm1: one window a call, the thesis' form */
    bench_tm(sm, clock_khz, "sad_rs4", "sad-tm", 1);
    bench_tm(sm, clock_khz, "sad", "sad-boxn", 0);
    bench_tm(sm, clock_khz, "sad1", "sad-tm1", 0);
    /* the other forms, same scores: four windows a thread, one row a pass
     * (round 6b); two windows, one row; four windows, two rows (round 7);
     * RV_PROC_BOXR at R = 1, 2, 8, and `sad`'s two-row helper over R = 4
     * and 2 bands (round 9); then sad-tm and sad-boxn again (the run's
     * spread) */
    bench_tm(sm, clock_khz, "sad_g4", "sad-g4", 0);
    bench_tm(sm, clock_khz, "sad_g2", "sad-g2", 0);
    bench_tm(sm, clock_khz, "sad_r2", "sad-r2", 0);
    bench_tm(sm, clock_khz, "sad_rs1", "sad-rs1", 0);
    bench_tm(sm, clock_khz, "sad_rs2", "sad-rs2", 0);
    bench_tm(sm, clock_khz, "sad_rs8", "sad-rs8", 0);
    bench_tm(sm, clock_khz, "sad_g2rs4", "sad-g2rs4", 0);
    bench_tm(sm, clock_khz, "sad_g2rs2", "sad-g2rs2", 0);
    bench_tm(sm, clock_khz, "sad_rs4v1", "sad-rs4v1", 0);
    bench_tm(sm, clock_khz, "sad_rs4", "sad-tm'", 0);
    bench_tm(sm, clock_khz, "sad", "sad-boxn'", 0);
    if (sad_only)
        bench_tm_shapes(sm);

    printf("\nTimes in ms. ovh = rv kernel / direct - 1 (framework overhead); "
           "%%floor = floor / rv kernel (100%% = at the floor).\n");
    printf("| op       | size      | rv kernel | rv e2e   | direct   | ovh   | hand     | torch    | copy     | floor    | %%floor | GTX280  |\n");
    printf("|----------|-----------|-----------|----------|----------|-------|----------|----------|----------|----------|--------|---------|\n");
    for (int i = 0; i < nrows; i++) {
        row *r = &rows[i];
        char sz[16];
        snprintf(sz, sizeof(sz), "%dx%d", r->w, r->h);
        printf("| %-8s | %-9s |", r->op, sz);
        show(r->rvk, " %*.4f |", 9);
        show(r->e2e, " %*.4f |", 8);
        show(r->direct, " %*.4f |", 8);
        if (isnan(r->direct))
            printf(" %5s |", "-");
        else
            printf(" %+4.0f%% |", (r->rvk / r->direct - 1) * 100);
        show(r->hand, " %*.4f |", 8);
        show(r->torch, " %*.4f |", 8);
        show(r->copy, " %*.4f |", 8);
        show(r->floor_ms, " %*.4f |", 8);
        printf(" %5.0f%% |", r->floor_ms / r->rvk * 100);
        show(r->thesis, " %*.3f |", 7);
        printf("\n");
    }
    print_sweep();
    printf("\nspatial stride S at 3840x2160 (rv kernel, ms; S x S blocks filled):\n");
    for (int i = 0; i < nstride; i++)
        printf("  stride %-8s S=%d %.4f ms (%.2fx S=1)\n", stride_rows[i].op, stride_rows[i].s, stride_rows[i].ms,
               stride_rows[i].ms / stride_rows[i - i % 4].ms);
    printf("\ntorch lines (ms, median of 30; emboss/edge include replicate padding and the clamp):\n");
    for (int i = 0; i < ntorch; i++)
        printf("  torch %-18s %dx%d %.4f\n", torch_rows[i].op, torch_rows[i].w, torch_rows[i].h, torch_rows[i].ms);
    rv_module_unload(&mod);
    rv_context_destroy(&ctx);
    if (sweep_mismatch)
        printf("rv-bench-gpu-core: procNbr launch shapes or variants gave different results (MISMATCH above)\n");
    return sweep_mismatch ? 1 : 0;
}
