# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Indexing: getitem (ints, slices with any positive step, None, `...`,
index tensors), aten's slice, select and index, index_select, roll, pad,
flip, triu/tril, one_hot and gather. Elements at positions known at
import time are an rlx.narrow (a run) or an rlx.gather of a constant
index; index tensors of the graph are one rlx.gather of their flattened
position."""

import math
import operator

import numpy as np
import torch
import torch.nn.functional as F

from ..._capi import RLXError
from .._emitter import Value
from .common import ATEN, FUNCTIONS, METHODS, axis_index, int_dims


def take(c, x, axis, positions):
    """The slices of x at the constant `positions` along `axis`."""
    positions = [int(p) for p in positions]
    if not positions or positions == list(range(
            positions[0], positions[0] + len(positions))):
        return c.e.narrow(x, axis, positions[0] if positions else 0,
                          len(positions))
    return c.e.gather(x, c.e.constant(np.array(positions, dtype=np.int64),
                                      "i64"), axis)


def slice_axis(c, x, axis, start, stop, step):
    start, stop, step = slice(start, stop, step).indices(x.shape[axis])
    if step <= 0:
        raise RLXError(f"a slice with step {step}")
    return take(c, x, axis, range(start, stop, step))


def _expand_ellipsis(index, rank):
    if Ellipsis not in index:
        return index
    at = index.index(Ellipsis)
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    return index[:at] + (slice(None),) * (rank - used) + index[at + 1:]


def getitem(c, x, index):
    if not isinstance(x, Value):
        # A tuple of results (split, a module's outputs); a NoIndices
        # picked here is an error only where an op uses it.
        return x[index]
    if not isinstance(index, tuple):
        index = (index,)
    index = _expand_ellipsis(index, x.rank)
    if any(isinstance(i, Value) for i in index):
        return _advanced(c, x, index)
    shape, axis, y = [], 0, x
    for i in index:
        if i is None:
            shape.append(1)
            continue
        if isinstance(i, int):
            y = c.e.narrow(y, axis, i % x.shape[axis], 1)
        elif isinstance(i, slice):
            y = slice_axis(c, y, axis, i.start, i.stop, i.step)
            shape.append(y.shape[axis])
        else:
            raise RLXError(f"indexing with {type(i).__name__}")
        axis += 1
    shape += list(x.shape[axis:])
    return c.e.reshape(y, shape)


def _advanced(c, x, index):
    """x[..., i, j, ...] with index tensors on adjacent dims (and slices
    elsewhere): the result has the tensors' broadcast shape in their place,
    as in torch. Gathers x, its indexed dims merged, at the flattened
    position ((i * d1) + j) ..., negative indices counting from the end."""
    tensors = [k for k, i in enumerate(index) if isinstance(i, Value)]
    if any(i is None or isinstance(i, int) for i in index):
        raise RLXError("indexing that mixes index tensors with ints or None")
    if tensors != list(range(tensors[0], tensors[-1] + 1)):
        raise RLXError("index tensors on dims that are not adjacent")
    y = x
    for axis, i in enumerate(index):
        if isinstance(i, slice):
            y = slice_axis(c, y, axis, i.start, i.stop, i.step)
    first, count = tensors[0], len(tensors)
    dims = y.shape[first:first + count]
    shape = ()
    flat = None
    for k, size in zip(tensors, dims):
        i = index[k]
        if i.dtype == "i1":
            raise RLXError("indexing with a bool mask (its result's shape "
                           "depends on the values)")
        if i.dtype.startswith("f"):
            raise RLXError("indexing with a float tensor")
        i = c.e.cast(i, "i64")
        negative = c.e.compare("lt", i, c.e.constant(0, "i64"))
        i = c.e.where(negative, c.e.binary("add", i, c.e.constant(
            size, "i64")), i)
        flat = i if flat is None else c.e.binary("add", c.e.binary(
            "mul", flat, c.e.constant(size, "i64")), i)
        shape = np.broadcast_shapes(shape, i.shape)
    flat = c.e.expand(flat, shape)
    merged = c.e.reshape(y, y.shape[:first] + (math.prod(dims),) +
                         y.shape[first + count:])
    return c.e.gather(merged, flat, first)


def gather(c, x, dim, indices, *, sparse_grad=False):
    """torch.gather: out[..., j, ...] = x[..., indices[..., j, ...], ...]
    along dim, the other coordinates those of the output. One rlx.gather
    of x flattened, at the position the graph computes from the indices
    and constant positions along the other dims."""
    if indices.rank != x.rank:
        raise RLXError(f"gather with indices of rank {indices.rank} from a "
                       f"rank-{x.rank} tensor")
    # torch requires 0 <= index < size (no negative indices).
    flat = _flat_positions(c, x.shape, axis_index(dim, x.rank), indices)
    return c.e.gather(c.e.reshape(x, (math.prod(x.shape),)), flat, 0)


def _flat_positions(c, shape, axis, indices):
    """The position in a tensor of `shape`, flattened, of each element of
    `indices` read as coordinates along `axis`, its own coordinates along
    the other dims (torch.gather's and scatter_add's addressing)."""
    flat = None
    for k in range(len(shape)):
        if k == axis:
            position = c.e.cast(indices, "i64")
        else:
            dims = [1] * len(shape)
            dims[k] = indices.shape[k]
            position = c.e.constant(np.arange(indices.shape[k]).reshape(
                dims), "i64")
        flat = position if flat is None else c.e.binary("add", c.e.binary(
            "mul", flat, c.e.constant(shape[k], "i64")), position)
    return c.e.expand(flat, indices.shape)


def scatter_add(c, x, dim, indices, src):
    """torch.scatter_add: x[..., indices[..., j, ...], ...] += src[..., j,
    ...] along dim, for every element of `indices` (src read at the same
    coordinates). One rlx.scatter_add of the updates as rows of one
    element into x flattened, then added to x; an index outside the dim
    adds nothing (torch raises), repeated indices accumulate."""
    if not (indices.rank == src.rank == x.rank):
        raise RLXError(f"scatter_add with index of rank {indices.rank}, src "
                       f"of rank {src.rank} into a rank-{x.rank} tensor")
    axis = axis_index(dim, x.rank)
    for k in range(x.rank):
        if indices.shape[k] > src.shape[k] or (
                k != axis and indices.shape[k] > x.shape[k]):
            raise RLXError(f"scatter_add: index {list(indices.shape)} is "
                           f"larger than src {list(src.shape)} or self "
                           f"{list(x.shape)} along dim {k}")
        src = c.e.narrow(src, k, 0, indices.shape[k])
    count = math.prod(indices.shape)
    total = math.prod(x.shape)
    flat = c.e.reshape(_flat_positions(c, x.shape, axis, indices), (count,))
    added = c.e.scatter_add(c.e.reshape(src, (count, 1)), flat, total)
    return c.e.binary("add", x, c.e.reshape(added, x.shape))


def index_add(c, x, dim, indices, source, *, alpha=1):
    """torch.index_add: x[..., indices[i], ...] += alpha * source[..., i,
    ...] along dim: the dim moved first and the rest flattened, one
    rlx.scatter_add of the rows, moved back and added to x."""
    axis = axis_index(dim, x.rank)
    if indices.rank != 1 or source.rank != x.rank:
        raise RLXError(f"index_add with a rank-{indices.rank} index and a "
                       f"rank-{source.rank} source into a rank-{x.rank} "
                       "tensor")
    perm = [axis] + [k for k in range(x.rank) if k != axis]
    back = [perm.index(k) for k in range(x.rank)]
    moved = c.e.transpose(source, perm)
    rest = math.prod(moved.shape[1:])
    rows = c.e.scatter_add(c.e.reshape(moved, (moved.shape[0], rest)),
                           c.e.cast(indices, "i64"), x.shape[axis])
    added = c.e.transpose(c.e.reshape(
        rows, (x.shape[axis],) + tuple(moved.shape[1:])), back)
    if alpha != 1:
        added = c.e.binary("mul", added, c.e.constant(alpha, x.dtype))
    return c.e.binary("add", x, added)


def index(c, x, indices):
    """aten's index.Tensor: None for a dim not indexed."""
    return getitem(c, x, tuple(slice(None) if i is None else i
                               for i in indices))


def index_select(c, x, dim, indices):
    axis = axis_index(dim, x.rank)
    return _advanced(c, x, (slice(None),) * axis + (indices,))


def aten_slice(c, x, dim=0, start=None, end=None, step=1):
    return slice_axis(c, x, axis_index(dim, x.rank), start, end, step)


def select(c, x, dim, position):
    axis = axis_index(dim, x.rank)
    y = c.e.narrow(x, axis, position % x.shape[axis], 1)
    return c.e.reshape(y, x.shape[:axis] + x.shape[axis + 1:])


def roll(c, x, shifts, dims=None):
    if dims is None or dims == () or dims == []:
        flat = c.e.reshape(x, (math.prod(x.shape),))
        return c.e.reshape(roll(c, flat, shifts, 0), x.shape)
    shifts = shifts if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    if len(shifts) != len(dims):
        raise RLXError(f"roll with {len(shifts)} shifts and {len(dims)} "
                       "dims")
    for shift, dim in zip(shifts, dims):
        axis = axis_index(dim, x.rank)
        size = x.shape[axis]
        step = shift % size
        if step:
            x = c.e.concat([c.e.narrow(x, axis, size - step, step),
                            c.e.narrow(x, axis, 0, size - step)], axis)
    return x


def flip(c, x, *dims):
    for dim in int_dims(dims):
        axis = axis_index(dim, x.rank)
        x = take(c, x, axis, range(x.shape[axis] - 1, -1, -1))
    return x


def _triangle(keep):
    def handler(c, x, diagonal=0):
        """x where column - row `keep`s the diagonal, 0 elsewhere, over
        the last two dims; the mask is computed by the graph from a column
        and a row of positions."""
        if x.rank < 2:
            raise RLXError(f"a triangle of a rank-{x.rank} tensor")
        rows, cols = x.shape[-2:]
        offset = c.e.binary("sub", c.e.constant(
            np.arange(cols, dtype=np.int64).reshape(1, cols), "i64"),
            c.e.constant(np.arange(rows, dtype=np.int64).reshape(rows, 1),
                         "i64"))
        mask = c.e.compare(keep, offset, c.e.constant(diagonal, "i64"))
        return c.e.where(mask, x, c.e.constant(0, x.dtype))
    return handler


triu, tril = _triangle("ge"), _triangle("le")


def one_hot(c, indices, num_classes=-1):
    if num_classes < 0:
        raise RLXError("one_hot without num_classes (it would come from "
                       "the values)")
    hits = c.e.compare("eq", c.e.reshape(c.e.cast(indices, "i64"),
                                         indices.shape + (1,)),
                       c.e.constant(np.arange(num_classes, dtype=np.int64),
                                    "i64"))
    return c.e.cast(hits, "i64")


def _source(position, size, mode):
    """The input position that a padded position reads."""
    if mode == "reflect":
        position = abs(position)
        return 2 * (size - 1) - position if position >= size else position
    if mode == "replicate":
        return min(max(position, 0), size - 1)
    return position % size  # circular


def pad(c, x, pad, mode="constant", value=None):
    """F.pad: pairs (before, after) from the last dim backwards; negative
    sizes crop. Constant padding is an rlx.concat of constants; reflect,
    replicate and circular read input positions (a constant gather)."""
    if len(pad) % 2 or len(pad) // 2 > x.rank:
        raise RLXError(f"pad {list(pad)} of a rank-{x.rank} tensor")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise RLXError(f"pad mode '{mode}'")
    for k in range(len(pad) // 2):
        axis, before, after = x.rank - 1 - k, pad[2 * k], pad[2 * k + 1]
        # Negative sizes crop first; padding then extends what is left.
        x = c.e.narrow(x, axis, max(0, -before), x.shape[axis] -
                       max(0, -before) - max(0, -after))
        before, after, size = max(0, before), max(0, after), x.shape[axis]
        if mode != "constant":
            if mode == "reflect" and max(before, after) >= size:
                raise RLXError(f"reflect padding by {max(before, after)} of "
                               f"a dim of {size}")
            x = take(c, x, axis, [_source(p, size, mode)
                                  for p in range(-before, size + after)])
            continue
        pieces = []
        for count in (before, after):
            shape = list(x.shape)
            shape[axis] = count
            pieces.append(c.e.constant(value or 0, x.dtype, shape)
                          if count else None)
        x = c.e.concat([p for p in (pieces[0], x, pieces[1])
                        if p is not None], axis)
    return x


def _aten_pad(mode):
    def handler(c, x, padding):
        return pad(c, x, padding, mode)
    return handler


FUNCTIONS.update({
    operator.getitem: getitem, torch.index_select: index_select,
    torch.roll: roll, F.pad: pad, torch.flip: flip, torch.triu: triu,
    torch.tril: tril, F.one_hot: one_hot, torch.gather: gather,
    torch.scatter_add: scatter_add, torch.index_add: index_add,
})
METHODS.update({"index_select": index_select, "roll": roll, "flip": flip,
                "triu": triu, "tril": tril, "gather": gather,
                "scatter_add": scatter_add, "index_add": index_add})
ATEN.update({
    "<built-in function getitem>": getitem,
    "aten.slice.Tensor": aten_slice, "aten.select.int": select,
    "aten.index.Tensor": index, "aten.index_select.default": index_select,
    "aten.roll.default": roll, "aten.flip.default": flip,
    "aten.triu.default": triu, "aten.tril.default": tril,
    "aten.gather.default": gather,
    "aten.scatter_add.default": scatter_add,
    "aten.index_add.default": index_add,
    "aten.constant_pad_nd.default": lambda c, x, padding, value=0: pad(
        c, x, padding, "constant", value),
})
for _dims in ("1d", "2d", "3d"):
    ATEN[f"aten.reflection_pad{_dims}.default"] = _aten_pad("reflect")
    ATEN[f"aten.replication_pad{_dims}.default"] = _aten_pad("replicate")
