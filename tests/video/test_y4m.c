/*
 * test_y4m.c - Y4M reader and writer: valid variants (4:2:0 sitings, 4:4:4,
 * 4:2:2 -> 4:4:4, mono, 10/12/16-bit little-endian), tags, many malformed
 * headers and frames, clean and truncated ends, pipes (also pausing anywhere
 * in a frame: reads time out and resume), round trips, RGBA8
 * -> YUV conversion against the BT.601 definition, realtime playback.
 */
#include <errno.h>

#include "rv_test.h"

#include <ravioli/video.h>

#include <math.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static RV_Context *ctx;
static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    ctx = rv_test_cpu_context(1);
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/rv_y4m_XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir))
        return -1;
    return 0;
}
static int teardown(void **state)
{
    (void)state;
    rv_context_destroy(&ctx);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A growing byte buffer. */
typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;
static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

static const char *write_file(const char *name, const void *d, size_t n)
{
    static char path[400];
    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, n, f), n);
    fclose(f);
    return path;
}

/* Sample value of plane `pl`, element i, frame k: covers the 8-bit range;
 * for deep files masked to `depth` bits. */
static unsigned sample(int pl, size_t i, int k, int depth)
{
    unsigned v = (unsigned)(i * 37 + (size_t)pl * 101 + (size_t)k * 59 + (i >> 3) * 11);
    return v & ((1u << depth) - 1);
}

/* Writes a Y4M stream with `frames` frames of w x h, chroma cw x ch per plane
 * (planes = 1 for mono), depth bits. */
static void make_stream(buf *b, const char *header, int w, int h, int cw, int ch, int planes,
                        int depth, int frames)
{
    puts_(b, header);
    for (int k = 0; k < frames; k++) {
        puts_(b, k == 1 ? "FRAME Ixyz Xsome=thing\n" : "FRAME\n");
        for (int pl = 0; pl < planes; pl++) {
            size_t n = pl ? (size_t)cw * ch : (size_t)w * h;
            for (size_t i = 0; i < n; i++) {
                unsigned v = sample(pl, i, k, depth);
                if (depth > 8) {
                    unsigned char le[2] = {(unsigned char)(v & 255), (unsigned char)(v >> 8)};
                    put(b, le, 2);
                } else {
                    unsigned char c = (unsigned char)v;
                    put(b, &c, 1);
                }
            }
        }
    }
}

/* Checks a frame read from such a stream; `up422` = chroma was 4:2:2. */
static void check_frame(RV_Image *img, int cw, int ch, int planes, int depth, int k, int up422)
{
    int w = rv_image_width(img), h = rv_image_height(img);
    for (int pl = 0; pl < planes; pl++) {
        ptrdiff_t pitch;
        const unsigned char *p = rv_image_read(img, pl, &pitch);
        assert_non_null(p);
        int pw = pl ? (up422 ? w : cw) : w, ph = pl ? ch : h;
        assert_int_equal(rv_image_plane_width(img, pl), pw);
        assert_int_equal(rv_image_plane_height(img, pl), ph);
        for (int y = 0; y < ph; y++)
            for (int x = 0; x < pw; x++) {
                int sx = pl && up422 ? x / 2 : x;
                unsigned want = sample(pl, (size_t)y * (pl ? cw : w) + sx, k, depth);
                unsigned got = depth > 8 ? ((const uint16_t *)(p + y * pitch))[x] : p[y * pitch + x];
                if (got != want)
                    fail_msg("plane %d (%d,%d) frame %d: got %u want %u", pl, x, y, k, got, want);
            }
    }
}

typedef struct variant {
    const char *tag;      /* C tag ("" = none) */
    RV_Format fmt;
    int depth, sx, sy, planes, up422;
} variant;

static void run_variant(const variant *v, int w, int h)
{
    char header[200];
    snprintf(header, sizeof(header), "YUV4MPEG2 W%d H%d F30000:1001 It A10:11 Zunknown X1%s%s\n", w, h,
             v->tag[0] ? " C" : "", v->tag);
    int cw = v->planes == 1 ? 0 : (w + (1 << v->sx) - 1) >> v->sx;
    int ch = v->planes == 1 ? 0 : (h + (1 << v->sy) - 1) >> v->sy;
    buf b = {0};
    make_stream(&b, header, w, h, cw, ch, v->planes, v->depth, 3);
    const char *path = write_file("v.y4m", b.p, b.n);
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_y4m(ctx, path, NULL, &src), 0);
    RV_VideoInfo info;
    assert_int_equal(rv_source_info(src, &info), 0);
    assert_int_equal(info.width, w);
    assert_int_equal(info.height, h);
    assert_int_equal(info.format, v->fmt);
    assert_int_equal(info.bit_depth, v->depth);
    assert_int_equal(info.fps_num, 30000);
    assert_int_equal(info.fps_den, 1001);
    assert_int_equal(info.interlaced, 1);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, info.format, &img), 0);
    for (int k = 0; k < 3; k++) {
        long long pts = -1;
        assert_int_equal(rv_source_read(src, img, &pts, 0), 0);
        assert_true(pts > 0);
        check_frame(img, cw, ch, v->planes, v->depth, k, v->up422);
    }
    assert_int_equal(rv_source_read(src, img, NULL, 0), RV_EPIPE); /* clean end */
    assert_int_equal(rv_source_read(src, img, NULL, 0), RV_EPIPE);
    rv_image_destroy(&img);
    rv_source_close(&src);
    assert_null(src);
    free(b.p);
}

static const variant variants[] = {
    {"", RV_FMT_YUV420P8, 8, 1, 1, 3, 0},
    {"420jpeg", RV_FMT_YUV420P8, 8, 1, 1, 3, 0},
    {"420paldv", RV_FMT_YUV420P8, 8, 1, 1, 3, 0},
    {"420mpeg2", RV_FMT_YUV420P8, 8, 1, 1, 3, 0},
    {"420", RV_FMT_YUV420P8, 8, 1, 1, 3, 0},
    {"444", RV_FMT_YUV444P8, 8, 0, 0, 3, 0},
    {"422", RV_FMT_YUV444P8, 8, 1, 0, 3, 1},
    {"mono", RV_FMT_GRAY8, 8, 0, 0, 1, 0},
    {"420p10", RV_FMT_YUV420P16, 10, 1, 1, 3, 0},
    {"420p12", RV_FMT_YUV420P16, 12, 1, 1, 3, 0},
    {"420p16", RV_FMT_YUV420P16, 16, 1, 1, 3, 0},
    {"444p10", RV_FMT_YUV444P16, 10, 0, 0, 3, 0},
    {"444p16", RV_FMT_YUV444P16, 16, 0, 0, 3, 0},
    {"422p10", RV_FMT_YUV444P16, 10, 1, 0, 3, 1},
    {"mono16", RV_FMT_GRAY16, 16, 0, 0, 1, 0},
    {"mono12", RV_FMT_GRAY16, 12, 0, 0, 1, 0},
};

static void test_valid_variants(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
        run_variant(&variants[i], 16, 8);
        run_variant(&variants[i], 7, 5); /* odd sizes: chroma rounds up */
    }
}

/* ---------------------------------------------------------------------- */

typedef struct bad {
    const char *data;
    int len;              /* -1: strlen */
    int err;              /* expected at open (0: open succeeds, then `rerr` at read) */
    int rerr;
} bad;

#define GOOD "YUV4MPEG2 W4 H2 F25:1 C420jpeg\n"
/* one 4x2 4:2:0 frame has 8 + 2 + 2 = 12 bytes */
#define PIX12 "abcdefghijkl"

static const bad bads[] = {
    /* stream header */
    {"", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2", -1, RV_EBADMSG, 0},                /* no newline: truncated */
    {"YUV4MPEG W4 H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG3 W4 H2\n", -1, RV_EBADMSG, 0},
    {"yuv4mpeg2 W4 H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2W4 H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2\n", -1, RV_EBADMSG, 0},                     /* no W, H */
    {"YUV4MPEG2 H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W0 H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W-4 H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W+4 H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4x H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W65537 H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W99999999999999999999 H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2 W4\n", -1, RV_EBADMSG, 0},             /* duplicate */
    {"YUV4MPEG2 W4 H2 C420 C444\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4  H2\n", -1, RV_EBADMSG, 0},               /* empty tag */
    {"YUV4MPEG2 W4 H2 \n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2  W4 H2\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2 F30\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2 F30:0\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2 F0:1\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2 Fa:b\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2 F30:1:1\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2 Ix\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2 Ipp\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2 I\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2 A1\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4 H2 A1:-1\n", -1, RV_EBADMSG, 0},
    {"YUV4MPEG2 W4\0 H2\n", 17, RV_EBADMSG, 0},               /* NUL */
    {"YUV4MPEG2 W4 H2\r\n", -1, RV_EBADMSG, 0},               /* CR is not a separator */
    {"YUV4MPEG2 W65536 H65536\n", -1, RV_EOVERFLOW, 0},       /* checked before allocating */
    /* unsupported colour spaces */
    {"YUV4MPEG2 W4 H2 C411\n", -1, RV_ENOSYS, 0},
    {"YUV4MPEG2 W4 H2 C444alpha\n", -1, RV_ENOSYS, 0},
    {"YUV4MPEG2 W4 H2 C420p7\n", -1, RV_ENOSYS, 0},
    {"YUV4MPEG2 W4 H2 C420p17\n", -1, RV_ENOSYS, 0},
    {"YUV4MPEG2 W4 H2 C420jpegp10\n", -1, RV_ENOSYS, 0},
    {"YUV4MPEG2 W4 H2 C\n", -1, RV_ENOSYS, 0},
    /* frames */
    {GOOD "FRAMX\n" PIX12, -1, 0, RV_EBADMSG},
    {GOOD "FRAMEX\n" PIX12, -1, 0, RV_EBADMSG},
    {GOOD "frame\n" PIX12, -1, 0, RV_EBADMSG},
    {GOOD "FRAME  Ip\n" PIX12, -1, 0, RV_EBADMSG},           /* empty frame tag */
    {GOOD "FRAME \n" PIX12, -1, 0, RV_EBADMSG},
    {GOOD "FRA", -1, 0, RV_EBADMSG},                         /* truncated frame header */
    {GOOD "FRAME", -1, 0, RV_EBADMSG},
    {GOOD "FRAME\n", -1, 0, RV_EBADMSG},                     /* header, no pixels */
    {GOOD "FRAME\nabcdefghijk", -1, 0, RV_EBADMSG},          /* one byte short */
    {GOOD "FRAME\r\n" PIX12, -1, 0, RV_EBADMSG},
    {GOOD "\nFRAME\n" PIX12, -1, 0, RV_EBADMSG},
};

static void test_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
        const bad *b = &bads[i];
        size_t n = b->len < 0 ? strlen(b->data) : (size_t)b->len;
        const char *path = write_file("bad.y4m", b->data, n);
        RV_Source *src = (RV_Source *)ctx; /* must be reset to NULL */
        int err = rv_source_open_y4m(ctx, path, NULL, &src);
        if (err != b->err)
            fail_msg("case %zu \"%.40s\": open gave %d, expected %d (%s)", i, b->data, err, b->err,
                     rv_context_error(ctx));
        if (err < 0) {
            assert_null(src);
            assert_true(strlen(rv_context_error(ctx)) > 10); /* a message, not just a code */
            continue;
        }
        RV_Image *img = NULL;
        assert_int_equal(rv_image_create(ctx, 4, 2, RV_FMT_YUV420P8, &img), 0);
        err = rv_source_read(src, img, NULL, 0);
        if (err != b->rerr)
            fail_msg("case %zu: read gave %d, expected %d (%s)", i, err, b->rerr,
                     rv_context_error(ctx));
        rv_image_destroy(&img);
        rv_source_close(&src);
    }
    /* a header longer than the limit */
    size_t big = 5000;
    char *h = malloc(big + 40);
    strcpy(h, "YUV4MPEG2 W4 H2 X");
    memset(h + strlen(h), 'x', big);
    strcpy(h + 17 + big, "\n");
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_y4m(ctx, write_file("big.y4m", h, strlen(h)), NULL, &src),
                     RV_EBADMSG);
    free(h);
    /* missing file, or a missing directory on its path */
    assert_int_equal(rv_source_open_y4m(ctx, "/nonexistent/x.y4m", NULL, &src), RV_ENOENT);
    assert_int_equal(rv_source_open_y4m(ctx, write_file("here.y4m", "", 0), NULL, &src), RV_EBADMSG);
    char missing[400];
    snprintf(missing, sizeof(missing), "%s/no_such_dir/x.y4m", tmpdir);
    assert_int_equal(rv_source_open_y4m(ctx, missing, NULL, &src), RV_ENOENT);
    assert_null(src);
    assert_non_null(strstr(rv_context_error(ctx), missing));
}

/* The second frame is truncated: the first is delivered, then an error (not EPIPE). */
static void test_truncated_last_frame(void **state)
{
    (void)state;
    const char data[] = GOOD "FRAME\n" PIX12 "FRAME\n" "abcdef";
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_y4m(ctx, write_file("t.y4m", data, strlen(data)), NULL, &src), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, 4, 2, RV_FMT_YUV420P8, &img), 0);
    assert_int_equal(rv_source_read(src, img, NULL, 0), 0);
    const unsigned char *y = rv_image_read(img, 0, NULL);
    assert_memory_equal(y, "abcd", 4);
    assert_int_equal(rv_source_read(src, img, NULL, 0), RV_EBADMSG);
    assert_non_null(strstr(rv_context_error(ctx), "truncated"));
    rv_image_destroy(&img);
    rv_source_close(&src);
}

/* "-": standard input fed through a pipe by a child process. */
static void test_pipe_stdin(void **state)
{
    (void)state;
    buf b = {0};
    make_stream(&b, "YUV4MPEG2 W33 H17 F25:1 C444\n", 33, 17, 33, 17, 3, 8, 20);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        size_t off = 0;
        while (off < b.n) { /* small writes: the reader must cope with partial reads */
            size_t n = b.n - off < 777 ? b.n - off : 777;
            ssize_t r = write(fds[1], b.p + off, n);
            if (r <= 0)
                _exit(1);
            off += (size_t)r;
        }
        _exit(0);
    }
    close(fds[1]);
    int saved = dup(0);
    assert_int_equal(dup2(fds[0], 0), 0);
    close(fds[0]);
    clearerr(stdin);
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_y4m(ctx, "-", NULL, &src), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, 33, 17, RV_FMT_YUV444P8, &img), 0);
    for (int k = 0; k < 20; k++) { /* -1: each read waits for its frame */
        assert_int_equal(rv_source_read(src, img, NULL, -1), 0);
        check_frame(img, 33, 17, 3, 8, k, 0);
    }
    assert_int_equal(rv_source_read(src, img, NULL, -1), RV_EPIPE);
    rv_image_destroy(&img);
    rv_source_close(&src);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    dup2(saved, 0);
    close(saved);
    clearerr(stdin);
    free(b.p);
}

/* Random damage to valid streams: every outcome is a frame or a clean error
 * code, never a crash or a sanitizer report (run under RV_SANITIZE). */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/*
 * A pipe that pauses anywhere - in a FRAME line, between rows, inside a
 * row, inside a 4:2:2 chroma row, between the two bytes of a 16-bit
 * sample: the stream's bytes are fed `step` at a time, and after each feed
 * reads with timeout 0 must return exactly the frames whose bytes are all
 * in (checked against the reference) and then RV_EAGAIN. The reads take
 * turns between two images, as a stream's ring slots do, so the part of a
 * frame read before a pause must travel to the next read's image.
 */
static void pauses_case(const char *cs, int w, int h, int sx, int sy, int planes, int depth,
                        int up422, size_t step)
{
    char header[128];
    snprintf(header, sizeof(header), "YUV4MPEG2 W%d H%d F25:1 C%s\n", w, h, cs);
    const int cw = planes == 1 ? 0 : (w + (1 << sx) - 1) >> sx;
    const int ch = planes == 1 ? 0 : (h + (1 << sy) - 1) >> sy;
    const int frames = 3;
    buf b = {0};
    make_stream(&b, header, w, h, cw, ch, planes, depth, frames);
    /* where each frame's bytes end in the stream */
    const size_t payload = ((size_t)w * h + 2 * (size_t)cw * ch) * (depth > 8 ? 2 : 1);
    size_t end[3], at = strlen(header);
    for (int k = 0; k < frames; k++) {
        at += strlen(k == 1 ? "FRAME Ixyz Xsome=thing\n" : "FRAME\n") + payload;
        end[k] = at;
    }
    assert_int_equal(at, b.n);

    int p[2];
    assert_int_equal(pipe(p), 0);
    size_t fed = strlen(header);
    assert_int_equal(write(p[1], b.p, fed), (ssize_t)fed);
    char path[64];
    snprintf(path, sizeof(path), "/dev/fd/%d", p[0]);
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_y4m(ctx, path, NULL, &src), 0);
    RV_VideoInfo info;
    assert_int_equal(rv_source_info(src, &info), 0);
    RV_Image *img[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++)
        assert_int_equal(rv_image_create(ctx, w, h, info.format, &img[i]), 0);
    int got = 0, turn = 0, pauses = 0;
    while (fed < b.n) {
        const size_t n = b.n - fed < step ? b.n - fed : step;
        assert_int_equal(write(p[1], b.p + fed, n), (ssize_t)n);
        fed += n;
        int complete = 0;
        while (complete < frames && end[complete] <= fed)
            complete++;
        while (got < complete) {
            RV_Image *im = img[turn++ & 1];
            int err = rv_source_read(src, im, NULL, 0);
            if (err != 0)
                fail_msg("C%s step %zu: frame %d complete after %zu bytes, read gave %d (%s)", cs,
                         step, got, fed, err, rv_context_error(ctx));
            check_frame(im, cw, ch, planes, depth, got, up422);
            got++;
        }
        if (got < frames) {
            int err = rv_source_read(src, img[turn++ & 1], NULL, 0);
            if (err != RV_EAGAIN)
                fail_msg("C%s step %zu: frame %d incomplete after %zu bytes, read gave %d", cs,
                         step, got, fed, err);
            pauses++;
        }
    }
    assert_int_equal(got, frames);
    if (step < payload)
        assert_true(pauses >= frames); /* each frame paused at least once */
    /* a silent pipe (writer still open): the timeout holds */
    const double t0 = now_ms();
    assert_int_equal(rv_source_read(src, img[0], NULL, 40), RV_EAGAIN);
    const double ms = now_ms() - t0;
    assert_true(ms >= 39.0 && ms < 2000.0);
    close(p[1]); /* then the end of input, at a frame boundary: a clean end */
    assert_int_equal(rv_source_read(src, img[0], NULL, 40), RV_EPIPE);
    for (int i = 0; i < 2; i++)
        rv_image_destroy(&img[i]);
    rv_source_close(&src);
    close(p[0]);
    free(b.p);
}

static void test_pipe_pauses(void **state)
{
    (void)state;
    static const size_t steps[] = {1, 5, 64, 331};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        pauses_case("420jpeg", 37, 11, 1, 1, 3, 8, 0, steps[i]);
        pauses_case("422p10", 21, 9, 1, 0, 3, 10, 1, steps[i]);
        pauses_case("mono16", 13, 7, 0, 0, 1, 16, 0, steps[i]);
    }
}

/* The end of input in the middle of a frame that paused: truncated, not a
 * clean end, and nothing of it delivered. */
static void test_pipe_ends_mid_frame(void **state)
{
    (void)state;
    buf b = {0};
    make_stream(&b, "YUV4MPEG2 W16 H8 F25:1 C444\n", 16, 8, 16, 8, 3, 8, 2);
    int p[2];
    assert_int_equal(pipe(p), 0);
    const size_t cut = b.n - 100; /* frame 1 lacks its last 100 bytes */
    assert_int_equal(write(p[1], b.p, cut), (ssize_t)cut);
    char path[64];
    snprintf(path, sizeof(path), "/dev/fd/%d", p[0]);
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_y4m(ctx, path, NULL, &src), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, 16, 8, RV_FMT_YUV444P8, &img), 0);
    assert_int_equal(rv_source_read(src, img, NULL, 0), 0);
    check_frame(img, 16, 8, 3, 8, 0, 0);
    assert_int_equal(rv_source_read(src, img, NULL, 10), RV_EAGAIN);
    /* a timeout longer than a second (waited in slices) holds too */
    const double t0 = now_ms();
    assert_int_equal(rv_source_read(src, img, NULL, 1300), RV_EAGAIN);
    const double ms = now_ms() - t0;
    assert_true(ms >= 1299.0 && ms < 4000.0);
    close(p[1]);
    assert_int_equal(rv_source_read(src, img, NULL, 10), RV_EBADMSG);
    assert_non_null(strstr(rv_context_error(ctx), "truncated"));
    rv_image_destroy(&img);
    rv_source_close(&src);
    close(p[0]);
    free(b.p);
}

static void test_fuzz(void **state)
{
    (void)state;
    buf base[2] = {{0}, {0}};
    make_stream(&base[0], "YUV4MPEG2 W6 H4 F25:1 It A1:1 C420p10 XCOLORRANGE=LIMITED\n", 6, 4, 3, 2,
                3, 10, 3);
    make_stream(&base[1], "YUV4MPEG2 W5 H3 C422 Ip\n", 5, 3, 3, 3, 3, 8, 3);
    uint64_t rs = 12345;
    int frames = 0, errors = 0;
    /* inputs live in a memfd, opened by the reader through /proc/self/fd */
    int mfd = memfd_create("rv_y4m_fuzz", MFD_CLOEXEC);
    assert_true(mfd >= 0);
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
    for (int it = 0; it < 3000; it++) {
        const buf *b = &base[it & 1];
        size_t n = b->n;
        unsigned char *d = malloc(n + 16);
        memcpy(d, b->p, n);
        int edits = 1 + (int)(rv_test_rand(&rs) % 4);
        for (int e = 0; e < edits; e++) {
            uint64_t r = rv_test_rand(&rs);
            size_t at = (size_t)(r >> 8) % (r & 1 ? 60 : n); /* favour the headers */
            if (at >= n)
                at = n - 1;
            switch ((r >> 4) % 4) {
            case 0: d[at] = (unsigned char)(r >> 40); break;                    /* any byte */
            case 1: d[at] = (unsigned char)" \n:0123456789WHFCIAX"[(r >> 40) % 21]; break;
            case 2: n = at; break;                                              /* truncate */
            default: memmove(d + at + 1, d + at, n - at); d[at] = ' '; n++; break; /* insert */
            }
            if (n == 0)
                break;
        }
        assert_int_equal(ftruncate(mfd, 0), 0);
        assert_int_equal(pwrite(mfd, d, n, 0), (ssize_t)n);
        free(d);
        RV_Source *src = NULL;
        int err = rv_source_open_y4m(ctx, path, NULL, &src);
        if (err < 0) {
            assert_true(err == RV_EBADMSG || err == RV_ENOSYS || err == RV_EOVERFLOW);
            assert_null(src);
            errors++;
            continue;
        }
        RV_VideoInfo vi;
        rv_source_info(src, &vi);
        if ((long long)vi.width * vi.height <= (1 << 16)) {
            RV_Image *img = NULL;
            assert_int_equal(rv_image_create(ctx, vi.width, vi.height, vi.format, &img), 0);
            while ((err = rv_source_read(src, img, NULL, 0)) == 0)
                frames++;
            assert_true(err == RV_EPIPE || err == RV_EBADMSG);
            rv_image_destroy(&img);
        }
        rv_source_close(&src);
    }
    printf("fuzz: 3000 damaged streams, %d rejected at the header, %d frames read\n", errors,
           frames);
    assert_true(errors > 50 && frames > 50); /* both paths were exercised */
    close(mfd);
    free(base[0].p);
    free(base[1].p);
}

/* ---------------------------------------------------------------------- */
/* Writer                                                                   */
/* ---------------------------------------------------------------------- */

static void fill_random(RV_Image *img, int depth, uint64_t seed)
{
    uint64_t st = seed * 0x9E3779B97F4A7C15ULL + 7;
    for (int pl = 0; pl < rv_image_planes(img); pl++) {
        ptrdiff_t pitch;
        unsigned char *p = rv_image_write(img, pl, &pitch);
        int pw = rv_image_plane_width(img, pl), ph = rv_image_plane_height(img, pl);
        for (int y = 0; y < ph; y++)
            for (int x = 0; x < pw; x++) {
                uint64_t r = rv_test_rand(&st);
                if (depth > 8)
                    ((uint16_t *)(p + y * pitch))[x] = (uint16_t)(r & ((1u << depth) - 1));
                else
                    p[y * pitch + x] = (unsigned char)r;
            }
    }
}

static void assert_images_equal(RV_Image *a, RV_Image *b)
{
    assert_int_equal(rv_image_format(a), rv_image_format(b));
    for (int pl = 0; pl < rv_image_planes(a); pl++) {
        ptrdiff_t pa, pb;
        const unsigned char *x = rv_image_read(a, pl, &pa), *y = rv_image_read(b, pl, &pb);
        int bytes = rv_format_info(rv_image_format(a))->sample_bytes;
        for (int r = 0; r < rv_image_plane_height(a, pl); r++)
            assert_memory_equal(x + r * pa, y + r * pb, (size_t)rv_image_plane_width(a, pl) * bytes);
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    static const struct {
        RV_Format fmt;
        int depth;
        const char *ctag;
    } cases[] = {
        {RV_FMT_YUV420P8, 8, "C420jpeg"}, {RV_FMT_YUV444P8, 8, "C444"},
        {RV_FMT_GRAY8, 8, "Cmono"},       {RV_FMT_YUV420P16, 10, "C420p10"},
        {RV_FMT_YUV444P16, 12, "C444p12"}, {RV_FMT_GRAY16, 16, "Cmono16"},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        RV_VideoInfo info = {0};
        info.width = 13;
        info.height = 9;
        info.format = cases[c].fmt;
        info.fps_num = 24000;
        info.fps_den = 1001;
        info.bit_depth = cases[c].depth;
        char path[400];
        snprintf(path, sizeof(path), "%s/rt%zu.y4m", tmpdir, c);
        RV_Sink *sink = NULL;
        assert_int_equal(rv_sink_open_y4m(ctx, path, &info, &sink), 0);
        assert_int_equal(rv_sink_repeats_skipped(sink), 0);
        RV_Image *in[4];
        for (int k = 0; k < 4; k++) {
            assert_int_equal(rv_image_create(ctx, 13, 9, info.format, &in[k]), 0);
            fill_random(in[k], cases[c].depth, (uint64_t)(k + 10 * c));
            assert_int_equal(rv_sink_write(sink, in[k], NULL), 0);
        }
        assert_int_equal(rv_sink_frames(sink), 4);
        rv_sink_close(&sink);
        assert_null(sink);
        /* the header says what we expect */
        FILE *f = fopen(path, "rb");
        char line[200];
        assert_non_null(fgets(line, sizeof(line), f));
        fclose(f);
        assert_non_null(strstr(line, cases[c].ctag));
        assert_non_null(strstr(line, "F24000:1001"));
        RV_Source *src = NULL;
        assert_int_equal(rv_source_open_y4m(ctx, path, NULL, &src), 0);
        RV_VideoInfo back;
        rv_source_info(src, &back);
        assert_int_equal(back.format, info.format);
        assert_int_equal(back.bit_depth, info.bit_depth);
        RV_Image *out = NULL;
        assert_int_equal(rv_image_create(ctx, 13, 9, info.format, &out), 0);
        for (int k = 0; k < 4; k++) {
            assert_int_equal(rv_source_read(src, out, NULL, 0), 0);
            assert_images_equal(in[k], out);
            rv_image_destroy(&in[k]);
        }
        assert_int_equal(rv_source_read(src, out, NULL, 0), RV_EPIPE);
        rv_image_destroy(&out);
        rv_source_close(&src);
    }
}

/* BT.601 limited-range R'G'B' (0..255) -> Y'CbCr from the definition. */
static void ref_rgb_to_yuv(const unsigned char *p, double *y, double *cb, double *cr)
{
    const double kr = 0.299, kb = 0.114, kg = 1.0 - kr - kb;
    double r = p[0] / 255.0, g = p[1] / 255.0, b = p[2] / 255.0;
    double ey = kr * r + kg * g + kb * b;
    *y = 16 + 219 * ey;
    *cb = 128 + 224 * (b - ey) / (2 * (1 - kb));
    *cr = 128 + 224 * (r - ey) / (2 * (1 - kr));
}

static void test_rgba_to_yuv(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        RV_Format to = mode ? RV_FMT_YUV444P8 : RV_FMT_YUV420P8;
        const int w = 31, h = 17; /* odd: edge chroma samples average fewer pixels */
        RV_VideoInfo info = {0};
        info.width = w;
        info.height = h;
        info.format = RV_FMT_RGBA8;
        RV_Image *rgb = NULL;
        assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &rgb), 0);
        rv_test_fill_random(rgb, 5);
        {   /* include the extremes */
            unsigned char *p = rv_image_write(rgb, 0, NULL);
            memset(p, 255, 8);
            memset(p + 8, 0, 8);
        }
        char path[400];
        snprintf(path, sizeof(path), "%s/rgb%d.y4m", tmpdir, mode);
        RV_Sink *sink = NULL;
        assert_int_equal(rv_sink_open_y4m_ex(ctx, path, &info, to, &sink), 0);
        assert_int_equal(rv_sink_write(sink, rgb, NULL), 0);
        rv_sink_close(&sink);
        RV_Source *src = NULL;
        assert_int_equal(rv_source_open_y4m(ctx, path, NULL, &src), 0);
        RV_Image *yuv = NULL;
        assert_int_equal(rv_image_create(ctx, w, h, to, &yuv), 0);
        assert_int_equal(rv_source_read(src, yuv, NULL, 0), 0);
        rv_source_close(&src);
        ptrdiff_t pp, py, pu, pv;
        const unsigned char *P = rv_image_read(rgb, 0, &pp);
        const unsigned char *Y = rv_image_read(yuv, 0, &py);
        const unsigned char *U = rv_image_read(yuv, 1, &pu);
        const unsigned char *V = rv_image_read(yuv, 2, &pv);
        double worst = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                double ry, rb, rr;
                ref_rgb_to_yuv(P + y * pp + 4 * x, &ry, &rb, &rr);
                worst = fmax(worst, fabs(Y[y * py + x] - ry));
            }
        int s = mode ? 0 : 1;
        for (int cy = 0; cy < (h + s) >> s; cy++)
            for (int cx = 0; cx < (w + s) >> s; cx++) {
                double sb = 0, sr = 0;
                int n = 0;
                for (int y = cy << s; y <= (cy << s) + s && y < h; y++)
                    for (int x = cx << s; x <= (cx << s) + s && x < w; x++) {
                        double ry, rb, rr;
                        ref_rgb_to_yuv(P + y * pp + 4 * x, &ry, &rb, &rr);
                        sb += rb, sr += rr, n++;
                    }
                worst = fmax(worst, fabs(U[cy * pu + cx] - sb / n));
                worst = fmax(worst, fabs(V[cy * pv + cx] - sr / n));
            }
        assert_true(worst <= 1.0);
        rv_image_destroy(&rgb);
        rv_image_destroy(&yuv);
    }
}

/* "-": the writer on standard output (redirected to a file here). */
static void test_stdout(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof(path), "%s/stdout.y4m", tmpdir);
    RV_VideoInfo info = {0};
    info.width = 9, info.height = 7, info.format = RV_FMT_YUV444P8, info.fps_num = 5;
    info.fps_den = 1;
    RV_Image *in[3];
    fflush(stdout);
    int saved = dup(1);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    close(fd);
    RV_Sink *sink = NULL;
    int err = rv_sink_open_y4m(ctx, "-", &info, &sink);
    for (int k = 0; k < 3 && err == 0; k++) {
        rv_image_create(ctx, 9, 7, RV_FMT_YUV444P8, &in[k]);
        fill_random(in[k], 8, (uint64_t)k + 77);
        err = rv_sink_write(sink, in[k], NULL);
    }
    rv_sink_close(&sink);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    assert_int_equal(err, 0);
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_y4m(ctx, path, NULL, &src), 0);
    RV_Image *out = NULL;
    assert_int_equal(rv_image_create(ctx, 9, 7, RV_FMT_YUV444P8, &out), 0);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(rv_source_read(src, out, NULL, 0), 0);
        assert_images_equal(in[k], out);
        rv_image_destroy(&in[k]);
    }
    assert_int_equal(rv_source_read(src, out, NULL, 0), RV_EPIPE);
    rv_image_destroy(&out);
    rv_source_close(&src);
}

static void test_writer_errors(void **state)
{
    (void)state;
    RV_VideoInfo info = {0};
    info.width = 8;
    info.height = 8;
    info.format = RV_FMT_GRAYF32;
    RV_Sink *sink = NULL;
    char path[400];
    snprintf(path, sizeof(path), "%s/e.y4m", tmpdir);
    assert_int_equal(rv_sink_open_y4m(ctx, path, &info, &sink), RV_ENOSYS);
    assert_null(sink);
    info.format = RV_FMT_RGBA8;
    assert_int_equal(rv_sink_open_y4m_ex(ctx, path, &info, RV_FMT_GRAY8, &sink), RV_EINVAL);
    /* a path that cannot be created: RV_ENOENT when a directory on it does not
     * exist (as rv_image_write_file and the reader), RV_EIO otherwise (here: a
     * directory); the message names the path and the system's reason */
    info.format = RV_FMT_YUV420P8;
    assert_int_equal(rv_sink_open_y4m(ctx, "/nonexistent/dir/x.y4m", &info, &sink), RV_ENOENT);
    assert_null(sink);
    assert_non_null(strstr(rv_context_error(ctx), "/nonexistent/dir/x.y4m"));
    assert_non_null(strstr(rv_context_error(ctx), strerror(ENOENT)));
    assert_int_equal(rv_sink_open_y4m(ctx, tmpdir, &info, &sink), RV_EIO);
    assert_null(sink);
    assert_int_equal(rv_sink_open_y4m(ctx, path, &info, &sink), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, 8, 4, RV_FMT_YUV420P8, &img), 0);
    assert_int_equal(rv_sink_write(sink, img, NULL), RV_EINVAL); /* wrong size */
    rv_image_destroy(&img);
    rv_sink_close(&sink);
    /* a full disk */
    if (access("/dev/full", W_OK) == 0) {
        assert_int_equal(rv_sink_open_y4m(ctx, "/dev/full", &info, &sink), 0);
        assert_int_equal(rv_image_create(ctx, 8, 8, RV_FMT_YUV420P8, &img), 0);
        assert_int_equal(rv_sink_write(sink, img, NULL), RV_EIO);
        rv_image_destroy(&img);
        rv_sink_close(&sink);
    }
}

/* Realtime: frames come at the file's rate; a slow caller skips to the frame due. */
static void test_realtime(void **state)
{
    (void)state;
    buf b = {0};
    make_stream(&b, "YUV4MPEG2 W8 H4 F50:1 Cmono\n", 8, 4, 0, 0, 1, 8, 30);
    const char *path = write_file("rt.y4m", b.p, b.n);
    RV_Y4MSettings s;
    rv_y4m_settings_default(&s);
    s.realtime = 1;
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_y4m(ctx, path, &s, &src), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, 8, 4, RV_FMT_GRAY8, &img), 0);
    /* On a loaded machine the test itself may stall and frames get dropped;
     * the invariant is: the frame delivered by read n is frame n + dropped,
     * and its pts is exactly that frame's slot, 20 ms apart. */
    double t0 = now_ms();
    long long pts0 = 0, pts, idx = 0;
    for (int k = 0; k < 6; k++) {
        assert_int_equal(rv_source_read(src, img, &pts, 1000), 0);
        idx = k + rv_source_dropped(src);
        if (k == 0)
            pts0 = pts;
        check_frame(img, 0, 0, 1, 8, (int)idx, 0);
        assert_true(llabs(pts - pts0 - idx * 20000000LL) < 1000000LL);
    }
    double el = now_ms() - t0;
    assert_true(el >= 20.0 * (double)idx - 5.0); /* frame idx is due idx * 20 ms after frame 0 */
    /* the caller falls behind by >= 5 frames: the frames it missed are dropped */
    long long before = rv_source_dropped(src);
    struct timespec nap = {0, 105 * 1000000L};
    nanosleep(&nap, NULL);
    assert_int_equal(rv_source_read(src, img, &pts, 1000), 0);
    long long dropped = rv_source_dropped(src);
    assert_true(dropped - before >= 4);
    check_frame(img, 0, 0, 1, 8, (int)(6 + dropped), 0);
    assert_true(llabs(pts - pts0 - (6 + dropped) * 20000000LL) < 1000000LL);
    rv_image_destroy(&img);
    rv_source_close(&src);
    free(b.p);

    /* 2 fps: a read with a 20 ms limit before the next frame is due is RV_EAGAIN
     * and consumes nothing */
    b = (buf){0};
    make_stream(&b, "YUV4MPEG2 W8 H4 F2:1 Cmono\n", 8, 4, 0, 0, 1, 8, 3);
    path = write_file("rt2.y4m", b.p, b.n);
    assert_int_equal(rv_source_open_y4m(ctx, path, &s, &src), 0);
    assert_int_equal(rv_image_create(ctx, 8, 4, RV_FMT_GRAY8, &img), 0);
    assert_int_equal(rv_source_read(src, img, NULL, 1000), 0);
    t0 = now_ms();
    assert_int_equal(rv_source_read(src, img, NULL, 20), RV_EAGAIN);
    el = now_ms() - t0;
    assert_true(el >= 19.0 && el < 400.0);
    assert_int_equal(rv_source_read(src, img, NULL, 1000), 0);
    check_frame(img, 0, 0, 1, 8, 1, 0);
    assert_int_equal(rv_source_dropped(src), 0);
    rv_image_destroy(&img);
    rv_source_close(&src);
    free(b.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_variants),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_truncated_last_frame),
        cmocka_unit_test(test_fuzz),
        cmocka_unit_test(test_pipe_stdin),
        cmocka_unit_test(test_pipe_pauses),
        cmocka_unit_test(test_pipe_ends_mid_frame),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_rgba_to_yuv),
        cmocka_unit_test(test_stdout),
        cmocka_unit_test(test_writer_errors),
        cmocka_unit_test(test_realtime),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
