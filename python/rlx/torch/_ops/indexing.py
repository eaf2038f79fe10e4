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
    flat = _merged_positions(c, [index[k] for k in tensors], dims)
    merged = c.e.reshape(y, y.shape[:first] + (math.prod(dims),) +
                         y.shape[first + count:])
    return c.e.gather(merged, flat, first)


def _merged_positions(c, tensors, dims):
    """The position ((i * d1) + j) ... in dims merged of the index tensors
    (broadcast together; negative values from the end), i64."""
    flat, shape = None, ()
    for i, size in zip(tensors, dims):
        if i.dtype == "i1":
            raise RLXError("indexing with a bool mask (its result's shape "
                           "depends on the values)")
        if i.dtype.startswith(("f", "bf")):
            raise RLXError("indexing with a float tensor")
        i = c.e.cast(i, "i64")
        negative = c.e.compare("lt", i, c.e.constant(0, "i64"))
        i = c.e.where(negative, c.e.binary("add", i, c.e.constant(
            size, "i64")), i)
        flat = i if flat is None else c.e.binary("add", c.e.binary(
            "mul", flat, c.e.constant(size, "i64")), i)
        shape = np.broadcast_shapes(shape, i.shape)
    return c.e.expand(flat, shape)


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
    coordinates): _scatter_elements accumulating (one rlx.scatter_add of
    the updates, as rows of one element, into x flattened, added to x);
    an index outside the dim adds nothing (torch raises), repeated
    indices accumulate."""
    return _scatter_elements(c, x, axis_index(dim, x.rank), indices, src,
                             True)


def scatter_rows(c, base, positions, updates, accumulate):
    """`base` [P, R] with row positions[u] (i64 [U]) replaced by
    (accumulate: added to) updates[u] [U, R]. Two rlx.scatter_adds: the
    rows' sum and a count of the updates of each row; a row with any
    update is the sum of its updates (plus the base when accumulating).
    Where positions repeat, an overwrite gives their sum: torch and ONNX
    leave that undefined (scatter, index_put without accumulate,
    ScatterND), as no order of the updates is specified. A position
    outside [0, P) updates nothing."""
    rows = base.shape[0]
    dtype = base.dtype
    if dtype == "i1":
        updated = scatter_rows(c, c.e.cast(base, "i32"), positions,
                               c.e.cast(updates, "i32"), accumulate)
        return c.e.compare("ne", updated, c.e.constant(0, "i32"))
    updates = c.e.cast(updates, dtype)
    added = c.e.scatter_add(updates, positions, rows)
    if accumulate:
        return c.e.binary("add", base, added)
    hits = c.e.scatter_add(c.e.constant(1, "f32", (updates.shape[0], 1)),
                           positions, rows)
    return c.e.where(c.e.compare("gt", hits, c.e.constant(0, "f32")),
                     added, base)


def _scatter_elements(c, x, axis, indices, src, accumulate):
    """x with x[..., indices[..., j, ...], ...] (along axis, the other
    coordinates those of the index) set to (accumulate: increased by)
    src at the index's coordinates; src a Value or a number."""
    flat, updates = _element_updates(c, x, axis, indices, src)
    y = scatter_rows(c, c.e.reshape(x, (math.prod(x.shape), 1)), flat,
                     updates, accumulate)
    return c.e.reshape(y, x.shape)


def _element_updates(c, x, axis, indices, src):
    """The updates of a scatter of src's elements into x along axis: (the
    position in x flattened of each, i64 [U]; src's elements as rows of
    one, [U, 1])."""
    if indices.rank != x.rank:
        raise RLXError(f"a scatter with an index of rank {indices.rank} "
                       f"into a rank-{x.rank} tensor")
    if not isinstance(src, Value):
        src = c.e.constant(src, x.dtype, indices.shape)
    elif src.rank != x.rank:
        raise RLXError(f"a scatter with src of rank {src.rank} into a "
                       f"rank-{x.rank} tensor")
    for k in range(x.rank):
        if indices.shape[k] > src.shape[k] or (
                k != axis and indices.shape[k] > x.shape[k]):
            raise RLXError(f"a scatter index {list(indices.shape)} larger "
                           f"than src {list(src.shape)} or self "
                           f"{list(x.shape)} along dim {k}")
        src = c.e.narrow(src, k, 0, indices.shape[k])
    count = math.prod(indices.shape)
    flat = c.e.reshape(_flat_positions(c, x.shape, axis, indices), (count,))
    return flat, c.e.reshape(src, (count, 1))


# What rlx's scatter cannot combine: it adds (rlx.scatter_add), so a sum
# and a mean (a sum over a count) are translated, a product, a maximum or
# a minimum is not.
_NOT_SCATTERED = ("rlx has no scatter that multiplies or takes a maximum "
                  "or minimum (rlx.scatter_add adds)")


def scatter(c, x, dim, index, src=None, *, value=None, reduce=None):
    """torch.scatter / Tensor.scatter(_) of src or a scalar value (aten's
    scatter.src, scatter.value and scatter.reduce): overwrites, or adds
    with reduce='add'; repeated indices are undefined in torch (here
    their sum). reduce='multiply' is refused."""
    if src is None:
        src = value
    if reduce not in (None, "add"):
        raise RLXError(f"scatter with reduce='{reduce}': rlx has no "
                       "scatter that multiplies (rlx.scatter_add adds); "
                       "reduce='add' is translated")
    return _scatter_elements(c, x, axis_index(dim, x.rank), index, src,
                             reduce == "add")


def _mean_of_sums(c, x, sums, counts, include_self):
    """A scatter's mean from the sums and counts of the updates of each
    element of x: with include_self, x counts as one more; without, an
    element that no update reaches keeps x. Integers are divided with
    floor rounding, as torch does."""
    if include_self:
        sums = c.e.binary("add", sums, x)
        counts = c.e.binary("add", counts, c.e.constant(1, x.dtype))
    hit = c.e.compare("gt", counts, c.e.constant(0, x.dtype))
    # A divisor of 1 where nothing was added (that element keeps x).
    divisor = c.e.where(hit, counts, c.e.constant(1, x.dtype))
    if x.dtype.startswith("f") or x.dtype == "bf16":
        mean = c.e.binary("div", sums, divisor)
    else:
        from .elementwise import divide
        mean = divide(c, sums, divisor, rounding_mode="floor")
    return c.e.where(hit, mean, x)


def _check_mean(what, x):
    if x.dtype == "i1":
        raise RLXError(f"{what} with reduce='mean' of a bool tensor")


def scatter_reduce(c, x, dim, index, src, reduce, *, include_self=True):
    """torch.scatter_reduce with reduce='sum' or 'mean' (the others are
    refused). 'sum': include_self=False replaces the updated elements by
    the sum of their updates. 'mean': two rlx.scatter_adds, of the
    updates and of ones (how many reach each element), the sum divided
    by the count (with include_self, self counts as one)."""
    axis = axis_index(dim, x.rank)
    if reduce == "sum":
        return _scatter_elements(c, x, axis, index, src, include_self)
    if reduce != "mean":
        raise RLXError(f"scatter_reduce with reduce='{reduce}': "
                       f"{_NOT_SCATTERED}; 'sum' and 'mean' are translated")
    _check_mean("scatter_reduce", x)
    flat, updates = _element_updates(c, x, axis, index, src)
    total = math.prod(x.shape)
    sums = c.e.scatter_add(c.e.cast(updates, x.dtype), flat, total)
    counts = c.e.scatter_add(c.e.constant(1, x.dtype, updates.shape), flat,
                             total)
    return _mean_of_sums(c, x, c.e.reshape(sums, x.shape),
                         c.e.reshape(counts, x.shape), include_self)


def index_put(c, x, indices, values, accumulate=False):
    """x[indices] = values (torch.index_put, Tensor.index_put(_), aten's
    index_put, `x[i, j] = v`), or += with accumulate: integer index
    tensors on adjacent dims, broadcast together (negative from the
    end), whole slices on the others; values broadcast to x[indices]'s
    shape. The indexed dims are moved first and merged, the rest
    flattened into rows, and scatter_rows writes the rows. A bool mask
    over x's leading dims with one value (`x[mask] = 0`) is an
    rlx.where. Repeated indices without accumulate are undefined in torch
    (here their sum)."""
    index = tuple(indices)
    if not isinstance(values, Value):
        values = c.e.constant(values, x.dtype)
    index = _expand_ellipsis(index, x.rank)
    masks = [i for i in index if isinstance(i, Value) and i.dtype == "i1"]
    if masks:
        mask = masks[0]
        if len(index) != 1 or math.prod(values.shape) != 1 or \
                mask.shape != x.shape[:mask.rank]:
            raise RLXError("index_put with a bool mask other than one mask "
                           "over the leading dims and one value")
        mask = c.e.reshape(mask, mask.shape + (1,) * (x.rank - mask.rank))
        value = c.e.reshape(c.e.cast(values, x.dtype), ())
        if accumulate:
            return c.e.where(mask, c.e.binary("add", x, value), x)
        return c.e.where(mask, value, x)
    index = tuple(slice(None) if i is None else i for i in index)
    index += (slice(None),) * (x.rank - len(index))
    tensors = [k for k, i in enumerate(index) if isinstance(i, Value)]
    if not tensors or any(not isinstance(i, Value) and i != slice(None)
                          for i in index):
        raise RLXError("index_put with indices other than index tensors "
                       "and whole slices")
    if tensors != list(range(tensors[0], tensors[-1] + 1)):
        raise RLXError("index_put with index tensors on dims that are not "
                       "adjacent")
    first, count = tensors[0], len(tensors)
    dims = x.shape[first:first + count]
    flat = _merged_positions(c, [index[k] for k in tensors], dims)
    shape = flat.shape
    before, after = x.shape[:first], x.shape[first + count:]
    # values as x[indices] is shaped, then the index dims first.
    values = c.e.expand(values, before + tuple(shape) + after)
    values = c.e.transpose(values, list(range(
        len(before), len(before) + len(shape))) + list(range(len(before))) +
        list(range(len(before) + len(shape), values.rank)))
    perm = list(range(first, first + count)) + list(range(first)) + \
        list(range(first + count, x.rank))
    moved = c.e.transpose(x, perm)
    rows = math.prod(before) * math.prod(after)
    updates = c.e.reshape(values, (math.prod(shape), rows))
    y = scatter_rows(c, c.e.reshape(moved, (math.prod(dims), rows)),
                     c.e.reshape(flat, (math.prod(shape),)), updates,
                     accumulate)
    y = c.e.reshape(y, moved.shape)
    return c.e.transpose(y, [perm.index(k) for k in range(x.rank)])


def setitem(c, x, index, value):
    """`x[...] = value` (fx's operator.setitem, in place): index tensors
    (index_put), or ints, slices and None (the region written)."""
    key = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, Value) for i in key):
        return index_put(c, x, key, value)
    raise RLXError("assignment to a slice of a graph value by "
                   "operator.setitem (write it with an index tensor, or "
                   "as torch.cat)")


def index_add(c, x, dim, indices, source, *, alpha=1):
    """torch.index_add: x[..., indices[i], ...] += alpha * source[..., i,
    ...] along dim: the dim moved first and the rest flattened, one
    rlx.scatter_add of the rows, moved back and added to x."""
    rows, sums = _index_rows(c, x, axis_index(dim, x.rank), indices, source,
                             "index_add")
    added = sums(rows)
    if alpha != 1:
        added = c.e.binary("mul", added, c.e.constant(alpha, x.dtype))
    return c.e.binary("add", x, added)


def _index_rows(c, x, axis, indices, source, what):
    """index_add's and index_reduce's operands: the rows of source along
    axis scattered by rlx.scatter_add ([x.shape[axis], rest] of their
    sums), and a function that moves such rows back to x's layout."""
    if indices.rank != 1 or source.rank != x.rank:
        raise RLXError(f"{what} with a rank-{indices.rank} index and a "
                       f"rank-{source.rank} source into a rank-{x.rank} "
                       "tensor")
    perm = [axis] + [k for k in range(x.rank) if k != axis]
    back = [perm.index(k) for k in range(x.rank)]
    moved = c.e.transpose(source, perm)
    rest = math.prod(moved.shape[1:])
    positions = c.e.cast(indices, "i64")

    def sums(rows):
        return c.e.transpose(c.e.reshape(
            c.e.scatter_add(rows, positions, x.shape[axis]),
            (x.shape[axis],) + tuple(moved.shape[1:])), back)
    return c.e.reshape(moved, (moved.shape[0], rest)), sums


def index_reduce(c, x, dim, indices, source, reduce, *, include_self=True):
    """torch.index_reduce with reduce='mean' (the others are refused): the
    rows of source summed into their index's row by rlx.scatter_add, and
    counted by another (of ones), the sum divided by the count (with
    include_self, self counts as one; without, a row no index names keeps
    x); integers divided with floor rounding, as torch does."""
    if reduce != "mean":
        raise RLXError(f"index_reduce with reduce='{reduce}': "
                       f"{_NOT_SCATTERED}; 'mean' is translated")
    _check_mean("index_reduce", x)
    rows, sums = _index_rows(c, x, axis_index(dim, x.rank), indices, source,
                             "index_reduce")
    total = sums(c.e.cast(rows, x.dtype))
    counts = sums(c.e.constant(1, x.dtype, rows.shape))
    return _mean_of_sums(c, x, total, counts, include_self)


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


def diagonal(c, x, offset=0, dim1=0, dim2=1):
    """torch.diagonal: the elements x[..., i, i + offset, ...] of dims dim1
    and dim2, as a last dim: the two dims moved last and merged, and an
    rlx.gather of the constant positions i * (n2 + 1) + offset."""
    a1, a2 = axis_index(dim1, x.rank), axis_index(dim2, x.rank)
    if a1 == a2:
        raise RLXError(f"diagonal of dims {dim1} and {dim2}")
    others = [k for k in range(x.rank) if k not in (a1, a2)]
    y = c.e.transpose(x, others + [a1, a2])
    n1, n2 = x.shape[a1], x.shape[a2]
    rows = range(max(0, -offset), min(n1, n2 - offset))
    if not rows:
        raise RLXError(f"an empty diagonal (offset {offset} of "
                       f"{n1}x{n2})")
    positions = np.array([i * n2 + i + offset for i in rows], np.int64)
    y = c.e.reshape(y, y.shape[:-2] + (n1 * n2,))
    return c.e.gather(y, c.e.constant(positions, "i64"), len(others))


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
    torch.scatter: scatter, torch.scatter_reduce: scatter_reduce,
    torch.index_reduce: index_reduce,
    torch.index_put: index_put, operator.setitem: setitem,
    torch.diagonal: diagonal,
})
METHODS.update({"index_select": index_select, "roll": roll, "flip": flip,
                "triu": triu, "tril": tril, "gather": gather,
                "scatter_add": scatter_add, "index_add": index_add,
                "scatter": scatter, "scatter_": scatter,
                "scatter_add_": scatter_add, "index_add_": index_add,
                "scatter_reduce": scatter_reduce,
                "scatter_reduce_": scatter_reduce,
                "index_reduce": index_reduce, "index_reduce_": index_reduce,
                "index_put": index_put, "index_put_": index_put,
                "diagonal": diagonal})
ATEN.update({
    "<built-in function getitem>": getitem,
    "aten.slice.Tensor": aten_slice, "aten.select.int": select,
    "aten.index.Tensor": index, "aten.index_select.default": index_select,
    "aten.roll.default": roll, "aten.flip.default": flip,
    "aten.triu.default": triu, "aten.tril.default": tril,
    "aten.gather.default": gather,
    "aten.scatter_add.default": scatter_add,
    "aten.index_add.default": index_add,
    "aten.scatter.src": scatter, "aten.scatter.value": scatter,
    "aten.scatter.reduce": scatter, "aten.scatter.value_reduce": scatter,
    "aten.scatter_.src": scatter, "aten.scatter_.value": scatter,
    "aten.scatter_reduce.two": scatter_reduce,
    "aten.index_reduce.default": index_reduce,
    "aten.index_put.default": index_put,
    "aten.index_put_.default": index_put,
    "aten.diagonal.default": diagonal,
    "aten.constant_pad_nd.default": lambda c, x, padding, value=0: pad(
        c, x, padding, "constant", value),
})
for _dims in ("1d", "2d", "3d"):
    ATEN[f"aten.reflection_pad{_dims}.default"] = _aten_pad("reflect")
    ATEN[f"aten.replication_pad{_dims}.default"] = _aten_pad("replicate")
