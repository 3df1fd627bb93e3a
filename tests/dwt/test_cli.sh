#!/bin/sh
# rv-dwt round trip on a small PGM: forward to PFM coefficients, inverse to PGM,
# the result equals the input. Exit 77 (skipped) while image files are not
# implemented (rv-dwt exits 3 on RV_ENOSYS).
set -u
tool="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
{ printf 'P5\n13 7\n255\n'; i=0; while [ $i -lt 91 ]; do printf "\\$(printf '%03o' $(( (i * 37 + 11) % 256 )))"; i=$((i + 1)); done; } > "$dir/in.pgm"
"$tool" forward -w 97 -l 2 "$dir/in.pgm" "$dir/c.pfm"
rc=$?
if [ $rc -eq 3 ]; then echo "SKIPPED: image file I/O not implemented"; exit 77; fi
[ $rc -eq 0 ] || exit 1
head -c 2 "$dir/c.pfm" | grep -q Pf || { echo "coefficients are not a grey PFM"; exit 1; }
"$tool" inverse -w 97 -l 2 "$dir/c.pfm" "$dir/out.pgm" || exit 1
cmp "$dir/in.pgm" "$dir/out.pgm" || { echo "round trip differs"; exit 1; }
"$tool" forward -w 53 -l 9 -m outofplace "$dir/in.pgm" "$dir/c2.pfm" || exit 1
"$tool" inverse -w 53 -l 9 -m outofplace "$dir/c2.pfm" "$dir/out2.pgm" || exit 1
cmp "$dir/in.pgm" "$dir/out2.pgm" || exit 1
# --help: the usage on stdout, exit 0
help=$("$tool" --help 2>/dev/null) || { echo "rv-dwt --help: exit status not 0"; exit 1; }
case "$help" in "usage: rv-dwt"*) ;; *) echo "rv-dwt --help: no usage on stdout"; exit 1;; esac
# bad option values are usage errors (exit 2), not silently replaced by defaults
for bad in "-l abc" "-l -1" "-l 33" "-l 2x" "-m foo" "-i foo" "-b foo" "-w foo"; do
  # shellcheck disable=SC2086
  "$tool" forward $bad "$dir/in.pgm" "$dir/bad.pfm" 2>/dev/null
  rc=$?
  [ $rc -eq 2 ] || { echo "rv-dwt forward $bad: exit $rc, expected 2"; exit 1; }
  [ ! -e "$dir/bad.pfm" ] || { echo "rv-dwt forward $bad wrote an output"; exit 1; }
done
for good in "-m inplace" "-i block" "-b cpu" "-b auto"; do
  # shellcheck disable=SC2086
  "$tool" forward $good "$dir/in.pgm" "$dir/good.pfm" || { echo "rv-dwt forward $good failed"; exit 1; }
done
# a failure the library reports (a truncated raster) is said once, by the tool
printf 'P5\n4 4\n255\nab' > "$dir/short.pgm"
"$tool" forward "$dir/short.pgm" "$dir/short.pfm" 2> "$dir/err.txt"
rc=$?
[ $rc -eq 1 ] || { echo "rv-dwt on a truncated PGM: exit $rc, expected 1"; exit 1; }
[ ! -e "$dir/short.pfm" ] || { echo "rv-dwt on a truncated PGM wrote an output"; exit 1; }
n=$(grep -c truncated "$dir/err.txt")
[ "$n" -eq 1 ] || { echo "rv-dwt on a truncated PGM: the reason $n times on stderr, expected once"; cat "$dir/err.txt"; exit 1; }
# the .pgm extension in any case: an 8-bit PGM (P5), the round trip exact, no warning
"$tool" inverse -w 97 -l 2 "$dir/c.pfm" "$dir/OUT.PGM" 2> "$dir/err.txt" || { echo "inverse to OUT.PGM failed"; exit 1; }
[ "$(head -c 2 "$dir/OUT.PGM")" = P5 ] || { echo "inverse to OUT.PGM did not write a PGM"; exit 1; }
cmp "$dir/in.pgm" "$dir/OUT.PGM" || { echo "round trip through OUT.PGM differs"; exit 1; }
! grep -q clamped "$dir/err.txt" || { echo "a warning on an 8-bit round trip"; cat "$dir/err.txt"; exit 1; }
"$tool" inverse -w 97 -l 2 "$dir/c.pfm" "$dir/out.Pgm" || exit 1
cmp "$dir/in.pgm" "$dir/out.Pgm" || { echo "round trip through out.Pgm differs"; exit 1; }
# a 16-bit image's coefficients (0, 256, ..., 65280) inverted into an 8-bit PGM: 7 samples
# clamped, with a warning (exit 0)
{ printf 'P5\n4 2\n65535\n'; for v in 000 001 002 004 010 020 100 377; do printf "\\$v\\000"; done; } > "$dir/in16.pgm"
"$tool" forward -w 53 -l 1 "$dir/in16.pgm" "$dir/c16.pfm" || exit 1
"$tool" inverse -w 53 -l 1 "$dir/c16.pfm" "$dir/out16.pgm" 2> "$dir/err.txt"
rc=$?
[ $rc -eq 0 ] || { echo "inverse of 16-bit coefficients to .pgm: exit $rc"; exit 1; }
grep -q "rv-dwt: warning: .*out16.pgm: 7 of 8 samples were outside 0..255 and clamped" "$dir/err.txt" || { echo "no clamping warning"; cat "$dir/err.txt"; exit 1; }
"$tool" inverse -w 53 -l 1 "$dir/c16.pfm" "$dir/out16.pfm" 2> "$dir/err.txt" || exit 1
! grep -q clamped "$dir/err.txt" || { echo "a clamping warning for a PFM output"; exit 1; }
# OUT names a kind of file the tool does not write: a usage error (exit 2), said on stderr,
# nothing written (forward writes PFM coefficients; inverse PFM, or PGM for .pgm)
for bad in "forward c.ppm" "forward c.pgm" "forward c" "forward c.pfm.txt" "inverse out.ppm" "inverse out"; do
  # shellcheck disable=SC2086
  set -- $bad
  if [ "$1" = forward ]; then src="$dir/in.pgm"; else src="$dir/c.pfm"; fi
  "$tool" "$1" "$src" "$dir/$2" > "$dir/out.txt" 2> "$dir/err.txt"
  rc=$?
  [ $rc -eq 2 ] || { echo "rv-dwt $1 to $2: exit $rc, expected 2"; exit 1; }
  [ ! -e "$dir/$2" ] || { echo "rv-dwt $1 wrote $2"; exit 1; }
  [ ! -s "$dir/out.txt" ] || { echo "rv-dwt $1 to $2: output on stdout"; exit 1; }
  if [ "$1" = forward ]; then want="OUT must end in .pfm"; else want="(.pgm), nothing else"; fi
  grep -qF "rv-dwt: $dir/$2: " "$dir/err.txt" && grep -qF "$want" "$dir/err.txt" ||
    { echo "rv-dwt $1 to $2: no clear message"; cat "$dir/err.txt"; exit 1; }
done
"$tool" forward -w 97 -l 2 "$dir/in.pgm" "$dir/C.PFM" || { echo "forward to C.PFM failed"; exit 1; }
cmp "$dir/c.pfm" "$dir/C.PFM" || { echo "forward to C.PFM differs"; exit 1; }
# --help says which names OUT may have
case "$help" in *"OUT must end in .pfm"*) ;; *) echo "rv-dwt --help: no word of OUT's extension"; exit 1;; esac
echo "ok"
