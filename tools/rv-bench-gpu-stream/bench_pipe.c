/*
 * bench_pipe.c - part of rv-bench-gpu-stream: where the RV_Streaming
 * pipeline stands against a bare driver-API loop and against its own copy
 * placements, measured in the same run as the main table.
 *
 *   peer   a bare loop with no framework: per frame cuMemcpyHtoDAsync from
 *          page-locked memory, three launches of an in-place kernel (reads
 *          and writes the frame once each, like gray/binarize/edge),
 *          cuMemcpyDtoHAsync; N frames in flight, the oldest waited for
 *          before its slot is reused. Two placements of the copies:
 *          "frame stream" (everything of frame k on stream k) and
 *          "copy streams" (all uploads on one stream, all downloads on
 *          another, kernels on stream k, ordered by events) - the two
 *          RV_GpuCopies modes of the runtime.
 *   (E')   RV_Streaming with the copies on the frames' streams
 *          (RV_GPU_COPIES_PER_FRAME, the placement before 2026-11-22), and
 *          the default placement with more frames in flight.
 *
 * The last column gives the GPU time per frame (CUDA events, upload start
 * to download end) and the host time per frame blocked waiting for the
 * oldest frame (RV_StreamSummary.gpu_wait_ms_mean).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ravioli/ravioli.h>
#include <ravioli/stream.h>

#include "bench_pipe.h"

#include "bench_drv.h"

/* The peer's kernel: inverts the frame in place, 16 bytes a thread (nvcc
 * -ptx -arch=compute_80 of a grid-stride uint4 loop). */
static const char bare_ptx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry rvb_invert(.param .u64 p0, .param .u64 p1)\n"
    "{\n"
    "  .reg .pred %p<3>;\n"
    "  .reg .b32 %r<17>;\n"
    "  .reg .b64 %rd<15>;\n"
    "  ld.param.u64 %rd7, [p0];\n"
    "  ld.param.u64 %rd8, [p1];\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  cvt.u64.u32 %rd1, %r2;\n"
    "  mul.wide.u32 %rd9, %r1, %r2;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  cvt.u64.u32 %rd10, %r3;\n"
    "  add.s64 %rd14, %rd9, %rd10;\n"
    "  setp.ge.u64 %p1, %rd14, %rd8;\n"
    "  @%p1 bra DONE;\n"
    "  mov.u32 %r4, %nctaid.x;\n"
    "  cvt.u64.u32 %rd11, %r4;\n"
    "  mul.lo.s64 %rd3, %rd11, %rd1;\n"
    "  cvta.to.global.u64 %rd4, %rd7;\n"
    "LOOP:\n"
    "  shl.b64 %rd12, %rd14, 4;\n"
    "  add.s64 %rd13, %rd4, %rd12;\n"
    "  ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd13];\n"
    "  not.b32 %r13, %r8;\n"
    "  not.b32 %r14, %r7;\n"
    "  not.b32 %r15, %r6;\n"
    "  not.b32 %r16, %r5;\n"
    "  st.global.v4.u32 [%rd13], {%r16, %r15, %r14, %r13};\n"
    "  add.s64 %rd14, %rd14, %rd3;\n"
    "  setp.lt.u64 %p2, %rd14, %rd8;\n"
    "  @%p2 bra LOOP;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";



static double bnow(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}


#define BMAX 8
#define BHOST 12

/* How the bare loop runs; the variants copy one trait of RV_Streaming each
 * to tell which one costs what. */
typedef struct bare_opts {
    int n;           /* frames in flight (streams) */
    int split;       /* copies on an upload and a download stream */
    int stream_sync; /* wait with cuStreamSynchronize(stream k), as the per-frame runtime did */
    int passes;      /* kernel launches per frame (3; more = longer stages) */
    int offset;      /* host buffers start this many bytes into the allocation (the
                      * runtime's image storage starts 64 bytes in) */
    int nhost;       /* distinct page-locked input/output buffers used in turn (the
                      * runtime's ring has ring_frames + 2 + gpu_streams); 0 = n */
} bare_opts;
#define BCK(x)                                                                                     \
    do {                                                                                           \
        CUresult r_ = (x);                                                                         \
        if (r_ != 0) {                                                                             \
            fprintf(stderr, "bench_pipe: %s failed: CUDA error %d\n", #x, r_);                    \
            ok = 0;                                                                                \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* The bare loop: frames/s after `warm` frames, or < 0. */
static double bare_run(bench_drv *d, size_t bytes, const bare_opts *o, int warm, int frames)
{
    int n = o->n;
    const int split = o->split;
    int ok = 1;
    double fps = -1;
    CUdevice dev;
    CUcontext cu = NULL;
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    void *hin[BHOST] = {0}, *hout[BHOST] = {0};
    int nh = o->nhost > 0 ? o->nhost : n;
    if (nh > BHOST)
        nh = BHOST;
    CUdeviceptr dbuf[BMAX] = {0};
    CUstream s[BMAX] = {0}, up = NULL, down = NULL;
    CUevent eup[BMAX] = {0}, ek[BMAX] = {0}, edone[BMAX] = {0};
    if (n > BMAX)
        n = BMAX;
    BCK(d->cuInit(0));
    BCK(d->cuDeviceGet(&dev, 0));
    BCK(d->cuDevicePrimaryCtxRetain(&cu, dev));
    BCK(d->cuCtxSetCurrent(cu));
    BCK(d->cuModuleLoadData(&mod, bare_ptx));
    BCK(d->cuModuleGetFunction(&fn, mod, "rvb_invert"));
    for (int h = 0; h < nh; h++) {
        BCK(d->cuMemHostAlloc(&hin[h], bytes + (size_t)o->offset, 0));
        BCK(d->cuMemHostAlloc(&hout[h], bytes + (size_t)o->offset, 0));
        memset(hin[h], 0x3c, bytes + (size_t)o->offset);
    }
    if (nh < n) {
        ok = 0;
        goto out;
    }
    for (int k = 0; k < n; k++) {
        BCK(d->cuMemAlloc(&dbuf[k], bytes));
        BCK(d->cuStreamCreate(&s[k], 0));
        BCK(d->cuEventCreate(&eup[k], 2 /* no timing */));
        BCK(d->cuEventCreate(&ek[k], 2));
        BCK(d->cuEventCreate(&edone[k], 2));
    }
    BCK(d->cuStreamCreate(&up, 0));
    BCK(d->cuStreamCreate(&down, 0));
    unsigned long long nv = bytes / 16;
    unsigned grid = (unsigned)((nv + 255) / 256);
    double t0 = 0;
    for (int i = 0; i < warm + frames; i++) {
        const int k = i % n;
        /* host buffer of this frame: used again only after its frame completed
         * (nh >= n and frames complete in order) */
        unsigned char *hi = (unsigned char *)hin[i % nh] + o->offset, *ho = (unsigned char *)hout[i % nh] + o->offset;
        if (i == warm)
            t0 = bnow();
        if (i >= n) {
            if (o->stream_sync && !split)
                BCK(d->cuStreamSynchronize(s[k]));
            else
                BCK(d->cuEventSynchronize(edone[k]));
        }
        void *args[2] = {&dbuf[k], &nv};
        if (split) {
            BCK(d->cuMemcpyHtoDAsync(dbuf[k], hi, bytes, up));
            BCK(d->cuEventRecord(eup[k], up));
            BCK(d->cuStreamWaitEvent(s[k], eup[k], 0));
        } else {
            BCK(d->cuMemcpyHtoDAsync(dbuf[k], hi, bytes, s[k]));
        }
        for (int j = 0; j < o->passes; j++)
            BCK(d->cuLaunchKernel(fn, grid, 1, 1, 256, 1, 1, 0, s[k], args, NULL));
        if (split) {
            BCK(d->cuEventRecord(ek[k], s[k]));
            BCK(d->cuStreamWaitEvent(down, ek[k], 0));
            BCK(d->cuMemcpyDtoHAsync(ho, dbuf[k], bytes, down));
            BCK(d->cuEventRecord(edone[k], down));
        } else {
            BCK(d->cuMemcpyDtoHAsync(ho, dbuf[k], bytes, s[k]));
            BCK(d->cuEventRecord(edone[k], s[k]));
        }
    }
    for (int k = 0; k < n; k++)
        BCK(d->cuEventSynchronize(edone[k]));
    fps = frames / (bnow() - t0);
    /* the kernel inverts: odd passes give the inverted input */
    if (((unsigned char *)hout[0])[o->offset] != (unsigned char)(o->passes % 2 ? ~0x3c : 0x3c)) {
        fprintf(stderr, "bench_pipe: bare loop output wrong\n");
        ok = 0;
    }
out:
    for (int k = 0; k < n; k++) {
        if (s[k])
            d->cuStreamSynchronize(s[k]);
        if (eup[k])
            d->cuEventDestroy(eup[k]);
        if (ek[k])
            d->cuEventDestroy(ek[k]);
        if (edone[k])
            d->cuEventDestroy(edone[k]);
        if (s[k])
            d->cuStreamDestroy(s[k]);
        if (dbuf[k])
            d->cuMemFree(dbuf[k]);
    }
    if (up) {
        d->cuStreamSynchronize(up);
        d->cuStreamDestroy(up);
    }
    if (down) {
        d->cuStreamSynchronize(down);
        d->cuStreamDestroy(down);
    }
    for (int h = 0; h < nh; h++) {
        if (hin[h])
            d->cuMemFreeHost(hin[h]);
        if (hout[h])
            d->cuMemFreeHost(hout[h]);
    }
    if (mod)
        d->cuModuleUnload(mod);
    if (cu)
        d->cuDevicePrimaryCtxRelease(dev);
    return ok ? fps : -1;
}

static void row(const bench_pipe_ctx *p, const char *name, double fps, double gms, double wms)
{
    const double bytes = (double)p->bytes;
    if (fps < 0) {
        printf("| %s | %s | n/a | | | | | |\n", p->size_name, name);
        return;
    }
    const double ub = p->h2d * 1e9 / bytes;
    double db = ub;
    if (p->d2h * 1e9 / bytes < db)
        db = p->d2h * 1e9 / bytes;
    if (p->both * 1e9 / (2 * bytes) < db)
        db = p->both * 1e9 / (2 * bytes);
    char vt[32] = "", gm[64] = "";
    if (p->torch_fps > 0)
        snprintf(vt, sizeof(vt), "%.2f", fps / p->torch_fps);
    if (gms > 0)
        snprintf(gm, sizeof(gm), "%.3f (wait %.3f)", gms, wms);
    printf("| %s | %s | %.0f | %.1f | %.2f | %.2f | %s | %s |\n", p->size_name, name, fps, fps * 2 * bytes * 1e-9,
           fps / ub, fps / db, vt, gm);
}

int bench_pipe_rows(const bench_pipe_ctx *p)
{
    int status = 0;
    bench_drv d;
    if (bench_drv_open(&d) < 0) {
        fprintf(stderr, "bench_pipe: cannot load libcuda.so.1\n");
        return 1;
    }
    char name[200];
    for (int split = 0; split <= 1; split++)
        for (int n = 2; n <= 4; n++) {
            bare_opts o = {n, split, 0, 3, 0, 0};
            double f = bare_run(&d, p->bytes, &o, p->warm, p->frames);
            snprintf(name, sizeof(name), "peer: bare driver loop, %d in flight, copies on %s", n,
                     split ? "an upload and a download stream" : "the frame's stream");
            row(p, name, f, 0, 0);
            if (f < 0)
                status = 1;
        }
    /* one trait of the runtime at a time, 3 in flight */
    static const struct {
        bare_opts o;
        const char *what;
    } var[] = {
        {{3, 0, 1, 3, 0, 0}, "frame stream, cuStreamSynchronize wait"},
        {{3, 0, 0, 12, 0, 0}, "frame stream, 12 kernel passes"},
        {{3, 0, 0, 3, 64, 0}, "frame stream, host buffers 64 bytes into the allocation"},
        {{3, 0, 0, 3, 0, 9}, "frame stream, 9 host buffers in turn"},
        {{3, 0, 1, 12, 64, 9}, "frame stream, all four"},
        {{3, 1, 0, 12, 0, 0}, "copy streams, 12 kernel passes"},
        {{3, 1, 0, 3, 64, 0}, "copy streams, host buffers 64 bytes into the allocation"},
        {{3, 1, 0, 3, 0, 9}, "copy streams, 9 host buffers in turn"},
        {{3, 1, 0, 12, 64, 9}, "copy streams, all three"},
    };
    for (size_t i = 0; i < sizeof(var) / sizeof(var[0]); i++) {
        double f = bare_run(&d, p->bytes, &var[i].o, p->warm, p->frames);
        snprintf(name, sizeof(name), "peer variant: 3 in flight, %s", var[i].what);
        row(p, name, f, 0, 0);
        if (f < 0)
            status = 1;
    }
    static const struct {
        int streams;
        RV_GpuCopies copies;
        const char *what;
    } rv[] = {{2, RV_GPU_COPIES_PER_FRAME, "(E') RV_Streaming, gpu_streams=2, copies on the frame's stream"},
              {3, RV_GPU_COPIES_PER_FRAME, "(E') RV_Streaming, gpu_streams=3, copies on the frame's stream"},
              {4, RV_GPU_COPIES_PER_FRAME, "(E') RV_Streaming, gpu_streams=4, copies on the frame's stream"},
              {4, RV_GPU_COPIES_SPLIT, "(E) RV_Streaming, gpu_streams=4"},
              {6, RV_GPU_COPIES_SPLIT, "(E) RV_Streaming, gpu_streams=6"}};
    for (size_t i = 0; i < sizeof(rv) / sizeof(rv[0]); i++) {
        double gms = 0, wms = 0;
        double f = p->run(p->run_user, rv[i].streams, rv[i].copies, &gms, &wms);
        row(p, rv[i].what, f, gms, wms);
        if (f < 0)
            status = 1;
    }
    fflush(stdout);
    bench_drv_close(&d);
    return status;
}
