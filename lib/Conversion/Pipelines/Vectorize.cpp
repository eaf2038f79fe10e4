//===- Vectorize.cpp - vectorize provably contiguous affine loops ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The upstream affine super-vectorizer may treat a strided or `mod`-indexed
// access as contiguous. This pass decides which loops are safe (every access
// is invariant or unit-stride in the last index) and hands only those to it.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPUVECTORIZE
#include "rlx/Conversion/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {

/// How an access depends on the loop's induction variable.
enum class Dependence { Invariant, UnitStride, Other };

Dependence classify(AffineMap map, ValueRange operands, Value iv) {
  SmallVector<unsigned> ivDims;
  for (auto [pos, operand] : llvm::enumerate(operands)) {
    if (operand != iv)
      continue;
    if (pos >= map.getNumDims())
      return Dependence::Other; // Used as a symbol: not analysable here.
    ivDims.push_back(pos);
  }
  if (ivDims.empty())
    return Dependence::Invariant;
  Dependence result = Dependence::Invariant;
  unsigned last = map.getNumResults() - 1;
  for (auto [index, resultExpr] : llvm::enumerate(map.getResults())) {
    AffineExpr expr = resultExpr;
    bool depends = llvm::any_of(
        ivDims, [&](unsigned pos) { return expr.isFunctionOfDim(pos); });
    if (!depends)
      continue;
    if (index != last || ivDims.size() != 1)
      return Dependence::Other;
    // `expr - iv` must not involve iv: unit stride, no scaling or mod.
    AffineExpr ivExpr = getAffineDimExpr(ivDims.front(), map.getContext());
    AffineExpr rest = simplifyAffineExpr(expr - ivExpr, map.getNumDims(),
                                         map.getNumSymbols());
    if (rest.isFunctionOfDim(ivDims.front()))
      return Dependence::Other;
    result = Dependence::UnitStride;
  }
  return result;
}

bool isSafeToVectorize(affine::AffineForOp loop) {
  Value iv = loop.getInductionVar();
  bool safe = true;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<affine::AffineForOp, affine::AffineParallelOp>(op)) {
      safe = false; // Not innermost.
    } else if (auto load = dyn_cast<affine::AffineLoadOp>(op)) {
      if (classify(load.getAffineMap(), load.getMapOperands(), iv) ==
          Dependence::Other)
        safe = false;
    } else if (auto store = dyn_cast<affine::AffineStoreOp>(op)) {
      if (classify(store.getAffineMap(), store.getMapOperands(), iv) !=
          Dependence::UnitStride)
        safe = false;
    }
    return safe ? WalkResult::advance() : WalkResult::interrupt();
  });
  return safe;
}

struct RLXCPUVectorizePass
    : rlx::impl::RLXCPUVectorizeBase<RLXCPUVectorizePass> {
  using RLXCPUVectorizeBase::RLXCPUVectorizeBase;

  void runOnOperation() override {
    if (vectorSize < 2)
      return;
    llvm::DenseSet<Operation *> loops;
    getOperation().walk([&](affine::AffineForOp loop) {
      if (isSafeToVectorize(loop))
        loops.insert(loop);
    });
    if (loops.empty())
      return;
    affine::vectorizeAffineLoops(getOperation(), loops, {vectorSize}, {});
  }
};

} // namespace
