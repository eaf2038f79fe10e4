//===- Tensors.cpp - test data and comparisons for graph runs -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/Tensors.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace rlxrt;

llvm::Expected<HostTensor> rlxrt::randomTensor(const TensorSpec &spec,
                                               uint64_t streamSeed) {
  llvm::Expected<HostTensor> allocated = spec.allocate();
  if (!allocated)
    return allocated.takeError();
  HostTensor &tensor = *allocated;
  std::mt19937_64 rng(streamSeed);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  // Indices (labels, gather indices) stay below their bound, so that a
  // random training batch has valid labels.
  std::uniform_int_distribution<int64_t> integer(
      0, spec.indexBound > 0 ? spec.indexBound - 1 : 7);
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
      tensor.setFromDouble(i, static_cast<double>(integer(rng)));
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
  return allocated;
}

llvm::Expected<HostTensor>
rlxrt::randomArgument(const GraphSignature &signature, size_t index,
                      uint64_t seed) {
  return randomTensor(signature.arguments[index], seed * 1000003 + index);
}

llvm::Error rlxrt::checkTolerances(double rtol, double atol) {
  // NaN compares false with everything, so a NaN tolerance would let every
  // difference through; a negative one would fail equal values.
  for (auto [name, value] :
       {std::pair<const char *, double>{"rtol", rtol}, {"atol", atol}})
    if (!std::isfinite(value) || value < 0) {
      std::string text;
      llvm::raw_string_ostream(text) << llvm::format("%g", value);
      return llvm::createStringError(
          llvm::Twine(name) + " must be a finite number >= 0, got " + text);
    }
  return llvm::Error::success();
}

namespace {

/// Whether `got` matches `want` within `atol + rtol * |want|`; NaN matches
/// only NaN and an infinity only the same infinity (a tolerance scaled by
/// |inf| would accept anything). Updates the largest errors.
bool matches(double got, double want, double rtol, double atol,
             Comparison &result) {
  double diff;
  bool ok;
  if (std::isnan(got) || std::isnan(want)) {
    ok = std::isnan(got) && std::isnan(want);
    diff = ok ? 0 : INFINITY;
  } else if (std::isinf(got) || std::isinf(want)) {
    ok = got == want;
    diff = ok ? 0 : INFINITY;
  } else {
    diff = std::fabs(got - want);
    ok = diff <= atol + rtol * std::fabs(want);
  }
  result.maxAbsError = std::max(result.maxAbsError, diff);
  if (want != 0 && !std::isinf(want))
    result.maxRelError = std::max(result.maxRelError, diff / std::fabs(want));
  return ok;
}

} // namespace

llvm::Expected<Comparison> rlxrt::compareTensors(const HostTensor &output,
                                                 llvm::StringRef outputName,
                                                 const HostTensor &reference,
                                                 llvm::StringRef referenceName,
                                                 double rtol, double atol) {
  if (llvm::Error error = checkTolerances(rtol, atol))
    return std::move(error);
  // NumPy has no bf16, so a bf16 output is checked against f32 values.
  bool sameDType =
      reference.dtype() == output.dtype() ||
      (output.dtype() == DType::BF16 && reference.dtype() == DType::F32);
  if (reference.shape() != output.shape() || !sameDType)
    return llvm::createStringError("reference '" + referenceName + "' is " +
                                   reference.describe() + ", " + outputName +
                                   " is " + output.describe());
  Comparison result;
  result.rtol = rtol;
  result.atol = atol;
  result.elements = output.numElements();
  bool complex = output.dtype() == DType::C64;
  for (int64_t k = 0; k < result.elements; ++k) {
    bool ok = matches(output.getAsDouble(k), reference.getAsDouble(k), rtol,
                      atol, result);
    // Complex numbers: the imaginary parts must match as well.
    if (complex)
      ok &= matches(output.dataAs<float>()[2 * k + 1],
                    reference.dataAs<float>()[2 * k + 1], rtol, atol, result);
    if (!ok)
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
