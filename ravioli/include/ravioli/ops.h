/*
 * ravioli/ops.h - the higher-order operations (thesis Table 3) and raw kernels.
 *
 * Each operation takes a kernel (from rv_kernel_get), its images, and the
 * kernel's parameter block: a pointer to the same struct type the element
 * function declares, and its size (checked against the kernel; pass NULL, 0
 * for kernels declared with rv_noparam). Planar images are processed plane
 * by plane, each plane at its own size. `dst` may be `src` (in place).
 * The operation runs at the spatial stride of its (first) input image.
 */
#ifndef RAVIOLI_OPS_H
#define RAVIOLI_OPS_H

#include "image.h"
#include "module.h"

#ifdef __cplusplus
extern "C" {
#endif

/** procPix: dst(p) = f(src(p)). */
RV_API int rv_proc_pix(const RV_Kernel *k, RV_Image *dst, RV_Image *src,
                       const void *params, size_t params_size);

/** procNbr: dst(p) = f(src around p); neighbours beyond the border are clamped. */
RV_API int rv_proc_nbr(const RV_Kernel *k, RV_Image *dst, RV_Image *src,
                       const void *params, size_t params_size);

/** compImg: dst(p) = f(a(p), b(p)); a, b and dst have the same size. */
RV_API int rv_comp_img(const RV_Kernel *k, RV_Image *dst, RV_Image *a, RV_Image *b,
                       const void *params, size_t params_size);

typedef enum RV_Reduce {
    RV_REDUCE_NONE_ = 0, /* write the score map */
    RV_MIN = 1,          /* smallest score and where (ties: smallest y, then x) */
    RV_MAX = 2,          /* largest score and where (ties: smallest y, then x) */
    RV_SUM = 3           /* sum of the scores */
} RV_Reduce;

typedef struct RV_BoxResult {
    double score; /* best score (RV_MIN/RV_MAX) or the sum (RV_SUM) */
    int x, y;     /* top-left of the best window (RV_MIN/RV_MAX) */
    long long positions; /* number of windows evaluated */
} RV_BoxResult;

/**
 * procBox: the kernel scores each box_w x box_h window of `src` whose
 * top-left is (x, y), 0 <= x <= W - box_w, 0 <= y <= H - box_h, against the
 * optional reference image `ref` (e.g. a template, at least box_w x box_h).
 * With reduce = RV_MIN/RV_MAX/RV_SUM the scores are reduced into *result and
 * `score_map` may be NULL; with 0 they are written to `score_map`, a
 * GRAYF32 image of (W - box_w + 1) x (H - box_h + 1).
 * Single-plane images only.
 */
RV_API int rv_proc_box(const RV_Kernel *k, RV_Image *score_map, RV_Image *src,
                       RV_Image *ref, int box_w, int box_h,
                       const void *params, size_t params_size,
                       RV_Reduce reduce, RV_BoxResult *result);

/* ---------------------------------------------------------------- */
/* Raw kernels and scratch buffers                                   */
/* ---------------------------------------------------------------- */

/** Memory owned by the context: device memory on the GPU, host memory on the CPU. */
typedef struct RV_Buffer RV_Buffer;

RV_API int rv_buffer_create(RV_Context *ctx, size_t size, RV_Buffer **out);
RV_API void rv_buffer_destroy(RV_Buffer **buf);
RV_API size_t rv_buffer_size(const RV_Buffer *buf);
/** Address to put in a raw kernel's argument struct. */
RV_API uint64_t rv_buffer_address(const RV_Buffer *buf);
/** Copies between host memory and the buffer. */
RV_API int rv_buffer_upload(RV_Buffer *buf, size_t offset, const void *src, size_t n);
RV_API int rv_buffer_download(RV_Buffer *buf, size_t offset, void *dst, size_t n);
/**
 * Copies `rows` rows of `row_bytes` bytes between host memory and the buffer, in
 * one copy on the device (cuMemcpy2D), not one a row: row r is at host + r *
 * host_pitch and at byte offset + r * buf_pitch of the buffer. Neither pitch may
 * be below row_bytes; the bytes between the rows are left as they are. RV_EINVAL
 * (with a message) for a NULL pointer, a pitch below row_bytes or rows that
 * leave the buffer; nothing to do (0) when rows or row_bytes is 0.
 */
RV_API int rv_buffer_upload_rows(RV_Buffer *buf, size_t offset, size_t buf_pitch, const void *src,
                                 size_t host_pitch, size_t row_bytes, size_t rows);
RV_API int rv_buffer_download_rows(RV_Buffer *buf, size_t offset, size_t buf_pitch, void *dst,
                                   size_t host_pitch, size_t row_bytes, size_t rows);
/**
 * Whether the host memory at p is page-locked for ctx's device: 1 when copies
 * between it and buffers or images go by DMA straight at the bus's rate (the
 * storage of images on a CUDA context, memory the CUDA driver allocated or
 * registered), 0 otherwise: pageable memory, which the CUDA backend copies in
 * chunks through page-locked buffers of its own (docs/cuda.md, "Copies from
 * pageable memory"), a NULL pointer or context, or the CPU backend, which
 * copies nothing to a device.
 */
RV_API int rv_host_memory_locked(RV_Context *ctx, const void *p);

typedef enum RV_Access {
    RV_ACCESS_READ  = 1,
    RV_ACCESS_WRITE = 2,
    RV_ACCESS_RW    = 3
} RV_Access;

/**
 * Address of an image plane for a raw kernel's argument struct, on the side
 * the backend runs on (the copy is made current there first). Writing
 * access marks the other copy stale.
 */
RV_API int rv_image_kernel_address(RV_Image *img, int plane, RV_Access access,
                                   uint64_t *address, ptrdiff_t *pitch);

typedef struct RV_LaunchShape {
    unsigned grid[3];      /* blocks in x, y, z (0 is taken as 1) */
    unsigned block[3];     /* threads per block in x, y, z (0 is taken as 1) */
    unsigned shared_bytes; /* dynamic shared memory (CPU: scratch per block) */
} RV_LaunchShape;

/** Launches raw kernel `k` with its argument struct (copied; args_size checked). */
RV_API int rv_launch_raw(const RV_Kernel *k, const RV_LaunchShape *shape,
                         const void *args, size_t args_size);

/**
 * How many blocks of `shape` (its block size and shared_bytes; the grid is
 * ignored) of raw kernel `k` the device holds at once: the largest grid a
 * cooperative entry (RV_KFLAG_COOPERATIVE, whose blocks wait on one another)
 * may be launched with. Returns that count (> 0) or a negative error:
 * RV_ENOSYS on the CPU backend, which runs blocks one after another and
 * refuses cooperative entries; RV_EINVAL for a block the kernel cannot run.
 */
RV_API int rv_kernel_resident_blocks(const RV_Kernel *k, const RV_LaunchShape *shape);

/*
 * Side queue: work that may run beside the launches that follow it.
 *
 * Launches between rv_side_begin() and rv_side_end() go to the side queue of
 * the context's current queue. They start once everything queued on the
 * current queue before rv_side_begin() has finished, and may then run at the
 * same time as what is queued on the current queue after rv_side_end(); the
 * caller guarantees that the two touch disjoint memory (or only read the
 * same). rv_side_join() makes everything queued on the current queue from
 * then on wait for all side work queued so far; rv_context_sync() waits for
 * both queues. Use it for work off the critical path, e.g. the bands of a
 * wavelet level that the next level does not read: on the GPU the side queue
 * is a stream of lower priority, so that the blocks of the current queue's
 * kernels are scheduled first and the side work fills the multiprocessors
 * they leave idle.
 *
 * The CPU backend runs every launch in order: there the three calls only
 * check their use. Errors: RV_EINVAL for a nested rv_side_begin(), for
 * rv_side_end() outside one and for rv_side_join() inside one.
 */
RV_API int rv_side_begin(RV_Context *ctx);
RV_API int rv_side_end(RV_Context *ctx);
RV_API int rv_side_join(RV_Context *ctx);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_OPS_H */
