//===- ShapeRules.cpp - derivatives of the shape ops ----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// reshape, transpose, narrow, concat, expand, gather. Each is linear, so its
// JVP is the op itself applied to the tangent, and its VJP the adjoint
// movement of data.
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

/// An axis attribute stored as I64 (getters return it unsigned), made
/// non-negative for a rank-`rank` tensor.
static int64_t normalizedAxis(uint64_t stored, int64_t rank) {
  int64_t axis = static_cast<int64_t>(stored);
  return axis < 0 ? axis + rank : axis;
}

static LogicalResult vjpRule(ReshapeOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op.getInput(), "rlx-autodiff")))
    return failure();
  dxs[0] = p.reshape(dys[0], shapeOf(op.getInput()));
  return success();
}

static LogicalResult vjpRule(TransposeOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  ArrayRef<int64_t> perm = op.getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, axis] : llvm::enumerate(perm))
    inverse[axis] = i;
  dxs[0] = p.transpose(dys[0], inverse);
  return success();
}

/// The cotangent placed back in its window, zeros on either side.
static LogicalResult vjpRule(NarrowOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op.getInput(), "rlx-autodiff")))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
  int64_t axis = normalizedAxis(op.getAxis(), shape.size());
  int64_t start = op.getStart(), len = op.getLen();
  Type et = elementTypeOf(op.getInput());
  SmallVector<Value> pieces;
  auto zeros = [&](int64_t extent) {
    SmallVector<int64_t> zerosShape(shape);
    zerosShape[axis] = extent;
    return p.splat(zerosShape, et, 0.0);
  };
  if (start > 0)
    pieces.push_back(zeros(start));
  pieces.push_back(dys[0]);
  if (int64_t after = shape[axis] - start - len; after > 0)
    pieces.push_back(zeros(after));
  dxs[0] = pieces.size() == 1
               ? dys[0]
               : Value(ConcatOp::create(p.b, p.loc, pieces,
                                        p.b.getI64IntegerAttr(axis)));
  return success();
}

static LogicalResult vjpRule(ConcatOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op.getInputs(), "rlx-autodiff")))
    return failure();
  int64_t axis = normalizedAxis(op.getAxis(), shapeOf(op.getResult()).size());
  int64_t start = 0;
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    int64_t len = shapeOf(input)[axis];
    dxs[i] = p.narrow(dys[0], axis, start, len);
    start += len;
  }
  return success();
}

static LogicalResult vjpRule(ExpandOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  dxs[0] = p.sumToShape(dys[0], shapeOf(op.getInput()));
  return success();
}

/// Rows read several times accumulate their cotangents.
static LogicalResult vjpRule(GatherOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  dxs[0] = GatherBackwardOp::create(p.b, p.loc, op.getTable().getType(), dys[0],
                                    op.getIndices(), op.getAxisAttr());
  return success();
}

void attachShapeRules(MLIRContext *ctx) {
  attachLinearRules<ReshapeOp, TransposeOp, NarrowOp, ConcatOp, ExpandOp,
                    GatherOp>(ctx);
}

} // namespace rlx
} // namespace mlir
