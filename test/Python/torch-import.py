# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Imports modules with rlx.torch and compares rlx's outputs with eager
PyTorch's (eval mode, fresh random inputs, f32): within rtol 1e-5 and
atol 1e-5 unless a case says otherwise (deep models accumulate rounding in
a different order)."""

import math
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.nn.utils.rnn import pack_padded_sequence
from torchvision.models import convnext

import rlx
import rlx.torch
from pychecks import check, finish

torch.manual_seed(0)
scratch = sys.argv[1]
os.makedirs(scratch, exist_ok=True)


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
        expected = module(*inputs)
    if isinstance(expected, torch.Tensor):
        expected, got = (expected,), (got,)
    worst = 0.0
    ok = len(got) == len(expected)
    for g, e in zip(got, expected):
        e = e.numpy()
        ok &= g.shape == e.shape and np.allclose(g, e, rtol=rtol, atol=atol)
        if g.shape == e.shape:
            worst = max(worst, float(np.max(np.abs(g - e), initial=0)))
    check(ok, f"{name}: max abs err {worst:.2e} (rtol {rtol}, atol {atol})")


class Fn(nn.Module):
    """A module around a function, to import torch functions one by one."""

    def __init__(self, function):
        super().__init__()
        self.function = function

    def forward(self, x):
        return self.function(x)


def _add_in_place(x):
    y = x * 2
    y += x
    return y


x4 = torch.randn(2, 3, 8, 8)
x2 = torch.randn(4, 6)

# Every activation, as a module and as a function.
activations = [nn.ReLU(), nn.ReLU6(), nn.GELU(), nn.GELU("tanh"), nn.SiLU(),
               nn.Sigmoid(), nn.Tanh(), nn.LeakyReLU(0.2), nn.ELU(0.7),
               nn.SELU(), nn.CELU(1.3), nn.Softplus(), nn.Softplus(2.0, 5.0),
               nn.Mish(), nn.Hardtanh(-0.5, 0.7), nn.Hardsigmoid(),
               nn.Hardswish(), nn.LogSigmoid(), nn.Softsign(),
               nn.Tanhshrink(), nn.PReLU(6)]
for module in activations:
    compare(f"module {module}", module, x2 * 3)
for name, function in [
        ("F.relu", F.relu), ("torch.relu", torch.relu), ("F.gelu", F.gelu),
        ("F.silu", F.silu), ("torch.sigmoid", torch.sigmoid),
        ("torch.tanh", torch.tanh), ("F.leaky_relu", F.leaky_relu),
        ("F.elu", F.elu), ("F.softplus", F.softplus), ("F.mish", F.mish),
        ("F.hardswish", F.hardswish), ("F.relu6", F.relu6),
        ("torch.exp", torch.exp), ("torch.abs", torch.abs),
        ("x.clamp", lambda x: x.clamp(-0.5, 0.5)),
        ("softmax", lambda x: F.softmax(x, dim=-1)),
        ("log_softmax", lambda x: F.log_softmax(x, dim=1)),
        ("x.softmax(0)", lambda x: x.softmax(0)),
        ("add/sub/mul/div", lambda x: (x + 1) * x - x / 2.5),
        ("rsub and pow", lambda x: 1 - x ** 2),
        ("mean/sum/max", lambda x: (x.mean(-1), x.sum(0, keepdim=True),
                                    torch.amax(x, 1), x.max())),
        ("max(dim)[0]", lambda x: torch.max(x, dim=1)[0]),
        ("matmul", lambda x: x @ x.t()),
        ("bmm", lambda x: torch.bmm(x.view(2, 2, 6),
                                    x.view(2, 6, 2))),
        ("reshape/view/permute/transpose", lambda x: x.view(2, 2, 6)
         .permute(2, 0, 1).reshape(6, 4).transpose(0, 1)),
        ("flatten/unsqueeze/squeeze", lambda x: torch.flatten(
            x.unsqueeze(0).unsqueeze(-1), 1).squeeze(0)),
        ("cat/split", lambda x: torch.cat(
            list(torch.split(x, 4, dim=1))[::-1], dim=1)),
        ("chunk", lambda x: torch.cat(x.chunk(2, 0)[::-1], 0)),
        ("getitem slices", lambda x: (x[1:3, ::1], x[:, 2], x[None, -1],
                                      x[..., :3])),
        ("masked_fill/where", lambda x: torch.where(
            x > 0, x, x.masked_fill(x < -0.5, 0.0))),
        ("in-place add_/relu_", lambda x: x.clone().add_(1).relu_()),
        ("x += y", _add_in_place),
]:
    compare(name, Fn(function), x2)


# Non-finite constants in f64 graphs (attention masks): each is written as
# the f64 bit pattern (an f32 pattern read as f64 is a tiny denormal).
xd = torch.randn(4, 6, dtype=torch.float64)
compare("f64 masked_fill -inf, softmax", Fn(lambda x: F.softmax(
    x.masked_fill(x < -0.3, float("-inf")), dim=-1)), xd)
compare("f64 masked_fill +inf, exp", Fn(lambda x: torch.exp(
    -x.masked_fill(x > 0.5, float("inf")))), xd)


# Shape-sensitive modules.
compare("nn.Linear", nn.Linear(6, 5), x2)
compare("nn.Linear 3-d", nn.Linear(6, 5), torch.randn(2, 4, 6))
compare("nn.Conv2d", nn.Conv2d(3, 4, 3, padding=1), x4)
compare("nn.Conv2d stride, groups", nn.Conv2d(3, 6, 3, stride=2, groups=3,
                                              bias=False), x4)
bn = nn.BatchNorm2d(3)
bn.running_mean.uniform_(-1, 1)
bn.running_var.uniform_(0.5, 2)
bn.weight.data.uniform_(0.5, 1.5)
bn.bias.data.uniform_(-1, 1)
compare("nn.BatchNorm2d eval", bn, x4)
compare("nn.LayerNorm", nn.LayerNorm(6), x2)
compare("nn.LayerNorm 2 dims", nn.LayerNorm([3, 6]), torch.randn(2, 3, 6))
compare("nn.Embedding", nn.Embedding(10, 4), torch.randint(0, 10, (2, 5)))
compare("nn.MaxPool2d", nn.MaxPool2d(2), x4)
compare("nn.MaxPool2d padded", nn.MaxPool2d(3, 2, 1), x4)
compare("nn.AvgPool2d", nn.AvgPool2d(2), x4)
compare("nn.AdaptiveAvgPool2d(1)", nn.AdaptiveAvgPool2d(1), x4)
compare("nn.AdaptiveAvgPool2d(2)", nn.AdaptiveAvgPool2d((2, 2)), x4)
compare("nn.Flatten", nn.Flatten(), x4)
compare("nn.Dropout eval", nn.Dropout(0.5), x2)
for batch_first in (True, False):
    mha = nn.MultiheadAttention(8, 2, batch_first=batch_first)
    seq = torch.randn(2, 5, 8)
    compare(f"nn.MultiheadAttention batch_first={batch_first}",
            Fn(lambda q, m=mha: m(q, q, q, need_weights=False)[0]), seq)
causal = torch.triu(torch.full((5, 5), float("-inf")), 1)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
compare("nn.MultiheadAttention with a causal attn_mask",
        Fn(lambda q: mha(q, q, q, attn_mask=causal, need_weights=False)[0]),
        torch.randn(2, 5, 8))


# Pooling: ceil_mode's partial last windows (inputs all negative, so that a
# window padded with zeros instead of -inf would show), including PyTorch's
# rule that drops a last window starting in the right padding (5x5, kernel
# 2, stride 2, padding 1: 3 windows, not 4); average pooling's divisors.
xneg = torch.randn(2, 3, 8, 8) - 3
for args in [(3, 2, 0), (3, 2, 1), (2, 2, 0)]:
    compare(f"nn.MaxPool2d{args} ceil_mode", nn.MaxPool2d(*args,
                                                          ceil_mode=True),
            xneg)
compare("nn.MaxPool2d(2, 2, 1) ceil_mode on 5x5 (last window dropped)",
        nn.MaxPool2d(2, 2, 1, ceil_mode=True), torch.randn(2, 3, 5, 5) - 3)
compare("nn.MaxPool2d ceil_mode on 7x9", nn.MaxPool2d(3, 2, ceil_mode=True),
        torch.randn(1, 2, 7, 9))
for kwargs in [dict(ceil_mode=True), dict(padding=1, ceil_mode=True),
               dict(padding=1, count_include_pad=False),
               dict(padding=1, ceil_mode=True, count_include_pad=False),
               dict(divisor_override=3)]:
    compare(f"nn.AvgPool2d(3, 2, {kwargs})", nn.AvgPool2d(3, 2, **kwargs),
            x4)

# 1-d convolution, batch norm and pooling ([N, C, L]).
x3 = torch.randn(2, 4, 20)
compare("nn.Conv1d", nn.Conv1d(4, 6, 5), x3)
compare("nn.Conv1d stride, padding, dilation, groups",
        nn.Conv1d(4, 8, 3, stride=2, padding=2, dilation=2, groups=2), x3)
compare("F.conv1d", Fn(lambda x, w=torch.randn(3, 4, 2): F.conv1d(
    x, w, stride=3)), x3)
bn1 = nn.BatchNorm1d(4)
bn1.running_mean.uniform_(-1, 1)
bn1.running_var.uniform_(0.5, 2)
compare("nn.BatchNorm1d on [N, C, L]", bn1, x3)
compare("nn.MaxPool1d", nn.MaxPool1d(4), x3)
compare("nn.MaxPool1d(3, 2, 1) ceil_mode", nn.MaxPool1d(3, 2, 1,
                                                        ceil_mode=True),
        x3 - 3)
compare("nn.AvgPool1d(3, 2, 1)", nn.AvgPool1d(3, 2, 1), x3)
compare("F.max_pool1d/F.avg_pool1d", Fn(lambda x: F.max_pool1d(x, 2) +
                                        F.avg_pool1d(x, 2)), x3)
compare("nn.AdaptiveAvgPool1d(5)", nn.AdaptiveAvgPool1d(5), x3)

# Unsupported variants are errors that name the node.
for name, module in [
        ("return_indices", nn.MaxPool2d(2, return_indices=True)),
        ("dilation", nn.MaxPool2d(2, dilation=2))]:
    try:
        rlx.torch.import_module(nn.Sequential(module).eval(), x4)
        check(False, f"max_pool2d {name} raises")
    except rlx.torch.UnsupportedError as error:
        check("max_pool2d" in str(error) and name in str(error),
              f"max_pool2d {name}: {error}")


# Indexing: slices with steps, index tensors (on the first dim, on middle
# dims, two adjacent ones broadcast together, negative values), aten's
# index through make_fx, index_select, roll, pad in every mode.
x5 = torch.randn(4, 6, 5)
picks = torch.tensor([[2, -1], [0, 3]])
compare("slices with steps", Fn(lambda x: (x[::2, 1::3], x[..., 1:5:2],
                                           x[:, ::4, None])), x5)
compare("an index tensor on the first dim", Fn(lambda x: x[picks]), x5)
compare("an index tensor on a middle dim", Fn(lambda x: x[:, picks]), x5)
compare("two adjacent index tensors, broadcast", Fn(
    lambda x: x[:, torch.tensor([[0], [5]]), torch.tensor([1, -2, 4])]), x5)
compare("index_select", Fn(lambda x: torch.index_select(
    x, 2, torch.tensor([4, 0, 0]))), x5)
compare("roll", Fn(lambda x: (torch.roll(x, (1, -2), (0, 2)),
                              x.roll(3))), x5)
for mode in ["constant", "reflect", "replicate", "circular"]:
    compare(f"F.pad {mode}", Fn(lambda x, m=mode: F.pad(
        x, (2, -1, 1, 3), mode=m, **({"value": 0.5} if m == "constant"
                                     else {}))), x4)


def _positions_mask(x):
    # A mask from x's shape, written through slices of a new_zeros (folded
    # at import: torch updates the constant in place).
    mask = x.new_zeros((x.shape[1], x.shape[1]))
    mask[:, :2] = 1.0
    mask[3:, :] = -1.0
    return x @ mask


compare("x.new_zeros with slice assignment (folded)", Fn(_positions_mask),
        torch.randn(2, 6, 6))


# In-place updates of a slice or element of a graph value rebuild the
# value around it; an update of another view that is read later is an
# error.
def _update_slices(x):
    y = x.clone()
    y[:, 1:3].zero_()
    y[0].mul_(2)
    return y + 1


compare("in-place updates of slices", Fn(_update_slices), x2)
try:
    rlx.torch.import_module(Fn(lambda x: (x.t().add_(1), x)[1]).eval(), x2)
    check(False, "an in-place update of a view read later raises")
except rlx.torch.UnsupportedError as error:
    check("in-place update" in str(error), f"a stale view: {error}")


# Python functions that fx keeps as calls are traced by make_fx on their
# operands' shapes and translated in place: a torch.fx.wrap'ed function
# with control flow on shapes (as torchvision's shifted_window_attention),
# and F.normalize.
def shifted_scores(x, shift):
    length = x.shape[1]
    if shift and length > shift:
        x = torch.roll(x, shift, 1)
    scores = x @ x.transpose(1, 2)
    mask = x.new_zeros((length, length))
    mask[:shift, :] = -100.0
    return F.softmax(scores + mask, -1)


torch.fx.wrap("shifted_scores")
compare("a torch.fx.wrap'ed function (make_fx inside)", Fn(
    lambda x: shifted_scores(x * 2, 2)), torch.randn(2, 6, 4))
compare("F.normalize, x.norm", Fn(lambda x: (F.normalize(x, dim=-1),
                                             x.norm(dim=0, keepdim=True))),
        x5)


# F.interpolate (through make_fx): bilinear with and without
# align_corners, to a size and by scale factors (an integer one and one
# whose output size is rounded down), nearest and nearest-exact, linear
# 1-d, trilinear and 3-d nearest (one rlx.resize each), nn.Upsample.
for name, function in [
        ("bilinear to a size", lambda x: F.interpolate(
            x, size=(13, 21), mode="bilinear", align_corners=False)),
        ("bilinear align_corners", lambda x: F.interpolate(
            x, size=(13, 21), mode="bilinear", align_corners=True)),
        ("bilinear scale 2", lambda x: F.interpolate(
            x, scale_factor=2.0, mode="bilinear")),
        ("bilinear scale 1.7 (down-rounded size)", lambda x: F.interpolate(
            x, scale_factor=1.7, mode="bilinear")),
        ("bilinear downsampling", lambda x: F.interpolate(
            x, size=(3, 5), mode="bilinear")),
        ("nearest", lambda x: F.interpolate(x, size=(13, 21))),
        ("nearest scale 2", lambda x: F.interpolate(x, scale_factor=2.0)),
        ("nearest-exact", lambda x: F.interpolate(x, size=(13, 5),
                                                  mode="nearest-exact")),
        ("linear 1-d", lambda x: F.interpolate(
            x.flatten(2), size=50, mode="linear")),
        ("trilinear", lambda x: F.interpolate(
            x.unsqueeze(1), size=(5, 9, 4), mode="trilinear",
            align_corners=False)),
        ("nearest 3-d by scale 1.5", lambda x: F.interpolate(
            x.unsqueeze(1), scale_factor=1.5))]:
    compare(f"F.interpolate {name}", Fn(function), x4)
compare("nn.Upsample", nn.Upsample(scale_factor=3, mode="bilinear",
                                   align_corners=True), x4)


# Floor division, remainders and rounding: //, %, torch.floor_divide,
# remainder, fmod, div's rounding modes, floor/ceil/trunc/frac, on floats
# of both signs and on int64 (a divisor of each sign, no zero: torch
# raises on an integer zero divisor).
signs = torch.randn(4, 6) * 4
signs[0, :3] = torch.tensor([6.0, -6.0, 1.0])
divisors = torch.tensor([3.0, -3.0, 0.1, -0.7, 2.5, -1.5])
compare("//, %, floor_divide, remainder, fmod, div rounding modes", Fn(
    lambda x: (x // divisors, x % divisors, torch.floor_divide(x, 2.0),
               torch.remainder(x, -1.5), torch.fmod(x, divisors),
               torch.div(x, divisors, rounding_mode="floor"),
               torch.div(x, divisors, rounding_mode="trunc"),
               torch.floor(x), x.ceil(), torch.trunc(x), x.frac())),
    signs, rtol=0, atol=0)
compare("integer //, %, fmod, div rounding modes", Fn(
    lambda i: (i // torch.tensor([3, -3, 2, -7, 1, 5]), i % -4,
               torch.fmod(i, torch.tensor([3, -3, 2, -7, 1, 5])),
               torch.div(i, 3, rounding_mode="trunc"),
               torch.div(i, -3, rounding_mode="floor"))),
    torch.randint(-50, 50, (4, 6)), rtol=0, atol=0)


# scatter_add (index smaller than src, repeated indices accumulating) and
# index_add (with alpha), along a middle and the last dim.
spots = torch.randint(0, 4, (3, 2, 5))
rows = torch.tensor([2, 0, 2, 3])


def scatters(v):
    x, s = v[:, :4, :], v * 2 - 1  # self [3, 4, 6], src [3, 5, 6]
    return (torch.scatter_add(x, 1, spots, s),
            x.scatter_add(-1, spots[:, :, :4], s),
            torch.index_add(x, 1, rows, s[:, :4, :]),
            x.index_add(2, torch.tensor([5, 1, 1]), s[:, :4, :3], alpha=0.5))


compare("scatter_add, index_add", Fn(scatters), torch.randn(3, 5, 6))


# argmax/argmin (along a dim, with keepdim, over everything) and the
# indices of max/min(x, dim): the first position of the extreme (ties
# planted), a NaN as the extreme of either, integers down to -2^63.
ties = torch.randn(3, 5, 4)
ties[0, 2, 1] = ties[0, 4, 1] = 9.0
ties[2, 1, 3] = ties[2, 3, 3] = -9.0
compare("argmax/argmin, max/min(x, dim) indices", Fn(lambda x: (
    torch.argmax(x, 1), torch.argmin(x, -1, keepdim=True), torch.argmax(x),
    x.argmin(1), torch.max(x, 1)[1], torch.min(x, 1, keepdim=True)[1])),
    ties, rtol=0, atol=0)
with_nan = ties.clone()
with_nan[1, 3, 2] = float("nan")
compare("argmax/argmin with a NaN", Fn(lambda x: (
    torch.argmax(x, 1), torch.argmin(x, 1))), with_nan, rtol=0, atol=0)
integers = torch.randint(-3, 3, (4, 6))
integers[0, 0] = -2**63
integers[3, 5] = 2**63 - 1
compare("argmax/argmin of int64", Fn(lambda i: (
    torch.argmax(i, 1), torch.argmin(i, 0), torch.argmin(i))),
    integers, rtol=0, atol=0)


# Ops that map onto one rlx op or a few: cumsum, flip, triu/tril of a
# graph value (mask computed in the graph), one_hot, GroupNorm (affine and
# not), transposed convolutions (2-d and 1-d, stride, padding,
# output_padding, dilation, groups).
compare("cumsum, flip", Fn(lambda x: (torch.cumsum(x, 1), x.cumsum(-1),
                                      torch.flip(x, (0, 2)))), x5)
compare("triu/tril", Fn(lambda x: (torch.triu(x), x.tril(-1),
                                   torch.triu(x, 2))), x5)
compare("one_hot", Fn(lambda i: F.one_hot(i, 7)),
        torch.randint(0, 7, (3, 4)))
choices = torch.randint(0, 5, (4, 3, 5))
compare("torch.gather (and with a smaller index tensor)", Fn(
    lambda x: (torch.gather(x, 1, choices), x.gather(-1, choices[:, :2, :3]))
), x5)
group_norm = nn.GroupNorm(2, 6)
group_norm.weight.data.uniform_(0.5, 1.5)
group_norm.bias.data.uniform_(-0.5, 0.5)
compare("nn.GroupNorm", group_norm, torch.randn(2, 6, 5, 5))
compare("F.group_norm without affine", Fn(lambda x: F.group_norm(x, 3)),
        torch.randn(2, 6, 7))
compare("nn.ConvTranspose2d", nn.ConvTranspose2d(3, 4, 3), x4)
compare("nn.ConvTranspose2d stride, padding, output_padding, groups",
        nn.ConvTranspose2d(3, 6, 3, stride=2, padding=1, output_padding=1,
                           groups=3), x4)
compare("nn.ConvTranspose2d dilation, no bias", nn.ConvTranspose2d(
    3, 2, (2, 3), dilation=2, bias=False), x4)
compare("nn.ConvTranspose1d", nn.ConvTranspose1d(4, 3, 5, stride=3,
                                                 padding=2), x3)


# Subclasses of translated modules: one that keeps forward is translated
# like its base; one that overrides it (torchvision's LayerNorm2d, a
# LayerNorm over the channels of NCHW) is traced through.
class PlainLinear(nn.Linear):
    pass


compare("a subclass of nn.Linear", PlainLinear(6, 3), x2)
layer_norm_2d = convnext.LayerNorm2d(3)
layer_norm_2d.weight.data.uniform_(0.5, 1.5)
layer_norm_2d.bias.data.uniform_(-0.5, 0.5)
compare("torchvision LayerNorm2d", layer_norm_2d, x4)

# torchvision's stochastic depth: the identity in eval; in training mode
# (a StochasticDepth left in train() inside an eval model) an error, as is
# its random noise when traced through (torchvision.ops.stochastic_depth
# called from other code than torchvision's module is not an fx leaf).
block = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1),
                      torchvision.ops.StochasticDepth(0.5, "row"))
compare("torchvision.ops.StochasticDepth (eval)", block, x4)
block.eval()[1].train()
for name, module, needle in [
        ("StochasticDepth in training mode", block, "stochastic_depth"),
        ("stochastic_depth's random noise", Fn(
            lambda x: torchvision.ops.stochastic_depth(x, 0.2, "row")).eval(),
         "bernoulli_")]:
    try:
        rlx.torch.import_module(module, x4)
        check(False, f"{name} raises")
    except rlx.torch.UnsupportedError as error:
        check(needle in str(error), f"{name}: {error}")


# Constant folding: ops of constants only run at import time, so a mask
# built in forward is a constant of the graph; a large intermediate is
# fine when what the graph uses is small.
class CausalScores(nn.Module):
    def forward(self, x):
        n = x.shape[-1]
        mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
        bias = torch.arange(128.0 * 128).view(128, 128).sum(0)[:n]
        return F.softmax(x @ x.transpose(-2, -1) + mask, dim=-1) + bias


xs = torch.randn(2, 6, 6)
compare("a causal mask built in forward (folded)", CausalScores(), xs)
text, _ = rlx.torch.import_module(CausalScores().eval(), xs)
check("triu" not in text and "arange" not in text,
      "the folded mask is a constant")


class OuterDifference(nn.Module):
    # A constant too large to inline (100 x 100, not a splat) made from
    # small ones (made from x's shape, so that tracing records them): the
    # graph computes it from them.
    def forward(self, x):
        steps = torch.arange(x.shape[-1]).float()
        return x @ (steps[:, None] - steps[None, :]).abs().sqrt()


compare("a large constant computed from small ones", OuterDifference(),
        torch.randn(3, 100), rtol=1e-4)


# nn.TransformerEncoderLayer (make_fx) with a bool key padding mask: aten's
# zeros_like and masked_fill_ make it a float mask.
class PaddedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(16, 4, 32, batch_first=True)

    def forward(self, x, padding):
        return self.layer(x, src_key_padding_mask=padding)


padding = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
compare("nn.TransformerEncoderLayer with a key padding mask (make_fx)",
        PaddedEncoder(), torch.randn(2, 6, 16), padding, atol=1e-4)


# Recurrent layers (rlx.scan over time): outputs and final states, time- or
# batch-major, several layers, both directions, initial states as inputs,
# no biases, unbatched.
class Recurrent(nn.Module):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x):
        if isinstance(self.rnn, nn.LSTM):
            out, (h, c) = self.rnn(x)
            return out, h, c
        out, h = self.rnn(x)
        return out, h


class LSTMFrom(Recurrent):
    def forward(self, x, h0, c0):
        out, (h, c) = self.rnn(x, (h0, c0))
        return out, h, c


class GRUFrom(Recurrent):
    def forward(self, x, h0):
        return self.rnn(x, h0)


seq = torch.randn(5, 2, 3)  # [T, B, I]
compare("nn.LSTM", Recurrent(nn.LSTM(3, 4)), seq)
compare("nn.LSTM 2 layers, bidirectional, batch first, (h0, c0)",
        LSTMFrom(nn.LSTM(3, 4, num_layers=2, bidirectional=True,
                         batch_first=True)),
        torch.randn(2, 5, 3), torch.randn(4, 2, 4), torch.randn(4, 2, 4))
compare("nn.LSTM unbatched", Recurrent(nn.LSTM(3, 4)), torch.randn(5, 3))
compare("nn.GRU bidirectional, batch first, no bias",
        Recurrent(nn.GRU(3, 4, bidirectional=True, batch_first=True,
                         bias=False)), torch.randn(2, 5, 3))
compare("nn.GRU 2 layers, h0", GRUFrom(nn.GRU(3, 4, num_layers=2)), seq,
        torch.randn(2, 2, 4))
compare("nn.RNN tanh", Recurrent(nn.RNN(3, 4)), seq)
compare("nn.RNN relu, 2 layers, bidirectional", Recurrent(nn.RNN(
    3, 4, num_layers=2, nonlinearity="relu", bidirectional=True)), seq)


# Packed sequences are an error at the packing call.
class Packed(Recurrent):
    def forward(self, x):
        return self.rnn(pack_padded_sequence(x, [5, 3]))[1]


try:
    rlx.torch.import_module(Packed(nn.GRU(3, 4)).eval(), seq)
    check(False, "a packed sequence raises")
except rlx.torch.UnsupportedError as error:
    check("pack_padded_sequence" in str(error) and "packed sequences" in
          str(error), f"a packed sequence: {error}")


# The scan stays differentiable: rlx.grad of a loss of an imported LSTM
# against torch.autograd.
class RecurrentLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
        self.register_buffer("weights", torch.randn(5, 2, 8))

    def forward(self, x):
        return (self.rnn(x)[0] * self.weights).sum()


loss_module = RecurrentLoss().eval()
text, params = rlx.torch.import_module(loss_module, seq)
results = rlx.grad(rlx.compile(text, params=params))(x=seq.numpy())
loss_module(seq).backward()
gradients = dict(zip([t.name for t in rlx.compile(text, params=params)
                      .params if t.kind == "param"], results[1:]))
worst = max(float(np.max(np.abs(gradients[name] - p.grad.numpy())))
            for name, p in loss_module.named_parameters())
check(len(gradients) == 16 and all(
    np.allclose(gradients[name], p.grad.numpy(), rtol=1e-4, atol=1e-5)
    for name, p in loss_module.named_parameters()),
    f"rlx.grad of an imported LSTM matches torch.autograd (max abs err "
    f"{worst:.2e})")

# Models.
mlp = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32),
                    nn.GELU(), nn.Dropout(0.1), nn.Linear(32, 4),
                    nn.LogSoftmax(dim=-1))
compare("MLP", mlp, torch.randn(8, 16))

# An MLP with every activation, each after its own Linear layer.
layers = []
for module in activations:
    layers += [nn.Linear(6, 6), module]
compare("MLP with every activation", nn.Sequential(*layers), x2, atol=1e-4,
        rtol=1e-4)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1)
        return self.head(torch.flatten(x, 1))


cnn = SmallCNN()
for bn in (cnn.bn1, cnn.bn2):
    bn.running_mean.uniform_(-0.5, 0.5)
    bn.running_var.uniform_(0.5, 2)
compare("small CNN", cnn, torch.randn(2, 3, 16, 16), atol=1e-4)

for norm_first in (False, True):
    layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1,
                                       batch_first=True,
                                       norm_first=norm_first)
    compare(f"nn.TransformerEncoderLayer norm_first={norm_first} (make_fx)",
            layer, torch.randn(2, 6, 16), atol=1e-4)


class GPT2Block(nn.Module):
    """Causal self-attention and an MLP in plain PyTorch."""

    def __init__(self, dim=16, heads=4, length=6):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.out = nn.Linear(4 * dim, dim)
        self.register_buffer("mask", torch.tril(torch.ones(length, length))
                             .view(1, 1, length, length))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


compare("GPT-2-style block", GPT2Block(), torch.randn(2, 6, 16), atol=1e-4)


# The unsupported-op error names the node, the op and the source line.
class Unsupported(nn.Module):
    def forward(self, x):
        y = x + 1
        return torch.cumprod(y, dim=0)  # not translated


try:
    rlx.torch.import_module(Unsupported().eval(), x2)
    check(False, "unsupported op raises")
except rlx.torch.UnsupportedError as error:
    message = str(error)
    check("node 'cumprod'" in message and "torch.cumprod" in message
          and "torch-import.py" in message and "in forward" in message,
          f"unsupported op names node, op and line: {message}")

try:
    rlx.torch.import_module(nn.Linear(2, 2), torch.randn(1, 2))
    check(False, "training mode raises")
except rlx.RLXError as error:
    check("eval()" in str(error), f"training mode: {error}")

# The command line, its graph through rlx-run's inputs.
factory = os.path.join(scratch, "factory.py")
with open(factory, "w") as file:
    file.write("import torch\n"
               "def make():\n"
               "    torch.manual_seed(3)\n"
               "    m = torch.nn.Sequential(torch.nn.Linear(4, 3), "
               "torch.nn.Tanh())\n"
               "    return m, (torch.randn(2, 4),)\n")
mlir = os.path.join(scratch, "model.mlir")
safetensors = os.path.join(scratch, "model.safetensors")
run = subprocess.run([sys.executable, "-m", "rlx.torch", factory + ":make",
                      "-o", mlir, "--params", safetensors],
                     capture_output=True, text=True)
check(run.returncode == 0, f"python3 -m rlx.torch: {run.stderr.strip()}")
if run.returncode == 0:
    torch.manual_seed(3)
    module = nn.Sequential(nn.Linear(4, 3), nn.Tanh()).eval()
    xin = torch.randn(2, 4)
    got = rlx.compile(mlir, params=safetensors)(input=xin.numpy())
    check(np.allclose(got, module(xin).detach().numpy(), rtol=1e-5,
                      atol=1e-6), "command line output matches eager")
bad = subprocess.run([sys.executable, "-m", "rlx.torch", "nofile.py:make",
                      "-o", mlir], capture_output=True, text=True)
check(bad.returncode == 1 and "no such file 'nofile.py'" in bad.stderr,
      f"command line error: {bad.stderr.strip()}")

# Registered buffers (batch norm's running statistics) are state, not
# trained: marked rlx.state, listed by Graph.state, bound and run like
# parameters, and left out of rlx.grad's default wrt, as PyTorch's
# optimizers leave buffers alone.
net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4),
                    nn.ReLU(), nn.Flatten(), nn.Linear(4 * 8 * 8, 5))
net[1].running_mean.uniform_(-1, 1)
net[1].running_var.uniform_(0.5, 2)
net.eval()
text, params = rlx.torch.import_module(net, x4)
buffers = {name for name, _ in net.named_buffers()
           if not name.endswith("num_batches_tracked")}
marked = {line.split('rlx.param = "')[1].split('"')[0]
          for line in text.splitlines() if "rlx.state" in line}
check(marked == buffers, f"rlx.state on exactly the buffers: {sorted(marked)}")
graph = rlx.compile(text, params=params)
check({t.name for t in graph.state} == buffers and
      all(t.kind == "state" for t in graph.state),
      f"Graph.state: {[(t.name, t.kind) for t in graph.state]}")
trained = [t.name for t in graph.params if t.kind == "param"]
check(sorted(trained) == sorted(n for n, _ in net.named_parameters()),
      f"trained params: {trained}")
with torch.no_grad():
    check(np.allclose(graph(input=x4.numpy()), net(x4).numpy(), rtol=1e-5,
                      atol=1e-5), "a graph with state runs as eager")
g = rlx.grad(graph)
check(len(g.outputs) == 1 + len(trained),
      f"rlx.grad: the output and one gradient per trained parameter "
      f"({len(g.outputs)} results for {len(trained)} parameters)")

finish()
