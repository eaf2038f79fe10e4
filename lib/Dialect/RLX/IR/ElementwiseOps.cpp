//===- ElementwiseOps.cpp - constants, elementwise and casts --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/FoldLimits.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"
#include "rlx/Dialect/RLX/IR/ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <complex>
#include <memory>

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

/// True when a result of type `type` is small and static enough to fold.
static bool isFoldableResult(Type type) {
  std::optional<int64_t> count = checkedElementCount(type);
  return count && *count <= kMaxFoldElements;
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

/// The elements of `attr` as the scalar attributes the arith / math /
/// complex folders take: FloatAttr, IntegerAttr of the signless scalar type,
/// or [re, im] for complex numbers.
static SmallVector<Attribute> scalarAttrs(DenseElementsAttr attr) {
  Type type = getScalarType(attr.getElementType());
  if (auto floatType = dyn_cast<FloatType>(type))
    return llvm::map_to_vector(attr.getValues<APFloat>(),
                               [&](const APFloat &v) -> Attribute {
                                 return FloatAttr::get(floatType, v);
                               });
  if (auto intType = dyn_cast<IntegerType>(type))
    return llvm::map_to_vector(attr.getValues<APInt>(),
                               [&](const APInt &v) -> Attribute {
                                 return IntegerAttr::get(intType, v);
                               });
  auto part = cast<FloatType>(cast<ComplexType>(type).getElementType());
  return llvm::map_to_vector(
      attr.getValues<std::complex<APFloat>>(),
      [&](const std::complex<APFloat> &v) -> Attribute {
        return ArrayAttr::get(
            type.getContext(),
            {FloatAttr::get(part, v.real()), FloatAttr::get(part, v.imag())});
      });
}

/// `values` (scalar attributes, as scalarAttrs makes them) as a constant of
/// `type`, or null when one of them is not a plain number of the element
/// type (a poison value, say).
static DenseElementsAttr getElements(RankedTensorType type,
                                     ArrayRef<Attribute> values) {
  Type elementType = type.getElementType();
  if (isa<FloatType>(elementType)) {
    SmallVector<APFloat> floats;
    for (Attribute value : values) {
      auto attr = dyn_cast<FloatAttr>(value);
      if (!attr || attr.getType() != elementType)
        return {};
      floats.push_back(attr.getValue());
    }
    return DenseElementsAttr::get(type, floats);
  }
  if (auto intType = dyn_cast<IntegerType>(elementType)) {
    SmallVector<APInt> ints;
    for (Attribute value : values) {
      auto attr = dyn_cast<IntegerAttr>(value);
      if (!attr || attr.getType() != getScalarType(elementType))
        return {};
      ints.push_back(attr.getValue());
    }
    // i1 goes through bools so the packed storage is right.
    if (intType.getWidth() == 1)
      return DenseElementsAttr::get(
          type, llvm::map_to_vector(
                    ints, [](const APInt &v) -> bool { return !v.isZero(); }));
    return DenseElementsAttr::get(type, ints);
  }
  SmallVector<std::complex<APFloat>> complexes;
  Type part = cast<ComplexType>(elementType).getElementType();
  for (Attribute value : values) {
    auto pair = dyn_cast<ArrayAttr>(value);
    if (!pair || pair.size() != 2)
      return {};
    auto re = dyn_cast<FloatAttr>(pair[0]);
    auto im = dyn_cast<FloatAttr>(pair[1]);
    if (!re || !im || re.getType() != part || im.getType() != part)
      return {};
    complexes.emplace_back(re.getValue(), im.getValue());
  }
  return DenseElementsAttr::get(type, complexes);
}

/// `arith.truncf` of the constant `operand` rounded to nearest, ties to even,
/// or null. The upstream folder declines inexact conversions; this is the
/// rounding the op has without a `roundingmode` and that lowered code
/// performs (LLVM's fptrunc), so it is the op's own semantics, not another
/// formula.
static Attribute foldInexactTruncF(arith::TruncFOp op, Attribute operand) {
  auto value = dyn_cast_or_null<FloatAttr>(operand);
  std::optional<arith::RoundingMode> mode = op.getRoundingmode();
  if (!value || (mode && *mode != arith::RoundingMode::to_nearest_even))
    return {};
  auto type = cast<FloatType>(op.getType());
  APFloat result = value.getValue();
  bool losesInfo = false;
  result.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                 &losesInfo);
  return FloatAttr::get(type, result);
}

namespace {
/// Evaluates the scalar computation of an op (ScalarizableOpInterface) on
/// constant scalars with the constant folders of the emitted arith / math /
/// complex ops, so a folded element is exactly what the lowered code
/// computes (f16 math in f32, rounded as at run time). The computation is
/// emitted once into a detached block; each element is one walk over it.
class ScalarEvaluator {
public:
  explicit ScalarEvaluator(ScalarizableOpInterface op)
      : block(std::make_unique<Block>()) {
    Location loc = op.getLoc();
    SmallVector<Value> args;
    for (Type type : op->getOperandTypes())
      args.push_back(
          block->addArgument(getScalarType(getElementTypeOrSelf(type)), loc));
    // The block has no parent region to take the context from.
    OpBuilder b(op->getContext());
    b.setInsertionPointToEnd(block.get());
    result = op.emitScalar(b, loc, args);
  }

  /// The result for the scalar attributes `args`, or null when an emitted op
  /// does not fold (no folder, or a folder that declines these values): no
  /// other formula stands in for it.
  Attribute evaluate(ArrayRef<Attribute> args) {
    values.clear();
    for (auto [arg, value] : llvm::zip_equal(block->getArguments(), args))
      values[arg] = value;
    SmallVector<Attribute> operands;
    SmallVector<OpFoldResult> folded;
    for (Operation &op : *block) {
      operands.clear();
      for (Value operand : op.getOperands())
        operands.push_back(values.lookup(operand));
      folded.clear();
      if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
        if (Attribute rounded = foldInexactTruncF(trunc, operands.front())) {
          values[trunc.getResult()] = rounded;
          continue;
        }
      }
      if (failed(op.fold(operands, folded)) ||
          folded.size() != op.getNumResults())
        return {};
      for (auto [opResult, value] : llvm::zip_equal(op.getResults(), folded)) {
        // A folder may return one of the op's operands, whose value is
        // known; an in-place fold returns the op's own result, which is not.
        Attribute attr = dyn_cast<Attribute>(value);
        if (!attr)
          attr = values.lookup(cast<Value>(value));
        if (!attr)
          return {};
        values[opResult] = attr;
      }
    }
    return values.lookup(result);
  }

private:
  std::unique_ptr<Block> block;
  Value result;
  DenseMap<Value, Attribute> values;
};
} // namespace

/// Folds the elementwise `op` whose operands are the constants `operands`
/// by evaluating its scalar computation on each element (operands
/// broadcast NumPy-style to the result), or null.
static OpFoldResult foldConstantOperands(ScalarizableOpInterface op,
                                         ArrayRef<Attribute> operands) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (!isFoldableResult(type))
    return {};
  SmallVector<SmallVector<Attribute>> elements;
  SmallVector<SmallVector<int64_t>> indices;
  for (Attribute operand : operands) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(operand);
    if (!dense)
      return {};
    elements.push_back(scalarAttrs(dense));
    indices.push_back(
        broadcastIndices(type.getShape(), dense.getType().getShape()));
  }
  ScalarEvaluator evaluator(op);
  SmallVector<Attribute> results;
  SmallVector<Attribute> args(operands.size());
  for (int64_t n = 0, e = type.getNumElements(); n < e; ++n) {
    for (size_t i = 0; i < operands.size(); ++i)
      args[i] = elements[i][indices[i][n]];
    Attribute result = evaluator.evaluate(args);
    if (!result)
      return {};
    results.push_back(result);
  }
  return getElements(type, results);
}

static bool isSplatWhere(Attribute attr,
                         function_ref<bool(const APFloat &)> floatPred,
                         function_ref<bool(const APInt &)> intPred) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  Type elementType = dense.getElementType();
  if (isa<FloatType>(elementType))
    return floatPred && floatPred(dense.getSplatValue<APFloat>());
  if (isa<IntegerType>(elementType))
    return intPred && intPred(dense.getSplatValue<APInt>());
  return false;
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

Value ActivationOp::emitScalar(OpBuilder &b, Location loc,
                               ValueRange operands) {
  return emitActivation(b, loc, getKind(), operands[0]);
}

OpFoldResult ActivationOp::fold(FoldAdaptor adaptor) {
  return foldConstantOperands(*this, adaptor.getOperands());
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
  case BinaryKind::FloorDiv:
  case BinaryKind::Remainder:
  case BinaryKind::Fmod:
    if (isa<ComplexType>(elementType))
      return reject("needs an ordered element type");
    if (elementType.isInteger(1))
      return reject("is not defined on i1");
    return success();
  }
  llvm_unreachable("unknown binary kind");
}

Value BinaryOp::emitScalar(OpBuilder &b, Location loc, ValueRange operands) {
  return emitBinary(b, loc, getKind(), operands[0], operands[1],
                    getType().getElementType().isUnsignedInteger());
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
  if (adaptor.getLhs() && adaptor.getRhs())
    return foldConstantOperands(*this, adaptor.getOperands());

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
  case BinaryKind::FloorDiv:
  case BinaryKind::Remainder:
  case BinaryKind::Fmod:
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

Value CastOp::emitScalar(OpBuilder &b, Location loc, ValueRange operands) {
  return emitCast(b, loc, operands[0], getInput().getType().getElementType(),
                  getType().getElementType());
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return foldConstantOperands(*this, adaptor.getOperands());
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

Value CompareOp::emitScalar(OpBuilder &b, Location loc, ValueRange operands) {
  return emitCompare(b, loc, getKind(), operands[0], operands[1],
                     getLhs().getType().getElementType().isUnsignedInteger());
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  return foldConstantOperands(*this, adaptor.getOperands());
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

Value WhereOp::emitScalar(OpBuilder &b, Location loc, ValueRange operands) {
  return emitWhere(b, loc, operands[0], operands[1], operands[2]);
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  Type type = getType();
  if (getOnTrue() == getOnFalse() && getOnTrue().getType() == type)
    return getOnTrue();
  if (adaptor.getCond() && adaptor.getOnTrue() && adaptor.getOnFalse())
    return foldConstantOperands(*this, adaptor.getOperands());
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
