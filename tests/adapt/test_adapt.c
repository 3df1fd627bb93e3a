/*
 * test_adapt.c - the resolution-adaptation controller against a simulated
 * stage with an injected clock.
 *
 * The simulated stage: source frames arrive every D seconds; a processed
 * frame k at strides (S_I, S_T) starts at max(clock, k*D) and takes
 *     base * load(start) * ((1 - phi) / S_I^2 + phi) * (1 + noise * u),
 * u uniform in [-1, 1]; it has the budget S_T * D (met when its processing
 * time fits). The next processed frame is k + S_T, or the latest frame that
 * has arrived if processing fell behind (a live source).
 *
 * The expected strides in steady state come from the definition of the
 * priorities (the reference ladder below), not from the controller.
 */
#include <float.h>
#include <math.h>

#include "rv_test.h"
#include <ravioli/adapt.h>

#define D (1.0 / 30.0)
#define MAXF 20000

typedef double (*load_fn)(double t, const void *arg);

typedef struct step_load {
    double t0, t1, level; /* level in [t0, t1), 1 elsewhere */
} step_load;

static double load_step(double t, const void *arg)
{
    const step_load *l = arg;
    return (t >= l->t0 && t < l->t1) ? l->level : 1.0;
}

typedef struct frame_rec {
    double start, end, proc, budget;
    int si, st, met, changed;
    RV_AdaptRecord rec;
} frame_rec;

typedef struct sim {
    RV_Adapt *a;
    double base, phi, noise;
    const double *table; /* when set: relative cost per spatial stride instead of the formula */
    load_fn load;
    const void *load_arg;
    /* preemption by other processes: every preempt_n-th frame that starts
     * in [preempt_t0, preempt_t1) takes preempt_s longer (additive) */
    int preempt_n;
    double preempt_s, preempt_t0, preempt_t1;
    int use_latency; /* report the latency (rv_adapt_update_latency) */
    /* non-separable contention: when > 0, a frame at S_I > 1 is slowed by
     * 1 + (load - 1) * sep_w instead of load (short frames fit in the time
     * slices the competing processes leave) */
    double sep_w;
    uint64_t rng;
    double clock;
    long long k;
    int n;
    frame_rec f[MAXF];
} sim;

static sim g_sim;

static void sim_init(sim *s, const RV_AdaptSettings *set, double base, double phi, double noise,
                     load_fn load, const void *arg)
{
    memset(s, 0, sizeof(*s));
    assert_int_equal(rv_adapt_create(&s->a, set), 0);
    assert_non_null(s->a);
    s->base = base;
    s->phi = phi;
    s->noise = noise;
    s->load = load;
    s->load_arg = arg;
    s->rng = 0x1234567ULL;
    s->use_latency = getenv("RV_TEST_ADAPT_LATENCY") != NULL;
}

static double uniform(uint64_t *st)
{
    return (double)(rv_test_rand(st) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void sim_frame(sim *s)
{
    assert_true(s->n < MAXF);
    int si, st;
    rv_adapt_strides(s->a, &si, &st);
    double arrival = (double)s->k * D;
    double start = s->clock > arrival ? s->clock : arrival;
    double shape = s->table ? s->table[si] : (1.0 - s->phi) / (si * si) + s->phi;
    const double ld = s->load(start, s->load_arg);
    double proc = s->base * shape * (s->sep_w > 0 && si > 1 ? 1.0 + (ld - 1.0) * s->sep_w : ld);
    if (s->noise > 0)
        proc *= 1.0 + s->noise * uniform(&s->rng);
    if (s->preempt_n > 0 && start >= s->preempt_t0 && start < s->preempt_t1 && s->n % s->preempt_n == 0)
        proc += s->preempt_s;
    double end = start + proc;
    int ch = s->use_latency ? rv_adapt_update_latency(s->a, end, proc, end - arrival, si, st)
                            : rv_adapt_update(s->a, end, proc, si, st);
    assert_true(ch == 0 || ch == 1);
    frame_rec *f = &s->f[s->n++];
    f->start = start;
    f->end = end;
    f->proc = proc;
    f->budget = st * D;
    f->si = si;
    f->st = st;
    f->met = (s->use_latency ? end - arrival : proc) <= st * D;
    f->changed = ch;
    rv_adapt_last_record(s->a, &f->rec);
    s->clock = end;
    s->k += st;
    long long latest = (long long)floor(end / D);
    if (latest > s->k)
        s->k = latest;
}

/* RV_TEST_ADAPT_DUMP=prefix: each simulation's per-frame log to prefixNNN.csv (debugging) */
static void sim_dump(const sim *s)
{
    static int seq;
    const char *pre = getenv("RV_TEST_ADAPT_DUMP");
    if (!pre)
        return;
    char path[512];
    snprintf(path, sizeof(path), "%s%03d.csv", pre, seq++);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    for (int i = 0; i < s->n; i++)
        rv_adapt_log_write(f, &s->f[i].rec, i == 0);
    fclose(f);
}

static void sim_until(sim *s, double t)
{
    while (s->clock < t)
        sim_frame(s);
    sim_dump(s);
}

static void sim_frames(sim *s, int n)
{
    for (int i = 0; i < n; i++)
        sim_frame(s);
}

/* ---- reference: the ladder the priorities define ---- */

typedef struct ladder {
    int n, si[200], st[200];
} ladder;

static void ref_ladder(ladder *l, RV_Priority p, int max_si, int max_st)
{
    l->n = 0;
    if (p == RV_PRIORITY_TEMPORAL) {
        for (int si = 1; si <= max_si; si++)
            l->si[l->n] = si, l->st[l->n++] = 1;
        for (int st = 2; st <= max_st; st++)
            l->si[l->n] = max_si, l->st[l->n++] = st;
    } else if (p == RV_PRIORITY_SPATIAL) {
        for (int st = 1; st <= max_st; st++)
            l->si[l->n] = 1, l->st[l->n++] = st;
        for (int si = 2; si <= max_si; si++)
            l->si[l->n] = si, l->st[l->n++] = max_st;
    } else {
        /* balanced, equal max bounds: (1,1) (1,2) (2,2) (2,3) (3,3) ... */
        assert_int_equal(max_si, max_st);
        int si = 1, st = 1;
        l->si[l->n] = si, l->st[l->n++] = st;
        while (si < max_si || st < max_st) {
            if (st == si)
                st++;
            else
                si++;
            l->si[l->n] = si, l->st[l->n++] = st;
        }
    }
}

/* First configuration of the ladder whose cost fits headroom * budget. */
static void ref_choice(const ladder *l, double cost1, double phi, double headroom, int *si, int *st)
{
    for (int i = 0; i < l->n; i++) {
        double t = cost1 * ((1.0 - phi) / (l->si[i] * l->si[i]) + phi);
        if (t <= headroom * l->st[i] * D) {
            *si = l->si[i], *st = l->st[i];
            return;
        }
    }
    *si = l->si[l->n - 1], *st = l->st[l->n - 1];
}

static const RV_Priority k_prio[3] = {RV_PRIORITY_TEMPORAL, RV_PRIORITY_SPATIAL, RV_PRIORITY_BALANCED};

/* ------------------------------------------------------------------ */

static void check_step(RV_Priority prio, double level, double noise, double phi)
{
    RV_AdaptSettings set;
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    set.priority = prio;
    const double base = 0.6 * D;
    step_load L = {2.0, 5.0, level};
    sim *s = &g_sim;
    sim_init(s, &set, base, phi, noise, load_step, &L);
    sim_until(s, 8.0);

    ladder lad;
    ref_ladder(&lad, prio, 8, 8);
    int esi, est;
    ref_choice(&lad, base * level, phi, set.headroom, &esi, &est);

    int before = 0, during = 0, changes_during = 0, ok_after = 1;
    for (int i = 0; i < s->n; i++) {
        const frame_rec *f = &s->f[i];
        if (f->start < L.t0) {
            assert_true(f->met);
            assert_int_equal(f->si, 1);
            assert_int_equal(f->st, 1);
            before++;
        } else if (f->start < L.t1) {
            /* frames 0 and 1 of the step may miss; from the third on all meet
             * (the fourth when an unknown overhead is met for the first time) */
            if (during >= (phi > 0 ? 3 : 2)) {
                if (!f->met)
                    fail_msg("prio %d load %.0fx: frame %d of the step missed (%.2f ms > %.2f ms, S=%d,%d)",
                             prio, level, during, f->proc * 1e3, f->budget * 1e3, f->si, f->st);
                if (noise == 0 && phi == 0) {
                    assert_int_equal(f->si, esi);
                    assert_int_equal(f->st, est);
                }
            }
            changes_during += f->changed;
            during++;
        } else if (f->start >= L.t1 + 1.0) {
            if (f->si != 1 || f->st != 1 || !f->met)
                ok_after = 0;
        }
    }
    assert_true(before > 30);
    assert_true(during > 3);
    if (!ok_after)
        fail_msg("prio %d load %.0fx: strides not back to 1 within 1 s after the load", prio, level);
    /* one decision lands on the right stride (a learnt overhead may take a second) */
    if (noise == 0 && phi == 0)
        assert_int_equal(changes_during, 1);
    else
        assert_true(changes_during <= 3);
    rv_adapt_destroy(&s->a);
    assert_null(s->a);
}

static void test_load_steps(void **state)
{
    (void)state;
    for (int p = 0; p < 3; p++) {
        check_step(k_prio[p], 2.0, 0.0, 0.0);
        check_step(k_prio[p], 4.0, 0.0, 0.0);
        check_step(k_prio[p], 2.0, 0.05, 0.0);
        check_step(k_prio[p], 4.0, 0.05, 0.0);
    }
}

static double load_two_steps(double t, const void *arg)
{
    (void)arg;
    return (t >= 1.0 && t < 3.0) ? 4.0 : (t >= 5.0 && t < 8.0) ? 2.0 : 1.0;
}

/* With a fixed overhead (fill, conversions) the learnt model still lands
 * on the reference stride, and phi is identified. */
static void test_overhead(void **state)
{
    (void)state;
    for (int p = 0; p < 3; p++) {
        check_step(k_prio[p], 2.0, 0.0, 0.25);
        check_step(k_prio[p], 4.0, 0.02, 0.25);
    }
    /* identification: temporal, 4x, phi 0.25 */
    RV_AdaptSettings set;
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    step_load L = {1.0, 4.0, 4.0};
    sim *s = &g_sim;
    sim_init(s, &set, 0.6 * D, 0.25, 0.0, load_step, &L);
    sim_until(s, 3.9);
    double c, phi;
    rv_adapt_model(s->a, &c, &phi);
    assert_true(fabs(phi - 0.25) < 0.03);
    assert_true(fabs(c - 4.0 * 0.6 * D) < 0.05 * 4.0 * 0.6 * D);
    /* the prediction for the next frame matches the stage */
    int si, st;
    rv_adapt_strides(s->a, &si, &st);
    double truth = 4.0 * 0.6 * D * (0.75 / (si * si) + 0.25);
    assert_true(fabs(rv_adapt_predict(s->a, si) - truth) < 0.05 * truth);
    ladder lad;
    ref_ladder(&lad, RV_PRIORITY_TEMPORAL, 8, 8);
    int esi, est;
    ref_choice(&lad, 4.0 * 0.6 * D, 0.25, set.headroom, &esi, &est);
    assert_int_equal(si, esi);
    assert_int_equal(st, est);
    rv_adapt_destroy(&s->a);

    /* once phi is known, a new step is handled within 3 frames: 4x over 1..3 s
     * teaches phi, a 2x step over 5..8 s is then met from its third frame */
    for (int p = 0; p < 3; p++) {
        rv_adapt_settings_default(&set);
        set.deadline_s = D;
        set.priority = k_prio[p];
        sim_init(s, &set, 0.6 * D, 0.25, 0.02, load_two_steps, NULL);
        sim_until(s, 10.0);
        int during = 0;
        for (int i = 0; i < s->n; i++) {
            const frame_rec *f = &s->f[i];
            if (f->start >= 5.0 && f->start < 8.0) {
                if (during >= 2 && !f->met)
                    fail_msg("prio %d: frame %d of the second step missed", k_prio[p], during);
                during++;
            }
            if (f->start >= 9.0)
                assert_true(f->si == 1 && f->st == 1);
        }
        rv_adapt_model(s->a, NULL, &phi);
        if (k_prio[p] != RV_PRIORITY_SPATIAL) /* spatial never changed S_I: nothing to learn from */
            assert_true(fabs(phi - 0.25) < 0.05);
        else
            assert_true(phi == 0.0);
        rv_adapt_destroy(&s->a);
    }
}

/*
 * A stage that does not follow 1/S^2 (e.g. a vectorised full-resolution
 * loop against scalar strided ones: stride 2 saves only 20 %): after the
 * first encounter the learnt per-stride costs land the next load step on
 * the right stride at once.
 */
static const double k_table[9] = {0, 1.0, 0.8, 0.45, 0.3, 0.2, 0.15, 0.12, 0.1};

static double load_four_steps(double t, const void *arg)
{
    (void)arg;
    if (t >= 1.0 && t < 3.0)
        return 4.0;
    if (t >= 5.0 && t < 7.0)
        return 2.0;
    if (t >= 9.0 && t < 11.0)
        return 4.0;
    if (t >= 13.0 && t < 15.0)
        return 2.0;
    return 1.0;
}

static void test_learnt_shape(void **state)
{
    (void)state;
    RV_AdaptSettings set;
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    sim *s = &g_sim;
    sim_init(s, &set, 0.6 * D, 0.0, 0.02, load_four_steps, NULL);
    s->table = k_table;
    sim_until(s, 17.0);
    /* reference strides: the first with 0.6 D * load * table <= 0.85 D */
    const double steps[4][3] = {{1.0, 3.0, 4.0}, {5.0, 7.0, 2.0}, {9.0, 11.0, 4.0}, {13.0, 15.0, 2.0}};
    for (int q = 0; q < 4; q++) {
        int esi = 1;
        while (esi < 8 && 0.6 * steps[q][2] * k_table[esi] > 0.85)
            esi++;
        int during = 0, changes = 0, missed_late = 0;
        for (int i = 0; i < s->n; i++) {
            const frame_rec *f = &s->f[i];
            if (f->start >= steps[q][0] && f->start < steps[q][1]) {
                /* the second encounter of each level: met from the third frame */
                if (q >= 2 && during >= 2 && !f->met)
                    fail_msg("step %d: frame %d missed (S_I %d)", q, during, f->si);
                if (during >= 30) { /* settled (1 s) */
                    assert_int_equal(f->si, esi);
                    missed_late += !f->met;
                }
                changes += f->changed;
                during++;
            }
            if (f->start >= steps[q][1] + 1.0 && f->start < steps[q][1] + 2.0)
                assert_true(f->si == 1 && f->st == 1);
        }
        assert_int_equal(missed_late, 0);
        if (q >= 2)
            assert_true(changes <= 1);
    }
    /* the learnt costs of the strides it ran at are the stage's */
    for (int si = 2; si <= 4; si++) {
        double sh = rv_adapt_shape(s->a, si);
        if (si == 3 || si == 4)
            if (!(fabs(sh - k_table[si]) < 0.1 * k_table[si]))
                fail_msg("shape(%d) = %.4f, stage %.4f", si, sh, k_table[si]);
    }
    assert_true(fabs(rv_adapt_shape(s->a, 1) - 1.0) < 1e-12);
    rv_adapt_destroy(&s->a);
}

/*
 * Exploration. A stage whose strides 2 and 3 save almost nothing: after a
 * 5.7x load the controller comes back through stride 2, whose cost it only
 * knows by interpolation (too low: it makes full resolution look dear), and
 * without probing it would stay there for good. With the probe it is back
 * at full resolution within explore_s plus the hold after the load.
 */
static const double k_flat[9] = {0, 1.0, 0.95, 0.9, 0.25, 0.2, 0.15, 0.12, 0.1};

static void test_exploration(void **state)
{
    (void)state;
    for (int explore = 1; explore >= 0; explore--) {
        RV_AdaptSettings set;
        rv_adapt_settings_default(&set);
        set.deadline_s = D;
        if (!explore)
            set.explore_s = 0;
        step_load L = {1.0, 3.0, 5.72};
        sim *s = &g_sim;
        sim_init(s, &set, 0.6 * D, 0.0, 0.0, load_step, &L);
        s->table = k_flat;
        sim_until(s, 8.0);
        int full_after = 1;
        for (int i = 0; i < s->n; i++)
            if (s->f[i].start >= 3.0 + 1.5 && (s->f[i].si != 1 || s->f[i].st != 1 || !s->f[i].met))
                full_after = 0;
        /* Without the probe the controller used to stay at stride 2 for
         * good; since a finer step whose first frame is late is undone at
         * once, the model learns stride 8 against stride 1 on the way and
         * does not fall into that trap here, so only the probe's side is
         * asserted. */
        if (explore)
            assert_true(full_after);
        rv_adapt_destroy(&s->a);
    }
}

/* A ramp up to a very high load and back, checking the priority rules at every frame. */
typedef struct ramp_load {
    double peak;
} ramp_load;

static double load_ramp(double t, const void *arg)
{
    const ramp_load *r = arg;
    /* log-linear up over 0..4 s, down over 4..8 s */
    double x = t < 4.0 ? t / 4.0 : t < 8.0 ? (8.0 - t) / 4.0 : 0.0;
    return exp(x * log(r->peak));
}

static void test_priorities(void **state)
{
    (void)state;
    for (int p = 0; p < 3; p++) {
        RV_AdaptSettings set;
        rv_adapt_settings_default(&set);
        set.deadline_s = D;
        set.priority = k_prio[p];
        set.max_spatial = 6;
        set.max_temporal = 6;
        ramp_load R = {300.0};
        sim *s = &g_sim;
        sim_init(s, &set, 0.6 * D, 0.0, 0.03, load_ramp, &R);
        sim_until(s, 10.0);
        int max_si = 1, max_st = 1;
        for (int i = 0; i < s->n; i++) {
            int si = s->f[i].si, st = s->f[i].st;
            assert_true(si >= 1 && si <= 6 && st >= 1 && st <= 6);
            if (si > max_si)
                max_si = si;
            if (st > max_st)
                max_st = st;
            if (k_prio[p] == RV_PRIORITY_TEMPORAL && st > 1)
                assert_int_equal(si, 6); /* S_T only once S_I is at its bound */
            if (k_prio[p] == RV_PRIORITY_SPATIAL && si > 1)
                assert_int_equal(st, 6); /* S_I only once S_T is at its bound */
            if (k_prio[p] == RV_PRIORITY_BALANCED)
                assert_true(st == si || st == si + 1);
        }
        /* the peak needs both strides under every priority */
        assert_true(max_si > 1 && max_st > 1);
        /* and the end of the ramp is back at full resolution */
        assert_int_equal(s->f[s->n - 1].si, 1);
        assert_int_equal(s->f[s->n - 1].st, 1);
        rv_adapt_destroy(&s->a);
    }
}

/* Steady load with +-5 % noise: after settling the strides stay constant. */
static void test_no_oscillation(void **state)
{
    (void)state;
    int cases = 0;
    for (int p = 0; p < 3; p++) {
        for (double level = 0.5; level < 60.0; level *= 1.07) {
            RV_AdaptSettings set;
            rv_adapt_settings_default(&set);
            set.deadline_s = D;
            set.priority = k_prio[p];
            step_load L = {0.0, 1e9, level};
            sim *s = &g_sim;
            sim_init(s, &set, 0.6 * D, 0.0, 0.05, load_step, &L);
            s->rng = 0x9E3779B97F4A7C15ULL ^ (uint64_t)(level * 1000);
            sim_frames(s, 1000);
            int changes = 0, reversals = 0, last_dir = 0;
            for (int i = 0; i < s->n; i++) {
                RV_AdaptReason r = s->f[i].rec.reason;
                int dir = r == RV_ADAPT_COARSER ? 1 : r == RV_ADAPT_FINER ? -1 : 0;
                if (dir && last_dir && dir != last_dir)
                    reversals++;
                if (dir)
                    last_dir = dir;
                if (i >= 300)
                    changes += s->f[i].changed;
            }
            if (changes || reversals)
                fail_msg("prio %d load %.3f: %d changes after frame 300, %d reversals", k_prio[p], level,
                         changes, reversals);
            rv_adapt_destroy(&s->a);
            cases++;
        }
    }
    assert_true(cases > 150);
}

/* Frame times sustained just under the deadline (97 % +- 2 %: no single frame
 * would miss, but any jitter makes frames late) are not kept: the strides go
 * coarser within half a second, once, and stay. */
static void test_sustained_near_deadline(void **state)
{
    (void)state;
    RV_AdaptSettings set;
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    step_load L = {0.0, 1e9, 0.97 / 0.6};
    sim *s = &g_sim;
    sim_init(s, &set, 0.6 * D, 0.0, 0.02, load_step, &L);
    sim_until(s, 5.0);
    int changes = 0;
    for (int i = 0; i < s->n; i++) {
        assert_true(s->f[i].proc <= D); /* never a missed frame by itself */
        changes += s->f[i].changed;
        if (s->f[i].start >= 0.5) {
            assert_int_equal(s->f[i].si, 2);
            assert_int_equal(s->f[i].st, 1);
        }
    }
    assert_int_equal(changes, 1);
    rv_adapt_destroy(&s->a);
}

/* A single slow frame (page faults, a preempted worker) changes nothing. */
static void test_spike_ignored(void **state)
{
    (void)state;
    RV_AdaptSettings set;
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    RV_Adapt *a = NULL;
    assert_int_equal(rv_adapt_create(&a, &set), 0);
    double t = 0;
    for (int i = 0; i < 200; i++) {
        double proc = (i == 100) ? 20 * D : 0.5 * D;
        t += D;
        assert_int_equal(rv_adapt_update(a, t, proc, 1, 1), 0);
    }
    int si, st;
    rv_adapt_strides(a, &si, &st);
    assert_int_equal(si, 1);
    assert_int_equal(st, 1);
    rv_adapt_destroy(&a);
}

static void test_bounds_fixed(void **state)
{
    (void)state;
    ramp_load R = {1000.0};
    struct {
        int max_si, max_st, fix_si, fix_st, enabled;
        int lo_si, hi_si, lo_st, hi_st;
    } cases[] = {
        {3, 2, 0, 0, 1, 1, 3, 1, 2},  /* bounds */
        {8, 8, 2, 0, 1, 2, 2, 1, 8},  /* S_I fixed, S_T adapts */
        {8, 8, 0, 3, 1, 1, 8, 3, 3},  /* S_T fixed, S_I adapts */
        {8, 8, 4, 2, 1, 4, 4, 2, 2},  /* both fixed */
        {8, 8, 0, 0, 0, 1, 1, 1, 1},  /* disabled */
        {8, 8, 3, 0, 0, 3, 3, 1, 1},  /* disabled with a fixed S_I */
        {2, 2, 5, 0, 1, 5, 5, 1, 2},  /* fixed above the bound raises it */
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        for (int p = 0; p < 3; p++) {
            RV_AdaptSettings set;
            rv_adapt_settings_default(&set);
            set.deadline_s = D;
            set.priority = k_prio[p];
            set.max_spatial = cases[c].max_si;
            set.max_temporal = cases[c].max_st;
            set.fixed_spatial = cases[c].fix_si;
            set.fixed_temporal = cases[c].fix_st;
            set.enabled = cases[c].enabled;
            sim *s = &g_sim;
            sim_init(s, &set, 0.6 * D, 0.0, 0.02, load_ramp, &R);
            sim_until(s, 10.0);
            int seen_hi_si = 0, seen_hi_st = 0;
            for (int i = 0; i < s->n; i++) {
                const frame_rec *f = &s->f[i];
                assert_true(f->si >= cases[c].lo_si && f->si <= cases[c].hi_si);
                assert_true(f->st >= cases[c].lo_st && f->st <= cases[c].hi_st);
                seen_hi_si |= f->si == cases[c].hi_si;
                seen_hi_st |= f->st == cases[c].hi_st;
                if (cases[c].lo_si == cases[c].hi_si && cases[c].lo_st == cases[c].hi_st)
                    assert_int_equal(f->changed, 0);
            }
            /* the load peak (1000x) needs every reduction there is */
            assert_true(seen_hi_si && seen_hi_st);
            rv_adapt_destroy(&s->a);
        }
    }
}

static void test_bad_settings(void **state)
{
    (void)state;
    RV_Adapt *a = (RV_Adapt *)&a; /* must be overwritten with NULL */
    RV_AdaptSettings set;
    rv_adapt_settings_default(&set);
    assert_true(set.deadline_s == 0.0); /* required: the caller sets it */
    assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    assert_int_equal(rv_adapt_create(NULL, &set), RV_EINVAL);
    assert_int_equal(rv_adapt_create(&a, NULL), RV_EINVAL);
    assert_null(a);
    const double bad_deadlines[] = {0.0, -1.0, NAN, INFINITY};
    for (int i = 0; i < 4; i++) {
        rv_adapt_settings_default(&set);
        set.deadline_s = bad_deadlines[i];
        assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    }
    /* each case below differs from a valid setting in one field */
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    assert_int_equal(rv_adapt_create(&a, &set), 0);
    rv_adapt_destroy(&a);
    set.up_level = 0.9; /* above headroom */
    assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    set.explore_s = -1;
    assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    set.headroom = 0;
    assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    set.headroom = 1.5;
    assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    set.headroom = NAN;
    assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    set.miss_level = 0.5;
    assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    set.max_spatial = 0;
    assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    set.max_spatial = RV_ADAPT_MAX_STRIDE + 1;
    assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    set.fixed_temporal = 1000;
    assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    set.priority = (RV_Priority)7;
    assert_int_equal(rv_adapt_create(&a, &set), RV_EINVAL);
    assert_null(a);
    /* NULL handles are harmless */
    assert_int_equal(rv_adapt_update(NULL, 0, 0.01, 1, 1), RV_EINVAL);
    int si = 9, st = 9;
    rv_adapt_strides(NULL, &si, &st);
    assert_int_equal(si, 1);
    assert_int_equal(st, 1);
    rv_adapt_destroy(NULL);
    rv_adapt_destroy(&a);
    rv_adapt_reset(NULL);
}

static void test_extreme_inputs(void **state)
{
    (void)state;
    for (int p = 0; p < 3; p++) {
        RV_AdaptSettings set;
        rv_adapt_settings_default(&set);
        set.deadline_s = D;
        set.priority = k_prio[p];
        RV_Adapt *a = NULL;
        assert_int_equal(rv_adapt_create(&a, &set), 0);
        int si, st;
        /* garbage measurements are ignored */
        const double bad[] = {0.0, -1.0, -0.0, NAN, -INFINITY, INFINITY};
        double t = 0;
        for (int r = 0; r < 20; r++)
            for (int i = 0; i < 6; i++) {
                t += D;
                assert_int_equal(rv_adapt_update(a, t, bad[i], 1, 1), 0);
                RV_AdaptRecord rec;
                rv_adapt_last_record(a, &rec);
                assert_int_equal(rec.reason, RV_ADAPT_INVALID);
                rv_adapt_strides(a, &si, &st);
                assert_int_equal(si, 1);
                assert_int_equal(st, 1);
            }
        /* bad clocks and bad strides reported back */
        const double bad_t[] = {NAN, INFINITY, -INFINITY, -5.0, 0.0};
        for (int i = 0; i < 5; i++) {
            assert_true(rv_adapt_update(a, bad_t[i], 0.5 * D, (i % 2) ? -3 : 1000, (i % 2) ? 0 : 1 << 30) >= 0);
            RV_AdaptRecord rec;
            rv_adapt_last_record(a, &rec);
            assert_true(isfinite(rec.time_s));
            assert_true(rec.s_spatial >= 1 && rec.s_spatial <= RV_ADAPT_MAX_STRIDE);
            assert_true(rec.s_temporal >= 1 && rec.s_temporal <= RV_ADAPT_MAX_STRIDE);
        }
        rv_adapt_reset(a);
        rv_adapt_strides(a, &si, &st);
        assert_int_equal(si, 1);
        assert_int_equal(st, 1);
        /* huge times: the coarsest strides, never more */
        t = 0;
        for (int i = 0; i < 10; i++) {
            t += D;
            rv_adapt_strides(a, &si, &st);
            rv_adapt_update(a, t, (i % 2) ? 1e300 : DBL_MAX, si, st);
        }
        rv_adapt_strides(a, &si, &st);
        assert_int_equal(si, 8);
        assert_int_equal(st, 8);
        double c;
        rv_adapt_model(a, &c, NULL);
        assert_true(isfinite(c));
        RV_AdaptRecord rec;
        rv_adapt_last_record(a, &rec);
        char line[512];
        int n = rv_adapt_record_csv(&rec, line, sizeof(line));
        assert_true(n > 0 && n < (int)sizeof(line));
        /* normal times again: back to full resolution within 1 s */
        double t_end = t;
        while (t < t_end + 1.0) {
            rv_adapt_strides(a, &si, &st);
            t += st * D;
            rv_adapt_update(a, t, 0.5 * D / (si * si), si, st);
        }
        rv_adapt_strides(a, &si, &st);
        assert_int_equal(si, 1);
        assert_int_equal(st, 1);
        /* tiny times (1 ns) */
        for (int i = 0; i < 50; i++) {
            t += D;
            rv_adapt_update(a, t, 1e-9, 1, 1);
        }
        rv_adapt_strides(a, &si, &st);
        assert_int_equal(si, 1);
        assert_int_equal(st, 1);
        rv_adapt_destroy(&a);
    }
}

/* The record and its CSV form. */
static void test_log(void **state)
{
    (void)state;
    RV_AdaptSettings set;
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    RV_Adapt *a = NULL;
    assert_int_equal(rv_adapt_create(&a, &set), 0);
    RV_AdaptRecord rec;
    rv_adapt_last_record(a, &rec);
    assert_int_equal(rec.next_spatial, 1);
    assert_int_equal(rec.next_temporal, 1);

    /* steady 0.5 D: the prediction of frame 2 is exact */
    for (int i = 0; i < 3; i++)
        rv_adapt_update(a, (i + 1) * D, 0.5 * D, 1, 1);
    rv_adapt_last_record(a, &rec);
    assert_int_equal(rec.frame, 2);
    assert_true(fabs(rec.pred_s - 0.5 * D) < 1e-12);
    assert_true(fabs(rec.cost_s - 0.5 * D) < 1e-12);
    assert_int_equal(rec.met, 1);
    assert_int_equal(rec.reason, RV_ADAPT_KEEP);

    /* two late frames: the second decides, lands on S_I = 2 (2.0 D / 4 <= 0.85 D) */
    rv_adapt_update(a, 4 * D, 2.0 * D, 1, 1);
    rv_adapt_last_record(a, &rec);
    assert_int_equal(rec.met, 0);
    assert_int_equal(rec.reason, RV_ADAPT_KEEP);
    assert_int_equal(rv_adapt_update(a, 5 * D, 2.0 * D, 1, 1), 1);
    rv_adapt_last_record(a, &rec);
    assert_int_equal(rec.reason, RV_ADAPT_COARSER);
    assert_int_equal(rec.next_spatial, 2);
    assert_int_equal(rec.next_temporal, 1);
    assert_true(fabs(rec.budget_s - D) < 1e-15);

    char line[512];
    int n = rv_adapt_record_csv(&rec, line, sizeof(line));
    assert_true(n > 0 && n < (int)sizeof(line));
    /* as many fields as the header, and the values read back */
    int commas_h = 0, commas_l = 0;
    for (const char *c = rv_adapt_csv_header(); *c; c++)
        commas_h += *c == ',';
    for (const char *c = line; *c; c++)
        commas_l += *c == ',';
    assert_int_equal(commas_h, 13);
    assert_int_equal(commas_l, commas_h);
    long long fr;
    double tm, proc, dl, bud, pred, cost, ovh;
    int met, si, st, nsi, nst;
    char reason[16];
    assert_int_equal(sscanf(line, "%lld,%lf,%lf,%lf,%lf,%d,%d,%d,%lf,%d,%d,%lf,%lf,%15s", &fr, &tm, &proc, &dl,
                            &bud, &met, &si, &st, &pred, &nsi, &nst, &cost, &ovh, reason),
                     14);
    assert_int_equal(fr, 4);
    assert_true(fabs(tm - 5 * D) < 1e-6);
    assert_true(fabs(proc - 2e3 * D) < 1e-3);
    assert_true(fabs(dl - 1e3 * D) < 1e-3);
    assert_int_equal(met, 0);
    assert_int_equal(nsi, 2);
    assert_string_equal(reason, "coarser");

    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(rv_adapt_log_write(f, &rec, 1), 0);
    rewind(f);
    char buf[1024];
    assert_non_null(fgets(buf, sizeof(buf), f));
    assert_int_equal(strncmp(buf, "frame,time_s,", 13), 0);
    assert_non_null(fgets(buf, sizeof(buf), f));
    buf[strcspn(buf, "\n")] = 0;
    assert_string_equal(buf, line);
    fclose(f);
    assert_int_equal(rv_adapt_log_write(NULL, &rec, 0), RV_EINVAL);
    assert_string_equal(rv_adapt_reason_name(RV_ADAPT_FINER), "finer");
    rv_adapt_destroy(&a);
}

/* A finer step that fails at once doubles the hold (no fast flapping when the
 * model is wrong): the stage's real cost at S_I = 1 is higher than the
 * overhead-free model predicts from S_I = 2 ... only at S_I = 1. */
static void test_backoff(void **state)
{
    (void)state;
    RV_AdaptSettings set;
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    set.learn_overhead = 0;
    RV_Adapt *a = NULL;
    assert_int_equal(rv_adapt_create(&a, &set), 0);
    double t = 0;
    int flips = 0, si, st;
    for (int i = 0; i < 600; i++) { /* 20 s */
        rv_adapt_strides(a, &si, &st);
        /* at S_I = 2 looks like 0.7 D at full resolution; at S_I = 1 it is 1.3 D */
        double proc = si == 1 ? 1.3 * D : 0.7 * D / (si * si);
        t += D;
        flips += rv_adapt_update(a, t, proc, si, st);
    }
    /* without back-off it would flip every ~0.3 s (~65 changes in 20 s) */
    assert_true(flips < 30);
    rv_adapt_destroy(&a);
}

/*
 * Preemption: other processes take the CPU for a time slice now and then,
 * so every 10th frame is 0.7 D later (additive, not proportional to the
 * work: the median cost model does not see it). With the latency reported,
 * the late-frame rule learns a jitter allowance and settles on strides
 * whose budget holds it: after a reaction window of 1 s at least 99 % of the
 * frames are on time; after the preemption ends the strides are back at
 * (1,1) within 3 s (the allowance halves per quiet second).
 */
static void check_preemption(RV_Priority prio, double base, double extra, double *ret_s, double *met_ratio)
{
    RV_AdaptSettings set;
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    set.priority = prio;
    step_load L = {0.0, 0.0, 1.0};
    sim *s = &g_sim;
    sim_init(s, &set, base, 0.0, 0.02, load_step, &L);
    s->use_latency = 1;
    s->preempt_n = 10;
    s->preempt_s = extra;
    s->preempt_t0 = 2.0;
    s->preempt_t1 = 12.0;
    sim_until(s, 18.0);
    int n = 0, met = 0, late_before = 0;
    double back = -1;
    for (int i = 0; i < s->n; i++) {
        const frame_rec *f = &s->f[i];
        if (f->start < 2.0)
            late_before += !f->met;
        if (f->start >= 3.0 && f->start < 12.0) {
            n++;
            met += f->met;
        }
        if (f->start >= 12.0 && back < 0 && f->si == 1 && f->st == 1) {
            /* back for good */
            int stays = 1;
            for (int j = i; j < s->n; j++)
                stays &= s->f[j].si == 1 && s->f[j].st == 1 && s->f[j].met;
            if (stays)
                back = f->start - 12.0;
        }
    }
    assert_int_equal(late_before, 0);
    assert_true(n > 100);
    *met_ratio = (double)met / n;
    *ret_s = back;
    rv_adapt_destroy(&s->a);
}

static void test_preemption(void **state)
{
    (void)state;
    for (int p = 0; p < 3; p++) {
        const double extra[2] = {0.7 * D, 1.2 * D};
        for (int e = 0; e < 2; e++) {
            double ret, ratio;
            check_preemption(k_prio[p], 0.5 * D, extra[e], &ret, &ratio);
            if (getenv("RV_TEST_ADAPT_VERBOSE"))
                print_message("prio %d extra %.1f D: %.2f %% on time, back at (1,1) %.2f s after\n", p,
                              extra[e] / D, 100 * ratio, ret);
            if (ratio < 0.99)
                fail_msg("prio %d extra %.1f D: %.2f %% on time after the reaction window", p, extra[e] / D,
                         100 * ratio);
            if (!(ret >= 0 && ret <= 3.0))
                fail_msg("prio %d extra %.1f D: not back at (1,1) within 3 s (%.2f)", p, extra[e] / D, ret);
        }
    }
}

/* A finer step whose first frame is late is undone in that same update,
 * the hold doubles (back-off) and the model's margin grows. */
static void test_failed_probe_undone(void **state)
{
    (void)state;
    RV_AdaptSettings set;
    rv_adapt_settings_default(&set);
    set.deadline_s = D;
    RV_Adapt *a = NULL;
    assert_int_equal(rv_adapt_create(&a, &set), 0);
    double t = 0;
    int si = 1, st = 1;
    /* steady at 0.5 D, then 3x: coarser */
    for (int i = 0; i < 60; i++) {
        double proc = (i < 30 ? 0.5 : 1.5) * D * (si == 1 ? 1.0 : 1.0 / (si * si));
        t += D;
        rv_adapt_update_latency(a, t, proc, proc, si, st);
        rv_adapt_strides(a, &si, &st);
    }
    assert_int_equal(si, 2);
    assert_int_equal(st, 1);
    /* the load ends: the next finer step goes to (1,1) */
    int guard = 0;
    while (si != 1 && guard++ < 100) {
        double proc = 0.5 * D / (si * si);
        t += D;
        rv_adapt_update_latency(a, t, proc, proc, si, st);
        rv_adapt_strides(a, &si, &st);
    }
    assert_int_equal(si, 1);
    /* ... but its first frame is late (the model was too optimistic) */
    t += D;
    assert_int_equal(rv_adapt_update_latency(a, t, 0.9 * D, 1.1 * D, 1, 1), 1);
    RV_AdaptRecord r;
    rv_adapt_last_record(a, &r);
    assert_int_equal(r.met, 0);
    assert_int_equal(r.reason, RV_ADAPT_COARSER);
    assert_int_equal(r.next_spatial, 2);
    assert_true(r.margin > 1.0);
    assert_true(fabs(r.latency_s - 1.1 * D) < 1e-12);
    /* the hold doubled: no finer step within 2 x up_hold_s */
    rv_adapt_strides(a, &si, &st);
    const double t_back = t;
    while (t < t_back + 2 * set.up_hold_s - 0.5 * D) {
        t += D;
        double proc = 0.2 * D / (si * si);
        rv_adapt_update_latency(a, t, proc, proc, si, st);
        rv_adapt_strides(a, &si, &st);
        assert_int_equal(si, 2);
    }
    /* a latency below proc_s or not finite is replaced by proc_s */
    t += D;
    rv_adapt_update_latency(a, t, 0.1 * D, NAN, si, st);
    rv_adapt_last_record(a, &r);
    assert_true(r.latency_s == r.proc_s && r.met);
    t += D;
    rv_adapt_update_latency(a, t, 0.1 * D, 0.01 * D, si, st);
    rv_adapt_last_record(a, &r);
    assert_true(r.latency_s == r.proc_s);
    assert_int_equal(rv_adapt_update_latency(NULL, t, 0.1, 0.1, 1, 1), RV_EINVAL);
    rv_adapt_destroy(&a);
}

/*
 * Non-separable contention (seen on the real CPU load): under the load, the
 * strided frames are slowed less than the full-resolution ones, so the
 * ratio learnt when the controller left stride 1 is lower than the idle
 * ratio, and after the load the model thinks full resolution dearer than
 * it is. The strides must still be back at (1,1) within 1.5 s after the
 * load ends.
 */
static void test_nonseparable(void **state)
{
    (void)state;
    static const double idle[9] = {0, 1.0, 0.6, 0.45, 0.3, 0.2, 0.15, 0.12, 0.1};
    const double levels[3] = {2.0, 3.0, 4.0};
    for (int p = 0; p < 3; p++)
        for (int l = 0; l < 3; l++) {
            RV_AdaptSettings set;
            rv_adapt_settings_default(&set);
            set.deadline_s = D;
            set.priority = k_prio[p];
            step_load L = {2.0, 5.0, levels[l]};
            sim *s = &g_sim;
            sim_init(s, &set, 0.55 * D, 0.0, 0.03, load_step, &L);
            s->table = idle;
            s->sep_w = 0.5;
            s->use_latency = 1;
            sim_until(s, 9.0);
            double back = -1;
            for (int i = 0; i < s->n; i++) {
                const frame_rec *f = &s->f[i];
                if (f->start >= L.t1 && back < 0 && f->si == 1 && f->st == 1) {
                    int stays = 1;
                    for (int j = i; j < s->n; j++)
                        stays &= s->f[j].si == 1 && s->f[j].st == 1;
                    if (stays)
                        back = f->start - L.t1;
                }
            }
            if (getenv("RV_TEST_ADAPT_VERBOSE"))
                print_message("prio %d load %.0fx: back at (1,1) %.2f s after the load\n", p, levels[l], back);
            if (!(back >= 0 && back <= 1.5))
                fail_msg("prio %d load %.0fx: not back at (1,1) within 1.5 s (%.2f)", p, levels[l], back);
            rv_adapt_destroy(&s->a);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_settings),
        cmocka_unit_test(test_log),
        cmocka_unit_test(test_load_steps),
        cmocka_unit_test(test_overhead),
        cmocka_unit_test(test_learnt_shape),
        cmocka_unit_test(test_exploration),
        cmocka_unit_test(test_priorities),
        cmocka_unit_test(test_no_oscillation),
        cmocka_unit_test(test_spike_ignored),
        cmocka_unit_test(test_sustained_near_deadline),
        cmocka_unit_test(test_bounds_fixed),
        cmocka_unit_test(test_extreme_inputs),
        cmocka_unit_test(test_backoff),
        cmocka_unit_test(test_preemption),
        cmocka_unit_test(test_failed_probe_undone),
        cmocka_unit_test(test_nonseparable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
