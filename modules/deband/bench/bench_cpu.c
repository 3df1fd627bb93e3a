/*
 * rv-bench-deband - the CPU deband against ffmpeg's `deband` filter on the
 * same host and the same frames, and against the copy floor.
 *
 *   rv-bench-deband [frames] [threads]        (defaults: 60 frames, all cores)
 *
 * ravioli: rv_deband_apply on a CPU context with `threads` workers, rotating
 * over 8 distinct frames, best of 5 runs (the host may be shared). Settings matched to ffmpeg's
 * defaults: sample_mode 2 (four references), blur_first, range 16,
 * thresholds 80 (5 8-bit codes; ffmpeg's 1thr=0.02 is 0.02 * 2^depth = 5.12,
 * compared as diff < 5 on 8 bits), no grain (ffmpeg adds none); and our
 * f3kdb defaults (range 15, thresholds 64, grain 64).
 * ffmpeg: the same frames written to a Y4M file (in the page cache),
 *   ffmpeg -benchmark -filter_threads T -i in.y4m -vf deband -f null -
 * minus the same command with -vf null (demux, raw decode, null output),
 * divided by the frame count; best of 3 runs each, wall (rtime) and user
 * CPU time (utime). The host may be shared: the CPU-time columns (user
 * time of all threads, ours from getrusage) are the steadier comparison.
 * Floor: copying the same bytes (input + output) with the module's copy
 * kernel on the same workers.
 */
#include <sys/resource.h>
#include <unistd.h>

#include "bench_common.h"

#include <ravioli/deband_kernel.h>

#define NRUNS 5
#define NSETS 8

static double user_time(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec;
}

/* Best wall (rtime) and user (utime) seconds of 3 runs of ffmpeg. */
static int ffmpeg_time(const char *path, const char *vf, int threads, double *wall, double *user)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "ffmpeg -hide_banner -nostdin -benchmark -threads 1 -filter_threads %d -i '%s' -vf %s "
             "-f null - 2>&1",
             threads, path, vf);
    *wall = *user = -1;
    for (int r = 0; r < 3; r++) {
        FILE *p = popen(cmd, "r");
        if (!p)
            return -1;
        char line[1024];
        double rt = -1, ut = -1;
        while (fgets(line, sizeof(line), p)) {
            const char *b = strstr(line, "rtime="), *u = strstr(line, "utime=");
            if (strncmp(line, "bench:", 6) == 0 && b && u) {
                rt = atof(b + 6);
                ut = atof(u + 6);
            }
        }
        if (pclose(p) != 0 || rt < 0)
            return -1;
        if (*wall < 0 || rt < *wall)
            *wall = rt;
        if (*user < 0 || ut < *user)
            *user = ut;
    }
    return 0;
}

static const char *y4m_tag(RV_Format f)
{
    return f == RV_FMT_YUV420P8 ? "420jpeg" : f == RV_FMT_YUV444P16 ? "444p16" : "444";
}

static int write_y4m(const char *path, RV_Image **src, int nsets, int frames)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    RV_Image *img = src[0];
    const int bytes = rv_format_info(rv_image_format(img))->sample_bytes;
    fprintf(f, "YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C%s\n", rv_image_width(img), rv_image_height(img),
            y4m_tag(rv_image_format(img)));
    for (int k = 0; k < frames; k++) {
        img = src[k % nsets];
        fputs("FRAME\n", f);
        for (int p = 0; p < rv_image_planes(img); p++) {
            ptrdiff_t pitch;
            const unsigned char *b = rv_image_read(img, p, &pitch);
            for (int y = 0; y < rv_image_plane_height(img, p); y++)
                fwrite(b + y * pitch, 1, (size_t)rv_image_plane_width(img, p) * bytes, f);
        }
    }
    return fclose(f);
}

static double time_ours(RV_Context *ctx, RV_Deband *db, RV_Image **src, RV_Image **dst, double *cpu)
{
    double t[NRUNS], u[NRUNS];
    for (int i = 0; i < NSETS; i++)
        rv_deband_apply(db, dst[i], src[i], i);
    for (int r = 0; r < NRUNS; r++) {
        const double t0 = bench_now(), u0 = user_time();
        for (int i = 0; i < 2 * NSETS; i++)
            if (rv_deband_apply(db, dst[i % NSETS], src[i % NSETS], i) < 0) {
                fprintf(stderr, "%s\n", rv_deband_error(db));
                exit(1);
            }
        rv_context_sync(ctx);
        t[r] = (bench_now() - t0) / (2 * NSETS);
        u[r] = (user_time() - u0) / (2 * NSETS);
    }
    *cpu = bench_min(u, NRUNS);
    return bench_min(t, NRUNS);
}

static double time_copy(RV_Context *ctx, double bytes)
{
    RV_Module *mod = NULL;
    const RV_Kernel *k = NULL;
    if (rv_module_load(ctx, "deband", &mod) < 0 || rv_kernel_get(mod, "deband_copy", &k) < 0)
        return -1;
    const size_t half = ((size_t)(bytes / 2) + 15) / 16 * 16;
    RV_Buffer *bufs[2 * NSETS];
    for (int i = 0; i < 2 * NSETS; i++)
        if (rv_buffer_create(ctx, half, &bufs[i]) < 0)
            return -1;
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.grid[0] = (unsigned)rv_context_threads(ctx) * 4;
    double t[NRUNS];
    for (int r = 0; r < NRUNS; r++) {
        const double t0 = bench_now();
        for (int i = 0; i < 2 * NSETS; i++) {
            rv_deband_copy_args a = {rv_buffer_address(bufs[2 * (i % NSETS)]),
                                     rv_buffer_address(bufs[2 * (i % NSETS) + 1]), half / 16};
            rv_launch_raw(k, &sh, &a, sizeof(a));
        }
        t[r] = (bench_now() - t0) / (2 * NSETS);
    }
    for (int i = 0; i < 2 * NSETS; i++)
        rv_buffer_destroy(&bufs[i]);
    rv_module_unload(&mod);
    return bench_min(t, NRUNS);
}

int main(int argc, char **argv)
{
    const int frames = argc > 1 ? atoi(argv[1]) : 60;
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    const int have_ffmpeg = system("ffmpeg -hide_banner -version >/dev/null 2>&1") == 0;
    static const struct { int w, h; RV_Format f; } cases[] = {
        {1920, 1080, RV_FMT_YUV420P8}, {1920, 1080, RV_FMT_YUV444P16}, {3840, 2160, RV_FMT_YUV420P8}};
    RV_Settings cs;
    rv_settings_default(&cs);
    cs.backend = RV_BACKEND_CPU;
    cs.threads = threads;
    cs.log_level = RV_LOG_WARN;
    RV_Context *ctx = NULL;
    if (rv_context_create(&ctx, &cs) < 0)
        return 1;
    threads = rv_context_threads(ctx);
    printf("rv-bench-deband: %d worker thread(s); ffmpeg %s; %d frames for ffmpeg\n", threads,
           have_ffmpeg ? "found" : "NOT found (peer skipped)", frames);
    printf("%-10s %-10s %9s %9s %9s %9s %9s %9s %8s %8s %8s\n", "size", "format", "rv ms",
           "rv cpu", "rv+gr cpu", "ffm ms", "ffm cpu", "copy ms", "ffm/rv", "cpu f/r", "copy/rv");
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const int w = cases[c].w, h = cases[c].h;
        RV_Image *src[NSETS], *dst[NSETS];
        for (int i = 0; i < NSETS; i++) {
            if (rv_image_create(ctx, w, h, cases[c].f, &src[i]) < 0 ||
                rv_image_create(ctx, w, h, cases[c].f, &dst[i]) < 0 || bench_fill(src[i], i) < 0)
                return 1;
        }
        RV_Deband *db = NULL;
        if (rv_deband_create(ctx, &db) < 0)
            return 1;
        RV_DebandSettings s;
        rv_deband_settings_default(&s);
        rv_deband_configure(db, &s);
        double u_def, u_eq;
        const double t_def = time_ours(ctx, db, src, dst, &u_def);
        s.range = 16;
        s.y = s.cb = s.cr = 80;
        s.grainy = s.grainc = 0;
        rv_deband_configure(db, &s);
        const double t_eq = time_ours(ctx, db, src, dst, &u_eq);
        const double t_copy = time_copy(ctx, 2 * bench_frame_bytes(w, h, cases[c].f));
        double t_ff = -1, u_ff = -1;
        if (have_ffmpeg && frames > 0) {
            char path[] = "/tmp/rv_bench_deband_XXXXXX";
            const int fd = mkstemp(path);
            if (fd >= 0) {
                close(fd);
                if (write_y4m(path, src, NSETS, frames) == 0) {
                    double aw, au, bw, bu;
                    if (ffmpeg_time(path, "deband", threads, &aw, &au) == 0 &&
                        ffmpeg_time(path, "null", threads, &bw, &bu) == 0) {
                        t_ff = (aw - bw) / frames;
                        u_ff = (au - bu) / frames;
                        printf("  ffmpeg: -vf deband rtime %.3f s utime %.3f s; -vf null rtime %.3f s "
                               "utime %.3f s (%d frames)\n", aw, au, bw, bu, frames);
                    }
                }
                remove(path);
            }
        }
        char sz[16];
        snprintf(sz, sizeof(sz), "%dx%d", w, h);
        printf("%-10s %-10s %9.2f %9.2f %9.2f %9.2f %9.2f %9.3f %8.2f %8.2f %8.3f\n", sz,
               rv_format_info(cases[c].f)->name, t_eq * 1e3, u_eq * 1e3, u_def * 1e3, t_ff * 1e3,
               u_ff * 1e3, t_copy * 1e3, t_ff > 0 ? t_ff / t_eq : 0.0, u_ff > 0 ? u_ff / u_eq : 0.0,
               t_copy / t_eq);
        (void)t_def;
        rv_deband_destroy(&db);
        for (int i = 0; i < NSETS; i++) {
            rv_image_destroy(&src[i]);
            rv_image_destroy(&dst[i]);
        }
    }
    printf("per frame. rv: ffmpeg-matched settings (mode 2, blur, range 16, thr 5 codes, no grain),\n"
           "wall ms and user-CPU ms of all threads; rv+gr: f3kdb defaults (range 15, thr 4 codes,\n"
           "grain +-1 code), user-CPU ms; ffm: ffmpeg deband minus -vf null, wall and user CPU;\n"
           "ffm/rv, cpu f/r > 1: ravioli faster (wall, CPU time); copy/rv: share of the copy floor\n");
    rv_context_destroy(&ctx);
    return 0;
}
