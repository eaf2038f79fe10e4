"""f32 rlx.conv, rlx.conv2d_backward_input and rlx.conv2d_backward_weight
through the CPU runtime's oneDNN convolutions (rlx-cpu-lower-convolutions)
against PyTorch in float64 from the same f32 inputs.

Every case runs one graph with the three ops on fresh random inputs x, w and
dy (uniform in [-1, 1)): the ResNet-18 geometries (7x7 stride-2 stem, 3x3
stride 1 and 2, 1x1 stride-2 downsample) at reduced spatial size with their
full channel counts, odd sizes, padding wider than the kernel's reach,
dilation, groups and depthwise, batch 1 and above, and a `?` batch.

Tolerance: each result element is a sum of n products of unit-scale terms
(n = C_in/groups * kH * kW for the forward op, C_out/groups * kH * kW for
the input gradient, N * H_out * W_out for the weight gradient), summed in
f32 in an order oneDNN picks (blocked, several partial sums). Its rounding
error grows like eps_f32 * sqrt(n) * |partial sums| with partial sums of
size sqrt(n / 9) for uniform terms, which rtol 1e-5 plus
atol 1e-5 * sqrt(n) covers for every n here (up to 12544) with a margin of
above 10.
"""

import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
TOL = 1e-5


def pair(v):
    return f"[{v[0]}, {v[1]}]"


def f64(a):
    return torch.from_numpy(a.astype(np.float64))


def conv_case(xshape, wshape, stride, padding, dilation, groups,
              dynamic_batch=False):
    x = check.uniform(xshape, np.float32)
    w = check.uniform(wshape, np.float32)
    xt, wt = f64(x).requires_grad_(), f64(w).requires_grad_()
    y = F.conv2d(xt, wt, stride=stride, padding=padding, dilation=dilation,
                 groups=groups)
    dy = check.uniform(tuple(y.shape), np.float32)
    dx, dw = torch.autograd.grad(y, [xt, wt], f64(dy))

    def ty(shape):
        if dynamic_batch:
            shape = ("?",) + tuple(shape[1:])
        return tensor_type(shape, np.float32)
    tx, tw, tdy = ty(xshape), tensor_type(wshape, np.float32), ty(dy.shape)
    geom = (f"kernel_size = {pair(wshape[2:])}, stride = {pair(stride)}, "
            f"padding = {pair(padding)}, dilation = {pair(dilation)}, "
            f"groups = {groups}")
    mlir = (f"func.func @main(%x: {tx} {{rlx.input = \"x\"}}, %w: {tw} "
            f"{{rlx.param = \"w\"}}, %dy: {tdy} {{rlx.input = \"dy\"}}) -> "
            f"({tdy}, {tx}, {tw}) {{\n"
            f"  %y = rlx.conv %x, %w {geom} : {tx}, {tw}\n"
            f"  %dx = rlx.conv2d_backward_input %dy, %w {geom} : {tdy}, {tw}"
            f" -> {tx}\n"
            f"  %dw = rlx.conv2d_backward_weight %x, %dy {geom} : {tx}, {tdy}\n"
            f"  return %y, %dx, %dw : {tdy}, {tx}, {tw}\n}}")
    outs = check.run(mlir, {"x": x, "w": w, "dy": dy}) or [None] * 3
    cog = wshape[0] // groups
    terms = {"forward": wshape[1] * wshape[2] * wshape[3],
             "backward_input": cog * wshape[2] * wshape[3],
             "backward_weight": dy.shape[0] * dy.shape[2] * dy.shape[3]}
    what = (f"{xshape} {wshape} s={stride} p={padding} d={dilation} "
            f"g={groups}{' N=?' if dynamic_batch else ''}")
    for got, want, op in zip(outs, (y, dx, dw), terms):
        check.close(f"{op} {what}", got,
                    want.detach().numpy().astype(np.float32), TOL,
                    TOL * math.sqrt(terms[op]))


def repeated_case(count, xshape, wshape):
    """`count` convolutions of one geometry in one graph: the runtime times
    both layouts on the first and the third call and drops the loser after
    the third (DnnlConvolution.cpp), so calls before, at and after the
    choice all run here."""
    w = check.uniform(wshape, np.float32)
    xs = [check.uniform(xshape, np.float32) for _ in range(count)]
    tx, tw = tensor_type(xshape, np.float32), tensor_type(wshape, np.float32)
    ys = [F.conv2d(f64(x), f64(w), padding=1) for x in xs]
    ty = tensor_type(tuple(ys[0].shape), np.float32)
    geom = ("kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], "
            "dilation = [1, 1], groups = 1")
    args = ", ".join(f"%x{i}: {tx} {{rlx.input = \"x{i}\"}}"
                     for i in range(count))
    body = "".join(f"  %y{i} = rlx.conv %x{i}, %w {geom} : {tx}, {tw}\n"
                   for i in range(count))
    results = ", ".join(f"%y{i}" for i in range(count))
    mlir = (f"func.func @main({args}, %w: {tw} {{rlx.param = \"w\"}}) -> "
            f"({', '.join([ty] * count)}) {{\n{body}  return {results} : "
            f"{', '.join([ty] * count)}\n}}")
    inputs = {f"x{i}": x for i, x in enumerate(xs)}
    inputs["w"] = w
    outs = check.run(mlir, inputs) or [None] * count
    for i, (got, want) in enumerate(zip(outs, ys)):
        check.close(f"call {i + 1} of {count} of {xshape} {wshape}", got,
                    want.numpy().astype(np.float32), TOL,
                    TOL * math.sqrt(wshape[1] * 9))


CASES = [
    # x, w, stride, padding, dilation, groups
    ((1, 3, 32, 32), (64, 3, 7, 7), (2, 2), (3, 3), (1, 1), 1),    # stem
    ((2, 3, 29, 31), (64, 3, 7, 7), (2, 2), (3, 3), (1, 1), 1),    # stem, odd
    ((1, 64, 14, 14), (64, 64, 3, 3), (1, 1), (1, 1), (1, 1), 1),  # layer1
    ((2, 64, 15, 15), (128, 64, 3, 3), (2, 2), (1, 1), (1, 1), 1),  # layer2
    ((2, 64, 14, 14), (128, 64, 1, 1), (2, 2), (0, 0), (1, 1), 1),  # downsample
    ((1, 256, 7, 7), (512, 256, 3, 3), (2, 2), (1, 1), (1, 1), 1),  # layer4
    ((2, 512, 4, 4), (512, 512, 3, 3), (1, 1), (1, 1), (1, 1), 1),  # K = 4608
    ((3, 5, 13, 11), (7, 5, 3, 2), (2, 1), (0, 2), (2, 1), 1),     # mixed
    ((1, 8, 17, 13), (16, 8, 5, 3), (2, 3), (2, 1), (1, 2), 1),    # dilation
    ((2, 6, 9, 8), (8, 3, 3, 2), (1, 2), (1, 0), (1, 1), 2),       # groups
    ((2, 32, 12, 12), (32, 1, 3, 3), (1, 1), (1, 1), (1, 1), 32),  # depthwise
    ((1, 12, 11, 11), (24, 1, 3, 3), (2, 2), (1, 1), (1, 1), 12),  # depthwise x2
    ((2, 16, 8, 8), (32, 4, 3, 3), (1, 1), (2, 2), (2, 2), 4),     # all at once
    ((1, 4, 5, 5), (6, 4, 1, 1), (2, 2), (1, 1), (1, 1), 1),       # 1x1, padded
    ((1, 3, 4, 4), (5, 3, 2, 2), (1, 1), (3, 3), (1, 1), 1),       # pad > kernel
    ((1, 5, 4, 6), (2, 5, 4, 6), (1, 1), (0, 0), (1, 1), 1),       # 1x1 output
    ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1), (0, 0), (1, 1), 1),       # scalar
]
for case in CASES:
    conv_case(*case)
conv_case((3, 16, 10, 9), (24, 16, 3, 3), (2, 1), (1, 1), (1, 1), 1,
          dynamic_batch=True)
conv_case((2, 8, 7, 7), (8, 2, 3, 3), (1, 1), (1, 1), (1, 1), 4,
          dynamic_batch=True)

repeated_case(5, (2, 32, 12, 12), (48, 32, 3, 3))

check.finish()
