# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""nn.MultiheadAttention."""

import torch.nn as nn

from ..._capi import RLXError
from .._emitter import Value
from .common import MODULES, NoIndices
from .linalg import linear


def multihead_attention(c, m, p, query, key, value, key_padding_mask=None,
                        need_weights=True, attn_mask=None,
                        average_attn_weights=True):
    """nn.MultiheadAttention: projections, rlx.attention, output
    projection. Returns (output, None): the attention weights are not
    computed, and using them is an error."""
    if m.bias_k is not None or m.add_zero_attn or \
            not m._qkv_same_embed_dim:
        raise RLXError("MultiheadAttention with add_bias_kv, add_zero_attn "
                       "or kdim/vdim")
    if not m.batch_first:
        # [S, B, E] -> [B, S, E]
        query, key, value = (c.e.transpose(t, [1, 0, 2])
                             for t in (query, key, value))
    embed, heads = m.embed_dim, m.num_heads
    head_dim = embed // heads
    weight = c.param(p + ".in_proj_weight")
    bias = c.param(p + ".in_proj_bias") if m.in_proj_bias is not None \
        else None

    def project(x, i):
        w = c.e.narrow(weight, 0, i * embed, embed)
        b = c.e.narrow(bias, 0, i * embed, embed) if bias is not None \
            else None
        y = linear(c, x, w, b)
        batch, length = y.shape[0], y.shape[1]
        return c.e.transpose(c.e.reshape(y, (batch, length, heads, head_dim)),
                             [0, 2, 1, 3])
    q, k, v = project(query, 0), project(key, 1), project(value, 2)
    batch, length, key_length = q.shape[0], q.shape[2], k.shape[2]
    mask_kind, mask = "none", None
    if attn_mask is not None:
        bias_mask = _additive_mask(c, attn_mask, q.dtype)
        if bias_mask.rank == 2:
            bias_mask = c.e.reshape(bias_mask, (1, 1) + bias_mask.shape)
        else:  # [B * H, L, S]
            bias_mask = c.e.reshape(bias_mask, (batch, heads, length,
                                                key_length))
        mask_kind = "bias"
        mask = bias_mask
    if key_padding_mask is not None:
        padding = _additive_mask(c, key_padding_mask, q.dtype)
        padding = c.e.reshape(padding, (batch, 1, 1, key_length))
        mask = padding if mask is None else c.e.binary("add", mask, padding)
        mask_kind = "bias"
    if mask is not None:
        mask = c.e.expand(mask, (batch, heads, length, key_length))
    out = c.e.attention(q, k, v, heads, head_dim, mask_kind, mask)
    out = c.e.reshape(c.e.transpose(out, [0, 2, 1, 3]),
                      (batch, length, embed))
    out = linear(c, out, c.param(p + ".out_proj.weight"),
                 c.param(p + ".out_proj.bias")
                 if m.out_proj.bias is not None else None)
    if not m.batch_first:
        out = c.e.transpose(out, [1, 0, 2])
    return out, (NoIndices() if need_weights else None)


def _additive_mask(c, mask, dtype):
    """A boolean mask (True: masked out) as -inf / 0, a float one as is."""
    if not isinstance(mask, Value):
        mask = c.const_tensor(mask)
    if mask.dtype == "i1":
        return c.e.where(mask, c.e.constant(float("-inf"), dtype),
                         c.e.constant(0.0, dtype))
    return c.e.cast(mask, dtype)


MODULES[nn.MultiheadAttention] = multihead_attention
