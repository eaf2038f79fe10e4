"""rlx.selective_scan and rlx.gated_delta_net on the CPU (one scf.for over
time, parallel linalg per step) against a float64 NumPy per-timestep loop
written from the op descriptions.

Covered: selective_scan and gated_delta_net (without a state, and with
carry_state: initial state operand and final_state result), f32 and f64
(and f16, which is computed in f32),
shapes with odd sizes, a sequence of length 1, state_size 1 (the state
reduction has a single term) and batch/head/channel counts of 1.

Inputs are in the ranges the ops are used with: selective_scan delta in
[0.01, 0.5), a in [-1, 0.2) (mostly decaying, some slowly growing
channels); gated_delta_net g (log-gate) in [-0.5, 0), beta in [0, 1), k
with unit L2 norm per token and head (the delta rule is then a contraction,
as in the models), q, v, and the initial state in [-1, 1).

Tolerances: the recurrence runs in the element type (f32 for f16) with
the oracle's operations per step, up to the order of the state-dimension
sums; each step adds a few ulp and the decay keeps old errors from
growing. Measured max abs errors (outputs are O(1)): f32 up to 6e-7 over
64 steps, f64 up to 2e-15. So f32 uses rtol 1e-5 with atol 1e-5, f64
1e-11 / 1e-11; f16 rounds the f32 result once (half an ulp is 4.9e-4
relative), so rtol 1e-3 with atol 1e-3.
"""

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
TOL = {np.float16: (1e-3, 1e-3), np.float32: (1e-5, 1e-5),
       np.float64: (1e-11, 1e-11)}


def selective_scan_ref(x, delta, a, b, c):
    x, delta, a, b, c = (np.asarray(v, np.float64) for v in (x, delta, a, b, c))
    batch, length, hidden = x.shape
    y = np.zeros((batch, length, hidden))
    for e in range(batch):
        h = np.zeros(a.shape)
        for t in range(length):
            for j in range(hidden):
                h[j] = (np.exp(delta[e, t, j] * a[j]) * h[j] +
                        delta[e, t, j] * b[e, t] * x[e, t, j])
                y[e, t, j] = np.sum(c[e, t] * h[j])
    return y


def check_selective_scan(dtype, batch, length, hidden, n):
    tx = tensor_type((batch, length, hidden), dtype)
    ta = tensor_type((hidden, n), dtype)
    tb = tensor_type((batch, length, n), dtype)
    mlir = f"""
func.func @g(%x: {tx} {{rlx.input = "x"}}, %d: {tx} {{rlx.input = "d"}},
             %a: {ta} {{rlx.input = "a"}}, %b: {tb} {{rlx.input = "b"}},
             %c: {tb} {{rlx.input = "c"}}) -> {tx} {{
  %y = rlx.selective_scan %x, %d, %a, %b, %c state_size = {n}
      : {tx}, {tx}, {ta}, {tb}, {tb}
  return %y : {tx}
}}"""
    inputs = {
        "x": check.uniform((batch, length, hidden), dtype),
        "d": check.uniform((batch, length, hidden), dtype, 0.01, 0.5),
        "a": check.uniform((hidden, n), dtype, -1.0, 0.2),
        "b": check.uniform((batch, length, n), dtype),
        "c": check.uniform((batch, length, n), dtype),
    }
    out = check.run(mlir, inputs)
    want = selective_scan_ref(*(inputs[k] for k in "xdabc"))
    rtol, atol = TOL[dtype]
    check.close(f"selective_scan {np.dtype(dtype)} b={batch} s={length} "
                f"h={hidden} n={n}", out and out[0], want.astype(dtype),
                rtol, atol)


def gated_delta_net_ref(q, k, v, g, beta, state):
    q, k, v, g, beta = (np.asarray(x, np.float64) for x in (q, k, v, g, beta))
    batch, length, heads, n = q.shape
    out = np.zeros(q.shape)
    final = np.zeros((batch, heads, n, n))
    for e in range(batch):
        for hd in range(heads):
            s = (np.zeros((n, n)) if state is None else
                 np.asarray(state[e, hd], np.float64).copy())
            for t in range(length):
                s = np.exp(g[e, t, hd]) * s
                sk = np.array([sum(s[i, j] * k[e, t, hd, i] for i in range(n))
                               for j in range(n)])
                d = (v[e, t, hd] - sk) * beta[e, t, hd]
                for i in range(n):
                    for j in range(n):
                        s[i, j] = s[i, j] + k[e, t, hd, i] * d[j]
                for j in range(n):
                    out[e, t, hd, j] = sum(
                        s[i, j] * q[e, t, hd, i] for i in range(n)) / np.sqrt(n)
            final[e, hd] = s
    return out, final


def check_gated_delta_net(dtype, batch, length, heads, n, carry):
    tq = tensor_type((batch, length, heads, n), dtype)
    tg = tensor_type((batch, length, heads), dtype)
    ts = tensor_type((batch, heads, n, n), dtype)
    if carry:
        state_arg = f', %s: {ts} {{rlx.input = "s"}}'
        results, op_results = f"({tq}, {ts})", "%o, %f"
        carry_syntax = f" carry_state state %s : {ts}"
        returned = f"%o, %f : {tq}, {ts}"
    else:
        state_arg, results, op_results = "", tq, "%o"
        carry_syntax, returned = "", f"%o : {tq}"
    mlir = f"""
func.func @g(%q: {tq} {{rlx.input = "q"}}, %k: {tq} {{rlx.input = "k"}},
             %v: {tq} {{rlx.input = "v"}}, %gate: {tg} {{rlx.input = "g"}},
             %beta: {tg} {{rlx.input = "beta"}}{state_arg}) -> {results} {{
  {op_results} = rlx.gated_delta_net %q, %k, %v, %gate, %beta
      state_size = {n}{carry_syntax} : {tq}, {tq}, {tq}, {tg}, {tg}
  return {returned}
}}"""
    k = check.uniform((batch, length, heads, n), np.float64)
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    inputs = {
        "q": check.uniform((batch, length, heads, n), dtype),
        "k": k.astype(dtype),
        "v": check.uniform((batch, length, heads, n), dtype),
        "g": check.uniform((batch, length, heads), dtype, -0.5, 0.0),
        "beta": check.uniform((batch, length, heads), dtype, 0.0, 1.0),
    }
    if carry:
        inputs["s"] = check.uniform((batch, heads, n, n), dtype)
    out = check.run(mlir, inputs)
    want, final = gated_delta_net_ref(inputs["q"], inputs["k"], inputs["v"],
                                      inputs["g"], inputs["beta"],
                                      inputs.get("s"))
    rtol, atol = TOL[dtype]
    what = (f"gated_delta_net {np.dtype(dtype)} b={batch} s={length} "
            f"h={heads} n={n} carry_state={carry}")
    check.close(f"{what} output", out and out[0], want.astype(dtype), rtol,
                atol)
    if carry:
        check.close(f"{what} final_state", out and out[1],
                    final.astype(dtype), rtol, atol)


for dtype in [np.float32, np.float64]:
    for shape in [(1, 1, 1, 1), (2, 7, 3, 5), (3, 33, 8, 16), (1, 64, 5, 1)]:
        check_selective_scan(dtype, *shape)
    for shape in [(1, 1, 1, 1), (2, 5, 3, 7), (1, 17, 2, 16), (2, 40, 1, 32)]:
        for carry in [False, True]:
            check_gated_delta_net(dtype, *shape, carry)
# f16 computes in f32 and rounds once at the end.
check_selective_scan(np.float16, 2, 9, 3, 5)
for carry in [False, True]:
    check_gated_delta_net(np.float16, 2, 9, 3, 5, carry)

check.finish()
