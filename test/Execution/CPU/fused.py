"""Fused ops, lora_matmul and dot_general on the CPU (rlx-run decomposes them
with rlx-unfuse{target=cpu}) against oracles written from the op
descriptions in RLXFusedOps.td / RLXLinalgOps.td, in float64 from the same
inputs (NumPy, torch.nn.functional, torch.nn.TransformerEncoderLayer).

Covered: fused_matmul_bias_act (input rank 2/3/4, no activation and seven
activations, f32/f64); fused_residual_ln (with/without bias) and
fused_residual_rms_norm (every bias x beta combination), f32/f64/f16;
fused_swiglu (gate_first x cast_to none/f16/bf16/f8E4M3FN/f8E5M2/f32/f64,
f32/f64/f16 inputs); lora_matmul (two scales, f32/f64);
fused_attention_block (mask kinds none, causal, sliding_window with windows
0/2/3/5, custom f32, custom i1, bias; with/without biases, rope,
score_scale; output width different from the hidden width);
fused_transformer_layer (eight combinations in which the projection
biases, ln1_b and ln2_b are each present and absent and the mask is f32, i1
or absent; five activations; eps1 != eps2; against TransformerEncoderLayer
where it applies and explicit math otherwise);
dot_general (batch dims leading, trailing or reordered, several contracting
dims in different orders on each side, no contraction, full contraction).

Tolerances: f32 elementwise/normalisation rtol 1e-5 (atol 1e-5 on
normalised, unit-scale outputs); products with a K-long reduction rtol 1e-5,
atol 2e-6 * sqrt(K) (f32 rounding error grows like sqrt(K) for unit-scale
random data); the attention block and the transformer layer chain several
reductions, GEMMs, a softmax and layer norms, so they use rtol 1e-4 /
atol 1e-4 (as the BERT-layer test). f64 rtol 1e-11, atol 1e-11 * sqrt(K).
cast_to results are within one unit in the last place of the target type
(the op rounds an f32 result once, the oracle a float64 one). f16 inputs
(residual norms, swiglu) use rtol 2e-3 / atol 2e-3: the decomposition
computes in f16, rounding after each primitive (about one f16 ulp, 9.8e-4
relative, per step); the oracle rounds the residual sums as the op does.
"""

import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
torch.manual_seed(int(check.rng.integers(1 << 31)))

ELEM_TOL = {np.float32: (1e-5, 1e-5), np.float64: (1e-11, 1e-11),
            np.float16: (2e-3, 2e-3)}
BLOCK_TOL = {np.float32: (1e-4, 1e-4), np.float64: (1e-10, 1e-10)}


def dot_tol(dtype, k):
    if dtype == np.float64:
        return 1e-11, 1e-11 * math.sqrt(k)
    return 1e-5, 2e-6 * math.sqrt(k)


def graph(args, body, results):
    """A @main with `args` [(name, array)] as named inputs, `body` lines and
    `results` [(value, type)]."""
    sig = ", ".join(f"%{n}: {tensor_type(a.shape, a.dtype)} {{rlx.input = \"{n}\"}}"
                    for n, a in args)
    types = ", ".join(t for _, t in results)
    vals = ", ".join(v for v, _ in results)
    lines = [f"func.func @main({sig}) -> ({types}) {{"]
    lines += [f"  {line}" for line in body]
    lines.append(f"  return {vals} : {types}")
    lines.append("}")
    return "\n".join(lines)


def run(args, body, results):
    outs = check.run(graph(args, body, results), dict(args))
    return outs if outs else [None] * len(results)


def T(a):
    return tensor_type(a.shape, a.dtype)


def tt(shape, dtype):
    return tensor_type(shape, dtype)


def f64(a):
    return torch.from_numpy(np.asarray(a, np.float64))


ACT = {
    "gelu": lambda t: F.gelu(t),
    "gelu_approx": lambda t: F.gelu(t, approximate="tanh"),
    "relu": F.relu,
    "silu": F.silu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "neg": torch.neg,
}


def act(kind, x):
    return ACT[kind](f64(x)).numpy() if kind else np.asarray(x, np.float64)


#===------------------------------------------------------------------------===#
# rlx.fused_matmul_bias_act: act(input @ weight + bias)
#===------------------------------------------------------------------------===#

for dtype in (np.float32, np.float64):
    for lead in ((7,), (2, 5), (2, 3, 4)):
        k, n = 24, 13
        x = check.uniform(lead + (k,), dtype)
        w = check.uniform((k, n), dtype)
        b = check.uniform((n,), dtype)
        kinds = [None] + list(ACT)
        ot = tt(lead + (n,), dtype)
        body = []
        for i, kind in enumerate(kinds):
            a = f" activation {kind}" if kind else ""
            body.append(f"%r{i} = rlx.fused_matmul_bias_act %x, %w, %b{a} : "
                        f"{T(x)}, {T(w)}, {T(b)}")
        outs = run([("x", x), ("w", w), ("b", b)], body,
                   [(f"%r{i}", ot) for i in range(len(kinds))])
        lin = np.asarray(x, np.float64) @ w.astype(np.float64) + b
        rtol, atol = dot_tol(dtype, k)
        for i, kind in enumerate(kinds):
            check.close(f"fused_matmul_bias_act {lead} act={kind} "
                        f"{np.dtype(dtype)}", outs[i],
                        act(kind, lin).astype(dtype), rtol, atol)

#===------------------------------------------------------------------------===#
# rlx.fused_residual_ln / rlx.fused_residual_rms_norm
#===------------------------------------------------------------------------===#


def layer_norm_ref(s, gamma, beta, eps):
    mean = s.mean(-1, keepdims=True)
    var = ((s - mean) ** 2).mean(-1, keepdims=True)
    return (s - mean) / np.sqrt(var + eps) * gamma + beta


def rms_norm_ref(s, gamma, beta, eps):
    return s / np.sqrt((s ** 2).mean(-1, keepdims=True) + eps) * gamma + beta


for dtype in (np.float32, np.float64, np.float16):
    for shape in ((2, 5, 64), (7, 33)):
        h = shape[-1]
        x = check.uniform(shape, dtype, -2, 2)
        r = check.uniform(shape, dtype, -2, 2)
        g = check.uniform((h,), dtype, 0.5, 1.5)
        be = check.uniform((h,), dtype, -0.5, 0.5)
        bias = check.uniform((h,), dtype, -1, 1)
        args = [("x", x), ("r", r), ("g", g), ("be", be), ("bias", bias)]
        vt, ht = T(x), T(g)
        eps = 1e-5
        body = [
            f"%l0 = rlx.fused_residual_ln %x, %r, %g, %be eps = 1.0e-05 : {vt}, {ht}, {ht}",
            f"%l1 = rlx.fused_residual_ln %x, %r, %g, %be bias %bias : {ht} "
            f"eps = 1.0e-05 : {vt}, {ht}, {ht}",
            f"%n0 = rlx.fused_residual_rms_norm %x, %r, %g eps = 1.0e-05 : {vt}, {ht}",
            f"%n1 = rlx.fused_residual_rms_norm %x, %r, %g beta %be : {ht} "
            f"eps = 1.0e-05 : {vt}, {ht}",
            f"%n2 = rlx.fused_residual_rms_norm %x, %r, %g bias %bias : {ht} "
            f"eps = 1.0e-05 : {vt}, {ht}",
            f"%n3 = rlx.fused_residual_rms_norm %x, %r, %g beta %be : {ht} "
            f"bias %bias : {ht} eps = 1.0e-05 : {vt}, {ht}",
        ]
        names = ["ln", "ln bias", "rms", "rms beta", "rms bias",
                 "rms beta bias"]
        outs = run(args, body, [(v, vt) for v in
                                ("%l0", "%l1", "%n0", "%n1", "%n2", "%n3")])
        X, R, G, BE, BI = (a.astype(np.float64) for a in (x, r, g, be, bias))
        # eps is an f32 attribute: the op sees float32(1e-5).
        e = float(np.float32(eps))
        # The residual sums are values of the element type (f16 rounds
        # each of them).
        s0 = (X + R).astype(dtype).astype(np.float64)
        s1 = (s0 + BI).astype(dtype).astype(np.float64)
        wants = [layer_norm_ref(s0, G, BE, e),
                 layer_norm_ref(s1, G, BE, e),
                 rms_norm_ref(s0, G, 0, e),
                 rms_norm_ref(s0, G, BE, e),
                 rms_norm_ref(s1, G, 0, e),
                 rms_norm_ref(s1, G, BE, e)]
        rtol, atol = ELEM_TOL[dtype]
        for name, got, want in zip(names, outs, wants):
            check.close(f"fused_residual {name} {shape} {np.dtype(dtype)}",
                        got, want.astype(dtype), rtol, atol)

#===------------------------------------------------------------------------===#
# rlx.fused_swiglu: up * silu(gate), up = low half unless gate_first
#===------------------------------------------------------------------------===#

# (mantissa bits incl. the implicit one, minimum normal exponent)
FLOAT_FORMATS = {"f16": (11, -14), "bf16": (8, -126), "f8E4M3FN": (4, -6),
                 "f8E5M2": (3, -14)}


def round_to(x, fmt):
    """Round-to-nearest-even of float64 `x` into `fmt` (values in range)."""
    p, emin = FLOAT_FORMATS[fmt]
    _, e = np.frexp(x)
    e = np.maximum(e - 1, emin)
    q = np.ldexp(1.0, e - (p - 1))
    return np.round(x / q) * q


for dtype in (np.float32, np.float64, np.float16):
    shape = (2, 3, 2 * 9)
    x = check.uniform(shape, dtype, -3, 3)
    X = x.astype(np.float64)
    low, high = X[..., :9], X[..., 9:]
    casts = [None, "bf16", "f8E4M3FN", "f8E5M2",
             {np.float32: "f64", np.float64: "f32", np.float16: "f32"}[dtype]]
    if dtype != np.float16:
        casts.append("f16")
    body, results, wants = [], [], []
    for gate_first in (False, True):
        up, gate = (high, low) if gate_first else (low, high)
        y = up * F.silu(f64(gate)).numpy()
        for c in casts:
            i = len(results)
            opt = (" gate_first" if gate_first else "") + (f" cast_to {c}" if c else "")
            body.append(f"%s{i} = rlx.fused_swiglu %x{opt} : {T(x)}")
            out_shape = shape[:-1] + (9,)
            rtol, atol = ELEM_TOL[dtype]
            if c is None:
                results.append((f"%s{i}", tt(out_shape, dtype)))
                want = y.astype(dtype)
            elif c in ("f32", "f64"):
                nd = np.float32 if c == "f32" else np.float64
                results.append((f"%s{i}", tt(out_shape, nd)))
                want = y.astype(nd)
                rtol, atol = ELEM_TOL[np.float32 if dtype != np.float16
                                      else np.float16]
            else:
                # bf16 / f8 have no .npy dtype: widen to f32 in the graph
                # (exact).
                body.append(f"%w{i} = rlx.cast %s{i} : {tt(out_shape, dtype)[:-4]}"
                            f"{c}> to f32")
                results.append((f"%w{i}", tt(out_shape, np.float32)))
                p, emin = FLOAT_FORMATS[c]
                want = round_to(y, c).astype(np.float32)
                rtol, atol = 2.0 ** (1 - p), 2.0 ** (emin - p + 1)
                if dtype == np.float16:
                    rtol, atol = max(rtol, 2e-3), max(atol, 1e-3)
            wants.append((f"fused_swiglu gate_first={gate_first} cast_to={c} "
                          f"{np.dtype(dtype)}", want, rtol, atol))
    outs = run([("x", x)], body, results)
    for got, (name, want, rtol, atol) in zip(outs, wants):
        check.close(name, got, want, rtol, atol)

#===------------------------------------------------------------------------===#
# rlx.lora_matmul: x @ w + scale * (x @ a) @ b
#===------------------------------------------------------------------------===#

for dtype in (np.float32, np.float64):
    m, k, n, rank = 9, 40, 17, 4
    x, w = check.uniform((m, k), dtype), check.uniform((k, n), dtype)
    a, b = check.uniform((k, rank), dtype), check.uniform((rank, n), dtype)
    ot = tt((m, n), dtype)
    body = [f"%y0 = rlx.lora_matmul %x, %w, %a, %b scale = 2.0 : "
            f"{T(x)}, {T(w)}, {T(a)}, {T(b)}",
            f"%y1 = rlx.lora_matmul %x, %w, %a, %b scale = 0.375 : "
            f"{T(x)}, {T(w)}, {T(a)}, {T(b)}"]
    outs = run([("x", x), ("w", w), ("a", a), ("b", b)], body,
               [("%y0", ot), ("%y1", ot)])
    X, W, A, B = (t.astype(np.float64) for t in (x, w, a, b))
    rtol, atol = dot_tol(dtype, k * rank)
    for got, scale in zip(outs, (2.0, 0.375)):
        check.close(f"lora_matmul scale={scale} {np.dtype(dtype)}", got,
                    (X @ W + scale * (X @ A) @ B).astype(dtype), rtol, atol)

#===------------------------------------------------------------------------===#
# Attention oracle (shared by the block and the layer)
#===------------------------------------------------------------------------===#


def softmax(s):
    m = np.max(s, -1, keepdims=True)
    e = np.exp(s - m)
    return e / e.sum(-1, keepdims=True)


def rope_ref(x, cos, sin):
    r = x.shape[-1] // 2
    x1, x2 = x[..., :r], x[..., r:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)


def attention_ref(hidden, heads, dim, mask_kind="none", mask=None,
                  window=None, scale=None, cos=None, sin=None):
    """`hidden` is the [B, S, 3I] qkv projection; returns [B, S, I]."""
    bsz, seq, _ = hidden.shape
    inner = heads * dim

    def split(t):
        return t.reshape(bsz, seq, heads, dim).transpose(0, 2, 1, 3)
    q = split(hidden[..., :inner])
    k = split(hidden[..., inner:2 * inner])
    v = split(hidden[..., 2 * inner:])
    if cos is not None:
        q, k = rope_ref(q, cos, sin), rope_ref(k, cos, sin)
    s = (q @ k.transpose(0, 1, 3, 2)) * (scale if scale else 1 / math.sqrt(dim))
    i = np.arange(seq)[:, None]
    j = np.arange(seq)[None, :]
    if mask_kind == "causal":
        s = np.where(j <= i, s, -np.inf)
    elif mask_kind == "sliding_window":
        s = np.where((j <= i) & (j >= i - window), s, -np.inf)
    elif mask_kind == "custom":
        valid = np.asarray(mask, np.float64) >= 0.5
        s = np.where(valid[:, None, None, :], s, -np.inf)
    elif mask_kind == "bias":
        s = s + mask
    a = softmax(s) @ v
    return a.transpose(0, 2, 1, 3).reshape(bsz, seq, inner)


def padding_mask(bsz, seq, dtype):
    """A key-padding mask with at least one valid key per batch; f32 masks
    use values on both sides of the 0.5 threshold."""
    valid = check.rng.random((bsz, seq)) < 0.6
    valid[:, 0] = True
    if dtype == np.bool_:
        return valid
    hi = check.uniform((bsz, seq), dtype, 0.5, 2.0)
    lo = check.uniform((bsz, seq), dtype, -1.0, 0.49)
    return np.where(valid, hi, lo).astype(dtype)


#===------------------------------------------------------------------------===#
# rlx.fused_attention_block
#===------------------------------------------------------------------------===#

B, S, E, H, D, N = 2, 7, 24, 3, 4, 10
INNER = H * D
for dtype in (np.float32, np.float64):
    cases = []
    for mask_kind, mask_dtype in (("none", None), ("causal", None),
                                  ("sliding_window", None),
                                  ("custom", dtype), ("custom", np.bool_),
                                  ("bias", dtype)):
        for has_bias, has_rope, scale in ((False, False, None),
                                          (True, False, None),
                                          (False, True, 0.3),
                                          (True, True, None)):
            cases.append((mask_kind, mask_dtype, has_bias, has_rope, scale))
    for mask_kind, mask_dtype, has_bias, has_rope, scale in cases:
        hid = check.uniform((B, S, E), dtype)
        wqkv = check.uniform((E, 3 * INNER), dtype, -0.5, 0.5)
        wo = check.uniform((INNER, N), dtype, -0.5, 0.5)
        args = [("h", hid), ("wqkv", wqkv), ("wo", wo)]
        text = f"%y = rlx.fused_attention_block %h : {T(hid)} qkv_w %wqkv : {T(wqkv)}"
        bqkv = bo = mask = cos = sin = None
        window = None
        if has_bias:
            bqkv = check.uniform((3 * INNER,), dtype)
            bo = check.uniform((N,), dtype)
            args += [("bqkv", bqkv), ("bo", bo)]
            text += f" qkv_b %bqkv : {T(bqkv)}"
        text += f" out_w %wo : {T(wo)}"
        if has_bias:
            text += f" out_b %bo : {T(bo)}"
        if mask_kind == "custom":
            mask = padding_mask(B, S, mask_dtype)
        elif mask_kind == "bias":
            mask = check.uniform((B, H, S, S), dtype, -3, 3)
        if mask is not None:
            args.append(("m", mask))
            text += f" mask %m : {T(mask)}"
        if has_rope:
            ang = check.uniform((S, D // 2), np.float64, 0, 2 * math.pi)
            cos, sin = np.cos(ang).astype(dtype), np.sin(ang).astype(dtype)
            args += [("cos", cos), ("sin", sin)]
            text += f" rope_cos %cos : {T(cos)} rope_sin %sin : {T(sin)}"
        attrs = [f"head_dim = {D} : i64", f"num_heads = {H} : i64"]
        if mask_kind != "none":
            attrs.append(f"mask_kind = #rlx.mask<{mask_kind}>")
        if mask_kind == "sliding_window":
            # Windows 0, 2, 3 and 5 over the four operand combinations.
            window = 2 * has_bias + 3 * has_rope
            attrs.append(f"window = {window} : i64")
        if scale:
            attrs.append(f"score_scale = {scale} : f32")
        text += " {" + ", ".join(attrs) + "}"
        outs = run(args, [text], [("%y", tt((B, S, N), dtype))])
        f = lambda t: None if t is None else t.astype(np.float64)  # noqa: E731
        qkv = f(hid) @ f(wqkv) + (f(bqkv) if has_bias else 0)
        attn = attention_ref(qkv, H, D, mask_kind, f(mask), window,
                             float(np.float32(scale)) if scale else None,
                             f(cos), f(sin))
        want = attn @ f(wo) + (f(bo) if has_bias else 0)
        mname = mask_kind + ("(i1)" if mask_dtype == np.bool_ else "")
        rtol, atol = BLOCK_TOL[dtype]
        if window is not None:
            mname += f" window={window}"
        check.close(f"fused_attention_block mask={mname} bias={has_bias} "
                    f"rope={has_rope} scale={scale} {np.dtype(dtype)}",
                    outs[0], want.astype(dtype), rtol, atol)

#===------------------------------------------------------------------------===#
# rlx.fused_transformer_layer
#===------------------------------------------------------------------------===#

B, S, E, H, D, FF = 2, 6, 16, 4, 4, 40


def layer_ref(x, p, act_kind, mask, eps1, eps2):
    """The op description, written out in float64."""
    f = {k: v.astype(np.float64) for k, v in p.items()}
    zero = np.zeros(E)
    qkv = x @ f["qkv_w"] + f.get("qkv_b", 0)
    attn = attention_ref(qkv, H, D, "custom" if mask is not None else "none",
                         mask)
    h1 = layer_norm_ref(x + attn @ f["out_w"] + f.get("out_b", 0), f["ln1_g"],
                        f.get("ln1_b", zero), eps1)
    ffn = act(act_kind, h1 @ f["fc1_w"] + f.get("fc1_b", 0)) @ f["fc2_w"] + \
        f.get("fc2_b", 0)
    return layer_norm_ref(h1 + ffn, f["ln2_g"], f.get("ln2_b", zero), eps2)


def torch_layer_ref(x, p, act_kind, mask, eps):
    """torch.nn.TransformerEncoderLayer (post-LN, eval) with the same
    weights: applies when all biases and LN shifts are present and the
    activation is relu or gelu."""
    layer = torch.nn.TransformerEncoderLayer(E, H, FF, dropout=0.0,
                                             activation=act_kind,
                                             layer_norm_eps=eps,
                                             batch_first=True).double()
    layer.eval()
    with torch.no_grad():
        def t(name):
            return torch.from_numpy(p[name].astype(np.float64))
        layer.self_attn.in_proj_weight.copy_(t("qkv_w").T)
        layer.self_attn.in_proj_bias.copy_(t("qkv_b"))
        layer.self_attn.out_proj.weight.copy_(t("out_w").T)
        layer.self_attn.out_proj.bias.copy_(t("out_b"))
        layer.linear1.weight.copy_(t("fc1_w").T)
        layer.linear1.bias.copy_(t("fc1_b"))
        layer.linear2.weight.copy_(t("fc2_w").T)
        layer.linear2.bias.copy_(t("fc2_b"))
        layer.norm1.weight.copy_(t("ln1_g"))
        layer.norm1.bias.copy_(t("ln1_b"))
        layer.norm2.weight.copy_(t("ln2_g"))
        layer.norm2.bias.copy_(t("ln2_b"))
        pad = None
        if mask is not None:
            pad = torch.from_numpy(~(np.asarray(mask, np.float64) >= 0.5))
        return layer(torch.from_numpy(x.astype(np.float64)),
                     src_key_padding_mask=pad).numpy()


LAYER_CASES = [
    # activation, projection biases, ln1_b, ln2_b, mask dtype, eps1, eps2
    ("gelu", True, True, True, np.float32, 1e-5, 1e-5),
    ("relu", True, True, True, np.bool_, 1e-5, 1e-5),
    ("gelu", True, True, True, None, 1e-12, 1e-12),
    ("gelu_approx", False, False, False, None, 1e-5, 1e-6),
    ("silu", False, True, False, np.bool_, 1e-5, 1e-5),
    ("relu", True, False, True, np.float32, 1e-6, 1e-5),
    ("gelu", False, True, True, np.float32, 1e-5, 1e-5),
    ("tanh", True, False, False, None, 1e-5, 1e-5),
]
for dtype in (np.float32, np.float64):
    for act_kind, has_bias, has_b1, has_b2, mask_dtype, eps1, eps2 in LAYER_CASES:
        x = check.uniform((B, S, E), dtype)
        p = {"qkv_w": check.uniform((E, 3 * E), dtype, -0.5, 0.5),
             "out_w": check.uniform((E, E), dtype, -0.5, 0.5),
             "ln1_g": check.uniform((E,), dtype, 0.5, 1.5),
             "fc1_w": check.uniform((E, FF), dtype, -0.5, 0.5),
             "fc2_w": check.uniform((FF, E), dtype, -0.5, 0.5),
             "ln2_g": check.uniform((E,), dtype, 0.5, 1.5)}
        if has_bias:
            p.update({"qkv_b": check.uniform((3 * E,), dtype),
                      "out_b": check.uniform((E,), dtype),
                      "fc1_b": check.uniform((FF,), dtype),
                      "fc2_b": check.uniform((E,), dtype)})
        if has_b1:
            p["ln1_b"] = check.uniform((E,), dtype, -0.5, 0.5)
        if has_b2:
            p["ln2_b"] = check.uniform((E,), dtype, -0.5, 0.5)
        mask = None
        if mask_dtype is not None:
            mask = padding_mask(B, S, dtype if mask_dtype == np.float32
                                else np.bool_)
        text = f"%y = rlx.fused_transformer_layer {act_kind} %x : {T(x)}"
        for name in ("qkv_w", "qkv_b", "out_w", "out_b", "ln1_g", "ln1_b",
                     "fc1_w", "fc1_b", "fc2_w", "fc2_b", "ln2_g", "ln2_b"):
            if name in p:
                text += f" {name} %{name} : {T(p[name])}"
        args = [("x", x)] + list(p.items())
        if mask is not None:
            text += f" mask %m : {T(mask)}"
            args.append(("m", mask))
        text += (f" {{eps1 = {eps1:e} : f32, eps2 = {eps2:e} : f32, "
                 f"head_dim = {D} : i64, intermediate_size = {FF} : i64, "
                 f"num_heads = {H} : i64}}")
        outs = run(args, [text], [("%y", T(x))])
        e1, e2 = float(np.float32(eps1)), float(np.float32(eps2))
        mname = "none" if mask is None else str(np.dtype(mask.dtype))
        name = (f"fused_transformer_layer {act_kind} bias={has_bias} "
                f"ln1_b={has_b1} ln2_b={has_b2} mask={mname} {np.dtype(dtype)}")
        rtol, atol = BLOCK_TOL[dtype]
        check.close(name, outs[0],
                    layer_ref(x.astype(np.float64), p, act_kind, mask, e1,
                              e2).astype(dtype), rtol, atol)
        if has_bias and has_b1 and has_b2 and act_kind in ("gelu", "relu") \
                and eps1 == eps2:
            check.close(name + " vs TransformerEncoderLayer", outs[0],
                        torch_layer_ref(x, p, act_kind, mask, e1).astype(dtype),
                        rtol, atol)

#===------------------------------------------------------------------------===#
# rlx.dot_general
#===------------------------------------------------------------------------===#

DOT_CASES = [
    # lhs shape, rhs shape, lhs_contracting, rhs_contracting, lhs_batch, rhs_batch
    ((4, 5, 6), (4, 6, 3), [2], [1], [0], [0]),              # batched matmul
    ((5, 6), (6, 5, 7), [0, 1], [1, 0], [], []),             # two contracting, swapped
    ((3, 2, 4), (4, 5, 2), [2], [0], [1], [2]),              # batch not leading
    ((2, 3, 5, 4), (4, 3, 6, 2), [3], [0], [0, 1], [3, 1]),  # two batch dims, reordered
    ((3, 2, 5, 4), (4, 3, 2, 6), [1, 3], [2, 0], [0], [1]),  # batch + two contracting
    ((2, 7, 3, 4), (4, 2, 3), [3, 2], [0, 2], [0], [1]),     # contracting out of order
    ((4, 3), (5,), [], [], [], []),                          # outer product
    ((3, 2), (3, 4), [], [], [0], [0]),                      # batch only
    ((3, 4), (4, 3), [0, 1], [1, 0], [], []),                # full contraction
    ((6, 5), (6, 5), [1], [1], [0], [0]),                    # batched dot
    ((2, 3, 4), (4, 3, 2), [1, 2], [1, 0], [0], [2]),        # batch last on rhs
]
LETTERS = "abcdefghijklmnop"
for dtype in (np.float32, np.float64):
    for ls, rs, lc, rc, lb, rb in DOT_CASES:
        lhs, rhs = check.uniform(ls, dtype), check.uniform(rs, dtype)
        # einsum subscripts from the spec: paired dims share a letter.
        lsub = [None] * len(ls)
        rsub = [None] * len(rs)
        it = iter(LETTERS)
        for i, j in list(zip(lb, rb)) + list(zip(lc, rc)):
            lsub[i] = rsub[j] = next(it)
        lfree = [d for d in range(len(ls)) if d not in lb and d not in lc]
        rfree = [d for d in range(len(rs)) if d not in rb and d not in rc]
        for d in lfree:
            lsub[d] = next(it)
        for d in rfree:
            rsub[d] = next(it)
        out = "".join([lsub[d] for d in lb] + [lsub[d] for d in lfree] +
                      [rsub[d] for d in rfree])
        want = np.einsum(f"{''.join(lsub)},{''.join(rsub)}->{out}",
                         lhs.astype(np.float64), rhs.astype(np.float64))
        want = np.asarray(want).astype(dtype)

        def lst(v):
            return "[" + ", ".join(map(str, v)) + "]"
        text = (f"%y = rlx.dot_general %l, %r contracting_dims = {lst(lc)} x "
                f"{lst(rc)} batch_dims = {lst(lb)} x {lst(rb)} : {T(lhs)}, {T(rhs)}")
        outs = run([("l", lhs), ("r", rhs)], [text],
                   [("%y", tt(want.shape, dtype))])
        k = int(np.prod([ls[d] for d in lc])) if lc else 1
        rtol, atol = dot_tol(dtype, k)
        check.close(f"dot_general {ls}x{rs} c={lc}x{rc} b={lb}x{rb} "
                    f"{np.dtype(dtype)}", outs[0], want, rtol, atol)

# --------------------------------------------------------------------------
# A tanh-GELU layer with its pre-activation's cotangent and bias gradient,
# as rlx-autodiff writes them (on the CUDA target: the GELU_AUX_BIAS and
# DGELU_BGRAD cuBLASLt epilogues). Ranks 2 and 3, f32 and f16; the oracle in
# float64 from the same inputs, the derivative by torch.autograd. f16: the
# CPU rounds the pre-activation to f16 before GELU and the GPU after the
# epilogue's f32 math, so both hold a few f16 units (rtol/atol 1e-2).
for dtype, lead in ((np.float32, (10,)), (np.float32, (2, 5)),
                    (np.float16, (10,))):
    k, n, p = 24, 16, 8
    x = check.uniform(lead + (k,), dtype)
    w = check.uniform((k, n), dtype, -0.5, 0.5)
    b = check.uniform((n,), dtype)
    dz = check.uniform(lead + (p,), dtype)
    wt = check.uniform((p, n), dtype, -0.5, 0.5)
    rows = tt(lead + (n,), dtype)
    axes = ", ".join(str(a) for a in range(len(lead)))
    body = [f"%h = rlx.matmul %x, %w : {T(x)}, {T(w)}",
            f"%hb = rlx.binary add %h, %b : {rows}, {T(b)}",
            f"%a = rlx.activation gelu_approx %hb : {rows}",
            f"%g = rlx.matmul %dz, %wt : {T(dz)}, {T(wt)}",
            f"%d = rlx.activation_backward gelu_approx %hb, %g : {rows}, {rows}",
            f"%bg = rlx.reduce sum %d axes = [{axes}] : {rows}"]
    results = [("%a", rows), ("%d", rows), ("%bg", tt((n,), dtype))]
    args = [("x", x), ("w", w), ("b", b), ("dz", dz), ("wt", wt)]
    f16 = dtype == np.float16
    outs = check.run(graph(args, body, results), dict(args),
                     gpu_tolerance=(1e-2, 1e-2) if f16 else None)
    outs = outs or [None] * 3
    h = (f64(x) @ f64(w) + f64(b)).requires_grad_()
    a = F.gelu(h, approximate="tanh")
    g = f64(dz) @ f64(wt)
    (d,) = torch.autograd.grad(a, h, g)
    bg = d.sum(dim=tuple(range(len(lead))))
    rtol, atol = (1e-2, 1e-2) if f16 else dot_tol(dtype, k)
    label = f"gelu_approx layer gradient {lead} {np.dtype(dtype)}"
    check.close(f"{label} activation", outs[0], a.detach().numpy().astype(dtype),
                rtol, atol)
    check.close(f"{label} pre-activation cotangent", outs[1],
                d.numpy().astype(dtype), rtol, atol)
    rows_summed = int(np.prod(lead))
    check.close(f"{label} bias gradient", outs[2], bg.numpy().astype(dtype),
                rtol, atol * math.sqrt(rows_summed))

check.finish()
