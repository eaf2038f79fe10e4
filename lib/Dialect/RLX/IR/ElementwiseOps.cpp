//===- ElementwiseOps.cpp - constants, elementwise and casts --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

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

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXElementwiseOps.cpp.inc"
