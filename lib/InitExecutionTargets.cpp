//===- InitExecutionTargets.cpp - register every execution target ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Apart from InitRLX.cpp so that tools which only parse and transform IR do
// not link the targets' compilers.
//
//===----------------------------------------------------------------------===//

#include "rlx/InitRLX.h"
#include "rlx/Target/CPU/CPUExecutionTarget.h"
#include "rlx/Target/CUDA/CUDAExecutionTarget.h"

void mlir::rlx::registerAllExecutionTargets() {
  rlxrt::registerCPUExecutionTarget();
  rlxrt::registerCUDAExecutionTarget();
}
