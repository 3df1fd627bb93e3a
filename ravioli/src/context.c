/*
 * context.c - contexts, errors, logging, backend selection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

RV_API const char *rv_version(void)
{
    return "0.1.0";
}

RV_API const char *rv_strerror(int err)
{
    switch (err) {
    case RV_OK:        return "success";
    case RV_EINVAL:    return "invalid argument";
    case RV_ENOMEM:    return "out of memory";
    case RV_ENOENT:    return "not found";
    case RV_EIO:       return "input/output error";
    case RV_EBADMSG:   return "malformed input";
    case RV_ENODEV:    return "device not available";
    case RV_ENOSYS:    return "not supported";
    case RV_EOVERFLOW: return "size overflow";
    case RV_EAGAIN:    return "try again";
    case RV_EPIPE:     return "end of stream";
    case RV_EDEVICE:   return "GPU driver error";
    default:           return "unknown error";
    }
}

RV_API void rv_settings_default(RV_Settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->backend = RV_BACKEND_AUTO;
    s->threads = 0;
    s->device = 0;
    s->module_path = NULL;
    s->log = NULL;
    s->log_opaque = NULL;
    s->log_level = RV_LOG_INFO;
}

RV_API const char *rv_backend_name(RV_Backend b)
{
    switch (b) {
    case RV_BACKEND_AUTO: return "auto";
    case RV_BACKEND_CPU:  return "cpu";
    case RV_BACKEND_CUDA: return "cuda";
    }
    return "unknown";
}

/* ---------------------------------------------------------------- */
/* Logging and errors                                                 */
/* ---------------------------------------------------------------- */

static const char *level_name(RV_LogLevel l)
{
    switch (l) {
    case RV_LOG_ERROR: return "error";
    case RV_LOG_WARN:  return "warning";
    case RV_LOG_INFO:  return "info";
    case RV_LOG_DEBUG: return "debug";
    }
    return "log";
}

void rv__vlog(RV_Context *ctx, RV_LogLevel lvl, const char *fmt, va_list ap)
{
    /* No context (a call given a NULL handle): no log callback to send the
     * message to, and the library does not print on its own (common.h). */
    if (!ctx || lvl > ctx->settings.log_level)
        return;
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (ctx->settings.log)
        ctx->settings.log(ctx->settings.log_opaque, lvl, msg);
    else
        fprintf(stderr, "ravioli: %s: %s\n", level_name(lvl), msg);
}

void rv__log(RV_Context *ctx, RV_LogLevel lvl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rv__vlog(ctx, lvl, fmt, ap);
    va_end(ap);
}

int rv__error(RV_Context *ctx, int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (ctx) {
        pthread_mutex_lock(&ctx->lock);
        snprintf(ctx->err, sizeof(ctx->err), "%s", msg);
        ctx->err_seq++;
        pthread_mutex_unlock(&ctx->lock);
    }
    rv__log(ctx, RV_LOG_ERROR, "%s", msg);
    return code;
}

unsigned long rv__error_seq(RV_Context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    const unsigned long n = ctx->err_seq;
    pthread_mutex_unlock(&ctx->lock);
    return n;
}

void rv__error_since(RV_Context *ctx, unsigned long seq, char *buf, size_t size)
{
    pthread_mutex_lock(&ctx->lock);
    snprintf(buf, size, "%s", ctx->err_seq != seq ? ctx->err : "");
    pthread_mutex_unlock(&ctx->lock);
}

RV_API const char *rv_context_error(const RV_Context *ctx)
{
    return ctx ? ctx->err : "no context";
}

/* ---------------------------------------------------------------- */
/* Lists                                                              */
/* ---------------------------------------------------------------- */

void rv__list_init(rv_list *l)
{
    l->prev = l->next = l;
}

void rv__list_add(rv_list *head, rv_list *n)
{
    n->next = head->next;
    n->prev = head;
    head->next->prev = n;
    head->next = n;
}

void rv__list_del(rv_list *n)
{
    if (!n->next)
        return;
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->prev = n->next = NULL;
}

const char *rv__elem_name(uint32_t t)
{
    switch (t) {
    case RV_ET_NONE:   return "none";
    case RV_ET_U8:     return "u8";
    case RV_ET_U16:    return "u16";
    case RV_ET_I32:    return "i32";
    case RV_ET_F32:    return "f32";
    case RV_ET_RGBA:   return "rgba";
    case RV_ET_RGBA16: return "rgba16";
    }
    return "unknown";
}

const char *rv__op_name(uint32_t op)
{
    switch (op) {
    case RV_OP_PIX:  return "procPix";
    case RV_OP_NBR:  return "procNbr";
    case RV_OP_BOX:  return "procBox";
    case RV_OP_COMP: return "compImg";
    case RV_OP_RAW:  return "raw";
    }
    return "unknown";
}

/* ---------------------------------------------------------------- */
/* Contexts                                                           */
/* ---------------------------------------------------------------- */

static int default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > 256)
        n = 256;
    return (int)n;
}

/* An error found in the settings before a context exists: to the settings'
 * log callback when there is one (as every later message of the context),
 * else to stderr, filtered by the settings' level like rv__vlog. */
static void settings_error(const RV_Settings *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void settings_error(const RV_Settings *s, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (RV_LOG_ERROR > s->log_level)
        return;
    if (s->log)
        s->log(s->log_opaque, RV_LOG_ERROR, msg);
    else
        fprintf(stderr, "ravioli: %s: %s\n", level_name(RV_LOG_ERROR), msg);
}

RV_API int rv_context_create(RV_Context **out, const RV_Settings *settings)
{
    RV_Settings def;
    if (!out)
        return RV_EINVAL;
    *out = NULL;
    if (!settings) {
        rv_settings_default(&def);
        settings = &def;
    }
    if (settings->threads < 0 || settings->threads > 1024) {
        settings_error(settings, "rv_context_create: threads must be 0..1024 (got %d)",
                       settings->threads);
        return RV_EINVAL;
    }
    if (settings->backend != RV_BACKEND_AUTO && settings->backend != RV_BACKEND_CPU &&
        settings->backend != RV_BACKEND_CUDA) {
        settings_error(settings, "rv_context_create: unknown backend %d", (int)settings->backend);
        return RV_EINVAL;
    }

    RV_Context *ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return RV_ENOMEM;
    ctx->settings = *settings;
    if (settings->module_path) {
        ctx->module_path = strdup(settings->module_path);
        if (!ctx->module_path) {
            free(ctx);
            return RV_ENOMEM;
        }
    }
    ctx->settings.module_path = ctx->module_path;
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->module_lock, NULL);
    rv__list_init(&ctx->images);
    rv__list_init(&ctx->modules);
    rv__list_init(&ctx->buffers);

    ctx->threads = settings->threads ? settings->threads : default_threads();
    int err = rv_pool_create(&ctx->pool, ctx->threads);
    if (err < 0) {
        settings_error(settings, "rv_context_create: cannot start %d worker threads", ctx->threads);
        rv_context_destroy(&ctx);
        return err;
    }

    ctx->backend = RV_BACKEND_CPU;
    ctx->ops = &rv_cpu_backend;
    if (settings->backend != RV_BACKEND_CPU) {
        char why[512] = "";
        err = rv_cuda_backend_open(ctx, why, sizeof(why));
        if (err >= 0) {
            ctx->backend = RV_BACKEND_CUDA;
        } else if (settings->backend == RV_BACKEND_CUDA) {
            rv__log(ctx, RV_LOG_ERROR, "CUDA backend requested but not available: %s", why);
            rv_context_destroy(&ctx);
            return err;
        } else {
            rv__log(ctx, RV_LOG_INFO, "no usable GPU (%s): running on the CPU backend with %d thread%s",
                    why, ctx->threads, ctx->threads == 1 ? "" : "s");
        }
    }
    *out = ctx;
    return 0;
}

RV_API void rv_context_destroy(RV_Context **pctx)
{
    if (!pctx || !*pctx)
        return;
    RV_Context *ctx = *pctx;
    int leaked = 0;
    while (ctx->modules.next && ctx->modules.next != &ctx->modules) {
        RV_Module *m = (RV_Module *)ctx->modules.next;
        leaked += m->refs;
        m->refs = 1; /* every reference at once */
        rv_module_unload(&m);
    }
    while (ctx->images.next && ctx->images.next != &ctx->images) {
        RV_Image *img = (RV_Image *)ctx->images.next;
        rv_image_destroy(&img);
        leaked++;
    }
    while (ctx->buffers.next && ctx->buffers.next != &ctx->buffers) {
        RV_Buffer *b = (RV_Buffer *)ctx->buffers.next;
        rv_buffer_destroy(&b);
        leaked++;
    }
    if (leaked)
        rv__log(ctx, RV_LOG_DEBUG, "context destroyed %d object(s) still alive", leaked);
    if (ctx->ops && ctx->ops->destroy)
        ctx->ops->destroy(ctx);
    rv_pool_destroy(&ctx->pool);
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->module_lock);
    free(ctx->module_path);
    free(ctx);
    *pctx = NULL;
}

RV_API RV_Backend rv_context_backend(const RV_Context *ctx)
{
    return ctx ? ctx->backend : RV_BACKEND_CPU;
}

RV_API uint64_t rv_context_queued(const RV_Context *ctx)
{
    return ctx && ctx->ops && ctx->ops->queued ? ctx->ops->queued((RV_Context *)ctx) : 0;
}

RV_API int rv_context_threads(const RV_Context *ctx)
{
    return ctx ? ctx->threads : RV_EINVAL;
}

RV_API int rv_context_set_threads(RV_Context *ctx, int threads)
{
    if (!ctx)
        return RV_EINVAL;
    if (threads < 0 || threads > 1024)
        return rv__error(ctx, RV_EINVAL, "rv_context_set_threads: threads must be 0..1024 (got %d)",
                         threads);
    int n = threads ? threads : default_threads();
    if (n == ctx->threads)
        return 0;
    rv_pool *p = NULL;
    int err = rv_pool_create(&p, n);
    if (err < 0)
        return rv__error(ctx, err, "rv_context_set_threads: cannot start %d threads", n);
    rv_pool_destroy(&ctx->pool);
    ctx->pool = p;
    ctx->threads = n;
    return 0;
}

RV_API int rv_context_sync(RV_Context *ctx)
{
    if (!ctx)
        return RV_EINVAL;
    return ctx->ops->sync ? ctx->ops->sync(ctx) : 0;
}
