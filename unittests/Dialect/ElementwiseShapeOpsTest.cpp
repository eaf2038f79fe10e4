//===- ElementwiseShapeOpsTest.cpp - C++ API of elementwise and shape ops -===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Builds the elementwise and shape ops through their generated C++ builders
// (result types come from type inference) and checks that folding through
// the builder keeps stop_gradient and folds identities and constants.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/InitRLX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

class ElementwiseShapeOpsTest : public ::testing::Test {
protected:
  ElementwiseShapeOpsTest() : builder(&context) {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadDialect<RLXDialect, func::FuncDialect>();
    loc = builder.getUnknownLoc();
    module = ModuleOp::create(loc);
  }
  ~ElementwiseShapeOpsTest() override { module->destroy(); }

  /// Starts a function with the given argument types and returns its
  /// arguments; ops are then built into its body.
  Block::BlockArgListType startFunction(TypeRange inputs) {
    builder.setInsertionPointToEnd(module.getBody());
    func = func::FuncOp::create(builder, loc, "f",
                                builder.getFunctionType(inputs, {}));
    Block *body = func.addEntryBlock();
    builder.setInsertionPointToEnd(body);
    return body->getArguments();
  }

  /// Returns `results` from the function and verifies the module.
  bool finish(ValueRange results) {
    func::ReturnOp::create(builder, loc, results);
    func.setType(
        builder.getFunctionType(func.getArgumentTypes(), TypeRange(results)));
    return succeeded(verify(module));
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type elementType) {
    return RankedTensorType::get(shape, elementType);
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc = UnknownLoc::get(&context);
  ModuleOp module;
  func::FuncOp func;
};

TEST_F(ElementwiseShapeOpsTest, ElementwiseBuildersInferTypes) {
  Type f32 = builder.getF32Type();
  Type i1 = builder.getI1Type();
  auto args = startFunction(
      {tensor({4, 1, 8}, f32), tensor({3, 1}, f32), tensor({3, 8}, i1)});
  Value cast = CastOp::create(builder, loc, args[0], builder.getF16Type());
  EXPECT_EQ(cast.getType(), tensor({4, 1, 8}, builder.getF16Type()));
  Value stop = StopGradientOp::create(builder, loc, args[1]);
  EXPECT_EQ(stop.getType(), args[1].getType());
  Value cmp = CompareOp::create(builder, loc, CompareKind::Lt, args[0], stop);
  EXPECT_EQ(cmp.getType(), tensor({4, 3, 8}, i1));
  Value select = WhereOp::create(builder, loc, args[2], args[0], args[1]);
  EXPECT_EQ(select.getType(), tensor({4, 3, 8}, f32));
  EXPECT_TRUE(finish({cast, stop, cmp, select}));
}

TEST_F(ElementwiseShapeOpsTest, ShapeBuildersInferTypes) {
  Type f32 = builder.getF32Type();
  auto args = startFunction({tensor({4, 6}, f32),
                             tensor({ShapedType::kDynamic, 6}, f32),
                             tensor({2, 3}, builder.getI64Type())});
  Value reshape =
      ReshapeOp::create(builder, loc, args[0], ArrayRef<int64_t>{3, -1});
  EXPECT_EQ(reshape.getType(), tensor({3, 8}, f32));
  Value transpose =
      TransposeOp::create(builder, loc, args[1], ArrayRef<int64_t>{1, 0});
  EXPECT_EQ(transpose.getType(), tensor({6, ShapedType::kDynamic}, f32));
  Value narrow = NarrowOp::create(builder, loc, args[0], /*axis=*/1,
                                  /*start=*/2, /*len=*/3);
  EXPECT_EQ(narrow.getType(), tensor({4, 3}, f32));
  Value concat =
      ConcatOp::create(builder, loc, ValueRange{args[0], args[0]}, 1);
  EXPECT_EQ(concat.getType(), tensor({4, 12}, f32));
  Value concatDynamic =
      ConcatOp::create(builder, loc, ValueRange{args[0], args[1]}, 0);
  EXPECT_EQ(concatDynamic.getType(), tensor({ShapedType::kDynamic, 6}, f32));
  Value expand =
      ExpandOp::create(builder, loc, args[0], ArrayRef<int64_t>{2, -1, 6});
  EXPECT_EQ(expand.getType(), tensor({2, 4, 6}, f32));
  Value gather = GatherOp::create(builder, loc, args[0], args[2], 1);
  EXPECT_EQ(gather.getType(), tensor({4, 2, 3}, f32));
  EXPECT_TRUE(finish(
      {reshape, transpose, narrow, concat, concatDynamic, expand, gather}));
}

TEST_F(ElementwiseShapeOpsTest, CreateOrFold) {
  Type i32 = builder.getI32Type();
  auto args = startFunction({tensor({2, 3}, i32)});
  Value x = args[0];
  // Identities fold to the input.
  EXPECT_EQ(builder.createOrFold<TransposeOp>(loc, x, ArrayRef<int64_t>{0, 1}),
            x);
  EXPECT_EQ(builder.createOrFold<CastOp>(loc, x, i32), x);
  EXPECT_EQ(builder.createOrFold<NarrowOp>(loc, x, 0, 0, 2), x);
  // stop_gradient is kept.
  Value stop = builder.createOrFold<StopGradientOp>(loc, x);
  EXPECT_TRUE(isa_and_nonnull<StopGradientOp>(stop.getDefiningOp()));
  // Constants fold through the dialect's constant materializer.
  Value c = ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(tensor({2, 3}, i32),
                             ArrayRef<int32_t>{1, 2, 3, 4, 5, 6}));
  Value t = builder.createOrFold<TransposeOp>(loc, c, ArrayRef<int64_t>{1, 0});
  auto constant = t.getDefiningOp<ConstantOp>();
  ASSERT_TRUE(constant);
  auto values = cast<DenseElementsAttr>(constant.getValue());
  EXPECT_EQ(llvm::to_vector(values.getValues<int32_t>()),
            (SmallVector<int32_t>{1, 4, 2, 5, 3, 6}));
  Value sum = builder.createOrFold<BinaryOp>(loc, BinaryKind::Mul, x, c);
  EXPECT_TRUE(isa_and_nonnull<BinaryOp>(sum.getDefiningOp()));
  EXPECT_TRUE(finish({stop, t, sum}));
}

} // namespace
