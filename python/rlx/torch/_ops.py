# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Translations of torch modules, functions, Tensor methods and aten ops
into rlx ops. Each handler takes the converter `c` and the node's
arguments with nodes replaced by Values (or Python values)."""

import math
import operator

import torch
import torch.nn as nn
import torch.nn.functional as F

from .._capi import RLXError
from ._emitter import Value, rlx_dtype

MODULES, FUNCTIONS, METHODS, ATEN = {}, {}, {}, {}


def _axis(axis, rank):
    return axis % rank if rank else 0


def _dims(args):
    """`x.view(2, 3)` and `x.view((2, 3))` alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
        return [int(d) for d in args[0]]
    return [int(d) for d in args]


def _resolve_shape(shape, numel):
    shape = list(shape)
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        shape[shape.index(-1)] = numel // known if known else 0
    return tuple(shape)


# -- elementwise ---------------------------------------------------------

_BINARY = {"add": "add", "sub": "sub", "mul": "mul", "div": "div",
           "truediv": "div", "pow": "pow", "maximum": "max",
           "minimum": "min"}


def _binary_handler(kind, reverse=False):
    def handler(c, a, b, *rest, alpha=1, **kwargs):
        if rest or kwargs.get("rounding_mode"):
            raise RLXError(f"{kind} with {rest or kwargs} is not translated")
        if alpha != 1:
            b = c.binary("mul", b, alpha) if isinstance(b, Value) \
                else b * alpha
        if reverse:
            a, b = b, a
        return c.binary(kind, a, b)
    return handler


for _name, _kind in _BINARY.items():
    _h = _binary_handler(_kind)
    for _target in (getattr(operator, _name, None), getattr(torch, _name,
                                                            None)):
        if _target is not None:
            FUNCTIONS[_target] = _h
    METHODS[_name] = _h
    METHODS[_name + "_"] = _h  # in place: the converter rebinds the node
FUNCTIONS[operator.iadd] = FUNCTIONS[operator.add]
FUNCTIONS[operator.imul] = FUNCTIONS[operator.mul]
FUNCTIONS[operator.isub] = FUNCTIONS[operator.sub]
FUNCTIONS[operator.itruediv] = FUNCTIONS[operator.truediv]
FUNCTIONS[torch.true_divide] = FUNCTIONS[torch.div]
METHODS["rsub"] = _binary_handler("sub", reverse=True)
FUNCTIONS[torch.rsub] = METHODS["rsub"]
ATEN.update({
    "aten.add.Tensor": FUNCTIONS[torch.add],
    "aten.add.Scalar": FUNCTIONS[torch.add],
    "aten.add_.Tensor": FUNCTIONS[torch.add],
    "aten.sub.Tensor": FUNCTIONS[torch.sub],
    "aten.rsub.Scalar": METHODS["rsub"],
    "aten.mul.Tensor": FUNCTIONS[torch.mul],
    "aten.mul.Scalar": FUNCTIONS[torch.mul],
    "aten.div.Tensor": FUNCTIONS[torch.div],
    "aten.div.Scalar": FUNCTIONS[torch.div],
    "aten.pow.Tensor_Scalar": FUNCTIONS[torch.pow],
    "aten.maximum.default": FUNCTIONS[torch.maximum],
    "aten.minimum.default": FUNCTIONS[torch.minimum],
})


def _unary(kind):
    def handler(c, x, *args, **kwargs):
        return c.e.activation(kind, x)
    return handler


for _kind in ["relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt",
              "sin", "cos", "tan", "atan", "neg", "abs"]:
    _h = _unary(_kind)
    METHODS[_kind] = _h
    METHODS[_kind + "_"] = _h
    if hasattr(torch, _kind):
        FUNCTIONS[getattr(torch, _kind)] = _h
    if hasattr(F, _kind):
        FUNCTIONS[getattr(F, _kind)] = _h
    ATEN[f"aten.{_kind}.default"] = _h
    ATEN[f"aten.{_kind}_.default"] = _h
FUNCTIONS[operator.neg] = METHODS["neg"]
FUNCTIONS[torch.sigmoid] = METHODS["sigmoid"]


def _const(c, x, value):
    return c.scalar(value, x)


def relu6(c, x):
    return hardtanh(c, x, 0.0, 6.0)


def hardtanh(c, x, min_val=-1.0, max_val=1.0):
    y = c.e.binary("max", x, _const(c, x, min_val))
    return c.e.binary("min", y, _const(c, x, max_val))


def leaky_relu(c, x, negative_slope=0.01):
    positive = c.e.compare("gt", x, _const(c, x, 0.0))
    return c.e.where(positive, x,
                     c.e.binary("mul", x, _const(c, x, negative_slope)))


def elu(c, x, alpha=1.0, scale=1.0, input_scale=1.0):
    positive = c.e.compare("gt", x, _const(c, x, 0.0))
    scaled = c.e.binary("mul", x, _const(c, x, input_scale)) \
        if input_scale != 1.0 else x
    # exp of the positive side is unused; min(x, 0) keeps it finite.
    clipped = c.e.binary("min", scaled, _const(c, x, 0.0))
    negative = c.e.binary("mul", c.e.binary(
        "sub", c.e.activation("exp", clipped), _const(c, x, 1.0)),
        _const(c, x, alpha))
    y = c.e.where(positive, x, negative)
    return c.e.binary("mul", y, _const(c, x, scale)) if scale != 1.0 else y


def selu(c, x):
    return elu(c, x, alpha=1.6732632423543772, scale=1.0507009873554805)


def celu(c, x, alpha=1.0):
    return elu(c, x, alpha=alpha, input_scale=1.0 / alpha)


def softplus(c, x, beta=1.0, threshold=20.0):
    bx = c.e.binary("mul", x, _const(c, x, beta)) if beta != 1.0 else x
    # log(1 + exp(bx)) = max(bx, 0) + log(1 + exp(-|bx|)), without overflow.
    soft = c.e.binary("add", c.e.binary("max", bx, _const(c, x, 0.0)),
                      c.e.activation("log", c.e.binary(
                          "add", _const(c, x, 1.0), c.e.activation(
                              "exp", c.e.activation(
                                  "neg", c.e.activation("abs", bx))))))
    if beta != 1.0:
        soft = c.e.binary("div", soft, _const(c, x, beta))
    linear = c.e.compare("gt", bx, _const(c, x, threshold))
    return c.e.where(linear, x, soft)


def mish(c, x):
    return c.e.binary("mul", x, c.e.activation("tanh", softplus(c, x)))


def hardsigmoid(c, x):
    shifted = c.e.binary("add", x, _const(c, x, 3.0))
    return c.e.binary("div", hardtanh(c, shifted, 0.0, 6.0),
                      _const(c, x, 6.0))


def hardswish(c, x):
    return c.e.binary("mul", x, hardsigmoid(c, x))


def logsigmoid(c, x):
    return c.e.activation("neg", softplus(c, c.e.activation("neg", x)))


def softsign(c, x):
    return c.e.binary("div", x, c.e.binary(
        "add", _const(c, x, 1.0), c.e.activation("abs", x)))


def tanhshrink(c, x):
    return c.e.binary("sub", x, c.e.activation("tanh", x))


def gelu(c, x, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RLXError(f"gelu approximate='{approximate}'")
    return c.e.activation("gelu" if approximate == "none" else "gelu_approx",
                          x)


def silu(c, x, inplace=False):
    return c.e.activation("silu", x)


def prelu(c, x, weight):
    if weight.shape[0] != 1 and x.rank > 1:
        weight = c.e.reshape(weight, (weight.shape[0],) + (1,) *
                             (x.rank - 2))
    positive = c.e.compare("gt", x, _const(c, x, 0.0))
    return c.e.where(positive, x, c.e.binary("mul", x, weight))


def _drop_inplace(function):
    def handler(c, x, *args, inplace=False, **kwargs):
        return function(c, x, *args, **kwargs)
    return handler


_ACTIVATIONS = {
    "relu6": relu6, "hardtanh": hardtanh, "leaky_relu": leaky_relu,
    "elu": elu, "selu": selu, "celu": celu, "softplus": softplus,
    "mish": mish, "hardsigmoid": hardsigmoid, "hardswish": hardswish,
    "logsigmoid": logsigmoid, "softsign": softsign, "tanhshrink": tanhshrink,
    "gelu": gelu, "silu": silu, "prelu": prelu,
}
for _name, _function in _ACTIVATIONS.items():
    _h = _drop_inplace(_function)
    FUNCTIONS[getattr(F, _name)] = _h
    ATEN[f"aten.{_name}.default"] = _h
    ATEN[f"aten.{_name}_.default"] = _h
FUNCTIONS[F.relu] = METHODS["relu"]
FUNCTIONS[torch.relu] = METHODS["relu"]
FUNCTIONS[F.relu_] = METHODS["relu"]
FUNCTIONS[torch.relu_] = METHODS["relu"]
FUNCTIONS[F.hardtanh_] = _drop_inplace(hardtanh)
FUNCTIONS[torch.clamp] = METHODS["clamp"] = \
    lambda c, x, min=None, max=None: _clamp(c, x, min, max)
ATEN["aten.clamp.default"] = FUNCTIONS[torch.clamp]


def _clamp(c, x, low, high):
    if low is not None:
        x = c.binary("max", x, low)
    if high is not None:
        x = c.binary("min", x, high)
    return x


def _module_activation(function, *names):
    def handler(c, module, path, x):
        return function(c, x, *[getattr(module, n) for n in names])
    return handler


MODULES.update({
    nn.ReLU: lambda c, m, p, x: c.e.activation("relu", x),
    nn.Sigmoid: lambda c, m, p, x: c.e.activation("sigmoid", x),
    nn.Tanh: lambda c, m, p, x: c.e.activation("tanh", x),
    nn.SiLU: lambda c, m, p, x: c.e.activation("silu", x),
    nn.GELU: _module_activation(gelu, "approximate"),
    nn.ReLU6: _module_activation(relu6),
    nn.Hardtanh: _module_activation(hardtanh, "min_val", "max_val"),
    nn.LeakyReLU: _module_activation(leaky_relu, "negative_slope"),
    nn.ELU: _module_activation(elu, "alpha"),
    nn.SELU: _module_activation(selu),
    nn.CELU: _module_activation(celu, "alpha"),
    nn.Softplus: _module_activation(softplus, "beta", "threshold"),
    nn.Mish: _module_activation(mish),
    nn.Hardsigmoid: _module_activation(hardsigmoid),
    nn.Hardswish: _module_activation(hardswish),
    nn.LogSigmoid: _module_activation(logsigmoid),
    nn.Softsign: _module_activation(softsign),
    nn.Tanhshrink: _module_activation(tanhshrink),
    nn.PReLU: lambda c, m, p, x: prelu(c, x, c.param(p + ".weight")),
})


# -- softmax and reductions ----------------------------------------------

def softmax(c, x, dim=None, _stacklevel=3, dtype=None, half_to_float=False):
    if dim is None:
        raise RLXError("softmax without dim")
    return c.e.softmax(x, _axis(dim, x.rank))


def log_softmax(c, x, dim=None, _stacklevel=3, dtype=None,
                half_to_float=False):
    if dim is None:
        raise RLXError("log_softmax without dim")
    axis = _axis(dim, x.rank)
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


class _NoIndices:
    """A result with no translation (the indices of max(x, dim), the
    statistics of aten's batch and layer norm, attention weights): fine as
    long as nothing uses it."""


def _max_min(kind):
    def handler(c, x, dim=None, keepdim=False):
        if isinstance(dim, Value):
            return c.binary({"max": "max", "min": "min"}[kind], x, dim)
        if dim is None:
            return c.e.reduce(kind, x, list(range(x.rank)))
        return (c.e.reduce(kind, x, [dim], keepdim), _NoIndices())
    return handler


FUNCTIONS[torch.max] = METHODS["max"] = _max_min("max")
FUNCTIONS[torch.min] = METHODS["min"] = _max_min("min")


# -- linear algebra ------------------------------------------------------

def matmul(c, a, b):
    squeeze = []
    if a.rank == 1:
        a = c.e.reshape(a, (1, a.shape[0]))
        squeeze.append(-2)
    if b.rank == 1:
        b = c.e.reshape(b, (b.shape[0], 1))
        squeeze.append(-1)
    a, b = c.operands(a, b)
    y = c.e.matmul(a, b)
    if squeeze:
        shape = [d for i, d in enumerate(y.shape)
                 if i - y.rank not in squeeze]
        y = c.e.reshape(y, shape)
    return y


def linear(c, x, weight, bias=None):
    y = c.e.matmul(x if x.rank >= 2 else c.e.reshape(x, (1,) + x.shape),
                   c.e.transpose(weight, [1, 0]))
    if x.rank < 2:
        y = c.e.reshape(y, y.shape[1:])
    return c.e.binary("add", y, bias) if bias is not None else y


def addmm(c, bias, a, b, beta=1, alpha=1):
    """aten's addmm and baddbmm: beta * bias + alpha * (a @ b)."""
    product = c.e.matmul(a, b)
    if alpha != 1:
        product = c.e.binary("mul", product, _const(c, product, alpha))
    if beta == 0:
        return product
    if beta != 1:
        bias = c.e.binary("mul", bias, _const(c, bias, beta))
    return c.e.binary("add", product, bias)


for _f in (torch.matmul, operator.matmul, torch.mm, torch.bmm):
    FUNCTIONS[_f] = matmul
METHODS["matmul"] = METHODS["mm"] = METHODS["bmm"] = matmul
FUNCTIONS[F.linear] = linear
ATEN["aten.mm.default"] = ATEN["aten.bmm.default"] = matmul
ATEN["aten.matmul.default"] = matmul
ATEN["aten.addmm.default"] = ATEN["aten.baddbmm.default"] = addmm
ATEN["aten.linear.default"] = linear
MODULES[nn.Linear] = lambda c, m, p, x: linear(
    c, x, c.param(p + ".weight"),
    c.param(p + ".bias") if m.bias is not None else None)


# -- shapes --------------------------------------------------------------

def reshape(c, x, *shape):
    return c.e.reshape(x, _resolve_shape(_dims(shape), math.prod(x.shape)))


def flatten(c, x, start_dim=0, end_dim=-1):
    if x.rank == 0:
        return c.e.reshape(x, (1,))
    start, end = _axis(start_dim, x.rank), _axis(end_dim, x.rank)
    shape = x.shape[:start] + (math.prod(x.shape[start:end + 1]),) + \
        x.shape[end + 1:]
    return c.e.reshape(x, shape)


def permute(c, x, *perm):
    return c.e.transpose(x, _dims(perm))


def transpose(c, x, dim0, dim1):
    perm = list(range(x.rank))
    a, b = _axis(dim0, x.rank), _axis(dim1, x.rank)
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
    axis = _axis(dim, x.rank)
    if x.shape[axis] != 1:
        return x
    return c.e.reshape(x, x.shape[:axis] + x.shape[axis + 1:])


def expand(c, x, *shape):
    target = _dims(shape)
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
    return c.e.concat(values, _axis(dim, values[0].rank))


def split(c, x, size, dim=0):
    axis = _axis(dim, x.rank)
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
    axis = _axis(dim, x.rank)
    return split(c, x, -(-x.shape[axis] // chunks), axis)


def size(c, x, dim=None):
    return x.shape if dim is None else x.shape[dim]


def getitem(c, x, index):
    if not isinstance(x, Value):
        # A _NoIndices picked here is an error only where an op uses it.
        return x[index]
    if not isinstance(index, tuple):
        index = (index,)
    if any(isinstance(i, Value) for i in index):
        if len(index) == 1:
            return c.e.gather(x, index[0], 0)
        raise RLXError("indexing with tensors beyond the first dim")
    if Ellipsis in index:
        at = index.index(Ellipsis)
        used = sum(1 for i in index if i is not None and i is not Ellipsis)
        index = index[:at] + (slice(None),) * (x.rank - used) + \
            index[at + 1:]
    shape, axis, y = [], 0, x
    for i in index:
        if i is None:
            shape.append(1)
            continue
        if isinstance(i, int):
            start = i % x.shape[axis]
            y = c.e.narrow(y, axis, start, 1)
        elif isinstance(i, slice):
            start, stop, step = i.indices(x.shape[axis])
            if step != 1:
                raise RLXError(f"a slice with step {step}")
            y = c.e.narrow(y, axis, start, max(0, stop - start))
            shape.append(y.shape[axis])
        else:
            raise RLXError(f"indexing with {type(i).__name__}")
        axis += 1
    shape += list(x.shape[axis:])
    return c.e.reshape(y, shape)


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


def embedding(c, indices, weight, padding_idx=None, *args, **kwargs):
    if isinstance(weight, Value) and weight.rank == 2 and \
            not isinstance(indices, Value):
        raise RLXError("embedding of constant indices")
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
    torch.split: split, torch.chunk: chunk, operator.getitem: getitem,
    torch.where: where, torch.masked_fill: masked_fill,
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
    "aten.where.self": where, "aten.masked_fill.Scalar": masked_fill,
    "aten.masked_fill.Tensor": masked_fill,
    "aten.embedding.default": lambda c, w, i, *a: embedding(c, i, w),
    "<built-in function getitem>": getitem,
    "aten._to_copy.default": lambda c, x, dtype=None, **k: c.e.cast(
        x, rlx_dtype(dtype)) if dtype is not None else x,
})


def _attribute(x, name):
    if name == "dtype":
        raise RLXError("reading a tensor's dtype")
    return getattr(x, name)


def _slice(c, x, dim=0, start=None, end=None, step=1):
    axis = _axis(dim, x.rank)
    start, stop, step = slice(start, end, step).indices(x.shape[axis])
    if step != 1:
        raise RLXError(f"a slice with step {step}")
    return c.e.narrow(x, axis, start, max(0, stop - start))


def _select(c, x, dim, index):
    axis = _axis(dim, x.rank)
    y = c.e.narrow(x, axis, index % x.shape[axis], 1)
    return c.e.reshape(y, x.shape[:axis] + x.shape[axis + 1:])


ATEN["aten.slice.Tensor"] = _slice
ATEN["aten.select.int"] = _select


# -- normalization, convolution, pooling ---------------------------------

def layer_norm(c, x, normalized_shape, weight=None, bias=None, eps=1e-5):
    count = len(normalized_shape)
    features = math.prod(normalized_shape)
    flat = c.e.reshape(x, x.shape[:x.rank - count] + (features,))
    gamma = c.e.reshape(weight, (features,)) if weight is not None else \
        c.e.constant(1.0, x.dtype, (features,))
    beta = c.e.reshape(bias, (features,)) if bias is not None else \
        c.e.constant(0.0, x.dtype, (features,))
    return c.e.reshape(c.e.layer_norm(flat, gamma, beta, eps), x.shape)


def native_layer_norm(c, x, normalized_shape, weight, bias, eps):
    # The mean and rstd results are for the backward pass: never used in
    # an inference graph.
    return (layer_norm(c, x, normalized_shape, weight, bias, eps),
            _NoIndices(), _NoIndices())


FUNCTIONS[F.layer_norm] = layer_norm
ATEN["aten.native_layer_norm.default"] = native_layer_norm
ATEN["aten.layer_norm.default"] = layer_norm
MODULES[nn.LayerNorm] = lambda c, m, p, x: layer_norm(
    c, x, m.normalized_shape,
    c.param(p + ".weight") if m.elementwise_affine else None,
    c.param(p + ".bias") if m.elementwise_affine else None, m.eps)


def batch_norm(c, x, mean, var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if training:
        raise RLXError("batch norm in training mode")
    # y = (x - mean) * (weight * rsqrt(var + eps)) + bias, per channel
    # (axis 1), in ops of the parameters so they stay arguments.
    channels = (x.shape[1],) + (1,) * (x.rank - 2)
    scale = c.e.activation("rsqrt", c.e.binary("add", var,
                                               _const(c, var, eps)))
    if weight is not None:
        scale = c.e.binary("mul", scale, weight)
    y = c.e.binary("mul", c.e.binary("sub", x, c.e.reshape(mean, channels)),
                   c.e.reshape(scale, channels))
    if bias is not None:
        y = c.e.binary("add", y, c.e.reshape(bias, channels))
    return y


def _batch_norm_module(c, m, p, x):
    if not m.track_running_stats:
        raise RLXError("batch norm without running statistics")
    return batch_norm(c, x, c.param(p + ".running_mean"),
                      c.param(p + ".running_var"),
                      c.param(p + ".weight") if m.affine else None,
                      c.param(p + ".bias") if m.affine else None,
                      False, 0.0, m.eps)


FUNCTIONS[F.batch_norm] = batch_norm
MODULES[nn.BatchNorm1d] = MODULES[nn.BatchNorm2d] = _batch_norm_module
ATEN["aten.native_batch_norm.default"] = lambda c, x, w, b, m, v, training, \
    momentum, eps: (batch_norm(c, x, m, v, w, b, training, momentum, eps),
                    _NoIndices(), _NoIndices())
ATEN["aten._native_batch_norm_legit_no_training.default"] = \
    lambda c, x, w, b, m, v, momentum, eps: (
        batch_norm(c, x, m, v, w, b, False, momentum, eps), _NoIndices(),
        _NoIndices())


def conv2d(c, x, weight, bias=None, stride=1, padding=0, dilation=1,
           groups=1):
    if isinstance(padding, str):
        raise RLXError(f"conv2d padding='{padding}' (give the sizes)")
    y = c.e.conv(x, weight, _pair(stride), _pair(padding), _pair(dilation),
                 groups)
    if bias is not None:
        y = c.e.binary("add", y, c.e.reshape(bias, (bias.shape[0], 1, 1)))
    return y


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _convolution(c, x, weight, bias, stride, padding, dilation, transposed,
                 output_padding, groups, *rest):
    if transposed or x.rank != 4:
        raise RLXError("only 2-d, non-transposed convolutions")
    return conv2d(c, x, weight, bias, stride, padding, dilation, groups)


def _conv_module(c, m, p, x):
    if m.padding_mode != "zeros":
        raise RLXError(f"conv2d padding_mode='{m.padding_mode}'")
    return conv2d(c, x, c.param(p + ".weight"),
                  c.param(p + ".bias") if m.bias is not None else None,
                  m.stride, m.padding, m.dilation, m.groups)


FUNCTIONS[F.conv2d] = FUNCTIONS[torch.conv2d] = conv2d
MODULES[nn.Conv2d] = _conv_module
ATEN["aten.convolution.default"] = _convolution


def max_pool2d(c, x, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode=False, return_indices=False):
    if _pair(dilation) != (1, 1) or ceil_mode or return_indices:
        raise RLXError("max_pool2d with dilation, ceil_mode or indices")
    kernel = _pair(kernel_size)
    stride = _pair(stride) if stride else kernel
    return c.e.pool("max", x, kernel, stride, _pair(padding))


def avg_pool2d(c, x, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    if ceil_mode or divisor_override or (not count_include_pad and
                                         _pair(padding) != (0, 0)):
        raise RLXError("avg_pool2d with ceil_mode, divisor_override or "
                       "count_include_pad=False and padding")
    kernel = _pair(kernel_size)
    stride = _pair(stride) if stride else kernel
    return c.e.pool("mean", x, kernel, stride, _pair(padding))


def adaptive_avg_pool2d(c, x, output_size):
    out = _pair(output_size)
    h, w = x.shape[-2:]
    out = (out[0] or h, out[1] or w)
    if out == (1, 1):
        return c.e.reduce("mean", x, [x.rank - 2, x.rank - 1], True)
    if h % out[0] or w % out[1]:
        raise RLXError(f"adaptive_avg_pool2d from {h}x{w} to "
                       f"{out[0]}x{out[1]} (only whole windows)")
    kernel = (h // out[0], w // out[1])
    return c.e.pool("mean", x, kernel, kernel, (0, 0))


FUNCTIONS[F.max_pool2d] = FUNCTIONS[torch.max_pool2d] = max_pool2d
FUNCTIONS[F.avg_pool2d] = avg_pool2d
FUNCTIONS[F.adaptive_avg_pool2d] = adaptive_avg_pool2d
ATEN["aten.max_pool2d_with_indices.default"] = lambda c, *a: (
    max_pool2d(c, *a), _NoIndices())
ATEN["aten.avg_pool2d.default"] = avg_pool2d
ATEN["aten._adaptive_avg_pool2d.default"] = adaptive_avg_pool2d
MODULES.update({
    nn.MaxPool2d: lambda c, m, p, x: max_pool2d(
        c, x, m.kernel_size, m.stride, m.padding, m.dilation, m.ceil_mode,
        m.return_indices),
    nn.AvgPool2d: lambda c, m, p, x: avg_pool2d(
        c, x, m.kernel_size, m.stride, m.padding, m.ceil_mode,
        m.count_include_pad, m.divisor_override),
    nn.AdaptiveAvgPool2d: lambda c, m, p, x: adaptive_avg_pool2d(
        c, x, m.output_size),
    nn.Flatten: lambda c, m, p, x: flatten(c, x, m.start_dim, m.end_dim),
    nn.Unflatten: lambda c, m, p, x: c.e.reshape(
        x, x.shape[:_axis(m.dim, x.rank)] + tuple(m.unflattened_size) +
        x.shape[_axis(m.dim, x.rank) + 1:]),
    nn.Identity: lambda c, m, p, x, *a, **k: x,
    nn.Dropout: lambda c, m, p, x: x,
    nn.Dropout1d: lambda c, m, p, x: x,
    nn.Dropout2d: lambda c, m, p, x: x,
    nn.AlphaDropout: lambda c, m, p, x: x,
    nn.Embedding: lambda c, m, p, i: embedding(c, i,
                                               c.param(p + ".weight")),
})


# -- attention -----------------------------------------------------------

def multihead_attention(c, m, p, query, key, value, key_padding_mask=None,
                        need_weights=True, attn_mask=None,
                        average_attn_weights=True):
    """nn.MultiheadAttention: projections, rlx.attention, output
    projection. Returns (output, None): the attention weights are not
    computed, and using them is an error."""
    if m.bias_k is not None or m.add_zero_attn or \
            not m._qkv_same_embed_dim:
        raise RLXError("MultiheadAttention with add_bias_kv, add_zero_attn "
                       "or kdim/vdim")
    if not m.batch_first:
        # [S, B, E] -> [B, S, E]
        query, key, value = (c.e.transpose(t, [1, 0, 2])
                             for t in (query, key, value))
    embed, heads = m.embed_dim, m.num_heads
    head_dim = embed // heads
    weight = c.param(p + ".in_proj_weight")
    bias = c.param(p + ".in_proj_bias") if m.in_proj_bias is not None \
        else None

    def project(x, i):
        w = c.e.narrow(weight, 0, i * embed, embed)
        b = c.e.narrow(bias, 0, i * embed, embed) if bias is not None \
            else None
        y = linear(c, x, w, b)
        batch, length = y.shape[0], y.shape[1]
        return c.e.transpose(c.e.reshape(y, (batch, length, heads, head_dim)),
                             [0, 2, 1, 3])
    q, k, v = project(query, 0), project(key, 1), project(value, 2)
    batch, length, key_length = q.shape[0], q.shape[2], k.shape[2]
    mask_kind, mask = "none", None
    if attn_mask is not None:
        bias_mask = _additive_mask(c, attn_mask, q.dtype)
        if bias_mask.rank == 2:
            bias_mask = c.e.reshape(bias_mask, (1, 1) + bias_mask.shape)
        else:  # [B * H, L, S]
            bias_mask = c.e.reshape(bias_mask, (batch, heads, length,
                                                key_length))
        mask_kind = "bias"
        mask = bias_mask
    if key_padding_mask is not None:
        padding = _additive_mask(c, key_padding_mask, q.dtype)
        padding = c.e.reshape(padding, (batch, 1, 1, key_length))
        mask = padding if mask is None else c.e.binary("add", mask, padding)
        mask_kind = "bias"
    if mask is not None:
        mask = c.e.expand(mask, (batch, heads, length, key_length))
    out = c.e.attention(q, k, v, heads, head_dim, mask_kind, mask)
    out = c.e.reshape(c.e.transpose(out, [0, 2, 1, 3]),
                      (batch, length, embed))
    out = linear(c, out, c.param(p + ".out_proj.weight"),
                 c.param(p + ".out_proj.bias")
                 if m.out_proj.bias is not None else None)
    if not m.batch_first:
        out = c.e.transpose(out, [1, 0, 2])
    return out, (_NoIndices() if need_weights else None)


def _additive_mask(c, mask, dtype):
    """A boolean mask (True: masked out) as -inf / 0, a float one as is."""
    if not isinstance(mask, Value):
        mask = c.const_tensor(mask)
    if mask.dtype == "i1":
        return c.e.where(mask, c.e.constant(float("-inf"), dtype),
                         c.e.constant(0.0, dtype))
    return c.e.cast(mask, dtype)


MODULES[nn.MultiheadAttention] = multihead_attention
