//===- CachingAllocator.cpp - reused device memory blocks -----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "CachingAllocator.h"

using namespace rlxrt::cuda;

namespace {
constexpr size_t kSmallGranule = 512;
constexpr size_t kLargeGranule = size_t(2) << 20;
constexpr size_t kSmallLimit = size_t(1) << 20;

size_t roundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
} // namespace

size_t CachingAllocator::roundSize(size_t bytes) {
  return bytes <= kSmallLimit ? roundUp(bytes, kSmallGranule)
                              : roundUp(bytes, kLargeGranule);
}

void *CachingAllocator::allocate(size_t bytes, int device, void *stream,
                                 DeviceMemory &memory) {
  if (bytes == 0)
    return nullptr;
  size_t size = roundSize(bytes);
  std::lock_guard<std::mutex> lock(mutex);
  void *block = nullptr;
  auto it = cached.find({device, size});
  if (it != cached.end() && !it->second.empty()) {
    std::vector<CachedBlock> &blocks = it->second;
    // Prefer a block freed on this stream: its old work is ordered before
    // the new one without a wait.
    auto chosen = blocks.end() - 1;
    for (auto b = blocks.begin(); b != blocks.end(); ++b)
      if (stream && b->freedOn == stream) {
        chosen = b;
        break;
      }
    if (chosen->fence) {
      if (stream && chosen->freedOn == stream)
        memory.dropFence(chosen->fence);
      else
        memory.waitFence(chosen->fence);
    }
    block = chosen->block;
    blocks.erase(chosen);
    cachedTotal -= size;
  } else {
    block = memory.allocate(size);
    if (!block && cachedTotal) {
      releaseCachedLocked(memory);
      block = memory.allocate(size);
    }
    if (!block)
      return nullptr;
  }
  live[block] = {device, size};
  liveTotal += size;
  return block;
}

bool CachingAllocator::free(void *block, void *stream, DeviceMemory &memory) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = live.find(block);
  if (it == live.end())
    return false;
  LiveBlock info = it->second;
  live.erase(it);
  liveTotal -= info.size;
  cached[{info.device, info.size}].push_back(
      {block, stream, memory.recordFence(stream)});
  cachedTotal += info.size;
  return true;
}

void CachingAllocator::releaseCached(DeviceMemory &memory) {
  std::lock_guard<std::mutex> lock(mutex);
  releaseCachedLocked(memory);
}

void CachingAllocator::releaseCachedLocked(DeviceMemory &memory) {
  for (auto &[key, blocks] : cached)
    for (CachedBlock &b : blocks) {
      if (b.fence)
        memory.waitFence(b.fence);
      memory.release(b.block);
    }
  cached.clear();
  cachedTotal = 0;
}

size_t CachingAllocator::cachedBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  return cachedTotal;
}

size_t CachingAllocator::liveBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  return liveTotal;
}
