"""rlx.quantize, rlx.dequantize and the fake-quantize family on the CPU
against explicit NumPy formulas (np.round rounds half to even).

Inputs hold exact .5 ties of x / scale (scales are powers of two where the
test controls them) and values beyond q_max for the clamps. Forward values
compare within one ulp (rtol 1e-6 / 1e-14), so a different rounding or
clamping decision, which moves a value by a whole scale step, fails; the
tanh estimator and the scale gradient (a sum) use rtol 1e-5 / 1e-12.
"""

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])

EXACT = {np.float32: (1e-6, 0.0), np.float64: (1e-14, 0.0)}
LOOSE = {np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-14)}


def qmax_of(bits):
    return 2 ** (bits - 1) - 1


def norm_axis(axis, rank):
    return None if axis is None else axis % rank


def channel_view(v, axis, rank):
    """A per-channel vector broadcastable against a rank-`rank` tensor."""
    if axis is None:
        return v.reshape(())
    shape = [1] * rank
    shape[axis] = -1
    return v.reshape(shape)


def axis_text(axis):
    return "" if axis is None else f" axis = {axis}"


def with_ties(shape, dtype, axis, steps, limit=200):
    """x / s on a grid of halves in [-limit, limit] (exact .5 ties where
    the steps are powers of two), half of them moved off the grid by noise;
    `steps` are the per-channel step sizes s."""
    rank = len(shape)
    k = check.integers(shape, np.int64, -2 * limit, 2 * limit + 1)
    s = channel_view(np.asarray(steps, dtype), norm_axis(axis, rank), rank)
    x = (k.astype(dtype) * dtype(0.5)) * s
    noise = check.uniform(shape, dtype, -0.5, 0.5) * s
    mask = check.integers(shape, np.int64, 0, 2).astype(bool)
    return np.where(mask, x, x + noise).astype(dtype)


# ---------------------------------------------------------------- quantize
def quantize_graph(shape, axis, scales, zps):
    t = tensor_type(shape, np.float32)
    q = tensor_type(shape, np.int8)
    sc = ", ".join(repr(float(s)) for s in scales)
    zp = ", ".join(str(int(z)) for z in zps)
    return "\n".join([
        f"func.func @main(%x: {t} {{rlx.input = \"x\"}}, %q: {q} {{rlx.input = \"q\"}}) -> ({q}, {t}) {{",
        f"  %0 = rlx.quantize %x{axis_text(axis)} scales = [{sc}] zero_points = [{zp}] : {t}",
        f"  %1 = rlx.dequantize %q{axis_text(axis)} scales = [{sc}] zero_points = [{zp}] : {q}",
        f"  return %0, %1 : {q}, {t}",
        "}"])


POW2 = [0.5, 0.25, 0.125, 1.0, 2.0, 0.0625]
for shape, axis, shared in (((5, 3), None, True), ((7, 3), 1, False),
                            ((2, 5, 3), -2, False), ((9,), 0, True),
                            ((4, 3, 2), 0, False), ((3, 1), 1, False)):
    rank = len(shape)
    ax = norm_axis(axis, rank)
    channels = 1 if (axis is None or shared) else shape[ax]
    scales = np.array([POW2[i % len(POW2)] for i in range(channels)],
                      np.float32)
    zps = check.integers((channels,), np.int32, -20, 20)
    x = with_ties(shape, np.float32, axis if channels > 1 else None,
                  scales if channels > 1 else scales[:1])
    q = check.integers(shape, np.int8, -128, 128)
    outs = check.run(quantize_graph(shape, axis, scales, zps), {"x": x, "q": q})
    s = channel_view(scales, ax if channels > 1 else None, rank)
    z = channel_view(zps, ax if channels > 1 else None, rank)
    want_q = np.clip(np.round(x / s) + z, -128, 127).astype(np.int8)
    want_x = ((q.astype(np.int32) - z).astype(np.float32) * s).astype(np.float32)
    name = f"{shape} axis={axis} channels={channels}"
    check.close(f"quantize {name}", outs[0] if outs else None, want_q, 0, 0)
    check.close(f"dequantize {name}", outs[1] if outs else None, want_x, 0, 0)


# ----------------------------------------------------------- fake_quantize
def per_batch_scales(x, axis, qmax):
    dtype = x.dtype.type
    rank = x.ndim
    if axis is None:
        m = np.abs(x).max().reshape(())
    else:
        others = tuple(d for d in range(rank) if d != axis)
        m = np.abs(x).max(axis=others) if others else np.abs(x)
    return np.maximum(m / dtype(qmax), dtype(1e-12)).astype(dtype)


def fake_quant(x, s, qmax):
    return (np.clip(np.round(x / s), -qmax, qmax) * s).astype(x.dtype)


def per_batch_input(shape, dtype, axis, bits):
    """Ties on a grid of 0.25 with max |x| = q_max * 0.25 per channel, so
    the per-batch scale is exactly 0.25 and x / s hits .5 ties."""
    qmax = qmax_of(bits)
    rank = len(shape)
    k = check.integers(shape, np.int64, -2 * qmax, 2 * qmax + 1)
    x = (k.astype(dtype) * dtype(0.125))
    noise = check.uniform(shape, dtype, -0.1, 0.1)
    mask = check.integers(shape, np.int64, 0, 2).astype(bool)
    x = np.where(mask, x, np.clip(x + noise, -qmax * 0.25, qmax * 0.25))
    # Pin max |x| of every channel to q_max * 0.25.
    idx = [0] * rank
    if axis is None:
        x.flat[0] = -qmax * 0.25
    else:
        for c in range(shape[axis]):
            idx[axis] = c
            x[tuple(idx)] = qmax * 0.25 * (1 if c % 2 else -1)
    return x.astype(dtype)


def fq_graph(shape, dtype, bits, axis, mode, state_shape=None, decay=None):
    t = tensor_type(shape, dtype)
    args = [f"%x: {t} {{rlx.input = \"x\"}}"]
    res = [t]
    if mode == "per_batch":
        line = f"  %0 = rlx.fake_quantize %x bits = {bits}{axis_text(axis)} : {t}"
        rets = "%0"
    else:
        st = tensor_type(state_shape, dtype)
        args.append(f"%s: {st} {{rlx.input = \"s\"}}")
        attrs = f"scale_mode = #rlx.scale_mode<{mode}>"
        if mode == "ema":
            attrs += f", ema_decay = {decay!r} : f32"
            res.append(st)
            line = (f"  %0, %1 = rlx.fake_quantize %x bits = {bits}{axis_text(axis)} "
                    f"state %s : {st} {{{attrs}}} : {t}")
            rets = "%0, %1"
        else:
            line = (f"  %0 = rlx.fake_quantize %x bits = {bits}{axis_text(axis)} "
                    f"state %s : {st} {{{attrs}}} : {t}")
            rets = "%0"
    return "\n".join([
        f"func.func @main({', '.join(args)}) -> ({', '.join(res)}) {{",
        line, f"  return {rets} : {', '.join(res)}", "}"])


FQ_CASES = [((6, 5), None), ((6, 5), 0), ((3, 4, 5), -1), ((3, 4, 5), 1),
            ((11,), None), ((1, 7), 0), ((2, 1, 3), 1)]
for dtype in (np.float32, np.float64):
    rtol, atol = EXACT[dtype]
    for bits in (8, 4, 2):
        qmax = qmax_of(bits)
        for shape, axis in FQ_CASES:
            rank = len(shape)
            ax = norm_axis(axis, rank)
            name = f"{shape} axis={axis} bits={bits} {np.dtype(dtype)}"
            # per_batch
            x = per_batch_input(shape, dtype, ax, bits)
            outs = check.run(fq_graph(shape, dtype, bits, axis, "per_batch"),
                             {"x": x})
            s = per_batch_scales(x, ax, qmax)
            want = fake_quant(x, channel_view(s, ax, rank), qmax)
            check.close(f"fake_quantize per_batch {name}",
                        outs[0] if outs else None, want, rtol, atol)
            # fixed and ema: power-of-two states; values beyond the grid.
            channels = 1 if ax is None else shape[ax]
            state = np.array([POW2[i % len(POW2)] for i in range(channels)],
                             dtype)
            if channels > 1:
                state[1] = 0.0  # fixed: clamped to 1e-12; ema: cold start
            if channels > 2:
                state[2] = -1.0
            x = with_ties(shape, dtype, ax, np.where(state > 0, state, 1.0),
                          limit=qmax + 2)
            x.flat[0] = dtype(3 * qmax)  # beyond q_max for every scale <= 1
            outs = check.run(fq_graph(shape, dtype, bits, axis, "fixed",
                                      (channels,)), {"x": x, "s": state})
            s = np.maximum(state, dtype(1e-12)).astype(dtype)
            want = fake_quant(x, channel_view(s, ax, rank), qmax)
            check.close(f"fake_quantize fixed {name}",
                        outs[0] if outs else None, want, rtol, atol)
            decay = 0.75
            outs = check.run(fq_graph(shape, dtype, bits, axis, "ema",
                                      (channels,), decay), {"x": x, "s": state})
            cur = per_batch_scales(x, ax, qmax).reshape(channels)
            d = dtype(np.float32(decay))
            blended = (d * state + (dtype(1) - d) * cur).astype(dtype)
            s = np.where(state <= 0, cur, blended).astype(dtype)
            want = fake_quant(x, channel_view(s, ax, rank), qmax)
            check.close(f"fake_quantize ema {name}", outs[0] if outs else None,
                        want, rtol, atol)
            check.close(f"fake_quantize ema state {name}",
                        outs[1] if outs and len(outs) > 1 else None, s,
                        rtol, atol)


# ------------------------------------------------- fake_quantize_backward
def fqb_graph(shape, dtype, bits, axis, stes):
    t = tensor_type(shape, dtype)
    lines = [f"func.func @main(%x: {t} {{rlx.input = \"x\"}}, %dy: {t} {{rlx.input = \"dy\"}}) -> ({', '.join([t] * len(stes))}) {{"]
    for i, ste in enumerate(stes):
        lines.append(f"  %{i} = rlx.fake_quantize_backward %x, %dy bits = {bits}"
                     f"{axis_text(axis)} ste = {ste} : {t}, {t}")
    lines.append(f"  return {', '.join(f'%{i}' for i in range(len(stes)))} : "
                 f"{', '.join([t] * len(stes))}")
    lines.append("}")
    return "\n".join(lines)


STES = ["identity", "clipped_identity", "tanh", "hard_tanh"]
for dtype in (np.float32, np.float64):
    for bits in (8, 2):
        qmax = qmax_of(bits)
        for shape, axis in ((5, 7), None), ((5, 7), 1), ((2, 3, 5), -3), ((9,), 0):
            rank = len(shape)
            ax = norm_axis(axis, rank)
            x = check.uniform(shape, dtype, -3, 3)
            dy = check.uniform(shape, dtype, -1, 1)
            outs = check.run(fqb_graph(shape, dtype, bits, axis, STES),
                             {"x": x, "dy": dy})
            s = channel_view(per_batch_scales(x, ax, qmax), ax, rank)
            lim = dtype(qmax) * s
            wants = {
                "identity": dy,
                "clipped_identity": np.where(np.abs(x) <= lim, dy, dtype(0)),
                "tanh": dy * (dtype(1) - np.tanh(x / s) ** 2),
                "hard_tanh": dy * np.maximum(dtype(0), dtype(1) - np.abs(x / lim)),
            }
            for i, ste in enumerate(STES):
                rtol, atol = (LOOSE if ste == "tanh" else EXACT)[dtype]
                check.close(f"fake_quantize_backward {ste} {shape} axis={axis} "
                            f"bits={bits} {np.dtype(dtype)}",
                            outs[i] if outs else None,
                            wants[ste].astype(dtype), rtol, atol)


# -------------------------------------------------------------------- LSQ
def lsq_graph(shape, sshape, dtype, bits, axis):
    t = tensor_type(shape, dtype)
    st = tensor_type(sshape, dtype)
    ax = axis_text(axis)
    return "\n".join([
        f"func.func @main(%x: {t} {{rlx.input = \"x\"}}, %s: {st} {{rlx.input = \"s\"}}, "
        f"%dy: {t} {{rlx.input = \"dy\"}}) -> ({t}, {t}, {st}) {{",
        f"  %0 = rlx.fake_quantize_lsq %x, %s bits = {bits}{ax} : {t}, {st}",
        f"  %1 = rlx.fake_quantize_lsq_backward_x %x, %s, %dy bits = {bits}{ax} : {t}, {st}, {t}",
        f"  %2 = rlx.fake_quantize_lsq_backward_scale %x, %s, %dy bits = {bits}{ax} : {t}, {st}, {t}",
        f"  return %0, %1, %2 : {t}, {t}, {st}",
        "}"])


for dtype in (np.float32, np.float64):
    for bits in (8, 4, 2):
        qmax = qmax_of(bits)
        for shape, axis in (((6, 5), None), ((6, 5), 1), ((3, 4, 5), -3),
                            ((13,), None), ((4, 1), 1)):
            rank = len(shape)
            ax = norm_axis(axis, rank)
            channels = 1 if ax is None else shape[ax]
            scale = np.array([POW2[i % len(POW2)] for i in range(channels)],
                             dtype)
            # Ties, exact grid boundaries (|z| == q_max) and values beyond.
            x = with_ties(shape, dtype, ax, scale, limit=qmax + 2)
            sv = channel_view(scale, ax, rank)
            x.flat[0] = (dtype(qmax) * sv.flat[0]).astype(dtype)
            x.flat[-1] = (dtype(-3 * qmax) * sv.flat[-1]).astype(dtype)
            dy = check.uniform(shape, dtype, -1, 1)
            outs = check.run(lsq_graph(shape, (channels,), dtype, bits, axis),
                             {"x": x, "s": scale, "dy": dy})
            z = x / sv
            inside = np.abs(z) <= qmax
            want_y = fake_quant(x, sv, qmax)
            want_dx = np.where(inside, dy, dtype(0)).astype(dtype)
            psi = np.where(inside, np.round(z) - z, np.sign(z) * qmax)
            prod = (psi * dy).astype(np.float64)
            if ax is None:
                want_ds = prod.sum().reshape(1)
            else:
                others = tuple(d for d in range(rank) if d != ax)
                want_ds = prod.sum(axis=others) if others else prod
            want_ds = want_ds.astype(dtype)
            name = f"{shape} axis={axis} bits={bits} {np.dtype(dtype)}"
            rtol, atol = EXACT[dtype]
            check.close(f"fake_quantize_lsq {name}", outs[0] if outs else None,
                        want_y, rtol, atol)
            check.close(f"fake_quantize_lsq_backward_x {name}",
                        outs[1] if outs else None, want_dx, rtol, atol)
            # A sum with cancellation: the tolerance scales with sum |terms|.
            rtol = LOOSE[dtype][0]
            atol = rtol * float(np.abs(prod).sum()) + LOOSE[dtype][1]
            check.close(f"fake_quantize_lsq_backward_scale {name}",
                        outs[2] if outs else None, want_ds, rtol, atol)

check.finish()
