#!/usr/bin/env python3
"""PyWavelets peer of rv-bench-dwt (CPU): the same 2-D forward transform.

usage: pywt_dwt.py N   -> prints "ms cdf97 <levels> <median forward ms>" for
1 and 5 levels (or one line saying why not).
PyWavelets' 'bior4.4' is CDF 9/7; mode 'reflect' is the whole-sample symmetric
extension the module uses. pywt.wavedec2 filters by convolution on one thread
(not by lifting) and returns its bands as separate arrays (a little longer
than N / 2 each: full convolution), so it computes somewhat more than the
module; float32 in, float32 out. Median of 7 after one warm-up.
DD(13,7) has no PyWavelets counterpart.
"""
import sys
import time


def main():
    n = int(sys.argv[1])
    try:
        import numpy as np
        import pywt
    except ImportError as e:
        print("pywt: not available (%s)" % e)
        return 0
    print("pywt %s, numpy %s, bior4.4, mode reflect" % (pywt.__version__, np.__version__))
    rng = np.random.default_rng(1)
    img = rng.random((n, n), dtype=np.float32)
    for levels in (1, 5):
        pywt.wavedec2(img, "bior4.4", mode="reflect", level=levels)
        ts = []
        for _ in range(7):
            t0 = time.perf_counter()
            pywt.wavedec2(img, "bior4.4", mode="reflect", level=levels)
            ts.append((time.perf_counter() - t0) * 1e3)
        ts.sort()
        print("ms cdf97 %d %.3f" % (levels, ts[len(ts) // 2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
