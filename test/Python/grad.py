# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.grad against torch.autograd on a softmax cross-entropy MLP."""

import numpy as np
import torch

import rlx
from pychecks import check, finish


LOSS = """
func.func @mlp(%x: tensor<16x8xf32> {rlx.input = "x"},
               %labels: tensor<16xi64> {rlx.input = "labels"},
               %w1: tensor<8x32xf32> {rlx.param = "w1"},
               %b1: tensor<32xf32> {rlx.param = "b1"},
               %w2: tensor<32x4xf32> {rlx.param = "w2"},
               %b2: tensor<4xf32> {rlx.param = "b2"}) -> tensor<f32> {
  %h0 = rlx.matmul %x, %w1 : tensor<16x8xf32>, tensor<8x32xf32>
  %h1 = rlx.binary add %h0, %b1 : tensor<16x32xf32>, tensor<32xf32>
  %h = rlx.activation tanh %h1 : tensor<16x32xf32>
  %z0 = rlx.matmul %h, %w2 : tensor<16x32xf32>, tensor<32x4xf32>
  %z = rlx.binary add %z0, %b2 : tensor<16x4xf32>, tensor<4xf32>
  %l = rlx.softmax_cross_entropy_with_logits %z, %labels
         : tensor<16x4xf32>, tensor<16xi64>
  %loss = rlx.reduce mean %l axes = [0] : tensor<16xf32>
  return %loss : tensor<f32>
}
"""

rng = np.random.default_rng(7)
params = {"w1": rng.standard_normal((8, 32)).astype(np.float32) * 0.5,
          "b1": rng.standard_normal(32).astype(np.float32) * 0.1,
          "w2": rng.standard_normal((32, 4)).astype(np.float32) * 0.5,
          "b2": rng.standard_normal(4).astype(np.float32) * 0.1}
x = rng.standard_normal((16, 8)).astype(np.float32)
labels = rng.integers(0, 4, 16).astype(np.int64)

tensors = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
xt = torch.tensor(x, requires_grad=True)
z = torch.tanh(xt @ tensors["w1"] + tensors["b1"]) @ tensors["w2"] + \
    tensors["b2"]
loss = torch.nn.functional.cross_entropy(z, torch.tensor(labels))
loss.backward()

# From a compiled graph: its parameters carry over; default wrt = params.
forward = rlx.compile(LOSS, params=params)
g = rlx.grad(forward)
check(g.name == "mlp_grad", f"name {g.name}")
check([t.name for t in g.outputs] == [f"output_{i}" for i in range(5)],
      "loss and four gradients")
results = g(x=x, labels=labels)
check(abs(float(results[0]) - loss.item()) <= 1e-5 * abs(loss.item()),
      f"loss {float(results[0])} vs torch {loss.item()}")
for name, value in zip(["w1", "b1", "w2", "b2"], results[1:]):
    reference = tensors[name].grad.numpy()
    error = np.max(np.abs(value - reference))
    check(np.allclose(value, reference, rtol=1e-5, atol=1e-6),
          f"d loss / d {name} (max abs err {error:.2e})")

# From text, wrt an input and one parameter, in wrt order.
g2 = rlx.grad(LOSS, wrt=["x", "b2"], params=params)
loss2, dx, db2 = g2(x=x, labels=labels)
check(np.allclose(dx, xt.grad.numpy(), rtol=1e-5, atol=1e-6),
      f"d loss / d x (max abs err {np.max(np.abs(dx - xt.grad.numpy())):.2e})")
check(np.allclose(db2, tensors["b2"].grad.numpy(), rtol=1e-5, atol=1e-6),
      "d loss / d b2, wrt order")

try:
    rlx.grad(LOSS, wrt=["nope"])
    check(False, "unknown wrt raises")
except rlx.RLXError as error:
    check("nope" in str(error), f"unknown wrt names it: {error}")

# where's documented gradient contract (docs/ops/ElementwiseOps.md): the
# untaken branch is differentiated too, so sqrt's inf derivative at x <= 0
# makes the gradient NaN there, as torch.where's; the safe idiom (the
# untaken branch's input kept in its domain) gives finite gradients equal to
# torch's.
WHERE = """
func.func @f(%x: tensor<64xf32> {rlx.param = "x"}) -> tensor<f32> {
  %zero = rlx.constant dense<0.0> : tensor<f32>
  %one = rlx.constant dense<1.0> : tensor<f32>
  %pos = rlx.compare gt %x, %zero : tensor<64xf32>, tensor<f32>
  %in = rlx.where %pos, %x, SAFE : tensor<64xi1>, tensor<64xf32>, TYPE
  %r = rlx.activation sqrt %in : tensor<64xf32>
  %y = rlx.where %pos, %r, %zero : tensor<64xi1>, tensor<64xf32>, tensor<f32>
  %l = rlx.reduce sum %y axes = [0] : tensor<64xf32>
  return %l : tensor<f32>
}
"""
xs = rng.uniform(-1, 1, 64).astype(np.float32)
xs[0], xs[1] = -0.5, 0.25  # both branches taken somewhere
for safe in (False, True):
    # Unsafe: where(pos, x, x) folds to x, so sqrt sees x <= 0.
    text = WHERE.replace("SAFE", "%one" if safe else "%x").replace(
        "TYPE", "tensor<f32>" if safe else "tensor<64xf32>")
    (_, dx) = rlx.grad(text, params={"x": xs})()
    xt = torch.tensor(xs, requires_grad=True)
    inner = torch.where(xt > 0, xt, torch.ones(())) if safe else xt
    torch.where(xt > 0, torch.sqrt(inner), torch.zeros(())).sum().backward()
    want = xt.grad.numpy()
    label = "safe idiom" if safe else "untaken sqrt branch"
    check(np.array_equal(np.isnan(dx), np.isnan(want)) and
          np.allclose(dx[~np.isnan(want)], want[~np.isnan(want)],
                      rtol=1e-5, atol=1e-6),
          f"where gradient, {label}: NaN where torch.where's is "
          f"({int(np.isnan(dx).sum())} of 64)")
    check(np.isnan(want).any() != safe,
          f"where gradient, {label}: torch's reference "
          f"{'finite' if safe else 'has NaN'}")

finish()
