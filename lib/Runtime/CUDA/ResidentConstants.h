//===- ResidentConstants.h - graph constants kept on the device -*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_RUNTIME_CUDA_RESIDENTCONSTANTS_H
#define RLX_LIB_RUNTIME_CUDA_RESIDENTCONSTANTS_H

namespace rlxrt::cuda {

/// Called when the module whose image is at `moduleImage` is unloaded (its
/// graph library closed): frees the device copies of the constants of the
/// object that image lies in, whose host addresses another library may take
/// next with other bytes. Copies of constants outside every shared object
/// (JIT-compiled graphs, which dladdr does not find) are freed on any such
/// unload.
void releaseResidentConstants(const void *moduleImage);

} // namespace rlxrt::cuda

#endif // RLX_LIB_RUNTIME_CUDA_RESIDENTCONSTANTS_H
