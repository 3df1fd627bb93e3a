/*
 * cpu_backend.c - the CPU backend: modules are shared objects (dlopen), the
 * kernel entries are row-range loops, work is split by rows over the pool.
 *
 * The split depends only on the image (about 16K samples a task), never on
 * the thread count, so results, float sums included, are the same with one
 * thread and with many.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef void (*rv_cpu_entry)(const rv_args *a, int j0, int j1, rv_partial *part);
typedef void (*rv_cpu_raw_entry)(const void *args, rv_block blk);

#define TASK_SAMPLES 16384
#define MAX_TASKS 4096

static void *cpu_host_alloc(RV_Context *ctx, size_t size)
{
    (void)ctx;
    size_t n = (size + 63) / 64 * 64;
    return aligned_alloc(64, n ? n : 64);
}

static void cpu_host_free(RV_Context *ctx, void *p, size_t size)
{
    (void)ctx;
    (void)size;
    free(p);
}

static int cpu_module_load(RV_Context *ctx, const char *path, RV_Module *m)
{
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        return rv__error(ctx, RV_EBADMSG, "module %s: cannot load: %s", path, e ? e : "unknown error");
    }
    m->handle = h;
    return 0;
}

static void cpu_module_unload(RV_Context *ctx, RV_Module *m)
{
    (void)ctx;
    if (m->handle)
        dlclose(m->handle);
    m->handle = NULL;
}

static int cpu_kernel_lookup(RV_Context *ctx, RV_Module *m, const char *name, RV_Kernel *k)
{
    char sym[320];
    if (snprintf(sym, sizeof(sym), "rvk_%s", name) >= (int)sizeof(sym))
        return rv__error(ctx, RV_EINVAL, "kernel name '%.40s...' is too long", name);
    void *entry = dlsym(m->handle, sym);
    if (!entry)
        return rv__error(ctx, RV_ENOENT, "module %s has no kernel '%s' (symbol %s not found)", m->path,
                         name, sym);
    snprintf(sym, sizeof(sym), "rvk_%s_desc", name);
    const rv_kernel_desc *d = dlsym(m->handle, sym);
    if (!d)
        return rv__error(ctx, RV_EBADMSG,
                         "module %s: kernel '%s' has no descriptor %s (not built with <ravioli/kernel.h>?)",
                         m->path, name, sym);
    k->desc = *d;
    k->entry = entry;
    return 0;
}

/* ---------------------------------------------------------------- */
/* Element operations                                                 */
/* ---------------------------------------------------------------- */

typedef struct elem_job {
    rv_cpu_entry fn;
    const rv_args *args;
    int rows, chunk;
    rv_partial *parts;
} elem_job;

static void elem_task(void *varg, int task, int worker)
{
    (void)worker;
    elem_job *job = varg;
    int j0 = task * job->chunk;
    int j1 = j0 + job->chunk < job->rows ? j0 + job->chunk : job->rows;
    job->fn(job->args, j0, j1, job->parts ? &job->parts[task] : NULL);
}

static int cpu_run_elem(RV_Context *ctx, rv_elem_call *call, rv_partial *red)
{
    if (call->rows <= 0 || call->cols <= 0)
        return 0;
    long long per_row = call->cols;
    if (call->k->desc.op == RV_OP_BOX) /* a window costs about its sample count */
        per_row *= (long long)((call->args.box_w + call->args.s - 1) / call->args.s) *
                   ((call->args.box_h + call->args.s - 1) / call->args.s);
    long long chunk = (TASK_SAMPLES + per_row - 1) / per_row;
    if (chunk < 1)
        chunk = 1;
    int ntasks = (int)((call->rows + chunk - 1) / chunk);
    if (ntasks > MAX_TASKS) {
        chunk = (call->rows + MAX_TASKS - 1) / MAX_TASKS;
        ntasks = (int)((call->rows + chunk - 1) / chunk);
    }
    elem_job job = {(rv_cpu_entry)call->k->entry, &call->args, call->rows, (int)chunk, NULL};
    rv_partial stack_parts[64];
    rv_partial *parts = NULL;
    if (red) {
        parts = ntasks <= (int)RV_ARRAY_LEN(stack_parts) ? stack_parts
                                                         : calloc((size_t)ntasks, sizeof(*parts));
        if (!parts)
            return rv__error(ctx, RV_ENOMEM, "procBox: out of memory for %d partial results", ntasks);
        memset(parts, 0, (size_t)ntasks * sizeof(*parts));
        job.parts = parts;
    }
    rv_pool_run(ctx->pool, ntasks, elem_task, &job);
    if (red) {
        rv__combine_partials(call->args.reduce, call->k->desc.out_type, parts, ntasks, red);
        if (parts != stack_parts)
            free(parts);
    }
    return 0;
}

/* ---------------------------------------------------------------- */
/* Raw kernels: one call per block, blocks spread over the pool        */
/* ---------------------------------------------------------------- */

typedef struct raw_job {
    rv_cpu_raw_entry fn;
    const void *args;
    RV_LaunchShape shape;
    unsigned char *scratch; /* threads x shared_bytes */
} raw_job;

static void raw_task(void *varg, int task, int worker)
{
    raw_job *job = varg;
    rv_block b;
    memset(&b, 0, sizeof(b));
    b.nx = (int32_t)job->shape.grid[0];
    b.ny = (int32_t)job->shape.grid[1];
    b.nz = (int32_t)job->shape.grid[2];
    b.x = task % b.nx;
    b.y = (task / b.nx) % b.ny;
    b.z = task / (b.nx * b.ny);
    b.tx = (int32_t)job->shape.block[0];
    b.ty = (int32_t)job->shape.block[1];
    b.tz = (int32_t)job->shape.block[2];
    b.shared = job->scratch ? job->scratch + (size_t)worker * job->shape.shared_bytes : NULL;
    job->fn(job->args, b);
}

static int cpu_launch_raw(RV_Context *ctx, const RV_Kernel *k, const RV_LaunchShape *shape,
                          const void *args, size_t args_size)
{
    (void)args_size;
    raw_job job = {(rv_cpu_raw_entry)k->entry, args, *shape, NULL};
    long long nblocks = (long long)shape->grid[0] * shape->grid[1] * shape->grid[2];
    if (nblocks > 0x7fffffff)
        return rv__error(ctx, RV_EINVAL, "raw kernel '%s': too many blocks", k->name);
    if (shape->shared_bytes) {
        job.scratch = aligned_alloc(64, ((size_t)ctx->threads * shape->shared_bytes + 63) / 64 * 64);
        if (!job.scratch)
            return rv__error(ctx, RV_ENOMEM, "raw kernel '%s': cannot allocate %u bytes of scratch a thread",
                             k->name, shape->shared_bytes);
    }
    rv_pool_run(ctx->pool, (int)nblocks, raw_task, &job);
    free(job.scratch);
    return 0;
}

/* ---------------------------------------------------------------- */
/* Buffers                                                            */
/* ---------------------------------------------------------------- */

static int cpu_buffer_alloc(RV_Context *ctx, RV_Buffer *b)
{
    b->host = aligned_alloc(64, (b->size + 63) / 64 * 64);
    if (!b->host)
        return rv__error(ctx, RV_ENOMEM, "rv_buffer_create: cannot allocate %zu bytes", b->size);
    memset(b->host, 0, b->size);
    return 0;
}

static void cpu_buffer_free(RV_Context *ctx, RV_Buffer *b)
{
    (void)ctx;
    free(b->host);
    b->host = NULL;
}

static int cpu_buffer_upload(RV_Context *ctx, RV_Buffer *b, size_t off, const void *src, size_t n)
{
    (void)ctx;
    memcpy((unsigned char *)b->host + off, src, n);
    return 0;
}

static int cpu_buffer_download(RV_Context *ctx, RV_Buffer *b, size_t off, void *dst, size_t n)
{
    (void)ctx;
    memcpy(dst, (unsigned char *)b->host + off, n);
    return 0;
}

static int cpu_buffer_copy_rows(RV_Context *ctx, RV_Buffer *b, size_t off, size_t bp, void *h, size_t hp,
                                size_t row_bytes, size_t rows, int up)
{
    (void)ctx;
    unsigned char *dev = (unsigned char *)b->host + off, *host = h;
    for (size_t r = 0; r < rows; r++) {
        if (up)
            memcpy(dev + r * bp, host + r * hp, row_bytes);
        else
            memcpy(host + r * hp, dev + r * bp, row_bytes);
    }
    return 0;
}

static const char *const cpu_module_exts[] = {".so", NULL};

const struct rv_backend_ops rv_cpu_backend = {
    .name = "cpu",
    .destroy = NULL,
    .host_alloc = cpu_host_alloc,
    .host_free = cpu_host_free,
    .module_exts = cpu_module_exts,
    .module_forms = ".so files",
    .module_load = cpu_module_load,
    .module_unload = cpu_module_unload,
    .kernel_lookup = cpu_kernel_lookup,
    .kernel_free = NULL,
    .image_to_device = NULL,
    .image_to_host = NULL,
    .image_free_device = NULL,
    .device_base = NULL,
    .run_elem = cpu_run_elem,
    .launch_raw = cpu_launch_raw,
    .buffer_alloc = cpu_buffer_alloc,
    .buffer_free = cpu_buffer_free,
    .buffer_upload = cpu_buffer_upload,
    .buffer_download = cpu_buffer_download,
    .buffer_copy_rows = cpu_buffer_copy_rows,
    .sync = NULL,
};
