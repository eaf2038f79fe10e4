# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Tensor-parallel Llama steps under mpirun (docs/llm.md, "Tensor
parallelism"):

  llama-tensor-parallel.py "MPIRUN" RLX_RUN SCRATCH_DIR

Tiny random Llama-family models are written as Hugging Face directories
(and one as a GGUF file with Q4_0 layers), loaded with rlx.models.load,
and each rank of an `mpirun -np N` run computes its slice of the heads,
the MLP and the vocabulary (CausalLM.step_text / greedy_step with
`ranks=N`, its weights from write_weights(..., ranks=N)). Checked, in
f32:

- the logits of a prompt's step on rank 0 against the float64 reference
  (F32_RELATIVE of the largest logit) and against one process running
  the unsharded step (the partial sums of the o and down products are
  added in another order);
- the tokens of greedy generation (the prompt's step, then `--steps` of
  the one-token step, each rank's caches fed back to it): each a largest
  reference logit within F32_RELATIVE of the largest |logit|.

Seeded by RLX_TEST_SEED (drawn when unset; printed)."""

import os
import shlex
import subprocess
import sys

import numpy as np

import rlx.models
from rlx.safetensors import read_safetensors
from llm_reference import (LLAMA, QWEN2, random_weights, reference_logits,
                           relative_error, write_gguf_model,
                           write_hf_directory)
from pychecks import check, expect_error, finish

mpirun, rlx_run, scratch = shlex.split(sys.argv[1]), sys.argv[2], sys.argv[3]
seed = int(os.environ.get("RLX_TEST_SEED",
                          np.random.SeedSequence().entropy % 2**32))
print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
rng = np.random.default_rng(seed)

PROMPT_LENGTH, NEW_TOKENS, CAPACITY = 5, 12, 24
# f32 against float64 through two layers: a few ulps of the largest logit.
F32_RELATIVE = 1e-5


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout}"
                 f"{result.stderr}")
    return result


def state_flags(path, names, tensors=None):
    flags = []
    for index, name in enumerate(names):
        tensor = name if tensors is None else tensors[index]
        flags += ["--input", f"{name}={path}:{tensor}"]
    return flags


def argument_names(config):
    return ["tokens", "positions"] + [
        f"cache.{layer}.{kind}"
        for layer in range(config["num_hidden_layers"])
        for kind in ("key", "value")]


def prompt_logits(model, label, prompt, ranks):
    """The logits of the prompt's step, computed by `ranks` processes
    (1: one process, no mpirun), as rank 0 writes them."""
    base = os.path.join(scratch, f"{label}-logits-{ranks}")
    with open(base + ".mlir", "w") as file:
        file.write(model.step_text(len(prompt), ranks=ranks))
    weights = base + ("-weights.{rank}.safetensors" if ranks > 1
                      else "-weights.safetensors")
    model.write_weights(weights, ranks=ranks)
    model.write_greedy_state(base + "-state.safetensors", [prompt],
                             ranks=ranks)
    launch = mpirun + ["-np", str(ranks)] if ranks > 1 else []
    run(launch + [rlx_run, base + ".mlir", "--params", weights] +
        state_flags(base + "-state.safetensors",
                    argument_names(CONFIGS[label]))
        + ["--output", base + "-out.safetensors"])
    return read_safetensors(base + "-out.safetensors")["output_0"][0]


def greedy_tokens(model, label, prompt, ranks):
    """NEW_TOKENS tokens of greedy generation over `ranks` processes."""
    base = os.path.join(scratch, f"{label}-greedy-{ranks}")
    for name, count in (("prompt", len(prompt)), ("decode", 1)):
        with open(f"{base}-{name}.mlir", "w") as file:
            file.write(model.greedy_step(count, ranks=ranks))
    weights = base + "-weights.{rank}.safetensors"
    model.write_weights(weights, ranks=ranks)
    model.write_greedy_state(base + "-state.safetensors", [prompt],
                             ranks=ranks)
    names = argument_names(CONFIGS[label])
    launch = mpirun + ["-np", str(ranks)]
    after = base + "-after.{rank}.safetensors"
    run(launch + [rlx_run, base + "-prompt.mlir", "--params", weights] +
        state_flags(base + "-state.safetensors", names) +
        ["--output", after])
    first = int(read_safetensors(after.replace("{rank}", "0"))
                ["output_0"][0, 0])
    steps = run(launch + [rlx_run, base + "-decode.mlir", "--params",
                          weights] +
                state_flags(after, names,
                            [f"output_{i}" for i in range(len(names))]) +
                ["--steps", str(NEW_TOKENS - 1)])
    return [first] + [int(line.split()[-1]) for line in
                      steps.stdout.splitlines() if line.startswith("step ")]


def check_model(label, model, weights, ranks):
    config = CONFIGS[label]
    prompt = [int(t) for t in rng.integers(0, config["vocab_size"],
                                           PROMPT_LENGTH)]
    want = reference_logits(config, weights, prompt)
    got = prompt_logits(model, label, prompt, ranks)
    one = prompt_logits(model, label, prompt, 1)
    error, between = relative_error(got, want), relative_error(got, one)
    check(error <= F32_RELATIVE and between <= F32_RELATIVE,
          f"{label} on {ranks} ranks: the prompt's logits within "
          f"{error:.2g} of the float64 reference and {between:.2g} of one "
          f"process (allowed {F32_RELATIVE:g} of the largest logit)")

    tokens = greedy_tokens(model, label, prompt, ranks)
    logits = reference_logits(config, weights, prompt + tokens)
    chosen = logits[PROMPT_LENGTH - 1:PROMPT_LENGTH - 1 + NEW_TOKENS]
    gaps = chosen.max(-1) - chosen[np.arange(len(tokens)), tokens]
    allowed = F32_RELATIVE * float(np.abs(chosen).max())
    check(len(tokens) == NEW_TOKENS and gaps.max() <= allowed,
          f"{label} on {ranks} ranks: each of {NEW_TOKENS} greedy tokens a "
          f"largest reference logit within {gaps.max():.2g} (allowed "
          f"{allowed:.2g}); {int((gaps == 0).sum())} exactly the largest")


def with_attention_bias(config, weights):
    """Llama's attention_bias: q, k, v and o projections with biases."""
    weights = dict(weights)
    for name in list(weights):
        if name.endswith("_proj.weight") and "self_attn" in name:
            rows = weights[name].shape[0]
            weights[name.replace("weight", "bias")] = (
                0.5 * rng.standard_normal(rows)).astype(np.float32)
    return weights


CONFIGS = {
    # Grouped-query attention (4 heads, 2 kv heads), a bias on each
    # attention projection (the o bias is added once, after the sum).
    "llama": dict(LLAMA, vocab_size=96, intermediate_size=128,
                  attention_bias=True),
    # Qwen2's q, k, v biases, 6 heads over 1 kv head per rank, tied
    # embeddings: the head is each rank's rows of the embedding.
    "qwen2": dict(QWEN2, vocab_size=88),
    # The same Llama without biases, its linear layers Q4_0 in a GGUF
    # file: o's rank slice is one block of 32 per row, down's two.
    "llama-q4_0": dict(LLAMA, vocab_size=96, intermediate_size=128),
    # Four ranks, one kv head each.
    "llama-4": dict(LLAMA, vocab_size=96, intermediate_size=128,
                    num_key_value_heads=4),
}
RANKS = {"llama": 2, "qwen2": 2, "llama-q4_0": 2, "llama-4": 4}

for label, config in CONFIGS.items():
    weights = random_weights(config, rng)
    if config.get("attention_bias"):
        weights = with_attention_bias(config, weights)
    if label.endswith("q4_0"):
        path = os.path.join(scratch, label + ".gguf")
        weights = write_gguf_model(path, config, weights, "q4_0")
    else:
        path = os.path.join(scratch, label)
        write_hf_directory(path, config, weights, 1)
    model = rlx.models.load(path, capacity=CAPACITY)
    check_model(label, model, weights, RANKS[label])

# What the split cannot give each rank is refused before anything runs.
model = rlx.models.load(os.path.join(scratch, "llama"), capacity=CAPACITY)
expect_error(lambda: model.greedy_step(1, ranks=4),
             "num_key_value_heads 2 is not a multiple of 4",
             "4 ranks over 2 kv heads")
expect_error(lambda: model.write_weights(os.path.join(scratch, "w"),
                                         ranks=2),
             "has no {rank}", "one file for two ranks")
finish()
