//===- DeviceAllocator.h - memory behind mgpuMemAlloc -----------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_RUNTIME_CUDA_DEVICEALLOCATOR_H
#define RLX_LIB_RUNTIME_CUDA_DEVICEALLOCATOR_H

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

} // namespace rlxrt::cuda

#endif // RLX_LIB_RUNTIME_CUDA_DEVICEALLOCATOR_H
