#!/usr/bin/env bash
# Regenerates the op and pass references from TableGen into docs/ops/ and
# docs/passes/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RLX_BUILD_DIR:-$root/build}
cmake --build "$build" --target rlx-doc
for dir in ops passes; do
  rm -rf "${root:?}/docs/$dir"
  mkdir -p "$root/docs/$dir"
  cp "$build/docs/$dir"/*.md "$root/docs/$dir/"
  echo "update-docs: $(ls "$root/docs/$dir" | wc -l) pages in docs/$dir/"
done
