/* A user's program on the installed ravioli::dwt and ravioli::deband: the
 * "dwt" module is found by name under the install prefix (no module path
 * set), its file is printed for install_test.sh, and a CDF 5/3 round trip on
 * the CPU backend must give the input back exactly. Where a GPU is usable, the
 * same on the CUDA backend (its module file printed too), whose coefficients
 * must equal the CPU's. */
#include <stdio.h>
#include <string.h>

#include <ravioli/deband.h>
#include <ravioli/dwt.h>

int main(void)
{
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CPU;
    RV_Context *ctx;
    if (rv_context_create(&ctx, &s) < 0) {
        fprintf(stderr, "dwt_app: no context\n");
        return 1;
    }
    RV_Module *m;
    if (rv_module_load(ctx, "dwt", &m) < 0) {
        fprintf(stderr, "dwt_app: %s\n", rv_context_error(ctx));
        return 1;
    }
    printf("dwt_app: module %s\n", rv_module_path(m));
    rv_module_unload(&m);

    RV_DwtSettings ds;
    rv_dwt_settings_default(&ds);
    ds.wavelet = RV_DWT_CDF53;
    ds.type = RV_DWT_I32;
    RV_Dwt *dwt;
    if (rv_dwt_create(ctx, &ds, &dwt) < 0) {
        fprintf(stderr, "dwt_app: %s\n", rv_context_error(ctx));
        return 1;
    }
    enum { W = 37, H = 11 };
    static int32_t in[H][W], coef[H][W], back[H][W], gcoef[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            in[y][x] = (x * 7 + y * 13) % 251 - 100;
    if (rv_dwt_forward_host(dwt, in, coef, W, H, sizeof(in[0]), 3) < 0 ||
        rv_dwt_inverse_host(dwt, coef, back, W, H, sizeof(in[0]), 3) < 0) {
        fprintf(stderr, "dwt_app: %s\n", rv_dwt_error(dwt));
        return 1;
    }
    if (memcmp(in, back, sizeof(in)) || !memcmp(in, coef, sizeof(in))) {
        fprintf(stderr, "dwt_app: the CDF 5/3 round trip is not exact (or did nothing)\n");
        return 1;
    }
    rv_dwt_destroy(&dwt);

    RV_Settings gs;
    rv_settings_default(&gs); /* RV_BACKEND_AUTO: the GPU where there is one */
    RV_Context *gctx;
    if (rv_context_create(&gctx, &gs) < 0) {
        fprintf(stderr, "dwt_app: no context\n");
        return 1;
    }
    if (rv_context_backend(gctx) == RV_BACKEND_CUDA) {
        if (rv_module_load(gctx, "dwt", &m) < 0 || rv_dwt_create(gctx, &ds, &dwt) < 0) {
            fprintf(stderr, "dwt_app: %s\n", rv_context_error(gctx));
            return 1;
        }
        printf("dwt_app: gpu module %s\n", rv_module_path(m));
        rv_module_unload(&m);
        if (rv_dwt_forward_host(dwt, in, gcoef, W, H, sizeof(in[0]), 3) < 0 ||
            rv_dwt_inverse_host(dwt, gcoef, back, W, H, sizeof(in[0]), 3) < 0) {
            fprintf(stderr, "dwt_app: gpu: %s\n", rv_dwt_error(dwt));
            return 1;
        }
        if (memcmp(gcoef, coef, sizeof(in)) || memcmp(in, back, sizeof(in))) {
            fprintf(stderr, "dwt_app: the GPU's CDF 5/3 differs from the CPU's\n");
            return 1;
        }
        rv_dwt_destroy(&dwt);
    }
    rv_context_destroy(&gctx);

    RV_DebandSettings bs;
    rv_deband_settings_default(&bs);
    char why[256];
    if (rv_deband_settings_check(&bs, why, sizeof(why)) < 0) {
        fprintf(stderr, "dwt_app: deband defaults refused: %s\n", why);
        return 1;
    }
    rv_context_destroy(&ctx);
    printf("dwt_app: ok\n");
    return 0;
}
