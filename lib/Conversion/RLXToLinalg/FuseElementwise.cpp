//===- FuseElementwise.cpp - elementwise fusion that keeps GEMMs named ----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/GemmCalls.h"
#include "rlx/Conversion/Passes.h"
#include "rlx/Dialect/RLX/IR/RLXDialect.h"

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

/// Gives the op fusing into a consumer marked as a recomputation (rlx-autodiff
/// remat, RLXDialect::kRematAttrName) that mark too, so CSE keeps it apart
/// from the forward value it duplicates. The fusion pattern builds the fused
/// op right after the control function accepts the pair, so the next generic
/// inserted is that op.
struct RematMarkOnFusion : RewriterBase::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    if (!fusingMarked || !isa<linalg::GenericOp>(op))
      return;
    op->setAttr(rlx::RLXDialect::kRematAttrName,
                UnitAttr::get(op->getContext()));
    fusingMarked = false;
  }
  bool fusingMarked = false;
};

struct RLXFuseElementwisePass
    : rlx::impl::RLXFuseElementwiseBase<RLXFuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    RematMarkOnFusion marks;
    // Fusing a producer with other uses would compute it twice; so would
    // fusing it into a consumer that reads it through a map other than a
    // projected permutation (a window `d0 + d1`, a stride), which reads
    // elements more than once or out of order.
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [&](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          if (!producer || !producer->hasOneUse())
            return false;
          auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
          // A grouped matmul stays in the form a target's GEMM calls match.
          if (fused->getOwner()->hasAttr(rlx::kGroupedMatMulAttrName))
            return false;
          if (consumer &&
              !consumer.getMatchingIndexingMap(fused).isProjectedPermutation())
            return false;
          marks.fusingMarked =
              fused->getOwner()->hasAttr(rlx::RLXDialect::kRematAttrName);
          return true;
        });
    GreedyRewriteConfig config;
    config.setListener(&marks);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
