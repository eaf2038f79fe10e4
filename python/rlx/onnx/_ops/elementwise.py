# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Arithmetic, comparisons, logic, activations and casts."""

import numpy as np

from ..._capi import RLXError
from ...torch._ops import elementwise as torch_elementwise
from .common import (NoValue, OPS, is_const, is_symbolic, numeric, op,
                     symbolic_arithmetic)

_BINARY = {"Add": ("add", np.add), "Sub": ("sub", np.subtract),
           "Mul": ("mul", np.multiply), "Pow": ("pow", np.power),
           "Max": ("max", np.maximum), "Min": ("min", np.minimum)}


def _all_const(inputs):
    return all(is_const(v) for v in inputs)


def _binary_handler(kind, function):
    def handler(c, inputs, attrs):
        a, b = inputs
        if _all_const(inputs):
            if is_symbolic(a) or is_symbolic(b):
                return symbolic_arithmetic(kind, np.asarray(a),
                                           np.asarray(b))
            return np.asarray(function(numeric(np.asarray(a), kind),
                                       numeric(np.asarray(b), kind))) \
                .astype(np.result_type(a.dtype, b.dtype))
        if kind == "pow":
            return _pow(c, c.value(a), c.value(b))
        return c.binary(kind, a, b)
    return handler


def _pow(c, base, exponent):
    """Pow's exponent may have its own type; the result has the base's.
    An integer power is computed in f64 and truncated back, as ONNX's
    reference does."""
    if base.dtype.startswith(("f", "bf")):
        return c.e.binary("pow", base, c.e.cast(exponent, base.dtype))
    y = c.e.binary("pow", c.e.cast(base, "f64"), c.e.cast(exponent, "f64"))
    return c.e.cast(y, base.dtype)


for _name, (_kind, _function) in _BINARY.items():
    OPS[_name] = _binary_handler(_kind, _function)


@op("Div")
def div(c, inputs, attrs):
    a, b = inputs
    if _all_const(inputs):
        if is_symbolic(a) or is_symbolic(b):
            return symbolic_arithmetic("div", np.asarray(a), np.asarray(b))
        a, b = numeric(np.asarray(a), "div"), numeric(np.asarray(b), "div")
        if a.dtype.kind in "iu":
            # ONNX's integer division truncates toward zero.
            return (np.trunc(a / b)).astype(a.dtype)
        return (a / b).astype(a.dtype)
    # rlx's integer div truncates toward zero, as ONNX's (and gives 0 for a
    # zero divisor, which ONNX leaves undefined).
    a, b = c.operands(a, b)
    return c.e.binary("div", a, b)


def _variadic(pairwise):
    """Max, Min, Sum of any number of operands, folded pairwise."""
    def handler(c, inputs, attrs):
        result = inputs[0]
        for x in inputs[1:]:
            result = pairwise(c, [result, x], attrs)
        return result
    return handler


OPS["Sum"] = _variadic(OPS["Add"])
OPS["Max"] = _variadic(OPS["Max"])
OPS["Min"] = _variadic(OPS["Min"])


@op("Mean")
def mean(c, inputs, attrs):
    total = OPS["Sum"](c, inputs, attrs)
    if is_const(total):
        return (total / len(inputs)).astype(total.dtype)
    return c.e.binary("div", total, c.scalar(float(len(inputs)), total))


_COMPARE = {"Equal": ("eq", np.equal), "Less": ("lt", np.less),
            "Greater": ("gt", np.greater), "LessOrEqual": ("le", np.less_equal),
            "GreaterOrEqual": ("ge", np.greater_equal)}


def _compare_handler(kind, function):
    def handler(c, inputs, attrs):
        a, b = inputs
        if _all_const(inputs):
            return np.asarray(function(np.asarray(a), np.asarray(b)))
        a, b = c.operands(a, b)
        return c.e.compare(kind, a, b)
    return handler


for _name, (_kind, _function) in _COMPARE.items():
    OPS[_name] = _compare_handler(_kind, _function)


def _bool(c, value):
    return c.e.constant(value, "i1")


@op("Not")
def logical_not(c, inputs, attrs):
    (x,) = inputs
    if is_const(x):
        return np.logical_not(x)
    return c.e.compare("eq", x, _bool(c, False))


def _logical_handler(name, function):
    def handler(c, inputs, attrs):
        a, b = inputs
        if _all_const(inputs):
            return function(np.asarray(a), np.asarray(b))
        a, b = c.value(a), c.value(b)
        if name == "And":
            return c.e.where(a, b, _bool(c, False))
        if name == "Or":
            return c.e.where(a, _bool(c, True), b)
        return c.e.compare("ne", a, b)
    return handler


OPS["And"] = _logical_handler("And", np.logical_and)
OPS["Or"] = _logical_handler("Or", np.logical_or)
OPS["Xor"] = _logical_handler("Xor", np.logical_xor)


@op("Where")
def where(c, inputs, attrs):
    cond, a, b = inputs
    if _all_const(inputs):
        return np.where(cond, a, b)
    if is_const(a) and not is_const(b):
        a = c.e.cast(c.value(a), b.dtype)
    elif is_const(b) and not is_const(a):
        b = c.e.cast(c.value(b), a.dtype)
    return c.e.where(c.value(cond), c.value(a), c.value(b))


# -- unary ----------------------------------------------------------------

_ACTIVATIONS = {"Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh",
                "Exp": "exp", "Log": "log", "Sqrt": "sqrt", "Neg": "neg",
                "Abs": "abs", "Sin": "sin", "Cos": "cos", "Tan": "tan",
                "Atan": "atan", "Round": "round", "Floor": "floor",
                "Ceil": "ceil"}
_NUMPY_UNARY = {"Neg": np.negative, "Abs": np.abs, "Sqrt": np.sqrt,
                "Exp": np.exp, "Log": np.log, "Relu": lambda x:
                np.maximum(x, 0).astype(x.dtype), "Floor": np.floor,
                "Ceil": np.ceil}


def _activation_handler(name, kind):
    def handler(c, inputs, attrs):
        (x,) = inputs
        if is_const(x) and name in _NUMPY_UNARY and \
                getattr(x, "initializer", None) is None:
            return np.asarray(_NUMPY_UNARY[name](numeric(np.asarray(x),
                                                         name)))
        x = c.value(x)
        if kind in ("relu", "neg", "abs") or x.dtype.startswith(("f", "bf")):
            return c.e.activation(kind, x)
        raise RLXError(f"{name} of {x.type}")
    return handler


for _name, _kind in _ACTIVATIONS.items():
    OPS[_name] = _activation_handler(_name, _kind)


def _float_value(c, x, name):
    x = c.value(x)
    if not x.dtype.startswith(("f", "bf")):
        raise RLXError(f"{name} of {x.type}")
    return x


def _torch_activation(name, function, *attr_defaults):
    """An ONNX activation with the semantics of a torch translation
    (python/rlx/torch/_ops/elementwise.py), its attributes passed in
    order."""
    def handler(c, inputs, attrs):
        x = _float_value(c, inputs[0], name)
        return function(c, x, *[attrs.get(k, v) for k, v in attr_defaults])
    return handler


OPS["Softplus"] = _torch_activation("Softplus", torch_elementwise.softplus)
OPS["Softsign"] = _torch_activation("Softsign", torch_elementwise.softsign)
OPS["HardSwish"] = _torch_activation("HardSwish",
                                     torch_elementwise.hardswish)
OPS["Mish"] = _torch_activation("Mish", torch_elementwise.mish)
OPS["LeakyRelu"] = _torch_activation("LeakyRelu",
                                     torch_elementwise.leaky_relu,
                                     ("alpha", 0.01))
OPS["Elu"] = _torch_activation("Elu", torch_elementwise.elu, ("alpha", 1.0))
OPS["Celu"] = _torch_activation("Celu", torch_elementwise.celu,
                                ("alpha", 1.0))


@op("Selu")
def selu(c, inputs, attrs):
    x = _float_value(c, inputs[0], "Selu")
    alpha = attrs.get("alpha", 1.67326319217681884765625)
    gamma = attrs.get("gamma", 1.05070102214813232421875)
    return torch_elementwise.elu(c, x, alpha, gamma)


@op("HardSigmoid")
def hard_sigmoid(c, inputs, attrs):
    x = _float_value(c, inputs[0], "HardSigmoid")
    alpha, beta = attrs.get("alpha", 0.2), attrs.get("beta", 0.5)
    y = c.e.binary("add", c.e.binary("mul", x, c.scalar(alpha, x)),
                   c.scalar(beta, x))
    return c.e.binary("min", c.e.binary("max", y, c.scalar(0.0, x)),
                      c.scalar(1.0, x))


@op("ThresholdedRelu")
def thresholded_relu(c, inputs, attrs):
    x = _float_value(c, inputs[0], "ThresholdedRelu")
    alpha = attrs.get("alpha", 1.0)
    return c.e.where(c.e.compare("gt", x, c.scalar(alpha, x)), x,
                     c.scalar(0.0, x))


@op("PRelu")
def prelu(c, inputs, attrs):
    x, slope = c.value(inputs[0]), c.value(inputs[1])
    zero = c.scalar(0.0, x)
    return c.e.where(c.e.compare("lt", x, zero), c.e.binary("mul", x, slope),
                     x)


@op("Reciprocal")
def reciprocal(c, inputs, attrs):
    x = _float_value(c, inputs[0], "Reciprocal")
    return c.e.binary("div", c.scalar(1.0, x), x)


@op("Sign")
def sign(c, inputs, attrs):
    x = c.value(inputs[0])
    zero = c.scalar(0, x)
    positive = c.e.where(c.e.compare("gt", x, zero), c.scalar(1, x), zero)
    return c.e.where(c.e.compare("lt", x, zero), c.scalar(-1, x), positive)


@op("Clip")
def clip(c, inputs, attrs):
    x = c.value(inputs[0])
    low = inputs[1] if len(inputs) > 1 else None
    high = inputs[2] if len(inputs) > 2 else None
    if low is not None:
        x = c.e.binary("max", x, c.e.cast(c.value(low), x.dtype))
    if high is not None:
        x = c.e.binary("min", x, c.e.cast(c.value(high), x.dtype))
    return x


@op("Identity")
def identity(c, inputs, attrs):
    return inputs[0]


@op("Dropout")
def dropout(c, inputs, attrs):
    """Inference: the identity. training_mode must be a false constant,
    or the ratio a zero constant (nothing dropped: swin's attention in
    eval); the mask output, where used, is all true."""
    x = inputs[0]
    ratio = inputs[1] if len(inputs) > 1 else None
    training = inputs[2] if len(inputs) > 2 else None
    if training is not None:
        if not is_const(training):
            raise RLXError("Dropout with a training_mode computed by the "
                           "graph")
        if bool(np.asarray(training).reshape(-1)[0]) and not (
                ratio is not None and is_const(ratio) and
                float(np.asarray(ratio).reshape(-1)[0]) == 0.0):
            raise RLXError("Dropout in training mode (random)")
    if is_const(x):
        return x, np.ones(x.shape, bool)
    return x, c.e.constant(True, "i1", x.shape)


CAST_TYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16,
               6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16,
               11: np.float64}


@op("Cast")
def cast(c, inputs, attrs):
    (x,) = inputs
    from .._importer import rlx_type
    dtype = rlx_type(attrs["to"], "Cast's target")
    if is_const(x) and getattr(x, "initializer", None) is None:
        if x.dtype == object:
            if dtype != "i64":
                raise RLXError("a symbolic dim cast to another type")
            return x
        return np.asarray(x).astype(CAST_TYPES[attrs["to"]])
    return c.e.cast(c.value(x), dtype)


@op("CastLike")
def cast_like(c, inputs, attrs):
    x, like = inputs
    if is_const(x) and is_const(like):
        return np.asarray(x).astype(like.dtype)
    from ...torch._emitter import rlx_dtype
    dtype = like.dtype if not is_const(like) else rlx_dtype(like.dtype)
    return c.e.cast(c.value(x), dtype)


def _scalar_of(c, name):
    """The value of input `name` where it is a known single number."""
    value = c.env.get(name)
    producer = c.producers.get(name)
    if value is None and producer is not None and \
            producer.op_type == "Constant":
        # A Constant node after the one being matched.
        from onnx import helper
        attrs = {a.name: helper.get_attribute_value(a)
                 for a in producer.attribute}
        value = attrs.get("value_float", attrs.get("value_int"))
        value = np.asarray(value) if value is not None else \
            _tensor_value(attrs.get("value"))
    if not is_const(value) or np.asarray(value).size != 1:
        return None
    return float(np.asarray(value).reshape(-1)[0])


def _tensor_value(tensor):
    if tensor is None:
        return None
    from onnx import numpy_helper
    return numpy_helper.to_array(tensor)


def _other(node, name):
    """The operand of a binary node besides `name`, or None."""
    if list(node.input).count(name) != 1 or len(node.input) != 2:
        return None
    return node.input[1] if node.input[0] == name else node.input[0]


def _gelu_pattern(c, erf_index):
    """The exact GELU as exporters write it, x * 0.5 * (1 + erf(x / √2))
    in either association (torch.onnx's and BERT-style code's): (x, the
    node indices it spans after Erf, the final node). None when the graph
    around Erf is anything else."""
    erf = c.graph.node[erf_index]
    scaled = c.producers.get(erf.input[0])
    if scaled is None or scaled.op_type not in ("Div", "Mul"):
        return None
    x = scaled.input[0]
    factor = _scalar_of(c, scaled.input[1])
    want = np.sqrt(2.0) if scaled.op_type == "Div" else 1 / np.sqrt(2.0)
    if factor is None or abs(factor - want) > 1e-6 * want:
        return None

    def only_consumer(name, op_type):
        users = c.consumers.get(name, [])
        if len(users) != 1 or c.graph.node[users[0]].op_type != op_type:
            return None
        return users[0]
    add = only_consumer(erf.output[0], "Add")
    if add is None or _scalar_of(c, _other(c.graph.node[add],
                                           erf.output[0])) != 1.0:
        return None
    first = only_consumer(c.graph.node[add].output[0], "Mul")
    if first is None:
        return None
    other = _other(c.graph.node[first], c.graph.node[add].output[0])
    if other == x:
        # (x * (1 + erf)) * 0.5
        last = only_consumer(c.graph.node[first].output[0], "Mul")
        if last is None or _scalar_of(c, _other(
                c.graph.node[last], c.graph.node[first].output[0])) != 0.5:
            return None
        return x, (add, first, last), c.graph.node[last]
    half = c.producers.get(other)
    if half is not None and half.op_type == "Mul" and \
            _other(half, x) is not None and \
            _scalar_of(c, _other(half, x)) == 0.5:
        # (x * 0.5) * (1 + erf)
        return x, (add, first), c.graph.node[first]
    return None


@op("Erf")
def erf(c, inputs, attrs):
    """Only as part of the exact GELU (rlx.activation gelu); rlx has no
    erf of its own."""
    match = _gelu_pattern(c, c.node_index)
    if match is None:
        raise RLXError("Erf outside the exact GELU pattern x * 0.5 * (1 + "
                       "erf(x / sqrt(2))) (rlx has no erf op)")
    x, spanned, last = match
    c.skip.update(spanned)
    c.env[last.output[0]] = c.e.activation("gelu", c.value(c.env[x]))
    return NoValue("Erf's output inside a GELU")


def _exp_pair(sign):
    """sinh (sign -1) and cosh (sign 1): (exp(x) + sign * exp(-x)) / 2."""
    def handler(c, inputs, attrs):
        x = _float_value(c, inputs[0], "Sinh" if sign < 0 else "Cosh")
        up = c.e.activation("exp", x)
        down = c.e.activation("exp", c.e.activation("neg", x))
        pair = c.e.binary("add" if sign > 0 else "sub", up, down)
        return c.e.binary("mul", pair, c.scalar(0.5, x))
    return handler


OPS["Sinh"], OPS["Cosh"] = _exp_pair(-1), _exp_pair(1)


@op("IsNaN")
def is_nan(c, inputs, attrs):
    x = _float_value(c, inputs[0], "IsNaN")
    return c.e.compare("ne", x, x)


@op("IsInf")
def is_inf(c, inputs, attrs):
    x = _float_value(c, inputs[0], "IsInf")
    positive = c.e.compare("eq", x, c.scalar(float("inf"), x))
    negative = c.e.compare("eq", x, c.scalar(float("-inf"), x))
    false = c.e.constant(False, "i1")
    positive = positive if attrs.get("detect_positive", 1) else false
    negative = negative if attrs.get("detect_negative", 1) else false
    return c.e.where(positive, c.e.constant(True, "i1"), negative)


@op("Shrink")
def shrink(c, inputs, attrs):
    x = c.value(inputs[0])
    bias, lambd = attrs.get("bias", 0.0), attrs.get("lambd", 0.5)
    below = c.e.compare("lt", x, c.scalar(-lambd, x))
    above = c.e.compare("gt", x, c.scalar(lambd, x))
    zero = c.scalar(0, x)
    y = c.e.where(above, c.e.binary("sub", x, c.scalar(bias, x)), zero)
    return c.e.where(below, c.e.binary("add", x, c.scalar(bias, x)), y)


@op("Mod")
def mod(c, inputs, attrs):
    """`fmod` 1: the remainder with the dividend's sign (rlx.binary fmod);
    0 (integers only, as ONNX requires): the divisor's sign (remainder).
    Import-time values (shape arithmetic) are computed here."""
    a, b = inputs
    fmod = attrs.get("fmod", 0)
    if _all_const(inputs):
        a, b = numeric(np.asarray(a), "mod"), numeric(np.asarray(b), "mod")
        function = np.fmod if fmod else np.mod
        return function(a, b).astype(np.result_type(a.dtype, b.dtype))
    a, b = c.operands(a, b)
    if not fmod and a.dtype.startswith(("f", "bf")):
        raise RLXError(f"Mod with fmod 0 of {a.type} (ONNX allows it for "
                       "integers only)")
    return c.e.binary("fmod" if fmod else "remainder", a, b)
