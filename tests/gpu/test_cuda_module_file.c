/*
 * test_cuda_module_file.c - the CUDA backend reading a module file
 * (ravioli_cuda/src/cuda_backend.c read_file): a file that is gone when it
 * is opened is RV_ENOENT, one that cannot be opened for another reason
 * RV_EIO (rv__path_error, ravioli/src/internal.h), one that cannot be read
 * (a directory) RV_EIO, each with a message naming the file; a file that is
 * read goes on to the driver (a junk one: RV_EBADMSG, cuModuleLoadDataEx);
 * a fat binary older than the PTX beside it is warned of.
 *
 * rv_module_load only hands the backend a file it found readable
 * (module.c, find_module), so for "gone" and "cannot be opened" the file is
 * changed between that check and the backend's fopen. The fake driver
 * (fake_cuda.c) gives the moment: rv_fake_cuda_at_next_bind runs a function
 * of the test in the next cuCtxSetCurrent of this thread, which is the
 * backend binding its context at the start of cuda_module_load, before it
 * opens the file. There the test removes the file (ENOENT) or makes it a
 * symbolic link to itself (ELOOP, as root too). A directory named as the
 * file is the problem itself: it can be opened, not read.
 *
 * Two runs (tests/gpu/CMakeLists.txt): test_cuda_module_file (labels unit,
 * cuda) on any machine, with RAVIOLI_CUDA_DRIVER naming the fake driver
 * (a context, no modules) and RV_TEST_FAKE_CUDA=1, where the context and the
 * hook must be there; test_cuda_module_file_gpu (label gpu) with the real
 * driver, skipped (77) without a usable GPU. The real driver has no hook:
 * there the two cases that need it are skipped (test_changed_before_open),
 * the others run.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "rv_test.h"

static int g_stale_warnings;
static char g_log[8192];

/* Every message is kept for the failure report; the stale fat binary's
 * warnings are counted. */
static void log_cb(void *opaque, RV_LogLevel lvl, const char *msg)
{
    (void)opaque;
    const size_t n = strlen(g_log);
    snprintf(g_log + n, sizeof(g_log) - n, "%s%s", n ? "\n" : "", msg);
    if (lvl == RV_LOG_WARN && strstr(msg, "is older than"))
        g_stale_warnings++;
}

static int is_fake(void)
{
    return getenv("RV_TEST_FAKE_CUDA") && !strcmp(getenv("RV_TEST_FAKE_CUDA"), "1");
}

static RV_Context *cuda_context(void)
{
    const int fake = is_fake();
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

/* The fake driver's rv_fake_cuda_at_next_bind, found in the driver library
 * the backend loaded (the context holds it open); NULL on the real driver. */
typedef void (*at_next_bind_fn)(void (*fn)(void *), void *arg);

static at_next_bind_fn find_bind_hook(void **lib)
{
    const char *name = getenv("RAVIOLI_CUDA_DRIVER");
    *lib = name && *name ? dlopen(name, RTLD_NOW | RTLD_NOLOAD) : NULL;
    void *sym = *lib ? dlsym(*lib, "rv_fake_cuda_at_next_bind") : NULL;
    at_next_bind_fn fn = NULL;
    if (sym)
        memcpy(&fn, &sym, sizeof(fn));
    return fn;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
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

static void rm_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* What the hook does to the file, in the backend's bind: the file, and the
 * errno of a step that failed (checked after the load: the hook runs inside
 * the library, where the test must not fail). */
typedef struct file_change {
    const char *path;
    int runs, err;
} file_change;

static void remove_file(void *arg)
{
    file_change *c = arg;
    c->runs++;
    if (unlink(c->path) != 0)
        c->err = errno;
}

static void make_self_link(void *arg)
{
    file_change *c = arg;
    c->runs++;
    const char *base = strrchr(c->path, '/') + 1;
    if (unlink(c->path) != 0 || symlink(base, c->path) != 0)
        c->err = errno;
}

/* Loads `path` with `change` made to it when the backend binds its context
 * (before it opens the file); the hook must have run once, and done it. */
static int load_changed(RV_Context *ctx, at_next_bind_fn at_next_bind, const char *path, void (*change)(void *),
                        char *msg, size_t size)
{
    file_change c = {path, 0, 0};
    at_next_bind(change, &c);
    const int err = load(ctx, path, msg, size);
    at_next_bind(NULL, NULL); /* disarmed if it did not run */
    if (c.runs != 1)
        fail_msg("%s: the backend did not bind its context before reading the file (the hook ran %d times); "
                 "code %d (%s), message '%s'",
                 path, c.runs, err, rv_strerror(err), msg);
    if (c.err)
        fail_msg("%s: the test could not change the file: %s", path, strerror(c.err));
    return err;
}

/* Files that are what they are when the backend opens them: any driver. */
static void test_module_file_errors(void **state)
{
    (void)state;
    RV_Context *ctx = cuda_context();
    char dir[] = "/tmp/rv_cuda_module_file_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char msg[2048], path[4096], ptx[4096];

    /* read: a junk file reaches the driver, which refuses it */
    snprintf(path, sizeof(path), "%s/junk.ptx", dir);
    write_file(path, "this is not PTX\n");
    int err = load(ctx, path, msg, sizeof(msg));
    expect("a junk .ptx", err, RV_EBADMSG, msg, path, "the CUDA driver cannot load it (cuModuleLoadDataEx");
    assert_int_equal(g_stale_warnings, 0);

    /* a fat binary (junk, dated 2001) older than the PTX beside it: warned of,
     * read, then refused by the driver */
    snprintf(path, sizeof(path), "%s/m.fatbin", dir);
    snprintf(ptx, sizeof(ptx), "%s/m.ptx", dir);
    write_file(path, "not a fat binary\n");
    write_file(ptx, "not PTX either\n");
    const struct timeval old[2] = {{1000000000, 0}, {1000000000, 0}};
    assert_int_equal(utimes(path, old), 0);
    err = load(ctx, path, msg, sizeof(msg));
    assert_int_equal(g_stale_warnings, 1);
    expect("a stale junk .fatbin", err, RV_EBADMSG, msg, path, "the CUDA driver cannot load it");

    /* opened but not readable (a directory named as the file): RV_EIO */
    snprintf(path, sizeof(path), "%s/d.ptx", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    err = load(ctx, path, msg, sizeof(msg));
    expect("a directory named d.ptx", err, RV_EIO, msg, path, "read error");
    assert_non_null(strstr(msg, strerror(EISDIR)));

    /* a path that is not there at all is the search's RV_ENOENT, before the backend */
    snprintf(path, sizeof(path), "%s/none.ptx", dir);
    err = load(ctx, path, msg, sizeof(msg));
    assert_int_equal(err, RV_ENOENT);
    assert_non_null(strstr(msg, "not found"));

    rv_context_destroy(&ctx);
    rm_tree(dir);
}

/* Files changed after the search found them readable, before the backend
 * opens them: the fake driver's hook. */
static void test_changed_before_open(void **state)
{
    (void)state;
    RV_Context *ctx = cuda_context();
    void *lib = NULL;
    const at_next_bind_fn at_next_bind = find_bind_hook(&lib);
    if (!at_next_bind) {
        rv_context_destroy(&ctx);
        if (lib)
            dlclose(lib);
        if (is_fake())
            fail_msg("the fake driver (%s) has no rv_fake_cuda_at_next_bind", getenv("RAVIOLI_CUDA_DRIVER"));
        printf("the real driver: no hook to change a file before the backend opens it "
               "(test_cuda_module_file covers it on the fake driver)\n");
        skip();
    }
    char dir[] = "/tmp/rv_cuda_module_file_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char msg[2048], path[4096];

    /* gone when opened: RV_ENOENT */
    snprintf(path, sizeof(path), "%s/gone.ptx", dir);
    write_file(path, "this is not PTX\n");
    int err = load_changed(ctx, at_next_bind, path, remove_file, msg, sizeof(msg));
    expect("a .ptx removed before it is opened", err, RV_ENOENT, msg, path, "cannot open: ");
    assert_non_null(strstr(msg, strerror(ENOENT)));

    /* cannot be opened for another reason (a link to itself, ELOOP): RV_EIO */
    snprintf(path, sizeof(path), "%s/loop.ptx", dir);
    write_file(path, "this is not PTX\n");
    err = load_changed(ctx, at_next_bind, path, make_self_link, msg, sizeof(msg));
    expect("a .ptx that became a link to itself", err, RV_EIO, msg, path, "cannot open: ");
    assert_non_null(strstr(msg, strerror(ELOOP)));

    rv_context_destroy(&ctx);
    dlclose(lib);
    rm_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_module_file_errors),
        cmocka_unit_test(test_changed_before_open),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
