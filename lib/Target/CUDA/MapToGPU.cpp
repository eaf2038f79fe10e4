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
//===----------------------------------------------------------------------===//

#include "KernelIndexing.h"
#include "ReductionKernels.h"

#include "rlx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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
/// elements) and flags and passes to its helper function.
DenseSet<Value> findHostBuffers(func::FuncOp fn) {
  DenseSet<Value> hostBuffers;
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

class GraphKernelMapper {
public:
  GraphKernelMapper(func::FuncOp fn, int64_t blockSize,
                    int64_t rowReductionMinPoints)
      : fn(fn), rewriter(fn.getContext()), blockSize(blockSize),
        rowReductionMinPoints(rowReductionMinPoints),
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
    if (succeeded(linalg::linalgOpToParallelLoops(rewriter, op)))
      rewriter.eraseOp(op);
  }

  /// One kernel for a parallel loop nest: thread `t` of the flattened
  /// iteration space runs the point whose row-major linear index is `t`.
  void mapParallelLoop(scf::ParallelOp loop) {
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);
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
    // Small loops get a block of their own size; an empty loop still
    // launches one block (a grid of zero blocks is a launch error), whose
    // threads all fail the bounds check.
    Value threads = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
    if (std::optional<int64_t> known = getConstantIntValue(total))
      threads = arith::ConstantIndexOp::create(
          rewriter, loc, std::clamp<int64_t>(*known, 1, blockSize));
    Value blocks =
        rewriter.createOrFold<arith::CeilDivSIOp>(loc, total, threads);
    blocks = rewriter.createOrFold<arith::MaxSIOp>(loc, blocks, one);

    auto launch = gpu::LaunchOp::create(rewriter, loc, blocks, one, one,
                                        threads, one, one);
    Block &kernel = launch.getBody().front();
    rewriter.setInsertionPointToStart(&kernel);
    Value linear = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, launch.getBlockIds().x, threads),
        launch.getThreadIds().x);
    Value inBounds = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, linear, total);
    auto guard = scf::IfOp::create(rewriter, loc, inBounds,
                                   /*withElseRegion=*/false);
    gpu::TerminatorOp::create(rewriter, loc);

    rewriter.setInsertionPointToStart(guard.thenBlock());
    IRMapping mapping;
    for (auto [i, index] :
         llvm::enumerate(rlx::delinearize(rewriter, loc, linear, tripCounts))) {
      Value iv = arith::AddIOp::create(
          rewriter, loc, loop.getLowerBound()[i],
          arith::MulIOp::create(rewriter, loc, index, loop.getStep()[i]));
      mapping.map(loop.getInductionVars()[i], iv);
    }
    for (Operation &op : loop.getBody()->without_terminator())
      rewriter.clone(op, mapping);
    rewriter.eraseOp(loop);
  }

  /// Allocation and deallocation of device buffers; constant buffers are
  /// copied to the device where they are taken.
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
    if (failed(GraphKernelMapper(fn, blockSize, rowReductionMinPoints).run()))
      signalPassFailure();
  }
};

} // namespace
