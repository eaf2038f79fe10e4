# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.torch's losses (cross_entropy, nll_loss, mse_loss, l1_loss: the
functions, the modules and the aten ops make_fx traces them into) against
eager PyTorch on fresh random inputs (f32 within rtol 1e-5 and atol 1e-6):
every reduction, ignore_index among the targets, class weights, 4-d
scores, probability targets, unbatched; a classifier trained on
cross-entropy imported in bf16 mixed precision (make_fx; PyTorch's
autocast loss within 2e-2); rlx.grad through an imported cross-entropy
against torch.autograd; the variants that are refused.

Usage: torch-import-losses.py"""


import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import rlx
import rlx.torch
from pychecks import check, expect_error, finish, test_seed

seed = test_seed()
torch.manual_seed(seed)


class Loss(nn.Module):
    """A module around a loss function of (scores, target)."""

    def __init__(self, function):
        super().__init__()
        self.function = function

    def forward(self, x, t):
        return self.function(x, t)


class Traced(Loss):
    """Python control flow on *args: symbolic tracing fails and the
    importer traces with make_fx into aten ops (nll_loss_forward,
    mse_loss)."""

    def forward(self, *xs):
        if xs[0].shape[0] > 0:
            return self.function(*xs)
        return xs[0]


def compare(name, module, x, t, rtol=1e-5, atol=1e-6, **options):
    module = module.eval()
    try:
        text, params = rlx.torch.import_module(module, x, t, **options)
        graph = rlx.compile(text, params=params)
        names = [i.name for i in graph.inputs]
        got = graph(**dict(zip(names, (x.numpy(), t.numpy()))))
    except rlx.RLXError as error:
        check(False, f"{name}: {error}")
        return
    with torch.no_grad():
        want = module(x, t).double().numpy()
    got = np.asarray(got, np.float64)
    ok = got.shape == want.shape and np.allclose(got, want, rtol=rtol,
                                                 atol=atol)
    worst = float(np.max(np.abs(got - want), initial=0)) \
        if got.shape == want.shape else float("inf")
    check(ok, f"{name}: max abs err {worst:.2e} (rtol {rtol}, atol {atol})")


def both(name, function, x, t):
    """Through symbolic tracing and through make_fx (aten ops)."""
    compare(name, Loss(function), x, t)
    compare(name + " (aten)", Traced(function), x, t)


scores = torch.randn(8, 5) * 3
labels = torch.randint(0, 5, (8,))
ignored = labels.clone()
ignored[[1, 6]] = -100
for reduction in ("mean", "sum", "none"):
    both(f"cross_entropy {reduction}", lambda x, t, r=reduction:
         F.cross_entropy(x, t, reduction=r), scores, labels)
    both(f"cross_entropy {reduction}, ignore_index rows", lambda x, t,
         r=reduction: F.cross_entropy(x, t, reduction=r), scores, ignored)
    both(f"nll_loss {reduction} of log_softmax", lambda x, t, r=reduction:
         F.nll_loss(F.log_softmax(x, 1), t, reduction=r), scores, ignored)
    both(f"mse_loss {reduction}", lambda x, t, r=reduction:
         F.mse_loss(x, t, reduction=r), scores, torch.randn(8, 5))
    both(f"l1_loss {reduction}", lambda x, t, r=reduction:
         F.l1_loss(x, t, reduction=r), scores, torch.randn(8, 5))
both("cross_entropy ignore_index=2", lambda x, t: F.cross_entropy(
    x, t, ignore_index=2), scores, labels)
both("cross_entropy of probability targets", F.cross_entropy, scores,
     F.softmax(torch.randn(8, 5), 1))
both("cross_entropy unbatched", F.cross_entropy, scores[0], labels[0])

# Modules with class weights (registered buffers) over [N, C, H, W]
# scores at [N, H, W] targets (aten's nll_loss2d_forward through make_fx).
weight = torch.rand(5) + 0.5
pixels = torch.randn(2, 5, 3, 4)
targets = torch.randint(0, 5, (2, 3, 4))
targets[0, 1, 2] = -100
for reduction in ("mean", "sum"):
    compare(f"nn.CrossEntropyLoss(weight) {reduction}, 4-d",
            nn.CrossEntropyLoss(weight, reduction=reduction), pixels,
            targets)
    compare(f"nn.NLLLoss(weight) {reduction}, 4-d",
            nn.NLLLoss(weight, reduction=reduction), pixels, targets)
    compare(f"F.cross_entropy(weight) {reduction}, 4-d (aten)",
            Traced(lambda x, t, r=reduction: F.cross_entropy(
                x, t, weight, reduction=r)), pixels, targets)
compare("nn.MSELoss sum", nn.MSELoss(reduction="sum"), scores,
        torch.randn(8, 5))
compare("nn.L1Loss", nn.L1Loss(), scores, torch.randn(8, 5))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.GELU(),
                                  nn.Linear(32, 5))

    def forward(self, x, t):
        return F.cross_entropy(self.body(x), t)


# In bf16 mixed precision the importer traces with make_fx: the loss
# arrives as aten's nll_loss_forward of a log_softmax, kept in f32 as
# autocast keeps them; the linear layers compute in bf16 (about 3
# significant digits per product, so 2e-2 of a loss of about 1.6).
classifier = Classifier()
x16 = torch.randn(8, 16)
compare("cross-entropy classifier imported in bf16", classifier, x16,
        labels, rtol=2e-2, atol=2e-2, dtype="bf16")


def check_gradients(what, module, x, t):
    """rlx.grad of the imported scalar loss against torch.autograd, for
    every parameter (rtol 1e-4, atol 1e-6)."""
    module = module.eval()
    text, params = rlx.torch.import_module(module, x, t)
    graph = rlx.compile(text, params=params)
    names = [i.name for i in graph.inputs]
    results = rlx.grad(graph)(**dict(zip(names, (x.numpy(), t.numpy()))))
    module.zero_grad()
    module(x, t).backward()
    got = dict(zip([p.name for p in graph.params if p.kind == "param"],
                   results[1:]))
    want = {n: p.grad.numpy() for n, p in module.named_parameters()}
    worst = max(float(np.max(np.abs(got[n] - w))) for n, w in want.items()
                if n in got)
    check(sorted(got) == sorted(want) and all(
        np.allclose(got[n], w, rtol=1e-4, atol=1e-6)
        for n, w in want.items()),
        f"rlx.grad {what} matches torch.autograd (max abs err {worst:.2e})")


check_gradients("through cross_entropy (the fused op), ignored rows",
                Classifier(), x16, ignored)

smoothed = Loss(lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1))
expect_error(lambda: rlx.torch.import_module(smoothed.eval(), scores, labels),
             "cross_entropy with label_smoothing", "label smoothing")
expect_error(lambda: rlx.torch.import_module(
    Loss(F.mse_loss).eval(), scores, torch.randn(5)),
    "give both the same shape", "broadcasting mse_loss")
finish()
