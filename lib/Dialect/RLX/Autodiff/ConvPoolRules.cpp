//===- ConvPoolRules.cpp - derivatives of convolution and pooling ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

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

/// Max (min) pooling routes each window's cotangent to its first maximum
/// (minimum) with the dedicated kernel. Sum and mean pooling are linear: their
/// VJP spreads each window's cotangent evenly over it (padding included, as the
/// forward divides by the full window), which is the transposed depthwise
/// convolution with a constant kernel.
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
  case ReduceKind::Prod:
    break;
  }
  return op.emitError() << "rlx-autodiff: no gradient rule for '"
                        << op->getName() << "' of kind "
                        << stringifyReduceKind(op.getKind()) << " yet";
}

static LogicalResult jvpRule(PoolOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (op.getKind() != ReduceKind::Sum && op.getKind() != ReduceKind::Mean)
    return op.emitError() << "rlx-jvp: no forward-mode rule for '"
                          << op->getName() << "' of kind "
                          << stringifyReduceKind(op.getKind()) << " yet";
  tys[0] = applyToTangents(op, p, txs, {0});
  return success();
}

void attachConvPoolRules(MLIRContext *ctx) { attachRules<ConvOp, PoolOp>(ctx); }

} // namespace rlx
} // namespace mlir
