#!/usr/bin/env bash
# The main job on the bundled example: installs what is missing, builds, and
# runs rlx-opt on examples/mlp.mlir, printing the verified graph.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RLX_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"
"$root/scripts/build.sh"

example=$root/examples/mlp.mlir
echo "demo: rlx-opt $example"
start=$(date +%s%N)
"$build/bin/rlx-opt" "$example"
echo "demo: parsed, verified and printed in" \
     "$((($(date +%s%N) - start) / 1000000)) ms"
