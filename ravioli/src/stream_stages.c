/*
 * stream_stages.c - RV_StageVector and RV_Data: the per-frame chain of
 * stage functions (thesis 3.3.2), its scratch images and its key/value
 * store of reduction results.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream_internal.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---------------------------------------------------------------- */
/* RV_Data                                                            */
/* ---------------------------------------------------------------- */

RV_API RV_Context *rv_data_context(const RV_Data *d) { return d ? d->ctx : NULL; }
RV_API const RV_FrameMeta *rv_data_frame(const RV_Data *d) { return d ? &d->meta : NULL; }
RV_API void *rv_data_user(const RV_Data *d) { return d ? d->user : NULL; }
RV_API const char *rv_data_stage_name(const RV_Data *d) { return d && d->stage_name ? d->stage_name : ""; }
RV_API int rv_data_stage_index(const RV_Data *d) { return d ? d->stage : -1; }
RV_API int rv_data_slot(const RV_Data *d) { return d ? d->job : 0; }

static int valid_name(const char *s, size_t max)
{
    return s && s[0] && strlen(s) <= max;
}

RV_API int rv_data_image(RV_Data *d, const char *name, int w, int h, RV_Format fmt, RV_Image **out)
{
    if (!d)
        return RV_EINVAL;
    if (!out || !valid_name(name, RV_DATA_KEY_MAX))
        return rv__error(d->ctx, RV_EINVAL, "rv_data_image: a name of 1..%d characters and out are required",
                         RV_DATA_KEY_MAX);
    *out = NULL;
    rv_scratch *slot = NULL;
    for (int i = 0; i < d->nscratch; i++)
        if (d->scratch[i].job == d->job && strcmp(d->scratch[i].name, name) == 0) {
            slot = &d->scratch[i];
            break;
        }
    if (slot && slot->img && rv_image_width(slot->img) == w && rv_image_height(slot->img) == h &&
        rv_image_format(slot->img) == fmt) {
        *out = slot->img;
        return 0;
    }
    if (!slot) {
        if (d->nscratch == d->scratch_cap) {
            int cap = d->scratch_cap ? d->scratch_cap * 2 : 8;
            rv_scratch *ns = realloc(d->scratch, (size_t)cap * sizeof(*ns));
            if (!ns)
                return rv__error(d->ctx, RV_ENOMEM, "rv_data_image: out of memory");
            d->scratch = ns;
            d->scratch_cap = cap;
        }
        slot = &d->scratch[d->nscratch++];
        memset(slot, 0, sizeof(*slot));
        snprintf(slot->name, sizeof(slot->name), "%s", name);
        slot->job = d->job;
    }
    if (slot->img && d->frame_out == slot->img)
        d->frame_out = NULL; /* never hand out a destroyed image */
    rv_image_destroy(&slot->img);
    int err = rv_image_create(d->ctx, w, h, fmt, &slot->img);
    if (err < 0)
        return err;
    *out = slot->img;
    return 0;
}

RV_API int rv_data_set_frame(RV_Data *d, RV_Image *img)
{
    if (!d)
        return RV_EINVAL;
    if (!img || rv_image_context(img) != d->ctx)
        return rv__error(d->ctx, RV_EINVAL, "rv_data_set_frame: image missing or of another context");
    d->frame_out = img;
    return 0;
}

static rv_kv *kv_find(const RV_Data *d, const char *key)
{
    for (int i = 0; i < d->nkv; i++)
        if (strcmp(d->kv[i].key, key) == 0)
            return (rv_kv *)&d->kv[i];
    return NULL;
}

RV_API int rv_data_put(RV_Data *d, const char *key, const double *v, int n)
{
    if (!d)
        return RV_EINVAL;
    if (!valid_name(key, RV_DATA_KEY_MAX) || !v || n < 1 || n > RV_DATA_MAX_VALUES)
        return rv__error(d->ctx, RV_EINVAL,
                         "rv_data_put: key of 1..%d characters and 1..%d values required (got %d)",
                         RV_DATA_KEY_MAX, RV_DATA_MAX_VALUES, n);
    rv_kv *e = kv_find(d, key);
    if (!e) {
        if (d->nkv == RV_DATA_MAX_KEYS)
            return rv__error(d->ctx, RV_ENOMEM, "rv_data_put: more than %d keys", RV_DATA_MAX_KEYS);
        e = &d->kv[d->nkv++];
        memset(e, 0, sizeof(*e));
        snprintf(e->key, sizeof(e->key), "%s", key);
    }
    memcpy(e->v, v, (size_t)n * sizeof(double));
    e->n = n;
    e->frame = d->meta.index;
    return 0;
}

RV_API int rv_data_get(const RV_Data *d, const char *key, double *v, int max, long long *frame_index)
{
    if (!d || !key)
        return RV_EINVAL;
    const rv_kv *e = kv_find(d, key);
    if (!e)
        return RV_ENOENT;
    if (v)
        for (int i = 0; i < e->n && i < max; i++)
            v[i] = e->v[i];
    if (frame_index)
        *frame_index = e->frame;
    return e->n;
}

RV_API int rv_data_put_box(RV_Data *d, const char *key, const RV_BoxResult *r)
{
    if (!d)
        return RV_EINVAL;
    if (!r)
        return rv__error(d->ctx, RV_EINVAL, "rv_data_put_box: result is NULL");
    double v[4] = {r->score, (double)r->x, (double)r->y, (double)r->positions};
    return rv_data_put(d, key, v, 4);
}

RV_API int rv_data_get_box(const RV_Data *d, const char *key, RV_BoxResult *r)
{
    double v[4] = {0, 0, 0, 0};
    int n = rv_data_get(d, key, v, 4, NULL);
    if (n < 0)
        return n;
    if (!r)
        return RV_EINVAL;
    r->score = v[0];
    r->x = (int)v[1];
    r->y = (int)v[2];
    r->positions = (long long)v[3];
    return 0;
}

RV_API int rv_data_fail(RV_Data *d, int code, const char *fmt, ...)
{
    if (code >= 0)
        code = RV_EINVAL;
    if (!d)
        return code;
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt ? fmt : "stage failed", ap);
    va_end(ap);
    if (!d->failed) {
        d->failed = 1;
        d->err = code;
        rv__error(d->ctx, code, "stage %d '%s' (frame %lld): %s", d->stage,
                  d->stage_name ? d->stage_name : "", d->meta.index, msg);
    }
    return code;
}

RV_API int rv_data_check(RV_Data *d, int err)
{
    if (err < 0 && d && !d->failed) {
        d->failed = 1;
        d->err = err;
    }
    return err;
}

RV_API void rv_data_request_stop(RV_Data *d)
{
    if (d)
        d->stop_req = 1;
}

/* ---------------------------------------------------------------- */
/* RV_StageVector                                                     */
/* ---------------------------------------------------------------- */

RV_API int rv_stage_vector_create(RV_Context *ctx, RV_StageVector **out)
{
    if (!out)
        return ctx ? rv__error(ctx, RV_EINVAL, "rv_stage_vector_create: out is NULL") : RV_EINVAL;
    *out = NULL;
    if (!ctx)
        return RV_EINVAL;
    RV_StageVector *sv = calloc(1, sizeof(*sv));
    if (!sv)
        return rv__error(ctx, RV_ENOMEM, "rv_stage_vector_create: out of memory");
    sv->ctx = ctx;
    sv->data.ctx = ctx;
    sv->data.sv = sv;
    sv->data.stage = -1;
    sv->data.meta.spatial_stride = 1;
    sv->data.meta.temporal_stride = 1;
    *out = sv;
    return 0;
}

RV_API void rv_stage_vector_destroy(RV_StageVector **psv)
{
    if (!psv || !*psv)
        return;
    RV_StageVector *sv = *psv;
    for (int i = 0; i < sv->n; i++)
        free(sv->st[i].name);
    free(sv->st);
    for (int i = 0; i < sv->data.nscratch; i++)
        rv_image_destroy(&sv->data.scratch[i].img);
    free(sv->data.scratch);
    free(sv);
    *psv = NULL;
}

RV_API int rv_stage_vector_push(RV_StageVector *sv, RV_StageFn fn, void *user, const char *name)
{
    if (!sv)
        return RV_EINVAL;
    if (!fn)
        return rv__error(sv->ctx, RV_EINVAL, "rv_stage_vector_push: stage function is NULL");
    if (sv->n == sv->cap) {
        int cap = sv->cap ? sv->cap * 2 : 8;
        rv_stage *ns = realloc(sv->st, (size_t)cap * sizeof(*ns));
        if (!ns)
            return rv__error(sv->ctx, RV_ENOMEM, "rv_stage_vector_push: out of memory");
        sv->st = ns;
        sv->cap = cap;
    }
    rv_stage *s = &sv->st[sv->n];
    memset(s, 0, sizeof(*s));
    s->fn = fn;
    s->user = user;
    char def[32];
    snprintf(def, sizeof(def), "stage%d", sv->n);
    s->name = strdup(name ? name : def);
    if (!s->name)
        return rv__error(sv->ctx, RV_ENOMEM, "rv_stage_vector_push: out of memory");
    sv->n++;
    return 0;
}

RV_API int rv_stage_vector_size(const RV_StageVector *sv)
{
    return sv ? sv->n : 0;
}

RV_API RV_Data *rv_stage_vector_data(RV_StageVector *sv)
{
    return sv ? &sv->data : NULL;
}

RV_API double rv_stage_vector_stage_ms(const RV_StageVector *sv, int i)
{
    if (!sv || i < 0 || i >= sv->n || sv->st[i].runs == 0)
        return -1.0;
    return sv->st[i].total_ms / (double)sv->st[i].runs;
}

RV_API int rv_stage_vector_apply(RV_StageVector *sv, RV_Image *frame, const RV_FrameMeta *meta,
                                 RV_Image **output)
{
    if (!sv)
        return RV_EINVAL;
    if (output)
        *output = NULL;
    if (!frame || rv_image_context(frame) != sv->ctx)
        return rv__error(sv->ctx, RV_EINVAL, "rv_stage_vector_apply: frame missing or of another context");
    RV_Data *d = &sv->data;
    if (meta) {
        d->meta = *meta;
    } else {
        memset(&d->meta, 0, sizeof(d->meta));
        d->meta.spatial_stride = rv_image_stride(frame);
        d->meta.temporal_stride = 1;
    }
    d->frame_out = frame;
    d->failed = 0;
    d->err = 0;
    d->stop_req = 0; /* a request belongs to the frame it was made in */
    for (int i = 0; i < sv->n; i++) {
        rv_stage *s = &sv->st[i];
        d->stage = i;
        d->user = s->user;
        d->stage_name = s->name;
        double t0 = now_ms();
        s->fn(d->frame_out, d);
        s->total_ms += now_ms() - t0;
        s->runs++;
        /* A stage that re-created the scratch image serving as the frame
         * (rv_data_image with another size or format) leaves no frame: fail
         * here, also after the last stage, rather than deliver nothing. */
        if (!d->failed && !d->frame_out)
            rv_data_fail(d, RV_EINVAL,
                         "the frame image was replaced by a scratch image that was re-created");
        if (d->failed)
            break;
    }
    d->stage = -1;
    d->user = NULL;
    d->stage_name = NULL;
    if (output)
        *output = d->frame_out;
    return d->failed ? d->err : 0;
}
