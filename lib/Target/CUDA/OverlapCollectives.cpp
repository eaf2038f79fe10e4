//===- OverlapCollectives.cpp - collectives beside the kernels after them -===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-cuda-overlap-collectives (Passes.td): a collective call starts on the
// thread's communication stream, and the graph's stream waits for it just
// before the first op that touches its buffers.
//
//===----------------------------------------------------------------------===//

#include "KernelOps.h"

#include "rlx/Runtime/Collectives.h"
#include "rlx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCUDAOVERLAPCOLLECTIVES
#include "rlx/Target/CUDA/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kCollectivePrefix = "rlx_cuda_collective_r";
constexpr llvm::StringLiteral kStartPrefix = "rlx_cuda_collective_start_r";
constexpr llvm::StringLiteral kWaitName = "rlx_cuda_collective_wait";

/// `root` and every view of it, through chains of views.
SmallVector<Value> viewsOf(Value root) {
  SmallVector<Value> views = {root};
  for (size_t i = 0; i < views.size(); ++i)
    for (Operation *user : views[i].getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == views[i])
          llvm::append_range(views, user->getResults());
  return views;
}

/// The first op after `call` in its block that touches one of `buffers` or
/// a view of them (creating a view touches nothing), else the block's
/// terminator.
Operation *firstToucherAfter(func::CallOp call, ValueRange buffers) {
  Block *block = call->getBlock();
  Operation *first = block->getTerminator();
  for (Value buffer : buffers)
    for (Value view : viewsOf(rlx::viewRoot(buffer)))
      for (Operation *user : view.getUsers()) {
        if (auto asView = dyn_cast<ViewLikeOpInterface>(user))
          if (asView.getViewSource() == view)
            continue;
        // A use in a nested region counts at the op of this block around
        // it; one outside the block is after its terminator anyway.
        Operation *inBlock = block->findAncestorOpInBlock(*user);
        if (inBlock && inBlock != call.getOperation() &&
            call->isBeforeInBlock(inBlock) && inBlock->isBeforeInBlock(first))
          first = inBlock;
      }
  return first;
}

/// Whether `op` queues no work on a stream: allocations and frees, views
/// and casts, and computations of scalars on the host.
bool queuesNoWork(Operation *op) {
  if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp, memref::CastOp,
          memref::ExtractAlignedPointerAsIndexOp, ViewLikeOpInterface>(op))
    return true;
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

func::FuncOp declare(OpBuilder &b, ModuleOp module, StringRef name,
                     FunctionType type, func::FuncOp like) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto declared = func::FuncOp::create(b, module.getLoc(), name, type);
  declared.setPrivate();
  // The attributes of the runtime's other entries: the C interface, and
  // device buffers.
  for (NamedAttribute attribute : like->getDiscardableAttrs())
    declared->setAttr(attribute.getName(), attribute.getValue());
  return declared;
}

struct OverlapCollectivesPass
    : rlx::impl::RLXCUDAOverlapCollectivesBase<OverlapCollectivesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (call.getCallee().starts_with(kCollectivePrefix))
        calls.push_back(call);
    });
    OpBuilder b(module.getContext());
    for (func::CallOp call : calls) {
      // (input, output, flags...): rlx::lowerCollective.
      ValueRange buffers = call.getOperands().take_front(2);
      Operation *first = firstToucherAfter(call, buffers);
      // Nothing to overlap: another stream would only add its fork and
      // join to the collective's latency (a decode step's all-reduce,
      // read by the residual add right after it).
      if (llvm::all_of(llvm::make_range(std::next(call->getIterator()),
                                        first->getIterator()),
                       [](Operation &op) { return queuesNoWork(&op); }))
        continue;
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      std::string start =
          (kStartPrefix + call.getCallee().drop_front(kCollectivePrefix.size()))
              .str();
      declare(b, module, start, callee.getFunctionType(), callee);
      Value index = call.getOperand(2 + rlxrt::comm::kCudaOpIndex);
      auto wait = declare(b, module, kWaitName,
                          b.getFunctionType({index.getType()}, {}), callee);
      call.setCallee(start);
      b.setInsertionPoint(first);
      func::CallOp::create(b, call.getLoc(), wait, ValueRange{index});
    }
  }
};

} // namespace
