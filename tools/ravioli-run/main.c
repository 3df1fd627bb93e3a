/*
 * ravioli-run - run a chain of ravioli stages on a video stream.
 *
 *     ravioli-run --source synthetic:640x480@30 --stage gray --stage edge:threshold=96 \
 *                 --sink y4m:out.y4m --frames 300
 *
 * Exit codes: 0 success (also after Ctrl-C, even before the source delivered
 * anything, or a closed window), 1 runtime error or malformed input (a bad Y4M
 * header or frame), 2 usage error, 3 source, sink, --log file, module or
 * backend unavailable.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ravioli/ravioli.h>
#include <ravioli/stream.h>

#include "rv_cli.h"
#include "stages.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_UNAVAILABLE = 3 };

#define MAX_STAGES 32
#define MAX_MODULES 8
#define MAX_CHAIN (2 * MAX_STAGES + 1) /* with the conversions ravioli-run inserts */

typedef struct opts {
    const char *source;
    const char *sink;
    RV_Backend backend;
    int threads;
    long long frames;
    int realtime;
    int raw_yuyv;             /* --raw-yuyv: camera frames stay packed YUYV */
    int ring;
    int gpu_streams;          /* 0: the runtime's default */
    int policy;               /* -1: chosen from the source */
    RV_Priority priority;
    double deadline_ms;
    int fixed_si, fixed_st;
    int no_adapt;
    const char *log_path;
    int quiet, verbose, stats; /* stats: -1 auto (tty), 0 off, 1 on */
    const char *modules[MAX_MODULES];
    int nmodules;
    run_stage stages[MAX_STAGES];
    int nstages;
} opts;

static const char *prog = "ravioli-run";
static RV_Streaming *volatile g_stream;
static run_env *g_env;
static int g_verbose;
static volatile sig_atomic_t g_interrupted;  /* Ctrl-C / SIGTERM came */
static volatile sig_atomic_t g_opening;      /* 1 while the source opens (may block on a pipe) */
static volatile sig_atomic_t g_quiet;
static const char *volatile g_log_made;      /* a --log file the check created (removed if the run never starts) */

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    va_end(ap);
    exit(EXIT_USAGE);
}

static void help(void)
{
    printf("Usage: %s [OPTION]... --stage STAGE [--stage STAGE]...\n"
           "Run a chain of ravioli stages on every frame of a video stream.\n"
           "\n"
           "Source and sink:\n"
           "  --source SRC         synthetic[:WxH[@FPS]]   moving test pattern (default 640x480@30)\n"
           "                       y4m:PATH | y4m:-         Y4M file, or standard input\n"
           "                       image:PATH               a PGM, PPM or grey PFM image: one frame\n"
           "                       v4l2:/dev/videoN         camera\n"
           "                       (default: synthetic)\n"
           "  --sink SINK          null (default) | y4m:PATH | y4m:- | sdl (window) |\n"
           "                       image:PATH (the one frame: grey -> .pgm, RGBA -> .ppm,\n"
           "                       float grey, e.g. DWT coefficients -> .pfm)\n"
           "  --frames N           stop after N source frames\n"
           "  --realtime           read files and the pattern at their frame rate, as if live\n"
           "  --raw-yuyv           camera: deliver YUYV frames unconverted (packed); the first\n"
           "                       stage converts them (rgba, yuv420, yuv444) on the backend\n"
           "\n"
           "Stages (run in the order given):\n"
           "  --stage STAGE        a built-in stage, NAME[:VALUE] or NAME[:KEY=VALUE,...]:\n",
           prog);
    run_stage_print_table(stdout);
    printf("  --module NAME        load kernel module NAME (a name on the module path, or a\n"
           "                       path); following --stage KERNEL[:INT,...] options name a\n"
           "                       procPix/procNbr kernel of it, with an int32 parameter block;\n"
           "                       a kernel of the module comes before a built-in stage of the\n"
           "                       same name, so give built-in stages before --module\n"
           "  --list-stages        list the built-in stages and exit\n"
           "\n"
           "Formats: frames keep the source's format (camera: RGBA8, or packed YUYV with\n"
           "--raw-yuyv; Y4M: its YUV / grey format; pattern: RGBA8) until a conversion\n"
           "stage (rgba, yuv420, yuv444) changes it; the sink gets the chain's last format.\n"
           "A stage that needs planar YUV (deband, denoise) after RGBA8 or packed YUYV\n"
           "frames gets a yuv420 stage inserted before it, any other stage after packed\n"
           "YUYV an rgba stage; a note on stderr says so. Name the conversion yourself\n"
           "to choose another.\n"
           "\n"
           "Processing:\n"
           "  --backend B          auto (default) | cpu | cuda\n"
           "  --threads N          CPU worker threads (default: all cores)\n"
           "  --ring N             frames queued between capture and processing (default 4)\n"
           "  --gpu-streams N      cuda: frames in flight, each on its own CUDA stream, so\n"
           "                       uploads, kernels and downloads of consecutive frames\n"
           "                       overlap (1..8, default 3; 1 = one frame at a time)\n"
           "  --drop POLICY        when the ring is full: block | oldest | newest | latest\n"
           "                       (default: latest with --realtime or a camera, else block)\n"
           "\n"
           "Adaptation (spatial stride S_I, temporal stride S_T):\n"
           "  --priority P         temporal (keep the frame rate: raise S_I first, default) |\n"
           "                       spatial (keep the pixels: raise S_T first) | balanced\n"
           "  --deadline-ms MS     time budget per source frame (default: 1000/fps)\n"
           "  --fixed-stride S[:T] fix S_I = S (and S_T = T); the controller adapts the rest\n"
           "                       (S 1..64; T 1..64, or up to 1000 with --no-adapt)\n"
           "  --no-adapt           never change the strides\n"
           "  --log FILE.csv       per processed frame: frame,time_s,proc_ms,deadline_ms,budget_ms,met,\n"
           "                       s_spatial,s_temporal,latency_ms,captured,skipped,dropped (rv-plot);\n"
           "                       checked before the sink is opened (exit 3 if it cannot be written)\n"
           "\n"
           "Output:\n"
           "  --stats / --no-stats live one-line statistics on stderr (default: when a terminal)\n"
           "  -q, --quiet          no statistics, no summary, no notes (which backend runs,\n"
           "                       conversions inserted); warnings and errors are still said\n"
           "  -v, --verbose        library messages at debug level\n"
           "  -h, --help           this help\n"
           "  --version            the library version\n"
           "\n"
           "Ctrl-C stops cleanly after the frame in progress; the summary accounts for every\n"
           "frame read: captured = processed + skipped (temporal stride) + dropped. Before the\n"
           "source delivered anything (e.g. y4m:- waiting for its header) it ends the run at once.\n"
           "\n"
           "Exit status:\n"
           "  0  success (end of the source, --frames reached, Ctrl-C, window closed)\n"
           "  1  runtime error or malformed input (a stage, the source or the sink failed; a\n"
           "     malformed Y4M header or frame, a truncated frame: the frames before it are kept)\n"
           "  2  usage error (bad option, bad stage, stage unsuitable for the source's format,\n"
           "     a sink that cannot take the chain's frames as named: image:x.pgm for grayf32)\n"
           "  3  source, sink, --log file, module or backend unavailable (missing file, camera\n"
           "     or module, unwritable --log, no GPU (the reason is said), an unsupported Y4M\n"
           "     colour space, not in this build)\n"
           "\n"
           "Examples:\n"
           "  %s --stage gray --stage binarize:threshold=100 --frames 300\n"
           "  %s --source y4m:in.y4m --stage edge --sink y4m:out.y4m\n"
           "  %s --source v4l2:/dev/video0 --stage emboss --sink sdl --deadline-ms 33\n"
           "  %s --source v4l2:/dev/video0 --raw-yuyv --stage yuv420 --stage deband --sink y4m:out.y4m\n"
           "  ffmpeg -i clip.mp4 -f yuv4mpegpipe - | %s --source y4m:- --stage deband --sink y4m:out.y4m\n"
           "  %s --source image:in.pgm --stage dwt:levels=5 --sink image:coef.pfm\n"
           "  %s --source image:coef.pfm --stage idwt:levels=5 --sink image:back.pgm\n",
           prog, prog, prog, prog, prog, prog, prog);
}

static void log_cb(void *opaque, RV_LogLevel lvl, const char *msg)
{
    (void)opaque;
    if ((g_env && g_env->quiet) || (g_quiet && lvl == RV_LOG_INFO))
        return;
    /* errors are reported by the tool where they happen (with the context's
     * message), so the library's copies are shown with -v only; information
     * (which backend runs, said once) is shown, but not with -q */
    rv_cli_log(prog, g_verbose, lvl, msg);
}

static void on_signal(int sig)
{
    (void)sig;
    g_interrupted = 1;
    RV_Streaming *st = g_stream;
    if (st)
        rv_streaming_stop(st); /* an atomic store: async-signal-safe */
    if (g_opening) {
        /* Blocked opening the source (e.g. y4m:- before the header arrived):
         * nothing is written yet, so stop here, as documented, with exit 0. */
        static const char msg[] = "ravioli-run: interrupted before the source delivered anything\n";
        if (!g_quiet) {
            ssize_t n = write(2, msg, sizeof(msg) - 1);
            (void)n;
        }
        if (g_log_made)
            unlink(g_log_made); /* async-signal-safe */
        _exit(EXIT_OK);
    }
}

static int parse_int_opt(const char *opt, const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        usage_error("%s: expected an integer in %lld..%lld, got '%s'", opt, lo, hi, s);
    *out = v;
    return 0;
}

static double parse_double_opt(const char *opt, const char *s, double lo, double hi)
{
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !(v >= lo && v <= hi))
        usage_error("%s: expected a number in %g..%g, got '%s'", opt, lo, hi, s);
    return v;
}

enum {
    O_SOURCE = 256, O_SINK, O_FRAMES, O_REALTIME, O_STAGE, O_MODULE, O_LIST, O_BACKEND, O_THREADS,
    O_RING, O_GPU_STREAMS, O_DROP, O_PRIORITY, O_DEADLINE, O_FIXED, O_NOADAPT, O_LOG, O_STATS, O_NOSTATS, O_VERSION,
    O_RAWYUYV
};

static void parse_args(int argc, char **argv, opts *o)
{
    static const struct option lo[] = {
        {"source", required_argument, 0, O_SOURCE},   {"sink", required_argument, 0, O_SINK},
        {"frames", required_argument, 0, O_FRAMES},   {"realtime", no_argument, 0, O_REALTIME},
        {"stage", required_argument, 0, O_STAGE},     {"module", required_argument, 0, O_MODULE},
        {"list-stages", no_argument, 0, O_LIST},      {"backend", required_argument, 0, O_BACKEND},
        {"threads", required_argument, 0, O_THREADS}, {"ring", required_argument, 0, O_RING},
        {"gpu-streams", required_argument, 0, O_GPU_STREAMS},
        {"drop", required_argument, 0, O_DROP},       {"priority", required_argument, 0, O_PRIORITY},
        {"deadline-ms", required_argument, 0, O_DEADLINE}, {"fixed-stride", required_argument, 0, O_FIXED},
        {"no-adapt", no_argument, 0, O_NOADAPT},      {"log", required_argument, 0, O_LOG},
        {"stats", no_argument, 0, O_STATS},           {"no-stats", no_argument, 0, O_NOSTATS},
        {"quiet", no_argument, 0, 'q'},               {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},                {"version", no_argument, 0, O_VERSION},
        {"raw-yuyv", no_argument, 0, O_RAWYUYV},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof(*o));
    o->source = "synthetic";
    o->sink = "null";
    o->backend = RV_BACKEND_AUTO;
    o->frames = -1;
    o->ring = 4;
    o->policy = -1;
    o->priority = RV_PRIORITY_TEMPORAL;
    o->stats = -1;
    opterr = 0;
    int c;
    long long v;
    char err[256];
    while ((c = getopt_long(argc, argv, ":qvh", lo, NULL)) != -1) {
        switch (c) {
        case O_SOURCE: o->source = optarg; break;
        case O_SINK: o->sink = optarg; break;
        case O_FRAMES: parse_int_opt("--frames", optarg, 0, (1LL << 50), &o->frames); break;
        case O_REALTIME: o->realtime = 1; break;
        case O_RAWYUYV: o->raw_yuyv = 1; break;
        case O_STAGE:
            if (o->nstages == MAX_STAGES)
                usage_error("at most %d stages", MAX_STAGES);
            if (run_stage_parse(optarg, o->nmodules - 1, &o->stages[o->nstages], err, sizeof(err)) < 0)
                usage_error("%s", err);
            o->nstages++;
            break;
        case O_MODULE:
            if (o->nmodules == MAX_MODULES)
                usage_error("at most %d modules", MAX_MODULES);
            o->modules[o->nmodules++] = optarg;
            break;
        case O_LIST:
            run_stage_print_table(stdout);
            exit(EXIT_OK);
        case O_BACKEND:
            if (!strcmp(optarg, "auto")) o->backend = RV_BACKEND_AUTO;
            else if (!strcmp(optarg, "cpu")) o->backend = RV_BACKEND_CPU;
            else if (!strcmp(optarg, "cuda")) o->backend = RV_BACKEND_CUDA;
            else usage_error("--backend: auto, cpu or cuda, not '%s'", optarg);
            break;
        case O_THREADS: parse_int_opt("--threads", optarg, 0, 1024, &v); o->threads = (int)v; break;
        case O_RING: parse_int_opt("--ring", optarg, 1, 64, &v); o->ring = (int)v; break;
        case O_GPU_STREAMS: parse_int_opt("--gpu-streams", optarg, 1, 8, &v); o->gpu_streams = (int)v; break;
        case O_DROP:
            if (!strcmp(optarg, "block")) o->policy = RV_RING_BLOCK;
            else if (!strcmp(optarg, "oldest")) o->policy = RV_RING_DROP_OLDEST;
            else if (!strcmp(optarg, "newest")) o->policy = RV_RING_DROP_NEWEST;
            else if (!strcmp(optarg, "latest")) o->policy = RV_RING_LATEST;
            else usage_error("--drop: block, oldest, newest or latest, not '%s'", optarg);
            break;
        case O_PRIORITY:
            if (!strcmp(optarg, "temporal")) o->priority = RV_PRIORITY_TEMPORAL;
            else if (!strcmp(optarg, "spatial")) o->priority = RV_PRIORITY_SPATIAL;
            else if (!strcmp(optarg, "balanced")) o->priority = RV_PRIORITY_BALANCED;
            else usage_error("--priority: temporal, spatial or balanced, not '%s'", optarg);
            break;
        case O_DEADLINE: o->deadline_ms = parse_double_opt("--deadline-ms", optarg, 0.01, 1e6); break;
        case O_FIXED: {
            int si = 0, st = 0;
            char tail;
            int n = sscanf(optarg, "%d:%d%c", &si, &st, &tail);
            if (!((n == 1 && !strchr(optarg, ':')) || n == 2) || si < 1 || si > 64 || (n == 2 && (st < 1 || st > 1000)))
                usage_error("--fixed-stride: S (1..64) or S:T (T 1..1000), not '%s'", optarg);
            o->fixed_si = si;
            o->fixed_st = n == 2 ? st : 0;
            break;
        }
        case O_NOADAPT: o->no_adapt = 1; break;
        case O_LOG: o->log_path = optarg; break;
        case O_STATS: o->stats = 1; break;
        case O_NOSTATS: o->stats = 0; break;
        case 'q': o->quiet = 1; break;
        case 'v': o->verbose = 1; break;
        case 'h': help(); exit(EXIT_OK);
        case O_VERSION: printf("ravioli-run (ravioli %s)\n", rv_version()); exit(EXIT_OK);
        case ':': usage_error("option '%s' needs a value", argv[optind - 1]);
        default: usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        usage_error("unexpected argument '%s' (stages are given with --stage)", argv[optind]);
    if (o->nstages == 0)
        usage_error("no stage given (e.g. --stage gray; --list-stages lists them)");
    if (strcmp(o->sink, "null") && strcmp(o->sink, "sdl") && !(!strncmp(o->sink, "y4m:", 4) && o->sink[4]) &&
        !(!strncmp(o->sink, "image:", 6) && o->sink[6]))
        usage_error("--sink: null, y4m:PATH|-, image:PATH or sdl, not '%s'", o->sink);
    /* the controller takes strides up to RV_ADAPT_MAX_STRIDE, fixed ones too */
    if (o->fixed_st > RV_ADAPT_MAX_STRIDE && !o->no_adapt)
        usage_error("--fixed-stride: T above %d needs --no-adapt (the adaptation controller's bound), not %d",
                    RV_ADAPT_MAX_STRIDE, o->fixed_st);
    if (o->raw_yuyv && strncmp(o->source, "v4l2", 4))
        usage_error("--raw-yuyv is for camera sources (--source v4l2:...)");
    /* the sink (and the frame log) would overwrite the input while it is read */
    const char *in_path = !strncmp(o->source, "y4m:", 4) && strcmp(o->source + 4, "-") ? o->source + 4
                          : !strncmp(o->source, "image:", 6)                         ? o->source + 6
                                                                                     : NULL;
    const char *out_path = !strncmp(o->sink, "y4m:", 4) && strcmp(o->sink + 4, "-") ? o->sink + 4
                           : !strncmp(o->sink, "image:", 6)                       ? o->sink + 6
                                                                                  : NULL;
    if (in_path) {
        if (out_path && rv_cli_same_file(in_path, out_path))
            usage_error("--source and --sink are the same file ('%s'): the output would overwrite the input", out_path);
        if (o->log_path && rv_cli_same_file(in_path, o->log_path))
            usage_error("--source and --log are the same file ('%s')", o->log_path);
    }
}

/* ---------------------------------------------------------------- */
/* Source and sink                                                    */
/* ---------------------------------------------------------------- */

static int open_source(RV_Context *ctx, const opts *o, RV_Source **src, int *live)
{
    const char *s = o->source;
    *live = o->realtime;
    if (!strncmp(s, "synthetic", 9) && (s[9] == 0 || s[9] == ':')) {
        RV_SyntheticSettings ss;
        rv_synthetic_settings_default(&ss);
        if (s[9] == ':') {
            int w = 0, h = 0, fps = 0;
            char tail;
            int n = sscanf(s + 10, "%dx%d@%d%c", &w, &h, &fps, &tail);
            if (n == 2 && strchr(s + 10, '@'))
                n = -1;
            if ((n != 2 && n != 3) || w < 1 || h < 1 || w > RV_MAX_DIM || h > RV_MAX_DIM ||
                (n == 3 && (fps < 1 || fps > 1000)))
                usage_error("--source synthetic:WxH[@FPS], not '%s'", s);
            ss.width = w;
            ss.height = h;
            if (n == 3) {
                ss.fps_num = fps;
                ss.fps_den = 1;
            }
        }
        ss.frames = o->frames;
        ss.realtime = o->realtime;
        return rv_source_open_synthetic(ctx, &ss, src);
    }
    if (!strncmp(s, "y4m:", 4)) {
        if (!s[4])
            usage_error("--source y4m:PATH (or y4m:- for standard input)");
        RV_Y4MSettings ys;
        rv_y4m_settings_default(&ys);
        ys.realtime = o->realtime;
        return rv_source_open_y4m(ctx, s + 4, &ys, src);
    }
    if (!strncmp(s, "image:", 6)) {
        if (!s[6])
            usage_error("--source image:PATH (a PGM, PPM or grey PFM file)");
        return rv_source_open_image(ctx, s + 6, src);
    }
    if (!strncmp(s, "v4l2", 4) && (s[4] == 0 || s[4] == ':')) {
        RV_V4L2Settings vs;
        rv_v4l2_settings_default(&vs);
        if (s[4] == ':' && s[5])
            vs.device = s + 5;
        vs.raw_yuyv = o->raw_yuyv;
        *live = 1;
        return rv_source_open_v4l2(ctx, &vs, src);
    }
    usage_error("--source: synthetic[:WxH[@FPS]], y4m:PATH|-, image:PATH or v4l2:/dev/videoN, not '%s'", s);
}

static int open_sink(RV_Context *ctx, const opts *o, const RV_VideoInfo *info, RV_Sink **sink)
{
    const char *s = o->sink;
    *sink = NULL;
    if (!strcmp(s, "null"))
        return 0; /* the output is discarded: no sink needed */
    if (!strncmp(s, "y4m:", 4) && s[4])
        return rv_sink_open_y4m(ctx, s + 4, info, sink);
    if (!strncmp(s, "image:", 6) && s[6])
        return rv_sink_open_image(ctx, s + 6, info, sink);
    if (!strcmp(s, "sdl"))
        return rv_sink_open_sdl(ctx, "ravioli-run", info, sink);
    usage_error("--sink: null, y4m:PATH|-, image:PATH or sdl, not '%s'", s);
}

/* ---------------------------------------------------------------- */
/* Live statistics                                                    */
/* ---------------------------------------------------------------- */

typedef struct live {
    int on;
    double last;
    int printed;
} live;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int on_frame(void *user, RV_Image *frame, const RV_FrameInfo *fi, const RV_Data *d)
{
    live *lv = user;
    (void)frame;
    (void)d;
    double t = mono();
    if (!lv->on || t - lv->last < 0.25)
        return 0;
    lv->last = t;
    RV_StreamSummary s;
    rv_streaming_summary(g_stream, &s);
    fprintf(stderr,
            "\rframe %lld  %.1f fps  proc %.2f ms  latency %.1f ms  S_I %d  S_T %d  drop %lld  skip %lld\033[K",
            fi->meta.index, fi->fps, fi->proc_ms, fi->latency_ms, fi->meta.spatial_stride, fi->meta.temporal_stride,
            s.dropped, s.skipped);
    lv->printed = 1;
    return 0;
}

static void print_summary(const RV_StreamSummary *s, const RV_StageVector *sv, const opts *o,
                          const run_stage *chain, int nchain)
{
    fprintf(stderr, "%s: %s after %.2f s\n", prog, rv_stream_end_name(s->end), s->elapsed_s);
    fprintf(stderr,
            "  frames     captured %lld = processed %lld + skipped %lld + dropped %lld (%lld at stop)%s\n",
            s->captured, s->processed, s->skipped, s->dropped, s->dropped_at_stop,
            s->in_flight ? "  ACCOUNTING MISMATCH" : "");
    if (s->source_dropped)
        fprintf(stderr, "             (before capture the source skipped %lld frames to stay live)\n",
                s->source_dropped);
    fprintf(stderr, "  processing mean %.3f ms, max %.3f ms, %.1f frames/s; deadline %.2f ms, missed %lld\n",
            s->proc_ms_mean, s->proc_ms_max, s->fps, s->deadline_ms, s->deadline_missed);
    fprintf(stderr, "  strides    S_I %d, S_T %d; adaptation %s, %d change%s\n", s->spatial_stride,
            s->temporal_stride, s->adapt_active ? "on" : "off", s->stride_changes,
            s->stride_changes == 1 ? "" : "s");
    for (int i = 0; i < nchain; i++) {
        double ms = rv_stage_vector_stage_ms(sv, i);
        if (ms >= 0)
            fprintf(stderr, "  stage %-2d   %-24s %.3f ms/frame%s\n", i, chain[i].label, ms,
                    chain[i].inserted ? " (inserted)" : "");
    }
    if (strcmp(o->sink, "null"))
        fprintf(stderr, "  sink       %s: %lld frames (%lld repeats)\n", o->sink, s->sink_frames, s->repeated);
}

/* ---------------------------------------------------------------- */
/* The chain: stages in order, with the formats they hand on           */
/* ---------------------------------------------------------------- */

typedef struct chain_fmt {
    RV_Format fmt;
    int packed, w, h;
} chain_fmt;

static const char *fmt_name(const chain_fmt *f)
{
    if (f->packed)
        return "packed YUYV";
    const RV_FormatInfo *fi = rv_format_info(f->fmt);
    return fi ? fi->name : "unknown";
}

static int prepare_at(run_stage *s, run_env *env, const chain_fmt *in)
{
    env->in_packed = in->packed;
    env->in_w = in->w;
    env->in_h = in->h;
    return run_stage_prepare(s, env, in->fmt);
}

static void advance(chain_fmt *f, const run_stage *s)
{
    f->fmt = s->out_fmt;
    f->packed = s->out_packed;
    f->w = s->out_w;
    f->h = s->out_h;
}

/* Prepares `stage` at chain[*n] for frames `*cur`. When the stage cannot take
 * them (RV_ENOSYS) and a conversion makes them suitable - yuv420 before a
 * stage that needs planar YUV (deband, denoise) on RGBA8 or packed frames,
 * rgba before any other stage on packed frames - inserts the conversion and
 * says so. Returns 0 or the error of the stage as given (env->err set). */
static int add_stage(run_stage *chain, int *n, const run_stage *stage, run_env *env, chain_fmt *cur, int quiet)
{
    run_stage *s = &chain[*n];
    *s = *stage;
    int err = prepare_at(s, env, cur);
    if (err == 0) {
        advance(cur, s);
        (*n)++;
        return 0;
    }
    const char *cv = NULL;
    if (err == RV_ENOSYS && !(s->def && s->def->conversion)) {
        if (run_stage_wants_yuv(s) && cur->fmt == RV_FMT_RGBA8)
            cv = "yuv420";
        else if (cur->packed)
            cv = "rgba";
    }
    if (!cv)
        return err;
    char why[sizeof(env->err)];
    snprintf(why, sizeof(why), "%s", env->err);
    run_stage_release(s);
    run_stage *c = &chain[*n];
    chain_fmt mid = *cur;
    if (run_stage_make_conversion(c, cv) < 0 || prepare_at(c, env, cur) < 0) {
        run_stage_release(c);
        snprintf(env->err, sizeof(env->err), "%s", why);
        return err;
    }
    advance(&mid, c);
    run_stage *t = &chain[*n + 1];
    *t = *stage;
    int err2 = prepare_at(t, env, &mid);
    if (err2 < 0) {
        run_stage_release(t);
        run_stage_release(c);
        return err2;
    }
    if (!quiet)
        fprintf(stderr,
                "%s: note: stage '%s' does not take %s frames: inserted stage '%s' before it "
                "(name a conversion stage yourself, e.g. --stage yuv444, to choose another)\n",
                prog, stage->label, fmt_name(cur), cv);
    advance(cur, t);
    *n += 2;
    return 0;
}

static int unavailable(const char *what, const char *name, int err, RV_Context *ctx)
{
    fprintf(stderr, "%s: %s '%s' unavailable: %s%s%s\n", prog, what, name, rv_strerror(err),
            ctx && rv_context_error(ctx)[0] ? ": " : "", ctx ? rv_context_error(ctx) : "");
    return EXIT_UNAVAILABLE;
}

/* The source could not be opened: malformed input (a bad Y4M header, a size
 * beyond the limits) is an error in the data, exit 1 as a malformed frame
 * during the run; anything else (missing file or camera, unsupported colour
 * space, not in this build) makes the source unavailable, exit 3. */
static int source_failed(const char *name, int err, RV_Context *ctx)
{
    if (err == RV_EBADMSG || err == RV_EOVERFLOW) {
        fprintf(stderr, "%s: source '%s': %s%s%s\n", prog, name, rv_strerror(err),
                rv_context_error(ctx)[0] ? ": " : "", rv_context_error(ctx));
        return EXIT_RUNTIME;
    }
    return unavailable("source", name, err, ctx);
}

int main(int argc, char **argv)
{
    opts o;
    parse_args(argc, argv, &o);
    g_verbose = o.verbose;
    g_quiet = o.quiet;

    run_env env;
    memset(&env, 0, sizeof(env));
    g_env = &env;
    RV_Settings cs;
    rv_settings_default(&cs);
    cs.backend = o.backend;
    cs.threads = o.threads;
    cs.log = log_cb;
    cs.log_level = o.verbose ? RV_LOG_DEBUG : RV_LOG_INFO;
    RV_Context *ctx = NULL;
    int err = rv_context_create(&ctx, &cs);
    if (err < 0) /* the library's reason (no driver, no device, ...), shown without -v too */
        return rv_cli_backend_failed(prog, rv_backend_name(o.backend), err, rv_strerror(err), "--backend auto")
                   ? EXIT_UNAVAILABLE
                   : EXIT_RUNTIME;
    env.ctx = ctx;
    int rc = EXIT_OK;
    RV_Source *src = NULL;
    RV_Sink *sink = NULL;
    RV_StageVector *sv = NULL;
    RV_Streaming *st = NULL;
    static run_stage chain[MAX_CHAIN];
    int nchain = 0;

    for (int i = 0; i < o.nmodules; i++)
        env.user_name[i] = o.modules[i];
    for (int i = 0; i < o.nmodules; i++)
        if ((err = rv_module_load(ctx, o.modules[i], &env.user[i])) < 0) {
            rc = unavailable("module", o.modules[i], err, NULL);
            goto out;
        }

    /* The frame log is opened (truncated) when the run starts; a path that
     * cannot be written is found now, before the sink truncates an existing
     * output file. A log file made here is removed if the run never starts. */
    if (o.log_path) {
        struct stat lsb;
        const int made = stat(o.log_path, &lsb) != 0;
        int fd = open(o.log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) {
            fprintf(stderr, "%s: --log '%s': cannot write: %s\n", prog, o.log_path, strerror(errno));
            rc = EXIT_UNAVAILABLE;
            goto out;
        }
        close(fd);
        if (made)
            g_log_made = o.log_path;
    }

    /* Ctrl-C from here on exits 0: while the source opens (a pipe may not have
     * sent its header yet) at once; later by stopping the stream. */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C kills */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* a closed output pipe is reported by the sink */

    int live_src = 0;
    if (o.verbose)
        fprintf(stderr, "%s: opening the source '%s'\n", prog, o.source);
    g_opening = 1;
    if (!g_interrupted)
        err = open_source(ctx, &o, &src, &live_src);
    g_opening = 0;
    if (g_interrupted) {
        if (!o.quiet)
            fprintf(stderr, "%s: interrupted before the source delivered anything\n", prog);
        goto out;
    }
    if (err < 0) {
        rc = source_failed(o.source, err, ctx);
        goto out;
    }
    RV_VideoInfo info;
    if ((err = rv_source_info(src, &info)) < 0) {
        rc = source_failed(o.source, err, ctx);
        goto out;
    }

    /* 9-15-bit samples (e.g. yuv420p10) arrive in 16-bit words; the stages take
     * 8- and 16-bit samples, so they would treat them as 16-bit (noise, thresholds
     * and inversions on the wrong scale): refused rather than written wrong */
    if (o.nstages > 0 && info.bit_depth > 8 && info.bit_depth < 16) {
        fprintf(stderr,
                "%s: the source has %d-bit samples; the stages take 8- and 16-bit samples only "
                "(convert first, e.g. ffmpeg -pix_fmt yuv444p16le)\n",
                prog, info.bit_depth);
        rc = EXIT_USAGE;
        goto out;
    }
    if ((err = rv_stage_vector_create(ctx, &sv)) < 0) {
        rc = EXIT_RUNTIME;
        goto out;
    }
    chain_fmt cur = {info.format, info.packed_yuyv, info.packed_yuyv ? 2 * info.width : info.width,
                     info.height};
    for (int i = 0; i < o.nstages; i++) {
        if ((err = add_stage(chain, &nchain, &o.stages[i], &env, &cur, o.quiet)) < 0) {
            /* env.err is without the stage's name (the modules' messages carry
             * no prefix either: docs/dwt.md, docs/deband.md) */
            fprintf(stderr, "%s: stage '%s': %s\n", prog, o.stages[i].label, env.err);
            rc = err == RV_ENOSYS || err == RV_EINVAL ? EXIT_USAGE : EXIT_UNAVAILABLE;
            goto out;
        }
    }
    for (int i = 0; i < nchain; i++)
        if ((err = rv_stage_vector_push(sv, run_stage_fn(&chain[i]), &chain[i], chain[i].label)) < 0) {
            rc = EXIT_RUNTIME;
            goto out;
        }

    /* The sink is opened for what the chain hands out. */
    RV_VideoInfo out_info = info;
    out_info.format = cur.fmt;
    out_info.packed_yuyv = cur.packed;
    out_info.width = cur.packed ? (cur.w + 1) / 2 : cur.w;
    out_info.height = cur.h;
    if (cur.fmt != info.format || cur.packed != info.packed_yuyv)
        out_info.bit_depth = rv_format_info(cur.fmt)->elem_type == RV_ET_F32      ? 0
                             : rv_format_info(cur.fmt)->sample_bytes == 2 ? 16
                                                                          : 8;
    if (o.verbose)
        fprintf(stderr, "%s: chain: %s %dx%d in, %s %dx%d out (%d stage%s)\n", prog,
                fmt_name(&(chain_fmt){info.format, info.packed_yuyv, 0, 0}), info.width, info.height,
                fmt_name(&cur), cur.w, cur.h, nchain, nchain == 1 ? "" : "s");

    if ((err = open_sink(ctx, &o, &out_info, &sink)) < 0) {
        if (err == RV_EINVAL) { /* the chain's frames do not fit the sink as named (image:x.pgm for grayf32) */
            fprintf(stderr, "%s: sink '%s': %s\n", prog, o.sink, rv_context_error(ctx));
            rc = EXIT_USAGE;
        } else {
            rc = unavailable("sink", o.sink, err, ctx);
        }
        goto out;
    }

    live lv = {0, 0.0, 0};
    lv.on = !o.quiet && (o.stats == 1 || (o.stats == -1 && isatty(2)));
    RV_StreamSettings ss;
    rv_stream_settings_default(&ss);
    ss.ring_frames = o.ring;
    if (o.gpu_streams > 0)
        ss.gpu_streams = o.gpu_streams;
    ss.policy = o.policy >= 0 ? (RV_RingPolicy)o.policy : live_src ? RV_RING_LATEST : RV_RING_BLOCK;
    ss.max_frames = o.frames;
    ss.sink = sink;
    ss.on_frame = on_frame;
    ss.user = &lv;
    ss.log_path = o.log_path;
    ss.adapt.priority = o.priority;
    ss.adapt.deadline_s = o.deadline_ms / 1e3;
    ss.adapt.fixed_spatial = o.fixed_si;
    ss.adapt.fixed_temporal = o.fixed_st;
    ss.adapt.enabled = !o.no_adapt;
    if (o.fixed_si) {
        ss.spatial_stride = o.fixed_si;
        ss.temporal_stride = o.fixed_st ? o.fixed_st : 1;
    }
    if ((err = rv_streaming_create(ctx, src, &ss, &st)) < 0) {
        fprintf(stderr, "%s: %s\n", prog, rv_context_error(ctx));
        rc = EXIT_RUNTIME;
        goto out;
    }

    g_stream = st;
    if (g_interrupted) /* Ctrl-C during the setup: the run stops at once */
        rv_streaming_stop(st);
    g_log_made = NULL; /* the run writes the log */
    err = rv_streaming_run(st, sv);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (lv.printed)
        fprintf(stderr, "\n");
    RV_StreamSummary sum;
    rv_streaming_summary(st, &sum);
    g_stream = NULL;
    if (err < 0) {
        fprintf(stderr, "%s: %s\n", prog, rv_context_error(ctx)[0] ? rv_context_error(ctx) : rv_strerror(err));
        rc = EXIT_RUNTIME;
    }
    if (!o.quiet)
        print_summary(&sum, sv, &o, chain, nchain);
    if (sum.in_flight != 0)
        rc = EXIT_RUNTIME;

out:
    rv_streaming_destroy(&st);
    for (int i = 0; i < nchain; i++)
        run_stage_release(&chain[i]);
    rv_sink_close(&sink);
    rv_source_close(&src);
    rv_stage_vector_destroy(&sv);
    for (int i = 0; i < o.nmodules; i++)
        rv_module_unload(&env.user[i]);
    rv_module_unload(&env.samples);
    rv_module_unload(&env.rvrun);
    rv_module_unload(&env.yuyv);
    g_env = NULL;
    rv_context_destroy(&ctx);
    if (g_log_made)
        unlink(g_log_made);
    return rc;
}
