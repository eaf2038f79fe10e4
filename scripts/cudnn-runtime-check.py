#!/usr/bin/env python3
"""Checks the runtime's cuDNN convolutions against PyTorch on a GPU.

Calls the _mlir_ciface_rlx_cuda_conv2d* entry points of librlx_cuda_runtime
directly (ctypes, one memref descriptor per operand) on a spread of
geometries and types: forward, backward data and backward filter, on NCHW
buffers and on NHWC ones (the channels-last flag). Usage:
  python3 scripts/cudnn-runtime-check.py build/lib/librlx_cuda_runtime.so
"""
import ctypes
import itertools
import sys

import torch
import torch.nn.functional as F

torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False


class Descriptor(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * 4),
                ("strides", ctypes.c_int64 * 4)]


def descriptor(t):
    assert t.is_contiguous()
    return Descriptor(t.data_ptr(), t.data_ptr(), 0, (ctypes.c_int64 * 4)(*t.shape),
                      (ctypes.c_int64 * 4)(*t.stride()))


# (name, N, C, H, W, K, R, S, stride, pad, dilation, groups)
CASES = [
    ("1x1", 4, 64, 28, 28, 128, 1, 1, 1, 0, 1, 1),
    ("3x3p1", 4, 64, 28, 28, 64, 3, 3, 1, 1, 1, 1),
    ("3x3s2", 4, 64, 28, 28, 128, 3, 3, 2, 1, 1, 1),
    ("stem7x7s2", 2, 3, 224, 224, 64, 7, 7, 2, 3, 1, 1),
    ("grouped", 4, 64, 28, 28, 64, 3, 3, 1, 1, 1, 4),
    ("depthwise", 4, 96, 28, 28, 96, 3, 3, 1, 1, 1, 96),
    ("dilation2", 4, 32, 28, 28, 32, 3, 3, 1, 2, 2, 1),
]
# The layout flag of the entry points: 2 is RLX_CUDA_CONV_CHANNELS_LAST
# (NHWC input and output, KRSC filter).
LAYOUTS = {"nchw": 0, "nhwc": 2}
TYPES = {"f32": (torch.float32, 1e-4), "f16": (torch.float16, 1e-2),
         "bf16": (torch.bfloat16, 5e-2)}


def main():
    lib = ctypes.CDLL(sys.argv[1])
    print("cudnn available:", lib.rlx_cuda_cudnn_available())
    worst = {}
    failed = 0
    for (suffix, (dtype, tol)), (layout, flag) in itertools.product(
            TYPES.items(), LAYOUTS.items()):
        for name, n, c, h, w, k, r, s, st, pad, dil, g in CASES:
            torch.manual_seed(0)
            x = torch.randn(n, c, h, w, device="cuda")
            wt = torch.randn(k, c // g, r, s, device="cuda") / (c // g * r * s) ** 0.5
            y = F.conv2d(x, wt, stride=st, padding=pad, dilation=dil, groups=g)
            dy = torch.randn_like(y)
            dx = torch.nn.grad.conv2d_input(x.shape, wt, dy, st, pad, dil, g)
            dw = torch.nn.grad.conv2d_weight(x, wt.shape, dy, st, pad, dil, g)
            geo = [v for v in (pad, st, dil) for _ in range(2)]  # (H, W) pairs

            # Buffers in the layout under test; results read back as NCHW.
            def to(t):
                t = t.to(dtype)
                return (t.permute(0, 2, 3, 1) if flag else t).contiguous()

            def back(t):
                return t.permute(0, 3, 1, 2) if flag else t

            xs, ws, dys = to(x), to(wt), to(dy)
            results = {}
            out = torch.zeros_like(to(y))
            getattr(lib, f"_mlir_ciface_rlx_cuda_conv2d_{suffix}")(
                ctypes.byref(descriptor(xs)), ctypes.byref(descriptor(ws)),
                ctypes.byref(descriptor(out)), *geo, flag)
            results["fwd"] = (back(out), y)
            outx = torch.zeros_like(xs)
            getattr(lib, f"_mlir_ciface_rlx_cuda_conv2d_backward_data_{suffix}")(
                ctypes.byref(descriptor(outx)), ctypes.byref(descriptor(ws)),
                ctypes.byref(descriptor(dys)), *geo, flag)
            results["bwd_data"] = (back(outx), dx)
            outw = torch.zeros_like(ws)
            getattr(lib, f"_mlir_ciface_rlx_cuda_conv2d_backward_filter_{suffix}")(
                ctypes.byref(descriptor(xs)), ctypes.byref(descriptor(outw)),
                ctypes.byref(descriptor(dys)), *geo, flag)
            results["bwd_filter"] = (back(outw), dw)
            torch.cuda.synchronize()
            for what, (got, want) in results.items():
                # Relative to the reference's largest magnitude: the sums of
                # backward filter grow with N*P*Q.
                err = ((got.float() - want).abs().max() /
                       want.abs().max().clamp_min(1e-30)).item()
                key = (suffix, layout, what)
                worst[key] = max(worst.get(key, 0), err)
                ok = err <= tol
                failed += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {suffix:4} {layout} {name:10} "
                      f"{what:10} max rel err {err:.2e} (tol {tol:.0e})")
    for key, err in sorted(worst.items()):
        print("worst", *key, f"{err:.2e}")
    print("FAILED" if failed else "PASSED", failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
