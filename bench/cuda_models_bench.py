#!/usr/bin/python3
"""CUDA benchmark of torchvision models imported with rlx.torch: rlx
(compiled ahead of time, timed by rlx-run-aot) against PyTorch in its best
mode on the same GPU, in one call, with each rlx output checked against
PyTorch's.

Two halves, because the GPU machine has no LLVM/MLIR:

  bench/cuda_models_bench.py build OUTDIR [--build build]
      here: imports each case's model (torchvision, f32, eval mode) with
      rlx.torch.import_module and compiles it with `rlx-run --target cuda
      --emit-shared-lib` in each rlx configuration (cuDNN convolutions, the
      generic kernels, TF32), recording the compile time, next to
      rlx-run-aot and librlx_cuda_runtime.so. Parameters are not carried:
      they are arguments of the graph, named by their state_dict paths.
  bench/cuda_models_bench.py run OUTDIR [--runs 50]
      on the GPU machine: builds each model again with torchvision (seed 0,
      batch norm calibrated by three train-mode passes, then eval), saves
      its state_dict as the graph's parameters (.npz), runs the rlx library
      on one N(0, 1) input and checks its output against PyTorch's
      (max |rlx - torch| / max |torch|), then times rlx-run-aot --bench (the
      median of the runs after warm-up, CUDA events, each run a replay of
      one captured CUDA graph) and PyTorch (CUDA events, median after
      warm-up) in each of eager, torch.compile default, reduce-overhead
      and max-autotune, channels-last, cudnn.benchmark=True, and prints a
      Markdown table with the ratio rlx time / PyTorch's best time.

Precision: `f32` cases run without TF32 on both sides
(torch.backends.cudnn.allow_tf32 and cuda.matmul.allow_tf32 off, rlx's
default); `tf32` cases with TF32 on both sides (rlx's
`--pipeline-options=allow-tf32`); `bf16` cases run the model converted
with `.bfloat16()` on both sides (rlx imports the bf16 model: bf16
parameters and activations, f32 accumulation inside its kernels), the
parameters, input and output passing through .safetensors files; their
max error is against the f32 model's output on the same (bf16) input,
with PyTorch's own bf16 error beside it.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cuda_bench import time_torch  # noqa: E402  (CUDA events, median)

# (model, batch, precision); each rlx configuration is compiled for each.
CASES = [("resnet50", 1, "f32"), ("resnet50", 32, "f32"),
         ("resnet50", 128, "f32"), ("resnet50", 32, "tf32"),
         ("resnet50", 128, "tf32"), ("resnet50", 1, "bf16"),
         ("resnet50", 32, "bf16"), ("resnet50", 128, "bf16"),
         ("resnet18", 16, "f32"), ("mobilenet_v2", 8, "f32")]
# rlx configurations: name -> pipeline options. `cudnn` runs every
# convolution through cuDNN (batch 1 too, which the default leaves to the
# generic kernels) in the default layout (NHWC for bf16, NCHW for f32);
# `cudnn-nchw` keeps bf16 in NCHW, to show what the layout is worth;
# `generic` none, and only for f32 ResNet-50 at batch 1 and 32, as the
# reference point.
CONFIGS = {"cudnn": ["cudnn-min-batch=1"],
           "cudnn-nchw": ["cudnn-min-batch=1", "cudnn-layout=nchw"],
           "generic": ["cudnn=false"]}
GENERIC_CASES = {("resnet50", 1, "f32"), ("resnet50", 32, "f32")}
TORCH_MODES = ["eager", "default", "reduce-overhead", "max-autotune"]


def slug(model, batch, precision, config):
    return f"{model}-b{batch}-{precision}-{config}"


def calibrated_model(name):
    """torchvision's `name`, random weights (seed 0), batch norm affine
    parameters random and statistics calibrated, in eval mode."""
    import torch
    import torchvision
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None)
    norms = [m for m in model.modules()
             if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        for norm in norms:
            norm.momentum = None
            norm.weight.uniform_(0.5, 1.5)
            norm.bias.uniform_(-0.2, 0.2)
            norm.reset_running_stats()
        model.train()
        generator = torch.Generator().manual_seed(1)
        for _ in range(3):
            model(torch.randn(4, 3, 224, 224, generator=generator))
    return model.eval()


def build(outdir, build_dir, only):
    import torch
    import rlx.torch
    os.makedirs(os.path.join(outdir, "bin"), exist_ok=True)
    os.makedirs(os.path.join(outdir, "lib"), exist_ok=True)
    shutil.copy(os.path.join(build_dir, "bin", "rlx-run-aot"),
                os.path.join(outdir, "bin"))
    for library in ("librlx_cuda_runtime.so", "librlx_custom_ops.so"):
        shutil.copy(os.path.join(build_dir, "lib", library),
                    os.path.join(outdir, "lib"))
    for script in (os.path.abspath(__file__),
                   os.path.join(HERE, "cuda_bench.py")):
        shutil.copy(script, os.path.join(outdir, "bin"))
    compile_s = {}
    for model_name, batch, precision in CASES:
        if only and not re.search(only, f"{model_name} {batch} {precision}"):
            continue
        model = calibrated_model(model_name)
        x = torch.randn(batch, 3, 224, 224)
        if precision == "bf16":
            model, x = model.bfloat16(), x.bfloat16()
        mlir, _ = rlx.torch.import_module(model, x)
        mlir_path = os.path.join(outdir,
                                 f"{model_name}-b{batch}-{precision}.mlir")
        with open(mlir_path, "w") as f:
            f.write(mlir)
        for config, options in CONFIGS.items():
            if config == "generic" and \
                    (model_name, batch, precision) not in GENERIC_CASES:
                continue
            if config == "cudnn-nchw" and precision != "bf16":
                continue
            if precision == "tf32":
                options = options + ["allow-tf32"]
            name = slug(model_name, batch, precision, config)
            start = time.perf_counter()
            proc = subprocess.run(
                [os.path.join(build_dir, "bin", "rlx-run"), mlir_path,
                 "--target", "cuda", "--emit-shared-lib",
                 os.path.join(outdir, name + ".so"),
                 "--pipeline-options=" + " ".join(options)],
                capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if proc.returncode == 0:
                compile_s[name] = seconds
            print(f"{name}: " + (f"compiled in {seconds:.1f} s"
                                 if proc.returncode == 0 else
                                 "FAILED " + proc.stderr[-400:]), flush=True)
        os.remove(mlir_path)
    with open(os.path.join(outdir, "compile.json"), "w") as f:
        json.dump(compile_s, f)


def torch_best(model, x, runs, modes):
    """(best median ms, mode, {mode: ms}) of the model in each mode,
    channels-last, under inference_mode."""
    import torch
    model = model.cuda().to(memory_format=torch.channels_last)
    x = x.cuda().to(memory_format=torch.channels_last)
    times = {}
    for mode in modes:
        try:
            torch._dynamo.reset()
            fn = model if mode == "eager" else torch.compile(model, mode=mode)
            with torch.inference_mode():
                times[mode] = time_torch(lambda: fn(x), runs)
        except Exception as error:  # noqa: BLE001 (a mode may not apply)
            print(f"<!-- torch {mode}: {str(error).splitlines()[0][:200]} -->")
    best = min(times, key=times.get)
    return times[best], best, times


SAFETENSORS_DTYPES = {"torch.float32": "F32", "torch.bfloat16": "BF16"}


def save_safetensors(path, tensors):
    """Writes name -> CPU torch tensor (f32 or bf16) as .safetensors (the
    GPU machine has no rlx Python package)."""
    import json
    import struct
    import torch
    header, chunks, offset = {}, [], 0
    for name, tensor in tensors.items():
        tensor = tensor.contiguous()
        raw = (tensor.view(torch.int16) if tensor.dtype == torch.bfloat16
               else tensor).numpy().tobytes()
        header[name] = {"dtype": SAFETENSORS_DTYPES[str(tensor.dtype)],
                        "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def load_safetensors_f32(path, name):
    """Tensor `name` of a .safetensors file as a float32 NumPy array."""
    import json
    import struct
    import numpy as np
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        entry = json.loads(f.read(size))[name]
        f.seek(8 + size + entry["data_offsets"][0])
        raw = f.read(entry["data_offsets"][1] - entry["data_offsets"][0])
    if entry["dtype"] == "BF16":
        bits = np.frombuffer(raw, np.uint16).astype(np.uint32) << 16
        return bits.view(np.float32).reshape(entry["shape"])
    return np.frombuffer(raw, np.float32).reshape(entry["shape"])


def run_rlx(outdir, name, params, inputs, extra):
    lib = os.path.join(outdir, name + ".so")
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(outdir, "lib"))
    return subprocess.run(
        [os.path.join(outdir, "bin", "rlx-run-aot"), "--load", lib,
         "--params", params, "--input", f"x={inputs}"] + extra,
        capture_output=True, text=True, env=env)


def run(outdir, runs, only, modes, compile_max_batch):
    import numpy as np
    import torch
    torch.backends.cudnn.benchmark = True
    card = torch.cuda.get_device_name()
    compile_s = json.load(open(os.path.join(outdir, "compile.json")))
    print(f"card: {card}, PyTorch {torch.__version__}, cuDNN "
          f"{torch.backends.cudnn.version()}; PyTorch modes: "
          f"{', '.join(modes)}\n")
    print("| model | batch | precision | rlx config | compile s | max error "
          "| rlx ms | PyTorch ms (best mode) | rlx / PyTorch time |")
    print("|---|---|---|---|---|---|---|---|---|")
    work = os.path.join(outdir, "work")
    os.makedirs(work, exist_ok=True)
    for model_name, batch, precision in CASES:
        if only and not re.search(only, f"{model_name} {batch} {precision}"):
            continue
        tf32 = precision == "tf32"
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        model = calibrated_model(model_name)
        x = torch.randn(batch, 3, 224, 224,
                        generator=torch.Generator().manual_seed(2))
        bf16 = precision == "bf16"
        if bf16:
            model, x = model.bfloat16(), x.bfloat16()
            params = os.path.join(work, "params.safetensors")
            save_safetensors(params, {k: v for k, v in
                                      model.state_dict().items()
                                      if v.is_floating_point()})
            inputs = os.path.join(work, "x.safetensors")
            save_safetensors(inputs, {"x": x})
            inputs += ":x"
        else:
            params = os.path.join(work, "params.npz")
            np.savez(params, **{k: v.numpy() for k, v in
                                model.state_dict().items()
                                if v.is_floating_point()})
            inputs = os.path.join(work, "x.npy")
            np.save(inputs, x.numpy())
        with torch.inference_mode():
            want = model.cuda()(x.cuda()).float().cpu().numpy()
            torch_bf16_error = None
            if bf16:
                torch_bf16 = want
                want = calibrated_model(model_name).cuda()(
                    x.float().cuda()).cpu().numpy()
                torch_bf16_error = float(np.abs(torch_bf16 - want).max() /
                                         np.abs(want).max())
        case_modes = [m for m in modes
                      if m == "eager" or batch <= compile_max_batch]
        torch_ms, mode, _ = torch_best(model, x, runs, case_modes)
        for config in CONFIGS:
            name = slug(model_name, batch, precision, config)
            if name not in compile_s:
                continue
            out = os.path.join(work, "out.safetensors" if bf16
                               else "out.npy")
            proc = run_rlx(outdir, name, params, inputs,
                           ["--output", out])
            if proc.returncode != 0:
                # The message, not the stack dump after it.
                message = " ".join(
                    line.strip() for line in proc.stderr.splitlines()
                    if line.strip() and not re.match(r"\s*#?\d+ ", line)
                    and "Stack dump" not in line)[:400]
                print(f"| {model_name} | {batch} | {precision} | {config} | "
                      f"{compile_s[name]:.1f} | failed (exit "
                      f"{proc.returncode}): {message} | | | |")
                continue
            if bf16:
                got = load_safetensors_f32(out, "output_0")
            else:
                got = np.load(os.path.join(out, "output_0.npy")) \
                    if os.path.isdir(out) else np.load(out)
            error = f"{np.abs(got - want).max() / np.abs(want).max():.1e}"
            if torch_bf16_error is not None:
                error += f" (PyTorch {torch_bf16_error:.1e})"
            proc = run_rlx(outdir, name, params, inputs,
                           ["--bench", str(runs)])
            match = re.search(r"bench: median ([0-9.]+) ms", proc.stdout)
            rlx_ms = float(match.group(1)) if match else None
            print(f"| {model_name} | {batch} | {precision} | {config} | "
                  f"{compile_s[name]:.1f} | {error} | "
                  + (f"{rlx_ms:.3f}" if rlx_ms else "failed") +
                  f" | {torch_ms:.3f} ({mode}) | "
                  + (f"{rlx_ms / torch_ms:.2f}" if rlx_ms else "-") + " |",
                  flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["build", "run"])
    parser.add_argument("outdir")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--only", metavar="REGEX",
                        help="only the cases whose 'model batch precision' "
                             "matches")
    parser.add_argument("--torch-modes", default=",".join(TORCH_MODES),
                        help="PyTorch modes to try (comma-separated)")
    parser.add_argument("--compile-max-batch", type=int, default=1 << 30,
                        help="try the torch.compile modes only up to this "
                             "batch (eager alone above it)")
    args = parser.parse_args()
    if args.mode == "build":
        build(args.outdir, args.build, args.only)
    else:
        run(args.outdir, args.runs, args.only,
            args.torch_modes.split(","), args.compile_max_batch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
