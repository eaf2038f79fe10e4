"""Data-parallel training of a 4-layer BERT-base encoder in bf16: rlx over
NCCL (`rlx-run-aot --ranks N --data-parallel`) beside PyTorch DDP, on 1, 2
and 4 GPUs (docs/perf/distributed.md).

  python3 bench/dp_bert.py emit OUT RLX_OPT RLX_RUN [N ...]
      here (LLVM/MLIR, no GPU): imports the model with rlx.torch in bf16
      mixed precision (matmuls and their weights bf16, layer norms and the
      loss f32), differentiates it with Adam (data-parallel=N for N > 1,
      gradients all-reduced in bf16)
      and compiles one training step per N for the cuda target into OUT.
  python3 bench/dp_bert.py run OUT RLX_RUN_AOT [--steps S]
      on the GPU machine: writes the model's initial parameters and a
      batch (from the same seed as PyTorch's), trains S steps with rlx on
      N GPUs for each N compiled, then PyTorch DDP with the same model,
      batch and optimizer, in its bf16 configurations (the whole model in
      bf16, eager and under torch.compile; autocast over f32 parameters),
      and prints samples/s, the scaling over one GPU and the ratios.

The model: nn.TransformerEncoder of 4 BERT-base layers (hidden 768, 12
heads, FFN 3072, GELU, post-LN, no dropout), a Linear(768, 2) head on the
first token and a mean squared error loss against random targets; B=32
sequences of 128 tokens per GPU (inputs are embeddings: [B, 128, 768]).
Timing: the median step of S steps (rlx: rlx-run's own step times; PyTorch:
each step after 5 warm-up steps), every step on both sides ending with its
loss read back.
"""

import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "test", "Execution", "lib"))
from rlxcheck import write_safetensors  # noqa: E402

LAYERS, HIDDEN, HEADS, FFN, SEQ, BATCH = 4, 768, 12, 3072, 128, 32
LR = 1e-4
SEED = 5


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(
            HIDDEN, HEADS, FFN, dropout=0.0, activation="gelu",
            batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(
            layer, LAYERS, enable_nested_tensor=False)
        self.head = torch.nn.Linear(HIDDEN, 2)

    def forward(self, x, target):
        y = self.head(self.encoder(x)[:, 0])
        return ((y - target) ** 2).mean()


def model():
    torch.manual_seed(SEED)
    return Encoder()


def batch(ranks):
    generator = torch.Generator().manual_seed(SEED + 1)
    x = torch.randn(ranks * BATCH, SEQ, HIDDEN, generator=generator)
    target = torch.randn(ranks * BATCH, 2, generator=generator)
    return x, target


def emit(out, rlx_opt, rlx_run, ranks):
    import rlx.torch
    os.makedirs(out, exist_ok=True)
    x, target = batch(1)
    mlir, params = rlx.torch.import_module(model().eval(), x, target,
                                           dtype="bf16")
    source = os.path.join(out, "forward.mlir")
    with open(source, "w") as f:
        f.write(mlir)
    # Which parameters are bf16 in the graph: run mode stores them so.
    low = sorted(name for name in params
                 if f'xbf16> {{rlx.param = "{name}"}}' in mlir)
    with open(os.path.join(out, "bf16-params.json"), "w") as f:
        json.dump(low, f)
    for n in ranks:
        step = os.path.join(out, f"step{n}")
        options = f"func=forward optimizer=adam lr={LR}"
        if n > 1:
            # Gradients reduced in bf16, as DDP reduces a model.bfloat16()'s.
            options += f" data-parallel={n} gradient-precision=native"
        start = time.time()
        subprocess.run([rlx_opt, source, f"--rlx-autodiff={options}", "-o",
                        step + ".mlir"], check=True)
        subprocess.run([rlx_run, step + ".mlir", "--entry",
                        "forward_train_step", "--target", "cuda",
                        "--no-cache", "--emit-shared-lib", step + ".so"],
                       check=True, stdout=subprocess.DEVNULL)
        os.remove(step + ".mlir")
        print(f"compiled the training step for {n} GPU(s) in "
              f"{time.time() - start:.1f} s")


def write_params(path, low):
    """The model's initial parameters as a .safetensors file, those named
    in `low` as bf16 (the graph's dtype for them)."""
    arrays, dtypes = {}, {}
    for name, value in model().state_dict().items():
        if name in low:
            arrays[name] = value.to(torch.bfloat16).view(torch.int16).numpy() \
                .view(np.uint16)
            dtypes[name] = "BF16"
        else:
            arrays[name] = value.numpy()
    write_safetensors(path, arrays, dtypes)


def rlx_step_seconds(aot, library, n, steps, files):
    """The median step time, in seconds, of `steps` training steps on n
    GPUs (rlx-run's own measure: RLX_PROGRESS=all ends with the steps'
    median), and the losses."""
    command = [aot, "--load", library, "--steps", str(steps), "--params",
               files["params"], "--input", f"x={files['x']}", "--input",
               f"target={files['target']}"]
    if n > 1:
        command = [aot, "--ranks", str(n)] + command[1:] + ["--data-parallel"]
    run = subprocess.run(command, capture_output=True, text=True,
                         env=dict(os.environ, RLX_PROGRESS="all"))
    if run.returncode != 0:
        sys.exit(f"rlx on {n} GPU(s) failed:\n{run.stdout}{run.stderr}")
    losses = [float(line.split()[-1]) for line in run.stdout.splitlines()
              if line.startswith("step ") or ": step " in line]
    median = re.search(r"median step ([0-9.]+) (m?s)", run.stderr)
    if not median:
        sys.exit(f"rlx on {n} GPU(s) printed no step times:\n{run.stderr}")
    scale = 1e-3 if median.group(2) == "ms" else 1
    return float(median.group(1)) * scale, losses


def run_rlx(out, aot, steps):
    low = set(json.load(open(os.path.join(out, "bf16-params.json"))))
    params = os.path.join(out, "init.safetensors")
    write_params(params, low)  # One model for every GPU count.
    results = {}
    for n in (1, 2, 4):
        library = os.path.join(out, f"step{n}.so")
        if not os.path.exists(library) or n > torch.cuda.device_count():
            continue
        x, target = batch(n)
        files = {"params": params,
                 "x": os.path.join(out, f"x{n}.npy"),
                 "target": os.path.join(out, f"target{n}.npy")}
        np.save(files["x"], x.numpy())
        np.save(files["target"], target.numpy())
        per_step, losses = rlx_step_seconds(aot, library, n, steps, files)
        results[n] = n * BATCH / per_step
        print(f"rlx bf16 on {n} GPU(s): {per_step * 1e3:.1f} ms per step, "
              f"{results[n]:.0f} samples/s; losses {losses[0]:.4f} .. "
              f"{losses[-1]:.4f}", flush=True)
    return results


def ddp_worker(rank, n, mode, steps, port, queue):
    import torch.distributed as dist
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    torch.cuda.set_device(rank)
    torch.backends.cuda.matmul.allow_tf32 = True
    if n > 1:
        dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}",
                                rank=rank, world_size=n)
    net = model().cuda()
    if mode in ("bf16", "compile"):
        net = net.bfloat16()
    x, target = batch(n)
    x = x[rank * BATCH:(rank + 1) * BATCH].cuda()
    target = target[rank * BATCH:(rank + 1) * BATCH].cuda()
    if mode in ("bf16", "compile"):
        x, target = x.bfloat16(), target.bfloat16()
    if n > 1:
        net = torch.nn.parallel.DistributedDataParallel(net, device_ids=[rank])
    if mode == "compile":
        net = torch.compile(net)
    optimizer = torch.optim.Adam(net.parameters(), lr=LR, fused=True)

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", torch.bfloat16, enabled=mode == "amp"):
            loss = net(x, target)
        loss.backward()
        optimizer.step()
        return loss.item()

    for _ in range(5):
        step()
    torch.cuda.synchronize()
    if n > 1:
        dist.barrier()
    # Each step ends reading its loss back (a sync), as rlx's do.
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    if rank == 0:
        queue.put(sorted(times)[len(times) // 2])
    if n > 1:
        dist.destroy_process_group()


def run_torch(steps):
    import torch.multiprocessing as mp
    context = mp.get_context("spawn")
    results = {}
    for mode in ("bf16", "amp", "compile"):
        for n in (1, 2, 4):
            if n > torch.cuda.device_count():
                continue
            queue = context.Queue()
            mp.spawn(ddp_worker, args=(n, mode, steps, 29600 + n, queue),
                     nprocs=n)
            per_step = queue.get()
            samples = n * BATCH / per_step
            results[(mode, n)] = samples
            name = {"bf16": "model.bfloat16()",
                    "amp": "autocast bf16",
                    "compile": "model.bfloat16(), torch.compile"}[mode]
            print(f"PyTorch {'DDP' if n > 1 else 'eager'} ({name}) on {n} "
                  f"GPU(s): {per_step * 1e3:.1f} ms per step, "
                  f"{samples:.0f} samples/s", flush=True)
    return results


def main():
    mode = sys.argv[1]
    if mode == "emit":
        emit(sys.argv[2], sys.argv[3], sys.argv[4],
             [int(n) for n in sys.argv[5:]] or [1, 2])
        return
    out, aot = sys.argv[2], sys.argv[3]
    steps = int(sys.argv[sys.argv.index("--steps") + 1]) \
        if "--steps" in sys.argv else 20
    ours = run_rlx(out, aot, steps)
    theirs = run_torch(steps)
    print("| GPUs | rlx samples/s | scaling | PyTorch best samples/s "
          "(config) | scaling | rlx / PyTorch |")
    print("|---|---|---|---|---|---|")
    for n, samples in sorted(ours.items()):
        best = max((v, m) for (m, k), v in theirs.items() if k == n)
        base = max(v for (m, k), v in theirs.items() if k == 1)
        print(f"| {n} | {samples:.0f} | {samples / ours[1]:.2f}x | "
              f"{best[0]:.0f} ({best[1]}) | {best[0] / base:.2f}x | "
              f"{samples / best[0]:.2f}x |")


if __name__ == "__main__":
    main()
