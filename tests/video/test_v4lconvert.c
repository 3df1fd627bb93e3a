/*
 * test_v4lconvert.c - libv4lconvert's YUYV -> RGB24, the conversion behind
 * libv4l2's emulated RGB24 (the fallback when a camera has no native format
 * ravioli converts itself), run directly over every (Y, Cb, Cr) triple and
 * compared with the BT.601 definitions. It shows why the V4L2 source prefers
 * native YUYV and converts it itself: libv4lconvert treats Y as full range
 * (no 16..235 expansion) and uses coarse chroma coefficients.
 *
 * Asserted: the conversion runs without a device (dev_ops stub), neutral
 * chroma gives R = G = B = Y, hue directions agree with BT.601, and the
 * deviation from full-range BT.601 stays within the bound measured here.
 */
#include "rv_test.h"

#include <libv4l-plugin.h>
#include <libv4lconvert.h>
#include <linux/videodev2.h>
#include <math.h>

/* Enough of a device for v4lconvert_create_with_dev_ops(): QUERYCAP only. */
static int stub_ioctl(void *priv, int fd, unsigned long req, void *arg)
{
    (void)priv;
    (void)fd;
    if (req == VIDIOC_QUERYCAP) {
        struct v4l2_capability *c = arg;
        memset(c, 0, sizeof(*c));
        strcpy((char *)c->driver, "rvstub");
        c->capabilities = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        return 0;
    }
    errno = EINVAL;
    return -1;
}

static void test_libv4lconvert_yuyv(void **state)
{
    (void)state;
    static struct libv4l_dev_ops ops;
    ops.ioctl = stub_ioctl;
    struct v4lconvert_data *cv = v4lconvert_create_with_dev_ops(-1, NULL, &ops);
    assert_non_null(cv);
    const int w = 512, h = 256; /* pair x: Cb = x, row: Cr = y */
    struct v4l2_format src, dst;
    memset(&src, 0, sizeof(src));
    src.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    src.fmt.pix.width = (uint32_t)w;
    src.fmt.pix.height = (uint32_t)h;
    src.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
    src.fmt.pix.bytesperline = (uint32_t)w * 2;
    src.fmt.pix.sizeimage = (uint32_t)(w * 2 * h);
    src.fmt.pix.field = V4L2_FIELD_NONE;
    dst = src;
    dst.fmt.pix.pixelformat = V4L2_PIX_FMT_RGB24;
    dst.fmt.pix.bytesperline = (uint32_t)w * 3;
    dst.fmt.pix.sizeimage = (uint32_t)(w * 3 * h);
    unsigned char *in = malloc((size_t)w * 2 * h), *out = malloc((size_t)w * 3 * h);
    double worst_full = 0, worst_limited = 0;
    long hue_wrong = 0;
    for (int k = 0; k < 128; k++) {
        for (int y = 0; y < h; y++)
            for (int px = 0; px < w / 2; px++) {
                unsigned char *q = in + (size_t)y * w * 2 + 4 * px;
                q[0] = (unsigned char)(2 * k);
                q[1] = (unsigned char)px;
                q[2] = (unsigned char)(255 - 2 * k);
                q[3] = (unsigned char)y;
            }
        int n = v4lconvert_convert(cv, &src, &dst, in, w * 2 * h, out, w * 3 * h);
        if (n != w * 3 * h)
            fail_msg("v4lconvert_convert: %d (%s)", n, v4lconvert_get_error_message(cv));
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int Y = x & 1 ? 255 - 2 * k : 2 * k, cb = x / 2, cr = y;
                const unsigned char *o = out + ((size_t)y * w + x) * 3;
                if (cb == 128 && cr == 128)
                    assert_true(o[0] == Y && o[1] == Y && o[2] == Y);
                /* full range (JFIF): Y' in 0..255, chroma (C - 128) */
                double fr = Y + 1.402 * (cr - 128);
                double fg = Y - 0.344136 * (cb - 128) - 0.714136 * (cr - 128);
                double fb = Y + 1.772 * (cb - 128);
                /* limited range (BT.601 studio swing) */
                double yl = (Y - 16) * 255.0 / 219.0;
                double lr = yl + 1.402 * 255.0 / 224.0 * (cr - 128);
                double lg = yl - 255.0 / 224.0 * (0.344136 * (cb - 128) + 0.714136 * (cr - 128));
                double lb = yl + 1.772 * 255.0 / 224.0 * (cb - 128);
                double f[3] = {fr, fg, fb}, l[3] = {lr, lg, lb};
                for (int c = 0; c < 3; c++) {
                    double a = fmin(255, fmax(0, f[c])), b = fmin(255, fmax(0, l[c]));
                    worst_full = fmax(worst_full, fabs(o[c] - a));
                    worst_limited = fmax(worst_limited, fabs(o[c] - b));
                }
                /* more Cr (red difference) never gives less red, on mid grey */
                if (Y == 128 && cb == 128 && cr > 128 && o[0] < 128)
                    hue_wrong++;
            }
    }
    printf("libv4lconvert YUYV->RGB24 over 2^24 triples: max |error| %.1f vs full-range BT.601, "
           "%.1f vs limited-range BT.601 (ravioli's own conversion: <= 1)\n",
           worst_full, worst_limited);
    assert_int_equal(hue_wrong, 0);
    assert_true(worst_full <= 32.0);  /* measured 2026-11-22 with libv4l 1.22.1 */
    assert_true(worst_limited > 8.0); /* it is not studio-range BT.601 */
    free(in);
    free(out);
    v4lconvert_destroy(cv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_libv4lconvert_yuyv)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
