/*
 * video_image.c - a still image file as a stream of one frame, and a sink
 * that writes the one frame of a stream into an image file (PGM, PPM, grey
 * PFM: ravioli/io.h). ravioli-run's image:PATH source and sink use them, so
 * that a chain of stages (e.g. the DWT's dwt / idwt) runs on a picture.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "video_internal.h"
#include "ravioli/io.h"

typedef struct image_src {
    RV_Image *img; /* read when the source opened, freed when it closes (the
                    * reads run on the streaming capture thread; the image
                    * belongs to the context's thread) */
    int delivered;
    char name[256];
} image_src;

static int image_read(RV_Source *src, RV_Image *frame, long long *pts_ns, int timeout_ms)
{
    (void)timeout_ms;
    image_src *st = src->priv;
    if (st->delivered)
        return RV_EPIPE;
    int err = rv__video_check_frame(src->ctx, "image source", &src->info, frame);
    if (err < 0)
        return err;
    ptrdiff_t sp = 0, dp = 0;
    const unsigned char *s = rv_image_read(st->img, 0, &sp);
    unsigned char *d = rv_image_write(frame, 0, &dp);
    if (!s || !d)
        return rv__error(src->ctx, RV_EIO, "image %s: cannot reach the frame's pixels", st->name);
    const size_t row = (size_t)frame->w * (size_t)frame->fi->sample_bytes;
    for (int y = 0; y < frame->h; y++)
        memcpy(d + (ptrdiff_t)y * dp, s + (ptrdiff_t)y * sp, row);
    st->delivered = 1; /* one frame: the next read is the end */
    if (pts_ns)
        *pts_ns = rv__now_ns();
    return 0;
}

static void image_src_close(RV_Source *src)
{
    image_src *st = src->priv;
    if (st)
        rv_image_destroy(&st->img);
}

static const struct rv_source_ops image_src_ops = {"image", image_read, image_src_close};

RV_API int rv_source_open_image(RV_Context *ctx, const char *path, RV_Source **out)
{
    if (!ctx) { /* no context to report to (video.h): nothing is opened */
        if (out)
            *out = NULL;
        return RV_EINVAL;
    }
    if (!out || !path)
        return rv__error(ctx, RV_EINVAL, "rv_source_open_image: NULL argument");
    *out = NULL;
    RV_Image *img = NULL;
    int err = rv_image_read_file(ctx, path, &img); /* its message names the file and what is wrong */
    if (err < 0)
        return err;
    RV_Source *src = rv__source_new(ctx, &image_src_ops, sizeof(image_src));
    if (!src) {
        rv_image_destroy(&img);
        return rv__error(ctx, RV_ENOMEM, "rv_source_open_image: out of memory");
    }
    image_src *st = src->priv;
    st->img = img;
    snprintf(st->name, sizeof(st->name), "%s", path);
    src->info.width = img->w;
    src->info.height = img->h;
    src->info.format = img->fmt;
    src->info.frames = 1;
    src->info.bit_depth = img->fi->elem_type == RV_ET_F32                                  ? 0
                          : img->fi->elem_type == RV_ET_U16 || img->fi->elem_type == RV_ET_RGBA16 ? 16
                                                                                                : 8;
    *out = src;
    return 0;
}

/* ------------------------------------------------------------------ */

typedef struct image_sink {
    char path[4096];
} image_sink;

/* The file kind rv_image_write_file writes for frames of `fmt` (io.h): its
 * extension and name; NULL when it writes none. */
static const char *image_kind(RV_Format fmt, const char **kind)
{
    switch (fmt) {
    case RV_FMT_GRAY8:
    case RV_FMT_GRAY16: *kind = "a PGM"; return ".pgm";
    case RV_FMT_RGBA8:
    case RV_FMT_RGBA16: *kind = "a PPM"; return ".ppm";
    case RV_FMT_GRAYF32: *kind = "a PFM"; return ".pfm";
    default: return NULL;
    }
}

static int image_write(RV_Sink *sink, RV_Image *frame, const RV_FrameStats *stats)
{
    (void)stats;
    image_sink *st = sink->priv;
    int err = rv__video_check_frame(sink->ctx, "image sink", &sink->info, frame);
    if (err < 0)
        return err;
    if (sink->frames > 0)
        return rv__error(sink->ctx, RV_EINVAL,
                         "image %s: an image file takes one frame; the stream has more (the first is written)",
                         st->path);
    return rv_image_write_file(frame, st->path);
}

static const struct rv_sink_ops image_sink_ops = {"image", image_write, NULL};

RV_API int rv_sink_open_image(RV_Context *ctx, const char *path, const RV_VideoInfo *info, RV_Sink **out)
{
    if (!ctx) {
        if (out)
            *out = NULL;
        return RV_EINVAL;
    }
    if (!out || !path || !info)
        return rv__error(ctx, RV_EINVAL, "rv_sink_open_image: NULL argument");
    *out = NULL;
    const RV_FormatInfo *fi = rv_format_info(info->format);
    const char *kind = NULL, *ext = image_kind(info->format, &kind);
    if (!ext)
        return rv__error(ctx, RV_EINVAL,
                         "image %s: %s frames have no image file kind (PGM: gray8, gray16; PPM: rgba8, rgba16; "
                         "PFM: grayf32)",
                         path, fi ? fi->name : "unknown");
    const size_t n = strlen(path);
    if (n < 4 || strcasecmp(path + n - 4, ext) != 0)
        return rv__error(ctx, RV_EINVAL, "image %s: %s frames are written as %s: the name must end in %s", path,
                         fi->name, kind, ext);
    if (n >= sizeof(((image_sink *)0)->path))
        return rv__error(ctx, RV_EINVAL, "image: path too long");
    /* A file that cannot be created is found now, before any frame: its
     * directory must exist and be writable (common.h's rule for paths). */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    else
        snprintf(dir, sizeof(dir), ".");
    if (access(dir, W_OK | X_OK) != 0) {
        const int e = errno;
        return rv__error(ctx, rv__path_error(e), "image %s: cannot be created: %s", path, strerror(e));
    }
    RV_Sink *sink = rv__sink_new(ctx, &image_sink_ops, sizeof(image_sink));
    if (!sink)
        return rv__error(ctx, RV_ENOMEM, "rv_sink_open_image: out of memory");
    image_sink *st = sink->priv;
    memcpy(st->path, path, n + 1);
    sink->info = *info;
    *out = sink;
    return 0;
}
