//===- QuantizationToLinalg.cpp - quantization and fake quantization ------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Every op is a parallel `linalg.generic` over its input reading one scale
// per channel through a channel map (per tensor: index 0). Per-batch scales
// are a max |x| reduction per channel first (the channel dim outermost, the
// reduced dims innermost). Rounding is `math.roundeven` (half to even).
// The fake-quantize family is lowered for f32 and f64; f16 and bf16 are
// reported as op errors.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::rlx;

/// The axis of a channel attribute in [0, rank), or -1 without one.
static int64_t channelAxis(IntegerAttr axis, int64_t rank) {
  if (!axis)
    return -1;
  int64_t value = axis.getInt();
  return value < 0 ? value + rank : value;
}

static Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

/// The map from an iteration space of `numDims` dims onto a channel tensor of
/// `type`: rank 0 reads the scalar, a static single entry is shared by every
/// channel, otherwise the entry is the index along `channelDim`.
static AffineMap channelMap(MLIRContext *ctx, unsigned numDims,
                            int64_t channelDim, RankedTensorType type) {
  if (type.getRank() == 0)
    return AffineMap::get(numDims, 0, {}, ctx);
  if (type.getDimSize(0) == 1 || channelDim < 0)
    return AffineMap::get(numDims, 0, {getAffineConstantExpr(0, ctx)}, ctx);
  return AffineMap::get(numDims, 0, {getAffineDimExpr(channelDim, ctx)}, ctx);
}

/// A parallel `linalg.generic` over the shape of `shapeSource`, one
/// identity-mapped result per element type of `resultTypes`.
static SmallVector<Value>
buildMap(OpBuilder &b, Location loc, Value shapeSource, TypeRange resultTypes,
         ValueRange inputs, ArrayRef<AffineMap> inputMaps, GenericBody body) {
  return buildParallel(b, loc, tensor::getMixedSizes(b, loc, shapeSource),
                       resultTypes, inputs, inputMaps, body);
}

/// A reduction of the elements of `inputs` (all of the shape of
/// `inputs[0]`) per channel: the result is `[dim(axis)]`, or rank 0 without
/// an axis (`axis < 0`). `channelInputs` are read through channel maps. The
/// body gets (input elements..., channel elements..., accumulator) and
/// returns the new accumulator, which starts at `init`.
///
/// The channel dim is the outermost loop and the reduced dims are inner;
/// reduced dims of static size 1 get no loop (read at index 0). Without any
/// reduction loop the result is a plain parallel generic from `init`.
static Value buildChannelReduction(OpBuilder &b, Location loc, int64_t axis,
                                   ValueRange inputs, ValueRange channelInputs,
                                   Value init, GenericBody body) {
  MLIRContext *ctx = b.getContext();
  Value source = inputs.front();
  auto type = cast<RankedTensorType>(source.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, source);
  int64_t numKept = axis >= 0 ? 1 : 0;
  SmallVector<AffineExpr> inputExprs;
  int64_t next = numKept;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (dim == axis)
      inputExprs.push_back(getAffineDimExpr(0, ctx));
    else if (type.getDimSize(dim) == 1)
      inputExprs.push_back(getAffineConstantExpr(0, ctx));
    else
      inputExprs.push_back(getAffineDimExpr(next++, ctx));
  }
  int64_t numLoops = next;
  bool reduces = numLoops > numKept;
  AffineMap inputMap = AffineMap::get(numLoops, 0, inputExprs, ctx);
  SmallVector<AffineMap> maps(inputs.size(), inputMap);
  for (Value channel : channelInputs)
    maps.push_back(channelMap(ctx, numLoops, axis >= 0 ? 0 : -1,
                              cast<RankedTensorType>(channel.getType())));
  maps.push_back(
      axis >= 0 ? AffineMap::get(numLoops, 0, {getAffineDimExpr(0, ctx)}, ctx)
                : AffineMap::get(numLoops, 0, ctx));

  SmallVector<OpFoldResult> keptSizes;
  if (axis >= 0)
    keptSizes.push_back(sizes[axis]);
  Value empty = tensor::EmptyOp::create(b, loc, keptSizes, init.getType());
  Value out = reduces ? linalg::FillOp::create(b, loc, init, empty).getResult(0)
                      : empty;
  SmallVector<utils::IteratorType> iterators(numKept,
                                             utils::IteratorType::parallel);
  iterators.append(numLoops - numKept, utils::IteratorType::reduction);
  SmallVector<Value> operands(inputs);
  llvm::append_range(operands, channelInputs);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{empty.getType()}, operands, ValueRange{out}, maps,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        SmallVector<Value> bodyArgs(args);
        if (!reduces)
          bodyArgs.back() = init;
        linalg::YieldOp::create(nb, nl, body(nb, nl, bodyArgs));
      });
  return generic.getResult(0);
}

/// The per-batch fake-quantization scales of `x`:
/// `max(max_abs[c] / q_max, 1e-12)` per channel (`[dim(axis)]`, or rank 0).
static Value buildPerBatchScales(OpBuilder &b, Location loc, Value x,
                                 int64_t axis, double qMax) {
  Type type = cast<RankedTensorType>(x.getType()).getElementType();
  Value maxAbs = buildChannelReduction(
      b, loc, axis, x, {}, floatConst(b, loc, type, 0.0),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value abs = math::AbsFOp::create(nb, nl, args[0]);
        return SmallVector<Value>{
            arith::MaximumFOp::create(nb, nl, args[1], abs)};
      });
  int64_t rank = cast<RankedTensorType>(maxAbs.getType()).getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return buildMap(b, loc, maxAbs, {type}, maxAbs, {identity},
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    Value s = arith::DivFOp::create(
                        nb, nl, args[0], floatConst(nb, nl, type, qMax));
                    return SmallVector<Value>{arith::MaximumFOp::create(
                        nb, nl, s, floatConst(nb, nl, type, 1e-12))};
                  })
      .front();
}

/// `clamp(round_half_even(x / s), -q_max, q_max) * s`.
static Value fakeQuantizeScalar(OpBuilder &b, Location loc, Value x, Value s,
                                double qMax) {
  Type type = x.getType();
  Value q =
      math::RoundEvenOp::create(b, loc, arith::DivFOp::create(b, loc, x, s));
  q = arith::MaximumFOp::create(b, loc, q, floatConst(b, loc, type, -qMax));
  q = arith::MinimumFOp::create(b, loc, q, floatConst(b, loc, type, qMax));
  return arith::MulFOp::create(b, loc, q, s);
}

/// `elementwise(x[i], scale[c])` over `x`, the channel picked by `axis`.
static Value buildWithChannelScale(
    OpBuilder &b, Location loc, Value x, Value scales, ValueRange extraInputs,
    int64_t axis, Type resultType,
    function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<Value> inputs = {x, scales};
  llvm::append_range(inputs, extraInputs);
  SmallVector<AffineMap> maps = {
      identity,
      channelMap(ctx, rank, axis, cast<RankedTensorType>(scales.getType()))};
  maps.append(extraInputs.size(), identity);
  return buildMap(b, loc, x, {resultType}, inputs, maps,
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    return SmallVector<Value>{fn(nb, nl, args)};
                  })
      .front();
}

static double qMaxOf(int64_t bits) {
  return static_cast<double>((int64_t(1) << (bits - 1)) - 1);
}

/// f32 and f64 only; anything else is an op error.
static LogicalResult checkFloatType(Operation *op, Type type) {
  if (type.isF32() || type.isF64())
    return success();
  return op->emitOpError() << "the CPU lowering supports f32 and f64 only, got "
                           << type;
}

namespace {

//===----------------------------------------------------------------------===//
// rlx.quantize / rlx.dequantize
//===----------------------------------------------------------------------===//

/// The attribute scales and zero points as constant tensors.
template <typename OpTy>
static std::pair<Value, Value> channelConstants(OpBuilder &b, Location loc,
                                                OpTy op) {
  ArrayRef<float> scales = op.getScales();
  ArrayRef<int32_t> zeroPoints = op.getZeroPoints();
  auto scaleType =
      RankedTensorType::get({int64_t(scales.size())}, b.getF32Type());
  auto zeroType =
      RankedTensorType::get({int64_t(zeroPoints.size())}, b.getI32Type());
  Value scaleTensor = arith::ConstantOp::create(
      b, loc, scaleType, DenseElementsAttr::get(scaleType, scales));
  Value zeroTensor = arith::ConstantOp::create(
      b, loc, zeroType, DenseElementsAttr::get(zeroType, zeroPoints));
  return {scaleTensor, zeroTensor};
}

/// `saturate_i8(round_half_even(x / s) + zp)`, computed in f32 (exact for
/// the integers involved) and clamped before the conversion; NaN saturates
/// to -128.
struct QuantizeLowering : OpConversionPattern<QuantizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(QuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    int64_t rank = op.getInput().getType().getRank();
    int64_t axis = channelAxis(op.getAxisAttr(), rank);
    auto [scales, zeroPoints] = channelConstants(rewriter, loc, op);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value result =
        buildMap(rewriter, loc, x, {rewriter.getI8Type()},
                 {x, scales, zeroPoints},
                 {identity,
                  channelMap(ctx, rank, axis,
                             cast<RankedTensorType>(scales.getType())),
                  channelMap(ctx, rank, axis,
                             cast<RankedTensorType>(zeroPoints.getType()))},
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   Type f32 = b.getF32Type();
                   Value q = math::RoundEvenOp::create(
                       b, l, arith::DivFOp::create(b, l, args[0], args[1]));
                   Value zp = arith::SIToFPOp::create(b, l, f32, args[2]);
                   q = arith::AddFOp::create(b, l, q, zp);
                   q = arith::MaxNumFOp::create(b, l, q,
                                                floatConst(b, l, f32, -128.0));
                   q = arith::MinNumFOp::create(b, l, q,
                                                floatConst(b, l, f32, 127.0));
                   return SmallVector<Value>{
                       arith::FPToSIOp::create(b, l, b.getI8Type(), q)};
                 })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `(q - zp) * s`, the difference exact in i32.
struct DequantizeLowering : OpConversionPattern<DequantizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DequantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value q = adaptor.getInput();
    int64_t rank = op.getInput().getType().getRank();
    int64_t axis = channelAxis(op.getAxisAttr(), rank);
    auto [scales, zeroPoints] = channelConstants(rewriter, loc, op);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value result =
        buildMap(
            rewriter, loc, q, {rewriter.getF32Type()}, {q, scales, zeroPoints},
            {identity,
             channelMap(ctx, rank, axis,
                        cast<RankedTensorType>(scales.getType())),
             channelMap(ctx, rank, axis,
                        cast<RankedTensorType>(zeroPoints.getType()))},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value wide =
                  arith::ExtSIOp::create(b, l, b.getI32Type(), args[0]);
              Value diff = arith::SubIOp::create(b, l, wide, args[2]);
              Value f = arith::SIToFPOp::create(b, l, b.getF32Type(), diff);
              return SmallVector<Value>{
                  arith::MulFOp::create(b, l, f, args[1])};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rlx.fake_quantize and its gradient
//===----------------------------------------------------------------------===//

struct FakeQuantizeLowering : OpConversionPattern<FakeQuantizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FakeQuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type elementType = type.getElementType();
    if (failed(checkFloatType(op, elementType)))
      return failure();
    int64_t axis = channelAxis(op.getAxisAttr(), type.getRank());
    double qMax = qMaxOf(op.getBits());

    Value scales;
    Value updatedState;
    switch (op.getScaleMode()) {
    case ScaleMode::PerBatch:
      scales = buildPerBatchScales(rewriter, loc, x, axis, qMax);
      break;
    case ScaleMode::Fixed: {
      Value state = adaptor.getState();
      int64_t stateRank = cast<RankedTensorType>(state.getType()).getRank();
      scales =
          buildMap(rewriter, loc, state, {elementType}, state,
                   {AffineMap::getMultiDimIdentityMap(stateRank, ctx)},
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     return SmallVector<Value>{arith::MaximumFOp::create(
                         b, l, args[0], floatConst(b, l, elementType, 1e-12))};
                   })
              .front();
      break;
    }
    case ScaleMode::Ema: {
      Value state = adaptor.getState();
      auto stateType = cast<RankedTensorType>(state.getType());
      Value current = buildPerBatchScales(rewriter, loc, x, axis, qMax);
      auto currentType = cast<RankedTensorType>(current.getType());
      // The decay as written (an f32), widened to the element type.
      double decay = static_cast<double>(
          static_cast<float>(op.getEmaDecay()->convertToFloat()));
      AffineMap identity =
          AffineMap::getMultiDimIdentityMap(stateType.getRank(), ctx);
      AffineMap currentMap =
          currentType.getRank() == 0
              ? AffineMap::get(stateType.getRank(), 0, {}, ctx)
              : identity;
      scales = buildMap(rewriter, loc, state, {elementType}, {state, current},
                        {identity, currentMap},
                        [&](OpBuilder &b, Location l, ValueRange args) {
                          Value d = floatConst(b, l, elementType, decay);
                          Value one = floatConst(b, l, elementType, 1.0);
                          Value oneMinus = arith::SubFOp::create(b, l, one, d);
                          Value blended = arith::AddFOp::create(
                              b, l, arith::MulFOp::create(b, l, d, args[0]),
                              arith::MulFOp::create(b, l, oneMinus, args[1]));
                          Value cold = arith::CmpFOp::create(
                              b, l, arith::CmpFPredicate::OLE, args[0],
                              floatConst(b, l, elementType, 0.0));
                          return SmallVector<Value>{arith::SelectOp::create(
                              b, l, cold, args[1], blended)};
                        })
                   .front();
      updatedState = scales;
      break;
    }
    }
    Value output = buildWithChannelScale(
        rewriter, loc, x, scales, {}, axis, elementType,
        [&](OpBuilder &b, Location l, ValueRange args) {
          return fakeQuantizeScalar(b, l, args[0], args[1], qMax);
        });
    SmallVector<Value> results = {output};
    if (op.getUpdatedState())
      results.push_back(updatedState);
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct FakeQuantizeBackwardLowering
    : OpConversionPattern<FakeQuantizeBackwardOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FakeQuantizeBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    Value dy = adaptor.getDy();
    auto type = cast<RankedTensorType>(x.getType());
    Type elementType = type.getElementType();
    if (failed(checkFloatType(op, elementType)))
      return failure();
    SteKind ste = op.getSte();
    if (ste == SteKind::Identity) {
      rewriter.replaceOp(op, dy);
      return success();
    }
    int64_t axis = channelAxis(op.getAxisAttr(), type.getRank());
    double qMax = qMaxOf(op.getBits());
    Value scales = buildPerBatchScales(rewriter, loc, x, axis, qMax);
    Value result = buildWithChannelScale(
        rewriter, loc, x, scales, dy, axis, elementType,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value xe = args[0], s = args[1], g = args[2];
          Value zero = floatConst(b, l, elementType, 0.0);
          Value one = floatConst(b, l, elementType, 1.0);
          Value qm = floatConst(b, l, elementType, qMax);
          switch (ste) {
          case SteKind::ClippedIdentity: {
            Value limit = arith::MulFOp::create(b, l, qm, s);
            Value inside =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE,
                                      math::AbsFOp::create(b, l, xe), limit);
            return arith::SelectOp::create(b, l, inside, g, zero);
          }
          case SteKind::Tanh: {
            Value t =
                math::TanhOp::create(b, l, arith::DivFOp::create(b, l, xe, s));
            Value d = arith::SubFOp::create(b, l, one,
                                            arith::MulFOp::create(b, l, t, t));
            return arith::MulFOp::create(b, l, g, d);
          }
          case SteKind::HardTanh: {
            Value limit = arith::MulFOp::create(b, l, qm, s);
            Value r = math::AbsFOp::create(
                b, l, arith::DivFOp::create(b, l, xe, limit));
            Value d = arith::MaximumFOp::create(
                b, l, zero, arith::SubFOp::create(b, l, one, r));
            return arith::MulFOp::create(b, l, g, d);
          }
          case SteKind::Identity:
            break;
          }
          return g;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// LSQ
//===----------------------------------------------------------------------===//

struct FakeQuantizeLSQLowering : OpConversionPattern<FakeQuantizeLSQOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FakeQuantizeLSQOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type elementType = type.getElementType();
    if (failed(checkFloatType(op, elementType)))
      return failure();
    int64_t axis = channelAxis(op.getAxisAttr(), type.getRank());
    double qMax = qMaxOf(op.getBits());
    Value result = buildWithChannelScale(
        rewriter, op.getLoc(), x, adaptor.getScale(), {}, axis, elementType,
        [&](OpBuilder &b, Location l, ValueRange args) {
          return fakeQuantizeScalar(b, l, args[0], args[1], qMax);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct FakeQuantizeLSQBackwardXLowering
    : OpConversionPattern<FakeQuantizeLSQBackwardXOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FakeQuantizeLSQBackwardXOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type elementType = type.getElementType();
    if (failed(checkFloatType(op, elementType)))
      return failure();
    int64_t axis = channelAxis(op.getAxisAttr(), type.getRank());
    double qMax = qMaxOf(op.getBits());
    Value result = buildWithChannelScale(
        rewriter, op.getLoc(), x, adaptor.getScale(), adaptor.getDy(), axis,
        elementType, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value z = arith::DivFOp::create(b, l, args[0], args[1]);
          Value inside = arith::CmpFOp::create(
              b, l, arith::CmpFPredicate::OLE, math::AbsFOp::create(b, l, z),
              floatConst(b, l, elementType, qMax));
          return arith::SelectOp::create(b, l, inside, args[2],
                                         floatConst(b, l, elementType, 0.0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `sum over the channel of psi(x / s) * dy`, reduced per channel; without
/// an axis the rank-0 sum is expanded to the scale's `[1]`.
struct FakeQuantizeLSQBackwardScaleLowering
    : OpConversionPattern<FakeQuantizeLSQBackwardScaleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FakeQuantizeLSQBackwardScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    Value scale = adaptor.getScale();
    auto type = cast<RankedTensorType>(x.getType());
    Type elementType = type.getElementType();
    if (failed(checkFloatType(op, elementType)))
      return failure();
    int64_t axis = channelAxis(op.getAxisAttr(), type.getRank());
    double qMax = qMaxOf(op.getBits());
    Value sum = buildChannelReduction(
        rewriter, loc, axis, {x, adaptor.getDy()}, scale,
        floatConst(rewriter, loc, elementType, 0.0),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value z = arith::DivFOp::create(b, l, args[0], args[2]);
          Value qm = floatConst(b, l, elementType, qMax);
          Value inside =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE,
                                    math::AbsFOp::create(b, l, z), qm);
          Value rounded = arith::SubFOp::create(
              b, l, math::RoundEvenOp::create(b, l, z), z);
          Value saturated = math::CopySignOp::create(b, l, qm, z);
          Value psi = arith::SelectOp::create(b, l, inside, rounded, saturated);
          Value term = arith::MulFOp::create(b, l, psi, args[1]);
          return SmallVector<Value>{arith::AddFOp::create(b, l, args[3], term)};
        });
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getResult().getType()));
    if (cast<RankedTensorType>(sum.getType()).getRank() == 0)
      sum = tensor::ExpandShapeOp::create(rewriter, loc, resultType, sum,
                                          ArrayRef<ReassociationIndices>{});
    rewriter.replaceOp(op, sum);
    return success();
  }
};

} // namespace

void rlx::populateQuantizationToLinalgPatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<QuantizeLowering, DequantizeLowering, FakeQuantizeLowering,
               FakeQuantizeBackwardLowering, FakeQuantizeLSQLowering,
               FakeQuantizeLSQBackwardXLowering,
               FakeQuantizeLSQBackwardScaleLowering>(converter,
                                                     patterns.getContext());
}
