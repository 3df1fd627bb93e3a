/*
 * dwt_ref.h - an independent float64 / integer reference of the lifting
 * transforms, written from the lifting equations: the signal is extended
 * symmetrically (whole-sample) into a longer array, the steps run over the
 * extended array on interleaved positions, and the middle is kept.
 */
#ifndef DWT_REF_H
#define DWT_REF_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ravioli/dwt.h>

#define REF_E 12 /* extension on each side */

static inline int ref_reflect(int p, int n)
{
    /* period 2n-2 symmetric extension */
    const int per = 2 * n - 2;
    p %= per;
    if (p < 0)
        p += per;
    return p < n ? p : per - p;
}

static inline long long ref_floordiv(long long a, long long b)
{
    long long q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* One level on a line of n samples: out = [S (ceil) | D (floor)]; n == 1 copies. */
static inline void ref_line(RV_DwtWavelet wv, int integer, const double *in, double *out, int n)
{
    if (n < 2) {
        if (n == 1)
            out[0] = in[0];
        return;
    }
    const int N = n + 2 * REF_E;
    double *x = malloc(sizeof(double) * (size_t)N);
    for (int i = 0; i < N; i++)
        x[i] = in[ref_reflect(i - REF_E, n)];
    /* position i of x is signal position i - REF_E; odd signal positions are D */
#define ODD(i) ((((i) - REF_E) & 1) != 0)
    switch (wv) {
    case RV_DWT_HAAR: {
        /* pairs (x[2k], x[2k+1]); for odd n the unpaired last sample is updated
         * with the last detail (the detail sequence extended symmetrically) */
        const int nH = n / 2;
        double *dd = malloc(sizeof(double) * (size_t)(nH + 1));
        for (int k = 0; k < nH; k++)
            dd[k] = in[2 * k + 1] - in[2 * k];
        for (int k = 0; k < nH; k++)
            x[REF_E + 2 * k + 1] = dd[k];
        for (int k = 0; 2 * k < n; k++) {
            const double dk = dd[k < nH ? k : nH - 1];
            x[REF_E + 2 * k] = integer ? in[2 * k] + (double)ref_floordiv((long long)dk, 2) : in[2 * k] + dk / 2;
        }
        free(dd);
        break;
    }
    case RV_DWT_CDF53:
        for (int i = 1; i + 1 < N; i++)
            if (ODD(i))
                x[i] = integer ? x[i] - (double)ref_floordiv((long long)(x[i - 1] + x[i + 1]), 2)
                               : x[i] - (x[i - 1] + x[i + 1]) / 2;
        for (int i = 2; i + 2 < N; i++)
            if (!ODD(i))
                x[i] = integer ? x[i] + (double)ref_floordiv((long long)(x[i - 1] + x[i + 1] + 2), 4)
                               : x[i] + (x[i - 1] + x[i + 1]) / 4;
        break;
    case RV_DWT_CDF97: {
        const double a = -1.586134342059924, b = -0.052980118572961, g = 0.882911075530934,
                     dl = 0.443506852043971, K = 1.230174104914001;
        for (int i = 1; i + 1 < N; i++)
            if (ODD(i))
                x[i] += a * (x[i - 1] + x[i + 1]);
        for (int i = 2; i + 2 < N; i++)
            if (!ODD(i))
                x[i] += b * (x[i - 1] + x[i + 1]);
        for (int i = 3; i + 3 < N; i++)
            if (ODD(i))
                x[i] += g * (x[i - 1] + x[i + 1]);
        for (int i = 4; i + 4 < N; i++)
            if (!ODD(i))
                x[i] += dl * (x[i - 1] + x[i + 1]);
        for (int i = 0; i < N; i++)
            x[i] = ODD(i) ? x[i] * K : x[i] / K;
        break;
    }
    case RV_DWT_DD137:
        for (int i = 3; i + 3 < N; i++)
            if (ODD(i)) {
                const double v = 9 * (x[i - 1] + x[i + 1]) - (x[i - 3] + x[i + 3]);
                x[i] -= integer ? (double)ref_floordiv((long long)v + 8, 16) : v / 16;
            }
        for (int i = 6; i + 6 < N; i++)
            if (!ODD(i)) {
                const double v = 9 * (x[i - 1] + x[i + 1]) - (x[i - 3] + x[i + 3]);
                x[i] += integer ? (double)ref_floordiv((long long)v + 16, 32) : v / 32;
            }
        break;
    }
#undef ODD
    const int nS = (n + 1) / 2;
    for (int k = 0; k < n; k++)
        out[(k & 1) ? nS + k / 2 : k / 2] = x[REF_E + k];
    free(x);
}

/*
 * Multi-level transform of a w x h array (row-major, stride w) in place:
 * block layout (Mallat) or interleaved; dims 2 (rows then columns) or 1.
 */
static inline void ref_forward(RV_DwtWavelet wv, int integer, int interleaved, int dims, double *a, int w, int h,
                               int levels)
{
    if (w < 1 || h < 1)
        return;
    const int mx = w > h ? w : h;
    double *li = malloc(sizeof(double) * (size_t)mx), *lo = malloc(sizeof(double) * (size_t)mx);
    int lw = w, lh = h;
    for (int l = 0; l < levels; l++) {
        const int st = interleaved ? 1 << l : 1;
        const int rows = dims == 2 ? lh : h;
        if (lw >= 2)
            for (int r = 0; r < rows; r++) {
                const int y = dims == 2 ? r * st : r;
                for (int k = 0; k < lw; k++)
                    li[k] = a[(size_t)y * w + (size_t)k * st];
                ref_line(wv, integer, li, lo, lw);
                const int nS = (lw + 1) / 2;
                for (int k = 0; k < lw; k++) {
                    /* block index k -> interleaved position */
                    const int pos = !interleaved ? k : (k < nS ? 2 * k : 2 * (k - nS) + 1);
                    a[(size_t)y * w + (size_t)pos * st] = lo[k];
                }
            }
        if (dims == 2 && lh >= 2)
            for (int c = 0; c < lw; c++) {
                const int x = c * st;
                for (int k = 0; k < lh; k++)
                    li[k] = a[(size_t)k * st * w + x];
                ref_line(wv, integer, li, lo, lh);
                const int nS = (lh + 1) / 2;
                for (int k = 0; k < lh; k++) {
                    const int pos = !interleaved ? k : (k < nS ? 2 * k : 2 * (k - nS) + 1);
                    a[(size_t)pos * st * w + x] = lo[k];
                }
            }
        lw = (lw + 1) / 2;
        if (dims == 2)
            lh = (lh + 1) / 2;
    }
    free(li);
    free(lo);
}

#endif
