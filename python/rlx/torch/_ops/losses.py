# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Losses: cross_entropy, nll_loss, mse_loss and l1_loss (functions,
modules and the aten ops make_fx traces them into). Cross-entropy of
[N, C] scores at class indices without class weights or label smoothing is
the dialect's fused rlx.softmax_cross_entropy_with_logits (its gradient is
its own op); every other form is log_softmax followed by nll_loss, which
picks the targets' log-probabilities (an rlx.gather, as torch.gather's
translation), weights them, masks ignore_index by rlx.where and reduces."""

import torch.nn as nn
import torch.nn.functional as F

from ..._capi import RLXError
from . import indexing
from .common import ATEN, FUNCTIONS, MODULES, NoIndices
from .reductions import log_softmax

# aten's reduction codes (at::Reduction).
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(reduction, size_average=None, reduce=None):
    """The reduction, from its name or aten's code; the legacy
    size_average/reduce flags are refused as PyTorch deprecates them."""
    if size_average is not None or reduce is not None:
        raise RLXError("a loss with the legacy size_average/reduce "
                       "arguments: use reduction=")
    reduction = _REDUCTIONS.get(reduction, reduction)
    if reduction not in ("none", "sum", "mean"):
        raise RLXError(f"a loss with reduction {reduction!r}")
    return reduction


def nll(c, x, target, weight=None, reduction="mean", ignore_index=None):
    """The negative log-likelihood of log-probabilities x [N, C, d...] at
    class indices target [N, d...] (or x [C] at a scalar target): loss =
    -x[n, t, d...] * weight[t], 0 where t is ignore_index; "mean" divides
    the sum by the sum of the weights of the targets not ignored, as
    PyTorch's nll_loss and ONNX's NegativeLogLikelihoodLoss do."""
    if x.rank == 1 and target.rank == 0:
        x = c.e.reshape(x, (1,) + x.shape)
        target = c.e.reshape(target, (1,))
    if x.rank < 2 or target.shape != x.shape[:1] + x.shape[2:]:
        raise RLXError(f"a loss of input {list(x.shape)} at target "
                       f"{list(target.shape)}")
    target = c.e.cast(target, "i64")
    kept = None
    if ignore_index is not None:
        kept = c.e.compare("ne", target,
                           c.e.constant(int(ignore_index), "i64"))
        # An ignored target may be outside [0, C): read class 0 instead.
        target = c.e.where(kept, target, c.e.constant(0, "i64"))
    picked = indexing.gather(c, x, 1, c.e.reshape(
        target, target.shape[:1] + (1,) + target.shape[1:]))
    loss = c.e.activation("neg", c.e.reshape(picked, target.shape))
    scale = c.e.gather(weight, target, 0) if weight is not None else None
    if kept is not None:
        ones = c.e.constant(1.0, x.dtype, target.shape)
        scale = c.e.where(kept, scale if scale is not None else ones,
                          c.e.constant(0.0, x.dtype))
    if scale is not None:
        loss = c.e.binary("mul", loss, scale)
    if reduction == "none":
        return loss
    axes = list(range(loss.rank))
    total = c.e.reduce("sum", loss, axes)
    if reduction == "sum":
        return total
    if scale is None:
        return c.e.reduce("mean", loss, axes)
    return c.e.binary("div", total, c.e.reduce("sum", scale, axes))


def nll_loss(c, x, target, weight=None, size_average=None, ignore_index=-100,
             reduce=None, reduction="mean"):
    return nll(c, x, target, weight,
               _reduction(reduction, size_average, reduce), ignore_index)


def cross_entropy(c, x, target, weight=None, size_average=None,
                  ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    reduction = _reduction(reduction, size_average, reduce)
    if label_smoothing:
        raise RLXError("cross_entropy with label_smoothing")
    if target.dtype in ("f16", "bf16", "f32", "f64"):
        # Class probabilities: -sum_c target * log_softmax, per sample.
        if target.shape != x.shape or weight is not None:
            raise RLXError("cross_entropy with probability targets of "
                           f"{list(target.shape)} for input {list(x.shape)}"
                           + (" and class weights" if weight is not None
                              else ""))
        axis = 1 if x.rank > 1 else 0
        loss = c.e.activation("neg", c.e.reduce("sum", c.e.binary(
            "mul", target, log_softmax(c, x, axis)), [axis]))
        if reduction == "none":
            return loss
        return c.e.reduce(reduction, loss, list(range(loss.rank)))
    if x.rank == 2 and weight is None and \
            not 0 <= int(ignore_index) < x.shape[1]:
        # The fused op: a label outside [0, C) (ignore_index among them)
        # contributes 0; the mean is over the rows not ignored.
        loss = c.e.softmax_cross_entropy_with_logits(
            x, c.e.cast(target, "i64"))
        if reduction == "none":
            return loss
        total = c.e.reduce("sum", loss, [0])
        if reduction == "sum":
            return total
        kept = c.e.compare("ne", c.e.cast(target, "i64"),
                           c.e.constant(int(ignore_index), "i64"))
        count = c.e.reduce("sum", c.e.cast(kept, x.dtype), [0])
        return c.e.binary("div", total, count)
    return nll(c, log_softmax(c, x, 1 if x.rank > 1 else 0), target, weight,
               reduction, ignore_index)


def _pointwise_loss(kind):
    """mse_loss and l1_loss: the elementwise error, reduced."""
    def handler(c, x, target, size_average=None, reduce=None,
                reduction="mean"):
        reduction = _reduction(reduction, size_average, reduce)
        if x.shape != target.shape:
            raise RLXError(f"{kind} of {list(x.shape)} against "
                           f"{list(target.shape)}: PyTorch broadcasts with "
                           "a warning; give both the same shape")
        diff = c.e.binary("sub", x, target)
        error = c.e.binary("mul", diff, diff) if kind == "mse_loss" \
            else c.e.activation("abs", diff)
        if reduction == "none":
            return error
        return c.e.reduce(reduction, error, list(range(error.rank)))
    return handler


mse_loss = _pointwise_loss("mse_loss")
l1_loss = _pointwise_loss("l1_loss")


def _aten_nll_forward(c, x, target, weight, reduction, ignore_index):
    """aten.nll_loss_forward / nll_loss2d_forward: (loss, total_weight);
    the total weight is what its backward divides by, unused here."""
    return nll(c, x, target, weight, _reduction(reduction),
               ignore_index), NoIndices()


FUNCTIONS[F.cross_entropy] = cross_entropy
FUNCTIONS[F.nll_loss] = nll_loss
FUNCTIONS[F.mse_loss] = mse_loss
FUNCTIONS[F.l1_loss] = l1_loss
MODULES[nn.CrossEntropyLoss] = lambda c, m, p, x, t: cross_entropy(
    c, x, t, c.param(p + ".weight") if m.weight is not None else None,
    ignore_index=m.ignore_index, reduction=m.reduction,
    label_smoothing=m.label_smoothing)
MODULES[nn.NLLLoss] = lambda c, m, p, x, t: nll_loss(
    c, x, t, c.param(p + ".weight") if m.weight is not None else None,
    ignore_index=m.ignore_index, reduction=m.reduction)
MODULES[nn.MSELoss] = lambda c, m, p, x, t: mse_loss(
    c, x, t, reduction=m.reduction)
MODULES[nn.L1Loss] = lambda c, m, p, x, t: l1_loss(
    c, x, t, reduction=m.reduction)
ATEN["aten.nll_loss_forward.default"] = _aten_nll_forward
ATEN["aten.nll_loss2d_forward.default"] = _aten_nll_forward
ATEN["aten.mse_loss.default"] = lambda c, x, t, reduction=1: mse_loss(
    c, x, t, reduction=reduction)
