#!/usr/bin/env bash
# Installs ravioli into a scratch prefix and builds a user project with
# find_package(ravioli) + ravioli_add_module(), then runs it.
set -euo pipefail
build=$1 src=$2 work=$3 cc=$4 ptx=$5 flags=${6:-}
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/user_project" -B "$work/build" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_MODULE_LINKER_FLAGS="$flags" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
test -f "$work/build/mods/userk.so"
if [ "$ptx" -ge 1 ]; then test -f "$work/build/mods/userk.ptx"; echo "install test: PTX built too"; fi
if [ "$ptx" = 2 ]; then
  test -f "$work/build/mods/userk.fatbin"
  ls "$work"/prefix/lib*/ravioli/modules/dwt.fatbin >/dev/null
  echo "install test: fat binaries built and installed too"
fi
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64:${LD_LIBRARY_PATH:-}" "$work/build/user_app"
