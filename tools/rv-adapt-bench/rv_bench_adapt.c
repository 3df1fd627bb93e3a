/*
 * rv-bench-adapt - the adaptation controller under a real CPU load.
 *
 * A CPU stage (the samples module's emboss, procNbr, on a 1080p RGBA frame)
 * processes frames that arrive every D seconds (a live source) while a
 * bounded CPU hog competes: child processes that spin for a fixed time and
 * end by themselves. Three policies are measured in one run, one after the
 * other, under the same load schedule:
 *
 *   adapt  rv_adapt chooses (S_I, S_T); when processing fell behind, the
 *          newest frame that arrived is taken next (live source)
 *   qos    temporal-only dropping, as GStreamer's QoS does: always full
 *          resolution; frames that can no longer be on time are skipped
 *          (the newest arrived frame is taken next)
 *   off    every frame at full resolution, in order (frames queue up)
 *
 * With --backend cuda the stage runs on the GPU and the load is GPU
 * contention instead: other processes (this program re-executed with
 * --gpu-hog, each with its own CUDA context) run the same kernel on a large
 * image back to back on the same device for a bounded time, so the device
 * time-slices between them and the stage.
 *
 * A processed frame is on time when it finishes within its budget after
 * its arrival (S_T * D for adapt, D otherwise); the controller is given
 * that latency too (rv_adapt_update_latency). Per-frame CSVs (the
 * rv_adapt_log_write() columns plus latency_ms and dropped) are written for
 * rv-plot.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ravioli/adapt.h>
#include <ravioli/ravioli.h>

#define MAX_HOGS 16

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_until(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L)
        ts.tv_nsec = 999999999L;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
}

/* ---------------- the CPU hog: bounded in count and time ---------------- */

typedef struct hogs {
    pid_t pid[MAX_HOGS];
    int n;
} hogs;

static int g_gpu_hog;           /* the load is GPU contention (--backend cuda) */
static char g_self[4096];       /* this program, for the GPU hog children */

/* Starts n children that spin until `until` (CLOCK_MONOTONIC) and exit;
 * an alarm ends them even if the parent is gone. GPU hogs re-execute this
 * program (a fresh process: CUDA does not survive fork) with --gpu-hog. */
static void hogs_start(hogs *h, int n, double until)
{
    double dur = until - now_s();
    for (int i = 0; i < n && h->n < MAX_HOGS; i++) {
        pid_t p = fork();
        if (p == 0 && g_gpu_hog) {
            char arg[64];
            snprintf(arg, sizeof(arg), "%.6f", until);
            alarm((unsigned)ceil(dur) + 10);
            execl(g_self, g_self, "--gpu-hog", arg, (char *)NULL);
            _exit(127);
        }
        if (p == 0) {
            alarm((unsigned)ceil(dur) + 2);
            volatile double x = 1.0;
            while (now_s() < until)
                for (int k = 0; k < 100000; k++)
                    x = x * 1.0000001 + 1e-9;
            _exit(0);
        }
        if (p > 0)
            h->pid[h->n++] = p;
    }
}

static void hogs_reap(hogs *h, int block)
{
    for (int i = 0; i < h->n;) {
        int st;
        pid_t r = waitpid(h->pid[i], &st, block ? 0 : WNOHANG);
        if (r == h->pid[i] || r < 0) {
            h->pid[i] = h->pid[--h->n];
        } else {
            i++;
        }
    }
}

/* ---------------- the stage ---------------- */

typedef struct stage {
    RV_Context *ctx;
    RV_Module *mod;
    const RV_Kernel *k;
    RV_Image *src, *dst;
    int passes;
} stage;

static double stage_run(stage *s, int si)
{
    rv_image_set_stride(s->src, si);
    double t = now_s();
    for (int i = 0; i < s->passes; i++)
        if (rv_proc_nbr(s->k, s->dst, s->src, NULL, 0) < 0) {
            fprintf(stderr, "rv-bench-adapt: procNbr failed: %s\n", rv_context_error(s->ctx));
            exit(1);
        }
    if (rv_context_sync(s->ctx) < 0) {
        fprintf(stderr, "rv-bench-adapt: sync failed: %s\n", rv_context_error(s->ctx));
        exit(1);
    }
    return now_s() - t;
}

static int stage_open(stage *st, RV_Backend be, int threads, int w, int hgt)
{
    memset(st, 0, sizeof(*st));
    st->passes = 1;
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = be;
    s.threads = threads;
    s.log_level = RV_LOG_WARN;
    if (rv_context_create(&st->ctx, &s) < 0 || rv_module_load(st->ctx, "samples", &st->mod) < 0 ||
        rv_kernel_get(st->mod, "emboss", &st->k) < 0 || rv_image_create(st->ctx, w, hgt, RV_FMT_RGBA8, &st->src) < 0 ||
        rv_image_create(st->ctx, w, hgt, RV_FMT_RGBA8, &st->dst) < 0) {
        fprintf(stderr, "rv-bench-adapt: setup failed: %s\n", st->ctx ? rv_context_error(st->ctx) : "no context");
        return -1;
    }
    ptrdiff_t pitch;
    unsigned char *p = rv_image_write(st->src, 0, &pitch);
    if (!p)
        return -1;
    uint32_t x = 12345;
    for (int y = 0; y < hgt; y++)
        for (int i = 0; i < w * 4; i++) {
            x = x * 1664525u + 1013904223u;
            p[y * pitch + i] = (unsigned char)(((x >> 24) & 63) + (i / 4 + y) % 192);
        }
    return 0;
}

static void stage_close(stage *st)
{
    rv_image_destroy(&st->src);
    rv_image_destroy(&st->dst);
    rv_module_unload(&st->mod);
    rv_context_destroy(&st->ctx);
}

/* The GPU hog: its own process and CUDA context, the same kernel on an 8K
 * image, 4 launches between synchronisations, until `until`. */
static int gpu_hog_main(double until)
{
    stage st;
    if (stage_open(&st, RV_BACKEND_CUDA, 1, 7680, 4320) < 0)
        return 1;
    long long n = 0;
    while (now_s() < until) {
        for (int i = 0; i < 4; i++)
            if (rv_proc_nbr(st.k, st.dst, st.src, NULL, 0) < 0)
                return 1;
        if (rv_context_sync(st.ctx) < 0)
            return 1;
        n += 4;
    }
    stage_close(&st);
    fprintf(stderr, "rv-bench-adapt: gpu hog %d: %lld kernels\n", (int)getpid(), n);
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q of n runs at stride si. */
static double time_quantile(stage *s, int si, int n, double q)
{
    double v[128];
    if (n > 128)
        n = 128;
    for (int i = 0; i < n; i++)
        v[i] = stage_run(s, si);
    qsort(v, (size_t)n, sizeof(double), cmp_d);
    return v[(int)(q * (n - 1))];
}

/* ---------------- one policy ---------------- */

enum { MODE_ADAPT, MODE_QOS, MODE_OFF };
static const char *mode_name[] = {"adapt", "qos", "off"};

typedef struct config {
    double seconds, deadline;
    int hogs_a, hogs_b;
    double a0, a1, b0, b1; /* hog phases, seconds from the start */
    RV_Priority priority;
    const char *csv_dir;
    int rounds;
    double react; /* reaction window after the start of each load phase (s) */
} config;

typedef struct result {
    long long src_frames, processed, met, covered, dropped;
    long long proc_a, met_a, proc_b, met_b; /* during the hog phases */
    long long proc_rw, met_rw, cov_rw, src_rw; /* in the reaction windows (start of each phase) */
    double back_sum;                        /* adapt: s from the end of a phase to S = (1,1) */
    int back_n, back_never;
    double pix_sum, si_sum;
    double lat[200000];
    long long nlat;
} result;

static result g_res[3];

static void run_mode(int mode, int round, stage *st, const config *cf, result *r)
{
    char path[1024];
    if (round == 0)
        snprintf(path, sizeof(path), "%s/adapt_%s.csv", cf->csv_dir, mode_name[mode]);
    else
        snprintf(path, sizeof(path), "%s/adapt_%s_r%d.csv", cf->csv_dir, mode_name[mode], round + 1);
    FILE *csv = fopen(path, "w");
    if (!csv) {
        fprintf(stderr, "rv-bench-adapt: cannot write %s\n", path);
        exit(1);
    }
    fprintf(csv, "%s,latency_ms,dropped\n", rv_adapt_csv_header());

    RV_Adapt *ad = NULL;
    if (mode == MODE_ADAPT) {
        RV_AdaptSettings s;
        rv_adapt_settings_default(&s);
        s.deadline_s = cf->deadline;
        s.priority = cf->priority;
        if (rv_adapt_create(&ad, &s) < 0) {
            fprintf(stderr, "rv-bench-adapt: rv_adapt_create failed\n");
            exit(1);
        }
    }
    const double D = cf->deadline;
    const long long nsrc = (long long)floor(cf->seconds / D);
    r->src_frames += nsrc;
    hogs h = {{0}, 0};
    int phase_a = 0, phase_b = 0, back_a = 0, back_b = 0;
    const double t0 = now_s() + 0.05;
    long long k = 0;
    while (k < nsrc) {
        const double arrival = t0 + (double)k * D;
        double t = now_s();
        if (t - t0 > cf->seconds + 2.0)
            break; /* a backlog (off) is not worked off beyond the run */
        /* the load schedule */
        if (!phase_a && t - t0 >= cf->a0) {
            hogs_start(&h, cf->hogs_a, t0 + cf->a1);
            phase_a = 1;
        }
        if (!phase_b && t - t0 >= cf->b0) {
            hogs_start(&h, cf->hogs_b, t0 + cf->b1);
            phase_b = 1;
        }
        hogs_reap(&h, 0);
        if (t < arrival) {
            sleep_until(arrival);
            continue; /* re-check the schedule at the arrival */
        }
        int dropped = 0;
        if (mode != MODE_OFF) {
            /* live source: when behind, take the newest frame that has arrived */
            long long newest = (long long)floor((t - t0) / D);
            if (newest > k) {
                if (newest >= nsrc)
                    break;
                dropped = (int)(newest - k);
                r->dropped += dropped;
                k = newest;
            }
        }
        const double arr = t0 + (double)k * D;
        int si = 1, stt = 1;
        if (ad)
            rv_adapt_strides(ad, &si, &stt);
        const double start = now_s();
        const double proc = stage_run(st, si);
        const double end = start + proc;
        const double budget = stt * D;
        const double lat = end - arr;
        const int met = lat <= budget;
        RV_AdaptRecord rec;
        if (ad) {
            rv_adapt_update_latency(ad, end - t0, proc, lat, si, stt);
            rv_adapt_last_record(ad, &rec);
        } else {
            memset(&rec, 0, sizeof(rec));
            rec.frame = r->processed;
            rec.time_s = end - t0;
            rec.proc_s = proc;
            rec.latency_s = lat;
            rec.deadline_s = D;
            rec.budget_s = budget;
            rec.s_spatial = rec.next_spatial = 1;
            rec.s_temporal = rec.next_temporal = 1;
            rec.reason = RV_ADAPT_FIXED;
        }
        rec.met = met; /* on time = finished within the budget after its arrival */
        char line[512];
        rv_adapt_record_csv(&rec, line, sizeof(line));
        fprintf(csv, "%s,%.4f,%d\n", line, lat * 1e3, dropped);

        r->processed++;
        r->met += met;
        if (met)
            r->covered += stt;
        {
            const double ta0 = arr - t0;
            if ((ta0 >= cf->a0 && ta0 < cf->a0 + cf->react) || (ta0 >= cf->b0 && ta0 < cf->b0 + cf->react)) {
                r->proc_rw++;
                r->met_rw += met;
                if (met)
                    r->cov_rw += stt;
            }
            /* back at full resolution after a phase: the first (1,1) frame that arrived after its end */
            if (ad && si == 1 && stt == 1) {
                if (!back_a && ta0 >= cf->a1) {
                    back_a = 1;
                    r->back_sum += ta0 - cf->a1;
                    r->back_n++;
                    printf("  adapt back at (1,1) %.2f s after load A ended\n", ta0 - cf->a1);
                }
                if (!back_b && ta0 >= cf->b1) {
                    back_b = 1;
                    r->back_sum += ta0 - cf->b1;
                    r->back_n++;
                    printf("  adapt back at (1,1) %.2f s after load B ended\n", ta0 - cf->b1);
                }
            }
        }
        r->si_sum += si;
        r->pix_sum += 1.0 / ((double)si * si);
        if (r->nlat < (long long)(sizeof(r->lat) / sizeof(r->lat[0])))
            r->lat[r->nlat++] = lat;
        double ta = arr - t0;
        if (ta >= cf->a0 && ta < cf->a1) {
            r->proc_a++;
            r->met_a += met;
        }
        if (ta >= cf->b0 && ta < cf->b1) {
            r->proc_b++;
            r->met_b += met;
        }
        k += stt;
    }
    hogs_reap(&h, 1);
    fclose(csv);
    if (ad)
        r->back_never += !back_a + !back_b;
    /* source frames that arrived in the reaction windows */
    r->src_rw += 2 * (long long)floor(cf->react / D);
    if (ad) {
        double c, phi;
        rv_adapt_model(ad, &c, &phi);
        printf("  adapt model at the end: c = %.3f ms, phi = %.3f, relative cost per S_I:", c * 1e3, phi);
        for (int si = 1; si <= 8; si++)
            printf(" %d:%.3f", si, rv_adapt_shape(ad, si));
        printf("\n");
    }
    rv_adapt_destroy(&ad);
}

static double pct(const result *r, double q)
{
    if (r->nlat == 0)
        return 0;
    double *v = malloc((size_t)r->nlat * sizeof(double));
    if (!v)
        return 0;
    memcpy(v, r->lat, (size_t)r->nlat * sizeof(double));
    qsort(v, (size_t)r->nlat, sizeof(double), cmp_d);
    double x = v[(size_t)((double)(r->nlat - 1) * q)];
    free(v);
    return x;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: rv-bench-adapt [--seconds T] [--deadline-ms D | --fps F] [--threads N]\n"
            "                      [--size WxH] [--hogs-a N] [--hogs-b N] [--priority temporal|spatial|balanced]\n"
            "                      [--rounds R] [--csv-dir DIR] [--backend cpu|cuda] [--passes P]\n"
            "                      [--react-ms W]\n"
            "  T: seconds per policy and round (default 16; R rounds, default 2, policies take turns)\n"
            "  D: default 2x the 75th percentile of the idle time of a full frame\n"
            "  hog phase A (N-a children) over 20..45 %% of T, phase B (N-b) over 60..85 %%\n"
            "  cuda: the stage runs on the GPU and the hogs are processes running kernels on the same GPU\n"
            "  P: procNbr passes per frame (default 1)\n"
            "  W: reaction window after the start of each load phase, left out of the 'after' ratios (default 500)\n");
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--gpu-hog"))
        return gpu_hog_main(atof(argv[2]));
    {
        ssize_t n = readlink("/proc/self/exe", g_self, sizeof(g_self) - 1);
        g_self[n > 0 ? n : 0] = 0;
    }
    config cf;
    memset(&cf, 0, sizeof(cf));
    cf.seconds = 16;
    cf.hogs_a = 2;
    cf.hogs_b = 6;
    cf.priority = RV_PRIORITY_TEMPORAL;
    cf.csv_dir = ".";
    cf.rounds = 2;
    cf.react = 0.5;
    int threads = 0, w = 1920, hgt = 1080, passes = 1;
    RV_Backend backend = RV_BACKEND_CPU;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        }
        if (!v) {
            usage();
            return 2;
        }
        i++;
        if (!strcmp(a, "--seconds"))
            cf.seconds = atof(v);
        else if (!strcmp(a, "--deadline-ms"))
            cf.deadline = atof(v) * 1e-3;
        else if (!strcmp(a, "--fps"))
            cf.deadline = atof(v) > 0 ? 1.0 / atof(v) : 0;
        else if (!strcmp(a, "--threads"))
            threads = atoi(v);
        else if (!strcmp(a, "--passes"))
            passes = atoi(v);
        else if (!strcmp(a, "--backend")) {
            if (!strcmp(v, "cpu"))
                backend = RV_BACKEND_CPU;
            else if (!strcmp(v, "cuda"))
                backend = RV_BACKEND_CUDA;
            else {
                usage();
                return 2;
            }
        }
        else if (!strcmp(a, "--size")) {
            if (sscanf(v, "%dx%d", &w, &hgt) != 2) {
                usage();
                return 2;
            }
        } else if (!strcmp(a, "--hogs-a"))
            cf.hogs_a = atoi(v);
        else if (!strcmp(a, "--hogs-b"))
            cf.hogs_b = atoi(v);
        else if (!strcmp(a, "--react-ms"))
            cf.react = atof(v) * 1e-3;
        else if (!strcmp(a, "--rounds"))
            cf.rounds = atoi(v);
        else if (!strcmp(a, "--csv-dir"))
            cf.csv_dir = v;
        else if (!strcmp(a, "--priority")) {
            if (!strcmp(v, "temporal"))
                cf.priority = RV_PRIORITY_TEMPORAL;
            else if (!strcmp(v, "spatial"))
                cf.priority = RV_PRIORITY_SPATIAL;
            else if (!strcmp(v, "balanced"))
                cf.priority = RV_PRIORITY_BALANCED;
            else {
                usage();
                return 2;
            }
        } else {
            usage();
            return 2;
        }
    }
    if (!(cf.seconds >= 2 && cf.seconds <= 600) || cf.rounds < 1 || cf.rounds > 10 || cf.hogs_a < 0 || cf.hogs_b < 0 || cf.hogs_a > MAX_HOGS / 2 ||
        cf.hogs_b > MAX_HOGS / 2) {
        fprintf(stderr, "rv-bench-adapt: --seconds in [2, 600], hogs in [0, %d]\n", MAX_HOGS / 2);
        return 2;
    }
    cf.a0 = 0.20 * cf.seconds;
    cf.a1 = 0.45 * cf.seconds;
    cf.b0 = 0.60 * cf.seconds;
    cf.b1 = 0.85 * cf.seconds;

    if (passes < 1 || passes > 1000) {
        fprintf(stderr, "rv-bench-adapt: --passes in [1, 1000]\n");
        return 2;
    }
    g_gpu_hog = backend == RV_BACKEND_CUDA;
    stage st;
    if (stage_open(&st, backend, threads, w, hgt) < 0)
        return 1;
    st.passes = passes;
    /* idle cost of the stage per spatial stride: the model's c / S^2 + overhead */
    for (int i = 0; i < 5; i++)
        stage_run(&st, 1);
    double t1 = time_quantile(&st, 1, 101, 0.5), t1q = time_quantile(&st, 1, 101, 0.75);
    if (backend == RV_BACKEND_CUDA)
        printf("rv-bench-adapt: emboss (procNbr 3x3) x %d passes on %dx%d rgba8, CUDA backend; load: GPU hog processes\n",
               passes, w, hgt);
    else
        printf("rv-bench-adapt: emboss (procNbr 3x3) x %d passes on %dx%d rgba8, %d CPU threads\n", passes, w, hgt,
               rv_context_threads(st.ctx));
    printf("idle processing time per spatial stride (median of 101), and the ratio to S_I = 1 vs 1/S^2:\n");
    const int strides[] = {1, 2, 3, 4, 8};
    for (int i = 0; i < 5; i++) {
        double ts = strides[i] == 1 ? t1 : time_quantile(&st, strides[i], 101, 0.5);
        printf("  S_I = %d: %8.3f ms  ratio %.4f  (1/S^2 = %.4f)\n", strides[i], ts * 1e3, ts / t1,
               1.0 / (strides[i] * strides[i]));
    }
    if (!(cf.deadline > 0))
        cf.deadline = 2.0 * t1q;
    printf("deadline D = %.3f ms (%.1f fps): idle headroom %.0f %% (median), %.0f %% (75th percentile %.3f ms)\n",
           cf.deadline * 1e3, 1.0 / cf.deadline, 100.0 * (1.0 - t1 / cf.deadline), 100.0 * (1.0 - t1q / cf.deadline),
           t1q * 1e3);
    printf("load: %d %s over %.1f..%.1f s, %d over %.1f..%.1f s of each %.0f s run (%ld cores)\n",
           cf.hogs_a, g_gpu_hog ? "GPU hog processes (own CUDA context, 8K emboss back to back)" : "spinning processes", cf.a0, cf.a1, cf.hogs_b, cf.b0, cf.b1, cf.seconds, sysconf(_SC_NPROCESSORS_ONLN));
    fflush(stdout);

    /* the policies take turns, round after round, so that they share the
     * machine's other load (this is a shared machine) as fairly as possible */
    memset(g_res, 0, sizeof(g_res));
    for (int rd = 0; rd < cf.rounds; rd++)
        for (int m = 0; m < 3; m++) {
            long long before = g_res[m].processed;
            run_mode(m, rd, &st, &cf, &g_res[m]);
            printf("  round %d %-5s: %lld processed frames\n", rd + 1, mode_name[m], g_res[m].processed - before);
            fflush(stdout);
        }

    printf("\n%-34s %12s %12s %12s\n", "", "adapt", "qos (drop)", "off");
    printf("%-34s", "source frames");
    for (int m = 0; m < 3; m++)
        printf(" %12lld", g_res[m].src_frames);
    printf("\n%-34s", "processed frames");
    for (int m = 0; m < 3; m++)
        printf(" %12lld", g_res[m].processed);
    printf("\n%-34s", "deadline met (of processed)");
    for (int m = 0; m < 3; m++)
        printf(" %11.1f%%", 100.0 * (double)g_res[m].met / (double)(g_res[m].processed ? g_res[m].processed : 1));
    printf("\n%-34s", "  during load A");
    for (int m = 0; m < 3; m++)
        printf(" %11.1f%%", 100.0 * (double)g_res[m].met_a / (double)(g_res[m].proc_a ? g_res[m].proc_a : 1));
    printf("\n%-34s", "  during load B");
    for (int m = 0; m < 3; m++)
        printf(" %11.1f%%", 100.0 * (double)g_res[m].met_b / (double)(g_res[m].proc_b ? g_res[m].proc_b : 1));
    printf("\n%-34s", "source frames served on time");
    for (int m = 0; m < 3; m++)
        printf(" %11.1f%%", 100.0 * (double)g_res[m].covered / (double)g_res[m].src_frames);
    printf("\n%-34s", "met, after the reaction windows");
    for (int m = 0; m < 3; m++)
        printf(" %11.1f%%", 100.0 * (double)(g_res[m].met - g_res[m].met_rw) /
                                (double)(g_res[m].processed - g_res[m].proc_rw > 0 ? g_res[m].processed - g_res[m].proc_rw : 1));
    printf("\n%-34s", "served on time, after the windows");
    for (int m = 0; m < 3; m++)
        printf(" %11.1f%%", 100.0 * (double)(g_res[m].covered - g_res[m].cov_rw) /
                                (double)(g_res[m].src_frames - g_res[m].src_rw > 0 ? g_res[m].src_frames - g_res[m].src_rw : 1));
    printf("\n%-34s", "frames dropped (late)");
    for (int m = 0; m < 3; m++)
        printf(" %12lld", g_res[m].dropped);
    printf("\n%-34s", "mean S_I");
    for (int m = 0; m < 3; m++)
        printf(" %12.2f", g_res[m].si_sum / (double)(g_res[m].processed ? g_res[m].processed : 1));
    printf("\n%-34s", "mean pixels computed (1/S_I^2)");
    for (int m = 0; m < 3; m++)
        printf(" %11.1f%%", 100.0 * g_res[m].pix_sum / (double)(g_res[m].processed ? g_res[m].processed : 1));
    printf("\n%-34s", "latency p50 (ms)");
    for (int m = 0; m < 3; m++)
        printf(" %12.2f", 1e3 * pct(&g_res[m], 0.5));
    printf("\n%-34s", "latency p99 (ms)");
    for (int m = 0; m < 3; m++)
        printf(" %12.2f", 1e3 * pct(&g_res[m], 0.99));
    printf("\n%-34s", "served on time, ratio to qos");
    for (int m = 0; m < 3; m++)
        printf(" %12.2f", (double)g_res[m].covered / (double)(g_res[1].covered ? g_res[1].covered : 1));
    printf("\nadapt back at (1,1) after a load: mean %.2f s over %d loads, %d loads never\n",
           g_res[0].back_n ? g_res[0].back_sum / g_res[0].back_n : -1.0, g_res[0].back_n, g_res[0].back_never);
    {
        char path[1024];
        snprintf(path, sizeof(path), "%s/summary.csv", cf.csv_dir);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "backend,priority,deadline_ms,seconds,rounds,hogs_a,hogs_b,react_s,policy,source_frames,processed,met,"
                       "met_pct,met_after_react_pct,served_on_time_pct,served_after_react_pct,met_load_a_pct,"
                       "met_load_b_pct,dropped,mean_si,pixels_pct,lat_p50_ms,lat_p99_ms,back_to_full_mean_s,loads_never_back\n");
            for (int m = 0; m < 3; m++) {
                const result *q = &g_res[m];
                double pr = (double)(q->processed ? q->processed : 1);
                fprintf(f, "%s,%s,%.4f,%.1f,%d,%d,%d,%.2f,%s,%lld,%lld,%lld,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%lld,%.3f,%.2f,%.4f,%.4f,%.3f,%d\n",
                        g_gpu_hog ? "cuda" : "cpu",
                        cf.priority == RV_PRIORITY_TEMPORAL ? "temporal" : cf.priority == RV_PRIORITY_SPATIAL ? "spatial" : "balanced",
                        cf.deadline * 1e3, cf.seconds, cf.rounds, cf.hogs_a, cf.hogs_b, cf.react, mode_name[m], q->src_frames,
                        q->processed, q->met, 100.0 * (double)q->met / pr,
                        100.0 * (double)(q->met - q->met_rw) / (double)(q->processed - q->proc_rw > 0 ? q->processed - q->proc_rw : 1),
                        100.0 * (double)q->covered / (double)q->src_frames,
                        100.0 * (double)(q->covered - q->cov_rw) / (double)(q->src_frames - q->src_rw > 0 ? q->src_frames - q->src_rw : 1),
                        100.0 * (double)q->met_a / (double)(q->proc_a ? q->proc_a : 1),
                        100.0 * (double)q->met_b / (double)(q->proc_b ? q->proc_b : 1), q->dropped, q->si_sum / pr,
                        100.0 * q->pix_sum / pr, 1e3 * pct(q, 0.5), 1e3 * pct(q, 0.99),
                        m == 0 && q->back_n ? q->back_sum / q->back_n : -1.0, m == 0 ? q->back_never : 0);
            }
            fclose(f);
        }
    }
    printf("CSV: %s/adapt_{adapt,qos,off}.csv, %s/summary.csv; plot: rv-plot -m %.1f:%.1f:'%d hogs' -m %.1f:%.1f:'%d hogs' "
           "adapt=%s/adapt_adapt.csv qos=%s/adapt_qos.csv off=%s/adapt_off.csv\n",
           cf.csv_dir, cf.csv_dir, cf.a0, cf.a1, cf.hogs_a, cf.b0, cf.b1, cf.hogs_b, cf.csv_dir, cf.csv_dir, cf.csv_dir);

    stage_close(&st);
    return 0;
}
