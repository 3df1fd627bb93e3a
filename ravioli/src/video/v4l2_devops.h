/*
 * v4l2_devops.h - the table of device calls the V4L2 source makes. Not
 * installed.
 *
 * rv_source_open_v4l2() uses libv4l2's calls (v4l2_open, v4l2_ioctl,
 * v4l2_mmap, v4l2_munmap, v4l2_close; poll(2) on the descriptor). The tests
 * plug in an emulated camera through rv__source_open_v4l2_devops(), an
 * exported internal entry point, so that the capture code runs end to end
 * without /dev/video*. Each call follows its POSIX model: -1 (or MAP_FAILED)
 * with errno set on failure.
 */
#ifndef RAVIOLI_V4L2_DEVOPS_H
#define RAVIOLI_V4L2_DEVOPS_H

#include <poll.h>
#include <stdint.h>

#include "ravioli/video.h"

typedef struct rv_v4l2_devops {
    void *opaque;
    int (*open)(void *opaque, const char *path, int flags);
    int (*close)(void *opaque, int fd);
    int (*ioctl)(void *opaque, int fd, unsigned long request, void *arg);
    void *(*mmap)(void *opaque, void *addr, size_t len, int prot, int flags, int fd,
                  int64_t offset);
    int (*munmap)(void *opaque, void *addr, size_t len);
    int (*poll)(void *opaque, struct pollfd *fds, nfds_t nfds, int timeout_ms);
} rv_v4l2_devops;

/** rv_source_open_v4l2() on the given device calls (internal: tests). */
RV_API int rv__source_open_v4l2_devops(RV_Context *ctx, const RV_V4L2Settings *s,
                                       const rv_v4l2_devops *ops, RV_Source **out);

#endif /* RAVIOLI_V4L2_DEVOPS_H */
