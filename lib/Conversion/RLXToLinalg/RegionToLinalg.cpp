//===- RegionToLinalg.cpp - fused elementwise regions ---------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.elementwise_region and rlx.batch_elementwise_region hold a scalar
// body like linalg.generic: each lowers to broadcasting linalg.generics
// whose body is a clone of the region body (block arguments -> generic
// arguments, rlx.yield -> linalg.yield).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::rlx;

/// Clones the scalar `body` with its arguments bound to `args`; returns the
/// value its `rlx.yield` yields.
static Value cloneScalarBody(OpBuilder &b, Block &body, ValueRange args) {
  IRMapping mapping;
  mapping.map(body.getArguments(), args);
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  auto yield = cast<YieldOp>(body.getTerminator());
  return mapping.lookupOrDefault(yield.getValues().front());
}

/// A nearest-neighbour 2x upsampling of the NCHW `input`: a parallel
/// generic over the result viewed as [N, C, H, 2, W, 2] reading
/// x[n, c, h, w], collapsed to [N, C, 2H, 2W] (a projection rather than a
/// `floordiv 2`).
static Value upsampleNearest2x(OpBuilder &b, Location loc, Value input) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  OpFoldResult two = b.getIndexAttr(2);
  SmallVector<OpFoldResult> blockSizes = {sizes[0], sizes[1], sizes[2],
                                          two,      sizes[3], two};
  Value empty =
      tensor::EmptyOp::create(b, loc, blockSizes, type.getElementType());
  SmallVector<AffineExpr> readExprs = {
      getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
      getAffineDimExpr(2, ctx), getAffineDimExpr(4, ctx)};
  SmallVector<AffineMap> maps = {AffineMap::get(6, 0, readExprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(6, ctx)};
  SmallVector<utils::IteratorType> iterators(6, utils::IteratorType::parallel);
  Value blocks =
      linalg::GenericOp::create(
          b, loc, TypeRange{empty.getType()}, input, empty, maps, iterators,
          [](OpBuilder &nb, Location nl, ValueRange args) {
            linalg::YieldOp::create(nb, nl, args[0]);
          })
          .getResult(0);
  auto dimTimesTwo = [](int64_t size) {
    return ShapedType::isDynamic(size) ? ShapedType::kDynamic : 2 * size;
  };
  auto resultType = RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(1), dimTimesTwo(type.getDimSize(2)),
       dimTimesTwo(type.getDimSize(3))},
      type.getElementType());
  SmallVector<ReassociationIndices> groups = {{0}, {1}, {2, 3}, {4, 5}};
  return tensor::CollapseShapeOp::create(b, loc, resultType, blocks, groups);
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
      inputs[*prologue] = upsampleNearest2x(rewriter, loc, inputs[*prologue]);
    }
    Block &body = op.getBody().front();
    Value result =
        buildBroadcastElementwise(rewriter, loc, resultType, inputs,
                                  [&](OpBuilder &b, Location, ValueRange args) {
                                    return cloneScalarBody(b, body, args);
                                  });
    rewriter.replaceOp(op, result);
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
      results.push_back(buildBroadcastElementwise(
          rewriter, op.getLoc(), resultType, input,
          [&](OpBuilder &b, Location, ValueRange args) {
            return cloneScalarBody(b, body, args);
          }));
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
