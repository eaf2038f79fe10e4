#!/usr/bin/env bash
# The main job on the bundled example: installs what is missing, builds,
# shows the example graph, compiles it for the CPU and runs it on random
# inputs, printing the output and the latency.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RLX_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"
"$root/scripts/build.sh"

example=$root/examples/mlp.mlir
echo "demo: rlx-opt $example"
"$build/bin/rlx-opt" "$example"
echo "demo: rlx-run $example --random-inputs --print --bench 100"
"$build/bin/rlx-run" "$example" --random-inputs --seed 1 --print --bench 100
