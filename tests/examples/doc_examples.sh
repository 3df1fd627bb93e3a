#!/bin/sh
# The C examples of the README, docs/ and the public headers' comments, taken
# from the text as it stands (a fenced ```c block found by a line it holds, or
# the indented lines of a header comment), compiled with -std=c11 -Wall
# -Wextra -Werror against the built libraries; a few lines of wrapper give
# each fragment its variables. The complete ones run on the CPU backend.
#   doc_examples.sh SRC WORK CC "FLAGS" LIBDIR...
# A fragment that no longer compiles means the example and the API parted.
set -eu
src=$1 work=$2 cc=$3 flags=$4
shift 4
src=$(cd "$src" && pwd)
libs="" rpath=""
for d in "$@"; do d=$(cd "$d" && pwd); libs="$libs -L$d"; rpath="$rpath:$d"; done
rm -rf "$work" && mkdir -p "$work" && cd "$work"
# shellcheck disable=SC2086
CFLAGS="-std=c11 -Wall -Wextra -Werror $flags -I. -I$src/ravioli/include -I$src/modules/dwt/include
        -I$src/modules/deband/include -I$src/modules/samples -I$src/modules/yuyv"
fail() { echo "doc_examples: $*"; exit 1; }

# block FILE TEXT: the ```c block of FILE that holds TEXT, without #include lines
block() {
  awk -v pat="$2" '
    /^```c[ \t]*$/ { inb = 1; buf = ""; next }
    inb && /^```[ \t]*$/ { inb = 0; if (index(buf, pat)) { printf "%s", buf; found = 1; exit } next }
    inb && !/^#include/ { buf = buf $0 "\n" }
    END { if (!found) exit 1 }' "$1" || fail "$1: no \`\`\`c block with '$2'"
}
# hblock FILE FROM TO: the comment lines " *     code" of FILE from the one
# holding FROM to the one holding TO, without the comment's indentation
hblock() {
  awk -v a="$2" -v b="$3" '
    !on && index($0, a) { on = 1 }
    on { l = $0; if (l ~ /^ \*$/) l = ""; else if (!sub(/^ \*     /, "", l)) exit 1;
         if (l !~ /^#include/) print l }
    on && index($0, b) { done = 1; exit }
    END { if (!done) exit 1 }' "$1" || fail "$1: no comment example from '$2' to '$3'"
}
# fn / body: the function definitions at the top of a fragment (up to the
# last line that is a lone "}"), and the statements after them
fn()   { awk '{ l[NR] = $0 } /^}$/ { e = NR } END { for (i = 1; i <= e; i++) print l[i] }'; }
body() { awk '{ l[NR] = $0 } /^}$/ { e = NR } END { for (i = e + 1; i <= NR; i++) print l[i] }'; }

module() { # NAME SOURCE: a kernel module
  # shellcheck disable=SC2086
  $cc $CFLAGS -O2 -fPIC -shared -o "$1.so" "$2" || fail "$2 does not compile"
}
program() { # NAME SOURCE LIBS...: a program against the built libraries
  n=$1 s=$2
  shift 2
  # shellcheck disable=SC2086
  $cc $CFLAGS -o "$n" "$s" $libs "$@" -lravioli -Wl,-rpath,"${rpath#:}" -lm || fail "$s does not compile"
}
run() { # PROGRAM: runs it on the CPU, quietly unless it fails or the library logs an error
  RAVIOLI_CUDA_DRIVER=/nonexistent/libcuda.so.1 "./$1" >"$1.out" 2>&1 || { cat "$1.out"; fail "$1 failed"; }
  if grep -q '^ravioli: error' "$1.out"; then cat "$1.out"; fail "$1: the library reported an error"; fi
}

# ---- README: a kernel source, the host program that runs it, a stage ----
block "$src/README.md" 'RV_PROC_PIX(binarize' | sed 's/^{ \.\.\. }$/{ (void)prm; return rv_nbr_rgba(n, 0, 0); }/' > readme_kernels.c
printf '#include <ravioli/kernel.h>\n' | cat - readme_kernels.c > mykernels.c
module mykernels mykernels.c
{
  printf '#include <ravioli/ravioli.h>\ntypedef struct { int32_t threshold; } bin_params;\nint main(void)\n{\n'
  block "$src/README.md" 'rv_module_load(ctx, "mykernels"'
  printf 'return 0;\n}\n'
} > readme_host.c
program readme_host readme_host.c
{ printf 'P6\n4 2\n255\n'; printf '\000\000\000\377\377\377\020\200\360\200\200\200'; printf '\377\000\000\000\377\000\000\000\377\100\100\100'; } > in.ppm
RAVIOLI_MODULE_PATH=. run readme_host
[ "$(head -c 2 out.ppm)" = P6 ] || fail "README host program: no out.ppm"
block "$src/README.md" 'rv_stage_vector_push(sv, edges' > readme_stream.inc
{
  printf '#include <ravioli/ravioli.h>\n#include "samples_params.h"\nstatic const RV_Kernel *edge_kernel;\n'
  fn < readme_stream.inc
  printf 'int main(void)\n{\n    RV_Context *ctx; RV_Module *m; RV_Source *source; RV_SyntheticSettings sy;\n'
  printf '    if (rv_context_create(&ctx, NULL) < 0 || rv_module_load(ctx, "samples", &m) < 0 ||\n'
  printf '        rv_kernel_get(m, "edge", &edge_kernel) < 0) return 1;\n'
  printf '    rv_synthetic_settings_default(&sy); sy.width = 64; sy.height = 48; sy.frames = 3; sy.realtime = 0;\n'
  printf '    if (rv_source_open_synthetic(ctx, &sy, &source) < 0) return 1;\n'
  body < readme_stream.inc
  printf '    rv_streaming_destroy(&st); rv_stage_vector_destroy(&sv); rv_source_close(&source);\n'
  printf '    rv_context_destroy(&ctx);\n    return sum.processed == 3 && sum.error == 0 ? 0 : 1;\n}\n'
} > readme_stream.c
program readme_stream readme_stream.c
run readme_stream

# ---- header comments: kernel.h, stream.h, dwt.h, deband.h ----
{
  printf '#include <ravioli/kernel.h>\n'
  hblock "$src/ravioli/include/ravioli/kernel.h" '#include <ravioli/kernel.h>' 'RV_PROC_PIX(gray'
} > kernel_h.c
module kernel_h kernel_h.c
hblock "$src/ravioli/include/ravioli/stream.h" 'static void binarize' 'rv_stage_vector_destroy(&sv);' > stream_h.inc
{
  printf '#include <ravioli/ravioli.h>\n#include "samples_params.h"\n'
  printf 'static void edge(RV_Image *f, RV_Data *d)\n{\n    rv_threshold_params p = {0};\n'
  printf '    rv_data_check(d, rv_proc_nbr(rv_data_user(d), f, f, &p, sizeof(p)));\n}\n'
  fn < stream_h.inc
  printf 'int main(void)\n{\n    RV_Context *ctx; RV_Module *m; const RV_Kernel *kbin, *kedge; RV_Source *source; RV_Sink *window;\n'
  printf '    RV_SyntheticSettings sy;\n'
  printf '    if (rv_context_create(&ctx, NULL) < 0 || rv_module_load(ctx, "samples", &m) < 0 ||\n'
  printf '        rv_kernel_get(m, "binarize", &kbin) < 0 || rv_kernel_get(m, "edge", &kedge) < 0) return 1;\n'
  printf '    rv_synthetic_settings_default(&sy); sy.width = 64; sy.height = 48; sy.frames = 3; sy.realtime = 0;\n'
  printf '    if (rv_source_open_synthetic(ctx, &sy, &source) < 0 || rv_sink_open_null(ctx, &window) < 0) return 1;\n'
  body < stream_h.inc
  printf '    int ok = sum.processed == 3 && rv_sink_frames(window) == 3;\n'
  printf '    rv_sink_close(&window); rv_source_close(&source); rv_context_destroy(&ctx);\n    return ok ? 0 : 1;\n}\n'
} > stream_h.c
program stream_h stream_h.c
run stream_h
{
  printf '#include <ravioli/dwt.h>\nint main(void)\n{\n    RV_Context *ctx; RV_Image *img;\n'
  printf '    if (rv_context_create(&ctx, NULL) < 0 || rv_image_create(ctx, 17, 9, RV_FMT_GRAYF32, &img) < 0) return 1;\n'
  hblock "$src/modules/dwt/include/ravioli/dwt.h" 'RV_DwtSettings s;' 'rv_dwt_destroy(&dwt);'
  printf '    rv_context_destroy(&ctx);\n    return 0;\n}\n'
} > dwt_h.c
program dwt_h dwt_h.c -lravioli_dwt
run dwt_h
{
  printf '#include <stdio.h>\n#include <ravioli/deband.h>\nint main(void)\n{\n    RV_Context *ctx; RV_Image *src, *dst;\n'
  printf '    long long frame_index = 0;\n'
  printf '    if (rv_context_create(&ctx, NULL) < 0 || rv_image_create(ctx, 16, 8, RV_FMT_GRAY8, &src) < 0 ||\n'
  printf '        rv_image_create(ctx, 16, 8, RV_FMT_GRAY16, &dst) < 0) return 1;\n'
  hblock "$src/modules/deband/include/ravioli/deband.h" 'RV_Deband *db;' 'rv_deband_destroy(&db);'
  printf '    rv_context_destroy(&ctx);\n    return 0;\n}\n'
} > deband_h.c
program deband_h deband_h.c -lravioli_deband
run deband_h

# ---- docs/streaming.md: two stage functions ----
{
  printf '#include <ravioli/ravioli.h>\n#include "yuyv_params.h"\nstatic const RV_Kernel *k_yuyv;\n'
  block "$src/docs/streaming.md" 'static void detect('
  block "$src/docs/streaming.md" 'static void to_rgba('
  printf 'int main(void)\n{\n    RV_Context *ctx; RV_Module *ms, *my; const RV_Kernel *sad; RV_StageVector *sv;\n'
  printf '    RV_Image *f, *out = NULL; RV_BoxResult r; ptrdiff_t p;\n'
  printf '    if (rv_context_create(&ctx, NULL) < 0 || rv_module_load(ctx, "samples", &ms) < 0 ||\n'
  printf '        rv_module_load(ctx, "yuyv", &my) < 0 || rv_kernel_get(ms, "sad1", &sad) < 0 ||\n'
  printf '        rv_kernel_get(my, "yuyv_rgba", &k_yuyv) < 0 || rv_stage_vector_create(ctx, &sv) < 0 ||\n'
  printf '        rv_image_create(ctx, 20, 40, RV_FMT_RGBA8, &f) < 0) return 1;\n'
  printf '    unsigned char *w = rv_image_write(f, 0, &p);\n'
  printf '    for (int y = 0; y < 40; y++) for (int x = 0; x < 80; x++) w[y * p + x] = (unsigned char)(3 * x + y);\n'
  printf '    rv_stage_vector_push(sv, to_rgba, NULL, "to_rgba");\n    rv_stage_vector_push(sv, detect, (void *)sad, "detect");\n'
  printf '    int err = rv_stage_vector_apply(sv, f, NULL, &out);\n'
  printf '    int ok = err == 0 && out && rv_image_width(out) == 40 && rv_data_get_box(rv_stage_vector_data(sv), "match", &r) >= 0;\n'
  printf '    rv_stage_vector_destroy(&sv); rv_context_destroy(&ctx);\n    return ok ? 0 : 1;\n}\n'
} > streaming_md.c
program streaming_md streaming_md.c
run streaming_md

# ---- docs/video.md: a source into a sink on their own ----
{
  printf '#include <ravioli/ravioli.h>\nint main(void)\n{\n    RV_Context *ctx;\n'
  printf '    if (rv_context_create(&ctx, NULL) < 0) return 1;\n'
  block "$src/docs/video.md" 'rv_source_open_y4m(ctx, "in.y4m"'
  printf '    rv_context_destroy(&ctx);\n    return err == RV_EPIPE ? 0 : 1;\n}\n'
} > video_md.c
program video_md video_md.c
{ printf 'YUV4MPEG2 W4 H2 F25:1 C420jpeg\n'; for _ in 1 2 3; do printf 'FRAME\n\020\040\060\100\120\140\160\200\200\200\200\200'; done; } > in.y4m
run video_md
[ "$(grep -c FRAME out.y4m)" = 3 ] || fail "docs/video.md example: out.y4m does not hold the 3 frames"

# ---- docs/dwt.md: the API, the denoising stage, frames to coefficients ----
{
  printf '#include <ravioli/dwt.h>\n'
  printf 'static int api(RV_Context *ctx, RV_Context *ctx2, RV_Buffer *buf, RV_Image *grayf32_image,\n'
  printf '               const float *host_in, float *host_out, int w, int h, size_t pitch_bytes, int levels)\n{\n'
  block "$src/docs/dwt.md" 'rv_dwt_forward_buffer(dwt, buf'
  printf '    return dwt == NULL ? 0 : 1;\n}\n'
  printf 'static int denoise(RV_Context *ctx, RV_Image *frame)\n{\n'
  block "$src/docs/dwt.md" 'rv_dwt_denoise_default(&p)'
  printf '    rv_dwt_destroy(&dwt);\n    return 0;\n}\n'
  printf 'static int frames(RV_Dwt *dwt, RV_Image *frame, RV_Image *coef, int levels)\n{\n'
  block "$src/docs/dwt.md" 'rv_dwt_forward_frame(dwt, frame, coef, levels)'
  printf '    return 0;\n}\n'
  printf 'int main(void)\n{\n    RV_Context *ctx, *ctx2; RV_Buffer *buf; RV_Image *img, *g8;\n'
  printf '    static float in[16 * 12], out[16 * 12];\n'
  printf '    if (rv_context_create(&ctx, NULL) < 0 || rv_context_create(&ctx2, NULL) < 0 ||\n'
  printf '        rv_buffer_create(ctx, sizeof(in), &buf) < 0 || rv_image_create(ctx, 16, 12, RV_FMT_GRAYF32, &img) < 0 ||\n'
  printf '        rv_image_create(ctx, 16, 12, RV_FMT_GRAY8, &g8) < 0) return 1;\n'
  printf '    int rc = api(ctx, ctx2, buf, img, in, out, 16, 12, 16 * sizeof(float), 2) | denoise(ctx, g8);\n'
  printf '    RV_DwtSettings s; rv_dwt_settings_default(&s); RV_Dwt *d = NULL;\n'
  printf '    if (rv_dwt_create(ctx, &s, &d) < 0) return 1;\n'
  printf '    rc |= frames(d, g8, img, 3) < 0;\n    rv_dwt_destroy(&d);\n'
  printf '    rv_context_destroy(&ctx2); rv_context_destroy(&ctx);\n    return rc;\n}\n'
} > dwt_md.c
program dwt_md dwt_md.c -lravioli_dwt
run dwt_md

# ---- docs/deband.md: the API ----
{
  printf '#include <stdio.h>\n#include <ravioli/deband.h>\nint main(void)\n{\n'
  printf '    RV_Context *ctx; RV_Image *in; const int w = 16, h = 8; const RV_Format fmt = RV_FMT_YUV420P8;\n'
  printf '    long long frame_index = 0;\n'
  printf '    if (rv_context_create(&ctx, NULL) < 0 || rv_image_create(ctx, w, h, fmt, &in) < 0) return 1;\n'
  block "$src/docs/deband.md" 'rv_deband_create(ctx, &db);'
  printf '    rv_context_destroy(&ctx);\n    return 0;\n}\n'
} > deband_md.c
program deband_md deband_md.c -lravioli_deband
run deband_md

# ---- docs/cuda.md: window functions of several windows ----
{
  printf '#include <ravioli/kernel.h>\n'
  block "$src/docs/cuda.md" 'RV_PROC_BOXN(sad, sad'
  block "$src/docs/cuda.md" 'RV_PROC_BOXR(sad_rs4'
} > cuda_md.c
module cuda_md cuda_md.c

echo "doc_examples: 12 examples compiled, 9 of them run"
