# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""F.interpolate's nearest and (bi)linear modes (aten's upsample_*), one
spatial dim at a time. The source positions and weights of each output
row depend only on the sizes, so they are computed here with PyTorch's
rules, rounded as its CPU kernels round them: nearest is a gather of
rows, linear blends two gathered rows, lower * w_lower + upper * w_upper,
O(output) as PyTorch's kernel and differentiable (gather, multiply,
add)."""

import numpy as np

from ..._capi import RLXError
from .common import ATEN
from .indexing import take


def _scale(in_size, out_size, align_corners, scale_factor):
    """PyTorch's area_pixel_compute_scale, an f32."""
    if align_corners:
        return np.float32(in_size - 1) / np.float32(out_size - 1) \
            if out_size > 1 else np.float32(0)
    if scale_factor:
        return np.float32(1.0 / scale_factor)
    return np.float32(in_size) / np.float32(out_size)


def _linear(in_size, out_size, align_corners, scale_factor):
    """(lower, upper, lower weight, upper weight) of each output row: the
    f32 scale times the row (plus and minus one half without
    align_corners), the weights from that source position, in f64 and then
    rounded to f32, as PyTorch's CPU kernel computes them."""
    scale = np.float64(_scale(in_size, out_size, align_corners,
                              scale_factor))
    rows = np.arange(out_size, dtype=np.float64)
    source = scale * rows if align_corners else \
        np.maximum(scale * (rows + 0.5) - 0.5, 0)
    lower = np.minimum(source.astype(np.int64), in_size - 1)
    upper = np.minimum(lower + 1, in_size - 1)
    fraction = np.clip(source - lower, 0, 1)
    return lower, upper, (1 - fraction).astype(np.float32), \
        fraction.astype(np.float32)


def _nearest(in_size, out_size, scale_factor, exact):
    scale = _scale(in_size, out_size, False, scale_factor)
    rows = np.arange(out_size, dtype=np.float32)
    if exact:
        rows = rows + np.float32(0.5)
    return np.minimum(np.floor(rows * scale).astype(np.int64), in_size - 1)


def _output_sizes(x, output_size, scale_factors, spatial):
    if output_size is not None:
        return [int(s) for s in output_size], [None] * spatial
    if scale_factors is None:
        raise RLXError("interpolate without a size or scale factors")
    scales = list(scale_factors) * (spatial if len(scale_factors) == 1
                                    else 1)
    sizes = [int(np.floor(x.shape[-spatial + i] * scales[i]))
             for i in range(spatial)]
    return sizes, scales


def _upsample_linear(spatial):
    def handler(c, x, output_size, align_corners, scale_factors=None):
        if not x.dtype.startswith("f"):
            raise RLXError(f"linear interpolation of {x.dtype}")
        sizes, scales = _output_sizes(x, output_size, scale_factors, spatial)
        for i, (out, scale) in enumerate(zip(sizes, scales)):
            axis = x.rank - spatial + i
            lower, upper, w_lower, w_upper = _linear(
                x.shape[axis], out, align_corners, scale)
            shape = [1] * x.rank
            shape[axis] = out
            x = c.e.binary("add", c.e.binary(
                "mul", take(c, x, axis, lower),
                c.e.constant(w_lower.reshape(shape), x.dtype)), c.e.binary(
                "mul", take(c, x, axis, upper),
                c.e.constant(w_upper.reshape(shape), x.dtype)))
        return x
    return handler


def _upsample_nearest(spatial, exact):
    def handler(c, x, output_size, scale_factors=None):
        sizes, scales = _output_sizes(x, output_size, scale_factors, spatial)
        for i, (out, scale) in enumerate(zip(sizes, scales)):
            axis = x.rank - spatial + i
            x = take(c, x, axis, _nearest(x.shape[axis], out, scale, exact))
        return x
    return handler


# F.interpolate reaches these through make_fx (see the importer's inline).
ATEN.update({
    "aten.upsample_linear1d.vec": _upsample_linear(1),
    "aten.upsample_bilinear2d.vec": _upsample_linear(2),
    "aten.upsample_nearest1d.vec": _upsample_nearest(1, False),
    "aten.upsample_nearest2d.vec": _upsample_nearest(2, False),
    "aten._upsample_nearest_exact1d.vec": _upsample_nearest(1, True),
    "aten._upsample_nearest_exact2d.vec": _upsample_nearest(2, True),
})
