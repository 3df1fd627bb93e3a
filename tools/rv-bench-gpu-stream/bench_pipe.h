/* bench_pipe.h - the peer (bare driver loop) and copy-placement rows of
 * rv-bench-gpu-stream (bench_pipe.c). */
#ifndef RV_BENCH_PIPE_H
#define RV_BENCH_PIPE_H

#include <stddef.h>
#include <ravioli/stream.h>

typedef struct bench_pipe_ctx {
    const char *size_name;
    size_t bytes;                 /* one RGBA frame */
    double h2d, d2h, both;        /* the bounds measured for this size (GB/s) */
    double torch_fps;             /* < 0 when not measured */
    int warm, frames;
    /* runs RV_Streaming on this size's pipeline: frames/s, GPU ms and host
     * wait ms per frame */
    double (*run)(void *user, int streams, RV_GpuCopies copies, double *gpu_ms, double *wait_ms);
    void *run_user;
} bench_pipe_ctx;

/* Prints the rows; returns 0 or 1 (something failed). */
int bench_pipe_rows(const bench_pipe_ctx *p);

#endif
