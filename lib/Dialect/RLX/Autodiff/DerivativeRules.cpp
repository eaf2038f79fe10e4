//===- DerivativeRules.cpp - registration of the derivative rules ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/Autodiff/DerivativeRules.h"
#include "RuleModel.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::rlx;

LogicalResult rlx::requireStaticShapes(Operation *op, ValueRange values,
                                       StringRef pass) {
  for (Value value : values)
    if (auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
        !type || !type.hasStaticShape())
      return op->emitError()
             << pass << ": the derivative rule of '" << op->getName()
             << "' needs static shapes, got " << value.getType();
  return success();
}

void rlx::registerDerivativeRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, RLXDialect *) {
    attachElementwiseRules(ctx);
    attachLinalgRules(ctx);
    attachReductionRules(ctx);
    attachShapeRules(ctx);
    attachNormalizationRules(ctx);
    attachAttentionRules(ctx);
    attachConvPoolRules(ctx);
    attachBackwardRules(ctx);
    attachControlFlowRules(ctx);
    attachQuantizationRules(ctx);
    attachMoERules(ctx);
    attachSignalRules(ctx);
    attachCollectiveRules(ctx);
  });
}
