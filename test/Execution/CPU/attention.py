"""rlx.attention, rlx.rope and rlx.axial_rope2d on the CPU against PyTorch.

The attention oracle is written out explicitly (matmul, scale, soft cap,
mask, softmax, matmul) in float64 from the same inputs.

Tolerances: f32 rtol 1e-5 with atol 1e-5 (the outputs are convex
combinations of unit-scale values, so absolute error is what matters near
zero; exp runs through the f32 polynomial of the CPU pipeline); f64 rtol and
atol 1e-12; f16 rtol 2e-3 / atol 2e-3 (f32 computation, one final rounding,
but the f16 inputs of the two products are rounded as in the oracle); bf16
(inputs rounded to bf16 in the test, cast in the graph) rtol and atol 8e-3,
two bf16 ulps of the unit-scale outputs.
axial_rope2d f32 uses atol 2e-5: its angles (position * frequency) are
formed in f32 as in SAM2, and the oracle forms them in float64.
"""

import math
import sys

import numpy as np
import torch

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])

TOLERANCE = {np.float32: (1e-5, 1e-5), np.float64: (1e-12, 1e-12),
             np.float16: (2e-3, 2e-3), "bf16": (8e-3, 8e-3)}
# f32 graphs whose CUDA artifact is compiled with allow-tf32: the GPU rounds
# q, k, v and the probabilities to TF32 (10 mantissa bits, as f16), so its
# outputs are held to f16-like bounds against the CPU's f32 (the CPU result
# is checked at f32 tolerance as for "f32").
GPU_TF32_TOLERANCE = (4e-3, 4e-3)


def to_bf16(x):
    """Round-to-nearest-even of `x` to bfloat16 values, as float32."""
    return torch.from_numpy(np.asarray(x, np.float32)).to(
        torch.bfloat16).to(torch.float32).numpy()


def to_heads(x, packed, heads):
    """[B, S, H*D] -> [B, H, S, D]; rank-4 tensors unchanged."""
    if not packed:
        return x
    b, s, hd = x.shape
    return x.reshape(b, s, heads, hd // heads).permute(0, 2, 1, 3)


def attention_oracle(q, k, v, heads, head_dim, kind, mask=None, window=None,
                     scale=None, softcap=None):
    packed = q.ndim == 3
    t = [to_heads(torch.from_numpy(a.astype(np.float64)), packed, heads)
         for a in (q, k, v)]
    qh, kh, vh = t
    sq, sk = qh.shape[2], kh.shape[2]
    s = torch.matmul(qh, kh.transpose(-1, -2))
    s = s * (scale if scale is not None else 1.0 / math.sqrt(head_dim))
    if softcap is not None:
        s = softcap * torch.tanh(s / softcap)
    i = torch.arange(sq).reshape(sq, 1)
    j = torch.arange(sk).reshape(1, sk)
    off = sk - sq
    if kind == "bias":
        s = s + torch.from_numpy(mask.astype(np.float64))
    elif kind == "custom":
        keep = torch.from_numpy(mask.astype(np.float64) >= 0.5)[:, None, None, :]
        s = s.masked_fill(~keep, -math.inf)
    elif kind == "causal":
        s = s.masked_fill(~(j <= i + off), -math.inf)
    elif kind == "sliding_window":
        keep = (j <= i + off) & (j >= i + off - window)
        s = s.masked_fill(~keep, -math.inf)
    p = torch.softmax(s, dim=-1)
    o = torch.matmul(p, vh)
    if packed:
        b, h, sq_, d = o.shape
        o = o.permute(0, 2, 1, 3).reshape(b, sq_, h * d)
    return o.numpy()


def f32_attr(value):
    return f"{float(np.float32(value)):.9e} : f32"


def attention_case(name, dtype, qshape, kshape, heads, head_dim, kind,
                   window=None, scale=None, softcap=None, mask=None):
    """`dtype` "bf16": f32 inputs holding bf16 values, cast to bf16 in the
    graph around the attention; "tf32": an f32 graph whose CUDA artifact
    lets attention use TF32 tensor cores."""
    tf32 = dtype == "tf32"
    if tf32:
        dtype = np.float32
    bf16 = dtype == "bf16"
    io_dtype = np.float32 if bf16 else dtype
    q = check.uniform(qshape, io_dtype)
    k = check.uniform(kshape, io_dtype)
    v = check.uniform(kshape, io_dtype)
    if bf16:
        q, k, v = to_bf16(q), to_bf16(k), to_bf16(v)
        if mask is not None:
            mask = to_bf16(mask)
    elif mask is not None:
        mask = mask.astype(io_dtype)
    qt, kt = tensor_type(qshape, io_dtype), tensor_type(kshape, io_dtype)
    # The types the attention runs in.
    aqt, akt = qt, kt
    if bf16:
        aqt, akt = qt[:-4] + "bf16>", kt[:-4] + "bf16>"
    attrs = [f"num_heads = {heads} : i64", f"head_dim = {head_dim} : i64",
             f"mask_kind = #rlx.mask<{kind}>"]
    if window is not None:
        attrs.append(f"window = {window} : i64")
    if scale is not None:
        attrs.append(f"score_scale = {f32_attr(scale)}")
    if softcap is not None:
        attrs.append(f"attn_logit_softcap = {f32_attr(softcap)}")
    args = (f"%q: {qt} {{rlx.input = \"q\"}}, %k: {kt} {{rlx.input = \"k\"}}, "
            f"%v: {kt} {{rlx.input = \"v\"}}")
    inputs = {"q": q, "k": k, "v": v}
    body = []
    operands = ["%q", "%k", "%v"]
    types = {"%q": qt, "%k": kt, "%v": kt}
    mask_text = ""
    if mask is not None:
        mt = tensor_type(mask.shape, io_dtype)
        args += f", %m: {mt} {{rlx.input = \"m\"}}"
        operands.append("%m")
        types["%m"] = mt
        inputs["m"] = mask
    if bf16:
        for operand in operands:
            body.append(f"  {operand}b = rlx.cast {operand} : {types[operand]}"
                        " to bf16")
        operands = [operand + "b" for operand in operands]
    if mask is not None:
        amt = mt[:-4] + "bf16>" if bf16 else mt
        mask_text = f" mask {operands[3]} : {amt}"
    body.append(f"  %0 = rlx.attention {', '.join(operands[:3])}{mask_text} "
                f"{{{', '.join(attrs)}}} : {aqt}, {akt}, {akt}")
    result = "%0"
    if bf16:
        body.append(f"  %1 = rlx.cast %0 : {aqt} to f32")
        result = "%1"
    mlir = (f"func.func @main({args}) -> {qt} {{\n" + "\n".join(body) +
            f"\n  return {result} : {qt}\n}}")
    gpu_tolerance = TOLERANCE["bf16"] if bf16 else None
    if tf32:
        gpu_tolerance = GPU_TF32_TOLERANCE
    outs = check.run(mlir, inputs, gpu_tolerance=gpu_tolerance,
                     cuda_options="allow-tf32" if tf32 else None)
    # The op reads the f32 attribute values.
    want = attention_oracle(
        q, k, v, heads, head_dim, kind, mask, window,
        None if scale is None else float(np.float32(scale)),
        None if softcap is None else float(np.float32(softcap)))
    want = to_bf16(want) if bf16 else want.astype(dtype)
    rtol, atol = TOLERANCE[dtype]
    label = "bf16" if bf16 else "f32 (tf32 on the GPU)" if tf32 else \
        np.dtype(dtype)
    check.close(f"attention {name} {label}", outs[0] if outs else None, want,
                rtol, atol)


def key_padding(batch, sk, fully_masked_batch=None):
    """A [B, Sk] mask with values on both sides of 0.5, at least one valid
    key per batch (except `fully_masked_batch`, whose rows are NaN)."""
    m = check.uniform((batch, sk), np.float64, 0.0, 1.0)
    m[:, 0] = 0.75
    m[:, -1] = 0.5  # exactly the threshold: visible
    if sk > 2:
        m[:, 1] = 0.25
    if fully_masked_batch is not None:
        m[fully_masked_batch, :] = 0.1
    return m


for dtype in (np.float32, np.float64):
    # [B, H, S, D], no mask, default scale.
    attention_case("rank4 none", dtype, (2, 3, 5, 8), (2, 3, 5, 8), 3, 8, "none")
    # kv_seq != seq with causal alignment to the end of the keys.
    attention_case("rank4 causal sk>sq", dtype, (2, 2, 4, 6), (2, 2, 7, 6), 2, 6,
                   "causal")
    attention_case("rank4 causal", dtype, (1, 2, 6, 4), (1, 2, 6, 4), 2, 4,
                   "causal", scale=0.3)
    # [B, S, H*D] packed heads.
    attention_case("rank3 none sk>sq", dtype, (2, 3, 12), (2, 5, 12), 3, 4,
                   "none")
    attention_case("rank3 sliding_window", dtype, (2, 7, 8), (2, 7, 8), 2, 4,
                   "sliding_window", window=2)
    attention_case("rank4 sliding_window sk>sq", dtype, (1, 2, 3, 5),
                   (1, 2, 8, 5), 2, 5, "sliding_window", window=1)
    attention_case("rank4 sliding_window 0", dtype, (1, 1, 4, 3), (1, 1, 4, 3),
                   1, 3, "sliding_window", window=0)
    attention_case("rank3 custom", dtype, (2, 3, 8), (2, 9, 8), 2, 4, "custom",
                   mask=key_padding(2, 9).astype(dtype))
    attention_case("rank4 custom", dtype, (3, 2, 4, 5), (3, 2, 4, 5), 2, 5,
                   "custom", mask=key_padding(3, 4).astype(dtype))
    # A batch whose keys are all masked out: NaN rows.
    attention_case("rank4 custom fully masked", dtype, (2, 1, 2, 3),
                   (2, 1, 4, 3), 1, 3, "custom",
                   mask=key_padding(2, 4, fully_masked_batch=1).astype(dtype))
    attention_case("rank4 bias", dtype, (2, 2, 3, 4), (2, 2, 5, 4), 2, 4, "bias",
                   mask=check.uniform((2, 2, 3, 5), dtype, -2, 2))
    # Soft cap (small enough to bite) with a bias after it, and a scale.
    attention_case("rank4 bias softcap scale", dtype, (2, 2, 5, 8),
                   (2, 2, 5, 8), 2, 8, "bias", scale=1.7, softcap=0.8,
                   mask=check.uniform((2, 2, 5, 5), dtype, -2, 2))
    attention_case("rank3 causal softcap", dtype, (2, 5, 6), (2, 5, 6), 2, 3,
                   "causal", softcap=0.5)
    # Sizes that take the OpenBLAS path.
    attention_case("rank4 causal large", dtype, (2, 4, 64, 32), (2, 4, 64, 32),
                   4, 32, "causal")
    attention_case("rank3 custom large", dtype, (1, 48, 128), (1, 80, 128), 4,
                   32, "custom", mask=key_padding(1, 80).astype(dtype))

# f16: computed in f32, rounded once.
# Sizes around the tiles of the CUDA target's fused kernel (8 query rows and
# 32 keys per tile, head dims spread over the 32 lanes of a warp): rows and
# keys that end inside a tile, a single row or key, head dims up to 128.
for dtype in (np.float32, np.float16, "bf16", "tf32"):
    attention_case("tiles rank4 none", dtype, (1, 2, 129, 64), (1, 2, 33, 64),
                   2, 64, "none")
    attention_case("tiles rank4 causal sk>sq", dtype, (2, 3, 17, 128),
                   (2, 3, 40, 128), 3, 128, "causal")
    attention_case("tiles rank3 sliding_window", dtype, (1, 100, 160),
                   (1, 100, 160), 2, 80, "sliding_window", window=37)
    attention_case("tiles one row custom", dtype, (3, 1, 1, 96),
                   (3, 1, 77, 96), 1, 96, "custom",
                   mask=key_padding(3, 77).astype(np.float32))
    attention_case("tiles one key", dtype, (1, 4, 9, 16), (1, 4, 1, 16), 4, 16,
                   "none")
    # Several blocks of 128 rows at head dim 128 (query tile in shared
    # memory on the GPU), and head dim 256 (one row tile per warp).
    attention_case("tiles rank4 none d128", dtype, (1, 2, 300, 128),
                   (1, 2, 70, 128), 2, 128, "none")
    attention_case("tiles rank4 causal d256", dtype, (1, 1, 70, 256),
                   (1, 1, 90, 256), 1, 256, "causal")
    attention_case("tiles bias softcap scale", dtype, (2, 2, 33, 48),
                   (2, 2, 65, 48), 2, 48, "bias", scale=0.2, softcap=2.0,
                   mask=check.uniform((2, 2, 33, 65), np.float32, -2, 2))

# One query row (a decode step over a KV cache): keys that end inside a
# 32-key tile, fewer keys than 8, several hundred, every mask kind, head
# dims from 8 to 96.
for dtype in (np.float32, np.float16, "bf16"):
    attention_case("decode rank4 bias", dtype, (2, 3, 1, 64),
                   (2, 3, 300, 64), 3, 64, "bias",
                   mask=check.uniform((2, 3, 1, 300), np.float32, -2, 2))
    attention_case("decode rank3 causal", dtype, (2, 1, 24), (2, 5, 24), 3,
                   8, "causal")
    attention_case("decode rank4 sliding_window", dtype, (1, 2, 1, 16),
                   (1, 2, 50, 16), 2, 16, "sliding_window", window=7)
    attention_case("decode rank3 custom d96", dtype, (3, 1, 192),
                   (3, 77, 192), 2, 96, "custom",
                   mask=key_padding(3, 77).astype(np.float32))
    attention_case("decode rank4 none one key", dtype, (1, 4, 1, 32),
                   (1, 4, 1, 32), 4, 32, "none")

attention_case("rank4 causal", np.float16, (1, 2, 5, 8), (1, 2, 5, 8), 2, 8,
               "causal")
# TF32 takes head dims in steps of 8; others keep the CUDA-core kernel.
attention_case("tf32 head dim 12", "tf32", (1, 2, 70, 12), (1, 2, 70, 12), 2,
               12, "causal")
attention_case("tf32 head dim 8 rank3 custom", "tf32", (2, 40, 24),
               (2, 67, 24), 3, 8, "custom",
               mask=key_padding(2, 67).astype(np.float32))
attention_case("rank3 bias softcap", np.float16, (2, 3, 8), (2, 4, 8), 2, 4,
               "bias", softcap=0.9, mask=check.uniform((2, 2, 3, 4), np.float16))


def split_heads_case(dtype, batch, seq, heads, head_dim, kind, merge=True,
                     lead=0):
    """Attention on heads split off one packed QKV projection `x` of
    [B, S, lead + 3 H D] (narrow, reshape [B, S, H, D], transpose [0, 2, 1,
    3]), its result merged back to [B, S, H D] (`merge`) or returned as
    heads. On the cuda target the kernel reads the narrows in place, at the
    projection's row stride; `lead` columns put the views at offsets that
    16-byte accesses cannot take."""
    tf32 = dtype == "tf32"
    if tf32:
        dtype = np.float32
    hd = heads * head_dim
    width = lead + 3 * hd
    x = check.uniform((batch, seq, width), dtype)
    xt = tensor_type((batch, seq, width), dtype)
    pt = tensor_type((batch, seq, hd), dtype)
    st = tensor_type((batch, seq, heads, head_dim), dtype)
    ht = tensor_type((batch, heads, seq, head_dim), dtype)
    body = []
    for i, name in enumerate("qkv"):
        body += [
            f"  %{name}0 = rlx.narrow %x axis = 2 start = {lead + i * hd} "
            f"len = {hd} : {xt}",
            f"  %{name}1 = rlx.reshape %{name}0 new_shape = "
            f"[{batch}, {seq}, {heads}, {head_dim}] : {pt}",
            f"  %{name} = rlx.transpose %{name}1 perm = [0, 2, 1, 3] : {st}"]
    body.append(f"  %a = rlx.attention %q, %k, %v {{num_heads = {heads} : i64, "
                f"head_dim = {head_dim} : i64, mask_kind = #rlx.mask<{kind}>}}"
                f" : {ht}, {ht}, {ht}")
    result, result_type = "%a", ht
    if merge:
        body += [f"  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : {ht}",
                 f"  %a2 = rlx.reshape %a1 new_shape = [{batch}, {seq}, {hd}]"
                 f" : {st}"]
        result, result_type = "%a2", pt
    mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}) -> "
            f"{result_type} {{\n" + "\n".join(body) +
            f"\n  return {result} : {result_type}\n}}")
    outs = check.run(mlir, {"x": x},
                     gpu_tolerance=GPU_TF32_TOLERANCE if tf32 else None,
                     cuda_options="allow-tf32" if tf32 else None)
    q, k, v = (x[..., lead + i * hd:lead + (i + 1) * hd] for i in range(3))
    want = attention_oracle(q, k, v, heads, head_dim, kind)
    if not merge:
        want = want.reshape(batch, seq, heads, head_dim).transpose(0, 2, 1, 3)
    rtol, atol = TOLERANCE[dtype]
    label = "f32 (tf32 on the GPU)" if tf32 else np.dtype(dtype)
    check.close(f"attention split heads B={batch} S={seq} H={heads} "
                f"D={head_dim} {kind} merge={merge} lead={lead} {label}",
                outs[0] if outs else None, want.astype(dtype), rtol, atol)


# Heads split off a packed projection, as in a transformer layer.
for dtype in (np.float32, np.float16, "tf32"):
    split_heads_case(dtype, 2, 70, 2, 64, "none")
    split_heads_case(dtype, 1, 33, 3, 32, "causal", merge=False)
split_heads_case(np.float16, 2, 17, 1, 128, "causal")
split_heads_case(np.float32, 1, 9, 2, 16, "none", lead=1)
split_heads_case(np.float16, 2, 12, 2, 16, "causal", lead=3)

def grouped_query_case(dtype, batch, heads, kv_heads, sq, sk, head_dim,
                       kind):
    """Grouped-query attention as transformers writes it: keys and values
    of `kv_heads` heads repeated for `heads` query heads (repeat_kv: an
    unsqueeze, expand and merge) before rlx.attention. On the cuda target
    the kernel reads them unrepeated (kv_heads), query head h reading key
    head h / (heads / kv_heads); "bias" adds a [B, H, Sq, Sk] mask (a decode
    step's)."""
    group = heads // kv_heads
    q = check.uniform((batch, heads, sq, head_dim), dtype)
    k = check.uniform((batch, kv_heads, sk, head_dim), dtype)
    v = check.uniform((batch, kv_heads, sk, head_dim), dtype)
    qt = tensor_type(q.shape, dtype)
    kt = tensor_type(k.shape, dtype)
    one = tensor_type((batch, kv_heads, 1, sk, head_dim), dtype)
    many = tensor_type((batch, kv_heads, group, sk, head_dim), dtype)
    full = tensor_type((batch, heads, sk, head_dim), dtype)
    args = (f"%q: {qt} {{rlx.input = \"q\"}}, %k: {kt} {{rlx.input = \"k\"}}, "
            f"%v: {kt} {{rlx.input = \"v\"}}")
    inputs = {"q": q, "k": k, "v": v}
    body = []
    for name in "kv":
        body += [
            f"  %{name}1 = rlx.reshape %{name} new_shape = [{batch}, "
            f"{kv_heads}, 1, {sk}, {head_dim}] : {kt}",
            f"  %{name}2 = rlx.expand %{name}1 target_shape = [{batch}, "
            f"{kv_heads}, {group}, {sk}, {head_dim}] : {one}",
            f"  %{name}3 = rlx.reshape %{name}2 new_shape = [{batch}, "
            f"{heads}, {sk}, {head_dim}] : {many}"]
    mask = mask_text = None
    if kind == "bias":
        mask = check.uniform((batch, heads, sq, sk), dtype, -2.0, 2.0)
        mt = tensor_type(mask.shape, dtype)
        args += f", %m: {mt} {{rlx.input = \"m\"}}"
        inputs["m"] = mask
        mask_text = f" mask %m : {mt}"
    body.append(f"  %o = rlx.attention %q, %k3, %v3{mask_text or ''} "
                f"{{num_heads = {heads} : i64, head_dim = {head_dim} : i64, "
                f"mask_kind = #rlx.mask<{kind}>}} : {qt}, {full}, {full}")
    mlir = (f"func.func @main({args}) -> {qt} {{\n" + "\n".join(body) +
            f"\n  return %o : {qt}\n}}")
    outs = check.run(mlir, inputs)
    want = attention_oracle(q, np.repeat(k, group, axis=1),
                            np.repeat(v, group, axis=1), heads, head_dim,
                            kind, mask)
    rtol, atol = TOLERANCE[dtype]
    check.close(f"attention grouped-query B={batch} H={heads} "
                f"kv_heads={kv_heads} Sq={sq} Sk={sk} D={head_dim} {kind} "
                f"{np.dtype(dtype)}", outs[0] if outs else None,
                want.astype(dtype), rtol, atol)


# Grouped-query attention (a decode step over a cache; a prefill), on both
# CUDA kernels: the warp-per-row one (f32) and the tensor-core one (f16).
for dtype in (np.float32, np.float16):
    grouped_query_case(dtype, 1, 8, 2, 1, 40, 64, "bias")
    grouped_query_case(dtype, 2, 6, 3, 33, 33, 32, "causal")
    grouped_query_case(dtype, 1, 4, 1, 17, 50, 16, "none")

# --------------------------------------------------------------------------
# rlx.rope (NeoX): rank 4, 3 and 2 layouts, full and partial rotation.


def rope_oracle(x, cos, sin, head_dim, n_rot):
    x = x.astype(np.float64)
    cos, sin = cos.astype(np.float64), sin.astype(np.float64)
    shape = x.shape
    if x.ndim == 4:
        xh = x  # [B, H, S, D]
        c, s = cos[None, None], sin[None, None]
    elif x.ndim == 3:
        xh = x.reshape(shape[0], shape[1], -1, head_dim)  # [B, S, H, D]
        c, s = cos[None, :, None], sin[None, :, None]
    else:
        xh = x.reshape(shape[0], -1, head_dim)  # [S, H, D]
        c, s = cos[:, None], sin[:, None]
    r = n_rot // 2
    y = xh.copy()
    x1, x2 = xh[..., :r], xh[..., r:n_rot]
    y[..., :r] = x1 * c - x2 * s
    y[..., r:n_rot] = x2 * c + x1 * s
    return y.reshape(shape)


def rope_case(dtype, shape, seq, head_dim, n_rot):
    x = check.uniform(shape, dtype)
    angles = check.uniform((seq, n_rot // 2), np.float64, -3, 3)
    cos, sin = np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)
    xt, ct = tensor_type(shape, dtype), tensor_type(cos.shape, dtype)
    mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, %c: {ct} "
            f"{{rlx.input = \"c\"}}, %s: {ct} {{rlx.input = \"s\"}}) -> {xt} {{\n"
            f"  %0 = rlx.rope %x, %c, %s {{head_dim = {head_dim} : i64, "
            f"n_rot = {n_rot} : i64}} : {xt}, {ct}, {ct}\n"
            f"  return %0 : {xt}\n}}")
    outs = check.run(mlir, {"x": x, "c": cos, "s": sin})
    want = rope_oracle(x, cos, sin, head_dim, n_rot)
    rtol, atol = TOLERANCE[dtype]
    check.close(f"rope {shape} n_rot={n_rot} {np.dtype(dtype)}",
                outs[0] if outs else None, want.astype(dtype), rtol, atol)


for dtype in (np.float32, np.float64, np.float16):
    rope_case(dtype, (2, 3, 5, 8), 5, 8, 8)     # [B, H, S, D], full
    rope_case(dtype, (2, 3, 5, 10), 5, 10, 4)   # partial rotation
    rope_case(dtype, (2, 7, 18), 7, 6, 6)       # [B, S, H*D]
    rope_case(dtype, (1, 4, 24), 4, 12, 6)      # [B, S, H*D], partial
    rope_case(dtype, (5, 16), 5, 8, 2)          # [S, H*D], n_rot = 2
    rope_case(dtype, (3, 12), 3, 12, 12)        # [S, H*D], one head
    rope_case(dtype, (1, 2, 3, 40), 3, 40, 20)  # wider than a vector
    rope_case(dtype, (2, 3, 80), 3, 40, 24)

# --------------------------------------------------------------------------
# rlx.axial_rope2d (SAM2), written out from the op description.


def axial_oracle(x, end_x, end_y, head_dim, heads, theta):
    b, s, _ = x.shape
    xh = x.astype(np.float64).reshape(b, s, heads, head_dim // 2, 2)
    q = head_dim // 4
    freqs = theta ** (-4.0 * np.arange(q) / head_dim)
    t = np.arange(s) % (end_x * end_y)
    px, py = t % end_x, t // end_x
    angles = np.concatenate([np.outer(px, freqs), np.outer(py, freqs)], axis=1)
    c, sn = np.cos(angles)[None, :, None], np.sin(angles)[None, :, None]
    x0, x1 = xh[..., 0], xh[..., 1]
    y = np.stack([x0 * c - x1 * sn, x0 * sn + x1 * c], axis=-1)
    return y.reshape(x.shape)


for dtype in (np.float32, np.float64, np.float16):
    for end_x, end_y, head_dim, heads, repeat, theta in (
            (4, 3, 8, 2, 1, 10000.0), (3, 2, 12, 1, 2, 100.0),
            (5, 5, 16, 3, 1, 10.0), (4, 2, 64, 1, 1, 10000.0)):
        s = end_x * end_y * repeat
        shape = (2, s, heads * head_dim)
        x = check.uniform(shape, dtype)
        xt = tensor_type(shape, dtype)
        mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}) -> {xt} {{\n"
                f"  %0 = rlx.axial_rope2d %x {{end_x = {end_x} : i64, end_y = "
                f"{end_y} : i64, head_dim = {head_dim} : i64, num_heads = "
                f"{heads} : i64, repeat_factor = {repeat} : i64, theta = "
                f"{theta} : f32}} : {xt}\n  return %0 : {xt}\n}}")
        outs = check.run(mlir, {"x": x})
        want = axial_oracle(x, end_x, end_y, head_dim, heads, theta)
        rtol, atol = TOLERANCE[dtype]
        if dtype == np.float32:
            atol = 2e-5
        check.close(f"axial_rope2d {end_x}x{end_y}x{repeat} hd={head_dim} "
                    f"{np.dtype(dtype)}", outs[0] if outs else None,
                    want.astype(dtype), rtol, atol)

check.finish()
