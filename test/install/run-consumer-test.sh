#!/usr/bin/env bash
# Installs the built tree into a scratch prefix, then configures, builds and
# runs test/install/consumer against it with find_package(RLX).
set -euo pipefail
build=$1
src=$(cd "$(dirname "$0")" && pwd)
work=$build/install-test
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work.log" 2>&1 ||
  { cat "$work.log"; exit 1; }
config=$(dirname "$(find "$work/prefix" -name RLXConfig.cmake | head -1)")
cmake -S "$src/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_CXX_COMPILER="${CXX:-c++}" \
  -DRLX_DIR="$config"
cmake --build "$work/consumer"
"$work/consumer/rlx-consumer"
