/*
 * video_y4m.c - YUV4MPEG2 (Y4M) reader and writer, files or pipes ("-").
 *
 * Stream header: "YUV4MPEG2" then space-separated tags, then '\n':
 *   W<width> H<height> F<num>:<den> I<p|t|b|m> A<num>:<den> C<colourspace> X<anything>
 * Every frame: "FRAME" [space-separated tags] '\n', then the planes Y, Cb, Cr
 * (only Y for mono), 1 byte a sample, or 2 bytes little-endian for depths > 8.
 *
 * Parsing is strict: W and H are required, numbers are plain decimal digits,
 * a known tag may appear once, tags are separated by exactly one space (an
 * empty tag is an error); tags with an unknown letter and X tags are ignored
 * as the format asks. Malformed input is RV_EBADMSG with a message naming
 * the problem; an unsupported colour space is RV_ENOSYS.
 *
 * Colour spaces -> RV_Format:
 *   420jpeg, 420paldv, 420mpeg2, 420 -> yuv420p8 (chroma siting is not kept)
 *   420p9..420p16                    -> yuv420p16 (samples kept, not scaled)
 *   444                              -> yuv444p8;  444p9..444p16 -> yuv444p16
 *   422 (and 422p9..p16)             -> yuv444p8 (yuv444p16): chroma upsampled
 *                                       horizontally by repeating each sample
 *   mono                             -> gray8;     mono9..mono16 -> gray16
 * The number of significant bits is RV_VideoInfo.bit_depth.
 *
 * Input goes through read(2) into a buffer of our own (no stdio), each read
 * bounded by poll(2) and the caller's timeout: a pipe that pauses returns
 * RV_EAGAIN wherever it paused, and the frame in progress resumes at the
 * next read (read_frame).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "video_internal.h"

#define Y4M_MAX_HEADER 4096
#define Y4M_MAX_FRAME_HEADER 1024

enum { CH_420, CH_422, CH_444, CH_MONO };

#define Y4M_INBUF 65536

typedef struct y4m_src {
    int fd;               /* the file or pipe (read(2) and poll(2), no stdio) */
    int own;              /* close on close (not standard input) */
    unsigned char *in;    /* input buffer: bytes [ipos, ilen) not consumed yet */
    size_t ipos, ilen;
    int eof;              /* read(2) returned 0 */
    RV_Y4MSettings s;
    int chroma;           /* CH_* */
    int depth;            /* bits a sample */
    int bps;              /* bytes a sample: 1 or 2 */
    int cw, ch;           /* chroma plane size in the file */
    size_t frame_bytes;   /* payload of one frame */
    unsigned char *row;   /* one chroma row of a 4:2:2 file */
    unsigned char *junk;  /* realtime: discarded frames */
    long long next;       /* index of the next frame in the file */
    long long t0;
    /* A read that timed out part-way through a frame resumes it at the next
     * read, so that nothing is lost: */
    int part;             /* 0: at a frame's start; 1: in its FRAME line; 2: in its payload */
    int part_skip;        /* the frame in progress is being skipped (realtime) */
    long long part_pts;   /* realtime: the frame's scheduled time */
    char line[Y4M_MAX_FRAME_HEADER]; /* the FRAME line read so far */
    int llen;
    size_t done;          /* payload bytes read */
    int held;             /* hold has them */
    RV_Image *hold;       /* the payload's rows so far, between two reads */
    char name[256];
} y4m_src;

/* ------------------------------------------------------------------ */
/* Parsing                                                              */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* Input: read(2) through a buffer, each read bounded by a deadline     */
/* ------------------------------------------------------------------ */

/* The deadline of a read of timeout_ms (CLOCK_MONOTONIC ns; -1: none). */
static long long deadline_of(int timeout_ms)
{
    return timeout_ms < 0 ? -1 : rv__now_ns() + (long long)timeout_ms * 1000000LL;
}

/* Waits until the input can be read (data, end or an error: read(2) tells
 * which). 0; RV_EAGAIN when the deadline passed first; RV_EIO. */
static int wait_input(RV_Source *src, long long dl)
{
    y4m_src *st = src->priv;
    for (;;) {
        int ms = -1;
        if (dl >= 0) {
            const long long left = dl - rv__now_ns();
            /* (slices of at most a second: no int overflow for long waits) */
            ms = left <= 0 ? 0 : left >= 1000000000LL ? 1000 : (int)((left + 999999) / 1000000);
        }
        struct pollfd pfd = {.fd = st->fd, .events = POLLIN};
        const int r = poll(&pfd, 1, ms);
        if (r > 0)
            return 0;
        if (r == 0) {
            if (dl >= 0 && rv__now_ns() >= dl)
                return RV_EAGAIN;
            continue;
        }
        if (errno != EINTR)
            return rv__error(src->ctx, RV_EIO, "y4m %s: cannot wait for input: %s", st->name,
                             strerror(errno));
    }
}

/* Makes input available in st->in. 1: there are bytes; 0: end of input;
 * RV_EAGAIN: none came before the deadline; RV_EIO. */
static int fill(RV_Source *src, long long dl)
{
    y4m_src *st = src->priv;
    if (st->ipos < st->ilen)
        return 1;
    while (!st->eof) {
        int err = wait_input(src, dl);
        if (err < 0)
            return err;
        const ssize_t n = read(st->fd, st->in, Y4M_INBUF);
        if (n > 0) {
            st->ipos = 0;
            st->ilen = (size_t)n;
            return 1;
        }
        if (n == 0)
            st->eof = 1;
        else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
            return rv__error(src->ctx, RV_EIO, "y4m %s: read error: %s", st->name, strerror(errno));
    }
    return 0;
}

/* Reads one '\n'-terminated line of at most max-1 bytes into buf (without
 * the newline), going on from the *len bytes an earlier call read. Returns
 * the length; RV_EAGAIN at the deadline (*len keeps what was read);
 * RV_EPIPE at the end of input before any byte; or an error (truncated,
 * too long, NUL byte, I/O). */
static int read_line(RV_Source *src, long long dl, char *buf, int max, int *len,
                     const char *what)
{
    y4m_src *st = src->priv;
    for (;;) {
        const int r = fill(src, dl);
        if (r < 0)
            return r;
        if (r == 0) {
            if (*len == 0)
                return RV_EPIPE;
            return rv__error(src->ctx, RV_EBADMSG,
                             "y4m %s: truncated %s (end of input after %d bytes)", st->name, what,
                             *len);
        }
        const unsigned char *p = st->in + st->ipos;
        const unsigned char *nl = memchr(p, '\n', st->ilen - st->ipos);
        const size_t take = nl ? (size_t)(nl - p) : st->ilen - st->ipos;
        if (memchr(p, '\0', take))
            return rv__error(src->ctx, RV_EBADMSG, "y4m %s: NUL byte in the %s", st->name, what);
        if ((size_t)*len + take > (size_t)max - 1)
            return rv__error(src->ctx, RV_EBADMSG, "y4m %s: %s longer than %d bytes", st->name,
                             what, max - 1);
        memcpy(buf + *len, p, take);
        *len += (int)take;
        st->ipos += take + (nl ? 1 : 0);
        if (nl) {
            buf[*len] = '\0';
            return *len;
        }
    }
}

/* Reads n bytes into dst (long runs straight from read(2)); *got: how many
 * were read, also when it returns early. 0; RV_EAGAIN at the deadline; an
 * error at the end of input (a truncated frame) or on I/O. */
static int read_bytes(RV_Source *src, long long dl, unsigned char *dst, size_t n, size_t *got)
{
    y4m_src *st = src->priv;
    *got = 0;
    while (*got < n) {
        const size_t avail = st->ilen - st->ipos, want = n - *got;
        if (avail) {
            const size_t take = avail < want ? avail : want;
            memcpy(dst + *got, st->in + st->ipos, take);
            st->ipos += take;
            *got += take;
            continue;
        }
        if (st->eof)
            return rv__error(src->ctx, RV_EBADMSG,
                             "y4m %s: frame %lld is truncated (end of input)", st->name, st->next);
        if (want < Y4M_INBUF) {
            const int r = fill(src, dl);
            if (r < 0)
                return r;
            continue;
        }
        int err = wait_input(src, dl);
        if (err < 0)
            return err;
        const ssize_t k = read(st->fd, dst + *got, want);
        if (k > 0)
            *got += (size_t)k;
        else if (k == 0)
            st->eof = 1;
        else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
            return rv__error(src->ctx, RV_EIO, "y4m %s: read error in frame %lld: %s", st->name,
                             st->next, strerror(errno));
    }
    return 0;
}

/* Plain decimal digits only; at most `max`. Returns 0 or -1. */
static int parse_uint(const char *s, size_t len, long long max, long long *v)
{
    if (len == 0 || len > 12)
        return -1;
    long long x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        x = x * 10 + (s[i] - '0');
    }
    if (x > max)
        return -1;
    *v = x;
    return 0;
}

/* "<num>:<den>" */
static int parse_ratio(const char *s, size_t len, long long *n, long long *d)
{
    const char *colon = memchr(s, ':', len);
    if (!colon)
        return -1;
    size_t a = (size_t)(colon - s);
    if (parse_uint(s, a, 0x7fffffff, n) < 0 || parse_uint(colon + 1, len - a - 1, 0x7fffffff, d) < 0)
        return -1;
    if ((*n == 0) != (*d == 0)) /* 0:0 means unknown; n:0 or 0:d is nonsense */
        return -1;
    return 0;
}

/* Colour space tag value -> chroma layout and depth. 0, or -1 when unknown. */
static int parse_colourspace(const char *s, size_t len, int *chroma, int *depth)
{
    static const struct {
        const char *name;
        int chroma;
    } base[] = {{"420jpeg", CH_420}, {"420paldv", CH_420}, {"420mpeg2", CH_420},
                {"420", CH_420},     {"422", CH_422},      {"444", CH_444},
                {"mono", CH_MONO}};
    for (size_t i = 0; i < RV_ARRAY_LEN(base); i++) {
        size_t bl = strlen(base[i].name);
        if (len < bl || memcmp(s, base[i].name, bl) != 0)
            continue;
        *chroma = base[i].chroma;
        if (len == bl) {
            *depth = 8;
            return 0;
        }
        if (i < 3) /* 420jpeg etc. have no deep variants */
            continue;
        /* 420p10 / 444p12 / mono16 */
        const char *t = s + bl;
        size_t tl = len - bl;
        if (base[i].chroma != CH_MONO) {
            if (t[0] != 'p')
                continue;
            t++, tl--;
        }
        long long d;
        if (parse_uint(t, tl, 16, &d) < 0 || d < 8)
            return -1;
        *depth = (int)d;
        return 0;
    }
    return -1;
}

static int parse_header(RV_Source *src, char *line)
{
    y4m_src *st = src->priv;
    RV_Context *ctx = src->ctx;
    const char *name = st->name;
    static const char magic[] = "YUV4MPEG2";
    if (strncmp(line, magic, sizeof(magic) - 1) != 0)
        return rv__error(ctx, RV_EBADMSG, "y4m %s: not a YUV4MPEG2 stream (bad signature)", name);
    char *p = line + sizeof(magic) - 1;
    if (*p != ' ' && *p != '\0')
        return rv__error(ctx, RV_EBADMSG, "y4m %s: bad signature \"%.16s\"", name, line);
    long long W = -1, H = -1, fn = 0, fd = 0, an, ad;
    int seen[128] = {0};
    int interlace = 0, chroma = CH_420, depth = 8;
    char cs[32] = "420jpeg";
    while (*p == ' ') {
        p++;
        const char *tag = p;
        while (*p && *p != ' ')
            p++;
        size_t len = (size_t)(p - tag);
        if (len == 0)
            return rv__error(ctx, RV_EBADMSG, "y4m %s: empty tag in the header (two spaces?)",
                             name);
        unsigned char letter = (unsigned char)tag[0];
        const char *v = tag + 1;
        size_t vl = len - 1;
        if (letter < 128 && strchr("WHFIAC", letter) && letter) {
            if (seen[letter])
                return rv__error(ctx, RV_EBADMSG, "y4m %s: tag %c given twice", name, letter);
            seen[letter] = 1;
        }
        switch (letter) {
        case 'W':
        case 'H': {
            long long x;
            if (parse_uint(v, vl, RV_MAX_DIM, &x) < 0 || x == 0)
                return rv__error(ctx, RV_EBADMSG, "y4m %s: bad %s \"%.*s\" (1..%d)", name,
                                 letter == 'W' ? "width" : "height", (int)(vl > 20 ? 20 : vl), v,
                                 RV_MAX_DIM);
            *(letter == 'W' ? &W : &H) = x;
            break;
        }
        case 'F':
            if (parse_ratio(v, vl, &fn, &fd) < 0)
                return rv__error(ctx, RV_EBADMSG, "y4m %s: bad frame rate \"%.*s\"", name,
                                 (int)(vl > 24 ? 24 : vl), v);
            break;
        case 'A':
            if (parse_ratio(v, vl, &an, &ad) < 0)
                return rv__error(ctx, RV_EBADMSG, "y4m %s: bad pixel aspect \"%.*s\"", name,
                                 (int)(vl > 24 ? 24 : vl), v);
            break;
        case 'I':
            if (vl != 1 || !strchr("ptbm", v[0]))
                return rv__error(ctx, RV_EBADMSG, "y4m %s: bad interlacing \"%.*s\"", name,
                                 (int)(vl > 8 ? 8 : vl), v);
            interlace = v[0] == 't' ? 1 : v[0] == 'b' ? 2 : 0;
            break;
        case 'C':
            snprintf(cs, sizeof(cs), "%.*s", (int)(vl > 24 ? 24 : vl), v);
            if (parse_colourspace(v, vl, &chroma, &depth) < 0)
                return rv__error(ctx, RV_ENOSYS, "y4m %s: colour space \"%s\" not supported", name,
                                 cs);
            break;
        default: /* X and unknown tags: ignored */
            break;
        }
    }
    if (*p != '\0')
        return rv__error(ctx, RV_EBADMSG, "y4m %s: bad header", name);
    if (W < 0 || H < 0)
        return rv__error(ctx, RV_EBADMSG, "y4m %s: the header has no %s", name,
                         W < 0 ? "width (W)" : "height (H)");
    if (W * H > RV_Y4M_MAX_PIXELS)
        return rv__error(ctx, RV_EOVERFLOW, "y4m %s: %lldx%lld is larger than supported", name, W,
                         H);

    st->chroma = chroma;
    st->depth = depth;
    st->bps = depth > 8 ? 2 : 1;
    st->cw = chroma == CH_444 ? (int)W : chroma == CH_MONO ? 0 : (int)((W + 1) / 2);
    st->ch = chroma == CH_420 ? (int)((H + 1) / 2) : chroma == CH_MONO ? 0 : (int)H;
    st->frame_bytes = ((size_t)W * H + 2 * (size_t)st->cw * st->ch) * st->bps;
    RV_VideoInfo *in = &src->info;
    in->width = (int)W;
    in->height = (int)H;
    in->fps_num = (int)fn;
    in->fps_den = (int)fd;
    in->interlaced = interlace;
    in->frames = -1;
    in->bit_depth = depth;
    switch (chroma) {
    case CH_420: in->format = st->bps == 2 ? RV_FMT_YUV420P16 : RV_FMT_YUV420P8; break;
    case CH_MONO: in->format = st->bps == 2 ? RV_FMT_GRAY16 : RV_FMT_GRAY8; break;
    default: in->format = st->bps == 2 ? RV_FMT_YUV444P16 : RV_FMT_YUV444P8; break;
    }
    return 0;
}

/* Checks a FRAME line (without its newline). 0 or RV_EBADMSG. */
static int check_frame_header(RV_Source *src, const char *line)
{
    y4m_src *st = src->priv;
    if (strncmp(line, "FRAME", 5) != 0 || (line[5] != '\0' && line[5] != ' '))
        return rv__error(src->ctx, RV_EBADMSG,
                         "y4m %s: frame %lld does not start with FRAME (\"%.16s\")", st->name,
                         st->next, line);
    for (const char *p = line + 5; *p == ' ';) {
        const char *tag = ++p;
        while (*p && *p != ' ')
            p++;
        if (p == tag)
            return rv__error(src->ctx, RV_EBADMSG, "y4m %s: empty tag in the header of frame %lld",
                             st->name, st->next);
        /* frame tags (I, X, ...) carry nothing the pixels need: ignored */
    }
    return 0;
}

static void to_host_order(void *p, size_t samples)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    unsigned char *b = p;
    for (size_t i = 0; i < samples; i++) {
        unsigned char t = b[2 * i];
        b[2 * i] = b[2 * i + 1];
        b[2 * i + 1] = t;
    }
#else
    (void)p;
    (void)samples;
#endif
}

/* Reads the payload from byte st->done on into frame, row by row (a 4:2:2
 * chroma row through st->row, then widened). 0, RV_EAGAIN at the deadline
 * (st->done counts what is in frame), or an error. */
static int read_payload(RV_Source *src, RV_Image *frame, long long dl)
{
    y4m_src *st = src->priv;
    const int w = src->info.width, h = src->info.height, bps = st->bps;
    const int planes = st->chroma == CH_MONO ? 1 : 3;
    size_t base = 0; /* the plane's first byte in the payload */
    for (int pl = 0; pl < planes; pl++) {
        const int pw = pl ? st->cw : w, ph = pl ? st->ch : h;
        const int widen = pl && st->chroma == CH_422;
        const size_t rb = (size_t)pw * bps, pbytes = rb * (size_t)ph;
        if (st->done >= base + pbytes) {
            base += pbytes;
            continue;
        }
        ptrdiff_t pitch;
        unsigned char *d = rv_image_write(frame, pl, &pitch);
        if (!d)
            return rv__error(src->ctx, RV_EIO, "y4m %s: cannot write plane %d", st->name, pl);
        for (int y = (int)((st->done - base) / rb); y < ph; y++) {
            unsigned char *drow = d + (ptrdiff_t)y * pitch;
            const size_t off = st->done - base - (size_t)y * rb;
            size_t got;
            int err = read_bytes(src, dl, (widen ? st->row : drow) + off, rb - off, &got);
            st->done += got;
            if (err < 0)
                return err;
            if (widen)
                for (int x = 0; x < w; x++)
                    memcpy(drow + (size_t)x * bps, st->row + (size_t)(x >> 1) * bps, (size_t)bps);
            if (bps == 2)
                to_host_order(drow, (size_t)(widen ? w : pw));
        }
        base += pbytes;
    }
    return 0;
}

/* Reads the rest of the payload from byte st->done on into st->junk. */
static int skip_payload(RV_Source *src, long long dl)
{
    y4m_src *st = src->priv;
    while (st->done < st->frame_bytes) {
        const size_t left = st->frame_bytes - st->done;
        size_t got;
        int err = read_bytes(src, dl, st->junk, left < 65536 ? left : 65536, &got);
        st->done += got;
        if (err < 0)
            return err;
    }
    return 0;
}

/* Keeps the part of a payload in `frame` for the next read (st->hold). */
static int hold_part(RV_Source *src, RV_Image *frame)
{
    y4m_src *st = src->priv;
    int err = 0;
    if (!st->hold)
        err = rv_image_create(src->ctx, src->info.width, src->info.height, src->info.format,
                              &st->hold);
    if (err >= 0)
        err = rv_image_copy(st->hold, frame);
    st->held = err >= 0;
    return err;
}

/* Puts the frame completed in st->hold into `frame`. */
static int restore_part(RV_Source *src, RV_Image *frame)
{
    y4m_src *st = src->priv;
    const int stride = rv_image_stride(frame);
    int err = rv_image_copy(frame, st->hold);
    if (err >= 0)
        err = rv_image_set_stride(frame, stride);
    return err;
}

/*
 * Reads frame st->next into `frame` (skip: discards it; frame may be NULL),
 * or the rest of the frame an earlier read left part-way. 0; RV_EAGAIN when
 * the deadline came first - the part read stays (the FRAME line's bytes in
 * st->line, the payload's rows in st->hold, where the next reads complete
 * it) and the next read goes on from there, so a pipe that pauses in the
 * middle of a frame loses nothing;
 * RV_EPIPE at a clean end; or an error.
 */
static int read_frame(RV_Source *src, RV_Image *frame, long long dl, int skip)
{
    y4m_src *st = src->priv;
    int err;
    if (st->part == 0) {
        st->part = 1;
        st->part_skip = skip;
        st->llen = 0;
        st->done = 0;
        st->held = 0;
    }
    if (st->part == 1) {
        err = read_line(src, dl, st->line, (int)sizeof(st->line), &st->llen, "frame header");
        if (err == RV_EAGAIN && st->llen == 0)
            st->part = 0; /* nothing of it yet: the next read starts afresh */
        if (err >= 0)
            err = check_frame_header(src, st->line);
        if (err < 0) {
            if (err != RV_EAGAIN)
                st->part = 0;
            return err;
        }
        st->part = 2;
    }
    if (st->part_skip) {
        err = skip_payload(src, dl);
    } else {
        /* once a read returned part-way, the rest of the frame goes into
         * st->hold, whatever the images of the next reads: two copies a
         * frame at most, however often the pipe pauses */
        err = read_payload(src, st->held ? st->hold : frame, dl);
        if (err == RV_EAGAIN && st->done > 0 && !st->held) {
            int e = hold_part(src, frame);
            if (e < 0)
                err = e;
        }
        if (err >= 0 && st->held)
            err = restore_part(src, frame);
    }
    if (err == RV_EAGAIN)
        return err;
    st->part = 0;
    st->held = 0;
    if (err < 0)
        return err;
    st->next++;
    return 0;
}

static int y4m_read(RV_Source *src, RV_Image *frame, long long *pts_ns, int timeout_ms)
{
    y4m_src *st = src->priv;
    const long long dl = deadline_of(timeout_ms);
    int err;
    if (st->part && st->part_skip) { /* a skipped frame left part-way */
        if ((err = read_frame(src, NULL, dl, 1)) < 0)
            return err;
        src->dropped++;
    }
    if (st->part) { /* a frame left part-way: its time was set then */
        if ((err = read_frame(src, frame, dl, 0)) < 0)
            return err;
        *pts_ns = st->s.realtime ? st->part_pts : rv__now_ns();
        return 0;
    }
    if (st->s.realtime) {
        long long now = rv__now_ns();
        if (st->t0 == 0)
            st->t0 = now;
        const double period = (double)src->info.fps_den * 1e9 / src->info.fps_num;
        long long due = (long long)((double)(now - st->t0) / period);
        while (st->next < due) { /* live: frames whose time has passed are dropped */
            if ((err = read_frame(src, NULL, dl, 1)) < 0)
                return err;
            src->dropped++;
        }
        long long t = st->t0 + (long long)((double)st->next * period);
        if (t > now) {
            if (dl >= 0 && t > dl) {
                rv__sleep_until_ns(dl);
                return RV_EAGAIN;
            }
            rv__sleep_until_ns(t);
        }
        st->part_pts = t;
    }
    if ((err = read_frame(src, frame, dl, 0)) < 0)
        return err;
    *pts_ns = st->s.realtime ? st->part_pts : rv__now_ns();
    return 0;
}

static void y4m_close(RV_Source *src)
{
    y4m_src *st = src->priv;
    if (st->fd >= 0 && st->own)
        close(st->fd);
    free(st->in);
    free(st->row);
    free(st->junk);
    rv_image_destroy(&st->hold);
}

static const struct rv_source_ops y4m_src_ops = {"y4m", y4m_read, y4m_close};

RV_API void rv_y4m_settings_default(RV_Y4MSettings *s)
{
    if (s)
        memset(s, 0, sizeof(*s));
}

RV_API int rv_source_open_y4m(RV_Context *ctx, const char *path, const RV_Y4MSettings *s,
                              RV_Source **out)
{
    if (!ctx) { /* no context to report to (video.h): nothing is opened */
        if (out)
            *out = NULL;
        return RV_EINVAL;
    }
    if (!out || !path)
        return rv__error(ctx, RV_EINVAL, "rv_source_open_y4m: NULL argument");
    *out = NULL;
    RV_Source *src = rv__source_new(ctx, &y4m_src_ops, sizeof(y4m_src));
    if (!src)
        return rv__error(ctx, RV_ENOMEM, "rv_source_open_y4m: out of memory");
    y4m_src *st = src->priv;
    if (s)
        st->s = *s;
    snprintf(st->name, sizeof(st->name), "%s", strcmp(path, "-") == 0 ? "(stdin)" : path);
    st->fd = -1;
    if (!(st->in = malloc(Y4M_INBUF))) {
        rv_source_close(&src);
        return rv__error(ctx, RV_ENOMEM, "y4m %s: out of memory", st->name);
    }
    if (strcmp(path, "-") == 0) {
        st->fd = STDIN_FILENO;
        st->own = 0;
    } else {
        st->fd = open(path, O_RDONLY | O_CLOEXEC);
        st->own = 1;
        if (st->fd < 0) {
            int e = errno;
            rv_source_close(&src);
            return rv__error(ctx, rv__path_error(e), "y4m: cannot open %s: %s", path, strerror(e));
        }
    }
    char line[Y4M_MAX_HEADER];
    int len = 0;
    int err = read_line(src, -1, line, sizeof(line), &len, "stream header");
    if (err == RV_EPIPE)
        err = rv__error(ctx, RV_EBADMSG, "y4m %s: empty input (no stream header)", st->name);
    if (err >= 0)
    err = parse_header(src, line);
    if (err >= 0 && st->s.realtime && (src->info.fps_num <= 0 || src->info.fps_den <= 0)) {
        rv__log(ctx, RV_LOG_WARN, "y4m %s: no frame rate in the file; playing at 25 fps",
                st->name);
        src->info.fps_num = 25;
        src->info.fps_den = 1;
    }
    if (err >= 0 && (!(st->row = malloc((size_t)src->info.width * 2 + 16)) ||
                     (st->s.realtime && !(st->junk = malloc(65536)))))
        err = rv__error(ctx, RV_ENOMEM, "y4m %s: out of memory", st->name);
    if (err < 0) {
        rv_source_close(&src);
        return err;
    }
    *out = src;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Writer                                                               */
/* ------------------------------------------------------------------ */

typedef struct y4m_sink {
    FILE *f;
    int own;
    RV_Format file_fmt;   /* what goes into the file */
    unsigned char *conv;  /* RGBA8 -> YUV planes */
    char name[256];
} y4m_sink;

static int write_all(RV_Sink *sink, const void *p, size_t n)
{
    y4m_sink *st = sink->priv;
    if (fwrite(p, 1, n, st->f) == n)
        return 0;
    int e = errno;
    if (e == EPIPE)
        return rv__error(sink->ctx, RV_EPIPE, "y4m %s: the reader closed the pipe", st->name);
    return rv__error(sink->ctx, RV_EIO, "y4m %s: write failed: %s", st->name, strerror(e));
}

/* Frames go out whole: a pipe reader sees each frame as soon as it is written. */
static int flush(RV_Sink *sink)
{
    y4m_sink *st = sink->priv;
    if (fflush(st->f) == 0)
        return 0;
    int e = errno;
    if (e == EPIPE)
        return rv__error(sink->ctx, RV_EPIPE, "y4m %s: the reader closed the pipe", st->name);
    return rv__error(sink->ctx, RV_EIO, "y4m %s: write failed: %s", st->name, strerror(e));
}

static int write_plane16(RV_Sink *sink, const unsigned char *s, ptrdiff_t pitch, int pw, int ph)
{
    y4m_sink *st = sink->priv;
    for (int y = 0; y < ph; y++) {
        const uint16_t *r = (const uint16_t *)(s + y * pitch);
        unsigned char *o = st->conv;
        for (int x = 0; x < pw; x++)
            o[2 * x] = (unsigned char)(r[x] & 255), o[2 * x + 1] = (unsigned char)(r[x] >> 8);
        int err = write_all(sink, o, (size_t)pw * 2);
        if (err < 0)
            return err;
    }
    return 0;
}

static int y4m_write(RV_Sink *sink, RV_Image *frame, const RV_FrameStats *stats)
{
    (void)stats;
    y4m_sink *st = sink->priv;
    int err = rv__video_check_frame(sink->ctx, "y4m writer", &sink->info, frame);
    if (err < 0)
        return err;
    if ((err = write_all(sink, "FRAME\n", 6)) < 0)
        return err;
    const int w = frame->w, h = frame->h;
    if (frame->fmt == RV_FMT_RGBA8) {
        ptrdiff_t pitch;
        const unsigned char *s = rv_image_read(frame, 0, &pitch);
        if (!s)
            return rv__error(sink->ctx, RV_EIO, "y4m %s: cannot read the frame", st->name);
        const RV_FormatInfo *fi = rv_format_info(st->file_fmt);
        int sx = fi->chroma_shift_x, sy = fi->chroma_shift_y;
        size_t cw = (size_t)((w + (1 << sx) - 1) >> sx), ch = (size_t)((h + (1 << sy) - 1) >> sy);
        unsigned char *y = st->conv, *cb = y + (size_t)w * h, *cr = cb + cw * ch;
        rv__rgba_to_yuv(sink->ctx, s, pitch, w, h, y, w, cb, cr, (ptrdiff_t)cw, sx, sy);
        if ((err = write_all(sink, st->conv, (size_t)w * h + 2 * cw * ch)) < 0)
            return err;
        return flush(sink);
    }
    for (int pl = 0; pl < frame->nplanes; pl++) {
        ptrdiff_t pitch;
        const unsigned char *s = rv_image_read(frame, pl, &pitch);
        if (!s)
            return rv__error(sink->ctx, RV_EIO, "y4m %s: cannot read plane %d", st->name, pl);
        int pw = frame->pl[pl].w, ph = frame->pl[pl].h;
        if (frame->fi->sample_bytes == 2) {
            if ((err = write_plane16(sink, s, pitch, pw, ph)) < 0)
                return err;
        } else if (pitch == pw) {
            if ((err = write_all(sink, s, (size_t)pw * ph)) < 0)
                return err;
        } else {
            for (int y = 0; y < ph; y++)
                if ((err = write_all(sink, s + y * pitch, (size_t)pw)) < 0)
                    return err;
        }
    }
    return flush(sink);
}

static void y4m_sink_close(RV_Sink *sink)
{
    y4m_sink *st = sink->priv;
    if (st->f) {
        fflush(st->f);
        if (st->own)
            fclose(st->f);
    }
    free(st->conv);
}

static const struct rv_sink_ops y4m_sink_ops = {"y4m", y4m_write, y4m_sink_close};

RV_API int rv_sink_open_y4m_ex(RV_Context *ctx, const char *path, const RV_VideoInfo *info,
                               RV_Format rgb_to, RV_Sink **out)
{
    if (!ctx) { /* no context to report to (video.h): nothing is created */
        if (out)
            *out = NULL;
        return RV_EINVAL;
    }
    if (!out || !path || !info)
        return rv__error(ctx, RV_EINVAL, "rv_sink_open_y4m: NULL argument");
    *out = NULL;
    if (info->width < 1 || info->height < 1 || info->width > RV_MAX_DIM ||
        info->height > RV_MAX_DIM)
        return rv__error(ctx, RV_EINVAL, "rv_sink_open_y4m: bad size %dx%d", info->width,
                         info->height);
    RV_Format ff = info->format;
    int depth = info->bit_depth;
    const char *cs;
    switch (info->format) {
    case RV_FMT_RGBA8:
        if (rgb_to != RV_FMT_YUV420P8 && rgb_to != RV_FMT_YUV444P8)
            return rv__error(ctx, RV_EINVAL,
                             "rv_sink_open_y4m: RGBA8 frames can be written as yuv420p8 or "
                             "yuv444p8 only");
        ff = rgb_to;
        depth = 8;
        cs = ff == RV_FMT_YUV420P8 ? "420jpeg" : "444";
        break;
    case RV_FMT_YUV420P8: cs = "420jpeg", depth = 8; break;
    case RV_FMT_YUV444P8: cs = "444", depth = 8; break;
    case RV_FMT_GRAY8: cs = "mono", depth = 8; break;
    case RV_FMT_YUV420P16: cs = "420p"; break;
    case RV_FMT_YUV444P16: cs = "444p"; break;
    case RV_FMT_GRAY16: cs = "mono"; break;
    default: {
        const RV_FormatInfo *fi = rv_format_info(info->format);
        return rv__error(ctx, RV_ENOSYS, "rv_sink_open_y4m: Y4M cannot carry %s frames",
                         fi ? fi->name : "these");
    }
    }
    if (rv_format_info(ff)->sample_bytes == 2 && (depth < 9 || depth > 16))
        depth = 16;
    RV_Sink *sink = rv__sink_new(ctx, &y4m_sink_ops, sizeof(y4m_sink));
    if (!sink)
        return rv__error(ctx, RV_ENOMEM, "rv_sink_open_y4m: out of memory");
    y4m_sink *st = sink->priv;
    sink->info = *info;
    sink->info.bit_depth = depth;
    sink->repeats_skipped = 0;
    st->file_fmt = ff;
    snprintf(st->name, sizeof(st->name), "%s", strcmp(path, "-") == 0 ? "(stdout)" : path);
    size_t conv = (size_t)info->width * info->height * 3 + 16;
    if (!(st->conv = malloc(conv))) {
        rv_sink_close(&sink);
        return rv__error(ctx, RV_ENOMEM, "rv_sink_open_y4m: out of memory");
    }
    if (strcmp(path, "-") == 0) {
        st->f = stdout;
    } else if (!(st->f = fopen(path, "wb"))) {
        int e = errno;
        rv_sink_close(&sink);
        return rv__error(ctx, rv__path_error(e), "y4m: cannot create %s: %s", path, strerror(e));
    } else {
        st->own = 1;
    }
    char hdr[160], depthtag[8] = "";
    if (rv_format_info(ff)->sample_bytes == 2)
        snprintf(depthtag, sizeof(depthtag), "%d", depth);
    int fn = info->fps_num > 0 && info->fps_den > 0 ? info->fps_num : 25;
    int fd = info->fps_num > 0 && info->fps_den > 0 ? info->fps_den : 1;
    int n = snprintf(hdr, sizeof(hdr), "YUV4MPEG2 W%d H%d F%d:%d I%c A1:1 C%s%s\n", info->width,
                     info->height, fn, fd, "ptb"[info->interlaced >= 0 && info->interlaced <= 2 ? info->interlaced : 0],
                     cs, depthtag);
    int err = write_all(sink, hdr, (size_t)n);
    if (err < 0) {
        rv_sink_close(&sink);
        return err;
    }
    *out = sink;
    return 0;
}

RV_API int rv_sink_open_y4m(RV_Context *ctx, const char *path, const RV_VideoInfo *info,
                            RV_Sink **out)
{
    return rv_sink_open_y4m_ex(ctx, path, info, RV_FMT_YUV420P8, out);
}
