# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: the picked
log-probabilities (an rlx.gather, as torch.gather's translation), their
class weights, the ignored targets masked by rlx.where, and the reduction
by rlx.reduce; SoftmaxCrossEntropyLoss's log-probabilities are
LogSoftmax's."""

from ..._capi import RLXError
from ...torch._ops import losses as torch_losses
from .common import op
from .reductions import log_softmax


def _nll(c, x, target, weight, attrs):
    """ONNX's NegativeLogLikelihoodLoss: PyTorch's nll_loss (rlx.torch's
    translation), with ignore_index only where the node has one."""
    reduction = attrs.get("reduction", "mean")
    if reduction not in ("none", "sum", "mean"):
        raise RLXError(f"reduction {reduction}")
    return torch_losses.nll(c, x, target,
                            c.value(weight) if weight is not None else None,
                            reduction, attrs.get("ignore_index"))


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
