/*
 * ravioli/context.h - the context: backend choice, worker threads, modules.
 *
 *     RV_Settings s;
 *     rv_settings_default(&s);          // backend AUTO, threads = cores
 *     RV_Context *ctx;
 *     if (rv_context_create(&ctx, &s) < 0) ...
 *     ...
 *     rv_context_destroy(&ctx);         // sets ctx to NULL
 *
 * There is no global state: everything hangs off a context. A context and
 * the objects created from it are used from one thread at a time.
 */
#ifndef RAVIOLI_CONTEXT_H
#define RAVIOLI_CONTEXT_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RV_Context RV_Context;

typedef enum RV_Backend {
    RV_BACKEND_AUTO = 0, /* CUDA when a driver and a device are there, else CPU */
    RV_BACKEND_CPU  = 1, /* pthreads worker pool */
    RV_BACKEND_CUDA = 2  /* CUDA Driver API; an error if there is no GPU */
} RV_Backend;

typedef struct RV_Settings {
    RV_Backend backend;       /* default RV_BACKEND_AUTO */
    int threads;              /* CPU worker threads; 0 = number of cores */
    int device;               /* CUDA device ordinal; default 0 */
    const char *module_path;  /* extra ':'-separated module directories, or NULL */
    RV_LogFn log;             /* NULL: messages go to stderr */
    void *log_opaque;
    RV_LogLevel log_level;    /* default RV_LOG_INFO */
} RV_Settings;

/** Fills `s` with the defaults. */
RV_API void rv_settings_default(RV_Settings *s);

/**
 * Creates a context. With RV_BACKEND_AUTO and no usable GPU the context runs
 * on the CPU and says so once at RV_LOG_INFO; with RV_BACKEND_CUDA that is
 * an error (RV_ENODEV) whose message says why.
 * `settings` may be NULL for the defaults.
 */
RV_API int rv_context_create(RV_Context **out, const RV_Settings *settings);

/**
 * Destroys the context and everything still owned by it (modules, images,
 * buffers); sets *ctx to NULL. Objects built on those (a module's handles
 * such as RV_Dwt or RV_Deband, a stream) must be destroyed first: their
 * destroy functions release what they hold of the context, which is gone
 * afterwards, so calling them then is a use after free, and not calling them
 * leaks their own memory.
 */
RV_API void rv_context_destroy(RV_Context **ctx);

/** The backend the context actually runs on (never RV_BACKEND_AUTO). */
RV_API RV_Backend rv_context_backend(const RV_Context *ctx);
/** "cpu" or "cuda". */
RV_API const char *rv_backend_name(RV_Backend b);

/** Worker threads of the CPU backend (>= 1); RV_EINVAL for a NULL context. */
RV_API int rv_context_threads(const RV_Context *ctx);
/** Changes the CPU worker count (0 = number of cores). */
RV_API int rv_context_set_threads(RV_Context *ctx, int threads);

/** Message of the latest failure on this context ("" before any): it stays until
 * the next failure, a call that succeeds does not clear it (so read it after a
 * call that returned a negative code). The modules' own messages
 * (rv_dwt_error, rv_deband_error) follow the same rule. "no context" for NULL. */
RV_API const char *rv_context_error(const RV_Context *ctx);

/** Waits until all work queued on the context has finished. */
RV_API int rv_context_sync(RV_Context *ctx);

/**
 * A count that grows with everything queued on the context's device queues
 * (launches, copies, waits) and with every change of the queue work goes to
 * (the streaming runtime's, rv_side_begin/end/join). Two equal readings mean
 * that nothing was queued in between: a module can tell so that the launch
 * it queues next directly follows its own previous one (RV_Deband then lets
 * independent frames overlap). 0 for a NULL context, and always 0 on the
 * CPU backend, which queues nothing (every call runs to its end first).
 */
RV_API uint64_t rv_context_queued(const RV_Context *ctx);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_CONTEXT_H */
