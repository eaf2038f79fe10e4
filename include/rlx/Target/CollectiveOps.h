//===- CollectiveOps.h - the rlx collectives as runtimes see them -*- C++
//-*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// What the targets' lowerings of the collectives (the CPU's calls of MPI's
// glue, the CUDA target's of NCCL's) read off an rlx collective op: its
// runtime code (include/rlx/Runtime/Collectives.h) and attributes.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_COLLECTIVEOPS_H
#define RLX_TARGET_COLLECTIVEOPS_H

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Runtime/Collectives.h"

#include <optional>

namespace mlir::rlx {

/// One collective op: its runtime code, its combination (the ops that
/// combine), `first` its dim (all_gather, reduce_scatter), split_dim
/// (all_to_all) or root (broadcast, reduce_to_root), `second` all_to_all's
/// concat_dim, and its group.
struct CollectiveDescription {
  int64_t code;
  std::optional<CollectiveKind> kind;
  int64_t first = 0, second = 0;
  GroupAttr group;
};

/// The description of `op`, or std::nullopt when it is no collective.
inline std::optional<CollectiveDescription> describeCollective(Operation *op) {
  namespace comm = rlxrt::comm;
  auto at = [](uint64_t value) { return static_cast<int64_t>(value); };
  if (auto o = dyn_cast<AllReduceOp>(op))
    return CollectiveDescription{comm::kAllReduce, o.getKind(), 0, 0,
                                 o.getGroup()};
  if (auto o = dyn_cast<AllGatherOp>(op))
    return CollectiveDescription{comm::kAllGather, std::nullopt, at(o.getDim()),
                                 0, o.getGroup()};
  if (auto o = dyn_cast<ReduceScatterOp>(op))
    return CollectiveDescription{comm::kReduceScatter, o.getKind(),
                                 at(o.getDim()), 0, o.getGroup()};
  if (auto o = dyn_cast<AllToAllOp>(op))
    return CollectiveDescription{comm::kAllToAll, std::nullopt,
                                 at(o.getSplitDim()), at(o.getConcatDim()),
                                 o.getGroup()};
  if (auto o = dyn_cast<BroadcastOp>(op))
    return CollectiveDescription{comm::kBroadcast, std::nullopt,
                                 at(o.getRoot()), 0, o.getGroup()};
  if (auto o = dyn_cast<ReduceToRootOp>(op))
    return CollectiveDescription{comm::kReduceToRoot, o.getKind(),
                                 at(o.getRoot()), 0, o.getGroup()};
  return std::nullopt;
}

} // namespace mlir::rlx

#endif // RLX_TARGET_COLLECTIVEOPS_H
