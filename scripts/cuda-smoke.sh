#!/usr/bin/env bash
# Smoke test of the CUDA runtime, in two halves:
#   scripts/cuda-smoke.sh build OUTDIR  here: compiles cuda-smoke/vadd.mlir
#       ahead of time (MLIR 22 GPU lowering, sm_90 cubin) into OUTDIR/vadd.so,
#       beside librlx_cuda_runtime.so and the host program vadd-check.
#   scripts/cuda-smoke.sh run OUTDIR    on the GPU machine (NVIDIA driver
#       only, no LLVM/MLIR): lists the GPUs and runs OUTDIR/vadd-check.
# Exits non-zero when a step fails or any output element is wrong.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: $0 build|run OUTDIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
mode=$1
out=$2

# The LLVM 22 tool called NAME: NAME-22 or NAME on PATH, else LLVM 22's
# own bin directory.
find_tool() {
  local name=$1 dir
  for candidate in "$name-22" "$name"; do
    if command -v "$candidate" >/dev/null; then
      command -v "$candidate"
      return
    fi
  done
  dir=$(llvm-config-22 --bindir 2>/dev/null || true)
  if [[ -n $dir && -x $dir/$name ]]; then
    echo "$dir/$name"
    return
  fi
  echo "cuda-smoke: $name (LLVM 22) not found on PATH" >&2
  exit 1
}

build() {
  local build=${RLX_BUILD_DIR:-$root/build}
  local mlir_opt mlir_translate llc clang clangxx tmp
  mlir_opt=$(find_tool mlir-opt)
  mlir_translate=$(find_tool mlir-translate)
  llc=$(find_tool llc)
  clang=$(find_tool clang)
  clangxx=$(find_tool clang++)
  # RLX_CUDA_RUNTIME_LIB names a built runtime (the test suite passes it);
  # otherwise the runtime is brought up to date in the build directory.
  local runtime=${RLX_CUDA_RUNTIME_LIB:-$build/lib/librlx_cuda_runtime.so}
  if [[ -z ${RLX_CUDA_RUNTIME_LIB:-} ]]; then
    [[ -f $build/build.ninja ]] ||
      { echo "cuda-smoke: no build in $build; run scripts/build.sh" >&2; exit 1; }
    cmake --build "$build" --target rlx_cuda_runtime >/dev/null
  fi
  [[ -f $runtime ]] || {
    echo "cuda-smoke: no $runtime" \
      "(CUDA headers not found at configure time?)" >&2
    exit 1
  }

  mkdir -p "$out"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  cp "$root/scripts/cuda-smoke/vadd.mlir" "$out/"
  cp "$runtime" "$out/"
  "$mlir_opt" "$out/vadd.mlir" -o "$tmp/vadd.llvm.mlir" \
    --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=bin"
  "$mlir_translate" --mlir-to-llvmir "$tmp/vadd.llvm.mlir" -o "$tmp/vadd.ll"
  "$llc" -O2 -relocation-model=pic -filetype=obj "$tmp/vadd.ll" -o "$tmp/vadd.o"
  "$clang" -shared "$tmp/vadd.o" -o "$out/vadd.so" \
    -L"$out" -lrlx_cuda_runtime -Wl,-rpath,'$ORIGIN'
  "$clangxx" -std=c++17 -O2 -I"$root/include" \
    "$root/scripts/cuda-smoke/vadd-check.cpp" -o "$out/vadd-check" -ldl

  # What the GPU machine will need: nothing beyond the C/C++ runtime, the
  # driver (opened at run time) and the files in OUTDIR.
  local file lib
  for file in vadd.so vadd-check librlx_cuda_runtime.so; do
    for lib in $(readelf -d "$out/$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      case $lib in
      libc.so.* | libm.so.* | libdl.so.* | libstdc++.so.* | libgcc_s.so.* | \
        ld-linux*.so.* | librlx_cuda_runtime.so) ;;
      *) echo "cuda-smoke: $file needs $lib, absent on the GPU machine" >&2
         exit 1 ;;
      esac
    done
  done
  readelf -d "$out/vadd.so" | grep -q 'R.*PATH.*\$ORIGIN' ||
    { echo "cuda-smoke: vadd.so lacks the \$ORIGIN run path" >&2; exit 1; }
  grep -q mgpuLaunchKernel "$tmp/vadd.ll" ||
    { echo "cuda-smoke: the lowering emitted no kernel launch" >&2; exit 1; }
  echo "cuda-smoke: built $(du -sh "$out" | cut -f1) in $out:"
  ls -l "$out"
  echo "cuda-smoke: on the GPU machine run: scripts/cuda-smoke.sh run $out"
}

run() {
  [[ -x $out/vadd-check ]] ||
    { echo "cuda-smoke: no $out/vadd-check; run '$0 build $out' first" >&2; exit 1; }
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi -L
  else
    echo "cuda-smoke: nvidia-smi not found"
  fi
  local status=0
  "$out/vadd-check" || status=$?
  case $status in
  0) echo "cuda-smoke: PASS" ;;
  2) echo "cuda-smoke: cannot run here: no usable CUDA driver or device" >&2 ;;
  *) echo "cuda-smoke: FAIL (vadd-check exited with $status)" >&2 ;;
  esac
  return "$status"
}

case $mode in
build) build ;;
run) run ;;
*) usage ;;
esac
