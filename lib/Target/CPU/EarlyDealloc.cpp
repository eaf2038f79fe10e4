//===- EarlyDealloc.cpp - free each buffer after its last use -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Buffer deallocation puts the dealloc of a block's own buffers at the end
// of the block, so a graph held every temporary until it returned.
// rlx-cpu-early-dealloc moves each dealloc up to the buffer's last use,
// which is what makes the peak memory of a graph depend on how long its
// values live (and rematerialisation worth doing).
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPUEARLYDEALLOC
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// The last op of `block`, other than `dealloc`, that uses `buffer` or a
/// value derived from it; null if none does. Every result of an op that
/// reads a derived value counts as derived (views, pointers taken from it,
/// whatever is computed from those), and so do the results of the op in
/// `block` that holds such a reader in its regions.
Operation *lastUseInBlock(Value buffer, Block *block, Operation *dealloc) {
  SmallVector<Value> worklist = {buffer};
  DenseSet<Value> derived = {buffer};
  Operation *last = nullptr;
  auto derive = [&](Operation *op) {
    for (Value result : op->getResults())
      if (derived.insert(result).second)
        worklist.push_back(result);
  };
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user == dealloc)
        continue;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      // A use outside the block (or none found): leave the dealloc alone.
      if (!inBlock)
        return dealloc;
      derive(user);
      derive(inBlock);
      if (!last || last->isBeforeInBlock(inBlock))
        last = inBlock;
    }
  }
  return last;
}

struct RLXCPUEarlyDeallocPass
    : rlx::impl::RLXCPUEarlyDeallocBase<RLXCPUEarlyDeallocPass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      Value buffer = dealloc.getMemref();
      auto alloc = buffer.getDefiningOp<memref::AllocOp>();
      Block *block = dealloc->getBlock();
      if (!alloc || alloc->getBlock() != block)
        continue;
      Operation *last = lastUseInBlock(buffer, block, dealloc);
      if (last == dealloc)
        continue;
      Operation *after = last ? last : alloc.getOperation();
      if (after->isBeforeInBlock(dealloc))
        dealloc->moveAfter(after);
    }
  }
};

} // namespace
