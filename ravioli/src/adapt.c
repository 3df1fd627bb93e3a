/*
 * adapt.c - the resolution-adaptation controller (see ravioli/adapt.h and
 * docs/adapt.md).
 *
 * State: a ring of the latest raw measurements (time, processing time,
 * spatial stride), the overhead fraction phi, the ladder of configurations
 * (S_I, S_T) ordered by the priority from finest to coarsest, and the index
 * of the current configuration on it. Every decision is recomputed from the
 * raw ring, so a change of phi re-normalises the whole history. With the
 * latency reported (rv_adapt_update_latency), late frames the median model
 * does not explain undo a failed finer step at once, move coarser after a
 * second one, and teach a safety margin and a jitter allowance that decay
 * when quiet.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ravioli/adapt.h"

#define RING 256                            /* raw measurements kept */
#define MAX_LADDER (2 * RV_ADAPT_MAX_STRIDE)
#define PROC_CLAMP 1000.0                   /* a measurement counts at most this many budgets */
#define LEARN_SPREAD 1.25                   /* max/min of the samples a phi estimate uses */
#define PHI_MAX 0.9
#define HOLD_MULT_MAX 16.0
#define MARGIN_MAX 2.0                      /* largest learnt safety margin */
#define MARGIN_UP 1.25                      /* margin growth per late-frame trigger */
#define MARGIN_DECAY 0.9                    /* margin shrink per quiet probe_s */
#define JITTER_DECAY 0.25                   /* jitter allowance shrink per quiet probe_s */
#define STALE_FACTOR 1.5                    /* a stride's cost learnt at a cost level this much above
                                               today's is stale (may be re-probed) */
#define LATE_TRIGGER 2                      /* late frames at one configuration within probe_s -> coarser */

typedef struct sample {
    double t;      /* finish time */
    double proc;   /* processing time (clamped) */
    int si;        /* spatial stride it ran with */
    int idx;       /* ladder configuration it ran with (-1: not on the ladder) */
    int late;      /* finished after its budget (latency, including any wait) */
} sample;

struct RV_Adapt {
    RV_AdaptSettings s;
    int nlad;
    int lad_si[MAX_LADDER], lad_st[MAX_LADDER];
    int idx;                 /* current configuration */

    sample ring[RING];
    int nring, head;         /* head: next slot to write */
    double phi;

    int have_time;
    double last_t;
    long long frame;
    double t_change;         /* time of the latest stride change */
    long long since_change;  /* valid frames since then */
    double hold_mult;        /* back-off of the up-hold */
    int probe_pending;
    double t_up;
    int up_from;             /* configuration before the latest finer step */
    double margin;           /* learnt safety factor on the cost (>= 1), grows on late frames */
    double jitter;           /* learnt additive allowance (s): lateness the model does not
                                explain (preemption by other processes, queueing) */
    double t_quiet;          /* last time the margin decayed or was raised */
    double late_excess;      /* lateness beyond the model of the previous late frame (s) */

    /* learnt relative cost of each spatial stride (shp[1] = 1) */
    double shp[RV_ADAPT_MAX_STRIDE + 1];
    unsigned char shp_ok[RV_ADAPT_MAX_STRIDE + 1];
    unsigned char shp_conf[RV_ADAPT_MAX_STRIDE + 1]; /* measured against stride 1 over >= 2 frames */
    double shp_c[RV_ADAPT_MAX_STRIDE + 1]; /* full-resolution cost when it was learnt */

    /* phi learning across a change of the spatial stride that frames ran with */
    int prev_si;             /* spatial stride of the previous valid frame (0: none) */
    int learned;             /* phi estimates so far */
    /* the current learning episode (a change of S_I and up to 3 frames after it) */
    int ep_active, ep_sa, ep_sb, ep_n, ep_target, ep_learned0, ep_trusted;
    int last_finer;          /* the latest change of strides was a finer step */
    double ep_t1, ep_t[3], ep_phi0, ep_shp0;
    double ep_c;             /* median of the latest three frames before the change (old stride) */
    unsigned char ep_ok0;

    RV_AdaptRecord last;
};

/* ------------------------------------------------------------------ */

RV_API void rv_adapt_settings_default(RV_AdaptSettings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->priority = RV_PRIORITY_TEMPORAL;
    s->deadline_s = 0; /* required: the caller (RV_Streaming: the source's frame period) sets it */
    s->headroom = 0.85;
    s->max_spatial = 8;
    s->max_temporal = 8;
    s->fixed_spatial = 0;
    s->fixed_temporal = 0;
    s->enabled = 1;
    s->miss_level = 1.0;
    s->up_level = 0.8;
    s->up_hold_s = 0.2;
    s->up_hold_frames = 3;
    s->probe_s = 1.0;
    s->explore_s = 1.0;
    s->overhead = 0.0;
    s->learn_overhead = 1;
}

static void build_ladder(RV_Adapt *a)
{
    const RV_AdaptSettings *s = &a->s;
    int si_lo = 1, si_hi = s->max_spatial, st_lo = 1, st_hi = s->max_temporal;
    if (s->fixed_spatial > 0)
        si_lo = si_hi = s->fixed_spatial;
    if (s->fixed_temporal > 0)
        st_lo = st_hi = s->fixed_temporal;
    if (!s->enabled) {
        si_hi = si_lo;
        st_hi = st_lo;
    }
    int n = 0, si = si_lo, st = st_lo;
    a->lad_si[n] = si;
    a->lad_st[n++] = st;
    while (si < si_hi || st < st_hi) {
        int raise_si;
        if (si >= si_hi)
            raise_si = 0;
        else if (st >= st_hi)
            raise_si = 1;
        else if (s->priority == RV_PRIORITY_TEMPORAL)
            raise_si = 1;
        else if (s->priority == RV_PRIORITY_SPATIAL)
            raise_si = 0;
        else {
            /* balanced: keep max(S_I, S_T) smallest; on a tie take the smaller
             * reduction of work (S_I^2 * S_T), i.e. the finer step */
            int ma = si + 1 > st ? si + 1 : st, mb = si > st + 1 ? si : st + 1;
            if (ma != mb)
                raise_si = ma < mb;
            else
                raise_si = (si + 1) * (si + 1) * st < si * si * (st + 1);
        }
        if (raise_si)
            si++;
        else
            st++;
        a->lad_si[n] = si;
        a->lad_st[n++] = st;
    }
    a->nlad = n;
}

static void clear_state(RV_Adapt *a)
{
    a->idx = 0;
    a->nring = 0;
    a->head = 0;
    a->phi = a->s.overhead;
    a->have_time = 0;
    a->last_t = 0;
    a->frame = 0;
    a->t_change = 0;
    a->since_change = 0;
    a->hold_mult = 1.0;
    a->probe_pending = 0;
    a->t_up = 0;
    a->up_from = 0;
    a->margin = 1.0;
    a->jitter = 0;
    a->t_quiet = 0;
    a->late_excess = 0;
    a->prev_si = 0;
    a->learned = 0;
    a->ep_active = 0;
    a->last_finer = 0;
    memset(a->shp_ok, 0, sizeof(a->shp_ok));
    memset(a->shp_conf, 0, sizeof(a->shp_conf));
    memset(a->shp_c, 0, sizeof(a->shp_c));
    a->shp[1] = 1.0;
    a->shp_ok[1] = 1;
    memset(&a->last, 0, sizeof(a->last));
    a->last.next_spatial = a->lad_si[0];
    a->last.next_temporal = a->lad_st[0];
    a->last.deadline_s = a->s.deadline_s;
    a->last.overhead = a->phi;
}

RV_API int rv_adapt_create(RV_Adapt **out, const RV_AdaptSettings *s)
{
    if (!out)
        return RV_EINVAL;
    *out = NULL;
    if (!s)
        return RV_EINVAL;
    RV_AdaptSettings v = *s;
    if (!(isfinite(v.deadline_s) && v.deadline_s > 0))
        return RV_EINVAL;
    if (!(v.headroom > 0 && v.headroom <= 1.0))
        return RV_EINVAL;
    if (!(isfinite(v.miss_level) && v.miss_level >= v.headroom))
        return RV_EINVAL;
    if (!(v.up_level > 0 && v.up_level <= v.headroom))
        return RV_EINVAL;
    if (v.max_spatial < 1 || v.max_spatial > RV_ADAPT_MAX_STRIDE || v.max_temporal < 1 ||
        v.max_temporal > RV_ADAPT_MAX_STRIDE)
        return RV_EINVAL;
    if (v.fixed_spatial > RV_ADAPT_MAX_STRIDE || v.fixed_temporal > RV_ADAPT_MAX_STRIDE)
        return RV_EINVAL;
    if (v.priority != RV_PRIORITY_TEMPORAL && v.priority != RV_PRIORITY_SPATIAL &&
        v.priority != RV_PRIORITY_BALANCED)
        return RV_EINVAL;
    if (!(isfinite(v.up_hold_s) && v.up_hold_s >= 0) || !(isfinite(v.probe_s) && v.probe_s >= 0) ||
        !(isfinite(v.explore_s) && v.explore_s >= 0))
        return RV_EINVAL;
    if (!(v.overhead >= 0 && v.overhead <= PHI_MAX))
        return RV_EINVAL;
    if (v.up_hold_frames < 1)
        v.up_hold_frames = 1;
    if (v.fixed_spatial > v.max_spatial)
        v.max_spatial = v.fixed_spatial;
    if (v.fixed_temporal > v.max_temporal)
        v.max_temporal = v.fixed_temporal;
    RV_Adapt *a = calloc(1, sizeof(*a));
    if (!a)
        return RV_ENOMEM;
    a->s = v;
    build_ladder(a);
    clear_state(a);
    *out = a;
    return 0;
}

RV_API void rv_adapt_destroy(RV_Adapt **a)
{
    if (!a || !*a)
        return;
    free(*a);
    *a = NULL;
}

RV_API void rv_adapt_reset(RV_Adapt *a)
{
    if (a)
        clear_state(a);
}

RV_API void rv_adapt_strides(const RV_Adapt *a, int *s_spatial, int *s_temporal)
{
    int si = 1, st = 1;
    if (a) {
        si = a->lad_si[a->idx];
        st = a->lad_st[a->idx];
    }
    if (s_spatial)
        *s_spatial = si;
    if (s_temporal)
        *s_temporal = st;
}

/* ------------------------------------------------------------------ */
/* Model                                                                */
/* ------------------------------------------------------------------ */

/* The parametric shape: share of the full-resolution cost a frame at
 * spatial stride si takes when a fraction phi does not shrink. */
static double prior(double phi, int si)
{
    return (1.0 - phi) / ((double)si * si) + phi;
}

/*
 * The relative cost of spatial stride si: learnt when frames ran at si;
 * otherwise scaled from the nearest learnt strides below and above along
 * the parametric shape (the geometric mean of both estimates).
 */
static double shape_of(const RV_Adapt *a, int si)
{
    if (si < 1)
        si = 1;
    if (si > RV_ADAPT_MAX_STRIDE)
        si = RV_ADAPT_MAX_STRIDE;
    if (a->shp_ok[si])
        return a->shp[si];
    int lo = si - 1, hi = si + 1;
    while (!a->shp_ok[lo])
        lo--; /* shp_ok[1] is always set */
    while (hi <= RV_ADAPT_MAX_STRIDE && !a->shp_ok[hi])
        hi++;
    double p = prior(a->phi, si);
    double e_lo = a->shp[lo] * p / prior(a->phi, lo);
    if (hi > RV_ADAPT_MAX_STRIDE)
        return e_lo;
    double e_hi = a->shp[hi] * p / prior(a->phi, hi);
    return sqrt(e_lo * e_hi);
}

/* i-th latest sample (0 = newest). */
static const sample *ring_at(const RV_Adapt *a, int i)
{
    return &a->ring[(a->head - 1 - i + 2 * RING) % RING];
}

static double norm_cost(const RV_Adapt *a, const sample *sm)
{
    return sm->proc / shape_of(a, sm->si);
}

/* Outlier-filtered full-resolution cost: the median of the latest three
 * normalised measurements (with fewer, the smallest). One spike moves
 * nothing; a step in the load shows after its second frame. */
static double cost_fast(const RV_Adapt *a)
{
    if (a->nring == 0)
        return 0;
    int n = a->nring < 3 ? a->nring : 3;
    double v[3];
    for (int i = 0; i < n; i++)
        v[i] = norm_cost(a, ring_at(a, i));
    if (n == 1)
        return v[0];
    if (n == 2)
        return v[0] < v[1] ? v[0] : v[1];
    double lo = fmin(v[0], fmin(v[1], v[2])), hi = fmax(v[0], fmax(v[1], v[2]));
    return v[0] + v[1] + v[2] - lo - hi;
}

RV_API double rv_adapt_predict(const RV_Adapt *a, int s_spatial)
{
    if (!a || a->nring == 0)
        return 0;
    if (s_spatial < 1)
        s_spatial = 1;
    return cost_fast(a) * shape_of(a, s_spatial);
}

RV_API double rv_adapt_shape(const RV_Adapt *a, int s_spatial)
{
    return a ? shape_of(a, s_spatial) : 0;
}

RV_API void rv_adapt_model(const RV_Adapt *a, double *cost_s, double *overhead)
{
    if (cost_s)
        *cost_s = a ? cost_fast(a) : 0;
    if (overhead)
        *overhead = a ? a->phi : 0;
}

/* Does configuration j fit `level` of its budget with full-resolution cost c? */
static int fits(const RV_Adapt *a, int j, double c, double level)
{
    return c * shape_of(a, a->lad_si[j]) <= level * a->lad_st[j] * a->s.deadline_s;
}

/* fits(), with the learnt jitter allowance added to the predicted time */
static int fits_j(const RV_Adapt *a, int j, double c, double level)
{
    return c * shape_of(a, a->lad_si[j]) + a->jitter <= level * a->lad_st[j] * a->s.deadline_s;
}

/*
 * phi from two processing times of the same load at two spatial strides:
 * t = c((1 - phi)u + phi), u = 1/S^2, g = t2/t1 gives
 * phi = (u2 - g u1) / (g (1 - u1) - (1 - u2)).
 */
static void learn_phi(RV_Adapt *a, double t1, int s1, double t2, int s2)
{
    double u1 = 1.0 / ((double)s1 * s1), u2 = 1.0 / ((double)s2 * s2), g = t2 / t1;
    double den = g * (1.0 - u1) - (1.0 - u2);
    if (fabs(den) < 1e-9)
        return;
    double phi = (u2 - g * u1) / den;
    if (!isfinite(phi) || phi < -0.1 || phi > 0.95)
        return; /* inconsistent: the load changed in between */
    phi = fmin(fmax(phi, 0.0), PHI_MAX);
    /* the first estimate replaces the prior, later ones are averaged */
    a->phi = a->learned ? 0.5 * a->phi + 0.5 * phi : phi;
    a->learned++;
}

static int cmp_double(const void *x, const void *y)
{
    double p = *(const double *)x, q = *(const double *)y;
    return (p > q) - (p < q);
}

static int consistent(double x, double y)
{
    double lo = fmin(x, y), hi = fmax(x, y);
    return lo > 0 && hi <= LEARN_SPREAD * lo;
}

/*
 * Learns v as the relative cost of stride si. A trusted estimate (taken
 * over two or three frames after a finer step, i.e. at a load that had been
 * steady for the whole hold time) replaces what was there. Others may only
 * raise the value (the direction that makes coarser choices safe), by the
 * geometric mean, never below the current formula/interpolation: after a
 * coarser step the frames before it are the slow ones that triggered it
 * (biased), and a single frame may be an outlier.
 */
static void learn_shape(RV_Adapt *a, int si, double v, int trusted)
{
    if (si <= 1 || !isfinite(v))
        return;
    /* plausible: at most 4x better than the ideal 1/S^2, at most 4x slower than S = 1 */
    v = fmin(fmax(v, 0.25 / ((double)si * si)), 4.0);
    if (!trusted) {
        const double cur = shape_of(a, si);
        v = a->shp_ok[si] ? fmax(cur, sqrt(cur * v)) : fmax(cur, v);
    }
    a->shp[si] = v;
    a->shp_ok[si] = 1;
}

/* Applies the estimate of the current learning episode from time t2 at
 * the new stride, on top of the state from before the episode. */
static void episode_apply(RV_Adapt *a, double t2, int n)
{
    const int trusted = a->ep_trusted && n >= 2;
    a->phi = a->ep_phi0;
    a->learned = a->ep_learned0;
    a->shp[a->ep_target] = a->ep_shp0;
    a->shp_ok[a->ep_target] = a->ep_ok0;
    const double g = t2 / a->ep_t1;
    if (a->ep_sb == 1) {
        learn_shape(a, a->ep_sa, 1.0 / g, trusted);
        a->shp_c[a->ep_sa] = t2;
    } else if (a->ep_sa == 1) {
        learn_shape(a, a->ep_sb, g, trusted);
        a->shp_c[a->ep_sb] = a->ep_c;
    }
    learn_phi(a, a->ep_t1, a->ep_sa, t2, a->ep_sb);
}

/*
 * Called after the newest sample was pushed. When the spatial stride
 * changed from the previous frame, the frames just before and just after
 * saw (nearly) the same load, so their ratio is the ratio of the two
 * strides' costs: it teaches phi and, when one of the two is stride 1, the
 * learnt shape of the other (only ratios to stride 1 are learnt: chaining
 * ratios between coarser strides would random-walk). The first frame at the new stride
 * gives an estimate at once (the next decision needs it); the second and
 * third refine it (mean, then median), replacing the earlier estimate. A
 * single frame is never trusted (see learn_shape).
 */
static void track_phi(RV_Adapt *a)
{
    const sample *cur = ring_at(a, 0);
    if (!a->s.learn_overhead) {
        a->prev_si = cur->si;
        return;
    }
    if (a->prev_si && cur->si != a->prev_si && a->nring >= 2) {
        const sample *p1 = ring_at(a, 1);
        double t1 = p1->proc;
        if (a->last_finer) {
            /* steady load before a finer step: the median of the old
             * stride's frames over the hold window */
            double v[32];
            int n = 0;
            for (int i = 1; i < a->nring && n < 32; i++) {
                const sample *sm = ring_at(a, i);
                if (sm->si != p1->si || (n >= 2 && sm->t < p1->t - a->s.up_hold_s))
                    break;
                v[n++] = sm->proc;
            }
            qsort(v, (size_t)n, sizeof(double), cmp_double);
            t1 = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        } else if (a->nring >= 3) {
            const sample *p2 = ring_at(a, 2);
            if (p2->si == p1->si && consistent(p1->proc, p2->proc))
                t1 = 0.5 * (p1->proc + p2->proc);
        }
        {
            /* the load level when leaving the old stride: the median of
             * its latest three frames (a single preempted frame does not
             * count as the level) */
            double v[3];
            int n = 0;
            for (int i = 1; i < a->nring && n < 3; i++) {
                const sample *sm = ring_at(a, i);
                if (sm->si != p1->si)
                    break;
                v[n++] = sm->proc;
            }
            qsort(v, (size_t)n, sizeof(double), cmp_double);
            a->ep_c = v[n / 2];
        }
        a->ep_active = 1;
        a->ep_sa = p1->si;
        a->ep_sb = cur->si;
        a->ep_t1 = t1;
        a->ep_n = 1;
        a->ep_t[0] = cur->proc;
        a->ep_target = a->ep_sb == 1 ? a->ep_sa : a->ep_sb;
        a->ep_trusted = a->last_finer;
        a->ep_phi0 = a->phi;
        a->ep_learned0 = a->learned;
        a->ep_shp0 = a->shp[a->ep_target];
        a->ep_ok0 = a->shp_ok[a->ep_target];
        episode_apply(a, cur->proc, 1);
    } else if (a->ep_active && cur->si == a->ep_sb) {
        a->ep_t[a->ep_n++] = cur->proc;
        double t2;
        if (a->ep_n == 2) {
            t2 = 0.5 * (a->ep_t[0] + a->ep_t[1]);
        } else {
            double x = a->ep_t[0], y = a->ep_t[1], z = a->ep_t[2];
            t2 = x + y + z - fmin(x, fmin(y, z)) - fmax(x, fmax(y, z));
            a->ep_active = 0;
        }
        episode_apply(a, t2, a->ep_n);
        if (a->ep_trusted && (a->ep_sa == 1 || a->ep_sb == 1))
            a->shp_conf[a->ep_target] = 1;
    }
    a->prev_si = cur->si;
}

/* Worst and mean normalised cost over the hold window (the latest hold_s
 * seconds, at least up_hold_frames samples). "Worst" is the second largest
 * when the window has 6 samples or more, so that one stray slow frame (a
 * page fault, a preempted worker) does not block every finer step. */
static void cost_window(const RV_Adapt *a, double t, double hold_s, double *worst, double *mean)
{
    double m1 = 0, m2 = 0, sum = 0;
    int n = 0;
    for (int i = 0; i < a->nring; i++) {
        const sample *sm = ring_at(a, i);
        if (i >= a->s.up_hold_frames && sm->t < t - hold_s)
            break;
        double c = norm_cost(a, sm);
        if (c > m1) {
            m2 = m1;
            m1 = c;
        } else if (c > m2) {
            m2 = c;
        }
        sum += c;
        n++;
    }
    *worst = n >= 6 ? m2 : m1;
    *mean = n ? sum / n : 0;
}

/* Median normalised cost over the latest hold_s seconds (at least
 * up_hold_frames samples): the sustained level, blind to single spikes. */
static double cost_window_median(const RV_Adapt *a, double t)
{
    double v[RING];
    int n = 0;
    for (int i = 0; i < a->nring; i++) {
        const sample *sm = ring_at(a, i);
        if (i >= a->s.up_hold_frames && sm->t < t - a->s.up_hold_s)
            break;
        v[n++] = norm_cost(a, sm);
    }
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ------------------------------------------------------------------ */
/* Update                                                               */
/* ------------------------------------------------------------------ */

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Index of configuration (si, st) on the ladder, -1 when it is not on it. */
static int ladder_index(const RV_Adapt *a, int si, int st)
{
    for (int i = 0; i < a->nlad; i++)
        if (a->lad_si[i] == si && a->lad_st[i] == st)
            return i;
    return -1;
}

/* Late frames at configuration j since the latest change, within the last
 * probe_s seconds (the newest included). */
static int late_count(const RV_Adapt *a, int j, double t)
{
    int n = 0;
    for (int i = 0; i < a->nring; i++) {
        const sample *sm = ring_at(a, i);
        if (sm->t < a->t_change || sm->t < t - a->s.probe_s)
            break;
        n += sm->idx == j && sm->late;
    }
    return n;
}

/* Any late frame over the latest hold_s seconds? */
static int late_within(const RV_Adapt *a, double t, double hold_s)
{
    for (int i = 0; i < a->nring; i++) {
        const sample *sm = ring_at(a, i);
        if (sm->t < t - hold_s)
            break;
        if (sm->late)
            return 1;
    }
    return 0;
}

RV_API int rv_adapt_update(RV_Adapt *a, double now_s, double proc_s, int s_spatial, int s_temporal)
{
    return rv_adapt_update_latency(a, now_s, proc_s, proc_s, s_spatial, s_temporal);
}

RV_API int rv_adapt_update_latency(RV_Adapt *a, double now_s, double proc_s, double latency_s,
                                   int s_spatial, int s_temporal)
{
    if (!a)
        return RV_EINVAL;
    const RV_AdaptSettings *s = &a->s;
    const int si = clampi(s_spatial, 1, RV_ADAPT_MAX_STRIDE);
    const int st = clampi(s_temporal, 1, RV_ADAPT_MAX_STRIDE);
    const double budget = st * s->deadline_s;

    double t = now_s;
    if (!isfinite(t) || (a->have_time && t < a->last_t))
        t = a->have_time ? a->last_t + budget : 0.0;
    a->have_time = 1;
    a->last_t = t;
    /* the latency includes the processing time; a bad value falls back to it */
    double lat = latency_s;
    if (!isfinite(lat) || !(lat >= proc_s))
        lat = proc_s;

    RV_AdaptRecord *r = &a->last;
    memset(r, 0, sizeof(*r));
    r->frame = a->frame++;
    r->time_s = t;
    r->proc_s = proc_s;
    r->latency_s = lat;
    r->deadline_s = s->deadline_s;
    r->budget_s = budget;
    r->met = isfinite(proc_s) && proc_s >= 0 && lat <= budget;
    r->s_spatial = si;
    r->s_temporal = st;
    r->pred_s = rv_adapt_predict(a, si);

    /* Back-off bookkeeping: a finer step that survived probe_s halves the hold. */
    if (a->probe_pending && t - a->t_up >= s->probe_s) {
        a->probe_pending = 0;
        a->hold_mult = fmax(1.0, a->hold_mult * 0.5);
    }

    const int old = a->idx;
    RV_AdaptReason reason = RV_ADAPT_KEEP;
    if (!(isfinite(proc_s) && proc_s > 0)) {
        reason = RV_ADAPT_INVALID;
    } else {
        sample *sm = &a->ring[a->head];
        sm->t = t;
        sm->proc = fmin(proc_s, PROC_CLAMP * budget);
        sm->si = si;
        sm->idx = ladder_index(a, si, st);
        sm->late = !r->met;
        a->head = (a->head + 1) % RING;
        if (a->nring < RING)
            a->nring++;
        a->since_change++;
        track_phi(a);

        /* The learnt safety margin and jitter allowance shrink after each
         * quiet probe_s. Quiet: no late frame, and no frame whose lateness
         * beyond the model's prediction comes near the allowance (a frame
         * that was preempted but still fit a coarse budget shows that the
         * source of the jitter is still there). */
        const double excess = lat - cost_fast(a) * shape_of(a, si);
        if (sm->late || (a->jitter > 0 && excess > 0.5 * a->jitter))
            a->t_quiet = t;
        else if (t - a->t_quiet >= s->probe_s) {
            a->margin = fmax(1.0, a->margin * MARGIN_DECAY);
            a->jitter *= JITTER_DECAY;
            if (a->jitter < 0.01 * s->deadline_s)
                a->jitter = 0;
            a->t_quiet = t;
        }

        if (a->nlad == 1) {
            reason = RV_ADAPT_FIXED;
        } else {
            const double c = cost_fast(a);
            const int j = a->idx;
            /* sustained load in the upper third of the hysteresis band: with
             * frame times that close to the budget, jitter makes frames late */
            int sustained = 0;
            double cmed = 0;
            if (a->since_change >= s->up_hold_frames && t - a->t_change >= s->up_hold_s) {
                cmed = cost_window_median(a, t);
                sustained = !fits(a, j, cmed, s->headroom + (s->miss_level - s->headroom) * (2.0 / 3.0));
            }
            /* a late frame within probe_s after a finer step: the step was
             * too optimistic (a probe failed) */
            const int probe_failed = a->probe_pending && t - a->t_up < s->probe_s && sm->idx == j &&
                                     j < a->up_from && sm->late;
            /* late frames at this configuration although the model says it
             * fits: jitter (preemption, queueing) the median does not see */
            const int late_rule = !probe_failed && sm->late && sm->idx == j && j < a->nlad - 1 &&
                                  late_count(a, j, t) >= LATE_TRIGGER;
            if (a->nring >= 2 && (sustained || !fits(a, j, c, s->miss_level))) {
                /* (never on the very first frame: it carries the warm-up) */
                /* would miss: straight to the first coarser configuration that fits */
                const double cc = fmax(c, cmed) * a->margin;
                int k = j + 1;
                while (k < a->nlad - 1 && !fits_j(a, k, cc, s->headroom))
                    k++;
                if (k < a->nlad)
                    a->idx = k;
            } else if (probe_failed || late_rule) {
                /* react within the frame: back to where the finer step came
                 * from (a failed probe; when its first frames are late the
                 * model needs more margin) or, for late frames the model
                 * does not explain (preemption, queueing: additive), to the
                 * first configuration whose budget also holds the lateness
                 * seen beyond the prediction */
                if (probe_failed && a->since_change <= 2) {
                    /* at once: most likely the model's cost of the new stride */
                    a->margin = fmin(MARGIN_MAX, a->margin * MARGIN_UP);
                } else {
                    /* the smaller of the latest two late frames' excess:
                     * recurring lateness, not one extreme frame */
                    const double e2 = fmin(excess, a->late_excess);
                    if (e2 > a->jitter)
                        a->jitter = fmin(e2, 4.0 * budget);
                }
                a->t_quiet = t;
                const double cc = c * a->margin;
                int k = probe_failed ? a->up_from : j + 1;
                while (k < a->nlad - 1 && !fits_j(a, k, cc, s->headroom))
                    k++;
                a->idx = k;
            } else if (j > 0) {
                const double hold = s->up_hold_s * a->hold_mult;
                if (a->since_change >= s->up_hold_frames && t - a->t_change >= hold &&
                    !late_within(a, t, hold)) {
                    /* sustained headroom (and no late frame in the hold
                     * window): the finest configuration that the worst cost
                     * of the hold window fits within headroom and its mean
                     * within up_level, with the learnt margin */
                    double cmax, cmean;
                    cost_window(a, t, hold, &cmax, &cmean);
                    cmax *= a->margin;
                    cmean *= a->margin;
                    int k = 0;
                    while (k < j && !(fits_j(a, k, cmax, s->headroom) && fits_j(a, k, cmean, s->up_level)))
                        k++;
                    a->idx = k;
                }
                /* exploration: the cost of the current spatial stride was never
                 * measured against stride 1, so the model may think it cheaper
                 * than it is (and full resolution dearer): probe the finest
                 * configuration once in a while (the back-off spaces failures) */
                const int sj = a->lad_si[j];
                /* a relative cost learnt at a load much heavier than now is
                 * stale: contention is not separable (short strided frames
                 * fit in the time slices other processes leave, full
                 * resolution does not), so it is too low now and makes full
                 * resolution look dearer than it is */
                const double cmed_now = cost_window_median(a, t);
                const int stale = a->shp_ok[sj] && sj > 1 && STALE_FACTOR * cmed_now < a->shp_c[sj];
                if (a->idx == j && s->explore_s > 0 && s->learn_overhead && sj > 1 &&
                    a->lad_si[0] == 1 && (!a->shp_conf[sj] || stale) && a->since_change >= s->up_hold_frames &&
                    t - a->t_change >= s->explore_s * a->hold_mult && !late_within(a, t, s->up_hold_s)) {
                    /* only when the model itself says full resolution fits the
                     * headroom (it was the stricter finer-step test, mean within
                     * up_level and worst within headroom, or the learnt margin
                     * and jitter allowance, that held it back), or, with a
                     * stale cost, would at least not miss */
                    if (fits(a, 0, cmed_now, stale ? s->miss_level : s->headroom))
                        a->idx = 0;
                }
            }
            if (a->idx > old) {
                reason = RV_ADAPT_COARSER;
                a->last_finer = 0;
                if (a->probe_pending && t - a->t_up < s->probe_s)
                    a->hold_mult = fmin(HOLD_MULT_MAX, a->hold_mult * 2.0);
                a->probe_pending = 0;
            } else if (a->idx < old) {
                reason = RV_ADAPT_FINER;
                a->last_finer = 1; /* a steady load before it (probes too: time-triggered) */
                a->probe_pending = 1;
                a->t_up = t;
                a->up_from = old;
            }
            if (a->idx != old) {
                a->t_change = t;
                a->since_change = 0;
            }
        }
        if (sm->late)
            a->late_excess = fmax(excess, 0.0);
    }
    if (a->nlad == 1 && reason == RV_ADAPT_KEEP)
        reason = RV_ADAPT_FIXED;

    r->next_spatial = a->lad_si[a->idx];
    r->next_temporal = a->lad_st[a->idx];
    r->cost_s = cost_fast(a);
    r->overhead = a->phi;
    r->margin = a->margin;
    r->jitter_s = a->jitter;
    r->reason = reason;
    return a->idx != old;
}

/* ------------------------------------------------------------------ */
/* Log                                                                  */
/* ------------------------------------------------------------------ */

RV_API void rv_adapt_last_record(const RV_Adapt *a, RV_AdaptRecord *rec)
{
    if (!rec)
        return;
    if (!a) {
        memset(rec, 0, sizeof(*rec));
        return;
    }
    *rec = a->last;
}

RV_API const char *rv_adapt_reason_name(RV_AdaptReason r)
{
    switch (r) {
    case RV_ADAPT_KEEP: return "keep";
    case RV_ADAPT_COARSER: return "coarser";
    case RV_ADAPT_FINER: return "finer";
    case RV_ADAPT_INVALID: return "invalid";
    case RV_ADAPT_FIXED: return "fixed";
    }
    return "?";
}

RV_API const char *rv_adapt_csv_header(void)
{
    return "frame,time_s,proc_ms,deadline_ms,budget_ms,met,s_spatial,s_temporal,pred_ms,"
           "next_spatial,next_temporal,cost_ms,overhead,reason";
}

RV_API int rv_adapt_record_csv(const RV_AdaptRecord *r, char *buf, size_t size)
{
    if (!r)
        return RV_EINVAL;
    return snprintf(buf, size, "%lld,%.9g,%.6g,%.6g,%.6g,%d,%d,%d,%.6g,%d,%d,%.6g,%.4g,%s", r->frame,
                    r->time_s, r->proc_s * 1e3, r->deadline_s * 1e3, r->budget_s * 1e3, r->met,
                    r->s_spatial, r->s_temporal, r->pred_s * 1e3, r->next_spatial, r->next_temporal,
                    r->cost_s * 1e3, r->overhead, rv_adapt_reason_name(r->reason));
}

RV_API int rv_adapt_log_write(FILE *f, const RV_AdaptRecord *rec, int header)
{
    if (!f || !rec)
        return RV_EINVAL;
    char line[512];
    int n = rv_adapt_record_csv(rec, line, sizeof(line));
    if (n < 0 || (size_t)n >= sizeof(line))
        return RV_EIO;
    if (header && fprintf(f, "%s\n", rv_adapt_csv_header()) < 0)
        return RV_EIO;
    if (fprintf(f, "%s\n", line) < 0)
        return RV_EIO;
    return 0;
}
