/*
 * yuyv_params.h - argument blocks of module "yuyv"'s raw kernels (shared by
 * the kernel source and the host programs that launch them). The kernels are
 * the colour conversions of docs/video.md ("Conversion kernels"): BT.601
 * limited range, integer, bit-exact between CPU and GPU and with the
 * library's own conversions (src/video/bt601.h).
 *
 * "Packed YUYV" images follow the V4L2 raw mode (RV_VideoInfo.packed_yuyv):
 * an RGBA8 image of ceil(w/2) x h, each pixel one pair, R = Y0, G = Cb,
 * B = Y1, A = Cr.
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

/** The other conversions: plane addresses (rv_image_kernel_address) and
 *  pitches of source and destination; unused planes 0. `w` x `h` is the
 *  picture size in pixels (for packed YUYV: 2 x the image width, or one less
 *  when the picture width is odd).
 *
 *  kernel        src                 dst                 launch grid
 *  rgba_yuv420   RGBA8               Y, Cb, Cr (4:2:0)    {1, ceil(h/2)}
 *  rgba_yuv444   RGBA8               Y, Cb, Cr (4:4:4)    {1, h}
 *  yuv420_rgba   Y, Cb, Cr (4:2:0)    RGBA8               {1, h}
 *  yuv444_rgba   Y, Cb, Cr (4:4:4)    RGBA8               {1, h}
 *  yuyv_yuv420   packed YUYV         Y, Cb, Cr (4:2:0)    {1, ceil(h/2)}
 *  rgba_yuyv     RGBA8               packed YUYV         {1, h}
 *  yuv420_yuyv   Y, Cb, Cr (4:2:0)    packed YUYV         {1, h}
 *  any block width (e.g. 128 or 256). */
typedef struct rv_yuv_args {
    uint64_t src[3];
    int64_t src_pitch[3];
    uint64_t dst[3];
    int64_t dst_pitch[3];
    int32_t w, h;
} rv_yuv_args;

#endif
