/* EdgeDetect: procNbr with a 3x3 Sobel operator; the spatial stride shows
 * resolution adaptation: at stride 2 a quarter of the pixels are evaluated.
 *   rv-edgedetect [in.ppm [out.ppm [stride]]] */
#include "example_util.h"
#include "samples_params.h"

int main(int argc, char **argv)
{
    RV_Context *ctx;
    check(NULL, rv_context_create(&ctx, NULL), "rv_context_create");
    RV_Image *img = input_image(ctx, argc, argv, 1);
    check(ctx, rv_image_set_stride(img, argc > 3 ? atoi(argv[3]) : 1), "stride");
    rv_threshold_params prm = {0}; /* 0: the gradient magnitude itself */
    check(ctx, rv_proc_nbr(sample_kernel(ctx, "edge"), img, img, &prm, sizeof prm), "procNbr");
    const char *out = argc > 2 ? argv[2] : "edgedetect.ppm";
    check(ctx, rv_image_write_file(img, out), out);
    printf("wrote %s (stride %d)\n", out, rv_image_stride(img));
    rv_context_destroy(&ctx);
    return 0;
}
