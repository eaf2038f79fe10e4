# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Greedy generation as rlx-run steps (docs/llm.md, "Greedy decoding on the
device"): llm-greedy-steps.py SCRATCH_DIR RLX_RUN.

A tiny random Llama (grouped-query attention) and GPT-2 are written as
Hugging Face directories; CausalLM.greedy_step gives the prompt's step and
the one-token step, write_weights and write_greedy_state their
parameters, and `rlx-run --steps` generates: the prompt's step writes the
first token, the positions and the caches (--output FILE.safetensors), and
the one-token step, fed them, prints each next token. Checked: every
chosen token is a largest logit of the float64 reference run on the same
tokens, within F32_GAP of the largest |logit| in f32 (so the tokens are the
reference's greedy ones but at a tie closer than f32 rounding) and within
BF16_GAP in bf16 (weights, activations and caches; the reference's weights
rounded to bf16 as the run's are). Also a GGUF Llama with Q4_0 layers and
head in a bf16 step. Seeded by RLX_TEST_SEED (fixed when unset; printed)."""

import os
import subprocess
import sys

import numpy as np

import rlx.models
from rlx.safetensors import f32_to_bf16, bf16_to_f32, read_safetensors
from llm_reference import (GPT2, LLAMA, random_weights, reference_logits,
                           write_gguf_model, write_hf_directory)
from pychecks import check, expect_error, finish

scratch, rlx_run = sys.argv[1], sys.argv[2]
seed = int(os.environ.get("RLX_TEST_SEED", "20261129"))
print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
rng = np.random.default_rng(seed)

PROMPT_LENGTH, NEW_TOKENS, CAPACITY = 6, 32, 48
# bf16 keeps 8 bits of mantissa: logits of a few units come out within a
# few hundredths of the exact ones after a couple of layers.
BF16_GAP = 0.25
F32_GAP = 1e-5


def run(arguments):
    result = subprocess.run([rlx_run] + arguments, capture_output=True,
                            text=True)
    if result.returncode != 0:
        sys.exit(f"rlx-run {' '.join(arguments)} failed:\n{result.stderr}")
    return result


def greedy_tokens(model, label, prompt, dtype):
    """The NEW_TOKENS tokens rlx-run's greedy steps generate."""
    base = os.path.join(scratch, f"{label}-{dtype}")
    for name, count in (("prompt", len(prompt)), ("decode", 1)):
        with open(f"{base}-{name}.mlir", "w") as file:
            file.write(model.greedy_step(count, dtype=dtype))
    model.write_weights(base + "-weights.safetensors", dtype)
    model.write_greedy_state(base + "-state.safetensors", [prompt], dtype)
    names = ["tokens", "positions"] + [
        f"cache.{layer}.{kind}"
        for layer in range(model.config.num_hidden_layers)
        for kind in ("key", "value")]
    params = ["--params", base + "-weights.safetensors"]
    inputs = []
    for name in names:
        inputs += ["--input", f"{name}={base}-state.safetensors:{name}"]
    run([base + "-prompt.mlir"] + params + inputs +
        ["--output", base + "-after.safetensors"])
    first = int(read_safetensors(base + "-after.safetensors")["output_0"][0, 0])
    inputs = []
    for index, name in enumerate(names):
        inputs += ["--input",
                   f"{name}={base}-after.safetensors:output_{index}"]
    steps = run([base + "-decode.mlir"] + params + inputs +
                ["--steps", str(NEW_TOKENS - 1)])
    return [first] + [int(line.split()[-1]) for line in
                      steps.stdout.splitlines() if line.startswith("step ")]


def check_model(label, config):
    weights = random_weights(config, rng)
    path = os.path.join(scratch, label)
    write_hf_directory(path, config, weights, 1)
    model = rlx.models.load(path, capacity=CAPACITY)
    prompt = [int(t) for t in rng.integers(0, config["vocab_size"],
                                           PROMPT_LENGTH)]

    # The f32 run is held to f32 rounding: a token other than the
    # reference's only at a tie closer than F32_GAP.
    for dtype in ("f32", "bf16"):
        got = greedy_tokens(model, label, prompt, dtype)
        used = weights if dtype == "f32" else {
            k: bf16_to_f32(f32_to_bf16(v)) for k, v in weights.items()}
        check_tokens(f"{label} {dtype}", config, used, prompt, got,
                     dtype == "f32")
    return model


def check_tokens(label, config, weights, prompt, got, f32):
    """Each token of `got` is a largest logit of the float64 reference with
    `weights` on the same tokens, within F32_GAP of the largest |logit|
    (`f32`) or BF16_GAP."""
    logits = reference_logits(config, weights, prompt + got)
    chosen = logits[PROMPT_LENGTH - 1:PROMPT_LENGTH - 1 + NEW_TOKENS]
    gaps = chosen.max(-1) - chosen[np.arange(len(got)), got]
    allowed = F32_GAP * float(np.abs(chosen).max()) if f32 else BF16_GAP
    check(len(got) == NEW_TOKENS and gaps.max() <= allowed,
          f"{label}: each of {NEW_TOKENS} tokens rlx-run's "
          f"steps chose is a largest reference logit within "
          f"{gaps.max():.3g} (allowed {allowed:.3g}; logits span "
          f"{float(chosen.max() - chosen.min()):.3g}); "
          f"{int((gaps == 0).sum())} exactly the largest")


llama = check_model("llama", LLAMA)
check_model("gpt2", GPT2)

# A GGUF Llama whose linear layers and head are Q4_0, in a bf16 step: the
# packed blocks (q, k and v stacked as one weight, gate and up too) are
# multiplied in f32 between casts of the bf16 activations. The reference
# takes the file's decoded weights, the float ones rounded to bf16 as the
# run's are.
path = os.path.join(scratch, "llama-q4_0.gguf")
effective = write_gguf_model(path, LLAMA, random_weights(LLAMA, rng),
                             "q4_0", "q4_0")
quantized = rlx.models.load(path, capacity=CAPACITY)
prompt = [int(t) for t in rng.integers(0, LLAMA["vocab_size"],
                                       PROMPT_LENGTH)]
used = {k: v if k.endswith("proj.weight") or k == "lm_head.weight"
        else bf16_to_f32(f32_to_bf16(v)) for k, v in effective.items()}
check_tokens("llama q4_0 bf16", LLAMA, used, prompt,
             greedy_tokens(quantized, "llama-q4_0", prompt, "bf16"), False)

expect_error(lambda: llama.greedy_step(None),
             "a greedy step takes a static number of tokens",
             "a greedy step of a dynamic token count")
expect_error(lambda: llama.write_weights(os.path.join(scratch, "x"), "f64"),
             "dtype 'f64' is not f32, bf16 or f16", "an unknown dtype")
finish()
