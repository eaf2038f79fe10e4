#!/usr/bin/python3
"""Quantized GEMM benchmark: rlx.dequant_matmul (GGUF q4_0 and q8_0) through
the CPU's per-tile kernel and through the whole-weight decode, against the
f32 rlx.matmul and PyTorch's f32 matmul of the same shape, all in one run.
Writes the "Quantized GEMMs" section of docs/perf/cpu.md.

x [M, 4096] times W [4096, 4096] for M = 1, 32, 128. rlx runs as rlx-run
--bench does by default (the per-tile kernel), and with
--pipeline-options=quant-gemm-kernel=false (the weight decoded whole, then
the BLAS GEMM). The weights are realistic: random codes with f16 scales
around 0.01 (the --random-inputs bytes would make subnormal scales, which
the CPU multiplies in microcode), x is N(0, 1). Each PyTorch case runs in a
fresh process in every thread setting (default, 1, 2; OpenBLAS with the
kernels rlx's runtime picks, bench/openblas_env.py), compared at its best,
as bench/cpu_bench.py does. Times are medians of --runs runs.

Usage: bench/quant_bench.py [--build build] [--runs 30]
"""

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from openblas_env import openblas_env  # noqa: E402

K = N = 4096
ROWS = (1, 32, 128)
# Elements and bytes per block.
FORMATS = {"gguf_q4_0": (32, 18), "gguf_q8_0": (32, 34)}
TORCH_SETTINGS = ["default", "1", "2"]
SECTION = "## Quantized GEMMs"


def packed_weight(scheme, rng):
    """Random GGUF bytes of a [K, N] weight: N rows of K / 32 blocks."""
    elements, size = FORMATS[scheme]
    count = N * K // elements
    blocks = rng.integers(0, 256, (count, size)).astype(np.uint8)
    d = rng.uniform(0.005, 0.02, count).astype(np.float16)
    blocks[:, 0:2] = d.view(np.uint8).reshape(count, 2)
    return blocks.reshape(-1)


def graph(scheme, m, weight_bytes):
    x = f"tensor<{m}x{K}xf32>"
    out = f"tensor<{m}x{N}xf32>"
    if scheme == "f32":
        w = f"tensor<{K}x{N}xf32>"
        op = f"rlx.matmul %x, %w : {x}, {w}"
    else:
        w = f"tensor<{weight_bytes}xui8>"
        op = f"rlx.dequant_matmul {scheme} %x, %w : {x}, {w}"
    return (f"func.func @main(%x: {x} {{rlx.input = \"x\"}}, "
            f"%w: {w} {{rlx.input = \"w\"}}) -> {out} {{\n"
            f"  %0 = {op}\n  return %0 : {out}\n}}\n")


def time_rlx(rlx_run, path, inputs, runs, extra=()):
    """(median ms, peak MiB of the runtime's buffers) or (None, error)."""
    proc = subprocess.run([rlx_run, path, *inputs, "--bench", str(runs),
                           *extra], capture_output=True, text=True)
    median = re.search(r"bench: median ([0-9.]+) ms", proc.stdout)
    peak = re.search(r"memory: peak \d+ bytes \(([0-9.]+) MiB\)", proc.stdout)
    if proc.returncode != 0 or not median:
        return None, (proc.stderr.strip().splitlines() or ["failed"])[-1]
    return float(median.group(1)), float(peak.group(1)) if peak else None


def torch_worker(m, setting, runs):
    import torch
    if setting != "default":
        torch.set_num_threads(int(setting))
    x, w = torch.randn(m, K), torch.randn(K, N)
    for _ in range(3):
        x @ w
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        x @ w
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def time_torch_fresh(m, runs):
    results = {}
    for setting in TORCH_SETTINGS:
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--torch-worker",
             str(m), setting, str(runs)], capture_output=True, text=True,
            check=True, env=openblas_env())
        results[setting] = float(proc.stdout.strip().splitlines()[-1])
    return results


def gflops(m, ms):
    return f"{2 * m * N * K / ms / 1e6:.1f}" if ms else "n/a"


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--torch-worker":
        m, setting, runs = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
        print(f"{torch_worker(m, setting, runs):.6f}")
        return 0

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--output",
                        default=os.path.join(ROOT, "docs", "perf", "cpu.md"))
    args = parser.parse_args()

    rlx_run = os.path.join(args.build, "bin", "rlx-run")
    work = tempfile.mkdtemp(prefix="rlx-quant-bench-")
    rng = np.random.default_rng(0)
    weights = {}
    for scheme in FORMATS:
        path = os.path.join(work, f"{scheme}.npy")
        np.save(path, packed_weight(scheme, rng))
        weights[scheme] = path
    weights["f32"] = os.path.join(work, "f32.npy")
    np.save(weights["f32"], rng.standard_normal((K, N), np.float32))

    rows = []
    for m in ROWS:
        x_path = os.path.join(work, f"x{m}.npy")
        np.save(x_path, rng.standard_normal((m, K), np.float32))
        cells = {}
        for scheme in ("gguf_q4_0", "gguf_q8_0", "f32"):
            size = np.load(weights[scheme], mmap_mode="r").size
            path = os.path.join(work, f"{scheme}-{m}.mlir")
            with open(path, "w") as f:
                f.write(graph(scheme, m, size))
            inputs = ["--input", f"x={x_path}", "--input",
                      f"w={weights[scheme]}"]
            cells[scheme] = time_rlx(rlx_run, path, inputs, args.runs)
            if scheme != "f32":
                cells[scheme + " whole"] = time_rlx(
                    rlx_run, path, inputs, args.runs,
                    ["--pipeline-options=quant-gemm-kernel=false"])
        torch_ms = time_torch_fresh(m, args.runs)
        print(f"M={m}: {cells} torch {torch_ms}", flush=True)
        rows.append((m, cells, torch_ms))

    def cell(result, m):
        ms, peak = result
        if ms is None:
            return f"n/a ({peak})"
        return f"{ms:.3f} ({gflops(m, ms)})"

    lines = [SECTION, "",
             f"Produced by `bench/quant_bench.py --runs {args.runs}` on "
             f"{datetime.date.today().isoformat()} ({os.cpu_count()} cores), "
             "all columns in one run: `rlx.dequant_matmul` of x [M, 4096] and "
             "a GGUF q4_0 (4.5 bits per weight) or q8_0 (8.5 bits) W [4096, "
             "4096] through the CPU's per-tile kernel (\"tiles\", the "
             "default) and with `--pipeline-options=quant-gemm-kernel=false` "
             "(\"whole\": the weight decoded into an f32 buffer, then the "
             "BLAS GEMM), the f32 `rlx.matmul` of the same shape, and "
             "PyTorch's f32 `x @ w` at its best thread setting (a fresh "
             "process each for default, 1 and 2 threads). Medians in ms "
             "(GFLOP/s = 2 M N K / time). speedup = whole / tiles; vs f32 = "
             "rlx f32 time / tiles. This shared 2-core machine moves "
             "medians by up to about 30% between runs; compare within a "
             "row. The last column is the peak of the runtime's buffers "
             "(`rlx-run --bench`'s `memory: peak` line: the graph's own "
             "temporaries, such as the whole decoded f32 weight; the per-tile "
             "kernel's own panel, 1 MiB for M > 8, is not among them).", "",
             "| M | format | tiles ms (GFLOP/s) | whole ms (GFLOP/s) | "
             "speedup | rlx f32 ms (GFLOP/s) | PyTorch f32 best ms "
             "(GFLOP/s) | tiles vs f32 | peak MiB tiles / whole |",
             "|---|---|---|---|---|---|---|---|---|"]
    for m, cells, torch_ms in rows:
        best = min(torch_ms, key=torch_ms.get)
        label = "default" if best == "default" else \
            f"{best} thread" + ("s" if best != "1" else "")
        f32_ms = cells["f32"][0]
        for scheme in FORMATS:
            tiles, whole = cells[scheme], cells[scheme + " whole"]
            speedup = f"{whole[0] / tiles[0]:.2f}x" if tiles[0] and \
                whole[0] else ""
            vs_f32 = f"{f32_ms / tiles[0]:.2f}x" if tiles[0] and f32_ms \
                else ""
            peaks = f"{tiles[1]:.0f} / {whole[1]:.0f}" if tiles[0] and \
                whole[0] and tiles[1] is not None and whole[1] is not None \
                else ""
            lines.append(
                f"| {m} | {scheme[5:]} | {cell(tiles, m)} | "
                f"{cell(whole, m)} | {speedup} | {cell(cells['f32'], m)} | "
                f"{torch_ms[best]:.3f} ({gflops(m, torch_ms[best])}, "
                f"{label}) | {vs_f32} | {peaks} |")
    section = "\n".join(lines) + "\n"

    # Replace this script's section of the page, keeping the rest.
    text = ""
    if os.path.exists(args.output):
        with open(args.output) as f:
            text = f.read()
    if SECTION in text:
        begin = text.index(SECTION)
        end = text.find("\n## ", begin + len(SECTION))
        text = text[:begin] + section + (text[end + 1:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    with open(args.output, "w") as f:
        f.write(text)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
