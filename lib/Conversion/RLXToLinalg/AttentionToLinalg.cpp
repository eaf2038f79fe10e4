//===- AttentionToLinalg.cpp - attention and rotary embeddings ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/Utils/ScalarOps.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rlx;

namespace {

using BodyBuilder = function_ref<Value(OpBuilder &, Location, ValueRange)>;

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// A tensor of `sizes` filled with `value`.
Value buildFilled(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType, double value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
  Value fill = floatConstant(b, loc, elementType, value);
  return linalg::FillOp::create(b, loc, fill, empty).getResult(0);
}

/// `size / divisor` as an index: a folded constant when static.
OpFoldResult divideSize(OpBuilder &b, Location loc, OpFoldResult size,
                        int64_t divisor) {
  if (auto attr = dyn_cast<Attribute>(size))
    return b.getIndexAttr(cast<IntegerAttr>(attr).getInt() / divisor);
  return arith::DivUIOp::create(b, loc, cast<Value>(size),
                                indexConstant(b, loc, divisor))
      .getResult();
}

//===----------------------------------------------------------------------===//
// rlx.attention
//===----------------------------------------------------------------------===//

/// rlx.attention, on head-major `[B*H, ., .]` tensors:
///   Q [B*H, Sq, D], K^T [B*H, D, Sk], V [B*H, Sk, D]   copies (generics)
///   scores = Q K^T                         linalg.batch_matmul
///   s = mask(softcap(scale * scores))      one parallel linalg.generic
///   m = rowmax(s); e = exp(s - m); l = rowsum(e)
///   out = (e V) / l                        linalg.batch_matmul, then the
///                                          division, the rounding to the
///                                          element type and the layout
/// Both products are plain batch_matmuls on operands that are not reshapes
/// (elementwise fusion would otherwise fold a reshape into them and turn
/// them into generics), so f32/f64 products go to OpenBLAS. f16/bf16
/// compute in f32 and round once.
struct AttentionLowering : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = b.getContext();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    auto qType = cast<RankedTensorType>(q.getType());
    Type elementType = qType.getElementType();
    Type accType = computeTypeOf(elementType);
    bool packed = qType.getRank() == 3;
    int64_t numHeads = op.getNumHeads();
    int64_t headDim = op.getHeadDim();
    unsigned seqDim = packed ? 1 : 2;

    OpFoldResult sq = tensor::getMixedSize(b, loc, q, seqDim);
    OpFoldResult sk = tensor::getMixedSize(b, loc, k, seqDim);
    OpFoldResult dim = b.getIndexAttr(headDim);
    OpFoldResult batchHeads;
    if (std::optional<int64_t> batch =
            getConstantIntValue(tensor::getMixedSize(b, loc, q, 0)))
      batchHeads = b.getIndexAttr(*batch * numHeads);
    else
      batchHeads =
          arith::MulIOp::create(b, loc, tensor::DimOp::create(b, loc, q, 0),
                                indexConstant(b, loc, numHeads))
              .getResult();

    // Element (bh, s, d) of a head-major tensor in the op's layout:
    // [B, H, S, D] or [B, S, H*D].
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    auto layoutMap = [&](AffineExpr bh, AffineExpr s,
                         AffineExpr e) -> AffineMap {
      AffineExpr batch = bh.floorDiv(numHeads), head = bh % numHeads;
      SmallVector<AffineExpr> exprs =
          packed ? SmallVector<AffineExpr>{batch, s, head * headDim + e}
                 : SmallVector<AffineExpr>{batch, head, s, e};
      return AffineMap::get(3, 0, exprs, ctx);
    };
    AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
    SmallVector<utils::IteratorType> parallel3(3,
                                               utils::IteratorType::parallel);
    auto copy = [](OpBuilder &, Location, ValueRange args) -> Value {
      return args[0];
    };
    // [B*H, S, D], or [B*H, D, S] with `transposed`. A native [B, H, S, D]
    // operand already is [B*H, S, D] in memory: collapsing it copies nothing.
    auto toHeads = [&](Value x, OpFoldResult seq, bool transposed) -> Value {
      if (!packed && !transposed)
        return tensor::CollapseShapeOp::create(
            b, loc, x, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
      SmallVector<OpFoldResult> sizes =
          transposed ? SmallVector<OpFoldResult>{batchHeads, dim, seq}
                     : SmallVector<OpFoldResult>{batchHeads, seq, dim};
      AffineMap map = transposed ? layoutMap(d(0), d(2), d(1))
                                 : layoutMap(d(0), d(1), d(2));
      Value init = tensor::EmptyOp::create(b, loc, sizes, elementType);
      return buildGeneric(b, loc, x, init, {map, id3}, parallel3, copy);
    };

    // Scores [B*H, Sq, Sk] = Q K^T.
    Value qh = toHeads(q, sq, /*transposed=*/false);
    Value kt = toHeads(k, sk, /*transposed=*/true);
    SmallVector<OpFoldResult> scoreSizes = {batchHeads, sq, sk};
    Value scoresInit = buildFilled(b, loc, scoreSizes, accType, 0.0);
    Value scores =
        linalg::BatchMatmulOp::create(b, loc, TypeRange{scoresInit.getType()},
                                      ValueRange{qh, kt}, scoresInit)
            .getResult(0);

    // Scale, soft cap and mask, in the order of the op description.
    double scale =
        op.getScoreScale()
            ? static_cast<double>(op.getScoreScale()->convertToFloat())
            : 1.0 / std::sqrt(static_cast<double>(headDim));
    std::optional<double> softcap;
    if (op.getAttnLogitSoftcap())
      softcap = op.getAttnLogitSoftcap()->convertToFloat();
    MaskKind maskKind = op.getMaskKind();
    Value mask = adaptor.getMask();
    Value keyOffset; // Sk - Sq: query i sees keys up to i + Sk - Sq.
    if (maskKind == MaskKind::Causal || maskKind == MaskKind::SlidingWindow)
      keyOffset = arith::SubIOp::create(
          b, loc, getValueOrCreateConstantIndexOp(b, loc, sk),
          getValueOrCreateConstantIndexOp(b, loc, sq));
    int64_t window = op.getWindow() ? static_cast<int64_t>(*op.getWindow()) : 0;

    SmallVector<Value> maskedInputs = {scores};
    SmallVector<AffineMap> maskedMaps = {id3};
    if (maskKind == MaskKind::Bias) {
      // [B, H, Sq, Sk].
      maskedInputs.push_back(mask);
      maskedMaps.push_back(AffineMap::get(
          3, 0, {d(0).floorDiv(numHeads), d(0) % numHeads, d(1), d(2)}, ctx));
    } else if (maskKind == MaskKind::Custom) {
      // [B, Sk].
      maskedInputs.push_back(mask);
      maskedMaps.push_back(
          AffineMap::get(3, 0, {d(0).floorDiv(numHeads), d(2)}, ctx));
    }
    maskedMaps.push_back(id3);
    Value maskedInit = tensor::EmptyOp::create(b, loc, scoreSizes, accType);
    Value masked = buildGeneric(
        b, loc, maskedInputs, maskedInit, maskedMaps, parallel3,
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          Value s = arith::MulFOp::create(
              nb, nl, args[0], floatConstant(nb, nl, accType, scale));
          if (softcap) {
            Value c = floatConstant(nb, nl, accType, *softcap);
            Value t = emitActivation(nb, nl, ActivationKind::Tanh,
                                     arith::DivFOp::create(nb, nl, s, c));
            s = arith::MulFOp::create(nb, nl, c, t);
          }
          Value negInf = floatConstant(
              nb, nl, accType, -std::numeric_limits<double>::infinity());
          switch (maskKind) {
          case MaskKind::None:
            return s;
          case MaskKind::Bias:
            return arith::AddFOp::create(nb, nl, s,
                                         extendTo(nb, nl, accType, args[1]));
          case MaskKind::Custom: {
            Value keep =
                arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGE,
                                      extendTo(nb, nl, accType, args[1]),
                                      floatConstant(nb, nl, accType, 0.5));
            return arith::SelectOp::create(nb, nl, keep, s, negInf);
          }
          case MaskKind::Causal:
          case MaskKind::SlidingWindow: {
            Value i = linalg::IndexOp::create(nb, nl, 1);
            Value j = linalg::IndexOp::create(nb, nl, 2);
            Value last = arith::AddIOp::create(nb, nl, i, keyOffset);
            Value keep = arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::sle, j, last);
            if (maskKind == MaskKind::SlidingWindow) {
              Value first = arith::SubIOp::create(
                  nb, nl, last, indexConstant(nb, nl, window));
              Value inWindow = arith::CmpIOp::create(
                  nb, nl, arith::CmpIPredicate::sge, j, first);
              keep = arith::AndIOp::create(nb, nl, keep, inWindow);
            }
            return arith::SelectOp::create(nb, nl, keep, s, negInf);
          }
          }
          llvm_unreachable("unknown mask kind");
        });

    // Numerically stable softmax numerator and denominator. A row with
    // every key masked out has max -inf and yields NaN, as specified.
    SmallVector<OpFoldResult> rowSizes = {batchHeads, sq};
    SmallVector<utils::IteratorType> rowReduction = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction};
    AffineMap rowMap = AffineMap::get(3, 0, {d(0), d(1)}, ctx);
    Value rowMax = buildGeneric(
        b, loc, masked,
        buildFilled(b, loc, rowSizes, accType,
                    -std::numeric_limits<double>::infinity()),
        {id3, rowMap}, rowReduction,
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          return arith::MaximumFOp::create(nb, nl, args[0], args[1]);
        });
    Value expInit = tensor::EmptyOp::create(b, loc, scoreSizes, accType);
    Value exps = buildGeneric(
        b, loc, ValueRange{masked, rowMax}, expInit, {id3, rowMap, id3},
        parallel3, [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          return math::ExpOp::create(
              nb, nl, arith::SubFOp::create(nb, nl, args[0], args[1]));
        });
    Value rowSum =
        buildGeneric(b, loc, exps, buildFilled(b, loc, rowSizes, accType, 0.0),
                     {id3, rowMap}, rowReduction,
                     [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                       return arith::AddFOp::create(nb, nl, args[0], args[1]);
                     });

    // [B*H, Sq, D] = e V, then normalized, rounded and laid out.
    Value vh = toHeads(v, sk, /*transposed=*/false);
    Value pvInit = buildFilled(b, loc, {batchHeads, sq, dim}, accType, 0.0);
    Value pv =
        linalg::BatchMatmulOp::create(b, loc, TypeRange{pvInit.getType()},
                                      ValueRange{exps, vh}, pvInit)
            .getResult(0);
    Value outInit = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, q), elementType);
    Value out = buildGeneric(
        b, loc, ValueRange{pv, rowSum}, outInit,
        {id3, rowMap, layoutMap(d(0), d(1), d(2))}, parallel3,
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          return truncateTo(nb, nl, elementType,
                            arith::DivFOp::create(nb, nl, args[0], args[1]));
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rlx.rope and rlx.axial_rope2d
//===----------------------------------------------------------------------===//

/// Views `[B, S, H*D]` as `[B, S, H, D]` and `[S, H*D]` as `[S, H, D]`;
/// rank-4 inputs are returned unchanged.
Value splitHeads(OpBuilder &b, Location loc, Value x, int64_t headDim) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (rank == 4)
    return x;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  OpFoldResult heads = divideSize(b, loc, sizes.back(), headDim);
  sizes.back() = heads;
  sizes.push_back(b.getIndexAttr(headDim));
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = getConstantIntValue(heads).value_or(ShapedType::kDynamic);
  shape.push_back(headDim);
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t i = 0; i < rank - 1; ++i)
    reassociation.push_back({i});
  reassociation.push_back({rank - 1, rank});
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), x,
      reassociation, sizes);
}

/// Inverse of splitHeads.
Value joinHeads(OpBuilder &b, Location loc, Value x, RankedTensorType type) {
  int64_t rank = type.getRank();
  if (rank == 4)
    return x;
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t i = 0; i < rank - 1; ++i)
    reassociation.push_back({i});
  reassociation.push_back({rank - 1, rank});
  return tensor::CollapseShapeOp::create(b, loc, type, x, reassociation);
}

/// rlx.rope: one generic over the per-head view of the input. Each output
/// element reads its own input, its NeoX partner at `(p + r) mod n_rot`
/// and the table entry at `p mod r` (both in range for every p, and unused
/// for the copied dims p >= n_rot).
struct RopeLowering : OpConversionPattern<RopeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RopeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    Type accType = computeTypeOf(elementType);
    int64_t headDim = op.getHeadDim();
    int64_t nRot = op.getNRot();
    int64_t half = nRot / 2;

    Value x = splitHeads(b, loc, adaptor.getInput(), headDim);
    auto viewType = cast<RankedTensorType>(x.getType());
    unsigned n = viewType.getRank();
    // The sequence dim of [B, H, S, D], [B, S, H, D] and [S, H, D].
    unsigned seqDim = type.getRank() == 4 ? 2 : (type.getRank() == 3 ? 1 : 0);
    AffineExpr p = getAffineDimExpr(n - 1, ctx);
    SmallVector<AffineExpr> partner;
    for (unsigned i = 0; i + 1 < n; ++i)
      partner.push_back(getAffineDimExpr(i, ctx));
    partner.push_back((p + half) % nRot);
    AffineMap id = AffineMap::getMultiDimIdentityMap(n, ctx);
    AffineMap partnerMap = AffineMap::get(n, 0, partner, ctx);
    AffineMap tableMap =
        AffineMap::get(n, 0, {getAffineDimExpr(seqDim, ctx), p % half}, ctx);
    Value init = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, x), elementType);
    SmallVector<utils::IteratorType> iterators(n,
                                               utils::IteratorType::parallel);
    Value y = buildGeneric(
        b, loc, ValueRange{x, x, adaptor.getCos(), adaptor.getSin()}, init,
        {id, partnerMap, tableMap, tableMap, id}, iterators,
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          Value self = extendTo(nb, nl, accType, args[0]);
          Value other = extendTo(nb, nl, accType, args[1]);
          Value c = extendTo(nb, nl, accType, args[2]);
          Value s = extendTo(nb, nl, accType, args[3]);
          Value pos = linalg::IndexOp::create(nb, nl, n - 1);
          Value first = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult,
                                              pos, indexConstant(nb, nl, half));
          Value rotated =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, pos,
                                    indexConstant(nb, nl, nRot));
          // y[p] = x[p] c - x[p+r] s;  y[p+r] = x[p+r] c + x[p] s.
          Value cross = arith::MulFOp::create(nb, nl, other, s);
          Value selfCos = arith::MulFOp::create(nb, nl, self, c);
          Value result = arith::SelectOp::create(
              nb, nl, first, arith::SubFOp::create(nb, nl, selfCos, cross),
              arith::AddFOp::create(nb, nl, selfCos, cross));
          result = truncateTo(nb, nl, elementType, result);
          return arith::SelectOp::create(nb, nl, rotated, result, args[0]);
        });
    rewriter.replaceOp(op, joinHeads(b, loc, y, type));
    return success();
  }
};

/// rlx.axial_rope2d: one generic over `[B, S, H, D]`. Element `d` of a head
/// belongs to pair `m = d / 2` (partner `d xor 1`); the pair's frequency
/// comes from a constant table, its position (`px` for `m < D/4`, else
/// `py`) from the token index.
struct AxialRope2dLowering : OpConversionPattern<AxialRope2dOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AxialRope2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    Type accType = computeTypeOf(elementType);
    int64_t headDim = op.getHeadDim();
    int64_t quarter = headDim / 4;
    int64_t endX = op.getEndX();
    int64_t grid = endX * op.getEndY();
    double theta = op.getTheta().convertToDouble();

    // f[m mod q] for every pair m, computed in double, rounded once.
    SmallVector<Attribute> freqs;
    for (int64_t m = 0; m < headDim / 2; ++m) {
      double f = std::pow(theta, -4.0 * static_cast<double>(m % quarter) /
                                     static_cast<double>(headDim));
      freqs.push_back(b.getFloatAttr(accType, f));
    }
    auto freqType = RankedTensorType::get({headDim / 2}, accType);
    Value freqTable = arith::ConstantOp::create(
        b, loc, freqType, DenseElementsAttr::get(freqType, freqs));

    Value x = splitHeads(b, loc, adaptor.getInput(), headDim);
    AffineExpr d = getAffineDimExpr(3, ctx);
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    AffineMap partnerMap =
        AffineMap::get(4, 0,
                       {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
                        getAffineDimExpr(2, ctx), d + 1 - (d % 2) * 2},
                       ctx);
    AffineMap freqMap = AffineMap::get(4, 0, {d.floorDiv(2)}, ctx);
    Value init = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, x), elementType);
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    Value y = buildGeneric(
        b, loc, ValueRange{x, x, freqTable}, init,
        {id, partnerMap, freqMap, id}, iterators,
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          Value self = extendTo(nb, nl, accType, args[0]);
          Value other = extendTo(nb, nl, accType, args[1]);
          Value token = linalg::IndexOp::create(nb, nl, 1);
          Value elem = linalg::IndexOp::create(nb, nl, 3);
          Value cell = arith::RemUIOp::create(nb, nl, token,
                                              indexConstant(nb, nl, grid));
          Value px =
              arith::RemUIOp::create(nb, nl, cell, indexConstant(nb, nl, endX));
          Value py =
              arith::DivUIOp::create(nb, nl, cell, indexConstant(nb, nl, endX));
          Value pair =
              arith::DivUIOp::create(nb, nl, elem, indexConstant(nb, nl, 2));
          Value isX =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, pair,
                                    indexConstant(nb, nl, quarter));
          Value position = arith::SelectOp::create(nb, nl, isX, px, py);
          Value posInt =
              arith::IndexCastUIOp::create(nb, nl, nb.getI64Type(), position);
          Value posFloat = arith::UIToFPOp::create(nb, nl, accType, posInt);
          Value angle = arith::MulFOp::create(nb, nl, posFloat, args[2]);
          Value c = math::CosOp::create(nb, nl, angle);
          Value s = math::SinOp::create(nb, nl, angle);
          // Even d: x[d] c - x[d+1] s; odd d: x[d-1] s + x[d] c.
          Value odd = arith::CmpIOp::create(
              nb, nl, arith::CmpIPredicate::ne,
              arith::RemUIOp::create(nb, nl, elem, indexConstant(nb, nl, 2)),
              indexConstant(nb, nl, 0));
          Value selfCos = arith::MulFOp::create(nb, nl, self, c);
          Value cross = arith::MulFOp::create(nb, nl, other, s);
          Value result = arith::SelectOp::create(
              nb, nl, odd, arith::AddFOp::create(nb, nl, selfCos, cross),
              arith::SubFOp::create(nb, nl, selfCos, cross));
          return truncateTo(nb, nl, elementType, result);
        });
    rewriter.replaceOp(op, joinHeads(b, loc, y, type));
    return success();
  }
};

} // namespace

void rlx::populateAttentionToLinalgPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<AttentionLowering, RopeLowering, AxialRope2dLowering>(
      converter, patterns.getContext());
}
