/*
 * deband_ref.h - an independent scalar reference of the deband filter,
 * written from the definition in docs/deband.md (not from the kernels):
 * plain loops, explicit per-mode code, and its own copies of the hash.
 */
#ifndef DEBAND_REF_H
#define DEBAND_REF_H

#include <stdint.h>
#include <stdlib.h>

#include <ravioli/deband.h>

static inline uint32_t ref_mix(uint32_t x)
{
    x = (x ^ (x >> 16)) * 0x7feb352du;
    x = (x ^ (x >> 15)) * 0x846ca68bu;
    return x ^ (x >> 16);
}

/* uniform in [-r, r] from `bits` random bits u: floor(u * (2r+1) / 2^bits) - r */
static inline int ref_rr(uint32_t u, int bits, int r)
{
    return (int)(((uint64_t)u * (uint64_t)(2 * r + 1)) >> bits) - r;
}

static inline int ref_min(int a, int b) { return a < b ? a : b; }

/* The hash of sample (x, y): one hash per group of 4 samples of a row
 * (counter: key + golden-ratio step per row + x / 4), then one
 * multiply-xorshift per sample with its group position's multiplier. */
static inline uint32_t ref_hash(uint32_t kref, int x, int y)
{
    static const uint32_t kmul[4] = {0x85ebca6bu, 0xc2b2ae35u, 0x27d4eb2fu, 0x165667b1u};
    const uint32_t hgrp = ref_mix(kref + 0x9e3779b9u * (uint32_t)y + (uint32_t)(x / 4));
    const uint32_t m = hgrp * kmul[x % 4];
    return m ^ (m >> 16);
}

/*
 * Debands one plane. in/out hold samples (in: at depth din; out: at dout),
 * w*h each, row-major without padding. p is the plane index.
 */
static inline void ref_deband_plane(const uint16_t *in, uint16_t *out, int w, int h, int din, int dout,
                             const RV_DebandSettings *s, int p, int64_t frame)
{
    const int units = p == 0 ? s->y : p == 1 ? s->cb : s->cr;
    const int thr = units * 16;
    const int grain = units == 0 ? 0 : (p == 0 ? s->grainy : s->grainc) * 4;
    const uint32_t kref = ref_mix(ref_mix(s->seed) + 0x9e3779b9u * (uint32_t)(2 * p + 1));
    uint32_t fkey = 0;
    if (s->dynamic_grain) {
        const uint64_t u = (uint64_t)frame;
        fkey = ref_mix((uint32_t)(u & 0xffffffffu) ^ ref_mix((uint32_t)(u >> 32) + 0x6a09e667u));
    }
    const uint32_t kgrain =
        ref_mix(ref_mix(s->seed ^ 0x85ebca6bu) + 0x9e3779b9u * (uint32_t)(2 * p + 2) + fkey);
#define S(xx, yy) ((int)in[(size_t)(yy) * (size_t)w + (size_t)(xx)] << (16 - din))
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int rl = s->range;
            rl = ref_min(rl, x);
            rl = ref_min(rl, w - 1 - x);
            rl = ref_min(rl, y);
            rl = ref_min(rl, h - 1 - y);
            const uint32_t h1 = ref_hash(kref, x, y);
            const int a = ref_rr((h1 / 256u) % 4096u, 12, rl); /* bits 8-19 */
            const int b = ref_rr(h1, 32, rl);          /* all 32 bits (the top ones) */
            int da = a, db = b;
            if (s->interlaced) { /* toward zero to the even neighbour */
                da = a - a % 2;
                db = b - b % 2;
            }
            const int c = S(x, y);
            int avg, diff;
            if (s->sample_mode == 0) {
                const int r0 = S(x + b, y + da);
                avg = r0;
                diff = abs(c - r0);
            } else if (s->sample_mode == 1) {
                const int r0 = S(x + b, y + da), r1 = S(x - b, y - da);
                avg = (int)((r0 + r1) / 2.0 + 0.5);
                if (s->blur_first) {
                    diff = abs(c - avg);
                } else {
                    diff = abs(c - r0);
                    if (abs(c - r1) > diff) diff = abs(c - r1);
                }
            } else {
                int r[4];
                r[0] = S(x + b, y + da);
                r[1] = S(x - b, y - da);
                r[2] = S(x + a, y - db);
                r[3] = S(x - a, y + db);
                avg = (int)((r[0] + r[1] + r[2] + r[3]) / 4.0 + 0.5);
                if (s->blur_first) {
                    diff = abs(c - avg);
                } else {
                    diff = 0;
                    for (int i = 0; i < 4; i++)
                        if (abs(c - r[i]) > diff) diff = abs(c - r[i]);
                }
            }
            int v = diff < thr ? avg : c;
            if (grain > 0) {
                /* bits 0-7 of h1, or of a frame-dependent hash of it */
                const uint32_t g = s->dynamic_grain ? ref_mix(h1 ^ kgrain) : h1;
                v += ref_rr(g % 256u, 8, grain);
                if (v < 0) v = 0;
                if (v > 65535) v = 65535;
            }
            if (dout == 8) {
                v = (int)((double)v / 256.0 + 0.5);
                if (v > 255) v = 255;
            }
            out[(size_t)y * (size_t)w + (size_t)x] = (uint16_t)v;
        }
    }
#undef S
}

/* ---- image <-> arrays ---- */

static inline int img_depth(RV_Image *img)
{
    return rv_format_info(rv_image_format(img))->sample_bytes == 2 ? 16 : 8;
}

/* Copies plane p of img into a new w*h array of samples. */
static inline uint16_t *img_get_plane(RV_Image *img, int p)
{
    const int w = rv_image_plane_width(img, p), h = rv_image_plane_height(img, p);
    const int d16 = img_depth(img) == 16;
    ptrdiff_t pitch;
    const unsigned char *base = rv_image_read(img, p, &pitch);
    if (!base)
        return NULL;
    uint16_t *a = malloc((size_t)w * (size_t)h * sizeof(*a));
    if (!a)
        return NULL;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            a[(size_t)y * w + x] = d16 ? ((const uint16_t *)(const void *)(base + y * pitch))[x]
                                       : base[y * pitch + x];
    return a;
}

static inline int img_set_plane(RV_Image *img, int p, const uint16_t *a)
{
    const int w = rv_image_plane_width(img, p), h = rv_image_plane_height(img, p);
    const int d16 = img_depth(img) == 16;
    ptrdiff_t pitch;
    unsigned char *base = rv_image_write(img, p, &pitch);
    if (!base)
        return -1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (d16)
                ((uint16_t *)(void *)(base + y * pitch))[x] = a[(size_t)y * w + x];
            else
                base[y * pitch + x] = (unsigned char)a[(size_t)y * w + x];
        }
    return 0;
}

/* A test picture: a gentle gradient with small noise (many banded pixels)
 * and a few hard steps (edges), at depth `depth`. */
static inline void fill_test_plane(uint16_t *a, int w, int h, int depth, int p, uint64_t seed)
{
    uint64_t st = seed * 0x9E3779B97F4A7C15ull + 0x1234567ull + (uint64_t)p;
    const int maxv = (1 << depth) - 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            st ^= st << 13; st ^= st >> 7; st ^= st << 17;
            double v = 0.3 + 0.2 * x / (w + 1.0) + 0.1 * y / (h + 1.0);
            if ((x / 11 + y / 9) % 5 == 0)
                v += 0.25; /* edges */
            v *= maxv;
            v += (double)((int)(st % 7) - 3) * (depth == 16 ? 97.0 : 0.5);
            if (v < 0) v = 0;
            if (v > maxv) v = maxv;
            a[(size_t)y * w + x] = (uint16_t)v;
        }
}

#endif
