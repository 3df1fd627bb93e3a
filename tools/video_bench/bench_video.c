/*
 * rv-bench-video - per-frame cost of ravioli's video sources and sinks,
 * measured in one run side by side with the floor: memcpy of the bytes the
 * operation must at least touch (its output frame, or its input for
 * writers). Prints ms per frame, GB/s of output, and the ratio to the floor.
 *
 *   rv-bench-video [width height [frames [threads]]]   (default 1920 1080 60, cores)
 *
 * Besides wall time it prints the process CPU time per frame (all threads),
 * which stays meaningful on a loaded machine; the ratio to the floor is
 * taken on CPU time.
 *
 * The camera is the tests' emulated device (tests/video/fakecam.h) with
 * buffer filling switched off, so the figure is ravioli's capture path:
 * poll, DQBUF, YUYV -> RGBA8 conversion, QBUF.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ravioli/ravioli.h>
#include <ravioli/video.h>

#ifdef RV_BENCH_HAVE_V4L2
#include "fakecam.h"
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu0;
#define START() (cpu0 = cpu_s(), now_s())

static void quiet(void *o, RV_LogLevel l, const char *m)
{
    (void)o;
    if (l == RV_LOG_ERROR)
        fprintf(stderr, "ravioli: %s\n", m);
}

static int frames = 60;

/* CPU ms per memcpy of n bytes (best of 3 rounds of `frames`). */
static double floor_ms(size_t n)
{
    unsigned char *a = malloc(n), *b = malloc(n);
    memset(a, 1, n);
    memset(b, 2, n);
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        double t = START();
        for (int i = 0; i < frames; i++) {
            a[i % n] = (unsigned char)i;
            memcpy(b, a, n);
        }
        double ms = (now_s() - t) * 1e3 / frames;
        if (ms < best)
            best = ms;
    }
    volatile unsigned char sink = b[n / 2];
    (void)sink;
    free(a);
    free(b);
    return best;
}

static int nframes_row = 1;
static void row(const char *what, double ms, size_t bytes, double fl)
{
    double cpu_ms = (cpu_s() - cpu0) * 1e3 / nframes_row;
    printf("%-34s wall %8.3f ms  cpu %8.3f ms  %6.2f GB/s(cpu)  floor %7.3f ms  x%.2f\n", what,
           ms, cpu_ms, bytes / cpu_ms * 1e-6, fl, cpu_ms / fl);
}

int main(int argc, char **argv)
{
    int w = argc > 2 ? atoi(argv[1]) : 1920, h = argc > 2 ? atoi(argv[2]) : 1080;
    if (argc > 3)
        frames = atoi(argv[3]);
    int threads = argc > 4 ? atoi(argv[4]) : 0;
    if (w < 16 || h < 16 || frames < 1) {
        fprintf(stderr, "usage: rv-bench-video [width height [frames]]\n");
        return 2;
    }
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CPU;
    s.log = quiet;
    s.threads = threads;
    RV_Context *ctx = NULL;
    if (rv_context_create(&ctx, &s) < 0)
        return 1;
    const size_t rgba = (size_t)w * h * 4, yuv420 = (size_t)w * h + 2 * (size_t)((w + 1) / 2) * ((h + 1) / 2);
    printf("rv-bench-video %dx%d, %d frames a measurement, CPU backend, %d threads\n", w, h,
           frames, rv_context_threads(ctx));
    printf("cpu = process CPU time per frame (all threads); floor = CPU time of a memcpy of the\n"
           "frame the operation writes (readers) or reads (writers); x = cpu / floor\n\n");
    const double fl_rgba = floor_ms(rgba), fl_yuv = floor_ms(yuv420);
    nframes_row = frames;
    RV_Image *img = NULL, *yuv = NULL;
    rv_image_create(ctx, w, h, RV_FMT_RGBA8, &img);
    rv_image_create(ctx, w, h, RV_FMT_YUV420P8, &yuv);

    /* synthetic source */
    {
        RV_SyntheticSettings ss;
        rv_synthetic_settings_default(&ss);
        ss.width = w, ss.height = h, ss.realtime = 0;
        RV_Source *src = NULL;
        rv_source_open_synthetic(ctx, &ss, &src);
        double t = START();
        for (int i = 0; i < frames; i++)
            rv_source_read(src, img, NULL, 0);
        row("synthetic -> rgba8", (now_s() - t) * 1e3 / frames, rgba, fl_rgba);
        rv_source_close(&src);
        ss.format = RV_FMT_YUV420P8;
        rv_source_open_synthetic(ctx, &ss, &src);
        t = START();
        for (int i = 0; i < frames; i++)
            rv_source_read(src, yuv, NULL, 0);
        row("synthetic -> yuv420p8", (now_s() - t) * 1e3 / frames, yuv420, fl_yuv);
        rv_source_close(&src);
    }

    /* Y4M writer and reader through a file in the temp directory */
    char path[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof(path), "%s/rv-bench-video-%d.y4m", tmp && *tmp ? tmp : "/tmp",
             (int)getpid());
    {
        RV_VideoInfo vi = {0};
        vi.width = w, vi.height = h, vi.format = RV_FMT_RGBA8, vi.fps_num = 30, vi.fps_den = 1;
        RV_Sink *sink = NULL;
        rv_sink_open_y4m(ctx, "/dev/null", &vi, &sink);
        double t = START();
        for (int i = 0; i < frames; i++)
            rv_sink_write(sink, img, NULL);
        row("y4m write rgba8 -> 4:2:0", (now_s() - t) * 1e3 / frames, rgba, fl_rgba);
        rv_sink_close(&sink);
        vi.format = RV_FMT_YUV420P8;
        rv_sink_open_y4m(ctx, "/dev/null", &vi, &sink);
        t = START();
        for (int i = 0; i < frames; i++)
            rv_sink_write(sink, yuv, NULL);
        row("y4m write yuv420p8 (/dev/null)", (now_s() - t) * 1e3 / frames, yuv420, fl_yuv);
        rv_sink_close(&sink);
        rv_sink_open_y4m(ctx, path, &vi, &sink); /* the file the reader reads */
        for (int i = 0; i < frames; i++)
            rv_sink_write(sink, yuv, NULL);
        rv_sink_close(&sink);
        RV_Source *src = NULL;
        if (rv_source_open_y4m(ctx, path, NULL, &src) == 0) {
            t = START();
            int n = 0;
            while (rv_source_read(src, yuv, NULL, 0) == 0)
                n++;
            nframes_row = n ? n : 1;
            row("y4m read yuv420p8 (page cache)", (now_s() - t) * 1e3 / (n ? n : 1), yuv420,
                fl_yuv);
            nframes_row = frames;
            rv_source_close(&src);
        }
        unlink(path);
    }

#ifdef RV_BENCH_HAVE_V4L2
    {
        fakecam cam;
        fake_init(&cam);
        cam.max_w = (unsigned)w, cam.max_h = (unsigned)h;
        rv_v4l2_devops ops = fake_ops(&cam);
        RV_V4L2Settings vs;
        rv_v4l2_settings_default(&vs);
        vs.device = "/dev/fake0", vs.width = w, vs.height = h;
        RV_Source *src = NULL;
        if (rv__source_open_v4l2_devops(ctx, &vs, &ops, &src) == 0) {
            RV_VideoInfo vi;
            rv_source_info(src, &vi);
            RV_Image *cimg = NULL;
            rv_image_create(ctx, vi.width, vi.height, RV_FMT_RGBA8, &cimg);
            rv_source_read(src, cimg, NULL, 1000); /* buffers filled once */
            for (int i = 0; i < 4; i++)
                rv_source_read(src, cimg, NULL, 1000);
            cam.no_fill = 1;
            double t = START();
            for (int i = 0; i < frames; i++)
                rv_source_read(src, cimg, NULL, 1000);
            row("camera yuyv -> rgba8 (emulated)", (now_s() - t) * 1e3 / frames,
                (size_t)vi.width * vi.height * 4, fl_rgba);
            rv_image_destroy(&cimg);
            rv_source_close(&src);
        }
    }
#endif

    /* window, headless */
    {
        setenv("SDL_VIDEODRIVER", "dummy", 0);
        RV_VideoInfo vi = {0};
        vi.width = w, vi.height = h, vi.format = RV_FMT_RGBA8;
        RV_Sink *sink = NULL;
        if (rv_sink_open_sdl(ctx, "bench", &vi, &sink) == 0) {
            double t = START();
            for (int i = 0; i < frames; i++)
                rv_sink_write(sink, img, NULL);
            row("sdl write rgba8 (dummy, software)", (now_s() - t) * 1e3 / frames, rgba, fl_rgba);
            rv_sink_close(&sink);
            vi.format = RV_FMT_YUV420P8;
            rv_sink_open_sdl(ctx, "bench", &vi, &sink);
            t = START();
            for (int i = 0; i < frames; i++)
                rv_sink_write(sink, yuv, NULL);
            row("sdl write yuv420p8 (dummy)", (now_s() - t) * 1e3 / frames, rgba, fl_rgba);
            rv_sink_close(&sink);
        }
    }
    rv_image_destroy(&img);
    rv_image_destroy(&yuv);
    rv_context_destroy(&ctx);
    return 0;
}
