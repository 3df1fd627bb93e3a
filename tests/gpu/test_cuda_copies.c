/*
 * test_cuda_copies.c - the CUDA backend's copies between buffers and host
 * memory, on any machine: RAVIOLI_CUDA_DRIVER names the fake driver
 * (fake_cuda.c: device memory is host memory, copies are memcpy), so the
 * host side of the staged copies of pageable memory (chunks, rows, pitches,
 * the two staging buffers, the copy threads) runs in CI and under the
 * sanitizers. The same copies with staging off (RAVIOLI_CUDA_STAGED=0) give
 * the same bytes; the debug log says which path ran. On a GPU the same check
 * runs in gpu_equivalence (test_buffer_staged).
 */
#include "rv_test.h"

#include "staged_copies_check.h"

static char g_log[16384];
static rv_test_why g_keep = {g_log, sizeof(g_log)};

static RV_Context *fake_context(int threads)
{
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CUDA;
    s.threads = threads;
    s.log = rv_test_keep_all;
    s.log_opaque = &g_keep;
    s.log_level = RV_LOG_DEBUG;
    RV_Context *c = NULL;
    if (rv_context_create(&c, &s) < 0)
        fail_msg("no CUDA context on the fake driver (RAVIOLI_CUDA_DRIVER=%s); log:\n%s",
                 getenv("RAVIOLI_CUDA_DRIVER") ? getenv("RAVIOLI_CUDA_DRIVER") : "(unset)", g_log);
    return c;
}

static void test_staged(void **state)
{
    (void)state;
    /* one copy thread and the default (up to 8): the chunks split over threads or not */
    for (int threads = 1; threads <= 8; threads += 7) {
        g_log[0] = 0;
        RV_Context *c = fake_context(threads);
        staged_copies_check(c);
        rv_context_destroy(&c);
        if (!strstr(g_log, "pageable copies staged through"))
            fail_msg("the staged path did not run; log:\n%s", g_log);
    }
}

static void test_driver_path(void **state)
{
    (void)state;
    g_log[0] = 0;
    setenv("RAVIOLI_CUDA_STAGED", "0", 1);
    RV_Context *c = fake_context(0);
    unsetenv("RAVIOLI_CUDA_STAGED");
    staged_copies_check(c);
    rv_context_destroy(&c);
    if (strstr(g_log, "staged through"))
        fail_msg("staged with RAVIOLI_CUDA_STAGED=0; log:\n%s", g_log);
}

int main(void)
{
    if (!getenv("RV_TEST_FAKE_CUDA")) {
        printf("SKIPPED: run by ctest with RAVIOLI_CUDA_DRIVER naming the fake driver\n");
        return RV_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_staged),
        cmocka_unit_test(test_driver_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
