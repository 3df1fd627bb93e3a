/*
 * ravioli/image.h - RV_Image: an image that owns its storage.
 *
 * An image has a width, a height, a format, and one to three planes, each
 * with its own pitch. On the CUDA backend it may also have a device copy;
 * the library tracks which copy is current:
 *
 *  - rv_image_read() gives a read-only host view, downloading first if the
 *    device copy is newer;
 *  - rv_image_write() gives a writable host view and marks the device copy
 *    stale (it is uploaded again before the next GPU operation);
 *  - operations run where the backend runs and mark their output current
 *    there.
 *
 * Host pointers are only valid until the next operation on the image: an
 * operation may replace the storage (in-place procNbr swaps buffers).
 */
#ifndef RAVIOLI_IMAGE_H
#define RAVIOLI_IMAGE_H

#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum RV_Format {
    RV_FMT_RGBA8 = 1,     /* packed RGBA, 8 bits a channel (RV_Pixel) */
    RV_FMT_RGBA16,        /* packed RGBA, 16 bits a channel (RV_Pixel16) */
    RV_FMT_GRAY8,         /* one 8-bit plane */
    RV_FMT_GRAY16,        /* one 16-bit plane */
    RV_FMT_GRAYF32,       /* one 32-bit float plane */
    RV_FMT_YUV420P8,      /* planar Y, Cb, Cr; chroma half size (rounded up) */
    RV_FMT_YUV420P16,
    RV_FMT_YUV444P8,      /* planar Y, Cb, Cr; all planes full size */
    RV_FMT_YUV444P16,
    RV_FMT_COUNT_
} RV_Format;

typedef struct RV_FormatInfo {
    const char *name;   /* e.g. "yuv420p8" */
    int planes;         /* 1 or 3 */
    int sample_bytes;   /* bytes per element of each plane */
    int elem_type;      /* enum rv_elem_type of the planes' elements */
    int chroma_shift_x; /* planes 1 and 2: width = ceil(w / 2^shift) */
    int chroma_shift_y;
} RV_FormatInfo;

/** Description of a format, or NULL if `fmt` is not a format. */
RV_API const RV_FormatInfo *rv_format_info(RV_Format fmt);
/** Format by name ("rgba8", "gray8", "yuv420p16", ...), or 0 if unknown. */
RV_API RV_Format rv_format_from_name(const char *name);

typedef struct RV_Image RV_Image;

/** Largest width or height accepted (so that sizes can never overflow). */
#define RV_MAX_DIM 65536

/** Creates a w x h image (contents zeroed). */
RV_API int rv_image_create(RV_Context *ctx, int w, int h, RV_Format fmt, RV_Image **out);
/** Destroys an image and sets *img to NULL. NULL is ignored. */
RV_API void rv_image_destroy(RV_Image **img);

RV_API RV_Context *rv_image_context(const RV_Image *img);
RV_API int rv_image_width(const RV_Image *img);
RV_API int rv_image_height(const RV_Image *img);
RV_API RV_Format rv_image_format(const RV_Image *img);
RV_API int rv_image_planes(const RV_Image *img);
RV_API int rv_image_plane_width(const RV_Image *img, int plane);
RV_API int rv_image_plane_height(const RV_Image *img, int plane);

/**
 * Read-only host view of a plane; *pitch (bytes between rows) may be NULL.
 * Returns NULL on error (bad plane, failed download).
 */
RV_API const void *rv_image_read(RV_Image *img, int plane, ptrdiff_t *pitch);
/** Writable host view of a plane (current contents kept); NULL on error. */
RV_API void *rv_image_write(RV_Image *img, int plane, ptrdiff_t *pitch);

/** Copies pixels of `src` into `dst` (same size and format); dst takes src's
 * spatial stride too (rv_image_stride). */
RV_API int rv_image_copy(RV_Image *dst, RV_Image *src);

/**
 * Spatial stride S >= 1 of the image: operations on it evaluate the element
 * function at every S-th pixel in x and y, and fill each S x S block with the
 * result. The output of an operation takes the stride of its input.
 */
RV_API int rv_image_set_stride(RV_Image *img, int s);
RV_API int rv_image_stride(const RV_Image *img);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_IMAGE_H */
