//===- AttentionRules.cpp - derivatives of attention and rope -------------===//
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

/// The forward probabilities of `op` ([B, H, S, D] layout), recomputed.
static PrimitiveBuilder::AttentionProbabilities
probabilitiesOf(AttentionOp op, PrimitiveBuilder &p) {
  std::optional<int64_t> window;
  if (op.getWindow())
    window = static_cast<int64_t>(*op.getWindow());
  return p.attentionProbabilities(
      op.getQuery(), op.getKey(), op.getMask(), op.getMaskKind(), window,
      op.getScoreScaleAttr(), op.getAttnLogitSoftcapAttr(), op.getHeadDim());
}

/// One `rlx.attention_backward` per input, each carrying the forward op's
/// score scale, soft cap, window and mask, so the recomputed probabilities
/// are the forward ones. An additive bias gets the gradient of the scores it
/// is added to, `P * (dP - rowsum(P * dP))` with `dP = dy v^T`; the
/// key-padding mask of `custom` is a threshold and gets none.
static LogicalResult vjpRule(AttentionOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  const AttentionBwdWrt inputs[] = {
      AttentionBwdWrt::Query, AttentionBwdWrt::Key, AttentionBwdWrt::Value};
  for (auto [i, wrt] : llvm::enumerate(inputs))
    dxs[i] = AttentionBackwardOp::create(
        p.b, p.loc, op.getQuery(), op.getKey(), op.getValue(), dys[0],
        op.getMask(), op.getNumHeadsAttr(), op.getHeadDimAttr(),
        op.getMaskKindAttr(), op.getWindowAttr(), op.getScoreScaleAttr(),
        op.getAttnLogitSoftcapAttr(),
        AttentionBwdWrtAttr::get(p.b.getContext(), wrt));
  if (op.getMaskKind() != MaskKind::Bias)
    return success();
  if (failed(requireStaticShapes(op, {op.getQuery(), op.getKey(), op.getMask()},
                                 "rlx-autodiff")))
    return failure();
  Value dp = p.matmul(dys[0], p.swapLastTwo(op.getValue()));
  Value ds = p.softmaxJacobian(probabilitiesOf(op, p).probs, dp, 3);
  dxs[3] = p.sumToShape(ds, shapeOf(op.getMask()));
  return success();
}

/// With `P` the probabilities and `S` the (scaled, capped) scores:
/// `t_out = t_P v + P t_v`, `t_P = P * (t_S - rowsum(P * t_S))`,
/// `t_S = scale * (t_q k^T + q t_k^T) * (1 - tanh^2)` (the soft cap's
/// derivative) plus the tangent of an additive bias. The probabilities are
/// recomputed from the forward operands, as the backward ops do; the
/// rank-3 layout reaches autodiff split into heads.
static LogicalResult jvpRule(AttentionOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  if (failed(requireStaticShapes(op, {q, k}, "rlx-jvp")))
    return failure();
  if (shapeOf(q).size() != 4)
    return op.emitError() << "rlx-jvp: the rule of '" << op->getName()
                          << "' takes the [B, H, S, D] layout";
  PrimitiveBuilder::AttentionProbabilities attention = probabilitiesOf(op, p);
  Value probs = attention.probs;
  Type et = elementTypeOf(q);
  Value scores =
      sumOverTangents(p, txs.take_front(2), [&](unsigned i, Value t) {
        return i == 0 ? p.matmul(t, p.swapLastTwo(k))
                      : p.matmul(q, p.swapLastTwo(t));
      });
  if (scores) {
    scores = p.mul(scores, attention.scale);
    if (Value capTanh = attention.capTanh)
      scores = p.mul(scores, p.sub(p.scalar(et, 1.0), p.mul(capTanh, capTanh)));
  }
  if (op.getMaskKind() == MaskKind::Bias && txs.size() > 3 && txs[3])
    scores = scores ? p.add(scores, txs[3]) : txs[3];
  Value sum;
  if (scores) {
    sum = p.matmul(p.softmaxJacobian(probs, scores, 3), v);
  }
  if (txs[2]) {
    Value term = p.matmul(probs, txs[2]);
    sum = sum ? p.add(sum, term) : term;
  }
  tys[0] = sum;
  return success();
}

/// Rope is a rotation of `x`: its VJP rotates back, its JVP rotates the
/// tangent. The tables get no gradient.
static LogicalResult vjpRule(RopeOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  dxs[0] = RopeBackwardOp::create(p.b, p.loc, dys[0], op.getCos(), op.getSin(),
                                  op.getHeadDimAttr(), op.getNRotAttr());
  return success();
}

static LogicalResult jvpRule(RopeOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (txs[1] || txs[2])
    return op.emitError()
           << "rlx-jvp: the rope tables of 'rlx.rope' have no derivative rule";
  tys[0] =
      p.rope(txs[0], op.getCos(), op.getSin(), op.getHeadDim(), op.getNRot());
  return success();
}

/// `x` [B, S, H * D] with the elements of each adjacent pair (2m, 2m + 1)
/// exchanged; nullptr (after a diagnostic) for dynamic shapes.
static Value swapPairs(AxialRope2dOp op, PrimitiveBuilder &p, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  if (!type.hasStaticShape()) {
    op.emitError() << "rlx-autodiff: 'rlx.axial_rope2d' has derivative rules "
                      "for static shapes only, not "
                   << type;
    return nullptr;
  }
  ArrayRef<int64_t> shape = type.getShape();
  Value pairs = p.reshape(x, {shape[0], shape[1], shape[2] / 2, 2});
  Value swapped = ConcatOp::create(
      p.b, p.loc, ValueRange{p.narrow(pairs, 3, 1, 1), p.narrow(pairs, 3, 0, 1)},
      p.b.getI64IntegerAttr(3));
  return p.reshape(swapped, shape);
}

static Value axialRope(AxialRope2dOp op, PrimitiveBuilder &p, Value x) {
  return AxialRope2dOp::create(p.b, p.loc, x, op.getEndXAttr(),
                               op.getEndYAttr(), op.getHeadDimAttr(),
                               op.getNumHeadsAttr(), op.getRepeatFactorAttr(),
                               op.getThetaAttr());
}

/// axial_rope2d rotates each pair (x[2m], x[2m + 1]) by an angle a: y = R x.
/// The VJP rotates by -a, and R(-a) = R(a)^T = P R(a) P with P the exchange
/// of a pair's two elements, so it is the op itself between two exchanges;
/// the JVP rotates the tangent.
static LogicalResult vjpRule(AxialRope2dOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  Value swapped = swapPairs(op, p, dys[0]);
  if (!swapped)
    return failure();
  dxs[0] = swapPairs(op, p, axialRope(op, p, swapped));
  return success();
}

static LogicalResult jvpRule(AxialRope2dOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  tys[0] = axialRope(op, p, txs[0]);
  return success();
}

void attachAttentionRules(MLIRContext *ctx) {
  attachRules<AttentionOp, RopeOp, AxialRope2dOp>(ctx);
}

} // namespace rlx
} // namespace mlir
