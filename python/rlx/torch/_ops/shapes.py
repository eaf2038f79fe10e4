# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Shape ops, indexing, comparisons, where, embedding."""

import math
import operator

import torch
import torch.nn.functional as F

from ..._capi import RLXError
from .._emitter import Value, rlx_dtype, torch_dtype
from .common import (ATEN, FUNCTIONS, METHODS, axis_index, int_dims,
                     resolve_shape)


def reshape(c, x, *shape):
    return c.e.reshape(x, resolve_shape(int_dims(shape), math.prod(x.shape)))


def flatten(c, x, start_dim=0, end_dim=-1):
    if x.rank == 0:
        return c.e.reshape(x, (1,))
    start, end = axis_index(start_dim, x.rank), axis_index(end_dim, x.rank)
    shape = x.shape[:start] + (math.prod(x.shape[start:end + 1]),) + \
        x.shape[end + 1:]
    return c.e.reshape(x, shape)


def permute(c, x, *perm):
    return c.e.transpose(x, int_dims(perm))


def transpose(c, x, dim0, dim1):
    perm = list(range(x.rank))
    a, b = axis_index(dim0, x.rank), axis_index(dim1, x.rank)
    perm[a], perm[b] = perm[b], perm[a]
    return c.e.transpose(x, perm)


def t(c, x):
    return transpose(c, x, 0, 1) if x.rank == 2 else x


def unsqueeze(c, x, dim):
    axis = dim % (x.rank + 1)
    return c.e.reshape(x, x.shape[:axis] + (1,) + x.shape[axis:])


def squeeze(c, x, dim=None):
    if dim is None:
        return c.e.reshape(x, [d for d in x.shape if d != 1])
    axis = axis_index(dim, x.rank)
    if x.shape[axis] != 1:
        return x
    return c.e.reshape(x, x.shape[:axis] + x.shape[axis + 1:])


def expand(c, x, *shape):
    target = int_dims(shape)
    full = [x.shape[i - (len(target) - x.rank)] if d == -1 else d
            for i, d in enumerate(target)]
    return c.e.expand(x, full)


def identity(c, x, *args, **kwargs):
    return x


def cat(c, tensors, dim=0):
    values = [v for v in tensors if not (isinstance(v, Value) and
                                         0 in v.shape and v.rank == 1)]
    dtype = values[0].dtype
    values = [c.e.cast(v, dtype) for v in values]
    return c.e.concat(values, axis_index(dim, values[0].rank))


def split(c, x, size, dim=0):
    axis = axis_index(dim, x.rank)
    if isinstance(size, int):
        sizes = [size] * (x.shape[axis] // size)
        if x.shape[axis] % size:
            sizes.append(x.shape[axis] % size)
    else:
        sizes = list(size)
    pieces, start = [], 0
    for length in sizes:
        pieces.append(c.e.narrow(x, axis, start, length))
        start += length
    return tuple(pieces)


def chunk(c, x, chunks, dim=0):
    axis = axis_index(dim, x.rank)
    return split(c, x, -(-x.shape[axis] // chunks), axis)


def size(c, x, dim=None):
    return x.shape if dim is None else x.shape[dim]


def contiguous(c, x, *args, **kwargs):
    return x


def to(c, x, *args, **kwargs):
    dtypes = [a for a in list(args) + list(kwargs.values())
              if isinstance(a, torch.dtype)]
    return c.e.cast(x, rlx_dtype(dtypes[0])) if dtypes else x


def masked_fill(c, x, mask, value):
    return c.e.where(mask, c.like(value, x), x)


def where(c, condition, a, b):
    a, b = c.operands(a, b)
    return c.e.where(condition, a, b)


def full_like(c, x, fill_value, *, dtype=None, layout=None, device=None,
              pin_memory=None, memory_format=None, requires_grad=False):
    """A constant of x's shape (x's values are not read), folded with what
    it meets until a graph op uses it: aten's zeros_like of a bool key
    padding mask, the attention mask swin builds in x.new_zeros."""
    return torch.full(x.shape, fill_value, dtype=dtype if dtype is not None
                      else torch_dtype(x.dtype))


def zeros_like(c, x, **kwargs):
    return full_like(c, x, 0, **kwargs)


def ones_like(c, x, **kwargs):
    return full_like(c, x, 1, **kwargs)


def fill_(c, x, value):
    """x.fill_(v), aten's zero_ and copy_: the new value of x (the
    converter rebinds x, and rebuilds its base where x is a slice)."""
    if isinstance(value, Value):
        return c.e.expand(c.e.cast(value, x.dtype), x.shape)
    return full_like(c, x, value)


def new_full(c, x, size, fill_value, *, dtype=None, layout=None,
             device=None, pin_memory=None, requires_grad=False):
    """x.new_full(size, v) and its kin: a constant of x's dtype."""
    return torch.full(tuple(int_dims([size])), fill_value,
                      dtype=dtype if dtype is not None
                      else torch_dtype(x.dtype))


def new_zeros(c, x, *size, **kwargs):
    return new_full(c, x, int_dims(size), 0, **kwargs)


def new_ones(c, x, *size, **kwargs):
    return new_full(c, x, int_dims(size), 1, **kwargs)


def embedding(c, indices, weight, padding_idx=None, *args, **kwargs):
    return c.e.gather(weight, indices, 0)


def _compare(kind):
    def handler(c, a, b):
        a, b = c.operands(a, b)
        return c.e.compare(kind, a, b)
    return handler


for _name in ["eq", "ne", "lt", "le", "gt", "ge"]:
    _h = _compare(_name)
    FUNCTIONS[getattr(operator, _name)] = FUNCTIONS[getattr(torch, _name)] \
        = METHODS[_name] = _h
    ATEN[f"aten.{_name}.Tensor"] = ATEN[f"aten.{_name}.Scalar"] = _h

FUNCTIONS.update({
    torch.reshape: reshape, torch.flatten: flatten, torch.permute: permute,
    torch.transpose: transpose, torch.t: t, torch.unsqueeze: unsqueeze,
    torch.squeeze: squeeze, torch.cat: cat, torch.concat: cat,
    torch.split: split, torch.chunk: chunk,
    torch.where: where, torch.masked_fill: masked_fill,
    torch.full_like: full_like, torch.zeros_like: zeros_like,
    torch.ones_like: ones_like,
    F.embedding: embedding, F.dropout: identity, F.dropout2d: identity,
    F.alpha_dropout: identity, torch.dropout: identity,
    getattr: lambda c, x, name: size(c, x) if name == "shape" else
    _attribute(x, name),
})
METHODS.update({
    "view": reshape, "reshape": reshape, "flatten": flatten,
    "permute": permute, "transpose": transpose, "t": t,
    "unsqueeze": unsqueeze, "squeeze": squeeze, "expand": expand,
    "contiguous": contiguous, "split": split, "chunk": chunk, "size": size,
    "dim": lambda c, x: x.rank, "to": to, "float": lambda c, x:
    c.e.cast(x, "f32"), "masked_fill": masked_fill,
    "masked_fill_": masked_fill, "clone": identity, "detach": identity,
    "type_as": lambda c, x, other: c.e.cast(x, other.dtype),
    "new_full": new_full, "new_zeros": new_zeros, "new_ones": new_ones,
    "fill_": fill_, "zero_": zeros_like, "copy_": fill_,
})
ATEN.update({
    "aten.view.default": reshape, "aten._unsafe_view.default": reshape,
    "aten._reshape_alias.default": lambda c, x, shape, stride: reshape(
        c, x, shape),
    "aten.reshape.default": reshape, "aten.permute.default": permute,
    "aten.transpose.int": transpose, "aten.t.default": t,
    "aten.unsqueeze.default": unsqueeze, "aten.squeeze.dim": squeeze,
    "aten.expand.default": expand, "aten.cat.default": cat,
    "aten.split.Tensor": split, "aten.split_with_sizes.default": split,
    "aten.clone.default": identity, "aten.detach.default": identity,
    "aten.alias.default": identity, "aten.lift_fresh_copy.default": identity,
    "aten.full_like.default": full_like,
    "aten.zeros_like.default": zeros_like,
    "aten.ones_like.default": ones_like,
    "aten.new_full.default": new_full, "aten.new_zeros.default": new_zeros,
    "aten.new_ones.default": new_ones,
    "aten.fill_.Scalar": fill_, "aten.fill_.Tensor": fill_,
    "aten.zero_.default": zeros_like,
    "aten.copy_.default": lambda c, x, src, non_blocking=False: fill_(
        c, x, src),
    "aten.where.self": where, "aten.masked_fill.Scalar": masked_fill,
    "aten.masked_fill.Tensor": masked_fill,
    "aten.masked_fill_.Scalar": masked_fill,
    "aten.masked_fill_.Tensor": masked_fill,
    "aten.embedding.default": lambda c, w, i, *a: embedding(c, i, w),
    "aten._to_copy.default": lambda c, x, dtype=None, **k: c.e.cast(
        x, rlx_dtype(dtype)) if dtype is not None else x,
})


def _attribute(x, name):
    if name == "dtype":
        raise RLXError("reading a tensor's dtype")
    return getattr(x, name)
