/*
 * test_v4l2.c - the V4L2 capture code end to end on an emulated camera
 * (fakecam.h): format choice, size re-read after S_FMT, YUYV -> RGBA
 * against the BT.601 definition, latest-frame draining, slow camera
 * (timeouts are RV_EAGAIN), EINTR/EAGAIN, error-flagged and short buffers,
 * unplug (RV_ENODEV) and reopen, raw YUYV mode, libv4l2's own entry point.
 */
#include "rv_test.h"

#include <math.h>
#include <time.h>

#include "fakecam.h"

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

/* BT.601 limited range YCbCr -> R'G'B' from the definition
 * (E'Y = (Y - 16) / 219, E'Cb,Cr = (C - 128) / 224; Kr = 0.299, Kb = 0.114). */
static void ref_yuv_to_rgb(int Y, int Cb, int Cr, double rgb[3])
{
    const double kr = 0.299, kb = 0.114, kg = 1.0 - kr - kb;
    double y = (Y - 16) / 219.0, pb = (Cb - 128) / 224.0, pr = (Cr - 128) / 224.0;
    double r = y + 2.0 * (1.0 - kr) * pr;
    double b = y + 2.0 * (1.0 - kb) * pb;
    double g = (y - kr * r - kb * b) / kg;
    double v[3] = {r, g, b};
    for (int i = 0; i < 3; i++) {
        double x = v[i] * 255.0;
        rgb[i] = x < 0 ? 0 : x > 255 ? 255 : x;
    }
}

/* Max |delivered - reference| over the frame, for YUYV frame k (plain pattern). */
static double yuyv_frame_error(RV_Image *img, long long k)
{
    ptrdiff_t pitch;
    const unsigned char *p = rv_image_read(img, 0, &pitch);
    int w = rv_image_width(img), h = rv_image_height(img);
    double worst = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            unsigned char q[4];
            fake_yuyv(k, (unsigned)x / 2, (unsigned)y, q);
            double ref[3];
            ref_yuv_to_rgb(x & 1 ? q[2] : q[0], q[1], q[3], ref);
            const unsigned char *d = p + y * pitch + 4 * x;
            for (int c = 0; c < 3; c++)
                worst = fmax(worst, fabs(d[c] - ref[c]));
            if (d[3] != 255)
                return 999;
        }
    return worst;
}

static void open_fake(fakecam *cam, rv_v4l2_devops *ops, RV_V4L2Settings *s, RV_Source **src)
{
    *ops = fake_ops(cam);
    assert_int_equal(rv__source_open_v4l2_devops(ctx, s, ops, src), 0);
}

static RV_V4L2Settings settings(void)
{
    RV_V4L2Settings s;
    rv_v4l2_settings_default(&s);
    s.device = "/dev/fake0";
    s.width = 100; /* the fake rounds to 96 */
    s.height = 70;
    s.timeout_ms = 200;
    return s;
}

/* The usual rig: an emulated camera, the test settings (adjust g.cam and
 * g.s between rig_init and rig_open), the source and an RGBA frame of the
 * size the source reports. */
typedef struct cam_rig {
    fakecam cam;
    rv_v4l2_devops ops;
    RV_V4L2Settings s;
    RV_Source *src;
    RV_Image *img;
} cam_rig;

static void rig_init(cam_rig *g)
{
    memset(g, 0, sizeof(*g));
    fake_init(&g->cam);
    g->s = settings();
}

static void rig_open(cam_rig *g)
{
    open_fake(&g->cam, &g->ops, &g->s, &g->src);
    RV_VideoInfo info;
    assert_int_equal(rv_source_info(g->src, &info), 0);
    assert_int_equal(rv_image_create(ctx, info.width, info.height, RV_FMT_RGBA8, &g->img), 0);
}

static void rig_close(cam_rig *g)
{
    rv_image_destroy(&g->img);
    rv_source_close(&g->src);
}

static void test_normal_capture(void **state)
{
    (void)state;
    cam_rig g;
    rig_init(&g);
    rig_open(&g);
    RV_VideoInfo info;
    assert_int_equal(rv_source_info(g.src, &info), 0);
    assert_int_equal(info.width, 96); /* re-read after S_FMT */
    assert_int_equal(info.height, 70);
    assert_int_equal(info.format, RV_FMT_RGBA8);
    assert_int_equal(info.fps_num, 30);
    assert_int_equal(info.fps_den, 1);
    assert_int_equal(info.packed_yuyv, 0);
    assert_int_equal(g.cam.fmt, V4L2_PIX_FMT_YUYV); /* native YUYV over emulated RGB24 */
    assert_int_equal(g.cam.nbuf, 4);
    long long prev = 0;
    for (long long k = 0; k < 6; k++) {
        long long pts = 0;
        assert_int_equal(rv_source_read(g.src, g.img, &pts, 200), 0);
        assert_true(pts >= prev && pts > 0);
        prev = pts;
        assert_true(yuyv_frame_error(g.img, k) <= 1.0);
        if (k > 0) /* it really is frame k, not k-1 */
            assert_true(yuyv_frame_error(g.img, k - 1) > 10.0);
    }
    assert_int_equal(rv_source_dropped(g.src), 0);
    rig_close(&g);
    assert_null(g.src);
    assert_int_equal(g.cam.maps, g.cam.unmaps);
    assert_int_equal(g.cam.busy_reqbufs, 0); /* unmapped before REQBUFS(0) */
    assert_int_equal(g.cam.fd, -1);
}

/* Every (Y, Cb, Cr) triple through the capture path against the definition. */
static void test_yuyv_sweep(void **state)
{
    (void)state;
    cam_rig g;
    rig_init(&g);
    g.cam.pattern = PAT_SWEEP;
    g.s.width = 512; /* 256 pairs: Cb = pair index */
    g.s.height = 256; /* Cr = row */
    rig_open(&g);
    double worst = 0;
    long long off1 = 0;
    for (long long k = 0; k < 128; k++) { /* Y0 = 2k, Y1 = 255 - 2k: all 256 values */
        assert_int_equal(rv_source_read(g.src, g.img, NULL, 200), 0);
        ptrdiff_t pitch;
        const unsigned char *p = rv_image_read(g.img, 0, &pitch);
        for (int y = 0; y < 256; y++)
            for (int x = 0; x < 512; x++) {
                double ref[3];
                ref_yuv_to_rgb(x & 1 ? (int)(255 - 2 * k) : (int)(2 * k), x / 2, y, ref);
                for (int c = 0; c < 3; c++) {
                    double e = fabs(p[y * pitch + 4 * x + c] - ref[c]);
                    worst = fmax(worst, e);
                    off1 += e > 0.5;
                }
            }
    }
    printf("YUYV->RGBA over 2^24 triples: max |error| %.3f, %lld of %d channels off by > 0.5\n",
           worst, off1, 128 * 256 * 512 * 3);
    assert_true(worst <= 1.0);
    rig_close(&g);
}

static void test_eintr_eagain(void **state)
{
    (void)state;
    cam_rig g;
    rig_init(&g);
    rig_open(&g);
    g.cam.eintr_once = 1;
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 200), 0);
    assert_int_equal(g.cam.eintr_once, 0);
    assert_true(yuyv_frame_error(g.img, 0) <= 1.0);
    g.cam.eagain_once = 1; /* poll says readable, DQBUF says EAGAIN: spurious */
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 200), 0);
    assert_int_equal(g.cam.eagain_once, 0);
    assert_true(yuyv_frame_error(g.img, 1) <= 1.0);
    rig_close(&g);
}

static void test_slow_camera(void **state)
{
    (void)state;
    cam_rig g;
    rig_init(&g);
    g.cam.mode = FAKE_SLOW;
    rig_open(&g);
    for (int i = 0; i < 3; i++) {
        long long t0 = (long long)time(NULL);
        (void)t0;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        assert_int_equal(rv_source_read(g.src, g.img, NULL, 30), RV_EAGAIN);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
        assert_true(ms >= 25.0 && ms < 1000.0);
    }
    /* a frame finally comes */
    g.cam.mode = FAKE_MANUAL;
    fake_produce(&g.cam, 0, 0);
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 30), 0);
    assert_true(yuyv_frame_error(g.img, 0) <= 1.0);
    rig_close(&g);
}

static void test_latest_frame(void **state)
{
    (void)state;
    cam_rig g;
    rig_init(&g);
    g.cam.mode = FAKE_MANUAL;
    rig_open(&g);
    /* the caller was slow: three frames wait; only the newest is delivered */
    fake_produce(&g.cam, 0, 0);
    fake_produce(&g.cam, 0, 0);
    fake_produce(&g.cam, 0, 0);
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), 0);
    assert_true(yuyv_frame_error(g.img, 2) <= 1.0);
    assert_int_equal(rv_source_dropped(g.src), 2);
    /* the older buffers went back to the driver: all four are queued again */
    int queued = 0;
    for (int i = 0; i < g.cam.nbuf; i++)
        queued += g.cam.state[i] == 1;
    assert_int_equal(queued, 4);
    /* more frames than buffers: the driver loses some, we still get the newest */
    for (int i = 0; i < 6; i++)
        fake_produce(&g.cam, 0, 0);
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), 0);
    assert_true(yuyv_frame_error(g.img, 6) <= 1.0); /* frames 3..6 filled buffers, 7, 8 lost */
    assert_int_equal(g.cam.lost, 2);
    assert_int_equal(rv_source_dropped(g.src), 2 + 3);
    rig_close(&g);
}

static void test_error_buffers(void **state)
{
    (void)state;
    cam_rig g;
    rig_init(&g);
    g.cam.mode = FAKE_MANUAL;
    rig_open(&g);
    fake_produce(&g.cam, 0, 0);                     /* 0: good */
    fake_produce(&g.cam, V4L2_BUF_FLAG_ERROR, 0);   /* 1: flagged */
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), 0);
    assert_true(yuyv_frame_error(g.img, 0) <= 1.0); /* the flagged newer one is not delivered */
    fake_produce(&g.cam, V4L2_BUF_FLAG_ERROR, 0);   /* 2: flagged */
    fake_produce(&g.cam, 0, 1);                     /* 3: short */
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 30), RV_EAGAIN);
    fake_produce(&g.cam, 0, 0); /* 4: good */
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), 0);
    assert_true(yuyv_frame_error(g.img, 4) <= 1.0);
    /* bad buffers were requeued, not lost */
    int queued = 0;
    for (int i = 0; i < g.cam.nbuf; i++)
        queued += g.cam.state[i] == 1;
    assert_int_equal(queued, 4);
    assert_int_equal(rv_source_dropped(g.src), 0);
    rig_close(&g);
}

static void test_unplug(void **state)
{
    (void)state;
    cam_rig g;
    rig_init(&g);
    rig_open(&g);
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), 0);
    g.cam.present = 0;
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), RV_ENODEV);
    assert_non_null(strstr(rv_context_error(ctx), "disappeared"));
    assert_non_null(strstr(rv_context_error(ctx), "/dev/fake0"));
    assert_int_equal(g.cam.fd, -1); /* released: closed and unmapped */
    assert_int_equal(g.cam.maps, g.cam.unmaps);
    g.cam.present = 1; /* without reopen the stream stays ended */
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), RV_ENODEV);
    assert_int_equal(g.cam.opens, 1);
    rig_close(&g);
}

static void test_reopen(void **state)
{
    (void)state;
    cam_rig g;
    rig_init(&g);
    g.s.reopen = 1;
    rig_open(&g);
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), 0);
    g.cam.present = 0;
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), RV_EAGAIN); /* lost: waiting */
    assert_int_equal(g.cam.fd, -1);
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 120), RV_EAGAIN); /* still away */
    assert_int_equal(g.cam.opens, 1);
    g.cam.present = 1;
    long long before = g.cam.produced;
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 500), 0);
    assert_int_equal(g.cam.opens, 2);
    assert_int_equal(g.cam.w, 96);
    assert_true(yuyv_frame_error(g.img, before) <= 1.0);
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 500), 0);
    assert_true(yuyv_frame_error(g.img, before + 1) <= 1.0);
    rig_close(&g);
    assert_int_equal(g.cam.maps, g.cam.unmaps);
    assert_int_equal(g.cam.opens, g.cam.closes);
}

/* The camera comes back with another size: the caller's frames no longer fit. */
static void test_reopen_different_size(void **state)
{
    (void)state;
    cam_rig g;
    rig_init(&g);
    g.s.reopen = 1;
    rig_open(&g);
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), 0);
    g.cam.present = 0;
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), RV_EAGAIN);
    g.cam.present = 1;
    g.cam.max_w = 64; /* a different camera on the same node */
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 200), RV_EIO);
    assert_non_null(strstr(rv_context_error(ctx), "different format"));
    assert_int_equal(g.cam.fd, -1);
    rig_close(&g);
    assert_int_equal(g.cam.maps, g.cam.unmaps);
}

static void test_emulated_rgb24(void **state)
{
    (void)state;
    cam_rig g;
    rig_init(&g);
    g.cam.only_mjpeg = 1; /* native MJPG only: libv4l2's emulated RGB24 is taken */
    rig_open(&g);
    assert_int_equal(g.cam.fmt, V4L2_PIX_FMT_RGB24);
    for (long long k = 0; k < 2; k++) {
        assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), 0);
        ptrdiff_t pitch;
        const unsigned char *p = rv_image_read(g.img, 0, &pitch);
        for (unsigned y = 0; y < 70; y++)
            for (unsigned x = 0; x < 96; x++) {
                unsigned char q[3];
                fake_rgb(k, x, y, q);
                const unsigned char *d = p + y * pitch + 4 * x;
                assert_true(d[0] == q[0] && d[1] == q[1] && d[2] == q[2] && d[3] == 255);
            }
    }
    rig_close(&g);
}

/* Other native formats: UYVY (BT.601 like YUYV), BGR24 and GREY (expanded). */
static void test_other_native_formats(void **state)
{
    (void)state;
    static const uint32_t fmts[] = {V4L2_PIX_FMT_UYVY, V4L2_PIX_FMT_BGR24, V4L2_PIX_FMT_GREY};
    for (int f = 0; f < 3; f++) {
        cam_rig g;
        rig_init(&g);
        g.cam.native = fmts[f];
        rig_open(&g);
        assert_int_equal(g.cam.fmt, fmts[f]); /* native, not the emulated RGB24 */
        for (long long k = 0; k < 2; k++) {
            assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), 0);
            if (fmts[f] == V4L2_PIX_FMT_UYVY) {
                assert_true(yuyv_frame_error(g.img, k) <= 1.0);
                continue;
            }
            ptrdiff_t pitch;
            const unsigned char *p = rv_image_read(g.img, 0, &pitch);
            for (unsigned y = 0; y < 70; y++)
                for (unsigned x = 0; x < 96; x++) {
                    const unsigned char *d = p + y * pitch + 4 * x;
                    unsigned char q[3];
                    if (fmts[f] == V4L2_PIX_FMT_GREY)
                        q[0] = q[1] = q[2] = fake_grey(k, x, y);
                    else
                        fake_rgb(k, x, y, q);
                    assert_true(d[0] == q[0] && d[1] == q[1] && d[2] == q[2] && d[3] == 255);
                }
        }
        rig_close(&g);
    }
}

static void test_raw_yuyv(void **state)
{
    (void)state;
    cam_rig g;
    rig_init(&g);
    g.s.raw_yuyv = 1;
    rig_open(&g);
    RV_VideoInfo info;
    rv_source_info(g.src, &info);
    assert_int_equal(info.width, 48);
    assert_int_equal(info.packed_yuyv, 1);
    assert_int_equal(rv_source_read(g.src, g.img, NULL, 50), 0);
    ptrdiff_t pitch;
    const unsigned char *p = rv_image_read(g.img, 0, &pitch);
    for (unsigned y = 0; y < 70; y++)
        for (unsigned px = 0; px < 48; px++) {
            unsigned char q[4];
            fake_yuyv(0, px, y, q);
            assert_memory_equal(p + y * pitch + 4 * px, q, 4);
        }
    rig_close(&g);
}

static void test_bad_use(void **state)
{
    (void)state;
    fakecam cam;
    fake_init(&cam);
    rv_v4l2_devops ops = fake_ops(&cam);
    RV_V4L2Settings s = settings();
    RV_Source *src = (RV_Source *)&cam;
    s.device = "/dev/fake1";
    assert_int_equal(rv__source_open_v4l2_devops(ctx, &s, &ops, &src), RV_ENODEV);
    assert_null(src);
    s = settings();
    s.buffers = 1;
    assert_int_equal(rv__source_open_v4l2_devops(ctx, &s, &ops, &src), RV_EINVAL);
    s = settings();
    s.width = 0;
    assert_int_equal(rv__source_open_v4l2_devops(ctx, &s, &ops, &src), RV_EINVAL);
    /* wrong frame size */
    s = settings();
    assert_int_equal(rv__source_open_v4l2_devops(ctx, &s, &ops, &src), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, 100, 70, RV_FMT_RGBA8, &img), 0);
    assert_int_equal(rv_source_read(src, img, NULL, 50), RV_EINVAL);
    rv_image_destroy(&img);
    rv_source_close(&src);
    assert_int_equal(cam.opens, cam.closes);
}

/* libv4l2's real entry points: no such device is RV_ENODEV with a message. */
static void test_libv4l2_no_device(void **state)
{
    (void)state;
    RV_V4L2Settings s;
    rv_v4l2_settings_default(&s);
    s.device = "/dev/video-ravioli-test-none";
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_v4l2(ctx, &s, &src), RV_ENODEV);
    assert_null(src);
    assert_non_null(strstr(rv_context_error(ctx), "video-ravioli-test-none"));
    /* a node that is not a V4L2 device, through libv4l2's calls */
    s.device = "/dev/null";
    assert_int_equal(rv_source_open_v4l2(ctx, &s, &src), RV_EIO);
    assert_null(src);
    assert_non_null(strstr(rv_context_error(ctx), "not a V4L2 device"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normal_capture), cmocka_unit_test(test_yuyv_sweep),
        cmocka_unit_test(test_eintr_eagain),   cmocka_unit_test(test_slow_camera),
        cmocka_unit_test(test_latest_frame),   cmocka_unit_test(test_error_buffers),
        cmocka_unit_test(test_unplug),         cmocka_unit_test(test_reopen),
        cmocka_unit_test(test_reopen_different_size),
        cmocka_unit_test(test_emulated_rgb24), cmocka_unit_test(test_other_native_formats),
        cmocka_unit_test(test_raw_yuyv),
        cmocka_unit_test(test_bad_use),        cmocka_unit_test(test_libv4l2_no_device),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
