//===- BackwardRules.cpp - derivatives of the backward-family ops ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The fused softmax cross-entropy loss, and the backward kernels whose own
// derivatives are written so far (for second derivatives).
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

/// `(softmax(logits) - onehot(labels)) * d_loss` per row; labels get none.
static LogicalResult vjpRule(SoftmaxCrossEntropyWithLogitsOp op,
                             PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  dxs[0] = SoftmaxCrossEntropyBackwardOp::create(p.b, p.loc, op.getLogits(),
                                                 op.getLabels(), dys[0]);
  return success();
}

/// `t_loss[n] = sum_c (softmax - onehot)[n, c] * t[n, c]`, composed from
/// softmax and a one-hot compare (the CPU pipeline miscompiles a row sum of
/// a product with `softmax_cross_entropy_backward` feeding a reduction).
static LogicalResult jvpRule(SoftmaxCrossEntropyWithLogitsOp op,
                             PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  Value logits = op.getLogits(), labels = op.getLabels();
  if (failed(requireStaticShapes(op, logits, "rlx-jvp")))
    return failure();
  Type et = elementTypeOf(logits);
  int64_t classes = shapeOf(logits)[1];
  if (elementTypeOf(labels) != p.b.getI64Type())
    labels = p.cast(labels, p.b.getI64Type());
  Value onehot = p.compare(CompareKind::Eq, p.iota({1, classes}, classes),
                           p.reshape(labels, {-1, 1}));
  Value probs = SoftmaxOp::create(p.b, p.loc, logits, (uint64_t)1);
  Value gradient = p.sub(probs, p.cast(onehot, et));
  tys[0] = p.reduce(ReduceKind::Sum, p.mul(gradient, txs[0]), {1},
                    /*keepDim=*/false);
  return success();
}

/// `relu_backward(x, dy)` is linear in `dy` and piecewise constant in `x`:
/// `dy` gets `relu_backward(x, g)`, `x` nothing (almost everywhere).
static LogicalResult vjpRule(ReluBackwardOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
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
  attachRules<SoftmaxCrossEntropyWithLogitsOp, ReluBackwardOp>(ctx);
}

} // namespace rlx
} // namespace mlir
