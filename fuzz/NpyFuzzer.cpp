//===- NpyFuzzer.cpp - libFuzzer target of the .npy loader ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to rlxrt::parseNpy, the loader behind readNpy. A
// .npy file is untrusted data (docs/security.md): every input must give a
// tensor or an error message, never a crash, a sanitizer report or an
// allocation larger than the input.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/HostTensor.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string error;
  std::optional<rlxrt::HostTensor> tensor =
      rlxrt::parseNpy(bytes, "fuzz.npy", error);
  if (!tensor) {
    // A failure always says why, naming the file.
    if (error.find("'fuzz.npy'") == std::string::npos)
      std::abort();
    return 0;
  }
  // What was accepted holds exactly the bytes after the header: reading
  // every element back must stay in bounds.
  if (tensor->sizeInBytes() > size)
    std::abort();
  double sum = 0;
  for (int64_t i = 0, e = tensor->numElements(); i < e; ++i)
    sum += tensor->getAsDouble(i);
  (void)sum;
  return 0;
}
