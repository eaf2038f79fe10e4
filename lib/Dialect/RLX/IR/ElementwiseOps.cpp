//===- ElementwiseOps.cpp - constants, elementwise and casts --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "llvm/ADT/APSInt.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerElementwiseOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXElementwiseOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Constant folding helpers
//===----------------------------------------------------------------------===//

/// Largest result, in elements, that a folder materialises as a new
/// constant. Larger folds would copy weights into the IR.
static constexpr int64_t kMaxFoldElements = 1024;

/// Element classes the folders evaluate. Complex and anything else is left
/// alone.
enum class ElementClass { Float, Signed, Unsigned, Other };

static ElementClass classify(Type type) {
  if (isa<FloatType>(type))
    return ElementClass::Float;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    // Signless i8..i64 are RLX's signed integers; i1 is a boolean (0 or 1).
    if (intType.isUnsigned() || intType.getWidth() == 1)
      return ElementClass::Unsigned;
    return ElementClass::Signed;
  }
  return ElementClass::Other;
}

/// The constant `attr` as dense elements of a foldable element type, or
/// null.
static DenseElementsAttr getFoldableConstant(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || classify(dense.getElementType()) == ElementClass::Other)
    return nullptr;
  return dense;
}

/// True when a result of type `type` is small and static enough to fold.
static bool isFoldableResult(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  return tensorType && tensorType.hasStaticShape() &&
         tensorType.getNumElements() <= kMaxFoldElements;
}

/// For every element of the static `resultShape`, in row-major order, the
/// row-major index of the element of `operandShape` that NumPy broadcasting
/// reads.
static SmallVector<int64_t> broadcastIndices(ArrayRef<int64_t> resultShape,
                                             ArrayRef<int64_t> operandShape) {
  int64_t numElements = ShapedType::getNumElements(resultShape);
  size_t rank = resultShape.size();
  size_t offset = rank - operandShape.size();
  // Stride of each result dim in the operand; 0 where the operand
  // broadcasts.
  SmallVector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = operandShape.size(); i-- > 0;) {
    if (operandShape[i] != 1)
      strides[offset + i] = stride;
    stride *= operandShape[i];
  }
  SmallVector<int64_t> indices;
  indices.reserve(numElements);
  SmallVector<int64_t> position(rank, 0);
  for (int64_t n = 0; n < numElements; ++n) {
    int64_t index = 0;
    for (size_t d = 0; d < rank; ++d)
      index += position[d] * strides[d];
    indices.push_back(index);
    for (size_t d = rank; d-- > 0;) {
      if (++position[d] < resultShape[d])
        break;
      position[d] = 0;
    }
  }
  return indices;
}

/// Values of `attr` as APFloat (float element types) or APInt (integers).
static SmallVector<APFloat> floatValues(DenseElementsAttr attr) {
  return llvm::to_vector(attr.getValues<APFloat>());
}
static SmallVector<APInt> intValues(DenseElementsAttr attr) {
  return llvm::to_vector(attr.getValues<APInt>());
}

/// Builds an integer constant; `i1` goes through bools so the packed
/// storage is right.
static DenseElementsAttr getIntElements(RankedTensorType type,
                                        ArrayRef<APInt> values) {
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> bits =
        llvm::map_to_vector(values, [](const APInt &v) { return !v.isZero(); });
    return DenseElementsAttr::get(type, bits);
  }
  return DenseElementsAttr::get(type, values);
}

/// Evaluates `fn` on a double and rounds the result once to `value`'s
/// format.
static APFloat viaDouble(const APFloat &value, double (*fn)(double)) {
  bool losesInfo = false;
  APFloat wide = value;
  wide.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  APFloat result(fn(wide.convertToDouble()));
  result.convert(value.getSemantics(), APFloat::rmNearestTiesToEven,
                 &losesInfo);
  return result;
}

static bool isSplatWhere(Attribute attr,
                         function_ref<bool(const APFloat &)> floatPred,
                         function_ref<bool(const APInt &)> intPred) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  switch (classify(dense.getElementType())) {
  case ElementClass::Float:
    return floatPred && floatPred(dense.getSplatValue<APFloat>());
  case ElementClass::Signed:
  case ElementClass::Unsigned:
    return intPred && intPred(dense.getSplatValue<APInt>());
  case ElementClass::Other:
    return false;
  }
  llvm_unreachable("unknown element class");
}

//===----------------------------------------------------------------------===//
// ActivationOp
//===----------------------------------------------------------------------===//

/// Kinds that are meaningful on signed integers as well as floats.
static bool acceptsIntegers(ActivationKind kind) {
  return kind == ActivationKind::Relu || kind == ActivationKind::Neg ||
         kind == ActivationKind::Abs;
}

LogicalResult ActivationOp::verify() {
  Type elementType = getInput().getType().getElementType();
  if (!isa<FloatType>(elementType) && !acceptsIntegers(getKind()))
    return emitOpError() << "activation '" << stringifyEnum(getKind())
                         << "' requires a floating-point element type, got "
                         << elementType;
  return success();
}

static double geluExact(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}
static double geluTanh(double x) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}
static double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
static double silu(double x) { return x * sigmoid(x); }
static double rsqrt(double x) { return 1.0 / std::sqrt(x); }

static APFloat activateFloat(ActivationKind kind, APFloat x) {
  switch (kind) {
  case ActivationKind::Relu:
    if (x.isNaN() || (!x.isNegative() && !x.isZero()))
      return x;
    return APFloat::getZero(x.getSemantics());
  case ActivationKind::Neg:
    x.changeSign();
    return x;
  case ActivationKind::Abs:
    x.clearSign();
    return x;
  case ActivationKind::Round:
    x.roundToIntegral(APFloat::rmNearestTiesToEven);
    return x;
  case ActivationKind::Gelu:
    return viaDouble(x, geluExact);
  case ActivationKind::GeluApprox:
    return viaDouble(x, geluTanh);
  case ActivationKind::Silu:
    return viaDouble(x, silu);
  case ActivationKind::Sigmoid:
    return viaDouble(x, sigmoid);
  case ActivationKind::Tanh:
    return viaDouble(x, [](double v) { return std::tanh(v); });
  case ActivationKind::Exp:
    return viaDouble(x, [](double v) { return std::exp(v); });
  case ActivationKind::Log:
    return viaDouble(x, [](double v) { return std::log(v); });
  case ActivationKind::Sqrt:
    return viaDouble(x, [](double v) { return std::sqrt(v); });
  case ActivationKind::Rsqrt:
    return viaDouble(x, rsqrt);
  case ActivationKind::Sin:
    return viaDouble(x, [](double v) { return std::sin(v); });
  case ActivationKind::Cos:
    return viaDouble(x, [](double v) { return std::cos(v); });
  case ActivationKind::Tan:
    return viaDouble(x, [](double v) { return std::tan(v); });
  case ActivationKind::Atan:
    return viaDouble(x, [](double v) { return std::atan(v); });
  }
  llvm_unreachable("unknown activation kind");
}

static std::optional<APInt> activateInt(ActivationKind kind, const APInt &x) {
  switch (kind) {
  case ActivationKind::Relu:
    return x.isNegative() ? APInt::getZero(x.getBitWidth()) : x;
  case ActivationKind::Neg:
    return -x;
  case ActivationKind::Abs:
    return x.abs();
  default:
    return std::nullopt;
  }
}

OpFoldResult ActivationOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr input = getFoldableConstant(adaptor.getInput());
  auto type = getType();
  if (!input || !isFoldableResult(type))
    return {};
  ActivationKind kind = getKind();
  if (isa<FloatType>(type.getElementType())) {
    SmallVector<APFloat> values = floatValues(input);
    for (APFloat &value : values)
      value = activateFloat(kind, value);
    return DenseElementsAttr::get(type, values);
  }
  SmallVector<APInt> values = intValues(input);
  for (APInt &value : values) {
    std::optional<APInt> result = activateInt(kind, value);
    if (!result)
      return {};
    value = *result;
  }
  return getIntElements(type, values);
}

//===----------------------------------------------------------------------===//
// BinaryOp
//===----------------------------------------------------------------------===//

LogicalResult BinaryOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhsType = cast<RankedTensorType>(operands[0].getType());
  auto rhsType = cast<RankedTensorType>(operands[1].getType());
  inferredReturnTypes.push_back(RankedTensorType::get(
      broadcastShapesOrDynamic(lhsType.getShape(), rhsType.getShape()),
      lhsType.getElementType()));
  return success();
}

LogicalResult BinaryOp::verify() {
  ArrayRef<int64_t> lhsShape = getLhs().getType().getShape();
  ArrayRef<int64_t> rhsShape = getRhs().getType().getShape();
  if (!broadcastShapes(lhsShape, rhsShape))
    return emitOpError() << "operand shapes " << formatShape(lhsShape)
                         << " and " << formatShape(rhsShape)
                         << " are not broadcast-compatible";
  Type elementType = getLhs().getType().getElementType();
  BinaryKind kind = getKind();
  auto reject = [&](StringRef what) {
    return emitOpError() << "binary '" << stringifyEnum(kind) << "' " << what
                         << ", got " << elementType;
  };
  switch (kind) {
  case BinaryKind::Add:
  case BinaryKind::Sub:
  case BinaryKind::Mul:
  case BinaryKind::Div:
    if (elementType.isInteger(1))
      return reject("is not defined on i1 (use max/min for or/and)");
    return success();
  case BinaryKind::Max:
  case BinaryKind::Min:
    if (isa<ComplexType>(elementType))
      return reject("needs an ordered element type");
    return success();
  case BinaryKind::Pow:
    if (!isa<FloatType>(elementType))
      return reject("requires a floating-point element type");
    return success();
  }
  llvm_unreachable("unknown binary kind");
}

static std::optional<APFloat> evalFloat(BinaryKind kind, APFloat lhs,
                                        const APFloat &rhs) {
  const APFloat::roundingMode rm = APFloat::rmNearestTiesToEven;
  switch (kind) {
  case BinaryKind::Add:
    lhs.add(rhs, rm);
    return lhs;
  case BinaryKind::Sub:
    lhs.subtract(rhs, rm);
    return lhs;
  case BinaryKind::Mul:
    lhs.multiply(rhs, rm);
    return lhs;
  case BinaryKind::Div:
    lhs.divide(rhs, rm);
    return lhs;
  case BinaryKind::Max:
    return llvm::maximum(lhs, rhs);
  case BinaryKind::Min:
    return llvm::minimum(lhs, rhs);
  case BinaryKind::Pow: {
    bool losesInfo = false;
    APFloat base = lhs, exponent = rhs;
    base.convert(APFloat::IEEEdouble(), rm, &losesInfo);
    exponent.convert(APFloat::IEEEdouble(), rm, &losesInfo);
    APFloat result(
        std::pow(base.convertToDouble(), exponent.convertToDouble()));
    result.convert(lhs.getSemantics(), rm, &losesInfo);
    return result;
  }
  }
  llvm_unreachable("unknown binary kind");
}

static std::optional<APInt> evalInt(BinaryKind kind, const APInt &lhs,
                                    const APInt &rhs, bool isSigned) {
  switch (kind) {
  case BinaryKind::Add:
    return lhs + rhs;
  case BinaryKind::Sub:
    return lhs - rhs;
  case BinaryKind::Mul:
    return lhs * rhs;
  case BinaryKind::Div:
    // Division by zero and the overflowing MIN / -1 have no defined result.
    if (rhs.isZero() || (isSigned && lhs.isMinSignedValue() && rhs.isAllOnes()))
      return std::nullopt;
    return isSigned ? lhs.sdiv(rhs) : lhs.udiv(rhs);
  case BinaryKind::Max:
    return isSigned ? llvm::APIntOps::smax(lhs, rhs)
                    : llvm::APIntOps::umax(lhs, rhs);
  case BinaryKind::Min:
    return isSigned ? llvm::APIntOps::smin(lhs, rhs)
                    : llvm::APIntOps::umin(lhs, rhs);
  case BinaryKind::Pow:
    return std::nullopt;
  }
  llvm_unreachable("unknown binary kind");
}

static OpFoldResult foldBinaryConstants(BinaryOp op, DenseElementsAttr lhs,
                                        DenseElementsAttr rhs) {
  auto type = op.getType();
  if (!isFoldableResult(type))
    return {};
  SmallVector<int64_t> lhsIndex =
      broadcastIndices(type.getShape(), lhs.getType().getShape());
  SmallVector<int64_t> rhsIndex =
      broadcastIndices(type.getShape(), rhs.getType().getShape());
  ElementClass elementClass = classify(type.getElementType());
  if (elementClass == ElementClass::Float) {
    SmallVector<APFloat> lhsValues = floatValues(lhs);
    SmallVector<APFloat> rhsValues = floatValues(rhs);
    SmallVector<APFloat> result;
    for (auto [l, r] : llvm::zip_equal(lhsIndex, rhsIndex))
      result.push_back(*evalFloat(op.getKind(), lhsValues[l], rhsValues[r]));
    return DenseElementsAttr::get(type, result);
  }
  bool isSigned = elementClass == ElementClass::Signed;
  SmallVector<APInt> lhsValues = intValues(lhs);
  SmallVector<APInt> rhsValues = intValues(rhs);
  SmallVector<APInt> result;
  for (auto [l, r] : llvm::zip_equal(lhsIndex, rhsIndex)) {
    std::optional<APInt> value =
        evalInt(op.getKind(), lhsValues[l], rhsValues[r], isSigned);
    if (!value)
      return {};
    result.push_back(*value);
  }
  return getIntElements(type, result);
}

static bool isZeroSplat(Attribute attr) {
  return isSplatWhere(attr, nullptr, [](const APInt &v) { return v.isZero(); });
}
static bool isNegativeZeroSplat(Attribute attr) {
  return isSplatWhere(
      attr, [](const APFloat &v) { return v.isZero() && v.isNegative(); },
      nullptr);
}
static bool isPositiveZeroSplat(Attribute attr) {
  return isSplatWhere(
      attr, [](const APFloat &v) { return v.isZero() && !v.isNegative(); },
      nullptr);
}
static bool isOneSplat(Attribute attr) {
  return isSplatWhere(
      attr, [](const APFloat &v) { return v.isExactlyValue(1.0); },
      [](const APInt &v) { return v.isOne(); });
}

OpFoldResult BinaryOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr lhsConst = getFoldableConstant(adaptor.getLhs());
  DenseElementsAttr rhsConst = getFoldableConstant(adaptor.getRhs());
  if (lhsConst && rhsConst)
    return foldBinaryConstants(*this, lhsConst, rhsConst);

  // Identities: fold to the other operand when it already has the result
  // type (the constant does not broadcast it). Only exact identities: for
  // floats, `x + (+0.0)` maps -0.0 to +0.0 and `x - (-0.0)` likewise.
  Attribute lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
  Type type = getType();
  auto lhsIfTyped = [&]() -> OpFoldResult {
    return getLhs().getType() == type ? getLhs() : Value();
  };
  auto rhsIfTyped = [&]() -> OpFoldResult {
    return getRhs().getType() == type ? getRhs() : Value();
  };
  switch (getKind()) {
  case BinaryKind::Add:
    if (isZeroSplat(rhs) || isNegativeZeroSplat(rhs))
      return lhsIfTyped();
    if (isZeroSplat(lhs) || isNegativeZeroSplat(lhs))
      return rhsIfTyped();
    return {};
  case BinaryKind::Sub:
    if (isZeroSplat(rhs) || isPositiveZeroSplat(rhs))
      return lhsIfTyped();
    return {};
  case BinaryKind::Mul: {
    if (isOneSplat(rhs))
      return lhsIfTyped();
    if (isOneSplat(lhs))
      return rhsIfTyped();
    // Integer `x * 0` is 0. Not for floats: NaN * 0, Inf * 0 and -x * 0
    // are not +0.0.
    auto resultType = cast<RankedTensorType>(type);
    if ((isZeroSplat(lhs) || isZeroSplat(rhs)) && resultType.hasStaticShape())
      return DenseElementsAttr::get(
          resultType, APInt::getZero(resultType.getElementTypeBitWidth()));
    return {};
  }
  case BinaryKind::Div:
    if (isOneSplat(rhs))
      return lhsIfTyped();
    return {};
  case BinaryKind::Max:
  case BinaryKind::Min:
  case BinaryKind::Pow:
    return {};
  }
  llvm_unreachable("unknown binary kind");
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult
CastOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                         Adaptor adaptor,
                         SmallVectorImpl<Type> &inferredReturnTypes) {
  auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
  // A `to` that is no element type is the verifier's to report; keep the
  // input's element type then so the inferred type is well-formed.
  Type elementType = inputType.getElementType();
  if (TypeAttr to = adaptor.getToAttr())
    if (TensorType::isValidElementType(to.getValue()))
      elementType = to.getValue();
  inferredReturnTypes.push_back(
      RankedTensorType::get(inputType.getShape(), elementType));
  return success();
}

/// Casts every element of `input` to `type`'s element type following the
/// rules in the op description; null for complex targets.
static Attribute castElements(DenseElementsAttr input, RankedTensorType type) {
  Type from = input.getElementType();
  Type to = type.getElementType();
  ElementClass fromClass = classify(from);
  ElementClass toClass = classify(to);
  if (toClass == ElementClass::Other)
    return {};
  if (fromClass == ElementClass::Float) {
    SmallVector<APFloat> values = floatValues(input);
    if (auto floatType = dyn_cast<FloatType>(to)) {
      for (APFloat &value : values) {
        bool losesInfo = false;
        value.convert(floatType.getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &losesInfo);
      }
      return DenseElementsAttr::get(type, values);
    }
    unsigned width = to.getIntOrFloatBitWidth();
    SmallVector<APInt> result;
    for (const APFloat &value : values) {
      if (width == 1) {
        result.push_back(APInt(1, value.isZero() ? 0 : 1));
        continue;
      }
      // Truncate toward zero; out-of-range values saturate and NaN gives 0.
      APSInt converted(width, /*isUnsigned=*/toClass == ElementClass::Unsigned);
      bool isExact = false;
      value.convertToInteger(converted, APFloat::rmTowardZero, &isExact);
      result.push_back(converted);
    }
    return getIntElements(type, result);
  }
  bool fromSigned = fromClass == ElementClass::Signed;
  SmallVector<APInt> values = intValues(input);
  if (auto floatType = dyn_cast<FloatType>(to)) {
    SmallVector<APFloat> result;
    for (const APInt &value : values) {
      APFloat converted(floatType.getFloatSemantics());
      converted.convertFromAPInt(value, fromSigned,
                                 APFloat::rmNearestTiesToEven);
      result.push_back(converted);
    }
    return DenseElementsAttr::get(type, result);
  }
  unsigned width = to.getIntOrFloatBitWidth();
  for (APInt &value : values) {
    if (width == 1)
      value = APInt(1, value.isZero() ? 0 : 1);
    else
      value = fromSigned ? value.sextOrTrunc(width) : value.zextOrTrunc(width);
  }
  return getIntElements(type, values);
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  DenseElementsAttr input = getFoldableConstant(adaptor.getInput());
  if (!input || !isFoldableResult(getType()))
    return {};
  return castElements(input, getType());
}

//===----------------------------------------------------------------------===//
// CompareOp
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhsType = cast<RankedTensorType>(operands[0].getType());
  auto rhsType = cast<RankedTensorType>(operands[1].getType());
  inferredReturnTypes.push_back(RankedTensorType::get(
      broadcastShapesOrDynamic(lhsType.getShape(), rhsType.getShape()),
      IntegerType::get(context, 1)));
  return success();
}

LogicalResult CompareOp::verify() {
  ArrayRef<int64_t> lhsShape = getLhs().getType().getShape();
  ArrayRef<int64_t> rhsShape = getRhs().getType().getShape();
  if (!broadcastShapes(lhsShape, rhsShape))
    return emitOpError() << "operand shapes " << formatShape(lhsShape)
                         << " and " << formatShape(rhsShape)
                         << " are not broadcast-compatible";
  Type elementType = getLhs().getType().getElementType();
  CompareKind kind = getKind();
  if (isa<ComplexType>(elementType) && kind != CompareKind::Eq &&
      kind != CompareKind::Ne)
    return emitOpError() << "compare '" << stringifyEnum(kind)
                         << "' needs an ordered element type, got "
                         << elementType << " (only eq and ne apply)";
  return success();
}

static bool compareResult(CompareKind kind, bool less, bool equal,
                          bool greater) {
  switch (kind) {
  case CompareKind::Eq:
    return equal;
  case CompareKind::Ne:
    return !equal;
  case CompareKind::Lt:
    return less;
  case CompareKind::Le:
    return less || equal;
  case CompareKind::Gt:
    return greater;
  case CompareKind::Ge:
    return greater || equal;
  }
  llvm_unreachable("unknown compare kind");
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr lhs = getFoldableConstant(adaptor.getLhs());
  DenseElementsAttr rhs = getFoldableConstant(adaptor.getRhs());
  auto type = getType();
  if (!lhs || !rhs || !isFoldableResult(type))
    return {};
  SmallVector<int64_t> lhsIndex =
      broadcastIndices(type.getShape(), lhs.getType().getShape());
  SmallVector<int64_t> rhsIndex =
      broadcastIndices(type.getShape(), rhs.getType().getShape());
  CompareKind kind = getKind();
  SmallVector<bool> result;
  ElementClass elementClass = classify(lhs.getElementType());
  if (elementClass == ElementClass::Float) {
    SmallVector<APFloat> lhsValues = floatValues(lhs);
    SmallVector<APFloat> rhsValues = floatValues(rhs);
    for (auto [l, r] : llvm::zip_equal(lhsIndex, rhsIndex)) {
      // An unordered (NaN) pair is neither less, equal nor greater.
      APFloat::cmpResult cmp = lhsValues[l].compare(rhsValues[r]);
      result.push_back(compareResult(kind, cmp == APFloat::cmpLessThan,
                                     cmp == APFloat::cmpEqual,
                                     cmp == APFloat::cmpGreaterThan));
    }
  } else {
    bool isSigned = elementClass == ElementClass::Signed;
    SmallVector<APInt> lhsValues = intValues(lhs);
    SmallVector<APInt> rhsValues = intValues(rhs);
    for (auto [l, r] : llvm::zip_equal(lhsIndex, rhsIndex)) {
      const APInt &a = lhsValues[l];
      const APInt &b = rhsValues[r];
      bool less = isSigned ? a.slt(b) : a.ult(b);
      result.push_back(compareResult(kind, less, a == b, !less && a != b));
    }
  }
  return DenseElementsAttr::get(type, result);
}

//===----------------------------------------------------------------------===//
// WhereOp
//===----------------------------------------------------------------------===//

LogicalResult WhereOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto condType = cast<RankedTensorType>(operands[0].getType());
  auto trueType = cast<RankedTensorType>(operands[1].getType());
  auto falseType = cast<RankedTensorType>(operands[2].getType());
  SmallVector<int64_t> shape = broadcastShapesOrDynamic(
      broadcastShapesOrDynamic(condType.getShape(), trueType.getShape()),
      falseType.getShape());
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, trueType.getElementType()));
  return success();
}

LogicalResult WhereOp::verify() {
  ArrayRef<int64_t> condShape = getCond().getType().getShape();
  ArrayRef<int64_t> trueShape = getOnTrue().getType().getShape();
  ArrayRef<int64_t> falseShape = getOnFalse().getType().getShape();
  std::optional<SmallVector<int64_t>> values =
      broadcastShapes(trueShape, falseShape);
  if (!values)
    return emitOpError() << "on_true shape " << formatShape(trueShape)
                         << " and on_false shape " << formatShape(falseShape)
                         << " are not broadcast-compatible";
  if (!broadcastShapes(condShape, *values))
    return emitOpError() << "cond shape " << formatShape(condShape)
                         << " is not broadcast-compatible with the values' "
                            "broadcast shape "
                         << formatShape(*values) << " (on_true "
                         << formatShape(trueShape) << ", on_false "
                         << formatShape(falseShape) << ")";
  return success();
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  Type type = getType();
  if (getOnTrue() == getOnFalse() && getOnTrue().getType() == type)
    return getOnTrue();
  auto cond = dyn_cast_or_null<DenseElementsAttr>(adaptor.getCond());
  if (!cond || !cond.isSplat())
    return {};
  Value chosen = cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  if (chosen.getType() != type)
    return {};
  return chosen;
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXElementwiseOps.cpp.inc"
