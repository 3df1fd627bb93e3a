// hand.cu - the benchmark's "no framework" peers: the sample programs
// written directly in CUDA C, one thread per pixel (the usual way), with
// no ravioli code. Compiled to PTX and launched by hand with cuLaunchKernel
// by bench_gpu_core.c.
#include <stdint.h>

__device__ __forceinline__ int lum(uchar4 p) { return (p.x + p.y + p.z) / 3; }

extern "C" __global__ void hand_gray(const uchar4 *__restrict__ in, uchar4 *__restrict__ out, int w, int h,
                                     int pitch_px)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    uchar4 p = in[(size_t)y * pitch_px + x];
    unsigned char v = (unsigned char)lum(p);
    out[(size_t)y * pitch_px + x] = make_uchar4(v, v, v, p.w);
}

extern "C" __global__ void hand_binarize(const uchar4 *__restrict__ in, uchar4 *__restrict__ out, int w, int h,
                                         int pitch_px, int thr)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    uchar4 p = in[(size_t)y * pitch_px + x];
    unsigned char v = lum(p) >= thr ? 255 : 0;
    out[(size_t)y * pitch_px + x] = make_uchar4(v, v, v, p.w);
}

extern "C" __global__ void hand_diff(const uchar4 *__restrict__ a, const uchar4 *__restrict__ b,
                                     uchar4 *__restrict__ out, int w, int h, int pitch_px, int thr)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    size_t i = (size_t)y * pitch_px + x;
    uchar4 p = a[i], q = b[i];
    int d = abs(p.x - q.x) + abs(p.y - q.y) + abs(p.z - q.z);
    unsigned char v = d >= thr ? 255 : 0;
    out[i] = make_uchar4(v, v, v, 255);
}

__device__ __forceinline__ uchar4 at(const uchar4 *in, int x, int y, int w, int h, int pitch_px)
{
    x = min(max(x, 0), w - 1);
    y = min(max(y, 0), h - 1);
    return in[(size_t)y * pitch_px + x];
}

__device__ __forceinline__ int emb(int tl, int t, int l, int c, int r, int b, int br)
{
    return min(max(-2 * tl - t - l + c + r + b + 2 * br, 0), 255);
}

extern "C" __global__ void hand_emboss(const uchar4 *__restrict__ in, uchar4 *__restrict__ out, int w, int h,
                                       int pitch_px)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    uchar4 tl = at(in, x - 1, y - 1, w, h, pitch_px), t = at(in, x, y - 1, w, h, pitch_px);
    uchar4 l = at(in, x - 1, y, w, h, pitch_px), c = at(in, x, y, w, h, pitch_px);
    uchar4 r = at(in, x + 1, y, w, h, pitch_px), b = at(in, x, y + 1, w, h, pitch_px);
    uchar4 br = at(in, x + 1, y + 1, w, h, pitch_px);
    out[(size_t)y * pitch_px + x] =
        make_uchar4(emb(tl.x, t.x, l.x, c.x, r.x, b.x, br.x), emb(tl.y, t.y, l.y, c.y, r.y, b.y, br.y),
                    emb(tl.z, t.z, l.z, c.z, r.z, b.z, br.z), c.w);
}

extern "C" __global__ void hand_edge(const uchar4 *__restrict__ in, uchar4 *__restrict__ out, int w, int h,
                                     int pitch_px, int thr)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int a = lum(at(in, x - 1, y - 1, w, h, pitch_px)), b = lum(at(in, x, y - 1, w, h, pitch_px));
    int c = lum(at(in, x + 1, y - 1, w, h, pitch_px)), d = lum(at(in, x - 1, y, w, h, pitch_px));
    int f = lum(at(in, x + 1, y, w, h, pitch_px)), g = lum(at(in, x - 1, y + 1, w, h, pitch_px));
    int hh = lum(at(in, x, y + 1, w, h, pitch_px)), i = lum(at(in, x + 1, y + 1, w, h, pitch_px));
    int gx = (c + 2 * f + i) - (a + 2 * d + g), gy = (g + 2 * hh + i) - (a + 2 * b + c);
    int m = abs(gx) + abs(gy);
    m = thr > 0 ? (m >= thr ? 255 : 0) : min(m, 255);
    uchar4 p = at(in, x, y, w, h, pitch_px);
    out[(size_t)y * pitch_px + x] = make_uchar4(m, m, m, p.w);
}

// SAD template matching: one thread per position, the minimum (score, y, x)
// packed into 64 bits and reduced with atomicMin (ties: smallest y, then x).
extern "C" __global__ void hand_sad(const uchar4 *__restrict__ img, int pitch_px, int w, int h,
                                    const uchar4 *__restrict__ tpl, int tpitch_px, int tw, int th,
                                    unsigned long long *best)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > w - tw || y > h - th) return;
    int s = 0;
    for (int j = 0; j < th; j++)
        for (int i = 0; i < tw; i++) {
            uchar4 p = img[(size_t)(y + j) * pitch_px + x + i], q = tpl[(size_t)j * tpitch_px + i];
            s += abs(p.x - q.x) + abs(p.y - q.y) + abs(p.z - q.z);
        }
    atomicMin(best, (unsigned long long)s << 32 | (unsigned long long)y << 16 | (unsigned long long)x);
}

// The same with the SIMD byte absolute difference (__vsadu4), 32-bit loads.
extern "C" __global__ void hand_sad_v(const unsigned *__restrict__ img, int pitch_px, int w, int h,
                                      const unsigned *__restrict__ tpl, int tpitch_px, int tw, int th,
                                      unsigned long long *best)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > w - tw || y > h - th) return;
    unsigned s = 0;
    for (int j = 0; j < th; j++) {
        const unsigned *r = img + (size_t)(y + j) * pitch_px + x, *t = tpl + (size_t)j * tpitch_px;
        for (int i = 0; i < tw; i++)
            s += __vsadu4(r[i] & 0xffffffu, t[i] & 0xffffffu);
    }
    atomicMin(best, (unsigned long long)s << 32 | (unsigned long long)y << 16 | (unsigned long long)x);
}
