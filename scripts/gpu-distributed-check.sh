#!/usr/bin/env bash
# The CUDA target's collectives over NCCL, one process per GPU, in two
# halves (as scripts/gpu-check.sh):
#
#   scripts/gpu-distributed-check.sh build OUTDIR [N ...]
#       here (LLVM/MLIR, no GPU): compiles the collectives test's graph
#       (test/Execution/Distributed/collectives.py) for the cuda target for
#       N ranks (default 2), with each rank's inputs and NumPy's expected
#       outputs, the data-parallel training cases of data-parallel.py and
#       a 128 MiB all-reduce to time, beside rlx-run-aot and the CUDA
#       runtime.
#   scripts/gpu-distributed-check.sh run OUTDIR
#       on a machine with N GPUs (NVIDIA driver and NCCL, no LLVM/MLIR):
#       runs each case with `rlx-run-aot --ranks N`, every rank checking
#       its outputs; trains the data-parallel cases on N GPUs against one;
#       times the all-reduce beside PyTorch's; exits non-zero if any
#       failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: $0 build OUTDIR [N ...] | run OUTDIR" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
mode=$1
out=$2
shift 2

case $mode in
build)
  build=${RLX_BUILD_DIR:-$root/build}
  rm -rf "$out"
  mkdir -p "$out/bin" "$out/lib"
  cp "$build/bin/rlx-run-aot" "$out/bin/"
  cp "$build/lib/librlx_cuda_runtime.so" "$build/lib/librlx_custom_ops.so" \
    "$out/lib/"
  python=$(sed -n 's/^config.oracle_python = "\(.*\)"$/\1/p' \
    "$build/test/lit.site.cfg.py" 2>/dev/null)
  [[ -n $python ]] || python=python3
  ranks=("$@")
  [[ ${#ranks[@]} -gt 0 ]] || ranks=(2)
  for n in "${ranks[@]}"; do
    "$python" "$root/test/Execution/Distributed/collectives.py" --emit-cuda \
      "$out/collectives-$n" "$build/bin/rlx-run" "$n"
    # The all-reduce bandwidth, against PyTorch's (bench/allreduce_torch.py):
    # 2^25 f32 (128 MiB) summed over the n GPUs.
    mkdir -p "$out/bench-$n"
    printf '%s\n' \
      "func.func @all_reduce(%x: tensor<33554432xf32> {rlx.input = \"x\"}) -> tensor<33554432xf32> {" \
      "  %0 = rlx.all_reduce sum %x mesh [$n] : tensor<33554432xf32>" \
      "  return %0 : tensor<33554432xf32>" "}" >"$out/bench-$n/all-reduce.mlir"
    "$build/bin/rlx-run" "$out/bench-$n/all-reduce.mlir" --target cuda \
      --no-cache --emit-shared-lib "$out/bench-$n/all-reduce.so"
    # Data-parallel training (Adam, the MLP and encoder examples): n GPUs
    # against one on the whole batch.
    "$python" "$root/test/Execution/Distributed/data-parallel.py" \
      --emit-cuda "$out/data-parallel-$n" "$build/bin/rlx-opt" \
      "$build/bin/rlx-run" "$root/examples" "$n"
  done
  cp "$root/bench/allreduce_torch.py" "$out/bin/"
  cp "$root/test/Execution/Distributed/data-parallel.py" \
    "$root/test/Execution/lib/rlxcheck.py" "$root/scripts/train_inputs.py" \
    "$out/bin/"
  ;;
run)
  # NVLink multicast stays off (shared machines).
  export NCCL_NVLS_ENABLE=0
  export LD_LIBRARY_PATH=$out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  failed=0
  for case in "$out"/collectives-*/; do
    echo "== $(basename "$case")"
    if ! bash "$case/run.sh" "$out/bin/rlx-run-aot"; then
      echo "FAIL: $(basename "$case")"
      failed=1
    fi
  done
  for case in "$out"/data-parallel-*/; do
    echo "== $(basename "$case")"
    python3 "$out/bin/data-parallel.py" --run-cuda "$case" \
      "$out/bin/rlx-run-aot" || { echo "FAIL: $(basename "$case")"; failed=1; }
  done
  for bench in "$out"/bench-*/; do
    n=${bench%/}; n=${n##*-}
    echo "== all_reduce f32 x33554432 on $n GPUs"
    "$out/bin/rlx-run-aot" --ranks "$n" --load "$bench/all-reduce.so" \
      --random-inputs --bench 50 || failed=1
    python3 "$out/bin/allreduce_torch.py" "$n" 33554432 50 || failed=1
  done
  exit $failed
  ;;
*) usage ;;
esac
