//===- MemRefCopyTest.cpp - the runtime's strided memref copy -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"

#include <cstdint>
#include <vector>

namespace {
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};
} // namespace

extern "C" void memrefCopy(int64_t elemSize, UnrankedMemRef *src,
                           UnrankedMemRef *dst);

namespace {

/// A rank-2 descriptor: allocated, aligned, offset, sizes, strides.
std::vector<int64_t> descriptor(float *data, int64_t offset, int64_t rows,
                                int64_t cols, int64_t rowStride,
                                int64_t colStride) {
  auto ptr = reinterpret_cast<int64_t>(data);
  return {ptr, ptr, offset, rows, cols, rowStride, colStride};
}

TEST(MemRefCopy, StridedSourceIntoContiguousDestination) {
  // Source: the 3x2 window at (1, 2) of a 4x5 row-major matrix.
  std::vector<float> big(20);
  for (int i = 0; i < 20; ++i)
    big[i] = static_cast<float>(i);
  std::vector<float> out(6, -1.0f);
  std::vector<int64_t> srcDesc = descriptor(big.data(), 1 * 5 + 2, 3, 2, 5, 1);
  std::vector<int64_t> dstDesc = descriptor(out.data(), 0, 3, 2, 2, 1);
  UnrankedMemRef src{2, srcDesc.data()}, dst{2, dstDesc.data()};
  memrefCopy(sizeof(float), &src, &dst);
  EXPECT_EQ(out, (std::vector<float>{7, 8, 12, 13, 17, 18}));
}

TEST(MemRefCopy, TransposedInnerStride) {
  // Source: a 2x3 matrix read column-major (inner stride 2).
  std::vector<float> data = {0, 1, 2, 3, 4, 5};
  std::vector<float> out(6, -1.0f);
  std::vector<int64_t> srcDesc = descriptor(data.data(), 0, 2, 3, 1, 2);
  std::vector<int64_t> dstDesc = descriptor(out.data(), 0, 2, 3, 3, 1);
  UnrankedMemRef src{2, srcDesc.data()}, dst{2, dstDesc.data()};
  memrefCopy(sizeof(float), &src, &dst);
  EXPECT_EQ(out, (std::vector<float>{0, 2, 4, 1, 3, 5}));
}

TEST(MemRefCopy, EmptyAndRankZero) {
  float a = 3.5f, b = 0.0f;
  std::vector<int64_t> srcDesc = {reinterpret_cast<int64_t>(&a),
                                  reinterpret_cast<int64_t>(&a), 0};
  std::vector<int64_t> dstDesc = {reinterpret_cast<int64_t>(&b),
                                  reinterpret_cast<int64_t>(&b), 0};
  UnrankedMemRef src{0, srcDesc.data()}, dst{0, dstDesc.data()};
  memrefCopy(sizeof(float), &src, &dst);
  EXPECT_EQ(b, 3.5f);
  // A zero-sized copy touches nothing.
  std::vector<float> out(2, -1.0f);
  std::vector<int64_t> emptySrc = descriptor(&a, 0, 0, 2, 2, 1);
  std::vector<int64_t> emptyDst = descriptor(out.data(), 0, 0, 2, 2, 1);
  UnrankedMemRef s{2, emptySrc.data()}, d{2, emptyDst.data()};
  memrefCopy(sizeof(float), &s, &d);
  EXPECT_EQ(out, (std::vector<float>{-1, -1}));
}

} // namespace
