#!/usr/bin/env bash
# tests/deband/gpu-ab.sh - before / after of the deband GPU kernels in ONE
# device call: builds this checkout and BASE (another checkout or export,
# e.g. the main branch) side by side, runs test_deband_gpu of this checkout
# (must pass, not skip) and both benchmarks, interleaved
# (base, after, test, after without chained launches, variants, sweep,
# base again).
#
#   BASE=DIR bash tests/deband/gpu-ab.sh
#
# Environment:
#   BASE       the checkout to compare with (required)
#   CASES      DEBAND_BENCH_CASES of the benchmark runs (default all cases)
#   VARIANTS   "name:DIR ..." more runs of this checkout's benchmark with
#              RAVIOLI_MODULE_PATH=DIR (a deband.ptx built with other
#              -D flags, e.g. launch bounds), cases VCASES (default CASES);
#              TESTVARS=1: test_deband_gpu with each variant too
#   SWEEP      1: this checkout's benchmark once more with --sweep, cases
#              SCASES (default CASES)
#   NOCHAIN    0: skip the run with RAVIOLI_CUDA_CHAINED=0
#   BASE2      0: skip the second run of BASE (cases B2CASES, default CASES)
#   SASS       1: cuobjdump -sass of this checkout's deband.ptx (sm_90) into
#              the logs, with the inner-path counts of sass_inner.py
# Logs: /tmp/ab, packed into $OUT/ab.tgz at the end when OUT is set (the
# device tool returns at most 8 files).
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
: "${BASE:?BASE=DIR (the checkout to compare with) is required}"
BASE=$(cd "$BASE" && pwd)
log=/tmp/ab; mkdir -p "$log"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -2
date -u +"start %Y-%m-%d %H:%M:%S UTC"
. "$root/tests/deband/gpu-lib.sh"
build . "$log/after" deband ravioli_deband rv-bench-gpu-deband test_deband_gpu & pa=$!
build "$BASE" "$log/base" deband ravioli_deband rv-bench-gpu-deband & pb=$!
wait $pa || exit 1
wait $pb || { echo "base: build failed"; exit 1; }
date -u +"built %H:%M:%S"
bench() { # NAME DIR CASES [ARGS...]  (environment passed through)
  local n=$1 d=$2 c=$3; shift 3
  echo "== $n ($(date -u +%H:%M:%S))"
  (cd "$d" && DEBAND_BENCH_CASES=$c timeout ${BENCH_TIMEOUT:-90} build-gpu/bench/rv-bench-gpu-deband "$@") 2>&1 |
    tee "$log/bench-$n.log" | grep -E "r15|r40|sweep|device-to-device|DIFF" || true
}
bench base "$BASE" "${CASES:-}"
bench after . "${CASES:-}"
echo "== test_deband_gpu ($(date -u +%H:%M:%S))"
ctest --test-dir build-gpu -R "test_deband_gpu$" --output-on-failure --timeout 120 2>&1 | tee "$log/ctest.log" | tail -6
[ "${NOCHAIN:-1}" = 0 ] || RAVIOLI_CUDA_CHAINED=0 bench after-nochain . "${CASES:-}"
for v in ${VARIANTS:-}; do
  RAVIOLI_MODULE_PATH=$(cd "${v#*:}" && pwd) bench "var-${v%%:*}" . "${VCASES:-${CASES:-}}"
  if [ "${TESTVARS:-0}" = 1 ]; then
    echo "== test_deband_gpu, variant ${v%%:*}"
    RAVIOLI_MODULE_PATH=$(cd "${v#*:}" && pwd) ctest --test-dir build-gpu -R "test_deband_gpu$" \
      --output-on-failure --timeout 120 2>&1 | tee "$log/ctest-${v%%:*}.log" | grep -E "tests passed|Failed|Passed"
  fi
done
[ "${SWEEP:-0}" = 1 ] && bench after-sweep . "${SCASES:-${CASES:-}}" --sweep
[ "${BASE2:-1}" = 1 ] && bench base2 "$BASE" "${B2CASES:-${CASES:-}}"
if [ "${SASS:-0}" = 1 ] && command -v cuobjdump >/dev/null; then
  ptxas -arch=sm_90 build-gpu/modules/deband.ptx -o "$log/deband.cubin" &&
    cuobjdump -sass "$log/deband.cubin" > "$log/all.sass" 2>&1 &&
    for k in deband_m0_16to16_s deband_m1b_16to16_s deband_m2b_16to16_s deband_m2n_16to16_s deband_m0_8to8_s deband_m2b_8to8_s; do
      python3 modules/deband/tools/sass_inner.py "$log/all.sass" "rvk_$k" 2>&1 | tail -3
    done
  rm -f "$log/deband.cubin"
fi
date -u +"end %H:%M:%S UTC"
[ -n "${OUT:-}" ] && tar czf "$OUT/ab.tgz" -C /tmp ab
