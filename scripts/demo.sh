#!/usr/bin/env bash
# The main job on the bundled examples: installs what is missing, builds,
# then compiles a BERT-base encoder layer (examples/bert_layer.mlir) for the
# CPU and runs it on random inputs and weights, printing the output and the
# latency; the MLP example is shown and run the same way.
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

bert=$root/examples/bert_layer.mlir
echo "demo: rlx-run $bert --random-inputs --print --bench 20"
"$build/bin/rlx-run" "$bert" --random-inputs --seed 1 --print --bench 20
