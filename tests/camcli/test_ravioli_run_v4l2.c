/*
 * test_ravioli_run_v4l2.c - ravioli-run --source v4l2:/dev/video0 end to end
 * against the emulated camera (fakecam_preload.c, LD_PRELOADed into the
 * ravioli-run process only; see docs/video.md).
 *
 *     test_ravioli_run_v4l2 <ravioli-run> <fakecam preload .so> normal|unplug|errors|slow|deband|y4m
 *
 * deband: camera -> deband -> Y4M (RGBA camera frames with an explicit yuv420
 * stage; raw YUYV frames with the yuv420 stage inserted by ravioli-run), each
 * output frame equal to the deband library applied to the camera frame it came
 * from, converted by the definition written here. y4m: a banded Y4M clip
 * (4:2:0 and 4:4:4) -> deband -> Y4M, equal to the library on the same frames;
 * format propagation to the sink; clear errors for unsuitable chains.
 *
 * Exit 77 (skipped) when the library was built without the V4L2 source.
 * Time limits are generous (a shared, loaded machine): a run that takes
 * longer than two minutes counts as hung.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rv_spawn.h"

#include <math.h>
#include <ravioli/deband.h>

/* the camera's pattern (fake_yuyv); the rest of the emulation is unused here */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "fakecam.h"
#pragma GCC diagnostic pop

static const char *g_exe, *g_preload;
static char g_dir[64];
static char g_report[128];

typedef struct summary {
    long long cap, proc, skip, drop, at_stop, sdrop, sink_frames;
    int mismatch;
} summary;

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The camera's counters (RV_FAKECAM_REPORT); -1 when absent. */
static long long report_get(const char *key)
{
    char *s = rv_test_slurp(g_report, NULL);
    if (!s)
        return -1;
    char k[64];
    snprintf(k, sizeof(k), " %s=", key);
    long long v = -1;
    char *line = malloc(strlen(s) + 2);
    assert_non_null(line);
    line[0] = ' ';
    strcpy(line + 1, s);
    const char *p = strstr(line, k);
    if (p)
        v = atoll(p + strlen(k));
    free(line);
    free(s);
    return v;
}

/* Runs ravioli-run with the camera preloaded and the given camera
 * environment ("KEY=VALUE" strings, NULL-terminated). stdout and stderr go
 * to files. With stop_after_timeouts > 0, sends SIGINT once the camera has
 * timed out that many polls. Returns the exit code (-1 if killed). */
static int run_cam(const char *const *args, const char *const *env, int stop_after_timeouts)
{
    unlink(g_report);
    /* An LD_PRELOADed library comes before a shared ASan runtime: tell ASan
     * that this order is intended. */
    char asan[512], preload[512], report[160];
    const char *old = getenv("ASAN_OPTIONS");
    snprintf(asan, sizeof(asan), "ASAN_OPTIONS=%s%sverify_asan_link_order=0", old ? old : "",
             old && *old ? ":" : "");
    snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", g_preload);
    snprintf(report, sizeof(report), "RV_FAKECAM_REPORT=%s", g_report);
    const char *envs[40] = {asan, preload, report, "RV_FAKECAM_MAX=160x120"};
    int ne = 4;
    for (int i = 0; env && env[i] && ne < 39; i++)
        envs[ne++] = env[i];
    envs[ne] = NULL;
    pid_t pid = rv_test_spawn(g_exe, args, NULL, g_dir, envs);
    int status = 0, sent = 0;
    for (int waited = 0;; waited += 20) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        assert_true(r >= 0);
        if (r == pid)
            break;
        if (waited > 120000) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fail_msg("ravioli-run hung (killed after 120 s)");
        }
        if (stop_after_timeouts > 0 && !sent && report_get("timeouts") >= stop_after_timeouts) {
            kill(pid, SIGINT);
            sent = 1;
        }
        sleep_ms(20);
    }
    return rv_test_exit_code("ravioli-run", status);
}

static char *err_text(void)
{
    char p[128];
    snprintf(p, sizeof(p), "%s/stderr", g_dir);
    char *s = rv_test_slurp(p, NULL);
    assert_non_null(s);
    return s;
}

/* Parses the summary; fails unless its frame accounting holds. */
static summary parse_summary(const char *s)
{
    summary m;
    memset(&m, 0, sizeof(m));
    const char *line = strstr(s, "captured ");
    assert_non_null(line);
    assert_int_equal(sscanf(line, "captured %lld = processed %lld + skipped %lld + dropped %lld (%lld at stop)",
                            &m.cap, &m.proc, &m.skip, &m.drop, &m.at_stop),
                     5);
    m.mismatch = strstr(s, "ACCOUNTING MISMATCH") != NULL;
    const char *sd = strstr(s, "the source skipped ");
    if (sd)
        assert_int_equal(sscanf(sd, "the source skipped %lld", &m.sdrop), 1);
    const char *sk = strstr(s, "  sink ");
    m.sink_frames = -1;
    if (sk) {
        const char *c = strstr(sk, ": ");
        assert_non_null(c);
        assert_int_equal(sscanf(c, ": %lld frames", &m.sink_frames), 1);
    }
    assert_false(m.mismatch);
    assert_true(m.cap >= 0 && m.proc >= 0 && m.skip >= 0 && m.drop >= 0);
    assert_int_equal(m.cap, m.proc + m.skip + m.drop);
    return m;
}

static void show(const char *what, int rc, const char *s)
{
    char *rep = rv_test_slurp(g_report, NULL);
    fprintf(stderr, "--- %s: exit %d\n%s--- camera: %s\n", what, rc, s, rep ? rep : "(no report)\n");
    free(rep);
}

/* Every good buffer the reader dequeued was delivered (captured) or dropped
 * by the source for a newer one; no more, no less. */
static void check_camera(const summary *m)
{
    assert_int_equal(report_get("good_dq"), m->cap + m->sdrop);
    assert_int_equal(report_get("opens"), 1);
    assert_int_equal(report_get("closes"), 1);
    assert_int_equal(report_get("maps"), report_get("unmaps"));
}

/* A Y4M file of W x H: returns the frame count; with `distinct`, asserts
 * that no frame's luma plane is uniform. */
static int y4m_frames(const char *path, int w, int h, int distinct)
{
    size_t len;
    char *b = rv_test_slurp(path, &len);
    assert_non_null(b);
    char *nl = memchr(b, '\n', len);
    assert_non_null(nl);
    *nl = 0;
    assert_true(strncmp(b, "YUV4MPEG2 ", 10) == 0);
    int fw = 0, fh = 0;
    const char *p = strstr(b, " W"), *q = strstr(b, " H");
    assert_true(p && q);
    fw = atoi(p + 2);
    fh = atoi(q + 2);
    assert_int_equal(fw, w);
    assert_int_equal(fh, h);
    size_t ysz = (size_t)w * h, fsz;
    if (strstr(b, " C444"))
        fsz = ysz * 3;
    else if (strstr(b, " C422"))
        fsz = ysz * 2;
    else if (strstr(b, " Cmono"))
        fsz = ysz;
    else
        fsz = ysz * 3 / 2; /* 4:2:0, the default */
    size_t pos = (size_t)(nl - b) + 1;
    int n = 0;
    while (pos < len) {
        assert_true(len - pos >= 6 && memcmp(b + pos, "FRAME", 5) == 0);
        char *e = memchr(b + pos, '\n', len - pos);
        assert_non_null(e);
        pos = (size_t)(e - b) + 1;
        assert_true(len - pos >= fsz);
        if (distinct) {
            const unsigned char *y = (const unsigned char *)b + pos;
            unsigned char lo = 255, hi = 0;
            for (size_t i = 0; i < ysz; i++) {
                lo = y[i] < lo ? y[i] : lo;
                hi = y[i] > hi ? y[i] : hi;
            }
            if (lo == hi)
                fail_msg("output frame %d is uniform (%d): an error-flagged or short buffer was delivered", n,
                         lo);
        }
        pos += fsz;
        n++;
    }
    free(b);
    return n;
}

/* ------------------------------------------------------------------ */

static void test_normal(void **state)
{
    (void)state;
    char out[128], snk[160];
    snprintf(out, sizeof(out), "%s/out.y4m", g_dir);
    snprintf(snk, sizeof(snk), "y4m:%s", out);
    const char *args[] = {"--source", "v4l2:/dev/video0", "--frames", "30", "--stage", "gray", "--stage", "edge",
                          "--sink", snk, "--backend", "cpu", "--no-stats", NULL};
    const char *env[] = {"RV_FAKECAM_MODE=normal", "RV_FAKECAM_FPS=100", NULL};
    int rc = run_cam(args, env, 0);
    char *s = err_text();
    show("normal", rc, s);
    assert_int_equal(rc, 0);
    summary m = parse_summary(s);
    assert_int_equal(m.cap, 30);
    assert_true(m.proc >= 1);
    assert_non_null(strstr(s, "sink       y4m:"));
    /* 160x120 (the camera's largest, asked 640x480): every frame the sink wrote is in the file */
    int n = y4m_frames(out, 160, 120, 0);
    assert_int_equal(n, m.sink_frames);
    assert_true(n >= m.proc);
    check_camera(&m);
    assert_int_equal(report_get("bad_dq"), 0);
    free(s);

    /* Another device path: the camera is not there -> unavailable (3). */
    const char *args2[] = {"--source", "v4l2:/dev/video7", "--frames", "3", "--stage", "gray", "--backend", "cpu",
                           NULL};
    rc = run_cam(args2, env, 0);
    s = err_text();
    if (rc != 3)
        show("missing device", rc, s);
    assert_int_equal(rc, 3);
    assert_non_null(strstr(s, "unavailable"));
    assert_non_null(strstr(s, "/dev/video7"));
    free(s);
}

static void test_unplug(void **state)
{
    (void)state;
    const char *args[] = {"--source", "v4l2:/dev/video0", "--frames", "1000", "--stage", "gray", "--stage",
                          "edge", "--backend", "cpu", "--no-stats", NULL};
    const char *env[] = {"RV_FAKECAM_MODE=unplug", "RV_FAKECAM_UNPLUG_AFTER=12", "RV_FAKECAM_FPS=100", NULL};
    int rc = run_cam(args, env, 0);
    char *s = err_text();
    show("unplug", rc, s);
    assert_int_equal(rc, 1); /* runtime error: the source failed while running */
    assert_non_null(strstr(s, "disappeared"));
    assert_non_null(strstr(s, "error after"));
    summary m = parse_summary(s);
    assert_true(m.cap >= 1 && m.cap <= 12);
    assert_int_equal(report_get("unplugged"), 1);
    assert_int_equal(report_get("produced"), 12);
    check_camera(&m);
    free(s);
}

static void test_errors(void **state)
{
    (void)state;
    char out[128], snk[160];
    snprintf(out, sizeof(out), "%s/out.y4m", g_dir);
    snprintf(snk, sizeof(snk), "y4m:%s", out);
    const char *args[] = {"--source", "v4l2:/dev/video0", "--frames", "20", "--stage", "gray", "--sink", snk,
                          "--backend", "cpu", "--no-stats", "--no-adapt", NULL};
    const char *env[] = {"RV_FAKECAM_MODE=errors", "RV_FAKECAM_FPS=100", NULL};
    int rc = run_cam(args, env, 0);
    char *s = err_text();
    show("errors", rc, s);
    assert_int_equal(rc, 0);
    summary m = parse_summary(s);
    assert_int_equal(m.cap, 20);
    long long flagged = report_get("flagged"), shortf = report_get("short"), bad = report_get("bad_dq");
    assert_true(flagged >= 5 && shortf >= 5);
    assert_true(bad >= 10 && bad <= flagged + shortf);
    check_camera(&m);
    /* every written frame came from a good buffer (the bad ones are uniform) */
    int n = y4m_frames(out, 160, 120, 1);
    assert_int_equal(n, m.sink_frames);
    assert_true(n >= m.proc && m.proc >= 1);
    free(s);
}

static void test_slow(void **state)
{
    (void)state;
    /* 4 frames/s against a 100 ms read timeout: reads time out between frames. */
    const char *args[] = {"--source", "v4l2:/dev/video0", "--frames", "3", "--realtime", "--stage", "gray",
                          "--backend", "cpu", "--no-stats", NULL};
    const char *env[] = {"RV_FAKECAM_MODE=slow", "RV_FAKECAM_FPS=4", NULL};
    int rc = run_cam(args, env, 0);
    char *s = err_text();
    show("slow", rc, s);
    assert_int_equal(rc, 0);
    summary m = parse_summary(s);
    assert_int_equal(m.cap, 3); /* timeouts are not frames */
    assert_true(report_get("timeouts") >= 1); /* the first poll always waits less than 250 ms */
    check_camera(&m);
    free(s);

    /* A camera that streams but never delivers: Ctrl-C still ends it, 0 frames. */
    const char *args2[] = {"--source", "v4l2:/dev/video0", "--realtime", "--stage", "gray", "--backend", "cpu",
                           "--no-stats", NULL};
    const char *env2[] = {"RV_FAKECAM_MODE=stall", NULL};
    rc = run_cam(args2, env2, 5);
    s = err_text();
    show("stall + SIGINT", rc, s);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(s, "stopped after"));
    m = parse_summary(s);
    assert_int_equal(m.cap, 0);
    assert_int_equal(report_get("good_dq"), 0);
    assert_true(report_get("timeouts") >= 5);
    free(s);
}

/* ------------------------------------------------------------------ */
/* Deband on camera and Y4M streams: references                         */
/* ------------------------------------------------------------------ */

static int rdiv(long long num, long long den) { return (int)floor((double)num / (double)den); }
static int clamp8(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

/* BT.601 limited range as docs/video.md defines it */
static void def_rgb(int y, int cb, int cr, int rgb[3])
{
    int c = y - 16, d = cb - 128, e = cr - 128;
    rgb[0] = clamp8(rdiv(298 * c + 409 * e + 128, 256));
    rgb[1] = clamp8(rdiv(298 * c - 100 * d - 208 * e + 128, 256));
    rgb[2] = clamp8(rdiv(298 * c + 516 * d + 128, 256));
}

/* Camera frame k (fakecam.h's pattern) as yuv420p8 into img: through RGBA8
 * (the library's camera conversion, then the yuv420 stage), or directly from
 * YUYV (luma copied, chroma rows averaged: the raw path). w, h even. */
static void camera_yuv420(RV_Image *img, long long k, int w, int h, int raw)
{
    ptrdiff_t py, pb, pr;
    unsigned char *Y = rv_image_write(img, 0, &py), *B = rv_image_write(img, 1, &pb), *R = rv_image_write(img, 2, &pr);
    assert_true(Y && B && R);
    int *rgb = malloc(sizeof(int) * 3 * (size_t)w * (size_t)h);
    assert_non_null(rgb);
    for (int y = 0; y < h; y++)
        for (int p = 0; p < w / 2; p++) {
            unsigned char q[4];
            fake_yuyv(k, (unsigned)p, (unsigned)y, q);
            Y[y * py + 2 * p] = q[0];
            Y[y * py + 2 * p + 1] = q[2];
            def_rgb(q[0], q[1], q[3], rgb + 3 * (y * w + 2 * p));
            def_rgb(q[2], q[1], q[3], rgb + 3 * (y * w + 2 * p + 1));
        }
    for (int cy = 0; cy < h / 2; cy++)
        for (int cx = 0; cx < w / 2; cx++) {
            if (raw) {
                unsigned char a[4], b[4];
                fake_yuyv(k, (unsigned)cx, (unsigned)(2 * cy), a);
                fake_yuyv(k, (unsigned)cx, (unsigned)(2 * cy + 1), b);
                B[cy * pb + cx] = (unsigned char)((a[1] + b[1] + 1) / 2);
                R[cy * pr + cx] = (unsigned char)((a[3] + b[3] + 1) / 2);
                continue;
            }
            int r = 0, g = 0, bl = 0;
            for (int j = 0; j < 2; j++)
                for (int i = 0; i < 2; i++) {
                    const int *c = rgb + 3 * ((2 * cy + j) * w + 2 * cx + i);
                    r += c[0], g += c[1], bl += c[2];
                }
            B[cy * pb + cx] = (unsigned char)(128 + rdiv(-38 * r - 74 * g + 112 * bl + 512, 1024));
            R[cy * pr + cx] = (unsigned char)(128 + rdiv(112 * r - 94 * g - 18 * bl + 512, 1024));
        }
    if (!raw) /* luma through RGBA */
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int *c = rgb + 3 * (y * w + x);
                Y[y * py + x] = (unsigned char)(16 + rdiv(66 * c[0] + 129 * c[1] + 25 * c[2] + 128, 256));
            }
    free(rgb);
}

/* The deband stage's defaults (ravioli-run --list-stages) */
static RV_Deband *make_deband(RV_Context *ctx)
{
    RV_Deband *db = NULL;
    assert_int_equal(rv_deband_create(ctx, &db), 0);
    RV_DebandSettings ds;
    rv_deband_settings_default(&ds);
    ds.range = 15, ds.y = ds.cb = ds.cr = 64, ds.grainy = ds.grainc = 64;
    ds.sample_mode = 2, ds.blur_first = 1, ds.dynamic_grain = 0, ds.output_depth = 0;
    assert_int_equal(rv_deband_configure(db, &ds), 0);
    return db;
}

/* The planes of img, packed as Y4M stores them. */
static size_t image_bytes(RV_Image *img, unsigned char *out)
{
    size_t n = 0;
    for (int p = 0; p < rv_image_planes(img); p++) {
        ptrdiff_t pitch;
        const unsigned char *d = rv_image_read(img, p, &pitch);
        assert_non_null(d);
        for (int y = 0; y < rv_image_plane_height(img, p); y++) {
            if (out)
                memcpy(out + n, d + y * pitch, (size_t)rv_image_plane_width(img, p));
            n += (size_t)rv_image_plane_width(img, p);
        }
    }
    return n;
}

/* Frame i of a Y4M file (header checked by y4m_frames), or NULL. */
static const unsigned char *y4m_frame(const char *b, size_t len, size_t fsz, int i)
{
    const char *nl = memchr(b, '\n', len);
    size_t pos = (size_t)(nl - b) + 1;
    for (int n = 0; pos < len; n++) {
        const char *e = memchr(b + pos, '\n', len - pos);
        pos = (size_t)(e - b) + 1;
        if (n == i)
            return (const unsigned char *)b + pos;
        pos += fsz;
    }
    return NULL;
}

/* Every frame of the camera run's output equals deband(frame k) for
 * increasing camera frames k. Returns the number of frames checked. */
static int check_camera_deband(const char *out, int raw)
{
    const int w = 160, h = 120;
    int n = y4m_frames(out, w, h, 0);
    assert_true(n >= 1);
    size_t len;
    char *b = rv_test_slurp(out, &len);
    assert_non_null(strstr(b, " C420jpeg"));
    RV_Context *ctx = rv_test_cpu_context(0);
    RV_Deband *db = make_deband(ctx);
    RV_Image *in = NULL, *ref = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_YUV420P8, &in), 0);
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_YUV420P8, &ref), 0);
    const size_t fsz = (size_t)w * h * 3 / 2;
    unsigned char *rb = malloc(fsz), *ib = malloc(fsz);
    assert_true(rb && ib);
    long long k = 0, changed = 0;
    for (int i = 0; i < n; i++) {
        const unsigned char *got = y4m_frame(b, len, fsz, i);
        assert_non_null(got);
        int found = 0;
        for (; k < 400 && !found; k++) {
            camera_yuv420(in, k, w, h, raw);
            assert_int_equal(rv_deband_apply(db, ref, in, k), 0);
            image_bytes(ref, rb);
            if (memcmp(rb, got, fsz) == 0) {
                found = 1;
                image_bytes(in, ib);
                for (size_t j = 0; j < fsz; j++)
                    changed += ib[j] != rb[j];
            }
        }
        if (!found)
            fail_msg("output frame %d is no camera frame after deband (%s path)", i, raw ? "raw" : "RGBA");
    }
    /* the filter did work: the output is not the plain conversion */
    fprintf(stderr, "%d frames equal deband(camera frame); %lld samples changed by deband\n", n, changed);
    assert_true(changed > 0);
    free(rb);
    free(ib);
    free(b);
    rv_image_destroy(&in);
    rv_image_destroy(&ref);
    rv_deband_destroy(&db);
    rv_context_destroy(&ctx);
    return n;
}

static void test_deband(void **state)
{
    (void)state;
    char out[128], snk[160];
    snprintf(out, sizeof(out), "%s/out.y4m", g_dir);
    snprintf(snk, sizeof(snk), "y4m:%s", out);
    const char *env[] = {"RV_FAKECAM_MODE=normal", "RV_FAKECAM_FPS=100", NULL};

    /* RGBA8 camera frames, the conversion named */
    const char *args[] = {"--source", "v4l2:/dev/video0", "--frames", "8", "--stage", "yuv420", "--stage", "deband",
                          "--sink", snk, "--backend", "cpu", "--no-stats", "--no-adapt", NULL};
    int rc = run_cam(args, env, 0);
    char *s = err_text();
    show("deband (RGBA camera, yuv420 stage)", rc, s);
    assert_int_equal(rc, 0);
    summary m = parse_summary(s);
    assert_null(strstr(s, "inserted"));
    check_camera(&m);
    assert_int_equal(check_camera_deband(out, 0), m.sink_frames);
    free(s);

    /* raw YUYV frames; ravioli-run inserts the conversion and says so */
    const char *args2[] = {"--source", "v4l2:/dev/video0", "--raw-yuyv", "--frames", "8", "--stage", "deband",
                           "--sink", snk, "--backend", "cpu", "--no-stats", "--no-adapt", NULL};
    rc = run_cam(args2, env, 0);
    s = err_text();
    show("deband (raw YUYV camera, conversion inserted)", rc, s);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(s, "inserted stage 'yuv420' before it"));
    assert_non_null(strstr(s, "packed YUYV"));
    m = parse_summary(s);
    check_camera(&m);
    assert_int_equal(check_camera_deband(out, 1), m.sink_frames);
    free(s);

    /* raw frames into an RGBA stage: rgba inserted; the Y4M file is 4:2:0 */
    const char *args3[] = {"--source", "v4l2:/dev/video0", "--raw-yuyv", "--frames", "3", "--stage", "invert",
                           "--sink", snk, "--backend", "cpu", "--no-stats", NULL};
    rc = run_cam(args3, env, 0);
    s = err_text();
    show("raw YUYV -> invert", rc, s);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(s, "inserted stage 'rgba' before it"));
    assert_true(y4m_frames(out, 160, 120, 1) >= 1);
    free(s);

    /* raw frames through two named conversions: nothing inserted */
    const char *args4[] = {"--source", "v4l2:/dev/video0", "--raw-yuyv", "--frames", "3", "--stage", "yuv444",
                           "--stage", "rgba", "--sink", snk, "--backend", "cpu", "--no-stats", NULL};
    rc = run_cam(args4, env, 0);
    s = err_text();
    show("raw YUYV -> yuv444 -> rgba", rc, s);
    assert_int_equal(rc, 0);
    assert_null(strstr(s, "inserted"));
    free(s);
}

/* A banded 4:2:0 or 4:4:4 clip: a smooth ramp quantised to steps of 4 codes
 * (visible bands) with a sharp edge, moving one pixel a frame. */
static void write_banded(const char *path, int w, int h, int frames, int c444)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f, "YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C%s\n", w, h, c444 ? "444" : "420jpeg");
    int cw = c444 ? w : (w + 1) / 2, ch = c444 ? h : (h + 1) / 2;
    for (int k = 0; k < frames; k++) {
        fprintf(f, "FRAME\n");
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int v = x + k < w / 2 ? 40 + ((x + k) * 60 / w) / 4 * 4 : 200;
                fputc(v, f);
            }
        for (int p = 0; p < 2; p++)
            for (int y = 0; y < ch; y++)
                for (int x = 0; x < cw; x++)
                    fputc(p ? 128 + (y * 16 / ch) / 2 * 2 : 100 + (x * 20 / cw) / 4 * 4, f);
    }
    fclose(f);
}

static int run_plain(const char *const *args)
{
    static const char *const none[] = {NULL};
    return run_cam(args, none, 0); /* the preload stays out of the way of files */
}

static void y4m_case(int c444)
{
    const int w = 96, h = 64, frames = 5;
    char in[128], out[128], src[160], snk[160];
    snprintf(in, sizeof(in), "%s/banded.y4m", g_dir);
    snprintf(out, sizeof(out), "%s/debanded.y4m", g_dir);
    snprintf(src, sizeof(src), "y4m:%s", in);
    snprintf(snk, sizeof(snk), "y4m:%s", out);
    write_banded(in, w, h, frames, c444);
    const char *args[] = {"--source", src, "--stage", "deband", "--sink", snk, "--backend", "cpu", "--no-stats", NULL};
    int rc = run_plain(args);
    char *s = err_text();
    show(c444 ? "y4m 4:4:4 -> deband" : "y4m 4:2:0 -> deband", rc, s);
    assert_int_equal(rc, 0);
    assert_null(strstr(s, "inserted"));
    summary m = parse_summary(s);
    assert_int_equal(m.proc, frames);
    free(s);

    RV_Context *ctx = rv_test_cpu_context(0);
    RV_Deband *db = make_deband(ctx);
    RV_Y4MSettings ys;
    rv_y4m_settings_default(&ys);
    RV_Source *rd = NULL;
    assert_int_equal(rv_source_open_y4m(ctx, in, &ys, &rd), 0);
    RV_Format fmt = c444 ? RV_FMT_YUV444P8 : RV_FMT_YUV420P8;
    RV_Image *fin = NULL, *ref = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, fmt, &fin), 0);
    assert_int_equal(rv_image_create(ctx, w, h, fmt, &ref), 0);
    assert_int_equal(y4m_frames(out, w, h, 0), frames);
    size_t len;
    char *b = rv_test_slurp(out, &len);
    assert_non_null(strstr(b, c444 ? " C444" : " C420jpeg"));
    const size_t fsz = image_bytes(fin, NULL);
    unsigned char *rb = malloc(fsz), *ib = malloc(fsz);
    long long changed = 0;
    for (int i = 0; i < frames; i++) {
        assert_int_equal(rv_source_read(rd, fin, NULL, 0), 0);
        assert_int_equal(rv_deband_apply(db, ref, fin, i), 0);
        image_bytes(ref, rb);
        image_bytes(fin, ib);
        assert_memory_equal(y4m_frame(b, len, fsz, i), rb, fsz);
        for (size_t j = 0; j < fsz; j++)
            changed += ib[j] != rb[j];
    }
    fprintf(stderr, "%d frames equal the deband library; %lld samples changed\n", frames, changed);
    assert_true(changed > (long long)fsz / 10); /* the bands were worked on */
    free(rb);
    free(ib);
    free(b);
    rv_source_close(&rd);
    rv_image_destroy(&fin);
    rv_image_destroy(&ref);
    rv_deband_destroy(&db);
    rv_context_destroy(&ctx);
}

static void test_y4m(void **state)
{
    (void)state;
    y4m_case(0);
    y4m_case(1);

    /* The sink is opened with the chain's last format: RGBA pattern ->
     * yuv444 -> a C444 file; -> yuv444 -> rgba -> the writer's 4:2:0. */
    char out[128], snk[160];
    snprintf(out, sizeof(out), "%s/fmt.y4m", g_dir);
    snprintf(snk, sizeof(snk), "y4m:%s", out);
    const char *a1[] = {"--source", "synthetic:64x48", "--frames", "2", "--stage", "yuv444", "--sink", snk,
                        "--backend", "cpu", "--no-stats", NULL};
    int rc = run_plain(a1);
    char *s = err_text();
    assert_int_equal(rc, 0);
    free(s);
    assert_int_equal(y4m_frames(out, 64, 48, 1), 2);
    char *b = rv_test_slurp(out, NULL);
    assert_non_null(strstr(b, " C444\n"));
    free(b);

    /* a user kernel cannot take packed frames - and a stage that cannot take
     * the frames and has no conversion says which stage to add */
    const char *a2[] = {"--source", "synthetic:64x48", "--frames", "2", "--stage", "yuv420", "--stage", "invert",
                        "--stage", "emboss", "--backend", "cpu", "--no-stats", NULL};
    rc = run_plain(a2);
    s = err_text();
    show("yuv420 -> invert -> emboss", rc, s);
    assert_int_equal(rc, 0); /* both have 8-bit-plane forms */
    free(s);
    const char *a3[] = {"--source", "synthetic:64x48", "--frames", "2", "--stage", "yuv444", "--stage", "denoise",
                        "--stage", "yuv420", "--stage", "deband:mode=1", "--stage", "rgba", "--backend", "cpu",
                        "--no-stats", NULL};
    rc = run_plain(a3);
    s = err_text();
    show("yuv444 -> denoise -> yuv420 -> deband -> rgba", rc, s);
    assert_int_equal(rc, 0);
    assert_null(strstr(s, "inserted"));
    free(s);
    /* the window takes the chain's 4:2:0 frames (IYUV texture; SDL's dummy driver) */
    const char *a5[] = {"--source", "synthetic:64x48", "--frames", "3", "--stage", "deband", "--sink", "sdl",
                        "--backend", "cpu", "--no-stats", NULL};
    static const char *const sdl_env[] = {"SDL_VIDEODRIVER=dummy", NULL};
    rc = run_cam(a5, sdl_env, 0);
    s = err_text();
    show("pattern -> deband -> sdl", rc, s);
    if (rc == 3) { /* built without SDL2 */
        assert_non_null(strstr(s, "SDL2"));
    } else {
        assert_int_equal(rc, 0);
        assert_non_null(strstr(s, "inserted stage 'yuv420' before it"));
        assert_non_null(strstr(s, "sink       sdl: 3 frames"));
    }
    free(s);
    const char *a4[] = {"--source", "synthetic:64x48", "--frames", "2", "--stage", "yuv420", "--stage", "yuv420",
                        "--backend", "cpu", "--no-stats", "--raw-yuyv", NULL};
    rc = run_plain(a4);
    s = err_text();
    assert_int_equal(rc, 2);
    assert_non_null(strstr(s, "--raw-yuyv is for camera sources"));
    free(s);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s RAVIOLI_RUN PRELOAD.so normal|unplug|errors|slow|deband|y4m\n", argv[0]);
        return 1;
    }
    g_exe = argv[1];
    g_preload = argv[2];
    const char *mode = argv[3];

    /* Skip when the library has no V4L2 source (RV_ENOSYS). */
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_V4L2Settings vs;
    rv_v4l2_settings_default(&vs);
    vs.device = "/dev/rv_no_such_camera";
    RV_Source *src = NULL;
    int err = rv_source_open_v4l2(ctx, &vs, &src);
    rv_source_close(&src);
    rv_context_destroy(&ctx);
    if (err == RV_ENOSYS) {
        printf("SKIPPED: the V4L2 source is not in this build\n");
        return RV_TEST_SKIP;
    }

    snprintf(g_dir, sizeof(g_dir), "/tmp/rv_camcli_XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(g_report, sizeof(g_report), "%s/camera", g_dir);
    int rc;
    if (!strcmp(mode, "normal")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_normal)};
        rc = cmocka_run_group_tests(t, NULL, NULL);
    } else if (!strcmp(mode, "unplug")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_unplug)};
        rc = cmocka_run_group_tests(t, NULL, NULL);
    } else if (!strcmp(mode, "errors")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_errors)};
        rc = cmocka_run_group_tests(t, NULL, NULL);
    } else if (!strcmp(mode, "slow")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_slow)};
        rc = cmocka_run_group_tests(t, NULL, NULL);
    } else if (!strcmp(mode, "deband")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_deband)};
        rc = cmocka_run_group_tests(t, NULL, NULL);
    } else if (!strcmp(mode, "y4m")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_y4m)};
        rc = cmocka_run_group_tests(t, NULL, NULL);
    } else {
        fprintf(stderr, "unknown mode '%s'\n", mode);
        rc = 1;
    }
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_dir);
    return rc;
}
