//===- UnfusePolicy.cpp - what the CPU target decomposes ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"
#include "rlx/Transforms/Unfuse.h"

using namespace mlir;
using namespace mlir::rlx;

void rlx::registerCPUUnfusePolicy() {
  using D = Decomposition;
  registerUnfusePolicy(
      {"cpu",
       "the linalg lowering handles primitives, rank-3 attention, the "
       "elementwise region ops, structured control flow (`rlx.if` / "
       "`rlx.while` / `rlx.scan` as scf, so only the taken branch runs and "
       "loops need no bound) and `softmax_cross_entropy_backward` directly; "
       "every other composite op is decomposed",
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
        D::AttentionBackward}});
}
