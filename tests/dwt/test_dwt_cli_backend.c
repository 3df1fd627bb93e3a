/*
 * test_dwt_cli_backend.c - rv-dwt -b cuda: with a usable GPU it runs (the
 * CDF 5/3 coefficients of an 8-bit image are exact in float, so they equal
 * the CPU's bit for bit, and the round trip gives the image back); without
 * one it fails with exit 3 (unavailable), writes nothing and says why, as
 * ravioli-run does: the library's reason (no driver, no device, ...) and
 * that -b auto runs on the CPU. The no-driver case is also forced
 * (RAVIOLI_CUDA_DRIVER names a missing library), so it is checked on every
 * machine; so is -b auto there, which runs on the CPU and says so once.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "rv_test.h"

#ifndef RV_DWT_TOOL
#error "RV_DWT_TOOL must name the rv-dwt executable"
#endif

static int run_status(const char *cmd)
{
    const int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs `env` rv-dwt `args` with stderr into err_path; the exit status, and
 * stderr's text (to free) in *text. */
static int run_err(const char *env, const char *args, const char *err_path, char **text)
{
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "%s '%s' %s 2>'%s'", env, RV_DWT_TOOL, args, err_path);
    const int st = run_status(cmd);
    *text = rv_test_slurp(err_path, NULL);
    assert_non_null(*text);
    return st;
}

static void test_cuda_backend(void **state)
{
    (void)state;
    char dir[] = "/tmp/rv_dwt_cli_cuda_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char in[300], out[300], ref[300], back[300], err[300], args[2000];
    snprintf(in, sizeof(in), "%s/in.pgm", dir);
    snprintf(out, sizeof(out), "%s/out.pfm", dir);
    snprintf(ref, sizeof(ref), "%s/ref.pfm", dir);
    snprintf(back, sizeof(back), "%s/back.pgm", dir);
    snprintf(err, sizeof(err), "%s/err.txt", dir);
    FILE *f = fopen(in, "wb");
    assert_non_null(f);
    fprintf(f, "P5\n13 7\n255\n");
    for (int i = 0; i < 91; i++)
        fputc((i * 37 + 11) % 256, f);
    fclose(f);
    char *t = NULL;

    /* no driver (forced): exit 3, the reason, the hint, no output */
    snprintf(args, sizeof(args), "forward -w 53 -l 2 -b cuda '%s' '%s'", in, out);
    assert_int_equal(run_err("RAVIOLI_CUDA_DRIVER=/nonexistent/libcuda.so.1", args, err, &t), 3);
    if (!strstr(t, "rv-dwt: backend 'cuda' unavailable: device not available: ") ||
        !strstr(t, "the NVIDIA driver library /nonexistent/libcuda.so.1 cannot be loaded") ||
        !strstr(t, "-b auto runs on the CPU"))
        fail_msg("without a driver rv-dwt said: %s", t);
    free(t);
    assert_int_equal(access(out, F_OK), -1);

    /* this machine as it is: whichever outcome holds */
    char why[1024];
    const int gpu = rv_test_cuda_reason(why, sizeof(why));
    const int st = run_err("", args, err, &t);
    if (gpu) {
        printf("  with a GPU: -b cuda ran\n");
        if (st != 0)
            fail_msg("-b cuda with a GPU: exit %d: %s", st, t);
        snprintf(args, sizeof(args), "'%s' forward -w 53 -l 2 -b cpu '%s' '%s' && cmp -s '%s' '%s'", RV_DWT_TOOL,
                 in, ref, out, ref);
        assert_int_equal(run_status(args), 0);
        snprintf(args, sizeof(args), "'%s' inverse -w 53 -l 2 -b cuda '%s' '%s' && cmp -s '%s' '%s'", RV_DWT_TOOL,
                 out, back, in, back);
        assert_int_equal(run_status(args), 0);
    } else {
        printf("  without a GPU (%s): -b cuda said: %s", why, t);
        assert_true(strlen(why) > 0);
        assert_int_equal(st, 3);
        if (!strstr(t, "rv-dwt: backend 'cuda' unavailable: ") || !strstr(t, why) ||
            !strstr(t, "-b auto runs on the CPU"))
            fail_msg("-b cuda without a GPU (%s) said: %s", why, t);
        assert_int_equal(access(out, F_OK), -1);
    }
    free(t);

    /* -b auto runs either way */
    snprintf(args, sizeof(args), "forward -w 53 -l 2 -b auto '%s' '%s'", in, ref);
    assert_int_equal(run_err("", args, err, &t), 0);
    free(t);

    /* -b auto without a driver (forced): runs on the CPU and says so once,
     * with the reason; -b cpu says nothing of a GPU */
    snprintf(args, sizeof(args), "forward -w 53 -l 2 -b auto '%s' '%s'", in, out);
    assert_int_equal(run_err("RAVIOLI_CUDA_DRIVER=" RV_TEST_NO_DRIVER, args, err, &t), 0);
    rv_test_said_cpu_once("rv-dwt", t);
    free(t);
    snprintf(args, sizeof(args), "cmp -s '%s' '%s'", out, ref);
    assert_int_equal(run_status(args), 0);
    snprintf(args, sizeof(args), "forward -w 53 -l 2 -b cpu '%s' '%s'", in, out);
    assert_int_equal(run_err("RAVIOLI_CUDA_DRIVER=" RV_TEST_NO_DRIVER, args, err, &t), 0);
    if (strstr(t, "GPU"))
        fail_msg("-b cpu said: %s", t);
    free(t);

    snprintf(args, sizeof(args), "rm -rf '%s'", dir);
    assert_int_equal(run_status(args), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_backend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
