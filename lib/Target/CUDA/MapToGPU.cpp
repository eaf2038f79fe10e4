//===- MapToGPU.cpp - every memory access of a graph into a kernel --------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The generic GPU path. After bufferization a graph function is a sequence
// of linalg ops, copies, allocations and (for scans and loops) sequential
// scf loops on buffers. Every buffer lives in device memory, so each op that
// touches memory becomes a kernel; the host keeps allocation, views and
// launches. Parallel loop nests are flattened to one dimension, which maps
// any rank and any shape to a grid without per-rank special cases.
//
// Where a nest's innermost dimension is a static multiple of four, a thread
// runs four consecutive points of it instead of one, and the accesses that
// walk that dimension contiguously become one vector load or store (16
// bytes for f32): elementwise kernels are bound by memory bandwidth, which
// wide accesses use better. The host checks that the buffers are 16-byte
// aligned and launches the one-point kernel otherwise.
//
//===----------------------------------------------------------------------===//

#include "KernelIndexing.h"
#include "KernelOps.h"
#include "ReductionKernels.h"

#include "rlx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCUDAMAPTOGPU
#include "rlx/Target/CUDA/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {

/// The buffer a view or cast was taken of.
Value rootBuffer(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      buffer = view.getViewSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      buffer = cast.getSource();
    else
      break;
  }
  return buffer;
}

/// Whether `call` is to a runtime function on device buffers (a GEMM).
bool callTakesDeviceBuffers(Operation *call) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, cast<func::CallOp>(call).getCalleeAttr());
  return callee && callee->hasAttr(rlx::kDeviceBuffersAttrName);
}

/// Buffers of host bookkeeping, which stay in host memory: the ownership
/// tables the deallocation pipeline fills with buffer addresses (`index`
/// elements) and flags and passes to its helper function; and globals whose
/// only uses take their address (rlx-cuda-resident-constants passes a
/// constant's address to the runtime, which keeps its device copy).
DenseSet<Value> findHostBuffers(func::FuncOp fn) {
  DenseSet<Value> hostBuffers;
  fn.walk([&](memref::GetGlobalOp global) {
    if (!global->use_empty() &&
        llvm::all_of(global->getUsers(), [](Operation *user) {
          return isa<memref::ExtractAlignedPointerAsIndexOp>(user);
        }))
      hostBuffers.insert(global.getResult());
  });
  fn.walk([&](Operation *op) {
    if (!isa<memref::AllocOp, memref::AllocaOp>(op))
      return;
    Value buffer = op->getResult(0);
    bool isHost = cast<MemRefType>(buffer.getType()).getElementType().isIndex();
    SmallVector<Value> worklist = {buffer};
    while (!isHost && !worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers()) {
        if (isa<func::CallOp>(user) && !callTakesDeviceBuffers(user))
          isHost = true;
        else if (isa<ViewLikeOpInterface, memref::CastOp>(user))
          worklist.push_back(user->getResult(0));
      }
    }
    if (isHost)
      hostBuffers.insert(buffer);
  });
  return hostBuffers;
}

/// Points of the innermost loop dimension one thread of a vectorized
/// kernel runs.
constexpr int64_t kLanes = 4;
/// The alignment the host checks before launching a vectorized kernel, and
/// the most a vector access claims.
constexpr int64_t kVectorAlignment = 16;
/// Nests of fewer points (when known) keep one point per thread: their
/// launch costs more than their memory traffic, and a second kernel would
/// only grow the module.
constexpr int64_t kMinVectorizedPoints = 4096;

/// Which accesses of a parallel loop nest's body a vectorized kernel turns
/// into vector loads and stores, and the buffers whose alignment the host
/// checks for them.
struct VectorAccessPlan {
  DenseSet<Operation *> vectorAccesses;
  SmallVector<Value> buffers;
};

/// Whether an access of `type` whose last index is the innermost loop index
/// (a multiple of kLanes plus the lane) and whose other indices do not
/// depend on it reads kLanes consecutive elements at an address that is a
/// multiple of their size, given a 16-byte aligned base: unit last stride,
/// and every other stride and the offset multiples of kLanes.
bool isAlignedContiguousAccess(MemRefType type) {
  Type element = type.getElementType();
  if (!element.isIntOrFloat() ||
      !llvm::is_contained({8u, 16u, 32u, 64u}, element.getIntOrFloatBitWidth()))
    return false;
  if (type.getRank() == 0)
    return false;
  if (type.getLayout().isIdentity()) {
    // Row-major: every stride but the last is a multiple of the last size.
    int64_t last = type.getShape().back();
    return !ShapedType::isDynamic(last) && last % kLanes == 0;
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(offset) ||
      offset % kLanes != 0)
    return false;
  return llvm::all_of(ArrayRef<int64_t>(strides).drop_back(), [](int64_t s) {
    return !ShapedType::isDynamic(s) && s % kLanes == 0;
  });
}

/// The values of `body` that differ between the points of one thread of a
/// vectorized kernel: the innermost index and what depends on it.
DenseSet<Value> findLaneVariantValues(Block *body, Value innermost) {
  DenseSet<Value> variant = {innermost};
  for (Operation &op : body->without_terminator())
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return variant.contains(v); }))
      variant.insert(op.result_begin(), op.result_end());
  return variant;
}

/// The plan of a vectorized kernel for `loop`, or std::nullopt where one
/// thread cannot run kLanes points of it (a dynamic or indivisible innermost
/// dimension, a body with nested loops or effects other than loads and
/// stores) or no access would become a vector access.
std::optional<VectorAccessPlan> planVectorAccesses(scf::ParallelOp loop) {
  unsigned inner = loop.getNumLoops() - 1;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[inner]);
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[inner]);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep()[inner]);
  if (lb != 0 || step != 1 || !ub || *ub % kLanes != 0 || *ub == 0)
    return std::nullopt;
  // The points of the nest, where the bounds are constants.
  int64_t points = 1;
  for (auto [lower, upper, stride] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lower);
    std::optional<int64_t> u = getConstantIntValue(upper);
    std::optional<int64_t> s = getConstantIntValue(stride);
    if (!l || !u || !s) {
      points = kMinVectorizedPoints;
      break;
    }
    points *= std::max<int64_t>(llvm::divideCeil(*u - *l, *s), 0);
  }
  if (points < kMinVectorizedPoints)
    return std::nullopt;

  Block *body = loop.getBody();
  Value innermost = loop.getInductionVars()[inner];
  DenseSet<Value> variant = findLaneVariantValues(body, innermost);
  VectorAccessPlan plan;
  for (Operation &op : body->without_terminator()) {
    if (op.getNumRegions() != 0)
      return std::nullopt;
    Value buffer;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      buffer = load.getMemRef();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      buffer = store.getMemRef();
      indices = store.getIndices();
    } else if (isMemoryEffectFree(&op)) {
      continue;
    } else {
      return std::nullopt;
    }
    if (indices.empty() || indices.back() != innermost ||
        llvm::any_of(indices.drop_back(),
                     [&](Value v) { return variant.contains(v); }) ||
        loop->isAncestor(buffer.getParentBlock()->getParentOp()) ||
        !isAlignedContiguousAccess(cast<MemRefType>(buffer.getType())))
      continue;
    plan.vectorAccesses.insert(&op);
    if (!llvm::is_contained(plan.buffers, buffer))
      plan.buffers.push_back(buffer);
  }
  if (plan.vectorAccesses.empty())
    return std::nullopt;
  return plan;
}

class GraphKernelMapper {
public:
  GraphKernelMapper(func::FuncOp fn, int64_t blockSize,
                    int64_t rowReductionMinPoints, bool vectorize)
      : fn(fn), rewriter(fn.getContext()), blockSize(blockSize),
        rowReductionMinPoints(rowReductionMinPoints), vectorize(vectorize),
        hostBuffers(findHostBuffers(fn)) {}

  LogicalResult run() {
    if (failed(mapBlock(fn.getBody().front())))
      return failure();
    freeScopedBuffers();
    return success();
  }

private:
  /// Maps the ops of a block that runs on the host: the function body, or
  /// the body of a loop or branch kept on the host.
  LogicalResult mapBlock(Block &block) {
    lowerStructuredOpsToLoops(block);
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isa<gpu::LaunchOp>(op))
        continue;
      if (auto loop = dyn_cast<scf::ParallelOp>(op);
          loop && loop.getNumResults() == 0) {
        mapParallelLoop(loop);
        continue;
      }
      if (runsOnHost(&op)) {
        moveBuffersToDevice(&op);
        continue;
      }
      if (keepsControlOnHost(&op)) {
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            if (failed(mapBlock(nested)))
              return failure();
        continue;
      }
      if (failed(runInOneThread(&op)))
        return failure();
    }
    return success();
  }

  /// Ops the host runs: they compute indices and views, manage buffers,
  /// call host functions or touch host bookkeeping buffers, and never read
  /// or write an element of a device buffer.
  bool runsOnHost(Operation *op) const {
    if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
            memref::GetGlobalOp, func::ReturnOp, func::CallOp>(op))
      return true;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return hostBuffers.contains(rootBuffer(load.getMemRef()));
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return hostBuffers.contains(rootBuffer(store.getMemRef()));
    if (isa<scf::IfOp>(op)) {
      // The deallocation pipeline frees conditionally owned buffers under
      // an `scf.if`; such an if stays on the host.
      WalkResult walk = op->walk([](Operation *nested) {
        if (isa<scf::IfOp, scf::YieldOp, memref::DeallocOp>(nested) ||
            isMemoryEffectFree(nested))
          return WalkResult::advance();
        return WalkResult::interrupt();
      });
      return !walk.wasInterrupted();
    }
    return isMemoryEffectFree(op);
  }

  /// Loops and branches whose bodies hold whole buffer operations (linalg
  /// ops, parallel loops, allocations; a scan's steps, say) or that pass
  /// buffers or values to the host stay on the host, and their bodies are
  /// mapped in turn: each operation launches its own kernels. A loop of
  /// scalar work only runs whole in one thread instead.
  static bool keepsControlOnHost(Operation *op) {
    if (op->getNumRegions() == 0 ||
        !isa<scf::ForOp, scf::WhileOp, scf::IfOp, scf::IndexSwitchOp>(op))
      return false;
    WalkResult walk = op->walk([](Operation *nested) {
      if (isa<linalg::LinalgOp, scf::ParallelOp, gpu::LaunchOp, memref::AllocOp,
              memref::DeallocOp, memref::CopyOp, memref::GetGlobalOp,
              func::CallOp>(nested))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return true;
    // Scalar work only: it runs in one thread, unless the host uses a buffer
    // it yields (a buffer chosen on the device has no name on the host).
    return llvm::any_of(op->getResults(), [](Value result) {
      return isa<MemRefType>(result.getType()) && !result.use_empty();
    });
  }

  /// A scalar in host memory for a value computed on the device, allocated
  /// once at the function's entry (not on every trip of a host loop).
  Value hostScratch(Location loc, Type elementType) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&fn.getBody().front());
    Value scratch = memref::AllocaOp::create(rewriter, loc,
                                             MemRefType::get({}, elementType));
    hostBuffers.insert(scratch);
    return scratch;
  }

  /// The block's linalg ops and copies become parallel loop nests.
  void lowerStructuredOpsToLoops(Block &body) {
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        rewriter.setInsertionPoint(copy);
        Operation *generic = linalg::makeMemRefCopyOp(
            rewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
        rewriter.eraseOp(copy);
        lowerToParallelLoops(cast<linalg::LinalgOp>(generic));
        continue;
      }
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (!linalgOp)
        continue;
      if (rowReductionMinPoints > 0 &&
          rlx::mapRowReduction(rewriter, linalgOp, rowReductionMinPoints))
        continue;
      lowerToParallelLoops(linalgOp);
    }
  }

  void lowerToParallelLoops(linalg::LinalgOp op) {
    // An op on rank-0 buffers has no loop to map; it stays whole and runs
    // in a one-thread kernel.
    if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0)
      return;
    rewriter.setInsertionPoint(op);
    // Threads take the outer parallel loops up to the first reduction;
    // parallel loops inside a reduction would run in each thread. A
    // generic whose loops interleave (a max pool with its window between
    // the output rows and columns, as the CPU lowering orders it for
    // vectorization) has its parallel loops put first, so that every
    // output element is a thread of its own and its window a loop in it:
    // a bf16 ResNet-50 stem pool at batch 128 took 16 ms mapped over only
    // batch, channel and output row.
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
      SmallVector<unsigned> order;
      SmallVector<utils::IteratorType> iterators =
          generic.getIteratorTypesArray();
      for (auto [index, type] : llvm::enumerate(iterators))
        if (type == utils::IteratorType::parallel)
          order.push_back(index);
      for (auto [index, type] : llvm::enumerate(iterators))
        if (type != utils::IteratorType::parallel)
          order.push_back(index);
      bool interleaved = llvm::any_of(llvm::enumerate(order), [](auto pair) {
        return pair.index() != pair.value();
      });
      if (interleaved) {
        FailureOr<linalg::GenericOp> interchanged =
            linalg::interchangeGenericOp(rewriter, generic, order);
        if (succeeded(interchanged))
          op = *interchanged;
      }
    }
    if (succeeded(linalg::linalgOpToParallelLoops(rewriter, op)))
      rewriter.eraseOp(op);
  }

  /// One kernel for a parallel loop nest, in two forms where it vectorizes:
  /// the host launches the vectorized one when the buffers its vector
  /// accesses use are 16-byte aligned.
  void mapParallelLoop(scf::ParallelOp loop) {
    Location loc = loop.getLoc();
    // The loop lowering indexes through `affine.apply (d0) -> (d0)`; the
    // plan recognizes accesses by the loop index itself.
    loop.getBody()->walk([&](affine::AffineApplyOp apply) {
      if (apply.getAffineMap().isIdentity() && apply.getNumOperands() == 1) {
        rewriter.replaceAllUsesWith(apply, apply.getOperand(0));
        rewriter.eraseOp(apply);
      }
    });
    rewriter.setInsertionPoint(loop);
    std::optional<VectorAccessPlan> plan;
    if (vectorize)
      plan = planVectorAccesses(loop);
    if (!plan) {
      emitLoopKernel(loop, nullptr);
    } else {
      Value aligned =
          rlx::buffersAligned(rewriter, loc, plan->buffers, kVectorAlignment);
      auto choice = scf::IfOp::create(rewriter, loc, aligned,
                                      /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(choice.thenBlock());
      emitLoopKernel(loop, &*plan);
      rewriter.setInsertionPointToStart(choice.elseBlock());
      emitLoopKernel(loop, nullptr);
    }
    rewriter.eraseOp(loop);
  }

  /// The kernel of `loop` at the insertion point: thread `t` of the
  /// flattened iteration space runs the point whose row-major linear index
  /// is `t`; with a `plan`, the kLanes points from `kLanes * t`, which share
  /// every index but the innermost.
  void emitLoopKernel(scf::ParallelOp loop, const VectorAccessPlan *plan) {
    Location loc = loop.getLoc();
    int64_t lanes = plan ? kLanes : 1;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> tripCounts;
    Value total = one;
    for (auto [lb, ub, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      Value extent = rewriter.createOrFold<arith::SubIOp>(loc, ub, lb);
      Value trips =
          rewriter.createOrFold<arith::CeilDivSIOp>(loc, extent, step);
      trips = rewriter.createOrFold<arith::MaxSIOp>(loc, trips, zero);
      tripCounts.push_back(trips);
      total = rewriter.createOrFold<arith::MulIOp>(loc, total, trips);
    }
    Value laneCount = arith::ConstantIndexOp::create(rewriter, loc, lanes);
    // The innermost trip count is a multiple of the lanes (the plan checks).
    Value work = rewriter.createOrFold<arith::DivUIOp>(loc, total, laneCount);
    // Small loops get a block of their own size; an empty loop still
    // launches one block (a grid of zero blocks is a launch error), whose
    // threads all fail the bounds check.
    Value threads = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
    if (std::optional<int64_t> known = getConstantIntValue(work))
      threads = arith::ConstantIndexOp::create(
          rewriter, loc, std::clamp<int64_t>(*known, 1, blockSize));
    Value blocks =
        rewriter.createOrFold<arith::CeilDivSIOp>(loc, work, threads);
    blocks = rewriter.createOrFold<arith::MaxSIOp>(loc, blocks, one);

    auto launch = gpu::LaunchOp::create(rewriter, loc, blocks, one, one,
                                        threads, one, one);
    Block &kernel = launch.getBody().front();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&kernel);
    Value thread = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, launch.getBlockIds().x, threads),
        launch.getThreadIds().x);
    Value inBounds = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, thread, work);
    auto inRange = scf::IfOp::create(rewriter, loc, inBounds,
                                     /*withElseRegion=*/false);
    gpu::TerminatorOp::create(rewriter, loc);

    rewriter.setInsertionPointToStart(inRange.thenBlock());
    Value linear =
        plan ? arith::MulIOp::create(rewriter, loc, thread, laneCount) : thread;
    IRMapping mapping;
    for (auto [i, index] :
         llvm::enumerate(rlx::delinearize(rewriter, loc, linear, tripCounts))) {
      Value iv = arith::AddIOp::create(
          rewriter, loc, loop.getLowerBound()[i],
          arith::MulIOp::create(rewriter, loc, index, loop.getStep()[i]));
      mapping.map(loop.getInductionVars()[i], iv);
    }
    if (!plan) {
      for (Operation &op : loop.getBody()->without_terminator())
        rewriter.clone(op, mapping);
      return;
    }
    cloneBodyForLanes(loop, *plan, mapping);
  }

  /// The body of `loop` for kLanes points of its innermost dimension:
  /// `first` maps the loop's indices to those of the first point; the
  /// other points differ in the innermost index only. Accesses the plan
  /// names become one vector load or store for all points, values the same
  /// in every point are computed once, and the rest once per point.
  void cloneBodyForLanes(scf::ParallelOp loop, const VectorAccessPlan &plan,
                         const IRMapping &first) {
    Location loc = loop.getLoc();
    Block *body = loop.getBody();
    Value innermost = loop.getInductionVars().back();
    DenseSet<Value> variant = findLaneVariantValues(body, innermost);
    SmallVector<IRMapping> lanes(kLanes, first);
    for (int64_t lane = 1; lane < kLanes; ++lane)
      lanes[lane].map(innermost,
                      arith::AddIOp::create(
                          rewriter, loc, first.lookup(innermost),
                          arith::ConstantIndexOp::create(rewriter, loc, lane)));
    auto accessAlignment = [](MemRefType type) {
      int64_t bytes = kLanes * type.getElementTypeBitWidth() / 8;
      return std::min<int64_t>(bytes, kVectorAlignment);
    };
    for (Operation &op : body->without_terminator()) {
      if (auto load = dyn_cast<memref::LoadOp>(op);
          load && plan.vectorAccesses.contains(&op)) {
        auto type = cast<MemRefType>(load.getMemRef().getType());
        auto vectorType = VectorType::get({kLanes}, type.getElementType());
        auto wide = vector::LoadOp::create(
            rewriter, loc, vectorType,
            lanes[0].lookupOrDefault(load.getMemRef()),
            llvm::map_to_vector(load.getIndices(), [&](Value v) {
              return lanes[0].lookupOrDefault(v);
            }));
        wide.setAlignment(accessAlignment(type));
        for (int64_t lane = 0; lane < kLanes; ++lane)
          lanes[lane].map(load.getResult(),
                          vector::ExtractOp::create(rewriter, loc, wide, lane));
        continue;
      }
      if (auto store = dyn_cast<memref::StoreOp>(op);
          store && plan.vectorAccesses.contains(&op)) {
        auto type = cast<MemRefType>(store.getMemRef().getType());
        auto vectorType = VectorType::get({kLanes}, type.getElementType());
        SmallVector<Value> elements;
        for (IRMapping &mapping : lanes)
          elements.push_back(mapping.lookupOrDefault(store.getValue()));
        Value packed =
            vector::FromElementsOp::create(rewriter, loc, vectorType, elements);
        auto wide = vector::StoreOp::create(
            rewriter, loc, packed, lanes[0].lookupOrDefault(store.getMemRef()),
            llvm::map_to_vector(store.getIndices(), [&](Value v) {
              return lanes[0].lookupOrDefault(v);
            }));
        wide.setAlignment(accessAlignment(type));
        continue;
      }
      bool sameInEveryLane = !isa<memref::StoreOp>(op) &&
                             llvm::none_of(op.getResults(), [&](Value v) {
                               return variant.contains(v);
                             });
      if (sameInEveryLane) {
        Operation *once = rewriter.clone(op, lanes[0]);
        for (int64_t lane = 1; lane < kLanes; ++lane)
          lanes[lane].map(op.getResults(), once->getResults());
        continue;
      }
      for (IRMapping &mapping : lanes)
        rewriter.clone(op, mapping);
    }
  }

  /// Allocation and deallocation of device buffers; constant buffers that
  /// rlx-cuda-resident-constants left (mutable globals, element types it
  /// does not size) are copied to the device where they are taken.
  void moveBuffersToDevice(Operation *root) {
    SmallVector<Operation *> ops;
    root->walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      if (op->getNumResults() == 1 && hostBuffers.contains(op->getResult(0)))
        continue;
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op);
          dealloc && hostBuffers.contains(rootBuffer(dealloc.getMemref())))
        continue;
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        replaceByDeviceAlloc(op, alloc.getType(), alloc.getDynamicSizes(),
                             alloc.getSymbolOperands());
      } else if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
        // A stack buffer of the host is not visible to kernels; it becomes
        // a device buffer freed when the function returns.
        Value buffer =
            replaceByDeviceAlloc(op, alloca.getType(), alloca.getDynamicSizes(),
                                 alloca.getSymbolOperands());
        scopedBuffers.push_back(buffer);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(rewriter, op->getLoc(), Type(), ValueRange(),
                               dealloc.getMemref());
        rewriter.eraseOp(op);
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        rewriter.setInsertionPointAfter(op);
        auto type = cast<MemRefType>(global.getType());
        auto deviceType =
            MemRefType::get(type.getShape(), type.getElementType(),
                            type.getLayout(), Attribute());
        Value device = gpu::AllocOp::create(rewriter, op->getLoc(), deviceType,
                                            Type(), ValueRange(), ValueRange(),
                                            ValueRange(), false)
                           .getMemref();
        rewriter.replaceAllUsesWith(global.getResult(), device);
        gpu::MemcpyOp::create(rewriter, op->getLoc(), Type(), ValueRange(),
                              device, global.getResult());
        scopedBuffers.push_back(device);
      }
    }
  }

  Value replaceByDeviceAlloc(Operation *op, MemRefType type,
                             ValueRange dynamicSizes, ValueRange symbols) {
    Value buffer =
        gpu::AllocOp::create(rewriter, op->getLoc(), type, Type(), ValueRange(),
                             dynamicSizes, symbols, false)
            .getMemref();
    rewriter.replaceOp(op, buffer);
    return buffer;
  }

  /// Device buffers that stand for host stack buffers and constants are
  /// freed at the end of the block that made them.
  void freeScopedBuffers() {
    for (Value buffer : scopedBuffers) {
      Operation *terminator = buffer.getParentBlock()->getTerminator();
      rewriter.setInsertionPoint(terminator);
      gpu::DeallocOp::create(rewriter, terminator->getLoc(), Type(),
                             ValueRange(), buffer);
    }
  }

  /// The fallback for sequential work: the op runs whole in one thread.
  /// Scalars it produces for the host (a loop's trip count, a condition)
  /// go through a device scalar copied into host memory.
  LogicalResult runInOneThread(Operation *op) {
    SmallVector<Value> toHost;
    for (Value result : op->getResults()) {
      if (result.use_empty())
        continue;
      if (isa<MemRefType>(result.getType()))
        return op->emitOpError()
               << "produces on the device a buffer that host code uses; the "
                  "CUDA target cannot run it";
      toHost.push_back(result);
    }
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    SmallVector<Value> deviceScalars;
    for (Value result : toHost)
      deviceScalars.push_back(
          gpu::AllocOp::create(rewriter, loc,
                               MemRefType::get({}, result.getType()), Type(),
                               ValueRange(), ValueRange(), ValueRange(), false)
              .getMemref());
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto launch =
        gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
    Block &kernel = launch.getBody().front();
    rewriter.setInsertionPointToStart(&kernel);
    auto terminator = gpu::TerminatorOp::create(rewriter, loc);
    op->moveBefore(terminator);
    rewriter.setInsertionPoint(terminator);
    for (auto [result, device] : llvm::zip(toHost, deviceScalars))
      memref::StoreOp::create(rewriter, loc, result, device);
    rewriter.setInsertionPointAfter(launch);
    for (auto [result, device] : llvm::zip(toHost, deviceScalars)) {
      Value host = hostScratch(loc, result.getType());
      gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange(), host, device);
      gpu::DeallocOp::create(rewriter, loc, Type(), ValueRange(), device);
      Value value = memref::LoadOp::create(rewriter, loc, host);
      result.replaceUsesWithIf(value, [&](OpOperand &use) {
        return !launch->isAncestor(use.getOwner());
      });
    }
    return success();
  }

  func::FuncOp fn;
  IRRewriter rewriter;
  int64_t blockSize;
  int64_t rowReductionMinPoints;
  bool vectorize;
  SmallVector<Value> scopedBuffers;
  DenseSet<Value> hostBuffers;
};

struct RLXCUDAMapToGPUPass
    : rlx::impl::RLXCUDAMapToGPUBase<RLXCUDAMapToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    // Graphs are the public functions; private ones are host helpers (the
    // deallocation pipeline's ownership bookkeeping).
    if (fn.isExternal() || !fn.isPublic())
      return;
    if (blockSize < 1 || blockSize > 1024) {
      fn.emitError() << "rlx-cuda-map-to-gpu: block-size must be in [1, "
                        "1024], got "
                     << blockSize;
      return signalPassFailure();
    }
    if (failed(
            GraphKernelMapper(fn, blockSize, rowReductionMinPoints, vectorize)
                .run()))
      signalPassFailure();
  }
};

} // namespace
