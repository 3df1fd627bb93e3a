#!/usr/bin/env bash
# modules/dwt/bench/gpu-run.sh - the DWT module's part of a GPU-machine run:
# configure (PTX on), build the dwt targets only, run the dwt tests (the gpu
# one must pass, not skip) and rv-bench-gpu-dwt. Logs go to $OUT if set.
# CMocka comes from .devdeps (two levels up, as the device tool carries it).
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$root"
out=${OUT:-/tmp}
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tail -1
if ! pkg-config --exists cmocka 2>/dev/null; then
  for d in "$root/.devdeps" "$root/../.devdeps" "$root/../../.devdeps"; do
    [ -d "$d" ] && deps=$d && break
  done
  devroot=/tmp/rv-devroot
  for f in "${deps:?no .devdeps}"/*.deb; do dpkg -x "$f" "$devroot"; done
  for pc in "$devroot"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc; do
    sed -i -e "s|^prefix=/usr|prefix=$devroot/usr|" -e "s|-I/usr/|-I$devroot/usr/|g" -e "s|-L/usr/|-L$devroot/usr/|g" "$pc"
  done
  export CMAKE_PREFIX_PATH=$devroot/usr PKG_CONFIG_PATH=$devroot/usr/lib/x86_64-linux-gnu/pkgconfig
  export LD_LIBRARY_PATH=$devroot/usr/lib/x86_64-linux-gnu CFLAGS="-I$devroot/usr/include"
fi
if ! command -v pkg-config >/dev/null; then
  mkdir -p /tmp/rv-shim
  cat > /tmp/rv-shim/pkg-config <<SHIM
#!/usr/bin/env bash
r=${devroot:-}/usr
case " \$* " in *" --version "*) echo 0.29.2; exit 0;; esac
case "\$*" in *cmocka*) ;; *) exit 1;; esac
case " \$* " in
  *" --modversion "*) echo 1.1.5;;
  *--cflags-only-I*) echo "-I\$r/include";;
  *--cflags-only-other*|*--libs-only-other*) echo;;
  *--libs-only-L*) echo "-L\$r/lib/x86_64-linux-gnu";;
  *--libs-only-l*) echo "-lcmocka";;
  *--cflags*) echo "-I\$r/include";;
  *--libs*) echo "-L\$r/lib/x86_64-linux-gnu -lcmocka";;
  *--variable*) echo "\$r";;
  *) exit 0;;
esac
SHIM
  chmod +x /tmp/rv-shim/pkg-config
  export PATH=/tmp/rv-shim:$PATH
fi
# warnings of other compiler versions must not stop a measurement run
cmake -S . -B build -DRV_PTX=ON -DRV_WERROR=OFF > "$out/dwt-configure.log" 2>&1 || { tail -30 "$out/dwt-configure.log"; exit 1; }
for t in dwt ravioli_dwt test_dwt_gpu rv-bench-gpu-dwt test_dwt rv-dwt; do
  cmake --build build -j "$(nproc)" --target $t >> "$out/dwt-build.log" 2>&1 || echo "BUILD FAILED: $t"
done
grep -E "warning|error" "$out/dwt-build.log" | sort -u | head -20
echo "build done"
# DWT_CTEST: ctest -R regex (default dwt); RV_DWT_TEST_FILTER: cmocka filter inside test_dwt_gpu
run_ctest() { ctest --test-dir build -R "${DWT_CTEST:-dwt}" --output-on-failure --timeout "${DWT_CTEST_TIMEOUT:-300}" 2>&1 | tee "$out/dwt-ctest.log" | tail -25; }
run_bench() { timeout "${BENCH_TIMEOUT:-240}" ./build/bench/rv-bench-gpu-dwt "$@" 2>&1 | tee "$out/dwt-bench.log"; }
# RV_DWT_BENCH_FIRST=1: the benchmark before the tests (a short device call keeps the figures)
# DWT_NO_BENCH=1: build and test only; DWT_NO_TEST=1 too: build only (ncu-kernels.sh)
[ "${DWT_NO_BENCH:-0}" = 1 ] && { [ "${DWT_NO_TEST:-0}" = 1 ] || run_ctest; exit; }
if [ "${RV_DWT_BENCH_FIRST:-0}" = 1 ]; then run_bench "$@"; run_ctest; else run_ctest; run_bench "$@"; fi
