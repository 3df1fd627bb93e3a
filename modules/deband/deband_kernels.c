/*
 * deband_kernels.c - the deband kernels (module "deband"), one raw kernel
 * entry per (sample mode, blur_first, input depth, output depth), so that
 * neither backend branches on the mode per pixel. The per-pixel math
 * (rv_db_offsets, rv_db_gather, rv_db_decide, rv_db_noise below) is shared by the CPU and
 * the CUDA bodies; its mode / blur / depth / interlaced arguments are
 * compile-time constants at every call site.
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

/* Sample at byte offset `off` from c, at the 16-bit scale. */
RV_DB_FN int rv_db_ld(const unsigned char *c, int off, const int in16, const int ldg)
{
    if (in16)
        return ldg ? (int)RV_DB_LDG((const uint16_t *)(const void *)(c + off))
                   : (int)*(const uint16_t *)(const void *)(c + off);
    return (ldg ? (int)RV_DB_LDG(c + off) : (int)c[off]) << 8;
}

/*
 * The per-pixel math, shared by both bodies (see deband_kernel.h). One
 * lowbias32 hash H per aligned group of 4 samples, one multiply-xorshift
 * per sample (rv_deband_hash): h. Its bits 8-19 give offset a, its top bits
 * (h * n >> 32) offset b, bits 0-7 the noise. rv_db_fa / rv_db_fb give
 * the offsets before subtracting the limited range rl, i.e. in [0, 2 rl]
 * (n = 2 rl + 1); rv_db_fn the noise before subtracting the grain, in
 * [0, 2 grain] (gn = 2 grain + 1). The GPU forms are the same values as
 * one high-half multiply each (IMAD.HI: (h & 0xfff00) * (n << 12) >> 32 =
 * ((h >> 8) & 0xfff) * n >> 12, exactly: no bits are lost); the CPU keeps
 * the 32-bit form where it vectorises. Products stay below 2^32: 4095 * 511,
 * 255 * 32761.
 */
#if defined(RV_CUDA)
/* fa's n argument: n << 12 on the GPU (hoisted), n on the CPU */
RV_DB_FN uint32_t rv_db_na(uint32_t n) { return n << 12; }
RV_DB_FN int rv_db_fa(uint32_t h, uint32_t n12) { return (int)__umulhi(h & 0xfff00u, n12); }
RV_DB_FN int rv_db_fb(uint32_t h, uint32_t n) { return (int)__umulhi(h, n); }
#else
RV_DB_FN uint32_t rv_db_na(uint32_t n) { return n; }
RV_DB_FN int rv_db_fa(uint32_t h, uint32_t n) { return (int)((((h >> 8) & 0xfffu) * n) >> 12); }
RV_DB_FN int rv_db_fb(uint32_t h, uint32_t n) { return (int)(((uint64_t)h * n) >> 32); }
#endif
/* (an IMAD.HI form of the noise made ptxas fuse the "- grain" into a
 * 64-bit addend pair: more instructions) */
RV_DB_FN int rv_db_fn(uint32_t g, uint32_t gn) { return (int)(((g & 0xffu) * gn) >> 8); }

/*
 * rv_db_offsets turns the hash h into the byte offsets of the references
 * from the centre c (o0: (b, da); o1: (a, -db); |offset| <= range * pitch
 * + 2 * range < 2^31 as pitch < 2^23 is checked on the host); rv_db_blend
 * compares and averages. `rl` is the limited range, `il` interlaced (0/1),
 * mode/blur/in16 compile-time constants at every call.
 */
RV_DB_FN void rv_db_offsets(uint32_t h, int rl, const int il, int pitch, const int in16,
                            int *o0, int *o1)
{
    const uint32_t n = (uint32_t)(2 * rl + 1);
    const int ra = rv_db_fa(h, rv_db_na(n)) - rl;
    const int rb = rv_db_fb(h, n) - rl;
    /* interlaced: toward zero to even, |da| <= |ra| keeps it inside */
    const int da = il ? ra - ra % 2 : ra;
    const int db = il ? rb - rb % 2 : rb;
    *o0 = da * pitch + (in16 ? 2 * rb : rb);
    *o1 = -db * pitch + (in16 ? 2 * ra : ra);
}

/* Loads the centre (*cv), the sum of the references (*sum) and, without
 * blur_first, the largest |centre - reference| (*spread). */
RV_DB_FN void rv_db_gather(const unsigned char *c, int o0, int o1, const int mode, const int blur,
                           const int in16, const int ldg, int *cv, int *sum, int *spread)
{
    const int v = rv_db_ld(c, 0, in16, ldg);
    *cv = v;
    if (mode == 0) {
        *sum = rv_db_ld(c, o0, in16, ldg);
    } else if (mode == 1) {
        const int p = rv_db_ld(c, o0, in16, ldg);
        const int m = rv_db_ld(c, -o0, in16, ldg);
        *sum = p + m;
        if (!blur)
            *spread = rv_db_max(rv_db_abs(v - p), rv_db_abs(v - m));
    } else {
        const int p = rv_db_ld(c, o0, in16, ldg);
        const int m = rv_db_ld(c, -o0, in16, ldg);
        const int q = rv_db_ld(c, o1, in16, ldg);
        const int r = rv_db_ld(c, -o1, in16, ldg);
        *sum = p + m + q + r;
        if (!blur)
            *spread = rv_db_max(rv_db_max(rv_db_abs(v - p), rv_db_abs(v - m)),
                                rv_db_max(rv_db_abs(v - q), rv_db_abs(v - r)));
    }
}

/* The banding decision: the references' average if banded, else the centre. */
RV_DB_FN int rv_db_decide(int cv, int sum, int spread, int thr, const int mode, const int blur)
{
    const int avg = mode == 0 ? sum : mode == 1 ? (sum + 1) >> 1 : (sum + 2) >> 2;
    const int diff = (mode == 0 || blur) ? rv_db_abs(cv - avg) : spread;
    return diff < thr ? avg : cv;
}

RV_DB_FN int rv_db_blend(const unsigned char *c, int o0, int o1, int thr, const int mode,
                         const int blur, const int in16, const int ldg)
{
    int cv, sum, spread = 0;
    rv_db_gather(c, o0, o1, mode, blur, in16, ldg, &cv, &sum, &spread);
    return rv_db_decide(cv, sum, spread, thr, mode, blur);
}

/* The noise of a pixel in [-grain, grain] (gr: 1 static, from h's low
 * byte; 2 dynamic, from mix(h ^ key_grain)), and adding it (clamped to the
 * 16-bit range). */
RV_DB_FN uint32_t rv_db_grain_bits(uint32_t h, const int gr, uint32_t key_grain)
{
    return gr == 2 ? rv_deband_mix(h ^ key_grain) : h;
}
RV_DB_FN int rv_db_noise(uint32_t h, const int gr, uint32_t key_grain, uint32_t gn, int grain)
{
    return rv_db_fn(rv_db_grain_bits(h, gr, key_grain), gn) - grain;
}
RV_DB_FN int rv_db_add_noise(int v, int n)
{
    v += n;
    return v < 0 ? 0 : v > 65535 ? 65535 : v;
}

/* The limited range of (x, y) in a w x h plane. */
RV_DB_FN int rv_db_rl(int range, int x, int y, int w, int h)
{
    return rv_db_min(rv_db_min(range, rv_db_min(x, w - 1 - x)), rv_db_min(y, h - 1 - y));
}

/* 16-bit working value -> 8-bit output sample (round half up, clamp). */
RV_DB_FN unsigned rv_db_out8(int v)
{
    const int o = (v + 128) >> 8;
    return (unsigned)(o > 255 ? 255 : o);
}

#if !defined(RV_CUDA)
/* CPU: a block is a tile of blk.tx x blk.ty samples of plane blk.z, run as
 * row spans; where the border does not limit the range (inner = 1) the
 * range is a loop constant. gr: 0 no grain, 1 static, 2 dynamic. */
RV_DB_FN void rv_db_cpu_span(const rv_deband_args *a, int p, int y, int xa, int xb, uint32_t rk,
                             const int inner, const int il, const int gr, const int mode,
                             const int blur, const int in16, const int out16)
{
    const int w = a->w[p], h = a->h[p], range = a->range, thr = a->thr[p], grain = a->grain[p];
    const uint32_t kg = a->key_grain[p], gn = (uint32_t)(2 * grain + 1);
    const int sp = (int)a->spitch[p];
    const unsigned char *srow = (const unsigned char *)(uintptr_t)a->src[p] + (int64_t)y * sp;
    unsigned char *drow = (unsigned char *)(uintptr_t)a->dst[p] + (int64_t)y * a->dpitch[p];
    if (!inner) {
        for (int x = xa; x < xb; x++) {
            const uint32_t h1 = rv_deband_hash(rk, x);
            int o0, o1;
            rv_db_offsets(h1, rv_db_rl(range, x, y, w, h), il, sp, in16, &o0, &o1);
            int v = rv_db_blend(srow + (in16 ? 2 * x : x), o0, o1, thr, mode, blur, in16, 0);
            if (gr)
                v = rv_db_add_noise(v, rv_db_noise(h1, gr, kg, gn, grain));
            if (out16)
                ((uint16_t *)(void *)drow)[x] = (uint16_t)v;
            else
                drow[x] = (unsigned char)rv_db_out8(v);
        }
        return;
    }
    /* interior: the hashes and offsets of a chunk first (a loop without
     * memory gathers, which the compiler vectorises), then the gathers */
    enum { CH = 64 };
    int o0s[CH], o1s[CH], ns[CH];
    uint32_t gh[CH / 4], hs[CH];
    /* chunks inside aligned 64-sample blocks: the group hashes of a chunk
     * (vectorised), each group's 4 sample hashes, then the offsets */
    for (int xc = xa, xe; xc < xb; xc = xe) {
        xe = rv_db_min(xb, (xc & ~(CH - 1)) + CH);
        const int n = xe - xc, g0 = xc >> 2, ng = ((xe + 3) >> 2) - g0;
        for (int g = 0; g < ng; g++)
            gh[g] = rv_deband_mix(rk + (uint32_t)(g0 + g));
        for (int g = 0; g < ng; g++) {
            hs[4 * g + 0] = rv_deband_sub(gh[g], RV_DEBAND_K0);
            hs[4 * g + 1] = rv_deband_sub(gh[g], RV_DEBAND_K1);
            hs[4 * g + 2] = rv_deband_sub(gh[g], RV_DEBAND_K2);
            hs[4 * g + 3] = rv_deband_sub(gh[g], RV_DEBAND_K3);
        }
        const uint32_t *hc = hs + (xc & 3);
        for (int i = 0; i < n; i++) {
            const uint32_t h1 = hc[i];
            rv_db_offsets(h1, range, il, sp, in16, &o0s[i], &o1s[i]);
            if (gr)
                ns[i] = rv_db_noise(h1, gr, kg, gn, grain);
        }
        /* the gathers, then the decision, noise and store (vectorised) */
        int cs[CH], ss[CH], ds[CH];
        for (int i = 0; i < n; i++) {
            const int x = xc + i;
            ds[i] = 0;
            rv_db_gather(srow + (in16 ? 2 * x : x), o0s[i], o1s[i], mode, blur, in16, 0, &cs[i],
                         &ss[i], &ds[i]);
        }
        for (int i = 0; i < n; i++) {
            int v = rv_db_decide(cs[i], ss[i], ds[i], thr, mode, blur);
            if (gr)
                v = rv_db_add_noise(v, ns[i]);
            if (out16)
                ((uint16_t *)(void *)drow)[xc + i] = (uint16_t)v;
            else
                drow[xc + i] = (unsigned char)rv_db_out8(v);
        }
    }
}

RV_DB_FN void rv_db_cpu_rows(const rv_deband_args *a, rv_block blk, const int il, const int gr,
                             const int mode, const int blur, const int in16, const int out16)
{
    const int p = blk.z;
    if (p >= a->nplanes)
        return;
    const int w = a->w[p], h = a->h[p], range = a->range;
    const int x0 = blk.x * blk.tx, y0 = blk.y * blk.ty;
    if (x0 >= w || y0 >= h)
        return;
    const int x1 = rv_db_min(w, x0 + blk.tx), y1 = rv_db_min(h, y0 + blk.ty);
    /* columns [xa, xb) have rl = range on rows range <= y < h - range */
    const int xa = rv_db_min(rv_db_max(range, x0), x1);
    const int xb = rv_db_min(rv_db_max(w - range, xa), x1);
    for (int y = y0; y < y1; y++) {
        const uint32_t rk = rv_deband_row_key(a->key_ref[p], y);
        if (y >= range && y < h - range) {
            rv_db_cpu_span(a, p, y, x0, xa, rk, 0, il, gr, mode, blur, in16, out16);
            rv_db_cpu_span(a, p, y, xa, xb, rk, 1, il, gr, mode, blur, in16, out16);
            rv_db_cpu_span(a, p, y, xb, x1, rk, 0, il, gr, mode, blur, in16, out16);
        } else {
            rv_db_cpu_span(a, p, y, x0, x1, rk, 0, il, gr, mode, blur, in16, out16);
        }
    }
}

/* grain mode of a launch: 0 none, 1 static, 2 dynamic (uniform) */
#define RV_DB_GR(a, p) ((p) < (a)->nplanes && (a)->grain[p] != 0 ? ((a)->dynamic ? 2 : 1) : 0)

#define RV_DB_ENTRY(NAME, MODE, BLUR, IN16, OUT16)                                  \
    RV_DB_CPU_ENTRY(NAME, MODE, BLUR, IN16, OUT16)                                  \
    RV_DB_CPU_ENTRY(NAME##_s, MODE, BLUR, IN16, OUT16)                              \
    RV_DB_CPU_ENTRY(NAME##_sd, MODE, BLUR, IN16, OUT16)
/* The tiled (_s, _sd) entries exist on the CPU too, with the same body. */
#define RV_DB_CPU_ENTRY(NAME, MODE, BLUR, IN16, OUT16)                              \
    RV_RAW_KERNEL(NAME, rv_deband_args, a, blk)                                     \
    {                                                                               \
        const int g_ = RV_DB_GR(a, blk.z);                                          \
        if (a->interlaced) {                                                        \
            if (g_ == 2)      rv_db_cpu_rows(a, blk, 1, 2, MODE, BLUR, IN16, OUT16); \
            else if (g_ == 1) rv_db_cpu_rows(a, blk, 1, 1, MODE, BLUR, IN16, OUT16); \
            else              rv_db_cpu_rows(a, blk, 1, 0, MODE, BLUR, IN16, OUT16); \
        } else {                                                                    \
            if (g_ == 2)      rv_db_cpu_rows(a, blk, 0, 2, MODE, BLUR, IN16, OUT16); \
            else if (g_ == 1) rv_db_cpu_rows(a, blk, 0, 1, MODE, BLUR, IN16, OUT16); \
            else              rv_db_cpu_rows(a, blk, 0, 0, MODE, BLUR, IN16, OUT16); \
        }                                                                           \
    }
#else
/* Stores the 4 results of a thread (x0 .. x0+3 of a row): one 4-byte
 * (8-bit) or 8-byte (16-bit) store when allowed, else sample by sample. */
RV_DB_FN void rv_db_store4(unsigned char *drow, int x0, int w, const int *v, int vec,
                           const int out16)
{
    if (vec) {
        /* v[i] fit in 16 bits (8 after rv_db_out8): packed with byte
         * permutes (one PRMT a pair) */
        if (out16)
            *(uint2 *)(void *)(drow + 2 * x0) =
                make_uint2(__byte_perm((unsigned)v[0], (unsigned)v[1], 0x5410),
                           __byte_perm((unsigned)v[2], (unsigned)v[3], 0x5410));
        else
            *(unsigned *)(void *)(drow + x0) =
                __byte_perm(__byte_perm(rv_db_out8(v[0]), rv_db_out8(v[1]), 0x0040),
                            __byte_perm(rv_db_out8(v[2]), rv_db_out8(v[3]), 0x0040), 0x5410);
    } else {
        for (int i = 0; i < 4 && x0 + i < w; i++) {
            if (out16)
                ((uint16_t *)(void *)drow)[x0 + i] = (uint16_t)v[i];
            else
                drow[x0 + i] = (unsigned char)rv_db_out8(v[i]);
        }
    }
}

/* Stores 4 results already at the 8-bit scale but not yet clamped
 * (rv_db_tile_row_inner with out16 = 0): each clamped to [0, 255] and the
 * four packed into one word by two cvt.pack.sat (I2IP: saturate two
 * values to bytes and put them below the upper 16 bits of c) instead of
 * two IMNMX a value and three PRMT; sample by sample at the right border. */
RV_DB_FN unsigned rv_db_sat8(int v) { return (unsigned)(v < 0 ? 0 : v > 255 ? 255 : v); }
#if defined(CUDA_EMU_H)
RV_DB_FN unsigned rv_db_pack2_sat8(int a, int b, unsigned c)
{
    return (c << 16) | (rv_db_sat8(a) << 8) | rv_db_sat8(b);
}
#else
RV_DB_FN unsigned rv_db_pack2_sat8(int a, int b, unsigned c)
{
    unsigned d;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
#endif
RV_DB_FN void rv_db_store4_s8(unsigned char *drow, int x0, int w, const int *v, int vec)
{
    if (vec) {
        *(unsigned *)(void *)(drow + x0) =
            rv_db_pack2_sat8(v[1], v[0], rv_db_pack2_sat8(v[3], v[2], 0u));
    } else {
        for (int i = 0; i < 4 && x0 + i < w; i++)
            drow[x0 + i] = (unsigned char)rv_db_sat8(v[i]);
    }
}

/* GPU: thread (tx, ty) of block (bx, by, p) computes RV_DB_PX samples
 * starting at x0 = (bx * blockDim.x + tx) * RV_DB_PX of row by * blockDim.y
 * + ty, and stores them with one 4-byte (8-bit) or 8-byte (16-bit) store.
 * `il` and `gr` are uniform over the launch (no divergence). */
#define RV_DB_PX 4
/* RV_DB_CVEC 0: the inner path loads the centre samples one by one (for
 * SASS comparisons: sass-count.sh with DEBAND_NVCC_FLAGS=-DRV_DB_CVEC=0) */
#ifndef RV_DB_CVEC
#define RV_DB_CVEC 1
#endif
RV_DB_FN void rv_db_gpu(const rv_deband_args *a, rv_block blk, const int il, const int gr,
                        const int mode, const int blur, const int in16, const int out16)
{
    const int p = blk.z;
    const int w = a->w[p], h = a->h[p];
    const int y = blk.y * blk.ty + (int)threadIdx.y;
    const int x0 = (blk.x * blk.tx + (int)threadIdx.x) * RV_DB_PX;
    if (y >= h || x0 >= w)
        return;
    const int64_t sp = a->spitch[p];
    const unsigned char *__restrict__ srow =
        (const unsigned char *)(uintptr_t)a->src[p] + (int64_t)y * sp;
    const int range = a->range, thr = a->thr[p], grain = a->grain[p];
    const uint32_t kg = a->key_grain[p], gn = (uint32_t)(2 * grain + 1);
    const uint32_t rk = rv_deband_row_key(a->key_ref[p], y);
    /* x0 is a multiple of 4: one group hash for the thread's 4 samples */
    const uint32_t hg = rv_deband_mix(rk + ((uint32_t)x0 >> 2));
    int v[RV_DB_PX];
#pragma unroll
    for (int i = 0; i < RV_DB_PX; i++) {
        const int x = x0 + i;
        v[i] = 0;
        if (x < w) {
            const uint32_t h1 = rv_deband_sub(hg, rv_deband_k(i));
            int o0, o1;
            rv_db_offsets(h1, rv_db_rl(range, x, y, w, h), il, (int)sp, in16, &o0, &o1);
            v[i] = rv_db_blend(srow + (in16 ? 2 * x : x), o0, o1, thr, mode, blur, in16, 1);
            if (gr)
                v[i] = rv_db_add_noise(v[i], rv_db_noise(h1, gr, kg, gn, grain));
        }
    }
    unsigned char *drow = (unsigned char *)(uintptr_t)a->dst[p] + (int64_t)y * a->dpitch[p];
    rv_db_store4(drow, x0, w, v, a->vec_ok && x0 + RV_DB_PX <= w, out16);
}

RV_DB_FN unsigned rv_db_umax(unsigned a, unsigned b) { return a > b ? a : b; }

/* rv_deband_mix and rv_deband_sub (the same values) with the right shifts
 * written as high-half multiplies (x >> k = umulhi(x, 2^(32-k))): those run
 * on the multiply-add pipe instead of the integer ALU pipe; a warp
 * instruction takes two cycles of either pipe, and the two run side by side.
 * Run F measured that faster; since run P the inner row's other work leaves
 * the multiply-add pipe the busier one (ncu: fmaheavy 52 % against ALU 40 %
 * active on 4K 4:2:0 8 -> 8), and the plain shifts measured faster in every
 * row (RV_DB_SHIFT8, RV_DB_SHIFT16 1, the default; 0 takes these forms). */
#if defined(CUDA_EMU_H)
#  define rv_db_mix_f(x, p16, p17) ((void)(p16), (void)(p17), rv_deband_mix(x))
#  define rv_db_sub_f(H, k, p16) ((void)(p16), rv_deband_sub(H, k))
#else
/* p16 = 2^16, p17 = 2^17 hidden from ptxas (RV_DB_OPAQUE below), which
 * otherwise turns a high-half multiply by a power of two back into a shift */
RV_DB_FN uint32_t rv_db_mix_f(uint32_t x, uint32_t p16, uint32_t p17)
{
    x ^= __umulhi(x, p16);
    x *= 0x7feb352du;
    x ^= __umulhi(x, p17);
    x *= 0x846ca68bu;
    x ^= __umulhi(x, p16);
    return x;
}
RV_DB_FN uint32_t rv_db_sub_f(uint32_t H, uint32_t k, uint32_t p16)
{
    const uint32_t m = H * k;
    return m ^ __umulhi(m, p16);
}
#endif

/* Hides a value from the optimiser (an empty asm), so that the mirrored
 * references are computed as 2c - A (one add) instead of being re-derived
 * from their parts (ptxas otherwise rebuilds each address: two more
 * instructions a reference). */
#if defined(CUDA_EMU_H)
#  define RV_DB_OPAQUE(x) ((void)0)
#else
#  define RV_DB_OPAQUE(x) asm("" : "+r"(x))
#endif

/* Loads of the inner path by 32-bit shared-memory address (ld.shared; the
 * constant O folds into the instruction's offset); under the CPU emulation
 * an offset into sm. */
#if defined(CUDA_EMU_H)
RV_DB_FN uint32_t rv_db_sbase(const unsigned char *sm) { (void)sm; return 0; }
#  define RV_DB_LDS16(sm, addr, O) rv_db_ld((sm) + (O), (int)(addr), 1, 0)
#  define RV_DB_LDS8B(sm, addr, O) ((int)(sm)[(O) + (int)(addr)])
#else
RV_DB_FN uint32_t rv_db_sbase(const unsigned char *sm)
{
    return (uint32_t)__cvta_generic_to_shared(sm);
}
RV_DB_FN int rv_db_lds16(uint32_t addr, const int o)
{
    unsigned short v;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"(addr + (uint32_t)o));
    return (int)v;
}
#  define RV_DB_LDS16(sm, addr, O) rv_db_lds16(addr, O)
/* a byte as it is (the 8-bit input path of rv_db_tile_row_gen) */
RV_DB_FN int rv_db_lds8b(uint32_t addr, const int o)
{
    unsigned short v;
    asm volatile("ld.shared.u8 %0, [%1];" : "=h"(v) : "r"(addr + (uint32_t)o));
    return (int)v;
}
#  define RV_DB_LDS8B(sm, addr, O) rv_db_lds8b(addr, O)
#endif

/*
 * 8-bit input on the inner path: every sample is 256 b (b its byte), so the
 * row function works on bytes and skips a shift a reference. Exactly:
 * mode 0's result is 256 b; mode 1's average (256 (b1 + b2) + 1) >> 1 =
 * 128 (b1 + b2); mode 2's (256 (b1 + .. + b4) + 2) >> 2 = 64 (b1 + .. + b4).
 * So the result is R 2^su with su = rv_db_unit8(mode) (8, 7, 6), R the
 * byte, the sum of two or of four, or the centre's byte times 2^(8 - su);
 * |256 cb - 2^su S| < thr <=> |2^(8-su) cb - S| <= (thr - 1) >> su, and
 * for !blur each |256 (cb - b)| < thr <=> |cb - b| <= (thr - 1) >> 8.
 * rv_db_thm / rv_db_thb give the bound at the compare's unit (16-bit input:
 * thr - 1 and 2 thr - 1; 0 when thr = 0: never banded). The 8-bit output
 * folds the noise's and the rounding's shifts into one:
 * ((X >> 8) - grain + R 2^su + 128) >> 8 = (X + 256 (128 - grain) +
 * (R << (8 + su))) >> 16 for X = (g & 0xff) gn (floors of integers nest).
 */
/* RV_DB_SHIFT8 / RV_DB_SHIFT16 (default 1): the inner row's hashes with
 * plain right shifts (integer ALU pipe) for 8-bit / 16-bit input; 0: the
 * high-half multiply forms rv_db_mix_f, rv_db_sub_f (above). */
#ifndef RV_DB_SHIFT8
#define RV_DB_SHIFT8 1
#endif
#ifndef RV_DB_SHIFT16
#define RV_DB_SHIFT16 1
#endif
RV_DB_FN int rv_db_unit8(const int mode) { return mode == 0 ? 8 : mode == 1 ? 7 : 6; }
RV_DB_FN int rv_db_thm(int thr, const int mode, const int blur, const int in16)
{
    if (in16)
        return thr - 1;
    return thr > 0 ? (thr - 1) >> ((mode == 0 || !blur) ? 8 : rv_db_unit8(mode)) : 0;
}
RV_DB_FN uint32_t rv_db_thb(int thr, const int mode, const int blur, const int in16)
{
    return thr > 0 ? (in16 ? (uint32_t)(2 * thr - 1)
                           : (uint32_t)(2 * rv_db_thm(thr, mode, blur, in16) + 1))
                   : 0u;
}

/*
 * One row of 4 samples of a tile whose references are all inside the plane
 * at the full range (inner tiles: no per-pixel border limit, no bounds
 * tests). With a' = a + r, b' = b + r in [0, 2r] (fa, fb below) and
 * K0 = r (pitch + bpp), K1 = r (pitch - bpp), the references of the sample
 * at c are
 *   A = c + o0 = (c - K0) + b' bpp + a' pitch,   B = c - o0 = 2c - A,
 *   D = c - o1 = (c - K1) - a' bpp + b' pitch,   C = c + o1 = 2c - D
 * (for sample i, c + i bpp: A and D move by i bpp, B and C by i bpp too):
 * per pixel one shift-add and one multiply-add for A and D, one add for
 * their mirrors (c - K0, c - K1, 2c hoisted; pixel i's i * bpp is an
 * immediate). Addresses are 32-bit offsets into the tile buffer sm.
 * The decision uses |d| < thr <=> (unsigned)(d + thr - 1) < 2 thr - 1
 * (thb = 0 when thr = 0: never banded), and for !blur the largest
 * (unsigned)(ref - cv + thr - 1) over the references against the same
 * bound: the same results as rv_db_decide. Not used when interlaced (its
 * rounding needs the signed offsets).
 * lim 1 (the rows of border tiles, RV_DB_BORDER_LIM): each sample's range
 * is its limited range rl = max(min(x, w-1-x, ry), 0) (ry = min(range, y,
 * h-1-y), the row's part; 0 past the right edge, where nothing is stored),
 * so n, nA and the bases c - K0, c - K1 are taken at rl a sample (nA, nB
 * and `range` are then unused); the offsets are rv_db_offsets' at rl.
 * 8-bit input (rv_db_unit8): thm and thb are at the compare's unit
 * (rv_db_thm, rv_db_thb).
 */
RV_DB_FN void rv_db_tile_row_gen(const unsigned char *sm, int ci, uint32_t rk, int range,
                                 int spb, int thm, uint32_t thb, uint32_t nA, uint32_t nB,
                                 const int gr, uint32_t kg, uint32_t gn, int grain,
                                 const int mode, const int blur, const int in16,
                                 const int out16, const int lim, int ry, int x0, int wm1, int *v)
{
    const int bpp = in16 ? 2 : 1;
    const int k0 = range * (spb + bpp), k1 = range * (spb - bpp);
    const uint32_t cs = rv_db_sbase(sm) + (uint32_t)ci; /* c as a shared address */
    uint32_t iA0 = cs - (uint32_t)k0, iD0 = cs - (uint32_t)k1;
    const uint32_t c2 = 2u * cs;
    uint32_t p16 = 1u << 16, p17 = 1u << 17;
    RV_DB_OPAQUE(p16);
    RV_DB_OPAQUE(p17);
    /* rk: the group's counter; the hash's right shifts as shifts (integer
     * ALU pipe) or as high-half multiplies (RV_DB_SHIFT8 / RV_DB_SHIFT16) */
    const int shifts = in16 ? RV_DB_SHIFT16 : RV_DB_SHIFT8;
    const uint32_t hg = shifts ? rv_deband_mix(rk) : rv_db_mix_f(rk, p16, p17);
    const int c8 = 32768 - 256 * grain;             /* 8 -> 8 with grain (above) */
    /* the 4 centre samples with one shared-memory load (the tile layout
     * puts c at a multiple of 8 bytes (16-bit) or 4 (8-bit)) */
    uint32_t cw0 = 0, cw1 = 0;
    if (!RV_DB_CVEC) {
    } else if (in16) {
        const uint2 cw = *(const uint2 *)(const void *)(sm + ci);
        cw0 = cw.x;
        cw1 = cw.y;
    } else {
        cw0 = *(const uint32_t *)(const void *)(sm + ci);
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int o = i * bpp;
        const uint32_t h1 =
            shifts ? rv_deband_sub(hg, rv_deband_k(i)) : rv_db_sub_f(hg, rv_deband_k(i), p16);
        if (lim) {
            /* the sample's limited range (rv_db_rl; ry: the row's part;
             * 0 past the plane's right edge, where nothing is stored) and
             * the bases of A and D at that range (o = i bpp is the loads'
             * immediate offset, as above) */
            const int x = x0 + i;
            const int rl = rv_db_max(rv_db_min(rv_db_min(x, wm1 - x), ry), 0);
            nB = (uint32_t)(2 * rl + 1);
            nA = rv_db_na(nB);
            iA0 = cs - (uint32_t)(rl * (spb + bpp));
            iD0 = cs - (uint32_t)(rl * (spb - bpp));
        }
        const int fa = rv_db_fa(h1, nA);
        const int fb = (int)__umulhi(h1, nB);
        int r;
        if (in16) {
            const int cv = RV_DB_CVEC ? (int)(((i < 2 ? cw0 : cw1) >> (16 * (i & 1))) & 0xffffu)
                                      : rv_db_ld(sm + ci + o, 0, 1, 0);
            uint32_t iA = iA0 + (uint32_t)(fb * bpp) + (uint32_t)(fa * spb);
            RV_DB_OPAQUE(iA);
            const int pp = RV_DB_LDS16(sm, iA, o);
            if (mode == 0) {
                r = (unsigned)(cv - pp + thm) < thb ? pp : cv;
            } else {
                const int pm = RV_DB_LDS16(sm, c2 - iA, o);
                if (mode == 1) {
                    const int avg = (pp + pm + 1) >> 1;
                    if (blur) {
                        r = (unsigned)(cv - avg + thm) < thb ? avg : cv;
                    } else {
                        const int lo = cv - thm;
                        const unsigned u = rv_db_umax((unsigned)(pp - lo), (unsigned)(pm - lo));
                        r = u < thb ? avg : cv;
                    }
                } else {
                    uint32_t iD = iD0 - (uint32_t)(fa * bpp) + (uint32_t)(fb * spb);
                    RV_DB_OPAQUE(iD);
                    const int pr = RV_DB_LDS16(sm, iD, o);
                    const int pq = RV_DB_LDS16(sm, c2 - iD, o);
                    const int avg = (pp + pm + pq + pr + 2) >> 2;
                    if (blur) {
                        r = (unsigned)(cv - avg + thm) < thb ? avg : cv;
                    } else {
                        const int lo = cv - thm;
                        /* a chain, each step an add and a max (one VIADDMNMX on sm_90) */
                        const unsigned u = rv_db_umax(
                            rv_db_umax(rv_db_umax((unsigned)(pp - lo), (unsigned)(pm - lo)), (unsigned)(pq - lo)),
                            (unsigned)(pr - lo));
                        r = u < thb ? avg : cv;
                    }
                }
            }
            if (out16) {
                if (gr)
                    r = rv_db_add_noise(r, rv_db_noise(h1, gr, kg, gn, grain));
            } else {
                /* 8-bit output, clamped by the store (rv_db_store4_s8): for
                 * n = noise, min((clamp(r + n, 0, 65535) + 128) >> 8, 255) =
                 * clamp((r + n + 128) >> 8, 0, 255) (r + n < 0 gives <= 0,
                 * r + n > 65535 gives >= 256), with 128 - grain one constant */
                r = (r + (gr ? rv_db_noise(h1, gr, kg, gn, grain) : 0) + 128) >> 8;
            }
        } else {
            /* 8-bit input (rv_db_unit8): the samples as bytes b (the 16-bit
             * scale is 256 b); the result R at the mode's unit 2^su of the
             * 16-bit scale (r = R << su), thm and thb at the compare's unit */
            const int su = rv_db_unit8(mode);
            const int cb = RV_DB_CVEC ? (int)((cw0 >> (8 * i)) & 0xffu) : (int)sm[ci + o];
            uint32_t iA = iA0 + (uint32_t)fb + (uint32_t)(fa * spb);
            RV_DB_OPAQUE(iA);
            const int pb = RV_DB_LDS8B(sm, iA, o);
            if (mode == 0) {
                r = (unsigned)(cb - pb + thm) < thb ? pb : cb;
            } else {
                const int mb = RV_DB_LDS8B(sm, c2 - iA, o);
                int sum = pb + mb;
                unsigned u = 0;
                if (!blur) {
                    const int lo = cb - thm;
                    u = rv_db_umax((unsigned)(pb - lo), (unsigned)(mb - lo));
                }
                if (mode == 2) {
                    uint32_t iD = iD0 - (uint32_t)fa + (uint32_t)(fb * spb);
                    RV_DB_OPAQUE(iD);
                    const int rb = RV_DB_LDS8B(sm, iD, o);
                    const int qb = RV_DB_LDS8B(sm, c2 - iD, o);
                    sum += qb + rb;
                    if (!blur) {
                        const int lo = cb - thm;
                        u = rv_db_umax(rv_db_umax(u, (unsigned)(qb - lo)), (unsigned)(rb - lo));
                    }
                }
                const int cu = cb << (8 - su); /* the centre at the unit */
                if (blur)
                    u = (unsigned)(cu - sum + thm);
                r = u < thb ? sum : cu;
            }
            if (out16) {
                r <<= su;
                if (gr)
                    r = rv_db_add_noise(r, rv_db_noise(h1, gr, kg, gn, grain));
            } else if (gr) {
                /* (r 2^su + (X >> 8) - grain + 128) >> 8 with X = (g & 0xff)
                 * gn, = (X + 256 (128 - grain) + (r << (8 + su))) >> 16:
                 * nested floors of integers */
                const uint32_t g = rv_db_grain_bits(h1, gr, kg);
                r = ((int)((g & 0xffu) * gn) + c8 + (r << (8 + su))) >> 16;
            } else {
                /* (r 2^su + 128) >> 8 */
                r = su == 8 ? r : (r + (1 << (7 - su))) >> (8 - su);
            }
        }
        v[i] = r;
    }
}

RV_DB_FN void rv_db_tile_row_inner(const unsigned char *sm, int ci, uint32_t rk, int range,
                                   int spb, int thm, uint32_t thb, uint32_t nA, uint32_t nB,
                                   const int gr, uint32_t kg, uint32_t gn, int grain,
                                   const int mode, const int blur, const int in16,
                                   const int out16, int *v)
{
    rv_db_tile_row_gen(sm, ci, rk, range, spb, thm, thb, nA, nB, gr, kg, gn, grain, mode, blur,
                       in16, out16, 0, 0, 0, 0, v);
}

/*
 * Asynchronous 4-byte copies global -> shared (cp.async, sm_80+): the
 * staging of the next tile runs while the current one is computed. Under
 * the CPU emulation of the tests they are plain copies.
 */
#if defined(CUDA_EMU_H)
/* the emulation queues the copies until a wait (tests/deband/emu/cuda_emu.h) */
RV_DB_FN void rv_db_cp4(uint32_t *d, const uint32_t *g) { emu_cp_async(d, g, 4); }
RV_DB_FN void rv_db_cp_commit(void) { emu_cp_commit(); }
RV_DB_FN void rv_db_cp_wait_all(void) { emu_cp_wait(0); }
RV_DB_FN void rv_db_cp_wait_prev(void) { emu_cp_wait(1); }
#else
RV_DB_FN void rv_db_cp4(uint32_t *d, const uint32_t *g)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(d)),
                 "l"(g)
                 : "memory");
}
RV_DB_FN void rv_db_cp_commit(void) { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
/* wait for all groups / for all but the newest */
RV_DB_FN void rv_db_cp_wait_all(void) { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }
RV_DB_FN void rv_db_cp_wait_prev(void) { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }
#endif

/* 16-byte asynchronous copy (cp.async.cg: to shared memory, bypassing L1) */
#if defined(CUDA_EMU_H)
RV_DB_FN void rv_db_cp16(uint4 *d, const uint4 *g) { emu_cp_async(d, g, 16); }
#else
RV_DB_FN void rv_db_cp16(uint4 *d, const uint4 *g)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(d)),
                 "l"(g)
                 : "memory");
}
#endif

/* Where tile (tx0, ty0) of plane p lies in shared memory: row r holds plane
 * row sy0 + r from byte bx0 of the row on, rows spb bytes apart; bx0 is the
 * 16-byte boundary at or before the first sample, spb a multiple of 16
 * (so the 4 centre samples of a thread are one aligned 8- or 4-byte load,
 * whatever the staging). The staging copies 16-byte chunks (src_words 2;
 * the last may reach into the row padding, which src_words 2 guarantees),
 * 4-byte words (src_words 1, likewise) or samples (0); bytes of the layout
 * before the first or after the last sample may stay unwritten and are
 * never read. */
typedef struct rv_db_tgeom {
    int sx0, sy0, sw, sh, bx0, spb;
} rv_db_tgeom;

RV_DB_FN rv_db_tgeom rv_db_tile_geom(const rv_deband_args *a, int p, int tx0, int ty0, int th,
                                     const int in16)
{
    const int w = a->w[p], h = a->h[p], range = a->range, bpp = in16 ? 2 : 1;
    rv_db_tgeom g;
    g.sx0 = rv_db_max(tx0 - range, 0);
    g.sy0 = rv_db_max(ty0 - range, 0);
    g.sw = rv_db_min(tx0 + RV_DEBAND_TILE_W + range, w) - g.sx0;
    g.sh = rv_db_min(ty0 + th + range, h) - g.sy0;
    g.bx0 = (g.sx0 * bpp) & ~15;
    g.spb = (((g.sx0 + g.sw) * bpp + 15) & ~15) - g.bx0;
    return g;
}

/* Starts copying a tile (plus its border) into sm: asynchronous with
 * src_words (one cp.async group, committed by the caller), else plain.
 * Warp `warp` copies rows warp, warp + 8, ... */
RV_DB_FN void rv_db_stage(const rv_deband_args *a, int p, const rv_db_tgeom g,
                          unsigned char *sm, const int in16)
{
    const int64_t sp = a->spitch[p];
    const int lane = (int)threadIdx.x, warp = (int)threadIdx.y;
    const unsigned char *__restrict__ src =
        (const unsigned char *)(uintptr_t)a->src[p] + (int64_t)g.sy0 * sp;
    if (a->src_words == 2 && in16) {
        /* a row is at most (128 + 64) * 2 + 30 bytes: 25 chunks, one a lane */
        const int nch = g.spb >> 4;
        if (lane < nch) {
            const unsigned char *gp = src + g.bx0 + 16 * lane;
            unsigned char *sp_ = sm + 16 * lane;
            for (int r = warp; r < g.sh; r += 8)
                rv_db_cp16((uint4 *)(void *)(sp_ + r * g.spb),
                           (const uint4 *)(const void *)(gp + (int64_t)r * sp));
        }
    } else if (a->src_words == 2) {
        /* 8-bit rows of at most 128 + 64 + 30 bytes: a warp takes rpw rows
         * at once where they fit its 32 lanes (rows of 10 chunks: 3), lane
         * (rr, ch) chunk ch of row rr, and rows w rpw + rr + 8 rpw k (every
         * row once); both addresses advance by a step (no 64-bit multiply
         * a row). 8-bit input only: the 16-bit rows (20-25 chunks, one a
         * warp) measured 2-4 % slower in modes 2 through this loop than
         * through the one above (run P, call 10). */
        const int nch = g.spb >> 4;
        const int rpw = nch <= 8 ? 4 : nch <= 10 ? 3 : nch <= 16 ? 2 : 1;
        const int rr = (lane >= nch) + (lane >= 2 * nch) + (lane >= 3 * nch);
        const int ch = lane - rr * nch;
        int r = warp * rpw + rr;
        if (rr < rpw && ch < nch && r < g.sh) {
            /* 32-bit offsets: a tile's rows span < 2^31 bytes (pitch < 2^23) */
            const unsigned char *gp = src + g.bx0 + 16 * ch;
            unsigned char *sp_ = sm + 16 * ch;
            const int gstep = 8 * rpw * (int)sp, sstep = 8 * rpw * g.spb;
            for (int go = r * (int)sp, so = r * g.spb; r < g.sh; r += 8 * rpw) {
                rv_db_cp16((uint4 *)(void *)(sp_ + so), (const uint4 *)(const void *)(gp + go));
                go += gstep;
                so += sstep;
            }
        }
    } else if (a->src_words == 1) {
        const int bpp = in16 ? 2 : 1;
        const int wb0 = (g.sx0 * bpp) & ~3;
        const int nwords = ((((g.sx0 + g.sw) * bpp + 3) & ~3) - wb0) >> 2;
        for (int r = warp; r < g.sh; r += 8) {
            const uint32_t *grow = (const uint32_t *)(const void *)(src + (int64_t)r * sp + wb0);
            uint32_t *srow = (uint32_t *)(void *)(sm + r * g.spb + (wb0 - g.bx0));
            for (int c = lane; c < nwords; c += 32)
                rv_db_cp4(srow + c, grow + c);
        }
    } else {
        for (int r = warp; r < g.sh; r += 8) {
            const unsigned char *grow = src + (int64_t)r * sp;
            if (in16) {
                uint16_t *srow = (uint16_t *)(void *)(sm + r * g.spb + (2 * g.sx0 - g.bx0));
                const uint16_t *gs = (const uint16_t *)(const void *)grow + g.sx0;
                for (int c = lane; c < g.sw; c += 32)
                    srow[c] = __ldg(gs + c);
            } else {
                unsigned char *srow = sm + r * g.spb + (g.sx0 - g.bx0);
                for (int c = lane; c < g.sw; c += 32)
                    srow[c] = __ldg(grow + g.sx0 + c);
            }
        }
    }
}

/* The inner path's store of a thread's 4 results: 16-bit, or 8-bit packed
 * (rv_db_store4_s8: the inner path's 8-bit values are not yet clamped). */
RV_DB_FN void rv_db_store4_inner(unsigned char *drow, int x0, int w, const int *v, int vec,
                                 const int out16)
{
    if (out16)
        rv_db_store4(drow, x0, w, v, vec, 1);
    else
        rv_db_store4_s8(drow, x0, w, v, vec);
}

/* RV_DB_INNER_BANDS (default 2): in a border tile whose columns are at
 * least `range` from the plane's left and right edges, the bands of 32 rows
 * whose rows are too (e.g. the lower bands of a tile of the top tile row)
 * take the inner path (rv_db_band_inner) instead of the border path: 1 in
 * every tiled entry, 2 in those with 16-bit input, 0 in none. Measured on
 * an H100 (docs/perf/deband.md, run I1): 4K 4:4:4 16-bit modes 1-2 2-3 %
 * faster, 4K 4:2:0 8-bit 1-3 % faster but 1080p 4:2:0 8-bit modes 1-2 3-4 %
 * slower (tiles of 32 rows have no inner band; the code around the 8-bit
 * inner path changes), hence 16-bit input only. */
#ifndef RV_DB_INNER_BANDS
#define RV_DB_INNER_BANDS 2
#endif
/* RV_DB_BORDER_LIM (default 1): the rows of border tiles that the inner
 * bands leave (progressive only) take the inner path too, with each
 * sample's limited range rl computed in the row (rv_db_tile_row_gen with
 * lim = 1: two min, a max, and the references' bases at rl, a sample)
 * instead of the generic path (a full mix a group, the border limit and the
 * references' addresses from their signed offsets). 0: the generic path. */
#ifndef RV_DB_BORDER_LIM
#define RV_DB_BORDER_LIM 1
#endif
/* RV_DB_BORDER_ROWS (default 1): of those rows, with 8-bit input, the ones
 * of a tile whose columns are at least `range` from the left and right
 * edges take the inner row with the row's limited range ry as its range
 * (all its samples have rl = ry): no per-sample limit. 0: the per-sample
 * limit there too. (16-bit input has the inner bands for most such rows;
 * this path was measured there only together with the new staging loop,
 * whose cost hid its effect, run P calls 3 and 10.) */
#ifndef RV_DB_BORDER_ROWS
#define RV_DB_BORDER_ROWS 1
#endif
#if RV_DB_INNER_BANDS
/* One band of 32 rows on the inner path: the thread's rows y0, y0 + 8,
 * y0 + 16, y0 + 24, centres at shared-memory offset ci (row y0) + 8 j ispb,
 * outputs from drow (row y0) on, dp8 bytes (8 rows) apart. */
RV_DB_FN void rv_db_band_inner(const unsigned char *sm, int ci, unsigned char *drow, int64_t dp8,
                               uint32_t kr, int y0, int x0, int w, int vec, int range, int ispb,
                               int thr, const int gr, uint32_t kg, uint32_t gn, int grain,
                               const int mode, const int blur, const int in16, const int out16)
{
    const uint32_t n = (uint32_t)(2 * range + 1);
    const int thm = rv_db_thm(thr, mode, blur, in16);
    const uint32_t thb = rv_db_thb(thr, mode, blur, in16);
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const uint32_t rk = rv_deband_row_key(kr, y0 + 8 * j) + ((uint32_t)x0 >> 2);
        int v[4];
        rv_db_tile_row_inner(sm, ci + 8 * j * ispb, rk, range, ispb, thm, thb, rv_db_na(n), n,
                             gr, kg, gn, grain, mode, blur, in16, out16, v);
        rv_db_store4_inner(drow, x0, w, v, vec, out16);
        drow += dp8;
    }
}
#endif

/* Rows [jlo, jhi) (multiples of 32) of an inner tile (rv_db_tile_compute's
 * inner path): the thread's rows y0 + j, j = jlo + 8 i, centres at
 * shared-memory offset ci0 (row y0) + j ispb; results stored from drow (row
 * y0 + jlo) on, dp8 bytes (8 rows) apart, at sample xs of a row of ws
 * samples (the plane: x0 and w; the deferred rows' buffer: 4 lane and the
 * tile's width). */
RV_DB_FN void rv_db_inner_rows(const unsigned char *sm, int ci0, int ispb, uint32_t kr, int y0,
                               int x0, unsigned char *drow, int64_t dp8, int xs, int ws, int vec,
                               int jlo, int jhi, int range, int thr, const int gr, uint32_t kg,
                               uint32_t gn, int grain, const int mode, const int blur,
                               const int in16, const int out16)
{
    const uint32_t n = (uint32_t)(2 * range + 1), nA = rv_db_na(n), nB = n;
    const int thm = rv_db_thm(thr, mode, blur, in16);
    const uint32_t thb = rv_db_thb(thr, mode, blur, in16);
#pragma unroll 1
    for (int j8 = jlo; j8 < jhi; j8 += 32) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int y = y0 + j8 + 8 * j;
            const uint32_t rk = rv_deband_row_key(kr, y) + ((uint32_t)x0 >> 2);
            int v[4];
            rv_db_tile_row_inner(sm, ci0 + (j8 + 8 * j) * ispb, rk, range, ispb, thm, thb, nA, nB,
                                 gr, kg, gn, grain, mode, blur, in16, out16, v);
            rv_db_store4_inner(drow, xs, ws, v, vec, out16);
            drow += dp8;
        }
    }
}

/* Whether tile (tx0, ty0) of plane p (th rows) lies in the plane's interior
 * with its references: no per-pixel limits (uniform over the block). */
RV_DB_FN int rv_db_tile_inner(const rv_deband_args *a, int p, int tx0, int ty0, int th)
{
    const int range = a->range;
    return tx0 >= range && tx0 + RV_DEBAND_TILE_W <= a->w[p] - range && ty0 >= range &&
           ty0 + th <= a->h[p] - range;
}

/* The inner tile's layout (rv_db_tile_compute): bytes between rows, and the
 * centre of the thread's first row (warp) in sm. */
RV_DB_FN int rv_db_inner_ispb(int range, const int in16)
{
    const int bpp = in16 ? 2 : 1;
    return (((RV_DEBAND_TILE_W + range) * bpp + 15) & ~15) + ((range * bpp + 15) & ~15);
}
RV_DB_FN int rv_db_inner_ci0(int range, const int in16)
{
    const int bpp = in16 ? 2 : 1;
    return ((int)threadIdx.y + range) * rv_db_inner_ispb(range, in16) + 4 * (int)threadIdx.x * bpp +
           ((range * bpp + 15) & ~15);
}

/* Computes and stores rows [jlo, th) (jlo a multiple of 32) of tile (tx0,
 * ty0) of plane p (th rows) from its staged copy in sm. Thread (tx, ty)
 * computes 4 samples of rows ty, ty + 8, ... */
RV_DB_FN void rv_db_tile_compute(const rv_deband_args *a, int p, int tx0, int ty0, int th,
                                 const rv_db_tgeom g, const unsigned char *sm, const int il,
                                 const int gr, const int mode, const int blur, const int in16,
                                 const int out16, int jlo)
{
    const int w = a->w[p], h = a->h[p];
    const int range = a->range, thr = a->thr[p], grain = a->grain[p];
    const int bpp = in16 ? 2 : 1;
    const int lane = (int)threadIdx.x, warp = (int)threadIdx.y;
    const int sy0 = g.sy0, spb = g.spb, bx0 = g.bx0;
    const uint32_t kg = a->key_grain[p], gn = (uint32_t)(2 * grain + 1);
    const int inner = rv_db_tile_inner(a, p, tx0, ty0, th); /* uniform over the block */
    const int x0 = tx0 + 4 * lane;
    const int vec = a->vec_ok;
    const uint32_t kr = a->key_ref[p];
    unsigned char *const dst = (unsigned char *)(uintptr_t)a->dst[p];
    const int64_t dp = a->dpitch[p];
    if (inner && !il) {
        /* the whole tile inside the plane's interior: no per-pixel limits;
         * an inner tile's layout depends on the range alone (tx0 * bpp is
         * a multiple of 128): spb = R16((128 + range) bpp) + R16(range bpp),
         * bx0 = tx0 bpp - R16(range bpp) (R16: rounded up to 16); written
         * so, the addresses stay out of the per-tile arithmetic. The
         * thread's output row advances by 8 rows (no 64-bit multiply a row) */
        rv_db_inner_rows(sm, rv_db_inner_ci0(range, in16), rv_db_inner_ispb(range, in16), kr,
                         ty0 + warp, x0, dst + (int64_t)(ty0 + warp + jlo) * dp, 8 * dp, x0, w,
                         vec, jlo, th, range, thr, gr, kg, gn, grain, mode, blur, in16, out16);
        return;
    }
#if RV_DB_INNER_BANDS
    /* bands [ja, jb) (multiples of 32 rows) on the inner path: the tile's
     * columns and the bands' rows at least range from the edges (sm row of
     * output row y: y - sy0; the layout of such a tile's rows is the inner
     * tiles': spb = ispb, bx0 = tx0 bpp - R16(range bpp)) */
    int ja = 0, jb = 0;
    if ((RV_DB_INNER_BANDS == 1 || in16) && tx0 >= range && tx0 + RV_DEBAND_TILE_W <= w - range &&
        !il) {
        const int rb = (range * bpp + 15) & ~15;
        const int ispb = rv_db_inner_ispb(range, in16);
        ja = rv_db_max(rv_db_max(range - ty0 + 31, 0) & ~31, jlo);
        jb = rv_db_min(th, (h - range - ty0) & ~31);
#pragma unroll 1
        for (int j8 = ja; j8 < jb; j8 += 32)
            rv_db_band_inner(sm, (ty0 + j8 + warp - sy0) * ispb + 4 * lane * bpp + rb,
                             dst + (int64_t)(ty0 + j8 + warp) * dp, 8 * dp, kr, ty0 + j8 + warp,
                             x0, w, vec, range, ispb, thr, gr, kg, gn, grain, mode, blur, in16,
                             out16);
    }
#endif
#pragma unroll 1
    for (int j8 = jlo; j8 < th; j8 += 32) {
#if RV_DB_INNER_BANDS
        if (j8 == ja && ja < jb)
            j8 = jb; /* (done on the inner path) */
        if (j8 >= th)
            break;
#endif
#if RV_DB_BORDER_LIM
        if (!il) {
            /* the inner path with each sample's limited range */
            const int thm = rv_db_thm(thr, mode, blur, in16);
            const uint32_t thb = rv_db_thb(thr, mode, blur, in16);
            if (RV_DB_BORDER_ROWS && !in16 && tx0 >= range &&
                tx0 + RV_DEBAND_TILE_W <= w - range) {
                /* the tile's columns at least range from the plane's left
                 * and right edges: a row's samples share their limited
                 * range ry (a tile of the top or bottom tile row), taken
                 * by the row as its range, as inner rows take theirs */
#pragma unroll 1
                for (int j = 0; j < 4; j++) {
                    const int y = ty0 + warp + j8 + 8 * j;
                    if (y >= h)
                        break;
                    const int ry = rv_db_min(range, rv_db_min(y, h - 1 - y));
                    const uint32_t rk = rv_deband_row_key(kr, y) + ((uint32_t)x0 >> 2);
                    const uint32_t n = (uint32_t)(2 * ry + 1);
                    int v[4];
                    rv_db_tile_row_inner(sm, (y - sy0) * spb + x0 * bpp - bx0, rk, ry, spb, thm,
                                         thb, rv_db_na(n), n, gr, kg, gn, grain, mode, blur, in16,
                                         out16, v);
                    rv_db_store4_inner(dst + (int64_t)y * dp, x0, w, v, vec, out16);
                }
                continue;
            }
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int y = ty0 + warp + j8 + 8 * j;
                if (y >= h || x0 >= w)
                    continue;
                const int ry = rv_db_min(range, rv_db_min(y, h - 1 - y));
                const uint32_t rk = rv_deband_row_key(kr, y) + ((uint32_t)x0 >> 2);
                int v[4];
                rv_db_tile_row_gen(sm, (y - sy0) * spb + x0 * bpp - bx0, rk, range, spb, thm, thb,
                                   0u, 0u, gr, kg, gn, grain, mode, blur, in16, out16, 1, ry, x0,
                                   w - 1, v);
                rv_db_store4_inner(dst + (int64_t)y * dp, x0, w, v, vec && x0 + 4 <= w, out16);
            }
            continue;
        }
#endif
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int y = ty0 + warp + j8 + 8 * j;
            if (y >= h || x0 >= w)
                continue;
            const uint32_t hg = rv_deband_mix(rv_deband_row_key(kr, y) + ((uint32_t)x0 >> 2));
            const unsigned char *crow = sm + (y - sy0) * spb;
            int v[4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int x = x0 + i;
                v[i] = 0;
                if (inner || x < w) {
                    const uint32_t h1 = rv_deband_sub(hg, rv_deband_k(i));
                    int o0, o1;
                    rv_db_offsets(h1, inner ? range : rv_db_rl(range, x, y, w, h), il, spb, in16,
                                  &o0, &o1);
                    v[i] = rv_db_blend(crow + x * bpp - bx0, o0, o1, thr, mode, blur, in16, 0);
                    if (gr)
                        v[i] = rv_db_add_noise(v[i], rv_db_noise(h1, gr, kg, gn, grain));
                }
            }
            rv_db_store4(dst + (int64_t)y * dp, x0, w, v, vec && x0 + 4 <= w, out16);
        }
    }
}

/*
 * The tile lookup from the host's tile table (rv_deband_tile_set, in the
 * arguments): tile t's plane by two compares with tile_first, its row in
 * the plane as one high-half multiply by tile_rcp (exact for every tile of
 * the plane, checked on the host; an integer division where the host found
 * it inexact, tile_rcp 0). Before (run H), each block computed the table
 * itself (a float-reciprocal division a plane) and divided once more a
 * lookup (twice a tile): about 200 instructions a thread, ~6 a sample at
 * 8-bit tiles of 64 rows (docs/perf/deband.md, run I).
 */
#if defined(CUDA_EMU_H)
#  define RV_DB_TRAP() emu_unsupported("deband: tiled launch without a tile table (rv_deband_tile_set)")
#else
#  define RV_DB_TRAP() __trap()
#endif
RV_DB_FN void rv_db_tiles_at(const rv_deband_args *a, int t, int th, int *p, int *tx0, int *ty0)
{
    const int q = t >= a->tile_first[2] ? 2 : t >= a->tile_first[1] ? 1 : 0;
    const int r = t - a->tile_first[q];
    const int ntx = a->tile_cols[q];
    const uint32_t m = a->tile_rcp[q];
    const int ty = m ? (int)__umulhi((uint32_t)r, m) : r / ntx;
    *p = q;
    *tx0 = (r - ty * ntx) * RV_DEBAND_TILE_W;
    *ty0 = ty * th;
}
/* RV_DB_CHAINED 1: the tiled entries are chained (see the entries below).
 * RV_DB_CHAIN_LATE 1: such an entry waits for the previous grid at its
 * start but lets the next one be scheduled only when its own tiles are done
 * (griddepcontrol.launch_dependents here, after the last tile) instead of
 * at its start (RV__GRID_CHAIN). */
#ifndef RV_DB_CHAINED
#define RV_DB_CHAINED 1
#endif
#ifndef RV_DB_CHAIN_LATE
#define RV_DB_CHAIN_LATE 1
#endif
#if RV_DB_CHAINED && RV_DB_CHAIN_LATE && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#  define RV_DB_CHAIN_END() asm volatile("griddepcontrol.launch_dependents;" ::: "memory")
/* RV_DEBAND_WAIT_LATE: the wait the entry skipped at its start, before the
 * block computes (and stores) its tile; its staging is in flight or done.
 * (Once a block has passed it, further waits return at once.) */
#  define RV_DB_LATE_WAIT(a)                                                    \
      do {                                                                      \
          if ((a)->independent & RV_DEBAND_WAIT_LATE)                           \
              asm volatile("griddepcontrol.wait;" ::: "memory");                \
      } while (0)
#else
#  define RV_DB_CHAIN_END() ((void)0)
#  define RV_DB_LATE_WAIT(a) ((void)0)
#endif

/* RV_DEBAND_DEFER_STORES: copies rows [0, rows) of tile (tx0, ty0) of plane
 * p from the block's shared-memory buffer ob (rows of RV_DEBAND_TILE_W
 * samples at the output depth) to the plane, clipped to the plane: 16-byte
 * chunks where the plane's row and pitch allow, else byte by byte. */
RV_DB_FN void rv_db_copy_out(const rv_deband_args *a, int p, int tx0, int ty0, int rows,
                             const unsigned char *ob, const int out16)
{
    const int obpp = out16 ? 2 : 1, lg = out16 ? 4 : 3; /* 2^lg chunks a buffer row */
    const int nr = rv_db_min(rows, a->h[p] - ty0);
    const int nb = rv_db_min(RV_DEBAND_TILE_W, a->w[p] - tx0) * obpp;
    const int64_t dp = a->dpitch[p];
    unsigned char *d = (unsigned char *)(uintptr_t)a->dst[p] + (int64_t)ty0 * dp + tx0 * obpp;
    const int al = (((uintptr_t)d | (uint64_t)dp) & 15u) == 0;
    const int tid = (int)threadIdx.y * 32 + (int)threadIdx.x;
    for (int c = tid; c < nr << lg; c += 256) {
        const int r = c >> lg, x = (c & ((1 << lg) - 1)) * 16;
        const unsigned char *s = ob + r * (RV_DEBAND_TILE_W * obpp) + x;
        unsigned char *g = d + (int64_t)r * dp + x;
        if (al && x + 16 <= nb)
            *(uint4 *)(void *)g = *(const uint4 *)(const void *)s;
        else
            for (int i = 0; i < 16 && x + i < nb; i++)
                g[i] = s[i];
    }
}

/* RV_DEBAND_DEFER_STORES, an inner first tile (staged at sm): rows [0, rows)
 * into the buffer ob, then the wait for the previous grid, then their copy
 * to the plane. Not inlined (CUDA): it runs once a block, and inlined its
 * registers changed the allocation of the whole entry (spills; run O, build
 * D: RV_DB_DEFER_NOINLINE 0 inlines it). */
#ifndef RV_DB_DEFER_NOINLINE
#define RV_DB_DEFER_NOINLINE 1
#endif
#if defined(RV_CUDA) && !defined(CUDA_EMU_H) && RV_DB_DEFER_NOINLINE
#  define RV_DB_NOINLINE static __device__ __noinline__
#else
#  define RV_DB_NOINLINE RV_DB_FN
#endif
RV_DB_NOINLINE void rv_db_defer_first(const rv_deband_args *a, int p, int tx0, int ty0, int rows,
                                      const unsigned char *sm, unsigned char *ob, const int gr,
                                      const int mode, const int blur, const int in16,
                                      const int out16)
{
    const int obpp = out16 ? 2 : 1, lane = (int)threadIdx.x, warp = (int)threadIdx.y;
    rv_db_inner_rows(sm, rv_db_inner_ci0(a->range, in16), rv_db_inner_ispb(a->range, in16),
                     a->key_ref[p], ty0 + warp, tx0 + 4 * lane,
                     ob + warp * RV_DEBAND_TILE_W * obpp, 8 * RV_DEBAND_TILE_W * obpp, 4 * lane,
                     RV_DEBAND_TILE_W, 1, 0, rows, a->range, a->thr[p], gr, a->key_grain[p],
                     (uint32_t)(2 * a->grain[p] + 1), a->grain[p], mode, blur, in16, out16);
    __syncthreads();
    RV_DB_LATE_WAIT(a);
    rv_db_copy_out(a, p, tx0, ty0, rows, ob, out16);
}

/*
 * Tiled GPU variant (entries *_s, used when range <= RV_DEBAND_TILE_RANGE):
 * blocks of 32 x 8 threads; block b of G (any grid) computes the tiles b,
 * b + G, b + 2G, ... of RV_DEBAND_TILE_W x th samples (th = 32 tile_h32),
 * numbered over all planes row by row (rv_deband_tile_count), so that the
 * blocks in flight work on neighbouring tiles (their borders meet in L2).
 * Each tile plus a border of `range` samples (clipped to the plane) is
 * staged in shared memory with coalesced copies, and the random references
 * are gathered from there (32 banks a cycle) instead of L1 (one cache line
 * a cycle for scattered addresses). Two tile buffers when a block has
 * several tiles: the copy of its next tile (cp.async) runs while the
 * current one is computed. With RV_DEBAND_DEFER_STORES (a launch that waits
 * before its stores, RV_DEBAND_WAIT_LATE), a block whose first tile is an
 * inner one computes its first RV_DEBAND_DEFER_ROWS rows into a buffer
 * after the tile buffers (rv_deband_defer_bytes) before it waits, so that
 * the wait for the grids still running overlaps that work, then copies
 * them out (border tiles wait first, as without).
 */
RV_DB_FN void rv_db_gpu_tile(const rv_deband_args *a, rv_block blk, unsigned char *sm,
                             const int il, const int gr, const int mode, const int blur,
                             const int in16, const int out16)
{
    const int th = RV_DEBAND_TILE_H * (a->tile_h32 > 0 ? a->tile_h32 : 1);
    const int G = blk.nx * blk.ny * blk.nz;
    const int b = (blk.z * blk.ny + blk.y) * blk.nx + blk.x;
    const int total = a->tiles;
    if (total <= 0)
        RV_DB_TRAP(); /* no tile table */
    if (b >= total)
        return; /* the whole block: before any barrier */
    const int bufb = (int)rv_deband_tile_buf_bytes(a->range, in16, a->tile_h32);
    {
        int p, tx0, ty0;
        rv_db_tiles_at(a, b, th, &p, &tx0, &ty0);
        rv_db_stage(a, p, rv_db_tile_geom(a, p, tx0, ty0, th, in16), sm, in16);
        rv_db_cp_commit();
    }
    /* (the tile's plane and origin are recomputed from t in each iteration:
     * values derived from the block index alone stay in uniform registers) */
#pragma unroll 1
    for (int t = b, k = 0; t < total; t += G, k++) {
        const int tn = t + G;
        if (tn < total) {
            /* buffer (k+1)&1 was last read by tile k-1, before the barrier
             * that ended iteration k-1 */
            int p2, tx2, ty2;
            rv_db_tiles_at(a, tn, th, &p2, &tx2, &ty2);
            rv_db_stage(a, p2, rv_db_tile_geom(a, p2, tx2, ty2, th, in16),
                        sm + ((k + 1) & 1) * bufb, in16);
            rv_db_cp_commit();
            rv_db_cp_wait_prev(); /* tile k's copies are done, k+1's may run */
        } else {
            rv_db_cp_wait_all();
        }
        __syncthreads();
        int p, tx0, ty0;
        rv_db_tiles_at(a, t, th, &p, &tx0, &ty0);
        int j0 = 0;
        if (rv_deband_entry_defers(mode, in16, out16) && k == 0 &&
            (a->independent & RV_DEBAND_DEFER_STORES) && !il && rv_db_tile_inner(a, p, tx0, ty0, th)) {
            /* an inner first tile: its first rows before the wait */
            j0 = rv_db_min(th, RV_DEBAND_DEFER_ROWS);
            rv_db_defer_first(a, p, tx0, ty0, j0, sm, sm + (total > G ? 2 : 1) * bufb, gr, mode,
                              blur, in16, out16);
        }
        RV_DB_LATE_WAIT(a); /* (returns at once after the first) */
        if (j0 < th)
            rv_db_tile_compute(a, p, tx0, ty0, th, rv_db_tile_geom(a, p, tx0, ty0, th, in16),
                               sm + (k & 1) * bufb, il, gr, mode, blur, in16, out16, j0);
        if (tn < total)
            __syncthreads();
    }
    RV_DB_CHAIN_END();
}

/* The tile lives in dynamic shared memory sized per launch for the range
 * (rv_deband_tile_smem_bytes): 20 KB for range 15 at 16 bits instead of
 * 37.6 KB for the largest range 32, so more blocks fit on an SM. Under the
 * CPU emulation of the tests it is a buffer of exactly that size. */
#if defined(CUDA_EMU_H)
#  define RV_DB_DYN_SMEM(name) unsigned char *name = emu_dyn_smem
#else
#  define RV_DB_DYN_SMEM(name) extern __shared__ __align__(16) unsigned char name[]
#endif

/* il (interlaced) and gr (grain: none, static, dynamic) are uniform over a
 * launch: one specialised body each, chosen once per thread. (Predefined
 * by modules/deband/tools/sass-count.sh to compile one variant alone.) */
#ifndef RV_DB_DISPATCH
#define RV_DB_DISPATCH(CALL, ...)                                                   \
    do {                                                                            \
        const int g_ = RV_DB_GR(a, blk.z);                                          \
        if (a->interlaced) {                                                        \
            if (g_ == 2)      CALL(__VA_ARGS__, 1, 2);                              \
            else if (g_ == 1) CALL(__VA_ARGS__, 1, 1);                              \
            else              CALL(__VA_ARGS__, 1, 0);                              \
        } else {                                                                    \
            if (g_ == 2)      CALL(__VA_ARGS__, 0, 2);                              \
            else if (g_ == 1) CALL(__VA_ARGS__, 0, 1);                              \
            else              CALL(__VA_ARGS__, 0, 0);                              \
        }                                                                           \
    } while (0)
#endif
/* The tiled entries come in two: *_s with static noise (no grain runs the
 * static body: with grain 0 its noise is ((h >> 24) * 1 >> 8) - 0 = 0) and
 * *_sd with dynamic noise; interlaced is a uniform run-time flag there (it
 * changes the border path's rounding and turns the inner-tile path off).
 * One variant an entry takes 32-56 registers; the six (interlaced, grain)
 * variants inlined in one entry took 64-72 (4 blocks of 256 threads an SM). */
#ifndef RV_DB_TILE_CALL
#define RV_DB_TILE_CALL(GR, MODE, BLUR, IN16, OUT16)                                \
    rv_db_gpu_tile(a, blk, sm_, a->interlaced != 0, GR, MODE, BLUR, IN16, OUT16)
#endif
#define RV_DB_GR(a, p) ((p) < (a)->nplanes && (a)->grain[p] != 0 ? ((a)->dynamic ? 2 : 1) : 0)
/*
 * The tiled entries: RV_RAW_KERNEL_CHAINED's entry (same descriptor,
 * parameter block and rv_block) with __launch_bounds__(256, MINB): at most
 * 65536 / (256 MINB) registers a thread, MINB blocks an SM (0: no bound).
 * MINB by input and output depth and sample mode (RV_DB_MINB8 for 8-bit
 * input, RV_DB_MINB16_M0/_M1/_M2 for 16 -> 16 bits, RV_DB_MINB16TO8 for
 * 16 -> 8): 8-bit 6 (40 registers; 8, i.e. 32 registers, was slower at
 * 1080p 4:2:0, run G); 16 -> 16 bits 5 (48 registers, 5 blocks an SM, no
 * spills: run K, H200, with overlapping frames, 1080p 4:4:4 3-9 % faster
 * than unbounded (56 registers, 4 blocks), 4K 4:4:4 within -1 … +1 %; run
 * I1, before the border path's change and on an H100, had measured the
 * 56-register form of modes 0-1 3-5 % faster at 4K 4:4:4, and a bound of 6
 * (40) slower at 1080p); 16 -> 8 4 (64 registers, no spills: unbounded
 * they took 56-64 until run O, whose code took them to 56-72, i.e. three
 * blocks an SM for some; docs/perf/deband.md, runs G, I, K and O). With
 * RV_DB_CHAINED (default) the tiled
 * entries are chained (RV_KFLAG_CHAINED, programmatic dependent launch;
 * RAVIOLI_CUDA_CHAINED=0 turns it off at run time): each waits for the
 * previous grid at its start and, with RV_DB_CHAIN_LATE (default), lets the
 * next frame's grid be launched only after its last tile (while the last
 * blocks drain); released at the start (RV__GRID_CHAIN, RV_DB_CHAIN_LATE
 * 0), grids smaller than one wave got slower (run G). The host changes
 * both per launch through args.independent (run K): RV_DEBAND_NO_WAIT
 * skips the wait (a frame independent of every grid that may still run),
 * RV_DEBAND_EARLY_RELEASE releases the next grid at the start (with
 * NO_WAIT, and for waiting grids of more than one wave),
 * RV_DEBAND_WAIT_LATE moves the wait to after the first tile's staging
 * (RV_DB_LATE_WAIT; a frame that only writes what a running grid reads or
 * writes). The plain entries
 * (range > 32) and deband_copy are not chained (chaining the plain ones
 * measured 4 % slower at 4K).
 */
#ifndef RV_DB_MINB8
#define RV_DB_MINB8 6
#endif
#ifndef RV_DB_MINB16_M0
#define RV_DB_MINB16_M0 5
#endif
#ifndef RV_DB_MINB16_M1
#define RV_DB_MINB16_M1 5
#endif
#ifndef RV_DB_MINB16_M2
#define RV_DB_MINB16_M2 5
#endif
#ifndef RV_DB_MINB16TO8
#define RV_DB_MINB16TO8 4
#endif
#define RV_DB_MINB_11_0 RV_DB_MINB16_M0
#define RV_DB_MINB_11_1 RV_DB_MINB16_M1
#define RV_DB_MINB_11_2 RV_DB_MINB16_M2
#define RV_DB_MINB_10_0 RV_DB_MINB16TO8
#define RV_DB_MINB_10_1 RV_DB_MINB16TO8
#define RV_DB_MINB_10_2 RV_DB_MINB16TO8
#define RV_DB_MINB_00_0 RV_DB_MINB8
#define RV_DB_MINB_00_1 RV_DB_MINB8
#define RV_DB_MINB_00_2 RV_DB_MINB8
#define RV_DB_MINB_01_0 RV_DB_MINB8
#define RV_DB_MINB_01_1 RV_DB_MINB8
#define RV_DB_MINB_01_2 RV_DB_MINB8
#define RV_DB_MINB(IN16, OUT16, MODE) RV_DB_MINB_##IN16##OUT16##_##MODE
/* __launch_bounds__(256, n), or nothing for n = 0 */
#define RV_DB_LB(n) RV_DB_LB_(n)
#define RV_DB_LB_(n) RV_DB_LB_##n
#define RV_DB_LB_0
#define RV_DB_LB_4 __launch_bounds__(256, 4)
#define RV_DB_LB_5 __launch_bounds__(256, 5)
#define RV_DB_LB_6 __launch_bounds__(256, 6)
#define RV_DB_LB_7 __launch_bounds__(256, 7)
#define RV_DB_LB_8 __launch_bounds__(256, 8)
#if RV_DB_CHAINED
#  define RV_DB_DESC(NAME) RV__DESC_CHAINED(NAME, sizeof(rv_deband_args))
#  if RV_DB_CHAIN_LATE && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#    define RV_DB_CHAIN()                                                          \
        if (rv__args.independent & RV_DEBAND_EARLY_RELEASE)                         \
            asm volatile("griddepcontrol.launch_dependents;" ::: "memory");         \
        if (!(rv__args.independent & (RV_DEBAND_NO_WAIT | RV_DEBAND_WAIT_LATE)))    \
            asm volatile("griddepcontrol.wait;" ::: "memory");
#  else
#    define RV_DB_CHAIN() RV__GRID_CHAIN_()
#  endif
#else
#  define RV_DB_DESC(NAME) RV__DESC(NAME, RV_OP_RAW, none, none, none, 0, 0, sizeof(rv_deband_args))
#  define RV_DB_CHAIN()
#endif
#define RV_DB_TILED_KERNEL(NAME, IN16, OUT16, MODE) RV_DB_TILED_KERNEL_(NAME, RV_DB_MINB(IN16, OUT16, MODE))
#define RV_DB_TILED_KERNEL_(NAME, MINB)                                             \
    RV_DB_DESC(NAME)                                                                \
    static __device__ __forceinline__ void rvk_##NAME##__body(const rv_deband_args *a, \
                                                              rv_block blk);        \
    extern "C" __global__ void RV_DB_LB(MINB)                                       \
    rvk_##NAME(const RV__GRID_CONST rv_deband_args rv__args)                        \
    {                                                                               \
        RV__TRACE_BEGIN(rvk_##NAME)                                                 \
        RV_DB_CHAIN()                                                               \
        RV__TRACE_WAITED()                                                          \
        rv_block b;                                                                 \
        b.x = (int32_t)blockIdx.x; b.y = (int32_t)blockIdx.y; b.z = (int32_t)blockIdx.z; \
        b.nx = (int32_t)gridDim.x; b.ny = (int32_t)gridDim.y; b.nz = (int32_t)gridDim.z; \
        b.tx = (int32_t)blockDim.x; b.ty = (int32_t)blockDim.y; b.tz = (int32_t)blockDim.z; \
        b.pad_ = 0; b.shared = 0;                                                   \
        rvk_##NAME##__body(&rv__args, b);                                           \
    }                                                                               \
    static __device__ __forceinline__ void rvk_##NAME##__body(const rv_deband_args *a, \
                                                              rv_block blk)
#define RV_DB_CALL_PLAIN(MODE, BLUR, IN16, OUT16, IL, GR)                           \
    rv_db_gpu(a, blk, IL, GR, MODE, BLUR, IN16, OUT16)

#define RV_DB_ENTRY(NAME, MODE, BLUR, IN16, OUT16)                                  \
    RV_RAW_KERNEL(NAME, rv_deband_args, a, blk)                                     \
    {                                                                               \
        RV_DB_DISPATCH(RV_DB_CALL_PLAIN, MODE, BLUR, IN16, OUT16);                  \
    }                                                                               \
    RV_DB_TILED_KERNEL(NAME##_s, IN16, OUT16, MODE)                                        \
    {                                                                               \
        RV_DB_DYN_SMEM(sm_);                                                        \
        RV_DB_TILE_CALL(1, MODE, BLUR, IN16, OUT16);                                \
    }                                                                               \
    RV_DB_TILED_KERNEL(NAME##_sd, IN16, OUT16, MODE)                                       \
    {                                                                               \
        RV_DB_DYN_SMEM(sm_);                                                        \
        RV_DB_TILE_CALL(2, MODE, BLUR, IN16, OUT16);                                \
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

/* A plain copy of n16 16-byte units: the bandwidth floor of the benchmarks
 * (one read and one write of every byte, 16-byte accesses, grid-stride). */
#if defined(RV_CUDA)
RV_RAW_KERNEL(deband_copy, rv_deband_copy_args, a, blk)
{
    const uint4 *__restrict__ s = (const uint4 *)(uintptr_t)a->src;
    uint4 *d = (uint4 *)(uintptr_t)a->dst;
    const uint64_t stride = (uint64_t)blk.nx * (uint64_t)blk.tx;
    for (uint64_t i = (uint64_t)blk.x * (uint64_t)blk.tx + threadIdx.x; i < a->n16; i += stride)
        d[i] = __ldg(s + i);
}
#else
#include <string.h>
RV_RAW_KERNEL(deband_copy, rv_deband_copy_args, a, blk)
{
    const uint64_t per = (a->n16 + (uint64_t)blk.nx - 1) / (uint64_t)blk.nx;
    const uint64_t i0 = per * (uint64_t)blk.x;
    if (i0 >= a->n16)
        return;
    const uint64_t n = a->n16 - i0 < per ? a->n16 - i0 : per;
    memcpy((unsigned char *)(uintptr_t)a->dst + 16 * i0,
           (const unsigned char *)(uintptr_t)a->src + 16 * i0, (size_t)(16 * n));
}
#endif
