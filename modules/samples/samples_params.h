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

#endif
