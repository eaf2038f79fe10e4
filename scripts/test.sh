#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test suite (lit, unit
# tests, install + out-of-tree consumer). Exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RLX_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
