/*
 * deband.c - host side of the deband filter: settings, validation, kernel
 * choice and launch (the kernels are modules/deband/deband_kernels.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ravioli/deband.h>
#include <ravioli/deband_kernel.h>

#define RV_DEBAND_MAX_RANGE 255
#define RV_DEBAND_MAX_THR   4095
#define RV_DEBAND_MAX_GRAIN 4095

/* occupancy answers kept (resident_blocks): two a tile height (with and
 * without the deferred rows' buffer) for the four heights */
#define RES_CACHE 8

struct RV_Deband {
    RV_Context *ctx;
    RV_Module *mod;
    RV_DebandSettings s;
    const RV_Kernel *k[3][2][2]; /* [plain, tiled, tiled dynamic][in16][out16] for the current
                                    mode, NULL until used */
    /* GPU: the grids that may still run (deband_kernel.h, chained frames),
     * and rv_context_queued right after the last launch */
    rv_deband_chain chain;
    uint64_t queued;
    int64_t overlapped; /* launches that did not wait (rv_deband_overlapped) */
    struct {
        const RV_Kernel *k; /* resident blocks of k at smem shared bytes (0: unknown) */
        unsigned smem;
        int res;
    } res[RES_CACHE]; /* the last shapes asked (resident_blocks) */
    int res_next;
    int no_late; /* RAVIOLI_DEBAND_WAIT_LATE=0 at create: writes-only conflicts wait at the start */
    int no_defer; /* RAVIOLI_DEBAND_DEFER=0 at create: such launches compute nothing before their wait */
    char err[512];
};

/* Blocks of k resident at once on the device with the launch shape of a
 * tiled launch (32 x 8 threads, smem bytes of shared memory); 0: unknown.
 * Kept for the last few shapes: the occupancy query is a driver call. */
static int resident_blocks(RV_Deband *d, const RV_Kernel *k, unsigned smem)
{
    for (int i = 0; i < RES_CACHE; i++)
        if (d->res[i].k == k && d->res[i].smem == smem)
            return d->res[i].res;
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.block[0] = 32;
    sh.block[1] = 8;
    sh.block[2] = 1;
    sh.grid[0] = sh.grid[1] = sh.grid[2] = 1;
    sh.shared_bytes = smem;
    const int r = rv_kernel_resident_blocks(k, &sh);
    const int i = d->res_next;
    d->res_next = (i + 1) % RES_CACHE;
    d->res[i].k = k;
    d->res[i].smem = smem;
    d->res[i].res = r > 0 ? r : 0;
    return d->res[i].res;
}

static int fail(RV_Deband *d, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(RV_Deband *d, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof(d->err), fmt, ap);
    va_end(ap);
    return code;
}

RV_API void rv_deband_settings_default(RV_DebandSettings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->range = 15;
    s->y = s->cb = s->cr = 64;
    s->grainy = s->grainc = 64;
    s->sample_mode = 2;
    s->blur_first = 1;
    s->seed = 0;
    s->dynamic_grain = 0;
    s->interlaced = 0;
    s->output_depth = 0;
}

static int bad(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *msg, size_t n, const char *fmt, ...)
{
    if (msg && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, n, fmt, ap);
        va_end(ap);
    }
    return RV_EINVAL;
}

RV_API int rv_deband_settings_check(const RV_DebandSettings *s, char *msg, size_t n)
{
    if (msg && n)
        msg[0] = '\0';
    if (!s)
        return bad(msg, n, "settings are NULL");
    if (s->range < 0 || s->range > RV_DEBAND_MAX_RANGE)
        return bad(msg, n, "range must be 0..%d (got %d)", RV_DEBAND_MAX_RANGE, s->range);
    const int thr[3] = {s->y, s->cb, s->cr};
    static const char *const tn[3] = {"y", "cb", "cr"};
    for (int i = 0; i < 3; i++)
        if (thr[i] < 0 || thr[i] > RV_DEBAND_MAX_THR)
            return bad(msg, n, "threshold %s must be 0..%d (got %d)", tn[i], RV_DEBAND_MAX_THR,
                       thr[i]);
    if (s->grainy < 0 || s->grainy > RV_DEBAND_MAX_GRAIN)
        return bad(msg, n, "grainy must be 0..%d (got %d)", RV_DEBAND_MAX_GRAIN, s->grainy);
    if (s->grainc < 0 || s->grainc > RV_DEBAND_MAX_GRAIN)
        return bad(msg, n, "grainc must be 0..%d (got %d)", RV_DEBAND_MAX_GRAIN, s->grainc);
    if (s->sample_mode < 0 || s->sample_mode > 2)
        return bad(msg, n,
                   "unknown sample_mode %d (0: one reference, 1: two, 2: four)",
                   s->sample_mode);
    if (s->blur_first != 0 && s->blur_first != 1)
        return bad(msg, n, "blur_first must be 0 or 1 (got %d)", s->blur_first);
    if (s->dynamic_grain != 0 && s->dynamic_grain != 1)
        return bad(msg, n, "dynamic_grain must be 0 or 1 (got %d)", s->dynamic_grain);
    if (s->interlaced != 0 && s->interlaced != 1)
        return bad(msg, n, "interlaced must be 0 or 1 (got %d)", s->interlaced);
    if (s->output_depth != 0 && s->output_depth != 8 && s->output_depth != 16)
        return bad(msg, n, "output_depth must be 0 (as input), 8 or 16 (got %d)",
                   s->output_depth);
    return 0;
}

RV_API int rv_deband_create(RV_Context *ctx, RV_Deband **out)
{
    if (!out)
        return RV_EINVAL;
    *out = NULL;
    if (!ctx)
        return RV_EINVAL;
    RV_Deband *d = calloc(1, sizeof(*d));
    if (!d)
        return RV_ENOMEM;
    d->ctx = ctx;
    rv_deband_settings_default(&d->s);
    /* diagnostic switches for measurements (docs/deband.md, runs M and O) */
    const char *lw = getenv("RAVIOLI_DEBAND_WAIT_LATE");
    d->no_late = lw && strcmp(lw, "0") == 0;
    const char *df = getenv("RAVIOLI_DEBAND_DEFER");
    d->no_defer = df && strcmp(df, "0") == 0;
    int err = rv_module_load(ctx, "deband", &d->mod);
    if (err < 0) {
        free(d);
        return err; /* the message is on the context */
    }
    *out = d;
    return 0;
}

RV_API void rv_deband_destroy(RV_Deband **pd)
{
    if (!pd || !*pd)
        return;
    rv_module_unload(&(*pd)->mod);
    free(*pd);
    *pd = NULL;
}

RV_API int rv_deband_configure(RV_Deband *d, const RV_DebandSettings *s)
{
    if (!d)
        return RV_EINVAL;
    /* the message of the latest failure stays until the next one (deband.h) */
    char why[sizeof(d->err)];
    int err = rv_deband_settings_check(s, why, sizeof(why));
    if (err < 0)
        return fail(d, err, "%s", why);
    d->s = *s;
    memset(d->k, 0, sizeof(d->k));
    return 0;
}

RV_API void rv_deband_get_settings(const RV_Deband *d, RV_DebandSettings *s)
{
    if (d && s)
        *s = d->s;
}

RV_API int64_t rv_deband_overlapped(const RV_Deband *d)
{
    return d ? d->overlapped : 0;
}

RV_API const char *rv_deband_error(const RV_Deband *d)
{
    return d ? d->err : "";
}

/* Input depth (8/16) and the format with the same layout at `depth`. */
static int layout(RV_Format f, int *depth, RV_Format *f8, RV_Format *f16)
{
    switch (f) {
    case RV_FMT_GRAY8: case RV_FMT_GRAY16:
        *f8 = RV_FMT_GRAY8; *f16 = RV_FMT_GRAY16; break;
    case RV_FMT_YUV420P8: case RV_FMT_YUV420P16:
        *f8 = RV_FMT_YUV420P8; *f16 = RV_FMT_YUV420P16; break;
    case RV_FMT_YUV444P8: case RV_FMT_YUV444P16:
        *f8 = RV_FMT_YUV444P8; *f16 = RV_FMT_YUV444P16; break;
    default:
        return -1;
    }
    *depth = f == *f8 ? 8 : 16;
    return 0;
}

RV_API RV_Format rv_deband_output_format(const RV_Deband *d, RV_Format in)
{
    int depth;
    RV_Format f8, f16;
    if (!d || layout(in, &depth, &f8, &f16) < 0)
        return (RV_Format)0;
    const int od = d->s.output_depth ? d->s.output_depth : depth;
    return od == 8 ? f8 : f16;
}

static const RV_Kernel *kernel_for(RV_Deband *d, int tiled, int in16, int out16)
{
    if (d->k[tiled][in16][out16])
        return d->k[tiled][in16][out16];
    static const char *const tags[3][2] = {{"m0", "m0"}, {"m1n", "m1b"}, {"m2n", "m2b"}};
    char name[64];
    snprintf(name, sizeof(name), "deband_%s_%dto%d%s", tags[d->s.sample_mode][d->s.blur_first ? 1 : 0],
             in16 ? 16 : 8, out16 ? 16 : 8, tiled == 2 ? "_sd" : tiled ? "_s" : "");
    const RV_Kernel *k = NULL;
    if (rv_kernel_get(d->mod, name, &k) < 0) {
        fail(d, RV_ENOENT, "kernel %s: %s", name, rv_context_error(d->ctx));
        return NULL;
    }
    d->k[tiled][in16][out16] = k;
    return k;
}

RV_API int rv_deband_apply(RV_Deband *d, RV_Image *dst, RV_Image *src, int64_t frame_index)
{
    if (!d)
        return RV_EINVAL;
    if (!dst || !src)
        return fail(d, RV_EINVAL, "dst and src are required");
    if (dst == src)
        return fail(d, RV_EINVAL, "dst must not be src (the filter reads neighbours)");
    if (rv_image_context(dst) != d->ctx || rv_image_context(src) != d->ctx)
        return fail(d, RV_EINVAL, "the images belong to another context");
    const RV_Format fin = rv_image_format(src);
    const RV_Format fout = rv_deband_output_format(d, fin);
    const RV_FormatInfo *fi = rv_format_info(fin);
    if (!fout)
        return fail(d, RV_EINVAL,
                    "format %s is not supported (gray8/16, yuv420p8/16, yuv444p8/16)",
                    fi ? fi->name : "?");
    if (rv_image_format(dst) != fout) {
        const RV_FormatInfo *fo = rv_format_info(rv_image_format(dst));
        return fail(d, RV_EINVAL, "dst is %s, expected %s for a %s input",
                    fo ? fo->name : "?", rv_format_info(fout)->name, fi->name);
    }
    const int w = rv_image_width(src), h = rv_image_height(src);
    if (rv_image_width(dst) != w || rv_image_height(dst) != h)
        return fail(d, RV_EINVAL, "dst is %dx%d, src %dx%d", rv_image_width(dst),
                    rv_image_height(dst), w, h);

    const int in16 = fi->sample_bytes == 2;
    const int out16 = rv_format_info(fout)->sample_bytes == 2;
    /* GPU: the shared-memory tiled entries while the tile border fits */
    const int gpu = rv_context_backend(d->ctx) != RV_BACKEND_CPU;
    /* (tiled 2: the entry with dynamic noise) */
    const int tiled = gpu && d->s.range <= RV_DEBAND_TILE_RANGE ? (d->s.dynamic_grain ? 2 : 1) : 0;
    const RV_Kernel *k = kernel_for(d, tiled, in16, out16);
    if (!k)
        return RV_ENOENT;

    rv_deband_args a;
    memset(&a, 0, sizeof(a));
    const RV_DebandSettings *s = &d->s;
    const int thr_units[3] = {s->y, s->cb, s->cr};
    const uint32_t fkey = s->dynamic_grain ? rv_deband_frame_key(frame_index) : 0u;
    a.nplanes = rv_image_planes(src);
    a.range = s->range;
    a.interlaced = s->interlaced;
    a.dynamic = s->dynamic_grain ? 1 : 0;
    a.vec_ok = 1;
    a.src_words = 2;
    for (int p = 0; p < a.nplanes; p++) {
        ptrdiff_t sp = 0, dp = 0;
        int err = rv_image_kernel_address(src, p, RV_ACCESS_READ, &a.src[p], &sp);
        if (err >= 0)
            err = rv_image_kernel_address(dst, p, RV_ACCESS_WRITE, &a.dst[p], &dp);
        if (err < 0)
            return fail(d, err, "%s", rv_context_error(d->ctx));
        if (sp <= 0 || sp >= (1 << 23) || dp <= 0)
            return fail(d, RV_EINVAL, "plane %d pitch %td outside 1..2^23", p, sp);
        a.spitch[p] = sp;
        a.dpitch[p] = dp;
        a.w[p] = rv_image_plane_width(src, p);
        a.h[p] = rv_image_plane_height(src, p);
        a.thr[p] = thr_units[p] * 16;
        a.grain[p] = thr_units[p] ? (p ? s->grainc : s->grainy) * 4 : 0;
        a.key_ref[p] = rv_deband_key_ref(s->seed, p);
        a.key_grain[p] = rv_deband_key_grain(s->seed, p, fkey);
        if ((a.dst[p] | (uint64_t)dp) & 7u)
            a.vec_ok = 0;
        const int64_t row_bytes = (int64_t)a.w[p] * (in16 ? 2 : 1);
        /* tile staging: 16-byte chunks, 4-byte words or samples */
        if (((a.src[p] | (uint64_t)sp) & 3u) || sp < ((row_bytes + 3) & ~(int64_t)3))
            a.src_words = 0;
        else if (a.src_words == 2 &&
                 (((a.src[p] | (uint64_t)sp) & 15u) || sp < ((row_bytes + 15) & ~(int64_t)15)))
            a.src_words = 1;
    }

    /* consecutive frames on the same stream overlap (the next grid fills
     * the multiprocessors this one's last tiles leave) where nothing was
     * queued between them and their memory is disjoint; decided first, as
     * the tiles depend on it (rv_deband_tile_choose); not with code for a
     * GPU before sm_90 (rv_kernel_arch), which has no programmatic
     * dependent launch: each grid then waits for the one before */
    int nowait = 0, late = 0, defer = 0;
    if (gpu && rv_kernel_arch(k) >= 90) {
        const rv_deband_span rd = rv_deband_span_of(&a, 0, in16 ? 2 : 1);
        const rv_deband_span wr = rv_deband_span_of(&a, 1, out16 ? 2 : 1);
        const int follows = tiled && rv_context_queued(d->ctx) == d->queued;
        const int c = rv_deband_chain_add(&d->chain, follows, rd, wr);
        nowait = c == RV_DEBAND_CHAIN_FREE;
        late = c == RV_DEBAND_CHAIN_LATE && !d->no_late;
        a.independent = nowait ? RV_DEBAND_NO_WAIT : 0;
    }
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    if (!gpu) {
        /* tiles of up to 1024 x 1 samples: enough work a task, balanced over rows */
        sh.block[0] = 1024;
        sh.block[1] = 1;
        sh.grid[0] = (unsigned)((w + 1023) / 1024);
        sh.grid[1] = (unsigned)h;
    } else if (tiled) {
        /* 32 x 8 threads; one tile of 128 x (32, 64, 96 or 128) samples a
         * block (rv_deband_tile_choose) */
        sh.block[0] = 32;
        sh.block[1] = 8;
        int tiles;
        const int may_defer = !d->no_defer && rv_deband_entry_defers(d->s.sample_mode, in16, out16);
        if (late) {
            /* (a waiting launch's rule, unless taller tiles still give more
             * than one wave, with the deferred rows' buffer where it pays:
             * rv_deband_tile_choose_late; one tile buffer a block) */
            int res[5] = {0, 0, 0, 0, 0}, resd[5] = {0, 0, 0, 0, 0};
            for (int h32 = 1; h32 <= 4; h32++) {
                const unsigned buf = rv_deband_tile_buf_bytes(d->s.range, in16, h32);
                res[h32] = resident_blocks(d, k, buf);
                if (may_defer)
                    resd[h32] = resident_blocks(d, k, buf + rv_deband_defer_bytes(out16, h32));
            }
            tiles = (int)rv_deband_tile_choose_late(&a, res, may_defer ? resd : NULL, &defer);
        } else {
            tiles = (int)rv_deband_tile_choose(&a, d->s.sample_mode);
        }
        sh.grid[0] = (unsigned)tiles;
        sh.grid[1] = 1;
        sh.shared_bytes =
            rv_deband_tile_smem_bytes(d->s.range, in16, a.tile_h32, tiles, sh.grid[0]) +
            (defer ? rv_deband_defer_bytes(out16, a.tile_h32) : 0u);
        sh.block[2] = 1;
        sh.grid[2] = 1;
    } else {
        /* 32 x 8 threads, 4 samples a thread: 128 x 8 samples a block */
        sh.block[0] = 32;
        sh.block[1] = 8;
        sh.grid[0] = (unsigned)((w + 127) / 128);
        sh.grid[1] = (unsigned)((h + 7) / 8);
    }
    if (!tiled || !gpu) {
        sh.block[2] = 1;
        sh.grid[2] = (unsigned)a.nplanes;
    }
    if (gpu) {
        int early = nowait;
        if (!nowait && tiled) {
            /* a waiting grid of more than one wave releases the next at its
             * start too: the next grid's blocks are placed only once all of
             * this one's are, i.e. into its last wave's free slots, and its
             * last blocks only once one of its blocks has ended, past its
             * wait - so every grid before it has finished by then, whether
             * it waits at its start or before its stores (WAIT_LATE). A
             * grid of at most one wave releases late (after its last
             * tile), or the next frame's blocks would park in the slots it
             * leaves free while grids before it may still run */
            const int res = resident_blocks(d, k, sh.shared_bytes);
            early = res > 0 && sh.grid[0] > (unsigned)res;
        }
        a.independent = (nowait ? RV_DEBAND_NO_WAIT : 0) | (early ? RV_DEBAND_EARLY_RELEASE : 0) |
                        (late ? RV_DEBAND_WAIT_LATE : 0) | (defer ? RV_DEBAND_DEFER_STORES : 0);
    }
    int err = rv_launch_raw(k, &sh, &a, sizeof(a));
    d->queued = rv_context_queued(d->ctx);
    if (err < 0) {
        d->chain.n = 0;
        return fail(d, err, "%s", rv_context_error(d->ctx));
    }
    d->overlapped += (a.independent & RV_DEBAND_NO_WAIT) != 0;
    return 0;
}
