#!/usr/bin/env bash
# Installs the built tree into a scratch prefix and checks that the
# installation works on its own:
#  - no installed binary or library refers to the build tree;
#  - the installed tools run a graph from a folder outside both trees;
#  - test/install/consumer, configured with find_package(RLX), compiles and
#    runs a graph through the C++ API and through the C API;
#  - an ahead-of-time library copied with the runtime into a fresh folder
#    runs there, with the installed runtime moved away;
#  - the installed Python package imports from the prefix (not the build
#    tree) and runs a graph.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")" && pwd)
examples=$(cd "$src/../../examples" && pwd)
work=$build/install-test
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work.log" 2>&1 ||
  { cat "$work.log"; exit 1; }

# Nothing installed names the build tree: no run path, no needed library.
for file in "$prefix"/bin/* "$prefix"/lib/*.so*; do
  if readelf -d "$file" 2>/dev/null | grep -F "$build/" >/dev/null; then
    echo "install: $file refers to the build tree:" >&2
    readelf -d "$file" | grep -F "$build/" >&2
    exit 1
  fi
done
echo "install: no installed binary or library refers to the build tree"

# A scratch folder outside the build and source trees, for everything that
# runs from the installation.
outside=$(mktemp -d)
trap 'rm -rf "$outside"' EXIT
cp "$examples/mlp.mlir" "$outside/"

# The installed tools start and run a graph outside the build tree.
(cd "$outside" && env -u LD_LIBRARY_PATH "$prefix/bin/rlx-opt" mlp.mlir \
  --rlx-fuse > /dev/null && env -u LD_LIBRARY_PATH "$prefix/bin/rlx-run" \
  mlp.mlir --random-inputs --print)

# An out-of-tree project, built against the installed package.
config=$(dirname "$(find "$prefix" -name RLXConfig.cmake | head -1)")
cmake -S "$src/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_CXX_COMPILER="${CXX:-c++}" -DCMAKE_C_COMPILER="${CC:-cc}" \
  -DRLX_DIR="$config" > "$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; exit 1; }
cmake --build "$work/consumer" >> "$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; exit 1; }
(cd "$outside" && "$work/consumer/rlx-consumer" &&
  "$work/consumer/rlx-capi-consumer")

# An ahead-of-time library copied with its runtime into a fresh folder
# runs there, with the installed runtime gone.
if [[ -x $prefix/bin/rlx-run-aot ]]; then
  aot=$outside/aot
  mkdir -p "$aot"
  "$prefix/bin/rlx-run" "$outside/mlp.mlir" --emit-shared-lib "$aot/mlp.so"
  # The runtime, and the custom op registry it and rlx-run-aot link.
  cp "$prefix/lib/librlx_cpu_runtime.so" "$prefix/lib/librlx_custom_ops.so" \
    "$prefix/bin/rlx-run-aot" "$aot/"
  mv "$prefix/lib/librlx_cpu_runtime.so" "$work/runtime-moved.so"
  mv "$prefix/lib/librlx_custom_ops.so" "$work/registry-moved.so"
  status=0
  (cd "$aot" && env -u LD_LIBRARY_PATH ./rlx-run-aot --load ./mlp.so \
    --random-inputs --print) || status=$?
  mv "$work/runtime-moved.so" "$prefix/lib/librlx_cpu_runtime.so"
  mv "$work/registry-moved.so" "$prefix/lib/librlx_custom_ops.so"
  ((status == 0)) || { echo "install: the copied AOT library failed" >&2;
                       exit 1; }
else
  echo "install: rlx-run-aot was not built; the AOT check is skipped"
fi

# The installed Python package finds the installed C API library.
if [[ -n ${RLX_PYTHON:-} ]]; then
  (cd "$outside" && env -u RLX_CAPI_LIBRARY PYTHONPATH="$prefix/python" \
    "$RLX_PYTHON" - "$prefix" <<'PY'
import os, sys
import numpy as np
import rlx
from rlx import _capi

prefix = os.path.realpath(sys.argv[1])
for what, path in (("package", rlx.__file__),
                   ("C API library", _capi._library_path())):
    assert os.path.realpath(path).startswith(prefix + os.sep), (what, path)
graph = rlx.compile(
    "func.func @f(%x: tensor<3xf32> {rlx.input = \"x\"}) -> tensor<3xf32> {\n"
    "  %0 = rlx.activation relu %x : tensor<3xf32>\n"
    "  return %0 : tensor<3xf32>\n}\n")
y = graph(x=np.array([-1, 0, 2], np.float32))
assert np.array_equal(y, [0, 0, 2]), y
graph.save("relu.so")
again = rlx.load("relu.so")(x=np.array([3, -3, 1], np.float32))
assert np.array_equal(again, [3, 0, 1]), again
# The C API library this process mapped is the installed one.
with open("/proc/self/maps") as maps:
    mapped = {line.split()[-1] for line in maps if "libRLXCAPI" in line}
assert mapped and all(os.path.realpath(m).startswith(prefix + os.sep)
                      for m in mapped), mapped
print("installed rlx Python package: OK (from", os.path.dirname(rlx.__file__)
      + ")")
PY
  )
else
  echo "install: RLX_PYTHON is not set; the Python package check is skipped"
fi
