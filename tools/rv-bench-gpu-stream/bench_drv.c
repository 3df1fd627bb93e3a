/* bench_drv.c - loads the driver table of bench_drv.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_drv.h"

#define SYM(name, s)                                                                              \
    do {                                                                                           \
        void *p_ = dlsym(d->lib, s);                                                               \
        if (!p_) {                                                                                 \
            fprintf(stderr, "libcuda.so.1 has no %s\n", s);                                       \
            bench_drv_close(d);                                                                    \
            return -1;                                                                             \
        }                                                                                          \
        memcpy(&d->name, &p_, sizeof(p_));                                                         \
    } while (0)

int bench_drv_open(bench_drv *d)
{
    memset(d, 0, sizeof(*d));
    d->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!d->lib)
        return -1;
    SYM(cuInit, "cuInit");
    SYM(cuDeviceGet, "cuDeviceGet");
    SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    SYM(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    SYM(cuCtxSetCurrent, "cuCtxSetCurrent");
    SYM(cuMemHostAlloc, "cuMemHostAlloc");
    SYM(cuMemFreeHost, "cuMemFreeHost");
    SYM(cuMemAlloc, "cuMemAlloc_v2");
    SYM(cuMemFree, "cuMemFree_v2");
    SYM(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
    SYM(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
    SYM(cuStreamCreate, "cuStreamCreate");
    SYM(cuStreamDestroy, "cuStreamDestroy_v2");
    SYM(cuStreamSynchronize, "cuStreamSynchronize");
    SYM(cuStreamWaitEvent, "cuStreamWaitEvent");
    SYM(cuEventCreate, "cuEventCreate");
    SYM(cuEventDestroy, "cuEventDestroy_v2");
    SYM(cuEventRecord, "cuEventRecord");
    SYM(cuEventSynchronize, "cuEventSynchronize");
    SYM(cuModuleLoadData, "cuModuleLoadData");
    SYM(cuModuleUnload, "cuModuleUnload");
    SYM(cuModuleGetFunction, "cuModuleGetFunction");
    SYM(cuLaunchKernel, "cuLaunchKernel");
    return 0;
}

void bench_drv_close(bench_drv *d)
{
    if (d->lib)
        dlclose(d->lib);
    d->lib = NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CKD(x)                                                                                     \
    do {                                                                                           \
        CUresult r_ = (x);                                                                         \
        if (r_ != 0) {                                                                             \
            fprintf(stderr, "%s failed: CUDA error %d\n", #x, r_);                                \
            ok = 0;                                                                                \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Copies of `bytes` (one frame) back to back, `reps` times per direction. */
int bench_pcie_bound(bench_drv *d, size_t bytes, int reps, bench_bound *b)
{
    int ok = 1;
    CUdevice dev;
    CUcontext cu = NULL;
    void *h_up = NULL, *h_down = NULL;
    CUdeviceptr d_up = 0, d_down = 0;
    CUstream s1 = NULL, s2 = NULL;
    memset(b, 0, sizeof(*b));
    CKD(d->cuInit(0));
    CKD(d->cuDeviceGet(&dev, 0));
    CKD(d->cuDevicePrimaryCtxRetain(&cu, dev));
    CKD(d->cuCtxSetCurrent(cu));
    CKD(d->cuMemHostAlloc(&h_up, bytes, 0));
    CKD(d->cuMemHostAlloc(&h_down, bytes, 0));
    memset(h_up, 0x5a, bytes);
    memset(h_down, 0, bytes);
    CKD(d->cuMemAlloc(&d_up, bytes));
    CKD(d->cuMemAlloc(&d_down, bytes));
    CKD(d->cuStreamCreate(&s1, 1 /* non-blocking */));
    CKD(d->cuStreamCreate(&s2, 1));
    /* warm-up */
    for (int i = 0; i < 5; i++) {
        CKD(d->cuMemcpyHtoDAsync(d_up, h_up, bytes, s1));
        CKD(d->cuMemcpyDtoHAsync(h_down, d_down, bytes, s2));
    }
    CKD(d->cuStreamSynchronize(s1));
    CKD(d->cuStreamSynchronize(s2));
    double t0 = now_s();
    for (int i = 0; i < reps; i++)
        CKD(d->cuMemcpyHtoDAsync(d_up, h_up, bytes, s1));
    CKD(d->cuStreamSynchronize(s1));
    b->h2d = (double)bytes * reps / (now_s() - t0) * 1e-9;
    t0 = now_s();
    for (int i = 0; i < reps; i++)
        CKD(d->cuMemcpyDtoHAsync(h_down, d_down, bytes, s2));
    CKD(d->cuStreamSynchronize(s2));
    b->d2h = (double)bytes * reps / (now_s() - t0) * 1e-9;
    t0 = now_s();
    for (int i = 0; i < reps; i++) {
        CKD(d->cuMemcpyHtoDAsync(d_up, h_up, bytes, s1));
        CKD(d->cuMemcpyDtoHAsync(h_down, d_down, bytes, s2));
    }
    CKD(d->cuStreamSynchronize(s1));
    CKD(d->cuStreamSynchronize(s2));
    b->both = 2.0 * (double)bytes * reps / (now_s() - t0) * 1e-9;
out:
    if (s1)
        d->cuStreamDestroy(s1);
    if (s2)
        d->cuStreamDestroy(s2);
    if (d_up)
        d->cuMemFree(d_up);
    if (d_down)
        d->cuMemFree(d_down);
    if (h_up)
        d->cuMemFreeHost(h_up);
    if (h_down)
        d->cuMemFreeHost(h_down);
    if (cu)
        d->cuDevicePrimaryCtxRelease(dev);
    return ok ? 0 : -1;
}
