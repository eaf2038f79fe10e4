"""rlx.elementwise_region (with and without the resize_nearest2x prologue)
and rlx.batch_elementwise_region on the CPU against NumPy.

Tolerances: f32 rtol 1e-6 (atol 1e-7) for arithmetic only, rtol 1e-5
(atol 1e-6) with transcendental functions; f64 rtol 1e-12; integers and
booleans exactly.
"""

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type, MLIR_TYPES  # noqa: E402

check = Checker(sys.argv[1])

TOL = {np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-14)}


def region_graph(shapes, dtypes, out_shape, out_dtype, body, prologue=None):
    """A function whose inputs x0, x1, ... feed one elementwise_region with
    the per-element `body` (rank-0 block arguments %e0, %e1, ...)."""
    ins = [tensor_type(s, d) for s, d in zip(shapes, dtypes)]
    out = tensor_type(out_shape, out_dtype)
    args = ", ".join(f"%x{i}: {t} {{rlx.input = \"x{i}\"}}"
                     for i, t in enumerate(ins))
    blk = ", ".join(f"%e{i}: tensor<{MLIR_TYPES[np.dtype(d)]}>"
                    for i, d in enumerate(dtypes))
    pro = "" if prologue is None else f" prologue_input = {prologue}"
    return "\n".join([
        f"func.func @main({args}) -> {out} {{",
        f"  %y = rlx.elementwise_region({', '.join(f'%x{i}' for i in range(len(ins)))})"
        f" : ({', '.join(ins)}) -> {out}{pro} body {{",
        f"  ^bb0({blk}):",
        *[f"    {line}" for line in body],
        "  }",
        f"  return %y : {out}",
        "}"])


def ftype(dtype):
    return MLIR_TYPES[np.dtype(dtype)]


def rank0(dtype):
    """The rank-0 tensor type region bodies compute an element in."""
    return f"tensor<{ftype(dtype)}>"


# relu(x * s + b): a rank-0 scale and a bias along the last dim.
for dtype in (np.float32, np.float64):
    f = rank0(dtype)
    for shape in ((4, 8), (3, 5, 7), (1,), (2, 1, 9)):
        x = check.uniform(shape, dtype, -2, 2)
        s = check.uniform((), dtype, 0.5, 2)
        b = check.uniform(shape[-1:], dtype, -1, 1)
        body = [f"%m = rlx.binary mul %e0, %e1 : {f}, {f}",
                f"%a = rlx.binary add %m, %e2 : {f}, {f}",
                f"%r = rlx.activation relu %a : {f}",
                f"rlx.yield %r : {f}"]
        outs = check.run(region_graph([shape, (), shape[-1:]], [dtype] * 3,
                                      shape, dtype, body),
                         {"x0": x, "x1": s, "x2": b})
        want = np.maximum(x * s + b, dtype(0)).astype(dtype)
        check.close(f"region relu(x*s+b) {shape} {np.dtype(dtype)}",
                    outs[0] if outs else None, want, *TOL[dtype])

# Two-sided broadcasting [5,1] x [1,6] with transcendental functions and a
# select: where(a > b, exp(a) * tanh(b), b - a).
for dtype in (np.float32, np.float64):
    f = rank0(dtype)
    for sa, sb, so in (((5, 1), (1, 6), (5, 6)), ((7,), (3, 1), (3, 7)),
                       ((2, 3, 1), (4,), (2, 3, 4))):
        a = check.uniform(sa, dtype, -2, 2)
        b = check.uniform(sb, dtype, -2, 2)
        body = [f"%c = rlx.compare gt %e0, %e1 : {f}, {f}",
                f"%x = rlx.activation exp %e0 : {f}",
                f"%t = rlx.activation tanh %e1 : {f}",
                f"%p = rlx.binary mul %x, %t : {f}, {f}",
                f"%d = rlx.binary sub %e1, %e0 : {f}, {f}",
                f"%r = rlx.where %c, %p, %d : tensor<i1>, {f}, {f}",
                f"rlx.yield %r : {f}"]
        outs = check.run(region_graph([sa, sb], [dtype] * 2, so, dtype, body),
                         {"x0": a, "x1": b})
        want = np.where(a > b, np.exp(a) * np.tanh(b), b - a).astype(dtype)
        check.close(f"region exp/tanh/select {sa}x{sb} {np.dtype(dtype)}",
                    outs[0] if outs else None, want, *TOL[dtype])

# Mixed element types: an i1 mask, an i32 tensor and an f32 one; the result
# is f32. And a boolean result: (a * 3 + b) > 10 on i32.
m = check.integers((4, 5), np.bool_, 0, 2)
n = check.integers((5,), np.int32, -50, 50)
x = check.uniform((4, 5), np.float32, -3, 3)
body = ["%nf = rlx.cast %e1 : tensor<i32> to f32",
        "%s = rlx.binary add %nf, %e2 : tensor<f32>, tensor<f32>",
        "%r = rlx.where %e0, %s, %e2 : tensor<i1>, tensor<f32>, tensor<f32>",
        "rlx.yield %r : tensor<f32>"]
outs = check.run(region_graph([(4, 5), (5,), (4, 5)],
                              [np.bool_, np.int32, np.float32], (4, 5),
                              np.float32, body), {"x0": m, "x1": n, "x2": x})
want = np.where(m, n.astype(np.float32) + x, x).astype(np.float32)
check.close("region i1/i32/f32 inputs", outs[0] if outs else None, want,
            1e-6, 1e-7)

for dtype in (np.int32, np.int64):
    t = rank0(dtype)
    a = check.integers((3, 1, 5), dtype, -20, 20)
    b = check.integers((4, 1), dtype, -20, 20)
    body = [f"%k = rlx.constant dense<3> : {t}",
            f"%m = rlx.binary mul %e0, %k : {t}, {t}",
            f"%s = rlx.binary add %m, %e1 : {t}, {t}",
            f"%ten = rlx.constant dense<10> : {t}",
            f"%c = rlx.compare gt %s, %ten : {t}, {t}",
            "rlx.yield %c : tensor<i1>"]
    outs = check.run(region_graph([(3, 1, 5), (4, 1)], [dtype] * 2,
                                  (3, 4, 5), np.bool_, body),
                     {"x0": a, "x1": b})
    want = (a * 3 + b) > 10
    check.close(f"region integer compare {np.dtype(dtype)}",
                outs[0] if outs else None, want, 0, 0)


# The resize_nearest2x prologue: input `prologue_input` is upsampled 2x
# (NCHW, nearest) before the chain reads it.
def upsample(x):
    return x.repeat(2, axis=2).repeat(2, axis=3)


for dtype in (np.float32, np.float64):
    f = rank0(dtype)
    for n, c, h, w in ((1, 2, 3, 4), (2, 3, 5, 1), (1, 1, 1, 7)):
        low = check.uniform((n, c, h, w), dtype, -2, 2)
        full = check.uniform((n, c, 2 * h, 2 * w), dtype, -2, 2)
        bias = check.uniform((c, 1, 1), dtype, -1, 1)
        body = [f"%a = rlx.binary add %e0, %e1 : {f}, {f}",
                f"%m = rlx.binary mul %a, %e2 : {f}, {f}",
                f"rlx.yield %m : {f}"]
        # The prologue input second, then first.
        outs = check.run(region_graph([(n, c, 2 * h, 2 * w), (n, c, h, w),
                                       (c, 1, 1)], [dtype] * 3,
                                      (n, c, 2 * h, 2 * w), dtype, body,
                                      prologue=1),
                         {"x0": full, "x1": low, "x2": bias})
        want = ((full + upsample(low)) * bias).astype(dtype)
        check.close(f"region prologue=1 {(n, c, h, w)} {np.dtype(dtype)}",
                    outs[0] if outs else None, want, *TOL[dtype])
        body = [f"%s = rlx.binary sub %e0, %e1 : {f}, {f}",
                f"rlx.yield %s : {f}"]
        outs = check.run(region_graph([(n, c, h, w), (1, c, 1, 2 * w)],
                                      [dtype] * 2, (n, c, 2 * h, 2 * w),
                                      dtype, body, prologue=0),
                         {"x0": low, "x1": full[:1, :, :1, :]})
        want = (upsample(low) - full[:1, :, :1, :]).astype(dtype)
        check.close(f"region prologue=0 {(n, c, h, w)} {np.dtype(dtype)}",
                    outs[0] if outs else None, want, *TOL[dtype])


# rlx.batch_elementwise_region: one body, several inputs, several results.
def batch_graph(shape, dtype, count, body, out_dtype):
    t = tensor_type(shape, dtype)
    o = tensor_type(shape, out_dtype)
    args = ", ".join(f"%x{i}: {t} {{rlx.input = \"x{i}\"}}" for i in range(count))
    names = ", ".join(f"%x{i}" for i in range(count))
    res = ", ".join(f"%y#{i}" for i in range(count)) if count > 1 else "%y"
    lhs = f"%y:{count}" if count > 1 else "%y"
    return "\n".join([
        f"func.func @main({args}) -> ({', '.join([o] * count)}) {{",
        f"  {lhs} = rlx.batch_elementwise_region({names}) : "
        f"({', '.join([t] * count)}) -> ({', '.join([o] * count)}) body {{",
        f"  ^bb0(%e: {rank0(dtype)}):",
        *[f"    {line}" for line in body],
        "  }",
        f"  return {res} : {', '.join([o] * count)}",
        "}"])


for dtype in (np.float32, np.float64):
    f = rank0(dtype)
    for shape, count in (((8,), 2), ((3, 5), 3), ((2, 3, 7), 1)):
        xs = [check.uniform(shape, dtype, -3, 3) for _ in range(count)]
        body = [f"%t = rlx.activation tanh %e : {f}",
                f"%h = rlx.constant dense<0.5> : {f}",
                f"%m = rlx.binary mul %t, %h : {f}, {f}",
                f"rlx.yield %m : {f}"]
        outs = check.run(batch_graph(shape, dtype, count, body, dtype),
                         {f"x{i}": x for i, x in enumerate(xs)})
        for i, x in enumerate(xs):
            check.close(f"batch region tanh {shape} #{i} {np.dtype(dtype)}",
                        outs[i] if outs and len(outs) > i else None,
                        (np.tanh(x) * dtype(0.5)).astype(dtype), *TOL[dtype])

xs = [check.uniform((6, 5), np.float32, -3, 3) for _ in range(2)]
outs = check.run(batch_graph((6, 5), np.float32, 2,
                             ["%z = rlx.constant dense<0.0> : tensor<f32>",
                              "%c = rlx.compare lt %e, %z"
                              " : tensor<f32>, tensor<f32>",
                              "rlx.yield %c : tensor<i1>"], np.bool_),
                 {f"x{i}": x for i, x in enumerate(xs)})
for i, x in enumerate(xs):
    check.close(f"batch region compare #{i}",
                outs[i] if outs and len(outs) > i else None, x < 0, 0, 0)

check.finish()
