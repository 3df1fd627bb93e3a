/*
 * fakecam.h - an emulated V4L2 camera in user space for the tests.
 *
 * It answers the calls of rv_v4l2_devops (open/ioctl/mmap/munmap/close/poll)
 * like a mmap-streaming capture driver: QUERYCAP, ENUM_FMT (a native MJPG
 * and YUYV plus libv4l2-style emulated RGB24/BGR24 entries), S_FMT (rounds
 * the width down to a multiple of 8 and pads bytesperline, so the caller must
 * re-read the size), G/S_PARM, REQBUFS, QUERYBUF, QBUF, DQBUF, STREAMON/OFF.
 * Buffers live in a memfd that the real mmap maps.
 *
 * The test steers it: frames arrive on each poll (AUTO), never (SLOW: poll
 * sleeps its timeout and returns 0), or when the test calls fake_produce()
 * (MANUAL); frames may carry V4L2_BUF_FLAG_ERROR or be short; poll can fail
 * once with EINTR and DQBUF once with EAGAIN; the camera can be unplugged
 * (every call then fails with ENODEV, open with ENOENT) and plugged back.
 */
#ifndef FAKECAM_H
#define FAKECAM_H

#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "v4l2_devops.h"

enum { FAKE_AUTO, FAKE_SLOW, FAKE_MANUAL };
enum { PAT_PLAIN, PAT_SWEEP };
#define FAKE_MAXBUF 8

typedef struct fakecam {
    /* steering */
    int present;
    int mode;
    int pattern;          /* PAT_SWEEP: U = x pair, V = y, Y0 = 2k, Y1 = 255 - 2k */
    int only_mjpeg;       /* enumerate MJPG (native) + RGB24 (emulated) only */
    uint32_t native;      /* if set: MJPG + this native format + emulated RGB24 */
    int eintr_once, eagain_once;
    int no_fill;          /* frames arrive without rewriting the buffer (benchmarks) */
    unsigned max_w, max_h;
    /* state */
    int fd;
    uint32_t fmt;
    unsigned w, h, bpl, bpp;
    size_t buflen;
    int nbuf;
    int state[FAKE_MAXBUF]; /* 0 app, 1 queued, 2 done */
    long long qseq[FAKE_MAXBUF], dseq[FAKE_MAXBUF], seq;
    uint32_t flags[FAKE_MAXBUF], used[FAKE_MAXBUF];
    int streaming;
    long long produced;   /* frame counter k */
    long long lost;       /* frames with no queued buffer */
    int opens, closes, maps, unmaps;
    int busy_reqbufs;     /* REQBUFS(0) while mapped (a driver says EBUSY) */
} fakecam;

static void fake_init(fakecam *c)
{
    memset(c, 0, sizeof(*c));
    c->present = 1;
    c->fd = -1;
    c->max_w = 1280;
    c->max_h = 720;
}

/* The YUYV bytes of frame k at pair px, row y (plain pattern). */
static inline void fake_yuyv(long long k, unsigned px, unsigned y, unsigned char q[4])
{
    q[0] = (unsigned char)((px * 10 + y * 3 + k * 11) % 256);
    q[1] = (unsigned char)((px * 3 + y * 7 + k * 13) % 256);
    q[2] = (unsigned char)((q[0] + 37) % 256);
    q[3] = (unsigned char)((px * 11 + y + k * 17) % 256);
}
/* The RGB24 bytes of frame k at (x, y) (emulated RGB24 mode). */
static inline void fake_rgb(long long k, unsigned x, unsigned y, unsigned char q[3])
{
    q[0] = (unsigned char)((x * 5 + k * 7) % 256);
    q[1] = (unsigned char)((y * 9 + k) % 256);
    q[2] = (unsigned char)((x + y + k * 3) % 256);
}

/* The GREY byte of frame k at (x, y). */
static inline unsigned char fake_grey(long long k, unsigned x, unsigned y)
{
    return (unsigned char)((x * 3 + y * 5 + k * 19) % 256);
}

static void fake_fill(fakecam *c, int i, long long k)
{
    unsigned char *p = mmap(NULL, c->buflen, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
                            (off_t)(i * c->buflen));
    if (p == MAP_FAILED)
        return;
    for (unsigned y = 0; y < c->h; y++) {
        unsigned char *r = p + (size_t)y * c->bpl;
        if (c->fmt == V4L2_PIX_FMT_RGB24 || c->fmt == V4L2_PIX_FMT_BGR24) {
            for (unsigned x = 0; x < c->w; x++) {
                unsigned char q[3];
                fake_rgb(k, x, y, q);
                int bgr = c->fmt == V4L2_PIX_FMT_BGR24;
                r[3 * x] = q[bgr ? 2 : 0], r[3 * x + 1] = q[1], r[3 * x + 2] = q[bgr ? 0 : 2];
            }
        } else if (c->fmt == V4L2_PIX_FMT_GREY) {
            for (unsigned x = 0; x < c->w; x++)
                r[x] = fake_grey(k, x, y);
        } else if (c->fmt == V4L2_PIX_FMT_UYVY) {
            for (unsigned px = 0; px < c->w / 2; px++) {
                unsigned char q[4];
                fake_yuyv(k, px, y, q); /* Y0 Cb Y1 Cr -> Cb Y0 Cr Y1 */
                r[4 * px] = q[1], r[4 * px + 1] = q[0], r[4 * px + 2] = q[3], r[4 * px + 3] = q[2];
            }
        } else {
            for (unsigned px = 0; px < c->w / 2; px++) {
                unsigned char *q = r + 4 * px;
                if (c->pattern == PAT_SWEEP) {
                    q[0] = (unsigned char)(2 * k);
                    q[1] = (unsigned char)px;
                    q[2] = (unsigned char)(255 - 2 * k);
                    q[3] = (unsigned char)y;
                } else {
                    fake_yuyv(k, px, y, q);
                }
            }
        }
    }
    munmap(p, c->buflen);
}

/* A frame arrives: into the oldest queued buffer, or lost if none. */
static void fake_produce(fakecam *c, uint32_t flags, int short_frame)
{
    long long k = c->produced++;
    int best = -1;
    for (int i = 0; i < c->nbuf; i++)
        if (c->state[i] == 1 && (best < 0 || c->qseq[i] < c->qseq[best]))
            best = i;
    if (best < 0 || !c->streaming) {
        c->lost++;
        return;
    }
    if (!c->no_fill)
        fake_fill(c, best, k);
    c->state[best] = 2;
    c->dseq[best] = ++c->seq;
    c->flags[best] = flags;
    c->used[best] = short_frame ? c->bpl * c->h / 2 : c->bpl * c->h;
}

static int fake_open(void *o, const char *path, int flags)
{
    fakecam *c = o;
    (void)flags;
    if (strcmp(path, "/dev/fake0") != 0 || !c->present) {
        errno = ENOENT;
        return -1;
    }
    if (c->fd >= 0) {
        errno = EBUSY;
        return -1;
    }
    c->fd = memfd_create("fakecam", MFD_CLOEXEC);
    if (c->fd < 0)
        return -1;
    c->nbuf = 0;
    c->streaming = 0;
    c->fmt = V4L2_PIX_FMT_YUYV;
    c->w = 640, c->h = 480, c->bpp = 2, c->bpl = 640 * 2;
    c->opens++;
    return c->fd;
}

static int fake_close(void *o, int fd)
{
    fakecam *c = o;
    if (fd != c->fd || fd < 0) {
        errno = EBADF;
        return -1;
    }
    close(fd);
    c->fd = -1;
    c->closes++;
    return 0;
}

static int fake_ioctl(void *o, int fd, unsigned long req, void *arg)
{
    fakecam *c = o;
    if (fd != c->fd || fd < 0) {
        errno = EBADF;
        return -1;
    }
    if (!c->present) {
        errno = ENODEV;
        return -1;
    }
    switch (req) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *cap = arg;
        memset(cap, 0, sizeof(*cap));
        strcpy((char *)cap->driver, "fakecam");
        strcpy((char *)cap->card, "ravioli test camera");
        cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        cap->capabilities = cap->device_caps | V4L2_CAP_DEVICE_CAPS;
        return 0;
    }
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *f = arg;
        static const uint32_t all[][2] = {{V4L2_PIX_FMT_MJPEG, 0},
                                          {V4L2_PIX_FMT_RGB24, V4L2_FMT_FLAG_EMULATED},
                                          {V4L2_PIX_FMT_YUYV, 0},
                                          {V4L2_PIX_FMT_BGR24, V4L2_FMT_FLAG_EMULATED}};
        unsigned n = c->only_mjpeg || c->native ? 2 : 4;
        if (f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || f->index >= n + (c->native ? 1 : 0)) {
            errno = EINVAL;
            return -1;
        }
        if (c->native && f->index == 2) {
            f->pixelformat = c->native;
            f->flags = 0;
            return 0;
        }
        f->pixelformat = all[f->index][0];
        f->flags = all[f->index][1];
        return 0;
    }
    case VIDIOC_S_FMT:
    case VIDIOC_G_FMT: {
        struct v4l2_format *f = arg;
        if (c->nbuf) {
            errno = EBUSY;
            return -1;
        }
        if (req == VIDIOC_S_FMT) {
            uint32_t pf = f->fmt.pix.pixelformat;
            if (c->native)
                pf = pf == c->native ? pf : V4L2_PIX_FMT_RGB24;
            else if (pf != V4L2_PIX_FMT_RGB24 || !c->only_mjpeg)
                pf = c->only_mjpeg ? V4L2_PIX_FMT_RGB24 : V4L2_PIX_FMT_YUYV;
            c->fmt = pf;
            c->bpp = pf == V4L2_PIX_FMT_RGB24 || pf == V4L2_PIX_FMT_BGR24 ? 3
                     : pf == V4L2_PIX_FMT_GREY                         ? 1
                                                                       : 2;
            c->w = (f->fmt.pix.width < c->max_w ? f->fmt.pix.width : c->max_w) & ~7u;
            c->h = f->fmt.pix.height < c->max_h ? f->fmt.pix.height : c->max_h;
            if (c->w < 8)
                c->w = 8;
            if (c->h < 1)
                c->h = 1;
            c->bpl = c->w * c->bpp + 16; /* padded rows */
        }
        memset(&f->fmt.pix, 0, sizeof(f->fmt.pix));
        f->fmt.pix.width = c->w;
        f->fmt.pix.height = c->h;
        f->fmt.pix.pixelformat = c->fmt;
        f->fmt.pix.bytesperline = c->bpl;
        f->fmt.pix.sizeimage = c->bpl * c->h;
        f->fmt.pix.field = V4L2_FIELD_NONE;
        return 0;
    }
    case VIDIOC_G_PARM:
    case VIDIOC_S_PARM: {
        struct v4l2_streamparm *p = arg;
        p->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
        p->parm.capture.timeperframe.numerator = 1;
        p->parm.capture.timeperframe.denominator = 30;
        return 0;
    }
    case VIDIOC_REQBUFS: {
        struct v4l2_requestbuffers *rb = arg;
        if (rb->memory != V4L2_MEMORY_MMAP) {
            errno = EINVAL;
            return -1;
        }
        if (c->maps != c->unmaps) {
            c->busy_reqbufs++;
            errno = EBUSY;
            return -1;
        }
        if (rb->count == 0) {
            c->nbuf = 0;
            return 0;
        }
        c->nbuf = rb->count > FAKE_MAXBUF ? FAKE_MAXBUF : (int)rb->count;
        rb->count = (uint32_t)c->nbuf;
        long pg = sysconf(_SC_PAGESIZE);
        c->buflen = ((size_t)c->bpl * c->h + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
        if (ftruncate(c->fd, (off_t)(c->buflen * (size_t)c->nbuf)) < 0)
            return -1;
        for (int i = 0; i < c->nbuf; i++)
            c->state[i] = 0;
        return 0;
    }
    case VIDIOC_QUERYBUF:
    case VIDIOC_QBUF:
    case VIDIOC_DQBUF: {
        struct v4l2_buffer *b = arg;
        if (b->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || b->memory != V4L2_MEMORY_MMAP) {
            errno = EINVAL;
            return -1;
        }
        if (req == VIDIOC_DQBUF) {
            if (c->eagain_once) {
                c->eagain_once = 0;
                errno = EAGAIN;
                return -1;
            }
            int best = -1;
            for (int i = 0; i < c->nbuf; i++)
                if (c->state[i] == 2 && (best < 0 || c->dseq[i] < c->dseq[best]))
                    best = i;
            if (best < 0) {
                errno = EAGAIN;
                return -1;
            }
            c->state[best] = 0;
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            b->index = (uint32_t)best;
            b->flags = c->flags[best] | V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
            b->bytesused = c->used[best];
            b->timestamp.tv_sec = ts.tv_sec;
            b->timestamp.tv_usec = ts.tv_nsec / 1000;
            b->length = (uint32_t)c->buflen;
            b->m.offset = (uint32_t)(best * c->buflen);
            return 0;
        }
        if (b->index >= (uint32_t)c->nbuf) {
            errno = EINVAL;
            return -1;
        }
        if (req == VIDIOC_QUERYBUF) {
            b->length = (uint32_t)c->buflen;
            b->m.offset = (uint32_t)(b->index * c->buflen);
            return 0;
        }
        if (c->state[b->index] != 0) {
            errno = EINVAL;
            return -1;
        }
        c->state[b->index] = 1;
        c->qseq[b->index] = ++c->seq;
        return 0;
    }
    case VIDIOC_STREAMON:
        c->streaming = 1;
        return 0;
    case VIDIOC_STREAMOFF:
        c->streaming = 0;
        for (int i = 0; i < c->nbuf; i++)
            c->state[i] = 0;
        return 0;
    default:
        errno = ENOTTY;
        return -1;
    }
}

static void *fake_mmap(void *o, void *addr, size_t len, int prot, int flags, int fd, int64_t off)
{
    fakecam *c = o;
    if (fd != c->fd || fd < 0) {
        errno = EBADF;
        return MAP_FAILED;
    }
    void *p = mmap(addr, len, prot, flags, fd, (off_t)off);
    if (p != MAP_FAILED)
        c->maps++;
    return p;
}

static int fake_munmap(void *o, void *addr, size_t len)
{
    fakecam *c = o;
    int r = munmap(addr, len);
    if (r == 0)
        c->unmaps++;
    return r;
}

static int fake_poll(void *o, struct pollfd *fds, nfds_t n, int timeout_ms)
{
    fakecam *c = o;
    if (n != 1 || fds[0].fd != c->fd) {
        errno = EINVAL;
        return -1;
    }
    if (c->eintr_once) {
        c->eintr_once = 0;
        errno = EINTR;
        return -1;
    }
    fds[0].revents = 0;
    if (!c->present) {
        fds[0].revents = POLLERR | POLLHUP;
        return 1;
    }
    int ready = 0;
    for (int i = 0; i < c->nbuf; i++)
        ready |= c->state[i] == 2;
    if (!ready && c->mode == FAKE_AUTO && c->streaming) {
        fake_produce(c, 0, 0);
        ready = 1;
    }
    if (ready) {
        fds[0].revents = POLLIN | POLLRDNORM;
        return 1;
    }
    if (timeout_ms < 0 || timeout_ms > 2000)
        timeout_ms = 2000;
    struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    return 0;
}

static rv_v4l2_devops fake_ops(fakecam *c)
{
    rv_v4l2_devops ops = {c, fake_open, fake_close, fake_ioctl, fake_mmap, fake_munmap, fake_poll};
    return ops;
}

#endif /* FAKECAM_H */
