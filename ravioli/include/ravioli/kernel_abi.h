/*
 * ravioli/kernel_abi.h - the binary contract between the ravioli runtime and
 * kernel modules (the CPU shared object and the PTX built from one source).
 *
 * Everything here has the same layout when compiled as C11 by the host
 * compiler and as CUDA C++ by nvcc: fixed-width fields, 64-bit pointers.
 * Bump RV_KERNEL_ABI whenever a layout below changes; the runtime refuses
 * modules built against another ABI.
 */
#ifndef RAVIOLI_KERNEL_ABI_H
#define RAVIOLI_KERNEL_ABI_H

#include <stdint.h>

#define RV_KERNEL_ABI   2u
#define RV_KERNEL_MAGIC 0x314b5652u /* "RVK1" */

/** Largest user parameter block an element kernel may take, in bytes. */
#define RV_MAX_PARAMS 256

/** GPU procNbr at S = 1: each thread computes a strip of RV_GPU_NBR_ROWS
 * rows x RV_GPU_NBR_COLS adjacent columns (the entry's unrolled strip; the
 * CUDA backend sizes its grid with it). For small planes, where that would
 * leave too few threads, strips of RV_GPU_NBR_ROWS_SMALL rows x 1 column:
 * the entry takes that shape when its grid has at least w threads across
 * and h / RV_GPU_NBR_ROWS_SMALL down. Any grid is correct, so a module
 * built with other values still runs right, only with a less suited grid. */
#ifndef RV_GPU_NBR_ROWS /* (-D overrides: PTX variants for A/B runs) */
#define RV_GPU_NBR_ROWS 8
#endif
#ifndef RV_GPU_NBR_COLS
#define RV_GPU_NBR_COLS 2
#endif
#define RV_GPU_NBR_ROWS_SMALL 2
/** GPU procNbr on large planes: modules built with kernel.h also hold an
 * entry rvkw_NAME computing strips of RV_GPU_NBR_WIDE_ROWS rows x
 * RV_GPU_NBR_WIDE_COLS columns (tiles of 32 * COLS x 8 * ROWS outputs a
 * block of 8 warps); the CUDA backend launches it at S = 1, one resident
 * wave of blocks, when the plane has at least RV_GPU_NBR_WIDE_WAVES waves
 * of its tiles (kernel.h RV_GPU_NBR_WIDE; docs/perf/cuda-tuning.md round 10).
 * Any grid is correct. */
#ifndef RV_GPU_NBR_WIDE_ROWS
#define RV_GPU_NBR_WIDE_ROWS 4
#endif
#ifndef RV_GPU_NBR_WIDE_COLS
#define RV_GPU_NBR_WIDE_COLS 4
#endif
#define RV_GPU_NBR_WIDE_WAVES 3
/** GPU procNbr tile (kernel.h RV__NBR_TILE): 1 = tiles inside the plane are
 * copied to shared memory in 16-byte chunks (4/8/16-byte samples, rows on
 * the 16-byte grid); 0 = sample by sample (A/B builds). The CUDA backend
 * picks the launch shape for it (docs/perf/cuda-tuning.md, round 8). */
#ifndef RV_GPU_NBR_V16
#define RV_GPU_NBR_V16 1
#endif

/** GPU procBox: bytes per template row when the template (reference image)
 * is copied to shared memory: the row rounded up to 16 bytes. The backend
 * gives box_h rows of it as dynamic shared memory when they fit. */
#define RV_GPU_BOX_REF_PITCH(box_w, elem_size) ((((box_w) * (elem_size)) + 15) / 16 * 16)

/** rv_kernel_desc.flags of a procBox entry, bits 0-7: adjacent windows one
 * call of the element function scores (RV_PROC_BOXN); 0 means 1. The CUDA
 * backend gives a thread that many windows. Any grid is correct. */
#define RV_KFLAG_BOX_WINDOWS(n) ((uint32_t)(n) & 0xffu)
#define RV_KFLAG_GET_BOX_WINDOWS(flags) ((int)((flags) & 0xffu) > 1 ? (int)((flags) & 0xffu) : 1)
/** rv_kernel_desc.flags of a procBox entry, bits 8-15: threads that share one
 * group of windows, each over a chunk of the template rows (RV_PROC_BOXR;
 * 1, 2, 4 or 8); 0 means 1. The CUDA backend launches that many threads a
 * group (a backend that ignores it launches fewer: still correct). */
#define RV_KFLAG_BOX_ROWSPLIT(r) (((uint32_t)(r) & 0xffu) << 8)
#define RV_KFLAG_GET_BOX_ROWSPLIT(flags) ((int)(((flags) >> 8) & 0xffu) > 1 ? (int)(((flags) >> 8) & 0xffu) : 1)

/** rv_kernel_desc.flags, bit 16: a chained entry. On the GPU it waits for
 * the grid launched before it on the stream to finish (PTX
 * griddepcontrol.wait, sm_90+) before it touches memory, and lets the grid
 * after it be scheduled from its start (griddepcontrol.launch_dependents).
 * The CUDA backend may then launch it with programmatic stream
 * serialisation, so its blocks are placed while the grid before it drains;
 * results are the same as with a plain launch. Set on every procPix /
 * procNbr / procBox / compImg entry kernel.h generates and on raw entries
 * declared with RV_RAW_KERNEL_CHAINED; a module built with an older
 * kernel.h lacks it and is launched plainly. */
#define RV_KFLAG_CHAINED (1u << 16)

/** rv_kernel_desc.flags, bit 17: a cooperative entry (GPU only). Its blocks
 * may wait on one another through global memory, so every block of a launch
 * must be resident at once: the CUDA backend launches it cooperatively (the
 * driver refuses a grid larger than rv_kernel_resident_blocks() allows
 * instead of running it in waves), and withholds it (RV_ENOSYS at
 * rv_kernel_get) where it cannot. The CPU backend, which runs blocks one
 * after another, refuses to launch it. Raw entries only; declared with
 * RV__DESC_COOP (the module writes the entry itself). */
#define RV_KFLAG_COOPERATIVE (1u << 17)

#if defined(__CUDACC__) || defined(__GNUC__)
#  define RV_ALIGNED(n) __attribute__((aligned(n)))
#else
#  define RV_ALIGNED(n) _Alignas(n)
#endif

/** What a kernel entry is. */
enum rv_op {
    RV_OP_PIX  = 1, /* one pixel -> one pixel (procPix) */
    RV_OP_NBR  = 2, /* a pixel and its neighbours -> one pixel (procNbr) */
    RV_OP_BOX  = 3, /* one window -> one score, optionally reduced (procBox) */
    RV_OP_COMP = 4, /* a pixel pair from two images -> one pixel (compImg) */
    RV_OP_RAW  = 5  /* a raw kernel with its own launch shape */
};

/** Element (sample) types of element kernels. */
enum rv_elem_type {
    RV_ET_NONE   = 0,
    RV_ET_U8     = 1, /* uint8_t: GRAY8, 8-bit YUV planes */
    RV_ET_U16    = 2, /* uint16_t: GRAY16, 16-bit YUV planes */
    RV_ET_I32    = 3, /* int32_t: window scores */
    RV_ET_F32    = 4, /* float: GRAYF32, window scores */
    RV_ET_RGBA   = 5, /* RV_Pixel: RGBA8 */
    RV_ET_RGBA16 = 6  /* RV_Pixel16: RGBA16 */
};

/** Reductions of procBox window scores. */
enum rv_reduce_mode {
    RV_REDUCE_NONE = 0, /* write the score map */
    RV_REDUCE_MIN  = 1, /* smallest score; ties go to the smallest (y, x) */
    RV_REDUCE_MAX  = 2, /* largest score; ties go to the smallest (y, x) */
    RV_REDUCE_SUM  = 3  /* sum of all scores */
};

/** One plane as a kernel sees it (host pointer on the CPU, device pointer on the GPU). */
typedef struct rv_plane {
    unsigned char *data;
    int64_t pitch; /* bytes from one row to the next */
    int32_t w, h;  /* in samples of this plane */
} rv_plane;

/** GPU procBox scratch: where the backend puts the device address of its
 * page-locked, mapped copy of the result (the last block writes the result
 * there too; 0: no copy). */
#define RV_BOX_SCRATCH_HOST 48

/** Arguments of every element-kernel entry, passed by value to GPU entries. */
typedef struct rv_args {
    rv_plane dst;   /* output (procBox: the F32 score map, when not reducing) */
    rv_plane src;   /* input */
    rv_plane src2;  /* second input (compImg), reference image (procBox) */
    int32_t s;      /* spatial stride, >= 1 */
    int32_t box_w;  /* procBox window size in full-resolution pixels */
    int32_t box_h;
    int32_t reduce; /* enum rv_reduce_mode */
    int32_t plane;  /* index of the plane being processed */
    int32_t pad_;
    uint64_t scratch; /* GPU procBox: counter @0, result @16, host copy's address @48
                         (RV_BOX_SCRATCH_HOST, 0: none), per-block rv_partial[] @64 */
    RV_ALIGNED(16) unsigned char params[RV_MAX_PARAMS];
} rv_args;

/** A partial reduction result (one per CPU task or GPU block). */
typedef struct rv_partial {
    double score;  /* min/max: best score; sum of float scores */
    int64_t isum;  /* sum of integer scores */
    int32_t x, y;  /* position of the best score */
    int32_t valid; /* 0 when the task saw no position */
    int32_t pad_;
} rv_partial;

/** Where a raw kernel's block is, and (CPU) its scratch memory. */
typedef struct rv_block {
    int32_t x, y, z;       /* block index */
    int32_t nx, ny, nz;    /* grid size in blocks */
    int32_t tx, ty, tz;    /* threads per block, as launched */
    int32_t pad_;
    void *shared;          /* CPU: per-call scratch of the launch's shared size */
} rv_block;

/** Description of a kernel entry, exported next to it as rvk_<name>_desc. */
typedef struct rv_kernel_desc {
    uint32_t magic;      /* RV_KERNEL_MAGIC */
    uint32_t abi;        /* RV_KERNEL_ABI */
    uint32_t op;         /* enum rv_op */
    uint32_t in_type;    /* enum rv_elem_type */
    uint32_t in2_type;   /* compImg second input, procBox reference */
    uint32_t out_type;   /* output element, or procBox score type */
    int32_t radius;      /* procNbr: neighbourhood radius in samples */
    uint32_t param_size; /* sizeof the user parameter block (0: none) */
    uint32_t args_size;  /* raw kernels: sizeof their argument struct */
    uint32_t flags;
} rv_kernel_desc;

#endif /* RAVIOLI_KERNEL_ABI_H */
