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
 * Kernels never see the spatial stride S: neighbour offsets and window sample
 * positions are scaled by S for them, and each result fills its S x S block.
 *
 * Raw kernels (own launch shape, shared/scratch memory) are written per target:
 *     RV_RAW_KERNEL(name, struct my_args, a, blk) { ... }
 * `a` is a `const struct my_args *`, `blk` an rv_block. On the GPU the body is
 * ordinary CUDA (threadIdx, __syncthreads, extern __shared__); on the CPU it is
 * called once per block and loops over its own work.
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
    int32_t pad_;
} rv_win;

#define RV__DEF_ACCESSORS(tok, T)                                                   \
    RV_INLINE T rv_nbr_##tok(rv_nbr n, int dx, int dy)                              \
    {                                                                               \
        int xx = n.x + dx * n.s, yy = n.y + dy * n.s;                               \
        if (n.clamp) {                                                              \
            xx = xx < 0 ? 0 : xx >= n.w ? n.w - 1 : xx;                              \
            yy = yy < 0 ? 0 : yy >= n.h ? n.h - 1 : yy;                              \
        }                                                                           \
        return ((const T *)(n.base + (int64_t)yy * n.pitch))[xx];                   \
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
        (uint32_t)(PSIZE), (uint32_t)(ASIZE), 0u};

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
        for (int j = j0; j < j1; j++) {                                             \
            const int y = j * s;                                                    \
            const RV_T_##TIN *in = RV__ROW(const RV_T_##TIN, a->src, y);            \
            for (int x = 0; x < w; x += s) {                                        \
                const RV_T_##TOUT v = FN(in[x], prm);                               \
                RV__FILL_BLOCK(RV_T_##TOUT, a->dst, x, y, s, v);                    \
            }                                                                       \
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
            for (int x = 0; x < w; x += s) {                                        \
                const RV_T_##TOUT v = FN(ia[x], ib[x], prm);                        \
                RV__FILL_BLOCK(RV_T_##TOUT, a->dst, x, y, s, v);                    \
            }                                                                       \
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
                rv_nbr c = {a->src.data, a->src.pitch, 0, y, w, h, 1, 1};           \
                rv_nbr u = {a->src.data, a->src.pitch, 0, y, w, h, 1, 0};           \
                for (int x = 0; x < xa; x++) { c.x = x; out[x] = FN(c, prm); }      \
                for (int x = xa; x < xb; x++) { u.x = x; out[x] = FN(u, prm); }     \
                for (int x = xb; x < w; x++) { c.x = x; out[x] = FN(c, prm); }      \
            }                                                                       \
            return;                                                                 \
        }                                                                           \
        const int Rs = R * s;                                                       \
        for (int j = j0; j < j1; j++) {                                             \
            const int y = j * s;                                                    \
            const int inner = y >= Rs && y + Rs < h;                                \
            rv_nbr n = {a->src.data, a->src.pitch, 0, y, w, h, s, 1};               \
            for (int x = 0; x < w; x += s) {                                        \
                n.x = x;                                                            \
                n.clamp = !(inner && x >= Rs && x + Rs < w);                        \
                const RV_T_##TOUT v = FN(n, prm);                                   \
                RV__FILL_BLOCK(RV_T_##TOUT, a->dst, x, y, s, v);                    \
            }                                                                       \
        }                                                                           \
    }

/* procBox: window positions x = i*S <= W - box_w (same for y). */
#define RV_PROC_BOX(NAME, FN, TIN, TREF, TSCORE, PT)                                \
    RV__DESC(NAME, RV_OP_BOX, TIN, TREF, TSCORE, 0, RV__PSIZE(PT), 0)               \
    RV__CPU_SIG(NAME);                                                              \
    RV__CPU_SIG(NAME)                                                               \
    {                                                                               \
        const PT rv__prm = *(const PT *)(const void *)a->params;                    \
        const PT *prm = &rv__prm; /* a local: output stores cannot alias it */      \
        const int s = a->s, xmax = a->src.w - a->box_w;                             \
        const int red = a->reduce;                                                  \
        rv_win win = {a->src.data, a->src.pitch, a->src2.data, a->src2.pitch,       \
                      0, 0, (a->box_w + s - 1) / s, (a->box_h + s - 1) / s, s, 0};  \
        double best = 0.0, fsum = 0.0;                                              \
        int64_t isum = 0;                                                           \
        int bx = 0, by = 0, found = 0;                                              \
        for (int j = j0; j < j1; j++) {                                             \
            win.y = j * s;                                                          \
            for (int x = 0; x <= xmax; x += s) {                                    \
                win.x = x;                                                          \
                const RV_T_##TSCORE v = FN(win, prm);                               \
                if (red == RV_REDUCE_NONE) {                                        \
                    RV__FILL_BLOCK(float, a->dst, x, win.y, s, (float)v);           \
                } else if (red == RV_REDUCE_SUM) {                                  \
                    if (RV_ETC_##TSCORE == RV_ET_I32) isum += (int64_t)v;           \
                    else fsum += (double)v;                                         \
                    found = 1;                                                      \
                } else if (!found || (red == RV_REDUCE_MIN ? (double)v < best       \
                                                           : (double)v > best)) {   \
                    best = (double)v; bx = x; by = win.y; found = 1;                \
                }                                                                   \
            }                                                                       \
        }                                                                           \
        if (part) {                                                                 \
            part->score = red == RV_REDUCE_SUM ? fsum : best;                       \
            part->isum = isum;                                                      \
            part->x = bx; part->y = by; part->valid = found;                        \
        }                                                                           \
    }

#define RV_RAW_KERNEL(NAME, AT, A, BLK)                                             \
    RV__DESC(NAME, RV_OP_RAW, none, none, none, 0, 0, sizeof(AT))                   \
    static void rvk_##NAME##__body(const AT *A, rv_block BLK);                      \
    RV_EXPORT void rvk_##NAME(const void *rv__args, rv_block rv__blk);              \
    RV_EXPORT void rvk_##NAME(const void *rv__args, rv_block rv__blk)               \
    {                                                                               \
        rvk_##NAME##__body((const AT *)rv__args, rv__blk);                          \
    }                                                                               \
    static void rvk_##NAME##__body(const AT *A, rv_block BLK)

#else /* RV_CUDA */
/* ================================================================== */
/* GPU entries: one thread per sample (x = i*S, y = j*S).               */
/* ================================================================== */

#define RV__GPU_IJ                                                                  \
    const int s = a.s;                                                              \
    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x) * s;                 \
    const int y = (int)(blockIdx.y * blockDim.y + threadIdx.y) * s

#define RV__GPU_STORE(T, v)                                                         \
    do {                                                                            \
        if (s == 1) RV__ROW(T, a.dst, y)[x] = (v);                                  \
        else RV__FILL_BLOCK(T, a.dst, x, y, s, (v));                                \
    } while (0)

#define RV_PROC_PIX(NAME, FN, TIN, TOUT, PT)                                        \
    RV__DESC(NAME, RV_OP_PIX, TIN, none, TOUT, 0, RV__PSIZE(PT), 0)                 \
    extern "C" __global__ void rvk_##NAME(const rv_args a)                          \
    {                                                                               \
        RV__GPU_IJ;                                                                 \
        if (x >= a.dst.w || y >= a.dst.h) return;                                   \
        const PT *prm = (const PT *)(const void *)a.params;                         \
        const RV_T_##TOUT v = FN(RV__ROW(const RV_T_##TIN, a.src, y)[x], prm);      \
        RV__GPU_STORE(RV_T_##TOUT, v);                                              \
    }

#define RV_PROC_COMP(NAME, FN, TIN, TIN2, TOUT, PT)                                 \
    RV__DESC(NAME, RV_OP_COMP, TIN, TIN2, TOUT, 0, RV__PSIZE(PT), 0)                \
    extern "C" __global__ void rvk_##NAME(const rv_args a)                          \
    {                                                                               \
        RV__GPU_IJ;                                                                 \
        if (x >= a.dst.w || y >= a.dst.h) return;                                   \
        const PT *prm = (const PT *)(const void *)a.params;                         \
        const RV_T_##TOUT v = FN(RV__ROW(const RV_T_##TIN, a.src, y)[x],            \
                                 RV__ROW(const RV_T_##TIN2, a.src2, y)[x], prm);    \
        RV__GPU_STORE(RV_T_##TOUT, v);                                              \
    }

#define RV_PROC_NBR(NAME, FN, TIN, TOUT, RADIUS, PT)                                \
    RV__DESC(NAME, RV_OP_NBR, TIN, none, TOUT, RADIUS, RV__PSIZE(PT), 0)            \
    extern "C" __global__ void rvk_##NAME(const rv_args a)                          \
    {                                                                               \
        RV__GPU_IJ;                                                                 \
        if (x >= a.src.w || y >= a.src.h) return;                                   \
        const PT *prm = (const PT *)(const void *)a.params;                         \
        const int Rs = (RADIUS) * s;                                                \
        const rv_nbr n = {a.src.data, a.src.pitch, x, y, a.src.w, a.src.h, s,       \
                          !(x >= Rs && y >= Rs && x + Rs < a.src.w && y + Rs < a.src.h)}; \
        const RV_T_##TOUT v = FN(n, prm);                                           \
        RV__GPU_STORE(RV_T_##TOUT, v);                                              \
    }

/* procBox: scores, then a block-level reduction to one rv_partial per block
 * (lexicographic on (score, y, x) so that ties match the CPU). */
#define RV__BOX_BLOCK 256
#define RV_PROC_BOX(NAME, FN, TIN, TREF, TSCORE, PT)                                \
    RV__DESC(NAME, RV_OP_BOX, TIN, TREF, TSCORE, 0, RV__PSIZE(PT), 0)               \
    extern "C" __global__ void __launch_bounds__(RV__BOX_BLOCK)                     \
    rvk_##NAME(const rv_args a)                                                     \
    {                                                                               \
        __shared__ rv_partial sh[RV__BOX_BLOCK];                                    \
        const int s = a.s;                                                          \
        const int tid = (int)(threadIdx.y * blockDim.x + threadIdx.x);              \
        const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x) * s;             \
        const int y = (int)(blockIdx.y * blockDim.y + threadIdx.y) * s;             \
        const PT *prm = (const PT *)(const void *)a.params;                         \
        const int ok = x <= a.src.w - a.box_w && y <= a.src.h - a.box_h;            \
        rv_partial p;                                                               \
        p.score = 0.0; p.isum = 0; p.x = x; p.y = y; p.valid = 0; p.pad_ = 0;       \
        if (ok) {                                                                   \
            const rv_win win = {a.src.data, a.src.pitch, a.src2.data, a.src2.pitch, \
                                x, y, (a.box_w + s - 1) / s, (a.box_h + s - 1) / s, s, 0}; \
            const RV_T_##TSCORE v = FN(win, prm);                                   \
            if (a.reduce == RV_REDUCE_NONE) {                                       \
                RV__FILL_BLOCK(float, a.dst, x, y, s, (float)v);                    \
            } else {                                                                \
                p.valid = 1;                                                        \
                if (RV_ETC_##TSCORE == RV_ET_I32 && a.reduce == RV_REDUCE_SUM)      \
                    p.isum = (int64_t)v;                                            \
                else                                                                \
                    p.score = (double)v;                                            \
            }                                                                       \
        }                                                                           \
        if (a.reduce == RV_REDUCE_NONE) return;                                     \
        sh[tid] = p;                                                                \
        __syncthreads();                                                            \
        const int nt = (int)(blockDim.x * blockDim.y);                              \
        for (int k = RV__BOX_BLOCK / 2; k > 0; k >>= 1) {                           \
            if (tid < k && tid + k < nt) {                                          \
                rv_partial q = sh[tid + k], b = sh[tid];                            \
                if (a.reduce == RV_REDUCE_SUM) {                                    \
                    b.score += q.score; b.isum += q.isum; b.valid |= q.valid;       \
                } else if (q.valid && (!b.valid ||                                  \
                           (a.reduce == RV_REDUCE_MIN ? q.score < b.score           \
                                                      : q.score > b.score) ||       \
                           (q.score == b.score &&                                   \
                            (q.y < b.y || (q.y == b.y && q.x < b.x))))) {           \
                    b = q;                                                          \
                }                                                                   \
                sh[tid] = b;                                                        \
            }                                                                       \
            __syncthreads();                                                        \
        }                                                                           \
        if (tid == 0)                                                               \
            ((rv_partial *)a.scratch)[blockIdx.y * gridDim.x + blockIdx.x] = sh[0]; \
    }

#define RV_RAW_KERNEL(NAME, AT, A, BLK)                                             \
    RV__DESC(NAME, RV_OP_RAW, none, none, none, 0, 0, sizeof(AT))                   \
    static __device__ __forceinline__ void rvk_##NAME##__body(const AT *A, rv_block BLK); \
    extern "C" __global__ void rvk_##NAME(const AT rv__args)                        \
    {                                                                               \
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
