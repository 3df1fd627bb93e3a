/* GrayScale (thesis Fig. 24): procPix with the average of R, G and B.
 *   rv-grayscale [in.ppm [out.ppm]] */
#include "example_util.h"

int main(int argc, char **argv)
{
    RV_Context *ctx;
    check(NULL, rv_context_create(&ctx, NULL), "rv_context_create");
    RV_Image *img = input_image(ctx, argc, argv, 1);
    /* the element function `gray` is in modules/samples/samples.c */
    check(ctx, rv_proc_pix(sample_kernel(ctx, "gray"), img, img, NULL, 0), "procPix");
    const char *out = argc > 2 ? argv[2] : "grayscale.ppm";
    check(ctx, rv_image_write_file(img, out), out);
    printf("wrote %s (%s backend)\n", out, rv_backend_name(rv_context_backend(ctx)));
    rv_context_destroy(&ctx);
    return 0;
}
