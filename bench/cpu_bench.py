#!/usr/bin/python3
"""CPU benchmark: rlx (rlx-run --bench) vs PyTorch vs OpenBLAS, side by side
in one run. Writes docs/perf/cpu.md.

Each PyTorch case runs in a fresh process in every thread setting (PyTorch's
default, then torch.set_num_threads(1) and (2), nothing else changed), and
is compared at its best setting: a process that also holds other work, or a
forced thread count that oversubscribes the cores against OpenBLAS's own
threads, would handicap it. Debian's PyTorch multiplies through OpenBLAS;
it and the direct OpenBLAS baseline get the kernels rlx's runtime picks
(bench/openblas_env.py). rlx runs as rlx-run does by default.

With --rounds R, every case is timed R times, its rlx rows and PyTorch
taking turns, and each number is the lowest of the R medians (on a shared machine, the
rounds that other work disturbed least). --only bert keeps the BERT rows.

Usage: bench/cpu_bench.py [--build build] [--runs 30] [--rounds 1]
                          [--only bert] [--output docs/perf/cpu.md]
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
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "test", "Execution", "lib"))
from openblas_env import openblas_env  # noqa: E402
from rlxcheck import write_safetensors  # noqa: E402
from torch_reference import bert_layer_params  # noqa: E402


def graph_sgemm(n):
    t = f"tensor<{n}x{n}xf32>"
    return (f"func.func @sgemm(%a: {t} {{rlx.input = \"a\"}}, %b: {t} {{rlx.input = \"b\"}}) -> {t} {{\n"
            f"  %0 = rlx.matmul %a, %b : {t}, {t}\n  return %0 : {t}\n}}")


def graph_chain(n):
    t = f"tensor<{n}x{n}xf32>"
    return (f"func.func @chain(%x: {t} {{rlx.input = \"x\"}}, %y: {t} {{rlx.input = \"y\"}}) -> {t} {{\n"
            f"  %0 = rlx.binary mul %x, %y : {t}, {t}\n"
            f"  %1 = rlx.binary add %0, %x : {t}, {t}\n"
            f"  %2 = rlx.activation tanh %1 : {t}\n"
            f"  %3 = rlx.binary mul %2, %y : {t}, {t}\n"
            f"  return %3 : {t}\n}}")


def graph_softmax(n):
    t = f"tensor<{n}x{n}xf32>"
    return (f"func.func @softmax(%x: {t} {{rlx.input = \"x\"}}) -> {t} {{\n"
            f"  %0 = rlx.softmax %x {{axis = -1 : i64}} : {t}\n  return %0 : {t}\n}}")


def graph_layer_norm(n):
    t = f"tensor<{n}x{n}xf32>"
    v = f"tensor<{n}xf32>"
    return (f"func.func @layer_norm(%x: {t} {{rlx.input = \"x\"}}, %g: {v} {{rlx.param = \"g\"}}, "
            f"%b: {v} {{rlx.param = \"b\"}}) -> {t} {{\n"
            f"  %0 = rlx.layer_norm %x, %g, %b {{axis = -1 : i64, eps = 1.0e-5 : f32}} : {t}, {v}, {v}\n"
            f"  return %0 : {t}\n}}")


def time_torch(fn, runs):
    for _ in range(3):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def time_rlx(rlx_run, mlir_path, runs, inputs=None, options=None):
    """`inputs`: rlx-run's flags for the graph's data; default random.
    `options`: rlx-cpu-pipeline options."""
    proc = subprocess.run([rlx_run, mlir_path] + (inputs or ["--random-inputs"]) +
                          ["--bench", str(runs)] +
                          ([f"--pipeline-options={options}"] if options else []),
                          capture_output=True, text=True)
    match = re.search(r"bench: median ([0-9.]+) ms", proc.stdout)
    if proc.returncode != 0 or not match:
        return None, (proc.stderr.strip().splitlines() or ["failed"])[-1]
    return float(match.group(1)), None


TORCH_SETTINGS = ["default", "1", "2"]


def bert_model(batch=1):
    """The BERT-base layer both sides run: PyTorch's initialisation (seed 0)
    and hidden states N(0, 1) of `batch` sequences of 128. Realistic data
    matters: unit-scale random weights push the attention scores into exp's
    subnormal tail, which the CPU takes in microcode."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        768, 12, 3072, dropout=0.0, activation="gelu", batch_first=True)
    layer.eval()
    x = np.random.default_rng(0).standard_normal((batch, 128, 768), np.float32)
    return layer, x


def bert_graph(batch):
    """examples/bert_layer.mlir (batch 1) for `batch` sequences."""
    with open(os.path.join(ROOT, "examples", "bert_layer.mlir")) as f:
        text = f.read()
    return text.replace("tensor<1x", f"tensor<{batch}x").replace(
        "new_shape = [1,", f"new_shape = [{batch},")


def bert_inputs(folder, batch=1):
    """rlx-run's flags for bert_model(batch)'s weights and input, written
    under `folder`."""
    layer, x = bert_model(batch)
    params = os.path.join(folder, "bert.safetensors")
    hidden = os.path.join(folder, f"bert-hidden-{batch}.npy")
    write_safetensors(params, bert_layer_params(layer))
    np.save(hidden, x)
    return ["--params", params, "--input", f"hidden={hidden}"]


def torch_case(case, runs):
    """Times one PyTorch case in this process; returns the median in ms."""
    if case == "sgemm":
        a, b = torch.rand(1024, 1024), torch.rand(1024, 1024)
        return time_torch(lambda: a @ b, runs)
    if case.startswith("bert"):
        layer, x = bert_model(int(case[4:] or 1))
        with torch.no_grad():
            return time_torch(lambda: layer(torch.from_numpy(x)), runs)
    m = 4096
    x, y = torch.rand(m, m), torch.rand(m, m)
    g, bb = torch.rand(m), torch.rand(m)
    fns = {"chain": lambda: torch.tanh(x * y + x) * y,
           "softmax": lambda: torch.softmax(x, -1),
           "layer_norm": lambda: F.layer_norm(x, (m,), g, bb)}
    return time_torch(fns[case], runs)


def time_torch_fresh(case, runs):
    """The median of `case` in a fresh process per thread setting:
    {setting: ms}."""
    results = {}
    for setting in TORCH_SETTINGS:
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--torch-worker", case,
             setting, str(runs)], capture_output=True, text=True, check=True,
            env=openblas_env())
        results[setting] = float(proc.stdout.strip().splitlines()[-1])
    return results


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--torch-worker":
        case, setting, runs = sys.argv[2], sys.argv[3], int(sys.argv[4])
        if setting != "default":
            torch.set_num_threads(int(setting))
        print(f"{torch_case(case, runs):.6f}")
        return 0

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", choices=["bert"])
    parser.add_argument("--output", default=os.path.join(ROOT, "docs", "perf", "cpu.md"))
    args = parser.parse_args()

    rlx_run = os.path.join(args.build, "bin", "rlx-run")
    work = tempfile.mkdtemp(prefix="rlx-bench-")

    sgemm_bin = os.path.join(work, "sgemm_openblas")
    subprocess.run(["cc", "-O2", os.path.join(ROOT, "bench", "sgemm_openblas.c"),
                    "-I/usr/include/x86_64-linux-gnu", "-lopenblas", "-o", sgemm_bin],
                   check=True)

    rows = []

    def bench(name, mlir, case, extra=None, flops=None, inputs=None,
              variants=((None, ""),)):
        """Times `mlir` under each (rlx-cpu-pipeline options, name suffix)
        of `variants` and PyTorch's `case`, taking turns in every round;
        one row per variant."""
        if args.only and not case.startswith(args.only):
            return
        path = os.path.join(work, f"case{len(rows)}.mlir")
        with open(path, "w") as f:
            f.write(mlir)
        best = [None] * len(variants)
        errors = [None] * len(variants)
        torch_rounds = []
        for _ in range(args.rounds):
            for i, (options, _) in enumerate(variants):
                ms, errors[i] = time_rlx(rlx_run, path, args.runs, inputs, options)
                if ms is not None:
                    best[i] = ms if best[i] is None else min(best[i], ms)
            torch_rounds.append(time_torch_fresh(case, args.runs))
        torch_ms = {k: min(r[k] for r in torch_rounds) for k in TORCH_SETTINGS}
        for (options, suffix), rlx_ms, error in zip(variants, best, errors):
            print(f"{name}{suffix}: rlx {rlx_ms} ms, torch {torch_ms}"
                  + (f", {extra[0]} {extra[1]:.3f} ms" if extra else ""), flush=True)
            rows.append((name + suffix, rlx_ms, error, torch_ms, extra, flops))

    n = 1024
    blas_ms = 0.0 if args.only else float(subprocess.run([sgemm_bin, str(n), str(args.runs)], capture_output=True,
                                   text=True, check=True, env=openblas_env()).stdout)
    bench("sgemm 1024^3", graph_sgemm(n), "sgemm", ("OpenBLAS", blas_ms), 2 * n ** 3)

    m = 4096
    bench("elementwise chain [4096,4096] (tanh(x*y+x)*y)", graph_chain(m), "chain")
    bench("softmax [4096,4096]", graph_softmax(m), "softmax")
    bench("layer_norm [4096,4096]", graph_layer_norm(m), "layer_norm")
    # The BERT layer at batch 1 and 8, as rlx-run compiles it by default
    # (f32 GEMMs on oneDNN), with the f32 GEMMs on OpenBLAS as before, and
    # with the opt-in bf16 matmul precision.
    bert_data = bert_inputs(work)
    for batch in (1, 8):
        bench(f"BERT-base layer B={batch} S=128", bert_graph(batch),
              f"bert{batch}", inputs=bert_inputs(work, batch),
              variants=((None, ""),
                        ("f32-library=openblas", ", f32-library=openblas"),
                        ("matmul-precision=bf16", ", matmul-precision=bf16")))

    # The layer's GEMM floor: OpenBLAS called directly on each of its GEMM
    # shapes (the 12 heads' attention products as 12 GEMMs each).
    gemms = [("QKV projection", 128, 2304, 768, 1),
             ("attention scores", 128, 128, 64, 12),
             ("attention values", 128, 64, 128, 12),
             ("output projection", 128, 768, 768, 1),
             ("FFN up", 128, 3072, 768, 1), ("FFN down", 128, 768, 3072, 1)]
    floor = []
    for what, gm, gn, gk, count in gemms:
        ms = float(subprocess.run([sgemm_bin, str(gm), str(gn), str(gk), str(args.runs)],
                                  capture_output=True, text=True, check=True,
                                  env=openblas_env()).stdout)
        floor.append((what, gm, gn, gk, count, ms * count))
    profile = subprocess.run([rlx_run, os.path.join(ROOT, "examples", "bert_layer.mlir")] +
                             bert_data + ["--bench", str(args.runs), "--profile"],
                             capture_output=True, text=True).stdout.strip()

    lines = ["# CPU performance", "",
             f"Produced by `bench/cpu_bench.py --runs {args.runs}` on this machine "
             f"({os.cpu_count()} cores), all columns in one run. Times are medians in "
             "ms. rlx runs as `rlx-run --bench` does by default (OpenMP and OpenBLAS "
             "use every core). Each PyTorch case runs in a fresh process in each "
             "thread setting (PyTorch's default, `torch.set_num_threads(1)`, "
             "`torch.set_num_threads(2)`); the comparison is against the best of "
             "them, named in the table. Debian's PyTorch multiplies through OpenBLAS: it "
             "and the direct OpenBLAS baseline get the kernels rlx's runtime picks on this "
             "CPU (`OPENBLAS_CORETYPE`, `bench/openblas_env.py`). The BERT layer runs "
             "PyTorch's initialisation and N(0, 1) hidden states on both sides. "
             "ratio = best PyTorch time / rlx time "
             "(> 1: rlx is faster). Medians move between runs on this shared 2-core "
             "machine, so compare columns within one run." +
             (f" Each number is the lowest of {args.rounds} rounds' medians "
              f"(`--rounds {args.rounds}`); in each round every row of a case "
              "and PyTorch take turns."
              if args.rounds > 1 else ""), "",
             "| benchmark | rlx (ms) | PyTorch 1.13 best (ms) | best setting | "
             "PyTorch default / 1 / 2 threads (ms) | OpenBLAS direct (ms) | "
             "rlx vs PyTorch best | rlx vs OpenBLAS |",
             "|---|---|---|---|---|---|---|---|"]
    for name, rlx_ms, error, torch_ms, extra, flops in rows:
        rlx_cell = f"{rlx_ms:.3f}" if rlx_ms else f"n/a ({error})"
        best = min(torch_ms, key=torch_ms.get)
        settings = " / ".join(f"{torch_ms[k]:.3f}" for k in TORCH_SETTINGS)
        blas = f"{extra[1]:.3f}" if extra else ""
        ratio = f"{torch_ms[best] / rlx_ms:.2f}x" if rlx_ms else ""
        vs_blas = f"{extra[1] / rlx_ms:.2f}x" if extra and rlx_ms else ""
        if flops and rlx_ms:
            rlx_cell += f" ({flops / rlx_ms / 1e6:.0f} GFLOP/s)"
        label = "default" if best == "default" else f"{best} thread" + ("s" if best != "1" else "")
        lines.append(f"| {name} | {rlx_cell} | {torch_ms[best]:.3f} | {label} | {settings} "
                     f"| {blas} | {ratio} | {vs_blas} |")
    floor_ms = sum(row[-1] for row in floor)
    bert_ms = next(row[1] for row in rows if row[0].startswith("BERT"))
    lines += ["", "## Where the BERT layer's time goes", "",
              "The GEMM floor: OpenBLAS called directly on each GEMM shape of the layer "
              "([M, K] x [K, N], same threads), summed:", "",
              "| GEMM | M x N x K | count | OpenBLAS (ms) |", "|---|---|---|---|"]
    lines += [f"| {what} | {gm} x {gn} x {gk} | {count} | {ms:.3f} |"
              for what, gm, gn, gk, count, ms in floor]
    lines += [f"| **total** | | | **{floor_ms:.3f}** |", "",
              f"The rlx layer takes {bert_ms:.3f} ms, {bert_ms / floor_ms:.2f}x its GEMM floor. "
              "Per op (`rlx-run examples/bert_layer.mlir --params bert.safetensors "
              f"--input hidden=bert-hidden.npy --bench {args.runs} --profile`, the "
              "benchmark's weights and input; each line is a source op, its time per run and "
              "share of the wall time):", "", "```", profile, "```"]
    with open(args.output, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    sys.exit(main())
