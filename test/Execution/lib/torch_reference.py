"""Reference implementations in torch of the rlx ops whose semantics need
more than one torch call, shared by the execution tests that differentiate
them (torch.autograd is the oracle of their gradients)."""

import math

import numpy as np
import torch


def attention(q, k, v, heads, dim, kind, mask, window, scale, cap, packed):
    """`rlx.attention`: scale (default 1/sqrt(dim)), soft cap, then the mask
    of `kind`; `packed` takes and returns the rank-3 [B, S, H*D] layout."""
    if packed:
        def split(t):
            return t.reshape(t.shape[0], t.shape[1], heads, dim).transpose(1, 2)
        q, k, v = split(q), split(k), split(v)
    sq, sk = q.shape[2], k.shape[2]
    s = (q @ k.transpose(-1, -2)) * (scale if scale else 1 / math.sqrt(dim))
    if cap:
        s = cap * torch.tanh(s / cap)
    i = torch.arange(sq)[:, None] + (sk - sq)
    j = torch.arange(sk)[None, :]
    if kind == "bias":
        s = s + mask
    elif kind == "custom":
        s = s.masked_fill((mask < 0.5)[:, None, None, :], -math.inf)
    elif kind == "causal":
        s = s.masked_fill(j > i, -math.inf)
    elif kind == "sliding_window":
        s = s.masked_fill((j > i) | (j < i - window), -math.inf)
    out = torch.softmax(s, -1) @ v
    if packed:
        out = out.transpose(1, 2).reshape(out.shape[0], sq, heads * dim)
    return out


def attention_attrs(heads, dim, kind, window, scale, cap):
    """The attribute list of an `rlx.attention` (or its backward op) with
    these settings, and the score scale and soft cap as the op stores them
    (f32), which is what the reference must use."""
    attrs = [f"head_dim = {dim} : i64", f"mask_kind = #rlx.mask<{kind}>",
             f"num_heads = {heads} : i64"]
    if window is not None:
        attrs.append(f"window = {window} : i64")
    if scale:
        attrs.append(f"score_scale = {scale:e} : f32")
    if cap:
        attrs.append(f"attn_logit_softcap = {cap:e} : f32")
    as_f32 = [float(np.float32(x)) if x else None for x in (scale, cap)]
    return attrs, as_f32[0], as_f32[1]


def bert_layer_params(layer):
    """The parameters of examples/bert_layer.mlir, by name, from a
    torch.nn.TransformerEncoderLayer (weights transposed to [in, out])."""
    def t(tensor):
        return np.ascontiguousarray(tensor.detach().numpy().astype(np.float32))
    return {
        "qkv_w": t(layer.self_attn.in_proj_weight.T),
        "qkv_b": t(layer.self_attn.in_proj_bias),
        "out_w": t(layer.self_attn.out_proj.weight.T),
        "out_b": t(layer.self_attn.out_proj.bias),
        "ln1_g": t(layer.norm1.weight), "ln1_b": t(layer.norm1.bias),
        "fc1_w": t(layer.linear1.weight.T), "fc1_b": t(layer.linear1.bias),
        "fc2_w": t(layer.linear2.weight.T), "fc2_b": t(layer.linear2.bias),
        "ln2_g": t(layer.norm2.weight), "ln2_b": t(layer.norm2.bias),
    }
