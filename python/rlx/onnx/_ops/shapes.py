# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Shapes, views, slicing, gathers and constants. Each op on import-time
operands (shape arithmetic: Shape, Gather, Concat, Unsqueeze of ints) is
evaluated with NumPy; symbolic dims travel through it as names."""

import math

import numpy as np

from ..._capi import RLXError
from ...torch._emitter import rlx_dtype
from ...torch._symbolic import dim_product, dim_quotient
from .common import axis_index, ints, is_const, is_symbolic, numeric, op


def _folds(inputs):
    """Whether a node of these inputs is evaluated at import time: every
    input is known and none is a parameter (an initializer other than a
    small integer one, which stays an rlx.param)."""
    return all(x is None or (is_const(x) and not _is_param(x))
               for x in inputs)


def _is_param(x):
    return getattr(x, "initializer", None) is not None and \
        x.dtype.kind not in "iub"


def _const(x, what):
    if not is_const(x):
        raise RLXError(f"{what} computed by the graph (rlx needs it at "
                       "import time)")
    return np.asarray(x)


def _shape_operand(x, what):
    """A shape input as a list of ints and symbolic dims."""
    x = _const(x, what).reshape(-1)
    return x.tolist() if is_symbolic(x) else [int(d) for d in x]


@op("Constant")
def constant(c, inputs, attrs):
    if "value" in attrs:
        return np.asarray(attrs["value"])
    for key, dtype in (("value_float", np.float32),
                       ("value_floats", np.float32), ("value_int", np.int64),
                       ("value_ints", np.int64)):
        if key in attrs:
            return np.asarray(attrs[key], dtype)
    raise RLXError(f"Constant with {sorted(attrs)}")


@op("Shape")
def shape(c, inputs, attrs):
    (x,) = inputs
    dims = list(x.shape)
    start, end = attrs.get("start", 0), attrs.get("end", len(dims))
    dims = dims[slice(start, end)]
    if any(isinstance(d, str) for d in dims):
        return np.array(dims, dtype=object)
    return np.array(dims, dtype=np.int64)


@op("Size")
def size(c, inputs, attrs):
    dims = inputs[0].shape
    if any(isinstance(d, str) for d in dims):
        raise RLXError("Size of a tensor with `?` dims")
    return np.array(math.prod(dims), np.int64)


def _target_shape(x_shape, target, allowzero):
    """Reshape's target with 0 (copy the input's dim) and -1 resolved; a
    -1 beside symbolic dims is what the element count leaves: static when
    the target names the input's symbolic dims, a product of those it does
    not name otherwise."""
    out = []
    for i, d in enumerate(target):
        if isinstance(d, str):
            out.append(d)
        elif d == 0 and not allowzero:
            out.append(x_shape[i])
        else:
            out.append(int(d))
    if -1 not in out:
        return out
    known = [d for d in out if d != -1]
    left = dim_quotient(dim_product(x_shape), dim_product(known))
    if left is None:
        raise RLXError(f"a reshape of {list(x_shape)} to {target}: the -1 "
                       "is not a whole product of the input's dims")
    out[out.index(-1)] = left
    return out


@op("Reshape")
def reshape(c, inputs, attrs):
    x, target = inputs
    target = _shape_operand(target, "Reshape's shape")
    out = _target_shape(x.shape, target, attrs.get("allowzero", 0))
    if _folds([x]):
        return np.asarray(x).reshape([int(d) for d in out])
    return c.e.reshape(c.value(x), out)


@op("Flatten")
def flatten(c, inputs, attrs):
    (x,) = inputs
    rank = len(x.shape)
    axis = attrs.get("axis", 1)
    if not -rank <= axis <= rank:
        raise RLXError(f"Flatten axis {axis} of a rank-{rank} tensor")
    axis = axis + rank if axis < 0 else axis

    def product(dims):
        if any(isinstance(d, str) for d in dims):
            if len(dims) == 1:
                return dims[0]
            raise RLXError(f"Flatten of {list(x.shape)}: a `?` dim in a "
                           "product of dims")
        return math.prod(dims)
    outer, inner = x.shape[:axis], x.shape[axis:]
    if any(isinstance(d, str) for d in inner) and \
            not any(isinstance(d, str) for d in outer):
        target = [product(outer), -1]
    else:
        target = [product(outer), product(inner)]
    return reshape(c, [x, np.array(target, dtype=object)], {})


@op("Transpose")
def transpose(c, inputs, attrs):
    (x,) = inputs
    perm = attrs.get("perm", list(range(len(x.shape)))[::-1])
    if _folds([x]):
        return np.transpose(np.asarray(x), perm)
    return c.e.transpose(c.value(x), perm)


def _axes_input(c, inputs, attrs):
    axes = inputs[1] if len(inputs) > 1 else None
    if axes is None:
        return attrs.get("axes")
    return ints(_const(axes, "axes"), "axes")


@op("Unsqueeze")
def unsqueeze(c, inputs, attrs):
    x = inputs[0]
    axes = _axes_input(c, inputs, attrs)
    rank = len(x.shape) + len(axes)
    axes = sorted(axis_index(a, rank) for a in axes)
    shape = list(x.shape)
    for a in axes:
        shape.insert(a, 1)
    if _folds([x]):
        return np.asarray(x).reshape(shape)
    return c.e.reshape(c.value(x), shape)


@op("Squeeze")
def squeeze(c, inputs, attrs):
    x = inputs[0]
    axes = _axes_input(c, inputs, attrs)
    rank = len(x.shape)
    if axes is None:
        axes = [i for i, d in enumerate(x.shape) if d == 1]
    axes = {axis_index(a, rank) for a in axes}
    for a in axes:
        if x.shape[a] != 1:
            raise RLXError(f"Squeeze of dim {a} of size {x.shape[a]}")
    shape = [d for i, d in enumerate(x.shape) if i not in axes]
    if _folds([x]):
        return np.asarray(x).reshape(shape)
    return c.e.reshape(c.value(x), shape)


@op("Concat")
def concat(c, inputs, attrs):
    inputs = [x for x in inputs if x is not None]
    axis = axis_index(attrs["axis"], len(inputs[0].shape))
    if _folds(inputs):
        arrays = [np.asarray(x) for x in inputs]
        if any(is_symbolic(a) for a in arrays):
            arrays = [a.astype(object) for a in arrays]
        return np.concatenate(arrays, axis)
    values = [c.value(x) for x in inputs if 0 not in x.shape]
    return c.e.concat(values, axis)


@op("Split")
def split(c, inputs, attrs):
    x = inputs[0]
    rank = len(x.shape)
    axis = axis_index(attrs.get("axis", 0), rank)
    size = x.shape[axis]
    if isinstance(size, str):
        raise RLXError("Split along a `?` dim")
    sizes = inputs[1] if len(inputs) > 1 else None
    if sizes is not None:
        sizes = ints(_const(sizes, "Split's sizes"), "split")
    else:
        count = c.outputs
        chunk = -(-size // count)
        sizes = [min(chunk, size - i * chunk) for i in range(count)]
    if sum(sizes) != size:
        raise RLXError(f"Split of {size} into {sizes}")
    starts = np.cumsum([0] + sizes[:-1])
    if _folds([x]):
        return tuple(np.take(np.asarray(x), range(s, s + n), axis)
                     for s, n in zip(starts, sizes))
    x = c.value(x)
    return tuple(c.e.narrow(x, axis, int(s), n)
                 for s, n in zip(starts, sizes))


def _slice_bounds(start, end, step, size):
    return slice(start, end, step).indices(size)


@op("Slice")
def slice_(c, inputs, attrs):
    x = inputs[0]
    rank = len(x.shape)
    starts = ints(_const(inputs[1], "Slice's starts"), "starts")
    ends = ints(_const(inputs[2], "Slice's ends"), "ends")
    axes = ints(_const(inputs[3], "Slice's axes"), "axes") \
        if len(inputs) > 3 and inputs[3] is not None else \
        list(range(len(starts)))
    steps = ints(_const(inputs[4], "Slice's steps"), "steps") \
        if len(inputs) > 4 and inputs[4] is not None else [1] * len(starts)
    index = [slice(None)] * rank
    for start, end, axis, step in zip(starts, ends, axes, steps):
        if step == 0:
            raise RLXError("Slice with step 0")
        axis = axis_index(axis, rank)
        size = x.shape[axis]
        if isinstance(size, str):
            if start == 0 and step == 1 and end >= 2 ** 62:
                continue  # the whole `?` dim
            raise RLXError(f"Slice of a `?` dim ({start}:{end}:{step})")
        start, stop, step = _slice_bounds(start, end, step, size)
        # slice.indices' stop of -1 means "past the first element" (a
        # range's bound), which as a slice bound would be the last one.
        index[axis] = slice(start, None if stop < 0 else stop, step)
    if _folds([x]):
        return np.asarray(x)[tuple(index)]
    y = c.value(x)
    for axis, s in enumerate(index):
        if s == slice(None):
            continue
        start, stop, step = s.indices(x.shape[axis])
        count = len(range(start, stop, step))
        if not count:
            y = c.e.narrow(y, axis, 0, 0)  # empty, wherever it starts
        elif step == 1:
            y = c.e.narrow(y, axis, start, count)
        else:
            rows = np.arange(start, stop, step, dtype=np.int64)
            y = c.e.gather(y, c.e.constant(rows, "i64"), axis)
    return y


@op("Gather")
def gather(c, inputs, attrs):
    x, indices = inputs
    axis = axis_index(attrs.get("axis", 0), len(x.shape))
    if is_const(indices):
        size = x.shape[axis]
        indices = np.asarray(indices)
        if not isinstance(size, str):
            indices = np.where(indices < 0, indices + size, indices)
    if _folds([x, indices]):
        return np.take(np.asarray(x), indices.astype(np.int64), axis)
    table = c.value(x)
    if is_const(indices):
        if (indices < 0).any():
            raise RLXError("negative Gather indices along a `?` dim")
        return c.e.gather(table, c.e.constant(indices.astype(np.int64),
                                              "i64"), axis)
    indices = c.value(indices)
    if indices.dtype not in ("i64", "i32"):
        raise RLXError(f"Gather indices of {indices.type}")
    # Negative indices count from the end.
    size = x.shape[axis]
    if isinstance(size, str):
        raise RLXError("Gather of graph-computed indices along a `?` dim")
    zero = c.scalar(0, indices)
    wrapped = c.e.binary("add", indices, c.scalar(size, indices))
    indices = c.e.where(c.e.compare("lt", indices, zero), wrapped, indices)
    return c.e.gather(table, indices, axis)


@op("Expand")
def expand(c, inputs, attrs):
    x, target = inputs
    target = _shape_operand(target, "Expand's shape")
    rank = max(len(x.shape), len(target))
    shape = [1] * (rank - len(x.shape)) + list(x.shape)
    target = [1] * (rank - len(target)) + target
    out = [s if t == 1 else t for s, t in zip(shape, target)]
    if _folds([x]):
        return np.broadcast_to(np.asarray(x), out).copy()
    x = c.value(x)
    if rank > x.rank:
        x = c.e.reshape(x, shape)
    return c.e.expand(x, out)


@op("Tile")
def tile(c, inputs, attrs):
    x, repeats = inputs
    repeats = ints(_const(repeats, "Tile's repeats"), "repeats")
    if _folds([x]):
        return np.tile(np.asarray(x), repeats)
    x = c.value(x)
    for axis, count in enumerate(repeats):
        if count != 1:
            x = c.e.concat([x] * count, axis) if count else \
                c.e.narrow(x, axis, 0, 0)
    return x


@op("ConstantOfShape")
def constant_of_shape(c, inputs, attrs):
    """An import-time array; of a shape with symbolic dims (an attention
    mask of batch * heads rows), a graph splat over them."""
    shape = np.asarray(_const(inputs[0], "ConstantOfShape's shape"))
    value = attrs.get("value", np.zeros(1, np.float32))
    value = np.asarray(value).reshape(-1)
    if is_symbolic(shape):
        dims = tuple(d if isinstance(d, str) else int(d)
                     for d in shape.reshape(-1))
        return c.e.constant(value[0].item(), rlx_dtype(value.dtype), dims)
    return np.full(ints(shape, "shape"), value[0], value.dtype)


@op("Range")
def range_(c, inputs, attrs):
    start, limit, delta = [numeric(_const(v, "Range's bounds"), "Range")
                           for v in inputs]
    dtype = np.asarray(start).dtype
    count = max(int(np.ceil((limit - start) / delta)), 0)
    return (start + np.arange(count) * delta).astype(dtype)


@op("EyeLike")
def eye_like(c, inputs, attrs):
    x = inputs[0]
    if len(x.shape) != 2 or any(isinstance(d, str) for d in x.shape):
        raise RLXError(f"EyeLike of a tensor of shape {list(x.shape)}")
    array = np.eye(*x.shape, k=attrs.get("k", 0))
    if "dtype" in attrs:
        from .elementwise import CAST_TYPES
        return array.astype(CAST_TYPES[attrs["dtype"]])
    if is_const(x):
        return array.astype(x.dtype)
    return c.e.constant(array, x.dtype)
