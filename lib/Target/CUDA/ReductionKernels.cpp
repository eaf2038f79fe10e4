//===- ReductionKernels.cpp - one block per reduced output ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Reductions (softmax's max and sum, the norms' moments, reduce ops, loss
// sums) come out of the lowering as linalg ops with reduction iterators. A
// thread per output would walk a whole row alone; here a block computes
// one output: its threads stride over the reduced points, each folding its
// share into a partial with the op's own combiner, and `gpu.all_reduce`
// (warp shuffles, then shared memory across warps) combines the partials.
//
//===----------------------------------------------------------------------===//

#include "ReductionKernels.h"
#include "KernelIndexing.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace {

/// How `gpu.all_reduce` and arith name the combiner of a reduction.
struct Combiner {
  arith::AtomicRMWKind kind;
  gpu::AllReduceOperation operation;
};

std::optional<Combiner> classifyCombiner(Operation *op) {
  using K = arith::AtomicRMWKind;
  using R = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<Combiner>>(op)
      .Case([](arith::AddFOp) { return Combiner{K::addf, R::ADD}; })
      .Case([](arith::AddIOp) { return Combiner{K::addi, R::ADD}; })
      .Case([](arith::MulFOp) { return Combiner{K::mulf, R::MUL}; })
      .Case([](arith::MulIOp) { return Combiner{K::muli, R::MUL}; })
      .Case(
          [](arith::MaximumFOp) { return Combiner{K::maximumf, R::MAXIMUMF}; })
      .Case(
          [](arith::MinimumFOp) { return Combiner{K::minimumf, R::MINIMUMF}; })
      .Case([](arith::MaxNumFOp) { return Combiner{K::maxnumf, R::MAXNUMF}; })
      .Case([](arith::MinNumFOp) { return Combiner{K::minnumf, R::MINNUMF}; })
      .Case([](arith::MaxSIOp) { return Combiner{K::maxs, R::MAXSI}; })
      .Case([](arith::MinSIOp) { return Combiner{K::mins, R::MINSI}; })
      .Case([](arith::MaxUIOp) { return Combiner{K::maxu, R::MAXUI}; })
      .Case([](arith::MinUIOp) { return Combiner{K::minu, R::MINUI}; })
      .Case([](arith::AndIOp) { return Combiner{K::andi, R::AND}; })
      .Case([](arith::OrIOp) { return Combiner{K::ori, R::OR}; })
      .Case([](arith::XOrIOp) { return Combiner{K::xori, R::XOR}; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Blocks a GPU keeps busy: a reduction with fewer outputs than this splits
/// each output's points over several blocks (an H200 has 132
/// multiprocessors).
constexpr int64_t kBusyBlocks = 256;
/// Points a thread folds, at least, in a split reduction's first kernel.
constexpr int64_t kSplitPointsPerThread = 8;
/// Threads per block of the reduction kernels.
constexpr int64_t kReductionThreads = 256;

/// Blocks per output: 1, or for few outputs over many points enough
/// blocks that each thread folds about kSplitPointsPerThread points, with
/// no more than kBusyBlocks blocks in all.
int64_t blocksPerOutput(int64_t outputs, int64_t reduced) {
  if (outputs * 2 > kBusyBlocks)
    return 1;
  int64_t wanted =
      llvm::divideCeil(reduced, kReductionThreads * kSplitPointsPerThread);
  return std::max<int64_t>(1, std::min(wanted, kBusyBlocks / outputs));
}

/// The element of `operand` that loop point `ivs` reads or writes.
SmallVector<Value> operandIndices(OpBuilder &b, Location loc, AffineMap map,
                                  ValueRange ivs) {
  SmallVector<Value> indices;
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    indices.push_back(
        affine::AffineApplyOp::create(b, loc, map.getSubMap({i}), ivs));
  return indices;
}

} // namespace

bool rlx::mapRowReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                          int64_t minReducedPoints) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0 || !isa<linalg::GenericOp>(op) ||
      linalg::isaContractionOpInterface(op))
    return false;
  // gpu.all_reduce shuffles 32-bit values, and 64-bit ones as two halves
  // (the NVVM lowering of gpu.shuffle).
  Type elementType = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!elementType.isIntOrFloat() ||
      (elementType.getIntOrFloatBitWidth() != 32 &&
       elementType.getIntOrFloatBitWidth() != 64))
    return false;
  SmallVector<Operation *> combinerOps;
  Block *body = op.getBlock();
  if (!matchReduction(op.getRegionOutputArgs(), 0, combinerOps) ||
      combinerOps.size() != 1)
    return false;
  std::optional<Combiner> combiner = classifyCombiner(combinerOps.front());
  if (!combiner)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return false;
  int64_t outputs = 1, reduced = 1;
  SmallVector<unsigned> parallelDims, reducedDims;
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (iterator == utils::IteratorType::parallel) {
      parallelDims.push_back(dim);
      outputs *= ranges[dim];
    } else {
      reducedDims.push_back(dim);
      reduced *= ranges[dim];
    }
  }
  if (reduced < minReducedPoints || outputs == 0)
    return false;

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  // Whole warps, up to 256 threads, no more than there are points.
  int64_t threadCount =
      std::min<int64_t>(kReductionThreads, llvm::alignTo(reduced, 32));
  Value one = index(1);
  Value threads = index(threadCount);
  // With `split` blocks per output, block b takes output b / split and the
  // points of its part b % split, [part * chunk, (part + 1) * chunk); a
  // second kernel combines each output's parts, in order, from a buffer.
  int64_t split = blocksPerOutput(outputs, reduced);
  int64_t chunk = llvm::divideCeil(reduced, split);
  Value partials;
  if (split > 1)
    partials = memref::AllocOp::create(
        rewriter, loc, MemRefType::get({outputs, split}, elementType));
  auto launch = gpu::LaunchOp::create(rewriter, loc, index(outputs * split),
                                      one, one, threads, one, one);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  Value thread = launch.getThreadIds().x;
  Value output = launch.getBlockIds().x;
  Value begin = thread, end = index(reduced);
  Value part;
  if (split > 1) {
    output = arith::DivUIOp::create(rewriter, loc, output, index(split));
    part = arith::RemUIOp::create(rewriter, loc, launch.getBlockIds().x,
                                  index(split));
    Value first = arith::MulIOp::create(rewriter, loc, part, index(chunk));
    begin = arith::AddIOp::create(rewriter, loc, first, thread);
    end = arith::MinUIOp::create(
        rewriter, loc,
        arith::AddIOp::create(rewriter, loc, first, index(chunk)),
        index(reduced));
  }

  SmallVector<Value> ivs(ranges.size());
  SmallVector<Value> parallelExtents, reducedExtents;
  for (unsigned dim : parallelDims)
    parallelExtents.push_back(index(ranges[dim]));
  for (unsigned dim : reducedDims)
    reducedExtents.push_back(index(ranges[dim]));
  for (auto [dim, iv] :
       llvm::zip(parallelDims,
                 rlx::delinearize(rewriter, loc, output, parallelExtents)))
    ivs[dim] = iv;

  // The block's combined `partial` of each thread (gpu.all_reduce), and an
  // scf.if that only thread 0 enters, after which the block ends.
  auto combineInBlock = [&](Value partial, Value thread) {
    Value total = gpu::AllReduceOp::create(
                      rewriter, loc, partial,
                      gpu::AllReduceOperationAttr::get(rewriter.getContext(),
                                                       combiner->operation),
                      /*uniform=*/true)
                      .getResult();
    Value isFirst = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, thread, index(0));
    auto first = scf::IfOp::create(rewriter, loc, isFirst,
                                   /*withElseRegion=*/false);
    gpu::TerminatorOp::create(rewriter, loc);
    return std::make_pair(total, first);
  };

  // Each thread folds points begin, begin + threads, ... (below end) into
  // its partial, starting from the combiner's identity.
  Value identity =
      arith::getIdentityValue(combiner->kind, elementType, rewriter, loc);
  auto loop = scf::ForOp::create(rewriter, loc, begin, end, threads,
                                 ValueRange{identity});
  rewriter.setInsertionPointToStart(loop.getBody());
  for (auto [dim, iv] : llvm::zip(
           reducedDims, rlx::delinearize(rewriter, loc, loop.getInductionVar(),
                                         reducedExtents)))
    ivs[dim] = iv;
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(input);
    if (!isa<ShapedType>(input->get().getType())) {
      mapping.map(arg, input->get());
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(input);
    mapping.map(
        arg, memref::LoadOp::create(rewriter, loc, input->get(),
                                    operandIndices(rewriter, loc, map, ivs)));
  }
  mapping.map(op.getRegionOutputArgs()[0], loop.getRegionIterArgs()[0]);
  for (Operation &bodyOp : body->without_terminator()) {
    if (auto indexOp = dyn_cast<linalg::IndexOp>(bodyOp)) {
      mapping.map(indexOp.getResult(), ivs[indexOp.getDim()]);
      continue;
    }
    rewriter.clone(bodyOp, mapping);
  }
  Value folded = mapping.lookup(body->getTerminator()->getOperand(0));
  scf::YieldOp::create(rewriter, loc, folded);

  // The block combines its partials; thread 0 folds the total into the
  // output's initial value, as the op's own combiner does.
  rewriter.setInsertionPointAfter(loop);
  auto [total, write] = combineInBlock(loop.getResult(0), thread);
  rewriter.setInsertionPointToStart(write.thenBlock());
  if (split > 1) {
    // The part's total, for the second kernel: a block per output whose
    // threads fold the parts and whose total thread 0 folds as below.
    memref::StoreOp::create(rewriter, loc, total, partials,
                            ValueRange{output, part});
    rewriter.setInsertionPointAfter(launch);
    int64_t partThreads =
        std::min<int64_t>(kReductionThreads, llvm::alignTo(split, 32));
    auto combine = gpu::LaunchOp::create(rewriter, loc, index(outputs), one,
                                         one, index(partThreads), one, one);
    rewriter.setInsertionPointToStart(&combine.getBody().front());
    thread = combine.getThreadIds().x;
    output = combine.getBlockIds().x;
    identity =
        arith::getIdentityValue(combiner->kind, elementType, rewriter, loc);
    auto parts = scf::ForOp::create(rewriter, loc, thread, index(split),
                                    index(partThreads), ValueRange{identity});
    rewriter.setInsertionPointToStart(parts.getBody());
    Value value = memref::LoadOp::create(
        rewriter, loc, partials, ValueRange{output, parts.getInductionVar()});
    scf::YieldOp::create(rewriter, loc,
                         arith::getReductionOp(combiner->kind, rewriter, loc,
                                               value,
                                               parts.getRegionIterArgs()[0]));
    rewriter.setInsertionPointAfter(parts);
    std::tie(total, write) = combineInBlock(parts.getResult(0), thread);
    rewriter.setInsertionPointAfter(combine);
    memref::DeallocOp::create(rewriter, loc, partials);
    rewriter.setInsertionPointToStart(write.thenBlock());
    for (auto [dim, iv] :
         llvm::zip(parallelDims,
                   rlx::delinearize(rewriter, loc, output, parallelExtents)))
      ivs[dim] = iv;
  }
  // The output's map reads no reduced dimension; those operands are
  // placeholders.
  for (unsigned dim : reducedDims)
    ivs[dim] = index(0);
  OpOperand *init = op.getDpsInitOperand(0);
  SmallVector<Value> outIndices =
      operandIndices(rewriter, loc, op.getMatchingIndexingMap(init), ivs);
  Value initial =
      memref::LoadOp::create(rewriter, loc, init->get(), outIndices);
  Value result =
      arith::getReductionOp(combiner->kind, rewriter, loc, total, initial);
  memref::StoreOp::create(rewriter, loc, result, init->get(), outIndices);
  rewriter.eraseOp(op);
  return true;
}
