# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.dequant_matmul with `?` dims: the packed weight's and the scales'
sizes are checked against the sizes bound at run time, before anything
reads them. A short buffer had been read past its end (wrong numbers) and
a GGUF K of 0 had been divided by (SIGFPE)."""

import numpy as np

import rlx
from pychecks import check, expect_error, finish

# K = 64 static, the weight's and scale's rows `?`: lowered through the
# whole-weight path, which checks them.
ROWS = """
func.func @f(%x: tensor<2x64xf32> {rlx.input = "x"},
             %w: tensor<?x8xi8> {rlx.input = "w"},
             %s: tensor<?x8xf32> {rlx.input = "s"},
             %z: tensor<?x8xf32> {rlx.input = "z"}) -> tensor<2x8xf32> {
  %0 = rlx.dequant_matmul int8_block_asym block_size = 32 %x, %w
      scale %s : tensor<?x8xf32> zero_point %z : tensor<?x8xf32>
      : tensor<2x64xf32>, tensor<?x8xi8>
  return %0 : tensor<2x8xf32>
}
"""
# Every size `?`.
ALL = """
func.func @h(%x: tensor<2x?xf32> {rlx.input = "x"},
             %w: tensor<?x?xi8> {rlx.input = "w"},
             %s: tensor<?x?xf32> {rlx.input = "s"}) -> tensor<2x?xf32> {
  %0 = rlx.dequant_matmul int8_block block_size = 32 %x, %w
      scale %s : tensor<?x?xf32> : tensor<2x?xf32>, tensor<?x?xi8>
  return %0 : tensor<2x?xf32>
}
"""
# GGUF q8_0: K and the byte count `?`, N their quotient.
GGUF = """
func.func @g(%x: tensor<2x?xf32> {rlx.input = "x"},
             %w: tensor<?xui8> {rlx.input = "w"}) -> tensor<2x?xf32> {
  %0 = rlx.dequant_matmul gguf_q8_0 %x, %w : tensor<2x?xf32>, tensor<?xui8>
  return %0 : tensor<2x?xf32>
}
"""

rng = np.random.default_rng(0)
x = rng.standard_normal((2, 64)).astype(np.float32)


def reference(x, w, s, z=None, block=32):
    scale = np.repeat(s, block, axis=0)[: w.shape[0]]
    zero = 0 if z is None else np.repeat(z, block, axis=0)[: w.shape[0]]
    return x @ ((w.astype(np.float32) - zero) * scale)


def close(got, want, what):
    check(got.shape == want.shape and np.allclose(got, want, rtol=1e-5,
                                                  atol=1e-4), what)


w = rng.integers(-8, 8, (64, 8)).astype(np.int8)
s = rng.uniform(0.5, 1, (2, 8)).astype(np.float32)
z = rng.uniform(-1, 1, (2, 8)).astype(np.float32)
f = rlx.compile(ROWS)
for args, needle in [
        (dict(w=w[:3]), "w_q's dim 0 differs from x's dim 1 (K)"),
        (dict(s=s[:1]), "scale dim 0 differs from ceil(K / block_size) for "
                        "scheme 'int8_block_asym'"),
        (dict(z=z[:1]), "zero_point dim 0 differs from ceil(K / block_size) "
                        "for scheme 'int8_block_asym'")]:
    full = dict(x=x, w=w, s=s, z=z)
    full.update(args)
    expect_error(lambda: f(**full), "shape mismatch in 'rlx.dequant_matmul' "
                 "at <string>:6:8: " + needle, f"static K: {needle}")
close(f(x=x, w=w, s=s, z=z), reference(x, w, s, z), "static K: a right run")

h = rlx.compile(ALL)
for args, needle in [
        (dict(w=w[:32]), "w_q's dim 0 differs from x's dim 1 (K)"),
        (dict(s=s[:, :4]), "scale dim 1 differs from N for scheme "
                           "'int8_block'"),
        (dict(x=x[:, :40]), "w_q's dim 0 differs from x's dim 1 (K)")]:
    full = dict(x=x, w=w, s=s)
    full.update(args)
    expect_error(lambda: h(**full), needle, f"every size ?: {needle}")
close(h(x=x[:, :40], w=w[:40], s=s), reference(x[:, :40], w[:40], s),
      "every size ?: K = 40 (a partial scale block)")


def q8_0_rows(rows, k, value):
    """`rows` GGUF q8_0 rows of `k` elements, each `value` (scale 1)."""
    block = np.zeros(34, np.uint8)
    block[:2] = np.frombuffer(np.float16(1).tobytes(), np.uint8)
    block[2:] = np.uint8(np.int8(value).view(np.uint8))
    return np.tile(block, rows * (k // 32))


g = rlx.compile(GGUF)
for k, packed, needle in [
        (33, q8_0_rows(1, 32, 1), "K (x's dim 1) must be a positive "
                                  "multiple of 32 for scheme 'gguf_q8_0'"),
        (0, q8_0_rows(1, 32, 1), "K (x's dim 1) must be a positive "
                                 "multiple of 32 for scheme 'gguf_q8_0'"),
        (64, q8_0_rows(3, 64, 1)[:-1], "w_q's bytes must be whole rows of "
                                       "K elements (34 bytes per 32) for "
                                       "scheme 'gguf_q8_0'")]:
    xk = rng.standard_normal((2, k)).astype(np.float32)
    expect_error(lambda: g(x=xk, w=packed), needle, f"gguf K = {k}, "
                 f"{packed.size} bytes")
got = g(x=x, w=q8_0_rows(3, 64, 2))
close(got, np.repeat(2 * x.sum(axis=1, keepdims=True), 3, axis=1),
      "gguf: 3 rows of 2s")
finish()
