/*
 * test_ravioli_run.c - the ravioli-run CLI end to end: help, usage errors
 * and their exit codes, the synthetic source into the null sink (frame
 * accounting, CSV log, temporal stride, Ctrl-C), and Y4M in -> Y4M out
 * checked pixel by pixel against references computed here.
 *
 *     test_ravioli_run <path of ravioli-run> usage|synthetic|y4m|gpu
 *
 * "synthetic" and "y4m" exit 77 (skipped) when the library was built
 * without that source (rv_source_open_* says RV_ENOSYS); "gpu" (ctest
 * label gpu) runs chains of stages with --backend cpu and --backend cuda on
 * the same Y4M clip and compares the outputs, and exits 77 without a GPU.
 */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rv_spawn.h"
#include <ravioli/stream.h>

static const char *g_exe;
static const char *g_plot; /* rv-plot, or NULL */
static char g_dir[64];

/* Runs ravioli-run with args; stdin from `in` (or /dev/null), stdout and
 * stderr into files; after `sigint_ms` > 0 sends SIGINT. Returns the exit code. */
static int run_cli(const char *const *args, const char *in, int sigint_ms)
{
    pid_t pid = rv_test_spawn(g_exe, args, in, g_dir, NULL);
    if (sigint_ms > 0) {
        struct timespec ts = {sigint_ms / 1000, (long)(sigint_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGINT);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return rv_test_exit_code("ravioli-run", status);
}

static char *out_text(const char *which)
{
    char p[128];
    snprintf(p, sizeof(p), "%s/%s", g_dir, which);
    char *s = rv_test_slurp(p, NULL);
    assert_non_null(s);
    return s;
}

static void expect(const char *const *args, int code, const char *in_stream, const char *needle)
{
    int rc = run_cli(args, NULL, 0);
    char *s = out_text(in_stream);
    if (rc != code || (needle && !strstr(s, needle))) {
        fprintf(stderr, "ravioli-run");
        for (int i = 0; args[i]; i++)
            fprintf(stderr, " %s", args[i]);
        fprintf(stderr, "\n  exit %d (want %d); %s:\n%s\n  (looked for '%s')\n", rc, code, in_stream, s,
                needle ? needle : "");
    }
    assert_int_equal(rc, code);
    if (needle)
        assert_non_null(strstr(s, needle));
    free(s);
}

/* ------------------------------------------------------------------ */
/* usage                                                                */
/* ------------------------------------------------------------------ */

static void test_help_and_usage(void **state)
{
    (void)state;
    expect((const char *[]){"--help", NULL}, 0, "stdout", "Exit status");
    expect((const char *[]){"-h", NULL}, 0, "stdout", "--stage STAGE");
    expect((const char *[]){"--list-stages", NULL}, 0, "stdout", "binarize[:threshold=N]");
    char *s = out_text("stdout");
    const char *names[] = {"gray", "binarize", "edge", "emboss", "invert"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        assert_non_null(strstr(s, names[i]));
    free(s);
    expect((const char *[]){"--version", NULL}, 0, "stdout", rv_version());

    expect((const char *[]){NULL}, 2, "stderr", "no stage");
    expect((const char *[]){"--stage", "gray", "--bogus", NULL}, 2, "stderr", "unknown option");
    expect((const char *[]){"--stage", NULL}, 2, "stderr", "needs a value");
    expect((const char *[]){"--stage", "nosuch", NULL}, 2, "stderr", "unknown stage 'nosuch'");
    expect((const char *[]){"--stage", "binarize:threshold=300", NULL}, 2, "stderr", "0..256");
    expect((const char *[]){"--stage", "binarize:level=3", NULL}, 2, "stderr", "no parameter 'level'");
    expect((const char *[]){"--stage", "gray:5", NULL}, 2, "stderr", "takes 0 parameters");
    expect((const char *[]){"--stage", "binarize:threshold=12,threshold=13", NULL}, 2, "stderr", "threshold given twice");
    expect((const char *[]){"--stage", "binarize:12,threshold=13", NULL}, 2, "stderr", "threshold given twice");
    expect((const char *[]){"--stage", "deband:,range=5", NULL}, 2, "stderr", "empty parameter");
    expect((const char *[]){"--stage", "binarize:12,", NULL}, 2, "stderr", "empty parameter");
    expect((const char *[]){"--stage", "gray", "--backend", "tpu", NULL}, 2, "stderr", "--backend");
    expect((const char *[]){"--stage", "gray", "--source", "synthetic:abc", NULL}, 2, "stderr", "synthetic:WxH");
    expect((const char *[]){"--stage", "gray", "--source", "rtsp://x", NULL}, 2, "stderr", "--source");
    expect((const char *[]){"--stage", "gray", "--sink", "png", NULL}, 2, "stderr", "--sink");
    expect((const char *[]){"--stage", "gray", "--ring", "0", NULL}, 2, "stderr", "--ring");
    expect((const char *[]){"--help", NULL}, 0, "stdout", "--gpu-streams N");
    expect((const char *[]){"--stage", "gray", "--gpu-streams", "0", NULL}, 2, "stderr", "--gpu-streams");
    expect((const char *[]){"--stage", "gray", "--gpu-streams", "9", NULL}, 2, "stderr", "1..8");
    expect((const char *[]){"--stage", "gray", "--gpu-streams", "x", NULL}, 2, "stderr", "--gpu-streams");
    /* accepted (and ignored) on the CPU backend */
    expect((const char *[]){"--source", "synthetic:32x32", "--stage", "gray", "--gpu-streams", "2", "--frames", "3",
                            "--backend", "cpu", NULL},
           0, "stderr", "captured 3 = processed 3");
    expect((const char *[]){"--stage", "gray", "--drop", "some", NULL}, 2, "stderr", "--drop");
    expect((const char *[]){"--stage", "gray", "--fixed-stride", "0", NULL}, 2, "stderr", "--fixed-stride");
    /* a temporal stride the adaptation controller refuses is a usage error, not a failed run */
    expect((const char *[]){"--stage", "gray", "--fixed-stride", "2:65", NULL}, 2, "stderr", "--no-adapt");
    expect((const char *[]){"--source", "synthetic:32x32", "--stage", "gray", "--frames", "3", "--fixed-stride",
                            "1:65", "--no-adapt", NULL},
           0, "stderr", "captured 3 = processed 1 + skipped 2");
    expect((const char *[]){"--stage", "gray", "--priority", "x", NULL}, 2, "stderr", "--priority");
    expect((const char *[]){"--stage", "gray", "--deadline-ms", "-1", NULL}, 2, "stderr", "--deadline-ms");
    expect((const char *[]){"--stage", "gray", "extra", NULL}, 2, "stderr", "unexpected argument");

    /* Unavailable things: exit 3. */
    expect((const char *[]){"--stage", "gray", "--source", "y4m:/nonexistent/in.y4m", NULL}, 3, "stderr",
           "unavailable");
    expect((const char *[]){"--stage", "gray", "--source", "v4l2:/dev/no_such_video_device", NULL}, 3, "stderr",
           "unavailable");
    expect((const char *[]){"--stage", "gray", "--module", "no_such_module_xyz", "--stage", "k", NULL}, 3,
           "stderr", "no_such_module_xyz");
    /* --backend cuda without a usable GPU: exit 3 with the library's reason
     * (no driver, no device, ...) without -v, not only "not available"
     * (rv_test_cuda_reason: the reason as the tools show it; a CUDA context
     * failing otherwise than RV_ENODEV fails the test) */
    char why[1024];
    if (!rv_test_cuda_reason(why, sizeof(why))) {
        assert_true(strlen(why) > 0);
        expect((const char *[]){"--stage", "gray", "--backend", "cuda", NULL}, 3, "stderr", "unavailable");
        expect((const char *[]){"--stage", "gray", "--backend", "cuda", NULL}, 3, "stderr", why);
    }
    /* the same without a driver on any machine (a GPU one too): RAVIOLI_CUDA_DRIVER
     * names a library that does not exist; the child inherits it */
    assert_int_equal(setenv("RAVIOLI_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1), 0);
    expect((const char *[]){"--stage", "gray", "--backend", "cuda", NULL}, 3, "stderr",
           "the NVIDIA driver library /nonexistent/libcuda.so.1 cannot be loaded");
    /* --backend auto (the default) there: runs on the CPU and says so once,
     * with the reason; -q says nothing of it, nor --backend cpu */
    expect((const char *[]){"--source", "synthetic:32x32", "--stage", "gray", "--frames", "3", NULL}, 0, "stderr",
           "captured 3 = processed 3");
    s = out_text("stderr");
    rv_test_said_cpu_once("ravioli-run", s);
    free(s);
    const char *const quiet[][9] = {
        {"--source", "synthetic:32x32", "--stage", "gray", "--frames", "3", "-q", NULL},
        {"--source", "synthetic:32x32", "--stage", "gray", "--frames", "3", "--backend", "cpu", NULL},
    };
    for (int i = 0; i < 2; i++) {
        expect(quiet[i], 0, "stderr", NULL);
        s = out_text("stderr");
        if (strstr(s, "GPU"))
            fail_msg("ravioli-run %s %s said: %s", quiet[i][6], quiet[i][7] ? quiet[i][7] : "", s);
        free(s);
    }
    assert_int_equal(unsetenv("RAVIOLI_CUDA_DRIVER"), 0);
}

/* ------------------------------------------------------------------ */
/* synthetic source                                                     */
/* ------------------------------------------------------------------ */

static void test_synthetic(void **state)
{
    (void)state;
    char csv[128];
    snprintf(csv, sizeof(csv), "%s/log.csv", g_dir);
    expect((const char *[]){"--source", "synthetic:64x48@30", "--stage", "gray", "--stage", "edge:threshold=60",
                            "--stage", "emboss", "--frames", "30", "--no-adapt", "--backend", "cpu", "--log", csv,
                            "--no-stats", NULL},
           0, "stderr", "captured 30 = processed 30 + skipped 0 + dropped 0 (0 at stop)");
    char *s = rv_test_slurp(csv, NULL);
    assert_non_null(s);
    int rows = 0;
    for (char *p = s; (p = strchr(p, '\n')); p++)
        rows++;
    assert_int_equal(rows, 31); /* header + 30 */
    static const char hdr[] = "frame,time_s,proc_ms,deadline_ms,budget_ms,met,s_spatial,s_temporal,";
    assert_true(strncmp(s, hdr, sizeof(hdr) - 1) == 0);
    free(s);
    if (g_plot) { /* the plot tool of issue 5 reads the log */
        char cmd[2048], svg[128];
        snprintf(svg, sizeof(svg), "%s/log.svg", g_dir);
        snprintf(cmd, sizeof(cmd), "'%s' -o '%s' '%s' && '%s' -c latency_ms -o '%s' '%s'", g_plot, svg, csv, g_plot,
                 svg, csv);
        assert_int_equal(system(cmd), 0);
        size_t n = 0;
        char *svgt = rv_test_slurp(svg, &n);
        assert_non_null(svgt);
        assert_true(n > 100 && strstr(svgt, "<svg") != NULL);
        free(svgt);
    }

    /* Fixed temporal stride 3: every third frame processed, the rest skipped. */
    expect((const char *[]){"--source", "synthetic:32x32", "--stage", "invert", "--frames", "30", "--fixed-stride",
                            "2:3", "--no-adapt", "--backend", "cpu", NULL},
           0, "stderr", "captured 30 = processed 10 + skipped 20 + dropped 0");
    s = out_text("stderr");
    assert_non_null(strstr(s, "S_I 2, S_T 3"));
    free(s);

    /* A real-time endless source stopped with Ctrl-C: exit 0, every frame accounted. */
    const char *args[] = {"--source", "synthetic:64x48@100", "--realtime", "--stage", "gray", "--backend", "cpu",
                          NULL};
    int rc = run_cli(args, NULL, 400);
    s = out_text("stderr");
    if (rc != 0 || !strstr(s, "stopped after"))
        fprintf(stderr, "Ctrl-C run: exit %d\n%s\n", rc, s);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(s, "stopped after"));
    long long cap = -1, proc = -1, skip = -1, drop = -1;
    const char *line = strstr(s, "captured ");
    assert_non_null(line);
    assert_int_equal(sscanf(line, "captured %lld = processed %lld + skipped %lld + dropped %lld", &cap, &proc, &skip,
                            &drop),
                     4);
    assert_true(cap > 0);
    assert_int_equal(cap, proc + skip + drop);
    free(s);

    /* A user module's kernel by name: samples' gray (procPix) and blur-free edge (procNbr). */
    expect((const char *[]){"--source", "synthetic:32x32", "--module", "samples", "--stage", "gray", "--stage",
                            "edge:0", "--stage", "binarize:90", "--frames", "5", "--backend", "cpu", NULL},
           0, "stderr", "captured 5 = processed 5");
    expect((const char *[]){"--source", "synthetic:32x32", "--module", "samples", "--stage", "sad", "--frames", "5",
                            "--backend", "cpu", NULL},
           2, "stderr", "kernel 'sad' of module samples cannot run on rgba8 frames");
}

/* ------------------------------------------------------------------ */
/* Y4M in -> Y4M out                                                    */
/* ------------------------------------------------------------------ */

#define YW 48
#define YH 30
#define YN 6

static unsigned char g_in[YN][YW * YH * 3 / 2];

static void write_input(const char *path)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f, "YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n", YW, YH);
    uint64_t st = 12345;
    for (int n = 0; n < YN; n++) {
        for (size_t i = 0; i < sizeof(g_in[n]); i++)
            g_in[n][i] = (unsigned char)(rv_test_rand(&st) >> 56);
        fprintf(f, "FRAME\n");
        fwrite(g_in[n], 1, sizeof(g_in[n]), f);
    }
    fclose(f);
}

/* Reads a 4:2:0 Y4M of YW x YH; returns the number of frames, frames in out. */
static int read_output(const char *path, unsigned char (*out)[YW * YH * 3 / 2], int max)
{
    size_t len;
    char *b = rv_test_slurp(path, &len);
    assert_non_null(b);
    char *nl = memchr(b, '\n', len);
    assert_non_null(nl);
    *nl = 0;
    assert_true(strncmp(b, "YUV4MPEG2 ", 10) == 0);
    char wtag[16], htag[16];
    snprintf(wtag, sizeof(wtag), " W%d", YW);
    snprintf(htag, sizeof(htag), " H%d", YH);
    assert_non_null(strstr(b, wtag));
    assert_non_null(strstr(b, htag));
    assert_non_null(strstr(b, " C420"));
    size_t pos = (size_t)(nl - b) + 1;
    int n = 0;
    const size_t fsz = (size_t)YW * YH * 3 / 2;
    while (pos < len) {
        assert_true(len - pos >= 6 && memcmp(b + pos, "FRAME", 5) == 0);
        char *e = memchr(b + pos, '\n', len - pos);
        assert_non_null(e);
        pos = (size_t)(e - b) + 1;
        assert_true(len - pos >= fsz);
        assert_true(n < max);
        memcpy(out[n], b + pos, fsz);
        pos += fsz;
        n++;
    }
    free(b);
    return n;
}

static unsigned char g_out[YN + 2][YW * YH * 3 / 2];

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static int lum_at(const unsigned char *y, int xx, int yy)
{
    return y[clampi(yy, 0, YH - 1) * YW + clampi(xx, 0, YW - 1)];
}

/* Ctrl-C while ravioli-run waits on a silent pipe (Y4M on standard input:
 * the header and one frame, then nothing, the writer still open): it must
 * exit promptly with exit 0 and the summary, not hang in the read. */
static void stalled_stdin_ctrl_c(void)
{
    char fifo[128];
    snprintf(fifo, sizeof(fifo), "%s/stall.fifo", g_dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int wfd = open(fifo, O_RDWR); /* keeps a writer: the reader never sees EOF */
    assert_true(wfd >= 0);
    char hdr[64];
    int hn = snprintf(hdr, sizeof(hdr), "YUV4MPEG2 W%d H%d F30:1 Ip A1:1 C420jpeg\n", YW, YH);
    assert_int_equal(write(wfd, hdr, (size_t)hn), hn);
    assert_int_equal(write(wfd, "FRAME\n", 6), 6);
    static unsigned char frame[YW * YH * 3 / 2];
    memset(frame, 90, sizeof(frame));
    assert_int_equal(write(wfd, frame, sizeof(frame)), (ssize_t)sizeof(frame));

    /* the Y4M source's reads return at their timeout on a silent pipe:
     * the capture thread ends by itself (no cancellation, which tripped a
     * false alarm of ASan's; test_stream_stop.c) */
    pid_t pid = rv_test_spawn(g_exe, (const char *[]){"--source", "y4m:-", "--stage", "invert", "--no-adapt",
                                                      "--backend", "cpu", "--sink", "y4m:-", NULL},
                              fifo, g_dir, NULL);
    /* the frame is through once the sink has written it (frames are flushed
     * whole): waited for, not a fixed time, which a loaded machine can miss */
    char outp[160];
    snprintf(outp, sizeof(outp), "%s/stdout", g_dir);
    for (int i = 0; i < 1000; i++) {
        struct stat so;
        if (stat(outp, &so) == 0 && so.st_size >= (off_t)sizeof(frame))
            break;
        struct timespec nap = {0, 10 * 1000000L};
        nanosleep(&nap, NULL);
    }
    struct timespec ts = {0, 100 * 1000000L}; /* into the next, silent read */
    nanosleep(&ts, NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    kill(pid, SIGINT);
    int status = 0, done = 0;
    double ms = 0;
    while (!done) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        assert_true(r >= 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
        if (r == pid) {
            done = 1;
        } else if (ms > 5000) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            close(wfd);
            fail_msg("ravioli-run did not exit within 5 s of SIGINT on a silent pipe");
        } else {
            struct timespec nap = {0, 5 * 1000000L};
            nanosleep(&nap, NULL);
        }
    }
    close(wfd);
    char *s = out_text("stderr");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !strstr(s, "captured 1 = processed 1"))
        fprintf(stderr, "stalled pipe + Ctrl-C: status %d after %.0f ms\n%s\n", status, ms, s);
    printf("stalled pipe: ravioli-run exited %.0f ms after SIGINT\n", ms);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_non_null(strstr(s, "captured 1 = processed 1 + skipped 0 + dropped 0"));
    assert_null(strstr(s, "has not returned from a read"));
    assert_true(ms < 2000);
    free(s);
}

/* Ctrl-C while ravioli-run waits for the Y4M header on standard input (a
 * pipe that never sends one): exit 0, as --help says for Ctrl-C, not death
 * by the signal. The SIGINT is sent once -v says the source is being opened
 * (the handler is in place by then); at most 5 s for each step. */
static void ctrl_c_before_header(void)
{
    char fifo[128];
    snprintf(fifo, sizeof(fifo), "%s/nohdr.fifo", g_dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int wfd = open(fifo, O_RDWR); /* a writer that never writes: no header, no EOF */
    assert_true(wfd >= 0);
    char logp[160]; /* made by the --log check; must not be left behind */
    snprintf(logp, sizeof(logp), "%s/nohdr-log.csv", g_dir);
    unlink(logp);
    pid_t pid = rv_test_spawn(g_exe, (const char *[]){"--source", "y4m:-", "--stage", "invert", "--backend", "cpu",
                                                      "--log", logp, "-v", NULL},
                              fifo, g_dir, NULL);
    char errp[160];
    snprintf(errp, sizeof(errp), "%s/stderr", g_dir);
    int status = 0, done = 0;
    for (int i = 0; i < 500; i++) { /* until it says it opens the source */
        char *e = rv_test_slurp(errp, NULL);
        const int opening = e && strstr(e, "opening the source") != NULL;
        free(e);
        if (opening)
            break;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            done = 1;
            break;
        }
        struct timespec nap = {0, 10 * 1000000L};
        nanosleep(&nap, NULL);
    }
    if (!done) {
        struct timespec nap = {0, 100 * 1000000L}; /* into the blocking read */
        nanosleep(&nap, NULL);
        kill(pid, SIGINT);
        for (int i = 0; i < 500 && !done; i++) {
            if (waitpid(pid, &status, WNOHANG) == pid)
                done = 1;
            else {
                struct timespec t = {0, 10 * 1000000L};
                nanosleep(&t, NULL);
            }
        }
        if (!done) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            close(wfd);
            fail_msg("ravioli-run did not exit within 5 s of SIGINT before the Y4M header");
        }
    }
    close(wfd);
    unlink(fifo);
    char *s = out_text("stderr");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "Ctrl-C before the header: status 0x%x (signal %d)\n%s\n", status,
                WIFSIGNALED(status) ? WTERMSIG(status) : 0, s);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_non_null(strstr(s, "interrupted before the source delivered anything"));
    free(s);
    assert_int_equal(access(logp, F_OK), -1); /* the log file the check made is removed */
}

/* Writes `n` bytes of `data` to `path`. */
static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* Errors and their exit codes on Y4M input: a bad --log leaves the output
 * alone; a malformed header and a malformed or truncated frame are exit 1
 * alike (the frames before a bad one are kept); a built-in stage's name
 * after --module; a stage's name said once in its error. */
static void y4m_errors(const char *in, const char *src, const char *snk, const char *out)
{
    char path[160], bsrc[200], log[160];
    snprintf(path, sizeof(path), "%s/bad.y4m", g_dir);
    snprintf(bsrc, sizeof(bsrc), "y4m:%s", path);

    /* a --log that cannot be written: found before the sink truncates an existing output */
    static const char keep[] = "an existing output file\n";
    write_file(out, keep, sizeof(keep) - 1);
    snprintf(log, sizeof(log), "%s/no_such_dir/log.csv", g_dir);
    expect((const char *[]){"--source", src, "--stage", "invert", "--sink", snk, "--log", log, "--backend", "cpu",
                            NULL},
           3, "stderr", "--log");
    size_t n = 0;
    char *o = rv_test_slurp(out, &n);
    assert_non_null(o);
    assert_int_equal(n, sizeof(keep) - 1);
    assert_memory_equal(o, keep, n);
    free(o);
    /* a --log made by the check is removed when the run does not start */
    snprintf(log, sizeof(log), "%s/made.csv", g_dir);
    expect((const char *[]){"--source", "y4m:/nonexistent/in.y4m", "--stage", "invert", "--log", log, NULL}, 3,
           "stderr", "unavailable");
    assert_int_equal(access(log, F_OK), -1);

    /* malformed input: header and frame alike exit 1 (docs/video.md); a missing file 3 */
    static const char badhdr[] = "YUV4MPEG2 W16 Hx C420jpeg\n";
    write_file(path, badhdr, sizeof(badhdr) - 1);
    expect((const char *[]){"--source", bsrc, "--stage", "invert", "--backend", "cpu", NULL}, 1, "stderr",
           "malformed input");
    size_t len = 0;
    char *clip = rv_test_slurp(in, &len);
    assert_non_null(clip);
    const size_t hdr = (size_t)(strchr(clip, '\n') - clip) + 1, fsz = (size_t)YW * YH * 3 / 2;
    memcpy(clip + hdr + 2 * (6 + fsz), "FRAMX", 5); /* the third frame's header */
    write_file(path, clip, len);
    expect((const char *[]){"--source", bsrc, "--stage", "invert", "--sink", snk, "--backend", "cpu", NULL}, 1,
           "stderr", "does not start with FRAME");
    assert_int_equal(read_output(out, g_out, YN + 2), 2);
    memcpy(clip + hdr + 2 * (6 + fsz), "FRAME", 5);
    write_file(path, clip, len - 10); /* the last frame truncated */
    expect((const char *[]){"--source", bsrc, "--stage", "invert", "--sink", snk, "--backend", "cpu", NULL}, 1,
           "stderr", "is truncated");
    assert_int_equal(read_output(out, g_out, YN + 2), YN - 1);
    free(clip);

    /* a built-in stage's name after --module names the module's kernel: said so, with what to do */
    expect((const char *[]){"--source", src, "--module", "samples", "--stage", "gray", "--backend", "cpu", NULL}, 2,
           "stderr", "give --stage gray before --module samples");
    expect((const char *[]){"--source", src, "--stage", "gray", "--module", "samples", "--backend", "cpu", NULL}, 0,
           "stderr", "captured 6 = processed 6");

    /* a stage's error names the stage once */
    static const char deep[] = "YUV4MPEG2 W4 H2 F30:1 C444p16\nFRAME\n"
                               "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
                               "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
    write_file(path, deep, sizeof(deep) - 1);
    expect((const char *[]){"--source", bsrc, "--stage", "emboss", "--backend", "cpu", NULL}, 2, "stderr",
           "stage 'emboss': does not take yuv444p16 frames");
    char *e = out_text("stderr");
    assert_null(strstr(e, "stage 'emboss': stage"));
    free(e);
    expect((const char *[]){"--source", bsrc, "--stage", "rgba", "--backend", "cpu", NULL}, 2, "stderr",
           "stage 'rgba': takes RGBA8");
    unlink(path);
    unlink(out);
}

static void test_y4m(void **state)
{
    (void)state;
    char in[128], out[128];
    snprintf(in, sizeof(in), "%s/in.y4m", g_dir);
    snprintf(out, sizeof(out), "%s/out.y4m", g_dir);
    write_input(in);
    char src[160], snk[160];
    snprintf(src, sizeof(src), "y4m:%s", in);
    snprintf(snk, sizeof(snk), "y4m:%s", out);
    const size_t ysz = (size_t)YW * YH, fsz = ysz * 3 / 2;

    /* invert: every sample of every plane becomes 255 - v. */
    expect((const char *[]){"--source", src, "--stage", "invert", "--sink", snk, "--no-adapt", "--backend", "cpu", NULL},
           0, "stderr", "captured 6 = processed 6 + skipped 0 + dropped 0");
    assert_int_equal(read_output(out, g_out, YN + 2), YN);
    for (int n = 0; n < YN; n++)
        for (size_t i = 0; i < fsz; i++)
            assert_int_equal(g_out[n][i], 255 - g_in[n][i]);

    /* binarize:100 then edge:200 on luma (clamped Sobel), chroma neutral; through stdin and stdout. */
    const char *args[] = {"--source", "y4m:-", "--stage", "binarize:100", "--stage", "edge:threshold=200",
                          "--sink", "y4m:-", "--no-adapt", "--backend", "cpu", NULL};
    assert_int_equal(run_cli(args, in, 0), 0);
    char so[128];
    snprintf(so, sizeof(so), "%s/stdout", g_dir);
    assert_int_equal(read_output(so, g_out, YN + 2), YN);
    static unsigned char bin[YW * YH];
    for (int n = 0; n < YN; n++) {
        for (size_t i = 0; i < ysz; i++)
            bin[i] = g_in[n][i] >= 100 ? 255 : 0;
        for (int y = 0; y < YH; y++)
            for (int x = 0; x < YW; x++) {
                int a = lum_at(bin, x - 1, y - 1), b = lum_at(bin, x, y - 1), c = lum_at(bin, x + 1, y - 1);
                int d = lum_at(bin, x - 1, y), f = lum_at(bin, x + 1, y);
                int g = lum_at(bin, x - 1, y + 1), h = lum_at(bin, x, y + 1), i = lum_at(bin, x + 1, y + 1);
                int gx = (c + 2 * f + i) - (a + 2 * d + g), gy = (g + 2 * h + i) - (a + 2 * b + c);
                int m = abs(gx) + abs(gy) >= 200 ? 255 : 0;
                assert_int_equal(g_out[n][y * YW + x], m);
            }
        for (size_t i = ysz; i < fsz; i++)
            assert_int_equal(g_out[n][i], 128);
    }

    /* Temporal stride 2 into a file sink: skipped frames are left out of files. */
    expect((const char *[]){"--source", src, "--stage", "gray", "--sink", snk, "--fixed-stride", "1:2", "--no-adapt",
                            "--backend", "cpu", NULL},
           0, "stderr", "captured 6 = processed 3 + skipped 3 + dropped 0");
    int n = read_output(out, g_out, YN + 2);
    char *s = out_text("stderr");
    long long written = -1, reps = -1;
    const char *l = strstr(s, "frames (");
    assert_non_null(l);
    while (l > s && l[-1] != ':')
        l--;
    assert_int_equal(sscanf(l, " %lld frames (%lld repeats)", &written, &reps), 2);
    assert_int_equal(n, written);
    assert_int_equal(n, 3 + reps);
    for (int k = 0; k < n && reps == 0; k++) /* frames 0, 2, 4: luma kept, chroma neutral */
        for (size_t i = 0; i < fsz; i++)
            assert_int_equal(g_out[k][i], i < ysz ? g_in[2 * k][i] : 128);
    free(s);

    /* denoise (DWT, CDF 9/7 in float): threshold 0 reconstructs the luma exactly
     * after rounding; a high threshold smooths it (less total variation); chroma
     * is never touched. */
    expect((const char *[]){"--source", src, "--stage", "denoise:threshold=0,levels=3", "--sink", snk,
                            "--no-adapt", "--backend", "cpu", NULL},
           0, "stderr", "captured 6 = processed 6");
    assert_int_equal(read_output(out, g_out, YN + 2), YN);
    for (int k = 0; k < YN; k++)
        assert_memory_equal(g_out[k], g_in[k], fsz);
    expect((const char *[]){"--source", src, "--stage", "denoise:threshold=300,levels=2,wavelet=3", "--sink", snk,
                            "--no-adapt", "--backend", "cpu", NULL},
           0, "stderr", "captured 6 = processed 6");
    assert_int_equal(read_output(out, g_out, YN + 2), YN);
    for (int k = 0; k < YN; k++) {
        long tv_in = 0, tv_out = 0;
        for (int y = 0; y < YH; y++)
            for (int x = 1; x < YW; x++) {
                tv_in += abs(g_in[k][y * YW + x] - g_in[k][y * YW + x - 1]);
                tv_out += abs(g_out[k][y * YW + x] - g_out[k][y * YW + x - 1]);
            }
        assert_true(tv_out < tv_in / 2);
        assert_memory_equal(g_out[k] + ysz, g_in[k] + ysz, fsz - ysz);
    }

    /* deband (f3kdb family): thresholds 0 leave every plane untouched (no
     * grain either, by definition); the defaults change the frames. Its exact
     * output is tested in tests/deband; here the stage's wiring. */
    expect((const char *[]){"--source", src, "--stage", "deband:y=0,c=0", "--sink", snk, "--no-adapt",
                            "--backend", "cpu", NULL},
           0, "stderr", "captured 6 = processed 6");
    assert_int_equal(read_output(out, g_out, YN + 2), YN);
    for (int k = 0; k < YN; k++)
        assert_memory_equal(g_out[k], g_in[k], fsz);
    expect((const char *[]){"--source", src, "--stage", "deband:range=4,mode=0", "--stage", "invert", "--sink", snk,
                            "--no-adapt", "--backend", "cpu", NULL},
           0, "stderr", "captured 6 = processed 6");
    assert_int_equal(read_output(out, g_out, YN + 2), YN);
    int changed = 0;
    for (int k = 0; k < YN; k++)
        for (size_t i = 0; i < fsz; i++)
            changed += g_out[k][i] != 255 - g_in[k][i];
    assert_true(changed > 0);

    /* A stage that cannot take the source's format is a usage error. */
    unlink(out);

    /* The same file as source and sink, or as source and frame log, is a usage error
     * and the input stays as it was. */
    expect((const char *[]){"--source", src, "--stage", "gray", "--sink", src, "--backend", "cpu", NULL}, 2,
           "stderr", "are the same file");
    expect((const char *[]){"--source", src, "--stage", "gray", "--sink", snk, "--log", in, "--backend", "cpu", NULL},
           2, "stderr", "--source and --log are the same file");
    assert_int_equal(read_output(in, g_out, YN + 2), YN);
    for (int k = 0; k < YN; k++)
        assert_memory_equal(g_out[k], g_in[k], fsz);
    assert_int_equal(access(out, F_OK), -1);

    /* 10-bit samples (16-bit words): the stages would take them for 16-bit ones, so refused */
    char in10[128], src10[160];
    snprintf(in10, sizeof(in10), "%s/in10.y4m", g_dir);
    snprintf(src10, sizeof(src10), "y4m:%s", in10);
    FILE *f10 = fopen(in10, "wb");
    assert_non_null(f10);
    fputs("YUV4MPEG2 W4 H2 F30:1 C444p10\nFRAME\n", f10);
    for (int i = 0; i < 4 * 2 * 3; i++)
        fputc(0, f10), fputc(2, f10); /* 512 */
    fclose(f10);
    expect((const char *[]){"--source", src10, "--stage", "deband", "--sink", snk, "--backend", "cpu", NULL}, 2,
           "stderr", "10-bit samples");
    assert_int_equal(access(out, F_OK), -1);
    unlink(in10);

    y4m_errors(in, src, snk, out);

    /* Ctrl-C on a stalled standard-input pipe, and before the header came */
    stalled_stdin_ctrl_c();
    ctrl_c_before_header();
}

/* ------------------------------------------------------------------ */
/* the CLI on the CUDA backend = on the CPU backend                     */
/* ------------------------------------------------------------------ */

static unsigned char g_ref[YN + 2][YW * YH * 3 / 2];

/* Runs `stages` (argv fragment) on in.y4m with each backend and compares
 * the Y4M outputs: equal, or (max_diff > 0, float stages) within max_diff
 * per sample. */
static void cli_cpu_vs_cuda(const char *in, const char *const *stages, const char *extra, int max_diff)
{
    char src[160], snk[160], out[128];
    snprintf(out, sizeof(out), "%s/out.y4m", g_dir);
    snprintf(src, sizeof(src), "y4m:%s", in);
    snprintf(snk, sizeof(snk), "y4m:%s", out);
    const size_t fsz = (size_t)YW * YH * 3 / 2;
    int nref = 0;
    for (int b = 0; b < 2; b++) {
        const char *argv[32];
        int n = 0;
        argv[n++] = "--source";
        argv[n++] = src;
        for (int i = 0; stages[i]; i++) {
            argv[n++] = "--stage";
            argv[n++] = stages[i];
        }
        if (extra) {
            argv[n++] = "--gpu-streams";
            argv[n++] = extra;
        }
        argv[n++] = "--sink";
        argv[n++] = snk;
        argv[n++] = "--no-adapt";
        argv[n++] = "--backend";
        argv[n++] = b == 0 ? "cpu" : "cuda";
        argv[n] = NULL;
        expect(argv, 0, "stderr", "captured 6 = processed 6");
        if (b == 0) {
            nref = read_output(out, g_ref, YN + 2);
            assert_int_equal(nref, YN);
            continue;
        }
        assert_int_equal(read_output(out, g_out, YN + 2), nref);
        int worst = 0;
        long differ = 0;
        for (int k = 0; k < nref; k++)
            for (size_t i = 0; i < fsz; i++) {
                const int d = abs(g_out[k][i] - g_ref[k][i]);
                differ += d != 0;
                worst = d > worst ? d : worst;
            }
        if (worst > max_diff) {
            fprintf(stderr, "stage %s...: cuda differs from cpu in %ld samples, by up to %d\n", stages[0], differ,
                    worst);
            fail();
        }
    }
}

/* An image through the dwt stage on both backends (image source and sink):
 * the coefficients within 1e-6 of the largest, and idwt on the GPU gives the
 * image back. */
static void dwt_cpu_vs_cuda(int wavelet, int levels)
{
    char in[128], co[2][128], back[128], src[300], snk[300], stage[64];
    snprintf(in, sizeof(in), "%s/dwt_in.pgm", g_dir);
    RV_Context *ctx = rv_test_cpu_context(1);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, 333, 190, RV_FMT_GRAY8, &img), 0);
    rv_test_fill_random(img, 7 + (uint64_t)wavelet);
    assert_int_equal(rv_image_write_file(img, in), 0);
    snprintf(src, sizeof(src), "image:%s", in);
    snprintf(stage, sizeof(stage), "dwt:levels=%d,wavelet=%d", levels, wavelet);
    for (int b = 0; b < 2; b++) {
        snprintf(co[b], sizeof(co[b]), "%s/dwt_%d.pfm", g_dir, b);
        snprintf(snk, sizeof(snk), "image:%s", co[b]);
        expect((const char *[]){"--source", src, "--stage", stage, "--sink", snk, "--backend", b ? "cuda" : "cpu",
                                NULL},
               0, "stderr", "captured 1 = processed 1");
    }
    RV_Image *c[2] = {NULL, NULL};
    for (int b = 0; b < 2; b++)
        assert_int_equal(rv_image_read_file(ctx, co[b], &c[b]), 0);
    ptrdiff_t pa = 0, pb = 0;
    const unsigned char *a = rv_image_read(c[0], 0, &pa), *g = rv_image_read(c[1], 0, &pb);
    double mx = 0, worst = 0;
    for (int y = 0; y < 190; y++)
        for (int x = 0; x < 333; x++)
            mx = fmax(mx, fabs(((const float *)(a + y * pa))[x]));
    for (int y = 0; y < 190; y++)
        for (int x = 0; x < 333; x++)
            worst = fmax(worst, fabs(((const float *)(a + y * pa))[x] - ((const float *)(g + y * pb))[x]));
    if (worst > 1e-6 * mx)
        fail_msg("dwt wavelet %d, %d levels: cuda differs from cpu by %g (largest coefficient %g)", wavelet, levels,
                 worst, mx);
    snprintf(src, sizeof(src), "image:%s", co[1]);
    snprintf(back, sizeof(back), "%s/dwt_back.pgm", g_dir);
    snprintf(snk, sizeof(snk), "image:%s", back);
    snprintf(stage, sizeof(stage), "idwt:levels=%d,wavelet=%d", levels, wavelet);
    expect((const char *[]){"--source", src, "--stage", stage, "--sink", snk, "--backend", "cuda", NULL}, 0, "stderr",
           "captured 1 = processed 1");
    size_t n1 = 0, n2 = 0;
    char *x = rv_test_slurp(in, &n1), *y = rv_test_slurp(back, &n2);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(n1, n2);
    assert_memory_equal(x, y, n1);
    free(x);
    free(y);
    rv_image_destroy(&c[0]);
    rv_image_destroy(&c[1]);
    rv_image_destroy(&img);
    rv_context_destroy(&ctx);
}

static void test_gpu(void **state)
{
    (void)state;
    char in[128];
    snprintf(in, sizeof(in), "%s/in.y4m", g_dir);
    write_input(in);
    cli_cpu_vs_cuda(in, (const char *[]){"invert", NULL}, NULL, 0);
    cli_cpu_vs_cuda(in, (const char *[]){"binarize:100", "edge:threshold=200", NULL}, NULL, 0);
    cli_cpu_vs_cuda(in, (const char *[]){"yuv444", "rgba", "emboss", "gray", "yuv420", NULL}, NULL, 0);
    cli_cpu_vs_cuda(in, (const char *[]){"deband:range=4,mode=2", NULL}, NULL, 0);
    cli_cpu_vs_cuda(in, (const char *[]){"deband:range=6,mode=1,dynamic=1", NULL}, "1", 0);
    /* float DWT: equal up to the last rounding to 8 bits */
    cli_cpu_vs_cuda(in, (const char *[]){"denoise:threshold=20,levels=2", NULL}, NULL, 1);
    cli_cpu_vs_cuda(in, (const char *[]){"denoise:threshold=10,levels=3,wavelet=1", "invert", NULL}, "2", 1);
    for (int w = 0; w < 4; w++)
        dwt_cpu_vs_cuda(w, w == 2 ? 5 : 3);
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s RAVIOLI_RUN usage|synthetic|y4m|gpu [RV_PLOT]\n", argv[0]);
        return 1;
    }
    g_exe = argv[1];
    g_plot = argc == 4 ? argv[3] : NULL;
    if (strcmp(argv[2], "gpu") == 0) {
        RV_Context *gctx = rv_test_gpu_context(); /* exits 77 (skipped) without a GPU */
        rv_context_destroy(&gctx);
    }
    snprintf(g_dir, sizeof(g_dir), "/tmp/rv_run_test_XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    const char *mode = argv[2];
    int rc;
    if (strcmp(mode, "usage") == 0) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_help_and_usage)};
        rc = cmocka_run_group_tests(t, NULL, NULL);
    } else if (strcmp(mode, "gpu") == 0) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_gpu)};
        rc = cmocka_run_group_tests(t, NULL, NULL);
    } else {
        /* Skip when the library has no such source (RV_ENOSYS). */
        RV_Context *ctx = rv_test_cpu_context(1);
        RV_Source *src = NULL;
        int err;
        if (strcmp(mode, "synthetic") == 0) {
            RV_SyntheticSettings ss;
            rv_synthetic_settings_default(&ss);
            err = rv_source_open_synthetic(ctx, &ss, &src);
        } else {
            err = rv_source_open_y4m(ctx, "/nonexistent/probe.y4m", NULL, &src);
        }
        rv_source_close(&src);
        rv_context_destroy(&ctx);
        if (err == RV_ENOSYS) {
            printf("SKIPPED: the %s source is not in this build\n", mode);
            rmdir(g_dir);
            return RV_TEST_SKIP;
        }
        const struct CMUnitTest ts[] = {cmocka_unit_test(test_synthetic)};
        const struct CMUnitTest ty[] = {cmocka_unit_test(test_y4m)};
        rc = strcmp(mode, "synthetic") == 0 ? cmocka_run_group_tests(ts, NULL, NULL)
                                            : cmocka_run_group_tests(ty, NULL, NULL);
    }
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_dir);
    return rc;
}
