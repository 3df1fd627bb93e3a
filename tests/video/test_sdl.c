/*
 * test_sdl.c - the SDL2 window sink, headless (SDL_VIDEODRIVER=dummy, the
 * software renderer): what the window shows is read back with
 * SDL_RenderReadPixels and compared with the frame (RGBA8 exactly; YUV and
 * 16-bit gray against the BT.601 / scaling definitions), the overlay changes
 * only its corner, closing the window is RV_EPIPE.
 */
#include "rv_test.h"

#include <SDL.h>
#include <math.h>

#include <ravioli/video.h>

#include "sdl_hook.h"

static RV_Context *ctx;

static int setup(void **state)
{
    (void)state;
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    ctx = rv_test_cpu_context(1);
    return 0;
}
static int teardown(void **state)
{
    (void)state;
    rv_context_destroy(&ctx);
    SDL_Quit(); /* SDL's process-wide leftovers */
    return 0;
}

static RV_Sink *open_sink(int w, int h, RV_Format fmt, int depth, int overlay)
{
    RV_VideoInfo info = {0};
    info.width = w;
    info.height = h;
    info.format = fmt;
    info.bit_depth = depth;
    RV_SDLSettings s;
    rv_sdl_settings_default(&s);
    s.title = "ravioli test";
    s.overlay = overlay;
    RV_Sink *sink = NULL;
    int err = rv_sink_open_sdl_ex(ctx, &s, &info, &sink);
    if (err < 0)
        fail_msg("rv_sink_open_sdl: %s", rv_context_error(ctx));
    return sink;
}

/* What the window shows, as RGBA bytes (w*4 a row). */
static unsigned char *shown(RV_Sink *sink, int w, int h)
{
    SDL_Window *win = rv__sink_sdl_window(sink);
    assert_non_null(win);
    SDL_Renderer *ren = SDL_GetRenderer(win);
    assert_non_null(ren);
    unsigned char *px = malloc((size_t)w * h * 4);
    assert_int_equal(SDL_RenderReadPixels(ren, NULL, SDL_PIXELFORMAT_RGBA32, px, w * 4), 0);
    return px;
}

static RV_Image *synthetic_frame(int w, int h, RV_Format fmt, int k)
{
    RV_SyntheticSettings s;
    rv_synthetic_settings_default(&s);
    s.width = w, s.height = h, s.format = fmt, s.realtime = 0;
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_synthetic(ctx, &s, &src), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, fmt, &img), 0);
    for (int i = 0; i <= k; i++)
        assert_int_equal(rv_source_read(src, img, NULL, 0), 0);
    rv_source_close(&src);
    return img;
}

static void test_rgba_exact(void **state)
{
    (void)state;
    const int w = 96, h = 64;
    RV_Sink *sink = open_sink(w, h, RV_FMT_RGBA8, 8, 0);
    assert_int_equal(rv_sink_repeats_skipped(sink), 1);
    for (int k = 0; k < 3; k++) {
        RV_Image *img = synthetic_frame(w, h, RV_FMT_RGBA8, 5 * k);
        assert_int_equal(rv_sink_write(sink, img, NULL), 0);
        unsigned char *px = shown(sink, w, h);
        ptrdiff_t pitch;
        const unsigned char *p = rv_image_read(img, 0, &pitch);
        for (int y = 0; y < h; y++)
            assert_memory_equal(px + y * w * 4, p + y * pitch, (size_t)w * 4);
        free(px);
        rv_image_destroy(&img);
    }
    rv_sink_close(&sink);
    assert_null(sink);
}

static void ref_yuv_to_rgb(double Y, double Cb, double Cr, double rgb[3])
{
    const double kr = 0.299, kb = 0.114, kg = 1.0 - kr - kb;
    double y = (Y - 16) / 219.0, pb = (Cb - 128) / 224.0, pr = (Cr - 128) / 224.0;
    double r = y + 2 * (1 - kr) * pr, b = y + 2 * (1 - kb) * pb, g = (y - kr * r - kb * b) / kg;
    double v[3] = {r, g, b};
    for (int i = 0; i < 3; i++)
        rgb[i] = fmin(255, fmax(0, v[i] * 255));
}

/* YUV frames are shown through BT.601 limited range, chroma repeated over
 * the pixels it covers. yuv420p8 goes to SDL as an IYUV texture and SDL's
 * renderer converts it (BT.601 mode; its fixed-point arithmetic is not
 * ravioli's, so 2 codes are allowed - measured 1.49 with the software
 * renderer); the other formats are converted by ravioli (within 1). */
static void test_yuv_and_deep(void **state)
{
    (void)state;
    const int w = 50, h = 30;
    static const RV_Format fmts[] = {RV_FMT_YUV420P8, RV_FMT_YUV444P8, RV_FMT_YUV420P16};
    for (int f = 0; f < 3; f++) {
        RV_Sink *sink = open_sink(w, h, fmts[f], fmts[f] == RV_FMT_YUV420P16 ? 16 : 8, 0);
        RV_Image *img = synthetic_frame(w, h, fmts[f], 7);
        assert_int_equal(rv_sink_write(sink, img, NULL), 0);
        unsigned char *px = shown(sink, w, h);
        const RV_FormatInfo *fi = rv_format_info(fmts[f]);
        ptrdiff_t p0, p1, p2;
        const unsigned char *Y = rv_image_read(img, 0, &p0), *U = rv_image_read(img, 1, &p1),
                            *V = rv_image_read(img, 2, &p2);
        double worst = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int cx = x >> fi->chroma_shift_x, cy = y >> fi->chroma_shift_y;
                double yy, uu, vv;
                if (fi->sample_bytes == 2) { /* 16 significant bits -> 8 */
                    yy = ((const uint16_t *)(Y + y * p0))[x] * 255.0 / 65535.0;
                    uu = ((const uint16_t *)(U + cy * p1))[cx] * 255.0 / 65535.0;
                    vv = ((const uint16_t *)(V + cy * p2))[cx] * 255.0 / 65535.0;
                } else {
                    yy = Y[y * p0 + x], uu = U[cy * p1 + cx], vv = V[cy * p2 + cx];
                }
                double ref[3];
                ref_yuv_to_rgb(yy, uu, vv, ref);
                for (int c = 0; c < 3; c++)
                    worst = fmax(worst, fabs(px[(y * w + x) * 4 + c] - ref[c]));
            }
        const double tol = fmts[f] == RV_FMT_YUV420P8 ? 2.0 : 1.0;
        if (worst > tol)
            fail_msg("%s: shown pixels differ by %.2f from BT.601", fi->name, worst);
        /* a frame of another size or format is refused, with both named */
        RV_Image *other = NULL;
        assert_int_equal(rv_image_create(ctx, w, h, fmts[f] == RV_FMT_YUV444P8 ? RV_FMT_YUV420P8 : RV_FMT_YUV444P8,
                                         &other), 0);
        assert_int_equal(rv_sink_write(sink, other, NULL), RV_EINVAL);
        assert_non_null(strstr(rv_context_error(ctx), fi->name));
        rv_image_destroy(&other);
        assert_int_equal(rv_image_create(ctx, w + 2, h, fmts[f], &other), 0);
        assert_int_equal(rv_sink_write(sink, other, NULL), RV_EINVAL);
        assert_non_null(strstr(rv_context_error(ctx), "52x30"));
        rv_image_destroy(&other);
        free(px);
        rv_image_destroy(&img);
        rv_sink_close(&sink);
    }
    /* 10-bit gray in a 16-bit container: v * 255 / 1023 */
    RV_Sink *sink = open_sink(40, 20, RV_FMT_GRAY16, 10, 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, 40, 20, RV_FMT_GRAY16, &img), 0);
    ptrdiff_t pitch;
    unsigned char *p = rv_image_write(img, 0, &pitch);
    for (int y = 0; y < 20; y++)
        for (int x = 0; x < 40; x++)
            ((uint16_t *)(p + y * pitch))[x] = (uint16_t)((x * 41 + y * 13) % 1024);
    assert_int_equal(rv_sink_write(sink, img, NULL), 0);
    unsigned char *px = shown(sink, 40, 20);
    for (int y = 0; y < 20; y++)
        for (int x = 0; x < 40; x++) {
            double want = ((x * 41 + y * 13) % 1024) * 255.0 / 1023.0;
            for (int c = 0; c < 3; c++)
                assert_true(fabs(px[(y * 40 + x) * 4 + c] - want) <= 0.5 + 1e-9);
        }
    free(px);
    rv_image_destroy(&img);
    rv_sink_close(&sink);
}

static void test_overlay(void **state)
{
    (void)state;
    const int w = 320, h = 120;
    RV_Sink *sink = open_sink(w, h, RV_FMT_RGBA8, 8, 1);
    RV_Image *img = synthetic_frame(w, h, RV_FMT_RGBA8, 12);
    RV_FrameStats st = {0};
    st.index = 12345;
    st.fps = 29.5;
    st.latency_ms = 12.25;
    st.spatial_stride = 2;
    st.temporal_stride = 3;
    assert_int_equal(rv_sink_write(sink, img, &st), 0);
    unsigned char *a = shown(sink, w, h);
    st.index = 12346; /* other figures: other pixels in the corner only */
    st.spatial_stride = 4;
    assert_int_equal(rv_sink_write(sink, img, &st), 0);
    unsigned char *b = shown(sink, w, h);
    ptrdiff_t pitch;
    const unsigned char *p = rv_image_read(img, 0, &pitch);
    int changed_in = 0, white_in = 0, ab_differ = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *q = a + (y * w + x) * 4, *o = p + y * pitch + 4 * x;
            int in_corner = x < 200 && y < 30;
            if (!in_corner)
                assert_memory_equal(q, o, 4);
            else {
                changed_in += memcmp(q, o, 3) != 0;
                white_in += q[0] == 255 && q[1] == 255 && q[2] == 255;
                ab_differ += memcmp(q, b + (y * w + x) * 4, 3) != 0;
            }
        }
    assert_true(changed_in > 1000); /* the darkened plate */
    assert_true(white_in > 100);    /* the text */
    assert_true(ab_differ > 5);     /* the digits changed */
    free(a);
    free(b);
    /* without stats: fps only, still fine */
    assert_int_equal(rv_sink_write(sink, img, NULL), 0);
    rv_image_destroy(&img);
    rv_sink_close(&sink);
}

/* The overlay on an IYUV (yuv420p8) window: drawn in the corner only, the
 * rest of the picture as without it. */
static void test_overlay_iyuv(void **state)
{
    (void)state;
    const int w = 320, h = 120;
    RV_Sink *plain = open_sink(w, h, RV_FMT_YUV420P8, 8, 0);
    RV_Image *img = synthetic_frame(w, h, RV_FMT_YUV420P8, 3);
    assert_int_equal(rv_sink_write(plain, img, NULL), 0);
    unsigned char *a = shown(plain, w, h);
    rv_sink_close(&plain);
    RV_Sink *sink = open_sink(w, h, RV_FMT_YUV420P8, 8, 1);
    RV_FrameStats st = {0};
    st.index = 777;
    st.fps = 30;
    st.spatial_stride = 1;
    st.temporal_stride = 1;
    assert_int_equal(rv_sink_write(sink, img, &st), 0);
    unsigned char *b = shown(sink, w, h);
    int changed_in = 0, white_in = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *p = a + (y * w + x) * 4, *q = b + (y * w + x) * 4;
            if (!(x < 200 && y < 30))
                assert_memory_equal(p, q, 4);
            else {
                changed_in += memcmp(p, q, 3) != 0;
                white_in += q[0] > 230 && q[1] > 230 && q[2] > 230;
            }
        }
    assert_true(changed_in > 1000);
    assert_true(white_in > 50);
    free(a);
    free(b);
    rv_image_destroy(&img);
    rv_sink_close(&sink);
}

static void test_close_is_epipe(void **state)
{
    (void)state;
    RV_Sink *sink = open_sink(32, 16, RV_FMT_GRAY8, 8, 1);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, 32, 16, RV_FMT_GRAY8, &img), 0);
    assert_int_equal(rv_sink_write(sink, img, NULL), 0);
    SDL_Window *win = rv__sink_sdl_window(sink);
    SDL_Event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = SDL_WINDOWEVENT;
    ev.window.event = SDL_WINDOWEVENT_CLOSE;
    ev.window.windowID = SDL_GetWindowID(win);
    assert_true(SDL_PushEvent(&ev) >= 0);
    assert_int_equal(rv_sink_write(sink, img, NULL), RV_EPIPE);
    assert_non_null(strstr(rv_context_error(ctx), "closed"));
    assert_int_equal(rv_sink_write(sink, img, NULL), RV_EPIPE);
    rv_sink_close(&sink);
    /* a wrong frame */
    sink = open_sink(32, 16, RV_FMT_RGBA8, 8, 1);
    assert_int_equal(rv_sink_write(sink, img, NULL), RV_EINVAL);
    rv_sink_close(&sink);
    /* the plain entry point */
    RV_VideoInfo info = {0};
    info.width = 8, info.height = 8, info.format = RV_FMT_GRAY8;
    assert_int_equal(rv_sink_open_sdl(ctx, "plain", &info, &sink), 0);
    rv_sink_close(&sink);
    info.width = 0;
    assert_int_equal(rv_sink_open_sdl(ctx, "bad", &info, &sink), RV_EINVAL);
    assert_null(sink);
    rv_image_destroy(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rgba_exact),
        cmocka_unit_test(test_yuv_and_deep),
        cmocka_unit_test(test_overlay),
        cmocka_unit_test(test_overlay_iyuv),
        cmocka_unit_test(test_close_is_epipe),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
