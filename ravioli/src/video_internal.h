/*
 * video_internal.h - sources and sinks behind ravioli/video.h: the vtables,
 * colour conversions, the tiny bitmap font and time helpers shared by
 * video_*.c and the optional parts in src/video/ (V4L2, SDL2). Not installed.
 */
#ifndef RAVIOLI_VIDEO_INTERNAL_H
#define RAVIOLI_VIDEO_INTERNAL_H

#include "internal.h"
#include "ravioli/video.h"

struct rv_source_ops {
    const char *name;
    int (*read)(RV_Source *src, RV_Image *frame, long long *pts_ns, int timeout_ms);
    void (*close)(RV_Source *src);
};

struct RV_Source {
    RV_Context *ctx;
    const struct rv_source_ops *ops;
    RV_VideoInfo info;
    long long dropped;
    void *priv;
};

struct rv_sink_ops {
    const char *name;
    int (*write)(RV_Sink *sink, RV_Image *frame, const RV_FrameStats *stats);
    void (*close)(RV_Sink *sink);
};

struct RV_Sink {
    RV_Context *ctx;
    const struct rv_sink_ops *ops;
    RV_VideoInfo info;
    int repeats_skipped;
    long long frames;
    void *priv;
};

/* Allocates a source/sink with its private part (zeroed); NULL on ENOMEM. */
RV_Source *rv__source_new(RV_Context *ctx, const struct rv_source_ops *ops, size_t priv_size);
RV_Sink *rv__sink_new(RV_Context *ctx, const struct rv_sink_ops *ops, size_t priv_size);

/* Checks that `frame` has the size and format of `info`. */
int rv__video_check_frame(RV_Context *ctx, const char *who, const RV_VideoInfo *info,
                          const RV_Image *frame);

/* CLOCK_MONOTONIC in nanoseconds; sleeps until an absolute monotonic time. */
long long rv__now_ns(void);
void rv__sleep_until_ns(long long t);

/* ---------------------------------------------------------------------
 * Colour conversions (video_convert.c): ITU-R BT.601, limited ("studio")
 * range, 8-bit integer arithmetic with 8 fraction bits. The formulas and
 * coefficients are defined once, in src/video/bt601.h, which module "yuyv"
 * (the CPU/GPU conversion kernels) includes as well.
 * --------------------------------------------------------------------- */
#include "video/bt601.h"

/* (v >> 8) clamped to 0..255, shifting only non-negative numbers */
static inline unsigned char rv__sat8(int v) { return (unsigned char)rv_bt601_sat(v); }
static inline int rv__rgb_y(int r, int g, int b) { return rv_bt601_y(r, g, b); }
/* Cb/Cr times 256 before rounding, without the 128 offset (may be negative). */
static inline int rv__rgb_cb256(int r, int g, int b) { return rv_bt601_cb256(r, g, b); }
static inline int rv__rgb_cr256(int r, int g, int b) { return rv_bt601_cr256(r, g, b); }
/* Rounds the sum of n (1..4) cb256/cr256 values to an 8-bit chroma sample. */
static inline unsigned char rv__chroma_avg(int sum, int n)
{
    return (unsigned char)rv_bt601_chroma(sum, n);
}
/* One pixel from Y and the chroma terms of yuv_terms(). */
static inline void rv__yuv_px(int y, int rv, int gv, int bv, unsigned char *rgb)
{
    int c = rv_bt601_c(y);
    rgb[0] = rv__sat8(c + rv);
    rgb[1] = rv__sat8(c + gv);
    rgb[2] = rv__sat8(c + bv);
}
/* The same as one 32-bit word holding R, G, B, 255 in memory order (so that
 * a row of pixels is stored with aligned 32-bit writes, which GCC and Clang
 * vectorise). */
static inline uint32_t rv__yuv_word(int y, int rv, int gv, int bv)
{
    int c = rv_bt601_c(y);
    uint32_t r = (uint32_t)rv_bt601_sat(c + rv), g = (uint32_t)rv_bt601_sat(c + gv),
             b = (uint32_t)rv_bt601_sat(c + bv);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return r << 24 | g << 16 | b << 8 | 0xffu;
#else
    return r | g << 8 | b << 16 | 0xff000000u;
#endif
}
static inline void rv__yuv_terms(int cb, int cr, int *rv, int *gv, int *bv)
{
    rv_bt601_terms(cb, cr, rv, gv, bv);
}
static inline void rv__yuv_to_rgb(int y, int cb, int cr, unsigned char *rgb)
{
    int rv, gv, bv;
    rv__yuv_terms(cb, cr, &rv, &gv, &bv);
    rv__yuv_px(y, rv, gv, bv, rgb);
}

/* The conversions below split the rows into bands run on the context's
 * worker pool when given a context, or run on the calling thread when ctx is
 * NULL. Sources always pass NULL: RV_Streaming reads them on its capture
 * thread while operations use the pool, and the pool takes one job at a
 * time. Sinks are written from the thread that runs the operations and may
 * use it. */

/* Packed YUYV (Y0 Cb Y1 Cr) / UYVY rows -> RGBA8 rows (alpha 255). */
void rv__yuyv_to_rgba(RV_Context *ctx, const unsigned char *src, ptrdiff_t src_pitch,
                      unsigned char *dst, ptrdiff_t dst_pitch, int w, int h, int uyvy);
/* RGB24/BGR24/GREY rows -> RGBA8 rows. */
void rv__rgb24_to_rgba(const unsigned char *src, ptrdiff_t src_pitch, unsigned char *dst,
                       ptrdiff_t dst_pitch, int w, int h, int bgr);
void rv__grey_to_rgba(const unsigned char *src, ptrdiff_t src_pitch, unsigned char *dst,
                      ptrdiff_t dst_pitch, int w, int h);
/* RGBA8 image rows -> planar 8-bit Y/Cb/Cr, chroma subsampled by 2^sx x 2^sy
 * (0 or 1) by averaging the chroma of the pixels each sample covers. */
void rv__rgba_to_yuv(RV_Context *ctx, const unsigned char *src, ptrdiff_t src_pitch, int w,
                     int h, unsigned char *y, ptrdiff_t ypitch, unsigned char *cb,
                     unsigned char *cr, ptrdiff_t cpitch, int sx, int sy);
/* Any supported image -> RGBA8 for display; 16-bit samples with `bit_depth`
 * significant bits are scaled to 8 bits. dst is w*4 x h with dst_pitch. */
int rv__image_to_rgba(RV_Image *img, int bit_depth, unsigned char *dst, ptrdiff_t dst_pitch);

/* ---------------------------------------------------------------------
 * 5x7 bitmap font (video_font.c): digits, A-Z (lower case drawn as upper),
 * space and . : / - # % x = ( ).
 * --------------------------------------------------------------------- */
/* Rows of glyph `c` (bit 4 = leftmost column), or NULL when not in the font. */
const unsigned char *rv__font_glyph(int c);
/* Draws `text` into an RGBA8 buffer at (x, y), each font pixel scale x scale,
 * clipped to w x h. Returns the width drawn in pixels. */
int rv__font_draw_rgba(unsigned char *dst, ptrdiff_t pitch, int w, int h, int x, int y,
                       int scale, const char *text, const unsigned char rgba[4]);

#endif /* RAVIOLI_VIDEO_INTERNAL_H */
