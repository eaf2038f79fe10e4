"""rlx.matmul on the CPU against NumPy: 2-D, batched, broadcast batch dims,
odd sizes, sizes that take the OpenBLAS path and sizes that stay loops.

Tolerances: f32 rtol 1e-5 with atol 1e-5 * sqrt(K) (sums of K products of
unit-scale values); f64 rtol 1e-12; f16 rtol 2e-3 (f32 accumulation, one
final rounding, as the oracle computes).
"""

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

check.finish()
