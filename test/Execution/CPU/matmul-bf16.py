"""f32 rlx.matmul on the CPU with `--pipeline-options=matmul-precision=bf16`
against a float64 oracle; the same graphs with the default options stay f32.
Then bf16 and f16 rlx.matmul (oneDNN's bf16 matmul, f16 through f32 copies:
rlx-linalg-to-blas) against the float64 product of the same f16/bf16 values.

Tolerances, per output element c = sum_k a_k b_k with S = sum_k |a_k| |b_k|:
- bf16 (8 significant bits, round to nearest even: unit roundoff u = 2^-8):
  each operand is rounded once, so each product is off by at most
  (1 + u)^2 - 1 < 2^-7 + 2^-16 of |a_k b_k|; accumulating K products in f32
  adds at most K * 2^-24 of S (any order). Bound: (2^-7 + 2^-16 +
  K * 2^-24) * S, which holds for every input.
- against the exact product of the bf16-rounded operands (the rounding
  NumPy does here, to nearest even), only the f32 accumulation remains:
  K * 2^-24 * S_bf16.
- default (f32): rtol 1e-5 with atol 1e-5 * sqrt(K), as test matmul.py.
Each bf16 case also checks that the option took effect: its error is at
least 10x the f32 run's largest error (bf16 rounding errors are about 2^-9
relative per operand; f32's about 2^-24).
- f16/bf16 matmuls: the inputs are f16/bf16 values, so the exact product E
  of those values is the reference; the f32 accumulation is off by at most
  K * 2^-24 * S, and the one rounding to the result type by at most u of
  the accumulated value (u = 2^-8 for bf16, 2^-11 for f16, nearest even),
  plus f16's subnormal spacing 2^-24 / 2 near zero: (K 2^-24 S) (1 + u)
  + u |E| (+ 2^-25 for f16), for every input.
"""

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])


def to_bf16(x):
    """`x` (f32) rounded to bf16, round to nearest even, back as f32."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return rounded.astype(np.uint32).view(np.float32).reshape(x.shape)


# (lhs shape, rhs shape, rhs transposed in the graph): 2-D, rows of a batch
# times a matrix, batch_matmul, and a weight read transposed ([N, K]).
CASES = [
    ((64, 768), (768, 256), False),
    ((2, 33, 300), (300, 65), False),
    ((4, 40, 200), (4, 200, 30), False),
    ((64, 512), (96, 512), True),
]

for lshape, rshape, transposed in CASES:
    a = check.uniform(lshape, np.float32)
    b = check.uniform(rshape, np.float32)
    k = lshape[-1]
    lt, rt = tensor_type(lshape, np.float32), tensor_type(rshape, np.float32)
    if transposed:
        wshape = rshape[:-2] + (rshape[-1], rshape[-2])
        wt = tensor_type(wshape, np.float32)
        body = (f"  %w = rlx.transpose %b perm = [1, 0] : {rt}\n"
                f"  %0 = rlx.matmul %a, %w : {lt}, {wt}\n")
        b_kn = b.T
    else:
        body = f"  %0 = rlx.matmul %a, %b : {lt}, {rt}\n"
        b_kn = b
    out_shape = np.broadcast_shapes(lshape[:-2], b_kn.shape[:-2]) + (
        lshape[-2], b_kn.shape[-1])
    ot = tensor_type(out_shape, np.float32)
    mlir = (f"func.func @main(%a: {lt} {{rlx.input = \"a\"}}, "
            f"%b: {rt} {{rlx.input = \"b\"}}) -> {ot} {{\n{body}"
            f"  return %0 : {ot}\n}}")
    what = f"matmul {lshape}x{rshape}{' (rhs transposed)' if transposed else ''}"

    exact = np.matmul(a.astype(np.float64), b_kn.astype(np.float64))
    scale = np.matmul(np.abs(a).astype(np.float64),
                      np.abs(b_kn).astype(np.float64))
    a16, b16 = to_bf16(a).astype(np.float64), to_bf16(b_kn).astype(np.float64)
    exact16 = np.matmul(a16, b16)
    scale16 = np.matmul(np.abs(a16), np.abs(b16))

    f32 = check.run(mlir, {"a": a, "b": b})
    check.close(f"{what} default f32", f32[0] if f32 else None,
                exact.astype(np.float32), 1e-5, 1e-5 * np.sqrt(k))
    bf16 = check.run(mlir, {"a": a, "b": b},
                     cpu_options="matmul-precision=bf16", gpu_check=False)
    got = bf16[0] if bf16 else None
    check.close(f"{what} bf16 vs f64", got, exact.astype(np.float32), 0.0,
                (2.0**-7 + 2.0**-16 + k * 2.0**-24) * scale)
    check.close(f"{what} bf16 vs f64 of bf16-rounded inputs", got,
                exact16.astype(np.float32), 0.0,
                k * 2.0**-24 * scale16 + 1e-30)
    if f32 and bf16:
        f32_err = np.abs(f32[0] - exact).max()
        bf16_err = np.abs(bf16[0] - exact).max()
        check.close(f"{what} bf16 error {bf16_err:.3g} >= 10x f32 error "
                    f"{f32_err:.3g}", np.array(bf16_err >= 10 * f32_err),
                    np.array(True), 0, 0)


# f16/bf16 rlx.matmul. Cases: (lhs shape, rhs shape, which operands the
# graph transposes: "" none, "r" the rhs (x @ W^T, W stored [N, K]), "l" the
# lhs, "lr" both). The BERT-base layer's projections, a batch of rows times
# a weight, batched products (the attention's q k^T and p v), rank 4, M = 1,
# odd sizes (1, 17, 33), decode's few rows times a weight. Every product
# runs through the runtime (blas-min-flops=1), small ones included.
HALF_CASES = [
    ((128, 768), (768, 768), ""),
    ((128, 768), (3072, 768), "r"),
    ((128, 3072), (3072, 768), ""),
    ((128, 3072), (768, 3072), "r"),
    ((2, 64, 768), (768, 33), ""),
    ((12, 128, 64), (12, 128, 64), "r"),
    ((12, 128, 128), (12, 128, 64), ""),
    ((2, 3, 17, 33), (2, 3, 33, 5), ""),
    ((1, 768), (768, 2304), ""),
    ((17, 33), (33, 1), ""),
    ((1, 1), (1, 1), ""),
    ((33, 17), (65, 33), "lr"),
    ((3, 33, 17), (3, 33, 65), "l"),
    # Decode-like rows times a transposed weight, which the cuda target runs
    # as its GEMV kernel with each column's dot split over 8 and 4 warps.
    ((1, 2048), (128, 2048), "r"),
    ((3, 1024), (256, 1024), "r"),
]


def transposed(shape):
    return shape[:-2] + (shape[-1], shape[-2])


def half_case(dtype, lshape, rshape, trans):
    """One f16/bf16 product; inputs are f32 (bf16: holding bf16 values, cast
    in the graph) or f16."""
    bf16 = dtype == "bf16"
    io = np.float32 if bf16 else np.float16
    low = "bf16" if bf16 else "f16"
    a = check.uniform(lshape, np.float32)
    b = check.uniform(rshape, np.float32)
    a, b = (to_bf16(a), to_bf16(b)) if bf16 else (a.astype(io), b.astype(io))
    args, body, operands = [], [], []
    for name, value, flip in (("a", a, "l" in trans), ("b", b, "r" in trans)):
        t = tensor_type(value.shape, io)
        args.append(f"%{name}: {t} {{rlx.input = \"{name}\"}}")
        lt = t[:-4] + f"{low}>"
        operand = f"%{name}"
        if bf16:
            body.append(f"  %{name}h = rlx.cast %{name} : {t} to bf16")
            operand = f"%{name}h"
        if flip:
            perm = list(range(value.ndim))
            perm[-2], perm[-1] = perm[-1], perm[-2]
            body.append(f"  %{name}t = rlx.transpose {operand} perm = "
                        f"{perm} : {lt}")
            operand = f"%{name}t"
            lt = tensor_type(transposed(value.shape), io)[:-4] + f"{low}>"
        operands.append((operand, lt))
    a_mk = np.swapaxes(a, -1, -2) if "l" in trans else a
    b_kn = np.swapaxes(b, -1, -2) if "r" in trans else b
    out_shape = np.broadcast_shapes(a_mk.shape[:-2], b_kn.shape[:-2]) + (
        a_mk.shape[-2], b_kn.shape[-1])
    ot_low = tensor_type(out_shape, io)[:-4] + f"{low}>"
    ot = tensor_type(out_shape, io)
    body.append(f"  %p = rlx.matmul {operands[0][0]}, {operands[1][0]} : "
                f"{operands[0][1]}, {operands[1][1]}")
    result = "%p"
    if bf16:
        body.append(f"  %r = rlx.cast %p : {ot_low} to f32")
        result = "%r"
    mlir = (f"func.func @main({', '.join(args)}) -> {ot} {{\n" +
            "\n".join(body) + f"\n  return {result} : {ot}\n}}")
    k = a_mk.shape[-1]
    a64, b64 = a_mk.astype(np.float64), b_kn.astype(np.float64)
    exact = np.matmul(a64, b64)
    scale = np.matmul(np.abs(a64), np.abs(b64))
    u = 2.0**-8 if bf16 else 2.0**-11
    acc = k * 2.0**-24 * scale
    atol = acc * (1 + u) + u * np.abs(exact) + (0 if bf16 else 2.0**-25)
    # On a GPU the products are summed in another order: each output may
    # round to the other neighbour of its bf16 (f16) grid, up to twice the
    # bound above from the CPU's output.
    gpu_tolerance = (2 * u, float(2 * np.max(acc * (1 + u), initial=0.0)))
    got = check.run(mlir, {"a": a, "b": b}, cpu_options="blas-min-flops=1",
                    gpu_tolerance=gpu_tolerance)
    what = (f"{dtype} matmul {lshape}x{rshape}"
            f"{' transposed ' + trans if trans else ''}")
    check.close(what, got[0].astype(np.float64) if got else None, exact, 0.0,
                atol)


for dtype in ("bf16", "f16"):
    for lshape, rshape, trans in HALF_CASES:
        half_case(dtype, lshape, rshape, trans)

check.finish()
