"""rlx.scan_backward and rlx.scan_backward_xs on the CPU against
torch.autograd through the equivalent forward loop in float64.

The graph runs the forward rlx.scan (its saved trajectory feeds the
backward ops) and both backward sweeps for
`c' = tanh(c * u_t + v_t)` with xs u `[L, n]` and v `[L]` (a per-step
scalar, so dv_t is a sum). Covered: f32 and f64; a forward scan without a
saved trajectory (upstream = cotangent of the final carry), with the full
trajectory (upstream `[L, n]`), and with K = 1, 3, 4, 9 checkpoints of
L = 10 steps (the carries between checkpoints recomputed with
`forward_body`); a single-step scan.

Tolerances: the oracle is float64; f64 results use rtol 1e-10 / atol 1e-12,
f32 results rtol 1e-4 / atol 1e-5 (a few dozen f32 roundings through
tanh and products of factors below 1).
"""

import sys

import numpy as np
import torch

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
TOL = {np.float32: (1e-4, 1e-5), np.float64: (1e-10, 1e-12)}


def graph(dtype, length, n, trajectory, checkpoints):
    tc = tensor_type((n,), dtype)
    tu = tensor_type((length, n), dtype)
    tv = tensor_type((length,), dtype)
    ts = tensor_type((), dtype)
    rows = checkpoints if 0 < checkpoints < length else length
    ttr = tensor_type((rows, n), dtype)
    tup = tensor_type((length, n), dtype) if trajectory else tc
    attrs = " save_trajectory" if trajectory else ""
    if checkpoints:
        attrs += f" num_checkpoints = {checkpoints}"
    fwd_attrs = " save_trajectory" + (
        f" num_checkpoints = {checkpoints}" if checkpoints else "")
    step = f"""
    %m = rlx.binary mul %c, %ut : {tc}, {tc}
    %z = rlx.binary add %m, %vt : {tc}, {ts}
    %y = rlx.activation tanh %z : {tc}"""
    vjp = f"""body_vjp {{
  ^bb0(%c: {tc}, %ut: {tc}, %vt: {ts}, %g: {tc}):{step}
    %one = rlx.constant dense<1.0> : {tc}
    %yy = rlx.binary mul %y, %y : {tc}, {tc}
    %d = rlx.binary sub %one, %yy : {tc}, {tc}
    %dz = rlx.binary mul %g, %d : {tc}, {tc}
    %dc = rlx.binary mul %dz, %ut : {tc}, {tc}
    %du = rlx.binary mul %dz, %c : {tc}, {tc}
    %dv = rlx.reduce sum %dz axes = [0] : {tc}
    rlx.yield %dc, %du, %dv : {tc}, {tc}, {ts}
  }}"""
    if 0 < checkpoints < length:
        vjp += f""" forward_body {{
  ^bb0(%c: {tc}, %ut: {tc}, %vt: {ts}):{step}
    rlx.yield %y : {tc}
  }}"""
    operands = f"""%h, %tr, %up : {tc}, {ttr}, {tup} xs(%u, %v : {tu}, {tv})
      length = {length}{attrs}"""
    return f"""
func.func @g(%h: {tc} {{rlx.input = "h"}}, %u: {tu} {{rlx.input = "u"}},
             %v: {tv} {{rlx.input = "v"}}, %up: {tup} {{rlx.input = "up"}})
    -> ({tc}, {tu}, {tv}) {{
  %tr = rlx.scan %h : {tc} xs(%u, %v : {tu}, {tv}) length = {length}{fwd_attrs}
      body {{
  ^bb0(%c: {tc}, %ut: {tc}, %vt: {ts}):{step}
    rlx.yield %y : {tc}
  }}
  %gh = rlx.scan_backward {operands} {vjp}
  %gu = rlx.scan_backward_xs {operands} xs_idx = 0 {vjp}
  %gv = rlx.scan_backward_xs {operands} xs_idx = 1 {vjp}
  return %gh, %gu, %gv : {tc}, {tu}, {tv}
}}"""


def oracle(h, u, v, up, trajectory):
    h, u, v = (torch.tensor(a, dtype=torch.float64, requires_grad=True)
               for a in (h, u, v))
    c, carries = h, []
    for t in range(u.shape[0]):
        c = torch.tanh(c * u[t] + v[t])
        carries.append(c)
    out = torch.stack(carries) if trajectory else c
    out.backward(torch.tensor(up, dtype=torch.float64))
    return h.grad.numpy(), u.grad.numpy(), v.grad.numpy()


def check_scan_backward(dtype, length, n, trajectory, checkpoints):
    h = check.uniform((n,), dtype)
    u = check.uniform((length, n), dtype, -1.5, 1.5)
    v = check.uniform((length,), dtype)
    up = check.uniform((length, n) if trajectory else (n,), dtype)
    out = check.run(graph(dtype, length, n, trajectory, checkpoints),
                    {"h": h, "u": u, "v": v, "up": up})
    want = oracle(h, u, v, up, trajectory)
    rtol, atol = TOL[dtype]
    what = (f"scan_backward {np.dtype(dtype)} L={length} "
            f"trajectory={trajectory} checkpoints={checkpoints}")
    for i, name in enumerate(["dinit", "du", "dv"]):
        check.close(f"{what} {name}", out and out[i], want[i].astype(dtype),
                    rtol, atol)


for dtype in [np.float32, np.float64]:
    check_scan_backward(dtype, 10, 6, False, 0)
    check_scan_backward(dtype, 10, 6, True, 0)
    for k in [1, 3, 4, 9, 10]:
        check_scan_backward(dtype, 10, 6, True, k)
    check_scan_backward(dtype, 1, 3, True, 0)
    check_scan_backward(dtype, 1, 3, False, 0)

check.finish()
