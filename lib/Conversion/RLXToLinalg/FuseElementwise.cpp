//===- FuseElementwise.cpp - elementwise fusion that keeps GEMMs named ----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXFUSEELEMENTWISE
#include "rlx/Conversion/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {
struct RLXFuseElementwisePass
    : rlx::impl::RLXFuseElementwiseBase<RLXFuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Fusing a producer with other uses would compute it twice; so would
    // fusing it into a consumer that reads it through a map other than a
    // projected permutation (a window `d0 + d1`, a stride), which reads
    // elements more than once or out of order.
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          if (!producer || !producer->hasOneUse())
            return false;
          auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
          return !consumer || consumer.getMatchingIndexingMap(fused)
                                  .isProjectedPermutation();
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
