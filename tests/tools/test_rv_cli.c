/*
 * test_rv_cli.c - tools/common/rv_cli.c: the kept library error
 * (rv_cli_keep_error, rv_cli_kept_error) keeps RV_LOG_ERROR messages only,
 * the latest whole, and stays whole while log callbacks on other threads
 * replace it (a tool's log callback also runs on a streaming capture
 * thread); rv_cli_backend_failed says the kept reason less the library's
 * "... not available: " lead; rv_cli_log shows each level as the tools'
 * policy says and keeps errors; the extension and integer helpers.
 */
#include <pthread.h>
#include <unistd.h>

#include "rv_test.h"
#include "rv_cli.h"

static void test_keep_levels(void **state)
{
    (void)state;
    char buf[512];
    rv_cli_keep_error(RV_LOG_ERROR, "first error");
    rv_cli_keep_error(RV_LOG_WARN, "a warning");
    rv_cli_keep_error(RV_LOG_INFO, "some info");
    rv_cli_keep_error(RV_LOG_ERROR, NULL);
    rv_cli_kept_error(buf, sizeof(buf));
    assert_string_equal(buf, "first error");
    rv_cli_keep_error(RV_LOG_ERROR, "second error");
    rv_cli_kept_error(buf, sizeof(buf));
    assert_string_equal(buf, "second error");
    char small[7];
    rv_cli_kept_error(small, sizeof(small)); /* truncated, terminated */
    assert_string_equal(small, "second");
    rv_cli_kept_error(NULL, 10); /* ignored */
    rv_cli_kept_error(small, 0);
}

/* rv_cli_backend_failed's lines on stderr (into a file meanwhile). */
static char *backend_failed_says(const char *backend, int err, const char *auto_opt, int *ret)
{
    rv_test_stderr r;
    rv_test_stderr_begin(&r);
    *ret = rv_cli_backend_failed("prog", backend, err, rv_strerror(err), auto_opt);
    return rv_test_stderr_end(&r);
}

/* rv_cli_log's lines on stderr for one message of each level. */
static char *log_says(int verbose)
{
    rv_test_stderr r;
    rv_test_stderr_begin(&r);
    rv_cli_log("prog", verbose, RV_LOG_ERROR, "an error");
    rv_cli_log("prog", verbose, RV_LOG_WARN, "a warning");
    rv_cli_log("prog", verbose, RV_LOG_INFO, "no usable GPU (x): running on the CPU backend with 2 threads");
    rv_cli_log("prog", verbose, RV_LOG_DEBUG, "a detail");
    rv_cli_log("prog", verbose, RV_LOG_INFO, NULL);
    return rv_test_stderr_end(&r);
}

static void test_log_levels(void **state)
{
    (void)state;
    rv_cli_keep_error(RV_LOG_ERROR, "older");
    char *t = log_says(0);
    assert_string_equal(t, "prog: warning: a warning\n"
                           "prog: no usable GPU (x): running on the CPU backend with 2 threads\n");
    free(t);
    char buf[64];
    rv_cli_kept_error(buf, sizeof(buf));
    assert_string_equal(buf, "an error"); /* kept, though not shown */
    t = log_says(1);
    assert_string_equal(t, "prog: an error\n"
                           "prog: warning: a warning\n"
                           "prog: no usable GPU (x): running on the CPU backend with 2 threads\n"
                           "prog: a detail\n");
    free(t);
}

static void test_backend_failed(void **state)
{
    (void)state;
    int ret = -1;
    rv_cli_keep_error(RV_LOG_ERROR, "CUDA backend requested but not available: the NVIDIA driver library "
                                    "libcuda.so.1 cannot be loaded (x)");
    char *t = backend_failed_says("cuda", RV_ENODEV, "--backend auto", &ret);
    assert_int_equal(ret, 1);
    assert_string_equal(t, "prog: backend 'cuda' unavailable: device not available: the NVIDIA driver library "
                           "libcuda.so.1 cannot be loaded (x)\n"
                           "prog: (--backend auto runs on the CPU when there is no usable GPU)\n");
    free(t);
    rv_cli_keep_error(RV_LOG_ERROR, "something else");
    t = backend_failed_says("cuda", RV_ENOMEM, "--backend auto", &ret);
    assert_int_equal(ret, 0);
    assert_string_equal(t, "prog: backend 'cuda' unavailable: out of memory: something else\n");
    free(t);
}

/* Writers replace the kept message with whole messages of one letter (400
 * 'A' or 300 'B'); readers copy it out. Every copy must be one whole message
 * (or the first one): a copy that mixes letters or lengths was read while
 * it was being written. */
enum { ROUNDS = 100000 };
static char g_msg_a[401], g_msg_b[301];

static void *writer(void *arg)
{
    const int odd = arg != NULL;
    for (int i = 0; i < ROUNDS; i++)
        rv_cli_keep_error(RV_LOG_ERROR, (i + odd) & 1 ? g_msg_a : g_msg_b);
    return NULL;
}

static void *reader(void *arg)
{
    long *torn = arg;
    char buf[512];
    for (int i = 0; i < ROUNDS; i++) {
        rv_cli_kept_error(buf, sizeof(buf));
        if (strcmp(buf, g_msg_a) && strcmp(buf, g_msg_b) && strcmp(buf, "start"))
            (*torn)++;
    }
    return NULL;
}

static void test_keep_concurrent(void **state)
{
    (void)state;
    memset(g_msg_a, 'A', sizeof(g_msg_a) - 1);
    memset(g_msg_b, 'B', sizeof(g_msg_b) - 1);
    rv_cli_keep_error(RV_LOG_ERROR, "start");
    pthread_t w[2], r[2];
    long torn[2] = {0, 0};
    assert_int_equal(pthread_create(&w[0], NULL, writer, NULL), 0);
    assert_int_equal(pthread_create(&w[1], NULL, writer, g_msg_a), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&r[i], NULL, reader, &torn[i]), 0);
    for (int i = 0; i < 2; i++) {
        pthread_join(w[i], NULL);
        pthread_join(r[i], NULL);
    }
    if (torn[0] + torn[1])
        fail_msg("%ld of %d copies of the kept message were torn", torn[0] + torn[1], 2 * ROUNDS);
    char buf[512];
    rv_cli_kept_error(buf, sizeof(buf));
    assert_true(!strcmp(buf, g_msg_a) || !strcmp(buf, g_msg_b));
}

static void test_helpers(void **state)
{
    (void)state;
    assert_true(rv_cli_has_ext("x.PFM", ".pfm"));
    assert_true(rv_cli_has_ext("dir.pgm/x.pgm", ".pgm"));
    assert_false(rv_cli_has_ext("x.pfm.txt", ".pfm"));
    assert_false(rv_cli_has_ext("pfm", ".pfm"));
    long v = 0;
    assert_int_equal(rv_cli_parse_long("015", &v), 0);
    assert_int_equal(v, 15);
    assert_int_equal(rv_cli_parse_long("-0x10", &v), 0);
    assert_int_equal(v, -16);
    assert_int_equal(rv_cli_parse_long("2x", &v), -1);
    assert_int_equal(rv_cli_parse_long("", &v), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keep_levels),
        cmocka_unit_test(test_log_levels),
        cmocka_unit_test(test_backend_failed),
        cmocka_unit_test(test_keep_concurrent),
        cmocka_unit_test(test_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
