# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""What the step graphs of the decoder families share: the inputs of a
step over a fixed-capacity KV cache, the causal mask of its queries, the
writing of its keys and values into the cache, and the head layouts
(docs/llm.md)."""

import dataclasses

import numpy as np

from .._capi import RLXError
from ._ir import GraphText

_NEG_INF = float("-inf")


@dataclasses.dataclass(frozen=True)
class DecoderConfig:
    """What every family's config gives: the sizes the KV cache and
    CausalLM read, under transformers' Llama names."""
    model_type: str
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int


class DecoderStep:
    """A step graph being built: inputs `tokens` and `positions`
    `[batch, tokens]` i64 (each token's position in its sequence, below
    `capacity`), then `cache.L.key` and `cache.L.value`
    `[batch, kv_heads, capacity, head_dim]` per layer L (`caches`, a list of
    pairs), in `dtype` (the activations' and weights' float type). `bias`
    hides from each query the keys after its position,
    `[batch, heads, tokens, capacity]`; `store` writes the step's keys or
    values into a cache.

    `greedy` builds the step that `rlx-run --steps` repeats to generate
    greedily on the device: tokens, positions and caches are `rlx.param`
    arguments, and the results are the token chosen after each sequence's
    last one (first, the value --steps prints), the position that token
    takes and the caches, each marked as the argument it becomes in the
    next step. A greedy step of several tokens (a static count) is the
    prefill whose results start the one-token steps.

    `ranks` > 1: the step of one rank of a tensor-parallel mesh, whose
    `heads` and `kv_heads` are its own and whose logits are its slice of
    the vocabulary, gathered from every rank by `text`."""

    def __init__(self, name, batch, tokens, capacity, layers, heads,
                 kv_heads, head_dim, dtype="f32", greedy=False, ranks=1):
        if greedy and not isinstance(tokens, int):
            raise RLXError("a greedy step takes a static number of tokens "
                           "per sequence")
        self.g = g = GraphText(name)
        self.batch, self.capacity = batch, capacity
        self.heads, self.head_dim = heads, head_dim
        self.dtype, self.greedy, self.ranks = dtype, greedy, ranks
        argument = g.param if greedy else g.input
        self.tokens = argument("tokens", (batch, tokens), "i64")
        self.positions = argument("positions", (batch, tokens), "i64")
        cache_shape = (batch, kv_heads, capacity, head_dim)
        self.caches = [(argument(f"cache.{i}.key", cache_shape, dtype),
                        argument(f"cache.{i}.value", cache_shape, dtype))
                       for i in range(layers)]

        # Key j is visible to a query iff j <= its position.
        key_index = g.constant(np.arange(capacity), "i64")
        visible = g.compare("le", key_index,
                            g.reshape(self.positions, (batch, 1, -1, 1)))
        self.bias = g.expand(
            g.where(visible, g.constant(0.0, dtype),
                    g.constant(_NEG_INF, dtype)),
            (batch, heads, -1, capacity))
        # scatter[b, 0, j, t] = 1 where token t of sequence b goes to slot
        # j: a matmul by it places the step's keys at their slots (exactly:
        # one product of 1 per slot, the others 0), and `written` says
        # which slots take them.
        lands = g.compare("eq", g.reshape(key_index, (capacity, 1)),
                          g.reshape(self.positions, (batch, 1, -1)))
        self._scatter = g.reshape(g.cast(lands, dtype),
                                  (batch, 1, capacity, -1))
        written = g.compare("gt", g.reduce("max", self._scatter, [3]),
                            g.constant(0.5, dtype))
        self._written = g.reshape(written, (batch, 1, capacity, 1))

    def store(self, cache, new):
        """`cache` with `new` `[batch, kv_heads, tokens, head_dim]` written
        at the step's positions."""
        g = self.g
        if self.tokens.shape[1] == 1:
            # One token: its row, broadcast over the slots, is what the
            # written slot takes; no product needed.
            return g.where(self._written, new, cache)
        return g.where(self._written, g.matmul(self._scatter, new), cache)

    def heads_first(self, x, count):
        """[B, S, count * D] -> [B, count, S, D]."""
        x = self.g.reshape(x, (self.batch, -1, count, self.head_dim))
        return self.g.transpose(x, [0, 2, 1, 3])

    def heads_last(self, a):
        """[B, heads, S, D] -> [B, S, heads * D]."""
        return self.g.reshape(self.g.transpose(a, [0, 2, 1, 3]),
                              (self.batch, -1, self.heads * self.head_dim))

    def text(self, logits, new_caches):
        """The module: results the logits `[batch, tokens, vocab]`, then
        each cache with the step's keys and values, in argument order. A
        greedy step returns instead the chosen tokens `[batch, 1]` (the
        first largest logit, as numpy.argmax and `sample_next` at
        temperature 0), the next positions, then the caches."""
        g = self.g
        if not self.greedy:
            if self.ranks > 1:
                logits = g.all_gather(logits, 2, self.ranks)
            return g.text([logits] + new_caches)
        count, vocab = logits.shape[-2:]
        scores = g.reshape(g.narrow(logits, 1, count - 1, 1),
                           (self.batch, vocab))
        if self.ranks > 1:
            # Only the last token's scores travel.
            scores = g.all_gather(scores, 1, self.ranks)
            vocab = scores.shape[1]
        if scores.dtype != "f32":
            scores = g.cast(scores, "f32")
        top = g.reshape(g.reduce("max", scores, [1]), (self.batch, 1))
        # The smallest index holding the maximum: others count as `vocab`.
        candidates = g.where(g.compare("eq", scores, top),
                             g.constant(np.arange(vocab), "i64"),
                             g.constant(vocab, "i64"))
        chosen = g.reshape(g.reduce("min", candidates, [1]),
                           (self.batch, 1))
        following = g.binary("add",
                             g.narrow(self.positions, 1, count - 1, 1),
                             g.constant(1, "i64"))
        names = ["tokens", "positions"] + [
            f"cache.{i // 2}.{'key' if i % 2 == 0 else 'value'}"
            for i in range(len(new_caches))]
        return g.text([chosen, following] + new_caches, names)
