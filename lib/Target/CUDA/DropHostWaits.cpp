//===- DropHostWaits.cpp - no host waits for the GPU in a graph -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCUDADROPHOSTWAITS
#include "rlx/Target/CUDA/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {

/// Whether `buffer` is host memory: not a gpu.alloc result, not a graph
/// function's argument (the runner passes device buffers), through views.
bool isHostMemory(Value buffer) {
  while (Operation *producer = buffer.getDefiningOp()) {
    if (isa<gpu::AllocOp>(producer))
      return false;
    auto view = dyn_cast<ViewLikeOpInterface>(producer);
    if (!view)
      return true;
    buffer = view.getViewSource();
  }
  return false;
}

/// Whether the chain `wait` waits for copies into host memory, which the
/// host reads after the wait.
bool waitsForHostCopy(gpu::WaitOp wait) {
  SmallVector<Value> tokens(wait.getAsyncDependencies());
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!tokens.empty()) {
    Operation *producer = tokens.pop_back_val().getDefiningOp();
    if (!producer || !seen.insert(producer).second)
      continue;
    if (auto copy = dyn_cast<gpu::MemcpyOp>(producer);
        copy && isHostMemory(copy.getDst()))
      return true;
    if (auto async = dyn_cast<gpu::AsyncOpInterface>(producer))
      llvm::append_range(tokens, async.getAsyncDependencies());
  }
  return false;
}

struct RLXCUDADropHostWaitsPass
    : rlx::impl::RLXCUDADropHostWaitsBase<RLXCUDADropHostWaitsPass> {
  void runOnOperation() override {
    // A wait without a token result is a host wait: nothing on the GPU
    // depends on it, and the graph stream orders what follows (see the
    // pass description for why the host need not wait).
    SmallVector<gpu::WaitOp> hostWaits;
    bool hostReads = false;
    getOperation().walk([&](gpu::WaitOp wait) {
      if (wait.getAsyncToken())
        return;
      if (waitsForHostCopy(wait))
        hostReads = true;
      else
        hostWaits.push_back(wait);
    });
    for (gpu::WaitOp wait : hostWaits)
      wait.erase();
    if (hostReads)
      getOperation()->setAttr(rlx::kCUDAHostReadsAttrName,
                              UnitAttr::get(&getContext()));
  }
};
} // namespace
