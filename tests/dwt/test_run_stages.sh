#!/bin/sh
# ravioli-run transforms an image: --source image:IN --stage dwt --sink image:OUT.pfm
# writes the coefficients rv-dwt forward writes (the same bytes; rv-dwt converts
# on the host, the stage in the module's kernel), for every wavelet, 8- and 16-bit
# PGMs and PFMs, and levels 0, 1, 3 and 9; --stage idwt gives the image back; the
# two in one chain too; a colour PPM's luma (the inserted yuv420 conversion);
# errors: a sink named for another kind (exit 2), idwt on integer frames (2),
# a bad depth (2), a missing image (3), a stream of several frames into one
# image (1, the first frame written).
#   test_run_stages.sh RAVIOLI_RUN RV_DWT [cpu|cuda]
set -u
run="$1"; dwt="$2"; be="${3:-cpu}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
rr() { "$run" --backend "$be" -q "$@"; }

# 8-bit 13x7 and 1x1, 16-bit 9x5 (big-endian samples), a float PFM from rv-dwt
{ printf 'P5\n13 7\n255\n'; i=0; while [ $i -lt 91 ]; do printf "\\$(printf '%03o' $(( (i * 37 + 11) % 256 )))"; i=$((i + 1)); done; } > "$dir/a.pgm"
printf 'P5\n1 1\n255\n\177' > "$dir/b.pgm"
{ printf 'P5\n9 5\n65535\n'; i=0; while [ $i -lt 45 ]; do printf "\\$(printf '%03o' $(( (i * 53 + 7) % 256 )))\\$(printf '%03o' $(( (i * 29 + 3) % 256 )))"; i=$((i + 1)); done; } > "$dir/c.pgm"
"$dwt" forward -b cpu -w 53 -l 1 "$dir/a.pgm" "$dir/f.pfm" 2>/dev/null || fail "rv-dwt forward (the float input)"

n=0
for img in a b c f; do
  case $img in f) ext=pfm;; *) ext=pgm;; esac
  for w in 0 1 2 3; do
    wn=$(echo "haar 53 97 dd137" | cut -d' ' -f$((w + 1)))
    for l in 0 1 3 9; do
      rr --source "image:$dir/$img.$ext" --stage "dwt:levels=$l,wavelet=$w" --sink "image:$dir/k.pfm" \
        || fail "dwt of $img.$ext, wavelet $w, $l levels: exit $?"
      "$dwt" forward -b cpu -w "$wn" -l "$l" "$dir/$img.$ext" "$dir/ref.pfm" 2>/dev/null || fail "rv-dwt forward"
      cmp -s "$dir/k.pfm" "$dir/ref.pfm" || fail "dwt of $img.$ext, wavelet $w, $l levels differs from rv-dwt forward"
      case $img in c) depth=16;; f) depth=32;; *) depth=8;; esac
      rr --source "image:$dir/k.pfm" --stage "idwt:levels=$l,wavelet=$w,depth=$depth" --sink "image:$dir/back.$ext" \
        || fail "idwt of $img.$ext: exit $?"
      if [ $depth -eq 32 ]; then
        "$dwt" inverse -b cpu -w "$wn" -l "$l" "$dir/k.pfm" "$dir/ref.pfm" 2>/dev/null || fail "rv-dwt inverse"
        cmp -s "$dir/back.$ext" "$dir/ref.pfm" || fail "idwt depth=32 of $img differs from rv-dwt inverse"
      else
        cmp -s "$dir/back.$ext" "$dir/$img.$ext" || fail "idwt of $img.$ext, wavelet $w, $l levels: not the image"
      fi
      n=$((n + 1))
    done
  done
  # forward and inverse in one chain
  case $img in c) depth=16;; f) depth=32;; *) depth=8;; esac
  rr --source "image:$dir/$img.$ext" --stage dwt:levels=4 --stage "idwt:levels=4,depth=$depth" \
     --sink "image:$dir/rt.$ext" || fail "dwt + idwt of $img: exit $?"
  [ "$img" = f ] || cmp -s "$dir/rt.$ext" "$dir/$img.$ext" || fail "dwt + idwt of $img.$ext: not the image"
done
[ $n -eq 64 ] || fail "$n cases, expected 64"

# a colour PPM: its luma (BT.601, through the inserted yuv420 stage), said on stderr
{ printf 'P6\n4 2\n255\n'; printf 'abcdefghijklmnopqrstuvwx'; } > "$dir/rgb.ppm"
"$run" --backend "$be" --source "image:$dir/rgb.ppm" --stage dwt:levels=1 --sink "image:$dir/rgb.pfm" 2> "$dir/err.txt" \
  || fail "dwt of a PPM: exit $?"
grep -q "inserted stage 'yuv420'" "$dir/err.txt" || { cat "$dir/err.txt"; fail "dwt of a PPM: no note of the conversion"; }
head -c 2 "$dir/rgb.pfm" | grep -q Pf || fail "dwt of a PPM: no PFM"

# errors
expect() { # status, stderr text, args...
  want=$1; text=$2; shift 2
  "$run" --backend "$be" "$@" > /dev/null 2> "$dir/err.txt"
  st=$?
  [ $st -eq "$want" ] || { cat "$dir/err.txt"; fail "ravioli-run $*: exit $st, expected $want"; }
  grep -q -- "$text" "$dir/err.txt" || { cat "$dir/err.txt"; fail "ravioli-run $*: no '$text' on stderr"; }
}
expect 2 "the name must end in .pfm" --source "image:$dir/a.pgm" --stage dwt --sink "image:$dir/x.pgm"
[ ! -e "$dir/x.pgm" ] || fail "a refused sink wrote its file"
expect 2 "takes grayf32 frames" --source "image:$dir/a.pgm" --stage idwt --sink null
expect 2 "depth must be 8, 16 or 32" --source "image:$dir/k.pfm" --stage idwt:depth=12 --sink null
expect 3 "cannot open" --source "image:$dir/none.pgm" --stage dwt --sink null
expect 3 "Y4M cannot carry grayf32" --source "image:$dir/a.pgm" --stage dwt --sink "y4m:$dir/x.y4m"
expect 2 "same file" --source "image:$dir/k.pfm" --stage idwt:depth=32 --sink "image:$dir/k.pfm"
# several frames into one image: the first is written, the run fails
expect 1 "takes one frame" --source synthetic:16x8 --frames 3 --stage gray --sink "image:$dir/many.ppm" --no-adapt
head -c 2 "$dir/many.ppm" | grep -q P6 || fail "several frames: the first was not written"
echo "ok: $n transforms"
