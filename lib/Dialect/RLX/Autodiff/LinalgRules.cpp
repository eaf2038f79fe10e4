//===- LinalgRules.cpp - derivatives of the matrix products ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// matmul (with broadcast batch dims), dense_solve and batched_dense_solve.
// dot_general reaches autodiff as the matmuls rlx-unfuse{target=autodiff} makes
// of it.
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

/// `x` of a solve with one right-hand side (`x` has one dim less than `A`) as
/// a column `[..., N, 1]` and as a row `[..., 1, N]`; a matrix `x` itself and
/// transposed.
static std::pair<Value, Value> columnAndRow(PrimitiveBuilder &p, Value a,
                                            Value x) {
  ArrayRef<int64_t> shape = shapeOf(x);
  if (shape.size() == shapeOf(a).size())
    return {x, p.swapLastTwo(x)};
  SmallVector<int64_t> column(shape), row(shape);
  column.push_back(1);
  row.insert(row.end() - 1, 1);
  return {p.reshape(x, column), p.reshape(x, row)};
}

/// `x = solve(A, b)` (or a batch of solves): `db = solve(A^T, dx)`,
/// `dA = -db x^T` (a vector `b` as one column).
template <typename SolveOp>
static LogicalResult solveVJP(SolveOp op, PrimitiveBuilder &p, ValueRange dys,
                              MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  Value a = op.getA(), x = op.getResult();
  Value db = SolveOp::create(p.b, p.loc, p.swapLastTwo(a), dys[0]);
  dxs[1] = db;
  Value column = columnAndRow(p, a, db).first;
  Value row = columnAndRow(p, a, x).second;
  dxs[0] = p.activation(ActivationKind::Neg, p.matmul(column, row));
  return success();
}

/// `dx = solve(A, tb - tA x)`.
template <typename SolveOp>
static LogicalResult solveJVP(SolveOp op, PrimitiveBuilder &p, ValueRange txs,
                              MutableArrayRef<Value> tys) {
  Value a = op.getA(), x = op.getResult();
  Value rhs = txs[1];
  if (txs[0]) {
    Value ax =
        p.reshape(p.matmul(txs[0], columnAndRow(p, a, x).first), shapeOf(x));
    ax = p.activation(ActivationKind::Neg, ax);
    rhs = rhs ? p.add(rhs, ax) : ax;
  }
  tys[0] = SolveOp::create(p.b, p.loc, a, rhs);
  return success();
}

static LogicalResult vjpRule(DenseSolveOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  return solveVJP(op, p, dys, dxs);
}
static LogicalResult jvpRule(DenseSolveOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  return solveJVP(op, p, txs, tys);
}
static LogicalResult vjpRule(BatchedDenseSolveOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  return solveVJP(op, p, dys, dxs);
}
static LogicalResult jvpRule(BatchedDenseSolveOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  return solveJVP(op, p, txs, tys);
}

void attachLinalgRules(MLIRContext *ctx) {
  attachRules<MatMulOp, DenseSolveOp, BatchedDenseSolveOp>(ctx);
}

} // namespace rlx
} // namespace mlir
