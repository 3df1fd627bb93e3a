/*
 * fakecam_preload.c - the emulated camera of tests/video/fakecam.h behind
 * libv4l2's own entry points, for LD_PRELOAD into an unmodified ravioli-run.
 * A test-only library: never installed.
 *
 * It defines v4l2_open, v4l2_close, v4l2_ioctl, v4l2_mmap and v4l2_munmap
 * (the libv4l2 calls that ravioli/src/video/v4l2.c makes), so that they
 * interpose libv4l2's for the whole process, plus poll(): the capture code
 * polls the descriptor with plain poll(2), and the camera's descriptor is a
 * memfd (the buffers live in it), which a real poll would always call
 * readable. poll() on that one descriptor runs the emulated camera (frames
 * arrive at the configured rate, or time out); any other poll goes to the
 * next definition (libc, or a sanitizer's interceptor) through
 * dlsym(RTLD_NEXT).
 *
 * Steering (environment, read at the first v4l2_open):
 *   RV_FAKECAM_DEVICE   path the camera answers to (default /dev/video0);
 *                       other paths fail with ENOENT
 *   RV_FAKECAM_MODE     normal  frames at RV_FAKECAM_FPS
 *                       unplug  normal, then the camera disappears (every
 *                               call ENODEV) after RV_FAKECAM_UNPLUG_AFTER
 *                               frames (default 10)
 *                       errors  frame k with k % 4 == 1 carries
 *                               V4L2_BUF_FLAG_ERROR, k % 4 == 3 is short
 *                               (half the bytes); both are filled with one
 *                               constant byte, so a delivered one would show
 *                       slow    frames at RV_FAKECAM_FPS (default 4), slower
 *                               than the reader's poll timeout
 *                       stall   streaming, but no frame ever arrives
 *   RV_FAKECAM_FPS      frame rate; 0 = a frame on every poll (default 0,
 *                       4 in slow mode)
 *   RV_FAKECAM_MAX      largest size WxH the camera accepts (default 1280x720)
 *   RV_FAKECAM_REPORT   file rewritten with the camera's counters after each
 *                       poll timeout and at close, one line:
 *                       opens= closes= produced= lost= good_dq= bad_dq=
 *                       flagged= short= timeouts= unplugged= maps= unmaps=
 */
#undef _FORTIFY_SOURCE /* poll() is defined here, not wrapped */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fakecam.h"

#define EXPORT __attribute__((visibility("default")))

enum { M_NORMAL, M_UNPLUG, M_ERRORS, M_SLOW, M_STALL };

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static fakecam g_cam;
static rv_v4l2_devops g_ops;
static int g_ready;
static int g_mode;
static double g_fps;
static long long g_unplug_after = 10;
static char g_dev[256] = "/dev/video0";
static char g_report[512];
static long long g_next_ns; /* when the next frame is due (paced modes) */
static long long g_good_dq, g_bad_dq, g_flagged, g_short, g_timeouts;
static int g_unplugged;

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(long long ns)
{
    if (ns <= 0)
        return;
    struct timespec ts = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* under g_mu */
static void setup(void)
{
    if (g_ready)
        return;
    g_ready = 1;
    fake_init(&g_cam);
    g_cam.mode = FAKE_MANUAL; /* frames are produced here, in poll() */
    g_ops = fake_ops(&g_cam);
    const char *e = getenv("RV_FAKECAM_DEVICE");
    if (e && *e)
        snprintf(g_dev, sizeof(g_dev), "%s", e);
    e = getenv("RV_FAKECAM_MODE");
    g_mode = !e || !strcmp(e, "normal") ? M_NORMAL
             : !strcmp(e, "unplug")     ? M_UNPLUG
             : !strcmp(e, "errors")     ? M_ERRORS
             : !strcmp(e, "slow")       ? M_SLOW
             : !strcmp(e, "stall")      ? M_STALL
                                        : M_NORMAL;
    g_fps = g_mode == M_SLOW ? 4.0 : 0.0;
    if ((e = getenv("RV_FAKECAM_FPS")) && *e)
        g_fps = atof(e);
    if ((e = getenv("RV_FAKECAM_UNPLUG_AFTER")) && *e)
        g_unplug_after = atoll(e);
    unsigned w, h;
    if ((e = getenv("RV_FAKECAM_MAX")) && sscanf(e, "%ux%u", &w, &h) == 2 && w >= 8 && h >= 1)
        g_cam.max_w = w, g_cam.max_h = h;
    if ((e = getenv("RV_FAKECAM_REPORT")) && *e)
        snprintf(g_report, sizeof(g_report), "%s", e);
}

/* under g_mu */
static void write_report(void)
{
    if (!g_report[0])
        return;
    char tmp[600];
    snprintf(tmp, sizeof(tmp), "%s.tmp", g_report);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    fprintf(f,
            "opens=%d closes=%d produced=%lld lost=%lld good_dq=%lld bad_dq=%lld flagged=%lld "
            "short=%lld timeouts=%lld unplugged=%d maps=%d unmaps=%d\n",
            g_cam.opens, g_cam.closes, g_cam.produced, g_cam.lost, g_good_dq, g_bad_dq, g_flagged,
            g_short, g_timeouts, g_unplugged, g_cam.maps, g_cam.unmaps);
    fclose(f);
    rename(tmp, g_report); /* readers never see half a line */
}

/* A frame arrives (under g_mu, camera present and streaming). */
static void produce(void)
{
    long long k = g_cam.produced;
    int bad = g_mode == M_ERRORS && (k % 4 == 1 || k % 4 == 3);
    uint32_t flags = bad && k % 4 == 1 ? V4L2_BUF_FLAG_ERROR : 0;
    int shortf = bad && k % 4 == 3;
    long long seq0 = g_cam.seq;
    g_cam.no_fill = bad;
    fake_produce(&g_cam, flags, shortf);
    g_cam.no_fill = 0;
    if (!bad || g_cam.seq == seq0)
        return; /* good, or lost (no queued buffer) */
    g_flagged += flags != 0;
    g_short += shortf;
    for (int i = 0; i < g_cam.nbuf; i++)
        if (g_cam.state[i] == 2 && g_cam.dseq[i] == g_cam.seq) {
            unsigned char *p = mmap(NULL, g_cam.buflen, PROT_READ | PROT_WRITE, MAP_SHARED,
                                    g_cam.fd, (off_t)((size_t)i * g_cam.buflen));
            if (p != MAP_FAILED) {
                memset(p, 0x80, g_cam.buflen);
                munmap(p, g_cam.buflen);
            }
        }
}

static int real_poll(struct pollfd *fds, nfds_t n, int timeout)
{
    static int (*next)(struct pollfd *, nfds_t, int);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "poll");
    if (!next) {
        errno = ENOSYS;
        return -1;
    }
    return next(fds, n, timeout);
}

static int is_camera(const struct pollfd *fds, nfds_t n)
{
    pthread_mutex_lock(&g_mu);
    int yes = g_ready && g_cam.fd >= 0 && n == 1 && fds[0].fd == g_cam.fd;
    pthread_mutex_unlock(&g_mu);
    return yes;
}

static int camera_poll(struct pollfd *fds, nfds_t n, int timeout)
{
    long long t0 = now_ns();
    long long limit = timeout < 0 ? -1 : t0 + (long long)timeout * 1000000LL;
    pthread_mutex_lock(&g_mu);
    if (g_mode == M_UNPLUG && g_cam.present && g_cam.produced >= g_unplug_after) {
        g_cam.present = 0; /* unplugged: from now on every call says ENODEV */
        g_unplugged = 1;
    }
    int ready = 0;
    for (int i = 0; i < g_cam.nbuf; i++)
        ready |= g_cam.state[i] == 2;
    if (!ready && g_cam.present && g_cam.streaming && g_mode != M_STALL) {
        long long due = t0;
        if (g_fps > 0) {
            if (g_next_ns == 0)
                g_next_ns = t0 + (long long)(1e9 / g_fps);
            due = g_next_ns;
        }
        if (limit >= 0 && due > limit) { /* no frame within the timeout */
            g_timeouts++;
            write_report();
            pthread_mutex_unlock(&g_mu);
            sleep_ns(limit - t0);
            fds[0].revents = 0;
            return 0;
        }
        pthread_mutex_unlock(&g_mu);
        sleep_ns(due - now_ns());
        pthread_mutex_lock(&g_mu);
        if (g_fps > 0) {
            g_next_ns += (long long)(1e9 / g_fps);
            if (g_next_ns < now_ns()) /* far behind (a loaded machine): no burst */
                g_next_ns = now_ns();
        }
        if (g_cam.present && g_cam.streaming)
            produce();
    } else if (!ready && g_cam.present) {
        /* stalled or not streaming: wait out the timeout (capped, like fake_poll) */
        g_timeouts++;
        write_report();
        pthread_mutex_unlock(&g_mu);
        int ms = timeout < 0 || timeout > 2000 ? 2000 : timeout;
        sleep_ns((long long)ms * 1000000LL);
        fds[0].revents = 0;
        return 0;
    }
    int r = g_ops.poll(g_ops.opaque, fds, n, 0);
    pthread_mutex_unlock(&g_mu);
    return r;
}

/* glibc declares poll()'s fds write-only (access attribute), yet poll reads
 * them; GCC 12 at -O0 with the sanitizers then reports the read in is_camera()
 * as -Wmaybe-uninitialized, which fails the Debug RV_SANITIZE build. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    if (!is_camera(fds, n))
        return real_poll(fds, n, timeout);
    return camera_poll(fds, n, timeout);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* glibc's fortified poll() calls this one */
EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);
EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
    if (!is_camera(fds, n)) {
        static int (*next)(struct pollfd *, nfds_t, int, size_t);
        if (!next)
            *(void **)&next = dlsym(RTLD_NEXT, "__poll_chk");
        if (!next)
            return real_poll(fds, n, timeout);
        return next(fds, n, timeout, fdslen);
    }
    return camera_poll(fds, n, timeout);
}

/* ------------------------------------------------------------------ */
/* libv4l2's entry points                                               */
/* ------------------------------------------------------------------ */

EXPORT int v4l2_open(const char *file, int oflag, ...);
EXPORT int v4l2_open(const char *file, int oflag, ...)
{
    pthread_mutex_lock(&g_mu);
    setup();
    int r;
    if (!file || strcmp(file, g_dev) != 0) {
        errno = ENOENT;
        r = -1;
    } else {
        r = g_ops.open(g_ops.opaque, "/dev/fake0", oflag);
        g_next_ns = 0;
    }
    pthread_mutex_unlock(&g_mu);
    return r;
}

EXPORT int v4l2_close(int fd);
EXPORT int v4l2_close(int fd)
{
    pthread_mutex_lock(&g_mu);
    int r = g_ready ? g_ops.close(g_ops.opaque, fd) : (errno = EBADF, -1);
    if (r == 0)
        write_report();
    pthread_mutex_unlock(&g_mu);
    return r;
}

EXPORT int v4l2_ioctl(int fd, unsigned long request, ...);
EXPORT int v4l2_ioctl(int fd, unsigned long request, ...)
{
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    pthread_mutex_lock(&g_mu);
    if (!g_ready) {
        pthread_mutex_unlock(&g_mu);
        errno = EBADF;
        return -1;
    }
    int r = g_ops.ioctl(g_ops.opaque, fd, request, arg);
    if (r == 0 && request == VIDIOC_DQBUF) {
        const struct v4l2_buffer *b = arg;
        if ((b->flags & V4L2_BUF_FLAG_ERROR) || b->bytesused < g_cam.bpl * g_cam.h)
            g_bad_dq++;
        else
            g_good_dq++;
    }
    pthread_mutex_unlock(&g_mu);
    return r;
}

EXPORT void *v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset);
EXPORT void *v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset)
{
    pthread_mutex_lock(&g_mu);
    void *p = g_ready ? g_ops.mmap(g_ops.opaque, start, length, prot, flags, fd, offset)
                      : (errno = EBADF, MAP_FAILED);
    pthread_mutex_unlock(&g_mu);
    return p;
}

EXPORT int v4l2_munmap(void *start, size_t length);
EXPORT int v4l2_munmap(void *start, size_t length)
{
    pthread_mutex_lock(&g_mu);
    int r = g_ready ? g_ops.munmap(g_ops.opaque, start, length) : munmap(start, length);
    pthread_mutex_unlock(&g_mu);
    return r;
}
