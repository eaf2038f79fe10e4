//===- Tensors.h - test data and comparisons for graph runs -----*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_TENSORS_H
#define RLX_EXECUTION_TENSORS_H

#include "rlx/Execution/GraphSignature.h"

#include "llvm/Support/raw_ostream.h"

namespace rlxrt {

/// A tensor of `spec`'s dtype and shape filled from a mt19937_64 stream
/// seeded with `streamSeed`: floats (and both parts of complex numbers)
/// uniform in [-1, 1), integers in [0, 8) or, for an argument that indexes
/// something, in [0, indexBound), booleans 0 or 1. An error names
/// the tensor when it cannot be allocated.
llvm::Expected<HostTensor> randomTensor(const TensorSpec &spec,
                                        uint64_t streamSeed);

/// The random data of argument `index` of `signature` for run seed `seed`
/// (stream `seed * 1000003 + index`), so a graph's arguments are independent
/// and reproducible from one seed.
llvm::Expected<HostTensor> randomArgument(const GraphSignature &signature,
                                          size_t index, uint64_t seed);

/// How far an output is from a reference, elementwise as doubles (complex
/// numbers: the real and the imaginary part each). NaN matches only NaN at
/// the same position, and an infinity only the same infinity.
struct Comparison {
  double maxAbsError = 0;
  /// Over the elements whose reference is not zero.
  double maxRelError = 0;
  /// Elements with |output - reference| > atol + rtol * |reference|.
  int64_t mismatches = 0;
  int64_t elements = 0;
  double rtol = 0;
  double atol = 0;

  bool ok() const { return mismatches == 0; }
};

/// An error unless `rtol` and `atol` are finite and non-negative.
llvm::Error checkTolerances(double rtol, double atol);

/// Compares `output` with `reference` within `atol + rtol * |reference|`.
/// Fails, naming both, if their shapes or dtypes differ (a bf16 output takes
/// an f32 reference: NumPy has no bf16) or a tolerance is invalid.
llvm::Expected<Comparison> compareTensors(const HostTensor &output,
                                          llvm::StringRef outputName,
                                          const HostTensor &reference,
                                          llvm::StringRef referenceName,
                                          double rtol, double atol);

/// `check NAME: max abs err A, max rel err R, B of N outside atol T + rtol
/// U: OK|FAIL`.
void printComparison(llvm::raw_ostream &os, llvm::StringRef outputName,
                     const Comparison &comparison);

} // namespace rlxrt

#endif // RLX_EXECUTION_TENSORS_H
