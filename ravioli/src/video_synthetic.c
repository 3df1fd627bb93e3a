/*
 * video_synthetic.c - a moving test pattern: 75% colour bars on the upper
 * two thirds, a scrolling grey ramp below, a white box bouncing across the
 * picture and the frame number in digits at the top left. Frame k is a pure
 * function of (k, width, height, format): two sources with the same
 * settings give identical frames.
 *
 * The pattern is drawn in RGBA8 and converted to the requested format:
 * YUV with BT.601 limited range (video_internal.h), gray as full-range
 * BT.601 luma (77 R + 150 G + 29 B + 128) >> 8, 16-bit formats as v * 257,
 * grayf32 as v / 255.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "video_internal.h"

typedef struct synth {
    RV_SyntheticSettings s;
    long long next;       /* index of the next frame */
    long long t0;         /* realtime: monotonic time of frame 0 */
    unsigned char *rgba;  /* scratch picture for non-RGBA8 formats */
} synth;

/* 0, 1, ..., m, m-1, ..., 1, 0, 1, ... */
static int triangle(long long t, int m)
{
    if (m <= 0)
        return 0;
    long long p = t % (2LL * m);
    return (int)(p <= m ? p : 2LL * m - p);
}

static void draw_pattern(unsigned char *dst, ptrdiff_t pitch, int w, int h, long long k)
{
    static const unsigned char bars[8][3] = {
        {191, 191, 191}, {191, 191, 0}, {0, 191, 191}, {0, 191, 0},
        {191, 0, 191},   {191, 0, 0},   {0, 0, 191},   {0, 0, 0},
    };
    const int split = h * 2 / 3;
    /* every row of the bars is the same, and so is every row of the ramp:
     * draw one of each, copy it down */
    for (int y = 0; y < h; y++) {
        unsigned char *d = dst + y * pitch;
        if (y != 0 && y != split) {
            memcpy(d, dst + (y < split ? 0 : split) * pitch, (size_t)w * 4);
            continue;
        }
        for (int x = 0; x < w; x++, d += 4) {
            if (y < split) {
                const unsigned char *c = bars[(long long)x * 8 / w];
                d[0] = c[0], d[1] = c[1], d[2] = c[2];
            } else {
                unsigned v = (unsigned)(((long long)x * 256 / w + 3 * k) & 255);
                d[0] = d[1] = d[2] = (unsigned char)v;
            }
            d[3] = 255;
        }
    }
    /* bouncing box */
    int bs = (w < h ? w : h) / 8;
    if (bs < 2)
        bs = 2;
    if (bs <= w && bs <= h) {
        int bx = triangle(4 * k, w - bs), by = triangle(3 * k, h - bs);
        for (int y = by; y < by + bs; y++)
            memset(dst + y * pitch + 4 * bx, 255, (size_t)bs * 4);
    }
    /* frame number, black on a white plate */
    char text[24];
    snprintf(text, sizeof(text), "%lld", k);
    int scale = h / 120 > 0 ? h / 120 : 1;
    int tw = (int)strlen(text) * 6 * scale + 2 * scale, th = 9 * scale;
    for (int y = 0; y < th && y < h; y++)
        memset(dst + y * pitch, 255, (size_t)(tw < w ? tw : w) * 4);
    static const unsigned char black[4] = {0, 0, 0, 255};
    rv__font_draw_rgba(dst, pitch, w, h, 2 * scale, scale, scale, text, black);
}

static int luma_full(const unsigned char *p)
{
    return (77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8;
}

static int synth_render(RV_Source *src, RV_Image *frame, long long k)
{
    synth *st = src->priv;
    const int w = frame->w, h = frame->h;
    ptrdiff_t pitch[3];
    unsigned char *p[3] = {NULL, NULL, NULL};
    for (int i = 0; i < frame->nplanes; i++)
        if (!(p[i] = rv_image_write(frame, i, &pitch[i])))
            return rv__error(src->ctx, RV_EIO, "synthetic: cannot write plane %d", i);
    if (frame->fmt == RV_FMT_RGBA8) {
        draw_pattern(p[0], pitch[0], w, h, k);
        return 0;
    }
    const ptrdiff_t rp = (ptrdiff_t)w * 4;
    unsigned char *rgba = st->rgba;
    draw_pattern(rgba, rp, w, h, k);
    switch (frame->fmt) {
    case RV_FMT_RGBA16:
        for (int y = 0; y < h; y++) {
            uint16_t *d = (uint16_t *)(p[0] + y * pitch[0]);
            for (int x = 0; x < 4 * w; x++)
                d[x] = (uint16_t)(rgba[y * rp + x] * 257);
        }
        break;
    case RV_FMT_GRAY8:
    case RV_FMT_GRAY16:
    case RV_FMT_GRAYF32:
        for (int y = 0; y < h; y++) {
            const unsigned char *s = rgba + y * rp;
            for (int x = 0; x < w; x++) {
                int v = luma_full(s + 4 * x);
                if (frame->fmt == RV_FMT_GRAY8)
                    p[0][y * pitch[0] + x] = (unsigned char)v;
                else if (frame->fmt == RV_FMT_GRAY16)
                    ((uint16_t *)(p[0] + y * pitch[0]))[x] = (uint16_t)(v * 257);
                else
                    ((float *)(p[0] + y * pitch[0]))[x] = (float)v / 255.0f;
            }
        }
        break;
    case RV_FMT_YUV420P8:
    case RV_FMT_YUV444P8:
        if (pitch[1] != pitch[2])
            return rv__error(src->ctx, RV_EINVAL, "synthetic: chroma planes differ in pitch");
        rv__rgba_to_yuv(NULL, rgba, rp, w, h, p[0], pitch[0], p[1], p[2], pitch[1],
                        frame->fi->chroma_shift_x, frame->fi->chroma_shift_y);
        break;
    case RV_FMT_YUV420P16:
    case RV_FMT_YUV444P16: {
        /* 8-bit planes in the scratch's tail, then widened */
        const int sx = frame->fi->chroma_shift_x, sy = frame->fi->chroma_shift_y;
        const int cw = (w + (1 << sx) - 1) >> sx, ch = (h + (1 << sy) - 1) >> sy;
        unsigned char *y8 = rgba + (size_t)rp * h;
        unsigned char *b8 = y8 + (size_t)w * h, *r8 = b8 + (size_t)cw * ch;
        rv__rgba_to_yuv(NULL, rgba, rp, w, h, y8, w, b8, r8, cw, sx, sy);
        for (int pl = 0; pl < 3; pl++) {
            const unsigned char *s = pl == 0 ? y8 : pl == 1 ? b8 : r8;
            int pw = pl ? cw : w, ph = pl ? ch : h;
            for (int y = 0; y < ph; y++) {
                uint16_t *d = (uint16_t *)(p[pl] + y * pitch[pl]);
                for (int x = 0; x < pw; x++)
                    d[x] = (uint16_t)(s[y * pw + x] * 257);
            }
        }
        break;
    }
    default:
        return rv__error(src->ctx, RV_ENOSYS, "synthetic: format not supported");
    }
    return 0;
}

static long long frame_time(const synth *st, long long k)
{
    return st->t0 + (long long)((double)k * st->s.fps_den * 1e9 / st->s.fps_num);
}

static int synth_read(RV_Source *src, RV_Image *frame, long long *pts_ns, int timeout_ms)
{
    synth *st = src->priv;
    long long k = st->next;
    if (st->s.realtime) {
        long long now = rv__now_ns();
        if (k == 0 && st->t0 == 0)
            st->t0 = now;
        /* the latest frame whose time has come (live: the past is dropped) */
        long long due = (long long)((double)(now - st->t0) * st->s.fps_num /
                                    ((double)st->s.fps_den * 1e9));
        if (due > k) {
            if (st->s.frames >= 0 && due >= st->s.frames)
                due = st->s.frames - 1 > k ? st->s.frames - 1 : k;
            src->dropped += due - k;
            k = due;
        }
        if (st->s.frames >= 0 && k >= st->s.frames)
            return RV_EPIPE;
        long long t = frame_time(st, k);
        if (t > now) {
            if (timeout_ms >= 0 && t > now + (long long)timeout_ms * 1000000LL) {
                rv__sleep_until_ns(now + (long long)timeout_ms * 1000000LL);
                return RV_EAGAIN;
            }
            rv__sleep_until_ns(t);
        }
        *pts_ns = t;
    } else {
        if (st->s.frames >= 0 && k >= st->s.frames)
            return RV_EPIPE;
        *pts_ns = rv__now_ns();
    }
    int err = synth_render(src, frame, k);
    if (err < 0)
        return err;
    st->next = k + 1;
    return 0;
}

static void synth_close(RV_Source *src)
{
    synth *st = src->priv;
    free(st->rgba);
}

static const struct rv_source_ops synth_ops = {"synthetic", synth_read, synth_close};

RV_API void rv_synthetic_settings_default(RV_SyntheticSettings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->width = 640;
    s->height = 480;
    s->format = RV_FMT_RGBA8;
    s->fps_num = 30;
    s->fps_den = 1;
    s->frames = -1;
    s->realtime = 1;
}

RV_API int rv_source_open_synthetic(RV_Context *ctx, const RV_SyntheticSettings *s,
                                    RV_Source **out)
{
    if (!ctx) { /* no context to report to (video.h) */
        if (out)
            *out = NULL;
        return RV_EINVAL;
    }
    if (!out)
        return rv__error(ctx, RV_EINVAL, "rv_source_open_synthetic: out is NULL");
    *out = NULL;
    RV_SyntheticSettings d;
    rv_synthetic_settings_default(&d);
    if (!s)
        s = &d;
    const RV_FormatInfo *fi = rv_format_info(s->format);
    if (!fi)
        return rv__error(ctx, RV_EINVAL, "rv_source_open_synthetic: bad format %d", (int)s->format);
    if (s->width < 1 || s->height < 1 || s->width > RV_MAX_DIM || s->height > RV_MAX_DIM)
        return rv__error(ctx, RV_EINVAL, "rv_source_open_synthetic: bad size %dx%d", s->width,
                         s->height);
    if (s->fps_num <= 0 || s->fps_den <= 0)
        return rv__error(ctx, RV_EINVAL, "rv_source_open_synthetic: bad frame rate %d/%d",
                         s->fps_num, s->fps_den);
    RV_Source *src = rv__source_new(ctx, &synth_ops, sizeof(synth));
    if (!src)
        return rv__error(ctx, RV_ENOMEM, "rv_source_open_synthetic: out of memory");
    synth *st = src->priv;
    st->s = *s;
    if (s->format != RV_FMT_RGBA8) {
        /* RGBA picture + room for three 8-bit planes (16-bit YUV path) */
        size_t n = (size_t)s->width * s->height;
        if (!(st->rgba = malloc(n * 4 + n * 3))) {
            rv_source_close(&src);
            return rv__error(ctx, RV_ENOMEM, "rv_source_open_synthetic: out of memory");
        }
    }
    src->info.width = s->width;
    src->info.height = s->height;
    src->info.format = s->format;
    src->info.fps_num = s->fps_num;
    src->info.fps_den = s->fps_den;
    src->info.frames = s->frames < 0 ? -1 : s->frames;
    src->info.bit_depth = fi->sample_bytes == 2 || s->format == RV_FMT_RGBA16 ? 16
                          : s->format == RV_FMT_GRAYF32                    ? 0
                                                                           : 8;
    *out = src;
    return 0;
}
