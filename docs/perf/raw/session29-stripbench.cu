// stripbench: how fast DRAM serves the column passes' access pattern.
// Copies an N x N float image (out of place) linearly and by column strips
// of WC floats (128, 256, 512 bytes a row segment), tiles of TR rows, two
// strips a block (as dwt_colrp), with rows either kept or split even/odd
// (the column pass's output rows). Events, best and median of REPS.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void copy_lin(const float4 *__restrict__ s, float4 *__restrict__ d, size_t n4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
        d[i] = __ldcs(s + i);
}

template <int WC, int TR, int TY, int SPLIT>
__global__ void __launch_bounds__(32 * TY) copy_strip(const float *__restrict__ s, float *__restrict__ d, int n)
{
    constexpr int V = WC / 32;            // floats a lane
    constexpr int RPT = TR / TY;          // rows a thread
    const int nstrip = n / WC;
    for (int st = blockIdx.x; st < nstrip; st += gridDim.x) {
        const int c = st * WC + threadIdx.x * V;
        const int r0 = blockIdx.y * TR + threadIdx.y;
        float v[RPT][V];
#pragma unroll
        for (int k = 0; k < RPT; k++) {
            const float *p = s + (size_t)(r0 + k * TY) * n + c;
            if (V == 4) { float4 t = *(const float4 *)p; v[k][0] = t.x; v[k][1] = t.y; v[k][2] = t.z; v[k][3 % V] = t.w; }
            else if (V == 2) { float2 t = *(const float2 *)p; v[k][0] = t.x; v[k][1 % V] = t.y; }
            else v[k][0] = *p;
        }
#pragma unroll
        for (int k = 0; k < RPT; k++) {
            const int r = r0 + k * TY;
            const int rd = SPLIT ? ((r & 1) ? (n >> 1) + (r >> 1) : (r >> 1)) : r;
            float *p = d + (size_t)rd * n + c;
            if (V == 4) *(float4 *)p = make_float4(v[k][0], v[k][1 % V], v[k][2 % V], v[k][3 % V]);
            else if (V == 2) *(float2 *)p = make_float2(v[k][0], v[k][1 % V]);
            else *p = v[k][0];
        }
    }
}

static float timeit(void (*launch)(const float *, float *, int, cudaStream_t), const float *s, float *d, int n,
                    int reps, float *med)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int i = 0; i < reps + 2; i++) {
        CK(cudaEventRecord(a));
        launch(s, d, n, 0);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (i >= 2) t.push_back(ms * 1000.f);
    }
    std::sort(t.begin(), t.end());
    *med = t[t.size() / 2];
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return t[0];
}

static int g_sms;
static void l_lin(const float *s, float *d, int n, cudaStream_t q)
{
    copy_lin<<<g_sms * 8, 256, 0, q>>>((const float4 *)s, (float4 *)d, (size_t)n * n / 4);
}
template <int WC, int TR, int TY, int SPLIT> static void l_strip(const float *s, float *d, int n, cudaStream_t q)
{
    dim3 g(n / WC / 2, n / TR);
    copy_strip<WC, TR, TY, SPLIT><<<g, dim3(32, TY), 0, q>>>(s, d, n);
}

int main(int argc, char **argv)
{
    int reps = 20;
    CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
    struct { const char *name; void (*f)(const float *, float *, int, cudaStream_t); } ks[] = {
        {"linear float4", l_lin},
        {"strip 32 (128 B), rows kept", l_strip<32, 128, 8, 0>},
        {"strip 32 (128 B), rows split", l_strip<32, 128, 8, 1>},
        {"strip 64 (256 B), rows kept", l_strip<64, 128, 8, 0>},
        {"strip 64 (256 B), rows split", l_strip<64, 128, 8, 1>},
        {"strip 128 (512 B), rows kept", l_strip<128, 64, 8, 0>},
        {"strip 128 (512 B), rows split", l_strip<128, 64, 8, 1>},
        {"strip 32, 256-row tiles, split", l_strip<32, 256, 16, 1>},
    };
    for (int ai = 1; ai < argc; ai++) {
        const int n = atoi(argv[ai]);
        const size_t bytes = (size_t)n * n * 4;
        float *s, *d;
        CK(cudaMalloc(&s, bytes));
        CK(cudaMalloc(&d, bytes));
        CK(cudaMemset(s, 1, bytes));
        CK(cudaMemset(d, 0, bytes));
        printf("N = %d (%.1f MB each way)\n", n, bytes / 1e6);
        float lin = 0;
        for (auto &k : ks) {
            float med, best = timeit(k.f, s, d, n, reps, &med);
            if (k.f == l_lin) lin = best;
            printf("  %-34s best %8.2f us  median %8.2f us  %7.1f GB/s  linear/this %5.1f%%\n", k.name, best, med,
                   2.0 * bytes / best / 1e3, 100.0 * lin / best);
        }
        CK(cudaFree(s));
        CK(cudaFree(d));
    }
    return 0;
}
