/*
 * ravioli/deband.h - banding reduction (the f3kdb / AviUtl "banding17"
 * algorithm) on planar YUV and grey images, on the CPU or the GPU.
 *
 *     RV_Deband *db;
 *     rv_deband_create(ctx, &db);                  // default settings
 *     RV_DebandSettings s;
 *     rv_deband_settings_default(&s);
 *     s.output_depth = 16;
 *     if (rv_deband_configure(db, &s) < 0) puts(rv_deband_error(db));
 *     rv_deband_apply(db, dst, src, frame_index);  // dst: rv_deband_output_format()
 *     rv_deband_destroy(&db);
 *
 * Each output pixel compares the input pixel with reference pixels at
 * pseudo-random offsets within `range`; where they differ by less than the
 * plane's threshold the pixel is replaced by their average, then noise
 * ("grain") is added. Randomness is a counter-based hash of (seed, plane,
 * x, y[, frame]), so the CPU and GPU results are identical bit for bit.
 * Units (docs/deband.md): thresholds y/cb/cr count 1/16 of an 8-bit code
 * value (64 = 4 codes = 1024 at 16 bits), grain counts 1/64 of an 8-bit code
 * (64 = +-1 code = +-256 at 16 bits), whatever the bit depth.
 */
#ifndef RAVIOLI_DEBAND_H
#define RAVIOLI_DEBAND_H

#include <ravioli/ravioli.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Parameters (names as f3kdb's). */
typedef struct RV_DebandSettings {
    int range;          /* reference offsets in [-range, range] samples; 0..255, default 15 */
    int y, cb, cr;      /* thresholds of planes 0, 1, 2 (1/16 8-bit code); 0..4095, default 64;
                           0 leaves the plane untouched (no grain either) */
    int grainy, grainc; /* noise amplitude, luma / chroma (1/64 8-bit code); 0..4095, default 64 */
    int sample_mode;    /* 0: one reference, 1: two (point-symmetric), 2: four; default 2 */
    int blur_first;     /* 1: compare with the references' average; 0: with each; default 1 */
    uint32_t seed;      /* random seed, default 0 */
    int dynamic_grain;  /* 1: new noise every frame (frame index hashed in); default 0 */
    int interlaced;     /* 1: vertical offsets even (references stay in the field); default 0 */
    int output_depth;   /* 0: as the input, 8 or 16; default 0 */
} RV_DebandSettings;

typedef struct RV_Deband RV_Deband;

RV_API void rv_deband_settings_default(RV_DebandSettings *s);

/**
 * Checks settings; on error returns RV_EINVAL and writes a readable message
 * naming the parameter to msg (may be NULL).
 */
RV_API int rv_deband_settings_check(const RV_DebandSettings *s, char *msg, size_t msg_size);

/** Creates a deband filter with default settings (loads module "deband"). */
RV_API int rv_deband_create(RV_Context *ctx, RV_Deband **out);
/** Destroys the filter and sets *d to NULL. NULL is ignored. Call it before
 * rv_context_destroy() of the filter's context (context.h). */
RV_API void rv_deband_destroy(RV_Deband **d);

/** Replaces the settings (checked first; on error the old ones stay). */
RV_API int rv_deband_configure(RV_Deband *d, const RV_DebandSettings *s);
RV_API void rv_deband_get_settings(const RV_Deband *d, RV_DebandSettings *s);

/** Message of the filter's latest failure ("" before any), without a "deband: "
 * or function-name prefix (the caller adds its own). As rv_context_error(), it
 * stays until the next failure: a call that succeeds does not clear it, so read
 * it after a call that failed. See also rv_context_error(). */
RV_API const char *rv_deband_error(const RV_Deband *d);

/**
 * The format rv_deband_apply writes for input format `in` under the current
 * settings, or 0 if `in` is not supported. Supported inputs: GRAY8, GRAY16,
 * YUV420P8, YUV420P16, YUV444P8, YUV444P16.
 */
RV_API RV_Format rv_deband_output_format(const RV_Deband *d, RV_Format in);

/**
 * Debands `src` into `dst` (same size, format rv_deband_output_format(src);
 * not the same image). frame_index matters only with dynamic_grain. Runs on
 * the context's backend; this is the function a streaming stage calls once
 * per frame.
 */
RV_API int rv_deband_apply(RV_Deband *d, RV_Image *dst, RV_Image *src, int64_t frame_index);

/**
 * On the GPU, frames debanded one after another overlap: a launch that
 * directly follows this filter's previous one on the context's queue
 * (nothing else queued in between, rv_context_queued) and touches no memory
 * that a grid still possibly running reads or writes starts without waiting
 * for that grid, so its first tiles fill the multiprocessors the previous
 * frame's last tiles leave idle. A frame that reads an earlier frame's
 * output, or writes what one reads or writes, waits as usual. Returns how
 * many launches of this filter started so (0 on the CPU backend, and with
 * the module's code for a GPU before sm_90, where every grid waits for the
 * one before: rv_kernel_arch).
 */
RV_API int64_t rv_deband_overlapped(const RV_Deband *d);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_DEBAND_H */
