/*
 * rv-bench-stream - what RV_Streaming costs per frame.
 *
 * For each case the same work is done two ways, in one run:
 *   floor:  for each frame { read (memcpy of a prepared frame); stages } on one thread
 *   stream: RV_Streaming with the same read function on its capture thread,
 *           ring of 4, RV_RING_BLOCK (no frame lost), the same stages
 * and the frame rates are printed side by side with their ratio. With the
 * capture on its own thread the stream may beat the floor (read and stages
 * overlap); with an empty stage the difference is the per-frame hand-off.
 *
 *     rv-bench-stream [frames]      (default 2000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ravioli/ravioli.h>
#include <ravioli/stream.h>

typedef struct bsrc {
    RV_Image *proto;
    long long n, limit;
} bsrc;

static int bread(void *user, RV_Image *frame, long long *pts, int timeout_ms)
{
    bsrc *s = user;
    (void)timeout_ms;
    if (s->n >= s->limit)
        return RV_EPIPE;
    for (int p = 0; p < rv_image_planes(frame); p++) {
        ptrdiff_t dp, sp;
        unsigned char *d = rv_image_write(frame, p, &dp);
        const unsigned char *q = rv_image_read(s->proto, p, &sp);
        size_t row = (size_t)rv_image_plane_width(frame, p) * 4;
        for (int y = 0; y < rv_image_plane_height(frame, p); y++)
            memcpy(d + y * dp, q + y * sp, row);
    }
    if (pts)
        *pts = s->n;
    s->n++;
    return 0;
}

static void st_none(RV_Image *f, RV_Data *d)
{
    (void)f;
    (void)d;
}

static void st_pix(RV_Image *f, RV_Data *d)
{
    rv_data_check(d, rv_proc_pix(rv_data_user(d), f, f, NULL, 0));
}

static void st_nbr(RV_Image *f, RV_Data *d)
{
    static const int32_t thr = 0;
    rv_data_check(d, rv_proc_nbr(rv_data_user(d), f, f, &thr, sizeof(thr)));
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double run_floor(RV_Context *ctx, RV_StageVector *sv, RV_Image *proto, long long frames)
{
    RV_Image *f;
    if (rv_image_create(ctx, rv_image_width(proto), rv_image_height(proto), RV_FMT_RGBA8, &f) < 0)
        exit(1);
    bsrc s = {proto, 0, frames};
    double t0 = now();
    long long pts;
    while (bread(&s, f, &pts, 0) == 0) {
        RV_FrameMeta m = {s.n - 1, s.n - 1, pts, 1, 1};
        if (rv_stage_vector_apply(sv, f, &m, NULL) < 0)
            exit(1);
    }
    rv_context_sync(ctx);
    double t = now() - t0;
    rv_image_destroy(&f);
    return (double)frames / t;
}

static double run_stream(RV_Context *ctx, RV_StageVector *sv, RV_Image *proto, long long frames)
{
    bsrc s = {proto, 0, frames};
    RV_VideoInfo vi;
    memset(&vi, 0, sizeof(vi));
    vi.width = rv_image_width(proto);
    vi.height = rv_image_height(proto);
    vi.format = RV_FMT_RGBA8;
    vi.fps_num = 30;
    vi.fps_den = 1;
    vi.frames = frames;
    RV_StreamSettings set;
    rv_stream_settings_default(&set);
    set.adapt.enabled = 0;
    RV_Streaming *st;
    if (rv_streaming_create_custom(ctx, &vi, bread, &s, &set, &st) < 0)
        exit(1);
    double t0 = now();
    if (rv_streaming_run(st, sv) < 0)
        exit(1);
    double t = now() - t0;
    RV_StreamSummary sum;
    rv_streaming_summary(st, &sum);
    if (sum.processed != frames || sum.in_flight)
        fprintf(stderr, "accounting: processed %lld of %lld\n", sum.processed, frames);
    rv_streaming_destroy(&st);
    return (double)frames / t;
}

int main(int argc, char **argv)
{
    long long frames = argc > 1 ? atoll(argv[1]) : 2000;
    RV_Settings cs;
    rv_settings_default(&cs);
    cs.backend = RV_BACKEND_CPU;
    RV_Context *ctx;
    if (rv_context_create(&ctx, &cs) < 0)
        return 1;
    RV_Module *m;
    if (rv_module_load(ctx, "samples", &m) < 0)
        return 1;
    const RV_Kernel *kg, *ke;
    if (rv_kernel_get(m, "gray", &kg) < 0 || rv_kernel_get(m, "edge", &ke) < 0)
        return 1;
    printf("rv-bench-stream: CPU backend, %d threads, %lld frames per case\n", rv_context_threads(ctx), frames);
    printf("%-26s %14s %14s %8s %16s\n", "case", "floor fps", "stream fps", "ratio", "overhead us/fr");
    struct { const char *name; int w, h; RV_StageFn fn; const RV_Kernel *k; long long div; } cases[] = {
        {"64x48, empty stage", 64, 48, st_none, NULL, 1},
        {"640x480, empty stage", 640, 480, st_none, NULL, 1},
        {"640x480, gray (procPix)", 640, 480, st_pix, kg, 2},
        {"640x480, edge (procNbr)", 640, 480, st_nbr, ke, 10},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        RV_Image *proto;
        if (rv_image_create(ctx, cases[i].w, cases[i].h, RV_FMT_RGBA8, &proto) < 0)
            return 1;
        unsigned char *p = rv_image_write(proto, 0, NULL);
        for (int k = 0; k < cases[i].w * cases[i].h * 4; k++)
            p[k] = (unsigned char)(k * 7 + k / 4096);
        RV_StageVector *sv;
        rv_stage_vector_create(ctx, &sv);
        rv_stage_vector_push(sv, cases[i].fn, (void *)cases[i].k, cases[i].name);
        long long n = frames / cases[i].div;
        run_floor(ctx, sv, proto, n / 10 + 1); /* warm-up */
        double f = run_floor(ctx, sv, proto, n);
        double s = run_stream(ctx, sv, proto, n);
        printf("%-26s %14.1f %14.1f %8.3f %16.2f\n", cases[i].name, f, s, s / f, (1.0 / s - 1.0 / f) * 1e6);
        rv_stage_vector_destroy(&sv);
        rv_image_destroy(&proto);
    }
    rv_module_unload(&m);
    rv_context_destroy(&ctx);
    return 0;
}
