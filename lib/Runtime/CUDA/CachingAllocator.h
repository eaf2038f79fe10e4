//===- CachingAllocator.h - reused device memory blocks ---------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Every run of a compiled graph allocates the same buffer sizes, and
// cuMemAlloc/cuMemFree cost tens of microseconds each (cuMemFree also waits
// for the whole device). Freed blocks are therefore kept, keyed by device and
// rounded size, and handed out again.
//
// A block freed on a stream may still be read or written by work queued
// there. It is handed out again without waiting only to the same stream,
// whose order already puts the new work after the old; any other user first
// waits for the fence recorded when the block was freed.
//
// The allocator knows nothing of CUDA: the device side is a DeviceMemory,
// which the unit tests replace with a fake.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_RUNTIME_CUDA_CACHINGALLOCATOR_H
#define RLX_LIB_RUNTIME_CUDA_CACHINGALLOCATOR_H

#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rlxrt::cuda {

/// The device operations the allocator is built on. Streams and fences are
/// opaque handles (CUstream and CUevent in the runtime).
class DeviceMemory {
public:
  virtual ~DeviceMemory() = default;
  /// Returns a new block of `bytes`, or null when the device is out of memory.
  virtual void *allocate(size_t bytes) = 0;
  virtual void release(void *block) = 0;
  /// Returns a fence that completes once the work queued so far on `stream`
  /// has finished, or null when that work is already known to be done.
  virtual void *recordFence(void *stream) = 0;
  /// Waits for `fence`, then destroys it.
  virtual void waitFence(void *fence) = 0;
  /// Destroys `fence` without waiting for it.
  virtual void dropFence(void *fence) = 0;
};

class CachingAllocator {
public:
  /// The size a request is served with: a multiple of 512 bytes up to 1 MiB,
  /// of 2 MiB (the driver's large-page granularity) above.
  static size_t roundSize(size_t bytes);

  /// Returns a block of at least `bytes` for use on `stream` of `device`, or
  /// null for 0 bytes or when the device is out of memory even after the
  /// cached blocks went back to it.
  void *allocate(size_t bytes, int device, void *stream, DeviceMemory &memory);

  /// Keeps `block` for reuse once the work queued on `stream` is done.
  /// Returns false when `block` is not a live block of this allocator.
  bool free(void *block, void *stream, DeviceMemory &memory);

  /// Waits for and releases every cached block.
  void releaseCached(DeviceMemory &memory);

  size_t cachedBytes() const;
  size_t liveBytes() const;

private:
  struct CachedBlock {
    void *block;
    void *freedOn; // The stream the block was freed on.
    void *fence;   // Completes when that stream's work on it is done.
  };
  struct LiveBlock {
    int device;
    size_t size;
  };
  using Key = std::pair<int, size_t>; // (device, rounded size)

  void releaseCachedLocked(DeviceMemory &memory);

  mutable std::mutex mutex;
  std::map<Key, std::vector<CachedBlock>> cached;
  std::unordered_map<void *, LiveBlock> live;
  size_t cachedTotal = 0;
  size_t liveTotal = 0;
};

} // namespace rlxrt::cuda

#endif // RLX_LIB_RUNTIME_CUDA_CACHINGALLOCATOR_H
