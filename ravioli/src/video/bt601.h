/*
 * bt601.h - the one definition of ravioli's colour conversion: ITU-R BT.601,
 * limited ("studio") range, 8-bit integer arithmetic with 8 fraction bits.
 * Included by the library (src/video_internal.h: camera, Y4M writer,
 * synthetic source, window) and by the kernels of module "yuyv"
 * (modules/yuyv, CPU and GPU), so the coefficients exist exactly once.
 * Plain C in the common subset of C and CUDA C; not installed.
 *
 *   Y  = 16  + (( 66 R + 129 G +  25 B + 128) >> 8)
 *   Cb = 128 + ((-38 R -  74 G + 112 B + 128) >> 8)
 *   Cr = 128 + ((112 R -  94 G -  18 B + 128) >> 8)
 *
 *   c = Y - 16, d = Cb - 128, e = Cr - 128
 *   R = clamp((298 c         + 409 e + 128) >> 8)
 *   G = clamp((298 c - 100 d - 208 e + 128) >> 8)
 *   B = clamp((298 c + 516 d         + 128) >> 8)
 *
 * A chroma sample covering n pixels (4:2:0: the 2x2 block, fewer at odd
 * edges; YUYV: the pair) is 128 + floor((sum of the pixels' Cb*256 / n + 128) / 256),
 * i.e. the rounded average of their unrounded chroma.
 * Shifts are applied to non-negative numbers only (exact floors).
 */
#ifndef RAVIOLI_BT601_H
#define RAVIOLI_BT601_H

#if defined(__CUDACC__)
#  define RV_BT601_FN static __device__ __forceinline__
#else
#  define RV_BT601_FN static inline
#endif

/* Luma of an RGB pixel. */
RV_BT601_FN int rv_bt601_y(int r, int g, int b)
{
    return 16 + ((66 * r + 129 * g + 25 * b + 128) >> 8);
}
/* Cb / Cr times 256 before rounding, without the 128 offset (may be negative;
 * |value| <= 28560). Linear: the sum over pixels is the value of the sums. */
RV_BT601_FN int rv_bt601_cb256(int r, int g, int b) { return -38 * r - 74 * g + 112 * b; }
RV_BT601_FN int rv_bt601_cr256(int r, int g, int b) { return 112 * r - 94 * g - 18 * b; }
/* The sum of n (1..4) cb256/cr256 values as one 8-bit chroma sample:
 * 128 + floor((sum / n + 128) / 256); n * (128 * 256 + 128) keeps the
 * numerator positive. */
RV_BT601_FN int rv_bt601_chroma(int sum, int n)
{
    return (int)((unsigned)(sum + n * (128 * 256 + 128)) / (unsigned)(n * 256));
}
/* (v >> 8) clamped to 0..255, shifting only non-negative numbers. */
RV_BT601_FN int rv_bt601_sat(int v)
{
    v = v < 0 ? 0 : v;
    v >>= 8;
    return v > 255 ? 255 : v;
}
/* The chroma terms of a pixel (shared by the pixels of a chroma sample):
 * R = sat(c + rv), G = sat(c + gv), B = sat(c + bv) with c = rv_bt601_c(Y). */
RV_BT601_FN void rv_bt601_terms(int cb, int cr, int *rv, int *gv, int *bv)
{
    const int d = cb - 128, e = cr - 128;
    *rv = 409 * e + 128;
    *gv = -100 * d - 208 * e + 128;
    *bv = 516 * d + 128;
}
RV_BT601_FN int rv_bt601_c(int y) { return 298 * (y - 16); }

#endif /* RAVIOLI_BT601_H */
