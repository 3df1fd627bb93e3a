/*
 * stream_internal.h - private structures of RV_StageVector / RV_Data
 * (stream_stages.c) shared with RV_Streaming (stream.c).
 */
#ifndef RAVIOLI_STREAM_INTERNAL_H
#define RAVIOLI_STREAM_INTERNAL_H

#include "internal.h"
#include "ravioli/stream.h"

#define RV_DATA_MAX_KEYS 64

typedef struct rv_kv {
    char key[RV_DATA_KEY_MAX + 1];
    double v[RV_DATA_MAX_VALUES];
    int n;
    long long frame;
} rv_kv;

typedef struct rv_scratch {
    char name[RV_DATA_KEY_MAX + 1];
    RV_Image *img;
} rv_scratch;

struct RV_Data {
    RV_Context *ctx;
    RV_StageVector *sv;
    RV_FrameMeta meta;
    int stage;                /* running stage, -1 outside stages */
    void *user;
    const char *stage_name;
    RV_Image *frame_out;      /* image handed to the next stage / delivered */
    int failed, err;
    int stop_req;
    rv_kv kv[RV_DATA_MAX_KEYS];
    int nkv;
    rv_scratch *scratch;
    int nscratch, scratch_cap;
};

typedef struct rv_stage {
    RV_StageFn fn;
    void *user;
    char *name;
    double total_ms;
    long long runs;
} rv_stage;

struct RV_StageVector {
    RV_Context *ctx;
    rv_stage *st;
    int n, cap;
    RV_Data data;
};

#endif
