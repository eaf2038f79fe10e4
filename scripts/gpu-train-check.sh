#!/usr/bin/env bash
# Training on the GPU from ahead-of-time libraries, against the CPU:
#
#   scripts/gpu-train-check.sh build OUTDIR
#       here: for examples/mlp_train.mlir (SGD) and
#       examples/transformer_train.mlir (Adam), writes fixed inputs and
#       initial weights, runs 20 training steps on the CPU
#       (rlx-run --steps) and compiles the training step for the cuda target
#       (--emit-shared-lib), beside rlx-run-aot and librlx_cuda_runtime.so.
#   scripts/gpu-train-check.sh run OUTDIR
#       on the GPU machine: runs the 20 steps with rlx-run-aot --steps and
#       compares every step's loss with the CPU's (rtol 1e-4); exits
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
    /usr/bin/python3 "$root/scripts/train_inputs.py" "$name" "$dir"
    "$build/bin/rlx-run" "$dir/step.mlir" --entry "${fn}_train_step" \
      --steps $steps --params "$dir/init.safetensors" --input "x=$dir/x.npy" \
      --input "labels=$dir/labels.npy" >"$dir/cpu.txt"
    "$build/bin/rlx-run" "$dir/step.mlir" --entry "${fn}_train_step" \
      --target cuda --emit-shared-lib "$dir/cuda.so" >/dev/null
    echo "gpu-train-check: $name: $(tail -1 "$dir/cpu.txt") on the CPU"
  done
}

run() {
  export LD_LIBRARY_PATH=$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  local spec name fn options dir failed=0
  for spec in "${examples[@]}"; do
    IFS=: read -r name fn options <<<"$spec"
    dir=$out/$name
    "$out/rlx-run-aot" --load "$dir/cuda.so" --steps $steps \
      --params "$dir/init.safetensors" --input "x=$dir/x.npy" \
      --input "labels=$dir/labels.npy" >"$dir/gpu.txt" 2>&1 || true
    python3 - "$dir" "$name" $steps <<'PY' || failed=1
import re, sys
folder, name, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
def losses(path):
    return [float(m.group(1)) for m in
            re.finditer(r"step \d+: loss (\S+)", open(path).read())]
cpu, gpu = losses(f"{folder}/cpu.txt"), losses(f"{folder}/gpu.txt")
worst = max((abs(g - c) / abs(c) for c, g in zip(cpu, gpu)),
            default=float("inf"))
ok = len(cpu) == len(gpu) == steps and worst <= 1e-4
print(f"{name}: {len(gpu)} steps on the GPU, loss {gpu[0] if gpu else '-'} -> "
      f"{gpu[-1] if gpu else '-'}, largest relative difference from the CPU "
      f"{worst:.2e}: {'ok' if ok else 'FAIL'}")
if not ok:
    print(open(f"{folder}/gpu.txt").read()[-800:])
sys.exit(0 if ok else 1)
PY
  done
  return $failed
}

case $mode in
build) build ;;
run) run ;;
*) echo "usage: $0 build|run OUTDIR" >&2; exit 2 ;;
esac
