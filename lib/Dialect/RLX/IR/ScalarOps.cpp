//===- ScalarOps.cpp - scalar semantics of rlx elementwise ops ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/ScalarOps.h"

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
  case ActivationKind::Floor:
    return math::FloorOp::create(b, loc, x);
  case ActivationKind::Ceil:
    return math::CeilOp::create(b, loc, x);
  case ActivationKind::Trunc:
    return math::TruncOp::create(b, loc, x);
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

/// Integer division and remainders that never trap: every kind gives 0
/// for a zero divisor, and `INT_MIN / -1` wraps to INT_MIN (its remainders
/// are 0). Vectorized loops also evaluate masked-off lanes, so the divisor
/// must be safe in every lane, not only in the valid ones: it is replaced
/// by 1 where it is 0 or the signed quotient overflows.
static Value emitIntegerDivision(OpBuilder &b, Location loc, BinaryKind kind,
                                 Value lhs, Value rhs, bool isUnsigned) {
  Type type = lhs.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  auto constant = [&](const APInt &value) -> Value {
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, value));
  };
  auto cmp = [&](arith::CmpIPredicate predicate, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  };
  Value zero = constant(APInt::getZero(width));
  Value one = constant(APInt(width, 1));
  Value isZero = cmp(arith::CmpIPredicate::eq, rhs, zero);
  Value unsafe = isZero;
  if (!isUnsigned) {
    Value minusOne = constant(APInt::getAllOnes(width));
    Value intMin = constant(APInt::getSignedMinValue(width));
    Value overflow = arith::AndIOp::create(
        b, loc, cmp(arith::CmpIPredicate::eq, lhs, intMin),
        cmp(arith::CmpIPredicate::eq, rhs, minusOne));
    unsafe = arith::OrIOp::create(b, loc, isZero, overflow);
  }
  Value divisor = arith::SelectOp::create(b, loc, unsafe, one, rhs);
  Value result;
  switch (kind) {
  case BinaryKind::Div:
    result = isUnsigned ? Value(arith::DivUIOp::create(b, loc, lhs, divisor))
                        : Value(arith::DivSIOp::create(b, loc, lhs, divisor));
    break;
  case BinaryKind::FloorDiv:
    result = isUnsigned
                 ? Value(arith::DivUIOp::create(b, loc, lhs, divisor))
                 : Value(arith::FloorDivSIOp::create(b, loc, lhs, divisor));
    break;
  case BinaryKind::Fmod:
  case BinaryKind::Remainder: {
    if (isUnsigned) {
      result = arith::RemUIOp::create(b, loc, lhs, divisor);
      break;
    }
    result = arith::RemSIOp::create(b, loc, lhs, divisor);
    if (kind == BinaryKind::Fmod)
      break;
    // The remainder takes the divisor's sign: a nonzero one of the other
    // sign moves by the divisor.
    Value moves = arith::AndIOp::create(
        b, loc, cmp(arith::CmpIPredicate::ne, result, zero),
        cmp(arith::CmpIPredicate::ne,
            cmp(arith::CmpIPredicate::slt, result, zero),
            cmp(arith::CmpIPredicate::slt, divisor, zero)));
    result = arith::SelectOp::create(
        b, loc, moves, arith::AddIOp::create(b, loc, result, divisor), result);
    break;
  }
  default:
    llvm_unreachable("not an integer division kind");
  }
  return arith::SelectOp::create(b, loc, isZero, zero, result);
}

/// PyTorch's floating-point floor_divide, remainder and fmod (its CPU
/// kernels' div_floor_floating and mod rules), in the operands' type.
static Value emitFloatDivision(OpBuilder &b, Location loc, BinaryKind kind,
                               Value lhs, Value rhs) {
  Type type = lhs.getType();
  auto c = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
  };
  auto cmp = [&](arith::CmpFPredicate predicate, Value x, Value y) -> Value {
    return arith::CmpFOp::create(b, loc, predicate, x, y);
  };
  Value zero = c(0.0);
  Value mod = arith::RemFOp::create(b, loc, lhs, rhs);
  if (kind == BinaryKind::Fmod)
    return mod;
  // A nonzero remainder of the other sign than the divisor.
  Value wrongSign = arith::AndIOp::create(
      b, loc, cmp(arith::CmpFPredicate::UNE, mod, zero),
      arith::XOrIOp::create(b, loc, cmp(arith::CmpFPredicate::OLT, rhs, zero),
                            cmp(arith::CmpFPredicate::OLT, mod, zero)));
  if (kind == BinaryKind::Remainder)
    return arith::SelectOp::create(
        b, loc, wrongSign, arith::AddFOp::create(b, loc, mod, rhs), mod);
  // floor_div: (a - mod) / b is an integer up to rounding; one less where
  // the remainder had the wrong sign; then rounded to the nearest integer
  // (floor, plus one above .5); a zero quotient keeps the sign of a / b,
  // and b = 0 gives a / b itself (inf or NaN).
  Value quotient = arith::DivFOp::create(b, loc, lhs, rhs);
  Value div = arith::DivFOp::create(
      b, loc, arith::SubFOp::create(b, loc, lhs, mod), rhs);
  div = arith::SelectOp::create(
      b, loc, wrongSign, arith::SubFOp::create(b, loc, div, c(1.0)), div);
  Value floored = math::FloorOp::create(b, loc, div);
  Value roundUp = cmp(arith::CmpFPredicate::OGT,
                      arith::SubFOp::create(b, loc, div, floored), c(0.5));
  floored = arith::SelectOp::create(
      b, loc, roundUp, arith::AddFOp::create(b, loc, floored, c(1.0)), floored);
  Value signedZero = math::CopySignOp::create(b, loc, zero, quotient);
  Value result = arith::SelectOp::create(
      b, loc, cmp(arith::CmpFPredicate::UNE, div, zero), floored, signedZero);
  return arith::SelectOp::create(
      b, loc, cmp(arith::CmpFPredicate::OEQ, rhs, zero), quotient, result);
}

static Value encodeBF16(OpBuilder &b, Location loc, Value x);

Value rlx::emitBinary(OpBuilder &b, Location loc, BinaryKind kind, Value lhs,
                      Value rhs, bool isUnsigned) {
  Type type = lhs.getType();
  if (type.isBF16()) {
    // In f32, rounded once: exact for add, sub, mul, div (f32 has more than
    // twice bf16's precision, so the double rounding is innocuous), max and
    // min. Arithmetic on bf16 itself would go through a conversion
    // instruction that flushes subnormals, which the casts keep.
    Type f32 = b.getF32Type();
    Value result =
        emitBinary(b, loc, kind, arith::ExtFOp::create(b, loc, f32, lhs),
                   arith::ExtFOp::create(b, loc, f32, rhs));
    return encodeBF16(b, loc, result);
  }
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
      // f16: in f32, rounded once.
      return arith::TruncFOp::create(
          b, loc, type,
          math::PowFOp::create(
              b, loc, arith::ExtFOp::create(b, loc, b.getF32Type(), lhs),
              arith::ExtFOp::create(b, loc, b.getF32Type(), rhs)));
    case BinaryKind::FloorDiv:
    case BinaryKind::Remainder:
    case BinaryKind::Fmod:
      if (floatType.getWidth() >= 32)
        return emitFloatDivision(b, loc, kind, lhs, rhs);
      // f16: in f32 (PyTorch's opmath type), rounded once.
      return arith::TruncFOp::create(
          b, loc, type,
          emitFloatDivision(
              b, loc, kind, arith::ExtFOp::create(b, loc, b.getF32Type(), lhs),
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
  case BinaryKind::FloorDiv:
  case BinaryKind::Remainder:
  case BinaryKind::Fmod:
    return emitIntegerDivision(b, loc, kind, lhs, rhs, isUnsigned);
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

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

namespace {
/// Integer constants and bit manipulation on scalars of one integer type.
struct Bits {
  OpBuilder &b;
  Location loc;
  Type type;

  Value c(int64_t value) const {
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, value));
  }
  Value add(Value x, Value y) const {
    return arith::AddIOp::create(b, loc, x, y);
  }
  Value sub(Value x, Value y) const {
    return arith::SubIOp::create(b, loc, x, y);
  }
  Value band(Value x, Value y) const {
    return arith::AndIOp::create(b, loc, x, y);
  }
  Value bor(Value x, Value y) const {
    return arith::OrIOp::create(b, loc, x, y);
  }
  Value shl(Value x, Value y) const {
    return arith::ShLIOp::create(b, loc, x, y);
  }
  Value lshr(Value x, Value y) const {
    return arith::ShRUIOp::create(b, loc, x, y);
  }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) const {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value select(Value cond, Value x, Value y) const {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
};

/// Layout of the 8-bit float formats rlx supports.
struct Float8Format {
  int64_t mantissaBits;
  int64_t bias;
  bool hasInfinity; // f8E5M2: IEEE-like; f8E4M3FN: NaN only, no infinity.
};
} // namespace

static std::optional<Float8Format> float8Format(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Float8Format{3, 7, false};
  if (isa<Float8E5M2Type>(type))
    return Float8Format{2, 15, true};
  return std::nullopt;
}

Type rlx::getScalarType(Type type) {
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType || intType.isSignless())
    return type;
  return IntegerType::get(type.getContext(), intType.getWidth());
}

/// Signed rlx integers are the signless i8..i64; i1, ui8 and ui32 are
/// unsigned.
static bool isSignedInt(Type type) {
  auto intType = dyn_cast<IntegerType>(type);
  return intType && intType.isSignless() && intType.getWidth() > 1;
}

/// The exact f32 value of an 8-bit float.
static Value decodeFloat8(OpBuilder &b, Location loc, Value x,
                          const Float8Format &format) {
  Bits i32{b, loc, b.getI32Type()};
  Value raw = arith::BitcastOp::create(b, loc, b.getI8Type(), x);
  Value v = arith::ExtUIOp::create(b, loc, b.getI32Type(), raw);
  int64_t m = format.mantissaBits;
  int64_t exponentMask = (int64_t(1) << (7 - m)) - 1;
  Value sign = i32.shl(i32.band(v, i32.c(0x80)), i32.c(24));
  Value exponent = i32.band(i32.lshr(v, i32.c(m)), i32.c(exponentMask));
  Value mantissa = i32.band(v, i32.c((int64_t(1) << m) - 1));
  // Normal numbers: re-bias the exponent, widen the mantissa.
  Value normal =
      i32.bor(i32.shl(i32.add(exponent, i32.c(127 - format.bias)), i32.c(23)),
              i32.shl(mantissa, i32.c(23 - m)));
  // Subnormals: mantissa * 2^(1 - bias - m), exact in f32.
  Value scaled = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), mantissa),
      floatConst(b, loc, b.getF32Type(), std::ldexp(1.0, 1 - format.bias - m)));
  Value subnormal = arith::BitcastOp::create(b, loc, b.getI32Type(), scaled);
  // Infinities and NaNs.
  Value special, specialBits;
  if (format.hasInfinity) {
    special = i32.cmp(arith::CmpIPredicate::eq, exponent, i32.c(exponentMask));
    specialBits = i32.bor(i32.c(0x7f800000), i32.shl(mantissa, i32.c(23 - m)));
  } else {
    special = i32.cmp(arith::CmpIPredicate::eq, i32.band(v, i32.c(0x7f)),
                      i32.c(0x7f));
    specialBits = i32.c(0x7fc00000);
  }
  Value isSubnormal = i32.cmp(arith::CmpIPredicate::eq, exponent, i32.c(0));
  Value magnitude = i32.select(isSubnormal, subnormal,
                               i32.select(special, specialBits, normal));
  return arith::BitcastOp::create(b, loc, b.getF32Type(),
                                  i32.bor(sign, magnitude));
}

/// An f32 rounded to an 8-bit float, to nearest with ties to even.
/// Overflow gives infinity (f8E5M2) or NaN (f8E4M3FN).
static Value encodeFloat8(OpBuilder &b, Location loc, Value x, Type type,
                          const Float8Format &format) {
  Bits i32{b, loc, b.getI32Type()};
  Type f32 = b.getF32Type();
  int64_t m = format.mantissaBits;
  int64_t shift = 23 - m;
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), x);
  Value sign = i32.band(i32.lshr(bits, i32.c(24)), i32.c(0x80));
  Value magnitude = i32.band(bits, i32.c(0x7fffffff));
  Value isNaN =
      i32.cmp(arith::CmpIPredicate::sgt, magnitude, i32.c(0x7f800000));
  // Normal results: round the low `shift` bits off, ties to even; a carry
  // moves into the exponent. Then re-bias.
  Value rounded =
      i32.add(i32.add(magnitude, i32.c((int64_t(1) << (shift - 1)) - 1)),
              i32.band(i32.lshr(magnitude, i32.c(shift)), i32.c(1)));
  Value normal =
      i32.sub(i32.lshr(rounded, i32.c(shift)), i32.c((127 - format.bias) << m));
  // Subnormal results: adding 2^E with ulp(2^E) = the target's subnormal
  // step makes the f32 adder round at the right bit; the code is the
  // difference of the bit patterns (2^m where it rounds up to the smallest
  // normal number, which is that number's code).
  Value absolute = arith::BitcastOp::create(b, loc, f32, magnitude);
  int64_t magicBits = ((127 - format.bias) + shift + 1) << 23;
  Value magic = arith::BitcastOp::create(b, loc, f32, i32.c(magicBits));
  Value sum = arith::AddFOp::create(b, loc, absolute, magic);
  Value subnormal = i32.sub(
      arith::BitcastOp::create(b, loc, b.getI32Type(), sum), i32.c(magicBits));
  Value isSubnormal = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OLT, absolute,
      floatConst(b, loc, f32, std::ldexp(1.0, 1 - format.bias)));
  Value code = i32.select(isSubnormal, subnormal, normal);
  if (format.hasInfinity) {
    // 0x7c is infinity; 0x7e a quiet NaN.
    code = i32.select(i32.cmp(arith::CmpIPredicate::sgt, code, i32.c(0x7c)),
                      i32.c(0x7c), code);
    code = i32.select(isNaN, i32.c(0x7e), code);
  } else {
    // 0x7e (448) is the largest finite value; 0x7f is NaN.
    Value overflow = i32.cmp(arith::CmpIPredicate::sgt, code, i32.c(0x7e));
    code = i32.select(arith::OrIOp::create(b, loc, overflow, isNaN),
                      i32.c(0x7f), code);
  }
  Value byte =
      arith::TruncIOp::create(b, loc, b.getI8Type(), i32.bor(sign, code));
  return arith::BitcastOp::create(b, loc, type, byte);
}

/// An f32 rounded to bf16, to nearest with ties to even, subnormals kept.
/// (LLVM would call a runtime function or use an instruction that flushes
/// subnormals.)
static Value encodeBF16(OpBuilder &b, Location loc, Value x) {
  Bits i32{b, loc, b.getI32Type()};
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), x);
  Value magnitude = i32.band(bits, i32.c(0x7fffffff));
  Value isNaN =
      i32.cmp(arith::CmpIPredicate::sgt, magnitude, i32.c(0x7f800000));
  Value rounded = i32.add(i32.add(bits, i32.c(0x7fff)),
                          i32.band(i32.lshr(bits, i32.c(16)), i32.c(1)));
  Value quietNaN = i32.bor(bits, i32.c(0x400000));
  Value high = i32.lshr(i32.select(isNaN, quietNaN, rounded), i32.c(16));
  Value half = arith::TruncIOp::create(b, loc, b.getI16Type(), high);
  return arith::BitcastOp::create(b, loc, b.getBF16Type(), half);
}

/// `x` (f32) rounded once to the float type `to`.
static Value floatFromF32(OpBuilder &b, Location loc, Value x, Type to) {
  if (to.isF32())
    return x;
  if (to.isF64())
    return arith::ExtFOp::create(b, loc, to, x);
  if (to.isBF16())
    return encodeBF16(b, loc, x);
  if (std::optional<Float8Format> format = float8Format(to))
    return encodeFloat8(b, loc, x, to, *format);
  return arith::TruncFOp::create(b, loc, to, x);
}

/// The f32 nearest to the f64 `x` in round-to-odd mode: an inexact result
/// has an odd last bit. Rounding that once more to a format with at most
/// 22 mantissa bits equals rounding `x` directly (no double rounding).
static Value f64ToF32RoundToOdd(OpBuilder &b, Location loc, Value x) {
  Bits i32{b, loc, b.getI32Type()};
  Value nearest = arith::TruncFOp::create(b, loc, b.getF32Type(), x);
  Value back = arith::ExtFOp::create(b, loc, b.getF64Type(), nearest);
  Value inexact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, back, x);
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), nearest);
  Value even =
      i32.cmp(arith::CmpIPredicate::eq, i32.band(bits, i32.c(1)), i32.c(0));
  // Step the magnitude back toward x: the neighbour is odd.
  Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                      math::AbsFOp::create(b, loc, back),
                                      math::AbsFOp::create(b, loc, x));
  Value stepped =
      i32.select(above, i32.sub(bits, i32.c(1)), i32.add(bits, i32.c(1)));
  Value odd =
      i32.select(arith::AndIOp::create(b, loc, inexact, even), stepped, bits);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), odd);
}

/// The integer `x` as an f32 in round-to-odd mode (see f64ToF32RoundToOdd):
/// the bits below the 24 kept ones are OR-ed into the last kept bit.
static Value intToF32RoundToOdd(OpBuilder &b, Location loc, Value x,
                                bool isSigned) {
  Bits i64{b, loc, b.getI64Type()};
  Value wide = x;
  if (x.getType().getIntOrFloatBitWidth() < 64)
    wide = isSigned ? Value(arith::ExtSIOp::create(b, loc, b.getI64Type(), x))
                    : Value(arith::ExtUIOp::create(b, loc, b.getI64Type(), x));
  Value negative;
  Value magnitude = wide; // as an unsigned number; INT64_MIN stays 2^63.
  if (isSigned) {
    negative = i64.cmp(arith::CmpIPredicate::slt, wide, i64.c(0));
    magnitude = i64.select(negative, i64.sub(i64.c(0), wide), wide);
  }
  Value width =
      i64.sub(i64.c(64), math::CountLeadingZerosOp::create(b, loc, magnitude));
  Value shift =
      arith::MaxSIOp::create(b, loc, i64.sub(width, i64.c(24)), i64.c(0));
  Value lowMask = i64.sub(i64.shl(i64.c(1), shift), i64.c(1));
  Value sticky =
      arith::ExtUIOp::create(b, loc, b.getI64Type(),
                             i64.cmp(arith::CmpIPredicate::ne,
                                     i64.band(magnitude, lowMask), i64.c(0)));
  Value kept = i64.bor(i64.lshr(magnitude, shift), sticky);
  Value value = arith::UIToFPOp::create(b, loc, b.getF32Type(), kept);
  // Scale by 2^shift (exact): build the power of two from its bits.
  Value scaleBits = arith::TruncIOp::create(
      b, loc, b.getI32Type(), i64.shl(i64.add(shift, i64.c(127)), i64.c(23)));
  Value scale = arith::BitcastOp::create(b, loc, b.getF32Type(), scaleBits);
  Value result = arith::MulFOp::create(b, loc, value, scale);
  if (isSigned)
    result = arith::SelectOp::create(
        b, loc, negative, arith::NegFOp::create(b, loc, result), result);
  return result;
}

/// Float (f32 or f64) to integer: truncate toward zero, saturate, NaN -> 0.
/// Out-of-range values never reach fptosi/fptoui, whose result would be
/// poison.
static Value floatToInt(OpBuilder &b, Location loc, Value x, IntegerType to,
                        bool isSigned) {
  Type floatType = x.getType();
  unsigned width = to.getWidth();
  Bits bits{b, loc, to};
  auto fc = [&](double v) { return floatConst(b, loc, floatType, v); };
  auto cmp = [&](arith::CmpFPredicate predicate, Value y, Value z) {
    return arith::CmpFOp::create(b, loc, predicate, y, z);
  };
  double high = std::ldexp(1.0, isSigned ? width - 1 : width);
  double low = isSigned ? -high : -1.0;
  Value highConst = fc(high), lowConst = fc(low);
  Value above = cmp(arith::CmpFPredicate::OGE, x, highConst);
  Value inRange = arith::AndIOp::create(
      b, loc, cmp(arith::CmpFPredicate::OLT, x, highConst),
      cmp(arith::CmpFPredicate::OGT, x, lowConst));
  Value safe = arith::SelectOp::create(b, loc, inRange, x, fc(0.0));
  Value result = isSigned ? Value(arith::FPToSIOp::create(b, loc, to, safe))
                          : Value(arith::FPToUIOp::create(b, loc, to, safe));
  APInt maxValue =
      isSigned ? APInt::getSignedMaxValue(width) : APInt::getMaxValue(width);
  Value maxConst =
      arith::ConstantOp::create(b, loc, to, b.getIntegerAttr(to, maxValue));
  result = bits.select(above, maxConst, result);
  if (isSigned) {
    Value minConst = arith::ConstantOp::create(
        b, loc, to, b.getIntegerAttr(to, APInt::getSignedMinValue(width)));
    result = bits.select(cmp(arith::CmpFPredicate::OLE, x, lowConst), minConst,
                         result);
  }
  return result;
}

/// A float `x` of any rlx float type as an exact f32, or f64 as is.
static Value widenFloat(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  if (type.isF32() || type.isF64())
    return x;
  if (std::optional<Float8Format> format = float8Format(type))
    return decodeFloat8(b, loc, x, *format);
  return arith::ExtFOp::create(b, loc, b.getF32Type(), x);
}

/// A widened float (f32 or f64) rounded once to the float type `to`.
static Value narrowFloat(OpBuilder &b, Location loc, Value x, Type to) {
  if (x.getType() == to)
    return x;
  if (x.getType().isF64()) {
    if (to.isF32())
      return arith::TruncFOp::create(b, loc, to, x);
    x = f64ToF32RoundToOdd(b, loc, x);
  }
  return floatFromF32(b, loc, x, to);
}

Value rlx::emitCast(OpBuilder &b, Location loc, Value x, Type from, Type to) {
  if (getScalarType(from) == getScalarType(to))
    return x; // Also i8 <-> ui8 and i32 <-> ui32: the same bits.
  Type f32 = b.getF32Type();

  if (auto complexType = dyn_cast<ComplexType>(from)) {
    Value re = complex::ReOp::create(b, loc, x);
    if (to.isInteger(1)) {
      Value zero = floatConst(b, loc, f32, 0.0);
      Value im = complex::ImOp::create(b, loc, x);
      return arith::OrIOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, re, zero),
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, im, zero));
    }
    return emitCast(b, loc, re, complexType.getElementType(), to);
  }
  if (auto complexType = dyn_cast<ComplexType>(to)) {
    Type part = complexType.getElementType();
    Value re = emitCast(b, loc, x, from, part);
    return complex::CreateOp::create(b, loc, complexType, re,
                                     floatConst(b, loc, part, 0.0));
  }

  if (to.isInteger(1)) {
    if (float8Format(from)) {
      // Any bit but the sign set: non-zero (NaN included).
      Bits i8{b, loc, b.getI8Type()};
      Value raw = arith::BitcastOp::create(b, loc, b.getI8Type(), x);
      return i8.cmp(arith::CmpIPredicate::ne, i8.band(raw, i8.c(0x7f)),
                    i8.c(0));
    }
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                   floatConst(b, loc, from, 0.0));
    Bits bits{b, loc, x.getType()};
    return bits.cmp(arith::CmpIPredicate::ne, x, bits.c(0));
  }

  Type toSignless = getScalarType(to);
  if (auto fromInt = dyn_cast<IntegerType>(from)) {
    bool isSigned = isSignedInt(from);
    if (auto toInt = dyn_cast<IntegerType>(toSignless)) {
      if (toInt.getWidth() < fromInt.getWidth())
        return arith::TruncIOp::create(b, loc, toInt, x);
      if (isSigned)
        return arith::ExtSIOp::create(b, loc, toInt, x);
      return arith::ExtUIOp::create(b, loc, toInt, x);
    }
    // Integer -> float. f32 and f64 targets convert in one rounding step;
    // narrower ones go through an f32 rounded to odd (exact for up to 24
    // significant bits).
    if (to.isF32() || to.isF64())
      return isSigned ? Value(arith::SIToFPOp::create(b, loc, to, x))
                      : Value(arith::UIToFPOp::create(b, loc, to, x));
    Value value;
    if (fromInt.getWidth() <= 16)
      value = isSigned ? Value(arith::SIToFPOp::create(b, loc, f32, x))
                       : Value(arith::UIToFPOp::create(b, loc, f32, x));
    else
      value = intToF32RoundToOdd(b, loc, x, isSigned);
    return floatFromF32(b, loc, value, to);
  }

  Value wide = widenFloat(b, loc, x);
  if (auto toInt = dyn_cast<IntegerType>(toSignless))
    return floatToInt(b, loc, wide, toInt, isSignedInt(to));
  if (to.isF64())
    return wide.getType().isF64()
               ? wide
               : Value(arith::ExtFOp::create(b, loc, to, wide));
  return narrowFloat(b, loc, wide, to);
}

//===----------------------------------------------------------------------===//
// Comparisons and selection
//===----------------------------------------------------------------------===//

Value rlx::emitCompare(OpBuilder &b, Location loc, CompareKind kind, Value lhs,
                       Value rhs, bool isUnsigned) {
  Type type = lhs.getType();
  if (isa<ComplexType>(type)) {
    if (kind == CompareKind::Eq)
      return complex::EqualOp::create(b, loc, lhs, rhs);
    if (kind == CompareKind::Ne)
      return complex::NotEqualOp::create(b, loc, lhs, rhs);
    llvm_unreachable("complex ordering rejected by the verifier");
  }
  if (isa<FloatType>(type)) {
    if (float8Format(type)) {
      lhs = widenFloat(b, loc, lhs);
      rhs = widenFloat(b, loc, rhs);
    }
    arith::CmpFPredicate predicate;
    switch (kind) {
    case CompareKind::Eq:
      predicate = arith::CmpFPredicate::OEQ;
      break;
    case CompareKind::Ne:
      predicate = arith::CmpFPredicate::UNE;
      break;
    case CompareKind::Lt:
      predicate = arith::CmpFPredicate::OLT;
      break;
    case CompareKind::Le:
      predicate = arith::CmpFPredicate::OLE;
      break;
    case CompareKind::Gt:
      predicate = arith::CmpFPredicate::OGT;
      break;
    case CompareKind::Ge:
      predicate = arith::CmpFPredicate::OGE;
      break;
    }
    return arith::CmpFOp::create(b, loc, predicate, lhs, rhs);
  }
  // i1 orders false < true: unsigned.
  bool isUnsignedOrder = isUnsigned || type.isInteger(1);
  arith::CmpIPredicate predicate;
  switch (kind) {
  case CompareKind::Eq:
    predicate = arith::CmpIPredicate::eq;
    break;
  case CompareKind::Ne:
    predicate = arith::CmpIPredicate::ne;
    break;
  case CompareKind::Lt:
    predicate =
        isUnsignedOrder ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    break;
  case CompareKind::Le:
    predicate =
        isUnsignedOrder ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    break;
  case CompareKind::Gt:
    predicate =
        isUnsignedOrder ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    break;
  case CompareKind::Ge:
    predicate =
        isUnsignedOrder ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
    break;
  }
  return arith::CmpIOp::create(b, loc, predicate, lhs, rhs);
}

Value rlx::emitWhere(OpBuilder &b, Location loc, Value cond, Value onTrue,
                     Value onFalse) {
  return arith::SelectOp::create(b, loc, cond, onTrue, onFalse);
}
