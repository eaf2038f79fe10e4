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

/// Counts the ops named `name` in `op`.
static int countOps(Operation *op, StringRef name) {
  int count = 0;
  op->walk([&](Operation *nested) {
    if (nested->getName().getStringRef() == name)
      ++count;
  });
  return count;
}

/// BERT-base layer weights as graph parameters.
static GraphBuilder::TransformerLayerWeights
bertWeights(GraphBuilder &g, int64_t embed, int64_t ffn, bool withBias) {
  GraphBuilder::TransformerLayerWeights w;
  auto p = [&](StringRef name, ArrayRef<int64_t> shape) {
    return g.param(name, shape, g.f32());
  };
  w.qkvW = p("qkv_w", {embed, 3 * embed});
  w.outW = p("out_w", {embed, embed});
  w.ln1Gamma = p("ln1_g", {embed});
  w.ln1Beta = p("ln1_b", {embed});
  w.fc1W = p("fc1_w", {embed, ffn});
  w.fc2W = p("fc2_w", {ffn, embed});
  w.ln2Gamma = p("ln2_g", {embed});
  w.ln2Beta = p("ln2_b", {embed});
  if (withBias) {
    w.qkvB = p("qkv_b", {3 * embed});
    w.outB = p("out_b", {embed});
    w.fc1B = p("fc1_b", {ffn});
    w.fc2B = p("fc2_b", {embed});
  }
  return w;
}

TEST_F(GraphBuilderTest, BertLayerFromPrimitives) {
  GraphBuilder g(&context, "bert_layer");
  Value hidden = g.input("hidden", {1, 128, 768}, g.f32());
  Value mask = g.input("mask", {1, 128}, g.f32());
  GraphBuilder::TransformerLayerConfig config; // BERT-base defaults.
  Value out =
      g.transformerLayer(hidden, bertWeights(g, 768, 3072, true), config, mask);
  ASSERT_TRUE(out);
  EXPECT_EQ(out.getType(), RankedTensorType::get({1, 128, 768}, g.f32()));
  FailureOr<func::FuncOp> f = g.finish({out});
  ASSERT_TRUE(succeeded(f));
  Operation *op = *f;
  EXPECT_EQ(countOps(op, "rlx.matmul"), 4);
  EXPECT_EQ(countOps(op, "rlx.narrow"), 3);
  EXPECT_EQ(countOps(op, "rlx.attention"), 1);
  EXPECT_EQ(countOps(op, "rlx.layer_norm"), 2);
  EXPECT_EQ(countOps(op, "rlx.activation"), 1);
  // 4 bias adds + 2 residual adds.
  EXPECT_EQ(countOps(op, "rlx.binary"), 6);
  std::string text = print(op);
  EXPECT_NE(text.find("mask_kind = #rlx.mask<custom>"), std::string::npos)
      << text;
  EXPECT_NE(text.find("tensor<1x12x128x64xf32>"), std::string::npos) << text;
}

TEST_F(GraphBuilderTest, FusedBertLayer) {
  for (bool withBias : {true, false}) {
    GraphBuilder g(&context, "bert_layer_fused");
    Value hidden = g.input("hidden", {2, 16, 64}, g.f32());
    GraphBuilder::TransformerLayerConfig config;
    config.numHeads = 4;
    config.headDim = 16;
    config.intermediateSize = 256;
    GraphBuilder::TransformerLayerWeights w = bertWeights(g, 64, 256, withBias);
    if (!withBias)
      w.ln1Beta = w.ln2Beta = Value();
    Value out = g.fusedTransformerLayer(hidden, w, config);
    ASSERT_TRUE(out) << "withBias = " << withBias;
    EXPECT_EQ(out.getType(), RankedTensorType::get({2, 16, 64}, g.f32()));
    FailureOr<func::FuncOp> f = g.finish({out});
    ASSERT_TRUE(succeeded(f));
    EXPECT_EQ(countOps(*f, "rlx.fused_transformer_layer"), 1);
  }
}

TEST_F(GraphBuilderTest, FusedOps) {
  GraphBuilder g(&context, "fused");
  Value x = g.input("x", {8, 32}, g.f32());
  Value w = g.param("w", {32, 64}, g.f32());
  Value b = g.param("b", {64}, g.f32());
  Value y = g.fusedMatMulBiasAct(x, w, b, ActivationKind::Gelu);
  EXPECT_EQ(y.getType(), RankedTensorType::get({8, 64}, g.f32()));
  Value s = g.fusedSwiGLU(y);
  EXPECT_EQ(s.getType(), RankedTensorType::get({8, 32}, g.f32()));
  Value gamma = g.param("gamma", {32}, g.f32());
  Value beta = g.param("beta", {32}, g.f32());
  Value ln = g.fusedResidualLayerNorm(s, x, Value(), gamma, beta);
  EXPECT_EQ(ln.getType(), s.getType());
  Value a = g.param("lora_a", {32, 4}, g.f32());
  Value bb = g.param("lora_b", {4, 16}, g.f32());
  Value w2 = g.param("w2", {32, 16}, g.f32());
  Value lora = g.loraMatMul(ln, w2, a, bb, 0.5f);
  EXPECT_EQ(lora.getType(), RankedTensorType::get({8, 16}, g.f32()));
  EXPECT_TRUE(succeeded(g.finish({lora})));
}

TEST_F(GraphBuilderTest, ConvBlock) {
  GraphBuilder g(&context, "conv_block");
  Value x = g.input("image", {2, 3, 32, 32}, g.f32());
  Value w = g.param("conv_w", {16, 3, 3, 3}, g.f32());
  Value bias = g.param("conv_b", {1, 16, 1, 1}, g.f32());
  Value gamma = g.param("gn_g", {16}, g.f32());
  Value beta = g.param("gn_b", {16}, g.f32());
  Value y = g.conv2d(x, w, /*stride=*/{1, 1}, /*padding=*/{1, 1});
  EXPECT_EQ(y.getType(), RankedTensorType::get({2, 16, 32, 32}, g.f32()));
  y = g.relu(g.groupNorm(g.add(y, bias), gamma, beta, /*numGroups=*/4));
  y = g.pool(ReduceKind::Max, y, {2, 2}, {2, 2});
  EXPECT_EQ(y.getType(), RankedTensorType::get({2, 16, 16, 16}, g.f32()));
  Value pooled = g.mean(y, {2, 3});
  EXPECT_EQ(pooled.getType(), RankedTensorType::get({2, 16}, g.f32()));
  Value logits = g.linear(pooled, g.param("fc_w", {16, 10}, g.f32()));
  Value probs = g.softmax(logits, -1);
  auto [values, indices] = g.topK(probs, 3);
  ASSERT_TRUE(values && indices);
  EXPECT_EQ(indices.getType(), RankedTensorType::get({2, 3}, g.i64()));
  FailureOr<func::FuncOp> f = g.finish({probs, values, indices});
  ASSERT_TRUE(succeeded(f));
  EXPECT_EQ(countOps(*f, "rlx.conv"), 1);
  EXPECT_EQ(countOps(*f, "rlx.pool"), 1);
}

TEST_F(GraphBuilderTest, AttentionOptionsAndErrors) {
  CapturedDiagnostics diags(context);
  GraphBuilder g(&context, "attn");
  Value q = g.input("q", {1, 2, 8, 16}, g.f32());
  GraphBuilder::AttentionOptions options;
  options.maskKind = MaskKind::SlidingWindow;
  options.window = 3;
  options.logitSoftcap = 30.0f;
  Value out = g.attention(q, q, q, 2, 16, options);
  ASSERT_TRUE(out);
  EXPECT_EQ(out.getType(), q.getType());
  // A custom mask kind without the mask operand is a diagnostic.
  options = {};
  options.maskKind = MaskKind::Custom;
  EXPECT_FALSE(g.attention(q, q, q, 2, 16, options));
  EXPECT_NE(diags.messages.find("mask"), std::string::npos) << diags.messages;
  EXPECT_TRUE(g.hasErrors());
}

TEST_F(GraphBuilderTest, ShapeOps) {
  GraphBuilder g(&context, "shapes");
  Value x = g.input("x", {2, 3, 4}, g.f32());
  Value r = g.reshape(x, {6, -1});
  EXPECT_EQ(r.getType(), RankedTensorType::get({6, 4}, g.f32()));
  Value t = g.transpose(x, {2, 0, 1});
  EXPECT_EQ(t.getType(), RankedTensorType::get({4, 2, 3}, g.f32()));
  Value c = g.concat({x, x}, 1);
  EXPECT_EQ(c.getType(), RankedTensorType::get({2, 6, 4}, g.f32()));
  Value e = g.expand(g.narrow(x, 0, 1, 1), {5, -1, -1});
  EXPECT_EQ(e.getType(), RankedTensorType::get({5, 3, 4}, g.f32()));
  Value idx = g.input("idx", {7}, g.i64());
  Value gathered = g.gather(x, idx, 1);
  EXPECT_EQ(gathered.getType(), RankedTensorType::get({2, 7, 4}, g.f32()));
  Value mask = g.compare(CompareKind::Gt, x, g.splat({}, g.f32(), 0.0));
  Value sel = g.where(mask, x, g.cast(g.neg(x), g.f32()));
  EXPECT_EQ(sel.getType(), x.getType());
  EXPECT_TRUE(succeeded(g.finish({r, t, c, e, gathered, sel})));
}

} // namespace
