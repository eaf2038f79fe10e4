"""Greedy decoding of a Llama-3.2-1B-shaped model in bf16 on one GPU: rlx's
device-resident decode steps (`rlx-run-aot --steps` over the greedy step of
rlx.models, docs/llm.md) beside transformers' `generate` on the same random
weights (docs/perf/llm.md).

  python3 bench/llm_decode.py emit OUT RLX_RUN
      here (LLVM/MLIR, no GPU): builds the greedy prefill step (PROMPT
      tokens) and the greedy decode step (one token) of the model over a
      KV cache of CAPACITY positions in bf16, for each batch of BATCHES,
      and compiles them for the cuda target into OUT, beside the model's
      config and rotary tables.
  python3 bench/llm_decode.py emit OUT RLX_RUN --quant q4_0,q8_0
      the same for the model with its linear layers and head in GGUF
      blocks of each scheme (batch 1; the head is the embedding quantized,
      as llama.cpp multiplies a tied model's), as decode-q4_0.so and so on.
  python3 bench/llm_decode.py emit OUT RLX_RUN --ranks N [--quant ...]
      the steps of each rank of an N-GPU tensor-parallel run of the model
      (batch 1; rlx.models' Megatron-LM split, docs/llm.md), as
      decode-tpN.so (decode-q4_0-tpN.so), instead of the one-GPU steps.
  python3 bench/llm_decode.py run OUT RLX_RUN_AOT [--new N] [--rlx-only]
                                   [--batched] [--profile] [--kernels]
                                   [--quant q4_0,q8_0] [--ranks N]
      on the GPU machine: draws the weights (seeded) into a transformers
      LlamaForCausalLM in bf16 and writes them for rlx; runs rlx's prefill
      once (timed by --bench), then N - 1 decode steps with the cache, the
      weights and each chosen token kept on the GPU; then transformers'
      greedy `generate` of the same N tokens from the same prompt (eager
      with its dynamic cache; its static cache; the static cache under
      torch.compile), and transformers in f32 on the same weights as the
      reference for the tokens. Prints the tokens per second, the weight
      bytes read per token against the device copy bandwidth measured in
      the same run, and how many of the first generated tokens each bf16
      run shares with the f32 reference. --rlx-only: rlx's runs only;
      --batched: then batches of 8 and 32 sequences, rlx's decode steps
      beside transformers' batched generate with its static cache;
      --profile: then the time per op of the decode step compiled with
      rlx-run --profile as OUT/decode-prof.so; --kernels: then each
      kernel's own time in one decode step of each model run (Nsight
      Compute, ncu), against the replayed step's; --quant: then the
      quantized models emitted (rlx.gguf.quantize of the same weights),
      their tokens against transformers' f32 run on the decoded weights;
      --ranks N: then each model (bf16 and --quant's) decoded by N GPUs
      in tensor parallel (`rlx-run-aot --ranks N`, each rank's weights
      sliced here), its rate against the one-GPU run's and its tokens
      against it.

The model: hidden 2048, 16 layers, 32 heads of 64, 8 KV heads, FFN 8192,
vocabulary 128256, tied embeddings, rope_theta 500000 (1.24e9 parameters,
2.47 GB in bf16). Weights: linear layers N(0, 1/fan_in), embeddings
N(0, 0.1^2), norms 1 + N(0, 0.1^2), so that the logits spread over several
units and greedy choices are rarely near ties.
"""

import json
import os
import re
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "Execution", "lib"))
from rlxcheck import write_safetensors  # noqa: E402

CONFIG = dict(model_type="llama", vocab_size=128256, hidden_size=2048,
              intermediate_size=8192, num_hidden_layers=16,
              num_attention_heads=32, num_key_value_heads=8, head_dim=64,
              max_position_embeddings=131072, rope_theta=500000.0,
              rms_norm_eps=1e-5, hidden_act="silu", tie_word_embeddings=True,
              bos_token_id=1, eos_token_id=2)
PROMPT, CAPACITY, SEED = 32, 256, 0
# Sequences decoded together: one (the tokens checked against transformers'),
# then batches timed beside transformers' batched generate (--batched).
BATCHES = (1, 8, 32)


def quantized_config():
    """The quantized models' config: the head a weight of its own (the
    embedding quantized), which the graph multiplies packed."""
    return dict(CONFIG, tie_word_embeddings=False)


def packed_weights(config, scheme, ranks=1):
    """Graph parameter -> (rlx scheme, bytes) of the model with every
    linear weight and the head in GGUF `scheme` blocks (32 elements), the
    stacked projections (config.fused_projections) as one; of each rank's
    slices for `ranks` > 1."""
    block_bytes = {"q4_0": 18, "q8_0": 34}[scheme]
    packed = {name: ("gguf_" + scheme,
                     int(np.prod(shape)) // 32 * block_bytes)
              for name, shape in config.weight_shapes(ranks).items()
              if name.endswith("proj.weight") or name == "lm_head.weight"}
    for name, parts in config.fused_projections(packed).items():
        packed[name] = ("gguf_" + scheme,
                        sum(packed.pop(part)[1] for part in parts))
    return packed


def emit_quantized(out, rlx_run, schemes, ranks=1):
    from rlx.models import llama
    config = llama.LlamaConfig.from_hf(quantized_config())
    for scheme in schemes:
        packed = packed_weights(config, scheme, ranks)
        for name, tokens in (("prefill", PROMPT), ("decode", 1)):
            start = time.time()
            path = os.path.join(out, f"{name}-{scheme}{rank_suffix(ranks)}")
            with open(path + ".mlir", "w") as file:
                file.write(llama.step_graph(config, 1, tokens, CAPACITY,
                                            packed, dtype="bf16",
                                            greedy=True, ranks=ranks))
            subprocess.run([rlx_run, path + ".mlir", "--target", "cuda",
                            "--no-cache", "--emit-shared-lib", path + ".so"],
                           check=True, stdout=subprocess.DEVNULL)
            print(f"compiled the {scheme} {name} step in "
                  f"{time.time() - start:.1f} s")


def emit(out, rlx_run, schemes=(), ranks=1):
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    from rlx.models import llama
    os.makedirs(out, exist_ok=True)
    if schemes:
        emit_quantized(out, rlx_run, schemes, ranks)
        return
    config = llama.LlamaConfig.from_hf(CONFIG)
    with open(os.path.join(out, "config.json"), "w") as file:
        json.dump(CONFIG, file)
    cos, sin = config.rope_tables(CAPACITY)
    np.savez(os.path.join(out, "rope.npz"), cos=cos, sin=sin)
    # The checkpoint tensors the graphs take stacked (the q, k and v
    # projections, gate and up), for write_rlx_files on the GPU machine.
    with open(os.path.join(out, "fused.json"), "w") as file:
        json.dump(config.fused_projections(), file)
    for batch in BATCHES if ranks == 1 else (1,):
        for name, tokens in (("prefill", PROMPT), ("decode", 1)):
            start = time.time()
            path = os.path.join(out, name + batch_suffix(batch) +
                                rank_suffix(ranks))
            with open(path + ".mlir", "w") as file:
                file.write(llama.step_graph(config, batch, tokens, CAPACITY,
                                            dtype="bf16", greedy=True,
                                            ranks=ranks))
            subprocess.run([rlx_run, path + ".mlir", "--target", "cuda",
                            "--no-cache", "--emit-shared-lib", path + ".so"],
                           check=True, stdout=subprocess.DEVNULL)
            print(f"compiled the {name} step of batch {batch} in "
                  f"{time.time() - start:.1f} s")


def batch_suffix(batch):
    """The file name suffix of a batch's steps: none for one sequence."""
    return "" if batch == 1 else f"-b{batch}"


def rank_suffix(ranks):
    """The file name suffix of a tensor-parallel run's files: none for one
    GPU."""
    return "" if ranks == 1 else f"-tp{ranks}"


def bf16_bits(tensor):
    import torch
    return tensor.to(torch.bfloat16).cpu().view(torch.int16).numpy() \
        .view(np.uint16)


def draw_model():
    """The transformers model in bf16 on the GPU, with the weights the
    docstring describes."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(SEED)
    config = LlamaConfig(**{k: v for k, v in CONFIG.items()
                            if k != "model_type"})
    with torch.device("cuda"):
        model = LlamaForCausalLM(config).to(torch.bfloat16)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1 + 0.1 * torch.randn_like(p, dtype=torch.float32))
            elif "embed_tokens" in name:
                p.copy_(0.1 * torch.randn_like(p, dtype=torch.float32))
            else:
                p.copy_(torch.randn_like(p, dtype=torch.float32)
                        / p.shape[1] ** 0.5)
    model.eval()
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    return model


def write_rlx_files(out, model, prompt):
    """The weights (and rotary tables) as params.safetensors; the prefill's
    tokens, positions and empty caches as state.safetensors. Returns the
    checkpoint's tensors as bf16 bits."""
    arrays, dtypes = {}, {}
    for name, value in model.state_dict().items():
        if name == "lm_head.weight":  # Tied: the embedding's.
            continue
        arrays[name], dtypes[name] = bf16_bits(value), "BF16"
    write_params(out, "params.safetensors", dict(arrays), dtypes)
    write_state(out, [prompt])
    return arrays


def write_params(out, file_name, arrays, dtypes):
    """The checkpoint's tensors `arrays` (safetensors dtypes `dtypes`) as
    the graphs' parameters: each fused.json group stacked along its rows
    (packed bytes concatenated), and the rotary tables in bf16."""
    import torch
    with open(os.path.join(out, "fused.json")) as file:
        for name, parts in json.load(file).items():
            arrays[name] = np.concatenate([arrays.pop(p) for p in parts])
            dtypes[name] = dtypes[parts[0]]
            for part in parts:
                del dtypes[part]
    rope = np.load(os.path.join(out, "rope.npz"))
    for key in ("cos", "sin"):
        arrays["rope." + key] = bf16_bits(torch.from_numpy(rope[key]))
        dtypes["rope." + key] = "BF16"
    write_safetensors(os.path.join(out, file_name), arrays, dtypes)


def write_state(out, prompts, ranks=1):
    """The prefill's tokens (`prompts`, [batch, PROMPT] ids), positions and
    empty caches as state.safetensors (state-bB.safetensors for a batch of
    B > 1, state-tpN.safetensors for each rank of N: caches of its kv
    heads)."""
    batch = len(prompts)
    state, kinds = {"tokens": np.asarray(prompts, np.int64),
                    "positions": np.tile(np.arange(PROMPT, dtype=np.int64),
                                         (batch, 1))}, {}
    shape = (batch, CONFIG["num_key_value_heads"] // ranks, CAPACITY,
             CONFIG["head_dim"])
    for layer in range(CONFIG["num_hidden_layers"]):
        for kind in ("key", "value"):
            name = f"cache.{layer}.{kind}"
            state[name], kinds[name] = np.zeros(shape, np.uint16), "BF16"
    write_safetensors(os.path.join(out, f"state{batch_suffix(batch)}"
                                   f"{rank_suffix(ranks)}.safetensors"),
                      state, kinds)


def state_inputs(path, names):
    """--input flags taking each step argument from tensor `names[arg]`
    of the .safetensors file `path`."""
    flags = []
    for argument, tensor in names.items():
        flags += ["--input", f"{argument}={path}:{tensor}"]
    return flags


def step_arguments():
    names = ["tokens", "positions"]
    for layer in range(CONFIG["num_hidden_layers"]):
        names += [f"cache.{layer}.key", f"cache.{layer}.value"]
    return names


def run_rlx(out, aot, new_tokens, batch=1, variant="", ranks=1):
    """rlx's prefill, then new_tokens - 1 decode steps, of `batch` sequences
    (the state write_state wrote): the first sequence's tokens, the
    prefill's time (ms), the median decode step (ms) and the steps' total
    (s). `variant` ("-q4_0") names a quantized model's steps and
    parameters; `ranks` > 1 runs the tensor-parallel steps on that many
    GPUs, each rank with its own parameters and caches."""
    tp = rank_suffix(ranks)
    suffix = variant + batch_suffix(batch) + tp
    launch = [aot] if ranks == 1 else [aot, "--ranks", str(ranks)]
    params = os.path.join(out, f"params{variant}{tp}" +
                          (".{rank}" if ranks > 1 else "") + ".safetensors")
    state = os.path.join(out, f"state{batch_suffix(batch)}{tp}.safetensors")
    names = step_arguments()
    prefill = launch + ["--load", os.path.join(out, f"prefill{suffix}.so"),
                        "--params", params] + state_inputs(
                            state, {n: n for n in names})
    after = os.path.join(out, f"after-prefill{suffix}" +
                         (".{rank}" if ranks > 1 else "") + ".safetensors")
    run = subprocess.run(prefill + ["--output", after], capture_output=True,
                         text=True)
    if run.returncode != 0:
        sys.exit(f"rlx prefill failed:\n{run.stdout}{run.stderr}")
    bench = subprocess.run(prefill + ["--bench", "20"], capture_output=True,
                           text=True)
    median = re.search(r"median ([0-9.]+) ms", bench.stdout)
    if bench.returncode != 0 or not median:
        sys.exit(f"rlx prefill --bench failed:\n{bench.stdout}"
                 f"{bench.stderr}")
    prefill_ms = float(median.group(1))
    from_prefill = {n: f"output_{i}" for i, n in enumerate(names)}
    decode = launch + ["--load", os.path.join(out, f"decode{suffix}.so"),
                       "--params", params, "--steps", str(new_tokens - 1)] \
        + state_inputs(after, from_prefill)
    run = subprocess.run(decode, capture_output=True, text=True,
                         env=dict(os.environ, RLX_PROGRESS="all"))
    if run.returncode != 0:
        sys.exit(f"rlx decode failed:\n{run.stdout}{run.stderr}")
    step = re.search(r"median step ([0-9.]+) (m?s)", run.stderr)
    if not step:
        sys.exit(f"rlx decode printed no step times:\n{run.stderr}")
    step_ms = float(step.group(1)) * (1 if step.group(2) == "ms" else 1e3)
    first = int(load_tensor(after.replace("{rank}", "0"),
                            "output_0").flatten()[0])
    tokens = [first] + [int(float(line.split()[-1]))
                        for line in run.stdout.splitlines()
                        if line.startswith("step ")]
    total = re.search(r"steps in ([0-9.]+) (m?s)", run.stderr)
    total_s = float(total.group(1)) * (1e-3 if total.group(2) == "ms"
                                       else 1) if total else float("nan")
    return tokens, prefill_ms, step_ms, total_s


def load_tensor(path, name):
    from safetensors import safe_open
    with safe_open(path, framework="pt") as file:
        return file.get_tensor(name)


def hf_generate(model, prompt, new_tokens, mode):
    """transformers' greedy tokens and the seconds of the timed call (after
    a warm-up call of the same shape)."""
    import torch
    prompts = prompt if isinstance(prompt[0], list) else [prompt]
    ids = torch.tensor(prompts, device="cuda")
    options = dict(max_new_tokens=new_tokens, min_new_tokens=new_tokens,
                   do_sample=False)
    if mode != "eager":
        options["cache_implementation"] = "static"
    if mode == "static+compile":
        # The default mode: "reduce-overhead" (CUDA graphs) rejects the
        # static cache's in-place length update.
        model.forward = torch.compile(model.forward, fullgraph=True)
    try:
        with torch.no_grad():
            model.generate(ids, **options)  # warm-up (and compiles)
            torch.cuda.synchronize()
            start = time.perf_counter()
            result = model.generate(ids, **options)
            torch.cuda.synchronize()
            seconds = time.perf_counter() - start
    finally:
        if mode == "static+compile":
            del model.forward  # the class's again
    return result[0, len(prompts[0]):].tolist(), seconds


def hf_prefill_ms(model, prompt):
    """transformers' forward of the prompt (no cache kept), median of 20
    after 5 warm-up calls, in milliseconds."""
    import torch
    ids = torch.tensor([prompt], device="cuda")
    times = []
    with torch.no_grad():
        for _ in range(25):
            start, end = (torch.cuda.Event(enable_timing=True) for _ in "se")
            start.record()
            model(ids, use_cache=False)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
    return float(np.median(times[5:]))


def copy_bandwidth():
    """Bytes read and written per second by a 1 GiB device-to-device copy
    (median of 20)."""
    import torch
    size = 1 << 30
    a = torch.empty(size, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    times = []
    for _ in range(25):
        start, end = (torch.cuda.Event(enable_timing=True) for _ in "se")
        start.record()
        b.copy_(a)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return 2 * size / float(np.median(times[5:]))


def shared_prefix(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def profile(out, aot):
    """The per-op time of the decode step compiled with --profile
    (decode-prof.so), over the state the prefill left."""
    names = step_arguments()
    after = os.path.join(out, "after-prefill.safetensors")
    command = [aot, "--load", os.path.join(out, "decode-prof.so"),
               "--params", os.path.join(out, "params.safetensors"),
               "--bench", "20", "--profile"] + state_inputs(
                   after, {n: f"output_{i}" for i, n in enumerate(names)})
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"rlx profile failed:\n{run.stdout}{run.stderr}")
    # The ops by kind (an op's label is "KIND @ FILE:LINE:COL"), then the
    # listing itself.
    kinds = {}
    for line in run.stdout.splitlines():
        fields = line.split()
        if len(fields) > 5 and "@" in fields and fields[0][0].isdigit():
            kind = " ".join(fields[5:fields.index("@")])
            total, count = kinds.get(kind, (0.0, 0))
            kinds[kind] = (total + float(fields[0]), count + 1)
    for kind, (total, count) in sorted(kinds.items(), key=lambda k: -k[1][0]):
        print(f"{total:8.3f} ms/run  {count:4d} ops  {kind}")
    print(run.stdout)


def kernels(out, aot, step_ms, variant=""):
    """Each kernel's own time in one decode step (Nsight Compute's
    gpu__time_duration, kernels launched one by one with RLX_CUDA_GRAPHS=0,
    clocks left alone), summed by kernel name; the step's replayed time
    less their sum is what the launches and gaps between them cost.
    `variant` ("-q4_0") names a quantized model's step."""
    import csv
    import io
    names = step_arguments()
    after = os.path.join(out, f"after-prefill{variant}.safetensors")
    print(f"kernels of the decode step{variant or ' (bf16)'}:")
    command = ["ncu", "--clock-control", "none", "--cache-control", "none",
               "--metrics",
               "gpu__time_duration.sum", "--csv", "--print-units", "base",
               aot, "--load", os.path.join(out, f"decode{variant}.so"),
               "--params", os.path.join(out, f"params{variant}.safetensors")
               ] + state_inputs(after, {n: f"output_{i}"
                                        for i, n in enumerate(names)})
    run = subprocess.run(command, capture_output=True, text=True,
                         env=dict(os.environ, RLX_CUDA_GRAPHS="0"))
    rows = [line for line in run.stdout.splitlines()
            if line.startswith('"')]
    if run.returncode != 0 or not rows:
        sys.exit(f"ncu failed:\n{run.stdout[-4000:]}{run.stderr[-4000:]}")
    by_name, launches = {}, []
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = row["Kernel Name"].split("(")[0]
        total, count = by_name.get(name, (0.0, 0))
        nanoseconds = float(row["Metric Value"].replace(",", ""))
        by_name[name] = (total + nanoseconds / 1e6, count + 1)
        launches.append((nanoseconds / 1e3, row.get("Grid Size", "?"),
                         row.get("Block Size", "?")))
    launched = sum(count for _, count in by_name.values())
    busy = sum(total for total, _ in by_name.values())
    print(f"kernels of one decode step: {launched}, {busy:.3f} ms of "
          f"kernel time; replayed step {step_ms:.3f} ms: "
          f"{step_ms - busy:.3f} ms between kernels "
          f"({(step_ms - busy) / launched * 1e3:.2f} us per kernel)")
    for name, (total, count) in sorted(by_name.items(),
                                       key=lambda k: -k[1][0]):
        print(f"{total:8.4f} ms  {count:4d}x  {name}")
    # In launch order (the step's op order): time, grid and block.
    for index, (micros, grid, block) in enumerate(launches):
        print(f"  {index:4d} {micros:8.2f} us  grid {grid}  block {block}")


def batched_runs(out, aot, model, new_tokens, rlx_only):
    """Greedy decoding of each batch of BATCHES past one: rlx's decode steps
    (tokens/s: the batch over the median step) beside transformers'
    batched generate with its static cache (tokens/s: every sequence's new
    tokens over the timed call, which includes its prefill)."""
    import torch
    generator = torch.Generator().manual_seed(SEED + 2)
    for batch in BATCHES[1:]:
        prompts = torch.randint(3, CONFIG["vocab_size"], (batch, PROMPT),
                                generator=generator).tolist()
        write_state(out, prompts)
        _, prefill_ms, step_ms, _ = run_rlx(out, aot, new_tokens, batch)
        line = (f"batch {batch}: rlx prefill {prefill_ms:.2f} ms, decode "
                f"{step_ms:.3f} ms per step, {batch * 1e3 / step_ms:.0f} "
                f"tokens/s")
        if not rlx_only:
            _, seconds = hf_generate(model, prompts, new_tokens, "static")
            rate = batch * new_tokens / seconds
            line += (f"; transformers bf16 static: {rate:.0f} tokens/s; "
                     f"rlx / transformers {batch * 1e3 / step_ms / rate:.2f}x")
        print(line, flush=True)


def quantized_runs(out, aot, model, prompt, new_tokens, schemes,
                   bandwidth, bf16_ms, steps, generated):
    """Each quantized model emit --quant compiled: its weights quantized
    from the drawn ones (rlx.gguf.quantize, ggml's reference rounding),
    rlx's decode rate, and its tokens against transformers' f32 greedy run
    with the decoded weights."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from rlx.gguf import dequantize, quantize
    state = {name: value.float().cpu().numpy()
             for name, value in model.state_dict().items()}
    state["lm_head.weight"] = state["model.embed_tokens.weight"]
    for scheme in schemes:
        arrays, dtypes, decoded = {}, {}, {}
        for name, value in state.items():
            if name.endswith("proj.weight") or name == "lm_head.weight":
                packed = quantize(value, scheme)
                arrays[name], dtypes[name] = packed.data, "U8"
                decoded[name] = dequantize(packed)
            else:
                arrays[name] = bf16_bits(torch.from_numpy(value))
                dtypes[name] = "BF16"
        write_params(out, f"params-{scheme}.safetensors", arrays, dtypes)
        # A step reads every packed weight, the norms and one row of the
        # embedding.
        read = sum(a.nbytes for n, a in arrays.items()
                   if dtypes[n] == "U8" or n.endswith("norm.weight"))
        tokens, prefill_ms, step_ms, _ = run_rlx(out, aot, new_tokens,
                                                 variant=f"-{scheme}")
        steps[f"-{scheme}"] = step_ms
        generated[f"-{scheme}"] = tokens
        print(f"rlx {scheme}: prefill of {PROMPT} tokens {prefill_ms:.2f} "
              f"ms; decode {step_ms:.3f} ms per token, {1e3 / step_ms:.0f} "
              f"tokens/s ({bf16_ms / step_ms:.2f}x bf16's), "
              f"{read / 1e9:.2f} GB read per token at "
              f"{read / step_ms / 1e6:.0f} GB/s = "
              f"{read / step_ms * 1e3 / bandwidth:.0%} of the copy",
              flush=True)
        reference = model.float()
        with torch.no_grad():
            saved = {}
            for name, value in decoded.items():
                if name == "lm_head.weight":
                    continue
                parameter = reference.get_parameter(name)
                saved[name] = parameter.detach().clone()
                parameter.copy_(torch.from_numpy(value))
            tied = reference.lm_head.weight
            reference.lm_head.weight = torch.nn.Parameter(
                torch.from_numpy(decoded["lm_head.weight"]).cuda())
        want, _ = hf_generate(reference, prompt, new_tokens, "eager")
        with torch.no_grad():
            for name, value in saved.items():
                reference.get_parameter(name).copy_(value)
            reference.lm_head.weight = tied
        print(f"rlx {scheme}: first {shared_prefix(tokens, want)} of "
              f"{new_tokens} tokens equal to transformers f32's on the "
              f"decoded weights", flush=True)
        model = reference.bfloat16()
    return model


def tensor_parallel_runs(out, aot, bf16_arrays, prompt, new_tokens, ranks,
                         schemes, steps, generated):
    """The bf16 model and each quantized one decoded by `ranks` GPUs in
    tensor parallel: each rank's slices of the weights written here
    (LlamaConfig.rank_weights; the quantized models' slices quantized as
    the whole weights are, since GGUF blocks run along rows), the rate
    against the one-GPU step's and the tokens against its tokens."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from rlx.gguf import quantize
    from rlx.models import llama
    from rlx.safetensors import bf16_to_f32
    write_state(out, [prompt], ranks)
    tp = rank_suffix(ranks)
    for variant in [""] + [f"-{scheme}" for scheme in schemes]:
        if variant:
            config = llama.LlamaConfig.from_hf(quantized_config())
            state = {name: bf16_to_f32(bits)
                     for name, bits in bf16_arrays.items()}
            state["lm_head.weight"] = state["model.embed_tokens.weight"]
        else:
            config = llama.LlamaConfig.from_hf(CONFIG)
            state = bf16_arrays
        for rank in range(ranks):
            arrays, dtypes = {}, {}
            for name, value in config.rank_weights(state, rank,
                                                   ranks).items():
                if variant and (name.endswith("proj.weight")
                                or name == "lm_head.weight"):
                    arrays[name] = quantize(value, variant[1:]).data
                    dtypes[name] = "U8"
                elif variant:
                    arrays[name] = bf16_bits(torch.from_numpy(value))
                    dtypes[name] = "BF16"
                else:
                    arrays[name], dtypes[name] = value, "BF16"
            write_params(out, f"params{variant}{tp}.{rank}.safetensors",
                         arrays, dtypes)
        tokens, prefill_ms, step_ms, _ = run_rlx(out, aot, new_tokens,
                                                 variant=variant,
                                                 ranks=ranks)
        one = steps[variant]
        print(f"rlx {variant[1:] or 'bf16'} on {ranks} GPUs (tensor "
              f"parallel): prefill of {PROMPT} tokens {prefill_ms:.2f} ms; "
              f"decode {step_ms:.3f} ms per token, {1e3 / step_ms:.0f} "
              f"tokens/s = {one / step_ms:.2f}x one GPU's ({one:.3f} ms); "
              f"first {shared_prefix(tokens, generated[variant])} of "
              f"{new_tokens} tokens equal to one GPU's", flush=True)
        steps[variant + tp] = step_ms


def run(out, aot, new_tokens, rlx_only=False, batched=False, schemes=(),
        ranks=1):
    import torch
    model = draw_model()
    generator = torch.Generator().manual_seed(SEED + 1)
    prompt = torch.randint(3, CONFIG["vocab_size"], (PROMPT,),
                           generator=generator).tolist()
    bf16_arrays = write_rlx_files(out, model, prompt)
    weight_bytes = sum(p.numel() * p.element_size()
                       for p in model.parameters())
    bandwidth = copy_bandwidth()
    print(f"device copy: {bandwidth / 1e9:.0f} GB/s (read + written); "
          f"weights {weight_bytes / 1e9:.2f} GB", flush=True)

    tokens, prefill_ms, step_ms, total_s = run_rlx(out, aot, new_tokens)
    steps, generated = {"": step_ms}, {"": tokens}
    rates = {"rlx": 1e3 / step_ms}
    print(f"rlx bf16: prefill of {PROMPT} tokens {prefill_ms:.2f} ms; "
          f"decode {step_ms:.3f} ms per token (median of "
          f"{new_tokens - 1}), {rates['rlx']:.0f} tokens/s, "
          f"{weight_bytes / step_ms / 1e6:.0f} GB/s of weights = "
          f"{weight_bytes / step_ms * 1e3 / bandwidth:.0%} of the copy; "
          f"{new_tokens} tokens in {prefill_ms / 1e3 + total_s:.3f} s",
          flush=True)

    if schemes:
        model = quantized_runs(out, aot, model, prompt, new_tokens, schemes,
                               bandwidth, step_ms, steps, generated)
    if ranks > 1:
        tensor_parallel_runs(out, aot, bf16_arrays, prompt, new_tokens,
                             ranks, schemes, steps, generated)
    if rlx_only:
        if batched:
            batched_runs(out, aot, model, new_tokens, rlx_only)
        return steps
    print(f"transformers bf16 eager: prefill of {PROMPT} tokens "
          f"{hf_prefill_ms(model, prompt):.2f} ms", flush=True)
    results = {"rlx": tokens}
    for mode in ("eager", "static", "static+compile"):
        try:
            got, seconds = hf_generate(model, prompt, new_tokens, mode)
        except Exception as error:  # One configuration failing is data.
            print(f"transformers bf16 {mode}: failed: "
                  f"{str(error).splitlines()[0]}", flush=True)
            continue
        results[mode] = got
        rates[mode] = new_tokens / seconds
        print(f"transformers bf16 {mode}: {new_tokens} tokens in "
              f"{seconds:.3f} s, {rates[mode]:.0f} tokens/s", flush=True)
    model = model.float()
    reference, _ = hf_generate(model, prompt, new_tokens, "eager")
    for name, got in results.items():
        print(f"{name}: first {shared_prefix(got, reference)} of "
              f"{new_tokens} tokens equal to transformers f32's; "
              f"{shared_prefix(got, results['eager'])} equal to "
              f"transformers bf16 eager's")
    best = max((m for m in rates if m != "rlx"), key=rates.get)
    print(f"rlx / transformers' best ({best}): "
          f"{rates['rlx'] / rates[best]:.2f}x tokens/s")
    if batched:
        batched_runs(out, aot, model.bfloat16(), new_tokens, rlx_only)
    return steps


def main():
    schemes = ()
    if "--quant" in sys.argv:
        schemes = sys.argv[sys.argv.index("--quant") + 1].split(",")
    ranks = 1
    if "--ranks" in sys.argv:
        ranks = int(sys.argv[sys.argv.index("--ranks") + 1])
    if len(sys.argv) >= 4 and sys.argv[1] == "emit":
        emit(sys.argv[2], sys.argv[3], schemes, ranks)
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        new_tokens = 128
        if "--new" in sys.argv:
            new_tokens = int(sys.argv[sys.argv.index("--new") + 1])
        steps = run(sys.argv[2], sys.argv[3], new_tokens,
                    "--rlx-only" in sys.argv, "--batched" in sys.argv,
                    schemes, ranks)
        if "--kernels" in sys.argv:
            for variant, step_ms in steps.items():
                # ncu serializes the kernels of every process it
                # profiles, so a rank's collective would wait forever for
                # the other rank's: the tensor-parallel steps go unlisted.
                if "-tp" in variant:
                    continue
                kernels(sys.argv[2], sys.argv[3], step_ms, variant)
        if "--profile" in sys.argv:
            profile(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
