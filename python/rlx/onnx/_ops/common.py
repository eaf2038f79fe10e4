# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The translation table and the helpers the translations share."""

import numpy as np

from ..._capi import RLXError
from ...torch._symbolic import dim_div, dim_mul

# Handlers by ONNX op_type (the default domain).
OPS = {}


def op(*names):
    """Registers the decorated handler under each op_type in `names`."""
    def register(handler):
        for name in names:
            OPS[name] = handler
        return handler
    return register


def is_const(x):
    return isinstance(x, np.ndarray)


def is_symbolic(array):
    """Whether an import-time array holds symbolic dims (the names of
    `dim_param`s, from Shape of a tensor with `?` dims)."""
    return np.asarray(array).dtype == object


def numeric(array, what):
    """`array` as numbers: arithmetic on a symbolic dim has no import-time
    value."""
    if is_symbolic(array):
        raise RLXError(f"{what} of a symbolic dim ({array.tolist()}): the "
                       "value is only known at run time (give its size with "
                       "import_model(..., dims={...}))")
    return array


def axis_index(axis, rank):
    axis = int(axis)
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise RLXError(f"axis {axis} of a rank-{rank} tensor")
    return axis % rank if rank else 0


def ints(array, what):
    """An import-time int64 array (a shape, axes, pads) as a list."""
    return [int(v) for v in numeric(np.asarray(array), what).reshape(-1)]


def unary_fold(function):
    """`function` evaluated on import-time operands, or None where any is a
    graph value."""
    def fold(*values):
        if all(is_const(v) for v in values):
            return function(*[numeric(v, "arithmetic") for v in values])
        return None
    return fold


class NoValue:
    """An output with no translation (MaxPool's indices, LayerNorm's
    statistics): fine as long as nothing reads it."""

    def __init__(self, what):
        self.what = what


# Symbolic dims are names, or products of names and a factor ("batch*4",
# what an exporter's shape arithmetic makes of batch * heads): their
# algebra is python/rlx/torch/_symbolic.py's, shared with the PyTorch
# importer.


def symbolic_arithmetic(kind, a, b):
    """Mul or Div of import-time arrays where one holds symbolic dims."""
    function = {"mul": dim_mul, "div": dim_div}.get(kind)
    if function is None:
        raise RLXError(f"{kind} of a symbolic dim ({a.tolist()}, "
                       f"{b.tolist()}): the value is only known at run time "
                       "(give its size with import_model(..., dims={...}))")
    return np.frompyfunc(function, 2, 1)(a, b)
