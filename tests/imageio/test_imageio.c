/*
 * test_imageio.c - PGM/PPM/PFM reading and writing.
 *
 * Expected pixels and file bytes are built here from the format definitions
 * (netpbm pgm(5)/ppm(5): decimal header, one whitespace after maxval,
 * 16-bit samples big-endian; PFM: float32 rows bottom-to-top, negative scale
 * = little-endian), independently of the library.
 */
#include "rv_test.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

#define RV_ARRAY_LEN_T(a) (sizeof(a) / sizeof((a)[0]))

static RV_Context *g_ctx;

static int setup(void **state)
{
    (void)state;
    g_ctx = rv_test_cpu_context(1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rv_context_destroy(&g_ctx);
    return 0;
}

/* A fresh temporary file name (the file exists, empty). */
static void tmp_path(char *buf, size_t size, const char *suffix)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, size, "%s/rv_imageio_XXXXXX%s", dir && *dir ? dir : "/tmp", suffix);
    int fd = mkstemps(buf, (int)strlen(suffix));
    assert_true(fd >= 0);
    close(fd);
}

static unsigned char *load(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    unsigned char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void save(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static RV_Image *decode(const void *data, size_t len)
{
    RV_Image *img = NULL;
    int err = rv_image_read_mem(g_ctx, data, len, &img);
    if (err < 0)
        fprintf(stderr, "decode failed: %s\n", rv_context_error(g_ctx));
    assert_int_equal(err, 0);
    assert_non_null(img);
    return img;
}

static const uint8_t *row8(RV_Image *img, int y)
{
    ptrdiff_t pitch;
    const uint8_t *p = rv_image_read(img, 0, &pitch);
    assert_non_null(p);
    return p + y * pitch;
}

static const uint16_t *row16(RV_Image *img, int y) { return (const uint16_t *)(const void *)row8(img, y); }
static const float *rowf(RV_Image *img, int y) { return (const float *)(const void *)row8(img, y); }

/* round(v * full / maxval), from the definition, in double. */
static unsigned scaled(unsigned v, unsigned maxval, unsigned full)
{
    return (unsigned)floor((double)v * full / maxval + 0.5);
}

/* IEEE-754 bits of f as little- or big-endian bytes. */
static void float_bytes(float f, int little, unsigned char *o)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int i = 0; i < 4; i++) {
        unsigned char b = (unsigned char)(u >> (8 * i));
        o[little ? i : 3 - i] = b;
    }
}

/* Builds header + raster into one buffer. */
static unsigned char *concat(const char *hdr, const void *raster, size_t rlen, size_t *len)
{
    size_t hl = strlen(hdr);
    unsigned char *b = malloc(hl + rlen + 1);
    assert_non_null(b);
    memcpy(b, hdr, hl);
    if (rlen)
        memcpy(b + hl, raster, rlen);
    *len = hl + rlen;
    return b;
}

/* ------------------------------------------------------------------ */
/* Round trips                                                          */
/* ------------------------------------------------------------------ */

static void roundtrip(RV_Format fmt, int w, int h, uint64_t seed)
{
    RV_Image *src = NULL, *back = NULL, *back_mem = NULL;
    assert_int_equal(rv_image_create(g_ctx, w, h, fmt, &src), 0);
    rv_test_fill_random(src, seed);

    char path[256];
    tmp_path(path, sizeof(path), ".pnm");
    assert_int_equal(rv_image_write_file(src, path), 0);

    /* File size = documented header + raster (RGB without alpha, big-endian 16 bit, float32). */
    int ch = fmt == RV_FMT_RGBA8 || fmt == RV_FMT_RGBA16 ? 3 : 1;
    int bps = fmt == RV_FMT_GRAY8 || fmt == RV_FMT_RGBA8 ? 1 : fmt == RV_FMT_GRAYF32 ? 4 : 2;
    char hdr[64];
    if (fmt == RV_FMT_GRAYF32)
        snprintf(hdr, sizeof(hdr), "Pf\n%d %d\n-1.0\n", w, h);
    else
        snprintf(hdr, sizeof(hdr), "P%d\n%d %d\n%d\n", ch == 1 ? 5 : 6, w, h, bps == 1 ? 255 : 65535);
    size_t flen;
    unsigned char *file = load(path, &flen);
    assert_int_equal(flen, strlen(hdr) + (size_t)w * h * ch * bps);
    assert_memory_equal(file, hdr, strlen(hdr));

    assert_int_equal(rv_image_read_file(g_ctx, path, &back), 0);
    assert_int_equal(rv_image_read_mem(g_ctx, file, flen, &back_mem), 0);
    RV_Image *outs[2] = {back, back_mem};
    for (int k = 0; k < 2; k++) {
        RV_Image *o = outs[k];
        assert_int_equal(rv_image_width(o), w);
        assert_int_equal(rv_image_height(o), h);
        assert_int_equal(rv_image_format(o), fmt);
        for (int y = 0; y < h; y++) {
            const uint8_t *a = row8(src, y), *b = row8(o, y);
            if (fmt == RV_FMT_RGBA8) {
                for (int x = 0; x < w; x++) {
                    assert_memory_equal(a + 4 * x, b + 4 * x, 3);
                    assert_int_equal(b[4 * x + 3], 255);
                }
            } else if (fmt == RV_FMT_RGBA16) {
                const uint16_t *a16 = row16(src, y), *b16 = row16(o, y);
                for (int x = 0; x < w; x++) {
                    assert_memory_equal(a16 + 4 * x, b16 + 4 * x, 6);
                    assert_int_equal(b16[4 * x + 3], 65535);
                }
            } else {
                assert_memory_equal(a, b, (size_t)w * bps); /* bit-exact, floats included */
            }
        }
    }
    /* The raster in the file, from the definition, for one pixel per row. */
    size_t hl = strlen(hdr);
    for (int y = 0; y < h; y++) {
        int x = (y * 7) % w;
        if (fmt == RV_FMT_GRAYF32) {
            unsigned char e[4];
            float_bytes(rowf(src, y)[x], 1, e);
            assert_memory_equal(file + hl + ((size_t)(h - 1 - y) * w + x) * 4, e, 4);
        } else if (bps == 2) {
            for (int c = 0; c < ch; c++) {
                unsigned v = row16(src, y)[x * (ch == 3 ? 4 : 1) + c];
                const unsigned char *f = file + hl + (((size_t)y * w + x) * ch + c) * 2;
                assert_int_equal(f[0], v >> 8);
                assert_int_equal(f[1], v & 255);
            }
        } else {
            for (int c = 0; c < ch; c++)
                assert_int_equal(file[hl + ((size_t)y * w + x) * ch + c],
                                 row8(src, y)[x * (ch == 3 ? 4 : 1) + c]);
        }
    }
    free(file);
    rv_image_destroy(&src);
    rv_image_destroy(&back);
    rv_image_destroy(&back_mem);
    assert_null(back);
    remove(path);
}

static void test_roundtrip(void **state)
{
    (void)state;
    static const RV_Format fmts[] = {RV_FMT_GRAY8, RV_FMT_GRAY16, RV_FMT_RGBA8, RV_FMT_RGBA16,
                                     RV_FMT_GRAYF32};
    static const int sizes[][2] = {{1, 1}, {17, 3}, {3, 17}, {1919, 1081}};
    for (size_t f = 0; f < RV_ARRAY_LEN_T(fmts); f++)
        for (size_t s = 0; s < RV_ARRAY_LEN_T(sizes); s++)
            roundtrip(fmts[f], sizes[s][0], sizes[s][1], 100 * f + s + 1);
}

/* ------------------------------------------------------------------ */
/* Hand-written files                                                   */
/* ------------------------------------------------------------------ */

static void test_p6_known(void **state)
{
    (void)state;
    static const unsigned char raster[18] = {
        255, 0, 0,   0, 255, 0,   0, 0, 255,
        1, 2, 3,     128, 64, 32, 250, 251, 252,
    };
    size_t len;
    unsigned char *b = concat("P6\n3 2\n255\n", raster, sizeof(raster), &len);
    RV_Image *img = decode(b, len);
    assert_int_equal(rv_image_format(img), RV_FMT_RGBA8);
    assert_int_equal(rv_image_width(img), 3);
    assert_int_equal(rv_image_height(img), 2);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++) {
            RV_Pixel p;
            memcpy(&p, row8(img, y) + 4 * x, 4);
            const unsigned char *e = raster + (y * 3 + x) * 3;
            assert_int_equal(p, rv_rgb(e[0], e[1], e[2]));
        }
    rv_image_destroy(&img);
    free(b);
}

static void test_p5_known(void **state)
{
    (void)state;
    /* Comments in the header, also glued to tokens; CR LF line ends. */
    static const unsigned char raster[4] = {0, 1, 128, 255};
    size_t len;
    unsigned char *b = concat("P5#c0\r\n# c1\r\n4#c2\r\n 1 #c3\n255\n", raster, 4, &len);
    RV_Image *img = decode(b, len);
    assert_int_equal(rv_image_format(img), RV_FMT_GRAY8);
    assert_int_equal(rv_image_width(img), 4);
    assert_int_equal(rv_image_height(img), 1);
    assert_memory_equal(row8(img, 0), raster, 4);
    rv_image_destroy(&img);
    free(b);

    /* A comment directly after maxval ends the header at its newline. */
    static const unsigned char r2[2] = {'#', '\n'}; /* raster bytes that look like a comment */
    b = concat("P5 2 1 255#x\n", r2, 2, &len);
    img = decode(b, len);
    assert_int_equal(row8(img, 0)[0], '#');
    assert_int_equal(row8(img, 0)[1], '\n');
    rv_image_destroy(&img);
    free(b);

    /* Raster starting with a whitespace byte: only one delimiter is consumed. */
    static const unsigned char r3[2] = {'\n', ' '};
    b = concat("P5\n2\n1\n255\n", r3, 2, &len);
    img = decode(b, len);
    assert_int_equal(row8(img, 0)[0], '\n');
    assert_int_equal(row8(img, 0)[1], ' ');
    rv_image_destroy(&img);
    free(b);
}

static void test_16bit_endianness(void **state)
{
    (void)state;
    static const unsigned char g[4] = {0x12, 0x34, 0xff, 0x01};
    size_t len;
    unsigned char *b = concat("P5\n2 1\n65535\n", g, 4, &len);
    RV_Image *img = decode(b, len);
    assert_int_equal(rv_image_format(img), RV_FMT_GRAY16);
    assert_int_equal(row16(img, 0)[0], 0x1234);
    assert_int_equal(row16(img, 0)[1], 0xff01);
    rv_image_destroy(&img);
    free(b);

    static const unsigned char c[6] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06};
    b = concat("P6\n1 1\n65535\n", c, 6, &len);
    img = decode(b, len);
    assert_int_equal(rv_image_format(img), RV_FMT_RGBA16);
    RV_Pixel16 p;
    memcpy(&p, row16(img, 0), 8);
    assert_true(p == rv16_rgba(0x0102, 0x0304, 0x0506, 65535));
    rv_image_destroy(&img);
    free(b);

    /* Writer: big-endian samples. */
    RV_Image *w = NULL;
    assert_int_equal(rv_image_create(g_ctx, 2, 1, RV_FMT_GRAY16, &w), 0);
    uint16_t *d = rv_image_write(w, 0, NULL);
    d[0] = 0xabcd;
    d[1] = 0x0102;
    char path[256];
    tmp_path(path, sizeof(path), ".pgm");
    assert_int_equal(rv_image_write_file(w, path), 0);
    unsigned char *f = load(path, &len);
    static const char want[] = "P5\n2 1\n65535\n\xab\xcd\x01\x02";
    assert_int_equal(len, sizeof(want) - 1);
    assert_memory_equal(f, want, len);
    free(f);
    remove(path);
    rv_image_destroy(&w);
}

static void test_maxval_scaling(void **state)
{
    (void)state;
    /* P5 maxval 100: 8-bit, rescaled to 0..255. */
    static const unsigned char r[5] = {0, 1, 50, 99, 100};
    size_t len;
    unsigned char *b = concat("P5\n5 1\n100\n", r, 5, &len);
    RV_Image *img = decode(b, len);
    assert_int_equal(rv_image_format(img), RV_FMT_GRAY8);
    for (int x = 0; x < 5; x++)
        assert_int_equal(row8(img, 0)[x], scaled(r[x], 100, 255));
    rv_image_destroy(&img);
    free(b);

    /* P5 maxval 1023 (10 bit): 16-bit, rescaled to 0..65535. */
    static const unsigned char r16[6] = {0x00, 0x00, 0x01, 0x00, 0x03, 0xff};
    b = concat("P5\n3 1\n1023\n", r16, 6, &len);
    img = decode(b, len);
    assert_int_equal(rv_image_format(img), RV_FMT_GRAY16);
    assert_int_equal(row16(img, 0)[0], 0);
    assert_int_equal(row16(img, 0)[1], scaled(256, 1023, 65535));
    assert_int_equal(row16(img, 0)[2], 65535);
    rv_image_destroy(&img);
    free(b);

    /* maxval 256 is the smallest 16-bit one (two bytes a sample). */
    static const unsigned char r256[2] = {0x01, 0x00};
    b = concat("P5\n1 1\n256\n", r256, 2, &len);
    img = decode(b, len);
    assert_int_equal(rv_image_format(img), RV_FMT_GRAY16);
    assert_int_equal(row16(img, 0)[0], 65535);
    rv_image_destroy(&img);
    free(b);
}

static void test_plain(void **state)
{
    (void)state;
    /* P2, maxval 7, comments everywhere, tabs, no newline at the end. */
    static const char p2[] = "P2\n# feep\n3 # w\n2\n#c\n7\n0 1\t2 # row\n3\n5 7";
    RV_Image *img = decode(p2, sizeof(p2) - 1);
    assert_int_equal(rv_image_format(img), RV_FMT_GRAY8);
    assert_int_equal(rv_image_width(img), 3);
    assert_int_equal(rv_image_height(img), 2);
    static const unsigned v[6] = {0, 1, 2, 3, 5, 7};
    for (int i = 0; i < 6; i++)
        assert_int_equal(row8(img, i / 3)[i % 3], scaled(v[i], 7, 255));
    rv_image_destroy(&img);

    static const char p3[] = "P3 2 1 255 1 2 3 250 251 252\n";
    img = decode(p3, sizeof(p3) - 1);
    assert_int_equal(rv_image_format(img), RV_FMT_RGBA8);
    RV_Pixel px[2];
    memcpy(px, row8(img, 0), 8);
    assert_int_equal(px[0], rv_rgb(1, 2, 3));
    assert_int_equal(px[1], rv_rgb(250, 251, 252));
    rv_image_destroy(&img);

    static const char p3w[] = "P3\n1 1\n1000\n0 500 1000\n";
    img = decode(p3w, sizeof(p3w) - 1);
    assert_int_equal(rv_image_format(img), RV_FMT_RGBA16);
    RV_Pixel16 q;
    memcpy(&q, row16(img, 0), 8);
    assert_true(q == rv16_rgba(0, (int)scaled(500, 1000, 65535), 65535, 65535));
    rv_image_destroy(&img);

    static const char p2w[] = "P2 2 1 65535 65535 00042";
    img = decode(p2w, sizeof(p2w) - 1);
    assert_int_equal(row16(img, 0)[0], 65535);
    assert_int_equal(row16(img, 0)[1], 42);
    rv_image_destroy(&img);
}

static void test_pfm(void **state)
{
    (void)state;
    const int w = 2, h = 3;
    /* scales written in other ways, among them values a double holds only as
     * subnormals (100000e-325 = 1e-320: read through 10^-325 it was 0) */
    static const char *const hdrs[2][3] = {{"Pf 2\n3 2.5e+0\n", "Pf\n2 3\n100000e-325\n", "Pf\n2 3\n4.9e-324\n"},
                                           {"Pf\n2 3\n-0.0039\n", "Pf\n2 3\n-0.00001e-315\n", "Pf\n2 3\n-1E+308\n"}};
    for (int t = 0; t < 6; t++) {
        const int little = t & 1;
        /* File row k (bottom first) holds 10k + x + 0.25; image row y = h-1-k. */
        unsigned char raster[2 * 3 * 4];
        for (int k = 0; k < h; k++)
            for (int x = 0; x < w; x++)
                float_bytes(10.0f * k + x + 0.25f, little, raster + (k * w + x) * 4);
        size_t len;
        unsigned char *b = concat(hdrs[little][t >> 1], raster, sizeof(raster), &len);
        RV_Image *img = decode(b, len);
        assert_int_equal(rv_image_format(img), RV_FMT_GRAYF32);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                assert_true(rowf(img, y)[x] == 10.0f * (h - 1 - y) + x + 0.25f);
        rv_image_destroy(&img);
        free(b);
    }

    /* Writer: "Pf", scale -1.0, little-endian, bottom row first. */
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(g_ctx, 2, 2, RV_FMT_GRAYF32, &img), 0);
    ptrdiff_t pitch;
    unsigned char *d = rv_image_write(img, 0, &pitch);
    const float v[4] = {1.5f, -2.0f, 3.0e-5f, 65504.0f};
    memcpy(d, v, 8);
    memcpy(d + pitch, v + 2, 8);
    char path[256];
    tmp_path(path, sizeof(path), ".pfm");
    assert_int_equal(rv_image_write_file(img, path), 0);
    size_t len;
    unsigned char *f = load(path, &len);
    const char *hdr = "Pf\n2 2\n-1.0\n";
    size_t hl = strlen(hdr);
    assert_int_equal(len, hl + 16);
    assert_memory_equal(f, hdr, hl);
    unsigned char e[4];
    static const int order[4] = {2, 3, 0, 1}; /* bottom row (v[2], v[3]) first */
    for (int i = 0; i < 4; i++) {
        float_bytes(v[order[i]], 1, e);
        assert_memory_equal(f + hl + 4 * i, e, 4);
    }
    free(f);
    remove(path);
    rv_image_destroy(&img);
}

static void test_writer_p6_bytes(void **state)
{
    (void)state;
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(g_ctx, 3, 2, RV_FMT_RGBA8, &img), 0);
    ptrdiff_t pitch;
    unsigned char *d = rv_image_write(img, 0, &pitch);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++) {
            RV_Pixel p = rv_rgba(10 * x + y, 100 + x, 200 + y, 7); /* alpha is dropped */
            memcpy(d + y * pitch + 4 * x, &p, 4);
        }
    char path[256];
    tmp_path(path, sizeof(path), ".ppm");
    assert_int_equal(rv_image_write_file(img, path), 0);
    size_t len;
    unsigned char *f = load(path, &len);
    const char *hdr = "P6\n3 2\n255\n";
    size_t hl = strlen(hdr);
    assert_int_equal(len, hl + 18);
    assert_memory_equal(f, hdr, hl);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++) {
            const unsigned char *q = f + hl + (y * 3 + x) * 3;
            assert_int_equal(q[0], 10 * x + y);
            assert_int_equal(q[1], 100 + x);
            assert_int_equal(q[2], 200 + y);
        }
    free(f);
    remove(path);
    rv_image_destroy(&img);
}

static void test_trailing_data(void **state)
{
    (void)state;
    /* Two images back to back: the first is read, the rest ignored. */
    static const char two[] = "P5\n1 1\n255\n\x2aP5\n1 1\n255\n\x07";
    RV_Image *img = decode(two, sizeof(two) - 1);
    assert_int_equal(row8(img, 0)[0], 42);
    rv_image_destroy(&img);
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

typedef struct bad_case {
    const char *what;
    const char *data;
    size_t len;
    int code;
} bad_case;

#define BAD(what, lit, code) {what, lit, sizeof(lit) - 1, code}
#define LONG70 "1111111111111111111111111111111111111111111111111111111111111111111111"

static const bad_case bad_cases[] = {
    BAD("empty", "", RV_EBADMSG),
    BAD("one byte", "P", RV_EBADMSG),
    BAD("bad magic P9", "P9\n1 1\n255\n\0", RV_EBADMSG),
    BAD("bad magic text", "GIF89a", RV_EBADMSG),
    BAD("lower-case magic", "p5\n1 1\n255\n\0", RV_EBADMSG),
    BAD("magic only", "P5", RV_EBADMSG),
    BAD("no whitespace after magic", "P51 1 255\n\0", RV_EBADMSG),
    BAD("width 0", "P5\n0 1\n255\n\0", RV_EBADMSG),
    BAD("height 0", "P5\n1 0\n255\n\0", RV_EBADMSG),
    BAD("negative width", "P5\n-1 1\n255\n\0", RV_EBADMSG),
    BAD("width above RV_MAX_DIM", "P5\n65537 1\n255\n\0", RV_EBADMSG),
    BAD("height overflows int", "P5\n1 99999999999999999999\n255\n\0", RV_EBADMSG),
    BAD("width 2^32 + 1", "P5\n4294967297 1\n255\n\0", RV_EBADMSG),
    BAD("65536x65536 with 1 byte", "P5\n65536 65536\n255\n\0", RV_EBADMSG),
    BAD("65536x65536 16-bit RGB", "P6\n65536 65536\n65535\n\0\0\0\0\0\0", RV_EBADMSG),
    BAD("maxval 0", "P5\n1 1\n0\n\0", RV_EBADMSG),
    BAD("maxval 65536", "P5\n1 1\n65536\n\0\0", RV_EBADMSG),
    BAD("maxval overflows", "P5\n1 1\n18446744073709551617\n\0\0", RV_EBADMSG),
    BAD("non-numeric width", "P5\nabc 1\n255\n\0", RV_EBADMSG),
    BAD("missing whitespace 3x2", "P5\n3x2\n255\n\0\0\0\0\0\0", RV_EBADMSG),
    BAD("plus sign", "P5\n+1 1\n255\n\0", RV_EBADMSG),
    BAD("non-ASCII byte", "P5\n1 1 \xff" "255\n\0", RV_EBADMSG),
    BAD("truncated at height", "P5\n1\n", RV_EBADMSG),
    BAD("header without raster", "P5\n1 1\n255", RV_EBADMSG),
    BAD("header and delimiter, no raster", "P5\n1 1\n255\n", RV_EBADMSG),
    BAD("garbage after maxval", "P5\n1 1\n255x\0", RV_EBADMSG),
    BAD("unterminated comment after maxval", "P5\n1 1\n255#comment", RV_EBADMSG),
    BAD("unterminated comment in header", "P5\n1 1 # no end", RV_EBADMSG),
    BAD("truncated P5 raster", "P5\n2 2\n255\n\1\2\3", RV_EBADMSG),
    BAD("truncated P6 raster", "P6\n2 1\n255\n\1\2\3\4\5", RV_EBADMSG),
    BAD("truncated 16-bit raster", "P5\n2 1\n65535\n\1\2\3", RV_EBADMSG),
    BAD("8-bit sample above maxval", "P5\n2 1\n100\n\x10\x65", RV_EBADMSG),
    BAD("RGB sample above maxval", "P6\n1 1\n200\n\x01\x02\xc9", RV_EBADMSG),
    BAD("16-bit sample above maxval", "P5\n1 1\n1000\n\x03\xe9", RV_EBADMSG),
    BAD("plain truncated (size check)", "P2\n2 1\n255\n1", RV_EBADMSG),
    BAD("plain non-numeric sample", "P2\n2 1\n255\n1 x", RV_EBADMSG),
    BAD("plain sample above maxval", "P2\n2 1\n255\n1 256", RV_EBADMSG),
    BAD("plain negative sample", "P2\n2 1\n255\n1 -2", RV_EBADMSG),
    BAD("plain missing samples", "P3\n1 1\n255\n1 2", RV_EBADMSG),
    BAD("plain missing samples after comment", "P3\n1 1\n255\n1 2 #3", RV_EBADMSG),
    BAD("plain huge sample", "P3\n1 1\n255\n1 2 99999999999999999999", RV_EBADMSG),
    BAD("plain garbage glued to sample", "P2\n1 1\n255\n7x", RV_EBADMSG),
    BAD("plain float sample", "P2\n2 1\n255\n1.5 2", RV_EBADMSG),
    BAD("PFM scale 0", "Pf\n1 1\n0\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM scale -0.0", "Pf\n1 1\n-0.0\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM scale nan", "Pf\n1 1\nnan\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM scale inf", "Pf\n1 1\n-inf\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM scale overflows to inf", "Pf\n1 1\n1e999\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM scale underflows to 0", "Pf\n1 1\n1e-999\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM scale malformed", "Pf\n1 1\n-1.0.0\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM scale sign only", "Pf\n1 1\n-\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM scale bad exponent", "Pf\n1 1\n1e\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM scale too long", "Pf\n1 1\n" LONG70 "\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM without raster", "Pf\n1 1\n-1.0", RV_EBADMSG),
    BAD("PFM truncated raster", "Pf\n2 2\n-1.0\n\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", RV_EBADMSG),
    BAD("PFM comment", "Pf\n# c\n1 1\n-1\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM width 0", "Pf\n0 1\n-1\n\0\0\0\0", RV_EBADMSG),
    BAD("PFM huge", "Pf\n65536 65536\n-1\n\0\0\0\0", RV_EBADMSG),
    BAD("colour PFM", "PF\n1 1\n-1.0\n\0\0\0\0\0\0\0\0\0\0\0\0", RV_ENOSYS),
    BAD("PBM", "P4\n8 1\n\0", RV_ENOSYS),
    BAD("plain PBM", "P1\n1 1\n0", RV_ENOSYS),
    BAD("PAM", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n\0", RV_ENOSYS),
};

static void test_malformed(void **state)
{
    (void)state;
    assert_true(RV_ARRAY_LEN_T(bad_cases) >= 25);
    for (size_t i = 0; i < RV_ARRAY_LEN_T(bad_cases); i++) {
        const bad_case *c = &bad_cases[i];
        /* Copy into an exact-size heap buffer so ASan catches any over-read. */
        unsigned char *buf = malloc(c->len ? c->len : 1);
        assert_non_null(buf);
        memcpy(buf, c->data, c->len);
        RV_Image *img = (RV_Image *)(uintptr_t)1;
        int err = rv_image_read_mem(g_ctx, buf, c->len, &img);
        const char *msg = rv_context_error(g_ctx);
        if (err != c->code)
            fprintf(stderr, "case '%s': got %d (%s), want %d\n", c->what, err, msg, c->code);
        assert_int_equal(err, c->code);
        assert_null(img);
        /* The message names the source and says something. */
        assert_true(strncmp(msg, "<memory>: ", 10) == 0);
        assert_true(strlen(msg) > 20);
        if (getenv("RV_TEST_VERBOSE"))
            fprintf(stderr, "%-36s -> %s\n", c->what, msg);
        free(buf);
    }
}

/* Valid header variants that must be accepted. */
static void test_accepted_variants(void **state)
{
    (void)state;
    static const struct { const char *d; size_t len; unsigned v; } ok[] = {
#define OK(lit, v) {lit, sizeof(lit) - 1, v}
        OK("P5\r1\t1\f255\r\x09", 9),         /* CR, TAB, FF as separators */
        OK("P5#c\n1#c\n1#c\n255#c\n\x07", 7), /* comments glued to every token */
        OK("P5\n001 0001\n000255\n\x05", 5),  /* leading zeros */
        OK("P5 1 1 255\n\x03trailing", 3),    /* trailing bytes ignored */
        OK("P5\v1 1 255\v\x04", 4),          /* VT */
    };
    for (size_t i = 0; i < RV_ARRAY_LEN_T(ok); i++) {
        RV_Image *img = decode(ok[i].d, ok[i].len);
        assert_int_equal(rv_image_width(img), 1);
        assert_int_equal(row8(img, 0)[0], ok[i].v);
        rv_image_destroy(&img);
    }
}

/* Every proper prefix of a valid binary file fails cleanly; plain files up to the last sample. */
static void test_truncation_sweep(void **state)
{
    (void)state;
    unsigned char r[64];
    for (int i = 0; i < 64; i++)
        r[i] = (unsigned char)(i * 3);
    const char *hdrs[] = {"P5\n4 3\n255\n", "P6 2 2 255\n", "P5\n3 2\n65535\n", "P6\n1 2\n1000\n",
                          "Pf\n2 2\n-1.0\n", "Pf\n1 3\n1\n"};
    const size_t rl[] = {12, 12, 12, 12, 16, 12};
    for (size_t k = 0; k < RV_ARRAY_LEN_T(hdrs); k++) {
        if (k == 3) /* maxval 1000: keep samples <= 1000 */
            for (int i = 0; i < 12; i += 2)
                r[i] = 0;
        size_t len;
        unsigned char *full = concat(hdrs[k], r, rl[k], &len);
        RV_Image *img = decode(full, len);
        rv_image_destroy(&img);
        for (size_t n = 0; n < len; n++) {
            unsigned char *b = malloc(n ? n : 1);
            memcpy(b, full, n);
            img = NULL;
            int err = rv_image_read_mem(g_ctx, b, n, &img);
            assert_int_equal(err, RV_EBADMSG);
            assert_null(img);
            free(b);
        }
        free(full);
    }
    static const char plain[] = "P3 # x\n2 1\n# y\n255\n 10 20 30\n40 50 60\n";
    const char *last = strstr(plain, "60");
    for (size_t n = 0; n <= (size_t)(last - plain); n++) {
        char *b = malloc(n ? n : 1);
        memcpy(b, plain, n);
        RV_Image *img = NULL;
        assert_int_equal(rv_image_read_mem(g_ctx, b, n, &img), RV_EBADMSG);
        free(b);
    }
}

/* Random mutations of valid files: any result but a crash, and a success is a sane image. */
static void test_mutations(void **state)
{
    (void)state;
    static const char *seeds[] = {
        "P5\n4 3\n255\n0123456789ab", "P6\n2 2\n255\n0123456789ab",
        "P5\n3 2\n65535\n0123456789ab", "P2\n3 1\n# c\n7\n1 2 3\n", "P3 1 2 1000 1 2 3 4 5 6",
        "Pf\n2 1\n-1.0\n01234567", "Pf\n1 2\n1.0\n01234567",
    };
    static const char alphabet[] = "0123456789 \n#-+.eP\xff\x00";
    uint64_t st = 12345;
    for (int it = 0; it < 20000; it++) {
        const char *s = seeds[it % RV_ARRAY_LEN_T(seeds)];
        size_t n = strlen(s);
        unsigned char b[64];
        memcpy(b, s, n);
        int edits = 1 + (int)(rv_test_rand(&st) % 3);
        for (int e = 0; e < edits; e++) {
            uint64_t r = rv_test_rand(&st);
            size_t pos = (size_t)((r >> 8) % (n + 1));
            unsigned char c = (unsigned char)alphabet[(r >> 40) % (sizeof(alphabet) - 1)];
            switch (r % 4) {
            case 0: /* replace */
                if (pos < n)
                    b[pos] = c;
                break;
            case 1: /* insert */
                if (n < sizeof(b)) {
                    memmove(b + pos + 1, b + pos, n - pos);
                    b[pos] = c;
                    n++;
                }
                break;
            case 2: /* delete */
                if (pos < n) {
                    memmove(b + pos, b + pos + 1, n - pos - 1);
                    n--;
                }
                break;
            default: /* truncate */
                n = pos;
                break;
            }
        }
        unsigned char *h = malloc(n ? n : 1);
        memcpy(h, b, n);
        RV_Image *img = NULL;
        int err = rv_image_read_mem(g_ctx, h, n, &img);
        if (err == 0) {
            assert_non_null(img);
            int w = rv_image_width(img), hh = rv_image_height(img);
            assert_true(w >= 1 && hh >= 1 && (size_t)w * (size_t)hh <= n);
            rv_image_destroy(&img);
        } else {
            assert_true(err == RV_EBADMSG || err == RV_ENOSYS);
            assert_null(img);
        }
        free(h);
    }
}

static void test_file_errors(void **state)
{
    (void)state;
    RV_Image *img = NULL;
    const char *missing = "/nonexistent-dir-rv/none.pgm";
    assert_int_equal(rv_image_read_file(g_ctx, missing, &img), RV_ENOENT);
    assert_null(img);
    assert_non_null(strstr(rv_context_error(g_ctx), missing));

    assert_int_equal(rv_image_read_file(g_ctx, "/", &img), RV_EIO);
    assert_non_null(strstr(rv_context_error(g_ctx), "directory"));

    /* Non-regular empty input. */
    assert_int_equal(rv_image_read_file(g_ctx, "/dev/null", &img), RV_EBADMSG);

    /* A malformed file: the message names the file. */
    char path[256];
    tmp_path(path, sizeof(path), ".pgm");
    save(path, "P5\n2 2\n255\n\1", 12);
    assert_int_equal(rv_image_read_file(g_ctx, path, &img), RV_EBADMSG);
    assert_null(img);
    const char *msg = rv_context_error(g_ctx);
    assert_true(strncmp(msg, path, strlen(path)) == 0);
    assert_non_null(strstr(msg, "truncated"));
    remove(path);

    /* Writing: YUV has no PNM form; a missing directory. */
    RV_Image *yuv = NULL, *g = NULL;
    assert_int_equal(rv_image_create(g_ctx, 4, 4, RV_FMT_YUV420P8, &yuv), 0);
    assert_int_equal(rv_image_write_file(yuv, path), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(g_ctx), "yuv420p8"));
    rv_image_destroy(&yuv);
    assert_int_equal(rv_image_create(g_ctx, 4, 4, RV_FMT_GRAY8, &g), 0);
    assert_int_equal(rv_image_write_file(g, missing), RV_ENOENT);
    assert_non_null(strstr(rv_context_error(g_ctx), missing));
    /* a path that exists but is no file to write (a directory): RV_EIO */
    assert_int_equal(rv_image_write_file(g, "/"), RV_EIO);
    /* /dev/full: every write fails with ENOSPC; the device node must not be removed. */
    if (access("/dev/full", W_OK) == 0) {
        assert_int_equal(rv_image_write_file(g, "/dev/full"), RV_EIO);
        assert_non_null(strstr(rv_context_error(g_ctx), "/dev/full"));
        struct stat st;
        assert_int_equal(stat("/dev/full", &st), 0);
        assert_true(S_ISCHR(st.st_mode));
    }
    /* A failed write of a regular file (here: past RLIMIT_FSIZE) removes it. */
    {
        RV_Image *big = NULL;
        assert_int_equal(rv_image_create(g_ctx, 300, 300, RV_FMT_GRAY8, &big), 0);
        struct rlimit old, lim;
        assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
        lim = old;
        lim.rlim_cur = 1000;
        void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
        int err = rv_image_write_file(big, path);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
        signal(SIGXFSZ, prev);
        assert_int_equal(err, RV_EIO);
        assert_non_null(strstr(rv_context_error(g_ctx), path));
        assert_int_equal(access(path, F_OK), -1);
        rv_image_destroy(&big);
    }
    rv_image_destroy(&g);

    /* Argument checks. */
    assert_int_equal(rv_image_read_file(NULL, path, &img), RV_EINVAL);
    assert_int_equal(rv_image_read_file(g_ctx, NULL, &img), RV_EINVAL);
    assert_int_equal(rv_image_read_file(g_ctx, path, NULL), RV_EINVAL);
    assert_int_equal(rv_image_read_mem(g_ctx, NULL, 5, &img), RV_EINVAL);
    assert_int_equal(rv_image_read_mem(g_ctx, NULL, 0, &img), RV_EBADMSG);
    assert_int_equal(rv_image_write_file(NULL, path), RV_EINVAL);
}

/* Reading from a pipe (non-regular file; the buffer grows past its first 64 KiB). */
static void test_pipe(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int w = 300, h = 250;
#ifdef F_SETPIPE_SZ
    if (fcntl(fds[1], F_SETPIPE_SZ, 1 << 20) < 0)
        w = 200, h = 100; /* fits the default 64 KiB pipe */
#else
    w = 200, h = 100;
#endif
    char hdr[64];
    snprintf(hdr, sizeof(hdr), "P5\n%d %d\n255\n", w, h);
    size_t rl = (size_t)w * h;
    unsigned char *r = malloc(rl);
    for (size_t i = 0; i < rl; i++)
        r[i] = (unsigned char)(i * 7 + (i >> 8));
    size_t len;
    unsigned char *b = concat(hdr, r, rl, &len);
    assert_int_equal(write(fds[1], b, len), (ssize_t)len);
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
    RV_Image *img = NULL;
    int err = rv_image_read_file(g_ctx, path, &img);
    if (err < 0)
        fprintf(stderr, "%s\n", rv_context_error(g_ctx));
    assert_int_equal(err, 0);
    for (int y = 0; y < h; y++)
        assert_memory_equal(row8(img, y), r + (size_t)y * w, (size_t)w);
    rv_image_destroy(&img);
    close(fds[0]);
    free(r);
    free(b);
}

/* A pipe delivering exactly 1 GiB (a 1 x 1 image and bytes after it, which
 * are ignored) is read; one byte more is RV_EOVERFLOW. A child process
 * writes it. */
static void pipe_of(size_t total, int want)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        static unsigned char chunk[1 << 16];
        memcpy(chunk, "P5\n1 1\n255\n\x07", 12);
        size_t left = total;
        while (left) {
            const size_t n = left < sizeof(chunk) ? left : sizeof(chunk);
            const ssize_t k = write(fds[1], chunk, n);
            if (k <= 0)
                _exit(errno == EPIPE ? 0 : 1);
            left -= (size_t)k;
            memset(chunk, 0, 12);
        }
        _exit(0);
    }
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
    RV_Image *img = NULL;
    const int err = rv_image_read_file(g_ctx, path, &img);
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (err != want)
        fail_msg("%zu bytes through a pipe: %d (%s), expected %d", total, err, rv_context_error(g_ctx), want);
    if (!want) {
        assert_int_equal(rv_image_width(img), 1);
        assert_int_equal(row8(img, 0)[0], 7);
    } else {
        assert_non_null(strstr(rv_context_error(g_ctx), "more than"));
    }
    rv_image_destroy(&img);
}

static void test_pipe_limit(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN); /* the child's write after the reader stops */
    pipe_of((size_t)1 << 30, 0);
    pipe_of(((size_t)1 << 30) + 1, RV_EOVERFLOW);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_p6_known),
        cmocka_unit_test(test_p5_known),
        cmocka_unit_test(test_16bit_endianness),
        cmocka_unit_test(test_maxval_scaling),
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_pfm),
        cmocka_unit_test(test_writer_p6_bytes),
        cmocka_unit_test(test_trailing_data),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_accepted_variants),
        cmocka_unit_test(test_truncation_sweep),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_pipe),
        cmocka_unit_test(test_pipe_limit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
