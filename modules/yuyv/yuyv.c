/*
 * yuyv.c - module "yuyv": colour conversions as raw kernels, CPU and GPU
 * from one source (docs/video.md, "Conversion kernels"):
 *
 *   yuyv_rgba    packed YUYV -> RGBA8      (camera frames delivered raw)
 *   yuyv_yuv420  packed YUYV -> YUV 4:2:0  (luma copied, chroma averaged vertically)
 *   rgba_yuv420  RGBA8 -> YUV 4:2:0        (chroma: rounded average of the 2x2 block)
 *   rgba_yuv444  RGBA8 -> YUV 4:4:4
 *   yuv420_rgba  YUV 4:2:0 -> RGBA8        (chroma repeated over its 2x2 block)
 *   yuv444_rgba  YUV 4:4:4 -> RGBA8
 *   rgba_yuyv    RGBA8 -> packed YUYV      (chroma: rounded average of the pair)
 *   yuv420_yuyv  YUV 4:2:0 -> packed YUYV  (chroma row repeated for both luma rows)
 *
 * The arithmetic is the library's (src/video/bt601.h, included here, so the
 * coefficients exist once): results equal the library's Y4M writer, window
 * and camera conversions bit for bit, and the CPU and GPU forms agree.
 *
 * Launch: one block per row (or per pair of rows for the 4:2:0 outputs);
 * on the GPU the block's threads stride over the row, on the CPU the block
 * loops over it. See yuyv_params.h.
 */
#include <ravioli/kernel.h>

#include "bt601.h"
#include "yuyv_params.h"

#if defined(RV_CUDA)
#  define ROW_LOOP(i, n) for (int i = (int)threadIdx.x; i < (n); i += (int)blockDim.x)
#  define RST __restrict__
#  define EDGE_ONCE if (threadIdx.x == 0)
#else
#  define ROW_LOOP(i, n) for (int i = 0; i < (n); i++)
#  define RST restrict
#  define EDGE_ONCE
#endif
/* Source and destination rows never overlap (different images): RST lets
 * the C compiler vectorise the row loops and nvcc use the read-only path. */

typedef unsigned char u8;

RV_FN u8 *row_ptr(uint64_t base, int64_t pitch, int y)
{
    return (u8 *)(uintptr_t)(base + (uint64_t)((int64_t)y * pitch));
}

/* RGBA8 pixels are read and written as one little-endian 32-bit word
 * (R in the low byte; x86, Arm and NVIDIA GPUs are little-endian; RGBA8
 * rows are 4-byte aligned): one load / store a pixel, which the C compilers
 * vectorise and the GPU coalesces. */
typedef uint32_t px32;
#define PX_R(p) ((int)((p) & 255u))
#define PX_G(p) ((int)(((p) >> 8) & 255u))
#define PX_B(p) ((int)(((p) >> 16) & 255u))

/* RGBA word (alpha 255) of Y and chroma terms. */
RV_FN px32 rgba_word(int y, int rv, int gv, int bv)
{
    const int c = rv_bt601_c(y);
    return (px32)rv_bt601_sat(c + rv) | (px32)rv_bt601_sat(c + gv) << 8 | (px32)rv_bt601_sat(c + bv) << 16 |
           0xff000000u;
}

RV_FN px32 *row32(uint64_t base, int64_t pitch, int y) { return (px32 *)(void *)row_ptr(base, pitch, y); }

RV_RAW_KERNEL_CHAINED(yuyv_rgba, rv_yuyv_args, a, blk)
{
    const int y = blk.y;
    if (y >= a->h)
        return;
    const px32 *RST s = row32(a->src, a->src_pitch, y);
    px32 *RST o = row32(a->dst, a->dst_pitch, y);
    const int pairs = a->pairs; /* a local: stores through u8 pointers may alias *a */
    ROW_LOOP(p, pairs) {
        const px32 q = s[p]; /* Y0 Cb Y1 Cr */
        int rv, gv, bv;
        rv_bt601_terms(PX_G(q), (int)(q >> 24), &rv, &gv, &bv);
        o[2 * p] = rgba_word(PX_R(q), rv, gv, bv);
        o[2 * p + 1] = rgba_word(PX_B(q), rv, gv, bv);
    }
}

/* ---- RGBA8 -> planar YUV ---- */

RV_RAW_KERNEL_CHAINED(rgba_yuv444, rv_yuv_args, a, blk)
{
    const int w = a->w; /* a local: stores through u8 pointers may alias *a */
    const int y = blk.y;
    if (y >= a->h)
        return;
    const px32 *RST s = row32(a->src[0], a->src_pitch[0], y);
    u8 *RST oy = row_ptr(a->dst[0], a->dst_pitch[0], y);
    u8 *RST ob = row_ptr(a->dst[1], a->dst_pitch[1], y);
    u8 *RST orr = row_ptr(a->dst[2], a->dst_pitch[2], y);
    ROW_LOOP(x, w) {
        const px32 p = s[x];
        const int r = PX_R(p), g = PX_G(p), b = PX_B(p);
        oy[x] = (u8)rv_bt601_y(r, g, b);
        ob[x] = (u8)rv_bt601_chroma(rv_bt601_cb256(r, g, b), 1);
        orr[x] = (u8)rv_bt601_chroma(rv_bt601_cr256(r, g, b), 1);
    }
}

/* One 4:2:0 block of nx (1, 2) columns and one or two rows (the generic
 * form, for the odd edges). */
RV_FN void block420(const u8 *s0, const u8 *s1, u8 *oy0, u8 *oy1, u8 *ob, u8 *orr, int cx, int nx, int two)
{
    const int x0 = 2 * cx;
    int r = 0, g = 0, b = 0;
    for (int i = 0; i < nx; i++) {
        const u8 *p = s0 + 4 * (x0 + i);
        oy0[x0 + i] = (u8)rv_bt601_y(p[0], p[1], p[2]);
        r += p[0], g += p[1], b += p[2];
        if (two) {
            const u8 *q = s1 + 4 * (x0 + i);
            oy1[x0 + i] = (u8)rv_bt601_y(q[0], q[1], q[2]);
            r += q[0], g += q[1], b += q[2];
        }
    }
    const int n = nx * (two ? 2 : 1);
    ob[cx] = (u8)rv_bt601_chroma(rv_bt601_cb256(r, g, b), n);
    orr[cx] = (u8)rv_bt601_chroma(rv_bt601_cr256(r, g, b), n);
}

/* Whole 2x2 blocks of two rows (restrict parameters: GCC honours restrict on
 * parameters, which lets it vectorise without run-time alias checks). */
RV_FN void rgba420_pairs(const px32 *RST p, const px32 *RST q, u8 *RST ya, u8 *RST yb, u8 *RST cb, u8 *RST cr,
                         int full)
{
    ROW_LOOP(cx, full) {
        const px32 a0 = p[2 * cx], a1 = p[2 * cx + 1], b0 = q[2 * cx], b1 = q[2 * cx + 1];
        ya[2 * cx] = (u8)rv_bt601_y(PX_R(a0), PX_G(a0), PX_B(a0));
        ya[2 * cx + 1] = (u8)rv_bt601_y(PX_R(a1), PX_G(a1), PX_B(a1));
        yb[2 * cx] = (u8)rv_bt601_y(PX_R(b0), PX_G(b0), PX_B(b0));
        yb[2 * cx + 1] = (u8)rv_bt601_y(PX_R(b1), PX_G(b1), PX_B(b1));
        const int r = PX_R(a0) + PX_R(a1) + PX_R(b0) + PX_R(b1);
        const int g = PX_G(a0) + PX_G(a1) + PX_G(b0) + PX_G(b1);
        const int b = PX_B(a0) + PX_B(a1) + PX_B(b0) + PX_B(b1);
        cb[cx] = (u8)rv_bt601_chroma(rv_bt601_cb256(r, g, b), 4);
        cr[cx] = (u8)rv_bt601_chroma(rv_bt601_cr256(r, g, b), 4);
    }
}

/* Block row cy: luma rows 2cy and 2cy+1 (if any), chroma row cy. Whole
 * 2x2 blocks in the loop, the odd right column after it. */
RV_RAW_KERNEL_CHAINED(rgba_yuv420, rv_yuv_args, a, blk)
{
    const int w = a->w; /* a local: stores through u8 pointers may alias *a */
    const int cy = blk.y, y0 = 2 * cy;
    if (y0 >= a->h)
        return;
    const int two = y0 + 1 < a->h, full = w >> 1;
    const u8 *s0 = row_ptr(a->src[0], a->src_pitch[0], y0);
    const u8 *s1 = row_ptr(a->src[0], a->src_pitch[0], two ? y0 + 1 : y0);
    u8 *oy0 = row_ptr(a->dst[0], a->dst_pitch[0], y0);
    u8 *oy1 = row_ptr(a->dst[0], a->dst_pitch[0], two ? y0 + 1 : y0);
    u8 *ob = row_ptr(a->dst[1], a->dst_pitch[1], cy);
    u8 *orr = row_ptr(a->dst[2], a->dst_pitch[2], cy);
    if (two) {
        rgba420_pairs((const px32 *)(const void *)s0, (const px32 *)(const void *)s1, oy0, oy1, ob, orr, full);
    } else {
        ROW_LOOP(cx, full)
            block420(s0, s1, oy0, oy1, ob, orr, cx, 2, 0);
    }
    if (w & 1)
        EDGE_ONCE block420(s0, s1, oy0, oy1, ob, orr, full, 1, two);
}

/* ---- planar YUV -> RGBA8 ---- */

RV_RAW_KERNEL_CHAINED(yuv444_rgba, rv_yuv_args, a, blk)
{
    const int w = a->w; /* a local: stores through u8 pointers may alias *a */
    const int y = blk.y;
    if (y >= a->h)
        return;
    const u8 *RST sy = row_ptr(a->src[0], a->src_pitch[0], y);
    const u8 *RST sb = row_ptr(a->src[1], a->src_pitch[1], y);
    const u8 *RST sr = row_ptr(a->src[2], a->src_pitch[2], y);
    px32 *RST o = row32(a->dst[0], a->dst_pitch[0], y);
    ROW_LOOP(x, w) {
        int rv, gv, bv;
        rv_bt601_terms(sb[x], sr[x], &rv, &gv, &bv);
        o[x] = rgba_word(sy[x], rv, gv, bv);
    }
}

RV_RAW_KERNEL_CHAINED(yuv420_rgba, rv_yuv_args, a, blk)
{
    const int w = a->w; /* a local: stores through u8 pointers may alias *a */
    const int y = blk.y;
    if (y >= a->h)
        return;
    const u8 *RST sy = row_ptr(a->src[0], a->src_pitch[0], y);
    const u8 *RST sb = row_ptr(a->src[1], a->src_pitch[1], y >> 1);
    const u8 *RST sr = row_ptr(a->src[2], a->src_pitch[2], y >> 1);
    px32 *RST o = row32(a->dst[0], a->dst_pitch[0], y);
    const int full = w >> 1;
    ROW_LOOP(cx, full) {
        int rv, gv, bv;
        rv_bt601_terms(sb[cx], sr[cx], &rv, &gv, &bv);
        o[2 * cx] = rgba_word(sy[2 * cx], rv, gv, bv);
        o[2 * cx + 1] = rgba_word(sy[2 * cx + 1], rv, gv, bv);
    }
    if (w & 1) {
        EDGE_ONCE {
            int rv, gv, bv;
            rv_bt601_terms(sb[full], sr[full], &rv, &gv, &bv);
            o[2 * full] = rgba_word(sy[2 * full], rv, gv, bv);
        }
    }
}

/* ---- packed YUYV <-> others ---- */

/* Whole pairs of two rows (restrict parameters, as rgba420_pairs). */
RV_FN void yuyv420_pairs(const u8 *RST s0, const u8 *RST s1, u8 *RST ya, u8 *RST yb, u8 *RST ob, u8 *RST orr,
                         int full)
{
    ROW_LOOP(p, full) {
        ya[2 * p] = s0[4 * p], ya[2 * p + 1] = s0[4 * p + 2];
        yb[2 * p] = s1[4 * p], yb[2 * p + 1] = s1[4 * p + 2];
        ob[p] = (u8)((s0[4 * p + 1] + s1[4 * p + 1] + 1) >> 1);
        orr[p] = (u8)((s0[4 * p + 3] + s1[4 * p + 3] + 1) >> 1);
    }
}

/* Luma copied; chroma of the two rows averaged, rounding half up
 * ((a + b + 1) >> 1); the last row alone when h is odd. An odd picture
 * width has only Y0 in its last pair. */
RV_RAW_KERNEL_CHAINED(yuyv_yuv420, rv_yuv_args, a, blk)
{
    const int w = a->w; /* a local: stores through u8 pointers may alias *a */
    const int cy = blk.y, y0 = 2 * cy;
    if (y0 >= a->h)
        return;
    const int two = y0 + 1 < a->h, full = w >> 1;
    const u8 *RST s0 = row_ptr(a->src[0], a->src_pitch[0], y0);
    const u8 *RST s1 = row_ptr(a->src[0], a->src_pitch[0], two ? y0 + 1 : y0);
    u8 *oy0 = row_ptr(a->dst[0], a->dst_pitch[0], y0);
    u8 *oy1 = row_ptr(a->dst[0], a->dst_pitch[0], two ? y0 + 1 : y0);
    u8 *RST ob = row_ptr(a->dst[1], a->dst_pitch[1], cy);
    u8 *RST orr = row_ptr(a->dst[2], a->dst_pitch[2], cy);
    if (two) {
        yuyv420_pairs(s0, s1, oy0, oy1, ob, orr, full);
    } else {
        u8 *RST ya = oy0;
        ROW_LOOP(p, full) {
            ya[2 * p] = s0[4 * p], ya[2 * p + 1] = s0[4 * p + 2];
            ob[p] = s0[4 * p + 1]; /* (c + c + 1) >> 1 == c */
            orr[p] = s0[4 * p + 3];
        }
    }
    if (w & 1) {
        EDGE_ONCE {
            const int p = full;
            oy0[2 * p] = s0[4 * p];
            if (two)
                oy1[2 * p] = s1[4 * p];
            ob[p] = (u8)((s0[4 * p + 1] + s1[4 * p + 1] + 1) >> 1);
            orr[p] = (u8)((s0[4 * p + 3] + s1[4 * p + 3] + 1) >> 1);
        }
    }
}

/* Pair p: Y0, Y1 of pixels 2p, 2p+1, chroma the rounded average of the
 * pair's; at an odd right edge Y1 = Y0 and the one pixel's chroma. */
RV_FN px32 yuyv_of(px32 p0, px32 p1)
{
    const int r = PX_R(p0) + PX_R(p1), g = PX_G(p0) + PX_G(p1), b = PX_B(p0) + PX_B(p1);
    return (px32)rv_bt601_y(PX_R(p0), PX_G(p0), PX_B(p0)) |
           (px32)rv_bt601_chroma(rv_bt601_cb256(r, g, b), 2) << 8 |
           (px32)rv_bt601_y(PX_R(p1), PX_G(p1), PX_B(p1)) << 16 |
           (px32)rv_bt601_chroma(rv_bt601_cr256(r, g, b), 2) << 24;
}

RV_RAW_KERNEL_CHAINED(rgba_yuyv, rv_yuv_args, a, blk)
{
    const int w = a->w; /* a local: stores through u8 pointers may alias *a */
    const int y = blk.y;
    if (y >= a->h)
        return;
    const px32 *RST s = row32(a->src[0], a->src_pitch[0], y);
    px32 *RST o = row32(a->dst[0], a->dst_pitch[0], y);
    const int full = w >> 1;
    ROW_LOOP(p, full)
        o[p] = yuyv_of(s[2 * p], s[2 * p + 1]);
    if (w & 1)
        EDGE_ONCE o[full] = yuyv_of(s[2 * full], s[2 * full]); /* the sum is twice the pixel */
}

RV_RAW_KERNEL_CHAINED(yuv420_yuyv, rv_yuv_args, a, blk)
{
    const int w = a->w; /* a local: stores through u8 pointers may alias *a */
    const int y = blk.y;
    if (y >= a->h)
        return;
    const u8 *RST sy = row_ptr(a->src[0], a->src_pitch[0], y);
    const u8 *RST sb = row_ptr(a->src[1], a->src_pitch[1], y >> 1);
    const u8 *RST sr = row_ptr(a->src[2], a->src_pitch[2], y >> 1);
    px32 *RST o = row32(a->dst[0], a->dst_pitch[0], y);
    const int full = w >> 1;
    ROW_LOOP(p, full)
        o[p] = (px32)sy[2 * p] | (px32)sb[p] << 8 | (px32)sy[2 * p + 1] << 16 | (px32)sr[p] << 24;
    if (w & 1)
        EDGE_ONCE o[full] = (px32)sy[2 * full] | (px32)sb[full] << 8 | (px32)sy[2 * full] << 16 | (px32)sr[full] << 24;
}
