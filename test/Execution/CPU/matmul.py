"""rlx.matmul on the CPU against NumPy: 2-D, batched, broadcast batch dims,
odd sizes, sizes that take the OpenBLAS path and sizes that stay loops; and
linear layers (matmul, bias row, activation), the chains the CUDA target
runs as one cuBLASLt GEMM with a bias/relu/GELU epilogue.

Tolerances: f32 rtol 1e-5 with atol 1e-5 * sqrt(K) (sums of K products of
unit-scale values); f64 rtol 1e-12; f16 rtol 2e-3 (f32 accumulation, one
final rounding, as the oracle computes).
"""

import math
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])

CASES = [
    ((5, 7), (7, 3)),            # small: loops
    ((1, 9), (9, 1)),            # size-1 dims
    ((2, 5, 7), (7, 3)),         # rows of a batch times a matrix
    ((2, 5, 7), (2, 7, 3)),      # batch_matmul
    ((3, 1, 4, 6), (2, 6, 5)),   # broadcast batch dims (generic)
    ((64, 128), (128, 96)),      # BLAS
    ((3, 33, 65), (65, 17)),     # BLAS on collapsed rows, odd sizes
    ((4, 40, 50), (4, 50, 30)),  # BLAS batched
    ((2, 3, 40, 50), (2, 3, 50, 30)),  # equal batch dims, collapsed: BLAS
    ((2, 1, 5, 7), (2, 1, 7, 3)),      # equal batch dims with a 1, loops
]
TOLERANCE = {np.float32: 1e-5, np.float64: 1e-12, np.float16: 2e-3}

for dtype in (np.float32, np.float64, np.float16):
    for lshape, rshape in CASES:
        if dtype == np.float16 and lshape[-1] > 64:
            continue
        a = check.uniform(lshape, dtype)
        b = check.uniform(rshape, dtype)
        out_shape = np.broadcast_shapes(lshape[:-2], rshape[:-2]) + (lshape[-2], rshape[-1])
        lt, rt, ot = (tensor_type(s, dtype) for s in (lshape, rshape, out_shape))
        mlir = (f"func.func @main(%a: {lt} {{rlx.input = \"a\"}}, %b: {rt} {{rlx.param = \"b\"}}) -> {ot} {{\n"
                f"  %0 = rlx.matmul %a, %b : {lt}, {rt}\n  return %0 : {ot}\n}}")
        outs = check.run(mlir, {"a": a, "b": b})
        k = lshape[-1]
        want = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(dtype)
        rtol = TOLERANCE[dtype]
        atol = rtol * np.sqrt(k)
        check.close(f"matmul {lshape}x{rshape} {np.dtype(dtype)}",
                    outs[0] if outs else None, want, rtol, atol)

# Linear layers: matmul + bias [N] (on either side of the add) + none, relu,
# gelu_approx (cuBLASLt epilogues on CUDA) or exact gelu (a separate kernel
# there); 2-D and batched rows, odd sizes. The oracle computes in float64
# from the same inputs (f16: rounded once at the end).
ACTS = {
    None: lambda x: x,
    "relu": lambda x: np.maximum(x, 0.0),
    "gelu_approx": lambda x: 0.5 * x * (1.0 + np.tanh(
        np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3))),
    "gelu": lambda x: 0.5 * x * (1.0 + np.vectorize(math.erf)(x / np.sqrt(2.0))),
}
LINEAR = [((5, 7), 3), ((3, 33, 65), 17), ((64, 96), 130), ((2, 9, 128), 48)]
for dtype in (np.float32, np.float16):
    for i, (lshape, n) in enumerate(LINEAR):
        for act in ACTS:
            k = lshape[-1]
            x = check.uniform(lshape, dtype)
            w = check.uniform((k, n), dtype)
            bias = check.uniform((n,), dtype)
            out_shape = lshape[:-1] + (n,)
            xt, wt, bt, ot = (tensor_type(s, dtype)
                              for s in (lshape, (k, n), (n,), out_shape))
            add = (f"%1 = rlx.binary add %0, %bias : {ot}, {bt}" if i % 2 == 0
                   else f"%1 = rlx.binary add %bias, %0 : {bt}, {ot}")
            body = [f"%0 = rlx.matmul %x, %w : {xt}, {wt}", add]
            result = "%1"
            if act:
                body.append(f"%2 = rlx.activation {act} %1 : {ot}")
                result = "%2"
            mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, "
                    f"%w: {wt} {{rlx.param = \"w\"}}, "
                    f"%bias: {bt} {{rlx.param = \"bias\"}}) -> {ot} {{\n  "
                    + "\n  ".join(body) + f"\n  return {result} : {ot}\n}}")
            outs = check.run(mlir, {"x": x, "w": w, "bias": bias})
            y = np.matmul(x.astype(np.float64), w.astype(np.float64)) + \
                bias.astype(np.float64)
            want = ACTS[act](y).astype(dtype)
            rtol = TOLERANCE[dtype]
            check.close(f"linear {lshape}x[{k}, {n}] + bias, {act} "
                        f"{np.dtype(dtype)}", outs[0] if outs else None, want,
                        rtol, rtol * np.sqrt(k))

# Products with a transposed operand, as gradients make them (`dy w^T`,
# `x^T dy`, `x^T x`): on the CPU the transpose is read by BLAS (a
# transposed view) instead of being copied; below the BLAS size, loops.
TRANSPOSED = [
    ((64, 48), (96, 48), "rhs"),      # a @ b^T, BLAS
    ((65, 33), (65, 17), "lhs"),      # a^T @ b, odd sizes
    ((3, 40, 9), (3, 40, 30), "lhs"),  # batched a^T @ b
    ((3, 40, 50), (3, 30, 50), "rhs"),  # batched a @ b^T
    ((5, 4), (3, 4), "rhs"),          # small: loops
    ((70, 40), None, "self"),         # x^T @ x, one operand read twice
]
for dtype in (np.float32, np.float64):
    for lshape, rshape, which in TRANSPOSED:
        a = check.uniform(lshape, dtype)
        b = a if which == "self" else check.uniform(rshape, dtype)
        perm = list(range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2]
        lhs = a.transpose(perm) if which in ("lhs", "self") else a
        rhs = b.transpose(perm) if which == "rhs" else b
        want = np.matmul(lhs.astype(np.float64), rhs.astype(np.float64))
        t = {name: tensor_type(v.shape, dtype)
             for name, v in (("a", a), ("b", b), ("lhs", lhs), ("rhs", rhs),
                             ("out", want))}
        perm_text = ", ".join(map(str, perm))
        args = [f"%a: {t['a']} {{rlx.input = \"a\"}}"]
        if which != "self":
            args.append(f"%b: {t['b']} {{rlx.input = \"b\"}}")
        body = []
        if which in ("lhs", "self"):
            body.append(f"%l = rlx.transpose %a perm = [{perm_text}] : {t['a']}")
        if which == "rhs":
            body.append(f"%r = rlx.transpose %b perm = [{perm_text}] : {t['b']}")
        lname = "%a" if which == "rhs" else "%l"
        rname = {"rhs": "%r", "lhs": "%b", "self": "%a"}[which]
        body.append(f"%0 = rlx.matmul {lname}, {rname} : {t['lhs']}, {t['rhs']}")
        mlir = (f"func.func @main({', '.join(args)}) -> {t['out']} {{\n  "
                + "\n  ".join(body) + f"\n  return %0 : {t['out']}\n}}")
        feed = {"a": a} if which == "self" else {"a": a, "b": b}
        outs = check.run(mlir, feed)
        rtol = TOLERANCE[dtype]
        check.close(f"matmul transposed {which} {lshape} {rshape} "
                    f"{np.dtype(dtype)}", outs[0] if outs else None,
                    want.astype(dtype), rtol, rtol * np.sqrt(lhs.shape[-1]))

check.finish()
