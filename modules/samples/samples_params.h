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

#endif
