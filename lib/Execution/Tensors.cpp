//===- Tensors.cpp - test data and comparisons for graph runs -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/Tensors.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <random>

using namespace rlxrt;

HostTensor rlxrt::randomTensor(const TensorSpec &spec, uint64_t streamSeed) {
  HostTensor tensor(spec.dtype, spec.shape);
  std::mt19937_64 rng(streamSeed);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(0, 7);
  for (int64_t i = 0, e = tensor.numElements(); i < e; ++i) {
    switch (spec.dtype) {
    case DType::Bool:
      tensor.setFromDouble(i, integer(rng) & 1);
      break;
    case DType::I8:
    case DType::I16:
    case DType::I32:
    case DType::I64:
    case DType::U8:
    case DType::U32:
      tensor.setFromDouble(i, integer(rng));
      break;
    case DType::C64:
      tensor.dataAs<float>()[2 * i] = static_cast<float>(real(rng));
      tensor.dataAs<float>()[2 * i + 1] = static_cast<float>(real(rng));
      break;
    default:
      tensor.setFromDouble(i, real(rng));
      break;
    }
  }
  return tensor;
}

HostTensor rlxrt::randomArgument(const GraphSignature &signature, size_t index,
                                 uint64_t seed) {
  return randomTensor(signature.arguments[index], seed * 1000003 + index);
}

llvm::Expected<Comparison> rlxrt::compareTensors(const HostTensor &output,
                                                 llvm::StringRef outputName,
                                                 const HostTensor &reference,
                                                 llvm::StringRef referenceName,
                                                 double rtol, double atol) {
  if (reference.shape() != output.shape())
    return llvm::createStringError("reference '" + referenceName + "' is " +
                                   reference.describe() + ", " + outputName +
                                   " is " + output.describe());
  Comparison result;
  result.rtol = rtol;
  result.atol = atol;
  result.elements = output.numElements();
  for (int64_t k = 0; k < result.elements; ++k) {
    double a = output.getAsDouble(k), b = reference.getAsDouble(k);
    double diff = std::fabs(a - b);
    if (std::isnan(a) != std::isnan(b))
      diff = INFINITY;
    else if (std::isnan(a))
      diff = 0;
    result.maxAbsError = std::max(result.maxAbsError, diff);
    if (b != 0)
      result.maxRelError = std::max(result.maxRelError, diff / std::fabs(b));
    if (diff > atol + rtol * std::fabs(b))
      ++result.mismatches;
  }
  return result;
}

void rlxrt::printComparison(llvm::raw_ostream &os, llvm::StringRef outputName,
                            const Comparison &comparison) {
  os << "check " << outputName
     << llvm::format(": max abs err %.3g, max rel err %.3g, %lld of %lld "
                     "outside atol %.3g + rtol %.3g: %s\n",
                     comparison.maxAbsError, comparison.maxRelError,
                     static_cast<long long>(comparison.mismatches),
                     static_cast<long long>(comparison.elements),
                     comparison.atol, comparison.rtol,
                     comparison.ok() ? "OK" : "FAIL");
}
