#!/usr/bin/env bash
# Builds one libFuzzer target and runs it.
#
#   scripts/fuzz.sh TARGET SECONDS [LIBFUZZER-FLAGS...]
#
# The file loaders: TARGET is npy, npz, safetensors or gguf. The build
# directory (RLX_FUZZ_BUILD_DIR, default build-fuzz/) is configured with
# -DRLX_BUILD_FUZZERS=ON (clang-22 with -fsanitize=fuzzer,address,undefined).
# The seed corpus is written by fuzz/make_corpus.py.
#
# The compiler: TARGET is ir (the IR parser and verifier), or one pass
# pipeline: fuse (rlx-fuse), unfuse (rlx-unfuse), to-linalg
# (convert-rlx-to-linalg) or cpu-pipeline (rlx-cpu-pipeline). They need every
# library of the project built with the sanitizers and coverage
# instrumentation: the build directory is scripts/sanitize.sh's
# (RLX_SANITIZE_BUILD_DIR, default build-sanitize/), configured with
# -DRLX_SANITIZE=address,undefined -DRLX_BUILD_FUZZERS=ON (a long build the
# first time). The seed corpus is every split-input-file chunk of the lit
# tests that parses and verifies (fuzz/make_ir_corpus.py, written once).
# RLX_FUZZ_STRICT_IR=1 also fails a pipeline pass that leaves invalid IR.
#
# The C API: TARGET capi runs random sequences of create / bind / run /
# bench / free calls with hostile names, sizes and shapes
# (fuzz/CAPISequenceFuzzer.cpp), in scripts/sanitize.sh's build like the IR
# targets, from an empty corpus.
#
# The corpus the run grows is kept in BUILD/fuzz/corpus/TARGET, and a
# crashing input is written to BUILD/fuzz/artifacts/ (make it a regression
# test under test/). Prints libFuzzer's final statistics:
# stat::number_of_executed_units is the count of executions. Exits non-zero
# on a crash, leak, sanitizer report or timeout.
set -euo pipefail
if (($# < 2)); then
  echo "usage: $0 npy|npz|safetensors|gguf|ir|fuse|unfuse|to-linalg|cpu-pipeline|capi SECONDS [LIBFUZZER-FLAGS...]" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
case $target in
npy | npz | safetensors | gguf) kind=loader ;;
ir | fuse | unfuse | to-linalg | cpu-pipeline | capi) kind=ir ;;
*)
  echo "fuzz.sh: unknown target '$target' (npy, npz, safetensors, gguf, ir, fuse, unfuse, to-linalg, cpu-pipeline, capi)" >&2
  exit 2
  ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}

if [[ $kind == loader ]]; then
  build=${RLX_FUZZ_BUILD_DIR:-$root/build-fuzz}
  if [[ ! -f $build/build.ninja ]]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DRLX_BUILD_FUZZERS=ON -DRLX_BUILD_TESTS=OFF >/dev/null
  fi
  cmake --build "$build" --target "rlx-fuzz-$target"
  seeds=$build/fuzz/seeds
  python3 "$root/fuzz/make_corpus.py" "$seeds"
  seeds=$seeds/$target
  # -timeout: one input taking a second is a hang; -rss_limit_mb: a loader
  # that allocates what a header asks for, not what the file holds, fails.
  limits=(-timeout=1 -rss_limit_mb=1024 -malloc_limit_mb=256)
else
  build=${RLX_SANITIZE_BUILD_DIR:-$root/build-sanitize}
  if [[ ! -f $build/build.ninja ]] ||
    ! grep -q '^RLX_BUILD_FUZZERS:BOOL=ON' "$build/CMakeCache.txt" ||
    ! grep -q '^RLX_SANITIZE:STRING=.' "$build/CMakeCache.txt"; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DRLX_SANITIZE=address,undefined -DRLX_BUILD_FUZZERS=ON >/dev/null
  fi
  cmake --build "$build" --target "rlx-fuzz-$target" rlx-opt
  seeds=$build/fuzz/seeds/ir
  if [[ $target == capi ]]; then
    # Programs of calls, not IR: no seeds (an empty folder).
    seeds=$build/fuzz/seeds/capi
    mkdir -p "$seeds"
  # Written again when the script that selects them changed.
  elif [[ ! -d $seeds || $root/fuzz/make_ir_corpus.py -nt $seeds ]]; then
    rm -rf "$seeds"
    python3 "$root/fuzz/make_ir_corpus.py" "$build/bin/rlx-opt" "$root/test" \
      "$seeds.tmp"
    mv "$seeds.tmp" "$seeds"
  fi
  # Compile time and memory must not grow with a tensor's element count:
  # 10 s for one input (under the sanitizers) is a hang, one allocation of
  # 512 MB a failure.
  limits=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512)
  # allow_user_poisoning=0: see scripts/sanitize.sh (LLVM's allocators
  # poisoned by the instrumented project, used by the uninstrumented libMLIR).
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_poisoning=0}
fi
corpus=$build/fuzz/corpus/$target
artifacts=$build/fuzz/artifacts/
mkdir -p "$corpus" "$artifacts"
exec "$build/fuzz/rlx-fuzz-$target" -max_total_time="$seconds" \
  "${limits[@]}" -print_final_stats=1 \
  -artifact_prefix="$artifacts" "$@" "$corpus" "$seeds"
