//===- StreamOrderedCalls.cpp - no host wait before stream-ordered calls --===//
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
#define GEN_PASS_DEF_RLXCUDASTREAMORDEREDCALLS
#include "rlx/Target/CUDA/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {
struct RLXCUDAStreamOrderedCallsPass
    : rlx::impl::RLXCUDAStreamOrderedCallsBase<RLXCUDAStreamOrderedCallsPass> {
  void runOnOperation() override {
    SmallVector<gpu::WaitOp> redundant;
    getOperation().walk([&](func::CallOp call) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee || !callee->hasAttr(rlx::kDeviceBuffersAttrName))
        return;
      // A host wait: no token result, so nothing else depends on it.
      auto wait = dyn_cast_or_null<gpu::WaitOp>(call->getPrevNode());
      if (wait && !wait.getAsyncToken())
        redundant.push_back(wait);
    });
    for (gpu::WaitOp wait : redundant)
      wait.erase();
  }
};
} // namespace
