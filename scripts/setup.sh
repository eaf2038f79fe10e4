#!/usr/bin/env bash
# Installs what RLX-MLIR needs on Debian 12, as root. Idempotent: installs
# only missing packages, and refreshes the package lists only then.
set -euo pipefail

PACKAGES=(
  # Toolchain: LLVM/MLIR 22, clang-22, CMake, Ninja, ccache.
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22
  cmake ninja-build ccache
  # Sanitizer and libFuzzer runtimes of clang-22 (scripts/sanitize.sh, fuzz.sh).
  libclang-rt-22-dev
  # CPU GEMM and solves; OpenMP runtime of compiled graphs.
  libopenblas-dev liblapacke-dev libomp-22-dev
  # oneDNN: CPU convolution and matmul primitives (the library PyTorch's
  # CPU convolutions run on).
  libdnnl-dev
  # MPI for the collectives of CPU ranks (opened with dlopen at run time,
  # docs/distributed.md) and mpirun for their tests.
  openmpi-bin libopenmpi-dev
  # Unit tests.
  libgtest-dev
  # Numeric oracle and CPU peer (in /usr/bin/python3); torchvision's models
  # for the PyTorch importer's tests and benchmarks.
  python3-torch python3-numpy python3-torchvision
  # ONNX protobufs and torch.onnx.export for the ONNX importer (rlx.onnx)
  # and its tests, which fail without it.
  python3-onnx
  # References of the tokenizer tests (rlx.tokenizers): SentencePiece
  # trains a BPE model in test/Python/tokenizers.py and llm-gguf.py; the
  # regex module checks the pre-tokenizer scanners.
  python3-sentencepiece python3-regex
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: must run as root to install packages" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#PACKAGES[@]} packages present"
fi

if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "setup: CUDA toolkit found at /usr/local/cuda"
else
  echo "setup: note: no CUDA toolkit at /usr/local/cuda; the CUDA target" \
       "will not be built (the CPU build is unaffected)"
fi
