"""The backward kernel ops on the CPU (rlx-run's pipeline decomposes them
with rlx-unfuse{target=cpu}) against torch.autograd in float64.

Each case runs one backward op on fresh random inputs and compares it with
`torch.autograd.grad` of the forward op, computed in f64 from the same
(rounded) inputs with the upstream gradient `dy`. For a few ops the oracle
itself is first confirmed against f64 central finite differences of
`<forward(x), dy>` along a random direction (rtol 1e-6).

Tolerances: f32 rtol 1e-5 with atol 1e-5 * scale * sqrt(n), where scale is
the largest magnitude of the expected gradient (at least 1; for the group
norm's input gradient at least max|gamma| max|dy| / min sigma, the size of
the terms whose cancellation the gradient is) and n the number
of terms a gradient element sums (1 for elementwise ops; the reduced extent
for norms, attention, convolutions and parameter gradients); f64 rtol 1e-10
with atol 1e-10 * scale * sqrt(n).
"""

import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402
from torch_reference import attention, attention_attrs  # noqa: E402

check = Checker(sys.argv[1])
torch.set_default_dtype(torch.float64)

EPS = 1e-5
EPS_F32 = float(np.float32(EPS))
DTYPES = (np.float32, np.float64)
TOL = {np.float32: 1e-5, np.float64: 1e-10}


def f64(a):
    return torch.from_numpy(np.ascontiguousarray(a).astype(
        np.complex128 if np.iscomplexobj(a) else np.float64)
        if np.dtype(a.dtype).kind in "fc" else np.ascontiguousarray(a))


def grads(fn, inputs, wrt, dy):
    """torch.autograd.grad of fn(*inputs) w.r.t. inputs[i] for i in wrt,
    with upstream dy; inputs are numpy arrays taken to f64."""
    ts = [f64(a) for a in inputs]
    for i in wrt:
        ts[i].requires_grad_(True)
    out = fn(*ts)
    return torch.autograd.grad(out, [ts[i] for i in wrt], f64(dy))


def fd_confirm(what, fn, inputs, i, dy, h=1e-6):
    """Checks the oracle: autograd's <grad_i, v> against the central
    difference of <fn(inputs), dy> along a random direction v of input i."""
    ts = [f64(a) for a in inputs]
    v = torch.from_numpy(check.rng.uniform(-1, 1, inputs[i].shape))
    g = grads(fn, inputs, [i], dy)[0]

    def loss(delta):
        moved = list(ts)
        moved[i] = ts[i] + delta * v
        return float((fn(*moved) * f64(dy)).sum())
    fd = (loss(h) - loss(-h)) / (2 * h)
    check.close(f"oracle FD {what}", np.float64(float((g * v).sum())),
                np.float64(fd), 1e-6, 1e-8)


def graph(args, body, result):
    """A @main taking `args` [(name, type)] and returning `%r : result`."""
    params = ", ".join(f"%{n}: {t} {{rlx.input = \"{n}\"}}" for n, t in args)
    return (f"func.func @main({params}) -> {result} {{\n  %r = {body}\n"
            f"  return %r : {result}\n}}")


def compare(what, dtype, mlir, inputs, want, n=1, scale=1.0):
    """`scale`: the size of the terms a gradient element sums, where it can
    exceed the result (a norm's input gradient carries gamma * dy / sigma,
    whose rounding error survives the cancellation that makes dx small)."""
    outs = check.run(mlir, inputs)
    want = np.asarray(want.detach().numpy() if torch.is_tensor(want) else want)
    tol = TOL[np.dtype(dtype).type] if np.dtype(dtype).kind == "f" else 1e-5
    scale = max(scale, float(np.abs(want).max()) if want.size else 1.0)
    check.close(f"{what} {np.dtype(dtype)}", outs[0] if outs else None,
                want.astype(dtype), tol, tol * scale * math.sqrt(n))


def T(a):
    return tensor_type(a.shape, a.dtype)


# --------------------------------------------------------------------------
# relu_backward and activation_backward
ACTS = {
    "gelu": (F.gelu, (-4, 4)),
    "gelu_approx": (lambda x: F.gelu(x, approximate="tanh"), (-4, 4)),
    "silu": (F.silu, (-5, 5)),
    "relu": (F.relu, (-2, 2)),
    "sigmoid": (torch.sigmoid, (-5, 5)),
    "tanh": (torch.tanh, (-3, 3)),
    "exp": (torch.exp, (-3, 3)),
    "log": (torch.log, (0.2, 3)),
    "sqrt": (torch.sqrt, (0.2, 3)),
    "rsqrt": (torch.rsqrt, (0.2, 3)),
    "neg": (torch.neg, (-2, 2)),
    "abs": (torch.abs, (-2, 2)),
    "sin": (torch.sin, (-4, 4)),
    "cos": (torch.cos, (-4, 4)),
    "tan": (torch.tan, (-1.2, 1.2)),
    "atan": (torch.atan, (-4, 4)),
    # Straight-through estimator: the gradient passes unchanged.
    "round": (lambda x: x, (-3, 3)),
}
for dtype in DTYPES:
    for shape in ((3, 5), (7,), (2, 1, 9)):
        x = check.uniform(shape, dtype, -2, 2)
        x.flat[0] = 0.0  # relu'(0) = 0
        dy = check.uniform(shape, dtype)
        want = grads(F.relu, [x], [0], dy)[0]
        compare(f"relu_backward {shape}", dtype,
                graph([("x", T(x)), ("dy", T(dy))],
                      f"rlx.relu_backward %x, %dy : {T(x)}, {T(dy)}", T(x)),
                {"x": x, "dy": dy}, want)
        for kind, (fn, (lo, hi)) in ACTS.items():
            x = check.uniform(shape, dtype, lo, hi)
            if kind in ("gelu", "abs", "relu"):
                x.flat[-1] = 0.0  # the x = 0 branch
            dy = check.uniform(shape, dtype)
            want = grads(fn, [x], [0], dy)[0]
            compare(f"activation_backward {kind} {shape}", dtype,
                    graph([("x", T(x)), ("dy", T(dy))],
                          f"rlx.activation_backward {kind} %x, %dy : "
                          f"{T(x)}, {T(dy)}", T(x)),
                    {"x": x, "dy": dy}, want)
x = check.uniform((4, 6), np.float64, -3, 3)
dy = check.uniform((4, 6), np.float64)
fd_confirm("gelu", F.gelu, [x], 0, dy)
fd_confirm("gelu_approx", ACTS["gelu_approx"][0], [x], 0, dy)


# --------------------------------------------------------------------------
# layer norm and rms norm, every axis
def layer_norm(x, g, axis):
    xx = x.movedim(axis, -1)
    y = F.layer_norm(xx, (xx.shape[-1],), g, None, EPS_F32)
    return y.movedim(-1, axis)


def rms_norm(x, g, b, axis):
    r = torch.rsqrt((x * x).mean(dim=axis, keepdim=True) + EPS_F32)
    shape = [1] * x.dim()
    shape[axis] = x.shape[axis]
    return x * r * g.reshape(shape) + b.reshape(shape)


NORM_CASES = [((3, 5, 7), [-1, 1, 0]), ((17,), [0]), ((2, 1, 9), [-1, 1]),
              ((4, 1, 33), [2]), ((6, 1), [0, -1])]
attrs = "{{axis = {} : i64, eps = {:e} : f32}}"
for dtype in DTYPES:
    for shape, axes in NORM_CASES:
        for axis in axes:
            d = shape[axis]
            n = int(np.prod(shape)) // d
            x = check.uniform(shape, dtype, -2, 2)
            g = check.uniform((d,), dtype, 0.5, 1.5)
            b = check.uniform((d,), dtype)
            dy = check.uniform(shape, dtype)
            a = attrs.format(axis, EPS)
            dx, dg = grads(lambda x, g: layer_norm(x, g, axis), [x, g],
                           [0, 1], dy)
            compare(f"layer_norm_backward_input {shape} axis {axis}", dtype,
                    graph([("x", T(x)), ("g", T(g)), ("dy", T(dy))],
                          f"rlx.layer_norm_backward_input %x, %g, %dy {a} : "
                          f"{T(x)}, {T(g)}, {T(dy)}", T(x)),
                    {"x": x, "g": g, "dy": dy}, dx, d)
            compare(f"layer_norm_backward_gamma {shape} axis {axis}", dtype,
                    graph([("x", T(x)), ("dy", T(dy))],
                          f"rlx.layer_norm_backward_gamma %x, %dy {a} : "
                          f"{T(x)}, {T(dy)}", T(g)),
                    {"x": x, "dy": dy}, dg, n * d)
            dx, dg, db = grads(lambda x, g, b: rms_norm(x, g, b, axis),
                               [x, g, b], [0, 1, 2], dy)
            for which, want, res, terms in (("input", dx, T(x), d),
                                            ("gamma", dg, T(g), n * d),
                                            ("beta", db, T(b), n)):
                compare(f"rms_norm_backward_{which} {shape} axis {axis}",
                        dtype,
                        graph([("x", T(x)), ("g", T(g)), ("b", T(b)),
                               ("dy", T(dy))],
                              f"rlx.rms_norm_backward_{which} %x, %g, %b, %dy "
                              f"{a} : {T(x)}, {T(g)}, {T(b)}, {T(dy)}", res),
                        {"x": x, "g": g, "b": b, "dy": dy}, want, terms)
# The layer norm's input gradient along the last axis, in the shapes that
# matter to the CUDA target's row kernel: one-element rows, rows longer than
# a block's 256 threads x 4-element groups, rows not a multiple of 4 (4-byte
# accesses), rows far from 0 (the kernel's shifted sums), and rows split
# over a cluster of blocks (32768: 4 blocks of 8192).
ROW_CASES = [((5, 1), 0.0), ((3, 4100), 0.0), ((4, 777), 0.0),
             ((6, 768), 30.0), ((2, 32768), 3.0)]
for dtype in DTYPES:
    for shape, offset in ROW_CASES:
        d = shape[-1]
        x = check.uniform(shape, dtype, offset - 2, offset + 2)
        g = check.uniform((d,), dtype, 0.5, 1.5)
        dy = check.uniform(shape, dtype)
        a = attrs.format(-1, EPS)
        dx, = grads(lambda x, g: layer_norm(x, g, -1), [x, g], [0], dy)
        compare(f"layer_norm_backward_input rows {shape} offset {offset}",
                dtype,
                graph([("x", T(x)), ("g", T(g)), ("dy", T(dy))],
                      f"rlx.layer_norm_backward_input %x, %g, %dy {a} : "
                      f"{T(x)}, {T(g)}, {T(dy)}", T(x)),
                {"x": x, "g": g, "dy": dy}, dx, d)
x = check.uniform((3, 8), np.float64, -2, 2)
g = check.uniform((8,), np.float64, 0.5, 1.5)
b = check.uniform((8,), np.float64)
dy = check.uniform((3, 8), np.float64)
fd_confirm("layer_norm x", lambda x, g: layer_norm(x, g, -1), [x, g], 0, dy)
fd_confirm("rms_norm gamma", lambda x, g, b: rms_norm(x, g, b, -1),
           [x, g, b], 1, dy)


# --------------------------------------------------------------------------
# group norm
def group_norm(x, g, b, groups):
    n = x.shape[0]
    xx = x.reshape(n, groups, -1)
    mean = xx.mean(dim=2, keepdim=True)
    var = ((xx - mean) ** 2).mean(dim=2, keepdim=True)
    y = ((xx - mean) / torch.sqrt(var + EPS_F32)).reshape(x.shape)
    return y * g.reshape(1, -1, 1, 1) + b.reshape(1, -1, 1, 1)


def well_conditioned_groups(shape, dtype, groups):
    """Uniform [-2, 2) x whose every group of more than one value has a
    standard deviation of at least 0.2. The input gradient subtracts terms
    of size 1 / sigma that cancel to the result, so its f32 error grows like
    1 / sigma^2: a group of two nearly equal values (shape (1, 4, 1, 1),
    G = 2) is ill conditioned beyond any fixed tolerance. (A one-value group
    normalizes to 0 whatever its value; groups of many values essentially
    never need a second draw.)"""
    while True:
        x = check.uniform(shape, dtype, -2, 2)
        grouped = x.astype(np.float64).reshape(shape[0], groups, -1)
        if grouped.shape[2] == 1 or grouped.std(axis=2).min() >= 0.2:
            return x


for dtype in DTYPES:
    for shape, group_counts in (((2, 6, 5, 3), [1, 2, 3, 6]),
                                ((1, 4, 1, 1), [2, 4]), ((3, 8, 7, 9), [4])):
        for groups in group_counts:
            c = shape[1]
            m = c // groups * shape[2] * shape[3]
            nhw = shape[0] * shape[2] * shape[3]
            x = well_conditioned_groups(shape, dtype, groups)
            g = check.uniform((c,), dtype, 0.5, 1.5)
            b = check.uniform((c,), dtype)
            dy = check.uniform(shape, dtype)
            a = f"{{eps = {EPS:e} : f32, num_groups = {groups} : i64}}"
            dx, dg, db = grads(lambda x, g, b: group_norm(x, g, b, groups),
                               [x, g, b], [0, 1, 2], dy)
            sigma = np.sqrt(x.astype(np.float64).reshape(shape[0], groups, -1)
                            .var(axis=2) + EPS_F32)
            terms = np.abs(g).max() * np.abs(dy).max() / sigma.min()
            compare(f"group_norm_backward_input {shape} G={groups}", dtype,
                    graph([("x", T(x)), ("g", T(g)), ("b", T(b)),
                           ("dy", T(dy))],
                          f"rlx.group_norm_backward_input %x, %g, %b, %dy {a} "
                          f": {T(x)}, {T(g)}, {T(b)}, {T(dy)}", T(x)),
                    {"x": x, "g": g, "b": b, "dy": dy}, dx, m, terms)
            for which, want in (("gamma", dg), ("beta", db)):
                compare(f"group_norm_backward_{which} {shape} G={groups}",
                        dtype,
                        graph([("x", T(x)), ("dy", T(dy))],
                              f"rlx.group_norm_backward_{which} %x, %dy {a} : "
                              f"{T(x)}, {T(dy)}", T(g)),
                        {"x": x, "dy": dy}, want, nhw * m)
x = check.uniform((2, 4, 3, 3), np.float64, -2, 2)
g = check.uniform((4,), np.float64, 0.5, 1.5)
b = check.uniform((4,), np.float64)
dy = check.uniform((2, 4, 3, 3), np.float64)
fd_confirm("group_norm x", lambda x, g, b: group_norm(x, g, b, 2), [x, g, b],
           0, dy)

# --------------------------------------------------------------------------
# batch norm with frozen statistics, features last
for dtype in DTYPES:
    for shape in ((7,), (5, 3), (2, 4, 4, 17), (3, 1, 1)):
        c = shape[-1]
        n = int(np.prod(shape)) // c
        x = check.uniform(shape, dtype, -2, 2)
        g = check.uniform((c,), dtype, 0.5, 1.5)
        b = check.uniform((c,), dtype)
        mean = check.uniform((c,), dtype)
        var = check.uniform((c,), dtype, 0.1, 2.0)
        dy = check.uniform(shape, dtype)

        def bn(x, g, b, mean=mean, var=var):
            return (x - f64(mean)) / torch.sqrt(f64(var) + EPS_F32) * g + b
        dx, dg, db = grads(bn, [x, g, b], [0, 1, 2], dy)
        a = f"{{eps = {EPS:e} : f32}}"
        C = T(g)
        compare(f"batch_norm_inference_backward_input {shape}", dtype,
                graph([("x", T(x)), ("g", C), ("m", C), ("v", C),
                       ("dy", T(dy))],
                      f"rlx.batch_norm_inference_backward_input %x, %g, %m, %v, "
                      f"%dy {a} : {T(x)}, {C}, {C}, {C}, {T(dy)}", T(x)),
                {"x": x, "g": g, "m": mean, "v": var, "dy": dy}, dx)
        compare(f"batch_norm_inference_backward_gamma {shape}", dtype,
                graph([("x", T(x)), ("m", C), ("v", C), ("dy", T(dy))],
                      f"rlx.batch_norm_inference_backward_gamma %x, %m, %v, %dy "
                      f"{a} : {T(x)}, {C}, {C}, {T(dy)}", C),
                {"x": x, "m": mean, "v": var, "dy": dy}, dg, n)
        compare(f"batch_norm_inference_backward_beta {shape}", dtype,
                graph([("dy", T(dy))],
                      f"rlx.batch_norm_inference_backward_beta %dy : {T(dy)}",
                      C),
                {"dy": dy}, db, n)


# --------------------------------------------------------------------------
# rope: [B, H, S, head_dim] and [B, S, H * head_dim], partial rotary
def rope(x, cos, sin, head_dim, n_rot, packed):
    if packed:
        bsz, s, _ = x.shape
        x = x.reshape(bsz, s, -1, head_dim).transpose(1, 2)
    r = n_rot // 2
    a, b_, rest = x[..., :r], x[..., r:n_rot], x[..., n_rot:]
    y = torch.cat([a * cos - b_ * sin, b_ * cos + a * sin, rest], dim=-1)
    if packed:
        y = y.transpose(1, 2).reshape(bsz, s, -1)
    return y


for dtype in DTYPES:
    for shape, head_dim, n_rot, packed in (((2, 3, 5, 8), 8, 8, False),
                                           ((1, 2, 7, 6), 6, 2, False),
                                           ((2, 5, 12), 4, 4, True),
                                           ((1, 1, 18), 6, 4, True)):
        s = shape[1] if packed else shape[2]
        x = check.uniform(shape, dtype)
        cos = check.uniform((s, n_rot // 2), dtype)
        sin = check.uniform((s, n_rot // 2), dtype)
        dy = check.uniform(shape, dtype)
        want = grads(lambda x: rope(x, f64(cos), f64(sin), head_dim, n_rot,
                                    packed), [x], [0], dy)[0]
        compare(f"rope_backward {shape} d={head_dim} n_rot={n_rot}", dtype,
                graph([("dy", T(dy)), ("c", T(cos)), ("s", T(sin))],
                      f"rlx.rope_backward %dy, %c, %s {{head_dim = {head_dim} : "
                      f"i64, n_rot = {n_rot} : i64}} : {T(dy)}, {T(cos)}, "
                      f"{T(sin)}", T(dy)),
                {"dy": dy, "c": cos, "s": sin}, want, 2)

# --------------------------------------------------------------------------
# cumsum, inclusive and exclusive, every axis
for dtype in DTYPES:
    for shape, axes in (((4, 7), [0, 1, -1]), ((9,), [0]),
                        ((2, 1, 5), [1, -1, 0]), ((3, 2, 6), [-2])):
        for axis in axes:
            for exclusive in (False, True):
                x = check.uniform(shape, dtype)
                dy = check.uniform(shape, dtype)

                def cumsum(x, axis=axis, exclusive=exclusive):
                    y = torch.cumsum(x, dim=axis)
                    return y - x if exclusive else y
                want = grads(cumsum, [x], [0], dy)[0]
                excl = ", exclusive" if exclusive else ""
                compare(f"cumsum_backward {shape} axis {axis}{excl}", dtype,
                        graph([("dy", T(dy))],
                              f"rlx.cumsum_backward %dy {{axis = {axis} : i64"
                              f"{excl}}} : {T(dy)}", T(dy)),
                        {"dy": dy}, want, shape[axis])
x = check.uniform((3, 5), np.float64)
dy = check.uniform((3, 5), np.float64)
fd_confirm("cumsum", lambda x: torch.cumsum(x, dim=1), [x], 0, dy)

# --------------------------------------------------------------------------
# gather: every axis, index ranks 0 to 2, repeated rows accumulate
for dtype in DTYPES:
    for table_shape, axis, index_shape, itype in (
            ((10, 4), 0, (3, 5), np.int64), ((3, 6, 2), 1, (7,), np.int32),
            ((4, 5), 1, (), np.int64), ((2, 3, 4), 2, (2, 2), np.int64),
            ((1, 1), 0, (6,), np.int32)):
        table = check.uniform(table_shape, dtype)
        ids = check.integers(index_shape, itype, 0, table_shape[axis])

        def gather(t, ids=ids, axis=axis):
            flat = torch.from_numpy(np.asarray(ids, np.int64).reshape(-1))
            y = t.index_select(axis, flat)
            return y.reshape(t.shape[:axis] + ids.shape + t.shape[axis + 1:])
        out_shape = table_shape[:axis] + index_shape + table_shape[axis + 1:]
        dy = check.uniform(out_shape, dtype)
        want = grads(gather, [table], [0], dy)[0]
        ids_arr = np.asarray(ids, dtype=itype)
        compare(f"gather_backward {table_shape} axis {axis} ids {index_shape}",
                dtype,
                graph([("dy", T(dy)), ("ids", tensor_type(index_shape, itype))],
                      f"rlx.gather_backward %dy, %ids {{axis = {axis} : i64}} : "
                      f"{T(dy)}, {tensor_type(index_shape, itype)} -> "
                      f"{tensor_type(table_shape, dtype)}",
                      tensor_type(table_shape, dtype)),
                {"dy": dy, "ids": ids_arr}, want, max(1, ids_arr.size))
    # Indices outside [0, 10) (the forward read zeros there) add nothing.
    ids_arr = np.array([2, -1, 10, 2, 99, 0], np.int64)
    dy = check.uniform((6, 4), dtype)
    keep = (ids_arr >= 0) & (ids_arr < 10)
    want = np.zeros((10, 4), np.float64)
    np.add.at(want, ids_arr[keep], dy[keep].astype(np.float64))
    compare("gather_backward out-of-range ids", dtype,
            graph([("dy", T(dy)), ("ids", tensor_type((6,), np.int64))],
                  f"rlx.gather_backward %dy, %ids {{axis = 0 : i64}} : "
                  f"{T(dy)}, {tensor_type((6,), np.int64)} -> "
                  f"{tensor_type((10, 4), dtype)}",
                  tensor_type((10, 4), dtype)),
            {"dy": dy, "ids": ids_arr}, torch.from_numpy(want), 6)

# --------------------------------------------------------------------------
# softmax cross-entropy
for dtype in DTYPES:
    for n, c, itype in ((5, 7, np.int64), (1, 1, np.int32), (8, 33, np.int64)):
        logits = check.uniform((n, c), dtype, -4, 4)
        labels = check.integers((n,), itype, 0, c)
        dloss = check.uniform((n,), dtype)

        def sce(l, labels=labels):
            return F.cross_entropy(l, torch.from_numpy(labels.astype(np.int64)),
                                   reduction="none")
        want = grads(sce, [logits], [0], dloss)[0]
        lt = T(logits)
        compare(f"softmax_cross_entropy_backward [{n}, {c}]", dtype,
                graph([("l", lt), ("y", T(labels)), ("d", T(dloss))],
                      f"rlx.softmax_cross_entropy_backward %l, %y, %d : {lt}, "
                      f"{T(labels)}, {T(dloss)}", lt),
                {"l": logits, "y": labels, "d": dloss}, want, c)
    # A label outside [0, C) ignores its row (PyTorch's ignore_index): 0.
    logits = check.uniform((3, 4), dtype, -2, 2)
    labels = np.array([1, 4, -1], np.int64)
    dloss = check.uniform((3,), dtype)
    want = torch.softmax(f64(logits), -1) * f64(dloss)[:, None]
    want[0, 1] -= float(dloss[0])
    want[1:] = 0
    lt = T(logits)
    compare("softmax_cross_entropy_backward out-of-range labels", dtype,
            graph([("l", lt), ("y", T(labels)), ("d", T(dloss))],
                  f"rlx.softmax_cross_entropy_backward %l, %y, %d : {lt}, "
                  f"{T(labels)}, {T(dloss)}", lt),
            {"l": logits, "y": labels, "d": dloss}, want, 4)

# --------------------------------------------------------------------------
# complex_norm_sq: the cotangent w.r.t. conj(z) is g z, half of torch's
# gradient of the real loss sum(g |z|^2) (torch returns 2 dL/dconj(z)).
for shape in ((3, 4), (1,), (2, 1, 5)):
    z = check.uniform(shape, np.complex64)
    gr = check.uniform(shape, np.float32)
    want = grads(lambda z: z.abs() ** 2, [z], [0], gr)[0] / 2
    compare(f"complex_norm_sq_backward {shape}", np.complex64,
            graph([("z", T(z)), ("g", T(gr))],
                  f"rlx.complex_norm_sq_backward %z, %g : {T(z)}, {T(gr)}",
                  T(z)),
            {"z": z, "g": gr}, want.numpy())


# --------------------------------------------------------------------------
# attention
ATTN_CASES = [
    # batch, heads, sq, sk, dim, kind, window, scale, softcap, packed
    (2, 2, 5, 5, 4, "none", None, None, None, False),
    (1, 3, 4, 6, 2, "causal", None, None, None, False),
    (2, 1, 7, 7, 3, "sliding_window", 2, None, None, False),
    (2, 2, 3, 5, 4, "custom", None, 0.3, None, False),
    (1, 2, 4, 3, 5, "bias", None, None, 2.0, False),
    (2, 2, 5, 5, 3, "causal", None, 0.5, 3.0, True),
    (1, 1, 1, 4, 8, "none", None, None, None, True),
    (2, 3, 6, 6, 2, "sliding_window", 0, None, None, True),
]
for dtype in DTYPES:
    for (bsz, heads, sq, sk, dim, kind, window, scale, cap,
         packed) in ATTN_CASES:
        if packed:
            qs, ks = (bsz, sq, heads * dim), (bsz, sk, heads * dim)
        else:
            qs, ks = (bsz, heads, sq, dim), (bsz, heads, sk, dim)
        q = check.uniform(qs, dtype, -2, 2)
        k = check.uniform(ks, dtype, -2, 2)
        v = check.uniform(ks, dtype)
        dy = check.uniform(qs, dtype)
        mask = None
        if kind == "custom":
            mask = (check.rng.uniform(0, 1, (bsz, sk)) < 0.7).astype(dtype)
            mask[:, 0] = 1.0  # no query row fully masked
        elif kind == "bias":
            mask = check.uniform((bsz, heads, sq, sk), dtype)
        attrs, fscale, fcap = attention_attrs(heads, dim, kind, window,
                                              scale, cap)
        inputs = [q, k, v] + ([mask] if mask is not None else [])
        wants = grads(lambda q, k, v, *m: attention(
            q, k, v, heads, dim, kind, m[0] if m else None, window, fscale,
            fcap, packed), inputs, [0, 1, 2], dy)
        args = [("q", T(q)), ("k", T(k)), ("v", T(v)), ("dy", T(dy))]
        feed = {"q": q, "k": k, "v": v, "dy": dy}
        mask_text = ""
        if mask is not None:
            args.append(("m", T(mask)))
            feed["m"] = mask
            mask_text = f" mask %m : {T(mask)}"
        for wrt, want, res in zip(("query", "key", "value"), wants,
                                  (T(q), T(k), T(v))):
            a = ", ".join(attrs + [f"wrt = #rlx.wrt<{wrt}>"])
            compare(f"attention_backward {wrt} {kind} q{qs} k{ks} "
                    f"scale={scale} cap={cap}", dtype,
                    graph(args, f"rlx.attention_backward %q, %k, %v, %dy"
                          f"{mask_text} {{{a}}} : {T(q)}, {T(k)}, {T(v)}, "
                          f"{T(dy)}", res),
                    feed, want, sk * dim)
q = check.uniform((1, 2, 3, 4), np.float64)
k = check.uniform((1, 2, 3, 4), np.float64)
v = check.uniform((1, 2, 3, 4), np.float64)
dy = check.uniform((1, 2, 3, 4), np.float64)
for i in range(3):
    fd_confirm(f"attention causal softcap input {i}", lambda q, k, v: attention(
        q, k, v, 2, 4, "causal", None, None, 0.7, 2.0, False), [q, k, v], i,
        dy)

# --------------------------------------------------------------------------
# conv2d backward: input and weight, every geometry


def pair(v):
    return f"[{v[0]}, {v[1]}]"


CONV_CASES = [
    # x, w, stride, padding, dilation, groups
    ((2, 3, 9, 11), (4, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((1, 3, 10, 9), (5, 3, 3, 2), (2, 1), (0, 2), (2, 1), 1),
    ((1, 6, 7, 8), (8, 3, 3, 2), (1, 2), (1, 0), (1, 1), 2),
    ((2, 4, 7, 7), (4, 1, 3, 3), (1, 1), (1, 1), (1, 1), 4),
    ((1, 3, 6, 5), (6, 1, 3, 3), (2, 2), (1, 1), (1, 1), 3),
    ((1, 4, 5, 5), (6, 4, 1, 1), (2, 2), (1, 1), (1, 1), 1),
    ((1, 5, 4, 6), (2, 5, 4, 6), (1, 1), (0, 0), (1, 1), 1),
    ((1, 8, 17, 13), (16, 8, 5, 3), (2, 3), (2, 1), (1, 2), 1),
    ((2, 4, 10, 10), (8, 2, 3, 3), (3, 3), (0, 1), (1, 1), 2),
    ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1), (0, 0), (1, 1), 1),
]
for dtype in DTYPES:
    for xs, ws, stride, padding, dilation, groups in CONV_CASES:
        x = check.uniform(xs, dtype)
        w = check.uniform(ws, dtype)

        def conv(x, w, s=stride, p=padding, d=dilation, g=groups):
            return F.conv2d(x, w, stride=s, padding=p, dilation=d, groups=g)
        ys = tuple(conv(f64(x), f64(w)).shape)
        dy = check.uniform(ys, dtype)
        dx, dw = grads(conv, [x, w], [0, 1], dy)
        geom = (f"kernel_size = {pair(ws[2:])}, stride = {pair(stride)}, "
                f"padding = {pair(padding)}, dilation = {pair(dilation)}, "
                f"groups = {groups}")
        what = f"{xs} {ws} s={stride} p={padding} d={dilation} g={groups}"
        compare(f"conv2d_backward_input {what}", dtype,
                graph([("dy", T(dy)), ("w", T(w))],
                      f"rlx.conv2d_backward_input %dy, %w {geom} : {T(dy)}, "
                      f"{T(w)} -> {T(x)}", T(x)),
                {"dy": dy, "w": w}, dx, ws[0] * ws[2] * ws[3])
        compare(f"conv2d_backward_weight {what}", dtype,
                graph([("x", T(x)), ("dy", T(dy))],
                      f"rlx.conv2d_backward_weight %x, %dy {geom} : {T(x)}, "
                      f"{T(dy)}", T(w)),
                {"x": x, "dy": dy}, dw, ys[0] * ys[2] * ys[3])
x = check.uniform((1, 2, 5, 6), np.float64)
w = check.uniform((4, 1, 3, 2), np.float64)
dy = check.uniform((1, 4, 2, 6), np.float64)
for i in range(2):
    fd_confirm(f"conv2d input {i}", lambda x, w: F.conv2d(
        x, w, stride=(2, 1), padding=(0, 1), dilation=(1, 2), groups=2),
        [x, w], i, dy)

# --------------------------------------------------------------------------
# max_pool2d backward: overlapping windows accumulate, padding, ties go to
# the first maximum in row-major order (torch's CPU kernel does the same)
POOL_CASES = [((2, 3, 8, 8), (2, 2), (2, 2), (0, 0)),
              ((1, 2, 7, 9), (3, 3), (2, 2), (1, 1)),
              ((2, 1, 6, 5), (3, 2), (1, 1), (1, 0)),
              ((1, 3, 5, 5), (2, 3), (3, 2), (1, 1)),
              ((1, 1, 1, 1), (1, 1), (1, 1), (0, 0))]
for dtype in DTYPES:
    for xs, kernel, stride, padding in POOL_CASES:
        for ties in (False, True):
            if ties:  # few distinct values: many tied maxima, negatives too
                x = check.integers(xs, np.int64, -3, 1).astype(dtype)
            else:
                x = check.uniform(xs, dtype, -2, -1)  # all below the 0 pad

            def pool(x, k=kernel, s=stride, p=padding):
                return F.max_pool2d(x, k, s, p)
            ys = tuple(pool(f64(x)).shape)
            dy = check.uniform(ys, dtype)
            want = grads(pool, [x], [0], dy)[0]
            compare(f"max_pool2d_backward {xs} k={kernel} s={stride} "
                    f"p={padding} ties={ties}", dtype,
                    graph([("x", T(x)), ("dy", T(dy))],
                          f"rlx.max_pool2d_backward %x, %dy kernel_size = "
                          f"{pair(kernel)}, stride = {pair(stride)}, padding = "
                          f"{pair(padding)} : {T(x)}, {T(dy)}", T(x)),
                    {"x": x, "dy": dy}, want, kernel[0] * kernel[1])
# The tie rule itself, by hand: one window of equal values routes dy to its
# top-left element only.
x = np.zeros((1, 1, 2, 2), np.float32)
dy = np.full((1, 1, 1, 1), 3.0, np.float32)
want = np.array([[[[3.0, 0.0], [0.0, 0.0]]]], np.float32)
compare("max_pool2d_backward all-equal window", np.float32,
        graph([("x", T(x)), ("dy", T(dy))],
              f"rlx.max_pool2d_backward %x, %dy kernel_size = [2, 2], stride = "
              f"[2, 2], padding = [0, 0] : {T(x)}, {T(dy)}", T(x)),
        {"x": x, "dy": dy}, want)

check.finish()
