#!/usr/bin/env python3
"""PyTorch peers of the ravioli sample programs, timed on the same GPU.

Prints one line per measurement: "torch <op> <W>x<H> <median ms>", or
"torch unavailable <reason>". Called by rv-bench-gpu-core; runs alone too.
Kernel time only (inputs already on the GPU), CUDA events, median of 30.
"""
import sys


def main():
    try:
        import torch
        import torch.nn.functional as F
    except Exception as e:  # noqa: BLE001
        print(f"torch unavailable {e!r}")
        return 0
    if not torch.cuda.is_available():
        print("torch unavailable no-cuda")
        return 0
    dev = torch.device("cuda")
    torch.backends.cudnn.benchmark = True  # let cuDNN pick its fastest algorithms
    g = torch.Generator(device=dev)
    g.manual_seed(1)

    def timeit(fn, reps=30):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        ts = []
        for _ in range(reps):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            ts.append(a.elapsed_time(b))
        ts.sort()
        return ts[len(ts) // 2]

    for (w, h) in [(512, 512), (1920, 1080), (3840, 2160)]:
        img = torch.randint(0, 256, (h, w, 4), dtype=torch.uint8, device=dev, generator=g)
        img2 = torch.randint(0, 256, (h, w, 4), dtype=torch.uint8, device=dev, generator=g)
        out = torch.empty_like(img)

        def gray():
            v = (img[..., :3].to(torch.int16).sum(-1) // 3).to(torch.uint8)
            out[..., 0] = v
            out[..., 1] = v
            out[..., 2] = v
            out[..., 3] = img[..., 3]

        def binarize():
            v = ((img[..., :3].to(torch.int16).sum(-1) // 3) >= 128).to(torch.uint8) * 255
            out[..., :3] = v.unsqueeze(-1)
            out[..., 3] = img[..., 3]

        def diff():
            d = (img[..., :3].to(torch.int16) - img2[..., :3].to(torch.int16)).abs().sum(-1)
            out[..., :3] = ((d >= 90).to(torch.uint8) * 255).unsqueeze(-1)
            out[..., 3] = 255

        x = img.permute(2, 0, 1)[:3].unsqueeze(0).float().contiguous()
        k = torch.tensor([[-2., -1., 0.], [-1., 1., 1.], [0., 1., 2.]], device=dev)
        kw = k.expand(3, 1, 3, 3).contiguous()

        def emboss():  # float conv2d, depthwise, replicate padding
            return F.conv2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), kw, groups=3).clamp_(0, 255)

        sx = torch.tensor([[-1., 0., 1.], [-2., 0., 2.], [-1., 0., 1.]], device=dev)
        sk = torch.stack([sx, sx.t()]).unsqueeze(1)
        lum = x.mean(1, keepdim=True)

        def edge():
            gxy = F.conv2d(F.pad(lum, (1, 1, 1, 1), mode="replicate"), sk)
            return gxy.abs().sum(1).clamp_(0, 255)

        def emboss_conv():  # the bare depthwise conv2d (zero padding, no clamp)
            return F.conv2d(x, kw, padding=1, groups=3)

        for name, fn in [("gray", gray), ("binarize", binarize), ("diff", diff),
                         ("emboss", emboss), ("edge", edge), ("emboss-conv-only", emboss_conv)]:
            print(f"torch {name} {w}x{h} {timeit(fn):.4f}", flush=True)

    # template matching, SSD as a convolution: sum(I^2) - 2 I*T + sum(T^2)
    h, w, th, tw = 372, 395, 72, 70
    img = torch.randint(0, 256, (1, 3, h, w), device=dev, generator=g).float()
    tpl = img[:, :, 100:100 + th, 200:200 + tw].clone()
    ones = torch.ones(1, 3, th, tw, device=dev)

    def tm():
        ii = F.conv2d(img * img, ones)
        it = F.conv2d(img, tpl)
        ssd = ii - 2 * it + (tpl * tpl).sum()
        return torch.argmin(ssd)

    print(f"torch sad {w}x{h} {timeit(tm):.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
