//===- ReductionRules.cpp - derivatives of the reductions -----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// reduce (every kind), softmax, cumsum, scatter_add, top_k; sample and
// top_k's indices pass nothing.
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

/// `d result / d input` of a reduction, with the input's shape (null for a
/// sum, where it is 1; a rank-0 constant for a mean). Max and min split it
/// evenly between tied extrema. Prod is zero-safe: the derivative at an element
/// is the product of the others, so with no zero it is `y / x`, with exactly
/// one zero the product of the non-zeros at that zero (0 elsewhere), with two
/// or more zeros 0.
static Value reducePartial(ReduceOp op, PrimitiveBuilder &p) {
  Value x = op.getInput();
  ArrayRef<int64_t> shape = shapeOf(x);
  ArrayRef<int64_t> axes = op.getAxes();
  bool keepDim = op.getKeepDim();
  Type et = elementTypeOf(x);
  Value zero = p.scalar(et, 0.0), one = p.scalar(et, 1.0);
  auto sumKept = [&](Value v) {
    return p.reduce(ReduceKind::Sum, v, axes, /*keepDim=*/true);
  };
  switch (op.getKind()) {
  case ReduceKind::Sum:
    return Value();
  case ReduceKind::Mean: {
    int64_t count = 1;
    for (int64_t axis : axes)
      count *= shape[axis];
    return p.scalar(et, 1.0 / double(count));
  }
  case ReduceKind::Max:
  case ReduceKind::Min: {
    Value y = p.expandReduced(op.getResult(), shape, axes, keepDim);
    Value hits = p.cast(p.compare(CompareKind::Eq, x, y), et);
    Value ties = p.binary(BinaryKind::Max, sumKept(hits), one);
    return p.div(hits, ties);
  }
  case ReduceKind::Prod: {
    Value isZero = p.compare(CompareKind::Eq, x, zero);
    Value zeros = sumKept(p.cast(isZero, et));
    Value nonZeroProduct = p.reduce(ReduceKind::Prod, p.where(isZero, one, x),
                                    axes, /*keepDim=*/true);
    Value noZero = p.compare(CompareKind::Eq, zeros, zero);
    Value oneZero = p.compare(CompareKind::Eq, zeros, one);
    // The division's inf at a zero is never selected.
    Value atOneZero = p.where(isZero, nonZeroProduct, zero);
    Value partial =
        p.where(noZero, p.div(nonZeroProduct, x),
                p.where(oneZero, atOneZero, p.broadcastTo(zero, shape)));
    return p.broadcastTo(partial, shape);
  }
  }
  llvm_unreachable("unknown reduce kind");
}

static LogicalResult checkReduce(ReduceOp op) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  if (llvm::isa<ComplexType>(elementTypeOf(op.getInput())))
    return op.emitError() << "no derivative rule for a complex '"
                          << op->getName() << "' yet";
  return success();
}

static LogicalResult vjpRule(ReduceOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(checkReduce(op)))
    return failure();
  Value expanded = p.expandReduced(dys[0], shapeOf(op.getInput()), op.getAxes(),
                                   op.getKeepDim());
  Value partial = reducePartial(op, p);
  dxs[0] = partial ? p.mul(expanded, partial) : expanded;
  return success();
}

static LogicalResult jvpRule(ReduceOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (failed(checkReduce(op)))
    return failure();
  Value partial = reducePartial(op, p);
  Value weighted = partial ? p.mul(txs[0], partial) : txs[0];
  tys[0] = p.reduce(ReduceKind::Sum, weighted, op.getAxes(), op.getKeepDim());
  return success();
}

//===----------------------------------------------------------------------===//
// softmax, cumsum, scatter_add
//===----------------------------------------------------------------------===//

/// The softmax Jacobian `diag(y) - y y^T` is symmetric, so one formula,
/// `y * (v - sum(y * v))` over the axis, is both the VJP and the JVP.
static Value applySoftmaxJacobian(SoftmaxOp op, PrimitiveBuilder &p, Value v) {
  Value y = op.getResult();
  int64_t rank = shapeOf(y).size();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  return p.softmaxJacobian(y, v, axis);
}

static LogicalResult vjpRule(SoftmaxOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  dxs[0] = applySoftmaxJacobian(op, p, dys[0]);
  return success();
}

static LogicalResult jvpRule(SoftmaxOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  tys[0] = applySoftmaxJacobian(op, p, txs[0]);
  return success();
}

static LogicalResult vjpRule(CumsumOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  dxs[0] = CumsumBackwardOp::create(p.b, p.loc, dys[0], op.getAxisAttr(),
                                    op.getExclusiveAttr());
  return success();
}

/// `y[indices[i], :] += updates[i, :]`: each update row reads its row of
/// the cotangent back.
static LogicalResult vjpRule(ScatterAddOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  dxs[0] = GatherOp::create(p.b, p.loc, dys[0], op.getIndices(),
                            p.b.getI64IntegerAttr(0));
  return success();
}

/// `onehot[..., j, n] = (indices[..., j] == n)` in `et`: where each of the
/// `k` values of a top_k row came from among its `N` elements.
static Value topKSelection(TopKOp op, PrimitiveBuilder &p) {
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
  int64_t n = shape.back();
  SmallVector<int64_t> column(shapeOf(op.getIndices()));
  column.push_back(1);
  Value hits = p.compare(CompareKind::Eq, p.reshape(op.getIndices(), column),
                         p.iota({n}, n));
  return p.cast(hits, elementTypeOf(op.getInput()));
}

/// Each value's cotangent goes back to the element it was taken from; the
/// indices are integers and pass nothing.
static LogicalResult vjpRule(TopKOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (!dys[0])
    return success();
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  int64_t rank = shapeOf(op.getInput()).size();
  SmallVector<int64_t> column(shapeOf(dys[0]));
  column.push_back(1);
  Value spread = p.mul(topKSelection(op, p), p.reshape(dys[0], column));
  dxs[0] = p.reduce(ReduceKind::Sum, spread, {rank - 1}, /*keepDim=*/false);
  return success();
}

static LogicalResult jvpRule(TopKOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-jvp")))
    return failure();
  int64_t rank = shapeOf(op.getInput()).size();
  SmallVector<int64_t> row(shapeOf(txs[0]));
  row.insert(row.end() - 1, 1);
  Value picked = p.mul(topKSelection(op, p), p.reshape(txs[0], row));
  tys[0] = p.reduce(ReduceKind::Sum, picked, {rank}, /*keepDim=*/false);
  return success();
}

void attachReductionRules(MLIRContext *ctx) {
  attachRules<ReduceOp, SoftmaxOp, TopKOp>(ctx);
  attachLinearRules<CumsumOp, ScatterAddOp>(ctx);
  attachNoDerivatives<SampleOp>(ctx);
}

} // namespace rlx
} // namespace mlir
