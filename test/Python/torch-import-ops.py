# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.torch's topk, diagonal, overwriting scatters (scatter,
scatter_reduce, index_put, `x[i] = v`), scatter_reduce and index_reduce
means, einsum, conv3d, conv_transpose3d, 3-d max and average pooling,
bicubic and area interpolation and LSTM with proj_size, through symbolic
tracing and through make_fx (aten), against eager PyTorch on fresh random
inputs (f32 within rtol 1e-5 and atol 1e-5; indices exactly); rlx.grad
through imported scatters, an einsum, a conv3d, a conv_transpose3d with
3-d poolings, bicubic and area interpolations and an LSTM with proj_size
against torch.autograd; the variants that are refused.

Usage: torch-import-ops.py"""

import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import rlx
import rlx.torch
from pychecks import check, expect_error, finish, test_seed

seed = test_seed()
torch.manual_seed(seed)
warnings.filterwarnings("ignore", "scatter_reduce")
warnings.filterwarnings("ignore", "index_reduce")


class Fn(nn.Module):
    """A module around a function of its inputs."""

    def __init__(self, function):
        super().__init__()
        self.function = function


# forward takes its inputs by name (symbolic tracing refuses *args).
class Fn1(Fn):
    def forward(self, a):
        return self.function(a)


class Fn2(Fn):
    def forward(self, a, b):
        return self.function(a, b)


class Fn3(Fn):
    def forward(self, a, b, c):
        return self.function(a, b, c)


class Fn4(Fn):
    def forward(self, a, b, c, d):
        return self.function(a, b, c, d)


class Traced(Fn):
    """Python control flow on *args: symbolic tracing fails and the
    importer traces the module with make_fx into aten ops."""

    def forward(self, *xs):
        if xs[0].shape[0] > 0:
            return self.function(*xs)
        return xs[0]


def compare(name, module, *inputs, rtol=1e-5, atol=1e-5):
    module = module.eval()
    try:
        text, params = rlx.torch.import_module(module, *inputs)
        graph = rlx.compile(text, params=params)
        names = [t.name for t in graph.inputs]
        got = graph(**{n: i.numpy() for n, i in zip(names, inputs)})
    except rlx.RLXError as error:
        check(False, f"{name}: {error}")
        return
    with torch.no_grad():
        expected = module(*[i.clone() for i in inputs])
    if isinstance(expected, torch.Tensor):
        expected, got = (expected,), (got,)

    def flat(tree):
        if isinstance(tree, torch.Tensor):
            return [tree]
        return [t for item in tree for t in flat(item)]
    expected = flat(expected)
    worst, ok = 0.0, len(got) == len(expected)
    for g, e in zip(got, expected):
        e = e.numpy()
        ok &= g.shape == e.shape and np.allclose(g, e, rtol=rtol, atol=atol)
        if g.shape == e.shape:
            worst = max(worst, float(np.max(np.abs(g - e), initial=0)))
    check(ok, f"{name}: max abs err {worst:.2e} (rtol {rtol}, atol {atol})")


def both(name, function, *inputs):
    """Through symbolic tracing and through make_fx (aten ops)."""
    symbolic(name, function, *inputs)
    compare(name + " (aten)", Traced(function), *inputs)


def symbolic(name, function, *inputs):
    compare(name, [Fn1, Fn2, Fn3, Fn4][len(inputs) - 1](function), *inputs)


def distinct(size, count, shape):
    """`shape` of distinct positions in [0, size) (count of them)."""
    return torch.randperm(size)[:count].reshape(shape)


x = torch.randn(4, 6, 5)

# topk: largest and smallest, dims, planted ties (the smaller index).
tied = x.clone()
tied[1, 2, 0] = tied[1, 4, 0] = 7.0
both("topk largest along the last dim", lambda t: torch.topk(t, 3), tied)
both("topk smallest along dim 1", lambda t: t.topk(2, dim=1, largest=False),
     tied)
both("topk along dim 0, its values used", lambda t: torch.topk(
    t, 2, 0).values * 2, tied)
both("topk of int64", lambda t: torch.topk(t, 4, largest=False),
     torch.randperm(27).reshape(3, 9) - 13)
both("diagonal", lambda t: torch.diagonal(t, 1, 2, 1) * 2, x)
both("diagonal of a negative offset", lambda t: t.diagonal(-2) + 1, x)

# Overwriting scatters (distinct positions: torch leaves repeats
# undefined), scatter of a value, scatter_reduce sum, index_put.
index = torch.stack([distinct(6, 3, (3,)) for _ in range(4 * 5)], 1) \
    .reshape(3, 4, 5).permute(1, 0, 2).contiguous()
src = torch.randn(4, 3, 5)
both("scatter along dim 1", lambda t, i, s: t.scatter(1, i, s), x, index,
     src)
both("scatter of a value", lambda t, i: torch.scatter(t, 1, i, -2.5), x,
     index)
both("scatter_ in place", lambda t, i, s: t.clone().scatter_(1, i, s) + 1,
     x, index, src)
both("scatter reduce='add'", lambda t, i, s: t.scatter(1, i, s,
                                                       reduce="add"),
     x, torch.randint(0, 6, (4, 3, 5)), src)
repeated = torch.randint(0, 6, (4, 7, 5))
more = torch.randn(4, 7, 5)
both("scatter_reduce sum", lambda t, i, s: t.scatter_reduce(1, i, s, "sum"),
     x, repeated, more)
both("scatter_reduce sum without self",
     lambda t, i, s: t.scatter_reduce(1, i, s, "sum", include_self=False),
     x, repeated, more)
both("scatter_reduce mean", lambda t, i, s: t.scatter_reduce(
    1, i, s, "mean"), x, repeated, more)
both("scatter_reduce mean without self", lambda t, i, s: t.scatter_reduce(
    1, i, s, "mean", include_self=False), x, repeated, more)
integers = torch.randint(-20, 20, (4, 6, 5))
both("scatter_reduce mean of int64 (floor)", lambda t, i, s:
     t.scatter_reduce(1, i, s, "mean"), integers, repeated,
     torch.randint(-20, 20, (4, 7, 5)))
both("scatter_reduce mean of int64 without self", lambda t, i, s:
     t.scatter_reduce(1, i, s, "mean", include_self=False), integers,
     repeated, torch.randint(-20, 20, (4, 7, 5)))
picks = torch.randint(0, 6, (9,))
both("index_reduce mean", lambda t, i, s: t.index_reduce(1, i, s, "mean"),
     x, picks, torch.randn(4, 9, 5))
both("index_reduce mean without self", lambda t, i, s: t.index_reduce(
    0, i, s, "mean", include_self=False), x, torch.randint(0, 4, (7,)),
     torch.randn(7, 6, 5))
both("index_reduce mean of int64 (floor)", lambda t, i, s: t.index_reduce(
    2, i, s, "mean"), integers, torch.randint(0, 5, (8,)),
     torch.randint(-20, 20, (4, 6, 8)))
rows = distinct(4, 3, (3,))
both("index_put of rows", lambda t, i, v: t.index_put((i,), v), x, rows,
     torch.randn(3, 6, 5))
both("index_put accumulate with repeats",
     lambda t, i, v: t.index_put((i,), v, accumulate=True), x,
     torch.tensor([0, 2, 0, -1]), torch.randn(4, 6, 5))
both("index_put of one value", lambda t, i: t.index_put(
    (i,), torch.tensor(3.0)), x, rows)


def assign(t, i, v):
    t = t * 1
    t[i] = v
    return t


def assign_mask(t):
    t = t * 1
    t[t > 0.5] = 0.0
    return t


def assign_pairs(t, i, j):
    t = t + 0
    t[:, i, j] = 1.5
    return t


def assign_middle(t, i, j, v):
    t = t * 1
    t[:, i, j] = v
    return t


both("x[i] = v", assign, x, rows, torch.randn(6, 5))
both("x[:, i, j] = v, two broadcast indices on middle dims", assign_middle,
     x, torch.tensor([[1], [-2]]), torch.tensor([0, 3, 4]),
     torch.randn(4, 2, 3))
both("x[mask] = 0", assign_mask, x)
both("x[:, i, j] = 1.5", assign_pairs, x, distinct(6, 3, (3,)),
     torch.tensor([1, 1, 4]))

# einsum: matmuls, attention scores, a bilinear form, ellipses, implicit
# outputs, diagonals.
for equation, shapes in [
        ("ij,jk->ik", [(4, 5), (5, 3)]),
        ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 6, 8)]),
        ("bn,anm,bm->ba", [(3, 4), (5, 4, 6), (3, 6)]),
        ("...ij,...jk", [(2, 3, 4, 5), (3, 5, 2)]),
        ("ii->i", [(5, 5)]),
        ("bii->b", [(3, 4, 4)]),
        ("i,j->ij", [(4,), (5,)])]:
    both(f"einsum {equation}", lambda *xs, e=equation: torch.einsum(e, *xs),
         *[torch.randn(s) for s in shapes])


# conv3d: one rlx.conv per kernel depth. Padding, strides, dilations
# and groups in each dim, bias or none, unbatched; F.conv3d through
# make_fx (aten's convolution of rank 5).
compare("Conv3d 3x3x3, padding 1", nn.Sequential(nn.Conv3d(3, 4, 3,
                                                           padding=1)),
        torch.randn(2, 3, 5, 6, 7))
compare("Conv3d strides, dilation, groups, no bias", nn.Sequential(
    nn.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 2), padding=(2, 1, 0),
              dilation=(2, 1, 1), groups=2, bias=False)),
    torch.randn(1, 4, 9, 5, 6))
compare("Conv3d unbatched", nn.Sequential(nn.Conv3d(2, 3, 2)),
        torch.randn(2, 4, 4, 4))
both("F.conv3d", lambda t, w, b: F.conv3d(t, w, b, (1, 2, 1), (1, 0, 1),
                                          (1, 1, 2)),
     torch.randn(2, 3, 4, 6, 7), torch.randn(5, 3, 2, 3, 3),
     torch.randn(5))

# conv_transpose3d: one rlx.conv_transpose2d per kernel depth, placed by
# a gather. Strides, padding, output padding, dilations and groups in
# each dim, bias or none, unbatched; F.conv_transpose3d through make_fx.
compare("ConvTranspose3d 3x3x3, stride 2, padding 1", nn.Sequential(
    nn.ConvTranspose3d(3, 4, 3, stride=2, padding=1)),
    torch.randn(2, 3, 4, 5, 3))
compare("ConvTranspose3d output padding, dilation, groups, no bias",
        nn.Sequential(nn.ConvTranspose3d(
            4, 6, (3, 2, 3), stride=(3, 2, 1), padding=(1, 0, 1),
            output_padding=(2, 1, 0), dilation=(1, 2, 1), groups=2,
            bias=False)), torch.randn(1, 4, 3, 4, 5))
compare("ConvTranspose3d unbatched, depth dilation", nn.Sequential(
    nn.ConvTranspose3d(2, 3, 2, dilation=(3, 1, 1))),
    torch.randn(2, 3, 4, 4))
both("F.conv_transpose3d", lambda t, w, b: F.conv_transpose3d(
    t, w, b, (2, 1, 2), (0, 1, 1), (1, 0, 1)),
     torch.randn(2, 3, 3, 5, 4), torch.randn(3, 5, 2, 3, 3), torch.randn(5))

# 3-d pooling: two 2-d rlx.pools (H x W, then D). Padding, strides,
# ceil_mode (partial last windows), count_include_pad either way,
# divisor_override, unbatched; the functions through make_fx.
cube = torch.randn(2, 3, 7, 6, 9)
for kernel, stride, padding, ceil in ((3, 2, 1, False), ((2, 3, 2),
                                                         (2, 2, 1),
                                                         (1, 1, 0), True)):
    compare(f"MaxPool3d {kernel} stride {stride} padding {padding} "
            f"ceil_mode {ceil}", nn.Sequential(nn.MaxPool3d(
                kernel, stride, padding, ceil_mode=ceil)), cube)
    for include in (True, False):
        compare(f"AvgPool3d {kernel} stride {stride} padding {padding} "
                f"ceil_mode {ceil} count_include_pad {include}",
                nn.Sequential(nn.AvgPool3d(kernel, stride, padding,
                                           ceil_mode=ceil,
                                           count_include_pad=include)),
                cube)
compare("AvgPool3d divisor_override", nn.Sequential(nn.AvgPool3d(
    2, 1, 1, divisor_override=5)), cube)
compare("MaxPool3d unbatched", nn.Sequential(nn.MaxPool3d(2)),
        torch.randn(3, 4, 5, 6))
both("F.max_pool3d", lambda t: F.max_pool3d(t, (3, 2, 2), (1, 2, 1), 1,
                                            ceil_mode=True), cube)
both("F.avg_pool3d", lambda t: F.avg_pool3d(t, 3, 2, 1,
                                            count_include_pad=False), cube)


# F.interpolate bicubic (aten's upsample_bicubic2d through make_fx): one
# rlx.resize cubic. Sizes and scale factors, align_corners both ways,
# up and down.
images = torch.randn(2, 3, 6, 7)
for options in ({"size": (11, 5)}, {"size": (13, 9), "align_corners": True},
                {"scale_factor": 1.7}, {"size": (3, 4)},
                {"size": (3, 4), "align_corners": True}):
    symbolic(f"F.interpolate bicubic {options}", lambda t, o=options:
             F.interpolate(t, mode="bicubic", **o), images)


# F.interpolate area (adaptive average pooling) and nn.AdaptiveAvgPool2d
# with windows of several sizes, overlapping.
for size in ((4, 5), (3, 3), (9, 4)):
    symbolic(f"F.interpolate area to {size}", lambda t, s=size:
             F.interpolate(t, size=s, mode="area"), images)
compare("AdaptiveAvgPool2d((4, 3))", nn.Sequential(nn.AdaptiveAvgPool2d(
    (4, 3))), images)
compare("AdaptiveAvgPool1d(4)", nn.Sequential(nn.AdaptiveAvgPool1d(4)),
        torch.randn(2, 3, 7))


# LSTM with proj_size: h (and the output) projected to proj_size
# features; layers, directions, batch first, initial states, unbatched.
class Recurrent(nn.Module):
    def __init__(self, **options):
        super().__init__()
        self.rnn = nn.LSTM(4, 6, **options)

    def forward(self, x):
        return self.rnn(x)


class RecurrentStates(Recurrent):
    def forward(self, x, h0, c0):
        return self.rnn(x, (h0, c0))


compare("LSTM proj_size 3", Recurrent(proj_size=3), torch.randn(5, 2, 4))
compare("LSTM proj_size 2, 2 layers, bidirectional, batch first, initial "
        "states", RecurrentStates(proj_size=2, num_layers=2,
                                  bidirectional=True, batch_first=True), torch.randn(2, 5, 4),
        torch.randn(4, 2, 2), torch.randn(4, 2, 6))
compare("LSTM proj_size 3 unbatched", Recurrent(proj_size=3),
        torch.randn(5, 4))


# rlx.grad through the scatters and an einsum against torch.autograd
# (f32: rtol 1e-4, atol 1e-5).
class Loss(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Parameter(torch.randn(4, 6, 5))
        self.rows = nn.Parameter(torch.randn(3, 6, 5))
        self.src = nn.Parameter(torch.randn(4, 3, 5))
        self.w = nn.Parameter(torch.randn(5, 7))
        self.register_buffer("index", index)
        self.register_buffer("at", rows)
        self.register_buffer("weights", torch.randn(4, 6, 7))

    def forward(self, x):
        y = (x * self.base).index_put((self.at,), self.rows)
        y = y.scatter(1, self.index, self.src)
        return (torch.einsum("abc,cd->abd", y, self.w) * self.weights).sum()


def check_gradients(what, loss, x):
    """rlx.grad of the imported scalar `loss` against torch.autograd, for
    every parameter (rtol 1e-4, atol 1e-5)."""
    loss = loss.eval()
    text, params = rlx.torch.import_module(loss, x)
    graph = rlx.compile(text, params=params)
    results = rlx.grad(graph)(x=x.numpy())
    loss(x).backward()
    names = [t.name for t in graph.params if t.kind == "param"]
    gradients = dict(zip(names, results[1:]))
    expected = dict(loss.named_parameters())
    worst = max(float(np.max(np.abs(gradients[n] - p.grad.numpy())))
                for n, p in expected.items() if n in gradients)
    check(sorted(gradients) == sorted(expected) and all(
        np.allclose(gradients[n], p.grad.numpy(), rtol=1e-4, atol=1e-5)
        for n, p in expected.items()),
        f"rlx.grad {what} matches torch.autograd (max abs err {worst:.2e})")


check_gradients("through index_put, scatter and einsum", Loss(), x)

# rlx.grad through an LSTM with proj_size (its projection weights
# included) against torch.autograd.
class RecurrentLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 5, proj_size=2, num_layers=2,
                           bidirectional=True)
        self.register_buffer("weights", torch.randn(6, 2, 4))

    def forward(self, x):
        return (self.rnn(x)[0] * self.weights).sum()


check_gradients("of an LSTM with proj_size", RecurrentLoss(),
                torch.randn(6, 2, 3))


class ResizeLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(3, 1, 1))
        self.register_buffer("weights", torch.randn(2, 3, 10, 11))

    def forward(self, x):
        y = F.interpolate(x * self.scale, scale_factor=1.7, mode="bicubic")
        return (y * self.weights).sum() + F.interpolate(
            y, size=(4, 5), mode="area").sum()


check_gradients("through bicubic and area interpolations", ResizeLoss(),
                torch.randn(2, 3, 6, 7))


class ConvLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(4, 6, (3, 2, 2), stride=(2, 1, 1),
                              padding=(1, 1, 0), dilation=(1, 2, 1),
                              groups=2)
        self.register_buffer("weights", torch.randn(2, 6, 3, 5, 4))

    def forward(self, x):
        return (self.conv(x) * self.weights).sum()


check_gradients("of a Conv3d", ConvLoss(), torch.randn(2, 4, 5, 5, 5))


class TransposedLoss(nn.Module):
    """A ConvTranspose3d and the 3-d poolings."""

    def __init__(self):
        super().__init__()
        self.conv = nn.ConvTranspose3d(4, 6, (3, 2, 2), stride=(2, 1, 2),
                                       padding=(1, 0, 1),
                                       output_padding=(1, 0, 1),
                                       dilation=(1, 2, 1), groups=2)
        self.register_buffer("weights", torch.randn(2, 6, 4, 4, 4))

    def forward(self, x):
        y = self.conv(x)
        pooled = F.max_pool3d(y, 2, 2, 1, ceil_mode=True) + F.avg_pool3d(
            y, 2, 2, 1, ceil_mode=True, count_include_pad=False)
        return (pooled * self.weights).sum()


check_gradients("of a ConvTranspose3d and 3-d poolings", TransposedLoss(),
                torch.randn(2, 4, 3, 4, 4))

# Refused variants name the node.
expect_error(lambda: rlx.torch.import_module(
    Fn2(lambda t, i: t.scatter(1, i, 2.0, reduce="multiply")).eval(), x,
    index), "scatter with reduce='multiply'", "scatter reduce='multiply'")
expect_error(lambda: rlx.torch.import_module(
    Fn3(lambda t, i, s: t.scatter_reduce(1, i, s, "amax")).eval(), x,
    index, src), "scatter_reduce with reduce='amax': rlx has no scatter "
    "that multiplies or takes a maximum or minimum", "scatter_reduce amax")
for reduce in ("prod", "amin"):
    expect_error(lambda: rlx.torch.import_module(
        Fn3(lambda t, i, s: t.scatter_reduce(1, i, s, reduce)).eval(), x,
        index, src), f"scatter_reduce with reduce='{reduce}'",
        f"scatter_reduce {reduce}")
expect_error(lambda: rlx.torch.import_module(
    Fn3(lambda t, i, s: t.index_reduce(0, i, s, "amax")).eval(), x,
    torch.tensor([0, 2]), torch.randn(2, 6, 5)),
    "index_reduce with reduce='amax': rlx has no scatter", "index_reduce "
    "amax")
# A k from a tensor stops both tracers (topk takes an int).
expect_error(lambda: rlx.torch.import_module(
    Fn2(lambda t, k: torch.topk(t, k)).eval(), x, torch.tensor(2)),
    "topk(): argument 'k' (position 2) must be int", "topk of a tensor k")
finish()
