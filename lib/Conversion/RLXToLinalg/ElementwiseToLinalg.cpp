//===- ElementwiseToLinalg.cpp - constants and elementwise ops ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Conversion/RLXToLinalg/ScalarOps.h"
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

struct ActivationLowering : OpConversionPattern<ActivationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ActivationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    ActivationKind kind = op.getKind();
    Value result = buildBroadcastElementwise(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return emitActivation(b, loc, kind, args[0]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BinaryLowering : OpConversionPattern<BinaryOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BinaryOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    BinaryKind kind = op.getKind();
    bool isUnsigned = op.getType().getElementType().isUnsignedInteger();
    Value result = buildBroadcastElementwise(
        rewriter, op.getLoc(), type, {adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return emitBinary(b, loc, kind, args[0], args[1], isUnsigned);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void rlx::populateElementwiseToLinalgPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, ActivationLowering, BinaryLowering>(
      converter, patterns.getContext());
}
