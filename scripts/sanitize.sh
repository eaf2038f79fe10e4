#!/usr/bin/env bash
# Builds RLX-MLIR with sanitizers in a build directory of its own and runs
# the lit and unit test suites there; any sanitizer report fails its test.
#
#   scripts/sanitize.sh [SANITIZERS]     default: address,undefined
#
# RLX_SANITIZE_BUILD_DIR  the build directory (default: build-sanitize/)
# RLX_SANITIZE_TARGETS    ninja targets to build instead of everything
# RLX_SANITIZE_TESTS      a ctest -R regex choosing the suites to run
#                         (rlx-lit-<folder> are the lit suites, one per
#                         top-level folder of test/; the unit tests are
#                         named Suite.Test)
# RLX_SANITIZE_LIT_FILTER with rlx-lit: a lit --filter regex
#
# The build has the fuzz targets too (RLX_BUILD_FUZZERS): the libraries get
# libFuzzer's coverage instrumentation, which the tests do not notice, and
# scripts/fuzz.sh runs the IR fuzzers from this same build.
#
# The install test is left out: the installed static libraries would need
# the sanitizer flags in the consumer project too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sanitizers=${1:-address,undefined}
build=${RLX_SANITIZE_BUILD_DIR:-$root/build-sanitize}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DRLX_SANITIZE="$sanitizers" -DRLX_BUILD_FUZZERS=ON
fi
# shellcheck disable=SC2086 # a list of targets
cmake --build "$build" ${RLX_SANITIZE_TARGETS:+--target $RLX_SANITIZE_TARGETS}

# Leaks are errors; UBSan prints where. A failed allocation returns null
# (as without ASan), so the tests of allocation failures see the project's
# own error. The options reach every process the tests start.
#
# allow_user_poisoning=0: LLVM's headers poison and unpoison the slabs of
# BumpPtrAllocator (the MLIR context's storage) when the including code is
# built with ASan. The project's code is, the system libLLVM/libMLIR are
# not, so memory the project's inline copies poisoned is handed out by
# libMLIR's uninstrumented copies without unpoisoning, and ASan reports a
# use-after-poison in MLIR's uniquer (StringAttr::get, while parsing). The
# option turns off only such manual poisoning; heap, stack and global
# checks stay on.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:detect_stack_use_after_return=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [[ -n ${RLX_SANITIZE_LIT_FILTER:-} ]]; then
  export LIT_FILTER=$RLX_SANITIZE_LIT_FILTER
fi
cd "$build"
ctest --output-on-failure -j "${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
  -E '^rlx-install-consumer$' ${RLX_SANITIZE_TESTS:+-R "$RLX_SANITIZE_TESTS"}
