// test_yuv_kernels_emu - runs the CUDA bodies of module "yuyv"'s conversion
// kernels under tests/deband/emu/cuda_emu.h (every CUDA thread of a block in
// turn; these kernels use no shared memory and no barriers) and compares them
// with the CPU module (.so, rv_launch_raw on a CPU context): odd sizes, block
// widths 1, 3, 32 and 256, so the GPU forms' thread striding, word accesses and
// odd-edge handling (one thread) are checked without a GPU. The real GPU is
// checked by test_video_yuv_kernels_gpu.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "cuda_emu.h"
#include <ravioli/ravioli.h>

#include "yuyv_params.h"

[[noreturn]] void emu_unsupported(const char *what)
{
    fprintf(stderr, "cuda_emu: %s is not emulated\n", what);
    abort();
}

thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
pthread_barrier_t emu_barrier;

extern "C" {
void rvk_yuyv_rgba(const rv_yuyv_args);
void rvk_rgba_yuv420(const rv_yuv_args);
void rvk_rgba_yuv444(const rv_yuv_args);
void rvk_yuv420_rgba(const rv_yuv_args);
void rvk_yuv444_rgba(const rv_yuv_args);
void rvk_yuyv_yuv420(const rv_yuv_args);
void rvk_rgba_yuyv(const rv_yuv_args);
void rvk_yuv420_yuyv(const rv_yuv_args);
}

enum { PACKED = 100 };
struct kdef {
    const char *name;
    void (*f)(const rv_yuv_args);
    int in, out, rows2;
};
static const kdef kernels[] = {
    {"yuyv_rgba", NULL, PACKED, RV_FMT_RGBA8, 0},
    {"rgba_yuv420", rvk_rgba_yuv420, RV_FMT_RGBA8, RV_FMT_YUV420P8, 1},
    {"rgba_yuv444", rvk_rgba_yuv444, RV_FMT_RGBA8, RV_FMT_YUV444P8, 0},
    {"yuv420_rgba", rvk_yuv420_rgba, RV_FMT_YUV420P8, RV_FMT_RGBA8, 0},
    {"yuv444_rgba", rvk_yuv444_rgba, RV_FMT_YUV444P8, RV_FMT_RGBA8, 0},
    {"yuyv_yuv420", rvk_yuyv_yuv420, PACKED, RV_FMT_YUV420P8, 1},
    {"rgba_yuyv", rvk_rgba_yuyv, RV_FMT_RGBA8, PACKED, 0},
    {"yuv420_yuyv", rvk_yuv420_yuyv, RV_FMT_YUV420P8, PACKED, 0},
};

static RV_Image *make(RV_Context *ctx, int f, int w, int h)
{
    RV_Image *img = NULL;
    if (rv_image_create(ctx, f == PACKED ? (w + 1) / 2 : w, h, f == PACKED ? RV_FMT_RGBA8 : (RV_Format)f, &img) < 0) {
        fprintf(stderr, "rv_image_create: %s\n", rv_context_error(ctx));
        exit(1);
    }
    return img;
}

static void fill(RV_Image *img, unsigned seed)
{
    for (int p = 0; p < rv_image_planes(img); p++) {
        ptrdiff_t pitch;
        unsigned char *d = (unsigned char *)rv_image_write(img, p, &pitch);
        int bytes = rv_image_plane_width(img, p) * rv_format_info(rv_image_format(img))->sample_bytes;
        for (int y = 0; y < rv_image_plane_height(img, p); y++)
            for (int x = 0; x < bytes; x++) {
                seed = seed * 1664525u + 1013904223u;
                d[y * pitch + x] = (unsigned char)(seed >> 24);
            }
    }
}

static void addresses(RV_Image *src, RV_Image *dst, rv_yuv_args *a)
{
    memset(a, 0, sizeof(*a));
    ptrdiff_t pitch;
    for (int p = 0; p < rv_image_planes(src); p++) {
        rv_image_kernel_address(src, p, RV_ACCESS_READ, &a->src[p], &pitch);
        a->src_pitch[p] = pitch;
    }
    for (int p = 0; p < rv_image_planes(dst); p++) {
        rv_image_kernel_address(dst, p, RV_ACCESS_WRITE, &a->dst[p], &pitch);
        a->dst_pitch[p] = pitch;
    }
}

static int equal(RV_Image *a, RV_Image *b)
{
    for (int p = 0; p < rv_image_planes(a); p++) {
        ptrdiff_t pa, pb;
        const unsigned char *da = (const unsigned char *)rv_image_read(a, p, &pa);
        const unsigned char *db = (const unsigned char *)rv_image_read(b, p, &pb);
        int bytes = rv_image_plane_width(a, p) * rv_format_info(rv_image_format(a))->sample_bytes;
        for (int y = 0; y < rv_image_plane_height(a, p); y++)
            if (memcmp(da + y * pa, db + y * pb, (size_t)bytes))
                return 0;
    }
    return 1;
}

int main(void)
{
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CPU;
    s.threads = 1;
    RV_Context *ctx = NULL;
    RV_Module *m = NULL;
    if (rv_context_create(&ctx, &s) < 0 || rv_module_load(ctx, "yuyv", &m) < 0) {
        fprintf(stderr, "cannot load module yuyv: %s\n", ctx ? rv_context_error(ctx) : "no context");
        return 1;
    }
    static const int sizes[][2] = {{1, 1}, {2, 1}, {3, 2}, {5, 3}, {17, 9}, {64, 4}, {161, 7}, {600, 3}};
    static const unsigned widths[] = {1, 3, 32, 256};
    int checked = 0, bad = 0;
    for (const kdef &k : kernels)
        for (const auto &sz : sizes)
            for (unsigned bw : widths) {
                const int w = sz[0], h = sz[1];
                RV_Image *src = make(ctx, k.in, w, h), *cpu = make(ctx, k.out, w, h), *emu = make(ctx, k.out, w, h);
                fill(src, (unsigned)(w * 131 + h * 7 + bw));
                fill(cpu, 1);
                fill(emu, 2); // different garbage: every sample must be written
                const RV_Kernel *kr = NULL;
                rv_kernel_get(m, k.name, &kr);
                RV_LaunchShape sh;
                memset(&sh, 0, sizeof(sh));
                sh.grid[0] = 1;
                sh.block[0] = 64;
                unsigned rows = (unsigned)(k.rows2 ? (h + 1) / 2 : h);
                sh.grid[1] = rows;
                gridDim.x = 1, gridDim.y = rows, gridDim.z = 1;
                blockDim.x = bw, blockDim.y = 1, blockDim.z = 1;
                if (!k.f) { // yuyv_rgba has its own argument block
                    rv_yuyv_args a;
                    memset(&a, 0, sizeof(a));
                    ptrdiff_t pitch;
                    rv_image_kernel_address(src, 0, RV_ACCESS_READ, &a.src, &pitch);
                    a.src_pitch = pitch;
                    rv_image_kernel_address(cpu, 0, RV_ACCESS_WRITE, &a.dst, &pitch);
                    a.dst_pitch = pitch;
                    a.pairs = rv_image_width(src);
                    a.h = h;
                    rv_launch_raw(kr, &sh, &a, sizeof(a));
                    rv_image_kernel_address(emu, 0, RV_ACCESS_WRITE, &a.dst, &pitch);
                    for (unsigned by = 0; by < rows; by++)
                        for (unsigned t = 0; t < bw; t++) {
                            blockIdx.x = 0, blockIdx.y = by, blockIdx.z = 0;
                            threadIdx.x = t, threadIdx.y = 0, threadIdx.z = 0;
                            rvk_yuyv_rgba(a);
                        }
                    // the CPU form converts whole pairs: compare the picture's pixels (2 * pairs)
                } else {
                    rv_yuv_args a;
                    addresses(src, cpu, &a);
                    a.w = w, a.h = h;
                    rv_launch_raw(kr, &sh, &a, sizeof(a));
                    addresses(src, emu, &a);
                    a.w = w, a.h = h;
                    for (unsigned by = 0; by < rows; by++)
                        for (unsigned t = 0; t < bw; t++) {
                            blockIdx.x = 0, blockIdx.y = by, blockIdx.z = 0;
                            threadIdx.x = t, threadIdx.y = 0, threadIdx.z = 0;
                            k.f(a);
                        }
                }
                rv_context_sync(ctx);
                checked++;
                if (!equal(cpu, emu)) {
                    fprintf(stderr, "%s %dx%d, %u threads a block: the CUDA form differs from the CPU form\n", k.name,
                            w, h, bw);
                    bad++;
                }
                rv_image_destroy(&src);
                rv_image_destroy(&cpu);
                rv_image_destroy(&emu);
            }
    printf("%d configurations (8 kernels x %zu sizes x %zu block widths): %d differ\n", checked,
           sizeof(sizes) / sizeof(sizes[0]), sizeof(widths) / sizeof(widths[0]), bad);
    rv_module_unload(&m);
    rv_context_destroy(&ctx);
    return bad ? 1 : 0;
}
