#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test suite (lit, unit
# tests, install + out-of-tree consumer), then fuzzes each file loader
# briefly. Exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RLX_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
cd "$root"

# A bounded run of each loader fuzz target under ASan and UBSan
# (docs/security.md); RLX_FUZZ_SECONDS=0 skips it.
fuzz_seconds=${RLX_FUZZ_SECONDS:-30}
if ((fuzz_seconds > 0)); then
  for target in npy npz safetensors gguf; do
    log=$build/fuzz-$target.log
    if ! "$root/scripts/fuzz.sh" "$target" "$fuzz_seconds" >"$log" 2>&1; then
      tail -n 60 "$log"
      echo "fuzz: $target failed (log: $log)" >&2
      exit 1
    fi
    echo "fuzz: $target: $(grep -o 'number_of_executed_units: *[0-9]*' \
      "$log" | grep -o '[0-9]*$') executions in ${fuzz_seconds} s, no crash"
  done
fi
