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
 * Colour conversions (video_convert.c). ITU-R BT.601, limited ("studio")
 * range, 8-bit integer arithmetic with 8 fraction bits:
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
 * (coefficients = round(256 * the BT.601 matrix scaled to 219/224 steps);
 * the shifts are done on non-negative values so they are exact floors.)
 * --------------------------------------------------------------------- */
static inline unsigned char rv__clamp8(int v)
{
    return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
}
static inline int rv__rgb_y(int r, int g, int b)
{
    return 16 + ((66 * r + 129 * g + 25 * b + 128) >> 8);
}
/* Cb/Cr times 256 before rounding, without the 128 offset (may be negative). */
static inline int rv__rgb_cb256(int r, int g, int b) { return -38 * r - 74 * g + 112 * b; }
static inline int rv__rgb_cr256(int r, int g, int b) { return 112 * r - 94 * g - 18 * b; }
/* Rounds the sum of n (1..4) cb256/cr256 values to an 8-bit chroma sample. */
static inline unsigned char rv__chroma_avg(int sum, int n)
{
    /* + n * 128 * 256 keeps the numerator positive: |cb256| <= 28560 < 32768 */
    return (unsigned char)((sum + n * (128 * 256 + 128)) / (n * 256));
}
static inline void rv__yuv_to_rgb(int y, int cb, int cr, unsigned char *rgb)
{
    int c = 298 * (y - 16) + 128, d = cb - 128, e = cr - 128;
    int r = c + 409 * e, g = c - 100 * d - 208 * e, b = c + 516 * d;
    rgb[0] = rv__clamp8(r < 0 ? 0 : r >> 8);
    rgb[1] = rv__clamp8(g < 0 ? 0 : g >> 8);
    rgb[2] = rv__clamp8(b < 0 ? 0 : b >> 8);
}

/* Packed YUYV (Y0 Cb Y1 Cr) / UYVY rows -> RGBA8 rows (alpha 255). */
void rv__yuyv_to_rgba(const unsigned char *src, ptrdiff_t src_pitch, unsigned char *dst,
                      ptrdiff_t dst_pitch, int w, int h, int uyvy);
/* RGB24/BGR24/GREY rows -> RGBA8 rows. */
void rv__rgb24_to_rgba(const unsigned char *src, ptrdiff_t src_pitch, unsigned char *dst,
                       ptrdiff_t dst_pitch, int w, int h, int bgr);
void rv__grey_to_rgba(const unsigned char *src, ptrdiff_t src_pitch, unsigned char *dst,
                      ptrdiff_t dst_pitch, int w, int h);
/* RGBA8 image rows -> planar 8-bit Y/Cb/Cr, chroma subsampled by 2^sx x 2^sy
 * (0 or 1) by averaging the chroma of the pixels each sample covers. */
void rv__rgba_to_yuv(const unsigned char *src, ptrdiff_t src_pitch, int w, int h,
                     unsigned char *y, ptrdiff_t ypitch, unsigned char *cb, unsigned char *cr,
                     ptrdiff_t cpitch, int sx, int sy);
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
