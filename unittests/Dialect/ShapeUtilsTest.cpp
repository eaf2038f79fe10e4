//===- ShapeUtilsTest.cpp - broadcasting and axis rules -------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {
constexpr int64_t kDyn = ShapedType::kDynamic;

TEST(BroadcastShapes, RightAlignedWithMissingLeadingDims) {
  auto shape = broadcastShapes({4, 128, 768}, {768});
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(*shape, (SmallVector<int64_t>{4, 128, 768}));
}

TEST(BroadcastShapes, MiddleAxisOfSizeOneStretches) {
  auto shape = broadcastShapes({4, 1, 8}, {3, 1});
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(*shape, (SmallVector<int64_t>{4, 3, 8}));
}

TEST(BroadcastShapes, MismatchedStaticDimsAreRejected) {
  EXPECT_FALSE(broadcastShapes({4, 3}, {4, 5}).has_value());
  EXPECT_FALSE(broadcastShapes({2}, {3}).has_value());
}

TEST(BroadcastShapes, DynamicDims) {
  // ? with N > 1 can only be N (or 1) at run time: the result is N.
  EXPECT_EQ(*broadcastShapes({kDyn, 8}, {5, 8}), (SmallVector<int64_t>{5, 8}));
  // ? with 1 stays unknown, and so does ? with ?.
  EXPECT_EQ(*broadcastShapes({kDyn}, {1}), (SmallVector<int64_t>{kDyn}));
  EXPECT_EQ(*broadcastShapes({kDyn}, {kDyn}), (SmallVector<int64_t>{kDyn}));
}

TEST(BroadcastShapes, ScalarTensors) {
  EXPECT_EQ(*broadcastShapes({}, {}), (SmallVector<int64_t>{}));
  EXPECT_EQ(*broadcastShapes({}, {2, 3}), (SmallVector<int64_t>{2, 3}));
}

TEST(NormalizeAxis, NegativeCountsFromTheEnd) {
  EXPECT_EQ(normalizeAxis(-1, 3), 2);
  EXPECT_EQ(normalizeAxis(-3, 3), 0);
  EXPECT_EQ(normalizeAxis(2, 3), 2);
  EXPECT_FALSE(normalizeAxis(3, 3).has_value());
  EXPECT_FALSE(normalizeAxis(-4, 3).has_value());
}

TEST(FormatShape, ShowsDynamicDims) {
  EXPECT_EQ(formatShape({4, kDyn, 768}), "[4, ?, 768]");
  EXPECT_EQ(formatShape({}), "[]");
}
} // namespace
