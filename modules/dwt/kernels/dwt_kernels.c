/*
 * dwt_kernels.c - raw kernels of the "dwt" module: lifting wavelet transforms
 * on rows and columns of a 32-bit (float or int32) region, plus the in-place
 * rearrangement of the seed paper (chunk generation, chunk permutation by
 * cyclic permutations, rotation of the odd-length tail).
 *
 * Every kernel has a CUDA body (threads of a block share the block's tile)
 * and a CPU body (called once per block by the CPU backend's pool; it loops
 * over the same tile). The host library (../src/dwt.c) picks launch shapes
 * and tiles per backend; results are the same because both bodies evaluate
 * the same per-sample functions below in the same order of operations.
 */
#include <ravioli/kernel.h>

#include "dwt_abi.h"

#if !defined(RV_CUDA)
#  include <string.h>
#endif

/* ---------------------------------------------------------------- */
/* Shared arithmetic                                                  */
/* ---------------------------------------------------------------- */

/* Products that nvcc must not contract into FMAs, so GPU and CPU agree bit for bit. */
#if defined(RV_CUDA)
#  define DWT_MUL(x, y) __fmul_rn((x), (y))
/* Global loads a thread issues before it uses them (memory-level parallelism). */
#  define DWT_UNROLL 8
/* The same in the load phase of dwt_colfused (registers: 4 keeps it at 40). */
#  ifndef DWT_RUNROLL
#    define DWT_RUNROLL 4
#  endif
#  ifndef DWT_CUNROLL
#    define DWT_CUNROLL 4
#  endif
/* Targets a thread of dwt_step_k lifts at once. */
#  define DWT_SB 4
#else
#  define DWT_MUL(x, y) ((x) * (y))
#endif

/* Position p reflected into [0, n) (whole-sample symmetric extension, n >= 2). */
RV_FN int dwt_mirror(int p, int n)
{
    const int per = 2 * n - 2;
    for (;;) {
        if (p < 0)
            p = -p;
        if (p < n)
            return p;
        p = per - p;
    }
}

#if defined(RV_CUDA)
/* Position p reflected once at 0 and once at n - 1: dwt_mirror's result when that is in [0, n).
 * Only the register-lifting kernels use it (CUDA only; clang warns on an unused static). */
RV_FN int dwt_reflect_once(int p, int n)
{
    p = p < 0 ? -p : p;
    return p >= n ? 2 * n - 2 - p : p;
}
#endif

/* Source index j of band `is_d` (S: position 2j, D: 2j+1) mapped into the band. */
RV_FN int dwt_src_index(int j, int nsrc, int is_d, int n)
{
    if (j >= 0 && j < nsrc)
        return j;
    const int p = dwt_mirror(2 * j + is_d, n);
    return p >> 1;
}

/* Bits of a 32-bit sample as float and back. */
#if defined(RV_CUDA)
#  define DWT_F(u) __uint_as_float(u)
#  define DWT_U(f) __float_as_uint(f)
#else
RV_FN float dwt_f_(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
RV_FN uint32_t dwt_u_(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
#  define DWT_F(u) dwt_f_(u)
#  define DWT_U(f) dwt_u_(f)
#endif

/*
 * The arithmetic of one lifting step on values: t is the target sample, v0..v3
 * its taps (v1..v3 unused beyond st->ntaps); returns the new target. Every
 * kernel (and the CPU runs, in the same order of operations) goes through it.
 * Float steps of 2 and 4 taps have symmetric weights (build_steps checks), so
 * the taps sharing a weight are added first: w (v0 + v1), and
 * w0 (v0 + v3) + w1 (v1 + v2) - two or three fewer operations a target than
 * a product a tap, and the same value for the mirrored order of the taps.
 * P = 0 where the caller knows post (forward) and post_inv (inverse) are 1:
 * x * 1 is x, so the multiply is left out with the same result.
 */
RV_FN float dwt_acc_f(uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3, const dwt_step *st, const int nt)
{
    if (nt > 3)
        return DWT_MUL(st->fw[0], DWT_F(v0) + DWT_F(v3)) + DWT_MUL(st->fw[1], DWT_F(v1) + DWT_F(v2));
    if (nt == 2)
        return DWT_MUL(st->fw[0], DWT_F(v0) + DWT_F(v1));
    float acc = DWT_MUL(st->fw[0], DWT_F(v0));
    if (nt > 2)
        acc = (acc + DWT_MUL(st->fw[1], DWT_F(v1))) + DWT_MUL(st->fw[2], DWT_F(v2));
    return acc;
}
RV_FN uint32_t dwt_lift_np(uint32_t t, uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3, const dwt_step *st,
                           int type, int inverse, const int nt, const int P)
{
    if (type == DWT_F32) {
        const float acc = dwt_acc_f(v0, v1, v2, v3, st, nt);
        const float x = DWT_F(t);
        if (!inverse)
            return DWT_U(P ? DWT_MUL(x + acc, st->post) : x + acc);
        return DWT_U((P ? DWT_MUL(x, st->post_inv) : x) - acc);
    }
    int32_t acc = st->round + st->iw[0] * (int32_t)v0;
    if (nt > 1)
        acc += st->iw[1] * (int32_t)v1;
    if (nt > 2)
        acc += st->iw[2] * (int32_t)v2;
    if (nt > 3)
        acc += st->iw[3] * (int32_t)v3;
    const int32_t delta = (acc >> st->shift) * st->sign;
    return (uint32_t)(inverse ? (int32_t)t - delta : (int32_t)t + delta);
}
RV_FN uint32_t dwt_lift_nt(uint32_t t, uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3, const dwt_step *st,
                           int type, int inverse, const int nt)
{
    return dwt_lift_np(t, v0, v1, v2, v3, st, type, inverse, nt, 1);
}
/* Whether a float step's post / post_inv is 1 (dwt_lift_np's P = 0 gives the same result). */
RV_FN int dwt_step_unscaled(const dwt_step *st) { return st->post == 1.0f && st->post_inv == 1.0f; }
/* STEP(..., P) with P = 0 for a float step whose post (post_inv) is 1, else 1: a uniform
 * branch a step in the register kernels, each side its own straight-line code */
#define DWT_BY_POST(STEP, ...)                                                                  \
    do {                                                                                       \
        if (TYPE == DWT_F32 && dwt_step_unscaled(st))                                          \
            STEP(__VA_ARGS__, 0);                                                              \
        else                                                                                   \
            STEP(__VA_ARGS__, 1);                                                              \
    } while (0)

/* The same with the tap count of the step (nt a literal in the register lifting of dwt_colreg). */
RV_FN uint32_t dwt_lift_val(uint32_t t, uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3, const dwt_step *st,
                            int type, int inverse)
{
    return dwt_lift_nt(t, v0, v1, v2, v3, st, type, inverse, st->ntaps);
}

/*
 * Source band indices j[0..ntaps) of the taps of target k: k + off0 + i,
 * reflected at the ends of the line (one test when all lie inside the band).
 */
RV_FN void dwt_taps(const dwt_step *st, int k, int n, int *j)
{
    const int src_is_d = st->target == 0 ? 0 : 1;
    const int nsrc = src_is_d ? n >> 1 : (n + 1) >> 1;
    const int j0 = k + st->off0, nt = st->ntaps;
    if (j0 >= 0 && j0 + nt <= nsrc) {
        j[0] = j0;
        j[1] = j0 + 1;
        j[2] = j0 + 2;
        j[3] = j0 + 3;
        return;
    }
    /* taps written out: no dynamic indexing of the (parameter) step struct */
#define DWT_SRC(i) (i < nt ? dwt_src_index(j0 + i, nsrc, src_is_d, n) : j[0])
    j[0] = dwt_src_index(j0, nsrc, src_is_d, n);
    j[1] = DWT_SRC(1);
    j[2] = DWT_SRC(2);
    j[3] = DWT_SRC(3);
#undef DWT_SRC
}

/* Loads the taps j[] of a band of 32-bit words at sb + j * ss (bytes). */
#define DWT_LOAD_TAPS(v, sb, ss, j, nt)                                                     \
    do {                                                                                   \
        v[0] = *(const uint32_t *)((sb) + (int64_t)(j)[0] * (ss));                          \
        v[1] = (nt) > 1 ? *(const uint32_t *)((sb) + (int64_t)(j)[1] * (ss)) : 0u;           \
        v[2] = (nt) > 2 ? *(const uint32_t *)((sb) + (int64_t)(j)[2] * (ss)) : 0u;           \
        v[3] = (nt) > 3 ? *(const uint32_t *)((sb) + (int64_t)(j)[3] * (ss)) : 0u;           \
    } while (0)

/*
 * One lifting step at target index k. tb/sb: element 0 of the target and
 * source bands, ts/ss: their strides in bytes; n: line length.
 */
RV_FN void dwt_lift_at(unsigned char *tb, int64_t ts, const unsigned char *sb, int64_t ss, int n,
                       const dwt_step *st, int type, int inverse, int k)
{
    int j[DWT_MAX_TAPS];
    uint32_t v[DWT_MAX_TAPS];
    dwt_taps(st, k, n, j);
    DWT_LOAD_TAPS(v, sb, ss, j, st->ntaps);
    uint32_t *t = (uint32_t *)(tb + (int64_t)k * ts);
    *t = dwt_lift_val(*t, v[0], v[1], v[2], v[3], st, type, inverse);
}

#if defined(RV_CUDA) /* the CPU bodies use the vectorised runs below instead */
/*
 * The same on word arrays with 32-bit indices (shared-memory tiles, CPU
 * lines): target k at tw[k * str], source j at sw[j * str].
 */
RV_FN void dwt_lift_w(uint32_t *tw, const uint32_t *sw, int str, int n, const dwt_step *st, int type, int inverse,
                      int k)
{
    int j[DWT_MAX_TAPS];
    dwt_taps(st, k, n, j);
    const int nt = st->ntaps;
    const uint32_t v0 = sw[j[0] * str], v1 = nt > 1 ? sw[j[1] * str] : 0u, v2 = nt > 2 ? sw[j[2] * str] : 0u,
                   v3 = nt > 3 ? sw[j[3] * str] : 0u;
    tw[k * str] = dwt_lift_val(tw[k * str], v0, v1, v2, v3, st, type, inverse);
}

/*
 * Interior run on word arrays: targets g = g0, g0 + gs, ... < g1 whose taps
 * g + off0 + i all lie inside the source band (no reflection), target g at
 * tw[g * str], source j at sw[j * str]. Tap count, type and direction are
 * tested once, outside the loop; the operations are those of dwt_lift_val
 * in the same order. Returns the first g of the sequence not done (>= g1).
 */
/* pointer increments only: p (taps) and q (target) advance by gs lines */
#define DWT_RUN_F(ACC, UPD)                                                                  \
    {                                                                                        \
        const float *p = s + (g + o) * str;                                                  \
        float *q = t + g * str;                                                              \
        _Pragma("unroll 2") for (int i = 0; i < cnt; i++) {                                  \
            const float acc = ACC;                                                           \
            *q = UPD;                                                                        \
            p += ps;                                                                         \
            q += ps;                                                                         \
        }                                                                                    \
    }
#define DWT_RUN_I(ACC, OP)                                                                   \
    {                                                                                        \
        const int32_t *p = si + (g + o) * str;                                               \
        int32_t *q = ti + g * str;                                                           \
        _Pragma("unroll 2") for (int i = 0; i < cnt; i++) {                                  \
            const int32_t acc = ACC;                                                         \
            *q = *q OP((acc >> sh) * sg);                                                    \
            p += ps;                                                                         \
            q += ps;                                                                         \
        }                                                                                    \
    }
#define DWT_RUN_NT(RUN, A1, A2, A3, A4, X)                                                    \
    do {                                                                                     \
        if (nt == 1)                                                                         \
            RUN(A1, X)                                                                       \
        else if (nt == 2)                                                                    \
            RUN(A2, X)                                                                       \
        else if (nt == 3)                                                                    \
            RUN(A3, X)                                                                       \
        else                                                                                 \
            RUN(A4, X)                                                                       \
    } while (0)
RV_FN int dwt_run_w(uint32_t *tw, const uint32_t *sw, int str, int g, int g1, int gs, const dwt_step *st, int type,
                    int inverse)
{
    const int nt = st->ntaps, o = st->off0;
    if (g >= g1)
        return g;
    const int cnt = (g1 - g + gs - 1) / gs, ps = gs * str;
    if (type == DWT_F32) {
        float *t = (float *)tw;
        const float *s = (const float *)sw;
        const float w0 = st->fw[0], w1 = st->fw[1], w2 = st->fw[2];
        const float post = st->post, pinv = st->post_inv;
        /* dwt_acc_f's sums (symmetric weights for 2 and 4 taps) */
#define F1 DWT_MUL(w0, p[0])
#define F2 DWT_MUL(w0, p[0] + p[str])
#define F3 (DWT_MUL(w0, p[0]) + DWT_MUL(w1, p[str])) + DWT_MUL(w2, p[2 * str])
#define F4 DWT_MUL(w0, p[0] + p[3 * str]) + DWT_MUL(w1, p[str] + p[2 * str])
        if (!inverse)
            DWT_RUN_NT(DWT_RUN_F, F1, F2, F3, F4, DWT_MUL(*q + acc, post));
        else
            DWT_RUN_NT(DWT_RUN_F, F1, F2, F3, F4, DWT_MUL(*q, pinv) - acc);
#undef F1
#undef F2
#undef F3
#undef F4
    } else {
        int32_t *ti = (int32_t *)tw;
        const int32_t *si = (const int32_t *)sw;
        const int32_t w0 = st->iw[0], w1 = st->iw[1], w2 = st->iw[2], w3 = st->iw[3], r = st->round;
        const int sh = st->shift, sg = st->sign;
#define I1 r + w0 * p[0]
#define I2 I1 + w1 * p[str]
#define I3 I2 + w2 * p[2 * str]
#define I4 I3 + w3 * p[3 * str]
        if (!inverse)
            DWT_RUN_NT(DWT_RUN_I, I1, I2, I3, I4, +);
        else
            DWT_RUN_NT(DWT_RUN_I, I1, I2, I3, I4, -);
#undef I1
#undef I2
#undef I3
#undef I4
    }
    return g + cnt * gs;
}
#undef DWT_RUN_F
#undef DWT_RUN_I
#undef DWT_RUN_NT

/*
 * All targets g = g0, g0 + gs, ... < g1 of one step on a line of n samples
 * held in word arrays (target g at tw[g * str], source j at sw[j * str]),
 * where only sources in [slo, shi) are present (a tile of a longer line;
 * [0, nsrc) for a whole line): the interior through dwt_run_w, the few
 * targets at the ends sample by sample (reflected taps; skipped when a tap
 * is not present).
 */
RV_FN void dwt_step_w(uint32_t *tw, const uint32_t *sw, int str, int n, int g, int g1, int gs, int slo, int shi,
                      const dwt_step *st, int type, int inverse)
{
    const int flo = slo - st->off0, fhi = shi - st->off0 - st->ntaps + 1; /* all taps in [slo, shi) */
    for (; g < g1 && g < flo; g += gs) {
        int j[DWT_MAX_TAPS];
        dwt_taps(st, g, n, j);
        int ok = 1;
        for (int i = 0; i < DWT_MAX_TAPS; i++)
            if (i < st->ntaps && (j[i] < slo || j[i] >= shi))
                ok = 0;
        if (ok)
            dwt_lift_w(tw, sw, str, n, st, type, inverse, g);
    }
    g = dwt_run_w(tw, sw, str, g, g1 < fhi ? g1 : fhi, gs, st, type, inverse);
    for (; g < g1; g += gs) {
        int j[DWT_MAX_TAPS];
        dwt_taps(st, g, n, j);
        int ok = 1;
        for (int i = 0; i < DWT_MAX_TAPS; i++)
            if (i < st->ntaps && (j[i] < slo || j[i] >= shi))
                ok = 0;
        if (ok)
            dwt_lift_w(tw, sw, str, n, st, type, inverse, g);
    }
}

#endif

/* Address of sample q of line l (axis 0: row l, axis 1: column l). */
RV_FN unsigned char *dwt_addr(uint64_t base, int64_t pitch, int axis, int l, int q)
{
    return axis == 0 ? (unsigned char *)(uintptr_t)base + (int64_t)l * pitch + (int64_t)q * 4
                     : (unsigned char *)(uintptr_t)base + (int64_t)q * pitch + (int64_t)l * 4;
}

/* Interleaved position p of a line of n samples, `lev` levels -> block-layout index. */
RV_FN int dwt_block_index(int p, int n, int lev)
{
    if (p == 0)
        return 0;
    int t = 0;
    while (t < lev && !((p >> t) & 1))
        t++;
    if (t >= lev) {
        return p >> lev;
    }
    const int l = t + 1; /* p = 2^(l-1) * (2k+1): D of level l */
    int nl = n;
    for (int i = 0; i < l; i++)
        nl = (nl + 1) >> 1;
    return nl + (p >> l);
}

/* Levels a line of n samples really gets: each needs at least 2 samples. */
RV_FN int dwt_eff_levels(int n, int levels)
{
    int l = 0;
    while (l < levels && n >= 2) {
        n = (n + 1) >> 1;
        l++;
    }
    return l;
}

#if !defined(RV_CUDA)
/*
 * CPU fast paths: one step over `cnt` contiguous targets whose taps are the
 * contiguous source runs p0..p3 (same operation order as dwt_lift_at, so the
 * results are identical; the loops vectorise).
 */
#define DWT_OPF(EXPR)                                                              \
    do {                                                                           \
        if (!inverse && ps)                                                        \
            for (int c = 0; c < cnt; c++) {                                        \
                const float acc = EXPR;                                            \
                t[c] = (t[c] + acc) * post;                                        \
            }                                                                      \
        else if (!inverse)                                                         \
            for (int c = 0; c < cnt; c++)                                          \
                t[c] += EXPR;                                                      \
        else if (ps)                                                               \
            for (int c = 0; c < cnt; c++) {                                        \
                const float acc = EXPR;                                            \
                t[c] = t[c] * pinv - acc;                                          \
            }                                                                      \
        else                                                                       \
            for (int c = 0; c < cnt; c++)                                          \
                t[c] -= EXPR;                                                      \
    } while (0)
#define DWT_OPI(EXPR)                                                              \
    do {                                                                           \
        if (!inverse)                                                              \
            for (int c = 0; c < cnt; c++)                                          \
                ti[c] += ((EXPR) >> sh) * sg;                                      \
        else                                                                       \
            for (int c = 0; c < cnt; c++)                                          \
                ti[c] -= ((EXPR) >> sh) * sg;                                      \
    } while (0)

static void dwt_cpu_run(unsigned char *tp, const unsigned char *q0, const unsigned char *q1,
                        const unsigned char *q2, const unsigned char *q3, int cnt, const dwt_step *st,
                        int type, int inverse)
{
    const int nt = st->ntaps;
    if (type == DWT_F32) {
        float *restrict t = (float *)tp;
        const float *p0 = (const float *)q0, *p1 = (const float *)q1, *p2 = (const float *)q2,
                    *p3 = (const float *)q3;
        const float w0 = st->fw[0], w1 = st->fw[1], w2 = st->fw[2];
        const float post = st->post, pinv = st->post_inv;
        /* as dwt_acc_f; post and post_inv of 1 left out (the same result, dwt_lift_np) */
        const int ps = !dwt_step_unscaled(st);
        if (nt == 1)
            DWT_OPF(w0 * p0[c]);
        else if (nt == 2)
            DWT_OPF(w0 * (p0[c] + p1[c]));
        else if (nt == 3)
            DWT_OPF((w0 * p0[c] + w1 * p1[c]) + w2 * p2[c]);
        else
            DWT_OPF(w0 * (p0[c] + p3[c]) + w1 * (p1[c] + p2[c]));
    } else {
        int32_t *restrict ti = (int32_t *)tp;
        const int32_t *p0 = (const int32_t *)q0, *p1 = (const int32_t *)q1, *p2 = (const int32_t *)q2,
                      *p3 = (const int32_t *)q3;
        const int32_t w0 = st->iw[0], w1 = st->iw[1], w2 = st->iw[2], w3 = st->iw[3], r = st->round;
        const int sh = st->shift, sg = st->sign;
        if (nt == 1)
            DWT_OPI(r + w0 * p0[c]);
        else if (nt == 2)
            DWT_OPI(r + w0 * p0[c] + w1 * p1[c]);
        else if (nt == 3)
            DWT_OPI(r + w0 * p0[c] + w1 * p1[c] + w2 * p2[c]);
        else
            DWT_OPI(r + w0 * p0[c] + w1 * p1[c] + w2 * p2[c] + w3 * p3[c]);
    }
}
#undef DWT_OPF
#undef DWT_OPI

/* All targets [k0, k1) of one band stored with unit stride (4 bytes). */
static void dwt_cpu_band(unsigned char *tb, const unsigned char *sb, int k0, int k1, int n,
                         const dwt_step *st, int type, int inverse)
{
    const int src_is_d = st->target == 0 ? 0 : 1;
    const int nsrc = src_is_d ? n >> 1 : (n + 1) >> 1;
    /* interior: every tap inside the source band */
    int i0 = -st->off0, i1 = nsrc - (st->off0 + st->ntaps - 1);
    i0 = i0 < k0 ? k0 : i0 > k1 ? k1 : i0;
    i1 = i1 > k1 ? k1 : i1 < i0 ? i0 : i1;
    for (int k = k0; k < i0; k++)
        dwt_lift_at(tb, 4, sb, 4, n, st, type, inverse, k);
    if (i1 > i0) {
        const unsigned char *q = sb + (int64_t)(i0 + st->off0) * 4;
        dwt_cpu_run(tb + (int64_t)i0 * 4, q, q + 4, q + 8, q + 12, i1 - i0, st, type, inverse);
    }
    for (int k = i1; k < k1; k++)
        dwt_lift_at(tb, 4, sb, 4, n, st, type, inverse, k);
}
#endif

/* ---------------------------------------------------------------- */
/* dwt_step_k: one lifting step on a strided region                   */
/* ---------------------------------------------------------------- */

/* Target k of line l: its address, value and taps (loaded, not yet lifted). */
RV_FN uint32_t *dwt_step_load(const dwt_step_args *a, int k, int l, uint32_t *t, uint32_t *v)
{
    const int tgt_d = a->st.target == 0;
    const int toff = tgt_d ? a->d_off : a->s_off, tstr = tgt_d ? a->d_str : a->s_str;
    const int soff = tgt_d ? a->s_off : a->d_off, sstr = tgt_d ? a->s_str : a->d_str;
    const int line = l * a->line_str;
    const int64_t unit = a->axis == 0 ? 4 : a->pitch;
    uint32_t *tp = (uint32_t *)(dwt_addr(a->base, a->pitch, a->axis, line, toff) + (int64_t)k * unit * tstr);
    const unsigned char *sb = dwt_addr(a->base, a->pitch, a->axis, line, soff);
    int j[DWT_MAX_TAPS];
    dwt_taps(&a->st, k, a->n, j);
    DWT_LOAD_TAPS(v, sb, unit * sstr, j, a->st.ntaps);
    *t = *tp;
    return tp;
}

RV_FN void dwt_step_one(const dwt_step_args *a, int k, int l)
{
    uint32_t t, v[DWT_MAX_TAPS];
    uint32_t *tp = dwt_step_load(a, k, l, &t, v);
    *tp = dwt_lift_val(t, v[0], v[1], v[2], v[3], &a->st, a->type, a->inverse);
}

RV_RAW_KERNEL_CHAINED(dwt_step_k, dwt_step_args, a, blk)
{
    const int nt = a->st.target == 0 ? a->n >> 1 : (a->n + 1) >> 1;
    const int na = a->axis == 0 ? nt : a->nlines; /* index along block x */
    const int nb = a->axis == 0 ? a->nlines : nt;
    const int a0 = blk.x * a->tile_a, a1 = RV__MIN(a0 + a->tile_a, na);
    const int b0 = blk.y * a->tile_b, b1 = RV__MIN(b0 + a->tile_b, nb);
#if defined(RV_CUDA)
    /* DWT_SB targets a thread at once: all their loads, then the lifts (target
     * and source bands are disjoint, so the loads may run ahead of the stores) */
    const int TY = blk.ty;
    /* block-layout columns: a batch of interior targets with pointer arithmetic only */
    const int colfast = a->axis == 1 && a->s_str == 1 && a->d_str == 1 && a->line_str == 1;
    const int tgt_d = a->st.target == 0, o = a->st.off0, ntp = a->st.ntaps;
    const int nsrc = tgt_d ? (a->n + 1) >> 1 : a->n >> 1;
    const int toff = tgt_d ? a->d_off : a->s_off, soff = tgt_d ? a->s_off : a->d_off;
    const int fend = RV__MIN(b1, nsrc - o - ntp + 1); /* interior targets: [-o, fend) */
    const int64_t P = a->pitch;
    for (int ia = a0 + (int)threadIdx.x; ia < a1; ia += blk.tx)
        for (int ib0 = b0 + (int)threadIdx.y; ib0 < b1; ib0 += DWT_SB * TY) {
            if (colfast && ib0 + o >= 0 && ib0 + (DWT_SB - 1) * TY < fend) {
                const unsigned char *col = (const unsigned char *)(uintptr_t)a->base + (int64_t)ia * 4;
                uint32_t *tp[DWT_SB], t[DWT_SB], v[DWT_SB][DWT_MAX_TAPS];
#pragma unroll
                for (int u = 0; u < DWT_SB; u++) {
                    const int k = ib0 + u * TY;
                    const unsigned char *ps = col + (int64_t)(soff + k + o) * P;
                    tp[u] = (uint32_t *)(col + (int64_t)(toff + k) * P);
                    v[u][0] = *(const uint32_t *)ps;
                    v[u][1] = ntp > 1 ? *(const uint32_t *)(ps + P) : 0u;
                    v[u][2] = ntp > 2 ? *(const uint32_t *)(ps + 2 * P) : 0u;
                    v[u][3] = ntp > 3 ? *(const uint32_t *)(ps + 3 * P) : 0u;
                    t[u] = *tp[u];
                }
#pragma unroll
                for (int u = 0; u < DWT_SB; u++)
                    *tp[u] = dwt_lift_val(t[u], v[u][0], v[u][1], v[u][2], v[u][3], &a->st, a->type, a->inverse);
                continue;
            }
            uint32_t *tp[DWT_SB], t[DWT_SB], v[DWT_SB][DWT_MAX_TAPS];
#pragma unroll
            for (int u = 0; u < DWT_SB; u++)
                if (ib0 + u * TY < b1)
                    tp[u] = a->axis == 0 ? dwt_step_load(a, ia, ib0 + u * TY, &t[u], v[u])
                                         : dwt_step_load(a, ib0 + u * TY, ia, &t[u], v[u]);
#pragma unroll
            for (int u = 0; u < DWT_SB; u++)
                if (ib0 + u * TY < b1)
                    *tp[u] = dwt_lift_val(t[u], v[u][0], v[u][1], v[u][2], v[u][3], &a->st, a->type, a->inverse);
        }
#else
    const int tgt_d = a->st.target == 0;
    const int toff = tgt_d ? a->d_off : a->s_off, tstr = tgt_d ? a->d_str : a->s_str;
    const int soff = tgt_d ? a->s_off : a->d_off, sstr = tgt_d ? a->s_str : a->d_str;
    if (a->axis == 0 && tstr == 1 && sstr == 1) {
        for (int l = b0; l < b1; l++) {
            const int line = l * a->line_str;
            dwt_cpu_band(dwt_addr(a->base, a->pitch, 0, line, toff), dwt_addr(a->base, a->pitch, 0, line, soff),
                         a0, a1, a->n, &a->st, a->type, a->inverse);
        }
    } else if (a->axis == 1 && a->line_str == 1) {
        /* rows of targets: the taps are whole source rows */
        const int src_is_d = tgt_d ? 0 : 1;
        const int nsrc = src_is_d ? a->n >> 1 : (a->n + 1) >> 1;
        const unsigned char *q[DWT_MAX_TAPS];
        for (int k = b0; k < b1; k++) {
            for (int i = 0; i < DWT_MAX_TAPS; i++) {
                const int j = i < a->st.ntaps ? dwt_src_index(k + a->st.off0 + i, nsrc, src_is_d, a->n) : 0;
                q[i] = dwt_addr(a->base, a->pitch, 1, a0, soff + j * sstr);
            }
            dwt_cpu_run(dwt_addr(a->base, a->pitch, 1, a0, toff + k * tstr), q[0], q[1], q[2], q[3], a1 - a0, &a->st,
                        a->type, a->inverse);
        }
    } else {
        for (int ib = b0; ib < b1; ib++)
            for (int ia = a0; ia < a1; ia++) {
                if (a->axis == 0)
                    dwt_step_one(a, ia, ib);
                else
                    dwt_step_one(a, ib, ia);
            }
    }
#endif
}

/* ---------------------------------------------------------------- */
/* dwt_split: deinterleave / interleave / copy along an axis          */
/* ---------------------------------------------------------------- */

RV_FN void dwt_split_one(const dwt_split_args *a, int q, int l)
{
    const int nS = (a->n + 1) >> 1;
    const int b = (q & 1) ? nS + (q >> 1) : q >> 1;
    const int qs = a->mode == 0 ? q : a->mode == 1 ? b : q;
    const int qd = a->mode == 0 ? b : q;
    const uint32_t v = *(const uint32_t *)dwt_addr(a->src, a->src_pitch, a->axis, l, qs);
    *(uint32_t *)dwt_addr(a->dst, a->dst_pitch, a->axis, l, qd) = v;
}

#if defined(RV_CUDA)
/* Block's stretch of cnt words src -> dst (dwt_copy16, dwt_copyrect): a full stretch of
 * 4 DWT_COPY_Q blockDim words from 16-byte aligned bases (al) as DWT_COPY_Q 16-byte
 * copies a thread, all loaded before any is stored; otherwise 4 bytes at a time. */
static __device__ __forceinline__ void dwt_copy_stretch(const uint32_t *src, uint32_t *dst, int cnt, int al)
{
    const int T = (int)blockDim.x, t = (int)threadIdx.x;
    if (al && cnt == 4 * DWT_COPY_Q * T) {
        uint4 v[DWT_COPY_Q];
#  pragma unroll
        for (int q = 0; q < DWT_COPY_Q; q++)
            v[q] = __ldcs((const uint4 *)src + q * T + t);
#  pragma unroll
        for (int q = 0; q < DWT_COPY_Q; q++)
            __stcs((uint4 *)dst + q * T + t, v[q]);
    } else {
        for (int w = t; w < cnt; w += T)
            dst[w] = src[w];
    }
}
#endif

/*
 * dwt_copy16: block b copies words [b W, (b + 1) W), W = 4 DWT_COPY_Q blockDim
 * words: thread t's DWT_COPY_Q 16-byte copies are loaded before any is stored
 * (all in flight), consecutive threads at consecutive 16 bytes. Unaligned
 * bases or a tail of fewer than 4 words go 4 bytes at a time.
 */
RV_RAW_KERNEL_CHAINED(dwt_copy16, dwt_copy_args, a, blk)
{
#if defined(RV_CUDA)
    const int64_t w0 = (int64_t)blk.x * 4 * DWT_COPY_Q * (int)blockDim.x;
    const int64_t w1 = w0 + 4ll * DWT_COPY_Q * (int)blockDim.x < a->words ? w0 + 4ll * DWT_COPY_Q * (int)blockDim.x
                                                                            : a->words;
    dwt_copy_stretch((const uint32_t *)(uintptr_t)a->src + w0, (uint32_t *)(uintptr_t)a->dst + w0, (int)(w1 - w0),
                     ((a->src | a->dst) & 15) == 0);
#else
    const int64_t per = a->words < 65536 ? a->words : 65536;
    const int64_t w0 = (int64_t)blk.x * per, w1 = w0 + per < a->words ? w0 + per : a->words;
    if (w1 > w0)
        memcpy((uint32_t *)(uintptr_t)a->dst + w0, (const uint32_t *)(uintptr_t)a->src + w0, (size_t)(w1 - w0) * 4);
#endif
}

/*
 * dwt_copyrect: block (x, y) copies stretch x (4 DWT_COPY_Q blockDim words; the
 * CPU: 65536 words) of row y. Like dwt_copy16, 16-byte copies all in flight
 * before any is stored where the row's bases are 16-byte aligned.
 */
RV_RAW_KERNEL_CHAINED(dwt_copyrect, dwt_rect_args, a, blk)
{
    const unsigned char *srow = (const unsigned char *)(uintptr_t)a->src + (int64_t)blk.y * a->src_pitch;
    unsigned char *drow = (unsigned char *)(uintptr_t)a->dst + (int64_t)blk.y * a->dst_pitch;
    const uint32_t *src = (const uint32_t *)srow;
    uint32_t *dst = (uint32_t *)drow;
#if defined(RV_CUDA)
    const int w0 = blk.x * 4 * DWT_COPY_Q * (int)blockDim.x;
    const int w1 = RV__MIN(w0 + 4 * DWT_COPY_Q * (int)blockDim.x, a->words);
    dwt_copy_stretch(src + w0, dst + w0, w1 - w0, (((uintptr_t)srow | (uintptr_t)drow) & 15) == 0);
#else
    const int w0 = blk.x * 65536, w1 = RV__MIN(w0 + 65536, a->words);
    if (w1 > w0)
        memcpy(dst + w0, src + w0, (size_t)(w1 - w0) * 4);
#endif
}

RV_RAW_KERNEL_CHAINED(dwt_split, dwt_split_args, a, blk)
{
    const int na = a->axis == 0 ? a->n : a->nlines;
    const int nb = a->axis == 0 ? a->nlines : a->n;
    const int a0 = blk.x * a->tile_a, a1 = RV__MIN(a0 + a->tile_a, na);
    const int b0 = blk.y * a->tile_b, b1 = RV__MIN(b0 + a->tile_b, nb);
#if defined(RV_CUDA)
    for (int ib = b0 + (int)threadIdx.y; ib < b1; ib += blk.ty)
        for (int ia = a0 + (int)threadIdx.x; ia < a1; ia += blk.tx) {
            if (a->axis == 0)
                dwt_split_one(a, ia, ib);
            else
                dwt_split_one(a, ib, ia);
        }
#else
    if (a->mode == 2 || a->axis == 1) {
        /* Whole row runs at a time: memcpy per row (or row segment). */
        for (int ib = b0; ib < b1; ib++) {
            if (a->axis == 0) {
                memcpy(dwt_addr(a->dst, a->dst_pitch, 0, ib, a0),
                       dwt_addr(a->src, a->src_pitch, 0, ib, a0), (size_t)(a1 - a0) * 4);
            } else {
                const int nS = (a->n + 1) >> 1;
                const int b = (ib & 1) ? nS + (ib >> 1) : ib >> 1;
                const int qs = a->mode == 1 ? b : ib, qd = a->mode == 0 ? b : ib;
                memcpy(dwt_addr(a->dst, a->dst_pitch, 1, a0, qd),
                       dwt_addr(a->src, a->src_pitch, 1, a0, qs), (size_t)(a1 - a0) * 4);
            }
        }
        return;
    }
    for (int ib = b0; ib < b1; ib++)
        for (int ia = a0; ia < a1; ia++)
            dwt_split_one(a, ia, ib);
#endif
}

/* ---------------------------------------------------------------- */
/* dwt_rowfused: rows in shared memory, steps and levels fused        */
/* ---------------------------------------------------------------- */

#if defined(RV_CUDA)
extern __shared__ __align__(16) uint32_t dwt_sh[]; /* 16: cp.async and uint4 rows */

/* 4 or 16 bytes global -> shared without registers (cp.async, sm_80+); complete after dwt_cp_wait. */
static __device__ __forceinline__ void dwt_cp4(uint32_t *s, const uint32_t *g)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"((unsigned)__cvta_generic_to_shared(s)), "l"(g)
                 : "memory");
}

static __device__ __forceinline__ void dwt_cp16(uint32_t *s, const unsigned char *g)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(s)), "l"(g)
                 : "memory");
}

static __device__ __forceinline__ void dwt_cp_wait(void)
{
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
}

/* Lifting of one level on S = sh[0, nS), D = sh[nS, m): all steps. */
static __device__ void dwt_sh_lift(const dwt_row_args *a, uint32_t *sh, int m)
{
    const int nS = (m + 1) >> 1, nD = m >> 1;
    for (int si = 0; si < a->nsteps; si++) {
        const int s = a->inverse ? a->nsteps - 1 - si : si;
        const dwt_step *st = &a->steps[s];
        const int nt = st->target == 0 ? nD : nS;
        uint32_t *tw = st->target == 0 ? sh + nS : sh;
        const uint32_t *sw = st->target == 0 ? sh : sh + nS;
        dwt_step_w(tw, sw, 1, m, (int)threadIdx.x, nt, (int)blockDim.x, 0, st->target == 0 ? nS : nD, st, a->type,
                   a->inverse);
        __syncthreads();
    }
}
#else
static void dwt_cpu_lift(const dwt_row_args *a, uint32_t *sh, int m)
{
    const int nS = (m + 1) >> 1, nD = m >> 1;
    unsigned char *S = (unsigned char *)sh, *D = (unsigned char *)(sh + nS);
    for (int si = 0; si < a->nsteps; si++) {
        const int s = a->inverse ? a->nsteps - 1 - si : si;
        const dwt_step *st = &a->steps[s];
        const int nt = st->target == 0 ? nD : nS;
        unsigned char *tb = st->target == 0 ? D : S;
        const unsigned char *sb = st->target == 0 ? S : D;
        dwt_cpu_band(tb, sb, 0, nt, m, st, a->type, a->inverse);
    }
}
#endif

/*
 * The row pass; ak (a literal at both call sites, so each kernel keeps only
 * its own load and store code and registers): 1 for dwt_rowasync (cp.async
 * loads, 16-byte stores; the host launches it when a->async), 0 for
 * dwt_rowfused.
 */
RV_FN void dwt_row_body(const dwt_row_args *a, rv_block blk, const int ak)
{
    const int n = a->n;
    const int lev = dwt_eff_levels(n, a->levels);
    const int r0 = blk.x * a->tile_rows, r1 = RV__MIN(r0 + a->tile_rows, a->rows);
#if defined(RV_CUDA)
    /* shared: the line (n words), then for lev > 1 a split buffer (ceil(n/2) words) */
    uint32_t *sh = dwt_sh, *tmp = dwt_sh + n;
    const int T = (int)blockDim.x, tid = (int)threadIdx.x;
    for (int row = r0; row < r1; row++) {
        const uint32_t *src = (const uint32_t *)(uintptr_t)(a->src + (uint64_t)((int64_t)row * a->src_pitch));
        uint32_t *dst = (uint32_t *)(uintptr_t)(a->dst + (uint64_t)((int64_t)row * a->dst_pitch));
        if (lev == 0) {
            for (int p = tid; p < n; p += T)
                dst[p] = src[p];
            continue;
        }
        if (!a->inverse) {
            /* level 0 straight from global memory: pairs (2k, 2k+1) -> S[k], D[k] */
            int m = n, nS = (m + 1) >> 1;
            if (ak) {
                /* every sample of the row in flight at once, straight into S and D */
                for (int k = tid; k < nS; k += T) {
                    dwt_cp4(sh + k, src + 2 * k);
                    if (2 * k + 1 < m)
                        dwt_cp4(sh + nS + k, src + 2 * k + 1);
                }
                dwt_cp_wait();
            } else if (((uintptr_t)src & 7) == 0) {
                /* aligned: one 8-byte load a pair, DWT_RUNROLL loads in flight a thread */
                const uint2 *s2 = (const uint2 *)src;
                const int np = m >> 1;
                for (int k0 = tid; k0 < np; k0 += DWT_RUNROLL * T) {
                    uint2 v[DWT_RUNROLL];
#pragma unroll
                    for (int u = 0; u < DWT_RUNROLL; u++)
                        if (k0 + u * T < np)
                            v[u] = s2[k0 + u * T];
#pragma unroll
                    for (int u = 0; u < DWT_RUNROLL; u++)
                        if (k0 + u * T < np) {
                            sh[k0 + u * T] = v[u].x;
                            sh[nS + k0 + u * T] = v[u].y;
                        }
                }
                if ((m & 1) && tid == 0)
                    sh[nS - 1] = src[m - 1];
            } else {
                for (int k = tid; k < nS; k += T) {
                    sh[k] = src[2 * k];
                    if (2 * k + 1 < m)
                        sh[nS + k] = src[2 * k + 1];
                }
            }
            __syncthreads();
            dwt_sh_lift(a, sh, m);
            for (int l = 1; l < lev; l++) {
                m = nS;
                nS = (m + 1) >> 1;
                for (int p = tid; p < m; p += T)
                    tmp[p] = sh[p];
                __syncthreads();
                for (int k = tid; k < nS; k += T) {
                    sh[k] = tmp[2 * k];
                    if (2 * k + 1 < m)
                        sh[nS + k] = tmp[2 * k + 1];
                }
                __syncthreads();
                dwt_sh_lift(a, sh, m);
            }
            if (a->interleaved) {
                for (int p = tid; p < n; p += T)
                    dst[p] = sh[dwt_block_index(p, n, lev)];
            } else if (ak && ((uintptr_t)dst & 15) == 0) {
                /* 16 bytes a thread, then the tail */
                const int nq = n >> 2;
                for (int q = tid; q < nq; q += T)
                    __stcg((uint4 *)dst + q, ((const uint4 *)sh)[q]);
                for (int p = 4 * nq + tid; p < n; p += T)
                    dst[p] = sh[p];
            } else {
                for (int p = tid; p < n; p += T)
                    dst[p] = sh[p];
            }
        } else {
            if (a->interleaved) {
                for (int p = tid; p < n; p += T)
                    sh[dwt_block_index(p, n, lev)] = src[p];
            } else if (ak && ((uintptr_t)src & 15) == 0) {
                const int nq = n >> 2;
                for (int q = tid; q < nq; q += T)
                    dwt_cp16(sh + 4 * q, (const unsigned char *)(src + 4 * q));
                for (int p = 4 * nq + tid; p < n; p += T)
                    dwt_cp4(sh + p, src + p);
                dwt_cp_wait();
            } else {
                for (int p0 = tid; p0 < n; p0 += DWT_RUNROLL * T) {
                    uint32_t v[DWT_RUNROLL];
#pragma unroll
                    for (int u = 0; u < DWT_RUNROLL; u++)
                        if (p0 + u * T < n)
                            v[u] = src[p0 + u * T];
#pragma unroll
                    for (int u = 0; u < DWT_RUNROLL; u++)
                        if (p0 + u * T < n)
                            sh[p0 + u * T] = v[u];
                }
            }
            __syncthreads();
            for (int l = lev - 1; l >= 0; l--) {
                int m = n;
                for (int i = 0; i < l; i++)
                    m = (m + 1) >> 1;
                const int nS = (m + 1) >> 1;
                dwt_sh_lift(a, sh, m);
                if (l == 0 && ((uintptr_t)dst & 7) == 0) {
                    uint2 *d2 = (uint2 *)dst;
                    for (int k = tid; k < (m >> 1); k += T)
                        d2[k] = make_uint2(sh[k], sh[nS + k]);
                    if ((m & 1) && tid == 0)
                        dst[m - 1] = sh[nS - 1];
                } else if (l == 0) {
                    for (int k = tid; k < nS; k += T) {
                        dst[2 * k] = sh[k];
                        if (2 * k + 1 < m)
                            dst[2 * k + 1] = sh[nS + k];
                    }
                } else {
                    for (int p = tid; p < m; p += T)
                        tmp[p] = sh[p];
                    __syncthreads();
                    for (int k = tid; k < nS; k += T) {
                        sh[2 * k] = tmp[k];
                        if (2 * k + 1 < m)
                            sh[2 * k + 1] = tmp[nS + k];
                    }
                    __syncthreads();
                }
            }
        }
        __syncthreads();
    }
#else
    (void)ak; /* the CPU body is the same for both kernels */
    /* CPU: blk.shared holds 2n words: the working line and a split buffer. */
    uint32_t *sh = (uint32_t *)blk.shared, *tmp = sh + n;
    for (int row = r0; row < r1; row++) {
        const uint32_t *src = (const uint32_t *)(uintptr_t)(a->src + (uint64_t)((int64_t)row * a->src_pitch));
        uint32_t *dst = (uint32_t *)(uintptr_t)(a->dst + (uint64_t)((int64_t)row * a->dst_pitch));
        if (lev == 0) {
            memmove(dst, src, (size_t)n * 4);
            continue;
        }
        if (!a->inverse) {
            /* level 0 straight from the source row into S | D */
            int m = n, nS = (n + 1) >> 1;
            for (int k = 0; k < nS; k++)
                sh[k] = src[2 * k];
            for (int k = 0; k < (n >> 1); k++)
                sh[nS + k] = src[2 * k + 1];
            dwt_cpu_lift(a, sh, m);
            for (int l = 1; l < lev; l++) {
                m = nS;
                nS = (m + 1) >> 1;
                for (int k = 0; k < nS; k++)
                    tmp[k] = sh[2 * k];
                for (int k = 0; k < (m >> 1); k++)
                    tmp[nS + k] = sh[2 * k + 1];
                memcpy(sh, tmp, (size_t)m * 4);
                dwt_cpu_lift(a, sh, m);
            }
            if (a->interleaved) {
                for (int p = 0; p < n; p++)
                    dst[p] = sh[dwt_block_index(p, n, lev)];
            } else {
                memcpy(dst, sh, (size_t)n * 4);
            }
        } else {
            if (a->interleaved) {
                for (int p = 0; p < n; p++)
                    sh[dwt_block_index(p, n, lev)] = src[p];
            } else {
                memcpy(sh, src, (size_t)n * 4);
            }
            for (int l = lev - 1; l >= 0; l--) {
                int m = n;
                for (int i = 0; i < l; i++)
                    m = (m + 1) >> 1;
                const int nS = (m + 1) >> 1;
                dwt_cpu_lift(a, sh, m);
                uint32_t *o = l == 0 ? dst : tmp;
                for (int k = 0; k < nS; k++)
                    o[2 * k] = sh[k];
                for (int k = 0; k < (m >> 1); k++)
                    o[2 * k + 1] = sh[nS + k];
                if (l > 0)
                    memcpy(sh, tmp, (size_t)m * 4);
            }
        }
    }
#endif
}

RV_RAW_KERNEL_CHAINED(dwt_rowfused, dwt_row_args, a, blk)
{
    dwt_row_body(a, blk, 0);
}

RV_RAW_KERNEL_CHAINED(dwt_rowasync, dwt_row_args, a, blk)
{
    dwt_row_body(a, blk, 1);
}

/* ---------------------------------------------------------------- */
/* dwt_rowreg: one level of a row lifted in registers (GPU)           */
/* ---------------------------------------------------------------- */

/*
 * The row is copied unchanged into shared memory (cp.async, one barrier);
 * then every warp lifts segments of 32 M pairs in registers and writes them
 * straight to dst, with no further barrier (shared memory is only read after
 * the copy, so in place is safe: the whole row is on chip before any store).
 *
 * Lanes own interleaved pairs: lane l of the warp holds pairs p = seg - 32 +
 * 32 i + l, i = 0 .. M + 1 (rows 0 and M + 1: 32 pairs of window on either
 * side, lifted too; their ends go wrong, by at most the steps' reach, which
 * stays far from rows 1 .. M). A warp's window loads are then 32 consecutive
 * pairs an instruction (8-byte words: conflict-free), and a tap at pair p + d
 * comes from lane (l + d) & 31 by one shuffle: the lanes that wrap around
 * send their neighbouring row instead (one select). Only the step forms of
 * CDF 5/3, 9/7 and DD(13,7) (2 taps at d = 0, 1 or -1, 0; 4 taps at -1..2 or
 * -2..1; the host checks) are taken here.
 *
 * Positions beyond the row take the whole-sample symmetric extension of the
 * signal (pair p: samples mirror(2p), mirror(2p + 1)): for these symmetric
 * steps (symmetric weights, the host checks) the lifting of the extended
 * signal stays symmetric, so the values in the row equal those of
 * dwt_taps's reflection bit for bit (same operations, dwt_lift_nt): a 2-tap
 * float sum is commutative, integers are exact, and dwt_lift_nt sums 4 float
 * taps as (outer pair) + (inner pair), which the mirrored order gives too.
 */
#if defined(RV_CUDA)
/*
 * The straight-line step programs (DWT_FIX_*, a literal FIX), for the register
 * lifting of rows (dwt_rowreg_seg) and of columns and levels (dwt_regs_lift): the
 * steps in order (INV: reversed, as the inverse takes them) as STEP(K, TGT, OFF,
 * NT, P): step K updates band D (TGT 0) or S (TGT 1) from taps of the other band
 * at OFF .. OFF + NT - 1, P whether it scales. CDF 9/7: D S D S, 2 taps (offsets
 * 0, -1), the last two scaled; DD(13,7): D S, 4 taps (offsets -1, -2), unscaled
 * (the host's fix_shape checks the steps have this shape).
 */
#  define DWT_FIX_STEPS(STEP, FIX, INV)                                                            \
    do {                                                                                           \
        if ((FIX) == DWT_FIX_CDF97) {                                                              \
            _Pragma("unroll") for (int j_ = 0; j_ < 4; j_++) {                                     \
                const int k_ = (INV) ? 3 - j_ : j_;                                                \
                STEP(k_, k_ & 1, (k_ & 1) ? -1 : 0, 2, k_ >= 2);                                   \
            }                                                                                      \
        } else if ((FIX) == DWT_FIX_DD137) {                                                       \
            _Pragma("unroll") for (int j_ = 0; j_ < 2; j_++) {                                     \
                const int k_ = (INV) ? 1 - j_ : j_;                                                \
                STEP(k_, k_, k_ ? -2 : -1, 4, 0);                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)
/* value of band X at pair p + DD for each lane, window row I of A */
#  define DWT_RCL(x, A) ((x) < 0 ? 0 : (x) >= (A) ? (A) - 1 : (x))
#  define DWT_NB(X, I, DD)                                                                                        \
    ((DD) == 0 ? X[I]                                                                                             \
               : __shfl_sync(0xffffffffu,                                                                          \
                             (DD) > 0 ? (lane < (DD) ? X[DWT_RCL((I) + 1, A)] : X[I])                              \
                                      : (lane >= 32 + (DD) ? X[DWT_RCL((I) - 1, A)] : X[I]),                       \
                             (lane + (DD)) & 31))
/* one step on every window row: target band T, taps of SRC at O .. O + NT - 1 */
#  define DWT_RROW_P(T, SRC, O, NT, P)                                                                       \
    do {                                                                                                          \
        _Pragma("unroll") for (int i = 0; i < A; i++) {                                                           \
            const uint32_t v0 = DWT_NB(SRC, i, (O)), v1 = DWT_NB(SRC, i, (O) + 1);                                \
            const uint32_t v2 = (NT) > 2 ? DWT_NB(SRC, i, (O) + 2) : 0u, v3 = (NT) > 3 ? DWT_NB(SRC, i, (O) + 3) : 0u; \
            T[i] = dwt_lift_np(T[i], v0, v1, v2, v3, st, TYPE, INV, (NT), (P));                                   \
        }                                                                                                         \
    } while (0)
#  define DWT_RROW(T, SRC, O, NT) DWT_BY_POST(DWT_RROW_P, T, SRC, O, NT)
static __device__ __forceinline__ void dwt_rowreg_seg(const dwt_row_args *a, const uint32_t *sh, uint32_t *dst,
                                                      int n, int seg, int lane, int edge, const int TYPE,
                                                      const int INV, const int M, int xs, int dof, const int FIX)
{
    /* forward: sh holds samples [xs, ...) of the row (xs a multiple of 4; 0 unless a
     * window); inverse: S pairs [xs, ...) at sh[0 ...), D pairs [xs, ...) at sh[dof ...)
     * (the whole row: xs 0, dof nS) */
    const int A = M + 2; /* M (a constant where it is called) pairs a lane and a window row each side */
    const int nS = (n + 1) >> 1, nD = n >> 1;
    uint32_t S[DWT_RM + 2], D[DWT_RM + 2];
    const int p0 = seg - 32 + lane; /* pair of window row 0 */
    if (!edge) {
        /* interior: no reflection */
        if (!INV) {
            const uint2 *s2 = (const uint2 *)sh + (p0 - (xs >> 1)); /* the row as it is: pair p at sh[2p - xs] */
#  pragma unroll
            for (int i = 0; i < A; i++) {
                const uint2 v = s2[32 * i];
                S[i] = v.x;
                D[i] = v.y;
            }
        } else {
#  pragma unroll
            for (int i = 0; i < A; i++) {
                S[i] = sh[p0 - xs + 32 * i];
                D[i] = sh[dof + p0 - xs + 32 * i];
            }
        }
    } else {
#  pragma unroll
        for (int i = 0; i < A; i++) {
            /* samples 2p, 2p + 1 of the symmetric extension (one reflection; more for short rows) */
            int qs = dwt_reflect_once(2 * (p0 + 32 * i), n), qd = dwt_reflect_once(2 * (p0 + 32 * i) + 1, n);
            if ((unsigned)qs >= (unsigned)n || (unsigned)qd >= (unsigned)n) {
                qs = dwt_mirror(qs, n);
                qd = dwt_mirror(qd, n);
            }
            S[i] = INV ? sh[(qs >> 1) - xs] : sh[qs - xs];
            D[i] = INV ? sh[dof + (qd >> 1) - xs] : sh[qd - xs];
        }
    }
    /* FIX (a literal, DWT_FIX_*): the program's shape as straight-line code, as in
     * dwt_regs_lift: no step dispatched at run time, and the window rows a later step
     * does not read (rows 0 and M + 1 of the last step, row M + 1 of the one before
     * for CDF 9/7) not lifted; the same operations on every row kept */
    if (TYPE == DWT_F32 && FIX != DWT_FIX_NONE) {
#  define DWT_RROW_K(K, TGT, OFF, NT, P)                                                           \
      do {                                                                                         \
          const dwt_step *st = &a->steps[(K)];                                                     \
          if ((TGT) == 0)                                                                          \
              DWT_RROW_P(D, S, OFF, NT, P);                                                        \
          else                                                                                     \
              DWT_RROW_P(S, D, OFF, NT, P);                                                        \
      } while (0)
        DWT_FIX_STEPS(DWT_RROW_K, FIX, INV);
#  undef DWT_RROW_K
    } else {
        const int ns = a->nsteps;
        for (int si = 0; si < ns; si++) {
            const dwt_step *st = &a->steps[INV ? ns - 1 - si : si];
            if (st->target == 0) { /* D += f(S): taps S[p], S[p+1] or S[p-1..p+2] */
                if (st->ntaps == 2)
                    DWT_RROW(D, S, 0, 2);
                else
                    DWT_RROW(D, S, -1, 4);
            } else { /* S += f(D): taps D[p-1], D[p] or D[p-2..p+1] */
                if (st->ntaps == 2)
                    DWT_RROW(S, D, -1, 2);
                else
                    DWT_RROW(S, D, -2, 4);
            }
        }
    }
    /* rows 1 .. M: pairs seg + 32 (i - 1) + lane */
    if (!INV) {
#  pragma unroll
        for (int i = 1; i <= M; i++) {
            const int p = p0 + 32 * i;
            if (p < nS)
                __stcg(dst + p, S[i]);
            if (p < nD)
                __stcg(dst + nS + p, D[i]);
        }
    } else if (((uintptr_t)dst & 7) == 0) {
#  pragma unroll
        for (int i = 1; i <= M; i++) {
            const int p = p0 + 32 * i;
            if (p < nD)
                __stcg((uint2 *)dst + p, make_uint2(S[i], D[i]));
            else if (p < nS)
                __stcg(dst + 2 * p, S[i]);
        }
    } else {
#  pragma unroll
        for (int i = 1; i <= M; i++) {
            const int p = p0 + 32 * i;
            if (p < nS)
                dst[2 * p] = S[i];
            if (p < nD)
                dst[2 * p + 1] = D[i];
        }
    }
}
#  undef DWT_RROW
#  undef DWT_RROW_P
#  undef DWT_NB
#  undef DWT_RCL
#endif

#if defined(RV_CUDA)
/* len words from src into sh, all in flight (16-byte copies where src is aligned); complete after dwt_cp_wait. */
static __device__ __forceinline__ void dwt_row_copy_in(uint32_t *sh, const uint32_t *src, int len, int tid, int T)
{
    if (((uintptr_t)src & 15) == 0) {
        const int nq = len >> 2;
        for (int q = tid; q < nq; q += T)
            dwt_cp16(sh + 4 * q, (const unsigned char *)(src + 4 * q));
        for (int p = 4 * nq + tid; p < len; p += T)
            dwt_cp4(sh + p, src + p);
    } else {
        for (int p = tid; p < len; p += T)
            dwt_cp4(sh + p, src + p);
    }
}

/* dwt_rowreg's body with M pairs a lane (a constant at each entry); WIN (a constant):
 * the windowed form (a->win, dwt_rowwin), so that the plain entries keep their registers */
static __device__ __forceinline__ void dwt_rowreg_body(const dwt_row_args *a, rv_block blk, const int M,
                                                       const int WIN, const int FIX)
{
    /* the host launches it for one level, block layout, f32 or i32, the step forms above,
     * a multiple of 32 threads; shared: n words, or with a window the host's
     * ROW_WIN_WORDS */
    const int n = a->n, nS = (n + 1) >> 1, nD = n >> 1;
    const int T = (int)blockDim.x, tid = (int)threadIdx.x, lane = tid & 31;
    const int nseg = (nS + 32 * M - 1) / (32 * M);
    int r0, r1, sg0 = 0, sg1 = nseg, xs = 0, xe = n;
    if (WIN) {
        /* window c of row r: segments [c win, (c + 1) win), samples [xs, xe) they read
         * (pairs from 32 before the first segment to 32 (M + 1) past the last one's
         * start, and at the row's end the pairs the reflection brings back) */
        const int nch = (nS + a->win - 1) / a->win, c = blk.x % nch;
        r0 = blk.x / nch;
        r1 = r0 + 1;
        sg0 = c * a->win / (32 * M);
        sg1 = RV__MIN(sg0 + a->win / (32 * M), nseg);
        const int hiP = (sg1 - 1) * 32 * M + 32 * (M + 1); /* pairs read: < hiP */
        xs = 2 * (sg0 * 32 * M - 32);
        if (2 * hiP > n)
            xs = RV__MIN(xs, 2 * n - 1 - 2 * hiP);
        xs = xs < 0 ? 0 : xs & ~3;
        xe = RV__MIN(n, 2 * hiP);
    } else {
        r0 = blk.x * a->tile_rows;
        r1 = RV__MIN(r0 + a->tile_rows, a->rows);
    }
    /* inverse: the window's pairs [ps, pe) of the S half at sh[0 ...), of the D half at
     * sh[dof ...); the whole row: ps 0, dof nS */
    const int inv = a->inverse;
    int ps = 0, dof = nS, ls = nS, ld = nD;
    if (WIN && inv) {
        ps = (xs >> 1) & ~3;
        const int pe = (xe + 1) >> 1;
        ls = RV__MIN(pe, nS) - ps;
        ld = RV__MIN(pe, nD) - ps;
        dof = (ls + 3) & ~3;
    }
    uint32_t *sh = dwt_sh;
    for (int row = r0; row < r1; row++) {
        const uint32_t *src = (const uint32_t *)(uintptr_t)(a->src + (uint64_t)((int64_t)row * a->src_pitch));
        uint32_t *dst = (uint32_t *)(uintptr_t)(a->dst + (uint64_t)((int64_t)row * a->dst_pitch));
        /* the row (or the window) unchanged into shared memory, all of it in flight */
        if (WIN && inv) {
            dwt_row_copy_in(sh, src + ps, ls, tid, T);
            dwt_row_copy_in(sh + dof, src + nS + ps, ld, tid, T);
        } else {
            dwt_row_copy_in(sh, src + xs, xe - xs, tid, T);
        }
        dwt_cp_wait();
        __syncthreads();
        for (int sg = sg0 + (tid >> 5); sg < sg1; sg += T >> 5) {
            const int seg = sg * 32 * M;
            /* edge: the window reaches beyond the row (reflection) */
            const int edge = seg < 32 || seg + 32 * (M + 1) > nD;
#  define DWT_ROW_SEG(TYPE, FIX)                                                                    \
      do {                                                                                         \
          if (inv)                                                                                 \
              dwt_rowreg_seg(a, sh, dst, n, seg, lane, edge, TYPE, 1, M, ps, dof, FIX);            \
          else                                                                                     \
              dwt_rowreg_seg(a, sh, dst, n, seg, lane, edge, TYPE, 0, M, xs, 0, FIX);              \
      } while (0)
            if (a->type == DWT_F32)
                DWT_ROW_SEG(DWT_F32, FIX);
            else if (FIX == DWT_FIX_NONE) /* the shapes: float only (the host checks) */
                DWT_ROW_SEG(DWT_I32, DWT_FIX_NONE);
#  undef DWT_ROW_SEG
        }
        __syncthreads(); /* before the next row overwrites sh */
    }
}
#endif

/*
 * The entries: dwt_rowreg (DWT_RM_ROW pairs a lane: rows of more than
 * DWT_RM_SMALL_NS pairs), dwt_rowreg_s (DWT_RM_SMALL pairs a lane: the small
 * levels' rows, in its own entry so that dwt_rowreg keeps its registers) and
 * dwt_rowwin (the rows in windows of a->win pairs: rows too long for one
 * block's shared memory), each step by step (any step form they take) and,
 * as _c97 and _dd (GPU only), with the straight-line shapes DWT_FIX_CDF97 and
 * DWT_FIX_DD137: the host picks the entry by the steps' shape (fix_shape).
 * One shape an entry: three bodies in one entry, chosen at run time, made the
 * step-by-step rows about 5 % slower at 4096^2 (H200, session 30,
 * docs/perf/dwt.md), and chosen a segment at a time inside one body the
 * shapes took 56 registers against 48. None of them is launched on the CPU
 * (the host picks dwt_rowfused there; dwt_rowwin is GPU only).
 */
#if defined(RV_CUDA)
#  define DWT_ROWREG_ENTRY(NAME, M, WIN, FIX)                                                      \
    RV_RAW_KERNEL_CHAINED(NAME, dwt_row_args, a, blk)                                              \
    {                                                                                              \
        dwt_rowreg_body(a, blk, M, WIN, FIX);                                                      \
    }
#else
#  define DWT_ROWREG_ENTRY(NAME, M, WIN, FIX)                                                      \
    RV_RAW_KERNEL_CHAINED(NAME, dwt_row_args, a, blk)                                              \
    {                                                                                              \
        (void)a;                                                                                   \
        (void)blk;                                                                                 \
    }
#endif
DWT_ROWREG_ENTRY(dwt_rowreg, DWT_RM_ROW, 0, DWT_FIX_NONE)
DWT_ROWREG_ENTRY(dwt_rowreg_s, DWT_RM_SMALL, 0, DWT_FIX_NONE)
DWT_ROWREG_ENTRY(dwt_rowwin, DWT_RM, 1, DWT_FIX_NONE)
#if defined(RV_CUDA)
DWT_ROWREG_ENTRY(dwt_rowreg_c97, DWT_RM_ROW, 0, DWT_FIX_CDF97)
DWT_ROWREG_ENTRY(dwt_rowreg_dd, DWT_RM_ROW, 0, DWT_FIX_DD137)
DWT_ROWREG_ENTRY(dwt_rowreg_s_c97, DWT_RM_SMALL, 0, DWT_FIX_CDF97)
DWT_ROWREG_ENTRY(dwt_rowreg_s_dd, DWT_RM_SMALL, 0, DWT_FIX_DD137)
DWT_ROWREG_ENTRY(dwt_rowwin_c97, DWT_RM, 1, DWT_FIX_CDF97)
DWT_ROWREG_ENTRY(dwt_rowwin_dd, DWT_RM, 1, DWT_FIX_DD137)
#endif
#undef DWT_ROWREG_ENTRY

/* ---------------------------------------------------------------- */
/* dwt_colfused: out-of-place columns, steps fused in shared memory   */
/* ---------------------------------------------------------------- */

/* Loaded pair range [lo, hi) of a band of `cnt` for the tile starting at k0. */
RV_FN void dwt_tile_range(int k0, int R, int H, int cnt, int *lo, int *hi)
{
    *lo = k0 - H < 0 ? 0 : k0 - H;
    *hi = k0 + R + H > cnt ? cnt : k0 + R + H;
}

/*
 * Source rows j[] of target g in step st, or -1 when one lies outside the
 * loaded range [slo, shi) (the target is then not needed by the tile).
 */
RV_FN int dwt_tile_srcs(const dwt_step *st, int g, int n, int slo, int shi, int *j)
{
    dwt_taps(st, g, n, j);
    for (int i = 0; i < DWT_MAX_TAPS; i++) {
        if (i >= st->ntaps)
            j[i] = j[0];
        else if (j[i] < slo || j[i] >= shi)
            return -1;
    }
    return 0;
}

/* Address of pair g of a band: base + g * str (bytes; base may point outside a window). */
RV_FN unsigned char *dwt_pair(uint64_t base, int64_t str, int g, int64_t col_bytes)
{
    return (unsigned char *)(uintptr_t)(base + (uint64_t)((int64_t)g * str + col_bytes));
}

/* Row of the saved halo copy holding pair g of band `bd` (0 S, 1 D) for the tile [k0, kend). */
RV_FN int dwt_halo_row(int t, int H, int bd, int g, int k0, int kend)
{
    return t * 4 * H + bd * 2 * H + (g < k0 ? g - (k0 - H) : H + g - kend);
}

RV_RAW_KERNEL_CHAINED(dwt_halo, dwt_halo_args, a, blk)
{
    const int nS = (a->n + 1) >> 1, nD = a->n >> 1, H = a->H;
    const int c0 = blk.x * a->tile_cols, c1 = RV__MIN(c0 + a->tile_cols, a->ncols);
#if defined(RV_CUDA)
    if (a->vec) {
        /* 16-byte aligned rows: DWT_HALO_TILES tiles a block, 16 bytes a thread
         * (8 threads a row of 32 columns), 4 loads in flight a thread */
        const int nq = (c1 - c0) >> 2, per = 4 * H * 8, NT = (int)(blockDim.x * blockDim.y);
        const int w0 = (int)(threadIdx.y * blockDim.x + threadIdx.x), W = DWT_HALO_TILES * per;
        for (int wb = w0; wb < W; wb += 4 * NT) {
            uint4 v[4];
            uint4 *dp[4];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const int w = wb + u * NT, t = blk.y * DWT_HALO_TILES + w / per, r = (w % per) >> 3, q = w & 7;
                const int k0 = t * a->R, kend = RV__MIN(k0 + a->R, nS);
                const int bd = r / (2 * H), i = r % (2 * H), cnt = bd ? nD : nS;
                const int g = i < H ? k0 - H + i : kend + i - H;
                dp[u] = 0;
                if (w < W && k0 < nS && q < nq && g >= 0 && g < cnt) {
                    const int64_t cb = (int64_t)(c0 + 4 * q) * 4;
                    v[u] = __ldcg((const uint4 *)dwt_pair(bd ? a->src_d : a->src_s, a->str, g, cb));
                    dp[u] = (uint4 *)(uintptr_t)(a->halo + (uint64_t)(((int64_t)(t * 4 * H + r) * a->ncols) * 4 + cb));
                }
            }
#pragma unroll
            for (int u = 0; u < 4; u++)
                if (dp[u])
                    __stcg(dp[u], v[u]);
        }
        return;
    }
    const int t = blk.y, k0 = t * a->R, kend = RV__MIN(k0 + a->R, nS);
    const int c = c0 + (int)threadIdx.x;
    if (c >= c1)
        return;
    for (int r = (int)threadIdx.y; r < 4 * H; r += blk.ty) {
#else
    const int t = blk.y, k0 = t * a->R, kend = RV__MIN(k0 + a->R, nS);
    for (int r = 0; r < 4 * H; r++) {
#endif
        const int bd = r / (2 * H), i = r % (2 * H), cnt = bd ? nD : nS;
        const int g = i < H ? k0 - H + i : kend + i - H;
        if (g < 0 || g >= cnt)
            continue;
        const uint64_t src = bd ? a->src_d : a->src_s;
        uint32_t *dst = (uint32_t *)(uintptr_t)(a->halo + (uint64_t)(((int64_t)(t * 4 * H + r) * a->ncols) * 4));
#if defined(RV_CUDA)
        dst[c] = *(const uint32_t *)dwt_pair(src, a->str, g, (int64_t)c * 4);
#else
        memcpy(dst + c0, dwt_pair(src, a->str, g, (int64_t)c0 * 4), (size_t)(c1 - c0) * 4);
#endif
    }
}

#if defined(RV_CUDA)
/*
 * cnt rows of a strided run (row r at gp + r * gstr) into shared words
 * shp[r * tc]; thread row ty of TY, DWT_UNROLL loads in flight a thread.
 */
static __device__ __forceinline__ void dwt_col_load(uint32_t *shp, int tc, const unsigned char *gp, int64_t gstr,
                                                    int cnt, int ty, int TY)
{
    const int64_t gs = gstr * TY;
    const int ss = tc * TY;
    gp += (int64_t)ty * gstr;
    shp += ty * tc;
    for (int r0 = ty; r0 < cnt; r0 += DWT_CUNROLL * TY) {
        uint32_t v[DWT_CUNROLL];
#pragma unroll
        for (int u = 0; u < DWT_CUNROLL; u++)
            if (r0 + u * TY < cnt)
                v[u] = __ldcg((const unsigned int *)(gp + u * gs));
#pragma unroll
        for (int u = 0; u < DWT_CUNROLL; u++)
            if (r0 + u * TY < cnt)
                shp[u * ss] = v[u];
        gp += DWT_CUNROLL * gs;
        shp += DWT_CUNROLL * ss;
    }
}

/* The reverse: shared words shp[r * tc] to gp + r * gstr, r < cnt. */
static __device__ __forceinline__ void dwt_col_store(unsigned char *gp, int64_t gstr, const uint32_t *shp, int tc,
                                                     int cnt, int ty, int TY)
{
    const int64_t gs = gstr * TY;
    const int ss = tc * TY;
    gp += (int64_t)ty * gstr;
    shp += ty * tc;
    for (int r = ty; r < cnt; r += TY) {
        *(uint32_t *)gp = *shp;
        gp += gs;
        shp += ss;
    }
}

/*
 * Tile rows (32 words, 128 bytes; the first nq 16-byte chunks of each) r < cnt
 * from gp + r * gstr into shp[r * 32]: 8 threads a row, 16 bytes each, every
 * copy in flight at once.
 * The store is the reverse (16-byte shared load, 16-byte global store).
 */
static __device__ __forceinline__ void dwt_col_load16(uint32_t *shp, const unsigned char *gp, int64_t gstr, int cnt,
                                                      int tid, int NT, int nq)
{
    const int rs = NT >> 3;
    int r = (tid & 7) < nq ? tid >> 3 : cnt; /* a partial tile: nq chunks of 16 bytes a row */
    gp += (int64_t)r * gstr + (tid & 7) * 16;
    shp += r * 32 + (tid & 7) * 4;
    const int64_t gs = gstr * rs;
    for (; r < cnt; r += rs) {
        dwt_cp16(shp, gp);
        gp += gs;
        shp += rs * 32;
    }
}

static __device__ __forceinline__ void dwt_col_store16(unsigned char *gp, int64_t gstr, const uint32_t *shp, int cnt,
                                                       int tid, int NT, int nq)
{
    const int rs = NT >> 3;
    int r = (tid & 7) < nq ? tid >> 3 : cnt;
    gp += (int64_t)r * gstr + (tid & 7) * 16;
    shp += r * 32 + (tid & 7) * 4;
    const int64_t gs = gstr * rs;
    for (; r < cnt; r += rs) {
        __stcg((uint4 *)gp, *(const uint4 *)shp);
        gp += gs;
        shp += rs * 32;
    }
}

/* The pairs [k0, se) of band S and [k0, de) of band D of a 32-column tile (shared
 * rows from k0 - base, D after TR rows) to their destinations, 16 bytes a thread. */
static __device__ __forceinline__ void dwt_col_store_pairs16(const dwt_col_args *a, const uint32_t *sh, int k0,
                                                             int base, int TR, int se, int de, int64_t cb0, int tid,
                                                             int NT, int nq)
{
    if (se > k0)
        dwt_col_store16(dwt_pair(a->dst_s, a->dst_s_str, k0, cb0), a->dst_s_str, sh + (k0 - base) * 32, se - k0, tid,
                        NT, nq);
    if (de > k0)
        dwt_col_store16(dwt_pair(a->dst_d, a->dst_d_str, k0, cb0), a->dst_d_str, sh + (TR + k0 - base) * 32, de - k0,
                        tid, NT, nq);
}

/*
 * dwt_colreg's lifting: thread (tx, ty) lifts the M pairs [p0, p0 + M) of its
 * column (p0 = k0 + ty M) in registers, all steps, over a window of E more
 * pairs on either side (arrays S, D of A = M + 2E; s0 and d0 point at window
 * row 0, rows 32 words apart; window row i is pair g0 + i, reflected into the
 * column when `edge`). Each step updates every target whose taps lie
 * in the window (targets near the window's ends come out wrong, but the
 * supported step programs, checked by the host, keep [E, E + M) exact: E = 2
 * for 1- and 2-tap steps, 3 for 4-tap ones). Values reach registers by one
 * shared load each; one barrier (every window read before any write) instead
 * of one a step; only [E, E + M) is written back.
 */
#  define DWT_RCL(x, A) ((x) < 0 ? 0 : (x) >= (A) ? (A) - 1 : (x))
#  define DWT_RSTEP_P(T, SRC, OFF, NT, P)                                                                   \
    do {                                                                                                   \
        _Pragma("unroll") for (int i = 0; i < A; i++) if (i + (OFF) >= 0 && i + (OFF) + (NT) - 1 < A) T[i] = \
            dwt_lift_np(T[i], SRC[DWT_RCL(i + (OFF), A)], SRC[DWT_RCL(i + (OFF) + 1, A)],                    \
                        SRC[DWT_RCL(i + (OFF) + 2, A)], SRC[DWT_RCL(i + (OFF) + 3, A)], st, TYPE, INV, NT, P); \
    } while (0)
#  define DWT_RSTEP(T, SRC, OFF, NT) DWT_BY_POST(DWT_RSTEP_P, T, SRC, OFF, NT)
/* A shared-memory load the compiler keeps apart from the plain loads of the
 * interior window (dwt_col_regs_load): merged, both paths load through one
 * address register a row, where the interior's rows are one base plus
 * immediate offsets. */
static __device__ __forceinline__ uint32_t dwt_lds_apart(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"((unsigned)__cvta_generic_to_shared(p)));
    return v;
}

/* The window of A = M + 2E pairs of each band from shared memory (row i at
 * s0[i * 32], d0[i * 32]; at a column's end through the symmetric extension). */
static __device__ __forceinline__ void dwt_col_regs_load(const dwt_col_args *a, const uint32_t *s0,
                                                         const uint32_t *d0, uint32_t *S, uint32_t *D, int edge,
                                                         int g0, const int A)
{
    if (!edge) {
#  pragma unroll
        for (int i = 0; i < A; i++) {
            S[i] = s0[i * 32];
            D[i] = d0[i * 32];
        }
    } else {
        /* a tile at a column's end: window pairs g0 + i outside the column read
         * the pair of the symmetric extension (sample 2g or 2g + 1 reflected at
         * sample 0 or n - 1: one reflection, the window reaches E < nS pairs out) */
#  pragma unroll
        for (int i = 0; i < A; i++) {
            const int g = g0 + i;
            const int js = dwt_reflect_once(2 * g, a->n) >> 1, jd = dwt_reflect_once(2 * g + 1, a->n) >> 1;
            S[i] = dwt_lds_apart(s0 + (js - g0) * 32);
            D[i] = dwt_lds_apart(d0 + (jd - g0) * 32);
        }
    }
}

/* Step k of a literal shape on the window: T += f(SRC) with taps SRC[i + OFF ..
 * i + OFF + NT), P whether it scales (dwt_lift_np). */
#  define DWT_RSTEP_K(K, TGT, OFF, NT, P)                                                             \
    do {                                                                                           \
        const dwt_step *st = &steps[(K)];                                                          \
        if ((TGT) == 0)                                                                            \
            DWT_RSTEP_P(D, S, OFF, NT, P);                                                         \
        else                                                                                       \
            DWT_RSTEP_P(S, D, OFF, NT, P);                                                         \
    } while (0)

/* Every step on the window in registers (pairs [E, E + M) come out exact); the
 * steps of dwt_col_args or dwt_lvl_args. FIX (a literal, DWT_FIX_*, float data):
 * the program's shape as straight-line code, so that the compiler keeps of each
 * step only the pairs later steps read (at E = 2, 4 steps of CDF 9/7: 38 pairs
 * instead of 44) and no step is dispatched at run time; the same operations on
 * each pair kept, so the same results bit for bit. The inverse takes the steps
 * in reverse order, as the loop does. */
static __device__ __forceinline__ void dwt_regs_lift(const dwt_step *steps, const int ns, uint32_t *S, uint32_t *D,
                                                     const int A, const int TYPE, const int INV, const int FIX)
{
    if (TYPE == DWT_F32 && FIX != DWT_FIX_NONE) {
        DWT_FIX_STEPS(DWT_RSTEP_K, FIX, INV);
        return;
    }
    for (int si = 0; si < ns; si++) {
        const dwt_step *st = &steps[INV ? ns - 1 - si : si];
        const int nt = st->ntaps;
        if (st->target == 0) { /* D += f(S): taps S[g], S[g+1] or S[g-1..g+2] */
            if (nt == 1)
                DWT_RSTEP(D, S, 0, 1);
            else if (nt == 2)
                DWT_RSTEP(D, S, 0, 2);
            else
                DWT_RSTEP(D, S, -1, 4);
        } else { /* S += f(D): taps D[g], D[g-1..g] or D[g-2..g+1] */
            if (nt == 1)
                DWT_RSTEP(S, D, 0, 1);
            else if (nt == 2)
                DWT_RSTEP(S, D, -1, 2);
            else
                DWT_RSTEP(S, D, -2, 4);
        }
    }
}
#  undef DWT_RSTEP_K
#  undef DWT_FIX_STEPS

/* CALL(..., E, TYPE, FIX) (the arguments after fix first) with literal window E,
 * type and shape (DWT_FIX_*) for the run-time values type, e and fix: each
 * combination its own straight-line code; the straight-line shapes for float data
 * only (CDF 9/7 at E = 2, DD(13,7) at E = 3). */
#  define DWT_BY_SHAPE(CALL, type, e, fix, ...)                                                     \
    do {                                                                                           \
        const int e_ = (e);                                                                        \
        if ((type) == DWT_F32) {                                                                   \
            if (e_ == 2) {                                                                         \
                if ((fix) == DWT_FIX_CDF97)                                                        \
                    CALL(__VA_ARGS__, 2, DWT_F32, DWT_FIX_CDF97);                                  \
                else                                                                               \
                    CALL(__VA_ARGS__, 2, DWT_F32, DWT_FIX_NONE);                                   \
            } else if ((fix) == DWT_FIX_DD137) {                                                   \
                CALL(__VA_ARGS__, 3, DWT_F32, DWT_FIX_DD137);                                      \
            } else {                                                                               \
                CALL(__VA_ARGS__, 3, DWT_F32, DWT_FIX_NONE);                                       \
            }                                                                                      \
        } else if (e_ == 2) {                                                                      \
            CALL(__VA_ARGS__, 2, DWT_I32, DWT_FIX_NONE);                                           \
        } else {                                                                                   \
            CALL(__VA_ARGS__, 3, DWT_I32, DWT_FIX_NONE);                                           \
        }                                                                                          \
    } while (0)

/* DWT_BY_SHAPE for an entry of one literal shape FIXE (DWT_FIX_*): an entry of a
 * straight-line shape holds that shape's code alone (window 2 for CDF 9/7, 3 for
 * DD(13,7), float), a DWT_FIX_NONE entry the step-by-step code alone; the host
 * launches the entry of the steps' shape (dwt.c, shape_entries). */
#  define DWT_BY_FIXE(CALL, FIXE, type, e, ...)                                                    \
    do {                                                                                           \
        if ((FIXE) == DWT_FIX_CDF97)                                                               \
            CALL(__VA_ARGS__, 2, DWT_F32, DWT_FIX_CDF97);                                          \
        else if ((FIXE) == DWT_FIX_DD137)                                                          \
            CALL(__VA_ARGS__, 3, DWT_F32, DWT_FIX_DD137);                                          \
        else                                                                                       \
            DWT_BY_SHAPE(CALL, type, e, DWT_FIX_NONE, __VA_ARGS__);                                \
    } while (0)

static __device__ __forceinline__ void dwt_col_regs_lift(const dwt_col_args *a, uint32_t *S, uint32_t *D,
                                                         const int A, const int TYPE, const int INV, const int FIX)
{
    dwt_regs_lift(a->steps, a->nsteps, S, D, A, TYPE, INV, FIX);
}

static __device__ __forceinline__ void dwt_col_regs(const dwt_col_args *a, uint32_t *s0, uint32_t *d0, int ok,
                                                    int edge, int g0, const int M, const int E, const int TYPE,
                                                    const int INV, const int FIX)
{
    enum { AMAX = 16 + 2 * 3 }; /* M 8 or 16 (dwt_colclu16m), E at most 3 */
    const int A = M + 2 * E;
    uint32_t S[AMAX], D[AMAX];
    if (ok) {
        dwt_col_regs_load(a, s0, d0, S, D, edge, g0, A);
        dwt_col_regs_lift(a, S, D, A, TYPE, INV, FIX);
    }
    __syncthreads();
    if (ok) {
#  pragma unroll
        for (int i = E; i < E + M; i++) {
            s0[i * 32] = S[i];
            d0[i * 32] = D[i];
        }
    }
}
#  undef DWT_RSTEP
#  undef DWT_RSTEP_P
#  undef DWT_RCL
#endif

#if defined(RV_CUDA)
/*
 * The barrier of a cluster, split: arrive (release: this block's loads are
 * done) and wait (acquire: every block's are). Clusters exist from sm_90 on;
 * before, dwt_colclu is a trap and the host never takes it (rv_kernel_arch).
 */
#  if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
static __device__ __forceinline__ void dwt_cl_arrive(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
static __device__ __forceinline__ void dwt_cl_wait(void)
{
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
/* arrive without ordering this block's earlier stores (dwt_clp_strips) */
static __device__ __forceinline__ void dwt_cl_arrive_relaxed(void)
{
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
#  else
static __device__ __forceinline__ void dwt_cl_arrive(void)
{
    __trap();
}
static __device__ __forceinline__ void dwt_cl_wait(void)
{
}
static __device__ __forceinline__ void dwt_cl_arrive_relaxed(void)
{
    __trap();
}
#  endif

/*
 * The same barrier through global memory, for dwt_colgs (a cooperative
 * launch: every block resident). Strip s has two counters at a->sync + 8 s:
 * arrivals and departures. A block arrives once its loads have landed (after
 * a barrier of the block: thread 0's fence and add publish every thread's
 * reads), waits until all T tiles of the strip have arrived, and leaves; the
 * last to leave sets both counters back to 0 for the next launch (every
 * block of the strip has seen T by then).
 */
/* (the counters of index `strip` at sync; dwt_lvl2d's too) */
static __device__ __forceinline__ void dwt_cnt_arrive(uint64_t sync, int strip, int tid)
{
    if (tid == 0) {
        unsigned *c = (unsigned *)(uintptr_t)sync + 2 * strip;
        __threadfence();
        atomicAdd(c, 1u);
    }
}
static __device__ __forceinline__ void dwt_gs_arrive(const dwt_col_args *a, int strip, int tid)
{
    dwt_cnt_arrive(a->sync, strip, tid);
}
static __device__ __forceinline__ void dwt_cnt_wait(uint64_t sync, int strip, int tid, unsigned T)
{
    if (tid == 0) {
        unsigned *c = (unsigned *)(uintptr_t)sync + 2 * strip, v;
        do
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(c) : "memory");
        while (v < T);
        if (atomicAdd(c + 1, 1u) == T - 1) {
            atomicExch(c, 0u);
            atomicExch(c + 1, 0u);
        }
    }
    __syncthreads();
}
static __device__ __forceinline__ void dwt_gs_wait(const dwt_col_args *a, int strip, int tid, unsigned T)
{
    dwt_cnt_wait(a->sync, strip, tid, T);
}
#endif

/*
 * The column pass; vk (a literal at every call site, so each kernel keeps
 * only its own load and store code and registers): 1 for dwt_colvec, the
 * 16-byte form the host launches when a->vec (GPU), 0 for dwt_colfused, 2
 * for dwt_colreg (whole tiles lifted in registers), 3 for dwt_colclu
 * (dwt_colreg whose stores wait for the loads of the whole cluster; 4: 16
 * pairs a thread), 5 and 6 for dwt_colgs16 and dwt_colgs (the same wait
 * through global memory, 16 or 8 pairs a thread).
 */
RV_FN void dwt_col_body(const dwt_col_args *a, rv_block blk, const int vk)
{
    if (a->rev)
        blk.y = blk.ny - 1 - blk.y;
    const int n = a->n, nS = (n + 1) >> 1, nD = n >> 1;
    const int R = a->R, H = a->H, TR = R + 2 * H, tc = a->tile_cols;
    const int c0 = blk.x * tc, c1 = RV__MIN(c0 + tc, a->ncols), nc = c1 - c0;
    const int k0 = a->k_first + blk.y * R;
    const int kend = RV__MIN(k0 + R, a->k_end);
    int slo, shi, dlo, dhi;
    /* the halo around the pairs written, [k0, kend): a window holds no more */
    dwt_tile_range(k0, kend - k0, H, nS, &slo, &shi);
    dwt_tile_range(k0, kend - k0, H, nD, &dlo, &dhi);
    /* tile rows: S pair g at row g - (k0 - H), D pair g at row TR + g - (k0 - H) */
    const int base = k0 - H;
    const int se = RV__MIN(kend, nS), de = RV__MIN(kend, nD);
#if defined(RV_CUDA)
    uint32_t *sh = dwt_sh;
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y, TY = (int)blockDim.y;
    const int tid = ty * (int)blockDim.x + tx, NT = (int)blockDim.x * TY;
    const int64_t cb0 = (int64_t)c0 * 4, cb = cb0 + (int64_t)tx * 4;
    const int ok = tx < nc;
    /* dwt_colvec: 16-byte aligned rows of 32 columns (the host checks), 16-byte copies */
    const int vec = vk, nq = nc >> 2; /* nq: 16-byte chunks of a tile row (ncols % 4 == 0) */
    /* CNT rows of a run, row r at GP (column c0) + r * GSTR, to shared rows SR + r: 16 bytes
     * a thread, or 4 bytes a thread through registers (DWT_CUNROLL in flight) */
#define DWT_COL_RUN(SR, GP, GSTR, CNT)                                                                  \
    do {                                                                                               \
        if (vec)                                                                                       \
            dwt_col_load16(sh + (SR) * 32, (GP), (GSTR), (CNT), tid, NT, nq);                            \
        else                                                                                           \
            dwt_col_load(sh + (SR) * tc + tx, tc, (GP) + tx * 4, (GSTR), (CNT), ty, TY);               \
    } while (0)
    /* load: per band, contiguous runs of rows (halo copy below k0, the pairs
     * [k0, kend), halo copy from kend), pointer increments only */
    if (ok || (vec && (tid & 7) < nq)) /* (this form: 40 registers in dwt_colvec, 48 with vec || ok) */
        for (int bd = 0; bd < 2; bd++) {
            const int lo = bd ? dlo : slo, hi = bd ? dhi : shi;
            if (hi <= lo)
                continue;
            const int row0 = (bd ? TR : 0) - base; /* shared row of pair g: row0 + g */
            const uint64_t src = bd ? a->src_d : a->src_s;
            const int64_t sstr = bd ? a->src_d_str : a->src_s_str;
            if (a->halo) {
                const int m0 = RV__MIN(k0 > lo ? k0 : lo, hi), m1 = RV__MIN(kend, hi) > m0 ? RV__MIN(kend, hi) : m0;
                const int64_t hstr = (int64_t)a->ncols * 4;
                const unsigned char *hb = (const unsigned char *)(uintptr_t)a->halo + cb0;
                if (m0 > lo)
                    DWT_COL_RUN(row0 + lo, hb + (int64_t)dwt_halo_row(blk.y, H, bd, lo, k0, kend) * hstr, hstr,
                                m0 - lo);
                DWT_COL_RUN(row0 + m0, dwt_pair(src, sstr, m0, cb0), sstr, m1 - m0);
                if (hi > m1)
                    DWT_COL_RUN(row0 + m1, hb + (int64_t)dwt_halo_row(blk.y, H, bd, m1, k0, kend) * hstr, hstr,
                                hi - m1);
            } else {
                DWT_COL_RUN(row0 + lo, dwt_pair(src, sstr, lo, cb0), sstr, hi - lo);
            }
        }
#undef DWT_COL_RUN
    if (vec)
        dwt_cp_wait();
    __syncthreads();
    /* dwt_colclu (vk 3; 4: 16 pairs a thread): this block has read all it reads of
     * global memory; its stores wait (below) until every block of the column has too */
    if (vk >= 5)
        dwt_gs_arrive(a, blk.x, tid);
    else if (vk >= 3)
        dwt_cl_arrive();
    /* dwt_colreg (vk 2): a whole tile of R = M TY pairs lifts in registers
     * (dwt_col_regs) when its window of E pairs lies inside both bands (every
     * tile but the first and last of a column) or, with DWT_COL_REG_EDGE (the
     * host sets it for symmetric 2- and 4-tap steps), reaches past an end of the
     * column; partial tiles and the others as below, a barrier a step */
    const int rM = vk >= 2 ? (a->reg >> 4) & 255 : 0, rE = a->reg & 15;
    const int RML = vk == 4 || vk == 5 ? 16 : 8; /* the literal pairs a thread of this kernel */
    const int rin = k0 - rE >= 0 && kend + rE <= nD;
    if (rM == RML && kend - k0 == R && R == rM * TY && (rin || (a->reg & DWT_COL_REG_EDGE))) {
        const int g0 = k0 + ty * rM - rE, redge = !rin;
        uint32_t *s0 = sh + (g0 - base) * 32 + tx, *d0 = s0 + TR * 32;
        /* literal type, sense, window and shape (DWT_FIX_*): each combination its own
         * straight-line code */
#  define DWT_RCALL(M, E, TYPE, FIX)                                           \
    do {                                                                     \
        if (a->inverse)                                                      \
            dwt_col_regs(a, s0, d0, ok, redge, g0, M, E, TYPE, 1, FIX);      \
        else                                                                 \
            dwt_col_regs(a, s0, d0, ok, redge, g0, M, E, TYPE, 0, FIX);      \
    } while (0)
        DWT_BY_SHAPE(DWT_RCALL, a->type, rE, a->fix, RML);
#  undef DWT_RCALL
        __syncthreads();
    } else
    for (int si = 0; si < a->nsteps; si++) {
        const dwt_step *st = &a->steps[a->inverse ? a->nsteps - 1 - si : si];
        const int tgt_d = st->target == 0;
        const int tlo = tgt_d ? dlo : slo, thi = tgt_d ? dhi : shi;
        const int srlo = tgt_d ? slo : dlo, srhi = tgt_d ? shi : dhi;
        uint32_t *tw = sh + ((tgt_d ? TR : 0) - base) * tc + tx;
        const uint32_t *sw = sh + ((tgt_d ? 0 : TR) - base) * tc + tx;
        if (ok) {
            /* the usual tile width as a constant: shared offsets of the taps become immediates */
            if (tc == 32)
                dwt_step_w(tw, sw, 32, n, tlo + ty, thi, TY, srlo, srhi, st, a->type, a->inverse);
            else
                dwt_step_w(tw, sw, tc, n, tlo + ty, thi, TY, srlo, srhi, st, a->type, a->inverse);
        }
        __syncthreads();
    }
    if (vk >= 5)
        dwt_gs_wait(a, blk.x, tid, (unsigned)blk.ny);
    else if (vk >= 3)
        dwt_cl_wait();
    /* store the middle pairs [k0, kend) */
    if (vec) {
        dwt_col_store_pairs16(a, sh, k0, base, TR, se, de, cb0, tid, NT, nq);
    } else if (ok) {
        if (se > k0)
            dwt_col_store(dwt_pair(a->dst_s, a->dst_s_str, k0, cb), a->dst_s_str, sh + (k0 - base) * tc + tx, tc,
                          se - k0, ty, TY);
        if (de > k0)
            dwt_col_store(dwt_pair(a->dst_d, a->dst_d_str, k0, cb), a->dst_d_str, sh + (TR + k0 - base) * tc + tx,
                          tc, de - k0, ty, TY);
    }
#else
    (void)vk; /* the CPU body is the same for both kernels */
    uint32_t *sh = (uint32_t *)blk.shared;
    const size_t rowb = (size_t)nc * 4;
    const int64_t cb = (int64_t)c0 * 4;
    for (int bd = 0; bd < 2; bd++)
        for (int g = bd ? dlo : slo; g < (bd ? dhi : shi); g++) {
            const void *from = a->halo && (g < k0 || g >= kend)
                                   ? (const void *)(uintptr_t)(a->halo + (uint64_t)((((int64_t)dwt_halo_row(
                                                                                         blk.y, H, bd, g, k0, kend)) *
                                                                                        a->ncols + c0) * 4))
                                   : (const void *)dwt_pair(bd ? a->src_d : a->src_s, bd ? a->src_d_str : a->src_s_str,
                                                            g, cb);
            memcpy(sh + (size_t)((bd ? TR : 0) + g - base) * tc, from, rowb);
        }
    for (int si = 0; si < a->nsteps; si++) {
        const dwt_step *st = &a->steps[a->inverse ? a->nsteps - 1 - si : si];
        const int tgt_d = st->target == 0;
        const int tlo = tgt_d ? dlo : slo, thi = tgt_d ? dhi : shi;
        const int srlo = tgt_d ? slo : dlo, srhi = tgt_d ? shi : dhi;
        uint32_t *tt = sh + (size_t)(tgt_d ? TR : 0) * tc, *ss = sh + (size_t)(tgt_d ? 0 : TR) * tc;
        for (int g = tlo; g < thi; g++) {
            int j[DWT_MAX_TAPS];
            if (dwt_tile_srcs(st, g, n, srlo, srhi, j) < 0)
                continue;
            dwt_cpu_run((unsigned char *)(tt + (size_t)(g - base) * tc),
                        (const unsigned char *)(ss + (size_t)(j[0] - base) * tc),
                        (const unsigned char *)(ss + (size_t)(j[1] - base) * tc),
                        (const unsigned char *)(ss + (size_t)(j[2] - base) * tc),
                        (const unsigned char *)(ss + (size_t)(j[3] - base) * tc), nc, st, a->type, a->inverse);
        }
    }
    for (int g = k0; g < se; g++)
        memcpy(dwt_pair(a->dst_s, a->dst_s_str, g, cb), sh + (size_t)(g - base) * tc, rowb);
    for (int g = k0; g < de; g++)
        memcpy(dwt_pair(a->dst_d, a->dst_d_str, g, cb), sh + (size_t)(TR + g - base) * tc, rowb);
#endif
}

RV_RAW_KERNEL_CHAINED(dwt_colfused, dwt_col_args, a, blk)
{
    dwt_col_body(a, blk, 0);
}

/* The same with 16-byte loads (cp.async) and stores: 40 registers instead of 48. */
RV_RAW_KERNEL_CHAINED(dwt_colvec, dwt_col_args, a, blk)
{
    dwt_col_body(a, blk, 1);
}

/* dwt_colvec with the lifting of whole interior tiles in registers (a->reg). */
RV_RAW_KERNEL_CHAINED(dwt_colreg, dwt_col_args, a, blk)
{
    dwt_col_body(a, blk, 2);
}

/*
 * dwt_colclu, dwt_colclu16 (CUDA, sm_90): a whole column pass in place, by
 * clusters of 8 or 16 blocks along y that hold every tile of their 32 columns:
 * each block loads its tile with its halo, lifts, and stores only after every
 * block of the cluster has loaded (a split cluster barrier), so that the
 * stores, which land in other tiles' rows (evens to the top half, odds to the
 * bottom), overwrite nothing still to be read. No rearrangement, no halo
 * buffer: 2 n bytes and one launch. Blocks past the column's pairs (the
 * grid is one cluster high) only take part in the barrier. There is
 * no CPU entry: the CPU backend runs blocks one after another.
 */
#if defined(RV_CUDA)
#  if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#    define DWT_CLUSTER_DIMS(C) __cluster_dims__(1, C, 1)
#  else
#    define DWT_CLUSTER_DIMS(C)
#  endif
/* The block's place in the grid, as the entries of RV_RAW_KERNEL pass it. */
static __device__ __forceinline__ rv_block dwt_grid_block(void)
{
    rv_block b;
    b.x = (int32_t)blockIdx.x;
    b.y = (int32_t)blockIdx.y;
    b.z = (int32_t)blockIdx.z;
    b.nx = (int32_t)gridDim.x;
    b.ny = (int32_t)gridDim.y;
    b.nz = (int32_t)gridDim.z;
    b.tx = (int32_t)blockDim.x;
    b.ty = (int32_t)blockDim.y;
    b.tz = (int32_t)blockDim.z;
    b.pad_ = 0;
    b.shared = 0;
    return b;
}

#  define DWT_COLCLU_ENTRY(NAME, C, VK, MINB)                                                          \
    RV__DESC_CHAINED(NAME, sizeof(dwt_col_args))                                                       \
    extern "C" __global__ void DWT_CLUSTER_DIMS(C) __launch_bounds__(512, MINB)                        \
        rvk_##NAME(const RV__GRID_CONST dwt_col_args rv__args)                                         \
    {                                                                                                  \
        RV__GRID_CHAIN(NAME)                                                                           \
        const rv_block b = dwt_grid_block();                                                           \
        if (rv__args.k_first + b.y * rv__args.R >= rv__args.k_end) {                                   \
            dwt_cl_arrive();                                                                           \
            dwt_cl_wait();                                                                             \
            return;                                                                                    \
        }                                                                                              \
        dwt_col_body(&rv__args, b, VK);                                                                \
    }
/* 8 pairs a thread: 40 registers, three blocks of 512 threads a multiprocessor;
 * dwt_colclu16m: 16 pairs a thread (tiles of 256 pairs: 8192-sample columns) */
DWT_COLCLU_ENTRY(dwt_colclu, DWT_COL_CLUSTER, 3, 3)
DWT_COLCLU_ENTRY(dwt_colclu16, DWT_COL_CLUSTER16, 3, 3)
DWT_COLCLU_ENTRY(dwt_colclu16m, DWT_COL_CLUSTER16, 4, 2)
#  undef DWT_COLCLU_ENTRY

/*
 * dwt_colclp: dwt_colclu16 whose clusters take two strips of 32 columns
 * in turn (strip blk.x, then blk.x + nx), so that a block's memory traffic
 * and its arithmetic overlap: while the first strip lifts and is stored, the
 * loads of the second are in flight into a second tile buffer in shared
 * memory (cp.async). In dwt_colclu each block loads, lifts and stores one
 * after the other, in step with the other blocks of its multiprocessor
 * (ncu, 8K: DRAM at 55 %, issue at 37 %, against 71 % and 70 % for the
 * out-of-place column pass). The loop takes any number of strips; two
 * measured fastest (docs/perf/dwt.md, session 15).
 * The barrier of the cluster keeps its meaning strip by strip: a block
 * arrives once its loads of the strip have landed and stores the strip only
 * after every block has arrived; the next strip's loads read other columns.
 * Tiles that do not lift in registers (partial tiles) take dwt_col_body
 * strip after strip, without the overlap.
 */
static __device__ __forceinline__ void dwt_clp_load(const dwt_col_args *a, uint32_t *sh, int strip, int k0, int kend,
                                                    int tid, int NT)
{
    const int n = a->n, H = a->H, TR = a->R + 2 * H, base = k0 - H;
    const int c0 = strip * 32, nq = RV__MIN(32, a->ncols - c0) >> 2;
    const int64_t cb0 = (int64_t)c0 * 4;
    for (int bd = 0; bd < 2; bd++) {
        int lo, hi;
        dwt_tile_range(k0, kend - k0, H, bd ? n >> 1 : (n + 1) >> 1, &lo, &hi);
        if (hi > lo)
            dwt_col_load16(sh + ((bd ? TR : 0) - base + lo) * 32,
                           dwt_pair(bd ? a->src_d : a->src_s, bd ? a->src_d_str : a->src_s_str, lo, cb0),
                           bd ? a->src_d_str : a->src_s_str, hi - lo, tid, NT, nq);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Two tile buffers in shared memory: strip j in buffer j % 2, strip j + 1's
 * loads in flight into the other while strip j lifts (dwt_col_regs) and is
 * stored. */
static __device__ __forceinline__ void dwt_clp_strips(const dwt_col_args *a, rv_block blk, const int M,
                                                      const int E, const int TYPE, const int INV, const int FIX)
{
    const int n = a->n, nS = (n + 1) >> 1, nD = n >> 1, R = a->R, H = a->H, TR = R + 2 * H;
    const int k0_ = a->k_first + blk.y * R, kend_ = RV__MIN(k0_ + R, a->k_end);
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const int tid_ = ty * 32 + tx, NT = 32 * (int)blockDim.y, TW = 2 * TR * 32;
    const int nstrip = (a->ncols + 31) >> 5;
    int s = blk.x, b = 0;
    dwt_clp_load(a, dwt_sh, s, k0_, kend_, tid_, NT);
    for (; s < nstrip; s += blk.nx, b ^= 1) {
        const int nxt = s + blk.nx, c0 = s * 32, nq = RV__MIN(32, a->ncols - c0) >> 2;
        uint32_t *sh = dwt_sh + b * TW;
        /* k0 and kend anew each strip (an empty asm): else the window's
         * reflected rows at a column's end, the same every strip, are computed
         * once before the loop and held (spilled) across it */
        int k0 = k0_, kend = kend_, tid = tid_;
        asm volatile("" : "+r"(k0), "+r"(kend), "+r"(tid));
        const int g0 = k0 + ty * M - E, edge = !(k0 - E >= 0 && kend + E <= nD);
        __syncthreads(); /* the other buffer's stores (strip before) are done */
        if (nxt < nstrip) {
            dwt_clp_load(a, dwt_sh + (b ^ 1) * TW, nxt, k0, kend, tid, NT);
            asm volatile("cp.async.wait_group 1;\n" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;\n" ::: "memory");
        }
        __syncthreads();
        /* relaxed: the strip's loads have landed (wait_group, barrier above);
         * a release would also wait for the stores of the strip before
         * (MEMBAR.ALL.GPU), which is the overlap this kernel is for */
        dwt_cl_arrive_relaxed();
        const int base = k0 - H, se = RV__MIN(kend, nS), de = RV__MIN(kend, nD);
        uint32_t *s0 = sh + (g0 - base) * 32 + tx;
        dwt_col_regs(a, s0, s0 + TR * 32, c0 + tx < a->ncols, edge, g0, M, E, TYPE, INV, FIX);
        __syncthreads();
        dwt_cl_wait();
        dwt_col_store_pairs16(a, sh, k0, base, TR, se, de, (int64_t)c0 * 4, tid, NT, nq);
    }
}

/* Whether block b's tile lifts in registers with M pairs a thread (the same
 * in every strip): a whole tile whose window lies inside the column, or
 * reaches past its ends with DWT_COL_REG_EDGE (dwt_col_body's test). */
static __device__ __forceinline__ int dwt_strip_reg(const dwt_col_args *a, rv_block b, const int M)
{
    const int k0 = a->k_first + b.y * a->R, kend = RV__MIN(k0 + a->R, a->k_end);
    const int rE = a->reg & 15, rin = k0 - rE >= 0 && kend + rE <= (a->n >> 1);
    return ((a->reg >> 4) & 255) == M && kend - k0 == a->R && a->R == M * b.ty &&
           (rin || (a->reg & DWT_COL_REG_EDGE));
}

/* The other tiles: dwt_col_body strip after strip, without the overlap. */
static __device__ __forceinline__ void dwt_strips_body(const dwt_col_args *a, rv_block b, const int VK)
{
    for (int s = b.x; s < (a->ncols + 31) >> 5; s += b.nx) {
        rv_block bs = b;
        bs.x = s;
        dwt_col_body(a, bs, VK);
        __syncthreads(); /* the tile buffer is free again */
    }
}

/* FN(a, b, M, E, TYPE, INV, FIX) with literal window, type, sense and shape
 * (DWT_FIX_*): each its own straight-line code */
#  define DWT_STRIPS_INV(FN, M, E, TYPE, FIX)                                                          \
    do {                                                                                               \
        if (a->inverse)                                                                                \
            FN(a, b, M, E, TYPE, 1, FIX);                                                              \
        else                                                                                           \
            FN(a, b, M, E, TYPE, 0, FIX);                                                              \
    } while (0)
#  define DWT_STRIPS_LIT(FN, M) DWT_BY_SHAPE(DWT_STRIPS_INV, a->type, a->reg & 15, a->fix, FN, M)
/* the same in an entry of the literal shape FIXE */
#  define DWT_STRIPS_FIXE(FN, M, FIXE) DWT_BY_FIXE(DWT_STRIPS_INV, FIXE, a->type, a->reg & 15, FN, M)

#  define DWT_COLCLP_ENTRY(NAME, VK, M, MINB, FIXE)                                                    \
    RV__DESC_CHAINED(NAME, sizeof(dwt_col_args))                                                       \
    extern "C" __global__ void DWT_CLUSTER_DIMS(DWT_COL_CLUSTER16) __launch_bounds__(512, MINB)        \
        rvk_##NAME(const RV__GRID_CONST dwt_col_args rv__args)                                         \
    {                                                                                                  \
        RV__GRID_CHAIN(NAME)                                                                           \
        const dwt_col_args *a = &rv__args;                                                             \
        const rv_block b = dwt_grid_block();                                                           \
        if (a->k_first + b.y * a->R >= a->k_end) {                                                     \
            for (int s = b.x; s < (a->ncols + 31) >> 5; s += b.nx) {                                   \
                dwt_cl_arrive();                                                                       \
                dwt_cl_wait();                                                                         \
            }                                                                                          \
        } else if (dwt_strip_reg(a, b, M)) {                                                           \
            DWT_STRIPS_FIXE(dwt_clp_strips, M, FIXE);                                                  \
        } else {                                                                                       \
            dwt_strips_body(a, b, VK);                                                                 \
        }                                                                                              \
    }
DWT_COLCLP_ENTRY(dwt_colclp, 3, 8, 3, DWT_FIX_NONE)
DWT_COLCLP_ENTRY(dwt_colclp_c97, 3, 8, 3, DWT_FIX_CDF97)
DWT_COLCLP_ENTRY(dwt_colclp_dd, 3, 8, 3, DWT_FIX_DD137)
#  undef DWT_COLCLP_ENTRY

/*
 * The strips of a register tile (full tile, window inside the column or
 * reflected at its ends). NB 1 (dwt_colgs*), one tile buffer: strip j's
 * window goes from shared memory to registers, then strip j + 1's loads go
 * into the same buffer (cp.async) while strip j lifts, waits for its strip's
 * tiles (GS: the counters) and is stored straight from registers (each warp
 * row of a band 128 contiguous bytes). So the loads of the next strip overlap
 * the arithmetic of this one without a second buffer: two blocks a
 * multiprocessor still fit. NB 2 (dwt_colrp, GS 0): strip j + 1's loads go
 * into the other buffer before strip j's wait, so they are in flight during
 * that wait too.
 */
static __device__ __forceinline__ void dwt_pipe_strips(const dwt_col_args *a, rv_block blk, const int M,
                                                       const int E, const int TYPE, const int INV, const int FIX,
                                                       const int GS, const int NB)
{
    enum { AMAX = 16 + 2 * 3 };
    const int A = M + 2 * E;
    const int n = a->n, nD = n >> 1, R = a->R, H = a->H, TR = R + 2 * H, TW = 2 * TR * 32;
    const int k0_ = a->k_first + blk.y * R, kend_ = RV__MIN(k0_ + R, a->k_end);
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const int tid_ = ty * 32 + tx, NT = 32 * (int)blockDim.y;
    const int nstrip = (a->ncols + 31) >> 5;
    int s = blk.x, b = 0;
    if (s < nstrip)
        dwt_clp_load(a, dwt_sh, s, k0_, kend_, tid_, NT);
    for (; s < nstrip; s += blk.nx, b ^= NB - 1) {
        /* (read anew each strip: see dwt_clp_strips) */
        int k0 = k0_, kend = kend_, tid = tid_;
        asm volatile("" : "+r"(k0), "+r"(kend), "+r"(tid));
        const int g0 = k0 + ty * M - E, edge = !(k0 - E >= 0 && kend + E <= nD), base = k0 - H;
        const int c = s * 32 + tx, ok = c < a->ncols;
        const uint32_t *sh = dwt_sh + b * TW;
        /* NB 2: the next strip's loads go into the other buffer before this one's wait
         * (that buffer was read into registers in the strip before, a barrier since) */
        if (NB == 2 && s + blk.nx < nstrip) {
            dwt_clp_load(a, dwt_sh + (b ^ 1) * TW, s + blk.nx, k0, kend, tid, NT);
            asm volatile("cp.async.wait_group 1;\n" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;\n" ::: "memory");
        }
        __syncthreads();
        if (GS)
            dwt_gs_arrive(a, s, tid); /* strip s's reads of global memory are done */
        uint32_t S[AMAX], D[AMAX];
        if (ok) {
            const uint32_t *s0 = sh + (g0 - base) * 32 + tx;
            dwt_col_regs_load(a, s0, s0 + TR * 32, S, D, edge, g0, A);
        }
        __syncthreads(); /* the buffer is read: the next strip's loads may land */
        if (NB == 1 && s + blk.nx < nstrip)
            dwt_clp_load(a, dwt_sh, s + blk.nx, k0, kend, tid, NT);
        if (ok)
            dwt_col_regs_lift(a, S, D, A, TYPE, INV, FIX);
        if (GS)
            dwt_gs_wait(a, s, tid, (unsigned)blk.ny);
        if (ok) {
            const int p0 = k0 + ty * M; /* pairs [p0, p0 + M) of this thread, all in [k0, kend) */
            unsigned char *ps = dwt_pair(a->dst_s, a->dst_s_str, p0, (int64_t)c * 4);
            unsigned char *pd = dwt_pair(a->dst_d, a->dst_d_str, p0, (int64_t)c * 4);
#  pragma unroll
            for (int i = 0; i < M; i++) {
                *(uint32_t *)(ps + i * a->dst_s_str) = S[E + i];
                if (p0 + i < nD)
                    *(uint32_t *)(pd + i * a->dst_d_str) = D[E + i];
            }
        }
    }
}

static __device__ __forceinline__ void dwt_gs_strips(const dwt_col_args *a, rv_block blk, const int M, const int E,
                                                     const int TYPE, const int INV, const int FIX)
{
    dwt_pipe_strips(a, blk, M, E, TYPE, INV, FIX, 1, 1);
}
static __device__ __forceinline__ void dwt_rp_strips(const dwt_col_args *a, rv_block blk, const int M, const int E,
                                                     const int TYPE, const int INV, const int FIX)
{
    dwt_pipe_strips(a, blk, M, E, TYPE, INV, FIX, 0, 2);
}

/*
 * dwt_colgs16, dwt_colgs (CUDA): dwt_colclu's column pass in place with the
 * tiles of a strip waiting for one another through counters in global
 * memory (dwt_gs_arrive / dwt_gs_wait) instead of a cluster barrier. The
 * launch is cooperative (every block resident) and persistent: the grid is
 * F x T, T the tiles of a column (any number, not at most 16 as a cluster's:
 * 16K and 32K columns in one pass too), F strips in flight, so that F T
 * blocks fill the device; block (f, t) takes tile t of strips f, f + F, ...
 * in turn (dwt_gs_strips: the next strip's loads in flight while one lifts).
 * Placing blocks on every multiprocessor alone (clusters of 16 held 112 of an
 * H200's 132) did not gain; the overlap did (docs/perf/dwt.md, session 16).
 */
#  define DWT_COLGS_ENTRY(NAME, VK, M, MINB, FIXE)                                                     \
    RV__DESC_COOP(NAME, sizeof(dwt_col_args))                                                          \
    extern "C" __global__ void __launch_bounds__(512, MINB) rvk_##NAME(const RV__GRID_CONST dwt_col_args rv__args) \
    {                                                                                                  \
        RV__GRID_CHAIN(NAME)                                                                           \
        const dwt_col_args *a = &rv__args;                                                             \
        const rv_block b = dwt_grid_block();                                                           \
        if (a->k_first + b.y * a->R >= a->k_end) {                                                     \
            const int tid = (int)(threadIdx.y * 32 + threadIdx.x);                                     \
            for (int s = b.x; s < (a->ncols + 31) >> 5; s += b.nx) {                                   \
                dwt_gs_arrive(a, s, tid);                                                              \
                dwt_gs_wait(a, s, tid, (unsigned)b.ny);                                                \
            }                                                                                          \
        } else if (!(a->reg & DWT_COL_GS_SERIAL) && dwt_strip_reg(a, b, M)) {                          \
            DWT_STRIPS_FIXE(dwt_gs_strips, M, FIXE);                                                   \
        } else {                                                                                       \
            dwt_strips_body(a, b, VK);                                                                 \
        }                                                                                              \
    }
DWT_COLGS_ENTRY(dwt_colgs16, 5, 16, 2, DWT_FIX_NONE)
DWT_COLGS_ENTRY(dwt_colgs, 6, 8, 3, DWT_FIX_NONE)
DWT_COLGS_ENTRY(dwt_colgs16_c97, 5, 16, 2, DWT_FIX_CDF97)
DWT_COLGS_ENTRY(dwt_colgs16_dd, 5, 16, 2, DWT_FIX_DD137)
DWT_COLGS_ENTRY(dwt_colgs_c97, 6, 8, 3, DWT_FIX_CDF97)
DWT_COLGS_ENTRY(dwt_colgs_dd, 6, 8, 3, DWT_FIX_DD137)
#  undef DWT_COLGS_ENTRY

/*
 * dwt_colrp (CUDA): dwt_colreg out of place (no halo buffer; source and
 * destination apart) whose blocks take tile blk.y of two strips, blk.x and
 * blk.x + nx, in turn: the second strip's loads go into a second tile buffer
 * before the first's wait, and are in flight while the first lifts and is
 * stored from registers (dwt_pipe_strips without the counters: no tile waits
 * for another). 64 registers, four blocks a multiprocessor. `rev` as in
 * dwt_col_body; tiles that do not lift in registers take dwt_col_body strip
 * after strip. 8K five levels out of place 1 % faster than dwt_colreg, 4K
 * equal (docs/perf/dwt.md, session 26).
 */
RV__DESC_CHAINED(dwt_colrp, sizeof(dwt_col_args))
extern "C" __global__ void __launch_bounds__(256, 4) rvk_dwt_colrp(const RV__GRID_CONST dwt_col_args rv__args)
{
    RV__GRID_CHAIN(dwt_colrp)
    const dwt_col_args *a = &rv__args;
    const rv_block b0 = dwt_grid_block();
    rv_block b = b0;
    if (a->rev)
        b.y = b.ny - 1 - b.y;
    if (a->k_first + b.y * a->R >= a->k_end)
        return;
    if (dwt_strip_reg(a, b, 8))
        DWT_STRIPS_LIT(dwt_rp_strips, 8);
    else
        dwt_strips_body(a, b0, 2); /* (dwt_col_body applies rev itself) */
}
#  undef DWT_STRIPS_LIT
#  undef DWT_STRIPS_FIXE
#  undef DWT_STRIPS_INV
#  undef DWT_CLUSTER_DIMS
#endif

/* ---------------------------------------------------------------- */
/* dwt_lvl2d: a level's rows and columns in one pass, in place (GPU)  */
/* ---------------------------------------------------------------- */

#if defined(RV_CUDA)
/*
 * (dwt_abi.h: what it computes.) Shared memory: the window, W = DWT_LVL_T +
 * 4E rows of W samples P = W + 1 words apart (odd, so that a warp reading
 * one column of 32 rows or one row of 32 columns touches 32 banks). Row lift:
 * warp w takes pairs [8 s, 8 s + 8) of the tile, s = w % 4, in window row
 * 32 (w / 4) + lane (12 warps: 96 rows >= W); the middle pairs go back to
 * their places after a barrier (the windows of neighbouring segments overlap
 * them). Column lift: warp w < 8 takes pairs [8 s, 8 s + 8), s = w / 2, of
 * tile column 32 (w % 2) + lane (S and D columns of the rows alternate), and
 * stores them from registers once every block has loaded. The arithmetic is
 * dwt_colreg's (dwt_regs_lift), and the window holds the symmetric
 * extension itself, so the results equal the row and column passes' bit for
 * bit (symmetric steps: see dwt_rowreg).
 */
enum { DWT_LVL_M = 8, DWT_LVL_NW = DWT_LVL_THREADS / 32 };

/* One tile of the level: the window at y0 (and x of the block) into sh, its rows
 * lifted there, and, in the threads of warps 0-7, its column segment's pairs
 * lifted into S and D (the results: S[E, E + 8), D[E, E + 8)). PART 0: all of
 * it, the window loaded through registers, then a barrier and, with arrive
 * (this is the block's last load of global memory), in place the counter; 1:
 * only the window's loads started (cp.async, one commit group); 2: only the
 * lifting (the caller has waited for the window and synchronised). */
static __device__ __forceinline__ void dwt_lvl_tile(const dwt_lvl_args *a, const int E, const int TYPE,
                                                    const int FIX, const int OOP, const int arrive, uint32_t *sh,
                                                    const int y0, uint32_t *S, uint32_t *D, const int PART)
{
    enum { M = DWT_LVL_M, NW = DWT_LVL_NW, RPW = (DWT_LVL_T + 12 + NW - 1) / NW };
    const int W = DWT_LVL_T + 4 * E, P = W + 1, A = M + 2 * E;
    const int tid = (int)threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int w = a->w, h = a->h;
    const int x0 = (int)blockIdx.x * DWT_LVL_T - 2 * E;
    if (PART != 2) {
        /* the window through the symmetric extension (one reflection: w, h >= 64 > 2E);
         * rows warp + NW j, columns lane + 32 k. PART 1: by cp.async; 0: all loads in
         * flight into registers, then the stores */
        int gx[3];
#  pragma unroll
        for (int k = 0; k < 3; k++)
            gx[k] = dwt_reflect_once(x0 + lane + 32 * k, w);
        uint32_t v[RPW][3];
#  pragma unroll
        for (int j = 0; j < RPW; j++) {
            const int r = warp + NW * j;
            if (r < W) {
                const uint32_t *g = (const uint32_t *)(uintptr_t)(a->base + (uint64_t)((int64_t)dwt_reflect_once(
                                                                                 y0 + r, h) * a->pitch));
#  pragma unroll
                for (int k = 0; k < 3; k++)
                    if (lane + 32 * k < W) {
                        if (PART == 1)
                            dwt_cp4(sh + r * P + lane + 32 * k, g + gx[k]);
                        else
                            v[j][k] = __ldcg(g + gx[k]);
                    }
            }
        }
        if (PART == 1) {
            asm volatile("cp.async.commit_group;\n" ::: "memory");
            return;
        }
#  pragma unroll
        for (int j = 0; j < RPW; j++) {
            const int r = warp + NW * j;
            if (r < W) {
#  pragma unroll
                for (int k = 0; k < 3; k++)
                    if (lane + 32 * k < W)
                        sh[r * P + lane + 32 * k] = v[j][k];
            }
        }
    }
    if (PART == 0) {
        __syncthreads();
        if (!OOP && arrive)
            dwt_cnt_arrive(a->sync, 0, tid); /* this block has read all it reads of global memory */
    }
    {
        const int s = warp & 3, r = 32 * (warp >> 2) + lane;
        uint32_t *rp = sh + r * P + 2 * M * s;
        if (r < W) {
#  pragma unroll
            for (int i = 0; i < A; i++) {
                S[i] = rp[2 * i];
                D[i] = rp[2 * i + 1];
            }
            dwt_regs_lift(a->steps, a->nsteps, S, D, A, TYPE, 0, FIX);
        }
        __syncthreads();
        if (r < W) {
#  pragma unroll
            for (int i = E; i < E + M; i++) {
                rp[2 * i] = S[i];
                rp[2 * i + 1] = D[i];
            }
        }
    }
    __syncthreads();
    if (warp < 8) {
        const int c = 32 * (warp & 1) + lane, s = warp >> 1;
        const uint32_t *cp = sh + 2 * M * s * P + 2 * E + c;
#  pragma unroll
        for (int i = 0; i < A; i++) {
            S[i] = cp[2 * i * P];
            D[i] = cp[(2 * i + 1) * P];
        }
        dwt_regs_lift(a->steps, a->nsteps, S, D, A, TYPE, 0, FIX);
    }
}

/* Where the column thread (warp < 8) of tile row ty stores its pairs: S at ps + i
 * op, D at pd + i op, i < 8. */
static __device__ __forceinline__ unsigned char *dwt_lvl_out(const dwt_lvl_args *a, const int OOP, const int ty,
                                                            int64_t *op)
{
    const int warp = (int)threadIdx.x >> 5, c = 32 * (warp & 1) + ((int)threadIdx.x & 31), s = warp >> 1;
    const uint64_t ob = OOP ? a->dst : a->base;
    *op = OOP ? a->dpitch : a->pitch;
    const int x = (c & 1) * (a->w >> 1) + (int)blockIdx.x * (DWT_LVL_T / 2) + (c >> 1);
    const int y = ty * (DWT_LVL_T / 2) + DWT_LVL_M * s;
    return (unsigned char *)(uintptr_t)(ob + (uint64_t)((int64_t)y * *op + (int64_t)x * 4));
}

/*
 * NT 1: block (bx, by) takes tile (bx, by) and stores it from registers. NT 2
 * (dwt_lvl2d2): tiles by and by + gridDim.y of its column (the second where
 * there is one), both windows loading at once; the first tile lifts, then
 * (the second window landed: the block's last read) the counters, the first
 * tile's stores from registers, the second tile lifted and stored: the first
 * tile's stores drain while the second lifts. (Before, both results went back
 * into their windows and were stored after the second tile: 2K in place 1-2
 * us slower, 4K CDF 9/7 about 1 us faster; docs/perf/dwt.md, session 28.)
 */
static __device__ __forceinline__ void dwt_lvl_body(const dwt_lvl_args *a, const int E, const int TYPE,
                                                    const int FIX, const int OOP, const int NT)
{
    enum { M = DWT_LVL_M };
    const int W = DWT_LVL_T + 4 * E, P = W + 1;
    const int tid = (int)threadIdx.x, warp = tid >> 5;
    const int cl = warp < 8;
    const int h = a->h;
    if (NT == 1) {
        uint32_t S[M + 6], D[M + 6];
        dwt_lvl_tile(a, E, TYPE, FIX, OOP, 1, dwt_sh, (int)blockIdx.y * DWT_LVL_T - 2 * E, S, D, 0);
        /* every block has loaded (the last to leave clears the counters) */
        if (!OOP)
            dwt_cnt_wait(a->sync, 0, tid, gridDim.x * gridDim.y);
        if (cl) {
            int64_t op;
            unsigned char *ps = dwt_lvl_out(a, OOP, (int)blockIdx.y, &op), *pd = ps + (int64_t)(h >> 1) * op;
#  pragma unroll
            for (int i = 0; i < M; i++) {
                *(uint32_t *)(ps + i * op) = S[E + i];
                *(uint32_t *)(pd + i * op) = D[E + i];
            }
        }
        return;
    }
    const int nb = (int)(blockIdx.y + gridDim.y) < h / DWT_LVL_T ? 2 : 1; /* uniform over the block */
    /* both windows' loads in flight at once (cp.async: no registers), the second
     * landing while the first tile lifts */
#  pragma unroll
    for (int t = 0; t < NT; t++)
        if (t < nb)
            dwt_lvl_tile(a, E, TYPE, FIX, OOP, 0, dwt_sh + t * W * P, (int)(blockIdx.y + t * gridDim.y) * DWT_LVL_T - 2 * E,
                         NULL, NULL, 1);
    /* the first tile lifted, then (its second window landed: the block's last
     * read of global memory) the counters, the first tile stored from registers,
     * the second lifted and stored: the first tile's stores drain while the
     * second lifts */
    {
        uint32_t S[M + 6], D[M + 6];
        if (nb > 1)
            asm volatile("cp.async.wait_group 1;\n" ::: "memory");
        else
            asm volatile("cp.async.wait_group 0;\n" ::: "memory");
        __syncthreads();
        if (!OOP && nb == 1)
            dwt_cnt_arrive(a->sync, 0, tid); /* this block has read all it reads of global memory */
        dwt_lvl_tile(a, E, TYPE, FIX, OOP, 0, dwt_sh, 0, S, D, 2);
        if (nb > 1) {
            asm volatile("cp.async.wait_group 0;\n" ::: "memory");
            __syncthreads();
            if (!OOP)
                dwt_cnt_arrive(a->sync, 0, tid);
        }
        if (!OOP)
            dwt_cnt_wait(a->sync, 0, tid, gridDim.x * gridDim.y);
#  pragma unroll 1
        for (int t = 0;; t++) {
            if (cl) {
                int64_t op;
                unsigned char *ps = dwt_lvl_out(a, OOP, (int)(blockIdx.y + t * gridDim.y), &op);
                unsigned char *pd = ps + (int64_t)(h >> 1) * op;
#  pragma unroll
                for (int i = 0; i < M; i++) {
                    *(uint32_t *)(ps + i * op) = S[E + i];
                    *(uint32_t *)(pd + i * op) = D[E + i];
                }
            }
            if (t + 1 >= nb)
                break;
            dwt_lvl_tile(a, E, TYPE, FIX, OOP, 0, dwt_sh + W * P, 0, S, D, 2);
        }
    }
}

/* literal window, type and shape: each combination its own straight-line code (the
 * choice of DWT_BY_SHAPE, written out with the window tested first: the PTX measured
 * in session 29). MINB:
 * dwt_lvl2d three blocks a multiprocessor (56 registers; its _c97 and _dd entries
 * need 40, so hold four: 528 tiles on 132 multiprocessors), dwt_lvl2o four (40, no
 * spills: 4K five levels out of place 3-4 µs faster than with three; docs/perf/dwt.md,
 * session 26). FIXE: DWT_FIX_ANY, every shape, chosen by a->fix (dwt_lvl2o); else the
 * entry's one shape (dwt_lvl2d, dwt_lvl2d2 step by step; _c97, _dd straight-line, the
 * entries the host takes for those steps: each shape its own registers) */
#  define DWT_LVL_ENTRY(NAME, DESC, OOP, MINB, NT, FIXE)                                                   \
    DESC(NAME, sizeof(dwt_lvl_args))                                                                   \
    extern "C" __global__ void __launch_bounds__(DWT_LVL_THREADS, MINB) rvk_##NAME(const RV__GRID_CONST dwt_lvl_args rv__args) \
    {                                                                                                  \
        RV__GRID_CHAIN(NAME)                                                                           \
        const dwt_lvl_args *a = &rv__args;                                                             \
        if ((FIXE) == DWT_FIX_CDF97) {                                                                 \
            dwt_lvl_body(a, 2, DWT_F32, DWT_FIX_CDF97, OOP, NT);                                       \
        } else if ((FIXE) == DWT_FIX_DD137) {                                                          \
            dwt_lvl_body(a, 3, DWT_F32, DWT_FIX_DD137, OOP, NT);                                       \
        } else if (a->E == 2) {                                                                        \
            if (a->type != DWT_F32)                                                                    \
                dwt_lvl_body(a, 2, DWT_I32, DWT_FIX_NONE, OOP, NT);                                    \
            else if (((FIXE) == DWT_FIX_ANY ? a->fix : DWT_FIX_NONE) == DWT_FIX_CDF97)                 \
                dwt_lvl_body(a, 2, DWT_F32, DWT_FIX_CDF97, OOP, NT);                                   \
            else                                                                                       \
                dwt_lvl_body(a, 2, DWT_F32, DWT_FIX_NONE, OOP, NT);                                    \
        } else if (a->type != DWT_F32) {                                                               \
            dwt_lvl_body(a, 3, DWT_I32, DWT_FIX_NONE, OOP, NT);                                        \
        } else if (((FIXE) == DWT_FIX_ANY ? a->fix : DWT_FIX_NONE) == DWT_FIX_DD137) {                 \
            dwt_lvl_body(a, 3, DWT_F32, DWT_FIX_DD137, OOP, NT);                                       \
        } else {                                                                                       \
            dwt_lvl_body(a, 3, DWT_F32, DWT_FIX_NONE, OOP, NT);                                        \
        }                                                                                              \
    }
DWT_LVL_ENTRY(dwt_lvl2d, RV__DESC_COOP, 0, 3, 1, DWT_FIX_NONE)
DWT_LVL_ENTRY(dwt_lvl2d2, RV__DESC_COOP, 0, 4, 2, DWT_FIX_NONE)
DWT_LVL_ENTRY(dwt_lvl2o, RV__DESC_CHAINED, 1, 4, 1, DWT_FIX_ANY)
DWT_LVL_ENTRY(dwt_lvl2d_c97, RV__DESC_COOP, 0, 3, 1, DWT_FIX_CDF97)
DWT_LVL_ENTRY(dwt_lvl2d_dd, RV__DESC_COOP, 0, 3, 1, DWT_FIX_DD137)
DWT_LVL_ENTRY(dwt_lvl2d2_c97, RV__DESC_COOP, 0, 4, 2, DWT_FIX_CDF97)
DWT_LVL_ENTRY(dwt_lvl2d2_dd, RV__DESC_COOP, 0, 4, 2, DWT_FIX_DD137)
#  undef DWT_LVL_ENTRY
#  undef DWT_BY_SHAPE
#endif

/* ---------------------------------------------------------------- */
/* dwt_tilefused: small LL regions, all remaining 2-D levels at once   */
/* ---------------------------------------------------------------- */

#if defined(RV_CUDA)
#  define DWT_TID ((int)(threadIdx.y * blockDim.x + threadIdx.x))
#  define DWT_NT ((int)(blockDim.x * blockDim.y))
#  define DWT_SYNC() __syncthreads()
#else
#  define DWT_TID 0
#  define DWT_NT 1
#  define DWT_SYNC() ((void)0)
#endif

/*
 * One axis of one level on the tile sh (row stride w words): split the cw x ch
 * region into S | D along the axis (forward) and lift, or the reverse.
 */
RV_FN void dwt_tile_axis(const dwt_tile_args *a, uint32_t *sh, uint32_t *tmp, int w, int cw, int ch, int axis)
{
    const int tid = DWT_TID, T = DWT_NT;
    const int n = axis == 0 ? cw : ch, nl = axis == 0 ? ch : cw;
    const int nS = (n + 1) >> 1, nD = n >> 1;
    const int64_t ustr = axis == 0 ? 4 : (int64_t)w * 4; /* bytes between samples of a line */
    if (n < 2)
        return;
    if (!a->inverse) {
        for (int i = tid; i < cw * ch; i += T)
            tmp[(i / cw) * w + i % cw] = sh[(i / cw) * w + i % cw];
        DWT_SYNC();
        for (int i = tid; i < cw * ch; i += T) {
            const int y = i / cw, x = i % cw, q = axis == 0 ? x : y;
            const int b = (q & 1) ? nS + (q >> 1) : q >> 1;
            sh[axis == 0 ? y * w + b : b * w + x] = tmp[y * w + x];
        }
        DWT_SYNC();
    }
    for (int si = 0; si < a->nsteps; si++) {
        const dwt_step *st = &a->steps[a->inverse ? a->nsteps - 1 - si : si];
        const int tgt_d = st->target == 0, nt = tgt_d ? nD : nS;
        for (int i = tid; i < nt * nl; i += T) {
            /* neighbouring threads take neighbouring words: along the row for
             * rows, across columns for columns (no bank conflicts) */
            const int k = axis == 0 ? i % nt : i / nl, l = axis == 0 ? i / nt : i % nl;
            unsigned char *line = (unsigned char *)(sh + (axis == 0 ? l * w : l));
            unsigned char *tb = line + (tgt_d ? nS : 0) * ustr, *sb = line + (tgt_d ? 0 : nS) * ustr;
            dwt_lift_at(tb, ustr, sb, ustr, n, st, a->type, a->inverse, k);
        }
        DWT_SYNC();
    }
    if (a->inverse) {
        for (int i = tid; i < cw * ch; i += T)
            tmp[(i / cw) * w + i % cw] = sh[(i / cw) * w + i % cw];
        DWT_SYNC();
        for (int i = tid; i < cw * ch; i += T) {
            const int y = i / cw, x = i % cw, q = axis == 0 ? x : y;
            const int b = (q & 1) ? nS + (q >> 1) : q >> 1;
            sh[y * w + x] = tmp[axis == 0 ? y * w + b : b * w + x];
        }
        DWT_SYNC();
    }
}

RV_RAW_KERNEL_CHAINED(dwt_tilefused, dwt_tile_args, a, blk)
{
    const int w = a->w, h = a->h, tid = DWT_TID, T = DWT_NT;
#if defined(RV_CUDA)
    uint32_t *sh = dwt_sh;
    (void)blk;
#else
    uint32_t *sh = (uint32_t *)blk.shared;
#endif
    uint32_t *tmp = sh + w * h;
    for (int i = tid; i < w * h; i += T)
        sh[i] = *(const uint32_t *)dwt_addr(a->base, a->pitch, 0, i / w, i % w);
    DWT_SYNC();
    for (int li = 0; li < a->levels; li++) {
        const int l = a->inverse ? a->levels - 1 - li : li;
        int cw = w, ch = h;
        for (int i = 0; i < l; i++) {
            cw = (cw + 1) >> 1;
            ch = (ch + 1) >> 1;
        }
        if (!a->inverse) {
            dwt_tile_axis(a, sh, tmp, w, cw, ch, 0);
            dwt_tile_axis(a, sh, tmp, w, cw, ch, 1);
        } else {
            dwt_tile_axis(a, sh, tmp, w, cw, ch, 1);
            dwt_tile_axis(a, sh, tmp, w, cw, ch, 0);
        }
    }
    for (int i = tid; i < w * h; i += T)
        *(uint32_t *)dwt_addr(a->base, a->pitch, 0, i / w, i % w) = sh[i];
}

/* ---------------------------------------------------------------- */
/* dwt_chunkgen: in each run of 2b samples, evens then odds           */
/* ---------------------------------------------------------------- */

/* Where sample i of a run of len samples goes (forward) / comes from (inverse). */
RV_FN int dwt_run_map(int i, int len, int inverse)
{
    const int h = (len + 1) >> 1;
    if (!inverse)
        return (i & 1) ? h + (i >> 1) : i >> 1;
    return i < h ? 2 * i : 2 * (i - h) + 1;
}

RV_RAW_KERNEL_CHAINED(dwt_chunkgen, dwt_chunk_args, a, blk)
{
    const int run = 2 * a->b;
    const int r0 = blk.y * a->tile_rows, r1 = RV__MIN(r0 + a->tile_rows, a->rows);
#if defined(RV_CUDA)
    /* blockDim.x is a multiple of 2b: each thread one sample of the block's runs */
    const int p = blk.x * blk.tx + (int)threadIdx.x;
    const int start = p / run * run, len = RV__MIN(run, a->n - start);
    for (int row = r0; row < r1; row++) {
        uint32_t *x = (uint32_t *)(uintptr_t)(a->base + (uint64_t)((int64_t)row * a->pitch));
        uint32_t v = 0;
        if (p < a->n)
            v = x[p];
        __syncthreads();
        if (p < a->n) {
            const int i = p - start;
            const int j = a->inverse ? (i < ((len + 1) >> 1) ? 2 * i : 2 * (i - ((len + 1) >> 1)) + 1)
                                     : dwt_run_map(i, len, 0);
            x[start + j] = v;
        }
        __syncthreads();
    }
#else
    uint32_t tmp[128];
    const int p0 = blk.x * blk.tx, p1 = RV__MIN(p0 + blk.tx, a->n);
    for (int row = r0; row < r1; row++) {
        uint32_t *x = (uint32_t *)(uintptr_t)(a->base + (uint64_t)((int64_t)row * a->pitch));
        for (int start = p0; start < p1; start += run) {
            const int len = RV__MIN(run, a->n - start);
            for (int i = 0; i < len; i++)
                tmp[i] = x[start + i];
            for (int i = 0; i < len; i++) {
                const int j = a->inverse ? dwt_run_map(i, len, 1) : dwt_run_map(i, len, 0);
                x[start + j] = tmp[i];
            }
        }
    }
#endif
}

/* ---------------------------------------------------------------- */
/* dwt_permute: chunk permutation as a product of cycles              */
/* ---------------------------------------------------------------- */

/* Lanes a GPU thread of dwt_permute moves at once. */
#define DWT_LPT 4

/* Chunk that moves into position i (forward: evens first, then odds). */
RV_FN int dwt_perm_from(int i, int nc, int inverse)
{
    const int nE = (nc + 1) >> 1;
    if (!inverse)
        return i < nE ? 2 * i : 2 * (i - nE) + 1;
    return (i & 1) ? nE + (i >> 1) : i >> 1;
}

RV_RAW_KERNEL_CHAINED(dwt_permute, dwt_perm_args, a, blk)
{
    const int lead = ((const int32_t *)(uintptr_t)a->leaders)[blk.x];
    const int u0 = blk.y * a->tile_lanes, u1 = RV__MIN(u0 + a->tile_lanes, a->lanes);
    unsigned char *base = (unsigned char *)(uintptr_t)a->base;
#if defined(RV_CUDA)
    /* each thread moves DWT_LPT lanes together, so their loads overlap */
    for (int u = u0 + (int)threadIdx.x; u < u1; u += DWT_LPT * blk.tx) {
        unsigned char *lane[DWT_LPT];
        uint32_t w[DWT_LPT];
        int ok[DWT_LPT];
#pragma unroll
        for (int t = 0; t < DWT_LPT; t++) {
            const int v = u + t * blk.tx;
            ok[t] = v < u1;
            lane[t] = base + (int64_t)(v % a->lane_b) * 4 + (int64_t)(v / a->lane_b) * a->lane_pitch;
            if (ok[t])
                w[t] = *(const uint32_t *)(lane[t] + (int64_t)lead * a->cstride);
        }
        int i = lead;
        for (;;) {
            const int j = dwt_perm_from(i, a->nchunks, a->inverse);
            if (j == lead)
                break;
            uint32_t v[DWT_LPT];
#pragma unroll
            for (int t = 0; t < DWT_LPT; t++)
                if (ok[t])
                    v[t] = *(const uint32_t *)(lane[t] + (int64_t)j * a->cstride);
#pragma unroll
            for (int t = 0; t < DWT_LPT; t++)
                if (ok[t])
                    *(uint32_t *)(lane[t] + (int64_t)i * a->cstride) = v[t];
            i = j;
        }
#pragma unroll
        for (int t = 0; t < DWT_LPT; t++)
            if (ok[t])
                *(uint32_t *)(lane[t] + (int64_t)i * a->cstride) = w[t];
    }
#else
    /* runs of contiguous lanes move with memcpy; blk.shared holds one run */
    unsigned char *w = (unsigned char *)blk.shared;
    for (int u = u0; u < u1;) {
        const int r = RV__MIN(a->lane_b - u % a->lane_b, u1 - u);
        unsigned char *lane = base + (int64_t)(u % a->lane_b) * 4 + (int64_t)(u / a->lane_b) * a->lane_pitch;
        const size_t bytes = (size_t)r * 4;
        memcpy(w, lane + (int64_t)lead * a->cstride, bytes);
        int i = lead;
        for (;;) {
            const int j = dwt_perm_from(i, a->nchunks, a->inverse);
            if (j == lead)
                break;
            memcpy(lane + (int64_t)i * a->cstride, lane + (int64_t)j * a->cstride, bytes);
            i = j;
        }
        memcpy(lane + (int64_t)i * a->cstride, w, bytes);
        u += r;
    }
#endif
}

/* ---------------------------------------------------------------- */
/* dwt_rotate: [a, a+len) of each row rotated right (inverse: left) by r */
/* ---------------------------------------------------------------- */

RV_RAW_KERNEL_CHAINED(dwt_rotate, dwt_rot_args, a, blk)
{
    const int r0 = blk.x * a->tile_rows, r1 = RV__MIN(r0 + a->tile_rows, a->rows);
    const int r = a->r, len = a->len;
#if defined(RV_CUDA)
    extern __shared__ uint32_t dwt_rot_sh[];
    const int T = (int)blockDim.x, tid = (int)threadIdx.x;
    for (int row = r0; row < r1; row++) {
        uint32_t *x = (uint32_t *)(uintptr_t)(a->base + (uint64_t)((int64_t)row * a->pitch)) + a->a;
        if (!a->inverse) {
            /* save the last r, shift [0, len-r) right by r in tiles from the right */
            for (int i = tid; i < r; i += T)
                dwt_rot_sh[i] = x[len - r + i];
            __syncthreads();
            for (int e = len - r; e > 0; e -= T) {
                const int s = e - T > 0 ? e - T : 0;
                uint32_t v = 0;
                if (s + tid < e)
                    v = x[s + tid];
                __syncthreads();
                if (s + tid < e)
                    x[s + tid + r] = v;
                __syncthreads();
            }
            for (int i = tid; i < r; i += T)
                x[i] = dwt_rot_sh[i];
        } else {
            for (int i = tid; i < r; i += T)
                dwt_rot_sh[i] = x[i];
            __syncthreads();
            for (int s = r; s < len; s += T) {
                const int e = s + T < len ? s + T : len;
                uint32_t v = 0;
                if (s + tid < e)
                    v = x[s + tid];
                __syncthreads();
                if (s + tid < e)
                    x[s + tid - r] = v;
                __syncthreads();
            }
            for (int i = tid; i < r; i += T)
                x[len - r + i] = dwt_rot_sh[i];
        }
        __syncthreads();
    }
#else
    uint32_t *w = (uint32_t *)blk.shared;
    for (int row = r0; row < r1; row++) {
        uint32_t *x = (uint32_t *)(uintptr_t)(a->base + (uint64_t)((int64_t)row * a->pitch)) + a->a;
        if (!a->inverse) {
            memcpy(w, x + len - r, (size_t)r * 4);
            memmove(x + r, x, (size_t)(len - r) * 4);
            memcpy(x, w, (size_t)r * 4);
        } else {
            memcpy(w, x, (size_t)r * 4);
            memmove(x, x + r, (size_t)(len - r) * 4);
            memcpy(x + len - r, w, (size_t)r * 4);
        }
    }
#endif
}

/* ---------------------------------------------------------------- */
/* dwt_convert and dwt_shrink (denoising)                             */
/* ---------------------------------------------------------------- */

RV_FN void dwt_conv_one(const dwt_conv_args *a, int x, int y)
{
    unsigned char *pl = (unsigned char *)(uintptr_t)a->plane + (int64_t)y * a->plane_pitch;
    float *f = (float *)((unsigned char *)(uintptr_t)a->buf + (int64_t)y * a->buf_pitch) + x;
    if (!a->inverse) {
        *f = a->bytes == 1 ? (float)pl[x] : (float)((const uint16_t *)pl)[x];
    } else {
        float v = *f + 0.5f;
        v = v < 0.0f ? 0.0f : v > a->maxval ? a->maxval : v;
        if (a->bytes == 1)
            pl[x] = (uint8_t)(int)v;
        else
            ((uint16_t *)pl)[x] = (uint16_t)(int)v;
    }
}

/*
 * Body of a per-sample kernel over a w x h plane: fn(a, x, y) for every
 * sample of the block's tile_rows rows (GPU: a thread a column, block.y
 * rows at a time; CPU: the rows one after the other).
 */
#if defined(RV_CUDA)
#  define DWT_PER_SAMPLE(fn, a, blk)                                                        \
    do {                                                                                  \
        const int y0 = (blk).y * (a)->tile_rows, y1 = RV__MIN(y0 + (a)->tile_rows, (a)->h); \
        const int x = (blk).x * (blk).tx + (int)threadIdx.x;                              \
        if (x >= (a)->w)                                                                  \
            return;                                                                       \
        for (int y = y0 + (int)threadIdx.y; y < y1; y += (blk).ty)                        \
            fn((a), x, y);                                                                \
    } while (0)
#else
#  define DWT_PER_SAMPLE(fn, a, blk)                                                        \
    do {                                                                                  \
        const int y0 = (blk).y * (a)->tile_rows, y1 = RV__MIN(y0 + (a)->tile_rows, (a)->h); \
        for (int y = y0; y < y1; y++)                                                     \
            for (int x = 0; x < (a)->w; x++)                                              \
                fn((a), x, y);                                                            \
    } while (0)
#endif

RV_RAW_KERNEL_CHAINED(dwt_convert, dwt_conv_args, a, blk)
{
    DWT_PER_SAMPLE(dwt_conv_one, a, blk);
}

RV_FN void dwt_shrink_one(const dwt_shrink_args *a, int x, int y)
{
    if (x < a->wl && y < a->hl)
        return;
    float *f = (float *)((unsigned char *)(uintptr_t)a->base + (int64_t)y * a->pitch) + x;
    const float v = *f;
    *f = v > a->thr ? v - a->thr : v < -a->thr ? v + a->thr : 0.0f;
}

RV_RAW_KERNEL_CHAINED(dwt_shrink, dwt_shrink_args, a, blk)
{
    DWT_PER_SAMPLE(dwt_shrink_one, a, blk);
}
