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
  -DCMAKE_CXX_COMPILER="${CXX:-c++}" -DCMAKE_C_COMPILER="${CC:-cc}" \
  -DRLX_DIR="$config"
cmake --build "$work/consumer"
"$work/consumer/rlx-consumer"
"$work/consumer/rlx-capi-consumer"
# The installed tools start and run a graph outside the build tree.
"$work/prefix/bin/rlx-run" "$src/../../examples/mlp.mlir" --random-inputs \
  --print
# An ahead-of-time library copied with its runtime into a fresh folder
# runs there, with the installed runtime gone.
if [[ -x $work/prefix/bin/rlx-run-aot ]]; then
  mkdir -p "$work/aot"
  "$work/prefix/bin/rlx-run" "$src/../../examples/mlp.mlir" \
    --emit-shared-lib "$work/aot/mlp.so"
  cp "$work/prefix/lib/librlx_cpu_runtime.so" "$work/aot/"
  mv "$work/prefix/lib/librlx_cpu_runtime.so" "$work/runtime-moved.so"
  "$work/prefix/bin/rlx-run-aot" --load "$work/aot/mlp.so" --random-inputs \
    --print
  mv "$work/runtime-moved.so" "$work/prefix/lib/librlx_cpu_runtime.so"
fi
# The installed Python package finds the installed C API library.
if [[ -n ${RLX_PYTHON:-} ]]; then
  PYTHONPATH=$work/prefix/python "$RLX_PYTHON" -c '
import numpy as np, rlx
graph = rlx.compile("func.func @f(%x: tensor<3xf32> {rlx.input = \"x\"}) -> tensor<3xf32> {\n"
                    "  %0 = rlx.activation relu %x : tensor<3xf32>\n"
                    "  return %0 : tensor<3xf32>\n}\n")
y = graph(x=np.array([-1, 0, 2], np.float32))
assert np.array_equal(y, [0, 0, 2]), y
print("installed rlx Python package: OK")'
fi
