/*
 * yuyv_params.h - argument block of the yuyv module's raw kernel (shared by
 * the kernel source and the host programs that launch it).
 */
#ifndef RAVIOLI_YUYV_PARAMS_H
#define RAVIOLI_YUYV_PARAMS_H

#include <stdint.h>

/** yuyv_rgba: packed YUYV rows -> RGBA8 rows. Launch one block per row:
 *  grid {1, h}, any block width (e.g. 256). */
typedef struct rv_yuyv_args {
    uint64_t src;       /* packed plane (rv_image_kernel_address, READ): RGBA8 image of
                         * `pairs` x h, each pixel one pair: R = Y0, G = Cb, B = Y1, A = Cr */
    int64_t src_pitch;
    uint64_t dst;       /* RGBA8 image of 2 * pairs x h (WRITE) */
    int64_t dst_pitch;
    int32_t pairs, h;
} rv_yuyv_args;

#endif
