//===- Collectives.h - the runtimes' collective entry points ----*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// `rlx-cpu-lower-collectives` turns each collective op into a call of
// rlx_rt_collective with a table describing it (a constant global); the
// runtime (lib/Runtime/Comm/Mpi.cpp) reads the table with these slots. The
// CUDA target passes the same description as call arguments to NCCL's glue
// (lib/Runtime/Comm/Nccl.cpp). One header, so the compilers and the
// runtimes agree on the layout.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_COLLECTIVES_H
#define RLX_RUNTIME_COLLECTIVES_H

#include <cstdint>

namespace rlxrt::comm {

/// The op a table describes (slot kOp).
enum CollectiveOpCode : int64_t {
  kAllReduce = 0,
  kAllGather = 1,
  kReduceScatter = 2,
  kAllToAll = 3,
  kBroadcast = 4,
  kReduceToRoot = 5,
};

/// The combination (slot kKind): rlx::CollectiveKind's values.
enum CollectiveReduction : int64_t {
  kSum = 0,
  kMean = 1,
  kMax = 2,
  kMin = 3,
};

/// Table slots. After kDims come `rank` input dims, then the mesh rank,
/// the mesh sizes, the number of spanned axes and the axes.
enum CollectiveSlot : int64_t {
  kOp = 0,
  /// CollectiveReduction, or -1 for the ops that do not combine.
  kKind = 1,
  /// RlxDType of the element type (include/rlx-c/RLX.h).
  kDType = 2,
  /// Bytes per element.
  kElementBytes = 3,
  /// dim (all_gather, reduce_scatter), split_dim (all_to_all) or root.
  kFirstAttr = 4,
  /// concat_dim (all_to_all), else 0.
  kSecondAttr = 5,
  /// Index of the op in its graph, for diagnostics.
  kOpIndex = 6,
  kRank = 7,
  kDims = 8,
};

/// The CUDA target passes a collective's description as i32 arguments after
/// its two buffers (rlx_cuda_collective_r<rank>_<type>, lib/Runtime/Comm/Nccl.cpp),
/// in this order; the shapes come with the buffers. The mesh sizes take
/// kMaxCudaMeshRank slots (unused ones 0) and the spanned axes are a bit
/// mask (bit a for axis a).
constexpr int32_t kMaxCudaMeshRank = 4;
enum CudaCollectiveFlag : int32_t {
  kCudaOp = 0,
  kCudaKind = 1,
  kCudaDType = 2,
  kCudaFirst = 3,
  kCudaSecond = 4,
  kCudaOpIndex = 5,
  kCudaMeshRank = 6,
  kCudaMesh = 7,
  kCudaAxesMask = kCudaMesh + kMaxCudaMeshRank,
  kCudaFlagCount,
};

} // namespace rlxrt::comm

extern "C" {
/// Runs the collective `table` describes on the buffers `input` and
/// `output` (dense, row-major, of the op's operand and result types).
void rlx_rt_collective(int64_t table, int64_t input, int64_t output);
/// This process's rank and the number of processes of the run (0 and 1
/// when not started by an MPI launcher); initialises MPI when it was.
void rlx_rt_comm_world(int64_t *rank, int64_t *size);
}

#endif // RLX_RUNTIME_COLLECTIVES_H
