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
#else
#  define ROW_LOOP(i, n) for (int i = 0; i < (n); i++)
#endif

typedef unsigned char u8;

RV_FN u8 *row_ptr(uint64_t base, int64_t pitch, int y)
{
    return (u8 *)(uintptr_t)(base + (uint64_t)((int64_t)y * pitch));
}

/* RGB pixel of Y and chroma terms. */
RV_FN void put_rgba(u8 *o, int y, int rv, int gv, int bv)
{
    const int c = rv_bt601_c(y);
    o[0] = (u8)rv_bt601_sat(c + rv);
    o[1] = (u8)rv_bt601_sat(c + gv);
    o[2] = (u8)rv_bt601_sat(c + bv);
    o[3] = 255;
}

/* One pair: 4 source bytes (Y0 Cb Y1 Cr) to 8 destination bytes. */
RV_FN void yuyv_pair(const u8 *s, u8 *o)
{
    int rv, gv, bv;
    rv_bt601_terms(s[1], s[3], &rv, &gv, &bv);
    put_rgba(o, s[0], rv, gv, bv);
    put_rgba(o + 4, s[2], rv, gv, bv);
}

RV_RAW_KERNEL(yuyv_rgba, rv_yuyv_args, a, blk)
{
    const int y = blk.y;
    if (y >= a->h)
        return;
    const u8 *s = row_ptr(a->src, a->src_pitch, y);
    u8 *o = row_ptr(a->dst, a->dst_pitch, y);
    ROW_LOOP(p, a->pairs)
        yuyv_pair(s + 4 * p, o + 8 * p);
}

/* ---- RGBA8 -> planar YUV ---- */

RV_RAW_KERNEL(rgba_yuv444, rv_yuv_args, a, blk)
{
    const int y = blk.y;
    if (y >= a->h)
        return;
    const u8 *s = row_ptr(a->src[0], a->src_pitch[0], y);
    u8 *oy = row_ptr(a->dst[0], a->dst_pitch[0], y);
    u8 *ob = row_ptr(a->dst[1], a->dst_pitch[1], y);
    u8 *orr = row_ptr(a->dst[2], a->dst_pitch[2], y);
    ROW_LOOP(x, a->w) {
        const u8 *p = s + 4 * x;
        const int r = p[0], g = p[1], b = p[2];
        oy[x] = (u8)rv_bt601_y(r, g, b);
        ob[x] = (u8)rv_bt601_chroma(rv_bt601_cb256(r, g, b), 1);
        orr[x] = (u8)rv_bt601_chroma(rv_bt601_cr256(r, g, b), 1);
    }
}

/* Block row cy: luma rows 2cy and 2cy+1 (if any), chroma row cy. */
RV_RAW_KERNEL(rgba_yuv420, rv_yuv_args, a, blk)
{
    const int cy = blk.y, y0 = 2 * cy;
    if (y0 >= a->h)
        return;
    const int two = y0 + 1 < a->h;
    const u8 *s0 = row_ptr(a->src[0], a->src_pitch[0], y0);
    const u8 *s1 = row_ptr(a->src[0], a->src_pitch[0], two ? y0 + 1 : y0);
    u8 *oy0 = row_ptr(a->dst[0], a->dst_pitch[0], y0);
    u8 *oy1 = row_ptr(a->dst[0], a->dst_pitch[0], two ? y0 + 1 : y0);
    u8 *ob = row_ptr(a->dst[1], a->dst_pitch[1], cy);
    u8 *orr = row_ptr(a->dst[2], a->dst_pitch[2], cy);
    const int cw = (a->w + 1) >> 1;
    ROW_LOOP(cx, cw) {
        const int x0 = 2 * cx, nx = x0 + 1 < a->w ? 2 : 1;
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
}

/* ---- planar YUV -> RGBA8 ---- */

RV_RAW_KERNEL(yuv444_rgba, rv_yuv_args, a, blk)
{
    const int y = blk.y;
    if (y >= a->h)
        return;
    const u8 *sy = row_ptr(a->src[0], a->src_pitch[0], y);
    const u8 *sb = row_ptr(a->src[1], a->src_pitch[1], y);
    const u8 *sr = row_ptr(a->src[2], a->src_pitch[2], y);
    u8 *o = row_ptr(a->dst[0], a->dst_pitch[0], y);
    ROW_LOOP(x, a->w) {
        int rv, gv, bv;
        rv_bt601_terms(sb[x], sr[x], &rv, &gv, &bv);
        put_rgba(o + 4 * x, sy[x], rv, gv, bv);
    }
}

RV_RAW_KERNEL(yuv420_rgba, rv_yuv_args, a, blk)
{
    const int y = blk.y;
    if (y >= a->h)
        return;
    const u8 *sy = row_ptr(a->src[0], a->src_pitch[0], y);
    const u8 *sb = row_ptr(a->src[1], a->src_pitch[1], y >> 1);
    const u8 *sr = row_ptr(a->src[2], a->src_pitch[2], y >> 1);
    u8 *o = row_ptr(a->dst[0], a->dst_pitch[0], y);
    const int cw = (a->w + 1) >> 1;
    ROW_LOOP(cx, cw) {
        int rv, gv, bv;
        rv_bt601_terms(sb[cx], sr[cx], &rv, &gv, &bv);
        const int x0 = 2 * cx;
        put_rgba(o + 4 * x0, sy[x0], rv, gv, bv);
        if (x0 + 1 < a->w)
            put_rgba(o + 4 * x0 + 4, sy[x0 + 1], rv, gv, bv);
    }
}

/* ---- packed YUYV <-> others ---- */

/* Luma copied; chroma of the two rows averaged, rounding half up
 * ((a + b + 1) >> 1); the last row alone when h is odd. */
RV_RAW_KERNEL(yuyv_yuv420, rv_yuv_args, a, blk)
{
    const int cy = blk.y, y0 = 2 * cy;
    if (y0 >= a->h)
        return;
    const int two = y0 + 1 < a->h;
    const u8 *s0 = row_ptr(a->src[0], a->src_pitch[0], y0);
    const u8 *s1 = row_ptr(a->src[0], a->src_pitch[0], two ? y0 + 1 : y0);
    u8 *oy0 = row_ptr(a->dst[0], a->dst_pitch[0], y0);
    u8 *oy1 = row_ptr(a->dst[0], a->dst_pitch[0], two ? y0 + 1 : y0);
    u8 *ob = row_ptr(a->dst[1], a->dst_pitch[1], cy);
    u8 *orr = row_ptr(a->dst[2], a->dst_pitch[2], cy);
    const int pairs = (a->w + 1) >> 1;
    ROW_LOOP(p, pairs) {
        const u8 *q0 = s0 + 4 * p, *q1 = s1 + 4 * p;
        const int x0 = 2 * p, second = x0 + 1 < a->w;
        oy0[x0] = q0[0];
        if (second)
            oy0[x0 + 1] = q0[2];
        if (two) {
            oy1[x0] = q1[0];
            if (second)
                oy1[x0 + 1] = q1[2];
        }
        ob[p] = (u8)((q0[1] + q1[1] + 1) >> 1); /* q1 == q0 when h is odd: exact */
        orr[p] = (u8)((q0[3] + q1[3] + 1) >> 1);
    }
}

/* Pair p: Y0, Y1 of pixels 2p, 2p+1 (Y1 = Y0 at an odd right edge), chroma
 * the rounded average of the pair's. */
RV_RAW_KERNEL(rgba_yuyv, rv_yuv_args, a, blk)
{
    const int y = blk.y;
    if (y >= a->h)
        return;
    const u8 *s = row_ptr(a->src[0], a->src_pitch[0], y);
    u8 *o = row_ptr(a->dst[0], a->dst_pitch[0], y);
    const int pairs = (a->w + 1) >> 1;
    ROW_LOOP(p, pairs) {
        const u8 *p0 = s + 8 * p;
        const int second = 2 * p + 1 < a->w;
        const u8 *p1 = second ? p0 + 4 : p0;
        const int r = p0[0] + p1[0], g = p0[1] + p1[1], b = p0[2] + p1[2];
        u8 *q = o + 4 * p; /* at an odd edge p1 == p0: the sum is twice the one pixel */
        q[0] = (u8)rv_bt601_y(p0[0], p0[1], p0[2]);
        q[1] = (u8)rv_bt601_chroma(rv_bt601_cb256(r, g, b), 2);
        q[2] = (u8)rv_bt601_y(p1[0], p1[1], p1[2]);
        q[3] = (u8)rv_bt601_chroma(rv_bt601_cr256(r, g, b), 2);
    }
}

RV_RAW_KERNEL(yuv420_yuyv, rv_yuv_args, a, blk)
{
    const int y = blk.y;
    if (y >= a->h)
        return;
    const u8 *sy = row_ptr(a->src[0], a->src_pitch[0], y);
    const u8 *sb = row_ptr(a->src[1], a->src_pitch[1], y >> 1);
    const u8 *sr = row_ptr(a->src[2], a->src_pitch[2], y >> 1);
    u8 *o = row_ptr(a->dst[0], a->dst_pitch[0], y);
    const int pairs = (a->w + 1) >> 1;
    ROW_LOOP(p, pairs) {
        u8 *q = o + 4 * p;
        q[0] = sy[2 * p];
        q[1] = sb[p];
        q[2] = 2 * p + 1 < a->w ? sy[2 * p + 1] : sy[2 * p];
        q[3] = sr[p];
    }
}
