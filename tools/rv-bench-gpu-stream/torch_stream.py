#!/usr/bin/env python3
"""The thesis' video program (GrayScale -> Binarize -> EdgeDetect per RGBA
frame) in PyTorch, as a peer for rv-bench-gpu-stream: page-locked host
frames, two CUDA streams (upload of one frame overlaps the other's kernels
and download), the same arithmetic as the samples module (integer channel
average, threshold 100, |Sobel x| + |Sobel y| of the binarized average with
replicated borders, clamped to 255, alpha kept).

    python3 torch_stream.py W H FRAMES      -> prints "torch W H FPS"
"""
import sys
import time

import torch
import torch.nn.functional as F

WARM = 30


def pipeline(x):
    # x: uint8 (H, W, 4) on the device
    rgb = x[..., :3].to(torch.int32)
    g = rgb.sum(dim=-1) // 3                       # gray: v on r, g, b
    b = (g >= 100).to(torch.float32) * 255.0       # binarize (average of v, v, v = v)
    p = F.pad(b[None, None], (1, 1, 1, 1), mode="replicate")[0, 0]
    a, bb, c = p[:-2, :-2], p[:-2, 1:-1], p[:-2, 2:]
    d, f = p[1:-1, :-2], p[1:-1, 2:]
    gg, h, i = p[2:, :-2], p[2:, 1:-1], p[2:, 2:]
    gx = (c + 2 * f + i) - (a + 2 * d + gg)
    gy = (gg + 2 * h + i) - (a + 2 * bb + c)
    m = (gx.abs() + gy.abs()).clamp_(max=255).to(torch.uint8)
    out = torch.empty_like(x)
    out[..., 0] = m
    out[..., 1] = m
    out[..., 2] = m
    out[..., 3] = x[..., 3]
    return out


def main():
    w, h, frames = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    dev = torch.device("cuda")
    nslots = 2
    ring = [torch.randint(0, 256, (h, w, 4), dtype=torch.uint8).pin_memory() for _ in range(4)]
    outs = [torch.empty((h, w, 4), dtype=torch.uint8).pin_memory() for _ in range(nslots)]
    streams = [torch.cuda.Stream() for _ in range(nslots)]
    done = [None] * nslots
    t0 = None
    total = WARM + frames
    for n in range(total):
        if n == WARM:
            torch.cuda.synchronize()
            t0 = time.perf_counter()
        k = n % nslots
        if done[k] is not None:
            done[k].synchronize()           # the slot's previous frame is downloaded
        with torch.cuda.stream(streams[k]):
            x = ring[n % len(ring)].to(dev, non_blocking=True)
            y = pipeline(x)
            outs[k].copy_(y, non_blocking=True)
            ev = torch.cuda.Event()
            ev.record(streams[k])
            done[k] = ev
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print("torch %d %d %.1f" % (w, h, frames / dt))


if __name__ == "__main__":
    main()
