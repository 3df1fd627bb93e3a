#include <stdio.h>
#include <string.h>

#include <ravioli/ravioli.h>

typedef struct { int32_t add; } add_params;

int main(void)
{
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CPU;
    s.module_path = MODDIR;
    RV_Context *ctx;
    RV_Module *m;
    const RV_Kernel *k;
    RV_Image *img;
    if (rv_context_create(&ctx, &s) < 0 || rv_module_load(ctx, "userk", &m) < 0 ||
        rv_kernel_get(m, "add_sat", &k) < 0 || rv_image_create(ctx, 5, 3, RV_FMT_GRAY8, &img) < 0) {
        fprintf(stderr, "user_app: %s\n", ctx ? rv_context_error(ctx) : "no context");
        return 1;
    }
    ptrdiff_t p;
    unsigned char *d = rv_image_write(img, 0, &p);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++)
            d[y * p + x] = (unsigned char)(y * 100 + x);
    add_params prm = {60};
    if (rv_proc_pix(k, img, img, &prm, sizeof prm) < 0)
        return 1;
    const unsigned char *r = rv_image_read(img, 0, &p);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++) {
            int want = y * 100 + x + 60 > 255 ? 255 : y * 100 + x + 60;
            if (r[y * p + x] != want) {
                fprintf(stderr, "user_app: (%d,%d) = %d, want %d\n", x, y, r[y * p + x], want);
                return 1;
            }
        }
    printf("user_app: ok\n");
    rv_context_destroy(&ctx);
    return 0;
}
