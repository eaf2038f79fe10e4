//===- ElementwiseToLinalg.cpp - constants and elementwise ops ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/Utils/ScalarOps.h"

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

/// rlx.cast -> a linalg.generic applying emitCast. Unsigned element types
/// are signless in lowered code; the rlx types give the signedness.
struct CastLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    Type from = op.getInput().getType().getElementType();
    Type to = op.getType().getElementType();
    if (adaptor.getInput().getType() == type) {
      // The same element type, or i8 <-> ui8 / i32 <-> ui32: the same bits.
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Value result = buildBroadcastElementwise(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return emitCast(b, loc, args[0], from, to);
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

struct CompareLowering : OpConversionPattern<CompareOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    CompareKind kind = op.getKind();
    bool isUnsigned =
        op.getLhs().getType().getElementType().isUnsignedInteger();
    Value result = buildBroadcastElementwise(
        rewriter, op.getLoc(), type, {adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return emitCompare(b, loc, kind, args[0], args[1], isUnsigned);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct WhereLowering : OpConversionPattern<WhereOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WhereOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    Value result = buildBroadcastElementwise(
        rewriter, op.getLoc(), type,
        {adaptor.getCond(), adaptor.getOnTrue(), adaptor.getOnFalse()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return emitWhere(b, loc, args[0], args[1], args[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void rlx::populateElementwiseToLinalgPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns
      .add<ConstantLowering, ActivationLowering, BinaryLowering, CastLowering,
           StopGradientLowering, CompareLowering, WhereLowering>(
          converter, patterns.getContext());
}
