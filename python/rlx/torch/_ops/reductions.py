# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""softmax, log_softmax and reductions."""

import collections
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..._capi import RLXError
from .._emitter import Value
from .common import ATEN, FUNCTIONS, METHODS, MODULES, axis_index


def softmax(c, x, dim=None, _stacklevel=3, dtype=None, half_to_float=False):
    if dim is None:
        raise RLXError("softmax without dim")
    return c.e.softmax(x, axis_index(dim, x.rank))


def log_softmax(c, x, dim=None, _stacklevel=3, dtype=None,
                half_to_float=False):
    if dim is None:
        raise RLXError("log_softmax without dim")
    axis = axis_index(dim, x.rank)
    # x - max - log(sum(exp(x - max))): no overflow, no log of zero.
    shifted = c.e.binary("sub", x, c.e.reduce("max", x, [axis], True))
    total = c.e.reduce("sum", c.e.activation("exp", shifted), [axis], True)
    return c.e.binary("sub", shifted, c.e.activation("log", total))


for _table in (FUNCTIONS,):
    _table[F.softmax] = _table[torch.softmax] = softmax
    _table[F.log_softmax] = _table[torch.log_softmax] = log_softmax
METHODS["softmax"] = softmax
METHODS["log_softmax"] = log_softmax
ATEN["aten._softmax.default"] = softmax
ATEN["aten._log_softmax.default"] = log_softmax
MODULES[nn.Softmax] = lambda c, m, p, x: softmax(c, x, m.dim)
MODULES[nn.LogSoftmax] = lambda c, m, p, x: log_softmax(c, x, m.dim)


def _reduction(kind):
    def handler(c, x, dim=None, keepdim=False, *, dtype=None):
        if isinstance(dim, bool):  # aten's positional keepdim
            dim, keepdim = None, dim
        if dim is None or (isinstance(dim, (list, tuple)) and not dim):
            axes = list(range(x.rank))
        elif isinstance(dim, int):
            axes = [dim]
        else:
            axes = list(dim)
        if dtype is not None:
            raise RLXError(f"{kind} with dtype={dtype}")
        return c.e.reduce(kind, x, axes, keepdim)
    return handler


for _kind in ["sum", "mean", "amax", "amin"]:
    _h = _reduction({"amax": "max", "amin": "min"}.get(_kind, _kind))
    FUNCTIONS[getattr(torch, _kind)] = _h
    METHODS[_kind] = _h
ATEN["aten.sum.dim_IntList"] = FUNCTIONS[torch.sum]
ATEN["aten.sum.default"] = FUNCTIONS[torch.sum]
ATEN["aten.mean.dim"] = FUNCTIONS[torch.mean]
ATEN["aten.mean.default"] = FUNCTIONS[torch.mean]
ATEN["aten.amax.default"] = FUNCTIONS[torch.amax]


def norm(c, x, p=2, dim=None, keepdim=False, dtype=None):
    """The 2-norm (sqrt of the sum of squares) or 1-norm over `dim` (every
    dim if None); x.norm, torch.norm, torch.linalg.vector_norm."""
    if dtype is not None:
        raise RLXError(f"norm with dtype={dtype}")
    axes = list(range(x.rank)) if dim is None or dim == [] else \
        [dim] if isinstance(dim, int) else list(dim)
    if p == 1:
        return c.e.reduce("sum", c.e.activation("abs", x), axes, keepdim)
    if p not in (2, "fro", None):
        raise RLXError(f"a {p}-norm")
    return c.e.activation("sqrt", c.e.reduce(
        "sum", c.e.binary("mul", x, x), axes, keepdim))


FUNCTIONS[torch.norm] = METHODS["norm"] = norm
FUNCTIONS[torch.linalg.vector_norm] = \
    ATEN["aten.linalg_vector_norm.default"] = \
    lambda c, x, ord=2, dim=None, keepdim=False, *, dtype=None: norm(
        c, x, ord, dim, keepdim, dtype)
ATEN["aten.norm.ScalarOpt_dim"] = norm


def cumsum(c, x, dim, *, dtype=None):
    if dtype is not None:
        raise RLXError(f"cumsum with dtype={dtype}")
    if x.dtype == "i1":
        # torch sums bools as int64.
        x = c.e.cast(x, "i64")
    return c.e.cumsum(x, axis_index(dim, x.rank))


FUNCTIONS[torch.cumsum] = METHODS["cumsum"] = ATEN["aten.cumsum.default"] = \
    cumsum


def arg_extreme(c, x, kind, dim, keepdim):
    """(values, i64 indices) of the largest (`kind` "max") or smallest
    element along `dim` (None: over all elements, flattened), as
    torch.max/min(x, dim) and argmax/argmin give them: the first position
    of the extreme, a NaN counting as the extreme of either kind. One
    rlx.top_k with k = 1 along the last axis, whose ties go to the smaller
    index and whose NaN is the largest value; a min is the max of the
    order-reversed values (-x for floats, -1 - x for integers, which never
    overflows)."""
    if x.dtype == "i1":
        x = c.e.cast(x, "i32")
    if dim is None:
        moved, back = c.e.reshape(x, (math.prod(x.shape),)), None
    else:
        axis = axis_index(dim, x.rank)
        perm = [d for d in range(x.rank) if d != axis] + [axis]
        moved = c.e.transpose(x, perm)
        back = [perm.index(d) for d in range(x.rank)]
    floating = x.dtype.startswith("f") or x.dtype == "bf16"

    def reverse(v):
        if floating:
            return c.e.activation("neg", v)
        return c.e.binary("sub", c.e.constant(-1, v.dtype), v)

    values, indices = c.e.top_k(moved if kind == "max" else reverse(moved),
                                1)
    if kind == "min":
        values = reverse(values)
    results = []
    for v in (values, indices):
        if dim is None:
            v = c.e.reshape(v, (1,) * x.rank if keepdim else ())
        elif keepdim:
            v = c.e.transpose(v, back)
        else:
            v = c.e.reshape(v, v.shape[:-1])
        results.append(v)
    return tuple(results)


def topk(c, x, k, dim=-1, largest=True, sorted=True):
    """torch.topk: the k largest (or smallest) elements along dim, in
    order (sorted=False gives them sorted too, one of the orders torch
    allows), and their i64 positions; ties go to the smaller position.
    One rlx.top_k along the last axis (dim moved there), of the
    order-reversed values for the smallest (as arg_extreme)."""
    if isinstance(k, Value):
        raise RLXError("topk with k computed by the graph: rlx.top_k's k "
                       "is an attribute (the result's size), so k must be "
                       "known at import time (a Python int, or a size of "
                       "a tensor)")
    axis = axis_index(dim, x.rank)
    if x.rank == 0 or not 1 <= k <= x.shape[axis]:
        raise RLXError(f"topk of k = {k} along a dim of "
                       f"{x.shape[axis] if x.rank else 1}")
    if x.dtype == "i1":
        raise RLXError("topk of a bool tensor")
    perm = [d for d in range(x.rank) if d != axis] + [axis]
    back = [perm.index(d) for d in range(x.rank)]
    moved = c.e.transpose(x, perm)
    floating = x.dtype.startswith("f") or x.dtype == "bf16"

    def reverse(v):
        if floating:
            return c.e.activation("neg", v)
        return c.e.binary("sub", c.e.constant(-1, v.dtype), v)

    values, indices = c.e.top_k(moved if largest else reverse(moved), int(k))
    if not largest:
        values = reverse(values)
    return TopK(c.e.transpose(values, back), c.e.transpose(indices, back))


# torch.topk's result: a tuple whose fields are named.
TopK = collections.namedtuple("TopK", ["values", "indices"])


FUNCTIONS[torch.topk] = METHODS["topk"] = ATEN["aten.topk.default"] = topk


def _max_min(kind):
    def handler(c, x, dim=None, keepdim=False):
        if isinstance(dim, Value):
            return c.binary({"max": "max", "min": "min"}[kind], x, dim)
        if dim is None:
            return c.e.reduce(kind, x, list(range(x.rank)))
        # The values by rlx.reduce, which differentiates.
        return (c.e.reduce(kind, x, [dim], keepdim),
                arg_extreme(c, x, kind, dim, keepdim)[1])
    return handler


def _arg(kind):
    def handler(c, x, dim=None, keepdim=False):
        return arg_extreme(c, x, kind, dim, keepdim)[1]
    return handler


FUNCTIONS[torch.max] = METHODS["max"] = _max_min("max")
FUNCTIONS[torch.min] = METHODS["min"] = _max_min("min")
ATEN["aten.max.dim"] = _max_min("max")
ATEN["aten.min.dim"] = _max_min("min")
FUNCTIONS[torch.argmax] = METHODS["argmax"] = ATEN["aten.argmax.default"] = \
    _arg("max")
FUNCTIONS[torch.argmin] = METHODS["argmin"] = ATEN["aten.argmin.default"] = \
    _arg("min")
