/*
 * test_ravioli_run_v4l2.c - ravioli-run --source v4l2:/dev/video0 end to end
 * against the emulated camera (fakecam_preload.c, LD_PRELOADed into the
 * ravioli-run process only; see docs/video.md).
 *
 *     test_ravioli_run_v4l2 <ravioli-run> <fakecam preload .so> normal|unplug|errors|slow
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

#include "rv_test.h"

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

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    size_t got = fread(b, 1, (size_t)n, f);
    fclose(f);
    b[got] = 0;
    if (len)
        *len = got;
    return b;
}

/* The camera's counters (RV_FAKECAM_REPORT); -1 when absent. */
static long long report_get(const char *key)
{
    char *s = slurp(g_report, NULL);
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
    char out_path[128], err_path[128];
    snprintf(out_path, sizeof(out_path), "%s/stdout", g_dir);
    snprintf(err_path, sizeof(err_path), "%s/stderr", g_dir);
    unlink(g_report);
    const char *argv[64];
    int n = 0;
    argv[n++] = g_exe;
    for (int i = 0; args[i] && n < 62; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fi = open("/dev/null", O_RDONLY);
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fi < 0 || fo < 0 || fe < 0)
            _exit(126);
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        /* An LD_PRELOADed library comes before a shared ASan runtime: tell
         * ASan that this order is intended. */
        char asan[512];
        const char *old = getenv("ASAN_OPTIONS");
        snprintf(asan, sizeof(asan), "%s%sverify_asan_link_order=0", old ? old : "",
                 old && *old ? ":" : "");
        setenv("ASAN_OPTIONS", asan, 1);
        setenv("LD_PRELOAD", g_preload, 1);
        setenv("RV_FAKECAM_REPORT", g_report, 1);
        setenv("RV_FAKECAM_MAX", "160x120", 1);
        for (int i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        execv(g_exe, (char *const *)argv);
        _exit(127);
    }
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
    if (!WIFEXITED(status)) {
        fprintf(stderr, "ravioli-run died (status %d)\n", status);
        return -1;
    }
    return WEXITSTATUS(status);
}

static char *err_text(void)
{
    char p[128];
    snprintf(p, sizeof(p), "%s/stderr", g_dir);
    char *s = slurp(p, NULL);
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
    char *rep = slurp(g_report, NULL);
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
    char *b = slurp(path, &len);
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

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s RAVIOLI_RUN PRELOAD.so normal|unplug|errors|slow\n", argv[0]);
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
