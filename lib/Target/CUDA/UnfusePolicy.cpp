//===- UnfusePolicy.cpp - what the CUDA target decomposes -----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CUDA/CUDATarget.h"
#include "rlx/Transforms/Unfuse.h"

using namespace mlir;
using namespace mlir::rlx;

void rlx::registerCUDAUnfusePolicy() {
  using D = Decomposition;
  registerUnfusePolicy(
      {"cuda",
       "graphs prepared for the GPU turn control flow into data flow (`if` "
       "into `where`, bounded `while` unrolled) so a graph is one "
       "straight-line sequence of kernels; the fused GEMM epilogues "
       "(matmul + bias + activation), residual norms, rank-4 attention, "
       "the elementwise region ops and the RMS-norm, rope, cumsum, gather, "
       "max-pool and attention backward ops stay whole for dedicated "
       "kernels. The CUDA lowering does not exist yet: `target=cuda` only "
       "prepares graphs",
       {D::FusedSwiGLU, D::LoraMatMul, D::FusedAttentionBlock,
        D::FusedTransformerLayer, D::DotGeneral, D::Rank3Attention,
        D::IfToWhere, D::UnrollWhile, D::InlineCustomFn, D::TransformRegion,
        D::ReluBackward, D::ActivationBackward, D::LayerNormBackward,
        D::GroupNormBackward, D::BatchNormInferenceBackward,
        D::SoftmaxCrossEntropyBackward, D::ComplexNormSqBackward,
        D::Conv2dBackward}});
}
