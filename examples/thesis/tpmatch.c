/* Template matching (thesis Figs. 13, 26): procBox scores every window by
 * SAD against the template; the library's min reduction returns the best
 * score and where it is. The user writes only the window score.
 *   rv-tpmatch [image.ppm template.ppm] */
#include "example_util.h"

int main(int argc, char **argv)
{
    RV_Context *ctx;
    check(NULL, rv_context_create(&ctx, NULL), "rv_context_create");
    RV_Image *img, *tpl;
    int cut_x = -1, cut_y = -1;
    if (argc > 2) {
        check(ctx, rv_image_read_file(ctx, argv[1], &img), argv[1]);
        check(ctx, rv_image_read_file(ctx, argv[2], &tpl), argv[2]);
    } else {
        /* the thesis' sizes: a 395x372 image and a 70x72 template cut out of it */
        img = generate_scene(ctx, 395, 372, 0);
        cut_x = 250;
        cut_y = 20;
        check(ctx, rv_image_create(ctx, 70, 72, RV_FMT_RGBA8, &tpl), "template");
        ptrdiff_t ip, tp;
        const unsigned char *s = rv_image_read(img, 0, &ip);
        unsigned char *d = rv_image_write(tpl, 0, &tp);
        for (int y = 0; y < 72; y++)
            for (int x = 0; x < 70 * 4; x++)
                d[y * tp + x] = s[(cut_y + y) * ip + cut_x * 4 + x];
    }
    RV_BoxResult r;
    check(ctx, rv_proc_box(sample_kernel(ctx, "sad"), NULL, img, tpl, rv_image_width(tpl),
                           rv_image_height(tpl), NULL, 0, RV_MIN, &r), "procBox");
    printf("best match at (%d, %d), SAD %.0f, %lld windows\n", r.x, r.y, r.score, r.positions);
    if (cut_x >= 0 && (r.x != cut_x || r.y != cut_y)) {
        fprintf(stderr, "expected (%d, %d)\n", cut_x, cut_y);
        return 1;
    }
    rv_context_destroy(&ctx);
    return 0;
}
