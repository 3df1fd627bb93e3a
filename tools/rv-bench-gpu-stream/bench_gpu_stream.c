/*
 * rv-bench-gpu-stream - the thesis' video program (GrayScale -> Binarize ->
 * EdgeDetect per frame, Fig. 31) on the CUDA backend at 1080p and 4K RGBA,
 * against the PCIe bound and PyTorch, all measured in one run:
 *
 *   bound  cuMemcpyAsync of one frame's bytes between page-locked host
 *          memory and the device: H2D alone, D2H alone, both at once (two
 *          streams); the pipeline moves each frame up once and down once, so
 *          its bound is min(H2D alone, D2H alone, both-at-once / 2) frames/s;
 *          the "upload bound" is H2D alone
 *   (C)    naive: upload, op, download for each of the three operations
 *          (rv_image_write before each operation, rv_image_read after)
 *   (D)    device-resident stages: one upload, three ops, one download, one
 *          stream, one frame at a time (rv_image_write, 3 ops, rv_image_read)
 *   (E)    RV_Streaming, gpu_streams = 1, 2, 3: frames from the capture
 *          thread's page-locked ring, each frame on its own CUDA stream, the
 *          callback reads the downloaded output
 *   (F)    as (E) with 2 and 3 streams, but the frames arrive as raw YUYV (the
 *          V4L2 source's raw_yuyv mode: RGBA8 images of width/2, one YUYV pair
 *          per pixel) and a first stage converts them to RGBA8 on the GPU
 *          (module yuyv): half the upload bytes, the same download
 *   (G)    as (F) with 3 streams, and a last stage converts the result back on
 *          the GPU to packed YUYV (2 bytes/pixel down) or I420 (1.5): the
 *          formats a display or Y4M sink takes; reported as a ratio to (E)
 *          with 3 streams (RGBA up and down)
 *   peer   (bench_pipe.c, rows after the table of each size) a bare
 *          driver-API loop, N frames in flight, with the copies on the
 *          frames' streams or on an upload and a download stream, variants
 *          with one trait of the runtime each, and RV_Streaming with
 *          RV_GPU_COPIES_PER_FRAME and with more frames in flight
 *   torch  the same pipeline in PyTorch, pinned memory, two streams
 *          (torch_stream.py next to this file, run with python3; "n/a" when
 *          python3 or torch is missing)
 *
 *     rv-bench-gpu-stream [frames_1080p]     (default 3000; 4K gets a quarter)
 *
 * Exits 77 without a GPU. Frame rates are over the frames after a warm-up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ravioli/ravioli.h>
#include <ravioli/stream.h>

#include "../../modules/samples/samples_params.h"
#include "../../modules/yuyv/yuyv_params.h"
#include "bench_drv.h"
#include "bench_run.h"
#include "bench_pipe.h"

#ifndef RV_BENCH_TORCH_SCRIPT
#define RV_BENCH_TORCH_SCRIPT "torch_stream.py"
#endif

#define WARM 30

#define now_s bench_now_s

/* ---------------------------------------------------------------- */
/* The video program                                                  */
/* ---------------------------------------------------------------- */

typedef struct chain {
    const RV_Kernel *gray, *bin, *edge, *yuyv;
} chain;

static int op_gray(const chain *c, RV_Image *f) { return rv_proc_pix(c->gray, f, f, NULL, 0); }
static int op_bin(const chain *c, RV_Image *f)
{
    rv_threshold_params p = {100};
    return rv_proc_pix(c->bin, f, f, &p, sizeof(p));
}
static int op_edge(const chain *c, RV_Image *f)
{
    rv_threshold_params p = {0};
    return rv_proc_nbr(c->edge, f, f, &p, sizeof(p));
}

static void st_gray(RV_Image *f, RV_Data *d) { rv_data_check(d, op_gray(rv_data_user(d), f)); }
static void st_bin(RV_Image *f, RV_Data *d) { rv_data_check(d, op_bin(rv_data_user(d), f)); }
static void st_edge(RV_Image *f, RV_Data *d) { rv_data_check(d, op_edge(rv_data_user(d), f)); }

/* Packed YUYV frame -> RGBA8 scratch image (one per frame in flight), which
 * becomes the frame for the following stages. */
static void st_yuyv(RV_Image *f, RV_Data *d)
{
    const chain *c = rv_data_user(d);
    RV_Image *rgba = NULL;
    if (rv_data_check(d, rv_data_image(d, "rgba", 2 * rv_image_width(f), rv_image_height(f), RV_FMT_RGBA8,
                                       &rgba)) < 0)
        return;
    rv_yuyv_args a;
    memset(&a, 0, sizeof(a));
    ptrdiff_t sp = 0, dp = 0;
    if (rv_data_check(d, rv_image_kernel_address(f, 0, RV_ACCESS_READ, &a.src, &sp)) < 0 ||
        rv_data_check(d, rv_image_kernel_address(rgba, 0, RV_ACCESS_WRITE, &a.dst, &dp)) < 0)
        return;
    a.src_pitch = sp;
    a.dst_pitch = dp;
    a.pairs = rv_image_width(f);
    a.h = rv_image_height(f);
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.grid[0] = 1;
    sh.grid[1] = (unsigned)a.h;
    sh.block[0] = 256;
    if (rv_data_check(d, rv_launch_raw(c->yuyv, &sh, &a, sizeof(a))) < 0)
        return;
    rv_data_set_frame(d, rgba);
}

static void fill(RV_Image *img)
{
    ptrdiff_t pitch;
    unsigned char *p = rv_image_write(img, 0, &pitch);
    if (!p)
        return;
    for (int y = 0; y < rv_image_height(img); y++)
        for (int x = 0; x < rv_image_width(img) * 4; x++)
            p[y * pitch + x] = (unsigned char)(x * 7 + y * 13 + (x >> 5) * (y >> 5));
}

/* (C) naive and (D) device-resident: frames/s, or < 0 on error. */
static double run_loop(RV_Context *ctx, const chain *c, RV_Image *img, int frames, int naive)
{
    double t0 = 0;
    for (int i = 0; i < WARM + frames; i++) {
        if (i == WARM) {
            if (rv_context_sync(ctx) < 0)
                return -1;
            t0 = now_s();
        }
        int (*ops[3])(const chain *, RV_Image *) = {op_gray, op_bin, op_edge};
        for (int k = 0; k < 3; k++) {
            if ((naive || k == 0) && !rv_image_write(img, 0, NULL)) /* host copy is the input */
                return -1;
            if (ops[k](c, img) < 0)
                return -1;
            if ((naive || k == 2) && !rv_image_read(img, 0, NULL)) /* download */
                return -1;
        }
    }
    if (rv_context_sync(ctx) < 0)
        return -1;
    return frames / (now_s() - t0);
}

static void fill_k(RV_Image *img, int k)
{
    (void)k;
    fill(img);
}

static double run_stream_ex(RV_Context *ctx, RV_StageVector *sv, int w, int h, int frames, int streams,
                            RV_GpuCopies copies, double *gpu_ms, double *wait_ms)
{
    bench_run_args a = bench_run_init(w, h, RV_FMT_RGBA8, fill_k, WARM, frames);
    a.gpu_streams = streams;
    a.copies = copies;
    return bench_stream_fps(ctx, sv, &a, gpu_ms, wait_ms);
}

static double run_stream(RV_Context *ctx, RV_StageVector *sv, int w, int h, int frames, int streams,
                         double *gpu_ms)
{
    return run_stream_ex(ctx, sv, w, h, frames, streams, RV_GPU_COPIES_DEFAULT, gpu_ms, NULL);
}

/* bench_pipe.c's hook: the RGBA pipeline of the size being measured */
typedef struct pipe_user {
    RV_Context *ctx;
    RV_StageVector *sv;
    int w, h, frames;
} pipe_user;

static double pipe_run(void *user, int streams, RV_GpuCopies copies, double *gpu_ms, double *wait_ms)
{
    const pipe_user *u = user;
    return run_stream_ex(u->ctx, u->sv, u->w, u->h, u->frames, streams, copies, gpu_ms, wait_ms);
}

/* ---------------------------------------------------------------- */
/* (G) raw YUYV in, YUYV or I420 out (module yuyv, on the GPU)        */
/* ---------------------------------------------------------------- */

/* The same three stages between two conversions on the GPU: the packed YUYV
 * frame (2 bytes/pixel) goes up, yuyv_rgba, gray, binarize, edge, then
 * rgba_yuyv (2 bytes/pixel) or rgba_yuv420 (I420, 1.5 bytes/pixel) into a
 * scratch image that is the frame's output - the format a display (YUY2 /
 * IYUV texture) or a Y4M sink takes. Against (E) (RGBA up, RGBA down) the
 * bytes moved per frame are 4/8 (YUYV) and 3.5/8 (I420). */
typedef struct g_chain {
    chain c;                  /* first: the stages of (E)/(F) read it as a chain */
    const RV_Kernel *out_k;
    int i420;
} g_chain;

static void st_g_out(RV_Image *f, RV_Data *d)
{
    const g_chain *g = rv_data_user(d);
    const int w = rv_image_width(f), h = rv_image_height(f);
    RV_Image *o = NULL;
    if (rv_data_check(d, g->i420 ? rv_data_image(d, "g_i420", w, h, RV_FMT_YUV420P8, &o)
                                 : rv_data_image(d, "g_yuyv", (w + 1) / 2, h, RV_FMT_RGBA8, &o)) < 0)
        return;
    rv_yuv_args a;
    memset(&a, 0, sizeof(a));
    ptrdiff_t pitch = 0;
    if (rv_data_check(d, rv_image_kernel_address(f, 0, RV_ACCESS_READ, &a.src[0], &pitch)) < 0)
        return;
    a.src_pitch[0] = pitch;
    for (int p = 0; p < rv_image_planes(o); p++) {
        if (rv_data_check(d, rv_image_kernel_address(o, p, RV_ACCESS_WRITE, &a.dst[p], &pitch)) < 0)
            return;
        a.dst_pitch[p] = pitch;
    }
    a.w = w;
    a.h = h;
    RV_LaunchShape sh;
    memset(&sh, 0, sizeof(sh));
    sh.grid[0] = 1;
    sh.grid[1] = (unsigned)(g->i420 ? (h + 1) / 2 : h);
    sh.block[0] = 256;
    if (rv_data_check(d, rv_launch_raw(g->out_k, &sh, &a, sizeof(a))) < 0)
        return;
    rv_data_set_frame(d, o);
}

/* Prints the (G) rows of one size: fps, bytes, fractions of the bounds for
 * its bytes, and the ratio to (E) with 3 streams (RGBA in and out). */
static int bench_yuyv_roundtrip(RV_Context *ctx, const chain *c, RV_Module *my, int w, int h, int nf,
                                const bench_bound *b, double rgba_fps, double tfps, const char *nm)
{
    int status = 0;
    for (int i420 = 0; i420 <= 1; i420++) {
        const char *name = i420 ? "(G) YUYV in, I420 out, gpu_streams=3" : "(G) YUYV in, YUYV out, gpu_streams=3";
        g_chain g;
        memset(&g, 0, sizeof(g));
        g.c = *c;
        g.i420 = i420;
        RV_StageVector *sv = NULL;
        if (!c->yuyv || rv_kernel_get(my, i420 ? "rgba_yuv420" : "rgba_yuyv", &g.out_k) < 0 ||
            rv_stage_vector_create(ctx, &sv) < 0) {
            printf("| %s | %s | n/a (no yuyv module) | | | | | |\n", nm, name);
            continue;
        }
        rv_stage_vector_push(sv, st_yuyv, &g, "yuyv");
        rv_stage_vector_push(sv, st_gray, &g, "gray");
        rv_stage_vector_push(sv, st_bin, &g, "binarize");
        rv_stage_vector_push(sv, st_edge, &g, "edge");
        rv_stage_vector_push(sv, st_g_out, &g, i420 ? "i420" : "yuyv out");
        double gms = 0;
        const double fps = run_stream(ctx, sv, w / 2, h, nf, 3, &gms);
        rv_stage_vector_destroy(&sv);
        if (fps < 0) {
            printf("| %s | %s | n/a | | | | | |\n", nm, name);
            status = 1;
            continue;
        }
        const double up = (double)w * h * 2, down = i420 ? (double)w * h * 1.5 : (double)w * h * 2;
        const double ub = b->h2d * 1e9 / up;
        double db = ub;
        if (b->d2h * 1e9 / down < db)
            db = b->d2h * 1e9 / down;
        if (b->both * 1e9 / (up + down) < db)
            db = b->both * 1e9 / (up + down);
        char vt[32] = "", vr[48] = "";
        if (tfps > 0)
            snprintf(vt, sizeof(vt), "%.2f", fps / tfps);
        if (rgba_fps > 0)
            snprintf(vr, sizeof(vr), " (%.2fx RGBA (E) 3 streams)", fps / rgba_fps);
        printf("| %s | %s%s | %.0f | %.1f | %.2f | %.2f | %s | %.3f |\n", nm, name, vr, fps, fps * (up + down) * 1e-9,
               fps / ub, fps / db, vt, gms);
    }
    fflush(stdout);
    return status;
}

/* PyTorch: "torch W H fps" on stdout from the script; < 0 if unavailable. */
static double run_torch(int w, int h, int frames)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "python3 '%s' %d %d %d 2>&1", RV_BENCH_TORCH_SCRIPT, w, h, frames);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[512];
    double fps = -1;
    while (fgets(line, sizeof(line), p)) {
        int tw, th;
        double f;
        if (sscanf(line, "torch %d %d %lf", &tw, &th, &f) == 3 && tw == w && th == h)
            fps = f;
        else
            fprintf(stderr, "torch: %s", line);
    }
    pclose(p);
    return fps;
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 3000;
    if (frames < 10)
        frames = 10;
    RV_Settings s;
    rv_settings_default(&s);
    s.backend = RV_BACKEND_CUDA;
    RV_Context *ctx = NULL;
    int err = rv_context_create(&ctx, &s);
    if (err < 0) {
        printf("rv-bench-gpu-stream: no CUDA context (%s); skipped\n", rv_strerror(err));
        return 77;
    }
    bench_drv d;
    if (bench_drv_open(&d) < 0) {
        fprintf(stderr, "rv-bench-gpu-stream: cannot load libcuda.so.1\n");
        rv_context_destroy(&ctx);
        return 1;
    }
    RV_Module *m = NULL;
    chain c;
    if (rv_module_load(ctx, "samples", &m) < 0 || rv_kernel_get(m, "gray", &c.gray) < 0 ||
        rv_kernel_get(m, "binarize", &c.bin) < 0 || rv_kernel_get(m, "edge", &c.edge) < 0) {
        fprintf(stderr, "rv-bench-gpu-stream: samples module: %s\n", rv_context_error(ctx));
        rv_context_destroy(&ctx);
        return 1;
    }
    RV_StageVector *sv = NULL, *svy = NULL;
    if (rv_stage_vector_create(ctx, &sv) < 0)
        return 1;
    rv_stage_vector_push(sv, st_gray, &c, "gray");
    rv_stage_vector_push(sv, st_bin, &c, "binarize");
    rv_stage_vector_push(sv, st_edge, &c, "edge");
    /* (F): the same after a YUYV -> RGBA8 stage, when the yuyv module is there */
    RV_Module *my = NULL;
    c.yuyv = NULL;
    if (rv_module_load(ctx, "yuyv", &my) >= 0 && rv_kernel_get(my, "yuyv_rgba", &c.yuyv) >= 0 &&
        rv_stage_vector_create(ctx, &svy) >= 0) {
        rv_stage_vector_push(svy, st_yuyv, &c, "yuyv");
        rv_stage_vector_push(svy, st_gray, &c, "gray");
        rv_stage_vector_push(svy, st_bin, &c, "binarize");
        rv_stage_vector_push(svy, st_edge, &c, "edge");
    } else {
        fprintf(stderr, "rv-bench-gpu-stream: no yuyv module (%s); case (F) left out\n", rv_context_error(ctx));
    }

    printf("rv-bench-gpu-stream: GrayScale -> Binarize -> EdgeDetect per RGBA frame; fps after %d warm-up frames\n",
           WARM);
    printf("| size | case | frames/s | GB/s up+down | vs upload bound | vs duplex bound | vs torch | GPU ms/frame |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    static const int sizes[2][2] = {{1920, 1080}, {3840, 2160}};
    int status = 0;
    for (int z = 0; z < 2; z++) {
        const int w = sizes[z][0], h = sizes[z][1];
        const int nf = z == 0 ? frames : frames / 4;
        const size_t bytes = (size_t)w * h * 4;
        const char *nm = z == 0 ? "1080p" : "4K";
        bench_bound b;
        if (bench_pcie_bound(&d, bytes, z == 0 ? 400 : 100, &b) < 0) {
            status = 1;
            continue;
        }
        const double up_fps = b.h2d * 1e9 / (double)bytes;
        double dup_fps = up_fps;
        if (b.d2h * 1e9 / (double)bytes < dup_fps)
            dup_fps = b.d2h * 1e9 / (double)bytes;
        if (b.both * 1e9 / (2.0 * (double)bytes) < dup_fps)
            dup_fps = b.both * 1e9 / (2.0 * (double)bytes);
        printf("| %s | bound: H2D %.1f GB/s, D2H %.1f GB/s, both at once %.1f GB/s (%.2f MB/frame) | %.0f (upload) / %.0f (duplex) | | 1.00 | | | |\n",
               nm, b.h2d, b.d2h, b.both, bytes / 1e6, up_fps, dup_fps);
        const double tfps = run_torch(w, h, nf);

        RV_Image *img = NULL;
        enum { NC = 8 };
        double fps[NC], gms[NC] = {0};
        const char *names[NC] = {"(C) naive, transfers per op", "(D) device-resident, 1 stream",
                                 "(E) RV_Streaming, gpu_streams=1", "(E) RV_Streaming, gpu_streams=2",
                                 "(E) RV_Streaming, gpu_streams=3", "(F) raw YUYV in, gpu_streams=2",
                                 "(F) raw YUYV in, gpu_streams=3", "PyTorch, pinned, 2 streams"};
        /* bytes up per frame (down is always the RGBA frame) */
        const double up_bytes[NC] = {(double)bytes, (double)bytes, (double)bytes, (double)bytes,
                                     (double)bytes, bytes / 2.0,   bytes / 2.0,   (double)bytes};
        if (rv_image_create(ctx, w, h, RV_FMT_RGBA8, &img) < 0) {
            status = 1;
            continue;
        }
        fill(img);
        fps[0] = run_loop(ctx, &c, img, nf / 4 > 10 ? nf / 4 : 10, 1);
        fps[1] = run_loop(ctx, &c, img, nf, 0);
        rv_image_destroy(&img);
        for (int k = 1; k <= 3; k++)
            fps[1 + k] = run_stream(ctx, sv, w, h, nf, k, &gms[1 + k]);
        for (int k = 2; k <= 3; k++)
            fps[3 + k] = svy ? run_stream(ctx, svy, w / 2, h, nf, k, &gms[3 + k]) : -2;
        fps[NC - 1] = tfps;
        for (int i = 0; i < NC; i++) {
            if (fps[i] < 0) {
                printf("| %s | %s | n/a | | | | | |\n", nm, names[i]);
                if (fps[i] > -1.5 && i < NC - 1)
                    status = 1;
                continue;
            }
            /* bounds for this case's bytes: upload alone, and min(H2D, D2H, both at once) */
            const double ub = b.h2d * 1e9 / up_bytes[i];
            double db = ub;
            if (b.d2h * 1e9 / (double)bytes < db)
                db = b.d2h * 1e9 / (double)bytes;
            if (b.both * 1e9 / (up_bytes[i] + (double)bytes) < db)
                db = b.both * 1e9 / (up_bytes[i] + (double)bytes);
            char vt[32] = "", gm[32] = "";
            if (tfps > 0)
                snprintf(vt, sizeof(vt), "%.2f", fps[i] / tfps);
            if (gms[i] > 0)
                snprintf(gm, sizeof(gm), "%.3f", gms[i]);
            printf("| %s | %s | %.0f | %.1f | %.2f | %.2f | %s | %s |\n", nm, names[i], fps[i],
                   fps[i] * (up_bytes[i] + (double)bytes) * 1e-9, fps[i] / ub, fps[i] / db, vt, gm);
        }
        fflush(stdout);
        /* the bare-loop peer and the copy placements (bench_pipe.c) */
        pipe_user pu = {ctx, sv, w, h, nf};
        bench_pipe_ctx pc = {nm, bytes, b.h2d, b.d2h, b.both, tfps, WARM, nf, pipe_run, &pu};
        if (bench_pipe_rows(&pc) != 0)
            status = 1;
        status |= bench_yuyv_roundtrip(ctx, &c, my, w, h, nf, &b, fps[4], tfps, nm); /* (G) */
    }
    rv_stage_vector_destroy(&sv);
    rv_stage_vector_destroy(&svy);
    rv_module_unload(&my);
    rv_module_unload(&m);
    rv_context_destroy(&ctx);
    return status;
}
