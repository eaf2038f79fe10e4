# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Resize as rlx.resize, through the torch translations of F.interpolate
(python/rlx/torch/_ops/resize.py), for the ONNX modes that are PyTorch's:
linear and cubic (cubic_coeff_a -0.75, exclude_outside 0: bicubic) with
half_pixel (or pytorch_half_pixel) or align_corners coordinates, nearest with asymmetric coordinates rounded down (PyTorch's
nearest) or half_pixel ones rounded half up (nearest-exact)."""

import numpy as np

from ..._capi import RLXError
from ...torch._ops import resize as torch_resize
from .common import is_const, op


def _known(x, what):
    if x is None:
        return None
    if not is_const(x):
        raise RLXError(f"Resize's {what} computed by the graph")
    x = np.asarray(x).reshape(-1)
    return x if x.size else None


def _dim(d):
    if isinstance(d, str):
        raise RLXError(f"Resize of a symbolic dim ({d}) by a scale other "
                       "than 1")
    return int(d)


@op("Resize")
def resize(c, inputs, attrs):
    x = c.value(inputs[0])
    scales = _known(inputs[2] if len(inputs) > 2 else None, "scales")
    sizes = _known(inputs[3] if len(inputs) > 3 else None, "sizes")
    mode = attrs.get("mode", "nearest")
    coordinates = attrs.get("coordinate_transformation_mode", "half_pixel")
    rounding = attrs.get("nearest_mode", "round_prefer_floor")
    if (scales is None) == (sizes is None):
        raise RLXError("Resize needs one of scales and sizes")
    # A symbolic dim (sizes from Shape of x, a scale of 1 on it) stays
    # itself; only the resized dims need sizes.
    out = [s if isinstance(s, str) else int(s) for s in sizes] \
        if sizes is not None else \
        [d if isinstance(d, str) and float(s) == 1.0 else
         int(np.floor(_dim(d) * float(s))) for d, s in zip(x.shape, scales)]
    if len(out) != x.rank:
        raise RLXError(f"Resize of a rank-{x.rank} tensor to {out}")
    # The resized dims: the trailing ones from the first that changes.
    changed = [i for i in range(x.rank) if out[i] != x.shape[i] or
               (scales is not None and float(scales[i]) != 1.0)]
    first = changed[0] if changed else x.rank
    spatial = x.rank - first
    if any(isinstance(d, str) for d in x.shape[first:] + tuple(out[first:])):
        raise RLXError(f"Resize of {list(x.shape)} to {out}: the resized "
                       "dims must be static")
    if not spatial:
        return x
    factors = [float(s) for s in scales[first:]] if scales is not None \
        else None
    if mode == "cubic":
        a = attrs.get("cubic_coeff_a", -0.75)
        if a != -0.75 or attrs.get("exclude_outside", 0):
            raise RLXError(f"cubic Resize with cubic_coeff_a {a} and "
                           f"exclude_outside "
                           f"{attrs.get('exclude_outside', 0)} (PyTorch's "
                           "bicubic is -0.75 and 0)")
    if mode in ("linear", "cubic"):
        if coordinates == "pytorch_half_pixel" and min(out[first:]) == 1:
            raise RLXError("Resize pytorch_half_pixel to a size of 1")
        if coordinates not in ("half_pixel", "pytorch_half_pixel",
                               "align_corners"):
            raise RLXError(f"{mode} Resize with "
                           f"coordinate_transformation_mode {coordinates}")
        if coordinates == "align_corners" and factors and any(
                d * f != int(d * f) for d, f in zip(x.shape[first:],
                                                    factors)):
            # ONNX's positions are then o * (in - 1) / (in * scale - 1),
            # PyTorch's o * (in - 1) / (out - 1).
            raise RLXError(f"{mode} Resize with align_corners and scales "
                           "that give fractional sizes")
        # Scales given, PyTorch's kernels take them (they move the source
        # positions); else the sizes.
        return torch_resize._upsample_linear(spatial, mode)(
            c, x, None if factors else out[first:],
            coordinates == "align_corners", factors)
    if mode == "nearest":
        if (coordinates, rounding) == ("asymmetric", "floor"):
            exact = False
        elif (coordinates, rounding) == ("half_pixel", "round_prefer_ceil"):
            exact = True
        else:
            raise RLXError(f"nearest Resize with {coordinates} coordinates "
                           f"and nearest_mode {rounding}")
        return torch_resize._upsample_nearest(spatial, exact)(
            c, x, None if factors else out[first:], factors)
    raise RLXError(f"Resize mode {mode}")
