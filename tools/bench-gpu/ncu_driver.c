/* ncu_driver.c - one emboss at 4K RGBA and one SAD template match (395x372, 70x72) on the
 * GPU, to profile with Nsight Compute (docs/perf/cuda-tuning.md says how it was run).
 * Build after the project: gcc -O2 -Iravioli/include tools/bench-gpu/ncu_driver.c -o ncu_driver
 *     -Lbuild/ravioli -lravioli -Wl,-rpath,$PWD/build/ravioli   (RAVIOLI_MODULE_PATH=build/modules) */
#include <stdio.h>
#include <ravioli/ravioli.h>
int main(void)
{
    RV_Settings s; rv_settings_default(&s); s.backend = RV_BACKEND_CUDA;
    RV_Context *c; RV_Module *m; const RV_Kernel *ke, *ks;
    if (rv_context_create(&c, &s) < 0 || rv_module_load(c, "samples", &m) < 0 ||
        rv_kernel_get(m, "emboss", &ke) < 0 || rv_kernel_get(m, "sad", &ks) < 0) return 1;
    RV_Image *a, *b, *img, *tpl;
    rv_image_create(c, 3840, 2160, RV_FMT_RGBA8, &a); rv_image_create(c, 3840, 2160, RV_FMT_RGBA8, &b);
    rv_image_create(c, 395, 372, RV_FMT_RGBA8, &img); rv_image_create(c, 70, 72, RV_FMT_RGBA8, &tpl);
    for (int i = 0; i < 3; i++) rv_proc_nbr(ke, b, a, NULL, 0);
    RV_BoxResult r;
    for (int i = 0; i < 3; i++) rv_proc_box(ks, NULL, img, tpl, 70, 72, NULL, 0, RV_MIN, &r);
    rv_context_sync(c); printf("ok %s\n", rv_context_error(c)); rv_context_destroy(&c); return 0;
}
