/*
 * stream_fallback.c - weak stand-ins for the video I/O (video.h) and the
 * adaptation controller (adapt.h), so that RV_Streaming, ravioli-run and
 * their tests build and run in a tree where those components are not
 * there yet. Every function here is a *weak* definition: the real ones
 * (src/video*.c, src/adapt.c) are strong and replace these at link time,
 * so nothing here is used once those components are in the library.
 *
 * The stand-ins say "not supported" (RV_ENOSYS); RV_Streaming then runs
 * without adaptation, and ravioli-run reports the source as unavailable.
 */
#include <string.h>

#include "internal.h"
#include "ravioli/adapt.h"
#include "ravioli/video.h"

#define RV_WEAK __attribute__((weak))

RV_API RV_WEAK void rv_synthetic_settings_default(RV_SyntheticSettings *s)
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

RV_API RV_WEAK int rv_source_open_synthetic(RV_Context *ctx, const RV_SyntheticSettings *s, RV_Source **out)
{
    (void)s;
    if (out)
        *out = NULL;
    return ctx ? rv__error(ctx, RV_ENOSYS, "the synthetic source is not in this build") : RV_ENOSYS;
}

RV_API RV_WEAK void rv_y4m_settings_default(RV_Y4MSettings *s)
{
    if (s)
        memset(s, 0, sizeof(*s));
}

RV_API RV_WEAK int rv_source_open_y4m(RV_Context *ctx, const char *path, const RV_Y4MSettings *s,
                                      RV_Source **out)
{
    (void)path;
    (void)s;
    if (out)
        *out = NULL;
    return ctx ? rv__error(ctx, RV_ENOSYS, "the Y4M source is not in this build") : RV_ENOSYS;
}

RV_API RV_WEAK void rv_v4l2_settings_default(RV_V4L2Settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->device = "/dev/video0";
    s->buffers = 4;
    s->timeout_ms = 1000;
}

RV_API RV_WEAK int rv_source_open_v4l2(RV_Context *ctx, const RV_V4L2Settings *s, RV_Source **out)
{
    (void)s;
    if (out)
        *out = NULL;
    return ctx ? rv__error(ctx, RV_ENOSYS, "the V4L2 source is not in this build") : RV_ENOSYS;
}

RV_API RV_WEAK int rv_source_info(const RV_Source *src, RV_VideoInfo *info)
{
    (void)src;
    (void)info;
    return RV_ENOSYS;
}

RV_API RV_WEAK int rv_source_read(RV_Source *src, RV_Image *frame, long long *pts_ns, int timeout_ms)
{
    (void)src;
    (void)frame;
    (void)pts_ns;
    (void)timeout_ms;
    return RV_ENOSYS;
}

RV_API RV_WEAK void rv_source_close(RV_Source **src)
{
    if (src)
        *src = NULL;
}

RV_API RV_WEAK int rv_sink_open_null(RV_Context *ctx, RV_Sink **out)
{
    if (out)
        *out = NULL;
    return ctx ? rv__error(ctx, RV_ENOSYS, "the null sink is not in this build") : RV_ENOSYS;
}

RV_API RV_WEAK int rv_sink_open_y4m(RV_Context *ctx, const char *path, const RV_VideoInfo *info,
                                    RV_Sink **out)
{
    (void)path;
    (void)info;
    if (out)
        *out = NULL;
    return ctx ? rv__error(ctx, RV_ENOSYS, "the Y4M sink is not in this build") : RV_ENOSYS;
}

RV_API RV_WEAK int rv_sink_open_sdl(RV_Context *ctx, const char *title, const RV_VideoInfo *info,
                                    RV_Sink **out)
{
    (void)title;
    (void)info;
    if (out)
        *out = NULL;
    return ctx ? rv__error(ctx, RV_ENOSYS, "the SDL2 window sink is not in this build") : RV_ENOSYS;
}

RV_API RV_WEAK int rv_sink_write(RV_Sink *sink, RV_Image *frame, const RV_FrameStats *stats)
{
    (void)sink;
    (void)frame;
    (void)stats;
    return RV_ENOSYS;
}

RV_API RV_WEAK int rv_sink_repeats_skipped(const RV_Sink *sink)
{
    (void)sink;
    return 0;
}

RV_API RV_WEAK void rv_sink_close(RV_Sink **sink)
{
    if (sink)
        *sink = NULL;
}

RV_API RV_WEAK void rv_adapt_settings_default(RV_AdaptSettings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->priority = RV_PRIORITY_TEMPORAL;
    s->headroom = 0.85;
    s->max_spatial = 8;
    s->max_temporal = 8;
    s->enabled = 1;
}

RV_API RV_WEAK int rv_adapt_create(RV_Adapt **out, const RV_AdaptSettings *s)
{
    (void)s;
    if (out)
        *out = NULL;
    return RV_ENOSYS;
}

RV_API RV_WEAK void rv_adapt_destroy(RV_Adapt **a)
{
    if (a)
        *a = NULL;
}

RV_API RV_WEAK int rv_adapt_update(RV_Adapt *a, double now_s, double proc_s, int s_spatial, int s_temporal)
{
    (void)a;
    (void)now_s;
    (void)proc_s;
    (void)s_spatial;
    (void)s_temporal;
    return 0;
}

RV_API RV_WEAK void rv_adapt_strides(const RV_Adapt *a, int *s_spatial, int *s_temporal)
{
    (void)a;
    (void)s_spatial;
    (void)s_temporal;
}
