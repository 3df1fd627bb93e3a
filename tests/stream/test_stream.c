/*
 * test_stream.c - RV_StageVector, RV_Data and RV_Streaming on the CPU
 * backend, with a test-only source (rv_streaming_create_custom) whose frames
 * encode their sequence number, so every check can tell which frame it saw.
 *
 * Nothing here depends on the adaptation controller: adaptation is off in
 * every test (strides are fixed by the settings).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <time.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>

#include "stream_util.h"


#define W 32
#define H 16

/* ------------------------------------------------------------------ */
/* Test source                                                          */
/* ------------------------------------------------------------------ */

typedef struct test_src {
    atomic_llong next;    /* next sequence number to deliver */
    long long limit;      /* frames before end of stream; -1 endless */
    int delay_us;         /* per frame */
    int eagain_every;     /* > 0: every n-th call returns RV_EAGAIN first */
    long long fail_at;    /* >= 0: this frame fails with RV_EIO */
    atomic_int calls;
} test_src;

static RV_Pixel pattern(int x, int y, long long seq)
{
    return rv_rgba((int)((x + seq) & 255), (int)((y + (seq >> 8)) & 255), (int)((x * y + seq * 7) & 255), 255);
}

static long long decode_seq(RV_Image *img)
{
    const RV_Pixel *p = rv_image_read(img, 0, NULL);
    assert_non_null(p);
    return (long long)rv_r(p[0]) + 256LL * rv_g(p[0]);
}

static int test_read(void *user, RV_Image *frame, long long *pts, int timeout_ms)
{
    test_src *s = user;
    (void)timeout_ms;
    int call = atomic_fetch_add(&s->calls, 1);
    if (s->eagain_every > 0 && call % s->eagain_every == 0)
        return RV_EAGAIN;
    long long seq = atomic_load(&s->next);
    if (s->limit >= 0 && seq >= s->limit)
        return RV_EPIPE;
    if (s->fail_at >= 0 && seq == s->fail_at)
        return RV_EIO;
    if (s->delay_us)
        usleep((useconds_t)s->delay_us);
    ptrdiff_t pitch;
    unsigned char *d = rv_image_write(frame, 0, &pitch);
    if (!d)
        return RV_EIO;
    for (int y = 0; y < H; y++) {
        RV_Pixel *row = (RV_Pixel *)(d + y * pitch);
        for (int x = 0; x < W; x++)
            row[x] = pattern(x, y, seq);
    }
    if (pts)
        *pts = seq * 1000;
    atomic_store(&s->next, seq + 1);
    return 0;
}

static void src_init(test_src *s, long long limit)
{
    memset(s, 0, sizeof(*s));
    atomic_init(&s->next, 0);
    atomic_init(&s->calls, 0);
    s->limit = limit;
    s->fail_at = -1;
}

static RV_VideoInfo test_info(void)
{
    return rv_test_video_info(W, H, -1);
}

static void settings(RV_StreamSettings *s)
{
    rv_stream_settings_default(s);
    s->adapt.enabled = 0;
    s->read_timeout_ms = 10;
}

static void assert_identity(const RV_StreamSummary *sum)
{
    assert_int_equal(sum->in_flight, 0);
    assert_int_equal(sum->captured, sum->processed + sum->skipped + sum->dropped);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------ */
/* Recording stages and callback                                        */
/* ------------------------------------------------------------------ */

#define MAXREC 4096
typedef struct rec {
    long long seq[MAXREC];    /* frame index of each processed frame (from the callback) */
    int n;
    int repeats;
    long long repeat_content[MAXREC]; /* content of the repeated output */
    int nrep;
    int stage_sleep_ms;
    long long fail_frame;
    long long stop_frame;
    long long stop_cb_after;
    int trace[64];
    int ntrace;
    int mismatches;           /* frame content vs meta.index */
    int expect_si;
    int stride_mismatch;
} rec;

static void rec_init(rec *r)
{
    memset(r, 0, sizeof(*r));
    r->fail_frame = -1;
    r->stop_frame = -1;
    r->stop_cb_after = -1;
}

static void stage_check(RV_Image *frame, RV_Data *d)
{
    rec *r = rv_data_user(d);
    const RV_FrameMeta *m = rv_data_frame(d);
    if (decode_seq(frame) != m->index)
        r->mismatches++;
    if (r->expect_si && (rv_image_stride(frame) != r->expect_si || m->spatial_stride != r->expect_si))
        r->stride_mismatch++;
    if (r->stage_sleep_ms)
        sleep_ms(r->stage_sleep_ms);
    if (r->fail_frame >= 0 && m->index == r->fail_frame)
        rv_data_fail(d, RV_EBADMSG, "test failure at frame %lld", m->index);
    if (r->stop_frame >= 0 && m->index == r->stop_frame)
        rv_data_request_stop(d);
}

static int on_frame(void *user, RV_Image *frame, const RV_FrameInfo *info, const RV_Data *d)
{
    rec *r = user;
    (void)d;
    if (info->repeated) {
        r->repeats++;
        if (frame && r->nrep < MAXREC)
            r->repeat_content[r->nrep++] = decode_seq(frame);
        return 0;
    }
    assert_non_null(frame);
    if (r->n < MAXREC)
        r->seq[r->n++] = info->meta.index;
    if (r->stop_cb_after >= 0 && r->n >= r->stop_cb_after)
        return 1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* The usual rig: one CPU thread, the checking stage, the test source  */
/* and the recording callback. A test adjusts r, src and s, then runs. */
/* ------------------------------------------------------------------ */

typedef struct rig {
    RV_Context *ctx;
    RV_StageVector *sv;
    RV_Streaming *st;
    RV_StreamSettings s;
    RV_VideoInfo vi;
    RV_StreamSummary sum;
    test_src src;
    rec r;
} rig;

static rig *rig_open(long long limit)
{
    rig *g = calloc(1, sizeof(*g));
    assert_non_null(g);
    g->ctx = rv_test_cpu_context(1);
    assert_int_equal(rv_stage_vector_create(g->ctx, &g->sv), 0);
    rec_init(&g->r);
    assert_int_equal(rv_stage_vector_push(g->sv, stage_check, &g->r, "check"), 0);
    src_init(&g->src, limit);
    settings(&g->s);
    g->s.on_frame = on_frame;
    g->s.user = &g->r;
    g->vi = test_info();
    return g;
}

/* Creates the stream from the current settings (done by rig_run when not yet). */
static void rig_create(rig *g)
{
    assert_int_equal(rv_streaming_create_custom(g->ctx, &g->vi, test_read, &g->src, &g->s, &g->st), 0);
}

/* Runs once, fills g->sum, checks the accounting identity and that every
 * frame a stage saw was the frame it claimed; returns the run's result. */
static int rig_run(rig *g)
{
    if (!g->st)
        rig_create(g);
    int rc = rv_streaming_run(g->st, g->sv);
    assert_int_equal(rv_streaming_summary(g->st, &g->sum), 0);
    assert_identity(&g->sum);
    assert_int_equal(g->r.mismatches, 0);
    return rc;
}

static void rig_close(rig **pg)
{
    rig *g = *pg;
    rv_streaming_destroy(&g->st);
    rv_stage_vector_destroy(&g->sv);
    rv_context_destroy(&g->ctx);
    free(g);
    *pg = NULL;
}

/* ------------------------------------------------------------------ */
/* Stage order, data passing, scratch images                            */
/* ------------------------------------------------------------------ */

typedef struct order_ctx {
    rec *r;
    int id;
} order_ctx;

static void stage_order(RV_Image *frame, RV_Data *d)
{
    order_ctx *o = rv_data_user(d);
    (void)frame;
    assert_int_equal(rv_data_stage_index(d), o->id);
    if (o->r->ntrace < 64)
        o->r->trace[o->r->ntrace++] = o->id;
    /* Stage k reads what stage k-1 stored for this frame and adds 1. */
    double v[2] = {0, 0};
    long long fi = -1;
    if (o->id == 0) {
        v[0] = (double)rv_data_frame(d)->index * 10.0;
    } else {
        assert_int_equal(rv_data_get(d, "chain", v, 2, &fi), 2);
        assert_int_equal(fi, rv_data_frame(d)->index);
        v[0] += 1.0;
    }
    v[1] = (double)o->id;
    assert_int_equal(rv_data_put(d, "chain", v, 2), 0);
}

static void test_stage_order_and_data(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    RV_StageVector *sv = NULL;
    assert_int_equal(rv_stage_vector_create(ctx, &sv), 0);
    rec r;
    rec_init(&r);
    order_ctx oc[3] = {{&r, 0}, {&r, 1}, {&r, 2}};
    assert_int_equal(rv_stage_vector_push(sv, NULL, NULL, "x"), RV_EINVAL);
    for (int i = 0; i < 3; i++)
        assert_int_equal(rv_stage_vector_push(sv, stage_order, &oc[i], i == 1 ? NULL : "named"), 0);
    assert_int_equal(rv_stage_vector_size(sv), 3);

    RV_Image *img;
    assert_int_equal(rv_image_create(ctx, W, H, RV_FMT_RGBA8, &img), 0);
    RV_FrameMeta m = {7, 0, 0, 1, 1};
    RV_Image *out = NULL;
    assert_int_equal(rv_stage_vector_apply(sv, img, &m, &out), 0);
    assert_ptr_equal(out, img);
    assert_int_equal(r.ntrace, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(r.trace[i], i);
    double v[4];
    long long fi;
    RV_Data *d = rv_stage_vector_data(sv);
    assert_int_equal(rv_data_get(d, "chain", v, 4, &fi), 2);
    assert_true(v[0] == 72.0 && v[1] == 2.0);
    assert_int_equal(fi, 7);
    assert_int_equal(rv_data_get(d, "nothing", v, 4, NULL), RV_ENOENT);
    assert_int_equal(rv_data_put(d, "", v, 1), RV_EINVAL);
    assert_int_equal(rv_data_put(d, "k", v, 5), RV_EINVAL);
    assert_true(rv_stage_vector_stage_ms(sv, 0) >= 0.0);
    assert_true(rv_stage_vector_stage_ms(sv, 3) < 0.0);

    /* Scratch images: the same object while size and format stay, a new one otherwise. */
    RV_Image *s1 = NULL, *s2 = NULL, *s3 = NULL;
    assert_int_equal(rv_data_image(d, "tmp", 8, 4, RV_FMT_GRAY8, &s1), 0);
    assert_int_equal(rv_data_image(d, "tmp", 8, 4, RV_FMT_GRAY8, &s2), 0);
    assert_ptr_equal(s1, s2);
    assert_int_equal(rv_data_image(d, "tmp", 9, 4, RV_FMT_GRAY8, &s3), 0);
    assert_int_equal(rv_image_width(s3), 9);
    assert_int_equal(rv_data_image(d, "", 8, 4, RV_FMT_GRAY8, &s1), RV_EINVAL);
    assert_int_equal(rv_data_image(d, "tmp2", 8, 4, (RV_Format)0, &s1), RV_EINVAL);

    /* Box results round-trip. */
    RV_BoxResult br = {123.0, 5, 9, 77}, back;
    assert_int_equal(rv_data_put_box(d, "match", &br), 0);
    assert_int_equal(rv_data_get_box(d, "match", &back), 0);
    assert_true(back.score == 123.0 && back.x == 5 && back.y == 9 && back.positions == 77);

    rv_image_destroy(&img);
    rv_stage_vector_destroy(&sv);
    assert_null(sv);
    rv_context_destroy(&ctx);
}

/* ------------------------------------------------------------------ */
/* Real kernels in stages: gray into the frame, then RGBA -> GRAY8 into a
 * scratch image that becomes the output; a persistent accumulator.     */
/* ------------------------------------------------------------------ */

typedef struct kern_ctx {
    const RV_Kernel *gray, *luma8;
    int frames_seen;
    int bad;
} kern_ctx;

static void stage_gray(RV_Image *frame, RV_Data *d)
{
    kern_ctx *k = rv_data_user(d);
    rv_data_check(d, rv_proc_pix(k->gray, frame, frame, NULL, 0));
}

static void stage_luma(RV_Image *frame, RV_Data *d)
{
    kern_ctx *k = rv_data_user(d);
    RV_Image *g = NULL;
    if (rv_data_check(d, rv_data_image(d, "luma", rv_image_width(frame), rv_image_height(frame),
                                       RV_FMT_GRAY8, &g)) < 0)
        return;
    if (rv_data_check(d, rv_proc_pix(k->luma8, g, frame, NULL, 0)) < 0)
        return;
    rv_data_set_frame(d, g);
    /* A persistent 1x1 counter image: the same object every frame. */
    RV_Image *cnt = NULL;
    if (rv_data_check(d, rv_data_image(d, "count", 1, 1, RV_FMT_GRAYF32, &cnt)) < 0)
        return;
    float *c = rv_image_write(cnt, 0, NULL);
    c[0] += 1.0f;
    double v = c[0];
    rv_data_put(d, "count", &v, 1);
}

static int on_gray(void *user, RV_Image *frame, const RV_FrameInfo *info, const RV_Data *d)
{
    kern_ctx *k = user;
    (void)d;
    if (rv_image_format(frame) != RV_FMT_GRAY8) {
        k->bad++;
        return 0;
    }
    long long seq = info->meta.index;
    ptrdiff_t pitch;
    const unsigned char *g = rv_image_read(frame, 0, &pitch);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            RV_Pixel p = pattern(x, y, seq);
            int avg = (rv_r(p) + rv_g(p) + rv_b(p)) / 3; /* gray: R=G=B=avg */
            int want = (avg + avg + avg) / 3;            /* luma8 of the gray pixel */
            if (g[y * pitch + x] != want)
                k->bad++;
        }
    k->frames_seen++;
    return 0;
}

static void test_kernels_in_stages(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(2);
    RV_Module *mod = NULL;
    assert_int_equal(rv_module_load(ctx, "samples", &mod), 0);
    kern_ctx k;
    memset(&k, 0, sizeof(k));
    assert_int_equal(rv_kernel_get(mod, "gray", &k.gray), 0);
    assert_int_equal(rv_kernel_get(mod, "luma8", &k.luma8), 0);
    RV_StageVector *sv;
    assert_int_equal(rv_stage_vector_create(ctx, &sv), 0);
    assert_int_equal(rv_stage_vector_push(sv, stage_gray, &k, "gray"), 0);
    assert_int_equal(rv_stage_vector_push(sv, stage_luma, &k, "luma"), 0);

    test_src src;
    src_init(&src, 12);
    RV_StreamSettings s;
    settings(&s);
    s.on_frame = on_gray;
    s.user = &k;
    RV_VideoInfo vi = test_info();
    RV_Streaming *st;
    assert_int_equal(rv_streaming_create_custom(ctx, &vi, test_read, &src, &s, &st), 0);
    assert_int_equal(rv_streaming_run(st, sv), 0);
    RV_StreamSummary sum;
    assert_int_equal(rv_streaming_summary(st, &sum), 0);
    assert_int_equal(sum.end, RV_END_EOS);
    assert_int_equal(sum.captured, 12);
    assert_int_equal(sum.processed, 12);
    assert_identity(&sum);
    assert_int_equal(k.frames_seen, 12);
    assert_int_equal(k.bad, 0);
    double v;
    long long fi;
    assert_int_equal(rv_data_get(rv_stage_vector_data(sv), "count", &v, 1, &fi), 1);
    /* RAVIOLI_STREAM_PIPELINE_CPU=1 (ctest test_stream_pipelined): the
     * pipeline's default frames in flight (3) have one "count" image each,
     * taken in turn */
    const char *pl = getenv("RAVIOLI_STREAM_PIPELINE_CPU");
    RV_StreamSettings defs;
    rv_stream_settings_default(&defs);
    assert_int_equal(defs.gpu_streams, 3);
    if (pl && pl[0] == '1')
        assert_true(v == 12.0 / defs.gpu_streams);
    else
        assert_true(v == 12.0);
    assert_int_equal(fi, 11);
    assert_int_equal(rv_streaming_run(st, sv), RV_EINVAL); /* one run only */
    rv_streaming_destroy(&st);
    assert_null(st);
    rv_stage_vector_destroy(&sv);
    rv_module_unload(&mod);
    rv_context_destroy(&ctx);
}

/* ------------------------------------------------------------------ */
/* Accounting under ring policies                                       */
/* ------------------------------------------------------------------ */

static void run_policy(RV_RingPolicy pol, long long frames, int ring, int sleep_ms_stage,
                       RV_StreamSummary *sum, rec *r)
{
    rig *g = rig_open(frames);
    g->r.stage_sleep_ms = sleep_ms_stage;
    g->s.policy = pol;
    g->s.ring_frames = ring;
    assert_int_equal(rig_run(g), 0);
    *sum = g->sum;
    *r = g->r;
    rig_close(&g);
    assert_int_equal(sum->end, RV_END_EOS);
    assert_int_equal(sum->captured, frames);
    assert_int_equal(r->n, sum->processed);
    for (int i = 1; i < r->n; i++)
        assert_true(r->seq[i] > r->seq[i - 1]);
}

static void test_policy_block(void **state)
{
    (void)state;
    RV_StreamSummary sum;
    rec r;
    run_policy(RV_RING_BLOCK, 60, 2, 1, &sum, &r);
    assert_int_equal(sum.dropped, 0);
    assert_int_equal(sum.processed, 60);
    for (int i = 0; i < r.n; i++)
        assert_int_equal(r.seq[i], i);
}

static void test_policy_drop_oldest(void **state)
{
    (void)state;
    RV_StreamSummary sum;
    rec r;
    run_policy(RV_RING_DROP_OLDEST, 200, 2, 2, &sum, &r);
    assert_true(sum.dropped > 0);
    assert_int_equal(sum.skipped, 0);
    /* After the end the queue drains in order: the newest frame is processed. */
    assert_int_equal(r.seq[r.n - 1], 199);
    assert_int_equal(sum.dropped_at_stop, 0);
}

static void test_policy_drop_newest(void **state)
{
    (void)state;
    RV_StreamSummary sum;
    rec r;
    run_policy(RV_RING_DROP_NEWEST, 200, 2, 2, &sum, &r);
    assert_true(sum.dropped > 0);
    /* The first frames are kept: frame 0 and the next two queued ones. */
    assert_int_equal(r.seq[0], 0);
    assert_true(r.n >= 2 && r.seq[1] <= 2);
}

static void test_policy_latest(void **state)
{
    (void)state;
    RV_StreamSummary sum;
    rec r;
    run_policy(RV_RING_LATEST, 200, 4, 2, &sum, &r);
    assert_true(sum.dropped > 0);
    assert_int_equal(r.seq[r.n - 1], 199);
    /* LATEST drops everything older than the newest at each take: with a
     * 4-frame ring and a slow stage it processes no more than DROP_OLDEST
     * would, and never more than one frame per "ring drain". */
    assert_true(sum.processed < 200);
}

/* LATEST never hands out a stale frame: while frame k is processed the
 * stage waits until the source has read frame k+4, so k+3 is queued (frames
 * are queued before the next read starts); the next frame taken must then be
 * at least k+3 (or the last one when the source ended). With DROP_OLDEST the
 * same run takes k+1 next (checked to fail when this test was written). */
typedef struct latest_ctx {
    test_src *src;
    long long limit;
    long long seq[256];
    int n;
    int timeouts;
} latest_ctx;

static void stage_wait_ahead(RV_Image *frame, RV_Data *d)
{
    latest_ctx *lc = rv_data_user(d);
    (void)frame;
    long long k = rv_data_frame(d)->index;
    if (lc->n < 256)
        lc->seq[lc->n++] = k;
    long long want = k + 5 < lc->limit ? k + 5 : lc->limit;
    for (int i = 0; atomic_load(&lc->src->next) < want; i++) {
        if (i > 20000) { /* 2 s */
            lc->timeouts++;
            break;
        }
        usleep(100);
    }
}

static void test_latest_is_fresh(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_StageVector *sv;
    assert_int_equal(rv_stage_vector_create(ctx, &sv), 0);
    test_src src;
    src_init(&src, 80);
    src.delay_us = 300;
    latest_ctx lc;
    memset(&lc, 0, sizeof(lc));
    lc.src = &src;
    lc.limit = 80;
    assert_int_equal(rv_stage_vector_push(sv, stage_wait_ahead, &lc, "wait"), 0);
    RV_StreamSettings s;
    settings(&s);
    s.policy = RV_RING_LATEST;
    s.ring_frames = 4;
    RV_VideoInfo vi = test_info();
    RV_Streaming *st;
    assert_int_equal(rv_streaming_create_custom(ctx, &vi, test_read, &src, &s, &st), 0);
    assert_int_equal(rv_streaming_run(st, sv), 0);
    RV_StreamSummary sum;
    rv_streaming_summary(st, &sum);
    assert_identity(&sum);
    assert_int_equal(sum.captured, 80);
    assert_int_equal(lc.timeouts, 0);
    assert_true(lc.n >= 2);
    assert_int_equal(lc.seq[lc.n - 1], 79);
    for (int i = 1; i < lc.n; i++) {
        long long floor = lc.seq[i - 1] + 3 < 79 ? lc.seq[i - 1] + 3 : 79;
        if (lc.seq[i] < floor)
            fprintf(stderr, "processed %lld after %lld\n", lc.seq[i], lc.seq[i - 1]);
        assert_true(lc.seq[i] >= floor);
    }
    rv_streaming_destroy(&st);
    rv_stage_vector_destroy(&sv);
    rv_context_destroy(&ctx);
}

/* ------------------------------------------------------------------ */
/* Strides                                                              */
/* ------------------------------------------------------------------ */

static void test_temporal_stride(void **state)
{
    (void)state;
    rig *g = rig_open(31);
    g->r.expect_si = 2;
    g->s.temporal_stride = 3;
    g->s.spatial_stride = 2;
    g->s.callback_skipped = 1;
    assert_int_equal(rig_run(g), 0);
    const RV_StreamSummary *sum = &g->sum;
    const rec *r = &g->r;
    assert_int_equal(sum->captured, 31);
    assert_int_equal(sum->processed, 11); /* 0, 3, ..., 30 */
    assert_int_equal(sum->skipped, 20);
    assert_int_equal(sum->dropped, 0);
    assert_int_equal(sum->temporal_stride, 3);
    assert_int_equal(sum->spatial_stride, 2);
    assert_int_equal(r->stride_mismatch, 0);
    for (int i = 0; i < r->n; i++)
        assert_int_equal(r->seq[i], 3 * i);
    /* Skipped frames reached the callback as repeats of the last output. */
    assert_int_equal(r->repeats, 20);
    assert_int_equal(r->nrep, 20);
    for (int i = 0; i < r->nrep; i++)
        assert_int_equal(r->repeat_content[i], 3 * (i / 2));
    rig_close(&g);
}

/* Skipped frames reach a sink that wants repeats (the SDL window, headless
 * with SDL_VIDEODRIVER=dummy) as the last output again, and stay out of one
 * that does not (the null sink). Skipped when SDL2 is not in the build. */
static void test_sink_repeats(void **state)
{
    (void)state;
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    int have_sdl = 0;
    for (int k = 0; k < 2; k++) {
        rig *g = rig_open(31);
        RV_Sink *sink = NULL;
        if (k == 0)
            assert_int_equal(rv_sink_open_null(g->ctx, &sink), 0);
        else
            have_sdl = rv_sink_open_sdl(g->ctx, "test_stream", &g->vi, &sink) == 0;
        if (sink) {
            g->s.temporal_stride = 3;
            g->s.sink = sink;
            g->s.on_frame = NULL;
            assert_int_equal(rig_run(g), 0);
            assert_int_equal(g->sum.processed, 11);
            assert_int_equal(g->sum.skipped, 20);
            const int repeats = rv_sink_repeats_skipped(sink);
            assert_int_equal(repeats, k == 1);
            assert_int_equal(g->sum.repeated, repeats ? 20 : 0);
            assert_int_equal(g->sum.sink_frames, repeats ? 31 : 11);
            assert_int_equal(rv_sink_frames(sink), g->sum.sink_frames);
            rv_streaming_destroy(&g->st);
            rv_sink_close(&sink);
        }
        rig_close(&g);
    }
    if (!have_sdl)
        skip(); /* the null sink part ran; no window sink in this build */
}

/* Temporal stride under a slow stage and a fast source: skips and drops
 * are both counted and nothing vanishes. */
static void test_stride_and_drops(void **state)
{
    (void)state;
    rig *g = rig_open(300);
    g->r.stage_sleep_ms = 3;
    g->src.delay_us = 200;
    g->s.temporal_stride = 2;
    g->s.policy = RV_RING_DROP_OLDEST;
    g->s.ring_frames = 3;
    assert_int_equal(rig_run(g), 0);
    assert_int_equal(g->sum.captured, 300);
    assert_true(g->sum.dropped > 0);
    assert_true(g->sum.skipped > 0);
    for (int i = 1; i < g->r.n; i++)
        assert_true(g->r.seq[i] - g->r.seq[i - 1] >= 2);
    rig_close(&g);
}

/* ------------------------------------------------------------------ */
/* Stopping                                                             */
/* ------------------------------------------------------------------ */

typedef struct stopper {
    RV_Streaming *st;
    int after_ms;
    pthread_t target;
    int use_signal;
} stopper;

static void *stopper_main(void *arg)
{
    stopper *s = arg;
    sleep_ms(s->after_ms);
    if (s->use_signal)
        pthread_kill(s->target, SIGUSR1);
    else
        rv_streaming_stop(s->st);
    return NULL;
}

static RV_Streaming *g_sig_stream;
static void on_sigusr1(int sig)
{
    (void)sig;
    rv_streaming_stop(g_sig_stream); /* async-signal-safe: an atomic store */
}

static void stop_test(int use_signal, RV_RingPolicy pol)
{
    rig *g = rig_open(-1); /* endless */
    g->r.stage_sleep_ms = 2;
    g->src.delay_us = 300;
    g->s.policy = pol;
    rig_create(g);
    stopper sp = {g->st, 80, pthread_self(), use_signal};
    if (use_signal) {
        g_sig_stream = g->st;
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_sigusr1;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, NULL);
    }
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, stopper_main, &sp), 0);
    assert_int_equal(rig_run(g), 0);
    pthread_join(th, NULL);
    assert_int_equal(g->sum.end, RV_END_STOPPED);
    assert_true(g->sum.captured > 0);
    assert_true(g->sum.processed > 0);
    assert_true(g->sum.elapsed_s < 5.0);
    if (use_signal) {
        signal(SIGUSR1, SIG_DFL);
        g_sig_stream = NULL;
    }
    rig_close(&g);
}

static void test_stop_from_thread(void **state)
{
    (void)state;
    stop_test(0, RV_RING_BLOCK);
    stop_test(0, RV_RING_DROP_OLDEST);
}

static void test_stop_from_signal(void **state)
{
    (void)state;
    stop_test(1, RV_RING_LATEST);
}

static void test_stop_before_run_and_destroy_unrun(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_StageVector *sv;
    assert_int_equal(rv_stage_vector_create(ctx, &sv), 0);
    test_src src;
    src_init(&src, -1);
    RV_StreamSettings s;
    settings(&s);
    RV_VideoInfo vi = test_info();
    RV_Streaming *st;
    /* Created, started, destroyed without a run: the thread is joined. */
    assert_int_equal(rv_streaming_create_custom(ctx, &vi, test_read, &src, &s, &st), 0);
    assert_int_equal(rv_streaming_start(st), 0);
    sleep_ms(20);
    rv_streaming_destroy(&st);
    assert_null(st);
    /* Stopped before the run: the run ends at once, cleanly. */
    assert_int_equal(rv_streaming_create_custom(ctx, &vi, test_read, &src, &s, &st), 0);
    rv_streaming_stop(st);
    assert_int_equal(rv_streaming_run(st, sv), 0);
    RV_StreamSummary sum;
    rv_streaming_summary(st, &sum);
    assert_int_equal(sum.end, RV_END_STOPPED);
    assert_identity(&sum);
    rv_streaming_destroy(&st);
    rv_stage_vector_destroy(&sv);
    rv_context_destroy(&ctx);
}

static void test_stop_by_stage_and_callback(void **state)
{
    (void)state;
    for (int which = 0; which < 2; which++) {
        rig *g = rig_open(1000);
        if (which == 0)
            g->r.stop_frame = 9;
        else
            g->r.stop_cb_after = 5;
        assert_int_equal(rig_run(g), 0);
        assert_int_equal(g->sum.end, RV_END_STOPPED);
        assert_int_equal(g->sum.processed, which == 0 ? 10 : 5);
        assert_int_equal(g->sum.dropped, g->sum.dropped_at_stop);
        rig_close(&g);
    }
}

/* ------------------------------------------------------------------ */
/* Errors, limits, EAGAIN, CSV log                                      */
/* ------------------------------------------------------------------ */

static void test_stage_failure(void **state)
{
    (void)state;
    rig *g = rig_open(50);
    g->r.fail_frame = 5;
    assert_int_equal(rig_run(g), RV_EBADMSG);
    assert_non_null(strstr(rv_context_error(g->ctx), "test failure at frame 5"));
    assert_int_equal(g->sum.end, RV_END_ERROR);
    assert_int_equal(g->sum.error, RV_EBADMSG);
    assert_int_equal(g->sum.processed, 5);
    rig_close(&g);
}

static void test_source_error_limit_eagain(void **state)
{
    (void)state;
    /* A source failing at frame 10: the run reports the error. */
    rig *g = rig_open(-1);
    g->src.fail_at = 10;
    assert_int_equal(rig_run(g), RV_EIO);
    assert_int_equal(g->sum.end, RV_END_ERROR);
    assert_int_equal(g->sum.captured, 10);
    assert_int_equal(g->sum.processed, 10);
    /* ... with a message on the context saying what failed */
    assert_non_null(strstr(rv_context_error(g->ctx), "frame 10 from the application's read function failed"));
    assert_non_null(strstr(rv_context_error(g->ctx), rv_strerror(RV_EIO)));
    rig_close(&g);

    /* max_frames on an endless source that often says EAGAIN; CSV log. */
    char path[] = "/tmp/rv_stream_log_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    g = rig_open(-1);
    g->src.eagain_every = 3;
    g->s.max_frames = 25;
    g->s.log_path = path;
    assert_int_equal(rig_run(g), 0);
    assert_int_equal(g->sum.end, RV_END_EOS);
    assert_int_equal(g->sum.captured, 25);
    assert_int_equal(g->sum.processed, 25);
    rig_close(&g);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    assert_non_null(fgets(line, sizeof(line), f));
    assert_string_equal(line, "frame,time_s,proc_ms,deadline_ms,budget_ms,met,s_spatial,s_temporal,"
                              "latency_ms,captured,skipped,dropped\n");
    int rows = 0;
    long long last = -1;
    while (fgets(line, sizeof(line), f)) {
        long long fr, cap, skp, drp;
        double t, ms, dl, bud, lat;
        int met, si, stt;
        assert_int_equal(sscanf(line, "%lld,%lf,%lf,%lf,%lf,%d,%d,%d,%lf,%lld,%lld,%lld", &fr, &t, &ms, &dl, &bud,
                                &met, &si, &stt, &lat, &cap, &skp, &drp),
                         12);
        assert_true(fr > last && t >= 0 && ms >= 0 && (met == 0 || met == 1) && si == 1 && stt == 1);
        assert_true(fabs(dl - 1000.0 / 30.0) < 1e-3 && fabs(bud - dl) < 1e-3); /* 30 fps source, S_T 1 */
        assert_int_equal(met, ms <= dl);
        assert_true(lat >= 0 && cap > fr && skp == 0 && drp == 0);
        last = fr;
        rows++;
    }
    fclose(f);
    unlink(path);
    assert_int_equal(rows, 25);
}

/* Any read_timeout_ms >= 1 is accepted, INT_MAX too: the grace run() and
 * destroy() give a read after a stop (the timeout + 200 ms) saturates
 * instead of overflowing int (UBSan aborted here). */
static void test_huge_read_timeout(void **state)
{
    (void)state;
    rig *g = rig_open(5);
    g->s.read_timeout_ms = INT_MAX;
    assert_int_equal(rig_run(g), 0);
    assert_int_equal(g->sum.end, RV_END_EOS);
    assert_int_equal(g->sum.processed, 5);
    rig_close(&g);
}

/* A sink that refuses a frame ends the run; the context's message keeps the
 * sink's reason (it was "the sink failed on frame 0: invalid argument"). */
static void stage_to_gray(RV_Image *frame, RV_Data *d)
{
    RV_Image *g = NULL;
    if (rv_data_check(d, rv_data_image(d, "gray", rv_image_width(frame), rv_image_height(frame),
                                       RV_FMT_GRAY8, &g)) < 0)
        return;
    rv_data_check(d, rv_data_set_frame(d, g));
}

static void test_sink_failure_message(void **state)
{
    (void)state;
    rig *g = rig_open(3);
    RV_Sink *sink = NULL;
    assert_int_equal(rv_sink_open_y4m(g->ctx, "/dev/null", &g->vi, &sink), 0);
    assert_int_equal(rv_stage_vector_push(g->sv, stage_to_gray, NULL, "gray"), 0);
    g->s.sink = sink;
    assert_int_equal(rig_run(g), RV_EINVAL);
    assert_int_equal(g->sum.end, RV_END_ERROR);
    const char *msg = rv_context_error(g->ctx);
    assert_non_null(strstr(msg, "the sink failed on frame 0"));
    assert_non_null(strstr(msg, "y4m writer: frame is 32x16 gray8, the stream is 32x16 rgba8"));
    rig_close(&g);
    rv_sink_close(&sink);
}

/* rv_data_request_stop() ends the run after the frame it was made in, and
 * no other: a request made in rv_stage_vector_apply() (an application's own
 * loop) stayed set and ended the next run on the vector after its first
 * frame. */
static int stop_wanted;
static void stage_maybe_stop(RV_Image *frame, RV_Data *d)
{
    (void)frame;
    if (stop_wanted)
        rv_data_request_stop(d);
}

static void test_stop_request_does_not_leak(void **state)
{
    (void)state;
    rig *g = rig_open(6);
    assert_int_equal(rv_stage_vector_push(g->sv, stage_maybe_stop, NULL, "maybe-stop"), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(g->ctx, W, H, RV_FMT_RGBA8, &img), 0);
    stop_wanted = 1;
    assert_int_equal(rv_stage_vector_apply(g->sv, img, NULL, NULL), 0);
    stop_wanted = 0;
    rv_image_destroy(&img);
    assert_int_equal(rig_run(g), 0);
    assert_int_equal(g->sum.end, RV_END_EOS);
    assert_int_equal(g->sum.processed, 6);
    rig_close(&g);
}

/* A frame log that cannot be written completely (a full disk: /dev/full)
 * fails the run instead of leaving a cut-short log behind a success. */
static void test_log_write_error(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    rig *g = rig_open(-1);
    g->s.max_frames = 5;
    g->s.log_path = "/dev/full";
    assert_int_equal(rig_run(g), RV_EIO);
    assert_non_null(strstr(rv_context_error(g->ctx), "frame log"));
    assert_int_equal(g->sum.end, RV_END_ERROR);
    assert_int_equal(g->sum.error, RV_EIO);
    assert_int_equal(g->sum.processed, 5);
    rig_close(&g);

    /* a log that cannot even be created fails run() before any frame; the
     * summary says so too (it used to say RV_END_NONE, error 0) */
    g = rig_open(-1);
    g->s.max_frames = 5;
    g->s.log_path = "/nonexistent-dir-of-ravioli-test/log.csv";
    /* a missing directory is RV_ENOENT, as for every path the library opens */
    assert_int_equal(rig_run(g), RV_ENOENT);
    assert_int_equal(g->sum.end, RV_END_ERROR);
    assert_int_equal(g->sum.error, RV_ENOENT);
    assert_int_equal(g->sum.processed, 0);
    assert_non_null(strstr(rv_context_error(g->ctx), "/nonexistent-dir-of-ravioli-test/log.csv"));
    rig_close(&g);
    /* a path that exists but cannot be written as a file (a directory): RV_EIO */
    g = rig_open(-1);
    g->s.max_frames = 5;
    g->s.log_path = "/";
    assert_int_equal(rig_run(g), RV_EIO);
    assert_int_equal(g->sum.error, RV_EIO);
    assert_int_equal(g->sum.processed, 0);
    rig_close(&g);

    /* the same for settings the adaptation controller refuses */
    g = rig_open(-1);
    g->s.max_frames = 5;
    g->s.adapt.enabled = 1;
    g->s.adapt.headroom = 2.0;
    assert_int_equal(rig_run(g), RV_EINVAL);
    assert_int_equal(g->sum.end, RV_END_ERROR);
    assert_int_equal(g->sum.error, RV_EINVAL);
    rig_close(&g);
}

/* A stage that re-creates the scratch image serving as the frame leaves
 * no frame: the apply fails, also when that stage is the last one (it used
 * to return 0 with a NULL output, and the run delivered nothing). */
static void stage_to_scratch(RV_Image *frame, RV_Data *d)
{
    RV_Image *s;
    if (rv_data_check(d, rv_data_image(d, "out", rv_image_width(frame), rv_image_height(frame),
                                       RV_FMT_GRAY8, &s)) < 0)
        return;
    rv_data_check(d, rv_data_set_frame(d, s));
}

static void stage_resize_scratch(RV_Image *frame, RV_Data *d)
{
    RV_Image *s;
    rv_data_check(d, rv_data_image(d, "out", rv_image_width(frame) / 2, rv_image_height(frame),
                                   RV_FMT_GRAY8, &s));
}

static void test_frame_scratch_recreated_by_last_stage(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_Image *frame;
    assert_int_equal(rv_image_create(ctx, W, H, RV_FMT_RGBA8, &frame), 0);
    for (int last = 0; last < 2; last++) {
        RV_StageVector *sv;
        assert_int_equal(rv_stage_vector_create(ctx, &sv), 0);
        assert_int_equal(rv_stage_vector_push(sv, stage_to_scratch, NULL, "to_scratch"), 0);
        assert_int_equal(rv_stage_vector_push(sv, stage_resize_scratch, NULL, "resize"), 0);
        if (!last)
            assert_int_equal(rv_stage_vector_push(sv, stage_to_scratch, NULL, "again"), 0);
        RV_Image *out = frame;
        assert_int_equal(rv_stage_vector_apply(sv, frame, NULL, &out), RV_EINVAL);
        assert_null(out);
        assert_non_null(strstr(rv_context_error(ctx), "'resize'"));
        rv_stage_vector_destroy(&sv);
    }
    rv_image_destroy(&frame);
    rv_context_destroy(&ctx);
}

/* gpu_streams = 0 means the default (3 frames in flight), as stream.h says:
 * the pipeline loop (forced on the CPU) hands out slots 0..2 either way. */
static void stage_max_slot(RV_Image *frame, RV_Data *d)
{
    (void)frame;
    int *mx = rv_data_user(d);
    if (rv_data_slot(d) > *mx)
        *mx = rv_data_slot(d);
}

static int pipelined_max_slot(int gpu_streams)
{
    RV_Context *ctx = rv_test_cpu_context(2);
    RV_StageVector *sv;
    assert_int_equal(rv_stage_vector_create(ctx, &sv), 0);
    int mx = -1;
    assert_int_equal(rv_stage_vector_push(sv, stage_max_slot, &mx, "slot"), 0);
    test_src src;
    src_init(&src, 12);
    RV_StreamSettings s;
    settings(&s);
    s.gpu_streams = gpu_streams;
    RV_VideoInfo vi = test_info();
    RV_Streaming *st;
    const char *old = getenv("RAVIOLI_STREAM_PIPELINE_CPU");
    char *saved = old ? strdup(old) : NULL;
    setenv("RAVIOLI_STREAM_PIPELINE_CPU", "1", 1);
    int err = rv_streaming_create_custom(ctx, &vi, test_read, &src, &s, &st);
    if (saved)
        setenv("RAVIOLI_STREAM_PIPELINE_CPU", saved, 1);
    else
        unsetenv("RAVIOLI_STREAM_PIPELINE_CPU");
    free(saved);
    assert_int_equal(err, 0);
    assert_int_equal(rv_streaming_run(st, sv), 0);
    RV_StreamSummary sum;
    assert_int_equal(rv_streaming_summary(st, &sum), 0);
    assert_int_equal(sum.processed, 12);
    rv_streaming_destroy(&st);
    rv_stage_vector_destroy(&sv);
    rv_context_destroy(&ctx);
    return mx;
}

static void test_gpu_streams_zero_is_default(void **state)
{
    (void)state;
    RV_StreamSettings defs;
    rv_stream_settings_default(&defs);
    assert_int_equal(defs.gpu_streams, 3);
    assert_int_equal(pipelined_max_slot(defs.gpu_streams), defs.gpu_streams - 1);
    assert_int_equal(pipelined_max_slot(0), defs.gpu_streams - 1);
    assert_int_equal(pipelined_max_slot(1), 0);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_VideoInfo vi = test_info();
    test_src src;
    src_init(&src, 1);
    RV_StreamSettings s;
    settings(&s);
    RV_Streaming *st = (RV_Streaming *)&s;
    s.ring_frames = 0;
    assert_int_equal(rv_streaming_create_custom(ctx, &vi, test_read, &src, &s, &st), RV_EINVAL);
    assert_null(st);
    settings(&s);
    s.policy = (RV_RingPolicy)9;
    assert_int_equal(rv_streaming_create_custom(ctx, &vi, test_read, &src, &s, &st), RV_EINVAL);
    settings(&s);
    assert_int_equal(rv_streaming_create_custom(ctx, &vi, NULL, &src, &s, &st), RV_EINVAL);
    vi.format = 0;
    assert_int_equal(rv_streaming_create_custom(ctx, &vi, test_read, &src, &s, &st), RV_EINVAL);
    assert_int_equal(rv_streaming_create(ctx, NULL, &s, &st), RV_EINVAL);
    assert_string_equal(rv_ring_policy_name(RV_RING_LATEST), "latest");
    assert_string_equal(rv_stream_end_name(RV_END_EOS), "end of stream");
    rv_context_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stage_order_and_data),
        cmocka_unit_test(test_kernels_in_stages),
        cmocka_unit_test(test_policy_block),
        cmocka_unit_test(test_policy_drop_oldest),
        cmocka_unit_test(test_policy_drop_newest),
        cmocka_unit_test(test_policy_latest),
        cmocka_unit_test(test_latest_is_fresh),
        cmocka_unit_test(test_temporal_stride),
        cmocka_unit_test(test_stride_and_drops),
        cmocka_unit_test(test_sink_repeats),
        cmocka_unit_test(test_stop_from_thread),
        cmocka_unit_test(test_stop_from_signal),
        cmocka_unit_test(test_stop_before_run_and_destroy_unrun),
        cmocka_unit_test(test_stop_by_stage_and_callback),
        cmocka_unit_test(test_stage_failure),
        cmocka_unit_test(test_source_error_limit_eagain),
        cmocka_unit_test(test_huge_read_timeout),
        cmocka_unit_test(test_sink_failure_message),
        cmocka_unit_test(test_stop_request_does_not_leak),
        cmocka_unit_test(test_log_write_error),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_gpu_streams_zero_is_default),
        cmocka_unit_test(test_frame_scratch_recreated_by_last_stage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
