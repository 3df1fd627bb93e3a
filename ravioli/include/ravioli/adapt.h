/*
 * ravioli/adapt.h - resolution adaptation: the controller that chooses the
 * spatial stride S_I and the temporal stride S_T from measured frame times.
 *
 * The controller is pure logic: it is told, per processed frame, when it
 * happened and how long processing took, and answers with the strides for
 * the next frames. RV_Streaming drives it; tests drive it with an injected
 * clock and synthetic costs.
 */
#ifndef RAVIOLI_ADAPT_H
#define RAVIOLI_ADAPT_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum RV_Priority {
    RV_PRIORITY_TEMPORAL = 0, /* keep the frame rate, give up pixels (raise S_I first) */
    RV_PRIORITY_SPATIAL  = 1, /* keep the pixels, give up frames (raise S_T first) */
    RV_PRIORITY_BALANCED = 2  /* share the reduction between both */
} RV_Priority;

typedef struct RV_AdaptSettings {
    RV_Priority priority;     /* default RV_PRIORITY_TEMPORAL */
    double deadline_s;        /* time budget per source frame, e.g. 1/30 s; required */
    double headroom;          /* aim at this fraction of the deadline, default 0.85 */
    int max_spatial;          /* upper bound of S_I, default 8 */
    int max_temporal;         /* upper bound of S_T, default 8 */
    int fixed_spatial;        /* > 0: S_I is fixed to this value */
    int fixed_temporal;       /* > 0: S_T is fixed to this value */
    int enabled;              /* 0: never adapt (strides stay 1 or fixed); default 1 */
} RV_AdaptSettings;

RV_API void rv_adapt_settings_default(RV_AdaptSettings *s);

typedef struct RV_Adapt RV_Adapt;

RV_API int rv_adapt_create(RV_Adapt **out, const RV_AdaptSettings *s);
RV_API void rv_adapt_destroy(RV_Adapt **a);

/**
 * Reports one processed frame: `now_s` is the time it finished (any
 * monotonic clock, seconds), `proc_s` its processing time, `s_spatial` and
 * `s_temporal` the strides it ran with. Returns 1 when the strides changed.
 */
RV_API int rv_adapt_update(RV_Adapt *a, double now_s, double proc_s, int s_spatial, int s_temporal);
/** The strides to use from now on. */
RV_API void rv_adapt_strides(const RV_Adapt *a, int *s_spatial, int *s_temporal);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_ADAPT_H */
