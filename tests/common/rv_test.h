/*
 * rv_test.h - shared helpers of the CMocka tests.
 *
 * GPU tests call rv_test_gpu_context(): without a usable GPU it prints why
 * and exits with 77, which ctest reports as *skipped* (SKIP_RETURN_CODE).
 */
#ifndef RV_TEST_H
#define RV_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <ravioli/ravioli.h>

#define RV_TEST_SKIP 77

static inline void rv_test_quiet_log(void *opaque, RV_LogLevel lvl, const char *msg)
{
    (void)opaque;
    if (lvl <= RV_LOG_WARN && getenv("RV_TEST_VERBOSE"))
        fprintf(stderr, "ravioli: %s\n", msg);
}

/* A CPU context with `threads` workers (0 = cores); errors are not printed. */
static inline RV_Context *rv_test_cpu_context(int threads)
{
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CPU;
    s.threads = threads;
    s.log = rv_test_quiet_log;
    RV_Context *ctx = NULL;
    if (rv_context_create(&ctx, &s) < 0) {
        fprintf(stderr, "cannot create a CPU context\n");
        exit(1);
    }
    return ctx;
}

/*
 * A base-architecture run (ctest's <test>_sm<base>, tests/CMakeLists.txt
 * rv_add_base_arch_test): RV_TEST_BASE_ARCH names the architecture (e.g. 80)
 * and RV_TEST_BASE_MODULES the build's compute_<base> directory, whose PTX the
 * GPU contexts load before the fat binaries: the modules' code for GPUs
 * before RV_CUDA_ARCH, run on this GPU. 0 in a plain run.
 */
static inline int rv_test_base_arch(void)
{
    const char *a = getenv("RV_TEST_BASE_ARCH");
    return a ? atoi(a) : 0;
}

/* A CUDA context, or exit(77) = skipped when there is no GPU. In a
 * base-architecture run it loads modules from RV_TEST_BASE_MODULES first. */
static inline RV_Context *rv_test_gpu_context(void)
{
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CUDA;
    s.log = rv_test_quiet_log;
    if (rv_test_base_arch() > 0)
        s.module_path = getenv("RV_TEST_BASE_MODULES");
    RV_Context *ctx = NULL;
    int err = rv_context_create(&ctx, &s);
    if (err == RV_ENODEV) {
        printf("SKIPPED: no usable GPU (CUDA context: %s)\n", rv_strerror(err));
        exit(RV_TEST_SKIP);
    }
    if (err < 0) {
        fprintf(stderr, "cannot create a CUDA context: %s\n", rv_strerror(err));
        exit(1);
    }
    return ctx;
}

/* The RV_LOG_ERROR messages of rv_test_cuda_reason's probe context. */
typedef struct rv_test_why {
    char *buf;
    size_t size;
} rv_test_why;
static inline void rv_test_keep_error(void *opaque, RV_LogLevel lvl, const char *msg)
{
    rv_test_why *w = (rv_test_why *)opaque;
    if (lvl == RV_LOG_ERROR)
        snprintf(w->buf, w->size, "%s", msg);
}

/* A log callback keeping every message, a line each, in the rv_test_why's
 * buffer while it has room (buf[0] = 0 empties it). */
static inline void rv_test_keep_all(void *opaque, RV_LogLevel lvl, const char *msg)
{
    (void)lvl;
    rv_test_why *w = (rv_test_why *)opaque;
    const size_t n = strlen(w->buf);
    if (n + strlen(msg) + 2 < w->size)
        snprintf(w->buf + n, w->size - n, "%s\n", msg);
}

/* Whether a CUDA context can be created here: 1 (a usable GPU), or 0 with
 * the library's reason in why[0, size) - its message less the "... not
 * available: " lead, as the tools show it (e.g. "the NVIDIA driver library
 * libcuda.so.1 cannot be loaded (...)"). For tests that check both
 * outcomes of a tool's backend=cuda. */
static inline int rv_test_cuda_reason(char *why, size_t size)
{
    char msg[1024] = "";
    rv_test_why w = {msg, sizeof(msg)};
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CUDA;
    s.log = rv_test_keep_error;
    s.log_opaque = &w;
    RV_Context *ctx = NULL;
    const int err = rv_context_create(&ctx, &s);
    rv_context_destroy(&ctx);
    const char *p = strstr(msg, "not available: ");
    snprintf(why, size, "%s", p ? p + strlen("not available: ") : msg);
    if (err < 0 && err != RV_ENODEV)
        fail_msg("a CUDA context: %s (%s)", rv_strerror(err), msg);
    return err == 0;
}

/* Fails unless kernel `kernel` of module `module` on the GPU context ctx was
 * loaded from code for the architecture a base run names (and from the base
 * directory); in a plain run only that it reports an architecture. */
static inline void rv_test_check_arch(RV_Context *ctx, const char *module, const char *kernel)
{
    RV_Module *m = NULL;
    const RV_Kernel *k = NULL;
    if (rv_module_load(ctx, module, &m) < 0 || rv_kernel_get(m, kernel, &k) < 0)
        fail_msg("%s / %s: %s", module, kernel, rv_context_error(ctx));
    const int base = rv_test_base_arch(), arch = rv_kernel_arch(k);
    const char *dir = getenv("RV_TEST_BASE_MODULES");
    printf("%s: %s, kernel %s: code for compute_%d\n", module, rv_module_path(m), kernel, arch);
    if (base > 0 && (arch != base || !dir || strncmp(rv_module_path(m), dir, strlen(dir)) != 0))
        fail_msg("base run (compute_%d from %s): module %s, kernel %s has compute_%d", base, dir ? dir : "?",
                 rv_module_path(m), kernel, arch);
    if (base == 0 && arch < 80)
        fail_msg("module %s, kernel %s: code for compute_%d", rv_module_path(m), kernel, arch);
    rv_module_unload(&m);
}

/* A whole file, NUL-terminated (free() it); *len (may be NULL) gets its
 * size. NULL when it cannot be opened. */
static inline char *rv_test_slurp(const char *path, size_t *len)
{
    if (len)
        *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)(n > 0 ? n : 0) + 1);
    assert_non_null(b);
    size_t got = n > 0 ? fread(b, 1, (size_t)n, f) : 0;
    fclose(f);
    b[got] = 0;
    if (len)
        *len = got;
    return b;
}

/* How many times `needle` occurs in `s` (not overlapping). */
static inline int rv_test_count(const char *s, const char *needle)
{
    int n = 0;
    const size_t k = strlen(needle);
    for (const char *p = s; k && (p = strstr(p, needle)); p += k)
        n++;
    return n;
}

/* What a tool `prog` says on stderr (`err`) when `auto` found no GPU because
 * RAVIOLI_CUDA_DRIVER names a missing library: the library's reason and that
 * it runs on the CPU, once (rv_cli_log shows the library's information). */
#define RV_TEST_NO_DRIVER "/nonexistent/libcuda.so.1"
static inline void rv_test_said_cpu_once(const char *prog, const char *err)
{
    char want[256];
    snprintf(want, sizeof(want), "%s: no usable GPU (the NVIDIA driver library " RV_TEST_NO_DRIVER
             " cannot be loaded", prog);
    if (rv_test_count(err, want) != 1 || rv_test_count(err, "running on the CPU backend with ") != 1)
        fail_msg("%s with backend auto and no driver: want '%s ...: running on the CPU backend' once; "
                 "stderr:\n%s", prog, want, err);
}

/* Deterministic pseudo-random bytes (xorshift64*), for test images. */
static inline uint64_t rv_test_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Fills every plane of `img` with random samples (floats in [-1, 1]). */
static inline void rv_test_fill_random(RV_Image *img, uint64_t seed)
{
    uint64_t st = seed * 0x9E3779B97F4A7C15ULL + 1;
    const RV_FormatInfo *fi = rv_format_info(rv_image_format(img));
    for (int p = 0; p < rv_image_planes(img); p++) {
        ptrdiff_t pitch;
        unsigned char *d = rv_image_write(img, p, &pitch);
        assert_non_null(d);
        int w = rv_image_plane_width(img, p), h = rv_image_plane_height(img, p);
        for (int y = 0; y < h; y++) {
            unsigned char *row = d + y * pitch;
            if (fi->elem_type == 4 /* RV_ET_F32 */) {
                float *f = (float *)row;
                for (int x = 0; x < w; x++)
                    f[x] = (float)((double)(rv_test_rand(&st) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
            } else {
                for (int x = 0; x < w * fi->sample_bytes; x++)
                    row[x] = (unsigned char)(rv_test_rand(&st) >> 56);
            }
        }
    }
}

/* Standard error goes into a temporary file from rv_test_stderr_begin to
 * rv_test_stderr_end, which gives back what was written there (malloc'd; the
 * file removed): for tests that check what the library or a tool printed. */
typedef struct rv_test_stderr {
    char path[40];
    int fd, saved;
} rv_test_stderr;

static inline void rv_test_stderr_begin(rv_test_stderr *r)
{
    snprintf(r->path, sizeof(r->path), "/tmp/rv_test_stderr_XXXXXX");
    r->fd = mkstemp(r->path);
    assert_true(r->fd >= 0);
    fflush(stderr);
    r->saved = dup(2);
    assert_true(r->saved >= 0);
    assert_int_equal(dup2(r->fd, 2), 2);
}

static inline char *rv_test_stderr_end(rv_test_stderr *r)
{
    fflush(stderr);
    assert_int_equal(dup2(r->saved, 2), 2);
    close(r->saved);
    close(r->fd);
    char *t = rv_test_slurp(r->path, NULL);
    remove(r->path);
    assert_non_null(t);
    return t;
}

#endif
