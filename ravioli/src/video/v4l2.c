/*
 * v4l2.c - V4L2 camera source through libv4l2 (built when libv4l2 is found).
 *
 * Capture is mmap streaming on a non-blocking descriptor:
 *   open -> QUERYCAP -> ENUM_FMT -> S_FMT (size re-read) -> S_PARM
 *   -> REQBUFS -> QUERYBUF + mmap + QBUF for each buffer -> STREAMON;
 *   read: poll(timeout) -> DQBUF until EAGAIN -> convert latest -> QBUF.
 *
 * - Every device call goes through libv4l2 (or the test's table, see
 *   v4l2_devops.h).
 * - Formats: the camera's native (not V4L2_FMT_FLAG_EMULATED) YUYV, UYVY,
 *   RGB24, BGR24 or GREY is preferred, converted here to RGBA8 (BT.601
 *   limited range, video_internal.h); otherwise libv4l2's emulated RGB24
 *   (libv4lconvert decodes e.g. MJPEG) is asked for and expanded.
 * - Latest frame: a read drains every filled buffer and delivers only the
 *   newest; older ones are requeued at once and counted in
 *   rv_source_dropped(). A slow caller therefore never gets a stale frame.
 * - A buffer flagged V4L2_BUF_FLAG_ERROR, or shorter than a frame, is
 *   requeued and not delivered.
 * - poll() timing out is RV_EAGAIN; EINTR and EAGAIN are retried within the
 *   read's time limit.
 * - ENODEV (camera unplugged) ends the stream with RV_ENODEV, or with
 *   `reopen` is logged, answered RV_EAGAIN, and the device is opened again
 *   by later reads once it is back (same size and format required).
 * - GPU hook: with raw_yuyv a YUYV camera's bytes are delivered unconverted
 *   (RV_VideoInfo.packed_yuyv); the conversion step is one function pointer
 *   (`convert`) chosen at format negotiation.
 */
#include <fcntl.h>
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "v4l2_devops.h"
#include "video_internal.h"

#define MAX_BUFFERS 32

typedef struct v4l2_src v4l2_src;
typedef void (*convert_fn)(const v4l2_src *st, const unsigned char *data, unsigned char *dst,
                           ptrdiff_t dst_pitch);

struct v4l2_src {
    rv_v4l2_devops ops;
    RV_V4L2Settings s;
    char dev[256];
    int fd;               /* -1 when closed (gone) */
    struct {
        void *p;
        size_t len;
    } buf[MAX_BUFFERS];
    int nbuf;
    int streaming;
    uint32_t pixfmt;
    int w, h;
    uint32_t bytesperline;
    size_t needed;        /* bytes a complete frame has */
    convert_fn convert;
    long long errors;     /* error-flagged / short buffers requeued */
    int ended;            /* stream over (ENODEV without reopen) */
    int quiet;            /* reopening: no messages */
};

/* ------------------------------------------------------------------ */
/* libv4l2's calls                                                      */
/* ------------------------------------------------------------------ */

static int lib_open(void *o, const char *path, int flags)
{
    (void)o;
    return v4l2_open(path, flags);
}
static int lib_close(void *o, int fd)
{
    (void)o;
    return v4l2_close(fd);
}
static int lib_ioctl(void *o, int fd, unsigned long req, void *arg)
{
    (void)o;
    return v4l2_ioctl(fd, req, arg);
}
static void *lib_mmap(void *o, void *addr, size_t len, int prot, int flags, int fd, int64_t off)
{
    (void)o;
    return v4l2_mmap(addr, len, prot, flags, fd, off);
}
static int lib_munmap(void *o, void *addr, size_t len)
{
    (void)o;
    return v4l2_munmap(addr, len);
}
static int lib_poll(void *o, struct pollfd *fds, nfds_t n, int timeout)
{
    (void)o;
    return poll(fds, n, timeout);
}

static const rv_v4l2_devops libv4l2_ops = {NULL,     lib_open,   lib_close, lib_ioctl,
                                           lib_mmap, lib_munmap, lib_poll};

/* ioctl, retried on EINTR */
static int xioctl(v4l2_src *st, unsigned long req, void *arg)
{
    int r;
    do
        r = st->ops.ioctl(st->ops.opaque, st->fd, req, arg);
    while (r < 0 && errno == EINTR);
    return r;
}

static int gone_errno(int e)
{
    return e == ENODEV || e == ENXIO || e == ENOENT;
}

static const char *fourcc_str(uint32_t f, char out[5])
{
    for (int i = 0; i < 4; i++) {
        char c = (char)((f >> (8 * i)) & 0xff);
        out[i] = c >= 32 && c < 127 ? c : '?';
    }
    out[4] = '\0';
    return out;
}

/* ------------------------------------------------------------------ */
/* Conversions                                                          */
/* ------------------------------------------------------------------ */

static void conv_yuyv(const v4l2_src *st, const unsigned char *d, unsigned char *o, ptrdiff_t op)
{
    rv__yuyv_to_rgba(NULL, d, st->bytesperline, o, op, st->w, st->h, 0);
}
static void conv_uyvy(const v4l2_src *st, const unsigned char *d, unsigned char *o, ptrdiff_t op)
{
    rv__yuyv_to_rgba(NULL, d, st->bytesperline, o, op, st->w, st->h, 1);
}
static void conv_rgb24(const v4l2_src *st, const unsigned char *d, unsigned char *o, ptrdiff_t op)
{
    rv__rgb24_to_rgba(d, st->bytesperline, o, op, st->w, st->h, 0);
}
static void conv_bgr24(const v4l2_src *st, const unsigned char *d, unsigned char *o, ptrdiff_t op)
{
    rv__rgb24_to_rgba(d, st->bytesperline, o, op, st->w, st->h, 1);
}
static void conv_grey(const v4l2_src *st, const unsigned char *d, unsigned char *o, ptrdiff_t op)
{
    rv__grey_to_rgba(d, st->bytesperline, o, op, st->w, st->h);
}
/* raw mode: YUYV bytes as they are, one RGBA8 pixel per YUYV pair */
static void conv_raw(const v4l2_src *st, const unsigned char *d, unsigned char *o, ptrdiff_t op)
{
    for (int y = 0; y < st->h; y++)
        memcpy(o + y * op, d + (size_t)y * st->bytesperline, (size_t)st->w * 2);
}

static const struct {
    uint32_t fourcc;
    int bpp;
    convert_fn fn;
} known[] = {
    {V4L2_PIX_FMT_YUYV, 2, conv_yuyv},   {V4L2_PIX_FMT_UYVY, 2, conv_uyvy},
    {V4L2_PIX_FMT_RGB24, 3, conv_rgb24}, {V4L2_PIX_FMT_BGR24, 3, conv_bgr24},
    {V4L2_PIX_FMT_GREY, 1, conv_grey},
};

static int known_index(uint32_t f)
{
    for (size_t i = 0; i < RV_ARRAY_LEN(known); i++)
        if (known[i].fourcc == f)
            return (int)i;
    return -1;
}

/* ------------------------------------------------------------------ */
/* Opening and closing the device                                       */
/* ------------------------------------------------------------------ */

static void close_device(v4l2_src *st)
{
    if (st->fd < 0)
        return;
    if (st->streaming) {
        enum v4l2_buf_type t = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        xioctl(st, VIDIOC_STREAMOFF, &t);
        st->streaming = 0;
    }
    for (int i = 0; i < st->nbuf; i++)
        if (st->buf[i].p)
            st->ops.munmap(st->ops.opaque, st->buf[i].p, st->buf[i].len);
    memset(st->buf, 0, sizeof(st->buf));
    if (st->nbuf) {
        struct v4l2_requestbuffers rb = {0};
        rb.count = 0;
        rb.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        rb.memory = V4L2_MEMORY_MMAP;
        xioctl(st, VIDIOC_REQBUFS, &rb); /* fails harmlessly when the device is gone */
        st->nbuf = 0;
    }
    st->ops.close(st->ops.opaque, st->fd);
    st->fd = -1;
}

/* Messages while opening; "not there" is silent while a lost camera is
 * being retried (anything else is still reported). */
static int oerr(RV_Source *src, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int oerr(RV_Source *src, int code, const char *fmt, ...)
{
    v4l2_src *st = src->priv;
    if (st->quiet && code == RV_ENODEV)
        return code;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return rv__error(src->ctx, code, "%s", msg);
}

static void olog(RV_Source *src, RV_LogLevel lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void olog(RV_Source *src, RV_LogLevel lvl, const char *fmt, ...)
{
    v4l2_src *st = src->priv;
    if (st->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    rv__vlog(src->ctx, lvl, fmt, ap);
    va_end(ap);
}

/* Error while opening: closes what is open and records the message. */
static int open_fail(RV_Source *src, int code, const char *what, int e)
{
    v4l2_src *st = src->priv;
    close_device(st);
    if (gone_errno(e))
        code = RV_ENODEV;
    return oerr(src, code, "v4l2 %s: %s: %s", st->dev, what, strerror(e));
}

/* Chooses the capture format: native formats we convert first (in the order
 * of `known`), then libv4l2's emulated RGB24. */
static int choose_format(RV_Source *src, uint32_t *pixfmt)
{
    v4l2_src *st = src->priv;
    int best = -1, emulated_rgb = 0;
    char list[256] = "";
    for (unsigned i = 0; i < 64; i++) {
        struct v4l2_fmtdesc fd = {0};
        fd.index = i;
        fd.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        if (xioctl(st, VIDIOC_ENUM_FMT, &fd) < 0) {
            if (errno == EINVAL)
                break;
            return open_fail(src, RV_EIO, "VIDIOC_ENUM_FMT", errno);
        }
        char cc[5];
        size_t l = strlen(list);
        snprintf(list + l, sizeof(list) - l, "%s%s%s", l ? " " : "", fourcc_str(fd.pixelformat, cc),
                 fd.flags & V4L2_FMT_FLAG_EMULATED ? "(emulated)" : "");
        int k = known_index(fd.pixelformat);
        if (fd.flags & V4L2_FMT_FLAG_EMULATED) {
            if (fd.pixelformat == V4L2_PIX_FMT_RGB24)
                emulated_rgb = 1;
        } else if (k >= 0 && (best < 0 || k < best)) {
            best = k;
        }
    }
    if (best >= 0)
        *pixfmt = known[best].fourcc;
    else if (emulated_rgb)
        *pixfmt = V4L2_PIX_FMT_RGB24;
    else {
        close_device(st);
        return oerr(src, RV_ENOSYS,
                         "v4l2 %s: no usable capture format (device offers: %s)", st->dev,
                         list[0] ? list : "none");
    }
    olog(src, RV_LOG_DEBUG, "v4l2 %s: formats %s", st->dev, list);
    return 0;
}

static int open_device(RV_Source *src)
{
    v4l2_src *st = src->priv;
    st->fd = st->ops.open(st->ops.opaque, st->dev, O_RDWR | O_NONBLOCK);
    if (st->fd < 0) {
        int e = errno;
        /* libv4l2 asks VIDIOC_QUERYCAP inside v4l2_open */
        return oerr(src, gone_errno(e) ? RV_ENODEV : RV_EIO, "v4l2 %s: cannot open%s: %s", st->dev,
                    e == ENOTTY ? " (not a V4L2 device)" : "", strerror(e));
    }
    struct v4l2_capability cap = {0};
    if (xioctl(st, VIDIOC_QUERYCAP, &cap) < 0)
        return open_fail(src, RV_EIO, "not a V4L2 device (VIDIOC_QUERYCAP)", errno);
    uint32_t caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps : cap.capabilities;
    if (!(caps & V4L2_CAP_VIDEO_CAPTURE) || !(caps & V4L2_CAP_STREAMING)) {
        close_device(st);
        return oerr(src, RV_ENOSYS,
                         "v4l2 %s: not a streaming video capture device (caps 0x%08x)", st->dev,
                         caps);
    }
    uint32_t want = 0;
    int err = choose_format(src, &want);
    if (err < 0)
        return err;

    struct v4l2_format fmt = {0};
    fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    fmt.fmt.pix.width = (uint32_t)st->s.width;
    fmt.fmt.pix.height = (uint32_t)st->s.height;
    fmt.fmt.pix.pixelformat = want;
    fmt.fmt.pix.field = V4L2_FIELD_ANY;
    if (xioctl(st, VIDIOC_S_FMT, &fmt) < 0)
        return open_fail(src, RV_EIO, "VIDIOC_S_FMT", errno);
    /* the driver may have changed the size (and even the format): re-read */
    int k = known_index(fmt.fmt.pix.pixelformat);
    if (k < 0) {
        char cc[5];
        close_device(st);
        return oerr(src, RV_ENOSYS, "v4l2 %s: driver chose format %s, not supported",
                         st->dev, fourcc_str(fmt.fmt.pix.pixelformat, cc));
    }
    int w = (int)fmt.fmt.pix.width, h = (int)fmt.fmt.pix.height;
    if (w < 1 || h < 1 || w > RV_MAX_DIM || h > RV_MAX_DIM) {
        close_device(st);
        return oerr(src, RV_EIO, "v4l2 %s: driver reports size %dx%d", st->dev, w, h);
    }
    uint32_t bpl = fmt.fmt.pix.bytesperline;
    if (bpl < (uint32_t)w * (uint32_t)known[k].bpp)
        bpl = (uint32_t)w * (uint32_t)known[k].bpp;
    int raw = st->s.raw_yuyv && fmt.fmt.pix.pixelformat == V4L2_PIX_FMT_YUYV;
    if (raw && (w & 1)) {
        close_device(st);
        return oerr(src, RV_EIO, "v4l2 %s: raw YUYV needs an even width (got %d)",
                         st->dev, w);
    }
    if (src->info.width) { /* reopening: the caller's frames have the old layout */
        if (w != st->w || h != st->h || fmt.fmt.pix.pixelformat != st->pixfmt) {
            close_device(st);
            return oerr(src, RV_EIO,
                             "v4l2 %s: the camera came back with a different format (%dx%d)",
                             st->dev, w, h);
        }
    }
    st->pixfmt = fmt.fmt.pix.pixelformat;
    st->w = w;
    st->h = h;
    st->bytesperline = bpl;
    st->needed = (size_t)bpl * (size_t)(h - 1) + (size_t)w * (size_t)known[k].bpp;
    st->convert = raw ? conv_raw : known[k].fn;

    /* frame rate: ask, then read back what the driver does */
    int fps_num = 0, fps_den = 0;
    struct v4l2_streamparm parm = {0};
    parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(st, VIDIOC_G_PARM, &parm) == 0 &&
        (parm.parm.capture.capability & V4L2_CAP_TIMEPERFRAME) && st->s.fps > 0) {
        parm.parm.capture.timeperframe.numerator = 1;
        parm.parm.capture.timeperframe.denominator = (uint32_t)st->s.fps;
        if (xioctl(st, VIDIOC_S_PARM, &parm) < 0)
            olog(src, RV_LOG_WARN, "v4l2 %s: cannot set %d fps: %s", st->dev, st->s.fps,
                    strerror(errno));
    }
    memset(&parm, 0, sizeof(parm));
    parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(st, VIDIOC_G_PARM, &parm) == 0 && parm.parm.capture.timeperframe.numerator &&
        parm.parm.capture.timeperframe.denominator <= 0x7fffffff &&
        parm.parm.capture.timeperframe.numerator <= 0x7fffffff) {
        fps_num = (int)parm.parm.capture.timeperframe.denominator;
        fps_den = (int)parm.parm.capture.timeperframe.numerator;
    }

    struct v4l2_requestbuffers rb = {0};
    rb.count = (uint32_t)st->s.buffers;
    rb.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    rb.memory = V4L2_MEMORY_MMAP;
    if (xioctl(st, VIDIOC_REQBUFS, &rb) < 0)
        return open_fail(src, RV_EIO, "VIDIOC_REQBUFS (mmap streaming)", errno);
    if (rb.count < 2 || rb.count > MAX_BUFFERS) {
        st->nbuf = (int)(rb.count > MAX_BUFFERS ? MAX_BUFFERS : rb.count);
        close_device(st);
        return oerr(src, RV_EIO, "v4l2 %s: driver granted %u buffers (need 2..%d)",
                         st->dev, rb.count, MAX_BUFFERS);
    }
    st->nbuf = (int)rb.count;
    for (int i = 0; i < st->nbuf; i++) {
        struct v4l2_buffer b = {0};
        b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        b.memory = V4L2_MEMORY_MMAP;
        b.index = (uint32_t)i;
        if (xioctl(st, VIDIOC_QUERYBUF, &b) < 0)
            return open_fail(src, RV_EIO, "VIDIOC_QUERYBUF", errno);
        if (b.length < st->needed) {
            close_device(st);
            return oerr(src, RV_EIO, "v4l2 %s: buffer %d holds %u bytes, a frame %zu",
                             st->dev, i, b.length, st->needed);
        }
        void *p = st->ops.mmap(st->ops.opaque, NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED,
                               st->fd, (int64_t)b.m.offset);
        if (p == MAP_FAILED)
            return open_fail(src, RV_EIO, "mmap of a capture buffer", errno);
        st->buf[i].p = p;
        st->buf[i].len = b.length;
        if (xioctl(st, VIDIOC_QBUF, &b) < 0)
            return open_fail(src, RV_EIO, "VIDIOC_QBUF", errno);
    }
    enum v4l2_buf_type t = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(st, VIDIOC_STREAMON, &t) < 0)
        return open_fail(src, RV_EIO, "VIDIOC_STREAMON", errno);
    st->streaming = 1;

    RV_VideoInfo *in = &src->info;
    in->width = raw ? w / 2 : w;
    in->height = h;
    in->format = RV_FMT_RGBA8;
    in->fps_num = fps_num;
    in->fps_den = fps_den;
    in->interlaced = 0;
    in->frames = -1;
    in->bit_depth = 8;
    in->packed_yuyv = raw;
    char cc[5];
    olog(src, RV_LOG_INFO, "v4l2 %s: %dx%d %s, %d buffers, %d/%d fps", st->dev, w, h,
            fourcc_str(st->pixfmt, cc), st->nbuf, fps_den, fps_num);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */
/* ------------------------------------------------------------------ */

/* The camera went away. Without reopen the stream ends (RV_ENODEV, and every
 * later read says so again); with reopen this read is RV_EAGAIN. */
static int lost(RV_Source *src, int e)
{
    v4l2_src *st = src->priv;
    close_device(st);
    if (!st->s.reopen) {
        st->ended = 1;
        return rv__error(src->ctx, RV_ENODEV, "v4l2 %s: the camera disappeared (%s); stream ended",
                         st->dev, strerror(e));
    }
    rv__log(src->ctx, RV_LOG_WARN, "v4l2 %s: the camera disappeared (%s); waiting for it",
            st->dev, strerror(e));
    return RV_EAGAIN;
}

static int ms_left(long long deadline)
{
    if (deadline < 0)
        return -1;
    long long d = (deadline - rv__now_ns() + 999999) / 1000000;
    return d < 0 ? 0 : d > 0x7fffffff ? 0x7fffffff : (int)d;
}

static int try_reopen(RV_Source *src, long long deadline)
{
    for (;;) {
        v4l2_src *st0 = src->priv;
        st0->quiet = 1; /* no message for each attempt while it is away */
        int err = open_device(src);
        st0->quiet = 0;
        if (err == 0) {
            v4l2_src *st = src->priv;
            rv__log(src->ctx, RV_LOG_INFO, "v4l2 %s: camera is back", st->dev);
            return 0;
        }
        if (err != RV_ENODEV)
            return err;
        int left = ms_left(deadline);
        if (left == 0)
            return RV_EAGAIN;
        int nap = left < 0 || left > 100 ? 100 : left;
        rv__sleep_until_ns(rv__now_ns() + nap * 1000000LL);
    }
}

static int requeue(v4l2_src *st, struct v4l2_buffer *b)
{
    return xioctl(st, VIDIOC_QBUF, b);
}

static int cam_read(RV_Source *src, RV_Image *frame, long long *pts_ns, int timeout_ms)
{
    v4l2_src *st = src->priv;
    if (st->ended)
        return rv__error(src->ctx, RV_ENODEV, "v4l2 %s: the camera disappeared; stream ended",
                         st->dev);
    long long deadline = timeout_ms < 0 ? -1 : rv__now_ns() + (long long)timeout_ms * 1000000LL;
    int err;
    if (st->fd < 0 && (err = try_reopen(src, deadline)) < 0)
        return err;

    for (;;) {
        struct pollfd pfd = {st->fd, POLLIN, 0};
        int r = st->ops.poll(st->ops.opaque, &pfd, 1, ms_left(deadline));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return rv__error(src->ctx, RV_EIO, "v4l2 %s: poll: %s", st->dev, strerror(errno));
        }
        if (r == 0)
            return RV_EAGAIN;

        /* drain: keep the newest good buffer, give the rest back */
        struct v4l2_buffer latest;
        int have = 0, eio = 0;
        for (;;) {
            struct v4l2_buffer b = {0};
            b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
            b.memory = V4L2_MEMORY_MMAP;
            if (xioctl(st, VIDIOC_DQBUF, &b) < 0) {
                int e = errno;
                if (e == EAGAIN)
                    break;
                if (gone_errno(e)) {
                    if (have)
                        break; /* deliver it; the next read meets the error again */
                    return lost(src, e);
                }
                if (e == EIO && ++eio <= st->nbuf) {
                    /* some drivers answer EIO for a lost frame: the buffer is theirs again */
                    st->errors++;
                    continue;
                }
                return rv__error(src->ctx, RV_EIO, "v4l2 %s: VIDIOC_DQBUF: %s", st->dev,
                                 strerror(e));
            }
            if (b.index >= (uint32_t)st->nbuf)
                return rv__error(src->ctx, RV_EIO, "v4l2 %s: driver returned buffer %u of %d",
                                 st->dev, b.index, st->nbuf);
            if ((b.flags & V4L2_BUF_FLAG_ERROR) || b.bytesused < st->needed) {
                st->errors++;
                if (requeue(st, &b) < 0 && gone_errno(errno) && !have)
                    return lost(src, errno);
                continue;
            }
            if (have) {
                src->dropped++;
                if (requeue(st, &latest) < 0 && gone_errno(errno))
                    break;
            }
            latest = b;
            have = 1;
        }
        if (!have) {
            if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) {
                /* the device reports an error and has nothing for us */
                struct v4l2_capability cap;
                if (xioctl(st, VIDIOC_QUERYCAP, &cap) < 0 && gone_errno(errno))
                    return lost(src, errno);
                if (ms_left(deadline) == 0)
                    return RV_EAGAIN;
                rv__sleep_until_ns(rv__now_ns() + 1000000LL); /* no busy loop */
            }
            if (ms_left(deadline) == 0)
                return RV_EAGAIN;
            continue; /* only error-flagged buffers or a spurious wake-up */
        }

        ptrdiff_t pitch;
        unsigned char *dst = rv_image_write(frame, 0, &pitch);
        if (!dst) {
            requeue(st, &latest);
            return rv__error(src->ctx, RV_EIO, "v4l2 %s: cannot write the frame", st->dev);
        }
        st->convert(st, st->buf[latest.index].p, dst, pitch);
        long long ts = (long long)latest.timestamp.tv_sec * 1000000000LL +
                       (long long)latest.timestamp.tv_usec * 1000LL;
        if ((latest.flags & V4L2_BUF_FLAG_TIMESTAMP_MASK) == V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC &&
            ts > 0)
            *pts_ns = ts;
        else
            *pts_ns = rv__now_ns();
        if (requeue(st, &latest) < 0 && gone_errno(errno))
            rv__log(src->ctx, RV_LOG_WARN, "v4l2 %s: camera went away after this frame", st->dev);
        return 0;
    }
}

static void v4l2_close_src(RV_Source *src)
{
    close_device(src->priv);
}

static const struct rv_source_ops v4l2_ops = {"v4l2", cam_read, v4l2_close_src};

RV_API int rv__source_open_v4l2_devops(RV_Context *ctx, const RV_V4L2Settings *s,
                                       const rv_v4l2_devops *ops, RV_Source **out)
{
    if (!ctx) { /* no context to report to (video.h): the device is not opened */
        if (out)
            *out = NULL;
        return RV_EINVAL;
    }
    if (!out || !ops)
        return rv__error(ctx, RV_EINVAL, "rv_source_open_v4l2: NULL argument");
    *out = NULL;
    RV_V4L2Settings d;
    rv_v4l2_settings_default(&d);
    if (!s)
        s = &d;
    if (!s->device || s->width < 1 || s->height < 1 || s->width > RV_MAX_DIM ||
        s->height > RV_MAX_DIM || s->buffers < 2 || s->buffers > MAX_BUFFERS || s->fps < 0)
        return rv__error(ctx, RV_EINVAL,
                         "rv_source_open_v4l2: bad settings (device, size 1..%d, buffers 2..%d, "
                         "fps >= 0)",
                         RV_MAX_DIM, MAX_BUFFERS);
    RV_Source *src = rv__source_new(ctx, &v4l2_ops, sizeof(v4l2_src));
    if (!src)
        return rv__error(ctx, RV_ENOMEM, "rv_source_open_v4l2: out of memory");
    v4l2_src *st = src->priv;
    st->ops = *ops;
    st->s = *s;
    st->fd = -1;
    snprintf(st->dev, sizeof(st->dev), "%s", s->device);
    st->s.device = st->dev;
    src->info.width = 0; /* marks the first open (see open_device) */
    int err = open_device(src);
    if (err < 0) {
        rv_source_close(&src);
        return err;
    }
    *out = src;
    return 0;
}

RV_API int rv_source_open_v4l2(RV_Context *ctx, const RV_V4L2Settings *s, RV_Source **out)
{
    return rv__source_open_v4l2_devops(ctx, s, &libv4l2_ops, out);
}
