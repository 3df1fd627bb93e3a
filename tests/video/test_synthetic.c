/*
 * test_synthetic.c - the synthetic test pattern: deterministic per frame
 * index, moving, the same picture in every format (checked against the
 * definitions: BT.601 limited-range YUV, full-range luma for gray, v * 257
 * for 16 bits), frame limit, realtime pacing, timeouts and dropping, the
 * null sink, NULL handles and a NULL context to the open functions (RV_EINVAL,
 * nothing printed).
 */
#include "rv_test.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ravioli/video.h>

static RV_Context *ctx;

static int setup(void **state)
{
    (void)state;
    ctx = rv_test_cpu_context(1);
    return 0;
}
static int teardown(void **state)
{
    (void)state;
    rv_context_destroy(&ctx);
    return 0;
}

static RV_Source *open_synth(int w, int h, RV_Format fmt, long long frames, int realtime, int fps)
{
    RV_SyntheticSettings s;
    rv_synthetic_settings_default(&s);
    s.width = w;
    s.height = h;
    s.format = fmt;
    s.frames = frames;
    s.realtime = realtime;
    s.fps_num = fps;
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_synthetic(ctx, &s, &src), 0);
    return src;
}

static int images_equal(RV_Image *a, RV_Image *b)
{
    for (int pl = 0; pl < rv_image_planes(a); pl++) {
        ptrdiff_t pa, pb;
        const unsigned char *x = rv_image_read(a, pl, &pa), *y = rv_image_read(b, pl, &pb);
        size_t row = (size_t)rv_image_plane_width(a, pl) *
                     (size_t)rv_format_info(rv_image_format(a))->sample_bytes;
        for (int r = 0; r < rv_image_plane_height(a, pl); r++)
            if (memcmp(x + r * pa, y + r * pb, row) != 0)
                return 0;
    }
    return 1;
}

static void test_defaults(void **state)
{
    (void)state;
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_synthetic(ctx, NULL, &src), 0);
    RV_VideoInfo info;
    rv_source_info(src, &info);
    assert_int_equal(info.width, 640);
    assert_int_equal(info.height, 480);
    assert_int_equal(info.format, RV_FMT_RGBA8);
    assert_int_equal(info.fps_num, 30);
    assert_int_equal(info.fps_den, 1);
    assert_int_equal(info.frames, -1);
    rv_source_close(&src);
    RV_SyntheticSettings s;
    rv_synthetic_settings_default(&s);
    s.width = 0;
    assert_int_equal(rv_source_open_synthetic(ctx, &s, &src), RV_EINVAL);
    rv_synthetic_settings_default(&s);
    s.fps_den = 0;
    assert_int_equal(rv_source_open_synthetic(ctx, &s, &src), RV_EINVAL);
    rv_synthetic_settings_default(&s);
    s.format = (RV_Format)99;
    assert_int_equal(rv_source_open_synthetic(ctx, &s, &src), RV_EINVAL);
    assert_null(src);
}

static const RV_Format all_formats[] = {RV_FMT_RGBA8,     RV_FMT_RGBA16,    RV_FMT_GRAY8,
                                        RV_FMT_GRAY16,    RV_FMT_GRAYF32,   RV_FMT_YUV420P8,
                                        RV_FMT_YUV420P16, RV_FMT_YUV444P8,  RV_FMT_YUV444P16};

/* Two sources with equal settings give identical frames; consecutive frames differ. */
static void test_deterministic(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof(all_formats) / sizeof(all_formats[0]); f++) {
        RV_Format fmt = all_formats[f];
        RV_Source *a = open_synth(77, 45, fmt, 8, 0, 30), *b = open_synth(77, 45, fmt, 8, 0, 30);
        RV_Image *x = NULL, *y = NULL, *prev = NULL;
        assert_int_equal(rv_image_create(ctx, 77, 45, fmt, &x), 0);
        assert_int_equal(rv_image_create(ctx, 77, 45, fmt, &y), 0);
        assert_int_equal(rv_image_create(ctx, 77, 45, fmt, &prev), 0);
        for (int k = 0; k < 8; k++) {
            assert_int_equal(rv_source_read(a, x, NULL, 0), 0);
            assert_int_equal(rv_source_read(b, y, NULL, 0), 0);
            assert_true(images_equal(x, y));
            if (k)
                assert_false(images_equal(x, prev)); /* it moves */
            rv_image_copy(prev, x);
        }
        assert_int_equal(rv_source_read(a, x, NULL, 0), RV_EPIPE); /* 8 frames asked */
        rv_image_destroy(&x);
        rv_image_destroy(&y);
        rv_image_destroy(&prev);
        rv_source_close(&a);
        rv_source_close(&b);
    }
}

/* The pattern's content, checked against its description. */
static void test_pattern_content(void **state)
{
    (void)state;
    const int w = 320, h = 240;
    RV_Source *src = open_synth(w, h, RV_FMT_RGBA8, -1, 0, 30);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &img), 0);
    static const unsigned char bars[8][3] = {{191, 191, 191}, {191, 191, 0}, {0, 191, 191},
                                             {0, 191, 0},     {191, 0, 191}, {191, 0, 0},
                                             {0, 0, 191},     {0, 0, 0}};
    int box_x[3], box_y[3];
    for (int k = 0; k < 10; k++) /* from frame 10 on, the box is clear of the counter */
        assert_int_equal(rv_source_read(src, img, NULL, 0), 0);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(rv_source_read(src, img, NULL, 0), 0);
        ptrdiff_t pitch;
        const unsigned char *p = rv_image_read(img, 0, &pitch);
        /* bars: row just above the split, at each bar's centre, unless the box is there */
        int y = h * 2 / 3 - 1, nbar = 0;
        for (int i = 0; i < 8; i++) {
            const unsigned char *q = p + y * pitch + 4 * (i * w / 8 + w / 16);
            if (memcmp(q, bars[i], 3) == 0)
                nbar++;
            else
                assert_true(q[0] == 255 && q[1] == 255 && q[2] == 255); /* the box */
        }
        assert_true(nbar >= 7);
        /* the box: the white 30x30 square (min(w,h)/8) found away from the digits */
        int bx = -1, by = -1;
        for (int yy = 20; yy < h && bx < 0; yy++)
            for (int xx = 0; xx + 30 <= w; xx++) {
                const unsigned char *q = p + yy * pitch + 4 * xx;
                if (q[0] == 255 && q[1] == 255 && q[2] == 255 && q[4 * 29] == 255 &&
                    q[4 * 29 + 1] == 255 && yy + 29 < h && p[(yy + 29) * pitch + 4 * xx] == 255) {
                    bx = xx, by = yy;
                    break;
                }
            }
        box_x[k] = bx, box_y[k] = by;
        /* the counter plate: white with black strokes, top left */
        int black = 0;
        for (int yy = 0; yy < 9 * 2; yy++)
            for (int xx = 0; xx < 8 * 2; xx++)
                black += p[yy * pitch + 4 * xx] == 0;
        assert_true(black > 4);
        for (int i = 0; i < w * h; i++)
            assert_int_equal(p[(i / w) * pitch + 4 * (i % w) + 3], 255);
    }
    /* the box moves 4 px right and 3 px down a frame (from the corner at k = 0) */
    assert_int_equal(box_x[0], 40);
    assert_int_equal(box_y[0], 30);
    assert_true(box_x[0] >= 0 && box_x[1] >= 0 && box_x[2] >= 0);
    assert_int_equal(box_x[1] - box_x[0], 4);
    assert_int_equal(box_x[2] - box_x[1], 4);
    assert_int_equal(box_y[2] - box_y[1], 3);
    rv_image_destroy(&img);
    rv_source_close(&src);
}

/* The same frame in another format is the RGBA8 frame converted by the definitions. */
static void test_formats_agree(void **state)
{
    (void)state;
    const int w = 65, h = 33;
    RV_Source *ref = open_synth(w, h, RV_FMT_RGBA8, -1, 0, 30);
    RV_Image *rgba = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &rgba), 0);
    for (int k = 0; k < 3; k++)
        assert_int_equal(rv_source_read(ref, rgba, NULL, 0), 0); /* frame 2 */
    ptrdiff_t rp;
    const unsigned char *P = rv_image_read(rgba, 0, &rp);
    for (size_t f = 1; f < sizeof(all_formats) / sizeof(all_formats[0]); f++) {
        RV_Format fmt = all_formats[f];
        const RV_FormatInfo *fi = rv_format_info(fmt);
        RV_Source *src = open_synth(w, h, fmt, -1, 0, 30);
        RV_Image *img = NULL;
        assert_int_equal(rv_image_create(ctx, w, h, fmt, &img), 0);
        for (int k = 0; k < 3; k++)
            assert_int_equal(rv_source_read(src, img, NULL, 0), 0);
        double worst = 0;
        ptrdiff_t pitch[3];
        const unsigned char *pl[3] = {NULL, NULL, NULL};
        for (int i = 0; i < fi->planes; i++)
            pl[i] = rv_image_read(img, i, &pitch[i]);
        const double scale = fi->sample_bytes == 2 ? 257.0 : 1.0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const unsigned char *q = P + y * rp + 4 * x;
                double r = q[0], g = q[1], b = q[2];
                double ey = (0.299 * r + 0.587 * g + 0.114 * b) / 255.0;
                switch (fmt) {
                case RV_FMT_RGBA16:
                    for (int c = 0; c < 4; c++)
                        assert_int_equal(((const uint16_t *)(pl[0] + y * pitch[0]))[4 * x + c],
                                         q[c] * 257);
                    break;
                case RV_FMT_GRAY8:
                    worst = fmax(worst, fabs(pl[0][y * pitch[0] + x] - 255 * ey));
                    break;
                case RV_FMT_GRAY16:
                    worst = fmax(worst,
                                 fabs(((const uint16_t *)(pl[0] + y * pitch[0]))[x] / 257.0 - 255 * ey));
                    break;
                case RV_FMT_GRAYF32:
                    worst = fmax(worst, 255 * fabs(((const float *)(pl[0] + y * pitch[0]))[x] - ey));
                    break;
                default: { /* YUV: luma here, chroma below */
                    double Y = fi->sample_bytes == 2
                                   ? ((const uint16_t *)(pl[0] + y * pitch[0]))[x] / scale
                                   : pl[0][y * pitch[0] + x];
                    worst = fmax(worst, fabs(Y - (16 + 219 * ey)));
                }
                }
            }
        if (fi->planes == 3) {
            const int sx = fi->chroma_shift_x, sy = fi->chroma_shift_y;
            for (int cy = 0; cy < (h + sy) >> sy; cy++)
                for (int cx = 0; cx < (w + sx) >> sx; cx++) {
                    double sb = 0, sr = 0;
                    int n = 0;
                    for (int y = cy << sy; y <= (cy << sy) + sy && y < h; y++)
                        for (int x = cx << sx; x <= (cx << sx) + sx && x < w; x++) {
                            const unsigned char *q = P + y * rp + 4 * x;
                            double ey = (0.299 * q[0] + 0.587 * q[1] + 0.114 * q[2]) / 255.0;
                            sb += 128 + 224 * (q[2] / 255.0 - ey) / 1.772;
                            sr += 128 + 224 * (q[0] / 255.0 - ey) / 1.402;
                            n++;
                        }
                    double U, V;
                    if (fi->sample_bytes == 2) {
                        U = ((const uint16_t *)(pl[1] + cy * pitch[1]))[cx] / scale;
                        V = ((const uint16_t *)(pl[2] + cy * pitch[2]))[cx] / scale;
                    } else {
                        U = pl[1][cy * pitch[1] + cx];
                        V = pl[2][cy * pitch[2] + cx];
                    }
                    worst = fmax(worst, fmax(fabs(U - sb / n), fabs(V - sr / n)));
                }
        }
        if (worst > 1.0)
            fail_msg("%s: max deviation %.3f from the definition", fi->name, worst);
        rv_image_destroy(&img);
        rv_source_close(&src);
    }
    rv_image_destroy(&rgba);
    rv_source_close(&ref);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_realtime(void **state)
{
    (void)state;
    RV_Source *src = open_synth(32, 24, RV_FMT_GRAY8, 40, 1, 100);
    RV_Image *img = NULL, *ref = NULL;
    assert_int_equal(rv_image_create(ctx, 32, 24, RV_FMT_GRAY8, &img), 0);
    assert_int_equal(rv_image_create(ctx, 32, 24, RV_FMT_GRAY8, &ref), 0);
    /* invariant under any scheduling delay: read n delivers frame n + dropped
     * and its pts is exactly that frame's slot */
    double t0 = now_ms();
    long long pts0 = 0, pts = 0, idx = 0;
    for (int k = 0; k < 6; k++) {
        assert_int_equal(rv_source_read(src, img, &pts, 1000), 0);
        idx = k + rv_source_dropped(src);
        if (!k)
            pts0 = pts;
        assert_true(llabs(pts - pts0 - idx * 10000000LL) < 1000000LL);
    }
    assert_true(now_ms() - t0 >= 10.0 * (double)idx - 1.0);
    /* slow caller: frames whose time passed are dropped, the due one comes */
    long long before = rv_source_dropped(src);
    struct timespec nap = {0, 35 * 1000000L};
    nanosleep(&nap, NULL);
    assert_int_equal(rv_source_read(src, img, &pts, 1000), 0);
    long long d = rv_source_dropped(src);
    assert_true(d - before >= 2 || 6 + d == 39); /* (unless the end clamped it) */
    RV_Source *fast = open_synth(32, 24, RV_FMT_GRAY8, 40, 0, 100);
    if (6 + d < 40) { /* it is frame 6 + d */
        for (long long k = 0; k <= 6 + d; k++)
            assert_int_equal(rv_source_read(fast, ref, NULL, 0), 0);
        assert_true(images_equal(img, ref));
        assert_true(llabs(pts - pts0 - (6 + d) * 10000000LL) < 1000000LL);
    }
    rv_source_close(&fast);
    /* the end of a limited stream: every frame is delivered or dropped once */
    int n = 7, err;
    while ((err = rv_source_read(src, img, NULL, 1000)) == 0)
        n++;
    assert_int_equal(err, RV_EPIPE);
    assert_int_equal(n + rv_source_dropped(src), 40);
    rv_source_close(&src);
    /* timeout shorter than the frame interval: RV_EAGAIN */
    src = open_synth(32, 24, RV_FMT_GRAY8, -1, 1, 2);
    assert_int_equal(rv_source_read(src, img, NULL, 1000), 0);
    t0 = now_ms();
    assert_int_equal(rv_source_read(src, img, NULL, 20), RV_EAGAIN);
    assert_true(now_ms() - t0 >= 19.0);
    rv_source_close(&src);
    rv_image_destroy(&img);
    rv_image_destroy(&ref);
}

static void test_null_sink(void **state)
{
    (void)state;
    RV_Sink *sink = NULL;
    assert_int_equal(rv_sink_open_null(ctx, &sink), 0);
    assert_int_equal(rv_sink_repeats_skipped(sink), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, 4, 4, RV_FMT_RGBA8, &img), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(rv_sink_write(sink, img, NULL), 0);
    assert_int_equal(rv_sink_write(sink, NULL, NULL), RV_EINVAL);
    assert_int_equal(rv_sink_frames(sink), 5);
    /* the first frame fixed size and format: another one is refused */
    RV_Image *other = NULL;
    assert_int_equal(rv_image_create(ctx, 4, 4, RV_FMT_GRAY8, &other), 0);
    assert_int_equal(rv_sink_write(sink, other, NULL), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "null sink: frame is 4x4 gray8, the stream is 4x4 rgba8"));
    rv_image_destroy(&other);
    assert_int_equal(rv_image_create(ctx, 5, 4, RV_FMT_RGBA8, &other), 0);
    assert_int_equal(rv_sink_write(sink, other, NULL), RV_EINVAL);
    rv_image_destroy(&other);
    assert_int_equal(rv_sink_frames(sink), 5);
    rv_sink_close(&sink);
    assert_null(sink);
    rv_sink_close(&sink); /* NULL is fine */
    rv_image_destroy(&img);
}

/* NULL handles: RV_EINVAL (0 for the counters), silently - nothing on
 * stderr (the library does not print; there is no context to log to) and no
 * message attached to a context. stderr goes to a temporary file meanwhile. */
static void test_null_handles_silent(void **state)
{
    (void)state;
    rv_test_stderr se;
    rv_test_stderr_begin(&se);

    RV_Image *img = NULL;
    const int made = rv_image_create(ctx, 4, 4, RV_FMT_RGBA8, &img);
    char before[1024];
    snprintf(before, sizeof(before), "%s", rv_context_error(ctx));
    RV_VideoInfo info;
    long long pts = 0;
    const int r[] = {
        rv_source_info(NULL, &info),   rv_source_info(NULL, NULL),
        rv_source_read(NULL, img, &pts, 0), rv_source_read(NULL, NULL, NULL, -1),
        rv_sink_write(NULL, img, NULL), rv_sink_write(NULL, NULL, NULL),
    };
    const long long dropped = rv_source_dropped(NULL), frames = rv_sink_frames(NULL);
    const int repeats = rv_sink_repeats_skipped(NULL);
    RV_Source *src = NULL;
    RV_Sink *sink = NULL;
    rv_source_close(&src);
    rv_source_close(NULL);
    rv_sink_close(&sink);
    rv_sink_close(NULL);

    char *said = rv_test_stderr_end(&se);
    if (said[0])
        fail_msg("NULL handles printed %zu bytes on stderr: %s", strlen(said), said);
    free(said);

    assert_int_equal(made, 0);
    for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
        assert_int_equal(r[i], RV_EINVAL);
    assert_int_equal(dropped, 0);
    assert_int_equal(frames, 0);
    assert_int_equal(repeats, 0);
    assert_string_equal(rv_context_error(ctx), before); /* nothing attached to a context */
    assert_int_equal(pts, 0);

    /* a NULL info with a source: RV_EINVAL, with a message on the source's context */
    RV_Source *s = open_synth(16, 8, RV_FMT_RGBA8, 1, 0, 30);
    assert_int_equal(rv_source_info(s, NULL), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "info is NULL"));
    rv_source_close(&s);
    rv_image_destroy(&img);
}

/* Every open function needs a context (video.h): a NULL ctx is RV_EINVAL,
 * silently (there is nowhere to put a message; nothing on stderr), with
 * *out set to NULL and nothing opened or created - even where the same
 * call with a context succeeds (a valid Y4M file, a null sink, an output
 * file that can be created). */
static void test_null_context(void **state)
{
    (void)state;
    char dir[] = "/tmp/rv_null_ctx_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char in[4096], outp[4096];
    snprintf(in, sizeof(in), "%s/in.y4m", dir);
    snprintf(outp, sizeof(outp), "%s/out.y4m", dir);
    static const char y4m[] = "YUV4MPEG2 W4 H2 F25:1 C420jpeg\nFRAME\n0123456789AB";
    FILE *f = fopen(in, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(y4m, 1, sizeof(y4m) - 1, f), sizeof(y4m) - 1);
    assert_int_equal(fclose(f), 0);
    /* the same calls with the context succeed */
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_y4m(ctx, in, NULL, &src), 0);
    rv_source_close(&src);
    RV_Sink *sink = NULL;
    assert_int_equal(rv_sink_open_null(ctx, &sink), 0);
    rv_sink_close(&sink);

    char before[1024];
    snprintf(before, sizeof(before), "%s", rv_context_error(ctx));
    rv_test_stderr se;
    rv_test_stderr_begin(&se);

    RV_VideoInfo info = {0};
    info.width = 4, info.height = 2, info.format = RV_FMT_YUV420P8;
    info.fps_num = 25, info.fps_den = 1;
    RV_SyntheticSettings ss;
    rv_synthetic_settings_default(&ss);
    RV_V4L2Settings vs;
    rv_v4l2_settings_default(&vs);
    vs.device = "/dev/video-ravioli-test-none";
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    RV_Source *sources[3];
    RV_Sink *sinks[5];
    for (int i = 0; i < 3; i++)
        sources[i] = (RV_Source *)&info; /* must be reset to NULL */
    for (int i = 0; i < 5; i++)
        sinks[i] = (RV_Sink *)&info;
    const int r[] = {
        rv_source_open_y4m(NULL, in, NULL, &sources[0]),
        rv_source_open_synthetic(NULL, &ss, &sources[1]),
        rv_source_open_v4l2(NULL, &vs, &sources[2]),
        rv_sink_open_null(NULL, &sinks[0]),
        rv_sink_open_y4m(NULL, outp, &info, &sinks[1]),
        rv_sink_open_y4m_ex(NULL, outp, &info, RV_FMT_YUV444P8, &sinks[2]),
        rv_sink_open_sdl(NULL, "t", &info, &sinks[3]),
        rv_sink_open_sdl_ex(NULL, NULL, &info, &sinks[4]),
        /* and without out */
        rv_source_open_y4m(NULL, in, NULL, NULL),
        rv_sink_open_null(NULL, NULL),
        rv_sink_open_y4m(NULL, outp, &info, NULL),
    };

    char *said = rv_test_stderr_end(&se);
    if (said[0])
        fail_msg("a NULL context printed on stderr: %s", said);
    free(said);

    for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
        if (r[i] != RV_EINVAL)
            fail_msg("call %zu with a NULL context returned %d (%s), not RV_EINVAL", i, r[i],
                     rv_strerror(r[i]));
    for (int i = 0; i < 3; i++)
        assert_null(sources[i]);
    for (int i = 0; i < 5; i++)
        assert_null(sinks[i]);
    struct stat st;
    assert_int_equal(stat(outp, &st), -1); /* the Y4M output was not created */
    assert_string_equal(rv_context_error(ctx), before);
    remove(in);
    assert_int_equal(rmdir(dir), 0);
}

/* Parts left out of the build answer RV_ENOSYS with a message. */
static void test_optional_parts(void **state)
{
    (void)state;
    RV_V4L2Settings vs;
    rv_v4l2_settings_default(&vs);
    assert_string_equal(vs.device, "/dev/video0");
    assert_int_equal(vs.buffers, 4);
    assert_int_equal(vs.timeout_ms, 1000);
    vs.device = "/dev/video-ravioli-test-none";
    RV_Source *src = (RV_Source *)ctx;
    int err = rv_source_open_v4l2(ctx, &vs, &src);
    assert_null(src);
#ifdef RV_TEST_HAVE_V4L2
    assert_int_equal(err, RV_ENODEV);
#else
    assert_int_equal(err, RV_ENOSYS);
    assert_non_null(strstr(rv_context_error(ctx), "libv4l2"));
#endif
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    RV_VideoInfo info = {0};
    info.width = 16, info.height = 16, info.format = RV_FMT_RGBA8;
    RV_Sink *sink = NULL;
    err = rv_sink_open_sdl(ctx, "t", &info, &sink);
#ifdef RV_TEST_HAVE_SDL2
    assert_int_equal(err, 0);
    assert_int_equal(rv_sink_repeats_skipped(sink), 1);
    rv_sink_close(&sink);
#else
    assert_int_equal(err, RV_ENOSYS);
    assert_null(sink);
    assert_non_null(strstr(rv_context_error(ctx), "SDL2"));
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_pattern_content), cmocka_unit_test(test_formats_agree),
        cmocka_unit_test(test_realtime),       cmocka_unit_test(test_null_sink),
        cmocka_unit_test(test_optional_parts), cmocka_unit_test(test_null_handles_silent),
        cmocka_unit_test(test_null_context),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
