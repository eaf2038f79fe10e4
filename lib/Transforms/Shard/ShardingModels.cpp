//===- ShardingModels.cpp - rlx ops under the shard dialect's propagation -===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// External models of upstream `shard::ShardingInterface` on the rlx ops a
// tensor-parallel layer is made of, so that upstream `sharding-propagation`
// and `shard-partition` work on rlx graphs (docs/distributed.md#sharding).
// Each op describes itself as a loop nest: its loops' iterator types and one
// indexing map per operand and result, as linalg ops do. Partitioning clones
// the op on the local shards; a reduction loop split over mesh axes leaves
// each rank a partial result, which an `rlx.all_reduce` over those axes
// completes.
//
//===----------------------------------------------------------------------===//

#include "rlx/Transforms/Sharding.h"

#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// An op as a loop nest: iterator types, one map per operand then per result,
/// and how each reduction loop combines (`std::nullopt`: not by a collective,
/// such as softmax's normalisation, so that loop must stay whole on a rank).
struct LoopNest {
  SmallVector<utils::IteratorType> iterators;
  SmallVector<AffineMap> maps;
  SmallVector<std::optional<CollectiveKind>> combine;
};

/// Maps a tensor of `type`, right-aligned against `numLoops` parallel loops
/// (NumPy broadcasting). A stretched size-1 dim maps to its loop too: the
/// interface takes only dims, and partitioning refuses to split such a dim.
AffineMap rightAligned(Type type, unsigned numLoops, MLIRContext *ctx) {
  auto tensor = cast<RankedTensorType>(type);
  unsigned offset = numLoops - tensor.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < tensor.getRank(); ++d)
    exprs.push_back(getAffineDimExpr(offset + d, ctx));
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

/// Elementwise ops with NumPy broadcasting: one parallel loop per result dim.
LoopNest elementwiseNest(Operation *op) {
  LoopNest nest;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  unsigned rank = resultType.getRank();
  nest.iterators.assign(rank, utils::IteratorType::parallel);
  for (Value v : op->getOperands())
    nest.maps.push_back(rightAligned(v.getType(), rank, op->getContext()));
  for (Value v : op->getResults())
    nest.maps.push_back(rightAligned(v.getType(), rank, op->getContext()));
  return nest;
}

/// `[..., M, K] x [..., K, N]`: the result's dims, then K (a sum).
LoopNest matmulNest(MatMulOp op) {
  MLIRContext *ctx = op.getContext();
  unsigned rank = op.getType().getRank();
  unsigned numLoops = rank + 1;
  LoopNest nest;
  nest.iterators.assign(rank, utils::IteratorType::parallel);
  nest.iterators.push_back(utils::IteratorType::reduction);
  nest.combine.assign(rank, std::nullopt);
  nest.combine.push_back(CollectiveKind::Sum);
  auto operandMap = [&](Value v, unsigned rowLoop, unsigned colLoop) {
    int64_t r = cast<RankedTensorType>(v.getType()).getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < r - 2; ++d)
      exprs.push_back(getAffineDimExpr(rank - r + d, ctx));
    exprs.push_back(getAffineDimExpr(rowLoop, ctx));
    exprs.push_back(getAffineDimExpr(colLoop, ctx));
    return AffineMap::get(numLoops, 0, exprs, ctx);
  };
  nest.maps.push_back(operandMap(op.getLhs(), rank - 2, rank));
  nest.maps.push_back(operandMap(op.getRhs(), rank, rank - 1));
  nest.maps.push_back(AffineMap::get(
      numLoops, 0, AffineMap::getMultiDimIdentityMap(rank, ctx).getResults(),
      ctx));
  return nest;
}

/// `rlx.reduce`: one loop per input dim, the reduced ones reductions.
LoopNest reduceNest(ReduceOp op) {
  MLIRContext *ctx = op.getContext();
  unsigned rank = op.getInput().getType().getRank();
  LoopNest nest;
  nest.iterators.assign(rank, utils::IteratorType::parallel);
  nest.combine.assign(rank, std::nullopt);
  std::optional<CollectiveKind> kind;
  switch (op.getKind()) {
  case ReduceKind::Sum:
    kind = CollectiveKind::Sum;
    break;
  // Equal shards: the mean of the ranks' means is the mean of the whole.
  case ReduceKind::Mean:
    kind = CollectiveKind::Mean;
    break;
  case ReduceKind::Max:
    kind = CollectiveKind::Max;
    break;
  case ReduceKind::Min:
    kind = CollectiveKind::Min;
    break;
  case ReduceKind::Prod:
    break;
  }
  for (int64_t axis : op.getAxes()) {
    nest.iterators[axis] = utils::IteratorType::reduction;
    nest.combine[axis] = kind;
  }
  nest.maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  // A kept reduced dim of size 1 maps to its reduction loop (the maps hold
  // only dims); partitioning refuses to split that loop.
  SmallVector<AffineExpr> exprs;
  for (unsigned d = 0; d < rank; ++d)
    if (op.getKeepDim() || !llvm::is_contained(op.getAxes(), (int64_t)d))
      exprs.push_back(getAffineDimExpr(d, ctx));
  nest.maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  return nest;
}

/// Softmax and layer norm: identity maps, the normalised axis a reduction
/// that no collective completes. Layer norm's gamma and beta index the axis.
LoopNest normalizingNest(Operation *op, int64_t axis) {
  MLIRContext *ctx = op->getContext();
  unsigned rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
  if (axis < 0)
    axis += rank;
  LoopNest nest;
  nest.iterators.assign(rank, utils::IteratorType::parallel);
  nest.iterators[axis] = utils::IteratorType::reduction;
  nest.combine.assign(rank, std::nullopt);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap alongAxis = AffineMap::get(rank, 0, getAffineDimExpr(axis, ctx));
  for (Value v : op->getOperands())
    nest.maps.push_back(v == op->getOperand(0) ? identity : alongAxis);
  nest.maps.push_back(identity);
  return nest;
}

/// `rlx.transpose`: one loop per result dim; input dim `perm[j]` is loop `j`.
LoopNest transposeNest(TransposeOp op) {
  MLIRContext *ctx = op.getContext();
  ArrayRef<int64_t> perm = op.getPerm();
  unsigned rank = perm.size();
  LoopNest nest;
  nest.iterators.assign(rank, utils::IteratorType::parallel);
  nest.combine.assign(rank, std::nullopt);
  SmallVector<AffineExpr> exprs(rank);
  for (auto [j, p] : llvm::enumerate(perm))
    exprs[p] = getAffineDimExpr(j, ctx);
  nest.maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  nest.maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  return nest;
}

LoopNest loopNest(Operation *op) {
  if (auto transpose = dyn_cast<TransposeOp>(op))
    return transposeNest(transpose);
  if (auto matmul = dyn_cast<MatMulOp>(op))
    return matmulNest(matmul);
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return reduceNest(reduce);
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    return normalizingNest(op, softmax.getAxis());
  if (auto norm = dyn_cast<LayerNormOp>(op))
    return normalizingNest(op, norm.getAxis());
  LoopNest nest = elementwiseNest(op);
  nest.combine.assign(nest.iterators.size(), std::nullopt);
  return nest;
}

std::string axesString(ArrayRef<shard::GridAxis> axes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(axes, os);
  os << "]";
  return s;
}

template <typename Op>
struct RLXShardingModel
    : public shard::ShardingInterface::ExternalModel<RLXShardingModel<Op>, Op> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return loopNest(op).iterators;
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    return loopNest(op).maps;
  }

  /// Upstream's default reads the results' shardings first, so a replicated
  /// user makes a split reduction gather its operand whole before reducing.
  /// An operand split along a reduction loop that a collective completes is
  /// kept instead: each rank reduces its slice and one all_reduce sums the
  /// partial results, Megatron-LM's row-split layer.
  FailureOr<shard::ShardingOption>
  getShardingOption(Operation *op, ArrayRef<shard::Sharding> operandShardings,
                    ArrayRef<shard::Sharding> resultShardings) const {
    LoopNest nest = loopNest(op);
    bool splitsReduction = false;
    for (auto [i, sharding] : llvm::enumerate(operandShardings)) {
      if (!sharding)
        continue;
      for (auto [d, axes] : llvm::enumerate(sharding.getSplitAxes())) {
        if (axes.empty() || d >= nest.maps[i].getNumResults())
          continue;
        unsigned loop =
            cast<AffineDimExpr>(nest.maps[i].getResult(d)).getPosition();
        if (nest.iterators[loop] == utils::IteratorType::reduction &&
            nest.combine[loop])
          splitsReduction = true;
      }
    }
    std::vector<shard::Sharding> none(resultShardings.size());
    return shard::detail::defaultGetShardingOption(
        op, operandShardings,
        splitsReduction ? ArrayRef<shard::Sharding>(none) : resultShardings);
  }

  SmallVector<shard::ReductionKind>
  getReductionLoopIteratorKinds(Operation *op) const {
    LoopNest nest = loopNest(op);
    SmallVector<shard::ReductionKind> kinds;
    for (auto [it, combine] : llvm::zip(nest.iterators, nest.combine)) {
      if (it != utils::IteratorType::reduction)
        continue;
      if (!combine) {
        kinds.push_back(shard::ReductionKind::Generic);
        continue;
      }
      switch (*combine) {
      case CollectiveKind::Sum:
      case CollectiveKind::Mean:
        kinds.push_back(shard::ReductionKind::Sum);
        break;
      case CollectiveKind::Max:
        kinds.push_back(shard::ReductionKind::Max);
        break;
      case CollectiveKind::Min:
        kinds.push_back(shard::ReductionKind::Min);
        break;
      }
    }
    return kinds;
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    LoopNest nest = loopNest(op);
    shard::ShardingArray loopAxes =
        shard::getGridAxisAssignmentForLoopIterators(
            operandShardings, resultShardings, nest.iterators, nest.maps);
    loopAxes.resize(nest.iterators.size());

    // A stretched size-1 dim of a broadcast operand (or a kept reduced dim)
    // has no slice to give each rank.
    auto checkSizeOneDims = [&](Value v, AffineMap map,
                                StringRef what) -> LogicalResult {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type)
        return success();
      for (auto [d, expr] : llvm::enumerate(map.getResults())) {
        unsigned loop = cast<AffineDimExpr>(expr).getPosition();
        if (type.getDimSize(d) == 1 && !loopAxes[loop].empty())
          return op->emitError()
                 << "cannot partition: its loop " << loop
                 << " is split over mesh axes " << axesString(loopAxes[loop])
                 << ", but " << what << " has size 1 in dim " << d
                 << " (broadcast or kept); shard that dim of the other "
                    "operands instead, or replicate it";
      }
      return success();
    };
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      if (failed(checkSizeOneDims(v, nest.maps[i],
                                  "operand " + std::to_string(i))))
        return failure();
    for (auto [i, v] : llvm::enumerate(op->getResults()))
      if (failed(checkSizeOneDims(v, nest.maps[op->getNumOperands() + i],
                                  "result " + std::to_string(i))))
        return failure();

    // Split reduction loops leave partial results; each must be one that a
    // collective completes, all of one kind.
    SmallVector<shard::GridAxis> reductionAxes;
    std::optional<CollectiveKind> kind;
    for (auto [loop, it] : llvm::enumerate(nest.iterators)) {
      if (it != utils::IteratorType::reduction || loopAxes[loop].empty())
        continue;
      if (!nest.combine[loop] || (kind && *kind != *nest.combine[loop]))
        return op->emitError()
               << "cannot partition: its loop " << loop << " (a reduction"
               << (nest.combine[loop] ? ""
                                      : " over the "
                                        "whole dim")
               << ") is split over mesh axes " << axesString(loopAxes[loop])
               << "; it needs that dim whole on every rank: replicate it "
                  "before this op";
      kind = nest.combine[loop];
      llvm::append_range(reductionAxes, loopAxes[loop]);
    }

    shard::partitionTriviallyShardableOperation(
        *op, partitionedOperands, operandShardings, resultShardings,
        partitionMap, symbolTable, builder);
    if (reductionAxes.empty())
      return success();

    shard::GridOp grid;
    for (const shard::Sharding &s :
         llvm::concat<const shard::Sharding>(operandShardings, resultShardings))
      if (s && (grid = shard::getGrid(op, s.getGridAttr(), symbolTable)))
        break;
    if (!grid)
      return op->emitError() << "cannot partition: no mesh";
    llvm::sort(reductionAxes);
    SmallVector<int64_t> axes(reductionAxes.begin(), reductionAxes.end());
    auto group = GroupAttr::get(op->getContext(), grid.getShape(), axes);
    for (Value result : op->getResults()) {
      Value partial = partitionMap.lookup(result);
      Value whole =
          AllReduceOp::create(builder, op->getLoc(), *kind, partial, group);
      partitionMap.map(result, whole);
    }
    return success();
  }
};

template <typename... Ops> void attach(MLIRContext *ctx) {
  (Ops::template attachInterface<RLXShardingModel<Ops>>(*ctx), ...);
}

} // namespace

void mlir::rlx::registerShardingInterfaceModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, RLXDialect *) {
    attach<ActivationOp, BinaryOp, CastOp, CompareOp, WhereOp, StopGradientOp,
           MatMulOp, ReduceOp, SoftmaxOp, LayerNormOp, TransposeOp>(ctx);
  });
}
