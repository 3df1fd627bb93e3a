/*
 * buffer_rows_check.h - rv_buffer_upload_rows / rv_buffer_download_rows on one
 * context, against a byte model of the buffer kept on the host: rows land at
 * their pitch, the bytes between them stay, and bad arguments are RV_EINVAL
 * with a message. Included by test_ops (CPU) and gpu_equivalence (CUDA).
 */
#ifndef RV_BUFFER_ROWS_CHECK_H
#define RV_BUFFER_ROWS_CHECK_H

#include "rv_test.h"

static inline void buffer_rows_check(RV_Context *ctx)
{
    enum { N = 4096 };
    static unsigned char model[N], got[N], host[N];
    RV_Buffer *b = NULL;
    assert_int_equal(rv_buffer_create(ctx, N, &b), 0);
    for (int i = 0; i < N; i++)
        model[i] = (unsigned char)(i * 13 + 5);
    assert_int_equal(rv_buffer_upload(b, 0, model, N), 0);
    /* shapes: offset, buffer pitch, host pitch, row bytes, rows (equal pitches too) */
    static const size_t shapes[][5] = {{5, 17, 20, 13, 7}, {0, 64, 64, 64, 9}, {100, 300, 41, 41, 11},
                                       {1, 1000, 3000, 999, 1}, {3, 2, 7, 1, 50}, {N - 10, 10, 10, 10, 1}};
    for (size_t t = 0; t < sizeof(shapes) / sizeof(shapes[0]); t++) {
        const size_t off = shapes[t][0], bp = shapes[t][1], hp = shapes[t][2], rb = shapes[t][3], rows = shapes[t][4];
        for (size_t i = 0; i < (rows - 1) * hp + rb; i++)
            host[i] = (unsigned char)(i * 7 + t * 31 + 1);
        assert_int_equal(rv_buffer_upload_rows(b, off, bp, host, hp, rb, rows), 0);
        for (size_t r = 0; r < rows; r++)
            memcpy(model + off + r * bp, host + r * hp, rb);
        assert_int_equal(rv_buffer_download(b, 0, got, N), 0);
        assert_memory_equal(got, model, N);
        /* down again at other pitches (the host's gaps keep their 0xEE) */
        const size_t hp2 = rb + t;
        memset(host, 0xEE, sizeof(host));
        assert_int_equal(rv_buffer_download_rows(b, off, bp, host, hp2, rb, rows), 0);
        for (size_t r = 0; r < rows; r++) {
            assert_memory_equal(host + r * hp2, model + off + r * bp, rb);
            for (size_t g = rb; g < hp2 && r + 1 < rows; g++)
                assert_int_equal(host[r * hp2 + g], 0xEE);
        }
    }
    /* a static array is pageable on either backend; no context or pointer: 0 */
    assert_int_equal(rv_host_memory_locked(ctx, host), 0);
    assert_int_equal(rv_host_memory_locked(NULL, host), 0);
    assert_int_equal(rv_host_memory_locked(ctx, NULL), 0);
    /* nothing to do */
    assert_int_equal(rv_buffer_upload_rows(b, 0, 1, NULL, 1, 0, 5), 0);
    assert_int_equal(rv_buffer_download_rows(b, 0, 1, host, 1, 1, 0), 0);
    /* errors, each with a message; the buffer is unchanged */
    assert_int_equal(rv_buffer_upload_rows(NULL, 0, 8, host, 8, 8, 1), RV_EINVAL);
    assert_int_equal(rv_buffer_upload_rows(b, 0, 8, NULL, 8, 8, 1), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "NULL host pointer"));
    assert_int_equal(rv_buffer_upload_rows(b, 0, 7, host, 8, 8, 1), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "at least"));
    assert_int_equal(rv_buffer_download_rows(b, 0, 8, host, 7, 8, 1), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "at least"));
    assert_int_equal(rv_buffer_upload_rows(b, N - 10, 10, host, 10, 10, 2), RV_EINVAL); /* one row too many */
    assert_non_null(strstr(rv_context_error(ctx), "leave"));
    assert_int_equal(rv_buffer_upload_rows(b, N - 9, 10, host, 10, 10, 1), RV_EINVAL);
    assert_int_equal(rv_buffer_upload_rows(b, N + 1, 1, host, 1, 1, 1), RV_EINVAL);
    assert_int_equal(rv_buffer_download_rows(b, 0, SIZE_MAX / 2, host, 1, 1, 3), RV_EINVAL);
    assert_int_equal(rv_buffer_download_rows(b, 0, 1, host, SIZE_MAX / 2, 1, 3), RV_EINVAL);
    assert_non_null(strstr(rv_context_error(ctx), "overflow"));
    assert_int_equal(rv_buffer_download(b, 0, got, N), 0);
    assert_memory_equal(got, model, N);
    rv_buffer_destroy(&b);
}

#endif
