# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Reductions, softmax and cumulative sums."""

import numpy as np

from ..._capi import RLXError
from ...torch._ops.reductions import arg_extreme, topk
from .common import axis_index, ints, is_const, op


def _axes(c, inputs, attrs, opset_with_input):
    """The reduced axes: the `axes` input (ReduceSum from opset 13; the
    others from 18) or attribute; None for all."""
    if c.opset >= opset_with_input:
        axes = inputs[1] if len(inputs) > 1 else None
        if axes is not None and not is_const(axes):
            raise RLXError("reduction axes computed by the graph")
        return ints(axes, "axes") if axes is not None else None
    return attrs.get("axes")


def _reduce(kind, opset_with_input=18, before=None, after=None):
    def handler(c, inputs, attrs):
        x = c.value(inputs[0])
        axes = _axes(c, inputs, attrs, opset_with_input)
        keepdims = bool(attrs.get("keepdims", 1))
        if not axes:
            if axes is not None and attrs.get("noop_with_empty_axes", 0):
                return x
            axes = list(range(x.rank))
        axes = sorted({axis_index(a, x.rank) for a in axes})
        if before is not None:
            x = before(c, x)
        if not axes or x.rank == 0:
            y = x
        else:
            y = c.e.reduce(kind, x, axes, keepdims)
        return after(c, y) if after is not None else y
    return handler


op("ReduceSum")(_reduce("sum", 13))
op("ReduceMean")(_reduce("mean"))
op("ReduceMax")(_reduce("max"))
op("ReduceMin")(_reduce("min"))
op("ReduceProd")(_reduce("prod"))
op("ReduceSumSquare")(_reduce(
    "sum", before=lambda c, x: c.e.binary("mul", x, x)))
op("ReduceL1")(_reduce("sum", before=lambda c, x: c.e.activation("abs", x)))
op("ReduceL2")(_reduce("sum", before=lambda c, x: c.e.binary("mul", x, x),
                       after=lambda c, y: c.e.activation("sqrt", y)))
op("ReduceLogSum")(_reduce("sum",
                           after=lambda c, y: c.e.activation("log", y)))


@op("ReduceLogSumExp")
def reduce_log_sum_exp(c, inputs, attrs):
    """max + log(sum(exp(x - max))): no overflow."""
    x = c.value(inputs[0])
    keep = dict(attrs, keepdims=1)
    high = OPS_REDUCE_MAX(c, [x] + list(inputs[1:]), keep)
    shifted = c.e.activation("exp", c.e.binary("sub", x, high))
    total = _reduce("sum")(c, [shifted] + list(inputs[1:]), keep)
    y = c.e.binary("add", c.e.activation("log", total), high)
    if attrs.get("keepdims", 1):
        return y
    axes = _axes(c, inputs, attrs, 18)
    axes = range(x.rank) if not axes else [axis_index(a, x.rank)
                                           for a in axes]
    return c.e.reshape(y, [d for i, d in enumerate(y.shape)
                           if i not in set(axes)])


OPS_REDUCE_MAX = _reduce("max")


@op("Softmax")
def softmax(c, inputs, attrs):
    x = c.value(inputs[0])
    return c.e.softmax(x, axis_index(attrs.get("axis", -1), x.rank))


@op("LogSoftmax")
def log_softmax(c, inputs, attrs):
    """x - max - log(sum(exp(x - max))) along the axis (no log of a
    softmax that underflowed to 0)."""
    x = c.value(inputs[0])
    axis = axis_index(attrs.get("axis", -1), x.rank)
    high = c.e.reduce("max", x, [axis], True)
    shifted = c.e.binary("sub", x, high)
    total = c.e.reduce("sum", c.e.activation("exp", shifted), [axis], True)
    return c.e.binary("sub", shifted, c.e.activation("log", total))


@op("CumSum")
def cumsum(c, inputs, attrs):
    x, axis = c.value(inputs[0]), inputs[1]
    if not is_const(axis):
        raise RLXError("CumSum's axis computed by the graph")
    if attrs.get("exclusive", 0) or attrs.get("reverse", 0):
        raise RLXError("CumSum with exclusive or reverse")
    return c.e.cumsum(x, axis_index(int(np.asarray(axis).reshape(-1)[0]),
                                    x.rank))


@op("MeanVarianceNormalization")
def mean_variance_normalization(c, inputs, attrs):
    """(x - mean) / sqrt(variance) over `axes` (default N, H, W); no
    epsilon, as ONNX defines it."""
    x = c.value(inputs[0])
    axes = [axis_index(a, x.rank) for a in attrs.get("axes", [0, 2, 3])]
    mean = c.e.reduce("mean", x, axes, True)
    centered = c.e.binary("sub", x, mean)
    variance = c.e.reduce("mean", c.e.binary("mul", centered, centered),
                          axes, True)
    return c.e.binary("div", centered, c.e.activation("sqrt", variance))


def _arg(kind):
    """ArgMax / ArgMin: the first position of the extreme along `axis`
    (rlx.top_k k=1, as the torch importer's argmax); select_last_index 1
    is refused."""
    def handler(c, inputs, attrs):
        if attrs.get("select_last_index", 0):
            raise RLXError(f"Arg{kind.capitalize()} with select_last_index "
                           "1 is not translated")
        x = c.value(inputs[0])
        return arg_extreme(c, x, kind, attrs.get("axis", 0),
                           bool(attrs.get("keepdims", 1)))[1]
    return handler


op("ArgMax")(_arg("max"))
op("ArgMin")(_arg("min"))


@op("TopK")
def top_k(c, inputs, attrs):
    """The K largest (largest 1) or smallest elements along `axis`, sorted
    (also for sorted 0, which leaves the order to the runtime), ties to
    the smaller index: the torch importer's topk (one rlx.top_k). K must
    be known at import time."""
    x, k = c.value(inputs[0]), inputs[1]
    if not is_const(k):
        raise RLXError("TopK's K computed by the graph")
    k = ints(k, "K")[0]
    return topk(c, x, k, attrs.get("axis", -1),
                bool(attrs.get("largest", 1)))
