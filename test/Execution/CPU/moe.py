"""rlx.grouped_matmul and rlx.q_matmul on the CPU against a float64 NumPy
oracle written from the op descriptions.

grouped_matmul: out[i] = input[i] @ weight[expert_idx[i]], with odd sizes,
experts that no row uses (empty groups), a single expert, i32 and i64 ids.
The cases above rlx-linalg-to-blas's min-flops (M * K * N >= 32768) run
through the runtime's per-expert GEMMs, f32 and f64 (f16 stays a loop):
rows in random expert order (gathered per expert), rows sorted by expert
(each expert's rows multiplied in place), one expert for every row, and
experts without rows in either form.
Tolerances: f32 rtol 1e-5 with atol 2e-6 * sqrt(K) (sums of K products of
unit-scale values); f64 rtol 1e-12 with atol 1e-12 * sqrt(K); f16 rtol 2e-3
with atol 2e-3 * sqrt(K) (f32 accumulation, one final rounding).

q_matmul: acc = bias + sum_k (x - x_zp) * (w - w_zp) in integers, then
saturate_i8(round_half_even(acc * mult) + out_zp), computed in float64;
the i8 result must match exactly.
"""

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])

# (M, K, N, E, experts the rows may use, rows sorted by expert)
GROUPED = [
    (5, 7, 4, 3, 3, False),      # small, odd sizes
    (1, 1, 1, 1, 1, False),      # size-1 dims, a single expert
    (9, 13, 6, 4, 2, False),     # experts 2 and 3 get no rows
    (33, 65, 17, 8, 8, False),   # longer reductions
    (16, 128, 24, 5, 1, False),  # every row on expert 0
    # Per-expert GEMMs (M * K * N >= 32768):
    (200, 96, 80, 6, 6, False),  # random order: gathered per expert
    (150, 80, 72, 8, 5, False),  # experts 5..7 get no rows
    (300, 70, 90, 8, 3, True),   # sorted: in place; experts 3..7 empty
    (257, 64, 48, 4, 1, False),  # one group: every row on expert 0
    (64, 33, 40, 1, 1, True),    # a single expert
]
TOLERANCE = {np.float32: (1e-5, 2e-6), np.float64: (1e-12, 1e-12),
             np.float16: (2e-3, 2e-3)}

for dtype in (np.float32, np.float64, np.float16):
    for idx_dtype in (np.int32, np.int64):
        for m, k, n, e, used, grouped in GROUPED:
            x = check.uniform((m, k), dtype)
            w = check.uniform((e, k, n), dtype)
            idx = check.integers((m,), idx_dtype, 0, used)
            if grouped:
                idx = np.sort(idx)
            xt, wt, it = (tensor_type(v.shape, v.dtype) for v in (x, w, idx))
            ot = tensor_type((m, n), dtype)
            mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, "
                    f"%w: {wt} {{rlx.input = \"w\"}}, "
                    f"%i: {it} {{rlx.input = \"i\"}}) -> {ot} {{\n"
                    f"  %0 = rlx.grouped_matmul %x, %w, %i : {xt}, {wt}, {it}\n"
                    f"  return %0 : {ot}\n}}")
            outs = check.run(mlir, {"x": x, "w": w, "i": idx})
            x64, w64 = x.astype(np.float64), w.astype(np.float64)
            want = np.stack([x64[r] @ w64[idx[r]] for r in range(m)])
            rtol, atol = TOLERANCE[dtype]
            check.close(f"grouped_matmul M={m} K={k} N={n} E={e} "
                        f"{np.dtype(dtype)} ids {np.dtype(idx_dtype)}",
                        outs[0] if outs else None, want.astype(dtype), rtol,
                        atol * np.sqrt(k))

# (M, K, N, x_zp, w_zp, out_zp, mult)
QMATMUL = [
    (4, 16, 8, 3, 0, -5, 0.0125),
    (1, 1, 1, 0, 0, 0, 0.5),
    (7, 33, 5, -128, 127, 127, 0.001),
    (13, 64, 11, 17, -9, -3, 0.0004),
    (6, 9, 3, 0, 0, 0, 3.0),          # saturates both ways
]

for m, k, n, x_zp, w_zp, out_zp, mult in QMATMUL:
    x = check.integers((m, k), np.int8, -128, 128)
    w = check.integers((k, n), np.int8, -128, 128)
    bias = check.integers((n,), np.int32, -5000, 5000)
    xt, wt, bt = (tensor_type(v.shape, v.dtype) for v in (x, w, bias))
    ot = tensor_type((m, n), np.int8)
    mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, "
            f"%w: {wt} {{rlx.input = \"w\"}}, "
            f"%b: {bt} {{rlx.input = \"b\"}}) -> {ot} {{\n"
            f"  %0 = rlx.q_matmul %x, %w, %b {{x_zp = {x_zp} : i64, "
            f"w_zp = {w_zp} : i64, out_zp = {out_zp} : i64, "
            f"mult = {mult!r} : f32}} : {xt}, {wt}, {bt}\n"
            f"  return %0 : {ot}\n}}")
    outs = check.run(mlir, {"x": x, "w": w, "b": bias})
    acc = bias.astype(np.int64) + (x.astype(np.int64) - x_zp) @ (
        w.astype(np.int64) - w_zp)
    scaled = acc.astype(np.float64) * np.float64(np.float32(mult))
    want = np.clip(np.rint(scaled) + out_zp, -128, 127).astype(np.int8)
    check.close(f"q_matmul M={m} K={k} N={n} zp=({x_zp},{w_zp},{out_zp}) "
                f"mult={mult}", outs[0] if outs else None, want, 0, 0)

check.finish()
