#!/usr/bin/env bash
# The CUDA target's execution checks, in two halves:
#
#   scripts/gpu-check.sh build OUTDIR [TEST.py ...]
#       here (LLVM/MLIR, no GPU): compiles the bundled examples and every
#       graph of the CPU execution tests (test/Execution/CPU/*.py, or the
#       tests named) for the cuda target into OUTDIR, each with its inputs
#       and the CPU's outputs (the tests check those against PyTorch/NumPy)
#       as the expected ones, beside rlx-run-aot, librlx_cuda_runtime.so and
#       librlx_custom_ops.so (the custom op registry rlx-run-aot links).
#       Graphs the cuda target cannot compile are listed in
#       OUTDIR/compile-failures.txt.
#   scripts/gpu-check.sh run OUTDIR [SUMMARY]
#       on the GPU machine (NVIDIA driver only, no LLVM/MLIR): runs every
#       case with rlx-run-aot, compares with the expected outputs, times the
#       examples, prints a summary table (also written to SUMMARY) and exits
#       non-zero if any case failed.
#
# Tolerance of a GPU output against the CPU's: |gpu - cpu| <= atol +
# rtol * |cpu|, by output dtype (GPU_TOLERANCE in
# test/Execution/lib/rlxcheck.py, written into each case's arguments): f32
# rtol 1e-4 and atol 1e-5, f16 2e-3 and 1e-3, f64 1e-9 and 1e-12; for the
# examples f32 with atol 2e-4 (they sum thousands of products per output).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: $0 build OUTDIR [TEST.py ...] | run OUTDIR [SUMMARY]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
mode=$1
out=$2
shift 2
rtol=1e-4
atol=1e-5
# The examples' outputs sum hundreds of products per element (GEMMs with K
# up to 3072, then norms), whose f32 rounding differs with the order.
example_atol=2e-4
seed=${RLX_TEST_SEED:-1}

build() {
  local build=${RLX_BUILD_DIR:-$root/build}
  [[ -x $build/bin/rlx-run && -x $build/bin/rlx-run-aot ]] ||
    { echo "gpu-check: build first (scripts/build.sh)" >&2; exit 1; }
  rm -rf "$out"
  mkdir -p "$out/bin" "$out/lib" "$out/cases" "$out/examples" "$out/logs" \
    "$out/compiler/bin" "$out/compiler/lib"
  cp "$build/bin/rlx-run-aot" "$out/bin/"
  cp "$build/lib/librlx_cuda_runtime.so" "$build/lib/librlx_custom_ops.so" \
    "$out/lib/"
  # The runtime's cuDNN convolutions against PyTorch (run where torch is).
  cp "$root/scripts/cudnn-runtime-check.py" "$out/bin/"
  # The compiler that builds the cases, copied, so a rebuild meanwhile
  # changes nothing; it finds its runtimes in ../lib.
  cp "$build/bin/rlx-run" "$build/bin/rlx-opt" "$out/compiler/bin/"
  cp "$build"/lib/librlx_*.so "$out/compiler/lib/"
  local rlx_run=$out/compiler/bin/rlx-run
  : >"$out/compile-failures.txt"

  local example name
  for example in "$root"/examples/*.mlir; do
    name=$(basename "$example" .mlir)
    if ! "$rlx_run" "$example" --target cuda \
        --emit-shared-lib "$out/examples/$name.so" >/dev/null 2>"$out/logs/$name.err"; then
      echo "example-$name: $(head -c 300 "$out/logs/$name.err")" >>"$out/compile-failures.txt"
      continue
    fi
    "$rlx_run" "$example" --random-inputs --seed "$seed" \
      --output "$out/examples/$name.expected" >/dev/null
  done

  # The Python that has the oracle's packages (numpy, torch), as the test
  # suite finds it.
  local python
  python=$(sed -n 's/^config.oracle_python = "\(.*\)"$/\1/p' \
    "$build/test/lit.site.cfg.py" 2>/dev/null)
  [[ -n $python ]] || python=python3
  local tests=("$@")
  [[ ${#tests[@]} -gt 0 ]] || tests=("$root"/test/Execution/CPU/*.py)
  # Two tests at a time; each writes its own cases (named after the test).
  local start=$SECONDS
  export RLX_CUDA_ARTIFACTS=$out RLX_TEST_SEED=$seed
  printf '%s\n' "${tests[@]}" | xargs -P "${RLX_GPU_CHECK_JOBS:-2}" -I{} \
    sh -c 'name=$(basename "$1" .py)
      # The arguments of the test'"'"'s lit RUN line (tools in some order,
      # the examples folder, a file to write), with this folder'"'"'s tools.
      args=$(sed -n "s|^RUN: %python %S/$name.py ||p" "${1%.py}.test" |
        head -n 1 |
        sed -e "s/\brlx-opt\b/@OPT@/g" -e "s/\brlx-run\b/@RUN@/g" \
          -e "s|@OPT@|$4|g" -e "s|@RUN@|$3|g" -e "s|%rlx_src_root|$6|g" \
          -e "s|%t|$5/logs/$name.tmp|g")
      [ -n "$args" ] || args="$3"
      # shellcheck disable=SC2086
      if "$2" "$1" $args >"$5/logs/$name.log" 2>&1; then
        echo "gpu-check: $name: CPU passed"
      else
        echo "gpu-check: $name: CPU FAILED (see $5/logs/$name.log)"
      fi' _ {} "$python" "$rlx_run" "$out/compiler/bin/rlx-opt" "$out" "$root"
  rm -rf "$out/compiler"
  echo "gpu-check: $(ls "$out/cases" | wc -l) cases," \
    "$(wc -l <"$out/compile-failures.txt") graphs the cuda target did not" \
    "compile, in $((SECONDS - start)) s; carry $out to the GPU machine"
}

run() {
  local summary=${1:-/dev/null}
  local aot=$out/bin/rlx-run-aot
  export LD_LIBRARY_PATH=$out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  {
    echo "# gpu-check $(date -u +%Y-%m-%dT%H:%MZ)"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader |
      sed 's/^/card: /'
  } | tee "$summary"

  # Cases run a few at a time (each process has its own context on the
  # one GPU); each leaves its exit code in its folder.
  # RLX_GPU_CHECK_ARGS adds arguments to every case's run: "--bench 2"
  # checks the outputs of replayed CUDA graphs instead of a first run.
  export aot rtol atol RLX_GPU_CHECK_ARGS
  find "$out/cases" -mindepth 1 -maxdepth 1 -type d -print0 |
    xargs -0 -P "${RLX_GPU_CHECK_JOBS:-4}" -I{} sh -c '
      cd "$1" || exit 0
      [ -f graph.so ] || exit 0
      rc=0
      timeout 120 "$aot" $(cat args) $RLX_GPU_CHECK_ARGS >run.log 2>&1 || rc=$?
      echo $rc >rc' _ {}
  local case pass=0 fail=0 crash=0 failures=()
  for case in "$out"/cases/*/; do
    case=${case%/}
    [[ -f $case/rc ]] || continue
    local rc
    rc=$(cat "$case/rc")
    if [[ $rc -eq 0 ]]; then
      pass=$((pass + 1))
    elif [[ $rc -eq 1 ]] && grep -q "^check .*: FAIL" "$case/run.log"; then
      fail=$((fail + 1))
      failures+=("$(basename "$case"): $(grep -m1 "^check .*: FAIL" "$case/run.log")")
    else
      crash=$((crash + 1))
      failures+=("$(basename "$case"): exit $rc: $(grep -v '^ *#\|^Stack\|PLEASE\|^[0-9]\.' "$case/run.log" | head -c 300 | tr '\n' ' ')")
    fi
  done

  {
    echo
    echo "| cases | passed | wrong outputs | errors |"
    echo "|---|---|---|---|"
    echo "| $((pass + fail + crash)) | $pass | $fail | $crash |"
    echo
    echo "graphs the cuda target did not compile (here, at build):" \
      "$(grep -c . "$out/compile-failures.txt" 2>/dev/null || echo 0)"
    if [[ ${#failures[@]} -gt 0 ]]; then
      echo
      printf '%s\n' "${failures[@]}"
    fi
    echo
    echo "| example | check | bench |"
    echo "|---|---|---|"
  } | tee -a "$summary"
  local example name check bench
  for example in "$out"/examples/*.so; do
    name=$(basename "$example" .so)
    local checks=() expected
    for expected in "$out/examples/$name.expected"/output_*.npy; do
      checks+=(--check "$(basename "$expected" .npy)=$expected")
    done
    if check=$("$aot" --load "$example" --random-inputs --seed "$seed" \
        "${checks[@]}" --rtol "$rtol" --atol "$example_atol" 2>&1); then
      check="ok"
    else
      fail=$((fail + 1))
      check="FAILED: $(echo "$check" | tail -n 3 | tr '\n' ' ')"
    fi
    bench=$("$aot" --load "$example" --random-inputs --seed "$seed" \
      --bench 50 2>&1 | grep '^bench' || echo "bench failed")
    echo "| $name | $check | ${bench#bench: } |" | tee -a "$summary"
  done
  # cuDNN's convolutions, called through the runtime's entry points, against
  # PyTorch's on the same card (forward, backward data and filter; f32, f16,
  # bf16; 1x1, 3x3, strided, stem, grouped, depthwise, dilated).
  if python3 -c "import torch" 2>/dev/null; then
    echo | tee -a "$summary"
    if python3 "$out/bin/cudnn-runtime-check.py" \
      "$out/lib/librlx_cuda_runtime.so" >"$out/logs/cudnn.log" 2>&1; then
      echo "cudnn convolutions: $(grep -c '^ok' "$out/logs/cudnn.log") checks passed" |
        tee -a "$summary"
    else
      fail=$((fail + 1))
      # The failed checks, or the last lines when the check itself ended
      # (an error before its first comparison).
      message=$(grep -m3 'FAIL' "$out/logs/cudnn.log" | tr '\n' ' ')
      [[ -n $message ]] || message=$(tail -n 3 "$out/logs/cudnn.log" | tr '\n' ' ')
      echo "cudnn convolutions FAILED: $message" |
        tee -a "$summary"
    fi
  fi
  [[ $fail -eq 0 && $crash -eq 0 ]]
}

case $mode in
build) build "$@" ;;
run) run "$@" ;;
*) usage ;;
esac
