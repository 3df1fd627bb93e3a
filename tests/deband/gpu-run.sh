#!/usr/bin/env bash
# tests/deband/gpu-run.sh - the deband component on the GPU machine in one
# call: configure with PTX, build the deband targets only, run the deband
# tests (the gpu-labelled one must pass, not skip), then the GPU benchmark.
# Logs go to $OUT/deband/ when OUT is set.
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
log=${OUT:-/tmp}/deband; mkdir -p "$log"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -2
if ! pkg-config --exists cmocka 2>/dev/null; then
  for d in "$root/.devdeps" "$root/../.devdeps" "$root/../../.devdeps"; do
    if [ -d "$d" ]; then
      devroot=/tmp/rv-devroot
      for f in "$d"/*.deb; do dpkg -x "$f" "$devroot"; done
      for pc in "$devroot"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc; do
        sed -i -e "s|^prefix=/usr|prefix=$devroot/usr|" -e "s|-I/usr/|-I$devroot/usr/|g" \
               -e "s|-L/usr/|-L$devroot/usr/|g" "$pc"
      done
      export CMAKE_PREFIX_PATH=$devroot/usr PKG_CONFIG_PATH=$devroot/usr/lib/x86_64-linux-gnu/pkgconfig
      export LD_LIBRARY_PATH=$devroot/usr/lib/x86_64-linux-gnu CFLAGS="-I$devroot/usr/include"
      break
    fi
  done
fi
cmake -S . -B build-gpu -DRV_PTX=ON -DCMAKE_BUILD_TYPE=Release > "$log/configure.log" 2>&1 || { tail -30 "$log/configure.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" --target deband ravioli_deband rv-deband test_deband_cpu test_deband_gpu \
  test_deband_cli rv-bench-gpu-deband rv-bench-deband > "$log/build.log" 2>&1 || { grep -E "error" -A5 "$log/build.log" | head -40; exit 1; }
echo "build ok"
ctest --test-dir build-gpu -R "deband" -E "emu" --output-on-failure --timeout 300 2>&1 | tee "$log/ctest.log" | tail -25
timeout ${BENCH_TIMEOUT:-120} build-gpu/bench/rv-bench-gpu-deband 2>&1 | tee "$log/bench-gpu.log"
# where the time goes: SASS opcode histogram of one tiled entry, and one
# profiled launch (Nsight Compute, clocks left alone)
if [ "${DEBAND_PROFILE:-1}" = 1 ]; then
  ptxas -arch=sm_90 build-gpu/modules/deband.ptx -o /tmp/deband.cubin && \
  cuobjdump -sass /tmp/deband.cubin > "$log/deband.sass" 2>&1 && \
  awk '/Function : rvk_deband_m2b_16to16_s$/{f=1;next} /Function :/{f=0} f' "$log/deband.sass" | \
    grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+' | awk '{print $NF}' | sed 's/\..*//' | \
    sort | uniq -c | sort -rn | head -16 | tr '\n' ' ' && echo "  (SASS opcodes, m2b_16to16_s)"
  if command -v ncu >/dev/null; then
    timeout ${NCU_TIMEOUT:-90} ncu --clock-control none --kernel-name regex:rvk_deband_m2b_16to16_s --launch-skip 5 --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section WarpStateStats \
      --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__cycles_elapsed.avg \
      build-gpu/bench/rv-bench-gpu-deband > "$log/ncu.log" 2>&1
    grep -E "Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc A|Achieved Occupancy|Registers Per|One or More Eligible|No Eligible|inst_executed|wavefronts|bank_conflicts|cycles_elapsed|Stall|stall" "$log/ncu.log" | head -40
  fi
fi
