//===- TagOpLocations.cpp - name locations after their rlx op -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Names every rlx op's location after the op, so that after lowering,
// decomposition and fusion each piece of work can still say which rlx ops it
// came from (profilers of every target label their timers with it).
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Transforms/Passes.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXTAGOPLOCATIONS
#include "rlx/Transforms/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

struct RLXTagOpLocationsPass
    : rlx::impl::RLXTagOpLocationsBase<RLXTagOpLocationsPass> {
  void runOnOperation() override {
    Dialect *rlxDialect = getContext().getLoadedDialect<RLXDialect>();
    getOperation()->walk([&](Operation *op) {
      if (op->getDialect() != rlxDialect)
        return;
      StringAttr name = op->getName().getIdentifier();
      // Tag once: a re-run must not nest names.
      if (auto named = dyn_cast<NameLoc>(op->getLoc());
          named && named.getName() == name)
        return;
      op->setLoc(NameLoc::get(name, op->getLoc()));
    });
  }
};

} // namespace
