/*
 * plain.c - the sample programs as plain C loops (see plain.h).
 */
#include "plain.h"

#define ROW(T, base, pitch, y) ((T *)((const unsigned char *)(base) + (ptrdiff_t)(y) * (pitch)))
#define R(p) ((int)((p) & 0xff))
#define G(p) ((int)(((p) >> 8) & 0xff))
#define B(p) ((int)(((p) >> 16) & 0xff))
#define A(p) ((uint32_t)(p) & 0xff000000u)

static inline uint32_t grey_px(uint32_t p, int v)
{
    return A(p) | (uint32_t)v | (uint32_t)v << 8 | (uint32_t)v << 16;
}

void plain_gray(const uint32_t *src, ptrdiff_t sp, uint32_t *dst, ptrdiff_t dp, int w, int h)
{
    for (int y = 0; y < h; y++) {
        const uint32_t *s = ROW(const uint32_t, src, sp, y);
        uint32_t *d = ROW(uint32_t, dst, dp, y);
        for (int x = 0; x < w; x++) {
            uint32_t p = s[x];
            d[x] = grey_px(p, (R(p) + G(p) + B(p)) / 3);
        }
    }
}

void plain_binarize(const uint32_t *src, ptrdiff_t sp, uint32_t *dst, ptrdiff_t dp, int w, int h,
                    int threshold)
{
    for (int y = 0; y < h; y++) {
        const uint32_t *s = ROW(const uint32_t, src, sp, y);
        uint32_t *d = ROW(uint32_t, dst, dp, y);
        for (int x = 0; x < w; x++) {
            uint32_t p = s[x];
            d[x] = grey_px(p, (R(p) + G(p) + B(p)) / 3 >= threshold ? 255 : 0);
        }
    }
}

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static inline int lum_at(const uint32_t *src, ptrdiff_t sp, int w, int h, int x, int y)
{
    uint32_t p = ROW(const uint32_t, src, sp, clampi(y, 0, h - 1))[clampi(x, 0, w - 1)];
    return (R(p) + G(p) + B(p)) / 3;
}

void plain_edge(const uint32_t *src, ptrdiff_t sp, uint32_t *dst, ptrdiff_t dp, int w, int h,
                int threshold)
{
    for (int y = 0; y < h; y++) {
        uint32_t *d = ROW(uint32_t, dst, dp, y);
        for (int x = 0; x < w; x++) {
            int a = lum_at(src, sp, w, h, x - 1, y - 1), b = lum_at(src, sp, w, h, x, y - 1);
            int c = lum_at(src, sp, w, h, x + 1, y - 1), l = lum_at(src, sp, w, h, x - 1, y);
            int r = lum_at(src, sp, w, h, x + 1, y), g = lum_at(src, sp, w, h, x - 1, y + 1);
            int m = lum_at(src, sp, w, h, x, y + 1), i = lum_at(src, sp, w, h, x + 1, y + 1);
            int gx = (c + 2 * r + i) - (a + 2 * l + g);
            int gy = (g + 2 * m + i) - (a + 2 * b + c);
            int v = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
            v = threshold > 0 ? (v >= threshold ? 255 : 0) : (v > 255 ? 255 : v);
            d[x] = grey_px(ROW(const uint32_t, src, sp, y)[x], v);
        }
    }
}

void plain_emboss(const uint32_t *src, ptrdiff_t sp, uint32_t *dst, ptrdiff_t dp, int w, int h)
{
    /* kernel [-2 -1 0; -1 1 1; 0 1 2] per channel, clamped to 0..255 */
    static const int k[3][3] = {{-2, -1, 0}, {-1, 1, 1}, {0, 1, 2}};
    for (int y = 0; y < h; y++) {
        uint32_t *d = ROW(uint32_t, dst, dp, y);
        for (int x = 0; x < w; x++) {
            int acc[3] = {0, 0, 0};
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    uint32_t p = ROW(const uint32_t, src, sp, clampi(y + dy, 0, h - 1))[clampi(x + dx, 0, w - 1)];
                    int c = k[dy + 1][dx + 1];
                    acc[0] += c * R(p);
                    acc[1] += c * G(p);
                    acc[2] += c * B(p);
                }
            uint32_t centre = ROW(const uint32_t, src, sp, y)[x];
            d[x] = A(centre) | (uint32_t)clampi(acc[0], 0, 255) | (uint32_t)clampi(acc[1], 0, 255) << 8 |
                   (uint32_t)clampi(acc[2], 0, 255) << 16;
        }
    }
}

static inline int absdiff_px(uint32_t p, uint32_t q)
{
    int r = R(p) - R(q), g = G(p) - G(q), b = B(p) - B(q);
    return (r < 0 ? -r : r) + (g < 0 ? -g : g) + (b < 0 ? -b : b);
}

void plain_diff(const uint32_t *a, ptrdiff_t ap, const uint32_t *b, ptrdiff_t bp, uint32_t *dst,
                ptrdiff_t dp, int w, int h, int threshold)
{
    for (int y = 0; y < h; y++) {
        const uint32_t *pa = ROW(const uint32_t, a, ap, y), *pb = ROW(const uint32_t, b, bp, y);
        uint32_t *d = ROW(uint32_t, dst, dp, y);
        for (int x = 0; x < w; x++)
            d[x] = grey_px(0xff000000u, absdiff_px(pa[x], pb[x]) >= threshold ? 255 : 0);
    }
}

int64_t plain_sad_match(const uint32_t *img, ptrdiff_t ip, int w, int h, const uint32_t *tpl,
                        ptrdiff_t tp, int tw, int th, int *best_x, int *best_y)
{
    int64_t best = -1;
    int bx = 0, by = 0;
    for (int y = 0; y + th <= h; y++)
        for (int x = 0; x + tw <= w; x++) {
            int64_t s = 0;
            for (int j = 0; j < th; j++) {
                const uint32_t *ir = ROW(const uint32_t, img, ip, y + j) + x;
                const uint32_t *tr = ROW(const uint32_t, tpl, tp, j);
                for (int i = 0; i < tw; i++)
                    s += absdiff_px(ir[i], tr[i]);
            }
            if (best < 0 || s < best) {
                best = s;
                bx = x;
                by = y;
            }
        }
    *best_x = bx;
    *best_y = by;
    return best;
}
