/*
 * stream_util.h - helpers shared by the streaming tests: the description of
 * a test video, and the thesis' video program (GrayScale, Binarize,
 * EdgeDetect from the samples module) as stage functions.
 *
 * A test that adds kernels of its own embeds rv_test_chain as the first
 * member of its chain struct and hands that struct to
 * rv_stage_vector_push(); the stages here read only the embedded part.
 */
#ifndef RV_TEST_STREAM_UTIL_H
#define RV_TEST_STREAM_UTIL_H

#include "rv_test.h"
#include <ravioli/stream.h>

#include "../../modules/samples/samples_params.h"

/** w x h RGBA8 at 30 fps; frames = -1 for an open-ended source. */
static inline RV_VideoInfo rv_test_video_info(int w, int h, long long frames)
{
    RV_VideoInfo vi;
    memset(&vi, 0, sizeof(vi));
    vi.width = w;
    vi.height = h;
    vi.format = RV_FMT_RGBA8;
    vi.fps_num = 30;
    vi.fps_den = 1;
    vi.frames = frames;
    return vi;
}

/** A test source of n frames: fill() writes frame `index` into the frame's
 *  first plane. It runs on the capture thread: no cmocka asserts in fill. */
typedef void (*rv_test_fill_fn)(unsigned char *d, ptrdiff_t pitch, int index);

typedef struct rv_test_src {
    rv_test_fill_fn fill;
    int n;
    int next;
} rv_test_src;

static inline int rv_test_src_read(void *user, RV_Image *frame, long long *pts, int timeout_ms)
{
    rv_test_src *s = user;
    (void)timeout_ms;
    if (s->next >= s->n)
        return RV_EPIPE;
    ptrdiff_t pitch;
    unsigned char *d = rv_image_write(frame, 0, &pitch);
    if (!d)
        return RV_EIO;
    s->fill(d, pitch, s->next);
    if (pts)
        *pts = 0;
    s->next++;
    return 0;
}

/** One run of sv over a fresh stream of src (frames 0..n-1) with the given
 *  settings: the summary in *sum; returns run()'s result and prints the
 *  context's message when it failed. */
static inline int rv_test_stream_run(RV_Context *ctx, const RV_VideoInfo *vi, rv_test_fill_fn fill, int n,
                                     const RV_StreamSettings *set, RV_StageVector *sv, RV_StreamSummary *sum)
{
    rv_test_src src = {fill, n, 0};
    RV_Streaming *st = NULL;
    assert_int_equal(rv_streaming_create_custom(ctx, vi, rv_test_src_read, &src, set, &st), 0);
    int err = rv_streaming_run(st, sv);
    if (err)
        fprintf(stderr, "run: %s: %s\n", rv_strerror(err), rv_context_error(ctx));
    assert_int_equal(rv_streaming_summary(st, sum), 0);
    rv_streaming_destroy(&st);
    return err;
}

#define RV_TEST_FNV0 0xcbf29ce484222325ULL

/** FNV-1a over n bytes, continuing from h (start with RV_TEST_FNV0). */
static inline uint64_t rv_test_fnv(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        h ^= p[k];
        h *= 0x100000001b3ULL;
    }
    return h;
}

typedef struct rv_test_chain {
    RV_Module *samples;
    const RV_Kernel *gray, *bin, *edge;
    int bin_threshold;
} rv_test_chain;

/** Loads the three kernels; rv_test_chain_unload() when done. */
static inline void rv_test_chain_load(RV_Context *ctx, rv_test_chain *c, int bin_threshold)
{
    memset(c, 0, sizeof(*c));
    assert_int_equal(rv_module_load(ctx, "samples", &c->samples), 0);
    assert_int_equal(rv_kernel_get(c->samples, "gray", &c->gray), 0);
    assert_int_equal(rv_kernel_get(c->samples, "binarize", &c->bin), 0);
    assert_int_equal(rv_kernel_get(c->samples, "edge", &c->edge), 0);
    c->bin_threshold = bin_threshold;
}

static inline void rv_test_chain_unload(rv_test_chain *c)
{
    rv_module_unload(&c->samples);
}

static inline void rv_test_st_gray(RV_Image *f, RV_Data *d)
{
    const rv_test_chain *c = rv_data_user(d);
    rv_data_check(d, rv_proc_pix(c->gray, f, f, NULL, 0));
}

static inline void rv_test_st_bin(RV_Image *f, RV_Data *d)
{
    const rv_test_chain *c = rv_data_user(d);
    rv_threshold_params p = {c->bin_threshold};
    rv_data_check(d, rv_proc_pix(c->bin, f, f, &p, sizeof(p)));
}

static inline void rv_test_st_edge(RV_Image *f, RV_Data *d)
{
    const rv_test_chain *c = rv_data_user(d);
    rv_threshold_params p = {0};
    rv_data_check(d, rv_proc_nbr(c->edge, f, f, &p, sizeof(p)));
}

#endif
