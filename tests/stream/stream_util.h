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
