/*
 * sdl.c - SDL2 window sink (built when SDL2 is found).
 *
 * One window, one renderer, one streaming texture of the frame size. For
 * yuv420p8 frames it is an IYUV texture: the planes go to SDL as they are
 * (SDL_UpdateYUVTexture, BT.601 conversion mode) and the renderer converts -
 * on the GPU with an accelerated renderer. For any other format it is RGBA32
 * and each write converts the frame to RGBA8 straight into the locked texture
 * (rv__image_to_rgba: BT.601 limited range for YUV; 16-bit samples scaled
 * from RV_VideoInfo.bit_depth). Then the overlay, then present. The window
 * may be resized: the picture keeps its aspect ratio (SDL logical size).
 * Every write checks the frame's size and format against the window's.
 *
 * Overlay (top left, 5x7 font on a darkened plate):
 *   FPS <fps>  LAT <latency> MS
 *   S <spatial stride>  T <temporal stride>  #<frame index>
 * The fps shown is RV_FrameStats.fps when given, else measured here from the
 * intervals between writes.
 *
 * Threading: SDL renders only from the thread that initialised its video
 * subsystem, so open, write and close the sink on the main thread; a pipeline
 * with worker threads hands finished frames to the main thread.
 *
 * Closing the window (or Escape / q) makes the next write return RV_EPIPE.
 */
#include <SDL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdl_hook.h"
#include "video_internal.h"

typedef struct sdl_sink {
    RV_SDLSettings s;
    char title[256];
    int inited;
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    int closed;
    int iyuv;             /* 1: IYUV texture (yuv420p8 frames) */
    unsigned char *plate; /* IYUV: the overlay's corner as RGBA8, then as 4:2:0 planes */
    long long last_ns;
    double fps;           /* measured, exponential average */
} sdl_sink;

/* The overlay's two lines and the size of its plate (clipped to w x h). */
static void overlay_layout(const sdl_sink *st, const RV_FrameStats *stats, int w, int h, char l1[64],
                           char l2[64], int *sc, int *bw, int *bh)
{
    double fps = stats && stats->fps > 0 ? stats->fps : st->fps;
    if (stats) {
        snprintf(l1, 64, "FPS %.1f  LAT %.1f MS", fps, stats->latency_ms);
        snprintf(l2, 64, "S %d  T %d  #%lld%s", stats->spatial_stride, stats->temporal_stride, stats->index,
                 stats->repeated ? " R" : "");
    } else {
        snprintf(l1, 64, "FPS %.1f", fps);
        l2[0] = '\0';
    }
    *sc = w >= 640 ? 2 : 1;
    const int pad = 2 * *sc;
    int tw = (int)(strlen(l1) > strlen(l2) ? strlen(l1) : strlen(l2)) * 6 * *sc;
    int th = (l2[0] ? 2 : 1) * 9 * *sc;
    *bw = tw + 2 * pad < w ? tw + 2 * pad : w;
    *bh = th + 2 * pad < h ? th + 2 * pad : h;
}

/* Darkens the plate (bw x bh at the top left of an RGBA8 picture of w x h)
 * and draws the lines on it. */
static void draw_plate(unsigned char *px, ptrdiff_t pitch, int w, int h, int sc, int bw, int bh,
                       const char *l1, const char *l2)
{
    const int pad = 2 * sc;
    for (int y = 0; y < bh; y++) {
        unsigned char *d = px + y * pitch;
        for (int x = 0; x < bw * 4; x++)
            if ((x & 3) != 3)
                d[x] = (unsigned char)(d[x] / 4);
    }
    static const unsigned char white[4] = {255, 255, 255, 255};
    rv__font_draw_rgba(px, pitch, w, h, pad, pad, sc, l1, white);
    if (l2[0])
        rv__font_draw_rgba(px, pitch, w, h, pad, pad + 9 * sc, sc, l2, white);
}

static void draw_overlay(sdl_sink *st, unsigned char *px, ptrdiff_t pitch, int w, int h,
                         const RV_FrameStats *stats)
{
    char l1[64], l2[64];
    int sc, bw, bh;
    overlay_layout(st, stats, w, h, l1, l2, &sc, &bw, &bh);
    draw_plate(px, pitch, w, h, sc, bw, bh, l1, l2);
}

/* IYUV: the plate's corner of the frame to RGBA8, drawn on, back to 4:2:0,
 * and into the texture over the frame's planes (an even rectangle). */
static int overlay_iyuv(RV_Sink *sink, const unsigned char *const pl[3], const ptrdiff_t pitch[3],
                        const RV_FrameStats *stats)
{
    sdl_sink *st = sink->priv;
    const int w = sink->info.width, h = sink->info.height;
    char l1[64], l2[64];
    int sc, bw, bh;
    overlay_layout(st, stats, w, h, l1, l2, &sc, &bw, &bh);
    bw &= ~1;
    bh &= ~1;
    if (bw < 2 || bh < 2)
        return 0;
    unsigned char *rgba = st->plate, *py = rgba + (size_t)bw * bh * 4;
    unsigned char *pu = py + (size_t)bw * bh, *pv = pu + (size_t)bw * bh / 4;
    for (int y = 0; y < bh; y++)
        for (int x = 0; x < bw; x++) {
            unsigned char *o = rgba + ((size_t)y * bw + x) * 4;
            rv__yuv_to_rgb(pl[0][y * pitch[0] + x], pl[1][(y >> 1) * pitch[1] + (x >> 1)],
                           pl[2][(y >> 1) * pitch[2] + (x >> 1)], o);
            o[3] = 255;
        }
    draw_plate(rgba, (ptrdiff_t)bw * 4, bw, bh, sc, bw, bh, l1, l2);
    rv__rgba_to_yuv(NULL, rgba, (ptrdiff_t)bw * 4, bw, bh, py, bw, pu, pv, bw / 2, 1, 1);
    SDL_Rect r = {0, 0, bw, bh};
    if (SDL_UpdateYUVTexture(st->tex, &r, py, bw, pu, bw / 2, pv, bw / 2) != 0)
        return rv__error(sink->ctx, RV_EIO, "sdl: SDL_UpdateYUVTexture: %s", SDL_GetError());
    return 0;
}

static void pump_events(sdl_sink *st)
{
    SDL_Event ev;
    Uint32 id = SDL_GetWindowID(st->win);
    while (SDL_PollEvent(&ev)) {
        if (ev.type == SDL_QUIT)
            st->closed = 1;
        else if (ev.type == SDL_WINDOWEVENT && ev.window.windowID == id &&
                 ev.window.event == SDL_WINDOWEVENT_CLOSE)
            st->closed = 1;
        else if (ev.type == SDL_KEYDOWN && ev.key.windowID == id &&
                 (ev.key.keysym.sym == SDLK_ESCAPE || ev.key.keysym.sym == SDLK_q))
            st->closed = 1;
    }
}

static int sdl_write(RV_Sink *sink, RV_Image *frame, const RV_FrameStats *stats)
{
    sdl_sink *st = sink->priv;
    int err = rv__video_check_frame(sink->ctx, "sdl window", &sink->info, frame);
    if (err < 0)
        return err;
    pump_events(st);
    if (st->closed)
        return rv__error(sink->ctx, RV_EPIPE, "sdl window \"%s\" was closed", st->title);

    long long now = rv__now_ns();
    if (st->last_ns) {
        double inst = 1e9 / (double)(now - st->last_ns > 0 ? now - st->last_ns : 1);
        st->fps = st->fps > 0 ? 0.9 * st->fps + 0.1 * inst : inst;
    }
    st->last_ns = now;

    if (st->iyuv) {
        const unsigned char *pl[3];
        ptrdiff_t pp[3];
        for (int i = 0; i < 3; i++)
            if (!(pl[i] = rv_image_read(frame, i, &pp[i])))
                return rv__error(sink->ctx, RV_EIO, "sdl: cannot read plane %d of the frame", i);
        if (SDL_UpdateYUVTexture(st->tex, NULL, pl[0], (int)pp[0], pl[1], (int)pp[1], pl[2], (int)pp[2]) != 0)
            return rv__error(sink->ctx, RV_EIO, "sdl: SDL_UpdateYUVTexture: %s", SDL_GetError());
        if (st->s.overlay && (err = overlay_iyuv(sink, pl, pp, stats)) < 0)
            return err;
    } else {
        void *pixels;
        int pitch;
        if (SDL_LockTexture(st->tex, NULL, &pixels, &pitch) != 0)
            return rv__error(sink->ctx, RV_EIO, "sdl: SDL_LockTexture: %s", SDL_GetError());
        err = rv__image_to_rgba(frame, sink->info.bit_depth, pixels, pitch);
        if (err == 0 && st->s.overlay)
            draw_overlay(st, pixels, pitch, frame->w, frame->h, stats);
        SDL_UnlockTexture(st->tex);
        if (err < 0)
            return err;
    }
    SDL_SetRenderDrawColor(st->ren, 0, 0, 0, 255);
    SDL_RenderClear(st->ren);
    if (SDL_RenderCopy(st->ren, st->tex, NULL, NULL) != 0)
        return rv__error(sink->ctx, RV_EIO, "sdl: SDL_RenderCopy: %s", SDL_GetError());
    SDL_RenderPresent(st->ren);
    return 0;
}

static void sdl_close(RV_Sink *sink)
{
    sdl_sink *st = sink->priv;
    if (st->tex)
        SDL_DestroyTexture(st->tex);
    if (st->ren)
        SDL_DestroyRenderer(st->ren);
    if (st->win)
        SDL_DestroyWindow(st->win);
    free(st->plate);
    if (st->inited)
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

static const struct rv_sink_ops sdl_ops = {"sdl", sdl_write, sdl_close};

RV_API void *rv__sink_sdl_window(RV_Sink *sink)
{
    return sink && sink->ops == &sdl_ops ? ((sdl_sink *)sink->priv)->win : NULL;
}

RV_API int rv_sink_open_sdl_ex(RV_Context *ctx, const RV_SDLSettings *s, const RV_VideoInfo *info,
                               RV_Sink **out)
{
    if (!ctx) { /* no context to report to (video.h): no window is opened */
        if (out)
            *out = NULL;
        return RV_EINVAL;
    }
    if (!out || !info)
        return rv__error(ctx, RV_EINVAL, "rv_sink_open_sdl: NULL argument");
    *out = NULL;
    RV_SDLSettings d;
    rv_sdl_settings_default(&d);
    if (!s)
        s = &d;
    if (!rv_format_info(info->format) || info->width < 1 || info->height < 1 ||
        info->width > 16384 || info->height > 16384)
        return rv__error(ctx, RV_EINVAL, "rv_sink_open_sdl: bad frame size or format");
    int scale = s->scale >= 1 && s->scale <= 8 ? s->scale : 1;
    RV_Sink *sink = rv__sink_new(ctx, &sdl_ops, sizeof(sdl_sink));
    if (!sink)
        return rv__error(ctx, RV_ENOMEM, "rv_sink_open_sdl: out of memory");
    sdl_sink *st = sink->priv;
    sink->info = *info;
    sink->repeats_skipped = 1;
    st->s = *s;
    snprintf(st->title, sizeof(st->title), "%s", s->title ? s->title : "ravioli");
    st->s.title = st->title;
    st->iyuv = info->format == RV_FMT_YUV420P8;
    /* the plate: at most 63 characters (12 px at scale 2) + padding, 2 lines; 5.5 bytes a pixel */
    if (st->iyuv && !(st->plate = malloc((size_t)768 * 48 * 6))) {
        rv_sink_close(&sink);
        return rv__error(ctx, RV_ENOMEM, "rv_sink_open_sdl: out of memory");
    }

    const char *what = NULL;
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
        what = "SDL_Init(VIDEO)";
    else if ((st->inited = 1,
              !(st->win = SDL_CreateWindow(st->title, SDL_WINDOWPOS_UNDEFINED,
                                           SDL_WINDOWPOS_UNDEFINED, info->width * scale,
                                           info->height * scale, SDL_WINDOW_RESIZABLE))))
        what = "SDL_CreateWindow";
    else if (!(st->ren = SDL_CreateRenderer(st->win, -1, 0)) &&
             !(st->ren = SDL_CreateRenderer(st->win, -1, SDL_RENDERER_SOFTWARE)))
        what = "SDL_CreateRenderer";
    else if (SDL_RenderSetLogicalSize(st->ren, info->width, info->height) != 0)
        what = "SDL_RenderSetLogicalSize";
    else if ((st->iyuv && (SDL_SetYUVConversionMode(SDL_YUV_CONVERSION_BT601), 0)) ||
             !(st->tex = SDL_CreateTexture(st->ren, st->iyuv ? SDL_PIXELFORMAT_IYUV : SDL_PIXELFORMAT_RGBA32,
                                           SDL_TEXTUREACCESS_STREAMING, info->width,
                                           info->height)))
        what = "SDL_CreateTexture";
    if (what) {
        int err = rv__error(ctx, RV_EIO, "rv_sink_open_sdl: %s failed: %s", what, SDL_GetError());
        rv_sink_close(&sink);
        return err;
    }
    SDL_SetTextureBlendMode(st->tex, SDL_BLENDMODE_NONE);
    *out = sink;
    return 0;
}
