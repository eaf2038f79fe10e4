# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Dynamic shapes at run time: dynamic.py SCRATCH_DIR.

One compiled graph with `?` batch and sequence dims runs at several sizes
(attention-like block: matmul + bias, narrow, transpose, batched matmul,
softmax, residual, layer_norm, rms_norm, concat, mean, gelu); a `?` batch
graph with reshape -1 runs through BLAS; an ahead-of-time library runs at
two sizes. f32 results match NumPy in f64 within rtol 1e-4, atol 1e-5
(sums of up to 33 products and a softmax/normalisation of them). Seeded by
RLX_TEST_SEED (random when unset; printed)."""

import math
import os
import sys

import numpy as np

import rlx
from pychecks import check, expect_error, finish, test_seed

scratch = sys.argv[1]
seed = test_seed()
rng = np.random.default_rng(seed)


def close(got, want, what, rtol=1e-4, atol=1e-5):
    ok = got.shape == want.shape and np.allclose(got, want, rtol, atol)
    err = (np.max(np.abs(got - want)) if got.shape == want.shape
           else float("nan"))
    check(ok, f"{what}: shape {got.shape} vs {want.shape}, max |err| {err:.3g}")


BLOCK = """
func.func @block(%x: tensor<?x?x32xf32> {rlx.input = "x"},
                 %qkv_w: tensor<32x96xf32> {rlx.param = "qkv_w"},
                 %qkv_b: tensor<96xf32> {rlx.param = "qkv_b"},
                 %g: tensor<32xf32> {rlx.param = "g"},
                 %b: tensor<32xf32> {rlx.param = "b"})
    -> (tensor<?x?x32xf32>, tensor<?x?x64xf32>, tensor<?x32xf32>) {
  %qkv0 = rlx.matmul %x, %qkv_w : tensor<?x?x32xf32>, tensor<32x96xf32>
  %qkv = rlx.binary add %qkv0, %qkv_b : tensor<?x?x96xf32>, tensor<96xf32>
  %q = rlx.narrow %qkv axis = 2 start = 0 len = 32 : tensor<?x?x96xf32>
  %k = rlx.narrow %qkv axis = 2 start = 32 len = 32 : tensor<?x?x96xf32>
  %v = rlx.narrow %qkv axis = 2 start = 64 len = 32 : tensor<?x?x96xf32>
  %kt = rlx.transpose %k perm = [0, 2, 1] : tensor<?x?x32xf32>
  %s = rlx.matmul %q, %kt : tensor<?x?x32xf32>, tensor<?x32x?xf32>
  %p = rlx.softmax %s {axis = -1 : i64} : tensor<?x?x?xf32>
  %a = rlx.matmul %p, %v : tensor<?x?x?xf32>, tensor<?x?x32xf32>
  %r = rlx.binary add %x, %a : tensor<?x?x32xf32>, tensor<?x?x32xf32>
  %y = rlx.layer_norm %r, %g, %b {axis = -1 : i64, eps = 1.0e-5 : f32}
      : tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>
  %y2 = rlx.rms_norm %k, %g, %b {axis = -1 : i64, eps = 1.0e-6 : f32}
      : tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>
  %c = rlx.concat %y, %y2 axis = 2 : tensor<?x?x32xf32>, tensor<?x?x32xf32>
  %m = rlx.reduce mean %y axes = [1] : tensor<?x?x32xf32>
  %ge = rlx.activation gelu %c : tensor<?x?x64xf32>
  return %y, %ge, %m : tensor<?x?x32xf32>, tensor<?x?x64xf32>, tensor<?x32xf32>
}
"""

params = {"qkv_w": rng.standard_normal((32, 96)).astype(np.float32) * 0.2,
          "qkv_b": rng.standard_normal(96).astype(np.float32) * 0.1,
          "g": rng.uniform(0.5, 1.5, 32).astype(np.float32),
          "b": rng.standard_normal(32).astype(np.float32) * 0.1}


def block_reference(x):
    p = {k: v.astype(np.float64) for k, v in params.items()}
    x = x.astype(np.float64)
    qkv = x @ p["qkv_w"] + p["qkv_b"]
    q, k, v = qkv[..., :32], qkv[..., 32:64], qkv[..., 64:]
    s = q @ k.transpose(0, 2, 1)
    e = np.exp(s - s.max(-1, keepdims=True))
    a = (e / e.sum(-1, keepdims=True)) @ v
    r = x + a
    mu = r.mean(-1, keepdims=True)
    var = ((r - mu) ** 2).mean(-1, keepdims=True)
    y = (r - mu) / np.sqrt(var + 1e-5) * p["g"] + p["b"]
    y2 = k / np.sqrt((k ** 2).mean(-1, keepdims=True) + 1e-6) * p["g"] + p["b"]
    c = np.concatenate([y, y2], axis=2)
    erf = np.vectorize(math.erf)
    ge = 0.5 * c * (1 + erf(c / math.sqrt(2)))
    return y, ge, y.mean(1)


graph = rlx.compile(BLOCK, params=params)
check(graph.is_dynamic, "the block graph is dynamic")
check(graph.arguments[0].shape == (None, None, 32),
      f"the signature's ? dims read as None: {graph.arguments[0].shape}")
for batch, seq in [(1, 1), (3, 5), (17, 7), (2, 33)]:
    x = rng.standard_normal((batch, seq, 32)).astype(np.float32)
    got = graph(x=x)
    for name, g, w in zip(["layer_norm", "gelu(concat)", "mean"], got,
                          block_reference(x)):
        close(g, w, f"block B={batch} S={seq} {name}")

# A `?` batch with static sequence: reshape -1 into heads, transpose back,
# the GEMM through BLAS.
BATCH = """
func.func @heads(%x: tensor<?x16x32xf32> {rlx.input = "x"},
                 %w: tensor<32x32xf32> {rlx.param = "w"}) -> tensor<?x16x32xf32> {
  %h = rlx.matmul %x, %w : tensor<?x16x32xf32>, tensor<32x32xf32>
  %r = rlx.reshape %h new_shape = [-1, 16, 4, 8] : tensor<?x16x32xf32>
  %t = rlx.transpose %r perm = [0, 2, 1, 3] : tensor<?x16x4x8xf32>
  %e = rlx.activation exp %t : tensor<?x4x16x8xf32>
  %u = rlx.transpose %e perm = [0, 2, 1, 3] : tensor<?x4x16x8xf32>
  %o = rlx.reshape %u new_shape = [-1, 16, 32] : tensor<?x16x4x8xf32>
  return %o : tensor<?x16x32xf32>
}
"""
w = rng.standard_normal((32, 32)).astype(np.float32) * 0.1
heads = rlx.compile(BATCH, params={"w": w})
for batch in [1, 3, 17]:
    x = rng.standard_normal((batch, 16, 32)).astype(np.float32)
    close(heads(x=x), np.exp(x.astype(np.float64) @ w), f"heads B={batch}")

# Ahead of time: one library, two sizes.
library = os.path.join(scratch, "heads.so")
heads.save(library)
loaded = rlx.load(library, params={"w": w})
for batch in [2, 5]:
    x = rng.standard_normal((batch, 16, 32)).astype(np.float32)
    close(loaded(x=x), np.exp(x.astype(np.float64) @ w),
          f"loaded library B={batch}")

# Sizes that contradict each other or the static dims.
ADD = """
func.func @add(%x: tensor<?x4xf32> {rlx.input = "x"},
               %y: tensor<?x4xf32> {rlx.input = "y"}) -> tensor<?x4xf32> {
  %0 = rlx.binary add %x, %y : tensor<?x4xf32>, tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
"""
add = rlx.compile(ADD)
a3 = rng.standard_normal((3, 4)).astype(np.float32)
close(add(x=a3, y=a3), 2 * a3.astype(np.float64), "add 3 rows")
expect_error(lambda: add(x=a3, y=np.ones((5, 4), np.float32)),
             "shape mismatch in 'rlx.binary'", "add of 3 and 5 rows")
expect_error(lambda: add(x=a3, y=np.ones((1, 4), np.float32)),
             "never broadcast", "a ? dim of 1 does not broadcast")
expect_error(lambda: add(x=np.ones((3, 5), np.float32), y=a3),
             "'x' of @add is [?, 4] f32", "a static dim that differs")
expect_error(lambda: heads(x=np.ones((2, 8, 32), np.float32)),
             "'x' of @heads is [?, 16, 32] f32", "heads with S=8")
MM = """
func.func @mm(%x: tensor<?x?xf32> {rlx.input = "x"},
              %w: tensor<?x8xf32> {rlx.input = "w"}) -> tensor<?x8xf32> {
  %0 = rlx.matmul %x, %w : tensor<?x?xf32>, tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
"""
mm = rlx.compile(MM)
expect_error(lambda: mm(x=np.ones((3, 5), np.float32),
                        w=np.ones((6, 8), np.float32)),
             "the rhs's K (dim 0) differs from the lhs's K", "matmul K")
RESHAPE = """
func.func @r(%x: tensor<?x4xf32> {rlx.input = "x"}) -> tensor<2x4xf32> {
  %0 = rlx.reshape %x new_shape = [2, 4] : tensor<?x4xf32>
  return %0 : tensor<2x4xf32>
}
"""
reshape = rlx.compile(RESHAPE)
close(reshape(x=a3[:2]), a3[:2].astype(np.float64), "reshape ?x4 -> 2x4")
expect_error(lambda: reshape(x=a3), "element count differs from the 8",
             "reshape of 3 rows to [2, 4]")
# The graph still runs after a failed check.
close(add(x=a3, y=a3), 2 * a3.astype(np.float64), "add after an error")

finish(f" (seed {seed})")
