//===- DropHostWaits.cpp - no host waits for the GPU in a graph -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCUDADROPHOSTWAITS
#include "rlx/Target/CUDA/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {
struct RLXCUDADropHostWaitsPass
    : rlx::impl::RLXCUDADropHostWaitsBase<RLXCUDADropHostWaitsPass> {
  void runOnOperation() override {
    // A wait without a token result is a host wait: nothing on the GPU
    // depends on it, and the graph stream orders what follows (see the
    // pass description for why the host need not wait).
    SmallVector<gpu::WaitOp> hostWaits;
    getOperation().walk([&](gpu::WaitOp wait) {
      if (!wait.getAsyncToken())
        hostWaits.push_back(wait);
    });
    for (gpu::WaitOp wait : hostWaits)
      wait.erase();
  }
};
} // namespace
