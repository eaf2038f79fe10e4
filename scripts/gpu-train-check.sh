#!/usr/bin/env bash
# Training on the GPU from ahead-of-time libraries, against the CPU:
#
#   scripts/gpu-train-check.sh build OUTDIR
#       here: for examples/mlp_train.mlir (SGD) and
#       examples/transformer_train.mlir (Adam), writes fixed inputs, a batch
#       per step (--batched) and initial weights, runs 20 training steps on
#       the CPU (rlx-run --steps, writing the trained parameters with
#       --output) and compiles the training step for the cuda target
#       (--emit-shared-lib), beside rlx-run-aot and librlx_cuda_runtime.so.
#   scripts/gpu-train-check.sh run OUTDIR
#       on the GPU machine: runs the 20 steps with rlx-run-aot --steps
#       (the runtime's device-resident steps: one CUDA graph per step,
#       rlx_graph_steps in docs/abi.md) on the fixed inputs, again without
#       CUDA graphs (RLX_CUDA_GRAPHS=0: every step eager), and on the
#       batches; compares every step's loss with the CPU's (rtol 1e-4) and
#       the trained parameters (|gpu - cpu| <= 1e-4 + 1e-4 |cpu|); exits
#       non-zero on a mismatch.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -eq 2 ]] || { echo "usage: $0 build|run OUTDIR" >&2; exit 2; }
mode=$1
out=$2
steps=20
# example:function:optimizer options
examples=("mlp_train:mlp:optimizer=sgd lr=0.1"
          "transformer_train:encoder:optimizer=adam lr=0.01")

build() {
  local build=${RLX_BUILD_DIR:-$root/build}
  rm -rf "$out"
  mkdir -p "$out"
  cp "$build/bin/rlx-run-aot" "$build/lib/librlx_cuda_runtime.so" \
    "$build/lib/librlx_custom_ops.so" "$out/"
  local spec name fn options dir
  for spec in "${examples[@]}"; do
    IFS=: read -r name fn options <<<"$spec"
    dir=$out/$name
    mkdir -p "$dir"
    "$build/bin/rlx-opt" "$root/examples/$name.mlir" \
      --rlx-autodiff="func=$fn $options" >"$dir/step.mlir"
    /usr/bin/python3 "$root/scripts/train_inputs.py" "$name" "$dir" $steps
    "$build/bin/rlx-run" "$dir/step.mlir" --entry "${fn}_train_step" \
      --steps $steps --params "$dir/init.safetensors" --input "x=$dir/x.npy" \
      --input "labels=$dir/labels.npy" --output "$dir/cpu-fixed" \
      >"$dir/cpu-fixed.txt"
    "$build/bin/rlx-run" "$dir/step.mlir" --entry "${fn}_train_step" \
      --steps $steps --params "$dir/init.safetensors" \
      --input "x=$dir/x-batches.npy" --batched x \
      --input "labels=$dir/labels-batches.npy" --batched labels \
      --output "$dir/cpu-batched" >"$dir/cpu-batched.txt"
    "$build/bin/rlx-run" "$dir/step.mlir" --entry "${fn}_train_step" \
      --target cuda --emit-shared-lib "$dir/cuda.so" >/dev/null
    echo "gpu-train-check: $name: $(tail -1 "$dir/cpu-fixed.txt") on the" \
      "CPU ($(tail -1 "$dir/cpu-batched.txt") on the batches)"
  done
}

run() {
  export LD_LIBRARY_PATH=$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  local spec name fn options dir variant failed=0
  for spec in "${examples[@]}"; do
    IFS=: read -r name fn options <<<"$spec"
    dir=$out/$name
    # variant:CPU run it matches:environment
    for variant in fixed:fixed:RLX_CUDA_GRAPHS=1 eager:fixed:RLX_CUDA_GRAPHS=0 \
      batched:batched:RLX_CUDA_GRAPHS=1; do
      local gpu cpu setting inputs
      IFS=: read -r gpu cpu setting <<<"$variant"
      if [[ $cpu == fixed ]]; then
        inputs=(--input "x=$dir/x.npy" --input "labels=$dir/labels.npy")
      else
        inputs=(--input "x=$dir/x-batches.npy" --batched x
                --input "labels=$dir/labels-batches.npy" --batched labels)
      fi
      env "$setting" "$out/rlx-run-aot" --load "$dir/cuda.so" --steps $steps \
        --params "$dir/init.safetensors" "${inputs[@]}" \
        --output "$dir/gpu-$gpu" >"$dir/gpu-$gpu.txt" 2>&1 || true
      python3 - "$dir" "$name" $steps "$gpu" "$cpu" <<'PY' || failed=1
import json, re, struct, sys
import numpy as np
folder, name, steps, gpu_run, cpu_run = sys.argv[1:]
steps = int(steps)
def losses(path):
    return [float(m.group(1)) for m in
            re.finditer(r"step \d+: loss (\S+)", open(path).read())]
def params(path):
    try:
        blob = open(path, "rb").read()
    except OSError:
        return {}
    size = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + size])
    header.pop("__metadata__", None)
    body = blob[8 + size:]
    return {k: np.frombuffer(body[v["data_offsets"][0]:v["data_offsets"][1]],
                             np.float32).reshape(v["shape"])
            for k, v in header.items() if v["dtype"] == "F32"}
cpu = losses(f"{folder}/cpu-{cpu_run}.txt")
gpu = losses(f"{folder}/gpu-{gpu_run}.txt")
worst = max((abs(g - c) / abs(c) for c, g in zip(cpu, gpu)),
            default=float("inf"))
cpu_p = params(f"{folder}/cpu-{cpu_run}/params.safetensors")
gpu_p = params(f"{folder}/gpu-{gpu_run}/params.safetensors")
# The attention's key bias (qkv_b[8:16]) adds q . b to every score of a
# query's row, which the softmax ignores: its gradient is zero but for
# rounding, which Adam scales to steps of lr either way. Those entries are
# only held to Adam's bound, 2 lr per step (lr = 0.01).
noise = {"transformer_train": {"qkv_b": slice(8, 16)}}.get(name, {})
noise_ok = True
for key, part in noise.items():
    if key in cpu_p and key in gpu_p:
        gpu_p[key] = gpu_p[key].copy()
        noise_ok &= bool(np.all(np.abs(gpu_p[key][part] - cpu_p[key][part])
                                <= 2 * 0.01 * steps))
        gpu_p[key][part] = cpu_p[key][part]
excess, where = max(((float(np.max(np.abs(gpu_p[k] - v) - 1e-4 * np.abs(v))),
                      k) for k, v in cpu_p.items() if k in gpu_p),
                    default=(float("inf"), "-"))
ok = (len(cpu) == len(gpu) == steps and worst <= 1e-4 and cpu_p
      and cpu_p.keys() == gpu_p.keys() and excess <= 1e-4 and noise_ok)
print(f"{name} ({gpu_run}): {len(gpu)} steps on the GPU, loss "
      f"{gpu[0] if gpu else '-'} -> {gpu[-1] if gpu else '-'}, largest "
      f"relative loss difference from the CPU {worst:.2e}, {len(gpu_p)} "
      f"parameters within 1e-4 + 1e-4 |cpu| "
      f"(largest excess over 1e-4 |cpu| {excess:.1e}, {where}): "
      f"{'ok' if ok else 'FAIL'}")
if not ok:
    print(open(f"{folder}/gpu-{gpu_run}.txt").read()[-800:])
sys.exit(0 if ok else 1)
PY
    done
  done
  return $failed
}

case $mode in
build) build ;;
run) run ;;
*) echo "usage: $0 build|run OUTDIR" >&2; exit 2 ;;
esac
