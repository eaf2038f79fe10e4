//===- GraphBuilderTest.cpp - building rlx graphs from C++ ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/IR/GraphBuilder.h"
#include "rlx/InitRLX.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

class GraphBuilderTest : public ::testing::Test {
protected:
  GraphBuilderTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
  }

  /// Prints `op` in the custom form.
  static std::string print(Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  }

  /// Collects diagnostics instead of printing them.
  struct CapturedDiagnostics {
    CapturedDiagnostics(MLIRContext &context)
        : handler(&context, [this](Diagnostic &diag) {
            messages += diag.str() + "\n";
            return success();
          }) {}
    std::string messages;
    ScopedDiagnosticHandler handler;
  };

  MLIRContext context;
};

TEST_F(GraphBuilderTest, Mlp) {
  GraphBuilder g(&context, "mlp");
  Value x = g.input("x", {8, 64}, g.f32());
  Value w1 = g.param("w1", {64, 256}, g.f32());
  Value b1 = g.param("b1", {256}, g.f32());
  Value w2 = g.param("w2", {256, 10}, g.f32());
  Value b2 = g.param("b2", {10}, g.f32());
  Value h = g.linear(x, w1, b1, ActivationKind::Gelu);
  Value y = g.linear(h, w2, b2);
  FailureOr<func::FuncOp> f = g.finish({y});
  ASSERT_TRUE(succeeded(f));
  EXPECT_FALSE(g.hasErrors());

  EXPECT_EQ(f->getFunctionType().getNumInputs(), 5u);
  EXPECT_EQ(f->getFunctionType().getResult(0),
            RankedTensorType::get({8, 10}, g.f32()));
  EXPECT_EQ(f->getArgAttrOfType<StringAttr>(0, "rlx.input").getValue(), "x");
  EXPECT_EQ(f->getArgAttrOfType<StringAttr>(4, "rlx.param").getValue(), "b2");

  std::string text = print(*f);
  EXPECT_NE(text.find("rlx.matmul %arg0, %arg1 : tensor<8x64xf32>, "
                      "tensor<64x256xf32>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rlx.activation gelu"), std::string::npos) << text;
  EXPECT_NE(text.find("return %4 : tensor<8x10xf32>"), std::string::npos)
      << text;
}

TEST_F(GraphBuilderTest, ConstantsAndBroadcasting) {
  GraphBuilder g(&context, "affine");
  Value x = g.input("x", {2, 1, 3}, g.f32());
  Value scale = g.constant({4, 1}, {1, 2, 3, 4});
  Value shift = g.splat({3}, g.f32(), 0.5);
  Value y = g.add(g.mul(x, scale), shift);
  ASSERT_TRUE(y);
  EXPECT_EQ(y.getType(), RankedTensorType::get({2, 4, 3}, g.f32()));
  EXPECT_TRUE(succeeded(g.finish({y})));
}

TEST_F(GraphBuilderTest, ShapeErrorsAreDiagnosticsNotCrashes) {
  CapturedDiagnostics diags(context);
  GraphBuilder g(&context, "bad");
  Value x = g.input("x", {4, 8}, g.f32());
  Value w = g.param("w", {7, 3}, g.f32());
  g.setName("proj");
  Value y = g.matmul(x, w);
  EXPECT_FALSE(y);
  EXPECT_TRUE(g.hasErrors());
  // Later ops on the failed value do not cascade into more errors or crash.
  Value z = g.relu(y);
  EXPECT_FALSE(z);
  EXPECT_TRUE(failed(g.finish({z})));
  EXPECT_NE(diags.messages.find("contraction dims differ: lhs [4, 8] has K = "
                                "8 but rhs [7, 3] has K = 7"),
            std::string::npos)
      << diags.messages;
  EXPECT_EQ(diags.messages.find("null value"), std::string::npos)
      << diags.messages;
}

TEST_F(GraphBuilderTest, DuplicateLeafNamesAreRejected) {
  CapturedDiagnostics diags(context);
  GraphBuilder g(&context, "dup");
  EXPECT_TRUE(g.input("x", {2}, g.f32()));
  EXPECT_FALSE(g.param("x", {2}, g.f32()));
  EXPECT_TRUE(g.hasErrors());
  EXPECT_NE(diags.messages.find("share the graph leaf name \"x\""),
            std::string::npos)
      << diags.messages;
}

TEST_F(GraphBuilderTest, ConstantValueCountIsChecked) {
  CapturedDiagnostics diags(context);
  GraphBuilder g(&context, "c");
  EXPECT_FALSE(g.constant({2, 2}, {1, 2, 3}));
  EXPECT_NE(
      diags.messages.find("constant of shape [2, 2] needs 4 values, got 3"),
      std::string::npos)
      << diags.messages;
}

TEST_F(GraphBuilderTest, DtypeRulesAreDiagnosed) {
  CapturedDiagnostics diags(context);
  GraphBuilder g(&context, "ints");
  Value i = g.input("i", {4}, g.i32());
  EXPECT_FALSE(g.gelu(i));
  EXPECT_NE(diags.messages.find("activation 'gelu' requires a floating-point "
                                "element type"),
            std::string::npos)
      << diags.messages;
}

} // namespace
