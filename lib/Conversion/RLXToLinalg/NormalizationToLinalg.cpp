//===- NormalizationToLinalg.cpp - normalization and resize ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Every normalization is two or three reductions over the normalized dims
// (placed innermost in the iteration space) into a small statistics tensor,
// then one parallel `linalg.generic` over the whole input that applies the
// statistics and the per-channel scale and shift. f16/bf16 compute the
// statistics and the normalized value in f32 and round the output once.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::rlx;

/// Static sizes as attributes, dynamic ones read with tensor.dim.
static SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc,
                                         Value tensor) {
  return tensor::getMixedSizes(b, loc, tensor);
}

/// Normalizes `input` over `reducedDims` and applies `gamma` and `beta`,
/// indexed by `channelDims` of the input:
///   y = (x - mean) / sqrt(var + eps) * gamma + beta     (subtractMean)
///   y = x / sqrt(mean(x^2) + eps) * gamma + beta        (otherwise)
/// The variance is the biased one, computed in a second pass around the
/// mean.
static Value buildNormalization(OpBuilder &b, Location loc, Value input,
                                Value gamma, Value beta,
                                ArrayRef<int64_t> reducedDims,
                                ArrayRef<int64_t> channelDims, double eps,
                                bool subtractMean) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  Type elementType = type.getElementType();
  Type computeType = computeTypeOf(elementType);
  Value count = countOf(b, loc, input, reducedDims, computeType);
  Value zero = floatConstant(b, loc, computeType, 0.0);
  Value one = floatConstant(b, loc, computeType, 1.0);
  Value epsValue = floatConstant(b, loc, computeType, eps);

  SmallVector<int64_t> keptDims;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (!llvm::is_contained(reducedDims, dim))
      keptDims.push_back(dim);
  SmallVector<OpFoldResult> inputSizes = sizesOf(b, loc, input);
  SmallVector<OpFoldResult> keptSizes;
  for (int64_t dim : keptDims)
    keptSizes.push_back(inputSizes[dim]);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap keptMap = projection(ctx, rank, keptDims);
  AffineMap keptIdentity =
      AffineMap::getMultiDimIdentityMap(keptDims.size(), ctx);
  AffineMap channelMap = projection(ctx, rank, channelDims);

  auto rsqrt = [&](OpBuilder &nb, Location nl, Value sumOfSquares) {
    Value meanSquare = arith::DivFOp::create(nb, nl, sumOfSquares, count);
    Value root = math::SqrtOp::create(
        nb, nl, arith::AddFOp::create(nb, nl, meanSquare, epsValue));
    return arith::DivFOp::create(nb, nl, one, root);
  };

  if (!subtractMean) {
    Value sumOfSquares =
        buildReduction(b, loc, input, reducedDims, {}, {zero},
                       [&](OpBuilder &nb, Location nl, ValueRange args) {
                         Value x = extendTo(nb, nl, computeType, args[0]);
                         Value square = arith::MulFOp::create(nb, nl, x, x);
                         return SmallVector<Value>{
                             arith::AddFOp::create(nb, nl, args[1], square)};
                       })
            .front();
    Value rstd =
        buildParallel(b, loc, keptSizes, {computeType}, sumOfSquares,
                      {keptIdentity},
                      [&](OpBuilder &nb, Location nl, ValueRange args) {
                        return SmallVector<Value>{rsqrt(nb, nl, args[0])};
                      })
            .front();
    return buildParallel(
               b, loc, inputSizes, {elementType}, {input, rstd, gamma, beta},
               {identity, keptMap, channelMap, channelMap},
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 Value x = extendTo(nb, nl, computeType, args[0]);
                 Value g = extendTo(nb, nl, computeType, args[2]);
                 Value sh = extendTo(nb, nl, computeType, args[3]);
                 Value normed = arith::MulFOp::create(nb, nl, x, args[1]);
                 Value scaled = arith::MulFOp::create(nb, nl, normed, g);
                 Value y = arith::AddFOp::create(nb, nl, scaled, sh);
                 return SmallVector<Value>{truncateTo(nb, nl, elementType, y)};
               })
        .front();
  }

  Value sum = buildReduction(b, loc, input, reducedDims, {}, {zero},
                             [&](OpBuilder &nb, Location nl, ValueRange args) {
                               Value x = extendTo(nb, nl, computeType, args[0]);
                               return SmallVector<Value>{
                                   arith::AddFOp::create(nb, nl, args[1], x)};
                             })
                  .front();
  Value squaredDeviations =
      buildReduction(b, loc, input, reducedDims, {sum}, {zero},
                     [&](OpBuilder &nb, Location nl, ValueRange args) {
                       Value x = extendTo(nb, nl, computeType, args[0]);
                       Value mean =
                           arith::DivFOp::create(nb, nl, args[1], count);
                       Value d = arith::SubFOp::create(nb, nl, x, mean);
                       Value square = arith::MulFOp::create(nb, nl, d, d);
                       return SmallVector<Value>{
                           arith::AddFOp::create(nb, nl, args[2], square)};
                     })
          .front();
  // Mean and reciprocal standard deviation come from one generic with two
  // results, so that elementwise fusion does not recompute the square root
  // for every element.
  SmallVector<Value> stats =
      buildParallel(b, loc, keptSizes, {computeType, computeType},
                    {sum, squaredDeviations}, {keptIdentity, keptIdentity},
                    [&](OpBuilder &nb, Location nl, ValueRange args) {
                      Value mean =
                          arith::DivFOp::create(nb, nl, args[0], count);
                      return SmallVector<Value>{mean, rsqrt(nb, nl, args[1])};
                    });
  return buildParallel(
             b, loc, inputSizes, {elementType},
             {input, stats[0], stats[1], gamma, beta},
             {identity, keptMap, keptMap, channelMap, channelMap},
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value x = extendTo(nb, nl, computeType, args[0]);
               Value g = extendTo(nb, nl, computeType, args[3]);
               Value sh = extendTo(nb, nl, computeType, args[4]);
               Value centered = arith::SubFOp::create(nb, nl, x, args[1]);
               Value normed = arith::MulFOp::create(nb, nl, centered, args[2]);
               Value scaled = arith::MulFOp::create(nb, nl, normed, g);
               Value y = arith::AddFOp::create(nb, nl, scaled, sh);
               return SmallVector<Value>{truncateTo(nb, nl, elementType, y)};
             })
      .front();
}

static int64_t normalizedAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

namespace {

/// rlx.layer_norm and rlx.rms_norm over one (possibly negative) axis.
template <typename OpTy, bool SubtractMean>
struct AxisNormLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t axis = normalizedAxis(op.getAxis(), rank);
    Value result = buildNormalization(
        rewriter, op.getLoc(), input, adaptor.getGamma(), adaptor.getBeta(),
        {axis}, {axis}, op.getEpsAttr().getValueAsDouble(), SubtractMean);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// rlx.layer_norm2d: a layer norm over the channel dim 1 of NCHW.
struct LayerNorm2dLowering : OpConversionPattern<LayerNorm2dOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LayerNorm2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = buildNormalization(
        rewriter, op.getLoc(), adaptor.getInput(), adaptor.getGamma(),
        adaptor.getBeta(), {1}, {1}, op.getEpsAttr().getValueAsDouble(),
        /*subtractMean=*/true);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// rlx.group_norm: NCHW is viewed as [N, G, C/G, H, W], normalized over the
/// last three dims with gamma and beta viewed as [G, C/G], and collapsed
/// back.
struct GroupNormLowering : OpConversionPattern<GroupNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GroupNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t groups = op.getNumGroups();
    int64_t channels = type.getDimSize(1);
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, input);
    OpFoldResult perGroup;
    int64_t staticPerGroup = ShapedType::kDynamic;
    if (ShapedType::isDynamic(channels)) {
      Value c = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[1]);
      perGroup = arith::DivUIOp::create(
                     rewriter, loc, c,
                     arith::ConstantIndexOp::create(rewriter, loc, groups))
                     .getResult();
    } else {
      staticPerGroup = channels / groups;
      perGroup = rewriter.getIndexAttr(staticPerGroup);
    }
    OpFoldResult groupCount = rewriter.getIndexAttr(groups);

    auto expandedType =
        RankedTensorType::get({type.getDimSize(0), groups, staticPerGroup,
                               type.getDimSize(2), type.getDimSize(3)},
                              type.getElementType());
    SmallVector<ReassociationIndices> inputGroups = {{0}, {1, 2}, {3}, {4}};
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, expandedType, input, inputGroups,
        {sizes[0], groupCount, perGroup, sizes[2], sizes[3]});
    auto channelType =
        RankedTensorType::get({groups, staticPerGroup}, type.getElementType());
    SmallVector<ReassociationIndices> channelGroups = {{0, 1}};
    auto expandChannels = [&](Value value) -> Value {
      return tensor::ExpandShapeOp::create(rewriter, loc, channelType, value,
                                           channelGroups,
                                           {groupCount, perGroup});
    };
    Value normalized = buildNormalization(
        rewriter, loc, expanded, expandChannels(adaptor.getGamma()),
        expandChannels(adaptor.getBeta()), {2, 3, 4}, {1, 2},
        op.getEpsAttr().getValueAsDouble(), /*subtractMean=*/true);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, type, normalized,
                                                         inputGroups);
    return success();
  }
};

/// rlx.batch_norm_inference: one parallel generic over the input with the
/// channel (last) dim indexing the statistics; 1 / sqrt(var + eps) is
/// computed once per channel.
struct BatchNormInferenceLowering : OpConversionPattern<BatchNormInferenceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BatchNormInferenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    Type elementType = type.getElementType();
    Type computeType = computeTypeOf(elementType);
    Value epsValue = floatConstant(rewriter, loc, computeType,
                                   op.getEpsAttr().getValueAsDouble());
    Value one = floatConstant(rewriter, loc, computeType, 1.0);
    AffineMap vectorMap = AffineMap::getMultiDimIdentityMap(1, ctx);
    Value rstd =
        buildParallel(
            rewriter, loc, sizesOf(rewriter, loc, adaptor.getRunningVar()),
            {computeType}, adaptor.getRunningVar(), {vectorMap},
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value var = extendTo(nb, nl, computeType, args[0]);
              Value root = math::SqrtOp::create(
                  nb, nl, arith::AddFOp::create(nb, nl, var, epsValue));
              return SmallVector<Value>{
                  arith::DivFOp::create(nb, nl, one, root)};
            })
            .front();
    AffineMap channelMap = projection(ctx, rank, {rank - 1});
    Value result =
        buildParallel(
            rewriter, loc, sizesOf(rewriter, loc, input), {elementType},
            {input, adaptor.getRunningMean(), rstd, adaptor.getGamma(),
             adaptor.getBeta()},
            {AffineMap::getMultiDimIdentityMap(rank, ctx), channelMap,
             channelMap, channelMap, channelMap},
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value x = extendTo(nb, nl, computeType, args[0]);
              Value mean = extendTo(nb, nl, computeType, args[1]);
              Value g = extendTo(nb, nl, computeType, args[3]);
              Value sh = extendTo(nb, nl, computeType, args[4]);
              Value centered = arith::SubFOp::create(nb, nl, x, mean);
              Value normed = arith::MulFOp::create(nb, nl, centered, args[2]);
              Value scaled = arith::MulFOp::create(nb, nl, normed, g);
              Value y = arith::AddFOp::create(nb, nl, scaled, sh);
              return SmallVector<Value>{truncateTo(nb, nl, elementType, y)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// rlx.resize_nearest2x: buildUpsampleNearest2x.
struct ResizeNearest2xLowering : OpConversionPattern<ResizeNearest2xOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ResizeNearest2xOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, buildUpsampleNearest2x(rewriter, op.getLoc(), adaptor.getInput()));
    return success();
  }
};

} // namespace

void rlx::populateNormalizationToLinalgPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<AxisNormLowering<LayerNormOp, /*SubtractMean=*/true>,
               AxisNormLowering<RmsNormOp, /*SubtractMean=*/false>,
               LayerNorm2dLowering, GroupNormLowering,
               BatchNormInferenceLowering, ResizeNearest2xLowering>(
      converter, patterns.getContext());
}
