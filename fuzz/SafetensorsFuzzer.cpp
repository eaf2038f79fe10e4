//===- SafetensorsFuzzer.cpp - libFuzzer target of the .safetensors loader ===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to rlxrt::parseSafetensors, the loader behind
// readSafetensors. A .safetensors file is untrusted data
// (docs/security.md): every input must give tensors or an error message,
// never a crash, a sanitizer report or allocations larger than the input.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/HostTensor.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string error;
  auto tensors = rlxrt::parseSafetensors(bytes, "fuzz.safetensors", error);
  if (!tensors) {
    // A failure always says why, naming the file.
    if (error.find("'fuzz.safetensors'") == std::string::npos)
      std::abort();
    return 0;
  }
  // The accepted tensors tile the data section without overlap, so their
  // bytes together never exceed the input; reading them stays in bounds.
  size_t total = 0;
  for (const auto &[name, tensor] : *tensors) {
    total += tensor.sizeInBytes();
    double sum = 0;
    for (int64_t i = 0, e = tensor.numElements(); i < e; ++i)
      sum += tensor.getAsDouble(i);
    (void)sum;
  }
  if (total > size)
    std::abort();
  return 0;
}
