/*
 * samples.c - the thesis' sample programs as single-source element kernels,
 * plus a few kernels over the other formats (used by the tests).
 *
 * Built by ravioli_add_module(samples ...) into samples.so and samples.ptx.
 */
#include <ravioli/kernel.h>

#include "samples_params.h"

/* ---- GrayScale: procPix, the average of R, G and B (thesis Fig. 24) ---- */
RV_FN RV_Pixel gray(RV_Pixel p, const rv_noparam *prm)
{
    (void)prm;
    int v = (rv_r(p) + rv_g(p) + rv_b(p)) / 3;
    return rv_set_gray(p, v);
}
RV_PROC_PIX(gray, gray, rgba, rgba, rv_noparam)

/* The same average into a one-channel image (format change). */
RV_FN uint8_t luma8(RV_Pixel p, const rv_noparam *prm)
{
    (void)prm;
    return (uint8_t)((rv_r(p) + rv_g(p) + rv_b(p)) / 3);
}
RV_PROC_PIX(luma8, luma8, rgba, u8, rv_noparam)

/* ---- Binarize: procPix with a threshold parameter ---- */
RV_FN RV_Pixel binarize(RV_Pixel p, const rv_threshold_params *prm)
{
    int v = (rv_r(p) + rv_g(p) + rv_b(p)) / 3 >= prm->threshold ? 255 : 0;
    return rv_set_gray(p, v);
}
RV_PROC_PIX(binarize, binarize, rgba, rgba, rv_threshold_params)

/* ---- EdgeDetect: procNbr, Sobel on the average of R, G, B ---- */
RV_FN int lum(RV_Pixel p)
{
    return (rv_r(p) + rv_g(p) + rv_b(p)) / 3;
}
RV_FN RV_Pixel sobel(rv_nbr n, const rv_threshold_params *prm)
{
    int a = lum(rv_nbr_rgba(n, -1, -1)), b = lum(rv_nbr_rgba(n, 0, -1)), c = lum(rv_nbr_rgba(n, 1, -1));
    int d = lum(rv_nbr_rgba(n, -1, 0)), f = lum(rv_nbr_rgba(n, 1, 0));
    int g = lum(rv_nbr_rgba(n, -1, 1)), h = lum(rv_nbr_rgba(n, 0, 1)), i = lum(rv_nbr_rgba(n, 1, 1));
    int gx = (c + 2 * f + i) - (a + 2 * d + g);
    int gy = (g + 2 * h + i) - (a + 2 * b + c);
    int m = rv_absi(gx) + rv_absi(gy);
    if (prm->threshold > 0)
        m = m >= prm->threshold ? 255 : 0;
    else
        m = m > 255 ? 255 : m;
    return rv_set_gray(rv_nbr_rgba(n, 0, 0), m);
}
RV_PROC_NBR(edge, sobel, rgba, rgba, 1, rv_threshold_params)

/* ---- EmbossFilter: procNbr, 3x3 emboss per channel ---- */
RV_FN int emboss_ch(int tl, int t, int l, int c, int r, int b, int br)
{
    /* [-2 -1 0; -1 1 1; 0 1 2], clamped to 0..255 by rv_rgba_sat */
    return -2 * tl - t - l + c + r + b + 2 * br;
}
RV_FN RV_Pixel emboss(rv_nbr n, const rv_noparam *prm)
{
    (void)prm;
    RV_Pixel tl = rv_nbr_rgba(n, -1, -1), t = rv_nbr_rgba(n, 0, -1), l = rv_nbr_rgba(n, -1, 0);
    RV_Pixel c = rv_nbr_rgba(n, 0, 0), r = rv_nbr_rgba(n, 1, 0), b = rv_nbr_rgba(n, 0, 1);
    RV_Pixel br = rv_nbr_rgba(n, 1, 1);
    return rv_rgba_sat(emboss_ch(rv_r(tl), rv_r(t), rv_r(l), rv_r(c), rv_r(r), rv_r(b), rv_r(br)),
                   emboss_ch(rv_g(tl), rv_g(t), rv_g(l), rv_g(c), rv_g(r), rv_g(b), rv_g(br)),
                   emboss_ch(rv_b(tl), rv_b(t), rv_b(l), rv_b(c), rv_b(r), rv_b(b), rv_b(br)), rv_a(c));
}
RV_PROC_NBR(emboss, emboss, rgba, rgba, 1, rv_noparam)

/* ---- Template matching: procBox, SAD against the template (thesis Fig. 26) ---- */
/* Adjacent windows a call (RV_PROC_BOXN_G), scored template row by row
 * against all of them by rv_win_sad_row_rgba / rv_win_sad_rows2_rgba: the
 * image row is read once for the windows of the call. Same scores as sad1
 * below. */
RV_FN void sad_row(rv_win w, const rv_noparam *prm, int32_t *score)
{
    (void)prm;
    int32_t acc[RV_BOXN] = {0, 0, 0, 0};
    for (int j = 0; j < w.h; j++)
        rv_win_sad_row_rgba(w, j, acc);
    for (int k = 0; k < RV_BOXN; k++)
        score[k] = acc[k];
}
/* Two template rows a pass (twice the independent loads in flight). */
RV_FN void sad_rows2(rv_win w, const rv_noparam *prm, int32_t *score)
{
    (void)prm;
    int32_t acc[RV_BOXN] = {0, 0, 0, 0};
    int j = 0;
    for (; j + 2 <= w.h; j += 2)
        rv_win_sad_rows2_rgba(w, j, acc);
    if (j < w.h)
        rv_win_sad_row_rgba(w, j, acc);
    for (int k = 0; k < RV_BOXN; k++)
        score[k] = acc[k];
}
/* The default: two windows a call, two rows a pass (fastest on the H200 of
 * the four forms, docs/perf/cuda-tuning.md round 7). The others stay for
 * the comparison in the benchmark and the tests: sad_g4 (four windows, one
 * row a pass: round 6b's sad), sad_g2 (two windows, one row), sad_r2 (four
 * windows, two rows). */
RV_PROC_BOXN_G(sad, sad_rows2, rgba, rgba, i32, rv_noparam, 2)
RV_PROC_BOXN(sad_g4, sad_row, rgba, rgba, i32, rv_noparam)
RV_PROC_BOXN_G(sad_g2, sad_row, rgba, rgba, i32, rv_noparam, 2)
RV_PROC_BOXN(sad_r2, sad_rows2, rgba, rgba, i32, rv_noparam)

/* Row-additive forms (RV_PROC_BOXR): the element function adds the rows
 * j0 .. j1-1 of its windows; on the GPU the library splits the template
 * rows of each group over R adjacent threads and adds their partial sums
 * (docs/perf/cuda-tuning.md round 8). Same scores and tie order as sad1.
 * sad_band: rv_win_sad_rows_rgba (16-byte reads of image and template for
 * four windows at S = 1); sad_band2: two rows a pass with the round-7
 * helper (rv_win_sad_rows2_rgba), for the split alone. */
RV_FN void sad_band(rv_win w, int j0, int j1, const rv_noparam *prm, int32_t *acc)
{
    (void)prm;
    rv_win_sad_rows_rgba(w, j0, j1, acc);
}
RV_FN void sad_band2(rv_win w, int j0, int j1, const rv_noparam *prm, int32_t *acc)
{
    (void)prm;
    int j = j0;
    for (; j + 2 <= j1; j += 2)
        rv_win_sad_rows2_rgba(w, j, acc);
    if (j < j1)
        rv_win_sad_row_rgba(w, j, acc);
}
/* sad_rsR: four windows a group, R threads a group */
RV_PROC_BOXR(sad_rs4, sad_band, rgba, rgba, rv_noparam, 4, 4)
RV_PROC_BOXR(sad_rs1, sad_band, rgba, rgba, rv_noparam, 4, 1)
RV_PROC_BOXR(sad_rs2, sad_band, rgba, rgba, rv_noparam, 4, 2)
RV_PROC_BOXR(sad_rs8, sad_band, rgba, rgba, rv_noparam, 4, 8)
/* sad_rs4v1: sad_rs4 with one template row a pass on the GPU's 16-byte
 * path (rv__win_sad_rows_v4_rgba, round 9's helper; rv_win_sad_rows_rgba
 * takes two rows a pass since round 11), for the comparison */
RV_FN void sad_band1(rv_win w, int j0, int j1, const rv_noparam *prm, int32_t *acc)
{
    (void)prm;
#if defined(__CUDA_ARCH__) || defined(RV__SAD_V4_ANYWHERE)
    if (rv__sad_v4_ok(w)) {
        rv__win_sad_rows_v4_rgba(w, j0, j1, acc);
        return;
    }
#endif
    for (int j = j0; j < j1; j++)
        rv_win_sad_row_rgba(w, j, acc);
}
RV_PROC_BOXR(sad_rs4v1, sad_band1, rgba, rgba, rv_noparam, 4, 4)
/* round 7's sad (two windows, two rows a pass) with its rows over 4 threads */
RV_PROC_BOXR(sad_g2rs4, sad_band2, rgba, rgba, rv_noparam, 2, 4)
RV_PROC_BOXR(sad_g2rs2, sad_band2, rgba, rgba, rv_noparam, 2, 2)

/* The thesis' form: one window a call, pixel by pixel. */
RV_FN int32_t sad1(rv_win w, const rv_noparam *prm)
{
    (void)prm;
    int32_t sum = 0;
    for (int j = 0; j < w.h; j++)
        for (int i = 0; i < w.w; i++)
            sum += rv_abs_diff(rv_win_rgba(w, i, j), rv_ref_rgba(w, i, j));
    return sum;
}
RV_PROC_BOX(sad1, sad1, rgba, rgba, i32, rv_noparam)

/* ---- Difference detection: compImg ---- */
RV_FN RV_Pixel diff(RV_Pixel a, RV_Pixel b, const rv_threshold_params *prm)
{
    int v = rv_abs_diff(a, b) >= prm->threshold ? 255 : 0;
    return rv_rgb(v, v, v);
}
RV_PROC_COMP(diff, diff, rgba, rgba, rgba, rv_threshold_params)

/* ================= kernels over the other formats ================= */

RV_FN uint8_t invert8(uint8_t v, const rv_noparam *prm)
{
    (void)prm;
    return (uint8_t)(255 - v);
}
RV_PROC_PIX(invert8, invert8, u8, u8, rv_noparam)

RV_FN uint16_t invert16(uint16_t v, const rv_noparam *prm)
{
    (void)prm;
    return (uint16_t)(65535 - v);
}
RV_PROC_PIX(invert16, invert16, u16, u16, rv_noparam)

RV_FN float scalef(float v, const rv_scale_params *prm)
{
    return v * prm->scale + prm->offset;
}
RV_PROC_PIX(scalef, scalef, f32, f32, rv_scale_params)

RV_FN RV_Pixel16 gray16(RV_Pixel16 p, const rv_noparam *prm)
{
    (void)prm;
    int v = (rv16_r(p) + rv16_g(p) + rv16_b(p)) / 3;
    return rv16_rgba(v, v, v, rv16_a(p));
}
RV_PROC_PIX(gray16, gray16, rgba16, rgba16, rv_noparam)

/* 3x3 mean of 8-bit samples, rounded. */
RV_FN uint8_t blur8(rv_nbr n, const rv_noparam *prm)
{
    (void)prm;
    int s = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            s += rv_nbr_u8(n, dx, dy);
    return (uint8_t)((s + 4) / 9);
}
RV_PROC_NBR(blur8, blur8, u8, u8, 1, rv_noparam)

/* 5x5 mean of 16-bit samples (radius 2). */
RV_FN uint16_t blur16(rv_nbr n, const rv_noparam *prm)
{
    (void)prm;
    int s = 0;
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++)
            s += rv_nbr_u16(n, dx, dy);
    return (uint16_t)((s + 12) / 25);
}
RV_PROC_NBR(blur16, blur16, u16, u16, 2, rv_noparam)

/* 3x3 Laplacian of float samples. */
RV_FN float laplacef(rv_nbr n, const rv_noparam *prm)
{
    (void)prm;
    return rv_nbr_f32(n, -1, 0) + rv_nbr_f32(n, 1, 0) + rv_nbr_f32(n, 0, -1) + rv_nbr_f32(n, 0, 1) -
           4.0f * rv_nbr_f32(n, 0, 0);
}
RV_PROC_NBR(laplacef, laplacef, f32, f32, 1, rv_noparam)

RV_FN uint8_t absdiff8(uint8_t a, uint8_t b, const rv_noparam *prm)
{
    (void)prm;
    return (uint8_t)(a > b ? a - b : b - a);
}
RV_PROC_COMP(absdiff8, absdiff8, u8, u8, u8, rv_noparam)

RV_FN float subf(float a, float b, const rv_noparam *prm)
{
    (void)prm;
    return a - b;
}
RV_PROC_COMP(subf, subf, f32, f32, f32, rv_noparam)

/* Sum of squared differences of 8-bit samples against a template. */
RV_FN int32_t ssd8(rv_win w, const rv_noparam *prm)
{
    (void)prm;
    int32_t s = 0;
    for (int j = 0; j < w.h; j++)
        for (int i = 0; i < w.w; i++) {
            int d = (int)rv_win_u8(w, i, j) - (int)rv_ref_u8(w, i, j);
            s += d * d;
        }
    return s;
}
RV_PROC_BOX(ssd8, ssd8, u8, u8, i32, rv_noparam)

/* Mean of a float window (no reference image). */
RV_FN float meanf(rv_win w, const rv_noparam *prm)
{
    (void)prm;
    float s = 0.0f;
    for (int j = 0; j < w.h; j++)
        for (int i = 0; i < w.w; i++)
            s += rv_win_f32(w, i, j);
    return s / (float)(w.w * w.h);
}
RV_PROC_BOX(meanf, meanf, f32, none, f32, rv_noparam)

/* A raw kernel: adds a constant to a float plane, one block per row.
 * (The GPU form uses threads; the CPU form loops over the row.) */
#if defined(RV_CUDA)
RV_RAW_KERNEL(addk, rv_addk_args, a, blk)
{
    float *row = (float *)(uintptr_t)(a->data + (uint64_t)((int64_t)blk.y * a->pitch));
    for (int x = (int)threadIdx.x; x < a->w; x += (int)blockDim.x)
        row[x] += a->k;
}
#else
RV_RAW_KERNEL(addk, rv_addk_args, a, blk)
{
    float *row = (float *)(uintptr_t)(a->data + (uint64_t)((int64_t)blk.y * a->pitch));
    for (int x = 0; x < a->w; x++)
        row[x] += a->k;
}
#endif

/* A cooperative raw kernel (RV_RAW_KERNEL_COOP): blocks that wait for all
 * the others. The CPU backend refuses it: its body there is empty. */
#if defined(RV_CUDA)
RV_RAW_KERNEL_COOP(gridwait, rv_gridwait_args, a, blk)
{
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        unsigned *c = (unsigned *)(uintptr_t)a->count, v;
        const unsigned nb = (unsigned)(blk.nx * blk.ny * blk.nz);
        __threadfence();
        atomicAdd(c, 1u);
        while ((v = *(volatile unsigned *)c) < nb) {
        }
        __threadfence();
        ((unsigned *)(uintptr_t)a->out)[(blk.z * blk.ny + blk.y) * blk.nx + blk.x] = v;
    }
}
#else
RV_RAW_KERNEL_COOP(gridwait, rv_gridwait_args, a, blk)
{
    (void)a;
    (void)blk;
}
#endif

/* A chained raw kernel (RV_RAW_KERNEL_CHAINED): one pass of a chain. */
#if defined(RV_CUDA)
RV_RAW_KERNEL_CHAINED(chainmix, rv_chainmix_args, a, blk)
{
    const uint32_t *src = (const uint32_t *)(uintptr_t)a->src;
    uint32_t *dst = (uint32_t *)(uintptr_t)a->dst;
    const int stride = blk.nx * blk.tx;
    for (int i = blk.x * blk.tx + (int)threadIdx.x; i < a->n; i += stride)
        dst[i] = src[i + 1 < a->n ? i + 1 : 0] * 2654435761u + a->salt;
}
#else
RV_RAW_KERNEL_CHAINED(chainmix, rv_chainmix_args, a, blk)
{
    const uint32_t *src = (const uint32_t *)(uintptr_t)a->src;
    uint32_t *dst = (uint32_t *)(uintptr_t)a->dst;
    const int per = (a->n + blk.nx - 1) / blk.nx;
    const int i0 = blk.x * per, i1 = i0 + per < a->n ? i0 + per : a->n;
    for (int i = i0; i < i1; i++)
        dst[i] = src[i + 1 < a->n ? i + 1 : 0] * 2654435761u + a->salt;
}
#endif
