#!/usr/bin/env bash
# tests/deband/gpu-run.sh - the deband component on the GPU machine in one
# call: configure with PTX, build the deband targets only, run the GPU
# benchmark (SWEEP=1: with --sweep, the launch shapes of the tiled entries),
# the deband GPU tests (the gpu-labelled one must pass, not skip) and, with
# BEFORE=DIR (another checkout, e.g. the main branch), that checkout's
# benchmark in the same call (before / after on one device).
# NCU=1: then an ncu profile of one launch (NCU_KERNEL, default the 16-bit
# mode-2 tiled entry). Logs go to $OUT/deband/ when OUT is set.
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
log=${OUT:-/tmp}/deband; mkdir -p "$log"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -2
. "$root/tests/deband/gpu-lib.sh"
tests=(test_deband_gpu)
[ "${ALLTESTS:-0}" = 1 ] && tests=(test_deband_cpu test_deband_gpu test_deband_cli rv-deband)
build . "$log/after" deband ravioli_deband rv-bench-gpu-deband "${tests[@]}" & pa=$!
if [ -n "${BEFORE:-}" ]; then build "$BEFORE" "$log/before" deband ravioli_deband rv-bench-gpu-deband & pb=$!; fi
wait $pa || exit 1
[ -n "${BEFORE:-}" ] && { wait $pb || echo "before: build failed"; }
echo "build ok"
sweep=(); [ "${SWEEP:-0}" = 1 ] && sweep=(--sweep)
echo "== after"
timeout ${BENCH_TIMEOUT:-120} build-gpu/bench/rv-bench-gpu-deband "${sweep[@]}" 2>&1 | tee "$log/bench-after.log"
if [ -n "${BEFORE:-}" ]; then
  echo "== before ($BEFORE)"
  (cd "$BEFORE" && timeout ${BENCH_TIMEOUT:-120} build-gpu/bench/rv-bench-gpu-deband) 2>&1 | tee "$log/bench-before.log"
fi
if [ "${NCU:-0}" = 1 ]; then
  # one launch of the 16-bit mode-2 tiled entry (1080p 4:4:4, the 4th):
  # issue, stall reasons and the source lines that stall
  echo "== ncu"
  timeout ${NCU_TIMEOUT:-100} ncu --clock-control none -k regex:"${NCU_KERNEL:-deband_m2b_16to16_s}\$" \
    --launch-skip 3 --launch-count 1 --kill yes --section SpeedOfLight --section Occupancy \
    --section SchedulerStats --section WarpStateStats --section InstructionStats \
    --section MemoryWorkloadAnalysis --section SourceCounters \
    build-gpu/bench/rv-bench-gpu-deband > "$log/ncu.log" 2>&1
  echo "ncu exit $?"; grep -vE "^ *-+ *-+" "$log/ncu.log" | tail -120
fi
treg="test_deband_gpu$"; [ "${ALLTESTS:-0}" = 1 ] && treg="test_deband_(cpu|gpu|cli)$"
ctest --test-dir build-gpu -R "$treg" --output-on-failure --timeout 300 2>&1 | tee "$log/ctest.log" | tail -12
