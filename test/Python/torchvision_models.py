# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Imports a torchvision classifier (random weights, nothing downloaded)
with rlx.torch, compiles and runs it, and compares the logits with eager
PyTorch in eval mode (f32, batch 1, 224x224).

Batch norm would be the identity with torchvision's initial statistics
(mean 0, variance 1, weight 1, bias 0), which leaves its translation
untested, and mobilenet_v2's logits would then be ~1e-8: so the affine
parameters are drawn at random and the running statistics are calibrated
on a random batch in training mode (cumulative average) before switching to
eval. The activations then stay near unit scale through the network.

Tolerance: every logit within 1e-4 of the largest |logit| (relative to the
output's scale; a 20- or 50-layer chain of convolutions accumulates in a
different order than PyTorch's, measured at about 5e-6 of it), plus 1e-4
relative elementwise. Fresh random weights and inputs on each run; the seed
is printed, RLX_TEST_SEED=<seed> replays it.

Usage: torchvision_models.py MODEL (resnet18, mobilenet_v2)
"""

import os
import sys

import numpy as np
import torch
import torchvision

import rlx
import rlx.torch

name = sys.argv[1]
seed = int(os.environ.get("RLX_TEST_SEED", "0")) or int.from_bytes(
    os.urandom(4), "little")
print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
torch.manual_seed(seed)

model = getattr(torchvision.models, name)(weights=None)
norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
assert norms, f"{name} has no BatchNorm2d"
for norm in norms:
    norm.momentum = None  # cumulative average over the calibration batch
    norm.weight.data.uniform_(0.5, 1.5)
    norm.bias.data.uniform_(-0.2, 0.2)
model.train()
with torch.no_grad():
    model(torch.randn(4, 3, 224, 224))
model.eval()

x = torch.randn(1, 3, 224, 224)
mlir, params = rlx.torch.import_module(model, x)
# Every state_dict tensor the forward pass reads is a parameter, by name.
state = model.state_dict()
missing = [n for n in state if n not in params and
           not n.endswith("num_batches_tracked")]
graph = rlx.compile(mlir, params=params)
got = graph(x=x.numpy())
with torch.no_grad():
    want = model(x).numpy()

scale = float(np.max(np.abs(want)))
error = float(np.max(np.abs(got - want)))
failures = []
if missing:
    failures.append(f"state_dict tensors not imported as params: {missing}")
if got.shape != want.shape or got.dtype != np.float32:
    failures.append(f"output {got.shape} {got.dtype}, expected "
                    f"{want.shape} float32")
elif not np.allclose(got, want, rtol=1e-4, atol=1e-4 * scale):
    failures.append(f"max abs error {error:.3e} exceeds 1e-4 of the "
                    f"output scale {scale:.3e}")
if scale < 1e-2:
    failures.append(f"degenerate logits (max |logit| {scale:.3e})")
print(f"{name}: {len(params)} params, {sum(1 for _ in graph.params)} bound, "
      f"max |logit| {scale:.3f}, max abs error {error:.2e} "
      f"({error / scale:.1e} of the scale)")
for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
