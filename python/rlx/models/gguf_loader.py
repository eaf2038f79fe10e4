# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Llama-family models from GGUF files (docs/llm.md#gguf-files): the
config.json fields read from llama.cpp's metadata, and the tensors renamed
from llama.cpp's names to transformers' and laid out as transformers has
them, so that the Llama family's graph binds them.

Two things differ from a Hugging Face checkpoint besides the names:

- llama.cpp's converter permutes the rows of the q and k projections of
  `llama` models (convert_hf_to_gguf.py, LlamaModel.permute): within each
  head, transformers' rotary pairing rotates element i with i + dim/2
  (rotate_half), ggml's with 2i + 1 (interleaved). The permutation is
  undone here, on the rows: output row `2i + h` of a head in the file is
  row `h * dim/2 + i` of transformers'. A quantized weight's rows are
  whole blocks, so its packed bytes move row by row, unchanged. `qwen2`
  models are converted without the permutation.
- Linear weights may be block-quantized: they stay packed
  (QuantizedTensor) and the graph multiplies them with
  rlx.dequant_matmul. The token embedding, which the graph gathers rows
  of, is dequantized to float32 here (`rlx.gguf.dequantize`)."""

import numpy as np

from .._capi import RLXError
from ..gguf import QuantizedTensor, read_gguf
from .llama import LlamaConfig

# general.architecture -> whether llama.cpp's converter permuted q and k.
ARCHITECTURES = {"llama": True, "qwen2": False}
# Types the linear layers take: the plain float types and every GGUF block
# type rlx.dequant_matmul decodes (docs/quantization.md).
_PLAIN_FLOAT = ("f32", "f16", "bf16")
_DEQUANT_MATMUL = ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k",
                   "q4_k", "q5_k", "q6_k", "iq4_nl", "iq4_xs", "iq2_xxs",
                   "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq1_s", "iq1_m",
                   "tq1_0", "tq2_0", "mxfp4")

# llama.cpp's per-layer tensor names -> transformers' (after
# `model.layers.N.`), and whether the graph multiplies it (a linear weight,
# which may stay quantized).
_LAYER_TENSORS = {
    "attn_norm.weight": ("input_layernorm.weight", False),
    "ffn_norm.weight": ("post_attention_layernorm.weight", False),
    "attn_q.weight": ("self_attn.q_proj.weight", True),
    "attn_k.weight": ("self_attn.k_proj.weight", True),
    "attn_v.weight": ("self_attn.v_proj.weight", True),
    "attn_output.weight": ("self_attn.o_proj.weight", True),
    "attn_q.bias": ("self_attn.q_proj.bias", False),
    "attn_k.bias": ("self_attn.k_proj.bias", False),
    "attn_v.bias": ("self_attn.v_proj.bias", False),
    "attn_output.bias": ("self_attn.o_proj.bias", False),
    "ffn_gate.weight": ("mlp.gate_proj.weight", True),
    "ffn_up.weight": ("mlp.up_proj.weight", True),
    "ffn_down.weight": ("mlp.down_proj.weight", True),
}
_GLOBAL_TENSORS = {"token_embd.weight": "model.embed_tokens.weight",
                   "output_norm.weight": "model.norm.weight",
                   "output.weight": "lm_head.weight"}


def _config(gguf):
    """The config.json dict of the model of a GGUFFile."""
    meta = gguf.metadata
    arch = meta.get("general.architecture")
    if arch not in ARCHITECTURES:
        raise RLXError(f"'{gguf.path}': general.architecture {arch!r} is not "
                       "one rlx.models builds from GGUF (llama, qwen2)")

    def need(key):
        full = f"{arch}.{key}"
        if full not in meta:
            raise RLXError(f"'{gguf.path}': metadata '{full}' is missing")
        return meta[full]

    scaling = meta.get(f"{arch}.rope.scaling.type", "none")
    if "rope_freqs.weight" in gguf.tensors:
        scaling = "rope_freqs (llama 3 frequency factors)"
    heads = int(need("attention.head_count"))
    hidden = int(need("embedding_length"))
    if "token_embd.weight" not in gguf.tensors:
        raise RLXError(f"'{gguf.path}' has no tensor 'token_embd.weight'")
    vocab = gguf.tensors["token_embd.weight"].shape[0]
    head_dim = int(meta.get(f"{arch}.attention.key_length",
                            hidden // max(heads, 1)))
    value_dim = int(meta.get(f"{arch}.attention.value_length", head_dim))
    if value_dim != head_dim:
        raise RLXError(f"'{gguf.path}': attention.value_length {value_dim} "
                       f"differs from key_length {head_dim}")
    rotated = int(meta.get(f"{arch}.rope.dimension_count", head_dim))
    if rotated != head_dim:
        raise RLXError(f"'{gguf.path}': rope.dimension_count {rotated} "
                       f"rotates part of the head dim {head_dim}; rlx.models "
                       "rotates all of it")
    config = dict(
        model_type=arch, vocab_size=vocab, hidden_size=hidden,
        intermediate_size=int(need("feed_forward_length")),
        num_hidden_layers=int(need("block_count")),
        num_attention_heads=heads,
        num_key_value_heads=int(meta.get(f"{arch}.attention.head_count_kv",
                                         heads)),
        head_dim=head_dim,
        rms_norm_eps=float(need("attention.layer_norm_rms_epsilon")),
        rope_theta=float(meta.get(f"{arch}.rope.freq_base", 10000.0)),
        max_position_embeddings=int(need("context_length")),
        hidden_act="silu",
        tie_word_embeddings="output.weight" not in gguf.tensors)
    if scaling != "none":
        config["rope_scaling"] = scaling
    if arch == "llama" and "blk.0.attn_q.bias" in gguf.tensors:
        # transformers' attention_bias: q, k, v and o biases.
        config["attention_bias"] = True
    return config


def unpermute_rows(rows, heads):
    """Rows [heads * dim, ...] of a q or k projection in llama.cpp's order
    back in transformers': file row `2i + h` of a head is row `h * dim/2 +
    i` (the inverse of convert_hf_to_gguf.py's LlamaModel.permute)."""
    rest = rows.shape[1:]
    half = rows.shape[0] // heads // 2
    return (rows.reshape((heads, half, 2) + rest).swapaxes(1, 2)
            .reshape(rows.shape))


def _unpermuted(value, heads):
    if isinstance(value, QuantizedTensor):
        rows = unpermute_rows(value.row_view(), heads)
        return QuantizedTensor(value.type, value.shape, rows.reshape(-1))
    return unpermute_rows(value, heads)


def _weight(gguf, gguf_name, linear):
    """A tensor of the file as the graph takes it: float32, or, for a
    linear weight, the QuantizedTensor of a type rlx.dequant_matmul
    decodes."""
    info = gguf.tensors[gguf_name]
    kind = info.type.name
    if kind in _PLAIN_FLOAT:
        return np.array(gguf.tensor(gguf_name), np.float32)
    if linear and kind in _DEQUANT_MATMUL:
        if len(info.shape) != 2:
            raise RLXError(f"'{gguf.path}': tensor '{gguf_name}' ({kind}) "
                           f"has dims {list(info.shape)}, not a matrix")
        value = gguf.tensor(gguf_name)
        return QuantizedTensor(value.type, value.shape, value.data.copy())
    if info.type.quantized and not linear:
        # The embedding and norms are read element by element: decoded
        # here when NumPy can.
        return gguf.float_tensor(gguf_name)
    raise RLXError(f"'{gguf.path}': tensor '{gguf_name}' is {kind}, which "
                   "rlx.models does not read (f32, f16, bf16 and the GGUF "
                   "block types of rlx.dequant_matmul)")


def read_gguf_model(path):
    """(config dict, tensors by transformers' names, GGUFFile) of a GGUF
    model file. Tensors are float32 arrays or QuantizedTensors (linear
    weights kept packed); q and k rows are in transformers' order."""
    gguf = read_gguf(path)
    config = _config(gguf)
    permuted = ARCHITECTURES[config["model_type"]]
    weights = {}
    for gguf_name, hf_name in _GLOBAL_TENSORS.items():
        if gguf_name in gguf.tensors:
            weights[hf_name] = _weight(gguf, gguf_name,
                                       gguf_name == "output.weight")
    for layer in range(config["num_hidden_layers"]):
        for suffix, (hf_suffix, linear) in _LAYER_TENSORS.items():
            gguf_name = f"blk.{layer}.{suffix}"
            if gguf_name not in gguf.tensors:
                continue
            value = _weight(gguf, gguf_name, linear)
            if permuted and suffix.startswith(("attn_q.", "attn_k.")):
                # The converter permutes the biases of q and k as their
                # rows.
                heads = config["num_attention_heads"
                               if suffix.startswith("attn_q.")
                               else "num_key_value_heads"]
                value = _unpermuted(value, heads)
            weights[f"model.layers.{layer}.{hf_suffix}"] = value
    # A tensor the graph needs and the file lacks, by llama.cpp's name.
    gguf_names = {hf: g for g, hf in _GLOBAL_TENSORS.items()}
    for layer in range(config["num_hidden_layers"]):
        for suffix, (hf_suffix, _) in _LAYER_TENSORS.items():
            gguf_names[f"model.layers.{layer}.{hf_suffix}"] = \
                f"blk.{layer}.{suffix}"
    for name, shape in LlamaConfig.from_hf(config).weight_shapes().items():
        if name not in weights:
            raise RLXError(f"'{gguf.path}' has no tensor "
                           f"'{gguf_names[name]}' (GGUF dims "
                           f"{list(reversed(shape))})")
    return config, weights, gguf
