#!/usr/bin/env python3
"""Checks tools/grid-trace on a synthetic trace whose answers are worked out
by hand below (ctest grid_trace_tool). Exit 0 when every check holds."""
import os
import subprocess
import sys
import tempfile

tool = sys.argv[1]
# Two chains. Chain 1: launch A (grid 7, 2 blocks on SMs 0 and 1), then B
# (grid 8, 1 block) placed early, its wait returning after A's last block.
# Chain 2 starts 1 ms later (beyond --gap 50 us): launch C alone.
# Records: grid kernel sm block t0_ns wait_ns end_ns
trace = """# grid trace of synthetic: 5 records (5 kept); grid kernel sm block t0_ns wait_ns end_ns
7 rvk_a 0 0 1000000 0 4000
7 rvk_a 1 1 1000500 0 5500
8 rvk_b 2 0 1002000 5000 7000
not a record line
9 rvk_c 0 0 2000000 100 1100
9 rvk_c 3 1 2000000 100 3100
"""
# By hand, chain 1 (times in us from A's first start, 1000000 ns):
#   A: start 0, go 0 (first wait returns at 1000000), end 6.0 (1000500 + 5500),
#      runs (end - go) 4.0 and 5.5 -> median 4.75, 2 SMs
#   B: start 2.0, go 7.0 (1002000 + 5000), end 9.0, gap 7.0 - 6.0 = 1.00, run 2.0
#   total 9.00 us; sum of (end - go) = (6.0 - 0) + (9.0 - 7.0) = 8.00
# chain 2: C: 2 blocks, go 0.1, end 3.1, run median (1.0 + 3.0) / 2 = 2.0
# --kernels: rvk_c's gap is its go (2000.1 us) minus the end so far (1009.0 us)
with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    f.write(trace)
    path = f.name
try:
    out = subprocess.run([sys.executable, tool, path, "--min", "1"], capture_output=True, text=True, check=True).stdout
    kern = subprocess.run([sys.executable, tool, path, "--kernels"], capture_output=True, text=True, check=True).stdout
finally:
    os.unlink(path)
fails = []


def row(text, name):
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == name:
            return f
    fails.append("no row for %s in:\n%s" % (name, text))
    return None


a, b, c = row(out, "rvk_a"), row(out, "rvk_b"), row(out, "rvk_c")
if a and a[1:6] + a[-1:] != ["2", "2", "0.00", "0.00", "6.00", "4.75"]:
    fails.append("rvk_a: %s" % a)
if b and b[1:] != ["1", "1", "2.00", "7.00", "9.00", "1.00", "2.00"]:
    fails.append("rvk_b: %s" % b)
if c and c[1:6] + c[-1:] != ["2", "2", "0.00", "0.10", "3.10", "2.00"]:
    fails.append("rvk_c: %s" % c)
if "total 9.00 us, 2 launches; sum of (end - go) 8.00 us" not in out:
    fails.append("chain 1 total missing:\n" + out)
if out.count("chain of") != 2:
    fails.append("expected 2 chains:\n" + out)
kc = row(kern, "rvk_c")
if kc and kc[1:] != ["2", "1", "3.00", "2.00", "991.10"]:
    fails.append("--kernels rvk_c: %s" % kc)
for f in fails:
    print("grid_trace_check:", f)
print("grid_trace_check: %d checks failed" % len(fails) if fails else "grid_trace_check: all checks passed")
sys.exit(1 if fails else 0)
