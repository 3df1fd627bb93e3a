/*
 * stages.c - ravioli-run's built-in stage table and user-kernel stages.
 *
 * Built-in stages run the thesis' sample kernels (module "samples") on RGBA
 * frames, and 8-bit-plane kernels (module "rvrun", rvrun_kernels.c) on the
 * luma of planar YUV / grey frames, whose chroma is then made neutral.
 * The conversion stages rgba / yuv420 / yuv444 run module "yuyv"'s kernels
 * (BT.601, docs/video.md) into scratch images that become the frame; they
 * also take the camera's packed YUYV frames (env->in_packed), which every
 * other stage refuses with RV_ENOSYS so that main.c can insert a conversion.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rv_cli.h"
#include "rvrun_params.h"
#include "samples_params.h"
#include "stages.h"
#include "yuyv_params.h"

#include <ravioli/deband.h>
#include <ravioli/dwt.h>

/* ---------------------------------------------------------------- */
/* Helpers                                                            */
/* ---------------------------------------------------------------- */

typedef enum fmt_class { FC_OTHER, FC_RGBA8, FC_U8, FC_U16 } fmt_class;

static fmt_class classify(RV_Format f)
{
    switch (f) {
    case RV_FMT_RGBA8: return FC_RGBA8;
    case RV_FMT_GRAY8:
    case RV_FMT_YUV420P8:
    case RV_FMT_YUV444P8: return FC_U8;
    case RV_FMT_GRAY16:
    case RV_FMT_YUV420P16:
    case RV_FMT_YUV444P16: return FC_U16;
    default: return FC_OTHER;
    }
}

static int load(run_env *env, RV_Module **m, const char *name)
{
    if (*m)
        return 0;
    int err = rv_module_load(env->ctx, name, m);
    if (err < 0)
        snprintf(env->err, sizeof(env->err), "cannot load module '%s': %s", name, rv_context_error(env->ctx));
    return err;
}

static int kernel(run_env *env, RV_Module **m, const char *mod, const char *name, const RV_Kernel **k)
{
    int err = load(env, m, mod);
    if (err < 0)
        return err;
    err = rv_kernel_get(*m, name, k);
    if (err < 0)
        snprintf(env->err, sizeof(env->err), "module '%s' has no kernel '%s'", mod, name);
    return err;
}

static int unsupported(run_stage *s, run_env *env, RV_Format fmt)
{
    const RV_FormatInfo *fi = rv_format_info(fmt);
    (void)s; /* the caller names the stage */
    snprintf(env->err, sizeof(env->err), "does not take %s frames", fi ? fi->name : "unknown");
    return RV_ENOSYS;
}

/* Planar frames with chroma get neutral chroma after a luma-only kernel. */
static int want_fill(run_stage *s, run_env *env, RV_Format fmt)
{
    const RV_FormatInfo *fi = rv_format_info(fmt);
    if (fi && fi->planes > 1)
        return kernel(env, &env->rvrun, "rvrun", "fill8", &s->fill);
    return 0;
}

static void set_threshold(run_stage *s, int v)
{
    s->ints[0] = v;
    s->prm = s->ints;
    s->prm_size = sizeof(rv_threshold_params);
}

/* ---------------------------------------------------------------- */
/* Built-in stages                                                    */
/* ---------------------------------------------------------------- */

static int prep_gray(run_stage *s, run_env *env, RV_Format fmt)
{
    switch (classify(fmt)) {
    case FC_RGBA8:
        s->op = RUN_OP_PIX;
        return kernel(env, &env->samples, "samples", "gray", &s->k);
    case FC_U8:
        return want_fill(s, env, fmt); /* luma is already the grey image */
    default:
        return unsupported(s, env, fmt);
    }
}

static int prep_binarize(run_stage *s, run_env *env, RV_Format fmt)
{
    set_threshold(s, s->val[0]);
    switch (classify(fmt)) {
    case FC_RGBA8:
        s->op = RUN_OP_PIX;
        return kernel(env, &env->samples, "samples", "binarize", &s->k);
    case FC_U8:
        s->op = RUN_OP_PIX;
        if (kernel(env, &env->rvrun, "rvrun", "binarize8", &s->k) < 0)
            return RV_ENOENT;
        return want_fill(s, env, fmt);
    default:
        return unsupported(s, env, fmt);
    }
}

static int prep_edge(run_stage *s, run_env *env, RV_Format fmt)
{
    set_threshold(s, s->val[0]);
    s->op = RUN_OP_NBR;
    switch (classify(fmt)) {
    case FC_RGBA8:
        return kernel(env, &env->samples, "samples", "edge", &s->k);
    case FC_U8:
        if (kernel(env, &env->rvrun, "rvrun", "edge8", &s->k) < 0)
            return RV_ENOENT;
        return want_fill(s, env, fmt);
    default:
        return unsupported(s, env, fmt);
    }
}

static int prep_emboss(run_stage *s, run_env *env, RV_Format fmt)
{
    s->op = RUN_OP_NBR;
    switch (classify(fmt)) {
    case FC_RGBA8:
        return kernel(env, &env->samples, "samples", "emboss", &s->k);
    case FC_U8:
        if (kernel(env, &env->rvrun, "rvrun", "emboss8", &s->k) < 0)
            return RV_ENOENT;
        return want_fill(s, env, fmt);
    default:
        return unsupported(s, env, fmt);
    }
}

static int prep_invert(run_stage *s, run_env *env, RV_Format fmt)
{
    s->op = RUN_OP_PIX;
    switch (classify(fmt)) {
    case FC_RGBA8: return kernel(env, &env->rvrun, "rvrun", "invert", &s->k);
    case FC_U8:    return kernel(env, &env->samples, "samples", "invert8", &s->k);
    case FC_U16:   return kernel(env, &env->samples, "samples", "invert16", &s->k);
    default:       return unsupported(s, env, fmt);
    }
}

/* ---- denoise: DWT soft-thresholding of the luma (modules/dwt) ---- */

/* An RV_Dwt owns device scratch (the float plane, halo buffers): frames in
 * flight on different CUDA streams must not share one, so the stage keeps
 * one per frame-in-flight slot (rv_data_slot), created on first use. */
typedef struct dwt_slots {
    RV_DwtSettings ds;
    RV_Dwt *d[RV_MAX_FRAMES_IN_FLIGHT];
} dwt_slots;

static void free_dwt(void **obj)
{
    dwt_slots *ds = *obj;
    if (ds)
        for (int i = 0; i < RV_MAX_FRAMES_IN_FLIGHT; i++)
            rv_dwt_destroy(&ds->d[i]);
    free(ds);
    *obj = NULL;
}

/* The stage's dwt_slots (denoise, dwt, idwt), slot 0 made now so that a
 * settings or module error shows before the run; `wavelet` is the stages'
 * parameter (0 Haar, 1 CDF 5/3, 2 CDF 9/7, 3 DD(13,7)). */
static int prep_dwt_slots(run_stage *s, run_env *env, int wavelet)
{
    static const RV_DwtWavelet wavelets[] = {RV_DWT_HAAR, RV_DWT_CDF53, RV_DWT_CDF97, RV_DWT_DD137};
    dwt_slots *ds = calloc(1, sizeof(*ds));
    if (!ds) {
        snprintf(env->err, sizeof(env->err), "out of memory");
        return RV_ENOMEM;
    }
    rv_dwt_settings_default(&ds->ds);
    ds->ds.wavelet = wavelets[wavelet];
    s->obj = ds;
    s->obj_free = free_dwt;
    int err = rv_dwt_create(env->ctx, &ds->ds, &ds->d[0]);
    if (err < 0) {
        /* refused settings: their reason; else the module's, on the context */
        if (rv_dwt_settings_check_for(env->ctx, &ds->ds, env->err, sizeof(env->err)) == 0)
            snprintf(env->err, sizeof(env->err), "%s", rv_context_error(env->ctx));
        return err;
    }
    return 0;
}

/* The frame's slot's RV_Dwt (made on first use), or NULL after failing d. */
static RV_Dwt *dwt_of(run_stage *s, RV_Data *d)
{
    dwt_slots *ds = s->obj;
    const int slot = rv_data_slot(d);
    if (slot < 0 || slot >= RV_MAX_FRAMES_IN_FLIGHT) {
        rv_data_fail(d, RV_EINVAL, "frame slot %d out of range", slot); /* the stream names the stage */
        return NULL;
    }
    int err = 0;
    if (!ds->d[slot] && (err = rv_dwt_create(rv_data_context(d), &ds->ds, &ds->d[slot])) < 0) {
        rv_data_fail(d, err, "%s", rv_context_error(rv_data_context(d)));
        return NULL;
    }
    return ds->d[slot];
}

static int prep_denoise(run_stage *s, run_env *env, RV_Format fmt)
{
    if (classify(fmt) != FC_U8 && classify(fmt) != FC_U16 && fmt != RV_FMT_GRAYF32)
        return unsupported(s, env, fmt);
    return prep_dwt_slots(s, env, s->val[2]);
}

static void run_denoise(RV_Image *frame, RV_Data *d)
{
    run_stage *s = rv_data_user(d);
    RV_Dwt *dwt = dwt_of(s, d);
    if (!dwt)
        return;
    RV_DwtDenoiseParams p;
    rv_dwt_denoise_default(&p);
    p.threshold = (float)s->val[0];
    p.levels = s->val[1];
    const int err = rv_dwt_denoise(dwt, frame, &p);
    if (err < 0)
        rv_data_fail(d, err, "%s", rv_dwt_error(dwt)); /* the stream names the stage */
}

/* ---- dwt / idwt: the luma to coefficients (grayf32, block layout) and back ---- */

static int prep_dwt(run_stage *s, run_env *env, RV_Format fmt)
{
    if (classify(fmt) != FC_U8 && classify(fmt) != FC_U16 && fmt != RV_FMT_GRAYF32)
        return unsupported(s, env, fmt);
    snprintf(s->scratch[0], sizeof(s->scratch[0]), "dw%lx", (unsigned long)(uintptr_t)s & 0xffffffu);
    s->out_fmt = RV_FMT_GRAYF32; /* the luma's size: the frame's */
    return prep_dwt_slots(s, env, s->val[1]);
}

/* The coefficients go to a scratch image of the stage vector, which becomes
 * the frame for the following stages and the output. */
static void run_dwt(RV_Image *frame, RV_Data *d)
{
    run_stage *s = rv_data_user(d);
    RV_Dwt *dwt = dwt_of(s, d);
    RV_Image *coef = NULL;
    if (!dwt || rv_data_check(d, rv_data_image(d, s->scratch[0], rv_image_width(frame), rv_image_height(frame),
                                               RV_FMT_GRAYF32, &coef)) < 0)
        return;
    const int err = rv_dwt_forward_frame(dwt, frame, coef, s->val[0]);
    if (err < 0) {
        rv_data_fail(d, err, "%s", rv_dwt_error(dwt));
        return;
    }
    rv_data_check(d, rv_data_set_frame(d, coef));
}

static int prep_idwt(run_stage *s, run_env *env, RV_Format fmt)
{
    if (fmt != RV_FMT_GRAYF32) {
        const RV_FormatInfo *fi = rv_format_info(fmt);
        snprintf(env->err, sizeof(env->err), "takes grayf32 frames (DWT coefficients: a PFM, or --stage dwt), not %s",
                 fi ? fi->name : "unknown");
        return RV_ENOSYS;
    }
    const int depth = s->val[2];
    if (depth != 8 && depth != 16 && depth != 32) {
        snprintf(env->err, sizeof(env->err), "depth must be 8, 16 or 32 (got %d)", depth);
        return RV_EINVAL;
    }
    snprintf(s->scratch[0], sizeof(s->scratch[0]), "iw%lx", (unsigned long)(uintptr_t)s & 0xffffffu);
    s->out_fmt = depth == 8 ? RV_FMT_GRAY8 : depth == 16 ? RV_FMT_GRAY16 : RV_FMT_GRAYF32;
    return prep_dwt_slots(s, env, s->val[1]);
}

/* Inverts the coefficients in place; depth 8 / 16: rounded and clamped into a
 * scratch image, which becomes the frame. */
static void run_idwt(RV_Image *frame, RV_Data *d)
{
    run_stage *s = rv_data_user(d);
    RV_Dwt *dwt = dwt_of(s, d);
    if (!dwt)
        return;
    int err;
    if (s->out_fmt == RV_FMT_GRAYF32) {
        if ((err = rv_dwt_inverse(dwt, frame, s->val[0])) < 0)
            rv_data_fail(d, err, "%s", rv_dwt_error(dwt));
        return;
    }
    RV_Image *out = NULL;
    if (rv_data_check(d, rv_data_image(d, s->scratch[0], rv_image_width(frame), rv_image_height(frame), s->out_fmt,
                                       &out)) < 0)
        return;
    if ((err = rv_dwt_inverse_frame(dwt, frame, out, s->val[0])) < 0) {
        rv_data_fail(d, err, "%s", rv_dwt_error(dwt));
        return;
    }
    rv_data_check(d, rv_data_set_frame(d, out));
}

/* ---- deband: banding reduction (modules/deband), f3kdb parameters ---- */

static void free_deband(void **obj)
{
    RV_Deband *db = *obj;
    rv_deband_destroy(&db);
    *obj = NULL;
}

static int prep_deband(run_stage *s, run_env *env, RV_Format fmt)
{
    if (classify(fmt) != FC_U8 && classify(fmt) != FC_U16)
        return unsupported(s, env, fmt);
    RV_Deband *db = NULL;
    int err = rv_deband_create(env->ctx, &db);
    if (err < 0) {
        snprintf(env->err, sizeof(env->err), "%s", rv_context_error(env->ctx));
        return err;
    }
    RV_DebandSettings ds;
    rv_deband_settings_default(&ds);
    ds.range = s->val[0];
    ds.y = s->val[1];
    ds.cb = ds.cr = s->val[2];
    ds.grainy = s->val[3];
    ds.grainc = s->val[4];
    ds.sample_mode = s->val[5];
    ds.blur_first = s->val[6];
    ds.dynamic_grain = s->val[7];
    ds.output_depth = 0; /* frames keep their format through the chain */
    if ((err = rv_deband_configure(db, &ds)) < 0) {
        snprintf(env->err, sizeof(env->err), "%s", rv_deband_error(db));
        rv_deband_destroy(&db);
        return err;
    }
    s->obj = db;
    s->obj_free = free_deband;
    return 0;
}

/* Deband cannot work in place: it writes a scratch image of the stage vector,
 * which then becomes the frame for the following stages and the output. */
static void run_deband(RV_Image *frame, RV_Data *d)
{
    run_stage *s = rv_data_user(d);
    RV_Image *out = NULL;
    int err = rv_data_image(d, "deband", rv_image_width(frame), rv_image_height(frame),
                            rv_image_format(frame), &out);
    if (rv_data_check(d, err) < 0)
        return;
    rv_image_set_stride(out, rv_image_stride(frame));
    err = rv_deband_apply(s->obj, out, frame, rv_data_frame(d)->index);
    if (err < 0) {
        rv_data_fail(d, err, "%s", rv_deband_error(s->obj)); /* the stream names the stage */
        return;
    }
    rv_data_check(d, rv_data_set_frame(d, out));
}

/* ---- format conversions (modules/yuyv kernels; docs/video.md) ---- */

static int conv_step(run_stage *s, run_env *env, const char *kname, RV_Format out, int pairs, int rows)
{
    const RV_Kernel *k = NULL;
    int err = kernel(env, &env->yuyv, "yuyv", kname, &k);
    if (err < 0)
        return err;
    s->conv[s->nconv] = k;
    s->conv_fmt[s->nconv] = (int)out;
    s->conv_pairs[s->nconv] = pairs;
    s->conv_rows[s->nconv] = rows;
    s->nconv++;
    return 0;
}

static int prep_convert(run_stage *s, run_env *env, RV_Format fmt, RV_Format target)
{
    const int packed = env->in_packed;
    int err = 0;
    s->nconv = 0;
    if (packed && fmt != RV_FMT_RGBA8)
        return unsupported(s, env, fmt);
    if (packed) {
        switch (target) {
        case RV_FMT_RGBA8: err = conv_step(s, env, "yuyv_rgba", RV_FMT_RGBA8, 1, 0); break;
        case RV_FMT_YUV420P8: err = conv_step(s, env, "yuyv_yuv420", RV_FMT_YUV420P8, 0, 1); break;
        default:
            if ((err = conv_step(s, env, "yuyv_rgba", RV_FMT_RGBA8, 1, 0)) == 0)
                err = conv_step(s, env, "rgba_yuv444", RV_FMT_YUV444P8, 0, 0);
            break;
        }
    } else if (fmt == target) {
        /* nothing to do: the stage passes the frame on */
    } else if (fmt == RV_FMT_RGBA8) {
        err = target == RV_FMT_YUV420P8 ? conv_step(s, env, "rgba_yuv420", target, 0, 1)
                                        : conv_step(s, env, "rgba_yuv444", target, 0, 0);
    } else if (fmt == RV_FMT_YUV420P8 || fmt == RV_FMT_YUV444P8) {
        err = conv_step(s, env, fmt == RV_FMT_YUV420P8 ? "yuv420_rgba" : "yuv444_rgba", RV_FMT_RGBA8, 0, 0);
        if (err == 0 && target != RV_FMT_RGBA8) /* 4:2:0 <-> 4:4:4 through RGBA8 */
            err = target == RV_FMT_YUV420P8 ? conv_step(s, env, "rgba_yuv420", target, 0, 1)
                                            : conv_step(s, env, "rgba_yuv444", target, 0, 0);
    } else {
        const RV_FormatInfo *fi = rv_format_info(fmt);
        snprintf(env->err, sizeof(env->err),
                 "takes RGBA8, packed YUYV, yuv420p8 and yuv444p8 frames, not %s", fi ? fi->name : "unknown");
        return RV_ENOSYS;
    }
    if (err < 0)
        return err;
    s->out_fmt = target;
    s->out_packed = 0;
    return 0;
}

static int prep_to_rgba(run_stage *s, run_env *env, RV_Format fmt) { return prep_convert(s, env, fmt, RV_FMT_RGBA8); }
static int prep_to_yuv420(run_stage *s, run_env *env, RV_Format fmt)
{
    return prep_convert(s, env, fmt, RV_FMT_YUV420P8);
}
static int prep_to_yuv444(run_stage *s, run_env *env, RV_Format fmt)
{
    return prep_convert(s, env, fmt, RV_FMT_YUV444P8);
}

static int conv_launch(const run_stage *s, int i, RV_Image *src, RV_Image *dst)
{
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.grid[0] = 1;
    sh.block[0] = 256;
    ptrdiff_t sp = 0, dp = 0;
    int err;
    if (s->conv_pairs[i]) {
        rv_yuyv_args a;
        memset(&a, 0, sizeof(a));
        if ((err = rv_image_kernel_address(src, 0, RV_ACCESS_READ, &a.src, &sp)) < 0 ||
            (err = rv_image_kernel_address(dst, 0, RV_ACCESS_WRITE, &a.dst, &dp)) < 0)
            return err;
        a.src_pitch = sp;
        a.dst_pitch = dp;
        a.pairs = rv_image_width(src);
        a.h = rv_image_height(src);
        sh.grid[1] = (unsigned)a.h;
        return rv_launch_raw(s->conv[i], &sh, &a, sizeof(a));
    }
    rv_yuv_args a;
    memset(&a, 0, sizeof(a));
    for (int p = 0; p < rv_image_planes(src); p++) {
        if ((err = rv_image_kernel_address(src, p, RV_ACCESS_READ, &a.src[p], &sp)) < 0)
            return err;
        a.src_pitch[p] = sp;
    }
    for (int p = 0; p < rv_image_planes(dst); p++) {
        if ((err = rv_image_kernel_address(dst, p, RV_ACCESS_WRITE, &a.dst[p], &dp)) < 0)
            return err;
        a.dst_pitch[p] = dp;
    }
    a.w = s->out_w;
    a.h = s->out_h;
    sh.grid[1] = (unsigned)(s->conv_rows[i] ? (a.h + 1) / 2 : a.h);
    return rv_launch_raw(s->conv[i], &sh, &a, sizeof(a));
}

/* Each step writes a scratch image of the stage vector; the last one becomes
 * the frame for the following stages and the output. */
static void run_convert(RV_Image *frame, RV_Data *d)
{
    run_stage *s = rv_data_user(d);
    RV_Image *src = frame;
    for (int i = 0; i < s->nconv; i++) {
        RV_Image *dst = NULL;
        if (rv_data_check(d, rv_data_image(d, s->scratch[i], s->out_w, s->out_h, (RV_Format)s->conv_fmt[i], &dst)) <
            0)
            return;
        rv_image_set_stride(dst, rv_image_stride(frame));
        if (rv_data_check(d, conv_launch(s, i, src, dst)) < 0)
            return;
        src = dst;
    }
    if (src != frame)
        rv_data_check(d, rv_data_set_frame(d, src));
}

void run_stage_release(run_stage *s)
{
    if (s->obj && s->obj_free)
        s->obj_free(&s->obj);
    s->obj = NULL;
}

const run_stage_def run_stage_table[] = {
    {"gray", "grey scale: RGB average (RGBA); neutral chroma (YUV)", {{NULL, 0, 0, 0, NULL}}, prep_gray, NULL, 0},
    {"binarize", "white where the grey level >= threshold, else black",
     {{"threshold", 128, 0, 256, "grey level (0..256)"}, {NULL, 0, 0, 0, NULL}}, prep_binarize, NULL, 0},
    {"edge", "Sobel |gx|+|gy| of the grey level (procNbr)",
     {{"threshold", 0, 0, 2040, "0: magnitude clamped to 255; >0: binary edges"}, {NULL, 0, 0, 0, NULL}},
     prep_edge, NULL, 0},
    {"emboss", "3x3 emboss filter (procNbr)", {{NULL, 0, 0, 0, NULL}}, prep_emboss, NULL, 0},
    {"invert", "negative image", {{NULL, 0, 0, 0, NULL}}, prep_invert, NULL, 0},
    {"denoise", "wavelet denoising of the luma (YUV/grey frames; DWT module)",
     {{"threshold", 8, 0, 65535, "soft threshold on detail coefficients, in sample units"},
      {"levels", 3, 1, 8, "decomposition levels"},
      {"wavelet", 2, 0, 3, "0 Haar, 1 CDF 5/3, 2 CDF 9/7, 3 Deslauriers-Dubuc (13,7)"},
      {NULL, 0, 0, 0, NULL}},
     prep_denoise, run_denoise, 0},
    {"dwt", "the luma's 2-D wavelet transform: grayf32 coefficients, block layout (DWT module)",
     {{"levels", 3, 0, 32, "decomposition levels"},
      {"wavelet", 2, 0, 3, "0 Haar, 1 CDF 5/3, 2 CDF 9/7, 3 Deslauriers-Dubuc (13,7)"},
      {NULL, 0, 0, 0, NULL}},
     prep_dwt, run_dwt, 0},
    {"idwt", "the inverse of dwt: grayf32 coefficients back to a grey image (DWT module)",
     {{"levels", 3, 0, 32, "decomposition levels (as the forward's)"},
      {"wavelet", 2, 0, 3, "as the forward's"},
      {"depth", 8, 8, 32, "8: gray8, 16: gray16 (rounded, clamped), 32: grayf32"},
      {NULL, 0, 0, 0, NULL}},
     prep_idwt, run_idwt, 0},
    {"deband", "banding reduction, f3kdb family (YUV/grey frames; deband module)",
     {{"range", 15, 0, 255, "reference offsets within +-range samples"},
      {"y", 64, 0, 4095, "luma threshold (1/16 of an 8-bit code)"},
      {"c", 64, 0, 4095, "chroma threshold (1/16 of an 8-bit code)"},
      {"grainy", 64, 0, 4095, "luma dither (1/64 of an 8-bit code)"},
      {"grainc", 64, 0, 4095, "chroma dither (1/64 of an 8-bit code)"},
      {"mode", 2, 0, 2, "sample mode: 0 one, 1 two, 2 four references"},
      {"blur", 1, 0, 1, "1: compare with the references' average"},
      {"dynamic", 0, 0, 1, "1: new noise every frame"}},
     prep_deband, run_deband, 0},
    {"rgba", "convert to RGBA8 (from packed YUYV, yuv420p8, yuv444p8)", {{NULL, 0, 0, 0, NULL}},
     prep_to_rgba, run_convert, 1},
    {"yuv420", "convert to planar YUV 4:2:0, 8 bit (from RGBA8, packed YUYV, yuv444p8)",
     {{NULL, 0, 0, 0, NULL}}, prep_to_yuv420, run_convert, 1},
    {"yuv444", "convert to planar YUV 4:4:4, 8 bit (from RGBA8, packed YUYV, yuv420p8)",
     {{NULL, 0, 0, 0, NULL}}, prep_to_yuv444, run_convert, 1},
    {NULL, NULL, {{NULL, 0, 0, 0, NULL}}, NULL, NULL, 0},
};

static const run_stage_def *find_def(const char *name, size_t len)
{
    for (const run_stage_def *d = run_stage_table; d->name; d++)
        if (strlen(d->name) == len && strncmp(d->name, name, len) == 0)
            return d;
    return NULL;
}

/* ---------------------------------------------------------------- */
/* The generic runner                                                 */
/* ---------------------------------------------------------------- */

static int fill_plane(const RV_Kernel *k, RV_Image *img, int plane, int value)
{
    uint64_t addr = 0;
    ptrdiff_t pitch = 0;
    int err = rv_image_kernel_address(img, plane, RV_ACCESS_WRITE, &addr, &pitch);
    if (err < 0)
        return err;
    rvrun_fill_args a;
    memset(&a, 0, sizeof(a));
    a.data = addr;
    a.pitch = (int64_t)pitch;
    a.w = rv_image_plane_width(img, plane);
    a.h = rv_image_plane_height(img, plane);
    a.value = value;
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.grid[0] = 1;
    sh.grid[1] = (unsigned)a.h;
    sh.block[0] = 128;
    return rv_launch_raw(k, &sh, &a, sizeof(a));
}

static void run_generic(RV_Image *frame, RV_Data *d)
{
    run_stage *s = rv_data_user(d);
    if (s->k) {
        int err = s->op == RUN_OP_NBR ? rv_proc_nbr(s->k, frame, frame, s->prm, s->prm_size)
                                      : rv_proc_pix(s->k, frame, frame, s->prm, s->prm_size);
        if (rv_data_check(d, err) < 0)
            return;
    }
    if (s->fill)
        for (int p = 1; p < rv_image_planes(frame); p++)
            if (rv_data_check(d, fill_plane(s->fill, frame, p, 128)) < 0)
                return;
}

RV_StageFn run_stage_fn(const run_stage *s)
{
    return s->def && s->def->fn ? s->def->fn : run_generic;
}

/* ---------------------------------------------------------------- */
/* Parsing                                                            */
/* ---------------------------------------------------------------- */

static int parse_int(const char *s, size_t len, int *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof(buf))
        return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    long v;
    /* decimal (a leading 0 is not octal), or hexadecimal after 0x */
    if (rv_cli_parse_long(buf, &v) < 0 || v < -2147483647L || v > 2147483647L)
        return -1;
    *out = (int)v;
    return 0;
}

/* "key=value,key=value" or "value,value" for def's parameters. */
static int parse_builtin_args(const run_stage_def *def, const char *args, int *val, char *err, size_t errsz)
{
    int np = 0;
    while (np < RUN_MAX_PARAMS && def->params[np].name)
        np++;
    for (int i = 0; i < np; i++)
        val[i] = def->params[i].def;
    int pos = 0, given[RUN_MAX_PARAMS] = {0};
    const char *p = args;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0 || (end && !end[1])) {
            snprintf(err, errsz, "stage '%s': empty parameter in '%s' (a ',' too many)", def->name, args);
            return -1;
        }
        const char *eq = memchr(p, '=', len);
        int idx = -1;
        const char *vs = p;
        size_t vlen = len;
        if (eq) {
            for (int i = 0; i < np; i++)
                if (strlen(def->params[i].name) == (size_t)(eq - p) &&
                    strncmp(def->params[i].name, p, (size_t)(eq - p)) == 0)
                    idx = i;
            if (idx < 0) {
                snprintf(err, errsz, "stage '%s' has no parameter '%.*s'", def->name, (int)(eq - p), p);
                return -1;
            }
            vs = eq + 1;
            vlen = len - (size_t)(eq - p) - 1;
        } else {
            idx = pos++;
            if (idx >= np) {
                snprintf(err, errsz, "stage '%s' takes %d parameter%s", def->name, np, np == 1 ? "" : "s");
                return -1;
            }
        }
        int v;
        const run_param *rp = &def->params[idx];
        if (given[idx]++) {
            snprintf(err, errsz, "stage '%s': %s given twice", def->name, rp->name);
            return -1;
        }
        if (parse_int(vs, vlen, &v) < 0 || v < rp->min || v > rp->max) {
            snprintf(err, errsz, "stage '%s': %s must be an integer in %d..%d (got '%.*s')", def->name,
                     rp->name, rp->min, rp->max, (int)vlen, vs);
            return -1;
        }
        val[idx] = v;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

int run_stage_parse(const char *spec, int module, run_stage *s, char *err, size_t errsz)
{
    memset(s, 0, sizeof(*s));
    s->module = module;
    snprintf(s->label, sizeof(s->label), "%s", spec);
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    const char *args = colon ? colon + 1 : "";
    if (nlen == 0 || nlen >= sizeof(s->kernel)) {
        snprintf(err, errsz, "bad stage '%s'", spec);
        return -1;
    }
    memcpy(s->kernel, spec, nlen);
    s->kernel[nlen] = 0;
    if (module >= 0) {
        /* A user kernel: its parameter block is a list of int32 values. */
        const char *p = args;
        while (*p) {
            const char *end = strchr(p, ',');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            if (s->nints == RUN_MAX_USER_INTS || parse_int(p, len, &s->ints[s->nints]) < 0) {
                if (!find_def(spec, nlen)) {
                    snprintf(err, errsz, "stage '%s': kernel parameters are up to %d integers", spec,
                             RUN_MAX_USER_INTS);
                    return -1;
                }
                s->nints = -1; /* not a user-kernel spec; a built-in may still take it */
                break;
            }
            s->nints++;
            p = end ? end + 1 : "";
        }
    }
    s->def = find_def(spec, nlen);
    if (!s->def) {
        if (module >= 0)
            return 0; /* resolved in the module at prepare time */
        snprintf(err, errsz, "unknown stage '%s' (see --list-stages; user kernels need --module first)", s->kernel);
        return -1;
    }
    if (parse_builtin_args(s->def, args, s->val, err, errsz) < 0) {
        if (module >= 0 && s->nints >= 0) {
            s->def = NULL; /* maybe the module's kernel of that name */
            return 0;
        }
        return -1;
    }
    return 0;
}

/* Probes whether a user kernel is procPix or procNbr on a tiny image of the
 * frame format (the library checks the kernel's declared operation). */
static int prepare_user(run_stage *s, run_env *env, RV_Format fmt, const RV_Kernel *k)
{
    s->k = k;
    s->prm = s->nints > 0 ? s->ints : NULL;
    s->prm_size = s->nints > 0 ? (size_t)s->nints * sizeof(int32_t) : 0;
    RV_Image *probe = NULL;
    int err = rv_image_create(env->ctx, 4, 4, fmt, &probe);
    if (err < 0)
        return err;
    env->quiet = 1;
    int e1 = rv_proc_pix(k, probe, probe, s->prm, s->prm_size);
    char m1[256], m2[256] = "";
    snprintf(m1, sizeof(m1), "%s", rv_context_error(env->ctx));
    int e2 = e1 < 0 ? rv_proc_nbr(k, probe, probe, s->prm, s->prm_size) : 0;
    if (e2 < 0)
        snprintf(m2, sizeof(m2), "%s", rv_context_error(env->ctx));
    env->quiet = 0;
    rv_image_destroy(&probe);
    if (e1 == 0) {
        s->op = RUN_OP_PIX;
        return 0;
    }
    if (e2 == 0) {
        s->op = RUN_OP_NBR;
        return 0;
    }
    /* The reason from the call of the kernel's own kind (procPix or procNbr),
     * without the library function's name. */
    const char *why = strstr(m1, "is a procNbr kernel") ? m2 : m1;
    if (!strncmp(why, "rv_proc_pix: ", 13) || !strncmp(why, "rv_proc_nbr: ", 13))
        why = why + 13;
    const RV_FormatInfo *fi = rv_format_info(fmt);
    const char *fname = fi ? fi->name : "these";
    const char *mod = env->user_name[s->module] ? env->user_name[s->module] : "?";
    if (find_def(s->kernel, strlen(s->kernel)))
        snprintf(env->err, sizeof(env->err),
                 "'%s' is the kernel '%s' of module %.100s here (after --module, a module's kernels "
                 "come before the built-in stages), and it cannot run on %s frames (%.200s). For the "
                 "built-in stage '%s', give --stage %s before --module %.100s",
                 s->kernel, s->kernel, mod, fname, why, s->kernel, s->label, mod);
    else
        snprintf(env->err, sizeof(env->err), "kernel '%s' of module %.100s cannot run on %s frames (%.200s)",
                 s->kernel, mod, fname, why);
    return e2;
}

int run_stage_prepare(run_stage *s, run_env *env, RV_Format fmt)
{
    env->err[0] = 0;
    s->out_fmt = fmt;
    s->out_packed = env->in_packed;
    s->out_w = env->in_w;
    s->out_h = env->in_h;
    if (env->in_packed && !(s->def && s->def->conversion && !(s->module >= 0 && s->nints >= 0))) {
        snprintf(env->err, sizeof(env->err),
                 "cannot take packed YUYV camera frames (--raw-yuyv); convert them first "
                 "with --stage rgba or --stage yuv420");
        return RV_ENOSYS;
    }
    if (s->def && s->def->conversion) { /* scratch image names unique to this stage */
        snprintf(s->scratch[0], sizeof(s->scratch[0]), "cv%lx.a", (unsigned long)(uintptr_t)s & 0xffffffu);
        snprintf(s->scratch[1], sizeof(s->scratch[1]), "cv%lx.b", (unsigned long)(uintptr_t)s & 0xffffffu);
    }
    if (s->module >= 0 && s->nints >= 0) {
        const RV_Kernel *k = NULL;
        if (env->user[s->module] && rv_kernel_get(env->user[s->module], s->kernel, &k) == 0)
            return prepare_user(s, env, fmt, k);
        if (!s->def) {
            snprintf(env->err, sizeof(env->err), "module '%s' has no kernel '%s' and there is no such built-in stage",
                     env->user[s->module] ? rv_module_path(env->user[s->module]) : "?", s->kernel);
            return RV_ENOENT;
        }
    }
    if (!s->def) {
        snprintf(env->err, sizeof(env->err), "no such stage (see --list-stages)");
        return RV_ENOENT;
    }
    return s->def->prepare(s, env, fmt);
}

int run_stage_make_conversion(run_stage *s, const char *name)
{
    char err[128];
    if (run_stage_parse(name, -1, s, err, sizeof(err)) < 0 || !s->def || !s->def->conversion)
        return -1;
    s->inserted = 1;
    return 0;
}

int run_stage_wants_yuv(const run_stage *s)
{
    return s->def && (s->def->prepare == prep_deband || s->def->prepare == prep_denoise || s->def->prepare == prep_dwt);
}

void run_stage_print_table(FILE *f)
{
    for (const run_stage_def *d = run_stage_table; d->name; d++) {
        char sig[96];
        int n = snprintf(sig, sizeof(sig), "%s", d->name);
        for (int i = 0; i < RUN_MAX_PARAMS && d->params[i].name; i++)
            n += snprintf(sig + n, sizeof(sig) - (size_t)n, "%s%s=N", i ? "," : "[:", d->params[i].name);
        if (d->params[0].name)
            snprintf(sig + n, sizeof(sig) - (size_t)n, "]");
        fprintf(f, "  %-26s %s\n", sig, d->help);
        for (int i = 0; i < RUN_MAX_PARAMS && d->params[i].name; i++)
            fprintf(f, "  %-26s   %s: %s (default %d)\n", "", d->params[i].name, d->params[i].help,
                    d->params[i].def);
    }
}
