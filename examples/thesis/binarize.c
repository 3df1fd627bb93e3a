/* Binarize: procPix with a parameter block (the threshold).
 *   rv-binarize [in.ppm [out.ppm [threshold]]] */
#include "example_util.h"
#include "samples_params.h"

int main(int argc, char **argv)
{
    RV_Context *ctx;
    check(NULL, rv_context_create(&ctx, NULL), "rv_context_create");
    RV_Image *img = input_image(ctx, argc, argv, 1);
    rv_threshold_params prm = {argc > 3 ? atoi(argv[3]) : 128};
    check(ctx, rv_proc_pix(sample_kernel(ctx, "binarize"), img, img, &prm, sizeof prm), "procPix");
    const char *out = argc > 2 ? argv[2] : "binarize.ppm";
    check(ctx, rv_image_write_file(img, out), out);
    printf("wrote %s\n", out);
    rv_context_destroy(&ctx);
    return 0;
}
