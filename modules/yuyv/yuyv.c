/*
 * yuyv.c - module "yuyv": converts camera frames delivered raw (V4L2
 * raw_yuyv, docs/video.md: RGBA8 images of width/2, one YUYV pair per pixel)
 * to RGBA8 on the backend, so a GPU pipeline uploads half the bytes of
 * RGBA. The arithmetic is the library's BT.601 limited-range integer
 * conversion (docs/video.md, "Colour conversion"), bit for bit:
 *
 *   c = 298 (Y - 16), d = Cb - 128, e = Cr - 128
 *   R = sat(c + 409 e + 128), G = sat(c - 100 d - 208 e + 128), B = sat(c + 516 d + 128)
 *   sat(v) = min(255, max(v, 0) >> 8), alpha 255
 */
#include <ravioli/kernel.h>

#include "yuyv_params.h"

RV_FN int yuyv_sat(int v)
{
    v = v < 0 ? 0 : v;
    v >>= 8;
    return v > 255 ? 255 : v;
}

/* One pair: 4 source bytes (Y0 Cb Y1 Cr) to 8 destination bytes. */
RV_FN void yuyv_pair(const unsigned char *s, unsigned char *o)
{
    const int d = (int)s[1] - 128, e = (int)s[3] - 128;
    const int rv = 409 * e + 128, gv = -100 * d - 208 * e + 128, bv = 516 * d + 128;
    const int c0 = 298 * ((int)s[0] - 16), c1 = 298 * ((int)s[2] - 16);
    o[0] = (unsigned char)yuyv_sat(c0 + rv);
    o[1] = (unsigned char)yuyv_sat(c0 + gv);
    o[2] = (unsigned char)yuyv_sat(c0 + bv);
    o[3] = 255;
    o[4] = (unsigned char)yuyv_sat(c1 + rv);
    o[5] = (unsigned char)yuyv_sat(c1 + gv);
    o[6] = (unsigned char)yuyv_sat(c1 + bv);
    o[7] = 255;
}

#if defined(RV_CUDA)
RV_RAW_KERNEL(yuyv_rgba, rv_yuyv_args, a, blk)
{
    const int y = (int)blockIdx.y;
    if (y >= a->h)
        return;
    const unsigned char *s = (const unsigned char *)(uintptr_t)(a->src + (uint64_t)((int64_t)y * a->src_pitch));
    unsigned char *o = (unsigned char *)(uintptr_t)(a->dst + (uint64_t)((int64_t)y * a->dst_pitch));
    for (int p = (int)threadIdx.x; p < a->pairs; p += (int)blockDim.x)
        yuyv_pair(s + 4 * p, o + 8 * p);
}
#else
RV_RAW_KERNEL(yuyv_rgba, rv_yuyv_args, a, blk)
{
    const int y = blk.y;
    if (y >= a->h)
        return;
    const unsigned char *s = (const unsigned char *)(uintptr_t)(a->src + (uint64_t)((int64_t)y * a->src_pitch));
    unsigned char *o = (unsigned char *)(uintptr_t)(a->dst + (uint64_t)((int64_t)y * a->dst_pitch));
    for (int p = 0; p < a->pairs; p++)
        yuyv_pair(s + 4 * p, o + 8 * p);
}
#endif
