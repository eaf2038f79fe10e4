"""rlx.dequant_matmul, rlx.dequant_moe_weights, rlx.dequant_grouped_matmul
and rlx.q_conv2d on the CPU against NumPy.

The reference dequantizers below are written from docs/quantization.md (for
the K-quants in the super-block loop form of the published format, not in
the per-element form the lowering uses); those of the IQ, TQ and FP4 GGUF
formats are in ../lib/ggml_ref.py, which parses ggml's lookup tables itself
from the table file the lowering compiles. Weights are random bytes; the f16
and f32 scale fields are random finite values (NaN and infinity bit
patterns are replaced), so subnormal and large scales occur.

Dequantization must be byte-exact: rlx.dequant_moe_weights (GGUF schemes)
and rlx.dequant_matmul with an identity x (the other schemes: every sum
has one nonzero term) must reproduce the reference's f32 weights bit for
bit (NaN equal to NaN). FP8 decodes every one of the 256 codes, infinities
and NaNs included, through a 1 x 1 x N product.

The products are compared with a float64 NumPy product elementwise against
1e-5 * (|x| @ |W|), the f32 rounding of a sum of K terms. An expert id
outside [0, E) in dequant_grouped_matmul gives a zero row (as in
rlx.grouped_matmul).

q_conv2d: acc = bias + sum (x - x_zp) * (w - w_zp) in integers (wrapping
i32), out = saturate_i8(round_half_even(acc * mult) + out_zp) in float64;
exact.
"""

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
import ggml_ref  # noqa: E402
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
rng = check.rng
F32 = np.float32

# Elements and bytes per block of the GGUF schemes.
GGUF = {"gguf_q4_0": (32, 18), "gguf_q4_1": (32, 20), "gguf_q5_0": (32, 22),
        "gguf_q5_1": (32, 24), "gguf_q8_0": (32, 34), "gguf_q2_k": (256, 84),
        "gguf_q3_k": (256, 110), "gguf_q4_k": (256, 144),
        "gguf_q5_k": (256, 176), "gguf_q6_k": (256, 210),
        "gguf_q8_k": (256, 292), **ggml_ref.BLOCKS}

# Byte offsets of the f16 (or, for q8_k, f32) scale fields in a block.
SCALE_FIELDS = {"gguf_q4_0": [0], "gguf_q4_1": [0, 2], "gguf_q5_0": [0],
                "gguf_q5_1": [0, 2], "gguf_q8_0": [0], "gguf_q2_k": [80, 82],
                "gguf_q3_k": [108], "gguf_q4_k": [0, 2], "gguf_q5_k": [0, 2],
                "gguf_q6_k": [208]}


def finite_f16_bits(shape):
    """Random f16 bit patterns with the all-ones exponent (inf/NaN) moved
    to the one below."""
    bits = rng.integers(0, 1 << 16, shape).astype(np.uint16)
    special = (bits & 0x7C00) == 0x7C00
    bits[special] ^= 0x0400
    return bits


def random_blocks(scheme, count):
    """`count` random blocks of `scheme` with finite scales, [count, bytes]."""
    if scheme in ggml_ref.BLOCKS:
        return ggml_ref.random_blocks(rng, scheme, count)
    _, size = GGUF[scheme]
    blocks = rng.integers(0, 256, (count, size)).astype(np.uint8)
    if scheme == "gguf_q8_k":
        d = (rng.uniform(1e-3, 4.0, count) *
             rng.choice([-1.0, 1.0], count)).astype(F32)
        blocks[:, 0:4] = d.view(np.uint8).reshape(count, 4)
    else:
        for offset in SCALE_FIELDS[scheme]:
            blocks[:, offset:offset + 2] = finite_f16_bits(count).view(
                np.uint8).reshape(count, 2)
    return blocks


def f16_field(blocks, offset):
    """The f16 at `offset` of every block, as f32 [count]."""
    raw = np.ascontiguousarray(blocks[:, offset:offset + 2])
    return raw.view("<f2").astype(F32).reshape(-1)


def nibbles32(qs):
    """The 32 4-bit values of a 16-byte qs: low nibbles, then high."""
    return np.concatenate([qs & 15, qs >> 4], axis=1).astype(np.int32)


def high_bits32(qh):
    """Bit j of the little-endian u32 qh, for j = 0..31."""
    word = np.ascontiguousarray(qh).view("<u4").astype(np.int64)
    return ((word >> np.arange(32)) & 1).astype(np.int32)


def f32s(v):
    return np.asarray(v).astype(F32)


def scale_min_k4(scales, j):
    """The 6-bit (scale, min) j of a Q4_K/Q5_K 12-byte scales field."""
    q = scales.astype(np.int32)
    if j < 4:
        return q[:, j] & 63, q[:, j + 4] & 63
    sc = (q[:, j + 4] & 0xF) | ((q[:, j - 4] >> 6) << 4)
    mn = (q[:, j + 4] >> 4) | ((q[:, j] >> 6) << 4)
    return sc, mn


def q3k_scales(scales):
    """The 16 signed 6-bit scales of a Q3_K block, unpacked as 32-bit
    words with masks."""
    aux = np.ascontiguousarray(scales).view("<u4").astype(np.uint32)
    aux = aux.reshape(-1, 3)
    m1, m2 = np.uint32(0x03030303), np.uint32(0x0F0F0F0F)
    tmp = aux[:, 2]
    words = np.stack([
        (aux[:, 0] & m2) | (((tmp >> 0) & m1) << 4),
        (aux[:, 1] & m2) | (((tmp >> 2) & m1) << 4),
        ((aux[:, 0] >> 4) & m2) | (((tmp >> 4) & m1) << 4),
        ((aux[:, 1] >> 4) & m2) | (((tmp >> 6) & m1) << 4)], axis=1)
    return words.astype("<u4").view(np.int8).astype(np.int32) - 32


def dequant_blocks(scheme, blocks):
    """The f32 values of GGUF `blocks` [count, bytes] -> [count, elements]."""
    if scheme in ggml_ref.BLOCKS:
        return ggml_ref.dequant(scheme, blocks)
    n = blocks.shape[0]
    y = np.zeros((n, GGUF[scheme][0]), F32)
    if scheme == "gguf_q4_0":
        d = f16_field(blocks, 0)[:, None]
        return f32s(nibbles32(blocks[:, 2:18]) - 8) * d
    if scheme == "gguf_q4_1":
        d, m = f16_field(blocks, 0)[:, None], f16_field(blocks, 2)[:, None]
        return f32s(nibbles32(blocks[:, 4:20])) * d + m
    if scheme == "gguf_q5_0":
        q = nibbles32(blocks[:, 6:22]) | (high_bits32(blocks[:, 2:6]) << 4)
        return f32s(q - 16) * f16_field(blocks, 0)[:, None]
    if scheme == "gguf_q5_1":
        d, m = f16_field(blocks, 0)[:, None], f16_field(blocks, 2)[:, None]
        q = nibbles32(blocks[:, 8:24]) | (high_bits32(blocks[:, 4:8]) << 4)
        return f32s(q) * d + m
    if scheme == "gguf_q8_0":
        d = f16_field(blocks, 0)[:, None]
        return f32s(blocks[:, 2:34].view(np.int8)) * d
    if scheme == "gguf_q8_k":
        d = np.ascontiguousarray(blocks[:, 0:4]).view("<f4").astype(F32)
        return f32s(blocks[:, 4:260].view(np.int8)) * d  # d is [count, 1]
    if scheme == "gguf_q2_k":
        scales, qs = blocks[:, 0:16].astype(np.int32), blocks[:, 16:80]
        d, dmin = f16_field(blocks, 80), f16_field(blocks, 82)
        out, is_ = 0, 0
        for half in range(2):
            q = qs[:, 32 * half:32 * half + 32].astype(np.int32)
            for shift in range(0, 8, 2):
                for part in range(2):
                    sc = scales[:, is_]
                    is_ += 1
                    dl, ml = d * f32s(sc & 0xF), dmin * f32s(sc >> 4)
                    vals = (q[:, 16 * part:16 * part + 16] >> shift) & 3
                    y[:, out:out + 16] = dl[:, None] * f32s(vals) - ml[:, None]
                    out += 16
        return y
    if scheme == "gguf_q3_k":
        hmask, qs = blocks[:, 0:32].astype(np.int32), blocks[:, 32:96]
        sc, d = q3k_scales(blocks[:, 96:108]), f16_field(blocks, 108)
        out, is_, m = 0, 0, 1
        for half in range(2):
            q = qs[:, 32 * half:32 * half + 32].astype(np.int32)
            for shift in range(0, 8, 2):
                for part in range(2):
                    dl = d * f32s(sc[:, is_])
                    is_ += 1
                    sl = slice(16 * part, 16 * part + 16)
                    low = (q[:, sl] >> shift) & 3
                    vals = low - np.where(hmask[:, sl] & m, 0, 4)
                    y[:, out:out + 16] = dl[:, None] * f32s(vals)
                    out += 16
                m <<= 1
        return y
    if scheme in ("gguf_q4_k", "gguf_q5_k"):
        five = scheme == "gguf_q5_k"
        d, dmin = f16_field(blocks, 0), f16_field(blocks, 2)
        scales = blocks[:, 4:16]
        qh = blocks[:, 16:48].astype(np.int32)
        ql = blocks[:, 48:176] if five else blocks[:, 16:144]
        u1, u2 = 1, 2
        for g in range(4):
            q = ql[:, 32 * g:32 * g + 32].astype(np.int32)
            s1, m1 = scale_min_k4(scales, 2 * g)
            s2, m2 = scale_min_k4(scales, 2 * g + 1)
            lo, hi = q & 0xF, q >> 4
            if five:
                lo = lo + np.where(qh & u1, 16, 0)
                hi = hi + np.where(qh & u2, 16, 0)
            for half, (sc, mn, q) in enumerate(((s1, m1, lo), (s2, m2, hi))):
                dl, ml = d * f32s(sc), dmin * f32s(mn)
                y[:, 64 * g + 32 * half:64 * g + 32 * half + 32] = (
                    dl[:, None] * f32s(q) - ml[:, None])
            u1, u2 = u1 << 2, u2 << 2
        return y
    if scheme == "gguf_q6_k":
        ql = blocks[:, 0:128].astype(np.int32)
        qh = blocks[:, 128:192].astype(np.int32)
        sc = f32s(blocks[:, 192:208].view(np.int8))
        d = f16_field(blocks, 208)
        for half in range(2):
            base = 128 * half
            l_ = ql[:, 64 * half:64 * half + 64]
            h_ = qh[:, 32 * half:32 * half + 32]
            s_ = sc[:, 8 * half:8 * half + 8]
            for l in range(32):
                is_ = l // 16
                a, b, h = l_[:, l], l_[:, l + 32], h_[:, l]
                q1 = ((a & 0xF) | (((h >> 0) & 3) << 4)) - 32
                q2 = ((b & 0xF) | (((h >> 2) & 3) << 4)) - 32
                q3 = ((a >> 4) | (((h >> 4) & 3) << 4)) - 32
                q4 = ((b >> 4) | (((h >> 6) & 3) << 4)) - 32
                for quarter, q in enumerate((q1, q2, q3, q4)):
                    y[:, base + l + 32 * quarter] = (
                        d * s_[:, is_ + 2 * quarter]) * f32s(q)
        return y
    raise ValueError(scheme)


def gguf_weight(scheme, k, n, experts=1):
    """Random packed bytes of `experts` [K, N] weights and their f32 values
    [experts, K, N]."""
    elements, _ = GGUF[scheme]
    blocks = random_blocks(scheme, experts * n * (k // elements))
    values = dequant_blocks(scheme, blocks).reshape(experts, n, k)
    return blocks.reshape(-1), values.transpose(0, 2, 1)


def minifloat(codes, exp_bits, man_bits, bias):
    """Finite decoding of sign-magnitude minifloat codes (float64)."""
    codes = codes.astype(np.int64)
    e = (codes >> man_bits) & ((1 << exp_bits) - 1)
    m = codes & ((1 << man_bits) - 1)
    mag = np.where(e == 0, m / 2.0 ** man_bits * 2.0 ** (1 - bias),
                   (1 + m / 2.0 ** man_bits) * 2.0 ** (e - bias))
    return np.where((codes >> (exp_bits + man_bits)) & 1, -mag, mag)


def e4m3(codes):
    v = minifloat(codes, 4, 3, 7)
    return np.where((codes & 0x7F) == 0x7F, np.nan, v).astype(F32)


def e5m2(codes):
    v = minifloat(codes, 5, 2, 15)
    e, m = (codes >> 2) & 31, codes & 3
    inf = np.where(codes & 0x80, -np.inf, np.inf)
    return np.where(e == 31, np.where(m == 0, inf, np.nan), v).astype(F32)


def e2m1(codes):
    return minifloat(codes, 2, 1, 1).astype(F32)


def mlir_hex(array):
    return "0x" + np.ascontiguousarray(array).tobytes().hex().upper()


def product_check(what, got, x, w):
    """got ~ x @ w within 1e-5 * (|x| @ |w|) per element."""
    if got is None:
        check.close(what, None, np.zeros(1, F32), 0, 0)
        return
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    want = x64 @ w64
    bound = 1e-5 * (np.abs(x64) @ np.abs(w64)) + 1e-30
    err = np.abs(got.astype(np.float64) - want) / bound
    check.close(what, err.astype(F32), np.zeros_like(err, F32), 0, 1.0)


def run_dequant_matmul(scheme, x, w_q, side, block_size=None, const_w=None):
    """rlx.dequant_matmul of `x` and `w_q` with side operands `side` (name ->
    array, in operand order); an FP8 weight is a constant (`const_w` is its
    element type)."""
    xt = tensor_type(x.shape, x.dtype)
    args = [f"%x: {xt} {{rlx.input = \"x\"}}"]
    inputs = {"x": x}
    body = ""
    if const_w:
        wt = f"tensor<{w_q.shape[0]}x{w_q.shape[1]}x{const_w}>"
        body += f"  %w = rlx.constant dense<\"{mlir_hex(w_q)}\"> : {wt}\n"
    else:
        wt = tensor_type(w_q.shape, w_q.dtype)
        args.append(f"%w: {wt} {{rlx.input = \"w\"}}")
        inputs["w"] = w_q
    tail = ""
    for name, value in side.items():
        t = tensor_type(value.shape, value.dtype)
        args.append(f"%{name}: {t} {{rlx.input = \"{name}\"}}")
        inputs[name] = value
        tail += f" {name} %{name} : {t}"
    bs = f" block_size = {block_size}" if block_size else ""
    n = {"int4_block": 2, "nvfp4_block": 2}.get(scheme, 1) * (
        w_q.shape[1] if w_q.ndim == 2 else 0)
    if w_q.ndim == 1:
        n = w_q.size // (x.shape[1] // GGUF[scheme][0] * GGUF[scheme][1])
    ot = tensor_type((x.shape[0], n), F32)
    mlir = (f"func.func @main({', '.join(args)}) -> {ot} {{\n{body}"
            f"  %0 = rlx.dequant_matmul {scheme}{bs} %x, %w{tail} : "
            f"{xt}, {wt}\n"
            f"  return %0 : {ot}\n}}")
    # The GPU's products sum in another order. Decoded weights with random
    # scales reach 1e6, so an output that cancels carries an error of about
    # 1e-7 * sum |x w|, far above 1e-4 of itself; the check above is scaled
    # that way, the GPU's against the CPU is per element: rtol/atol 1e-3.
    outs = check.run(mlir, inputs, gpu_tolerance=(1e-3, 1e-3))
    return outs[0] if outs else None


# --- GGUF: byte-exact decoding through rlx.dequant_moe_weights -----------

for scheme, (elements, _) in GGUF.items():
    for experts, blocks_per_row, n in ((1, 1, 1), (2, 3, 5), (3, 2, 4)):
        k = elements * blocks_per_row
        packed, values = gguf_weight(scheme, k, n, experts)
        pt = tensor_type(packed.shape, np.uint8)
        ot = tensor_type((experts, k, n), F32)
        mlir = (f"func.func @main(%p: {pt} {{rlx.input = \"p\"}}) -> {ot} {{\n"
                f"  %0 = rlx.dequant_moe_weights {scheme} %p : {pt} -> {ot}\n"
                f"  return %0 : {ot}\n}}")
        outs = check.run(mlir, {"p": packed})
        check.close(f"dequant_moe_weights {scheme} E={experts} K={k} N={n} "
                    "bit-exact", outs[0] if outs else None, values, 0, 0)

# Every E8M0 scale code of mxfp4 (2^-128 .. 2^127, halved), one row of 256
# blocks.
blocks = random_blocks("gguf_mxfp4", 256)
blocks[:, 0] = np.arange(256)
values = ggml_ref.dequant("gguf_mxfp4", blocks).reshape(1, -1, 1)
pt = tensor_type(blocks.reshape(-1).shape, np.uint8)
ot = tensor_type(values.shape, F32)
mlir = (f"func.func @main(%p: {pt} {{rlx.input = \"p\"}}) -> {ot} {{\n"
        f"  %0 = rlx.dequant_moe_weights gguf_mxfp4 %p : {pt} -> {ot}\n"
        f"  return %0 : {ot}\n}}")
outs = check.run(mlir, {"p": blocks.reshape(-1)})
check.close("dequant_moe_weights gguf_mxfp4 every scale code bit-exact",
            outs[0] if outs else None, values, 0, 0)

# --- GGUF: dequant_matmul against NumPy -----------------------------------

for scheme, (elements, _) in GGUF.items():
    for m, blocks_per_row, n in ((1, 1, 3), (3, 2, 5), (17, 3, 8)):
        k = elements * blocks_per_row
        packed, values = gguf_weight(scheme, k, n)
        x = check.uniform((m, k), F32)
        got = run_dequant_matmul(scheme, x, packed, {})
        product_check(f"dequant_matmul {scheme} M={m} K={k} N={n}", got, x,
                      values[0])

# --- GGUF: dequant_grouped_matmul against NumPy ---------------------------

for scheme, (elements, _) in GGUF.items():
    for m, blocks_per_row, n, experts in ((1, 1, 3, 1), (3, 2, 5, 2),
                                          (17, 1, 4, 3)):
        k = elements * blocks_per_row
        packed, values = gguf_weight(scheme, k, n, experts)
        x = check.uniform((m, k), F32)
        # The 17-row case also draws ids -1 and E, which give zero rows.
        low, high = (-1, experts + 1) if m == 17 else (0, experts)
        idx = check.integers((m,), np.int64 if m % 2 else np.int32, low,
                             high)
        valid = (idx >= 0) & (idx < experts)
        safe = np.where(valid, idx, 0)
        xt, pt, it = (tensor_type(v.shape, v.dtype) for v in (x, packed, idx))
        ot = tensor_type((m, n), F32)
        mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, "
                f"%w: {pt} {{rlx.input = \"w\"}}, "
                f"%i: {it} {{rlx.input = \"i\"}}) -> {ot} {{\n"
                f"  %0 = rlx.dequant_grouped_matmul {scheme} %x, %w, %i : "
                f"{xt}, {pt}, {it} -> {ot}\n"
                f"  return %0 : {ot}\n}}")
        outs = check.run(mlir, {"x": x, "w": packed, "i": idx})
        got = outs[0] if outs else None
        want = np.stack([x[r].astype(np.float64) @ values[safe[r]]
                         for r in range(m)]) * valid[:, None]
        bound = 1e-5 * np.stack([np.abs(x[r]).astype(np.float64) @
                                 np.abs(values[safe[r]]) for r in range(m)])
        err = None if got is None else (
            np.abs(got - want) / (bound + 1e-30)).astype(F32)
        check.close(f"dequant_grouped_matmul {scheme} M={m} K={k} N={n} "
                    f"E={experts}", err, np.zeros((m, n), F32), 0, 1.0)

# --- int8/int4 block schemes ---------------------------------------------

# (K, N, block_size): several blocks, a block larger than K, a partial last
# block, block size 1.
BLOCKS = [(64, 6, 32), (50, 4, 16), (7, 2, 32), (9, 10, 1), (33, 8, 7)]


def block_codes(scheme, k, n):
    """Random w_q of an int8/int4 block scheme and its codes q [K, N]."""
    if scheme == "int4_block":
        w_q = check.integers((k, n // 2), np.uint8, 0, 256)
        return w_q, np.stack([w_q & 15, w_q >> 4], axis=2).reshape(k, n)
    w_q = check.integers((k, n), np.int8, -128, 128)
    return w_q, w_q


for scheme in ("int8_block", "int8_block_asym", "int4_block"):
    for k, n, bs in BLOCKS:
        nb = -(-k // bs)
        w_q, q = block_codes(scheme, k, n)
        scale = check.uniform((nb, n), F32, 0.01, 2.0)
        variants = [True] if scheme == "int8_block_asym" else [False, True]
        for with_zp in variants:
            side = {"scale": scale}
            rows = np.arange(k) // bs
            if with_zp:
                zp = check.uniform((nb, n), F32, -8.0, 8.0)
                side["zero_point"] = zp
                w = (f32s(q) - zp[rows]) * scale[rows]
            else:
                w = f32s(q) * scale[rows]
            what = f"{scheme} bs={bs} K={k} N={n} zp={with_zp}"
            eye = np.eye(k, dtype=F32)
            got = run_dequant_matmul(scheme, eye, w_q, side, bs)
            check.close(f"dequant_matmul {what} identity bit-exact", got, w, 0,
                        0)
            for m in (1, 3, 17):
                x = check.uniform((m, k), F32)
                got = run_dequant_matmul(scheme, x, w_q, side, bs)
                product_check(f"dequant_matmul {what} M={m}", got, x, w)

# --- The CPU's per-tile kernel at odd sizes -------------------------------

# gguf_q4_0, gguf_q8_0 and the int8/int4 block schemes go through the
# runtime's rlx_rt_quant_matmul (rlx-cpu-lower-quant-matmul): up to 8 rows
# a fused decode-and-dot kernel over 64-column chunks (GGUF: one column at a
# time), more rows a decoded panel of 1 MiB of f32 columns per sgemm. K =
# 2080 gives panels of 112 columns, so N = 250 has two whole panels and a
# partial one, and three whole 64-column chunks and a partial one; K spans
# 65 GGUF blocks, and 44 int blocks of 48 (the last partial).
#
# The decoded weights are the documented f32 values bit for bit, so only
# the summation order differs from an exact product: any order of K
# products, each rounded once (or fused), is within K * 2^-24 * (|x| @ |W|)
# of the float64 product of the same f32 values (the first-order bound of
# a recursive f32 sum); the check allows 1.25 times that. One-hot rows of x
# pick single weights: those products are exact, so the decode itself is
# checked bit for bit on both paths (M = 3 fused, M = 17 panels).
TILE_K, TILE_N, TILE_BLOCK = 2080, 250, 48


def tile_check(what, got, x, w):
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    bound = 1.25 * x.shape[1] * 2.0**-24 * (np.abs(x64) @ np.abs(w64))
    err = None if got is None else (
        np.abs(got - x64 @ w64) / (bound + 1e-30)).astype(F32)
    check.close(what, err, np.zeros((x.shape[0], w.shape[1]), F32), 0, 1.0)


def one_hot_rows(m, k):
    x = np.zeros((m, k), F32)
    x[np.arange(m), check.integers((m,), np.int64, 0, k)] = 1
    return x


tile_weights = []
for scheme in ("gguf_q4_0", "gguf_q8_0"):
    packed, values = gguf_weight(scheme, TILE_K, TILE_N)
    tile_weights.append((scheme, scheme, packed, {}, None, values[0]))
for scheme, with_zp in (("int8_block", False), ("int8_block_asym", True),
                        ("int4_block", False), ("int4_block", True)):
    nb = -(-TILE_K // TILE_BLOCK)
    w_q, q = block_codes(scheme, TILE_K, TILE_N)
    scale = check.uniform((nb, TILE_N), F32, 0.01, 2.0)
    rows = np.arange(TILE_K) // TILE_BLOCK
    side = {"scale": scale}
    w = f32s(q) * scale[rows]
    if with_zp:
        zp = check.uniform((nb, TILE_N), F32, -8.0, 8.0)
        side["zero_point"] = zp
        w = (f32s(q) - zp[rows]) * scale[rows]
    tile_weights.append((f"{scheme} zp={with_zp}", scheme, w_q, side,
                         TILE_BLOCK, w))

for what, scheme, w_q, side, bs, w in tile_weights:
    for m in (1, 3, 17, 128):
        x = check.uniform((m, TILE_K), F32)
        got = run_dequant_matmul(scheme, x, w_q, side, bs)
        tile_check(f"per-tile dequant_matmul {what} M={m} K={TILE_K} "
                   f"N={TILE_N}", got, x, w)
    for m in (3, 17):
        x = one_hot_rows(m, TILE_K)
        got = run_dequant_matmul(scheme, x, w_q, side, bs)
        check.close(f"per-tile dequant_matmul {what} M={m} one-hot rows "
                    "bit-exact", got, x @ w, 0, 0)

# --- A decode step's products: the cuda target's quantized GEMV ----------

# gguf_q4_0 and gguf_q8_0 with at most 8 rows and K a multiple of 64 run on
# the cuda target as rlx_cuda.quant_gemv (the packed blocks decoded in
# registers, a pair per lane and step); on the CPU they take the per-tile
# kernel above. Shapes: M = 1, 3 and 8; each column's dot on one warp (K =
# 2048) and split over 4 warps (K = 8192, N = 64); rows copied into shared
# memory (up to 32 KB) and read from global memory (2 x 8192 f32); one-hot
# rows; a half model's product, whose bf16 rows are cast to f32 and back
# around it and whose result a residual add reads (the kernel takes the
# casts and computes the add; K = 8192 also splits its columns).
# Bounds: tile_check's for the f32 products; the bf16 step adds the
# rounding of the product and of the sum to bf16 (2^-9 of each, relative).


def to_bf16(x):
    """`x` (f32) rounded to bf16 (nearest even), back as f32."""
    bits = np.ascontiguousarray(x, F32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(F32)


for scheme in ("gguf_q4_0", "gguf_q8_0"):
    for m, k, n in ((1, 2048, 96), (3, 2048, 40), (8, 128, 33),
                    (1, 8192, 64), (2, 8192, 64)):
        packed, values = gguf_weight(scheme, k, n)
        x = check.uniform((m, k), F32)
        got = run_dequant_matmul(scheme, x, packed, {})
        tile_check(f"decode dequant_matmul {scheme} M={m} K={k} N={n}", got,
                   x, values[0])
        # One-hot rows pick single weights: exact on both targets, so a
        # weight or row element read from the wrong place shows.
        x = one_hot_rows(m, k)
        got = run_dequant_matmul(scheme, x, packed, {})
        check.close(f"decode dequant_matmul {scheme} M={m} K={k} N={n} "
                    "one-hot rows bit-exact", got, x @ values[0], 0, 0)
    for m, k, n in ((1, 2048, 160), (2, 2048, 160), (1, 8192, 64)):
        packed, values = gguf_weight(scheme, k, n)
        x, r = to_bf16(check.uniform((m, k), F32)), to_bf16(
            check.uniform((m, n), F32))
        pt = tensor_type(packed.shape, np.uint8)
        xt, ot = tensor_type((m, k), F32), tensor_type((m, n), F32)
        xb, ob = f"tensor<{m}x{k}xbf16>", f"tensor<{m}x{n}xbf16>"
        mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, "
                f"%w: {pt} {{rlx.input = \"w\"}}, "
                f"%r: {ot} {{rlx.input = \"r\"}}) -> {ot} {{\n"
                f"  %xb = rlx.cast %x : {xt} to bf16\n"
                f"  %rb = rlx.cast %r : {ot} to bf16\n"
                f"  %xf = rlx.cast %xb : {xb} to f32\n"
                f"  %p = rlx.dequant_matmul {scheme} %xf, %w : {xt}, {pt}\n"
                f"  %pb = rlx.cast %p : {ot} to bf16\n"
                f"  %s = rlx.binary add %rb, %pb : {ob}, {ob}\n"
                f"  %0 = rlx.cast %s : {ob} to f32\n"
                f"  return %0 : {ot}\n}}")
        outs = check.run(mlir, {"x": x, "w": packed, "r": r},
                         gpu_tolerance=(1e-2, 1e-2))
        x64, w64 = x.astype(np.float64), values[0].astype(np.float64)
        product = x64 @ w64
        want = product + r
        bound = (2.0**-9 * (np.abs(product) + np.abs(want))
                 + 1.25 * k * 2.0**-24 * (np.abs(x64) @ np.abs(w64)))
        err = None if not outs else (
            np.abs(outs[0] - want) / (bound + 1e-30)).astype(F32)
        check.close(f"decode bf16 step {scheme} M={m} K={k} N={n}: product "
                    "cast to bf16, residual add", err,
                    np.zeros((m, n), F32), 0, 1.0)

# --- FP8 -----------------------------------------------------------------

for scheme, decode, etype in (("fp8_e4m3", e4m3, "f8E4M3FN"),
                              ("fp8_e5m2", e5m2, "f8E5M2")):
    # Every code once, scale 1: the decoded table itself.
    codes = np.arange(256, dtype=np.uint8).reshape(1, 256)
    got = run_dequant_matmul(scheme, np.ones((1, 1), F32), codes,
                             {"scale": np.ones(256, F32)}, const_w=etype)
    check.close(f"dequant_matmul {scheme} all 256 codes bit-exact", got,
                decode(codes), 0, 0)
    finite = np.array([c for c in range(256)
                       if np.isfinite(decode(np.array([c])))[0]], np.uint8)
    for m, k, n in ((1, 16, 3), (3, 40, 7), (17, 33, 12)):
        w_q = rng.choice(finite, (k, n)).astype(np.uint8)
        scale = check.uniform((n,), F32, 0.01, 2.0)
        w = decode(w_q) * scale
        got = run_dequant_matmul(scheme, np.eye(k, dtype=F32), w_q,
                                 {"scale": scale}, const_w=etype)
        check.close(f"dequant_matmul {scheme} K={k} N={n} identity bit-exact",
                    got, w, 0, 0)
        x = check.uniform((m, k), F32)
        got = run_dequant_matmul(scheme, x, w_q, {"scale": scale},
                                 const_w=etype)
        product_check(f"dequant_matmul {scheme} M={m} K={k} N={n}", got, x, w)

# --- NVFP4 ---------------------------------------------------------------

finite_e4m3 = np.array([c for c in range(256) if (c & 0x7F) != 0x7F],
                       np.uint8)
for m, k, n in ((1, 16, 2), (3, 32, 6), (17, 48, 10)):
    w_q = check.integers((k, n // 2), np.uint8, 0, 256)
    codes = np.stack([w_q & 15, w_q >> 4], axis=2).reshape(k, n)
    scale = rng.choice(finite_e4m3, (k // 16, n)).astype(np.uint8)
    glob = check.uniform((1,), F32, 0.5, 2.0)
    w = (e2m1(codes) * e4m3(scale)[np.arange(k) // 16]) * glob[0]
    side = {"scale": scale, "global_scale": glob}
    got = run_dequant_matmul("nvfp4_block", np.eye(k, dtype=F32), w_q, side)
    check.close(f"dequant_matmul nvfp4_block K={k} N={n} identity bit-exact",
                got, w, 0, 0)
    x = check.uniform((m, k), F32)
    got = run_dequant_matmul("nvfp4_block", x, w_q, side)
    product_check(f"dequant_matmul nvfp4_block M={m} K={k} N={n}", got, x, w)

# --- q_conv2d ------------------------------------------------------------

# (N, C_in, H, W, C_out, kernel, stride, padding, dilation, groups, x_zp,
#  w_zp, out_zp, mult)
QCONV = [
    (1, 3, 8, 8, 4, (3, 3), (1, 1), (1, 1), (1, 1), 1, 0, 0, 0, 0.01),
    (2, 4, 7, 9, 6, (3, 2), (2, 1), (0, 1), (1, 2), 2, 5, -3, 7, 0.003),
    (1, 6, 5, 5, 6, (3, 3), (1, 1), (2, 2), (2, 2), 6, -128, 127, -7, 0.0004),
    (3, 2, 4, 4, 5, (1, 1), (1, 1), (0, 0), (1, 1), 1, 17, 0, 3, 0.5),
    (1, 8, 6, 6, 4, (3, 3), (1, 1), (1, 1), (1, 1), 1, 0, 0, 0, 3.0),
]


def qconv_reference(x, w, bias, stride, padding, dilation, groups, x_zp,
                    w_zp, out_zp, mult):
    n, c_in, h, wd = x.shape
    c_out, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.int64) - x_zp,
                ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    ho = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    wc = w.astype(np.int64) - w_zp
    acc = np.zeros((n, c_out, ho, wo), np.int64) + bias[None, :, None, None]
    og = c_out // groups
    for co in range(c_out):
        g = co // og
        for i in range(kh):
            for j in range(kw):
                h0, w0 = i * dilation[0], j * dilation[1]
                win = xp[:, g * cg:(g + 1) * cg,
                         h0:h0 + stride[0] * ho:stride[0],
                         w0:w0 + stride[1] * wo:stride[1]]
                acc[:, co] += np.einsum("nchw,c->nhw", win, wc[co, :, i, j])
    acc = ((acc + 2**31) % 2**32) - 2**31  # the i32 accumulator wraps
    scaled = acc.astype(np.float64) * np.float64(F32(mult))
    return np.clip(np.rint(scaled) + out_zp, -128, 127).astype(np.int8)


for (n, c_in, h, wd, c_out, kernel, stride, padding, dilation, groups, x_zp,
     w_zp, out_zp, mult) in QCONV:
    x = check.integers((n, c_in, h, wd), np.int8, -128, 128)
    w = check.integers((c_out, c_in // groups) + kernel, np.int8, -128, 128)
    bias = check.integers((c_out,), np.int32, -5000, 5000)
    want = qconv_reference(x, w, bias, stride, padding, dilation, groups,
                           x_zp, w_zp, out_zp, mult)
    xt, wt, bt = (tensor_type(v.shape, v.dtype) for v in (x, w, bias))
    ot = tensor_type(want.shape, np.int8)

    def arr(v):
        return f"array<i64: {v[0]}, {v[1]}>"
    mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, "
            f"%w: {wt} {{rlx.input = \"w\"}}, "
            f"%b: {bt} {{rlx.input = \"b\"}}) -> {ot} {{\n"
            f"  %0 = rlx.q_conv2d %x, %w, %b {{kernel_size = {arr(kernel)}, "
            f"stride = {arr(stride)}, padding = {arr(padding)}, "
            f"dilation = {arr(dilation)}, groups = {groups} : i64, "
            f"x_zp = {x_zp} : i64, w_zp = {w_zp} : i64, "
            f"out_zp = {out_zp} : i64, mult = {mult!r} : f32}} : "
            f"{xt}, {wt}, {bt}\n"
            f"  return %0 : {ot}\n}}")
    outs = check.run(mlir, {"x": x, "w": w, "b": bias})
    check.close(f"q_conv2d x{x.shape} w{w.shape} stride={stride} "
                f"pad={padding} dil={dilation} groups={groups} "
                f"zp=({x_zp},{w_zp},{out_zp}) mult={mult}",
                outs[0] if outs else None, want, 0, 0)

check.finish()
