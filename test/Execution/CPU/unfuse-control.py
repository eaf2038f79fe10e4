"""rlx-unfuse's control-flow and region decompositions, numerically: each
graph is rewritten by `rlx-opt --rlx-unfuse` (target=all), run with rlx-run
and compared with a NumPy oracle. The elementwise and batch regions, which
the CPU also lowers natively, are compared fused against unfused too.

Covered: rlx.if with two results of different shapes and dtypes, a `[]`
and a `[1]` predicate, both predicate values; rlx.while with an f32 and an
i32 carry (different shapes) whose loop stops before the bound, runs to
the bound or never runs, and a loop with f64/f32 carries of different
ranks; rlx.custom_fn (f64, with a vjp rule that is dropped); elementwise
regions (a broadcasting float chain with a constant, compare, select and
exp; an integer / i1 / cast chain; the resize_nearest2x prologue); a batch
region; a transform region (resize_nearest2x, transpose); primitives
through rlx-fuse and back through rlx-unfuse (gelu, gelu_approx, silu,
sigmoid, compare, where, cast; f32 and f16).

Tolerances: f32 rtol 1e-5 (atol 1e-6), f64 rtol 1e-11 (atol 1e-12);
integers and booleans exactly. The f16 fuse/unfuse round trip uses rtol
2e-3 / atol 2e-3 (about two f16 ulps: a vectorised approximation may round
a transcendental differently before the f16 rounding). Fused against unfused uses the same
tolerances (each primitive rounds once as the region's scalar op does; only
vectorised transcendental approximations may differ).
"""

import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
RLX_OPT = sys.argv[2]
TOL = {np.float32: (1e-5, 1e-6), np.float64: (1e-11, 1e-12)}
COMPOSITES = ("rlx.if", "rlx.while", "rlx.custom_fn", "rlx.elementwise_region",
              "rlx.batch_elementwise_region", "rlx.transform_region")


def T(shape, dtype):
    return tensor_type(shape, dtype)


def graph(args, body, results):
    """A @main with `args` [(name, array)] as named inputs, `body` lines and
    `results` [(value, type)]."""
    sig = ", ".join(f"%{n}: {T(a.shape, a.dtype)} {{rlx.input = \"{n}\"}}"
                    for n, a in args)
    types = ", ".join(t for _, t in results)
    vals = ", ".join(v for v, _ in results)
    return "\n".join([f"func.func @main({sig}) -> ({types}) {{",
                      *[f"  {line}" for line in body],
                      f"  return {vals} : {types}", "}"])


def unfuse(mlir, what):
    """`mlir` after rlx-unfuse; None (a recorded failure) if it fails or
    leaves a composite op."""
    proc = subprocess.run([RLX_OPT, "--rlx-unfuse"], input=mlir,
                          capture_output=True, text=True)
    left = [op for op in COMPOSITES if op + " " in proc.stdout
            or op + "(" in proc.stdout]
    if proc.returncode != 0 or left:
        print(f"FAIL {what}: rlx-unfuse exited {proc.returncode}, left "
              f"{left}:\n{proc.stderr}")
        check.failed += 1
        return None
    return proc.stdout


def run_unfused(what, args, body, results):
    """The outputs of the unfused graph (a list of Nones on failure)."""
    mlir = graph(args, body, results)
    unfused = unfuse(mlir, what)
    outs = check.run(unfused, dict(args)) if unfused else None
    return outs if outs else [None] * len(results)


def run_both(what, args, body, results):
    """Outputs of the fused graph (run natively) and of the unfused one."""
    fused = check.run(graph(args, body, results), dict(args))
    return (fused if fused else [None] * len(results),
            run_unfused(what, args, body, results))


def f(dtype):
    return {np.float32: "f32", np.float64: "f64"}[dtype]


#===------------------------------------------------------------------------===#
# rlx.if: two results of different shapes and dtypes
#===------------------------------------------------------------------------===#

for pshape in ((), (1,)):
    for pval in (True, False):
        x = check.uniform((3, 4), np.float32, -2, 2)
        y = check.uniform((3, 4), np.float32, -2, 2)
        k = check.integers((5,), np.int32, -100, 100)
        p = np.full(pshape, pval, np.bool_)
        pt, xt, kt = T(pshape, np.bool_), T((3, 4), np.float32), T((5,),
                                                                   np.int32)
        body = [
            f"%r:2 = rlx.if %p : {pt} -> {xt}, {kt} {{",
            f"  %t = rlx.activation tanh %x : {xt}",
            f"  %m = rlx.binary mul %t, %y : {xt}, {xt}",
            f"  rlx.yield %m, %k : {xt}, {kt}",
            "} else {",
            f"  %e = rlx.activation exp %x : {xt}",
            f"  %n = rlx.activation neg %k : {kt}",
            f"  rlx.yield %e, %n : {xt}, {kt}",
            "}"]
        outs = run_unfused("if", [("p", p), ("x", x), ("y", y), ("k", k)],
                           body, [("%r#0", xt), ("%r#1", kt)])
        X = x.astype(np.float64)
        want0 = np.tanh(X) * y if pval else np.exp(X)
        want1 = k if pval else -k
        what = f"if predicate {pshape}={pval}"
        check.close(what + " #0", outs[0], want0.astype(np.float32),
                    *TOL[np.float32])
        check.close(what + " #1", outs[1], want1.astype(np.int32), 0, 0)

#===------------------------------------------------------------------------===#
# rlx.while: an f32 [5] and an i32 [] carry; i < lim, x = tanh(x) * 1.5 + 0.25
#===------------------------------------------------------------------------===#

BOUND = 6
for lim in (3, BOUND + 4, 0, BOUND):
    x = check.uniform((5,), np.float32, -2, 2)
    i0 = np.array(0, np.int32)
    limit = np.array(lim, np.int32)
    xt, it = T((5,), np.float32), T((), np.int32)
    body = [
        f"%r:2 = rlx.while %x, %i0 : {xt}, {it} max_iterations = {BOUND} cond {{",
        f"^bb0(%c: {xt}, %i: {it}):",
        f"  %p = rlx.compare lt %i, %lim : {it}, {it}",
        f"  rlx.yield %p, %c, %i : tensor<i1>, {xt}, {it}",
        "} do {",
        f"^bb0(%c: {xt}, %i: {it}):",
        f"  %t = rlx.activation tanh %c : {xt}",
        "  %s = rlx.constant dense<1.5> : tensor<f32>",
        "  %h = rlx.constant dense<0.25> : tensor<f32>",
        f"  %m = rlx.binary mul %t, %s : {xt}, tensor<f32>",
        f"  %a = rlx.binary add %m, %h : {xt}, tensor<f32>",
        "  %one = rlx.constant dense<1> : tensor<i32>",
        f"  %j = rlx.binary add %i, %one : {it}, {it}",
        f"  rlx.yield %a, %j : {xt}, {it}",
        "}"]
    outs = run_unfused("while", [("x", x), ("i0", i0), ("lim", limit)], body,
                       [("%r#0", xt), ("%r#1", it)])
    cx, ci = x.astype(np.float64), 0
    for _ in range(BOUND):
        if not ci < lim:
            break
        cx, ci = np.tanh(cx) * 1.5 + 0.25, ci + 1
    check.close(f"while lim={lim} carry x", outs[0], cx.astype(np.float32),
                *TOL[np.float32])
    check.close(f"while lim={lim} counter", outs[1], np.array(ci, np.int32),
                0, 0)

# f64 [2,3] and f32 [4] carries; the [1] predicate: sum-free test on the
# f32 carry's first element, a[0] < 10, while a doubles and m = m * 0.5 + 1.
for start in (0.3, 3.0, 20.0):
    a = check.uniform((4,), np.float32, 0.5, 1.0)
    a[0] = start
    m = check.uniform((2, 3), np.float64, -1, 1)
    at, mt = T((4,), np.float32), T((2, 3), np.float64)
    body = [
        f"%r:2 = rlx.while %m, %a : {mt}, {at} max_iterations = 4 cond {{",
        f"^bb0(%c: {mt}, %d: {at}):",
        f"  %d0 = rlx.narrow %d axis = 0 start = 0 len = 1 : {at}",
        "  %ten = rlx.constant dense<10.0> : tensor<1xf32>",
        "  %p = rlx.compare lt %d0, %ten : tensor<1xf32>, tensor<1xf32>",
        f"  rlx.yield %p, %c, %d : tensor<1xi1>, {mt}, {at}",
        "} do {",
        f"^bb0(%c: {mt}, %d: {at}):",
        f"  %dd = rlx.binary add %d, %d : {at}, {at}",
        "  %h = rlx.constant dense<0.5> : tensor<f64>",
        "  %one = rlx.constant dense<1.0> : tensor<f64>",
        f"  %ch = rlx.binary mul %c, %h : {mt}, tensor<f64>",
        f"  %c1 = rlx.binary add %ch, %one : {mt}, tensor<f64>",
        f"  rlx.yield %c1, %dd : {mt}, {at}",
        "}"]
    outs = run_unfused("while f64/f32", [("m", m), ("a", a)], body,
                       [("%r#0", mt), ("%r#1", at)])
    cm, ca = m.copy(), a.astype(np.float64)
    for _ in range(4):
        if not ca[0] < 10:
            break
        cm, ca = cm * 0.5 + 1, ca * 2
    check.close(f"while start={start} f64 carry", outs[0], cm,
                *TOL[np.float64])
    check.close(f"while start={start} f32 carry", outs[1],
                ca.astype(np.float32), *TOL[np.float32])

#===------------------------------------------------------------------------===#
# rlx.custom_fn: sin(x) * y + 1 (f64); the vjp rule is dropped
#===------------------------------------------------------------------------===#

x = check.uniform((3, 7), np.float64, -3, 3)
y = check.uniform((7,), np.float64, -1, 1)
xt, yt = T((3, 7), np.float64), T((7,), np.float64)
body = [
    f"%r = rlx.custom_fn(%x, %y) : ({xt}, {yt}) -> {xt} fwd {{",
    f"^bb0(%a: {xt}, %b: {yt}):",
    f"  %s = rlx.activation sin %a : {xt}",
    f"  %m = rlx.binary mul %s, %b : {xt}, {yt}",
    "  %one = rlx.constant dense<1.0> : tensor<f64>",
    f"  %o = rlx.binary add %m, %one : {xt}, tensor<f64>",
    f"  rlx.yield %o : {xt}",
    "} vjp {",
    f"^bb0(%a: {xt}, %b: {yt}, %y0: {xt}, %dy: {xt}):",
    f"  %c = rlx.activation cos %a : {xt}",
    f"  rlx.yield %c, %b : {xt}, {yt}",
    "}"]
outs = run_unfused("custom_fn", [("x", x), ("y", y)], body, [("%r", xt)])
check.close("custom_fn", outs[0], np.sin(x) * y + 1, *TOL[np.float64])

#===------------------------------------------------------------------------===#
# Elementwise regions: fused (native) against unfused against NumPy
#===------------------------------------------------------------------------===#


def region(inputs, out, body, prologue=None):
    """`%y = rlx.elementwise_region` of the named `inputs` [(name, array)]
    with rank-0 block arguments %e0, %e1, ..."""
    ins = ", ".join(T(a.shape, a.dtype) for _, a in inputs)
    blk = ", ".join(f"%e{i}: {tensor_type((), a.dtype)}"
                    for i, (_, a) in enumerate(inputs))
    pro = "" if prologue is None else f" prologue_input = {prologue}"
    return [f"%y = rlx.elementwise_region({', '.join('%' + n for n, _ in inputs)})"
            f" : ({ins}) -> {out}{pro} body {{",
            f"^bb0({blk}):", *[f"  {line}" for line in body], "}"]


def compare_three(what, args, body, out_type, want, tol):
    fused, unfused = run_both(what, args, body, [("%y", out_type)])
    check.close(what + " unfused vs oracle", unfused[0], want, *tol)
    check.close(what + " unfused vs fused", unfused[0],
                fused[0] if fused[0] is not None else None, *tol)


# where(relu(x * s + b) > x, exp(relu(...)), x): [4,8] x [] x [8].
for dtype in (np.float32, np.float64):
    t = f"tensor<{f(dtype)}>"
    for shape in ((4, 8), (2, 3, 5)):
        x = check.uniform(shape, dtype, -2, 2)
        s = check.uniform((), dtype, 0.5, 2)
        b = check.uniform(shape[-1:], dtype, -1, 1)
        body = region([("x", x), ("s", s), ("b", b)], T(shape, dtype), [
            f"%m = rlx.binary mul %e0, %e1 : {t}, {t}",
            f"%a = rlx.binary add %m, %e2 : {t}, {t}",
            f"%r = rlx.activation relu %a : {t}",
            f"%c = rlx.compare gt %r, %e0 : {t}, {t}",
            f"%e = rlx.activation exp %r : {t}",
            f"%w = rlx.where %c, %e, %e0 : tensor<i1>, {t}, {t}",
            f"rlx.yield %w : {t}"])
        r = np.maximum(x * s + b, 0)
        want = np.where(r > x, np.exp(r.astype(np.float64)), x).astype(dtype)
        compare_three(f"region float chain {shape} {np.dtype(dtype)}",
                      [("x", x), ("s", s), ("b", b)], body, T(shape, dtype),
                      want, TOL[dtype])

# Integers, i1 logic and casts; [3,1,5] x [4,1] x [5] broadcasting.
i = check.integers((3, 1, 5), np.int32, -20, 20)
p = check.integers((4, 1), np.bool_, 0, 2)
q = check.integers((5,), np.bool_, 0, 2)
body = region([("i", i), ("p", p), ("q", q)], T((3, 4, 5), np.int32), [
    "%three = rlx.constant dense<3> : tensor<i32>",
    "%m = rlx.binary mul %e0, %three : tensor<i32>, tensor<i32>",
    # A divisor that is never 0, so the oracle's division is defined.
    "%zero = rlx.constant dense<0> : tensor<i32>",
    "%one = rlx.constant dense<1> : tensor<i32>",
    "%isz = rlx.compare eq %e0, %zero : tensor<i32>, tensor<i32>",
    "%dv = rlx.where %isz, %one, %e0 : tensor<i1>, tensor<i32>, tensor<i32>",
    "%d = rlx.binary div %m, %dv : tensor<i32>, tensor<i32>",
    "%and = rlx.binary min %e1, %e2 : tensor<i1>, tensor<i1>",
    "%or = rlx.binary max %and, %e2 : tensor<i1>, tensor<i1>",
    "%t = rlx.constant dense<true> : tensor<i1>",
    "%not = rlx.compare ne %or, %t : tensor<i1>, tensor<i1>",
    "%lt = rlx.compare gt %e0, %d : tensor<i32>, tensor<i32>",
    "%fb = rlx.cast %not : tensor<i1> to f32",
    "%w = rlx.cast %m : tensor<i32> to i64",
    "%g = rlx.cast %w : tensor<i64> to f64",
    "%h = rlx.cast %fb : tensor<f32> to f64",
    "%hh = rlx.constant dense<0.75> : tensor<f64>",
    "%hm = rlx.binary mul %h, %hh : tensor<f64>, tensor<f64>",
    "%s = rlx.binary sub %g, %hm : tensor<f64>, tensor<f64>",
    "%k = rlx.cast %s : tensor<f64> to i32",
    "%y = rlx.where %lt, %k, %d : tensor<i1>, tensor<i32>, tensor<i32>",
    "rlx.yield %y : tensor<i32>"])
nt = ~((p & q) | q)
s = (i * 3).astype(np.float64) - nt.astype(np.float64) * 0.75
k = np.trunc(s).astype(np.int32)
dv = np.where(i == 0, 1, i)
d = np.trunc(i * 3 / dv).astype(np.int32)
want = np.where(i > d, k, d)
want = np.broadcast_to(want, (3, 4, 5)).astype(np.int32)
compare_three("region int/i1/cast chain", [("i", i), ("p", p), ("q", q)],
              body, T((3, 4, 5), np.int32), want, (0, 0))


def upsample(v):
    return v.repeat(2, axis=2).repeat(2, axis=3)


# The resize_nearest2x prologue on the second input.
for dtype in (np.float32, np.float64):
    t = f"tensor<{f(dtype)}>"
    full = check.uniform((2, 3, 4, 6), dtype, -2, 2)
    low = check.uniform((2, 3, 2, 3), dtype, -2, 2)
    body = region([("full", full), ("low", low)], T(full.shape, dtype), [
        f"%s = rlx.binary sub %e0, %e1 : {t}, {t}",
        f"%t = rlx.activation tanh %s : {t}",
        f"rlx.yield %t : {t}"], prologue=1)
    want = np.tanh(full.astype(np.float64) - upsample(low)).astype(dtype)
    compare_three(f"region prologue {np.dtype(dtype)}",
                  [("full", full), ("low", low)], body, T(full.shape, dtype),
                  want, TOL[dtype])

# Batch region: sigmoid as its primitive ops, then widened to f64.
xs = [check.uniform((3, 5), np.float32, -4, 4) for _ in range(3)]
xt, ot = T((3, 5), np.float32), T((3, 5), np.float64)
args = [(f"x{j}", v) for j, v in enumerate(xs)]
body = [
    f"%y:3 = rlx.batch_elementwise_region(%x0, %x1, %x2) : ({xt}, {xt}, {xt})"
    f" -> ({ot}, {ot}, {ot}) body {{",
    "^bb0(%e: tensor<f32>):",
    "  %n = rlx.activation neg %e : tensor<f32>",
    "  %x = rlx.activation exp %n : tensor<f32>",
    "  %one = rlx.constant dense<1.0> : tensor<f32>",
    "  %d = rlx.binary add %one, %x : tensor<f32>, tensor<f32>",
    "  %s = rlx.binary div %one, %d : tensor<f32>, tensor<f32>",
    "  %w = rlx.cast %s : tensor<f32> to f64",
    "  rlx.yield %w : tensor<f64>",
    "}"]
res = [(f"%y#{j}", ot) for j in range(3)]
fused, unfused = run_both("batch region", args, body, res)
for j, v in enumerate(xs):
    want = (1 / (1 + np.exp(-v.astype(np.float64)))).astype(np.float32)
    check.close(f"batch region #{j} unfused vs oracle", unfused[j],
                want.astype(np.float64), *TOL[np.float32])
    check.close(f"batch region #{j} unfused vs fused", unfused[j], fused[j],
                *TOL[np.float32])

# Transform region: resize_nearest2x, transpose H/W, resize_nearest2x.
x = check.uniform((1, 2, 3, 5), np.float32, -1, 1)
body = [
    "%y = rlx.transform_region(%x) : (tensor<1x2x3x5xf32>) -> "
    "tensor<1x2x20x12xf32> body {",
    "^bb0(%a: tensor<1x2x3x5xf32>):",
    "  %b = rlx.resize_nearest2x %a : tensor<1x2x3x5xf32>",
    "  %t = rlx.transpose %b perm = [0, 1, 3, 2] : tensor<1x2x6x10xf32>",
    "  %c = rlx.resize_nearest2x %t : tensor<1x2x10x6xf32>",
    "  rlx.yield %c : tensor<1x2x20x12xf32>",
    "}"]
outs = run_unfused("transform region", [("x", x)], body,
                   [("%y", "tensor<1x2x20x12xf32>")])
check.close("transform region", outs[0],
            upsample(upsample(x).transpose(0, 1, 3, 2)), 0, 0)

#===------------------------------------------------------------------------===#
# rlx-fuse then rlx-unfuse: the regions rlx-fuse builds (gelu, gelu_approx,
# silu, sigmoid in f32 and f16, casts, compare, where) decompose back, and
# primitives, fused and unfused agree
#===------------------------------------------------------------------------===#


def fuse(mlir):
    proc = subprocess.run([RLX_OPT, "--rlx-fuse"], input=mlir,
                          capture_output=True, text=True)
    if proc.returncode != 0 or "rlx.elementwise_region" not in proc.stdout:
        print(f"FAIL rlx-fuse made no region:\n{proc.stderr}")
        check.failed += 1
        return None
    return proc.stdout


for dtype, tol in ((np.float32, TOL[np.float32]), (np.float16, (2e-3, 2e-3))):
    t = tensor_type((), dtype)[7:-1]
    x = check.uniform((4, 9), dtype, -3, 3)
    b = check.uniform((9,), dtype, -1, 1)
    xt, bt = T(x.shape, dtype), T(b.shape, dtype)
    body = [
        f"%g = rlx.activation gelu %x : {xt}",
        f"%a = rlx.binary add %g, %b : {xt}, {bt}",
        f"%q = rlx.activation gelu_approx %a : {xt}",
        f"%s = rlx.activation silu %q : {xt}",
        f"%c = rlx.compare gt %s, %b : {xt}, {bt}",
        f"%m = rlx.activation sigmoid %x : {xt}",
        f"%w = rlx.where %c, %s, %m : {T(x.shape, np.bool_)}, {xt}, {xt}",
        f"%y = rlx.cast %w : {xt} to f64"]
    args = [("x", x), ("b", b)]
    ot = T(x.shape, np.float64)
    mlir = graph(args, body, [("%y", ot)])
    plain = check.run(mlir, dict(args))
    fused_mlir = fuse(mlir)
    fused = check.run(fused_mlir, dict(args)) if fused_mlir else None
    unfused_mlir = unfuse(fused_mlir, "fuse/unfuse") if fused_mlir else None
    unfused = check.run(unfused_mlir, dict(args)) if unfused_mlir else None
    what = f"fuse/unfuse {np.dtype(dtype)}"
    ref = plain[0] if plain else None
    check.close(what + " fused vs primitives", fused[0] if fused else None,
                ref, *tol)
    check.close(what + " unfused vs primitives",
                unfused[0] if unfused else None, ref, *tol)

check.finish()
