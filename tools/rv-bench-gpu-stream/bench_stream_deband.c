/*
 * rv-bench-gpu-stream-deband - the deband stage end to end in the streaming
 * pipeline (issue 7's "end to end" benchmark): planar YUV frames from a
 * capture thread's page-locked ring, one deband stage (default settings:
 * sample mode 2, blur first, range 15), the output downloaded and read by
 * the frame callback. All rows measured in one run:
 *
 *   bound    the PCIe duplex bound for the frame's bytes (up once, down
 *            once): min(H2D, D2H, both at once / 2) with cuMemcpyAsync from
 *            page-locked memory (bench_drv.c, as rv-bench-gpu-stream)
 *   kernel   rv_deband_apply on a device-resident frame, back to back, one
 *            sync at the end: what the GPU alone sustains
 *   stream   RV_Streaming on the CUDA backend, gpu_streams = 1, 2, 3
 *   cpu      RV_Streaming on the CPU backend of the same host (all cores),
 *            the path of a machine without a GPU
 *
 * "vs bound" is frames/s over the PCIe bound; "vs kernel" over the kernel
 * row. The peer on the CPU side (ffmpeg's deband filter) is measured by
 * rv-bench-deband; a GPU deband peer is not installed on the device machine.
 *
 *     rv-bench-gpu-stream-deband [frames_1080p]   (default 2000; 4K gets a quarter)
 *
 * Without a GPU it prints the CPU rows and exits 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ravioli/deband.h>
#include <ravioli/ravioli.h>
#include <ravioli/stream.h>

#include "bench_drv.h"
#include "bench_run.h"

#define WARM 20

#define now_s bench_now_s

static int sample_bytes(RV_Format f)
{
    return f == RV_FMT_YUV420P16 || f == RV_FMT_YUV444P16 || f == RV_FMT_GRAY16 ? 2 : 1;
}

static size_t frame_bytes(int w, int h, RV_Format f)
{
    const int sub = f == RV_FMT_YUV420P8 || f == RV_FMT_YUV420P16;
    const size_t luma = (size_t)w * h;
    const size_t chroma = sub ? (size_t)((w + 1) / 2) * ((h + 1) / 2) : luma;
    return (luma + 2 * chroma) * (size_t)sample_bytes(f);
}

/* A banded picture: a slow diagonal gradient quantised to the format's
 * depth (the 16-bit samples keep 8-bit steps, the banding deband is for),
 * plus a sharp square. Frame k shifts the gradient by k. */
static void fill(RV_Image *img, int k)
{
    const int b16 = sample_bytes(rv_image_format(img)) == 2;
    for (int p = 0; p < rv_image_planes(img); p++) {
        ptrdiff_t pitch;
        unsigned char *d = rv_image_write(img, p, &pitch);
        if (!d)
            return;
        const int pw = rv_image_plane_width(img, p), ph = rv_image_plane_height(img, p);
        for (int y = 0; y < ph; y++)
            for (int x = 0; x < pw; x++) {
                int v = 40 + (x + y + k) * 160 / (pw + ph);
                if (x > pw / 3 && x < pw / 2 && y > ph / 3 && y < ph / 2)
                    v = p == 0 ? 235 : 90;
                if (b16)
                    ((unsigned short *)(void *)(d + y * pitch))[x] = (unsigned short)(v << 8);
                else
                    d[y * pitch + x] = (unsigned char)v;
            }
    }
}

typedef struct stage {
    RV_Deband *db;
    RV_Format fmt;
} stage;

static void st_deband(RV_Image *f, RV_Data *d)
{
    const stage *s = rv_data_user(d);
    RV_Image *out = NULL;
    if (rv_data_check(d, rv_data_image(d, "deband", rv_image_width(f), rv_image_height(f), s->fmt, &out)) < 0)
        return;
    if (rv_data_check(d, rv_deband_apply(s->db, out, f, rv_data_frame(d)->index)) < 0)
        return;
    rv_data_set_frame(d, out);
}

/* Frames/s of RV_Streaming after the warm-up, or -1. */
static double run_stream(RV_Context *ctx, RV_Deband *db, int w, int h, RV_Format fmt, int frames, int streams)
{
    stage sg = {db, fmt};
    RV_StageVector *sv = NULL;
    double fps = -1;
    if (rv_stage_vector_create(ctx, &sv) == 0 && rv_stage_vector_push(sv, st_deband, &sg, "deband") == 0) {
        bench_run_args a = bench_run_init(w, h, fmt, fill, WARM, frames);
        a.gpu_streams = streams;
        fps = bench_stream_fps(ctx, sv, &a, NULL, NULL);
    }
    rv_stage_vector_destroy(&sv);
    return fps;
}

/* rv_deband_apply on a resident frame, back to back; frames/s or -1. */
static double run_kernel(RV_Context *ctx, RV_Deband *db, int w, int h, RV_Format fmt, int frames)
{
    RV_Image *in = NULL, *out = NULL;
    double fps = -1;
    if (rv_image_create(ctx, w, h, fmt, &in) < 0 || rv_image_create(ctx, w, h, fmt, &out) < 0)
        goto done;
    fill(in, 0);
    double t0 = 0;
    for (int i = 0; i < WARM + frames; i++) {
        if (i == WARM) {
            if (rv_context_sync(ctx) < 0)
                goto done;
            t0 = now_s();
        }
        if (rv_deband_apply(db, out, in, i) < 0)
            goto done;
    }
    if (rv_context_sync(ctx) < 0)
        goto done;
    fps = frames / (now_s() - t0);
done:
    if (fps < 0)
        fprintf(stderr, "kernel loop: %s\n", rv_context_error(ctx));
    rv_image_destroy(&in);
    rv_image_destroy(&out);
    return fps;
}

static RV_Context *open_ctx(RV_Backend be)
{
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = be;
    RV_Context *ctx = NULL;
    return rv_context_create(&ctx, &s) < 0 ? NULL : ctx;
}

static void row(const char *size, const char *fmt, const char *what, double fps, double bound, double kern)
{
    if (fps <= 0) {
        printf("| %s | %s | %s | n/a | | | |\n", size, fmt, what);
        return;
    }
    char vb[16] = "", vk[16] = "";
    if (bound > 0)
        snprintf(vb, sizeof(vb), "%.2f", fps / bound);
    if (kern > 0)
        snprintf(vk, sizeof(vk), "%.2f", fps / kern);
    printf("| %s | %s | %s | %.0f | %.3f | %s | %s |\n", size, fmt, what, fps, 1e3 / fps, vb, vk);
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 2000;
    if (frames < 8)
        frames = 8;
    RV_Context *gpu = open_ctx(RV_BACKEND_CUDA);
    RV_Context *cpu = open_ctx(RV_BACKEND_CPU);
    if (!cpu) {
        fprintf(stderr, "rv-bench-gpu-stream-deband: no CPU context\n");
        return 1;
    }
    bench_drv drv;
    int have_drv = gpu && bench_drv_open(&drv) == 0;
    RV_Deband *dbg = NULL, *dbc = NULL;
    if (rv_deband_create(cpu, &dbc) < 0 || (gpu && rv_deband_create(gpu, &dbg) < 0)) {
        fprintf(stderr, "rv-bench-gpu-stream-deband: deband module: %s\n",
                rv_context_error(dbc ? gpu : cpu));
        return 1;
    }
    printf("rv-bench-gpu-stream-deband: one deband stage (mode 2, blur, range 15) in RV_Streaming; "
           "fps after %d warm-up frames%s\n",
           WARM, gpu ? "" : " (no GPU: CPU rows only)");
    printf("| size | format | case | frames/s | ms/frame | vs PCIe bound | vs kernel |\n");
    printf("|---|---|---|---|---|---|---|\n");
    static const struct {
        int w, h;
        const char *name;
    } sizes[2] = {{1920, 1080, "1080p"}, {3840, 2160, "4K"}};
    static const struct {
        RV_Format f;
        const char *name;
    } fmts[2] = {{RV_FMT_YUV420P8, "yuv420p8"}, {RV_FMT_YUV444P16, "yuv444p16"}};
    int status = 0;
    for (int z = 0; z < 2; z++)
        for (int fi = 0; fi < 2; fi++) {
            const int w = sizes[z].w, h = sizes[z].h;
            const RV_Format fmt = fmts[fi].f;
            const size_t bytes = frame_bytes(w, h, fmt);
            const int nf = z == 0 ? frames : frames / 4;
            const char *zn = sizes[z].name, *fn = fmts[fi].name;
            double bound = -1, kern = -1;
            if (have_drv) {
                bench_bound b;
                if (bench_pcie_bound(&drv, bytes, z == 0 ? 400 : 100, &b) == 0) {
                    bound = b.h2d * 1e9 / (double)bytes;
                    if (b.d2h * 1e9 / (double)bytes < bound)
                        bound = b.d2h * 1e9 / (double)bytes;
                    if (b.both * 1e9 / (2.0 * (double)bytes) < bound)
                        bound = b.both * 1e9 / (2.0 * (double)bytes);
                    printf("| %s | %s | PCIe bound: H2D %.1f, D2H %.1f, both %.1f GB/s; %.2f MB a frame each way | "
                           "%.0f | %.3f | 1.00 | |\n",
                           zn, fn, b.h2d, b.d2h, b.both, bytes / 1e6, bound, 1e3 / bound);
                } else {
                    status = 1;
                }
            }
            if (gpu) {
                kern = run_kernel(gpu, dbg, w, h, fmt, nf);
                row(zn, fn, "GPU kernel only, device-resident frame", kern, bound, kern);
                status |= kern <= 0;
                for (int k = 1; k <= 3; k++) {
                    char what[64];
                    snprintf(what, sizeof(what), "RV_Streaming CUDA, gpu_streams=%d", k);
                    const double f = run_stream(gpu, dbg, w, h, fmt, nf, k);
                    row(zn, fn, what, f, bound, kern);
                    status |= f <= 0;
                }
            }
            /* the CPU is ~100x slower: fewer frames */
            const int ncpu = nf / 20 > 10 ? nf / 20 : 10;
            const double f = run_stream(cpu, dbc, w, h, fmt, ncpu, 0);
            row(zn, fn, "RV_Streaming CPU backend, all cores", f, bound, kern);
            status |= f <= 0;
            fflush(stdout);
        }
    const int rc = status ? 1 : gpu ? 0 : 77;
    rv_deband_destroy(&dbg);
    rv_deband_destroy(&dbc);
    if (have_drv)
        bench_drv_close(&drv);
    rv_context_destroy(&gpu);
    rv_context_destroy(&cpu);
    return rc;
}
