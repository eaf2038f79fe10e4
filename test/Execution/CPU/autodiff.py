"""rlx-autodiff and rlx-jvp of the core op families on the CPU against
torch.autograd: elementwise, matmul, reductions, shapes, norms, attention,
convolution and pooling, the backward ops, and a two-layer MLP with its
Hessian-vector products. The harness and its tolerances are described in
`test/Execution/lib/autodiffcheck.py`.
"""

import math
import sys

import functorch
import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from autodiffcheck import (CASES, case, init, integers,  # noqa: E402
                           mlp_case, run_cases, uniform)
from torch_reference import attention, attention_attrs  # noqa: E402

check = init(sys.argv[1], sys.argv[2])
EPS = float(np.float32(1e-5))  # norms store eps as f32


# binary: every kind, broadcasting operands on either side
BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "max": torch.maximum, "min": torch.minimum, "pow": torch.pow,
}
for kind, fn in BINARY.items():
    for ashape, bshape in (((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1))):
        low = 0.5 if kind in ("div", "pow") else -1.0
        case(f"binary {kind} {ashape} {bshape}",
             [("a", "input", uniform(ashape, low, 1.5)),
              ("b", "param", uniform(bshape, low, 1.5))],
             lambda F, t, kind=kind, a=ashape, b=bshape: [
                 f"%loss = rlx.binary {kind} %a, %b : {t(a)}, {t(b)}"],
             np.broadcast_shapes(ashape, bshape), fn, ["a", "b"],
             n=max(math.prod(np.broadcast_shapes(ashape, bshape)) //
                   math.prod(bshape), 1))


# ties of max/min, split evenly: b is a copy of a's first row
for kind in ("max", "min"):
    state = {}

    def make_a(dtype, state=state):
        state["a"] = check.uniform((3, 4), dtype)
        return state["a"]

    def make_b(dtype, state=state):
        b = check.uniform((4,), dtype)
        b[:2] = state["a"][1, :2]
        return b
    case(f"binary {kind} ties", [("a", "input", make_a),
                                 ("b", "param", make_b)],
         lambda F, t, kind=kind: [
             f"%loss = rlx.binary {kind} %a, %b : {t((3, 4))}, {t((4,))}"],
         (3, 4), BINARY[kind], ["a", "b"], n=3, smooth=False)

# pow at a zero base with positive exponents
case("binary pow zero base",
     [("a", "input", lambda d: np.array([0.0, 0.5, 1.2, 0.0], d)),
      ("b", "param", uniform((4,), 0.5, 2.0))],
     lambda F, t: [f"%loss = rlx.binary pow %a, %b : {t((4,))}, {t((4,))}"],
     (4,), torch.pow, ["a", "b"], jvp=True, smooth=False)

# floor_div (zero gradient), remainder and fmod (1 and -floor(a / b) or
# -trunc(a / b)), as PyTorch differentiates them: divisors of both signs
# away from zero, operands away from the jumps at multiples.
for kind, fn in (("floor_div", lambda a, b: torch.div(
        a, b, rounding_mode="floor")), ("remainder", torch.remainder),
        ("fmod", torch.fmod)):
    case(f"binary {kind}",
         [("a", "param", uniform((3, 4), -5, 5)),
          ("b", "param", lambda d: (np.sign(check.uniform((4,), d)) *
                                    check.uniform((4,), d, 0.7, 2.5))
           .astype(d))],
         lambda F, t, kind=kind: [
             f"%loss = rlx.binary {kind} %a, %b : {t((3, 4))}, {t((4,))}"],
         (3, 4), fn, ["a", "b"], n=3, smooth=False)

# a value used twice (and in two ops)
case("value used twice",
     [("x", "param", uniform((3, 5)))],
     lambda F, t: [
         f"%sq = rlx.binary mul %x, %x : {t((3, 5))}, {t((3, 5))}",
         f"%th = rlx.activation tanh %x : {t((3, 5))}",
         f"%loss = rlx.binary add %sq, %th : {t((3, 5))}, {t((3, 5))}"],
     (3, 5), lambda x: x * x + torch.tanh(x), ["x"])

# --------------------------------------------------------------------------
# activations: every kind
ACTS = {
    "gelu": (F.gelu, (-4, 4)),
    "gelu_approx": (lambda x: F.gelu(x, approximate="tanh"), (-4, 4)),
    "silu": (F.silu, (-5, 5)), "relu": (F.relu, (-2, 2)),
    "sigmoid": (torch.sigmoid, (-5, 5)), "tanh": (torch.tanh, (-3, 3)),
    "exp": (torch.exp, (-3, 3)), "log": (torch.log, (0.2, 3)),
    "sqrt": (torch.sqrt, (0.2, 3)), "rsqrt": (torch.rsqrt, (0.2, 3)),
    "neg": (torch.neg, (-2, 2)), "abs": (torch.abs, (-2, 2)),
    "sin": (torch.sin, (-4, 4)), "cos": (torch.cos, (-4, 4)),
    "tan": (torch.tan, (-1.2, 1.2)), "atan": (torch.atan, (-4, 4)),
}
for kind, (fn, (low, high)) in ACTS.items():
    # A second use through mul keeps the seed non-trivial.
    case(f"activation {kind}", [("x", "param", uniform((4, 6), low, high))],
         lambda F, t, kind=kind: [
             f"%y = rlx.activation {kind} %x : {t((4, 6))}",
             f"%loss = rlx.binary mul %y, %x : {t((4, 6))}, {t((4, 6))}"],
         (4, 6), lambda x, fn=fn: fn(x) * x, ["x"],
         smooth=kind not in ("relu", "abs"))


# round: straight-through (the gradient of round(x) is taken as 1)
def round_ste(x):
    return x + (torch.round(x) - x).detach()


case("activation round (straight-through)",
     [("x", "param", uniform((4, 6), -3, 3))],
     lambda F, t: [f"%loss = rlx.activation round %x : {t((4, 6))}"],
     (4, 6), round_ste, ["x"], smooth=False)

# floor, ceil, trunc: a zero gradient (PyTorch's), times x to keep the
# seed non-trivial.
for kind, fn in (("floor", torch.floor), ("ceil", torch.ceil),
                 ("trunc", torch.trunc)):
    case(f"activation {kind}", [("x", "param", uniform((4, 6), -3, 3))],
         lambda F, t, kind=kind: [
             f"%y = rlx.activation {kind} %x : {t((4, 6))}",
             f"%loss = rlx.binary mul %y, %x : {t((4, 6))}, {t((4, 6))}"],
         (4, 6), lambda x, fn=fn: fn(x) * x, ["x"], smooth=False)

# --------------------------------------------------------------------------
# matmul, batch broadcast on either side
for ashape, bshape in (((4, 3), (3, 5)), ((2, 4, 3), (3, 5)),
                       ((4, 3), (2, 3, 5)), ((2, 1, 4, 3), (3, 3, 5))):
    out = np.broadcast_shapes(ashape[:-2], bshape[:-2]) + (ashape[-2],
                                                           bshape[-1])
    batch = math.prod(out[:-2])
    case(f"matmul {ashape} {bshape}",
         [("a", "input", uniform(ashape)), ("b", "param", uniform(bshape))],
         lambda F, t, a=ashape, b=bshape: [
             f"%loss = rlx.matmul %a, %b : {t(a)}, {t(b)}"],
         out, torch.matmul, ["a", "b"], n=5 * batch)

case("dense_solve",
     [("A", "param", lambda d: (check.uniform((3, 3), d) + 3 * np.eye(3))
       .astype(d)), ("b", "input", uniform((3, 2)))],
     lambda F, t: [f"%loss = rlx.dense_solve %A, %b : {t((3, 3))}, {t((3, 2))}"],
     (3, 2), torch.linalg.solve, ["A", "b"], n=9)

# --------------------------------------------------------------------------
# reductions: every kind, axes, keep_dim
REDUCE = {
    "sum": lambda x, axes, keep: x.sum(axes, keepdim=keep),
    "mean": lambda x, axes, keep: x.mean(axes, keepdim=keep),
    "max": lambda x, axes, keep: x.amax(axes, keepdim=keep),
    "min": lambda x, axes, keep: x.amin(axes, keepdim=keep),
}
for kind, fn in REDUCE.items():
    for axes, keep in (((1,), False), ((0, 2), True), ((0, 1, 2), False)):
        shape = (3, 4, 5)
        out = tuple(1 if i in axes else d for i, d in enumerate(shape)
                    if keep or i not in axes)
        tie = kind in ("max", "min")

        def make(dtype, tie=tie):
            x = check.uniform((3, 4, 5), dtype)
            if tie:  # ties along every axis
                x[2] = x[0]
                x[:, 3] = x[:, 1]
                x[:, :, 4] = x[:, :, 0]
            return x
        keyword = " keep_dim" if keep else ""
        case(f"reduce {kind} axes={axes} keep_dim={keep}",
             [("x", "param", make)],
             lambda F, t, kind=kind, axes=axes, kw=keyword, out=out: [
                 f"%loss = rlx.reduce {kind} %x axes = {list(axes)}{kw} : "
                 f"{t((3, 4, 5))}"],
             out, lambda x, fn=fn, axes=axes, keep=keep: fn(x, axes, keep),
             ["x"], n=60, smooth=not tie)


# prod, zero-safe: rows with no zero, one zero and two zeros
def with_zeros(dtype):
    x = check.uniform((4, 5), dtype, 0.5, 1.5) * np.sign(
        check.uniform((4, 5), dtype))
    x[1, 2] = 0
    x[2, 0] = x[2, 3] = 0
    return x.astype(dtype)


case("reduce prod axes=[1] with zeros", [("x", "param", with_zeros)],
     lambda F, t: [f"%loss = rlx.reduce prod %x axes = [1] : {t((4, 5))}"],
     (4,), lambda x: x.prod(1), ["x"], n=5, smooth=False)
case("reduce prod all axes", [("x", "param", uniform((2, 3), 0.5, 1.5))],
     lambda F, t: [f"%loss = rlx.reduce prod %x axes = [0, 1] : {t((2, 3))}"],
     (), lambda x: x.prod(), ["x"], n=6)

for axis in (1, -1, 0):
    case(f"softmax axis={axis}", [("x", "param", uniform((3, 4, 5), -3, 3))],
         lambda F, t, axis=axis: [
             f"%loss = rlx.softmax %x {{axis = {axis} : i64}} : "
             f"{t((3, 4, 5))}"],
         (3, 4, 5), lambda x, axis=axis: torch.softmax(x, axis), ["x"], n=5)

for shape, k in (((3, 6), 2), ((2, 3, 5), 3)):
    case(f"top_k values {shape} k={k}", [("x", "param", uniform(shape))],
         lambda F, t, shape=shape, k=k: [
             f"%loss, %i = rlx.top_k %x {{k = {k} : i64}} : {t(shape)}"],
         shape[:-1] + (k,), lambda x, k=k: torch.topk(x, k).values, ["x"],
         smooth=False)

for exclusive in (False, True):
    case(f"cumsum exclusive={exclusive}",
         [("x", "param", uniform((3, 6)))],
         lambda F, t, ex=exclusive: [
             f"%loss = rlx.cumsum %x {{axis = 1 : i64"
             f"{', exclusive' if ex else ''}}} : {t((3, 6))}"],
         (3, 6), lambda x, ex=exclusive: x.cumsum(1) - (x if ex else 0),
         ["x"], n=6)

# --------------------------------------------------------------------------
# norms


def layer_norm(x, g, b, axis):
    mean = x.mean(axis, keepdim=True)
    var = ((x - mean) ** 2).mean(axis, keepdim=True)
    shape = [1] * x.dim()
    shape[axis] = -1
    return (x - mean) / torch.sqrt(var + EPS) * g.reshape(shape) + \
        b.reshape(shape)


def rms_norm(x, g, b, axis):
    r = torch.rsqrt((x * x).mean(axis, keepdim=True) + EPS)
    shape = [1] * x.dim()
    shape[axis] = -1
    return x * r * g.reshape(shape) + b.reshape(shape)


for op, fn in (("layer_norm", layer_norm), ("rms_norm", rms_norm)):
    for axis, d in ((-1, 6), (1, 4)):
        case(f"{op} axis={axis}",
             [("x", "input", uniform((2, 4, 6), -2, 2)),
              ("g", "param", uniform((d,), 0.5, 1.5)),
              ("b", "param", uniform((d,)))],
             lambda F, t, op=op, axis=axis, d=d: [
                 f"%loss = rlx.{op} %x, %g, %b {{axis = {axis} : i64, "
                 f"eps = 1.0e-05 : f32}} : {t((2, 4, 6))}, {t((d,))}, "
                 f"{t((d,))}"],
             (2, 4, 6), lambda x, g, b, fn=fn, axis=axis: fn(x, g, b, axis),
             ["x", "g", "b"], n=12)

case("layer_norm2d",
     [("x", "input", uniform((2, 4, 3, 2), -2, 2)),
      ("g", "param", uniform((4,), 0.5, 1.5)), ("b", "param", uniform((4,)))],
     lambda F, t: [
         f"%loss = rlx.layer_norm2d %x, %g, %b {{eps = 1.0e-05 : f32}} : "
         f"{t((2, 4, 3, 2))}, {t((4,))}, {t((4,))}"],
     (2, 4, 3, 2), lambda x, g, b: layer_norm(x, g, b, 1), ["x", "g", "b"],
     n=12)
def axial_rope(x, end_x, end_y, head_dim, heads, theta):
    """SAM2's axial 2-D RoPE on [B, S, heads * head_dim]."""
    b, s, _ = x.shape
    xh = x.reshape(b, s, heads, head_dim // 2, 2)
    freqs = theta ** (-4.0 * torch.arange(head_dim // 4) / head_dim)
    pos = torch.arange(s) % (end_x * end_y)
    angles = torch.cat([torch.outer((pos % end_x).double(), freqs),
                        torch.outer((pos // end_x).double(), freqs)], 1)
    c, sn = torch.cos(angles)[None, :, None], torch.sin(angles)[None, :, None]
    x0, x1 = xh[..., 0], xh[..., 1]
    return torch.stack([x0 * c - x1 * sn, x0 * sn + x1 * c], -1).reshape(
        x.shape)


# f32 forms the angles in f32 (as SAM2): n=4 covers their rounding.
case("axial_rope2d",
     [("x", "param", uniform((2, 12, 16)))],
     lambda F, t: [
         f"%loss = rlx.axial_rope2d %x {{end_x = 3 : i64, end_y = 2 : i64, "
         f"head_dim = 8 : i64, num_heads = 2 : i64, repeat_factor = 2 : i64, "
         f"theta = 1.000000e+02 : f32}} : {t((2, 12, 16))}"],
     (2, 12, 16), lambda x: axial_rope(x, 3, 2, 8, 2, 100.0), ["x"], n=4)
case("resize_nearest2x",
     [("x", "param", uniform((2, 3, 2, 3)))],
     lambda F, t: [f"%loss = rlx.resize_nearest2x %x : {t((2, 3, 2, 3))}"],
     (2, 3, 4, 6),
     lambda x: x.repeat_interleave(2, 2).repeat_interleave(2, 3), ["x"], n=4)
# rlx.resize: its VJP is rlx.resize_backward (an adjoint read through tap
# tables: upsampling by 3 gathers up to 4 taps per dim, which the lowering
# applies one dim at a time) and the VJP of that is rlx.resize again.
RESIZES = [
    ("linear", (2, 3, 4, 5), (9, 16), False, None),
    ("linear", (1, 2, 4, 5), (7, 3), True, None),
    ("linear", (1, 2, 5, 6), (8, 10), False, (1.7, 1.7)),
    ("nearest", (2, 2, 3, 4), (7, 10), False, None),
    ("nearest_exact", (2, 3, 7), (4,), False, None),
    ("linear", (1, 2, 3, 4, 5), (5, 2, 6), True, None),
    ("cubic", (1, 2, 4, 5), (9, 7), False, None),
    ("cubic", (1, 2, 6, 5), (4, 8), True, None),
    ("cubic", (1, 1, 5, 6), (8, 10), False, (1.7, 1.7)),
]
TORCH_MODE = {"nearest": "nearest", "nearest_exact": "nearest-exact",
              "linear": {1: "linear", 2: "bilinear", 3: "trilinear"},
              "cubic": "bicubic"}


def resize_attrs(align, scales):
    attrs = (["align_corners"] if align else []) + (
        [f"scales = array<f64: {', '.join(map(str, scales))}>"]
        if scales else [])
    return f" {{{', '.join(attrs)}}}" if attrs else ""


def torch_resize(mode, sizes, align, scales):
    torch_mode = TORCH_MODE[mode]
    if mode == "linear":
        torch_mode = torch_mode[len(sizes)]
    kwargs = {"align_corners": align} if mode in ("linear", "cubic") \
        else {}
    if scales:
        return lambda x: F.interpolate(x, scale_factor=scales,
                                       mode=torch_mode, **kwargs)
    return lambda x: F.interpolate(x, size=sizes, mode=torch_mode, **kwargs)


for mode, shape, sizes, align, scales in RESIZES:
    out = shape[:len(shape) - len(sizes)] + sizes
    # Taps per output position and dim: 2 for linear, 4 for cubic.
    reads = math.prod(math.ceil(i / o) + (3 if mode == "cubic" else 1)
                      for i, o in
                      zip(shape[len(shape) - len(sizes):], sizes))
    case(f"resize {mode} {shape} -> {sizes}"
         f"{' align_corners' if align else ''}{' scales' if scales else ''}",
         [("x", "param", uniform(shape))],
         lambda F, t, mode=mode, shape=shape, sizes=sizes, align=align,
         scales=scales: [
             f"%loss = rlx.resize {mode} %x to [{', '.join(map(str, sizes))}]"
             f"{resize_attrs(align, scales)} : {t(shape)}"],
         out, torch_resize(mode, sizes, align, scales), ["x"],
         n=max(reads, 4), jvp=True)

# rlx.resize_backward as a function of dy, against aten's
# upsample_bilinear2d_backward.
case("resize_backward linear (2, 3, 9, 16) -> (4, 5)",
     [("dy", "param", uniform((2, 3, 9, 16)))],
     lambda F, t: [f"%loss = rlx.resize_backward linear %dy to [4, 5] : "
                   f"{t((2, 3, 9, 16))}"],
     (2, 3, 4, 5),
     lambda dy: torch.ops.aten.upsample_bilinear2d_backward(
         dy, [9, 16], [2, 3, 4, 5], False, None, None), ["dy"], n=16,
     jvp=True)
case("group_norm",
     [("x", "input", uniform((2, 4, 3, 3), -2, 2)),
      ("g", "param", uniform((4,), 0.5, 1.5)), ("b", "param", uniform((4,)))],
     lambda F, t: [
         f"%loss = rlx.group_norm %x, %g, %b {{num_groups = 2 : i64, "
         f"eps = 1.0e-05 : f32}} : {t((2, 4, 3, 3))}, {t((4,))}, {t((4,))}"],
     (2, 4, 3, 3), lambda x, g, b: F.group_norm(x, 2, g, b, EPS),
     ["x", "g", "b"], n=18)

case("batch_norm_inference",
     [("x", "input", uniform((3, 2, 4))), ("g", "param", uniform((4,))),
      ("b", "param", uniform((4,))), ("m", "input", uniform((4,))),
      ("v", "input", uniform((4,), 0.5, 2))],
     lambda F, t: [
         f"%loss = rlx.batch_norm_inference %x, %g, %b, %m, %v "
         f"{{eps = 1.0e-05 : f32}} : {t((3, 2, 4))}, {t((4,))}, {t((4,))}, "
         f"{t((4,))}, {t((4,))}"],
     (3, 2, 4), lambda x, g, b, m, v: (x - m) / torch.sqrt(v + EPS) * g + b,
     ["x", "g", "b"], n=6)

# --------------------------------------------------------------------------
# shape ops
case("reshape transpose",
     [("x", "param", uniform((2, 3, 4)))],
     lambda F, t: [
         f"%r = rlx.reshape %x new_shape = [6, 4] : {t((2, 3, 4))}",
         f"%loss = rlx.transpose %r perm = [1, 0] : {t((6, 4))}"],
     (4, 6), lambda x: x.reshape(6, 4).t(), ["x"])
case("narrow concat",
     [("x", "param", uniform((3, 5))), ("y", "input", uniform((3, 2)))],
     lambda F, t: [
         f"%n = rlx.narrow %x axis = 1 start = 1 len = 3 : {t((3, 5))}",
         f"%loss = rlx.concat %n, %y, %n axis = 1 : {t((3, 3))}, "
         f"{t((3, 2))}, {t((3, 3))}"],
     (3, 8), lambda x, y: torch.cat([x[:, 1:4], y, x[:, 1:4]], 1),
     ["x", "y"])
case("expand",
     [("x", "param", uniform((3, 1)))],
     lambda F, t: [
         f"%loss = rlx.expand %x target_shape = [2, 3, 4] : {t((3, 1))}"],
     (2, 3, 4), lambda x: x.expand(2, 3, 4), ["x"], n=8)
case("gather axis=0 (embedding, repeated ids)",
     [("w", "param", uniform((5, 3))),
      ("ids", "index", lambda d: np.array([[0, 2, 2], [4, 0, 2]], np.int64))],
     lambda F, t: [
         f"%loss = rlx.gather %w, %ids axis = 0 : {t((5, 3))}, "
         "tensor<2x3xi64>"],
     (2, 3, 3), lambda w, ids: w[ids], ["w"], n=3)
case("gather axis=1",
     [("w", "param", uniform((2, 5, 3))), ("ids", "index", integers((4,), 5))],
     lambda F, t: [
         f"%loss = rlx.gather %w, %ids axis = 1 : {t((2, 5, 3))}, "
         "tensor<4xi64>"],
     (2, 4, 3), lambda w, ids: w[:, ids], ["w"], n=4)

# --------------------------------------------------------------------------
# where, compare, cast, stop_gradient
case("where compare broadcast",
     [("x", "param", uniform((3, 4))), ("y", "param", uniform((4,)))],
     lambda F, t: [
         f"%c = rlx.compare gt %x, %y : {t((3, 4))}, {t((4,))}",
         f"%loss = rlx.where %c, %x, %y : tensor<3x4xi1>, {t((3, 4))}, "
         f"{t((4,))}"],
     (3, 4), lambda x, y: torch.where(x > y, x, y), ["x", "y"], n=3,
     smooth=False)
case("cast round trip",
     [("x", "param", uniform((3, 4)))],
     lambda F, t: [
         f"%c = rlx.cast %x : {t((3, 4))} to f64",
         f"%s = rlx.activation sin %c : tensor<3x4xf64>",
         f"%loss = rlx.cast %s : tensor<3x4xf64> to {F}"],
     (3, 4), torch.sin, ["x"])
case("stop_gradient",
     [("x", "param", uniform((3, 4)))],
     lambda F, t: [
         f"%s = rlx.stop_gradient %x : {t((3, 4))}",
         f"%loss = rlx.binary mul %x, %s : {t((3, 4))}, {t((3, 4))}"],
     (3, 4), lambda x: x * x.detach(), ["x"], smooth=False)

# --------------------------------------------------------------------------
# softmax cross-entropy, mean over the batch
case("softmax_cross_entropy_with_logits",
     [("z", "param", uniform((6, 5), -3, 3)),
      ("labels", "index", integers((6,), 5))],
     lambda F, t: [
         f"%l = rlx.softmax_cross_entropy_with_logits %z, %labels : "
         f"{t((6, 5))}, tensor<6xi64>",
         f"%loss = rlx.reduce mean %l axes = [0] : {t((6,))}"],
     (), lambda z, labels: F.cross_entropy(z, labels), ["z"], n=5)

# --------------------------------------------------------------------------
# attention: every mask kind, score scale, soft cap


ATTENTION = [
    # mask kind, sq, sk, window, score_scale, softcap, rank-3 layout
    ("none", 4, 4, None, None, None, False),
    ("causal", 3, 5, None, 0.7, None, False),
    ("sliding_window", 5, 5, 1, None, 2.0, False),
    ("custom", 3, 4, None, None, None, False),
    ("bias", 4, 3, None, 0.5, 3.0, False),
    ("causal", 4, 4, None, None, 1.5, True),
]
for kind, sq, sk, window, scale, cap, packed in ATTENTION:
    B, H, D = 2, 2, 3
    qs, ks = (B, H, sq, D), (B, H, sk, D)
    if packed:
        qs, ks = (B, sq, H * D), (B, sk, H * D)
    args = [("q", "param", uniform(qs, -2, 2)),
            ("k", "param", uniform(ks, -2, 2)), ("v", "param", uniform(ks))]
    mshape = None
    if kind == "custom":
        mshape = (B, sk)

        def padding(dtype, mshape=mshape):
            m = (check.rng.uniform(0, 1, mshape) < 0.6).astype(dtype)
            m[:, 0] = 1.0
            return m
        args.append(("m", "input", padding))
    elif kind == "bias":
        mshape = (B, H, sq, sk)
        args.append(("m", "param", uniform(mshape)))
    attrs, fscale, fcap = attention_attrs(H, D, kind, window, scale, cap)

    def fn(q, k, v, m=None, kind=kind, window=window, s=fscale, c=fcap,
           packed=packed):
        return attention(q, k, v, H, D, kind, m, window, s, c, packed)

    case(f"attention {kind} scale={scale} softcap={cap} rank-3={packed}",
         args,
         lambda F, t, qs=qs, ks=ks, mshape=mshape, attrs=attrs: [
             f"%loss = rlx.attention %q, %k, %v"
             + (f" mask %m : {t(mshape)}" if mshape else "")
             + f" {{{', '.join(attrs)}}} : {t(qs)}, {t(ks)}, {t(ks)}"],
         qs, fn, ["q", "k", "v"] + (["m"] if kind == "bias" else []),
         n=sk * D)

# --------------------------------------------------------------------------
# convolution and pooling
CONV = [
    # x shape, w shape, stride, padding, dilation, groups
    ((2, 4, 7, 7), (6, 2, 3, 3), (2, 2), (1, 1), (1, 1), 2),
    ((1, 3, 8, 6), (2, 3, 2, 3), (1, 2), (0, 1), (2, 1), 1),
]
for xs, ws, stride, pad, dil, groups in CONV:
    conv = F.conv2d(torch.zeros(xs), torch.zeros(ws), None, stride, pad, dil,
                    groups)
    case(f"conv x{xs} w{ws} stride={stride} pad={pad} dil={dil} g={groups}",
         [("x", "input", uniform(xs)), ("w", "param", uniform(ws))],
         lambda F, t, xs=xs, ws=ws, s=stride, p=pad, d=dil, g=groups: [
             f"%loss = rlx.conv %x, %w kernel_size = {list(ws[2:])}, "
             f"stride = {list(s)}, padding = {list(p)}, dilation = {list(d)}, "
             f"groups = {g} : {t(xs)}, {t(ws)}"],
         tuple(conv.shape),
         lambda x, w, s=stride, p=pad, d=dil, g=groups: F.conv2d(
             x, w, None, s, p, d, g), ["x", "w"],
         n=int(np.prod(ws[1:])) * int(np.prod(conv.shape[2:])) * xs[0])

POOL = [
    # kind, kernel, stride, padding
    ("max", (2, 2), (2, 2), (0, 0)),
    ("min", (3, 2), (2, 2), (1, 1)),
    ("max", (3, 3), (2, 1), (1, 1)),
    ("mean", (3, 3), (2, 2), (1, 1)),
    ("mean", (2, 3), (1, 2), (0, 1)),
    ("sum", (2, 2), (1, 1), (1, 0)),
]
for kind, kernel, stride, pad in POOL:
    xs = (2, 3, 6, 7)
    if kind == "max":
        def fn(x, k=kernel, s=stride, p=pad):
            return F.max_pool2d(x, k, s, p)
    elif kind == "min":
        def fn(x, k=kernel, s=stride, p=pad):
            return -F.max_pool2d(-x, k, s, p)
    elif kind == "mean":
        def fn(x, k=kernel, s=stride, p=pad):
            return F.avg_pool2d(x, k, s, p, count_include_pad=True)
    else:
        def fn(x, k=kernel, s=stride, p=pad):
            return F.avg_pool2d(x, k, s, p, count_include_pad=True) * \
                (k[0] * k[1])
    out = fn(torch.zeros(xs)).shape
    case(f"pool {kind} kernel={kernel} stride={stride} pad={pad}",
         [("x", "param", uniform(xs))],
         lambda F, t, kind=kind, k=kernel, s=stride, p=pad: [
             f"%loss = rlx.pool {kind} %x kernel_size = {list(k)}, "
             f"stride = {list(s)}, padding = {list(p)} : {t((2, 3, 6, 7))}"],
         tuple(out), fn, ["x"], n=9,
         smooth=kind not in ("max", "min"))

# --------------------------------------------------------------------------
# backward ops as forward ops: their own derivatives (second order)
def vjp_of(fn):
    return lambda x, dy: functorch.vjp(fn, x)[1](dy)[0]


for kind, (fn, (low, high)) in ACTS.items():
    if kind in ("relu", "abs", "neg"):
        continue
    case(f"activation_backward {kind}",
         [("x", "param", uniform((3, 5), low, high)),
          ("dy", "param", uniform((3, 5)))],
         lambda F, t, kind=kind: [
             f"%loss = rlx.activation_backward {kind} %x, %dy : {t((3, 5))}, "
             f"{t((3, 5))}"],
         (3, 5), vjp_of(fn), ["x", "dy"])
case("relu_backward",
     [("x", "param", uniform((3, 5))), ("dy", "param", uniform((3, 5)))],
     lambda F, t: [
         f"%loss = rlx.relu_backward %x, %dy : {t((3, 5))}, {t((3, 5))}"],
     (3, 5), lambda x, dy: torch.where(x > 0, dy, torch.zeros_like(dy)),
     ["x", "dy"], smooth=False)
case("softmax_cross_entropy_backward",
     [("z", "param", uniform((4, 5), -2, 2)),
      ("labels", "index", integers((4,), 5)),
      ("dl", "param", uniform((4,)))],
     lambda F, t: [
         f"%loss = rlx.softmax_cross_entropy_backward %z, %labels, %dl : "
         f"{t((4, 5))}, tensor<4xi64>, {t((4,))}"],
     (4, 5), lambda z, labels, dl: (torch.softmax(z, 1) - F.one_hot(
         labels, 5)) * dl[:, None],
     ["z", "dl"], n=5)

# --------------------------------------------------------------------------
# a two-layer MLP with a softmax cross-entropy head (every param)
MLP = {act: mlp_case(act, ACTS[act][0]) for act in ("gelu", "tanh", "silu")}
CASES.extend(MLP.values())
# tanh GELU in a layer of 16: on the CUDA target, the forward GEMM keeps the
# pre-activation (cuBLASLt GELU_AUX_BIAS) and the backward GEMM applies
# GELU's derivative and sums the bias gradient (DGELU_BGRAD).
CASES.append(mlp_case("gelu_approx", ACTS["gelu_approx"][0], hidden=16))


run_cases(hvp_cases=MLP.values())
check.finish()
