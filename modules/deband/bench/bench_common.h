/* bench_common.h - helpers shared by the deband benchmarks. */
#ifndef RV_DEBAND_BENCH_COMMON_H
#define RV_DEBAND_BENCH_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ravioli/deband.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Banded test content: a slow gradient quantised to the sample depth, with
 * some texture and edges; `k` varies it from frame to frame. */
static inline int bench_fill(RV_Image *img, int k)
{
    const RV_FormatInfo *fi = rv_format_info(rv_image_format(img));
    const int d16 = fi->sample_bytes == 2;
    uint32_t st = 0x12345u + (uint32_t)k * 7919u;
    for (int p = 0; p < rv_image_planes(img); p++) {
        const int w = rv_image_plane_width(img, p), h = rv_image_plane_height(img, p);
        ptrdiff_t pitch;
        unsigned char *base = rv_image_write(img, p, &pitch);
        if (!base)
            return -1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                st = st * 1664525u + 1013904223u;
                double v = 60.0 + 40.0 * x / w + 30.0 * y / h + k;
                if (((x + k) / 97 + y / 61) % 4 == 0)
                    v += 50.0;
                if ((st >> 28) == 0)
                    v += (double)((int)(st >> 24 & 7) - 4);
                if (d16)
                    ((uint16_t *)(void *)(base + y * pitch))[x] = (uint16_t)(v * 256.0 + (st >> 20 & 63));
                else
                    base[y * pitch + x] = (unsigned char)v;
            }
    }
    return 0;
}

/* Bytes of all planes of a w x h image of format f. */
static inline double bench_frame_bytes(int w, int h, RV_Format f)
{
    const RV_FormatInfo *fi = rv_format_info(f);
    double n = (double)w * h;
    if (fi->planes == 3) {
        const int cw = (w + (1 << fi->chroma_shift_x) - 1) >> fi->chroma_shift_x;
        const int ch = (h + (1 << fi->chroma_shift_y) - 1) >> fi->chroma_shift_y;
        n += 2.0 * cw * ch;
    }
    return n * fi->sample_bytes;
}

static inline double bench_min(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

#endif
