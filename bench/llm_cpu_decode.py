#!/usr/bin/env python3
# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Greedy decoding of a 100M-parameter Llama on the CPU: rlx.models from
GGUF files with f32, Q8_0 and Q4_0 linear layers and output head, beside
PyTorch f32 on the same (dequantized) weights, and the memory bandwidth of
a copy measured in the same run (docs/perf/llm.md).

  PYTHONPATH=build/python python3 bench/llm_cpu_decode.py [--new N]

The model: hidden 768, 12 layers, 12 heads of 64, 4 KV heads, FFN 2048,
vocabulary 32000, an output head of its own (1.0e8 parameters); random
weights (test/Python/llm_reference.py). An 8-token prompt, then N new
tokens (default 32). rlx: `CausalLM.step` of one token per step, the
median step; the weight bytes a step reads are the linear layers' and the
head's as stored (Q8_0 34 bytes per 32 weights, Q4_0 18) plus one row of
the embedding. PyTorch: the same model with a KV cache written with
torch ops, f32, the median step, in a fresh process for 1 and for 2
threads (the faster reported). Copy: numpy copying 256 MiB, bytes read
and written per second (median of 9).
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "Python"))
import llm_reference  # noqa: E402

# The test suite's Llama (its own output head), scaled up.
CONFIG = dict(llm_reference.LLAMA, vocab_size=32000, hidden_size=768,
              intermediate_size=2048, num_hidden_layers=12,
              num_attention_heads=12, num_key_value_heads=4,
              max_position_embeddings=2048)
PROMPT, CAPACITY, SEED = 8, 128, 0
# Bytes per weight as GGUF stores each type.
BYTES_PER_WEIGHT = {None: 4.0, "q8_0": 34 / 32, "q4_0": 18 / 32}


def copy_bandwidth():
    a = np.ones(1 << 25, np.float64)
    b = np.empty_like(a)
    times = []
    for _ in range(9):
        start = time.perf_counter()
        np.copyto(b, a)
        times.append(time.perf_counter() - start)
    return 2 * a.nbytes / float(np.median(times))


def step_bytes(kind):
    """Weight bytes one decode step reads."""
    c = CONFIG
    hidden, inner = c["hidden_size"], c["intermediate_size"]
    kv = c["num_key_value_heads"] * hidden // c["num_attention_heads"]
    per_layer = hidden * (2 * hidden + 2 * kv) + 3 * hidden * inner
    linear = c["num_hidden_layers"] * per_layer + c["vocab_size"] * hidden
    return linear * BYTES_PER_WEIGHT[kind] + 4 * hidden * (
        2 * c["num_hidden_layers"] + 2)


def rlx_decode(path, prompt, new_tokens):
    """rlx's greedy tokens and median decode step (seconds)."""
    import rlx.models
    model = rlx.models.load(path, capacity=CAPACITY)
    model.prepare(1, len(prompt))
    cache = model.new_cache(1)
    logits = model.step(cache, [prompt])
    tokens = [int(np.argmax(logits[0, -1]))]
    times = []
    for _ in range(new_tokens - 1):
        start = time.perf_counter()
        logits = model.step(cache, [[tokens[-1]]])
        times.append(time.perf_counter() - start)
        tokens.append(int(np.argmax(logits[0, -1])))
    return tokens, float(np.median(times))


def torch_worker(weights_path, threads, prompt, new_tokens):
    """PyTorch f32 greedy decoding with a KV cache: prints the tokens and
    the median decode step as JSON."""
    import torch
    torch.set_num_threads(threads)
    c = CONFIG
    w = {k: torch.from_numpy(v) for k, v in np.load(weights_path).items()}
    heads, kv_heads = c["num_attention_heads"], c["num_key_value_heads"]
    dim = c["hidden_size"] // heads
    inv = c["rope_theta"] ** (-torch.arange(0, dim, 2, dtype=torch.float64)
                              / dim)
    angles = torch.arange(CAPACITY, dtype=torch.float64)[:, None] * inv
    cos = torch.cat([angles.cos()] * 2, -1).float()
    sin = torch.cat([angles.sin()] * 2, -1).float()

    def rms(x, gamma):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True)
                               + c["rms_norm_eps"]) * gamma

    def rotate(x, pos):  # x [n, S, dim]
        half = torch.cat([-x[..., dim // 2:], x[..., :dim // 2]], -1)
        return x * cos[pos] + half * sin[pos]

    caches = [[None, None] for _ in range(c["num_hidden_layers"])]

    def forward(ids, start):
        pos = torch.arange(start, start + len(ids))
        x = w["model.embed_tokens.weight"][torch.tensor(ids)]
        for layer in range(c["num_hidden_layers"]):
            p = f"model.layers.{layer}."
            h = rms(x, w[p + "input_layernorm.weight"])
            q = (h @ w[p + "self_attn.q_proj.weight"].T).view(
                -1, heads, dim).transpose(0, 1)
            k = (h @ w[p + "self_attn.k_proj.weight"].T).view(
                -1, kv_heads, dim).transpose(0, 1)
            v = (h @ w[p + "self_attn.v_proj.weight"].T).view(
                -1, kv_heads, dim).transpose(0, 1)
            q, k = rotate(q, pos), rotate(k, pos)
            cache = caches[layer]
            cache[0] = k if cache[0] is None else torch.cat([cache[0], k], 1)
            cache[1] = v if cache[1] is None else torch.cat([cache[1], v], 1)
            keys = cache[0].repeat_interleave(heads // kv_heads, 0)
            values = cache[1].repeat_interleave(heads // kv_heads, 0)
            a = torch.nn.functional.scaled_dot_product_attention(
                q, keys, values, is_causal=len(ids) > 1) if hasattr(
                torch.nn.functional, "scaled_dot_product_attention") else \
                torch.softmax(q @ keys.transpose(1, 2) / dim ** 0.5
                              + torch.triu(torch.full(
                                  (len(ids), keys.shape[1]), float("-inf")),
                                  keys.shape[1] - len(ids) + 1), -1) @ values
            x = x + a.transpose(0, 1).reshape(len(ids), -1) @ \
                w[p + "self_attn.o_proj.weight"].T
            h = rms(x, w[p + "post_attention_layernorm.weight"])
            gate = torch.nn.functional.silu(h @ w[p + "mlp.gate_proj.weight"].T)
            x = x + (gate * (h @ w[p + "mlp.up_proj.weight"].T)) @ \
                w[p + "mlp.down_proj.weight"].T
        x = rms(x, w["model.norm.weight"])
        return x[-1] @ w["lm_head.weight"].T

    times = []
    with torch.no_grad():
        tokens = [int(forward(prompt, 0).argmax())]
        for step in range(new_tokens - 1):
            start = time.perf_counter()
            logits = forward([tokens[-1]], len(prompt) + step)
            times.append(time.perf_counter() - start)
            tokens.append(int(logits.argmax()))
    print(json.dumps({"tokens": tokens, "step": float(np.median(times))}))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--torch-worker":
        torch_worker(sys.argv[2], int(sys.argv[3]),
                     json.loads(sys.argv[4]), int(sys.argv[5]))
        return
    new_tokens = 32
    if "--new" in sys.argv:
        new_tokens = int(sys.argv[sys.argv.index("--new") + 1])
    rng = np.random.default_rng(SEED)
    weights = llm_reference.random_weights(CONFIG, rng)
    prompt = rng.integers(3, CONFIG["vocab_size"], PROMPT).tolist()
    bandwidth = copy_bandwidth()
    print(f"copy: {bandwidth / 1e9:.1f} GB/s (read + written); "
          f"{sum(v.size for v in weights.values()) / 1e6:.0f} M parameters",
          flush=True)
    scratch = tempfile.mkdtemp()
    for kind in (None, "q8_0", "q4_0"):
        path = os.path.join(scratch, f"model-{kind or 'f32'}.gguf")
        effective = llm_reference.write_gguf_model(
            path, CONFIG, weights, linear_type=kind, head_type=kind)
        tokens, step = rlx_decode(path, prompt, new_tokens)
        rate = step_bytes(kind) / step
        line = (f"rlx {kind or 'f32'}: {step * 1e3:.2f} ms per token, "
                f"{1 / step:.1f} tokens/s, weights read at {rate / 1e9:.2f} "
                f"GB/s = {rate / bandwidth:.0%} of the copy")
        npz = os.path.join(scratch, "weights.npz")
        np.savez(npz, **effective)
        best = None
        for threads in (1, 2):
            run = subprocess.run(
                [sys.executable, __file__, "--torch-worker", npz,
                 str(threads), json.dumps(prompt), str(new_tokens)],
                capture_output=True, text=True, check=True)
            result = json.loads(run.stdout.splitlines()[-1])
            if best is None or result["step"] < best[0]:
                best = (result["step"], threads, result["tokens"])
        same = 0
        for a, b in zip(tokens, best[2]):
            if a != b:
                break
            same += 1
        line += (f"; PyTorch f32 on its weights {best[0] * 1e3:.2f} ms "
                 f"({best[1]} thread{'s' if best[1] > 1 else ''}): rlx "
                 f"{best[0] / step:.2f}x; first {same} of {new_tokens} "
                 "tokens equal")
        print(line, flush=True)


if __name__ == "__main__":
    main()
