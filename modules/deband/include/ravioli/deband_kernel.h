/*
 * ravioli/deband_kernel.h - the deband kernels' argument block and per-pixel
 * math, shared by the CPU and the CUDA bodies (modules/deband/deband_kernels.c)
 * and by the host library (keys). Compiles as C11 and as CUDA C++.
 *
 * Definition (all values at a 16-bit working scale; docs/deband.md):
 *   S(x, y)   = sample << (16 - input depth)
 *   rl        = min(range, x, w-1-x, y, h-1-y)
 *   H         = mix(key_ref[p] + 0x9e3779b9 * y + (x >> 2))  (32-bit, wrapping;
 *               one hash per aligned group of 4 samples of a row)
 *   m         = H * K[x & 3],  h = m ^ (m >> 16)      (K: 4 odd constants)
 *   n         = 2 * rl + 1
 *   a         = (((h >> 8) & 0xfff) * n >> 12) - rl   (h's bits 8-19)
 *   b         = (h * n >> 32) - rl                    (64-bit product: h's top bits)
 *               (uniform in [-rl, rl])
 *   da, db    = a, b; interlaced: rounded toward zero to even (same field)
 *   mode 0: refs S(x+b, y+da)
 *   mode 1: refs S(x+b, y+da), S(x-b, y-da)
 *   mode 2: refs S(x+b, y+da), S(x-b, y-da), S(x+a, y-db), S(x-a, y+db)
 *   avg       = (sum + n/2) / n  (n = 1, 2, 4; integer, rounding half up)
 *   diff      = blur_first ? |S - avg| : max |S - ref|
 *   v         = diff < thr[p] ? avg : S
 *   grain[p] > 0: g = dynamic ? mix(h ^ key_grain[p]) : h
 *               v = clamp(v + ((g & 0xff) * (2 grain[p] + 1) >> 8) - grain[p], 0, 65535)
 *               (bits 0-7 of h, or of a frame-dependent hash of h)
 *   output    = 16-bit: v; 8-bit: min((v + 128) >> 8, 255)
 * mix() is the "lowbias32" integer hash (two multiply-xorshift rounds): one
 * hash a group of 4 samples, one multiply-xorshift a sample (rv_deband_hash)
 * gives both offsets and the noise.
 */
#ifndef RAVIOLI_DEBAND_KERNEL_H
#define RAVIOLI_DEBAND_KERNEL_H

#include <stdint.h>

#include <ravioli/kernel_abi.h>
#include <ravioli/pixel.h>

/** Argument block of every deband kernel entry (same layout in C and CUDA). */
typedef struct rv_deband_args {
    uint64_t src[3];        /* plane addresses (rv_image_kernel_address) */
    uint64_t dst[3];
    int64_t spitch[3];      /* bytes between rows */
    int64_t dpitch[3];
    int32_t w[3], h[3];     /* plane sizes in samples (src and dst agree) */
    int32_t thr[3];         /* thresholds at the 16-bit scale */
    int32_t grain[3];       /* noise amplitude at the 16-bit scale (0: none) */
    uint32_t key_ref[3];    /* hash keys of the reference offsets */
    uint32_t key_grain[3];  /* hash keys of the noise when `dynamic` (frame-dependent) */
    int32_t range;          /* largest reference offset, >= 0 */
    int32_t interlaced;     /* 1: vertical offsets rounded toward zero to even */
    int32_t nplanes;        /* 1..3 */
    int32_t vec_ok;         /* GPU: dst addresses and pitches allow vector stores */
    int32_t src_words;      /* GPU tiled entries, staging of the tiles: 0 sample by sample,
                               1 4-byte words (src planes 4-byte aligned, pitch >= row
                               bytes rounded up to 4), 2 16-byte chunks (16-byte aligned,
                               pitch >= row bytes rounded up to 16) */
    int32_t dynamic;        /* 1: noise from mix(h ^ key_grain[p]) (new every frame) */
    int32_t tile_h32;       /* GPU tiled entries: tile height / 32 (<= 0: 1) */
    /* GPU tiled entries: the tile table of tile_h32, set on the host by
     * rv_deband_tile_set (rv_deband_tile_choose calls it); a tiled launch
     * with tiles = 0 traps. Tile t lies in plane p where tile_first[p] <= t
     * < tile_first[p + 1] (tile_first[p] = tiles for p >= nplanes); with
     * r = t - tile_first[p], its tile row is r / tile_cols[p], computed as
     * umulhi(r, tile_rcp[p]) where that is exact for every tile of the
     * plane (tile_rcp[p] != 0), else by a division. */
    int32_t tiles;          /* tiles over all planes */
    int32_t tile_first[3];
    int32_t tile_cols[3];   /* tiles across plane p (1 for p >= nplanes) */
    uint32_t tile_rcp[3];   /* ceil(2^32 / tile_cols[p]), or 0 */
    /* GPU tiled entries, chained launches: RV_DEBAND_NO_WAIT when this launch
     * touches no memory that a grid possibly still running reads or writes
     * (rv_deband_chain_add): it then starts without waiting for the previous
     * grid; RV_DEBAND_EARLY_RELEASE: it lets the next grid be scheduled at
     * its start instead of after its last tile (set with NO_WAIT, and for a
     * waiting grid of more than one wave of blocks, whose blocks are then all
     * placed before the next grid's can be); RV_DEBAND_WAIT_LATE: waits for
     * the previous grid only after staging its first tile, before it
     * computes and stores (a launch whose reads conflict with no grid that
     * may still run, only its writes); RV_DEBAND_DEFER_STORES (with WAIT_LATE):
     * a block computes the first RV_DEBAND_DEFER_ROWS rows of its first tile
     * into shared memory after its tile buffers (rv_deband_defer_bytes more
     * in the launch) before that wait, and copies them out after it, so that
     * the wait overlaps their work. 0: waits at the start, releases late. */
    int32_t independent;
} rv_deband_args;

#define RV_DEBAND_NO_WAIT 1
#define RV_DEBAND_EARLY_RELEASE 2
#define RV_DEBAND_WAIT_LATE 4
#define RV_DEBAND_DEFER_STORES 8
/** Rows of a block's first tile computed before its wait (DEFER_STORES). */
#define RV_DEBAND_DEFER_ROWS 64

/** Tiled GPU entries (*_s): tiles of W x (32 tile_h32) samples, for range <= RANGE. */
#define RV_DEBAND_TILE_W 128
#define RV_DEBAND_TILE_H 32
#define RV_DEBAND_TILE_RANGE 32

/** Shared memory of one tile buffer of a tiled entry (*_s) for `range`
 * (<= RV_DEBAND_TILE_RANGE): 32 tile_h32 + 2 range rows of the tile's
 * TILE_W + 2 range samples, each row widened to whole 16-byte chunks (the
 * row starts at a 16-byte boundary of the plane row: at most 30 bytes more). */
RV_INLINE unsigned rv_deband_tile_buf_bytes(int range, int in16, int tile_h32)
{
    const int th = RV_DEBAND_TILE_H * (tile_h32 > 0 ? tile_h32 : 1);
    const unsigned row = (unsigned)(((RV_DEBAND_TILE_W + 2 * range) * (in16 ? 2 : 1) + 30) & ~15);
    return row * (unsigned)(th + 2 * range);
}

/** Shared memory a launch with RV_DEBAND_DEFER_STORES needs beyond its tile
 * buffers (rv_deband_tile_smem_bytes): min(tile height, DEFER_ROWS) rows of
 * RV_DEBAND_TILE_W samples at the output depth (16 KB at most). */
RV_INLINE unsigned rv_deband_defer_bytes(int out16, int tile_h32)
{
    const int th = RV_DEBAND_TILE_H * (tile_h32 > 0 ? tile_h32 : 1);
    const int rows = th < RV_DEBAND_DEFER_ROWS ? th : RV_DEBAND_DEFER_ROWS;
    return (unsigned)(rows * RV_DEBAND_TILE_W * (out16 ? 2 : 1));
}

/** Sets the tile height of a tiled launch (a->tile_h32 = tile_h32, <= 0:
 * 1) and its tile table (a->tiles, tile_first, tile_cols, tile_rcp; the
 * planes' sizes and nplanes set), which the tiled GPU entries read instead
 * of computing it per block. tile_rcp[p] = ceil(2^32 / c) for c =
 * tile_cols[p] >= 2 when umulhi(r, tile_rcp[p]) = r / c for every tile r of
 * the plane, else 0 (the kernel divides): with e = tile_rcp[p] c - 2^32
 * (0 <= e < c) and r = q c + s, r tile_rcp[p] / 2^32 = q + (s + r e / 2^32)
 * / c, whose floor is q when r e < 2^32 (s <= c - 1), checked here for the
 * largest r. Returns the number of tiles. */
RV_INLINE int rv_deband_tile_set(rv_deband_args *a, int tile_h32)
{
    a->tile_h32 = tile_h32 > 0 ? tile_h32 : 1;
    const int th = RV_DEBAND_TILE_H * a->tile_h32;
    int n = 0;
    for (int p = 0; p < 3; p++) {
        a->tile_first[p] = n;
        a->tile_cols[p] = 1;
        a->tile_rcp[p] = 0;
        if (p >= a->nplanes)
            continue;
        const int c = (a->w[p] + RV_DEBAND_TILE_W - 1) / RV_DEBAND_TILE_W;
        const int np = c * ((a->h[p] + th - 1) / th);
        a->tile_cols[p] = c;
        if (c >= 2 && np >= 1) {
            const uint64_t two32 = (uint64_t)1 << 32;
            const uint64_t m = (two32 + (uint64_t)c - 1) / (uint64_t)c; /* < 2^32 for c >= 2 */
            const uint64_t e = m * (uint64_t)c - two32;
            if ((uint64_t)(np - 1) * e < two32)
                a->tile_rcp[p] = (uint32_t)m;
        }
        n += np;
    }
    a->tiles = n;
    return n;
}

/** Tiles of a tiled launch over all planes of `a` (a->tile_h32 set). */
RV_INLINE int rv_deband_tile_count(const rv_deband_args *a)
{
    const int th = RV_DEBAND_TILE_H * (a->tile_h32 > 0 ? a->tile_h32 : 1);
    int n = 0;
    for (int p = 0; p < a->nplanes; p++)
        n += ((a->w[p] + RV_DEBAND_TILE_W - 1) / RV_DEBAND_TILE_W) * ((a->h[p] + th - 1) / th);
    return n;
}

/** Launch of a tiled entry: any grid of 32 x 8 thread blocks is correct;
 * block b (linear index over the grid) computes tiles b, b + G, b + 2G, ...
 * (G blocks in all; tiles numbered plane by plane, row by row) and copies
 * the next while computing the current. Dynamic shared memory: two tile
 * buffers when a block computes more than one tile (G < tiles), else one. */
RV_INLINE unsigned rv_deband_tile_smem_bytes(int range, int in16, int tile_h32, int tiles,
                                             unsigned blocks)
{
    return ((unsigned)tiles > blocks ? 2u : 1u) * rv_deband_tile_buf_bytes(range, in16, tile_h32);
}

/** Blocks of a tiled launch of `tiles` tiles, about `per_block` tiles a
 * block (<= 1: one tile a block). */
RV_INLINE unsigned rv_deband_tile_blocks(int tiles, int per_block)
{
    const int t = per_block > 1 ? per_block : 1;
    return (unsigned)((tiles + t - 1) / t);
}

/** The library's tiled launch (rv_deband_apply): one tile a block.
 *
 * A launch that waits for the previous grid (a->independent without
 * RV_DEBAND_NO_WAIT: one frame at a time) takes tiles of 96, 64 or 32 rows
 * by the frame's size: 96 rows when that still gives >= RV_DEBAND_MANY_TILES
 * tiles (4K 4:4:4), else 64 rows when that gives >= RV_DEBAND_MIN_TALL_TILES
 * (4K 4:2:0), else 32 rows (1080p 4:2:0, 1080p 4:4:4). Taller tiles stage
 * fewer border rows a pixel ((th + 2 range) / th) but give fewer blocks:
 * with at most a few blocks a multiprocessor a short last wave costs more
 * than the border rows. The thresholds come from the launch shapes measured
 * on an H200 and an H100 (docs/perf/deband.md, runs D, E2, G, H and I; run
 * I, with the host's tile table: 1080p 4:4:4 32 rows, 1530 tiles, 5-8 %
 * faster than 64 rows, 4K 4:2:0 64 rows still 3 % faster than 32).
 *
 * A launch that overlaps the previous frame's grid (RV_DEBAND_NO_WAIT set
 * before the call) takes RV_DEBAND_OVERLAP_H32 x 32 = 128 rows at any
 * size: the multiprocessors its last wave leaves free take the next
 * frame's blocks, so the short wave costs little and the border rows
 * decide (run L, H200, frames back to back, 32 to 256 rows: 128 rows best
 * or within 0.3 us of the best for 1080p, 4K and 720p 4:4:4 and 4:2:0,
 * e.g. 1080p 4:4:4 m0 9.3 us against 12.0 with 32 rows; 720p 8-bit and
 * 480p frames are bound by the launch rate, about 3 us, at any height).
 *
 * `sample_mode` is unused (kept for the callers). Sets a->tile_h32 and the
 * tile table (rv_deband_tile_set; planes and range set) and returns the
 * number of tiles = blocks. */
#define RV_DEBAND_MIN_TALL_TILES 1000
#define RV_DEBAND_MANY_TILES 1200
#define RV_DEBAND_OVERLAP_H32 4
RV_INLINE unsigned rv_deband_tile_choose(rv_deband_args *a, int sample_mode)
{
    (void)sample_mode;
    if (a->independent & RV_DEBAND_NO_WAIT)
        return (unsigned)rv_deband_tile_set(a, RV_DEBAND_OVERLAP_H32);
    const int t96 = rv_deband_tile_set(a, 3);
    if (t96 >= RV_DEBAND_MANY_TILES)
        return (unsigned)t96;
    const int t64 = rv_deband_tile_set(a, 2);
    if (t64 >= RV_DEBAND_MIN_TALL_TILES)
        return (unsigned)t64;
    return (unsigned)rv_deband_tile_set(a, 1);
}

/** Whether the tiled entries of (sample mode, input and output depth)
 * implement RV_DEBAND_DEFER_STORES: all but 16 -> 16 bits mode 0 and 16 -> 8
 * bits. Run O (H200): with the deferral's code, 16 -> 16 mode 0 got 2-3 %
 * slower on every frame (4K 4:4:4 36.4 us against 35.3), more than
 * deferral gains it at 1080p, and the 16 -> 8 entries (no launch bound)
 * took 80-96 registers instead of 56-64, i.e. two blocks an SM instead of
 * four; in the others it measured 0-4 % faster or the same. The others
 * ignore the flag, and rv_deband_apply does not set it for them. */
RV_INLINE int rv_deband_entry_defers(int sample_mode, int in16, int out16)
{
    return !in16 || (out16 && sample_mode != 0);
}

/** Whether a launch that waits before its stores gains by computing its
 * blocks' first rows before the wait (RV_DEBAND_DEFER_STORES), given its
 * tiles and the blocks resident at once without (res) and with (res_defer)
 * the deferred rows' buffer: where that buffer costs no resident block, or
 * where the grid is at most two waves with it. Only the blocks that wait
 * (the first wave) gain, while every wave pays for fewer resident blocks:
 * run O (H200): 1080p 4:4:4 (405 tiles of 128 rows, 396 resident with the
 * buffer against 528) 0.2-1.0 us a frame faster; 4K 4:4:4 (1530 tiles,
 * 3.9 waves) 1.0-1.4 us slower. */
RV_INLINE int rv_deband_defer_pays(int tiles, int res, int res_defer)
{
    return res_defer > 0 && (res_defer >= res || tiles <= 2 * res_defer);
}

/** The tiles of a launch that waits for the previous grid before its
 * stores (RV_DEBAND_WAIT_LATE: it follows a chain of overlapping frames and
 * only writes what one of them reads or writes): the tallest of 128 and 64
 * rows whose grid has more blocks than are resident at once at that tile
 * height, so that it still releases the next grid at its start
 * (rv_deband_apply); else the rule of a waiting launch
 * (rv_deband_tile_choose). res[h32] are the blocks resident at tile height
 * 32 h32 (h32 1-4; <= 0: unknown), res_defer[h32] the same with the
 * deferred rows' buffer (NULL: no deferral); at each height the launch
 * defers where rv_deband_defer_pays, and then counts res_defer. *defer
 * (may be NULL) tells whether the chosen tiles defer. Run N (H200, frames
 * through rv_deband_apply, the benchmark's sets, before deferral): 4K 4:4:4
 * takes 128 rows instead of 96 (every third frame such a launch: 0.3-0.4
 * us a frame faster), 1080p 4:4:4 64 rows instead of 32 (128 rows there
 * are one wave, which releases late: 0.4-0.6 us slower; 64 rows 0.2-0.3
 * faster). With deferral (run O) 1080p 4:4:4 takes 128 rows (405 tiles,
 * 396 resident with the buffer). Sets a->tile_h32 and the tile table;
 * returns the number of tiles. */
RV_INLINE unsigned rv_deband_tile_choose_late(rv_deband_args *a, const int res[5],
                                              const int res_defer[5], int *defer)
{
    int d = 0;
    unsigned t = 0;
    for (int h32 = RV_DEBAND_OVERLAP_H32; h32 >= 2 && !t; h32 /= 2) {
        const int n = rv_deband_tile_set(a, h32);
        const int dd = res_defer && rv_deband_defer_pays(n, res[h32], res_defer[h32]);
        const int r = dd ? res_defer[h32] : res[h32];
        if (r > 0 && n > r) {
            t = (unsigned)n;
            d = dd;
        }
    }
    if (!t) {
        const int32_t ind = a->independent;
        a->independent = ind & ~RV_DEBAND_NO_WAIT;
        t = rv_deband_tile_choose(a, 0);
        a->independent = ind;
        const int h = a->tile_h32 >= 1 && a->tile_h32 <= 4 ? a->tile_h32 : 1;
        d = res_defer && rv_deband_defer_pays((int)t, res[h], res_defer[h]);
    }
    if (defer)
        *defer = d;
    return t;
}

/** Arguments of deband_copy, a plain copy kernel (the benchmarks' floor). */
typedef struct rv_deband_copy_args {
    uint64_t src, dst; /* 16-byte aligned */
    uint64_t n16;      /* number of 16-byte units */
} rv_deband_copy_args;

/*
 * Chained frames (host side; rv_deband_apply, tested in test_deband_cpu).
 * A tiled launch whose previous grid on the stream was one of the same
 * chain may start without waiting for it (RV_DEBAND_NO_WAIT in
 * args.independent) when it touches nothing that any grid still possibly
 * running reads or writes: the grids queued since the last launch that
 * waited (that one included; all before it had finished when it passed its
 * wait, and the next grid starts only after that: see rv_deband_apply's
 * release). A chain holds the byte ranges each of those grids read (source
 * planes) and wrote (output planes), at most RV_DEBAND_CHAIN_MAX; a launch
 * that reads what one of them writes waits at its start; one that only
 * writes what one of them reads or writes, or that finds the chain full,
 * waits before its first store (RV_DEBAND_WAIT_LATE: its tiles' loads
 * overlap the grids it waits for). Both start a new chain.
 */
#define RV_DEBAND_CHAIN_MAX 16
typedef struct rv_deband_span {
    uint64_t lo, hi; /* bytes [lo, hi) */
} rv_deband_span;
typedef struct rv_deband_chain {
    int n;                                  /* grids in the chain (0: none) */
    rv_deband_span rd[RV_DEBAND_CHAIN_MAX]; /* what grid i reads */
    rv_deband_span wr[RV_DEBAND_CHAIN_MAX]; /* what grid i writes */
} rv_deband_chain;

/** The bytes of planes [0, nplanes) of a launch's source (dst 0) or output
 * (dst 1): from the lowest plane start to the highest plane end. */
RV_INLINE rv_deband_span rv_deband_span_of(const rv_deband_args *a, int dst, int out_bytes)
{
    rv_deband_span s = {UINT64_MAX, 0};
    for (int p = 0; p < a->nplanes; p++) {
        const uint64_t lo = dst ? a->dst[p] : a->src[p];
        const int64_t pitch = dst ? a->dpitch[p] : a->spitch[p];
        const uint64_t hi = lo + (uint64_t)(pitch * (a->h[p] - 1)) + (uint64_t)a->w[p] * (uint64_t)out_bytes;
        s.lo = lo < s.lo ? lo : s.lo;
        s.hi = hi > s.hi ? hi : s.hi;
    }
    return s;
}

RV_INLINE int rv_deband_span_overlap(rv_deband_span a, rv_deband_span b)
{
    return a.lo < b.hi && b.lo < a.hi;
}

#define RV_DEBAND_CHAIN_WAIT 0 /* wait for the previous grid at the start */
#define RV_DEBAND_CHAIN_FREE 1 /* no wait */
#define RV_DEBAND_CHAIN_LATE 2 /* wait before the first store */

/** Adds a launch reading rd and writing wr to the chain c. Returns
 * RV_DEBAND_CHAIN_FREE when it may run without waiting for the previous
 * grid (follows is 1: that grid is the chain's last; the chain has room;
 * and the launch conflicts with no grid of the chain);
 * RV_DEBAND_CHAIN_LATE when it follows and reads nothing a grid of the
 * chain writes, but writes what one reads or writes (write after read or
 * write) or finds the chain full: it may load while they run; else
 * RV_DEBAND_CHAIN_WAIT. Unless FREE, the chain restarts with this launch
 * alone. */
RV_INLINE int rv_deband_chain_add(rv_deband_chain *c, int follows, rv_deband_span rd, rv_deband_span wr)
{
    int r = !follows || c->n <= 0              ? RV_DEBAND_CHAIN_WAIT
            : c->n < RV_DEBAND_CHAIN_MAX      ? RV_DEBAND_CHAIN_FREE
                                              : RV_DEBAND_CHAIN_LATE;
    for (int i = 0; r != RV_DEBAND_CHAIN_WAIT && i < c->n; i++) {
        if (rv_deband_span_overlap(rd, c->wr[i]))
            r = RV_DEBAND_CHAIN_WAIT;
        else if (rv_deband_span_overlap(wr, c->rd[i]) || rv_deband_span_overlap(wr, c->wr[i]))
            r = RV_DEBAND_CHAIN_LATE;
    }
    if (r != RV_DEBAND_CHAIN_FREE)
        c->n = 0;
    c->rd[c->n] = rd;
    c->wr[c->n] = wr;
    c->n++;
    return r;
}

/** The lowbias32 integer hash (bijective on 32 bits). */
RV_INLINE uint32_t rv_deband_mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/** The row part of the counter: key_ref[p] + 0x9e3779b9 * y (then + (x >> 2)). */
RV_INLINE uint32_t rv_deband_row_key(uint32_t key_ref, int y)
{
    return key_ref + 0x9e3779b9u * (uint32_t)y;
}

/** The multipliers K[i] that turn the hash of a group of 4 samples into
 * the hash of its sample i (odd, unrelated to each other). */
#define RV_DEBAND_K0 0x85ebca6bu
#define RV_DEBAND_K1 0xc2b2ae35u
#define RV_DEBAND_K2 0x27d4eb2fu
#define RV_DEBAND_K3 0x165667b1u
RV_INLINE uint32_t rv_deband_k(int i)
{
    return i == 0 ? RV_DEBAND_K0 : i == 1 ? RV_DEBAND_K1 : i == 2 ? RV_DEBAND_K2 : RV_DEBAND_K3;
}
/** Hash of sample i (0..3) of a group from the group's hash H. */
RV_INLINE uint32_t rv_deband_sub(uint32_t H, uint32_t k)
{
    const uint32_t m = H * k;
    return m ^ (m >> 16);
}
/** The hash h of sample x of the row whose key is rk (rv_deband_row_key). */
RV_INLINE uint32_t rv_deband_hash(uint32_t rk, int x)
{
    return rv_deband_sub(rv_deband_mix(rk + ((uint32_t)x >> 2)), rv_deband_k(x & 3));
}

/** Keys for plane p (computed on the host, passed in the arguments). */
RV_INLINE uint32_t rv_deband_key_ref(uint32_t seed, int p)
{
    return rv_deband_mix(rv_deband_mix(seed) + 0x9e3779b9u * (uint32_t)(2 * p + 1));
}
RV_INLINE uint32_t rv_deband_key_grain(uint32_t seed, int p, uint32_t frame_key)
{
    return rv_deband_mix(rv_deband_mix(seed ^ 0x85ebca6bu) + 0x9e3779b9u * (uint32_t)(2 * p + 2) +
                         frame_key);
}
/** frame_key of dynamic grain for frame f (0 when the grain is static). */
RV_INLINE uint32_t rv_deband_frame_key(int64_t f)
{
    const uint64_t u = (uint64_t)f;
    return rv_deband_mix((uint32_t)u ^ rv_deband_mix((uint32_t)(u >> 32) + 0x6a09e667u));
}

#endif /* RAVIOLI_DEBAND_KERNEL_H */
