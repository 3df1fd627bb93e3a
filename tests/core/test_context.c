/*
 * test_context.c - contexts, settings, logging, module search, lifetimes,
 * and the pixel accessors.
 */
#include "rv_test.h"

#include <pthread.h>

typedef struct log_capture {
    int count[4];
    char last[512];
} log_capture;

static void capture(void *opaque, RV_LogLevel lvl, const char *msg)
{
    log_capture *c = opaque;
    c->count[lvl]++;
    snprintf(c->last, sizeof(c->last), "%s", msg);
}

static void test_defaults_and_lifetime(void **state)
{
    (void)state;
    RV_Settings s;
    rv_settings_default(&s);
    assert_int_equal(s.backend, RV_BACKEND_AUTO);
    assert_int_equal(s.threads, 0);
    assert_int_equal(s.log_level, RV_LOG_INFO);
    s.backend = RV_BACKEND_CPU;
    s.threads = 3;
    RV_Context *ctx = NULL;
    assert_int_equal(rv_context_create(&ctx, &s), 0);
    assert_int_equal(rv_context_backend(ctx), RV_BACKEND_CPU);
    assert_string_equal(rv_backend_name(rv_context_backend(ctx)), "cpu");
    assert_int_equal(rv_context_threads(ctx), 3);
    assert_int_equal(rv_context_threads(NULL), RV_EINVAL);
    assert_int_equal(rv_context_set_threads(ctx, 2), 0);
    assert_int_equal(rv_context_threads(ctx), 2);
    assert_int_equal(rv_context_set_threads(ctx, -1), RV_EINVAL);
    assert_int_equal(rv_context_sync(ctx), 0);
    /* the CPU backend queues nothing (rv_context_queued stays 0) */
    assert_true(rv_context_queued(ctx) == 0);
    assert_true(rv_context_queued(NULL) == 0);
    /* objects still alive at destroy are released with the context (ASan checks) */
    RV_Image *img;
    assert_int_equal(rv_image_create(ctx, 10, 10, RV_FMT_YUV420P16, &img), 0);
    RV_Buffer *b;
    assert_int_equal(rv_buffer_create(ctx, 64, &b), 0);
    RV_Module *m, *m2;
    assert_int_equal(rv_module_load(ctx, "samples", &m), 0);
    assert_int_equal(rv_module_load(ctx, "samples", &m2), 0); /* (two references, one module) */
    rv_context_destroy(&ctx);
    assert_null(ctx);
    rv_context_destroy(&ctx); /* NULL is fine */
    rv_context_destroy(NULL);

    s.threads = -2;
    assert_int_equal(rv_context_create(&ctx, &s), RV_EINVAL);
    assert_null(ctx);
}

/* Without a GPU driver, AUTO runs on the CPU and says so once; CUDA is an error. */
static void test_auto_fallback(void **state)
{
    (void)state;
    log_capture cap;
    memset(&cap, 0, sizeof(cap));
    RV_Settings s;
    rv_settings_default(&s);
    s.log = capture;
    s.log_opaque = &cap;
    RV_Context *ctx = NULL;
    assert_int_equal(rv_context_create(&ctx, &s), 0);
    if (rv_context_backend(ctx) == RV_BACKEND_CUDA) {
        /* a machine with a GPU: nothing to check here (the gpu tests cover it) */
        rv_context_destroy(&ctx);
        return;
    }
    assert_int_equal(rv_context_backend(ctx), RV_BACKEND_CPU);
    assert_int_equal(cap.count[RV_LOG_INFO], 1);
    assert_non_null(strstr(cap.last, "CPU backend"));
    RV_Image *img;
    assert_int_equal(rv_image_create(ctx, 4, 4, RV_FMT_RGBA8, &img), 0);
    assert_int_equal(cap.count[RV_LOG_INFO], 1); /* only once */
    rv_context_destroy(&ctx);

    memset(&cap, 0, sizeof(cap));
    s.backend = RV_BACKEND_CUDA;
    assert_int_equal(rv_context_create(&ctx, &s), RV_ENODEV);
    assert_null(ctx);
    assert_int_equal(cap.count[RV_LOG_ERROR], 1);
    assert_non_null(strstr(cap.last, "CUDA backend requested"));
}

static void test_log_level(void **state)
{
    (void)state;
    log_capture cap;
    memset(&cap, 0, sizeof(cap));
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CPU;
    s.log = capture;
    s.log_opaque = &cap;
    s.log_level = RV_LOG_ERROR;
    RV_Context *ctx = NULL;
    assert_int_equal(rv_context_create(&ctx, &s), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, -1, 1, RV_FMT_GRAY8, &img), RV_EINVAL);
    assert_int_equal(cap.count[RV_LOG_ERROR], 1);
    assert_string_equal(rv_context_error(ctx), cap.last);
    rv_context_destroy(&ctx);
}

/* Settings refused before a context exists: the message still goes to the
 * settings' log callback (not to stderr behind the application's back). */
static void test_bad_settings_logged(void **state)
{
    (void)state;
    log_capture cap;
    memset(&cap, 0, sizeof(cap));
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CPU;
    s.log = capture;
    s.log_opaque = &cap;
    RV_Context *ctx = NULL;
    s.threads = -1;
    assert_int_equal(rv_context_create(&ctx, &s), RV_EINVAL);
    assert_null(ctx);
    assert_int_equal(cap.count[RV_LOG_ERROR], 1);
    assert_non_null(strstr(cap.last, "threads must be 0..1024 (got -1)"));
    s.threads = 1;
    s.backend = (RV_Backend)7;
    assert_int_equal(rv_context_create(&ctx, &s), RV_EINVAL);
    assert_null(ctx);
    assert_int_equal(cap.count[RV_LOG_ERROR], 2);
    assert_non_null(strstr(cap.last, "unknown backend 7"));
}

static void test_module_path(void **state)
{
    (void)state;
    const char *env = getenv("RAVIOLI_MODULE_PATH");
    assert_non_null(env);
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s", env);
    unsetenv("RAVIOLI_MODULE_PATH");

    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CPU;
    s.log = rv_test_quiet_log;
    char path[1100];
    snprintf(path, sizeof(path), "/nonexistent:%s", dir);
    s.module_path = path;
    RV_Context *ctx = NULL;
    assert_int_equal(rv_context_create(&ctx, &s), 0);
    path[0] = 'X'; /* the context keeps its own copy */
    RV_Module *m;
    assert_int_equal(rv_module_load(ctx, "samples", &m), 0);
    assert_non_null(strstr(rv_module_path(m), "samples.so"));
    const RV_Kernel *k, *k2;
    assert_int_equal(rv_kernel_get(m, "gray", &k), 0);
    assert_int_equal(rv_kernel_get(m, "gray", &k2), 0);
    assert_ptr_equal(k, k2);
    assert_string_equal(rv_kernel_name(k), "gray");
    /* a second load of the same file: the same module, one more reference; the
     * kernels stay valid until the last unload */
    RV_Module *m2 = NULL;
    assert_int_equal(rv_module_load(ctx, "samples", &m2), 0);
    assert_ptr_equal(m2, m);
    rv_module_unload(&m);
    assert_null(m);
    assert_non_null(strstr(rv_module_path(m2), "samples.so"));
    assert_int_equal(rv_kernel_get(m2, "gray", &k2), 0);
    assert_ptr_equal(k, k2);
    assert_string_equal(rv_kernel_name(k2), "gray");
    rv_module_unload(&m2);
    assert_null(m2);
    assert_int_equal(rv_module_load(ctx, "samples", &m), 0); /* loaded anew */
    rv_module_unload(&m);
    /* an explicit path, with or without extension */
    char full[1200];
    snprintf(full, sizeof(full), "%s/samples.so", dir);
    assert_int_equal(rv_module_load(ctx, full, &m), 0);
    rv_module_unload(&m);
    snprintf(full, sizeof(full), "%s/samples", dir);
    assert_int_equal(rv_module_load(ctx, full, &m), 0);
    rv_module_unload(&m);
    /* a GPU form's name on the CPU backend: the .so beside it (one name for
     * both backends) */
    const char *gpu_forms[] = {".ptx", ".fatbin"};
    for (int i = 0; i < 2; i++) {
        snprintf(full, sizeof(full), "%s/samples%s", dir, gpu_forms[i]);
        assert_int_equal(rv_module_load(ctx, full, &m), 0);
        assert_non_null(strstr(rv_module_path(m), "/samples.so"));
        rv_module_unload(&m);
    }
    /* a missing explicit path: the error names the file tried */
    snprintf(full, sizeof(full), "%s/no_such_module.fatbin", dir);
    assert_int_equal(rv_module_load(ctx, full, &m), RV_ENOENT);
    assert_null(m);
    assert_non_null(strstr(rv_context_error(ctx), "no_such_module.so"));
    /* a file that is not a module */
    snprintf(full, sizeof(full), "%s/../CMakeCache.txt", dir);
    FILE *f = fopen("not_a_module.so", "w");
    assert_non_null(f);
    fputs("garbage", f);
    fclose(f);
    assert_int_equal(rv_module_load(ctx, "./not_a_module", &m), RV_EBADMSG);
    assert_non_null(strstr(rv_context_error(ctx), "cannot load"));
    remove("not_a_module.so");
    rv_context_destroy(&ctx);
    setenv("RAVIOLI_MODULE_PATH", dir, 1);
}

/* Threads that load, look up and unload one module of one context over and over:
 * the references and the kernel list stay consistent (ASan and the counts check). */
typedef struct load_job {
    RV_Context *ctx;
    int fails;
} load_job;

static void *load_loop(void *arg)
{
    load_job *j = arg;
    static const char *names[] = {"gray", "luma8", "edge", "emboss"};
    for (int i = 0; i < 200; i++) {
        RV_Module *m = NULL;
        const RV_Kernel *k = NULL;
        if (rv_module_load(j->ctx, "samples", &m) < 0 || rv_kernel_get(m, names[i % 4], &k) < 0 ||
            strcmp(rv_kernel_name(k), names[i % 4]))
            j->fails++;
        rv_module_unload(&m);
    }
    return NULL;
}

static void test_module_threads(void **state)
{
    (void)state;
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CPU;
    s.log = rv_test_quiet_log;
    RV_Context *ctx = NULL;
    assert_int_equal(rv_context_create(&ctx, &s), 0);
    RV_Module *held = NULL; /* one reference held throughout: the others share it */
    assert_int_equal(rv_module_load(ctx, "samples", &held), 0);
    enum { T = 4 };
    pthread_t th[T];
    load_job jobs[T];
    for (int t = 0; t < T; t++) {
        jobs[t].ctx = ctx;
        jobs[t].fails = 0;
        assert_int_equal(pthread_create(&th[t], NULL, load_loop, &jobs[t]), 0);
    }
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        assert_int_equal(jobs[t].fails, 0);
    }
    RV_Module *again = NULL;
    assert_int_equal(rv_module_load(ctx, "samples", &again), 0);
    assert_ptr_equal(again, held);
    rv_module_unload(&again);
    rv_module_unload(&held);
    /* and without a held reference: loads and unloads race to the last one */
    for (int t = 0; t < T; t++)
        assert_int_equal(pthread_create(&th[t], NULL, load_loop, &jobs[t]), 0);
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        assert_int_equal(jobs[t].fails, 0);
    }
    rv_context_destroy(&ctx);
}

static void test_pixels_and_formats(void **state)
{
    (void)state;
    RV_Pixel p = rv_rgba(1, 2, 3, 4);
    assert_int_equal(rv_r(p), 1);
    assert_int_equal(rv_g(p), 2);
    assert_int_equal(rv_b(p), 3);
    assert_int_equal(rv_a(p), 4);
    const unsigned char *bytes = (const unsigned char *)&p;
    assert_int_equal(bytes[0], 1); /* R first in memory */
    assert_int_equal(bytes[3], 4);
    p = rv_set_g(p, 200);
    assert_int_equal(rv_g(p), 200);
    assert_int_equal(rv_r(p), 1);
    p = rv_set_rgb(p, 9, 8, 7);
    assert_int_equal(rv_a(p), 4);
    assert_int_equal(rv_rgb(0, 0, 0) >> 24, 255);
    assert_int_equal(rv_abs_diff(rv_rgb(10, 20, 30), rv_rgb(13, 18, 30)), 5);
    assert_int_equal(rv_clamp8(300), 255);
    assert_int_equal(rv_clamp8(-3), 0);
    RV_Pixel16 q = rv16_rgba(1000, 2000, 3000, 65535);
    assert_int_equal(rv16_g(q), 2000);
    assert_int_equal(rv16_a(q), 65535);

    assert_int_equal(rv_format_from_name("yuv420p16"), RV_FMT_YUV420P16);
    assert_int_equal(rv_format_from_name("nope"), 0);
    assert_null(rv_format_info(0));
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_Image *img;
    assert_int_equal(rv_image_create(ctx, 7, 5, RV_FMT_YUV420P8, &img), 0);
    assert_int_equal(rv_image_planes(img), 3);
    assert_int_equal(rv_image_plane_width(img, 1), 4);
    assert_int_equal(rv_image_plane_height(img, 2), 3);
    ptrdiff_t pitch;
    const unsigned char *d = rv_image_read(img, 2, &pitch);
    assert_non_null(d);
    assert_true(pitch >= 4 && pitch % 64 == 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(d[i], 0); /* created zeroed */
    RV_Image *copy;
    assert_int_equal(rv_image_create(ctx, 7, 5, RV_FMT_YUV420P8, &copy), 0);
    rv_test_fill_random(img, 1);
    rv_image_set_stride(img, 2);
    assert_int_equal(rv_image_copy(copy, img), 0);
    assert_int_equal(rv_image_stride(copy), 2);
    for (int p2 = 0; p2 < 3; p2++) {
        ptrdiff_t pa, pb;
        const unsigned char *a = rv_image_read(img, p2, &pa), *b = rv_image_read(copy, p2, &pb);
        for (int y = 0; y < rv_image_plane_height(img, p2); y++)
            assert_memory_equal(a + y * pa, b + y * pb, (size_t)rv_image_plane_width(img, p2));
    }
    rv_image_destroy(&copy);
    rv_image_destroy(&img);
    rv_context_destroy(&ctx);
    assert_string_equal(rv_strerror(RV_ENOENT), "not found");
    assert_non_null(rv_version());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_lifetime),
        cmocka_unit_test(test_auto_fallback),
        cmocka_unit_test(test_log_level),
        cmocka_unit_test(test_bad_settings_logged),
        cmocka_unit_test(test_module_path),
        cmocka_unit_test(test_module_threads),
        cmocka_unit_test(test_pixels_and_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
