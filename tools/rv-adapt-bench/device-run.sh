#!/usr/bin/env bash
# tools/rv-adapt-bench/device-run.sh - both real-load runs of rv-bench-adapt
# in one call on the GPU machine (16 cores, one GPU):
#
#   1. CPU: the CPU backend under a CPU hog, pinned with taskset to 2 cores
#      (2 pool threads; 2 spinning hogs in phase A, 6 in phase B, on the
#      same 2 cores): the shape of the 2-core development VM, without the
#      other jobs that shared it.
#   2. GPU: the CUDA backend under GPU contention: hog processes, each with
#      its own CUDA context, run kernels back to back on the same device
#      (1 in phase A, 3 in phase B).
#
#   OUT=/some/dir bash tools/rv-adapt-bench/device-run.sh   # from the repository root
#
# Environment: OUT (results; default /tmp/rv-adapt-out), BUILD (default
# build-adapt), SECONDS_CPU / ROUNDS_CPU (default 12 / 2), SECONDS_GPU /
# ROUNDS_GPU (default 10 / 2), GPU_SIZE (default 3840x2160), GPU_PASSES
# (default 100), CPU_CORES (taskset list, default 2,3).
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
final=${OUT:-/tmp/rv-adapt-out}
# the device tool returns at most 8 files: the runs write into a scratch
# folder, and $OUT gets the summaries, the printouts and one archive
out=$(mktemp -d /tmp/rv-adapt-run.XXXXXX)
build=${BUILD:-build-adapt}
mkdir -p "$final" "$out/cpu" "$out/gpu"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH

{
  echo "date: $(date -u)"
  echo "host: $(nproc) cores, $(uname -r)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -2
  uptime
} | tee "$out/machine.txt"

t0=$(date +%s)
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRV_PTX=ON -DRV_BUILD_TESTS=OFF \
     > "$out/configure.log" 2>&1; then
  tail -30 "$out/configure.log"; cp "$out/configure.log" "$final/"; echo "device-run: configure FAILED"; exit 1
fi
if ! cmake --build "$build" -j "$(nproc)" --target rv-bench-adapt samples > "$out/build.log" 2>&1; then
  tail -30 "$out/build.log"; cp "$out/build.log" "$final/"; echo "device-run: build FAILED"; exit 1
fi
echo "build: $(( $(date +%s) - t0 )) s"
export RAVIOLI_MODULE_PATH=$root/$build/modules
bench=$root/$build/bench/rv-bench-adapt

cores=${CPU_CORES:-2,3}
echo "== CPU backend, CPU hog, pinned to cores $cores (pool 2 threads, hogs 2 then 6 on the same cores)"
uptime | tee -a "$out/machine.txt"
timeout 95 taskset -c "$cores" "$bench" --threads 2 --seconds "${SECONDS_CPU:-12}" --rounds "${ROUNDS_CPU:-2}" \
  --hogs-a 2 --hogs-b 6 --csv-dir "$out/cpu" 2>&1 | tee "$out/cpu/out.txt"
echo "cpu rc=$?"

echo "== CUDA backend, GPU contention (hog processes with their own CUDA context)"
uptime | tee -a "$out/machine.txt"
timeout 100 "$bench" --backend cuda --size "${GPU_SIZE:-3840x2160}" --passes "${GPU_PASSES:-100}" \
  --seconds "${SECONDS_GPU:-10}" --rounds "${ROUNDS_GPU:-2}" --hogs-a 1 --hogs-b 3 \
  --csv-dir "$out/gpu" 2>&1 | tee "$out/gpu/out.txt"
echo "gpu rc=$?"
uptime | tee -a "$out/machine.txt"
echo "total: $(( $(date +%s) - t0 )) s"
cp "$out/machine.txt" "$final/machine.txt"
cp "$out/cpu/out.txt" "$final/cpu-out.txt" 2>/dev/null
cp "$out/gpu/out.txt" "$final/gpu-out.txt" 2>/dev/null
cp "$out/cpu/summary.csv" "$final/cpu-summary.csv" 2>/dev/null
cp "$out/gpu/summary.csv" "$final/gpu-summary.csv" 2>/dev/null
tar -czf "$final/runs.tar.gz" -C "$out" cpu gpu configure.log build.log
ls -la "$final"
