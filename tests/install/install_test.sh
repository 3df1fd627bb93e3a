#!/usr/bin/env bash
# Installs ravioli into a scratch prefix and builds a user project with
# find_package(ravioli) + ravioli_add_module(), then runs it. Checks that
# every built-in module is installed in each form built (.so; .ptx; .fatbin),
# that the installed programs start without LD_LIBRARY_PATH (RPATH), and that
# the library finds the installed modules beside itself although the prefix is
# not the one it was configured for.
set -euo pipefail
build=$1 src=$2 work=$3 cc=$4 ptx=$5 flags=${6:-}
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/user_project" -B "$work/build" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_MODULE_LINKER_FLAGS="$flags" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
test -f "$work/build/mods/userk.so"
if [ "$ptx" -ge 1 ]; then test -f "$work/build/mods/userk.ptx"; echo "install test: PTX built too"; fi
if [ "$ptx" = 2 ]; then test -f "$work/build/mods/userk.fatbin"; echo "install test: fat binary built too"; fi
forms=".so"; [ "$ptx" -ge 1 ] && forms="$forms .ptx"; [ "$ptx" = 2 ] && forms="$forms .fatbin"
moddir=$(ls -d "$work"/prefix/lib*/ravioli/modules)
for m in dwt deband samples yuyv rvrun; do
  for f in $forms; do
    test -f "$moddir/$m$f" || { echo "install test: $m$f is not installed in $moddir"; exit 1; }
  done
done
echo "install test: modules installed ($forms)"
for p in ravioli-run rv-dwt rv-deband; do
  out=$(env -u LD_LIBRARY_PATH "$work/prefix/bin/$p" --help 2>&1) ||
    { echo "install test: installed $p --help failed: $out"; exit 1; }
done
echo "install test: installed programs start"
out=$(env -u LD_LIBRARY_PATH "$work/build/dwt_app") || { echo "$out"; exit 1; }
echo "$out"
case "$out" in
  *"module $moddir/dwt.so"*) ;;
  *) echo "install test: the dwt module was not taken from $moddir"; exit 1 ;;
esac
gpu_form=".ptx"; [ "$ptx" = 2 ] && gpu_form=".fatbin"
case "$out" in
  *"gpu module $moddir/dwt$gpu_form"*) echo "install test: the GPU took dwt$gpu_form" ;;
  *"gpu module"*) echo "install test: the GPU did not take $moddir/dwt$gpu_form"; exit 1 ;;
  *) echo "install test: no usable GPU (its part not run)" ;;
esac
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64:${LD_LIBRARY_PATH:-}" "$work/build/user_app"
