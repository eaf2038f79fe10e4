//===- ElementwiseRules.cpp - derivatives of the elementwise ops ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// activation, binary, cast, where (compare and stop_gradient pass nothing). An
// elementwise Jacobian is diagonal, so each rule is one "multiply by the
// partial derivative" used by both modes: the VJP applies it to the cotangent
// and sums the result down to the operand's (broadcast) shape, the JVP applies
// it to each operand's tangent and adds.
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

//===----------------------------------------------------------------------===//
// activation
//===----------------------------------------------------------------------===//

/// `f'(x) * v`: the dedicated backward ops, which compute it for every kind
/// (Derivatives.cpp is their primitive form).
static Value applyActivationDerivative(ActivationOp op, PrimitiveBuilder &p,
                                       Value v) {
  if (op.getKind() == ActivationKind::Relu)
    return ReluBackwardOp::create(p.b, p.loc, op.getInput(), v);
  return ActivationBackwardOp::create(p.b, p.loc, op.getKind(), op.getInput(),
                                      v);
}

static LogicalResult vjpRule(ActivationOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  dxs[0] = applyActivationDerivative(op, p, dys[0]);
  return success();
}

static LogicalResult jvpRule(ActivationOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  tys[0] = applyActivationDerivative(op, p, txs[0]);
  return success();
}

//===----------------------------------------------------------------------===//
// binary
//===----------------------------------------------------------------------===//

/// `-v`; `activation neg` takes no complex tensors.
static Value negate(PrimitiveBuilder &p, Value v) {
  if (llvm::isa<ComplexType>(elementTypeOf(v)))
    return p.sub(p.zeroScalar(elementTypeOf(v)), v);
  return p.activation(ActivationKind::Neg, v);
}

/// `v * d result / d operand` for operand 0 (`lhs`) or 1 (`rhs`), with the
/// shape of the broadcast result. Max and min split the derivative evenly
/// between tied operands; pow is finite at a zero base (as PyTorch's).
static Value applyBinaryPartial(BinaryOp op, PrimitiveBuilder &p,
                                unsigned operand, Value v) {
  Value a = op.getLhs(), b = op.getRhs(), y = op.getResult();
  Type et = elementTypeOf(y);
  switch (op.getKind()) {
  case BinaryKind::Add:
    return v;
  case BinaryKind::Sub:
    return operand == 0 ? v : negate(p, v);
  case BinaryKind::Mul:
    return p.mul(v, operand == 0 ? b : a);
  case BinaryKind::Div:
    // d(a / b)/db = -(a / b) / b = -y / b.
    return operand == 0 ? p.div(v, b) : negate(p, p.div(p.mul(v, y), b));
  case BinaryKind::FloorDiv:
    // Piecewise constant: zero, as PyTorch's (not `0 * v`, NaN for a NaN).
    return p.zerosLike(v);
  case BinaryKind::Remainder:
    // a - floor_div(a, b) b: PyTorch's partials, 1 and -floor_div(a, b).
    return operand == 0
               ? v
               : negate(p, p.mul(v, p.binary(BinaryKind::FloorDiv, a, b)));
  case BinaryKind::Fmod:
    // a - trunc(a / b) b: 1 and -trunc(a / b).
    return operand == 0 ? v
                        : negate(p, p.mul(v, p.activation(ActivationKind::Trunc,
                                                          p.div(a, b))));
  default:
    break;
  }
  Value zero = p.scalar(et, 0.0), one = p.scalar(et, 1.0);
  switch (op.getKind()) {
  case BinaryKind::Max:
  case BinaryKind::Min: {
    // The operand equal to the result gets the derivative; ties share it.
    Value takesLhs = p.cast(p.compare(CompareKind::Eq, a, y), et);
    Value takesRhs = p.cast(p.compare(CompareKind::Eq, b, y), et);
    Value ties = p.binary(BinaryKind::Max, p.add(takesLhs, takesRhs), one);
    return p.mul(v, p.div(operand == 0 ? takesLhs : takesRhs, ties));
  }
  case BinaryKind::Pow: {
    if (operand == 0) {
      // b a^(b - 1), and 0 for b = 0 (also at a = 0, where a^-1 is inf).
      Value partial = p.mul(b, p.binary(BinaryKind::Pow, a, p.sub(b, one)));
      Value constantPower = p.compare(CompareKind::Eq, b, zero);
      return p.mul(v, p.where(constantPower, zero, partial));
    }
    // y ln(a), and 0 at a = 0 with b >= 0, where y is a constant 0 or 1.
    Value partial = p.mul(y, p.activation(ActivationKind::Log, a));
    Value zeroBase = p.compare(CompareKind::Eq, a, zero);
    Value flat =
        p.where(zeroBase, p.compare(CompareKind::Ge, b, zero), zeroBase);
    return p.mul(v, p.where(flat, zero, partial));
  }
  default:
    break;
  }
  llvm_unreachable("unknown binary kind");
}

/// Complex add, sub, mul and div are holomorphic: the JVP multiplies the
/// tangents by the partials and the VJP the cotangent by their conjugates
/// (PyTorch's convention), computed as `conj(partial(conj(v)))`. Complex pow
/// has no rule (max and min take no complex operands).
static LogicalResult checkComplexBinary(BinaryOp op, StringRef pass) {
  if (!llvm::isa<ComplexType>(elementTypeOf(op.getResult())) ||
      llvm::is_contained(
          {BinaryKind::Add, BinaryKind::Sub, BinaryKind::Mul, BinaryKind::Div},
          op.getKind()))
    return success();
  return op.emitError() << pass << ": no derivative rule for complex '"
                        << op->getName() << "' of kind "
                        << stringifyBinaryKind(op.getKind());
}

static LogicalResult vjpRule(BinaryOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")) ||
      failed(checkComplexBinary(op, "rlx-autodiff")))
    return failure();
  bool complex = llvm::isa<ComplexType>(elementTypeOf(op.getResult()));
  for (unsigned i = 0; i < 2; ++i) {
    Value partial =
        complex ? p.conjugate(applyBinaryPartial(op, p, i, p.conjugate(dys[0])))
                : applyBinaryPartial(op, p, i, dys[0]);
    dxs[i] = p.sumToShape(partial, shapeOf(op->getOperand(i)));
  }
  return success();
}

static LogicalResult jvpRule(BinaryOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (failed(checkComplexBinary(op, "rlx-jvp")))
    return failure();
  Value sum = sumOverTangents(p, txs, [&](unsigned i, Value t) {
    return applyBinaryPartial(op, p, i, t);
  });
  tys[0] = p.broadcastTo(sum, shapeOf(op.getResult()));
  return success();
}

//===----------------------------------------------------------------------===//
// cast, where
//===----------------------------------------------------------------------===//

static LogicalResult vjpRule(CastOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  dxs[0] = p.cast(dys[0], elementTypeOf(op.getInput()));
  return success();
}

static LogicalResult jvpRule(CastOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  tys[0] = p.cast(txs[0], elementTypeOf(op.getResult()));
  return success();
}

static LogicalResult vjpRule(WhereOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  Value zero = p.zeroScalar(elementTypeOf(op.getResult()));
  dxs[1] = p.sumToShape(p.where(op.getCond(), dys[0], zero),
                        shapeOf(op.getOnTrue()));
  dxs[2] = p.sumToShape(p.where(op.getCond(), zero, dys[0]),
                        shapeOf(op.getOnFalse()));
  return success();
}

static LogicalResult jvpRule(WhereOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  Value zero = p.zeroScalar(elementTypeOf(op.getResult()));
  tys[0] = p.broadcastTo(
      p.where(op.getCond(), txs[1] ? txs[1] : zero, txs[2] ? txs[2] : zero),
      shapeOf(op.getResult()));
  return success();
}

void attachElementwiseRules(MLIRContext *ctx) {
  attachRules<ActivationOp, BinaryOp, CastOp, WhereOp>(ctx);
  attachNoDerivatives<CompareOp, StopGradientOp>(ctx);
}

} // namespace rlx
} // namespace mlir
