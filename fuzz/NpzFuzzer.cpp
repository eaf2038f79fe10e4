//===- NpzFuzzer.cpp - libFuzzer target of the .npz loader ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to rlxrt::parseNpz, the loader behind readNpz. A
// .npz archive is untrusted data (docs/security.md): every input must give
// arrays or an error message, never a crash, a sanitizer report or arrays
// together larger than the input.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/HostTensor.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string error;
  auto tensors = rlxrt::parseNpz(bytes, "fuzz.npz", error);
  if (!tensors) {
    // A failure always says why, naming the archive (or an entry of it).
    if (error.find("'fuzz.npz") == std::string::npos)
      std::abort();
    return 0;
  }
  // Entries share no bytes, so the arrays together fit in the input; every
  // element reads back in bounds.
  size_t total = 0;
  double sum = 0;
  for (const auto &[name, tensor] : *tensors) {
    total += tensor.sizeInBytes();
    for (int64_t i = 0, e = tensor.numElements(); i < e; ++i)
      sum += tensor.getAsDouble(i);
  }
  if (total > size)
    std::abort();
  (void)sum;
  return 0;
}
