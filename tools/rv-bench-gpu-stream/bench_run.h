/*
 * bench_run.h - one timed RV_Streaming run for the streaming benchmarks
 * (rv-bench-gpu-stream, rv-bench-gpu-stream-deband): a custom source whose
 * first ring frames are filled once and then handed out as they are, a
 * callback that reads every plane of the downloaded output, frames/s over
 * the frames after a warm-up.
 */
#ifndef RV_BENCH_RUN_H
#define RV_BENCH_RUN_H

#include <ravioli/ravioli.h>
#include <ravioli/stream.h>

/** Writes test pixels into frame number k (k < 16: the ring's frames). */
typedef void (*bench_fill_fn)(RV_Image *frame, int k);

typedef struct bench_run_args {
    RV_VideoInfo vi;       /* the frames the source delivers */
    bench_fill_fn fill;
    int warm, frames;      /* frames before timing starts, frames timed */
    int gpu_streams;       /* 0: the default */
    RV_GpuCopies copies;
} bench_run_args;

/** The arguments for warm + frames frames of w x h `fmt` at 30 fps, filled by
 *  `fill`; default streams and copy placement (set gpu_streams / copies after). */
bench_run_args bench_run_init(int w, int h, RV_Format fmt, bench_fill_fn fill, int warm, int frames);

/** Seconds on the monotonic clock. */
double bench_now_s(void);

/** Runs sv once over warm + frames frames (ring of 4, RV_RING_BLOCK,
 *  adaptation off). Returns frames/s after the warm-up, or -1 with a
 *  message on stderr when the run failed or lost frames. gpu_ms, wait_ms
 *  (may be NULL): the summary's GPU time and host wait per frame. */
double bench_stream_fps(RV_Context *ctx, RV_StageVector *sv, const bench_run_args *a, double *gpu_ms,
                        double *wait_ms);

#endif
