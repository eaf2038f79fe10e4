//===- ConvPoolRules.cpp - derivatives of convolution and pooling ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

#include <limits>

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

/// `dx` by the transposed convolution, `dw` by the weight-gradient kernel,
/// both with the forward geometry.
static LogicalResult vjpRule(ConvOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  Value x = op.getInput(), w = op.getWeight(), dy = dys[0];
  dxs[0] = Conv2dBackwardInputOp::create(
      p.b, p.loc, x.getType(), dy, w, op.getKernelSizeAttr(),
      op.getStrideAttr(), op.getPaddingAttr(), op.getDilationAttr(),
      op.getGroupsAttr());
  dxs[1] = Conv2dBackwardWeightOp::create(
      p.b, p.loc, x, dy, op.getKernelSizeAttr(), op.getStrideAttr(),
      op.getPaddingAttr(), op.getDilationAttr(), op.getGroupsAttr());
  return success();
}

/// Bilinear: `conv(t_x, w) + conv(x, t_w)`.
static LogicalResult jvpRule(ConvOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  tys[0] = sumOverTangents(p, txs, [&](unsigned i, Value) {
    return applyToTangents(op, p, txs, {i});
  });
  return success();
}

/// Prod pooling as `reduce prod` over the taps of each window (padding taps
/// hold 1), whose zero-safe derivative rules the pool's rules reuse.
static DifferentiableOpInterface windowProduct(PoolOp op, PrimitiveBuilder &p) {
  Value windows = p.poolWindows(op.getInput(), op.getKernelSize(),
                                op.getStride(), op.getPadding(), 1.0);
  return llvm::cast<DifferentiableOpInterface>(
      p.reduce(ReduceKind::Prod, windows, {2}, /*keepDim=*/false)
          .getDefiningOp());
}

/// Max (min) pooling routes each window's cotangent to its first maximum
/// (minimum) with the dedicated kernel. Sum and mean pooling are linear: their
/// VJP spreads each window's cotangent evenly over it (padding included, as the
/// forward divides by the full window), which is the transposed depthwise
/// convolution with a constant kernel. Prod pooling is `reduce prod` over the
/// windows, scattered back by col2im.
static LogicalResult vjpRule(PoolOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  Value x = op.getInput(), dy = dys[0];
  ArrayRef<int64_t> kernel = op.getKernelSize();
  switch (op.getKind()) {
  case ReduceKind::Max:
    dxs[0] =
        MaxPool2dBackwardOp::create(p.b, p.loc, x, dy, op.getKernelSizeAttr(),
                                    op.getStrideAttr(), op.getPaddingAttr());
    return success();
  case ReduceKind::Sum:
  case ReduceKind::Mean: {
    if (failed(requireStaticShapes(op, x, "rlx-autodiff")))
      return failure();
    int64_t channels = shapeOf(x)[1];
    double weight = op.getKind() == ReduceKind::Sum
                        ? 1.0
                        : 1.0 / double(kernel[0] * kernel[1]);
    Value spread =
        p.splat({channels, 1, kernel[0], kernel[1]}, elementTypeOf(x), weight);
    dxs[0] = Conv2dBackwardInputOp::create(
        p.b, p.loc, x.getType(), dy, spread, op.getKernelSizeAttr(),
        op.getStrideAttr(), op.getPaddingAttr(),
        p.b.getDenseI64ArrayAttr({1, 1}), p.b.getI64IntegerAttr(channels));
    return success();
  }
  case ReduceKind::Min:
    // min pool(x) = -max pool(-x), and -x pads with -inf where x pads with
    // +inf: each window's cotangent goes to its first minimum.
    dxs[0] = MaxPool2dBackwardOp::create(
        p.b, p.loc, p.activation(ActivationKind::Neg, x), dy,
        op.getKernelSizeAttr(), op.getStrideAttr(), op.getPaddingAttr());
    return success();
  case ReduceKind::Prod: {
    if (failed(requireStaticShapes(op, {x, dy}, "rlx-autodiff")))
      return failure();
    // The windows' cotangents by the zero-safe rule of `reduce prod`, then
    // scattered back to the taps' input positions.
    SmallVector<Value> dcols;
    auto prod = windowProduct(op, p);
    if (failed(prod.buildVJP(p.b, p.reshape(dy, shapeOf(prod->getResult(0))),
                             dcols)))
      return failure();
    ArrayRef<int64_t> xs = shapeOf(x), ys = shapeOf(dy);
    Value taps = p.reshape(p.transpose(dcols[0], {0, 2, 1}),
                           {-1, kernel[0] * kernel[1], ys[2], ys[3]});
    dxs[0] = p.reshape(p.col2im(taps, xs[2], xs[3], kernel, op.getStride(),
                                op.getPadding(), {1, 1}),
                       xs);
    return success();
  }
  }
  llvm_unreachable("unknown reduce kind");
}

/// Sum and mean pooling are linear. Max (min) pooling takes the tangent at
/// each window's first maximum (minimum), the element its VJP routes the
/// cotangent to; prod pooling the windows' tangents by the zero-safe rule of
/// `reduce prod`.
static LogicalResult jvpRule(PoolOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  Value x = op.getInput(), t = txs[0];
  ReduceKind kind = op.getKind();
  if (kind == ReduceKind::Sum || kind == ReduceKind::Mean) {
    tys[0] = applyToTangents(op, p, txs, {0});
    return success();
  }
  if (failed(requireStaticShapes(op, {x, op.getResult()}, "rlx-jvp")))
    return failure();
  ArrayRef<int64_t> k = op.getKernelSize(), s = op.getStride(),
                    pad = op.getPadding();
  // The tangent's taps; those in the padding carry none.
  Value tangentTaps = p.poolWindows(t, k, s, pad, 0.0);
  Value ty;
  if (kind == ReduceKind::Prod) {
    auto prod = windowProduct(op, p);
    SmallVector<Value> tangents;
    if (failed(prod.buildJVP(p.b, tangentTaps, tangents)))
      return failure();
    ty = tangents[0];
  } else {
    // min pool(x) = -max pool(-x): the first minimum of x is the first
    // maximum of -x (its padding, +inf, becomes -inf).
    Value extremes =
        kind == ReduceKind::Max ? x : p.activation(ActivationKind::Neg, x);
    Value first = p.firstMaximumTaps(p.poolWindows(
        extremes, k, s, pad, -std::numeric_limits<double>::infinity()));
    ty = p.reduce(ReduceKind::Sum,
                  p.where(first, tangentTaps, p.scalar(elementTypeOf(x), 0.0)),
                  {2}, /*keepDim=*/false);
  }
  tys[0] = p.reshape(ty, shapeOf(op.getResult()));
  return success();
}

/// im2col is linear; its adjoint, col2im, scatters each row's taps back to
/// the input positions they read, adding up where windows overlap.
static LogicalResult vjpRule(Im2ColOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  Value x = op.getInput();
  if (failed(requireStaticShapes(op, {x, dys[0]}, "rlx-autodiff")))
    return failure();
  ArrayRef<int64_t> xs = shapeOf(x), k = op.getKernelSize(), s = op.getStride(),
                    pad = op.getPadding(), d = op.getDilation();
  auto extent = [&](int i) {
    return (xs[2 + i] + 2 * pad[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
  };
  int64_t ho = extent(0), wo = extent(1), taps = k[0] * k[1];
  // Rows (n, oh, ow), columns (c, kh, kw) -> planes (n, c) of taps.
  Value cols = p.reshape(dys[0], {xs[0], ho, wo, xs[1], taps});
  cols = p.reshape(p.transpose(cols, {0, 3, 4, 1, 2}), {-1, taps, ho, wo});
  dxs[0] = p.reshape(p.col2im(cols, xs[2], xs[3], k, s, pad, d), xs);
  return success();
}

/// conv_transpose2d is the adjoint of the convolution with its geometry and
/// weight: `dx` is that convolution of `dy`, `dw` the weight gradient of
/// that convolution with the roles of input and output swapped.
static LogicalResult vjpRule(ConvTranspose2dOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  Value x = op.getInput(), w = op.getWeight(), dy = dys[0];
  if (failed(requireStaticShapes(op, {x, dy}, "rlx-autodiff")))
    return failure();
  ArrayRef<int64_t> xs = shapeOf(x);
  Value dx = ConvOp::create(p.b, p.loc, dy, w, op.getKernelSizeAttr(),
                            op.getStrideAttr(), op.getPaddingAttr(),
                            op.getDilationAttr(), op.getGroupsAttr());
  // An output padding of at least the stride (allowed below the dilation)
  // adds rows no input position reaches: the convolution then reads past
  // the input, and those extra rows are dropped (dx) or read as zeros (dw).
  ArrayRef<int64_t> covered = shapeOf(dx);
  Value input = x;
  for (int axis : {2, 3}) {
    if (covered[axis] == xs[axis])
      continue;
    dx = p.narrow(dx, axis, 0, xs[axis]);
    SmallVector<int64_t> rest = llvm::to_vector(shapeOf(input));
    rest[axis] = covered[axis] - xs[axis];
    Value zeros = p.splat(rest, elementTypeOf(x), 0.0);
    input = ConcatOp::create(p.b, p.loc, ValueRange{input, zeros},
                             p.b.getI64IntegerAttr(axis));
  }
  dxs[0] = dx;
  dxs[1] = Conv2dBackwardWeightOp::create(
      p.b, p.loc, dy, input, op.getKernelSizeAttr(), op.getStrideAttr(),
      op.getPaddingAttr(), op.getDilationAttr(), op.getGroupsAttr());
  return success();
}

/// Bilinear: `conv_transpose2d(t_x, w) + conv_transpose2d(x, t_w)`.
static LogicalResult jvpRule(ConvTranspose2dOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  tys[0] = sumOverTangents(p, txs, [&](unsigned i, Value) {
    return applyToTangents(op, p, txs, {i});
  });
  return success();
}

void attachConvPoolRules(MLIRContext *ctx) {
  attachRules<ConvOp, PoolOp, ConvTranspose2dOp>(ctx);
  attachLinearRules<Im2ColOp>(ctx);
}

} // namespace rlx
} // namespace mlir
