//===- UnfusePatterns.h - decomposition pattern sets ------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_TRANSFORMS_UNFUSE_UNFUSEPATTERNS_H
#define RLX_LIB_TRANSFORMS_UNFUSE_UNFUSEPATTERNS_H

#include "rlx/Transforms/Unfuse.h"

namespace mlir {
namespace rlx {

/// Fused ops and lora_matmul.
void populateFusedDecompositions(RewritePatternSet &patterns,
                                 const UnfusePolicy &policy);
/// dot_general and rank-3 attention.
void populateLayoutDecompositions(RewritePatternSet &patterns,
                                  const UnfusePolicy &policy);
/// selective_scan and gated_delta_net.
void populateSSMDecompositions(RewritePatternSet &patterns,
                               const UnfusePolicy &policy);
/// if, while, custom_fn and the region ops.
void populateControlFlowDecompositions(RewritePatternSet &patterns,
                                       const UnfusePolicy &policy);
/// Backward kernel ops.
void populateBackwardDecompositions(RewritePatternSet &patterns,
                                    const UnfusePolicy &policy);

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_TRANSFORMS_UNFUSE_UNFUSEPATTERNS_H
