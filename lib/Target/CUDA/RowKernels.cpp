//===- RowKernels.cpp - softmax and norms, a block per row ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// softmax, layer_norm and rms_norm over the last axis (and the layer norm's
// input gradient) reduce each row and then rewrite it. The generic lowering
// runs each reduction and the final sweep as kernels of their own, with the row
// maxima, sums or moments in buffers between them (three sweeps for softmax).
// Here one kernel takes a row per block: its threads stride over the row
// folding one running state each (a maximum and a sum against it; Welford's
// count, mean and squared deviations; a sum of squares), the block combines the
// states, and a second sweep over the row, mostly from the L2 cache, writes the
// result. Rows of a static length of at most 8 groups of 16 bytes per thread
// (8192 f32) stay in registers between the two sweeps instead: the row is
// read from memory once. Longer static rows of up to 8 such slices (65536
// f32) are split over a cluster of blocks, each keeping its slice in
// registers; the blocks exchange their states through distributed shared
// memory, and the row is still read once.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "KernelIndexing.h"
#include "KernelOps.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Target/CUDA/RLXCUDADialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr int64_t kRowThreads = 256;
constexpr int64_t kRowWarps = kRowThreads / kWarpThreads;
/// The most groups of elements (16 bytes each, or one element) a thread
/// keeps in registers between the sweeps.
constexpr int64_t kMaxCachedGroups = 8;
/// Below this many (static) rows a block takes each row even where a warp
/// could: a warp per row would leave most of the GPU idle and make each
/// lane wait for up to kMaxCachedGroups loads, where a block's threads wait
/// for one each (a decode step's norms have one row per sequence).
constexpr int64_t kFewRows = 64;

/// Whether `op` (on `input`, along `axis`) is a row kernel's: the last
/// axis, a supported element type, directly in a function body.
bool isLastAxisRowOp(Operation *op, Value input, int64_t axis) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  return rank >= 1 && (axis == -1 || axis == rank - 1) &&
         isa<Float32Type, Float16Type, BFloat16Type>(type.getElementType()) &&
         isa<func::FuncOp>(op->getParentOp());
}

/// The running state one thread folds over its elements of a row, how two
/// states combine, and what the row's final state makes of an element.
struct RowMath {
  /// Element `column` of the kernel's row of an input-shaped buffer, as f32.
  using RowLoader = std::function<Value(Value buffer, Value column)>;
  /// An element a thread keeps in registers, and whether it lies in the row
  /// (null: always).
  struct CachedElement {
    Value x, inRow;
  };
  /// The maximum (`isMax`) or sum of one f32 over the block, in every
  /// thread.
  using BlockReduce = function_ref<Value(Value, bool isMax)>;

  virtual ~RowMath() = default;
  /// Called in the kernel, before the first sweep, with the loader of the
  /// block's row and the row's length.
  virtual void startRow(KernelBuilder &k, RowLoader load, Value rowLength) {}
  virtual SmallVector<Value> initial(KernelBuilder &k) = 0;
  /// Folds the element `x` at `column` into the state.
  virtual SmallVector<Value> fold(KernelBuilder &k, ArrayRef<Value> state,
                                  Value x, Value column) = 0;
  virtual SmallVector<Value> combine(KernelBuilder &k, ArrayRef<Value> a,
                                     ArrayRef<Value> b) = 0;
  /// Per-row values for `result`, computed once from the final state.
  virtual SmallVector<Value> finish(KernelBuilder &k, ArrayRef<Value> state,
                                    Value rowLength) = 0;
  /// The output element at `column` from its input `x`.
  virtual Value result(KernelBuilder &k, ArrayRef<Value> finished, Value x,
                       Value column) = 0;
  /// The output elements of the group `elements` at columns `column`
  /// onwards (a 16-byte group of the kernel's row, when there are several):
  /// by default element by element.
  virtual SmallVector<Value> resultGroup(KernelBuilder &k,
                                         ArrayRef<Value> finished,
                                         ArrayRef<Value> elements,
                                         Value column) {
    SmallVector<Value> results;
    for (auto [i, x] : llvm::enumerate(elements))
      results.push_back(result(k, finished, x, k.add(column, k.index(i))));
    return results;
  }
  /// With the whole row in registers (`elements`, this thread's): the
  /// block's combined state computed in passes over them, where that is
  /// cheaper than folding them one by one; std::nullopt to fold.
  virtual std::optional<SmallVector<Value>>
  combineCached(KernelBuilder &k, ArrayRef<CachedElement> elements,
                Value rowLength, BlockReduce reduce) {
    return std::nullopt;
  }
};

/// The sum of `term(x)` over a thread's cached elements in the row.
Value sumInRow(KernelBuilder &k, ArrayRef<RowMath::CachedElement> elements,
               function_ref<Value(Value)> term) {
  Value sum = k.f32(0);
  for (const RowMath::CachedElement &e : elements) {
    Value t = term(e.x);
    sum = k.add(sum, e.inRow ? k.select(e.inRow, t, k.f32(0)) : t);
  }
  return sum;
}

/// Online softmax: (maximum, sum of exp(x - maximum)).
struct SoftmaxMath : RowMath {
  SmallVector<Value> initial(KernelBuilder &k) override {
    return {k.f32(-std::numeric_limits<double>::infinity()), k.f32(0)};
  }
  SmallVector<Value> fold(KernelBuilder &k, ArrayRef<Value> state, Value x,
                          Value) override {
    Value max = arith::MaximumFOp::create(k.b, k.loc, state[0], x);
    Value pivot = k.pivotOfMax(max);
    Value rescaled = k.mul(
        state[1], math::ExpOp::create(k.b, k.loc, k.sub(state[0], pivot)));
    return {max,
            k.add(rescaled, math::ExpOp::create(k.b, k.loc, k.sub(x, pivot)))};
  }
  SmallVector<Value> combine(KernelBuilder &k, ArrayRef<Value> a,
                             ArrayRef<Value> b) override {
    Value max = arith::MaximumFOp::create(k.b, k.loc, a[0], b[0]);
    Value pivot = k.pivotOfMax(max);
    auto scaled = [&](ArrayRef<Value> s) {
      return k.mul(s[1], math::ExpOp::create(k.b, k.loc, k.sub(s[0], pivot)));
    };
    return {max, k.add(scaled(a), scaled(b))};
  }
  SmallVector<Value> finish(KernelBuilder &k, ArrayRef<Value> state,
                            Value) override {
    return {k.pivotOfMax(state[0]), state[1]};
  }
  Value result(KernelBuilder &k, ArrayRef<Value> finished, Value x,
               Value) override {
    return k.div(math::ExpOp::create(k.b, k.loc, k.sub(x, finished[0])),
                 finished[1]);
  }
  /// The maximum, then the sum of exponentials against it: one exponential
  /// per element where the online fold takes two.
  std::optional<SmallVector<Value>>
  combineCached(KernelBuilder &k, ArrayRef<CachedElement> elements, Value,
                BlockReduce reduce) override {
    Value max = k.f32(-std::numeric_limits<double>::infinity());
    for (const CachedElement &e : elements) {
      Value next = arith::MaximumFOp::create(k.b, k.loc, max, e.x);
      max = e.inRow ? k.select(e.inRow, next, max) : next;
    }
    max = reduce(max, /*isMax=*/true);
    Value pivot = k.pivotOfMax(max);
    Value sum = sumInRow(k, elements, [&](Value x) -> Value {
      return math::ExpOp::create(k.b, k.loc, k.sub(x, pivot));
    });
    return SmallVector<Value>{max, reduce(sum, /*isMax=*/false)};
  }
};

/// Welford's running (count, mean, squared deviations) with `x` folded in.
SmallVector<Value> welfordFold(KernelBuilder &k, ArrayRef<Value> state,
                               Value x) {
  Value count = k.add(state[0], k.f32(1));
  Value delta = k.sub(x, state[1]);
  Value mean = k.add(state[1], k.div(delta, count));
  Value m2 = math::FmaOp::create(k.b, k.loc, delta, k.sub(x, mean), state[2]);
  return {count, mean, m2};
}

/// Chan et al.'s parallel update of two Welford states; an empty side
/// contributes nothing (its weight is 0, not 0 / 0).
SmallVector<Value> welfordCombine(KernelBuilder &k, ArrayRef<Value> a,
                                  ArrayRef<Value> b) {
  Value count = k.add(a[0], b[0]);
  Value empty = arith::CmpFOp::create(k.b, k.loc, arith::CmpFPredicate::OEQ,
                                      count, k.f32(0));
  Value weight = k.select(empty, k.f32(0), k.div(b[0], count));
  Value delta = k.sub(b[1], a[1]);
  Value mean = math::FmaOp::create(k.b, k.loc, delta, weight, a[1]);
  Value m2 =
      k.add(k.add(a[2], b[2]), k.mul(k.mul(delta, delta), k.mul(a[0], weight)));
  return {count, mean, m2};
}

/// `rowLength` (an index) as f32.
Value lengthAsF32(KernelBuilder &k, Value rowLength) {
  return arith::UIToFPOp::create(
      k.b, k.loc, k.b.getF32Type(),
      arith::IndexCastUIOp::create(k.b, k.loc, k.b.getI64Type(), rowLength));
}

/// Layer and RMS norms: Welford's (count, mean, squared deviations), or a
/// sum of squares; then `x` normalized, scaled by gamma and shifted by beta.
struct NormMath : RowMath {
  /// `loadVector(column, isBeta, count)`: elements [column, column + count)
  /// of gamma or beta, as f32.
  using VectorLoader = std::function<SmallVector<Value>(
      Value column, bool isBeta, int64_t count)>;
  NormMath(bool rms, double eps, VectorLoader loadVector)
      : rms(rms), eps(eps), loadVector(std::move(loadVector)) {}

  SmallVector<Value> initial(KernelBuilder &k) override {
    if (rms)
      return {k.f32(0)};
    return {k.f32(0), k.f32(0), k.f32(0)};
  }
  SmallVector<Value> fold(KernelBuilder &k, ArrayRef<Value> state, Value x,
                          Value) override {
    if (rms)
      return {math::FmaOp::create(k.b, k.loc, x, x, state[0])};
    return welfordFold(k, state, x);
  }
  SmallVector<Value> combine(KernelBuilder &k, ArrayRef<Value> a,
                             ArrayRef<Value> b) override {
    if (rms)
      return {k.add(a[0], b[0])};
    return welfordCombine(k, a, b);
  }
  SmallVector<Value> finish(KernelBuilder &k, ArrayRef<Value> state,
                            Value rowLength) override {
    Value n = lengthAsF32(k, rowLength);
    Value meanSquare = k.div(rms ? state[0] : state[2], n);
    Value inverse =
        math::RsqrtOp::create(k.b, k.loc, k.add(meanSquare, k.f32(eps)));
    if (rms)
      return {k.f32(0), inverse};
    return {state[1], inverse};
  }
  /// Layer norm: the mean, then the squared deviations from it (two exact
  /// passes over registers, no division per element as in Welford's fold).
  std::optional<SmallVector<Value>>
  combineCached(KernelBuilder &k, ArrayRef<CachedElement> elements,
                Value rowLength, BlockReduce reduce) override {
    if (rms)
      return std::nullopt;
    Value n = lengthAsF32(k, rowLength);
    Value mean = k.div(reduce(sumInRow(k, elements, [](Value x) { return x; }),
                              /*isMax=*/false),
                       n);
    Value m2 = sumInRow(k, elements, [&](Value x) {
      Value d = k.sub(x, mean);
      return k.mul(d, d);
    });
    return SmallVector<Value>{n, mean, reduce(m2, /*isMax=*/false)};
  }
  Value result(KernelBuilder &k, ArrayRef<Value> finished, Value x,
               Value column) override {
    return resultGroup(k, finished, x, column).front();
  }
  /// gamma and beta of a group as one load each (16 bytes when the group is
  /// a 16-byte group of the row).
  SmallVector<Value> resultGroup(KernelBuilder &k, ArrayRef<Value> finished,
                                 ArrayRef<Value> elements,
                                 Value column) override {
    SmallVector<Value> gamma =
        loadVector(column, /*isBeta=*/false, elements.size());
    SmallVector<Value> beta =
        loadVector(column, /*isBeta=*/true, elements.size());
    SmallVector<Value> results;
    for (auto [i, x] : llvm::enumerate(elements)) {
      Value normalized = k.mul(k.sub(x, finished[0]), finished[1]);
      results.push_back(
          math::FmaOp::create(k.b, k.loc, normalized, gamma[i], beta[i]));
    }
    return results;
  }

  bool rms;
  double eps;
  VectorLoader loadVector;
};

/// The input gradient of a layer norm: one sweep folds Welford's state of
/// `x` with `s1 = sum(g dy)` and `s2 = sum(g dy (x - x0))`, `x0` the row's
/// first element (a shift, so that the centered sum below does not cancel
/// for rows far from 0); then
/// `dx = rstd (g dy - s1 / n - xhat * rstd (s2 - (mean - x0) s1) / n)`.
struct NormBackwardInputMath : RowMath {
  NormBackwardInputMath(double eps, Value gamma, Value dy, Value input)
      : eps(eps), gamma(gamma), dy(dy), input(input) {}

  void startRow(KernelBuilder &k, RowLoader rowLoader,
                Value rowLength) override {
    load = std::move(rowLoader);
    // An empty row has no first element to shift by.
    auto nonEmpty = scf::IfOp::create(
        k.b, k.loc, TypeRange{k.b.getF32Type()},
        k.cmp(arith::CmpIPredicate::ugt, rowLength, k.index(0)),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(k.b);
    k.b.setInsertionPointToStart(nonEmpty.thenBlock());
    scf::YieldOp::create(k.b, k.loc, load(input, k.index(0)));
    k.b.setInsertionPointToStart(nonEmpty.elseBlock());
    scf::YieldOp::create(k.b, k.loc, k.f32(0));
    shift = nonEmpty.getResult(0);
  }
  /// gamma[column] * dy[row, column].
  Value scaledGradient(KernelBuilder &k, Value column) {
    Value g = k.toF32(memref::LoadOp::create(k.b, k.loc, gamma, column));
    return k.mul(g, load(dy, column));
  }
  SmallVector<Value> initial(KernelBuilder &k) override {
    return {k.f32(0), k.f32(0), k.f32(0), k.f32(0), k.f32(0)};
  }
  SmallVector<Value> fold(KernelBuilder &k, ArrayRef<Value> state, Value x,
                          Value column) override {
    SmallVector<Value> next = welfordFold(k, state.take_front(3), x);
    Value gdy = scaledGradient(k, column);
    next.push_back(k.add(state[3], gdy));
    next.push_back(
        math::FmaOp::create(k.b, k.loc, gdy, k.sub(x, shift), state[4]));
    return next;
  }
  SmallVector<Value> combine(KernelBuilder &k, ArrayRef<Value> a,
                             ArrayRef<Value> b) override {
    SmallVector<Value> next =
        welfordCombine(k, a.take_front(3), b.take_front(3));
    next.push_back(k.add(a[3], b[3]));
    next.push_back(k.add(a[4], b[4]));
    return next;
  }
  SmallVector<Value> finish(KernelBuilder &k, ArrayRef<Value> state,
                            Value rowLength) override {
    Value n = lengthAsF32(k, rowLength);
    Value mean = state[1];
    Value rstd = math::RsqrtOp::create(k.b, k.loc,
                                       k.add(k.div(state[2], n), k.f32(eps)));
    // sum(g dy (x - mean)) = s2 - (mean - x0) s1.
    Value centered = k.sub(state[4], k.mul(k.sub(mean, shift), state[3]));
    return {mean, rstd, k.div(state[3], n), k.div(k.mul(rstd, centered), n)};
  }
  Value result(KernelBuilder &k, ArrayRef<Value> finished, Value x,
               Value column) override {
    Value xhat = k.mul(k.sub(x, finished[0]), finished[1]);
    Value inner = k.sub(k.sub(scaledGradient(k, column), finished[2]),
                        k.mul(xhat, finished[3]));
    return k.mul(finished[1], inner);
  }

  double eps;
  Value gamma, dy, input;
  RowLoader load;
  Value shift;
};

/// The block's combination of every thread's state, in every thread: warp
/// shuffles, then each warp's result through shared memory.
SmallVector<Value> blockCombine(KernelBuilder &k, RowMath &math,
                                SmallVector<Value> state, Value partials,
                                Value warp, Value lane) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  state = k.xorReduce(state, KernelBuilder::kWarpOffsets,
                      [&](ArrayRef<Value> x, ArrayRef<Value> y) {
                        return math.combine(k, x, y);
                      });
  auto leader = scf::IfOp::create(
      b, loc, k.cmp(arith::CmpIPredicate::eq, lane, k.index(0)),
      /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(leader.thenBlock());
    for (auto [i, value] : llvm::enumerate(state))
      memref::StoreOp::create(b, loc, value, partials,
                              ValueRange{warp, k.index(i)});
  }
  gpu::BarrierOp::create(b, loc);
  auto read = [&](int64_t w) {
    SmallVector<Value> values;
    for (size_t i = 0; i < state.size(); ++i)
      values.push_back(memref::LoadOp::create(
          b, loc, partials, ValueRange{k.index(w), k.index(i)}));
    return values;
  };
  SmallVector<Value> total = read(0);
  for (int64_t w = 1; w < kRowWarps; ++w)
    total = math.combine(k, total, read(w));
  return total;
}

/// The maximum (`isMax`) or sum of `x` over the block, in every thread,
/// through `partials` (one column of it), which it leaves free to reuse:
/// a barrier after the reads keeps the next reduction's writes from
/// overtaking them.
Value blockReduce(KernelBuilder &k, Value x, bool isMax, Value partials,
                  Value warp, Value lane) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  x = k.warpReduce(x, isMax);
  auto leader = scf::IfOp::create(
      b, loc, k.cmp(arith::CmpIPredicate::eq, lane, k.index(0)),
      /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(leader.thenBlock());
    memref::StoreOp::create(b, loc, x, partials, ValueRange{warp, k.index(0)});
  }
  gpu::BarrierOp::create(b, loc);
  Value total;
  for (int64_t w = 0; w < kRowWarps; ++w) {
    Value partial = memref::LoadOp::create(b, loc, partials,
                                           ValueRange{k.index(w), k.index(0)});
    total = !total ? partial
            : isMax
                ? arith::MaximumFOp::create(b, loc, total, partial).getResult()
                : k.add(total, partial);
  }
  gpu::BarrierOp::create(b, loc);
  return total;
}

/// The values `values` (the same in every thread of the block) of every
/// block of the cluster folded by `combine` in rank order (the same order in
/// every block: the same result everywhere), in every thread: each block's
/// first thread leaves them in `exchange` (shared memory, at least as many
/// f32), a cluster barrier (release, then acquire) makes them visible, every
/// thread reads each block's through distributed shared memory, and a
/// second barrier keeps every block's `exchange` alive and unchanged until
/// all have read it.
SmallVector<Value> clusterCombine(
    KernelBuilder &k, ArrayRef<Value> values, Value exchange, Value thread,
    int64_t clusterBlocks,
    function_ref<SmallVector<Value>(ArrayRef<Value>, ArrayRef<Value>)>
        combine) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto leader = scf::IfOp::create(
      b, loc, k.cmp(arith::CmpIPredicate::eq, thread, k.index(0)),
      /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(leader.thenBlock());
    for (auto [i, value] : llvm::enumerate(values))
      memref::StoreOp::create(b, loc, value, exchange, k.index(i));
  }
  auto clusterBarrier = [&] {
    NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
  };
  clusterBarrier();
  MLIRContext *context = b.getContext();
  Type f32 = b.getF32Type();
  Value address = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, exchange));
  Value local = LLVM::IntToPtrOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(
          context, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared)),
      address);
  auto clusterPointer = LLVM::LLVMPointerType::get(
      context, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  SmallVector<Value> combined;
  for (int64_t rank = 0; rank < clusterBlocks; ++rank) {
    Value remote = NVVM::MapaOp::create(
        b, loc, clusterPointer, local,
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), rank));
    SmallVector<Value> read;
    for (size_t i = 0; i < values.size(); ++i) {
      Value element =
          LLVM::GEPOp::create(b, loc, clusterPointer, f32, remote,
                              ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
      read.push_back(LLVM::LoadOp::create(b, loc, f32, element));
    }
    combined = rank == 0 ? read : combine(combined, read);
  }
  clusterBarrier();
  return combined;
}

/// The kernel of a row op on buffers: a block of 256 threads per row of
/// `input` (its leading dims flattened), writing `out`. With `width` > 1
/// each thread reads and writes `width` consecutive elements at a time (16
/// bytes): the row length is a multiple of `width` and the buffers are
/// contiguous and 16-byte aligned. With `cachedGroups` > 0 (a static row
/// of at most that many groups per thread), the sweeps are unrolled and the
/// second one takes the elements the first loaded from registers. With
/// `warpPerRow`, each warp of the block takes a row of its own (8 per
/// block) and the reductions are warp shuffles only: short rows do not pay
/// for block barriers. With `clusterBlocks` > 1, a cluster of that many
/// blocks takes each row, a block per slice of `cachedGroups` groups per
/// thread (the row is exactly that long), and the reductions go on across
/// the cluster (clusterCombine).
void buildRowKernel(RewriterBase &rewriter, Location loc, Value input,
                    Value out, RowMath &math, unsigned stateSize, int64_t width,
                    int64_t cachedGroups, bool warpPerRow,
                    int64_t clusterBlocks = 1) {
  assert((clusterBlocks == 1 || (!warpPerRow && cachedGroups > 0)) &&
         "a cluster takes a row of cached slices");
  auto type = cast<MemRefType>(input.getType());
  Type elementType = type.getElementType();
  int64_t rank = type.getRank();
  KernelBuilder host{rewriter, loc};
  SmallVector<Value> leadingDims;
  Value rows = host.index(1);
  for (int64_t dim = 0; dim + 1 < rank; ++dim) {
    leadingDims.push_back(memref::DimOp::create(rewriter, loc, input, dim));
    rows = host.mul(rows, leadingDims.back());
  }
  Value rowLength = memref::DimOp::create(rewriter, loc, input, rank - 1);
  int64_t rowThreads = warpPerRow ? kWarpThreads : kRowThreads;
  int64_t rowsPerBlock = kRowThreads / rowThreads;
  Value blocks = host.mul(rows, host.index(clusterBlocks));
  if (warpPerRow)
    blocks = arith::CeilDivUIOp::create(rewriter, loc, rows,
                                        host.index(rowsPerBlock));
  OpBuilder::InsertionGuard guard(rewriter);
  SmallVector<MemRefType> shared = {workgroupBufferType(
      rewriter.getContext(), {kRowWarps, static_cast<int64_t>(stateSize)},
      rewriter.getF32Type())};
  if (clusterBlocks > 1)
    shared.push_back(workgroupBufferType(rewriter.getContext(),
                                         {static_cast<int64_t>(stateSize)},
                                         rewriter.getF32Type()));
  auto launch = createGuardedLaunch(rewriter, loc, blocks, kRowThreads, shared,
                                    /*dynamicSharedBytes=*/0, clusterBlocks);
  Value partials = launch.getWorkgroupAttributions()[0];
  KernelBuilder k{rewriter, loc};
  OpBuilder &b = rewriter;
  Value warp = k.div(launch.getThreadIds().x, k.index(kWarpThreads));
  Value lane = k.rem(launch.getThreadIds().x, k.index(kWarpThreads));
  // This thread's row and its index among the row's threads.
  Value row = launch.getBlockIds().x;
  Value thread = launch.getThreadIds().x;
  // With a cluster per row, the first group of this block's slice.
  Value sliceBegin = k.index(0);
  if (clusterBlocks > 1) {
    sliceBegin = k.mul(k.rem(row, k.index(clusterBlocks)),
                       k.index(cachedGroups * rowThreads));
    row = k.div(row, k.index(clusterBlocks));
  }
  if (warpPerRow) {
    row = k.add(k.mul(row, k.index(rowsPerBlock)), warp);
    thread = lane;
    // No barrier follows: the warps of the last block past the rows
    // simply stop.
    auto inRows =
        scf::IfOp::create(b, loc, k.cmp(arith::CmpIPredicate::ult, row, rows),
                          /*withElseRegion=*/false);
    b.setInsertionPointToStart(inRows.thenBlock());
  }
  SmallVector<Value> leading = delinearize(b, loc, row, leadingDims);
  auto indices = [&](Value column) {
    SmallVector<Value> result(leading);
    result.push_back(column);
    return result;
  };
  Value threads = k.index(rowThreads);
  Value groups = k.div(rowLength, k.index(width));
  auto vectorType = VectorType::get({width}, elementType);
  // The `width` elements of group `g` as f32, and their first column.
  auto loadGroup = [&](Value group) -> std::pair<SmallVector<Value>, Value> {
    Value column = k.mul(group, k.index(width));
    if (width == 1)
      return {{k.toF32(memref::LoadOp::create(b, loc, input, indices(column)))},
              column};
    auto load =
        vector::LoadOp::create(b, loc, vectorType, input, indices(column));
    load.setAlignment(16);
    SmallVector<Value> elements;
    for (int64_t i = 0; i < width; ++i)
      elements.push_back(
          k.toF32(vector::ExtractOp::create(b, loc, load.getResult(), i)));
    return {elements, column};
  };

  math.startRow(
      k,
      [&](Value buffer, Value column) {
        return k.toF32(memref::LoadOp::create(b, loc, buffer, indices(column)));
      },
      rowLength);

  // The block's (or with `warpPerRow` the warp's) combined state, and one
  // value reduced likewise, in every thread of the row.
  auto combineRow = [&](SmallVector<Value> state) {
    if (warpPerRow)
      return k.xorReduce(state, KernelBuilder::kWarpOffsets,
                         [&](ArrayRef<Value> x, ArrayRef<Value> y) {
                           return math.combine(k, x, y);
                         });
    state = blockCombine(k, math, state, partials, warp, lane);
    if (clusterBlocks == 1)
      return state;
    return clusterCombine(k, state, launch.getWorkgroupAttributions()[1],
                          thread, clusterBlocks,
                          [&](ArrayRef<Value> x, ArrayRef<Value> y) {
                            return math.combine(k, x, y);
                          });
  };
  auto reduce = [&](Value x, bool isMax) {
    if (warpPerRow)
      return k.warpReduce(x, isMax);
    x = blockReduce(k, x, isMax, partials, warp, lane);
    if (clusterBlocks == 1)
      return x;
    return clusterCombine(
               k, x, launch.getWorkgroupAttributions()[1], thread,
               clusterBlocks,
               [&](ArrayRef<Value> a, ArrayRef<Value> c) -> SmallVector<Value> {
                 if (isMax)
                   return {arith::MaximumFOp::create(b, loc, a[0], c[0])};
                 return {k.add(a[0], c[0])};
               })
        .front();
  };
  // The results of the `width` elements of a group, stored at `column`.
  auto storeResults = [&](ArrayRef<Value> finished, ArrayRef<Value> elements,
                          Value column) {
    SmallVector<Value> results =
        math.resultGroup(k, finished, elements, column);
    for (Value &y : results)
      if (!elementType.isF32())
        y = arith::TruncFOp::create(b, loc, elementType, y);
    if (width == 1) {
      memref::StoreOp::create(b, loc, results[0], out, indices(column));
      return;
    }
    auto store = vector::StoreOp::create(
        b, loc, vector::FromElementsOp::create(b, loc, vectorType, results),
        out, indices(column));
    store.setAlignment(16);
  };

  if (cachedGroups > 0) {
    // Group `g` of this thread is `thread + g * rowThreads` (of its block's
    // slice); only the last may lie past the row (then a clamped, in-bounds
    // group is read and neither folded nor stored).
    int64_t staticGroups = type.getShape().back() / width;
    SmallVector<std::tuple<SmallVector<Value>, Value, Value>> cached;
    SmallVector<RowMath::CachedElement> elementsInRow;
    for (int64_t g = 0; g < cachedGroups; ++g) {
      Value group = k.add(sliceBegin, k.add(thread, k.index(g * rowThreads)));
      Value inRange;
      if (clusterBlocks == 1 && (g + 1) * rowThreads > staticGroups) {
        inRange = k.cmp(arith::CmpIPredicate::ult, group, groups);
        group = k.minIndex(group, k.index(staticGroups - 1));
      }
      auto [elements, column] = loadGroup(group);
      cached.emplace_back(elements, column, inRange);
      for (Value x : elements)
        elementsInRow.push_back({x, inRange});
    }
    std::optional<SmallVector<Value>> combined =
        math.combineCached(k, elementsInRow, rowLength, reduce);
    if (!combined) {
      SmallVector<Value> state = math.initial(k);
      for (auto &[elements, column, inRange] : cached) {
        SmallVector<Value> folded = state;
        for (auto [i, x] : llvm::enumerate(elements))
          folded = math.fold(k, folded, x, k.add(column, k.index(i)));
        for (size_t i = 0, e = state.size(); i < e; ++i)
          state[i] =
              inRange ? k.select(inRange, folded[i], state[i]) : folded[i];
      }
      combined = combineRow(state);
    }
    SmallVector<Value> finished = math.finish(k, *combined, rowLength);
    for (auto &[elements, column, inRange] : cached) {
      if (!inRange) {
        storeResults(finished, elements, column);
        continue;
      }
      OpBuilder::InsertionGuard storeGuard(b);
      auto guarded =
          scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
      b.setInsertionPointToStart(guarded.thenBlock());
      storeResults(finished, elements, column);
    }
    return;
  }

  // Sweep 1: each thread folds its elements.
  auto sweep =
      scf::ForOp::create(b, loc, thread, groups, threads, math.initial(k));
  {
    OpBuilder::InsertionGuard sweepGuard(b);
    b.setInsertionPointToStart(sweep.getBody());
    SmallVector<Value> state(sweep.getRegionIterArgs());
    auto [elements, column] = loadGroup(sweep.getInductionVar());
    for (auto [i, x] : llvm::enumerate(elements))
      state = math.fold(k, state, x, k.add(column, k.index(i)));
    scf::YieldOp::create(b, loc, state);
  }
  SmallVector<Value> finished = math.finish(
      k, combineRow(SmallVector<Value>(sweep.getResults())), rowLength);

  // Sweep 2: the results.
  auto write = scf::ForOp::create(b, loc, thread, groups, threads);
  b.setInsertionPointToStart(write.getBody());
  auto [elements, column] = loadGroup(write.getInductionVar());
  storeResults(finished, elements, column);
}

/// Groups per thread when a static row of `input` fits kMaxCachedGroups
/// groups of `width` elements in each of `rowThreads` threads, else 0 (two
/// sweeps over memory).
int64_t cachedGroupsOf(Value input, int64_t width, int64_t rowThreads) {
  int64_t rowLength = cast<MemRefType>(input.getType()).getShape().back();
  if (ShapedType::isDynamic(rowLength) || rowLength == 0)
    return 0;
  int64_t perThread =
      llvm::divideCeil(llvm::divideCeil(rowLength, width), rowThreads);
  return perThread <= kMaxCachedGroups ? perThread : 0;
}

/// The most blocks of a cluster that takes one row (the portable limit).
constexpr int64_t kMaxRowCluster = 8;

/// The blocks of the smallest cluster whose blocks each keep an equal slice
/// of a static row of `input` in registers (at most kMaxCachedGroups groups
/// of `width` elements per thread, every thread's groups whole), or 1 when
/// none does.
int64_t rowClusterOf(Value input, int64_t width) {
  int64_t rowLength = cast<MemRefType>(input.getType()).getShape().back();
  if (ShapedType::isDynamic(rowLength) || rowLength % width != 0)
    return 1;
  int64_t groups = rowLength / width;
  for (int64_t blocks = 2; blocks <= kMaxRowCluster; blocks *= 2)
    if (groups % (blocks * kRowThreads) == 0 &&
        groups / (blocks * kRowThreads) <= kMaxCachedGroups)
      return blocks;
  return 1;
}

/// The row kernel of `width` for `input`: a warp per row when a warp can
/// keep a whole row in registers (up to 1024 f32 at 16 bytes per access)
/// and there are kFewRows rows or more, a block per row when a block can
/// (8192 f32), a cluster of blocks per row
/// when a cluster can (65536 f32), else a block per row sweeping it twice.
void buildRowKernelFor(RewriterBase &rewriter, Location loc, Value input,
                       Value out, RowMath &math, unsigned stateSize,
                       int64_t width) {
  int64_t groups = cachedGroupsOf(input, width, kRowThreads);
  ArrayRef<int64_t> shape = cast<MemRefType>(input.getType()).getShape();
  bool fewRows = llvm::none_of(shape.drop_back(), ShapedType::isDynamic) &&
                 ShapedType::getNumElements(shape.drop_back()) < kFewRows;
  if (int64_t warpGroups = cachedGroupsOf(input, width, kWarpThreads);
      warpGroups && !(fewRows && groups)) {
    buildRowKernel(rewriter, loc, input, out, math, stateSize, width,
                   warpGroups, /*warpPerRow=*/true);
    return;
  }
  if (int64_t clusterBlocks = rowClusterOf(input, width);
      groups == 0 && clusterBlocks > 1) {
    int64_t rowLength = cast<MemRefType>(input.getType()).getShape().back();
    buildRowKernel(rewriter, loc, input, out, math, stateSize, width,
                   rowLength / width / (clusterBlocks * kRowThreads),
                   /*warpPerRow=*/false, clusterBlocks);
    return;
  }
  buildRowKernel(rewriter, loc, input, out, math, stateSize, width, groups,
                 /*warpPerRow=*/false);
}

/// Elements per 16-byte access when the row kernel of `input` and `out`
/// can use them (a static row length that is a multiple, contiguous
/// buffers), else 1.
int64_t vectorWidth(Value input, Value out) {
  auto type = cast<MemRefType>(input.getType());
  int64_t width = 16 / (type.getElementTypeBitWidth() / 8);
  int64_t rowLength = type.getShape().back();
  if (ShapedType::isDynamic(rowLength) || rowLength % width != 0 ||
      !type.getLayout().isIdentity() ||
      !cast<MemRefType>(out.getType()).getLayout().isIdentity())
    return 1;
  return width;
}

/// The row kernel, with 16-byte accesses when the buffers allow them (and
/// are aligned at run time), else with 4-byte ones. `groupOperands` are
/// other buffers the math reads a group at a time when the row is read so
/// (gamma and beta): their alignment is checked with the others'.
void buildRowKernels(RewriterBase &rewriter, Location loc, Value input,
                     Value out, RowMath &math, unsigned stateSize,
                     ArrayRef<Value> groupOperands = {}) {
  int64_t width = vectorWidth(input, out);
  if (width == 1) {
    buildRowKernelFor(rewriter, loc, input, out, math, stateSize, 1);
    return;
  }
  SmallVector<Value> aligned = {input, out};
  llvm::append_range(aligned, groupOperands);
  auto choice = scf::IfOp::create(rewriter, loc,
                                  buffersAligned(rewriter, loc, aligned, 16),
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(choice.thenBlock());
  buildRowKernelFor(rewriter, loc, input, out, math, stateSize, width);
  rewriter.setInsertionPointToStart(choice.elseBlock());
  buildRowKernelFor(rewriter, loc, input, out, math, stateSize, 1);
}

} // namespace

bool rlx::formRowKernel(RewriterBase &rewriter, Operation *op) {
  Location loc = op->getLoc();
  if (auto softmax = dyn_cast<SoftmaxOp>(op)) {
    if (!isLastAxisRowOp(op, softmax.getInput(), softmax.getAxis()))
      return false;
    rewriter.setInsertionPoint(op);
    Value init = createEmptyLike(rewriter, loc, softmax.getInput());
    rewriter.replaceOp(op, cuda::SoftmaxOp::create(rewriter, loc,
                                                   TypeRange{init.getType()},
                                                   softmax.getInput(), init)
                               .getResult());
    return true;
  }
  if (auto backward = dyn_cast<LayerNormBackwardInputOp>(op)) {
    if (!isLastAxisRowOp(op, backward.getX(), backward.getAxis()))
      return false;
    rewriter.setInsertionPoint(op);
    Value init = createEmptyLike(rewriter, loc, backward.getX());
    rewriter.replaceOp(op, cuda::NormBackwardInputOp::create(
                               rewriter, loc, TypeRange{init.getType()},
                               backward.getX(), backward.getGamma(),
                               backward.getDy(), init, backward.getEpsAttr())
                               .getResult());
    return true;
  }
  Value input, gamma, beta;
  int64_t axis;
  FloatAttr eps;
  bool rms = isa<RmsNormOp>(op);
  if (auto norm = dyn_cast<LayerNormOp>(op)) {
    input = norm.getInput(), gamma = norm.getGamma(), beta = norm.getBeta();
    axis = norm.getAxis(), eps = norm.getEpsAttr();
  } else if (auto norm = dyn_cast<RmsNormOp>(op)) {
    input = norm.getInput(), gamma = norm.getGamma(), beta = norm.getBeta();
    axis = norm.getAxis(), eps = norm.getEpsAttr();
  } else {
    return false;
  }
  if (!isLastAxisRowOp(op, input, axis))
    return false;
  rewriter.setInsertionPoint(op);
  Value init = createEmptyLike(rewriter, loc, input);
  rewriter.replaceOp(
      op, cuda::NormOp::create(rewriter, loc, TypeRange{init.getType()}, input,
                               gamma, beta, init, eps,
                               rms ? rewriter.getUnitAttr() : UnitAttr())
              .getResult());
  return true;
}

void rlx::lowerRowKernel(RewriterBase &rewriter, Operation *op) {
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  if (auto softmax = dyn_cast<cuda::SoftmaxOp>(op)) {
    SoftmaxMath math;
    buildRowKernels(rewriter, loc, softmax.getInput(), softmax.getInit(), math,
                    2);
  } else if (auto backward = dyn_cast<cuda::NormBackwardInputOp>(op)) {
    NormBackwardInputMath math(backward.getEps().convertToDouble(),
                               backward.getGamma(), backward.getDy(),
                               backward.getInput());
    buildRowKernels(rewriter, loc, backward.getInput(), backward.getInit(),
                    math, 5);
  } else {
    auto norm = cast<cuda::NormOp>(op);
    Value gamma = norm.getGamma(), beta = norm.getBeta();
    // Contiguous gamma and beta are read a 16-byte group at a time beside
    // the row (their alignment checked with the row's).
    bool groupLoads = llvm::all_of(ValueRange{gamma, beta}, [](Value v) {
      return cast<MemRefType>(v.getType()).getLayout().isIdentity();
    });
    NormMath math(norm.getRms(), norm.getEps().convertToDouble(),
                  [&](Value column, bool isBeta, int64_t count) {
                    KernelBuilder k{rewriter, loc};
                    Value buffer = isBeta ? beta : gamma;
                    SmallVector<Value> elements;
                    if (count > 1 && groupLoads) {
                      auto type = cast<MemRefType>(buffer.getType());
                      auto load = vector::LoadOp::create(
                          rewriter, loc,
                          VectorType::get({count}, type.getElementType()),
                          buffer, column);
                      load.setAlignment(16);
                      for (int64_t i = 0; i < count; ++i)
                        elements.push_back(k.toF32(
                            vector::ExtractOp::create(rewriter, loc, load, i)));
                      return elements;
                    }
                    for (int64_t i = 0; i < count; ++i)
                      elements.push_back(k.toF32(memref::LoadOp::create(
                          rewriter, loc, buffer, k.add(column, k.index(i)))));
                    return elements;
                  });
    SmallVector<Value> groupOperands;
    if (groupLoads)
      groupOperands = {gamma, beta};
    buildRowKernels(rewriter, loc, norm.getInput(), norm.getInit(), math,
                    norm.getRms() ? 1 : 3, groupOperands);
  }
  rewriter.eraseOp(op);
}
