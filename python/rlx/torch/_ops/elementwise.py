# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Elementwise ops: arithmetic, activations, clamp."""

import operator

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..._capi import RLXError
from .._emitter import Value
from .common import ATEN, FUNCTIONS, METHODS, MODULES, const


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


def divide(c, a, b, *, rounding_mode=None):
    """torch.div with its rounding modes: `floor` is rlx's floor_div
    (PyTorch's floor_divide, from fmod for floats), `trunc` the truncating
    integer division or trunc(a / b) for floats."""
    if rounding_mode is None:
        return c.binary("div", a, b)
    a, b = c.operands(a, b)
    if rounding_mode == "floor":
        return c.e.binary("floor_div", a, b)
    if rounding_mode == "trunc":
        if a.dtype.startswith("f") or a.dtype == "bf16":
            return c.e.activation("trunc", c.e.binary("div", a, b))
        return c.e.binary("div", a, b)
    raise RLXError(f"div with rounding_mode={rounding_mode!r}")


def _division(kind):
    """floor_div, remainder or fmod of two operands (Python's //, %)."""
    def handler(c, a, b):
        a, b = c.operands(a, b)
        return c.e.binary(kind, a, b)
    return handler


FUNCTIONS[torch.div] = METHODS["div"] = METHODS["div_"] = divide
FUNCTIONS[operator.truediv] = FUNCTIONS[operator.itruediv] = divide
for _names, _kind in ((("floor_divide", "floordiv"), "floor_div"),
                      (("remainder", "mod"), "remainder"),
                      (("fmod",), "fmod")):
    _h = _division(_kind)
    for _name in _names:
        for _target in (getattr(operator, _name, None),
                        getattr(torch, _name, None)):
            if _target is not None:
                FUNCTIONS[_target] = _h
        METHODS[_name] = METHODS[_name + "_"] = _h
    ATEN[f"aten.{_names[0]}.Tensor"] = ATEN[f"aten.{_names[0]}.Scalar"] = _h
ATEN["aten.floor_divide.default"] = FUNCTIONS[torch.floor_divide]
ATEN["aten.div.Tensor_mode"] = ATEN["aten.div.Scalar_mode"] = divide


def _unary(kind):
    def handler(c, x, *args, **kwargs):
        return c.e.activation(kind, x)
    return handler


for _kind in ["relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt",
              "sin", "cos", "tan", "atan", "neg", "abs", "floor", "ceil",
              "trunc"]:
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
METHODS["frac"] = FUNCTIONS[torch.frac] = ATEN["aten.frac.default"] = \
    lambda c, x: c.e.binary("sub", x, c.e.activation("trunc", x))
FUNCTIONS[torch.sigmoid] = METHODS["sigmoid"]


def relu6(c, x):
    return hardtanh(c, x, 0.0, 6.0)


def hardtanh(c, x, min_val=-1.0, max_val=1.0):
    y = c.e.binary("max", x, const(c, x, min_val))
    return c.e.binary("min", y, const(c, x, max_val))


def leaky_relu(c, x, negative_slope=0.01):
    positive = c.e.compare("gt", x, const(c, x, 0.0))
    return c.e.where(positive, x,
                     c.e.binary("mul", x, const(c, x, negative_slope)))


def elu(c, x, alpha=1.0, scale=1.0, input_scale=1.0):
    positive = c.e.compare("gt", x, const(c, x, 0.0))
    scaled = c.e.binary("mul", x, const(c, x, input_scale)) \
        if input_scale != 1.0 else x
    # exp of the positive side is unused; min(x, 0) keeps it finite.
    clipped = c.e.binary("min", scaled, const(c, x, 0.0))
    negative = c.e.binary("mul", c.e.binary(
        "sub", c.e.activation("exp", clipped), const(c, x, 1.0)),
        const(c, x, alpha))
    y = c.e.where(positive, x, negative)
    return c.e.binary("mul", y, const(c, x, scale)) if scale != 1.0 else y


def selu(c, x):
    return elu(c, x, alpha=1.6732632423543772, scale=1.0507009873554805)


def celu(c, x, alpha=1.0):
    return elu(c, x, alpha=alpha, input_scale=1.0 / alpha)


def softplus(c, x, beta=1.0, threshold=20.0):
    bx = c.e.binary("mul", x, const(c, x, beta)) if beta != 1.0 else x
    # log(1 + exp(bx)) = max(bx, 0) + log(1 + exp(-|bx|)), without overflow.
    soft = c.e.binary("add", c.e.binary("max", bx, const(c, x, 0.0)),
                      c.e.activation("log", c.e.binary(
                          "add", const(c, x, 1.0), c.e.activation(
                              "exp", c.e.activation(
                                  "neg", c.e.activation("abs", bx))))))
    if beta != 1.0:
        soft = c.e.binary("div", soft, const(c, x, beta))
    linear = c.e.compare("gt", bx, const(c, x, threshold))
    return c.e.where(linear, x, soft)


def mish(c, x):
    return c.e.binary("mul", x, c.e.activation("tanh", softplus(c, x)))


def hardsigmoid(c, x):
    shifted = c.e.binary("add", x, const(c, x, 3.0))
    return c.e.binary("div", hardtanh(c, shifted, 0.0, 6.0),
                      const(c, x, 6.0))


def hardswish(c, x):
    return c.e.binary("mul", x, hardsigmoid(c, x))


def logsigmoid(c, x):
    return c.e.activation("neg", softplus(c, c.e.activation("neg", x)))


def softsign(c, x):
    return c.e.binary("div", x, c.e.binary(
        "add", const(c, x, 1.0), c.e.activation("abs", x)))


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
    positive = c.e.compare("gt", x, const(c, x, 0.0))
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
FUNCTIONS[torch.clamp_min] = METHODS["clamp_min"] = \
    ATEN["aten.clamp_min.default"] = lambda c, x, low: _clamp(c, x, low, None)
FUNCTIONS[torch.clamp_max] = METHODS["clamp_max"] = \
    ATEN["aten.clamp_max.default"] = lambda c, x, high: _clamp(c, x, None,
                                                              high)


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
