#!/usr/bin/python3
"""CPU benchmark of the ResNet-18 convolutions: rlx (rlx-run --bench)
against PyTorch, forward and both gradients, side by side in one run.
Writes its section of docs/perf/cpu.md.

Every distinct convolution of ResNet-18 at 224x224 (the 7x7 stride-2 stem,
the 3x3 stride-1 and stride-2 convolutions, the 1x1 stride-2 downsamples),
at batch 1 and 8, f32, each as three graphs: `rlx.conv` (x, w),
`rlx.conv2d_backward_input` (dy, w) and `rlx.conv2d_backward_weight`
(x, dy), on random inputs. rlx runs as rlx-run does by default (oneDNN
convolutions, `rlx-cpu-lower-convolutions`) and with OMP_NUM_THREADS=1,
compared at the better of the two, and, for the `im2col` column,
with `--pipeline-options=dnnl-convolutions=false` (im2col and an OpenBLAS
GEMM; the gradients as rlx-unfuse decomposes them).

PyTorch runs the same three ops (F.conv2d under torch.no_grad, and
torch.ops.aten.convolution_backward with the output mask of one gradient,
what autograd calls) in a fresh process per thread setting (its default,
torch.set_num_threads(1) and (2)), each process timing every case, with
the OpenBLAS kernels rlx's runtime picks (bench/openblas_env.py); each case
is compared at its best setting. Every measurement is repeated --rounds
times, alternating the sides, and each keeps its lowest median (the least
disturbed round on a shared machine).

Usage: bench/conv_bench.py [--build build] [--runs 20] [--rounds 2]
       [--no-im2col] [--output docs/perf/cpu.md]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from cpu_bench import time_torch  # noqa: E402
from openblas_env import openblas_env  # noqa: E402
from torchvision_bench import replace_section  # noqa: E402

TORCH_SETTINGS = ["default", "1", "2"]
# OMP_NUM_THREADS of rlx-run; its default is every core (2 here).
RLX_SETTINGS = ["default", "1"]
HEADING = "## ResNet-18 convolutions (oneDNN)"
# (where, C_in, H = W, C_out, kernel, stride, padding)
SHAPES = [
    ("stem 7x7/2", 3, 224, 64, 7, 2, 3),
    ("layer1 3x3", 64, 56, 64, 3, 1, 1),
    ("layer2 3x3/2", 64, 56, 128, 3, 2, 1),
    ("layer2 1x1/2", 64, 56, 128, 1, 2, 0),
    ("layer2 3x3", 128, 28, 128, 3, 1, 1),
    ("layer3 3x3/2", 128, 28, 256, 3, 2, 1),
    ("layer3 1x1/2", 128, 28, 256, 1, 2, 0),
    ("layer3 3x3", 256, 14, 256, 3, 1, 1),
    ("layer4 3x3/2", 256, 14, 512, 3, 2, 1),
    ("layer4 1x1/2", 256, 14, 512, 1, 2, 0),
    ("layer4 3x3", 512, 7, 512, 3, 1, 1),
]
BATCHES = [1, 8]
OPS = ["forward", "backward input", "backward weight"]


def cases():
    """(key, shape, batch, op) of every measurement."""
    for shape in SHAPES:
        for batch in BATCHES:
            for op in OPS:
                yield f"{shape[0]} B={batch} {op}", shape, batch, op


def geometry(shape, batch):
    _, cin, h, cout, k, s, p = shape
    ho = (h + 2 * p - k) // s + 1
    return (batch, cin, h, h), (cout, cin, k, k), (batch, cout, ho, ho), s, p


def flops(shape, batch):
    x, w, y, _, _ = geometry(shape, batch)
    return 2 * y[0] * y[1] * y[2] * y[3] * w[1] * w[2] * w[3]


def graph(shape, batch, op):
    x, w, y, s, p = geometry(shape, batch)

    def t(dims):
        return "tensor<" + "x".join(map(str, dims)) + "xf32>"
    geom = (f"kernel_size = [{w[2]}, {w[3]}], stride = [{s}, {s}], padding = "
            f"[{p}, {p}], dilation = [1, 1], groups = 1")
    if op == "forward":
        args, body, result = [("x", x), ("w", w)], (
            f"rlx.conv %x, %w {geom} : {t(x)}, {t(w)}"), y
    elif op == "backward input":
        args, body, result = [("dy", y), ("w", w)], (
            f"rlx.conv2d_backward_input %dy, %w {geom} : {t(y)}, {t(w)} -> "
            f"{t(x)}"), x
    else:
        args, body, result = [("x", x), ("dy", y)], (
            f"rlx.conv2d_backward_weight %x, %dy {geom} : {t(x)}, {t(y)}"), w
    params = ", ".join(f"%{n}: {t(d)} {{rlx.input = \"{n}\"}}"
                       for n, d in args)
    return (f"func.func @main({params}) -> {t(result)} {{\n  %r = {body}\n"
            f"  return %r : {t(result)}\n}}\n")


def torch_worker(setting, runs):
    """Times every case in this (fresh) process; prints {key: median ms}."""
    if setting != "default":
        torch.set_num_threads(int(setting))
    torch.manual_seed(0)
    results = {}
    with torch.no_grad():
        for key, shape, batch, op in cases():
            xs, ws, ys, s, p = geometry(shape, batch)
            x, w, dy = torch.rand(xs), torch.rand(ws), torch.rand(ys)
            if op == "forward":
                def fn():
                    return F.conv2d(x, w, stride=s, padding=p)
            else:
                mask = [op == "backward input", op == "backward weight",
                        False]

                def fn():
                    return torch.ops.aten.convolution_backward(
                        dy, x, w, None, [s, s], [p, p], [1, 1], False,
                        [0, 0], 1, mask)
            results[key] = time_torch(fn, runs)
    print(json.dumps(results))


def time_torch_fresh(runs):
    """{key: {setting: median ms}}, a fresh process per thread setting."""
    results = {}
    for setting in TORCH_SETTINGS:
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--torch-worker",
             setting, str(runs)],
            capture_output=True, text=True, check=True, env=openblas_env())
        for key, ms in json.loads(proc.stdout.strip().splitlines()[-1]).items():
            results.setdefault(key, {})[setting] = ms
    return results


def time_rlx(rlx_run, mlir_path, runs, options=None, threads="default"):
    """The median ms of rlx-run --bench, or None with the error; `threads`
    other than "default" sets OMP_NUM_THREADS (both OpenMP pools)."""
    cmd = [rlx_run, mlir_path, "--random-inputs", "--bench", str(runs)]
    if options:
        cmd.append(f"--pipeline-options={options}")
    env = dict(os.environ)
    if threads != "default":
        env["OMP_NUM_THREADS"] = threads
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    match = re.search(r"bench: median ([0-9.]+) ms", proc.stdout)
    if proc.returncode != 0 or not match:
        return None, (proc.stderr.strip().splitlines() or ["failed"])[-1]
    return float(match.group(1)), None


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--torch-worker":
        torch_worker(sys.argv[2], int(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-im2col", action="store_true",
                        help="skip the im2col column")
    parser.add_argument("--output",
                        default=os.path.join(ROOT, "docs", "perf", "cpu.md"))
    args = parser.parse_args()

    rlx_run = os.path.join(args.build, "bin", "rlx-run")
    work = tempfile.mkdtemp(prefix="rlx-conv-bench-")
    load_before = os.getloadavg()[0]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    paths = {}
    for i, (key, shape, batch, op) in enumerate(cases()):
        paths[key] = os.path.join(work, f"case{i}.mlir")
        with open(paths[key], "w") as f:
            f.write(graph(shape, batch, op))

    best = {}  # (column, key) -> lowest median

    def keep(column, key, ms):
        if ms is not None and ((column, key) not in best
                               or ms < best[(column, key)]):
            best[(column, key)] = ms

    errors = {}
    for round_ in range(args.rounds):
        for key, _, _, _ in cases():
            for threads in RLX_SETTINGS:
                ms, error = time_rlx(rlx_run, paths[key], args.runs,
                                     threads=threads)
                keep(f"rlx {threads}", key, ms)
                if error:
                    errors[key] = error
            if not args.no_im2col:
                ms, _ = time_rlx(rlx_run, paths[key], args.runs,
                                 "dnnl-convolutions=false")
                keep("im2col", key, ms)
            print(f"round {round_ + 1} {key}: rlx "
                  f"{[best.get((f'rlx {t}', key)) for t in RLX_SETTINGS]} "
                  "im2col "
                  f"{best.get(('im2col', key))}", flush=True)
        for key, settings in time_torch_fresh(args.runs).items():
            for setting, ms in settings.items():
                keep(setting, key, ms)
        print(f"round {round_ + 1}: PyTorch done", flush=True)

    lines = [HEADING, "",
             f"Produced by `bench/conv_bench.py --runs {args.runs} --rounds "
             f"{args.rounds}` on {started} on this machine ({os.cpu_count()} "
             "cores, shared with other work: a single run's ratios are good "
             "to about 30%), all columns in one run; each number is the "
             f"lowest of {args.rounds} rounds' medians, the rounds "
             "alternating rlx and PyTorch. f32, random inputs. rlx: "
             "`rlx-run graph.mlir --random-inputs --bench N` with one op per "
             "graph (oneDNN through `rlx-cpu-lower-convolutions`), by default "
             "and with `OMP_NUM_THREADS=1`, compared at the better; im2col: "
             "the default run with "
             "`--pipeline-options=dnnl-convolutions=false`. "
             "PyTorch 1.13: `F.conv2d` and "
             "`torch.ops.aten.convolution_backward` with one gradient's "
             "output mask, in a fresh process per thread setting (default, "
             "`set_num_threads(1)`, `(2)`), compared at the best one. "
             "ratio = best PyTorch time / rlx time (>= 1: rlx is at least "
             "as fast). The 1-minute load average was "
             f"{load_before:.1f} when the run started and "
             f"{os.getloadavg()[0]:.1f} when it ended.", "",
             "| convolution | B | op | rlx best (ms) | GFLOP/s | rlx default "
             "/ 1 thread (ms) | im2col (ms) | PyTorch best (ms) | best "
             "setting | PyTorch default / 1 / 2 threads (ms) | rlx vs "
             "PyTorch best |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    ratios = []
    for key, shape, batch, op in cases():
        torch_ms = {s: best[(s, key)] for s in TORCH_SETTINGS}
        setting = min(torch_ms, key=torch_ms.get)
        label = ("default" if setting == "default" else
                 f"{setting} thread" + ("s" if setting != "1" else ""))
        rlx_by = {t: best[(f"rlx {t}", key)] for t in RLX_SETTINGS
                  if (f"rlx {t}", key) in best}
        rlx_setting = min(rlx_by, key=rlx_by.get) if rlx_by else None
        rlx_ms = rlx_by.get(rlx_setting)
        im2col = best.get(("im2col", key))
        cells = [shape[0], str(batch), op]
        if rlx_ms:
            ratios.append(torch_ms[setting] / rlx_ms)
            cells += [f"{rlx_ms:.3f}",
                      f"{flops(shape, batch) / rlx_ms / 1e6:.0f}",
                      " / ".join(f"{rlx_by[t]:.3f}" if t in rlx_by else "n/a"
                                 for t in RLX_SETTINGS)]
        else:
            cells += [f"n/a ({errors.get(key)})", "", ""]
        cells += [f"{im2col:.3f}" if im2col else "",
                  f"{torch_ms[setting]:.3f}", label,
                  " / ".join(f"{torch_ms[s]:.3f}" for s in TORCH_SETTINGS),
                  f"{torch_ms[setting] / rlx_ms:.2f}x" if rlx_ms else ""]
        lines.append("| " + " | ".join(cells) + " |")
    below = sum(r < 1.0 for r in ratios)
    lines += ["", f"{len(ratios)} cases; rlx is at least as fast as "
              f"PyTorch's best in {len(ratios) - below}; geometric mean "
              f"ratio {statistics.geometric_mean(ratios):.2f}x, lowest "
              f"{min(ratios):.2f}x."]
    replace_section(args.output, "\n".join(lines) + "\n", HEADING)
    print(f"wrote the section '{HEADING[3:]}' of {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
