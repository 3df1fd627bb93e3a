/*
 * ravioli/stream.h - video processing: stage vectors and RV_Streaming.
 *
 * The application writes the processing of one frame as a chain of stage
 * functions (thesis 3.3.2, RV_StageVector::push) and hands the chain to an
 * RV_Streaming, which captures frames on its own thread into a ring buffer
 * and runs the chain on every processed frame:
 *
 *     static void binarize(RV_Image *frame, RV_Data *d)
 *     {
 *         const RV_Kernel *k = rv_data_user(d);
 *         rv_threshold_params p = {128}; // modules/samples/samples_params.h
 *         rv_data_check(d, rv_proc_pix(k, frame, frame, &p, sizeof(p)));
 *     }
 *
 *     RV_StageVector *sv;
 *     rv_stage_vector_create(ctx, &sv);
 *     // kbin, kedge: const RV_Kernel * from rv_kernel_get (the user pointer is void *)
 *     rv_stage_vector_push(sv, binarize, (void *)kbin, "binarize");
 *     rv_stage_vector_push(sv, edge, (void *)kedge, "edge");
 *
 *     RV_StreamSettings set;
 *     rv_stream_settings_default(&set);
 *     set.sink = window;                      // and/or set.on_frame = ...
 *     RV_Streaming *st;
 *     rv_streaming_create(ctx, source, &set, &st);
 *     rv_streaming_run(st, sv);               // until the source ends or stop
 *     RV_StreamSummary sum;
 *     rv_streaming_summary(st, &sum);
 *     rv_streaming_destroy(&st);
 *     rv_stage_vector_destroy(&sv);
 *
 * Threads: the capture thread only reads the source into ring images; the
 * stages, the frame callback and the sink all run on the thread that calls
 * rv_streaming_run() (so a window sink works from the main thread).
 * rv_streaming_stop() may be called from any thread and from a signal
 * handler. The context must not be used by other threads during a run. The
 * context's log callback may be called on the capture thread too (a failing
 * source's messages), concurrently with the run() thread.
 *
 * On the CUDA backend the frame is uploaded once before the first stage,
 * stays on the device through all stages (operations and scratch images
 * keep it there), and is downloaded once for the sink or the callback;
 * gpu_streams frames (default 3) are in flight at once, each with its
 * kernels on its own CUDA stream, uploads and downloads on two copy streams,
 * so the transfers of some overlap the kernels of others. Stages
 * must then write only the frame and rv_data_image() scratch images (one
 * set per frame in flight). See docs/streaming.md.
 */
#ifndef RAVIOLI_STREAM_H
#define RAVIOLI_STREAM_H

#include "image.h"
#include "adapt.h"
#include "ops.h"
#include "video.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Per-frame data handed to stages                                      */
/* ------------------------------------------------------------------ */

typedef struct RV_Data RV_Data;

/** Metadata of the frame being processed. */
typedef struct RV_FrameMeta {
    long long index;          /* capture sequence number (0 = first frame read from the source) */
    long long processed;      /* how many frames were processed before this one */
    long long pts_ns;         /* capture time from the source (ns; its clock), 0 if unknown */
    int spatial_stride;       /* S_I the stages run at (set on the frame image) */
    int temporal_stride;      /* S_T in force: every S_T-th frame is processed */
} RV_FrameMeta;

/** A stage: processes one frame (in place, or into scratch images; see rv_data_set_frame). */
typedef void (*RV_StageFn)(RV_Image *frame, RV_Data *data);

RV_API RV_Context *rv_data_context(const RV_Data *d);
RV_API const RV_FrameMeta *rv_data_frame(const RV_Data *d);
/** The user pointer given to rv_stage_vector_push() for the running stage. */
RV_API void *rv_data_user(const RV_Data *d);
/** Name and position of the running stage. */
RV_API const char *rv_data_stage_name(const RV_Data *d);
RV_API int rv_data_stage_index(const RV_Data *d);
/** Frames in flight at most (RV_StreamSettings.gpu_streams' upper bound). */
#define RV_MAX_FRAMES_IN_FLIGHT 8
/**
 * The frame-in-flight slot the current frame runs in: 0 .. gpu_streams - 1
 * on the CUDA pipeline (its own CUDA stream), always 0 when frames run one at
 * a time. A stage that keeps device state outside the frame and
 * rv_data_image() (a library object with scratch buffers of its own, such
 * as an RV_Dwt) keeps one per slot: frames of different slots run
 * concurrently, frames of one slot in order.
 */
RV_API int rv_data_slot(const RV_Data *d);

/**
 * Scratch image `name` (up to 31 characters) of the stage vector: created on
 * first use, kept across frames (on the CUDA backend it stays on the device),
 * re-created when the size or format asked for changes. Owned by the stage
 * vector. Returns 0 and *out, or a negative code.
 */
RV_API int rv_data_image(RV_Data *d, const char *name, int w, int h, RV_Format fmt,
                         RV_Image **out);

/**
 * Replaces the image handed to the following stages and delivered as the
 * frame's output (e.g. a stage that converts RGBA to GRAY8 into a scratch
 * image). `img` must belong to the context and outlive the frame (a scratch
 * image, or the frame). Reset to the captured frame for every new frame.
 */
RV_API int rv_data_set_frame(RV_Data *d, RV_Image *img);

/** Maximum number of values per key, and key length. */
#define RV_DATA_MAX_VALUES 4
#define RV_DATA_KEY_MAX 31

/**
 * Small key/value store of reduction results (e.g. a template-match
 * position) that later stages, the frame callback and the application read.
 * Values persist across frames until overwritten; each remembers the frame
 * index it was stored in. At most 64 keys.
 */
RV_API int rv_data_put(RV_Data *d, const char *key, const double *v, int n);
/**
 * Reads up to `max` values of `key` into v; returns how many the key holds
 * (>= 1), or RV_ENOENT. *frame_index (may be NULL) gets the index of the frame
 * that stored them.
 */
RV_API int rv_data_get(const RV_Data *d, const char *key, double *v, int max,
                       long long *frame_index);
/** Stores a procBox result as {score, x, y, positions}. */
RV_API int rv_data_put_box(RV_Data *d, const char *key, const RV_BoxResult *r);
RV_API int rv_data_get_box(const RV_Data *d, const char *key, RV_BoxResult *r);

/**
 * Fails the run: the remaining stages of the frame are not run and
 * rv_streaming_run() returns `code` (negative) with the message recorded on
 * the context. Returns `code`.
 */
RV_API int rv_data_fail(RV_Data *d, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/** If err < 0, fails the run with it (keeping the context's message); returns err. */
RV_API int rv_data_check(RV_Data *d, int err);
/** Ends the run cleanly after this frame (e.g. the object was found). */
RV_API void rv_data_request_stop(RV_Data *d);

/* ------------------------------------------------------------------ */
/* Stage vectors                                                        */
/* ------------------------------------------------------------------ */

typedef struct RV_StageVector RV_StageVector;

RV_API int rv_stage_vector_create(RV_Context *ctx, RV_StageVector **out);
/** Destroys the vector, its data and its scratch images; sets *sv to NULL. */
RV_API void rv_stage_vector_destroy(RV_StageVector **sv);
/** Appends a stage; `name` (may be NULL) is copied. Stages run in push order. */
RV_API int rv_stage_vector_push(RV_StageVector *sv, RV_StageFn fn, void *user, const char *name);
RV_API int rv_stage_vector_size(const RV_StageVector *sv);
/** The vector's data: its key/value store and scratch images (between runs or in callbacks). */
RV_API RV_Data *rv_stage_vector_data(RV_StageVector *sv);
/**
 * Runs all stages once on `frame` with the given metadata (meta may be NULL).
 * rv_streaming_run() does this per frame; it is public for tests and for
 * applications that bring their own frame loop. Returns 0 or the code a
 * stage failed with.
 */
RV_API int rv_stage_vector_apply(RV_StageVector *sv, RV_Image *frame, const RV_FrameMeta *meta,
                                 RV_Image **output);
/** Mean wall time of stage i over the frames run so far (ms), or -1. */
RV_API double rv_stage_vector_stage_ms(const RV_StageVector *sv, int i);

/* ------------------------------------------------------------------ */
/* Streaming                                                            */
/* ------------------------------------------------------------------ */

typedef struct RV_Streaming RV_Streaming;

/** What the capture thread does when the ring is full. */
typedef enum RV_RingPolicy {
    RV_RING_BLOCK       = 0, /* wait for a free slot: no frame is lost (files, pipes) */
    RV_RING_DROP_OLDEST = 1, /* drop the oldest queued frame to make room */
    RV_RING_DROP_NEWEST = 2, /* drop the frame just captured */
    RV_RING_LATEST      = 3  /* like DROP_OLDEST, and the processing side always takes the
                              * newest queued frame, dropping older ones: it never works on a
                              * stale frame (lowest latency; for cameras) */
} RV_RingPolicy;

/** Information on one frame, for the frame callback. */
typedef struct RV_FrameInfo {
    RV_FrameMeta meta;
    double proc_ms;           /* upload + stages + completion: wall clock on the CPU; on the
                               * CUDA pipeline the frame's GPU time (CUDA events on its
                               * stream, upload to download), wall clock if unavailable */
    double latency_ms;        /* capture (source timestamp, or enqueue) to delivery */
    double fps;               /* processed frames per second, recent average */
    int deadline_met;         /* proc time <= deadline * S_T */
    int repeated;             /* 1: a skipped frame, `frame` is the last output again */
} RV_FrameInfo;

/**
 * Called on the run() thread for every processed frame (and, when
 * RV_StreamSettings.callback_skipped is set, for skipped ones with repeated=1
 * and the last output, or NULL before any). `frame` is the output; it is valid
 * during the call only. Return 0 to go on, nonzero to end the run cleanly.
 */
typedef int (*RV_FrameCallback)(void *user, RV_Image *frame, const RV_FrameInfo *info,
                                const RV_Data *data);

/**
 * CUDA pipeline: where the frames' transfers go.
 *
 * SPLIT: the uploads of all frames go in order on one CUDA stream and the
 * downloads on another; each frame's kernels run on its own stream, ordered
 * after its upload and before its download by CUDA events. One stream per
 * direction keeps one copy engine busy in each direction, so uploads and
 * downloads run at the same time (the PCIe duplex bound).
 * PER_FRAME: upload, kernels and download of a frame all on the frame's
 * stream (the driver then picks the copy engine per stream; measured
 * slower on an H200, see docs/perf/gpu-stream.md).
 */
typedef enum RV_GpuCopies {
    RV_GPU_COPIES_DEFAULT   = 0, /* = SPLIT */
    RV_GPU_COPIES_SPLIT     = 1,
    RV_GPU_COPIES_PER_FRAME = 2
} RV_GpuCopies;

/** An application-provided source; same contract as rv_source_read(). */
typedef int (*RV_ReadFrameFn)(void *user, RV_Image *frame, long long *pts_ns, int timeout_ms);

typedef struct RV_StreamSettings {
    int ring_frames;          /* queued frames in the ring, default 4 (1..64) */
    RV_RingPolicy policy;     /* default RV_RING_BLOCK */
    long long max_frames;     /* stop after this many captured frames; -1 = no limit (default) */
    int read_timeout_ms;      /* per rv_source_read() call (stop is noticed in between); 100 */
    RV_Sink *sink;            /* receives each output (run() thread); may be NULL */
    RV_FrameCallback on_frame;/* may be NULL */
    void *user;               /* for on_frame */
    int callback_skipped;     /* also call on_frame for skipped frames; default 0 */
    RV_AdaptSettings adapt;   /* adaptation; adapt.deadline_s 0 = 1/fps of the source (or 1/30) */
    int spatial_stride;       /* initial S_I (default 1); with adapt.enabled only the first
                               * processed frame runs at it: the controller then answers
                               * from its own start, S_I = 1 (or adapt.fixed_spatial) */
    int temporal_stride;      /* initial S_T (default 1); the same with adapt.enabled
                               * (S_T = 1 or adapt.fixed_temporal from the second frame on) */
    const char *log_path;     /* per-frame CSV, or NULL: frame,time_s,proc_ms,deadline_ms,
                               * budget_ms,met,s_spatial,s_temporal,latency_ms,captured,skipped,
                               * dropped (names as in the adaptation log; rv-plot reads it).
                               * One that cannot be created fails rv_streaming_run before any
                               * frame: RV_ENOENT when a directory on the path does not
                               * exist, else RV_EIO (also a write error during the run) */
    int gpu_streams;          /* CUDA backend: frames in flight, each on its own CUDA stream
                               * with its own scratch images and timing events (1..8,
                               * default 3; 0 = default; 1 = one frame at a time). Upload of
                               * frame n+1 and download of frame n overlap the kernels of the
                               * other. Ignored on the CPU backend. See docs/streaming.md. */
    RV_GpuCopies gpu_copies;  /* CUDA backend: which CUDA streams carry the transfers;
                               * default (0) = RV_GPU_COPIES_SPLIT */
} RV_StreamSettings;

RV_API void rv_stream_settings_default(RV_StreamSettings *s);

/** Why a run ended. */
typedef enum RV_StreamEnd {
    RV_END_NONE = 0,          /* not run yet / still running */
    RV_END_EOS,               /* the source ended (or max_frames was reached) */
    RV_END_STOPPED,           /* rv_streaming_stop(), a stage or the callback asked */
    RV_END_SINK_CLOSED,       /* the sink said RV_EPIPE (window closed, pipe gone) */
    RV_END_ERROR              /* an error: see rv_streaming_run()'s code */
} RV_StreamEnd;

/**
 * Frame accounting. Every captured frame ends in exactly one of processed,
 * skipped (temporal stride) or dropped (ring full, LATEST, or queued when the
 * run stopped); `in_flight` counts those in none yet and is 0 after run()
 * returned: captured == processed + skipped + dropped + in_flight.
 */
typedef struct RV_StreamSummary {
    long long captured, processed, skipped, dropped, in_flight;
    long long dropped_at_stop;   /* part of `dropped`: still queued when the run ended */
    long long source_dropped;    /* not in the identity: frames the source itself skipped to
                                  * stay live before they were captured (rv_source_dropped()) */
    long long repeated;          /* skipped frames the sink got as a repeat of the last output */
    long long sink_frames;       /* frames written to the sink (repeats included) */
    long long deadline_missed;   /* processed frames over deadline * S_T */
    double elapsed_s;            /* run time */
    double proc_ms_mean, proc_ms_max;
    double fps;                  /* processed / elapsed */
    double deadline_ms;          /* the deadline per source frame used */
    int spatial_stride, temporal_stride; /* at the end */
    int stride_changes;          /* how often adaptation changed them */
    int adapt_active;            /* 1 when the adaptation controller ran */
    RV_StreamEnd end;
    int error;                   /* the code run() returned */
    int gpu_streams;             /* frames that were kept in flight (CUDA pipeline), 0 = CPU */
    double gpu_ms_mean;          /* CUDA: mean GPU time per processed frame from CUDA events
                                  * (upload start to download end on its stream), 0 if none */
    double gpu_wait_ms_mean;     /* CUDA pipeline: mean host time per processed frame spent
                                  * blocked waiting for a frame to complete (the rest of
                                  * 1/fps is host work: delivery, issuing the next frame) */
    int gpu_copies;              /* RV_GpuCopies used (CUDA pipeline), 0 on the CPU */
} RV_StreamSummary;

/**
 * Creates a streaming object on `src` (not owned: close it after destroying
 * the streaming). Ring images are allocated here (page-locked host memory on
 * the CUDA backend).
 */
RV_API int rv_streaming_create(RV_Context *ctx, RV_Source *src, const RV_StreamSettings *s,
                               RV_Streaming **out);
/** The same with an application-provided source of frames described by `info`. */
RV_API int rv_streaming_create_custom(RV_Context *ctx, const RV_VideoInfo *info, RV_ReadFrameFn read,
                                      void *read_user, const RV_StreamSettings *s,
                                      RV_Streaming **out);
/**
 * Stops (if running), joins the capture thread, frees everything; sets *st to
 * NULL. A capture thread still inside the source's read read_timeout_ms +
 * 200 ms after the stop is cancelled there (pthread_cancel; an application
 * read function that ignores its timeout must be safe to cancel, as a
 * blocking read() or poll() is); close such a source afterwards.
 */
RV_API void rv_streaming_destroy(RV_Streaming **st);

/** Starts the capture thread (run() calls it when the caller did not). */
RV_API int rv_streaming_start(RV_Streaming *st);
/**
 * Processes frames with the stages of `sv` until the source ends, the stop
 * flag is set, the sink is closed, or an error. Returns 0 when the run ended
 * normally (end of stream, stop, sink closed), else the negative error,
 * whose message is on the context (rv_context_error; for a failed read it
 * names the frame and carries the source's own message). One run per
 * RV_Streaming.
 */
RV_API int rv_streaming_run(RV_Streaming *st, RV_StageVector *sv);
/**
 * Asks the run to end after the frame in progress. Only sets an atomic flag:
 * safe from any thread and from a signal handler. The run notices it within
 * read_timeout_ms (capture) and a few ms (processing). A source stuck in a
 * read beyond its timeout (a silent pipe) does not hold run() up: it returns
 * within read_timeout_ms + 200 ms with the accounting final, and
 * rv_streaming_destroy() cancels the read (docs/streaming.md).
 */
RV_API void rv_streaming_stop(RV_Streaming *st);
/** Frame accounting and figures (at any time; final once run() returned). */
RV_API int rv_streaming_summary(const RV_Streaming *st, RV_StreamSummary *out);
/** The description of the frames (size, format, rate). */
RV_API int rv_streaming_info(const RV_Streaming *st, RV_VideoInfo *info);

RV_API const char *rv_ring_policy_name(RV_RingPolicy p);
RV_API const char *rv_stream_end_name(RV_StreamEnd e);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_STREAM_H */
