//===- Sharding.h - rlx ops under the shard dialect -------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TRANSFORMS_SHARDING_H
#define RLX_TRANSFORMS_SHARDING_H

namespace mlir {
class DialectRegistry;
namespace rlx {

/// Attaches upstream `shard::ShardingInterface` to the rlx ops that
/// `sharding-propagation` and `shard-partition` handle (ShardingModels.cpp).
void registerShardingInterfaceModels(DialectRegistry &registry);

} // namespace rlx
} // namespace mlir

#endif // RLX_TRANSFORMS_SHARDING_H
