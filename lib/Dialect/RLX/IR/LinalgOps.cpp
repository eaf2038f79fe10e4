//===- LinalgOps.cpp - matmul and linear algebra --------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerLinalgOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXLinalgOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhsType = cast<RankedTensorType>(operands[0].getType());
  auto rhsType = cast<RankedTensorType>(operands[1].getType());
  ArrayRef<int64_t> lhs = lhsType.getShape();
  ArrayRef<int64_t> rhs = rhsType.getShape();
  // Rank errors are the verifier's to report; infer something well-formed.
  if (lhs.size() < 2 || rhs.size() < 2) {
    inferredReturnTypes.push_back(lhsType);
    return success();
  }
  SmallVector<int64_t> shape =
      broadcastShapesOrDynamic(lhs.drop_back(2), rhs.drop_back(2));
  shape.push_back(lhs[lhs.size() - 2]);
  shape.push_back(rhs.back());
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, lhsType.getElementType()));
  return success();
}

LogicalResult MatMulOp::verify() {
  ArrayRef<int64_t> lhs = getLhs().getType().getShape();
  ArrayRef<int64_t> rhs = getRhs().getType().getShape();
  if (lhs.size() < 2)
    return emitOpError() << "lhs must have rank >= 2 ([..., M, K]), got "
                         << formatShape(lhs);
  if (rhs.size() < 2)
    return emitOpError() << "rhs must have rank >= 2 ([..., K, N]), got "
                         << formatShape(rhs);
  int64_t lhsK = lhs.back();
  int64_t rhsK = rhs[rhs.size() - 2];
  if (!dimsCompatible(lhsK, rhsK))
    return emitOpError() << "contraction dims differ: lhs " << formatShape(lhs)
                         << " has K = " << lhsK << " but rhs "
                         << formatShape(rhs) << " has K = " << rhsK;
  if (!broadcastShapes(lhs.drop_back(2), rhs.drop_back(2)))
    return emitOpError() << "batch dims " << formatShape(lhs.drop_back(2))
                         << " and " << formatShape(rhs.drop_back(2))
                         << " are not broadcast-compatible";
  return success();
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXLinalgOps.cpp.inc"
