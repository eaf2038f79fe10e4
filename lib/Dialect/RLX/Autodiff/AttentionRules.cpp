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

/// One `rlx.attention_backward` per input, each carrying the forward op's
/// score scale, soft cap, window and mask, so the recomputed probabilities
/// are the forward ones. The mask (a key-padding mask or an additive bias)
/// gets no gradient.
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

void attachAttentionRules(MLIRContext *ctx) {
  attachRules<AttentionOp, RopeOp>(ctx);
}

} // namespace rlx
} // namespace mlir
