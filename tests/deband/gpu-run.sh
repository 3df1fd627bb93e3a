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
timeout 200 build-gpu/bench/rv-bench-gpu-deband 2>&1 | tee "$log/bench-gpu.log"
