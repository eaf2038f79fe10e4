//===- ReductionKernels.h - one block per reduced output --------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_TARGET_CUDA_REDUCTIONKERNELS_H
#define RLX_LIB_TARGET_CUDA_REDUCTIONKERNELS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace rlx {

/// Replaces a reduction on buffers (a linalg.generic with one 32-bit output
/// folded by one associative combiner: add, mul, min, max, and, or, xor)
/// whose reduced points per output number at least `minReducedPoints` by a
/// kernel of one block per output: threads stride over the reduced points
/// and `gpu.all_reduce` combines their partials. Returns false, changing
/// nothing, for any other op. Sums are reassociated.
bool mapRowReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                     int64_t minReducedPoints);

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_TARGET_CUDA_REDUCTIONKERNELS_H
