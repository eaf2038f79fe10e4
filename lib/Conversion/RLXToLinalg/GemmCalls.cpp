//===- GemmCalls.cpp - GEMMs on buffers as library calls ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/GemmCalls.h"

using namespace mlir;

std::optional<Type> rlx::matchPlainGemm(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation())) {
    if (matmul.hasUserDefinedMaps())
      return std::nullopt;
  } else if (auto batched =
                 dyn_cast<linalg::BatchMatmulOp>(op.getOperation())) {
    if (batched.hasUserDefinedMaps())
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  Type elementType = getElementTypeOrSelf(op->getOperand(2).getType());
  for (Value operand : op->getOperands())
    if (getElementTypeOrSelf(operand.getType()) != elementType)
      return std::nullopt;
  return elementType;
}

SmallVector<std::pair<linalg::LinalgOp, Type>>
rlx::collectPlainGemms(Operation *module) {
  SmallVector<std::pair<linalg::LinalgOp, Type>> gemms;
  module->walk([&](linalg::LinalgOp op) {
    if (std::optional<Type> elementType = matchPlainGemm(op))
      gemms.emplace_back(op, *elementType);
  });
  return gemms;
}

MemRefType rlx::getFullyDynamicStridedType(Type elementType, int64_t rank) {
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(elementType.getContext(),
                                       ShapedType::kDynamic, dynamic);
  return MemRefType::get(dynamic, elementType, layout);
}
