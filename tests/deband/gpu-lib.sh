# tests/deband/gpu-lib.sh - sourced by gpu-run.sh and gpu-ab.sh (the
# device machine): CMocka from .devdeps when the system lacks it, and
# build DIR LOG TARGETS... (a Release build with PTX in DIR/build-gpu).
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
build() { # DIR LOG TARGETS...
  local d=$1 l=$2; shift 2
  local t=(); for x in "$@"; do t+=(--target "$x"); done
  (cd "$d" && cmake -S . -B build-gpu -DRV_PTX=ON -DCMAKE_BUILD_TYPE=Release > "$l.configure.log" 2>&1 &&
   cmake --build build-gpu -j 8 "${t[@]}" > "$l.build.log" 2>&1) || { grep -E "error" -A5 "$l.build.log" | head -40; return 1; }
}
