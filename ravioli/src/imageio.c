/*
 * imageio.c - PGM/PPM/PFM reading and writing (placeholder until it lands).
 */
#include "internal.h"

RV_API int rv_image_read_file(RV_Context *ctx, const char *path, RV_Image **out)
{
    (void)path;
    (void)out;
    return rv__error(ctx, RV_ENOSYS, "rv_image_read_file: not implemented yet");
}

RV_API int rv_image_write_file(RV_Image *img, const char *path)
{
    (void)path;
    return rv__error(img ? img->ctx : NULL, RV_ENOSYS, "rv_image_write_file: not implemented yet");
}

RV_API int rv_image_read_mem(RV_Context *ctx, const void *data, size_t size, RV_Image **out)
{
    (void)data;
    (void)size;
    (void)out;
    return rv__error(ctx, RV_ENOSYS, "rv_image_read_mem: not implemented yet");
}
