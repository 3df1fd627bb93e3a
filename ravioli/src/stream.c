/*
 * stream.c - RV_Streaming: capture thread, ring buffer, per-frame
 * processing with strides, adaptation, delivery and frame accounting.
 *
 * Images: the ring owns ring_frames + 2 + depth frame images (queued
 * frames, one being read by the capture thread, `depth` being processed -
 * 1 on the CPU, gpu_streams in the CUDA pipeline - and one held as the last
 * output for repeats). An image index is in exactly one place at a
 * time: the free stack, the queue, the capture thread's hands or the
 * processing side's (job / held). Only the owner touches the image, so the
 * capture thread and the stages never share one.
 *
 * A processed frame goes through separate phases (acquire, upload, stages,
 * complete, deliver, release): one frame at a time on the CPU
 * (process_frame), several in flight on as many CUDA streams on the GPU
 * (run_gpu; docs/streaming.md, "The GPU pipeline").
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_backend.h"
#include "stream_internal.h"

/* Frames in flight on the CUDA pipeline when gpu_streams is 0 (= the default). */
#define RV__DEFAULT_GPU_STREAMS 3

typedef struct rv_slot {
    RV_Image *img;
    long long seq;        /* capture sequence number */
    long long pts_ns;
    double t_enq;         /* monotonic time it was queued (s) */
} rv_slot;

/* One frame on the processing side. */
typedef struct rv_job {
    int idx;              /* slot */
    RV_FrameMeta meta;
    RV_Image *out;        /* output after the stages */
    double t0, t1;        /* upload start, completion (s) */
    double proc_s;        /* processing time fed to the controller: t1 - t0, or GPU time */
} rv_job;

struct RV_Streaming {
    RV_Context *ctx;
    RV_Source *src;
    RV_ReadFrameFn read;
    void *read_user;
    RV_VideoInfo info;
    RV_StreamSettings set;
    char *log_path;

    int nslots;
    int depth;                /* frames in flight: 1 on the CPU, gpu_streams on CUDA */
    int pipelined;            /* run_gpu processes the frames (CUDA) */
    int copies;               /* RV_GPU_COPIES_SPLIT or _PER_FRAME (pipeline) */
    rv_slot *slots;
    int *free_stack, nfree;
    int *queue, qhead, qcount, qcap;

    pthread_t thread;
    int thread_started, thread_joined;
    pthread_mutex_t mu;
    pthread_cond_t cv_filled, cv_space, cv_done;
    atomic_int stop;          /* the only thing rv_streaming_stop() touches */
    int eos;                  /* capture thread finished (end, limit, error) */
    int cap_exited;           /* capture_main returned (under mu; cv_done) */
    int run_over;             /* run() returned: a frame the source hands over later is
                               * not captured (the summary is final) */
    int cap_err;              /* capture error other than end of stream */
    int ran;

    /* accounting (under mu) */
    long long captured, processed, skipped, dropped, dropped_at_stop;
    long long repeated, sink_frames, deadline_missed;
    long long source_dropped; /* read by the capture thread (the source's thread) */
    double proc_ms_sum, proc_ms_max;
    double gpu_ms_sum;        /* CUDA event time of the processed frames that have it */
    long long gpu_frames;
    double gpu_wait_s_sum;    /* host time blocked in the pipeline's completion waits */
    double t_start, t_end;
    double deadline_s;
    int s_spatial, s_temporal, stride_changes, adapt_active;
    RV_StreamEnd end;
    int error;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void deadline_in(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_nsec += (long)ms * 1000000L;
    while (ts->tv_nsec >= 1000000000L) {
        ts->tv_nsec -= 1000000000L;
        ts->tv_sec++;
    }
}

RV_API const char *rv_ring_policy_name(RV_RingPolicy p)
{
    switch (p) {
    case RV_RING_BLOCK:       return "block";
    case RV_RING_DROP_OLDEST: return "drop-oldest";
    case RV_RING_DROP_NEWEST: return "drop-newest";
    case RV_RING_LATEST:      return "latest";
    }
    return "unknown";
}

RV_API const char *rv_stream_end_name(RV_StreamEnd e)
{
    switch (e) {
    case RV_END_NONE:        return "running";
    case RV_END_EOS:         return "end of stream";
    case RV_END_STOPPED:     return "stopped";
    case RV_END_SINK_CLOSED: return "sink closed";
    case RV_END_ERROR:       return "error";
    }
    return "unknown";
}

RV_API void rv_stream_settings_default(RV_StreamSettings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->ring_frames = 4;
    s->policy = RV_RING_BLOCK;
    s->max_frames = -1;
    s->read_timeout_ms = 100;
    rv_adapt_settings_default(&s->adapt);
    s->adapt.deadline_s = 0.0;
    s->spatial_stride = 1;
    s->temporal_stride = 1;
    s->gpu_streams = RV__DEFAULT_GPU_STREAMS;
}

/* ---------------------------------------------------------------- */
/* Ring bookkeeping (callers hold mu)                                 */
/* ---------------------------------------------------------------- */

/* The slot's host storage is about to be overwritten by the source: drop
 * any device copy without transferring it, so the capture thread never
 * triggers a download (and never talks to the GPU). */
static void discard_contents(RV_Image *img)
{
    img->host_valid = 1;
    img->dev_valid = 0;
    img->stride = 1;
}

static void push_free(RV_Streaming *st, int idx)
{
    st->free_stack[st->nfree++] = idx;
}

static void q_push(RV_Streaming *st, int idx)
{
    st->queue[(st->qhead + st->qcount) % st->qcap] = idx;
    st->qcount++;
}

static int q_pop(RV_Streaming *st)
{
    int idx = st->queue[st->qhead];
    st->qhead = (st->qhead + 1) % st->qcap;
    st->qcount--;
    return idx;
}

/* ---------------------------------------------------------------- */
/* Capture thread                                                     */
/* ---------------------------------------------------------------- */

static int source_read(RV_Streaming *st, RV_Image *img, long long *pts)
{
    if (st->read)
        return st->read(st->read_user, img, pts, st->set.read_timeout_ms);
    return rv_source_read(st->src, img, pts, st->set.read_timeout_ms);
}

/* A failed read ends the run with its code: record why on the context (what
 * rv_streaming_run()'s caller reads with rv_context_error), with the message
 * the read itself recorded, if any (e.g. the Y4M reader's "frame 1 is
 * truncated"; an application's read function usually has none). */
static void report_read_error(RV_Streaming *st, int err, long long frame, unsigned long seq)
{
    char why[sizeof(st->ctx->err)];
    rv__error_since(st->ctx, seq, why, sizeof(why));
    rv__error(st->ctx, err, "streaming: reading frame %lld from %s failed: %s%s%.900s", frame,
              st->read ? "the application's read function" : "the source", rv_strerror(err),
              why[0] ? ": " : "", why);
}

static void *capture_main(void *arg)
{
    RV_Streaming *st = arg;
    /* rv_streaming_destroy() cancels the thread when the source does not
     * return from a read (a pipe that stays silent): cancellation is enabled
     * only inside the source's read, where the thread holds no lock of ours */
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    pthread_mutex_lock(&st->mu);
    for (;;) {
        if (atomic_load(&st->stop))
            break;
        if (st->set.max_frames >= 0 && st->captured >= st->set.max_frames)
            break;
        if (st->set.policy == RV_RING_BLOCK && st->qcount >= st->qcap) {
            struct timespec ts;
            deadline_in(&ts, 20);
            pthread_cond_timedwait(&st->cv_space, &st->mu, &ts);
            continue;
        }
        if (st->nfree == 0) { /* cannot happen with ring + 2 + depth images; be safe */
            struct timespec ts;
            deadline_in(&ts, 5);
            pthread_cond_timedwait(&st->cv_space, &st->mu, &ts);
            continue;
        }
        int idx = st->free_stack[--st->nfree];
        pthread_mutex_unlock(&st->mu);

        long long pts = 0;
        const unsigned long seq = rv__error_seq(st->ctx);
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
        int err = source_read(st, st->slots[idx].img, &pts);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
        long long sdrop = st->src ? rv_source_dropped(st->src) : 0;

        pthread_mutex_lock(&st->mu);
        if (st->run_over) {
            /* run() gave up waiting for this read and returned: the frame
             * arrived after the end, it is not captured */
            discard_contents(st->slots[idx].img);
            push_free(st, idx);
            break;
        }
        st->source_dropped = sdrop;
        if (err == RV_EAGAIN) {
            push_free(st, idx);
            continue;
        }
        if (err < 0) {
            push_free(st, idx);
            if (err != RV_EPIPE) {
                /* the message is on the context before run() can see the
                 * error, and the log callback runs without our lock held */
                const long long n = st->captured;
                pthread_mutex_unlock(&st->mu);
                report_read_error(st, err, n, seq);
                pthread_mutex_lock(&st->mu);
                st->cap_err = err;
            }
            break;
        }
        rv_slot *sl = &st->slots[idx];
        sl->seq = st->captured++;
        sl->pts_ns = pts;
        sl->t_enq = now_s();
        if (st->qcount >= st->qcap) {
            if (st->set.policy == RV_RING_DROP_NEWEST) {
                push_free(st, idx);
                st->dropped++;
                continue;
            }
            push_free(st, q_pop(st)); /* DROP_OLDEST, LATEST */
            st->dropped++;
        }
        q_push(st, idx);
        pthread_cond_signal(&st->cv_filled);
    }
    st->eos = 1;
    st->cap_exited = 1;
    pthread_cond_broadcast(&st->cv_filled);
    pthread_cond_broadcast(&st->cv_done);
    pthread_mutex_unlock(&st->mu);
    return NULL;
}

/* ---------------------------------------------------------------- */
/* Create / destroy                                                   */
/* ---------------------------------------------------------------- */

static int create_common(RV_Context *ctx, const RV_VideoInfo *info, const RV_StreamSettings *s,
                         RV_Streaming **out, RV_Streaming **made)
{
    RV_StreamSettings def;
    if (!s) {
        rv_stream_settings_default(&def);
        s = &def;
    }
    if (s->ring_frames < 1 || s->ring_frames > 64)
        return rv__error(ctx, RV_EINVAL, "rv_streaming_create: ring_frames %d outside 1..64", s->ring_frames);
    if ((int)s->policy < RV_RING_BLOCK || (int)s->policy > RV_RING_LATEST)
        return rv__error(ctx, RV_EINVAL, "rv_streaming_create: unknown ring policy %d", (int)s->policy);
    if (s->read_timeout_ms < 1)
        return rv__error(ctx, RV_EINVAL, "rv_streaming_create: read_timeout_ms must be >= 1");
    if (s->spatial_stride < 1 || s->spatial_stride > 64 || s->temporal_stride < 1)
        return rv__error(ctx, RV_EINVAL, "rv_streaming_create: strides S_I %d (1..64), S_T %d (>= 1)",
                         s->spatial_stride, s->temporal_stride);
    if (s->gpu_streams < 0 || s->gpu_streams > RV_MAX_FRAMES_IN_FLIGHT)
        return rv__error(ctx, RV_EINVAL, "rv_streaming_create: gpu_streams %d outside 0..8", s->gpu_streams);
    if ((int)s->gpu_copies < RV_GPU_COPIES_DEFAULT || (int)s->gpu_copies > RV_GPU_COPIES_PER_FRAME)
        return rv__error(ctx, RV_EINVAL, "rv_streaming_create: unknown gpu_copies %d", (int)s->gpu_copies);
    if (!rv_format_info(info->format) || info->width < 1 || info->height < 1)
        return rv__error(ctx, RV_EINVAL, "rv_streaming_create: the source describes %dx%d frames of format %d",
                         info->width, info->height, (int)info->format);

    RV_Streaming *st = calloc(1, sizeof(*st));
    if (!st)
        return rv__error(ctx, RV_ENOMEM, "rv_streaming_create: out of memory");
    *made = st;
    st->ctx = ctx;
    st->info = *info;
    st->set = *s;
    if (s->log_path && !(st->log_path = strdup(s->log_path)))
        return rv__error(ctx, RV_ENOMEM, "rv_streaming_create: out of memory");
    st->set.log_path = st->log_path;
    atomic_init(&st->stop, 0);
    pthread_mutex_init(&st->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&st->cv_filled, &ca);
    pthread_cond_init(&st->cv_space, &ca);
    pthread_cond_init(&st->cv_done, &ca);
    pthread_condattr_destroy(&ca);

    st->qcap = s->ring_frames;
    /* Frames in flight: one on the CPU; gpu_streams on CUDA, each needing
     * its own ring image until its stream is synchronised. */
    st->depth = 1;
    st->pipelined = ctx->backend == RV_BACKEND_CUDA;
    /* Tests only: RAVIOLI_STREAM_PIPELINE_CPU=1 runs the pipeline loop on
     * the CPU backend too (the CUDA calls become no-ops; CPU operations are
     * synchronous), so the CPU test suite checks its ordering, accounting
     * and per-slot scratch images on machines without a GPU. */
    const char *force = getenv("RAVIOLI_STREAM_PIPELINE_CPU");
    if (force && force[0] == '1')
        st->pipelined = 1;
    if (st->pipelined)
        st->depth = s->gpu_streams > 0 ? s->gpu_streams : RV__DEFAULT_GPU_STREAMS;
    st->set.gpu_streams = st->depth;
    st->copies = s->gpu_copies == RV_GPU_COPIES_PER_FRAME ? RV_GPU_COPIES_PER_FRAME : RV_GPU_COPIES_SPLIT;
    /* queued + capture thread's + in flight + held last output */
    st->nslots = s->ring_frames + 2 + st->depth;
    st->slots = calloc((size_t)st->nslots, sizeof(*st->slots));
    st->free_stack = calloc((size_t)st->nslots, sizeof(int));
    st->queue = calloc((size_t)st->qcap, sizeof(int));
    if (!st->slots || !st->free_stack || !st->queue)
        return rv__error(ctx, RV_ENOMEM, "rv_streaming_create: out of memory");
    for (int i = st->nslots - 1; i >= 0; i--) {
        int err = rv_image_create(ctx, info->width, info->height, info->format, &st->slots[i].img);
        if (err < 0)
            return err;
        push_free(st, i);
    }
    st->s_spatial = s->spatial_stride;
    st->s_temporal = s->temporal_stride;
    *out = st;
    *made = NULL;
    return 0;
}

RV_API int rv_streaming_create(RV_Context *ctx, RV_Source *src, const RV_StreamSettings *s,
                               RV_Streaming **out)
{
    if (!out)
        return ctx ? rv__error(ctx, RV_EINVAL, "rv_streaming_create: out is NULL") : RV_EINVAL;
    *out = NULL;
    if (!ctx)
        return RV_EINVAL;
    if (!src)
        return rv__error(ctx, RV_EINVAL, "rv_streaming_create: source is NULL");
    RV_VideoInfo info;
    memset(&info, 0, sizeof(info));
    int err = rv_source_info(src, &info);
    if (err < 0)
        return rv__error(ctx, err, "rv_streaming_create: cannot get the source's format: %s", rv_strerror(err));
    RV_Streaming *made = NULL;
    err = create_common(ctx, &info, s, out, &made);
    if (err < 0) {
        rv_streaming_destroy(&made);
        return err;
    }
    (*out)->src = src;
    return 0;
}

RV_API int rv_streaming_create_custom(RV_Context *ctx, const RV_VideoInfo *info, RV_ReadFrameFn read,
                                      void *read_user, const RV_StreamSettings *s, RV_Streaming **out)
{
    if (!out)
        return ctx ? rv__error(ctx, RV_EINVAL, "rv_streaming_create_custom: out is NULL") : RV_EINVAL;
    *out = NULL;
    if (!ctx)
        return RV_EINVAL;
    if (!info || !read)
        return rv__error(ctx, RV_EINVAL, "rv_streaming_create_custom: info and read are required");
    RV_Streaming *made = NULL;
    int err = create_common(ctx, info, s, out, &made);
    if (err < 0) {
        rv_streaming_destroy(&made);
        return err;
    }
    (*out)->read = read;
    (*out)->read_user = read_user;
    return 0;
}

/* Stops the capture thread and waits up to wait_ms for it to end (< 0:
 * without a bound). Returns 1 when it was joined, 0 when it is still inside
 * the source's read (a source that does not honour its timeout). */
static int join_capture(RV_Streaming *st, int wait_ms)
{
    if (!st->thread_started || st->thread_joined)
        return 1;
    atomic_store(&st->stop, 1);
    struct timespec ts;
    if (wait_ms >= 0)
        deadline_in(&ts, wait_ms);
    pthread_mutex_lock(&st->mu);
    pthread_cond_broadcast(&st->cv_space);
    while (!st->cap_exited) {
        if (wait_ms < 0)
            pthread_cond_wait(&st->cv_done, &st->mu);
        else if (pthread_cond_timedwait(&st->cv_done, &st->mu, &ts) != 0 && !st->cap_exited)
            break;
    }
    const int exited = st->cap_exited;
    pthread_mutex_unlock(&st->mu);
    if (!exited)
        return 0;
    pthread_join(st->thread, NULL);
    st->thread_joined = 1;
    return 1;
}

/* How long run() and destroy() wait for a source read to return after a
 * stop: the read's own timeout plus a margin. */
static int stop_grace_ms(const RV_Streaming *st)
{
    /* (saturating: any read_timeout_ms >= 1 is valid, INT_MAX included) */
    const int t = st->set.read_timeout_ms;
    return t > INT_MAX - 200 ? INT_MAX : t + 200;
}

RV_API void rv_streaming_destroy(RV_Streaming **pst)
{
    if (!pst || !*pst)
        return;
    RV_Streaming *st = *pst;
    /* (run() waited its grace already when it left the thread in a read) */
    if (!join_capture(st, st->run_over ? 0 : stop_grace_ms(st))) {
        /* The source has not returned from a read for longer than its
         * timeout (an application read function that ignores it; the
         * library's sources return at their timeout): cancel the capture thread
         * there (it holds no lock of ours inside the read) so that destroy
         * returns; the source's state is undefined afterwards - close it. */
        rv__log(st->ctx, RV_LOG_WARN,
                "streaming: the source has not returned from a read for %d ms; cancelling the capture thread",
                stop_grace_ms(st));
        pthread_cancel(st->thread);
        pthread_join(st->thread, NULL);
        st->thread_joined = 1;
    }
    if (st->slots)
        for (int i = 0; i < st->nslots; i++)
            rv_image_destroy(&st->slots[i].img);
    free(st->slots);
    free(st->free_stack);
    free(st->queue);
    free(st->log_path);
    pthread_cond_destroy(&st->cv_filled);
    pthread_cond_destroy(&st->cv_space);
    pthread_cond_destroy(&st->cv_done);
    pthread_mutex_destroy(&st->mu);
    free(st);
    *pst = NULL;
}

RV_API int rv_streaming_start(RV_Streaming *st)
{
    if (!st)
        return RV_EINVAL;
    if (st->thread_started)
        return 0;
    int e = pthread_create(&st->thread, NULL, capture_main, st);
    if (e != 0)
        return rv__error(st->ctx, RV_ENOMEM, "rv_streaming_start: cannot start the capture thread (%s)",
                         strerror(e));
    st->thread_started = 1;
    return 0;
}

RV_API void rv_streaming_stop(RV_Streaming *st)
{
    if (st)
        atomic_store(&st->stop, 1);
}

RV_API int rv_streaming_info(const RV_Streaming *st, RV_VideoInfo *info)
{
    if (!st || !info)
        return RV_EINVAL;
    *info = st->info;
    return 0;
}

RV_API int rv_streaming_summary(const RV_Streaming *cst, RV_StreamSummary *o)
{
    if (!cst || !o)
        return RV_EINVAL;
    RV_Streaming *st = (RV_Streaming *)cst; /* the lock only */
    memset(o, 0, sizeof(*o));
    pthread_mutex_lock(&st->mu);
    o->captured = st->captured;
    o->processed = st->processed;
    o->skipped = st->skipped;
    o->dropped = st->dropped;
    o->in_flight = st->captured - st->processed - st->skipped - st->dropped;
    o->dropped_at_stop = st->dropped_at_stop;
    o->source_dropped = st->source_dropped;
    o->repeated = st->repeated;
    o->sink_frames = st->sink_frames;
    o->deadline_missed = st->deadline_missed;
    double end = st->t_end > 0 ? st->t_end : (st->t_start > 0 ? now_s() : 0);
    o->elapsed_s = st->t_start > 0 ? end - st->t_start : 0;
    o->proc_ms_mean = st->processed ? st->proc_ms_sum / (double)st->processed : 0;
    o->proc_ms_max = st->proc_ms_max;
    o->fps = o->elapsed_s > 0 ? (double)st->processed / o->elapsed_s : 0;
    o->deadline_ms = st->deadline_s * 1e3;
    o->spatial_stride = st->s_spatial;
    o->temporal_stride = st->s_temporal;
    o->stride_changes = st->stride_changes;
    o->adapt_active = st->adapt_active;
    o->end = st->end;
    o->error = st->error;
    o->gpu_streams = st->ctx->backend == RV_BACKEND_CUDA ? st->depth : 0;
    o->gpu_ms_mean = st->gpu_frames ? st->gpu_ms_sum / (double)st->gpu_frames : 0;
    o->gpu_wait_ms_mean = st->processed && o->gpu_streams ? st->gpu_wait_s_sum * 1e3 / (double)st->processed : 0;
    o->gpu_copies = o->gpu_streams ? st->copies : 0;
    pthread_mutex_unlock(&st->mu);
    return 0;
}

/* ---------------------------------------------------------------- */
/* Run                                                                */
/* ---------------------------------------------------------------- */

typedef struct rv_runstate {
    RV_Streaming *st;
    RV_StageVector *sv;
    RV_Adapt *adapt;
    FILE *log;
    int hold_last;            /* keep the last output for repeats */
    int held;                 /* slot index held as last output, or -1 */
    RV_Image *last_out;
    long long last_proc_seq;
    int have_proc;
    double fps_ema_dt, last_done;
    double fps;
    /* CUDA pipeline (run_gpu) */
    struct rv_gslot *gs;      /* depth slots, slot k on CUDA stream k */
    int timing;               /* CUDA events give the GPU time */
    int want_host;            /* a sink or callback reads the output: download it */
    int cuda;                 /* 0: the pipeline on the CPU backend (tests): no CUDA calls */
    int split;                /* RV_GPU_COPIES_SPLIT in force: uploads on stream up_s,
                               * downloads on stream down_s, kernels on the slot's stream */
    int up_s, down_s;
} rv_runstate;

/* One frame in flight in the CUDA pipeline. Slot k owns CUDA stream k, a
 * pair of timing events, the context's in-place procNbr scratch image while
 * its stages run, and (through RV_Data.job = k) its own rv_data_image()
 * scratch images, so two frames in flight never share device memory. */
typedef struct rv_gslot {
    rv_job job;
    int busy;                 /* issued, its stream not yet synchronised */
    void *ev0, *ev1;          /* CUevents: before the upload, after the download (ev1 is
                               * also the frame's completion event in split mode) */
    void *ev_up, *ev_k;       /* split mode: upload done, kernels done */
    RV_Image *ctx_scratch;    /* swapped with ctx->scratch around the slot's stages */
    rv_kv kv[RV_DATA_MAX_KEYS]; /* RV_Data values as this frame's stages left them */
    int nkv;
    int stop_req;             /* a stage of this frame asked to stop */
} rv_gslot;

/* Returns a slot to the free stack (processing side). */
static void release_slot(RV_Streaming *st, int idx)
{
    pthread_mutex_lock(&st->mu);
    discard_contents(st->slots[idx].img);
    push_free(st, idx);
    pthread_cond_signal(&st->cv_space);
    pthread_mutex_unlock(&st->mu);
}

/* Phase 1: takes the next frame from the ring. Returns 1 with a job, 0 when
 * the run is over (st->end set), after waiting in short slices so that a
 * stop flag set by a signal handler is noticed. */
static int phase_acquire(rv_runstate *rs, rv_job *job)
{
    RV_Streaming *st = rs->st;
    pthread_mutex_lock(&st->mu);
    for (;;) {
        if (atomic_load(&st->stop)) {
            st->end = RV_END_STOPPED;
            break;
        }
        if (st->qcount > 0) {
            if (st->set.policy == RV_RING_LATEST)
                while (st->qcount > 1) {
                    int old = q_pop(st);
                    discard_contents(st->slots[old].img);
                    push_free(st, old);
                    st->dropped++;
                }
            job->idx = q_pop(st);
            pthread_cond_signal(&st->cv_space);
            pthread_mutex_unlock(&st->mu);
            return 1;
        }
        if (st->eos) {
            st->end = st->cap_err ? RV_END_ERROR : RV_END_EOS;
            if (st->cap_err)
                st->error = st->cap_err;
            break;
        }
        struct timespec ts;
        deadline_in(&ts, 10);
        pthread_cond_timedwait(&st->cv_filled, &st->mu, &ts);
    }
    pthread_mutex_unlock(&st->mu);
    return 0;
}

/* Phase 2: strides on the frame, pixels current where the backend runs
 * (CPU: nothing to do; CUDA: one upload from the page-locked ring image). */
static int phase_upload(rv_runstate *rs, rv_job *job)
{
    RV_Streaming *st = rs->st;
    RV_Image *img = st->slots[job->idx].img;
    job->t0 = now_s();
    int err = rv_image_set_stride(img, job->meta.spatial_stride);
    if (err < 0)
        return err;
    return rv__image_on_backend(img);
}

/* Phase 3: the stages, in push order. */
static int phase_stages(rv_runstate *rs, rv_job *job)
{
    RV_Image *img = rs->st->slots[job->idx].img;
    return rv_stage_vector_apply(rs->sv, img, &job->meta, &job->out);
}

/* Phase 4: waits for the backend to finish the frame; ends the timing. */
static int phase_complete(rv_runstate *rs, rv_job *job)
{
    int err = rv_context_sync(rs->st->ctx);
    job->t1 = now_s();
    return err;
}

static void fill_stats(const rv_runstate *rs, const rv_job *job, const RV_FrameInfo *fi, RV_FrameStats *fs)
{
    memset(fs, 0, sizeof(*fs));
    fs->index = job->meta.index;
    fs->fps = rs->fps;
    fs->latency_ms = fi->latency_ms;
    fs->proc_ms = fi->proc_ms;
    fs->spatial_stride = job->meta.spatial_stride;
    fs->temporal_stride = job->meta.temporal_stride;
    fs->repeated = fi->repeated;
}

/* Phase 5: hands the output to the sink and the callback (the host view is
 * made current here: on CUDA this is the one download of the frame).
 * Returns 0, 1 when the run should end cleanly, or a negative error. */
static int phase_deliver(rv_runstate *rs, rv_job *job, RV_Image *out, const RV_FrameInfo *fi)
{
    RV_Streaming *st = rs->st;
    int stop = 0;
    if (st->set.sink && out) {
        RV_FrameStats fs;
        fill_stats(rs, job, fi, &fs);
        const unsigned long seq = rv__error_seq(st->ctx);
        int err = rv_sink_write(st->set.sink, out, &fs);
        if (err == RV_EPIPE) {
            pthread_mutex_lock(&st->mu);
            st->end = RV_END_SINK_CLOSED;
            pthread_mutex_unlock(&st->mu);
            return 1;
        }
        if (err < 0) {
            char why[sizeof(st->ctx->err)];
            rv__error_since(st->ctx, seq, why, sizeof(why));
            return rv__error(st->ctx, err, "streaming: the sink failed on frame %lld: %s%s%.900s",
                             job->meta.index, rv_strerror(err), why[0] ? ": " : "", why);
        }
        pthread_mutex_lock(&st->mu);
        st->sink_frames++;
        if (fi->repeated)
            st->repeated++;
        pthread_mutex_unlock(&st->mu);
    }
    if (st->set.on_frame && (!fi->repeated || st->set.callback_skipped))
        if (st->set.on_frame(st->set.user, out, fi, &rs->sv->data) != 0)
            stop = 1;
    if (stop) {
        pthread_mutex_lock(&st->mu);
        st->end = RV_END_STOPPED;
        pthread_mutex_unlock(&st->mu);
    }
    return stop;
}

/* One CSV row per processed frame; the column names are those of the
 * adaptation log (rv_adapt_csv_header), so rv-plot reads both. */
static const char log_header[] =
    "frame,time_s,proc_ms,deadline_ms,budget_ms,met,s_spatial,s_temporal,latency_ms,captured,skipped,dropped";

static void log_frame(rv_runstate *rs, const rv_job *job, const RV_FrameInfo *fi, const long long counts[3])
{
    if (!rs->log)
        return;
    const double dl = rs->st->deadline_s * 1e3;
    fprintf(rs->log, "%lld,%.6f,%.4f,%.4f,%.4f,%d,%d,%d,%.4f,%lld,%lld,%lld\n", job->meta.index,
            job->t1 - rs->st->t_start, fi->proc_ms, dl, dl * job->meta.temporal_stride, fi->deadline_met,
            job->meta.spatial_stride, job->meta.temporal_stride, fi->latency_ms, counts[0], counts[1], counts[2]);
}

/* Capture to now: from the source's timestamp (CLOCK_MONOTONIC, video.h)
 * when there is one, else from when the frame was queued. */
static double latency_ms(const RV_Streaming *st, const rv_slot *sl, double now)
{
    if (st->src && sl->pts_ns > 0) {
        double l = now - (double)sl->pts_ns * 1e-9;
        if (l >= 0 && l < 3600)
            return l * 1e3;
    }
    return (now - sl->t_enq) * 1e3;
}

/* After a processed frame: feeds the controller and takes its strides. */
static void adapt_after(rv_runstate *rs, const rv_job *job)
{
    RV_Streaming *st = rs->st;
    if (!rs->adapt)
        return;
    /* A live ring (a policy that drops rather than blocks the source) with
     * one frame at a time: the controller also sees how late the frame
     * finished from its arrival in the ring, so a frame that waited behind a
     * late one counts as late. With RV_RING_BLOCK the source may run ahead
     * (a file read as fast as possible: every frame waits, by design), and
     * with several GPU frames in flight waiting is the pipeline's overlap:
     * there the controller gets the processing time only. */
    const rv_slot *sl = &st->slots[job->idx];
    const double wait_s = job->t1 - sl->t_enq;
    if (st->set.policy != RV_RING_BLOCK && st->depth <= 1 && wait_s >= 0)
        rv_adapt_update_latency(rs->adapt, job->t1 - st->t_start, job->proc_s,
                                wait_s > job->proc_s ? wait_s : job->proc_s,
                                job->meta.spatial_stride, job->meta.temporal_stride);
    else
        rv_adapt_update(rs->adapt, job->t1 - st->t_start, job->proc_s,
                        job->meta.spatial_stride, job->meta.temporal_stride);
    int si = st->s_spatial, stt = st->s_temporal;
    rv_adapt_strides(rs->adapt, &si, &stt);
    if (si < 1)
        si = 1;
    if (si > 64)
        si = 64;
    if (stt < 1)
        stt = 1;
    pthread_mutex_lock(&st->mu);
    if (si != st->s_spatial || stt != st->s_temporal)
        st->stride_changes++;
    st->s_spatial = si;
    st->s_temporal = stt;
    pthread_mutex_unlock(&st->mu);
}

/* A frame skipped by the temporal stride: counted, and the last output is
 * repeated to sinks that want it. Returns like phase_deliver. */
static int handle_skip(rv_runstate *rs, rv_job *job)
{
    RV_Streaming *st = rs->st;
    rv_slot *sl = &st->slots[job->idx];
    pthread_mutex_lock(&st->mu);
    st->skipped++;
    pthread_mutex_unlock(&st->mu);
    int r = 0;
    if (rs->hold_last) {
        RV_FrameInfo fi;
        memset(&fi, 0, sizeof(fi));
        fi.meta = job->meta;
        fi.latency_ms = latency_ms(st, sl, now_s());
        fi.fps = rs->fps;
        fi.deadline_met = 1;
        fi.repeated = 1;
        if (rs->last_out || st->set.callback_skipped)
            r = phase_deliver(rs, job, rs->last_out, &fi);
    }
    release_slot(st, job->idx);
    return r;
}

static int finish_frame(rv_runstate *rs, rv_job *job);

static int process_frame(rv_runstate *rs, rv_job *job)
{
    RV_Streaming *st = rs->st;
    int err;
    if ((err = phase_upload(rs, job)) < 0 || (err = phase_stages(rs, job)) < 0 ||
        (err = phase_complete(rs, job)) < 0) {
        /* The frame is lost: count it as dropped so that none vanishes. */
        pthread_mutex_lock(&st->mu);
        st->dropped++;
        pthread_mutex_unlock(&st->mu);
        release_slot(st, job->idx);
        return err;
    }
    job->proc_s = job->t1 - job->t0;
    return finish_frame(rs, job);
}

/* After a frame completed: accounting, adaptation, log, delivery (phase 5)
 * and release (phase 6). Returns like phase_deliver. */
static int finish_frame(rv_runstate *rs, rv_job *job)
{
    RV_Streaming *st = rs->st;
    rv_slot *sl = &st->slots[job->idx];
    const double proc_s = job->proc_s;
    const double proc_ms = proc_s * 1e3;
    const int met = proc_s <= st->deadline_s * (double)job->meta.temporal_stride;
    double done = now_s();
    if (rs->last_done > 0) {
        double dt = done - rs->last_done;
        rs->fps_ema_dt = rs->fps_ema_dt > 0 ? 0.9 * rs->fps_ema_dt + 0.1 * dt : dt;
        rs->fps = rs->fps_ema_dt > 0 ? 1.0 / rs->fps_ema_dt : 0;
    }
    rs->last_done = done;

    long long counts[3];
    pthread_mutex_lock(&st->mu);
    st->processed++;
    st->proc_ms_sum += proc_ms;
    if (proc_ms > st->proc_ms_max)
        st->proc_ms_max = proc_ms;
    if (!met)
        st->deadline_missed++;
    counts[0] = st->captured;
    counts[1] = st->skipped;
    counts[2] = st->dropped;
    pthread_mutex_unlock(&st->mu);
    /* (the GPU pipeline already moved last_proc_seq on when it issued later frames) */
    if (!rs->have_proc || job->meta.index > rs->last_proc_seq)
        rs->last_proc_seq = job->meta.index;
    rs->have_proc = 1;
    adapt_after(rs, job);

    RV_FrameInfo fi;
    memset(&fi, 0, sizeof(fi));
    fi.meta = job->meta;
    fi.proc_ms = proc_ms;
    fi.latency_ms = latency_ms(st, sl, now_s());
    fi.fps = rs->fps;
    fi.deadline_met = met;
    log_frame(rs, job, &fi, counts);
    int r = phase_deliver(rs, job, job->out, &fi);
    if (rs->sv->data.stop_req && r == 0) {
        rs->sv->data.stop_req = 0;
        pthread_mutex_lock(&st->mu);
        st->end = RV_END_STOPPED;
        pthread_mutex_unlock(&st->mu);
        r = 1;
    }

    /* Phase 6: release. Keep this frame as the last output when repeats
     * are wanted; give back the one held before. */
    if (rs->hold_last) {
        if (rs->held >= 0)
            release_slot(st, rs->held);
        rs->held = job->idx;
        rs->last_out = job->out;
    } else {
        release_slot(st, job->idx);
    }
    return r;
}


/* ---------------------------------------------------------------- */
/* CUDA pipeline: depth frames in flight on as many streams            */
/* ---------------------------------------------------------------- */
/*
 * Per frame, on the host thread, in order (split copies, the default):
 *   issue(k):    on the upload stream U: record ev0, upload the page-locked
 *                ring image (async), record ev_up; on stream k: wait for
 *                ev_up, run the stages (their kernels queue on stream k and
 *                run while the host goes on), record ev_k; on the download
 *                stream W: wait for ev_k, download the output (async),
 *                record ev1.
 *   complete(k): cuEventSynchronize(ev1) - that frame only; GPU time =
 *                ev0..ev1; then accounting, delivery, release as on the
 *                CPU (finish_frame).
 * All uploads queue in frame order on U and all downloads on W, so one copy
 * engine per direction is kept busy and the two directions overlap (the
 * duplex bound); with every copy on its frame's own stream (PER_FRAME, the
 * earlier design: upload, stages, download on stream k; complete =
 * cuStreamSynchronize(k)) the driver spreads the copies of the streams over
 * the copy engines by stream, and an upload and a download can end up
 * queued behind each other (docs/perf/gpu-stream.md).
 * The loop issues up to `depth` frames before completing the oldest, so
 * with two slots the upload of n+1 (copy engine) and the download of n
 * overlap the kernels of the other frame. A frame's images are used on
 * its own stream only: the ring image is not reused before complete()
 * synchronised its stream, the scratch images are per slot. Host copies
 * are read only after complete(): the async download marks the host copy
 * current at once, and nothing but deliver reads it.
 */

static int gpu_setup(rv_runstate *rs)
{
    RV_Streaming *st = rs->st;
    RV_Context *ctx = st->ctx;
    rs->gs = calloc((size_t)st->depth, sizeof(*rs->gs));
    if (!rs->gs)
        return rv__error(ctx, RV_ENOMEM, "rv_streaming_run: out of memory");
    rs->want_host = st->set.sink != NULL || st->set.on_frame != NULL;
    rs->cuda = ctx->backend == RV_BACKEND_CUDA;
    rs->timing = rs->cuda;
    if (!rs->cuda)
        return 0;
    rs->split = st->copies == RV_GPU_COPIES_SPLIT;
    rs->up_s = st->depth;
    rs->down_s = st->depth + 1;
    /* all streams now (creation is not free); the last one selected is 0 */
    if (rs->split && rv__cuda_set_stream(ctx, rs->down_s) < 0) {
        rv__log(ctx, RV_LOG_INFO, "streaming: no separate copy streams (%s); copies on the frames' streams",
                rv_context_error(ctx));
        rs->split = 0;
    }
    for (int k = st->depth - 1; k >= 0; k--) {
        int err = rv__cuda_set_stream(ctx, k);
        if (err < 0)
            return err;
        if (rv__cuda_event_create(ctx, &rs->gs[k].ev0) < 0 || rv__cuda_event_create(ctx, &rs->gs[k].ev1) < 0)
            rs->timing = 0;
        if (rs->split && (!rs->gs[k].ev1 || rv__cuda_event_create(ctx, &rs->gs[k].ev_up) < 0 ||
                          rv__cuda_event_create(ctx, &rs->gs[k].ev_k) < 0))
            rs->split = 0; /* the split needs its events; fall back */
    }
    if (!rs->split)
        st->copies = RV_GPU_COPIES_PER_FRAME;
    return 0;
}

/* After the last frame: everything synchronised, stream 0 selected again,
 * the per-slot images and events freed. */
static void gpu_teardown(rv_runstate *rs)
{
    RV_Context *ctx = rs->st->ctx;
    if (!rs->gs)
        return;
    rv_context_sync(ctx);
    if (rs->cuda)
        rv__cuda_set_stream(ctx, 0);
    for (int k = 0; k < rs->st->depth; k++) {
        if (rs->cuda) {
            rv__cuda_event_destroy(ctx, &rs->gs[k].ev0);
            rv__cuda_event_destroy(ctx, &rs->gs[k].ev1);
            rv__cuda_event_destroy(ctx, &rs->gs[k].ev_up);
            rv__cuda_event_destroy(ctx, &rs->gs[k].ev_k);
        }
        rv_image_destroy(&rs->gs[k].ctx_scratch);
    }
    free(rs->gs);
    rs->gs = NULL;
}

/* Issues job on slot k (see above). On error the caller drops the slot. */
static int gpu_issue(rv_runstate *rs, int k, const rv_job *job)
{
    RV_Streaming *st = rs->st;
    RV_Context *ctx = st->ctx;
    rv_gslot *g = &rs->gs[k];
    RV_Data *d = &rs->sv->data;
    g->job = *job;
    g->job.out = NULL;
    g->busy = 1;
    g->stop_req = 0;
    int err = rs->cuda ? rv__cuda_set_stream(ctx, rs->split ? rs->up_s : k) : 0;
    if (err < 0)
        return err;
    RV_Image *img = st->slots[job->idx].img;
    g->job.t0 = now_s();
    if (rs->timing && rv__cuda_event_record(ctx, g->ev0) < 0)
        rs->timing = 0;
    if ((err = rv_image_set_stride(img, job->meta.spatial_stride)) < 0)
        return err;
    /* phase 2, upload: async from the page-locked ring image, on the upload
     * stream (split) or stream k */
    if ((err = rs->cuda ? rv__cuda_image_upload_async(ctx, img) : rv__image_on_backend(img)) < 0)
        return err;
    if (rs->split && ((err = rv__cuda_event_record(ctx, g->ev_up)) < 0 || (err = rv__cuda_set_stream(ctx, k)) < 0 ||
                      (err = rv__cuda_stream_wait_event(ctx, g->ev_up)) < 0))
        return err;
    /* phase 3, stages: the slot's own scratch images */
    RV_Image *saved = ctx->scratch;
    ctx->scratch = g->ctx_scratch;
    d->job = k;
    err = rv_stage_vector_apply(rs->sv, img, &job->meta, &g->job.out);
    d->job = 0;
    g->ctx_scratch = ctx->scratch;
    ctx->scratch = saved;
    g->stop_req = d->stop_req;
    d->stop_req = 0;
    memcpy(g->kv, d->kv, sizeof(g->kv));
    g->nkv = d->nkv;
    if (err < 0)
        return err;
    /* start of phase 5: the one download, only when someone reads it (on
     * the download stream after the kernels, or on stream k) */
    const int down = rs->cuda && rs->want_host && g->job.out && !g->job.out->host_valid;
    if (rs->split && down &&
        ((err = rv__cuda_event_record(ctx, g->ev_k)) < 0 || (err = rv__cuda_set_stream(ctx, rs->down_s)) < 0 ||
         (err = rv__cuda_stream_wait_event(ctx, g->ev_k)) < 0))
        return err;
    if (down && (err = rv__cuda_image_download_async(ctx, g->job.out)) < 0)
        return err;
    if (rs->split) {
        /* ev1 is the completion event: it must be recorded */
        if ((err = rv__cuda_event_record(ctx, g->ev1)) < 0)
            return err;
    } else if (rs->timing && rv__cuda_event_record(ctx, g->ev1) < 0) {
        rs->timing = 0;
    }
    return 0;
}

/* Drops slot k's frame (error, or the run ended before it was delivered):
 * waits for its stream, counts it as dropped, releases the ring image. */
static void gpu_drop(rv_runstate *rs, int k, int at_stop)
{
    RV_Streaming *st = rs->st;
    rv_gslot *g = &rs->gs[k];
    if (!g->busy)
        return;
    if (rs->cuda) {
        rv__cuda_stream_sync(st->ctx, k);
        if (rs->split) {
            rv__cuda_stream_sync(st->ctx, rs->up_s);
            rv__cuda_stream_sync(st->ctx, rs->down_s);
        }
    }
    g->busy = 0;
    pthread_mutex_lock(&st->mu);
    st->dropped++;
    if (at_stop)
        st->dropped_at_stop++;
    pthread_mutex_unlock(&st->mu);
    release_slot(st, g->job.idx);
}

/* Phase 4 for slot k, then finish_frame. Returns like phase_deliver. */
static int gpu_complete(rv_runstate *rs, int k)
{
    RV_Streaming *st = rs->st;
    RV_Context *ctx = st->ctx;
    rv_gslot *g = &rs->gs[k];
    const double tw = now_s();
    int err = !rs->cuda ? 0 : rs->split ? rv__cuda_event_sync(ctx, g->ev1) : rv__cuda_stream_sync(ctx, k);
    g->job.t1 = now_s();
    pthread_mutex_lock(&st->mu);
    st->gpu_wait_s_sum += g->job.t1 - tw;
    pthread_mutex_unlock(&st->mu);
    if (err < 0) {
        gpu_drop(rs, k, 0);
        return err;
    }
    g->busy = 0;
    g->job.proc_s = g->job.t1 - g->job.t0;
    float ms = 0;
    if (rs->timing) {
        if (rv__cuda_event_elapsed_ms(ctx, g->ev0, g->ev1, &ms) >= 0 && ms >= 0) {
            g->job.proc_s = ms * 1e-3;
            pthread_mutex_lock(&st->mu);
            st->gpu_ms_sum += ms;
            st->gpu_frames++;
            pthread_mutex_unlock(&st->mu);
        } else {
            rs->timing = 0;
            rv__log(ctx, RV_LOG_INFO, "streaming: no CUDA event timing; proc_ms is wall time");
        }
    }
    /* The callback sees RV_Data as this frame's stages left it (later
     * frames' stages have run already): swap its values in for delivery. */
    RV_Data *d = &rs->sv->data;
    rv_kv *now_kv = malloc(sizeof(d->kv));
    int now_n = d->nkv;
    if (now_kv) {
        memcpy(now_kv, d->kv, sizeof(d->kv));
        memcpy(d->kv, g->kv, sizeof(d->kv));
        d->nkv = g->nkv;
    }
    d->stop_req = g->stop_req;
    int r = finish_frame(rs, &g->job);
    d->stop_req = 0;
    if (now_kv) {
        memcpy(d->kv, now_kv, sizeof(d->kv));
        d->nkv = now_n;
        free(now_kv);
    }
    return r;
}

static int queue_empty(RV_Streaming *st)
{
    pthread_mutex_lock(&st->mu);
    int e = st->qcount == 0;
    pthread_mutex_unlock(&st->mu);
    return e;
}

/* The processing loop on CUDA. Returns 0, >0 (clean end) or a negative error. */
static int run_gpu(rv_runstate *rs)
{
    RV_Streaming *st = rs->st;
    const int D = st->depth;
    int next = 0, oldest = 0, inflight = 0, r = 0, issue_err = 0;
    for (;;) {
        int stop_pending = 0;
        for (int k = 0; k < D; k++)
            stop_pending |= rs->gs[k].busy && rs->gs[k].stop_req;
        /* complete the oldest when all slots are busy, when a stage asked
         * to stop, or when no frame is waiting (lowest latency) */
        if (inflight > 0 && (inflight == D || stop_pending || queue_empty(st))) {
            r = gpu_complete(rs, oldest);
            oldest = (oldest + 1) % D;
            inflight--;
            if (r != 0)
                break;
            continue;
        }
        if (stop_pending)
            break;
        rv_job job;
        memset(&job, 0, sizeof(job));
        if (!phase_acquire(rs, &job))
            break; /* end of source or stop: the frames in flight are delivered below */
        rv_slot *sl = &st->slots[job.idx];
        pthread_mutex_lock(&st->mu);
        job.meta.spatial_stride = st->s_spatial;
        job.meta.temporal_stride = st->s_temporal;
        job.meta.processed = st->processed + inflight;
        pthread_mutex_unlock(&st->mu);
        job.meta.index = sl->seq;
        job.meta.pts_ns = sl->pts_ns;
        if (rs->have_proc && sl->seq - rs->last_proc_seq < job.meta.temporal_stride) {
            /* a repeat of the last output must come after the frames in flight */
            while (rs->hold_last && inflight > 0 && r == 0) {
                r = gpu_complete(rs, oldest);
                oldest = (oldest + 1) % D;
                inflight--;
            }
            if (r != 0) {
                /* taken from the queue, never processed: dropped at stop */
                pthread_mutex_lock(&st->mu);
                st->dropped++;
                st->dropped_at_stop++;
                pthread_mutex_unlock(&st->mu);
                release_slot(st, job.idx);
                break;
            }
            r = handle_skip(rs, &job);
            if (r != 0)
                break;
            continue;
        }
        rs->have_proc = 1;
        rs->last_proc_seq = job.meta.index;
        int err = gpu_issue(rs, next, &job);
        if (err < 0) {
            /* this frame is lost (dropped); the ones issued before it are
             * still delivered below, as the one-frame loop would have */
            gpu_drop(rs, next, 0);
            issue_err = err;
            break;
        }
        next = (next + 1) % D;
        inflight++;
    }
    /* Wind down the slots in issue order: after a normal end (source ended,
     * stop) the frames in flight are completed and delivered; once the run
     * failed or a sink, callback or stage ended it, they are dropped. */
    while (inflight > 0) {
        if (r == 0)
            r = gpu_complete(rs, oldest);
        else
            gpu_drop(rs, oldest, 1);
        oldest = (oldest + 1) % D;
        inflight--;
    }
    return r < 0 ? r : (issue_err < 0 ? issue_err : r);
}

/* run() failed outside the frame loop (before the first frame, or writing the
 * log at the end): the summary says so (end RV_END_ERROR, error = the code
 * run() returns), as after a failure during the run. */
static int run_failed(RV_Streaming *st, int err)
{
    pthread_mutex_lock(&st->mu);
    st->end = RV_END_ERROR;
    st->error = err;
    pthread_mutex_unlock(&st->mu);
    return err;
}

RV_API int rv_streaming_run(RV_Streaming *st, RV_StageVector *sv)
{
    if (!st)
        return RV_EINVAL;
    if (!sv || sv->ctx != st->ctx)
        return rv__error(st->ctx, RV_EINVAL, "rv_streaming_run: stage vector missing or of another context");
    if (st->ran)
        return rv__error(st->ctx, RV_EINVAL, "rv_streaming_run: one run per RV_Streaming");
    st->ran = 1;

    rv_runstate rs;
    memset(&rs, 0, sizeof(rs));
    rs.st = st;
    rs.sv = sv;
    rs.held = -1;
    rs.hold_last = (st->set.sink && rv_sink_repeats_skipped(st->set.sink)) ||
                   (st->set.on_frame && st->set.callback_skipped);

    /* Deadline per source frame: asked, else the source's frame period. */
    RV_AdaptSettings as = st->set.adapt;
    double dl = as.deadline_s;
    if (!(dl > 0))
        dl = st->info.fps_num > 0 && st->info.fps_den > 0 ? (double)st->info.fps_den / st->info.fps_num
                                                          : 1.0 / 30.0;
    as.deadline_s = dl;
    st->deadline_s = dl;
    if (as.fixed_spatial > 0)
        st->s_spatial = as.fixed_spatial > 64 ? 64 : as.fixed_spatial;
    if (as.fixed_temporal > 0)
        st->s_temporal = as.fixed_temporal;
    if (as.enabled) {
        int err = rv_adapt_create(&rs.adapt, &as);
        if (err == RV_ENOSYS) {
            rv__log(st->ctx, RV_LOG_INFO, "streaming: adaptation is not in this build; strides stay fixed");
            rs.adapt = NULL;
        } else if (err < 0) {
            return run_failed(st, rv__error(st->ctx, err,
                                                  "rv_streaming_run: cannot create the adaptation "
                                                  "controller: %s", rv_strerror(err)));
        }
        st->adapt_active = rs.adapt != NULL;
    }
    if (st->set.log_path) {
        rs.log = fopen(st->set.log_path, "w");
        if (!rs.log) {
            const int e = errno;
            rv_adapt_destroy(&rs.adapt);
            return run_failed(st, rv__error(st->ctx, rv__path_error(e),
                                                  "rv_streaming_run: cannot write the frame log '%s': %s",
                                                  st->set.log_path, strerror(e)));
        }
        fprintf(rs.log, "%s\n", log_header);
    }

    pthread_mutex_lock(&st->mu);
    st->t_start = now_s();
    st->end = RV_END_NONE;
    pthread_mutex_unlock(&st->mu);
    int err = 0;
    if (st->pipelined)
        err = gpu_setup(&rs);
    if (err >= 0)
        err = rv_streaming_start(st);
    int result = err;
    if (err >= 0 && rs.gs) {
        int r = run_gpu(&rs);
        if (r < 0)
            result = r;
        err = -1; /* skip the one-frame loop */
    }
    while (err >= 0) {
        rv_job job;
        memset(&job, 0, sizeof(job));
        if (!phase_acquire(&rs, &job))
            break;
        rv_slot *sl = &st->slots[job.idx];
        pthread_mutex_lock(&st->mu);
        job.meta.spatial_stride = st->s_spatial;
        job.meta.temporal_stride = st->s_temporal;
        job.meta.processed = st->processed;
        pthread_mutex_unlock(&st->mu);
        job.meta.index = sl->seq;
        job.meta.pts_ns = sl->pts_ns;
        int r;
        if (rs.have_proc && sl->seq - rs.last_proc_seq < job.meta.temporal_stride)
            r = handle_skip(&rs, &job);
        else
            r = process_frame(&rs, &job);
        if (r < 0) {
            result = r;
            break;
        }
        if (r > 0)
            break;
    }

    /* Wind down: stop and join the capture thread, then account for what
     * is still queued. A source stuck in a read (no data on a pipe, a
     * camera that stopped without an error) does not hold run() up beyond
     * its timeout plus a margin: the thread is left in the read, a frame it
     * returns later is not counted, and destroy() ends it. */
    const int joined = join_capture(st, stop_grace_ms(st));
    if (!joined)
        rv__log(st->ctx, RV_LOG_WARN,
                "streaming: the source has not returned from a read for %d ms; run() returns without it",
                stop_grace_ms(st));
    pthread_mutex_lock(&st->mu);
    if (!joined)
        st->run_over = 1;
    while (st->qcount > 0) {
        int idx = q_pop(st);
        discard_contents(st->slots[idx].img);
        push_free(st, idx);
        st->dropped++;
        st->dropped_at_stop++;
    }
    pthread_mutex_unlock(&st->mu);
    if (rs.held >= 0)
        release_slot(st, rs.held);
    gpu_teardown(&rs);
    pthread_mutex_lock(&st->mu);
    if (result < 0) {
        st->end = RV_END_ERROR;
        st->error = result;
    } else if (st->end == RV_END_ERROR) {
        result = st->error;
    } else if (st->end == RV_END_NONE) {
        st->end = RV_END_STOPPED;
    }
    st->t_end = now_s();
    long long in_flight = st->captured - st->processed - st->skipped - st->dropped;
    pthread_mutex_unlock(&st->mu);
    if (in_flight != 0)
        rv__log(st->ctx, RV_LOG_ERROR, "streaming: frame accounting is off by %lld (internal error)", in_flight);
    if (rs.log) {
        /* a full disk must not leave a cut-short log behind a successful run */
        const int werr = ferror(rs.log);
        if ((fclose(rs.log) != 0 || werr) && result >= 0) {
            result = run_failed(st, rv__error(st->ctx, RV_EIO,
                                              "rv_streaming_run: error writing the frame log '%s'",
                                              st->set.log_path));
        }
    }
    rv_adapt_destroy(&rs.adapt);
    return result;
}
