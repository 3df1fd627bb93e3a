/*
 * video_convert.c - colour conversions at the edges of the video pipeline:
 * camera YUYV/UYVY/RGB24/GREY -> RGBA8, RGBA8 -> planar YUV (Y4M writer,
 * synthetic source), any format -> RGBA8 (window). The formulas are in
 * video_internal.h and docs/video.md (BT.601, limited range, integer).
 */
#include <string.h>

#include "video_internal.h"

void rv__yuyv_to_rgba(const unsigned char *src, ptrdiff_t src_pitch, unsigned char *dst,
                      ptrdiff_t dst_pitch, int w, int h, int uyvy)
{
    const int oy = uyvy ? 1 : 0, oc = uyvy ? 0 : 1; /* offsets of Y0 and Cb in a pair */
    for (int yy = 0; yy < h; yy++) {
        const unsigned char *s = src + yy * src_pitch;
        unsigned char *d = dst + yy * dst_pitch;
        for (int x = 0; x < w; x += 2, s += 4) {
            int y0 = s[oy], cb = s[oc], y1 = s[oy + 2], cr = s[oc + 2];
            rv__yuv_to_rgb(y0, cb, cr, d + 4 * x);
            d[4 * x + 3] = 255;
            if (x + 1 < w) {
                rv__yuv_to_rgb(y1, cb, cr, d + 4 * x + 4);
                d[4 * x + 7] = 255;
            }
        }
    }
}

void rv__rgb24_to_rgba(const unsigned char *src, ptrdiff_t src_pitch, unsigned char *dst,
                       ptrdiff_t dst_pitch, int w, int h, int bgr)
{
    const int r = bgr ? 2 : 0, b = bgr ? 0 : 2;
    for (int y = 0; y < h; y++) {
        const unsigned char *s = src + y * src_pitch;
        unsigned char *d = dst + y * dst_pitch;
        for (int x = 0; x < w; x++, s += 3, d += 4) {
            d[0] = s[r];
            d[1] = s[1];
            d[2] = s[b];
            d[3] = 255;
        }
    }
}

void rv__grey_to_rgba(const unsigned char *src, ptrdiff_t src_pitch, unsigned char *dst,
                      ptrdiff_t dst_pitch, int w, int h)
{
    for (int y = 0; y < h; y++) {
        const unsigned char *s = src + y * src_pitch;
        unsigned char *d = dst + y * dst_pitch;
        for (int x = 0; x < w; x++, d += 4)
            d[0] = d[1] = d[2] = s[x], d[3] = 255;
    }
}

void rv__rgba_to_yuv(const unsigned char *src, ptrdiff_t src_pitch, int w, int h,
                     unsigned char *yp, ptrdiff_t ypitch, unsigned char *cb, unsigned char *cr,
                     ptrdiff_t cpitch, int sx, int sy)
{
    for (int y = 0; y < h; y++) {
        const unsigned char *s = src + y * src_pitch;
        unsigned char *d = yp + y * ypitch;
        for (int x = 0; x < w; x++, s += 4)
            d[x] = (unsigned char)rv__rgb_y(s[0], s[1], s[2]);
    }
    const int cw = (w + (1 << sx) - 1) >> sx, ch = (h + (1 << sy) - 1) >> sy;
    for (int cy = 0; cy < ch; cy++) {
        for (int cx = 0; cx < cw; cx++) {
            int sb = 0, sr = 0, n = 0;
            for (int dy = 0; dy < (1 << sy); dy++) {
                int y = (cy << sy) + dy;
                if (y >= h)
                    break;
                for (int dx = 0; dx < (1 << sx); dx++) {
                    int x = (cx << sx) + dx;
                    if (x >= w)
                        break;
                    const unsigned char *p = src + y * src_pitch + 4 * x;
                    sb += rv__rgb_cb256(p[0], p[1], p[2]);
                    sr += rv__rgb_cr256(p[0], p[1], p[2]);
                    n++;
                }
            }
            cb[cy * cpitch + cx] = rv__chroma_avg(sb, n);
            cr[cy * cpitch + cx] = rv__chroma_avg(sr, n);
        }
    }
}

/* A 16-bit sample with `depth` significant bits, as 8 bits (rounded). */
static inline int down8(unsigned v, int depth)
{
    unsigned max = (1u << depth) - 1;
    if (v > max)
        v = max;
    return (int)((v * 255u + max / 2) / max);
}

int rv__image_to_rgba(RV_Image *img, int bit_depth, unsigned char *dst, ptrdiff_t dst_pitch)
{
    const int w = img->w, h = img->h;
    const RV_FormatInfo *fi = img->fi;
    const unsigned char *p[3] = {NULL, NULL, NULL};
    ptrdiff_t pitch[3] = {0, 0, 0};
    for (int i = 0; i < fi->planes; i++)
        if (!(p[i] = rv_image_read(img, i, &pitch[i])))
            return rv__error(img->ctx, RV_EIO, "cannot read plane %d of the frame", i);
    if (bit_depth < 1 || bit_depth > 16)
        bit_depth = fi->sample_bytes == 2 || img->fmt == RV_FMT_RGBA16 ? 16 : 8;

    switch (img->fmt) {
    case RV_FMT_RGBA8:
        for (int y = 0; y < h; y++)
            memcpy(dst + y * dst_pitch, p[0] + y * pitch[0], (size_t)w * 4);
        return 0;
    case RV_FMT_RGBA16:
        for (int y = 0; y < h; y++) {
            const uint16_t *s = (const uint16_t *)(p[0] + y * pitch[0]);
            unsigned char *d = dst + y * dst_pitch;
            for (int x = 0; x < 4 * w; x++)
                d[x] = (unsigned char)down8(s[x], bit_depth);
        }
        return 0;
    case RV_FMT_GRAY8:
        rv__grey_to_rgba(p[0], pitch[0], dst, dst_pitch, w, h);
        return 0;
    case RV_FMT_GRAY16:
        for (int y = 0; y < h; y++) {
            const uint16_t *s = (const uint16_t *)(p[0] + y * pitch[0]);
            unsigned char *d = dst + y * dst_pitch;
            for (int x = 0; x < w; x++, d += 4)
                d[0] = d[1] = d[2] = (unsigned char)down8(s[x], bit_depth), d[3] = 255;
        }
        return 0;
    case RV_FMT_GRAYF32:
        for (int y = 0; y < h; y++) {
            const float *s = (const float *)(p[0] + y * pitch[0]);
            unsigned char *d = dst + y * dst_pitch;
            for (int x = 0; x < w; x++, d += 4) {
                float v = s[x] * 255.0f + 0.5f;
                d[0] = d[1] = d[2] = (unsigned char)(v >= 255.0f ? 255 : v > 0.0f ? (int)v : 0);
                d[3] = 255;
            }
        }
        return 0;
    case RV_FMT_YUV420P8:
    case RV_FMT_YUV444P8:
    case RV_FMT_YUV420P16:
    case RV_FMT_YUV444P16: {
        const int sx = fi->chroma_shift_x, sy = fi->chroma_shift_y, wide = fi->sample_bytes == 2;
        for (int y = 0; y < h; y++) {
            const unsigned char *ry = p[0] + y * pitch[0];
            const unsigned char *rb = p[1] + (y >> sy) * pitch[1];
            const unsigned char *rr = p[2] + (y >> sy) * pitch[2];
            unsigned char *d = dst + y * dst_pitch;
            for (int x = 0; x < w; x++, d += 4) {
                int Y, U, V;
                if (wide) {
                    Y = down8(((const uint16_t *)ry)[x], bit_depth);
                    U = down8(((const uint16_t *)rb)[x >> sx], bit_depth);
                    V = down8(((const uint16_t *)rr)[x >> sx], bit_depth);
                } else {
                    Y = ry[x], U = rb[x >> sx], V = rr[x >> sx];
                }
                rv__yuv_to_rgb(Y, U, V, d);
                d[3] = 255;
            }
        }
        return 0;
    }
    default:
        return rv__error(img->ctx, RV_ENOSYS, "cannot display format %d", (int)img->fmt);
    }
}
