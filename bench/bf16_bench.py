#!/usr/bin/python3
"""bf16 on the CPU: rlx's bf16 matmuls (oneDNN's bf16 matmul primitive) and
a bf16 BERT-base layer against rlx in f32 and PyTorch in bf16 and f32, side
by side in one run. Prints a Markdown table (docs/perf/cpu.md, "bf16 and f16
matmuls").

Cases: linear layers `x @ W^T` with W stored [N, K] as nn.Linear stores it
(rlx: rlx.transpose of the weight feeding rlx.matmul, which the CPU target
reads through strides) on the BERT-base shapes, and the BERT-base encoder
layer (examples/bert_layer.mlir) at B=1, S=128: in f32 as it is, and in
bf16 with every tensor bf16 (its input cast from f32 and its output cast
back in the graph; parameters stored as bf16). PyTorch runs
torch.nn.TransformerEncoderLayer in f32, and converted with
`.to(torch.bfloat16)`, under torch.no_grad(); both sides use PyTorch's
initialisation (seed 0) and N(0, 1) hidden states.

Each rlx and PyTorch timing is a fresh process per thread count (1 and 2:
OMP_NUM_THREADS for rlx-run, torch.set_num_threads for PyTorch), giving the
median of --runs calls. With --rounds R every variant of every case runs
once per round, the rounds interleaved, and each cell is the lowest of its
R medians (on a shared machine, the round other work disturbed least).

The error column is max |y - y_f32| / max |y_f32| against PyTorch's f32
output for the same weights and input.

Usage: bench/bf16_bench.py [--build build] [--runs 30] [--rounds 3]
"""

import argparse
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "test", "Execution", "lib"))
from openblas_env import openblas_env  # noqa: E402
from torch_reference import bert_layer_params  # noqa: E402

# (name, M, N, K) of x [M, K] @ W^T, W [N, K].
LINEARS = [("out projection", 128, 768, 768),
           ("FFN up", 128, 3072, 768),
           ("FFN down", 128, 768, 3072)]
THREADS = ["1", "2"]


def bf16_bits(x):
    """f32 `x` rounded to bf16 (nearest even), as uint16 bits."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(
        np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def write_safetensors(path, tensors):
    """name -> (array, dtype name) as a .safetensors file."""
    header, blobs, offset = {}, [], 0
    for name, (value, dtype) in tensors.items():
        raw = np.ascontiguousarray(value).tobytes()
        header[name] = {"dtype": dtype, "shape": list(value.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def linear_graph(m, n, k, dtype):
    x, w, y = (f"tensor<{m}x{k}x{dtype}>", f"tensor<{n}x{k}x{dtype}>",
               f"tensor<{m}x{n}x{dtype}>")
    return (f"func.func @linear(%x: {x} {{rlx.input = \"x\"}}, "
            f"%w: {w} {{rlx.input = \"w\"}}) -> {y} {{\n"
            f"  %wt = rlx.transpose %w perm = [1, 0] : {w}\n"
            f"  %0 = rlx.matmul %x, %wt : {x}, tensor<{k}x{n}x{dtype}>\n"
            f"  return %0 : {y}\n}}")


def bert_graph(dtype):
    """examples/bert_layer.mlir with its tensors in `dtype`; the hidden
    input and the output stay f32, cast in the graph."""
    with open(os.path.join(ROOT, "examples", "bert_layer.mlir")) as f:
        text = f.read()
    if dtype == "f32":
        return text
    t = "tensor<1x128x768x"
    text = text.replace("xf32>", f"x{dtype}>")
    text = text.replace(f"%x: {t}{dtype}> {{rlx.input = \"hidden\"}}",
                        f"%hidden: {t}f32> {{rlx.input = \"hidden\"}}")
    text = text.replace(f") -> {t}{dtype}> {{",
                        f") -> {t}f32> {{\n  %x = rlx.cast %hidden : "
                        f"{t}f32> to {dtype}", 1)
    return text.replace(f"  return %out : {t}{dtype}>",
                        f"  %y = rlx.cast %out : {t}{dtype}> to f32\n"
                        f"  return %y : {t}f32>")


def bert_model():
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        768, 12, 3072, dropout=0.0, activation="gelu", batch_first=True)
    layer.eval()
    x = np.random.default_rng(0).standard_normal((1, 128, 768), np.float32)
    return layer, x


def time_torch(fn, runs):
    for _ in range(3):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def torch_worker(case, dtype, runs, out=None):
    """Times `case` in this process; returns the median in ms. `out`: a
    .npy path for the BERT layer's output (as f32)."""
    tdtype = torch.bfloat16 if dtype == "bf16" else torch.float32
    with torch.no_grad():
        if case == "bert":
            layer, x = bert_model()
            layer = layer.to(tdtype)
            xt = torch.from_numpy(x).to(tdtype)
            if out:
                np.save(out, layer(xt).float().numpy())
            return time_torch(lambda: layer(xt), runs)
        m, n, k = (int(v) for v in case.split("x"))
        x = torch.randn(m, k).to(tdtype)
        w = (torch.randn(n, k) / k**0.5).to(tdtype)
        return time_torch(lambda: F.linear(x, w), runs)


def run_torch(case, dtype, threads, runs, out=None):
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--torch-worker", case,
         dtype, threads, str(runs)] + ([out] if out else []),
        capture_output=True, text=True, env=openblas_env())
    if proc.returncode != 0:
        sys.exit(f"PyTorch {case} {dtype} failed:\n{proc.stderr}")
    return float(proc.stdout.strip().splitlines()[-1])


def run_rlx(rlx_run, graph, flags, threads, runs, out=None):
    env = dict(os.environ, OMP_NUM_THREADS=threads)
    cmd = [rlx_run, graph] + flags + ["--bench", str(runs)]
    if out:
        cmd += ["--output", out]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    match = re.search(r"bench: median ([0-9.]+) ms", proc.stdout)
    if proc.returncode != 0 or not match:
        sys.exit(f"rlx-run {graph} failed:\n{proc.stderr}")
    return float(match.group(1))


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == "--torch-worker":
        torch.set_num_threads(int(sys.argv[4]))
        out = sys.argv[6] if len(sys.argv) > 6 else None
        print(f"{torch_worker(sys.argv[2], sys.argv[3], int(sys.argv[5]), out):.6f}")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--python", help="the build tree of the Python "
                        "package (default: --build)")
    args = parser.parse_args()
    rlx_run = os.path.join(args.build, "bin", "rlx-run")
    work = tempfile.mkdtemp(prefix="rlx-bf16-bench-")

    # Inputs and graphs.
    layer, x = bert_model()
    params = bert_layer_params(layer)
    hidden = os.path.join(work, "hidden.npy")
    np.save(hidden, x)
    write_safetensors(os.path.join(work, "bert-f32.safetensors"),
                      {n: (v, "F32") for n, v in params.items()})
    write_safetensors(os.path.join(work, "bert-bf16.safetensors"),
                      {n: (bf16_bits(v), "BF16") for n, v in params.items()})
    cases = []  # (row label, flops, {variant: (kind, ...)})
    for name, m, n, k in LINEARS:
        variants = {}
        for dtype in ("bf16", "f32"):
            path = os.path.join(work, f"linear-{m}x{n}x{k}-{dtype}.mlir")
            with open(path, "w") as f:
                f.write(linear_graph(m, n, k, dtype))
            variants[f"rlx {dtype}"] = ("rlx", path, ["--random-inputs"])
            variants[f"PyTorch {dtype}"] = ("torch", f"{m}x{n}x{k}", dtype)
        cases.append((f"{name} {m} x {n} x {k}", 2 * m * n * k, variants))
    variants = {}
    for dtype in ("bf16", "f32"):
        path = os.path.join(work, f"bert-{dtype}.mlir")
        with open(path, "w") as f:
            f.write(bert_graph(dtype))
        variants[f"rlx {dtype}"] = (
            "rlx", path, ["--params",
                          os.path.join(work, f"bert-{dtype}.safetensors"),
                          "--input", f"hidden={hidden}"])
        variants[f"PyTorch {dtype}"] = ("torch", "bert", dtype)
    # The same layer imported from PyTorch in mixed precision (rlx.torch's
    # autocast rules: matmuls, linear layers and attention bf16 with bf16
    # parameters, norms and softmax f32).
    factory = os.path.join(work, "bert_factory.py")
    with open(factory, "w") as f:
        f.write("import sys, torch\n"
                f"sys.path.insert(0, {os.path.join(ROOT, 'bench')!r})\n"
                "from bf16_bench import bert_model\n"
                "def make():\n"
                "    layer, x = bert_model()\n"
                "    return layer, torch.from_numpy(x)\n")
    mixed = os.path.join(work, "bert-mixed.mlir")
    mixed_params = os.path.join(work, "bert-mixed.safetensors")
    subprocess.run([sys.executable, "-m", "rlx.torch", f"{factory}:make", "-o",
                    mixed, "--params", mixed_params, "--dtype", "bf16"],
                   check=True, env=dict(os.environ, PYTHONPATH=os.path.join(
                       args.python or os.path.join(ROOT, "build"), "python")))
    with open(mixed) as f:
        name = re.search(r'rlx\.input = "([^"]*)"', f.read()).group(1)
    variants["rlx mixed bf16"] = ("rlx", mixed, ["--params", mixed_params,
                                                 "--input", f"{name}={hidden}"])
    cases.append(("BERT-base layer B=1 S=128", None, variants))

    # Accuracy of the BERT layer against PyTorch's f32 output.
    outs = {}
    for label, (kind, *spec) in variants.items():
        out = os.path.join(work, label.replace(" ", "-"))
        if kind == "rlx":
            run_rlx(rlx_run, spec[0], spec[1], "2", 1, out)
            outs[label] = np.load(os.path.join(out, "output_0.npy"))
        else:
            run_torch(spec[0], spec[1], "2", 1, out + ".npy")
            outs[label] = np.load(out + ".npy")
    ref = outs["PyTorch f32"].astype(np.float64)
    errors = {label: np.abs(y - ref).max() / np.abs(ref).max()
              for label, y in outs.items()}

    # Interleaved rounds: every variant of every case at every thread count
    # once per round.
    medians = {}
    start = time.time()
    load = os.getloadavg()[0]
    for _ in range(args.rounds):
        for label, _, variants in cases:
            for variant, (kind, *spec) in variants.items():
                for threads in THREADS:
                    if kind == "rlx":
                        ms = run_rlx(rlx_run, spec[0], spec[1], threads,
                                     args.runs)
                    else:
                        ms = run_torch(spec[0], spec[1], threads, args.runs)
                    medians.setdefault((label, variant, threads),
                                       []).append(ms)
    print(f"{args.rounds} rounds of {args.runs} runs in "
          f"{time.time() - start:.0f} s; 1-minute load average "
          f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end\n")

    order = ["rlx bf16", "rlx f32", "PyTorch bf16", "PyTorch f32"]
    print("| case | " + " | ".join(f"{v} (ms, 1 / 2 threads)"
                                   for v in order) +
          " | rlx bf16 vs PyTorch bf16 | rlx bf16 vs PyTorch f32 "
          "| rlx bf16 vs rlx f32 | error rlx bf16 / PyTorch bf16 |")
    print("|---" * (len(order) + 5) + "|")
    for label, flops, _ in cases:
        best = {}
        cells = []
        for variant in order:
            times = [min(medians[(label, variant, t)]) for t in THREADS]
            best[variant] = min(times)
            cell = " / ".join(f"{ms:.3f}" for ms in times)
            if flops and variant.startswith("rlx"):
                cell += f" ({flops / best[variant] / 1e6:.0f} GFLOP/s)"
            cells.append(cell)
        ratio = lambda a, b: f"{best[b] / best[a]:.2f}x"  # noqa: E731
        err = (f"{errors['rlx bf16']:.1e} / {errors['PyTorch bf16']:.1e}"
               if label.startswith("BERT") else "")
        print(f"| {label} | " + " | ".join(cells) +
              f" | {ratio('rlx bf16', 'PyTorch bf16')} "
              f"| {ratio('rlx bf16', 'PyTorch f32')} "
              f"| {ratio('rlx bf16', 'rlx f32')} | {err} |")
    label = cases[-1][0]
    times = [min(medians[(label, "rlx mixed bf16", t)]) for t in THREADS]
    best = min(times)
    torch_f32 = min(min(medians[(label, "PyTorch f32", t)]) for t in THREADS)
    print(f"| {label}, rlx mixed bf16 (rlx.torch dtype=bf16) | " +
          " / ".join(f"{ms:.3f}" for ms in times) +
          " | | | | | " + f"{torch_f32 / best:.2f}x | | "
          f"{errors['rlx mixed bf16']:.1e} |")
    print("\nratio = other's best time / rlx bf16's best time "
          "(> 1: rlx bf16 is faster); error: max |y - y_f32| / max |y_f32| "
          "against PyTorch's f32 layer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
