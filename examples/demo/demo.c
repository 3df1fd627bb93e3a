/*
 * ravioli-demo - the main demo: the thesis' video pipeline on a generated
 * moving scene, on the GPU when there is one and on the CPU otherwise.
 *
 * Per frame: GrayScale -> Binarize -> EdgeDetect (procPix, procPix, procNbr,
 * in place), template matching of a target (procBox + min reduction) and
 * difference detection against the previous frame (compImg). Halfway
 * through, the spatial stride is raised to 2 to show what resolution
 * adaptation does to the cost. Writes the first and last results as PPM.
 *
 *   ravioli-demo [--frames N] [--size WxH] [--backend auto|cpu|cuda] [--out DIR]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <ravioli/ravioli.h>

#include "samples_params.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static RV_Context *ctx;

static void check(int err, const char *what)
{
    if (err < 0) {
        fprintf(stderr, "ravioli-demo: %s: %s\n", what, ctx ? rv_context_error(ctx) : rv_strerror(err));
        exit(1);
    }
}

/* Frame t of the scene: gradient background, a moving disc, a blue square target. */
static void draw(RV_Image *img, int t, int *tx, int *ty)
{
    int w = rv_image_width(img), h = rv_image_height(img);
    ptrdiff_t pitch;
    unsigned char *d = rv_image_write(img, 0, &pitch);
    int cx = w / 4 + (t * 7) % (w / 2), cy = h / 2;
    *tx = w / 8 + (t * 5) % (w / 2);
    *ty = h / 6 + (t * 3) % (h / 2);
    int ts = h / 8;
    for (int y = 0; y < h; y++) {
        RV_Pixel *row = (RV_Pixel *)(d + y * pitch);
        for (int x = 0; x < w; x++) {
            int r = 255 * x / w, g = 255 * y / h, b = 96 + (x ^ y) % 32;
            int dx = x - cx, dy = y - cy;
            if (dx * dx + dy * dy < (h / 7) * (h / 7))
                r = 250, g = 220, b = 40;
            if (x >= *tx && x < *tx + ts && y >= *ty && y < *ty + ts)
                r = 20 + (x - *tx) * 3, g = 40, b = 230 - (y - *ty) * 2;
            row[x] = rv_rgb(r, g, b);
        }
    }
}

int main(int argc, char **argv)
{
    int frames = 40, w = 640, h = 360;
    const char *out_dir = "ravioli-demo-out";
    RV_Settings s;
    rv_settings_default(&s);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%dx%d", &w, &h) == 2)
            i++;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            const char *b = argv[++i];
            s.backend = !strcmp(b, "cpu") ? RV_BACKEND_CPU : !strcmp(b, "cuda") ? RV_BACKEND_CUDA : RV_BACKEND_AUTO;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out_dir = argv[++i];
        else {
            printf("usage: ravioli-demo [--frames N] [--size WxH] [--backend auto|cpu|cuda] [--out DIR]\n");
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (frames < 2 || w < 64 || h < 64 || w > 8192 || h > 8192) {
        fprintf(stderr, "ravioli-demo: need --frames >= 2 and a size from 64x64 to 8192x8192\n");
        return 2;
    }
    check(rv_context_create(&ctx, &s), "creating a context");
    printf("ravioli-demo: %d frames of %dx%d RGBA on the %s backend (%d CPU threads)\n", frames, w, h,
           rv_backend_name(rv_context_backend(ctx)), rv_context_threads(ctx));

    RV_Module *m;
    check(rv_module_load(ctx, "samples", &m), "loading module 'samples'");
    const RV_Kernel *kgray, *kbin, *kedge, *ksad, *kdiff;
    check(rv_kernel_get(m, "gray", &kgray), "gray");
    check(rv_kernel_get(m, "binarize", &kbin), "binarize");
    check(rv_kernel_get(m, "edge", &kedge), "edge");
    check(rv_kernel_get(m, "sad", &ksad), "sad");
    check(rv_kernel_get(m, "diff", &kdiff), "diff");

    RV_Image *frame, *prev, *work, *motion, *tpl;
    check(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &frame), "frame");
    check(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &prev), "frame");
    check(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &work), "frame");
    check(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &motion), "frame");
    int ts = h / 12, tx, ty;
    check(rv_image_create(ctx, ts, ts, RV_FMT_RGBA8, &tpl), "template");
    draw(frame, 0, &tx, &ty); /* cut the target out of frame 0 */
    {
        ptrdiff_t fp, tp;
        const unsigned char *f = rv_image_read(frame, 0, &fp);
        unsigned char *t = rv_image_write(tpl, 0, &tp);
        for (int y = 0; y < ts; y++)
            memcpy(t + y * tp, f + (ty + y) * fp + tx * 4, (size_t)ts * 4);
    }
    const rv_threshold_params bin = {110}, edge = {0}, dth = {60};
    double t_pipe[2] = {0, 0}, t_match[2] = {0, 0};
    int n[2] = {0, 0}, found = 0;
    mkdir(out_dir, 0755);

    for (int f = 0; f < frames; f++) {
        int half = f >= frames / 2, stride = half ? 2 : 1;
        check(rv_image_copy(prev, frame), "copy");
        draw(frame, f, &tx, &ty);
        check(rv_image_copy(work, frame), "copy");
        rv_image_set_stride(work, stride);
        rv_image_set_stride(frame, stride);

        double t0 = now_ms();
        check(rv_proc_pix(kgray, work, work, NULL, 0), "GrayScale");
        check(rv_proc_pix(kbin, work, work, &bin, sizeof bin), "Binarize");
        check(rv_proc_nbr(kedge, work, work, &edge, sizeof edge), "EdgeDetect");
        check(rv_comp_img(kdiff, motion, frame, prev, &dth, sizeof dth), "difference detection");
        check(rv_context_sync(ctx), "sync");
        double t1 = now_ms();
        RV_BoxResult r;
        check(rv_proc_box(ksad, NULL, frame, tpl, ts, ts, NULL, 0, RV_MIN, &r), "template matching");
        double t2 = now_ms();
        if (f > 0) { /* frame 0 warms up */
            t_pipe[half] += t1 - t0;
            t_match[half] += t2 - t1;
            n[half]++;
        }
        /* at stride 2 the match is on the 2-pixel grid */
        if (abs(r.x - tx) < stride && abs(r.y - ty) < stride)
            found++;
        if (f == 0 || f == frames - 1) {
            char path[512];
            snprintf(path, sizeof(path), "%s/edges_%03d.ppm", out_dir, f);
            int err = rv_image_write_file(work, path);
            snprintf(path, sizeof(path), "%s/motion_%03d.ppm", out_dir, f);
            if (err >= 0)
                err = rv_image_write_file(motion, path);
            if (err < 0)
                printf("  (could not write %s: %s)\n", path, rv_context_error(ctx));
        }
    }
    printf("\n%-10s %8s %22s %22s\n", "stride", "frames", "gray+bin+edge+diff ms", "template match ms");
    for (int i = 0; i < 2; i++)
        if (n[i])
            printf("%-10d %8d %22.3f %22.3f\n", i + 1, n[i], t_pipe[i] / n[i], t_match[i] / n[i]);
    printf("\ntarget tracked in %d of %d frames; outputs in %s/\n", found, frames, out_dir);
    rv_context_destroy(&ctx);
    return found == frames ? 0 : 1;
}
