/*
 * rv-dwt - forward / inverse wavelet transform of image files.
 *
 *   rv-dwt forward [-w haar|53|97|dd137] [-l levels] [-m inplace|outofplace]
 *                  [-i block|interleaved] [-b cpu|cuda|auto] IN OUT.pfm
 *   rv-dwt inverse [...same options] IN.pfm OUT
 *
 * forward: IN is any image ravioli reads (PGM, PPM is refused: grey only, PFM);
 * its samples are taken as floats and the coefficients written as a grey PFM,
 * so OUT must end in .pfm (any case).
 * inverse: IN is a PFM of coefficients; OUT is written as PFM when its name
 * ends in .pfm, or as an 8-bit PGM (rounded, clamped to 0..255) when it ends
 * in .pgm (any case); a warning says how many samples the clamping changed
 * (e.g. the inverse of a 16-bit image's coefficients: write .pfm to keep the
 * values). Any other OUT name (x.ppm, no extension) is a usage error, before
 * anything is read or written: the file would not hold what its name says.
 *
 * Exit status: 0; 1 on an error; 2 on a usage error; 3 when something is
 * unavailable: the backend (-b cuda without a usable GPU: the message says
 * why, as ravioli-run's) or what the library answers with RV_ENOSYS (e.g. the
 * image reader for a colour PFM, PBM or PAM).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ravioli/dwt.h>

#include "rv_cli.h"

static void usage_to(FILE *f)
{
    fprintf(f, "usage: rv-dwt forward|inverse [-w haar|53|97|dd137] [-l levels] [-m inplace|outofplace]\n"
               "              [-i block|interleaved] [-b cpu|cuda|auto] IN OUT\n"
               "forward: IN a grey PGM or PFM, OUT the coefficients (grey PFM): OUT must end in .pfm\n"
               "inverse: IN coefficients (PFM); OUT a PFM when it ends in .pfm, or an 8-bit PGM when\n"
               "         it ends in .pgm (rounded and clamped to 0..255, with a warning when that\n"
               "         changes samples: use .pfm for 16-bit images)\n"
               "Extensions in any case; another OUT name is a usage error (exit 2).\n"
               "Exit status: 0 done, 1 error, 2 usage error, 3 unavailable (the backend, or an image\n"
               "             kind the reader refuses)\n");
}

/* The library's messages (rv_cli_log): warnings and information (which
 * backend runs, said once) shown; errors left out, since this tool reports
 * each failure itself with the context's or the transform's message (the latest is
 * kept: why a backend is unavailable). */
static void tool_log(void *opaque, RV_LogLevel level, const char *msg)
{
    (void)opaque;
    rv_cli_log("rv-dwt", 0, level, msg);
}

static void usage(void)
{
    usage_to(stderr);
}

/* The index of v among the NULL-terminated names of option opt, or -1 after
 * saying which values it takes. */
static int choice(const char *opt, const char *v, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(v, names[i]))
            return i;
    fprintf(stderr, "rv-dwt: %s: one of", opt);
    for (int i = 0; names[i]; i++)
        fprintf(stderr, " %s", names[i]);
    fprintf(stderr, ", not '%s'\n", v);
    return -1;
}

/* Converts a grey image to GRAYF32 (or 8 bit, rounded and clamped: *clamped
 * counts the samples the clamping changed), copying sample values. */
static int convert(RV_Context *ctx, RV_Image *src, RV_Format to, RV_Image **out, long long *clamped)
{
    const int w = rv_image_width(src), h = rv_image_height(src);
    RV_Format from = rv_image_format(src);
    int err = rv_image_create(ctx, w, h, to, out);
    if (err < 0)
        return err;
    ptrdiff_t sp, dp;
    const unsigned char *s = rv_image_read(src, 0, &sp);
    unsigned char *d = rv_image_write(*out, 0, &dp);
    if (!s || !d)
        return RV_EIO;
    for (int y = 0; y < h; y++) {
        const unsigned char *sr = s + y * sp;
        unsigned char *dr = d + y * dp;
        for (int x = 0; x < w; x++) {
            float v;
            if (from == RV_FMT_GRAY8)
                v = sr[x];
            else if (from == RV_FMT_GRAY16)
                v = ((const uint16_t *)sr)[x];
            else
                v = ((const float *)sr)[x];
            if (to == RV_FMT_GRAYF32) {
                ((float *)dr)[x] = v;
            } else {
                v += 0.5f;
                if (!(v >= 0.0f && v < 256.0f)) /* rounds outside 0..255 (or NaN) */
                    (*clamped)++;
                dr[x] = (unsigned char)(!(v >= 0.0f) ? 0 : v > 255.0f ? 255 : (int)v);
            }
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage();
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage_to(stdout);
        return 0;
    }
    int inverse;
    if (!strcmp(argv[1], "forward"))
        inverse = 0;
    else if (!strcmp(argv[1], "inverse"))
        inverse = 1;
    else {
        usage();
        return 2;
    }
    RV_DwtSettings ds;
    rv_dwt_settings_default(&ds);
    RV_Settings cs;
    rv_settings_default(&cs);
    int levels = 3, i = 2;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        const char *o = argv[i], *v = argv[i + 1];
        static const char *const wn[] = {"haar", "53", "97", "dd137", NULL}, *const mn[] = {"inplace", "outofplace", NULL},
                                 *const in_[] = {"block", "interleaved", NULL}, *const bn[] = {"cpu", "cuda", "auto", NULL};
        static const RV_DwtWavelet wv[] = {RV_DWT_HAAR, RV_DWT_CDF53, RV_DWT_CDF97, RV_DWT_DD137};
        static const RV_DwtMethod mv[] = {RV_DWT_IN_PLACE, RV_DWT_OUT_OF_PLACE};
        static const RV_DwtLayout lv[] = {RV_DWT_LAYOUT_BLOCK, RV_DWT_LAYOUT_INTERLEAVED};
        static const RV_Backend bv[] = {RV_BACKEND_CPU, RV_BACKEND_CUDA, RV_BACKEND_AUTO};
        int c = 0;
        if (!strcmp(o, "-l")) {
            char *end = NULL;
            long l = strtol(v, &end, 10);
            if (end == v || *end || l < 0 || l > 32) {
                fprintf(stderr, "rv-dwt: -l: expected a number of levels in 0..32, got '%s'\n", v);
                c = -1;
            } else {
                levels = (int)l;
            }
        } else if (!strcmp(o, "-w")) {
            if ((c = choice(o, v, wn)) >= 0)
                ds.wavelet = wv[c];
        } else if (!strcmp(o, "-m")) {
            if ((c = choice(o, v, mn)) >= 0)
                ds.method = mv[c];
        } else if (!strcmp(o, "-i")) {
            if ((c = choice(o, v, in_)) >= 0)
                ds.layout = lv[c];
        } else if (!strcmp(o, "-b")) {
            if ((c = choice(o, v, bn)) >= 0)
                cs.backend = bv[c];
        } else {
            c = -1;
        }
        if (c < 0) {
            usage();
            return 2;
        }
    }
    if (argc - i != 2) {
        usage();
        return 2;
    }
    const char *in = argv[i], *outp = argv[i + 1];
    /* What is written is chosen from OUT's name: a name that says another kind
     * of file (x.ppm with PFM bytes) is refused before anything is done. */
    const int out_pgm = inverse && rv_cli_has_ext(outp, ".pgm");
    if (!out_pgm && !rv_cli_has_ext(outp, ".pfm")) {
        if (inverse)
            fprintf(stderr, "rv-dwt: %s: the inverse writes a PFM (OUT ending in .pfm) or an 8-bit PGM "
                            "(.pgm), nothing else\n", outp);
        else
            fprintf(stderr, "rv-dwt: %s: the forward transform writes its coefficients as a grey PFM: "
                            "OUT must end in .pfm\n", outp);
        usage();
        return 2;
    }
    cs.log = tool_log;
    cs.log_level = RV_LOG_INFO;
    RV_Context *ctx = NULL;
    RV_Dwt *dwt = NULL;
    RV_Image *img = NULL, *f = NULL, *o8 = NULL;
    int err = rv_context_create(&ctx, &cs);
    if (err < 0) /* e.g. -b cuda without a usable GPU: says why (no driver, no device) */
        return rv_cli_backend_failed("rv-dwt", rv_backend_name(cs.backend), err, rv_strerror(err), "-b auto") ? 3 : 1;
    const char *what = "read";
    if ((err = rv_image_read_file(ctx, in, &img)) < 0)
        goto done;
    RV_Format fmt = rv_image_format(img);
    what = "input format";
    if (fmt != RV_FMT_GRAY8 && fmt != RV_FMT_GRAY16 && fmt != RV_FMT_GRAYF32) {
        err = RV_EINVAL;
        fprintf(stderr, "rv-dwt: %s: grey images only\n", in);
        what = NULL; /* said above */
        goto done;
    }
    what = "convert";
    long long clamped = 0;
    if ((err = convert(ctx, img, RV_FMT_GRAYF32, &f, &clamped)) < 0)
        goto done;
    what = "transform";
    if ((err = rv_dwt_create(ctx, &ds, &dwt)) < 0) {
        char why[200];
        if (rv_dwt_settings_check_for(ctx, &ds, why, sizeof(why)) < 0) {
            fprintf(stderr, "rv-dwt: %s\n", why);
            what = NULL; /* said */
        }
        goto done;
    }
    err = inverse ? rv_dwt_inverse(dwt, f, levels) : rv_dwt_forward(dwt, f, levels);
    if (err < 0) {
        fprintf(stderr, "rv-dwt: %s\n", rv_dwt_error(dwt));
        what = NULL; /* said above */
        goto done;
    }
    what = "write";
    if (out_pgm) {
        if ((err = convert(ctx, f, RV_FMT_GRAY8, &o8, &clamped)) < 0)
            goto done;
        err = rv_image_write_file(o8, outp);
        if (err == 0 && clamped > 0)
            fprintf(stderr,
                    "rv-dwt: warning: %s: %lld of %lld samples were outside 0..255 and clamped in the 8-bit "
                    "PGM (from a 16-bit image? write a .pfm to keep the values)\n",
                    outp, clamped, (long long)rv_image_width(f) * rv_image_height(f));
    } else {
        err = rv_image_write_file(f, outp);
    }
done:
    if (err < 0 && what)
        fprintf(stderr, "rv-dwt: %s failed: %s (%s)\n", what, rv_strerror(err), rv_context_error(ctx));
    rv_dwt_destroy(&dwt);
    rv_image_destroy(&img);
    rv_image_destroy(&f);
    rv_image_destroy(&o8);
    rv_context_destroy(&ctx);
    return err < 0 ? (err == RV_ENOSYS ? 3 : 1) : 0;
}
