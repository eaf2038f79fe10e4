//===- CUDAExecutionTarget.h - the `cuda` execution target ------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_CUDA_CUDAEXECUTIONTARGET_H
#define RLX_TARGET_CUDA_CUDAEXECUTIONTARGET_H

namespace rlxrt {

/// Registers `cuda`: graphs lowered by rlx-cuda-pipeline, compiled to
/// shared libraries that call librlx_cuda_runtime.so (and JIT-compiled
/// where a GPU is present).
void registerCUDAExecutionTarget();

} // namespace rlxrt

#endif // RLX_TARGET_CUDA_CUDAEXECUTIONTARGET_H
