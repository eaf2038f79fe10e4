//===- LinalgRules.cpp - derivatives of the matrix products ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// matmul (with broadcast batch dims) and dense_solve. dot_general reaches
// autodiff as the matmuls rlx-unfuse{target=autodiff} makes of it.
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

/// `[..., M, K] x [..., K, N]`: `da = dy b^T`, `db = a^T dy`, each summed
/// over the batch dims its operand was broadcast along. A weight matrix `b`
/// shared by every batch (a linear layer on `[B, S, K]` activations) gets
/// its gradient as one `[K, B*S] x [B*S, N]` product: the batch sum is the
/// GEMM's own reduction, not a batch of products summed afterwards.
static LogicalResult vjpRule(MatMulOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  Value a = op.getLhs(), b = op.getRhs(), dy = dys[0];
  ArrayRef<int64_t> aShape = shapeOf(a), bShape = shapeOf(b);
  dxs[0] = p.sumToShape(p.matmul(dy, p.swapLastTwo(b)), aShape);
  if (bShape.size() == 2 && aShape.size() > 2) {
    Value rows = p.reshape(a, {-1, aShape.back()});
    Value dRows = p.reshape(dy, {-1, bShape.back()});
    dxs[1] = p.matmul(p.swapLastTwo(rows), dRows);
  } else {
    dxs[1] = p.sumToShape(p.matmul(p.swapLastTwo(a), dy), bShape);
  }
  return success();
}

static LogicalResult jvpRule(MatMulOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  Value sum = sumOverTangents(p, txs, [&](unsigned i, Value t) {
    return i == 0 ? p.matmul(t, op.getRhs()) : p.matmul(op.getLhs(), t);
  });
  tys[0] = p.broadcastTo(sum, shapeOf(op.getResult()));
  return success();
}

/// `x = solve(A, b)`: `db = solve(A^T, dx)`, `dA = -db x^T` (a vector `b`
/// as one column).
static LogicalResult vjpRule(DenseSolveOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  Value a = op.getA(), x = op.getResult();
  Value db = DenseSolveOp::create(p.b, p.loc, p.swapLastTwo(a), dys[0]);
  dxs[1] = db;
  bool vector = shapeOf(x).size() == 1;
  Value column = vector ? p.reshape(db, {-1, 1}) : db;
  Value row = vector ? p.reshape(x, {1, -1}) : p.swapLastTwo(x);
  dxs[0] = p.activation(ActivationKind::Neg, p.matmul(column, row));
  return success();
}

/// `dx = solve(A, tb - tA x)`.
static LogicalResult jvpRule(DenseSolveOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  Value x = op.getResult();
  Value rhs = txs[1];
  if (txs[0]) {
    bool vector = shapeOf(x).size() == 1;
    Value ax = p.matmul(txs[0], vector ? p.reshape(x, {-1, 1}) : x);
    if (vector)
      ax = p.reshape(ax, shapeOf(x));
    ax = p.activation(ActivationKind::Neg, ax);
    rhs = rhs ? p.add(rhs, ax) : ax;
  }
  tys[0] = DenseSolveOp::create(p.b, p.loc, op.getA(), rhs);
  return success();
}

void attachLinalgRules(MLIRContext *ctx) {
  attachRules<MatMulOp, DenseSolveOp>(ctx);
}

} // namespace rlx
} // namespace mlir
