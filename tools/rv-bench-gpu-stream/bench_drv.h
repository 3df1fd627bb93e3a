/*
 * bench_drv.h - the CUDA driver calls rv-bench-gpu-stream's peers make
 * (the PCIe bound and the bare driver loop), loaded at run time from
 * libcuda.so.1 as the library does, so the benchmark builds without the
 * CUDA toolkit's headers.
 */
#ifndef RV_BENCH_DRV_H
#define RV_BENCH_DRV_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;

typedef struct bench_drv {
    void *lib;
    CUresult (*cuInit)(unsigned);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuMemHostAlloc)(void **, size_t, unsigned);
    CUresult (*cuMemFreeHost)(void *);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree)(CUdeviceptr);
    CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*cuStreamCreate)(CUstream *, unsigned);
    CUresult (*cuStreamDestroy)(CUstream);
    CUresult (*cuStreamSynchronize)(CUstream);
    CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
    CUresult (*cuEventCreate)(CUevent *, unsigned);
    CUresult (*cuEventDestroy)(CUevent);
    CUresult (*cuEventRecord)(CUevent, CUstream);
    CUresult (*cuEventSynchronize)(CUevent);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CUstream, void **, void **);
} bench_drv;

/** Loads libcuda.so.1 and every entry point; 0, or -1 with a message naming
 *  the missing symbol (nothing to close on failure). */
int bench_drv_open(bench_drv *d);
/** Unloads it (after the contexts are released). */
void bench_drv_close(bench_drv *d);

/** Copy rates between page-locked host memory and the device, GB/s (1e9
 *  bytes/s): H2D alone, D2H alone, both directions at once on two streams
 *  (`both` counts the bytes of both directions). */
typedef struct bench_bound {
    double h2d, d2h, both;
} bench_bound;

/** Copies of `bytes` (one frame) back to back, `reps` times per direction,
 *  on device 0's primary context; 0, or -1 with a message on stderr. A
 *  pipeline that moves each frame up once and down once is bound by
 *  min(h2d, d2h, both / 2) / bytes frames/s. */
int bench_pcie_bound(bench_drv *d, size_t bytes, int reps, bench_bound *b);

#endif
