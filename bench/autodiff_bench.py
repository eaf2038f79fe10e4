#!/usr/bin/python3
"""Gradient against forward time on the CPU, rlx and PyTorch side by side.

For a 12-layer MLP (batch 256, width 512, tanh, softmax cross-entropy) and
the BERT-base layer of examples/bert_layer.mlir (batch 1, sequence 128, its
output seeded with a random cotangent), it times

- rlx: the forward function `@f` and the gradient function `@f_grad` that
  `rlx-opt --rlx-autodiff="func=f"` adds (the forward values plus the
  gradient of every parameter), each with
  `rlx-run FILE --entry F --params P --input ... --bench RUNS`;
- PyTorch: the same model with the same weights and inputs, its forward
  under `torch.no_grad()` (eval mode) and one forward + `backward()` with
  every parameter requiring a gradient, in a fresh process per thread
  setting (its default, `torch.set_num_threads(1)`, `(2)`), each compared at
  its best setting, with the OpenBLAS kernels rlx's runtime picks
  (bench/openblas_env.py: Debian's PyTorch multiplies through OpenBLAS).

Inputs are realistic, not uniform noise: weights as PyTorch initialises its
layers (U(+-1/sqrt(fan_in))), activations N(0, 1). Random inputs of unit
scale push attention scores and logits far into the exponential's tail,
whose subnormal results take the CPU's slow path and time something else.

Usage: bench/autodiff_bench.py [--build build] [--runs 20] [--rounds 2]
Prints a Markdown table (docs/perf/autodiff.md).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "test", "Execution", "lib"))
from autodiff_remat import mlp  # noqa: E402
from openblas_env import openblas_env  # noqa: E402
from rlxcheck import write_safetensors  # noqa: E402
from torch_reference import bert_layer_params  # noqa: E402
from cpu_bench import time_torch as time_call  # noqa: E402

MLP_LAYERS, MLP_BATCH, MLP_WIDTH, MLP_CLASSES = 12, 256, 512, 16
SETTINGS = ["default", "1", "2"]


# --------------------------------------------------------------------------
# The models, in torch, with the rlx graphs' parameter names.

def torch_mlp():
    layers = []
    for i in range(MLP_LAYERS):
        out = MLP_CLASSES if i == MLP_LAYERS - 1 else MLP_WIDTH
        layers.append(torch.nn.Linear(MLP_WIDTH, out))
        if i < MLP_LAYERS - 1:
            layers.append(torch.nn.Tanh())
    model = torch.nn.Sequential(*layers)
    linears = [m for m in model if isinstance(m, torch.nn.Linear)]
    params = {}
    for i, lin in enumerate(linears):
        params[f"w{i}"] = lin.weight.detach().numpy().T.copy()
        params[f"b{i}"] = lin.bias.detach().numpy().copy()
    return model, params


def torch_bert():
    layer = torch.nn.TransformerEncoderLayer(768, 12, 3072, dropout=0.0,
                                             activation="gelu",
                                             batch_first=True)
    with torch.no_grad():
        for norm in (layer.norm1, layer.norm2):
            norm.weight.uniform_(0.5, 1.5)
            norm.bias.uniform_(-0.5, 0.5)

    params = bert_layer_params(layer)
    return layer, params


def make_case(name, folder):
    """Writes the graph, its parameters and inputs under `folder`; returns
    (mlir path, function name, input names)."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    if name == "mlp":
        _, params = torch_mlp()
        mlir = mlp(MLP_LAYERS, MLP_BATCH, MLP_WIDTH, MLP_CLASSES)
        func = "f"
        inputs = {
            "x": rng.standard_normal((MLP_BATCH, MLP_WIDTH), np.float32),
            "labels": rng.integers(0, MLP_CLASSES, MLP_BATCH, np.int64)}
    else:
        _, params = torch_bert()
        with open(os.path.join(ROOT, "examples", "bert_layer.mlir")) as f:
            mlir = f.read()
        func = "bert_layer"
        inputs = {"hidden": rng.standard_normal((1, 128, 768), np.float32),
                  "d_loss": rng.standard_normal((1, 128, 768), np.float32)}
    path = os.path.join(folder, f"{name}.mlir")
    with open(path, "w") as f:
        f.write(mlir)
    write_safetensors(os.path.join(folder, f"{name}.safetensors"), params)
    for key, value in inputs.items():
        np.save(os.path.join(folder, f"{name}-{key}.npy"), value)
    return path, func, list(inputs)


# --------------------------------------------------------------------------
# PyTorch, one case and thread setting per fresh process.

def torch_worker(name, folder, setting, runs):
    if setting != "default":
        torch.set_num_threads(int(setting))
    torch.manual_seed(0)
    model, _ = torch_mlp() if name == "mlp" else torch_bert()
    load = {k: torch.from_numpy(np.load(os.path.join(folder, f))) for k, f in
            ((k, f"{name}-{k}.npy") for k in
             (("x", "labels") if name == "mlp" else ("hidden", "d_loss")))}
    if name == "mlp":
        def forward():
            return F.cross_entropy(model(load["x"]), load["labels"])

        def gradient():
            model.zero_grad(set_to_none=True)
            forward().backward()
    else:
        def forward():
            return model(load["hidden"])

        def gradient():
            model.zero_grad(set_to_none=True)
            model(load["hidden"]).backward(load["d_loss"])
    model.eval()
    with torch.no_grad():
        fwd = time_call(forward, runs)
    model.train()  # dropout is 0: the same function, on the autograd path
    grad = time_call(gradient, runs)
    print(f"{fwd:.6f} {grad:.6f}")


def time_torch(name, folder, runs):
    """{setting: (forward ms, gradient ms)}, each in a fresh process."""
    results = {}
    for setting in SETTINGS:
        out = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--torch-worker", name,
             folder, setting, str(runs)],
            capture_output=True, text=True, check=True,
            env=openblas_env()).stdout.split()
        results[setting] = (float(out[-2]), float(out[-1]))
    return results


# --------------------------------------------------------------------------
# rlx.

def time_rlx(build, path, entry, name, inputs, folder, runs):
    args = [os.path.join(build, "bin", "rlx-run"), path, "--entry", entry,
            "--params", os.path.join(folder, f"{name}.safetensors"),
            "--bench", str(runs)]
    for key in inputs:
        if key == "d_loss" and not entry.endswith("_grad"):
            continue
        args += ["--input", f"{key}={os.path.join(folder, f'{name}-{key}.npy')}"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return float(re.search(r"bench: median ([0-9.]+) ms", out).group(1))


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--torch-worker":
        torch_worker(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2,
                        help="repeat every measurement; keep each one's "
                             "lowest median (the least disturbed round)")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="rlx-autodiff-bench-")
    rows = []
    for name, label in (("mlp", f"MLP, {MLP_LAYERS} layers, {MLP_BATCH} x "
                                f"{MLP_WIDTH}, tanh, cross-entropy"),
                        ("bert", "BERT-base layer, B=1, S=128")):
        path, func, inputs = make_case(name, folder)
        grad_path = os.path.join(folder, f"{name}-grad.mlir")
        subprocess.run([os.path.join(args.build, "bin", "rlx-opt"), path,
                        f"--rlx-autodiff=func={func}", "-o", grad_path],
                       check=True)
        rlx_fwd = rlx_grad = float("inf")
        torch_best = {}
        for _ in range(args.rounds):
            rlx_fwd = min(rlx_fwd, time_rlx(args.build, grad_path, func, name,
                                            inputs, folder, args.runs))
            rlx_grad = min(rlx_grad, time_rlx(args.build, grad_path,
                                              func + "_grad", name, inputs,
                                              folder, args.runs))
            for setting, (fwd, grad) in time_torch(name, folder,
                                                   args.runs).items():
                old = torch_best.get(setting, (float("inf"), float("inf")))
                torch_best[setting] = (min(old[0], fwd), min(old[1], grad))
        best_fwd = min(SETTINGS, key=lambda s: torch_best[s][0])
        best_grad = min(SETTINGS, key=lambda s: torch_best[s][1])
        rows.append((label, rlx_fwd, rlx_grad, torch_best, best_fwd,
                     best_grad))
        print(f"{label}: rlx {rlx_fwd:.3f} / {rlx_grad:.3f} ms, torch "
              f"{torch_best}", file=sys.stderr, flush=True)

    def setting_name(s):
        return "default" if s == "default" else (
            f"{s} thread" + ("s" if s != "1" else ""))
    print("| graph | rlx forward (ms) | rlx gradient (ms) | rlx gradient / "
          "forward | PyTorch forward, best (ms) | PyTorch forward + "
          "backward, best (ms) | PyTorch gradient / forward | PyTorch "
          "default / 1 / 2 threads, forward; gradient (ms) | rlx gradient "
          "vs PyTorch |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for label, rf, rg, tb, bf, bg in rows:
        tf, tg = tb[bf][0], tb[bg][1]
        detail = " / ".join(f"{tb[s][0]:.2f}" for s in SETTINGS) + "; " + \
            " / ".join(f"{tb[s][1]:.2f}" for s in SETTINGS)
        print(f"| {label} | {rf:.3f} | {rg:.3f} | {rg / rf:.2f}x | {tf:.3f} "
              f"({setting_name(bf)}) | {tg:.3f} ({setting_name(bg)}) | "
              f"{tg / tf:.2f}x | {detail} | {tg / rg:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
