// onekernel_2k_lift.cu - session 35's probe (docs/perf/dwt.md, "Session 35"): a whole five-level
// CDF 9/7 forward transform of a 2048^2 float image, in place, block (Mallat) layout, in ONE
// cooperative launch. It follows session 34's skeleton probe (onekernel_2k_probe.cu) with the
// lifting put in: 128 blocks of 1024 threads, block b holds image rows [16 b, 16 b + 16) and
// four halo rows each way in shared memory and lifts level 0 there; at level k its band is
// 16 >> k rows of 2048 >> k samples. Between levels the blocks trade their row-lifted band rows
// through places in the image that nobody reads at that time (xpos()), with one grid barrier a
// level; all results are stored once, after a last barrier. Checked against a float64
// reference (step-wise symmetric extension) written here. Not part of the build:
//   nvcc -arch=sm_90 -O3 -std=c++17 -o lift onekernel_2k_lift.cu && ./lift
// -DTIMELINE prints when each phase ended (thread 0 of every block, %globaltimer); -DEARLY0=1 or 2
// stores level 0's details during levels 1-2 instead of at the end (no faster, see the notes).
// -DTAIL: levels 3-4 by two extra blocks (a cluster of two), so that the 128 band blocks skip
// three grid barriers: after level 2 each band block writes its two rows of the level-3 band
// (256^2) to their place, counts itself in, stores level 0's details, waits until every band
// block has counted in (all of level 2's halo reads done) and stores levels 1-2; the tail blocks
// wait for the count, lift level 3 (128 rows each, four halo rows each way), trade level 4's
// halo rows through distributed shared memory and lift level 4, storing as they go (slower).
// Needs 128 (TAIL: 130, in clusters of two) co-resident blocks of 192 KiB shared memory: H100, H200.
#include <cooperative_groups.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int N = 2048, NB = 128, RB = 16, T = 1024, LEVELS = 5;
#ifdef TAIL
constexpr int NTB = 2, GRID = NB + NTB;
#else
constexpr int GRID = NB;
#endif
constexpr int PITCH = 2048;      // words a shared row (the columns are swizzled, sw())
constexpr int SROWS = 24;        // 16 own rows, 8 halo slots
constexpr float CA = -1.586134342f, CB = -0.05298011854f, CC = 0.8829110762f, CD = 0.4435068522f;
constexpr float K0 = 0.8698644516f, K1 = 1.149604398f; // s *= K0, d *= K1
constexpr double DA = -1.586134342, DB = -0.05298011854, DC = 0.8829110762, DD = 0.4435068522;
constexpr double DK0 = 0.8698644516, DK1 = 1.149604398;
// -DTIMELINE: thread 0 of every block records %globaltimer after each phase
#ifdef TIMELINE
__device__ unsigned long long tl[GRID][32];
__device__ __forceinline__ void mark(int i)
{
    if (threadIdx.x == 0) { unsigned long long g; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g)); tl[blockIdx.x][i] = g; }
}
#else
__device__ __forceinline__ void mark(int) {}
#endif

// 16-byte granule g of a 128-byte line goes to granule g ^ (line & 7): a quarter warp's float4s
// at a stride of 8 or 32 words, and a warp's words at consecutive columns, meet no bank twice
__device__ __forceinline__ int pad(int x) { return x ^ (((x >> 5) & 7) << 2); }
__device__ __forceinline__ int refl(int x, int L) { return x < 0 ? -x : (x >= L ? 2 * L - 2 - x : x); }

// lifting of a window of A pairs in registers; pairs [2, A - 2) are final afterwards
template <int A>
__device__ __forceinline__ void lift(float (&s)[A], float (&d)[A])
{
#pragma unroll
    for (int i = 0; i < A - 1; i++) d[i] = fmaf(CA, s[i] + s[i + 1], d[i]);
#pragma unroll
    for (int i = 1; i < A - 1; i++) s[i] = fmaf(CB, d[i - 1] + d[i], s[i]);
#pragma unroll
    for (int i = 1; i < A - 2; i++) d[i] = fmaf(CC, s[i] + s[i + 1], d[i]);
#pragma unroll
    for (int i = 2; i < A - 2; i++) s[i] = fmaf(CD, d[i - 1] + d[i], s[i]);
}

// row lift of shared rows [r0, r0 + nr), w samples each, M pairs a thread (M % 4 == 0), read and
// written as float4; the results go back deinterleaved (low half, high half)
template <int M, int PITCH = PITCH>
__device__ __forceinline__ void rowlift(float *sh, int r0, int nr, int w)
{
    const int n = w / 2, segs = n / M, t = threadIdx.x;
    const bool act = t < nr * segs;
    float s[M + 4], d[M + 4];
    const int row = r0 + t / segs, seg = t % segs;
    float *rp = sh + row * PITCH;
    if (act) {
#pragma unroll
        for (int q = 0; q < (M + 4) / 2; q++) {
            const int x = 2 * M * seg - 4 + 4 * q;
            float4 v;
            if (x < 0 || x + 3 >= w) {
                v.x = rp[pad(refl(x, w))]; v.y = rp[pad(refl(x + 1, w))];
                v.z = rp[pad(refl(x + 2, w))]; v.w = rp[pad(refl(x + 3, w))];
            } else {
                v = *(const float4 *)(rp + pad(x));
            }
            s[2 * q] = v.x; d[2 * q] = v.y; s[2 * q + 1] = v.z; d[2 * q + 1] = v.w;
        }
        lift(s, d);
    }
    __syncthreads();
    if (act) {
#pragma unroll
        for (int k = 0; k < M / 4; k++) {
            *(float4 *)(rp + pad(seg * M + 4 * k)) =
                make_float4(s[2 + 4 * k] * K0, s[3 + 4 * k] * K0, s[4 + 4 * k] * K0, s[5 + 4 * k] * K0);
            *(float4 *)(rp + pad(n + seg * M + 4 * k)) =
                make_float4(d[2 + 4 * k] * K1, d[3 + 4 * k] * K1, d[4 + 4 * k] * K1, d[5 + 4 * k] * K1);
        }
    }
    __syncthreads();
}

__device__ __forceinline__ void cp16(float *dst, const float *src)
{
    unsigned a = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(a), "l"(src) : "memory");
}

// level 0's window rows: u < 4 the halo above (shared rows 16-19), u < 20 own rows, else below (20-23)
__device__ __forceinline__ int map0(int u) { return u < 4 ? 16 + u : (u < 20 ? u - 4 : u); }


// column lift of level k >= 1: MP pairs out, window rows [ws, ws + 2 (MP + 4)), own rows
// [r0, r0 + R) in shared rows [0, R), the others in slot u (shared row 16 + (u & 7), column
// 1024 (u >> 3))
template <int MP>
__device__ __forceinline__ void collift(float *sh, int w, int R, int r0, int ws)
{
    constexpr int A = MP + 4;
    for (int j = threadIdx.x; j < w; j += T) {
        float s[A], d[A];
#pragma unroll
        for (int u = 0; u < 2 * A; u++) {
            const int t = ws + u;
            const float *p = (t >= r0 && t < r0 + R) ? sh + (t - r0) * PITCH + pad(j)
                                                      : sh + (16 + (u & 7)) * PITCH + pad(1024 * (u >> 3) + j);
            if (u & 1) d[u >> 1] = *p; else s[u >> 1] = *p;
        }
        lift(s, d);
        if (R >= 2) {
#pragma unroll
            for (int i = 0; i < MP; i++) {
                sh[i * PITCH + pad(j)] = s[i + 2] * K0;
                sh[(MP + i) * PITCH + pad(j)] = d[i + 2] * K1;
            }
        } else {
            sh[pad(j)] = (r0 & 1) ? d[2] * K1 : s[2] * K0;
        }
    }
}

// where level K's row oi of block ob is traded (image row, column): level 1 in the middle rows of
// the block's own band (only that block reads them at level 0); levels 2-4 in the quadrant of
// level 1's low band, rows 16 m + 0-3 (levels 2, 4) and 16 m + 12-15 (level 3), which level 1's
// trade does not touch; level 0's details go elsewhere (rows >= 1024 or columns >= 1024). TAIL:
// level 2 in rows >= 256 (not the level-3 band, which the band blocks write at their own pace)
template <int K>
__device__ __forceinline__ size_t xpos(int ob, int oi)
{
    constexpr int w = N >> K;
    if (K == 1) return (size_t)(RB * ob + 4 + oi) * N;
#ifdef TAIL
    if (K == 2) { // rows >= 256 of level 1's low band, 16 m + 0-3 and 16 m + 12-15 (not the level-3 band)
        const int L = 4 * ob + oi, q = L >> 1;
        return (size_t)(256 + 16 * (q >> 3) + ((q & 7) < 4 ? (q & 7) : 8 + (q & 7))) * N + (L & 1) * w;
    }
#else
    if (K == 2) return (size_t)(16 * (ob >> 1) + oi) * N + (ob & 1) * w;
#endif
    if (K == 3) return (size_t)(16 * (ob >> 2) + 12 + oi) * N + (ob & 3) * w;
    return (size_t)(16 * (ob >> 3) + oi) * N + (ob & 7) * w;
}

// level 0's details to their places: PHASE 1 (after level 1's barrier: every block has read its
// level 0 input) all but the rows of the low-high band that lie in level 1's trade rows; PHASE 2
// (after level 2's barrier) those
template <int PHASE>
__device__ __forceinline__ void store0(const float *sh, float *img)
{
    const int b = blockIdx.x;
    for (int idx = threadIdx.x; idx < 16 * N / 4; idx += T) {
        const int i = idx / (N / 4), j = 4 * (idx % (N / 4));
        if (i < 8 && j < N / 2) continue; // level 1's
        int gr;
        bool late = false;
        if (i < 8) gr = 8 * b + i;
        else {
            gr = N / 2 + 8 * b + i - 8;
            const int m = gr & 15;
            late = j < N / 2 && m >= 4 && m < 12;
        }
        if (late == (PHASE == 2))
            __stcg((float4 *)(img + (size_t)gr * N + j), *(const float4 *)(sh + i * PITCH + pad(j)));
    }
}

template <int K>
__device__ __forceinline__ void level(float *sh, float *img, cg::grid_group &grid)
{
    constexpr int R = RB >> K, w = N >> K, h = N >> K;
    constexpr int MP = R >= 2 ? R / 2 : 1, NW = 2 * (MP + 4);
    const int b = blockIdx.x, t = threadIdx.x, r0 = b * R;
    rowlift<4>(sh, 0, R, w);
    mark(4 + 5 * (K - 1));
    // export the row-lifted band to the middle rows of this block's image band
    for (int idx = t; idx < R * w / 4; idx += T) {
        const int i = idx / (w / 4), j = 4 * (idx % (w / 4));
        __stcg((float4 *)(img + xpos<K>(b, i) + j), *(const float4 *)(sh + i * PITCH + pad(j)));
    }
    mark(5 + 5 * (K - 1));
    grid.sync();
    mark(6 + 5 * (K - 1));
    const int ws = 2 * (r0 / 2) - 4;
    // the halo rows straight into their slots, 16 B at a time
    for (int idx = t; idx < NW * w / 4; idx += T) {
        const int u = idx / (w / 4), j = 4 * (idx % (w / 4)), tr = ws + u;
        if (tr >= r0 && tr < r0 + R) continue;
        const int tq = refl(tr, h);
        cp16(sh + (16 + (u & 7)) * PITCH + pad(1024 * (u >> 3) + j), img + xpos<K>(tq / R, tq % R) + j);
    }
#if defined(EARLY0) && EARLY0 == 1
    if (K == 1) store0<1>(sh, img);
    if (K == 2) store0<2>(sh, img);
#endif
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    __syncthreads();
    mark(7 + 5 * (K - 1));
    collift<MP>(sh, w, R, r0, ws);
    __syncthreads();
#if defined(EARLY0) && EARLY0 == 2
    if (K == 1) store0<1>(sh, img);
    if (K == 2) store0<2>(sh, img);
#endif
    mark(8 + 5 * (K - 1));
}

#ifdef TAIL
__device__ __forceinline__ unsigned ld_acquire(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// levels 3-4 by the NTB = 2 tail blocks (one cluster): tail block tb takes rows [128 tb, 128 tb +
// 128) of the level-3 band, then rows [64 tb, 64 tb + 64) of the level-4 band
__device__ __forceinline__ void tail(float *sh, float *img, unsigned *cnt, unsigned epoch, cg::grid_group &grid)
{
    constexpr int RT = 256 / NTB, P3 = 256, P4 = 128;
    cg::cluster_group cl = cg::this_cluster();
    const int tb = blockIdx.x - NB, t = threadIdx.x;
    float *s3 = sh, *s4 = sh + (RT + 8) * P3;
    grid.sync(); // the band blocks' level 1
    grid.sync(); // and level 2
    if (t == 0) while (ld_acquire(cnt) < NB * epoch) { }
    __syncthreads();
    mark(18);
    for (int idx = t; idx < (RT + 8) * 64; idx += T) {
        const int u = idx >> 6, x = 4 * (idx & 63), gr = refl(RT * tb - 4 + u, 256);
        cp16(s3 + u * P3 + pad(x), img + (size_t)gr * N + x);
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    __syncthreads();
    mark(19);
    for (int r = 0; r < RT + 8; r += 128) rowlift<16, P3>(s3, r, RT + 8 - r < 128 ? RT + 8 - r : 128, 256);
    mark(20);
    // level 3's columns: pairs [8 sg, 8 sg + 8) of column j, window shared rows [16 sg, 16 sg + 24);
    // the low-low quarter to s4 (its rows at 4 +), the rest to its place
    for (int task = t; task < 256 * (RT / 16); task += T) {
        const int j = task & 255, sg = task >> 8;
        float s[12], d[12];
#pragma unroll
        for (int u = 0; u < 24; u++) {
            const float v = s3[(16 * sg + u) * P3 + pad(j)];
            if (u & 1) d[u >> 1] = v; else s[u >> 1] = v;
        }
        lift(s, d);
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const int p = RT / 2 * tb + 8 * sg + i;
            const float sv = s[i + 2] * K0;
            if (j < 128) s4[(4 + 8 * sg + i) * P4 + pad(j)] = sv;
            else __stcg(img + (size_t)p * N + j, sv);
            __stcg(img + (size_t)(128 + p) * N + j, d[i + 2] * K1);
        }
    }
    __syncthreads();
    mark(21);
    rowlift<4, P4>(s4, 4, RT / 2, 128);
    mark(22);
    cl.sync();
    // level 4's halo rows: from the other tail block's shared memory, or reflected from this one's
    for (int idx = t; idx < 8 * 128; idx += T) {
        const int u = idx >> 7, x = idx & 127;
        const int g = u < 4 ? RT / 2 * tb - 4 + u : RT / 2 * tb + RT / 2 + (u - 4);
        const int gq = refl(g, 128), owner = gq / (RT / 2), lr = gq % (RT / 2);
        const float *src = owner == tb ? s4 : cl.map_shared_rank(s4, owner);
        s4[(u < 4 ? u : RT / 2 + u) * P4 + pad(x)] = src[(4 + lr) * P4 + pad(x)];
    }
    cl.sync();
    mark(23);
    for (int task = t; task < 128 * (RT / 32); task += T) {
        const int j = task & 127, sg = task >> 7;
        float s[12], d[12];
#pragma unroll
        for (int u = 0; u < 24; u++) {
            const float v = s4[(16 * sg + u) * P4 + pad(j)];
            if (u & 1) d[u >> 1] = v; else s[u >> 1] = v;
        }
        lift(s, d);
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const int p = RT / 4 * tb + 8 * sg + i;
            __stcg(img + (size_t)p * N + j, s[i + 2] * K0);
            __stcg(img + (size_t)(64 + p) * N + j, d[i + 2] * K1);
        }
    }
    mark(24);
}
#endif

__global__ void __launch_bounds__(T, 1) dwt2k(float *img, unsigned *cnt, unsigned epoch)
{
    extern __shared__ float sh[];
    cg::grid_group grid = cg::this_grid();
    const int b = blockIdx.x, t = threadIdx.x;
#ifdef TAIL
    if (b >= NB) { tail(sh, img, cnt, epoch, grid); return; }
#else
    (void)cnt; (void)epoch;
#endif
    mark(0);
    // level 0: four halo rows each way (reflected at the image's edges), then the own rows, 16 B
    // at a time; the halo rows are lifted while the own rows land
    for (int idx = t; idx < 8 * N / 4; idx += T) {
        const int u = 16 + idx / (N / 4), x = 4 * (idx % (N / 4));
        const int gr = u < 20 ? refl(RB * b - 4 + (u - 16), N) : refl(RB * b + 16 + (u - 20), N);
        cp16(sh + u * PITCH + pad(x), img + (size_t)gr * N + x);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    for (int idx = t; idx < 16 * N / 4; idx += T) {
        const int u = idx / (N / 4), x = 4 * (idx % (N / 4));
        cp16(sh + u * PITCH + pad(x), img + (size_t)(RB * b + u) * N + x);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    __syncthreads();
    mark(1);
    rowlift<8>(sh, 16, 8, N);
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    __syncthreads();
    rowlift<16>(sh, 0, 16, N);
    mark(2);
    for (int j = t; j < N; j += T) {
        float s[12], d[12];
#pragma unroll
        for (int u = 0; u < 24; u++) {
            const float v = sh[map0(u) * PITCH + pad(j)];
            if (u & 1) d[u >> 1] = v; else s[u >> 1] = v;
        }
        lift(s, d);
#pragma unroll
        for (int i = 0; i < 8; i++) {
            sh[i * PITCH + pad(j)] = s[i + 2] * K0;
            sh[(8 + i) * PITCH + pad(j)] = d[i + 2] * K1;
        }
    }
    __syncthreads();
    mark(3);
    level<1>(sh, img, grid);
    level<2>(sh, img, grid);
#ifdef TAIL
    // the level-3 band's two rows of this block to their place (the tail blocks read them there),
    // and this block counted in: its level-2 halo reads are done
    for (int idx = t; idx < 2 * 64; idx += T) {
        const int i = idx >> 6, j = 4 * (idx & 63);
        __stcg((float4 *)(img + (size_t)(2 * b + i) * N + j), *(const float4 *)(sh + i * PITCH + pad(j)));
    }
    __syncthreads();
    if (t == 0) { __threadfence(); atomicAdd(cnt, 1u); }
    mark(14);
    // level 0's details: nobody reads their places any more
    for (int idx = t; idx < 16 * N / 4; idx += T) {
        const int i = idx / (N / 4), j = 4 * (idx % (N / 4));
        if (i < 8 && j < N / 2) continue;
        const int gr = i < 8 ? 8 * b + i : N / 2 + 8 * b + i - 8;
        __stcg((float4 *)(img + (size_t)gr * N + j), *(const float4 *)(sh + i * PITCH + pad(j)));
    }
    mark(15);
    // levels 1-2's details once every band block's level-2 halo reads are done
    if (t == 0) while (ld_acquire(cnt) < NB * epoch) { }
    __syncthreads();
    mark(16);
#pragma unroll
    for (int k = 1; k <= 2; k++) {
        const int R = RB >> k, w = N >> k, h = N >> k, r0 = b * R;
        for (int idx = t; idx < R * w / 4; idx += T) {
            const int i = idx / (w / 4), j = 4 * (idx % (w / 4));
            if (i < R / 2 && j < w / 2) continue;
            const int gr = i < R / 2 ? r0 / 2 + i : h / 2 + r0 / 2 + i - R / 2;
            __stcg((float4 *)(img + (size_t)gr * N + j), *(const float4 *)(sh + i * PITCH + pad(j)));
        }
    }
    mark(17);
#else
    level<3>(sh, img, grid);
    level<4>(sh, img, grid);
    grid.sync();
    mark(24);
    // the stores (of levels 1-4 with EARLY0): each level's band minus the part the next level took
#pragma unroll
#ifdef EARLY0
    for (int k = 1; k < LEVELS; k++) {
#else
    for (int k = 0; k < LEVELS; k++) {
#endif
        const int R = RB >> k, w = N >> k, h = N >> k, r0 = b * R;
        for (int idx = t; idx < R * w / 4; idx += T) {
            const int i = idx / (w / 4), j = 4 * (idx % (w / 4));
            int gr;
            if (R >= 2) {
                if (k < LEVELS - 1 && i < R / 2 && j < w / 2) continue;
                gr = i < R / 2 ? r0 / 2 + i : h / 2 + r0 / 2 + i - R / 2;
            } else {
                gr = (r0 & 1) ? h / 2 + r0 / 2 : r0 / 2;
            }
            __stcg((float4 *)(img + (size_t)gr * N + j), *(const float4 *)(sh + i * PITCH + pad(j)));
        }
    }
    mark(25);
#endif
}

// ---- float64 reference: rows then columns a level, step-wise symmetric extension ----
static void ref1d(double *x, int n2, int stride, std::vector<double> &tmp)
{
    const int n = n2 / 2;
    std::vector<double> s(n), d(n);
    for (int i = 0; i < n; i++) { s[i] = x[(size_t)(2 * i) * stride]; d[i] = x[(size_t)(2 * i + 1) * stride]; }
    for (int i = 0; i < n; i++) d[i] += DA * (s[i] + s[i + 1 < n ? i + 1 : n - 1]);
    for (int i = 0; i < n; i++) s[i] += DB * (d[i > 0 ? i - 1 : 0] + d[i]);
    for (int i = 0; i < n; i++) d[i] += DC * (s[i] + s[i + 1 < n ? i + 1 : n - 1]);
    for (int i = 0; i < n; i++) s[i] += DD * (d[i > 0 ? i - 1 : 0] + d[i]);
    for (int i = 0; i < n; i++) { x[(size_t)i * stride] = s[i] * DK0; x[(size_t)(n + i) * stride] = d[i] * DK1; }
    (void)tmp;
}
static void ref2d(std::vector<double> &a)
{
    std::vector<double> tmp;
    for (int k = 0; k < LEVELS; k++) {
        const int w = N >> k;
        for (int r = 0; r < w; r++) ref1d(&a[(size_t)r * N], w, 1, tmp);
        for (int c = 0; c < w; c++) ref1d(&a[c], w, N, tmp);
    }
}

__global__ void copyk(const float4 *a, float4 *b, int n) { for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) __stcg(b + i, __ldcg(a + i)); }

int main()
{
    const size_t bytes = (size_t)N * N * 4, smem = (size_t)SROWS * PITCH * 4;
    int dev; cudaGetDevice(&dev); cudaDeviceProp p; cudaGetDeviceProperties(&p, dev);
    printf("%s, %d SMs; %d^2 f32 in %d blocks of %d rows, %zu B shared a block\n", p.name, p.multiProcessorCount, N, NB, RB, smem);
    CK(cudaFuncSetAttribute(dwt2k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(GRID); cfg.blockDim = dim3(T); cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute at[2];
    at[0].id = cudaLaunchAttributeCooperative; at[0].val.cooperative = 1;
    cfg.attrs = at; cfg.numAttrs = 1;
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, dwt2k));
#ifdef TAIL
    at[1].id = cudaLaunchAttributeClusterDimension; at[1].val.clusterDim.x = 2; at[1].val.clusterDim.y = 1; at[1].val.clusterDim.z = 1;
    cfg.numAttrs = 2;
    int ncl = 0; CK(cudaOccupancyMaxActiveClusters(&ncl, (void *)dwt2k, &cfg));
    printf("registers %d, local %zu B, clusters of two at once %d\n", fa.numRegs, fa.localSizeBytes, ncl);
    if (2 * ncl < GRID) { printf("cannot co-schedule %d blocks\n", GRID); return 1; }
#else
    int per = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, dwt2k, T, smem));
    printf("registers %d, local %zu B, blocks/SM %d\n", fa.numRegs, fa.localSizeBytes, per);
    if (per * p.multiProcessorCount < GRID) { printf("cannot co-schedule %d blocks\n", GRID); return 1; }
#endif
    unsigned *cnt; CK(cudaMalloc(&cnt, 4)); CK(cudaMemset(cnt, 0, 4));
    unsigned epoch = 0;
    std::vector<float> h(N * (size_t)N), g(N * (size_t)N);
    std::vector<double> ref(N * (size_t)N);
    srand(7);
    for (size_t i = 0; i < h.size(); i++) { h[i] = (float)((rand() & 0xffff) / 65536.0 + 0.25 * sin(i * 1e-3)); ref[i] = h[i]; }
    float *img, *dst; CK(cudaMalloc(&img, bytes)); CK(cudaMalloc(&dst, bytes));
    CK(cudaMemcpy(img, h.data(), bytes, cudaMemcpyHostToDevice));
    cudaStream_t st; cudaStreamCreate(&st);
    cfg.stream = st;
#define LAUNCH() CK(cudaLaunchKernelEx(&cfg, dwt2k, img, cnt, ++epoch))
    LAUNCH();
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(g.data(), img, bytes, cudaMemcpyDeviceToHost));
    ref2d(ref);
    double emax = 0, rmax = 0; size_t worst = 0;
    for (size_t i = 0; i < g.size(); i++) {
        const double e = fabs(g[i] - ref[i]);
        if (e > emax || std::isnan(g[i])) { emax = std::isnan(g[i]) ? 1e30 : e; worst = i; }
        if (fabs(ref[i]) > rmax) rmax = fabs(ref[i]);
    }
    printf("check: max |gpu - ref| = %.3g at (%zu, %zu) (gpu %.6g, ref %.6g), max |ref| = %.3g, relative %.3g -> %s\n", emax,
           worst / N, worst % N, g[worst], ref[worst], rmax, emax / rmax, emax / rmax <= 1e-5 ? "PASS" : "FAIL");
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    float bestn = 1e9f, best1 = 1e9f, bc = 1e9f;
    const int reps = 40;
    for (int trial = 0; trial < 5; trial++) {
        CK(cudaMemcpy(img, h.data(), bytes, cudaMemcpyHostToDevice));
        cudaEventRecord(e0, st);
        for (int r = 0; r < reps; r++) LAUNCH();
        cudaEventRecord(e1, st); CK(cudaEventSynchronize(e1));
        float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms / reps < bestn) bestn = ms / reps;
        CK(cudaMemcpy(img, h.data(), bytes, cudaMemcpyHostToDevice));
        cudaEventRecord(e0, st);
        LAUNCH();
        cudaEventRecord(e1, st); CK(cudaEventSynchronize(e1));
        cudaEventElapsedTime(&ms, e0, e1); if (ms < best1) best1 = ms;
        cudaEventRecord(e0, st);
        for (int r = 0; r < reps; r++) copyk<<<p.multiProcessorCount * 8, 512, 0, st>>>((const float4 *)img, (float4 *)dst, (int)(bytes / 16));
        cudaEventRecord(e1, st); cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1); if (ms / reps < bc) bc = ms / reps;
    }
    // E2 counts a row pass and a column pass a level, each reading and writing its region
    double e2b = 0; for (int k = 0; k < LEVELS; k++) e2b += 4.0 * ((size_t)(N >> k) * (N >> k) * 4);
    printf("copy of the image: %.2f us (%.0f GB/s)\n", bc * 1e3, 2.0 * bytes / (bc * 1e-3) / 1e9);
    printf("one-kernel 5-level CDF 9/7 in place: %.2f us a launch back to back, %.2f us one launch; E2 bytes %.1f MB -> %.2f TB/s\n",
           bestn * 1e3, best1 * 1e3, e2b / 1e6, e2b / (bestn * 1e-3) / 1e12);
#ifdef TIMELINE
    {
#ifdef TAIL
        static const char *nm[25] = {"start", "load", "rowlift0", "collift0", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     "LL3 out, counted", "level 0 stored", "count complete", "levels 1-2 stored",
                                     "tail: count", "tail: loaded", "tail: L3 rows", "tail: L3 cols", "tail: L4 rows",
                                     "tail: L4 halos", "tail: L4 cols"};
        const int nmk = 25, tail0 = 18;
#else
        static const char *nm[26] = {"start", "load", "rowlift0", "collift0", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "final sync", "stores"};
        const int nmk = 26, tail0 = 99;
#endif
        static unsigned long long hb[GRID][32];
        CK(cudaMemcpyFromSymbol(hb, tl, sizeof hb));
        unsigned long long t0 = ~0ull;
        for (int b = 0; b < NB; b++) if (hb[b][0] < t0) t0 = hb[b][0];
        printf("phase (us from the first block's start): mean over blocks / max\n");
        for (int i = 0; i < nmk; i++) {
            double m = 0, mx = 0; int n = 0;
            const int b0 = i >= tail0 ? NB : 0, b1 = i >= tail0 ? GRID : NB;
            for (int b = b0; b < b1; b++) { double v = (hb[b][i] - t0) * 1e-3; m += v; n++; if (v > mx) mx = v; }
            char buf[32]; if (!nm[i]) { const char *q[5] = {"rowlift", "export", "sync", "import", "collift"}; snprintf(buf, sizeof buf, "L%d %s", (i - 4) / 5 + 1, q[(i - 4) % 5]); }
            printf("  %-18s %7.2f %7.2f\n", nm[i] ? nm[i] : buf, m / n, mx);
        }
    }
#endif
    return 0;
}
