//===- GemmCalls.cpp - GEMMs on buffers as library calls ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/GemmCalls.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

AffineMap rlx::swapLastTwoResults(AffineMap map) {
  SmallVector<AffineExpr> results(map.getResults());
  std::swap(results[results.size() - 1], results[results.size() - 2]);
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

std::optional<rlx::TransposableGemm>
rlx::matchTransposableGemm(linalg::LinalgOp op, bool allowHalfInputs) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineMap> defaults;
  if (isa<linalg::MatmulOp>(op.getOperation()))
    defaults = linalg::MatmulOp::getDefaultIndexingMaps(ctx);
  else if (isa<linalg::BatchMatmulOp>(op.getOperation()))
    defaults = linalg::BatchMatmulOp::getDefaultIndexingMaps(ctx);
  else
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps.size() != 3 || maps[2] != defaults[2])
    return std::nullopt;
  TransposableGemm gemm;
  for (unsigned i : {0u, 1u}) {
    if (maps[i] == defaults[i])
      continue;
    if (maps[i] != swapLastTwoResults(defaults[i]))
      return std::nullopt;
    gemm.transposed[i] = true;
  }
  gemm.elementType = getElementTypeOrSelf(op->getOperand(2).getType());
  for (unsigned i : {0u, 1u})
    gemm.inputTypes[i] = getElementTypeOrSelf(op->getOperand(i).getType());
  if (gemm.inputTypes[0] == gemm.elementType &&
      gemm.inputTypes[1] == gemm.elementType)
    return gemm;
  auto isHalf = [](Type type) { return type.isF16() || type.isBF16(); };
  auto isHalfOrF32 = [&](Type type) { return isHalf(type) || type.isF32(); };
  Type lhs = gemm.inputTypes[0], rhs = gemm.inputTypes[1];
  if (allowHalfInputs && gemm.elementType.isF32() && isHalfOrF32(lhs) &&
      isHalfOrF32(rhs) && (isHalf(lhs) || isHalf(rhs)) &&
      (lhs == rhs || lhs.isF32() || rhs.isF32()))
    return gemm;
  return std::nullopt;
}

MemRefType rlx::getFullyDynamicStridedType(Type elementType, int64_t rank) {
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(elementType.getContext(),
                                       ShapedType::kDynamic, dynamic);
  return MemRefType::get(dynamic, elementType, layout);
}

std::optional<rlx::GroupedGemm> rlx::matchGroupedGemm(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !generic->hasAttr(kGroupedMatMulAttrName) ||
      !generic.hasPureBufferSemantics() || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1)
    return std::nullopt;
  MLIRContext *ctx = op->getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), k = getAffineDimExpr(1, ctx),
             n = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> expected = {AffineMap::get(3, 0, {m, k}, ctx),
                                     AffineMap::get(3, 0, {m}, ctx),
                                     AffineMap::get(3, 0, {m, n}, ctx)};
  if (generic.getIndexingMapsArray() != expected)
    return std::nullopt;
  GroupedGemm gemm;
  gemm.input = generic.getDpsInputs()[0];
  gemm.expertIdx = generic.getDpsInputs()[1];
  gemm.output = generic.getDpsInits()[0];
  gemm.elementType = cast<MemRefType>(gemm.output.getType()).getElementType();
  if (cast<MemRefType>(gemm.input.getType()).getElementType() !=
      gemm.elementType)
    return std::nullopt;
  // The weight is the one buffer from outside that the body loads, at
  // [expert, k, n].
  SmallVector<memref::LoadOp> loads;
  generic.getRegion().walk([&](memref::LoadOp load) { loads.push_back(load); });
  if (loads.size() != 1)
    return std::nullopt;
  memref::LoadOp load = loads.front();
  auto weightType = dyn_cast<MemRefType>(load.getMemRef().getType());
  if (!weightType || weightType.getRank() != 3 ||
      weightType.getElementType() != gemm.elementType ||
      generic.getRegion().isAncestor(load.getMemRef().getParentRegion()))
    return std::nullopt;
  auto isIndexOf = [](Value value, uint64_t dim) {
    auto index = value.getDefiningOp<linalg::IndexOp>();
    return index && index.getDim() == dim;
  };
  if (!isIndexOf(load.getIndices()[1], 1) ||
      !isIndexOf(load.getIndices()[2], 2))
    return std::nullopt;
  gemm.weight = load.getMemRef();
  return gemm;
}
