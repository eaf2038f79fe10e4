"""rlx.if, rlx.while and rlx.scan on the CPU (lowered to scf: only the
taken branch runs, loops stop on their predicate) against NumPy.

Covered: if with a true and a false predicate of shape [] and [1], several
results, a branch yielding a value defined above; while loops that stop on
their predicate before max_iterations, that hit max_iterations, and that
have no bound, with two carries of different shapes and dtypes (f32 and
i32); scan with and without bcasts and several xs, without a trajectory,
with the full trajectory and with checkpoints (K = 1, 3, 4 of 10 steps,
rows floor(k * length / K)), f32 and f64.

Tolerances: the loops apply the same f32/f64 operations in the same order
as the oracle, so rtol 1e-6 (f32) / 1e-12 (f64) with atol 1e-6 / 1e-12
covers the libm differences of tanh; integer results must be equal.
"""

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
TOL = {np.float32: (1e-6, 1e-6), np.float64: (1e-12, 1e-12)}


def check_if(pred_shape, value):
    t = tensor_type((6,), np.float32)
    p = tensor_type(pred_shape, np.bool_)
    mlir = f"""
func.func @g(%p: {p} {{rlx.input = "p"}}, %x: {t} {{rlx.input = "x"}})
    -> ({t}, {t}) {{
  %y:2 = rlx.if %p : {p} -> {t}, {t} {{
    %a = rlx.activation relu %x : {t}
    %b = rlx.activation exp %x : {t}
    rlx.yield %a, %b : {t}, {t}
  }} else {{
    %s = rlx.activation sigmoid %x : {t}
    rlx.yield %s, %x : {t}, {t}
  }}
  return %y#0, %y#1 : {t}, {t}
}}"""
    x = check.uniform((6,), np.float32)
    pred = np.full(pred_shape, value)
    out = check.run(mlir, {"p": pred, "x": x})
    want = ((np.maximum(x, 0), np.exp(x)) if value else
            (1 / (1 + np.exp(-x.astype(np.float64))), x))
    for i, w in enumerate(want):
        check.close(f"if {pred_shape} {value} result {i}",
                    out and out[i], np.asarray(w, np.float32), 1e-6, 1e-6)


for shape in [(), (1,)]:
    for value in [True, False]:
        check_if(shape, value)


def check_while(limit, bound):
    """Halves x and counts steps while the step count is below `limit`."""
    tx = tensor_type((3, 5), np.float32)
    ti = tensor_type((), np.int32)
    bound_attr = f" max_iterations = {bound}" if bound else ""
    mlir = f"""
func.func @g(%x: {tx} {{rlx.input = "x"}}, %n: {ti} {{rlx.input = "n"}},
             %lim: {ti} {{rlx.input = "lim"}}) -> ({tx}, {ti}) {{
  %r:2 = rlx.while %x, %n : {tx}, {ti}{bound_attr} cond {{
  ^bb0(%c: {tx}, %i: {ti}):
    %p = rlx.compare lt %i, %lim : {ti}, {ti}
    rlx.yield %p, %c, %i : tensor<i1>, {tx}, {ti}
  }} do {{
  ^bb0(%c: {tx}, %i: {ti}):
    %t = rlx.activation tanh %c : {tx}
    %one = rlx.constant dense<1> : {ti}
    %j = rlx.binary add %i, %one : {ti}, {ti}
    rlx.yield %t, %j : {tx}, {ti}
  }}
  return %r#0, %r#1 : {tx}, {ti}
}}"""
    x = check.uniform((3, 5), np.float32, -2, 2)
    start = int(check.rng.integers(0, 3))
    out = check.run(mlir, {"x": x, "n": np.array(start, np.int32),
                           "lim": np.array(limit, np.int32)})
    steps = max(0, limit - start)
    if bound:
        steps = min(steps, bound)
    want = x.copy()
    for _ in range(steps):
        want = np.tanh(want)
    what = f"while limit {limit} bound {bound}"
    check.close(what + " carry", out and out[0], want, 1e-6, 1e-6)
    check.close(what + " count", out and out[1],
                np.array(start + steps, np.int32), 0, 0)


for limit, bound in [(4, 10), (9, 3), (6, None), (0, 5)]:
    check_while(limit, bound)


def check_scan(dtype, trajectory, checkpoints):
    length, n = 10, 7
    tc = tensor_type((n,), dtype)
    tu = tensor_type((length, n), dtype)
    tv = tensor_type((length,), dtype)
    ts = tensor_type((), dtype)
    rows = length if not checkpoints else checkpoints
    tr = tensor_type((rows, n), dtype) if trajectory else tc
    attrs = " save_trajectory" if trajectory else ""
    if checkpoints:
        attrs += f" num_checkpoints = {checkpoints}"
    mlir = f"""
func.func @g(%h: {tc} {{rlx.input = "h"}}, %w: {tc} {{rlx.input = "w"}},
             %u: {tu} {{rlx.input = "u"}}, %v: {tv} {{rlx.input = "v"}})
    -> {tr} {{
  %r = rlx.scan %h : {tc} bcast(%w : {tc}) xs(%u, %v : {tu}, {tv})
      length = {length}{attrs} body {{
  ^bb0(%c: {tc}, %wb: {tc}, %ut: {tc}, %vt: {ts}):
    %a = rlx.binary mul %c, %wb : {tc}, {tc}
    %b = rlx.binary add %a, %ut : {tc}, {tc}
    %s = rlx.binary mul %b, %vt : {tc}, {ts}
    %t = rlx.activation tanh %s : {tc}
    rlx.yield %t : {tc}
  }}
  return %r : {tr}
}}"""
    h, w = check.uniform((n,), dtype), check.uniform((n,), dtype)
    u, v = check.uniform((length, n), dtype), check.uniform((length,), dtype)
    out = check.run(mlir, {"h": h, "w": w, "u": u, "v": v})
    carries, c = [], h
    for t in range(length):
        c = np.tanh((c * w + u[t]) * v[t]).astype(dtype)
        carries.append(c)
    if not trajectory:
        want = c
    elif not checkpoints:
        want = np.stack(carries)
    else:
        want = np.stack([carries[k * length // checkpoints]
                         for k in range(checkpoints)])
    rtol, atol = TOL[dtype]
    check.close(f"scan {np.dtype(dtype)} trajectory={trajectory} "
                f"checkpoints={checkpoints}", out and out[0], want, rtol, atol)


for dtype in [np.float32, np.float64]:
    check_scan(dtype, False, 0)
    check_scan(dtype, True, 0)
    for k in [1, 3, 4]:
        check_scan(dtype, True, k)

check.finish()
