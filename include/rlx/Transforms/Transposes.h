//===- Transposes.h - moving rlx.transpose through the graph ----*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TRANSFORMS_TRANSPOSES_H
#define RLX_TRANSFORMS_TRANSPOSES_H

namespace mlir {
class RewritePatternSet;
namespace rlx {

/// The patterns of `rlx-propagate-transposes`: each moves an rlx.transpose
/// below the elementwise op or reduction that reads it. With the
/// transpose's folder (run by the greedy driver), inverse pairs cancel.
void populatePropagateTransposesPatterns(RewritePatternSet &patterns);

} // namespace rlx
} // namespace mlir

#endif // RLX_TRANSFORMS_TRANSPOSES_H
