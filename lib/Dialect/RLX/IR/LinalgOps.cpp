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
// DotGeneralOp
//===----------------------------------------------------------------------===//

/// Free dims of an operand: every dim in neither `contracting` nor `batch`,
/// in operand order. Out-of-range entries are ignored (the verifier reports
/// them).
static SmallVector<int64_t>
freeDims(int64_t rank, ArrayRef<int64_t> contracting, ArrayRef<int64_t> batch) {
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(contracting, d) && !llvm::is_contained(batch, d))
      dims.push_back(d);
  return dims;
}

LogicalResult
DotGeneralOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                               Adaptor adaptor,
                               SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhsType = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhsType = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!lhsType || !rhsType) {
    inferredReturnTypes.push_back(adaptor.getLhs().getType());
    return success();
  }
  ArrayRef<int64_t> lhs = lhsType.getShape();
  ArrayRef<int64_t> rhs = rhsType.getShape();
  auto dimOf = [](ArrayRef<int64_t> shape, int64_t d) {
    return d >= 0 && d < static_cast<int64_t>(shape.size())
               ? shape[d]
               : ShapedType::kDynamic;
  };
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> lhsBatch = adaptor.getLhsBatch();
  ArrayRef<int64_t> rhsBatch = adaptor.getRhsBatch();
  for (auto [i, d] : llvm::enumerate(lhsBatch)) {
    int64_t size = dimOf(lhs, d);
    if (ShapedType::isDynamic(size) && i < rhsBatch.size())
      size = dimOf(rhs, rhsBatch[i]);
    shape.push_back(size);
  }
  for (int64_t d : freeDims(lhs.size(), adaptor.getLhsContracting(), lhsBatch))
    shape.push_back(lhs[d]);
  for (int64_t d : freeDims(rhs.size(), adaptor.getRhsContracting(), rhsBatch))
    shape.push_back(rhs[d]);
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, lhsType.getElementType()));
  return success();
}

/// Checks that the dims of one operand are in range and used at most once
/// across its batch and contracting lists.
static LogicalResult verifyDimLists(Operation *op, StringRef side,
                                    ArrayRef<int64_t> shape,
                                    ArrayRef<int64_t> contracting,
                                    ArrayRef<int64_t> batch) {
  int64_t rank = shape.size();
  llvm::SmallDenseMap<int64_t, StringRef> seen;
  for (auto [list, name] : {std::pair{batch, StringRef("batch")},
                            std::pair{contracting, StringRef("contracting")}}) {
    for (int64_t d : list) {
      if (d < 0 || d >= rank)
        return op->emitOpError()
               << side << "_" << name << " dim " << d << " is out of range for "
               << side << " " << formatShape(shape) << " of rank " << rank;
      auto [it, inserted] = seen.try_emplace(d, name);
      if (!inserted)
        return op->emitOpError()
               << side << " dim " << d << " appears more than once (in " << side
               << "_" << it->second << " and " << side << "_" << name << ")";
    }
  }
  return success();
}

LogicalResult DotGeneralOp::verify() {
  ArrayRef<int64_t> lhs = getLhs().getType().getShape();
  ArrayRef<int64_t> rhs = getRhs().getType().getShape();
  ArrayRef<int64_t> lhsContracting = getLhsContracting();
  ArrayRef<int64_t> rhsContracting = getRhsContracting();
  ArrayRef<int64_t> lhsBatch = getLhsBatch();
  ArrayRef<int64_t> rhsBatch = getRhsBatch();
  if (lhsContracting.size() != rhsContracting.size())
    return emitOpError() << "lhs_contracting has " << lhsContracting.size()
                         << " dims but rhs_contracting has "
                         << rhsContracting.size();
  if (lhsBatch.size() != rhsBatch.size())
    return emitOpError() << "lhs_batch has " << lhsBatch.size()
                         << " dims but rhs_batch has " << rhsBatch.size();
  if (failed(verifyDimLists(*this, "lhs", lhs, lhsContracting, lhsBatch)) ||
      failed(verifyDimLists(*this, "rhs", rhs, rhsContracting, rhsBatch)))
    return failure();
  for (auto [l, r] : llvm::zip(lhsContracting, rhsContracting))
    if (!dimsCompatible(lhs[l], rhs[r]))
      return emitOpError() << "contracting dims differ: lhs "
                           << formatShape(lhs) << " dim " << l << " has size "
                           << lhs[l] << " but rhs " << formatShape(rhs)
                           << " dim " << r << " has size " << rhs[r];
  for (auto [l, r] : llvm::zip(lhsBatch, rhsBatch))
    if (!dimsCompatible(lhs[l], rhs[r]))
      return emitOpError() << "batch dims differ: lhs " << formatShape(lhs)
                           << " dim " << l << " has size " << lhs[l]
                           << " but rhs " << formatShape(rhs) << " dim " << r
                           << " has size " << rhs[r];
  return success();
}

//===----------------------------------------------------------------------===//
// DenseSolveOp / BatchedDenseSolveOp
//===----------------------------------------------------------------------===//

/// Shared rule of the dense solves; `batched` adds a leading batch dim.
static LogicalResult verifySolve(Operation *op, ArrayRef<int64_t> a,
                                 ArrayRef<int64_t> b, bool batched) {
  size_t lead = batched ? 1 : 0;
  StringRef aLayout = batched ? "[B, N, N]" : "[N, N]";
  StringRef bLayout = batched ? "[B, N] or [B, N, K]" : "[N] or [N, K]";
  if (a.size() != 2 + lead)
    return op->emitOpError() << "a must have rank " << 2 + lead << " ("
                             << aLayout << "), got " << formatShape(a);
  if (!dimsCompatible(a[lead], a[lead + 1]))
    return op->emitOpError()
           << "a must be square " << aLayout << ", got " << formatShape(a);
  if (b.size() != 1 + lead && b.size() != 2 + lead)
    return op->emitOpError()
           << "b must have rank " << 1 + lead << " or " << 2 + lead << " ("
           << bLayout << "), got " << formatShape(b);
  if (batched && !dimsCompatible(a[0], b[0]))
    return op->emitOpError()
           << "batch sizes differ: a " << formatShape(a) << " has B = " << a[0]
           << " but b " << formatShape(b) << " has B = " << b[0];
  int64_t n = ShapedType::isDynamic(a[lead]) ? a[lead + 1] : a[lead];
  if (!dimsCompatible(n, b[lead]))
    return op->emitOpError()
           << "row counts differ: a " << formatShape(a) << " has N = " << n
           << " but b " << formatShape(b) << " has N = " << b[lead];
  return success();
}

LogicalResult DenseSolveOp::verify() {
  return verifySolve(*this, getA().getType().getShape(),
                     getB().getType().getShape(), /*batched=*/false);
}

LogicalResult BatchedDenseSolveOp::verify() {
  return verifySolve(*this, getA().getType().getShape(),
                     getB().getType().getShape(), /*batched=*/true);
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXLinalgOps.cpp.inc"
