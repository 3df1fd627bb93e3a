/*
 * image.c - RV_Image storage, formats, host/device coherence.
 *
 * Storage is one block holding all planes, each row aligned to 64 bytes.
 * The device copy (CUDA) has the same layout, so a plane is at the same
 * offset and pitch on both sides. host_valid / dev_valid say which copies
 * hold the current pixels; at least one always does.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const RV_FormatInfo formats[RV_FMT_COUNT_] = {
    [RV_FMT_RGBA8]     = {"rgba8", 1, 4, RV_ET_RGBA, 0, 0},
    [RV_FMT_RGBA16]    = {"rgba16", 1, 8, RV_ET_RGBA16, 0, 0},
    [RV_FMT_GRAY8]     = {"gray8", 1, 1, RV_ET_U8, 0, 0},
    [RV_FMT_GRAY16]    = {"gray16", 1, 2, RV_ET_U16, 0, 0},
    [RV_FMT_GRAYF32]   = {"grayf32", 1, 4, RV_ET_F32, 0, 0},
    [RV_FMT_YUV420P8]  = {"yuv420p8", 3, 1, RV_ET_U8, 1, 1},
    [RV_FMT_YUV420P16] = {"yuv420p16", 3, 2, RV_ET_U16, 1, 1},
    [RV_FMT_YUV444P8]  = {"yuv444p8", 3, 1, RV_ET_U8, 0, 0},
    [RV_FMT_YUV444P16] = {"yuv444p16", 3, 2, RV_ET_U16, 0, 0},
};

RV_API const RV_FormatInfo *rv_format_info(RV_Format fmt)
{
    if ((int)fmt <= 0 || (int)fmt >= RV_FMT_COUNT_)
        return NULL;
    return &formats[fmt];
}

RV_API RV_Format rv_format_from_name(const char *name)
{
    if (!name)
        return 0;
    for (int f = 1; f < RV_FMT_COUNT_; f++)
        if (strcmp(formats[f].name, name) == 0)
            return (RV_Format)f;
    return 0;
}

#define ROW_ALIGN 64

RV_API int rv_image_create(RV_Context *ctx, int w, int h, RV_Format fmt, RV_Image **out)
{
    if (!out)
        return ctx ? rv__error(ctx, RV_EINVAL, "rv_image_create: out is NULL") : RV_EINVAL;
    *out = NULL;
    if (!ctx)
        return RV_EINVAL;
    const RV_FormatInfo *fi = rv_format_info(fmt);
    if (!fi)
        return rv__error(ctx, RV_EINVAL, "rv_image_create: unknown format %d", (int)fmt);
    if (w < 1 || h < 1 || w > RV_MAX_DIM || h > RV_MAX_DIM)
        return rv__error(ctx, RV_EINVAL, "rv_image_create: size %dx%d outside 1..%d", w, h,
                         RV_MAX_DIM);

    RV_Image *img = calloc(1, sizeof(*img));
    if (!img)
        return rv__error(ctx, RV_ENOMEM, "rv_image_create: out of memory");
    img->ctx = ctx;
    img->w = w;
    img->h = h;
    img->fmt = fmt;
    img->fi = fi;
    img->stride = 1;
    img->nplanes = fi->planes;
    size_t off = 0;
    for (int p = 0; p < fi->planes; p++) {
        int sx = p ? fi->chroma_shift_x : 0, sy = p ? fi->chroma_shift_y : 0;
        int pw = (w + (1 << sx) - 1) >> sx, ph = (h + (1 << sy) - 1) >> sy;
        size_t pitch = ((size_t)pw * (size_t)fi->sample_bytes + ROW_ALIGN - 1) / ROW_ALIGN * ROW_ALIGN;
        img->pl[p].w = pw;
        img->pl[p].h = ph;
        img->pl[p].pitch = (ptrdiff_t)pitch;
        img->pl[p].offset = off;
        off += pitch * (size_t)ph; /* <= 65536*8*65536*3: fits size_t on 64-bit */
    }
    img->bytes = off;
    img->host = ctx->ops->host_alloc(ctx, img->bytes);
    if (!img->host) {
        free(img);
        return rv__error(ctx, RV_ENOMEM, "rv_image_create: cannot allocate %zu bytes for a %dx%d %s image",
                         off, w, h, fi->name);
    }
    memset(img->host, 0, img->bytes);
    img->host_valid = 1;
    img->dev_valid = 0;
    pthread_mutex_lock(&ctx->lock);
    rv__list_add(&ctx->images, &img->link);
    pthread_mutex_unlock(&ctx->lock);
    *out = img;
    return 0;
}

RV_API void rv_image_destroy(RV_Image **pimg)
{
    if (!pimg || !*pimg)
        return;
    RV_Image *img = *pimg;
    RV_Context *ctx = img->ctx;
    pthread_mutex_lock(&ctx->lock);
    rv__list_del(&img->link);
    pthread_mutex_unlock(&ctx->lock);
    if (img->dev && ctx->ops->image_free_device)
        ctx->ops->image_free_device(ctx, img);
    ctx->ops->host_free(ctx, img->host, img->bytes);
    free(img);
    *pimg = NULL;
}

RV_API RV_Context *rv_image_context(const RV_Image *img) { return img ? img->ctx : NULL; }
RV_API int rv_image_width(const RV_Image *img) { return img ? img->w : 0; }
RV_API int rv_image_height(const RV_Image *img) { return img ? img->h : 0; }
RV_API RV_Format rv_image_format(const RV_Image *img) { return img ? img->fmt : 0; }
RV_API int rv_image_planes(const RV_Image *img) { return img ? img->nplanes : 0; }

RV_API int rv_image_plane_width(const RV_Image *img, int plane)
{
    return img && plane >= 0 && plane < img->nplanes ? img->pl[plane].w : 0;
}

RV_API int rv_image_plane_height(const RV_Image *img, int plane)
{
    return img && plane >= 0 && plane < img->nplanes ? img->pl[plane].h : 0;
}

unsigned char *rv__plane_host(const RV_Image *img, int plane)
{
    return img->host + img->pl[plane].offset;
}

static int make_host_current(RV_Image *img)
{
    if (img->host_valid)
        return 0;
    RV_Context *ctx = img->ctx;
    if (!ctx->ops->image_to_host)
        return rv__error(ctx, RV_EINVAL, "image has no current copy (internal error)");
    int err = ctx->ops->image_to_host(ctx, img);
    if (err < 0)
        return err;
    img->host_valid = 1;
    return 0;
}

RV_API const void *rv_image_read(RV_Image *img, int plane, ptrdiff_t *pitch)
{
    if (!img)
        return NULL;
    if (plane < 0 || plane >= img->nplanes) {
        rv__error(img->ctx, RV_EINVAL, "rv_image_read: plane %d of a %d-plane %s image", plane,
                  img->nplanes, img->fi->name);
        return NULL;
    }
    if (make_host_current(img) < 0)
        return NULL;
    if (pitch)
        *pitch = img->pl[plane].pitch;
    return rv__plane_host(img, plane);
}

RV_API void *rv_image_write(RV_Image *img, int plane, ptrdiff_t *pitch)
{
    if (!img)
        return NULL;
    if (plane < 0 || plane >= img->nplanes) {
        rv__error(img->ctx, RV_EINVAL, "rv_image_write: plane %d of a %d-plane %s image", plane,
                  img->nplanes, img->fi->name);
        return NULL;
    }
    if (make_host_current(img) < 0)
        return NULL;
    img->dev_valid = 0;
    if (pitch)
        *pitch = img->pl[plane].pitch;
    return rv__plane_host(img, plane);
}

int rv__image_on_backend(RV_Image *img)
{
    RV_Context *ctx = img->ctx;
    if (!ctx->ops->image_to_device)
        return make_host_current(img);
    if (img->dev_valid)
        return 0;
    int err = ctx->ops->image_to_device(ctx, img);
    if (err < 0)
        return err;
    img->dev_valid = 1;
    return 0;
}

void rv__image_written(RV_Image *img)
{
    if (img->ctx->ops->image_to_device) {
        img->dev_valid = 1;
        img->host_valid = 0;
    } else {
        img->host_valid = 1;
    }
}

void rv__image_swap_storage(RV_Image *a, RV_Image *b)
{
    unsigned char *h = a->host;
    void *d = a->dev;
    int hv = a->host_valid, dv = a->dev_valid;
    a->host = b->host;
    a->dev = b->dev;
    a->host_valid = b->host_valid;
    a->dev_valid = b->dev_valid;
    b->host = h;
    b->dev = d;
    b->host_valid = hv;
    b->dev_valid = dv;
}

RV_API int rv_image_copy(RV_Image *dst, RV_Image *src)
{
    if (!dst || !src)
        return RV_EINVAL;
    if (dst->ctx != src->ctx)
        return rv__error(dst->ctx, RV_EINVAL, "rv_image_copy: images belong to different contexts");
    if (dst->w != src->w || dst->h != src->h || dst->fmt != src->fmt)
        return rv__error(dst->ctx, RV_EINVAL, "rv_image_copy: %dx%d %s into %dx%d %s", src->w,
                         src->h, src->fi->name, dst->w, dst->h, dst->fi->name);
    if (dst == src)
        return 0;
    int err = make_host_current(src);
    if (err < 0)
        return err;
    memcpy(dst->host, src->host, src->bytes);
    dst->host_valid = 1;
    dst->dev_valid = 0;
    dst->stride = src->stride;
    return 0;
}

RV_API int rv_image_set_stride(RV_Image *img, int s)
{
    if (!img)
        return RV_EINVAL;
    if (s < 1 || s > 64)
        return rv__error(img->ctx, RV_EINVAL, "rv_image_set_stride: stride %d outside 1..64", s);
    img->stride = s;
    return 0;
}

RV_API int rv_image_stride(const RV_Image *img)
{
    return img ? img->stride : 1;
}
