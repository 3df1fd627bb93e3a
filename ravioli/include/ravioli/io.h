/*
 * ravioli/io.h - image files: PGM and PPM (8 and 16 bit, binary P5/P6, and
 * plain P2/P3 on reading) and PFM (float, grey "Pf" and colour "PF").
 *
 * Reading: PGM gives GRAY8 or GRAY16, PPM gives RGBA8 or RGBA16 (alpha
 * opaque), grey PFM gives GRAYF32 (colour PFM is refused). Every header field is checked
 * before anything is allocated; malformed files (truncated, bad header,
 * absurd or overflowing sizes) fail with RV_EBADMSG and a message.
 * Writing: GRAY8/GRAY16 -> PGM, RGBA8/RGBA16 -> PPM (alpha dropped),
 * GRAYF32 -> PFM; the kind is chosen by the image's format.
 */
#ifndef RAVIOLI_IO_H
#define RAVIOLI_IO_H

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

RV_API int rv_image_read_file(RV_Context *ctx, const char *path, RV_Image **out);
RV_API int rv_image_write_file(RV_Image *img, const char *path);

/** The same from memory (for pipes and tests). */
RV_API int rv_image_read_mem(RV_Context *ctx, const void *data, size_t size, RV_Image **out);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_IO_H */
