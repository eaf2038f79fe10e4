//===- Unfuse.h - decompositions of composite rlx ops -----------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TRANSFORMS_UNFUSE_H
#define RLX_TRANSFORMS_UNFUSE_H

#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace rlx {

/// The decompositions rlx-unfuse knows, one per composite op (or op form).
enum class Decomposition {
  FusedMatMulBiasAct,
  FusedResidualLayerNorm,
  FusedResidualRmsNorm,
  FusedSwiGLU,
  LoraMatMul,
  FusedAttentionBlock,
  FusedTransformerLayer,
  DotGeneral,
  Rank3Attention,
  // Control flow and regions.
  IfToWhere,
  UnrollWhile,
  InlineCustomFn,
  ElementwiseRegion,
  TransformRegion,
  BatchElementwiseRegion,
  // Backward kernels whose math is expressible in primitives.
  ReluBackward,
  ActivationBackward,
  LayerNormBackward,
  RmsNormBackward,
  GroupNormBackward,
  BatchNormInferenceBackward,
  RopeBackward,
  CumsumBackward,
  GatherBackward,
  SoftmaxCrossEntropyBackward,
  ComplexNormSqBackward,
  Conv2dBackward,
  MaxPool2dBackward,
  AttentionBackward,
};

/// Which decompositions a target wants. Policies are data: the table in
/// lib/Transforms/Unfuse/UnfusePass.cpp.
struct UnfusePolicy {
  StringRef target;
  SmallVector<Decomposition> decompose;

  bool wants(Decomposition d) const { return llvm::is_contained(decompose, d); }
  /// The policy named `target`, or nullptr.
  static const UnfusePolicy *lookup(StringRef target);
  /// `cpu, cuda, autodiff, all`.
  static std::string targetNames();
};

/// Adds the decomposition patterns `policy` enables.
void populateUnfusePatterns(RewritePatternSet &patterns,
                            const UnfusePolicy &policy);

/// Replaces `op` by its primitive form and returns the value that replaced
/// it. Fails without changing the IR when the shapes cannot be expressed.
FailureOr<Value> decomposeFusedTransformerLayer(RewriterBase &rewriter,
                                                FusedTransformerLayerOp op);

} // namespace rlx
} // namespace mlir

#endif // RLX_TRANSFORMS_UNFUSE_H
