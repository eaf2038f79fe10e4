#!/usr/bin/python3
"""Error of rlx's f32 matmul precisions against float64: one GEMM and the
BERT-base layer (examples/bert_layer.mlir), each compiled by rlx-run with
the default (f32) and with --pipeline-options=matmul-precision=bf16.

Errors are taken against a float64 oracle (NumPy for the GEMM, PyTorch's
TransformerEncoderLayer in double precision for the layer, same weights)
and printed as
  max abs: max |got - want|
  max rel: max |got - want| / max |want|  (relative to the output's scale)
  max bound: for the GEMM, max |got - want| / (|a| |b|), the error per
             element relative to sum_k |a_k b_k| (what bf16 rounding
             bounds: at most 2^-7 + K 2^-24).
PyTorch's own f32 layer is listed beside rlx's for scale.

Usage: bench/matmul_precision.py [--build build]
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "test", "Execution", "lib"))
from cpu_bench import bert_graph, bert_model  # noqa: E402
from rlxcheck import write_safetensors  # noqa: E402
from torch_reference import bert_layer_params  # noqa: E402

PRECISIONS = {"f32": None, "bf16": "matmul-precision=bf16"}


def run_rlx(rlx_run, work, mlir, inputs, params, options):
    """Runs `mlir` once and returns its first output."""
    path = os.path.join(work, "graph.mlir")
    with open(path, "w") as f:
        f.write(mlir)
    cmd = [rlx_run, path, "--output", os.path.join(work, "out")]
    if params is not None:
        write_safetensors(os.path.join(work, "p.safetensors"), params)
        cmd += ["--params", os.path.join(work, "p.safetensors")]
    for name, value in inputs.items():
        np.save(os.path.join(work, f"{name}.npy"), value)
        cmd += ["--input", f"{name}={os.path.join(work, name + '.npy')}"]
    if options:
        cmd += [f"--pipeline-options={options}"]
    subprocess.run(cmd, check=True, capture_output=True)
    return np.load(os.path.join(work, "out", "output_0.npy"))


def errors(got, want, scale=None):
    diff = np.abs(got.astype(np.float64) - want)
    text = f"max abs {diff.max():.3e}, max rel {diff.max() / np.abs(want).max():.3e}"
    if scale is not None:
        text += f", max bound {(diff / scale).max():.3e}"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    rlx_run = os.path.join(args.build, "bin", "rlx-run")
    work = tempfile.mkdtemp(prefix="rlx-precision-")

    rng = np.random.default_rng(0)
    m, k, n = 128, 768, 3072
    a = rng.standard_normal((m, k), np.float32)
    b = rng.standard_normal((k, n), np.float32)
    mlir = (f"func.func @main(%a: tensor<{m}x{k}xf32> {{rlx.input = \"a\"}}, "
            f"%b: tensor<{k}x{n}xf32> {{rlx.input = \"b\"}}) -> tensor<{m}x{n}xf32> {{\n"
            f"  %0 = rlx.matmul %a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>\n"
            f"  return %0 : tensor<{m}x{n}xf32>\n}}")
    want = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    for name, options in PRECISIONS.items():
        got = run_rlx(rlx_run, work, mlir, {"a": a, "b": b}, None, options)
        print(f"GEMM {m}x{n}x{k} N(0,1) rlx {name}: {errors(got, want, scale)}")

    for batch in (1, 8):
        layer, x = bert_model(batch)
        with torch.no_grad():
            want = layer.double()(torch.from_numpy(x).double()).numpy()
            layer.float()
            torch_f32 = layer(torch.from_numpy(x)).numpy()
        params = bert_layer_params(layer)
        print(f"BERT layer B={batch} PyTorch f32: {errors(torch_f32, want)}")
        for name, options in PRECISIONS.items():
            got = run_rlx(rlx_run, work, bert_graph(batch), {"hidden": x},
                          params, options)
            print(f"BERT layer B={batch} rlx {name}: {errors(got, want)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
