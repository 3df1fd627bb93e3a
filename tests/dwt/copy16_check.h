/*
 * copy16_check.h - checks the DWT module's dwt_copy16 (the benchmarks' copy
 * floor) on a context: sizes with and without a tail, aligned and unaligned
 * bases, and that nothing past the copied words is written.
 */
#ifndef RV_TEST_COPY16_CHECK_H
#define RV_TEST_COPY16_CHECK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rv_test.h"
#include "../../modules/dwt/kernels/dwt_abi.h"

static void copy16_check(RV_Context *c, int gpu)
{
    RV_Module *m = NULL;
    const RV_Kernel *k = NULL;
    assert_int_equal(rv_module_load(c, "dwt", &m), 0);
    assert_int_equal(rv_kernel_get(m, "dwt_copy16", &k), 0);
    const int64_t sizes[] = {1, 3, 4, 5, 4096, 16384, 16385, 100003, 1 << 20};
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        for (int off = 0; off < 2; off++) { /* off: both bases one word past 16-byte alignment */
            const int64_t n = sizes[si], total = n + off + 8;
            uint32_t *in = malloc((size_t)total * 4), *out = malloc((size_t)total * 4);
            assert_non_null(in);
            assert_non_null(out);
            for (int64_t i = 0; i < total; i++)
                in[i] = (uint32_t)(i * 2654435761u) ^ 0xa5a5a5a5u;
            RV_Buffer *bs = NULL, *bd = NULL;
            assert_int_equal(rv_buffer_create(c, (size_t)total * 4, &bs), 0);
            assert_int_equal(rv_buffer_create(c, (size_t)total * 4, &bd), 0);
            assert_int_equal(rv_buffer_upload(bs, 0, in, (size_t)total * 4), 0);
            dwt_copy_args a;
            memset(&a, 0, sizeof(a));
            a.src = rv_buffer_address(bs) + 4ull * (uint64_t)off;
            a.dst = rv_buffer_address(bd) + 4ull * (uint64_t)off;
            a.words = n;
            RV_LaunchShape sh;
            memset(&sh, 0, sizeof(sh));
            const int64_t per = gpu ? 4ll * DWT_COPY_Q * 256 : (n < 65536 ? n : 65536);
            sh.grid[0] = (unsigned)((n + per - 1) / per);
            sh.block[0] = gpu ? 256 : 1;
            assert_int_equal(rv_launch_raw(k, &sh, &a, sizeof(a)), 0);
            assert_int_equal(rv_buffer_download(bd, 0, out, (size_t)total * 4), 0);
            for (int64_t i = 0; i < total; i++) {
                const uint32_t want = i >= off && i < off + n ? in[i] : 0u; /* buffers start zeroed */
                if (out[i] != want)
                    fail_msg("dwt_copy16 (%s) n %lld off %d: word %lld is %08x, want %08x", gpu ? "GPU" : "CPU",
                             (long long)n, off, (long long)i, out[i], want);
            }
            rv_buffer_destroy(&bs);
            rv_buffer_destroy(&bd);
            free(in);
            free(out);
        }
    }
    rv_module_unload(&m);
}

/*
 * dwt_copyrect (the copy of bands back after dwt_l0fused): rows of w words
 * between buffers of different pitches, aligned and unaligned bases, rows
 * of fewer than 4 words and of several blocks; the words beside the rows
 * (the rest of each pitch, the rows after) stay untouched.
 */
static void copyrect_check(RV_Context *c, int gpu)
{
    RV_Module *m = NULL;
    const RV_Kernel *k = NULL;
    assert_int_equal(rv_module_load(c, "dwt", &m), 0);
    assert_int_equal(rv_kernel_get(m, "dwt_copyrect", &k), 0);
    static const int shapes[][2] = {{1, 1}, {3, 5}, {64, 9}, {4097, 3}, {70000, 2}, {1024, 64}};
    for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
        for (int off = 0; off < 2; off++) {
            const int w = shapes[si][0], rows = shapes[si][1];
            /* pitches in words: the source 16-byte aligned, the destination not when off */
            const int sp = (w + 3) / 4 * 4 + 4, dp = w + 8 + off;
            const int64_t stot = (int64_t)sp * rows + 8, dtot = (int64_t)dp * (rows + 1) + 8;
            uint32_t *in = malloc((size_t)stot * 4), *out = malloc((size_t)dtot * 4);
            assert_non_null(in);
            assert_non_null(out);
            for (int64_t i = 0; i < stot; i++)
                in[i] = (uint32_t)(i * 2654435761u) ^ 0x5a5a5a5au;
            RV_Buffer *bs = NULL, *bd = NULL;
            assert_int_equal(rv_buffer_create(c, (size_t)stot * 4, &bs), 0);
            assert_int_equal(rv_buffer_create(c, (size_t)dtot * 4, &bd), 0);
            assert_int_equal(rv_buffer_upload(bs, 0, in, (size_t)stot * 4), 0);
            dwt_rect_args a;
            memset(&a, 0, sizeof(a));
            a.src = rv_buffer_address(bs);
            a.dst = rv_buffer_address(bd) + 4ull * (uint64_t)off;
            a.src_pitch = (int64_t)sp * 4;
            a.dst_pitch = (int64_t)dp * 4;
            a.words = w;
            a.rows = rows;
            RV_LaunchShape sh;
            memset(&sh, 0, sizeof(sh));
            const int per = gpu ? 4 * DWT_COPY_Q * 256 : 65536;
            sh.grid[0] = (unsigned)((w + per - 1) / per);
            sh.grid[1] = (unsigned)rows;
            sh.block[0] = gpu ? 256 : 1;
            assert_int_equal(rv_launch_raw(k, &sh, &a, sizeof(a)), 0);
            assert_int_equal(rv_buffer_download(bd, 0, out, (size_t)dtot * 4), 0);
            for (int64_t i = 0; i < dtot; i++) {
                const int64_t j = i - off, r = j / dp, x = j % dp;
                const uint32_t want = j >= 0 && r < rows && x < w ? in[r * sp + x] : 0u; /* buffers start zeroed */
                if (out[i] != want)
                    fail_msg("dwt_copyrect (%s) %dx%d off %d: word %lld is %08x, want %08x", gpu ? "GPU" : "CPU", w,
                             rows, off, (long long)i, out[i], want);
            }
            rv_buffer_destroy(&bs);
            rv_buffer_destroy(&bd);
            free(in);
            free(out);
        }
    }
    rv_module_unload(&m);
}

#endif
