# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The Llama family (Llama, Mistral, Qwen2): its configuration read from a
Hugging Face `config.json`, and its step graph (docs/llm.md).

Tensor names are those transformers writes (`model.layers.0.self_attn.
q_proj.weight`, ...), in its layouts (linear weights `[out, in]`), so a
checkpoint's tensors bind to the graph by name."""

import dataclasses

import numpy as np

from .._capi import RLXError
from ._decoder import DecoderConfig, DecoderStep
from ._parallel import COLUMNS, ROWS, WHOLE, check_divides, rank_slice


@dataclasses.dataclass(frozen=True)
class LlamaConfig(DecoderConfig):
    """What the graph needs of a Llama-family `config.json`."""
    rms_norm_eps: float
    rope_theta: float
    max_position_embeddings: int
    tie_word_embeddings: bool
    # q, k and v projections with a bias (Qwen2; Llama's attention_bias).
    qkv_bias: bool
    # o_proj with a bias (Llama's attention_bias only).
    o_bias: bool
    # Mistral attends to the last `sliding_window` keys only; None: all.
    sliding_window: int = None

    @classmethod
    def from_hf(cls, config):
        """From the dict of a transformers `config.json`; a setting this
        implementation does not compute raises RLXError naming the field."""
        model_type = config.get("model_type")
        if model_type not in ("llama", "mistral", "qwen2"):
            raise RLXError(f"config.json: model_type {model_type!r} is not "
                           "a Llama-family model (llama, mistral, qwen2)")

        def need(field):
            if field not in config:
                raise RLXError(f"config.json: '{field}' is missing")
            return config[field]

        act = config.get("hidden_act", "silu")
        if act != "silu":
            raise RLXError(f"config.json: hidden_act {act!r} is not "
                           "supported (silu only)")
        if config.get("rope_scaling"):
            raise RLXError("config.json: rope_scaling "
                           f"{config['rope_scaling']!r} is not supported yet")
        if config.get("mlp_bias"):
            raise RLXError("config.json: mlp_bias true is not supported")
        heads = need("num_attention_heads")
        hidden = need("hidden_size")
        kv_heads = config.get("num_key_value_heads") or heads
        if heads % kv_heads:
            raise RLXError(f"config.json: num_attention_heads {heads} is not "
                           f"a multiple of num_key_value_heads {kv_heads}")
        head_dim = config.get("head_dim") or hidden // heads
        if head_dim % 2:
            raise RLXError(f"config.json: head_dim {head_dim} is odd; rotary "
                           "embeddings rotate pairs")
        attention_bias = bool(config.get("attention_bias", False))
        window = None
        if model_type == "mistral" or config.get("use_sliding_window"):
            window = config.get("sliding_window")
        return cls(
            model_type=model_type,
            vocab_size=need("vocab_size"),
            hidden_size=hidden,
            intermediate_size=need("intermediate_size"),
            num_hidden_layers=need("num_hidden_layers"),
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            head_dim=head_dim,
            rms_norm_eps=float(config.get("rms_norm_eps", 1e-6)),
            rope_theta=float(config.get("rope_theta", 10000.0)),
            max_position_embeddings=need("max_position_embeddings"),
            # transformers' default for these three model types.
            tie_word_embeddings=bool(config.get("tie_word_embeddings",
                                                False)),
            qkv_bias=model_type == "qwen2" or attention_bias,
            o_bias=attention_bias,
            sliding_window=window)

    def weight_shapes(self, ranks=1):
        """Every tensor the graph reads from a checkpoint, name -> shape;
        for `ranks` > 1 the shapes of one rank's slices (`split`), and the
        head is `lm_head.weight` even where tied: the rank's rows of the
        embedding."""
        self.check_ranks(ranks)
        hidden, dim = self.hidden_size, self.head_dim
        q_out = self.num_attention_heads * dim // ranks
        kv_out = self.num_key_value_heads * dim // ranks
        inner = self.intermediate_size // ranks
        shapes = {"model.embed_tokens.weight": (self.vocab_size, hidden),
                  "model.norm.weight": (hidden,)}
        if not self.tie_word_embeddings or ranks > 1:
            shapes["lm_head.weight"] = (self.vocab_size // ranks, hidden)
        for layer in range(self.num_hidden_layers):
            p = f"model.layers.{layer}."
            shapes.update({
                p + "input_layernorm.weight": (hidden,),
                p + "post_attention_layernorm.weight": (hidden,),
                p + "self_attn.q_proj.weight": (q_out, hidden),
                p + "self_attn.k_proj.weight": (kv_out, hidden),
                p + "self_attn.v_proj.weight": (kv_out, hidden),
                p + "self_attn.o_proj.weight": (hidden, q_out),
                p + "mlp.gate_proj.weight": (inner, hidden),
                p + "mlp.up_proj.weight": (inner, hidden),
                p + "mlp.down_proj.weight": (hidden, inner),
            })
            if self.qkv_bias:
                shapes.update({p + "self_attn.q_proj.bias": (q_out,),
                               p + "self_attn.k_proj.bias": (kv_out,),
                               p + "self_attn.v_proj.bias": (kv_out,)})
            if self.o_bias:
                shapes[p + "self_attn.o_proj.bias"] = (hidden,)
        return shapes

    def check_ranks(self, ranks):
        """Raises RLXError unless Megatron-LM's split over `ranks` ranks
        gives each rank whole heads, whole kv heads and equal slices of
        the MLP and the vocabulary."""
        if ranks < 1:
            raise RLXError(f"tensor parallelism over {ranks} ranks: want "
                           "at least 1")
        for what, size in (("num_attention_heads",
                            self.num_attention_heads),
                           ("num_key_value_heads",
                            self.num_key_value_heads),
                           ("intermediate_size", self.intermediate_size),
                           ("vocab_size", self.vocab_size)):
            check_divides(what, size, ranks)

    def splits(self):
        """How tensor parallelism splits each tensor of
        weight_shapes(ranks) (_parallel.py): the q, k, v, gate and up
        projections and the head (a tied one too) by their rows, o and down
        by their columns; norms, the embedding and o's bias whole."""
        splits = {"lm_head.weight": ROWS}
        for name in self.weight_shapes():
            if name.endswith(("q_proj.weight", "k_proj.weight",
                              "v_proj.weight", "q_proj.bias", "k_proj.bias",
                              "v_proj.bias", "gate_proj.weight",
                              "up_proj.weight")):
                splits[name] = ROWS
            elif name.endswith(("o_proj.weight", "down_proj.weight")):
                splits[name] = COLUMNS
            elif name != "lm_head.weight":
                splits[name] = WHOLE
        return splits

    def rank_weights(self, weights, rank, ranks):
        """Rank `rank`'s slices of the checkpoint tensors `weights`
        (name -> array or QuantizedTensor) over `ranks` ranks: the
        tensors of weight_shapes(ranks). A tied head becomes the rank's
        rows of the embedding."""
        self.check_ranks(ranks)
        if ranks == 1:
            return dict(weights)
        splits = self.splits()
        weights = dict(weights)
        weights.setdefault("lm_head.weight",
                           weights["model.embed_tokens.weight"])
        return {name: rank_slice(name, value, splits[name], rank, ranks)
                for name, value in weights.items()}

    def fused_projections(self, packed=()):
        """Graph parameters that stack checkpoint tensors along their rows,
        name -> the stacked names: per layer the q, k and v projections
        (`self_attn.qkv_proj`, weight and bias) and the gate and up
        projections (`mlp.gate_up_proj`), so that each is one product (a
        decode step reads each weight in one kernel instead of three or
        two, as vLLM's QKVParallelLinear and MergedColumnParallelLinear
        do). `packed` maps the names of GGUF-packed weights to their
        (scheme, byte count): a group whose weights are all packed in one
        scheme is fused too (GGUF rows are quantized independently, so the
        stacked bytes are the stacked matrix's), and a group with some
        packed and some float weights, or two schemes, stays apart."""
        fused = {}
        for layer in range(self.num_hidden_layers):
            p = f"model.layers.{layer}."
            groups = [("self_attn.qkv_proj",
                       ["self_attn.q_proj", "self_attn.k_proj",
                        "self_attn.v_proj"], self.qkv_bias),
                      ("mlp.gate_up_proj", ["mlp.gate_proj", "mlp.up_proj"],
                       False)]
            for name, parts, bias in groups:
                schemes = {packed[p + part + ".weight"][0]
                           if p + part + ".weight" in packed else None
                           for part in parts}
                if len(schemes) > 1:
                    continue
                fused[p + name + ".weight"] = [p + part + ".weight"
                                               for part in parts]
                if bias:
                    fused[p + name + ".bias"] = [p + part + ".bias"
                                                 for part in parts]
        return fused

    def graph_shapes(self, packed=(), ranks=1):
        """The step graph's checkpoint parameters, name -> shape:
        weight_shapes(ranks) with each fused_projections group stacked."""
        shapes = self.weight_shapes(ranks)
        for name, parts in self.fused_projections(packed).items():
            rows = sum(shapes[part][0] for part in parts)
            shapes[name] = (rows,) + shapes[parts[0]][1:]
            for part in parts:
                del shapes[part]
        return shapes

    def derived_params(self, capacity):
        """Parameters the graph reads besides the checkpoint's: the rotary
        tables."""
        cos, sin = self.rope_tables(capacity)
        return {"rope.cos": cos, "rope.sin": sin}

    def rope_tables(self, capacity):
        """cos and sin `[capacity, head_dim / 2]` of position * inv_freq
        (transformers' rotate_half pairing, which is rlx.rope's), computed
        in f64 and rounded once."""
        half = self.head_dim // 2
        inv_freq = self.rope_theta ** (-np.arange(half, dtype=np.float64)
                                       * 2 / self.head_dim)
        angles = np.arange(capacity, dtype=np.float64)[:, None] * inv_freq
        return (np.cos(angles).astype(np.float32),
                np.sin(angles).astype(np.float32))

    def check_capacity(self, capacity):
        if self.sliding_window is not None and capacity > self.sliding_window:
            raise RLXError(
                f"a cache of {capacity} positions is longer than the "
                f"model's sliding_window {self.sliding_window}, which the "
                "attention mask does not apply yet")


def step_graph(config, batch, tokens, capacity, packed=None, dtype="f32",
               greedy=False, ranks=1):
    """Module text of one step of the model over a fixed-capacity KV cache
    (docs/llm.md). `tokens` is the number of tokens each sequence gives the
    step: an int (1 for decode) or None for a `?` dim (prefill).

    Arguments: inputs `tokens` and `positions` `[batch, tokens]` i64 (each
    token's position in its sequence, below `capacity`), `cache.L.key` and
    `cache.L.value` `[batch, kv_heads, capacity, head_dim]` per layer L;
    parameters the checkpoint's tensors and `rope.cos`, `rope.sin`
    (LlamaConfig.rope_tables). Results: logits `[batch, tokens, vocab]`,
    then each cache with the step's keys and values written at their
    positions, in the order of the arguments.

    `packed` maps the name of a linear weight kept GGUF-quantized to its
    (scheme, byte count): that parameter is its ui8 bytes, multiplied by
    rlx.dequant_matmul in f32 (the activations cast to f32 and the product
    back to `dtype`).

    `dtype` ("f32", "bf16" or "f16") is the type of the weights, the rotary
    tables, the activations, the caches and the logits, as a model run in
    `model.to(dtype)`; `greedy` builds the step DecoderStep describes,
    which chooses the next token on the device.

    `ranks` > 1 builds the program of each rank of a tensor-parallel mesh
    `[ranks]` (Megatron-LM's split, docs/llm.md): its parameters are the
    rank's slices (LlamaConfig.rank_weights; `packed` gives their byte
    counts), its caches hold its `kv_heads / ranks` heads, the o and down
    products are all-reduced, and the head's slices of the vocabulary are
    gathered, so every rank returns the whole logits (or the same
    token)."""
    packed = packed or {}
    c = config
    c.check_ranks(ranks)
    heads, kv_heads, dim = (c.num_attention_heads // ranks,
                            c.num_key_value_heads // ranks, c.head_dim)
    group = heads // kv_heads
    step = DecoderStep("llama_decode" if tokens == 1 else "llama_step",
                       batch, tokens, capacity, c.num_hidden_layers, heads,
                       kv_heads, dim, dtype, greedy, ranks)
    g = step.g
    shapes = c.graph_shapes(packed, ranks)
    weights = {name: (g.param(name, (packed[name][1],), "ui8")
                      if name in packed else g.param(name, shape, dtype))
               for name, shape in shapes.items()}
    cos_table = g.param("rope.cos", (capacity, dim // 2), dtype)
    sin_table = g.param("rope.sin", (capacity, dim // 2), dtype)
    q_out, kv_out = heads * dim, kv_heads * dim

    # The rotary angles of each token.
    flat_positions = g.reshape(step.positions, (-1,))
    cos = g.gather(cos_table, flat_positions)
    sin = g.gather(sin_table, flat_positions)

    # rlx.rms_norm adds a shift; Llama's has none.
    beta = g.constant(0.0, dtype, shape=(c.hidden_size,))

    def linear(x, name, bias_too):
        weight = name + ".weight"
        bias = weights[name + ".bias"] if bias_too else None
        if weight in packed:
            return g.quantized_linear(x, weights[weight], packed[weight][0],
                                      shapes[weight], bias)
        return g.linear(x, weights[weight], bias)

    def rotated(x, count):
        """[B, S, count * D], each head rotated."""
        x = g.rope(g.reshape(x, (-1, count * dim)), cos, sin, dim, dim)
        return g.reshape(x, (batch, -1, count * dim))

    def projections(h, p):
        """The step's queries [B, heads, S, D] and keys and values
        [B, kv_heads, S, D]: one product and one rotation of the queries
        and keys together where the projections are fused."""
        if p + "self_attn.qkv_proj.weight" in shapes:
            qkv = linear(h, p + "self_attn.qkv_proj", c.qkv_bias)
            qk = rotated(g.narrow(qkv, 2, 0, q_out + kv_out),
                         heads + kv_heads)
            q, k = g.narrow(qk, 2, 0, q_out), g.narrow(qk, 2, q_out, kv_out)
            v = g.narrow(qkv, 2, q_out + kv_out, kv_out)
        else:
            q = rotated(linear(h, p + "self_attn.q_proj", c.qkv_bias),
                        heads)
            k = rotated(linear(h, p + "self_attn.k_proj", c.qkv_bias),
                        kv_heads)
            v = linear(h, p + "self_attn.v_proj", c.qkv_bias)
        return (step.heads_first(q, heads), step.heads_first(k, kv_heads),
                step.heads_first(v, kv_heads))

    def gated(h, p):
        """silu(gate_proj(h)) * up_proj(h)."""
        if p + "mlp.gate_up_proj.weight" in shapes:
            both = linear(h, p + "mlp.gate_up_proj", False)
            size = c.intermediate_size // ranks
            gate, up = g.narrow(both, 2, 0, size), g.narrow(both, 2, size,
                                                            size)
        else:
            gate = linear(h, p + "mlp.gate_proj", False)
            up = linear(h, p + "mlp.up_proj", False)
        return g.binary("mul", g.activation("silu", gate), up)

    def row_parallel(x, name, bias_too):
        """A linear layer whose input features are split over the ranks:
        the partial products summed over them, then the bias."""
        if ranks == 1:
            return linear(x, name, bias_too)
        y = g.all_reduce("sum", linear(x, name, False), ranks)
        return g.binary("add", y, weights[name + ".bias"]) if bias_too \
            else y

    def repeat_heads(x):
        """[B, kv_heads, C, D] -> [B, heads, C, D]: query head h reads kv
        head h // group (transformers' repeat_kv)."""
        if group == 1:
            return x
        x = g.reshape(x, (batch, kv_heads, 1, capacity, dim))
        x = g.expand(x, (batch, kv_heads, group, capacity, dim))
        return g.reshape(x, (batch, heads, capacity, dim))

    x = g.gather(weights["model.embed_tokens.weight"], step.tokens)
    new_caches = []
    for layer, (key_cache, value_cache) in enumerate(step.caches):
        p = f"model.layers.{layer}."
        h = g.rms_norm(x, weights[p + "input_layernorm.weight"], beta,
                       c.rms_norm_eps)
        q, k, v = projections(h, p)
        key_cache = step.store(key_cache, k)
        value_cache = step.store(value_cache, v)
        new_caches += [key_cache, value_cache]
        a = step.heads_last(g.attention(q, repeat_heads(key_cache),
                                        repeat_heads(value_cache), step.bias))
        x = g.binary("add", x, row_parallel(a, p + "self_attn.o_proj",
                                            c.o_bias))
        h = g.rms_norm(x, weights[p + "post_attention_layernorm.weight"],
                       beta, c.rms_norm_eps)
        x = g.binary("add", x, row_parallel(gated(h, p), p + "mlp.down_proj",
                                            False))
    x = g.rms_norm(x, weights["model.norm.weight"], beta, c.rms_norm_eps)
    if c.tie_word_embeddings and ranks == 1:
        logits = g.linear(x, weights["model.embed_tokens.weight"])
    else:
        logits = linear(x, "lm_head", False)
    return step.text(logits, new_caches)
