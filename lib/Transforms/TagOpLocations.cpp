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

#include "rlx/Dialect/RLX/IR/OpCosts.h"
#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Transforms/OpLabels.h"
#include "rlx/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

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
    NamedAttrList opFlops;
    auto module = dyn_cast<ModuleOp>(getOperation());
    if (module)
      if (auto known = module->getAttrOfType<DictionaryAttr>(kOpFlopsAttrName))
        opFlops.append(known.getValue());
    getOperation()->walk([&](Operation *op) {
      if (op->getDialect() != rlxDialect)
        return;
      StringAttr name = op->getName().getIdentifier();
      // Tag once: a re-run must not nest names.
      auto named = dyn_cast<NameLoc>(op->getLoc());
      if (!named || named.getName() != name)
        op->setLoc(NameLoc::get(name, op->getLoc()));
      std::optional<double> flops = estimateFlops(op);
      if (flops && *flops < 0x1p62)
        opFlops.set(getOpLabel(op->getLoc()),
                    IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                     static_cast<int64_t>(*flops)));
    });
    // The profilers give each label's work its TFLOP/s from these.
    if (module && !opFlops.empty())
      module->setAttr(kOpFlopsAttrName, opFlops.getDictionary(&getContext()));
  }
};

} // namespace
