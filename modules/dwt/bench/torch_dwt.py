#!/usr/bin/env python3
"""PyTorch peer of rv-bench-gpu-dwt: 2-D lifting DWT by tensor slicing.

usage: torch_dwt.py N   -> prints "copy_gbs <GB/s>" (device copy of the image,
bytes read + written) and "ms <wavelet> <levels> <median forward ms>" for
cdf97 and dd137 at 1 and 5 levels
Symmetric (whole-sample) extension for even lengths, block (Mallat) layout,
float32 on the GPU, timed with CUDA events (median of 10 after 3 warm-ups).
"""
import sys

import torch

A, B, G, D, K = -1.586134342059924, -0.052980118572961, 0.882911075530934, 0.443506852043971, 1.230174104914001


def lift_last(x, wav):
    """One level along the last dimension (even length)."""
    s = x[..., 0::2]
    d = x[..., 1::2]
    if wav == "cdf97":
        s_p1 = torch.cat([s[..., 1:], s[..., -1:]], -1)
        d = d + A * (s + s_p1)
        d_m1 = torch.cat([d[..., :1], d[..., :-1]], -1)
        s = s + B * (d_m1 + d)
        s_p1 = torch.cat([s[..., 1:], s[..., -1:]], -1)
        d = d + G * (s + s_p1)
        d_m1 = torch.cat([d[..., :1], d[..., :-1]], -1)
        s = s + D * (d_m1 + d)
        s = s / K
        d = d * K
    else:
        s_m1 = torch.cat([s[..., 1:2], s[..., :-1]], -1)
        s_p1 = torch.cat([s[..., 1:], s[..., -1:]], -1)
        s_p2 = torch.cat([s[..., 2:], s[..., -1:], s[..., -2:-1]], -1)
        d = d - (9 * (s + s_p1) - (s_m1 + s_p2)) / 16
        d_m2 = torch.cat([d[..., 1:2], d[..., 0:1], d[..., :-2]], -1)
        d_m1 = torch.cat([d[..., :1], d[..., :-1]], -1)
        d_p1 = torch.cat([d[..., 1:], d[..., -2:-1]], -1)
        s = s + (9 * (d_m1 + d) - (d_m2 + d_p1)) / 32
    return torch.cat([s, d], -1)


def dwt2(x, wav, levels):
    n = x.shape[-1]
    for _ in range(levels):
        ll = x[:n, :n]
        ll = lift_last(ll, wav)
        ll = lift_last(ll.t(), wav).t()
        x[:n, :n] = ll
        n //= 2
    return x


def main():
    n = int(sys.argv[1])
    if not torch.cuda.is_available():
        print("torch: no CUDA")
        return 1
    print("torch %s on %s" % (torch.__version__, torch.cuda.get_device_name()))
    x0 = torch.rand(n, n, device="cuda", dtype=torch.float32)
    # the copy bandwidth (bytes read + written) of the same image: a floor
    y = torch.empty_like(x0)
    times = []
    for i in range(13):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        y.copy_(x0)
        b.record()
        torch.cuda.synchronize()
        if i >= 3:
            times.append(a.elapsed_time(b))
    times.sort()
    print("copy_gbs %.1f" % (8.0 * n * n / (times[len(times) // 2] * 1e-3) / 1e9))
    del y
    for wav in ("cdf97", "dd137"):
        for levels in (1, 5):
            times = []
            for i in range(13):
                x = x0.clone()
                a = torch.cuda.Event(enable_timing=True)
                b = torch.cuda.Event(enable_timing=True)
                a.record()
                dwt2(x, wav, levels)
                b.record()
                torch.cuda.synchronize()
                if i >= 3:
                    times.append(a.elapsed_time(b))
            times.sort()
            print("ms %s %d %.4f" % (wav, levels, times[len(times) // 2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
