/*
 * imageio.c - PGM/PPM/PFM reading and writing.
 *
 * Reading is one parser over a byte buffer (rv_image_read_mem); the file
 * reader loads the file into memory and hands it over. The parser never
 * trusts the header: every number is range-checked while it is read (no
 * int overflow), the raster size is computed in 64 bits from already
 * bounded dimensions, and the buffer must hold the whole raster before the
 * image is allocated. All reads go through bounds-checked cursors.
 *
 * Decisions (see docs/imageio.md):
 *  - header whitespace is any of space, TAB, CR, LF, VT, FF; a '#' comment
 *    (PGM/PPM only) runs to the next CR or LF and counts as whitespace;
 *  - the magic number must be followed by whitespace or a comment;
 *  - binary rasters start after exactly one whitespace character after maxval
 *    (or after a comment that directly follows maxval, through its newline);
 *  - a sample above maxval is an error (RV_EBADMSG), not clamped;
 *  - maxval other than 255/65535 is rescaled: v' = round(v * M / maxval)
 *    with M = 255 (maxval <= 255) or 65535;
 *  - bytes after the raster are ignored (netpbm streams may concatenate
 *    images; the first one is read);
 *  - colour PFM ("PF"), PBM (P1/P4) and PAM (P7) are refused with RV_ENOSYS.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* Non-regular inputs (pipes, devices) are read up to this many bytes. */
#define RV_IMAGEIO_MAX_STREAM ((size_t)1 << 30)

/* ------------------------------------------------------------------ */
/* Parsing                                                              */
/* ------------------------------------------------------------------ */

typedef struct rd {
    RV_Context *ctx;
    const char *name;        /* file name or "<memory>", for messages */
    const unsigned char *p;
    size_t n, pos;
} rd;

static int is_ws(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* Readable description of the byte at the cursor, for messages. */
static const char *describe(const rd *r, char *buf, size_t size)
{
    if (r->pos >= r->n) {
        snprintf(buf, size, "end of data");
    } else {
        int c = r->p[r->pos];
        if (c > 32 && c < 127)
            snprintf(buf, size, "'%c' at byte %zu", c, r->pos);
        else
            snprintf(buf, size, "byte 0x%02x at byte %zu", c, r->pos);
    }
    return buf;
}

static int bad(const rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const rd *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return rv__error(r->ctx, RV_EBADMSG, "%s: %s", r->name, msg);
}

/* Skips whitespace and (if allowed) comments; returns how many bytes it skipped. */
static size_t skip_space(rd *r, int comments)
{
    size_t start = r->pos;
    while (r->pos < r->n) {
        int c = r->p[r->pos];
        if (is_ws(c)) {
            r->pos++;
        } else if (c == '#' && comments) {
            while (r->pos < r->n && r->p[r->pos] != '\n' && r->p[r->pos] != '\r')
                r->pos++;
        } else {
            break;
        }
    }
    return r->pos - start;
}

/*
 * Reads an unsigned decimal number after optional whitespace/comments. The
 * value saturates at UINT32_MAX + 1 (callers range-check it). The number must
 * end at whitespace, a comment (if allowed) or the end of the data.
 */
static int read_uint(rd *r, const char *what, int comments, uint64_t *out)
{
    char d[48];
    skip_space(r, comments);
    if (r->pos >= r->n)
        return bad(r, "truncated: expected the %s, found the end of the data", what);
    if (!is_digit(r->p[r->pos]))
        return bad(r, "expected the %s (a decimal number), found %s", what,
                   describe(r, d, sizeof(d)));
    uint64_t v = 0;
    while (r->pos < r->n && is_digit(r->p[r->pos])) {
        if (v <= UINT32_MAX)
            v = v * 10 + (uint64_t)(r->p[r->pos] - '0');
        r->pos++;
    }
    if (v > UINT32_MAX)
        v = (uint64_t)UINT32_MAX + 1;
    if (r->pos < r->n && !is_ws(r->p[r->pos]) && !(comments && r->p[r->pos] == '#'))
        return bad(r, "the %s must be followed by whitespace, found %s", what,
                   describe(r, d, sizeof(d)));
    *out = v;
    return 0;
}

static int check_dim(rd *r, const char *what, uint64_t v)
{
    if (v == 0)
        return bad(r, "%s is 0 (must be 1..%d)", what, RV_MAX_DIM);
    if (v > RV_MAX_DIM) {
        if (v > UINT32_MAX)
            return bad(r, "%s is too large (limit %d)", what, RV_MAX_DIM);
        return bad(r, "%s %llu exceeds the limit %d", what, (unsigned long long)v, RV_MAX_DIM);
    }
    return 0;
}

/*
 * Locale-independent parse of a decimal floating-point token
 * ([+-]digits[.digits][(e|E)[+-]digits]); the whole token must match.
 */
static int parse_decimal(const char *s, size_t len, double *out)
{
    size_t i = 0;
    int neg = 0, ndig = 0, fracdig = 0;
    double m = 0.0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    while (i < len && is_digit(s[i])) {
        m = m * 10.0 + (s[i++] - '0');
        ndig++;
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && is_digit(s[i])) {
            m = m * 10.0 + (s[i++] - '0');
            ndig++;
            fracdig++;
        }
    }
    if (ndig == 0)
        return -1;
    long e = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0, edig = 0;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        while (i < len && is_digit(s[i])) {
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
            i++;
            edig++;
        }
        if (!edig)
            return -1;
        if (eneg)
            e = -e;
    }
    if (i != len)
        return -1;
    /* the exponent in two halves, so that a value a double holds is read as
     * such: 100000e-325 (1e-320, subnormal) would underflow through 10^-325;
     * 1e-999 still reads as 0 */
    const long ex = e - fracdig, h = ex / 2;
    double v = m == 0.0 ? 0.0 : m * pow(10.0, (double)h) * pow(10.0, (double)(ex - h));
    *out = neg ? -v : v;
    return 0;
}

/* Scales a sample v <= maxval to 0..full, rounding to nearest. */
static inline uint32_t rescale(uint32_t v, uint32_t maxval, uint32_t full)
{
    return (v * full + maxval / 2) / maxval;
}

static inline uint32_t be16(const unsigned char *b) { return (uint32_t)b[0] << 8 | b[1]; }

static int make_image(rd *r, int w, int h, RV_Format fmt, RV_Image **img, unsigned char **dst,
                      ptrdiff_t *pitch)
{
    int err = rv_image_create(r->ctx, w, h, fmt, img);
    if (err < 0)
        return err;
    *dst = rv_image_write(*img, 0, pitch);
    if (!*dst) {
        rv_image_destroy(img);
        return rv__error(r->ctx, RV_EIO, "%s: cannot access the new image's pixels", r->name);
    }
    return 0;
}

/* PGM (ch = 1) or PPM (ch = 3), after the magic number. */
static int read_pnm(rd *r, int ch, int plain, RV_Image **out)
{
    uint64_t w, h, maxval;
    int err;
    if ((err = read_uint(r, "width", 1, &w)) < 0 || (err = check_dim(r, "width", w)) < 0 ||
        (err = read_uint(r, "height", 1, &h)) < 0 || (err = check_dim(r, "height", h)) < 0 ||
        (err = read_uint(r, "maxval", 1, &maxval)) < 0)
        return err;
    if (maxval == 0 || maxval > 65535) {
        if (maxval > UINT32_MAX)
            return bad(r, "maxval is too large (must be 1..65535)");
        return bad(r, "maxval %llu is outside 1..65535", (unsigned long long)maxval);
    }
    const uint32_t mv = (uint32_t)maxval;
    const int bps = mv > 255 ? 2 : 1;
    const uint32_t full = bps == 1 ? 255u : 65535u;
    const uint64_t samples = w * h * (uint64_t)ch; /* <= 3 * 2^32 */
    const RV_Format fmt = ch == 1 ? (bps == 1 ? RV_FMT_GRAY8 : RV_FMT_GRAY16)
                                  : (bps == 1 ? RV_FMT_RGBA8 : RV_FMT_RGBA16);
    const int iw = (int)w, ih = (int)h;

    if (!plain) {
        /* Exactly one whitespace character (or a comment through its end of line). */
        if (r->pos >= r->n)
            return bad(r, "truncated: the header ends at maxval, no raster follows");
        if (r->p[r->pos] == '#') {
            while (r->pos < r->n && r->p[r->pos] != '\n' && r->p[r->pos] != '\r')
                r->pos++;
            if (r->pos >= r->n)
                return bad(r, "truncated: the comment after maxval does not end, no raster follows");
        }
        r->pos++; /* the single whitespace (read_uint checked it is one) */
        const uint64_t need = samples * (uint64_t)bps;
        const uint64_t avail = r->n - r->pos;
        if (avail < need)
            return bad(r, "truncated: a %llux%llu %s raster with maxval %u needs %llu bytes, only %llu present",
                       (unsigned long long)w, (unsigned long long)h, ch == 1 ? "PGM" : "PPM", mv,
                       (unsigned long long)need, (unsigned long long)avail);
    } else {
        /* Each sample takes at least one digit and one separator (none after the last). */
        const uint64_t need = 2 * samples - 1;
        const uint64_t avail = r->n - r->pos;
        if (avail < need)
            return bad(r, "truncated: %llu samples need at least %llu bytes, only %llu present",
                       (unsigned long long)samples, (unsigned long long)need,
                       (unsigned long long)avail);
    }

    RV_Image *img = NULL;
    unsigned char *dst;
    ptrdiff_t pitch;
    if ((err = make_image(r, iw, ih, fmt, &img, &dst, &pitch)) < 0)
        return err;

    /* 8-bit rescaling table (entries above maxval are never used: checked first). */
    uint8_t lut[256];
    if (bps == 1)
        for (uint32_t v = 0; v < 256; v++)
            lut[v] = (uint8_t)(v <= mv ? rescale(v, mv, 255) : 255);

    for (int y = 0; y < ih; y++) {
        unsigned char *row = dst + (ptrdiff_t)y * pitch;
        if (plain) {
            for (int x = 0; x < iw; x++) {
                for (int c = 0; c < ch; c++) {
                    uint64_t v;
                    if ((err = read_uint(r, "sample", 1, &v)) < 0)
                        goto fail;
                    if (v > mv) {
                        err = bad(r, "sample %s%llu at x=%d y=%d%s%s exceeds maxval %u",
                                  v > UINT32_MAX ? ">" : "",
                                  (unsigned long long)(v > UINT32_MAX ? UINT32_MAX : v), x, y,
                                  ch == 3 ? " channel " : "",
                                  ch == 3 ? (c == 0 ? "R" : c == 1 ? "G" : "B") : "", mv);
                        goto fail;
                    }
                    uint32_t s = mv == full ? (uint32_t)v : rescale((uint32_t)v, mv, full);
                    if (bps == 1)
                        row[(size_t)x * (ch == 3 ? 4 : 1) + (size_t)c] = (unsigned char)s;
                    else
                        ((uint16_t *)(void *)row)[(size_t)x * (ch == 3 ? 4 : 1) + (size_t)c] =
                            (uint16_t)s;
                }
                if (ch == 3) {
                    if (bps == 1)
                        row[(size_t)x * 4 + 3] = 255;
                    else
                        ((uint16_t *)(void *)row)[(size_t)x * 4 + 3] = 65535;
                }
            }
            continue;
        }
        const unsigned char *src = r->p + r->pos + (size_t)y * (size_t)iw * (size_t)ch * (size_t)bps;
        const size_t ns = (size_t)iw * (size_t)ch; /* samples in the row */
        if (mv != full) {
            /* Range check first (branch-free maximum), then locate the culprit. */
            uint32_t mx = 0;
            if (bps == 1)
                for (size_t i = 0; i < ns; i++)
                    mx = src[i] > mx ? src[i] : mx;
            else
                for (size_t i = 0; i < ns; i++)
                    mx = be16(src + 2 * i) > mx ? be16(src + 2 * i) : mx;
            if (mx > mv) {
                size_t i = 0;
                while ((bps == 1 ? src[i] : be16(src + 2 * i)) <= mv)
                    i++;
                err = bad(r, "sample %u at x=%d y=%d exceeds maxval %u",
                          bps == 1 ? src[i] : be16(src + 2 * i), (int)(i / (size_t)ch), y, mv);
                goto fail;
            }
        }
        if (bps == 1 && ch == 1) {
            if (mv == 255)
                memcpy(row, src, (size_t)iw);
            else
                for (int x = 0; x < iw; x++)
                    row[x] = lut[src[x]];
        } else if (bps == 1) {
            if (mv == 255) {
                for (int x = 0; x < iw; x++) {
                    row[4 * x] = src[3 * x];
                    row[4 * x + 1] = src[3 * x + 1];
                    row[4 * x + 2] = src[3 * x + 2];
                    row[4 * x + 3] = 255;
                }
            } else {
                for (int x = 0; x < iw; x++) {
                    row[4 * x] = lut[src[3 * x]];
                    row[4 * x + 1] = lut[src[3 * x + 1]];
                    row[4 * x + 2] = lut[src[3 * x + 2]];
                    row[4 * x + 3] = 255;
                }
            }
        } else if (ch == 1) {
            uint16_t *d16 = (uint16_t *)(void *)row;
            if (mv == 65535)
                for (int x = 0; x < iw; x++)
                    d16[x] = be16(src + 2 * x);
            else
                for (int x = 0; x < iw; x++)
                    d16[x] = (uint16_t)rescale(be16(src + 2 * x), mv, 65535);
        } else {
            uint16_t *d16 = (uint16_t *)(void *)row;
            if (mv == 65535) {
                for (int x = 0; x < iw; x++) {
                    d16[4 * x] = be16(src + 6 * x);
                    d16[4 * x + 1] = be16(src + 6 * x + 2);
                    d16[4 * x + 2] = be16(src + 6 * x + 4);
                    d16[4 * x + 3] = 65535;
                }
            } else {
                for (int x = 0; x < iw; x++) {
                    d16[4 * x] = (uint16_t)rescale(be16(src + 6 * x), mv, 65535);
                    d16[4 * x + 1] = (uint16_t)rescale(be16(src + 6 * x + 2), mv, 65535);
                    d16[4 * x + 2] = (uint16_t)rescale(be16(src + 6 * x + 4), mv, 65535);
                    d16[4 * x + 3] = 65535;
                }
            }
        }
    }
    *out = img;
    return 0;
fail:
    rv_image_destroy(&img);
    return err;
}

/* Grey PFM, after the magic number. */
static int read_pfm(rd *r, RV_Image **out)
{
    uint64_t w, h;
    int err;
    if ((err = read_uint(r, "width", 0, &w)) < 0 || (err = check_dim(r, "width", w)) < 0 ||
        (err = read_uint(r, "height", 0, &h)) < 0 || (err = check_dim(r, "height", h)) < 0)
        return err;
    skip_space(r, 0);
    if (r->pos >= r->n)
        return bad(r, "truncated: expected the scale, found the end of the data");
    size_t start = r->pos;
    while (r->pos < r->n && !is_ws(r->p[r->pos]) && r->pos - start <= 64)
        r->pos++;
    size_t len = r->pos - start;
    if (len > 64)
        return bad(r, "the scale token at byte %zu is longer than 64 characters", start);
    char tok[65]; /* printable copy for messages */
    for (size_t i = 0; i < len; i++)
        tok[i] = r->p[start + i] > 32 && r->p[start + i] < 127 ? (char)r->p[start + i] : '?';
    tok[len] = 0;
    double scale;
    if (parse_decimal((const char *)r->p + start, len, &scale) < 0)
        return bad(r, "the scale '%s' is not a decimal number", tok);
    if (scale == 0.0 || !isfinite(scale))
        return bad(r, "the scale '%s' must be finite and non-zero (its sign gives the byte order)",
                   tok);
    const int little = scale < 0;
    if (r->pos >= r->n)
        return bad(r, "truncated: the header ends at the scale, no raster follows");
    r->pos++; /* exactly one whitespace character (the loop above stopped at one) */

    const uint64_t need = w * h * 4;
    const uint64_t avail = r->n - r->pos;
    if (avail < need)
        return bad(r, "truncated: a %llux%llu PFM raster needs %llu bytes, only %llu present",
                   (unsigned long long)w, (unsigned long long)h, (unsigned long long)need,
                   (unsigned long long)avail);
    const int iw = (int)w, ih = (int)h;
    RV_Image *img = NULL;
    unsigned char *dst;
    ptrdiff_t pitch;
    if ((err = make_image(r, iw, ih, RV_FMT_GRAYF32, &img, &dst, &pitch)) < 0)
        return err;
    for (int k = 0; k < ih; k++) {
        /* File row k is image row h-1-k (PFM stores the bottom row first). */
        const unsigned char *src = r->p + r->pos + (size_t)k * (size_t)iw * 4;
        float *row = (float *)(void *)(dst + (ptrdiff_t)(ih - 1 - k) * pitch);
        for (int x = 0; x < iw; x++) {
            const unsigned char *b = src + 4 * (size_t)x;
            uint32_t u = little ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                                      (uint32_t)b[3] << 24
                                : (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 |
                                      (uint32_t)b[0] << 24;
            memcpy(&row[x], &u, 4);
        }
    }
    *out = img;
    return 0;
}

static int read_buffer(RV_Context *ctx, const char *name, const unsigned char *data, size_t size,
                       RV_Image **out)
{
    rd r = {ctx, name, data, size, 0};
    if (size < 2)
        return bad(&r, "too short to be an image file (%zu bytes)", size);
    if (data[0] == 'P') {
        r.pos = 2;
        int m = data[1];
        if (m == '2' || m == '3' || m == '5' || m == '6' || m == 'f') {
            char d[48];
            if (r.pos >= r.n)
                return bad(&r, "truncated: nothing after the magic number");
            if (!is_ws(data[r.pos]) && !(m != 'f' && data[r.pos] == '#'))
                return bad(&r, "the magic number must be followed by whitespace, found %s",
                           describe(&r, d, sizeof(d)));
            if (m == 'f')
                return read_pfm(&r, out);
            return read_pnm(&r, m == '2' || m == '5' ? 1 : 3, m == '2' || m == '3', out);
        }
        if (m == 'F')
            return rv__error(ctx, RV_ENOSYS,
                             "%s: colour PFM (\"PF\") is not supported: ravioli has no float "
                             "colour format (only grey \"Pf\" is read)", name);
        if (m == '1' || m == '4')
            return rv__error(ctx, RV_ENOSYS, "%s: PBM bitmaps (P%c) are not supported", name, m);
        if (m == '7')
            return rv__error(ctx, RV_ENOSYS, "%s: PAM (P7) is not supported", name);
    }
    char c0[8], c1[8];
    snprintf(c0, sizeof(c0), data[0] > 32 && data[0] < 127 ? "%c" : "\\x%02x", data[0]);
    snprintf(c1, sizeof(c1), data[1] > 32 && data[1] < 127 ? "%c" : "\\x%02x", data[1]);
    return bad(&r, "not a PGM, PPM or PFM file (magic \"%s%s\"; expected P2, P3, P5, P6 or Pf)",
               c0, c1);
}

RV_API int rv_image_read_mem(RV_Context *ctx, const void *data, size_t size, RV_Image **out)
{
    if (!out)
        return ctx ? rv__error(ctx, RV_EINVAL, "rv_image_read_mem: out is NULL") : RV_EINVAL;
    *out = NULL;
    if (!ctx)
        return RV_EINVAL;
    if (!data && size)
        return rv__error(ctx, RV_EINVAL, "rv_image_read_mem: data is NULL");
    return read_buffer(ctx, "<memory>", data, size, out);
}

/* ------------------------------------------------------------------ */
/* Files                                                                */
/* ------------------------------------------------------------------ */

/* Reads all of fd (regular files: exactly st_size bytes, or less if it shrank). */
static int slurp(RV_Context *ctx, const char *path, int fd, unsigned char **buf, size_t *len)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return rv__error(ctx, RV_EIO, "cannot stat '%s': %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return rv__error(ctx, RV_EIO, "cannot read '%s': it is a directory", path);
    const int regular = S_ISREG(st.st_mode);
    size_t cap;
    if (regular) {
        if (st.st_size < 0 || (uint64_t)st.st_size > (uint64_t)SIZE_MAX - 1)
            return rv__error(ctx, RV_EOVERFLOW, "'%s' is too large to read", path);
        cap = (size_t)st.st_size;
    } else {
        cap = 1 << 16;
    }
    unsigned char *b = malloc(cap ? cap : 1);
    if (!b)
        return rv__error(ctx, RV_ENOMEM, "cannot allocate %zu bytes to read '%s'", cap, path);
    size_t got = 0;
    for (;;) {
        if (got == cap) {
            if (regular)
                break;
            if (cap >= RV_IMAGEIO_MAX_STREAM) {
                /* full at the limit: exactly that many bytes is fine, one more is not */
                unsigned char probe;
                ssize_t k;
                do
                    k = read(fd, &probe, 1);
                while (k < 0 && errno == EINTR);
                if (k == 0)
                    break;
                const int e = errno;
                free(b);
                if (k < 0)
                    return rv__error(ctx, RV_EIO, "error reading '%s': %s", path, strerror(e));
                return rv__error(ctx, RV_EOVERFLOW,
                                 "'%s' is not a regular file and holds more than %zu bytes", path,
                                 (size_t)RV_IMAGEIO_MAX_STREAM);
            }
            unsigned char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                return rv__error(ctx, RV_ENOMEM, "cannot allocate %zu bytes to read '%s'",
                                 cap * 2, path);
            }
            b = nb;
            cap *= 2;
        }
        ssize_t k = read(fd, b + got, cap - got);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(b);
            return rv__error(ctx, RV_EIO, "error reading '%s': %s", path, strerror(e));
        }
        if (k == 0)
            break;
        got += (size_t)k;
    }
    *buf = b;
    *len = got;
    return 0;
}

RV_API int rv_image_read_file(RV_Context *ctx, const char *path, RV_Image **out)
{
    if (!out)
        return ctx ? rv__error(ctx, RV_EINVAL, "rv_image_read_file: out is NULL") : RV_EINVAL;
    *out = NULL;
    if (!ctx)
        return RV_EINVAL;
    if (!path)
        return rv__error(ctx, RV_EINVAL, "rv_image_read_file: path is NULL");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return rv__error(ctx, rv__path_error(e), "cannot open '%s': %s", path, strerror(e));
    }
    unsigned char *buf = NULL;
    size_t len = 0;
    int err = slurp(ctx, path, fd, &buf, &len);
    close(fd);
    if (err < 0)
        return err;
    err = read_buffer(ctx, path, buf, len, out);
    free(buf);
    return err;
}

static int put(FILE *f, const void *p, size_t n) { return fwrite(p, 1, n, f) == n ? 0 : -1; }

RV_API int rv_image_write_file(RV_Image *img, const char *path)
{
    if (!img)
        return RV_EINVAL;
    RV_Context *ctx = img->ctx;
    if (!path)
        return rv__error(ctx, RV_EINVAL, "rv_image_write_file: path is NULL");
    const RV_Format fmt = img->fmt;
    int ch, bps, pfm = 0;
    switch (fmt) {
    case RV_FMT_GRAY8:   ch = 1; bps = 1; break;
    case RV_FMT_GRAY16:  ch = 1; bps = 2; break;
    case RV_FMT_RGBA8:   ch = 3; bps = 1; break;
    case RV_FMT_RGBA16:  ch = 3; bps = 2; break;
    case RV_FMT_GRAYF32: ch = 1; bps = 4; pfm = 1; break;
    default:
        return rv__error(ctx, RV_EINVAL,
                         "cannot write '%s': a %s image has no PGM/PPM/PFM form (gray8, gray16, "
                         "rgba8, rgba16 and grayf32 can be written; convert first)",
                         path, img->fi->name);
    }
    ptrdiff_t pitch;
    const unsigned char *src = rv_image_read(img, 0, &pitch);
    if (!src)
        return rv__error(ctx, RV_EIO, "cannot write '%s': the image's pixels are not readable",
                         path);
    const int w = img->w, h = img->h;
    const size_t rowbytes = (size_t)w * (size_t)ch * (size_t)bps;
    unsigned char *buf = malloc(rowbytes);
    if (!buf)
        return rv__error(ctx, RV_ENOMEM, "cannot write '%s': out of memory", path);
    FILE *f = fopen(path, "wb");
    if (!f) {
        int e = errno;
        free(buf);
        return rv__error(ctx, rv__path_error(e), "cannot create '%s': %s", path, strerror(e));
    }
    /* Only a regular file is removed after a failed write (never a device or FIFO). */
    struct stat st;
    const int regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    char hdr[64];
    int hl;
    if (pfm)
        hl = snprintf(hdr, sizeof(hdr), "Pf\n%d %d\n-1.0\n", w, h);
    else
        hl = snprintf(hdr, sizeof(hdr), "P%c\n%d %d\n%d\n", ch == 1 ? '5' : '6', w, h,
                      bps == 1 ? 255 : 65535);
    errno = 0;
    int ok = put(f, hdr, (size_t)hl) == 0;
    for (int k = 0; ok && k < h; k++) {
        const int y = pfm ? h - 1 - k : k; /* PFM: bottom row first */
        const unsigned char *row = src + (ptrdiff_t)y * pitch;
        if (pfm) {
            /* Little-endian floats (scale -1.0). */
            for (int x = 0; x < w; x++) {
                uint32_t u;
                memcpy(&u, row + 4 * (size_t)x, 4);
                unsigned char *o = buf + 4 * (size_t)x;
                o[0] = (unsigned char)u;
                o[1] = (unsigned char)(u >> 8);
                o[2] = (unsigned char)(u >> 16);
                o[3] = (unsigned char)(u >> 24);
            }
        } else if (bps == 1 && ch == 1) {
            memcpy(buf, row, (size_t)w);
        } else if (bps == 1) {
            for (int x = 0; x < w; x++) {
                buf[3 * x] = row[4 * x];
                buf[3 * x + 1] = row[4 * x + 1];
                buf[3 * x + 2] = row[4 * x + 2];
            }
        } else {
            const uint16_t *s16 = (const uint16_t *)(const void *)row;
            const int sstep = ch == 3 ? 4 : 1;
            for (int x = 0; x < w; x++) {
                for (int c = 0; c < ch; c++) {
                    uint16_t v = s16[(size_t)x * (size_t)sstep + (size_t)c];
                    unsigned char *o = buf + 2 * ((size_t)x * (size_t)ch + (size_t)c);
                    o[0] = (unsigned char)(v >> 8); /* big-endian */
                    o[1] = (unsigned char)v;
                }
            }
        }
        ok = put(f, buf, rowbytes) == 0;
    }
    free(buf);
    if (ok && fflush(f) != 0)
        ok = 0;
    int e = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        if (regular)
            remove(path);
        return rv__error(ctx, RV_EIO, "error writing '%s': %s", path,
                         e ? strerror(e) : "short write");
    }
    return 0;
}
