//===- ExpandArith.cpp - expand arith ops LLVM cannot lower ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXEXPANDARITH
#include "rlx/Conversion/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {
struct RLXExpandArithPass
    : rlx::impl::RLXExpandArithBase<RLXExpandArithPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Not populateArithExpandOpsPatterns: it also turns maximumf/minimumf
    // into a compare and select that ignores the sign of zero.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    arith::populateExpandScalingExtTruncPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
