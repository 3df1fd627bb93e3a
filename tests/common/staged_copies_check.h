/*
 * staged_copies_check.h - rv_buffer_upload / download and their _rows forms
 * between a CUDA context's buffers and host memory large enough to be
 * staged (cuda_backend.c, "Staged copies"), against a byte model.
 */
#ifndef RV_STAGED_COPIES_CHECK_H
#define RV_STAGED_COPIES_CHECK_H

#include "rv_test.h"

/*
 * Copies between device buffers and pageable host memory of 4 MiB or more go
 * through the context's page-locked staging buffers (cuda_backend.c, "Staged
 * copies"), chunk by chunk: contiguous copies over several chunks with a
 * partial last one, rows whose size does not divide a chunk, one row longer
 * than a chunk, pitches on both sides, against a byte model; and
 * page-locked memory (an image's plane, a pointer inside the allocation)
 * going straight, rv_host_memory_locked telling the two apart. Run on a GPU
 * by gpu_equivalence and on the fake driver (fake_cuda.c) by
 * test_cuda_copies.
 */
static inline void staged_copies_check(RV_Context *c)
{
    const size_t N = (size_t)40 << 20;
    unsigned char *model = malloc(N), *got = malloc(N), *host = malloc(N);
    assert_non_null(model);
    assert_non_null(got);
    assert_non_null(host);
    uint64_t rs = 99;
    for (size_t i = 0; i < N; i += 8) {
        const uint64_t v = rv_test_rand(&rs);
        memcpy(model + i, &v, 8);
    }
    RV_Buffer *b = NULL;
    assert_int_equal(rv_buffer_create(c, N, &b), 0);
    /* contiguous: 2.5 chunks at an odd offset, then the whole buffer */
    const size_t n1 = ((size_t)20 << 20) + 12345;
    assert_int_equal(rv_buffer_upload(b, 0, model, N), 0);
    for (size_t i = 0; i < n1; i++)
        host[i] = (unsigned char)(i * 29 + 3);
    assert_int_equal(rv_buffer_upload(b, 7, host, n1), 0);
    memcpy(model + 7, host, n1);
    memset(got, 0, N);
    assert_int_equal(rv_buffer_download(b, 0, got, N), 0);
    assert_memory_equal(got, model, N);
    memset(got, 0xAB, N);
    assert_int_equal(rv_buffer_download(b, 1000, got + 3, n1), 0);
    assert_memory_equal(got + 3, model + 1000, n1);
    assert_int_equal(got[2], 0xAB);
    assert_int_equal(got[3 + n1], 0xAB);
    /* rows: 3000 bytes (no divisor of a chunk), 6000 rows, pitches 3072 / 3100 */
    {
        const size_t rb = 3000, rows = 6000, bp = 3072, hp = 3100, off = 11;
        for (size_t i = 0; i < (rows - 1) * hp + rb; i++)
            host[i] = (unsigned char)(i * 7 + 1);
        assert_int_equal(rv_buffer_upload_rows(b, off, bp, host, hp, rb, rows), 0);
        for (size_t r = 0; r < rows; r++)
            memcpy(model + off + r * bp, host + r * hp, rb);
        assert_int_equal(rv_buffer_download(b, 0, got, N), 0);
        assert_memory_equal(got, model, N);
        const size_t hp2 = 3001;
        memset(host, 0xEE, N);
        assert_int_equal(rv_buffer_download_rows(b, off, bp, host, hp2, rb, rows), 0);
        for (size_t r = 0; r < rows; r++) {
            assert_memory_equal(host + r * hp2, model + off + r * bp, rb);
            if (r + 1 < rows)
                assert_int_equal(host[r * hp2 + rb], 0xEE);
        }
    }
    /* one row longer than a chunk */
    {
        const size_t rb = ((size_t)9 << 20) + 5, off = 100;
        for (size_t i = 0; i < rb; i++)
            host[i] = (unsigned char)(i * 13 + 9);
        assert_int_equal(rv_buffer_upload_rows(b, off, rb + 64, host, rb + 32, rb, 1), 0);
        memcpy(model + off, host, rb);
        memset(got, 0, N);
        assert_int_equal(rv_buffer_download_rows(b, off, rb + 64, got, rb, rb, 1), 0);
        assert_memory_equal(got, model + off, rb);
    }
    /* page-locked: an image plane (a pointer inside the backend's allocation) */
    {
        RV_Image *img = NULL;
        assert_int_equal(rv_image_create(c, 2048, 1024, RV_FMT_GRAYF32, &img), 0);
        ptrdiff_t pitch = 0;
        unsigned char *p = rv_image_write(img, 0, &pitch);
        assert_non_null(p);
        assert_int_equal(rv_host_memory_locked(c, p), 1);
        assert_int_equal(rv_host_memory_locked(c, host), 0);
        assert_int_equal(rv_buffer_download_rows(b, 0, 8192, p, (size_t)pitch, 8192, 1024), 0);
        for (size_t r = 0; r < 1024; r++)
            assert_memory_equal(p + r * (size_t)pitch, model + r * 8192, 8192);
        memset(p, 0x5A, 8192);
        assert_int_equal(rv_buffer_upload_rows(b, 0, 8192, p, (size_t)pitch, 8192, 1024), 0);
        memset(model, 0x5A, 8192);
        assert_int_equal(rv_buffer_download(b, 0, got, N), 0);
        assert_memory_equal(got, model, N);
        rv_image_destroy(&img);
    }
    rv_buffer_destroy(&b);
    free(model);
    free(got);
    free(host);
}

#endif
