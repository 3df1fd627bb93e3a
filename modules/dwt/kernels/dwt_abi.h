/*
 * dwt_abi.h - argument structs of the DWT raw kernels (dwt_kernels.c) and the
 * lifting arithmetic they share. Included by the kernel module (C and CUDA)
 * and by the host library (src/dwt.c); every struct has the same layout in
 * both (fixed-width fields, 64-bit addresses first).
 *
 * Terms: a "line" is one row (axis 0) or one column (axis 1) of the region
 * being transformed; n is its length in samples. Its even samples are the
 * band S (nS = ceil(n/2)), its odd samples the band D (nD = floor(n/2)).
 * A lifting step adds to every sample of one band a combination of a few
 * neighbours of the other band; neighbours beyond the line are taken from
 * the whole-sample symmetric extension of the signal (JPEG 2000 style).
 */
#ifndef RV_DWT_ABI_H
#define RV_DWT_ABI_H

#include <stdint.h>

#define DWT_MAX_TAPS  4
#define DWT_MAX_STEPS 6
/* Longest row dwt_rowfused takes, and its threads per block at most. */
#define DWT_ROW_MAX     16384
#define DWT_ROW_THREADS 256
/* Pairs a lane lifts in a segment of the register row passes (32 M pairs a warp):
 * DWT_RM for dwt_rowwin (rows in windows), DWT_RM_ROW for dwt_rowreg (whole rows of
 * more than DWT_RM_SMALL_NS pairs), DWT_RM_SMALL for dwt_rowreg_s (the small levels'
 * short rows, so that their one or few warps lift short windows instead of one long
 * one). dwt_rowreg took 16 until session 23; 8 (48 registers instead of 64, twice
 * the warps a row) measured five levels 3-6 % faster at 4K, 1-3 % at 8K (H200) */
#define DWT_RM 16
#define DWT_RM_ROW 8
#define DWT_RM_SMALL 4
#define DWT_RM_SMALL_NS 512
#define DWT_RM_FOR(nS) ((nS) <= DWT_RM_SMALL_NS ? DWT_RM_SMALL : DWT_RM_ROW)

enum { DWT_F32 = 0, DWT_I32 = 1 };

/** One lifting step (forward sense). */
typedef struct dwt_step {
    int32_t target;   /* 0: D += f(S) (predict); 1: S += f(D) (update) */
    int32_t off0;     /* source index of the first tap, relative to the target's */
    int32_t ntaps;    /* 1..DWT_MAX_TAPS */
    int32_t shift;    /* int32: t += sign * ((sum iw*v + round) >> shift) */
    int32_t round;
    int32_t sign;
    int32_t iw[DWT_MAX_TAPS];
    float fw[DWT_MAX_TAPS]; /* f32: t = (t + sum fw*v) * post */
    float post;
    float post_inv;   /* 1/post, for the inverse */
} dwt_step;

/** dwt_step_k: one lifting step along an axis of a strided region. */
typedef struct dwt_step_args {
    uint64_t base;
    int64_t pitch;      /* bytes between rows */
    int32_t axis;       /* 0: lines are rows; 1: lines are columns */
    int32_t n;          /* line length */
    int32_t nlines;
    int32_t line_str;   /* line l is row/column l*line_str */
    int32_t s_off, s_str, d_off, d_str; /* band positions along the line */
    int32_t type;       /* DWT_F32 / DWT_I32 */
    int32_t inverse;
    int32_t tile_a, tile_b; /* a block covers tile_a x tile_b (axis 0: targets x lines) */
    dwt_step st;
} dwt_step_args;

/** dwt_rowfused: whole rows in shared memory, all steps (and levels) in one pass. */
typedef struct dwt_row_args {
    uint64_t src, dst;
    int64_t src_pitch, dst_pitch;
    int32_t n, rows, levels, type;
    int32_t inverse, interleaved, nsteps, tile_rows;
    /* GPU: 1: the host launches dwt_rowasync (same arguments): rows loaded by
     * cp.async (the forward splits with 4-byte copies straight into S and D;
     * the inverse copies 16 bytes) and stored 16 bytes a thread where aligned */
    int32_t async;
    /* dwt_rowwin (forward, GPU): 0 in every other row kernel, else the pairs of a
     * window: block b takes pairs [(b % c) win, (b % c + 1) win) of row b / c
     * (c = ceil(nS / win); win a multiple of 32 DWT_RM), loading only the samples
     * its segments read (rows longer than shared memory holds) */
    int32_t win;
    dwt_step steps[DWT_MAX_STEPS];
} dwt_row_args;

/**
 * dwt_colfused: column pass, all steps fused. A block holds tile_cols
 * columns x (R + 2H) sample pairs (S and D) in shared memory; the R pairs in
 * the middle come out exact when H covers the reach of the steps. Pair g of
 * band S is read at src_s + g * src_s_str (bytes) and written at dst_s + g *
 * dst_s_str, band D likewise, so one kernel covers forward (interleaved rows
 * -> [S rows | D rows]) and inverse, and windows of a longer column (the
 * bases may point before a buffer holding only the pairs a tile touches).
 * Tile t writes pairs [k_first + t R, min(k_first + (t+1) R, k_end)).
 */
/* dwt_col_args.reg: the tiles at a column's ends lift in registers too */
#define DWT_COL_REG_EDGE 4096
/* dwt_colgs16, dwt_colgs: every strip loaded, lifted and stored in turn (the
 * form of dwt_colclu), not the next strip's loads in flight while one lifts */
#define DWT_COL_GS_SERIAL 8192

/*
 * dwt_col_args.fix, dwt_lvl_args.fix: step programs whose shape (targets,
 * taps, offsets, which steps scale) the register lifting takes as literals,
 * so that each step computes only the pairs later steps read and no step is
 * dispatched at run time; the weights still come from the steps. The
 * results are the same, bit for bit, as the step-by-step lifting's.
 * DWT_FIX_CDF97: D S D S, 2 taps each (offsets 0, -1), the last two scaled
 * (post), the first two not; DWT_FIX_DD137: D S, 4 taps each (offsets -1,
 * -2), neither scaled. Float data only.
 */
#define DWT_FIX_NONE 0
#define DWT_FIX_CDF97 1
#define DWT_FIX_DD137 2
/* (kernel code) an entry that takes the shape from the arguments' fix at run time */
#define DWT_FIX_ANY (-1)

typedef struct dwt_col_args {
    uint64_t src_s, src_d, dst_s, dst_d;
    int64_t src_s_str, src_d_str, dst_s_str, dst_d_str;
    int32_t n, ncols, R, H;
    int32_t type, inverse, nsteps, tile_cols;
    int32_t k_first, k_end;
    /* GPU: 1 when every source, destination and halo base and stride is a
     * multiple of 16 bytes: full 32-column tiles then move 16 bytes a thread
     * (cp.async loads straight into shared memory, 16-byte stores) */
    int32_t vec;
    /* GPU, dwt_colreg: 0, or M * 16 + E (| DWT_COL_REG_EDGE): interior tiles
     * of R = M * blockDim.y pairs lift in registers, M pairs a thread with a
     * window of E pairs on either side (M is 8); with DWT_COL_REG_EDGE also the
     * whole tiles at a column's ends, their windows read through the symmetric
     * extension. The host sets it only for step programs the register lifting
     * covers (see dwt_col_regs), the edge bit only for steps of 2 or 4
     * symmetric taps (the lifting then keeps the extension symmetric, bit for
     * bit, as in dwt_rowreg) */
    int32_t reg;
    /* 1: tile row t is blk.y = ny - 1 - t (the blocks start at the column's end,
     * where the row pass before stored last, so their reads find it in the L2) */
    int32_t rev;
    /* DWT_FIX_*: the step program's shape, when it is one the register
     * lifting has as straight-line code (set by the host; 0: the steps are
     * read and dispatched one by one) */
    int32_t fix;
    /* In place (dst = src): when halo != 0, the pairs a tile reads but does not
     * write come from the saved copy of dwt_halo (tile t, row r of 4H at
     * halo + ((t * 4H + r) * ncols + c) * 4), so tiles never read what another
     * has already written. */
    uint64_t halo;
    /* dwt_colgs16, dwt_colgs: two 32-bit counters a strip of 32 columns (0
     * between launches; the kernel leaves them so) */
    uint64_t sync;
    dwt_step steps[DWT_MAX_STEPS];
} dwt_col_args;

/* dwt_colclu, dwt_colclu16, dwt_colclu16m (GPU, sm_90): blocks a cluster, along y; the grid
 * is that many tiles high, so a cluster holds every tile of its 32 columns
 * (in place without rearrangement, see dwt_kernels.c). 16 is a non-portable
 * cluster size (H100, H200), which the CUDA backend allows for such entries */
#define DWT_COL_CLUSTER 8
#define DWT_COL_CLUSTER16 16

/*
 * dwt_lvl2d (GPU, cooperative): one forward 2-D level of a w x h region in
 * place (block layout; w and h multiples of DWT_LVL_T), rows and columns in
 * one pass. Block (bx, by) loads the samples of its tile of DWT_LVL_T x
 * DWT_LVL_T with 2E more on every side (through the symmetric extension at
 * the region's edges) into shared memory, lifts the window's rows and then
 * the tile's columns in registers (8 pairs a thread, windows of E pairs as in
 * dwt_colreg: steps of 2 or 4 symmetric taps, E 2 or 3), and stores its 32 x
 * 32 pairs of each of the four bands. The stores land in other tiles'
 * windows, so they wait until every block has loaded (two counters at sync,
 * 0 between launches): every block must be resident.
 *
 * dwt_lvl2d2 (GPU, cooperative): the same with two tiles a block, (bx, by)
 * and (bx, by + gridDim.y) where the latter exists, so that a level of up to
 * twice the resident blocks' tiles takes one pass. Both windows are loaded at
 * once (cp.async); the first tile lifts, the block passes the counters once
 * its second window has landed and stores the first tile from registers,
 * then lifts and stores the second. Four blocks a multiprocessor (40
 * registers), shared memory twice dwt_lvl2d's.
 */
/*
 * dwt_lvl2o (GPU, chained, not cooperative): the same level out of place, from
 * the region at base to the one at dst (dpitch): no tile's stores land in a
 * window another tile reads, so there are no counters and any number of
 * tiles.
 */
#define DWT_LVL_T 64
#define DWT_LVL_THREADS 384
typedef struct dwt_lvl_args {
    uint64_t base;
    int64_t pitch;
    uint64_t sync;
    int32_t w, h, type, nsteps;
    int32_t E, fix; /* fix: DWT_FIX_*, as in dwt_col_args */
    dwt_step steps[DWT_MAX_STEPS];
    /* dwt_lvl2o: the destination (another buffer; sync unused) */
    uint64_t dst;
    int64_t dpitch;
} dwt_lvl_args;

/*
 * dwt_halo: saves, for every tile t of dwt_colfused (pairs [t R, min(t R + R,
 * nS)) of both bands), the pairs around it that it reads but does not write:
 * row r of 4H (band r / 2H; i = r % 2H: pair t R - H + i for i < H, else
 * kend + i - H) at halo + ((t * 4H + r) * ncols + c) * 4.
 */
typedef struct dwt_halo_args {
    uint64_t src_s, src_d, halo;
    int64_t str;
    int32_t n, ncols, R, H;
    int32_t tile_cols;
    int32_t vec; /* GPU: bases, stride and ncols * 4 multiples of 16: 16-byte copies,
                    DWT_HALO_TILES tiles a block (block.y), 32 columns a block.x */
} dwt_halo_args;
#define DWT_HALO_TILES 4

/**
 * dwt_tilefused: a small LL region (w x h) in shared memory, all remaining
 * 2-D levels in one pass (block layout). One block; 2*w*h words of shared.
 */
typedef struct dwt_tile_args {
    uint64_t base;
    int64_t pitch;
    int32_t w, h, levels, type;
    int32_t inverse, nsteps, pad0, pad1;
    dwt_step steps[DWT_MAX_STEPS];
} dwt_tile_args;

/** dwt_split: src -> dst deinterleave (S then D), its inverse, or a plain copy. */
typedef struct dwt_split_args {
    uint64_t src, dst;
    int64_t src_pitch, dst_pitch;
    int32_t axis, n, nlines, mode; /* mode: 0 split, 1 merge, 2 copy */
    int32_t tile_a, tile_b, pad0, pad1;
} dwt_split_args;

/** dwt_copy16: words 32-bit words src -> dst, 16 bytes a copy where both are 16-byte
 *  aligned (the benchmarks' copy floor: DWT_COPY_Q 16-byte copies a thread in flight). */
typedef struct dwt_copy_args {
    uint64_t src, dst;
    int64_t words;
} dwt_copy_args;
#define DWT_COPY_Q 4

/** dwt_copyrect: rows of words 32-bit words, src + r * src_pitch -> dst + r * dst_pitch
 *  (GPU: 16 bytes a copy, DWT_COPY_Q in flight a thread, where bases and pitches are
 *  16-byte aligned; a block copies one stretch of DWT_COPY_Q * 4 * blockDim words of a row). */
typedef struct dwt_rect_args {
    uint64_t src, dst;
    int64_t src_pitch, dst_pitch;
    int32_t words, rows;
} dwt_rect_args;

/** dwt_chunkgen: in each run of 2b samples of a row, evens first then odds (in place). */
typedef struct dwt_chunk_args {
    uint64_t base;
    int64_t pitch;
    int32_t n, rows, b, inverse;
    int32_t tile_rows, pad0;
} dwt_chunk_args;

/** dwt_permute: chunk c goes to c/2 (even c) or nE + c/2 (odd c), by cycles. */
typedef struct dwt_perm_args {
    uint64_t base;
    uint64_t leaders;   /* int32 table: the smallest element of every cycle */
    int64_t cstride;    /* bytes from chunk c to chunk c+1 */
    int64_t lane_pitch; /* lane u is at (u % lane_b) * 4 + (u / lane_b) * lane_pitch */
    int32_t nchunks, nleaders, lane_b, lanes;
    int32_t inverse, tile_lanes, pad0, pad1;
} dwt_perm_args;

/** dwt_rotate: rotates [a, a+len) of each row right (left: inverse) by r < len. */
typedef struct dwt_rot_args {
    uint64_t base;
    int64_t pitch;
    int32_t a, len, r, rows;
    int32_t inverse, tile_rows;
} dwt_rot_args;

/** dwt_convert: u8/u16 plane -> f32 (inverse: rounded and clamped back). */
typedef struct dwt_conv_args {
    uint64_t plane, buf;
    int64_t plane_pitch, buf_pitch;
    int32_t w, h, bytes, inverse;
    int32_t tile_rows, pad0;
    float maxval, pad1;
} dwt_conv_args;

/** dwt_shrink: soft threshold of every sample outside [0,wl) x [0,hl). */
typedef struct dwt_shrink_args {
    uint64_t base;
    int64_t pitch;
    int32_t w, h, wl, hl;
    int32_t tile_rows, pad0;
    float thr, pad1;
} dwt_shrink_args;

#endif
