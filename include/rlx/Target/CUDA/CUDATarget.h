//===- CUDATarget.h - the CUDA target ---------------------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_CUDA_CUDATARGET_H
#define RLX_TARGET_CUDA_CUDATARGET_H

namespace mlir {
namespace rlx {

/// Registers the CUDA target's rlx-unfuse policy (`target=cuda`).
void registerCUDAUnfusePolicy();

} // namespace rlx
} // namespace mlir

#endif // RLX_TARGET_CUDA_CUDATARGET_H
