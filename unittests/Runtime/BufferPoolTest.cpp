//===- BufferPoolTest.cpp - reused temporary buffers ----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"

#include <cstdint>
#include <cstring>

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size);
extern "C" void _mlir_memref_to_llvm_free(void *block);

namespace {

TEST(BufferPool, AllocationFailureEndsTheProcessWithItsSize) {
  // Compiled code has no error path for a null buffer: the pool stops the
  // process with a message instead of returning one.
  EXPECT_EXIT(_mlir_memref_to_llvm_alloc(SIZE_MAX - 8),
              ::testing::ExitedWithCode(1),
              "the compiled graph cannot allocate a temporary buffer of "
              "18446744073709551607 bytes");
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
