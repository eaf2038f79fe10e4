# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Llama-family and GPT-2 generation against NumPy references:
llm-models.py SCRATCH_DIR.

Three tiny random models are written as Hugging Face directories
(config.json and safetensors, transformers' tensor names): a Llama with
grouped-query attention (4 query heads, 2 KV heads) and an lm_head, a
Qwen2 with q/k/v biases, tied embeddings and its weights in two shards,
and a GPT-2 (GPT2LMHeadModel's names; also loaded from GPT2Model's
unprefixed names). The references (llm_reference.py) compute the whole
sequence in float64 without a cache. Checked: prefill logits and every decode step's logits within 1e-4
of the largest logit (f32 against f64), greedy generation of 64 tokens
identical to the reference's, a prefill in two chunks, a batch of two
sequences, seeded sampling, and clear errors. The weights are drawn with
scales that give logits a spread of several units, so greedy choices are
not near ties. Seeded by RLX_TEST_SEED (fixed when unset; printed)."""

import os
import sys

import numpy as np

import rlx
import rlx.models
from rlx.generation import GenerationStats, sample_next
from llm_reference import (GPT2, LLAMA, QWEN2, random_weights,
                           reference_greedy, reference_logits,
                           relative_error, write_hf_directory)
from pychecks import check, expect_error, finish

scratch = sys.argv[1]
seed = int(os.environ.get("RLX_TEST_SEED", "20240611"))
print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
rng = np.random.default_rng(seed)

PROMPT_LENGTH = 7
NEW_TOKENS = 64
CAPACITY = 80
TOLERANCE = 1e-4


def check_model(label, config, shards):
    weights = random_weights(config, rng)
    path = os.path.join(scratch, label)
    write_hf_directory(path, config, weights, shards)
    model = rlx.models.load(path, capacity=CAPACITY)
    vocab = config["vocab_size"]
    prompt = [int(t) for t in rng.integers(0, vocab, PROMPT_LENGTH)]
    want, margin = reference_greedy(config, weights, prompt, NEW_TOKENS)
    everything = prompt + want
    full = reference_logits(config, weights, everything)
    print(f"{label}: reference logits span [{full.min():.2f}, "
          f"{full.max():.2f}], smallest greedy margin {margin:.3g}")

    # Prefill, then decode steps fed the reference's tokens.
    cache = model.new_cache()
    got = model.step(cache, [prompt])
    error = relative_error(got[0], full[:PROMPT_LENGTH])
    check(got.shape == (1, PROMPT_LENGTH, vocab) and error <= TOLERANCE,
          f"{label} prefill logits {got.shape}: relative error {error:.3g}")
    worst = 0.0
    for index, token in enumerate(want[:-1]):
        step = model.step(cache, [[token]])
        worst = max(worst, relative_error(
            step[0, 0], full[PROMPT_LENGTH + index]))
    check(worst <= TOLERANCE, f"{label} {NEW_TOKENS - 1} decode steps' "
          f"logits: largest relative error {worst:.3g}")

    stats = GenerationStats()
    greedy = list(rlx.generate(model, prompt, NEW_TOKENS, stats=stats))
    matched = next((i for i, (a, b) in enumerate(zip(greedy, want))
                    if a != b), len(want))
    check(greedy == want, f"{label} greedy generation: {matched} of "
          f"{NEW_TOKENS} tokens match the reference's")
    prefill_rate, decode_rate = stats.rates()
    check(stats.generated_tokens == NEW_TOKENS and decode_rate > 0,
          f"{label} stats: {stats.generated_tokens} tokens "
          f"(prefill {prefill_rate:.0f} tok/s, decode {decode_rate:.0f} "
          "tok/s)")

    # A prompt given in two chunks: the second prefill attends to the first
    # one's keys in the cache.
    cache = model.new_cache()
    first = model.step(cache, [prompt[:4]])
    second = model.step(cache, [prompt[4:]])
    error = relative_error(np.concatenate([first, second], 1)[0],
                           full[:PROMPT_LENGTH])
    check(error <= TOLERANCE, f"{label} prefill in chunks of 4 and 3: "
          f"relative error {error:.3g}")

    # Two sequences in one batch: prefill and 8 decode steps.
    other = [int(t) for t in rng.integers(0, vocab, PROMPT_LENGTH)]
    other_tokens, _ = reference_greedy(config, weights, other, 8)
    other_full = reference_logits(config, weights, other + other_tokens)
    cache = model.new_cache(batch=2)
    logits = model.step(cache, [prompt, other])
    error = max(relative_error(logits[0], full[:PROMPT_LENGTH]),
                relative_error(logits[1], other_full[:PROMPT_LENGTH]))
    for index in range(8):
        logits = model.step(cache, [[want[index]], [other_tokens[index]]])
        position = PROMPT_LENGTH + index
        error = max(error,
                    relative_error(logits[0, 0], full[position]),
                    relative_error(logits[1, 0], other_full[position]))
    check(error <= TOLERANCE, f"{label} batch of 2, prefill and 8 decode "
          f"steps: largest relative error {error:.3g}")

    # Seeded sampling repeats itself; top_k=1 is greedy.
    def sampled(seed):
        return list(rlx.generate(model, prompt, 16, temperature=1.5,
                                 top_k=20, top_p=0.95, seed=seed,
                                 repetition_penalty=1.1))
    once, again, other_seed = sampled(1), sampled(1), sampled(2)
    check(once == again and once != other_seed,
          f"{label} seeded sampling: {once[:6]}... repeats with seed 1, "
          f"seed 2 gives {other_seed[:6]}...")
    top1 = list(rlx.generate(model, prompt, 16, temperature=1.0, top_k=1,
                             seed=3))
    check(top1 == want[:16], f"{label} top_k=1 sampling is greedy")

    # A full cache is an error, not a silent overwrite.
    cache = model.new_cache()
    model.step(cache, [prompt * 11])
    expect_error(lambda: model.step(cache, [prompt[:4]]),
                 "the KV cache holds 80 positions",
                 f"{label} a step past the cache's capacity")
    return model


check_model("llama", LLAMA, shards=1)
check_model("qwen2", QWEN2, shards=2)
gpt2 = check_model("gpt2", GPT2, shards=1)

# A GPT2Model checkpoint (no `transformer.` prefix) binds the same way.
weights = random_weights(GPT2, rng)
path = os.path.join(scratch, "gpt2-unprefixed")
write_hf_directory(path, GPT2, {k.removeprefix("transformer."): v
                                for k, v in weights.items()}, 1)
prompt = [int(t) for t in rng.integers(0, GPT2["vocab_size"], 5)]
got = rlx.models.load(path, capacity=16).step(
    rlx.models.load(path, capacity=16).new_cache(), [prompt])
error = relative_error(got[0], reference_logits(GPT2, weights, prompt))
check(error <= TOLERANCE, f"gpt2 from GPT2Model's tensor names: prefill "
      f"relative error {error:.3g}")

# sample_next by itself.
sampler = np.random.default_rng(0)
logits = np.array([1.0, 3.0, 2.9, -1.0])
check(sample_next(logits, [1], sampler, repetition_penalty=1.5) == 2,
      "a repetition penalty of 1.5 moves greedy from token 1 (3.0 -> 2.0) "
      "to token 2")
check(sample_next(logits, [], sampler, temperature=1.0, top_p=0.01) == 1,
      "top_p 0.01 keeps only the most likely token")
draws = [sample_next(logits, [], sampler, temperature=1.0, top_k=2)
         for _ in range(200)]
check(set(draws) == {1, 2}, f"top_k 2 draws tokens 1 and 2 only: "
      f"{sorted(set(draws))}")

# Configurations the family does not compute are errors naming the field.
expect_error(lambda: rlx.models.CausalLM.from_config(
    dict(LLAMA, rope_scaling={"type": "llama3", "factor": 8.0}), {}),
    "rope_scaling", "rope_scaling")
expect_error(lambda: rlx.models.CausalLM.from_config(
    dict(LLAMA, hidden_act="gelu"), {}), "hidden_act 'gelu'", "hidden_act")
expect_error(lambda: rlx.models.CausalLM.from_config(
    dict(LLAMA, model_type="falcon"), {}), "model_type 'falcon'",
    "an unknown model_type")
expect_error(lambda: rlx.models.CausalLM.from_config(
    LLAMA, {"model.embed_tokens.weight": np.zeros((97, 64), np.float32)}),
    "no tensor 'model.norm.weight'", "a checkpoint missing a tensor")
expect_error(lambda: rlx.models.CausalLM.from_config(
    dict(GPT2, activation_function="quick_gelu"), {}),
    "activation_function 'quick_gelu'", "gpt2 activation_function")
expect_error(lambda: rlx.models.CausalLM.from_config(
    dict(GPT2, scale_attn_by_inverse_layer_idx=True), {}),
    "scale_attn_by_inverse_layer_idx True", "gpt2 layer-scaled attention")
expect_error(lambda: rlx.models.CausalLM.from_config(
    GPT2, weights, capacity=129), "longer than the model's 128 position "
    "embeddings", "gpt2 cache past n_positions")
finish()
