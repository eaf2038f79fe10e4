"""rlx.conv, rlx.im2col, rlx.conv_transpose2d and rlx.pool on the CPU
against PyTorch (float64 oracle from the same inputs).

Tolerances: convolutions are sums of K = C_in/groups * kH * kW products of
unit-scale values, so f32 uses rtol 1e-5 with atol 1e-5 * sqrt(K) (and f64
rtol 1e-12, atol 1e-12 * sqrt(K)); f16 rtol 2e-3 / atol 2e-3 * sqrt(K) (f32
accumulation, one final rounding). Pools: f32 rtol 1e-5 / atol 1e-6, f64
1e-12, f16 2e-3; max/min and integer pools and im2col exactly.
"""

import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])

CONV_TOL = {np.float32: 1e-5, np.float64: 1e-12, np.float16: 2e-3}


def pair(v):
    return f"[{v[0]}, {v[1]}]"


def f64(a):
    return torch.from_numpy(a.astype(np.float64))


def conv_case(dtype, xshape, wshape, stride, padding, dilation, groups):
    x = check.uniform(xshape, dtype)
    w = check.uniform(wshape, dtype)
    want = F.conv2d(f64(x), f64(w), stride=stride, padding=padding,
                    dilation=dilation, groups=groups).numpy().astype(dtype)
    xt, wt, ot = (tensor_type(s, dtype) for s in (xshape, wshape, want.shape))
    mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, %w: {wt} "
            f"{{rlx.param = \"w\"}}) -> {ot} {{\n"
            f"  %0 = rlx.conv %x, %w kernel_size = {pair(wshape[2:])}, stride = "
            f"{pair(stride)}, padding = {pair(padding)}, dilation = "
            f"{pair(dilation)}, groups = {groups} : {xt}, {wt}\n"
            f"  return %0 : {ot}\n}}")
    outs = check.run(mlir, {"x": x, "w": w})
    k = wshape[1] * wshape[2] * wshape[3]
    tol = CONV_TOL[dtype]
    check.close(f"conv {xshape} {wshape} s={stride} p={padding} d={dilation} "
                f"g={groups} {np.dtype(dtype)}", outs[0] if outs else None,
                want, tol, tol * math.sqrt(k))


CONV_CASES = [
    # x, w, stride, padding, dilation, groups
    ((2, 3, 9, 11), (4, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),   # im2col GEMM
    ((1, 3, 10, 9), (5, 3, 3, 2), (2, 1), (0, 2), (2, 1), 1),   # mixed geometry
    ((1, 6, 7, 8), (8, 3, 3, 2), (1, 2), (1, 0), (1, 1), 2),    # groups
    ((2, 4, 7, 7), (4, 1, 3, 3), (1, 1), (1, 1), (1, 1), 4),    # depthwise
    ((1, 3, 6, 5), (6, 1, 3, 3), (2, 2), (1, 1), (1, 1), 3),    # depthwise x2
    ((2, 8, 5, 5), (16, 8, 1, 1), (1, 1), (0, 0), (1, 1), 1),   # pointwise
    ((1, 4, 5, 5), (6, 4, 1, 1), (2, 2), (1, 1), (1, 1), 1),    # 1x1 strided
    ((1, 2, 5, 5), (3, 2, 2, 2), (1, 1), (0, 0), (1, 1), 1),    # direct loops
    ((1, 5, 4, 6), (2, 5, 4, 6), (1, 1), (0, 0), (1, 1), 1),    # 1x1 output
    ((2, 16, 20, 20), (32, 8, 3, 3), (2, 2), (1, 1), (1, 1), 2),  # BLAS size
    ((1, 8, 17, 13), (16, 8, 5, 3), (2, 3), (2, 1), (1, 2), 1),   # odd, BLAS
    ((1, 2, 7, 9), (3, 2, 2, 3), (1, 2), (0, 0), (1, 2), 1),      # strided loops
    ((2, 4, 9, 10), (8, 4, 3, 3), (2, 3), (0, 0), (1, 1), 1),     # strided GEMM
    ((1, 20, 33, 33), (20, 1, 3, 3), (1, 1), (1, 1), (1, 1), 20),  # big depthwise
]
for dtype in (np.float32, np.float64):
    for case in CONV_CASES:
        conv_case(dtype, *case)
for case in CONV_CASES[:4]:
    conv_case(np.float16, *case)



def residual_block_case(dtype):
    """A ResNet block as the importer writes it: conv, batch norm as a
    per-channel scale and shift, ReLU, a 1x1 conv, the residual add, ReLU
    and the global average pool. On the cuda target f16 convolutions run
    channels-last and the ops between them in NHWC (rlx-propagate-
    transposes), so this checks that layout change end to end. The oracle
    rounds to the graph's type after every op, as the graph does."""
    x = check.uniform((2, 8, 6, 6), dtype)
    w1 = check.uniform((8, 8, 3, 3), dtype, -0.3, 0.3)
    w2 = check.uniform((8, 8, 1, 1), dtype, -0.5, 0.5)
    scale = check.uniform((8,), dtype, 0.5, 1.5)
    shift = check.uniform((8,), dtype, -0.2, 0.2)

    def rounded(t):
        return t.to(torch.from_numpy(np.zeros(0, dtype)).dtype).double()

    y1 = rounded(F.conv2d(f64(x), f64(w1), padding=1))
    bn = rounded(rounded(y1 * f64(scale).reshape(8, 1, 1)) +
                 f64(shift).reshape(8, 1, 1))
    y2 = rounded(F.conv2d(torch.relu(bn), f64(w2)))
    out = torch.relu(rounded(y2 + f64(x)))
    pooled = rounded(out.mean(dim=(2, 3)))
    t = {s: tensor_type(s, dtype) for s in
         ((2, 8, 6, 6), (8, 8, 3, 3), (8, 8, 1, 1), (8,), (8, 1, 1), (2, 8))}
    mlir = (
        f"func.func @main(%x: {t[(2, 8, 6, 6)]} {{rlx.input = \"x\"}}, "
        f"%w1: {t[(8, 8, 3, 3)]} {{rlx.param = \"w1\"}}, "
        f"%w2: {t[(8, 8, 1, 1)]} {{rlx.param = \"w2\"}}, "
        f"%scale: {t[(8,)]} {{rlx.param = \"scale\"}}, "
        f"%shift: {t[(8,)]} {{rlx.param = \"shift\"}}) -> "
        f"({t[(2, 8, 6, 6)]}, {t[(2, 8)]}) {{\n"
        f"  %y1 = rlx.conv %x, %w1 kernel_size = [3, 3], stride = [1, 1], "
        f"padding = [1, 1], dilation = [1, 1], groups = 1 : "
        f"{t[(2, 8, 6, 6)]}, {t[(8, 8, 3, 3)]}\n"
        f"  %s = rlx.reshape %scale new_shape = [8, 1, 1] : {t[(8,)]}\n"
        f"  %b = rlx.reshape %shift new_shape = [8, 1, 1] : {t[(8,)]}\n"
        f"  %m = rlx.binary mul %y1, %s : {t[(2, 8, 6, 6)]}, {t[(8, 1, 1)]}\n"
        f"  %a = rlx.binary add %m, %b : {t[(2, 8, 6, 6)]}, {t[(8, 1, 1)]}\n"
        f"  %r = rlx.activation relu %a : {t[(2, 8, 6, 6)]}\n"
        f"  %y2 = rlx.conv %r, %w2 kernel_size = [1, 1], stride = [1, 1], "
        f"padding = [0, 0], dilation = [1, 1], groups = 1 : "
        f"{t[(2, 8, 6, 6)]}, {t[(8, 8, 1, 1)]}\n"
        f"  %sum = rlx.binary add %y2, %x : {t[(2, 8, 6, 6)]}, "
        f"{t[(2, 8, 6, 6)]}\n"
        f"  %out = rlx.activation relu %sum : {t[(2, 8, 6, 6)]}\n"
        f"  %pool = rlx.reduce mean %out axes = [2, 3] : {t[(2, 8, 6, 6)]}\n"
        f"  return %out, %pool : {t[(2, 8, 6, 6)]}, {t[(2, 8)]}\n}}")
    outs = check.run(mlir, {"x": x, "w1": w1, "w2": w2, "scale": scale,
                            "shift": shift})
    tol = CONV_TOL[dtype]
    for index, (name, want) in enumerate((("out", out), ("pool", pooled))):
        check.close(f"residual block {name} {np.dtype(dtype)}",
                    outs[index] if outs else None,
                    want.numpy().astype(dtype), tol, tol * math.sqrt(72))


for dtype in (np.float32, np.float16):
    residual_block_case(dtype)

# --------------------------------------------------------------------------
# rlx.im2col (exact: a copy).


def im2col_oracle(x, kernel, stride, padding, dilation):
    cols = F.unfold(f64(x), kernel, dilation=dilation, padding=padding,
                    stride=stride)  # [N, C*kH*kW, L]
    n, ck, length = cols.shape
    return cols.permute(0, 2, 1).reshape(n * length, ck).numpy()


for dtype in (np.float32, np.float64, np.int32, np.complex64):
    for xshape, kernel, stride, padding, dilation in (
            ((2, 3, 6, 7), (3, 3), (1, 1), (1, 1), (1, 1)),
            ((1, 2, 9, 8), (2, 3), (2, 3), (1, 0), (2, 1)),
            ((1, 3, 8, 9), (2, 2), (1, 2), (0, 0), (1, 2))):
        if np.dtype(dtype).kind == "i":
            x = check.integers(xshape, dtype, -50, 50)
        else:
            x = check.uniform(xshape, dtype)
        if np.dtype(dtype).kind == "c":
            want = (im2col_oracle(x.real, kernel, stride, padding, dilation) +
                    1j * im2col_oracle(x.imag, kernel, stride, padding,
                                       dilation)).astype(dtype)
        else:
            want = im2col_oracle(x, kernel, stride, padding,
                                 dilation).astype(dtype)
        xt, ot = tensor_type(xshape, dtype), tensor_type(want.shape, dtype)
        mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}) -> {ot} {{\n"
                f"  %0 = rlx.im2col %x kernel_size = {pair(kernel)}, stride = "
                f"{pair(stride)}, padding = {pair(padding)}, dilation = "
                f"{pair(dilation)} : {xt}\n  return %0 : {ot}\n}}")
        outs = check.run(mlir, {"x": x})
        check.close(f"im2col {xshape} k={kernel} {np.dtype(dtype)}",
                    outs[0] if outs else None, want, 0, 0)

# --------------------------------------------------------------------------
# rlx.conv_transpose2d.


def conv_transpose_case(dtype, xshape, wshape, stride, padding, dilation,
                        output_padding, groups):
    x = check.uniform(xshape, dtype)
    w = check.uniform(wshape, dtype)
    want = F.conv_transpose2d(f64(x), f64(w), stride=stride, padding=padding,
                              output_padding=output_padding, groups=groups,
                              dilation=dilation).numpy().astype(dtype)
    xt, wt, ot = (tensor_type(s, dtype) for s in (xshape, wshape, want.shape))
    mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, %w: {wt} "
            f"{{rlx.param = \"w\"}}) -> {ot} {{\n"
            f"  %0 = rlx.conv_transpose2d %x, %w kernel_size = "
            f"{pair(wshape[2:])}, stride = {pair(stride)}, padding = "
            f"{pair(padding)}, dilation = {pair(dilation)}, output_padding = "
            f"{pair(output_padding)}, groups = {groups} : {xt}, {wt}\n"
            f"  return %0 : {ot}\n}}")
    outs = check.run(mlir, {"x": x, "w": w})
    # Each output sums at most C_in/groups * kH * kW products.
    k = xshape[1] // groups * wshape[2] * wshape[3]
    tol = CONV_TOL[dtype]
    check.close(f"conv_transpose2d {xshape} {wshape} s={stride} p={padding} "
                f"d={dilation} op={output_padding} g={groups} "
                f"{np.dtype(dtype)}", outs[0] if outs else None, want, tol,
                tol * math.sqrt(k))


CONVT_CASES = [
    # x, w, stride, padding, dilation, output_padding, groups
    ((1, 4, 5, 5), (4, 3, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1), 1),
    ((2, 6, 4, 3), (6, 2, 3, 2), (2, 3), (0, 1), (1, 1), (1, 2), 3),
    ((1, 2, 4, 4), (2, 4, 3, 3), (1, 1), (2, 2), (2, 2), (1, 0), 1),
    ((1, 2, 6, 6), (2, 3, 2, 2), (1, 1), (2, 1), (1, 1), (0, 0), 1),  # clipped
    ((2, 8, 8, 7), (8, 8, 4, 4), (2, 2), (1, 1), (1, 1), (0, 1), 1),  # GEMM
    ((1, 4, 3, 3), (4, 1, 3, 3), (3, 2), (1, 0), (1, 1), (2, 1), 4),  # depthwise
]
for dtype in (np.float32, np.float64):
    for case in CONVT_CASES:
        conv_transpose_case(dtype, *case)
conv_transpose_case(np.float16, *CONVT_CASES[0])

# --------------------------------------------------------------------------
# rlx.pool: padding holds each reduction's identity; mean divides by kH*kW.

IDENTITY = {"max": -math.inf, "min": math.inf, "sum": 0.0, "prod": 1.0,
            "mean": 0.0}


def pool_oracle(x, kind, kernel, stride, padding):
    if np.dtype(x.dtype).kind == "i":
        t = torch.from_numpy(x.astype(np.int64))
        info = np.iinfo(x.dtype)
        ident = {"max": info.min, "min": info.max, "sum": 0, "prod": 1}[kind]
    else:
        t = f64(x)
        ident = IDENTITY[kind]
    if kind == "max" and t.dtype == torch.float64:
        return F.max_pool2d(t, kernel, stride, padding).numpy()
    if kind == "mean":
        return F.avg_pool2d(t, kernel, stride, padding,
                            count_include_pad=True).numpy()
    # NumPy pads exactly (F.pad would round an int64 identity through a
    # double).
    padded = torch.from_numpy(np.pad(
        t.numpy(), ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2),
        constant_values=ident))
    windows = padded.unfold(2, kernel[0], stride[0]).unfold(3, kernel[1],
                                                            stride[1])
    flat = windows.reshape(*windows.shape[:4], -1)
    if kind == "max":
        return flat.max(dim=-1).values.numpy()
    if kind == "min":
        return flat.min(dim=-1).values.numpy()
    if kind == "sum":
        return flat.sum(dim=-1).numpy()
    return flat.prod(dim=-1).numpy()


POOL_TOL = {np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-12),
            np.float16: (2e-3, 2e-3)}
POOL_GEOMETRY = [
    # x, kernel, stride, padding
    ((2, 3, 7, 8), (3, 2), (2, 1), (1, 1)),
    ((1, 2, 6, 6), (2, 2), (2, 2), (0, 0)),
    ((1, 4, 9, 5), (3, 3), (2, 3), (1, 1)),
    ((1, 3, 40, 40), (2, 2), (2, 2), (0, 0)),
    ((1, 2, 36, 35), (3, 3), (1, 1), (1, 1)),
]
for dtype in (np.float32, np.float64, np.float16, np.int32, np.int64):
    kinds = ["max", "min", "sum", "prod"]
    if np.dtype(dtype).kind == "f":
        kinds.append("mean")
    for xshape, kernel, stride, padding in POOL_GEOMETRY:
        for kind in kinds:
            if np.dtype(dtype).kind == "i":
                x = check.integers(xshape, dtype, -4, 5)
            elif kind == "prod":
                x = check.uniform(xshape, dtype, 0.5, 1.5)
            else:
                x = check.uniform(xshape, dtype, -2, 2)
            want = pool_oracle(x, kind, kernel, stride, padding).astype(dtype)
            xt, ot = tensor_type(xshape, dtype), tensor_type(want.shape, dtype)
            mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}) -> {ot} {{\n"
                    f"  %0 = rlx.pool {kind} %x kernel_size = {pair(kernel)}, "
                    f"stride = {pair(stride)}, padding = {pair(padding)} : {xt}\n"
                    f"  return %0 : {ot}\n}}")
            outs = check.run(mlir, {"x": x})
            if np.dtype(dtype).kind == "i" or kind in ("max", "min"):
                rtol, atol = 0, 0
            else:
                rtol, atol = POOL_TOL[dtype]
            check.close(f"pool {kind} {xshape} k={kernel} s={stride} "
                        f"p={padding} {np.dtype(dtype)}",
                        outs[0] if outs else None, want, rtol, atol)

check.finish()
