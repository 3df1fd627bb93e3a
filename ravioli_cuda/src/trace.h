/*
 * trace.h - the name hash of grid timelines (kernel.h, RV_TRACE_GRIDS).
 *
 * A traced entry records a 64-bit FNV-1a of its name, computed at compile
 * time by rv__trace_hash in kernel.h; the CUDA backend hashes the names of
 * the kernels it looks up with this function to name the records. The two
 * must agree: tests/gpu/test_trace_ptx.c checks this one against the
 * constants in a traced build's PTX.
 */
#ifndef RAVIOLI_CUDA_TRACE_H
#define RAVIOLI_CUDA_TRACE_H

#include <stdint.h>

/* A record of the ring (kernel.h's rv__trace_rec, written by the GPU): grid
 * id, name hash and start time (u64 at bytes 0, 8, 16), then ns to the
 * wait's return, ns to the end, SM and block index (u32 at 24, 28, 32, 36). */
#define RVC_TRACE_REC_BYTES 40

static inline uint64_t rvc_trace_hash(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

#endif
