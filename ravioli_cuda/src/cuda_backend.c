/*
 * cuda_backend.c - the CUDA Driver API backend.
 *
 * Driver: libcuda.so.1 is opened with dlopen when a context asks for CUDA
 * (RV_BACKEND_AUTO or RV_BACKEND_CUDA); every function comes from a table
 * (cuda_driver.h), so the library builds and runs without CUDA installed.
 * The environment variable RAVIOLI_CUDA_DRIVER names another library file
 * (tests use a missing one to exercise the fallback on a GPU machine).
 *
 * Context: the device's primary context, made current on the calling thread
 * at the start of every backend entry (cuCtxSetCurrent is a thread-local
 * store), so a RV_Context may move between threads. Work goes to one
 * blocking stream per context (ordered with the legacy NULL stream, so
 * events recorded on stream 0 bracket it); more streams are created for the
 * streaming runtime through rv__cuda_set_stream() (cuda_backend.h).
 *
 * Memory (see docs/cuda.md):
 *  - image host storage is page-locked (cuMemHostAlloc) when the driver
 *    grants it, else ordinary memory; a 64-byte header records which;
 *  - device storage comes from a pool: sizes are rounded to a bucket
 *    (powers of two split into 8 steps, 256-byte minimum) and freed blocks
 *    wait on a free list for the next allocation of the same bucket, so a
 *    steady stream of operations never calls cuMemAlloc. When cuMemAlloc
 *    fails the pool gives its cached blocks back and tries once more; if it
 *    still fails the caller gets RV_ENOMEM and the context stays usable;
 *  - transfers happen only when the copy on the other side is stale
 *    (RV_Image.host_valid / dev_valid, managed by image.c and ops.c).
 *
 * Launch configuration: per kernel, from cuOccupancyMaxPotentialBlockSize
 * (the largest block that reaches the best occupancy for that kernel's
 * registers on this device), shaped 32 wide (a warp along x, coalesced
 * rows) and capped at 256 threads. The grid covers the work once; the
 * entries loop (grid-stride) so any grid is correct.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cuda_backend.h"
#include "cuda_driver.h"
#include "internal.h"
#include "trace.h"

#define RVC_MAX_STREAMS 10 /* 8 frames in flight + an upload and a download stream */
#define RVC_POOL_CACHE_MAX ((size_t)4 << 30) /* cached free device memory */
#define RVC_HOST_HDR 64
#define RVC_HOST_PINNED 0x4e4e4950u /* "PINN" */
#define RVC_HOST_HEAP 0x50414548u   /* "HEAP" */
#define RVC_BOX_PART_OFFSET 64      /* scratch: counter, final partial, then per-block partials */

typedef struct rvc_free_block {
    struct rvc_free_block *next;
    CUdeviceptr ptr;
    size_t size;
} rvc_free_block;

/* symbols of the entries looked up (rvk_<name>, rvkw_<name>), by the hash a
 * traced entry records (kernel.h, RV_TRACE_GRIDS); kept only while
 * RAVIOLI_CUDA_TRACE_GRIDS is set */
#define RVC_TRACE_NAMES 256
typedef struct rvc_trace_name {
    uint64_t hash;
    char name[48];
} rvc_trace_name;

typedef struct rvc_state {
    rvc_driver drv;
    rvc_trace_name *trace_names; /* RVC_TRACE_NAMES, or NULL */
    int ntrace_names;
    CUdevice dev;
    CUcontext cu;
    int ordinal;
    char name[256];
    int cc_major, cc_minor, sm_count, max_smem_optin, max_smem_sm, driver_version;
    size_t total_mem;
    CUstream streams[RVC_MAX_STREAMS];
    int nstreams;
    int cur; /* stream index in use */
    /* side queues (rv_side_*): side[i] runs beside streams[i] at a lower
     * priority; ev_side[i] orders the two (recorded and waited at once) */
    CUstream side[RVC_MAX_STREAMS];
    CUevent ev_side[RVC_MAX_STREAMS];
    int nside;
    int in_side;
    /* stream priorities: the frames' streams one step above the side queues
     * when the device has priorities (prio_main == prio_side: it has not) */
    int prio_main, prio_side;
    rvc_stream_prio_fn create_prio;
    /* device memory pool */
    rvc_free_block *free_list;
    size_t cached_bytes, live_bytes;
    unsigned long long cu_allocs, pool_hits;
    /* procBox reduction scratch */
    CUdeviceptr box_scratch;
    size_t box_scratch_size;
    rv_partial *box_result; /* pinned, one partial */
    CUdeviceptr box_result_dev; /* its device address when mapped (the kernel writes it), else 0 */
    /* programmatic dependent launch of RV_KFLAG_CHAINED raw kernels:
     * cuLaunchKernelEx when the driver has it and the device is sm_90+,
     * unless RAVIOLI_CUDA_CHAINED=0 (NULL: plain launches) */
    rvc_launch_ex_fn launch_ex;
    /* cuLaunchKernelEx whenever the driver has it: cooperative entries
     * (RV_KFLAG_COOPERATIVE) need it; coop_plain: the driver refused the
     * cooperative attribute together with programmatic serialisation once,
     * so they launch with the first alone */
    rvc_launch_ex_fn kernel_ex;
    int coop_plain;
    /* rv_context_queued: grows with every use of a stream for queueing
     * (cur_stream) and every change of the current stream */
    uint64_t queued;
    /* copies between buffers and pageable host memory, staged (see "Staged
     * copies"): two page-locked buffers, an event each, the copying threads;
     * made on the first such copy. staging_off: RAVIOLI_CUDA_STAGED=0, or a
     * failure to make them (then the driver's own pageable copies) */
    pthread_mutex_t stage_mu;
    int stage_mu_init, staging_off;
    unsigned char *stage_buf[2];
    CUevent stage_ev[2];
    rv_pool *stage_pool;
    int stage_threads;
} rvc_state;

typedef struct rvc_kernel {
    int block;     /* threads per block chosen for this device */
    int bx, by;    /* its 2D shape */
    int vec;       /* samples per thread of the s == 1 vector path (procPix/compImg) */
    int regs;
    int per_sm;    /* resident blocks a multiprocessor at kb->block threads (0: unknown) */
    CUfunction wide;  /* procNbr: the large-plane entry rvkw_<name> (kernel.h RV_GPU_NBR_WIDE), or NULL */
    int wide_per_sm;  /* its resident blocks a multiprocessor (0: unknown, then it is not used) */
    int dyn_shared;   /* raw kernels: the dynamic shared memory allowed so far (above 48 KB;
                         only raised, under ctx->lock: a module's kernels are shared by its
                         users, which may launch from several threads) */
    int chained;      /* launched with programmatic stream serialisation: an RV_KFLAG_CHAINED
                         entry whose code was compiled for sm_90 or later (code for an older
                         target has no griddepcontrol.wait, so it must wait in stream order),
                         where the device and driver have it (rvc_state.launch_ex) */
} rvc_kernel;

static rvc_state *st_of(RV_Context *ctx)
{
    return (rvc_state *)ctx->bk;
}

/* The stream work is queued on now; every caller queues something on it
 * (or waits for it), which rv_context_queued counts. */
static CUstream cur_stream(rvc_state *st)
{
    st->queued++;
    return st->in_side ? st->side[st->cur] : st->streams[st->cur];
}

static uint64_t cuda_queued(RV_Context *ctx)
{
    return st_of(ctx)->queued;
}

/* Whether work may be queued on more than one stream (pooled memory then
 * waits for all of them before it is reused or freed). */
static int multi_stream(const rvc_state *st)
{
    return st->nstreams > 1 || st->nside > 0;
}

/* A stream of the given priority (plain when the driver has no priorities). */
static CUresult stream_new(rvc_state *st, CUstream *s, int prio)
{
    if (st->create_prio && st->prio_main != st->prio_side)
        return st->create_prio(s, RVC_STREAM_DEFAULT, prio);
    return st->drv.cuStreamCreate(s, RVC_STREAM_DEFAULT);
}

/* ---------------------------------------------------------------- */
/* Errors                                                             */
/* ---------------------------------------------------------------- */

static void describe(const rvc_driver *d, CUresult r, char *buf, size_t n)
{
    const char *name = NULL, *str = NULL;
    if (d->cuGetErrorName && d->cuGetErrorName(r, &name) != CUDA_SUCCESS)
        name = NULL;
    if (d->cuGetErrorString && d->cuGetErrorString(r, &str) != CUDA_SUCCESS)
        str = NULL;
    snprintf(buf, n, "%s (%d): %s", name ? name : "CUDA_ERROR_UNKNOWN", (int)r,
             str ? str : "no description from the driver");
}

/* Records "<what>: <CUDA error name> (<code>): <description>" on ctx. */
static int cu_fail(RV_Context *ctx, CUresult r, const char *what)
{
    char d[320];
    describe(&st_of(ctx)->drv, r, d, sizeof(d));
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        return rv__error(ctx, RV_ENOMEM, "%s: device out of memory: %s", what, d);
    return rv__error(ctx, RV_EDEVICE, "%s: %s", what, d);
}

#define CK(ctx, call, what)                                                                    \
    do {                                                                                       \
        CUresult ck_r_ = (call);                                                               \
        if (ck_r_ != CUDA_SUCCESS)                                                             \
            return cu_fail((ctx), ck_r_, (what));                                              \
    } while (0)

static int bind(RV_Context *ctx)
{
    rvc_state *st = st_of(ctx);
    CK(ctx, st->drv.cuCtxSetCurrent(st->cu), "cuCtxSetCurrent");
    return 0;
}

/* ---------------------------------------------------------------- */
/* Device memory pool                                                 */
/* ---------------------------------------------------------------- */

/* Bucket size: at least 256 bytes; above that the next of 8 steps per
 * power of two (at most 12.5% waste). */
static size_t bucket_size(size_t n)
{
    if (n <= 256)
        return 256;
    size_t p = 256;
    while (p < n && p < ((size_t)1 << 62))
        p <<= 1;
    size_t step = p / 16 < 256 ? 256 : p / 16; /* p/2 .. p in 8 steps of p/16 */
    return (n + step - 1) / step * step;
}

static void pool_trim(RV_Context *ctx, rvc_state *st)
{
    (void)ctx;
    if (st->free_list)
        st->drv.cuCtxSynchronize();
    while (st->free_list) {
        rvc_free_block *b = st->free_list;
        st->free_list = b->next;
        st->drv.cuMemFree(b->ptr);
        st->cached_bytes -= b->size;
        free(b);
    }
}

static int pool_alloc(RV_Context *ctx, size_t n, CUdeviceptr *out, const char *what)
{
    rvc_state *st = st_of(ctx);
    const size_t sz = bucket_size(n);
    for (rvc_free_block **pp = &st->free_list; *pp; pp = &(*pp)->next) {
        if ((*pp)->size == sz) {
            rvc_free_block *b = *pp;
            *pp = b->next;
            *out = b->ptr;
            st->cached_bytes -= sz;
            st->live_bytes += sz;
            st->pool_hits++;
            free(b);
            /* Streaming pipeline (several streams in use): the block may
             * have been freed while work on *another* stream still used it,
             * and stream order protects only the current stream. Wait for
             * all of them before handing it out. The pipeline allocates
             * only while warming up, so this costs nothing per frame. */
            if (multi_stream(st) && st->drv.cuCtxSynchronize() != CUDA_SUCCESS) {
                st->drv.cuMemFree(*out);
                st->live_bytes -= sz;
                *out = 0;
                return rv__error(ctx, RV_EDEVICE, "%s: cuCtxSynchronize before reusing a pooled block failed", what);
            }
            return 0;
        }
    }
    CUdeviceptr p = 0;
    CUresult r = st->drv.cuMemAlloc(&p, sz);
    if (r == CUDA_ERROR_OUT_OF_MEMORY && st->free_list) {
        pool_trim(ctx, st);
        r = st->drv.cuMemAlloc(&p, sz);
    }
    if (r != CUDA_SUCCESS) {
        char d[320];
        describe(&st->drv, r, d, sizeof(d));
        size_t fr = 0, tot = 0;
        if (st->drv.cuMemGetInfo(&fr, &tot) != CUDA_SUCCESS)
            fr = tot = 0;
        return rv__error(ctx, r == CUDA_ERROR_OUT_OF_MEMORY ? RV_ENOMEM : RV_EDEVICE,
                         "%s: cannot allocate %zu bytes of GPU memory (%.1f MiB held by this context, "
                         "%.1f of %.1f MiB free on the device): %s",
                         what, sz, st->live_bytes / 1048576.0, fr / 1048576.0, tot / 1048576.0, d);
    }
    st->cu_allocs++;
    st->live_bytes += sz;
    *out = p;
    return 0;
}

static void pool_free(RV_Context *ctx, CUdeviceptr p, size_t n)
{
    rvc_state *st = st_of(ctx);
    if (!p)
        return;
    const size_t sz = bucket_size(n);
    st->live_bytes -= sz;
    rvc_free_block *b = NULL;
    if (st->cached_bytes + sz <= RVC_POOL_CACHE_MAX)
        b = malloc(sizeof(*b));
    if (!b) {
        /* stream-ordered users of p are done once the stream is (with
         * several streams in use, once all of them are: pipeline) */
        if (multi_stream(st))
            st->drv.cuCtxSynchronize();
        else
            st->drv.cuStreamSynchronize(cur_stream(st));
        st->drv.cuMemFree(p);
        return;
    }
    /* Reuse is safe: every user of the block is queued on the context's
     * stream, and so is every later user. */
    b->ptr = p;
    b->size = sz;
    b->next = st->free_list;
    st->free_list = b;
    st->cached_bytes += sz;
}

/* ---------------------------------------------------------------- */
/* Host storage                                                       */
/* ---------------------------------------------------------------- */

static void *cuda_host_alloc(RV_Context *ctx, size_t size)
{
    rvc_state *st = st_of(ctx);
    unsigned char *p = NULL;
    uint32_t tag = RVC_HOST_PINNED;
    if (bind(ctx) < 0 || st->drv.cuMemHostAlloc((void **)&p, size + RVC_HOST_HDR, 0) != CUDA_SUCCESS) {
        p = aligned_alloc(64, (size + RVC_HOST_HDR + 63) / 64 * 64);
        tag = RVC_HOST_HEAP;
        if (!p)
            return NULL;
        rv__log(ctx, RV_LOG_DEBUG, "cuMemHostAlloc(%zu) refused; using pageable memory", size);
    }
    memcpy(p, &tag, sizeof(tag));
    return p + RVC_HOST_HDR;
}

static void cuda_host_free(RV_Context *ctx, void *ptr, size_t size)
{
    (void)size;
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - RVC_HOST_HDR;
    uint32_t tag;
    memcpy(&tag, p, sizeof(tag));
    if (tag == RVC_HOST_PINNED) {
        rvc_state *st = st_of(ctx);
        bind(ctx);
        st->drv.cuMemFreeHost(p);
    } else {
        free(p);
    }
}

/* ---------------------------------------------------------------- */
/* Modules and kernels                                                */
/* ---------------------------------------------------------------- */

static int read_file(RV_Context *ctx, const char *path, char **out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        const int e = errno;
        return rv__error(ctx, rv__path_error(e), "module %s: cannot open: %s", path, strerror(e));
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            cap = cap ? cap * 2 : 262144;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return rv__error(ctx, RV_ENOMEM, "module %s: out of memory reading it", path);
            }
            buf = nb;
        }
        errno = 0;
        size_t r = fread(buf + n, 1, 65536, f);
        n += r;
        if (r < 65536)
            break;
    }
    const int bad = ferror(f), e = errno;
    fclose(f);
    if (bad) {
        free(buf);
        return rv__error(ctx, RV_EIO, "module %s: read error: %s", path, e ? strerror(e) : "unknown");
    }
    buf[n] = 0;
    *out = buf;
    return 0;
}

/* A fat binary older than the PTX beside it (PTX rebuilt by hand, say) is
 * still what the search takes: say so, as its code is not the PTX's. */
static void stale_fatbin_warn(RV_Context *ctx, const char *path)
{
    size_t n = strlen(path);
    if (n < 7 || strcmp(path + n - 7, ".fatbin"))
        return;
    char ptx[1024];
    if (n - 7 + 5 >= sizeof(ptx))
        return;
    snprintf(ptx, sizeof(ptx), "%.*s.ptx", (int)(n - 7), path);
    struct stat fs, ps;
    if (stat(path, &fs) == 0 && stat(ptx, &ps) == 0 &&
        (ps.st_mtim.tv_sec > fs.st_mtim.tv_sec ||
         (ps.st_mtim.tv_sec == fs.st_mtim.tv_sec && ps.st_mtim.tv_nsec > fs.st_mtim.tv_nsec)))
        rv__log(ctx, RV_LOG_WARN,
                "module %s is older than %s beside it: loading the fat binary (rebuild it, "
                "or load the .ptx by its path)",
                path, ptx);
}

static int cuda_module_load(RV_Context *ctx, const char *path, RV_Module *m)
{
    rvc_state *st = st_of(ctx);
    /* (bound before the file is read: test_cuda_module_file changes the file
     * in the fake driver's cuCtxSetCurrent) */
    int err = bind(ctx);
    if (err < 0)
        return err;
    /* a .ptx (text, compiled by the driver's JIT on the first load on a machine,
     * then taken from its cache) or a .fatbin (machine code for its architecture
     * and the PTX for others; the driver picks): cuModuleLoadDataEx takes both */
    stale_fatbin_warn(ctx, path);
    char *image = NULL;
    if ((err = read_file(ctx, path, &image)) < 0)
        return err;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char elog[8192] = "", ilog[2048] = "";
    int opts[4] = {RVC_JIT_ERROR_LOG_BUFFER, RVC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, RVC_JIT_INFO_LOG_BUFFER,
                   RVC_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *vals[4] = {elog, (void *)(uintptr_t)sizeof(elog), ilog, (void *)(uintptr_t)sizeof(ilog)};
    CUmodule mod = NULL;
    CUresult r = st->drv.cuModuleLoadDataEx(&mod, image, 4, opts, vals);
    free(image);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (r != CUDA_SUCCESS) {
        char d[320];
        describe(&st->drv, r, d, sizeof(d));
        elog[sizeof(elog) - 1] = 0;
        size_t l = strlen(elog);
        while (l && (elog[l - 1] == '\n' || elog[l - 1] == ' '))
            elog[--l] = 0;
        return rv__error(ctx, r == CUDA_ERROR_OUT_OF_MEMORY ? RV_ENOMEM : RV_EBADMSG,
                         "module %s: the CUDA driver cannot load it (cuModuleLoadDataEx: %s); "
                         "JIT log: %s",
                         path, d, elog[0] ? elog : "(empty)");
    }
    if (ilog[0])
        rv__log(ctx, RV_LOG_DEBUG, "module %s: JIT: %s", path, ilog);
    rv__log(ctx, RV_LOG_DEBUG, "module %s: cuModuleLoadDataEx took %.1f ms", path,
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6);
    m->handle = mod;
    return 0;
}

/* (the table is the context's: under ctx->lock, as modules may be used from
 * several threads) */
static void trace_name_add(RV_Context *ctx, rvc_state *st, const char *name)
{
    if (!getenv("RAVIOLI_CUDA_TRACE_GRIDS"))
        return;
    const uint64_t h = rvc_trace_hash(name);
    pthread_mutex_lock(&ctx->lock);
    if (!st->trace_names)
        st->trace_names = calloc(RVC_TRACE_NAMES, sizeof(rvc_trace_name));
    int known = !st->trace_names;
    for (int i = 0; !known && i < st->ntrace_names; i++)
        known = st->trace_names[i].hash == h;
    if (!known && st->ntrace_names < RVC_TRACE_NAMES) {
        rvc_trace_name *t = &st->trace_names[st->ntrace_names++];
        t->hash = h;
        snprintf(t->name, sizeof(t->name), "%s", name);
    }
    pthread_mutex_unlock(&ctx->lock);
}

/* The grid timeline of a module built with RV_TRACE_GRIDS (kernel.h),
 * appended to the file RAVIOLI_CUDA_TRACE_GRIDS names: a header line, then
 * one line a block record, oldest first: grid id, kernel, SM, block, start
 * (ns, global timer), ns to the end of its wait, ns to its end. Modules
 * without the ring, or without the variable, write nothing. */
static void trace_dump(RV_Context *ctx, rvc_state *st, RV_Module *m)
{
    const char *path = getenv("RAVIOLI_CUDA_TRACE_GRIDS");
    if (!path || !*path)
        return;
    CUdeviceptr dn = 0, dr = 0;
    size_t bn = 0, br = 0;
    if (st->drv.cuModuleGetGlobal(&dn, &bn, (CUmodule)m->handle, "rv__trace_n") != CUDA_SUCCESS ||
        st->drv.cuModuleGetGlobal(&dr, &br, (CUmodule)m->handle, "rv__trace") != CUDA_SUCCESS ||
        bn != 8 || br % RVC_TRACE_REC_BYTES != 0)
        return;
    CUstream s = cur_stream(st);
    uint64_t n = 0;
    if (st->drv.cuMemcpyDtoHAsync(&n, dn, 8, s) != CUDA_SUCCESS || st->drv.cuStreamSynchronize(s) != CUDA_SUCCESS)
        return;
    const uint64_t cap = br / RVC_TRACE_REC_BYTES, k = n < cap ? n : cap;
    unsigned char *rec = k ? malloc((size_t)k * RVC_TRACE_REC_BYTES) : NULL;
    FILE *f = fopen(path, "a");
    if (!f || (k && !rec)) {
        rv__log(ctx, RV_LOG_WARN, "grid trace: cannot write %s", path);
        free(rec);
        if (f)
            fclose(f);
        return;
    }
    /* the ring's oldest record is at n % cap once it has wrapped */
    const uint64_t first = n > cap ? n % cap : 0;
    int ok = 1;
    if (k) {
        ok = st->drv.cuMemcpyDtoHAsync(rec, dr + first * RVC_TRACE_REC_BYTES, (size_t)(k - first) * RVC_TRACE_REC_BYTES, s) == CUDA_SUCCESS &&
             (first == 0 ||
              st->drv.cuMemcpyDtoHAsync(rec + (k - first) * RVC_TRACE_REC_BYTES, dr, (size_t)first * RVC_TRACE_REC_BYTES, s) == CUDA_SUCCESS) &&
             st->drv.cuStreamSynchronize(s) == CUDA_SUCCESS;
    }
    fprintf(f, "# grid trace of %s: %llu records (%llu kept); grid kernel sm block t0_ns wait_ns end_ns\n",
            m->path, (unsigned long long)n, (unsigned long long)k);
    uint64_t last_name = 0;
    char name[64] = "?";
    for (uint64_t i = 0; ok && i < k; i++) {
        const unsigned char *r = rec + i * RVC_TRACE_REC_BYTES;
        uint64_t grid, nm, t0;
        uint32_t wait, end, sm, block;
        memcpy(&grid, r, 8);
        memcpy(&nm, r + 8, 8);
        memcpy(&t0, r + 16, 8);
        memcpy(&wait, r + 24, 4);
        memcpy(&end, r + 28, 4);
        memcpy(&sm, r + 32, 4);
        memcpy(&block, r + 36, 4);
        if (nm != last_name) {
            snprintf(name, sizeof(name), "%016llx", (unsigned long long)nm);
            pthread_mutex_lock(&ctx->lock);
            for (int j = 0; j < st->ntrace_names; j++)
                if (st->trace_names[j].hash == nm)
                    snprintf(name, sizeof(name), "%s", st->trace_names[j].name);
            pthread_mutex_unlock(&ctx->lock);
            last_name = nm;
        }
        fprintf(f, "%llu %s %u %u %llu %u %u\n", (unsigned long long)grid, name, sm, block,
                (unsigned long long)t0, wait, end);
    }
    if (!ok)
        rv__log(ctx, RV_LOG_WARN, "grid trace: cannot read the ring of %s", m->path);
    fclose(f);
    free(rec);
}

static void cuda_module_unload(RV_Context *ctx, RV_Module *m)
{
    rvc_state *st = st_of(ctx);
    if (!m->handle)
        return;
    bind(ctx);
    st->drv.cuStreamSynchronize(cur_stream(st));
    trace_dump(ctx, st, m);
    st->drv.cuModuleUnload((CUmodule)m->handle);
    m->handle = NULL;
}

static int elem_size(uint32_t et)
{
    switch (et) {
    case RV_ET_U8: return 1;
    case RV_ET_U16: return 2;
    case RV_ET_I32:
    case RV_ET_F32:
    case RV_ET_RGBA: return 4;
    case RV_ET_RGBA16: return 8;
    }
    return 0;
}

/* Must match RV__VECN in kernel.h's GPU half. */
static int vec_samples(const rv_kernel_desc *d)
{
    int m = elem_size(d->in_type);
    if (elem_size(d->in2_type) > m)
        m = elem_size(d->in2_type);
    if (elem_size(d->out_type) > m)
        m = elem_size(d->out_type);
    return m ? 16 / m : 1;
}


/* procNbr entries keep two shared tile buffers (kernel.h, RV__NBR_TILE:
 * 35 KB for 4-byte samples): ask for a shared/L1 split that fits as many
 * blocks as registers and threads allow (the driver's default split may fit
 * fewer), no more (the rest stays L1), and note how many blocks a
 * multiprocessor then holds: the launch deals the tiles to one resident
 * wave of blocks. A failing query only leaves per_sm at 0 (full grid). */
static int nbr_shared_carveout(rvc_state *st, const rvc_kernel *kb, CUfunction f)
{
    int smem = 0, blocks = 0;
    if (st->drv.cuFuncGetAttribute(&smem, RVC_FATTR_SHARED_SIZE_BYTES, f) != CUDA_SUCCESS)
        return 0;
    if (smem > 0 && st->max_smem_sm > 0) {
        /* blocks without the shared memory limit: at the largest split */
        if (st->drv.cuFuncSetAttribute(f, RVC_FATTR_PREFERRED_SHARED_CARVEOUT, 100) == CUDA_SUCCESS &&
            st->drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, kb->block, 0) == CUDA_SUCCESS &&
            blocks > 0) {
            /* 1 KB a block is reserved by the system on sm_80+ */
            const long long need = (long long)blocks * (smem + 1024);
            int pct = (int)((need * 100 + st->max_smem_sm - 1) / st->max_smem_sm);
            if (pct > 100)
                pct = 100;
            st->drv.cuFuncSetAttribute(f, RVC_FATTR_PREFERRED_SHARED_CARVEOUT, pct);
        }
    }
    if (st->drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, kb->block, 0) == CUDA_SUCCESS && blocks > 0)
        return blocks;
    return 0;
}

static int cuda_kernel_lookup(RV_Context *ctx, RV_Module *m, const char *name, RV_Kernel *k)
{
    rvc_state *st = st_of(ctx);
    int err = bind(ctx);
    if (err < 0)
        return err;
    char sym[320];
    if (snprintf(sym, sizeof(sym), "rvk_%s", name) >= (int)sizeof(sym) - 8)
        return rv__error(ctx, RV_EINVAL, "kernel name '%.40s...' is too long", name);
    trace_name_add(ctx, st, sym);
    CUfunction f = NULL;
    CUresult r = st->drv.cuModuleGetFunction(&f, (CUmodule)m->handle, sym);
    if (r == CUDA_ERROR_NOT_FOUND)
        return rv__error(ctx, RV_ENOENT, "module %s has no kernel '%s' (symbol %s not found)", m->path,
                         name, sym);
    if (r != CUDA_SUCCESS) {
        char what[400];
        snprintf(what, sizeof(what), "module %s: cuModuleGetFunction(%s)", m->path, sym);
        return cu_fail(ctx, r, what);
    }
    snprintf(sym, sizeof(sym), "rvk_%s_desc", name);
    CUdeviceptr dp = 0;
    size_t bytes = 0;
    r = st->drv.cuModuleGetGlobal(&dp, &bytes, (CUmodule)m->handle, sym);
    if (r == CUDA_ERROR_NOT_FOUND || (r == CUDA_SUCCESS && bytes != sizeof(rv_kernel_desc)))
        return rv__error(ctx, RV_EBADMSG,
                         "module %s: kernel '%s' has no descriptor %s%s (not built with <ravioli/kernel.h>?)",
                         m->path, name, sym, r == CUDA_SUCCESS ? " of the expected size" : "");
    if (r != CUDA_SUCCESS)
        return cu_fail(ctx, r, "cuModuleGetGlobal");
    CK(ctx, st->drv.cuMemcpyDtoHAsync(&k->desc, dp, sizeof(k->desc), cur_stream(st)),
       "reading a kernel descriptor");
    CK(ctx, st->drv.cuStreamSynchronize(cur_stream(st)), "reading a kernel descriptor");

    /* an entry with a compile-time cluster of more than 8 blocks (the portable
     * limit; the H100 and H200 take 16) must be allowed the larger size before it
     * launches; where the device refuses, the kernel is not handed out (RV_ENOSYS,
     * said at debug level: the caller may have another way) */
    int cw = 0, chh = 0, cd = 0;
    if (st->drv.cuFuncGetAttribute(&cw, RVC_FATTR_REQUIRED_CLUSTER_WIDTH, f) == CUDA_SUCCESS &&
        st->drv.cuFuncGetAttribute(&chh, RVC_FATTR_REQUIRED_CLUSTER_HEIGHT, f) == CUDA_SUCCESS &&
        st->drv.cuFuncGetAttribute(&cd, RVC_FATTR_REQUIRED_CLUSTER_DEPTH, f) == CUDA_SUCCESS &&
        (long long)cw * chh * cd > 8) {
        r = st->drv.cuFuncSetAttribute(f, RVC_FATTR_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
        if (r != CUDA_SUCCESS) {
            char dsc[320];
            describe(&st->drv, r, dsc, sizeof(dsc));
            rv__log(ctx, RV_LOG_DEBUG, "kernel %s: clusters of %lld blocks not allowed on this device: %s", name,
                    (long long)cw * chh * cd, dsc);
            return RV_ENOSYS;
        }
    }

    /* cooperative entries launch through cuLaunchKernelEx's cooperative attribute */
    if ((k->desc.flags & RV_KFLAG_COOPERATIVE) && !st->kernel_ex) {
        rv__log(ctx, RV_LOG_DEBUG, "kernel %s: cooperative, and the driver has no cuLaunchKernelEx", name);
        return RV_ENOSYS;
    }

    rvc_kernel *kb = calloc(1, sizeof(*kb));
    if (!kb)
        return rv__error(ctx, RV_ENOMEM, "rv_kernel_get: out of memory");
    int min_grid = 0, block = 0;
    r = st->drv.cuOccupancyMaxPotentialBlockSize(&min_grid, &block, f, NULL, 0, 0);
    if (r != CUDA_SUCCESS || block < 32)
        block = 256;
    if (block > 256)
        block = 256;
    block &= ~31;
    kb->block = block;
    kb->bx = 32;
    kb->by = block / 32;
    kb->vec = vec_samples(&k->desc);
    if (st->drv.cuFuncGetAttribute(&kb->regs, RVC_FATTR_NUM_REGS, f) != CUDA_SUCCESS)
        kb->regs = -1;
    /* the architecture the code was compiled for: a fat binary's code for an
     * older GPU (RV_CUDA_BASE_ARCH) lacks the sm_90 paths; rv_kernel_arch tells
     * the module's host code, and such chained entries launch plainly */
    int ptx = 0;
    if (st->drv.cuFuncGetAttribute(&ptx, RVC_FATTR_PTX_VERSION, f) != CUDA_SUCCESS || ptx <= 0)
        ptx = 10 * st->cc_major + st->cc_minor;
    k->arch = ptx;
    const int chain_ok = st->launch_ex && (k->desc.flags & RV_KFLAG_CHAINED);
    kb->chained = chain_ok && ptx >= 90;
    if (k->desc.op == RV_OP_NBR) {
        kb->per_sm = nbr_shared_carveout(st, kb, f);
        /* the large-plane entry, when the module has one (kernel.h) */
        CUfunction fw = NULL;
        snprintf(sym, sizeof(sym), "rvkw_%s", name);
        if (st->drv.cuModuleGetFunction(&fw, (CUmodule)m->handle, sym) == CUDA_SUCCESS && fw) {
            kb->wide = fw;
            kb->wide_per_sm = nbr_shared_carveout(st, kb, fw);
            trace_name_add(ctx, st, sym);
        }
    }
    rv__log(ctx, RV_LOG_DEBUG, "kernel %s: code for compute_%d, %d registers, block %dx%d, %d blocks a multiprocessor%s",
            name, ptx, kb->regs, kb->bx, kb->by, kb->per_sm,
            chain_ok && !kb->chained ? " (chained entry launched plainly: its code has no programmatic dependent launch)"
                : "");
    k->entry = f;
    k->bk = kb;
    return 0;
}

static void cuda_kernel_free(RV_Context *ctx, RV_Kernel *k)
{
    (void)ctx;
    free(k->bk);
    k->bk = NULL;
}

/* ---------------------------------------------------------------- */
/* Image copies                                                       */
/* ---------------------------------------------------------------- */

static int cuda_device_base(RV_Context *ctx, RV_Image *img, uint64_t *base)
{
    if (!img->dev) {
        CUdeviceptr p = 0;
        int err = bind(ctx);
        if (err < 0 || (err = pool_alloc(ctx, img->bytes, &p, "image device copy")) < 0)
            return err;
        img->dev = (void *)(uintptr_t)p;
    }
    *base = (uint64_t)(uintptr_t)img->dev;
    return 0;
}

static int cuda_image_to_device(RV_Context *ctx, RV_Image *img)
{
    rvc_state *st = st_of(ctx);
    uint64_t base;
    int err = cuda_device_base(ctx, img, &base);
    if (err < 0)
        return err;
    /* The host copy may be written right after we return (it stays valid),
     * so the copy must have finished: wait for the stream. */
    CK(ctx, st->drv.cuMemcpyHtoDAsync((CUdeviceptr)base, img->host, img->bytes, cur_stream(st)),
       "uploading an image");
    CK(ctx, st->drv.cuStreamSynchronize(cur_stream(st)), "uploading an image");
    return 0;
}

static int cuda_image_to_host(RV_Context *ctx, RV_Image *img)
{
    rvc_state *st = st_of(ctx);
    int err = bind(ctx);
    if (err < 0)
        return err;
    if (!img->dev)
        return rv__error(ctx, RV_EINVAL, "image has no device copy to download (internal error)");
    CK(ctx, st->drv.cuMemcpyDtoHAsync(img->host, (CUdeviceptr)(uintptr_t)img->dev, img->bytes,
                                      cur_stream(st)),
       "downloading an image");
    CK(ctx, st->drv.cuStreamSynchronize(cur_stream(st)), "downloading an image");
    return 0;
}

static void cuda_image_free_device(RV_Context *ctx, RV_Image *img)
{
    if (!img->dev)
        return;
    bind(ctx);
    pool_free(ctx, (CUdeviceptr)(uintptr_t)img->dev, img->bytes);
    img->dev = NULL;
    img->dev_valid = 0;
}

/* ---------------------------------------------------------------- */
/* Element operations                                                 */
/* ---------------------------------------------------------------- */

static unsigned cdiv(long long a, long long b)
{
    long long q = (a + b - 1) / b;
    return (unsigned)(q < 1 ? 1 : q);
}

/* A launch with programmatic stream serialisation (RV_KFLAG_CHAINED entries:
 * they wait for the previous grid themselves, kernel.h RV__GRID_CHAIN). */
static CUresult launch_chained(rvc_state *st, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shmem, void **params)
{
    rvc_launch_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.id = RVC_LAUNCH_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmatic_stream_serialization_allowed = 1;
    rvc_launch_config cfg = {gx, gy, gz, bx, by, bz, shmem, cur_stream(st), &attr, 1};
    return st->launch_ex(&cfg, f, params, NULL);
}

static int launch(RV_Context *ctx, const RV_Kernel *k, CUfunction f, unsigned gx, unsigned gy, unsigned bx,
                  unsigned by, unsigned shmem, void *arg)
{
    rvc_state *st = st_of(ctx);
    void *params[1] = {arg};
    CUresult r;
    if (((const rvc_kernel *)k->bk)->chained)
        r = launch_chained(st, f, gx, gy, 1, bx, by, 1, shmem, params);
    else
        r = st->drv.cuLaunchKernel(f, gx, gy, 1, bx, by, 1, shmem, cur_stream(st), params, NULL);
    if (r != CUDA_SUCCESS) {
        char what[384];
        snprintf(what, sizeof(what), "launching kernel '%s' (%s, grid %ux%u, block %ux%u)", k->name,
                 rv__op_name(k->desc.op), gx, gy, bx, by);
        return cu_fail(ctx, r, what);
    }
    return 0;
}

static int ensure_box_scratch(RV_Context *ctx, rvc_state *st, size_t need)
{
    if (st->box_scratch_size >= need)
        return 0;
    if (st->box_scratch) {
        pool_free(ctx, st->box_scratch, st->box_scratch_size);
        st->box_scratch = 0;
        st->box_scratch_size = 0;
    }
    CUdeviceptr p;
    int err = pool_alloc(ctx, need, &p, "procBox reduction scratch");
    if (err < 0)
        return err;
    /* the completion counter at offset 0 must start at zero; the kernel
     * leaves it at zero after each launch */
    CK(ctx, st->drv.cuMemsetD8Async(p, 0, need, cur_stream(st)), "clearing procBox scratch");
    if (st->box_result_dev) { /* the mapped result's address (kernel_abi.h RV_BOX_SCRATCH_HOST) */
        CK(ctx, st->drv.cuMemsetD32Async(p + RV_BOX_SCRATCH_HOST, (unsigned)(st->box_result_dev & 0xffffffffu), 1,
                                         cur_stream(st)), "setting the procBox result address");
        CK(ctx, st->drv.cuMemsetD32Async(p + RV_BOX_SCRATCH_HOST + 4, (unsigned)(st->box_result_dev >> 32), 1,
                                         cur_stream(st)), "setting the procBox result address");
    }
    st->box_scratch = p;
    st->box_scratch_size = bucket_size(need);
    return 0;
}

/* procBox: dynamic shared memory for the reference (template), rows padded
 * to 16 bytes (kernel_abi.h), when it fits the default 48 KiB a block; 0
 * when the entry reads it from global memory (or there is none). */
static unsigned box_ref_shared_bytes(const RV_Kernel *k, const rv_args *a)
{
    if (k->desc.op != RV_OP_BOX || !a->src2.data)
        return 0;
    const long long tb =
        (long long)RV_GPU_BOX_REF_PITCH((long long)a->box_w, (long long)elem_size(k->desc.in2_type)) * a->box_h;
    return tb > 0 && tb <= 48 * 1024 ? (unsigned)tb : 0;
}

static int cuda_run_elem(RV_Context *ctx, rv_elem_call *call, rv_partial *red)
{
    rvc_state *st = st_of(ctx);
    const RV_Kernel *k = call->k;
    const rvc_kernel *kb = k->bk;
    if (call->rows <= 0 || call->cols <= 0)
        return 0;
    int err = bind(ctx);
    if (err < 0)
        return err;
    rv_args *a = &call->args;
    unsigned bx = (unsigned)kb->bx, by = (unsigned)kb->by;
    unsigned gx, gy;
    CUfunction fn = (CUfunction)k->entry;
    switch (k->desc.op) {
    case RV_OP_PIX:
    case RV_OP_COMP:
        if (a->s == 1) {
            /* vector path: each thread takes kb->vec consecutive samples */
            long long nv = (call->cols + kb->vec - 1) / kb->vec;
            if (nv < 32) {
                bx = nv <= 1 ? 1 : (unsigned)((nv + 7) / 8 * 8);
                if (bx > 32)
                    bx = 32;
                by = (unsigned)kb->block / bx;
            }
            /* two vectors a thread once the grid would exceed two full
             * waves of resident threads (more bytes in flight each) */
            const long long resident = (long long)st->sm_count * 2048;
            const int per = nv * (long long)call->rows >= 2 * resident ? 2 : 1;
            gx = cdiv(nv, (long long)bx * per);
        } else {
            gx = cdiv(call->cols, bx);
        }
        gy = cdiv(call->rows, by);
        break;
    case RV_OP_NBR:
        if (a->s == 1) {
            /* S = 1: a strip of RV_GPU_NBR_ROWS x RV_GPU_NBR_COLS samples a
             * thread (kernel.h); when that leaves fewer than 8 warps a
             * multiprocessor (512 x 512: 16 K threads), strips of
             * RV_GPU_NBR_ROWS_SMALL x 1, which the entry recognises by the
             * grid covering the plane with them. */
            const long long sx = (call->cols + RV_GPU_NBR_COLS - 1) / RV_GPU_NBR_COLS;
            const long long sy = (call->rows + RV_GPU_NBR_ROWS - 1) / RV_GPU_NBR_ROWS;
            if (sx * sy < (long long)st->sm_count * 256) {
                gx = cdiv(call->cols, bx);
                gy = cdiv((call->rows + RV_GPU_NBR_ROWS_SMALL - 1) / RV_GPU_NBR_ROWS_SMALL, by);
            } else {
                gx = cdiv(sx, bx);
                gy = cdiv(sy, by);
                /* blocks of 32 x by: one tile each (kernel.h RV__NBR_TILE). More
                 * tiles than the resident waves below hold: launch that many
                 * waves (1D), each block runs tiles b, b + blocks, ...,
                 * copying its next tile while it computes this one.
                 * 4/8/16-byte samples (interior tiles by 16-byte copies,
                 * kernel.h RV_GPU_NBR_V16): one wave, measured on an H200 at
                 * 4K in two runs (docs/perf/cuda-tuning.md, round 8): edge
                 * 0.0249-0.0250 ms against 0.0256 (two waves), emboss
                 * 0.0240-0.0242 against 0.0243-0.0245. Other samples (the
                 * 4-byte-copy tile): two waves (round 6: edge 0.0265 ms
                 * against 0.0275 for one wave). */
                const long long wave = (long long)kb->per_sm * st->sm_count;
                const int isz = elem_size(k->desc.in_type);
                const long long nw = RV_GPU_NBR_V16 && (isz == 4 || isz == 8 || isz == 16) ? 1 : 2;
                if (bx == 32 && by <= 8 && kb->per_sm > 0 && (long long)gx * gy > nw * wave) {
                    gx = (unsigned)(nw * wave);
                    gy = 1;
                }
                /* large planes: the entry rvkw_ (kernel.h RV_GPU_NBR_WIDE:
                 * 4 x 4 strips, 3 blocks a multiprocessor) once its tiles
                 * fill RV_GPU_NBR_WIDE_WAVES resident waves of its blocks,
                 * one wave looping over them. H200 (docs/perf/cuda-tuning.md,
                 * round 10): 4K (5.2 waves) emboss 0.0224 ms against 0.0241,
                 * edge 0.0236 against 0.0251; 1080p (1.3 waves) slower than
                 * rvk_, so rvk_ stays below the threshold. */
                const long long wwave = (long long)kb->wide_per_sm * st->sm_count;
                if (kb->wide && bx == 32 && by <= 8 && kb->wide_per_sm > 0) {
                    const long long wt = (long long)cdiv(call->cols, 32LL * RV_GPU_NBR_WIDE_COLS) *
                                         cdiv(call->rows, (long long)by * RV_GPU_NBR_WIDE_ROWS);
                    if (wt >= RV_GPU_NBR_WIDE_WAVES * wwave) {
                        fn = kb->wide;
                        gx = (unsigned)wwave;
                        gy = 1;
                    }
                }
            }
        } else {
            gx = cdiv(call->cols, bx);
            gy = cdiv(call->rows, by);
        }
        break;
    case RV_OP_BOX: {
        /* 1D blocks over the windows numbered row by row. Windows are
         * long-running threads: use smaller blocks until there are at least
         * 4 blocks a multiprocessor, so that the work spreads evenly (a
         * 395x372 search has only ~98K windows); at most 8 resident waves
         * (the entry loops), which also bounds the partials to combine. */
        /* an RV_PROC_BOXN entry scores that many adjacent windows a thread */
        const int wpt = RV_KFLAG_GET_BOX_WINDOWS(k->desc.flags);
        /* an RV_PROC_BOXR entry gives each group that many threads (its
         * template rows split over them) */
        const int tpg = RV_KFLAG_GET_BOX_ROWSPLIT(k->desc.flags);
        const long long npos = (long long)call->rows * ((call->cols + wpt - 1) / wpt) * tpg;
        /* every block first copies the template to shared memory: blocks
         * of 64 make twice the copies of 128, each thread copying twice as
         * much. With a shared template, stop at 128 threads once that still
         * gives a block to every multiprocessor (measured on an H200, sad
         * 395x372, docs/perf/cuda-tuning.md round 7: 0.1331-0.1347 ms at
         * 384 blocks of 128 against 0.1434-0.1441 at 767 of 64) */
        int bmin = box_ref_shared_bytes(k, a) > 0 && cdiv(npos, 128) >= (unsigned)st->sm_count ? 128 : 64;
        /* RV_PROC_BOXR: blocks of 256 (R bands of warps over 256 / R
         * groups) while that still gives a block to every multiprocessor
         * (H200, 395x372 search: sad_rs4 0.116 ms direct at 386 x 256
         * against 0.124-0.130 at 772 x 128; round 9 in
         * docs/perf/cuda-tuning.md) */
        if (tpg > 1 && box_ref_shared_bytes(k, a) > 0 && cdiv(npos, 256) >= (unsigned)st->sm_count)
            bmin = 256;
        int blk = kb->block;
        while (blk > bmin && (long long)cdiv(npos, blk) < 4LL * st->sm_count)
            blk /= 2;
        long long nb = cdiv(npos, blk);
        const long long cap = 8LL * st->sm_count * (2048 / blk);
        if (nb > cap)
            nb = cap;
        bx = (unsigned)blk;
        by = 1;
        gx = (unsigned)nb;
        gy = 1;
        break;
    }
    default:
        gx = cdiv(call->cols, bx);
        gy = cdiv(call->rows, by);
        break;
    }
    if (gy > 65535)
        gy = 65535; /* the entries loop over rows */
    if (gx > 0x7fffffffu)
        gx = 0x7fffffffu;

    const int reducing = k->desc.op == RV_OP_BOX && a->reduce != RV_REDUCE_NONE;
    if (reducing) {
        size_t need = RVC_BOX_PART_OFFSET + (size_t)gx * gy * sizeof(rv_partial);
        if ((err = ensure_box_scratch(ctx, st, need)) < 0)
            return err;
        a->scratch = st->box_scratch;
    } else {
        a->scratch = 0;
    }
    const unsigned shmem = box_ref_shared_bytes(k, a);
    volatile rv_partial *hr = st->box_result;
    if (reducing && st->box_result_dev)
        hr->valid = -1; /* the kernel writes 0 or 1 */
    if ((err = launch(ctx, k, fn, gx, gy, bx, by, shmem, a)) < 0)
        return err;
    if (reducing) {
        /* the last block wrote the combined partial at offset 16, and into
         * the mapped box_result when there is one (kernel.h rv__box_finish):
         * then the stream's end is all there is to wait for. A module built
         * without that write leaves the -1: read the scratch copy. */
        CK(ctx, st->drv.cuStreamSynchronize(cur_stream(st)), "procBox");
        if (!st->box_result_dev || hr->valid == -1) {
            CK(ctx, st->drv.cuMemcpyDtoHAsync(st->box_result, st->box_scratch + 16, sizeof(rv_partial),
                                              cur_stream(st)),
               "reading the procBox result");
            CK(ctx, st->drv.cuStreamSynchronize(cur_stream(st)), "procBox");
        }
        rv__combine_partials(a->reduce, k->desc.out_type, st->box_result, 1, red);
    }
    return 0;
}

/* Dynamic shared memory above the default 48 KB must be allowed per kernel; the
 * limit is only raised, never lowered under another thread's launch. */
static int raw_shared(RV_Context *ctx, rvc_state *st, const RV_Kernel *k, unsigned bytes, const char *fn)
{
    if (bytes <= 48 * 1024)
        return 0;
    if ((int)bytes > st->max_smem_optin)
        return rv__error(ctx, RV_EINVAL, "%s: kernel '%s' asks for %u bytes of shared memory; the device allows %d",
                         fn, k->name, bytes, st->max_smem_optin);
    rvc_kernel *kb = k->bk;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&ctx->lock);
    if (!kb || (int)bytes > kb->dyn_shared) {
        r = st->drv.cuFuncSetAttribute((CUfunction)k->entry, RVC_FATTR_MAX_DYNAMIC_SHARED, (int)bytes);
        if (r == CUDA_SUCCESS && kb)
            kb->dyn_shared = (int)bytes;
    }
    pthread_mutex_unlock(&ctx->lock);
    CK(ctx, r, "raising a kernel's shared memory limit");
    return 0;
}

/* A cooperative entry: every block resident at once (the driver refuses a
 * larger grid); with programmatic serialisation too where the driver takes
 * both attributes (else, once refused, the cooperative one alone). */
static CUresult launch_coop(RV_Context *ctx, rvc_state *st, CUfunction f, const RV_LaunchShape *sh, int chained,
                            void **params)
{
    rvc_launch_attr attr[2];
    memset(attr, 0, sizeof(attr));
    attr[0].id = RVC_LAUNCH_ATTR_COOPERATIVE;
    attr[0].value.cooperative = 1;
    attr[1].id = RVC_LAUNCH_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr[1].value.programmatic_stream_serialization_allowed = 1;
    const int both = chained && st->launch_ex && !st->coop_plain;
    rvc_launch_config cfg = {sh->grid[0],  sh->grid[1],      sh->grid[2],     sh->block[0], sh->block[1],
                             sh->block[2], sh->shared_bytes, cur_stream(st), attr,         both ? 2u : 1u};
    CUresult r = st->kernel_ex(&cfg, f, params, NULL);
    if (r != CUDA_SUCCESS && both) {
        cfg.num_attrs = 1;
        if ((r = st->kernel_ex(&cfg, f, params, NULL)) == CUDA_SUCCESS) {
            st->coop_plain = 1;
            rv__log(ctx, RV_LOG_DEBUG, "CUDA backend: cooperative kernels launched without programmatic "
                                       "dependent launch (the driver refused the two together)");
        }
    }
    return r;
}

static int cuda_resident_blocks(RV_Context *ctx, const RV_Kernel *k, const RV_LaunchShape *sh)
{
    rvc_state *st = st_of(ctx);
    int err = bind(ctx);
    if (err < 0 || (err = raw_shared(ctx, st, k, sh->shared_bytes, "rv_kernel_resident_blocks")) < 0)
        return err;
    int blocks = 0;
    const int threads = (int)(sh->block[0] * sh->block[1] * sh->block[2]);
    CK(ctx,
       st->drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (CUfunction)k->entry, threads,
                                                           (size_t)sh->shared_bytes),
       "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if (blocks < 1)
        return rv__error(ctx, RV_EINVAL,
                         "rv_kernel_resident_blocks: kernel '%s' cannot run blocks of %d threads with %u bytes of "
                         "shared memory on this device (registers or shared memory)",
                         k->name, threads, sh->shared_bytes);
    const long long n = (long long)blocks * st->sm_count;
    return n > 0x7fffffff ? 0x7fffffff : (int)n;
}

static int cuda_launch_raw(RV_Context *ctx, const RV_Kernel *k, const RV_LaunchShape *sh, const void *args,
                           size_t args_size)
{
    rvc_state *st = st_of(ctx);
    int err = bind(ctx);
    if (err < 0 || (err = raw_shared(ctx, st, k, sh->shared_bytes, "rv_launch_raw")) < 0)
        return err;
    (void)args_size;
    void *params[1] = {(void *)args};
    const rvc_kernel *kb = k->bk;
    CUresult r;
    if (k->desc.flags & RV_KFLAG_COOPERATIVE) {
        r = launch_coop(ctx, st, (CUfunction)k->entry, sh, kb->chained, params);
    } else if (kb->chained) {
        r = launch_chained(st, (CUfunction)k->entry, sh->grid[0], sh->grid[1], sh->grid[2], sh->block[0],
                           sh->block[1], sh->block[2], sh->shared_bytes, params);
    } else {
        r = st->drv.cuLaunchKernel((CUfunction)k->entry, sh->grid[0], sh->grid[1], sh->grid[2], sh->block[0],
                                   sh->block[1], sh->block[2], sh->shared_bytes, cur_stream(st), params, NULL);
    }
    if (r != CUDA_SUCCESS) {
        char what[384];
        snprintf(what, sizeof(what), "launching raw kernel '%s' (grid %ux%ux%u, block %ux%ux%u, %u shared bytes)",
                 k->name, sh->grid[0], sh->grid[1], sh->grid[2], sh->block[0], sh->block[1], sh->block[2],
                 sh->shared_bytes);
        return cu_fail(ctx, r, what);
    }
    return 0;
}

/* ---------------------------------------------------------------- */
/* Buffers                                                            */
/* ---------------------------------------------------------------- */

static int cuda_buffer_alloc(RV_Context *ctx, RV_Buffer *b)
{
    rvc_state *st = st_of(ctx);
    int err = bind(ctx);
    CUdeviceptr p = 0;
    if (err < 0 || (err = pool_alloc(ctx, b->size, &p, "rv_buffer_create")) < 0)
        return err;
    CUresult r = st->drv.cuMemsetD8Async(p, 0, b->size, cur_stream(st));
    if (r != CUDA_SUCCESS) {
        pool_free(ctx, p, b->size);
        return cu_fail(ctx, r, "rv_buffer_create: clearing");
    }
    b->dev = p;
    b->host = NULL;
    return 0;
}

static void cuda_buffer_free(RV_Context *ctx, RV_Buffer *b)
{
    bind(ctx);
    pool_free(ctx, b->dev, b->size);
    b->dev = 0;
}

/* ---------------------------------------------------------------- */
/* Staged copies                                                      */
/* ---------------------------------------------------------------- */

/*
 * A copy from or to pageable host memory goes, inside the driver, through
 * its own page-locked buffers, filled by one CPU thread: about 6-8 GB/s up
 * and 8-14 GB/s down on the H200's host (docs/perf/dwt.md, session 38),
 * against 55 GB/s each way from page-locked memory. Copies of at least
 * RVC_STAGE_MIN bytes from or to pageable memory therefore go through two
 * page-locked buffers of RVC_STAGE_BYTES held by the context, filled and
 * emptied by RVC_STAGE_THREADS threads of its own (not the context's worker
 * pool, which the capture thread may be using), chunk by chunk, the host
 * copy of one chunk beside the DMA of the other. Page-locked host memory
 * (cuMemHostGetFlags succeeds: images' storage, cuMemHostAlloc'd or
 * registered memory) goes straight, as before. RAVIOLI_CUDA_STAGED=0 turns
 * staging off (for A/B measurements).
 */
#define RVC_STAGE_BYTES ((size_t)8 << 20)
#define RVC_STAGE_MIN ((size_t)4 << 20)
#define RVC_STAGE_THREADS 8

/* One host copy of a chunk, split over the staging threads by rows (or, for
 * one long row, by 64-byte aligned pieces). */
typedef struct stage_job {
    unsigned char *dst;
    const unsigned char *src;
    size_t dp, sp, rb, rows; /* rows of rb bytes, pitches dp / sp */
    int ntasks;
} stage_job;

static void stage_task(void *arg, int t, int worker)
{
    (void)worker;
    const stage_job *j = arg;
    if (j->rows == 1) {
        const size_t piece = (j->rb / (size_t)j->ntasks + 63) / 64 * 64, a = piece * (size_t)t;
        if (a < j->rb)
            memcpy(j->dst + a, j->src + a, j->rb - a < piece ? j->rb - a : piece);
        return;
    }
    const size_t r0 = j->rows * (size_t)t / (size_t)j->ntasks, r1 = j->rows * (size_t)(t + 1) / (size_t)j->ntasks;
    for (size_t r = r0; r < r1; r++)
        memcpy(j->dst + r * j->dp, j->src + r * j->sp, j->rb);
}

static void stage_copy(rvc_state *st, unsigned char *dst, size_t dp, const unsigned char *src, size_t sp, size_t rb,
                       size_t rows)
{
    const size_t bytes = rb * rows;
    int n = st->stage_threads;
    if ((size_t)n > bytes / ((size_t)256 << 10)) /* at least 256 KiB a thread */
        n = (int)(bytes / ((size_t)256 << 10));
    if (n < 1)
        n = 1;
    if (rows > 1 && (size_t)n > rows)
        n = (int)rows;
    stage_job j = {dst, src, dp, sp, rb, rows, n};
    rv_pool_run(st->stage_pool, n, stage_task, &j);
}

/* rv_host_memory_locked: the driver knows the pointer as page-locked host memory */
static int cuda_host_locked(RV_Context *ctx, const void *p)
{
    rvc_state *st = st_of(ctx);
    unsigned int flags = 0;
    if (bind(ctx) < 0)
        return 0;
    return st->drv.cuMemHostGetFlags(&flags, (void *)(uintptr_t)p) == CUDA_SUCCESS;
}

/* Whether a copy of `bytes` with host memory at h goes through the staging
 * buffers; on 1 the caller holds stage_mu. */
static int stage_take(RV_Context *ctx, rvc_state *st, const void *h, size_t bytes)
{
    if (bytes < RVC_STAGE_MIN || st->staging_off || !st->stage_mu_init || cuda_host_locked(ctx, h))
        return 0; /* small, staging off, or page-locked already */
    if (pthread_mutex_trylock(&st->stage_mu) != 0)
        return 0; /* another thread copies through them now */
    if (!st->stage_buf[0]) {
        int nt = ctx->threads < RVC_STAGE_THREADS ? ctx->threads : RVC_STAGE_THREADS;
        if (nt < 1)
            nt = 1;
        for (int i = 0; i < 2 && !st->staging_off; i++) {
            if (st->drv.cuMemHostAlloc((void **)&st->stage_buf[i], RVC_STAGE_BYTES, 0) != CUDA_SUCCESS ||
                st->drv.cuEventCreate(&st->stage_ev[i], RVC_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
                st->staging_off = 1;
        }
        if (!st->staging_off && rv_pool_create(&st->stage_pool, nt) < 0)
            st->staging_off = 1;
        if (st->staging_off) {
            rv__log(ctx, RV_LOG_DEBUG, "CUDA backend: no page-locked staging buffers; pageable copies by the driver");
            pthread_mutex_unlock(&st->stage_mu);
            return 0;
        }
        st->stage_threads = nt;
        rv__log(ctx, RV_LOG_DEBUG, "CUDA backend: pageable copies staged through 2 x %zu MiB, %d threads",
                RVC_STAGE_BYTES >> 20, nt);
    }
    return 1;
}

static void stage_free(rvc_state *st)
{
    rv_pool_destroy(&st->stage_pool);
    for (int i = 0; i < 2; i++) {
        if (st->stage_buf[i])
            st->drv.cuMemFreeHost(st->stage_buf[i]);
        if (st->stage_ev[i])
            st->drv.cuEventDestroy(st->stage_ev[i]);
        st->stage_buf[i] = NULL;
        st->stage_ev[i] = NULL;
    }
    if (st->stage_mu_init)
        pthread_mutex_destroy(&st->stage_mu);
    st->stage_mu_init = 0;
}

/*
 * A staged copy: rows rows of rb bytes between host memory (pitch hp) and
 * the device at dev (pitch bp), cut in chunks of whole rows, cr rows each
 * (the last one fewer); a flat copy (one row, or rows packed on both sides)
 * is one long row cut in pieces of cb bytes (the last one shorter).
 */
typedef struct stage_plan {
    CUdeviceptr dev;
    size_t bp, hp, rb, rows;
    int flat, up;         /* up: host to device */
    size_t total, cb, cr; /* rb * rows; a chunk: cr rows of cb bytes (flat: 1 piece of up to cb) */
    size_t nchunks;
} stage_plan;

/* Chunk k of a plan: `rows` rows of `bytes` bytes, at host_off from the
 * host memory (pitch host_pitch) and dev_off from the device address; packed
 * (pitch `bytes`) in staging buffer `slot` (k % 2), whose event is recorded
 * after its DMA. */
typedef struct stage_chunk {
    size_t host_off, dev_off, bytes, rows, host_pitch;
    int slot;
} stage_chunk;

static stage_plan stage_plan_make(CUdeviceptr dev, size_t bp, size_t hp, size_t rb, size_t rows, int up)
{
    stage_plan p;
    p.dev = dev;
    p.bp = bp;
    p.hp = hp;
    p.rb = rb;
    p.rows = rows;
    p.up = up;
    p.flat = rows == 1 || (bp == rb && hp == rb);
    p.total = rb * rows;
    p.cb = p.flat ? RVC_STAGE_BYTES : rb;
    p.cr = p.flat ? 1 : RVC_STAGE_BYTES / rb;
    p.nchunks = p.flat ? (p.total + p.cb - 1) / p.cb : (rows + p.cr - 1) / p.cr;
    return p;
}

static stage_chunk stage_chunk_at(const stage_plan *p, size_t k)
{
    stage_chunk c;
    c.slot = (int)(k % 2);
    if (p->flat) {
        c.host_off = c.dev_off = k * p->cb;
        c.bytes = k * p->cb + p->cb <= p->total ? p->cb : p->total - k * p->cb;
        c.rows = 1;
        c.host_pitch = c.bytes;
    } else {
        c.host_off = k * p->cr * p->hp;
        c.dev_off = k * p->cr * p->bp;
        c.bytes = p->rb;
        c.rows = k * p->cr + p->cr <= p->rows ? p->cr : p->rows - k * p->cr;
        c.host_pitch = p->hp;
    }
    return c;
}

/* Queues the DMA of chunk c between its staging buffer (packed) and the
 * device on stream s, then records the buffer's event. */
static CUresult stage_chunk_dma(rvc_state *st, const stage_plan *p, const stage_chunk *c, CUstream s)
{
    unsigned char *sb = st->stage_buf[c->slot];
    const CUdeviceptr d = p->dev + c->dev_off;
    CUresult r;
    if (p->flat) {
        r = p->up ? st->drv.cuMemcpyHtoDAsync(d, sb, c->bytes, s) : st->drv.cuMemcpyDtoHAsync(sb, d, c->bytes, s);
    } else {
        RVC_MEMCPY2D m;
        memset(&m, 0, sizeof(m));
        m.WidthInBytes = c->bytes;
        m.Height = c->rows;
        m.srcMemoryType = p->up ? RVC_MEMORYTYPE_HOST : RVC_MEMORYTYPE_DEVICE;
        m.dstMemoryType = p->up ? RVC_MEMORYTYPE_DEVICE : RVC_MEMORYTYPE_HOST;
        if (p->up) {
            m.srcHost = sb;
            m.srcPitch = c->bytes;
            m.dstDevice = d;
            m.dstPitch = p->bp;
        } else {
            m.srcDevice = d;
            m.srcPitch = p->bp;
            m.dstHost = sb;
            m.dstPitch = c->bytes;
        }
        r = st->drv.cuMemcpy2DAsync(&m, s);
    }
    if (r == CUDA_SUCCESS)
        r = st->drv.cuEventRecord(st->stage_ev[c->slot], s);
    return r;
}

/*
 * rows rows of rb bytes between host memory h (pitch hp) and the buffer at
 * dev (pitch bp), through the staging buffers (the caller holds stage_mu):
 * chunks of whole rows (a contiguous copy is one row, cut in pieces), chunk k
 * in buffer k % 2 (stage_chunk_at). Up: the host copy of chunk k, then its
 * DMA queued, the host copy of chunk k + 1 beside it (waiting first for the
 * DMA of chunk k - 1 out of that buffer). Down: the DMA of chunk k + 1 queued
 * before the host copy of chunk k. Ends with the stream synchronised, as the
 * direct copies do.
 */
static int stage_rows(RV_Context *ctx, rvc_state *st, CUdeviceptr dev, size_t bp, unsigned char *h, size_t hp,
                      size_t rb, size_t rows, int up, const char *what)
{
    const stage_plan p = stage_plan_make(dev, bp, hp, rb, rows, up);
    CUstream s = cur_stream(st);
    CUresult r = CUDA_SUCCESS;
    if (up) {
        for (size_t k = 0; k < p.nchunks && r == CUDA_SUCCESS; k++) {
            if (k >= 2 && (r = st->drv.cuEventSynchronize(st->stage_ev[k % 2])) != CUDA_SUCCESS)
                break;
            const stage_chunk c = stage_chunk_at(&p, k);
            stage_copy(st, st->stage_buf[c.slot], c.bytes, h + c.host_off, c.host_pitch, c.bytes, c.rows);
            r = stage_chunk_dma(st, &p, &c, s);
        }
    } else {
        const stage_chunk c0 = stage_chunk_at(&p, 0);
        r = stage_chunk_dma(st, &p, &c0, s);
        for (size_t k = 0; k < p.nchunks && r == CUDA_SUCCESS; k++) {
            if (k + 1 < p.nchunks) {
                const stage_chunk next = stage_chunk_at(&p, k + 1);
                if ((r = stage_chunk_dma(st, &p, &next, s)) != CUDA_SUCCESS)
                    break;
            }
            if ((r = st->drv.cuEventSynchronize(st->stage_ev[k % 2])) != CUDA_SUCCESS)
                break;
            const stage_chunk c = stage_chunk_at(&p, k);
            stage_copy(st, h + c.host_off, c.host_pitch, st->stage_buf[c.slot], c.bytes, c.bytes, c.rows);
        }
    }
    if (r == CUDA_SUCCESS)
        r = st->drv.cuStreamSynchronize(s);
    else
        st->drv.cuStreamSynchronize(s); /* nothing of ours may still write the staging buffers */
    pthread_mutex_unlock(&st->stage_mu);
    if (r != CUDA_SUCCESS) {
        char w[96];
        snprintf(w, sizeof(w), "%s (staged through page-locked memory)", what);
        return cu_fail(ctx, r, w);
    }
    return 0;
}

static int cuda_buffer_upload(RV_Context *ctx, RV_Buffer *b, size_t off, const void *src, size_t n)
{
    rvc_state *st = st_of(ctx);
    int err = bind(ctx);
    if (err < 0)
        return err;
    if (stage_take(ctx, st, src, n))
        return stage_rows(ctx, st, b->dev + off, n, (unsigned char *)(uintptr_t)src, n, n, 1, 1, "rv_buffer_upload");
    CK(ctx, st->drv.cuMemcpyHtoDAsync(b->dev + off, src, n, cur_stream(st)), "rv_buffer_upload");
    CK(ctx, st->drv.cuStreamSynchronize(cur_stream(st)), "rv_buffer_upload");
    return 0;
}

static int cuda_buffer_download(RV_Context *ctx, RV_Buffer *b, size_t off, void *dst, size_t n)
{
    rvc_state *st = st_of(ctx);
    int err = bind(ctx);
    if (err < 0)
        return err;
    if (stage_take(ctx, st, dst, n))
        return stage_rows(ctx, st, b->dev + off, n, dst, n, n, 1, 0, "rv_buffer_download");
    CK(ctx, st->drv.cuMemcpyDtoHAsync(dst, b->dev + off, n, cur_stream(st)), "rv_buffer_download");
    CK(ctx, st->drv.cuStreamSynchronize(cur_stream(st)), "rv_buffer_download");
    return 0;
}

static int cuda_buffer_copy_rows(RV_Context *ctx, RV_Buffer *b, size_t off, size_t bp, void *h, size_t hp,
                                 size_t row_bytes, size_t rows, int up)
{
    if (bp == row_bytes && hp == row_bytes) /* one block */
        return up ? cuda_buffer_upload(ctx, b, off, h, row_bytes * rows)
                  : cuda_buffer_download(ctx, b, off, h, row_bytes * rows);
    rvc_state *st = st_of(ctx);
    int err = bind(ctx);
    if (err < 0)
        return err;
    const char *what = up ? "rv_buffer_upload_rows" : "rv_buffer_download_rows";
    if (row_bytes <= RVC_STAGE_BYTES && stage_take(ctx, st, h, row_bytes * rows))
        return stage_rows(ctx, st, b->dev + off, bp, h, hp, row_bytes, rows, up, what);
    RVC_MEMCPY2D c;
    memset(&c, 0, sizeof(c));
    c.WidthInBytes = row_bytes;
    c.Height = rows;
    if (up) {
        c.srcMemoryType = RVC_MEMORYTYPE_HOST;
        c.srcHost = h;
        c.srcPitch = hp;
        c.dstMemoryType = RVC_MEMORYTYPE_DEVICE;
        c.dstDevice = b->dev + off;
        c.dstPitch = bp;
    } else {
        c.srcMemoryType = RVC_MEMORYTYPE_DEVICE;
        c.srcDevice = b->dev + off;
        c.srcPitch = bp;
        c.dstMemoryType = RVC_MEMORYTYPE_HOST;
        c.dstHost = h;
        c.dstPitch = hp;
    }
    CK(ctx, st->drv.cuMemcpy2DAsync(&c, cur_stream(st)), what);
    CK(ctx, st->drv.cuStreamSynchronize(cur_stream(st)), what);
    return 0;
}

static int cuda_sync(RV_Context *ctx)
{
    rvc_state *st = st_of(ctx);
    int err = bind(ctx);
    if (err < 0)
        return err;
    for (int i = 0; i < st->nstreams; i++)
        CK(ctx, st->drv.cuStreamSynchronize(st->streams[i]), "rv_context_sync");
    for (int i = 0; i < RVC_MAX_STREAMS; i++)
        if (st->side[i])
            CK(ctx, st->drv.cuStreamSynchronize(st->side[i]), "rv_context_sync (side queue)");
    return 0;
}

/* rv_side_*: the side stream of the current stream, created on first use. */
static int cuda_side(RV_Context *ctx, int op)
{
    rvc_state *st = st_of(ctx);
    int err = bind(ctx);
    if (err < 0)
        return err;
    const int i = st->cur;
    st->queued++; /* the current stream changes, or waits */
    if (op == RV__SIDE_JOIN && !st->side[i])
        return 0; /* nothing was ever queued beside this stream */
    if (!st->side[i]) {
        CK(ctx, stream_new(st, &st->side[i], st->prio_side), "creating a side stream");
        st->nside++;
    }
    if (!st->ev_side[i])
        CK(ctx, st->drv.cuEventCreate(&st->ev_side[i], RVC_EVENT_DISABLE_TIMING), "cuEventCreate (side queue)");
    if (op == RV__SIDE_BEGIN) {
        CK(ctx, st->drv.cuEventRecord(st->ev_side[i], st->streams[i]), "cuEventRecord (rv_side_begin)");
        CK(ctx, st->drv.cuStreamWaitEvent(st->side[i], st->ev_side[i], 0), "cuStreamWaitEvent (rv_side_begin)");
        st->in_side = 1;
    } else if (op == RV__SIDE_END) {
        st->in_side = 0;
    } else {
        CK(ctx, st->drv.cuEventRecord(st->ev_side[i], st->side[i]), "cuEventRecord (rv_side_join)");
        CK(ctx, st->drv.cuStreamWaitEvent(st->streams[i], st->ev_side[i], 0), "cuStreamWaitEvent (rv_side_join)");
    }
    return 0;
}

/* ---------------------------------------------------------------- */
/* Opening and closing                                                */
/* ---------------------------------------------------------------- */

static void state_close(rvc_state *st)
{
    if (!st)
        return;
    if (st->cu) {
        st->drv.cuCtxSetCurrent(st->cu);
        st->drv.cuCtxSynchronize();
        while (st->free_list) {
            rvc_free_block *b = st->free_list;
            st->free_list = b->next;
            st->drv.cuMemFree(b->ptr);
            free(b);
        }
        if (st->box_scratch)
            st->drv.cuMemFree(st->box_scratch);
        if (st->box_result)
            st->drv.cuMemFreeHost(st->box_result);
        stage_free(st);
        for (int i = 0; i < st->nstreams; i++)
            st->drv.cuStreamDestroy(st->streams[i]);
        for (int i = 0; i < RVC_MAX_STREAMS; i++) {
            if (st->side[i])
                st->drv.cuStreamDestroy(st->side[i]);
            if (st->ev_side[i])
                st->drv.cuEventDestroy(st->ev_side[i]);
        }
        st->drv.cuCtxSetCurrent(NULL);
        st->drv.cuDevicePrimaryCtxRelease(st->dev);
    }
    if (st->drv.lib)
        dlclose(st->drv.lib);
    free(st->trace_names);
    free(st);
}

static void cuda_destroy(RV_Context *ctx)
{
    rvc_state *st = st_of(ctx);
    if (st)
        rv__log(ctx, RV_LOG_DEBUG, "CUDA backend: %llu cuMemAlloc calls, %llu allocations served by the pool",
                st->cu_allocs, st->pool_hits);
    state_close(st);
    ctx->bk = NULL;
}

/* A directory holding both: the fat binary first (machine code for the
 * architecture it was built for, and the PTX the driver compiles for others). */
static const char *const cuda_module_exts[] = {".fatbin", ".ptx", NULL};

static const struct rv_backend_ops rv_cuda_backend = {
    .name = "cuda",
    .destroy = cuda_destroy,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .module_exts = cuda_module_exts,
    .module_forms = ".fatbin (machine code with its PTX) or .ptx files",
    .module_load = cuda_module_load,
    .module_unload = cuda_module_unload,
    .kernel_lookup = cuda_kernel_lookup,
    .kernel_free = cuda_kernel_free,
    .image_to_device = cuda_image_to_device,
    .image_to_host = cuda_image_to_host,
    .image_free_device = cuda_image_free_device,
    .device_base = cuda_device_base,
    .run_elem = cuda_run_elem,
    .launch_raw = cuda_launch_raw,
    .resident_blocks = cuda_resident_blocks,
    .buffer_alloc = cuda_buffer_alloc,
    .buffer_free = cuda_buffer_free,
    .buffer_upload = cuda_buffer_upload,
    .buffer_download = cuda_buffer_download,
    .buffer_copy_rows = cuda_buffer_copy_rows,
    .host_locked = cuda_host_locked,
    .sync = cuda_sync,
    .side = cuda_side,
    .queued = cuda_queued,
};

#define RVC_LOAD_SYM(name, sym, params)                                                        \
    do {                                                                                       \
        void *s_ = dlsym(d->lib, sym);                                                         \
        if (!s_) {                                                                             \
            snprintf(why, why_size, "%s has no function %s (NVIDIA driver too old?)", libname, sym); \
            return RV_ENODEV;                                                                  \
        }                                                                                      \
        memcpy(&d->name, &s_, sizeof(s_));                                                     \
    } while (0);

/* CUDA_MEMCPY2D (cuda.h) */
_Static_assert(sizeof(RVC_MEMCPY2D) == 128 && offsetof(RVC_MEMCPY2D, srcHost) == 24 &&
                   offsetof(RVC_MEMCPY2D, dstXInBytes) == 56 && offsetof(RVC_MEMCPY2D, WidthInBytes) == 112,
               "CUDA_MEMCPY2D");
/* the Driver API's CUlaunchAttribute / CUlaunchConfig layouts (cuda.h, 12.0+) */
_Static_assert(sizeof(rvc_launch_attr) == 72 && offsetof(rvc_launch_attr, value) == 8, "CUlaunchAttribute");
_Static_assert(offsetof(rvc_launch_config, stream) == 32 && offsetof(rvc_launch_config, num_attrs) == 48 &&
                   sizeof(rvc_launch_config) == 56,
               "CUlaunchConfig");

static int load_driver(rvc_driver *d, char *why, size_t why_size)
{
    const char *libname = getenv("RAVIOLI_CUDA_DRIVER");
    if (!libname || !*libname)
        libname = "libcuda.so.1";
    dlerror();
    d->lib = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
    if (!d->lib) {
        const char *e = dlerror();
        snprintf(why, why_size, "the NVIDIA driver library %s cannot be loaded (%s)", libname,
                 e ? e : "dlopen failed");
        return RV_ENODEV;
    }
    RVC_DRIVER_FUNCS(RVC_LOAD_SYM)
    return 0;
}

static int open_fail(rvc_state *st, CUresult r, const char *what, char *why, size_t why_size)
{
    char d[320];
    describe(&st->drv, r, d, sizeof(d));
    snprintf(why, why_size, "%s failed: %s", what, d);
    state_close(st);
    return RV_ENODEV;
}

int rv_cuda_backend_open(RV_Context *ctx, char *why, size_t why_size)
{
    rvc_state *st = calloc(1, sizeof(*st));
    if (!st) {
        snprintf(why, why_size, "out of memory");
        return RV_ENOMEM;
    }
    int err = load_driver(&st->drv, why, why_size);
    if (err < 0) {
        state_close(st);
        return err;
    }
    rvc_driver *d = &st->drv;
    CUresult r = d->cuInit(0);
    if (r == CUDA_ERROR_NO_DEVICE) {
        snprintf(why, why_size, "the NVIDIA driver is installed but reports no CUDA device "
                                "(cuInit: CUDA_ERROR_NO_DEVICE)");
        state_close(st);
        return RV_ENODEV;
    }
    if (r != CUDA_SUCCESS)
        return open_fail(st, r, "cuInit", why, why_size);
    int count = 0;
    if ((r = d->cuDeviceGetCount(&count)) != CUDA_SUCCESS)
        return open_fail(st, r, "cuDeviceGetCount", why, why_size);
    const int ordinal = ctx->settings.device;
    if (count == 0 || ordinal < 0 || ordinal >= count) {
        if (count == 0)
            snprintf(why, why_size, "the NVIDIA driver reports no CUDA device");
        else
            snprintf(why, why_size, "CUDA device %d requested, but the driver reports %d device%s (0..%d)",
                     ordinal, count, count == 1 ? "" : "s", count - 1);
        state_close(st);
        return RV_ENODEV;
    }
    st->ordinal = ordinal;
    if ((r = d->cuDeviceGet(&st->dev, ordinal)) != CUDA_SUCCESS)
        return open_fail(st, r, "cuDeviceGet", why, why_size);
    if ((r = d->cuDeviceGetName(st->name, (int)sizeof(st->name) - 1, st->dev)) != CUDA_SUCCESS)
        snprintf(st->name, sizeof(st->name), "device %d", ordinal);
    d->cuDeviceGetAttribute(&st->cc_major, RVC_ATTR_CC_MAJOR, st->dev);
    d->cuDeviceGetAttribute(&st->cc_minor, RVC_ATTR_CC_MINOR, st->dev);
    d->cuDeviceGetAttribute(&st->sm_count, RVC_ATTR_MULTIPROCESSOR_COUNT, st->dev);
    if (d->cuDeviceGetAttribute(&st->max_smem_optin, RVC_ATTR_MAX_SHARED_PER_BLOCK_OPTIN, st->dev) !=
        CUDA_SUCCESS)
        st->max_smem_optin = 48 * 1024;
    if (d->cuDeviceGetAttribute(&st->max_smem_sm, RVC_ATTR_MAX_SHARED_PER_MULTIPROCESSOR, st->dev) != CUDA_SUCCESS)
        st->max_smem_sm = 0;
    d->cuDeviceTotalMem(&st->total_mem, st->dev);
    d->cuDriverGetVersion(&st->driver_version);
    if ((r = d->cuDevicePrimaryCtxRetain(&st->cu, st->dev)) != CUDA_SUCCESS) {
        st->cu = NULL;
        return open_fail(st, r, "cuDevicePrimaryCtxRetain", why, why_size);
    }
    if ((r = d->cuCtxSetCurrent(st->cu)) != CUDA_SUCCESS)
        return open_fail(st, r, "cuCtxSetCurrent", why, why_size);
    /* priorities (optional): the frames' streams one step above the least,
     * which the side queues take */
    {
        void *cp = dlsym(d->lib, "cuStreamCreateWithPriority"), *pr = dlsym(d->lib, "cuCtxGetStreamPriorityRange");
        int least = 0, greatest = 0;
        rvc_prio_range_fn range = NULL;
        if (cp && pr) {
            memcpy(&st->create_prio, &cp, sizeof(cp));
            memcpy(&range, &pr, sizeof(pr));
            if (range(&least, &greatest) != CUDA_SUCCESS)
                least = greatest = 0;
        }
        st->prio_side = least;
        st->prio_main = greatest < least ? least - 1 : least;
    }
    if ((r = stream_new(st, &st->streams[0], st->prio_main)) != CUDA_SUCCESS)
        return open_fail(st, r, "cuStreamCreate", why, why_size);
    st->nstreams = 1;
    /* the procBox result: page-locked and mapped, the kernel writes it
     * (no copy a call; RAVIOLI_CUDA_BOX_MAPPED=0: not mapped, a copy) */
    const char *bmap = getenv("RAVIOLI_CUDA_BOX_MAPPED");
    const int want_map = !(bmap && bmap[0] == '0');
    if (!want_map ||
        d->cuMemHostAlloc((void **)&st->box_result, sizeof(rv_partial), RVC_MEMHOSTALLOC_DEVICEMAP) !=
            CUDA_SUCCESS ||
        d->cuMemHostGetDevicePointer(&st->box_result_dev, st->box_result, 0) != CUDA_SUCCESS) {
        if (st->box_result)
            d->cuMemFreeHost(st->box_result);
        st->box_result = NULL;
        st->box_result_dev = 0;
        if ((r = d->cuMemHostAlloc((void **)&st->box_result, sizeof(rv_partial), 0)) != CUDA_SUCCESS)
            return open_fail(st, r, "cuMemHostAlloc", why, why_size);
    }

    const char *chained = getenv("RAVIOLI_CUDA_CHAINED");
    void *sym = dlsym(d->lib, "cuLaunchKernelEx");
    if (sym)
        memcpy(&st->kernel_ex, &sym, sizeof(sym));
    if (st->cc_major >= 9 && !(chained && chained[0] == '0'))
        st->launch_ex = st->kernel_ex;

    const char *staged = getenv("RAVIOLI_CUDA_STAGED");
    st->staging_off = staged && staged[0] == '0';
    st->stage_mu_init = pthread_mutex_init(&st->stage_mu, NULL) == 0;

    ctx->bk = st;
    ctx->ops = &rv_cuda_backend;
    rv__log(ctx, RV_LOG_INFO,
            "CUDA backend on device %d: %s (compute capability %d.%d, %d multiprocessors, %.1f GiB), driver %d.%d",
            ordinal, st->name, st->cc_major, st->cc_minor, st->sm_count, st->total_mem / 1073741824.0,
            st->driver_version / 1000, st->driver_version % 1000 / 10);
    rv__log(ctx, RV_LOG_DEBUG, "CUDA backend: chained kernels launched %s",
            st->launch_ex ? "with programmatic dependent launch" : "plainly (no sm_90, no cuLaunchKernelEx, "
                                                                   "or RAVIOLI_CUDA_CHAINED=0)");
    return 0;
}

/* ---------------------------------------------------------------- */
/* Hooks for the streaming runtime (cuda_backend.h)                   */
/* ---------------------------------------------------------------- */

/* The hooks' common start: the CUDA state of ctx, bound to this thread;
 * NULL with *err = RV_ENOSYS when ctx is not a CUDA context or `arg` is
 * NULL, or with bind()'s error. */
static rvc_state *hook_state(RV_Context *ctx, const void *arg, int *err)
{
    *err = RV_ENOSYS;
    if (!ctx || ctx->backend != RV_BACKEND_CUDA || !ctx->bk || !arg)
        return NULL;
    if ((*err = bind(ctx)) < 0)
        return NULL;
    return st_of(ctx);
}

int rv__cuda_set_stream(RV_Context *ctx, int index)
{
    int err;
    rvc_state *st = hook_state(ctx, ctx, &err);
    if (!st)
        return err;
    if (index < 0 || index >= RVC_MAX_STREAMS)
        return rv__error(ctx, RV_EINVAL, "CUDA stream index %d outside 0..%d", index, RVC_MAX_STREAMS - 1);
    if (st->in_side)
        return rv__error(ctx, RV_EINVAL, "CUDA stream %d selected inside a side section (rv_side_end first)", index);
    while (st->nstreams <= index) {
        CK(ctx, stream_new(st, &st->streams[st->nstreams], st->prio_main), "cuStreamCreate");
        st->nstreams++;
    }
    st->cur = index;
    st->queued++;
    return 0;
}

int rv__cuda_stream_sync(RV_Context *ctx, int index)
{
    int err;
    rvc_state *st = hook_state(ctx, ctx, &err);
    if (!st)
        return err;
    if (index < 0 || index >= st->nstreams)
        return rv__error(ctx, RV_EINVAL, "CUDA stream index %d was never used", index);
    CK(ctx, st->drv.cuStreamSynchronize(st->streams[index]), "cuStreamSynchronize");
    return 0;
}

int rv__cuda_stats(RV_Context *ctx, rv_cuda_stats *out)
{
    if (!ctx || ctx->backend != RV_BACKEND_CUDA || !ctx->bk || !out)
        return RV_ENOSYS;
    rvc_state *st = st_of(ctx);
    memset(out, 0, sizeof(*out));
    out->cu_mem_allocs = st->cu_allocs;
    out->pool_hits = st->pool_hits;
    out->live_bytes = st->live_bytes;
    out->cached_bytes = st->cached_bytes;
    out->stream = (void *)st->streams[st->cur];
    snprintf(out->device_name, sizeof(out->device_name), "%s", st->name);
    out->cc_major = st->cc_major;
    out->cc_minor = st->cc_minor;
    out->sm_count = st->sm_count;
    out->driver_version = st->driver_version;
    return 0;
}

int rv__cuda_image_upload_async(RV_Context *ctx, RV_Image *img)
{
    if (!ctx || ctx->backend != RV_BACKEND_CUDA || !ctx->bk || !img)
        return RV_ENOSYS;
    if (img->dev_valid)
        return 0;
    if (!img->host_valid)
        return rv__error(ctx, RV_EINVAL, "image has no current copy (internal error)");
    rvc_state *st = st_of(ctx);
    uint64_t base;
    int err = cuda_device_base(ctx, img, &base);
    if (err < 0)
        return err;
    CK(ctx, st->drv.cuMemcpyHtoDAsync((CUdeviceptr)base, img->host, img->bytes, cur_stream(st)),
       "uploading an image (async)");
    img->dev_valid = 1;
    return 0;
}

int rv__cuda_image_download_async(RV_Context *ctx, RV_Image *img)
{
    if (!ctx || ctx->backend != RV_BACKEND_CUDA || !ctx->bk || !img)
        return RV_ENOSYS;
    if (img->host_valid)
        return 0;
    rvc_state *st = st_of(ctx);
    int err = bind(ctx);
    if (err < 0)
        return err;
    if (!img->dev)
        return rv__error(ctx, RV_EINVAL, "image has no device copy to download (internal error)");
    CK(ctx, st->drv.cuMemcpyDtoHAsync(img->host, (CUdeviceptr)(uintptr_t)img->dev, img->bytes, cur_stream(st)),
       "downloading an image (async)");
    img->host_valid = 1;
    return 0;
}

/* ---------------------------------------------------------------- */
/* Events for GPU frame timing (streaming pipeline, cuda_backend.h)   */
/* ---------------------------------------------------------------- */

int rv__cuda_event_create(RV_Context *ctx, void **ev)
{
    if (ev)
        *ev = NULL;
    int err;
    rvc_state *st = hook_state(ctx, ev, &err);
    if (!st)
        return err;
    CUevent e = NULL;
    CK(ctx, st->drv.cuEventCreate(&e, 0), "cuEventCreate");
    *ev = e;
    return 0;
}

void rv__cuda_event_destroy(RV_Context *ctx, void **ev)
{
    if (!ev || !*ev)
        return;
    int err;
    rvc_state *st = hook_state(ctx, *ev, &err);
    if (st)
        st->drv.cuEventDestroy((CUevent)*ev);
    *ev = NULL;
}

int rv__cuda_event_record(RV_Context *ctx, void *ev)
{
    int err;
    rvc_state *st = hook_state(ctx, ev, &err);
    if (!st)
        return err;
    CK(ctx, st->drv.cuEventRecord((CUevent)ev, cur_stream(st)), "cuEventRecord");
    return 0;
}

int rv__cuda_stream_wait_event(RV_Context *ctx, void *ev)
{
    int err;
    rvc_state *st = hook_state(ctx, ev, &err);
    if (!st)
        return err;
    CK(ctx, st->drv.cuStreamWaitEvent(cur_stream(st), (CUevent)ev, 0), "cuStreamWaitEvent");
    return 0;
}

int rv__cuda_event_sync(RV_Context *ctx, void *ev)
{
    int err;
    rvc_state *st = hook_state(ctx, ev, &err);
    if (!st)
        return err;
    CK(ctx, st->drv.cuEventSynchronize((CUevent)ev), "cuEventSynchronize");
    return 0;
}

/* cuEventElapsedTime is looked up here, not in the required driver table,
 * so a driver without it only loses the GPU timing (CUDA 12.8+ exports
 * cuEventElapsedTime_v2, older drivers only the first version; both have
 * the same signature). */
typedef CUresult (*rvc_elapsed_fn)(float *ms, CUevent a, CUevent b);

int rv__cuda_event_elapsed_ms(RV_Context *ctx, void *a, void *b, float *ms)
{
    if (!ctx || ctx->backend != RV_BACKEND_CUDA || !ctx->bk || !a || !b || !ms)
        return RV_ENOSYS;
    rvc_state *st = st_of(ctx);
    void *sym = dlsym(st->drv.lib, "cuEventElapsedTime_v2");
    if (!sym)
        sym = dlsym(st->drv.lib, "cuEventElapsedTime");
    if (!sym)
        return RV_ENOSYS;
    rvc_elapsed_fn fn;
    memcpy(&fn, &sym, sizeof(fn));
    int err = bind(ctx);
    if (err < 0)
        return err;
    CK(ctx, fn(ms, (CUevent)a, (CUevent)b), "cuEventElapsedTime");
    return 0;
}
