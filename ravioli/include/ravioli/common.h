/*
 * ravioli/common.h - version, error convention, logging.
 *
 * Error convention: every function that can fail returns an int, 0 on
 * success or a negative RV_E* code (negative errno values, as dav1d does).
 * Functions that return a pointer return NULL on failure. The readable
 * message of the latest failure on a context is rv_context_error(); it
 * also goes to the context's log callback at RV_LOG_ERROR.
 *
 * A path the caller names that cannot be opened (rv_image_read_file,
 * rv_image_write_file, rv_source_open_y4m, rv_sink_open_y4m,
 * RV_StreamSettings.log_path) is RV_ENOENT when it does not exist - the file
 * to read, or a directory on the path of a file to write - and RV_EIO for
 * any other reason (permissions, a directory given as the file, ...); the
 * message names the path and the system's reason. A camera device is the
 * exception: a missing one is RV_ENODEV (rv_source_open_v4l2).
 *
 * The library prints nothing on its own: its messages go to the context's
 * log callback (to stderr only when the context's settings give none,
 * RV_Settings.log). A call that has no context to report to - a NULL handle,
 * such as rv_source_read(NULL, ...), or a NULL context, such as
 * rv_sink_open_y4m(NULL, ...) - returns RV_EINVAL without a message.
 */
#ifndef RAVIOLI_COMMON_H
#define RAVIOLI_COMMON_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RAVIOLI_VERSION_MAJOR 0
#define RAVIOLI_VERSION_MINOR 1
#define RAVIOLI_VERSION_PATCH 0

#if defined(__GNUC__)
#  define RV_API __attribute__((visibility("default")))
#else
#  define RV_API
#endif

/** Error codes (always negative when returned). */
enum {
    RV_OK       = 0,
    RV_EINVAL   = -EINVAL,   /* bad argument: format, size, parameter block */
    RV_ENOMEM   = -ENOMEM,   /* host or device memory exhausted */
    RV_ENOENT   = -ENOENT,   /* module or kernel not found; a path that does not exist
                                (the file, or a directory on an output's path) */
    RV_EIO      = -EIO,      /* read/write failure */
    RV_EBADMSG  = -EBADMSG,  /* malformed input (file header, PTX, module) */
    RV_ENODEV   = -ENODEV,   /* the requested backend/device is not available */
    RV_ENOSYS   = -ENOSYS,   /* not supported by this backend or build */
    RV_EOVERFLOW = -EOVERFLOW, /* a size does not fit */
    RV_EAGAIN   = -EAGAIN,   /* try again (streaming: no frame yet) */
    RV_EPIPE    = -EPIPE,    /* end of stream */
    RV_EDEVICE  = -1000      /* the GPU driver reported an error (see message) */
};

/** Short, static description of an RV_E* code. */
RV_API const char *rv_strerror(int err);

typedef enum RV_LogLevel {
    RV_LOG_ERROR = 0,
    RV_LOG_WARN  = 1,
    RV_LOG_INFO  = 2,
    RV_LOG_DEBUG = 3
} RV_LogLevel;

/**
 * Log callback: `msg` has no trailing newline and is valid during the call.
 * Usually called on the thread using the context, but during an
 * rv_streaming_run() also on its capture thread (a source's messages, e.g. a
 * malformed Y4M frame), possibly at the same time: it must be thread-safe.
 */
typedef void (*RV_LogFn)(void *opaque, RV_LogLevel level, const char *msg);

/** Version string of the library, "major.minor.patch". */
RV_API const char *rv_version(void);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_COMMON_H */
