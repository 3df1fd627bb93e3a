/*
 * internal.h - ravioli's private structures and the backend function table.
 * Not installed. Backends (src/cpu_backend.c, ravioli_cuda/src/) fill a
 * struct rv_backend_ops; the core (context, image, module, ops) validates
 * every call and then dispatches through it.
 */
#ifndef RAVIOLI_INTERNAL_H
#define RAVIOLI_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>

#include "ravioli/kernel_abi.h"
#include "ravioli/ravioli.h"

#define RV_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Worker pool (pool.c)                                                 */
/* ------------------------------------------------------------------ */
typedef struct rv_pool rv_pool;
/* fn(arg, task, worker): worker is in [0, threads). */
typedef void (*rv_task_fn)(void *arg, int task, int worker);
int rv_pool_create(rv_pool **out, int threads);
void rv_pool_destroy(rv_pool **pool);
int rv_pool_threads(const rv_pool *pool);
/* Runs tasks [0, ntasks) on the workers and the calling thread; returns when all are done. */
void rv_pool_run(rv_pool *pool, int ntasks, rv_task_fn fn, void *arg);

/* ------------------------------------------------------------------ */
/* Objects                                                              */
/* ------------------------------------------------------------------ */
typedef struct rv_list { struct rv_list *prev, *next; } rv_list;

typedef struct rv_plane_store {
    int w, h;
    ptrdiff_t pitch;      /* bytes */
    size_t offset;        /* from the start of the image's storage */
} rv_plane_store;

struct RV_Image {
    rv_list link;         /* in ctx->images */
    RV_Context *ctx;
    int w, h;
    RV_Format fmt;
    const RV_FormatInfo *fi;
    int stride;
    int nplanes;
    rv_plane_store pl[3];
    size_t bytes;         /* total storage size (same layout on host and device) */
    unsigned char *host;  /* host storage (page-locked on CUDA) */
    void *dev;            /* backend's device storage, or NULL */
    int host_valid;       /* host copy holds the current pixels */
    int dev_valid;        /* device copy holds the current pixels */
};

struct RV_Kernel {
    struct RV_Kernel *next;
    RV_Module *mod;
    char *name;
    rv_kernel_desc desc;
    void *entry;          /* CPU: function pointer; CUDA: CUfunction */
    void *bk;             /* backend-private per-kernel data (launch config) */
    int arch;             /* rv_kernel_arch: the GPU architecture of the code (80, 90; 0: CPU) */
};

struct RV_Module {
    rv_list link;         /* in ctx->modules */
    RV_Context *ctx;
    char *path;
    void *handle;         /* CPU: dlopen handle; CUDA: CUmodule */
    RV_Kernel *kernels;
    int refs;             /* rv_module_load calls of this file not yet unloaded */
};

struct RV_Buffer {
    rv_list link;         /* in ctx->buffers */
    RV_Context *ctx;
    size_t size;
    void *host;           /* CPU backend storage */
    uint64_t dev;         /* CUDA device address */
};

/* A validated element operation on one plane. */
typedef struct rv_elem_call {
    const RV_Kernel *k;
    rv_args args;
    int rows, cols;       /* samples to evaluate: rows x cols */
    RV_Image *out;        /* image written (marked current on the backend's side) */
    RV_Image *in[2];      /* images read */
} rv_elem_call;

struct rv_backend_ops {
    const char *name;
    void (*destroy)(RV_Context *ctx);

    /* Host storage for images (page-locked where it helps). */
    void *(*host_alloc)(RV_Context *ctx, size_t size);
    void (*host_free)(RV_Context *ctx, void *p, size_t size);

    /* Modules: the file extensions this backend loads, in the order a
     * directory is searched (NULL-terminated), and the same for messages. */
    const char *const *module_exts;
    const char *module_forms;
    int (*module_load)(RV_Context *ctx, const char *path, RV_Module *m);
    void (*module_unload)(RV_Context *ctx, RV_Module *m);
    int (*kernel_lookup)(RV_Context *ctx, RV_Module *m, const char *name, RV_Kernel *k);
    void (*kernel_free)(RV_Context *ctx, RV_Kernel *k);

    /* Image device copies (NULL on the CPU backend: host is the only copy). */
    int (*image_to_device)(RV_Context *ctx, RV_Image *img);
    int (*image_to_host)(RV_Context *ctx, RV_Image *img);
    void (*image_free_device)(RV_Context *ctx, RV_Image *img);
    /* Device address of the image's storage (allocating it if needed). */
    int (*device_base)(RV_Context *ctx, RV_Image *img, uint64_t *base);

    /* Runs one plane of an element operation; for procBox with a reduction,
     * stores the combined result in *red. The args' plane pointers are
     * already the backend's (device pointers on CUDA). */
    int (*run_elem)(RV_Context *ctx, rv_elem_call *call, rv_partial *red);

    /* Raw kernels. */
    int (*launch_raw)(RV_Context *ctx, const RV_Kernel *k, const RV_LaunchShape *shape,
                      const void *args, size_t args_size);
    /* Blocks of this shape that can be resident at once (> 0), or an error;
     * NULL where blocks run one after another (cooperative entries refused). */
    int (*resident_blocks)(RV_Context *ctx, const RV_Kernel *k, const RV_LaunchShape *shape);

    /* Buffers. */
    int (*buffer_alloc)(RV_Context *ctx, RV_Buffer *b);
    void (*buffer_free)(RV_Context *ctx, RV_Buffer *b);
    int (*buffer_upload)(RV_Context *ctx, RV_Buffer *b, size_t off, const void *src, size_t n);
    int (*buffer_download)(RV_Context *ctx, RV_Buffer *b, size_t off, void *dst, size_t n);
    /* rows rows of row_bytes between buffer bytes off + r bp and host h + r hp (up: into
     * the buffer); arguments checked, pitches >= row_bytes, rows and row_bytes > 0 */
    int (*buffer_copy_rows)(RV_Context *ctx, RV_Buffer *b, size_t off, size_t bp, void *h, size_t hp,
                            size_t row_bytes, size_t rows, int up);
    /* rv_host_memory_locked (p not NULL); NULL on the CPU backend (0) */
    int (*host_locked)(RV_Context *ctx, const void *p);

    int (*sync)(RV_Context *ctx);

    /* Side queue (ops.h rv_side_*): op is RV__SIDE_BEGIN, _END or _JOIN.
     * NULL on the CPU backend, which runs every launch in order. */
    int (*side)(RV_Context *ctx, int op);

    /* rv_context_queued; NULL where nothing is queued (the CPU backend runs
     * every call to its end before returning). */
    uint64_t (*queued)(RV_Context *ctx);
};
enum { RV__SIDE_BEGIN = 0, RV__SIDE_END = 1, RV__SIDE_JOIN = 2 };

struct RV_Context {
    RV_Settings settings;
    char *module_path;          /* owned copy of settings.module_path */
    RV_Backend backend;
    const struct rv_backend_ops *ops;
    void *bk;                   /* backend-private state */
    rv_pool *pool;              /* CPU worker pool (also used by the CUDA backend's fallbacks) */
    int threads;
    rv_list images, modules, buffers;
    RV_Image *scratch;          /* reused output of in-place procNbr */
    int in_side;                /* between rv_side_begin and rv_side_end */
    pthread_mutex_t lock;       /* guards err and the object lists */
    pthread_mutex_t module_lock; /* guards the modules' references and kernel lists
                                    (taken before lock, never inside it) */
    char err[1024];
    unsigned long err_seq;      /* messages recorded in err so far (under lock) */
};

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

/* Records the message as the context's error, logs it, returns `code`. */
int rv__error(RV_Context *ctx, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void rv__log(RV_Context *ctx, RV_LogLevel lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The count of messages recorded on the context (rv__error) so far. */
unsigned long rv__error_seq(RV_Context *ctx);
/* Copies into buf the context's message when one was recorded after
 * rv__error_seq() returned `seq`, else "" (a callee that failed without a
 * message of its own must not get an older, unrelated one attached). */
void rv__error_since(RV_Context *ctx, unsigned long seq, char *buf, size_t size);
void rv__vlog(RV_Context *ctx, RV_LogLevel lvl, const char *fmt, va_list ap);

/* The code of a path that could not be opened (errno e of open/fopen/stat):
 * RV_ENOENT when it does not exist (the file, or a directory on its way, e.g.
 * an output file's), else RV_EIO (permissions, a directory, ...). Every
 * function that opens a path the caller names uses it (common.h). */
static inline int rv__path_error(int e)
{
    return e == ENOENT ? RV_ENOENT : RV_EIO;
}

void rv__list_init(rv_list *l);
void rv__list_add(rv_list *head, rv_list *n);
void rv__list_del(rv_list *n);

const char *rv__elem_name(uint32_t elem_type);
const char *rv__op_name(uint32_t op);

/* Makes the image's pixels current on the side `ops` runs on. */
int rv__image_on_backend(RV_Image *img);
/* After a backend wrote the image. */
void rv__image_written(RV_Image *img);
/* Swaps the storage of two images of identical layout (in-place procNbr). */
void rv__image_swap_storage(RV_Image *a, RV_Image *b);
/* Host pointer of a plane (no validity change). */
unsigned char *rv__plane_host(const RV_Image *img, int plane);

/* Combines per-task/per-block partials in order (deterministic). */
void rv__combine_partials(int reduce, uint32_t score_type, const rv_partial *parts, int n,
                          rv_partial *out);

/* Backends. */
extern const struct rv_backend_ops rv_cpu_backend;
/* Tries to bring up the CUDA backend on ctx (ravioli_cuda/). On failure
 * returns a negative code and writes the reason to `why`. */
int rv_cuda_backend_open(RV_Context *ctx, char *why, size_t why_size);

#endif /* RAVIOLI_INTERNAL_H */
