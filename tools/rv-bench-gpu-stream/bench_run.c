/* bench_run.c - see bench_run.h. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_run.h"

double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bench_run_args bench_run_init(int w, int h, RV_Format fmt, bench_fill_fn fill, int warm, int frames)
{
    bench_run_args a;
    memset(&a, 0, sizeof(a));
    a.vi.width = w;
    a.vi.height = h;
    a.vi.format = fmt;
    a.vi.fps_num = 30;
    a.vi.fps_den = 1;
    a.fill = fill;
    a.warm = warm;
    a.frames = frames;
    a.copies = RV_GPU_COPIES_DEFAULT;
    return a;
}

typedef struct src {
    const bench_run_args *a;
    long long n;
} src;

/* The ring's frames get their pixels in the first rounds; later reads hand
 * them out as they are: the benchmark measures the pipeline, not the fill. */
static int src_read(void *user, RV_Image *frame, long long *pts, int timeout_ms)
{
    src *s = user;
    (void)timeout_ms;
    if (s->n >= (long long)s->a->warm + s->a->frames)
        return RV_EPIPE;
    if (s->n < 16)
        s->a->fill(frame, (int)s->n);
    if (pts)
        *pts = 0;
    s->n++;
    return 0;
}

typedef struct timing {
    long long warm;
    double t_warm, t_last;
    long long n_warm, n_last;
    unsigned sum;
} timing;

static int on_frame(void *user, RV_Image *frame, const RV_FrameInfo *fi, const RV_Data *d)
{
    timing *e = user;
    (void)d;
    for (int p = 0; p < rv_image_planes(frame); p++) {
        const unsigned char *q = rv_image_read(frame, p, NULL); /* the downloaded output */
        if (!q)
            return 1;
        e->sum += q[0];
    }
    const double t = bench_now_s();
    if (fi->meta.index == e->warm) {
        e->t_warm = t;
        e->n_warm = fi->meta.processed;
    }
    e->t_last = t;
    e->n_last = fi->meta.processed;
    return 0;
}

double bench_stream_fps(RV_Context *ctx, RV_StageVector *sv, const bench_run_args *a, double *gpu_ms,
                        double *wait_ms)
{
    src s = {a, 0};
    RV_StreamSettings set;
    rv_stream_settings_default(&set);
    set.adapt.enabled = 0;
    set.ring_frames = 4;
    set.policy = RV_RING_BLOCK;
    if (a->gpu_streams > 0)
        set.gpu_streams = a->gpu_streams;
    set.gpu_copies = a->copies;
    timing e;
    memset(&e, 0, sizeof(e));
    e.warm = a->warm;
    set.on_frame = on_frame;
    set.user = &e;
    RV_Streaming *st = NULL;
    int err = rv_streaming_create_custom(ctx, &a->vi, src_read, &s, &set, &st);
    if (err == 0)
        err = rv_streaming_run(st, sv);
    RV_StreamSummary sum;
    memset(&sum, 0, sizeof(sum));
    if (st)
        rv_streaming_summary(st, &sum);
    rv_streaming_destroy(&st);
    if (err < 0 || sum.processed != (long long)a->warm + a->frames || sum.dropped != 0) {
        fprintf(stderr, "stream run: %s, %lld processed, %lld dropped: %s\n", rv_strerror(err), sum.processed,
                sum.dropped, rv_context_error(ctx));
        return -1;
    }
    if (gpu_ms)
        *gpu_ms = sum.gpu_ms_mean;
    if (wait_ms)
        *wait_ms = sum.gpu_wait_ms_mean;
    if (e.t_last <= e.t_warm)
        return -1;
    return (double)(e.n_last - e.n_warm) / (e.t_last - e.t_warm);
}
