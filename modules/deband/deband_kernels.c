/*
 * deband_kernels.c - the deband kernels (module "deband"), one raw kernel
 * entry per (sample mode, blur_first, input depth, output depth), so that
 * neither backend branches on the mode per pixel. The per-pixel math is
 * rv_db_pixel() below, shared by the CPU and the CUDA bodies; its mode /
 * blur / depth arguments are compile-time constants at every call site.
 *
 * Launch (rv_deband_apply): grid.z = plane; a block covers a tile of
 * (tx * PX) x ty samples on the GPU (PX samples a thread, vector stores) and
 * tx x ty samples on the CPU (a row-range loop).
 */
#include <ravioli/kernel.h>
#include <ravioli/deband_kernel.h>

#if defined(RV_CUDA)
#  define RV_DB_FN static __device__ __forceinline__
#  define RV_DB_LDG(p) __ldg(p)
#else
#  define RV_DB_FN static inline __attribute__((always_inline))
#  define RV_DB_LDG(p) (*(p))
#endif

RV_DB_FN int rv_db_min(int a, int b) { return a < b ? a : b; }
RV_DB_FN int rv_db_abs(int a) { return a < 0 ? -a : a; }
RV_DB_FN int rv_db_max(int a, int b) { return a > b ? a : b; }

/* Sample (x, y) of a plane at the 16-bit scale. */
RV_DB_FN int rv_db_load(const unsigned char *base, int64_t pitch, int x, int y, const int in16)
{
    const unsigned char *row = base + (int64_t)y * pitch;
    if (in16)
        return (int)RV_DB_LDG((const uint16_t *)(const void *)row + x);
    return (int)RV_DB_LDG(row + x) << 8;
}

/* The debanded value of (x, y) at the 16-bit scale (see deband_kernel.h). */
RV_DB_FN int rv_db_pixel(const unsigned char *base, int64_t pitch, int x, int y, int w, int h,
                         int range, int interlaced, int thr, int grain, uint32_t row_key,
                         uint32_t key_grain, const int mode, const int blur, const int in16)
{
    const int rl = rv_db_min(rv_db_min(range, rv_db_min(x, w - 1 - x)), rv_db_min(y, h - 1 - y));
    const uint32_t h1 = rv_deband_mix(row_key + (uint32_t)x);
    const int ra = rv_deband_rr(h1 & 0xffffu, rl);
    const int rb = rv_deband_rr(h1 >> 16, rl);
    /* toward zero to even when interlaced: |da| <= |ra| keeps it inside */
    const int da = ra - (ra % 2) * interlaced;
    const int c = rv_db_load(base, pitch, x, y, in16);
    int avg, diff;
    if (mode == 0) {
        avg = rv_db_load(base, pitch, x + rb, y + da, in16);
        diff = rv_db_abs(c - avg);
    } else if (mode == 1) {
        const int p = rv_db_load(base, pitch, x + rb, y + da, in16);
        const int m = rv_db_load(base, pitch, x - rb, y - da, in16);
        avg = (p + m + 1) >> 1;
        diff = blur ? rv_db_abs(c - avg) : rv_db_max(rv_db_abs(c - p), rv_db_abs(c - m));
    } else {
        const int db = rb - (rb % 2) * interlaced;
        const int p = rv_db_load(base, pitch, x + rb, y + da, in16);
        const int m = rv_db_load(base, pitch, x - rb, y - da, in16);
        const int q = rv_db_load(base, pitch, x + ra, y - db, in16);
        const int r = rv_db_load(base, pitch, x - ra, y + db, in16);
        avg = (p + m + q + r + 2) >> 2;
        diff = blur ? rv_db_abs(c - avg)
                    : rv_db_max(rv_db_max(rv_db_abs(c - p), rv_db_abs(c - m)),
                           rv_db_max(rv_db_abs(c - q), rv_db_abs(c - r)));
    }
    int v = diff < thr ? avg : c;
    if (grain) {
        v += rv_deband_rr(rv_deband_mix(h1 ^ key_grain) & 0xffffu, grain);
        v = v < 0 ? 0 : v > 65535 ? 65535 : v;
    }
    return v;
}

/* 16-bit working value -> 8-bit output sample (round half up, clamp). */
RV_DB_FN unsigned rv_db_out8(int v)
{
    const int o = (v + 128) >> 8;
    return (unsigned)(o > 255 ? 255 : o);
}

#if !defined(RV_CUDA)
/* CPU: a block is a tile of blk.tx x blk.ty samples of plane blk.z. */
#define RV_DB_ENTRY(NAME, MODE, BLUR, IN16, OUT16)                                  \
    RV_RAW_KERNEL(NAME, rv_deband_args, a, blk)                                     \
    {                                                                               \
        const int p = blk.z;                                                        \
        if (p >= a->nplanes)                                                        \
            return;                                                                 \
        const int w = a->w[p], h = a->h[p];                                         \
        const int x0 = blk.x * blk.tx, y0 = blk.y * blk.ty;                         \
        if (x0 >= w || y0 >= h)                                                     \
            return;                                                                 \
        const int x1 = rv_db_min(w, x0 + blk.tx), y1 = rv_db_min(h, y0 + blk.ty);   \
        const unsigned char *src = (const unsigned char *)(uintptr_t)a->src[p];     \
        const int64_t sp = a->spitch[p];                                            \
        const int range = a->range, fm = a->interlaced;                             \
        const int thr = a->thr[p], grain = a->grain[p];                             \
        const uint32_t kr = a->key_ref[p], kg = a->key_grain[p];                    \
        for (int y = y0; y < y1; y++) {                                             \
            const uint32_t rk = rv_deband_mix((uint32_t)y ^ kr);                    \
            unsigned char *drow =                                                   \
                (unsigned char *)(uintptr_t)a->dst[p] + (int64_t)y * a->dpitch[p];  \
            for (int x = x0; x < x1; x++) {                                         \
                const int v = rv_db_pixel(src, sp, x, y, w, h, range, fm, thr,      \
                                          grain, rk, kg, MODE, BLUR, IN16);         \
                if (OUT16)                                                          \
                    ((uint16_t *)(void *)drow)[x] = (uint16_t)v;                    \
                else                                                                \
                    drow[x] = (unsigned char)rv_db_out8(v);                         \
            }                                                                       \
        }                                                                           \
    }
#else
/* GPU: thread (tx, ty) of block (bx, by, p) computes RV_DB_PX samples
 * starting at x0 = (bx * blockDim.x + tx) * RV_DB_PX of row by * blockDim.y
 * + ty, and stores them with one 4-byte (8-bit) or 8-byte (16-bit) store. */
#define RV_DB_PX 4
#define RV_DB_ENTRY(NAME, MODE, BLUR, IN16, OUT16)                                  \
    RV_RAW_KERNEL(NAME, rv_deband_args, a, blk)                                     \
    {                                                                               \
        const int p = blk.z;                                                        \
        const int w = a->w[p], h = a->h[p];                                         \
        const int y = blk.y * blk.ty + (int)threadIdx.y;                            \
        const int x0 = (blk.x * blk.tx + (int)threadIdx.x) * RV_DB_PX;              \
        if (y >= h || x0 >= w)                                                      \
            return;                                                                 \
        const unsigned char *__restrict__ src =                                     \
            (const unsigned char *)(uintptr_t)a->src[p];                            \
        const int64_t sp = a->spitch[p];                                            \
        const int range = a->range, fm = a->interlaced;                             \
        const int thr = a->thr[p], grain = a->grain[p];                             \
        const uint32_t kg = a->key_grain[p];                                        \
        const uint32_t rk = rv_deband_mix((uint32_t)y ^ a->key_ref[p]);             \
        int v[RV_DB_PX];                                                            \
        _Pragma("unroll") for (int i = 0; i < RV_DB_PX; i++)                        \
            v[i] = x0 + i < w ? rv_db_pixel(src, sp, x0 + i, y, w, h, range, fm,    \
                                            thr, grain, rk, kg, MODE, BLUR, IN16)   \
                              : 0;                                                  \
        unsigned char *drow =                                                       \
            (unsigned char *)(uintptr_t)a->dst[p] + (int64_t)y * a->dpitch[p];      \
        if (a->vec_ok && x0 + RV_DB_PX <= w) {                                      \
            if (OUT16)                                                              \
                *(uint2 *)(void *)(drow + 2 * x0) =                                 \
                    make_uint2((unsigned)v[0] | ((unsigned)v[1] << 16),             \
                               (unsigned)v[2] | ((unsigned)v[3] << 16));            \
            else                                                                    \
                *(unsigned *)(void *)(drow + x0) =                                  \
                    rv_db_out8(v[0]) | (rv_db_out8(v[1]) << 8) |                    \
                    (rv_db_out8(v[2]) << 16) | (rv_db_out8(v[3]) << 24);            \
        } else {                                                                    \
            for (int i = 0; i < RV_DB_PX && x0 + i < w; i++) {                      \
                if (OUT16)                                                          \
                    ((uint16_t *)(void *)drow)[x0 + i] = (uint16_t)v[i];            \
                else                                                                \
                    drow[x0 + i] = (unsigned char)rv_db_out8(v[i]);                 \
            }                                                                       \
        }                                                                           \
    }
#endif

/* One entry per sample mode / blur_first for an input and output depth.
 * Names: deband_<m0|m1b|m1n|m2b|m2n>_<in>to<out>. */
#define RV_DB_ENTRIES(IN, OUT, IN16, OUT16)                                         \
    RV_DB_ENTRY(deband_m0_##IN##to##OUT, 0, 1, IN16, OUT16)                         \
    RV_DB_ENTRY(deband_m1b_##IN##to##OUT, 1, 1, IN16, OUT16)                        \
    RV_DB_ENTRY(deband_m1n_##IN##to##OUT, 1, 0, IN16, OUT16)                        \
    RV_DB_ENTRY(deband_m2b_##IN##to##OUT, 2, 1, IN16, OUT16)                        \
    RV_DB_ENTRY(deband_m2n_##IN##to##OUT, 2, 0, IN16, OUT16)

RV_DB_ENTRIES(8, 8, 0, 0)
RV_DB_ENTRIES(8, 16, 0, 1)
RV_DB_ENTRIES(16, 16, 1, 1)
RV_DB_ENTRIES(16, 8, 1, 0)
