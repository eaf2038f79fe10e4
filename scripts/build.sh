#!/usr/bin/env bash
# Configures (once) and builds RLX-MLIR into build/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RLX_BUILD_DIR:-$root/build}
# Paths under the checkout are hashed relative to it, so a clone in another
# folder (CI's) reuses the compiler cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
start=$(date +%s)
cmake --build "$build"
echo "build: done in $(($(date +%s) - start)) s ($build)"
