//===- ShardPartition.cpp - rlx-shard-partition ---------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Turns a graph annotated with a mesh and per-argument splits into the
// program each rank runs: the annotations become the shard dialect's,
// upstream sharding-propagation and shard-partition do the work, and the
// shard collectives they leave become rlx collectives, which rlx's targets
// lower (docs/distributed.md#sharding).
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXSHARDPARTITION
#include "rlx/Transforms/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr StringLiteral kMeshAttr = "rlx.mesh";
constexpr StringLiteral kSplitAttr = "rlx.split";

/// Reads `rlx.split = [[], [0, 1]]` of a tensor of `type` on a mesh of
/// `meshRank` axes; `attr` null is a replicated tensor.
FailureOr<SmallVector<shard::GridAxesAttr>>
parseSplit(Attribute attr, RankedTensorType type, int64_t meshRank,
           function_ref<InFlightDiagnostic()> emitError) {
  SmallVector<shard::GridAxesAttr> split;
  if (!attr)
    return split;
  auto dims = dyn_cast<ArrayAttr>(attr);
  if (!dims || (int64_t)dims.size() > type.getRank())
    return emitError() << "rlx.split must list, for at most each of the "
                       << type.getRank() << " dims of " << type
                       << ", the mesh axes it is split over, such as "
                          "[[], [0]]; got "
                       << attr;
  llvm::SmallBitVector used(meshRank);
  for (Attribute dim : dims) {
    auto axesAttr = dyn_cast<ArrayAttr>(dim);
    if (!axesAttr)
      return emitError() << "rlx.split: each dim's entry is a list of mesh "
                            "axes; got "
                         << dim;
    SmallVector<int16_t> axes;
    for (Attribute a : axesAttr) {
      auto axis = dyn_cast<IntegerAttr>(a);
      if (!axis)
        return emitError() << "rlx.split: mesh axis " << a
                           << " is not an integer";
      if (axis.getInt() < 0 || axis.getInt() >= meshRank)
        return emitError() << "rlx.split: mesh axis " << axis.getInt()
                           << " is not in [0, " << meshRank << ")";
      if (used.test(axis.getInt()))
        return emitError() << "rlx.split: mesh axis " << axis.getInt()
                           << " splits more than one dim";
      used.set(axis.getInt());
      axes.push_back(axis.getInt());
    }
    split.push_back(shard::GridAxesAttr::get(attr.getContext(), axes));
  }
  return split;
}

struct RLXShardPartition
    : public rlx::impl::RLXShardPartitionBase<RLXShardPartition> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (!func->hasAttr(kMeshAttr))
        continue;
      if (failed(partition(module, func)))
        return signalPassFailure();
    }
  }

  LogicalResult partition(ModuleOp module, func::FuncOp func);
  LogicalResult annotate(func::FuncOp func, shard::GridOp grid);
  LogicalResult checkAnnotated(func::FuncOp func, shard::GridOp grid);
  LogicalResult toRLXCollectives(func::FuncOp func, shard::GridOp grid);
};

LogicalResult RLXShardPartition::partition(ModuleOp module, func::FuncOp func) {
  auto meshAttr = dyn_cast<ArrayAttr>(func->getAttr(kMeshAttr));
  SmallVector<int64_t> mesh;
  for (Attribute a : meshAttr ? meshAttr : ArrayAttr()) {
    auto size = dyn_cast<IntegerAttr>(a);
    if (!size || size.getInt() < 1)
      return func.emitError() << "rlx.mesh must list the mesh's axis sizes "
                                 "(each >= 1), such as [2] or [2, 4]; got "
                              << func->getAttr(kMeshAttr);
    mesh.push_back(size.getInt());
  }
  if (mesh.empty())
    return func.emitError() << "rlx.mesh must list the mesh's axis sizes, "
                               "such as [2] or [2, 4]; got "
                            << func->getAttr(kMeshAttr);
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "rlx-shard-partition takes a function of one "
                               "block";

  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToStart(module.getBody());
  auto grid = shard::GridOp::create(b, func.getLoc(),
                                    (func.getName() + "_mesh").str(), mesh);
  SymbolTable(module).insert(grid);

  if (failed(annotate(func, grid)))
    return failure();

  // Before propagation, whose own error on an op without a model does not
  // say what to do; after it, for the splits it chose.
  if (failed(checkAnnotated(func, grid)))
    return failure();
  OpPassManager pm(func::FuncOp::getOperationName());
  // Forward first: the arguments' splits are the user's intent, and the
  // results' (replicated by default) would otherwise reach back and gather
  // a row-split layer's operand before it instead of reducing after it.
  shard::ShardingPropagationOptions propagation;
  propagation.traversal = shard::TraversalOrder::ForwardBackward;
  pm.addPass(shard::createShardingPropagation(propagation));
  if (failed(runPipeline(pm, func)))
    return failure();
  if (failed(checkAnnotated(func, grid)))
    return failure();
  OpPassManager partitionPm(func::FuncOp::getOperationName());
  partitionPm.addPass(shard::createPartition());
  if (failed(runPipeline(partitionPm, func)))
    return failure();
  if (failed(toRLXCollectives(func, grid)))
    return failure();

  func->removeAttr(kMeshAttr);
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    func.removeArgAttr(i, kSplitAttr);
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    func.removeResultAttr(i, StringAttr::get(func.getContext(), kSplitAttr));
  grid.erase();
  return success();
}

/// Arguments (and constants) are sharded as defined; returned values are
/// annotated for their user, the return, so that partitioning reshards them
/// to the declared split (replicated by default: the graph's results).
LogicalResult RLXShardPartition::annotate(func::FuncOp func,
                                          shard::GridOp grid) {
  MLIRContext *ctx = func.getContext();
  auto gridRef = FlatSymbolRefAttr::get(grid.getSymNameAttr());
  Block &body = func.getBody().front();
  OpBuilder b(ctx);

  auto shardValue = [&](Value v, ArrayRef<shard::GridAxesAttr> split,
                        bool forUsers, OpBuilder &b) {
    Value sharding =
        shard::ShardingOp::create(b, v.getLoc(), gridRef, split).getResult();
    return shard::ShardOp::create(b, v.getLoc(), v, sharding, forUsers)
        .getResult();
  };

  b.setInsertionPointToStart(&body);
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() == 0)
      continue;
    auto split = parseSplit(func.getArgAttr(arg.getArgNumber(), kSplitAttr),
                            type, grid.getShape().size(), [&] {
                              return func.emitError()
                                     << "argument " << arg.getArgNumber()
                                     << ": ";
                            });
    if (failed(split))
      return failure();
    Value sharded = shardValue(arg, *split, /*forUsers=*/false, b);
    arg.replaceAllUsesExcept(sharded, sharded.getDefiningOp());
  }

  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (!op.hasTrait<OpTrait::ConstantLike>())
      continue;
    for (Value r : op.getResults()) {
      auto type = dyn_cast<RankedTensorType>(r.getType());
      if (!type || type.getRank() == 0 || r.use_empty())
        continue;
      b.setInsertionPointAfter(&op);
      Value sharded = shardValue(r, {}, /*forUsers=*/false, b);
      r.replaceAllUsesExcept(sharded, sharded.getDefiningOp());
    }
  }

  Operation *ret = body.getTerminator();
  b.setInsertionPoint(ret);
  for (OpOperand &operand : ret->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type || type.getRank() == 0)
      continue;
    unsigned i = operand.getOperandNumber();
    auto split = parseSplit(
        func.getResultAttr(i, kSplitAttr), type, grid.getShape().size(),
        [&] { return func.emitError() << "result " << i << ": "; });
    if (failed(split))
      return failure();
    operand.set(shardValue(operand.get(), *split, /*forUsers=*/true, b));
  }
  return success();
}

/// Every op needs a sharding model (propagation refuses an op without one),
/// and every split must divide its dim (partitioning asserts it). Name the
/// op that breaks either.
LogicalResult RLXShardPartition::checkAnnotated(func::FuncOp func,
                                                shard::GridOp grid) {
  WalkResult result = func.walk([&](Operation *op) {
    if (auto shardOp = dyn_cast<shard::ShardOp>(op)) {
      auto type = cast<RankedTensorType>(shardOp.getType());
      shard::Sharding sharding(shardOp.getSharding());
      for (auto [d, axes] : llvm::enumerate(sharding.getSplitAxes())) {
        int64_t parts = 1;
        for (shard::GridAxis a : axes.asArrayRef())
          parts *= grid.getShape()[a];
        if (d >= (size_t)type.getRank() ||
            ShapedType::isDynamic(type.getDimSize(d)) ||
            type.getDimSize(d) % parts != 0) {
          Operation *owner = shardOp.getSrc().getDefiningOp();
          InFlightDiagnostic diag =
              (owner && !isa<shard::ShardOp>(owner) ? owner : op)->emitError();
          diag << "cannot partition: dim " << d << " of " << type
               << " is split into " << parts << " parts over mesh axes [";
          llvm::interleaveComma(axes.asArrayRef(), diag);
          diag << "], which do not divide it";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    }
    if (op == func || isa<shard::ShardingOp, func::ReturnOp>(op) ||
        op->hasTrait<OpTrait::ConstantLike>())
      return WalkResult::advance();
    if (op->getNumRegions() != 0) {
      op->emitError() << "cannot partition: ops with regions are not "
                         "supported by rlx-shard-partition";
      return WalkResult::interrupt();
    }
    if (!isa<shard::ShardingInterface>(op)) {
      op->emitError() << "cannot partition: " << op->getName()
                      << " has no sharding model (docs/distributed.md "
                         "lists the ops that have one)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The shard collectives that resharding made, as rlx collectives of the
/// mesh; the casts it adds between equal types go.
LogicalResult RLXShardPartition::toRLXCollectives(func::FuncOp func,
                                                  shard::GridOp grid) {
  MLIRContext *ctx = func.getContext();
  auto group = [&](ArrayRef<int16_t> axes) {
    SmallVector<int64_t> sorted(axes.begin(), axes.end());
    llvm::sort(sorted);
    return GroupAttr::get(ctx, grid.getShape(), sorted);
  };
  WalkResult result = func.walk([&](Operation *op) {
    OpBuilder b(op);
    Value replacement;
    if (auto gather = dyn_cast<shard::AllGatherOp>(op)) {
      replacement = AllGatherOp::create(b, op->getLoc(), gather.getInput(),
                                        gather.getGatherAxis().getSExtValue(),
                                        group(gather.getGridAxes()));
    } else if (auto a2a = dyn_cast<shard::AllToAllOp>(op)) {
      replacement = AllToAllOp::create(
          b, op->getLoc(), a2a.getInput(), a2a.getSplitAxis().getSExtValue(),
          a2a.getConcatAxis().getSExtValue(), group(a2a.getGridAxes()));
    } else if (auto slice = dyn_cast<shard::AllSliceOp>(op)) {
      // The source is the same on every rank of the group, so the maximum
      // of the copies is the value itself, bit for bit, and reduce_scatter
      // hands each rank its slice. rlx has no op for the rank's index that
      // would make this a local slice.
      replacement = ReduceScatterOp::create(
          b, op->getLoc(), CollectiveKind::Max, slice.getInput(),
          slice.getSliceAxis().getSExtValue(), group(slice.getGridAxes()));
    } else if (auto reduce = dyn_cast<shard::AllReduceOp>(op)) {
      std::optional<CollectiveKind> kind;
      switch (reduce.getReduction()) {
      case shard::ReductionKind::Sum:
        kind = CollectiveKind::Sum;
        break;
      case shard::ReductionKind::Max:
        kind = CollectiveKind::Max;
        break;
      case shard::ReductionKind::Min:
        kind = CollectiveKind::Min;
        break;
      default:
        break;
      }
      if (!kind) {
        op->emitError() << "cannot partition: rlx has no all_reduce of kind "
                        << shard::stringifyReductionKind(reduce.getReduction());
        return WalkResult::interrupt();
      }
      replacement =
          AllReduceOp::create(b, op->getLoc(), *kind, reduce.getInput(),
                              group(reduce.getGridAxes()));
    } else if (auto cast = dyn_cast<tensor::CastOp>(op)) {
      if (cast.getSource().getType() != cast.getType()) {
        op->emitError() << "cannot partition: resharding changed a type";
        return WalkResult::interrupt();
      }
      replacement = cast.getSource();
    } else if (isa<shard::ShardingOp>(op)) {
      if (op->use_empty())
        op->erase();
      return WalkResult::skip();
    } else if (op->getDialect() && isa<shard::ShardDialect>(op->getDialect())) {
      op->emitError() << "cannot partition: rlx has no counterpart of "
                      << op->getName();
      return WalkResult::interrupt();
    } else {
      return WalkResult::advance();
    }
    if (replacement.getType() != op->getResult(0).getType()) {
      op->emitError() << "cannot partition: the rlx collective's type "
                      << replacement.getType() << " is not the shard op's "
                      << op->getResult(0).getType();
      return WalkResult::interrupt();
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
    return WalkResult::skip();
  });
  if (result.wasInterrupted())
    return failure();
  // The partitioned function's own `shard.sharding` ops that nothing reads.
  for (Operation &op : llvm::make_early_inc_range(func.getBody().front()))
    if (isa<shard::ShardingOp>(op) && op.use_empty())
      op.erase();
  return success();
}

} // namespace
