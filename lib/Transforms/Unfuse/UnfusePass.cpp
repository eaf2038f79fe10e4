//===- UnfusePass.cpp - rlx-unfuse and its per-target policies ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "UnfusePatterns.h"
#include "rlx/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXUNFUSE
#include "rlx/Transforms/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

using D = Decomposition;

/// The policies, as data. A target lists the decompositions it wants; what
/// it does not list stays native because its lowering handles it directly.
const UnfusePolicy kPolicies[] = {
    // The CPU lowers primitives, rank-3 attention, the elementwise region
    // ops and structured control flow (rlx.if / rlx.while / rlx.scan as scf,
    // so only the taken branch runs and loops need no bound) and
    // softmax_cross_entropy_backward directly; it has no kernels for the
    // other backward ops.
    {"cpu",
     {D::FusedMatMulBiasAct,
      D::FusedResidualLayerNorm,
      D::FusedResidualRmsNorm,
      D::FusedSwiGLU,
      D::LoraMatMul,
      D::FusedAttentionBlock,
      D::FusedTransformerLayer,
      D::DotGeneral,
      D::InlineCustomFn,
      D::TransformRegion,
      D::ReluBackward,
      D::ActivationBackward,
      D::LayerNormBackward,
      D::RmsNormBackward,
      D::GroupNormBackward,
      D::BatchNormInferenceBackward,
      D::RopeBackward,
      D::CumsumBackward,
      D::GatherBackward,
      D::ComplexNormSqBackward,
      D::Conv2dBackward,
      D::MaxPool2dBackward,
      D::AttentionBackward}},
    // CUDA has kernels for matmul+bias+act, residual norms, rank-4
    // attention, the region ops and the RMS-norm, rope, cumsum, gather,
    // max-pool and attention backward ops; it has no runtime loop.
    {"cuda",
     {D::FusedSwiGLU, D::LoraMatMul, D::FusedAttentionBlock,
      D::FusedTransformerLayer, D::DotGeneral, D::Rank3Attention, D::IfToWhere,
      D::UnrollWhile, D::InlineCustomFn, D::TransformRegion, D::ReluBackward,
      D::ActivationBackward, D::LayerNormBackward, D::GroupNormBackward,
      D::BatchNormInferenceBackward, D::SoftmaxCrossEntropyBackward,
      D::ComplexNormSqBackward, D::Conv2dBackward}},
    // Autodiff differentiates primitives; custom_fn carries its own rules
    // and the backward ops are what it emits.
    {"autodiff",
     {D::FusedMatMulBiasAct, D::FusedResidualLayerNorm, D::FusedResidualRmsNorm,
      D::FusedSwiGLU, D::LoraMatMul, D::FusedAttentionBlock,
      D::FusedTransformerLayer, D::DotGeneral, D::Rank3Attention,
      D::ElementwiseRegion, D::TransformRegion, D::BatchElementwiseRegion}},
    {"all",
     {D::FusedMatMulBiasAct,
      D::FusedResidualLayerNorm,
      D::FusedResidualRmsNorm,
      D::FusedSwiGLU,
      D::LoraMatMul,
      D::FusedAttentionBlock,
      D::FusedTransformerLayer,
      D::DotGeneral,
      D::Rank3Attention,
      D::IfToWhere,
      D::UnrollWhile,
      D::InlineCustomFn,
      D::ElementwiseRegion,
      D::TransformRegion,
      D::BatchElementwiseRegion,
      D::ReluBackward,
      D::ActivationBackward,
      D::LayerNormBackward,
      D::RmsNormBackward,
      D::GroupNormBackward,
      D::BatchNormInferenceBackward,
      D::RopeBackward,
      D::CumsumBackward,
      D::GatherBackward,
      D::SoftmaxCrossEntropyBackward,
      D::ComplexNormSqBackward,
      D::Conv2dBackward,
      D::MaxPool2dBackward,
      D::AttentionBackward}},
};

struct RLXUnfusePass : rlx::impl::RLXUnfuseBase<RLXUnfusePass> {
  using RLXUnfuseBase::RLXUnfuseBase;

  void runOnOperation() override {
    const UnfusePolicy *policy = UnfusePolicy::lookup(target);
    if (!policy) {
      getOperation().emitError()
          << "rlx-unfuse: unknown target '" << target
          << "' (expected one of: " << UnfusePolicy::targetNames() << ")";
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateUnfusePatterns(patterns, *policy);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

const UnfusePolicy *UnfusePolicy::lookup(StringRef target) {
  for (const UnfusePolicy &policy : kPolicies)
    if (policy.target == target)
      return &policy;
  return nullptr;
}

std::string UnfusePolicy::targetNames() {
  std::string names;
  for (const UnfusePolicy &policy : kPolicies)
    names += (names.empty() ? "" : ", ") + policy.target.str();
  return names;
}

void rlx::populateUnfusePatterns(RewritePatternSet &patterns,
                                 const UnfusePolicy &policy) {
  populateFusedDecompositions(patterns, policy);
  populateLayoutDecompositions(patterns, policy);
  populateControlFlowDecompositions(patterns, policy);
  populateBackwardDecompositions(patterns, policy);
}
