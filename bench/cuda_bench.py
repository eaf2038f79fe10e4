#!/usr/bin/python3
"""CUDA benchmark: rlx (graphs compiled ahead of time, timed by rlx-run-aot
with CUDA events) and PyTorch side by side on one GPU, in one process call.

Two halves, because the GPU machine has no LLVM/MLIR:

  bench/cuda_bench.py build OUTDIR [--build build]
      here: writes each case's graph and compiles it with
      `rlx-run --target cuda --emit-shared-lib`, next to rlx-run-aot and
      librlx_cuda_runtime.so.
  bench/cuda_bench.py run OUTDIR [--runs 100]
      on the GPU machine: times each case with rlx-run-aot --bench (median of
      the runs after 3 warm-up runs, CUDA events around each run, the
      host-device copies outside; the timed runs replay one captured CUDA
      graph, and --launches adds a column with every op launched in every
      run) and the same computation in PyTorch
      (CUDA events, median after warm-up, fp32 matmuls without TF32 as rlx
      computes them), and prints a Markdown table. Cases named "tf32" are
      compiled with --pipeline-options=allow-tf32 and timed in PyTorch with
      TF32 matmuls allowed (attention: the faster of its f32 backends);
      cases named "scalar" with --pipeline-options=vectorize=false (one
      point per thread in the generic kernels), beside the default.

Inputs stay resident between runs in both, so a case whose data fits in the
L2 cache (50 MiB on an H100/H200) measures cached bandwidth; the large cases
(256 MiB per tensor) do not fit.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = 8192


def t2(n, m, dtype="f32"):
    return f"tensor<{n}x{m}x{dtype}>"


def graph_copy():
    t = t2(N, N)
    return (f"func.func @copy(%x: {t} {{rlx.input = \"x\"}}) -> {t} {{\n"
            f"  return %x : {t}\n}}")


def graph_softmax(rows=N, cols=N):
    t = t2(rows, cols)
    return (f"func.func @softmax(%x: {t} {{rlx.input = \"x\"}}) -> {t} {{\n"
            f"  %0 = rlx.softmax %x {{axis = -1 : i64}} : {t}\n"
            f"  return %0 : {t}\n}}")


def graph_norm(op, rows=N, cols=N):
    t, v = t2(rows, cols), f"tensor<{cols}xf32>"
    return (f"func.func @{op}(%x: {t} {{rlx.input = \"x\"}}, "
            f"%g: {v} {{rlx.param = \"g\"}}, %b: {v} {{rlx.param = \"b\"}}) -> {t} {{\n"
            f"  %0 = rlx.{op} %x, %g, %b {{axis = -1 : i64, eps = 1.0e-5 : f32}}"
            f" : {t}, {v}, {v}\n  return %0 : {t}\n}}")


def graph_binary(op, dtype):
    t = t2(N, N, dtype)
    return (f"func.func @{op}(%x: {t} {{rlx.input = \"x\"}}, %y: {t} {{rlx.input = \"y\"}}) -> {t} {{\n"
            f"  %0 = rlx.binary {op} %x, %y : {t}, {t}\n  return %0 : {t}\n}}")


def graph_bias_gelu():
    t, v = t2(N, N), f"tensor<{N}xf32>"
    return (f"func.func @bias_gelu(%x: {t} {{rlx.input = \"x\"}}, %b: {v} {{rlx.param = \"b\"}}) -> {t} {{\n"
            f"  %0 = rlx.binary add %x, %b : {t}, {v}\n"
            f"  %1 = rlx.activation gelu %0 : {t}\n  return %1 : {t}\n}}")


def graph_sgemm(n):
    t = t2(n, n)
    return (f"func.func @sgemm(%a: {t} {{rlx.input = \"a\"}}, %b: {t} {{rlx.input = \"b\"}}) -> {t} {{\n"
            f"  %0 = rlx.matmul %a, %b : {t}, {t}\n  return %0 : {t}\n}}")


def graph_bert(batch):
    text = open(os.path.join(ROOT, "examples", "bert_layer.mlir")).read()
    text = text.replace("tensor<1x", f"tensor<{batch}x")
    return text.replace("new_shape = [1,", f"new_shape = [{batch},")


def graph_attention(batch, heads, seq, dim, mask, dtype):
    t = f"tensor<{batch}x{heads}x{seq}x{dim}x{dtype}>"
    return (f"func.func @attention(%q: {t} {{rlx.input = \"q\"}}, %k: {t} {{rlx.input = \"k\"}}, "
            f"%v: {t} {{rlx.input = \"v\"}}) -> {t} {{\n"
            f"  %0 = rlx.attention %q, %k, %v {{num_heads = {heads} : i64, head_dim = {dim} : i64, "
            f"mask_kind = #rlx.mask<{mask}>}} : {t}, {t}, {t}\n  return %0 : {t}\n}}")


# name -> (graph, bytes moved or None, flops or None)
def cases():
    f32 = 4
    elems = N * N
    out = {
        "copy [8192, 8192] f32": (graph_copy(), 2 * elems * f32, None),
        "softmax [8192, 8192] f32": (graph_softmax(), 2 * elems * f32, None),
        "layer_norm [8192, 8192] f32": (graph_norm("layer_norm"), 2 * elems * f32, None),
        "rms_norm [8192, 8192] f32": (graph_norm("rms_norm"), 2 * elems * f32, None),
        # The same bytes in other row widths (rows up to 65536 long).
        "softmax [65536, 1024] f32": (graph_softmax(65536, 1024), 2 * elems * f32, None),
        "softmax [1024, 65536] f32": (graph_softmax(1024, 65536), 2 * elems * f32, None),
        "layer_norm [65536, 1024] f32": (graph_norm("layer_norm", 65536, 1024), 2 * elems * f32, None),
        "layer_norm [1024, 65536] f32": (graph_norm("layer_norm", 1024, 65536), 2 * elems * f32, None),
        "add [8192, 8192] f32": (graph_binary("add", "f32"), 3 * elems * f32, None),
        "mul [8192, 8192] f16": (graph_binary("mul", "f16"), 3 * elems * 2, None),
        "bias + gelu [8192, 8192] f32": (graph_bias_gelu(), 2 * elems * f32, None),
        # The same kernels with one point per thread (vectorize=false).
        "add [8192, 8192] f32 scalar": (graph_binary("add", "f32"), 3 * elems * f32, None),
        "mul [8192, 8192] f16 scalar": (graph_binary("mul", "f16"), 3 * elems * 2, None),
        "bias + gelu [8192, 8192] f32 scalar": (graph_bias_gelu(), 2 * elems * f32, None),
        "sgemm 4096 f32": (graph_sgemm(4096), None, 2 * 4096 ** 3),
    }
    for batch in (1, 8, 32):
        out[f"BERT-base layer f32 B={batch}"] = (graph_bert(batch), None, None)
    # allow-tf32 against PyTorch with TF32 matmuls allowed.
    for batch in (8, 32):
        out[f"BERT-base layer f32 B={batch} tf32"] = (graph_bert(batch), None, None)
    # One training step's gradient: @bert_layer_grad of rlx-autodiff (the
    # output and every parameter's gradient for a given output cotangent)
    # against PyTorch's forward + backward().
    for batch in (1, 8):
        out[f"BERT-base layer f32 B={batch} gradient"] = (
            graph_bert(batch), None, None)
    for dtype, dims in (("f16", (64, 128)), ("f32", (64,)), ("f32 tf32", (64, 128))):
        for dim in dims:
            for mask in ("none", "causal"):
                flops = 4 * 8 * 12 * 1024 * 1024 * dim // (2 if mask == "causal" else 1)
                out[f"attention {dtype} B=8 H=12 S=1024 D={dim} {mask}"] = (
                    graph_attention(8, 12, 1024, dim, mask, dtype.split()[0]),
                    None, flops)
    return out


def selected_cases(only):
    return {name: case for name, case in cases().items()
            if only is None or re.search(only, name)}


def slug(name):
    return re.sub(r"[^a-zA-Z0-9]+", "_", name).strip("_")


def build(outdir, build_dir, only):
    os.makedirs(os.path.join(outdir, "bin"), exist_ok=True)
    os.makedirs(os.path.join(outdir, "lib"), exist_ok=True)
    shutil.copy(os.path.join(build_dir, "bin", "rlx-run-aot"), os.path.join(outdir, "bin"))
    for library in ("librlx_cuda_runtime.so", "librlx_custom_ops.so"):
        shutil.copy(os.path.join(build_dir, "lib", library), os.path.join(outdir, "lib"))
    for name, (graph, _, _) in selected_cases(only).items():
        path = os.path.join(outdir, slug(name) + ".mlir")
        with open(path, "w") as f:
            f.write(graph)
        entry = []
        if name.endswith("gradient"):
            subprocess.run([os.path.join(build_dir, "bin", "rlx-opt"), path,
                            "--rlx-autodiff=func=bert_layer", "-o", path],
                           check=True)
            entry = ["--entry", "bert_layer_grad"]
        if " tf32" in name:
            entry.append("--pipeline-options=allow-tf32")
        if name.endswith(" scalar"):
            entry.append("--pipeline-options=vectorize=false")
        proc = subprocess.run(
            [os.path.join(build_dir, "bin", "rlx-run"), path, "--target", "cuda",
             "--emit-shared-lib", os.path.join(outdir, slug(name) + ".so")] + entry,
            capture_output=True, text=True)
        print(f"{name}: {'compiled' if proc.returncode == 0 else 'FAILED ' + proc.stderr[-300:]}")


def time_torch(fn, runs):
    import torch
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(runs):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def torch_case(name, runs):
    """PyTorch's time for case `name`, and the configuration that gave it
    where several were tried."""
    import torch
    import torch.nn.functional as F
    tf32 = " tf32" in name
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    dev = "cuda"
    shape = re.match(r"\w+ \[(\d+), (\d+)\]", name)
    rows, cols = (int(shape.group(1)), int(shape.group(2))) if shape else (N, N)
    x = torch.rand(rows, cols, device=dev)
    g, b = torch.rand(cols, device=dev), torch.rand(cols, device=dev)
    with torch.no_grad():
        if name.startswith("copy"):
            return time_torch(lambda: x.clone(), runs)
        if name.startswith("softmax"):
            return time_torch(lambda: torch.softmax(x, -1), runs)
        if name.startswith("layer_norm"):
            return time_torch(lambda: F.layer_norm(x, (cols,), g, b), runs)
        if name.startswith("rms_norm"):
            return time_torch(lambda: F.rms_norm(x, (cols,), g) + b, runs)
        if name.startswith("add"):
            y = torch.rand(N, N, device=dev)
            return time_torch(lambda: x + y, runs)
        if name.startswith("mul"):
            xh, yh = x.half(), torch.rand(N, N, device=dev, dtype=torch.float16)
            return time_torch(lambda: xh * yh, runs)
        if name.startswith("bias + gelu"):
            return time_torch(lambda: F.gelu(x + g), runs)
        if name.startswith("sgemm"):
            a, c = torch.rand(4096, 4096, device=dev), torch.rand(4096, 4096, device=dev)
            return time_torch(lambda: a @ c, runs)
        if name.startswith("BERT"):
            batch = int(re.search(r"B=(\d+)", name).group(1))
            layer = torch.nn.TransformerEncoderLayer(
                768, 12, 3072, dropout=0.0, activation="gelu", batch_first=True).to(dev).eval()
            h = torch.rand(batch, 128, 768, device=dev)
            if not name.endswith("gradient"):
                return time_torch(lambda: layer(h), runs)
            layer.train()  # dropout is 0: the same function, with autograd
            d = torch.rand(batch, 128, 768, device=dev)

            def step():
                layer.zero_grad(set_to_none=True)
                layer(h).backward(d)
            with torch.enable_grad():
                return time_torch(step, runs)
        if name.startswith("attention"):
            dim = int(re.search(r"D=(\d+)", name).group(1))
            dtype = torch.float16 if " f16 " in name else torch.float32
            q, k, v = (torch.rand(8, 12, 1024, dim, device=dev, dtype=dtype)
                       for _ in range(3))
            causal = name.endswith("causal")
            attend = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            if not tf32:
                return time_torch(attend, runs)
            # f32 under TF32: the best of the backends that take f32.
            from torch.nn.attention import SDPBackend, sdpa_kernel
            best = None
            for backend in (SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH):
                with sdpa_kernel(backend):
                    ms = time_torch(attend, runs)
                if best is None or ms < best[0]:
                    best = (ms, backend.name.lower())
            return best
    raise ValueError(name)


def time_rlx(outdir, name, runs, graphs=True):
    """Median ms of rlx-run-aot --bench: replays of a captured CUDA graph, or
    with graphs=False every op launched in every run."""
    lib = os.path.join(outdir, slug(name) + ".so")
    if not os.path.exists(lib):
        return None
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(outdir, "lib"),
               RLX_CUDA_GRAPHS="1" if graphs else "0")
    proc = subprocess.run(
        [os.path.join(outdir, "bin", "rlx-run-aot"), "--load", lib,
         "--random-inputs", "--bench", str(runs)],
        capture_output=True, text=True, env=env)
    m = re.search(r"bench: median ([0-9.]+) ms", proc.stdout)
    if not m:
        print(f"<!-- {name}: {proc.stderr.strip()[-300:]} -->")
    return float(m.group(1)) if m else None


def run(outdir, runs, only, launches):
    import torch
    card = torch.cuda.get_device_name()
    print(f"card: {card}, PyTorch {torch.__version__}\n")
    extra = " rlx ms, ops launched |" if launches else ""
    print(f"| case | rlx ms |{extra} PyTorch ms | rlx / PyTorch time | rlx throughput |")
    print("|---|---|---|---|---|" + ("---|" if launches else ""))
    for name, (_, bytes_moved, flops) in selected_cases(only).items():
        rlx_ms = time_rlx(outdir, name, runs)
        launched = ""
        if launches:
            launched_ms = time_rlx(outdir, name, runs, graphs=False)
            launched = f" {launched_ms:.3f} |" if launched_ms else " failed |"
        torch_ms = torch_case(name, runs)
        if isinstance(torch_ms, tuple):
            torch_ms, config = torch_ms
            name = f"{name} (PyTorch: {config})"
        rate = ""
        if rlx_ms and bytes_moved:
            rate = f"{bytes_moved / rlx_ms / 1e6:.0f} GB/s"
        elif rlx_ms and flops:
            rate = f"{flops / rlx_ms / 1e9:.2f} TFLOP/s"
        ratio = f"{rlx_ms / torch_ms:.2f}x" if rlx_ms else "failed"
        rlx_text = f"{rlx_ms:.3f}" if rlx_ms else "failed"
        print(f"| {name} | {rlx_text} |{launched} {torch_ms:.3f} | {ratio} | {rate} |",
              flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["build", "run"])
    parser.add_argument("outdir")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--only", metavar="REGEX",
                        help="only the cases whose name matches")
    parser.add_argument("--launches", action="store_true",
                        help="also time rlx with every op launched in every "
                             "run (RLX_CUDA_GRAPHS=0) beside the graph replays")
    args = parser.parse_args()
    if args.mode == "build":
        build(args.outdir, args.build, args.only)
    else:
        run(args.outdir, args.runs, args.only, args.launches)
    return 0


if __name__ == "__main__":
    sys.exit(main())
