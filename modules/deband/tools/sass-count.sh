#!/usr/bin/env bash
# modules/deband/tools/sass-count.sh [IL] [GR] [KERNELS...]
#   Compiles the deband kernels for sm_90 with the plain entries reduced to
#   one (interlaced, grain) variant (default IL=0 GR=1) so that every
#   function stays under the 64 KB the old cuobjdump of
#   tools/sass/rv-sass-dump disassembles (the tiled entries are one variant
#   each anyway: *_s static noise, *_sd dynamic), then prints per kernel its
#   SASS size and registers and, for the tiled entries, the instructions of
#   the inner-tile path: the last four row blocks after the barrier with the
#   most shared-memory loads (4 rows x 4 pixels), divided by 16 pixels,
#   and the whole inner row loop (back-edge to back-edge, vector-store
#   path, row set-up and stores included), divided by its 16 pixels.
#   Needs RV_CUOBJDUMP (see tools/sass/rv-sass-dump). Output in /tmp/deband-sass.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
il=${1:-0}; gr=${2:-1}; shift 2 || true
kernels=${*:-deband_m2b_16to16_s deband_m2b_8to8_s deband_m0_16to16_s deband_m2n_16to16_s deband_m0_8to8_s}
out=/tmp/deband-sass; mkdir -p "$out"
NVCC=${RV_NVCC:-/usr/local/cuda/bin/nvcc}
src=${DEBAND_SRC:-$root/modules/deband/deband_kernels.c}   # another version: DEBAND_SRC, DEBAND_INC
printf '#define RV_DB_DISPATCH(CALL, ...) CALL(__VA_ARGS__, %d, %d)\n#include "%s"\n' \
  "$il" "$gr" "$src" > "$out/deband1.cu"
"$NVCC" -ptx -arch=compute_90 -O3 ${DEBAND_NVCC_FLAGS:-} -std=c++17 -DRV_CUDA=1 -I"$root/ravioli/include" \
  -I"${DEBAND_INC:-$root/modules/deband/include}" "$out/deband1.cu" -o "$out/deband1.ptx"
bash "$root/tools/sass/rv-sass-dump" "$out/deband1.ptx" "$out" $kernels
# The cuobjdump of rv-sass-dump (CUDA 11.8) leaves some sm_90 instructions
# undecoded (only their two hex words, e.g. the VIMNMX/VIADD forms of
# CUDA 12 code): they are read here from all.sass and counted as "?<op>".
for k in $kernels; do
  case $k in *_s) ;; *) continue ;; esac
  python3 "$root/modules/deband/tools/sass_inner.py" "$out/all.sass" "rvk_$k"
done
