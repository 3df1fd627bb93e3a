/* bench_drv.c - loads the driver table of bench_drv.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

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
