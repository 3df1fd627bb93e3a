#!/usr/bin/env bash
# modules/dwt/bench/ncu-kernels.sh [N ...] - the kernels of one DWT transform, each
# timed alone by Nsight Compute, on the GPU machine: builds the dwt targets
# (gpu-run.sh, no tests, no benchmark), runs `rv-dwt forward -l ${LEVELS:-5}` on a
# random N x N image (default N = 4096 2048) out of place and in place, CDF 9/7
# and DD(13,7), under `ncu --clock-control none --cache-control none`, and prints
# per launch: kernel, grid, block, dynamic shared memory and gpu__time_duration.
# ncu serialises the launches, so the sum is the transform without overlap
# between kernels (compare with rv-bench-gpu-dwt's chained time). CSVs go to $OUT.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$root"
out=${OUT:-/tmp}
command -v ncu >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
DWT_NO_TEST=1 DWT_NO_BENCH=1 OUT=$out bash modules/dwt/bench/gpu-run.sh > "$out/ncu-build.txt" 2>&1
tool=$(find build -name rv-dwt -type f -perm -u+x | head -1)
[ -n "$tool" ] || { tail -20 "$out/ncu-build.txt"; echo "no rv-dwt built"; exit 1; }
sizes=${*:-4096 2048}
for N in $sizes; do
  python3 -c "import os,sys; N=$N; sys.stdout.buffer.write(b'P5 %d %d 255\n' % (N, N) + os.urandom(N * N))" > "/tmp/rv-ncu-$N.pgm"
  for m in outofplace inplace; do
    for w in 97 dd137; do
      echo "=== N=$N m=$m w=$w"
      csv="$out/ncu-$N-$m-$w.csv"
      ncu --clock-control none --cache-control none --csv \
        --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic \
        "$tool" forward -w "$w" -l "${LEVELS:-5}" -m "$m" -b cuda "/tmp/rv-ncu-$N.pgm" /tmp/rv-ncu-out.pfm \
        > "$csv" 2> "$out/ncu-$N-$m-$w.err"
      python3 - "$csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    sys.exit("no ncu rows (see the .err file)")
col = {k: i for i, k in enumerate(rows[0])}
k = {}
for r in rows[1:]:
    name, unit, val = r[col['Metric Name']], r[col['Metric Unit']], r[col['Metric Value']]
    e = k.setdefault((int(r[col['ID']]), r[col['Kernel Name']]), {})
    e[name] = val if name == 'gpu__time_duration.sum' else (val + ' ' + unit).strip()
    if name == 'gpu__time_duration.sum':
        e['unit'] = unit
tot = 0.0
for (i, n), m in sorted(k.items()):
    t = float(m.get('gpu__time_duration.sum', '0').replace(',', ''))
    tot += t
    print(i, n[:40], 'grid', m.get('launch__grid_size'), ' blk', m.get('launch__block_size'),
          ' smem', m.get('launch__shared_mem_per_block_dynamic'), ' t', t, m.get('unit'))
print('sum', tot)
PY
    done
  done
done
