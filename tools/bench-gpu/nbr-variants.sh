#!/usr/bin/env bash
# tools/bench-gpu/nbr-variants.sh - one device call for the procNbr tuning
# (docs/perf/cuda-tuning.md, round 6): builds the PTX variants of the
# samples module named below (this kernel.h with other strip shapes, and
# optionally main's kernel.h from MAIN_TREE), runs tools/gpu-check (core
# bench with RV_BENCH_NBR_ALT = the variants, gpu_equivalence, gpu_emu), then
# gpu_equivalence once more with each variant's PTX in place of the module's,
# then Nsight Compute on one 4K emboss (tools/bench-gpu/ncu_driver.c).
# NCU_TIMEOUT=0 skips Nsight; NCU_MOD = module folder for it (e.g.
# /tmp/nbr-alt/mod-bulk: a variant's PTX, made by the equivalence runs).
# Usage (repository root): OUT=dir MAIN_TREE=path bash tools/bench-gpu/nbr-variants.sh
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/nbr-variants}; mkdir -p "$out"
alt=/tmp/nbr-alt; mkdir -p "$alt"
nv() { (cd "$1/modules/samples" && nvcc -ptx -arch=compute_90 -O3 -std=c++17 -DRV_CUDA=1 ${3:-} -I../../ravioli/include -x cu samples.c -o "$2"); }
# round 8 (nbr6; docs/perf/cuda-tuning.md): the default is now 16-byte
# copies of interior tiles; v16off = round 6's sample-by-sample copies;
# bulk = one bulk copy (TMA) a tile row, completed through an mbarrier;
# bulkK4m6 = bulk with 4 x 2 strips, 6 blocks a multiprocessor. (The
# device runs of round 8 had v16off as "this" and v16 = -DRV_GPU_NBR_V16=1.)
# NBR_NAMES / NBR_FLAGS (space- / '|'-separated) replace the list.
names=(v16off bulk bulkK4m6)
flags=("-DRV_GPU_NBR_V16=0"
       "-DRV_GPU_NBR_BULK=1"
       "-DRV_GPU_NBR_BULK=1 -DRV_GPU_NBR_ROWS=4 -DRV_GPU_NBR_MINB=6")
if [ -n "${NBR_NAMES:-}" ]; then
  read -r -a names <<< "$NBR_NAMES"
  IFS='|' read -r -a flags <<< "$NBR_FLAGS"
fi
list=""
[ -n "${MAIN_TREE:-}" ] && nv "$MAIN_TREE" "$alt/main.ptx" && list="main=$alt/main.ptx"
for i in "${!names[@]}"; do
  nv "$root" "$alt/${names[$i]}.ptx" "${flags[$i]}" && list="$list${list:+,}${names[$i]}=$alt/${names[$i]}.ptx"
done
echo "variants: $list"
[ -n "${DRY:-}" ] && exit 0
RV_BENCH_NBR_ALT="$list" TARGETS="ravioli samples gpu_equivalence test_gpu_emu rv-bench-gpu-core" \
  TESTS='^(gpu_equivalence|gpu_emu_part[0-9])$' BENCHES=core BENCH_TIMEOUT=${BENCH_TIMEOUT:-150} OUT="$out" bash tools/gpu-check
rc=$?
# the variants through the backend: gpu_equivalence with each one's PTX
# EQUIV_NAMES (space-separated) limits these runs to the variants named
for n in ${EQUIV_NAMES:-${names[@]}}; do
  d=$alt/mod-$n; mkdir -p "$d"
  [ -f "$alt/$n.ptx" ] || continue
  cp build/modules/samples.so "$d/" && cp "$alt/$n.ptx" "$d/samples.ptx"
  RAVIOLI_MODULE_PATH=$d timeout 60 build/tests/gpu/gpu_equivalence > "$out/equiv-$n.log" 2>&1
  echo "gpu_equivalence with $n: exit $? ($(grep -c PASSED "$out/equiv-$n.log") PASSED lines)"
done
[ "${NCU_TIMEOUT:-80}" != 0 ] && gcc -O2 -Iravioli/include tools/bench-gpu/ncu_driver.c -o /tmp/ncu_driver -Lbuild/ravioli -lravioli \
  -Wl,-rpath,"$root/build/ravioli" && command -v ncu >/dev/null &&
  RAVIOLI_MODULE_PATH=${NCU_MOD:-build/modules} timeout ${NCU_TIMEOUT:-80} ncu --clock-control none -k 'regex:rvk_emboss$' --launch-skip 1 \
    --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section Occupancy --section SchedulerStats --section LaunchStats /tmp/ncu_driver > "$out/ncu-emboss.txt" 2>&1
echo "ncu: exit $?"
grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Hit|Achieved Occupancy|Issued Warp|No Eligible|Eligible Warps|Registers|Block Limit|Grid Size|Waves" "$out/ncu-emboss.txt" | head -30
exit $rc
