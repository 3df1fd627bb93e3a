/*
 * rvrun_kernels.c - kernels of ravioli-run's built-in stages that the
 * samples module does not have: RGBA invert, and the 8-bit-plane forms of
 * binarize / edge / emboss used on planar YUV and grey frames (luma), plus a
 * raw kernel that fills a plane with a constant (neutral chroma).
 *
 * Built by ravioli_add_module(rvrun ...) into rvrun.so and rvrun.ptx.
 */
#include <ravioli/kernel.h>

#include "samples_params.h"
#include "rvrun_params.h"

/* RGBA invert, alpha kept. */
RV_FN RV_Pixel invert_rgba(RV_Pixel p, const rv_noparam *prm)
{
    (void)prm;
    return rv_rgba(255 - rv_r(p), 255 - rv_g(p), 255 - rv_b(p), rv_a(p));
}
RV_PROC_PIX(invert, invert_rgba, rgba, rgba, rv_noparam)

/* Threshold an 8-bit sample. */
RV_FN uint8_t binarize_u8(uint8_t v, const rv_threshold_params *prm)
{
    return (uint8_t)((int)v >= prm->threshold ? 255 : 0);
}
RV_PROC_PIX(binarize8, binarize_u8, u8, u8, rv_threshold_params)

/* Sobel magnitude |gx| + |gy| of 8-bit samples (as samples' edge on the
 * RGB average): clamped to 255, or thresholded when threshold > 0. */
RV_FN uint8_t sobel_u8(rv_nbr n, const rv_threshold_params *prm)
{
    int a = rv_nbr_u8(n, -1, -1), b = rv_nbr_u8(n, 0, -1), c = rv_nbr_u8(n, 1, -1);
    int d = rv_nbr_u8(n, -1, 0), f = rv_nbr_u8(n, 1, 0);
    int g = rv_nbr_u8(n, -1, 1), h = rv_nbr_u8(n, 0, 1), i = rv_nbr_u8(n, 1, 1);
    int gx = (c + 2 * f + i) - (a + 2 * d + g);
    int gy = (g + 2 * h + i) - (a + 2 * b + c);
    int m = rv_absi(gx) + rv_absi(gy);
    if (prm->threshold > 0)
        m = m >= prm->threshold ? 255 : 0;
    else
        m = m > 255 ? 255 : m;
    return (uint8_t)m;
}
RV_PROC_NBR(edge8, sobel_u8, u8, u8, 1, rv_threshold_params)

/* 3x3 emboss [-2 -1 0; -1 1 1; 0 1 2] of 8-bit samples (samples' emboss per channel). */
RV_FN uint8_t emboss_u8(rv_nbr n, const rv_noparam *prm)
{
    (void)prm;
    int v = -2 * rv_nbr_u8(n, -1, -1) - rv_nbr_u8(n, 0, -1) - rv_nbr_u8(n, -1, 0) + rv_nbr_u8(n, 0, 0) +
            rv_nbr_u8(n, 1, 0) + rv_nbr_u8(n, 0, 1) + 2 * rv_nbr_u8(n, 1, 1);
    return (uint8_t)rv_clamp8(v);
}
RV_PROC_NBR(emboss8, emboss_u8, u8, u8, 1, rv_noparam)

/* Raw kernel: every sample of an 8-bit plane becomes `value`; one block per row. */
#if defined(RV_CUDA)
RV_RAW_KERNEL(fill8, rvrun_fill_args, a, blk)
{
    unsigned char *row = (unsigned char *)(uintptr_t)(a->data + (uint64_t)((int64_t)blk.y * a->pitch));
    for (int x = (int)threadIdx.x; x < a->w; x += (int)blockDim.x)
        row[x] = (unsigned char)a->value;
}
#else
RV_RAW_KERNEL(fill8, rvrun_fill_args, a, blk)
{
    unsigned char *row = (unsigned char *)(uintptr_t)(a->data + (uint64_t)((int64_t)blk.y * a->pitch));
    for (int x = 0; x < a->w; x++)
        row[x] = (unsigned char)a->value;
}
#endif
