//===- RegionToLinalg.cpp - fused elementwise regions ---------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.elementwise_region and rlx.batch_elementwise_region hold a
// per-element body of rlx ops on rank-0 tensors: each lowers to broadcasting
// linalg.generics whose body emits the scalar computation of every body op
// through ScalarizableOpInterface (block arguments -> generic arguments,
// rank-0 rlx.constant -> arith.constant, rlx.yield -> linalg.yield).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"
#include "rlx/Dialect/RLX/IR/ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::rlx;

/// The one element of the rank-0 `value` as a scalar constant.
static Value emitScalarConstant(OpBuilder &b, Location loc,
                                DenseElementsAttr value) {
  Type elementType = value.getElementType();
  if (auto complexType = dyn_cast<ComplexType>(elementType)) {
    auto part = cast<FloatType>(complexType.getElementType());
    auto number = value.getSplatValue<std::complex<APFloat>>();
    return complex::ConstantOp::create(
        b, loc, complexType,
        b.getArrayAttr({FloatAttr::get(part, number.real()),
                        FloatAttr::get(part, number.imag())}));
  }
  if (auto floatType = dyn_cast<FloatType>(elementType))
    return arith::ConstantOp::create(
        b, loc, FloatAttr::get(floatType, value.getSplatValue<APFloat>()));
  auto type = cast<IntegerType>(getScalarType(elementType));
  return arith::ConstantOp::create(
      b, loc, IntegerAttr::get(type, value.getSplatValue<APInt>()));
}

/// Emits the per-element `body` on the scalars `args` (one per block
/// argument, unsigned types carried signless); returns the scalar its
/// `rlx.yield` yields. The verifier admits only rank-0 rlx.constant and ops
/// with a scalar computation in the body.
static Value emitElementBody(OpBuilder &b, Block &body, ValueRange args) {
  IRMapping scalars;
  scalars.map(body.getArguments(), args);
  for (Operation &op : body.without_terminator()) {
    Value result;
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      result = emitScalarConstant(b, op.getLoc(),
                                  cast<DenseElementsAttr>(constant.getValue()));
    } else {
      SmallVector<Value> operands = llvm::map_to_vector(
          op.getOperands(), [&](Value v) { return scalars.lookup(v); });
      result = cast<ScalarizableOpInterface>(op).emitScalar(b, op.getLoc(),
                                                            operands);
    }
    scalars.map(op.getResult(0), result);
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  return scalars.lookup(yield.getValues().front());
}

/// Builds the broadcast elementwise `body` over `inputs` into `resultType`.
/// The verifier accepts a dynamic result dim where the inputs broadcast to
/// a static size, but the loop nest takes a dynamic extent only from a
/// dynamic input dim: such dims are built at their static size and the
/// result is cast to `resultType`.
static Value buildRegionResult(OpBuilder &b, Location loc,
                               RankedTensorType resultType, ValueRange inputs,
                               Block &body) {
  SmallVector<int64_t> shape;
  for (Value input : inputs)
    shape = broadcastShapesOrDynamic(
        shape, cast<RankedTensorType>(input.getType()).getShape());
  SmallVector<int64_t> refined(resultType.getShape());
  if (shape.size() == refined.size())
    for (auto [dim, known] : llvm::zip_equal(refined, shape))
      if (ShapedType::isDynamic(dim))
        dim = known;
  auto buildType = resultType.clone(refined);
  Value result = buildBroadcastElementwise(
      b, loc, buildType, inputs, [&](OpBuilder &nb, Location, ValueRange args) {
        return emitElementBody(nb, body, args);
      });
  if (buildType != resultType)
    result = tensor::CastOp::create(b, loc, resultType, result);
  return result;
}

namespace {

struct ElementwiseRegionLowering : OpConversionPattern<ElementwiseRegionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ElementwiseRegionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getResult().getType()));
    SmallVector<Value> inputs(adaptor.getInputs());
    if (std::optional<uint64_t> prologue = op.getPrologueInput()) {
      if (*prologue >= inputs.size() ||
          cast<RankedTensorType>(inputs[*prologue].getType()).getRank() != 4)
        return op.emitOpError()
               << "prologue_input must name a rank-4 NCHW input";
      inputs[*prologue] =
          buildUpsampleNearest2x(rewriter, loc, inputs[*prologue]);
    }
    rewriter.replaceOp(op, buildRegionResult(rewriter, loc, resultType, inputs,
                                             op.getBody().front()));
    return success();
  }
};

struct BatchElementwiseRegionLowering
    : OpConversionPattern<BatchElementwiseRegionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BatchElementwiseRegionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    SmallVector<Value> results;
    for (auto [input, result] :
         llvm::zip_equal(adaptor.getInputs(), op.getResults())) {
      auto resultType = cast<RankedTensorType>(
          getTypeConverter()->convertType(result.getType()));
      results.push_back(
          buildRegionResult(rewriter, op.getLoc(), resultType, input, body));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void rlx::populateRegionToLinalgPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<ElementwiseRegionLowering, BatchElementwiseRegionLowering>(
      converter, patterns.getContext());
}
