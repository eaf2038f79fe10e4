#!/usr/bin/env bash
# Runs the whole model suite (test/Models/models.py): every model at batch 1
# and 2, each in a fresh process, timed against eager PyTorch, and writes
# docs/models.md. Extra arguments go to models.py: model names instead of
# --all (their rows replace those of the table, the others are kept), or
# e.g. --timeout 3600. Takes hours on a small machine; progress lines say
# which model is running and the time elapsed. Exits non-zero iff a model
# FAILs. Needs a build (scripts/build.sh) and the oracle Python with torch
# and torchvision (scripts/setup.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RLX_BUILD_DIR:-$root/build}
python=${RLX_PYTHON:-/usr/bin/python3}

models=(--all)
for arg in "$@"; do
  if [[ $arg != -* ]]; then models=(); break; fi
done
export PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH}
exec "$python" "$root/test/Models/models.py" "${models[@]}" --batch 1 2 \
  --timing --table "$root/docs/models.md" "$@"
