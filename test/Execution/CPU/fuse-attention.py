"""rlx-fuse's attention-block and transformer-layer fusions preserve the
numbers: primitive chains (QKV projection .. output projection; the post-LN
encoder layer) are run through rlx-run as written and after
`rlx-opt --rlx-fuse`, and both are compared with a float64 torch oracle
written from the op descriptions. Each fused graph must contain the fused op
(the case fails otherwise, so the test fails if fusion stops).

Covered: attention blocks with and without biases and rope, mask kinds
none, causal, sliding_window, custom f32, custom i1 (cast to f32 for
rlx.attention), bias; a score scale; rank-4 (heads split by reshape +
transpose) and rank-3 (packed heads) attention. Encoder layers with and
without biases, gelu/relu/silu, no mask / f32 / i1 key-padding masks,
eps1 != eps2.

Tolerances: the chains compose GEMMs, a softmax and layer norms in f32, so
outputs are compared with rtol 1e-4 / atol 1e-4 (as the BERT-layer test);
the fused and primitive f32 results are also compared with each other at
the same tolerance (the fused op decomposes into the same primitives, but
the lowering may reassociate).
"""

import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
RLX_OPT = sys.argv[2]
TOL = (1e-4, 1e-4)


def tt(shape, dtype="f32"):
    return "tensor<" + "".join(f"{s}x" for s in shape) + dtype + ">"


def graph(args, lines, result):
    """@main with `args` [(name, array)] as named inputs returning
    `result` (value, type)."""
    sig = ", ".join(f"%{n}: {tensor_type(a.shape, a.dtype)} "
                    f"{{rlx.input = \"{n}\"}}" for n, a in args)
    body = "\n".join(f"  {line}" for line in lines)
    return (f"func.func @main({sig}) -> {result[1]} {{\n{body}\n"
            f"  return {result[0]} : {result[1]}\n}}\n")


def linear(lines, out, x, w, b, lead, k, n):
    """Appends `out = x @ w (+ b)` ([*lead, k] x [k, n]; no bias when `b` is
    None) to `lines`; returns the result's name."""
    product = f"rlx.matmul {x}, {w} : {tt(lead + [k])}, {tt([k, n])}"
    if b is None:
        lines.append(f"{out} = {product}")
        return out
    lines.append(f"{out}_mm = {product}")
    lines.append(f"{out} = rlx.binary add {out}_mm, {b} : {tt(lead + [n])}, "
                 f"{tt([n])}")
    return out


def attention_lines(c, hidden="%h", out="%o"):
    """The primitive attention block of case `c` as rlx-unfuse writes it
    (or with packed heads when c["rank3"])."""
    B, S, E, H, D, N = c["B"], c["S"], c["E"], c["H"], c["D"], c["N"]
    inner = H * D
    lines = []
    qkv = linear(lines, "%qkv", hidden, "%wqkv", "%bqkv" if c["bias"] else None,
                 [B, S], E, 3 * inner)
    heads = {}
    for i, n in enumerate("qkv"):
        lines.append(f"%{n}0 = rlx.narrow {qkv} axis = 2 start = {i * inner} "
                     f"len = {inner} : {tt([B, S, 3 * inner])}")
        heads[n] = f"%{n}0"
        if not c["rank3"]:
            lines.append(f"%{n}1 = rlx.reshape %{n}0 new_shape = "
                         f"[{B}, {S}, {H}, {D}] : {tt([B, S, inner])}")
            lines.append(f"%{n}2 = rlx.transpose %{n}1 perm = [0, 2, 1, 3] : "
                         f"{tt([B, S, H, D])}")
            heads[n] = f"%{n}2"
    head_type = tt([B, S, inner]) if c["rank3"] else tt([B, H, S, D])
    if c["rope"]:
        for n in "qk":
            lines.append(f"%{n}r = rlx.rope {heads[n]}, %cos, %sin {{head_dim = "
                         f"{D} : i64, n_rot = {D} : i64}} : {head_type}, "
                         f"{tt([S, D // 2])}, {tt([S, D // 2])}")
            heads[n] = f"%{n}r"
    mask = ""
    if c["mask"] in ("custom", "bias"):
        shape = [B, S] if c["mask"] == "custom" else [B, H, S, S]
        m = "%m"
        if c.get("mask_i1"):
            lines.append(f"%mf = rlx.cast %m : {tt(shape, 'i1')} to f32")
            m = "%mf"
        mask = f" mask {m} : {tt(shape)}"
    attrs = [f"num_heads = {H} : i64", f"head_dim = {D} : i64",
             f"mask_kind = #rlx.mask<{c['mask']}>"]
    if c.get("window") is not None:
        attrs.append(f"window = {c['window']} : i64")
    if c.get("scale"):
        attrs.append(f"score_scale = {c['scale']:e} : f32")
    lines.append(f"%a = rlx.attention {heads['q']}, {heads['k']}, {heads['v']}"
                 f"{mask} {{{', '.join(attrs)}}} : {head_type}, {head_type}, "
                 f"{head_type}")
    merged = "%a"
    if not c["rank3"]:
        lines.append(f"%a1 = rlx.transpose %a perm = [0, 2, 1, 3] : "
                     f"{tt([B, H, S, D])}")
        lines.append(f"%a2 = rlx.reshape %a1 new_shape = [{B}, {S}, {inner}]"
                     f" : {tt([B, S, H, D])}")
        merged = "%a2"
    linear(lines, out, merged, "%wo", "%bo" if c["bias"] else None, [B, S],
           inner, N)
    return lines


def layer_lines(c):
    """The primitive post-LN encoder layer of case `c`."""
    B, S, E, F_ = c["B"], c["S"], c["E"], c["F"]
    x3, f3, v1 = tt([B, S, E]), tt([B, S, F_]), tt([E])
    lines = attention_lines(c, hidden="%x", out="%o")
    lines += [f"%r1 = rlx.binary add %x, %o : {x3}, {x3}",
              f"%x1 = rlx.layer_norm %r1, %g1, %be1 {{axis = -1 : i64, "
              f"eps = {c['eps1']:e} : f32}} : {x3}, {v1}, {v1}"]
    f = linear(lines, "%f1", "%x1", "%w1", "%b1" if c["bias"] else None,
               [B, S], E, F_)
    lines.append(f"%f2 = rlx.activation {c['act']} {f} : {f3}")
    f = linear(lines, "%f3", "%f2", "%w2", "%b2" if c["bias"] else None,
               [B, S], F_, E)
    lines += [f"%r2 = rlx.binary add %x1, {f} : {x3}, {x3}",
              f"%y = rlx.layer_norm %r2, %g2, %be2 {{axis = -1 : i64, "
              f"eps = {c['eps2']:e} : f32}} : {x3}, {v1}, {v1}"]
    return lines


def t64(a):
    return torch.from_numpy(np.asarray(a, np.float64))


def rope_ref(x, cos, sin):
    """NeoX rope over all D dims of [B, H, S, D]."""
    r = x.shape[-1] // 2
    lo, hi = x[..., :r], x[..., r:]
    return torch.cat([lo * cos - hi * sin, hi * cos + lo * sin], -1)


def attention_block_ref(c, p, hidden):
    B, S, H, D = c["B"], c["S"], c["H"], c["D"]
    inner = H * D
    qkv = t64(hidden) @ t64(p["wqkv"])
    if c["bias"]:
        qkv = qkv + t64(p["bqkv"])
    q, k, v = (qkv[..., i * inner:(i + 1) * inner].reshape(B, S, H, D)
               .transpose(1, 2) for i in range(3))
    if c["rope"]:
        q = rope_ref(q, t64(p["cos"]), t64(p["sin"]))
        k = rope_ref(k, t64(p["cos"]), t64(p["sin"]))
    scale = float(np.float32(c["scale"])) if c.get("scale") else D ** -0.5
    s = q @ k.transpose(-1, -2) * scale
    i = torch.arange(S)[:, None]
    j = torch.arange(S)[None, :]
    visible = torch.ones(S, S, dtype=torch.bool)
    if c["mask"] == "causal":
        visible = j <= i
    elif c["mask"] == "sliding_window":
        visible = (j <= i) & (j >= i - c["window"])
    elif c["mask"] == "custom":
        visible = (t64(p["m"]) >= 0.5)[:, None, None, :]
    elif c["mask"] == "bias":
        s = s + t64(p["m"])
    s = s.masked_fill(~visible, float("-inf"))
    a = (torch.softmax(s, -1) @ v).transpose(1, 2).reshape(B, S, inner)
    out = a @ t64(p["wo"])
    return out + t64(p["bo"]) if c["bias"] else out


ACT = {"gelu": F.gelu, "relu": F.relu, "silu": F.silu}


def layer_ref(c, p):
    E = c["E"]
    x = t64(p["x"])
    h1 = F.layer_norm(x + attention_block_ref(c, p, p["x"]), (E,),
                      t64(p["g1"]), t64(p["be1"]), float(np.float32(c["eps1"])))
    f = h1 @ t64(p["w1"]) + (t64(p["b1"]) if c["bias"] else 0)
    f = ACT[c["act"]](f) @ t64(p["w2"]) + (t64(p["b2"]) if c["bias"] else 0)
    return F.layer_norm(h1 + f, (E,), t64(p["g2"]), t64(p["be2"]),
                        float(np.float32(c["eps2"])))


def padding_mask(B, S, i1):
    """At least one valid key per batch; f32 masks straddle 0.5."""
    valid = check.rng.random((B, S)) < 0.6
    valid[:, 0] = True
    if i1:
        return valid
    return np.where(valid, check.uniform((B, S), np.float32, 0.5, 2.0),
                    check.uniform((B, S), np.float32, -1.0, 0.49))


def attention_params(c, hidden_name):
    B, S, E, H, D, N = c["B"], c["S"], c["E"], c["H"], c["D"], c["N"]
    inner = H * D
    u = check.uniform
    p = {hidden_name: u((B, S, E), np.float32),
         "wqkv": u((E, 3 * inner), np.float32, -0.5, 0.5),
         "wo": u((inner, N), np.float32, -0.5, 0.5)}
    if c["bias"]:
        p["bqkv"] = u((3 * inner,), np.float32)
        p["bo"] = u((N,), np.float32)
    if c["rope"]:
        ang = check.uniform((S, D // 2), np.float64, 0, 2 * np.pi)
        p["cos"] = np.cos(ang).astype(np.float32)
        p["sin"] = np.sin(ang).astype(np.float32)
    if c["mask"] == "custom":
        p["m"] = padding_mask(B, S, c.get("mask_i1"))
    elif c["mask"] == "bias":
        p["m"] = u((B, H, S, S), np.float32, -3, 3)
    return p


def fuse(mlir, name):
    """`mlir` through rlx-opt --rlx-fuse; None (a failed check) unless the
    result contains rlx.`name`."""
    proc = subprocess.run([RLX_OPT, "--rlx-fuse"], input=mlir,
                          capture_output=True, text=True)
    if proc.returncode != 0 or f"rlx.{name} " not in proc.stdout:
        check.failed += 1
        print(f"FAIL: rlx-fuse did not produce rlx.{name}:\n{proc.stderr}"
              f"{proc.stdout}")
        return None
    check.passed += 1
    return proc.stdout


def first(outputs):
    return outputs[0] if outputs else None


def run_case(what, op, lines, p, result_type, want):
    args = list(p.items())
    primitive = graph(args, lines, ("%y" if op.endswith("layer") else "%o",
                                    result_type))
    fused = fuse(primitive, op)
    got_primitive = check.run(primitive, p)
    got_fused = check.run(fused, p) if fused else None
    want = want.numpy().astype(np.float32)
    check.close(f"{what} primitive", first(got_primitive), want, *TOL)
    check.close(f"{what} fused", first(got_fused), want, *TOL)
    if first(got_primitive) is not None and first(got_fused) is not None:
        check.close(f"{what} fused vs primitive", first(got_fused),
                    first(got_primitive), *TOL)


ATTENTION_CASES = [
    # bias, rope, mask, extra
    (True, False, "none", {}),
    (False, True, "causal", {}),
    (True, True, "sliding_window", {"window": 2}),
    (False, False, "custom", {"scale": 0.3}),
    (True, False, "custom", {"mask_i1": True}),
    (True, True, "bias", {}),
    (True, True, "causal", {"rank3": True}),
    (False, False, "custom", {"rank3": True, "mask_i1": True}),
]
for bias, rope, mask, extra in ATTENTION_CASES:
    c = dict(B=2, S=5, E=12, H=3, D=4, N=10, bias=bias, rope=rope,
             mask=mask, rank3=False)
    c.update(extra)
    p = attention_params(c, "h")
    run_case(f"attention block bias={bias} rope={rope} mask={mask} {extra}",
             "fused_attention_block", attention_lines(c), p,
             tt([c["B"], c["S"], c["N"]]), attention_block_ref(c, p, p["h"]))

LAYER_CASES = [
    # bias, activation, mask, mask_i1, eps1, eps2
    (True, "gelu", "none", False, 1e-5, 1e-12),
    (False, "relu", "custom", False, 1e-5, 1e-5),
    (True, "silu", "custom", True, 1e-6, 1e-5),
]
for bias, act, mask, mask_i1, eps1, eps2 in LAYER_CASES:
    c = dict(B=2, S=5, E=8, H=2, D=4, N=8, F=16, bias=bias, rope=False,
             mask=mask, mask_i1=mask_i1, rank3=False, act=act, eps1=eps1,
             eps2=eps2)
    p = attention_params(c, "x")
    E, F_ = c["E"], c["F"]
    p.update({"g1": check.uniform((E,), np.float32, 0.5, 1.5),
              "be1": check.uniform((E,), np.float32, -0.5, 0.5),
              "w1": check.uniform((E, F_), np.float32, -0.5, 0.5),
              "w2": check.uniform((F_, E), np.float32, -0.5, 0.5),
              "g2": check.uniform((E,), np.float32, 0.5, 1.5),
              "be2": check.uniform((E,), np.float32, -0.5, 0.5)})
    if bias:
        p["b1"] = check.uniform((F_,), np.float32)
        p["b2"] = check.uniform((E,), np.float32)
    run_case(f"transformer layer bias={bias} {act} mask={mask} i1={mask_i1}",
             "fused_transformer_layer", layer_lines(c), p,
             tt([c["B"], c["S"], E]), layer_ref(c, p))

check.finish()
