/*
 * fuzz_imageio.c - fuzz target for rv_image_read_mem (PGM/PPM/PFM parser).
 *
 * A successful decode is checked for sanity (size within the input, every
 * pixel readable); any crash, sanitizer report or failed check is a bug.
 * Built as a libFuzzer target, or with RV_FUZZ_STANDALONE as a program that
 * replays files and directories given on the command line.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ravioli/ravioli.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(void *opaque, RV_LogLevel lvl, const char *msg)
{
    (void)opaque;
    (void)lvl;
    (void)msg;
}

static RV_Context *fuzz_context(void)
{
    static RV_Context *ctx; /* one per process: the fuzzer calls us millions of times */
    if (!ctx) {
        RV_Settings s;
        rv_settings_default(&s);
        s.backend = RV_BACKEND_CPU;
        s.threads = 1;
        s.log = quiet;
        if (rv_context_create(&ctx, &s) < 0)
            abort();
    }
    return ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    RV_Context *ctx = fuzz_context();
    RV_Image *img = NULL;
    int err = rv_image_read_mem(ctx, data, size, &img);
    if (err < 0) {
        if (img || (err != RV_EBADMSG && err != RV_ENOSYS && err != RV_ENOMEM))
            abort();
        if (strlen(rv_context_error(ctx)) == 0)
            abort();
        return 0;
    }
    int w = rv_image_width(img), h = rv_image_height(img);
    if (!img || w < 1 || h < 1 || (size_t)w * (size_t)h > size)
        abort();
    const RV_FormatInfo *fi = rv_format_info(rv_image_format(img));
    ptrdiff_t pitch;
    const unsigned char *p = rv_image_read(img, 0, &pitch);
    unsigned sum = 0;
    for (int y = 0; y < h; y++)
        for (size_t x = 0; x < (size_t)w * (size_t)fi->sample_bytes; x++)
            sum += p[y * pitch + (ptrdiff_t)x];
    volatile unsigned sink = sum;
    (void)sink;
    rv_image_destroy(&img);
    return 0;
}

#ifdef RV_FUZZ_STANDALONE
#include <dirent.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            unsigned char *nb = realloc(b, cap * 2);
            if (!nb)
                break;
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!b)
        return 1;
    /* Exact-size copy so that ASan sees reads past the end. */
    unsigned char *exact = malloc(n ? n : 1);
    if (!exact) {
        free(b);
        return 1;
    }
    memcpy(exact, b, n);
    free(b);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, fails = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            while (d && (e = readdir(d))) {
                if (e->d_name[0] == '.')
                    continue;
                char path[4096];
                snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
                fails += run_file(path);
                files++;
            }
            if (d)
                closedir(d);
        } else {
            fails += run_file(argv[i]);
            files++;
        }
    }
    printf("rv-fuzz-imageio-replay: %d inputs, %d unreadable\n", files, fails);
    return fails ? 1 : 0;
}
#endif
