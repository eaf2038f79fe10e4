//===- ConvPoolToLinalg.cpp - convolution and pooling ---------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Every op here reads a padded copy of its NCHW input (built by one gather
// generic; the pad value is zero or the reduction's identity) through
// window index maps, so no read is ever out of bounds.
//
// rlx.conv becomes, for f32/f64 when both GEMM dims are worthwhile, im2col
// plus one linalg.batch_matmul over (batch, group) (OpenBLAS), else one
// direct convolution linalg.generic. rlx.conv_transpose2d is rewritten as a
// stride-1 convolution of the zero-interleaved input with the flipped
// kernel, and shares that code. Channel and spatial dims must be static;
// the batch dim may be dynamic.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/ConvGeometry.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::rlx;

namespace {

using BodyBuilder = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A scalar constant of `type` (float, integer or complex) with value 0.
Value zeroOf(OpBuilder &b, Location loc, Type type) {
  if (auto complexType = dyn_cast<ComplexType>(type)) {
    Attribute zero = b.getZeroAttr(complexType.getElementType());
    return complex::ConstantOp::create(b, loc, complexType,
                                       b.getArrayAttr({zero, zero}));
  }
  return arith::ConstantOp::create(b, loc, type,
                                   cast<TypedAttr>(b.getZeroAttr(type)));
}

Value buildFilled(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Value value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, value.getType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

/// Rounds an f32 accumulator back to a narrower float element type.
Value narrowTensor(OpBuilder &b, Location loc, Value acc, Type elementType) {
  auto accType = cast<RankedTensorType>(acc.getType());
  if (accType.getElementType() == elementType)
    return acc;
  return buildBroadcastElementwise(
      b, loc, accType.clone(elementType), acc,
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        return arith::TruncFOp::create(nb, nl, elementType, args[0]);
      });
}

/// Reports an op whose channel, kernel or spatial dims are not static.
LogicalResult requireStatic(Operation *op, ArrayRef<Value> values) {
  for (Value value : values) {
    auto type = cast<RankedTensorType>(value.getType());
    for (int64_t dim = 1; dim < type.getRank(); ++dim)
      if (type.isDynamicDim(dim))
        return op->emitOpError()
               << "the CPU lowering needs static channel and spatial dims "
                  "(only the batch dim may be dynamic), got "
               << type;
  }
  return success();
}

/// Where the input rows (or columns) land in a placed tensor: input index
/// `first + i` goes to position `offset + i * stride`, for `0 <= i < count`.
struct Placement {
  int64_t offset;
  int64_t stride;
  int64_t first;
  int64_t count;
};

/// `x` `[N, C, H, W]` placed into a `[N, C, outH, outW]` tensor whose other
/// positions hold `padValue`. Built as one `linalg.map` that reads `x` with
/// clamped indices: an inserted slice would bufferize to a strided copy that
/// needs a runtime helper, and a map (unlike a generic) is not fused into
/// the window op that reads it, which then keeps its plain affine reads.
/// Returns `x` itself when that is the identity.
Value placeNCHW(OpBuilder &b, Location loc, Value x, int64_t outH, int64_t outW,
                const Placement (&place)[2], Value padValue) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t in[2] = {type.getDimSize(2), type.getDimSize(3)};
  int64_t out[2] = {outH, outW};
  bool identity = true;
  for (int i = 0; i < 2; ++i)
    identity &= place[i].offset == 0 && place[i].first == 0 &&
                place[i].count == in[i] && out[i] == in[i];
  if (identity)
    return x;
  SmallVector<OpFoldResult> outSizes = {
      tensor::getMixedSize(b, loc, x, 0), tensor::getMixedSize(b, loc, x, 1),
      b.getIndexAttr(outH), b.getIndexAttr(outW)};
  Value init = tensor::EmptyOp::create(b, loc, outSizes, padValue.getType());
  auto body = [&](OpBuilder &nb, Location nl) -> Value {
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(nb, nl, v);
    };
    Value zero = cst(0);
    Value valid;
    SmallVector<Value> indices = {linalg::IndexOp::create(nb, nl, 0),
                                  linalg::IndexOp::create(nb, nl, 1)};
    for (int i = 0; i < 2; ++i) {
      const Placement &pl = place[i];
      Value pos = linalg::IndexOp::create(nb, nl, 2 + i);
      Value rel = arith::SubIOp::create(nb, nl, pos, cst(pl.offset));
      Value inRange = arith::AndIOp::create(
          nb, nl,
          arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, rel, zero),
          arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, rel,
                                cst(pl.count * pl.stride)));
      Value safeRel = arith::SelectOp::create(nb, nl, inRange, rel, zero);
      Value onGrid = arith::CmpIOp::create(
          nb, nl, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(nb, nl, safeRel, cst(pl.stride)), zero);
      Value axisValid = arith::AndIOp::create(nb, nl, inRange, onGrid);
      valid = valid
                  ? arith::AndIOp::create(nb, nl, valid, axisValid).getResult()
                  : axisValid;
      Value index = arith::AddIOp::create(
          nb, nl, cst(pl.first),
          arith::DivUIOp::create(nb, nl, safeRel, cst(pl.stride)));
      indices.push_back(index);
    }
    // Every index stays in bounds, also where the value is not used.
    for (int i = 2; i < 4; ++i)
      indices[i] = arith::SelectOp::create(nb, nl, valid, indices[i], zero);
    Value element = tensor::ExtractOp::create(nb, nl, x, indices);
    return arith::SelectOp::create(nb, nl, valid, element, padValue);
  };
  return linalg::MapOp::create(b, loc, ValueRange{}, init,
                               [&](OpBuilder &nb, Location nl, ValueRange) {
                                 linalg::YieldOp::create(nb, nl, body(nb, nl));
                               })
      ->getResult(0);
}

/// Symmetric spatial padding of an NCHW tensor.
Value padNCHW(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> padding,
              Value padValue) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t h = type.getDimSize(2), w = type.getDimSize(3);
  Placement place[2] = {{padding[0], 1, 0, h}, {padding[1], 1, 0, w}};
  return placeNCHW(b, loc, x, h + 2 * padding[0], w + 2 * padding[1], place,
                   padValue);
}

/// The loop (iteration dim) of logical dim `logical` under `order`, which
/// lists the logical dims from outermost to innermost.
AffineExpr loopDim(MLIRContext *ctx, ArrayRef<int64_t> order, int64_t logical) {
  return getAffineDimExpr(llvm::find(order, logical) - order.begin(), ctx);
}

/// Iterator types of `order`: the listed logical dims reduce.
SmallVector<utils::IteratorType> iteratorsFor(ArrayRef<int64_t> order,
                                              ArrayRef<int64_t> reductions) {
  SmallVector<utils::IteratorType> iterators;
  for (int64_t logical : order)
    iterators.push_back(llvm::is_contained(reductions, logical)
                            ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
  return iterators;
}

/// The parameters of a convolution of an already padded input.
struct ConvParams {
  int64_t groups;
  int64_t stride[2];
  int64_t dilation[2];
  int64_t outH, outW;
};

/// True when a convolution goes through im2col and a BLAS GEMM: f32/f64
/// (what the BLAS rewrite accepts) and both GEMM dims, C_out/groups and
/// C_in/groups * kH * kW, at least 4 (depthwise and similar thin products
/// stay direct loops, which do not materialize the windows).
bool useGemm(Type elementType, int64_t outPerGroup, int64_t reduction) {
  return (elementType.isF32() || elementType.isF64()) && outPerGroup >= 4 &&
         reduction >= 4;
}

/// result[n, co, oh, ow] = sum_{ci, kh, kw}
///   padded[n, g * Cg + ci, oh * sH + kh * dH, ow * sW + kw * dW]
///   * weight[co, ci, kh, kw],   g = co / (C_out / groups).
/// `padded` is `[N, C_in, Hp, Wp]`, `weight` `[C_out, Cg, kH, kW]`.
Value convolve(OpBuilder &b, Location loc, Value padded, Value weight,
               const ConvParams &p) {
  MLIRContext *ctx = b.getContext();
  auto inType = cast<RankedTensorType>(padded.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  Type elementType = inType.getElementType();
  Type accType = computeTypeOf(elementType);
  int64_t groups = p.groups;
  int64_t cOut = wType.getDimSize(0), cg = wType.getDimSize(1);
  int64_t kH = wType.getDimSize(2), kW = wType.getDimSize(3);
  int64_t outPerGroup = cOut / groups;
  int64_t reduction = cg * kH * kW;
  OpFoldResult batch = tensor::getMixedSize(b, loc, padded, 0);
  std::optional<int64_t> staticBatch = getConstantIntValue(batch);
  auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };

  if (!useGemm(elementType, outPerGroup, reduction)) {
    // Direct: logical dims (co, n, oh, ci, kh, kw, ow).
    enum { CO, N, OH, CI, KH, KW, OW };
    SmallVector<int64_t> order = {CO, N, OH, CI, KH, KW, OW};
    auto l = [&](unsigned logical) { return loopDim(ctx, order, logical); };
    SmallVector<AffineMap> maps = {
        AffineMap::get(7, 0,
                       {l(N), l(CO).floorDiv(outPerGroup) * cg + l(CI),
                        l(OH) * p.stride[0] + l(KH) * p.dilation[0],
                        l(OW) * p.stride[1] + l(KW) * p.dilation[1]},
                       ctx),
        AffineMap::get(7, 0, {l(CO), l(CI), l(KH), l(KW)}, ctx),
        AffineMap::get(7, 0, {l(N), l(CO), l(OH), l(OW)}, ctx)};
    SmallVector<utils::IteratorType> iterators =
        iteratorsFor(order, {CI, KH, KW});
    Value init =
        buildFilled(b, loc, {batch, idx(cOut), idx(p.outH), idx(p.outW)},
                    zeroOf(b, loc, accType));
    Value acc =
        buildGeneric(b, loc, ValueRange{padded, weight}, init, maps, iterators,
                     [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                       Value prod = arith::MulFOp::create(
                           nb, nl, extendTo(nb, nl, accType, args[0]),
                           extendTo(nb, nl, accType, args[1]));
                       return arith::AddFOp::create(nb, nl, args[2], prod);
                     });
    return narrowTensor(b, loc, acc, elementType);
  }

  // GEMM per (n, g): [Cog, K] x [K, P] with K = Cg*kH*kW, P = Ho*Wo. The
  // three operands are built and read by generics, never through reshapes:
  // elementwise fusion would fold a reshape into the batch_matmul and turn
  // it into a generic that the BLAS rewrite no longer recognizes.
  int64_t window = kH * kW;
  int64_t positions = p.outH * p.outW;
  OpFoldResult batchGroups =
      staticBatch
          ? OpFoldResult(b.getIndexAttr(*staticBatch * groups))
          : OpFoldResult(arith::MulIOp::create(
                             b, loc, cast<Value>(batch),
                             arith::ConstantIndexOp::create(b, loc, groups))
                             .getResult());
  SmallVector<utils::IteratorType> parallel3(3, utils::IteratorType::parallel);
  auto copy = [](OpBuilder &, Location, ValueRange args) { return args[0]; };
  AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);

  // cols[n*G + g, (ci*kH + kh)*kW + kw, oh*Wo + ow]
  //   = padded[n, g*Cg + ci, oh*sH + kh*dH, ow*sW + kw*dW].
  AffineExpr ng = d(0), r = d(1), pos = d(2);
  AffineMap colsMap = AffineMap::get(
      3, 0,
      {ng.floorDiv(groups), (ng % groups) * cg + r.floorDiv(window),
       pos.floorDiv(p.outW) * p.stride[0] +
           (r.floorDiv(kW) % kH) * p.dilation[0],
       (pos % p.outW) * p.stride[1] + (r % kW) * p.dilation[1]},
      ctx);
  Value colsInit = tensor::EmptyOp::create(
      b, loc, {batchGroups, idx(reduction), idx(positions)}, elementType);
  Value cols =
      buildGeneric(b, loc, padded, colsInit, {colsMap, id3}, parallel3, copy);

  // lhs[n*G + g, co, r] = weight[g*Cog + co, r / (kH*kW), (r / kW) % kH,
  // r % kW], the weights repeated over the batch.
  AffineMap weightMap =
      AffineMap::get(3, 0,
                     {(d(0) % groups) * outPerGroup + d(1),
                      d(2).floorDiv(window), d(2).floorDiv(kW) % kH, d(2) % kW},
                     ctx);
  Value lhsInit = tensor::EmptyOp::create(
      b, loc, {batchGroups, idx(outPerGroup), idx(reduction)}, elementType);
  Value lhs =
      buildGeneric(b, loc, weight, lhsInit, {weightMap, id3}, parallel3, copy);

  Value init =
      buildFilled(b, loc, {batchGroups, idx(outPerGroup), idx(positions)},
                  zeroOf(b, loc, elementType));
  Value product =
      linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                    ValueRange{lhs, cols}, init)
          .getResult(0);

  // result[n, co, oh, ow] = product[n*G + co / Cog, co % Cog, oh*Wo + ow].
  AffineMap productMap =
      AffineMap::get(4, 0,
                     {d(0) * groups + d(1).floorDiv(outPerGroup),
                      d(1) % outPerGroup, d(2) * p.outW + d(3)},
                     ctx);
  Value resultInit = tensor::EmptyOp::create(
      b, loc, {batch, idx(cOut), idx(p.outH), idx(p.outW)}, elementType);
  SmallVector<utils::IteratorType> parallel4(4, utils::IteratorType::parallel);
  return buildGeneric(b, loc, product, resultInit,
                      {productMap, AffineMap::getMultiDimIdentityMap(4, ctx)},
                      parallel4, copy);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct ConvLowering : OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(op, {op.getInput(), op.getWeight()})))
      return failure();
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> stride = op.getStride(), dilation = op.getDilation();
    Type elementType = resultType.getElementType();
    Value padded = padNCHW(rewriter, loc, adaptor.getInput(), op.getPadding(),
                           zeroOf(rewriter, loc, elementType));
    ConvParams params = {static_cast<int64_t>(op.getGroups()),
                         {stride[0], stride[1]},
                         {dilation[0], dilation[1]},
                         resultType.getDimSize(2),
                         resultType.getDimSize(3)};
    rewriter.replaceOp(
        op, convolve(rewriter, loc, padded, adaptor.getWeight(), params));
    return success();
  }
};

/// The first input index whose interleaved position `i * stride + offset`
/// lies in `[0, length)`, and how many consecutive ones do.
std::pair<int64_t, int64_t> visibleRange(int64_t size, int64_t stride,
                                         int64_t offset, int64_t length) {
  int64_t first = offset >= 0 ? 0 : llvm::divideCeilSigned(-offset, stride);
  int64_t last =
      std::min(size - 1, llvm::divideFloorSigned(length - 1 - offset, stride));
  return {first, std::max<int64_t>(0, last - first + 1)};
}

/// rlx.conv_transpose2d as a stride-1 convolution with dilation d:
///   z[n, ci, i * s + P] = input[n, ci, i]   (P = d (k - 1) - p, zeros
///                                            elsewhere, length H_out +
///                                            d (k - 1), clipped at both
///                                            ends when p > d (k - 1))
///   w'[g * Cog + co, ci, kh, kw] = weight[g * Cig + ci, co, kH-1-kh, kW-1-kw]
struct ConvTranspose2dLowering : OpConversionPattern<ConvTranspose2dOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvTranspose2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(op, {op.getInput(), op.getWeight()})))
      return failure();
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    Type elementType = resultType.getElementType();
    ArrayRef<int64_t> stride = op.getStride(), dilation = op.getDilation(),
                      padding = op.getPadding();
    int64_t groups = op.getGroups();
    int64_t cIn = inType.getDimSize(1);
    int64_t inPerGroup = cIn / groups;
    int64_t outPerGroup = wType.getDimSize(1);
    int64_t cOut = outPerGroup * groups;
    int64_t kernel[2] = {wType.getDimSize(2), wType.getDimSize(3)};
    int64_t out[2] = {resultType.getDimSize(2), resultType.getDimSize(3)};

    // The zero-interleaved, padded (or clipped) input.
    Placement place[2];
    int64_t length[2];
    for (int i = 0; i < 2; ++i) {
      length[i] = out[i] + dilation[i] * (kernel[i] - 1);
      int64_t shift = dilation[i] * (kernel[i] - 1) - padding[i];
      auto [first, count] =
          visibleRange(inType.getDimSize(2 + i), stride[i], shift, length[i]);
      place[i] = {first * stride[i] + shift, stride[i], first, count};
    }
    Value interleaved =
        placeNCHW(b, loc, adaptor.getInput(), length[0], length[1], place,
                  zeroOf(b, loc, elementType));

    // The flipped kernel in convolution layout [C_out, C_in/groups, kH, kW].
    enum { CO, CI, KH, KW };
    SmallVector<int64_t> order = {CO, CI, KH, KW};
    auto l = [&](unsigned logical) { return loopDim(ctx, order, logical); };
    AffineMap weightMap = AffineMap::get(
        4, 0,
        {l(CO).floorDiv(outPerGroup) * inPerGroup + l(CI), l(CO) % outPerGroup,
         kernel[0] - 1 - l(KH), kernel[1] - 1 - l(KW)},
        ctx);
    AffineMap flippedMap =
        AffineMap::get(4, 0, {l(CO), l(CI), l(KH), l(KW)}, ctx);
    Value flippedInit = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{cOut, inPerGroup, kernel[0], kernel[1]},
        elementType);
    SmallVector<utils::IteratorType> parallel4(4,
                                               utils::IteratorType::parallel);
    Value flipped = buildGeneric(
        b, loc, adaptor.getWeight(), flippedInit, {weightMap, flippedMap},
        parallel4,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });

    ConvParams params = {
        groups, {1, 1}, {dilation[0], dilation[1]}, out[0], out[1]};
    rewriter.replaceOp(op, convolve(b, loc, interleaved, flipped, params));
    return success();
  }
};

/// rlx.im2col: one copy generic over [N, H_out, W_out, C, kH, kW] reading
/// the zero-padded input, collapsed to the result's two dims.
struct Im2ColLowering : OpConversionPattern<Im2ColOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Im2ColOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(op, {op.getInput()})))
      return failure();
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto resultType =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    Type elementType = resultType.getElementType();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    ArrayRef<int64_t> kernel = op.getKernelSize(), stride = op.getStride(),
                      dilation = op.getDilation(), padding = op.getPadding();
    conv_geometry::Window window = {kernel, stride, padding, dilation, {}};
    SmallVector<int64_t, 2> outHW =
        conv_geometry::slidingOutputHW(inType.getShape(), window);
    int64_t channels = inType.getDimSize(1);

    Value padded = padNCHW(b, loc, adaptor.getInput(), padding,
                           zeroOf(b, loc, elementType));
    enum { N, OH, OW, C, KH, KW };
    SmallVector<int64_t> order = {N, OH, OW, C, KH, KW};
    auto l = [&](unsigned logical) { return loopDim(ctx, order, logical); };
    SmallVector<AffineMap> maps = {
        AffineMap::get(6, 0,
                       {l(N), l(C), l(OH) * stride[0] + l(KH) * dilation[0],
                        l(OW) * stride[1] + l(KW) * dilation[1]},
                       ctx),
        AffineMap::get(6, 0, {l(N), l(OH), l(OW), l(C), l(KH), l(KW)}, ctx)};
    auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
    Value init = tensor::EmptyOp::create(
        b, loc,
        {tensor::getMixedSize(b, loc, padded, 0), idx(outHW[0]), idx(outHW[1]),
         idx(channels), idx(kernel[0]), idx(kernel[1])},
        elementType);
    SmallVector<utils::IteratorType> iterators(6,
                                               utils::IteratorType::parallel);
    Value windows = buildGeneric(
        b, loc, padded, init, maps, iterators,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(
        op, tensor::CollapseShapeOp::create(b, loc, resultType, windows,
                                            {{0, 1, 2}, {3, 4, 5}}));
    return success();
  }
};

/// rlx.pool: the input padded with the reduction's identity, one reduction
/// generic over (n, c, oh, kh, kw, ow); `mean` then divides by kH * kW.
/// f16/bf16 sums and products accumulate in f32 and round once.
struct PoolLowering : OpConversionPattern<PoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(op, {op.getInput()})))
      return failure();
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    ReduceKind kind = op.getKind();
    bool isFloat = isa<FloatType>(elementType);
    bool extremum = kind == ReduceKind::Max || kind == ReduceKind::Min;
    Type accType = extremum ? elementType : computeTypeOf(elementType);
    ArrayRef<int64_t> kernel = op.getKernelSize(), stride = op.getStride();

    auto identity = [&](Type type) -> Value {
      if (auto floatType = dyn_cast<FloatType>(type)) {
        double inf = std::numeric_limits<double>::infinity();
        double value = kind == ReduceKind::Max    ? -inf
                       : kind == ReduceKind::Min  ? inf
                       : kind == ReduceKind::Prod ? 1.0
                                                  : 0.0;
        return arith::ConstantOp::create(b, loc, type,
                                         b.getFloatAttr(type, value));
      }
      unsigned width = type.getIntOrFloatBitWidth();
      APInt value = kind == ReduceKind::Max    ? APInt::getSignedMinValue(width)
                    : kind == ReduceKind::Min  ? APInt::getSignedMaxValue(width)
                    : kind == ReduceKind::Prod ? APInt(width, 1)
                                               : APInt(width, 0);
      return arith::ConstantOp::create(b, loc, type,
                                       b.getIntegerAttr(type, value));
    };

    Value padded = padNCHW(b, loc, adaptor.getInput(), op.getPadding(),
                           identity(elementType));
    // Logical dims (n, c, oh, kh, kw, ow). The `[kH, kW]` window operand
    // only gives the window loops their extent (as in linalg's pooling ops).
    enum { N, C, OH, KH, KW, OW };
    SmallVector<int64_t> order = {N, C, OH, KH, KW, OW};
    auto l = [&](unsigned logical) { return loopDim(ctx, order, logical); };
    SmallVector<AffineMap> maps = {
        AffineMap::get(
            6, 0,
            {l(N), l(C), l(OH) * stride[0] + l(KH), l(OW) * stride[1] + l(KW)},
            ctx),
        AffineMap::get(6, 0, {l(KH), l(KW)}, ctx),
        AffineMap::get(6, 0, {l(N), l(C), l(OH), l(OW)}, ctx)};
    SmallVector<utils::IteratorType> iterators = iteratorsFor(order, {KH, KW});
    Value windowShape = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{kernel[0], kernel[1]}, elementType);
    SmallVector<OpFoldResult> outSizes = {
        tensor::getMixedSize(b, loc, padded, 0),
        b.getIndexAttr(resultType.getDimSize(1)),
        b.getIndexAttr(resultType.getDimSize(2)),
        b.getIndexAttr(resultType.getDimSize(3))};
    Value init = buildFilled(b, loc, outSizes, identity(accType));
    Value acc = buildGeneric(
        b, loc, ValueRange{padded, windowShape}, init, maps, iterators,
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          Value x = isFloat ? extendTo(nb, nl, accType, args[0]) : args[0];
          Value a = args[2];
          switch (kind) {
          case ReduceKind::Max:
            return isFloat ? arith::MaximumFOp::create(nb, nl, a, x).getResult()
                           : arith::MaxSIOp::create(nb, nl, a, x).getResult();
          case ReduceKind::Min:
            return isFloat ? arith::MinimumFOp::create(nb, nl, a, x).getResult()
                           : arith::MinSIOp::create(nb, nl, a, x).getResult();
          case ReduceKind::Prod:
            return isFloat ? arith::MulFOp::create(nb, nl, a, x).getResult()
                           : arith::MulIOp::create(nb, nl, a, x).getResult();
          case ReduceKind::Sum:
          case ReduceKind::Mean:
            return isFloat ? arith::AddFOp::create(nb, nl, a, x).getResult()
                           : arith::AddIOp::create(nb, nl, a, x).getResult();
          }
          llvm_unreachable("unknown reduce kind");
        });
    if (kind == ReduceKind::Mean) {
      // The verifier admits mean on floats only.
      double count = static_cast<double>(kernel[0] * kernel[1]);
      acc = buildBroadcastElementwise(
          b, loc, cast<RankedTensorType>(acc.getType()).clone(elementType), acc,
          [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
            Value divisor = arith::ConstantOp::create(
                nb, nl, accType, nb.getFloatAttr(accType, count));
            Value mean = arith::DivFOp::create(nb, nl, args[0], divisor);
            if (accType == elementType)
              return mean;
            return arith::TruncFOp::create(nb, nl, elementType, mean);
          });
    } else if (isFloat) {
      acc = narrowTensor(b, loc, acc, elementType);
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

} // namespace

void rlx::populateConvPoolToLinalgPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns
      .add<ConvLowering, ConvTranspose2dLowering, Im2ColLowering, PoolLowering>(
          converter, patterns.getContext());
}
