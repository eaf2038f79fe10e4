# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Element gathers and scatters, triangles, one-hot and block
rearrangements, over the torch translations
(python/rlx/torch/_ops/indexing.py)."""

import math

import numpy as np

from ..._capi import RLXError
from ...torch._ops import indexing as torch_indexing
from .common import axis_index, is_const, numeric, op


def _wrapped(c, indices, size):
    """Negative indices counted from the end of a dim of `size`."""
    indices = c.e.cast(c.value(indices), "i64")
    zero = c.scalar(0, indices)
    return c.e.where(c.e.compare("lt", indices, zero),
                     c.e.binary("add", indices, c.scalar(size, indices)),
                     indices)


@op("GatherElements")
def gather_elements(c, inputs, attrs):
    x = c.value(inputs[0])
    axis = axis_index(attrs.get("axis", 0), x.rank)
    indices = _wrapped(c, inputs[1], x.shape[axis])
    return torch_indexing.gather(c, x, axis, indices)


def _nd_positions(c, data, indices, batch_dims):
    """For GatherND / ScatterND: data viewed as rows [B * P, R] (B the
    batch dims, P the m indexed ones, R the rest flattened) and the row
    of each index tuple (indices [..., m], negative ones from the end),
    i64 of shape indices.shape[:-1]."""
    if indices.rank < 1 or indices.dtype not in ("i64", "i32"):
        raise RLXError(f"indices {indices.type}")
    m = indices.shape[-1]
    b = batch_dims
    if b + m > data.rank or indices.shape[:b] != data.shape[:b]:
        raise RLXError(f"indices {list(indices.shape)} with batch_dims {b} "
                       f"of data {list(data.shape)}")
    indexed = data.shape[b:b + m]
    rows = c.e.reshape(data, (math.prod(data.shape[:b + m]),
                              math.prod(data.shape[b + m:])))
    tuples = indices.shape[:-1]
    flat = None
    for k, size in enumerate(indexed):
        i = c.e.reshape(c.e.narrow(indices, indices.rank - 1, k, 1), tuples)
        i = _wrapped(c, i, size)
        flat = i if flat is None else c.e.binary("add", c.e.binary(
            "mul", flat, c.scalar(size, i)), i)
    if flat is None:  # m = 0: whole slices
        flat = c.e.constant(0, "i64", tuples)
    if b:
        batch = np.arange(math.prod(tuples[:b]), dtype=np.int64).reshape(
            tuples[:b] + (1,) * (len(tuples) - b)) * math.prod(indexed)
        flat = c.e.binary("add", flat, c.e.constant(batch, "i64"))
    return rows, c.e.expand(flat, tuples)


@op("GatherND")
def gather_nd(c, inputs, attrs):
    """data's slices at the index tuples (batch_dims leading dims shared
    with the indices): one rlx.gather of data's rows at their flattened
    positions."""
    data, indices = c.value(inputs[0]), c.value(inputs[1])
    b = attrs.get("batch_dims", 0)
    rows, flat = _nd_positions(c, data, indices, b)
    out = c.e.gather(rows, flat, 0)
    return c.e.reshape(out, indices.shape[:-1] +
                       data.shape[b + indices.shape[-1]:])


@op("ScatterND")
def scatter_nd(c, inputs, attrs):
    """data with the slices at the index tuples replaced by (reduction
    add: increased by) updates: the torch importer's scatter_rows (two
    rlx.scatter_adds and an rlx.where) over data's rows. Repeated index
    tuples without a reduction are undefined in ONNX (here their sum);
    reductions mul, max, min are refused. Of import-time values: NumPy at
    import time (swin's shifted-window mask, written slice by slice)."""
    reduction = attrs.get("reduction", "none")
    if all(is_const(v) for v in inputs[:3]):
        return _scatter_nd_fold(inputs, reduction)
    data, indices = c.value(inputs[0]), c.value(inputs[1])
    updates = c.value(inputs[2])
    if reduction not in ("none", "add"):
        raise RLXError(f"ScatterND with reduction {reduction}")
    rows, flat = _nd_positions(c, data, indices, 0)
    count = math.prod(indices.shape[:-1])
    y = torch_indexing.scatter_rows(
        c, rows, c.e.reshape(flat, (count,)),
        c.e.reshape(updates, (count, rows.shape[1])), reduction == "add")
    return c.e.reshape(y, data.shape)


def _scatter_nd_fold(inputs, reduction):
    """ScatterND on NumPy arrays, as ONNX defines it (negative indices
    from the end; repeated index tuples without a reduction, undefined in
    ONNX, keep the last update)."""
    data = np.array(numeric(np.asarray(inputs[0]), "ScatterND's data"))
    indices = np.asarray(numeric(np.asarray(inputs[1]),
                                 "ScatterND's indices")).astype(np.int64)
    updates = np.asarray(numeric(np.asarray(inputs[2]),
                                 "ScatterND's updates"))
    m = indices.shape[-1]
    tuples = indices.reshape(math.prod(indices.shape[:-1]), m)
    where = tuple(tuples.T)
    updates = updates.reshape((len(tuples),) + data.shape[m:]) \
        .astype(data.dtype)
    if reduction == "none":
        data[where] = updates
    elif reduction == "add":
        np.add.at(data, where, updates)
    elif reduction == "mul":
        np.multiply.at(data, where, updates)
    else:
        raise RLXError(f"ScatterND with reduction {reduction}")
    return data


@op("ScatterElements")
def scatter_elements(c, inputs, attrs):
    """data with data[..., indices[..., j, ...], ...] (along axis; negative
    indices from the end) replaced by (reduction add: increased by)
    updates[..., j, ...]: the torch importer's scatter. Reductions mul,
    max, min are refused; repeated indices without one are undefined in
    ONNX (here their sum)."""
    data = c.value(inputs[0])
    axis = axis_index(attrs.get("axis", 0), data.rank)
    reduction = attrs.get("reduction", "none")
    if reduction not in ("none", "add"):
        raise RLXError(f"ScatterElements with reduction {reduction}")
    indices = _wrapped(c, inputs[1], data.shape[axis])
    return torch_indexing.scatter(c, data, axis, indices,
                                  c.value(inputs[2]),
                                  reduce="add" if reduction == "add"
                                  else None)


@op("Trilu")
def trilu(c, inputs, attrs):
    """x where column - row >= k (upper) or <= k (lower) over the last two
    dims, 0 elsewhere; k may be a graph value (the mask is computed by the
    graph from constant positions)."""
    x = c.value(inputs[0])
    if x.rank < 2:
        raise RLXError(f"Trilu of a rank-{x.rank} tensor")
    if 0 in x.shape:
        return x  # nothing to mask
    k = inputs[1] if len(inputs) > 1 else None
    k = c.e.constant(0, "i64") if k is None else \
        c.e.reshape(c.e.cast(c.value(k), "i64"), ())
    rows, cols = x.shape[-2:]
    offset = np.arange(cols).reshape(1, cols) - np.arange(rows).reshape(
        rows, 1)
    keep = c.e.compare("ge" if attrs.get("upper", 1) else "le",
                       c.e.constant(offset.astype(np.int64), "i64"), k)
    return c.e.where(keep, x, c.scalar(0, x))


@op("OneHot")
def one_hot(c, inputs, attrs):
    """values[1] where the index (negative ones from the end) is the
    position along the new axis, values[0] elsewhere."""
    indices, depth, values = inputs
    if not is_const(depth):
        raise RLXError("OneHot's depth computed by the graph")
    depth = int(np.asarray(depth).reshape(-1)[0])
    values = c.value(values)
    indices = c.value(indices)
    axis = attrs.get("axis", -1)
    axis = axis_index(axis, indices.rank + 1)
    if indices.dtype.startswith(("f", "bf")):
        # Float indices: ONNX takes their integer part.
        indices = c.e.cast(indices, "i64")
    indices = _wrapped(c, indices, depth)
    positions = np.arange(depth, dtype=np.int64).reshape(
        [depth] + [1] * (indices.rank - axis))
    hits = c.e.compare("eq", c.e.reshape(
        indices, indices.shape[:axis] + (1,) + indices.shape[axis:]),
        c.e.constant(positions, "i64"))
    off = c.e.reshape(c.e.narrow(values, 0, 0, 1), ())
    on = c.e.reshape(c.e.narrow(values, 0, 1, 1), ())
    return c.e.where(hits, on, off)


def _block_rearrange(to_depth):
    def handler(c, inputs, attrs):
        x = c.value(inputs[0])
        b = attrs["blocksize"]
        if x.rank != 4:
            raise RLXError(f"a rank-{x.rank} tensor (NCHW only)")
        n, ch, h, w = x.shape
        if to_depth:
            y = c.e.reshape(x, (n, ch, h // b, b, w // b, b))
            y = c.e.transpose(y, [0, 3, 5, 1, 2, 4])
            return c.e.reshape(y, (n, ch * b * b, h // b, w // b))
        mode = attrs.get("mode", "DCR")
        if mode == "DCR":
            y = c.e.reshape(x, (n, b, b, ch // (b * b), h, w))
            y = c.e.transpose(y, [0, 3, 4, 1, 5, 2])
        else:
            y = c.e.reshape(x, (n, ch // (b * b), b, b, h, w))
            y = c.e.transpose(y, [0, 1, 4, 2, 5, 3])
        return c.e.reshape(y, (n, ch // (b * b), h * b, w * b))
    return handler


op("SpaceToDepth")(_block_rearrange(True))
op("DepthToSpace")(_block_rearrange(False))
