/*
 * rv-deband - deband Y4M (YUV4MPEG2) files, still images (one frame) or
 * whole clips, and grey PGM images, on the CPU or the GPU.
 *
 *   rv-deband [key=value ...] in.y4m out.y4m       ("-" = stdin / stdout)
 *   rv-deband [key=value ...] in.pgm out.pgm       (8 or 16 bit; by content)
 *
 * Keys (as f3kdb's): range y cb cr grainy grainc sample_mode blur_first seed
 * dynamic_grain interlaced output_depth, and backend=auto|cpu|cuda.
 * Input chroma tags: 420jpeg 420 420mpeg2 420paldv 444 mono, and the 16-bit
 * 420p16 444p16 mono16. A clip flagged interlaced (It/Ib) turns on
 * interlaced unless interlaced= is given.
 *
 * The output has the input's kind (Y4M in, Y4M out; PGM in, PGM out): an
 * output name ending in another kind's extension (.pgm for a Y4M input,
 * .y4m for a PGM, .ppm, .pfm, ...; any case) is refused, as there is no
 * conversion. A Y4M input whose last frame is truncated (or whose frame
 * header is damaged) keeps the complete frames before it in the output,
 * with a message, and exits 1, as ravioli-run does.
 *
 * Exit status: 0, 1 on error (also a damaged input after good frames), 2 on
 * a usage error, 3 when the backend is unavailable (backend=cuda without a
 * usable GPU: the message says why), as rv-dwt and ravioli-run.
 * -h / --help writes the usage to standard output and exits 0; a usage
 * error writes it to standard error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ravioli/deband.h>
#include <ravioli/video.h>

#include "rv_cli.h"

typedef struct y4m {
    int w, h;
    RV_Format fmt;
    char rest[256]; /* other header fields, copied to the output */
    int interlaced; /* -1 unknown / progressive flag absent */
} y4m;

static int parse_header(FILE *f, y4m *y, char *err, size_t en)
{
    char line[512];
    if (!fgets(line, sizeof(line), f) || strncmp(line, "YUV4MPEG2", 9) != 0) {
        snprintf(err, en, "not a Y4M (YUV4MPEG2) stream (standard input is read as Y4M only)");
        return -1;
    }
    if (!strchr(line, '\n')) {
        snprintf(err, en, "Y4M header line too long");
        return -1;
    }
    y->w = y->h = 0;
    y->fmt = RV_FMT_YUV420P8;
    y->rest[0] = '\0';
    y->interlaced = -1;
    char *save = NULL;
    for (char *t = strtok_r(line + 9, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
        if (t[0] == 'W' || t[0] == 'H') {
            char *end = NULL;
            const long v = strtol(t + 1, &end, 10);
            if (end == t + 1 || *end || v <= 0 || v > RV_MAX_DIM) {
                snprintf(err, en, "bad Y4M %s '%.20s' (1..%d)", t[0] == 'W' ? "width" : "height",
                         t + 1, RV_MAX_DIM);
                return -1;
            }
            *(t[0] == 'W' ? &y->w : &y->h) = (int)v;
        } else if (t[0] == 'C') {
            const char *c = t + 1;
            if (!strcmp(c, "420jpeg") || !strcmp(c, "420") || !strcmp(c, "420mpeg2") ||
                !strcmp(c, "420paldv"))
                y->fmt = RV_FMT_YUV420P8;
            else if (!strcmp(c, "444"))
                y->fmt = RV_FMT_YUV444P8;
            else if (!strcmp(c, "mono"))
                y->fmt = RV_FMT_GRAY8;
            else if (!strcmp(c, "420p16"))
                y->fmt = RV_FMT_YUV420P16;
            else if (!strcmp(c, "444p16"))
                y->fmt = RV_FMT_YUV444P16;
            else if (!strcmp(c, "mono16"))
                y->fmt = RV_FMT_GRAY16;
            else {
                snprintf(err, en, "unsupported Y4M colour space C%s", c);
                return -1;
            }
        } else {
            if (t[0] == 'I')
                y->interlaced = t[1] == 't' || t[1] == 'b';
            if (strlen(y->rest) + strlen(t) + 2 < sizeof(y->rest)) {
                strcat(y->rest, " ");
                strcat(y->rest, t);
            }
        }
    }
    if (y->w <= 0 || y->h <= 0 || y->w > RV_MAX_DIM || y->h > RV_MAX_DIM) {
        snprintf(err, en, "bad Y4M size %dx%d", y->w, y->h);
        return -1;
    }
    return 0;
}

static const char *ctag(RV_Format f)
{
    switch (f) {
    case RV_FMT_YUV420P8: return "420jpeg";
    case RV_FMT_YUV444P8: return "444";
    case RV_FMT_GRAY8: return "mono";
    case RV_FMT_YUV420P16: return "420p16";
    case RV_FMT_YUV444P16: return "444p16";
    case RV_FMT_GRAY16: return "mono16";
    default: return "?";
    }
}

/* Reads (dir 0) or writes (dir 1) the planes of one frame; 16-bit samples
 * are little-endian in the file (as ffmpeg writes them). */
static int frame_io(FILE *f, RV_Image *img, int dir)
{
    const int bytes = rv_format_info(rv_image_format(img))->sample_bytes;
    for (int p = 0; p < rv_image_planes(img); p++) {
        const int pw = rv_image_plane_width(img, p), ph = rv_image_plane_height(img, p);
        ptrdiff_t pitch;
        unsigned char *base = dir ? (unsigned char *)(uintptr_t)rv_image_read(img, p, &pitch)
                                  : rv_image_write(img, p, &pitch);
        if (!base)
            return -1;
        for (int yy = 0; yy < ph; yy++) {
            unsigned char *row = base + yy * pitch;
            const size_t n = (size_t)pw * (size_t)bytes;
            if ((dir ? fwrite(row, 1, n, f) : fread(row, 1, n, f)) != n)
                return -1;
        }
    }
    return 0;
}

static int set_key(RV_DebandSettings *s, const char *kv, RV_Backend *be, int *il_given)
{
    const char *eq = strchr(kv, '=');
    if (!eq)
        return -1;
    const size_t kl = (size_t)(eq - kv);
    const char *v = eq + 1;
    if (kl == 7 && !strncmp(kv, "backend", 7)) {
        if (!strcmp(v, "auto")) *be = RV_BACKEND_AUTO;
        else if (!strcmp(v, "cpu")) *be = RV_BACKEND_CPU;
        else if (!strcmp(v, "cuda")) *be = RV_BACKEND_CUDA;
        else return -1;
        return 0;
    }
    /* decimal (a leading 0 is not octal), or hexadecimal after 0x */
    long n;
    if (rv_cli_parse_long(v, &n) < 0 || n < INT32_MIN || n > (long)UINT32_MAX)
        return -1;
    struct { const char *k; int *p; } keys[] = {
        {"range", &s->range}, {"y", &s->y}, {"cb", &s->cb}, {"cr", &s->cr},
        {"grainy", &s->grainy}, {"grainc", &s->grainc}, {"sample_mode", &s->sample_mode},
        {"blur_first", &s->blur_first}, {"dynamic_grain", &s->dynamic_grain},
        {"interlaced", &s->interlaced}, {"output_depth", &s->output_depth},
    };
    if (kl == 4 && !strncmp(kv, "seed", 4)) {
        s->seed = (uint32_t)n;
        return 0;
    }
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strlen(keys[i].k) == kl && !strncmp(kv, keys[i].k, kl)) {
            if (n > INT32_MAX)
                return -1;
            *keys[i].p = (int)n;
            if (keys[i].p == &s->interlaced)
                *il_given = 1;
            return 0;
        }
    return -1;
}

/* The library's messages (rv_cli_log): warnings and information (which
 * backend runs, said once) shown; errors left out, since this tool reports
 * each failure itself with the context's or the module's message (the latest is
 * kept: why a backend is unavailable). */
static void tool_log(void *opaque, RV_LogLevel level, const char *msg)
{
    (void)opaque;
    rv_cli_log("rv-deband", 0, level, msg);
}

/* A context on backend `be`, or NULL after saying why there is none (e.g.
 * backend=cuda without a usable GPU: no driver, no device); *rc is then the
 * exit status: 3 for a backend that is unavailable, 1 for another failure. */
static RV_Context *open_context(RV_Backend be, int *rc)
{
    RV_Settings cs;
    rv_settings_default(&cs);
    cs.backend = be;
    cs.log = tool_log;
    cs.log_level = RV_LOG_INFO;
    RV_Context *ctx = NULL;
    const int err = rv_context_create(&ctx, &cs);
    if (err < 0) {
        *rc = rv_cli_backend_failed("rv-deband", rv_backend_name(be), err, rv_strerror(err), "backend=auto") ? 3 : 1;
        return NULL;
    }
    return ctx;
}

/* A grey PGM still image (ravioli/io.h reads and writes it). */
static int deband_pgm(RV_DebandSettings *s, RV_Backend be, const char *in, const char *out)
{
    char err[256];
    if (rv_deband_settings_check(s, err, sizeof(err)) < 0) {
        fprintf(stderr, "rv-deband: %s\n", err);
        return 2;
    }
    if (!strcmp(out, "-")) {
        fprintf(stderr, "rv-deband: a PGM output needs a file name\n");
        return 2;
    }
    int rc = 1;
    RV_Context *ctx = open_context(be, &rc);
    if (!ctx)
        return rc;
    RV_Deband *db = NULL;
    RV_Image *src = NULL, *dst = NULL;
    if (rv_image_read_file(ctx, in, &src) < 0 || rv_deband_create(ctx, &db) < 0) {
        fprintf(stderr, "rv-deband: %s\n", rv_context_error(ctx));
        goto done;
    }
    if (rv_deband_configure(db, s) < 0) {
        fprintf(stderr, "rv-deband: %s\n", rv_deband_error(db));
        goto done;
    }
    const RV_Format fo = rv_deband_output_format(db, rv_image_format(src));
    if (!fo) {
        fprintf(stderr, "rv-deband: %s: only grey PGM images are supported (not colour)\n", in);
        goto done;
    }
    if (rv_image_create(ctx, rv_image_width(src), rv_image_height(src), fo, &dst) < 0) {
        fprintf(stderr, "rv-deband: %s\n", rv_context_error(ctx));
        goto done;
    }
    if (rv_deband_apply(db, dst, src, 0) < 0) {
        fprintf(stderr, "rv-deband: %s\n", rv_deband_error(db));
        goto done;
    }
    if (rv_image_write_file(dst, out) < 0) {
        fprintf(stderr, "rv-deband: %s\n", rv_context_error(ctx));
        goto done;
    }
    rc = 0;
done:
    rv_image_destroy(&src);
    rv_image_destroy(&dst);
    rv_deband_destroy(&db);
    rv_context_destroy(&ctx);
    return rc;
}

/* Why `path` is not an input rv-deband reads, from its first bytes (n of
 * them); "" when it may be a Y4M stream (the header parser says more). */
static const char *not_an_input(const unsigned char *b, size_t n)
{
    if (n == 0)
        return "is empty";
    if (n >= 2 && b[0] == 'P') {
        switch (b[1]) {
        case '6': case '3': return "is a colour PPM image";
        case 'f': return "is a PFM (floating-point) image";
        case 'F': return "is a colour PFM (floating-point) image";
        case '1': case '4': return "is a PBM (bitmap) image";
        case '7': return "is a PAM image";
        default: break;
        }
    }
    if (n < 9 || memcmp(b, "YUV4MPEG2", 9) != 0)
        return "is neither a Y4M (YUV4MPEG2) file nor a PGM image";
    return "";
}

/* 0 when `out` may receive the input's kind (pgm: 1 for a PGM input, 0 for
 * Y4M); else says why not and returns -1. The output is never converted, so a
 * name promising another kind is refused rather than given the wrong content. */
static int check_out_name(const char *out, int pgm)
{
    static const char *const other_y4m[] = {".pgm", ".pnm", ".ppm", ".pfm", ".pbm", ".pam", NULL};
    static const char *const other_pgm[] = {".y4m", ".ppm", ".pfm", ".pbm", ".pam", NULL};
    if (!strcmp(out, "-"))
        return 0;
    for (const char *const *e = pgm ? other_pgm : other_y4m; *e; e++)
        if (rv_cli_has_ext(out, *e)) {
            fprintf(stderr,
                    "rv-deband: %s: the output is a %s like the input, but the name ends in %s; "
                    "name it %s (rv-deband does not convert between formats)\n",
                    out, pgm ? "grey PGM image" : "Y4M clip", *e, pgm ? ".pgm" : ".y4m");
            return -1;
        }
    return 0;
}

static void usage_to(FILE *f)
{
    fprintf(f,
            "usage: rv-deband [key=value ...] in.y4m out.y4m   (\"-\": stdin/stdout)\n"
            "       rv-deband [key=value ...] in.pgm out.pgm   (grey, 8 or 16 bit)\n"
            "inputs: Y4M (YUV4MPEG2) clips or stills, grey PGM images (P5, P2); the output is of\n"
            "      the input's kind (a name ending in another kind's extension is refused)\n"
            "keys: range y cb cr grainy grainc sample_mode blur_first seed dynamic_grain\n"
            "      interlaced output_depth (0, 8, 16) backend (auto, cpu, cuda)\n"
            "exit status: 0 done, 1 error, 2 usage error, 3 backend unavailable (backend=cuda\n"
            "      without a usable GPU)\n");
}

/* A usage error's usage: on stderr (--help writes it to stdout). */
static void usage(void)
{
    usage_to(stderr);
}

int main(int argc, char **argv)
{
    RV_DebandSettings s;
    rv_deband_settings_default(&s);
    RV_Backend be = RV_BACKEND_AUTO;
    int il_given = 0;
    const char *files[2] = {NULL, NULL};
    int nf = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage_to(stdout);
            return 0;
        }
        if (strchr(argv[i], '=') && strcmp(argv[i], "-") != 0) {
            if (set_key(&s, argv[i], &be, &il_given) < 0) {
                fprintf(stderr, "rv-deband: bad option '%s'\n", argv[i]);
                usage();
                return 2;
            }
        } else if (nf < 2) {
            files[nf++] = argv[i];
        } else {
            usage();
            return 2;
        }
    }
    if (nf != 2) {
        usage();
        return 2;
    }
    {
        /* the output would overwrite the input while it is read */
        if (strcmp(files[0], "-") && strcmp(files[1], "-") && rv_cli_same_file(files[0], files[1])) {
            fprintf(stderr, "rv-deband: input and output are the same file ('%s')\n", files[1]);
            return 2;
        }
    }
    struct stat ist;
    if (strcmp(files[0], "-") && stat(files[0], &ist) == 0 && S_ISDIR(ist.st_mode)) {
        fprintf(stderr, "rv-deband: %s: is a directory (expected a Y4M file or a grey PGM image)\n", files[0]);
        return 1;
    }
    FILE *in = strcmp(files[0], "-") ? fopen(files[0], "rb") : stdin;
    if (!in) {
        fprintf(stderr, "rv-deband: %s: cannot open: %s\n", files[0], strerror(errno));
        return 1;
    }
    if (in != stdin) {
        unsigned char magic[9];
        const size_t nm = fread(magic, 1, sizeof(magic), in);
        if (ferror(in)) {
            fprintf(stderr, "rv-deband: %s: read error: %s\n", files[0], strerror(errno));
            fclose(in);
            return 1;
        }
        if (nm >= 2 && magic[0] == 'P' && (magic[1] == '5' || magic[1] == '2')) {
            fclose(in);
            if (check_out_name(files[1], 1) < 0)
                return 2;
            return deband_pgm(&s, be, files[0], files[1]);
        }
        const char *why = not_an_input(magic, nm);
        if (why[0]) {
            fprintf(stderr, "rv-deband: %s: %s; rv-deband reads Y4M (YUV4MPEG2) files and grey PGM images\n",
                    files[0], why);
            fclose(in);
            return 1;
        }
        rewind(in);
    }
    if (check_out_name(files[1], 0) < 0) {
        if (in != stdin)
            fclose(in);
        return 2;
    }
    char err[256];
    y4m hdr;
    if (parse_header(in, &hdr, err, sizeof(err)) < 0) {
        fprintf(stderr, "rv-deband: %s: %s\n", in == stdin ? "(stdin)" : files[0], err);
        if (in != stdin)
            fclose(in);
        return 1;
    }
    /* the header's size before any allocation (the library's Y4M reader's limit) */
    if ((long long)hdr.w * hdr.h > RV_Y4M_MAX_PIXELS) {
        fprintf(stderr, "rv-deband: %s: %dx%d is larger than supported\n", files[0], hdr.w, hdr.h);
        if (in != stdin)
            fclose(in);
        return 1;
    }
    if (!il_given && hdr.interlaced == 1)
        s.interlaced = 1;
    if (rv_deband_settings_check(&s, err, sizeof(err)) < 0) {
        fprintf(stderr, "rv-deband: %s\n", err);
        return 2;
    }
    int rc = 1;
    RV_Context *ctx = open_context(be, &rc);
    if (!ctx) {
        if (in != stdin)
            fclose(in);
        return rc;
    }
    RV_Deband *db = NULL;
    RV_Image *src = NULL, *dst = NULL;
    FILE *out = NULL;
    if (rv_deband_create(ctx, &db) < 0) {
        fprintf(stderr, "rv-deband: %s\n", rv_context_error(ctx));
        goto done;
    }
    if (rv_deband_configure(db, &s) < 0) {
        fprintf(stderr, "rv-deband: %s\n", rv_deband_error(db));
        goto done;
    }
    const RV_Format fo = rv_deband_output_format(db, hdr.fmt);
    if (rv_image_create(ctx, hdr.w, hdr.h, hdr.fmt, &src) < 0 ||
        rv_image_create(ctx, hdr.w, hdr.h, fo, &dst) < 0) {
        fprintf(stderr, "rv-deband: %s\n", rv_context_error(ctx));
        goto done;
    }
    out = strcmp(files[1], "-") ? fopen(files[1], "wb") : stdout;
    if (!out) {
        fprintf(stderr, "rv-deband: %s: cannot write: %s\n", files[1], strerror(errno));
        goto done;
    }
    fprintf(out, "YUV4MPEG2 W%d H%d C%s%s\n", hdr.w, hdr.h, ctag(fo), hdr.rest);
    int64_t frame = 0;
    int keep = 0; /* 1: a damaged input after good frames: they stay in the output */
    char line[256];
    const char *iname = in == stdin ? "(stdin)" : files[0];
    while (fgets(line, sizeof(line), in)) {
        /* "FRAME", then parameters after a space, or the newline */
        const char *bad = NULL;
        if (strncmp(line, "FRAME", 5) != 0 || (line[5] != ' ' && line[5] != '\n') || !strchr(line, '\n'))
            bad = "has a bad FRAME header";
        else if (frame_io(in, src, 0) < 0)
            bad = ferror(in) ? "cannot be read" : "is truncated";
        if (bad) {
            keep = frame > 0 && out != stdout;
            if (frame > 0)
                fprintf(stderr, "rv-deband: %s: frame %lld %s; the %lld complete frame%s before it %s\n", iname,
                        (long long)frame, bad, (long long)frame, frame == 1 ? "" : "s",
                        out == stdout ? (frame == 1 ? "was written" : "were written")
                                      : (frame == 1 ? "is kept in the output" : "are kept in the output"));
            else
                fprintf(stderr, "rv-deband: %s: frame %lld %s\n", iname, (long long)frame, bad);
            goto done;
        }
        if (rv_deband_apply(db, dst, src, frame) < 0) {
            fprintf(stderr, "rv-deband: %s\n", rv_deband_error(db));
            goto done;
        }
        fputs("FRAME\n", out);
        if (frame_io(out, dst, 1) < 0) {
            fprintf(stderr, "rv-deband: %s: write error\n", files[1]);
            goto done;
        }
        frame++;
    }
    if (ferror(in)) {
        fprintf(stderr, "rv-deband: %s: read error after %lld frames\n", iname, (long long)frame);
        keep = frame > 0 && out != stdout;
        goto done;
    }
    if (frame == 0) {
        fprintf(stderr, "rv-deband: %s: no frames\n", files[0]);
        goto done;
    }
    rc = 0;
done:
    if (out) {
        /* stdout too: a full disk or a closed pipe must not pass as success */
        const int werr = fflush(out) != 0 || ferror(out);
        const int cerr = out != stdout && fclose(out) != 0;
        if (werr || cerr) {
            if (rc == 0 || keep)
                fprintf(stderr, "rv-deband: %s: write error\n", files[1]);
            rc = 1;
            keep = 0;
        }
        /* no partial output left behind a failure (a regular file only), except
         * the complete frames before a damaged input frame */
        struct stat sb;
        if (rc != 0 && !keep && out != stdout && stat(files[1], &sb) == 0 && S_ISREG(sb.st_mode))
            remove(files[1]);
    }
    if (in != stdin)
        fclose(in);
    rv_image_destroy(&src);
    rv_image_destroy(&dst);
    rv_deband_destroy(&db);
    rv_context_destroy(&ctx);
    return rc;
}
