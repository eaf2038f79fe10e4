#!/usr/bin/python3
"""CPU benchmark of torchvision models imported with rlx.torch: rlx
(rlx-run --bench) against eager PyTorch, side by side in one run, and each
model's import and compile time. Writes its section of docs/perf/cpu.md.

Models: resnet18 at batch 1 and 8, mobilenet_v2 at batch 1, 224x224 f32,
eval mode. The weights are torchvision's random initialisation (seed 0,
nothing downloaded) with batch norm calibrated on a random batch, as
test/Python/torchvision_models.py does, so activations stay near unit scale
(an uncalibrated mobilenet_v2 shrinks them towards subnormals, which the CPU
computes in microcode on both sides). Both sides get the same model (saved
once with torch.save) and the same N(0, 1) input.

Each PyTorch case runs in a fresh process in every thread setting
(PyTorch's default, torch.set_num_threads(1) and (2)), under torch.no_grad,
with the OpenBLAS kernels rlx's runtime picks (bench/openblas_env.py), and
is compared at its best setting. rlx runs as rlx-run does by default
(`--params model.safetensors --input x=x.npy --bench N`); its compile time
is the one rlx-run reports (parse, pipeline, LLVM, JIT). Every measurement
is repeated --rounds times, alternating the sides, and each keeps its
lowest median (the least disturbed round on a shared machine).

Usage: bench/torchvision_bench.py [--build build] [--runs 20] [--rounds 2]
       [--output docs/perf/cpu.md]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torchvision

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from openblas_env import openblas_env  # noqa: E402

TORCH_SETTINGS = ["default", "1", "2"]
CASES = [("resnet18", 1), ("resnet18", 8), ("mobilenet_v2", 1)]
HEADING = "## PyTorch models imported with rlx.torch"


def calibrated_model(name):
    """torchvision's `name` with random weights (seed 0) and batch norm
    statistics calibrated on a random batch, in eval mode."""
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.momentum = None
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
    model.train()
    with torch.no_grad():
        model(torch.randn(4, 3, 224, 224))
    return model.eval()


def torch_worker(model_path, input_path, setting, runs):
    """Times the saved model on the saved input in this (fresh) process;
    prints the median in ms."""
    if setting != "default":
        torch.set_num_threads(int(setting))
    model = torch.load(model_path)
    x = torch.from_numpy(np.load(input_path))
    times = []
    with torch.no_grad():
        for _ in range(3):
            model(x)
        for _ in range(runs):
            start = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - start) * 1e3)
    print(f"{statistics.median(times):.6f}")


def time_torch_fresh(model_path, input_path, runs):
    """{setting: median ms}, a fresh process per thread setting."""
    results = {}
    for setting in TORCH_SETTINGS:
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--torch-worker",
             model_path, input_path, setting, str(runs)],
            capture_output=True, text=True, check=True, env=openblas_env())
        results[setting] = float(proc.stdout.strip().splitlines()[-1])
    return results


def time_rlx(rlx_run, mlir_path, params_path, input_path, runs):
    """(median ms, compile ms) from rlx-run --bench."""
    proc = subprocess.run(
        [rlx_run, mlir_path, "--params", params_path, "--input",
         f"x={input_path}", "--bench", str(runs)],
        capture_output=True, text=True)
    match = re.search(r"bench: median ([0-9.]+) ms.*\(compile ([0-9]+) ms\)",
                      proc.stdout)
    if proc.returncode != 0 or not match:
        raise SystemExit(f"rlx-run failed on {mlir_path}: "
                         f"{proc.stderr.strip() or proc.stdout.strip()}")
    return float(match.group(1)), float(match.group(2))


def replace_section(path, section, heading=HEADING):
    """Puts `section` (starting with `heading`) into the file at `path` in
    place of its previous version, or at the end."""
    text = open(path).read() if os.path.exists(path) else ""
    start = text.find(heading)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(heading))
        rest = text[end + 1:] if end >= 0 else ""
        text = text[:start] + section + ("\n" + rest if rest else "")
    with open(path, "w") as f:
        f.write(text)


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--torch-worker":
        torch_worker(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--output",
                        default=os.path.join(ROOT, "docs", "perf", "cpu.md"))
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import rlx.torch  # noqa: E402  (the build tree's package)

    rlx_run = os.path.join(args.build, "bin", "rlx-run")
    work = tempfile.mkdtemp(prefix="rlx-torchvision-bench-")
    load_before = os.getloadavg()[0]
    rows = []
    for name, batch in CASES:
        tag = f"{name}-b{batch}"
        model = calibrated_model(name)
        x = np.random.default_rng(0).standard_normal(
            (batch, 3, 224, 224), np.float32)
        model_path = os.path.join(work, f"{tag}.pt")
        input_path = os.path.join(work, f"{tag}-x.npy")
        mlir_path = os.path.join(work, f"{tag}.mlir")
        params_path = os.path.join(work, f"{tag}.safetensors")
        torch.save(model, model_path)
        np.save(input_path, x)
        start = time.perf_counter()
        text, params = rlx.torch.import_module(model, torch.from_numpy(x))
        import_ms = (time.perf_counter() - start) * 1e3
        with open(mlir_path, "w") as f:
            f.write(text)
        rlx.write_safetensors(params_path, params)
        rlx_ms = compile_ms = None
        torch_ms = {}
        for _ in range(args.rounds):
            ms, compiled = time_rlx(rlx_run, mlir_path, params_path,
                                    input_path, args.runs)
            if rlx_ms is None or ms < rlx_ms:
                rlx_ms = ms
            compile_ms = min(compile_ms or compiled, compiled)
            for setting, ms in time_torch_fresh(model_path, input_path,
                                                args.runs).items():
                torch_ms[setting] = min(torch_ms.get(setting, ms), ms)
        print(f"{tag}: rlx {rlx_ms:.3f} ms (compile {compile_ms:.0f} ms, "
              f"import {import_ms:.0f} ms), torch {torch_ms}", flush=True)
        rows.append((name, batch, rlx_ms, compile_ms, import_ms, torch_ms))

    lines = [HEADING, "",
             f"Produced by `bench/torchvision_bench.py --runs {args.runs} "
             f"--rounds {args.rounds}` on this machine ({os.cpu_count()} "
             "cores), all columns in one run; each number is the lowest of "
             f"{args.rounds} rounds' medians, the rounds alternating rlx and "
             "PyTorch. "
             "torchvision 0.14 models with random weights (seed 0, batch norm "
             "calibrated on a random batch), 224x224 f32 input N(0, 1), "
             "imported with `rlx.torch.import_module` and run by `rlx-run "
             "--params model.safetensors --input x=x.npy --bench N` "
             "(defaults: OpenMP and OpenBLAS use every core). Eager PyTorch "
             "runs the same model and input under `torch.no_grad()` in a "
             "fresh process per thread setting (its default, "
             "`torch.set_num_threads(1)`, `(2)`), with the OpenBLAS kernels "
             "rlx picks; the best setting is compared and named. Times are "
             "medians in ms; ratio = best PyTorch time / rlx time (> 1: rlx "
             "is faster). Compile is rlx-run's (parse, rlx and LLVM "
             "pipelines, JIT); import is `import_module` (tracing and "
             "printing the IR). The 1-minute load average was "
             f"{load_before:.1f} when the run started and "
             f"{os.getloadavg()[0]:.1f} when it ended (above "
             f"{os.cpu_count()}: other processes shared the cores, and the "
             "medians move with them).", "",
             "| model | rlx (ms) | PyTorch 1.13 best (ms) | best setting | "
             "PyTorch default / 1 / 2 threads (ms) | rlx vs PyTorch best | "
             "rlx compile (ms) | import (ms) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, batch, rlx_ms, compile_ms, import_ms, torch_ms in rows:
        best = min(torch_ms, key=torch_ms.get)
        label = ("default" if best == "default" else
                 f"{best} thread" + ("s" if best != "1" else ""))
        settings = " / ".join(f"{torch_ms[k]:.3f}" for k in TORCH_SETTINGS)
        lines.append(f"| {name} B={batch} | {rlx_ms:.3f} | "
                     f"{torch_ms[best]:.3f} | {label} | {settings} | "
                     f"{torch_ms[best] / rlx_ms:.2f}x | {compile_ms:.0f} | "
                     f"{import_ms:.0f} |")
    replace_section(args.output, "\n".join(lines) + "\n")
    print(f"wrote the section '{HEADING[3:]}' of {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
