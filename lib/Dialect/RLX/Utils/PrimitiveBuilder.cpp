//===- PrimitiveBuilder.cpp - the shared builder of rlx ops ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rlx;

Value PrimitiveBuilder::iota(ArrayRef<int64_t> shape, int64_t n, int64_t offset,
                             int64_t step) {
  // Generated in IR, an exclusive running sum of a splat of `step`, rather
  // than a constant of n values: compile time and memory do not grow with
  // n (a class count or a sequence length can be large).
  Type i64 = b.getI64Type();
  auto splatOf = [&](ArrayRef<int64_t> dims, int64_t value) -> Value {
    auto type = RankedTensorType::get(dims, i64);
    return ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getI64IntegerAttr(value)));
  };
  Value values = CumsumOp::create(b, loc, splatOf({n}, step),
                                  static_cast<uint64_t>(0), /*exclusive=*/true);
  if (offset)
    values = add(values, splatOf({}, offset));
  if (shape != ArrayRef<int64_t>(n))
    values = reshape(values, shape);
  return values;
}

Value PrimitiveBuilder::alongAxis(Value vector, int64_t rank, int64_t axis) {
  if (axis == rank - 1)
    return vector;
  SmallVector<int64_t> shape(rank - axis, 1);
  shape[0] = -1;
  return reshape(vector, shape);
}

Value PrimitiveBuilder::swapLastTwo(Value x) {
  int64_t rank = llvm::cast<ShapedType>(x.getType()).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  return transpose(x, perm);
}

Value PrimitiveBuilder::sumToShape(Value x, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> from = llvm::cast<ShapedType>(x.getType()).getShape();
  if (from == shape)
    return x;
  int64_t extra = from.size() - shape.size();
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, extra));
  for (auto [i, dim] : llvm::enumerate(shape))
    if (dim == 1 && from[extra + i] != 1)
      axes.push_back(extra + i);
  if (!axes.empty())
    x = reduce(ReduceKind::Sum, x, axes, /*keepDim=*/true);
  if (llvm::cast<ShapedType>(x.getType()).getShape() != shape)
    x = reshape(x, shape);
  return x;
}

Value PrimitiveBuilder::poolWindows(Value x, ArrayRef<int64_t> kernel,
                                    ArrayRef<int64_t> stride,
                                    ArrayRef<int64_t> padding,
                                    double padValue) {
  ArrayRef<int64_t> shape =
      llvm::cast<RankedTensorType>(x.getType()).getShape();
  Type et = getElementTypeOrSelf(x.getType());
  SmallVector<int64_t> unit = {1, 1};
  int64_t taps = kernel[0] * kernel[1];
  Value planes = reshape(x, {-1, 1, shape[2], shape[3]});
  Value cols = Im2ColOp::create(b, loc, planes, kernel, stride, padding, unit);
  int64_t windows = ((shape[2] + 2 * padding[0] - kernel[0]) / stride[0] + 1) *
                    ((shape[3] + 2 * padding[1] - kernel[1]) / stride[1] + 1);
  Value rows = reshape(cols, {-1, windows, taps});
  if (!padding[0] && !padding[1])
    return rows;
  // im2col reads the padding as 0; the taps that hit the input are where
  // the columns of a plane of ones are 1.
  Value ones = splat({1, 1, shape[2], shape[3]}, et, 1.0);
  Value inside =
      compare(CompareKind::Ne,
              Im2ColOp::create(b, loc, ones, kernel, stride, padding, unit),
              scalar(et, 0.0));
  return where(inside, rows, scalar(et, padValue));
}

Value PrimitiveBuilder::firstMaximumTaps(Value windows) {
  auto type = llvm::cast<RankedTensorType>(windows.getType());
  int64_t taps = type.getShape().back(), axis = type.getRank() - 1;
  Value maxima = reduce(ReduceKind::Max, windows, {axis}, true);
  Value tap = iota({taps}, taps);
  Value none = ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                             ArrayRef<Attribute>(b.getI64IntegerAttr(taps))));
  Value candidates =
      where(compare(CompareKind::Eq, windows, maxima), tap, none);
  Value first = reduce(ReduceKind::Min, candidates, {axis}, true);
  return compare(CompareKind::Eq, tap, first);
}

Value PrimitiveBuilder::col2im(Value taps, int64_t h, int64_t w,
                               ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> stride,
                               ArrayRef<int64_t> padding,
                               ArrayRef<int64_t> dilation) {
  auto type = llvm::cast<RankedTensorType>(taps.getType());
  Type et = type.getElementType();
  int64_t n = kernel[0] * kernel[1];
  // The identity kernel is computed in IR, not a constant of n * n values.
  Value identity = cast(compare(CompareKind::Eq, iota({n, 1, 1, 1}, n),
                                iota({1, 1, kernel[0], kernel[1]}, n)),
                        et);
  // The output padding that makes the transposed convolution's extent the
  // input's, among those a strided window maps to the same output size.
  auto outputPadding = [&](int64_t in, int64_t out, int i) {
    return in - ((out - 1) * stride[i] - 2 * padding[i] +
                 dilation[i] * (kernel[i] - 1) + 1);
  };
  SmallVector<int64_t> outPad = {outputPadding(h, type.getDimSize(2), 0),
                                 outputPadding(w, type.getDimSize(3), 1)};
  return ConvTranspose2dOp::create(b, loc, taps, identity, kernel, stride,
                                   padding, dilation, outPad, 1);
}

Value PrimitiveBuilder::expandReduced(Value dy, ArrayRef<int64_t> shape,
                                      ArrayRef<int64_t> axes, bool keepDim) {
  if (!keepDim) {
    SmallVector<int64_t> kept(shape);
    for (int64_t axis : axes)
      kept[axis] = 1;
    dy = reshape(dy, kept);
  }
  return broadcastTo(dy, shape);
}

SmallVector<int64_t> rlx::allAxesBut(int64_t rank, int64_t axis) {
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis)
      axes.push_back(i);
  return axes;
}

PrimitiveBuilder::AttentionProbabilities
PrimitiveBuilder::attentionProbabilities(Value q, Value k, Value mask,
                                         MaskKind kind,
                                         std::optional<int64_t> window,
                                         FloatAttr scoreScale,
                                         FloatAttr softcap, int64_t headDim) {
  Type et = getElementTypeOrSelf(q.getType());
  int64_t sq = llvm::cast<ShapedType>(q.getType()).getDimSize(2);
  int64_t sk = llvm::cast<ShapedType>(k.getType()).getDimSize(2);
  AttentionProbabilities result;
  double scaleValue = scoreScale
                          ? scoreScale.getValueAsDouble()
                          : 1.0 / std::sqrt(static_cast<double>(headDim));
  result.scale = scalar(et, scaleValue);
  Value scores = mul(matmul(q, swapLastTwo(k)), result.scale);
  if (softcap) {
    // s = c tanh(s / c).
    Value c = scalar(et, softcap.getValueAsDouble());
    result.capTanh = activation(ActivationKind::Tanh, div(scores, c));
    scores = mul(result.capTanh, c);
  }
  if (mask && getElementTypeOrSelf(mask.getType()) != et)
    mask = cast(mask, et);
  double inf = std::numeric_limits<double>::infinity();
  if (kind == MaskKind::Bias) {
    scores = add(scores, mask);
  } else if (kind == MaskKind::Custom) {
    // Key j of batch b is visible iff mask[b, j] >= 0.5.
    Value visible = reshape(compare(CompareKind::Ge, mask, scalar(et, 0.5)),
                            {-1, 1, 1, sk});
    scores = where(visible, scores, scalar(et, -inf));
  } else if (kind == MaskKind::Causal || kind == MaskKind::SlidingWindow) {
    // Queries align to the end of the keys: query i sits at i + Sk - Sq
    // and sees keys j <= i + Sk - Sq (and >= that minus the window). The
    // positions are generated in IR and compared, so that compile time and
    // memory stay independent of Sq * Sk.
    Value keys = iota({1, sk}, sk);
    Value last = iota({sq, 1}, sq, sk - sq);
    Value ninf = scalar(et, -inf);
    scores = where(compare(CompareKind::Le, keys, last), scores, ninf);
    if (kind == MaskKind::SlidingWindow) {
      Value first = iota({sq, 1}, sq, sk - sq - *window);
      scores = where(compare(CompareKind::Ge, keys, first), scores, ninf);
    }
  }
  result.probs = SoftmaxOp::create(b, loc, scores, (uint64_t)3);
  return result;
}

FailureOr<Value> PrimitiveBuilder::attentionCore(Value qkv,
                                                 const AttentionCore &core) {
  auto type = llvm::cast<RankedTensorType>(qkv.getType());
  int64_t seq = type.getDimSize(1);
  if (ShapedType::isDynamic(seq))
    return failure(); // Head reshapes need the sequence length.
  // rlx.attention takes masks in the activation's float type: an i1 mask
  // becomes 1.0 (valid) / 0.0.
  Value mask = core.mask;
  Type elementType = type.getElementType();
  if (mask && llvm::cast<RankedTensorType>(mask.getType()).getElementType() !=
                  elementType)
    mask = cast(mask, elementType);
  int64_t heads = core.numHeads, dim = core.headDim;
  int64_t inner = heads * dim;
  auto toHeads = [&](Value t) {
    return transpose(reshape(t, {-1, seq, heads, dim}), {0, 2, 1, 3});
  };
  Value q = toHeads(narrow(qkv, 2, 0, inner));
  Value k = toHeads(narrow(qkv, 2, inner, inner));
  Value v = toHeads(narrow(qkv, 2, 2 * inner, inner));
  if (core.ropeCos) {
    q = rope(q, core.ropeCos, core.ropeSin, dim, dim);
    k = rope(k, core.ropeCos, core.ropeSin, dim, dim);
  }
  Value attended =
      AttentionOp::create(b, loc, q, k, v, mask, b.getI64IntegerAttr(heads),
                          b.getI64IntegerAttr(dim), core.maskKind, core.window,
                          core.scoreScale, FloatAttr());
  return reshape(transpose(attended, {0, 2, 1, 3}), {-1, seq, inner});
}

FailureOr<Value>
PrimitiveBuilder::transformerLayer(FusedTransformerLayerOp op) {
  if (op.getHidden().getType().isDynamicDim(1))
    return fail(op, "dynamic sequence length");
  MLIRContext *ctx = op.getContext();
  // The layer's mask is a [B, S] key-padding mask.
  AttentionCore core{
      static_cast<int64_t>(op.getNumHeads()),
      static_cast<int64_t>(op.getHeadDim()),
      MaskKindAttr::get(ctx, op.getMask() ? MaskKind::Custom : MaskKind::None),
      op.getMask(),
      IntegerAttr(),
      FloatAttr(),
      Value(),
      Value()};
  auto shiftOr = [&](Value beta, Value gamma) {
    return beta ? beta : zerosLike(gamma);
  };
  Value hidden = op.getHidden();
  Value qkv = linear(hidden, op.getQkvW(), op.getQkvB());
  FailureOr<Value> merged = attentionCore(qkv, core);
  if (failed(merged))
    return failure();
  Value attnOut = linear(*merged, op.getOutW(), op.getOutB());
  Value h1 =
      layerNorm(add(hidden, attnOut), op.getLn1G(),
                shiftOr(op.getLn1B(), op.getLn1G()), -1, op.getEps1Attr());
  Value ff =
      activation(op.getActivation(), linear(h1, op.getFc1W(), op.getFc1B()));
  Value ff2 = linear(ff, op.getFc2W(), op.getFc2B());
  return layerNorm(add(h1, ff2), op.getLn2G(),
                   shiftOr(op.getLn2B(), op.getLn2G()), -1, op.getEps2Attr());
}
