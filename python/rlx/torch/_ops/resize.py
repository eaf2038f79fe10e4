# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""F.interpolate's nearest, nearest-exact, (bi/tri)linear and bicubic
modes (aten's upsample_*): one rlx.resize, which applies PyTorch's index and
weight rules and differentiates through rlx.resize_backward."""

import numpy as np

from ..._capi import RLXError
from .common import ATEN


def _output_sizes(x, output_size, scale_factors, spatial):
    """The output sizes, and the scale factors PyTorch's kernels use (None
    when the sizes were given)."""
    if output_size is not None:
        return [int(s) for s in output_size], None
    if scale_factors is None:
        raise RLXError("interpolate without a size or scale factors")
    scales = [float(s) for s in scale_factors]
    if len(scales) == 1:
        scales = scales * spatial
    sizes = [int(np.floor(x.shape[-spatial + i] * scales[i]))
             for i in range(spatial)]
    return sizes, scales


def _check(x, spatial, sizes):
    if x.rank < spatial:
        raise RLXError(f"interpolate of {spatial} spatial dims on a rank "
                       f"{x.rank} tensor")
    if any(size < 1 for size in sizes):
        raise RLXError(f"interpolate to sizes {sizes}: sizes must be "
                       "positive")
    resized = x.shape[x.rank - spatial:]
    if any(not isinstance(d, int) or d < 1 for d in resized):
        raise RLXError(f"interpolate needs static positive resized dims, "
                       f"got {list(resized)}")


def _upsample_linear(spatial, mode="linear"):
    """(bi/tri)linear, or bicubic with mode "cubic"."""
    def handler(c, x, output_size, align_corners, scale_factors=None):
        if not (x.dtype.startswith("f") or x.dtype == "bf16"):
            raise RLXError(f"{mode} interpolation of {x.dtype}")
        sizes, scales = _output_sizes(x, output_size, scale_factors, spatial)
        _check(x, spatial, sizes)
        # With align_corners the scale is (in - 1) / (out - 1) whatever
        # the factor given.
        return c.e.resize(x, mode, sizes, bool(align_corners),
                          None if align_corners else scales)
    return handler


def _upsample_nearest(spatial, exact):
    def handler(c, x, output_size, scale_factors=None):
        sizes, scales = _output_sizes(x, output_size, scale_factors, spatial)
        _check(x, spatial, sizes)
        return c.e.resize(x, "nearest_exact" if exact else "nearest", sizes,
                          False, scales)
    return handler


# F.interpolate reaches these through make_fx (see the importer's inline).
ATEN.update({
    "aten.upsample_linear1d.vec": _upsample_linear(1),
    "aten.upsample_bilinear2d.vec": _upsample_linear(2),
    "aten.upsample_trilinear3d.vec": _upsample_linear(3),
    "aten.upsample_bicubic2d.vec": _upsample_linear(2, "cubic"),
    "aten.upsample_nearest1d.vec": _upsample_nearest(1, False),
    "aten.upsample_nearest2d.vec": _upsample_nearest(2, False),
    "aten.upsample_nearest3d.vec": _upsample_nearest(3, False),
    "aten._upsample_nearest_exact1d.vec": _upsample_nearest(1, True),
    "aten._upsample_nearest_exact2d.vec": _upsample_nearest(2, True),
    "aten._upsample_nearest_exact3d.vec": _upsample_nearest(3, True),
})
