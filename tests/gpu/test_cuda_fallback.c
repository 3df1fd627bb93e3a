/*
 * test_cuda_fallback.c - the context's behaviour without a CUDA driver, on
 * any machine (CI included): RAVIOLI_CUDA_DRIVER points the backend at a
 * library that does not exist, as on a machine with no NVIDIA driver.
 *  - RV_BACKEND_AUTO gives a working CPU context and says why exactly once;
 *  - RV_BACKEND_CUDA fails with RV_ENODEV and a message naming the library;
 *  - a CPU context then runs a kernel (the fallback really works).
 */
#include "rv_test.h"

static int g_info, g_error;
static char g_msg[2048];

static void log_cb(void *opaque, RV_LogLevel lvl, const char *msg)
{
    (void)opaque;
    if (lvl == RV_LOG_INFO)
        g_info++;
    if (lvl == RV_LOG_ERROR)
        g_error++;
    snprintf(g_msg + strlen(g_msg), sizeof(g_msg) - strlen(g_msg), "%s\n", msg);
}

static RV_Settings settings(RV_Backend b)
{
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = b;
    s.threads = 2;
    s.log = log_cb;
    s.log_level = RV_LOG_INFO;
    return s;
}

static void test_auto_falls_back(void **state)
{
    (void)state;
    g_info = g_error = 0;
    g_msg[0] = 0;
    RV_Settings s = settings(RV_BACKEND_AUTO);
    RV_Context *ctx = NULL;
    assert_int_equal(rv_context_create(&ctx, &s), 0);
    assert_non_null(ctx);
    assert_int_equal(rv_context_backend(ctx), RV_BACKEND_CPU);
    assert_int_equal(g_info, 1); /* said once */
    assert_int_equal(g_error, 0);
    assert_non_null(strstr(g_msg, "/nonexistent/libcuda.so.1"));
    assert_non_null(strstr(g_msg, "CPU"));

    /* and it works: invert a gray image */
    RV_Module *m;
    const RV_Kernel *k;
    assert_int_equal(rv_module_load(ctx, "samples", &m), 0);
    assert_int_equal(rv_kernel_get(m, "invert8", &k), 0);
    RV_Image *img;
    assert_int_equal(rv_image_create(ctx, 31, 7, RV_FMT_GRAY8, &img), 0);
    ptrdiff_t p;
    uint8_t *d = rv_image_write(img, 0, &p);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 31; x++)
            d[y * p + x] = (uint8_t)(x * 8 + y);
    assert_int_equal(rv_proc_pix(k, img, img, NULL, 0), 0);
    const uint8_t *r = rv_image_read(img, 0, &p);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 31; x++)
            assert_int_equal(r[y * p + x], 255 - (uint8_t)(x * 8 + y));
    assert_int_equal(g_info, 1); /* nothing more said */
    rv_image_destroy(&img);
    rv_module_unload(&m);
    rv_context_destroy(&ctx);
    assert_null(ctx);
}

static void test_cuda_is_enodev(void **state)
{
    (void)state;
    g_info = g_error = 0;
    g_msg[0] = 0;
    RV_Settings s = settings(RV_BACKEND_CUDA);
    RV_Context *ctx = (RV_Context *)&s; /* must be reset to NULL */
    assert_int_equal(rv_context_create(&ctx, &s), RV_ENODEV);
    assert_null(ctx);
    assert_int_equal(g_error, 1);
    assert_non_null(strstr(g_msg, "CUDA backend requested but not available"));
    assert_non_null(strstr(g_msg, "/nonexistent/libcuda.so.1 cannot be loaded"));
}

static void test_cpu_ignores_driver(void **state)
{
    (void)state;
    g_info = g_error = 0;
    RV_Settings s = settings(RV_BACKEND_CPU);
    RV_Context *ctx = NULL;
    assert_int_equal(rv_context_create(&ctx, &s), 0);
    assert_int_equal(rv_context_backend(ctx), RV_BACKEND_CPU);
    assert_int_equal(g_info + g_error, 0);
    rv_context_destroy(&ctx);
}

int main(void)
{
    setenv("RAVIOLI_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_falls_back),
        cmocka_unit_test(test_cuda_is_enodev),
        cmocka_unit_test(test_cpu_ignores_driver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
