/*
 * video_core.c - RV_Source / RV_Sink dispatch, the null sink, time helpers,
 * and the RV_ENOSYS stand-ins for parts left out of the build (V4L2, SDL2).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "video_internal.h"

long long rv__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void rv__sleep_until_ns(long long t)
{
    struct timespec ts = {(time_t)(t / 1000000000LL), (long)(t % 1000000000LL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

RV_Source *rv__source_new(RV_Context *ctx, const struct rv_source_ops *ops, size_t priv_size)
{
    RV_Source *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    if (priv_size && !(s->priv = calloc(1, priv_size))) {
        free(s);
        return NULL;
    }
    s->ctx = ctx;
    s->ops = ops;
    s->info.frames = -1;
    s->info.bit_depth = 8;
    return s;
}

RV_Sink *rv__sink_new(RV_Context *ctx, const struct rv_sink_ops *ops, size_t priv_size)
{
    RV_Sink *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    if (priv_size && !(s->priv = calloc(1, priv_size))) {
        free(s);
        return NULL;
    }
    s->ctx = ctx;
    s->ops = ops;
    return s;
}

int rv__video_check_frame(RV_Context *ctx, const char *who, const RV_VideoInfo *info,
                          const RV_Image *frame)
{
    if (!frame)
        return rv__error(ctx, RV_EINVAL, "%s: frame is NULL", who);
    if (frame->w != info->width || frame->h != info->height || frame->fmt != info->format) {
        const RV_FormatInfo *a = rv_format_info(frame->fmt), *b = rv_format_info(info->format);
        return rv__error(ctx, RV_EINVAL, "%s: frame is %dx%d %s, the stream is %dx%d %s", who,
                         frame->w, frame->h, a ? a->name : "?", info->width, info->height,
                         b ? b->name : "?");
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Sources                                                              */
/* ------------------------------------------------------------------ */

/* A NULL source or sink has no context to hold a message or log it: these
 * return RV_EINVAL and say nothing (video.h), as rv_source_dropped and the
 * other neighbours do for NULL. */

RV_API int rv_source_info(const RV_Source *src, RV_VideoInfo *info)
{
    if (!src)
        return RV_EINVAL;
    if (!info)
        return rv__error(src->ctx, RV_EINVAL, "rv_source_info: info is NULL");
    *info = src->info;
    return 0;
}

RV_API int rv_source_read(RV_Source *src, RV_Image *frame, long long *pts_ns, int timeout_ms)
{
    if (!src)
        return RV_EINVAL;
    int err = rv__video_check_frame(src->ctx, "rv_source_read", &src->info, frame);
    if (err < 0)
        return err;
    long long pts = 0;
    err = src->ops->read(src, frame, &pts, timeout_ms);
    if (err == 0 && pts_ns)
        *pts_ns = pts;
    return err;
}

RV_API long long rv_source_dropped(const RV_Source *src)
{
    return src ? src->dropped : 0;
}

RV_API void rv_source_close(RV_Source **src)
{
    if (!src || !*src)
        return;
    if ((*src)->ops->close)
        (*src)->ops->close(*src);
    free((*src)->priv);
    free(*src);
    *src = NULL;
}

/* ------------------------------------------------------------------ */
/* Sinks                                                                */
/* ------------------------------------------------------------------ */

RV_API int rv_sink_write(RV_Sink *sink, RV_Image *frame, const RV_FrameStats *stats)
{
    if (!sink)
        return RV_EINVAL;
    if (!frame)
        return rv__error(sink->ctx, RV_EINVAL, "rv_sink_write: frame is NULL");
    int err = sink->ops->write(sink, frame, stats);
    if (err == 0)
        sink->frames++;
    return err;
}

RV_API int rv_sink_repeats_skipped(const RV_Sink *sink)
{
    return sink ? sink->repeats_skipped : 0;
}

RV_API long long rv_sink_frames(const RV_Sink *sink)
{
    return sink ? sink->frames : 0;
}

RV_API void rv_sink_close(RV_Sink **sink)
{
    if (!sink || !*sink)
        return;
    if ((*sink)->ops->close)
        (*sink)->ops->close(*sink);
    free((*sink)->priv);
    free(*sink);
    *sink = NULL;
}

/* The null sink only counts frames. It is opened without a format, so the
 * first frame fixes size and format and every later frame is checked
 * against them, as the other sinks check against what they were opened with. */
static int null_write(RV_Sink *sink, RV_Image *frame, const RV_FrameStats *stats)
{
    (void)stats;
    if (sink->frames == 0 && sink->info.width == 0) {
        sink->info.width = frame->w;
        sink->info.height = frame->h;
        sink->info.format = frame->fmt;
        return 0;
    }
    return rv__video_check_frame(sink->ctx, "null sink", &sink->info, frame);
}

static const struct rv_sink_ops null_sink_ops = {"null", null_write, NULL};

RV_API int rv_sink_open_null(RV_Context *ctx, RV_Sink **out)
{
    if (!ctx) { /* no context to report to (video.h) */
        if (out)
            *out = NULL;
        return RV_EINVAL;
    }
    if (!out)
        return rv__error(ctx, RV_EINVAL, "rv_sink_open_null: out is NULL");
    *out = rv__sink_new(ctx, &null_sink_ops, 0);
    if (!*out)
        return rv__error(ctx, RV_ENOMEM, "rv_sink_open_null: out of memory");
    return 0;
}

/* ------------------------------------------------------------------ */
/* Settings defaults and parts left out of the build                    */
/* ------------------------------------------------------------------ */

RV_API void rv_v4l2_settings_default(RV_V4L2Settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->device = "/dev/video0";
    s->width = 640;
    s->height = 480;
    s->fps = 0;
    s->buffers = 4;
    s->reopen = 0;
    s->timeout_ms = 1000;
    s->raw_yuyv = 0;
}

RV_API void rv_sdl_settings_default(RV_SDLSettings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->title = "ravioli";
    s->overlay = 1;
    s->scale = 1;
}

RV_API int rv_sink_open_sdl(RV_Context *ctx, const char *title, const RV_VideoInfo *info,
                            RV_Sink **out)
{
    RV_SDLSettings s;
    rv_sdl_settings_default(&s);
    if (title)
        s.title = title;
    return rv_sink_open_sdl_ex(ctx, &s, info, out);
}

#ifndef RV_HAVE_V4L2
RV_API int rv_source_open_v4l2(RV_Context *ctx, const RV_V4L2Settings *s, RV_Source **out)
{
    (void)s;
    if (out)
        *out = NULL;
    if (!ctx)
        return RV_EINVAL;
    return rv__error(ctx, RV_ENOSYS,
                     "rv_source_open_v4l2: ravioli was built without libv4l2 (install "
                     "libv4l-dev and reconfigure)");
}
#endif

#ifndef RV_HAVE_SDL2
RV_API int rv_sink_open_sdl_ex(RV_Context *ctx, const RV_SDLSettings *s, const RV_VideoInfo *info,
                               RV_Sink **out)
{
    (void)s;
    (void)info;
    if (out)
        *out = NULL;
    if (!ctx)
        return RV_EINVAL;
    return rv__error(ctx, RV_ENOSYS,
                     "rv_sink_open_sdl: ravioli was built without SDL2 (install libsdl2-dev "
                     "and reconfigure)");
}
#endif
