//===- SSMDecompositions.cpp - the state-space scans as rlx.scan ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.selective_scan and rlx.gated_delta_net as an rlx.scan over the
// sequence whose carry is the recurrent state, saving its trajectory, and
// the per-token readout of the saved states after it. The scan is the form
// the derivative rules differentiate (its body recursively); a target that
// runs the fused op keeps it.
//
//===----------------------------------------------------------------------===//

#include "UnfusePatterns.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

#include "mlir/IR/IRMapping.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

namespace {

bool allStatic(ValueRange values) {
  return llvm::all_of(values, [](Value v) {
    return cast<RankedTensorType>(v.getType()).hasStaticShape();
  });
}

/// `[b, s, ...]` as the per-step stack `[s, b, ...]`.
Value sequenceMajor(PrimitiveBuilder &p, Value v) {
  SmallVector<int64_t> perm = {1, 0};
  for (int64_t i = 2, e = cast<RankedTensorType>(v.getType()).getRank(); i < e;
       ++i)
    perm.push_back(i);
  return p.transpose(v, perm);
}

/// A `save_trajectory` scan of `length` steps from `init` over the per-step
/// stacks `xs` (and the broadcast `bcasts`), whose body `step(builder,
/// carry, bcasts..., x_t...)` builds the next carry.
Value trajectoryScan(PrimitiveBuilder &p, Value init, ValueRange bcasts,
                     ValueRange xs, int64_t length,
                     function_ref<Value(PrimitiveBuilder &, ValueRange)> step) {
  auto carry = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> rows = {length};
  llvm::append_range(rows, carry.getShape());
  auto scan = ScanOp::create(p.b, p.loc, carry.clone(rows), init, bcasts, xs,
                             p.b.getI64IntegerAttr(length), p.b.getUnitAttr(),
                             IntegerAttr());
  OpBuilder::InsertionGuard guard(p.b);
  Block *body = p.b.createBlock(&scan.getBody());
  body->addArgument(carry, p.loc);
  for (Value v : bcasts)
    body->addArgument(v.getType(), p.loc);
  for (Value v : xs) {
    auto type = cast<RankedTensorType>(v.getType());
    body->addArgument(type.clone(type.getShape().drop_front()), p.loc);
  }
  PrimitiveBuilder q(p.b, p.loc);
  YieldOp::create(p.b, p.loc, step(q, body->getArguments()));
  return scan;
}

/// rlx.selective_scan -> a scan of the state h [b, hidden, n] over the
/// sequence: h = exp(delta_t a) h + (delta_t x_t) b_t (per channel,
/// broadcast over the state), then y[b, t, j] = sum_i c[b, t, i] h_t[b, j, i]
/// from the saved states.
struct SelectiveScanToScan : OpRewritePattern<SelectiveScanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectiveScanOp op,
                                PatternRewriter &rewriter) const override {
    if (!allStatic(op->getOperands()))
      return rewriter.notifyMatchFailure(op, "the scan needs static shapes");
    ArrayRef<int64_t> xs = op.getX().getType().getShape();
    int64_t batch = xs[0], length = xs[1], hidden = xs[2];
    int64_t n = op.getStateSize();
    Type et = op.getX().getType().getElementType();
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    Value states = trajectoryScan(
        p, p.splat({batch, hidden, n}, et, 0.0), op.getA(),
        {sequenceMajor(p, op.getDelta()), sequenceMajor(p, op.getX()),
         sequenceMajor(p, op.getB())},
        length, [&](PrimitiveBuilder &q, ValueRange args) {
          Value h = args[0], a = args[1], delta = args[2], x = args[3],
                b = args[4];
          Value decay =
              q.activation(ActivationKind::Exp,
                           q.mul(q.reshape(delta, {batch, hidden, 1}), a));
          Value input = q.mul(q.reshape(q.mul(delta, x), {batch, hidden, 1}),
                              q.reshape(b, {batch, 1, n}));
          return q.add(q.mul(decay, h), input);
        });
    // [s, b, hidden, n] -> [b, s, hidden, n], contracted with c over n.
    Value h = p.transpose(states, {1, 0, 2, 3});
    Value c = p.reshape(op.getC(), {batch, length, 1, n});
    rewriter.replaceOp(op, p.reduce(ReduceKind::Sum, p.mul(h, c), {3},
                                    /*keepDim=*/false));
    return success();
  }
};

/// rlx.gated_delta_net -> a scan of the state S [b, heads, n, n] over the
/// sequence: S = exp(g_t) S, S += k_t (beta_t (v_t - k_t^T S)), then
/// o_t = q_t^T S_t / sqrt(n) from the saved states; the final state is the
/// last one.
struct GatedDeltaNetToScan : OpRewritePattern<GatedDeltaNetOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatedDeltaNetOp op,
                                PatternRewriter &rewriter) const override {
    if (!allStatic(op->getOperands()))
      return rewriter.notifyMatchFailure(op, "the scan needs static shapes");
    ArrayRef<int64_t> qs = op.getQ().getType().getShape();
    int64_t batch = qs[0], length = qs[1], heads = qs[2], n = qs[3];
    Type et = op.getQ().getType().getElementType();
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    Value init =
        op.getState() ? op.getState() : p.splat({batch, heads, n, n}, et, 0.0);
    Value states = trajectoryScan(
        p, init, {},
        {sequenceMajor(p, op.getK()), sequenceMajor(p, op.getV()),
         sequenceMajor(p, op.getG()), sequenceMajor(p, op.getBeta())},
        length, [&](PrimitiveBuilder &q, ValueRange args) {
          Value s = args[0], k = args[1], v = args[2], g = args[3],
                beta = args[4];
          Value gated = q.mul(s, q.reshape(q.activation(ActivationKind::Exp, g),
                                           {batch, heads, 1, 1}));
          Value read =
              q.reshape(q.matmul(q.reshape(k, {batch, heads, 1, n}), gated),
                        {batch, heads, n});
          Value delta =
              q.mul(q.sub(v, read), q.reshape(beta, {batch, heads, 1}));
          return q.add(gated, q.mul(q.reshape(k, {batch, heads, n, 1}),
                                    q.reshape(delta, {batch, heads, 1, n})));
        });
    // o[t] = q_t^T S_t / sqrt(n): [s, b, heads, 1, n] @ [s, b, heads, n, n].
    Value q =
        p.reshape(sequenceMajor(p, op.getQ()), {length, batch, heads, 1, n});
    Value o = p.reshape(p.matmul(q, states), {length, batch, heads, n});
    o = p.mul(p.transpose(o, {1, 0, 2, 3}),
              p.scalar(et, 1.0 / std::sqrt(double(n))));
    SmallVector<Value> results = {o};
    if (op.getFinalState())
      results.push_back(
          p.reshape(p.narrow(states, 0, length - 1, 1), {batch, heads, n, n}));
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void rlx::populateSSMDecompositions(RewritePatternSet &patterns,
                                    const UnfusePolicy &policy) {
  MLIRContext *ctx = patterns.getContext();
  if (policy.wants(Decomposition::SelectiveScanToScan))
    patterns.add<SelectiveScanToScan>(ctx);
  if (policy.wants(Decomposition::GatedDeltaNetToScan))
    patterns.add<GatedDeltaNetToScan>(ctx);
}
