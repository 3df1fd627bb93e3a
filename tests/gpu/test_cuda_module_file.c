/*
 * test_cuda_module_file.c - the CUDA backend reading a module file
 * (ravioli_cuda/src/cuda_backend.c read_file): a file that is gone when it
 * is opened is RV_ENOENT, one that cannot be opened for another reason
 * RV_EIO (rv__path_error, common.h), one that cannot be read (a directory)
 * RV_EIO, each with a message naming the file; a file that is read goes on
 * to the driver (a junk one: RV_EBADMSG, cuModuleLoadDataEx).
 *
 * rv_module_load only hands the backend a file it found readable
 * (module.c, find_module), so the file is changed between that check and
 * the backend's fopen: loading "m.fatbin" with an "m.ptx" newer than it
 * beside, the backend warns that the fat binary is stale right before
 * reading it, and the test's log callback then removes m.fatbin (ENOENT)
 * or makes it a symbolic link to itself (ELOOP, as root too).
 *
 * Two runs (tests/gpu/CMakeLists.txt): test_cuda_module_file (labels unit,
 * cuda) on any machine, with RAVIOLI_CUDA_DRIVER naming the fake driver
 * (fake_cuda.c: a context, no modules) and RV_TEST_FAKE_CUDA=1, where the
 * context must be created; test_cuda_module_file_gpu (label gpu) with the
 * real driver, skipped (77) without a usable GPU.
 */
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "rv_test.h"

enum { ACT_NONE, ACT_REMOVE, ACT_LOOP };
static int g_action;
static int g_stale_warnings;
static char g_target[4096];
static char g_log[8192];

/* The stale fat binary's warning comes right before the backend opens it:
 * the file is changed then. Every message is kept for the failure report. */
static void log_cb(void *opaque, RV_LogLevel lvl, const char *msg)
{
    (void)opaque;
    const size_t n = strlen(g_log);
    snprintf(g_log + n, sizeof(g_log) - n, "%s%s", n ? "\n" : "", msg);
    if (lvl != RV_LOG_WARN || !strstr(msg, "is older than"))
        return;
    g_stale_warnings++;
    if (g_action == ACT_REMOVE) {
        if (unlink(g_target) != 0)
            fail_msg("cannot remove %s", g_target);
    } else if (g_action == ACT_LOOP) {
        const char *base = strrchr(g_target, '/') + 1;
        if (unlink(g_target) != 0 || symlink(base, g_target) != 0)
            fail_msg("cannot make %s a link to itself", g_target);
    }
}

static RV_Context *cuda_context(void)
{
    const int fake = getenv("RV_TEST_FAKE_CUDA") && !strcmp(getenv("RV_TEST_FAKE_CUDA"), "1");
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CUDA;
    s.threads = 1;
    s.log = log_cb;
    s.log_level = RV_LOG_WARN;
    RV_Context *ctx = NULL;
    g_log[0] = 0;
    const int err = rv_context_create(&ctx, &s);
    if (err == RV_ENODEV && !fake) {
        printf("SKIPPED: no usable GPU: %s\n", g_log);
        exit(RV_TEST_SKIP);
    }
    if (err < 0) {
        fprintf(stderr, "cannot create a CUDA context%s: %s: %s\n", fake ? " on the fake driver" : "",
                rv_strerror(err), g_log);
        exit(1);
    }
    return ctx;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* m.fatbin (junk, dated 2001) and m.ptx beside it, newer. */
static void stale_pair(const char *dir, char *fatbin, size_t size)
{
    char ptx[4096];
    snprintf(fatbin, size, "%s/m.fatbin", dir);
    snprintf(ptx, sizeof(ptx), "%s/m.ptx", dir);
    write_file(fatbin, "not a fat binary\n");
    write_file(ptx, "not PTX either\n");
    const struct timeval old[2] = {{1000000000, 0}, {1000000000, 0}};
    assert_int_equal(utimes(fatbin, old), 0);
}

/* Loads `path` (an explicit path) on ctx; the code, with the context's
 * message in msg. */
static int load(RV_Context *ctx, const char *path, char *msg, size_t size)
{
    RV_Module *m = (RV_Module *)ctx; /* must be reset to NULL */
    g_stale_warnings = 0;
    const int err = rv_module_load(ctx, path, &m);
    snprintf(msg, size, "%s", rv_context_error(ctx));
    if (err < 0)
        assert_null(m);
    else
        rv_module_unload(&m);
    return err;
}

static void expect(const char *what, int got, int want, const char *msg, const char *path, const char *reason)
{
    char lead[4200];
    snprintf(lead, sizeof(lead), "module %s: %s", path, reason);
    if (got != want || !strstr(msg, lead))
        fail_msg("%s: %d (%s), message '%s'; expected %d (%s) and '%s'\nlog:\n%s", what, got, rv_strerror(got), msg,
                 want, rv_strerror(want), lead, g_log);
}

static void test_module_file_errors(void **state)
{
    (void)state;
    RV_Context *ctx = cuda_context();
    char dir[] = "/tmp/rv_cuda_module_file_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char msg[2048], path[4096];

    /* read: a junk file reaches the driver, which refuses it */
    snprintf(path, sizeof(path), "%s/junk.ptx", dir);
    write_file(path, "this is not PTX\n");
    int err = load(ctx, path, msg, sizeof(msg));
    expect("a junk .ptx", err, RV_EBADMSG, msg, path, "the CUDA driver cannot load it (cuModuleLoadDataEx");

    /* the stale fat binary, unchanged: read, then refused by the driver (and warned of) */
    stale_pair(dir, path, sizeof(path));
    g_action = ACT_NONE;
    err = load(ctx, path, msg, sizeof(msg));
    assert_int_equal(g_stale_warnings, 1);
    expect("a stale junk .fatbin", err, RV_EBADMSG, msg, path, "the CUDA driver cannot load it");

    /* gone when opened: RV_ENOENT */
    snprintf(g_target, sizeof(g_target), "%s", path);
    g_action = ACT_REMOVE;
    err = load(ctx, path, msg, sizeof(msg));
    assert_int_equal(g_stale_warnings, 1);
    expect("a .fatbin removed before it is opened", err, RV_ENOENT, msg, path, "cannot open: ");
    assert_non_null(strstr(msg, strerror(ENOENT)));

    /* cannot be opened for another reason (a link to itself, ELOOP): RV_EIO */
    stale_pair(dir, path, sizeof(path));
    g_action = ACT_LOOP;
    err = load(ctx, path, msg, sizeof(msg));
    assert_int_equal(g_stale_warnings, 1);
    expect("a .fatbin that became a link to itself", err, RV_EIO, msg, path, "cannot open: ");
    assert_non_null(strstr(msg, strerror(ELOOP)));
    g_action = ACT_NONE;

    /* opened but not readable (a directory named as the file): RV_EIO */
    snprintf(path, sizeof(path), "%s/d.ptx", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    err = load(ctx, path, msg, sizeof(msg));
    expect("a directory named d.ptx", err, RV_EIO, msg, path, "read error");

    /* a path that is not there at all is the search's RV_ENOENT, before the backend */
    snprintf(path, sizeof(path), "%s/none.ptx", dir);
    err = load(ctx, path, msg, sizeof(msg));
    assert_int_equal(err, RV_ENOENT);
    assert_non_null(strstr(msg, "not found"));

    rv_context_destroy(&ctx);
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_module_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
