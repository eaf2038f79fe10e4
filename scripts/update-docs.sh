#!/usr/bin/env bash
# Regenerates the op reference from TableGen and copies it into docs/ops/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RLX_BUILD_DIR:-$root/build}
cmake --build "$build" --target rlx-doc
rm -rf "$root/docs/ops"
mkdir -p "$root/docs/ops"
cp "$build"/docs/ops/*.md "$root/docs/ops/"
echo "update-docs: $(ls "$root/docs/ops" | wc -l) pages in docs/ops/"
