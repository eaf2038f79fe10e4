//===- GgufFuzzer.cpp - libFuzzer target of the GGUF loader ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to rlxrt::parseGguf, the loader behind readGguf. A
// GGUF file is untrusted data (docs/security.md): every input must give
// tensors or an error message, never a crash, a sanitizer report or
// allocations larger than the input.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/HostTensor.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string error;
  auto tensors = rlxrt::parseGguf(bytes, "fuzz.gguf", error);
  if (!tensors) {
    // A failure always says why, naming the file.
    if (error.find("'fuzz.gguf'") == std::string::npos)
      std::abort();
    return 0;
  }
  // The accepted tensors do not overlap, so their bytes together never
  // exceed the input; reading them stays in bounds. A packed tensor is u8
  // bytes with its GGUF dims; a plain one has them reversed.
  size_t total = 0;
  for (const auto &[name, param] : *tensors) {
    const rlxrt::HostTensor &tensor = param.tensor;
    total += tensor.sizeInBytes();
    if (param.packedType.empty() ==
        (tensor.dtype() == rlxrt::DType::U8 && param.packedDims.size() != 0))
      std::abort();
    double sum = 0;
    for (int64_t i = 0, e = tensor.numElements(); i < e; ++i)
      sum += tensor.getAsDouble(i);
    (void)sum;
  }
  if (total > size)
    std::abort();
  return 0;
}
