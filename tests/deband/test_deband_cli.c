/*
 * test_deband_cli.c - rv-deband on a two-frame Y4M clip gives, frame by
 * frame, what rv_deband_apply gives (dynamic grain: frame index 0, 1), and
 * refuses bad options and bad files; backend=cuda runs with a GPU and says
 * why not without one; --help on standard output, usage errors on standard
 * error.
 */
#include <unistd.h>

#include "rv_test.h"
#include "deband_ref.h"

#ifndef RV_DEBAND_TOOL
#error "RV_DEBAND_TOOL must name the rv-deband executable"
#endif

/* Creates the file named by the template `path` (mkstemp: its XXXXXX replaced), closed. */
static void make_temp(char *path)
{
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

static void test_cli_matches_library(void **state)
{
    (void)state;
    const int w = 37, h = 22;
    char in_path[] = "/tmp/rv_deband_in_XXXXXX";
    char out_path[] = "/tmp/rv_deband_out_XXXXXX";
    make_temp(in_path);
    make_temp(out_path);

    RV_Context *ctx = rv_test_cpu_context(1);
    RV_Image *src[2] = {NULL, NULL};
    FILE *f = fopen(in_path, "wb");
    assert_non_null(f);
    fprintf(f, "YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n", w, h);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_YUV420P8, &src[k]), 0);
        fputs("FRAME\n", f);
        for (int p = 0; p < 3; p++) {
            const int pw = rv_image_plane_width(src[k], p), ph = rv_image_plane_height(src[k], p);
            uint16_t *a = malloc((size_t)pw * ph * 2);
            assert_non_null(a);
            fill_test_plane(a, pw, ph, 8, p, (uint64_t)k + 1);
            assert_int_equal(img_set_plane(src[k], p, a), 0);
            for (int i = 0; i < pw * ph; i++)
                fputc(a[i], f);
            free(a);
        }
    }
    fclose(f);

    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "'%s' backend=cpu output_depth=16 dynamic_grain=1 seed=7 sample_mode=1 range=9 '%s' '%s'",
             RV_DEBAND_TOOL, in_path, out_path);
    assert_int_equal(system(cmd), 0);

    RV_Deband *db = NULL;
    assert_int_equal(rv_deband_create(ctx, &db), 0);
    RV_DebandSettings s;
    rv_deband_settings_default(&s);
    s.output_depth = 16;
    s.dynamic_grain = 1;
    s.seed = 7;
    s.sample_mode = 1;
    s.range = 9;
    assert_int_equal(rv_deband_configure(db, &s), 0);

    f = fopen(out_path, "rb");
    assert_non_null(f);
    char line[256];
    assert_non_null(fgets(line, sizeof(line), f));
    assert_non_null(strstr(line, "C420p16"));
    assert_non_null(strstr(line, "W37 H22"));
    RV_Image *dst = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_YUV420P16, &dst), 0);
    for (int k = 0; k < 2; k++) {
        assert_non_null(fgets(line, sizeof(line), f));
        assert_string_equal(line, "FRAME\n");
        assert_int_equal(rv_deband_apply(db, dst, src[k], k), 0);
        for (int p = 0; p < 3; p++) {
            const int pw = rv_image_plane_width(dst, p), ph = rv_image_plane_height(dst, p);
            uint16_t *want = img_get_plane(dst, p);
            uint16_t *got = malloc((size_t)pw * ph * 2);
            assert_non_null(got);
            assert_int_equal(fread(got, 2, (size_t)pw * ph, f), (size_t)pw * ph);
            assert_memory_equal(got, want, (size_t)pw * ph * 2);
            free(got);
            free(want);
        }
    }
    assert_int_equal(fgetc(f), EOF);
    fclose(f);

    /* usage errors: exit status 2; bad input file: 1 */
    snprintf(cmd, sizeof(cmd), "'%s' range=-4 '%s' '%s' 2>/dev/null", RV_DEBAND_TOOL, in_path, out_path);
    int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    snprintf(cmd, sizeof(cmd), "'%s' colour=3 '%s' '%s' 2>/dev/null", RV_DEBAND_TOOL, in_path, out_path);
    st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    f = fopen(in_path, "wb");
    assert_non_null(f);
    fputs("P5 2 2 255\n", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' 2>/dev/null", RV_DEBAND_TOOL, in_path, out_path);
    st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);

    remove(in_path);
    remove(out_path);
    rv_image_destroy(&dst);
    rv_image_destroy(&src[0]);
    rv_image_destroy(&src[1]);
    rv_deband_destroy(&db);
    rv_context_destroy(&ctx);
}

/* A grey PGM still image: 8-bit in, 16-bit out, as rv_deband_apply gives. */
static void test_cli_pgm(void **state)
{
    (void)state;
    const int w = 45, h = 31;
    char in_path[] = "/tmp/rv_deband_pgm_in_XXXXXX";
    char out_path[] = "/tmp/rv_deband_pgm_out_XXXXXX";
    make_temp(in_path);
    make_temp(out_path);
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_Image *src = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_GRAY8, &src), 0);
    uint16_t *a = malloc((size_t)w * h * 2);
    assert_non_null(a);
    fill_test_plane(a, w, h, 8, 0, 5);
    assert_int_equal(img_set_plane(src, 0, a), 0);
    free(a);
    assert_int_equal(rv_image_write_file(src, in_path), 0);

    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "'%s' backend=cpu output_depth=16 seed=3 '%s' '%s'", RV_DEBAND_TOOL,
             in_path, out_path);
    assert_int_equal(system(cmd), 0);
    RV_Image *got = NULL, *want = NULL;
    assert_int_equal(rv_image_read_file(ctx, out_path, &got), 0);
    assert_int_equal(rv_image_format(got), RV_FMT_GRAY16);
    RV_Deband *db = NULL;
    assert_int_equal(rv_deband_create(ctx, &db), 0);
    RV_DebandSettings s;
    rv_deband_settings_default(&s);
    s.output_depth = 16;
    s.seed = 3;
    assert_int_equal(rv_deband_configure(db, &s), 0);
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_GRAY16, &want), 0);
    assert_int_equal(rv_deband_apply(db, want, src, 0), 0);
    uint16_t *g = img_get_plane(got, 0), *wv = img_get_plane(want, 0);
    assert_non_null(g);
    assert_non_null(wv);
    assert_memory_equal(g, wv, (size_t)w * h * 2);
    free(g);
    free(wv);
    remove(in_path);
    remove(out_path);
    rv_image_destroy(&src);
    rv_image_destroy(&got);
    rv_image_destroy(&want);
    rv_deband_destroy(&db);
    rv_context_destroy(&ctx);
}

static int run_status(const char *cmd)
{
    const int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Writes `text` to in_path and runs cmd: its exit status must be `status`;
 * a failure must leave no output at out_path, a success's output is removed. */
static void cli_on_input(const char *in_path, const char *text, const char *cmd, const char *out_path,
                         int status)
{
    FILE *f = fopen(in_path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(run_status(cmd), status);
    if (status)
        assert_int_equal(access(out_path, F_OK), -1);
    else
        remove(out_path);
}

/* Failures are reported (exit 1 or 2) and leave no partial output file:
 * a truncated frame, a stream without frames, a bad size, a frame header
 * that is not FRAME, an out-of-range key, and a write error on standard output (/dev/full). */
static void test_cli_errors(void **state)
{
    (void)state;
    char in_path[] = "/tmp/rv_deband_err_in_XXXXXX";
    make_temp(in_path);
    char out_path[300];
    snprintf(out_path, sizeof(out_path), "%s.out.y4m", in_path);
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' 2>/dev/null", RV_DEBAND_TOOL, in_path, out_path);
    /* a truncated frame, no frames, a size with trailing garbage, a frame
     * header that is not FRAME: exit 1, no output left */
    cli_on_input(in_path, "YUV4MPEG2 W4 H2 C420jpeg\nFRAME\nabcde", cmd, out_path, 1);
    cli_on_input(in_path, "YUV4MPEG2 W4 H2 C420jpeg\n", cmd, out_path, 1);
    cli_on_input(in_path, "YUV4MPEG2 W4abc H2 C420jpeg\nFRAME\nabcdefghABCD", cmd, out_path, 1);
    cli_on_input(in_path, "YUV4MPEG2 W4 H2 C420jpeg\nFRAMEX\nabcdefghABCD", cmd, out_path, 1);
    /* valid still images, one frame header with a parameter */
    cli_on_input(in_path, "YUV4MPEG2 W4 H2 C420jpeg\nFRAME Ixyz\nabcdefghABCD", cmd, out_path, 0);
    cli_on_input(in_path, "YUV4MPEG2 W4 H2 C420jpeg\nFRAME\nabcdefghABCD", cmd, out_path, 0);

    /* a key value that does not fit an int is refused, not wrapped (2^32 + 15) */
    snprintf(cmd, sizeof(cmd), "'%s' range=4294967311 '%s' '%s' 2>/dev/null", RV_DEBAND_TOOL, in_path,
             out_path);
    assert_int_equal(run_status(cmd), 2);
    assert_int_equal(access(out_path, F_OK), -1);

    /* a header whose size is beyond any frame is refused before allocating (exit 1, no output) */
    snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' 2>/dev/null", RV_DEBAND_TOOL, in_path, out_path);
    cli_on_input(in_path, "YUV4MPEG2 W65536 H65536 C444p16\nFRAME\nabcd", cmd, out_path, 1);

    /* key values are decimal (a leading 0 is not octal) or hexadecimal after 0x: range=015
     * is 15, range=0x0f too, range=08 is 8, each as range=15 / 8 gives */
    cli_on_input(in_path, "YUV4MPEG2 W4 H2 C420jpeg\nFRAME\nabcdefghABCD", cmd, out_path, 0);
    const char *ranges[][2] = {{"015", "15"}, {"0x0f", "15"}, {"08", "8"}};
    for (int i = 0; i < 3; i++) {
        char outa[320], outb[320];
        snprintf(outa, sizeof(outa), "%s.a.y4m", in_path);
        snprintf(outb, sizeof(outb), "%s.b.y4m", in_path);
        snprintf(cmd, sizeof(cmd), "'%s' range=%s '%s' '%s' 2>/dev/null", RV_DEBAND_TOOL, ranges[i][0], in_path, outa);
        assert_int_equal(run_status(cmd), 0);
        snprintf(cmd, sizeof(cmd), "'%s' range=%s '%s' '%s' 2>/dev/null", RV_DEBAND_TOOL, ranges[i][1], in_path, outb);
        assert_int_equal(run_status(cmd), 0);
        snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", outa, outb);
        assert_int_equal(run_status(cmd), 0);
        remove(outa);
        remove(outb);
    }

    /* the same file as input and output is refused (exit 2) and left as it was */
    snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' 2>/dev/null", RV_DEBAND_TOOL, in_path, in_path);
    assert_int_equal(run_status(cmd), 2);
    {
        FILE *f = fopen(in_path, "rb");
        assert_non_null(f);
        char buf[64];
        const size_t n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        assert_int_equal((int)n, (int)strlen("YUV4MPEG2 W4 H2 C420jpeg\nFRAME\nabcdefghABCD"));
    }

    /* a write error on standard output is an error */
    if (access("/dev/full", W_OK) == 0) {
        snprintf(cmd, sizeof(cmd), "'%s' '%s' - >/dev/full 2>/dev/null", RV_DEBAND_TOOL, in_path);
        assert_int_equal(run_status(cmd), 1);
        snprintf(cmd, sizeof(cmd), "'%s' '%s' /dev/full 2>/dev/null", RV_DEBAND_TOOL, in_path);
        assert_int_equal(run_status(cmd), 1);
    }
    remove(in_path);
}

/* The lines of file `path` that contain `needle`. */
static int lines_with(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof(line), f))
        n += strstr(line, needle) != NULL;
    fclose(f);
    return n;
}

/* A failure the library reports (a truncated PGM raster) is said once on
 * standard error, by the tool with the reason, not again by the library's log. */
static void test_cli_error_once(void **state)
{
    (void)state;
    char in_path[] = "/tmp/rv_deband_once_in_XXXXXX";
    char err_path[] = "/tmp/rv_deband_once_err_XXXXXX";
    make_temp(in_path);
    make_temp(err_path);
    char out_path[64], cmd[1024];
    snprintf(out_path, sizeof(out_path), "%s.pgm", in_path);
    FILE *f = fopen(in_path, "wb");
    assert_non_null(f);
    fputs("P5\n4 4\n255\nab", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "'%s' backend=cpu '%s' '%s' 2>'%s'", RV_DEBAND_TOOL, in_path, out_path, err_path);
    assert_int_equal(run_status(cmd), 1);
    assert_int_equal(access(out_path, F_OK), -1);
    assert_int_equal(lines_with(err_path, "truncated"), 1);
    assert_int_equal(lines_with(err_path, "rv-deband: "), 1);
    remove(in_path);
    remove(err_path);
}

/* Runs rv-deband with `args` (shell words) and stderr into `err_path`;
 * returns the exit status and stderr's text (to free) in *text. */
static int run_err(const char *args, const char *err_path, char **text)
{
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "'%s' %s 2>'%s'", RV_DEBAND_TOOL, args, err_path);
    const int st = run_status(cmd);
    *text = rv_test_slurp(err_path, NULL);
    assert_non_null(*text);
    return st;
}

static void write_text(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* Inputs rv-deband does not read are named for what they are; every file
 * error has the "rv-deband:" prefix; an output name of another kind than the
 * input is refused (exit 2, nothing written); a truncated last frame keeps
 * the complete frames before it (exit 1, as ravioli-run). */
static void test_cli_inputs_and_names(void **state)
{
    (void)state;
    char dir[] = "/tmp/rv_deband_names_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char in[300], out[300], err[300], args[1000];
    snprintf(err, sizeof(err), "%s/err.txt", dir);
    snprintf(out, sizeof(out), "%s/out.y4m", dir);
    char *t = NULL;

    /* what the input is, and what rv-deband reads */
    static const struct { const char *name, *data; size_t n; const char *said; } kinds[] = {
        {"a.ppm", "P6\n2 2\n255\n012345678901", 23, "is a colour PPM image"},
        {"a.pfm", "Pf\n2 2\n-1.0\n0123456789abcdef", 28, "is a PFM (floating-point) image"},
        {"empty.pgm", "", 0, "is empty"},
        {"a.txt", "hello, world\n", 13, "is neither a Y4M (YUV4MPEG2) file nor a PGM image"},
    };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        snprintf(in, sizeof(in), "%s/%s", dir, kinds[i].name);
        write_text(in, kinds[i].data, kinds[i].n);
        snprintf(args, sizeof(args), "'%s' '%s'", in, out);
        assert_int_equal(run_err(args, err, &t), 1);
        if (!strstr(t, kinds[i].said) || !strstr(t, "rv-deband reads Y4M") || strstr(t, "not a YUV4MPEG2"))
            fail_msg("%s: %s", kinds[i].name, t);
        free(t);
        assert_int_equal(access(out, F_OK), -1);
        remove(in);
    }
    snprintf(args, sizeof(args), "'%s' '%s'", dir, out);
    assert_int_equal(run_err(args, err, &t), 1);
    assert_non_null(strstr(t, "is a directory"));
    free(t);

    /* file errors: prefixed */
    snprintf(args, sizeof(args), "'%s/missing.y4m' '%s'", dir, out);
    assert_int_equal(run_err(args, err, &t), 1);
    assert_true(strncmp(t, "rv-deband: ", 11) == 0);
    assert_non_null(strstr(t, "missing.y4m: cannot open"));
    free(t);
    static const char clip[] = "YUV4MPEG2 W4 H2 C420jpeg\nFRAME\nabcdefghABCDFRAME\nijklmnopEFGHFRAME\nqrstuvwxIJKL";
    snprintf(in, sizeof(in), "%s/in.y4m", dir);
    write_text(in, clip, sizeof(clip) - 1);
    snprintf(args, sizeof(args), "'%s' '%s/no_such_dir/out.y4m'", in, dir);
    assert_int_equal(run_err(args, err, &t), 1);
    assert_true(strncmp(t, "rv-deband: ", 11) == 0);
    assert_non_null(strstr(t, "cannot write"));
    free(t);

    /* the output is of the input's kind: another kind's extension (any case) is refused */
    char bad_out[320];
    snprintf(bad_out, sizeof(bad_out), "%s/out.PGM", dir);
    snprintf(args, sizeof(args), "'%s' '%s'", in, bad_out);
    assert_int_equal(run_err(args, err, &t), 2);
    assert_non_null(strstr(t, "name it .y4m"));
    free(t);
    assert_int_equal(access(bad_out, F_OK), -1);
    char pgm[300];
    snprintf(pgm, sizeof(pgm), "%s/in.pgm", dir);
    write_text(pgm, "P5\n4 2\n255\nabcdefgh", 19);
    snprintf(bad_out, sizeof(bad_out), "%s/out.Y4M", dir);
    snprintf(args, sizeof(args), "'%s' '%s'", pgm, bad_out);
    assert_int_equal(run_err(args, err, &t), 2);
    assert_non_null(strstr(t, "name it .pgm"));
    free(t);
    assert_int_equal(access(bad_out, F_OK), -1);
    snprintf(bad_out, sizeof(bad_out), "%s/out.Pgm", dir);
    snprintf(args, sizeof(args), "backend=cpu '%s' '%s'", pgm, bad_out);
    assert_int_equal(run_err(args, err, &t), 0);
    free(t);
    remove(bad_out);
    remove(pgm);

    /* a truncated last frame: the two complete frames are kept, as a two-frame input gives */
    char ref[300];
    snprintf(ref, sizeof(ref), "%s/ref.y4m", dir);
    write_text(in, clip, sizeof(clip) - 1 - 18); /* the first two frames only */
    snprintf(args, sizeof(args), "backend=cpu '%s' '%s'", in, ref);
    assert_int_equal(run_err(args, err, &t), 0);
    free(t);
    write_text(in, clip, sizeof(clip) - 1 - 5); /* the third frame short of 5 bytes */
    snprintf(args, sizeof(args), "backend=cpu '%s' '%s'", in, out);
    assert_int_equal(run_err(args, err, &t), 1);
    if (!strstr(t, "frame 2 is truncated") || !strstr(t, "2 complete frames"))
        fail_msg("truncated last frame: %s", t);
    free(t);
    snprintf(args, sizeof(args), "cmp -s '%s' '%s'", ref, out);
    assert_int_equal(run_status(args), 0);

    snprintf(args, sizeof(args), "rm -rf '%s'", dir);
    assert_int_equal(run_status(args), 0);
}

/* backend=cuda: with a usable GPU it runs (and gives the CPU's output, bit for
 * bit); without one it fails (exit 1, nothing written) and says why, as
 * ravioli-run does: the library's reason (no driver, no device, ...) and that
 * backend=auto runs on the CPU. The no-driver case is also forced
 * (RAVIOLI_CUDA_DRIVER names a missing library), so it is checked on every
 * machine, for a PGM and a Y4M input (two ways through the tool); so is
 * backend=auto there, which runs on the CPU and says so once. */
static void test_cli_cuda_backend(void **state)
{
    (void)state;
    char dir[] = "/tmp/rv_deband_cuda_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char pgm[300], y4m[300], out[300], ref[300], err[300], args[2000];
    snprintf(pgm, sizeof(pgm), "%s/in.pgm", dir);
    snprintf(y4m, sizeof(y4m), "%s/in.y4m", dir);
    snprintf(err, sizeof(err), "%s/err.txt", dir);
    write_text(pgm, "P5\n4 2\n255\nabcdefgh", 19);
    static const char clip[] = "YUV4MPEG2 W4 H2 C420jpeg\nFRAME\nabcdefghABCD";
    write_text(y4m, clip, sizeof(clip) - 1);
    char *t = NULL;

    /* no driver (forced): exit 3, the reason, the hint, no output */
    const char *const ins[2] = {pgm, y4m}, *const exts[2] = {"pgm", "y4m"};
    for (int i = 0; i < 2; i++) {
        snprintf(out, sizeof(out), "%s/out.%s", dir, exts[i]);
        snprintf(args, sizeof(args), "backend=cuda '%s' '%s'", ins[i], out);
        char cmd[4096];
        snprintf(cmd, sizeof(cmd), "RAVIOLI_CUDA_DRIVER=/nonexistent/libcuda.so.1 '%s' %s 2>'%s'", RV_DEBAND_TOOL,
                 args, err);
        assert_int_equal(run_status(cmd), 3);
        t = rv_test_slurp(err, NULL);
        assert_non_null(t);
        if (!strstr(t, "rv-deband: backend 'cuda' unavailable: device not available: ") ||
            !strstr(t, "the NVIDIA driver library /nonexistent/libcuda.so.1 cannot be loaded") ||
            !strstr(t, "backend=auto runs on the CPU"))
            fail_msg("%s without a driver said: %s", exts[i], t);
        free(t);
        assert_int_equal(access(out, F_OK), -1);
    }

    /* this machine as it is: whichever outcome holds */
    char why[1024];
    const int gpu = rv_test_cuda_reason(why, sizeof(why));
    for (int i = 0; i < 2; i++) {
        snprintf(out, sizeof(out), "%s/out.%s", dir, exts[i]);
        snprintf(ref, sizeof(ref), "%s/ref.%s", dir, exts[i]);
        snprintf(args, sizeof(args), "backend=cuda '%s' '%s'", ins[i], out);
        const int st = run_err(args, err, &t);
        if (gpu) {
            printf("  with a GPU: backend=cuda ran (%s)\n", exts[i]);
            if (st != 0)
                fail_msg("backend=cuda with a GPU: exit %d: %s", st, t);
            snprintf(args, sizeof(args), "'%s' backend=cpu '%s' '%s' && cmp -s '%s' '%s'", RV_DEBAND_TOOL, ins[i],
                     ref, out, ref);
            assert_int_equal(run_status(args), 0);
        } else {
            printf("  without a GPU (%s): backend=cuda said: %s", why, t);
            assert_true(strlen(why) > 0);
            assert_int_equal(st, 3);
            if (!strstr(t, "rv-deband: backend 'cuda' unavailable: ") || !strstr(t, why) ||
                !strstr(t, "backend=auto runs on the CPU"))
                fail_msg("backend=cuda without a GPU (%s) said: %s", why, t);
            assert_int_equal(access(out, F_OK), -1);
        }
        free(t);
    }

    /* backend=auto without a driver (forced): the CPU's output, said once with
     * the reason; backend=cpu says nothing of a GPU */
    for (int i = 0; i < 2; i++) {
        snprintf(out, sizeof(out), "%s/auto.%s", dir, exts[i]);
        snprintf(ref, sizeof(ref), "%s/cpu.%s", dir, exts[i]);
        static const char *const be[2] = {"auto", "cpu"};
        for (int b = 0; b < 2; b++) {
            char cmd[4096];
            snprintf(cmd, sizeof(cmd), "RAVIOLI_CUDA_DRIVER=" RV_TEST_NO_DRIVER " '%s' backend=%s '%s' '%s' 2>'%s'",
                     RV_DEBAND_TOOL, be[b], ins[i], b ? ref : out, err);
            assert_int_equal(run_status(cmd), 0);
            t = rv_test_slurp(err, NULL);
            assert_non_null(t);
            if (b == 0)
                rv_test_said_cpu_once("rv-deband", t);
            else if (strstr(t, "GPU"))
                fail_msg("backend=cpu (%s) said: %s", exts[i], t);
            free(t);
        }
        snprintf(args, sizeof(args), "cmp -s '%s' '%s'", out, ref);
        assert_int_equal(run_status(args), 0);
    }

    snprintf(args, sizeof(args), "rm -rf '%s'", dir);
    assert_int_equal(run_status(args), 0);
}

/* -h / --help: the usage on standard output, nothing on standard error,
 * exit 0 (as rv-dwt and ravioli-run); a usage error (no files, an unknown
 * key): the usage on standard error, nothing on standard output, exit 2. */
static void test_cli_help(void **state)
{
    (void)state;
    char dir[] = "/tmp/rv_deband_help_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char outp[300], errp[300], cmd[4096];
    snprintf(outp, sizeof(outp), "%s/out.txt", dir);
    snprintf(errp, sizeof(errp), "%s/err.txt", dir);
    static const struct {
        const char *args;
        int status, usage_on_stdout;
    } cases[] = {
        {"--help", 0, 1},
        {"-h", 0, 1},
        {"range=4 --help a.y4m", 0, 1},
        {"", 2, 0},
        {"only-one.y4m", 2, 0},
        {"nokey=1 a.y4m b.y4m", 2, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(cmd, sizeof(cmd), "'%s' %s >'%s' 2>'%s'", RV_DEBAND_TOOL, cases[i].args, outp, errp);
        const int st = run_status(cmd);
        char *out = rv_test_slurp(outp, NULL), *err = rv_test_slurp(errp, NULL);
        assert_non_null(out);
        assert_non_null(err);
        if (st != cases[i].status)
            fail_msg("rv-deband %s: exit %d, expected %d", cases[i].args, st, cases[i].status);
        const char *usage = cases[i].usage_on_stdout ? out : err, *other = cases[i].usage_on_stdout ? err : out;
        if (!strstr(usage, "usage: rv-deband") || !strstr(usage, "keys: range") || !strstr(usage, "exit status"))
            fail_msg("rv-deband %s: no usage on std%s: '%s'", cases[i].args,
                     cases[i].usage_on_stdout ? "out" : "err", usage);
        if (other[0])
            fail_msg("rv-deband %s: std%s not empty: '%s'", cases[i].args, cases[i].usage_on_stdout ? "err" : "out",
                     other);
        free(out);
        free(err);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(run_status(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_matches_library),
        cmocka_unit_test(test_cli_pgm),
        cmocka_unit_test(test_cli_errors),
        cmocka_unit_test(test_cli_error_once),
        cmocka_unit_test(test_cli_inputs_and_names),
        cmocka_unit_test(test_cli_cuda_backend),
        cmocka_unit_test(test_cli_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
