/*
 * video_convert.c - colour conversions at the edges of the video pipeline:
 * camera YUYV/UYVY/RGB24/GREY -> RGBA8, RGBA8 -> planar YUV (Y4M writer,
 * synthetic source), any format -> RGBA8 (window). The formulas are in
 * video_internal.h and docs/video.md (BT.601, limited range, integer).
 *
 * The heavy ones run in bands of rows on the context's worker pool; the
 * result does not depend on the split.
 */
#include <string.h>

#include "video_internal.h"

#define BAND_ROWS 32 /* rows a task (even: 4:2:0 chroma rows stay whole) */

typedef void (*rows_fn)(void *arg, int y0, int y1);
typedef struct rows_job {
    rows_fn fn;
    void *arg;
    int h;
} rows_job;

static void rows_task(void *arg, int task, int worker)
{
    (void)worker;
    rows_job *j = arg;
    int y0 = task * BAND_ROWS, y1 = y0 + BAND_ROWS < j->h ? y0 + BAND_ROWS : j->h;
    j->fn(j->arg, y0, y1);
}

static void run_rows(RV_Context *ctx, int h, rows_fn fn, void *arg)
{
    int n = (h + BAND_ROWS - 1) / BAND_ROWS;
    if (!ctx || !ctx->pool || n < 2) {
        fn(arg, 0, h);
        return;
    }
    rows_job j = {fn, arg, h};
    rv_pool_run(ctx->pool, n, rows_task, &j);
}

/* ------------------------------------------------------------------ */
/* YUYV / UYVY -> RGBA8                                                 */
/* ------------------------------------------------------------------ */

typedef struct yuyv_job {
    const unsigned char *src;
    ptrdiff_t sp, dp;
    unsigned char *dst;
    int w, uyvy;
} yuyv_job;

static void yuyv_rows(void *arg, int y0, int y1)
{
    const yuyv_job *j = arg;
    const int oy = j->uyvy ? 1 : 0, oc = j->uyvy ? 0 : 1; /* offsets of Y0 and Cb in a pair */
    const int w = j->w, pairs = w / 2;
    for (int y = y0; y < y1; y++) {
        const unsigned char *restrict s = j->src + y * j->sp;
        uint32_t *restrict d = (uint32_t *)(j->dst + y * j->dp); /* RGBA8 rows are 4-aligned */
        for (int p = 0; p < pairs; p++) {
            int rv, gv, bv;
            rv__yuv_terms(s[4 * p + oc], s[4 * p + oc + 2], &rv, &gv, &bv);
            d[2 * p] = rv__yuv_word(s[4 * p + oy], rv, gv, bv);
            d[2 * p + 1] = rv__yuv_word(s[4 * p + oy + 2], rv, gv, bv);
        }
        if (w & 1) { /* odd width: the last pair's second pixel is not there */
            const unsigned char *q = s + 4 * pairs;
            unsigned char *o = (unsigned char *)(d + 2 * pairs);
            rv__yuv_to_rgb(q[oy], q[oc], q[oc + 2], o);
            o[3] = 255;
        }
    }
}

void rv__yuyv_to_rgba(RV_Context *ctx, const unsigned char *src, ptrdiff_t src_pitch,
                      unsigned char *dst, ptrdiff_t dst_pitch, int w, int h, int uyvy)
{
    yuyv_job j = {src, src_pitch, dst_pitch, dst, w, uyvy};
    run_rows(ctx, h, yuyv_rows, &j);
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

/* ------------------------------------------------------------------ */
/* RGBA8 -> planar YUV                                                  */
/* ------------------------------------------------------------------ */

typedef struct to_yuv_job {
    const unsigned char *src;
    ptrdiff_t sp, yp, cp;
    unsigned char *y, *cb, *cr;
    int w, h, sx, sy;
} to_yuv_job;

/* One chroma sample averaging the pixels it covers (edges: fewer). */
static void chroma_sample(const to_yuv_job *j, int cx, int cy)
{
    int sb = 0, sr = 0, n = 0;
    for (int y = cy << j->sy; y < ((cy + 1) << j->sy) && y < j->h; y++)
        for (int x = cx << j->sx; x < ((cx + 1) << j->sx) && x < j->w; x++) {
            const unsigned char *p = j->src + y * j->sp + 4 * x;
            sb += rv__rgb_cb256(p[0], p[1], p[2]);
            sr += rv__rgb_cr256(p[0], p[1], p[2]);
            n++;
        }
    j->cb[cy * j->cp + cx] = rv__chroma_avg(sb, n);
    j->cr[cy * j->cp + cx] = rv__chroma_avg(sr, n);
}

static void to_yuv_rows(void *arg, int y0, int y1)
{
    const to_yuv_job *j = arg;
    const int w = j->w;
    for (int y = y0; y < y1; y++) {
        const unsigned char *s = j->src + y * j->sp;
        unsigned char *d = j->y + y * j->yp;
        for (int x = 0; x < w; x++, s += 4)
            d[x] = (unsigned char)rv__rgb_y(s[0], s[1], s[2]);
    }
    if (!j->sx && !j->sy) { /* 4:4:4 */
        for (int y = y0; y < y1; y++) {
            const unsigned char *s = j->src + y * j->sp;
            unsigned char *b = j->cb + y * j->cp, *r = j->cr + y * j->cp;
            for (int x = 0; x < w; x++, s += 4) {
                b[x] = rv__chroma_avg(rv__rgb_cb256(s[0], s[1], s[2]), 1);
                r[x] = rv__chroma_avg(rv__rgb_cr256(s[0], s[1], s[2]), 1);
            }
        }
        return;
    }
    /* subsampled: whole 2x2 (or 2x1) blocks fast, the odd edges generic */
    const int cy0 = y0 >> j->sy, cy1 = (y1 + (1 << j->sy) - 1) >> j->sy;
    const int cw = (w + (1 << j->sx) - 1) >> j->sx, full_cx = w >> j->sx;
    for (int cy = cy0; cy < cy1; cy++) {
        int full_row = ((cy + 1) << j->sy) <= j->h;
        if (j->sx && j->sy && full_row) {
            const unsigned char *restrict a = j->src + (2 * cy) * j->sp;
            const unsigned char *restrict b = a + j->sp;
            unsigned char *restrict ob = j->cb + cy * j->cp, *restrict orr = j->cr + cy * j->cp;
            for (int cx = 0; cx < full_cx; cx++) {
                const int i = 8 * cx;
                int r = a[i] + a[i + 4] + b[i] + b[i + 4];
                int g = a[i + 1] + a[i + 5] + b[i + 1] + b[i + 5];
                int bl = a[i + 2] + a[i + 6] + b[i + 2] + b[i + 6];
                /* linear: the sum of the four pixels' cb256 is cb256 of the sums */
                ob[cx] = rv__chroma_avg(rv__rgb_cb256(r, g, bl), 4);
                orr[cx] = rv__chroma_avg(rv__rgb_cr256(r, g, bl), 4);
            }
            for (int cx = full_cx; cx < cw; cx++)
                chroma_sample(j, cx, cy);
        } else {
            for (int cx = 0; cx < cw; cx++)
                chroma_sample(j, cx, cy);
        }
    }
}

void rv__rgba_to_yuv(RV_Context *ctx, const unsigned char *src, ptrdiff_t src_pitch, int w,
                     int h, unsigned char *yp, ptrdiff_t ypitch, unsigned char *cb,
                     unsigned char *cr, ptrdiff_t cpitch, int sx, int sy)
{
    to_yuv_job j = {src, src_pitch, ypitch, cpitch, yp, cb, cr, w, h, sx, sy};
    run_rows(ctx, h, to_yuv_rows, &j); /* bands are even: chroma rows are not shared */
}

/* ------------------------------------------------------------------ */
/* Any format -> RGBA8 (display)                                        */
/* ------------------------------------------------------------------ */

/* A 16-bit sample with `depth` significant bits, as 8 bits (rounded). */
static inline int down8(unsigned v, int depth)
{
    unsigned max = (1u << depth) - 1;
    if (v > max)
        v = max;
    return (int)((v * 255u + max / 2) / max);
}

typedef struct disp_job {
    RV_Format fmt;
    const RV_FormatInfo *fi;
    const unsigned char *p[3];
    ptrdiff_t pitch[3];
    unsigned char *dst;
    ptrdiff_t dp;
    int w, depth;
} disp_job;

static void disp_rows(void *arg, int y0, int y1)
{
    const disp_job *j = arg;
    const int w = j->w, depth = j->depth;
    const int sx = j->fi->chroma_shift_x, sy = j->fi->chroma_shift_y;
    for (int y = y0; y < y1; y++) {
        unsigned char *d = j->dst + y * j->dp;
        const unsigned char *r0 = j->p[0] + y * j->pitch[0];
        switch (j->fmt) {
        case RV_FMT_RGBA8:
            memcpy(d, r0, (size_t)w * 4);
            break;
        case RV_FMT_RGBA16:
            for (int x = 0; x < 4 * w; x++)
                d[x] = (unsigned char)down8(((const uint16_t *)r0)[x], depth);
            break;
        case RV_FMT_GRAY8:
            rv__grey_to_rgba(r0, 0, d, 0, w, 1);
            break;
        case RV_FMT_GRAY16:
            for (int x = 0; x < w; x++, d += 4)
                d[0] = d[1] = d[2] = (unsigned char)down8(((const uint16_t *)r0)[x], depth),
                d[3] = 255;
            break;
        case RV_FMT_GRAYF32:
            for (int x = 0; x < w; x++, d += 4) {
                float v = ((const float *)r0)[x] * 255.0f + 0.5f;
                d[0] = d[1] = d[2] = (unsigned char)(v >= 255.0f ? 255 : v > 0.0f ? (int)v : 0);
                d[3] = 255;
            }
            break;
        case RV_FMT_YUV420P8:
        case RV_FMT_YUV444P8: {
            const unsigned char *rb = j->p[1] + (y >> sy) * j->pitch[1];
            const unsigned char *rr = j->p[2] + (y >> sy) * j->pitch[2];
            uint32_t *restrict o = (uint32_t *)d;
            const unsigned char *restrict ly = r0, *restrict lb = rb, *restrict lr = rr;
            if (sx) {
                const int pairs = w / 2, x = 2 * pairs;
                for (int p = 0; p < pairs; p++) {
                    int rv, gv, bv;
                    rv__yuv_terms(lb[p], lr[p], &rv, &gv, &bv);
                    o[2 * p] = rv__yuv_word(ly[2 * p], rv, gv, bv);
                    o[2 * p + 1] = rv__yuv_word(ly[2 * p + 1], rv, gv, bv);
                }
                if (x < w)
                    rv__yuv_to_rgb(r0[x], rb[x >> 1], rr[x >> 1], d + 4 * x), d[4 * x + 3] = 255;
            } else {
                for (int x = 0; x < w; x++) {
                    int rv, gv, bv;
                    rv__yuv_terms(lb[x], lr[x], &rv, &gv, &bv);
                    o[x] = rv__yuv_word(ly[x], rv, gv, bv);
                }
            }
            break;
        }
        case RV_FMT_YUV420P16:
        case RV_FMT_YUV444P16: {
            const uint16_t *ry = (const uint16_t *)r0;
            const uint16_t *rb = (const uint16_t *)(j->p[1] + (y >> sy) * j->pitch[1]);
            const uint16_t *rr = (const uint16_t *)(j->p[2] + (y >> sy) * j->pitch[2]);
            for (int x = 0; x < w; x++, d += 4) {
                rv__yuv_to_rgb(down8(ry[x], depth), down8(rb[x >> sx], depth),
                               down8(rr[x >> sx], depth), d);
                d[3] = 255;
            }
            break;
        }
        default:
            break;
        }
    }
}

int rv__image_to_rgba(RV_Image *img, int bit_depth, unsigned char *dst, ptrdiff_t dst_pitch)
{
    const RV_FormatInfo *fi = img->fi;
    disp_job j;
    memset(&j, 0, sizeof(j));
    if (img->fmt == RV_FMT_COUNT_ || !fi)
        return rv__error(img->ctx, RV_ENOSYS, "cannot display format %d", (int)img->fmt);
    for (int i = 0; i < fi->planes; i++)
        if (!(j.p[i] = rv_image_read(img, i, &j.pitch[i])))
            return rv__error(img->ctx, RV_EIO, "cannot read plane %d of the frame", i);
    if (bit_depth < 1 || bit_depth > 16)
        bit_depth = fi->sample_bytes == 2 || img->fmt == RV_FMT_RGBA16 ? 16 : 8;
    j.fmt = img->fmt;
    j.fi = fi;
    j.dst = dst;
    j.dp = dst_pitch;
    j.w = img->w;
    j.depth = bit_depth;
    run_rows(img->ctx, img->h, disp_rows, &j);
    return 0;
}
