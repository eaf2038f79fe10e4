# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Text generation over a decoder-only model (docs/llm.md): the key/value
cache of a batch of sequences, the sampling of the next token, and
`generate`, which yields the new tokens of one prompt.

    model = rlx.models.load("path/to/hf-model-dir")   # or "model.gguf"
    for token in rlx.generate(model, [1, 15043, 29892], 32, seed=0):
        print(token)
    for text in rlx.generation.generate_text(model, "Once upon a", 32):
        print(text, end="", flush=True)
"""

import dataclasses
import time

import numpy as np

from ._capi import RLXError

__all__ = ["KVCache", "GenerationStats", "sample_next", "generate",
           "generate_text", "encode_prompt"]


class KVCache:
    """The keys and values of `batch` sequences: per layer one array
    `[batch, kv_heads, capacity, head_dim]` each for keys and values, the
    slot of position p being p, and each sequence's length (the next
    token's position). Allocated whole at the start: a step never grows
    it."""

    def __init__(self, layers, batch, kv_heads, capacity, head_dim):
        shape = (batch, kv_heads, capacity, head_dim)
        # Zeros, not garbage: the attention weights of the slots a query
        # does not see are 0, and 0 * NaN would still be NaN.
        self.arrays = [np.zeros(shape, np.float32)
                       for _ in range(2 * layers)]
        self.lengths = np.zeros(batch, np.int64)
        self.capacity = capacity

    @property
    def batch(self):
        return len(self.lengths)

    def positions(self, count):
        """`[batch, count]` positions of the next `count` tokens of each
        sequence; an error if one would not fit."""
        if int(self.lengths.max()) + count > self.capacity:
            raise RLXError(
                f"the KV cache holds {self.capacity} positions; "
                f"{int(self.lengths.max())} are used and the step adds "
                f"{count}")
        return self.lengths[:, None] + np.arange(count, dtype=np.int64)


@dataclasses.dataclass
class GenerationStats:
    """What a `generate` call measured: prompt and generated token counts
    and the seconds the prefill and the decode steps took."""
    prompt_tokens: int = 0
    generated_tokens: int = 0
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0

    def rates(self):
        """(prefill, decode) tokens per second; decode counts the tokens
        of decode steps (every generated token but the first, which the
        prefill's logits give)."""
        decoded = max(0, self.generated_tokens - 1)
        return (self.prompt_tokens / self.prefill_seconds
                if self.prefill_seconds else float("nan"),
                decoded / self.decode_seconds
                if self.decode_seconds else float("nan"))


def sample_next(logits, history, rng, temperature=0.0, top_k=0, top_p=1.0,
                repetition_penalty=1.0):
    """The next token from `logits` [vocab]: transformers' order of
    processing — repetition penalty over the tokens of `history` (a
    positive logit divided by it, a negative one multiplied), then greedy
    (temperature 0: the first largest logit) or sampling at `temperature`
    from the `top_k` largest logits (0: all) and of those the smallest set
    whose probability reaches `top_p`, drawn with `rng`."""
    logits = np.asarray(logits, dtype=np.float64).copy()
    if repetition_penalty != 1.0 and len(history):
        seen = np.unique(np.asarray(history, dtype=np.int64))
        picked = logits[seen]
        logits[seen] = np.where(picked > 0, picked / repetition_penalty,
                                picked * repetition_penalty)
    if temperature == 0:
        return int(np.argmax(logits))
    if temperature < 0:
        raise RLXError(f"temperature {temperature} is negative")
    logits /= temperature
    if 0 < top_k < len(logits):
        kth = np.partition(logits, -top_k)[-top_k]
        logits[logits < kth] = -np.inf
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    if top_p < 1.0:
        order = np.argsort(-probs, kind="stable")
        before = np.cumsum(probs[order]) - probs[order]
        # Keep each token whose more likely ones sum to less than top_p:
        # the first is always kept.
        dropped = order[before >= top_p]
        probs[dropped] = 0.0
        probs /= probs.sum()
    return int(rng.choice(len(probs), p=probs))


def encode_prompt(model, prompt):
    """The token ids of `prompt`: a list of ids as it is, text encoded by
    the model's tokenizer (BOS first when the vocabulary adds it)."""
    if isinstance(prompt, str):
        if getattr(model, "tokenizer", None) is None:
            raise RLXError("a text prompt needs a tokenizer, and the model "
                           "has none (give token ids)")
        return model.tokenizer.encode(prompt)
    return [int(t) for t in prompt]


def generate(model, prompt_ids, max_new_tokens, temperature=0.0, top_k=0,
             top_p=1.0, repetition_penalty=1.0, seed=0, eos_token_id=None,
             stats=None):
    """Yields up to `max_new_tokens` token ids continuing `prompt_ids` (a
    list of ints, or text that the model's tokenizer encodes), stopping
    after `eos_token_id` (an int or a set of them). `model` is a model of
    rlx.models; sampling as `sample_next`, seeded by `seed`. Timings go
    into `stats` (a GenerationStats) when given; they leave out compiling
    the graphs, which happens first."""
    prompt = encode_prompt(model, prompt_ids)
    if not prompt:
        raise RLXError("generate needs a prompt of at least one token")
    stops = ({eos_token_id} if isinstance(eos_token_id, int)
             else set(eos_token_id or ()))
    stats = stats if stats is not None else GenerationStats()
    stats.prompt_tokens = len(prompt)
    rng = np.random.default_rng(seed)
    model.prepare(batch=1, prompt_length=len(prompt))
    cache = model.new_cache(batch=1)
    history = list(prompt)

    start = time.perf_counter()
    logits = model.step(cache, np.asarray([prompt], np.int64))[0, -1]
    stats.prefill_seconds = time.perf_counter() - start
    for index in range(max_new_tokens):
        token = sample_next(logits, history, rng, temperature, top_k, top_p,
                            repetition_penalty)
        history.append(token)
        stats.generated_tokens += 1
        yield token
        if token in stops or index + 1 == max_new_tokens:
            return
        start = time.perf_counter()
        logits = model.step(cache, np.asarray([[token]], np.int64))[0, -1]
        stats.decode_seconds += time.perf_counter() - start


def generate_text(model, prompt, max_new_tokens, eos_token_id="model",
                  **options):
    """Yields the text of the tokens `generate` gives, piece by piece as
    they complete whole UTF-8 characters (a character split across tokens
    comes with its last token), through the model's tokenizer. Stops
    after the tokenizer's EOS token unless `eos_token_id` says otherwise
    (None: never). Other keywords as `generate`."""
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None:
        raise RLXError("generate_text needs the model's tokenizer, and the "
                       "model has none")
    if eos_token_id == "model":
        eos_token_id = tokenizer.eos_id
    stream = tokenizer.stream()
    for token in generate(model, prompt, max_new_tokens,
                          eos_token_id=eos_token_id, **options):
        text = stream.push(token)
        if text:
            yield text
    rest = stream.flush()
    if rest:
        yield rest
