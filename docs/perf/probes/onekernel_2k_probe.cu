// onekernel_2k_probe.cu - session 34's probe (docs/perf/dwt.md, "Session 34", item 3): what a
// one-kernel five-level 2K transform would pay on this GPU before any lifting. A 2048^2 float image
// (16 MiB) held in shared memory by 128 blocks (16 rows each, one block a multiprocessor, a
// cooperative launch), loaded and stored once; with grid barriers; with halo exchanges between
// neighbouring blocks through scratch and release / acquire flags. Not part of the build:
//   nvcc -arch=sm_90 -O3 -std=c++17 -o probe onekernel_2k_probe.cu && ./probe
// (needs a GPU of 128 or more multiprocessors and 192 KB of shared memory a block: H100, H200).
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)
constexpr int N = 2048, B = 128, ROWS = N / B, T = 1024, HALO = 4;

__device__ __forceinline__ void load_rows(float4 *sh, const float4 *g, int nv)
{
    for (int i = threadIdx.x; i < nv; i += T) sh[i] = __ldcg(g + i);
}
__device__ __forceinline__ void store_rows(float4 *g, const float4 *sh, int nv)
{
    for (int i = threadIdx.x; i < nv; i += T) __stcg(g + i, sh[i]);
}
__device__ __forceinline__ unsigned ld_acquire(const unsigned *p)
{
    unsigned v; asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v;
}
__device__ __forceinline__ void st_release(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
// MODE 0: load, store to dst. 1: load, K grid barriers, store in place. 2: load, K halo exchanges
// with the blocks above and below (HALO rows each way through scratch and flags), one grid barrier, store.
template <int MODE>
__global__ void __launch_bounds__(T, 1) probe(float *img, float *dst, float *scratch, unsigned *flags, int K, unsigned epoch)
{
    extern __shared__ float4 sh[];
    const int b = blockIdx.x, nv = ROWS * N / 4, hv = HALO * N / 4;
    float4 *mine = (float4 *)(img + (size_t)b * ROWS * N);
    load_rows(sh, mine, nv);
    __syncthreads();
    if (MODE == 0) { store_rows((float4 *)(dst + (size_t)b * ROWS * N), sh, nv); return; }
    cg::grid_group grid = cg::this_grid();
    if (MODE == 3) {
        // the skeleton of a one-kernel five-level transform: level 0's halo rows read from the
        // image (HALO above and below, clamped), then K levels whose halo rows (HALO each way,
        // rows of N >> k samples) go through scratch and flags, then a barrier and the stores
        float4 *hal = sh + nv;
        if (b > 0) load_rows(hal, mine - hv, hv);
        if (b < B - 1) load_rows(hal + hv, mine + nv, hv);
        __syncthreads();
        for (int k = 1; k <= K; k++) {
            const int wv = hv >> k; // HALO rows of N >> k samples, in float4
            const unsigned tag = epoch * 64 + k;
            float4 *out = (float4 *)(scratch + ((size_t)(k & 1) * B + b) * 2 * HALO * N);
            store_rows(out, sh, wv);
            store_rows(out + wv, sh + nv - wv, wv);
            __syncthreads();
            if (threadIdx.x == 0) { __threadfence(); st_release(flags + b, tag); }
            if (threadIdx.x < 2) {
                const int nb = threadIdx.x ? b + 1 : b - 1;
                if (nb >= 0 && nb < B) while (ld_acquire(flags + nb) < tag) { }
            }
            __syncthreads();
            if (b > 0) load_rows(hal, (const float4 *)(scratch + ((size_t)(k & 1) * B + b - 1) * 2 * HALO * N) + wv, wv);
            if (b < B - 1) load_rows(hal + wv, (const float4 *)(scratch + ((size_t)(k & 1) * B + b + 1) * 2 * HALO * N), wv);
            __syncthreads();
            for (int i = threadIdx.x; i < wv; i += T) { sh[i].x += hal[i].x * 1e-30f; }
            __syncthreads();
        }
        grid.sync();
        store_rows(mine, sh, nv);
        return;
    }
    if (MODE == 1) {
        for (int k = 0; k < K; k++) grid.sync();
    } else {
        float4 *hal = sh + nv;                       // 2 HALO rows from the neighbours
        for (int k = 0; k < K; k++) {
            const unsigned tag = epoch * 64 + k + 1;
            float4 *out = (float4 *)(scratch + ((size_t)(k & 1) * B + b) * 2 * HALO * N);
            store_rows(out, sh, hv);                  // my first HALO rows (for b - 1)
            store_rows(out + hv, sh + nv - hv, hv);   // my last HALO rows (for b + 1)
            __syncthreads();
            if (threadIdx.x == 0) { __threadfence(); st_release(flags + b, tag); }
            if (threadIdx.x < 2) {
                const int nb = threadIdx.x ? b + 1 : b - 1;
                if (nb >= 0 && nb < B) while (ld_acquire(flags + nb) < tag) { }
            }
            __syncthreads();
            if (b > 0) load_rows(hal, (const float4 *)(scratch + ((size_t)(k & 1) * B + b - 1) * 2 * HALO * N) + hv, hv);
            if (b < B - 1) load_rows(hal + hv, (const float4 *)(scratch + ((size_t)(k & 1) * B + b + 1) * 2 * HALO * N), hv);
            __syncthreads();
            // touch the halo so that it is used: add it into row 0 (a stand-in for lifting)
            for (int i = threadIdx.x; i < hv; i += T) { sh[i].x += hal[i].x * 1e-30f; }
            __syncthreads();
        }
        grid.sync();
    }
    store_rows(mine, sh, nv);
}

template <int MODE>
static int run(const char *name, float *img, float *dst, float *scratch, unsigned *flags, int K, size_t smem, cudaStream_t s)
{
    CK(cudaFuncSetAttribute(probe<MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    static unsigned epoch = 0;
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    float best1 = 1e9f, bestn = 1e9f;
    const int reps = 40;
    for (int trial = 0; trial < 5; trial++) {
        for (int r = -1; r < reps; r++) {
            unsigned ep = ++epoch;
            void *args[] = {&img, &dst, &scratch, &flags, &K, &ep};
            if (r == 0) cudaEventRecord(e0, s);
            CK(cudaLaunchCooperativeKernel((void *)probe<MODE>, dim3(B), dim3(T), args, smem, s));
            if (r == -1) { cudaEventRecord(e1, s); } // unused
        }
        cudaEventRecord(e1, s); CK(cudaEventSynchronize(e1));
        float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms / reps < bestn) bestn = ms / reps;
        // one launch alone
        unsigned ep = ++epoch; void *args[] = {&img, &dst, &scratch, &flags, &K, &ep};
        cudaEventRecord(e0, s);
        CK(cudaLaunchCooperativeKernel((void *)probe<MODE>, dim3(B), dim3(T), args, smem, s));
        cudaEventRecord(e1, s); CK(cudaEventSynchronize(e1));
        cudaEventElapsedTime(&ms, e0, e1); if (ms < best1) best1 = ms;
    }
    printf("| %-44s | %2d | %7.2f | %7.2f |\n", name, K, bestn * 1000, best1 * 1000);
    return 0;
}

__global__ void copyk(const float4 *a, float4 *b, int n) { for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) __stcg(b + i, __ldcg(a + i)); }

int main()
{
    float *img, *dst, *scratch; unsigned *flags;
    const size_t bytes = (size_t)N * N * 4;
    CK(cudaMalloc(&img, bytes)); CK(cudaMalloc(&dst, bytes));
    CK(cudaMalloc(&scratch, (size_t)2 * B * 2 * HALO * N * 4)); CK(cudaMalloc(&flags, B * 4));
    CK(cudaMemset(img, 0, bytes)); CK(cudaMemset(flags, 0, B * 4));
    cudaStream_t s; cudaStreamCreate(&s);
    int dev; cudaGetDevice(&dev); cudaDeviceProp p; cudaGetDeviceProperties(&p, dev);
    printf("%s, %d SMs; image %d^2 f32 (%.1f MiB) in %d blocks of %d rows\n", p.name, p.multiProcessorCount, N, bytes / 1048576.0, B, ROWS);
    // copy floor: the same bytes by a plain copy kernel, 40 back to back
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    float bc = 1e9f;
    for (int t = 0; t < 5; t++) {
        cudaEventRecord(e0, s);
        for (int r = 0; r < 40; r++) copyk<<<p.multiProcessorCount * 8, 512, 0, s>>>((const float4 *)img, (float4 *)dst, (int)(bytes / 16));
        cudaEventRecord(e1, s); cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms / 40 < bc) bc = ms / 40;
    }
    printf("copy kernel, 40 back to back: %.2f us a copy (%.0f GB/s)\n", bc * 1000, 2.0 * bytes / (bc * 1e-3) / 1e9);
    printf("| variant | K | us a launch, 40 back to back | one launch, events |\n|---|---|---|---|\n");
    const size_t sm0 = (size_t)ROWS * N * 4, sm2 = sm0 + (size_t)2 * HALO * N * 4;
    if (run<0>("load + store, out of place", img, dst, scratch, flags, 0, sm0, s)) return 1;
    for (int K : {1, 2, 5, 10})
        if (run<1>("load, K grid barriers, store in place", img, dst, scratch, flags, K, sm0, s)) return 1;
    for (int K : {1, 5, 10})
        if (run<2>("load, K halo exchanges + 1 barrier, store", img, dst, scratch, flags, K, sm2, s)) return 1;
    for (int K : {0, 4})
        if (run<3>("skeleton: 24 rows in, K levels' halos, barrier, 16 out", img, dst, scratch, flags, K, sm2, s)) return 1;
    CK(cudaDeviceSynchronize());
    return 0;
}
