"""rlx-fuse's SwiGLU patterns keep the numbers: each primitive chain and its
`rlx-opt --rlx-fuse` form run through rlx-run on the same fresh random
inputs, and both are compared to a float64 oracle (NumPy + torch silu).

Covered: the narrow-split form (up in the low or the high half, either mul
operand order, rank 2 and 3, odd half widths, with and without a trailing
cast) and the dual-matmul form (x of rank 2 and 3, odd K and H, either mul
operand order, with and without a cast), f32 and f64 inputs.

Usage: fuse-swiglu.py <rlx-run> <rlx-opt> <file>: the fused forms are
written to <file>, which the lit test checks for rlx.fused_swiglu.

Tolerances (atol + rtol * |want|): elementwise results f32 rtol 1e-5 /
atol 1e-6, f64 rtol 1e-11 / atol 1e-13 (a few roundings of silu and the
product; atol covers results near zero); the dual-matmul form has a K-long
reduction, so atol grows like sqrt(K): f32 2e-6 * sqrt(K), f64
1e-12 * sqrt(K). A cast result has the tolerance of the coarser of the two
types; f16 is within one f16 ulp: rtol 2^-10, atol 2^-24 (its subnormal
spacing).
"""

import math
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

rlx_run, rlx_opt, fused_path = sys.argv[1:4]
check = Checker(rlx_run)
fused_out = open(fused_path, "w")

ELEM_TOL = {"f32": (1e-5, 1e-6), "f64": (1e-11, 1e-13),
            "f16": (2.0 ** -10, 2.0 ** -24)}
NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16}


def coarser(a, b):
    order = ["f16", "f32", "f64"]
    return order[min(order.index(a), order.index(b))]


def silu(x):
    return F.silu(torch.from_numpy(x)).numpy()


def graph(args, body, results):
    """@main with `args` [(name, array)], `body` lines, `results`
    [(value, type)]."""
    sig = ", ".join(f"%{n}: {tensor_type(a.shape, a.dtype)} "
                    f"{{rlx.input = \"{n}\"}}" for n, a in args)
    types = ", ".join(t for _, t in results)
    vals = ", ".join(v for v, _ in results)
    return "\n".join([f"func.func @main({sig}) -> ({types}) {{"] +
                     [f"  {line}" for line in body] +
                     [f"  return {vals} : {types}", "}", ""])


def fuse(name, mlir):
    """`rlx-opt --rlx-fuse` of `mlir`, also written to the checked file."""
    proc = subprocess.run([rlx_opt, "--rlx-fuse"], input=mlir,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL: rlx-opt --rlx-fuse on {name}:\n{proc.stderr}")
        check.failed += 1
        return None
    fused_out.write(f"// case: {name}\n{proc.stdout}")
    return proc.stdout


def run_both(name, args, body, results, wants):
    """Runs the chain and its fused form; `wants` [(what, array, rtol,
    atol)] in result order."""
    mlir = graph(args, body, results)
    fused = fuse(name, mlir)
    for form, text in (("primitive", mlir), ("fused", fused)):
        outs = check.run(text, dict(args)) if text else None
        outs = outs or [None] * len(wants)
        for got, (what, want, rtol, atol) in zip(outs, wants):
            check.close(f"{name} {what} [{form}]", got, want, rtol, atol)


def chain(up, gate, t, silu_first, cast, i):
    """The SwiGLU tail on the `up` and `gate` values of type `t`: silu, mul
    (+ cast); returns the lines and the result value."""
    lhs, rhs = (f"%s{i}", up) if silu_first else (up, f"%s{i}")
    body = [f"%s{i} = rlx.activation silu {gate} : {t}",
            f"%p{i} = rlx.binary mul {lhs}, {rhs} : {t}, {t}"]
    if not cast:
        return body, f"%p{i}"
    return body + [f"%c{i} = rlx.cast %p{i} : {t} to {cast}"], f"%c{i}"


# Each variant: (up in the low half, silu operand first in the mul, cast).
VARIANTS = [(True, True, None), (False, False, None), (True, False, "f64"),
            (False, True, "f16"), (True, True, "f32")]

#===------------------------------------------------------------------------===#
# Narrow-split form
#===------------------------------------------------------------------------===#

for dt in ("f32", "f64"):
    for lead, half in (((5,), 7), ((2, 3), 9), ((1,), 1), ((3, 4), 13)):
        x = check.uniform(lead + (2 * half,), NP[dt], -3, 3)
        X = x.astype(np.float64)
        last = len(lead)
        xt = tensor_type(x.shape, x.dtype)
        ht = tensor_type(lead + (half,), x.dtype)
        body, results, wants = [], [], []
        for i, (up_low, silu_first, cast) in enumerate(VARIANTS):
            up_start, gate_start = (0, half) if up_low else (half, 0)
            # The gate narrow first half the time: matching is by dataflow.
            narrows = [f"%u{i} = rlx.narrow %x axis = {last} start = "
                       f"{up_start} len = {half} : {xt}",
                       f"%v{i} = rlx.narrow %x axis = {last} start = "
                       f"{gate_start} len = {half} : {xt}"]
            body += narrows if i % 2 else narrows[::-1]
            lines, res = chain(f"%u{i}", f"%v{i}", ht, silu_first,
                               cast, i)
            body += lines
            out_dt = cast or dt
            results.append((res, tensor_type(lead + (half,), NP[out_dt])))
            up, gate = (X[..., :half], X[..., half:]) if up_low else \
                (X[..., half:], X[..., :half])
            rtol, atol = ELEM_TOL[coarser(dt, out_dt)]
            wants.append((f"up_low={up_low} silu_first={silu_first} "
                          f"cast={cast}",
                          (up * silu(gate)).astype(NP[out_dt]), rtol, atol))
        run_both(f"narrow {lead}x{2 * half} {dt}", [("x", x)], body, results,
                 wants)

#===------------------------------------------------------------------------===#
# Dual-matmul form
#===------------------------------------------------------------------------===#

for dt in ("f32", "f64"):
    for lead, k, h in (((9,), 17, 5), ((2, 5), 11, 7), ((3,), 1, 3)):
        x = check.uniform(lead + (k,), NP[dt])
        wg = check.uniform((k, h), NP[dt])
        wu = check.uniform((k, h), NP[dt])
        X, WG, WU = (a.astype(np.float64) for a in (x, wg, wu))
        xt, wt = tensor_type(x.shape, x.dtype), tensor_type(wg.shape, wg.dtype)
        ht = tensor_type(lead + (h,), x.dtype)
        want = (X @ WU) * silu(X @ WG)
        body, results, wants = [], [], []
        for i, (_, silu_first, cast) in enumerate(VARIANTS):
            mm = [f"%u{i} = rlx.matmul %x, %wu : {xt}, {wt}",
                  f"%v{i} = rlx.matmul %x, %wg : {xt}, {wt}"]
            body += mm if i % 2 else mm[::-1]
            lines, res = chain(f"%u{i}", f"%v{i}", ht, silu_first,
                               cast, i)
            body += lines
            out_dt = cast or dt
            results.append((res, tensor_type(lead + (h,), NP[out_dt])))
            rtol, atol = ELEM_TOL[coarser(dt, out_dt)]
            if coarser(dt, out_dt) != "f16":
                atol = (2e-6 if coarser(dt, out_dt) == "f32" else 1e-12) * \
                    math.sqrt(k)
            wants.append((f"silu_first={silu_first} cast={cast}",
                          want.astype(NP[out_dt]), rtol, atol))
        run_both(f"dual matmul {lead}x{k} @ {k}x{h} {dt}",
                 [("x", x), ("wg", wg), ("wu", wu)], body, results, wants)

fused_out.close()
check.finish()
