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
#include "rlx/Dialect/RLX/IR/ResizeGeometry.h"

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

/// Reads `input` through per-dim tap tables: result element
/// `[..., o_1, ..., o_m]` is the sum over every combination of the taps of
/// `o_j` along each resized dim `dims[j]` of the product of their weights
/// times the input element at their indices (other dims read in place).
/// The tables become constant index and weight vectors, one per tap
/// column, read through projections, so the generic stays fully parallel;
/// positions with fewer taps than their column count are padded with
/// index -1 and masked. Unit-weight single taps (nearest) are a plain
/// gather of any element type; weighted ones compute in `computeTypeOf`.
static Value buildTapResample(OpBuilder &b, Location loc, Value input,
                              RankedTensorType resultType,
                              ArrayRef<int64_t> dims,
                              ArrayRef<resize_geometry::TapTable> tables) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  Type elementType = resultType.getElementType();
  Type computeType = computeTypeOf(elementType);

  SmallVector<int64_t> columns;
  bool weighted = false, padded = false;
  for (const resize_geometry::TapTable &table : tables) {
    size_t count = 0;
    for (const auto &taps : table) {
      count = std::max(count, taps.size());
      for (const resize_geometry::Tap &tap : taps)
        weighted |= tap.weight != 1.0;
    }
    for (const auto &taps : table)
      padded |= taps.size() != count;
    columns.push_back(count);
  }

  // Inputs: for resized dim j and tap column k, an i64 index vector, and
  // (when weighted) a weight vector in the compute type.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (auto [j, table] : llvm::enumerate(tables)) {
    int64_t size = table.size();
    for (int64_t k = 0; k < columns[j]; ++k) {
      SmallVector<int64_t> indices;
      SmallVector<double> weights;
      for (const auto &taps : table) {
        bool present = k < int64_t(taps.size());
        indices.push_back(present ? taps[k].index : -1);
        weights.push_back(present ? taps[k].weight : 0.0);
      }
      auto indexType = RankedTensorType::get({size}, b.getI64Type());
      inputs.push_back(arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(indexType, ArrayRef(indices))));
      maps.push_back(projection(ctx, rank, {dims[j]}));
      if (!weighted)
        continue;
      auto weightType = RankedTensorType::get({size}, computeType);
      SmallVector<Attribute> weightAttrs;
      for (double weight : weights)
        weightAttrs.push_back(FloatAttr::get(computeType, weight));
      inputs.push_back(arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(weightType, weightAttrs)));
      maps.push_back(projection(ctx, rank, {dims[j]}));
    }
  }

  bool accumulates = weighted || padded ||
                     llvm::any_of(columns, [](int64_t n) { return n > 1; });
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(
        resultType.isDynamicDim(d)
            ? OpFoldResult(tensor::DimOp::create(b, loc, input, d).getResult())
            : OpFoldResult(b.getIndexAttr(resultType.getDimSize(d))));

  return buildParallel(
             b, loc, sizes, {elementType}, inputs, maps,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               SmallVector<Value> coords;
               for (int64_t d = 0; d < rank; ++d)
                 coords.push_back(linalg::IndexOp::create(nb, nl, d));
               Value zeroIndex = arith::ConstantIndexOp::create(nb, nl, 0);
               Value sum;
               // Odometer over the tap columns of every resized dim.
               SmallVector<int64_t> column(tables.size(), 0);
               while (true) {
                 Value valid, weight;
                 size_t arg = 0;
                 for (size_t j = 0; j < tables.size(); ++j) {
                   size_t stride = weighted ? 2 : 1;
                   size_t at = arg + column[j] * stride;
                   Value index = args[at];
                   if (padded) {
                     Value present = arith::CmpIOp::create(
                         nb, nl, arith::CmpIPredicate::sge, index,
                         arith::ConstantIntOp::create(nb, nl, 0, 64));
                     valid = valid
                                 ? arith::AndIOp::create(nb, nl, valid, present)
                                       .getResult()
                                 : present;
                   }
                   Value position = arith::IndexCastOp::create(
                       nb, nl, nb.getIndexType(), index);
                   coords[dims[j]] =
                       padded ? arith::SelectOp::create(nb, nl, valid, position,
                                                        zeroIndex)
                                    .getResult()
                              : position;
                   if (weighted)
                     weight = weight ? arith::MulFOp::create(nb, nl, weight,
                                                             args[at + 1])
                                           .getResult()
                                     : args[at + 1];
                   arg += columns[j] * stride;
                 }
                 Value value = tensor::ExtractOp::create(nb, nl, input, coords);
                 if (accumulates) {
                   value = extendTo(nb, nl, computeType, value);
                   if (weighted)
                     value = arith::MulFOp::create(nb, nl, value, weight);
                   if (padded)
                     value = arith::SelectOp::create(
                         nb, nl, valid, value,
                         floatConstant(nb, nl, computeType, 0.0));
                   sum = sum ? arith::AddFOp::create(nb, nl, sum, value)
                                   .getResult()
                             : value;
                 } else {
                   sum = value;
                 }
                 size_t j = 0;
                 for (; j < tables.size(); ++j) {
                   if (++column[j] < columns[j])
                     break;
                   column[j] = 0;
                 }
                 if (j == tables.size())
                   break;
               }
               if (sum.getType() != elementType)
                 sum = truncateTo(nb, nl, elementType, sum);
               return SmallVector<Value>{sum};
             })
      .front();
}

/// Resamples `input` into `resultType` along its trailing dims, one tap
/// table per dim. All dims go in one generic while a result element reads
/// at most 8 input elements (nearest, bilinear, trilinear); otherwise one
/// dim at a time, from the last.
static Value buildResize(OpBuilder &b, Location loc, Value input,
                         RankedTensorType resultType,
                         ArrayRef<resize_geometry::TapTable> tables) {
  int64_t rank = resultType.getRank();
  int64_t first = rank - tables.size();
  int64_t reads = 1;
  for (const resize_geometry::TapTable &table : tables) {
    size_t count = 0;
    for (const auto &taps : table)
      count = std::max(count, taps.size());
    reads *= count;
  }
  if (reads <= 8) {
    SmallVector<int64_t> dims =
        llvm::to_vector(llvm::seq<int64_t>(first, rank));
    return buildTapResample(b, loc, input, resultType, dims, tables);
  }
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(inputType.getShape());
  Value current = input;
  for (int64_t j = tables.size() - 1; j >= 0; --j) {
    shape[first + j] = resultType.getDimSize(first + j);
    auto stepType = RankedTensorType::get(shape, resultType.getElementType());
    current =
        buildTapResample(b, loc, current, stepType, {first + j}, {tables[j]});
  }
  return current;
}

/// rlx.resize (`Adjoint` false: the forward taps of each resized dim) and
/// rlx.resize_backward (their adjoint). `sizes` are the resize's output
/// sizes for the forward op and its input sizes for the adjoint; the other
/// side is the operand's trailing dims.
template <typename OpTy, bool Adjoint>
struct ResizeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value operand = adaptor.getOperands().front();
    auto operandType = cast<RankedTensorType>(operand.getType());
    auto type = cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    ArrayRef<int64_t> sizes = op.getSizes();
    ArrayRef<int64_t> operandSizes =
        operandType.getShape().take_back(sizes.size());
    bool inF64 = operandType.getElementType().isF64();
    SmallVector<resize_geometry::TapTable> tables;
    for (auto [d, size] : llvm::enumerate(sizes)) {
      std::optional<double> scale =
          resize_geometry::scaleFactorOf(op.getScales(), d);
      tables.push_back(Adjoint ? resize_geometry::adjointTaps(
                                     op.getMode(), op.getAlignCorners(), scale,
                                     size, operandSizes[d], inF64)
                               : resize_geometry::forwardTaps(
                                     op.getMode(), op.getAlignCorners(), scale,
                                     operandSizes[d], size, inF64));
    }
    rewriter.replaceOp(
        op, buildResize(rewriter, op.getLoc(), operand, type, tables));
    return success();
  }
};

} // namespace

void rlx::populateNormalizationToLinalgPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<
      AxisNormLowering<LayerNormOp, /*SubtractMean=*/true>,
      AxisNormLowering<RmsNormOp, /*SubtractMean=*/false>, LayerNorm2dLowering,
      GroupNormLowering, BatchNormInferenceLowering, ResizeNearest2xLowering,
      ResizeLowering<ResizeOp, false>, ResizeLowering<ResizeBackwardOp, true>>(
      converter, patterns.getContext());
}
