//===- BackwardRules.cpp - derivatives of the backward-family ops ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The fused softmax cross-entropy loss, and the backward kernels whose own
// derivatives are written so far: what second derivatives (forward over
// reverse, reverse over reverse) of the MLP-shaped graphs reach.
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

/// What the cross-entropy rules share for `[N, C]` logits: the softmax,
/// `r = (softmax(logits) - onehot(labels)) * valid` and `valid` (`[N, 1]`, 1
/// where the label is in `[0, C)`: an out-of-range label ignores its row,
/// whose loss and derivatives are 0). Composed from primitives (the CPU
/// pipeline miscompiles a row sum of a product fed by
/// `softmax_cross_entropy_backward`).
struct CrossEntropyTerms {
  Value probs, r, valid;
};
static CrossEntropyTerms crossEntropyTerms(PrimitiveBuilder &p, Value logits,
                                           Value labels) {
  int64_t classes = shapeOf(logits)[1];
  Type et = elementTypeOf(logits);
  if (elementTypeOf(labels) != p.b.getI64Type())
    labels = p.cast(labels, p.b.getI64Type());
  Value column = p.reshape(labels, {-1, 1});
  Value onehot =
      p.compare(CompareKind::Eq, p.iota({1, classes}, classes), column);
  Value valid = p.labelsInRange(column, classes, et);
  Value probs = SoftmaxOp::create(p.b, p.loc, logits, (uint64_t)1);
  return {probs, p.mul(p.sub(probs, p.cast(onehot, et)), valid), valid};
}

/// `(softmax(logits) - onehot(labels)) * d_loss` per row; labels get none.
static LogicalResult vjpRule(SoftmaxCrossEntropyWithLogitsOp op,
                             PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  dxs[0] = SoftmaxCrossEntropyBackwardOp::create(p.b, p.loc, op.getLogits(),
                                                 op.getLabels(), dys[0]);
  return success();
}

/// `t_loss[n] = sum_c (softmax - onehot)[n, c] * t[n, c]`.
static LogicalResult jvpRule(SoftmaxCrossEntropyWithLogitsOp op,
                             PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (failed(requireStaticShapes(op, op.getLogits(), "rlx-jvp")))
    return failure();
  Value gradient = crossEntropyTerms(p, op.getLogits(), op.getLabels()).r;
  tys[0] = p.reduce(ReduceKind::Sum, p.mul(gradient, txs[0]), {1},
                    /*keepDim=*/false);
  return success();
}

/// `out = r * d_loss` per row, `r = softmax(z) - onehot`: `d_loss` gets the
/// row sums of `g * r`, the logits the softmax Jacobian (symmetric) applied
/// to `g * d_loss`.
static LogicalResult vjpRule(SoftmaxCrossEntropyBackwardOp op,
                             PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op.getLogits(), "rlx-autodiff")))
    return failure();
  CrossEntropyTerms terms =
      crossEntropyTerms(p, op.getLogits(), op.getLabels());
  Value g = dys[0];
  dxs[2] = p.reduce(ReduceKind::Sum, p.mul(g, terms.r), {1}, /*keepDim=*/false);
  Value dLoss = p.mul(p.reshape(op.getDLoss(), {-1, 1}), terms.valid);
  dxs[0] = p.softmaxJacobian(terms.probs, p.mul(g, dLoss), 1);
  return success();
}

static LogicalResult jvpRule(SoftmaxCrossEntropyBackwardOp op,
                             PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (failed(requireStaticShapes(op, op.getLogits(), "rlx-jvp")))
    return failure();
  CrossEntropyTerms terms =
      crossEntropyTerms(p, op.getLogits(), op.getLabels());
  Value sum = sumOverTangents(p, txs, [&](unsigned i, Value t) -> Value {
    if (i == 2)
      return p.mul(terms.r, p.reshape(t, {-1, 1}));
    return p.mul(p.softmaxJacobian(terms.probs, t, 1),
                 p.mul(p.reshape(op.getDLoss(), {-1, 1}), terms.valid));
  });
  tys[0] = sum;
  return success();
}

/// `activation_backward(x, dy) = f'(x) dy`: `dy` gets `f'(x) g`, `x` gets
/// `f''(x) dy g` (zeros where `f''` is 0: the gradient reaches `x`).
static LogicalResult vjpRule(ActivationBackwardOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  Value x = op.getX(), g = dys[0];
  dxs[1] = ActivationBackwardOp::create(p.b, p.loc, op.getKind(), x, g);
  Value second = p.activationSecondDerivative(op.getKind(), x);
  dxs[0] = second ? p.mul(p.mul(second, op.getDy()), g) : p.zerosLike(x);
  return success();
}

static LogicalResult jvpRule(ActivationBackwardOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  Value x = op.getX();
  Value second =
      txs[0] ? p.activationSecondDerivative(op.getKind(), x) : Value();
  tys[0] = sumOverTangents(p, txs, [&](unsigned i, Value t) -> Value {
    if (i == 1)
      return ActivationBackwardOp::create(p.b, p.loc, op.getKind(), x, t);
    return second ? p.mul(p.mul(second, op.getDy()), t) : p.zerosLike(x);
  });
  return success();
}

/// `relu_backward(x, dy)` is linear in `dy` and piecewise constant in `x`:
/// `dy` gets `relu_backward(x, g)`, `x` zeros (almost everywhere).
static LogicalResult vjpRule(ReluBackwardOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  dxs[0] = p.zerosLike(op.getX());
  dxs[1] = ReluBackwardOp::create(p.b, p.loc, op.getX(), dys[0]);
  return success();
}

static LogicalResult jvpRule(ReluBackwardOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  if (txs[1])
    tys[0] = ReluBackwardOp::create(p.b, p.loc, op.getX(), txs[1]);
  return success();
}

void attachBackwardRules(MLIRContext *ctx) {
  attachRules<SoftmaxCrossEntropyWithLogitsOp, SoftmaxCrossEntropyBackwardOp,
              ActivationBackwardOp, ReluBackwardOp>(ctx);
}

} // namespace rlx
} // namespace mlir
