/*
 * dwt.c - host side of the DWT module: lifting step tables, plans and the
 * launches of the raw kernels of modules/dwt/kernels/dwt_kernels.c.
 *
 * Only ravioli's public API is used: buffers (rv_buffer_*), image addresses
 * (rv_image_kernel_address) and raw launches (rv_launch_raw). Launch shapes
 * differ between the CPU backend (large tiles, one pool task per tile) and
 * the CUDA backend (thread blocks); the kernels cover their tile either way.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ravioli/dwt.h"
#include "ravioli/kernel_abi.h"
#include "../kernels/dwt_abi.h"

#define ROW_CHUNK 32          /* samples a chunk of the row rearrangement (128 bytes) */
#define CPU_TILE 16384        /* samples a CPU task */

typedef struct plan_level {
    int w, h;                 /* LL region the level transforms */
    int row_chunked;          /* rows use the chunk rearrangement */
    int row_off, row_cnt;     /* leaders of the row chunk permutation (in the table) */
    int col_off, col_cnt;     /* leaders of the column permutation */
} plan_level;

struct RV_Dwt {
    RV_Context *ctx;
    RV_DwtSettings s;
    int cpu;
    RV_Module *mod;
    const RV_Kernel *k_step, *k_row, *k_split, *k_chunk, *k_perm, *k_rot, *k_conv, *k_shrink, *k_col, *k_tile, *k_halo;
    /* GPU only: the 16-byte, cp.async and register forms of k_col and k_row */
    const RV_Kernel *k_colvec, *k_colreg, *k_rowasync, *k_rowreg, *k_rowreg_s, *k_rowwin, *k_rect;
    /* GPU, PTX for sm_90 or later (clusters): dwt_colclu and, where the device allows
     * clusters of 16, dwt_colclu16 and dwt_colclu16m; else NULL */
    const RV_Kernel *k_colclu, *k_colclu16, *k_colclu16m, *k_colclp;
    /* GPU, where cooperative launches exist: dwt_colgs16 (16 pairs a thread) and
     * dwt_colgs (8), else NULL; their strip counters (two words a strip of 32
     * columns), and the last resident-block query (block rows, shared bytes) */
    const RV_Kernel *k_colgs16, *k_colgs;
    RV_Buffer *gsync;
    int gs_ty, gs_m, gs_resident;
    unsigned gs_shared;
    /* GPU, a level in one pass: dwt_lvl2d and dwt_lvl2d2 (cooperative, one and two
     * tiles a block) and dwt_lvl2o (out of place; each NULL when missing), the
     * counters of the cooperative ones and the blocks the device holds at once of
     * each for the last window (E) asked */
    const RV_Kernel *k_lvl2d, *k_lvl2d2, *k_lvl2o;
    RV_Buffer *lsync;
    int lvl_e, lvl_resident, lvl_resident2;
    /* GPU: dwt_colrp, and the blocks the device holds at once (0: not asked yet; its
     * shape is the same for every pass of an RV_Dwt) */
    const RV_Kernel *k_colrp;
    int colrp_res;
    dwt_step steps[DWT_MAX_STEPS];
    int nsteps;
    int fix; /* DWT_FIX_*: the steps' shape, for the register lifting (fix_shape) */
    /* GPU: the entries that lift step by step only (dwt_rowreg, dwt_colclp & co.) where
     * the shape's entries replace them (shape_entries): where one is missing, the
     * plain entry stays and is launched, and its launches are not counted as shaped */
    const RV_Kernel *k_plain[8];
    int nplain;
    int type;
    RV_Buffer *tmp;           /* out-of-place scratch */
    RV_Buffer *table;         /* cycle leaders */
    RV_Buffer *fbuf;          /* denoising: the plane as floats */
    RV_Buffer *halo;          /* in-place fused columns: saved tile halos of one column group */
    RV_Buffer *sa[2], *sb[2]; /* host transforms: stripe in (with halo), stripe out / whole region;
                                 two sets when copies overlap kernels */
    RV_Buffer *ll;            /* host transforms: the LL region of the last striped level, kept on
                                 the device for the levels after it (keep_room) */
    RV_Buffer *casc;          /* host transforms: the cascade's regions and outputs (casc_plan) */
    /* cached plan */
    int pw, ph, plev, pvalid;
    plan_level *lv;
    int nlv;
    int32_t *tab;
    size_t ntab;
    RV_DwtStats stats;
    char err[512];
    /* cols_forward: right halves of column passes held back (pend), and whether
     * any went to the side queue since the last join */
    struct side_cols { uint64_t src, dst; int64_t sp, dp; int m, n; } pend[32];
    int npend, side_pending;
};

/* cols_forward: the side queue only for levels of at most SIDE_MAX samples
 * (2048 x 2048: such a level and its row buffer fit the L2 of an H100 or
 * H200, so the side work only takes idle multiprocessors; a larger level's
 * right half competes with the next levels for DRAM and measured slower:
 * docs/perf/dwt.md, session 12), held back until a level of at most SIDE_FROM
 * samples */
#define SIDE_MAX (1ll << 22)
#define SIDE_FROM (1ll << 20)

static int fail(RV_Dwt *d, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(RV_Dwt *d, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof(d->err), fmt, ap);
    va_end(ap);
    return code;
}

/* A ravioli call failed: keep the context's message. */
static int rvfail_in(RV_Dwt *d, const RV_Context *ctx, int code, const char *what)
{
    return fail(d, code, "%s: %s (%s)", what, rv_context_error(ctx), rv_strerror(code));
}

static int rvfail(RV_Dwt *d, int code, const char *what)
{
    return rvfail_in(d, d->ctx, code, what);
}

/* The context host transforms upload through: the transfer context, if any. */
static RV_Context *up_ctx(const RV_Dwt *d)
{
    return d->s.transfer_ctx ? d->s.transfer_ctx : d->ctx;
}

RV_API const char *rv_dwt_error(const RV_Dwt *d)
{
    return d ? d->err : "";
}

RV_API void rv_dwt_settings_default(RV_DwtSettings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->wavelet = RV_DWT_CDF97;
    s->type = RV_DWT_F32;
    s->layout = RV_DWT_LAYOUT_BLOCK;
    s->method = RV_DWT_IN_PLACE;
    s->dims = 2;
    s->fuse_max_shared = 65536;
}

/* ---------------------------------------------------------------- */
/* Lifting steps                                                      */
/* ---------------------------------------------------------------- */

static dwt_step mk(int target, int off0, int ntaps, const float *fw, const int *iw, int round, int shift,
                   int sign)
{
    dwt_step st;
    memset(&st, 0, sizeof(st));
    st.target = target;
    st.off0 = off0;
    st.ntaps = ntaps;
    for (int i = 0; i < ntaps; i++) {
        st.fw[i] = fw[i];
        st.iw[i] = iw ? iw[i] : 0;
    }
    st.round = round;
    st.shift = shift;
    st.sign = sign;
    st.post = 1.0f;
    st.post_inv = 1.0f;
    return st;
}

/* A step of 2 or 4 taps with symmetric weights: the lifting keeps a symmetric extension symmetric, bit for bit. */
static int step_symmetric(const dwt_step *st)
{
    const int t = st->ntaps;
    if (t != 2 && t != 4)
        return 0;
    for (int k = 0; k < t; k++)
        if (st->fw[k] != st->fw[t - 1 - k] || st->iw[k] != st->iw[t - 1 - k])
            return 0;
    return 1;
}

/* Whether step st has the target, taps and offset given, and (float) scales exactly
 * when `scaled` says: a step that does not scale must have post = post_inv = 1. */
static int step_is(const dwt_step *st, int target, int ntaps, int off0, int scaled)
{
    const int unscaled = st->post == 1.0f && st->post_inv == 1.0f;
    return st->target == target && st->ntaps == ntaps && st->off0 == off0 && unscaled == !scaled;
}

/* DWT_FIX_*: the shape of the float step program, when the register lifting has it
 * as straight-line code (dwt_regs_lift); else DWT_FIX_NONE. Checked here on the
 * steps themselves, not taken from the wavelet's name. */
static int fix_shape(const RV_Dwt *d)
{
    const dwt_step *s = d->steps;
    if (d->type != DWT_F32)
        return DWT_FIX_NONE;
    if (d->nsteps == 4 && step_is(&s[0], 0, 2, 0, 0) && step_is(&s[1], 1, 2, -1, 0) &&
        step_is(&s[2], 0, 2, 0, 1) && step_is(&s[3], 1, 2, -1, 1))
        return DWT_FIX_CDF97;
    if (d->nsteps == 2 && step_is(&s[0], 0, 4, -1, 0) && step_is(&s[1], 1, 4, -2, 0))
        return DWT_FIX_DD137;
    return DWT_FIX_NONE;
}

/* The `fix` of the kernels' arguments: the steps' shape, unless the variant asks for
 * the step-by-step lifting. */
static int lift_fix(const RV_Dwt *d)
{
    return d->s.gpu_variant & RV_DWT_VARIANT_FIX_OFF ? DWT_FIX_NONE : d->fix;
}

/*
 * GPU: the entries of the steps' shape (lift_fix) in place of the step-by-step ones,
 * for the kernels that have them (_c97: DWT_FIX_CDF97, _dd: DWT_FIX_DD137), each
 * holding that shape's straight-line lifting alone: in one entry with the other
 * shapes, chosen at run time, the code of every shape paid (rows: about 6 µs at
 * 4096^2, session 30; the column passes spilled more, the levels took more registers). An entry the module lacks leaves
 * the step-by-step one, which gives the same results.
 */
static void shape_entries(RV_Dwt *d)
{
    const int fix = lift_fix(d);
    if (d->cpu || fix == DWT_FIX_NONE)
        return;
    struct { const char *name; const RV_Kernel **k; } ks[] = {
        {"dwt_rowreg", &d->k_rowreg}, {"dwt_rowreg_s", &d->k_rowreg_s}, {"dwt_rowwin", &d->k_rowwin},
        {"dwt_colclp", &d->k_colclp}, {"dwt_colgs16", &d->k_colgs16},   {"dwt_colgs", &d->k_colgs},
        {"dwt_lvl2d", &d->k_lvl2d},   {"dwt_lvl2d2", &d->k_lvl2d2},
    };
    for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
        char name[64];
        const RV_Kernel *k = NULL;
        snprintf(name, sizeof(name), "%s%s", ks[i].name, fix == DWT_FIX_CDF97 ? "_c97" : "_dd");
        if (*ks[i].k && rv_kernel_get(d->mod, name, &k) == 0)
            *ks[i].k = k;
        else if (*ks[i].k)
            d->k_plain[d->nplain++] = *ks[i].k;
    }
}

/* GPU: the row passes are given the steps' shape (their entries; the column passes
 * and levels count by the fix of their arguments, which dwt_lvl2o and the column
 * kernels without entries of their own read) */
static int rows_shaped(const RV_Dwt *d)
{
    return !d->cpu && lift_fix(d) != DWT_FIX_NONE;
}

static int build_steps(RV_Dwt *d)
{
    dwt_step *s = d->steps;
    switch (d->s.wavelet) {
    case RV_DWT_HAAR: {
        const float p[1] = {-1.0f}, u[1] = {0.5f};
        const int one[1] = {1};
        s[0] = mk(0, 0, 1, p, one, 0, 0, -1);
        s[1] = mk(1, 0, 1, u, one, 0, 1, +1);
        d->nsteps = 2;
        break;
    }
    case RV_DWT_CDF53: {
        const float p[2] = {-0.5f, -0.5f}, u[2] = {0.25f, 0.25f};
        const int ones[2] = {1, 1};
        s[0] = mk(0, 0, 2, p, ones, 0, 1, -1);
        s[1] = mk(1, -1, 2, u, ones, 2, 2, +1);
        d->nsteps = 2;
        break;
    }
    case RV_DWT_CDF97: { /* f32 only: rv_dwt_settings_check refuses i32 */
        const double K = 1.230174104914001;
        const float a[2] = {-1.586134342059924f, -1.586134342059924f};
        const float b[2] = {-0.052980118572961f, -0.052980118572961f};
        const float g[2] = {0.882911075530934f, 0.882911075530934f};
        /* the last update sees d already scaled by K: delta / K */
        const float dl[2] = {(float)(0.443506852043971 / K), (float)(0.443506852043971 / K)};
        s[0] = mk(0, 0, 2, a, NULL, 0, 0, 1);
        s[1] = mk(1, -1, 2, b, NULL, 0, 0, 1);
        s[2] = mk(0, 0, 2, g, NULL, 0, 0, 1);
        s[2].post = (float)K;
        s[2].post_inv = (float)(1.0 / K);
        s[3] = mk(1, -1, 2, dl, NULL, 0, 0, 1);
        s[3].post = (float)(1.0 / K);
        s[3].post_inv = (float)K;
        d->nsteps = 4;
        break;
    }
    case RV_DWT_DD137: {
        const float p[4] = {1.0f / 16, -9.0f / 16, -9.0f / 16, 1.0f / 16};
        const float u[4] = {-1.0f / 32, 9.0f / 32, 9.0f / 32, -1.0f / 32};
        const int w[4] = {-1, 9, 9, -1};
        s[0] = mk(0, -1, 4, p, w, 8, 4, -1);
        s[1] = mk(1, -2, 4, u, w, 16, 5, +1);
        d->nsteps = 2;
        break;
    }
    default:
        return RV_EINVAL; /* not reached: rv_dwt_settings_check refuses other wavelets */
    }
    /* what the kernels' arithmetic assumes: a float step of 2 or 4 taps sums the taps of
     * equal weight before multiplying (dwt_acc_f), so its weights must be symmetric */
    for (int i = 0; i < d->nsteps; i++) {
        const int t = d->steps[i].ntaps;
        if ((t == 2 || t == 4) && !step_symmetric(&d->steps[i]))
            return RV_EINVAL;
    }
    return 0;
}

/* ---------------------------------------------------------------- */
/* Create / destroy                                                   */
/* ---------------------------------------------------------------- */

RV_API int rv_dwt_settings_check(const RV_DwtSettings *s, char *why, size_t why_len)
{
    char buf[160];
    if (!s)
        snprintf(buf, sizeof(buf), "settings are NULL");
    else if (s->type != RV_DWT_F32 && s->type != RV_DWT_I32)
        snprintf(buf, sizeof(buf), "unknown type %d", (int)s->type);
    else if (s->wavelet != RV_DWT_HAAR && s->wavelet != RV_DWT_CDF53 && s->wavelet != RV_DWT_CDF97 &&
             s->wavelet != RV_DWT_DD137)
        snprintf(buf, sizeof(buf), "unknown wavelet %d", (int)s->wavelet);
    else if (s->wavelet == RV_DWT_CDF97 && s->type != RV_DWT_F32)
        snprintf(buf, sizeof(buf), "CDF 9/7 is irreversible: f32 data only");
    else if (s->layout != RV_DWT_LAYOUT_BLOCK && s->layout != RV_DWT_LAYOUT_INTERLEAVED)
        snprintf(buf, sizeof(buf), "unknown layout %d", (int)s->layout);
    else if (s->method != RV_DWT_IN_PLACE && s->method != RV_DWT_OUT_OF_PLACE)
        snprintf(buf, sizeof(buf), "unknown method %d", (int)s->method);
    else if (s->dims != 1 && s->dims != 2)
        snprintf(buf, sizeof(buf), "dims must be 1 or 2, not %d", s->dims);
    else if (s->fuse_max_shared < 0)
        snprintf(buf, sizeof(buf), "fuse_max_shared < 0");
    else if (s->col_fuse_min < 0)
        snprintf(buf, sizeof(buf), "col_fuse_min < 0");
    else if (s->host_stripes < 0)
        snprintf(buf, sizeof(buf), "host_stripes %d < 0", s->host_stripes);
    else {
        if (why && why_len)
            why[0] = '\0';
        return 0;
    }
    if (why && why_len)
        snprintf(why, why_len, "%s", buf);
    return RV_EINVAL;
}

RV_API int rv_dwt_settings_check_for(const RV_Context *ctx, const RV_DwtSettings *s, char *why, size_t why_len)
{
    int err = rv_dwt_settings_check(s, why, why_len);
    if (err < 0)
        return err;
    if (!ctx) {
        if (why && why_len)
            snprintf(why, why_len, "the transform's context is NULL");
        return RV_EINVAL;
    }
    /* the copies of the host transforms go through transfer_ctx into buffers the
     * transform's kernels use: one backend for both (one device: CUDA contexts of
     * a device share its primary context; the device is not visible here) */
    const RV_Context *x = s->transfer_ctx;
    if (x && x != ctx && rv_context_backend(x) != rv_context_backend(ctx)) {
        if (why && why_len)
            snprintf(why, why_len,
                     "transfer_ctx runs on the %s backend, the transform's context on %s: the transfer "
                     "context must be on the transform's backend and device",
                     rv_backend_name(rv_context_backend(x)), rv_backend_name(rv_context_backend(ctx)));
        return RV_EINVAL;
    }
    return 0;
}

RV_API int rv_dwt_create(RV_Context *ctx, const RV_DwtSettings *settings, RV_Dwt **out)
{
    if (!out)
        return RV_EINVAL;
    *out = NULL;
    if (!ctx)
        return RV_EINVAL;
    RV_Dwt *d = calloc(1, sizeof(*d));
    if (!d)
        return RV_ENOMEM;
    d->ctx = ctx;
    if (settings)
        d->s = *settings;
    else
        rv_dwt_settings_default(&d->s);
    int err = rv_dwt_settings_check_for(ctx, &d->s, d->err, sizeof(d->err));
    if (!err)
        err = build_steps(d);
    if (err < 0) {
        free(d);
        return err;
    }
    d->type = d->s.type == RV_DWT_F32 ? DWT_F32 : DWT_I32;
    d->fix = fix_shape(d);
    d->cpu = rv_context_backend(ctx) == RV_BACKEND_CPU;
    if ((err = rv_module_load(ctx, "dwt", &d->mod)) < 0) {
        free(d);
        return err;
    }
    struct { const char *name; const RV_Kernel **k; } ks[] = {
        {"dwt_step_k", &d->k_step},   {"dwt_rowfused", &d->k_row}, {"dwt_split", &d->k_split},
        {"dwt_chunkgen", &d->k_chunk}, {"dwt_permute", &d->k_perm}, {"dwt_rotate", &d->k_rot},
        {"dwt_convert", &d->k_conv},  {"dwt_shrink", &d->k_shrink}, {"dwt_colfused", &d->k_col},
        {"dwt_colvec", &d->k_colvec}, {"dwt_tilefused", &d->k_tile}, {"dwt_halo", &d->k_halo},
        {"dwt_rowasync", &d->k_rowasync}, {"dwt_colreg", &d->k_colreg}, {"dwt_rowreg", &d->k_rowreg},
        {"dwt_rowreg_s", &d->k_rowreg_s}, {"dwt_rowwin", &d->k_rowwin},
        {"dwt_copyrect", &d->k_rect},
    };
    for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
        if ((err = rv_kernel_get(d->mod, ks[i].name, ks[i].k)) < 0) {
            rv_module_unload(&d->mod);
            free(d);
            return err;
        }
    }
    /* the passes by clusters and the cooperative column passes need code for
     * sm_90 or later; the module's code for an older GPU (a fat binary's
     * RV_CUDA_BASE_ARCH part) has dwt_colclu as a trap: other passes then */
    if (!d->cpu && (err = rv_kernel_get(d->mod, "dwt_colclu", &d->k_colclu)) < 0) {
        rv_module_unload(&d->mod);
        free(d);
        return err;
    }
    if (!d->cpu && (rv_kernel_get(d->mod, "dwt_colclu16", &d->k_colclu16) < 0 ||
                    rv_kernel_get(d->mod, "dwt_colclu16m", &d->k_colclu16m) < 0))
        d->k_colclu16 = d->k_colclu16m = NULL;
    if (!d->cpu && d->k_colclu16 && rv_kernel_get(d->mod, "dwt_colclp", &d->k_colclp) < 0)
        d->k_colclp = NULL;
    if (!d->cpu && (rv_kernel_get(d->mod, "dwt_colgs16", &d->k_colgs16) < 0 ||
                    rv_kernel_get(d->mod, "dwt_colgs", &d->k_colgs) < 0))
        d->k_colgs16 = d->k_colgs = NULL;
    if (!d->cpu && rv_kernel_arch(d->k_colclu) < 90)
        d->k_colclu = d->k_colclu16 = d->k_colclu16m = d->k_colclp = d->k_colgs16 = d->k_colgs = NULL;
    if (!d->cpu && rv_kernel_get(d->mod, "dwt_lvl2d", &d->k_lvl2d) < 0)
        d->k_lvl2d = NULL;
    if (!d->cpu && rv_kernel_get(d->mod, "dwt_lvl2o", &d->k_lvl2o) < 0)
        d->k_lvl2o = NULL;
    if (!d->cpu && rv_kernel_get(d->mod, "dwt_lvl2d2", &d->k_lvl2d2) < 0)
        d->k_lvl2d2 = NULL;
    if (!d->cpu && (err = rv_kernel_get(d->mod, "dwt_colrp",
                                        &d->k_colrp)) < 0) {
        rv_module_unload(&d->mod);
        free(d);
        return err;
    }
    shape_entries(d);
    *out = d;
    return 0;
}

/* Frees the stripe buffers of the host transforms. */
static void drop_sets(RV_Dwt *d)
{
    for (int i = 0; i < 2; i++) {
        rv_buffer_destroy(&d->sa[i]);
        rv_buffer_destroy(&d->sb[i]);
    }
}

RV_API void rv_dwt_destroy(RV_Dwt **pd)
{
    if (!pd || !*pd)
        return;
    RV_Dwt *d = *pd;
    rv_buffer_destroy(&d->tmp);
    rv_buffer_destroy(&d->table);
    rv_buffer_destroy(&d->fbuf);
    rv_buffer_destroy(&d->halo);
    rv_buffer_destroy(&d->gsync);
    rv_buffer_destroy(&d->lsync);
    drop_sets(d);
    rv_buffer_destroy(&d->ll);
    rv_buffer_destroy(&d->casc);
    rv_module_unload(&d->mod);
    free(d->lv);
    free(d->tab);
    free(d);
    *pd = NULL;
}

RV_API size_t rv_dwt_memory(const RV_Dwt *d)
{
    if (!d)
        return 0;
    return rv_buffer_size(d->tmp) + rv_buffer_size(d->table) + rv_buffer_size(d->fbuf) + rv_buffer_size(d->halo) +
           rv_buffer_size(d->gsync) + rv_buffer_size(d->lsync) +
           rv_buffer_size(d->sa[0]) + rv_buffer_size(d->sb[0]) + rv_buffer_size(d->sa[1]) +
           rv_buffer_size(d->sb[1]) + rv_buffer_size(d->ll) + rv_buffer_size(d->casc);
}

/* (Re)creates *b with at least `bytes` (contents lost) and records the peak. */
static int buf_ensure_in(RV_Dwt *d, RV_Context *ctx, RV_Buffer **b, size_t bytes, const char *what)
{
    if (rv_buffer_size(*b) >= bytes)
        return 0;
    rv_buffer_destroy(b);
    const int err = rv_buffer_create(ctx, bytes, b);
    if (err < 0)
        return fail(d, err, "%s (%zu bytes): %s (%s)", what, bytes, rv_context_error(d->ctx), rv_strerror(err));
    const double m = (double)rv_dwt_memory(d);
    if (m > d->stats.peak_device_bytes)
        d->stats.peak_device_bytes = m;
    return 0;
}

static int buf_ensure(RV_Dwt *d, RV_Buffer **b, size_t bytes, const char *what)
{
    return buf_ensure_in(d, d->ctx, b, bytes, what);
}

RV_API void rv_dwt_ll_size(const RV_Dwt *d, int w, int h, int levels, int *llw, int *llh)
{
    const int dims = d ? d->s.dims : 2;
    /* ceil(n / 2) as n - n / 2 (no overflow at INT_MAX); levels past 1 x 1 change nothing */
    for (int l = 0; l < levels && (w > 1 || (dims == 2 && h > 1)); l++) {
        w -= w / 2;
        if (dims == 2)
            h -= h / 2;
    }
    if (llw)
        *llw = w;
    if (llh)
        *llh = h;
}

/* ---------------------------------------------------------------- */
/* Plans: LL sizes per level and the cycle leaders                    */
/* ---------------------------------------------------------------- */

/* Shared bytes dwt_rowfused needs for rows of n samples and `lev` fused levels. */
static long long fused_shared(int n, int lev)
{
    return 4LL * (lev > 1 ? n + (n + 1) / 2 : n);
}

static int fused_ok(const RV_Dwt *d, int n, int lev)
{
    if (d->s.fuse_max_shared <= 0 || n > DWT_ROW_MAX)
        return 0;
    return fused_shared(n, lev) <= d->s.fuse_max_shared;
}

/* Appends the leaders of the chunk permutation of nc chunks. */
static int add_leaders(RV_Dwt *d, int nc, int *off, int *cnt, size_t *cap)
{
    *off = (int)d->ntab;
    *cnt = 0;
    if (nc < 3)
        return 0; /* 1 or 2 chunks: nothing moves */
    unsigned char *seen = calloc((size_t)nc, 1);
    if (!seen)
        return fail(d, RV_ENOMEM, "out of memory");
    const int nE = (nc + 1) / 2;
    for (int i = 0; i < nc; i++) {
        if (seen[i])
            continue;
        int j = i, len = 0;
        do {
            seen[j] = 1;
            j = (j & 1) ? nE + j / 2 : j / 2;
            len++;
        } while (j != i);
        if (len < 2)
            continue;
        if (d->ntab == *cap) {
            size_t nc2 = *cap ? *cap * 2 : 256;
            int32_t *t = realloc(d->tab, nc2 * sizeof(int32_t));
            if (!t) {
                free(seen);
                return fail(d, RV_ENOMEM, "out of memory");
            }
            d->tab = t;
            *cap = nc2;
        }
        d->tab[d->ntab++] = i;
        (*cnt)++;
    }
    free(seen);
    return 0;
}

static int make_plan(RV_Dwt *d, int w, int h, int levels)
{
    if (d->pvalid && d->pw == w && d->ph == h && d->plev == levels)
        return 0;
    d->pvalid = 0;
    free(d->lv);
    d->lv = calloc((size_t)levels + 1, sizeof(plan_level));
    if (!d->lv)
        return fail(d, RV_ENOMEM, "out of memory");
    d->ntab = 0;
    size_t cap = 0;
    free(d->tab);
    d->tab = NULL;
    const int chunked = d->s.layout == RV_DWT_LAYOUT_BLOCK && d->s.method == RV_DWT_IN_PLACE;
    int lw = w, lh = h;
    for (int l = 0; l < levels; l++) {
        plan_level *p = &d->lv[l];
        p->w = lw;
        p->h = lh;
        int err;
        if (chunked && lw >= 2 && !fused_ok(d, lw, 1)) {
            p->row_chunked = 1;
            if ((err = add_leaders(d, 2 * (lw / (2 * ROW_CHUNK)), &p->row_off, &p->row_cnt, &cap)) < 0)
                return err;
        } else {
            p->row_chunked = !fused_ok(d, lw, 1);
        }
        if (chunked && d->s.dims == 2 && lh >= 2)
            if ((err = add_leaders(d, lh, &p->col_off, &p->col_cnt, &cap)) < 0)
                return err;
        lw = (lw + 1) / 2;
        if (d->s.dims == 2)
            lh = (lh + 1) / 2;
    }
    d->nlv = levels;
    if (d->ntab) {
        const size_t bytes = d->ntab * sizeof(int32_t);
        /* the table may still be read by queued kernels of an earlier call */
        int err = rv_context_sync(d->ctx);
        if (err < 0)
            return rvfail(d, err, "sync");
        if ((err = buf_ensure(d, &d->table, bytes, "leader table")) < 0)
            return err;
        if (err < 0)
            return rvfail(d, err, "sync");
        if ((err = rv_buffer_upload(d->table, 0, d->tab, bytes)) < 0)
            return rvfail(d, err, "leader table upload");
    }
    d->pw = w;
    d->ph = h;
    d->plev = levels;
    d->pvalid = 1;
    return 0;
}

/* ---------------------------------------------------------------- */
/* Launch helpers                                                     */
/* ---------------------------------------------------------------- */

static unsigned cdiv(long long a, long long b)
{
    return (unsigned)((a + b - 1) / b);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int launch(RV_Dwt *d, const RV_Kernel *k, RV_LaunchShape *sh, const void *args, size_t size, int kind,
                  double bytes)
{
    double t0 = 0;
    int err;
    if (d->s.profile) {
        if ((err = rv_context_sync(d->ctx)) < 0)
            return rvfail(d, err, "sync");
        t0 = now();
    }
    err = rv_launch_raw(k, sh, args, size);
    if (err < 0)
        return rvfail(d, err, rv_kernel_name(k));
    if (d->s.profile) {
        if ((err = rv_context_sync(d->ctx)) < 0)
            return rvfail(d, err, rv_kernel_name(k));
        d->stats.seconds[kind] += now() - t0;
    }
    d->stats.launches[kind]++;
    d->stats.bytes[kind] += bytes;
    return 0;
}

/* launch() of a lifting kernel, counted in stats.shaped when `shaped` (it is given
 * the steps' shape) and k is not an entry that lifts step by step only */
static int launch_lift(RV_Dwt *d, const RV_Kernel *k, RV_LaunchShape *sh, const void *args, size_t size, int kind,
                       double bytes, int shaped)
{
    const int err = launch(d, k, sh, args, size, kind, bytes);
    for (int i = 0; i < d->nplain; i++)
        shaped &= k != d->k_plain[i];
    if (err == 0 && shaped)
        d->stats.shaped[kind]++;
    return err;
}

RV_API void rv_dwt_stats(const RV_Dwt *d, RV_DwtStats *out)
{
    if (!out)
        return;
    if (d)
        *out = d->stats;
    else
        memset(out, 0, sizeof(*out));
}

RV_API void rv_dwt_stats_reset(RV_Dwt *d)
{
    if (d) {
        memset(&d->stats, 0, sizeof(d->stats));
        d->stats.peak_device_bytes = (double)rv_dwt_memory(d);
    }
}

/* Shape of an (a x b) tiled kernel: axis 0 = along rows. */
static void tile_shape(const RV_Dwt *d, int axis, int na, int nb, int32_t *ta, int32_t *tb, RV_LaunchShape *sh)
{
    memset(sh, 0, sizeof(*sh));
    if (d->cpu) {
        /* one task: whole lines (axis 0) or whole row segments (axis 1) */
        *ta = na;
        *tb = na >= CPU_TILE ? 1 : CPU_TILE / na;
        sh->block[0] = 1;
    } else if (axis == 0) {
        *ta = 256;
        *tb = 8;
        sh->block[0] = 256;
    } else {
        *ta = 32;
        *tb = 32;
        sh->block[0] = 32;
        sh->block[1] = 8;
    }
    sh->grid[0] = cdiv(na, *ta);
    sh->grid[1] = cdiv(nb, *tb);
}

static int run_step(RV_Dwt *d, uint64_t base, int64_t pitch, int axis, int n, int nlines, int line_str,
                    int s_off, int s_str, int d_off, int d_str, int s, int inverse)
{
    dwt_step_args a;
    memset(&a, 0, sizeof(a));
    a.base = base;
    a.pitch = pitch;
    a.axis = axis;
    a.n = n;
    a.nlines = nlines;
    a.line_str = line_str;
    a.s_off = s_off;
    a.s_str = s_str;
    a.d_off = d_off;
    a.d_str = d_str;
    a.type = d->type;
    a.inverse = inverse;
    a.st = d->steps[s];
    const int nt = a.st.target == 0 ? n / 2 : (n + 1) / 2;
    RV_LaunchShape sh;
    tile_shape(d, axis, axis == 0 ? nt : nlines, axis == 0 ? nlines : nt, &a.tile_a, &a.tile_b, &sh);
    return launch(d, d->k_step, &sh, &a, sizeof(a), RV_DWT_KERNEL_STEP,
                  4.0 * nlines * (2.0 * nt + (a.st.target == 0 ? (n + 1) / 2 : n / 2)));
}

/* All steps of one line set, forward or inverse, on the [S | D] block layout. */
static int run_steps(RV_Dwt *d, uint64_t base, int64_t pitch, int axis, int n, int nlines, int inverse)
{
    const int nS = (n + 1) / 2;
    for (int i = 0; i < d->nsteps; i++) {
        const int s = inverse ? d->nsteps - 1 - i : i;
        int err = run_step(d, base, pitch, axis, n, nlines, 1, 0, 1, nS, 1, s, inverse);
        if (err < 0)
            return err;
    }
    return 0;
}

static int run_split(RV_Dwt *d, uint64_t src, int64_t sp, uint64_t dst, int64_t dp, int axis, int n, int nlines,
                     int mode)
{
    dwt_split_args a;
    memset(&a, 0, sizeof(a));
    a.src = src;
    a.dst = dst;
    a.src_pitch = sp;
    a.dst_pitch = dp;
    a.axis = axis;
    a.n = n;
    a.nlines = nlines;
    a.mode = mode;
    RV_LaunchShape sh;
    tile_shape(d, axis, axis == 0 ? n : nlines, axis == 0 ? nlines : n, &a.tile_a, &a.tile_b, &sh);
    return launch(d, d->k_split, &sh, &a, sizeof(a), RV_DWT_KERNEL_SPLIT, 8.0 * n * nlines);
}

/*
 * dwt_rowreg takes one level of the block layout whose every step is one of
 * the symmetric forms it lifts by shuffles (CDF 5/3, 9/7, DD(13,7)): D += f(S[g],
 * S[g+1]) or f(S[g-1..g+2]); S += f(D[g-1], D[g]) or f(D[g-2..g+1]).
 */
static int row_forms_ok(const RV_Dwt *d)
{
    for (int i = 0; i < d->nsteps; i++) {
        const dwt_step *st = &d->steps[i];
        const int o = st->off0, t = st->ntaps;
        const int okd = st->target == 0 && ((t == 2 && o == 0) || (t == 4 && o == -1));
        const int oks = st->target == 1 && ((t == 2 && o == -1) || (t == 4 && o == -2));
        if ((!okd && !oks) || !step_symmetric(st))
            return 0;
    }
    return 1;
}

static int row_reg_ok(const RV_Dwt *d, int n, int levels, int interleaved)
{
    return !interleaved && levels == 1 && n >= 2 && n <= DWT_ROW_MAX && row_forms_ok(d);
}

/* Pairs a block of the windowed dwt_rowreg takes (a multiple of 32 DWT_RM), and
 * its shared memory in words (the window and the reach of its segments). */
#define ROW_WIN 4096
#define ROW_WIN_WORDS (2 * ROW_WIN + 128 * (DWT_RM + 2) + 8)

/*
 * Rows longer than a fused pass takes (n > fuse_max_shared / 4 or
 * DWT_ROW_MAX) in one pass anyway, GPU, forward and (since session 14)
 * inverse: dwt_rowreg over windows of ROW_WIN pairs, each block loading only
 * its window and the reach of its lifting (inverse: those pairs of both
 * halves), for the step forms dwt_rowreg lifts. Otherwise 0: split, then a
 * pass a step (inverse: the passes, then the merge).
 */
static int row_win_ok(const RV_Dwt *d, int n)
{
    return !d->cpu && !(d->s.gpu_variant & RV_DWT_VARIANT_NO_ROW_WIN) && n > 32 * DWT_RM && row_forms_ok(d);
}

/* The arguments of the row kernels, launch fields (tile_rows, async, win) left 0. */
static void row_args(const RV_Dwt *d, dwt_row_args *a, uint64_t src, int64_t sp, uint64_t dst, int64_t dp, int n,
                     int rows, int levels, int inverse, int interleaved)
{
    memset(a, 0, sizeof(*a));
    a->src = src;
    a->dst = dst;
    a->src_pitch = sp;
    a->dst_pitch = dp;
    a->n = n;
    a->rows = rows;
    a->levels = levels;
    a->type = d->type;
    a->inverse = inverse;
    a->interleaved = interleaved;
    a->nsteps = d->nsteps;
    memcpy(a->steps, d->steps, sizeof(a->steps));
}

static int run_rowwin(RV_Dwt *d, uint64_t src, int64_t sp, uint64_t dst, int64_t dp, int n, int rows, int inverse)
{
    dwt_row_args a;
    row_args(d, &a, src, sp, dst, dp, n, rows, 1, inverse, 0);
    a.tile_rows = 1;
    a.win = ROW_WIN;
    const int nS = (n + 1) / 2, nch = (nS + ROW_WIN - 1) / ROW_WIN;
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.block[0] = ROW_WIN / (32 * DWT_RM) * 32; /* a warp a segment */
    sh.shared_bytes = 4 * ROW_WIN_WORDS;
    sh.grid[0] = (unsigned)((long long)rows * nch);
    return launch_lift(d, d->k_rowwin, &sh, &a, sizeof(a), RV_DWT_KERNEL_ROWFUSED, 8.0 * n * rows, rows_shaped(d));
}

static int run_rowfused(RV_Dwt *d, uint64_t src, int64_t sp, uint64_t dst, int64_t dp, int n, int rows, int levels,
                        int inverse, int interleaved)
{
    dwt_row_args a;
    row_args(d, &a, src, sp, dst, dp, n, rows, levels, inverse, interleaved);
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    if (d->cpu) {
        a.tile_rows = n >= CPU_TILE ? 1 : CPU_TILE / n;
        sh.block[0] = 1;
        sh.shared_bytes = (unsigned)n * 8;
    } else {
        const int nS = (n + 1) / 2;
        int T = (nS + 31) / 32 * 32;
        /* 256 threads (5 blocks an SM by registers; with ROW_512, 512 for rows
         * over 8K samples, where shared memory allows 3 blocks or fewer) */
        const int Tmax = n > 8192 && (d->s.gpu_variant & RV_DWT_VARIANT_ROW_512) ? 2 * DWT_ROW_THREADS
                                                                                  : DWT_ROW_THREADS;
        T = T < 32 ? 32 : T > Tmax ? Tmax : T;
        a.tile_rows = 1;
        a.async = !(d->s.gpu_variant & RV_DWT_VARIANT_ROW_SYNC);
        sh.block[0] = (unsigned)T;
        sh.shared_bytes = (unsigned)fused_shared(n, levels);
        if (!(d->s.gpu_variant & RV_DWT_VARIANT_ROW_SHARED) && row_reg_ok(d, n, levels, interleaved)) {
            /* dwt_rowreg: a warp per segment of 32 * M pairs (M = DWT_RM_FOR(nS)), at most 256 threads */
            const int M = DWT_RM_FOR(nS), nseg = (nS + 32 * M - 1) / (32 * M);
            sh.block[0] = (unsigned)(nseg >= DWT_ROW_THREADS / 32 ? DWT_ROW_THREADS : 32 * nseg);
            sh.shared_bytes = (unsigned)n * 4;
            sh.grid[0] = (unsigned)rows;
            return launch_lift(d, M == DWT_RM_ROW ? d->k_rowreg : d->k_rowreg_s, &sh, &a, sizeof(a),
                               RV_DWT_KERNEL_ROWFUSED, 8.0 * n * rows, rows_shaped(d));
        }
    }
    sh.grid[0] = cdiv(rows, a.tile_rows);
    return launch(d, a.async ? d->k_rowasync : d->k_row, &sh, &a, sizeof(a), RV_DWT_KERNEL_ROWFUSED,
                  8.0 * n * rows);
}

/* Halo (in pairs) a tile needs so that its middle is exact: the steps' reach, plus one. */
static int steps_reach(const RV_Dwt *d)
{
    int h = 1;
    for (int i = 0; i < d->nsteps; i++) {
        const int a = d->steps[i].off0, b = d->steps[i].off0 + d->steps[i].ntaps - 1;
        const int r = (a < 0 ? -a : a) > (b < 0 ? -b : b) ? (a < 0 ? -a : a) : (b < 0 ? -b : b);
        h += r;
    }
    return h;
}

/*
 * dwt_col_args.reg for tiles of R pairs, TY thread rows: M * 16 + E (with
 * DWT_COL_REG_EDGE for symmetric 2- and 4-tap steps) when the
 * register lifting of dwt_colreg covers the steps (M = R / TY pairs a thread,
 * 8; every step one of D += f(S[g]), f(S[g], S[g+1]), f(S[g-1..g+2]) or
 * S += f(D[g]), f(D[g-1], D[g]), f(D[g-2..g+1]), at most 4 steps: then a window
 * of E = 2 pairs each side (3 with 4-tap steps) keeps the run exact, checked
 * below for both senses, and the tile's halo H covers it), else 0.
 */
static int col_reg_code(const RV_Dwt *d, int R, int TY)
{
    const int M = R / TY;
    if ((M != 8 && M != 16) || M * TY != R || d->nsteps > 4) /* 16: dwt_colclu16m only */
        return 0;
    int E = 2;
    for (int i = 0; i < d->nsteps; i++) {
        const dwt_step *st = &d->steps[i];
        const int o = st->off0, t = st->ntaps;
        const int okd = st->target == 0 && ((t == 1 && o == 0) || (t == 2 && o == 0) || (t == 4 && o == -1));
        const int oks = st->target == 1 && ((t == 1 && o == 0) || (t == 2 && o == -1) || (t == 4 && o == -2));
        if (!okd && !oks)
            return 0;
        if (t == 4)
            E = 3;
    }
    if (steps_reach(d) < E)
        return 0;
    /* the pairs that come out exact, [lo, hi) of each band's window of A, must cover [E, E + M) */
    const int A = M + 2 * E;
    for (int inv = 0; inv < 2; inv++) {
        int lo[2] = {0, 0}, hi[2] = {A, A}; /* [0]: S, [1]: D */
        for (int si = 0; si < d->nsteps; si++) {
            const dwt_step *st = &d->steps[inv ? d->nsteps - 1 - si : si];
            const int t = st->target == 0 ? 1 : 0, src = 1 - t;
            const int l = lo[src] - st->off0, h = hi[src] - st->off0 - st->ntaps + 1;
            lo[t] = lo[t] > l ? lo[t] : l;
            hi[t] = hi[t] < h ? hi[t] : h;
        }
        if (lo[0] > E || lo[1] > E || hi[0] < E + M || hi[1] < E + M)
            return 0;
    }
    /* the end tiles too when every step has 2 or 4 symmetric taps (not Haar's 1) */
    int edge = !(d->s.gpu_variant & RV_DWT_VARIANT_COL_REG_INNER);
    for (int i = 0; i < d->nsteps; i++)
        edge = edge && step_symmetric(&d->steps[i]);
    return M * 16 + E + (edge ? DWT_COL_REG_EDGE : 0);
}

/*
 * Column pass of n-sample columns (ncols of them), all steps fused: pairs
 * [k_first, k_end) of band S (D) are read at src_s (src_d) + g * src_str and
 * written at dst_s (dst_d) + g * dst_str, with the halo the steps need read
 * around them (see dwt_col_args).
 */
static int run_colfused_tiles(RV_Dwt *d, uint64_t src_s, uint64_t src_d, int64_t src_str, uint64_t dst_s,
                              uint64_t dst_d, int64_t dst_str, int n, int ncols, int k_first, int k_end, int inverse,
                              int R, uint64_t halo);

static int run_colfused_win(RV_Dwt *d, uint64_t src_s, uint64_t src_d, int64_t src_str, uint64_t dst_s,
                            uint64_t dst_d, int64_t dst_str, int n, int ncols, int k_first, int k_end, int inverse)
{
    return run_colfused_tiles(d, src_s, src_d, src_str, dst_s, dst_d, dst_str, n, ncols, k_first, k_end, inverse, 64,
                              0);
}

/* The arguments every column pass shares (the GPU's tile shape and forms are the caller's). */
static void col_args(const RV_Dwt *d, dwt_col_args *a, uint64_t src_s, uint64_t src_d, int64_t src_str,
                     uint64_t dst_s, uint64_t dst_d, int64_t dst_str, int n, int ncols, int k_first, int k_end,
                     int inverse, int R, uint64_t halo)
{
    memset(a, 0, sizeof(*a));
    a->src_s = src_s;
    a->src_d = src_d;
    a->src_s_str = a->src_d_str = src_str;
    a->dst_s = dst_s;
    a->dst_d = dst_d;
    a->dst_s_str = a->dst_d_str = dst_str;
    a->n = n;
    a->ncols = ncols;
    a->R = R;
    a->H = steps_reach(d);
    a->type = d->type;
    a->inverse = inverse;
    a->nsteps = d->nsteps;
    a->k_first = k_first;
    a->k_end = k_end;
    a->halo = halo;
    a->fix = lift_fix(d);
    memcpy(a->steps, d->steps, sizeof(a->steps));
}

/* Whether a column pass lifts by the straight-line code of the steps' shape: the
 * register kernels (reg set) given the shape */
static int col_shaped(const dwt_col_args *a)
{
    return a->reg && a->fix != DWT_FIX_NONE;
}

/* Bytes a column pass moves: every tile reads its pairs and halo, writes its pairs. */
static double col_bytes(const dwt_col_args *a)
{
    double rows_read = 0, rows_written = 0;
    const int nS = (a->n + 1) / 2, nD = a->n / 2;
    for (int k0 = a->k_first; k0 < a->k_end; k0 += a->R) {
        const int lo = k0 - a->H < 0 ? 0 : k0 - a->H, e = k0 + a->R < a->k_end ? k0 + a->R : a->k_end;
        rows_read += (e + a->H < nS ? e + a->H : nS) - lo;
        rows_read += (e + a->H < nD ? e + a->H : nD) - (lo < nD ? lo : nD);
        rows_written += (e < nS ? e : nS) - k0 + ((e < nD ? e : nD) - (k0 < nD ? k0 : nD));
    }
    return 4.0 * a->ncols * (rows_read + rows_written);
}

static int run_colfused_tiles(RV_Dwt *d, uint64_t src_s, uint64_t src_d, int64_t src_str, uint64_t dst_s,
                              uint64_t dst_d, int64_t dst_str, int n, int ncols, int k_first, int k_end, int inverse,
                              int R, uint64_t halo)
{
    dwt_col_args a;
    col_args(d, &a, src_s, src_d, src_str, dst_s, dst_d, dst_str, n, ncols, k_first, k_end, inverse, R, halo);
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    if (d->cpu) {
        a.tile_cols = ncols < 512 ? ncols : 512;
        sh.block[0] = 1;
    } else {
        a.tile_cols = 32;
        a.rev = !(d->s.gpu_variant & RV_DWT_VARIANT_COL_TOPDOWN);
        sh.block[0] = 32;
        sh.block[1] = 8;
        const uint64_t al = src_s | src_d | dst_s | dst_d | (uint64_t)src_str | (uint64_t)dst_str | halo |
                            (uint64_t)ncols * 4;
        a.vec = !(d->s.gpu_variant & RV_DWT_VARIANT_COL_SYNC) && al % 16 == 0;
        /* register lifting (dwt_colreg), 8 pairs a thread: tiles of 64 pairs (out of place)
         * unless COL_SHARED; the in-place tiles of 128 (16 thread rows) only with COL_REG_128,
         * which measured slower (docs/perf/dwt.md, dwt5) */
        const unsigned v = d->s.gpu_variant;
        if (a.vec && !(v & RV_DWT_VARIANT_COL_SHARED) && (a.R == 64 || (a.R == 128 && (v & RV_DWT_VARIANT_COL_REG_128)))) {
            a.reg = col_reg_code(d, a.R, a.R / 8);
            if (a.reg)
                sh.block[1] = (unsigned)(a.R / 8);
        }
    }
    sh.shared_bytes = (unsigned)(2 * (a.R + 2 * a.H) * a.tile_cols * 4);
    sh.grid[0] = cdiv(ncols, a.tile_cols);
    sh.grid[1] = cdiv(k_end - k_first, a.R);
    const RV_Kernel *k = a.reg ? d->k_colreg : a.vec ? d->k_colvec : d->k_col;
    /* dwt_colrp: a block's tile row of two strips, the second's loads in flight while
     * the first lifts (two tile buffers); out of place only (no halo buffer: source and
     * destination apart), on passes of at least one resident wave of such blocks (fewer
     * leave multiprocessors idle: 4K's level 1, 2K) */
    const unsigned v = d->s.gpu_variant;
    if (a.reg && a.R == 64 && !halo && d->k_colrp && !(v & RV_DWT_VARIANT_COL_PIPE_OFF) && sh.grid[0] > 1) {
        RV_LaunchShape ps = sh;
        ps.grid[0] = cdiv((int)sh.grid[0], 2);
        ps.shared_bytes *= 2;
        if (!d->colrp_res)
            d->colrp_res = rv_kernel_resident_blocks(d->k_colrp, &ps);
        const int res = d->colrp_res;
        if ((v & RV_DWT_VARIANT_COL_PIPE_ALL) || (res > 0 && (int64_t)ps.grid[0] * ps.grid[1] >= res)) {
            sh = ps;
            k = d->k_colrp;
        }
    }
    return launch_lift(d, k, &sh, &a, sizeof(a), RV_DWT_KERNEL_COLFUSED, col_bytes(&a), col_shaped(&a));
}

/* Whole columns of an n x ncols region: interleaved rows <-> [S rows | D rows]. */
static int run_colfused(RV_Dwt *d, uint64_t src, int64_t sp, uint64_t dst, int64_t dp, int n, int ncols, int inverse)
{
    const int nS = (n + 1) / 2;
    if (!inverse)
        return run_colfused_win(d, src, src + (uint64_t)sp, 2 * sp, dst, dst + (uint64_t)(nS * dp), dp, n, ncols, 0,
                                nS, 0);
    return run_colfused_win(d, src, src + (uint64_t)(nS * sp), sp, dst, dst + (uint64_t)dp, 2 * dp, n, ncols, 0, nS,
                            1);
}

/*
 * Forward columns of one level, src (rows done) -> dst, out of place. When
 * more levels follow (`more`), only the left half (the S columns: the LL and
 * LH bands, which the next level reads) is launched now; the right half (HL
 * and HH: no later level reads or writes them, nor the columns of the row
 * buffer they come from) is held back (d->pend) and goes to the side queue
 * before the first level of at most SIDE_FROM samples (side_before), where it
 * runs beside those latency-bound launches; transform() launches what is
 * still held back and joins the side queue at the end. Not in place: there
 * the small levels' scratch (inplace_scratch) is one buffer at each level's
 * own pitch, so a later level's rows would overwrite what a held-back half
 * still reads.
 */
static int cols_forward(RV_Dwt *d, uint64_t src, int64_t sp, uint64_t dst, int64_t dp, int m, int n, int more)
{
    const int nS = (n + 1) / 2;
    /* the right half starts at column nS: 16-byte aligned tiles need nS % 4 == 0 */
    if (!more || (d->s.gpu_variant & RV_DWT_VARIANT_NO_SIDE) || n < 2 || nS % 4 ||
        d->npend == (int)(sizeof(d->pend) / sizeof(d->pend[0])))
        return run_colfused(d, src, sp, dst, dp, m, n, 0);
    d->pend[d->npend++] = (struct side_cols){src + (uint64_t)nS * 4, dst + (uint64_t)nS * 4, sp, dp, m, n - nS};
    return run_colfused(d, src, sp, dst, dp, m, nS, 0);
}

/* The held-back right halves: on the side queue (side != 0) or the context's. */
static int side_flush(RV_Dwt *d, int side)
{
    if (!d->npend)
        return 0;
    int err = side ? rv_side_begin(d->ctx) : 0;
    if (err < 0)
        return rvfail(d, err, "rv_side_begin");
    d->side_pending |= side;
    for (int i = 0; i < d->npend && err >= 0; i++) {
        const struct side_cols *c = &d->pend[i];
        /* (run_colfused takes the whole-column form: ncols columns from src / dst) */
        err = run_colfused(d, c->src, c->sp, c->dst, c->dp, c->m, c->n, 0);
    }
    d->npend = 0;
    const int e2 = side ? rv_side_end(d->ctx) : 0;
    if (err < 0)
        return err;
    return e2 < 0 ? rvfail(d, e2, "rv_side_end") : 0;
}

/* Before a level of w x h: the held-back halves go to the side queue once the
 * levels are small enough to leave multiprocessors idle. */
static int side_before(RV_Dwt *d, int w, int h)
{
    return d->npend && (long long)w * h <= SIDE_FROM ? side_flush(d, 1) : 0;
}

/* Whether the LL region w x h fits the shared memory of dwt_tilefused. */
static int tile_ok(const RV_Dwt *d, int w, int h)
{
    return d->s.fuse_max_shared > 0 && 8LL * w * h <= d->s.fuse_max_shared;
}

static int run_tilefused(RV_Dwt *d, uint64_t base, int64_t pitch, int w, int h, int levels, int inverse)
{
    dwt_tile_args a;
    memset(&a, 0, sizeof(a));
    a.base = base;
    a.pitch = pitch;
    a.w = w;
    a.h = h;
    a.levels = levels;
    a.type = d->type;
    a.inverse = inverse;
    a.nsteps = d->nsteps;
    memcpy(a.steps, d->steps, sizeof(a.steps));
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.grid[0] = 1;
    sh.block[0] = d->cpu ? 1 : 512;
    sh.shared_bytes = (unsigned)(8 * w * h);
    /* bytes: the region once in, once out (the levels stay on chip) */
    return launch(d, d->k_tile, &sh, &a, sizeof(a), RV_DWT_KERNEL_TILEFUSED, 8.0 * w * h);
}

static int run_chunkgen(RV_Dwt *d, uint64_t base, int64_t pitch, int n, int rows, int inverse)
{
    dwt_chunk_args a;
    memset(&a, 0, sizeof(a));
    a.base = base;
    a.pitch = pitch;
    a.n = n;
    a.rows = rows;
    a.b = ROW_CHUNK;
    a.inverse = inverse;
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.block[0] = d->cpu ? 1024 : 256;
    a.tile_rows = d->cpu ? 16 : 4;
    sh.grid[0] = cdiv(n, sh.block[0]);
    sh.grid[1] = cdiv(rows, a.tile_rows);
    return launch(d, d->k_chunk, &sh, &a, sizeof(a), RV_DWT_KERNEL_CHUNKGEN, 8.0 * n * rows);
}

static int run_permute(RV_Dwt *d, uint64_t base, int64_t cstride, int lane_b, int64_t lane_pitch, int lanes,
                       int nchunks, int off, int cnt, int inverse)
{
    if (cnt == 0)
        return 0;
    dwt_perm_args a;
    memset(&a, 0, sizeof(a));
    a.base = base;
    a.leaders = rv_buffer_address(d->table) + (uint64_t)off * 4;
    a.cstride = cstride;
    a.lane_pitch = lane_pitch;
    a.lane_b = lane_b;
    a.lanes = lanes;
    a.nchunks = nchunks;
    a.nleaders = cnt;
    a.inverse = inverse;
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    if (d->cpu) {
        a.tile_lanes = lanes < CPU_TILE ? lanes : CPU_TILE;
        sh.block[0] = 1;
        sh.shared_bytes = (unsigned)a.tile_lanes * 4;
    } else {
        a.tile_lanes = 1024;
        sh.block[0] = 256;
    }
    sh.grid[0] = (unsigned)cnt;
    sh.grid[1] = cdiv(lanes, a.tile_lanes);
    /* every chunk but the fixed ones (first; last when nchunks is even) moves once */
    const int moved = nchunks - (nchunks % 2 == 0 ? 2 : 1);
    return launch(d, d->k_perm, &sh, &a, sizeof(a), RV_DWT_KERNEL_PERMUTE, 8.0 * moved * lanes);
}

static int run_rotate(RV_Dwt *d, uint64_t base, int64_t pitch, int start, int len, int r, int rows, int inverse)
{
    dwt_rot_args a;
    memset(&a, 0, sizeof(a));
    a.base = base;
    a.pitch = pitch;
    a.a = start;
    a.len = len;
    a.r = r;
    a.rows = rows;
    a.inverse = inverse;
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    a.tile_rows = d->cpu ? 16 : 1;
    sh.block[0] = d->cpu ? 1 : 256;
    sh.shared_bytes = (unsigned)r * 4;
    sh.grid[0] = cdiv(rows, a.tile_rows);
    return launch(d, d->k_rot, &sh, &a, sizeof(a), RV_DWT_KERNEL_ROTATE, 8.0 * len * rows);
}

/* ---------------------------------------------------------------- */
/* Passes                                                             */
/* ---------------------------------------------------------------- */

/* rows x words 32-bit words, src -> dst (dwt_copyrect). */
static int run_rect(RV_Dwt *d, uint64_t src, int64_t sp, uint64_t dst, int64_t dp, int words, int rows)
{
    dwt_rect_args a;
    memset(&a, 0, sizeof(a));
    a.src = src;
    a.dst = dst;
    a.src_pitch = sp;
    a.dst_pitch = dp;
    a.words = words;
    a.rows = rows;
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    const int T = 256;
    sh.block[0] = d->cpu ? 1 : (unsigned)T;
    sh.grid[0] = d->cpu ? cdiv(words, 65536) : cdiv(words, 4LL * DWT_COPY_Q * T);
    sh.grid[1] = (unsigned)rows;
    return launch(d, d->k_rect, &sh, &a, sizeof(a), RV_DWT_KERNEL_SPLIT, 8.0 * words * rows);
}

static size_t halo_level0(const RV_Dwt *d);

/* In-place row pass of level p (block layout). */
static int rows_inplace(RV_Dwt *d, const plan_level *p, uint64_t base, int64_t pitch, int inverse)
{
    const int n = p->w, rows = p->h;
    int err = 0;
    if (n < 2)
        return 0;
    if (!p->row_chunked)
        return run_rowfused(d, base, pitch, base, pitch, n, rows, 1, inverse, 0);
    if (row_win_ok(d, n)) {
        /* GPU, 2-D, rows too long for a fused pass: groups of rows through the halo buffer
         * that level 0 holds anyway (free until its column halos are saved, and again
         * after the inverse's columns), the windowed row pass into it, then copied back:
         * 4 n bytes moved instead of the chunk rearrangement and a pass a step */
        const size_t hb = halo_level0(d);
        const int64_t sp = ((int64_t)n * 4 + 15) / 16 * 16;
        const long long G = (long long)(hb / (size_t)sp);
        if (G >= 16) {
            if ((err = buf_ensure(d, &d->halo, hb, "column halo buffer")) < 0)
                return err;
            const uint64_t sb = rv_buffer_address(d->halo);
            const int step = G < rows ? (int)G : rows;
            for (int r0 = 0; r0 < rows; r0 += step) {
                const int g = rows - r0 < step ? rows - r0 : step;
                const uint64_t rb = base + (uint64_t)r0 * (uint64_t)pitch;
                if ((err = run_rowwin(d, rb, pitch, sb, sp, n, g, inverse)) < 0 ||
                    (err = run_rect(d, sb, sp, rb, pitch, n, g)) < 0)
                    return err;
            }
            return 0;
        }
    }
    const int q = n / (2 * ROW_CHUNK), t = n % (2 * ROW_CHUNK), ts = (t + 1) / 2;
    const int lanes = ROW_CHUNK * rows;
    if (!inverse) {
        if ((err = run_chunkgen(d, base, pitch, n, rows, 0)) < 0 ||
            (err = run_permute(d, base, ROW_CHUNK * 4, ROW_CHUNK, pitch, lanes, 2 * q, p->row_off, p->row_cnt, 0)) < 0)
            return err;
        if (q > 0 && ts > 0 && (err = run_rotate(d, base, pitch, q * ROW_CHUNK, q * ROW_CHUNK + ts, ts, rows, 0)) < 0)
            return err;
        return run_steps(d, base, pitch, 0, n, rows, 0);
    }
    if ((err = run_steps(d, base, pitch, 0, n, rows, 1)) < 0)
        return err;
    if (q > 0 && ts > 0 && (err = run_rotate(d, base, pitch, q * ROW_CHUNK, q * ROW_CHUNK + ts, ts, rows, 1)) < 0)
        return err;
    if ((err = run_permute(d, base, ROW_CHUNK * 4, ROW_CHUNK, pitch, lanes, 2 * q, p->row_off, p->row_cnt, 1)) < 0)
        return err;
    return run_chunkgen(d, base, pitch, n, rows, 1);
}

/* In-place column pass of level p (block layout). */
/* Pairs a tile of the in-place fused column pass holds. */
#define COL_R_INPLACE 128
/* GPU, in place, 2-D (since dwt9): level 0 fuses its columns and holds the halo buffer of
 * later levels from this many samples (1024 x 1024) unless col_fuse_min is set */
#define DWT_SMALL_FUSE_MIN (1LL << 20)

/*
 * In-place column steps, all fused, on the [S rows | D rows] region (n rows,
 * cols columns): in groups of columns whose saved halos fit a small buffer
 * (about n/32 bytes: few groups, each launch several waves of blocks),
 * dwt_halo saves the pairs each tile reads but does not write, then
 * dwt_colfused lifts every tile in shared memory and writes its pairs back
 * in place.
 */
/*
 * GPU, 2-D, unless gpu_variant HALO_N32 (since dwt9): the halos of a whole level
 * in one group (about 2H / 2R = 8 % of the level for CDF 9/7 and DD(13,7)), so
 * level 0 takes 2 column launches instead of 6 and its buffer takes the LL
 * regions of more levels (inplace_scratch). Not under a device memory limit:
 * host_transform counts on halos of at most 1/16 of a region (+ 256 KiB).
 */
static int halo_one_group(const RV_Dwt *d)
{
    return !d->cpu && d->s.dims == 2 && !(d->s.gpu_variant & RV_DWT_VARIANT_HALO_N32) &&
           !d->s.device_memory_limit;
}

/* Samples from which a level's columns take the fused in-place pass (levels whose
 * halos fit level 0's buffer in one group fuse anyway, see cols_inplace). */
static long long col_fuse_from(const RV_Dwt *d)
{
    if (d->s.col_fuse_min > 0)
        return d->s.col_fuse_min;
    return halo_one_group(d) && !(d->s.gpu_variant & RV_DWT_VARIANT_L0_STEPS) ? DWT_SMALL_FUSE_MIN : (1LL << 23);
}

/* Samples of level 0 from which it holds a halo buffer for the later levels (GPU). */
static long long halo_buffer_from(const RV_Dwt *d)
{
    if (d->s.col_fuse_min > 0)
        return d->s.col_fuse_min;
    return halo_one_group(d) ? DWT_SMALL_FUSE_MIN : (1LL << 23);
}

/* Columns a group of cols_fused_inplace holds (columns of n samples): halos of about n cols / 32
 * bytes, or all of them (halo_one_group). */
static int halo_group(const RV_Dwt *d, int n, int cols)
{
    const int R = !d->cpu && (d->s.gpu_variant & RV_DWT_VARIANT_COL_INPLACE_64) ? 64 : COL_R_INPLACE;
    const int H = steps_reach(d), nS = (n + 1) / 2;
    const size_t per_col = (size_t)((nS + R - 1) / R) * 4 * (size_t)H * 4;
    if (halo_one_group(d))
        return cols;
    size_t budget = (size_t)n * (size_t)cols * 4 / 32;
    if (budget < 262144)
        budget = 262144;
    int G = (int)(budget / per_col) / 32 * 32;
    if (G < 32)
        G = 32;
    return G > cols ? cols : G;
}

/* Bytes of the halo buffer cols_fused_inplace holds for a level of cols columns of n samples. */
static size_t halo_bytes(const RV_Dwt *d, int n, int cols)
{
    const int R = !d->cpu && (d->s.gpu_variant & RV_DWT_VARIANT_COL_INPLACE_64) ? 64 : COL_R_INPLACE;
    const size_t per_col = (size_t)(((n + 1) / 2 + R - 1) / R) * 4 * (size_t)steps_reach(d) * 4;
    return per_col * (size_t)halo_group(d, n, cols);
}

/*
 * GPU, 2-D: the bytes of the halo buffer level 0's fused column pass holds (0
 * with gpu_variant HALO_OWN or when level 0 does not fuse), so that every level
 * can take column groups of that size.
 */
static size_t halo_level0(const RV_Dwt *d)
{
    if (d->cpu || (d->s.gpu_variant & RV_DWT_VARIANT_HALO_OWN) || d->s.dims != 2 || d->s.fuse_max_shared <= 0)
        return 0;
    const plan_level *p0 = &d->lv[0];
    if (p0->h < 2 || (long long)p0->h * p0->w < halo_buffer_from(d))
        return 0;
    return halo_bytes(d, p0->h, p0->w);
}

static int cols_fused_inplace(RV_Dwt *d, uint64_t base, int64_t pitch, int n, int cols, int inverse)
{
    const int R = !d->cpu && (d->s.gpu_variant & RV_DWT_VARIANT_COL_INPLACE_64) ? 64 : COL_R_INPLACE;
    const int H = steps_reach(d), nS = (n + 1) / 2;
    const int ntiles = (nS + R - 1) / R;
    const size_t per_col = (size_t)ntiles * 4 * (size_t)H * 4; /* halo bytes a column */
    int G = halo_group(d, n, cols);
    const size_t h0 = halo_level0(d);
    if (h0 / per_col > (size_t)G) /* larger groups in the buffer level 0 holds */
        G = (int)(h0 / per_col) >= cols ? cols : (int)(h0 / per_col) / 32 * 32;
    int err;
    if ((err = buf_ensure(d, &d->halo, per_col * (size_t)G, "column halo buffer")) < 0)
        return err;
    const uint64_t hb = rv_buffer_address(d->halo), sd = base + (uint64_t)((int64_t)nS * pitch);
    for (int c0 = 0; c0 < cols; c0 += G) {
        const int gc = cols - c0 < G ? cols - c0 : G;
        const uint64_t cs = base + (uint64_t)c0 * 4, cd = sd + (uint64_t)c0 * 4;
        dwt_halo_args h;
        memset(&h, 0, sizeof(h));
        h.src_s = cs;
        h.src_d = cd;
        h.halo = hb;
        h.str = pitch;
        h.n = n;
        h.ncols = gc;
        h.R = R;
        h.H = H;
        RV_LaunchShape sh;
        memset(&sh, 0, sizeof(sh));
        h.tile_cols = d->cpu ? gc : 32;
        sh.block[0] = d->cpu ? 1 : 32;
        sh.block[1] = d->cpu ? 1 : 8;
        sh.grid[0] = cdiv(gc, h.tile_cols);
        sh.grid[1] = (unsigned)ntiles;
        h.vec = !d->cpu && !(d->s.gpu_variant & RV_DWT_VARIANT_COL_SYNC) &&
                (cs | cd | hb | (uint64_t)pitch | (uint64_t)gc * 4) % 16 == 0;
        if (h.vec)
            sh.grid[1] = cdiv(ntiles, DWT_HALO_TILES);
        if ((err = launch(d, d->k_halo, &sh, &h, sizeof(h), RV_DWT_KERNEL_COLFUSED, 8.0 * 4 * H * ntiles * gc)) < 0)
            return err;
        if ((err = run_colfused_tiles(d, cs, cd, pitch, cs, cd, pitch, n, gc, 0, nS, inverse, R, hb)) < 0)
            return err;
    }
    return 0;
}

/*
 * In place, GPU (sm_90): dwt_colclu's shape for the columns of an n x cols
 * level at base: tiles of R = M TY pairs (M = 8 pairs a thread, TY <= 16
 * thread rows: blocks of at most 512 threads, three a multiprocessor), *C of
 * them a cluster covering a column's nS pairs: clusters of 16 where the
 * device allows them (columns of up to 4096 samples), else of 8 (2048); with
 * clusters of 16, columns of up to 8192 samples take 16 pairs a thread
 * (dwt_colclu16m, two blocks a multiprocessor). Returns TY (and *C, *M), or
 * 0 where it does not apply: no clusters, switched off, columns too long,
 * rows not 16-byte aligned, or steps the register lifting does not cover.
 */
static int colclu_ty(const RV_Dwt *d, uint64_t base, int64_t pitch, int n, int cols, int *C, int *M)
{
    const unsigned off = RV_DWT_VARIANT_NO_COLCLU | RV_DWT_VARIANT_COL_SYNC | RV_DWT_VARIANT_COL_SHARED;
    if (!d->k_colclu || (d->s.gpu_variant & off) || d->s.fuse_max_shared <= 0 || n < 2 || cols < 1 ||
        (base | (uint64_t)pitch | (uint64_t)cols * 4) % 16)
        return 0;
    const int c = d->k_colclu16 ? DWT_COL_CLUSTER16 : DWT_COL_CLUSTER, nS = (n + 1) / 2;
    int m = 8, TY = (nS + m * c - 1) / (m * c);
    if (TY > 16 && d->k_colclu16m && !(d->s.gpu_variant & RV_DWT_VARIANT_COLCLU_8K_OFF)) {
        m = 16;
        TY = (nS + m * c - 1) / (m * c);
    }
    if (TY > 16 || !col_reg_code(d, m * TY, TY))
        return 0;
    *C = c;
    *M = m;
    return TY;
}

/* The arguments of a whole column pass in place (dwt_colclu*, dwt_colclp,
 * dwt_colgs*): tiles of R = M TY pairs, 32-column strips, 16-byte copies,
 * register lifting. Forward: pair g at rows 2g, 2g + 1 -> rows g, nS + g;
 * inverse the reverse. */
static void col_args_whole(const RV_Dwt *d, dwt_col_args *a, uint64_t base, int64_t pitch, int n, int cols,
                           int inverse, int R, int TY)
{
    const int nS = (n + 1) / 2;
    const uint64_t top = base, bottom = base + (uint64_t)((int64_t)nS * pitch);
    if (!inverse)
        col_args(d, a, base, base + (uint64_t)pitch, 2 * pitch, top, bottom, pitch, n, cols, 0, nS, 0, R, 0);
    else
        col_args(d, a, top, bottom, pitch, base, base + (uint64_t)pitch, 2 * pitch, n, cols, 0, nS, 1, R, 0);
    a->tile_cols = 32;
    a->vec = 1;
    a->reg = col_reg_code(d, R, TY);
}

static int run_colclu(RV_Dwt *d, uint64_t base, int64_t pitch, int n, int cols, int inverse, int TY, int C, int M)
{
    const int R = M * TY;
    dwt_col_args a;
    col_args_whole(d, &a, base, pitch, n, cols, inverse, R, TY);
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.block[0] = 32;
    sh.block[1] = (unsigned)TY;
    sh.grid[0] = cdiv(cols, 32);
    sh.grid[1] = (unsigned)C;
    sh.shared_bytes = (unsigned)(2 * (R + 2 * a.H) * a.tile_cols * 4);
    const RV_Kernel *k = M == 16 ? d->k_colclu16m : C == DWT_COL_CLUSTER16 ? d->k_colclu16 : d->k_colclu;
    /* clusters of 16, 8 pairs a thread, regions of at least 128 strips (4K, 8K's
     * level 1): two strips a cluster, the second's loads in flight while the first
     * lifts (dwt_colclp; two tile buffers). 4-8 % faster at 4K, but slower with
     * 64 strips (2K: 1024 blocks of one strip about fill an H200 once, half
     * as many clusters leave it idle; docs/perf/dwt.md, session 15) */
    if (M == 8 && C == DWT_COL_CLUSTER16 && d->k_colclp && cols >= 128 * 32 &&
        !(d->s.gpu_variant & RV_DWT_VARIANT_COLCLP_OFF)) {
        k = d->k_colclp;
        sh.grid[0] = cdiv(cdiv(cols, 32), 2);
        sh.shared_bytes *= 2;
    }
    return launch_lift(d, k, &sh, &a, sizeof(a), RV_DWT_KERNEL_COLFUSED, col_bytes(&a), col_shaped(&a));
}

/*
 * In place, GPU: one cooperative pass of dwt_colgs16 (columns of more than
 * 4096 samples: M = 16 pairs a thread) or dwt_colgs (at most 4096 with
 * RV_DWT_VARIANT_COLGS_SMALL: M = 8): T tiles of R = M TY pairs a column
 * (TY <= 16 thread rows), F strips of 32 columns in flight, F T blocks
 * resident at once, the tiles of a strip waiting for one another through
 * d->gsync. Returns 1 when it ran, 0 where it does not apply (then the caller
 * takes the clusters or the rearrangement), or an error.
 */
static int run_colgs(RV_Dwt *d, uint64_t base, int64_t pitch, int n, int cols, int inverse)
{
    const unsigned off = RV_DWT_VARIANT_NO_COLCLU | RV_DWT_VARIANT_COL_SYNC | RV_DWT_VARIANT_COL_SHARED |
                         RV_DWT_VARIANT_COLGS_OFF;
    const int nS = (n + 1) / 2, small = n <= 4096;
    if (!d->k_colgs16 || (d->s.gpu_variant & off) || (small && !(d->s.gpu_variant & RV_DWT_VARIANT_COLGS_SMALL)) ||
        d->s.fuse_max_shared <= 0 || n < 2 || cols < 1 || (base | (uint64_t)pitch | (uint64_t)cols * 4) % 16)
        return 0;
    const int M = small ? 8 : 16, T = (nS + 16 * M - 1) / (16 * M), TY = (nS + M * T - 1) / (M * T), R = M * TY;
    if (!col_reg_code(d, R, TY))
        return 0;
    dwt_col_args a;
    col_args_whole(d, &a, base, pitch, n, cols, inverse, R, TY);
    if (d->s.gpu_variant & RV_DWT_VARIANT_COLGS_SERIAL)
        a.reg |= DWT_COL_GS_SERIAL;
    const RV_Kernel *k = small ? d->k_colgs : d->k_colgs16;
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.block[0] = 32;
    sh.block[1] = (unsigned)TY;
    sh.shared_bytes = (unsigned)(2 * (R + 2 * a.H) * a.tile_cols * 4);
    if (d->gs_ty != TY || d->gs_m != M || d->gs_shared != sh.shared_bytes) {
        const int r = rv_kernel_resident_blocks(k, &sh);
        if (r < 0)
            return rvfail(d, r, "rv_kernel_resident_blocks(dwt_colgs)");
        d->gs_ty = TY;
        d->gs_m = M;
        d->gs_shared = sh.shared_bytes;
        d->gs_resident = r;
    }
    const int nstrip = (cols + 31) / 32, F = nstrip < d->gs_resident / T ? nstrip : d->gs_resident / T;
    if (F < 1)
        return 0;
    int err;
    if ((err = buf_ensure(d, &d->gsync, (size_t)nstrip * 8, "column strip counters")) < 0)
        return err;
    a.sync = rv_buffer_address(d->gsync);
    sh.grid[0] = (unsigned)F;
    sh.grid[1] = (unsigned)T;
    if ((err = launch_lift(d, k, &sh, &a, sizeof(a), RV_DWT_KERNEL_COLFUSED, col_bytes(&a), col_shaped(&a))) < 0)
        return err;
    return 1;
}

static int cols_inplace(RV_Dwt *d, const plan_level *p, uint64_t base, int64_t pitch, int inverse)
{
    const int n = p->h, cols = p->w;
    int err;
    if (n < 2)
        return 0;
    if ((err = run_colgs(d, base, pitch, n, cols, inverse)) != 0)
        return err < 0 ? err : 0;
    int cc = 0, cm = 0;
    const int cty = colclu_ty(d, base, pitch, n, cols, &cc, &cm);
    if (cty)
        return run_colclu(d, base, pitch, n, cols, inverse, cty, cc, cm);
    const long long fmin = col_fuse_from(d);
    /* small levels fuse too when one group of their halos fits level 0's buffer (not with HALO_OWN) */
    const size_t h0 = halo_level0(d);
    const int R = !d->cpu && (d->s.gpu_variant & RV_DWT_VARIANT_COL_INPLACE_64) ? 64 : COL_R_INPLACE;
    /* (not level 0 itself: with L0_STEPS it keeps the passes per step below 1 << 23) */
    const int level0 = p->w == d->lv[0].w && p->h == d->lv[0].h;
    const int one_group = h0 > 0 && !level0 &&
                          (size_t)((n + 1) / 2 + R - 1) / (size_t)R * 4 * (size_t)steps_reach(d) * 4 * (size_t)cols <= h0;
    if (d->s.fuse_max_shared > 0 && (d->cpu || (long long)n * cols >= fmin || one_group)) {
        /* rows permuted evens first, then all steps in one pass */
        if (!inverse) {
            if ((err = run_permute(d, base, pitch, cols, 0, cols, n, p->col_off, p->col_cnt, 0)) < 0)
                return err;
            return cols_fused_inplace(d, base, pitch, n, cols, 0);
        }
        if ((err = cols_fused_inplace(d, base, pitch, n, cols, 1)) < 0)
            return err;
        return run_permute(d, base, pitch, cols, 0, cols, n, p->col_off, p->col_cnt, 1);
    }
    if (!inverse) {
        if ((err = run_permute(d, base, pitch, cols, 0, cols, n, p->col_off, p->col_cnt, 0)) < 0)
            return err;
        return run_steps(d, base, pitch, 1, n, cols, 0);
    }
    if ((err = run_steps(d, base, pitch, 1, n, cols, 1)) < 0)
        return err;
    return run_permute(d, base, pitch, cols, 0, cols, n, p->col_off, p->col_cnt, 1);
}

static int ensure_tmp(RV_Dwt *d, size_t bytes)
{
    return buf_ensure(d, &d->tmp, bytes, "out-of-place buffer");
}

/*
 * In place, GPU, 2-D (unless gpu_variant INPLACE_NO_SCRATCH): whether level l (l >= 1) goes
 * out of place through the column halo buffer that level 0's fused column pass
 * holds anyway (its LL region, rows packed at a 16-byte pitch, fits that
 * buffer; the rows fit dwt_rowfused; both sides at least 2). Returns 1 with
 * the buffer's address and pitch (the buffer allocated if level 0 has not
 * run yet, as in an inverse), 0 when not, or an error.
 */
static int inplace_scratch(RV_Dwt *d, int l, uint64_t *sb, int64_t *sp)
{
    if (d->cpu || (d->s.gpu_variant & RV_DWT_VARIANT_INPLACE_NO_SCRATCH) || d->s.dims != 2 || l < 1 ||
        d->s.fuse_max_shared <= 0)
        return 0;
    const plan_level *p0 = &d->lv[0], *p = &d->lv[l];
    const long long fmin = halo_buffer_from(d);
    if (p0->h < 2 || (long long)p0->h * p0->w < fmin || p->w < 2 || p->h < 2 || !fused_ok(d, p->w, 1))
        return 0;
    const size_t hb = halo_bytes(d, p0->h, p0->w);
    const int64_t pitch = ((int64_t)p->w * 4 + 15) / 16 * 16;
    if ((size_t)pitch * (size_t)p->h > hb)
        return 0;
    int err;
    if ((err = buf_ensure(d, &d->halo, hb, "column halo buffer")) < 0)
        return err;
    *sb = rv_buffer_address(d->halo);
    *sp = pitch;
    return 1;
}

/*
 * Whether a forward 2-D level of w x h may take one pass (dwt_lvl2d in place,
 * dwt_lvl2o out of place, GPU): sides multiples of DWT_LVL_T, and the register
 * lifting of dwt_colreg takes the steps with the symmetric extension (CDF 5/3,
 * 9/7, DD(13,7)). Fills the block and shared memory of *sh and the window *E;
 * d->lvl_resident: how many such blocks the device holds at once; the same
 * for dwt_lvl2d2 in d->lvl_resident2 (0 without it). Returns 1, 0 where the
 * level does not qualify, or an error.
 */
static int lvl_shape(RV_Dwt *d, int w, int h, RV_LaunchShape *sh, int *E)
{
    if (!d->k_lvl2d || (d->s.gpu_variant & RV_DWT_VARIANT_NO_LEVEL2D) || d->s.dims != 2 ||
        d->s.layout != RV_DWT_LAYOUT_BLOCK || w < DWT_LVL_T || h < DWT_LVL_T || w % DWT_LVL_T || h % DWT_LVL_T)
        return 0;
    /* the steps dwt_colreg lifts in registers at 8 pairs a thread (its tiles: 64 pairs, 8 thread rows) */
    const int code = col_reg_code(d, 64, 8);
    if (!(code & DWT_COL_REG_EDGE) || (code >> 4 & 255) != 8)
        return 0;
    *E = code & 15;
    const int W = DWT_LVL_T + 4 * *E;
    memset(sh, 0, sizeof(*sh));
    sh->block[0] = DWT_LVL_THREADS;
    sh->shared_bytes = (unsigned)(W * (W + 1) * 4);
    if ((long long)sh->shared_bytes > d->s.fuse_max_shared)
        return 0;
    if (d->lvl_e != *E) {
        const int r = rv_kernel_resident_blocks(d->k_lvl2d, sh);
        if (r < 0)
            return rvfail(d, r, "rv_kernel_resident_blocks(dwt_lvl2d)");
        int r2 = 0;
        RV_LaunchShape s2 = *sh;
        s2.shared_bytes *= 2;
        if (d->k_lvl2d2 && (long long)s2.shared_bytes <= d->s.fuse_max_shared &&
            (r2 = rv_kernel_resident_blocks(d->k_lvl2d2, &s2)) < 0)
            return rvfail(d, r2, "rv_kernel_resident_blocks(dwt_lvl2d2)");
        d->lvl_e = *E;
        d->lvl_resident = r;
        d->lvl_resident2 = r2;
    }
    sh->grid[0] = (unsigned)(w / DWT_LVL_T);
    sh->grid[1] = (unsigned)(h / DWT_LVL_T);
    return 1;
}

/* One level by kernel k: dwt_lvl2d or dwt_lvl2d2 (dst = 0: in place, every
 * block resident) or dwt_lvl2o (from base to dst). */
static int launch_lvl(RV_Dwt *d, const RV_Kernel *k, const RV_LaunchShape *sh, int E, uint64_t base, int64_t pitch,
                      uint64_t dst, int64_t dpitch, int w, int h)
{
    int err;
    dwt_lvl_args a;
    memset(&a, 0, sizeof(a));
    a.base = base;
    a.pitch = pitch;
    a.dst = dst;
    a.dpitch = dpitch;
    a.w = w;
    a.h = h;
    a.type = d->type;
    a.nsteps = d->nsteps;
    a.E = E;
    a.fix = lift_fix(d);
    memcpy(a.steps, d->steps, sizeof(a.steps));
    if (!dst) {
        if ((err = buf_ensure(d, &d->lsync, 8, "level counters")) < 0)
            return err;
        a.sync = rv_buffer_address(d->lsync);
    }
    /* bytes: the windows read, the level written once */
    const int W = DWT_LVL_T + 4 * E;
    const double tiles = (double)(w / DWT_LVL_T) * (h / DWT_LVL_T);
    const double bytes = 4.0 * tiles * ((double)W * W + (double)DWT_LVL_T * DWT_LVL_T);
    RV_LaunchShape s = *sh;
    return launch_lift(d, k, &s, &a, sizeof(a), RV_DWT_KERNEL_LEVEL2D, bytes, !d->cpu && a.fix != DWT_FIX_NONE);
}

/*
 * One level of the shape lvl_shape gave, in place in one cooperative pass
 * where the device holds its tiles at once: by dwt_lvl2d2 (four blocks a
 * multiprocessor, windows by cp.async), a tile a block where the blocks fit,
 * else two a block (4K's level 1, 1024 tiles, on 132 multiprocessors: 512
 * blocks); by dwt_lvl2d (three blocks a multiprocessor; its entries of the CDF 9/7
 * and DD(13,7) shapes four) without dwt_lvl2d2,
 * with LVL2D_PAIR_OFF, or for the levels it holds with LVL2D_THREE. Returns 1
 * when it ran, 0 where no form holds the tiles, or an error.
 */
static int lvl_inplace(RV_Dwt *d, const RV_LaunchShape *sh, int E, uint64_t base, int64_t pitch, int w, int h)
{
    const unsigned v = d->s.gpu_variant;
    const long long tiles = (long long)sh->grid[0] * sh->grid[1];
    const int pair = d->k_lvl2d2 && d->lvl_resident2 && !(v & RV_DWT_VARIANT_LVL2D_PAIR_OFF);
    int err;
    if (tiles <= d->lvl_resident && (!pair || (v & RV_DWT_VARIANT_LVL2D_THREE)))
        return (err = launch_lvl(d, d->k_lvl2d, sh, E, base, pitch, 0, 0, w, h)) < 0 ? err : 1;
    if (!pair)
        return 0;
    RV_LaunchShape s2 = *sh;
    if (tiles > d->lvl_resident2) { /* two tiles a block: block rows y and y + grid y */
        s2.grid[1] = (sh->grid[1] + 1) / 2;
        s2.shared_bytes *= 2;
        if ((long long)s2.grid[0] * s2.grid[1] > d->lvl_resident2)
            return 0;
    }
    return (err = launch_lvl(d, d->k_lvl2d2, &s2, E, base, pitch, 0, 0, w, h)) < 0 ? err : 1;
}

/*
 * One forward 2-D level of the w x h region at base in one cooperative pass
 * (dwt_lvl2d or dwt_lvl2d2, GPU) where lvl_shape allows and the device holds
 * every tile at once. Returns 1 when it ran, 0 where it does not apply (the
 * caller runs the two passes), or an error.
 */
static int run_lvl2d(RV_Dwt *d, uint64_t base, int64_t pitch, int w, int h)
{
    RV_LaunchShape sh;
    int E = 0, err = lvl_shape(d, w, h, &sh, &E);
    if (err <= 0)
        return err;
    return lvl_inplace(d, &sh, E, base, pitch, w, h);
}

/* dwt_lvl2o for levels of at most this many samples: larger ones are faster by a
 * row and a column pass (4K level 0: 0.128 against 0.117 ms for CDF 9/7, five
 * levels on an H200; docs/perf/dwt.md, session 26) */
#define LVL_OOP_MAX (1ll << 22)

/*
 * Out of place, forward, 2-D, GPU: runs of consecutive levels in one pass each
 * without counters (dwt_lvl2o), from the image into the row buffer and back.
 * lvl_oop_run: the end of the run that starts at level l0 (l0 when none).
 * lvl_oop_level: one level of a run. A level whose LL is in the image writes
 * all four bands into the buffer; the next reads that LL from the buffer and
 * writes the image, while the side queue copies the buffer's other three
 * bands into the image (no later level touches them, nor those parts of the
 * buffer). A run ends with its LL in the image: an odd run's last level goes
 * in place (dwt_lvl2d) where the device holds its tiles, else into the buffer
 * and copied back. The levels' regions in the buffer are the top left of the
 * level before's, so the right halves held back for the side queue
 * (cols_forward: columns nS.. of an earlier level) are not touched.
 */
static int lvl_oop_run(RV_Dwt *d, int l0, int tl)
{
    const unsigned v = d->s.gpu_variant;
    if (!d->k_lvl2o || (v & RV_DWT_VARIANT_LVL_OOP_OFF))
        return l0;
    int l = l0;
    for (; l < tl; l++) {
        RV_LaunchShape sh;
        int E = 0;
        const int ok = lvl_shape(d, d->lv[l].w, d->lv[l].h, &sh, &E);
        if (ok < 0)
            return ok;
        const long long tiles = (long long)sh.grid[0] * sh.grid[1];
        if (!ok || (!(v & RV_DWT_VARIANT_LVL_OOP_ALL) &&
                    tiles > ((v & RV_DWT_VARIANT_LVL_OOP_SMALL) ? d->lvl_resident : LVL_OOP_MAX / (DWT_LVL_T * DWT_LVL_T))))
            break;
    }
    return l;
}

static int lvl_oop_level(RV_Dwt *d, uint64_t base, int64_t pitch, uint64_t tb, int w, int h, int last,
                         int *in_tmp)
{
    RV_LaunchShape sh;
    int E = 0, err = lvl_shape(d, w, h, &sh, &E);
    if (err < 0)
        return err;
    if (*in_tmp) { /* the LL in the buffer: back into the image */
        *in_tmp = 0;
        return launch_lvl(d, d->k_lvl2o, &sh, E, tb, pitch, base, pitch, w, h);
    }
    if (last) { /* an odd run's last level */
        if ((err = lvl_inplace(d, &sh, E, base, pitch, w, h)) != 0)
            return err < 0 ? err : 0;
        if ((err = launch_lvl(d, d->k_lvl2o, &sh, E, base, pitch, tb, pitch, w, h)) < 0)
            return err;
        return run_rect(d, tb, pitch, base, pitch, w, h);
    }
    if ((err = launch_lvl(d, d->k_lvl2o, &sh, E, base, pitch, tb, pitch, w, h)) < 0)
        return err;
    *in_tmp = 1;
    /* the bands but LL (right of the top half, the bottom half) back on the side queue */
    if ((err = rv_side_begin(d->ctx)) < 0)
        return rvfail(d, err, "rv_side_begin");
    d->side_pending = 1;
    const uint64_t hx = (uint64_t)(w / 2) * 4, hy = (uint64_t)((int64_t)(h / 2) * pitch);
    if ((err = run_rect(d, tb + hx, pitch, base + hx, pitch, w / 2, h / 2)) >= 0)
        err = run_rect(d, tb + hy, pitch, base + hy, pitch, w, h / 2);
    const int e2 = rv_side_end(d->ctx);
    if (err < 0)
        return err;
    return e2 < 0 ? rvfail(d, e2, "rv_side_end") : 0;
}

static int transform_plan(RV_Dwt *d, uint64_t base, int64_t pitch, int w, int h, int levels, int inverse);

/* transform_plan(), then the side queue joined (cols_forward): later work sees every band. */
static int transform(RV_Dwt *d, uint64_t base, int64_t pitch, int w, int h, int levels, int inverse)
{
    int err = transform_plan(d, base, pitch, w, h, levels, inverse);
    if (err < 0)
        d->npend = 0; /* after a failure, no more launches: the result is undefined anyway */
    else if (d->npend)
        err = side_flush(d, 0);
    if (d->side_pending) {
        d->side_pending = 0;
        const int e2 = rv_side_join(d->ctx);
        if (err >= 0 && e2 < 0)
            err = rvfail(d, e2, "rv_side_join");
    }
    return err;
}

static int transform_plan(RV_Dwt *d, uint64_t base, int64_t pitch, int w, int h, int levels, int inverse)
{
    int err;
    if (w < 1 || h < 1 || w > RV_MAX_DIM || h > RV_MAX_DIM)
        return fail(d, RV_EINVAL, "size %dx%d outside 1..%d", w, h, RV_MAX_DIM);
    if (levels < 0 || levels > 32)
        return fail(d, RV_EINVAL, "levels %d outside 0..32", levels);
    if (pitch < (int64_t)w * 4 || pitch % 4)
        return fail(d, RV_EINVAL, "pitch %lld too small for %d samples or not a multiple of 4",
                    (long long)pitch, w);
    if (levels == 0)
        return 0;
    if ((err = make_plan(d, w, h, levels)) < 0)
        return err;
    const int dims = d->s.dims;

    /* Interleaved layout: every level in place, one pass per step (strided). */
    if (d->s.layout == RV_DWT_LAYOUT_INTERLEAVED) {
        if (dims == 1 && fused_ok(d, w, levels))
            return run_rowfused(d, base, pitch, base, pitch, w, h, levels, inverse, 1);
        for (int i = 0; i < levels; i++) {
            const int l = inverse ? levels - 1 - i : i;
            const plan_level *p = &d->lv[l];
            /* past 1 x 1 (1-D: one sample wide) nothing changes, and the
             * stride 1 << l need not fit an int (levels up to 32) */
            if (p->w < 2 && (dims == 1 || p->h < 2))
                continue;
            const int st = 1 << l, nlr = dims == 2 ? p->h : h, lsr = dims == 2 ? st : 1;
            for (int pass = 0; pass < 2; pass++) {
                const int axis = inverse ? (dims == 2 ? 1 - pass : pass) : pass;
                if (axis == 1 && dims == 1)
                    continue;
                const int n = axis == 0 ? p->w : p->h, nl = axis == 0 ? nlr : p->w;
                if (n < 2)
                    continue;
                for (int k = 0; k < d->nsteps; k++) {
                    const int s = inverse ? d->nsteps - 1 - k : k;
                    if ((err = run_step(d, base, pitch, axis, n, nl, axis == 0 ? lsr : st, 0, 2 * st, st, 2 * st, s,
                                        inverse)) < 0)
                        return err;
                }
            }
        }
        return 0;
    }

    /* 1-D rows that fit: all levels in one pass. */
    if (dims == 1 && fused_ok(d, w, levels))
        return run_rowfused(d, base, pitch, base, pitch, w, h, levels, inverse, 0);

    /* 2-D: from the first level whose LL fits in shared memory on, one pass. */
    int tl = levels;
    if (dims == 2)
        for (int l = 0; l < levels; l++)
            if (tile_ok(d, d->lv[l].w, d->lv[l].h)) {
                tl = l;
                break;
            }
    if (tl < levels && inverse && (err = run_tilefused(d, base, pitch, d->lv[tl].w, d->lv[tl].h, levels - tl, 1)) < 0)
        return err;

    if (d->s.method == RV_DWT_IN_PLACE) {
        for (int i = 0; i < tl; i++) {
            const int l = inverse ? tl - 1 - i : i;
            plan_level p = d->lv[l];
            if (dims == 1)
                p.h = h;
            if (!inverse && (err = run_lvl2d(d, base, pitch, p.w, p.h)) != 0) {
                if (err < 0)
                    return err;
                continue;
            }
            uint64_t sb;
            int64_t sp;
            if ((err = inplace_scratch(d, l, &sb, &sp)) < 0)
                return err;
            if (err == 1) {
                /* through the halo buffer of level 0: rows into it, columns back (forward) */
                const int n = p.w, m = p.h;
                if (!inverse) {
                    if ((err = run_rowfused(d, base, pitch, sb, sp, n, m, 1, 0, 0)) < 0 ||
                        (err = run_colfused(d, sb, sp, base, pitch, m, n, 0)) < 0)
                        return err;
                } else if ((err = run_colfused(d, base, pitch, sb, sp, m, n, 1)) < 0 ||
                           (err = run_rowfused(d, sb, sp, base, pitch, n, m, 1, 1, 0)) < 0) {
                    return err;
                }
                continue;
            }
            if (!inverse) {
                if ((err = rows_inplace(d, &p, base, pitch, 0)) < 0)
                    return err;
                if (dims == 2 && (err = cols_inplace(d, &p, base, pitch, 0)) < 0)
                    return err;
            } else {
                if (dims == 2 && (err = cols_inplace(d, &p, base, pitch, 1)) < 0)
                    return err;
                if ((err = rows_inplace(d, &p, base, pitch, 1)) < 0)
                    return err;
            }
        }
        if (tl < levels && !inverse)
            return run_tilefused(d, base, pitch, d->lv[tl].w, d->lv[tl].h, levels - tl, 0);
        return 0;
    }

    /* Out of place: rows data -> tmp, columns tmp -> data (forward). */
    if (tl > 0 && (err = ensure_tmp(d, (size_t)pitch * (size_t)h)) < 0)
        return err;
    const uint64_t tb = rv_buffer_address(d->tmp);
    /* forward: runs of levels in one pass each through the buffer, [i, rend) */
    int in_tmp = 0, rend = 0;
    for (int i = 0; i < tl; i++) {
        const int l = inverse ? tl - 1 - i : i;
        const plan_level *p = &d->lv[l];
        const int rows = dims == 2 ? p->h : h, n = p->w, m = p->h;
        if ((err = side_before(d, n, m)) < 0)
            return err;
        if (!inverse && i >= rend && (rend = lvl_oop_run(d, i, tl)) < 0)
            return rend;
        if (i < rend) {
            if ((err = lvl_oop_level(d, base, pitch, tb, n, m, i == rend - 1, &in_tmp)) < 0)
                return err;
            continue;
        }
        if (!inverse && (err = run_lvl2d(d, base, pitch, n, m)) != 0) {
            if (err < 0)
                return err;
            continue;
        }
        if (!inverse) {
            if (n < 2)
                err = run_split(d, base, pitch, tb, pitch, 0, n, rows, 2);
            else if (fused_ok(d, n, 1))
                err = run_rowfused(d, base, pitch, tb, pitch, n, rows, 1, 0, 0);
            else if (row_win_ok(d, n))
                err = run_rowwin(d, base, pitch, tb, pitch, n, rows, 0);
            else if ((err = run_split(d, base, pitch, tb, pitch, 0, n, rows, 0)) >= 0)
                err = run_steps(d, tb, pitch, 0, n, rows, 0);
            if (err < 0)
                return err;
            if (dims == 1 || m < 2)
                err = run_split(d, tb, pitch, base, pitch, 0, n, rows, 2);
            else
                err = cols_forward(d, tb, pitch, base, pitch, m, n, i + 1 < levels && (long long)n * m <= SIDE_MAX);
            if (err < 0)
                return err;
        } else {
            if (dims == 1 || m < 2)
                err = run_split(d, base, pitch, tb, pitch, 0, n, rows, 2);
            else
                err = run_colfused(d, base, pitch, tb, pitch, m, n, 1);
            if (err < 0)
                return err;
            if (n < 2)
                err = run_split(d, tb, pitch, base, pitch, 0, n, rows, 2);
            else if (fused_ok(d, n, 1))
                err = run_rowfused(d, tb, pitch, base, pitch, n, rows, 1, 1, 0);
            else if (row_win_ok(d, n))
                err = run_rowwin(d, tb, pitch, base, pitch, n, rows, 1);
            else if ((err = run_steps(d, tb, pitch, 0, n, rows, 1)) >= 0)
                err = run_split(d, tb, pitch, base, pitch, 0, n, rows, 1);
            if (err < 0)
                return err;
        }
    }
    if (tl < levels && !inverse) {
        if ((err = side_flush(d, 1)) < 0)
            return err;
        return run_tilefused(d, base, pitch, d->lv[tl].w, d->lv[tl].h, levels - tl, 0);
    }
    return 0;
}

static int image_args(RV_Dwt *d, RV_Image *img, uint64_t *base, int64_t *pitch)
{
    if (!img)
        return fail(d, RV_EINVAL, "image is NULL");
    if (rv_image_format(img) != RV_FMT_GRAYF32 || d->type != DWT_F32)
        return fail(d, RV_EINVAL, "images must be GRAYF32 with f32 settings (use a buffer for i32)");
    if (rv_image_context(img) != d->ctx)
        return fail(d, RV_EINVAL, "the image belongs to another context");
    ptrdiff_t pt = 0;
    int err = rv_image_kernel_address(img, 0, RV_ACCESS_RW, base, &pt);
    if (err < 0)
        return rvfail(d, err, "image address");
    *pitch = (int64_t)pt;
    return 0;
}

/* Forward or inverse transform of a GRAYF32 image, in its own storage. */
static int image_transform(RV_Dwt *d, RV_Image *img, int levels, int inverse)
{
    if (!d)
        return RV_EINVAL;
    uint64_t base = 0;
    int64_t pitch = 0;
    int err = image_args(d, img, &base, &pitch);
    if (err < 0)
        return err;
    return transform(d, base, pitch, rv_image_width(img), rv_image_height(img), levels, inverse);
}

RV_API int rv_dwt_forward(RV_Dwt *d, RV_Image *img, int levels)
{
    return image_transform(d, img, levels, 0);
}

RV_API int rv_dwt_inverse(RV_Dwt *d, RV_Image *img, int levels)
{
    return image_transform(d, img, levels, 1);
}

static int buffer_check(RV_Dwt *d, RV_Buffer *buf, int w, int h, size_t pitch)
{
    if (!buf)
        return fail(d, RV_EINVAL, "buffer is NULL");
    if (w < 1 || h < 1 || w > RV_MAX_DIM || h > RV_MAX_DIM)
        return fail(d, RV_EINVAL, "size %dx%d outside 1..%d", w, h, RV_MAX_DIM);
    if (pitch < (size_t)w * 4 || pitch % 4 || pitch > ((size_t)1 << 32))
        return fail(d, RV_EINVAL, "bad pitch %zu for %d samples", pitch, w);
    if ((size_t)(h - 1) * pitch + (size_t)w * 4 > rv_buffer_size(buf))
        return fail(d, RV_EINVAL, "%dx%d samples (pitch %zu) do not fit a %zu-byte buffer", w, h, pitch,
                    rv_buffer_size(buf));
    return 0;
}

RV_API int rv_dwt_forward_buffer(RV_Dwt *d, RV_Buffer *buf, int w, int h, size_t pitch, int levels)
{
    if (!d)
        return RV_EINVAL;
    int err = buffer_check(d, buf, w, h, pitch);
    if (err < 0)
        return err;
    return transform(d, rv_buffer_address(buf), (int64_t)pitch, w, h, levels, 0);
}

RV_API int rv_dwt_inverse_buffer(RV_Dwt *d, RV_Buffer *buf, int w, int h, size_t pitch, int levels)
{
    if (!d)
        return RV_EINVAL;
    int err = buffer_check(d, buf, w, h, pitch);
    if (err < 0)
        return err;
    return transform(d, rv_buffer_address(buf), (int64_t)pitch, w, h, levels, 1);
}

/* ---------------------------------------------------------------- */
/* Host memory in and out: stripes within a device memory limit       */
/* ---------------------------------------------------------------- */

/* transform() with the method and dims given (the plan is made again). */
static int transform_as(RV_Dwt *d, uint64_t base, int64_t pitch, int w, int h, int levels, int inverse, int method,
                        int dims)
{
    const RV_DwtSettings keep = d->s;
    const int changed = method != (int)d->s.method || dims != d->s.dims;
    if (changed) {
        d->s.method = (RV_DwtMethod)method;
        d->s.dims = dims;
        d->pvalid = 0;
    }
    const int err = transform(d, base, pitch, w, h, levels, inverse);
    if (changed) {
        d->s = keep;
        d->pvalid = 0;
    }
    return err;
}

/* Copies rows of rb bytes between host arrays (regions may be the same). */
static void copy_rows(unsigned char *dst, size_t dp, const unsigned char *src, size_t sp, size_t rb, int rows)
{
    if (dst == src && dp == sp)
        return;
    for (int r = 0; r < rows; r++)
        memmove(dst + (size_t)r * dp, src + (size_t)r * sp, rb);
}

/*
 * rows rows of rb bytes between the buffer (byte offset off, rows bp apart) and the
 * host (rows hp apart), up: into the buffer. One pitched copy (rv_buffer_*_rows).
 */
static int xfer_rows(RV_Dwt *d, RV_Buffer *b, size_t off, size_t bp, unsigned char *h, size_t hp, size_t rb,
                     int rows, int up)
{
    if (rows <= 0)
        return 0;
    const size_t bytes = rb * (size_t)rows;
    const int err = up ? rv_buffer_upload_rows(b, off, bp, h, hp, rb, (size_t)rows)
                       : rv_buffer_download_rows(b, off, bp, h, hp, rb, (size_t)rows);
    if (err < 0)
        return rvfail(d, err, up ? "upload" : "download");
    if (up)
        d->stats.upload_bytes += (double)bytes;
    else
        d->stats.download_bytes += (double)bytes;
    return 0;
}

/* rows rows of rb bytes, host pitch hp -> buffer at byte offset off (packed). */
static int put_rows(RV_Dwt *d, RV_Buffer *b, size_t off, const unsigned char *src, size_t hp, size_t rb, int rows)
{
    return xfer_rows(d, b, off, rb, (unsigned char *)(uintptr_t)src, hp, rb, rows, 1);
}

static int get_rows(RV_Dwt *d, RV_Buffer *b, size_t off, unsigned char *dst, size_t hp, size_t rb, int rows)
{
    return xfer_rows(d, b, off, rb, dst, hp, rb, rows, 0);
}

/* Method for a region of `bytes` when `usable` device bytes are left: out of place needs twice. */
static int method_for(const RV_Dwt *d, size_t bytes, size_t usable)
{
    return d->s.method == RV_DWT_OUT_OF_PLACE && bytes <= usable / 2 ? RV_DWT_OUT_OF_PLACE : RV_DWT_IN_PLACE;
}

/*
 * Makes the stripe buffers sa[i] (sizes a[i], 0: none) and sb[i] (b[i]) exist:
 * buffers of an earlier call are kept when they all fit these needs, else all
 * are freed first and made again, so that together they never exceed what one
 * call asked for (the device memory limit).
 */
static int ensure_sets(RV_Dwt *d, const size_t a[2], const size_t b[2])
{
    int keep = 1;
    for (int i = 0; i < 2; i++) {
        if ((a[i] == 0) != (d->sa[i] == NULL) || (b[i] == 0) != (d->sb[i] == NULL) ||
            rv_buffer_size(d->sa[i]) < a[i] || rv_buffer_size(d->sb[i]) < b[i])
            keep = 0;
    }
    if (keep)
        return 0;
    drop_sets(d);
    /* uploads go through the transfer context; with separate upload buffers the
     * downloads go through the transform's own, so that the two can run at once
     * from two threads (stripe_duplex) */
    RV_Context *c = up_ctx(d), *cb = a[0] ? d->ctx : c;
    int err = 0;
    for (int i = 0; i < 2 && err >= 0; i++) {
        if (a[i] && (err = buf_ensure_in(d, c, &d->sa[i], a[i], "stripe buffer")) < 0)
            break;
        if (b[i])
            err = buf_ensure_in(d, cb, &d->sb[i], b[i], "stripe buffer");
    }
    return err;
}

/* The whole w x h region (host src -> host dst) on the device: `levels` levels. */
static int host_whole(RV_Dwt *d, const unsigned char *src, unsigned char *dst, size_t hp, int w, int h, int levels,
                      int inverse, int dims, size_t usable)
{
    const size_t rb = (size_t)w * 4, bytes = rb * (size_t)h;
    int err;
    const size_t na[2] = {0, 0}, nb[2] = {bytes, 0};
    if ((err = ensure_sets(d, na, nb)) < 0 || (err = put_rows(d, d->sb[0], 0, src, hp, rb, h)) < 0)
        return err;
    d->stats.stripes++;
    if ((err = transform_as(d, rv_buffer_address(d->sb[0]), (int64_t)rb, w, h, levels, inverse,
                            method_for(d, bytes, usable), dims)) < 0)
        return err;
    if ((err = rv_context_sync(d->ctx)) < 0)
        return rvfail(d, err, "sync");
    return get_rows(d, d->sb[0], 0, dst, hp, rb, h);
}

/*
 * A striped pass: stripe i is uploaded into set i % nsets (up), transformed
 * (run: kernels, queued) and downloaded (down). With two sets (copies on a
 * transfer context's own stream) the upload of stripe i+1 and the download
 * of stripe i run while the kernels of the other stripe do (seed 000, 5.4):
 *   up(0) run(0) | up(1) sync run(1) down(0) | up(2) sync run(2) down(1) | ...
 */
typedef struct stripe_job {
    const unsigned char *src;
    unsigned char *dst;
    size_t sp, dp, rb;
    int w, h, nS, nD, H, P, levels, inverse, nsets;
    uint64_t ll; /* 0, or the LL region kept on the device (keep_room): llw samples a row, pitch llp */
    int64_t llp;
    int llw;
    struct casc *c; /* forward with ll: the levels after it that follow the stripes, or NULL */
} stripe_job;

/*
 * The cascade (forward, RV_DwtSettings.host_cascade_min): the levels after a
 * striped level whose LL region is kept on the device follow its stripes. Level
 * s of the cascade has its region (W x Hh samples at `in`, pitch p; level 0's is
 * the kept LL region) filled row by row: the stripes of the level above write
 * its rows, in order. Fed rows [0, R), it lifts the rows it has not lifted yet,
 * then the column pairs [done, b) whose rows and halo (2 (b + H) <= R, or the
 * whole region) are there, into `o` (S rows from o, D rows from o + Q rows,
 * pitch p); the S rows' LL part goes into the next level's region (or `last`,
 * after the last level of the cascade), which feeds that level; the rest of
 * the pairs goes down after the stripe (casc_down) while the next stripe comes
 * up. Each level lifts its rows and columns as a whole 2-D level would (rows,
 * then columns with the symmetric extension at the region's ends), so the
 * results are the same bit for bit; every coefficient still goes down once.
 */
typedef struct casc_level {
    uint64_t in, o;
    int64_t p;
    int W, Hh;
    int Q;      /* pairs `o` holds: the most one feed finishes (casc_plan) */
    int rt;     /* rows lifted (= rows arrived) */
    int done;   /* pairs finished */
    int pa, pb; /* pairs the last feed finished, to go down */
} casc_level;

typedef struct casc {
    int m, rest, H;  /* levels in the cascade, levels after it (on `last`), halo pairs */
    casc_level l[32];
    uint64_t last;   /* the LL region after the cascade's last level: lw x lh, packed */
    int lw, lh;
} casc;

/*
 * Feeds level s of the cascade the rows [0, R) of its region (see casc). With
 * d NULL it only counts: the most pairs one feed finishes go into Q (casc_plan).
 */
static int casc_feed(RV_Dwt *d, casc *c, int s, int R)
{
    casc_level *L = &c->l[s];
    const int nS = (L->Hh + 1) / 2;
    const int64_t p = L->p;
    int err;
    if (R > L->Hh)
        R = L->Hh;
    if (d && R > L->rt && L->W >= 2 &&
        (err = transform_as(d, L->in + (uint64_t)L->rt * (uint64_t)p, p, L->W, R - L->rt, 1, 0, RV_DWT_IN_PLACE, 1)) <
            0)
        return err;
    if (R > L->rt)
        L->rt = R;
    int b = R >= L->Hh ? nS : R >= 2 * c->H ? (R - 2 * c->H) / 2 : 0;
    if (b > nS)
        b = nS;
    L->pa = L->done;
    L->pb = b > L->done ? b : L->done;
    if (b <= L->done) /* nothing new here: nor below (their last pairs went down already) */
        return s + 1 < c->m ? casc_feed(d, c, s + 1, L->done) : 0;
    const uint64_t a = (uint64_t)L->done, up = (uint64_t)p;
    if (!d) {
        if (b - L->done > L->Q)
            L->Q = b - L->done;
    } else {
        const int last = s + 1 == c->m;
        const uint64_t next = last ? c->last : c->l[s + 1].in;
        const int64_t np = last ? (int64_t)c->lw * 4 : c->l[s + 1].p;
        if ((err = run_colfused_win(d, L->in, L->in + up, 2 * p, L->o - a * up, L->o + (uint64_t)L->Q * up - a * up, p,
                                    L->Hh, L->W, L->done, b, 0)) < 0 ||
            (err = run_split(d, L->o, p, next + a * (uint64_t)np, np, 0, (L->W + 1) / 2, b - L->done, 2)) < 0)
            return err;
    }
    L->done = b;
    return s + 1 < c->m ? casc_feed(d, c, s + 1, b) : 0;
}

/* After a stripe's kernels: the pairs its feed finished go down (the S rows right of
 * the next level's LL part, the D rows whole), to the level's place in dst. */
static int casc_down(RV_Dwt *d, const casc *c, unsigned char *dst, size_t dp)
{
    const uint64_t base = rv_buffer_address(d->casc);
    for (int s = 0; s < c->m; s++) {
        const casc_level *L = &c->l[s];
        const int n = L->pb - L->pa, nS = (L->Hh + 1) / 2, nD = L->Hh / 2, nw = (L->W + 1) / 2;
        const int de = L->pb < nD ? L->pb : nD;
        const size_t p = (size_t)L->p, off = (size_t)(L->o - base), lb = (size_t)nw * 4;
        int err = 0;
        if (n > 0 && nw < L->W)
            err = xfer_rows(d, d->casc, off + lb, p, dst + (size_t)L->pa * dp + lb, dp, p - lb, n, 0);
        if (err >= 0 && de > L->pa)
            err = xfer_rows(d, d->casc, off + (size_t)L->Q * p, p, dst + (size_t)(nS + L->pa) * dp, dp, p, de - L->pa,
                            0);
        if (err < 0)
            return err;
    }
    return 0;
}

/* 256-byte steps for the parts of the cascade's buffer. */
static size_t casc_round(size_t b)
{
    return (b + 255) & ~(size_t)255;
}

/*
 * Plans the cascade after a striped level of nS pairs in stripes of P pairs: the
 * levels (of `levels` after it, regions lw[s] x lh[s]) whose regions have at least
 * host_cascade_min bytes, and the pairs each feed finishes at most (a dry run of
 * the stripes). Returns the bytes of the cascade's buffer, 0 for no cascade.
 */
static size_t casc_plan(const RV_Dwt *d, casc *c, const int *lw, const int *lh, int levels, long long P, int nS,
                        size_t min)
{
    memset(c, 0, sizeof(*c));
    c->H = steps_reach(d);
    while (c->m < levels && c->m < 32 && lh[c->m] >= 2 && min != (size_t)-1 &&
           (size_t)lw[c->m] * 4 * (size_t)lh[c->m] >= min) {
        casc_level *L = &c->l[c->m];
        L->W = lw[c->m];
        L->Hh = lh[c->m];
        L->p = (int64_t)L->W * 4;
        c->m++;
    }
    if (c->m == 0 || P < 1)
        return 0;
    c->rest = levels - c->m;
    c->lw = lw[c->m];
    c->lh = lh[c->m];
    for (long long k = P;; k += P) {
        casc_feed(NULL, c, 0, k < nS ? (int)k : nS);
        if (k >= nS)
            break;
    }
    size_t bytes = casc_round((size_t)c->lw * 4 * (size_t)c->lh);
    for (int s = 0; s < c->m; s++) {
        casc_level *L = &c->l[s];
        L->rt = L->done = L->pa = L->pb = 0;
        if (L->Q < 1)
            L->Q = 1;
        bytes += casc_round(2 * (size_t)L->Q * (size_t)L->p);
        if (s > 0)
            bytes += casc_round((size_t)L->Hh * (size_t)L->p);
    }
    return bytes;
}

/* Makes the cascade's buffer (bytes from casc_plan) and places its parts; level 0's
 * region is the kept LL region ll. */
static int casc_alloc(RV_Dwt *d, casc *c, size_t bytes, uint64_t ll)
{
    const int err = buf_ensure(d, &d->casc, bytes, "cascade of the deeper levels");
    if (err < 0)
        return err;
    uint64_t at = rv_buffer_address(d->casc);
    c->last = at;
    at += casc_round((size_t)c->lw * 4 * (size_t)c->lh);
    for (int s = 0; s < c->m; s++) {
        casc_level *L = &c->l[s];
        L->o = at;
        at += casc_round(2 * (size_t)L->Q * (size_t)L->p);
        if (s == 0)
            L->in = ll;
        else {
            L->in = at;
            at += casc_round((size_t)L->Hh * (size_t)L->p);
        }
    }
    return 0;
}

/*
 * The uploads of stripe i into set `set`, without touching d (no message, no
 * statistics), so that a second thread can run them: returns 0 or the error, and
 * adds the bytes copied to *bytes.
 */
static int stripe_copy_up(const RV_Dwt *d, const stripe_job *j, int i, int set, double *bytes)
{
    const int k0 = i * j->P, k1 = k0 + j->P < j->nS ? k0 + j->P : j->nS, H = j->H;
    RV_Buffer *b = j->levels ? d->sb[set] : d->sa[set];
    int r[2] = {0, 0}, n[2] = {0, 0};
    if (j->levels) { /* groups of rows (1-D, or one-row regions) */
        r[0] = k0;
        n[0] = k1 - k0;
    } else if (!j->inverse) {
        r[0] = 2 * (k0 - H) < 0 ? 0 : 2 * (k0 - H);
        n[0] = (2 * (k1 + H) < j->h ? 2 * (k1 + H) : j->h) - r[0];
    } else { /* S rows, then D rows, with their halos */
        const int slo = k0 - H < 0 ? 0 : k0 - H, shi = k1 + H < j->nS ? k1 + H : j->nS;
        const int dlo = slo < j->nD ? slo : j->nD, dhi = k1 + H < j->nD ? k1 + H : j->nD;
        r[0] = slo;
        n[0] = shi - slo;
        r[1] = j->nS + dlo;
        n[1] = dhi - dlo;
    }
    size_t off = 0;
    for (int c = 0; c < 2; c++) {
        if (n[c] <= 0)
            continue;
        const int err = rv_buffer_upload_rows(b, off, j->rb, j->src + (size_t)r[c] * j->sp, j->sp, j->rb, (size_t)n[c]);
        if (err < 0)
            return err;
        off += (size_t)n[c] * j->rb;
        *bytes += (double)n[c] * (double)j->rb;
    }
    return 0;
}

static int stripe_up(RV_Dwt *d, const stripe_job *j, int i, int set)
{
    double bytes = 0;
    const int err = stripe_copy_up(d, j, i, set, &bytes);
    if (err < 0)
        return rvfail_in(d, up_ctx(d), err, "upload");
    d->stats.upload_bytes += bytes;
    return 0;
}

static int stripe_run(RV_Dwt *d, const stripe_job *j, int i, int set)
{
    const int k0 = i * j->P, k1 = k0 + j->P < j->nS ? k0 + j->P : j->nS, H = j->H, w = j->w, h = j->h;
    const uint64_t rbu = (uint64_t)j->rb, B = rv_buffer_address(d->sb[set]);
    int err;
    d->stats.stripes++;
    if (j->levels)
        return transform_as(d, B, (int64_t)j->rb, w, k1 - k0, j->levels, j->inverse, RV_DWT_IN_PLACE, 1);
    const uint64_t A = rv_buffer_address(d->sa[set]);
    if (!j->inverse) {
        const int r0 = 2 * (k0 - H) < 0 ? 0 : 2 * (k0 - H), r1 = 2 * (k1 + H) < h ? 2 * (k1 + H) : h;
        if (w >= 2 && (err = transform_as(d, A, (int64_t)j->rb, w, r1 - r0, 1, 0, RV_DWT_IN_PLACE, 1)) < 0)
            return err;
        if ((err = run_colfused_win(d, A - (uint64_t)r0 * rbu, A - (uint64_t)r0 * rbu + rbu, 2 * (int64_t)j->rb,
                                    B - (uint64_t)k0 * rbu, B + (uint64_t)(j->P - k0) * rbu, (int64_t)j->rb, h, w, k0,
                                    k1, 0)) < 0)
            return err;
        /* the stripe's S rows start with its rows of the LL region: into the kept LL,
         * whose rows [0, k1) are then all there for the cascade */
        if (j->ll && (err = run_split(d, B, (int64_t)j->rb, j->ll + (uint64_t)k0 * (uint64_t)j->llp, j->llp, 0,
                                      j->llw, k1 - k0, 2)) < 0)
            return err;
        return j->c ? casc_feed(d, j->c, 0, k1) : 0;
    }
    const int slo = k0 - H < 0 ? 0 : k0 - H, shi = k1 + H < j->nS ? k1 + H : j->nS;
    const int dlo = slo < j->nD ? slo : j->nD;
    /* the uploaded S rows' LL part is stale: the inverse of the deeper levels is on the device */
    if (j->ll && (err = run_split(d, j->ll + (uint64_t)slo * (uint64_t)j->llp, j->llp, A, (int64_t)j->rb, 0, j->llw,
                                  shi - slo, 2)) < 0)
        return err;
    if ((err = run_colfused_win(d, A - (uint64_t)slo * rbu, A + (uint64_t)(shi - slo) * rbu - (uint64_t)dlo * rbu,
                                (int64_t)j->rb, B - 2 * (uint64_t)k0 * rbu, B - 2 * (uint64_t)k0 * rbu + rbu,
                                2 * (int64_t)j->rb, h, w, k0, k1, 1)) < 0)
        return err;
    const int rows = (2 * k1 < h ? 2 * k1 : h) - 2 * k0;
    return w >= 2 ? transform_as(d, B, (int64_t)j->rb, w, rows, 1, 1, RV_DWT_IN_PLACE, 1) : 0;
}

static int stripe_down(RV_Dwt *d, const stripe_job *j, int i, int set)
{
    const int k0 = i * j->P, k1 = k0 + j->P < j->nS ? k0 + j->P : j->nS;
    if (j->levels)
        return get_rows(d, d->sb[set], 0, j->dst + (size_t)k0 * j->dp, j->dp, j->rb, k1 - k0);
    if (!j->inverse) {
        const int de = k1 < j->nD ? k1 : j->nD;
        /* S rows: not their LL part when it is kept (the kept region goes down at the end) */
        const size_t lb = j->ll ? (size_t)j->llw * 4 : 0;
        int err = xfer_rows(d, d->sb[set], lb, j->rb, j->dst + (size_t)k0 * j->dp + lb, j->dp, j->rb - lb, k1 - k0, 0);
        if (err >= 0)
            err = get_rows(d, d->sb[set], (size_t)j->P * j->rb, j->dst + (size_t)(j->nS + k0) * j->dp, j->dp, j->rb,
                           de - k0);
        if (err >= 0 && j->c)
            err = casc_down(d, j->c, j->dst, j->dp);
        return err;
    }
    const int rows = (2 * k1 < j->h ? 2 * k1 : j->h) - 2 * k0;
    return get_rows(d, d->sb[set], 0, j->dst + (size_t)(2 * k0) * j->dp, j->dp, j->rb, rows);
}

/* A stripe's uploads on a second thread (stripe_duplex). */
typedef struct up_task {
    const RV_Dwt *d;
    const stripe_job *j;
    int i, set, err;
    double bytes;
} up_task;

static void *up_main(void *p)
{
    up_task *t = p;
    t->err = stripe_copy_up(t->d, t->j, t->i, t->set, &t->bytes);
    return NULL;
}

/*
 * Two sets, 2-D stripes: the upload of stripe i+1 (a second thread, through the
 * transfer context's stream) runs while stripe i goes down (this thread, through
 * the transform's stream), so the two directions of PCIe work at once; the kernels
 * of stripe i+1 follow when both are done:
 *   up(0) run(0) | [up(1) || sync down(0)] run(1) | [up(2) || sync down(1)] run(2) | ...
 */
static int stripe_duplex(RV_Dwt *d, stripe_job *j)
{
    const int n = (j->nS + j->P - 1) / j->P;
    int err;
    if ((err = stripe_up(d, j, 0, 0)) < 0 || (err = stripe_run(d, j, 0, 0)) < 0)
        return err;
    for (int i = 0; i < n; i++) {
        const int cur = i & 1, nxt = (i + 1) & 1, more = i + 1 < n;
        up_task t = {d, j, i + 1, nxt, 0, 0};
        pthread_t th;
        int spawned = 0;
        if (more) {
            spawned = pthread_create(&th, NULL, up_main, &t) == 0;
            if (!spawned) /* no thread: one after the other */
                up_main(&t);
        }
        if ((err = rv_context_sync(d->ctx)) < 0)
            err = rvfail(d, err, "sync");
        else
            err = stripe_down(d, j, i, cur);
        if (spawned)
            pthread_join(th, NULL);
        if (err < 0)
            return err;
        if (more) {
            if (t.err < 0)
                return rvfail_in(d, up_ctx(d), t.err, "upload");
            d->stats.upload_bytes += t.bytes;
            if ((err = stripe_run(d, j, i + 1, nxt)) < 0)
                return err;
        }
    }
    return 0;
}

static int stripe_pipeline(RV_Dwt *d, stripe_job *j)
{
    const int n = (j->nS + j->P - 1) / j->P, two = j->nsets == 2;
    int err;
    if (two && !j->levels)
        return stripe_duplex(d, j);
    if ((err = stripe_up(d, j, 0, 0)) < 0 || (err = stripe_run(d, j, 0, 0)) < 0)
        return err;
    for (int i = 0; i < n; i++) {
        const int cur = two ? i & 1 : 0, nxt = two ? (i + 1) & 1 : 0;
        if (two && i + 1 < n && (err = stripe_up(d, j, i + 1, nxt)) < 0)
            return err;
        if ((err = rv_context_sync(d->ctx)) < 0)
            return rvfail(d, err, "sync");
        if (two && i + 1 < n && (err = stripe_run(d, j, i + 1, nxt)) < 0)
            return err;
        if ((err = stripe_down(d, j, i, cur)) < 0)
            return err;
        if (!two && i + 1 < n && ((err = stripe_up(d, j, i + 1, 0)) < 0 || (err = stripe_run(d, j, i + 1, 0)) < 0))
            return err;
    }
    return 0;
}

/* Pairs a stripe of a level with rows of rb bytes gets from `usable` bytes over nsets
 * sets: a set holds (2P + 4H) rows in, 2P rows out. */
static long long stripe_pairs(size_t usable, int nsets, size_t rb, int H)
{
    return ((long long)(usable / (size_t)nsets / rb) - 4LL * H) / 4;
}

/* The bytes nsets sets of stripes of P pairs take (stripe_pairs gives P back). */
static size_t stripe_bytes(size_t P, int nsets, size_t rb, int H)
{
    return (size_t)nsets * rb * (4 * P + 4 * (size_t)H);
}

/* Two buffer sets when the copies have their own stream (and one stripe is not all). */
static int stripe_sets(const RV_Dwt *d)
{
    return d->s.transfer_ctx && d->s.transfer_ctx != d->ctx ? 2 : 1;
}

/* A striped pass of w x h samples, host src (pitch sp) -> host dst (pitch dp); the
 * caller sets the pairs (nS, nD, H, P) and levels. */
static stripe_job stripe_job_of(const RV_Dwt *d, const unsigned char *src, size_t sp, unsigned char *dst, size_t dp,
                                int w, int h, int inverse)
{
    stripe_job j;
    memset(&j, 0, sizeof(j));
    j.src = src;
    j.dst = dst;
    j.sp = sp;
    j.dp = dp;
    j.rb = (size_t)w * 4;
    j.w = w;
    j.h = h;
    j.inverse = inverse;
    j.nsets = stripe_sets(d);
    return j;
}

/* 1-D rows (or regions of one row): groups of rows, all levels each. */
static int host_rows(RV_Dwt *d, const unsigned char *src, size_t sp, unsigned char *dst, size_t dp, int w, int h,
                     int levels, int inverse, size_t usable)
{
    stripe_job j = stripe_job_of(d, src, sp, dst, dp, w, h, inverse);
    j.nS = h; /* "pairs" are rows here */
    j.levels = levels;
    long long g = (long long)(usable / j.nsets / j.rb);
    if (g >= h) {
        g = h;
        j.nsets = 1;
    }
    if (g < 1)
        return fail(d, RV_ENOMEM, "device memory limit %zu too small for a row of %zu bytes",
                    d->s.device_memory_limit, j.rb);
    j.P = (int)g;
    const size_t na[2] = {0, 0}, nb[2] = {j.rb * (size_t)g, j.nsets > 1 ? j.rb * (size_t)g : 0};
    const int err = ensure_sets(d, na, nb);
    return err < 0 ? err : stripe_pipeline(d, &j);
}

/* The pairs a stripe of a 2-D level of width w and h rows gets from `usable` bytes,
 * and the sets of stripe buffers (*nsets): below 1 when not even one fits. */
static long long level_pairs(const RV_Dwt *d, int w, int h, size_t usable, int *nsets)
{
    const int nS = (h + 1) / 2;
    *nsets = stripe_sets(d);
    long long P = stripe_pairs(usable, *nsets, (size_t)w * 4, steps_reach(d));
    if (P >= nS) {
        P = nS;
        *nsets = 1;
    }
    return P;
}

/* One 2-D level of the w x h region in stripes: host src (pitch sp) -> host dst (pitch dp);
 * ll (llw samples a row): the LL region kept on the device, c: the cascade after it. */
static int host_level(RV_Dwt *d, const unsigned char *src, size_t sp, unsigned char *dst, size_t dp, int w, int h,
                      int inverse, size_t usable, uint64_t ll, int llw, casc *c)
{
    if (h < 2) /* one row: no columns to transform */
        return host_rows(d, src, sp, dst, dp, w, h, 1, inverse, usable);
    stripe_job j = stripe_job_of(d, src, sp, dst, dp, w, h, inverse);
    j.nS = (h + 1) / 2;
    j.nD = h / 2;
    j.H = steps_reach(d);
    j.ll = ll;
    j.llw = llw;
    j.llp = (int64_t)llw * 4;
    j.c = c;
    const long long P = level_pairs(d, w, h, usable, &j.nsets);
    if (P < 1)
        return fail(d, RV_ENOMEM, "device memory limit %zu too small for stripes of %zu-byte rows",
                    d->s.device_memory_limit, j.rb);
    j.P = (int)P;
    const size_t sa = j.rb * (size_t)(2 * P + 4 * j.H), sb = j.rb * (size_t)(2 * P);
    const size_t na[2] = {sa, j.nsets > 1 ? sa : 0}, nb[2] = {sb, j.nsets > 1 ? sb : 0};
    const int err = ensure_sets(d, na, nb);
    return err < 0 ? err : stripe_pipeline(d, &j);
}

/*
 * Device bytes left to the stripes of a level of width w when the next level's LL
 * region (llb bytes) stays on the device meanwhile, or 0 when that does not pay: it
 * saves copying that region down and up again (and its host packing), but the stripes
 * must then be at least a quarter of their size without it.
 */
static size_t keep_room(const RV_Dwt *d, int w, size_t llb, size_t usable)
{
    if (llb >= usable)
        return 0;
    const size_t rb = (size_t)w * 4;
    const int H = steps_reach(d), nsets = stripe_sets(d);
    const long long pk = stripe_pairs(usable - llb, nsets, rb, H), pf = stripe_pairs(usable, nsets, rb, H);
    return pk >= 1 && 4 * pk >= pf ? usable - llb : 0;
}

/* Makes the kept LL region (llb bytes) after freeing the stripe sets, which would count
 * beside it; returns its address, 0 on failure (the message set). */
static uint64_t keep_alloc(RV_Dwt *d, size_t llb)
{
    drop_sets(d);
    return buf_ensure(d, &d->ll, llb, "kept LL region") < 0 ? 0 : rv_buffer_address(d->ll);
}

/* The end of a host transform: the kept LL region is freed (it would count against the
 * next call's limit); returns err. */
static int keep_done(RV_Dwt *d, int err)
{
    rv_buffer_destroy(&d->ll);
    rv_buffer_destroy(&d->casc);
    return err;
}

/*
 * The cascade after the striped level lw[0] x lh[0] (forward), whose LL region ll
 * (llb bytes) is kept and whose stripes have `room` bytes: planned, and its buffer
 * made, when it fits the limit (`usable` bytes in all) beside them. *cp: c, or NULL
 * for no cascade.
 */
static int casc_setup(RV_Dwt *d, casc *c, const int *lw, const int *lh, int levels, uint64_t ll, size_t llb,
                      size_t usable, size_t room, const void *out, casc **cp)
{
    /* the default only where the coefficients go down by DMA (page-locked out): from
     * pageable memory the small copies of the deeper levels measured slower (docs/perf/
     * dwt.md, session 39) */
    const size_t min = d->s.host_cascade_min           ? d->s.host_cascade_min
                       : rv_host_memory_locked(d->ctx, out) ? RV_DWT_HOST_CASCADE_MIN
                                                          : (size_t)-1;
    int nsets;
    const int nS = (lh[0] + 1) / 2;
    const size_t rb = (size_t)lw[0] * 4;
    *cp = NULL;
    const long long P = level_pairs(d, lw[0], lh[0], room, &nsets);
    /* only where the copies overlap the kernels (two sets): else the cascade's
     * launches and small copies come on top of the same bytes */
    const size_t cb = nsets == 2 ? casc_plan(d, c, lw + 1, lh + 1, levels - 1, P, nS, min) : 0;
    if (!cb)
        return 0;
    /* within the limit beside the stripes as they are: shorter stripes to make room
     * measured slower than no cascade (docs/perf/dwt.md, session 39) */
    if (llb + cb + stripe_bytes((size_t)P, nsets, rb, steps_reach(d)) > usable)
        return 0;
    const int err = casc_alloc(d, c, cb, ll);
    if (err < 0)
        return err;
    d->stats.cascade_levels += c->m;
    *cp = c;
    return 0;
}

/* After the last stripe: `levels` levels (0: none) on the w x h region kept on the
 * device at `at` (packed, in buffer b), which then goes down to out (pitch). */
static int kept_tail(RV_Dwt *d, RV_Buffer *b, uint64_t at, int w, int h, int levels, unsigned char *out,
                     size_t pitch, size_t usable)
{
    drop_sets(d);
    const size_t lp = (size_t)w * 4, off = (size_t)(at - rv_buffer_address(b));
    int err = 0;
    if (levels > 0 &&
        (err = transform_as(d, at, (int64_t)lp, w, h, levels, 0, method_for(d, lp * (size_t)h, usable), 2)) < 0)
        return err;
    if ((err = rv_context_sync(d->ctx)) < 0)
        return rvfail(d, err, "sync");
    return xfer_rows(d, b, off, lp, out, pitch, lp, h, 0);
}

/* Host scratch copy of a w x h region (packed rows), for levels that cannot be striped in place. */
static unsigned char *region_copy(RV_Dwt *d, const unsigned char *src, size_t sp, int w, int h)
{
    unsigned char *c = malloc((size_t)w * 4 * (size_t)h);
    if (!c) {
        fail(d, RV_ENOMEM, "out of host memory (%dx%d region copy)", w, h);
        return NULL;
    }
    copy_rows(c, (size_t)w * 4, src, sp, (size_t)w * 4, h);
    return c;
}

/*
 * Stripes level 0 of a 2-D host transform takes although the image fits
 * (RV_DwtSettings.host_stripes), or 0: whole. Striping pays only with the copies
 * on two threads (a transfer context), and needs out apart from in (a forward
 * stripe's downloads overwrite rows later stripes read, and the inverse reads
 * the coefficients in place).
 */
static int pipe_stripes(const RV_Dwt *d, const void *in, const void *out, int w, int h)
{
    if (in == out || stripe_sets(d) < 2 || d->s.layout != RV_DWT_LAYOUT_BLOCK || h < 4 || d->s.host_stripes == 1)
        return 0;
    long long k = d->s.host_stripes;
    if (k == 0) {
        const size_t bytes = (size_t)w * 4 * (size_t)h;
        if (rv_host_memory_locked(d->ctx, in) && rv_host_memory_locked(d->ctx, out))
            k = bytes >= RV_DWT_HOST_PIPE_MIN ? RV_DWT_HOST_STRIPES : 0;
        else { /* pageable: staged copies, in chunks; stripes of several */
            const size_t q = bytes / RV_DWT_HOST_STRIPE_MIN_PAGEABLE;
            k = q < 2 ? 0 : q > RV_DWT_HOST_STRIPES ? RV_DWT_HOST_STRIPES : (long long)q;
        }
    }
    const int pairs = (h + 1) / 2;
    return k > pairs ? pairs : (int)k;
}

static int host_transform(RV_Dwt *d, const void *vin, void *vout, int w, int h, size_t pitch, int levels, int inverse)
{
    if (!d)
        return RV_EINVAL;
    if (!vin || !vout)
        return fail(d, RV_EINVAL, "host in and out are required");
    if (w < 1 || h < 1 || w > RV_MAX_DIM || h > RV_MAX_DIM)
        return fail(d, RV_EINVAL, "size %dx%d outside 1..%d", w, h, RV_MAX_DIM);
    if (pitch < (size_t)w * 4 || pitch % 4)
        return fail(d, RV_EINVAL, "bad pitch %zu for %d samples", pitch, w);
    if (levels < 0 || levels > 32)
        return fail(d, RV_EINVAL, "levels %d outside 0..32", levels);
    const unsigned char *in = vin;
    unsigned char *out = vout;
    const size_t rb = (size_t)w * 4, reserve = 65536;
    const size_t lim = d->s.device_memory_limit;
    if (lim && lim <= reserve)
        return fail(d, RV_ENOMEM, "device memory limit %zu below the %zu bytes kept for tables", lim, reserve);
    const size_t usable = lim ? lim - reserve : (size_t)-1;
    int err;
    if (lim) {
        /* scratch of earlier calls would count against the limit */
        rv_buffer_destroy(&d->tmp);
        rv_buffer_destroy(&d->halo);
    }
    if (levels == 0) {
        copy_rows(out, pitch, in, pitch, rb, h);
        return 0;
    }
    if (d->s.dims == 1 || h == 1)
        return host_rows(d, in, pitch, out, pitch, w, h, levels, inverse, usable);
    /* regions of the levels */
    int lw[34], lh[34];
    lw[0] = w;
    lh[0] = h;
    for (int l = 0; l < levels; l++) {
        lw[l + 1] = (lw[l] + 1) / 2;
        lh[l + 1] = (lh[l] + 1) / 2;
    }
    /* a whole region also needs the halo buffer of the in-place columns (<= 1/32 of it, or 256 KiB) */
#define FITS(l) ((size_t)lw[l] * 4 * (size_t)lh[l] / 16 * 17 + 262144 <= usable)
    int lf = 0; /* first level whose region goes to the device whole */
    while (lf < levels && !FITS(lf))
        lf++;
    if (lf > 0 && d->s.layout != RV_DWT_LAYOUT_BLOCK)
        return fail(d, RV_EINVAL, "%dx%d does not fit the device memory limit %zu; splitting needs the block layout",
                    w, h, lim);
#undef FITS
    /* an image that fits, pipelined anyway (host_stripes): level 0 striped */
    const int kpipe = lf == 0 ? pipe_stripes(d, in, out, w, h) : 0;
    if (kpipe)
        lf = 1;
    /* the LL region of level lf kept on the device between the striped level lf - 1 and
     * the levels after it (keep_room): 0 when the stripes would get too small */
    const size_t llb = lf > 0 && lf < levels && lh[lf - 1] >= 2 ? (size_t)lw[lf] * 4 * (size_t)lh[lf] : 0;
    /* bytes the striped levels may use: the limit, or what k stripes and the kept
     * region need (stripe_pairs gives back the pairs of one stripe) */
    size_t su = usable;
    if (kpipe) {
        const size_t P = ((size_t)(h + 1) / 2 + (size_t)kpipe - 1) / (size_t)kpipe;
        su = llb + stripe_bytes(P, stripe_sets(d), rb, steps_reach(d));
    }
    const size_t ll_use = !llb ? 0 : kpipe ? su - llb : keep_room(d, lw[lf - 1], llb, su);
    uint64_t ll = 0;
    if (!inverse) {
        casc cc, *cp = NULL; /* the levels after the kept region that follow the stripes */
        for (int l = 0; l < lf; l++) {
            const unsigned char *src = in;
            size_t sp = pitch;
            unsigned char *copy = NULL;
            if (l > 0 || in == out) {
                /* the level's input is overwritten while it is read: work from a copy */
                if (!(copy = region_copy(d, l > 0 ? out : in, pitch, lw[l], lh[l])))
                    return keep_done(d, RV_ENOMEM);
                src = copy;
                sp = (size_t)lw[l] * 4;
            }
            if (l == lf - 1 && ll_use && (ll = keep_alloc(d, llb)) == 0) {
                free(copy);
                return keep_done(d, RV_ENOMEM);
            }
            const size_t room = l == lf - 1 && ll ? ll_use : su;
            if (l == lf - 1 && ll &&
                (err = casc_setup(d, &cc, lw + l, lh + l, levels - l, ll, llb, usable, room, out, &cp)) < 0) {
                free(copy);
                return keep_done(d, err);
            }
            err = host_level(d, src, sp, out, pitch, lw[l], lh[l], 0, room, l == lf - 1 ? ll : 0, lw[lf],
                             l == lf - 1 ? cp : NULL);
            free(copy);
            if (err < 0)
                return keep_done(d, err);
        }
        if (cp) /* the cascade: what is left of the deeper levels on its last region */
            return keep_done(d, kept_tail(d, d->casc, cp->last, cp->lw, cp->lh, cp->rest, out, pitch, usable));
        if (ll) /* the deeper levels on the kept region, then it goes to the host once */
            return keep_done(d, kept_tail(d, d->ll, ll, lw[lf], lh[lf], levels - lf, out, pitch, usable));
        if (lf < levels)
            return host_whole(d, lf > 0 ? out : in, out, pitch, lw[lf], lh[lf], levels - lf, 0, 2, usable);
        return 0;
    }
    /* inverse: the deepest levels whole, then the others from the largest region down */
    if (ll_use && (ll = keep_alloc(d, llb)) == 0)
        return keep_done(d, RV_ENOMEM);
    if (ll) {
        /* on the kept region, which the stripes of level lf - 1 then read on the device */
        const size_t lp = (size_t)lw[lf] * 4;
        if ((err = put_rows(d, d->ll, 0, in, pitch, lp, lh[lf])) < 0 ||
            (err = transform_as(d, ll, (int64_t)lp, lw[lf], lh[lf], levels - lf, 1, method_for(d, llb, usable), 2)) < 0)
            return keep_done(d, err);
        if ((err = rv_context_sync(d->ctx)) < 0)
            return keep_done(d, rvfail(d, err, "sync"));
        /* their scratch would count beside the stripes' sets */
        rv_buffer_destroy(&d->tmp);
        rv_buffer_destroy(&d->halo);
    } else if (lf < levels) {
        if ((err = host_whole(d, in, out, pitch, lw[lf], lh[lf], levels - lf, 1, 2, usable)) < 0)
            return err;
    }
    for (int l = lf - 1; l >= 0; l--) {
        const int kept = l == lf - 1 && ll;
        /* the stripes read in itself when out does not overwrite it and its LL part is
         * final: kept on the device, or no deeper level */
        const int direct = in != out && (kept || (l == lf - 1 && lf == levels));
        unsigned char *copy = NULL;
        if (!direct) {
            /* level l's coefficients: the detail bands from in, its LL (done) from out (or,
             * kept, from the device); a copy too when out overwrites in while it is read */
            if (!(copy = region_copy(d, in, pitch, lw[l], lh[l])))
                return keep_done(d, RV_ENOMEM);
            if (!kept)
                copy_rows(copy, (size_t)lw[l] * 4, out, pitch, (size_t)lw[l + 1] * 4, lh[l + 1]);
        }
        err = host_level(d, copy ? copy : in, copy ? (size_t)lw[l] * 4 : pitch, out, pitch, lw[l], lh[l], 1,
                         kept ? ll_use : su, kept ? ll : 0, lw[l + 1], NULL);
        free(copy);
        if (kept) /* the levels above have the whole limit */
            err = keep_done(d, err);
        if (err < 0)
            return keep_done(d, err);
    }
    return keep_done(d, 0);
}

RV_API int rv_dwt_forward_host(RV_Dwt *d, const void *in, void *out, int w, int h, size_t pitch, int levels)
{
    return host_transform(d, in, out, w, h, pitch, levels, 0);
}

RV_API int rv_dwt_inverse_host(RV_Dwt *d, const void *in, void *out, int w, int h, size_t pitch, int levels)
{
    return host_transform(d, in, out, w, h, pitch, levels, 1);
}

/* ---------------------------------------------------------------- */
/* Denoising                                                          */
/* ---------------------------------------------------------------- */

RV_API void rv_dwt_denoise_default(RV_DwtDenoiseParams *p)
{
    if (!p)
        return;
    p->levels = 3;
    p->threshold = 8.0f;
}

static void row_shape(const RV_Dwt *d, int w, int h, int32_t *tile_rows, RV_LaunchShape *sh)
{
    memset(sh, 0, sizeof(*sh));
    if (d->cpu) {
        *tile_rows = w >= CPU_TILE ? 1 : CPU_TILE / w;
        sh->block[0] = 1;
        sh->grid[0] = 1;
    } else {
        *tile_rows = 8;
        sh->block[0] = 256;
        sh->grid[0] = cdiv(w, 256);
    }
    sh->grid[1] = cdiv(h, *tile_rows);
}

/* Integer plane <-> float buffer (inverse: float back to the plane, rounded, clamped). */
static int convert_plane(RV_Dwt *d, uint64_t plane, int64_t ppitch, uint64_t fb, int64_t fpitch,
                         int w, int h, int sample_bytes, int inverse)
{
    dwt_conv_args c;
    RV_LaunchShape sh;
    memset(&c, 0, sizeof(c));
    c.plane = plane;
    c.buf = fb;
    c.plane_pitch = ppitch;
    c.buf_pitch = fpitch;
    c.w = w;
    c.h = h;
    c.bytes = sample_bytes;
    c.inverse = inverse;
    c.maxval = sample_bytes == 1 ? 255.0f : 65535.0f;
    row_shape(d, w, h, &c.tile_rows, &sh);
    return launch(d, d->k_conv, &sh, &c, sizeof(c), RV_DWT_KERNEL_OTHER, (4.0 + sample_bytes) * w * h);
}

RV_API int rv_dwt_denoise(RV_Dwt *d, RV_Image *frame, const RV_DwtDenoiseParams *prm)
{
    if (!d)
        return RV_EINVAL;
    if (!frame || !prm)
        return fail(d, RV_EINVAL, "frame and params are required");
    if (d->type != DWT_F32 || d->s.layout != RV_DWT_LAYOUT_BLOCK || d->s.dims != 2)
        return fail(d, RV_EINVAL, "needs f32, 2-D, block-layout settings");
    if (prm->levels < 0 || prm->levels > 32 || !(prm->threshold >= 0.0f))
        return fail(d, RV_EINVAL, "levels %d / threshold %g out of range", prm->levels,
                    (double)prm->threshold);
    if (rv_image_context(frame) != d->ctx)
        return fail(d, RV_EINVAL, "the frame belongs to another context");
    const RV_FormatInfo *fi = rv_format_info(rv_image_format(frame));
    if (!fi || (fi->elem_type != RV_ET_U8 && fi->elem_type != RV_ET_U16 && fi->elem_type != RV_ET_F32))
        return fail(d, RV_EINVAL, "%s frames have no luma plane (YUV or GRAY only)",
                    fi ? fi->name : "unknown");
    const int w = rv_image_width(frame), h = rv_image_height(frame);
    uint64_t plane;
    ptrdiff_t ppitch;
    int err = rv_image_kernel_address(frame, 0, RV_ACCESS_RW, &plane, &ppitch);
    if (err < 0)
        return rvfail(d, err, "frame address");
    uint64_t fb = plane;
    int64_t fpitch = (int64_t)ppitch;
    RV_LaunchShape sh;
    if (fi->elem_type != RV_ET_F32) {
        const size_t bytes = (size_t)w * 4 * (size_t)h;
        if ((err = buf_ensure(d, &d->fbuf, bytes, "float buffer")) < 0)
            return err;
        fb = rv_buffer_address(d->fbuf);
        fpitch = (int64_t)w * 4;
        if ((err = convert_plane(d, plane, ppitch, fb, fpitch, w, h, fi->sample_bytes, 0)) < 0)
            return err;
    }
    if ((err = transform(d, fb, fpitch, w, h, prm->levels, 0)) < 0)
        return err;
    dwt_shrink_args s;
    memset(&s, 0, sizeof(s));
    s.base = fb;
    s.pitch = fpitch;
    s.w = w;
    s.h = h;
    rv_dwt_ll_size(d, w, h, prm->levels, &s.wl, &s.hl);
    s.thr = prm->threshold;
    row_shape(d, w, h, &s.tile_rows, &sh);
    if ((err = launch(d, d->k_shrink, &sh, &s, sizeof(s), RV_DWT_KERNEL_OTHER, 8.0 * w * h)) < 0)
        return err;
    if ((err = transform(d, fb, fpitch, w, h, prm->levels, 1)) < 0)
        return err;
    if (fi->elem_type != RV_ET_F32) {
        if ((err = convert_plane(d, plane, ppitch, fb, fpitch, w, h, fi->sample_bytes, 1)) < 0)
            return err;
    }
    return 0;
}

/* rv_dwt_forward_frame / rv_dwt_inverse_frame: the checks both make; *fi gets
 * the frame's format (GRAYF32 frames are copied, not converted). */
static int frame_args(RV_Dwt *d, RV_Image *frame, RV_Image *coef, const RV_FormatInfo **fi)
{
    if (!frame || !coef)
        return fail(d, RV_EINVAL, "frame and coefficient image are required");
    if (d->type != DWT_F32 || d->s.layout != RV_DWT_LAYOUT_BLOCK || d->s.dims != 2)
        return fail(d, RV_EINVAL, "needs f32, 2-D, block-layout settings");
    if (rv_image_context(frame) != d->ctx || rv_image_context(coef) != d->ctx)
        return fail(d, RV_EINVAL, "the images belong to another context");
    *fi = rv_format_info(rv_image_format(frame));
    if (!*fi || ((*fi)->elem_type != RV_ET_U8 && (*fi)->elem_type != RV_ET_U16 && (*fi)->elem_type != RV_ET_F32))
        return fail(d, RV_EINVAL, "%s frames have no luma plane (YUV or GRAY only)", *fi ? (*fi)->name : "unknown");
    if (rv_image_format(coef) != RV_FMT_GRAYF32 || rv_image_width(coef) != rv_image_width(frame) ||
        rv_image_height(coef) != rv_image_height(frame))
        return fail(d, RV_EINVAL, "the coefficients must be a GRAYF32 image of the luma's size %dx%d",
                    rv_image_width(frame), rv_image_height(frame));
    if (frame == coef)
        return fail(d, RV_EINVAL, "the frame and the coefficients must be two images");
    return 0;
}

/* Plane 0 of the frame into the coefficients as floats (inverse: back,
 * rounded and clamped; GRAYF32 frames are copied). The frame is written RW,
 * not WRITE: its other planes (chroma) must stay valid where the kernel
 * writes plane 0. */
static int frame_convert(RV_Dwt *d, RV_Image *frame, RV_Image *coef, const RV_FormatInfo *fi, int inverse)
{
    int err;
    if (fi->elem_type == RV_ET_F32) {
        if ((err = inverse ? rv_image_copy(frame, coef) : rv_image_copy(coef, frame)) < 0)
            return rvfail(d, err, inverse ? "copy into the frame" : "copy of the frame");
        return 0;
    }
    uint64_t plane = 0, fb = 0;
    ptrdiff_t pp = 0, fp = 0;
    if ((err = rv_image_kernel_address(frame, 0, inverse ? RV_ACCESS_RW : RV_ACCESS_READ, &plane, &pp)) < 0 ||
        (err = rv_image_kernel_address(coef, 0, inverse ? RV_ACCESS_READ : RV_ACCESS_WRITE, &fb, &fp)) < 0)
        return rvfail(d, err, "image address");
    return convert_plane(d, plane, pp, fb, fp, rv_image_width(frame), rv_image_height(frame), fi->sample_bytes,
                         inverse);
}

RV_API int rv_dwt_forward_frame(RV_Dwt *d, RV_Image *frame, RV_Image *coef, int levels)
{
    if (!d)
        return RV_EINVAL;
    const RV_FormatInfo *fi = NULL;
    int err = frame_args(d, frame, coef, &fi);
    if (err < 0 || (err = frame_convert(d, frame, coef, fi, 0)) < 0)
        return err;
    return image_transform(d, coef, levels, 0);
}

RV_API int rv_dwt_inverse_frame(RV_Dwt *d, RV_Image *coef, RV_Image *frame, int levels)
{
    if (!d)
        return RV_EINVAL;
    const RV_FormatInfo *fi = NULL;
    int err = frame_args(d, frame, coef, &fi);
    if (err < 0 || (err = image_transform(d, coef, levels, 1)) < 0)
        return err;
    return frame_convert(d, frame, coef, fi, 1);
}
