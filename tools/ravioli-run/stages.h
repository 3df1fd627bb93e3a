/*
 * stages.h - ravioli-run's stages: the built-in table (one entry per stage,
 * each with its parameters and a prepare function that picks kernels for
 * the frame format) and stages made from a user module's kernel.
 *
 * Adding a stage (e.g. DWT, deband): write a prepare function (and, if the
 * generic "one kernel, then neutral chroma" runner does not fit, a stage
 * function), then add one entry to the table in stages.c.
 */
#ifndef RAVIOLI_RUN_STAGES_H
#define RAVIOLI_RUN_STAGES_H

#include <stdio.h>

#include <ravioli/ravioli.h>
#include <ravioli/stream.h>

#define RUN_MAX_PARAMS 8
#define RUN_MAX_USER_INTS 16

/* What the stages need: the context and lazily loaded modules. */
typedef struct run_env {
    RV_Context *ctx;
    RV_Module *samples, *rvrun;
    RV_Module *user[8];       /* --module NAME, in order */
    const char *user_name[8]; /* the NAMEs as given */
    RV_Module *yuyv;          /* colour conversion kernels (modules/yuyv) */
    char err[1024];           /* why the last prepare/parse failed (without the stage's name) */
    int quiet;                /* 1 while probing: the log callback stays silent */
    /* The frames a stage gets, set by the caller before run_stage_prepare:
     * `in_packed` = 1 for packed YUYV frames (RGBA8 images of in_w/2 pairs, see
     * RV_VideoInfo.packed_yuyv); in_w x in_h is the picture size. */
    int in_packed, in_w, in_h;
} run_env;

typedef struct run_param {
    const char *name;
    int def, min, max;
    const char *help;
} run_param;

typedef struct run_stage run_stage;

typedef struct run_stage_def {
    const char *name;
    const char *help;
    run_param params[RUN_MAX_PARAMS]; /* terminated by a NULL name */
    /* Picks kernels and parameter blocks for frames of format `fmt`;
     * returns 0, or a negative code with env->err set: RV_ENOSYS when the
     * stage cannot take such frames (the caller may insert a conversion). */
    int (*prepare)(run_stage *s, run_env *env, RV_Format fmt);
    RV_StageFn fn;            /* NULL: the generic runner */
    int conversion;           /* 1: a format conversion stage (rgba, yuv420, yuv444) */
} run_stage_def;

enum { RUN_OP_PIX = 1, RUN_OP_NBR = 2 };

struct run_stage {
    const run_stage_def *def; /* NULL for a user kernel */
    char label[96];           /* as shown in messages */
    int val[RUN_MAX_PARAMS];  /* parsed parameter values */
    /* filled by prepare */
    const RV_Kernel *k;
    int op;
    const void *prm;
    size_t prm_size;
    const RV_Kernel *fill;    /* set: planes 1.. become neutral chroma (128) afterwards */
    int32_t ints[RUN_MAX_USER_INTS];
    /* an object a stage owns (e.g. an RV_Dwt), released by run_stage_release */
    void *obj;
    void (*obj_free)(void **obj);
    /* the frames the stage hands on (prepare sets them; default: as it got) */
    RV_Format out_fmt;
    int out_packed, out_w, out_h;
    /* conversion stages: up to two kernel steps through scratch images */
    const RV_Kernel *conv[2];
    int conv_fmt[2];          /* RV_Format of each step's output */
    int conv_pairs[2];        /* 1: the step is yuyv_rgba (rv_yuyv_args) */
    int conv_rows[2];         /* 1: one block per two rows (4:2:0 outputs) */
    int nconv;
    char scratch[2][32];      /* rv_data_image names, unique per stage */
    int inserted;             /* 1: added by ravioli-run, not by the user */
    /* user kernels */
    int module;               /* index into env->user */
    char kernel[64];
    int nints;
};

/* The table, terminated by a NULL name. */
extern const run_stage_def run_stage_table[];

/**
 * Parses `spec` ("name", "name:value", "name:key=value,key=value") into *s.
 * Built-in names are tried unless `module` >= 0, in which case a kernel of
 * that user module is tried first (at prepare time). Returns 0 or -1 with
 * err set.
 */
int run_stage_parse(const char *spec, int module, run_stage *s, char *err, size_t errsz);
/** Resolves kernels for the frame format (and env->in_*); sets out_*. */
int run_stage_prepare(run_stage *s, run_env *env, RV_Format fmt);
/** Makes *s the conversion stage `name` ("rgba", "yuv420", "yuv444"),
 *  marked as inserted by ravioli-run; 0 or -1. */
int run_stage_make_conversion(run_stage *s, const char *name);
/** Whether a stage is a built-in one that needs planar YUV / grey frames
 *  (deband, denoise): the conversion to insert before it is yuv420. */
int run_stage_wants_yuv(const run_stage *s);
/** Releases what prepare created for s (call after the stream is destroyed). */
void run_stage_release(run_stage *s);
/** The stage function to push for s. */
RV_StageFn run_stage_fn(const run_stage *s);
/** Prints the built-in stages for --help / --list-stages. */
void run_stage_print_table(FILE *f);

#endif
