// test_deband_gpu_emu - runs the CUDA bodies of every deband entry (plain and
// tiled) under cuda_emu.h and compares them with the CPU module (.so,
// through rv_launch_raw on a CPU context), on odd sizes and ranges around
// the tile limit, aligned (vector stores) and unaligned planes.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "cuda_emu.h"
#include <ravioli/ravioli.h>
#include <ravioli/deband_kernel.h>

[[noreturn]] void emu_unsupported(const char *what)
{
    fprintf(stderr, "cuda_emu: %s is not emulated\n", what);
    abort();
}

thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
pthread_barrier_t emu_barrier;
unsigned char *emu_dyn_smem;
static size_t emu_dyn_smem_size;
thread_local emu_cp emu_cp_q[EMU_CP_MAX];
thread_local int emu_cp_nq, emu_cp_ngrp;

typedef void (*entry_fn)(const rv_deband_args);
extern "C" {
#define D(n) void rvk_deband_##n(const rv_deband_args);
#define DD(t) D(t##_8to8) D(t##_8to16) D(t##_16to16) D(t##_16to8) \
              D(t##_8to8_s) D(t##_8to16_s) D(t##_16to16_s) D(t##_16to8_s) \
              D(t##_8to8_sd) D(t##_8to16_sd) D(t##_16to16_sd) D(t##_16to8_sd)
DD(m0) DD(m1b) DD(m1n) DD(m2b) DD(m2n)
}

struct targ { entry_fn f; const rv_deband_args *a; unsigned tx, ty; };
/* One OS thread per CUDA thread for the whole grid; blocks run in turn,
 * separated by barriers (so a block's shared memory is not reused early). */
static void *run_thread(void *p)
{
    targ *t = (targ *)p;
    threadIdx.x = t->tx; threadIdx.y = t->ty; threadIdx.z = 0;
    for (unsigned bz = 0; bz < gridDim.z; bz++)
        for (unsigned by = 0; by < gridDim.y; by++)
            for (unsigned bx = 0; bx < gridDim.x; bx++) {
                blockIdx.x = bx; blockIdx.y = by; blockIdx.z = bz;
                // poison the block's shared memory (nothing staged yet) and
                // drop copies a kernel left queued without waiting for them
                emu_cp_nq = 0;
                if (t->tx == 0 && t->ty == 0 && emu_dyn_smem_size)
                    memset(emu_dyn_smem, 0xa5, emu_dyn_smem_size);
                pthread_barrier_wait(&emu_barrier);
                t->f(*t->a);
                pthread_barrier_wait(&emu_barrier);
            }
    return NULL;
}

// launches with blocks of 32 x 8 threads, as the host does; tiled entries
// on a grid of `blocks` blocks (any number: they share the tiles out), as
// (blocks / 2) x 2 when even (the linear block index), else blocks x 1
static void emu_launch(entry_fn f, const rv_deband_args &a, int tiled, int in16, int out16,
                       int blocks)
{
    const int w = a.w[0], h = a.h[0];
    if (tiled) {
        gridDim.x = (unsigned)(blocks % 2 ? blocks : blocks / 2);
        gridDim.y = blocks % 2 ? 1u : 2u;
        gridDim.z = 1;
    } else {
        gridDim.x = (unsigned)((w + 127) / 128);
        gridDim.y = (unsigned)((h + 7) / 8);
        gridDim.z = (unsigned)a.nplanes;
    }
    blockDim.x = 32; blockDim.y = 8; blockDim.z = 1;
    // dynamic shared memory of exactly the launch's size (ASan sees overruns),
    // with the deferred rows' buffer after the tile buffers (DEFER_STORES)
    std::vector<unsigned char> smem(
        tiled ? rv_deband_tile_smem_bytes(a.range, in16, a.tile_h32, rv_deband_tile_count(&a),
                                          (unsigned)blocks) +
                    ((a.independent & RV_DEBAND_DEFER_STORES) ? rv_deband_defer_bytes(out16, a.tile_h32) : 0u)
              : 0);
    emu_dyn_smem = smem.data();
    emu_dyn_smem_size = smem.size();
    std::vector<pthread_t> th(256);
    std::vector<targ> ta(256);
    pthread_barrier_init(&emu_barrier, NULL, 256);
    for (unsigned i = 0; i < 256; i++) {
        ta[i] = targ{f, &a, i % 32, i / 32};
        pthread_create(&th[i], NULL, run_thread, &ta[i]);
    }
    for (unsigned i = 0; i < 256; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&emu_barrier);
}

int main(void)
{
    static const char *tags[] = {"m0", "m1b", "m1n", "m2b", "m2n"};
    // [mode][depths][plain, tiled, tiled with dynamic noise]
    static const entry_fn fns[5][4][3] = {
#define E(t) {{rvk_deband_##t##_8to8, rvk_deband_##t##_8to8_s, rvk_deband_##t##_8to8_sd},     \
              {rvk_deband_##t##_8to16, rvk_deband_##t##_8to16_s, rvk_deband_##t##_8to16_sd},  \
              {rvk_deband_##t##_16to16, rvk_deband_##t##_16to16_s, rvk_deband_##t##_16to16_sd}, \
              {rvk_deband_##t##_16to8, rvk_deband_##t##_16to8_s, rvk_deband_##t##_16to8_sd}}
        E(m0), E(m1b), E(m1n), E(m2b), E(m2n)};
    static const int dd[4][2] = {{8, 8}, {8, 16}, {16, 16}, {16, 8}};
    RV_Settings cs;
    rv_settings_default(&cs);
    cs.backend = RV_BACKEND_CPU;
    cs.threads = 1;
    RV_Context *ctx = NULL;
    RV_Module *mod = NULL;
    if (rv_context_create(&ctx, &cs) < 0 || rv_module_load(ctx, "deband", &mod) < 0) {
        fprintf(stderr, "cannot load the CPU module: %s\n", ctx ? rv_context_error(ctx) : "");
        return 1;
    }
    struct { int w, h, range, il, aligned; } cases[] = {
        {261, 70, 15, 0, 1}, {261, 70, 32, 1, 1}, {130, 33, 40, 0, 1}, {5, 3, 31, 0, 1},
        {300, 65, 7, 1, 0}, {129, 40, 32, 0, 0}, {1, 1, 15, 0, 1}, {256, 64, 3, 0, 1},
        {259, 67, 13, 0, 2}, {131, 37, 32, 1, 2}, {3, 2, 5, 0, 2},
        // with interior tiles (the inner-tile path: no per-pixel border limit)
        {400, 100, 15, 0, 1}, {397, 130, 9, 0, 2},
        // interior tiles of 64 rows too (tile_h32 = 2)
        {300, 200, 15, 0, 1},
        // interior tiles of 96 and 128 rows (3 and 4 bands of the banded staging)
        {260, 300, 15, 0, 1}, {270, 290, 11, 0, 2}, {262, 330, 15, 0, 1}};
    // aligned: 0 odd addresses / pitches (no vector stores, sample-wise tile
    // staging), 1 pitches of 64 bytes (vector stores, 16-byte staging), 2 pitch
    // = row bytes rounded up to 4 (word staging reads up to the row padding)
    int checked = 0, bad = 0;
    for (auto &c : cases)
        for (int t = 0; t < 5; t++)
            for (int k = 0; k < 4; k++)
                for (int tiled = 0; tiled < 2; tiled++) {
                    if (tiled && c.range > RV_DEBAND_TILE_RANGE)
                        continue;
                    const int w = c.w, h = c.h, bi = dd[k][0] / 8, bo = dd[k][1] / 8;
                    // aligned: pitch multiple of 64; unaligned: odd offsets
                    const int sp = c.aligned == 1 ? (w * bi + 63) / 64 * 64
                                 : c.aligned == 2 ? (w * bi + 3) / 4 * 4 : w * bi + 2 * bi;
                    const int dp = c.aligned == 1 ? (w * bo + 63) / 64 * 64
                                 : c.aligned == 2 ? (w * bo + 3) / 4 * 4 : w * bo + 2;
                    // exactly the plane (+ the odd offset): word staging must stay inside
                    std::vector<unsigned char> src((size_t)sp * h + (c.aligned ? 0 : bi)), d1((size_t)dp * h + 64, 0xcd),
                        d2((size_t)dp * h + 64, 0xcd);
                    uint32_t st = (uint32_t)(w * 31 + t * 7 + k);
                    for (auto &b : src) { st = st * 1664525u + 1013904223u; b = (unsigned char)(st >> 24); }
                    // smooth-ish content so that both branches occur
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++) {
                            st = st * 1664525u + 1013904223u;
                            const int v = 100 + x / 9 + y / 7 + (int)(st >> 30);
                            if (bi == 2) { uint16_t s16 = (uint16_t)(v * 256 + (st >> 22 & 255)); memcpy(&src[(size_t)y * sp + 2 * x + (c.aligned ? 0 : 2)], &s16, 2); }
                            else src[(size_t)y * sp + x + (c.aligned ? 0 : 1)] = (unsigned char)v;
                        }
                    rv_deband_args a;
                    memset(&a, 0, sizeof(a));
                    a.nplanes = 1;
                    a.src[0] = (uint64_t)(uintptr_t)(src.data() + (c.aligned ? 0 : bi));
                    a.spitch[0] = sp;
                    a.dpitch[0] = dp;
                    a.w[0] = w;
                    a.h[0] = h;
                    // thresholds and grain that are and are not multiples of
                    // the 8-bit paths' units (64, 128, 256 at the 16-bit scale)
                    static const int thrs[4] = {64 * 16, 777, 3000, 200};
                    static const int grains[4] = {256, 357, 16380, 77};
                    a.thr[0] = thrs[(t + k + c.w) % 4];
                    a.grain[0] = (t & 1) ? grains[(k + c.w + c.h) % 4] : 0;
                    a.key_ref[0] = rv_deband_key_ref((uint32_t)t, 0);
                    a.dynamic = t == 3; // m2b: dynamic grain (noise from a second hash)
                    a.key_grain[0] = rv_deband_key_grain((uint32_t)t, 0, t == 3 ? rv_deband_frame_key(7) : 0u);
                    a.range = c.range;
                    a.interlaced = c.il;
                    // tiles of 32, 64, 96, 128 rows and their table (rv_deband_tile_set)
                    const int ntiles = rv_deband_tile_set(&a, 1 + (t + k + c.w) % (c.h >= 250 ? 4 : 2));
                    // the tile row by division (the host's fallback where
                    // umulhi by tile_rcp is not exact) in a quarter of the launches
                    if ((t + k) % 4 == 1)
                        a.tile_rcp[0] = 0;
                    // blocks: one a tile, or 1, 2, 3 sharing the tiles (double buffering)
                    const int var = (t + 2 * k) % 4;
                    const int blocks = var == 0 ? ntiles : var < ntiles ? var : ntiles;
                    // CPU module
                    char name[64];
                    snprintf(name, sizeof(name), "deband_%s_%dto%d", tags[t], dd[k][0], dd[k][1]);
                    const RV_Kernel *kern = NULL;
                    if (rv_kernel_get(mod, name, &kern) < 0) return 1;
                    a.dst[0] = (uint64_t)(uintptr_t)(d1.data() + (c.aligned ? 0 : bo));
                    a.vec_ok = 0;
                    RV_LaunchShape sh;
                    memset(&sh, 0, sizeof(sh));
                    sh.block[0] = 1024; sh.block[1] = 1;
                    sh.grid[0] = (unsigned)((w + 1023) / 1024); sh.grid[1] = (unsigned)h; sh.grid[2] = 1;
                    if (rv_launch_raw(kern, &sh, &a, sizeof(a)) < 0) return 1;
                    // emulated GPU
                    a.dst[0] = (uint64_t)(uintptr_t)(d2.data() + (c.aligned ? 0 : bo));
                    a.vec_ok = c.aligned == 1 || (c.aligned == 2 && dp % 8 == 0);
                    // tile staging: 16-byte chunks (pitch multiple of 64), 4-byte words, samples
                    a.src_words = c.aligned == 1 ? 2 : c.aligned == 2 ? 1 : 0;
                    // half of the tiled launches wait before their stores and
                    // compute their first tile's first rows into shared memory
                    // before that (the wait itself is not emulated)
                    if (tiled && (t + k + c.w) % 2 == 0)
                        a.independent = RV_DEBAND_WAIT_LATE | RV_DEBAND_DEFER_STORES;
                    emu_launch(fns[t][k][tiled ? (a.dynamic ? 2 : 1) : 0], a, tiled, bi == 2, bo == 2,
                               blocks);
                    checked++;
                    if (d1 != d2) {
                        bad++;
                        size_t i = 0;
                        while (d1[i] == d2[i]) i++;
                        fprintf(stderr, "MISMATCH %s%s %dx%d range %d il %d aligned %d deferred %d: byte %zu cpu %u emu %u\n",
                                name, tiled ? (a.dynamic ? "_sd" : "_s") : "", w, h, c.range, c.il, c.aligned,
                                (a.independent & RV_DEBAND_DEFER_STORES) != 0, i, d1[i], d2[i]);
                    }
                }
    // three planes of different widths and heights in one tiled launch (the
    // tile lookup over planes: 4:2:0-like, luma 3 tile columns, chroma 2)
    for (int t = 0; t < 5; t++)
        for (int k = 0; k < 4; k += 2)
            for (int v = 0; v < 2; v++) {
                const int bi = dd[k][0] / 8, bo = dd[k][1] / 8;
                const int pw[3] = {300, 150, 150}, ph[3] = {70, 35, 35};
                rv_deband_args a;
                memset(&a, 0, sizeof(a));
                a.nplanes = 3;
                a.range = 7;
                std::vector<unsigned char> src[3], o1[3], o2[3];
                uint32_t st = (uint32_t)(t * 5 + k + 11 * v);
                for (int p = 0; p < 3; p++) {
                    const int sp = (pw[p] * bi + 63) / 64 * 64, dp = (pw[p] * bo + 63) / 64 * 64;
                    src[p].resize((size_t)sp * ph[p]);
                    o1[p].assign((size_t)dp * ph[p], 0xcd);
                    o2[p].assign((size_t)dp * ph[p], 0xcd);
                    for (int y = 0; y < ph[p]; y++)
                        for (int x = 0; x < pw[p] * bi; x++) {
                            st = st * 1664525u + 1013904223u;
                            src[p][(size_t)y * sp + x] = (unsigned char)(100 + p * 20 + x / 11 + y / 5 + (int)(st >> 30));
                        }
                    a.src[p] = (uint64_t)(uintptr_t)src[p].data();
                    a.spitch[p] = sp;
                    a.dpitch[p] = dp;
                    a.w[p] = pw[p];
                    a.h[p] = ph[p];
                    a.thr[p] = p == 0 ? 64 * 16 : p == 1 ? 777 : 3000;
                    a.grain[p] = (t & 1) ? (p == 0 ? 256 : p == 1 ? 357 : 77) : 0;
                    a.key_ref[p] = rv_deband_key_ref((uint32_t)t, p);
                }
                char name[64];
                snprintf(name, sizeof(name), "deband_%s_%dto%d", tags[t], dd[k][0], dd[k][1]);
                const RV_Kernel *kern = NULL;
                if (rv_kernel_get(mod, name, &kern) < 0) return 1;
                for (int p = 0; p < 3; p++)
                    a.dst[p] = (uint64_t)(uintptr_t)o1[p].data();
                RV_LaunchShape sh;
                memset(&sh, 0, sizeof(sh));
                sh.block[0] = 1024; sh.block[1] = 1;
                sh.grid[0] = 1; sh.grid[1] = 70; sh.grid[2] = 3;
                if (rv_launch_raw(kern, &sh, &a, sizeof(a)) < 0) return 1;
                for (int p = 0; p < 3; p++)
                    a.dst[p] = (uint64_t)(uintptr_t)o2[p].data();
                a.vec_ok = 1;
                a.src_words = 2;
                const int ntiles = rv_deband_tile_set(&a, 1 + v);
                if (t == 2) // the division fallback for the chroma planes
                    a.tile_rcp[1] = a.tile_rcp[2] = 0;
                if (v == 0 && t % 2 == 0)
                    a.independent = RV_DEBAND_WAIT_LATE | RV_DEBAND_DEFER_STORES;
                emu_launch(fns[t][k][1], a, 1, bi == 2, bo == 2, v ? 2 : ntiles);
                checked++;
                for (int p = 0; p < 3; p++)
                    if (o1[p] != o2[p]) {
                        bad++;
                        fprintf(stderr, "MISMATCH %s_s 3 planes, plane %d, tile_h32 %d, deferred %d\n", name,
                                p, a.tile_h32, (a.independent & RV_DEBAND_DEFER_STORES) != 0);
                        break;
                    }
            }
    printf("gpu bodies under emulation: %d of %d launches equal the CPU module byte for byte\n",
           checked - bad, checked);
    rv_module_unload(&mod);
    rv_context_destroy(&ctx);
    return bad ? 1 : 0;
}
