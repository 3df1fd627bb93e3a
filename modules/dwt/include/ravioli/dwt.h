/*
 * ravioli/dwt.h - discrete wavelet transforms by lifting (library ravioli_dwt).
 *
 *     RV_DwtSettings s;
 *     rv_dwt_settings_default(&s);           // CDF 9/7, float, 2-D, block layout, in place
 *     s.wavelet = RV_DWT_CDF53;              // f32 (i32 samples: the buffer functions)
 *     RV_Dwt *dwt;
 *     rv_dwt_create(ctx, &s, &dwt);
 *     rv_dwt_forward(dwt, img, 3);          // GRAYF32 image, in its own storage
 *     rv_dwt_inverse(dwt, img, 3);
 *     rv_dwt_destroy(&dwt);
 *
 * An RV_Dwt keeps device scratch (the float plane of rv_dwt_denoise, halo
 * and permutation buffers) and launches on the context's current stream:
 * one object must not serve frames that run concurrently. In an
 * RV_Streaming stage keep one per frame-in-flight slot (rv_data_slot()).
 *
 * Wavelets (all by lifting, forward steps listed; s = even, d = odd samples):
 *   RV_DWT_HAAR   d -= s;  s += d/2                      (f32; i32: s += floor(d/2))
 *   RV_DWT_CDF53  d -= (s0+s1)/2; s += (d-1+d0)/4        (i32: the reversible 5/3 of
 *                 JPEG 2000, d -= floor((s0+s1)/2), s += floor((d-1+d0+2)/4); f32 unrounded)
 *   RV_DWT_CDF97  the irreversible 9/7 of JPEG 2000: alpha, beta, gamma, delta steps,
 *                 then s *= 1/K, d *= K (K = 1.230174104914001); f32 only
 *   RV_DWT_DD137  Deslauriers-Dubuc (13,7): d -= (9(s0+s1) - (s-1+s2))/16,
 *                 s += (9(d-1+d0) - (d-2+d1))/32  (i32: +8 >> 4 and +16 >> 5, floored)
 * Boundaries: whole-sample symmetric extension (x[-i] = x[i], x[n-1+i] = x[n-1-i]),
 * as JPEG 2000. A line of length 1 is left unchanged (identity); any length >= 2
 * (odd, prime, ...) is transformed: ceil(n/2) low-pass and floor(n/2) high-pass
 * coefficients. Each level transforms the low-pass part of the previous one;
 * levels beyond the point where both sides reach length 1 change nothing.
 *
 * 2-D: each level transforms rows, then columns, of the current LL region.
 * 1-D (dims = 1): each row is transformed on its own.
 *
 * Layouts:
 *   RV_DWT_LAYOUT_BLOCK (Mallat): along each axis, low-pass first (ceil(n/2)),
 *     then high-pass; the next level works on the contiguous top-left LL block.
 *   RV_DWT_LAYOUT_INTERLEAVED: coefficients stay at their sample positions
 *     (level l low-pass at multiples of 2^l), the classic in-place lifting layout.
 *
 * Methods (block layout; the interleaved layout is always in place):
 *   RV_DWT_IN_PLACE: device memory n + a small table (+ the halos of the fused
 *     column pass: on the GPU about 8 % of n for CDF 9/7 and DD(13,7), n/32
 *     with gpu_variant HALO_N32 or a device_memory_limit; on the CPU about
 *     n/32). Rows that fit in shared memory are transformed in one pass;
 *     longer rows and all columns use the chunk rearrangement of Ikuzawa et
 *     al. (chunk generation, then a chunk permutation as a product of cycles
 *     whose leaders are computed on the host);
 *     long rows then take one pass per lifting step, columns one pass for all
 *     steps (tiles in shared memory, the pairs around each tile saved first).
 *     On the GPU (2-D, forward, CDF 5/3, 9/7, DD(13,7)) long rows instead go
 *     in groups through the halo buffer: one windowed pass into it, copied back.
 *   RV_DWT_OUT_OF_PLACE: a second buffer of n samples (owned by the RV_Dwt and
 *     kept between calls): rows go image -> buffer (fused in shared memory; long
 *     rows on the GPU, forward, in windows of 4096 pairs; otherwise split then
 *     lifted), columns buffer -> image in tiles of 64 pairs with a
 *     halo, all steps fused in shared memory (van der Laan et al. style).
 * Both give the same coefficients. Once the 2-D LL region fits in shared memory
 * (8 w h <= fuse_max_shared), all remaining levels run in one pass.
 *
 * Data: a GRAYF32 image (f32 settings) or an RV_Buffer of w x h 32-bit samples
 * (f32 or i32) with a row pitch in bytes. i32 sums are 32-bit and not checked:
 * the sample range each wavelet takes is at RV_DWT_I32 (e.g. CDF 5/3, 2-D:
 * |x| < 2^28 for one level, |x| <= 2^27 for any number). Results are where
 * the backend runs (device memory on CUDA); read images with rv_image_read as
 * usual.
 */
#ifndef RAVIOLI_DWT_H
#define RAVIOLI_DWT_H

#include <ravioli/ravioli.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum RV_DwtWavelet {
    RV_DWT_HAAR  = 1,
    RV_DWT_CDF53 = 2,
    RV_DWT_CDF97 = 3,
    RV_DWT_DD137 = 4
} RV_DwtWavelet;

typedef enum RV_DwtType {
    RV_DWT_F32 = 0,
    /* 32-bit integer samples and integer lifting (Haar, CDF 5/3, DD(13,7); the
     * inverse is exact). The sums of a lifting step are 32-bit and not
     * checked: samples beyond these bounds can overflow them - an intermediate
     * sum, even where every coefficient would fit - and give wrong
     * coefficients without an error. The bounds hold for any data, the worst
     * case being sharp alternating patterns (derived from the steps' weights;
     * checked on the CPU backend against a 64-bit reference: wrong coefficients
     * at the next power of two past each bound); 8- to 16-bit image samples are
     * far inside.
     * Smooth data goes well beyond them, so nothing refuses larger samples.
     *               2-D, one level   2-D, any levels   1-D (dims = 1), any levels
     *   Haar        |x| < 2^29       |x| < 2^29        |x| < 2^30
     *   CDF 5/3     |x| < 2^28       |x| <= 2^27       |x| <= 2^28
     *   DD(13,7)    |x| <= 2^24      |x| <= 2^23       |x| <= 2^25
     * (CDF 5/3: a level's worst sum is 8 max|x| + 2 at level 1, up to about
     * 16 max|x| over many levels.) The inverse of the coefficients of such
     * samples stays within 32 bits too. */
    RV_DWT_I32 = 1
} RV_DwtType;

typedef enum RV_DwtLayout {
    RV_DWT_LAYOUT_BLOCK       = 0,
    RV_DWT_LAYOUT_INTERLEAVED = 1
} RV_DwtLayout;

typedef enum RV_DwtMethod {
    RV_DWT_IN_PLACE     = 0,
    RV_DWT_OUT_OF_PLACE = 1
} RV_DwtMethod;

typedef struct RV_DwtSettings {
    RV_DwtWavelet wavelet;   /* default RV_DWT_CDF97 */
    RV_DwtType type;         /* default RV_DWT_F32 */
    RV_DwtLayout layout;     /* default RV_DWT_LAYOUT_BLOCK */
    RV_DwtMethod method;     /* default RV_DWT_IN_PLACE */
    int dims;                /* 2 (rows then columns, default) or 1 (rows only) */
    int fuse_max_shared;     /* bytes of shared memory a fused row pass may use:
                                rows of up to fuse_max_shared / 4 samples (and at most
                                16384) go through shared memory in one pass. Default
                                65536 (16K-sample rows; above 48 KiB the CUDA backend
                                opts in to large shared memory, sm_70+); 0 disables */
    int profile;             /* nonzero: every kernel launch is bracketed by
                                rv_context_sync and timed with the host clock
                                (slower; for rv_dwt_stats breakdowns) */
    size_t device_memory_limit; /* host transforms (rv_dwt_forward_host): bytes of
                                device memory the RV_Dwt may hold at once (image
                                parts, scratch, tables); images that do not fit
                                are split into stripes with the halo the wavelet
                                needs. 0 (default): no limit (whole image at once) */
    RV_Context *transfer_ctx; /* host transforms: optional second context on the same
                                device and backend (rv_context_create with the same
                                settings; CUDA contexts of one device share the
                                device's primary context): rv_dwt_create refuses one
                                on another backend (RV_EINVAL; the reason from
                                rv_dwt_settings_check_for); the device is not
                                checked. The transform's own context is taken
                                as NULL. Copies go through it, on
                                its own stream, so that the upload of the next
                                stripe and the download of the last one overlap the
                                kernels of the current one (two buffer sets within
                                the limit). NULL (default): copies on the transform's
                                context, one stripe after the other. Not owned. */
    int host_stripes;        /* host transforms with a transfer_ctx, of images that fit
                                the device (or the limit): level 0 in this many
                                stripes anyway, so that the upload of one overlaps
                                the download of the other (both directions of PCIe
                                at once), the LL region staying on the device.
                                Only when out is not in (the stripes would overwrite
                                rows still to be read). 0 (default): automatic,
                                RV_DWT_HOST_STRIPES stripes from RV_DWT_HOST_PIPE_MIN
                                bytes of image when in and out are page-locked
                                (rv_host_memory_locked); when either is pageable,
                                one stripe a RV_DWT_HOST_STRIPE_MIN_PAGEABLE bytes,
                                at most RV_DWT_HOST_STRIPES, and the whole image
                                below two; 1: the whole image at once; k >= 2:
                                k stripes (at most one a pair of rows). Ignored
                                without a transfer_ctx and when the limit already
                                splits level 0. */
    size_t host_cascade_min; /* forward host transforms of images that fit, pipelined
                                by host_stripes (a transfer_ctx, the LL region kept on
                                the device): the levels after level 0 whose regions
                                have at least this many bytes follow the stripes
                                ("cascade"): as each stripe's rows of a region arrive,
                                they are lifted, the column pairs whose rows (and
                                halo) are all there are finished, and their
                                coefficients go down beside the next stripe's upload,
                                instead of every deeper level after the last stripe.
                                Only where its buffers fit beside the stripes (not when
                                a device_memory_limit splits the image: shorter stripes
                                to make room measured slower). Same results bit for
                                bit. 0 (default): RV_DWT_HOST_CASCADE_MIN when out is
                                page-locked (rv_host_memory_locked), none from
                                pageable memory (its small copies measured slower);
                                k > 0: levels of at least k bytes, any host memory
                                (1: every level of at least two rows); SIZE_MAX:
                                none. */
    long long col_fuse_min;  /* in place, GPU: a level's columns go through the fused
                                pass (dwt_halo + dwt_colfused) only when the level has
                                at least this many samples, or when its halos fit the
                                halo buffer level 0 holds in one group; other levels
                                take one column pass per lifting step (with 3 halo
                                groups a level, as with HALO_N32, that was faster
                                below about 3K x 3K on an H200; with one group,
                                the default since dwt9, the fused pass is faster
                                from 1K x 1K).
                                0 (default): 1 << 20 samples (1 << 23 with gpu_variant
                                HALO_N32 or, for level 0, L0_STEPS); 1: always fused. The
                                CPU backend always fuses (when fuse_max_shared > 0). */
    unsigned gpu_variant;    /* GPU kernel variants, for tests and benchmarks (results
                                are the same bit for bit). 0 (default): the fastest
                                measured; bits of RV_DwtGpuVariant select the older
                                code paths. The CPU backend ignores it. */
} RV_DwtSettings;

/** RV_DwtSettings.host_stripes = 0: images of at least RV_DWT_HOST_PIPE_MIN bytes in
    page-locked host memory go in RV_DWT_HOST_STRIPES stripes; in pageable memory, stripes
    of at least RV_DWT_HOST_STRIPE_MIN_PAGEABLE bytes (at most RV_DWT_HOST_STRIPES), since
    the CUDA backend copies pageable memory through staging buffers by the host's CPUs,
    which a stripe's copy keeps busy only when it is several of their chunks long
    (measured on an H200: docs/perf/dwt.md, sessions 37-38). */
#define RV_DWT_HOST_STRIPES 8
#define RV_DWT_HOST_PIPE_MIN ((size_t)64 << 20)
#define RV_DWT_HOST_STRIPE_MIN_PAGEABLE ((size_t)64 << 20)

/** RV_DwtSettings.host_cascade_min = 0: the levels after level 0 follow its stripes
    when their regions have at least this many bytes and out is page-locked (smaller
    regions cost more in launches and small copies a stripe than they gain: at 8K and
    16K on an H200, 64 MiB measured faster than 16 and 4; docs/perf/dwt.md, session 39). */
#define RV_DWT_HOST_CASCADE_MIN ((size_t)64 << 20)

/** Bits of RV_DwtSettings.gpu_variant (COL_SYNC | ROW_SYNC: the kernels of branch dwt3;
    COL_SHARED: those of dwt4; ROW_SHARED | INPLACE_NO_SCRATCH | HALO_OWN: the default of
    dwt6). */
typedef enum RV_DwtGpuVariant {
    RV_DWT_VARIANT_COL_SYNC = 1, /* column tiles loaded 4 bytes a thread through registers
                                    and stored 4 bytes a thread, instead of 16-byte
                                    asynchronous copies (cp.async) and 16-byte stores */
    RV_DWT_VARIANT_ROW_512  = 2, /* dwt_rowfused with 512 threads for rows over 8192
                                    samples instead of 256 */
    RV_DWT_VARIANT_ROW_SYNC = 4, /* dwt_rowfused loads through registers (8 bytes, 4 in
                                    flight a thread) and stores 4 bytes a thread, instead
                                    of cp.async (the forward's split: 4-byte copies
                                    straight into S and D) and 16-byte stores */
    RV_DWT_VARIANT_COL_SHARED = 8, /* 16-byte column tiles lift in shared memory, one
                                    barrier a step (dwt_colvec, the default of dwt4),
                                    instead of the out-of-place tiles (64 pairs) in
                                    registers, 8 pairs a thread, one barrier in all
                                    (dwt_colreg) */
    RV_DWT_VARIANT_COL_REG_128 = 16, /* the in-place tiles (128 pairs) in registers too, with
                                    16 thread rows (measured slower: off) */
    RV_DWT_VARIANT_COL_INPLACE_64 = 32, /* in-place column tiles of 64 pairs instead of 128 (so
                                    they lift in registers unless COL_SHARED, at the cost
                                    of twice the saved halo rows; measured 0.89-0.94x as
                                    fast in place on an H200: off) */
    RV_DWT_VARIANT_ROW_SHARED = 64, /* one-level rows lift in shared memory, one barrier a
                                    step (dwt_rowasync, the default of dwt6), instead of in
                                    registers by dwt_rowreg (block layout; CDF 5/3, 9/7,
                                    DD(13,7): lanes own interleaved pairs, taps by warp
                                    shuffles, one barrier a row) */
    RV_DWT_VARIANT_INPLACE_NO_SCRATCH = 128, /* in place, 2-D: every level in place, instead
                                    of levels whose LL region fits the column halo buffer
                                    of level 0 (about n/32 bytes, held anyway) going rows
                                    into that buffer and columns back with the
                                    out-of-place kernels (2 launches a level) */
    RV_DWT_VARIANT_HALO_OWN = 256, /* in place, 2-D: column groups of about n/32 bytes of
                                    halo of the level's own size (3 groups a level) and
                                    levels below col_fuse_min a pass per step, instead of
                                    groups as large as level 0's halo buffer allows (one
                                    where it fits) and the fused pass for every level
                                    whose halos fit it in one group; memory unchanged */
    RV_DWT_VARIANT_HALO_N32 = 512, /* in place, 2-D: the halo buffer of about n/32 bytes
                                    (3 column groups at level 0) and level 0 fused only
                                    from 1 << 23 samples (the plan of dwt7), instead of
                                    the halos of level 0 in one group (about 8 % of n for
                                    CDF 9/7 and DD(13,7): 2 column launches instead of 6,
                                    and a buffer that takes the LL regions of more levels)
                                    and level 0 fused from 1 << 20 samples */
    RV_DWT_VARIANT_L0_STEPS = 1024, /* in place, 2-D, without HALO_N32: level 0 below 1 << 23
                                    samples keeps one column pass per step (it still holds
                                    the one-group halo buffer for the later levels) */
    RV_DWT_VARIANT_COL_REG_INNER = 2048 /* column tiles lifted in registers (dwt_colreg) only
                                    where their window lies inside the column; the first
                                    and last tile of a column lift in shared memory, one
                                    barrier a step (the kernels before session 10), instead
                                    of in registers through the symmetric extension
                                    (CDF 5/3, 9/7, DD(13,7)) */,
    RV_DWT_VARIANT_NO_SIDE = 4096 /* forward, 2-D: the column pass of a level that more
                                    levels follow in one launch on the context's queue,
                                    instead of its right half (the HL and HH bands, which
                                    no later level reads) on the side queue (rv_side_begin),
                                    beside the next levels. Applies to the CPU backend too
                                    (there both halves run in order either way) */,
    RV_DWT_VARIANT_COL_TOPDOWN = 8192 /* GPU: column passes start their tiles at the
                                    columns' first pairs, instead of at their last ones
                                    (the rows the row pass before stored last, which the
                                    L2 still holds; and the tiles that store the rows the
                                    next level reads first go last) */,
    RV_DWT_VARIANT_NO_ROW_WIN = 16384 /* rows longer than a fused row pass takes
                                    (fuse_max_shared, 16K samples) out of place split, then
                                    one pass a lifting step (inverse: the passes, then the
                                    merge), and in place the chunk rearrangement and a pass
                                    a step, instead of one pass of dwt_rowreg over windows
                                    of 4096 pairs (CDF 5/3, 9/7, DD(13,7); in place, 2-D:
                                    groups of rows through level 0's halo buffer, copied
                                    back; the inverse too since session 14) */,
    RV_DWT_VARIANT_NO_COLCLU = 32768 /* in place, GPU (sm_90): columns of at most 8192
                                    samples by the chunk permutation of their rows, a halo
                                    copy and the fused column pass, instead of one pass of
                                    dwt_colclu (clusters of 8 or 16 blocks that hold whole
                                    32-column strips and store after all have loaded) */,
    RV_DWT_VARIANT_COLCLU_8K_OFF = 65536 /* in place, GPU: dwt_colclu only for columns of
                                    up to 4096 samples (8 pairs a thread), not up to 8192
                                    (16 pairs a thread, dwt_colclu16m) */,
    RV_DWT_VARIANT_COLCLP_OFF = 131072 /* in place, GPU: clusters of 16 with 8 pairs a
                                    thread take one strip of 32 columns each (dwt_colclu16),
                                    instead of two in turn with the second's loads in
                                    flight while the first lifts (dwt_colclp) */,
    RV_DWT_VARIANT_COLGS_OFF = 262144 /* in place, GPU: columns of more than 4096 samples
                                    by dwt_colclu16m (up to 8192 samples, clusters of 16)
                                    or the chunk rearrangement, instead of one cooperative
                                    pass of dwt_colgs16 (the tiles of a strip wait for one
                                    another through counters in global memory; any column
                                    length, every multiprocessor) */,
    RV_DWT_VARIANT_COLGS_SMALL = 524288 /* in place, GPU: columns of at most 4096 samples
                                    by dwt_colgs (8 pairs a thread) too, instead of the
                                    clusters (dwt_colclu, dwt_colclp) */,
    RV_DWT_VARIANT_COLGS_SERIAL = 1048576 /* dwt_colgs16 / dwt_colgs: each block loads,
                                    lifts and stores its tile of one strip after the
                                    other, instead of loading the next strip while the
                                    current one lifts (its window in registers, stored
                                    from there) */,
    RV_DWT_VARIANT_NO_LEVEL2D = 2097152 /* forward, 2-D, GPU: every level by a row pass
                                    and a column pass, instead of levels whose tiles of
                                    64 x 64 samples the device holds at once (sides
                                    multiples of 64; CDF 5/3, 9/7, DD(13,7)) in one
                                    cooperative pass in place (dwt_lvl2d: each tile lifts
                                    its rows and columns in registers and stores once
                                    every tile has loaded) */,
    RV_DWT_VARIANT_COL_PIPE_OFF = 4194304 /* out of place, GPU: register column tiles
                                    by dwt_colreg (a block loads, lifts and stores one
                                    tile), instead of dwt_colrp (a block takes its tile
                                    row of two strips, the second's loads in flight
                                    while the first lifts) on passes of at least a
                                    resident wave of such blocks */,
    RV_DWT_VARIANT_COL_PIPE_ALL = 8388608 /* dwt_colrp on every out-of-place register
                                    column pass, however few its blocks */,
    RV_DWT_VARIANT_LVL_OOP_OFF = 16777216 /* out of place, forward, 2-D, GPU: no level by
                                    dwt_lvl2o (one pass, no counters, through the row
                                    buffer and back; by default the levels of at most
                                    2^22 samples that fit its tiles), so the levels
                                    that fit dwt_lvl2d's resident grid in place by it,
                                    the others by a row and a column pass */,
    RV_DWT_VARIANT_LVL_OOP_SMALL = 33554432 /* dwt_lvl2o only for the levels whose tiles
                                    the device holds at once */,
    RV_DWT_VARIANT_LVL_OOP_ALL = 67108864 /* dwt_lvl2o for levels of any size */,
    RV_DWT_VARIANT_LVL2D_PAIR_OFF = 134217728 /* forward, 2-D, GPU: a level in place in
                                    one cooperative pass only by dwt_lvl2d (a tile a
                                    block, three blocks a multiprocessor, four for
                                    CDF 9/7 and DD(13,7) f32) where the
                                    device holds its tiles so, instead of dwt_lvl2d2
                                    (four blocks a multiprocessor, windows by cp.async:
                                    a tile a block, or two where the device holds them
                                    only so) */,
    RV_DWT_VARIANT_LVL2D_THREE = 268435456 /* the levels whose tiles dwt_lvl2d holds by
                                    it, dwt_lvl2d2 only for the larger ones */,
    RV_DWT_VARIANT_FIX_OFF = 536870912 /* GPU, float: the register lifting (row and
                                    column passes, one-pass levels) reads and dispatches the
                                    steps one by one, as for any step program, instead
                                    of the straight-line code of the CDF 9/7 and
                                    DD(13,7) programs (same results) */
} RV_DwtGpuVariant;

typedef struct RV_Dwt RV_Dwt;

RV_API void rv_dwt_settings_default(RV_DwtSettings *s);

/** 0 when the settings are valid on their own, else RV_EINVAL with the reason
 * (e.g. "CDF 9/7 is irreversible: f32 data only") in why[0, why_len) when why
 * is not NULL ("" on success). What depends on the transform's context is
 * checked by rv_dwt_settings_check_for. */
RV_API int rv_dwt_settings_check(const RV_DwtSettings *s, char *why, size_t why_len);

/** 0 when rv_dwt_create(ctx, s, ...) takes these settings: rv_dwt_settings_check,
 * then what needs the context too (a NULL ctx; a transfer_ctx on another backend
 * than ctx, e.g. "transfer_ctx runs on the cpu backend, the transform's context
 * on cuda: ..."); else RV_EINVAL with the reason in why as above. */
RV_API int rv_dwt_settings_check_for(const RV_Context *ctx, const RV_DwtSettings *s, char *why, size_t why_len);

/** Creates a transform (loads the "dwt" kernel module); *out is NULL on failure.
 * RV_EINVAL: settings rv_dwt_settings_check_for(ctx, ...) refuses (it gives the
 * reason), or a NULL ctx or out; a failure to load the module leaves its message
 * on the context (rv_context_error). */
RV_API int rv_dwt_create(RV_Context *ctx, const RV_DwtSettings *s, RV_Dwt **out);
/** Destroys it (and its buffers) and sets *dwt to NULL. NULL is ignored.
 * Call it before rv_context_destroy() of its context (context.h). */
RV_API void rv_dwt_destroy(RV_Dwt **dwt);

/** Forward / inverse transform of a GRAYF32 image (f32 settings), `levels` >= 0. */
RV_API int rv_dwt_forward(RV_Dwt *dwt, RV_Image *img, int levels);
RV_API int rv_dwt_inverse(RV_Dwt *dwt, RV_Image *img, int levels);

/**
 * A frame's luma to coefficients and back (the `dwt` and `idwt` stages of
 * ravioli-run): `coef` is a GRAYF32 image of the luma's size, on the
 * transform's context (f32, 2-D, block-layout settings); `frame` is a YUV or
 * GRAY frame of 8 or 16 bits, or GRAYF32, whose plane 0 is the luma.
 * rv_dwt_forward_frame converts the luma to float into `coef` (the sample
 * values as they are: 0..255, 0..65535) and transforms it there;
 * rv_dwt_inverse_frame transforms `coef` back in place (its coefficients are
 * overwritten) and writes it into the luma of `frame`, rounded half up and
 * clamped to the sample range for integer planes; other planes are untouched.
 * The results equal rv_dwt_forward / rv_dwt_inverse of the same samples.
 */
RV_API int rv_dwt_forward_frame(RV_Dwt *dwt, RV_Image *frame, RV_Image *coef, int levels);
RV_API int rv_dwt_inverse_frame(RV_Dwt *dwt, RV_Image *coef, RV_Image *frame, int levels);

/**
 * The same on a buffer holding h rows of w 32-bit samples (type of the
 * settings), row r at byte offset r * pitch (pitch >= 4 * w, a multiple of 4).
 */
RV_API int rv_dwt_forward_buffer(RV_Dwt *dwt, RV_Buffer *buf, int w, int h, size_t pitch, int levels);
RV_API int rv_dwt_inverse_buffer(RV_Dwt *dwt, RV_Buffer *buf, int w, int h, size_t pitch, int levels);

/**
 * Host memory in, host memory out: h rows of w 32-bit samples (type of the
 * settings) at `in`, row r at byte offset r * pitch, transformed into `out`
 * (same layout; out may equal in). Results equal those of the buffer
 * functions. With settings.device_memory_limit set, device memory stays below
 * it: each level whose region does not fit is done in horizontal stripes
 * (rows with a halo of lifting reach uploaded, rows and columns transformed,
 * the stripe's S and D rows downloaded), then the first LL region that fits
 * is done whole. 2-D splitting needs the block layout; 1-D rows are split
 * into groups of rows with any layout. The caller's memory is read and
 * written synchronously (the call returns with `out` complete).
 */
RV_API int rv_dwt_forward_host(RV_Dwt *dwt, const void *in, void *out, int w, int h, size_t pitch, int levels);
RV_API int rv_dwt_inverse_host(RV_Dwt *dwt, const void *in, void *out, int w, int h, size_t pitch, int levels);

/** Kernel kinds of rv_dwt_stats. */
enum {
    RV_DWT_KERNEL_ROWFUSED = 0, /* rows in shared memory, steps (and 1-D levels) fused */
    RV_DWT_KERNEL_SPLIT,        /* out-of-place split / merge / copy */
    RV_DWT_KERNEL_CHUNKGEN,     /* in place: chunk generation (rows) */
    RV_DWT_KERNEL_PERMUTE,      /* in place: chunk permutation by cycles */
    RV_DWT_KERNEL_ROTATE,       /* in place: odd-length tail of a row */
    RV_DWT_KERNEL_STEP,         /* one lifting step over a region */
    RV_DWT_KERNEL_OTHER,        /* denoising: conversion, thresholding */
    RV_DWT_KERNEL_COLFUSED,     /* out of place: columns with all steps in shared memory */
    RV_DWT_KERNEL_TILEFUSED,    /* small LL regions: all remaining 2-D levels in one pass */
    RV_DWT_KERNEL_LEVEL2D,      /* GPU, forward: a level's rows and columns in one pass */
    RV_DWT_KERNEL_COUNT
};

/**
 * Launch statistics since creation or rv_dwt_stats_reset: launches and the
 * bytes each kind of kernel must move (every sample read and written once:
 * the counting of Ikuzawa et al., Table 3), and, with settings.profile, the
 * seconds each kind took.
 */
typedef struct RV_DwtStats {
    long long launches[RV_DWT_KERNEL_COUNT];
    double bytes[RV_DWT_KERNEL_COUNT];
    double seconds[RV_DWT_KERNEL_COUNT];
    /* GPU: of launches[], those whose kernel lifts by the straight-line code of
     * the steps' shape (CDF 9/7 and DD(13,7) on f32 data: the register row
     * passes, the register column passes, the one-pass levels; partial tiles at
     * the ends of a column still step by step). 0 on the CPU, for the other
     * wavelets and types, and with RV_DWT_VARIANT_FIX_OFF. */
    long long shaped[RV_DWT_KERNEL_COUNT];
    double peak_device_bytes; /* most bytes of buffers the RV_Dwt held at once */
    long long stripes;        /* host transforms: stripes uploaded */
    double upload_bytes, download_bytes; /* host transforms: bytes copied each way */
    long long cascade_levels; /* forward host transforms: levels that followed the
                                 stripes (RV_DwtSettings.host_cascade_min) */
} RV_DwtStats;

RV_API void rv_dwt_stats(const RV_Dwt *dwt, RV_DwtStats *out);
RV_API void rv_dwt_stats_reset(RV_Dwt *dwt);

/** Message of the latest failure of this transform ("" before any), without a
 * "dwt: " or function-name prefix (the caller adds its own). As
 * rv_context_error(), it stays until the next failure: a call that succeeds
 * does not clear it, so read it after a call that failed. */
RV_API const char *rv_dwt_error(const RV_Dwt *dwt);

/** Size of the LL band after `levels` levels of a w x h region (block layout). */
RV_API void rv_dwt_ll_size(const RV_Dwt *dwt, int w, int h, int levels, int *llw, int *llh);

/** Device (or host, on the CPU backend) bytes the RV_Dwt holds now: scratch and tables. */
RV_API size_t rv_dwt_memory(const RV_Dwt *dwt);

/* ---------------------------------------------------------------- */
/* Denoising (a video stage)                                          */
/* ---------------------------------------------------------------- */

typedef struct RV_DwtDenoiseParams {
    int levels;       /* decomposition levels (default 3) */
    float threshold;  /* soft threshold on detail coefficients, in sample units of
                         the plane (8-bit: 0..255, 16-bit: 0..65535); default 8 */
} RV_DwtDenoiseParams;

RV_API void rv_dwt_denoise_default(RV_DwtDenoiseParams *p);

/**
 * Wavelet denoising of the luma: the Y plane (plane 0) of a YUV or GRAY
 * frame (8 or 16 bit, or GRAYF32) is transformed (2-D, block layout) with the
 * transform's wavelet, every detail coefficient is soft-thresholded, and the
 * plane is transformed back (rounded and clamped for integer planes). Chroma
 * is untouched. The RV_Dwt must have f32 settings; it keeps a float buffer of
 * the plane's size between calls. Call once per frame from a stage. The frame
 * must belong to the transform's context (RV_EINVAL otherwise).
 */
RV_API int rv_dwt_denoise(RV_Dwt *dwt, RV_Image *frame, const RV_DwtDenoiseParams *p);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_DWT_H */
