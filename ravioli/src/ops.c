/*
 * ops.c - the higher-order operations: argument checks, per-plane dispatch
 * to the backend, reductions; raw kernels and buffers.
 *
 * Every check that can be made on the host is made here, once, with a
 * message that names the kernel, the operation and what was wrong, so that
 * backends only see well-formed calls.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *fmt_name(const RV_Image *img)
{
    return img->fi->name;
}

static int check_kernel(RV_Context *ctx, const RV_Kernel *k, uint32_t op, const char *fn)
{
    if (!k)
        return rv__error(ctx, RV_EINVAL, "%s: kernel is NULL", fn);
    if (k->mod->ctx != ctx)
        return rv__error(ctx, RV_EINVAL, "%s: kernel '%s' was loaded on another context", fn, k->name);
    if (k->desc.op != op)
        return rv__error(ctx, RV_EINVAL, "%s: kernel '%s' is a %s kernel, not %s", fn, k->name,
                         rv__op_name(k->desc.op), rv__op_name(op));
    return 0;
}

static int check_params(RV_Context *ctx, const RV_Kernel *k, const void *params, size_t size,
                        const char *fn)
{
    if (size != k->desc.param_size) {
        if (k->desc.param_size == 0)
            return rv__error(ctx, RV_EINVAL, "%s: kernel '%s' takes no parameters (got %zu bytes)", fn,
                             k->name, size);
        return rv__error(ctx, RV_EINVAL,
                         "%s: kernel '%s' takes a %u-byte parameter block, got %zu bytes", fn,
                         k->name, k->desc.param_size, size);
    }
    if (size && !params)
        return rv__error(ctx, RV_EINVAL, "%s: kernel '%s': params is NULL", fn, k->name);
    return 0;
}

static int check_elem(RV_Context *ctx, const RV_Kernel *k, const RV_Image *img, uint32_t want,
                      const char *role, const char *fn)
{
    if ((uint32_t)img->fi->elem_type != want)
        return rv__error(ctx, RV_EINVAL,
                         "%s: kernel '%s' expects %s elements for its %s, the image is %s (%s elements)",
                         fn, k->name, rv__elem_name(want), role, fmt_name(img),
                         rv__elem_name((uint32_t)img->fi->elem_type));
    return 0;
}

static int same_geometry(const RV_Image *a, const RV_Image *b)
{
    if (a->w != b->w || a->h != b->h || a->nplanes != b->nplanes)
        return 0;
    for (int p = 0; p < a->nplanes; p++)
        if (a->pl[p].w != b->pl[p].w || a->pl[p].h != b->pl[p].h)
            return 0;
    return 1;
}

static int plane_arg(RV_Context *ctx, RV_Image *img, int plane, rv_plane *out)
{
    const rv_plane_store *ps = &img->pl[plane];
    out->pitch = ps->pitch;
    out->w = ps->w;
    out->h = ps->h;
    if (ctx->ops->device_base) {
        uint64_t base = 0;
        int err = ctx->ops->device_base(ctx, img, &base);
        if (err < 0)
            return err;
        out->data = (unsigned char *)(uintptr_t)(base + ps->offset);
    } else {
        out->data = rv__plane_host(img, plane);
    }
    return 0;
}

static void set_params(rv_args *a, const void *params, size_t size)
{
    memset(a->params, 0, sizeof(a->params));
    if (size)
        memcpy(a->params, params, size);
}

/* Makes the inputs current on the backend. Outputs need no transfer: every
 * pixel of an output is written (at stride S each sample fills its whole
 * S x S block, clipped at the border, and the blocks tile the image). */
static int prepare(RV_Image *in0, RV_Image *in1)
{
    int err = rv__image_on_backend(in0);
    if (err >= 0 && in1)
        err = rv__image_on_backend(in1);
    return err;
}

static int get_scratch(RV_Context *ctx, const RV_Image *like, RV_Image **out)
{
    RV_Image *s = ctx->scratch;
    if (s && s->fmt == like->fmt && s->w == like->w && s->h == like->h) {
        *out = s;
        return 0;
    }
    rv_image_destroy(&ctx->scratch);
    int err = rv_image_create(ctx, like->w, like->h, like->fmt, &ctx->scratch);
    if (err < 0)
        return err;
    *out = ctx->scratch;
    return 0;
}

/* pix, nbr and comp share this path. */
static int run_planes(RV_Context *ctx, const RV_Kernel *k, RV_Image *dst, RV_Image *src,
                      RV_Image *src2, const void *params, size_t params_size, const char *fn)
{
    int err = prepare(src, src2);
    if (err < 0)
        return err;
    rv_elem_call call;
    memset(&call, 0, sizeof(call));
    call.k = k;
    call.out = dst;
    call.in[0] = src;
    call.in[1] = src2;
    const int s = src->stride;
    for (int p = 0; p < src->nplanes; p++) {
        rv_args *a = &call.args;
        if ((err = plane_arg(ctx, dst, p, &a->dst)) < 0 || (err = plane_arg(ctx, src, p, &a->src)) < 0)
            return err;
        if (src2 && (err = plane_arg(ctx, src2, p, &a->src2)) < 0)
            return err;
        a->s = s;
        a->plane = p;
        a->reduce = RV_REDUCE_NONE;
        set_params(a, params, params_size);
        call.rows = (src->pl[p].h + s - 1) / s;
        call.cols = (src->pl[p].w + s - 1) / s;
        err = ctx->ops->run_elem(ctx, &call, NULL);
        if (err < 0)
            return err;
    }
    rv__image_written(dst);
    dst->stride = s;
    (void)fn;
    return 0;
}

/* Checks shared by procPix and procNbr (one input, one output of the same geometry). */
static int check_unary(const RV_Kernel *k, uint32_t op, RV_Image *dst, RV_Image *src,
                       const void *params, size_t params_size, const char *fn)
{
    if (!dst || !src)
        return src ? rv__error(src->ctx, RV_EINVAL, "%s: dst is NULL", fn) : RV_EINVAL;
    RV_Context *ctx = src->ctx;
    int err;
    if ((err = check_kernel(ctx, k, op, fn)) < 0 ||
        (err = check_params(ctx, k, params, params_size, fn)) < 0 ||
        (err = check_elem(ctx, k, src, k->desc.in_type, "input", fn)) < 0 ||
        (err = check_elem(ctx, k, dst, k->desc.out_type, "output", fn)) < 0)
        return err;
    if (dst->ctx != ctx)
        return rv__error(ctx, RV_EINVAL, "%s: images belong to different contexts", fn);
    if (!same_geometry(dst, src))
        return rv__error(ctx, RV_EINVAL, "%s: kernel '%s': output %dx%d %s does not match input %dx%d %s",
                         fn, k->name, dst->w, dst->h, fmt_name(dst), src->w, src->h, fmt_name(src));
    return 0;
}

RV_API int rv_proc_pix(const RV_Kernel *k, RV_Image *dst, RV_Image *src, const void *params,
                       size_t params_size)
{
    static const char fn[] = "rv_proc_pix";
    int err = check_unary(k, RV_OP_PIX, dst, src, params, params_size, fn);
    if (err < 0)
        return err;
    return run_planes(src->ctx, k, dst, src, NULL, params, params_size, fn);
}

RV_API int rv_comp_img(const RV_Kernel *k, RV_Image *dst, RV_Image *a, RV_Image *b,
                       const void *params, size_t params_size)
{
    static const char fn[] = "rv_comp_img";
    if (!dst || !a || !b)
        return a ? rv__error(a->ctx, RV_EINVAL, "%s: dst, a and b are required", fn) : RV_EINVAL;
    RV_Context *ctx = a->ctx;
    int err;
    if ((err = check_kernel(ctx, k, RV_OP_COMP, fn)) < 0 ||
        (err = check_params(ctx, k, params, params_size, fn)) < 0 ||
        (err = check_elem(ctx, k, a, k->desc.in_type, "first input", fn)) < 0 ||
        (err = check_elem(ctx, k, b, k->desc.in2_type, "second input", fn)) < 0 ||
        (err = check_elem(ctx, k, dst, k->desc.out_type, "output", fn)) < 0)
        return err;
    if (dst->ctx != ctx || b->ctx != ctx)
        return rv__error(ctx, RV_EINVAL, "%s: images belong to different contexts", fn);
    if (!same_geometry(a, b) || !same_geometry(dst, a))
        return rv__error(ctx, RV_EINVAL,
                         "%s: kernel '%s': images differ in size (a %dx%d %s, b %dx%d %s, dst %dx%d %s)",
                         fn, k->name, a->w, a->h, fmt_name(a), b->w, b->h, fmt_name(b), dst->w, dst->h,
                         fmt_name(dst));
    return run_planes(ctx, k, dst, a, b, params, params_size, fn);
}

RV_API int rv_proc_nbr(const RV_Kernel *k, RV_Image *dst, RV_Image *src, const void *params,
                       size_t params_size)
{
    static const char fn[] = "rv_proc_nbr";
    int err = check_unary(k, RV_OP_NBR, dst, src, params, params_size, fn);
    if (err < 0)
        return err;
    RV_Context *ctx = src->ctx;
    if (k->desc.radius < 0 || k->desc.radius > 64)
        return rv__error(ctx, RV_EINVAL, "%s: kernel '%s' has radius %d (0..64)", fn, k->name,
                         k->desc.radius);
    if (dst != src)
        return run_planes(ctx, k, dst, src, NULL, params, params_size, fn);

    /* In place: neighbours must be read before they are overwritten, so write
     * into a scratch image and swap storage (pointers held by the caller into
     * `src` are invalid afterwards, as documented). */
    RV_Image *tmp;
    if ((err = get_scratch(ctx, src, &tmp)) < 0)
        return err;
    tmp->stride = src->stride;
    err = run_planes(ctx, k, tmp, src, NULL, params, params_size, fn);
    if (err < 0)
        return err;
    rv__image_swap_storage(src, tmp);
    return 0;
}

void rv__combine_partials(int reduce, uint32_t score_type, const rv_partial *parts, int n,
                          rv_partial *out)
{
    rv_partial b;
    memset(&b, 0, sizeof(b));
    for (int i = 0; i < n; i++) {
        const rv_partial *q = &parts[i];
        if (!q->valid)
            continue;
        if (reduce == RV_REDUCE_SUM) {
            b.score += q->score;
            b.isum += q->isum;
            b.valid = 1;
        } else if (!b.valid || (reduce == RV_REDUCE_MIN ? q->score < b.score : q->score > b.score) ||
                   (q->score == b.score && (q->y < b.y || (q->y == b.y && q->x < b.x)))) {
            b = *q;
        }
    }
    if (reduce == RV_REDUCE_SUM && score_type == RV_ET_I32)
        b.score = (double)b.isum;
    *out = b;
}

RV_API int rv_proc_box(const RV_Kernel *k, RV_Image *score_map, RV_Image *src, RV_Image *ref,
                       int box_w, int box_h, const void *params, size_t params_size,
                       RV_Reduce reduce, RV_BoxResult *result)
{
    static const char fn[] = "rv_proc_box";
    if (!src)
        return RV_EINVAL;
    RV_Context *ctx = src->ctx;
    int err;
    if ((err = check_kernel(ctx, k, RV_OP_BOX, fn)) < 0 ||
        (err = check_params(ctx, k, params, params_size, fn)) < 0 ||
        (err = check_elem(ctx, k, src, k->desc.in_type, "input", fn)) < 0)
        return err;
    if (k->desc.out_type != RV_ET_I32 && k->desc.out_type != RV_ET_F32)
        return rv__error(ctx, RV_EBADMSG, "%s: kernel '%s' has score type %s (i32 or f32 expected)", fn,
                         k->name, rv__elem_name(k->desc.out_type));
    if ((int)reduce < 0 || (int)reduce > RV_SUM)
        return rv__error(ctx, RV_EINVAL, "%s: unknown reduction %d", fn, (int)reduce);
    if (src->nplanes != 1)
        return rv__error(ctx, RV_EINVAL, "%s: %s images have %d planes; procBox takes one plane", fn,
                         fmt_name(src), src->nplanes);
    if (box_w < 1 || box_h < 1 || box_w > src->w || box_h > src->h)
        return rv__error(ctx, RV_EINVAL, "%s: a %dx%d window does not fit a %dx%d image", fn, box_w,
                         box_h, src->w, src->h);
    if (k->desc.in2_type != RV_ET_NONE) {
        if (!ref)
            return rv__error(ctx, RV_EINVAL, "%s: kernel '%s' needs a reference image", fn, k->name);
        if ((err = check_elem(ctx, k, ref, k->desc.in2_type, "reference", fn)) < 0)
            return err;
        if (ref->ctx != ctx)
            return rv__error(ctx, RV_EINVAL, "%s: images belong to different contexts", fn);
        if (ref->w < box_w || ref->h < box_h)
            return rv__error(ctx, RV_EINVAL, "%s: reference %dx%d is smaller than the %dx%d window", fn,
                             ref->w, ref->h, box_w, box_h);
    } else {
        ref = NULL;
    }
    const int mw = src->w - box_w + 1, mh = src->h - box_h + 1;
    if (reduce == RV_REDUCE_NONE_) {
        if (!score_map)
            return rv__error(ctx, RV_EINVAL, "%s: no reduction asked, so a score map is required", fn);
        if (score_map->ctx != ctx || score_map->fmt != RV_FMT_GRAYF32 || score_map->w != mw ||
            score_map->h != mh)
            return rv__error(ctx, RV_EINVAL, "%s: the score map must be a %dx%d grayf32 image (got %dx%d %s)",
                             fn, mw, mh, score_map->w, score_map->h, fmt_name(score_map));
    } else {
        if (!result)
            return rv__error(ctx, RV_EINVAL, "%s: result is NULL", fn);
        score_map = NULL;
    }

    if ((err = prepare(src, ref)) < 0)
        return err;
    rv_elem_call call;
    memset(&call, 0, sizeof(call));
    call.k = k;
    call.out = score_map;
    call.in[0] = src;
    call.in[1] = ref;
    rv_args *a = &call.args;
    const int s = src->stride;
    if ((err = plane_arg(ctx, src, 0, &a->src)) < 0)
        return err;
    if (ref && (err = plane_arg(ctx, ref, 0, &a->src2)) < 0)
        return err;
    if (score_map && (err = plane_arg(ctx, score_map, 0, &a->dst)) < 0)
        return err;
    a->s = s;
    a->box_w = box_w;
    a->box_h = box_h;
    a->reduce = (int32_t)reduce;
    set_params(a, params, params_size);
    call.rows = (mh - 1) / s + 1;
    call.cols = (mw - 1) / s + 1;
    rv_partial red;
    memset(&red, 0, sizeof(red));
    err = ctx->ops->run_elem(ctx, &call, reduce ? &red : NULL);
    if (err < 0)
        return err;
    if (score_map) {
        rv__image_written(score_map);
        score_map->stride = s;
    }
    if (result) {
        memset(result, 0, sizeof(*result));
        result->positions = (long long)call.rows * call.cols;
        if (reduce) {
            result->score = red.score;
            result->x = red.x;
            result->y = red.y;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- */
/* Buffers and raw kernels                                            */
/* ---------------------------------------------------------------- */

RV_API int rv_buffer_create(RV_Context *ctx, size_t size, RV_Buffer **out)
{
    if (!ctx)
        return RV_EINVAL;
    if (!out)
        return rv__error(ctx, RV_EINVAL, "rv_buffer_create: out is NULL");
    *out = NULL;
    if (size == 0 || size > ((size_t)1 << 40))
        return rv__error(ctx, RV_EINVAL, "rv_buffer_create: size %zu outside 1..2^40", size);
    RV_Buffer *b = calloc(1, sizeof(*b));
    if (!b)
        return rv__error(ctx, RV_ENOMEM, "rv_buffer_create: out of memory");
    b->ctx = ctx;
    b->size = size;
    int err = ctx->ops->buffer_alloc(ctx, b);
    if (err < 0) {
        free(b);
        return err;
    }
    pthread_mutex_lock(&ctx->lock);
    rv__list_add(&ctx->buffers, &b->link);
    pthread_mutex_unlock(&ctx->lock);
    *out = b;
    return 0;
}

RV_API void rv_buffer_destroy(RV_Buffer **pb)
{
    if (!pb || !*pb)
        return;
    RV_Buffer *b = *pb;
    RV_Context *ctx = b->ctx;
    pthread_mutex_lock(&ctx->lock);
    rv__list_del(&b->link);
    pthread_mutex_unlock(&ctx->lock);
    ctx->ops->buffer_free(ctx, b);
    free(b);
    *pb = NULL;
}

RV_API size_t rv_buffer_size(const RV_Buffer *b)
{
    return b ? b->size : 0;
}

RV_API uint64_t rv_buffer_address(const RV_Buffer *b)
{
    if (!b)
        return 0;
    return b->host ? (uint64_t)(uintptr_t)b->host : b->dev;
}

static int check_range(RV_Buffer *b, size_t off, const void *p, size_t n, const char *fn)
{
    if (!p && n)
        return rv__error(b->ctx, RV_EINVAL, "%s: NULL host pointer", fn);
    if (off > b->size || n > b->size - off)
        return rv__error(b->ctx, RV_EINVAL, "%s: range %zu+%zu outside a %zu-byte buffer", fn, off, n,
                         b->size);
    return 0;
}

RV_API int rv_buffer_upload(RV_Buffer *b, size_t off, const void *src, size_t n)
{
    if (!b)
        return RV_EINVAL;
    int err = check_range(b, off, src, n, "rv_buffer_upload");
    if (err < 0 || n == 0)
        return err;
    return b->ctx->ops->buffer_upload(b->ctx, b, off, src, n);
}

RV_API int rv_buffer_download(RV_Buffer *b, size_t off, void *dst, size_t n)
{
    if (!b)
        return RV_EINVAL;
    int err = check_range(b, off, dst, n, "rv_buffer_download");
    if (err < 0 || n == 0)
        return err;
    return b->ctx->ops->buffer_download(b->ctx, b, off, dst, n);
}

/* rv_buffer_upload_rows / rv_buffer_download_rows: the checks, then the backend */
static int copy_rows_checked(RV_Buffer *b, size_t off, size_t bp, void *h, size_t hp, size_t row_bytes, size_t rows,
                             int up)
{
    const char *fn = up ? "rv_buffer_upload_rows" : "rv_buffer_download_rows";
    if (!b)
        return RV_EINVAL;
    if (rows == 0 || row_bytes == 0)
        return 0;
    if (!h)
        return rv__error(b->ctx, RV_EINVAL, "%s: NULL host pointer", fn);
    if (bp < row_bytes || hp < row_bytes)
        return rv__error(b->ctx, RV_EINVAL, "%s: pitches %zu (buffer) and %zu (host) must be at least the %zu bytes of a row",
                         fn, bp, hp, row_bytes);
    /* the last row ends at off + (rows - 1) bp + row_bytes: checked without overflow */
    if (off > b->size || (rows - 1) > (b->size - off) / bp || row_bytes > b->size - off - (rows - 1) * bp)
        return rv__error(b->ctx, RV_EINVAL, "%s: %zu rows of %zu bytes at %zu, %zu apart, leave a %zu-byte buffer", fn,
                         rows, row_bytes, off, bp, b->size);
    if ((rows - 1) > (UINTPTR_MAX - (uintptr_t)h - row_bytes) / hp)
        return rv__error(b->ctx, RV_EINVAL, "%s: %zu rows %zu bytes apart overflow the host address space", fn, rows,
                         hp);
    return b->ctx->ops->buffer_copy_rows(b->ctx, b, off, bp, h, hp, row_bytes, rows, up);
}

RV_API int rv_buffer_upload_rows(RV_Buffer *b, size_t off, size_t bp, const void *src, size_t hp, size_t row_bytes,
                                 size_t rows)
{
    return copy_rows_checked(b, off, bp, (void *)(uintptr_t)src, hp, row_bytes, rows, 1);
}

RV_API int rv_buffer_download_rows(RV_Buffer *b, size_t off, size_t bp, void *dst, size_t hp, size_t row_bytes,
                                   size_t rows)
{
    return copy_rows_checked(b, off, bp, dst, hp, row_bytes, rows, 0);
}

RV_API int rv_host_memory_locked(RV_Context *ctx, const void *p)
{
    if (!ctx || !p || !ctx->ops->host_locked)
        return 0;
    return ctx->ops->host_locked(ctx, p);
}

RV_API int rv_image_kernel_address(RV_Image *img, int plane, RV_Access access, uint64_t *address,
                                   ptrdiff_t *pitch)
{
    if (!img)
        return RV_EINVAL;
    RV_Context *ctx = img->ctx;
    if (plane < 0 || plane >= img->nplanes)
        return rv__error(ctx, RV_EINVAL, "rv_image_kernel_address: plane %d of a %d-plane image", plane,
                         img->nplanes);
    if (!(access & RV_ACCESS_RW) || !address)
        return rv__error(ctx, RV_EINVAL, "rv_image_kernel_address: access and address are required");
    int err = rv__image_on_backend(img);
    if (err < 0)
        return err;
    rv_plane pl;
    if ((err = plane_arg(ctx, img, plane, &pl)) < 0)
        return err;
    if (access & RV_ACCESS_WRITE)
        rv__image_written(img);
    *address = (uint64_t)(uintptr_t)pl.data;
    if (pitch)
        *pitch = (ptrdiff_t)pl.pitch;
    return 0;
}

/* A launch shape with 0 taken as 1 in every dimension. */
static RV_LaunchShape shape_defaults(const RV_LaunchShape *in)
{
    RV_LaunchShape sh = *in;
    for (int i = 0; i < 3; i++) {
        if (!sh.grid[i])
            sh.grid[i] = 1;
        if (!sh.block[i])
            sh.block[i] = 1;
    }
    return sh;
}

/* Whether a block of `sh` (defaults applied) has at most 1024 threads.
 * Multiplied in two steps with a check between: the product of three 32-bit
 * values can wrap around 64 bits (e.g. 2^22 * 2^21 * 2^21 = 2^64 -> 0) and
 * would pass a single check. */
static int block_fits(const RV_LaunchShape *sh)
{
    const unsigned long long b01 = (unsigned long long)sh->block[0] * sh->block[1];
    return b01 <= 1024 && b01 * sh->block[2] <= 1024;
}

/* The checks every call on a raw kernel and a launch shape starts with. */
static int check_raw(const RV_Kernel *k, const RV_LaunchShape *shape, const char *fn)
{
    if (!k)
        return RV_EINVAL;
    RV_Context *ctx = k->mod->ctx;
    const int err = check_kernel(ctx, k, RV_OP_RAW, fn);
    if (err < 0)
        return err;
    if (!shape)
        return rv__error(ctx, RV_EINVAL, "%s: kernel '%s': shape is NULL", fn, k->name);
    return 0;
}

RV_API int rv_launch_raw(const RV_Kernel *k, const RV_LaunchShape *shape, const void *args,
                         size_t args_size)
{
    static const char fn[] = "rv_launch_raw";
    int err;
    if ((err = check_raw(k, shape, fn)) < 0)
        return err;
    RV_Context *ctx = k->mod->ctx;
    if (args_size != k->desc.args_size || (args_size && !args))
        return rv__error(ctx, RV_EINVAL, "%s: kernel '%s' takes a %u-byte argument struct, got %zu bytes",
                         fn, k->name, k->desc.args_size, args_size);
    const RV_LaunchShape sh = shape_defaults(shape);
    /* (grid: the same two steps as block_fits) */
    const unsigned long long g01 = (unsigned long long)sh.grid[0] * sh.grid[1];
    if (g01 > (1ull << 31) || g01 * sh.grid[2] > (1ull << 31) || !block_fits(&sh))
        return rv__error(ctx, RV_EINVAL, "%s: kernel '%s': grid %ux%ux%u of blocks %ux%ux%u is too large",
                         fn, k->name, sh.grid[0], sh.grid[1], sh.grid[2], sh.block[0], sh.block[1],
                         sh.block[2]);
    if ((k->desc.flags & RV_KFLAG_COOPERATIVE) && !ctx->ops->resident_blocks)
        return rv__error(ctx, RV_ENOSYS,
                         "%s: kernel '%s' is cooperative (its blocks wait on one another); the %s backend "
                         "runs blocks one after another",
                         fn, k->name, ctx->ops->name);
    return ctx->ops->launch_raw(ctx, k, &sh, args, args_size);
}

RV_API int rv_kernel_resident_blocks(const RV_Kernel *k, const RV_LaunchShape *shape)
{
    static const char fn[] = "rv_kernel_resident_blocks";
    int err;
    if ((err = check_raw(k, shape, fn)) < 0)
        return err;
    RV_Context *ctx = k->mod->ctx;
    const RV_LaunchShape sh = shape_defaults(shape);
    if (!block_fits(&sh))
        return rv__error(ctx, RV_EINVAL, "%s: kernel '%s': blocks of %ux%ux%u threads (at most 1024)", fn,
                         k->name, shape->block[0], shape->block[1], shape->block[2]);
    if (!ctx->ops->resident_blocks)
        return rv__error(ctx, RV_ENOSYS, "%s: the %s backend runs blocks one after another", fn,
                         ctx->ops->name);
    return ctx->ops->resident_blocks(ctx, k, &sh);
}

/* ---------------------------------------------------------------- */
/* Side queue                                                         */
/* ---------------------------------------------------------------- */

static int side_op(RV_Context *ctx, int op, const char *fn)
{
    if (!ctx)
        return RV_EINVAL;
    if (op == RV__SIDE_BEGIN && ctx->in_side)
        return rv__error(ctx, RV_EINVAL, "%s: already inside a side section (they do not nest)", fn);
    if (op == RV__SIDE_END && !ctx->in_side)
        return rv__error(ctx, RV_EINVAL, "%s: no side section to end (rv_side_begin first)", fn);
    if (op == RV__SIDE_JOIN && ctx->in_side)
        return rv__error(ctx, RV_EINVAL, "%s: inside a side section (rv_side_end first)", fn);
    int err = ctx->ops->side ? ctx->ops->side(ctx, op) : 0;
    if (err < 0)
        return err;
    if (op != RV__SIDE_JOIN)
        ctx->in_side = op == RV__SIDE_BEGIN;
    return 0;
}

RV_API int rv_side_begin(RV_Context *ctx)
{
    return side_op(ctx, RV__SIDE_BEGIN, "rv_side_begin");
}

RV_API int rv_side_end(RV_Context *ctx)
{
    return side_op(ctx, RV__SIDE_END, "rv_side_end");
}

RV_API int rv_side_join(RV_Context *ctx)
{
    return side_op(ctx, RV__SIDE_JOIN, "rv_side_join");
}
