#!/usr/bin/env bash
# Builds one libFuzzer target of the file loaders and runs it.
#
#   scripts/fuzz.sh TARGET SECONDS [LIBFUZZER-FLAGS...]
#
# TARGET is npy, npz, safetensors or gguf. The build directory (RLX_FUZZ_BUILD_DIR,
# default build-fuzz/) is configured with -DRLX_BUILD_FUZZERS=ON (clang-22
# with -fsanitize=fuzzer,address,undefined). The seed corpus is written by
# fuzz/make_corpus.py; the corpus the run grows is kept in
# BUILD/fuzz/corpus/TARGET, and a crashing input is written to
# BUILD/fuzz/artifacts/ (make it a regression test under test/). Prints
# libFuzzer's final statistics: stat::number_of_executed_units is the
# count of executions. Exits non-zero on a crash, leak, sanitizer report or
# timeout.
set -euo pipefail
if (($# < 2)); then
  echo "usage: $0 npy|npz|safetensors|gguf SECONDS [LIBFUZZER-FLAGS...]" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
case $target in
npy | npz | safetensors | gguf) ;;
*)
  echo "fuzz.sh: unknown target '$target' (npy, npz, safetensors, gguf)" >&2
  exit 2
  ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RLX_FUZZ_BUILD_DIR:-$root/build-fuzz}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DRLX_BUILD_FUZZERS=ON -DRLX_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$build" --target "rlx-fuzz-$target"

seeds=$build/fuzz/seeds
python3 "$root/fuzz/make_corpus.py" "$seeds"
corpus=$build/fuzz/corpus/$target
artifacts=$build/fuzz/artifacts/
mkdir -p "$corpus" "$artifacts"
# -timeout: one input taking a second is a hang; -rss_limit_mb: a loader
# that allocates what a header asks for, not what the file holds, fails.
exec "$build/fuzz/rlx-fuzz-$target" -max_total_time="$seconds" \
  -timeout=1 -rss_limit_mb=1024 -malloc_limit_mb=256 -print_final_stats=1 \
  -artifact_prefix="$artifacts" "$@" "$corpus" "$seeds/$target"
