#!/usr/bin/env bash
# Builds the C API and the CPU runtime with ThreadSanitizer in a build
# directory of its own and runs the threading tests there: several threads
# running one compiled graph while another binds its parameters
# (test/CAPI/capi-threads-test.c, the contract of docs/c-api.md). A data
# race reported by TSan fails the run.
#
#   scripts/tsan.sh [RUNS]     RUNS: runs per thread (default 10)
#
# RLX_TSAN_BUILD_DIR   the build directory (default: build-tsan/)
#
# Only the project's code is instrumented: the compiled graphs (JIT code and
# shared libraries written at run time), OpenBLAS, oneDNN and LLVM's OpenMP
# runtime are not, so TSan sees the C API, the execution library and the
# CPU runtime's own accesses (the bound data, the buffer pool, a run's
# status), which are what the contract covers. The first build compiles
# every library the C API links (long: it is the whole compiler).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-10}
build=${RLX_TSAN_BUILD_DIR:-$root/build-tsan}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DRLX_SANITIZE=thread
fi
cmake --build "$build" --target rlx-capi-threads-test rlx_cpu_runtime

# halt_on_error: the first report fails the run. TSan cannot see the
# synchronisation of the uninstrumented OpenMP runtime and OpenBLAS: a
# graph's output written by an OpenMP worker and read after the run's join
# would be reported as a race. So each run keeps to its calling thread
# (one OpenMP and one OpenBLAS thread); the test's own threads make the
# concurrency the contract is about. What stays in those libraries is
# suppressed (scripts/tsan.supp).
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$root/scripts/tsan.supp}
scratch=$build/tsan-scratch
rm -rf "$scratch"
mkdir -p "$scratch"
RLX_CACHE_DIR= "$build/bin/rlx-capi-threads-test" "$scratch" "$runs"
echo "tsan: no data race reported"
