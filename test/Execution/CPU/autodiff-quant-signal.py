"""rlx-autodiff and rlx-jvp of the quantization, MoE, linear-solve and
complex/signal ops on the CPU against torch.autograd, with the harness of
`test/Execution/lib/autodiffcheck.py`.

Quantizers are checked against PyTorch's straight-through formulations:
`torch.fake_quantize_per_{tensor,channel}_affine` for quantize followed by
dequantize, and the estimators of fake_quantize / LSQ written with
`detach` (the scale a constant). They are not smooth (smooth=False: no
finite differences). The ops that take only f32 or complex<f32> run in
f32 inside the f64 graphs (between casts), so those f64 cases use rtol 1e-6
(f32 rounding of O(1) values summed over a few terms). log_mel divides by
the mel energies, which amplifies the f32 rounding of their sums: rtol 1e-4
in f32. Complex ops are checked inside real-valued losses (real inputs cast
to complex), as users call them; torch.autograd on complex tensors is the
oracle (PyTorch's conjugate-Wirtinger convention).

dequant_matmul (int8_block with a zero point: x, scale and zero point),
dequant_grouped_matmul (a constant Q8_0 stack, whose values the test
decodes itself: the input) and q_conv2d (between quantize and dequantize,
straight-through like q_matmul: the input) are checked numerically too.
"""

import math
import sys

import numpy as np
import torch

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from autodiffcheck import case, init, run_cases, uniform  # noqa: E402

check = init(sys.argv[1], sys.argv[2])
F32_INSIDE = {np.float64: 1e-6}
# f32 inside an f64 graph on products of int8 weights (up to 128) and
# scales: the f32 rounding of sums of terms up to about 13 reaches 2e-5
# absolute in rlx's own <v, J t> = <J^T v, t> check.
F32_PRODUCTS = {np.float64: 5e-5}


def ste(value, surrogate):
    """`value` forward, the derivative of `surrogate` backward."""
    return value.detach() + surrogate - surrogate.detach()


def with_torch_gradient(f, x):
    """`f(x)` of PyTorch's f32 fake quantization `f`, which returns its value
    and the 0/1 mask its backward applies (the `_cachemask` variants). The
    fake_quantize functions have no forward-mode derivative, so the mask is
    applied to a surrogate, for both modes."""
    y, mask = f(x.detach().float())
    return ste(y.to(x.dtype), x * mask.to(x.dtype))


def to_f32(F, t, shape, name, out):
    """MLIR lines casting %name to f32 in an f64 graph (as %out)."""
    if F == "f32":
        return [f"%{out} = rlx.reshape %{name} new_shape = "
                f"[{', '.join(map(str, shape))}] : {t(shape)}"]
    return [f"%{out} = rlx.cast %{name} : {t(shape)} to f32"]


def from_f32(F, shape, name):
    """The loss from the f32 value %name."""
    ty = "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"
    if F == "f32":
        return [f"%loss = rlx.reshape %{name} new_shape = "
                f"[{', '.join(map(str, shape))}] : {ty}"]
    return [f"%loss = rlx.cast %{name} : {ty} to f64"]


def fmt(values, kind=float):
    return "[" + ", ".join(str(kind(v)) for v in values) + "]"


# --------------------------------------------------------------------------
# quantize -> dequantize: PyTorch's fake_quantize (clipped straight-through)
SHAPE = (4, 6)
for axis, scales, zps in ((None, [0.01], [3]), (None, [0.02], [-5]),
                          (1, [0.01, 0.02, 0.005, 0.03, 0.01, 0.015],
                           [0, 3, -2, 7, -128, 127]),
                          (-2, [0.012, 0.004, 0.02, 0.008], [1, -1, 0, 5]),
                          (0, [0.01], [2])):
    attr = "" if axis is None else f"axis = {axis} "

    def torch_fq(xf, axis=axis, scales=scales, zps=zps):
        aten = torch.ops.aten
        if axis is None or len(scales) == 1:
            return aten.fake_quantize_per_tensor_affine_cachemask(
                xf, scales[0], zps[0], -128, 127)
        return aten.fake_quantize_per_channel_affine_cachemask(
            xf, torch.tensor(scales, dtype=torch.float32),
            torch.tensor(zps, dtype=torch.int32), axis % 2, -128, 127)

    def fn(x, torch_fq=torch_fq):
        return with_torch_gradient(torch_fq, x)
    case(f"quantize/dequantize axis={axis} scales={len(scales)}",
         [("x", "param", uniform(SHAPE, -2.0, 2.0))],
         lambda F, t, attr=attr, scales=scales, zps=zps: to_f32(
             F, t, SHAPE, "x", "x32") + [
             f"%q = rlx.quantize %x32 {attr}scales = {fmt(scales)} "
             f"zero_points = {fmt(zps, int)} : tensor<4x6xf32>",
             f"%d = rlx.dequantize %q {attr}scales = {fmt(scales)} "
             f"zero_points = {fmt(zps, int)} : tensor<4x6xi8>"] +
         from_f32(F, SHAPE, "d"),
         SHAPE, fn, ["x"], smooth=False, tol=F32_INSIDE)


# --------------------------------------------------------------------------
# fake_quantize: every estimator, scale mode and a few bit widths and axes
def fq_forward(x, scale, qmax):
    return torch.clamp(torch.round(x / scale), -qmax, qmax) * scale


def graph_dtype(x):
    """The dtype of the graph the (f64) oracle inputs came from."""
    return torch.float32 if torch.equal(x, x.float().double()) \
        else torch.float64


def fq_scale(x, s, axis, mode, qmax, dtype):
    """fake_quantize's scale per channel, computed in `dtype`, in the order
    the op defines it."""
    x = x.detach().to(dtype)
    axes = [d for d in range(x.dim()) if d != axis]
    cur = torch.clamp(x.abs().amax(dim=axes) / qmax, min=1e-12)
    if mode == "per_batch":
        scale = cur
    elif mode == "fixed":
        scale = torch.clamp(s.to(dtype), min=1e-12)
    else:
        s = s.to(dtype)
        scale = torch.where(s <= 0, cur, decay * s + (1 - decay) * cur)
    return channel_view(scale.reshape(-1), axis, x.dim())


def fq_surrogate(x, scale, qmax, kind):
    """A function whose derivative is the estimator `kind` (scale fixed)."""
    scale = scale.detach()
    if kind == "identity":
        return x
    if kind == "clipped_identity":
        # The bound is compared in the graph's precision: a per-batch scale's
        # maximum sits on it, on either side depending on the rounding.
        dtype = graph_dtype(x)
        inside = x.detach().to(dtype).abs() <= qmax * scale.to(dtype)
        return x * inside.to(x.dtype)
    if kind == "tanh":
        return scale * torch.tanh(x / scale)
    u = torch.clamp(x / (qmax * scale), -1, 1)  # hard_tanh
    return qmax * scale * (u - u * u.abs() / 2)


def channel_view(v, axis, rank):
    if axis is None:
        return v
    shape = [1] * rank
    shape[axis] = -1
    return v.reshape(shape)


FQ_SHAPE = (5, 4)
decay = 0.75
for bits, axis, mode, kind in (
        (4, None, "per_batch", "identity"),
        (4, 1, "per_batch", "clipped_identity"),
        (4, 0, "per_batch", "tanh"),
        (2, 1, "per_batch", "hard_tanh"),
        (8, None, "per_batch", "tanh"),
        (4, 1, "fixed", "identity"),
        (4, 1, "fixed", "clipped_identity"),
        (2, None, "fixed", "tanh"),
        (8, 0, "fixed", "hard_tanh"),
        (4, 0, "ema", "clipped_identity"),
        (4, None, "ema", "tanh"),
        (2, 1, "ema", "hard_tanh"),
        (8, 1, "ema", "identity")):
    qmax = 2 ** (bits - 1) - 1
    channels = 1 if axis is None else FQ_SHAPE[axis]
    attr = f"bits = {bits} " + ("" if axis is None else f"axis = {axis} ")
    args = [("x", "param", uniform(FQ_SHAPE))]
    if mode != "per_batch":
        # Fixed scales small enough that some values saturate; EMA states
        # with one cold (non-positive) entry.
        def make_state(dtype, channels=channels, mode=mode):
            s = check.uniform((channels,), dtype, 0.04, 0.2)
            if mode == "ema" and channels > 1:
                s[0] = 0.0
            return s
        args.append(("s", "input", make_state))

    def fn(x, s=None, axis=axis, mode=mode, kind=kind, qmax=qmax):
        scale = fq_scale(x, s, axis, mode, qmax, graph_dtype(x)).double()
        return ste(fq_forward(x, scale, qmax),
                   fq_surrogate(x, scale, qmax, kind))

    def body(F, t, attr=attr, mode=mode, kind=kind, channels=channels):
        opts = f"ste = #rlx.ste<{kind}>"
        state = ""
        results = "%loss"
        if mode != "per_batch":
            state = f"state %s : {t((channels,))} "
            opts += f", scale_mode = #rlx.scale_mode<{mode}>"
        if mode == "ema":
            opts += f", ema_decay = {decay} : f32"
            results = "%loss, %s1"
        return [f"{results} = rlx.fake_quantize %x {attr}{state}{{{opts}}} "
                f": {t(FQ_SHAPE)}"]
    case(f"fake_quantize bits={bits} axis={axis} {mode} {kind}", args, body,
         FQ_SHAPE, fn, ["x"], smooth=False)


# fake_quantize_lsq: x and the learned scale
for bits, axis in ((2, None), (4, 1), (8, 0), (4, -1), (2, 0)):
    qmax = 2 ** (bits - 1) - 1
    channels = 1 if axis is None else FQ_SHAPE[axis]
    attr = f"bits = {bits}" + ("" if axis is None else f" axis = {axis}")

    def fn(x, s, axis=axis, qmax=qmax):
        scale = channel_view(s, None if axis is None else axis % 2, x.dim())
        # LSQ (the op's definition): x passes where |x / s| <= q_max, not
        # where the rounded value does.
        z = x / scale
        inside = (z.detach().abs() <= qmax).to(x.dtype)
        return ste(torch.clamp(torch.round(z), -qmax, qmax), z * inside) * scale
    # Scales that leave some values saturated at every bit width.
    case(f"fake_quantize_lsq bits={bits} axis={axis}",
         [("x", "param", uniform(FQ_SHAPE)),
          ("s", "param", uniform((channels,), 0.5 / (qmax + 1),
                                 1.5 / (qmax + 1)))],
         lambda F, t, attr=attr, channels=channels: [
             f"%loss = rlx.fake_quantize_lsq %x, %s {attr} : "
             f"{t(FQ_SHAPE)}, {t((channels,))}"],
         FQ_SHAPE, fn, ["x", "s"], smooth=False, n=FQ_SHAPE[0])


# --------------------------------------------------------------------------
# q_matmul between quantize and dequantize: integer arithmetic with
# straight-through rounding, no derivative where a value saturates.
#
# The oracle computes what the lowering and the rules compute, operation for
# operation, so that a value at a rounding tie or at a saturation edge falls
# on the same side for every seed: rlx.quantize rounds f32(x) / f32(scale)
# in f32, and its rule tests f32(x) / f32(scale) + zp (f32) against the i8
# range; the integer ops requantize in f64, round(acc * f64(f32(mult))) +
# out_zp (exact: acc is an integer below 2^24, mult has 24 bits), while
# their rules test f32(acc) * f32(mult) + out_zp, rounded in f32, against
# [-128.5, 127.5].
QX, QZ, QW = 0.02, 3, 1


def quantize_ste(v, scale, zp):
    """rlx.quantize of `v` to i8 (as f64 integers) with its straight-through
    derivative `1 / scale` where it does not saturate."""
    s32 = torch.tensor(scale, dtype=torch.float32)
    quotient = v.detach().float() / s32
    k = torch.clamp(torch.round(quotient) + zp, -128, 127).double()
    unrounded = quotient + zp
    inside = ((unrounded >= -128.5) & (unrounded <= 127.5)).double()
    return ste(k, (v.double() / float(s32) + zp) * inside)


def requantize_ste(acc, mult, out_zp):
    """The i8 requantization of the f64 integer accumulator `acc` with the
    rules' straight-through derivative `mult` where it does not saturate."""
    m32 = np.float32(mult)
    v = acc * float(m32) + out_zp
    unrounded = acc.detach().float() * torch.tensor(m32) + out_zp
    inside = ((unrounded >= -128.5) & (unrounded <= 127.5)).double()
    return ste(torch.clamp(torch.round(v), -128, 127), v * inside)

for mult, out_scale, out_zp in ((0.01, 0.05, -4), (0.05, 0.02, 10)):
    def make_w(dtype):
        return check.integers((8, 5), np.int8, -20, 20)

    def make_bias(dtype):
        return check.integers((5,), np.int32, -300, 300)

    def fn(x, w, bias, mult=mult, out_scale=out_scale, out_zp=out_zp):
        xi = quantize_ste(x, QX, QZ) - QZ
        acc = xi @ (w.double() - QW) + bias.double()
        o = requantize_ste(acc, mult, out_zp)
        y = ((o - out_zp) * float(np.float32(out_scale))).float()
        return y.to(x.dtype)
    case(f"q_matmul mult={mult}",
         [("x", "param", uniform((4, 8), -2.0, 2.0)),
          ("w", "index", make_w), ("bias", "index", make_bias)],
         lambda F, t, mult=mult, out_scale=out_scale, out_zp=out_zp: to_f32(
             F, t, (4, 8), "x", "x32") + [
             f"%q = rlx.quantize %x32 scales = [{QX}] zero_points = [{QZ}] "
             ": tensor<4x8xf32>",
             f"%y = rlx.q_matmul %q, %w, %bias {{x_zp = {QZ} : i64, "
             f"w_zp = {QW} : i64, out_zp = {out_zp} : i64, "
             f"mult = {mult} : f32}} : tensor<4x8xi8>, tensor<8x5xi8>, "
             "tensor<5xi32>",
             f"%d = rlx.dequantize %y scales = [{out_scale}] "
             f"zero_points = [{out_zp}] : tensor<4x5xi8>"] +
         from_f32(F, (4, 5), "d"),
         (4, 5), fn, ["x"], smooth=False, n=8, tol=F32_INSIDE)


# the weight quantized from a float parameter too: both through q_matmul
WS, WZ = 0.05, -2


def q_matmul_both(x, wf, bias):
    acc = (quantize_ste(x, QX, QZ) - QZ) @ (quantize_ste(wf, WS, WZ) -
                                            WZ) + bias.double()
    o = requantize_ste(acc, 0.002, 1)
    return ((o - 1) * float(np.float32(0.1))).float().to(x.dtype)


case("q_matmul quantized weight",
     [("x", "param", uniform((3, 8), -2.0, 2.0)),
      ("wf", "param", uniform((8, 4), -2.0, 2.0)),
      ("bias", "index", lambda dtype: check.integers((4,), np.int32, -99,
                                                      99))],
     lambda F, t: to_f32(F, t, (3, 8), "x", "x32") +
     to_f32(F, t, (8, 4), "wf", "w32") + [
         f"%q = rlx.quantize %x32 scales = [{QX}] zero_points = [{QZ}] "
         ": tensor<3x8xf32>",
         f"%w = rlx.quantize %w32 scales = [{WS}] zero_points = [{WZ}] "
         ": tensor<8x4xf32>",
         f"%y = rlx.q_matmul %q, %w, %bias {{x_zp = {QZ} : i64, "
         f"w_zp = {WZ} : i64, out_zp = 1 : i64, mult = 0.002 : f32}} "
         ": tensor<3x8xi8>, tensor<8x4xi8>, tensor<4xi32>",
         "%d = rlx.dequantize %y scales = [0.1] zero_points = [1] "
         ": tensor<3x4xi8>"] + from_f32(F, (3, 4), "d"),
     (3, 4), q_matmul_both, ["x", "wf"], smooth=False, n=8, tol=F32_INSIDE)


# --------------------------------------------------------------------------
# dequant_matmul int8_block with a zero point: bilinear in x and the scale,
# linear in the zero point (W = (q - zp) * scale, blocks of 4 along K)
def dequant_int8(x, w, s, z):
    rows = torch.arange(8) // 4
    return x @ ((w.to(x.dtype) - z[rows]) * s[rows])


case("dequant_matmul int8_block",
     [("x", "param", uniform((3, 8))),
      ("w", "index", lambda dtype: check.integers((8, 5), np.int8, -128,
                                                  128)),
      ("s", "param", uniform((2, 5), 0.01, 0.1)),
      ("z", "param", uniform((2, 5), -4.0, 4.0))],
     lambda F, t: to_f32(F, t, (3, 8), "x", "x32") +
     to_f32(F, t, (2, 5), "s", "s32") + to_f32(F, t, (2, 5), "z", "z32") + [
         "%y = rlx.dequant_matmul int8_block block_size = 4 %x32, %w "
         "scale %s32 : tensor<2x5xf32> zero_point %z32 : tensor<2x5xf32> "
         ": tensor<3x8xf32>, tensor<8x5xi8>"] + from_f32(F, (3, 5), "y"),
     (3, 5), dequant_int8, ["x", "s", "z"], n=8, tol=F32_PRODUCTS)


# dequant_grouped_matmul on a constant Q8_0 stack (2 experts of 3 rows of
# 32): the input's gradient through the decoded weights
def q8_0_stack(experts, rows, rng):
    """Packed Q8_0 bytes and their values [experts, 32, rows]."""
    d = rng.uniform(0.005, 0.02, experts * rows).astype(np.float16)
    q = rng.integers(-128, 128, (experts * rows, 32)).astype(np.int8)
    packed = np.concatenate([d.view(np.uint8).reshape(-1, 2),
                             q.view(np.uint8)], axis=1).reshape(-1)
    values = q.astype(np.float32) * d.astype(np.float32)[:, None]
    return packed, values.reshape(experts, rows, 32).transpose(0, 2, 1)


Q8_PACKED, Q8_VALUES = q8_0_stack(2, 3, np.random.default_rng(12))
Q8_HEX = "0x" + Q8_PACKED.tobytes().hex().upper()
case("dequant_grouped_matmul gguf_q8_0",
     [("x", "param", uniform((4, 32))),
      ("idx", "index", lambda dtype: check.integers((4,), np.int64, 0, 2))],
     lambda F, t: [f"%p = rlx.constant dense<\"{Q8_HEX}\"> : "
                   f"tensor<{Q8_PACKED.size}xui8>"] +
     to_f32(F, t, (4, 32), "x", "x32") + [
         "%y = rlx.dequant_grouped_matmul gguf_q8_0 %x32, %p, %idx : "
         f"tensor<4x32xf32>, tensor<{Q8_PACKED.size}xui8>, tensor<4xi64> -> "
         "tensor<4x3xf32>"] + from_f32(F, (4, 3), "y"),
     (4, 3), lambda x, idx: (x[:, :, None] * torch.tensor(
         Q8_VALUES, dtype=x.dtype)[idx.long()]).sum(1),
     ["x"], n=32, tol=F32_INSIDE)


# q_conv2d between quantize and dequantize, like q_matmul above
def q_conv2d_fn(x, w, bias):
    xi = quantize_ste(x, QX, QZ) - QZ
    acc = torch.nn.functional.conv2d(xi, w.double() - QW, padding=1) + \
        bias.double()[None, :, None, None]
    o = requantize_ste(acc, 0.01, -3)
    return ((o + 3) * float(np.float32(0.05))).float().to(x.dtype)


case("q_conv2d",
     [("x", "param", uniform((1, 2, 4, 4), -2.0, 2.0)),
      ("w", "index", lambda dtype: check.integers((3, 2, 3, 3), np.int8, -20,
                                                  20)),
      ("bias", "index", lambda dtype: check.integers((3,), np.int32, -300,
                                                     300))],
     lambda F, t: to_f32(F, t, (1, 2, 4, 4), "x", "x32") + [
         f"%q = rlx.quantize %x32 scales = [{QX}] zero_points = [{QZ}] "
         ": tensor<1x2x4x4xf32>",
         "%y = rlx.q_conv2d %q, %w, %bias {kernel_size = array<i64: 3, 3>, "
         "stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, "
         "dilation = array<i64: 1, 1>, groups = 1 : i64, "
         f"x_zp = {QZ} : i64, w_zp = {QW} : i64, out_zp = -3 : i64, "
         "mult = 0.01 : f32} : tensor<1x2x4x4xi8>, tensor<3x2x3x3xi8>, "
         "tensor<3xi32>",
         "%d = rlx.dequantize %y scales = [0.05] zero_points = [-3] "
         ": tensor<1x3x4x4xi8>"] + from_f32(F, (1, 3, 4, 4), "d"),
     (1, 3, 4, 4), q_conv2d_fn, ["x"], smooth=False, n=18, tol=F32_INSIDE)


# --------------------------------------------------------------------------
# grouped_matmul: the input and the expert weights (ids of either width)
for idx_type in (np.int64, np.int32):
    def make_idx(dtype, idx_type=idx_type):
        return check.integers((6,), idx_type, 0, 3)
    width = np.dtype(idx_type).itemsize * 8
    case(f"grouped_matmul i{width}",
         [("x", "param", uniform((6, 4))), ("w", "param", uniform((3, 4, 5))),
          ("idx", "index", make_idx)],
         lambda F, t, width=width: [
             f"%loss = rlx.grouped_matmul %x, %w, %idx : {t((6, 4))}, "
             f"{t((3, 4, 5))}, tensor<6xi{width}>"],
         (6, 5), lambda x, w, idx: (x[:, :, None] * w[idx.long()]).sum(1),
         ["x", "w"], n=4)


# batched_dense_solve: one and several right-hand sides
def make_system(dtype):
    a = check.uniform((3, 4, 4), dtype) + 4 * np.eye(4, dtype=dtype)
    return a.astype(dtype)


for bshape in ((3, 4), (3, 4, 2)):
    case(f"batched_dense_solve b{bshape}",
         [("a", "param", make_system), ("b", "param", uniform(bshape))],
         lambda F, t, bshape=bshape: [
             f"%loss = rlx.batched_dense_solve %a, %b : {t((3, 4, 4))}, "
             f"{t(bshape)}"],
         bshape, lambda a, b, bshape=bshape: torch.linalg.solve(
             a, b) if len(bshape) == 3 else torch.linalg.solve(
             a, b[..., None])[..., 0],
         ["a", "b"], n=16)


# --------------------------------------------------------------------------
# fft in the real-block layout (f32 and f64): every direction and norm
def rlx_fft(z, inverse, norm):
    """RLX fft of complex rows."""
    n = z.shape[-1]
    out = n * torch.fft.ifft(z) if inverse else torch.fft.fft(z)
    if norm == "ortho":
        out = out / math.sqrt(n)
    elif norm == "forward" and inverse:
        out = out / n
    return out


def block_fft(x, inverse, norm):
    n = x.shape[-1] // 2
    out = rlx_fft(torch.complex(x[..., :n], x[..., n:]), inverse, norm)
    return torch.cat([out.real, out.imag], -1)


for shape in ((3, 16), (2, 3, 10)):
    for inverse in (False, True):
        for norm in ("backward", "forward", "ortho"):
            inv = "inverse " if inverse else ""
            case(f"fft block {shape} {inv}{norm}",
                 [("x", "param", uniform(shape))],
                 lambda F, t, shape=shape, inv=inv, norm=norm: [
                     f"%loss = rlx.fft {inv}%x {{norm = #rlx.fft_norm<{norm}>}}"
                     f" : {t(shape)}"],
                 shape, lambda x, inverse=inverse, norm=norm: block_fft(
                     x, inverse, norm), ["x"], n=shape[-1])


# complex<f32>: z = a + i b -> fft -> conjugate * w -> |.|^2 + re(.)
CS = (3, 8)
for inverse in (False, True):
    for norm in ("backward", "forward", "ortho"):
        inv = "inverse " if inverse else ""

        def fn(a, b, w, inverse=inverse, norm=norm):
            z = torch.complex(a, b)
            f = torch.conj(rlx_fft(z, inverse, norm)) * torch.complex(
                w, torch.zeros_like(w))
            return (f.abs() ** 2 + f.real).to(a.dtype)

        def body(F, t, inv=inv, norm=norm):
            c = "tensor<3x8xcomplex<f32>>"
            lines = []
            for name in "abw":
                lines.append(f"%{name}c = rlx.cast %{name} : {t(CS)} "
                             "to complex<f32>")
            return lines + [
                "%i = rlx.constant dense<(0.0, 1.0)> : tensor<complex<f32>>",
                f"%bi = rlx.binary mul %bc, %i : {c}, tensor<complex<f32>>",
                f"%z = rlx.binary add %ac, %bi : {c}, {c}",
                f"%f = rlx.fft {inv}%z {{norm = #rlx.fft_norm<{norm}>}} : {c}",
                f"%j = rlx.conjugate %f : {c}",
                f"%g = rlx.binary mul %j, %wc : {c}, {c}",
                f"%n = rlx.complex_norm_sq %g : {c}",
                f"%r = rlx.cast %g : {c} to f32",
                "%s = rlx.binary add %n, %r : tensor<3x8xf32>, "
                "tensor<3x8xf32>"] + from_f32(F, CS, "s")
        case(f"complex fft {inv}{norm} conjugate complex_norm_sq",
             [("a", "param", uniform(CS)), ("b", "param", uniform(CS)),
              ("w", "param", uniform(CS))],
             body, CS, fn, ["a", "b", "w"], n=8,
             tol={np.float32: 3e-5, np.float64: 3e-6})


# complex division and subtraction (the binary rules on complex operands)
def complex_div_fn(a, b):
    z = torch.complex(a, b)
    q = (z - torch.complex(b, a)) / torch.complex(a + 2, b)
    return (q.abs() ** 2).to(a.dtype)


def complex_div_body(F, t):
    c = "tensor<3x4xcomplex<f32>>"
    return [
        f"%ac = rlx.cast %a : {t((3, 4))} to complex<f32>",
        f"%bc = rlx.cast %b : {t((3, 4))} to complex<f32>",
        "%i = rlx.constant dense<(0.0, 1.0)> : tensor<complex<f32>>",
        "%two = rlx.constant dense<(2.0, 0.0)> : tensor<complex<f32>>",
        f"%bi = rlx.binary mul %bc, %i : {c}, tensor<complex<f32>>",
        f"%ai = rlx.binary mul %ac, %i : {c}, tensor<complex<f32>>",
        f"%z = rlx.binary add %ac, %bi : {c}, {c}",
        f"%u = rlx.binary add %bc, %ai : {c}, {c}",
        f"%a2 = rlx.binary add %ac, %two : {c}, tensor<complex<f32>>",
        f"%v = rlx.binary add %a2, %bi : {c}, {c}",
        f"%d = rlx.binary sub %z, %u : {c}, {c}",
        f"%q = rlx.binary div %d, %v : {c}, {c}",
        f"%n = rlx.complex_norm_sq %q : {c}"] + from_f32(F, (3, 4), "n")


case("complex sub div", [("a", "param", uniform((3, 4))),
                         ("b", "param", uniform((3, 4)))],
     complex_div_body, (3, 4), complex_div_fn, ["a", "b"],
     tol={np.float32: 3e-5, np.float64: 3e-6})


# log_mel of a spectrum (and of the fft of a signal); the filterbank is an
# input (it gets no gradient)
def log_mel(spec, fb):
    nfft = spec.shape[-1] // 2
    bins = nfft // 2 + 1
    power = spec[..., :bins] ** 2 + spec[..., nfft:nfft + bins] ** 2
    level = torch.log10(torch.clamp(power @ fb.T, min=1e-10))
    level = torch.maximum(level, level.max().detach() - 8)
    return (level + 4) / 4


LOG_MEL_TOL = {np.float32: 1e-4}
for shape in ((3, 16), (2, 2, 12)):
    bins = shape[-1] // 4 + 1
    case(f"log_mel {shape}",
         [("spec", "param", uniform(shape)),
          ("fb", "input", uniform((4, bins), 0.05, 1.0))],
         lambda F, t, shape=shape, bins=bins: [
             f"%loss = rlx.log_mel %spec, %fb : {t(shape)}, {t((4, bins))}"],
         shape[:-1] + (4,), log_mel, ["spec"], n=bins, tol=LOG_MEL_TOL)

case("fft -> log_mel",
     [("x", "param", uniform((3, 16))),
      ("fb", "input", uniform((5, 5), 0.05, 1.0))],
     lambda F, t: [
         f"%s = rlx.fft %x : {t((3, 16))}",
         f"%loss = rlx.log_mel %s, %fb : {t((3, 16))}, {t((5, 5))}"],
     (3, 5), lambda x, fb: log_mel(block_fft(x, False, "backward"), fb),
     ["x"], n=40, tol=LOG_MEL_TOL)


run_cases()
check.finish()
