/*
 * samples_params.h - parameter blocks of the sample kernels (shared by the
 * kernel source and the host programs that call them).
 */
#ifndef RAVIOLI_SAMPLES_PARAMS_H
#define RAVIOLI_SAMPLES_PARAMS_H

#include <stdint.h>

/** binarize, edge, diff: pixels at or above `threshold` become white. */
typedef struct rv_threshold_params {
    int32_t threshold;
} rv_threshold_params;

/** scalef: v * scale + offset. */
typedef struct rv_scale_params {
    float scale;
    float offset;
} rv_scale_params;

/** addk (raw kernel): adds k to every sample of a float plane, one block per row. */
typedef struct rv_addk_args {
    uint64_t data;  /* plane address (rv_image_kernel_address) */
    int64_t pitch;
    int32_t w, h;
    float k;
    int32_t pad_;
} rv_addk_args;

/** chainmix (chained raw kernel, RV_RAW_KERNEL_CHAINED): over n words,
 * dst[i] = src[(i + 1) % n] * 2654435761 + salt (uint32, wrapping). A chain
 * of launches ping-ponging two buffers checks that each launch sees all of
 * the previous one's writes and that none overwrites what the previous one
 * still reads. */
typedef struct rv_chainmix_args {
    uint64_t src, dst; /* rv_buffer_address */
    int32_t n;
    uint32_t salt;
} rv_chainmix_args;

/** gridwait (cooperative raw kernel, RV_RAW_KERNEL_COOP; GPU only): each of
 * the grid's blocks adds 1 to count[0], waits until count[0] reaches the
 * number of blocks, then writes what it read there to out[block]. Every
 * out[] equals the grid size only if all blocks were resident at once. */
typedef struct rv_gridwait_args {
    uint64_t count, out; /* rv_buffer_address: 1 word (0 before), grid-size words */
} rv_gridwait_args;

#endif
