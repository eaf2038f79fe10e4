//===- DeviceAllocator.h - memory behind mgpuMemAlloc -----------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_RUNTIME_CUDA_DEVICEALLOCATOR_H
#define RLX_LIB_RUNTIME_CUDA_DEVICEALLOCATOR_H

#include "CachingAllocator.h"
#include "Driver.h"

#include <cstdint>

namespace rlxrt::cuda {

/// Device memory for `stream`, from the caching allocator. Null for 0 bytes;
/// aborts when the device is out of memory.
void *allocateDevice(const Session &cu, uint64_t bytes, CUstream stream);

/// Memory both host and device address (gpu.alloc host_shared): pinned,
/// device-mapped host memory, never managed memory, whose page migrations
/// would make kernel times unpredictable.
void *allocateHostShared(const Session &cu, uint64_t bytes);

/// Frees what either allocation returned, once the work queued on `stream`
/// no longer uses it.
void freeMemory(const Session &cu, void *pointer, CUstream stream);

/// The device memory of one captured CUDA graph (GraphRunner.cpp). A
/// captured graph's kernels keep the addresses its allocations returned while
/// it was captured, so those blocks stay the graph's for as long as it may be
/// replayed and never go back to the shared cache, where another buffer could
/// take them. Within the capture, a block freed is reused by a later
/// allocation of its size without a fence: the capture orders both on the one
/// graph stream, and so does every replay.
class GraphMemory {
public:
  GraphMemory() = default;
  GraphMemory(const GraphMemory &) = delete;
  GraphMemory &operator=(const GraphMemory &) = delete;
  /// Returns the blocks to the driver. The graph must have finished its last
  /// replay (the owner synchronizes its stream first).
  ~GraphMemory();

  /// Until `end`, this thread's allocations and frees on `stream` come from
  /// and go back to this memory.
  void begin(CUstream stream);
  void end();

  /// Bytes the graph holds.
  size_t bytes() const { return blocks.cachedBytes() + blocks.liveBytes(); }

private:
  friend void *allocateDevice(const Session &, uint64_t, CUstream);
  friend void freeMemory(const Session &, void *, CUstream);
  CachingAllocator blocks;
  CUstream stream = nullptr;
};

} // namespace rlxrt::cuda

#endif // RLX_LIB_RUNTIME_CUDA_DEVICEALLOCATOR_H
