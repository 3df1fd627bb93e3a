/*
 * test_image_stream.c - an image file as a stream of one frame
 * (rv_source_open_image) and a sink that writes the one frame of a stream
 * (rv_sink_open_image): every format the image files hold comes through the
 * source as the file's pixels, once, then the end; the sink writes the file
 * rv_image_write_file writes (byte for byte), refuses a name of another kind,
 * a format no image file holds, a second frame and a directory that does not
 * exist, before writing anything that it should not.
 */
#include <sys/stat.h>

#include "rv_test.h"
#include <ravioli/io.h>
#include <ravioli/video.h>

static char g_dir[64];

static void path_of(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", g_dir, name);
}

/* An image of fmt with pixels from seed, written as `name`. */
static RV_Image *write_image(RV_Context *ctx, RV_Format fmt, int w, int h, uint64_t seed, const char *name)
{
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, fmt, &img), 0);
    rv_test_fill_random(img, seed);
    if (fmt == RV_FMT_RGBA8 || fmt == RV_FMT_RGBA16) { /* alpha is not stored: opaque, as read back */
        ptrdiff_t pitch = 0;
        unsigned char *p = rv_image_write(img, 0, &pitch);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                if (fmt == RV_FMT_RGBA8)
                    p[y * pitch + 4 * x + 3] = 255;
                else
                    ((uint16_t *)(p + y * pitch))[4 * x + 3] = 65535;
            }
    }
    char path[160];
    path_of(path, sizeof(path), name);
    assert_int_equal(rv_image_write_file(img, path), 0);
    return img;
}

static void assert_same_pixels(RV_Image *a, RV_Image *b)
{
    assert_int_equal(rv_image_width(a), rv_image_width(b));
    assert_int_equal(rv_image_height(a), rv_image_height(b));
    assert_int_equal(rv_image_format(a), rv_image_format(b));
    const size_t row = (size_t)rv_image_width(a) * (size_t)rv_format_info(rv_image_format(a))->sample_bytes;
    ptrdiff_t pa = 0, pb = 0;
    const unsigned char *x = rv_image_read(a, 0, &pa), *y = rv_image_read(b, 0, &pb);
    for (int r = 0; r < rv_image_height(a); r++)
        assert_memory_equal(x + r * pa, y + r * pb, row);
}

static void test_source(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(1);
    static const struct {
        RV_Format fmt;
        const char *name;
        int depth;
    } kinds[] = {
        {RV_FMT_GRAY8, "g8.pgm", 8},     {RV_FMT_GRAY16, "g16.pgm", 16}, {RV_FMT_RGBA8, "c8.ppm", 8},
        {RV_FMT_RGBA16, "c16.ppm", 16}, {RV_FMT_GRAYF32, "f.pfm", 0},
    };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        RV_Image *ref = write_image(ctx, kinds[i].fmt, 13, 7, 5 + i, kinds[i].name);
        char path[160];
        path_of(path, sizeof(path), kinds[i].name);
        RV_Source *src = NULL;
        assert_int_equal(rv_source_open_image(ctx, path, &src), 0);
        RV_VideoInfo vi;
        assert_int_equal(rv_source_info(src, &vi), 0);
        assert_int_equal(vi.width, 13);
        assert_int_equal(vi.height, 7);
        assert_int_equal(vi.format, kinds[i].fmt);
        assert_int_equal(vi.frames, 1);
        assert_int_equal(vi.bit_depth, kinds[i].depth);
        assert_int_equal(vi.fps_num, 0);
        assert_int_equal(vi.packed_yuyv, 0);
        RV_Image *frame = NULL;
        assert_int_equal(rv_image_create(ctx, 13, 7, kinds[i].fmt, &frame), 0);
        long long pts = -1;
        assert_int_equal(rv_source_read(src, frame, &pts, 0), 0);
        assert_true(pts > 0);
        assert_same_pixels(frame, ref);
        assert_int_equal(rv_source_read(src, frame, NULL, 0), RV_EPIPE); /* one frame */
        assert_int_equal(rv_source_read(src, frame, NULL, 0), RV_EPIPE);
        rv_source_close(&src);
        assert_null(src);
        rv_image_destroy(&frame);
        rv_image_destroy(&ref);
    }

    /* a frame of another size: refused, the image still there to read */
    (void)write_image(ctx, RV_FMT_GRAY8, 4, 3, 1, "small.pgm");
    char path[160];
    path_of(path, sizeof(path), "small.pgm");
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_image(ctx, path, &src), 0);
    RV_Image *wrong = NULL, *right = NULL;
    assert_int_equal(rv_image_create(ctx, 3, 4, RV_FMT_GRAY8, &wrong), 0);
    assert_int_equal(rv_source_read(src, wrong, NULL, 0), RV_EINVAL);
    assert_int_equal(rv_image_create(ctx, 4, 3, RV_FMT_GRAY8, &right), 0);
    assert_int_equal(rv_source_read(src, right, NULL, 0), 0);
    rv_source_close(&src);

    /* the file's errors come when the source opens, with their codes */
    path_of(path, sizeof(path), "missing.pgm");
    assert_int_equal(rv_source_open_image(ctx, path, &src), RV_ENOENT);
    assert_null(src);
    assert_non_null(strstr(rv_context_error(ctx), "missing.pgm"));
    path_of(path, sizeof(path), "short.pgm");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("P5\n4 4\n255\nab", f);
    fclose(f);
    assert_int_equal(rv_source_open_image(ctx, path, &src), RV_EBADMSG);
    assert_non_null(strstr(rv_context_error(ctx), "truncated"));
    assert_int_equal(rv_source_open_image(ctx, g_dir, &src), RV_EIO); /* a directory */
    assert_int_equal(rv_source_open_image(NULL, path, &src), RV_EINVAL);
    assert_null(src);
    assert_int_equal(rv_source_open_image(ctx, NULL, &src), RV_EINVAL);
    rv_image_destroy(&wrong);
    rv_image_destroy(&right);
    rv_context_destroy(&ctx);
}

static void test_sink(void **state)
{
    (void)state;
    RV_Context *ctx = rv_test_cpu_context(1);
    static const struct {
        RV_Format fmt;
        const char *name, *wrong;
    } kinds[] = {
        {RV_FMT_GRAY8, "o8.PGM", "o8.pfm"},     {RV_FMT_GRAY16, "o16.pgm", "o16.ppm"},
        {RV_FMT_RGBA8, "oc.ppm", "oc.pgm"},     {RV_FMT_RGBA16, "oc16.ppm", "oc16"},
        {RV_FMT_GRAYF32, "of.pfm", "of.pgm"},
    };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        RV_Image *img = write_image(ctx, kinds[i].fmt, 9, 5, 40 + i, "ref.img");
        RV_VideoInfo vi;
        memset(&vi, 0, sizeof(vi));
        vi.width = 9;
        vi.height = 5;
        vi.format = kinds[i].fmt;
        char path[160], ref[160];
        path_of(ref, sizeof(ref), "ref.img");
        /* a name of another kind: refused, nothing written */
        path_of(path, sizeof(path), kinds[i].wrong);
        RV_Sink *sink = NULL;
        assert_int_equal(rv_sink_open_image(ctx, path, &vi, &sink), RV_EINVAL);
        assert_null(sink);
        assert_non_null(strstr(rv_context_error(ctx), "the name must end in"));
        assert_int_equal(access(path, F_OK), -1);
        /* the right one: the file rv_image_write_file writes, at the first frame */
        path_of(path, sizeof(path), kinds[i].name);
        assert_int_equal(rv_sink_open_image(ctx, path, &vi, &sink), 0);
        assert_int_equal(access(path, F_OK), -1);
        assert_int_equal(rv_sink_repeats_skipped(sink), 0);
        assert_int_equal(rv_sink_write(sink, img, NULL), 0);
        size_t na = 0, nb = 0;
        char *a = rv_test_slurp(path, &na), *b = rv_test_slurp(ref, &nb);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na);
        free(a);
        /* a second frame: refused, the first stays */
        assert_int_equal(rv_sink_write(sink, img, NULL), RV_EINVAL);
        assert_non_null(strstr(rv_context_error(ctx), "takes one frame"));
        assert_int_equal(rv_sink_frames(sink), 1);
        a = rv_test_slurp(path, &na);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na);
        free(a);
        free(b);
        rv_sink_close(&sink);
        assert_null(sink);
        rv_image_destroy(&img);
    }

    RV_VideoInfo vi;
    memset(&vi, 0, sizeof(vi));
    vi.width = 4;
    vi.height = 2;
    vi.format = RV_FMT_YUV420P8;
    char path[160];
    RV_Sink *sink = NULL;
    path_of(path, sizeof(path), "yuv.pgm");
    assert_int_equal(rv_sink_open_image(ctx, path, &vi, &sink), RV_EINVAL); /* no image file holds YUV */
    assert_non_null(strstr(rv_context_error(ctx), "yuv420p8 frames have no image file kind"));
    vi.format = RV_FMT_GRAY8;
    path_of(path, sizeof(path), "no/such/dir/x.pgm");
    assert_int_equal(rv_sink_open_image(ctx, path, &vi, &sink), RV_ENOENT);
    assert_null(sink);
    /* a frame of another size: refused, nothing written */
    path_of(path, sizeof(path), "size.pgm");
    assert_int_equal(rv_sink_open_image(ctx, path, &vi, &sink), 0);
    RV_Image *other = NULL;
    assert_int_equal(rv_image_create(ctx, 2, 4, RV_FMT_GRAY8, &other), 0);
    assert_int_equal(rv_sink_write(sink, other, NULL), RV_EINVAL);
    assert_int_equal(access(path, F_OK), -1);
    rv_sink_close(&sink);
    rv_image_destroy(&other);
    assert_int_equal(rv_sink_open_image(NULL, path, &vi, &sink), RV_EINVAL);
    assert_int_equal(rv_sink_open_image(ctx, path, NULL, &sink), RV_EINVAL);
    rv_context_destroy(&ctx);
}

int main(void)
{
    snprintf(g_dir, sizeof(g_dir), "/tmp/rv_image_stream_XXXXXX");
    if (!mkdtemp(g_dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source),
        cmocka_unit_test(test_sink),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_dir);
    return rc;
}
