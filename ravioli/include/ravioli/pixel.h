/*
 * ravioli/pixel.h - RV_Pixel: one packed 8-bit RGBA pixel, and its accessors.
 *
 * Usable from host code and from element kernels (C and CUDA C alike).
 * Memory order of the four bytes is R, G, B, A; on the little-endian hosts
 * ravioli supports that is the 32-bit value R | G << 8 | B << 16 | A << 24.
 */
#ifndef RAVIOLI_PIXEL_H
#define RAVIOLI_PIXEL_H

#include <stdint.h>

#if defined(__CUDACC__)
#  define RV_INLINE static __host__ __device__ __forceinline__
#else
#  define RV_INLINE static inline __attribute__((always_inline))
#endif

/** One RGBA pixel, 8 bits per channel (format RV_FMT_RGBA8). */
typedef uint32_t RV_Pixel;
/** One RGBA pixel, 16 bits per channel (format RV_FMT_RGBA16). */
typedef uint64_t RV_Pixel16;

#if defined(__CUDA_ARCH__)
/* GPU: one byte permute (PRMT) a channel, where the C form below becomes a
 * shift and a mask (two instructions) for G and B. The redundant `& 0xff`
 * tells the compiler the range (so that e.g. a division by 3 stays
 * unsigned); ptxas folds it into the PRMT. Same values. */
RV_INLINE int rv_r(RV_Pixel p) { return (int)(p & 0xffu); }
RV_INLINE int rv_g(RV_Pixel p) { return (int)(__byte_perm(p, 0u, 0x4441u) & 0xffu); }
RV_INLINE int rv_b(RV_Pixel p) { return (int)(__byte_perm(p, 0u, 0x4442u) & 0xffu); }
RV_INLINE int rv_a(RV_Pixel p) { return (int)(p >> 24); }
#else
RV_INLINE int rv_r(RV_Pixel p) { return (int)(p & 0xffu); }
RV_INLINE int rv_g(RV_Pixel p) { return (int)((p >> 8) & 0xffu); }
RV_INLINE int rv_b(RV_Pixel p) { return (int)((p >> 16) & 0xffu); }
RV_INLINE int rv_a(RV_Pixel p) { return (int)(p >> 24); }
#endif

/** Builds a pixel; each channel is taken modulo 256 (use rv_clamp8 first). */
RV_INLINE RV_Pixel rv_rgba(int r, int g, int b, int a)
{
    return (RV_Pixel)((uint32_t)(r & 0xff) | (uint32_t)(g & 0xff) << 8 |
                      (uint32_t)(b & 0xff) << 16 | (uint32_t)(a & 0xff) << 24);
}
/** Opaque pixel (alpha 255). */
RV_INLINE RV_Pixel rv_rgb(int r, int g, int b) { return rv_rgba(r, g, b, 255); }

RV_INLINE RV_Pixel rv_set_r(RV_Pixel p, int v) { return (p & 0xffffff00u) | (uint32_t)(v & 0xff); }
RV_INLINE RV_Pixel rv_set_g(RV_Pixel p, int v) { return (p & 0xffff00ffu) | (uint32_t)(v & 0xff) << 8; }
RV_INLINE RV_Pixel rv_set_b(RV_Pixel p, int v) { return (p & 0xff00ffffu) | (uint32_t)(v & 0xff) << 16; }
RV_INLINE RV_Pixel rv_set_a(RV_Pixel p, int v) { return (p & 0x00ffffffu) | (uint32_t)(v & 0xff) << 24; }
/** Sets R, G and B to v (modulo 256), keeps alpha: a gray pixel. On the GPU
 * one byte permute (PRMT) where rv_set_rgb(p, v, v, v) packs three bytes. */
RV_INLINE RV_Pixel rv_set_gray(RV_Pixel p, int v)
{
#if defined(__CUDA_ARCH__)
    return (RV_Pixel)__byte_perm((unsigned)v, p, 0x7000u);
#else
    return (p & 0xff000000u) | ((uint32_t)(v & 0xff) * 0x010101u);
#endif
}
/** Replaces R, G and B, keeps alpha (the thesis' setRGB). */
RV_INLINE RV_Pixel rv_set_rgb(RV_Pixel p, int r, int g, int b)
{
    return rv_rgba(r, g, b, rv_a(p));
}

RV_INLINE int rv_clamp8(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }
RV_INLINE int rv_clamp16(int v) { return v < 0 ? 0 : v > 65535 ? 65535 : v; }

/** Builds a pixel from channel values clamped to 0..255 first: the same as
 * rv_rgba(rv_clamp8(r), rv_clamp8(g), rv_clamp8(b), rv_clamp8(a)), for the
 * usual end of a filter whose channel sums may leave the byte range. On the
 * GPU two saturating pack instructions (cvt.pack.sat.u8.s32) instead of
 * eight compares and the packing shifts. */
RV_INLINE RV_Pixel rv_rgba_sat(int r, int g, int b, int a)
{
#if defined(__CUDA_ARCH__)
    /* cvt.pack.sat.u8.s32.b32 d, x, y, c: d = c[15:0] << 16 | sat(x) << 8 | sat(y) */
    unsigned ba, rgba;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(ba) : "r"(a), "r"(b));
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(rgba) : "r"(g), "r"(r), "r"(ba));
    return (RV_Pixel)rgba;
#else
    return rv_rgba(rv_clamp8(r), rv_clamp8(g), rv_clamp8(b), rv_clamp8(a));
#endif
}
/** rv_rgba_sat with alpha 255. */
RV_INLINE RV_Pixel rv_rgb_sat(int r, int g, int b) { return rv_rgba_sat(r, g, b, 255); }
RV_INLINE int rv_absi(int v) { return v < 0 ? -v : v; }

/** Sum of the absolute R, G and B differences (the thesis' absDiff). */
RV_INLINE int rv_abs_diff(RV_Pixel p, RV_Pixel q)
{
#if defined(__CUDA_ARCH__)
    /* the same sum with the GPU's SIMD byte absolute difference (vabsdiff4).
     * qa = q's R, G, B with p's alpha byte, so alpha adds |a - a| = 0: one
     * bit-select (qa = mask ? q : p, LUT 0xE2 = (0xF0 & 0xCC) | (0xAA & ~0xCC))
     * instead of masking both operands (the compiler splits the C form in two) */
    unsigned qa;
    asm("lop3.b32 %0, %1, %2, %3, 0xE2;" : "=r"(qa) : "r"(q), "r"(0x00ffffffu), "r"(p));
    return (int)__vsadu4(p, qa);
#else
    return rv_absi(rv_r(p) - rv_r(q)) + rv_absi(rv_g(p) - rv_g(q)) +
           rv_absi(rv_b(p) - rv_b(q));
#endif
}

/* Internal (the window SAD helpers of kernel.h): a pixel with alpha zeroed,
 * and acc plus the sum of the four byte absolute differences of two words;
 * for two pixels with alpha zeroed that is acc + rv_abs_diff. On the GPU one
 * VABSDIFF4 with its accumulator (written as PTX: from __vsadu4 plus an add
 * the compiler pairs the adds into IADD3s instead, +0.5 instruction a pair). */
RV_INLINE uint32_t rv__rgb(RV_Pixel p) { return p & 0x00ffffffu; }
RV_INLINE int32_t rv__sad_u8x4_acc(int32_t acc, uint32_t a, uint32_t b)
{
#if defined(__CUDA_ARCH__)
    int32_t d;
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(acc));
    return d;
#else
    for (int k = 0; k < 32; k += 8) {
        const int d = (int)((a >> k) & 0xffu) - (int)((b >> k) & 0xffu);
        acc += d < 0 ? -d : d;
    }
    return acc;
#endif
}

/* 16-bit-per-channel pixels. */
RV_INLINE int rv16_r(RV_Pixel16 p) { return (int)(p & 0xffffu); }
RV_INLINE int rv16_g(RV_Pixel16 p) { return (int)((p >> 16) & 0xffffu); }
RV_INLINE int rv16_b(RV_Pixel16 p) { return (int)((p >> 32) & 0xffffu); }
RV_INLINE int rv16_a(RV_Pixel16 p) { return (int)(p >> 48); }
RV_INLINE RV_Pixel16 rv16_rgba(int r, int g, int b, int a)
{
    return (RV_Pixel16)(uint64_t)(r & 0xffff) | (uint64_t)(g & 0xffff) << 16 |
           (uint64_t)(b & 0xffff) << 32 | (uint64_t)(a & 0xffff) << 48;
}

#endif /* RAVIOLI_PIXEL_H */
