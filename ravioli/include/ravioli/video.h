/*
 * ravioli/video.h - frame sources (camera, Y4M, synthetic, an image file) and
 * sinks (window, Y4M, an image file, null). RV_Streaming (stream.h) drives them; they can also
 * be used on their own.
 *
 * A source delivers frames in its native format (e.g. YUV 4:2:0 from a Y4M
 * file, RGBA8 or raw YUYV-converted RGBA8 from a camera); rv_source_info()
 * says which, so the caller creates frames of that size and format.
 *
 * Every open function (rv_source_open_*, rv_sink_open_*) needs a context:
 * it holds the failure messages and goes with the source or sink. A NULL ctx
 * is RV_EINVAL without a message, as there is no context to hold one
 * (nothing is printed); nothing is opened or created, and *out is set to
 * NULL when out is given.
 *
 * A NULL source or sink (rv_source_info, rv_source_read, rv_sink_write) is
 * RV_EINVAL without a message, for the same reason (nothing is printed);
 * rv_source_dropped, rv_sink_frames and rv_sink_repeats_skipped give 0, the
 * close functions ignore it.
 */
#ifndef RAVIOLI_VIDEO_H
#define RAVIOLI_VIDEO_H

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RV_VideoInfo {
    int width, height;
    RV_Format format;     /* format of the frames rv_source_read() fills */
    int fps_num, fps_den; /* nominal frame rate (0/0 when unknown) */
    int interlaced;       /* 0 progressive, 1 top field first, 2 bottom first */
    long long frames;     /* number of frames when known (files), else -1 */
    int bit_depth;        /* significant bits of each sample: 8 for 8-bit formats; 9..16 for
                           * the 16-bit ones (Y4M C420p10 -> yuv420p16 holding 0..1023);
                           * 0 for grayf32 */
    int packed_yuyv;      /* 1: V4L2 raw mode (RV_V4L2Settings.raw_yuyv): each RGBA8 pixel
                           * holds one YUYV pair, R=Y0 G=Cb B=Y1 A=Cr; the picture is
                           * 2*width wide. 0 otherwise. */
} RV_VideoInfo;

typedef struct RV_Source RV_Source;

/** Synthetic moving test pattern: the default source when there is no camera. */
typedef struct RV_SyntheticSettings {
    int width, height;    /* default 640x480 */
    RV_Format format;     /* default RV_FMT_RGBA8 */
    int fps_num, fps_den; /* default 30/1 */
    long long frames;     /* frames to produce, -1 = endless (default) */
    int realtime;         /* 1: deliver at the frame rate (default); 0: as fast as asked */
} RV_SyntheticSettings;
RV_API void rv_synthetic_settings_default(RV_SyntheticSettings *s);
RV_API int rv_source_open_synthetic(RV_Context *ctx, const RV_SyntheticSettings *s, RV_Source **out);

/** Largest frame a Y4M header may announce, in pixels (W x H): larger sizes
 *  are refused (RV_EOVERFLOW) before anything is allocated. */
#define RV_Y4M_MAX_PIXELS (1LL << 28)

/** Y4M file or pipe ("-" = standard input). A path that does not exist is
 *  RV_ENOENT, one that cannot be opened for another reason RV_EIO; a
 *  malformed header RV_EBADMSG, an unknown colour space RV_ENOSYS. */
typedef struct RV_Y4MSettings {
    int realtime;         /* 1: play at the file's frame rate ("as if live"); 0: as fast as possible (default) */
} RV_Y4MSettings;
RV_API void rv_y4m_settings_default(RV_Y4MSettings *s);
RV_API int rv_source_open_y4m(RV_Context *ctx, const char *path, const RV_Y4MSettings *s,
                              RV_Source **out);

/** V4L2 camera through libv4l2 (RV_ENOSYS when built without libv4l2). A device
 *  path that does not exist (or a device that went away) is RV_ENODEV, not
 *  RV_ENOENT; one that cannot be opened for another reason RV_EIO. */
typedef struct RV_V4L2Settings {
    const char *device;   /* default "/dev/video0" */
    int width, height;    /* requested size; the driver may adjust (re-read after S_FMT) */
    int fps;              /* requested frame rate, 0 = driver default */
    int buffers;          /* mmap buffers, default 4 */
    int reopen;           /* 1: when the camera disappears, reads return RV_EAGAIN and reopen
                           * it once it is back; 0 (default): RV_ENODEV ends the stream */
    int timeout_ms;       /* suggested read timeout, default 1000, for the caller's reference
                           * only: nothing in the library reads it; rv_source_read() takes
                           * its own, and RV_Streaming uses RV_StreamSettings.read_timeout_ms */
    int raw_yuyv;         /* 1: when the camera gives YUYV, deliver it unconverted for a GPU
                           * path (see RV_VideoInfo.packed_yuyv); default 0 = RGBA8 */
} RV_V4L2Settings;
RV_API void rv_v4l2_settings_default(RV_V4L2Settings *s);
RV_API int rv_source_open_v4l2(RV_Context *ctx, const RV_V4L2Settings *s, RV_Source **out);

/** A still image file (PGM, PPM or grey PFM, ravioli/io.h) as a stream of one
 *  frame, of the format rv_image_read_file gives it (gray8, gray16, rgba8,
 *  rgba16, grayf32). The file is read when the source opens, so its errors
 *  come from here: rv_image_read_file's codes and messages (RV_ENOENT, RV_EIO,
 *  RV_EBADMSG, RV_ENOSYS for the kinds it refuses). info: frames 1, frame
 *  rate unknown (0/0); the read after the frame is RV_EPIPE. */
RV_API int rv_source_open_image(RV_Context *ctx, const char *path, RV_Source **out);

/** The source's size, format and rate. RV_EINVAL for a NULL src (no message) or
 *  info (the message on the source's context). */
RV_API int rv_source_info(const RV_Source *src, RV_VideoInfo *info);
/**
 * Reads the next frame into `frame` (size and format of rv_source_info()).
 * Returns 0, RV_EAGAIN when nothing came within timeout_ms (not a frame;
 * timeout_ms < 0 waits without limit), RV_EPIPE at the end of the stream,
 * RV_ENODEV when the device went away, or another negative code.
 * *pts_ns (may be NULL) gets the frame's time on CLOCK_MONOTONIC in ns
 * (camera: capture time; realtime: scheduled time; else time of reading).
 * Live sources deliver the latest frame: a camera drains older queued
 * buffers, realtime files/synthetic skip frames whose time has passed
 * (rv_source_dropped() counts them). A Y4M pipe that pauses returns
 * RV_EAGAIN at timeout_ms wherever it paused; the part of a frame read so
 * far is kept and the next read completes it. See docs/video.md.
 * A NULL src is RV_EINVAL without a message (no context to hold one).
 */
RV_API int rv_source_read(RV_Source *src, RV_Image *frame, long long *pts_ns, int timeout_ms);
/** Frames the source dropped so far to stay live (camera: older queued frames
 *  when the caller was slow; realtime files/synthetic: frames whose time passed). */
RV_API long long rv_source_dropped(const RV_Source *src);
RV_API void rv_source_close(RV_Source **src);

typedef struct RV_Sink RV_Sink;

/** Per-frame figures a sink may show (the window's overlay). */
typedef struct RV_FrameStats {
    long long index;      /* source frame number */
    double fps;           /* processed frames per second, recent average */
    double latency_ms;    /* capture to output */
    double proc_ms;       /* processing time of this frame */
    int spatial_stride, temporal_stride;
    int repeated;         /* 1 when the frame repeats the last output (temporal stride) */
} RV_FrameStats;

RV_API int rv_sink_open_null(RV_Context *ctx, RV_Sink **out);
/**
 * Y4M writer (path or "-" = standard output). YUV and gray frames are written
 * as they are; RGBA8 frames are converted to 4:2:0 (BT.601, limited range,
 * see docs/video.md). A path that cannot be created is RV_ENOENT when a
 * directory on it does not exist, else RV_EIO.
 */
RV_API int rv_sink_open_y4m(RV_Context *ctx, const char *path, const RV_VideoInfo *info, RV_Sink **out);
/** As rv_sink_open_y4m(); RGBA8 frames become `rgb_to` (RV_FMT_YUV420P8 or RV_FMT_YUV444P8). */
RV_API int rv_sink_open_y4m_ex(RV_Context *ctx, const char *path, const RV_VideoInfo *info,
                               RV_Format rgb_to, RV_Sink **out);

/**
 * An image file that takes the one frame of a stream, written by
 * rv_image_write_file: gray8 / gray16 frames as a PGM, rgba8 / rgba16 as a PPM,
 * grayf32 as a PFM; `path` must end in that kind's extension (.pgm, .ppm,
 * .pfm, in any case), else RV_EINVAL before anything is written, as for frames
 * of another format (YUV: use rv_sink_open_y4m). A path whose directory does
 * not exist is RV_ENOENT, one that cannot be written there RV_EIO, both found
 * when the sink opens. The file is written at the first frame; a second frame
 * is RV_EINVAL and leaves the first as written.
 */
RV_API int rv_sink_open_image(RV_Context *ctx, const char *path, const RV_VideoInfo *info, RV_Sink **out);

/**
 * SDL2 window (RV_ENOSYS when built without SDL2). SDL renders only from the
 * thread that initialised video, so open, write and close it from the main
 * thread: a pipeline running stages on other threads hands finished frames
 * to the main thread, which calls rv_sink_write().
 */
RV_API int rv_sink_open_sdl(RV_Context *ctx, const char *title, const RV_VideoInfo *info, RV_Sink **out);
typedef struct RV_SDLSettings {
    const char *title;    /* default "ravioli" */
    int overlay;          /* 1: draw fps, latency and strides in the corner (default) */
    int scale;            /* initial window size = frame size * scale (default 1) */
} RV_SDLSettings;
RV_API void rv_sdl_settings_default(RV_SDLSettings *s);
RV_API int rv_sink_open_sdl_ex(RV_Context *ctx, const RV_SDLSettings *s, const RV_VideoInfo *info,
                               RV_Sink **out);
/**
 * Writes/shows one frame. Returns 0, or RV_EPIPE when the user closed the
 * window (or the pipe), or another negative code. A NULL sink is RV_EINVAL
 * without a message (no context to hold one); a NULL frame RV_EINVAL with one.
 */
RV_API int rv_sink_write(RV_Sink *sink, RV_Image *frame, const RV_FrameStats *stats);
/** Whether a skipped frame should repeat the last output (display: 1) or be left out (file: 0). */
RV_API int rv_sink_repeats_skipped(const RV_Sink *sink);
/** Frames written so far (the null sink's count). */
RV_API long long rv_sink_frames(const RV_Sink *sink);
RV_API void rv_sink_close(RV_Sink **sink);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_VIDEO_H */
