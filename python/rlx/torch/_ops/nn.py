# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Normalization, convolution and pooling."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from ..._capi import RLXError
from .common import (ATEN, FUNCTIONS, MODULES, NAMED_FUNCTIONS, NoIndices,
                     axis_index, const, pair)
from .indexing import take
from .shapes import embedding, flatten


def layer_norm(c, x, normalized_shape, weight=None, bias=None, eps=1e-5):
    count = len(normalized_shape)
    features = math.prod(normalized_shape)
    flat = c.e.reshape(x, x.shape[:x.rank - count] + (features,))
    gamma = c.e.reshape(weight, (features,)) if weight is not None else \
        c.e.constant(1.0, x.dtype, (features,))
    beta = c.e.reshape(bias, (features,)) if bias is not None else \
        c.e.constant(0.0, x.dtype, (features,))
    return c.e.reshape(c.e.layer_norm(flat, gamma, beta, eps), x.shape)


def group_norm(c, x, num_groups, weight=None, bias=None, eps=1e-5):
    """rlx.layer_norm over each group's channels and positions (x viewed
    as [N, G, C / G * H * W]), then the per-channel affine."""
    n, channels = x.shape[:2]
    if channels % num_groups:
        raise RLXError(f"group_norm of {channels} channels in {num_groups} "
                       "groups")
    features = math.prod(x.shape[1:]) // num_groups
    y = layer_norm(c, c.e.reshape(x, (n, num_groups, features)),
                   (features,), None, None, eps)
    y = c.e.reshape(y, x.shape)
    per_channel = (channels,) + (1,) * (x.rank - 2)
    if weight is not None:
        y = c.e.binary("mul", y, c.e.reshape(weight, per_channel))
    if bias is not None:
        y = c.e.binary("add", y, c.e.reshape(bias, per_channel))
    return y


FUNCTIONS[F.group_norm] = group_norm
ATEN["aten.native_group_norm.default"] = lambda c, x, w, b, n, ch, hw, \
    groups, eps: (group_norm(c, x, groups, w, b, eps), NoIndices(),
                  NoIndices())
MODULES[nn.GroupNorm] = lambda c, m, p, x: group_norm(
    c, x, m.num_groups, c.param(p + ".weight") if m.affine else None,
    c.param(p + ".bias") if m.affine else None, m.eps)


def native_layer_norm(c, x, normalized_shape, weight, bias, eps):
    # The mean and rstd results are for the backward pass: never used in
    # an inference graph.
    return (layer_norm(c, x, normalized_shape, weight, bias, eps),
            NoIndices(), NoIndices())


FUNCTIONS[F.layer_norm] = layer_norm
ATEN["aten.native_layer_norm.default"] = native_layer_norm
ATEN["aten.layer_norm.default"] = layer_norm
MODULES[nn.LayerNorm] = lambda c, m, p, x: layer_norm(
    c, x, m.normalized_shape,
    c.param(p + ".weight") if m.elementwise_affine else None,
    c.param(p + ".bias") if m.elementwise_affine else None, m.eps)


def batch_norm(c, x, mean, var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if training:
        raise RLXError("batch norm in training mode")
    # y = (x - mean) * (weight * rsqrt(var + eps)) + bias, per channel
    # (axis 1), in ops of the parameters so they stay arguments.
    channels = (x.shape[1],) + (1,) * (x.rank - 2)
    scale = c.e.activation("rsqrt", c.e.binary("add", var,
                                               const(c, var, eps)))
    if weight is not None:
        scale = c.e.binary("mul", scale, weight)
    y = c.e.binary("mul", c.e.binary("sub", x, c.e.reshape(mean, channels)),
                   c.e.reshape(scale, channels))
    if bias is not None:
        y = c.e.binary("add", y, c.e.reshape(bias, channels))
    return y


def _batch_norm_module(c, m, p, x):
    if not m.track_running_stats:
        raise RLXError("batch norm without running statistics")
    return batch_norm(c, x, c.param(p + ".running_mean"),
                      c.param(p + ".running_var"),
                      c.param(p + ".weight") if m.affine else None,
                      c.param(p + ".bias") if m.affine else None,
                      False, 0.0, m.eps)


FUNCTIONS[F.batch_norm] = batch_norm
MODULES[nn.BatchNorm1d] = MODULES[nn.BatchNorm2d] = _batch_norm_module
ATEN["aten.native_batch_norm.default"] = lambda c, x, w, b, m, v, training, \
    momentum, eps: (batch_norm(c, x, m, v, w, b, training, momentum, eps),
                    NoIndices(), NoIndices())
ATEN["aten._native_batch_norm_legit_no_training.default"] = \
    lambda c, x, w, b, m, v, momentum, eps: (
        batch_norm(c, x, m, v, w, b, False, momentum, eps), NoIndices(),
        NoIndices())


def conv2d(c, x, weight, bias=None, stride=1, padding=0, dilation=1,
           groups=1):
    if isinstance(padding, str):
        raise RLXError(f"conv2d padding='{padding}' (give the sizes)")
    y = c.e.conv(x, weight, pair(stride), pair(padding), pair(dilation),
                 groups)
    if bias is not None:
        y = c.e.binary("add", y, c.e.reshape(bias, (bias.shape[0], 1, 1)))
    return y


def _single(v):
    return v[0] if isinstance(v, (tuple, list)) else v


def _on_rows(c, x, function):
    """A 2-d op applied to [N, C, L] as [N, C, 1, L] (the reshapes are
    free): 1-d convolution and pooling."""
    y = function(c.e.reshape(x, x.shape[:-1] + (1, x.shape[-1])))
    return c.e.reshape(y, y.shape[:-2] + (y.shape[-1],))


def conv1d(c, x, weight, bias=None, stride=1, padding=0, dilation=1,
           groups=1):
    if isinstance(padding, str):
        raise RLXError(f"conv1d padding='{padding}' (give the size)")
    rows = c.e.reshape(weight, weight.shape[:2] + (1, weight.shape[2]))
    return _on_rows(c, x, lambda x2: conv2d(
        c, x2, rows, bias, (1, _single(stride)), (0, _single(padding)),
        (1, _single(dilation)), groups))


def _triple(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v, v)


def conv3d(c, x, weight, bias=None, stride=1, padding=0, dilation=1,
           groups=1):
    """3-d convolution of [N, C, D, H, W] (or unbatched [C, D, H, W]) as
    one rlx.conv (2-d) per kernel depth kd, summed: each convolves the
    input's depth slices d * sD - pD + kd * dD of every output depth d,
    moved into the batch ([N * D_out, C, H, W]), with the weight's slice
    kd. The same products and sums as a direct 3-d convolution (and its
    gradient, through rlx.conv's), with the depth sum last; the depth
    padding is an rlx.concat of zeros."""
    if isinstance(padding, str):
        raise RLXError(f"conv3d padding='{padding}' (give the sizes)")
    if x.rank == 4:
        y = conv3d(c, c.e.reshape(x, (1,) + x.shape), weight, bias, stride,
                   padding, dilation, groups)
        return c.e.reshape(y, y.shape[1:])
    if x.rank != 5 or weight.rank != 5:
        raise RLXError(f"conv3d of a rank-{x.rank} input and a "
                       f"rank-{weight.rank} weight")
    (sd, *s2), (pd, *p2), (dd, *d2) = (_triple(stride), _triple(padding),
                                       _triple(dilation))
    n, channels, depth = x.shape[:3]
    out_c, in_per_group, kd = weight.shape[:3]
    if pd:
        zeros = c.e.constant(0.0, x.dtype, (n, channels, pd) + x.shape[3:])
        x = c.e.concat([zeros, x, zeros], 2)
        depth += 2 * pd
    out_d = (depth - dd * (kd - 1) - 1) // sd + 1
    if out_d < 1:
        raise RLXError(f"conv3d of depth {depth} (padded) by a kernel of "
                       f"{kd} dilated by {dd}")
    moved = c.e.transpose(x, [0, 2, 1, 3, 4])
    total = None
    for k in range(kd):
        rows = take(c, moved, 1, [k * dd + o * sd for o in range(out_d)])
        rows = c.e.reshape(rows, (n * out_d, channels) + x.shape[3:])
        w = c.e.reshape(c.e.narrow(weight, 2, k, 1),
                        (out_c, in_per_group) + weight.shape[3:])
        y = c.e.conv(rows, w, tuple(s2), tuple(p2), tuple(d2), groups)
        total = y if total is None else c.e.binary("add", total, y)
    y = c.e.transpose(c.e.reshape(total, (n, out_d) + total.shape[1:]),
                      [0, 2, 1, 3, 4])
    if bias is not None:
        y = c.e.binary("add", y, c.e.reshape(bias, (bias.shape[0], 1, 1, 1)))
    return y


def conv_transpose2d(c, x, weight, bias=None, stride=1, padding=0,
                     output_padding=0, groups=1, dilation=1):
    y = c.e.conv_transpose2d(x, weight, pair(stride), pair(padding),
                             pair(output_padding), pair(dilation), groups)
    if bias is not None:
        y = c.e.binary("add", y, c.e.reshape(bias, (bias.shape[0], 1, 1)))
    return y


def conv_transpose1d(c, x, weight, bias=None, stride=1, padding=0,
                     output_padding=0, groups=1, dilation=1):
    rows = c.e.reshape(weight, weight.shape[:2] + (1, weight.shape[2]))
    return _on_rows(c, x, lambda x2: conv_transpose2d(
        c, x2, rows, bias, (1, _single(stride)), (0, _single(padding)),
        (0, _single(output_padding)), groups, (1, _single(dilation))))


def conv_transpose3d(c, x, weight, bias=None, stride=1, padding=0,
                     output_padding=0, groups=1, dilation=1):
    """3-d transposed convolution of [N, C, D, H, W] (or unbatched [C, D,
    H, W]) as one rlx.conv_transpose2d per kernel depth kd, summed: each
    maps every input depth slice ([N * D, C, H, W]) through the weight's
    slice kd, and input slice d lands on output depth d * sD - pD + kd *
    dD; an rlx.gather of constant positions places the slices (a zero
    slice where none lands). The same products and sums as a direct 3-d
    transposed convolution (and its gradient, through the ops'), the
    depth sum last."""
    if x.rank == 4:
        y = conv_transpose3d(c, c.e.reshape(x, (1,) + x.shape), weight,
                             bias, stride, padding, output_padding, groups,
                             dilation)
        return c.e.reshape(y, y.shape[1:])
    if x.rank != 5 or weight.rank != 5:
        raise RLXError(f"conv_transpose3d of a rank-{x.rank} input and a "
                       f"rank-{weight.rank} weight")
    (sd, *s2), (pd, *p2), (od, *o2), (dd, *d2) = (
        _triple(stride), _triple(padding), _triple(output_padding),
        _triple(dilation))
    n, channels, depth = x.shape[:3]
    in_c, out_per_group, kd = weight.shape[:3]
    out_d = (depth - 1) * sd - 2 * pd + dd * (kd - 1) + od + 1
    if out_d < 1:
        raise RLXError(f"conv_transpose3d of depth {depth} gives depth "
                       f"{out_d}")
    rows = c.e.reshape(c.e.transpose(x, [0, 2, 1, 3, 4]),
                       (n * depth, channels) + x.shape[3:])
    total = None
    for k in range(kd):
        # The input slice landing on each output depth; `depth` (the zero
        # slice appended) where none does.
        sources = []
        for o in range(out_d):
            position = o + pd - k * dd
            sources.append(position // sd if position % sd == 0 and
                           0 <= position // sd < depth else depth)
        if all(s == depth for s in sources):
            continue
        w = c.e.reshape(c.e.narrow(weight, 2, k, 1),
                        (in_c, out_per_group) + weight.shape[3:])
        y = c.e.conv_transpose2d(rows, w, tuple(s2), tuple(p2), tuple(o2),
                                 tuple(d2), groups)
        y = c.e.reshape(y, (n, depth) + y.shape[1:])
        if depth in sources:
            y = c.e.concat([y, c.e.constant(0.0, y.dtype,
                                            (n, 1) + y.shape[2:])], 1)
        y = take(c, y, 1, sources)
        total = y if total is None else c.e.binary("add", total, y)
    if total is None:
        raise RLXError("conv_transpose3d whose kernel reaches no output "
                       "depth")
    y = c.e.transpose(total, [0, 2, 1, 3, 4])
    if bias is not None:
        y = c.e.binary("add", y, c.e.reshape(bias, (bias.shape[0], 1, 1, 1)))
    return y


def _convolution(c, x, weight, bias, stride, padding, dilation, transposed,
                 output_padding, groups, *rest):
    if x.rank == 5 and transposed:
        return conv_transpose3d(c, x, weight, bias, stride, padding,
                                output_padding, groups, dilation)
    if x.rank == 5:
        return conv3d(c, x, weight, bias, stride, padding, dilation, groups)
    if x.rank not in (3, 4):
        raise RLXError(f"a convolution of a rank-{x.rank} tensor (1-d, 2-d "
                       "and 3-d are translated, transposed too)")
    if transposed:
        function = conv_transpose1d if x.rank == 3 else conv_transpose2d
        return function(c, x, weight, bias, stride, padding, output_padding,
                        groups, dilation)
    function = conv1d if x.rank == 3 else conv2d
    return function(c, x, weight, bias, stride, padding, dilation, groups)


def _conv_module(function):
    def handler(c, m, p, x):
        if m.padding_mode != "zeros":
            raise RLXError(f"{type(m).__name__} padding_mode="
                           f"'{m.padding_mode}'")
        return function(c, x, c.param(p + ".weight"),
                        c.param(p + ".bias") if m.bias is not None else None,
                        m.stride, m.padding, m.dilation, m.groups)
    return handler


def _conv_transpose_module(function):
    def handler(c, m, p, x, output_size=None):
        if output_size is not None:
            raise RLXError(f"{type(m).__name__} with output_size (give "
                           "output_padding)")
        if m.padding_mode != "zeros":
            raise RLXError(f"{type(m).__name__} padding_mode="
                           f"'{m.padding_mode}'")
        return function(c, x, c.param(p + ".weight"),
                        c.param(p + ".bias") if m.bias is not None else None,
                        m.stride, m.padding, m.output_padding, m.groups,
                        m.dilation)
    return handler


FUNCTIONS[F.conv2d] = FUNCTIONS[torch.conv2d] = conv2d
FUNCTIONS[F.conv1d] = FUNCTIONS[torch.conv1d] = conv1d
FUNCTIONS[F.conv_transpose2d] = conv_transpose2d
FUNCTIONS[torch.conv_transpose2d] = conv_transpose2d
FUNCTIONS[F.conv_transpose1d] = conv_transpose1d
FUNCTIONS[torch.conv_transpose1d] = conv_transpose1d
MODULES[nn.Conv2d] = _conv_module(conv2d)
MODULES[nn.Conv1d] = _conv_module(conv1d)
MODULES[nn.Conv3d] = _conv_module(conv3d)
FUNCTIONS[F.conv3d] = FUNCTIONS[torch.conv3d] = conv3d
MODULES[nn.ConvTranspose2d] = _conv_transpose_module(conv_transpose2d)
MODULES[nn.ConvTranspose1d] = _conv_transpose_module(conv_transpose1d)
MODULES[nn.ConvTranspose3d] = _conv_transpose_module(conv_transpose3d)
FUNCTIONS[F.conv_transpose3d] = conv_transpose3d
FUNCTIONS[torch.conv_transpose3d] = conv_transpose3d
ATEN["aten.convolution.default"] = _convolution


def _pool_extent(size, kernel, stride, padding, ceil_mode):
    """PyTorch's pooled size of one dim, and how many rows past its end
    (after `padding`) its last window reaches (ceil_mode's partial last
    window; 0 otherwise)."""
    span = size + 2 * padding - kernel
    if span < 0:
        raise RLXError(f"a pooling window of {kernel} over {size} elements "
                       f"padded by {padding}")
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        # The last window must start inside the input or its left padding.
        out -= 1
    return out, max(0, (out - 1) * stride + kernel - (size + 2 * padding))


def _pool_geometry(x, kernel_size, stride, padding, ceil_mode):
    """(kernel, stride, padding, [(out, past_end)] of H and W)."""
    if x.rank != 4:
        raise RLXError(f"2-d pooling of a rank-{x.rank} tensor (rlx.pool "
                       "takes [N, C, H, W])")
    kernel = pair(kernel_size)
    stride = pair(stride) if stride else kernel
    padding = pair(padding)
    extents = [_pool_extent(x.shape[2 + i], kernel[i], stride[i], padding[i],
                            ceil_mode) for i in range(2)]
    return kernel, stride, padding, extents


def _append_rows(c, x, counts, value):
    """x with counts[0] rows and counts[1] columns of `value` appended
    to its last two dims."""
    for axis, count in zip((x.rank - 2, x.rank - 1), counts):
        if count:
            shape = list(x.shape)
            shape[axis] = count
            x = c.e.concat([x, c.e.constant(value, x.dtype, shape)], axis)
    return x


def _lowest(dtype):
    """The identity of max in `dtype`."""
    if dtype.startswith("ui"):
        return 0
    if dtype.startswith("i"):
        return -(2 ** (int(dtype[1:]) - 1))
    return float("-inf")


def max_pool2d(c, x, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode=False, return_indices=False):
    if return_indices:
        raise RLXError("max_pool2d with return_indices=True (the indices "
                       "have no rlx translation)")
    if pair(dilation) != (1, 1):
        raise RLXError(f"max_pool2d with dilation {dilation} (rlx.pool has "
                       "no dilation)")
    kernel, stride, padding, extents = _pool_geometry(
        x, kernel_size, stride, padding, ceil_mode)
    # ceil_mode's partial last windows read rows of the lowest value past
    # the end; every window still holds an input element (it starts inside
    # the input or the left padding), which wins the max.
    x = _append_rows(c, x, [past for _, past in extents], _lowest(x.dtype))
    return c.e.pool("max", x, kernel, stride, padding)


def avg_pool2d(c, x, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    kernel, stride, padding, extents = _pool_geometry(
        x, kernel_size, stride, padding, ceil_mode)
    # PyTorch's divisor of a window: with count_include_pad, its extent
    # clipped to the padded input (ceil_mode's last window is partial);
    # without, the input elements it covers; divisor_override replaces it.
    # It is a product of a count per output row and one per column.
    counts = []
    for i, (out, _) in enumerate(extents):
        size, row_counts = x.shape[2 + i], []
        for o in range(out):
            start = o * stride[i] - padding[i]
            end = min(start + kernel[i], size + padding[i])
            row_counts.append(end - start if count_include_pad else
                              min(end, size) - max(start, 0))
        counts.append(row_counts)
    if divisor_override is None and all(
            n == kernel[i] for i in range(2) for n in counts[i]):
        return c.e.pool("mean", x, kernel, stride, padding)
    x = _append_rows(c, x, [past for _, past in extents], 0.0)
    y = c.e.pool("sum", x, kernel, stride, padding)
    if divisor_override:
        return c.e.binary("div", y, const(c, y, divisor_override))
    for i, row_counts in enumerate(counts):
        shape = [1] * y.rank
        shape[2 + i] = len(row_counts)
        y = c.e.binary("div", y, c.e.constant(
            np.array(row_counts, dtype=np.float64).reshape(shape), y.dtype))
    return y


def adaptive_avg_pool2d(c, x, output_size):
    out = pair(output_size)
    h, w = x.shape[-2:]
    out = (out[0] or h, out[1] or w)
    if out == (1, 1):
        return c.e.reduce("mean", x, [x.rank - 2, x.rank - 1], True)
    if h % out[0] or w % out[1]:
        return _adaptive_windows(c, x, out)
    kernel = (h // out[0], w // out[1])
    return c.e.pool("mean", x, kernel, kernel, (0, 0))


def _adaptive_windows(c, x, out):
    """Adaptive average pooling whose windows overlap or differ in size
    (F.interpolate's mode 'area'): PyTorch's window i of a dim of `size`
    is [floor(i * size / out), ceil((i + 1) * size / out)). The window
    sums are two rlx.matmuls by constant 0/1 matrices (rows, then
    columns), divided by each window's element count, as PyTorch divides
    its sum."""
    h, w = x.shape[-2:]

    def windows(size, count):
        ones = np.zeros((count, size), np.float64)
        for i in range(count):
            ones[i, (i * size) // count:-((-(i + 1) * size) // count)] = 1
        return ones
    rows, cols = windows(h, out[0]), windows(w, out[1])
    if rows.size > 4096 or cols.size > 4096:
        raise RLXError(f"adaptive_avg_pool2d from {h}x{w} to "
                       f"{out[0]}x{out[1]}: windows of other sizes are "
                       "summed by constant matrices of out x in elements, "
                       "at most 4096")
    def constant(array):
        return c.e.cast(c.e.constant(array.astype(np.float32), "f32"),
                        x.dtype)
    y = c.e.matmul(c.e.matmul(constant(rows), x), constant(cols.T))
    counts = rows.sum(1, keepdims=True) * cols.sum(1)[None, :]
    return c.e.binary("div", y, constant(counts))


def max_pool1d(c, x, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode=False, return_indices=False):
    kernel = _single(kernel_size)
    return _on_rows(c, x, lambda x2: max_pool2d(
        c, x2, (1, kernel), (1, _single(stride) if stride else kernel),
        (0, _single(padding)), (1, _single(dilation)), ceil_mode,
        return_indices))


def avg_pool1d(c, x, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    kernel = _single(kernel_size)
    return _on_rows(c, x, lambda x2: avg_pool2d(
        c, x2, (1, kernel), (1, _single(stride) if stride else kernel),
        (0, _single(padding)), ceil_mode, count_include_pad))


def adaptive_avg_pool1d(c, x, output_size):
    return _on_rows(c, x, lambda x2: adaptive_avg_pool2d(
        c, x2, (1, _single(output_size))))


def _pool3d(c, x, pool2d, kernel_size, stride, padding, *options):
    """A 3-d pooling of [N, C, D, H, W] (or unbatched [C, D, H, W]) as two
    2-d ones: over H and W of every depth slice ([N, C * D, H, W]), then
    over D of the result viewed as [N, C, D, H' * W'] (a window of 1
    along the merged dim). Max and average pooling are separable: a 3-d
    window is the product of its ranges along each dim (ceil_mode's
    partial windows and the padding too), so its max is the max over
    depth of the maxes over H x W, and its mean the mean of the means,
    each dividing by its own dim's count (the product of the counts, as
    PyTorch divides). `pool2d(x, kernel, stride, padding, *options)` is
    the 2-d pooling, called with each dim's own options."""
    if x.rank == 4:
        y = _pool3d(c, c.e.reshape(x, (1,) + x.shape), pool2d, kernel_size,
                    stride, padding, *options)
        return c.e.reshape(y, y.shape[1:])
    if x.rank != 5:
        raise RLXError(f"3-d pooling of a rank-{x.rank} tensor")
    kernel = _triple(kernel_size)
    stride = _triple(stride) if stride else kernel
    padding = _triple(padding)
    n, channels, depth = x.shape[:3]
    planes = pool2d(c.e.reshape(x, (n, channels * depth) + x.shape[3:]),
                    kernel[1:], stride[1:], padding[1:], *options)
    h, w = planes.shape[2:]
    y = pool2d(c.e.reshape(planes, (n, channels, depth, h * w)),
               (kernel[0], 1), (stride[0], 1), (padding[0], 0), *options)
    return c.e.reshape(y, (n, channels, y.shape[2], h, w))


def max_pool3d(c, x, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode=False, return_indices=False):
    if return_indices:
        raise RLXError("max_pool3d with return_indices=True (the indices "
                       "have no rlx translation)")
    if _triple(dilation) != (1, 1, 1):
        raise RLXError(f"max_pool3d with dilation {dilation} (rlx.pool has "
                       "no dilation)")
    return _pool3d(c, x, lambda x2, k, s, p: max_pool2d(
        c, x2, k, s, p, 1, ceil_mode), kernel_size, stride, padding)


def avg_pool3d(c, x, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """With divisor_override, the two 2-d poolings sum (a divisor of 1)
    and the sum is divided by it."""
    y = _pool3d(c, x, lambda x2, k, s, p: avg_pool2d(
        c, x2, k, s, p, ceil_mode, count_include_pad,
        1 if divisor_override else None), kernel_size, stride, padding)
    if divisor_override:
        y = c.e.binary("div", y, const(c, y, divisor_override))
    return y


FUNCTIONS[F.max_pool3d] = FUNCTIONS[torch.max_pool3d] = max_pool3d
FUNCTIONS[F.avg_pool3d] = avg_pool3d
ATEN["aten.max_pool3d_with_indices.default"] = lambda c, *a: (
    max_pool3d(c, *a), NoIndices())
ATEN["aten.avg_pool3d.default"] = avg_pool3d
FUNCTIONS[F.max_pool2d] = FUNCTIONS[torch.max_pool2d] = max_pool2d
FUNCTIONS[F.avg_pool2d] = avg_pool2d
FUNCTIONS[F.adaptive_avg_pool2d] = adaptive_avg_pool2d
FUNCTIONS[F.max_pool1d] = FUNCTIONS[torch.max_pool1d] = max_pool1d
FUNCTIONS[F.avg_pool1d] = FUNCTIONS[torch.avg_pool1d] = avg_pool1d
FUNCTIONS[F.adaptive_avg_pool1d] = adaptive_avg_pool1d
FUNCTIONS[torch.adaptive_avg_pool1d] = adaptive_avg_pool1d
ATEN["aten.max_pool2d_with_indices.default"] = lambda c, *a: (
    max_pool2d(c, *a), NoIndices())
ATEN["aten.avg_pool2d.default"] = avg_pool2d
ATEN["aten._adaptive_avg_pool2d.default"] = adaptive_avg_pool2d
ATEN["aten.max_pool1d.default"] = max_pool1d
ATEN["aten.avg_pool1d.default"] = avg_pool1d


def _module_pool(function, *names):
    def handler(c, m, p, x):
        return function(c, x, *[getattr(m, n) for n in names])
    return handler


MODULES.update({
    nn.MaxPool2d: _module_pool(max_pool2d, "kernel_size", "stride",
                               "padding", "dilation", "ceil_mode",
                               "return_indices"),
    nn.MaxPool1d: _module_pool(max_pool1d, "kernel_size", "stride",
                               "padding", "dilation", "ceil_mode",
                               "return_indices"),
    nn.AvgPool2d: _module_pool(avg_pool2d, "kernel_size", "stride",
                               "padding", "ceil_mode", "count_include_pad",
                               "divisor_override"),
    nn.AvgPool1d: _module_pool(avg_pool1d, "kernel_size", "stride",
                               "padding", "ceil_mode", "count_include_pad"),
    nn.MaxPool3d: _module_pool(max_pool3d, "kernel_size", "stride",
                               "padding", "dilation", "ceil_mode",
                               "return_indices"),
    nn.AvgPool3d: _module_pool(avg_pool3d, "kernel_size", "stride",
                               "padding", "ceil_mode", "count_include_pad",
                               "divisor_override"),
    nn.AdaptiveAvgPool2d: _module_pool(adaptive_avg_pool2d, "output_size"),
    nn.AdaptiveAvgPool1d: _module_pool(adaptive_avg_pool1d, "output_size"),
})


def stochastic_depth(c, x, p, mode, training=True):
    """torchvision.ops.stochastic_depth (and its StochasticDepth module,
    traced through): the identity in eval."""
    if training and p > 0:
        raise RLXError("stochastic_depth with training=True (it drops "
                       "random rows: call .eval())")
    return x


NAMED_FUNCTIONS["torchvision.ops.stochastic_depth.stochastic_depth"] = \
    stochastic_depth


MODULES.update({
    nn.Flatten: lambda c, m, p, x: flatten(c, x, m.start_dim, m.end_dim),
    nn.Unflatten: lambda c, m, p, x: c.e.reshape(
        x, x.shape[:axis_index(m.dim, x.rank)] + tuple(m.unflattened_size) +
        x.shape[axis_index(m.dim, x.rank) + 1:]),
    nn.Identity: lambda c, m, p, x, *a, **k: x,
    nn.Dropout: lambda c, m, p, x: x,
    nn.Dropout1d: lambda c, m, p, x: x,
    nn.Dropout2d: lambda c, m, p, x: x,
    nn.AlphaDropout: lambda c, m, p, x: x,
    nn.Embedding: lambda c, m, p, i: embedding(c, i,
                                               c.param(p + ".weight")),
})
