/*
 * ravioli/io.h - image files: PGM and PPM (binary P5/P6 at 8 and 16 bit;
 * plain P2/P3 on reading) and grey PFM ("Pf", 32-bit float).
 *
 * Reading: PGM gives GRAY8 (maxval <= 255) or GRAY16, PPM gives RGBA8 or
 * RGBA16 with opaque alpha (255 / 65535), grey PFM gives GRAYF32 with the top
 * row first (the file stores the bottom row first; the sign of the scale
 * gives the byte order, its magnitude is ignored). A maxval other than 255 or
 * 65535 is rescaled to the full range, v' = round(v * 255 / maxval) or
 * round(v * 65535 / maxval). Every header field is checked before anything is
 * allocated, and the data must hold the whole raster; malformed input
 * (truncated, bad magic or header, a sample above maxval, absurd sizes, PFM
 * scale 0/NaN/inf) fails with RV_EBADMSG and a message naming the file and
 * the problem; colour PFM ("PF"), PBM and PAM fail with RV_ENOSYS; a path
 * that does not exist gives RV_ENOENT, one that cannot be opened or read for
 * another reason (permissions, a directory, a read error) RV_EIO (RV_EOVERFLOW
 * for a pipe or device delivering more than 1 GiB). Bytes after the raster
 * are ignored.
 * See docs/imageio.md for the exact rules.
 *
 * Writing: GRAY8/GRAY16 -> P5, RGBA8/RGBA16 -> P6 (alpha dropped; maxval
 * 255 or 65535, 16-bit samples big-endian), GRAYF32 -> Pf (scale -1.0,
 * little-endian, bottom row first); the kind is chosen by the image's
 * format. Other formats (YUV) give RV_EINVAL. A path that cannot be created
 * gives RV_ENOENT when a directory on it does not exist, else RV_EIO (as a
 * failed write does).
 */
#ifndef RAVIOLI_IO_H
#define RAVIOLI_IO_H

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Reads an image file into a new image (*out is NULL on failure). */
RV_API int rv_image_read_file(RV_Context *ctx, const char *path, RV_Image **out);
/** Writes `img` to `path` (replaced); a partly written file is removed on error. */
RV_API int rv_image_write_file(RV_Image *img, const char *path);

/** Reads an image from `size` bytes at `data` (for pipes and tests). */
RV_API int rv_image_read_mem(RV_Context *ctx, const void *data, size_t size, RV_Image **out);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_IO_H */
