//===- PrimitiveBuilder.h - emit primitive rlx ops in a rewrite -*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Short builders for the primitive ops decompositions emit, at one location,
// with result types inferred. Decompositions check shapes before emitting,
// so these do not verify.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_TRANSFORMS_UNFUSE_PRIMITIVEBUILDER_H
#define RLX_LIB_TRANSFORMS_UNFUSE_PRIMITIVEBUILDER_H

#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace rlx {

class PrimitiveBuilder {
public:
  PrimitiveBuilder(RewriterBase &rewriter, Location loc)
      : b(rewriter), loc(loc) {}

  Value matmul(Value lhs, Value rhs) {
    return MatMulOp::create(b, loc, lhs, rhs);
  }
  Value binary(BinaryKind kind, Value lhs, Value rhs) {
    return BinaryOp::create(b, loc, kind, lhs, rhs);
  }
  Value add(Value lhs, Value rhs) { return binary(BinaryKind::Add, lhs, rhs); }
  Value mul(Value lhs, Value rhs) { return binary(BinaryKind::Mul, lhs, rhs); }
  /// `x @ w (+ bias)`, bias broadcast over rows.
  Value linear(Value x, Value w, Value bias) {
    Value y = matmul(x, w);
    return bias ? add(y, bias) : y;
  }
  Value activation(ActivationKind kind, Value x) {
    return ActivationOp::create(b, loc, kind, x);
  }
  Value cast(Value x, Type elementType) {
    return CastOp::create(b, loc, x, elementType);
  }
  Value narrow(Value x, int64_t axis, int64_t start, int64_t length) {
    return NarrowOp::create(b, loc, x, b.getI64IntegerAttr(axis),
                            b.getI64IntegerAttr(start),
                            b.getI64IntegerAttr(length));
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    return ReshapeOp::create(b, loc, x, shape);
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    return TransposeOp::create(b, loc, x, perm);
  }
  Value layerNorm(Value x, Value gamma, Value beta, int64_t axis,
                  FloatAttr eps) {
    return LayerNormOp::create(b, loc, x, gamma, beta,
                               b.getI64IntegerAttr(axis), eps);
  }
  Value rmsNorm(Value x, Value gamma, Value beta, int64_t axis, FloatAttr eps) {
    return RmsNormOp::create(b, loc, x, gamma, beta, b.getI64IntegerAttr(axis),
                             eps);
  }
  Value rope(Value x, Value cos, Value sin, int64_t headDim, int64_t nRot) {
    return RopeOp::create(b, loc, x, cos, sin, b.getI64IntegerAttr(headDim),
                          b.getI64IntegerAttr(nRot));
  }
  /// A splat constant of `shape` with `elementType`.
  Value splat(ArrayRef<int64_t> shape, Type elementType, double value) {
    auto type = RankedTensorType::get(shape, elementType);
    return ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type, b.getFloatAttr(elementType, value)));
  }
  Value compare(CompareKind kind, Value lhs, Value rhs) {
    return CompareOp::create(b, loc, kind, lhs, rhs);
  }
  Value where(Value cond, Value onTrue, Value onFalse) {
    return WhereOp::create(b, loc, cond, onTrue, onFalse);
  }
  /// `x` broadcast NumPy-style to `shape`, keeping its element type. A
  /// static `x` of lower rank is first reshaped to the rank (left padded
  /// with 1s), one of higher rank (a one-element `[1]` predicate for a
  /// rank-0 value) down to it. A dynamic dim of `shape` keeps the aligned
  /// dim of `x`; the consumer's own broadcast stretches it.
  Value broadcastTo(Value x, ArrayRef<int64_t> shape) {
    auto type = llvm::cast<RankedTensorType>(x.getType());
    int64_t rank = shape.size();
    if (type.hasStaticShape() && type.getRank() != rank) {
      SmallVector<int64_t> padded(std::max<int64_t>(rank - type.getRank(), 0),
                                  1);
      if (type.getRank() < rank)
        llvm::append_range(padded, type.getShape());
      else
        padded.assign(rank, 1);
      x = reshape(x, padded);
    }
    if (llvm::cast<RankedTensorType>(x.getType()).getShape() == shape)
      return x;
    SmallVector<int64_t> target = llvm::map_to_vector(
        shape, [](int64_t d) { return ShapedType::isDynamic(d) ? -1 : d; });
    return ExpandOp::create(b, loc, x, target);
  }

  RewriterBase &b;
  Location loc;
};

/// A fused location naming the composite op `op` it came from.
inline Location decompositionLoc(Operation *op) {
  MLIRContext *ctx = op->getContext();
  return FusedLoc::get(ctx, {op->getLoc()},
                       StringAttr::get(ctx, op->getName().getStringRef()));
}

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_TRANSFORMS_UNFUSE_PRIMITIVEBUILDER_H
