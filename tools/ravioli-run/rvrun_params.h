/*
 * rvrun_params.h - argument block of the rvrun module's raw kernel fill8
 * (shared by the kernel source and ravioli-run).
 */
#ifndef RVRUN_PARAMS_H
#define RVRUN_PARAMS_H

#include <stdint.h>

typedef struct rvrun_fill_args {
    uint64_t data;   /* plane address (rv_image_kernel_address) */
    int64_t pitch;   /* bytes between rows */
    int32_t w, h;
    int32_t value;
    int32_t pad_;
} rvrun_fill_args;

#endif
