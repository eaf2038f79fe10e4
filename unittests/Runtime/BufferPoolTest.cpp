//===- BufferPoolTest.cpp - reused temporary buffers ----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"

#include <cstdint>
#include <cstring>

#include <string>
#include <vector>

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size);
extern "C" void _mlir_memref_to_llvm_free(void *block);
extern "C" int rlx_rt_run_guarded(void (*run)(void **), void **descriptors,
                                  char *message, size_t size);
extern "C" int32_t rlx_rt_run_failed(void);
extern "C" int64_t rlx_rt_buffer_live_bytes(void);
extern "C" void rlx_rt_debug_fail_allocation(int64_t after);

namespace {

/// Stands for compiled code: allocates the sizes in descriptors[0] (a
/// zero-terminated list) into the vector at descriptors[1], returning early
/// as the compiled code does when one fails.
void allocateAll(void **descriptors) {
  auto *sizes = static_cast<const size_t *>(descriptors[0]);
  auto *blocks = static_cast<std::vector<void *> *>(descriptors[1]);
  for (; *sizes; ++sizes) {
    void *block = _mlir_memref_to_llvm_alloc(*sizes);
    if (!block)
      return;
    blocks->push_back(block);
  }
}

/// Runs allocateAll through the guard: its status, message and blocks.
int guardedAllocations(const size_t *sizes, std::string &message,
                       std::vector<void *> &blocks) {
  blocks.clear();
  void *descriptors[2] = {const_cast<size_t *>(sizes), &blocks};
  char text[1024] = {0};
  int status = rlx_rt_run_guarded(allocateAll, descriptors, text, sizeof(text));
  message = text;
  return status;
}

TEST(BufferPool, AllocationFailureEndsTheRunWithItsSize) {
  // The compiled code checks for null and returns: the run fails with the
  // size as an out-of-memory status (2), and the process goes on.
  int64_t before = rlx_rt_buffer_live_bytes();
  const size_t sizes[] = {4096, SIZE_MAX - 8, 64, 0};
  std::string message;
  std::vector<void *> blocks;
  EXPECT_EQ(guardedAllocations(sizes, message, blocks), 2);
  EXPECT_EQ(blocks.size(), 1u);
  EXPECT_NE(message.find("the compiled graph cannot allocate a temporary "
                         "buffer of 18446744073709551607 bytes"),
            std::string::npos)
      << message;
  // The block the run got before the failure is given back.
  EXPECT_EQ(rlx_rt_buffer_live_bytes(), before);
  // Outside a run, an allocation that fails is just null.
  EXPECT_EQ(_mlir_memref_to_llvm_alloc(SIZE_MAX - 8), nullptr);
  EXPECT_EQ(rlx_rt_run_failed(), 0);
}

TEST(BufferPool, TheTestHookFailsOneAllocation) {
  int64_t before = rlx_rt_buffer_live_bytes();
  const size_t sizes[] = {100, 200, 300, 0};
  for (size_t after = 0; after < 3; ++after) {
    rlx_rt_debug_fail_allocation(after);
    std::string message;
    std::vector<void *> blocks;
    EXPECT_EQ(guardedAllocations(sizes, message, blocks), 2);
    EXPECT_EQ(blocks.size(), after);
    EXPECT_NE(message.find("(injected by the test hook)"), std::string::npos)
        << message;
    EXPECT_EQ(rlx_rt_buffer_live_bytes(), before);
    // Once: the next run gets all its blocks, which a successful run keeps
    // (as a graph's returned outputs).
    EXPECT_EQ(guardedAllocations(sizes, message, blocks), 0);
    EXPECT_EQ(blocks.size(), 3u);
    EXPECT_EQ(rlx_rt_buffer_live_bytes(), before + 600);
    for (void *block : blocks)
      _mlir_memref_to_llvm_free(block);
  }
  rlx_rt_debug_fail_allocation(-1);
}

TEST(BufferPool, ReusesAFreedBlockOfTheSameSize) {
  void *a = _mlir_memref_to_llvm_alloc(1 << 20);
  ASSERT_NE(a, nullptr);
  std::memset(a, 1, 1 << 20);
  _mlir_memref_to_llvm_free(a);
  void *b = _mlir_memref_to_llvm_alloc(1 << 20);
  EXPECT_EQ(a, b);
  _mlir_memref_to_llvm_free(b);
}

TEST(BufferPool, LiveBlocksAreDistinctAndAligned) {
  void *a = _mlir_memref_to_llvm_alloc(4096);
  void *b = _mlir_memref_to_llvm_alloc(4096);
  void *c = _mlir_memref_to_llvm_alloc(100);
  ASSERT_TRUE(a && b && c);
  EXPECT_NE(a, b);
  for (void *p : {a, b, c})
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u);
  // Writing a whole block must not disturb the others.
  std::memset(a, 0xAA, 4096);
  std::memset(b, 0xBB, 4096);
  std::memset(c, 0xCC, 100);
  EXPECT_EQ(static_cast<unsigned char *>(a)[4095], 0xAA);
  EXPECT_EQ(static_cast<unsigned char *>(b)[0], 0xBB);
  _mlir_memref_to_llvm_free(a);
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
}

TEST(BufferPool, DoesNotHandOutABlockOfAnotherSize) {
  void *small = _mlir_memref_to_llvm_alloc(64);
  _mlir_memref_to_llvm_free(small);
  void *large = _mlir_memref_to_llvm_alloc(1 << 16);
  EXPECT_NE(small, large);
  std::memset(large, 0, 1 << 16);
  _mlir_memref_to_llvm_free(large);
}

TEST(BufferPool, FreeOfNullIsANoOp) { _mlir_memref_to_llvm_free(nullptr); }

} // namespace
