/*
 * fake_cuda.c - a stand-in for libcuda.so.1 with one device and no GPU, for
 * tests of the CUDA backend's host side on any machine (CI included): a test
 * points RAVIOLI_CUDA_DRIVER at this library and creates an RV_BACKEND_CUDA
 * context. It exports every function of RVC_DRIVER_FUNCS
 * (ravioli_cuda/src/cuda_driver.h), under the same symbol names.
 *
 * What works: initialisation, the device's properties (compute capability
 * 9.0, one multiprocessor), the primary context, streams, events,
 * page-locked host memory (malloc, listed for cuMemHostGetFlags), device
 * memory (malloc: a CUdeviceptr is a host address), sets and copies (done
 * at once, memcpy) and synchronisation - enough to create a context and
 * move bytes through its buffers and images. What does not: loading a
 * module (cuModuleLoadDataEx answers CUDA_ERROR_INVALID_IMAGE, with "fake
 * driver: loads no modules" in the JIT error log) and launches
 * (CUDA_ERROR_NOT_SUPPORTED). So a test reaches everything the backend does
 * before it hands a module to the driver (finding and reading the file) and
 * the host side of its copies (test_cuda_copies: the staged copies of
 * pageable memory), and no kernel ever runs. One function of its own,
 * rv_fake_cuda_at_next_bind, lets a test act at a known moment of a call
 * (below, before cuCtxSetCurrent).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver.h"

#define FAKE_API __attribute__((visibility("default")))

enum { FAKE_INVALID_IMAGE = 200, FAKE_NOT_SUPPORTED = 801 };

static char fake_primary_ctx; /* the primary context's handle: its address */

FAKE_API CUresult cuInit(unsigned int flags)
{
    (void)flags;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDriverGetVersion(int *version)
{
    *version = 12040;
    return CUDA_SUCCESS;
}

static const char *err_name(CUresult err)
{
    switch (err) {
    case CUDA_SUCCESS: return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
    case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
    case CUDA_ERROR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
    case FAKE_INVALID_IMAGE: return "CUDA_ERROR_INVALID_IMAGE";
    case FAKE_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
    default: return NULL;
    }
}

FAKE_API CUresult cuGetErrorName(CUresult err, const char **str)
{
    *str = err_name(err);
    return *str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_API CUresult cuGetErrorString(CUresult err, const char **str)
{
    *str = err == FAKE_NOT_SUPPORTED ? "not supported by the test's fake driver"
           : err_name(err)           ? "(the test's fake driver)"
                                     : NULL;
    return *str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_API CUresult cuDeviceGetCount(int *count)
{
    *count = 1;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    if (ordinal != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    (void)dev;
    snprintf(name, (size_t)len, "ravioli test fake driver (no GPU)");
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice dev)
{
    (void)dev;
    switch (attr) {
    case RVC_ATTR_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case RVC_ATTR_MULTIPROCESSOR_COUNT: *v = 1; break;
    case RVC_ATTR_CC_MAJOR: *v = 9; break;
    case RVC_ATTR_CC_MINOR: *v = 0; break;
    case RVC_ATTR_MAX_SHARED_PER_MULTIPROCESSOR: *v = 228 * 1024; break;
    case RVC_ATTR_MAX_SHARED_PER_BLOCK_OPTIN: *v = 227 * 1024; break;
    default: *v = 0; break;
    }
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    (void)dev;
    *bytes = (size_t)1 << 30;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice dev)
{
    (void)dev;
    *c = (CUcontext)(void *)&fake_primary_ctx;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    (void)dev;
    return CUDA_SUCCESS;
}

/*
 * A test's hook, not a driver function: rv_fake_cuda_at_next_bind(fn, arg)
 * makes the next cuCtxSetCurrent call of the calling thread run fn(arg) once,
 * before it returns. The backend binds its context first in each of its entry
 * points (bind, cuda_backend.c), so a test arms the hook right before a call
 * and fn runs at the start of the backend's part of it: in rv_module_load,
 * after the search found the file readable (module.c) and before the backend
 * opens it (cuda_module_load), where test_cuda_module_file removes the file or
 * makes it a link to itself. fn NULL disarms it. Looked up with dlsym by the
 * test: the real driver has no such function.
 */
static pthread_mutex_t fake_hook_mu = PTHREAD_MUTEX_INITIALIZER;
static void (*fake_hook_fn)(void *);
static void *fake_hook_arg;
static pthread_t fake_hook_thread;

FAKE_API void rv_fake_cuda_at_next_bind(void (*fn)(void *), void *arg)
{
    pthread_mutex_lock(&fake_hook_mu);
    fake_hook_fn = fn;
    fake_hook_arg = arg;
    fake_hook_thread = pthread_self();
    pthread_mutex_unlock(&fake_hook_mu);
}

FAKE_API CUresult cuCtxSetCurrent(CUcontext c)
{
    (void)c;
    void (*fn)(void *) = NULL;
    void *arg = NULL;
    pthread_mutex_lock(&fake_hook_mu);
    if (fake_hook_fn && pthread_equal(fake_hook_thread, pthread_self())) {
        fn = fake_hook_fn;
        arg = fake_hook_arg;
        fake_hook_fn = NULL; /* once */
    }
    pthread_mutex_unlock(&fake_hook_mu);
    if (fn)
        fn(arg);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxSynchronize(void)
{
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n, int *opts, void **vals)
{
    (void)image;
    char *log = NULL;
    size_t size = 0;
    for (unsigned int i = 0; i < n; i++) {
        if (opts[i] == RVC_JIT_ERROR_LOG_BUFFER)
            log = vals[i];
        else if (opts[i] == RVC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            size = (size_t)(uintptr_t)vals[i];
    }
    if (log && size)
        snprintf(log, size, "fake driver: loads no modules");
    *m = NULL;
    return FAKE_INVALID_IMAGE;
}

FAKE_API CUresult cuModuleUnload(CUmodule m)
{
    (void)m;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *n)
{
    (void)f, (void)m, (void)n;
    return CUDA_ERROR_NOT_FOUND;
}

FAKE_API CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *bytes, CUmodule m, const char *n)
{
    (void)p, (void)bytes, (void)m, (void)n;
    return CUDA_ERROR_NOT_FOUND;
}

FAKE_API CUresult cuFuncGetAttribute(int *v, int attr, CUfunction f)
{
    (void)v, (void)attr, (void)f;
    return FAKE_NOT_SUPPORTED;
}

FAKE_API CUresult cuFuncSetAttribute(CUfunction f, int attr, int v)
{
    (void)f, (void)attr, (void)v;
    return FAKE_NOT_SUPPORTED;
}

FAKE_API CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block, CUfunction f, CUoccupancyB2DSize fn,
                                                   size_t dyn, int limit)
{
    (void)min_grid, (void)block, (void)f, (void)fn, (void)dyn, (void)limit;
    return FAKE_NOT_SUPPORTED;
}

FAKE_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f, int block, size_t dyn)
{
    (void)blocks, (void)f, (void)block, (void)dyn;
    return FAKE_NOT_SUPPORTED;
}

/* device memory: host memory (malloc); a CUdeviceptr is its address */
FAKE_API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
    void *m = malloc(bytes ? bytes : 1);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *p = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemFree_v2(CUdeviceptr p)
{
    free((void *)(uintptr_t)p);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total)
{
    *free_b = *total = (size_t)1 << 30;
    return CUDA_SUCCESS;
}

/* "page-locked" host memory: malloc, each block listed so that
 * cuMemHostGetFlags knows its pointers (anywhere inside), as the driver does */
typedef struct fake_host {
    struct fake_host *next;
    unsigned char *p;
    size_t bytes;
} fake_host;
static fake_host *fake_hosts;
static pthread_mutex_t fake_host_mu = PTHREAD_MUTEX_INITIALIZER;

FAKE_API CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned int flags)
{
    (void)flags;
    fake_host *h = malloc(sizeof(*h));
    *p = malloc(bytes ? bytes : 1);
    if (!h || !*p) {
        free(h);
        free(*p);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    h->p = *p;
    h->bytes = bytes ? bytes : 1;
    pthread_mutex_lock(&fake_host_mu);
    h->next = fake_hosts;
    fake_hosts = h;
    pthread_mutex_unlock(&fake_host_mu);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemFreeHost(void *p)
{
    pthread_mutex_lock(&fake_host_mu);
    for (fake_host **h = &fake_hosts; *h; h = &(*h)->next)
        if ((*h)->p == p) {
            fake_host *d = *h;
            *h = d->next;
            free(d);
            break;
        }
    pthread_mutex_unlock(&fake_host_mu);
    free(p);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemHostGetFlags(unsigned int *flags, void *p)
{
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fake_host_mu);
    for (fake_host *h = fake_hosts; h; h = h->next)
        if ((uintptr_t)p >= (uintptr_t)h->p && (uintptr_t)p < (uintptr_t)h->p + h->bytes) {
            *flags = 0;
            r = CUDA_SUCCESS;
            break;
        }
    pthread_mutex_unlock(&fake_host_mu);
    return r;
}

FAKE_API CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *p, void *h, unsigned int flags)
{
    (void)flags;
    *p = (CUdeviceptr)(uintptr_t)h;
    return CUDA_SUCCESS;
}

/* sets and copies: done at once (a stream's work is finished when queued) */
FAKE_API CUresult cuMemsetD32Async(CUdeviceptr p, unsigned int v, size_t n, CUstream s)
{
    (void)s;
    for (size_t i = 0; i < n; i++)
        memcpy((unsigned char *)(uintptr_t)p + 4 * i, &v, 4);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    (void)s;
    memcpy((void *)(uintptr_t)dst, src, n);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    (void)s;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    (void)s;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream s)
{
    (void)s;
    memset((void *)(uintptr_t)p, v, n);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemcpy2DAsync_v2(const RVC_MEMCPY2D *c, CUstream s)
{
    (void)s;
    if (c->WidthInBytes > c->srcPitch || c->WidthInBytes > c->dstPitch)
        return CUDA_ERROR_INVALID_VALUE; /* as the driver: a pitch below the width */
    const unsigned char *src = c->srcMemoryType == RVC_MEMORYTYPE_HOST ? (const unsigned char *)c->srcHost
                                                                       : (const unsigned char *)(uintptr_t)c->srcDevice;
    unsigned char *dst = c->dstMemoryType == RVC_MEMORYTYPE_HOST ? (unsigned char *)c->dstHost
                                                                 : (unsigned char *)(uintptr_t)c->dstDevice;
    src += c->srcY * c->srcPitch + c->srcXInBytes;
    dst += c->dstY * c->dstPitch + c->dstXInBytes;
    for (size_t r = 0; r < c->Height; r++)
        memcpy(dst + r * c->dstPitch, src + r * c->srcPitch, c->WidthInBytes);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned shmem, CUstream s, void **params, void **extra)
{
    (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shmem, (void)s, (void)params,
        (void)extra;
    return FAKE_NOT_SUPPORTED;
}

/* streams and events: handles of their own (malloc), freed when destroyed */
FAKE_API CUresult cuStreamCreate(CUstream *s, unsigned int flags)
{
    (void)flags;
    *s = malloc(1);
    return *s ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

FAKE_API CUresult cuStreamDestroy_v2(CUstream s)
{
    free(s);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamSynchronize(CUstream s)
{
    (void)s;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags)
{
    (void)s, (void)e, (void)flags;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
    (void)flags;
    *e = malloc(1);
    return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

FAKE_API CUresult cuEventDestroy_v2(CUevent e)
{
    free(e);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuEventRecord(CUevent e, CUstream s)
{
    (void)e, (void)s;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuEventSynchronize(CUevent e)
{
    (void)e;
    return CUDA_SUCCESS;
}
