/*
 * cuda_emu.h - just enough of CUDA to run the deband kernels' GPU bodies on
 * the CPU (compiled as C++ with -DRV_CUDA): every thread of a block is an OS
 * thread, __syncthreads is a barrier, __shared__ storage is a static shared
 * by the block's threads (blocks run one after another). Used by
 * test_deband_gpu_emu to check the CUDA code paths (indexing, tiles,
 * barriers, vector stores) without a GPU.
 */
#ifndef CUDA_EMU_H
#define CUDA_EMU_H
#include <pthread.h>
#include <stdint.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline

#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)

struct dim3 { unsigned x, y, z; };
struct uint2 { unsigned x, y; };
struct uint4 { unsigned x, y, z, w; };
static inline uint2 make_uint2(unsigned x, unsigned y) { uint2 r = {x, y}; return r; }
template <class T> static inline T __ldg(const T *p) { return *p; }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
/* byte i of the result: byte (s >> 4i) & 7 of the 8 bytes y:x */
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    const unsigned long long b = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++)
        r |= (unsigned)((b >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}

/* Used by other parts of ravioli/kernel.h (procBox reductions), never by the
 * deband kernels; declared so that the header compiles, aborting if called. */
#define __grid_constant__
[[noreturn]] void emu_unsupported(const char *what);
template <class T> static inline T __ldcg(const T *) { emu_unsupported("__ldcg"); }
template <class T> static inline T __shfl_down_sync(unsigned, T, int) { emu_unsupported("__shfl_down_sync"); }
static inline void __threadfence(void) { emu_unsupported("__threadfence"); }
static inline void __threadfence_system(void) { emu_unsupported("__threadfence_system"); }
template <class T> static inline T atomicAdd(T *, T) { emu_unsupported("atomicAdd"); }

extern thread_local dim3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
extern pthread_barrier_t emu_barrier;
extern unsigned char *emu_dyn_smem; /* the block's dynamic shared memory */
static inline void __syncthreads(void) { pthread_barrier_wait(&emu_barrier); }

/* cp.async as the hardware may run it: a thread's copies are only queued,
 * tagged with the number of groups it has committed so far, and performed
 * when a wait_group lets fewer than n newer committed groups stay pending
 * (or never, if the kernel does not wait). With the block's shared memory
 * poisoned before each block, a computation that reads a staged row before
 * waiting for its group reads the poison and fails the comparison. */
#include <string.h>
struct emu_cp { void *d; const void *g; int n, grp; };
#define EMU_CP_MAX 256
extern thread_local emu_cp emu_cp_q[EMU_CP_MAX];
extern thread_local int emu_cp_nq, emu_cp_ngrp;
[[noreturn]] void emu_unsupported(const char *what);
static inline void emu_cp_async(void *d, const void *g, int n)
{
    if (emu_cp_nq == EMU_CP_MAX)
        emu_unsupported("more than EMU_CP_MAX pending cp.async copies a thread");
    emu_cp_q[emu_cp_nq++] = emu_cp{d, g, n, emu_cp_ngrp};
}
static inline void emu_cp_commit(void) { emu_cp_ngrp++; }
static inline void emu_cp_wait(int n)
{
    int k = 0;
    for (int i = 0; i < emu_cp_nq; i++) {
        if (emu_cp_q[i].grp < emu_cp_ngrp - n)
            memcpy(emu_cp_q[i].d, emu_cp_q[i].g, (size_t)emu_cp_q[i].n);
        else
            emu_cp_q[k++] = emu_cp_q[i];
    }
    emu_cp_nq = k;
}
#endif
