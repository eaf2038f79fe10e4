#!/usr/bin/env bash
# Runs the model suite through ONNX (test/Models/onnx_roundtrip.py): every
# model of test/Models/models.py exported by torch.onnx.export with a
# symbolic batch, imported back with rlx.onnx, compiled once and run at
# batch 1 and 3 against eager PyTorch, each model in a fresh process, and
# writes the table of docs/onnx.md ("The model suite through ONNX"). Extra
# arguments go to onnx_roundtrip.py: model names instead of --all (their
# rows replace those of the table, the others are kept), --timeout SECONDS
# (per model; 3600 by default), --max-weights-mb MB. Takes hours on a small
# machine; progress lines on stderr say which model is running and the
# time elapsed. Exits non-zero iff a model FAILs. Needs a build
# (scripts/build.sh) and the oracle Python with torch, torchvision and onnx
# (scripts/setup.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RLX_BUILD_DIR:-$root/build}
python=${RLX_PYTHON:-/usr/bin/python3}

# A word that is not an option, nor an option's value, is a model name.
models=(--all)
value=
for arg in "$@"; do
  if [[ $arg == -* ]]; then
    case $arg in
      --timeout | --max-weights-mb | --tolerance) value=one ;;
      --batch) value=sizes ;;
      *) value= ;;
    esac
  elif [[ $value == one ]]; then
    value=
  elif [[ $value == sizes && $arg =~ ^[0-9]+$ ]]; then
    :
  else
    models=()
    break
  fi
done
export PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH}
exec "$python" "$root/test/Models/onnx_roundtrip.py" "${models[@]}" \
  --batch 1 3 --timeout 3600 --table "$root/docs/onnx.md" "$@"
