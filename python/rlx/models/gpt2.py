# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The GPT-2 family: its configuration read from a Hugging Face
`config.json`, and its step graph (docs/llm.md).

Tensor names are those of transformers' GPT2LMHeadModel
(`transformer.h.0.attn.c_attn.weight`, ...); checkpoints saved from
GPT2Model (no `transformer.` prefix, as the original `gpt2` repository's)
bind too. GPT-2's projections are Conv1D modules: their weights are
`[in, out]`, multiplied as stored. The output head is the token embedding
(tied)."""

import dataclasses

from .._capi import RLXError
from ._decoder import DecoderConfig, DecoderStep

# config.json's activation_function -> the rlx.activation kind.
_ACTIVATIONS = {"gelu_new": "gelu_approx", "gelu_pytorch_tanh": "gelu_approx",
                "gelu_fast": "gelu_approx", "gelu": "gelu", "relu": "relu",
                "silu": "silu", "swish": "silu"}
# Settings GPT-2 checkpoints leave at transformers' defaults, which the
# graph computes; another value is refused.
_DEFAULTS = {"scale_attn_weights": True,
             "scale_attn_by_inverse_layer_idx": False,
             "reorder_and_upcast_attn": False, "add_cross_attention": False}


@dataclasses.dataclass(frozen=True)
class GPT2Config(DecoderConfig):
    """What the graph needs of a GPT-2 `config.json`."""
    layer_norm_eps: float
    max_position_embeddings: int
    activation: str

    @classmethod
    def from_hf(cls, config):
        """From the dict of a transformers `config.json`; a setting this
        implementation does not compute raises RLXError naming the field."""
        if config.get("model_type") != "gpt2":
            raise RLXError(f"config.json: model_type "
                           f"{config.get('model_type')!r} is not gpt2")

        def need(field):
            if field not in config:
                raise RLXError(f"config.json: '{field}' is missing")
            return config[field]

        act = config.get("activation_function", "gelu_new")
        if act not in _ACTIVATIONS:
            raise RLXError(f"config.json: activation_function {act!r} is not "
                           f"supported ({', '.join(sorted(_ACTIVATIONS))})")
        for field, default in _DEFAULTS.items():
            if config.get(field, default) != default:
                raise RLXError(f"config.json: {field} {config[field]!r} is "
                               f"not supported (only {default!r})")
        if config.get("tie_word_embeddings", True) is False:
            raise RLXError("config.json: tie_word_embeddings false is not "
                           "supported (GPT-2's head is its embedding)")
        hidden, heads = need("n_embd"), need("n_head")
        if hidden % heads:
            raise RLXError(f"config.json: n_embd {hidden} is not a multiple "
                           f"of n_head {heads}")
        return cls(model_type="gpt2", vocab_size=need("vocab_size"),
                   hidden_size=hidden,
                   intermediate_size=config.get("n_inner") or 4 * hidden,
                   num_hidden_layers=need("n_layer"),
                   num_attention_heads=heads, num_key_value_heads=heads,
                   head_dim=hidden // heads,
                   layer_norm_eps=float(config.get("layer_norm_epsilon",
                                                   1e-5)),
                   max_position_embeddings=need("n_positions"),
                   activation=_ACTIVATIONS[act])

    def weight_shapes(self):
        """Every tensor the graph reads from a checkpoint, name -> shape."""
        hidden, inner = self.hidden_size, self.intermediate_size
        shapes = {
            "transformer.wte.weight": (self.vocab_size, hidden),
            "transformer.wpe.weight": (self.max_position_embeddings, hidden),
            "transformer.ln_f.weight": (hidden,),
            "transformer.ln_f.bias": (hidden,)}
        for layer in range(self.num_hidden_layers):
            p = f"transformer.h.{layer}."
            for norm in ("ln_1", "ln_2"):
                shapes[p + norm + ".weight"] = (hidden,)
                shapes[p + norm + ".bias"] = (hidden,)
            for name, inp, out in (("attn.c_attn", hidden, 3 * hidden),
                                   ("attn.c_proj", hidden, hidden),
                                   ("mlp.c_fc", hidden, inner),
                                   ("mlp.c_proj", inner, hidden)):
                shapes[p + name + ".weight"] = (inp, out)
                shapes[p + name + ".bias"] = (out,)
        return shapes

    def checkpoint_names(self, tensors):
        """`tensors` under GPT2LMHeadModel's names: a GPT2Model checkpoint
        (no `transformer.` prefix) gets it."""
        if "transformer.wte.weight" in tensors or "wte.weight" not in tensors:
            return tensors
        return {"transformer." + name: array
                for name, array in tensors.items()}

    def derived_params(self, capacity):
        """Parameters the graph reads besides the checkpoint's: none."""
        return {}

    def check_capacity(self, capacity):
        if capacity > self.max_position_embeddings:
            raise RLXError(
                f"a cache of {capacity} positions is longer than the "
                f"model's {self.max_position_embeddings} position "
                "embeddings (n_positions)")


def step_graph(config, batch, tokens, capacity, packed=None, dtype="f32",
               greedy=False):
    """Module text of one step of the model over a fixed-capacity KV cache
    (docs/llm.md): the arguments and results of DecoderStep, and the
    checkpoint's tensors as parameters. `tokens` is the number of tokens
    each sequence gives the step: an int (1 for decode) or None for a `?`
    dim (prefill). Quantized weights (`packed`, see llama.step_graph) are
    not taken: GPT-2 is read from Hugging Face directories only. `dtype`
    and `greedy` as for llama.step_graph."""
    if packed:
        raise RLXError("the GPT-2 family takes float weights only; "
                       f"'{next(iter(packed))}' is quantized")
    c = config
    hidden, heads = c.hidden_size, c.num_attention_heads
    step = DecoderStep("gpt2_decode" if tokens == 1 else "gpt2_step", batch,
                       tokens, capacity, c.num_hidden_layers, heads, heads,
                       c.head_dim, dtype, greedy)
    g = step.g
    w = {name: g.param(name, shape, dtype)
         for name, shape in c.weight_shapes().items()}

    def conv1d(x, name):
        """GPT-2's Conv1D: x @ weight + bias, the weight `[in, out]`."""
        return g.binary("add", g.matmul(x, w[name + ".weight"]),
                        w[name + ".bias"])

    def norm(x, name):
        return g.layer_norm(x, w[name + ".weight"], w[name + ".bias"],
                            c.layer_norm_eps)

    x = g.binary("add", g.gather(w["transformer.wte.weight"], step.tokens),
                 g.gather(w["transformer.wpe.weight"], step.positions))
    new_caches = []
    for layer, (key_cache, value_cache) in enumerate(step.caches):
        p = f"transformer.h.{layer}."
        qkv = conv1d(norm(x, p + "ln_1"), p + "attn.c_attn")
        q, k, v = (step.heads_first(g.narrow(qkv, 2, i * hidden, hidden),
                                    heads) for i in range(3))
        key_cache = step.store(key_cache, k)
        value_cache = step.store(value_cache, v)
        new_caches += [key_cache, value_cache]
        a = step.heads_last(g.attention(q, key_cache, value_cache, step.bias))
        x = g.binary("add", x, conv1d(a, p + "attn.c_proj"))
        h = g.activation(c.activation,
                         conv1d(norm(x, p + "ln_2"), p + "mlp.c_fc"))
        x = g.binary("add", x, conv1d(h, p + "mlp.c_proj"))
    x = norm(x, "transformer.ln_f")
    return step.text(g.linear(x, w["transformer.wte.weight"]), new_caches)
