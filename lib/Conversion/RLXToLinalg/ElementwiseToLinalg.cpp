//===- ElementwiseToLinalg.cpp - constants and elementwise ops ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// rlx.constant -> arith.constant, re-typed to signless integers where the
/// rlx type is unsigned (same bits).
struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    TypedAttr value;
    if (auto dense = dyn_cast<DenseElementsAttr>(op.getValue()))
      value = dense.getType() == type ? dense
                                      : dense.bitcast(type.getElementType());
    else if (auto resource = dyn_cast<DenseResourceElementsAttr>(op.getValue()))
      value = DenseResourceElementsAttr::get(type, resource.getRawHandle());
    if (!value)
      return rewriter.notifyMatchFailure(op, "unsupported constant storage");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, value);
    return success();
  }
};

/// Every elementwise op with a scalar computation (rlx.activation,
/// rlx.binary, rlx.compare, rlx.cast, rlx.where) -> a linalg.generic over
/// the result reading the operands broadcast NumPy-style, whose body is the
/// op's ScalarizableOpInterface computation. Unsigned element types are
/// signless in lowered code; the op's own rlx types give the signedness.
struct ScalarizableLowering
    : OpInterfaceConversionPattern<ScalarizableOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;

  LogicalResult
  matchAndRewrite(ScalarizableOpInterface op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(
        getTypeConverter()->convertType(op->getResult(0).getType()));
    // A cast between types with the same bits (i8 <-> ui8) is its operand
    // once unsigned types are signless: no copying generic.
    if (isa<CastOp>(op) && operands.front().getType() == type) {
      rewriter.replaceOp(op, operands.front());
      return success();
    }
    Value result = buildBroadcastElementwise(
        rewriter, op.getLoc(), type, operands,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return op.emitScalar(b, loc, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// rlx.stop_gradient only matters to autodiff: its forward value is its
/// input.
struct StopGradientLowering : OpConversionPattern<StopGradientOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(StopGradientOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

} // namespace

void rlx::populateElementwiseToLinalgPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, ScalarizableLowering, StopGradientLowering>(
      converter, patterns.getContext());
}
