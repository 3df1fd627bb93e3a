/*
 * bench_dwt.c - rv-bench-dwt (CPU backend) and rv-bench-gpu-dwt (CUDA backend).
 *
 * N x N float images, CDF 9/7 and DD(13,7), 1 and 5 levels, in place and out
 * of place side by side. For each case:
 *   ms       forward transform time, best of R runs. GPU (RV_BENCH_EVENTS, the
 *            driver's event calls found at run time): GPU time between two CUDA events on
 *            the NULL stream (ravioli's streams are blocking, so they order
 *            with it), recorded while a spin kernel holds the GPU until the
 *            host has queued every launch of the transform: kernel time
 *            without the host's launch latency and the final sync. Also
 *            printed ("host ms"), and the only time where events are not
 *            available or on the CPU: host clock around the launches, with rv_context_sync
 *            before and after (the method before session 11);
 *   E        bytes the kernels must move (Ikuzawa et al. Table 3 counting,
 *            from rv_dwt_stats) / time / measured bandwidth P; E2 (a line
 *            under the row) the same with one count for every plan: a row
 *            and a column pass a level, each reading and writing the level
 *            once (16 bytes a sample a level), so that plans that move
 *            fewer bytes compare by their time;
 *   mem      peak memory of the transform: the image plus the RV_Dwt's scratch
 *            and tables, as a multiple of the image (n);
 *   peer     GPU: PyTorch (torch_dwt.py, same GPU, same run, slicing
 *            implementation), CPU: a plain single-threaded C lifting loop
 *            in the table, and PyWavelets (pywt_dwt.py: wavedec2, bior4.4 =
 *            CDF 9/7, one thread) on a line under the CDF 9/7 rows where it
 *            is installed; the ratio is peer time / our time. The scripts
 *            run with $RV_BENCH_PYTHON (default python3).
 * P (the floor) is measured in the same run: the best of a device-to-device
 * copy of the image through the module's own copy kernel (GPU: dwt_copy16,
 * 16-byte copies with DWT_COPY_Q of them in flight a thread, since session 12;
 * before, dwt_split's 4-byte copy, which reached about half of PyTorch's rate
 * from 4K on; CPU: dwt_split, mode copy, a memcpy a row; with RV_BENCH_EVENTS
 * also one copy timed by events as above), on the GPU the same copy 20 times
 * back to back (since session 10: a steady rate at small N), and PyTorch's
 * copy of the same image.
 * A per-kernel breakdown (profiled run: a sync around each launch) follows.
 *
 * Then, per N, end to end from host memory (see e2e()): whole, split by a
 * device memory limit, and split with copies overlapping the kernels.
 *
 *   rv-bench-gpu-dwt [N ...]     (default 2048 4096 8192 16384)
 *   rv-bench-dwt [N ...]         (default 1024 2048 4096)
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ravioli/dwt.h>

#include "../kernels/dwt_abi.h"

#ifndef RV_BENCH_GPU
#  define RV_BENCH_GPU 0
#endif
/* GPU: kernel times by CUDA events, the driver's functions looked up at run time (the
 * bench, like the library, starts and says why on a machine without the driver) */
#define RV_BENCH_EVENTS RV_BENCH_GPU
#if RV_BENCH_EVENTS
#  include <dlfcn.h>
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(RV_Context *ctx, const char *what, int err)
{
    fprintf(stderr, "rv-bench-dwt: %s: %s (%s)\n", what, rv_strerror(err), ctx ? rv_context_error(ctx) : "");
    exit(1);
}

#if RV_BENCH_EVENTS
/*
 * GPU time of what `fn` queues: a one-thread kernel spins on the GPU's clock for
 * ~0.3 ms (longer than the host takes to queue a transform), the events bracket
 * fn's work behind it on the NULL stream, so the time is the GPU's alone.
 */
static const char spin_ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry rv_bench_spin(.param .u64 ns)\n{\n"
    "  .reg .u64 %rd<5>;\n  .reg .pred %p;\n"
    "  ld.param.u64 %rd1, [ns];\n  mov.u64 %rd2, %globaltimer;\n"
    "L:\n  mov.u64 %rd3, %globaltimer;\n  sub.u64 %rd4, %rd3, %rd2;\n"
    "  setp.lt.u64 %p, %rd4, %rd1;\n  @%p bra L;\n  ret;\n}\n";
/* the few driver entry points used (cuda.h's signatures; 0 is CUDA_SUCCESS) */
static struct {
    int (*module_load_data)(void **mod, const void *image);
    int (*module_get_function)(void **fn, void *mod, const char *name);
    int (*event_create)(void **ev, unsigned flags);
    int (*event_record)(void *ev, void *stream);
    int (*event_synchronize)(void *ev);
    int (*event_elapsed)(float *ms, void *a, void *b);
    int (*launch)(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                  unsigned shmem, void *stream, void **params, void **extra);
} cu;
static void *ev_mod, *ev_spin, *ev0, *ev1;
static int ev_state; /* 0: not tried, 1: ready, -1: unavailable */

/* *slot (a function pointer of size n) = the driver's symbol `name`; 1 if found */
static int ev_sym(void *lib, const char *name, void *slot, size_t n)
{
    void *p = dlsym(lib, name);
    if (p)
        memcpy(slot, &p, n);
    return p != NULL;
}

static int ev_ready(void)
{
    if (ev_state == 0) {
        ev_state = -1;
        /* the library has loaded the driver already (the CUDA context is current) */
        void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (lib) {
#  define EV_SYM(field, name) ev_sym(lib, name, &cu.field, sizeof(cu.field))
            int ok = EV_SYM(module_load_data, "cuModuleLoadData") &&
                     EV_SYM(module_get_function, "cuModuleGetFunction") && EV_SYM(event_create, "cuEventCreate") &&
                     EV_SYM(event_record, "cuEventRecord") && EV_SYM(event_synchronize, "cuEventSynchronize") &&
                     EV_SYM(launch, "cuLaunchKernel");
            /* newer drivers: cuEventElapsedTime_v2, older ones only the first (same signature) */
            ok = ok && (EV_SYM(event_elapsed, "cuEventElapsedTime_v2") || EV_SYM(event_elapsed, "cuEventElapsedTime"));
#  undef EV_SYM
            if (ok && cu.module_load_data(&ev_mod, spin_ptx) == 0 &&
                cu.module_get_function(&ev_spin, ev_mod, "rv_bench_spin") == 0 && cu.event_create(&ev0, 0) == 0 &&
                cu.event_create(&ev1, 0) == 0)
                ev_state = 1;
        }
        if (ev_state < 0)
            fprintf(stderr, "rv-bench-gpu-dwt: CUDA events unavailable: host-clock times only\n");
    }
    return ev_state > 0;
}

/* Seconds of GPU time of fn(arg)'s work, or NAN. */
static double ev_time(RV_Context *ctx, int (*fn)(void *), void *arg)
{
    if (!ev_ready())
        return NAN;
    rv_context_sync(ctx);
    unsigned long long ns = 300000;
    void *prm[1] = {&ns};
    float ms = 0;
    if (cu.launch(ev_spin, 1, 1, 1, 1, 1, 1, 0, NULL, prm, NULL) != 0 || cu.event_record(ev0, NULL) != 0)
        return NAN;
    const int err = fn(arg);
    if (err < 0)
        die(ctx, "timed run", err);
    if (cu.event_record(ev1, NULL) != 0 || cu.event_synchronize(ev1) != 0 || cu.event_elapsed(&ms, ev0, ev1) != 0)
        return NAN;
    return ms * 1e-3;
}
#endif

typedef struct copy_run {
    const RV_Kernel *k;
    RV_LaunchShape *sh;
    const void *a;
    size_t asize;
    int reps;
} copy_run;

static int copy_fn(void *p)
{
    const copy_run *c = (const copy_run *)p;
    int err = 0;
    for (int i = 0; i < c->reps && err >= 0; i++)
        err = rv_launch_raw(c->k, c->sh, c->a, c->asize);
    return err;
}

typedef struct fwd_run {
    RV_Dwt *d;
    RV_Buffer *buf;
    int N, levels;
} fwd_run;

static int fwd_fn(void *p)
{
    const fwd_run *f = (const fwd_run *)p;
    return rv_dwt_forward_buffer(f->d, f->buf, f->N, f->N, (size_t)f->N * 4, f->levels);
}

#if RV_BENCH_EVENTS
static int inv_fn(void *p)
{
    const fwd_run *f = (const fwd_run *)p;
    return rv_dwt_inverse_buffer(f->d, f->buf, f->N, f->N, (size_t)f->N * 4, f->levels);
}
#endif

/* Measured bandwidth: copy src -> dst (N x N floats) with dwt_split mode 2; reps copies
 * back to back between two syncs a round (1: one copy, its launch and sync included);
 * ev (RV_BENCH_EVENTS): the GPU time of the copies by events instead (see ev_time). */
static double measure_bw(RV_Context *ctx, RV_Buffer *src, RV_Buffer *dst, int N, int cpu, int reps, int ev)
{
    RV_Module *m = NULL;
    const RV_Kernel *k = NULL;
    int err;
    /* the GPU copies 16 bytes a thread, DWT_COPY_Q in flight (dwt_copy16); the CPU
     * copies rows with memcpy (dwt_split, mode copy) */
    if ((err = rv_module_load(ctx, "dwt", &m)) < 0 || (err = rv_kernel_get(m, cpu ? "dwt_split" : "dwt_copy16", &k)) < 0)
        die(ctx, "module", err);
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    dwt_split_args a; /* CPU */
    dwt_copy_args a16; /* GPU */
    memset(&a, 0, sizeof(a));
    memset(&a16, 0, sizeof(a16));
    copy_run c = {k, &sh, &a, sizeof(a), reps};
    if (cpu) {
        a.src = rv_buffer_address(src);
        a.dst = rv_buffer_address(dst);
        a.src_pitch = a.dst_pitch = (int64_t)N * 4;
        a.axis = 0;
        a.n = N;
        a.nlines = N;
        a.mode = 2;
        a.tile_a = N;
        a.tile_b = N >= 16384 ? 1 : 16384 / N;
        sh.block[0] = 1;
        sh.grid[0] = 1;
        sh.grid[1] = (unsigned)((N + a.tile_b - 1) / a.tile_b);
    } else {
        const int64_t per = 4ll * DWT_COPY_Q * 256;
        a16.src = rv_buffer_address(src);
        a16.dst = rv_buffer_address(dst);
        a16.words = (int64_t)N * N;
        sh.block[0] = 256;
        sh.grid[0] = (unsigned)((a16.words + per - 1) / per);
        c.a = &a16;
        c.asize = sizeof(a16);
    }
    double best = 1e30;
    (void)ev; /* (events: GPU builds only) */
    for (int r = 0; r < 6; r++) {
        double t;
#if RV_BENCH_EVENTS
        if (ev) {
            t = ev_time(ctx, copy_fn, &c) / reps;
            if (isnan(t)) {
                rv_module_unload(&m);
                return NAN;
            }
        } else
#endif
        {
            rv_context_sync(ctx);
            double t0 = now();
            if ((err = copy_fn(&c)) < 0)
                die(ctx, "copy", err);
            rv_context_sync(ctx);
            t = (now() - t0) / reps;
        }
        if (r > 0 && t < best)
            best = t;
    }
    rv_module_unload(&m);
    return 8.0 * N * (double)N / best;
}

/* Peer scripts next to this program, run once per N by $RV_BENCH_PYTHON
 * (default python3): GPU torch_dwt.py (PyTorch), CPU pywt_dwt.py
 * (PyWavelets, CDF 9/7 only). ms[w][l] (w: CDF 9/7, DD(13,7); l: 1 and 5
 * levels) NAN where the script gives none; *copy: the peer's copy bandwidth
 * of the image in B/s (NAN if none). Other lines are printed after "# tag: ". */
static void peer_ms(const char *self, const char *script, const char *tag, int N, double ms[2][2], double *copy)
{
    for (int i = 0; i < 4; i++)
        ms[i / 2][i % 2] = NAN;
    *copy = NAN;
    char dir[1024], cmd[1400];
    snprintf(dir, sizeof(dir), "%s", self);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof(dir), ".");
    const char *py = getenv("RV_BENCH_PYTHON");
    snprintf(cmd, sizeof(cmd), "%s %s/%s %d 2>&1", py && *py ? py : "python3", dir, script, N);
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    char line[512];
    while (fgets(line, sizeof(line), p)) {
        char wav[16];
        int lev;
        double v;
        if (sscanf(line, "ms %15s %d %lf", wav, &lev, &v) == 3)
            ms[strcmp(wav, "cdf97") ? 1 : 0][lev == 1 ? 0 : 1] = v;
        else if (sscanf(line, "copy_gbs %lf", &v) == 1)
            *copy = v * 1e9;
        else
            printf("# %s: %s", tag, line);
    }
    pclose(p);
}

/* CPU peer: a plain single-threaded lifting loop (rows, then columns via a line buffer). */
static void plain_line(float *x, float *t, int n, const RV_DwtWavelet wv)
{
    const int nS = (n + 1) / 2, nD = n / 2;
    float *s = t, *d = t + nS;
    for (int k = 0; k < nS; k++)
        s[k] = x[2 * k];
    for (int k = 0; k < nD; k++)
        d[k] = x[2 * k + 1];
#define S(i) s[(i) < 0 ? -(i) : (i) >= nS ? 2 * nS - 2 - (i) - (n % 2 ? 0 : -1) : (i)]
#define D(i) d[(i) < 0 ? -(i) - 1 : (i) >= nD ? 2 * nD - 1 - (i) - (n % 2 ? 1 : 0) : (i)]
    if (wv == RV_DWT_CDF97) {
        const float a = -1.586134342f, b = -0.05298011857f, g = 0.8829110755f, dl = 0.4435068520f, K = 1.230174105f;
        for (int k = 0; k < nD; k++)
            d[k] += a * (S(k) + S(k + 1));
        for (int k = 0; k < nS; k++)
            s[k] += b * (D(k - 1) + D(k));
        for (int k = 0; k < nD; k++)
            d[k] += g * (S(k) + S(k + 1));
        for (int k = 0; k < nS; k++)
            s[k] += dl * (D(k - 1) + D(k));
        for (int k = 0; k < nS; k++)
            s[k] /= K;
        for (int k = 0; k < nD; k++)
            d[k] *= K;
    } else {
        for (int k = 0; k < nD; k++)
            d[k] -= (9 * (S(k) + S(k + 1)) - (S(k - 1) + S(k + 2))) / 16;
        for (int k = 0; k < nS; k++)
            s[k] += (9 * (D(k - 1) + D(k)) - (D(k - 2) + D(k + 1))) / 32;
    }
#undef S
#undef D
    memcpy(x, t, (size_t)n * 4);
}

static double plain_ms(const float *img, int N, int levels, RV_DwtWavelet wv)
{
    if (N < 2 || N > 32768)
        return NAN;
    float *x = malloc((size_t)N * N * 4), *t = malloc((size_t)N * 4 * 2), *col = malloc((size_t)N * 4);
    memcpy(x, img, (size_t)N * N * 4);
    double t0 = now();
    int w = N, h = N;
    for (int l = 0; l < levels && w >= 2; l++) {
        for (int y = 0; y < h; y++)
            plain_line(x + (size_t)y * N, t, w, wv);
        for (int c = 0; c < w; c++) {
            for (int y = 0; y < h; y++)
                col[y] = x[(size_t)y * N + c];
            plain_line(col, t, h, wv);
            for (int y = 0; y < h; y++)
                x[(size_t)y * N + c] = col[y];
        }
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
    double ms = (now() - t0) * 1e3;
    free(x);
    free(t);
    free(col);
    return ms;
}

/*
 * End to end from host memory (rv_dwt_forward_host, CDF 9/7): the image in
 * (pageable) host memory, coefficients back into host memory. The bound is
 * the time of one upload plus one download of the image through the same
 * copy calls (rv_buffer_upload / rv_buffer_download), measured here; the
 * fraction is bound / time. With a transfer context the floor of the pipelined
 * cases is measured too: the image up (transfer context, second thread) and
 * down at the same time ("both ways / time"; on an H200 both directions at once
 * run at 46-50 GB/s each, not the 55 of one alone).
 * Cases: the whole image at once, split by a
 * device memory limit of n/2, the same with a transfer context (copies
 * on their own stream, uploads on a second thread beside the downloads), and
 * no limit with a transfer context (host_stripes: automatic, or each k of
 * RV_DWT_BENCH_STRIPES). The inverse of each case
 * (coefficients in host memory back to the image) is timed the same way and
 * checked against the image.
 */
/* e2e_run's copy both ways at once: the upload on a second thread. */
typedef struct dup_task {
    RV_Buffer *b;
    const float *host;
    size_t hp, rb;
    int N, err;
} dup_task;

static void *dup_main(void *p)
{
    dup_task *t = p;
    t->err = rv_buffer_upload_rows(t->b, 0, t->rb, t->host, t->hp, t->rb, (size_t)t->N);
    return NULL;
}

static void e2e_run(RV_Context *ctx, RV_Buffer *buf, const float *host, float *out, float *rec, size_t hp, int N,
                    int cpu, const char *mem)
{
    const size_t bytes = (size_t)N * (size_t)N * 4, rb = (size_t)N * 4;
    int err;
    double tu = 1e30, td = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        if ((err = rv_buffer_upload_rows(buf, 0, rb, host, hp, rb, (size_t)N)) < 0)
            die(ctx, "upload", err);
        double t1 = now();
        if ((err = rv_buffer_download_rows(buf, 0, rb, out, hp, rb, (size_t)N)) < 0)
            die(ctx, "download", err);
        double t2 = now();
        tu = t1 - t0 < tu ? t1 - t0 : tu;
        td = t2 - t1 < td ? t2 - t1 : td;
    }
    const double bound = tu + td;
    RV_Context *xfer = NULL;
    if (!cpu) {
        RV_Settings cs;
        rv_settings_default(&cs);
        cs.backend = RV_BACKEND_CUDA;
        cs.log_level = RV_LOG_WARN;
        if (rv_context_create(&xfer, &cs) < 0)
            xfer = NULL;
    }
    /* the floor of the pipelined cases: the image up (through the transfer context, on
     * a second thread) and down (this one) at the same time, as measured */
    double tb = NAN;
    if (xfer) {
        RV_Buffer *bx = NULL;
        if ((err = rv_buffer_create(xfer, bytes, &bx)) < 0)
            die(xfer, "buffer", err);
        tb = 1e30;
        for (int r = 0; r < 3; r++) {
            dup_task t = {bx, host, hp, rb, N, 0};
            pthread_t th;
            const double t0 = now();
            const int spawned = pthread_create(&th, NULL, dup_main, &t) == 0;
            if (!spawned)
                dup_main(&t);
            err = rv_buffer_download_rows(buf, 0, rb, out, hp, rb, (size_t)N);
            if (spawned)
                pthread_join(th, NULL);
            const double t1 = now() - t0;
            if (err < 0 || t.err < 0)
                die(err < 0 ? ctx : xfer, "copies both ways", err < 0 ? err : t.err);
            tb = t1 < tb ? t1 : tb;
        }
        rv_buffer_destroy(&bx);
    }
    printf("\nend to end from %s host memory, N = %d: upload %.2f ms (%.1f GB/s), download %.2f ms (%.1f GB/s): bound "
           "%.2f ms",
           mem, N, tu * 1e3, bytes / tu / 1e9, td * 1e3, bytes / td / 1e9, bound * 1e3);
    if (xfer)
        printf("; both directions at once, as the transfer-context pipeline runs them: %.2f ms measured (%.1f GB/s "
               "each way; %.0f %% of the bound), %.2f ms if each ran as fast as alone\n",
               tb * 1e3, bytes / tb / 1e9, 100 * bound / tb, fmax(tu, td) * 1e3);
    else
        printf(" (no transfer context: no copies both ways at once)\n");
    printf("| N | L | memory | case | ms | bound / time | both ways / time | stripes | copied / 2n | peak device / n | "
           "inverse ms | inverse bound / time |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    /* cases 3..: the whole image with a transfer context, host_stripes 0 (automatic:
     * RV_DWT_HOST_STRIPES stripes from RV_DWT_HOST_PIPE_MIN bytes) or, with
     * RV_DWT_BENCH_STRIPES="4 8 16", each k given */
    int ks[8] = {0}, nk = 1;
    const char *ke = getenv("RV_DWT_BENCH_STRIPES");
    if (ke && *ke) {
        nk = 0;
        for (char *e = NULL; *ke && nk < 8; ke = e) {
            const long v = strtol(ke, &e, 10);
            if (e == ke)
                break;
            if (v >= 0 && v < 100000)
                ks[nk++] = (int)v;
            while (*e == ' ' || *e == ',')
                e++;
        }
    }
    /* RV_DWT_BENCH_CASCADE="on off 16777216": host_cascade_min values for the
     * five-level cases with a transfer context, a row each (on: the library's
     * default, off: none, a number: bytes); default "on" */
    size_t cm[6] = {0};
    int ncm = 1;
    const char *ce = getenv("RV_DWT_BENCH_CASCADE");
    if (ce && *ce) {
        ncm = 0;
        char tok[32];
        for (int at = 0, len; ncm < 6 && sscanf(ce + at, " %31[^ ,]%n", tok, &len) == 1; at += len) {
            cm[ncm++] = !strcmp(tok, "off") ? (size_t)-1 : !strcmp(tok, "on") ? 0 : (size_t)strtoull(tok, NULL, 10);
            while (ce[at + len] == ',')
                len++;
        }
        if (ncm == 0)
            cm[ncm++] = 0;
    }
    const int levs[2] = {1, 5};
    for (int li = 0; li < 2; li++)
        for (int cv = 0; cv < 6 * (3 + nk); cv++) {
            const int c = cv / 6, ci = cv % 6;
            if ((c >= 2 && !xfer) || ci >= ncm || (ci > 0 && (li == 0 || c < 2)))
                continue;
            RV_DwtSettings s;
            rv_dwt_settings_default(&s);
            s.device_memory_limit = c == 1 || c == 2 ? bytes / 2 + 65536 : 0;
            s.transfer_ctx = c >= 2 ? xfer : NULL;
            s.host_stripes = c >= 3 ? ks[c - 3] : 0;
            s.host_cascade_min = cm[ci];
            RV_Dwt *d = NULL;
            if ((err = rv_dwt_create(ctx, &s, &d)) < 0)
                die(ctx, "dwt", err);
            double best = 1e30, ibest = 1e30;
            RV_DwtStats st;
            for (int r = 0; r < 3; r++) {
                rv_dwt_stats_reset(d);
                double t0 = now();
                if ((err = rv_dwt_forward_host(d, host, out, N, N, hp, levs[li])) < 0)
                    die(ctx, rv_dwt_error(d), err);
                double t = now() - t0;
                if (t < best)
                    best = t;
                rv_dwt_stats(d, &st);
                t0 = now();
                if ((err = rv_dwt_inverse_host(d, out, rec, N, N, hp, levs[li])) < 0)
                    die(ctx, rv_dwt_error(d), err);
                t = now() - t0;
                if (t < ibest)
                    ibest = t;
            }
            double maxerr = 0;
            for (int y = 0; y < N; y++) {
                const float *a = (const float *)((const char *)rec + (size_t)y * hp),
                            *b = (const float *)((const char *)host + (size_t)y * hp);
                for (int x = 0; x < N; x++)
                    maxerr = fmax(maxerr, fabs((double)a[x] - b[x]));
            }
            if (!(maxerr < 1e-4)) {
                fprintf(stderr, "rv-bench-dwt: end to end inverse off by %g\n", maxerr);
                exit(1);
            }
            static const char *names[3] = {"whole", "limit n/2", "limit n/2 + transfer ctx"};
            char name[96];
            if (c < 3)
                snprintf(name, sizeof(name), "%s", names[c]);
            else if (ks[c - 3])
                snprintf(name, sizeof(name), "transfer ctx, host_stripes %d", ks[c - 3]);
            else
                snprintf(name, sizeof(name), "transfer ctx (host_stripes auto)");
            if (st.cascade_levels || ncm > 1) {
                char mn[40];
                if (cm[ci] == (size_t)-1 || !cm[ci])
                    snprintf(mn, sizeof(mn), "%s", cm[ci] ? "off" : "default");
                else
                    snprintf(mn, sizeof(mn), "given %zu", cm[ci]);
                snprintf(name + strlen(name), sizeof(name) - strlen(name), ", cascade %lld (min %s)",
                         st.cascade_levels, mn);
            }
            char both[16] = "-"; /* (no transfer context) */
            if (xfer)
                snprintf(both, sizeof(both), "%.1f%%", 100 * tb / best);
            printf("| %d | %d | %s | %s | %.2f | %.1f%% | %s | %lld | %.3f | %.3f | %.2f | %.1f%% |\n", N, levs[li],
                   mem, name, best * 1e3, 100 * bound / best, both, st.stripes,
                   (st.upload_bytes + st.download_bytes) / (2.0 * bytes), st.peak_device_bytes / bytes, ibest * 1e3,
                   100 * bound / ibest);
            rv_dwt_destroy(&d);
        }
    rv_context_destroy(&xfer);
}

/*
 * e2e_run with the host image in pageable memory (malloc) and, on the GPU, in
 * page-locked memory: the planes of GRAYF32 images on the CUDA context (the
 * backend allocates image storage with cuMemHostAlloc), which the copies move
 * by DMA at the bus's rate. On the GPU, pageable memory twice: copied as the
 * library does (staged through its page-locked buffers), and by the driver's
 * own pageable copies (contexts made with RAVIOLI_CUDA_STAGED=0).
 * RV_DWT_BENCH_HOSTMEM = pageable, locked or both (default both).
 */
static void e2e(RV_Context *ctx, RV_Buffer *buf, const float *host, int N, int cpu)
{
    const size_t bytes = (size_t)N * (size_t)N * 4;
    const char *me = getenv("RV_DWT_BENCH_HOSTMEM");
    const int pageable = !me || !*me || strcmp(me, "locked") != 0, locked = !cpu && (!me || strcmp(me, "pageable") != 0);
    if (pageable) {
        float *out = malloc(bytes), *rec = malloc(bytes);
        if (!out || !rec)
            die(ctx, "host memory", RV_ENOMEM);
        e2e_run(ctx, buf, host, out, rec, (size_t)N * 4, N, cpu, cpu ? "pageable" : "pageable (staged)");
        if (!cpu) {
            /* the driver's pageable copies: a context (and e2e_run's transfer context)
             * made without staging */
            RV_Settings cs;
            rv_settings_default(&cs);
            cs.backend = RV_BACKEND_CUDA;
            cs.log_level = RV_LOG_WARN;
            RV_Context *c2 = NULL;
            RV_Buffer *b2 = NULL;
            int err;
            setenv("RAVIOLI_CUDA_STAGED", "0", 1);
            if ((err = rv_context_create(&c2, &cs)) < 0 || (err = rv_buffer_create(c2, bytes, &b2)) < 0)
                die(c2 ? c2 : ctx, "context without staging", err);
            e2e_run(c2, b2, host, out, rec, (size_t)N * 4, N, cpu, "pageable (driver)");
            unsetenv("RAVIOLI_CUDA_STAGED");
            rv_buffer_destroy(&b2);
            rv_context_destroy(&c2);
        }
        free(rec);
        free(out);
    }
    if (locked) {
        RV_Image *im[3] = {NULL, NULL, NULL};
        float *p[3];
        ptrdiff_t pitch[3];
        int err;
        for (int i = 0; i < 3; i++) {
            if ((err = rv_image_create(ctx, N, N, RV_FMT_GRAYF32, &im[i])) < 0)
                die(ctx, "page-locked image", err);
            if (!(p[i] = rv_image_write(im[i], 0, &pitch[i])))
                die(ctx, "page-locked image", RV_EINVAL);
        }
        if (pitch[0] != pitch[1] || pitch[0] != pitch[2]) {
            fprintf(stderr, "rv-bench-dwt: page-locked images of one size with different pitches\n");
            exit(1);
        }
        for (int y = 0; y < N; y++)
            memcpy((char *)p[0] + (size_t)y * (size_t)pitch[0], host + (size_t)y * (size_t)N, (size_t)N * 4);
        e2e_run(ctx, buf, p[0], p[1], p[2], (size_t)pitch[0], N, cpu, "page-locked");
        for (int i = 0; i < 3; i++)
            rv_image_destroy(&im[i]);
    }
}

static const char *KNAMES[] = {"rowfused", "split", "chunkgen", "permute", "rotate", "step", "other", "colfused", "tilefused", "level2d"};
_Static_assert(sizeof(KNAMES) / sizeof(KNAMES[0]) == RV_DWT_KERNEL_COUNT, "a name for every kernel kind of rv_dwt_stats");

int main(int argc, char **argv)
{
    int sizes[16], ns = 0;
    for (int i = 1; i < argc && ns < 16; i++) {
        const int v = atoi(argv[i]);
        if (v < 2 || v > 32768) {
            fprintf(stderr, "rv-bench-dwt: size %s outside 2..32768\n", argv[i]);
            return 2;
        }
        sizes[ns++] = v;
    }
    if (!ns) {
#if RV_BENCH_GPU
        const int def[] = {2048, 4096, 8192, 16384};
#else
        const int def[] = {1024, 2048, 4096};
#endif
        for (size_t i = 0; i < sizeof(def) / sizeof(def[0]); i++)
            sizes[ns++] = def[i];
    }
    RV_Settings cs;
    rv_settings_default(&cs);
    cs.backend = RV_BENCH_GPU ? RV_BACKEND_CUDA : RV_BACKEND_CPU;
    cs.log_level = RV_LOG_WARN;
    RV_Context *ctx = NULL;
    int err = rv_context_create(&ctx, &cs);
    if (err < 0) {
        printf("rv-bench-dwt: no %s context (%s): nothing measured\n", RV_BENCH_GPU ? "CUDA" : "CPU", rv_strerror(err));
        return RV_BENCH_GPU && err == RV_ENODEV ? 77 : 1;
    }
    const int cpu = !RV_BENCH_GPU;
    printf("# rv-bench-%sdwt: backend %s, threads %d; times: %s\n", cpu ? "" : "gpu-",
           rv_backend_name(rv_context_backend(ctx)), rv_context_threads(ctx),
           cpu ? "host clock around rv_context_sync"
               : "GPU time by CUDA events where the driver has them (else the host clock); \"host ms\": "
                 "host clock around rv_context_sync");
    /* RV_DWT_VARIANT="3 0": RV_DwtSettings.gpu_variant values (bits select older kernel
     * paths), one table each at every N, so before and after come from one run */
    unsigned variants[8];
    int nv = 0;
    const char *ve = getenv("RV_DWT_VARIANT");
    for (char *e = NULL; ve && *ve && nv < 8; ve = e) {
        const unsigned long v = strtoul(ve, &e, 0);
        if (e == ve)
            break;
        variants[nv++] = (unsigned)v;
        while (*e == ' ' || *e == ',')
            e++;
    }
    if (nv == 0)
        variants[nv++] = 0;
    const RV_DwtWavelet wvs[2] = {RV_DWT_CDF97, RV_DWT_DD137};
    const char *wnames[2] = {"cdf97", "dd137"};
    /* RV_DWT_BENCH_LEVELS="1 2 3 4 5": the level counts measured (default 1 and 5; the
     * peer column only for 1 and 5) */
    int levs[8] = {1, 5}, nlev = 2;
    /* RV_DWT_FUSE_MAX=bytes: the settings' fuse_max_shared (default: the library's) */
    const char *fe = getenv("RV_DWT_FUSE_MAX");
    const long fuse_max = fe && *fe ? strtol(fe, NULL, 10) : -1;
    if (fuse_max >= 0)
        printf("fuse_max_shared = %ld\n", fuse_max);
    const char *le = getenv("RV_DWT_BENCH_LEVELS");
    if (le && *le) {
        nlev = 0;
        for (char *e = NULL; nlev < 8 && *le; le = e) {
            const long v = strtol(le, &e, 10);
            if (e == le)
                break;
            if (v >= 1 && v <= 16)
                levs[nlev++] = (int)v;
        }
        if (nlev == 0)
            levs[nlev++] = 5;
    }
    for (int si = 0; si < ns; si++) {
        const int N = sizes[si] < 2 ? 2 : sizes[si] > 32768 ? 32768 : sizes[si];
        const size_t bytes = (size_t)N * (size_t)N * 4;
        RV_Buffer *buf = NULL, *aux = NULL;
        if ((err = rv_buffer_create(ctx, bytes, &buf)) < 0 || (err = rv_buffer_create(ctx, bytes, &aux)) < 0)
            die(ctx, "buffer", err);
        float *host = malloc(bytes);
        uint64_t st = 88172645463325252ull;
        for (size_t i = 0; i < (size_t)N * N; i++) {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            host[i] = (float)(st >> 40) / 16777216.0f;
        }
        if ((err = rv_buffer_upload(buf, 0, host, bytes)) < 0)
            die(ctx, "upload", err);
        const double Pk = measure_bw(ctx, buf, aux, N, cpu, 1, 0);
        /* GPU: the same copy 20 times back to back (no launch gap or clock ramp in the
         * time: a steady rate where the image is small, e.g. 16 MiB at 2K) */
        const double Pb = cpu ? NAN : measure_bw(ctx, buf, aux, N, cpu, 20, 0);
        /* GPU, events: one copy's GPU time (as the transforms are timed) */
        const double Pe = cpu || !RV_BENCH_EVENTS ? NAN : measure_bw(ctx, buf, aux, N, cpu, 1, 1);
        rv_buffer_destroy(&aux); /* the transforms run with the image alone */
        double tms[2][2], Pt;
        if (cpu)
            peer_ms(argv[0], "pywt_dwt.py", "pywt", N, tms, &Pt);
        else
            peer_ms(argv[0], "torch_dwt.py", "torch", N, tms, &Pt);
        /* the floor: the best copy measured in this run */
        double P = isnan(Pt) || Pt < Pk ? Pk : Pt;
        if (!isnan(Pb) && Pb > P)
            P = Pb;
        if (!isnan(Pe) && Pe > P)
            P = Pe;
        char back[96] = "";
        if (!isnan(Pb) && !isnan(Pe))
            snprintf(back, sizeof(back), " (20 back to back: %.1f; one, events: %.1f)", Pb / 1e9, Pe / 1e9);
        else if (!isnan(Pb))
            snprintf(back, sizeof(back), " (20 back to back: %.1f)", Pb / 1e9);
        char tcopy[48] = "";
        if (!isnan(Pt))
            snprintf(tcopy, sizeof(tcopy), ", torch copy %.1f GB/s", Pt / 1e9);
        printf("\nN = %d (%.0f MiB): copy bandwidth: module copy kernel %.1f GB/s%s%s; P = %.1f GB/s\n", N,
               bytes / 1048576.0, Pk / 1e9, back, tcopy, P / 1e9);
        for (int vi = 0; vi < nv; vi++) {
        const unsigned variant = variants[vi];
        if (nv > 1 || variant)
            printf("\ngpu_variant %u:\n", variant);
        const int evs = !cpu && RV_BENCH_EVENTS;
        printf("| N | wavelet | L | in-place ms | E | mem | out-of-place ms | E | mem | %s ms | %s/in-place | %s/out-of-place |%s\n",
               cpu ? "plain C" : "torch", cpu ? "plain C" : "torch", cpu ? "plain C" : "torch",
               evs ? " in-place host ms | out-of-place host ms |" : "");
        printf("|---|---|---|---|---|---|---|---|---|---|---|---|%s\n", evs ? "---|---|" : "");
        for (int wi = 0; wi < 2; wi++)
            for (int li = 0; li < nlev; li++) {
                double ms[2], E[2], mem[2], hms[2], ims[2] = {NAN, NAN};
                RV_DwtStats prof[2];
                for (int mi = 0; mi < 2; mi++) {
                    RV_DwtSettings s;
                    rv_dwt_settings_default(&s);
                    s.wavelet = wvs[wi];
                    s.method = mi == 0 ? RV_DWT_IN_PLACE : RV_DWT_OUT_OF_PLACE;
                    s.gpu_variant = variant;
                    if (fuse_max >= 0)
                        s.fuse_max_shared = fuse_max;
                    RV_Dwt *d = NULL;
                    if ((err = rv_dwt_create(ctx, &s, &d)) < 0)
                        die(ctx, "dwt", err);
                    double best = 1e30, gbest = 1e30, ibest = 1e30;
                    RV_DwtStats stt;
                    fwd_run fr = {d, buf, N, levs[li]};
                    for (int r = 0; r < (cpu ? 3 : 6); r++) {
                        rv_dwt_stats_reset(d);
                        rv_context_sync(ctx);
                        double t0 = now();
                        if ((err = fwd_fn(&fr)) < 0)
                            die(ctx, rv_dwt_error(d), err);
                        rv_context_sync(ctx);
                        double t = now() - t0;
                        rv_dwt_stats(d, &stt);
                        if ((err = rv_dwt_inverse_buffer(d, buf, N, N, (size_t)N * 4, levs[li])) < 0)
                            die(ctx, rv_dwt_error(d), err);
                        if (r > 0 && t < best)
                            best = t;
#if RV_BENCH_EVENTS
                        if (!cpu && ev_ready()) { /* (the inverse below only after a forward) */
                            const double tg = ev_time(ctx, fwd_fn, &fr);
                            const double ti = ev_time(ctx, inv_fn, &fr); /* the inverse, timed the same way */
                            if (r > 0 && tg < gbest)
                                gbest = tg;
                            if (r > 0 && ti < ibest)
                                ibest = ti;
                        }
#endif
                    }
                    double moved = 0;
                    for (int k = 0; k < RV_DWT_KERNEL_COUNT; k++)
                        moved += stt.bytes[k];
                    hms[mi] = best * 1e3;
                    if (ibest < 1e30)
                        ims[mi] = ibest * 1e3;
                    if (gbest < 1e30)
                        best = gbest; /* the table's time: the events' (kernel time) */
                    ms[mi] = best * 1e3;
                    E[mi] = moved / best / P;
                    mem[mi] = (double)(bytes + rv_dwt_memory(d)) / (double)bytes;
                    rv_dwt_destroy(&d);
                    /* profiled run for the breakdown */
                    s.profile = 1;
                    if ((err = rv_dwt_create(ctx, &s, &d)) < 0)
                        die(ctx, "dwt", err);
                    if ((err = rv_dwt_forward_buffer(d, buf, N, N, (size_t)N * 4, levs[li])) < 0 ||
                        (err = rv_dwt_inverse_buffer(d, buf, N, N, (size_t)N * 4, levs[li])) < 0)
                        die(ctx, rv_dwt_error(d), err);
                    rv_dwt_stats_reset(d);
                    if ((err = rv_dwt_forward_buffer(d, buf, N, N, (size_t)N * 4, levs[li])) < 0)
                        die(ctx, rv_dwt_error(d), err);
                    rv_dwt_stats(d, &prof[mi]);
                    if ((err = rv_dwt_inverse_buffer(d, buf, N, N, (size_t)N * 4, levs[li])) < 0)
                        die(ctx, rv_dwt_error(d), err);
                    rv_dwt_destroy(&d);
                }
                double pms = cpu ? (N <= 4096 ? plain_ms(host, N, levs[li], wvs[wi]) : NAN)
                                 : levs[li] == 1 ? tms[wi][0] : levs[li] == 5 ? tms[wi][1] : NAN;
                printf("| %d | %s | %d | %.3f | %.1f%% | %.3fn | %.3f | %.1f%% | %.3fn | %.3f | %.2fx | %.2fx |", N,
                       wnames[wi], levs[li], ms[0], 100 * E[0], mem[0], ms[1], 100 * E[1], mem[1], pms, pms / ms[0],
                       pms / ms[1]);
                if (evs)
                    printf(" %.3f | %.3f |", hms[0], hms[1]);
                printf("\n");
                {
                    const double yms = levs[li] == 1 ? tms[wi][0] : levs[li] == 5 ? tms[wi][1] : NAN;
                    if (cpu && !isnan(yms))
                        printf("    %s L%d PyWavelets (one thread): %.3f ms; pywt/in-place %.2fx, "
                               "pywt/out-of-place %.2fx\n",
                               wnames[wi], levs[li], yms, yms / ms[0], yms / ms[1]);
                }
                if (!isnan(ims[0]) || !isnan(ims[1]))
                    printf("    %s L%d inverse (events): in-place %.3f ms, out-of-place %.3f ms\n", wnames[wi],
                           levs[li], ims[0], ims[1]);
                {
                    /* E2: one fixed count for every plan, a row and a column pass a level each
                     * reading and writing the level once (16 bytes a sample a level); E above
                     * counts the plan's own kernels, so a plan that moves fewer bytes (levels
                     * in one pass) can show a lower E at a shorter time */
                    double two = 0;
                    for (long long l = 0, w = N, h = N; l < levs[li]; l++, w = (w + 1) / 2, h = (h + 1) / 2)
                        two += 16.0 * (double)w * (double)h;
                    printf("    %s L%d E2 (two passes a level, %.1f MB): in-place %.1f%%, out-of-place %.1f%%\n",
                           wnames[wi], levs[li], two / 1e6, 100 * two / (ms[0] * 1e-3) / P,
                           100 * two / (ms[1] * 1e-3) / P);
                }
                for (int mi = 0; mi < 2; mi++) {
                    printf("    %s %s L%d breakdown:", wnames[wi], mi ? "out-of-place" : "in-place", levs[li]);
                    for (int k = 0; k < RV_DWT_KERNEL_COUNT; k++)
                        if (prof[mi].launches[k])
                            printf(" %s %lldx %.3f ms E %.1f%%;", KNAMES[k], prof[mi].launches[k],
                                   prof[mi].seconds[k] * 1e3,
                                   100 * prof[mi].bytes[k] / prof[mi].seconds[k] / P);
                    printf("\n");
                }
            }
        }
        {
            /* every forward above was followed by its inverse: the image must have come back
             * (a check that the transforms ran right at this size, e.g. no overflow at 32K) */
            float *rt = malloc(bytes);
            if (!rt || (err = rv_buffer_download(buf, 0, rt, bytes)) < 0)
                die(ctx, "download", rt ? err : RV_ENOMEM);
            double mx = 0;
            for (size_t i = 0; i < (size_t)N * N; i++)
                mx = fmax(mx, fabs((double)rt[i] - (double)host[i]));
            printf("round trip of all the runs above at N = %d: max |error| %.3g (samples in [0, 1))\n", N, mx);
            free(rt);
        }
        if (!getenv("RV_DWT_BENCH_NO_E2E"))
            e2e(ctx, buf, host, N, cpu);
        free(host);
        rv_buffer_destroy(&buf);
    }
    rv_context_destroy(&ctx);
    return 0;
}
