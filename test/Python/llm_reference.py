# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""What the language model tests share: tiny Llama-family and GPT-2
configurations, random weights in transformers' names and layouts, a
Hugging Face directory writer, and float64 NumPy references of the
architectures that recompute the whole sequence without a cache (causal
attention; Llama: rotate_half rotary embeddings, RMSNorm, SwiGLU; GPT-2:
learned positions, LayerNorm, Conv1D projections, tanh GELU, tied head;
as transformers defines them)."""

import json
import os

import numpy as np

import rlx

LLAMA = dict(model_type="llama", vocab_size=97, hidden_size=64,
             intermediate_size=160, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2,
             max_position_embeddings=128, rope_theta=10000.0,
             rms_norm_eps=1e-5, hidden_act="silu",
             tie_word_embeddings=False)
QWEN2 = dict(LLAMA, model_type="qwen2", vocab_size=89, hidden_size=48,
             intermediate_size=96, num_hidden_layers=3,
             num_attention_heads=6, max_position_embeddings=256,
             rope_theta=1000000.0, rms_norm_eps=1e-6,
             tie_word_embeddings=True)


# GPT-2 with a 4x MLP; n_inner unset, as in the released checkpoints.
GPT2 = dict(model_type="gpt2", vocab_size=101, n_embd=64, n_layer=2,
            n_head=4, n_positions=128, layer_norm_epsilon=1e-5,
            activation_function="gelu_new")


def random_gpt2_weights(config, rng, prefix="transformer."):
    """GPT2LMHeadModel's tensors of `config` (with `prefix=""`, GPT2Model's
    names), drawn with `rng`."""
    hidden = config["n_embd"]

    def conv1d(inp, out):
        return rng.standard_normal((inp, out)) / np.sqrt(inp)

    w = {"wte.weight": 0.4 * rng.standard_normal((config["vocab_size"],
                                                  hidden)),
         "wpe.weight": 0.2 * rng.standard_normal((config["n_positions"],
                                                  hidden)),
         "ln_f.weight": 1.0 + 0.2 * rng.standard_normal(hidden),
         "ln_f.bias": 0.1 * rng.standard_normal(hidden)}
    for layer in range(config["n_layer"]):
        p = f"h.{layer}."
        for norm in ("ln_1", "ln_2"):
            w[p + norm + ".weight"] = 1.0 + 0.2 * rng.standard_normal(hidden)
            w[p + norm + ".bias"] = 0.1 * rng.standard_normal(hidden)
        attn = conv1d(hidden, 3 * hidden)
        # Larger q/k weights give attention patterns far from uniform.
        attn[:, :2 * hidden] *= 2
        w[p + "attn.c_attn.weight"] = attn
        w[p + "attn.c_proj.weight"] = conv1d(hidden, hidden)
        w[p + "mlp.c_fc.weight"] = conv1d(hidden, 4 * hidden)
        w[p + "mlp.c_proj.weight"] = conv1d(4 * hidden, hidden)
        for name, size in (("attn.c_attn", 3 * hidden),
                           ("attn.c_proj", hidden), ("mlp.c_fc", 4 * hidden),
                           ("mlp.c_proj", hidden)):
            w[p + name + ".bias"] = 0.2 * rng.standard_normal(size)
    return {prefix + k: v.astype(np.float32) for k, v in w.items()}


def random_weights(config, rng):
    """Checkpoint tensors of `config`, transformers' names and layouts,
    drawn with `rng`."""
    if config["model_type"] == "gpt2":
        return random_gpt2_weights(config, rng)
    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    dim = hidden // heads
    kv = config["num_key_value_heads"] * dim
    inner = config["intermediate_size"]

    def linear(out, inp):
        return rng.standard_normal((out, inp)) / np.sqrt(inp)

    def norm(size):
        return 1.0 + 0.2 * rng.standard_normal(size)

    # A tied embedding is the output head too: smaller, so that logits
    # keep a spread that sampling at temperature 1.5 does not collapse.
    embed_scale = 0.4 if config["tie_word_embeddings"] else 1.0
    w = {"model.embed_tokens.weight": embed_scale *
         rng.standard_normal((config["vocab_size"], hidden)),
         "model.norm.weight": norm(hidden)}
    if not config["tie_word_embeddings"]:
        w["lm_head.weight"] = 3 * linear(config["vocab_size"], hidden)
    for layer in range(config["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        w[p + "input_layernorm.weight"] = norm(hidden)
        w[p + "post_attention_layernorm.weight"] = norm(hidden)
        # Larger q/k weights give attention patterns far from uniform.
        w[p + "self_attn.q_proj.weight"] = 2 * linear(heads * dim, hidden)
        w[p + "self_attn.k_proj.weight"] = 2 * linear(kv, hidden)
        w[p + "self_attn.v_proj.weight"] = linear(kv, hidden)
        w[p + "self_attn.o_proj.weight"] = linear(hidden, heads * dim)
        w[p + "mlp.gate_proj.weight"] = linear(inner, hidden)
        w[p + "mlp.up_proj.weight"] = linear(inner, hidden)
        w[p + "mlp.down_proj.weight"] = linear(hidden, inner)
        if config["model_type"] == "qwen2":
            w[p + "self_attn.q_proj.bias"] = 0.5 * rng.standard_normal(
                heads * dim)
            w[p + "self_attn.k_proj.bias"] = 0.5 * rng.standard_normal(kv)
            w[p + "self_attn.v_proj.bias"] = 0.5 * rng.standard_normal(kv)
    return {k: v.astype(np.float32) for k, v in w.items()}


def write_hf_directory(path, config, weights, shards):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "config.json"), "w") as file:
        json.dump(config, file)
    names = sorted(weights)
    for index in range(shards):
        part = {n: weights[n] for n in names[index::shards]}
        rlx.write_safetensors(os.path.join(
            path, f"model-{index + 1:05d}-of-{shards:05d}.safetensors"), part)


def relative_error(got, want):
    """The largest difference of two logit arrays over the largest
    reference logit."""
    return float(np.max(np.abs(got - want)) / np.max(np.abs(want)))


def _causal_attention(q, k, v):
    """Softmax attention of q, k, v [S, heads, dim] with each query seeing
    the keys up to its own position, scaled by 1 / sqrt(dim)."""
    count, dim = q.shape[0], q.shape[2]
    s = np.einsum("qhd,khd->hqk", q, k) / np.sqrt(dim)
    s[:, np.triu(np.ones((count, count), bool), 1)] = -np.inf
    e = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("hqk,khd->qhd", e / e.sum(-1, keepdims=True), v)


def reference_gpt2_logits(config, w, tokens):
    """[len(tokens), vocab] logits of GPT-2 over the whole sequence in
    float64."""
    w = {k.removeprefix("transformer."): v.astype(np.float64)
         for k, v in w.items()}
    hidden, heads = config["n_embd"], config["n_head"]
    dim, count = hidden // heads, len(tokens)
    eps = config["layer_norm_epsilon"]

    def norm(x, name):
        centered = x - x.mean(-1, keepdims=True)
        variance = (centered * centered).mean(-1, keepdims=True)
        return (centered / np.sqrt(variance + eps) * w[name + ".weight"]
                + w[name + ".bias"])

    def conv1d(x, name):
        return x @ w[name + ".weight"] + w[name + ".bias"]

    def gelu_tanh(x):
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) *
                                      (x + 0.044715 * x ** 3)))

    x = w["wte.weight"][tokens] + w["wpe.weight"][np.arange(count)]
    for layer in range(config["n_layer"]):
        p = f"h.{layer}."
        qkv = conv1d(norm(x, p + "ln_1"), p + "attn.c_attn")
        q, k, v = (qkv[:, i * hidden:(i + 1) * hidden].reshape(
            count, heads, dim) for i in range(3))
        a = _causal_attention(q, k, v).reshape(count, hidden)
        x = x + conv1d(a, p + "attn.c_proj")
        x = x + conv1d(gelu_tanh(conv1d(norm(x, p + "ln_2"), p + "mlp.c_fc")),
                       p + "mlp.c_proj")
    return norm(x, "ln_f") @ w["wte.weight"].T


def reference_logits(config, w, tokens):
    """[len(tokens), vocab] logits of the whole sequence in float64."""
    if config["model_type"] == "gpt2":
        return reference_gpt2_logits(config, w, tokens)
    w = {k: v.astype(np.float64) for k, v in w.items()}
    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    kv_heads = config["num_key_value_heads"]
    dim, half = hidden // heads, hidden // heads // 2
    eps = config["rms_norm_eps"]
    count = len(tokens)
    inv_freq = config["rope_theta"] ** (-np.arange(0, dim, 2) / dim)
    angles = np.arange(count)[:, None] * inv_freq
    cos, sin = np.cos(angles)[:, None, :], np.sin(angles)[:, None, :]

    def rotate(t):  # [S, n, dim]: transformers' rotate_half form.
        a, b = t[..., :half], t[..., half:]
        return np.concatenate([a * cos - b * sin, b * cos + a * sin], -1)

    def rms(x, gamma):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * gamma

    def proj(x, name):
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if name + ".bias" in w else y

    x = w["model.embed_tokens.weight"][tokens]
    for layer in range(config["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        h = rms(x, w[p + "input_layernorm.weight"])
        q = rotate(proj(h, p + "self_attn.q_proj").reshape(count, heads, dim))
        k = rotate(proj(h, p + "self_attn.k_proj").reshape(count, kv_heads,
                                                           dim))
        v = proj(h, p + "self_attn.v_proj").reshape(count, kv_heads, dim)
        a = _causal_attention(q, np.repeat(k, heads // kv_heads, axis=1),
                              np.repeat(v, heads // kv_heads, axis=1))
        x = x + proj(a.reshape(count, heads * dim), p + "self_attn.o_proj")
        h = rms(x, w[p + "post_attention_layernorm.weight"])
        gate = proj(h, p + "mlp.gate_proj")
        x = x + proj(gate / (1 + np.exp(-gate)) * proj(h, p + "mlp.up_proj"),
                     p + "mlp.down_proj")
    x = rms(x, w["model.norm.weight"])
    head = w.get("lm_head.weight", w["model.embed_tokens.weight"])
    return x @ head.T


def reference_greedy(config, w, prompt, count):
    """The `count` tokens greedy decoding of the reference appends to
    `prompt`, and the smallest gap between the two largest logits met on
    the way (how far the choices are from ties)."""
    tokens, margins = list(prompt), []
    for _ in range(count):
        last = reference_logits(config, w, tokens)[-1]
        top2 = np.sort(last)[-2:]
        margins.append(top2[1] - top2[0])
        tokens.append(int(np.argmax(last)))
    return tokens[len(prompt):], min(margins)


# GGUF files of the Llama family, as llama.cpp's convert_hf_to_gguf.py
# writes them.

_GGUF_LAYER_NAMES = {
    "input_layernorm.weight": "attn_norm.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.o_proj.weight": "attn_output.weight",
    "self_attn.q_proj.bias": "attn_q.bias",
    "self_attn.k_proj.bias": "attn_k.bias",
    "self_attn.v_proj.bias": "attn_v.bias",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}
_GGUF_GLOBAL_NAMES = {"model.embed_tokens.weight": "token_embd.weight",
                      "model.norm.weight": "output_norm.weight",
                      "lm_head.weight": "output.weight"}


def gguf_name(name):
    """llama.cpp's name of a transformers Llama tensor name."""
    if name in _GGUF_GLOBAL_NAMES:
        return _GGUF_GLOBAL_NAMES[name]
    _, _, layer, rest = name.split(".", 3)
    return f"blk.{layer}.{_GGUF_LAYER_NAMES[rest]}"


def llama_cpp_permute(w, heads):
    """convert_hf_to_gguf.py's LlamaModel.permute: the rows of each head
    from transformers' rotate_half order to ggml's interleaved one."""
    return (w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def gguf_metadata(config):
    """The llama.cpp metadata of a Llama-family config."""
    arch = config["model_type"]
    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    return {
        "general.architecture": arch,
        "general.name": "rlx-test",
        f"{arch}.block_count": ("u32", config["num_hidden_layers"]),
        f"{arch}.context_length": ("u32",
                                   config["max_position_embeddings"]),
        f"{arch}.embedding_length": ("u32", hidden),
        f"{arch}.feed_forward_length": ("u32", config["intermediate_size"]),
        f"{arch}.attention.head_count": ("u32", heads),
        f"{arch}.attention.head_count_kv": ("u32",
                                            config["num_key_value_heads"]),
        f"{arch}.rope.freq_base": ("f32", config["rope_theta"]),
        f"{arch}.rope.dimension_count": ("u32", hidden // heads),
        f"{arch}.attention.layer_norm_rms_epsilon": ("f32",
                                                     config["rms_norm_eps"]),
    }


def write_gguf_model(path, config, weights, linear_type=None, head_type=None,
                     metadata=None):
    """Writes the model as a GGUF file, llama.cpp's names, metadata and q/k
    permutation (llama only), plus `metadata`. `linear_type` ("q8_0",
    "q4_0") quantizes the layers' linear weights, `head_type` the output
    head; a QuantizedTensor in `weights` is written as it is. Returns the
    weights the file holds, dequantized, by transformers' names: what the
    reference computes with."""
    from rlx.gguf import QuantizedTensor, dequantize, quantize, write_gguf
    permute = config["model_type"] == "llama"
    tensors, effective = {}, {}
    for name, value in weights.items():
        kind = head_type if name == "lm_head.weight" else (
            linear_type if name.endswith("proj.weight") else None)
        if kind is not None and not isinstance(value, QuantizedTensor):
            value = quantize(value, kind)
        if isinstance(value, QuantizedTensor) and value.type.name == "bf16":
            # Raw bf16 bits: the top halves of f32 values.
            effective[name] = (value.data.view(np.uint16).astype(np.uint32)
                               << 16).view(np.float32).reshape(value.shape)
        elif isinstance(value, QuantizedTensor):
            effective[name] = dequantize(value)
        else:
            effective[name] = np.asarray(value, np.float32)
        if permute and ("q_proj" in name or "k_proj" in name):
            heads = config["num_attention_heads" if "q_proj" in name
                           else "num_key_value_heads"]
            if isinstance(value, QuantizedTensor):
                rows = llama_cpp_permute(value.row_view(), heads)
                value = QuantizedTensor(value.type, value.shape,
                                        rows.reshape(-1))
            else:
                value = llama_cpp_permute(value, heads)
        tensors[gguf_name(name)] = value
    meta = gguf_metadata(config)
    meta.update(metadata or {})
    write_gguf(path, meta, tensors)
    return effective


def write_demo_models(hf_dir, gguf_paths):
    """The models the examples of docs/llm.md load: a tiny random Llama with
    a 32000-token vocabulary (so that their token ids exist) as a Hugging
    Face folder and as Q4_0 GGUF files with a SentencePiece vocabulary in
    their metadata (byte pieces, so that any text encodes)."""
    from rlx.tokenizers._base import BYTE, CONTROL, NORMAL, UNKNOWN
    config = dict(LLAMA, vocab_size=32000)
    weights = random_weights(config, np.random.default_rng(0))
    write_hf_directory(hf_dir, config, weights, shards=1)
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    kinds = [UNKNOWN, CONTROL, CONTROL] + [BYTE] * 256
    tokens += [f"\u2581w{i}" for i in range(32000 - len(tokens))]
    kinds += [NORMAL] * (32000 - len(kinds))
    vocabulary = {
        "tokenizer.ggml.model": "llama",
        "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.scores": [-float(i) for i in range(len(tokens))],
        "tokenizer.ggml.token_type": kinds,
        "tokenizer.ggml.bos_token_id": ("u32", 1),
        "tokenizer.ggml.eos_token_id": ("u32", 2),
        "tokenizer.ggml.unknown_token_id": ("u32", 0)}
    for path in gguf_paths:
        write_gguf_model(path, config, weights, "q4_0", metadata=vocabulary)


if __name__ == "__main__":
    # llm_reference.py HF_DIR GGUF...: write_demo_models (docs/llm.md's
    # snippets run on these).
    import sys
    write_demo_models(sys.argv[1], sys.argv[2:])
