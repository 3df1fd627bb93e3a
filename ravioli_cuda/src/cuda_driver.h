/*
 * cuda_driver.h - the part of the CUDA Driver API the backend uses, declared
 * here so that no CUDA header is needed to build ravioli. The functions are
 * resolved at run time from libcuda.so.1 (dlopen), as FFmpeg's
 * dynlink_loader does; a machine without the NVIDIA driver simply has no
 * CUDA backend.
 *
 * Types and constants follow the Driver API's documented ABI (CUDA 11+):
 * handles are opaque pointers, CUdeviceptr is 64 bits, enums are ints.
 */
#ifndef RAVIOLI_CUDA_DRIVER_H
#define RAVIOLI_CUDA_DRIVER_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef size_t (*CUoccupancyB2DSize)(int block_size);

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_NOT_FOUND = 500
};

/* CUDA_MEMCPY2D (cuda.h's layout, the _v2 functions) and CUmemorytype */
typedef struct RVC_MEMCPY2D {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} RVC_MEMCPY2D;
enum { RVC_MEMORYTYPE_HOST = 1, RVC_MEMORYTYPE_DEVICE = 2 };

/* CUdevice_attribute */
enum {
    RVC_ATTR_MAX_THREADS_PER_BLOCK = 1,
    RVC_ATTR_MULTIPROCESSOR_COUNT = 16,
    RVC_ATTR_CC_MAJOR = 75,
    RVC_ATTR_CC_MINOR = 76,
    RVC_ATTR_MAX_SHARED_PER_MULTIPROCESSOR = 81,
    RVC_ATTR_MAX_SHARED_PER_BLOCK_OPTIN = 97
};

/* CUfunction_attribute */
enum {
    RVC_FATTR_MAX_THREADS_PER_BLOCK = 0,
    RVC_FATTR_NUM_REGS = 4,
    RVC_FATTR_PTX_VERSION = 5, /* the PTX target the code came from: 10 * major + minor */
    RVC_FATTR_SHARED_SIZE_BYTES = 1,
    RVC_FATTR_MAX_DYNAMIC_SHARED = 8,
    RVC_FATTR_PREFERRED_SHARED_CARVEOUT = 9,
    RVC_FATTR_REQUIRED_CLUSTER_WIDTH = 11,
    RVC_FATTR_REQUIRED_CLUSTER_HEIGHT = 12,
    RVC_FATTR_REQUIRED_CLUSTER_DEPTH = 13,
    RVC_FATTR_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
};

/* CUjit_option */
enum {
    RVC_JIT_INFO_LOG_BUFFER = 3,
    RVC_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    RVC_JIT_ERROR_LOG_BUFFER = 5,
    RVC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};

/* cuLaunchKernelEx (CUDA 12.0+), looked up apart from the required table:
 * the cooperative and programmatic stream serialisation attributes are used. */
enum { RVC_LAUNCH_ATTR_COOPERATIVE = 2, RVC_LAUNCH_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION = 6 };
typedef struct rvc_launch_attr {
    int id;
    char pad[4];
    union {
        char pad[64];
        int programmatic_stream_serialization_allowed;
        int cooperative;
        void *align_;
    } value;
} rvc_launch_attr;
typedef struct rvc_launch_config {
    unsigned grid_x, grid_y, grid_z;
    unsigned block_x, block_y, block_z;
    unsigned shared_bytes;
    CUstream stream;
    rvc_launch_attr *attrs;
    unsigned num_attrs;
} rvc_launch_config;
/* optional (looked up apart from the table): stream priorities for side queues */
typedef CUresult (*rvc_stream_prio_fn)(CUstream *s, unsigned int flags, int priority);
typedef CUresult (*rvc_prio_range_fn)(int *least, int *greatest);
typedef CUresult (*rvc_launch_ex_fn)(const rvc_launch_config *cfg, CUfunction f, void **params, void **extra);

#define RVC_STREAM_DEFAULT 0x0u  /* synchronises with the legacy NULL stream */
#define RVC_EVENT_DISABLE_TIMING 0x2u
#define RVC_MEMHOSTALLOC_DEVICEMAP 0x2u /* CU_MEMHOSTALLOC_DEVICEMAP */

/* X(return-less name, symbol in libcuda, parameter list) */
#define RVC_DRIVER_FUNCS(X)                                                                     \
    X(cuInit, "cuInit", (unsigned int flags))                                                   \
    X(cuDriverGetVersion, "cuDriverGetVersion", (int *version))                                 \
    X(cuGetErrorName, "cuGetErrorName", (CUresult err, const char **str))                       \
    X(cuGetErrorString, "cuGetErrorString", (CUresult err, const char **str))                   \
    X(cuDeviceGetCount, "cuDeviceGetCount", (int *count))                                       \
    X(cuDeviceGet, "cuDeviceGet", (CUdevice *dev, int ordinal))                                 \
    X(cuDeviceGetName, "cuDeviceGetName", (char *name, int len, CUdevice dev))                  \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *v, int attr, CUdevice dev))          \
    X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", (size_t *bytes, CUdevice dev))                   \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *c, CUdevice dev))       \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice dev))                \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext c))                                        \
    X(cuCtxSynchronize, "cuCtxSynchronize", (void))                                             \
    X(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                                 \
      (CUmodule *m, const void *image, unsigned int n, int *opts, void **vals))                 \
    X(cuModuleUnload, "cuModuleUnload", (CUmodule m))                                           \
    X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction *f, CUmodule m, const char *n))   \
    X(cuModuleGetGlobal, "cuModuleGetGlobal_v2",                                                \
      (CUdeviceptr *p, size_t *bytes, CUmodule m, const char *n))                               \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", (int *v, int attr, CUfunction f))               \
    X(cuFuncSetAttribute, "cuFuncSetAttribute", (CUfunction f, int attr, int v))                \
    X(cuOccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize",                     \
      (int *min_grid, int *block, CUfunction f, CUoccupancyB2DSize fn, size_t dyn, int limit))  \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", \
      (int *blocks, CUfunction f, int block, size_t dyn))                                       \
    X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *p, size_t bytes))                              \
    X(cuMemFree, "cuMemFree_v2", (CUdeviceptr p))                                               \
    X(cuMemGetInfo, "cuMemGetInfo_v2", (size_t *free_b, size_t *total))                         \
    X(cuMemHostAlloc, "cuMemHostAlloc", (void **p, size_t bytes, unsigned int flags))           \
    X(cuMemFreeHost, "cuMemFreeHost", (void *p))                                                \
    X(cuMemHostGetFlags, "cuMemHostGetFlags", (unsigned int *flags, void *p))                   \
    X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2",                                 \
      (CUdeviceptr *p, void *h, unsigned int flags))                                            \
    X(cuMemsetD32Async, "cuMemsetD32Async", (CUdeviceptr p, unsigned int v, size_t n, CUstream s)) \
    X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2",                                                \
      (CUdeviceptr dst, const void *src, size_t n, CUstream s))                                 \
    X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void *dst, CUdeviceptr src, size_t n, CUstream s)) \
    X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2",                                                \
      (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s))                                 \
    X(cuMemsetD8Async, "cuMemsetD8Async", (CUdeviceptr p, unsigned char v, size_t n, CUstream s)) \
    X(cuMemcpy2DAsync, "cuMemcpy2DAsync_v2", (const RVC_MEMCPY2D *copy, CUstream s))              \
    X(cuLaunchKernel, "cuLaunchKernel",                                                         \
      (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,          \
       unsigned bz, unsigned shmem, CUstream s, void **params, void **extra))                   \
    X(cuStreamCreate, "cuStreamCreate", (CUstream *s, unsigned int flags))                      \
    X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream s))                                      \
    X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream s))                                 \
    X(cuStreamWaitEvent, "cuStreamWaitEvent", (CUstream s, CUevent e, unsigned int flags))      \
    X(cuEventCreate, "cuEventCreate", (CUevent * e, unsigned int flags))                        \
    X(cuEventDestroy, "cuEventDestroy_v2", (CUevent e))                                         \
    X(cuEventRecord, "cuEventRecord", (CUevent e, CUstream s))                                  \
    X(cuEventSynchronize, "cuEventSynchronize", (CUevent e))

#define RVC_DECLARE_PTR(name, sym, params) CUresult (*name) params;

/** The driver: the library handle and one pointer per function. */
typedef struct rvc_driver {
    void *lib;
    RVC_DRIVER_FUNCS(RVC_DECLARE_PTR)
} rvc_driver;

#undef RVC_DECLARE_PTR

#endif /* RAVIOLI_CUDA_DRIVER_H */
