# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: the picked
log-probabilities (an rlx.gather, as torch.gather's translation), their
class weights, the ignored targets masked by rlx.where, and the reduction
by rlx.reduce; SoftmaxCrossEntropyLoss's log-probabilities are
LogSoftmax's."""

from ..._capi import RLXError
from ...torch._ops import indexing as torch_indexing
from .common import op
from .reductions import log_softmax


def _nll(c, x, target, weight, attrs):
    """ONNX's NegativeLogLikelihoodLoss of x [N, C, d...] (log-
    probabilities) at target [N, d...]: loss = -x[n, t, d...] * w[t], 0
    where t is ignore_index; mean divides the sum by the sum of the
    weights of the targets not ignored."""
    if x.rank < 2 or target.shape != x.shape[:1] + x.shape[2:]:
        raise RLXError(f"a loss of input {list(x.shape)} at target "
                       f"{list(target.shape)}")
    reduction = attrs.get("reduction", "mean")
    if reduction not in ("none", "sum", "mean"):
        raise RLXError(f"reduction {reduction}")
    target = c.e.cast(target, "i64")
    ignore = attrs.get("ignore_index")
    kept = None
    if ignore is not None:
        kept = c.e.compare("ne", target, c.e.constant(int(ignore), "i64"))
        # An ignored target may be outside [0, C): read class 0 instead.
        target = c.e.where(kept, target, c.e.constant(0, "i64"))
    picked = torch_indexing.gather(c, x, 1, c.e.reshape(
        target, target.shape[:1] + (1,) + target.shape[1:]))
    loss = c.e.activation("neg", c.e.reshape(picked, target.shape))
    scale = c.e.gather(c.value(weight), target, 0) if weight is not None \
        else None
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


@op("NegativeLogLikelihoodLoss")
def negative_log_likelihood_loss(c, inputs, attrs):
    weight = inputs[2] if len(inputs) > 2 else None
    return _nll(c, c.value(inputs[0]), c.value(inputs[1]), weight, attrs)


@op("SoftmaxCrossEntropyLoss")
def softmax_cross_entropy_loss(c, inputs, attrs):
    """NegativeLogLikelihoodLoss of LogSoftmax over axis 1; the second
    output, where the node has one, is the log-probabilities."""
    scores = c.value(inputs[0])
    log_prob = log_softmax(c, [scores], {"axis": 1})
    weight = inputs[2] if len(inputs) > 2 else None
    loss = _nll(c, log_prob, c.value(inputs[1]), weight, attrs)
    return (loss, log_prob) if c.outputs > 1 else loss
