/*
 * plain.h - the thesis' sample programs as plain hand-written C loops
 * (no ravioli). They define what each sample computes; the tests compare
 * ravioli's results with them and the CPU benchmark times ravioli against
 * them. Images are packed RGBA8 (uint32_t, R in the low byte), pitches in
 * bytes. Borders of neighbourhood filters are clamped.
 */
#ifndef RV_PLAIN_H
#define RV_PLAIN_H

#include <stddef.h>
#include <stdint.h>

void plain_gray(const uint32_t *src, ptrdiff_t sp, uint32_t *dst, ptrdiff_t dp, int w, int h);
void plain_binarize(const uint32_t *src, ptrdiff_t sp, uint32_t *dst, ptrdiff_t dp, int w, int h,
                    int threshold);
void plain_edge(const uint32_t *src, ptrdiff_t sp, uint32_t *dst, ptrdiff_t dp, int w, int h,
                int threshold);
void plain_emboss(const uint32_t *src, ptrdiff_t sp, uint32_t *dst, ptrdiff_t dp, int w, int h);
void plain_diff(const uint32_t *a, ptrdiff_t ap, const uint32_t *b, ptrdiff_t bp, uint32_t *dst,
                ptrdiff_t dp, int w, int h, int threshold);
/* SAD template matching: the top-left (x, y) of the best window; ties go to
 * the smallest y, then x. Returns the best SAD. */
int64_t plain_sad_match(const uint32_t *img, ptrdiff_t ip, int w, int h, const uint32_t *tpl,
                        ptrdiff_t tp, int tw, int th, int *best_x, int *best_y);

#endif
