/*
 * rv-bench-cpu - the thesis' sample programs through ravioli's CPU backend
 * (one thread, and the worker pool) against the plain C loops, same image,
 * same run; prints medians and ratios.
 *
 *   rv-bench-cpu [--quick] [--threads N]
 *
 * The thesis (Table 1, Core2Quad) measured RaVioli at 9.8x (GrayScale),
 * 79x (EmbossFilter) and 5.5x (template matching) the time of plain C.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <ravioli/ravioli.h>

#include "plain.h"
#include "samples_params.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef void (*job_fn)(void *arg);

static double min_time = 0.4; /* seconds of measurement per figure */

/* Median time of fn over repeated runs (after two warm-ups). */
static double median_ms(job_fn fn, void *arg)
{
    double t[201];
    int n = 0;
    fn(arg);
    fn(arg);
    double start = now_s();
    while (n < 201 && (n < 5 || now_s() - start < min_time)) {
        double t0 = now_s();
        fn(arg);
        t[n++] = (now_s() - t0) * 1e3;
    }
    qsort(t, (size_t)n, sizeof(double), cmp_d);
    return t[n / 2];
}

typedef struct bench {
    const char *name;
    const char *kernel;
    int w, h;       /* image */
    int tw, th;     /* template (template matching) */
    double thesis;  /* thesis' RaVioli/plain ratio, 0 if none */
    /* state */
    RV_Image *src, *dst, *other, *tpl;
    const RV_Kernel *k;
    uint32_t *in, *out, *in2, *tin;
    ptrdiff_t pitch, tpitch;
    int which;
} bench;

static const rv_threshold_params bin_th = {128}, edge_th = {0}, diff_th = {60};

static void run_plain(void *arg)
{
    bench *b = arg;
    int bx, by;
    switch (b->which) {
    case 0: plain_gray(b->in, b->pitch, b->out, b->pitch, b->w, b->h); break;
    case 1: plain_binarize(b->in, b->pitch, b->out, b->pitch, b->w, b->h, bin_th.threshold); break;
    case 2: plain_edge(b->in, b->pitch, b->out, b->pitch, b->w, b->h, edge_th.threshold); break;
    case 3: plain_emboss(b->in, b->pitch, b->out, b->pitch, b->w, b->h); break;
    case 4: plain_diff(b->in, b->pitch, b->in2, b->pitch, b->out, b->pitch, b->w, b->h, diff_th.threshold); break;
    case 5: plain_sad_match(b->in, b->pitch, b->w, b->h, b->tin, b->tpitch, b->tw, b->th, &bx, &by); break;
    }
}

static void run_rv(void *arg)
{
    bench *b = arg;
    RV_BoxResult r;
    int err = 0;
    switch (b->which) {
    case 0: err = rv_proc_pix(b->k, b->dst, b->src, NULL, 0); break;
    case 1: err = rv_proc_pix(b->k, b->dst, b->src, &bin_th, sizeof bin_th); break;
    case 2: err = rv_proc_nbr(b->k, b->dst, b->src, &edge_th, sizeof edge_th); break;
    case 3: err = rv_proc_nbr(b->k, b->dst, b->src, NULL, 0); break;
    case 4: err = rv_comp_img(b->k, b->dst, b->src, b->other, &diff_th, sizeof diff_th); break;
    case 5: err = rv_proc_box(b->k, NULL, b->src, b->tpl, b->tw, b->th, NULL, 0, RV_MIN, &r); break;
    }
    if (err < 0) {
        fprintf(stderr, "rv-bench-cpu: %s failed: %s\n", b->name, rv_strerror(err));
        exit(1);
    }
}

static void fill(RV_Image *img, unsigned seed)
{
    ptrdiff_t p;
    unsigned char *d = rv_image_write(img, 0, &p);
    int w = rv_image_width(img), h = rv_image_height(img);
    unsigned x = seed * 2654435761u + 1;
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w * 4; i++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            d[y * p + i] = (unsigned char)(x >> 24);
        }
}

static RV_Context *make_ctx(int threads)
{
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CPU;
    s.threads = threads;
    RV_Context *ctx;
    if (rv_context_create(&ctx, &s) < 0)
        exit(1);
    return ctx;
}

int main(int argc, char **argv)
{
    int pool_threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            min_time = 0.1;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            pool_threads = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: rv-bench-cpu [--quick] [--threads N]\n");
            return 2;
        }
    }
    RV_Context *c1 = make_ctx(1), *cp = make_ctx(pool_threads);
    RV_Module *m1, *mp;
    if (rv_module_load(c1, "samples", &m1) < 0 || rv_module_load(cp, "samples", &mp) < 0) {
        fprintf(stderr, "rv-bench-cpu: cannot load the samples module: %s\n", rv_context_error(c1));
        return 1;
    }
    struct utsname u;
    uname(&u);
    char host[256];
    gethostname(host, sizeof(host));
    printf("rv-bench-cpu: ravioli %s, CPU backend, %s %s, %ld cores online, pool of %d threads\n",
           rv_version(), u.sysname, u.machine, sysconf(_SC_NPROCESSORS_ONLN), rv_context_threads(cp));
    printf("times are medians in ms; ratio = ravioli / plain C (lower is better; 1.00 = same speed)\n\n");
    printf("%-22s %-11s %10s %10s %7s %10s %7s %8s\n", "program", "size", "plain C", "rv 1 thr",
           "ratio", "rv pool", "ratio", "thesis");

    static const bench defs[] = {
        {.name = "GrayScale", .kernel = "gray", .w = 512, .h = 512, .tw = 0, .th = 0, .thesis = 9.759},
        {.name = "GrayScale", .kernel = "gray", .w = 1920, .h = 1080, .tw = 0, .th = 0, .thesis = 0},
        {.name = "Binarize", .kernel = "binarize", .w = 1920, .h = 1080, .tw = 0, .th = 0, .thesis = 0},
        {.name = "EdgeDetect (Sobel)", .kernel = "edge", .w = 1920, .h = 1080, .tw = 0, .th = 0, .thesis = 0},
        {.name = "EmbossFilter", .kernel = "emboss", .w = 512, .h = 512, .tw = 0, .th = 0, .thesis = 79.043},
        {.name = "EmbossFilter", .kernel = "emboss", .w = 1920, .h = 1080, .tw = 0, .th = 0, .thesis = 0},
        {.name = "DiffDetect", .kernel = "diff", .w = 1920, .h = 1080, .tw = 0, .th = 0, .thesis = 0},
        {.name = "TPmatching (SAD)", .kernel = "sad", .w = 395, .h = 372, .tw = 70, .th = 72, .thesis = 5.507},
    };
    static const int which[] = {0, 0, 1, 2, 3, 3, 4, 5};
    for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
        double ms[3];
        bench b[2];
        RV_Context *ctxs[2] = {c1, cp};
        RV_Module *mods[2] = {m1, mp};
        for (int c = 0; c < 2; c++) {
            b[c] = defs[i];
            b[c].which = which[i];
            RV_Context *ctx = ctxs[c];
            rv_image_create(ctx, b[c].w, b[c].h, RV_FMT_RGBA8, &b[c].src);
            rv_image_create(ctx, b[c].w, b[c].h, RV_FMT_RGBA8, &b[c].dst);
            rv_image_create(ctx, b[c].w, b[c].h, RV_FMT_RGBA8, &b[c].other);
            fill(b[c].src, 1);
            fill(b[c].other, 2);
            if (b[c].tw) {
                rv_image_create(ctx, b[c].tw, b[c].th, RV_FMT_RGBA8, &b[c].tpl);
                fill(b[c].tpl, 3);
            }
            if (rv_kernel_get(mods[c], b[c].kernel, &b[c].k) < 0)
                return 1;
        }
        /* plain C works on the pool context's images (same bytes) */
        bench *p = &b[1];
        p->in = (uint32_t *)rv_image_read(p->src, 0, &p->pitch);
        p->in2 = (uint32_t *)rv_image_read(p->other, 0, NULL);
        p->out = (uint32_t *)rv_image_write(p->dst, 0, NULL);
        if (p->tw)
            p->tin = (uint32_t *)rv_image_read(p->tpl, 0, &p->tpitch);
        ms[0] = median_ms(run_plain, p);
        ms[1] = median_ms(run_rv, &b[0]);
        ms[2] = median_ms(run_rv, &b[1]);
        char size[32], th[16] = "";
        snprintf(size, sizeof(size), "%dx%d", b[0].w, b[0].h);
        if (defs[i].thesis > 0)
            snprintf(th, sizeof(th), "%.1fx", defs[i].thesis);
        printf("%-22s %-11s %10.3f %10.3f %6.2fx %10.3f %6.2fx %8s\n", defs[i].name, size, ms[0], ms[1],
               ms[1] / ms[0], ms[2], ms[2] / ms[0], th);
        for (int c = 0; c < 2; c++) {
            rv_image_destroy(&b[c].src);
            rv_image_destroy(&b[c].dst);
            rv_image_destroy(&b[c].other);
            rv_image_destroy(&b[c].tpl);
        }
    }
    rv_context_destroy(&c1);
    rv_context_destroy(&cp);
    return 0;
}
