//===- Vectorize.cpp - vectorize provably contiguous affine loops ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The upstream affine super-vectorizer may treat a strided or `mod`-indexed
// access as contiguous. This pass decides which loops are safe (every access
// is invariant or unit-stride in the last index, seen through the index
// arithmetic feeding it) and hands only those to it, so the target-independent
// lowering can use any indexing map.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"

#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPUVECTORIZE
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {

/// How an access depends on the loop's induction variable.
enum class Dependence { Invariant, UnitStride, Other };

/// How the access `map(operands)` depends on `loop`'s induction variable.
/// Index computations feeding the access (the `affine.apply`s the linalg
/// lowering emits for a non-identity indexing map) are composed into the map
/// first, so a strided, reversed or `mod` index is seen as such; an index
/// computed inside the loop by anything else is not analysable.
Dependence classify(AffineMap map, ValueRange accessOperands,
                    affine::AffineForOp loop) {
  Value iv = loop.getInductionVar();
  SmallVector<Value> operands(accessOperands);
  affine::fullyComposeAffineMapAndOperands(&map, &operands);
  SmallVector<unsigned> ivDims;
  for (auto [pos, operand] : llvm::enumerate(operands)) {
    if (operand != iv) {
      if (!loop.isDefinedOutsideOfLoop(operand))
        return Dependence::Other;
      continue;
    }
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

/// Memory holds one element of a sub-byte type (i1) per byte, but LLVM
/// packs the elements of such a vector into bits: a vector load or store of
/// them would read or write the wrong bytes.
bool isByteAddressable(Value memref) {
  Type elementType = cast<MemRefType>(memref.getType()).getElementType();
  return !elementType.isIntOrFloat() ||
         elementType.getIntOrFloatBitWidth() % 8 == 0;
}

/// The upstream vectorizer reports "NYI: non-trivial layout map" as an
/// error for an access to a memref with a strided (non-identity) layout,
/// leaves the loop scalar and does not fail the pass: the pipeline printed
/// `error:` and exited 0. Such loops are left scalar here, without it.
bool hasIdentityLayout(Value memref) {
  return cast<MemRefType>(memref.getType()).getLayout().isIdentity();
}

bool isSafeToVectorize(affine::AffineForOp loop) {
  bool safe = true;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<affine::AffineForOp, affine::AffineParallelOp>(op)) {
      safe = false; // Not innermost.
    } else if (auto access = dyn_cast<affine::AffineReadOpInterface>(op);
               access && !hasIdentityLayout(access.getMemRef())) {
      safe = false;
    } else if (auto access = dyn_cast<affine::AffineWriteOpInterface>(op);
               access && !hasIdentityLayout(access.getMemRef())) {
      safe = false;
    } else if (auto load = dyn_cast<affine::AffineLoadOp>(op)) {
      Dependence dependence =
          classify(load.getAffineMap(), load.getMapOperands(), loop);
      if (dependence == Dependence::Other ||
          (dependence == Dependence::UnitStride &&
           !isByteAddressable(load.getMemRef())))
        safe = false;
    } else if (auto store = dyn_cast<affine::AffineStoreOp>(op)) {
      if (classify(store.getAffineMap(), store.getMapOperands(), loop) !=
              Dependence::UnitStride ||
          !isByteAddressable(store.getMemRef()))
        safe = false;
    }
    return safe ? WalkResult::advance() : WalkResult::interrupt();
  });
  return safe;
}

/// Turns `acc[c] = acc[c] <op> f(iv)` (the form linalg reductions take as
/// loops) into a loop-carried value, which the vectorizer reduces in vector
/// registers: load before the loop, iter_args inside, store after. Returns
/// the loop to vectorize (the new one, or `loop` when there is no such
/// accumulator).
affine::AffineForOp carryAccumulator(IRRewriter &rewriter,
                                     affine::AffineForOp loop) {
  if (loop.getNumIterOperands() != 0)
    return loop;
  affine::AffineStoreOp store;
  for (auto candidate : loop.getBody()->getOps<affine::AffineStoreOp>()) {
    if (classify(candidate.getAffineMap(), candidate.getMapOperands(), loop) !=
        Dependence::Invariant)
      continue;
    if (store)
      return loop; // Several accumulators: leave the loop alone.
    store = candidate;
  }
  if (!store || !llvm::all_of(store.getMapOperands(), [&](Value v) {
        return loop.isDefinedOutsideOfLoop(v);
      }))
    return loop;
  Operation *combiner = store.getValueToStore().getDefiningOp();
  if (!combiner || combiner->getBlock() != loop.getBody() ||
      !combiner->hasOneUse() ||
      !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::AddIOp, arith::MulIOp, arith::MaxSIOp, arith::MinSIOp,
           arith::MaxUIOp, arith::MinUIOp>(combiner))
    return loop;
  affine::AffineLoadOp load;
  for (Value operand : combiner->getOperands()) {
    auto candidate = operand.getDefiningOp<affine::AffineLoadOp>();
    if (candidate && candidate.getMemRef() == store.getMemRef() &&
        candidate.getAffineMap() == store.getAffineMap() &&
        candidate.getMapOperands() == store.getMapOperands() &&
        candidate->hasOneUse())
      load = candidate;
  }
  if (!load)
    return loop;
  // Nothing else in the loop may touch the accumulator's buffer.
  bool otherAccess = false;
  loop.getBody()->walk([&](Operation *op) {
    if (op != load && op != store &&
        llvm::is_contained(op->getOperands(), store.getMemRef()))
      otherAccess = true;
  });
  if (otherAccess)
    return loop;

  rewriter.setInsertionPoint(loop);
  Value init = affine::AffineLoadOp::create(
      rewriter, load.getLoc(), store.getMemRef(), store.getAffineMap(),
      store.getMapOperands());
  Value combined = combiner->getResult(0);
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{combined};
      });
  if (failed(replaced))
    return loop; // Nothing was changed but the hoisted load, which is dead.
  auto carried = cast<affine::AffineForOp>(replaced->getOperation());
  rewriter.replaceAllUsesWith(load.getResult(),
                              carried.getRegionIterArgs().back());
  rewriter.eraseOp(load);
  rewriter.setInsertionPointAfter(carried);
  affine::AffineStoreOp::create(rewriter, store.getLoc(),
                                carried.getResults().back(), store.getMemRef(),
                                store.getAffineMap(), store.getMapOperands());
  rewriter.eraseOp(store);
  return carried;
}

struct RLXCPUVectorizePass
    : rlx::impl::RLXCPUVectorizeBase<RLXCPUVectorizePass> {
  using RLXCPUVectorizeBase::RLXCPUVectorizeBase;

  void runOnOperation() override {
    if (vectorSize < 2)
      return;
    SmallVector<affine::AffineForOp> innermost;
    getOperation().walk([&](affine::AffineForOp loop) {
      if (loop.getBody()->getOps<affine::AffineForOp>().empty())
        innermost.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    llvm::DenseSet<Operation *> loops;
    affine::ReductionLoopMap reductions;
    for (affine::AffineForOp loop : innermost) {
      loop = carryAccumulator(rewriter, loop);
      if (!isSafeToVectorize(loop))
        continue;
      if (loop.getNumIterOperands() != 0) {
        SmallVector<affine::LoopReduction, 2> loopReductions;
        if (!affine::isLoopParallel(loop, &loopReductions) ||
            loopReductions.size() != loop.getNumIterOperands())
          continue;
        reductions[loop] = loopReductions;
      }
      loops.insert(loop);
    }
    if (loops.empty())
      return;
    affine::vectorizeAffineLoops(getOperation(), loops, {vectorSize}, {},
                                 reductions);
  }
};

} // namespace
