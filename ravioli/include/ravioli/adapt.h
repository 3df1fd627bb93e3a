/*
 * ravioli/adapt.h - resolution adaptation: the controller that chooses the
 * spatial stride S_I and the temporal stride S_T from measured frame times.
 *
 * The controller is pure logic: it is told, per processed frame, when it
 * happened and how long processing took, and answers with the strides for
 * the next frames. RV_Streaming drives it; tests drive it with an injected
 * clock and synthetic costs. It never reads a clock, allocates after
 * creation, or prints.
 *
 * Model (docs/adapt.md): processing one frame at spatial stride S_I takes
 *
 *     t(S_I) = c * ((1 - phi) / S_I^2 + phi)
 *
 * where c is the current cost of a full-resolution frame (it follows the
 * load) and phi the fraction that does not shrink with the stride (fill,
 * conversions, per-frame overhead; learnt when the stride changes). As real
 * stages rarely follow 1/S^2 exactly (vectorised full-resolution loops,
 * scalar strided ones), the relative cost of a stride is also learnt from
 * the ratio of the frame times around each change to or from stride 1; the
 * formula only fills in strides not learnt yet. With
 * temporal stride S_T only every S_T-th source frame is processed, so the
 * budget of a processed frame is S_T * deadline_s. The strides are chosen
 * along a ladder of configurations ordered by the priority; the controller
 * goes to a coarser configuration as soon as the (outlier-filtered) cost
 * would miss the budget, landing directly on the first one predicted to
 * fit `headroom * budget`, and goes back to the finest configuration that
 * fits only after `up_hold_s` of sustained headroom.
 *
 * Use:
 *
 *     RV_AdaptSettings s;
 *     rv_adapt_settings_default(&s);
 *     s.deadline_s = 1.0 / 30;
 *     RV_Adapt *a;
 *     if (rv_adapt_create(&a, &s) < 0) ...
 *     for each processed frame:
 *         rv_adapt_update(a, now_s, proc_s, si, st);
 *         rv_adapt_strides(a, &si, &st);
 *     rv_adapt_destroy(&a);
 */
#ifndef RAVIOLI_ADAPT_H
#define RAVIOLI_ADAPT_H

#include <stdio.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum RV_Priority {
    RV_PRIORITY_TEMPORAL = 0, /* keep the frame rate, give up pixels (raise S_I first) */
    RV_PRIORITY_SPATIAL  = 1, /* keep the pixels, give up frames (raise S_T first) */
    RV_PRIORITY_BALANCED = 2  /* share the reduction: S_I and S_T stay within one step */
} RV_Priority;

/** Largest stride the controller will ever answer (= rv_image_set_stride's limit). */
#define RV_ADAPT_MAX_STRIDE 64

typedef struct RV_AdaptSettings {
    RV_Priority priority;     /* default RV_PRIORITY_TEMPORAL */
    double deadline_s;        /* time budget per source frame, e.g. 1/30 s; required (default 0) */
    double headroom;          /* aim at this fraction of the deadline, default 0.85 */
    int max_spatial;          /* upper bound of S_I, default 8 (at most RV_ADAPT_MAX_STRIDE) */
    int max_temporal;         /* upper bound of S_T, default 8 (at most RV_ADAPT_MAX_STRIDE) */
    int fixed_spatial;        /* > 0: S_I is fixed to this value */
    int fixed_temporal;       /* > 0: S_T is fixed to this value */
    int enabled;              /* 0: never adapt (strides stay 1 or fixed); default 1 */
    /* Tuning knobs (the defaults suit 15..120 fps). */
    double miss_level;        /* go coarser when the filtered cost exceeds this fraction of
                                 the budget; default 1.0 (= would miss), >= headroom */
    double up_level;          /* go finer only when the mean cost of the hold window is
                                 predicted below this fraction of the finer budget (and its
                                 maximum below headroom); default 0.8, <= headroom */
    double up_hold_s;         /* sustained headroom needed before going finer, default 0.2 s */
    int up_hold_frames;       /* ... and at least this many processed frames, default 3 */
    double probe_s;           /* a coarser step within this time after a finer one doubles
                                 the hold (back-off, up to 16x); default 1.0 s */
    double explore_s;         /* at a spatial stride whose cost was never measured against
                                 stride 1, probe full resolution after this time (times the
                                 back-off); default 1.0 s, 0 = never */
    double overhead;          /* initial phi in [0, 0.9), default 0 */
    int learn_overhead;       /* 1: learn phi and the per-stride costs when S_I changes (default);
                                 0: keep the formula with `overhead` */
} RV_AdaptSettings;

/** Fills `s` with the defaults. deadline_s is left 0: it must be set before
 *  rv_adapt_create() (RV_Streaming sets it to the source's frame period). */
RV_API void rv_adapt_settings_default(RV_AdaptSettings *s);

typedef struct RV_Adapt RV_Adapt;

/**
 * Creates a controller; the strides start at 1 (or the fixed values).
 * RV_EINVAL when deadline_s is not a positive finite number, headroom is
 * outside (0, 1], miss_level < headroom, up_level outside (0, headroom], a bound is < 1 or above
 * RV_ADAPT_MAX_STRIDE, or a fixed stride is above RV_ADAPT_MAX_STRIDE.
 * A fixed stride above its max bound raises the bound.
 */
RV_API int rv_adapt_create(RV_Adapt **out, const RV_AdaptSettings *s);
/** Destroys the controller and sets *a to NULL. NULL is ignored. */
RV_API void rv_adapt_destroy(RV_Adapt **a);
/** Forgets the measurements and returns to the finest strides (settings kept). */
RV_API void rv_adapt_reset(RV_Adapt *a);

/**
 * Reports one processed frame: `now_s` is the time it finished (any
 * monotonic clock, seconds), `proc_s` its processing time, `s_spatial` and
 * `s_temporal` the strides it ran with. Returns 1 when the strides changed,
 * 0 when not (also when the measurement was unusable: proc_s <= 0 or not
 * finite is ignored; a non-finite or decreasing now_s is replaced by the
 * previous time plus one budget), RV_EINVAL when `a` is NULL.
 */
RV_API int rv_adapt_update(RV_Adapt *a, double now_s, double proc_s, int s_spatial, int s_temporal);
/**
 * As rv_adapt_update(), with the frame's latency: `latency_s` is the time
 * from the frame's arrival (when it could have started) to `now_s`, so it
 * includes any wait behind the previous frame (>= proc_s; a smaller or
 * non-finite value is replaced by proc_s). A frame is on time when its
 * latency fits S_T * deadline_s. The cost model still learns from proc_s;
 * late frames drive the reactions that the model cannot see (a finer step
 * whose first frame is late is undone at once; a second late frame at one
 * configuration within probe_s goes coarser) and raise a learnt safety
 * margin. rv_adapt_update() is this with latency_s = proc_s.
 */
RV_API int rv_adapt_update_latency(RV_Adapt *a, double now_s, double proc_s, double latency_s,
                                   int s_spatial, int s_temporal);
/** The strides to use from now on. */
RV_API void rv_adapt_strides(const RV_Adapt *a, int *s_spatial, int *s_temporal);

/** Model inspection: predicted processing time of one frame at spatial stride `s_spatial`
 *  (seconds; 0 before the first measurement). */
RV_API double rv_adapt_predict(const RV_Adapt *a, int s_spatial);
/** Relative cost of spatial stride `s_spatial` (1 for stride 1): learnt when frames
 *  ran at it next to stride-1 frames, else from (1 - phi) / S^2 + phi scaled to the
 *  learnt neighbours. */
RV_API double rv_adapt_shape(const RV_Adapt *a, int s_spatial);
/** The model's parameters: *cost_s = c (full-resolution cost now), *overhead = phi. */
RV_API void rv_adapt_model(const RV_Adapt *a, double *cost_s, double *overhead);

/* ------------------------------------------------------------------ */
/* Per-frame log                                                        */
/* ------------------------------------------------------------------ */

typedef enum RV_AdaptReason {
    RV_ADAPT_KEEP    = 0, /* strides unchanged */
    RV_ADAPT_COARSER = 1, /* over budget: strides raised */
    RV_ADAPT_FINER   = 2, /* sustained headroom: strides lowered */
    RV_ADAPT_INVALID = 3, /* unusable measurement, ignored */
    RV_ADAPT_FIXED   = 4  /* adaptation disabled or both strides fixed */
} RV_AdaptReason;

/** "keep", "coarser", "finer", "invalid", "fixed" (or "?"). */
RV_API const char *rv_adapt_reason_name(RV_AdaptReason r);

/** What the controller saw and decided for one processed frame. */
typedef struct RV_AdaptRecord {
    long long frame;          /* processed frames before this one */
    double time_s;            /* now_s as reported (after the fix-up of bad values) */
    double proc_s;            /* processing time as reported */
    double latency_s;         /* arrival to finish (rv_adapt_update_latency; else proc_s) */
    double deadline_s;        /* the source frame period (settings) */
    double budget_s;          /* s_temporal * deadline_s: what this frame had */
    int met;                  /* latency_s <= budget_s */
    int s_spatial, s_temporal;      /* strides the frame ran with */
    double pred_s;            /* the model's prediction for this frame, before seeing it */
    int next_spatial, next_temporal; /* strides chosen for the next frames */
    double cost_s;            /* model c after the update */
    double overhead;          /* model phi after the update */
    double margin;            /* learnt safety factor on the cost (>= 1) after the update */
    double jitter_s;          /* learnt additive allowance for unexplained lateness (s) */
    RV_AdaptReason reason;
} RV_AdaptRecord;

/** The record of the latest rv_adapt_update (zeroed before the first). */
RV_API void rv_adapt_last_record(const RV_Adapt *a, RV_AdaptRecord *rec);

/** CSV header line (no newline) matching rv_adapt_record_csv(). */
RV_API const char *rv_adapt_csv_header(void);
/**
 * Formats `rec` as one CSV line (no newline) into buf (like snprintf:
 * returns the length it needed). time_s is in seconds, the other times
 * (the *_ms columns) in milliseconds.
 */
RV_API int rv_adapt_record_csv(const RV_AdaptRecord *rec, char *buf, size_t size);
/** Writes `rec` and a newline to `f`; writes the header first when `header` is 1. */
RV_API int rv_adapt_log_write(FILE *f, const RV_AdaptRecord *rec, int header);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_ADAPT_H */
