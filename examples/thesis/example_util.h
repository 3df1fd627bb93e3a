/*
 * example_util.h - what the example programs share: a context, the samples
 * module, and an input image read from a file or generated.
 */
#ifndef RV_EXAMPLE_UTIL_H
#define RV_EXAMPLE_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include <ravioli/ravioli.h>

/* Exits with a message naming what failed and why. */
static inline void check(RV_Context *ctx, int err, const char *what)
{
    if (err < 0) {
        fprintf(stderr, "%s: %s (%s)\n", what, ctx ? rv_context_error(ctx) : "", rv_strerror(err));
        exit(1);
    }
}

/* A colourful test scene: gradients, a disc and a square. */
static inline RV_Image *generate_scene(RV_Context *ctx, int w, int h, int shift)
{
    RV_Image *img;
    check(ctx, rv_image_create(ctx, w, h, RV_FMT_RGBA8, &img), "rv_image_create");
    ptrdiff_t pitch;
    unsigned char *d = rv_image_write(img, 0, &pitch);
    for (int y = 0; y < h; y++) {
        RV_Pixel *row = (RV_Pixel *)(d + y * pitch);
        for (int x = 0; x < w; x++) {
            int r = 255 * x / w, g = 255 * y / h, b = 128;
            int dx = x - w / 3 - shift, dy = y - h / 2;
            if (dx * dx + dy * dy < (h / 6) * (h / 6))
                r = 250, g = 220, b = 40;
            if (x > 2 * w / 3 && x < 2 * w / 3 + h / 5 && y > h / 5 && y < 2 * h / 5)
                r = 30, g = 60, b = 230;
            row[x] = rv_rgb(r, g, b);
        }
    }
    return img;
}

/* argv[i] as an input file, or a generated scene when there is none. */
static inline RV_Image *input_image(RV_Context *ctx, int argc, char **argv, int i)
{
    if (argc > i) {
        RV_Image *img;
        check(ctx, rv_image_read_file(ctx, argv[i], &img), argv[i]);
        return img;
    }
    return generate_scene(ctx, 512, 512, 0);
}

static inline const RV_Kernel *sample_kernel(RV_Context *ctx, const char *name)
{
    static RV_Module *mod; /* one module per example program */
    if (!mod)
        check(ctx, rv_module_load(ctx, "samples", &mod), "loading the samples module");
    const RV_Kernel *k;
    check(ctx, rv_kernel_get(mod, name, &k), name);
    return k;
}

#endif
