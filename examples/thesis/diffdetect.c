/* Difference detection: compImg compares two images pixel by pixel.
 *   rv-diffdetect [a.ppm b.ppm [out.ppm [threshold]]] */
#include "example_util.h"
#include "samples_params.h"

int main(int argc, char **argv)
{
    RV_Context *ctx;
    check(NULL, rv_context_create(&ctx, NULL), "rv_context_create");
    RV_Image *a, *b, *out;
    if (argc > 2) {
        check(ctx, rv_image_read_file(ctx, argv[1], &a), argv[1]);
        check(ctx, rv_image_read_file(ctx, argv[2], &b), argv[2]);
    } else { /* two frames of a scene in which the disc moved */
        a = generate_scene(ctx, 512, 512, 0);
        b = generate_scene(ctx, 512, 512, 24);
    }
    check(ctx, rv_image_create(ctx, rv_image_width(a), rv_image_height(a), RV_FMT_RGBA8, &out), "output");
    rv_threshold_params prm = {argc > 4 ? atoi(argv[4]) : 60};
    check(ctx, rv_comp_img(sample_kernel(ctx, "diff"), out, a, b, &prm, sizeof prm), "compImg");
    const char *name = argc > 3 ? argv[3] : "diffdetect.ppm";
    check(ctx, rv_image_write_file(out, name), name);
    printf("wrote %s\n", name);
    rv_context_destroy(&ctx);
    return 0;
}
