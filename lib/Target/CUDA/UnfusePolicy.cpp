//===- UnfusePolicy.cpp - what the CUDA target decomposes -----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CUDA/Passes.h"
#include "rlx/Transforms/Unfuse.h"

using namespace mlir;
using namespace mlir::rlx;

void rlx::registerCUDAUnfusePolicy() {
  // The layer norm's, the activations' and the convolution's backward ops
  // stay for rlx-cuda-form-kernels, which runs the input gradient along the
  // last axis as a row kernel, tanh GELU's derivative in a GEMM's epilogue
  // and the convolution gradients as cuDNN calls, and decomposes the rest
  // itself.
  SmallVector<Decomposition> decompose;
  for (Decomposition d : getLinalgLoweringDecompositions())
    if (d != Decomposition::LayerNormBackward &&
        d != Decomposition::ActivationBackward &&
        d != Decomposition::Conv2dBackward)
      decompose.push_back(d);
  decompose.append({Decomposition::IfToWhere, Decomposition::UnrollWhile});
  registerUnfusePolicy(
      {"cuda",
       "the generic GPU kernels run what the linalg lowering produces, so "
       "the CUDA target decomposes what the CPU target does; besides, "
       "control flow becomes data flow (`if` into `where`, bounded `while` "
       "unrolled), so a graph is one straight-line sequence of kernels "
       "rather than a host loop that waits for the GPU at every step; the "
       "layer norm's, the activations' and the convolution's backward ops "
       "are left to rlx-cuda-form-kernels (a row kernel for the layer "
       "norm's input gradient along the last axis, tanh GELU's derivative "
       "in a GEMM's cuBLASLt epilogue, cuDNN for the convolution "
       "gradients)",
       std::move(decompose)});
}
