//===- ScalarOps.cpp - scalar semantics of rlx elementwise ops ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/RLXToLinalg/ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

static Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

/// Activations on a float scalar of a type with full math support (f32,
/// f64).
static Value emitFloatActivation(OpBuilder &b, Location loc,
                                 ActivationKind kind, Value x) {
  Type t = x.getType();
  auto c = [&](double v) { return floatConst(b, loc, t, v); };
  auto sigmoid = [&](Value v) {
    // 1 / (1 + exp(-v))
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, v));
    return arith::DivFOp::create(b, loc, c(1.0),
                                 arith::AddFOp::create(b, loc, c(1.0), e));
  };
  switch (kind) {
  case ActivationKind::Gelu: {
    // 0.5 x (1 + erf(x / sqrt(2)))
    Value scaled = arith::MulFOp::create(b, loc, x, c(M_SQRT1_2));
    Value erf = math::ErfOp::create(b, loc, scaled);
    Value onePlus = arith::AddFOp::create(b, loc, c(1.0), erf);
    return arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(0.5), x), onePlus);
  }
  case ActivationKind::GeluApprox: {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value x3 =
        arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
    Value inner = arith::AddFOp::create(
        b, loc, x, arith::MulFOp::create(b, loc, c(0.044715), x3));
    Value th = math::TanhOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(std::sqrt(2.0 / M_PI)), inner));
    Value onePlus = arith::AddFOp::create(b, loc, c(1.0), th);
    return arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(0.5), x), onePlus);
  }
  case ActivationKind::Silu:
    return arith::MulFOp::create(b, loc, x, sigmoid(x));
  case ActivationKind::Relu:
    // maximumf propagates NaN, as torch.relu does.
    return arith::MaximumFOp::create(b, loc, x, c(0.0));
  case ActivationKind::Sigmoid:
    return sigmoid(x);
  case ActivationKind::Tanh:
    return math::TanhOp::create(b, loc, x);
  case ActivationKind::Exp:
    return math::ExpOp::create(b, loc, x);
  case ActivationKind::Log:
    return math::LogOp::create(b, loc, x);
  case ActivationKind::Sqrt:
    return math::SqrtOp::create(b, loc, x);
  case ActivationKind::Rsqrt:
    return math::RsqrtOp::create(b, loc, x);
  case ActivationKind::Neg:
    return arith::NegFOp::create(b, loc, x);
  case ActivationKind::Abs:
    return math::AbsFOp::create(b, loc, x);
  case ActivationKind::Sin:
    return math::SinOp::create(b, loc, x);
  case ActivationKind::Cos:
    return math::CosOp::create(b, loc, x);
  case ActivationKind::Tan:
    return math::TanOp::create(b, loc, x);
  case ActivationKind::Atan:
    return math::AtanOp::create(b, loc, x);
  case ActivationKind::Round:
    return math::RoundEvenOp::create(b, loc, x);
  }
  llvm_unreachable("unknown activation kind");
}

Value rlx::emitActivation(OpBuilder &b, Location loc, ActivationKind kind,
                          Value x) {
  Type type = x.getType();
  if (auto intType = dyn_cast<IntegerType>(type)) {
    // The verifier admits relu, neg and abs on signed integers only.
    Value zero =
        arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, 0));
    switch (kind) {
    case ActivationKind::Relu:
      return arith::MaxSIOp::create(b, loc, x, zero);
    case ActivationKind::Neg:
      return arith::SubIOp::create(b, loc, zero, x);
    case ActivationKind::Abs:
      return math::AbsIOp::create(b, loc, x);
    default:
      llvm_unreachable("integer activation rejected by the verifier");
    }
  }
  auto floatType = cast<FloatType>(type);
  if (floatType.getWidth() >= 32)
    return emitFloatActivation(b, loc, kind, x);
  // f16 / bf16: compute in f32 and round once, as PyTorch's CPU kernels do.
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  Value result = emitFloatActivation(b, loc, kind, wide);
  return arith::TruncFOp::create(b, loc, type, result);
}

/// Integer division that never traps: `x / 0` is 0 and `INT_MIN / -1`
/// wraps to INT_MIN. Vectorized loops also evaluate masked-off lanes, so
/// the divisor must be safe in every lane, not only in the valid ones.
static Value emitIntegerDivision(OpBuilder &b, Location loc, Value lhs,
                                 Value rhs, bool isUnsigned) {
  Type type = lhs.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  auto constant = [&](const APInt &value) -> Value {
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, value));
  };
  Value zero = constant(APInt::getZero(width));
  Value one = constant(APInt(width, 1));
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, zero);
  Value unsafe = isZero;
  if (!isUnsigned) {
    Value minusOne = constant(APInt::getAllOnes(width));
    Value intMin = constant(APInt::getSignedMinValue(width));
    Value overflow = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, intMin),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, minusOne));
    unsafe = arith::OrIOp::create(b, loc, isZero, overflow);
  }
  Value divisor = arith::SelectOp::create(b, loc, unsafe, one, rhs);
  Value quotient = isUnsigned
                       ? Value(arith::DivUIOp::create(b, loc, lhs, divisor))
                       : Value(arith::DivSIOp::create(b, loc, lhs, divisor));
  return arith::SelectOp::create(b, loc, isZero, zero, quotient);
}

Value rlx::emitBinary(OpBuilder &b, Location loc, BinaryKind kind, Value lhs,
                      Value rhs, bool isUnsigned) {
  Type type = lhs.getType();
  if (isa<ComplexType>(type)) {
    switch (kind) {
    case BinaryKind::Add:
      return complex::AddOp::create(b, loc, lhs, rhs);
    case BinaryKind::Sub:
      return complex::SubOp::create(b, loc, lhs, rhs);
    case BinaryKind::Mul:
      return complex::MulOp::create(b, loc, lhs, rhs);
    case BinaryKind::Div:
      return complex::DivOp::create(b, loc, lhs, rhs);
    default:
      llvm_unreachable("complex binary kind rejected by the verifier");
    }
  }
  if (auto floatType = dyn_cast<FloatType>(type)) {
    switch (kind) {
    case BinaryKind::Add:
      return arith::AddFOp::create(b, loc, lhs, rhs);
    case BinaryKind::Sub:
      return arith::SubFOp::create(b, loc, lhs, rhs);
    case BinaryKind::Mul:
      return arith::MulFOp::create(b, loc, lhs, rhs);
    case BinaryKind::Div:
      return arith::DivFOp::create(b, loc, lhs, rhs);
    case BinaryKind::Max:
      return arith::MaximumFOp::create(b, loc, lhs, rhs);
    case BinaryKind::Min:
      return arith::MinimumFOp::create(b, loc, lhs, rhs);
    case BinaryKind::Pow:
      if (floatType.getWidth() >= 32)
        return math::PowFOp::create(b, loc, lhs, rhs);
      return arith::TruncFOp::create(
          b, loc, type,
          math::PowFOp::create(
              b, loc, arith::ExtFOp::create(b, loc, b.getF32Type(), lhs),
              arith::ExtFOp::create(b, loc, b.getF32Type(), rhs)));
    }
    llvm_unreachable("unknown binary kind");
  }
  auto intType = cast<IntegerType>(type);
  switch (kind) {
  case BinaryKind::Add:
    return arith::AddIOp::create(b, loc, lhs, rhs);
  case BinaryKind::Sub:
    return arith::SubIOp::create(b, loc, lhs, rhs);
  case BinaryKind::Mul:
    return arith::MulIOp::create(b, loc, lhs, rhs);
  case BinaryKind::Div:
    return emitIntegerDivision(b, loc, lhs, rhs, isUnsigned);
  case BinaryKind::Max:
    if (intType.getWidth() == 1)
      return arith::OrIOp::create(b, loc, lhs, rhs);
    return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, lhs, rhs))
                      : Value(arith::MaxSIOp::create(b, loc, lhs, rhs));
  case BinaryKind::Min:
    if (intType.getWidth() == 1)
      return arith::AndIOp::create(b, loc, lhs, rhs);
    return isUnsigned ? Value(arith::MinUIOp::create(b, loc, lhs, rhs))
                      : Value(arith::MinSIOp::create(b, loc, lhs, rhs));
  case BinaryKind::Pow:
    llvm_unreachable("integer pow rejected by the verifier");
  }
  llvm_unreachable("unknown binary kind");
}
