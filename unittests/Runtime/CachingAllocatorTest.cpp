//===- CachingAllocatorTest.cpp - reused device memory blocks -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "CachingAllocator.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <map>
#include <set>

using rlxrt::cuda::CachingAllocator;
using rlxrt::cuda::DeviceMemory;

namespace {

/// Hands out fake addresses up to `capacity` bytes and records every fence.
class FakeMemory : public DeviceMemory {
public:
  explicit FakeMemory(size_t capacity = size_t(1) << 40) : capacity(capacity) {}

  void *allocate(size_t bytes) override {
    if (used + bytes > capacity)
      return nullptr;
    used += bytes;
    ++allocations;
    next += bytes;
    sizes[next] = bytes;
    return reinterpret_cast<void *>(next);
  }
  void release(void *block) override {
    used -= sizes.at(reinterpret_cast<uintptr_t>(block));
    ++releases;
  }
  void *recordFence(void *stream) override {
    if (!stream)
      return nullptr;
    void *fence = reinterpret_cast<void *>(++fenceCount);
    pending.insert(fence);
    return fence;
  }
  void waitFence(void *fence) override {
    ++waits;
    dropFence(fence);
  }
  void dropFence(void *fence) override { EXPECT_EQ(pending.erase(fence), 1u); }

  size_t capacity, used = 0;
  uintptr_t next = 0x10000;
  std::map<uintptr_t, size_t> sizes;
  int allocations = 0, releases = 0, waits = 0;
  uintptr_t fenceCount = 0;
  std::set<void *> pending;
};

void *streamA = reinterpret_cast<void *>(0xA);
void *streamB = reinterpret_cast<void *>(0xB);

TEST(CachingAllocator, RoundsSmallSizesTo512BytesAndLargeOnesTo2MiB) {
  EXPECT_EQ(CachingAllocator::roundSize(1), 512u);
  EXPECT_EQ(CachingAllocator::roundSize(512), 512u);
  EXPECT_EQ(CachingAllocator::roundSize(513), 1024u);
  EXPECT_EQ(CachingAllocator::roundSize(1 << 20), size_t(1) << 20);
  EXPECT_EQ(CachingAllocator::roundSize((1 << 20) + 1), size_t(2) << 20);
  EXPECT_EQ(CachingAllocator::roundSize(3 << 20), size_t(4) << 20);
}

TEST(CachingAllocator, ReusesAFreedBlockOfTheSameRoundedSize) {
  FakeMemory memory;
  CachingAllocator allocator;
  void *a = allocator.allocate(1000, 0, streamA, memory);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(allocator.free(a, streamA, memory));
  EXPECT_EQ(allocator.cachedBytes(), 1024u);
  // 1001 bytes round to the same 1024: the block comes back, no new one.
  EXPECT_EQ(allocator.allocate(1001, 0, streamA, memory), a);
  EXPECT_EQ(memory.allocations, 1);
  EXPECT_EQ(allocator.cachedBytes(), 0u);
  EXPECT_EQ(allocator.liveBytes(), 1024u);
}

TEST(CachingAllocator, KeepsSizesAndDevicesApart) {
  FakeMemory memory;
  CachingAllocator allocator;
  void *a = allocator.allocate(1024, 0, streamA, memory);
  allocator.free(a, streamA, memory);
  EXPECT_NE(allocator.allocate(2048, 0, streamA, memory), a);
  EXPECT_NE(allocator.allocate(1024, 1, streamA, memory), a);
  EXPECT_EQ(memory.allocations, 3);
}

TEST(CachingAllocator, WaitsOnlyWhenAnotherStreamReusesTheBlock) {
  FakeMemory memory;
  CachingAllocator allocator;
  void *a = allocator.allocate(4096, 0, streamA, memory);
  allocator.free(a, streamA, memory);
  // Same stream: its order already follows the old work.
  EXPECT_EQ(allocator.allocate(4096, 0, streamA, memory), a);
  EXPECT_EQ(memory.waits, 0);
  allocator.free(a, streamA, memory);
  // Another stream must wait for the work queued on the first.
  EXPECT_EQ(allocator.allocate(4096, 0, streamB, memory), a);
  EXPECT_EQ(memory.waits, 1);
  EXPECT_TRUE(memory.pending.empty());
}

TEST(CachingAllocator, PrefersTheBlockFreedOnTheSameStream) {
  FakeMemory memory;
  CachingAllocator allocator;
  void *a = allocator.allocate(4096, 0, streamA, memory);
  void *b = allocator.allocate(4096, 0, streamB, memory);
  allocator.free(a, streamA, memory);
  allocator.free(b, streamB, memory);
  EXPECT_EQ(allocator.allocate(4096, 0, streamA, memory), a);
  EXPECT_EQ(memory.waits, 0);
}

TEST(CachingAllocator, ReleasesTheCacheWhenTheDeviceIsFull) {
  FakeMemory memory(/*capacity=*/8192);
  CachingAllocator allocator;
  void *a = allocator.allocate(4096, 0, streamA, memory);
  void *b = allocator.allocate(4096, 0, streamA, memory);
  allocator.free(a, streamA, memory);
  allocator.free(b, streamA, memory);
  // 8 KiB is cached; a new size fits only once the cache went back.
  void *c = allocator.allocate(8192, 0, streamA, memory);
  EXPECT_NE(c, nullptr);
  EXPECT_EQ(memory.releases, 2);
  EXPECT_EQ(allocator.cachedBytes(), 0u);
  EXPECT_TRUE(memory.pending.empty());
  // Nothing left to release: the request fails.
  EXPECT_EQ(allocator.allocate(512, 0, streamA, memory), nullptr);
}

TEST(CachingAllocator, RejectsZeroBytesAndForeignPointers) {
  FakeMemory memory;
  CachingAllocator allocator;
  EXPECT_EQ(allocator.allocate(0, 0, streamA, memory), nullptr);
  int local = 0;
  EXPECT_FALSE(allocator.free(&local, streamA, memory));
  void *a = allocator.allocate(64, 0, streamA, memory);
  EXPECT_TRUE(allocator.free(a, streamA, memory));
  EXPECT_FALSE(allocator.free(a, streamA, memory));
}

} // namespace
