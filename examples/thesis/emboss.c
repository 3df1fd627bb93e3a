/* EmbossFilter: procNbr, a 3x3 emboss on each channel.
 *   rv-emboss [in.ppm [out.ppm]] */
#include "example_util.h"

int main(int argc, char **argv)
{
    RV_Context *ctx;
    check(NULL, rv_context_create(&ctx, NULL), "rv_context_create");
    RV_Image *img = input_image(ctx, argc, argv, 1);
    check(ctx, rv_proc_nbr(sample_kernel(ctx, "emboss"), img, img, NULL, 0), "procNbr");
    const char *out = argc > 2 ? argv[2] : "emboss.ppm";
    check(ctx, rv_image_write_file(img, out), out);
    printf("wrote %s\n", out);
    rv_context_destroy(&ctx);
    return 0;
}
