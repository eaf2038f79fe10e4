# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Convolution, pooling, normalization and padding, over the torch
translations where the semantics agree (python/rlx/torch/_ops/nn.py)."""

import functools
import math

import numpy as np

from ..._capi import RLXError
from ...torch._ops import indexing as torch_indexing
from ...torch._ops import nn as torch_nn
from .common import NoValue, axis_index, ints, is_const, op


def _spatial(x, what):
    if x.rank not in (3, 4, 5):
        raise RLXError(f"{what} of a rank-{x.rank} tensor (1-d, 2-d and 3-d "
                       "are translated)")
    return x.rank - 2


def _pads(c, x, attrs, kernel, strides, dilations):
    """ONNX's pads (or auto_pad) as (symmetric padding per spatial dim,
    explicit (before, after) pads where they differ)."""
    spatial = len(kernel)
    auto = attrs.get("auto_pad", "NOTSET")
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = [0] * (2 * spatial)
        for i in range(spatial):
            size = x.shape[2 + i]
            if isinstance(size, str):
                raise RLXError(f"auto_pad {auto} of a `?` spatial dim")
            out = -(-size // strides[i])
            total = max(0, (out - 1) * strides[i] + (kernel[i] - 1) *
                        dilations[i] + 1 - size)
            small, large = total // 2, total - total // 2
            pads[i], pads[spatial + i] = (small, large) \
                if auto == "SAME_UPPER" else (large, small)
    elif auto == "VALID":
        pads = [0] * (2 * spatial)
    elif auto == "NOTSET":
        pads = attrs.get("pads", [0] * (2 * spatial))
    else:
        raise RLXError(f"auto_pad '{auto}'")
    before, after = pads[:spatial], pads[spatial:]
    return before, after


def _explicit_pad(c, x, before, after, value):
    """x padded by (before, after) per spatial dim with `value`, ahead of an
    op given padding 0 (asymmetric pads)."""
    pairs = []
    for b, a in zip(reversed(before), reversed(after)):
        pairs += [b, a]
    return torch_indexing.pad(c, x, pairs, "constant", value)


def _needs_explicit(before, after, kernel):
    """Asymmetric pads, or pads wider than half a window (which rlx.pool
    refuses): padded ahead of the op."""
    return before != after or any(2 * p > k for p, k in zip(before, kernel))


def _geometry(c, x, w_shape, attrs, pad_value):
    """(x padded where the pads are asymmetric, kernel, strides, pads,
    dilations), a 1-d op lifted to 2-d ([N, C, 1, L]); a 3-d op's
    stay 3-d."""
    spatial = _spatial(x, "a convolution or pooling")
    kernel = list(attrs.get("kernel_shape") or w_shape[2:])
    strides = list(attrs.get("strides", [1] * spatial))
    dilations = list(attrs.get("dilations", [1] * spatial))
    before, after = _pads(c, x, attrs, kernel, strides, dilations)
    if _needs_explicit(before, after, kernel):
        x = _explicit_pad(c, x, before, after, pad_value)
        before = [0] * spatial
    if spatial == 1:
        x = c.e.reshape(x, x.shape[:2] + (1, x.shape[2]))
        kernel, strides = [1] + kernel, [1] + strides
        before, dilations = [0] + before, [1] + dilations
    return x, tuple(kernel), tuple(strides), tuple(before), tuple(dilations)


def _back_to_1d(c, y, spatial):
    return c.e.reshape(y, y.shape[:2] + (y.shape[3],)) if spatial == 1 else y


@op("Conv")
def conv(c, inputs, attrs):
    x, w = c.value(inputs[0]), c.value(inputs[1])
    bias = c.value(inputs[2]) if len(inputs) > 2 else None
    if x.rank == 5:
        return _conv3d(c, x, w, bias, attrs)
    spatial = _spatial(x, "Conv")
    x2, kernel, strides, pads, dilations = _geometry(c, x, w.shape, attrs,
                                                     0.0)
    if spatial == 1:
        w = c.e.reshape(w, w.shape[:2] + (1, w.shape[2]))
    y = torch_nn.conv2d(c, x2, w, bias, strides, pads, dilations,
                        attrs.get("group", 1))
    return _back_to_1d(c, y, spatial)


def _conv3d(c, x, w, bias, attrs):
    """A 3-d Conv: the torch importer's conv3d (one rlx.conv per kernel
    depth), asymmetric pads padded ahead of it."""
    kernel = list(attrs.get("kernel_shape") or w.shape[2:])
    strides = list(attrs.get("strides", [1] * 3))
    dilations = list(attrs.get("dilations", [1] * 3))
    before, after = _pads(c, x, attrs, kernel, strides, dilations)
    if before != after:
        x = _explicit_pad(c, x, before, after, 0.0)
        before = [0] * 3
    return torch_nn.conv3d(c, x, w, bias, strides, before, dilations,
                           attrs.get("group", 1))


@op("ConvTranspose")
def conv_transpose(c, inputs, attrs):
    x, w = c.value(inputs[0]), c.value(inputs[1])
    bias = c.value(inputs[2]) if len(inputs) > 2 else None
    spatial = _spatial(x, "ConvTranspose")
    kernel = list(attrs.get("kernel_shape") or w.shape[2:])
    strides = list(attrs.get("strides", [1] * spatial))
    dilations = list(attrs.get("dilations", [1] * spatial))
    output_padding = list(attrs.get("output_padding", [0] * spatial))
    if list(w.shape[2:]) != kernel:
        raise RLXError(f"ConvTranspose kernel_shape {kernel} of a weight "
                       f"{list(w.shape)}")
    before, after = _transposed_pads(x, attrs, kernel, strides, dilations,
                                     output_padding)
    group = attrs.get("group", 1)
    if before == after and min(before) >= 0:
        if spatial == 1:
            return torch_nn.conv_transpose1d(
                c, x, w, bias, strides[0], before[0], output_padding[0],
                group, dilations[0])
        function = torch_nn.conv_transpose2d if spatial == 2 else \
            torch_nn.conv_transpose3d
        return function(c, x, w, bias, strides, before, output_padding,
                        group, dilations)
    # Pads that differ (or are negative: an output_shape past the natural
    # size): the whole transposed convolution, cropped by the pads, and
    # extended by zero rows (no input reaches them) where they are
    # negative and by output_padding, then the bias.
    if spatial == 1:
        y = torch_nn.conv_transpose1d(c, x, w, None, strides[0], 0, 0,
                                      group, dilations[0])
    else:
        function = torch_nn.conv_transpose2d if spatial == 2 else \
            torch_nn.conv_transpose3d
        y = function(c, x, w, None, strides, [0] * spatial,
                     [0] * spatial, group, dilations)
    for i in range(spatial):
        y = _crop_or_extend(c, y, 2 + i, -before[i],
                            output_padding[i] - after[i])
    if bias is not None:
        y = c.e.binary("add", y, c.e.reshape(bias, (bias.shape[0],) +
                                             (1,) * spatial))
    return y


def _transposed_pads(x, attrs, kernel, strides, dilations, output_padding):
    """ConvTranspose's (before, after) pads per spatial dim: the `pads`
    attribute, or those that give `output_shape` (by default, with
    auto_pad SAME_*, the input's size times the stride) as ONNX computes
    them (SAME_UPPER puts the smaller half first); an output_shape past
    the natural size is zero rows after the end (negative pads)."""
    spatial = len(kernel)
    auto = attrs.get("auto_pad", "NOTSET")
    if "output_shape" not in attrs and auto in ("NOTSET", "VALID"):
        pads = attrs.get("pads", [0] * (2 * spatial)) if auto == "NOTSET" \
            else [0] * (2 * spatial)
        return list(pads[:spatial]), list(pads[spatial:])
    if auto not in ("NOTSET", "SAME_UPPER", "SAME_LOWER"):
        raise RLXError(f"ConvTranspose with auto_pad '{auto}'")
    sizes = x.shape[2:]
    if any(isinstance(n, str) for n in sizes):
        raise RLXError("ConvTranspose with output_shape or auto_pad of a `?` "
                       "spatial dim")
    shape = list(attrs.get("output_shape") or
                 [n * s for n, s in zip(sizes, strides)])[-spatial:]
    before, after = [], []
    for n, k, s, d, extra, out in zip(sizes, kernel, strides, dilations,
                                      output_padding, shape):
        total = s * (n - 1) + extra + (k - 1) * d + 1 - out
        if total < 0:
            pads = (0, total)
        elif auto == "SAME_UPPER":
            pads = (total // 2, total - total // 2)
        else:
            pads = (total - total // 2, total // 2)
        before.append(pads[0])
        after.append(pads[1])
    return before, after


def _crop_or_extend(c, y, axis, at_start, at_end):
    """y with `at_start` / `at_end` zero rows added along axis where
    positive, that many rows cropped where negative."""
    start, length = max(0, -at_start), y.shape[axis] + min(0, at_start) + \
        min(0, at_end)
    y = c.e.narrow(y, axis, start, length)
    pieces = []
    for count in (at_start, at_end):
        shape = list(y.shape)
        shape[axis] = max(0, count)
        pieces.append(c.e.constant(0.0, y.dtype, shape) if count > 0 else
                      None)
    return c.e.concat([p for p in (pieces[0], y, pieces[1])
                       if p is not None], axis)


def _pool_attrs(attrs):
    if attrs.get("storage_order", 0):
        raise RLXError("MaxPool with storage_order 1 (column-major indices)")
    return attrs


@op("MaxPool")
def max_pool(c, inputs, attrs):
    x = c.value(inputs[0])
    spatial = _spatial(x, "MaxPool")
    _pool_attrs(attrs)
    dtype = x.dtype
    if dtype.startswith("ui"):
        # rlx.pool takes signless integers: the max of the values widened
        # to i32 (exact), narrowed back.
        x = c.e.cast(x, "i32")
    x2, kernel, strides, pads, dilations = _geometry(
        c, x, None, attrs, torch_nn._lowest(x.dtype))
    pool = torch_nn.max_pool3d if spatial == 3 else torch_nn.max_pool2d
    y = pool(c, x2, kernel, strides, pads, dilations,
             bool(attrs.get("ceil_mode", 0)))
    y = c.e.cast(_back_to_1d(c, y, spatial), dtype)
    return y, NoValue("MaxPool's Indices")


@op("AveragePool")
def average_pool(c, inputs, attrs):
    x = c.value(inputs[0])
    spatial = _spatial(x, "AveragePool")
    include = bool(attrs.get("count_include_pad", 0))
    before_after = _pads(c, x, attrs, attrs["kernel_shape"],
                         attrs.get("strides", [1] * spatial),
                         attrs.get("dilations", [1] * spatial))
    if attrs.get("dilations", [1] * spatial) != [1] * spatial:
        raise RLXError("AveragePool with dilations")
    x2, kernel, strides, pads, _ = _geometry(c, x, None, attrs, 0.0)
    ceil_mode = bool(attrs.get("ceil_mode", 0))
    before = list(before_after[0])
    sizes = list(x.shape[2:])
    if spatial == 1:
        before, sizes = [0] + before, [1] + sizes
    if _needs_explicit(before_after[0], before_after[1],
                       attrs["kernel_shape"]) and not include:
        # Padded ahead of the pool (pads wider than half a window): the
        # divisor of each window is the count of input elements in it.
        if ceil_mode:
            raise RLXError("AveragePool with ceil_mode, count_include_pad "
                           "0 and pads wider than half the window")
        if spatial == 3:
            # Sums (a divisor of 1).
            y = torch_nn.avg_pool3d(c, x2, kernel, strides, 0, False, True,
                                    1)
        else:
            y = c.e.pool("sum", x2, kernel, strides, (0, 0))
        counts = [_window_counts(sizes[i], before[i], kernel[i],
                                 strides[i], y.shape[2 + i])
                  for i in range(len(kernel))]
        divisor = functools.reduce(np.multiply.outer, counts)
        y = c.e.binary("div", y, c.e.constant(divisor.astype(np.float64),
                                              y.dtype))
    else:
        pool = torch_nn.avg_pool3d if spatial == 3 else torch_nn.avg_pool2d
        y = pool(c, x2, kernel, strides, pads, ceil_mode, include)
    return _back_to_1d(c, y, spatial)


def _window_counts(size, before, kernel, stride, out):
    """How many input elements each of `out` windows covers along a dim
    padded by `before` ahead of the input."""
    starts = np.arange(out) * stride - before
    return np.minimum(starts + kernel, size) - np.maximum(starts, 0)


def _global(kind):
    def handler(c, inputs, attrs):
        x = c.value(inputs[0])
        return c.e.reduce(kind, x, list(range(2, x.rank)), True)
    return handler


op("GlobalAveragePool")(_global("mean"))
op("GlobalMaxPool")(_global("max"))


@op("BatchNormalization")
def batch_norm(c, inputs, attrs):
    if attrs.get("training_mode", 0):
        raise RLXError("BatchNormalization in training mode")
    x, scale, bias, mean, var = [c.value(v) for v in inputs[:5]]
    return torch_nn.batch_norm(c, x, mean, var, scale, bias, False, 0.0,
                               attrs.get("epsilon", 1e-5))


@op("LayerNormalization")
def layer_norm(c, inputs, attrs):
    """Over the dims from `axis` on; scale and bias broadcast to them."""
    x = c.value(inputs[0])
    axis = axis_index(attrs.get("axis", -1), x.rank)
    normalized = x.shape[axis:]
    if any(isinstance(d, str) for d in normalized):
        raise RLXError("LayerNormalization over a `?` dim")

    def full(v):
        if v is None:
            return None
        v = c.value(v)
        return c.e.expand(v, normalized) if v.shape != normalized else v
    scale = full(inputs[1])
    bias = full(inputs[2] if len(inputs) > 2 else None)
    eps = attrs.get("epsilon", 1e-5)
    y = torch_nn.layer_norm(c, x, normalized, scale, bias, eps)
    if c.outputs == 1:
        return y
    # The statistics, where the node names them: kept dims of size 1.
    axes = list(range(axis, x.rank))
    mean = c.e.reduce("mean", x, axes, True)
    centered = c.e.binary("sub", x, mean)
    variance = c.e.reduce("mean", c.e.binary("mul", centered, centered),
                          axes, True)
    return y, mean, c.e.activation(
        "rsqrt", c.e.binary("add", variance, c.scalar(eps, variance)))


@op("InstanceNormalization")
def instance_norm(c, inputs, attrs):
    x, scale, bias = [c.value(v) for v in inputs]
    return torch_nn.group_norm(c, x, x.shape[1], scale, bias,
                               attrs.get("epsilon", 1e-5))


_PAD_MODES = {"constant": "constant", "reflect": "reflect",
              "edge": "replicate"}


@op("Pad")
def pad(c, inputs, attrs):
    x = c.value(inputs[0])
    mode = attrs.get("mode", "constant")
    if mode not in _PAD_MODES:
        raise RLXError(f"Pad mode '{mode}'")
    pads = inputs[1]
    if not is_const(pads):
        raise RLXError("Pad's pads computed by the graph")
    pads = ints(pads, "pads")
    value = inputs[2] if len(inputs) > 2 else None
    if value is not None:
        if not is_const(value):
            raise RLXError("Pad's constant_value computed by the graph")
        value = np.asarray(value).reshape(-1)[0].item()
    rank = x.rank
    pairs = []
    for axis in reversed(range(rank)):
        pairs += [pads[axis], pads[rank + axis]]
    # From the last dim back to the first padded one: the dims before it
    # (a `?` batch) are left alone.
    while pairs[-2:] == [0, 0]:
        pairs = pairs[:-2]
    return torch_indexing.pad(c, x, pairs, _PAD_MODES[mode], value)


@op("LRN")
def lrn(c, inputs, attrs):
    """x / (bias + alpha / size * sum of x^2 over `size` neighbouring
    channels) ^ beta; the window sum is a pool of the squares."""
    x = c.value(inputs[0])
    size = attrs["size"]
    alpha, beta = attrs.get("alpha", 1e-4), attrs.get("beta", 0.75)
    bias = attrs.get("bias", 1.0)
    if x.rank != 4:
        raise RLXError(f"LRN of a rank-{x.rank} tensor")
    n, channels, h, w = x.shape
    below, above = (size - 1) // 2, int(math.ceil((size - 1) / 2))
    square = c.e.binary("mul", x, x)
    rows = c.e.reshape(square, (n, 1, channels, h * w))
    rows = torch_indexing.pad(c, rows, [0, 0, below, above], "constant", 0)
    window = c.e.pool("sum", rows, (size, 1), (1, 1), (0, 0))
    window = c.e.reshape(window, x.shape)
    scale = c.e.binary("add", c.scalar(bias, x),
                       c.e.binary("mul", window, c.scalar(alpha / size, x)))
    return c.e.binary("div", x, c.e.binary("pow", scale, c.scalar(beta, x)))
