//===- DialectTest.cpp - building and verifying rlx ops from C++ ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/InitRLX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

class RLXDialectTest : public ::testing::Test {
protected:
  RLXDialectTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadDialect<RLXDialect, func::FuncDialect>();
  }

  MLIRContext context;
};

TEST_F(RLXDialectTest, BuildersInferResultTypes) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  auto f32 = b.getF32Type();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());
  auto xType = RankedTensorType::get({4, 16, 32}, f32);
  auto wType = RankedTensorType::get({32, 8}, f32);
  auto func = func::FuncOp::create(b, loc, "mlp",
                                   b.getFunctionType({xType, wType}, {}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);

  Value y =
      MatMulOp::create(b, loc, body->getArgument(0), body->getArgument(1));
  EXPECT_EQ(y.getType(), RankedTensorType::get({4, 16, 8}, f32));

  auto bias = ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({8}, f32),
                             ArrayRef<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  Value z = BinaryOp::create(b, loc, BinaryKind::Add, y, bias);
  EXPECT_EQ(z.getType(), y.getType());
  Value a = ActivationOp::create(b, loc, ActivationKind::Gelu, z);
  EXPECT_EQ(a.getType(), y.getType());

  func::ReturnOp::create(b, loc, a);
  func.setType(b.getFunctionType({xType, wType}, {a.getType()}));
  EXPECT_TRUE(succeeded(verify(module)));
  module->destroy();
}

TEST_F(RLXDialectTest, VerifierRejectsBadContraction) {
  const char *source = R"mlir(
    func.func @f(%a: tensor<4x8xf32>, %b: tensor<7x3xf32>) -> tensor<4x3xf32> {
      %0 = "rlx.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<7x3xf32>) -> tensor<4x3xf32>
      return %0 : tensor<4x3xf32>
    })mlir";
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, ParserConfig(&context));
  EXPECT_FALSE(module);
  EXPECT_NE(message.find("contraction dims differ"), std::string::npos)
      << message;
}

TEST_F(RLXDialectTest, EnumsRoundTripThroughStrings) {
  for (uint32_t i = 0; i <= getMaxEnumValForActivationKind(); ++i) {
    auto kind = static_cast<ActivationKind>(i);
    EXPECT_EQ(symbolizeActivationKind(stringifyActivationKind(kind)), kind);
  }
  EXPECT_FALSE(symbolizeBinaryKind("modulo").has_value());
  EXPECT_EQ(stringifyMaskKind(MaskKind::SlidingWindow), "sliding_window");
}

} // namespace
