/*
 * ravioli/kernel.h - write an element function once, get a CPU and a GPU kernel.
 *
 * A kernel source file includes this header, defines element functions with
 * RV_FN, and turns each into a kernel entry with one of the RV_PROC_* macros:
 *
 *     #include <ravioli/kernel.h>
 *
 *     RV_FN RV_Pixel gray(RV_Pixel p, const rv_noparam *prm)
 *     {
 *         (void)prm;
 *         int v = (rv_r(p) + rv_g(p) + rv_b(p)) / 3;
 *         return rv_set_rgb(p, v, v, v);
 *     }
 *     RV_PROC_PIX(gray, gray, rgba, rgba, rv_noparam)
 *
 * The same file is compiled twice by ravioli_add_module() (cmake):
 *  - by the C compiler into a shared object: each macro emits an exported
 *    row-range loop `rvk_<name>` that calls the element function directly, so
 *    it is inlined and the loop can be vectorised (no per-pixel indirect call);
 *  - by nvcc into PTX (RV_CUDA defined): each macro emits an
 *    `extern "C" __global__ rvk_<name>` with index computation, bounds checks
 *    and spatial-stride handling.
 * Next to each entry the macro exports `rvk_<name>_desc`, which tells the
 * runtime the operation, element types and parameter size, so calls with the
 * wrong image format or parameter block are refused with a clear message.
 *
 * Element type tokens (the macros' TIN/TOUT arguments):
 *     u8 -> uint8_t    u16 -> uint16_t   f32 -> float    i32 -> int32_t
 *     rgba -> RV_Pixel rgba16 -> RV_Pixel16
 *
 * Element function signatures (PT is the parameter struct type, or rv_noparam):
 *     RV_PROC_PIX  : TOUT fn(TIN v, const PT *prm)
 *     RV_PROC_NBR  : TOUT fn(rv_nbr n, const PT *prm)     read with rv_nbr_<t>(n, dx, dy)
 *     RV_PROC_COMP : TOUT fn(TIN a, TIN2 b, const PT *prm)
 *     RV_PROC_BOX  : TSCORE fn(rv_win w, const PT *prm)   TSCORE is i32 or f32;
 *                    read with rv_win_<t>(w, i, j) and rv_ref_<t>(w, i, j),
 *                    0 <= i < w.w, 0 <= j < w.h
 *     RV_PROC_BOXN : void fn(rv_win w, const PT *prm, TSCORE *score)
 *                    scores the w.n (<= RV_BOXN) adjacent windows at
 *                    w.x + k*S into score[k], so that they can share reads
 *                    (rv_win_sad_row_rgba; rv_win_at(w, k) is window k)
 *     RV_PROC_BOXN_G(..., G): the same with at most G (2 .. RV_BOXN)
 *                    windows a call (one call a GPU thread: fewer windows
 *                    a call, more threads)
 *     RV_PROC_BOXR(NAME, FN, TIN, TREF, PT, G, R): integer scores that are
 *                    sums over the template rows (SAD, SSD, ...):
 *                    void fn(rv_win w, int j0, int j1, const PT *prm, int32_t *acc)
 *                    adds the contribution of rows j0 .. j1-1 of each of the
 *                    w.n (<= G) windows to acc[k] (rv_win_sad_rows_rgba).
 *                    The library owns the split: on the CPU one call over
 *                    all rows (acc from 0); on the GPU the rows in R (1, 2,
 *                    4 or 8) contiguous bands on R warps, their partial
 *                    sums added through shared memory. Scores and tie
 *                    order equal RV_PROC_BOX's with the summed function. The
 *                    form takes int32 scores only: integer adds give the
 *                    same total in any grouping; a float sum would depend
 *                    on R.
 * Kernels never see the spatial stride S: neighbour offsets and window sample
 * positions are scaled by S for them, and each result fills its S x S block.
 *
 * Raw kernels (own launch shape, shared/scratch memory) are written per target:
 *     RV_RAW_KERNEL(name, struct my_args, a, blk) { ... }
 * `a` is a `const struct my_args *`, `blk` an rv_block. On the GPU the body is
 * ordinary CUDA (threadIdx, __syncthreads, extern __shared__); on the CPU it is
 * called once per block and loops over its own work.
 *     RV_RAW_KERNEL_CHAINED(name, struct my_args, a, blk) { ... }
 * is the same for a kernel that runs in a chain of launches on one stream
 * (each pass reading what the one before wrote): on sm_90+ its entry waits
 * for the previous grid before the body runs, and the CUDA backend overlaps
 * its start with the previous grid's end (RV_KFLAG_CHAINED).
 *     RV_RAW_KERNEL_COOP(name, struct my_args, a, blk) { ... }
 * is a chained kernel whose blocks may wait on one another through global
 * memory (RV_KFLAG_COOPERATIVE): the CUDA backend launches it cooperatively,
 * with at most rv_kernel_resident_blocks() blocks; the CPU backend refuses
 * it, so its CPU body may be empty (modules/samples: gridwait).
 */
#ifndef RAVIOLI_KERNEL_H
#define RAVIOLI_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "kernel_abi.h"
#include "pixel.h"

#if defined(__CUDACC__) && !defined(RV_CUDA)
#  define RV_CUDA 1
#endif

#if defined(RV_CUDA)
#  define RV_FN static __device__ __forceinline__
#  define RV__EXTERN_C extern "C"
#else
#  define RV_FN static inline __attribute__((always_inline))
#  define RV__EXTERN_C
#  define RV_EXPORT __attribute__((visibility("default")))
#endif

/** Parameter type of kernels that take no parameters. */
typedef struct rv_noparam { int32_t unused_; } rv_noparam;

/* Element type tokens. */
#define RV_T_u8     uint8_t
#define RV_T_u16    uint16_t
#define RV_T_i32    int32_t
#define RV_T_f32    float
#define RV_T_rgba   RV_Pixel
#define RV_T_rgba16 RV_Pixel16
#define RV_T_none   uint8_t
#define RV_ETC_u8     RV_ET_U8
#define RV_ETC_u16    RV_ET_U16
#define RV_ETC_i32    RV_ET_I32
#define RV_ETC_f32    RV_ET_F32
#define RV_ETC_rgba   RV_ET_RGBA
#define RV_ETC_rgba16 RV_ET_RGBA16
#define RV_ETC_none   RV_ET_NONE

/* rv_noparam declares no parameter block (size 0); anything else its sizeof. */
#define RV__SECOND(a, b, ...) b
#define RV__PROBE_rv_noparam ~, 1
#define RV__IS_NOPARAM_(...) RV__SECOND(__VA_ARGS__, 0, ~)
#define RV__IS_NOPARAM(PT) RV__IS_NOPARAM_(RV__PROBE_##PT)
#define RV__PSIZE(PT) (RV__IS_NOPARAM(PT) ? 0u : (uint32_t)sizeof(PT))

#define RV__ROW(T, pl, y) ((T *)((pl).data + (int64_t)(y) * (pl).pitch))
#define RV__MIN(a, b) ((a) < (b) ? (a) : (b))

/* ------------------------------------------------------------------ */
/* Neighbourhood and window accessors                                  */
/* ------------------------------------------------------------------ */

/** A pixel and its neighbours: read with rv_nbr_<t>(n, dx, dy). */
typedef struct rv_nbr {
    const unsigned char *base;
    int64_t pitch;
    int32_t x, y;   /* full-resolution position of the centre */
    int32_t w, h;   /* plane size */
    int32_t s;      /* spatial stride (offsets are scaled by it) */
    int32_t clamp;  /* 0 where every neighbour is inside the plane */
    int32_t ox, oy; /* base points at sample (ox, oy), not (0, 0): the GPU
                       strips address their neighbours from the strip's
                       corner with constant offsets (0, 0 elsewhere) */
} rv_nbr;

/** One window (and the reference image, for procBox). */
typedef struct rv_win {
    const unsigned char *base; /* source plane */
    int64_t pitch;
    const unsigned char *ref;  /* reference plane (NULL when none) */
    int64_t ref_pitch;
    int32_t x, y;   /* full-resolution top-left of the window */
    int32_t w, h;   /* window size in samples: loop 0 <= i < w, 0 <= j < h */
    int32_t s;
    int32_t n;      /* adjacent windows of this call: 1 (RV_PROC_BOX), or
                       1..RV_BOXN (RV_PROC_BOXN: windows k = 0 .. n-1 at
                       x + k*s; see rv_win_at) */
} rv_win;

/** Windows a call of an RV_PROC_BOXN element function scores at most. */
#define RV_BOXN 4

/** RV_PROC_BOXN with G (2 .. RV_BOXN) windows a call instead of RV_BOXN:
 * the element function sees w.n <= G; on the GPU one group a thread, so
 * RV_BOXN / G times the threads of RV_PROC_BOXN. Same results and tie order
 * as RV_PROC_BOX. */
#define RV_PROC_BOXN(NAME, FN, TIN, TREF, TSCORE, PT)                               \
    RV_PROC_BOXN_G(NAME, FN, TIN, TREF, TSCORE, PT, RV_BOXN)

#define RV__DEF_ACCESSORS(tok, T)                                                   \
    RV_INLINE T rv_nbr_##tok(rv_nbr n, int dx, int dy)                              \
    {                                                                               \
        int xx = n.x + dx * n.s, yy = n.y + dy * n.s;                               \
        if (n.clamp) {                                                              \
            xx = xx < 0 ? 0 : xx >= n.w ? n.w - 1 : xx;                              \
            yy = yy < 0 ? 0 : yy >= n.h ? n.h - 1 : yy;                              \
        }                                                                           \
        return ((const T *)(n.base + (int64_t)(yy - n.oy) * n.pitch))[xx - n.ox];   \
    }                                                                               \
    RV_INLINE T rv_win_##tok(rv_win w, int i, int j)                                \
    {                                                                               \
        return ((const T *)(w.base + (int64_t)(w.y + j * w.s) * w.pitch))[w.x + i * w.s]; \
    }                                                                               \
    RV_INLINE T rv_ref_##tok(rv_win w, int i, int j)                                \
    {                                                                               \
        return ((const T *)(w.ref + (int64_t)(j * w.s) * w.ref_pitch))[i * w.s];    \
    }

RV__DEF_ACCESSORS(u8, uint8_t)
RV__DEF_ACCESSORS(u16, uint16_t)
RV__DEF_ACCESSORS(f32, float)
RV__DEF_ACCESSORS(rgba, RV_Pixel)
RV__DEF_ACCESSORS(rgba16, RV_Pixel16)

/** Window k (0 <= k < w.n) of a call that scores several adjacent windows
 * (RV_PROC_BOXN): the same window moved right by k samples, as one window. */
RV_INLINE rv_win rv_win_at(rv_win w, int k)
{
    w.x += k * w.s;
    w.n = 1;
    return w;
}

/** Window row SAD for up to RV_BOXN adjacent windows: for each window k of
 * the call (k = 0 .. w.n - 1; one when w.n <= 1) adds to acc[k]
 *
 *     sum over i = 0 .. w.w - 1 of rv_abs_diff(rv_win_rgba(rv_win_at(w, k), i, j),
 *                                              rv_ref_rgba(w, i, j))
 *
 * i.e. row j's sum of |R|, |G|, |B| differences against the reference
 * (template) row j; alpha is ignored. With w.n == RV_BOXN the windows share
 * their image reads: window k's sample i is sample i + k of the row, so a
 * row of w.w samples is read once for all four windows (w.w + 3 reads
 * instead of 4 w.w) and each template sample once for four windows, and each
 * pair costs one SIMD byte absolute difference on the GPU (alpha is masked
 * once per read, not per pair). Any stride S, any w.w >= 1; reads only
 * samples of the windows themselves. */
RV_INLINE void rv_win_sad_row_rgba(rv_win w, int j, int32_t *acc)
{
    const int s = w.s;
    const RV_Pixel *row = (const RV_Pixel *)(w.base + (int64_t)(w.y + j * s) * w.pitch) + w.x;
    const RV_Pixel *ref = (const RV_Pixel *)(w.ref + (int64_t)(j * s) * w.ref_pitch);
    if (w.n == 4) { /* RV_BOXN: four adjacent windows slide over one row */
        /* p0..p2: row samples i .. i+2; window k takes sample i + k against
         * template sample i. Four template samples a pass (one 16-byte
         * shared load on the GPU when the template rows are 16-byte
         * aligned), two accumulators a window (shorter dependency chains) */
        uint32_t p0 = rv__rgb(row[0]), p1 = rv__rgb(row[s]), p2 = rv__rgb(row[2 * s]);
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
        int i = 0;
        for (; i + 4 <= w.w; i += 4) {
            const uint32_t q0 = rv__rgb(row[(i + 3) * s]), q1 = rv__rgb(row[(i + 4) * s]);
            const uint32_t q2 = rv__rgb(row[(i + 5) * s]), q3 = rv__rgb(row[(i + 6) * s]);
            const uint32_t t0 = rv__rgb(ref[i * s]), t1 = rv__rgb(ref[(i + 1) * s]);
            const uint32_t t2 = rv__rgb(ref[(i + 2) * s]), t3 = rv__rgb(ref[(i + 3) * s]);
            a0 = rv__sad_u8x4_acc(a0, p0, t0); a1 = rv__sad_u8x4_acc(a1, p1, t0);
            a2 = rv__sad_u8x4_acc(a2, p2, t0); a3 = rv__sad_u8x4_acc(a3, q0, t0);
            b0 = rv__sad_u8x4_acc(b0, p1, t1); b1 = rv__sad_u8x4_acc(b1, p2, t1);
            b2 = rv__sad_u8x4_acc(b2, q0, t1); b3 = rv__sad_u8x4_acc(b3, q1, t1);
            a0 = rv__sad_u8x4_acc(a0, p2, t2); a1 = rv__sad_u8x4_acc(a1, q0, t2);
            a2 = rv__sad_u8x4_acc(a2, q1, t2); a3 = rv__sad_u8x4_acc(a3, q2, t2);
            b0 = rv__sad_u8x4_acc(b0, q0, t3); b1 = rv__sad_u8x4_acc(b1, q1, t3);
            b2 = rv__sad_u8x4_acc(b2, q2, t3); b3 = rv__sad_u8x4_acc(b3, q3, t3);
            p0 = q1;
            p1 = q2;
            p2 = q3;
        }
        for (; i < w.w; i++) {
            const uint32_t q0 = rv__rgb(row[(i + 3) * s]), t0 = rv__rgb(ref[i * s]);
            a0 = rv__sad_u8x4_acc(a0, p0, t0); a1 = rv__sad_u8x4_acc(a1, p1, t0);
            a2 = rv__sad_u8x4_acc(a2, p2, t0); a3 = rv__sad_u8x4_acc(a3, q0, t0);
            p0 = p1;
            p1 = p2;
            p2 = q0;
        }
        acc[0] += a0 + b0;
        acc[1] += a1 + b1;
        acc[2] += a2 + b2;
        acc[3] += a3 + b3;
    } else if (w.n == 2) { /* two adjacent windows: row sample i + k against template i */
        uint32_t p0 = rv__rgb(row[0]);
        int32_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
        int i = 0;
        for (; i + 4 <= w.w; i += 4) {
            const uint32_t q0 = rv__rgb(row[(i + 1) * s]), q1 = rv__rgb(row[(i + 2) * s]);
            const uint32_t q2 = rv__rgb(row[(i + 3) * s]), q3 = rv__rgb(row[(i + 4) * s]);
            const uint32_t t0 = rv__rgb(ref[i * s]), t1 = rv__rgb(ref[(i + 1) * s]);
            const uint32_t t2 = rv__rgb(ref[(i + 2) * s]), t3 = rv__rgb(ref[(i + 3) * s]);
            a0 = rv__sad_u8x4_acc(a0, p0, t0); a1 = rv__sad_u8x4_acc(a1, q0, t0);
            b0 = rv__sad_u8x4_acc(b0, q0, t1); b1 = rv__sad_u8x4_acc(b1, q1, t1);
            a0 = rv__sad_u8x4_acc(a0, q1, t2); a1 = rv__sad_u8x4_acc(a1, q2, t2);
            b0 = rv__sad_u8x4_acc(b0, q2, t3); b1 = rv__sad_u8x4_acc(b1, q3, t3);
            p0 = q3;
        }
        for (; i < w.w; i++) {
            const uint32_t q0 = rv__rgb(row[(i + 1) * s]), t0 = rv__rgb(ref[i * s]);
            a0 = rv__sad_u8x4_acc(a0, p0, t0); a1 = rv__sad_u8x4_acc(a1, q0, t0);
            p0 = q0;
        }
        acc[0] += a0 + b0;
        acc[1] += a1 + b1;
    } else {
        const int n = w.n > 1 ? w.n : 1;
        for (int k = 0; k < n; k++) {
            int32_t a = 0;
            for (int i = 0; i < w.w; i++)
                a += rv_abs_diff(row[(i + k) * s], ref[i * s]);
            acc[k] += a;
        }
    }
}

/* rv_win_sad_rows2_rgba's interleaved form (any backend; the tests call it
 * directly on the CPU). */
RV_INLINE void rv__win_sad_rows2_il_rgba(rv_win w, int j, int32_t *acc)
{
    const int s = w.s;
    const RV_Pixel *r0 = (const RV_Pixel *)(w.base + (int64_t)(w.y + j * s) * w.pitch) + w.x;
    const RV_Pixel *r1 = (const RV_Pixel *)(w.base + (int64_t)(w.y + (j + 1) * s) * w.pitch) + w.x;
    const RV_Pixel *f0 = (const RV_Pixel *)(w.ref + (int64_t)(j * s) * w.ref_pitch);
    const RV_Pixel *f1 = (const RV_Pixel *)(w.ref + (int64_t)((j + 1) * s) * w.ref_pitch);
    if (w.n == 4) {
        uint32_t p0 = rv__rgb(r0[0]), p1 = rv__rgb(r0[s]), p2 = rv__rgb(r0[2 * s]);
        uint32_t u0 = rv__rgb(r1[0]), u1 = rv__rgb(r1[s]), u2 = rv__rgb(r1[2 * s]);
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
        int i = 0;
        for (; i + 2 <= w.w; i += 2) {
            const uint32_t q0 = rv__rgb(r0[(i + 3) * s]), q1 = rv__rgb(r0[(i + 4) * s]);
            const uint32_t v0 = rv__rgb(r1[(i + 3) * s]), v1 = rv__rgb(r1[(i + 4) * s]);
            const uint32_t t0 = rv__rgb(f0[i * s]), t1 = rv__rgb(f0[(i + 1) * s]);
            const uint32_t e0 = rv__rgb(f1[i * s]), e1 = rv__rgb(f1[(i + 1) * s]);
            a0 = rv__sad_u8x4_acc(a0, p0, t0); a1 = rv__sad_u8x4_acc(a1, p1, t0);
            a2 = rv__sad_u8x4_acc(a2, p2, t0); a3 = rv__sad_u8x4_acc(a3, q0, t0);
            b0 = rv__sad_u8x4_acc(b0, u0, e0); b1 = rv__sad_u8x4_acc(b1, u1, e0);
            b2 = rv__sad_u8x4_acc(b2, u2, e0); b3 = rv__sad_u8x4_acc(b3, v0, e0);
            a0 = rv__sad_u8x4_acc(a0, p1, t1); a1 = rv__sad_u8x4_acc(a1, p2, t1);
            a2 = rv__sad_u8x4_acc(a2, q0, t1); a3 = rv__sad_u8x4_acc(a3, q1, t1);
            b0 = rv__sad_u8x4_acc(b0, u1, e1); b1 = rv__sad_u8x4_acc(b1, u2, e1);
            b2 = rv__sad_u8x4_acc(b2, v0, e1); b3 = rv__sad_u8x4_acc(b3, v1, e1);
            p0 = p2; p1 = q0; p2 = q1;
            u0 = u2; u1 = v0; u2 = v1;
        }
        if (i < w.w) {
            const uint32_t q0 = rv__rgb(r0[(i + 3) * s]), t0 = rv__rgb(f0[i * s]);
            const uint32_t v0 = rv__rgb(r1[(i + 3) * s]), e0 = rv__rgb(f1[i * s]);
            a0 = rv__sad_u8x4_acc(a0, p0, t0); a1 = rv__sad_u8x4_acc(a1, p1, t0);
            a2 = rv__sad_u8x4_acc(a2, p2, t0); a3 = rv__sad_u8x4_acc(a3, q0, t0);
            b0 = rv__sad_u8x4_acc(b0, u0, e0); b1 = rv__sad_u8x4_acc(b1, u1, e0);
            b2 = rv__sad_u8x4_acc(b2, u2, e0); b3 = rv__sad_u8x4_acc(b3, v0, e0);
        }
        acc[0] += a0 + b0;
        acc[1] += a1 + b1;
        acc[2] += a2 + b2;
        acc[3] += a3 + b3;
    } else if (w.n == 2) {
        uint32_t p0 = rv__rgb(r0[0]), u0 = rv__rgb(r1[0]);
        int32_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
        int i = 0;
        for (; i + 2 <= w.w; i += 2) {
            const uint32_t q0 = rv__rgb(r0[(i + 1) * s]), q1 = rv__rgb(r0[(i + 2) * s]);
            const uint32_t v0 = rv__rgb(r1[(i + 1) * s]), v1 = rv__rgb(r1[(i + 2) * s]);
            const uint32_t t0 = rv__rgb(f0[i * s]), t1 = rv__rgb(f0[(i + 1) * s]);
            const uint32_t e0 = rv__rgb(f1[i * s]), e1 = rv__rgb(f1[(i + 1) * s]);
            a0 = rv__sad_u8x4_acc(a0, p0, t0); a1 = rv__sad_u8x4_acc(a1, q0, t0);
            b0 = rv__sad_u8x4_acc(b0, u0, e0); b1 = rv__sad_u8x4_acc(b1, v0, e0);
            a0 = rv__sad_u8x4_acc(a0, q0, t1); a1 = rv__sad_u8x4_acc(a1, q1, t1);
            b0 = rv__sad_u8x4_acc(b0, v0, e1); b1 = rv__sad_u8x4_acc(b1, v1, e1);
            p0 = q1; u0 = v1;
        }
        if (i < w.w) {
            const uint32_t q0 = rv__rgb(r0[(i + 1) * s]), t0 = rv__rgb(f0[i * s]);
            const uint32_t v0 = rv__rgb(r1[(i + 1) * s]), e0 = rv__rgb(f1[i * s]);
            a0 = rv__sad_u8x4_acc(a0, p0, t0); a1 = rv__sad_u8x4_acc(a1, q0, t0);
            b0 = rv__sad_u8x4_acc(b0, u0, e0); b1 = rv__sad_u8x4_acc(b1, v0, e0);
        }
        acc[0] += a0 + b0;
        acc[1] += a1 + b1;
    } else {
        rv_win_sad_row_rgba(w, j, acc);
        rv_win_sad_row_rgba(w, j + 1, acc);
    }
}

/** Rows j and j + 1 (j + 1 < w.h) of rv_win_sad_row_rgba: the same sums
 * added to acc[k]. On the GPU, for w.n == 4 and w.n == 2, in one pass with
 * the two rows' loads and sums interleaved (twice the independent loads in
 * flight; docs/perf/cuda-tuning.md round 7); on the CPU (where the
 * interleaved form measured ~13 % slower) and for other w.n, the row helper
 * twice. */
RV_INLINE void rv_win_sad_rows2_rgba(rv_win w, int j, int32_t *acc)
{
#if defined(__CUDA_ARCH__)
    rv__win_sad_rows2_il_rgba(w, j, acc);
#else
    rv_win_sad_row_rgba(w, j, acc);
    rv_win_sad_row_rgba(w, j + 1, acc);
#endif
}

/* 16 bytes (four RGBA samples) at p, each shifted up by one byte (x << 8):
 * red, green and blue move to bytes 1..3 and alpha drops out, so one SIMD
 * byte absolute difference of two shifted samples is their |R|+|G|+|B|
 * without a mask (the shift is an integer multiply: the GPU issues it on
 * the FMA pipe, next to the ALU pipe's VABSDIFF4). p is 16-byte aligned. */
RV_INLINE void rv__ld16_rgb_hi(const unsigned char *p, uint32_t o[4])
{
#if defined(__CUDA_ARCH__)
    const uint4 v = *(const uint4 *)(const void *)p;
    o[0] = v.x * 256u; o[1] = v.y * 256u; o[2] = v.z * 256u; o[3] = v.w * 256u;
#else
#  if defined(RV__EMU_ALIGN_CHECK) /* tests/gpu_emu: counts misaligned reads */
    RV__EMU_ALIGN_CHECK(p, 16);
#  endif
#  if defined(RV__EMU_READ_CHECK) /* tests/gpu_emu: counts reads outside the planes */
    RV__EMU_READ_CHECK(p, 16);
#  endif
    __builtin_memcpy(o, p, 16);
    for (int k = 0; k < 4; k++) o[k] *= 256u;
#endif
}

/* rv__win_sad_rows_v4_rgba can run: one to four windows, S = 1, the image
 * rows (from the window's first sample) and the template rows on the
 * 16-byte grid. */
RV_INLINE int rv__sad_v4_ok(rv_win w)
{
    return w.n >= 1 && w.n <= 4 && w.s == 1 &&
           ((((uintptr_t)w.base + (uintptr_t)w.x * 4u) | (uintptr_t)w.pitch | (uintptr_t)w.ref |
             (uintptr_t)w.ref_pitch) & 15u) == 0;
}

/* 16 pairs: template samples t[0..3] against the image samples p[0..3],
 * q[0..3] that follow each other (window k, template sample u: image sample
 * u + k), into the four windows' sums A0..A3. */
#define RV__SAD_V4_STEP(A0, A1, A2, A3, p, q, t)                                    \
    do {                                                                            \
        A0 = rv__sad_u8x4_acc(A0, p[0], t[0]); A1 = rv__sad_u8x4_acc(A1, p[1], t[0]); \
        A2 = rv__sad_u8x4_acc(A2, p[2], t[0]); A3 = rv__sad_u8x4_acc(A3, p[3], t[0]); \
        A0 = rv__sad_u8x4_acc(A0, p[1], t[1]); A1 = rv__sad_u8x4_acc(A1, p[2], t[1]); \
        A2 = rv__sad_u8x4_acc(A2, p[3], t[1]); A3 = rv__sad_u8x4_acc(A3, q[0], t[1]); \
        A0 = rv__sad_u8x4_acc(A0, p[2], t[2]); A1 = rv__sad_u8x4_acc(A1, p[3], t[2]); \
        A2 = rv__sad_u8x4_acc(A2, q[0], t[2]); A3 = rv__sad_u8x4_acc(A3, q[1], t[2]); \
        A0 = rv__sad_u8x4_acc(A0, p[3], t[3]); A1 = rv__sad_u8x4_acc(A1, q[0], t[3]); \
        A2 = rv__sad_u8x4_acc(A2, q[1], t[3]); A3 = rv__sad_u8x4_acc(A3, q[2], t[3]); \
    } while (0)

/* The last template samples 4*m4 .. 4*m4+rem-1 (rem = 1..3) of one row:
 * template chunk t (already read), image chunk p; image chunk m4 + 1 (at
 * qp, clamped) read when rem >= 2. */
#define RV__SAD_V4_TAIL(A0, A1, A2, A3, p, q, t, rem, qp)                           \
    do {                                                                            \
        A0 = rv__sad_u8x4_acc(A0, p[0], t[0]); A1 = rv__sad_u8x4_acc(A1, p[1], t[0]); \
        A2 = rv__sad_u8x4_acc(A2, p[2], t[0]); A3 = rv__sad_u8x4_acc(A3, p[3], t[0]); \
        if ((rem) >= 2) {                                                           \
            rv__ld16_rgb_hi((qp), q);                                               \
            A0 = rv__sad_u8x4_acc(A0, p[1], t[1]); A1 = rv__sad_u8x4_acc(A1, p[2], t[1]); \
            A2 = rv__sad_u8x4_acc(A2, p[3], t[1]); A3 = rv__sad_u8x4_acc(A3, q[0], t[1]); \
            if ((rem) == 3) {                                                       \
                A0 = rv__sad_u8x4_acc(A0, p[2], t[2]); A1 = rv__sad_u8x4_acc(A1, p[3], t[2]); \
                A2 = rv__sad_u8x4_acc(A2, q[0], t[2]); A3 = rv__sad_u8x4_acc(A3, q[1], t[2]); \
            }                                                                       \
        }                                                                           \
    } while (0)

/* Rows j0 .. j1-1 of rv_win_sad_row_rgba for w.n (1 .. 4) windows
 * (rv__sad_v4_ok): image and template read 16 bytes (four samples) at a
 * time. Step m takes template samples 4m .. 4m+3 against image chunks m and
 * m+1 (window k, template sample 4m+u: image sample 4m+u+k): one image and
 * one template read and 16 pairs a step. Four sums are kept whatever w.n;
 * those of windows k >= w.n are dropped. Image chunks are read up to the
 * last one holding a sample of the w.n windows (cl below: index clamped, so
 * never past the row's 16-byte-rounded end: a group of fewer than four
 * windows at the end of a row reads only that row); the samples of a
 * clamped chunk reach only the dropped sums. Only the last step of a row
 * and its tail can exceed cl. */
RV_INLINE void rv__win_sad_rows_v4_rgba(rv_win w, int j0, int j1, int32_t *acc)
{
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    const int m4 = w.w >> 2, rem = w.w & 3;
    const int cl = (w.n + w.w - 2) >> 2; /* last image chunk with a sample of the windows */
    const int cm = RV__MIN(m4, cl), ct = RV__MIN(m4 + 1, cl);
    for (int j = j0; j < j1; j++) {
        const unsigned char *row = w.base + (int64_t)(w.y + j) * w.pitch + (int64_t)w.x * 4;
        const unsigned char *ref = w.ref + (int64_t)j * w.ref_pitch;
        uint32_t p[4], q[4], t[4];
        rv__ld16_rgb_hi(row, p);
/* step m with image chunk IC (m + 1, or the clamped cm in the last step) */
#define RV__SAD_V4_ADVANCE(IC)                                                      \
    do {                                                                            \
        rv__ld16_rgb_hi(row + 16 * (IC), q);                                        \
        rv__ld16_rgb_hi(ref + 16 * m, t);                                           \
        RV__SAD_V4_STEP(a0, a1, a2, a3, p, q, t);                                   \
        p[0] = q[0]; p[1] = q[1]; p[2] = q[2]; p[3] = q[3];                         \
    } while (0)
        int m = 0;
        for (; m + 1 < m4; m++)
            RV__SAD_V4_ADVANCE(m + 1);
        if (m < m4) /* the last full step: image chunk m4, clamped */
            RV__SAD_V4_ADVANCE(cm);
#undef RV__SAD_V4_ADVANCE
        if (rem) { /* template samples 4*m4 .. w.w-1 */
            rv__ld16_rgb_hi(ref + 16 * m4, t);
            RV__SAD_V4_TAIL(a0, a1, a2, a3, p, q, t, rem, row + 16 * ct);
        }
    }
    acc[0] += a0;
    if (w.n > 1) acc[1] += a1;
    if (w.n > 2) acc[2] += a2;
    if (w.n > 3) acc[3] += a3;
}

/* rv__win_sad_rows_v4_rgba with two rows a pass (j, j + 1: two
 * independent load streams and eight sums), an odd last row alone. */
RV_INLINE void rv__win_sad_rows_v4x2_rgba(rv_win w, int j0, int j1, int32_t *acc)
{
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    const int m4 = w.w >> 2, rem = w.w & 3;
    const int cl = (w.n + w.w - 2) >> 2;
    const int cm = RV__MIN(m4, cl), ct = RV__MIN(m4 + 1, cl);
    int j = j0;
    for (; j + 1 < j1; j += 2) {
        const unsigned char *r0 = w.base + (int64_t)(w.y + j) * w.pitch + (int64_t)w.x * 4;
        const unsigned char *r1 = r0 + w.pitch;
        const unsigned char *f0 = w.ref + (int64_t)j * w.ref_pitch;
        const unsigned char *f1 = f0 + w.ref_pitch;
        uint32_t p[4], q[4], t[4], u[4], v[4], e[4];
        rv__ld16_rgb_hi(r0, p);
        rv__ld16_rgb_hi(r1, u);
/* step m of both rows with image chunk IC (m + 1, or the clamped cm in the
 * last step); the four loads first */
#define RV__SAD_V4X2_ADVANCE(IC)                                                    \
    do {                                                                            \
        rv__ld16_rgb_hi(r0 + 16 * (IC), q);                                         \
        rv__ld16_rgb_hi(r1 + 16 * (IC), v);                                         \
        rv__ld16_rgb_hi(f0 + 16 * m, t);                                            \
        rv__ld16_rgb_hi(f1 + 16 * m, e);                                            \
        RV__SAD_V4_STEP(a0, a1, a2, a3, p, q, t);                                   \
        RV__SAD_V4_STEP(b0, b1, b2, b3, u, v, e);                                   \
        p[0] = q[0]; p[1] = q[1]; p[2] = q[2]; p[3] = q[3];                         \
        u[0] = v[0]; u[1] = v[1]; u[2] = v[2]; u[3] = v[3];                         \
    } while (0)
        int m = 0;
        for (; m + 1 < m4; m++)
            RV__SAD_V4X2_ADVANCE(m + 1);
        if (m < m4)
            RV__SAD_V4X2_ADVANCE(cm);
#undef RV__SAD_V4X2_ADVANCE
        if (rem) {
            rv__ld16_rgb_hi(f0 + 16 * m4, t);
            rv__ld16_rgb_hi(f1 + 16 * m4, e);
            RV__SAD_V4_TAIL(a0, a1, a2, a3, p, q, t, rem, r0 + 16 * ct);
            RV__SAD_V4_TAIL(b0, b1, b2, b3, u, v, e, rem, r1 + 16 * ct);
        }
    }
    int32_t s4[4] = {a0 + b0, a1 + b1, a2 + b2, a3 + b3};
    if (j < j1)
        rv__win_sad_rows_v4_rgba(w, j, j1, s4);
    acc[0] += s4[0];
    if (w.n > 1) acc[1] += s4[1];
    if (w.n > 2) acc[2] += s4[2];
    if (w.n > 3) acc[3] += s4[3];
}

/** Rows j0 .. j1-1 (0 <= j0 <= j1 <= w.h) of rv_win_sad_row_rgba: the same
 * sums added to acc[k] (nothing when j0 == j1). The band form for
 * RV_PROC_BOXR element functions. On the GPU, for one to four windows at
 * S = 1 with the rows on the 16-byte grid (rv__sad_v4_ok), image and
 * template are read 16 bytes at a time, two template rows a pass
 * (rv__win_sad_rows_v4x2_rgba: one image read per 16 pairs, no alpha
 * masks, two independent load streams; docs/perf/cuda-tuning.md round 11);
 * otherwise, and on the CPU, row by row. */
RV_INLINE void rv_win_sad_rows_rgba(rv_win w, int j0, int j1, int32_t *acc)
{
#if defined(__CUDA_ARCH__) || defined(RV__SAD_V4_ANYWHERE)
    if (rv__sad_v4_ok(w)) {
        rv__win_sad_rows_v4x2_rgba(w, j0, j1, acc);
        return;
    }
#endif
    for (int j = j0; j < j1; j++)
        rv_win_sad_row_rgba(w, j, acc);
}

/* ------------------------------------------------------------------ */
/* Descriptors                                                          */
/* ------------------------------------------------------------------ */

#if defined(RV_CUDA)
#  define RV__DESC_STORAGE extern "C" __device__ const
#else
#  define RV__DESC_STORAGE RV_EXPORT const
#endif

#define RV__DESC(NAME, OP, TIN, TIN2, TOUT, RADIUS, PSIZE, ASIZE)                   \
    RV__DESC_STORAGE rv_kernel_desc rvk_##NAME##_desc = {                           \
        RV_KERNEL_MAGIC, RV_KERNEL_ABI, (uint32_t)(OP), (uint32_t)RV_ETC_##TIN,      \
        (uint32_t)RV_ETC_##TIN2, (uint32_t)RV_ETC_##TOUT, (int32_t)(RADIUS),         \
        (uint32_t)(PSIZE), (uint32_t)(ASIZE), (OP) == RV_OP_RAW ? 0u : RV_KFLAG_CHAINED};

/* raw entries with RV_KFLAG_CHAINED (RV_RAW_KERNEL_CHAINED) */
#define RV__DESC_CHAINED(NAME, ASIZE)                                               \
    RV__DESC_STORAGE rv_kernel_desc rvk_##NAME##_desc = {                           \
        RV_KERNEL_MAGIC, RV_KERNEL_ABI, (uint32_t)RV_OP_RAW, (uint32_t)RV_ETC_none,  \
        (uint32_t)RV_ETC_none, (uint32_t)RV_ETC_none, 0, 0u, (uint32_t)(ASIZE),      \
        RV_KFLAG_CHAINED};

/* raw chained entries whose blocks wait on one another (RV_KFLAG_COOPERATIVE) */
#define RV__DESC_COOP(NAME, ASIZE)                                                  \
    RV__DESC_STORAGE rv_kernel_desc rvk_##NAME##_desc = {                           \
        RV_KERNEL_MAGIC, RV_KERNEL_ABI, (uint32_t)RV_OP_RAW, (uint32_t)RV_ETC_none,  \
        (uint32_t)RV_ETC_none, (uint32_t)RV_ETC_none, 0, 0u, (uint32_t)(ASIZE),      \
        RV_KFLAG_CHAINED | RV_KFLAG_COOPERATIVE};

/* procBox entries scoring G (<= RV_BOXN) windows a call (RV_PROC_BOXN_G):
 * flags say so. */
#define RV__DESC_BOXN(NAME, TIN, TIN2, TOUT, PSIZE, G)                              \
    RV__DESC_STORAGE rv_kernel_desc rvk_##NAME##_desc = {                           \
        RV_KERNEL_MAGIC, RV_KERNEL_ABI, (uint32_t)RV_OP_BOX, (uint32_t)RV_ETC_##TIN, \
        (uint32_t)RV_ETC_##TIN2, (uint32_t)RV_ETC_##TOUT, 0, (uint32_t)(PSIZE), 0u,   \
        RV_KFLAG_BOX_WINDOWS(G) | RV_KFLAG_CHAINED};

/* procBox entries with row-additive integer scores (RV_PROC_BOXR): G windows
 * a call, the template rows split over R threads on the GPU. */
#define RV__DESC_BOXR(NAME, TIN, TIN2, PSIZE, G, R)                                 \
    RV__DESC_STORAGE rv_kernel_desc rvk_##NAME##_desc = {                           \
        RV_KERNEL_MAGIC, RV_KERNEL_ABI, (uint32_t)RV_OP_BOX, (uint32_t)RV_ETC_##TIN, \
        (uint32_t)RV_ETC_##TIN2, (uint32_t)RV_ET_I32, 0, (uint32_t)(PSIZE), 0u,      \
        RV_KFLAG_BOX_WINDOWS(G) | RV_KFLAG_BOX_ROWSPLIT(R) | RV_KFLAG_CHAINED};                        \
    typedef char rvk_##NAME##__check_g_r[(G) >= 1 && (G) <= RV_BOXN &&              \
                                         ((R) == 1 || (R) == 2 || (R) == 4 || (R) == 8) ? 1 : -1];

/* procBox, G adjacent windows a call: the window columns of a row in
 * groups of G; the last group of a row is moved left to end at the last
 * window (its first windows are scored twice and taken once), so every
 * call has w.n = G unless the row has fewer windows (then w.n = all). */
#define RV__BOXN_GROUP(c0, cols, cs, n, G)                                          \
    do {                                                                            \
        (cs) = (c0); (n) = (G);                                                     \
        if ((cols) < (G)) { (cs) = 0; (n) = (cols); }                               \
        else if ((cs) + (G) > (cols)) (cs) = (cols) - (G);                          \
    } while (0)

/* Fills the S x S block of a result (clipped to the plane). */
#define RV__FILL_BLOCK(T, pl, x, y, s, v)                                           \
    do {                                                                            \
        const int rv__ny = RV__MIN((s), (pl).h - (y));                              \
        const int rv__nx = RV__MIN((s), (pl).w - (x));                              \
        for (int rv__yy = 0; rv__yy < rv__ny; rv__yy++) {                           \
            T *rv__o = RV__ROW(T, pl, (y) + rv__yy) + (x);                          \
            for (int rv__xx = 0; rv__xx < rv__nx; rv__xx++) rv__o[rv__xx] = (v);    \
        }                                                                           \
    } while (0)

#if !defined(RV_CUDA)
/* ================================================================== */
/* CPU entries: exported row-range loops over sample rows [j0, j1).     */
/* ================================================================== */

/* One sample row at stride SC (a constant where the caller can make it one,
 * so the compiler can vectorise): FN(ARGS(x)) is the result at x = i*SC and
 * fills out[x .. x+SC-1] (clipped at w). ARGS names the entry's locals. */
#define RV__PIX_ARGS(x) in[x], prm
#define RV__COMP_ARGS(x) ia[x], ib[x], prm
#define RV__STRIDED_ROW(T, out, w, SC, FN, ARGS)                                    \
    do {                                                                            \
        const int rv__sc = (SC);                                                    \
        int rv__x = 0;                                                              \
        for (; rv__x + rv__sc <= (w); rv__x += rv__sc) {                            \
            const T rv__v = FN(ARGS(rv__x));                                            \
            for (int rv__k = 0; rv__k < rv__sc; rv__k++) (out)[rv__x + rv__k] = rv__v; \
        }                                                                           \
        if (rv__x < (w)) {                                                          \
            const T rv__v = FN(ARGS(rv__x));                                            \
            for (int rv__k = rv__x; rv__k < (w); rv__k++) (out)[rv__k] = rv__v;     \
        }                                                                           \
    } while (0)

/* Copies row y of a plane to the rows below it in its S x S block. */
#define RV__COPY_DOWN(T, pl, y, s, w)                                               \
    do {                                                                            \
        const T *rv__src = RV__ROW(const T, pl, y);                                 \
        const int rv__ny = RV__MIN((s), (pl).h - (y));                              \
        for (int rv__yy = 1; rv__yy < rv__ny; rv__yy++) {                           \
            T *rv__dst = RV__ROW(T, pl, (y) + rv__yy);                              \
            for (int rv__x = 0; rv__x < (w); rv__x++) rv__dst[rv__x] = rv__src[rv__x]; \
        }                                                                           \
    } while (0)

/* procNbr interior samples [ia, ib) of a row at stride SC (a constant where
 * possible): clamping compiled out, SC output pixels per result. */
#define RV__NBR_INTERIOR(T, FN, SC)                                                 \
    do {                                                                            \
        rv_nbr rv__u = u;                                                           \
        rv__u.s = (SC);                                                             \
        for (int i = ia; i < ib; i++) {                                             \
            rv__u.x = i * (SC);                                                     \
            const T rv__v = FN(rv__u, prm);                                         \
            for (int k = 0; k < (SC); k++) out[i * (SC) + k] = rv__v;               \
        }                                                                           \
    } while (0)

#define RV__CPU_SIG(NAME)                                                           \
    RV_EXPORT void rvk_##NAME(const rv_args *a, int j0, int j1, rv_partial *part)

#define RV_PROC_PIX(NAME, FN, TIN, TOUT, PT)                                        \
    RV__DESC(NAME, RV_OP_PIX, TIN, none, TOUT, 0, RV__PSIZE(PT), 0)                 \
    RV__CPU_SIG(NAME);                                                              \
    RV__CPU_SIG(NAME)                                                               \
    {                                                                               \
        const PT rv__prm = *(const PT *)(const void *)a->params;                    \
        const PT *prm = &rv__prm; /* a local: output stores cannot alias it */      \
        const int w = a->dst.w, h = a->dst.h, s = a->s;                              \
        (void)part;                                                                 \
        if (s == 1) {                                                               \
            for (int y = j0; y < j1; y++) {                                         \
                const RV_T_##TIN *in = RV__ROW(const RV_T_##TIN, a->src, y);        \
                RV_T_##TOUT *out = RV__ROW(RV_T_##TOUT, a->dst, y);                 \
                for (int x = 0; x < w; x++) out[x] = FN(in[x], prm);                \
            }                                                                       \
            return;                                                                 \
        }                                                                           \
        /* stride S: each sample row is written once, S pixels per result    \
         * (S = 2 and 4 as constants), then copied down its block. In place   \
         * is safe: in[x + S] is read before anything right of x + S - 1 is  \
         * written, and rows below y belong to this sample row only. */      \
        for (int j = j0; j < j1; j++) {                                             \
            const int y = j * s;                                                    \
            const RV_T_##TIN *in = RV__ROW(const RV_T_##TIN, a->src, y);            \
            RV_T_##TOUT *out = RV__ROW(RV_T_##TOUT, a->dst, y);                     \
            if (s == 2)                                                             \
                RV__STRIDED_ROW(RV_T_##TOUT, out, w, 2, FN, RV__PIX_ARGS);              \
            else if (s == 4)                                                        \
                RV__STRIDED_ROW(RV_T_##TOUT, out, w, 4, FN, RV__PIX_ARGS);              \
            else                                                                    \
                RV__STRIDED_ROW(RV_T_##TOUT, out, w, s, FN, RV__PIX_ARGS);              \
            RV__COPY_DOWN(RV_T_##TOUT, a->dst, y, s, w);                            \
        }                                                                           \
        (void)h;                                                                    \
    }

#define RV_PROC_COMP(NAME, FN, TIN, TIN2, TOUT, PT)                                 \
    RV__DESC(NAME, RV_OP_COMP, TIN, TIN2, TOUT, 0, RV__PSIZE(PT), 0)                \
    RV__CPU_SIG(NAME);                                                              \
    RV__CPU_SIG(NAME)                                                               \
    {                                                                               \
        const PT rv__prm = *(const PT *)(const void *)a->params;                    \
        const PT *prm = &rv__prm; /* a local: output stores cannot alias it */      \
        const int w = a->dst.w, s = a->s;                                           \
        (void)part;                                                                 \
        if (s == 1) {                                                               \
            for (int y = j0; y < j1; y++) {                                         \
                const RV_T_##TIN *ia = RV__ROW(const RV_T_##TIN, a->src, y);        \
                const RV_T_##TIN2 *ib = RV__ROW(const RV_T_##TIN2, a->src2, y);     \
                RV_T_##TOUT *out = RV__ROW(RV_T_##TOUT, a->dst, y);                 \
                for (int x = 0; x < w; x++) out[x] = FN(ia[x], ib[x], prm);         \
            }                                                                       \
            return;                                                                 \
        }                                                                           \
        for (int j = j0; j < j1; j++) {                                             \
            const int y = j * s;                                                    \
            const RV_T_##TIN *ia = RV__ROW(const RV_T_##TIN, a->src, y);            \
            const RV_T_##TIN2 *ib = RV__ROW(const RV_T_##TIN2, a->src2, y);         \
            RV_T_##TOUT *out = RV__ROW(RV_T_##TOUT, a->dst, y);                     \
            if (s == 2)                                                             \
                RV__STRIDED_ROW(RV_T_##TOUT, out, w, 2, FN, RV__COMP_ARGS);              \
            else if (s == 4)                                                        \
                RV__STRIDED_ROW(RV_T_##TOUT, out, w, 4, FN, RV__COMP_ARGS);              \
            else                                                                    \
                RV__STRIDED_ROW(RV_T_##TOUT, out, w, s, FN, RV__COMP_ARGS);              \
            RV__COPY_DOWN(RV_T_##TOUT, a->dst, y, s, w);                            \
        }                                                                           \
    }

/* procNbr: the interior of each row runs with clamping compiled out. */
#define RV_PROC_NBR(NAME, FN, TIN, TOUT, RADIUS, PT)                                \
    RV__DESC(NAME, RV_OP_NBR, TIN, none, TOUT, RADIUS, RV__PSIZE(PT), 0)            \
    RV__CPU_SIG(NAME);                                                              \
    RV__CPU_SIG(NAME)                                                               \
    {                                                                               \
        const PT rv__prm = *(const PT *)(const void *)a->params;                    \
        const PT *prm = &rv__prm; /* a local: output stores cannot alias it */      \
        const int w = a->src.w, h = a->src.h, s = a->s, R = (RADIUS);               \
        (void)part;                                                                 \
        if (s == 1) {                                                               \
            for (int y = j0; y < j1; y++) {                                         \
                RV_T_##TOUT *out = RV__ROW(RV_T_##TOUT, a->dst, y);                 \
                const int inner = y >= R && y + R < h;                              \
                const int xa = inner ? RV__MIN(R, w) : w;                           \
                const int xb = inner && w - R > xa ? w - R : xa;                    \
                rv_nbr c = {a->src.data, a->src.pitch, 0, y, w, h, 1, 1, 0, 0};     \
                rv_nbr u = {a->src.data, a->src.pitch, 0, y, w, h, 1, 0, 0, 0};     \
                for (int x = 0; x < xa; x++) { c.x = x; out[x] = FN(c, prm); }      \
                for (int x = xa; x < xb; x++) { u.x = x; out[x] = FN(u, prm); }     \
                for (int x = xb; x < w; x++) { c.x = x; out[x] = FN(c, prm); }      \
            }                                                                       \
            return;                                                                 \
        }                                                                           \
        /* stride S: samples at x = i*S; interior samples (every neighbour      \
         * inside) run with clamping compiled out; each result fills S pixels  \
         * of the first row of its block, then that row is copied down. */     \
        const int Rs = R * s, ns = (w + s - 1) / s;                                 \
        for (int j = j0; j < j1; j++) {                                             \
            const int y = j * s, ny = RV__MIN(s, h - y);                            \
            RV_T_##TOUT *out = RV__ROW(RV_T_##TOUT, a->dst, y);                     \
            const int inner = y >= Rs && y + Rs < h;                                \
            const int ia = inner ? RV__MIN((Rs + s - 1) / s, ns) : ns;              \
            int ib = inner && w - Rs >= 1 ? (w - Rs - 1) / s + 1 : ia;              \
            ib = RV__MIN(ib, w / s);                                                \
            if (ib < ia)                                                            \
                ib = ia;                                                            \
            rv_nbr c = {a->src.data, a->src.pitch, 0, y, w, h, s, 1, 0, 0};         \
            rv_nbr u = {a->src.data, a->src.pitch, 0, y, w, h, s, 0, 0, 0};         \
            for (int i = 0; i < ia; i++) {                                          \
                c.x = i * s;                                                        \
                const RV_T_##TOUT v = FN(c, prm);                                   \
                for (int k = c.x; k < RV__MIN(c.x + s, w); k++) out[k] = v;         \
            }                                                                       \
            if (s == 2)                                                             \
                RV__NBR_INTERIOR(RV_T_##TOUT, FN, 2);                               \
            else if (s == 4)                                                        \
                RV__NBR_INTERIOR(RV_T_##TOUT, FN, 4);                               \
            else                                                                    \
                RV__NBR_INTERIOR(RV_T_##TOUT, FN, s);                               \
            for (int i = ib; i < ns; i++) {                                         \
                c.x = i * s;                                                        \
                const RV_T_##TOUT v = FN(c, prm);                                   \
                for (int k = c.x; k < RV__MIN(c.x + s, w); k++) out[k] = v;         \
            }                                                                       \
            for (int yy = 1; yy < ny; yy++) {                                       \
                RV_T_##TOUT *o2 = RV__ROW(RV_T_##TOUT, a->dst, y + yy);             \
                for (int x = 0; x < w; x++) o2[x] = out[x];                         \
            }                                                                       \
        }                                                                           \
    }

/* procBox: window positions x = i*S <= W - box_w (same for y). */
/* One window's score v at (x, win.y) into the entry's running reduction. */
#define RV__BOX_CPU_TAKE(TSCORE, v, vx)                                              \
    do {                                                                            \
        if (red == RV_REDUCE_NONE) {                                                \
            RV__FILL_BLOCK(float, a->dst, (vx), win.y, s, (float)(v));               \
        } else if (red == RV_REDUCE_SUM) {                                          \
            if (RV_ETC_##TSCORE == RV_ET_I32) isum += (int64_t)(v);                 \
            else fsum += (double)(v);                                               \
            found = 1;                                                              \
        } else if (!found || (red == RV_REDUCE_MIN ? (double)(v) < best             \
                                                   : (double)(v) > best)) {         \
            best = (double)(v); bx = (vx); by = win.y; found = 1;                    \
        }                                                                           \
    } while (0)
#define RV__BOX_CPU_HEAD(PT)                                                        \
    const PT rv__prm = *(const PT *)(const void *)a->params;                        \
    const PT *prm = &rv__prm; /* a local: output stores cannot alias it */          \
    const int s = a->s, xmax = a->src.w - a->box_w;                                 \
    const int red = a->reduce;                                                      \
    rv_win win = {a->src.data, a->src.pitch, a->src2.data, a->src2.pitch,           \
                  0, 0, (a->box_w + s - 1) / s, (a->box_h + s - 1) / s, s, 1};      \
    double best = 0.0, fsum = 0.0;                                                  \
    int64_t isum = 0;                                                               \
    int bx = 0, by = 0, found = 0;
#define RV__BOX_CPU_TAIL                                                            \
    if (part) {                                                                     \
        part->score = red == RV_REDUCE_SUM ? fsum : best;                           \
        part->isum = isum;                                                          \
        part->x = bx; part->y = by; part->valid = found;                            \
    }
#define RV_PROC_BOX(NAME, FN, TIN, TREF, TSCORE, PT)                                \
    RV__DESC(NAME, RV_OP_BOX, TIN, TREF, TSCORE, 0, RV__PSIZE(PT), 0)               \
    RV__CPU_SIG(NAME);                                                              \
    RV__CPU_SIG(NAME)                                                               \
    {                                                                               \
        RV__BOX_CPU_HEAD(PT)                                                        \
        for (int j = j0; j < j1; j++) {                                             \
            win.y = j * s;                                                          \
            for (int x = 0; x <= xmax; x += s) {                                    \
                win.x = x;                                                          \
                const RV_T_##TSCORE v = FN(win, prm);                               \
                RV__BOX_CPU_TAKE(TSCORE, v, x);                                     \
            }                                                                       \
        }                                                                           \
        RV__BOX_CPU_TAIL                                                            \
    }

#define RV_PROC_BOXN_G(NAME, FN, TIN, TREF, TSCORE, PT, G)                          \
    RV__DESC_BOXN(NAME, TIN, TREF, TSCORE, RV__PSIZE(PT), G)                        \
    RV__CPU_SIG(NAME);                                                              \
    RV__CPU_SIG(NAME)                                                               \
    {                                                                               \
        RV__BOX_CPU_HEAD(PT)                                                        \
        const int cols = xmax < 0 ? 0 : xmax / s + 1;                               \
        for (int j = j0; j < j1; j++) {                                             \
            win.y = j * s;                                                          \
            for (int c0 = 0; c0 < cols; c0 += (G)) {                                \
                int cs, n;                                                          \
                RV__BOXN_GROUP(c0, cols, cs, n, G);                                 \
                RV_T_##TSCORE sc[RV_BOXN];                                          \
                win.x = cs * s;                                                     \
                win.n = n;                                                          \
                FN(win, prm, sc);                                                   \
                for (int k = c0 - cs; k < n; k++)                                   \
                    RV__BOX_CPU_TAKE(TSCORE, sc[k], (cs + k) * s);                  \
            }                                                                       \
        }                                                                           \
        RV__BOX_CPU_TAIL                                                            \
    }

/* RV_PROC_BOXR on the CPU: RV_PROC_BOXN_G's groups, each scored over all
 * its rows by one call (the row split is a GPU launch shape). */
#define RV_PROC_BOXR(NAME, FN, TIN, TREF, PT, G, R)                                 \
    RV__DESC_BOXR(NAME, TIN, TREF, RV__PSIZE(PT), G, R)                             \
    RV__CPU_SIG(NAME);                                                              \
    RV__CPU_SIG(NAME)                                                               \
    {                                                                               \
        RV__BOX_CPU_HEAD(PT)                                                        \
        const int cols = xmax < 0 ? 0 : xmax / s + 1;                               \
        for (int j = j0; j < j1; j++) {                                             \
            win.y = j * s;                                                          \
            for (int c0 = 0; c0 < cols; c0 += (G)) {                                \
                int cs, n;                                                          \
                RV__BOXN_GROUP(c0, cols, cs, n, G);                                 \
                int32_t sc[RV_BOXN] = {0, 0, 0, 0};                                 \
                win.x = cs * s;                                                     \
                win.n = n;                                                          \
                FN(win, 0, win.h, prm, sc);                                         \
                for (int k = c0 - cs; k < n; k++)                                   \
                    RV__BOX_CPU_TAKE(i32, sc[k], (cs + k) * s);                     \
            }                                                                       \
        }                                                                           \
        RV__BOX_CPU_TAIL                                                            \
    }

#define RV_RAW_KERNEL(NAME, AT, A, BLK)                                             \
    RV__DESC(NAME, RV_OP_RAW, none, none, none, 0, 0, sizeof(AT))                   \
    RV__RAW_CPU_ENTRY(NAME, AT, A, BLK)

/* the CPU runs launches one after another: a chained entry is a plain one */
#define RV_RAW_KERNEL_CHAINED(NAME, AT, A, BLK)                                     \
    RV__DESC_CHAINED(NAME, sizeof(AT))                                              \
    RV__RAW_CPU_ENTRY(NAME, AT, A, BLK)

/* a cooperative entry (RV_KFLAG_COOPERATIVE): the CPU backend refuses to
 * launch it (its blocks run one after another), so its CPU body may be empty */
#define RV_RAW_KERNEL_COOP(NAME, AT, A, BLK)                                        \
    RV__DESC_COOP(NAME, sizeof(AT))                                                 \
    RV__RAW_CPU_ENTRY(NAME, AT, A, BLK)

#define RV__RAW_CPU_ENTRY(NAME, AT, A, BLK)                                         \
    static void rvk_##NAME##__body(const AT *A, rv_block BLK);                      \
    RV_EXPORT void rvk_##NAME(const void *rv__args, rv_block rv__blk);              \
    RV_EXPORT void rvk_##NAME(const void *rv__args, rv_block rv__blk)               \
    {                                                                               \
        rvk_##NAME##__body((const AT *)rv__args, rv__blk);                          \
    }                                                                               \
    static void rvk_##NAME##__body(const AT *A, rv_block BLK)

#else /* RV_CUDA */
/* ================================================================== */
/* GPU entries (nvcc -DRV_CUDA). Every entry loops over its work with   */
/* grid-stride loops, so any grid is correct; the CUDA backend picks    */
/* block and grid per kernel (docs/cuda.md). The contract with the      */
/* backend (ravioli_cuda/src/cuda_backend.c):                           */
/*  - procPix/compImg at S = 1: thread (tx, ty) of the grid handles     */
/*    RV__VECN consecutive samples of a row (16-byte loads and stores   */
/*    when rows are 16-byte aligned, which image rows always are), two  */
/*    such vectors at once when the grid is narrower than the row;      */
/*  - procNbr: one thread per sample position (i, j); at S = 1 one     */
/*    thread per strip of RV_GPU_NBR_ROWS x RV_GPU_NBR_COLS samples, or */
/*    RV_GPU_NBR_ROWS_SMALL x 1 for small planes (kernel_abi.h);        */
/*    procBox: positions numbered row by row, 1D blocks;                */
/*  - procBox with a reduction: each block writes one rv_partial to     */
/*    scratch + 64 + 32 * block, and the last block to finish (counter  */
/*    at scratch + 0) combines them into scratch + 16 and resets the    */
/*    counter: the whole reduction happens on the GPU in one launch.    */
/* The kernel parameter block is read in place (__grid_constant__), so  */
/* taking the address of the user parameters costs no local copy.       */
/* ================================================================== */

#define RV__GRID_CONST __grid_constant__

/* Samples per thread of the S = 1 vector path: 16 bytes of the widest element. */
#define RV__VECN2(A, B) ((int)(16 / ((sizeof(A) > sizeof(B)) ? sizeof(A) : sizeof(B))))
#define RV__VECN3(A, B, C) ((int)(16 / ((sizeof(A) > sizeof(B) ? sizeof(A) : sizeof(B)) > sizeof(C) \
                                        ? (sizeof(A) > sizeof(B) ? sizeof(A) : sizeof(B))          \
                                        : sizeof(C))))

template <int B> struct rv__bits;
template <> struct rv__bits<1> { typedef unsigned char t; };
template <> struct rv__bits<2> { typedef unsigned short t; };
template <> struct rv__bits<4> { typedef unsigned int t; };
template <> struct rv__bits<8> { typedef uint2 t; };
template <> struct rv__bits<16> { typedef uint4 t; };

/* One vector load through the read-only path, split into N elements. */
template <typename T, int N>
static __device__ __forceinline__ void rv__vload(T (&v)[N], const T *p)
{
    typedef typename rv__bits<(int)sizeof(T) * N>::t U;
    const U u = __ldg(reinterpret_cast<const U *>(p));
    memcpy(v, &u, sizeof(U));
}

template <typename T, int N>
static __device__ __forceinline__ void rv__vstore(T *p, const T (&v)[N])
{
    typedef typename rv__bits<(int)sizeof(T) * N>::t U;
    U u;
    memcpy(&u, v, sizeof(U));
    *reinterpret_cast<U *>(p) = u;
}

#define RV__GPU_GRID                                                                \
    const int rv__tx0 = (int)(blockIdx.x * blockDim.x + threadIdx.x);               \
    const int rv__txn = (int)(gridDim.x * blockDim.x);                              \
    const int rv__ty0 = (int)(blockIdx.y * blockDim.y + threadIdx.y);               \
    const int rv__tyn = (int)(gridDim.y * blockDim.y)

#define RV__ALIGNED16(pl) ((((uintptr_t)(pl).data) | (uintptr_t)(pl).pitch) % 16u == 0)

/* GPU fill of the S x S block of a result at stride S > 1 (procPix, compImg,
 * procNbr): each row of the block in the widest stores its bytes allow (16,
 * 8 or 4 bytes, the value replicated) instead of one store a sample: a warp's
 * store then writes whole sectors (S = 8, RGBA: two 16-byte stores a row,
 * was eight 4-byte ones). Rows must be 16-byte aligned (AL); a row of n
 * samples at x = i * S starts on a multiple of the chunk when both S and n
 * samples are whole chunks, otherwise the row goes sample by sample. */
template <typename U, typename T>
static __device__ __forceinline__ U rv__splat(T v)
{
    U u;
    unsigned char b[sizeof(U)];
    _Pragma("unroll") for (int k = 0; k < (int)sizeof(U); k += (int)sizeof(T))
        memcpy(b + k, &v, sizeof(T));
    memcpy(&u, b, sizeof(U));
    return u;
}
template <typename T>
static __device__ __forceinline__ void rv__fill_block(const rv_plane &pl, int x, int y, int s, T v, bool al)
{
    const int ny = RV__MIN(s, pl.h - y), nx = RV__MIN(s, pl.w - x);
    const int sb = s * (int)sizeof(T), nb = nx * (int)sizeof(T);
    unsigned char *o = pl.data + (int64_t)y * pl.pitch + (int64_t)x * (int64_t)sizeof(T);
    if (al && 16 % sizeof(T) == 0 && sb % 16 == 0 && nb % 16 == 0) {
        const uint4 q = rv__splat<uint4>(v);
        for (int r = 0; r < ny; r++, o += pl.pitch)
            for (int k = 0; k < nb; k += 16)
                *(uint4 *)(void *)(o + k) = q;
    } else if (al && 8 % sizeof(T) == 0 && sb % 8 == 0 && nb % 8 == 0) {
        const uint2 q = rv__splat<uint2>(v);
        for (int r = 0; r < ny; r++, o += pl.pitch)
            for (int k = 0; k < nb; k += 8)
                *(uint2 *)(void *)(o + k) = q;
    } else {
        for (int r = 0; r < ny; r++, o += pl.pitch)
            for (int k = 0; k < nx; k++)
                ((T *)(void *)o)[k] = v;
    }
}

/* Chained entries (RV_KFLAG_CHAINED: every entry below, raw ones when
 * declared with RV_RAW_KERNEL_CHAINED): before any memory access the entry
 * waits until the grid launched before it on the stream has finished and its
 * writes are visible (griddepcontrol.wait; without programmatic launch it
 * returns at once), and it lets the grid after it be scheduled from its own
 * start. So a chain of such launches (a pipeline's stages, a DWT's passes)
 * gives the same results as plain launches with less idle time between them.
 * sm_90+; on older targets the entry is a plain one. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#  define RV__GRID_CHAIN_()                                                         \
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");                 \
    asm volatile("griddepcontrol.wait;" ::: "memory");
#else
#  define RV__GRID_CHAIN_()
#endif
#define RV__GRID_CHAIN(NAME) RV__GRID_CHAIN_SYM(rvk_##NAME)
#define RV__GRID_CHAIN_SYM(SYM) RV__TRACE_BEGIN(SYM) RV__GRID_CHAIN_() RV__TRACE_WAITED()

/* Grid timeline tracing, a developer's diagnostic (off unless the module's
 * PTX is built with -DRV_TRACE_GRIDS: cmake -DRV_TRACE_GRIDS=ON): thread
 * (0,0,0) of every block of every entry records the global timer when the
 * block starts, when its wait for the previous grid returns (at once in an
 * entry that does not wait) and when it leaves the entry, with %gridid,
 * %smid and a hash of the entry's symbol (rvk_<name>, rvkw_<name>), in a
 * ring of RV_TRACE_CAP records in the module. The CUDA backend appends the
 * ring to the file named by the environment variable
 * RAVIOLI_CUDA_TRACE_GRIDS when it unloads the module (docs/cuda.md, "Grid
 * timelines"). The end is thread 0's, not the block's last thread's. */
#if defined(RV_TRACE_GRIDS)
#  define RV_TRACE_CAP (1u << 20)
typedef struct rv__trace_rec {
    unsigned long long grid;  /* %gridid */
    unsigned long long name;  /* rv__trace_hash of the entry's symbol */
    unsigned long long t0;    /* global timer (ns) at the block's start */
    unsigned int wait, end;   /* ns from t0: the wait returned, the block left */
    unsigned int sm, block;   /* %smid, linear block index */
} rv__trace_rec;
static_assert(sizeof(rv__trace_rec) == 40, "the backend reads 40-byte records (RVC_TRACE_REC_BYTES)");
extern "C" __device__ unsigned long long rv__trace_n;
extern "C" __device__ rv__trace_rec rv__trace[RV_TRACE_CAP];
__device__ unsigned long long rv__trace_n;
__device__ rv__trace_rec rv__trace[RV_TRACE_CAP];
/* 64-bit FNV-1a of the entry's symbol, at compile time (the backend hashes
 * the symbols it looks up the same way: ravioli_cuda/src/trace.h) */
__host__ __device__ constexpr unsigned long long rv__trace_hash(const char *s,
                                                             unsigned long long h = 14695981039346656037ull)
{
    return *s ? rv__trace_hash(s + 1, (h ^ (unsigned char)*s) * 1099511628211ull) : h;
}
template <unsigned long long H> struct rv__trace_const {
    static constexpr unsigned long long v = H;
};
static __device__ __forceinline__ unsigned long long rv__gtimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
struct rv__tracer {
    unsigned long long t0, t1, name;
    bool on;
    __device__ rv__tracer(unsigned long long n) : t1(0), name(n)
    {
        on = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
        t0 = on ? rv__gtimer() : 0;
    }
    __device__ void waited() { t1 = on ? rv__gtimer() : 0; }
    __device__ ~rv__tracer()
    {
        if (!on)
            return;
        const unsigned long long t2 = rv__gtimer();
        unsigned long long g;
        unsigned int sm;
        asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        const unsigned long long i = atomicAdd(&rv__trace_n, 1ull) % RV_TRACE_CAP;
        rv__trace_rec r;
        r.grid = g;
        r.name = name;
        r.t0 = t0;
        r.wait = (unsigned int)(t1 - t0);
        r.end = (unsigned int)(t2 - t0);
        r.sm = sm;
        r.block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
        rv__trace[i] = r;
    }
};
#  define RV__TRACE_BEGIN(SYM) rv__tracer rv__trace_(rv__trace_const<rv__trace_hash(#SYM)>::v);
#  define RV__TRACE_WAITED() rv__trace_.waited();
#else
#  define RV__TRACE_BEGIN(SYM)
#  define RV__TRACE_WAITED()
#endif
#define RV_PROC_PIX(NAME, FN, TIN, TOUT, PT)                                        \
    RV__DESC(NAME, RV_OP_PIX, TIN, none, TOUT, 0, RV__PSIZE(PT), 0)                 \
    extern "C" __global__ void rvk_##NAME(const RV__GRID_CONST rv_args a)           \
    {                                                                               \
        RV__GRID_CHAIN(NAME)                                                        \
        typedef RV_T_##TIN rv__ti;                                                  \
        typedef RV_T_##TOUT rv__to;                                                 \
        const PT *prm = (const PT *)(const void *)a.params;                         \
        const int w = a.dst.w, h = a.dst.h, s = a.s;                                \
        RV__GPU_GRID;                                                               \
        if (s == 1) {                                                               \
            constexpr int N = RV__VECN2(rv__ti, rv__to);                            \
            const int nv = (w + N - 1) / N;                                         \
            const bool al = RV__ALIGNED16(a.src) && RV__ALIGNED16(a.dst);           \
            const int nfull = al ? w / N : 0; /* vectors entirely inside a row */   \
            for (int y = rv__ty0; y < h; y += rv__tyn) {                            \
                const rv__ti *in = RV__ROW(const rv__ti, a.src, y);                 \
                rv__to *out = RV__ROW(rv__to, a.dst, y);                            \
                int v = rv__tx0;                                                    \
                /* two full vectors a thread while they last: loads in flight */    \
                for (; v + rv__txn < nfull; v += 2 * rv__txn) {                     \
                    rv__ti i0[N], i1[N];                                            \
                    rv__to o0[N], o1[N];                                            \
                    rv__vload(i0, in + v * N);                                      \
                    rv__vload(i1, in + (v + rv__txn) * N);                          \
                    _Pragma("unroll") for (int k = 0; k < N; k++) {                 \
                        o0[k] = FN(i0[k], prm);                                     \
                        o1[k] = FN(i1[k], prm);                                     \
                    }                                                               \
                    rv__vstore(out + v * N, o0);                                    \
                    rv__vstore(out + (v + rv__txn) * N, o1);                        \
                }                                                                   \
                for (; v < nv; v += rv__txn) {                                      \
                    const int x0 = v * N;                                           \
                    if (v < nfull) {                                                \
                        rv__ti iv[N];                                               \
                        rv__to ov[N];                                               \
                        rv__vload(iv, in + x0);                                     \
                        _Pragma("unroll") for (int k = 0; k < N; k++)               \
                            ov[k] = FN(iv[k], prm);                                 \
                        rv__vstore(out + x0, ov);                                   \
                    } else {                                                        \
                        const int x1 = RV__MIN(x0 + N, w);                          \
                        for (int x = x0; x < x1; x++) out[x] = FN(in[x], prm);      \
                    }                                                               \
                }                                                                   \
            }                                                                       \
            return;                                                                 \
        }                                                                           \
        const int rows = (h + s - 1) / s, cols = (w + s - 1) / s;                   \
        const bool rv__fal = RV__ALIGNED16(a.dst);                                  \
        for (int j = rv__ty0; j < rows; j += rv__tyn) {                             \
            const int y = j * s;                                                    \
            const rv__ti *in = RV__ROW(const rv__ti, a.src, y);                     \
            for (int i = rv__tx0; i < cols; i += rv__txn) {                         \
                const int x = i * s;                                                \
                const rv__to v = FN(in[x], prm);                                    \
                rv__fill_block<rv__to>(a.dst, x, y, s, v, rv__fal);                 \
            }                                                                       \
        }                                                                           \
    }

#define RV_PROC_COMP(NAME, FN, TIN, TIN2, TOUT, PT)                                 \
    RV__DESC(NAME, RV_OP_COMP, TIN, TIN2, TOUT, 0, RV__PSIZE(PT), 0)                \
    extern "C" __global__ void rvk_##NAME(const RV__GRID_CONST rv_args a)           \
    {                                                                               \
        RV__GRID_CHAIN(NAME)                                                        \
        typedef RV_T_##TIN rv__ta;                                                  \
        typedef RV_T_##TIN2 rv__tb;                                                 \
        typedef RV_T_##TOUT rv__to;                                                 \
        const PT *prm = (const PT *)(const void *)a.params;                         \
        const int w = a.dst.w, h = a.dst.h, s = a.s;                                \
        RV__GPU_GRID;                                                               \
        if (s == 1) {                                                               \
            constexpr int N = RV__VECN3(rv__ta, rv__tb, rv__to);                    \
            const int nv = (w + N - 1) / N;                                         \
            const bool al = RV__ALIGNED16(a.src) && RV__ALIGNED16(a.src2) &&        \
                            RV__ALIGNED16(a.dst);                                   \
            const int nfull = al ? w / N : 0;                                       \
            for (int y = rv__ty0; y < h; y += rv__tyn) {                            \
                const rv__ta *ia = RV__ROW(const rv__ta, a.src, y);                 \
                const rv__tb *ib = RV__ROW(const rv__tb, a.src2, y);                \
                rv__to *out = RV__ROW(rv__to, a.dst, y);                            \
                int v = rv__tx0;                                                    \
                for (; v + rv__txn < nfull; v += 2 * rv__txn) {                     \
                    rv__ta a0[N], a1[N];                                            \
                    rv__tb b0[N], b1[N];                                            \
                    rv__to o0[N], o1[N];                                            \
                    rv__vload(a0, ia + v * N);                                      \
                    rv__vload(b0, ib + v * N);                                      \
                    rv__vload(a1, ia + (v + rv__txn) * N);                          \
                    rv__vload(b1, ib + (v + rv__txn) * N);                          \
                    _Pragma("unroll") for (int k = 0; k < N; k++) {                 \
                        o0[k] = FN(a0[k], b0[k], prm);                              \
                        o1[k] = FN(a1[k], b1[k], prm);                              \
                    }                                                               \
                    rv__vstore(out + v * N, o0);                                    \
                    rv__vstore(out + (v + rv__txn) * N, o1);                        \
                }                                                                   \
                for (; v < nv; v += rv__txn) {                                      \
                    const int x0 = v * N;                                           \
                    if (v < nfull) {                                                \
                        rv__ta va[N];                                               \
                        rv__tb vb[N];                                               \
                        rv__to ov[N];                                               \
                        rv__vload(va, ia + x0);                                     \
                        rv__vload(vb, ib + x0);                                     \
                        _Pragma("unroll") for (int k = 0; k < N; k++)               \
                            ov[k] = FN(va[k], vb[k], prm);                          \
                        rv__vstore(out + x0, ov);                                   \
                    } else {                                                        \
                        const int x1 = RV__MIN(x0 + N, w);                          \
                        for (int x = x0; x < x1; x++) out[x] = FN(ia[x], ib[x], prm); \
                    }                                                               \
                }                                                                   \
            }                                                                       \
            return;                                                                 \
        }                                                                           \
        const int rows = (h + s - 1) / s, cols = (w + s - 1) / s;                   \
        const bool rv__fal = RV__ALIGNED16(a.dst);                                  \
        for (int j = rv__ty0; j < rows; j += rv__tyn) {                             \
            const int y = j * s;                                                    \
            const rv__ta *ia = RV__ROW(const rv__ta, a.src, y);                     \
            const rv__tb *ib = RV__ROW(const rv__tb, a.src2, y);                    \
            for (int i = rv__tx0; i < cols; i += rv__txn) {                         \
                const int x = i * s;                                                \
                const rv__to v = FN(ia[x], ib[x], prm);                             \
                rv__fill_block<rv__to>(a.dst, x, y, s, v, rv__fal);                 \
            }                                                                       \
        }                                                                           \
    }

/* procNbr. At S = 1 each thread computes a strip of K rows x C adjacent
 * columns (the backend sizes the grid for it; any grid is still correct, the
 * entry loops):
 *  - the element function is inlined once per sample of the strip, all
 *    results are computed before the first store, so the compiler sees every
 *    neighbour load of the strip at once: loads of the same address (the
 *    rows and columns the strip's samples share) are made once (CSE: 3x3 on
 *    8 x 2 samples is 10 x 4 loads, not 16 x 9), and each loaded neighbour is
 *    unpacked once for all the samples that use it (the element function's
 *    per-channel work on a shared neighbour is CSE'd too);
 *  - strips entirely inside the plane (the common case: every neighbour of
 *    every sample is inside) run with clamping compiled out and S = 1 as a
 *    constant; the C results of a row go out in one vector store when the
 *    output rows allow it; the rest (plane borders, last partial strip) go
 *    sample by sample with the clamping instantiation where a neighbour may
 *    be out;
 *  - two strip shapes: RV_GPU_NBR_ROWS x RV_GPU_NBR_COLS (8 x 2), and for
 *    small planes, where that would leave too few threads to fill the GPU,
 *    RV_GPU_NBR_ROWS_SMALL x 1 (2 x 1). The entry takes the small shape when
 *    the grid covers the plane with it (at least w threads across and h / 2
 *    down), which is the grid the backend launches for small planes.
 *  - on the backend's 8 x 2 grid the strips read a shared tile of the block's
 *    samples instead of global memory (RV__NBR_TILE below).
 * At S > 1 one thread per sample position (i, j), filling its S x S block.
 * Neighbour reads are plain loads (see RV__DEF_ACCESSORS). */
#define RV__NBR_CALL(FN, SS, CL)                                                    \
    do {                                                                            \
        const rv_nbr n = {a.src.data, a.src.pitch, x, y, w, h, (SS), (CL), 0, 0};   \
        v = FN(n, prm);                                                             \
    } while (0)
/* The same, unclamped at S = 1, addressed from the strip's corner rv__c0 =  \
 * sample (x0, y0): every neighbour is a constant offset from it. */
#define RV__NBR_CALL_C0(FN)                                                         \
    do {                                                                            \
        const rv_nbr n = {rv__c0, a.src.pitch, x, y, w, h, 1, 0, x0, y0};           \
        v = FN(n, prm);                                                             \
    } while (0)
/* The S = 1 strip loop for strips of KK rows x CC columns. */
#define RV__NBR_STRIPS(FN, KK, CC)                                                  \
    do {                                                                            \
        constexpr int K = (KK), C = (CC);                                           \
        const bool rv__vec = C > 1 && (((uintptr_t)a.dst.data | (uintptr_t)a.dst.pitch) % \
                                       (sizeof(rv__to) * C)) == 0;                  \
        for (int y0 = rv__ty0 * K; y0 < h; y0 += rv__tyn * K) {                     \
            const bool yin = y0 >= R && y0 + (K - 1) + R < h;                       \
            for (int x0 = rv__tx0 * C; x0 < w; x0 += rv__txn * C) {                 \
                if (yin && x0 >= R && x0 + (C - 1) + R < w) {                       \
                    /* interior strip: all K x C results, then all stores */      \
                    const unsigned char *rv__c0 = a.src.data + (int64_t)y0 * a.src.pitch + \
                                                  (int64_t)x0 * (int64_t)sizeof(rv__ti); \
                    rv__to o[K][C];                                                 \
                    _Pragma("unroll") for (int k = 0; k < K; k++)                   \
                        _Pragma("unroll") for (int c = 0; c < C; c++) {             \
                            rv__to v;                                               \
                            const int y = y0 + k, x = x0 + c;                       \
                            RV__NBR_CALL_C0(FN);                                    \
                            o[k][c] = v;                                            \
                        }                                                           \
                    rv__to *op = RV__ROW(rv__to, a.dst, y0) + x0;                   \
                    if (rv__vec) {                                                  \
                        _Pragma("unroll") for (int k = 0; k < K; k++) {             \
                            rv__vstore(op, o[k]);                                   \
                            op = (rv__to *)((unsigned char *)op + a.dst.pitch);     \
                        }                                                           \
                    } else {                                                        \
                        _Pragma("unroll") for (int k = 0; k < K; k++) {             \
                            _Pragma("unroll") for (int c = 0; c < C; c++) op[c] = o[k][c]; \
                            op = (rv__to *)((unsigned char *)op + a.dst.pitch);     \
                        }                                                           \
                    }                                                               \
                } else {                                                            \
                    const int y1 = RV__MIN(y0 + K, h), x1 = RV__MIN(x0 + C, w);     \
                    for (int y = y0; y < y1; y++)                                   \
                        for (int x = x0; x < x1; x++) {                             \
                            rv__to v;                                               \
                            if (y >= R && y + R < h && x >= R && x + R < w)         \
                                RV__NBR_CALL(FN, 1, 0);                             \
                            else                                                    \
                                RV__NBR_CALL(FN, 1, 1);                             \
                            RV__ROW(rv__to, a.dst, y)[x] = v;                       \
                        }                                                           \
                }                                                                   \
            }                                                                       \
        }                                                                           \
    } while (0)
/* The S = 1 strips through a shared tile (blocks of 32 x by threads, by <= 8:
 * the backend's block). A tile is the 32 * RV_GPU_NBR_COLS x by *
 * RV_GPU_NBR_ROWS outputs of one block plus the radius halo. The tiles of
 * the plane are numbered row by row and dealt to the blocks in turn (block
 * b: tiles b, b + blocks, ...; any grid is correct, the backend launches
 * at most two resident waves of blocks, so on large planes a block does
 * several tiles). Each block has two tile buffers: while it computes tile
 * n from one, the copy of its next tile into the other is in flight
 * (cp.async on sm_80+ for 4/8/16-byte samples: global -> shared without
 * registers; smaller samples are loaded into registers and stored, all of a
 * thread's loads before its first store). Per tile: wait for this thread's
 * copies, one barrier (every copy of the tile landed; every thread is done
 * with the other buffer, which the next copy overwrites), issue the next
 * tile's copy, compute and store this one. A warp copies rows warp,
 * warp + by, ... (lanes consecutive samples: coalesced), the last 2R
 * columns of every row one sample a thread; coordinates are clamped at the
 * plane's borders, so every strip of the tile, border or not, runs
 * unclamped from the tile (a clamped tile holds what clamping would read).
 * The element function reads the tile through rv_nbr (generic pointer, the
 * tile's pitch); outputs outside the plane are computed from clamped
 * samples and not stored.
 * With RV_GPU_NBR_V16 (kernel_abi.h; 4/8/16-byte samples) tiles whose rows
 * and 16-byte chunks all lie inside the plane (source base and pitch on the
 * 16-byte grid) are copied chunk by chunk instead (16-byte cp.async, or
 * with RV_GPU_NBR_BULK one bulk copy a row completed through an mbarrier);
 * the tile's column 0 then sits RV__NBR_SH samples left of the halo, on the
 * chunk grid, for every tile (docs/perf/cuda-tuning.md, round 8). */
#ifndef RV_GPU_NBR_TILE
#define RV_GPU_NBR_TILE 1 /* 0: strips read global memory directly (A/B builds) */
#endif
#ifndef RV_GPU_NBR_MINB
#define RV_GPU_NBR_MINB 4 /* __launch_bounds__ blocks of 256 a multiprocessor (64 registers) */
#endif
#ifndef RV_GPU_NBR_ASYNC
#define RV_GPU_NBR_ASYNC 1 /* 0: tile copies through registers (A/B builds) */
#endif
/* RV_GPU_NBR_V16 (kernel_abi.h): interior tiles by 16-byte copies */
#ifndef RV_GPU_NBR_CG
#define RV_GPU_NBR_CG 0 /* 1: 16-byte tile copies bypass L1 (cp.async.cg; measured slower, round 8) */
#endif
#define RV__NBR_TILE_ROWS(R, K) (8 * (K) + 2 * (R))
/* 16-byte tile copies (RV_GPU_NBR_V16, 4/8/16-byte samples): a tile row is
 * copied as whole 16-byte chunks of the source row, so the tile's column 0
 * is the sample RV__NBR_SH samples left of the halo's first column (the
 * chunk boundary below it; the tile's x origin is a multiple of 32 * COLS
 * samples), and a row holds RV__NBR_NCH chunks of RV__NBR_V samples. */
#define RV__NBR_V16OK(SZ) (RV_GPU_NBR_V16 && ((SZ) == 4 || (SZ) == 8 || (SZ) == 16))
#define RV__NBR_V(SZ) (RV__NBR_V16OK(SZ) ? 16 / (SZ) : 1)
#define RV__NBR_SH(R, SZ) ((RV__NBR_V(SZ) - (R) % RV__NBR_V(SZ)) % RV__NBR_V(SZ))
#define RV__NBR_NCH(R, SZ, C) \
    ((32 * (C) + 2 * (R) + RV__NBR_SH(R, SZ) + RV__NBR_V(SZ) - 1) / RV__NBR_V(SZ))
/* tile row pitch in samples: a multiple of RV_GPU_NBR_COLS, so that every
 * strip's left neighbour column starts on the same alignment in every row
 * (and of the chunk size with 16-byte copies: rows on the 16-byte grid) */
#define RV__NBR_PQ(SZ, C) (RV__NBR_V(SZ) > (C) ? RV__NBR_V(SZ) : (C))
#define RV__NBR_TILE_PITCH(R, SZ, C) \
    ((32 * (C) + 2 * (R) + RV__NBR_SH(R, SZ) + RV__NBR_PQ(SZ, C) - 1) / RV__NBR_PQ(SZ, C) * RV__NBR_PQ(SZ, C))
/* samples in one buffer: the tile, rounded up to 16 bytes (both aligned) */
#define RV__NBR_TILE_BUF(R, SZ, K, C) \
    ((RV__NBR_TILE_ROWS(R, K) * RV__NBR_TILE_PITCH(R, SZ, C) * (SZ) + 15) / 16 * 16 / (SZ))
#define RV__NBR_TILE_MAXB 24576 /* per buffer (two: <= 48 KiB of static shared memory);
                                   larger tiles (radius, sample size): no tile path */
/* Asynchronous global -> shared copies (sm_80+ cp.async; a plain copy
 * before). gpu_emu defines its own (RV__EMU_CP_ASYNC): copies that land
 * only at the wait, or at once. */
#ifndef RV__EMU_CP_ASYNC
template <int N>
static __device__ __forceinline__ void rv__cp_async(void *sdst, const void *gsrc)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (N == 16 && RV_GPU_NBR_CG) /* 16 bytes: through L2 only (.cg) */
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(sdst)),
                     "l"(gsrc)
                     : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(sdst)),
                     "l"(gsrc), "n"(N)
                     : "memory");
#else
    typedef typename rv__bits<N>::t U;
    *(U *)sdst = *(const U *)gsrc;
#endif
}
static __device__ __forceinline__ void rv__cp_commit(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
static __device__ __forceinline__ void rv__cp_wait_all(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}
/* Bulk copies (sm_90 cp.async.bulk, the TMA unit, RV_GPU_NBR_BULK): one
 * thread copies a whole tile row; completion through an mbarrier that
 * expects the tile's bytes. Without sm_90 (host pass) plain copies. */
static __device__ __forceinline__ void rv__mbar_init(unsigned long long *bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n"
                 "fence.mbarrier_init.release.cluster;\n"
                 "fence.proxy.async.shared::cta;\n" ::"r"((unsigned)__cvta_generic_to_shared(bar))
                 : "memory");
#else
    *bar = 0;
#endif
}
static __device__ __forceinline__ void rv__mbar_expect(unsigned long long *bar, unsigned bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(bar)),
                 "r"(bytes)
                 : "memory");
#else
    (void)bar;
    (void)bytes;
#endif
}
static __device__ __forceinline__ void rv__bulk_copy(void *sdst, const void *gsrc, unsigned bytes,
                                                     unsigned long long *bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(sdst)),
                 "l"(gsrc), "r"(bytes), "r"((unsigned)__cvta_generic_to_shared(bar))
                 : "memory");
#else
    (void)bar;
    for (unsigned i = 0; i < bytes; i++)
        ((unsigned char *)sdst)[i] = ((const unsigned char *)gsrc)[i];
#endif
}
static __device__ __forceinline__ void rv__mbar_wait(unsigned long long *bar, unsigned parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("{\n.reg .pred p;\nRV_MBAR_WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra RV_MBAR_WAIT;\n}\n" ::"r"((unsigned)__cvta_generic_to_shared(bar)),
                 "r"(parity)
                 : "memory");
#else
    (void)bar;
    (void)parity;
#endif
}
#endif
#ifndef RV_GPU_NBR_BULK
#define RV_GPU_NBR_BULK 0 /* 1: interior tiles by bulk copies (needs RV_GPU_NBR_V16, sm_90) */
#endif
/* Copies the tile at column TX, row TY of tiles into buffer BUF. */
#define RV__NBR_TILE_LOAD(TX, TY, BUF, BI)                                          \
    do {                                                                            \
        const int LX0 = (TX) * TW, LY0 = (TY) * TH;                                   \
        if constexpr (RV__NBR_V16OK(sizeof(rv__ti))) {                              \
            /* the tile's rows and chunks all inside the plane: 16-byte copies */ \
            if (rv__a16 && rv__rp > 0 && LX0 - R - SH >= 0 && LX0 - R - SH + NCH * VV <= w &&    \
                LY0 >= R && LY0 + TH + R <= h) {                                    \
                const unsigned char *const rv__g0 = a.src.data +                    \
                    (int64_t)(LY0 - R) * a.src.pitch + (int64_t)(LX0 - R - SH) * (int64_t)sizeof(rv__ti); \
                if constexpr (RV_GPU_NBR_BULK) {                                    \
                    /* a row a thread: NCH chunks by one bulk copy; the     */    \
                    /* buffer's barrier expects the tile's bytes            */    \
                    if (tid == 0)                                                   \
                        rv__mbar_expect(&rv__bar[(BI)], (unsigned)(TR * NCH * 16)); \
                    /* (rows dealt over the warps: a warp issues its lanes' */ \
                    /* copies one after another) */                             \
                    for (int er = warp + lane * nw; er < TR; er += nt)              \
                        rv__bulk_copy((BUF) + er * TP, rv__g0 + (int64_t)er * a.src.pitch, \
                                      (unsigned)(NCH * 16), &rv__bar[(BI)]);        \
                    rv__bulkb |= 1u << (BI);                                        \
                } else                                                              \
                /* thread tid: chunk tid % NCH of rows tid / NCH + i * rp */  \
                if (tid < rv__rp * NCH) {                                           \
                    const unsigned char *rv__g = rv__g0 + rv__goff;                 \
                    rv__ti *rv__d = (BUF) + rv__soff;                               \
                    _Pragma("unroll 4") for (int er = rv__er0; er < TR; er += rv__rp) { \
                        rv__cp_async<16>(rv__d, rv__g);                             \
                        rv__g += rv__gst;                                           \
                        rv__d += rv__rp * TP;                                       \
                    }                                                               \
                }                                                                   \
                break;                                                              \
            }                                                                       \
        }                                                                           \
        rv__ti *const rv__sb = (BUF) + SH;                                          \
        const rv__ti *rv__gp[C];                                                    \
        rv__ti v[RB][C], ve[EB];                                                    \
        (void)v; (void)ve;                                                          \
        _Pragma("unroll") for (int j = 0; j < C; j++) {                             \
            int gx = LX0 - R + lane + 32 * j;                                        \
            gx = gx < 0 ? 0 : gx >= w ? w - 1 : gx;                                 \
            rv__gp[j] = (const rv__ti *)(const void *)a.src.data + gx;              \
        }                                                                           \
        if (LY0 >= R && LY0 + TH + R <= h) {                                          \
            /* no row clamping: one row offset, stepped by nw rows */               \
            const int64_t st = (int64_t)nw * a.src.pitch;                           \
            int64_t ro = (int64_t)(LY0 - R + warp) * a.src.pitch;                    \
            _Pragma("unroll") for (int q = 0; q < RB; q++) {                        \
                const int rr = warp + q * nw;                                       \
                _Pragma("unroll") for (int j = 0; j < C; j++) {                     \
                    const rv__ti *rv__s = (const rv__ti *)(const void *)((const unsigned char *)rv__gp[j] + ro); \
                    if (q < K || rr < TR) { /* rows q < K always are */             \
                        if constexpr (rv__async)                                    \
                            rv__cp_async<(int)sizeof(rv__ti)>(rv__sb + rr * TP + lane + 32 * j, rv__s); \
                        else                                                        \
                            v[q][j] = *rv__s;                                       \
                    }                                                               \
                }                                                                   \
                ro += st;                                                           \
            }                                                                       \
        } else {                                                                    \
            _Pragma("unroll") for (int q = 0; q < RB; q++) {                        \
                const int rr = warp + q * nw;                                       \
                int gy = LY0 - R + RV__MIN(rr, TR - 1);                              \
                gy = gy < 0 ? 0 : gy >= h ? h - 1 : gy;                             \
                const int64_t ro = (int64_t)gy * a.src.pitch;                       \
                _Pragma("unroll") for (int j = 0; j < C; j++) {                     \
                    const rv__ti *rv__s = (const rv__ti *)(const void *)((const unsigned char *)rv__gp[j] + ro); \
                    if (q < K || rr < TR) { /* rows q < K always are */             \
                        if constexpr (rv__async)                                    \
                            rv__cp_async<(int)sizeof(rv__ti)>(rv__sb + rr * TP + lane + 32 * j, rv__s); \
                        else                                                        \
                            v[q][j] = *rv__s;                                       \
                    }                                                               \
                }                                                                   \
            }                                                                       \
        }                                                                           \
        _Pragma("unroll") for (int u = 0; u < EB; u++) {                            \
            const int e = tid + u * nt;                                             \
            if (R > 0 && e < TR * 2 * R) {                                          \
                const int er = e / (2 * R + (R == 0)), ec = TW + e % (2 * R + (R == 0)); \
                int gx = LX0 - R + ec, gy = LY0 - R + er;                             \
                gx = gx < 0 ? 0 : gx >= w ? w - 1 : gx;                             \
                gy = gy < 0 ? 0 : gy >= h ? h - 1 : gy;                             \
                const rv__ti *rv__s = RV__ROW(const rv__ti, a.src, gy) + gx;        \
                if constexpr (rv__async)                                            \
                    rv__cp_async<(int)sizeof(rv__ti)>(rv__sb + er * TP + ec, rv__s); \
                else                                                                \
                    ve[u] = *rv__s;                                                 \
            }                                                                       \
        }                                                                           \
        if constexpr (!rv__async) {                                                 \
            _Pragma("unroll") for (int q = 0; q < RB; q++) {                        \
                const int rr = warp + q * nw;                                       \
                _Pragma("unroll") for (int j = 0; j < C; j++)                       \
                    if (q < K || rr < TR)                                           \
                        rv__sb[rr * TP + lane + 32 * j] = v[q][j];                  \
            }                                                                       \
            _Pragma("unroll") for (int u = 0; u < EB; u++) {                        \
                const int e = tid + u * nt;                                         \
                if (R > 0 && e < TR * 2 * R)                                        \
                    rv__sb[e / (2 * R + (R == 0)) * TP + TW + e % (2 * R + (R == 0))] = ve[u]; \
            }                                                                       \
        }                                                                           \
    } while (0)
#define RV__NBR_TILE(FN, KK, CC)                                                    \
    do {                                                                            \
        constexpr int K = (KK), C = (CC);                                           \
        constexpr int TW = 32 * C, TP = RV__NBR_TILE_PITCH(R, (int)sizeof(rv__ti), C); \
        constexpr int TSZ = RV__NBR_TILE_BUF(R, (int)sizeof(rv__ti), K, C); /* one buffer */ \
        /* 16-byte copies: chunk samples, left shift, chunks a row, chunks */   \
        /* a thread at most (blocks of one warp) */                             \
        constexpr int VV = RV__NBR_V(sizeof(rv__ti)), SH = RV__NBR_SH(R, sizeof(rv__ti)); \
        constexpr int NCH = RV__NBR_NCH(R, sizeof(rv__ti), C);                      \
        (void)VV; (void)NCH;                                                        \
        /* a warp copies at most RB rows (by >= 1), each thread at most EB */       \
        /* of the right-hand halo samples */                                        \
        constexpr int RB = K + 2 * R, EB = ((K + 2 * R) * 2 * R + 31) / 32 + (R == 0); \
        constexpr bool rv__async = RV_GPU_NBR_ASYNC && (sizeof(rv__ti) == 4 ||      \
                                   sizeof(rv__ti) == 8 || sizeof(rv__ti) == 16);    \
        const int TH = (int)blockDim.y * K, TR = TH + 2 * R;                        \
        const int nw = (int)blockDim.y, warp = (int)threadIdx.y, lane = (int)threadIdx.x; \
        const int nt = 32 * nw, tid = warp * 32 + lane;                             \
        const bool rv__a16 = (((uintptr_t)a.src.data | (uintptr_t)a.src.pitch) % 16) == 0; \
        /* 16-byte copies: tile rows a pass (>= 1: NCH <= 32 * by), this  */     \
        /* thread's first row and chunk, its offsets from the tile's first */    \
        /* chunk in the source and in a buffer, the source step a pass     */    \
        const int rv__rp = nt / NCH, rv__er0 = tid / NCH, rv__ec = tid - rv__er0 * NCH; \
        const int64_t rv__goff = (int64_t)rv__er0 * a.src.pitch + rv__ec * 16;     \
        const int64_t rv__gst = (int64_t)rv__rp * a.src.pitch;                      \
        const int rv__soff = rv__er0 * TP + rv__ec * VV;                            \
        (void)rv__a16; (void)rv__goff; (void)rv__gst; (void)rv__soff;              \
        /* tile t = ty * ntx + tx; block b runs t = b, b + nb, ...: (tx, ty) */  \
        /* stepped by (dx, dy) = (nb % ntx, nb / ntx) with a carry, no       */  \
        /* division a tile (tile counts fit an int: 2^31 tiles would be 2^40 */  \
        /* samples)                                                         */  \
        const int ntx = (w + TW - 1) / TW, nty = (h + TH - 1) / TH;                 \
        const int nb = (int)(gridDim.x * gridDim.y);                                \
        const int rv__b = (int)(blockIdx.y * gridDim.x + blockIdx.x);               \
        const int dx = nb % ntx, dy = nb / ntx;                                     \
        int tx = rv__b % ntx, ty = rv__b / ntx;                                     \
        const bool rv__vec = C > 1 && (((uintptr_t)a.dst.data | (uintptr_t)a.dst.pitch) % \
                                       (sizeof(rv__to) * C)) == 0;                  \
        unsigned rv__bulkb = 0, rv__par = 0; /* buffers with bulk copies; phases */ \
        (void)rv__par;                                                              \
        if (RV_GPU_NBR_BULK) {                                                      \
            if (tid == 0) {                                                         \
                rv__mbar_init(&rv__bar[0]);                                         \
                rv__mbar_init(&rv__bar[1]);                                         \
            }                                                                       \
            __syncthreads();                                                        \
        }                                                                           \
        if (ty < nty)                                                               \
            RV__NBR_TILE_LOAD(tx, ty, rv__tile, 0);                                 \
        rv__cp_commit();                                                            \
        for (int rv__it = 0; ty < nty; rv__it ^= 1) {                               \
            const int X0 = tx * TW, Y0 = ty * TH;                                   \
            tx += dx;                                                               \
            ty += dy;                                                               \
            if (tx >= ntx) {                                                        \
                tx -= ntx;                                                          \
                ty++;                                                               \
            }                                                                       \
            rv__cp_wait_all(); /* this thread's copies of tile t landed */          \
            if (RV_GPU_NBR_BULK && (rv__bulkb >> rv__it & 1u)) {                    \
                /* its bulk copies: the buffer's barrier, this phase */            \
                rv__mbar_wait(&rv__bar[rv__it], rv__par >> rv__it & 1u);             \
                rv__par ^= 1u << rv__it;                                            \
                rv__bulkb &= ~(1u << rv__it);                                       \
            }                                                                       \
            __syncthreads();   /* everyone's; and the other buffer is free */       \
            /* (both buffers are 16-byte aligned; told so, the strips read  */   \
            /* neighbour pairs with one 8-byte shared load)                 */   \
            const rv__ti *const rv__cur = (const rv__ti *)__builtin_assume_aligned( \
                rv__tile + rv__it * TSZ, 16);                                       \
            if (ty < nty) /* (tx, ty) is the next tile now */                        \
                RV__NBR_TILE_LOAD(tx, ty, rv__tile + (rv__it ^ 1) * TSZ, rv__it ^ 1); \
            rv__cp_commit();                                                        \
            const int x0 = X0 + lane * C, y0 = Y0 + warp * K;                       \
            const unsigned char *rv__c0 = (const unsigned char *)(rv__cur +         \
                (warp * K + R) * TP + lane * C + R + SH);                           \
            rv__to o[K][C];                                                         \
            _Pragma("unroll") for (int k = 0; k < K; k++)                           \
                _Pragma("unroll") for (int cc = 0; cc < C; cc++) {                  \
                    const rv_nbr nbr = {rv__c0, (int64_t)(TP * sizeof(rv__ti)),     \
                                        x0 + cc, y0 + k, w, h, 1, 0, x0, y0};       \
                    o[k][cc] = FN(nbr, prm);                                        \
                }                                                                   \
            if (x0 + C <= w && y0 + K <= h) {                                       \
                rv__to *op = RV__ROW(rv__to, a.dst, y0) + x0;                       \
                _Pragma("unroll") for (int k = 0; k < K; k++) {                     \
                    if (rv__vec)                                                    \
                        rv__vstore(op, o[k]);                                       \
                    else                                                            \
                        _Pragma("unroll") for (int cc = 0; cc < C; cc++)            \
                            op[cc] = o[k][cc];                                      \
                    op = (rv__to *)((unsigned char *)op + a.dst.pitch);             \
                }                                                                   \
            } else {                                                                \
                _Pragma("unroll") for (int k = 0; k < K; k++)                       \
                    _Pragma("unroll") for (int cc = 0; cc < C; cc++)                \
                        if (y0 + k < h && x0 + cc < w)                              \
                            RV__ROW(rv__to, a.dst, y0 + k)[x0 + cc] = o[k][cc];     \
            }                                                                       \
        }                                                                           \
    } while (0)
#define RV__NBR_ENTRY(SYM, FN, TIN, TOUT, RADIUS, PT, MINB, TK, TC)                 \
    extern "C" __global__ void __launch_bounds__(256, MINB)                         \
    SYM(const RV__GRID_CONST rv_args a)                                             \
    {                                                                               \
        RV__GRID_CHAIN_SYM(SYM)                                                     \
        typedef RV_T_##TIN rv__ti;                                                  \
        typedef RV_T_##TOUT rv__to;                                                 \
        const PT *prm = (const PT *)(const void *)a.params;                         \
        const int w = a.src.w, h = a.src.h, s = a.s;                                \
        RV__GPU_GRID;                                                               \
        constexpr int R = (RADIUS);                                                 \
        constexpr bool rv__tok = RV__NBR_TILE_BUF(R, (int)sizeof(rv__ti), TK, TC) *        \
                                 (int)sizeof(rv__ti) <= RV__NBR_TILE_MAXB;          \
        __shared__ __align__(16) rv__ti /* two tile buffers */                      \
            rv__tile[rv__tok ? 2 * RV__NBR_TILE_BUF(R, (int)sizeof(rv__ti), TK, TC) : 1];   \
        __shared__ __align__(8) unsigned long long rv__bar[RV_GPU_NBR_BULK ? 2 : 1]; \
        (void)rv__bar;                                                              \
        if (s == 1) {                                                               \
            if (rv__txn >= w && (long long)rv__tyn * RV_GPU_NBR_ROWS_SMALL >= h)   \
                RV__NBR_STRIPS(FN, RV_GPU_NBR_ROWS_SMALL, 1);                       \
            else if (rv__tok && RV_GPU_NBR_TILE && blockDim.x == 32 && blockDim.y <= 8) \
                RV__NBR_TILE(FN, TK, TC);                                           \
            else                                                                    \
                RV__NBR_STRIPS(FN, RV_GPU_NBR_ROWS, RV_GPU_NBR_COLS);               \
            return;                                                                 \
        }                                                                           \
        const int Rs = (RADIUS) * s;                                                \
        const int rows = (h + s - 1) / s, cols = (w + s - 1) / s;                   \
        const bool rv__fal = RV__ALIGNED16(a.dst);                                  \
        for (int j = rv__ty0; j < rows; j += rv__tyn) {                             \
            const int y = j * s;                                                    \
            const bool yin = y >= Rs && y + Rs < h;                                 \
            for (int i = rv__tx0; i < cols; i += rv__txn) {                         \
                const int x = i * s;                                                \
                rv__to v;                                                           \
                if (yin && x >= Rs && x + Rs < w)                                   \
                    RV__NBR_CALL(FN, s, 0);                                         \
                else                                                                \
                    RV__NBR_CALL(FN, s, 1);                                         \
                rv__fill_block<rv__to>(a.dst, x, y, s, v, rv__fal);                 \
            }                                                                       \
        }                                                                           \
    }

/* The procNbr entry rvk_NAME (strips of RV_GPU_NBR_ROWS x RV_GPU_NBR_COLS,
 * RV_GPU_NBR_MINB blocks a multiprocessor) and, with RV_GPU_NBR_WIDE, a
 * second entry rvkw_NAME of the same element function for large planes:
 * tiles of strips of RV_GPU_NBR_WIDE_ROWS x RV_GPU_NBR_WIDE_COLS (4 x 4:
 * 128 x 32 outputs a block of 8 warps; the strip's 4 centre samples of a
 * row are one 16-byte shared load) and RV_GPU_NBR_WIDE_MINB blocks a
 * multiprocessor (3: up to 80 registers; 4 bytes of spills in emboss). The
 * CUDA backend launches rvkw_ at S = 1 when the plane has at least
 * RV_GPU_NBR_WIDE_WAVES resident waves of its tiles, one wave of blocks
 * looping over them (docs/perf/cuda-tuning.md, round 10: H200, 4K emboss
 * 0.0224 against 0.0241 ms, edge 0.0236 against 0.0251; at 1080p slower,
 * 1.3 waves). Both entries compute the same outputs. */
#ifndef RV_GPU_NBR_WIDE
#define RV_GPU_NBR_WIDE 1
#endif
/* (RV_GPU_NBR_WIDE_ROWS, _COLS, _WAVES: kernel_abi.h) */
#ifndef RV_GPU_NBR_WIDE_MINB
#define RV_GPU_NBR_WIDE_MINB 3
#endif
#if RV_GPU_NBR_WIDE
#define RV__NBR_WIDE_ENTRY(NAME, FN, TIN, TOUT, RADIUS, PT)                         \
    RV__NBR_ENTRY(rvkw_##NAME, FN, TIN, TOUT, RADIUS, PT, RV_GPU_NBR_WIDE_MINB,     \
                  RV_GPU_NBR_WIDE_ROWS, RV_GPU_NBR_WIDE_COLS)
#else
#define RV__NBR_WIDE_ENTRY(NAME, FN, TIN, TOUT, RADIUS, PT)
#endif
#define RV_PROC_NBR(NAME, FN, TIN, TOUT, RADIUS, PT)                                \
    RV__DESC(NAME, RV_OP_NBR, TIN, none, TOUT, RADIUS, RV__PSIZE(PT), 0)            \
    RV__NBR_WIDE_ENTRY(NAME, FN, TIN, TOUT, RADIUS, PT)                             \
    RV__NBR_ENTRY(rvk_##NAME, FN, TIN, TOUT, RADIUS, PT, RV_GPU_NBR_MINB,           \
                  RV_GPU_NBR_ROWS, RV_GPU_NBR_COLS)

/* ---- procBox reductions ---------------------------------------------------- */
/* (score, y, x) order: a total order, so the combination is associative and  */
/* commutative and ties go to the smallest (y, x) whatever the tree shape.    */
static __device__ __forceinline__ void rv__red_comb(rv_partial &b, const rv_partial &q, int red)
{
    if (!q.valid)
        return;
    if (red == RV_REDUCE_SUM) {
        b.score += q.score;
        b.isum += q.isum;
        b.valid = 1;
    } else if (!b.valid || (red == RV_REDUCE_MIN ? q.score < b.score : q.score > b.score) ||
               (q.score == b.score && (q.y < b.y || (q.y == b.y && q.x < b.x)))) {
        b = q;
    }
}

static __device__ __forceinline__ rv_partial rv__red_none(void)
{
    rv_partial p;
    p.score = 0.0;
    p.isum = 0;
    p.x = 0;
    p.y = 0;
    p.valid = 0;
    p.pad_ = 0;
    return p;
}

static __device__ __forceinline__ void rv__warp_reduce(rv_partial &p, int red)
{
    _Pragma("unroll") for (int off = 16; off > 0; off >>= 1) {
        rv_partial q;
        q.score = __shfl_down_sync(0xffffffffu, p.score, off);
        q.isum = (int64_t)__shfl_down_sync(0xffffffffu, (long long)p.isum, off);
        q.x = __shfl_down_sync(0xffffffffu, p.x, off);
        q.y = __shfl_down_sync(0xffffffffu, p.y, off);
        q.valid = __shfl_down_sync(0xffffffffu, p.valid, off);
        q.pad_ = 0;
        rv__red_comb(p, q, red);
    }
}

/* Shared state of a block reduction: one slot per warp, one array per field
 * (consecutive lanes read consecutive words: no bank conflicts). */
typedef struct rv__red_smem {
    double score[32];
    long long isum[32];
    int x[32], y[32], valid[32];
    int last;
} rv__red_smem;

/* Reduces one partial per thread (block size a multiple of 32, at most
 * 1024): shuffles within each warp, then warp 0 over the warps' results.
 * The result is in thread 0. */
static __device__ __forceinline__ rv_partial rv__block_reduce(rv_partial p, int red, rv__red_smem &sm)
{
    const int tid = (int)(threadIdx.y * blockDim.x + threadIdx.x);
    const int lane = tid & 31, warp = tid >> 5;
    const int nw = (int)((blockDim.x * blockDim.y + 31) / 32);
    rv__warp_reduce(p, red);
    if (lane == 0) {
        sm.score[warp] = p.score;
        sm.isum[warp] = (long long)p.isum;
        sm.x[warp] = p.x;
        sm.y[warp] = p.y;
        sm.valid[warp] = p.valid;
    }
    __syncthreads();
    if (warp == 0) {
        p = rv__red_none();
        if (lane < nw) {
            p.score = sm.score[lane];
            p.isum = (int64_t)sm.isum[lane];
            p.x = sm.x[lane];
            p.y = sm.y[lane];
            p.valid = sm.valid[lane];
        }
        rv__warp_reduce(p, red);
    }
    return p;
}

/* The block's partial goes to scratch; the last block combines them all. */
static __device__ __forceinline__ void rv__box_finish(rv_partial p, int red, uint64_t scratch)
{
    __shared__ rv__red_smem sm;
    const int tid = (int)(threadIdx.y * blockDim.x + threadIdx.x);
    const int nt = (int)(blockDim.x * blockDim.y);
    const unsigned nb = gridDim.x * gridDim.y;
    rv_partial *parts = (rv_partial *)(uintptr_t)(scratch + 64);
    unsigned *counter = (unsigned *)(uintptr_t)scratch;
    p = rv__block_reduce(p, red, sm);
    if (tid == 0) {
        parts[blockIdx.y * gridDim.x + blockIdx.x] = p;
        __threadfence();
        sm.last = atomicAdd(counter, 1u) == nb - 1;
    }
    __syncthreads();
    if (!sm.last)
        return;
    __threadfence();
    rv_partial q = rv__red_none();
    for (unsigned b = (unsigned)tid; b < nb; b += (unsigned)nt) {
        const rv_partial *pp = parts + b;
        rv_partial r;
        r.score = __ldcg(&pp->score);
        r.isum = (int64_t)__ldcg((const long long *)&pp->isum);
        r.x = __ldcg(&pp->x);
        r.y = __ldcg(&pp->y);
        r.valid = __ldcg(&pp->valid);
        r.pad_ = 0;
        rv__red_comb(q, r, red);
    }
    q = rv__block_reduce(q, red, sm);
    if (tid == 0) {
        *(rv_partial *)(uintptr_t)(scratch + 16) = q;
        /* the backend's page-locked, mapped copy of the result (its device
         * address at offset RV_BOX_SCRATCH_HOST; 0: none): the host reads
         * it after the stream synchronises, without a copy */
        const unsigned long long hp = *(const volatile unsigned long long *)(uintptr_t)(scratch + RV_BOX_SCRATCH_HOST);
        if (hp) {
            volatile rv_partial *h = (volatile rv_partial *)(uintptr_t)hp;
            h->score = q.score;
            h->isum = q.isum;
            h->x = q.x;
            h->y = q.y;
            h->pad_ = 0;
            h->valid = q.valid;
            __threadfence_system();
        }
        *counter = 0;
    }
}

/* Copies the reference image (template) to shared memory, rows padded to
 * tp bytes. Threads in groups of up to 32 along a row (coalesced), the
 * groups on rows g, g + ng, ...; each thread issues the loads of up to 8
 * rows before their stores (one memory wait per 8 samples, not per sample:
 * with few blocks a multiprocessor every block copies at its start). Any
 * block size. */
template <typename T>
static __device__ __forceinline__ void rv__box_ref_copy(unsigned char *dst, int tp, const rv_plane &src,
                                                        int bw, int bh, int tid, int nt)
{
    const int gw = nt < 32 ? nt : 32, ng = nt / gw;
    const int g = tid / gw, c0 = tid - g * gw;
    if (g >= ng)
        return;
    for (int r = g; r < bh; r += 8 * ng)
        for (int c = c0; c < bw; c += gw) {
            T v[8];
            _Pragma("unroll") for (int u = 0; u < 8; u++) {
                const int rr = r + u * ng;
                if (rr < bh)
                    v[u] = ((const T *)(src.data + (int64_t)rr * src.pitch))[c];
            }
            _Pragma("unroll") for (int u = 0; u < 8; u++) {
                const int rr = r + u * ng;
                if (rr < bh)
                    ((T *)(void *)(dst + (int64_t)rr * tp))[c] = v[u];
            }
        }
}

/* Entry set-up shared by RV_PROC_BOX and RV_PROC_BOXN: parameters, window
 * counts, the window template `win`, and the template copy to shared memory
 * (rv__tsm) when the backend gave enough dynamic shared memory for it. */
#define RV__BOX_GPU_HEAD(TREF, PT)                                                  \
    extern __shared__ __align__(16) unsigned char rv__dyn[];                        \
    typedef RV_T_##TREF rv__tr;                                                     \
    const PT *prm = (const PT *)(const void *)a.params;                             \
    const int s = a.s, red = a.reduce;                                              \
    const int cols = (a.src.w - a.box_w) / s + 1;                                   \
    const int rows = (a.src.h - a.box_h) / s + 1;                                   \
    const int tid = (int)(threadIdx.y * blockDim.x + threadIdx.x);                  \
    const int nt = (int)(blockDim.x * blockDim.y);                                  \
    rv_win win = {a.src.data, a.src.pitch, a.src2.data, a.src2.pitch, 0, 0,         \
                  (a.box_w + s - 1) / s, (a.box_h + s - 1) / s, s, 1};              \
    unsigned rv__dsz;                                                               \
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(rv__dsz));                        \
    /* shared template rows padded to 16 bytes (RV_GPU_BOX_REF_PITCH): the */       \
    /* compiler sees the alignment and reads it 16 bytes at a time        */        \
    const int rv__tp = RV_GPU_BOX_REF_PITCH(a.box_w, (int)sizeof(rv__tr));          \
    const long long rv__tb = (long long)rv__tp * a.box_h;                           \
    const bool rv__tsm = a.src2.data && rv__tb > 0 && rv__tb <= (long long)rv__dsz; \
    if (rv__tsm) {                                                                  \
        rv__box_ref_copy<rv__tr>(rv__dyn, rv__tp, a.src2, a.box_w, a.box_h, tid, nt); \
        __syncthreads();                                                            \
        win.ref = rv__dyn;                                                          \
        win.ref_pitch = rv__tp;                                                     \
    }                                                                               \
    rv_partial p = rv__red_none();

/* One window's score v at (x, y) into the thread's partial. */
#define RV__BOX_GPU_TAKE(TSCORE, v, vx, vy)                                           \
    do {                                                                            \
        if (red == RV_REDUCE_NONE) {                                                \
            RV__FILL_BLOCK(float, a.dst, (vx), (vy), s, (float)(v));                  \
        } else if (red == RV_REDUCE_SUM) {                                          \
            if (RV_ETC_##TSCORE == RV_ET_I32) p.isum += (int64_t)(v);               \
            else p.score += (double)(v);                                            \
            p.valid = 1;                                                            \
        } else {                                                                    \
            rv_partial c = rv__red_none();                                          \
            c.score = (double)(v); c.x = (vx); c.y = (vy); c.valid = 1;               \
            rv__red_comb(p, c, red);                                                \
        }                                                                           \
    } while (0)

/* Calls FN(w, prm ARGS) with the window template made constant where it
 * can be: S = 1 and the template read straight from the shared array (the
 * compiler sees its address space: LDS), S = 1 (unit-stride loops), or any S. */
#define RV__BOX_GPU_CALL(FN, ARGS)                                                  \
    do {                                                                            \
        if (s == 1 && rv__tsm) {                                                    \
            const rv_win w1 = {win.base, win.pitch, rv__dyn, (int64_t)rv__tp,       \
                               win.x, win.y, win.w, win.h, 1, win.n};               \
            FN(w1, prm ARGS);                                                       \
        } else if (s == 1) {                                                        \
            const rv_win w1 = {win.base, win.pitch, win.ref, win.ref_pitch,         \
                               win.x, win.y, win.w, win.h, 1, win.n};               \
            FN(w1, prm ARGS);                                                       \
        } else {                                                                    \
            FN(win, prm ARGS);                                                      \
        }                                                                           \
    } while (0)
#define RV__BOX_ARGS_NONE
#define RV__BOX_ARGS_SC , rv__sc

/* procBox: window positions x = i*S <= W - box_w (same for y), numbered
 * row by row and dealt to the threads in order (full warps, coalesced rows,
 * even load when there are few windows). The reference image (template) is
 * first copied to shared memory when the backend gave enough dynamic shared
 * memory for it. Each thread keeps its own partial; then the block and the
 * grid reduce (rv__box_finish). Block: 1D, a multiple of 32 threads. */
#define RV__BOX_BLOCK 256
#define RV_PROC_BOX(NAME, FN, TIN, TREF, TSCORE, PT)                                \
    RV__DESC(NAME, RV_OP_BOX, TIN, TREF, TSCORE, 0, RV__PSIZE(PT), 0)               \
    RV_FN RV_T_##TSCORE rvk_##NAME##__one(rv_win w, const PT *prm, RV_T_##TSCORE *o) \
    {                                                                               \
        return *o = FN(w, prm);                                                     \
    }                                                                               \
    extern "C" __global__ void __launch_bounds__(RV__BOX_BLOCK)                     \
    rvk_##NAME(const RV__GRID_CONST rv_args a)                                      \
    {                                                                               \
        RV__GRID_CHAIN(NAME)                                                        \
        RV__BOX_GPU_HEAD(TREF, PT)                                                  \
        const long long npos = (long long)rows * cols;                              \
        const long long p0 = (long long)(blockIdx.y * gridDim.x + blockIdx.x) * nt + tid; \
        const long long pn = (long long)gridDim.x * gridDim.y * nt;                 \
        int i = (int)(p0 % cols), j = (int)(p0 / cols);                             \
        const int di = (int)(pn % cols), dj = (int)(pn / cols);                     \
        for (long long q = p0; q < npos; q += pn) {                                 \
            win.x = i * s;                                                          \
            win.y = j * s;                                                          \
            RV_T_##TSCORE rv__sc[1];                                                \
            RV__BOX_GPU_CALL(rvk_##NAME##__one, RV__BOX_ARGS_SC);                   \
            RV__BOX_GPU_TAKE(TSCORE, rv__sc[0], win.x, win.y);                      \
            i += di;                                                                \
            j += dj;                                                                \
            if (i >= cols) { i -= cols; j++; }                                      \
        }                                                                           \
        if (red != RV_REDUCE_NONE)                                                  \
            rv__box_finish(p, red, a.scratch);                                      \
    }

/* procBox, RV_BOXN adjacent windows a thread (RV_PROC_BOXN): the groups of
 * a row (RV__BOXN_GROUP: the last one moved left to end at the row's last
 * window) numbered row by row and dealt to the threads in order; the backend
 * sizes the grid by groups (desc flags). */
#define RV_PROC_BOXN_G(NAME, FN, TIN, TREF, TSCORE, PT, G)                          \
    RV__DESC_BOXN(NAME, TIN, TREF, TSCORE, RV__PSIZE(PT), G)                        \
    extern "C" __global__ void __launch_bounds__(RV__BOX_BLOCK)                     \
    rvk_##NAME(const RV__GRID_CONST rv_args a)                                      \
    {                                                                               \
        RV__GRID_CHAIN(NAME)                                                        \
        RV__BOX_GPU_HEAD(TREF, PT)                                                  \
        const int gcols = (cols + (G) - 1) / (G);                                   \
        const long long npos = (long long)rows * gcols;                             \
        const long long p0 = (long long)(blockIdx.y * gridDim.x + blockIdx.x) * nt + tid; \
        const long long pn = (long long)gridDim.x * gridDim.y * nt;                 \
        int i = (int)(p0 % gcols), j = (int)(p0 / gcols);                           \
        const int di = (int)(pn % gcols), dj = (int)(pn / gcols);                   \
        for (long long q = p0; q < npos; q += pn) {                                 \
            const int c0 = i * (G);                                                 \
            int cs, n;                                                              \
            RV__BOXN_GROUP(c0, cols, cs, n, G);                                     \
            win.x = cs * s;                                                         \
            win.y = j * s;                                                          \
            win.n = n;                                                              \
            RV_T_##TSCORE rv__sc[RV_BOXN];                                          \
            if (s == 1 && rv__tsm) { /* the only S = 1 instantiation: a second */ \
                /* (global template) would be merged with it, the template   */    \
                /* then read through generic loads                            */    \
                const rv_win w1 = {win.base, win.pitch, rv__dyn, (int64_t)rv__tp,   \
                                   win.x, win.y, win.w, win.h, 1, win.n};           \
                FN(w1, prm, rv__sc);                                                \
            } else {                                                                \
                FN(win, prm, rv__sc);                                               \
            }                                                                       \
            _Pragma("unroll") for (int k = 0; k < (G); k++)                         \
                if (k >= c0 - cs && k < n)                                          \
                    RV__BOX_GPU_TAKE(TSCORE, rv__sc[k], (cs + k) * s, win.y);       \
            i += di;                                                                \
            j += dj;                                                                \
            if (i >= gcols) { i -= gcols; j++; }                                    \
        }                                                                           \
        if (red != RV_REDUCE_NONE)                                                  \
            rv__box_finish(p, red, a.scratch);                                      \
    }

/* procBox with row-additive integer scores (RV_PROC_BOXR): the block's
 * warps form nb = R bands (fewer when the block is not a multiple of 32 R
 * threads: halved until it is, 1 for blocks under 64); warp w works on band
 * w % nb, and lane l of warps w and w' with w / nb == w' / nb on the same
 * group of G windows. So a warp reads the image rows of 32 adjacent groups,
 * as RV_PROC_BOXN's warps do (coalesced), and the template row of its band
 * (one address a warp). Band c scores template rows [c ch, (c + 1) ch) (ch
 * even, the last bands shorter or empty); bands 1.. put their partial sums
 * in shared memory, band 0 adds them (integer adds: the CPU's sums) and
 * takes the group's windows. The loop runs the same number of passes in
 * every thread of a block (its barriers); a pass past the last group does
 * no work. The backend launches groups x R threads. With G = RV_BOXN (4)
 * groups start on the G-window grid (window 4i) and the last group of a row
 * has the windows left (w.n < 4), where RV_PROC_BOXN (and RV_PROC_BOXR at
 * G < 4) moves it left to end at the row's last window: four RGBA windows
 * are 16 bytes, so every group then starts on the 16-byte grid when the
 * image rows do, as the 16-byte path of rv_win_sad_rows_rgba needs (a
 * group moved left took the row path, and its warp ran both;
 * docs/perf/cuda-tuning.md round 11). */
#define RV_PROC_BOXR(NAME, FN, TIN, TREF, PT, G, R)                                 \
    RV__DESC_BOXR(NAME, TIN, TREF, RV__PSIZE(PT), G, R)                             \
    extern "C" __global__ void __launch_bounds__(RV__BOX_BLOCK)                     \
    rvk_##NAME(const RV__GRID_CONST rv_args a)                                      \
    {                                                                               \
        RV__GRID_CHAIN(NAME)                                                        \
        RV__BOX_GPU_HEAD(TREF, PT)                                                  \
        __shared__ int32_t rv__bx[RV__BOX_BLOCK * (G)];                             \
        const int gcols = (cols + (G) - 1) / (G);                                   \
        const long long npos = (long long)rows * gcols;                             \
        int nb = (R);                                                               \
        while (nb > 1 && nt % (32 * nb) != 0) nb >>= 1;                             \
        const int gpb = nt / nb;                  /* groups a block and pass */     \
        const int band = nb > 1 ? (tid >> 5) % nb : 0;                              \
        const int slot = nb > 1 ? ((tid >> 5) / nb) * 32 + (tid & 31) : tid;        \
        const int ch = ((win.h + nb - 1) / nb + 1) & ~1;                            \
        const int rj0 = RV__MIN(band * ch, win.h), rj1 = RV__MIN(rj0 + ch, win.h);  \
        const long long pn = (long long)gridDim.x * gridDim.y * gpb;                \
        for (long long qb = (long long)(blockIdx.y * gridDim.x + blockIdx.x) * gpb; \
             qb < npos; qb += pn) {                                                 \
            const long long q = qb + slot;                                          \
            const bool live = q < npos;                                             \
            const int i = live ? (int)(q % gcols) : 0;                              \
            const int c0 = i * (G);                                                 \
            int cs = c0, n = RV__MIN((G), cols - c0);                               \
            if ((G) != RV_BOXN)                                                     \
                RV__BOXN_GROUP(c0, cols, cs, n, G);                                 \
            win.x = cs * s;                                                         \
            win.y = live ? (int)(q / gcols) * s : 0;                                \
            win.n = n;                                                              \
            int32_t rv__sc[RV_BOXN] = {0, 0, 0, 0};                                 \
            if (live) {                                                             \
                if (s == 1 && rv__tsm) {                                            \
                    const rv_win w1 = {win.base, win.pitch, rv__dyn, (int64_t)rv__tp, \
                                       win.x, win.y, win.w, win.h, 1, win.n};       \
                    FN(w1, rj0, rj1, prm, rv__sc);                                  \
                } else {                                                            \
                    FN(win, rj0, rj1, prm, rv__sc);                                 \
                }                                                                   \
            }                                                                       \
            if (nb > 1) {                                                           \
                if (band > 0)                                                       \
                    _Pragma("unroll") for (int k = 0; k < (G); k++)                 \
                        rv__bx[((band - 1) * (G) + k) * gpb + slot] = rv__sc[k];    \
                __syncthreads();                                                    \
                if (band == 0)                                                      \
                    for (int c = 1; c < nb; c++)                                    \
                        _Pragma("unroll") for (int k = 0; k < (G); k++)             \
                            rv__sc[k] += rv__bx[((c - 1) * (G) + k) * gpb + slot];  \
                __syncthreads();                                                    \
            }                                                                       \
            if (live && band == 0)                                                  \
                _Pragma("unroll") for (int k = 0; k < (G); k++)                     \
                    if (k >= c0 - cs && k < n)                                      \
                        RV__BOX_GPU_TAKE(i32, rv__sc[k], (cs + k) * s, win.y);      \
        }                                                                           \
        if (red != RV_REDUCE_NONE)                                                  \
            rv__box_finish(p, red, a.scratch);                                      \
    }

#define RV_RAW_KERNEL(NAME, AT, A, BLK)                                             \
    RV__DESC(NAME, RV_OP_RAW, none, none, none, 0, 0, sizeof(AT))                   \
    RV__RAW_GPU_ENTRY(NAME, AT, A, BLK, RV__TRACE_BEGIN(rvk_##NAME) RV__TRACE_WAITED())

#define RV_RAW_KERNEL_CHAINED(NAME, AT, A, BLK)                                     \
    RV__DESC_CHAINED(NAME, sizeof(AT))                                              \
    RV__RAW_GPU_ENTRY(NAME, AT, A, BLK, RV__GRID_CHAIN(NAME))

/* every block resident at once (launched cooperatively, at most
 * rv_kernel_resident_blocks() blocks): blocks may wait on one another through
 * global memory; chained like RV_RAW_KERNEL_CHAINED */
#define RV_RAW_KERNEL_COOP(NAME, AT, A, BLK)                                        \
    RV__DESC_COOP(NAME, sizeof(AT))                                                 \
    RV__RAW_GPU_ENTRY(NAME, AT, A, BLK, RV__GRID_CHAIN(NAME))

#define RV__RAW_GPU_ENTRY(NAME, AT, A, BLK, PRE)                                    \
    static __device__ __forceinline__ void rvk_##NAME##__body(const AT *A, rv_block BLK); \
    extern "C" __global__ void rvk_##NAME(const RV__GRID_CONST AT rv__args)         \
    {                                                                               \
        PRE                                                                         \
        rv_block b;                                                                 \
        b.x = (int32_t)blockIdx.x; b.y = (int32_t)blockIdx.y; b.z = (int32_t)blockIdx.z; \
        b.nx = (int32_t)gridDim.x; b.ny = (int32_t)gridDim.y; b.nz = (int32_t)gridDim.z; \
        b.tx = (int32_t)blockDim.x; b.ty = (int32_t)blockDim.y; b.tz = (int32_t)blockDim.z; \
        b.pad_ = 0; b.shared = 0;                                                   \
        rvk_##NAME##__body(&rv__args, b);                                           \
    }                                                                               \
    static __device__ __forceinline__ void rvk_##NAME##__body(const AT *A, rv_block BLK)

#endif /* RV_CUDA */

#endif /* RAVIOLI_KERNEL_H */
