//===- GraphBuilderTest.cpp - building rlx graphs from C++ ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/IR/GraphBuilder.h"
#include "rlx/Execution/ExecutionTarget.h"
#include "rlx/Execution/Tensors.h"
#include "rlx/InitRLX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <set>

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

TEST_F(GraphBuilderTest, StateIsAParameterMarkedState) {
  GraphBuilder g(&context, "norm");
  Value x = g.input("x", {4, 3}, g.f32());
  Value mean = g.state("mean", {3}, g.f32());
  Value w = g.param("w", {3}, g.f32());
  FailureOr<func::FuncOp> f = g.finish({g.mul(g.sub(x, mean), w)});
  ASSERT_TRUE(succeeded(f));
  EXPECT_EQ(f->getArgAttrOfType<StringAttr>(1, "rlx.param").getValue(),
            "mean");
  EXPECT_TRUE(f->getArgAttr(1, "rlx.state"));
  EXPECT_FALSE(f->getArgAttr(2, "rlx.state"));
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

//===----------------------------------------------------------------------===//
// Every op of the dialect
//===----------------------------------------------------------------------===//

/// The GraphBuilder method that builds each rlx op. EveryOpHasABuilder
/// checks that these are exactly the dialect's registered ops, and that the
/// calls in it emit every one of them: an op added without a builder (or
/// without an entry here) fails the test.
const std::map<std::string, std::string> kBuilderOfOp = {
    {"rlx.reduce_to_root", "reduceToRoot"},
    {"rlx.broadcast", "broadcastFromRoot"},
    {"rlx.all_to_all", "allToAll"},
    {"rlx.reduce_scatter", "reduceScatter"},
    {"rlx.all_gather", "allGather"},
    {"rlx.all_reduce", "allReduce"},
    {"rlx.activation", "activation (gelu, relu, silu, ...)"},
    {"rlx.activation_backward", "activationBackward"},
    {"rlx.attention", "attention"},
    {"rlx.attention_backward", "attentionBackward, attentionBackwardAll"},
    {"rlx.axial_rope2d", "axialRope2d"},
    {"rlx.batch_elementwise_region", "batchElementwiseRegion"},
    {"rlx.batch_norm_inference", "batchNormInference"},
    {"rlx.batch_norm_inference_backward_beta",
     "batchNormInferenceBackwardBeta"},
    {"rlx.batch_norm_inference_backward_gamma",
     "batchNormInferenceBackwardGamma"},
    {"rlx.batch_norm_inference_backward_input",
     "batchNormInferenceBackwardInput"},
    {"rlx.batched_dense_solve", "batchedDenseSolve"},
    {"rlx.binary", "binary (add, sub, mul, ...)"},
    {"rlx.cast", "cast"},
    {"rlx.compare", "compare"},
    {"rlx.complex_norm_sq", "complexNormSq"},
    {"rlx.complex_norm_sq_backward", "complexNormSqBackward"},
    {"rlx.concat", "concat"},
    {"rlx.conjugate", "conjugate"},
    {"rlx.constant", "constant, splat"},
    {"rlx.conv", "conv2d"},
    {"rlx.conv2d_backward_input", "conv2dBackwardInput"},
    {"rlx.conv2d_backward_weight", "conv2dBackwardWeight"},
    {"rlx.conv_transpose2d", "convTranspose2d"},
    {"rlx.cumsum", "cumsum"},
    {"rlx.cumsum_backward", "cumsumBackward"},
    {"rlx.custom", "custom"},
    {"rlx.custom_fn", "customFn"},
    {"rlx.dense_solve", "denseSolve"},
    {"rlx.dequant_grouped_matmul", "dequantGroupedMatMul"},
    {"rlx.dequant_matmul", "dequantMatMul"},
    {"rlx.dequant_moe_weights", "dequantMoEWeights"},
    {"rlx.dequantize", "dequantize"},
    {"rlx.dot_general", "dotGeneral"},
    {"rlx.elementwise_region", "elementwiseRegion"},
    {"rlx.expand", "expand"},
    {"rlx.fake_quantize", "fakeQuantize"},
    {"rlx.fake_quantize_backward", "fakeQuantizeBackward"},
    {"rlx.fake_quantize_lsq", "fakeQuantizeLSQ"},
    {"rlx.fake_quantize_lsq_backward_scale", "fakeQuantizeLSQBackwardScale"},
    {"rlx.fake_quantize_lsq_backward_x", "fakeQuantizeLSQBackwardX"},
    {"rlx.fft", "fft (and rfft, irfft, stft, psdReal)"},
    {"rlx.fft_butterfly_stage", "fftButterflyStage"},
    {"rlx.fused_attention_block", "fusedAttentionBlock"},
    {"rlx.fused_matmul_bias_act", "fusedMatMulBiasAct"},
    {"rlx.fused_residual_ln", "fusedResidualLayerNorm"},
    {"rlx.fused_residual_rms_norm", "fusedResidualRmsNorm"},
    {"rlx.fused_swiglu", "fusedSwiGLU, fusedSwigluFfn"},
    {"rlx.fused_transformer_layer", "fusedTransformerLayer"},
    {"rlx.gated_delta_net", "gatedDeltaNet, gatedDeltaNetCarry"},
    {"rlx.gather", "gather"},
    {"rlx.gather_backward", "gatherBackward"},
    {"rlx.gaussian_splat_prepare", "gaussianSplatPrepare"},
    {"rlx.gaussian_splat_rasterize", "gaussianSplatRasterize"},
    {"rlx.gaussian_splat_render", "gaussianSplatRender"},
    {"rlx.gaussian_splat_render_backward", "gaussianSplatRenderBackward"},
    {"rlx.group_norm", "groupNorm"},
    {"rlx.group_norm_backward_beta", "groupNormBackwardBeta"},
    {"rlx.group_norm_backward_gamma", "groupNormBackwardGamma"},
    {"rlx.group_norm_backward_input", "groupNormBackwardInput"},
    {"rlx.grouped_matmul", "groupedMatMul"},
    {"rlx.if", "ifElse"},
    {"rlx.im2col", "im2col"},
    {"rlx.layer_norm", "layerNorm"},
    {"rlx.layer_norm2d", "layerNorm2d"},
    {"rlx.layer_norm_backward_gamma", "layerNormBackwardGamma"},
    {"rlx.layer_norm_backward_input", "layerNormBackwardInput"},
    {"rlx.log_mel", "logMel"},
    {"rlx.log_mel_backward", "logMelBackward"},
    {"rlx.lora_matmul", "loraMatMul"},
    {"rlx.matmul", "matmul (and linear, sharedMatMulPair, swigluFfn)"},
    {"rlx.max_pool2d_backward", "maxPool2dBackward"},
    {"rlx.narrow", "narrow"},
    {"rlx.pool", "pool"},
    {"rlx.q_conv2d", "qConv2d"},
    {"rlx.q_matmul", "qMatMul"},
    {"rlx.quantize", "quantize"},
    {"rlx.reduce", "reduce (sum, mean)"},
    {"rlx.relu_backward", "reluBackward"},
    {"rlx.reshape", "reshape"},
    {"rlx.resize_nearest2x", "resizeNearest2x"},
    {"rlx.resize", "resize"},
    {"rlx.resize_backward", "resizeBackward"},
    {"rlx.rms_norm", "rmsNorm"},
    {"rlx.rms_norm_backward_beta", "rmsNormBackwardBeta"},
    {"rlx.rms_norm_backward_gamma", "rmsNormBackwardGamma"},
    {"rlx.rms_norm_backward_input", "rmsNormBackwardInput"},
    {"rlx.rope", "rope"},
    {"rlx.rope_backward", "ropeBackward"},
    {"rlx.sample", "sample"},
    {"rlx.scan", "scan, scanWithXs, scanWithBcastsAndXs, scanTrajectory, "
                 "scanCheckpointed"},
    {"rlx.scan_backward", "scanBackward"},
    {"rlx.scan_backward_xs", "scanBackwardXs"},
    {"rlx.scatter_add", "scatterAdd"},
    {"rlx.selective_scan", "selectiveScan"},
    {"rlx.softmax", "softmax"},
    {"rlx.softmax_cross_entropy_backward", "softmaxCrossEntropyBackward"},
    {"rlx.softmax_cross_entropy_with_logits", "softmaxCrossEntropyWithLogits"},
    {"rlx.stop_gradient", "stopGradient"},
    {"rlx.top_k", "topK"},
    {"rlx.transform_region", "transformRegion"},
    {"rlx.transpose", "transpose"},
    {"rlx.where", "where"},
    {"rlx.while", "whileLoop"},
    {"rlx.yield", "the region builders (the values a body returns)"},
};

/// Builds one of every rlx op (and calls every builder method not called
/// by the other tests), returning the finished function.
static FailureOr<func::FuncOp> buildEveryOp(GraphBuilder &g) {
  Type f32 = g.f32();
  auto in = [&](StringRef name, ArrayRef<int64_t> shape, Type type) {
    return g.input(name, shape, type);
  };
  auto p = [&](StringRef name, ArrayRef<int64_t> shape, Type type) {
    return g.param(name, shape, type);
  };
  Type i8 = g.getBuilder().getIntegerType(8);
  Type ui8 = g.getBuilder().getIntegerType(8, /*isSigned=*/false);
  Type complex = ComplexType::get(f32);
  SmallVector<Value> keep;
  auto use = [&](Value v) {
    keep.push_back(v);
    return v;
  };

  // Elementwise.
  Value x = in("x", {4, 8}, f32);
  Value dy = in("dy", {4, 8}, f32);
  for (Value v :
       {g.gelu(x), g.geluApprox(x), g.relu(x), g.silu(x), g.sigmoid(x),
        g.tanh(x), g.exp(x), g.neg(x), g.activation(ActivationKind::Sin, x)})
    use(v);
  for (Value v :
       {g.add(x, dy), g.sub(x, dy), g.mul(x, dy), g.div(x, dy), g.max(x, dy),
        g.min(x, dy), g.pow(x, dy), g.binary(BinaryKind::Add, x, x)})
    use(v);
  Value positive = g.compare(CompareKind::Gt, x, g.splat({}, f32, 0.0));
  use(g.where(positive, x, g.stopGradient(dy)));
  use(g.cast(x, g.f16()));
  use(g.cast(g.cast(x, g.bf16()), g.f64()));
  use(g.cast(x, g.i32()));
  use(g.constant(DenseElementsAttr::get(RankedTensorType::get({2}, g.i64()),
                                        ArrayRef<int64_t>{1, 2})));

  // Shapes and reductions.
  g.setName("shapes");
  use(g.reshape(x, {2, -1}));
  use(g.transpose(x, {1, 0}));
  use(g.concat({x, dy}, 0));
  use(g.expand(g.narrow(x, 0, 1, 1), {3, -1}));
  use(g.gather(x, in("ids", {3}, g.i64()), 0));
  use(g.reduce(ReduceKind::Max, x, {1}, /*keepDim=*/true));
  use(g.sum(x, {0}));
  use(g.mean(x, {1}));
  use(g.softmax(x));
  use(g.cumsum(x, 1));
  auto [top, topIndices] = g.topK(x, 2);
  use(top);
  use(topIndices);
  g.setName("");

  // Quantization.
  Value q = g.quantize(x, {0.05f}, {3});
  use(g.dequantize(q, {0.05f}, {3}));
  SmallVector<float> scales(8, 0.1f);
  SmallVector<int32_t> zeros(8, 0);
  use(g.dequantize(g.quantize(x, scales, zeros, 1), scales, zeros, 1));
  use(g.fakeQuantize(x, 8));
  GraphBuilder::FakeQuantizeOptions ema;
  ema.scaleMode = ScaleMode::Ema;
  ema.state = p("fq_state", {1}, f32);
  ema.emaDecay = 0.9f;
  auto [fq, state] = g.fakeQuantize(x, 4, ema);
  if (!fq || !state)
    return failure();
  use(g.fakeQuantizeBackward(x, dy, 8, SteKind::ClippedIdentity));
  Value lsqScale = p("lsq_scale", {1}, f32);
  use(g.fakeQuantizeLSQ(x, lsqScale, 4));
  use(g.fakeQuantizeLSQBackwardX(x, lsqScale, dy, 4));
  use(g.fakeQuantizeLSQBackwardScale(x, lsqScale, dy, 4));

  // Linear algebra and mixtures of experts.
  Value a3 = in("a3", {2, 4, 8}, f32);
  Value b3 = in("b3", {2, 8, 3}, f32);
  use(g.dotGeneral(a3, b3, {2}, {1}, {0}, {0}));
  Value square = in("square", {4, 4}, f32);
  use(g.denseSolve(square, in("rhs", {4}, f32)));
  Value w8x16 = p("w8x16", {8, 16}, f32);
  Value w16x8 = p("w16x8", {16, 8}, f32);
  Value bias16 = p("bias16", {16}, f32);
  use(g.linear(x, w8x16, bias16, ActivationKind::Relu));
  auto [projected, gated] = g.sharedMatMulPair(x, w8x16, w8x16);
  use(projected);
  use(gated);
  use(g.swigluFfn(x, w8x16, w8x16, w16x8));
  use(g.fusedSwigluFfn(x, w8x16, w8x16, w16x8));
  use(g.fusedMatMulBiasAct(x, w8x16, bias16, std::nullopt));
  use(g.loraMatMul(x, w8x16, p("lora_a", {8, 2}, f32),
                   p("lora_b", {2, 16}, f32), 0.5f));
  use(g.batchedDenseSolve(in("squares", {2, 4, 4}, f32),
                          in("rhss", {2, 4}, f32)));
  Value x64 = in("x64", {4, 64}, f32);
  GraphBuilder::DequantOperands int8;
  int8.scale = p("w8_scale", {2, 8}, f32);
  int8.blockSize = 32;
  use(g.dequantMatMul(x64, p("w8", {64, 8}, i8), QuantScheme::Int8Block, int8));
  use(g.dequantMatMul(x64, p("w4_0", {288}, ui8), QuantScheme::GgufQ4_0));
  use(g.qMatMul(in("xq", {4, 8}, i8), p("wq", {8, 3}, i8),
                p("bq", {3}, g.i32()), 1, 0, -2, 0.01f));
  Value experts = in("experts", {6}, g.i32());
  use(g.groupedMatMul(in("tokens", {6, 16}, f32), p("wg", {4, 16, 32}, f32),
                      experts));
  use(g.dequantGroupedMatMul(in("tokens64", {6, 64}, f32),
                             p("wg8", {2176}, ui8), experts,
                             QuantScheme::GgufQ8_0, 16));
  use(g.dequantMoEWeights(p("packed", {1152}, ui8), QuantScheme::GgufQ4K,
                          {2, 256, 4}));

  // Normalization, geometry, convolution.
  Value image = in("image", {2, 4, 5, 5}, f32);
  Value c4 = p("c4", {4}, f32);
  Value c4b = p("c4b", {4}, f32);
  use(g.layerNorm2d(image, c4, c4b));
  use(g.groupNorm(image, c4, c4b, 2));
  use(g.pool(ReduceKind::Mean, image, {2, 2}, {1, 1}));
  use(g.resizeNearest2x(image));
  use(g.resize(image, ResizeMode::Linear, {7, 5}, /*alignCorners=*/true));
  use(g.resizeBackward(image, ResizeMode::Nearest, {3, 2}, false, {2.5, 2.0}));
  use(g.axialRope2d(in("patches", {1, 64, 32}, f32), 8, 8, 8, 4, 100.0f));
  Value convW = p("conv_w", {3, 4, 3, 3}, f32);
  Value convY = g.conv2d(image, convW, {2, 2}, {1, 1});
  use(g.convTranspose2d(image, p("convt_w", {4, 3, 3, 3}, f32), {2, 2}, {1, 1},
                        {1, 1}, {1, 1}));
  use(g.im2col(image, {3, 3}, {1, 1}, {1, 1}));
  use(g.qConv2d(in("xq4", {1, 3, 8, 8}, i8), p("wq4", {4, 3, 3, 3}, i8),
                p("bq4", {4}, g.i32()), {1, 1}, {1, 1}, {1, 1}, 1, 0, 0, 0,
                0.01f));

  // Sampling, scatter, state-space models.
  use(g.sample(in("logits10", {2, 10}, f32), 5, 0.9f, 0.7f, 42));
  use(g.scatterAdd(in("updates", {6, 4}, f32), in("rows", {6}, g.i64()), 10));
  Value seq = in("seq", {2, 16, 8}, f32);
  Value bc = in("bc", {2, 16, 4}, f32);
  use(g.selectiveScan(seq, seq, p("ssm_a", {8, 4}, f32), bc, bc, 4));
  Value qkv = in("dn_qkv", {1, 4, 2, 8}, f32);
  Value gate = in("dn_g", {1, 4, 2}, f32);
  use(g.gatedDeltaNet(qkv, qkv, qkv, gate, gate, 8));
  auto [dnOut, dnState] = g.gatedDeltaNetCarry(
      qkv, qkv, qkv, gate, gate, in("dn_state", {1, 2, 8, 8}, f32), 8);
  if (!dnOut || !dnState)
    return failure();

  // Gradients.
  GraphBuilder::AttentionOptions causal;
  causal.maskKind = MaskKind::Causal;
  Value gamma8 = p("gamma8", {8}, f32);
  Value beta8 = p("beta8", {8}, f32);
  use(g.layerNorm(x, gamma8, beta8));
  use(g.rmsNorm(x, gamma8, beta8));
  use(g.reluBackward(x, dy));
  use(g.activationBackward(ActivationKind::Silu, x, dy));
  use(g.layerNormBackwardInput(x, gamma8, dy));
  use(g.layerNormBackwardGamma(x, dy));
  use(g.rmsNormBackwardInput(x, gamma8, beta8, dy));
  use(g.rmsNormBackwardGamma(x, gamma8, beta8, dy));
  use(g.rmsNormBackwardBeta(x, gamma8, beta8, dy));
  Value heads = in("heads", {1, 2, 8, 16}, f32);
  Value cos = in("cos", {8, 8}, f32);
  use(g.rope(heads, cos, cos, 16, 16));
  use(g.ropeBackward(heads, cos, cos, 16, 16));
  use(g.attention(heads, heads, heads, 2, 16));
  Value dImage = in("d_image", {2, 4, 5, 5}, f32);
  use(g.groupNormBackwardInput(image, c4, c4b, dImage, 2));
  use(g.groupNormBackwardGamma(image, dImage, 2));
  use(g.groupNormBackwardBeta(image, dImage, 2));
  // Batch normalization is channel-last.
  Value nhwc = in("nhwc", {2, 3, 3, 4}, f32);
  Value dNhwc = in("d_nhwc", {2, 3, 3, 4}, f32);
  use(g.batchNormInferenceBackwardInput(nhwc, c4, c4b, c4, dNhwc));
  use(g.batchNormInferenceBackwardGamma(nhwc, c4b, c4, dNhwc));
  use(g.batchNormInferenceBackwardBeta(dNhwc));
  use(g.batchNormInference(nhwc, c4, c4b, c4, c4b));
  use(g.cumsumBackward(x, 1, /*exclusive=*/true));
  use(g.gatherBackward(in("d_rows", {2, 7, 4}, f32), in("idx7", {7}, g.i64()),
                       1, {2, 3, 4}));
  use(g.maxPool2dBackward(image, in("d_pool", {2, 4, 2, 2}, f32), {2, 2},
                          {2, 2}));
  Value dConv = in("d_conv", {2, 3, 3, 3}, f32);
  use(g.conv2dBackwardInput(dConv, convW, {2, 4, 5, 5}, {2, 2}, {1, 1}));
  use(g.conv2dBackwardWeight(image, dConv, {3, 3}, {2, 2}, {1, 1}));
  Value logits = in("logits", {4, 10}, f32);
  Value labels = in("labels", {4}, g.i64());
  use(g.softmaxCrossEntropyWithLogits(logits, labels));
  use(g.softmaxCrossEntropyBackward(logits, labels, in("d_loss", {4}, f32)));
  use(g.attentionBackward(AttentionBwdWrt::Value, heads, heads, heads, heads, 2,
                          16));
  for (Value grad :
       g.attentionBackwardAll(heads, heads, heads, heads, 2, 16, causal))
    use(grad);

  // Fused ops.
  Value hidden = in("hidden", {2, 8, 64}, f32);
  GraphBuilder::AttentionBlockWeights block;
  block.qkvW = p("block_qkv", {64, 192}, f32);
  block.outW = p("block_out", {64, 64}, f32);
  use(g.fusedAttentionBlock(hidden, block, 4, 16, causal));
  use(g.fusedResidualRmsNorm(x, dy, Value(), gamma8, beta8));
  use(g.fusedResidualLayerNorm(x, dy, gamma8, gamma8, beta8));
  use(g.fusedSwiGLU(x, /*gateFirst=*/true));
  GraphBuilder::TransformerLayerWeights layer;
  layer.qkvW = block.qkvW;
  layer.outW = block.outW;
  layer.ln1Gamma = layer.ln2Gamma = p("ln_g", {64}, f32);
  layer.fc1W = p("fc1", {64, 128}, f32);
  layer.fc2W = p("fc2", {128, 64}, f32);
  GraphBuilder::TransformerLayerConfig config;
  config.numHeads = 4;
  config.headDim = 16;
  config.intermediateSize = 128;
  use(g.fusedTransformerLayer(hidden, layer, config));

  // Signal processing and complex numbers.
  Value signal = in("signal", {3, 12}, f32);
  Value realBlock = use(g.fft(in("block", {4, 16}, f32)));
  auto [blockRe, blockIm] = g.splitSpectrum(realBlock);
  use(blockRe);
  use(blockIm);
  Value z = in("z", {4, 8}, complex);
  use(g.fft(z, /*inverse=*/true, FftNorm::Ortho));
  Value bits = in("gate4", {4}, g.i1());
  Value twiddle = in("twiddle", {4}, f32);
  use(g.fftButterflyStage(in("state", {2, 8, 2}, f32), bits, bits, twiddle,
                          twiddle, 0, 8));
  Value spectrum = in("spectrum", {10, 32}, f32);
  Value filterbank = p("filterbank", {4, 9}, f32);
  use(g.logMel(spectrum, filterbank));
  use(g.logMelBackward(spectrum, filterbank, in("d_mel", {10, 4}, f32)));
  use(g.complexNormSq(z));
  use(g.conjugate(z));
  use(g.complexNormSqBackward(z, dy));
  auto [re, im] = g.rfft(signal);
  use(g.irfft(re, im, 12));
  use(g.stft(signal, 6, 4));
  use(g.psd(re, im));
  use(g.psdReal(signal));
  use(g.fftfreq(7));
  use(g.rfftfreq(8, 0.5));

  // Regions and control flow.
  Value vec = in("vec", {4}, f32);
  Value predicate = in("predicate", {}, g.i1());
  auto one = [&](Value v) { return SmallVector<Value>{v}; };
  for (Value v : g.ifElse(
           predicate, [&](ValueRange) { return one(g.relu(vec)); },
           [&](ValueRange) { return one(g.sigmoid(vec)); }))
    use(v);
  for (Value v : g.whileLoop(
           {vec},
           [&](ValueRange c) {
             Value sum = g.sum(c[0], {0});
             return SmallVector<Value>{
                 g.compare(CompareKind::Lt, sum, g.splat({}, f32, 10.0)), c[0]};
           },
           [&](ValueRange c) { return one(g.add(c[0], c[0])); }, 16))
    use(v);
  auto step = [&](ValueRange c) { return one(g.tanh(c[0])); };
  Value steps = in("steps", {5, 4}, f32);
  use(g.scan(vec, 5, step));
  use(g.scanWithXs(vec, {steps}, 5,
                   [&](ValueRange c) { return one(g.add(c[0], c[1])); }));
  use(g.scanWithBcastsAndXs(vec, {vec}, {steps}, 5, [&](ValueRange c) {
    return one(g.add(g.mul(c[0], c[1]), c[2]));
  }));
  Value trajectory = use(g.scanTrajectory(vec, 5, step));
  use(g.scanCheckpointed(vec, 5, 2, step));
  GraphBuilder::ScanBackwardOptions backward;
  backward.saveTrajectory = true;
  use(g.scanBackward(
      vec, trajectory, steps, 5, [&](ValueRange c) { return one(c[1]); },
      backward));
  backward.xs = {steps};
  use(g.scanBackwardXs(
      vec, trajectory, steps, 5, 0,
      [&](ValueRange c) { return SmallVector<Value>{c[2], c[2]}; }, backward));
  use(g.customFn(
      {vec},
      [&](ValueRange a) {
        return one(g.activation(ActivationKind::Sin, a[0]));
      },
      [&](ValueRange a) {
        return one(g.mul(g.activation(ActivationKind::Cos, a[0]), a[2]));
      },
      [&](ValueRange a) {
        return one(g.mul(g.activation(ActivationKind::Cos, a[0]), a[1]));
      }));
  use(g.elementwiseRegion({x, gamma8}, [&](ValueRange e) {
    return one(g.relu(g.mul(e[0], e[1])));
  }));
  use(g.transformRegion(
      {image}, [&](ValueRange a) { return one(g.resizeNearest2x(a[0])); }));
  for (Value v : g.batchElementwiseRegion(
           {x, dy}, [&](ValueRange e) { return one(g.tanh(e[0])); }))
    use(v);

  // Gaussian splats (10 Gaussians) and custom ops.
  GraphBuilder::SplatScene scene{
      in("positions", {30}, f32), in("scales", {30}, f32),
      in("rotations", {40}, f32), in("opacities", {10}, f32),
      in("colors", {30}, f32),    in("sh", {0}, f32),
      in("meta", {23}, f32)};
  GraphBuilder::SplatSettings settings;
  settings.width = 8;
  settings.height = 4;
  use(g.gaussianSplatRender(scene, settings));
  use(g.gaussianSplatRenderBackward(scene, in("d_rgba", {128}, f32), settings,
                                    GraphBuilder::SplatBackwardSettings()));
  use(g.gaussianSplatRasterize(g.gaussianSplatPrepare(scene, settings),
                               scene.meta, settings));
  use(g.gaussianSplatRenderDecomposed(scene, settings));
  NamedAttribute order(g.getBuilder().getStringAttr("ordering"),
                       g.getBuilder().getStringAttr("amd"));
  for (Value v : g.custom("sparse_solve", {square, vec}, {vec.getType()},
                          g.getBuilder().getDictionaryAttr(order),
                          /*pure=*/true))
    use(v);
  g.custom("log_stats", {vec}, {});

  // Collectives over a 2 x 2 mesh: the world, and groups along axis 1.
  GroupAttr world = g.group({2, 2});
  GroupAttr row = GroupAttr::get(g.getBuilder().getContext(), {2, 2}, {1});
  Value shard = in("shard", {4, 6}, f32);
  use(g.allReduce(CollectiveKind::Mean, shard, world));
  use(g.allGather(shard, 1, row));
  use(g.reduceScatter(CollectiveKind::Sum, shard, 0, world));
  use(g.allToAll(shard, 1, 0, row));
  use(g.broadcastFromRoot(shard, 3, world));
  use(g.reduceToRoot(CollectiveKind::Max, shard, 1, row));

  if (g.hasErrors() || llvm::is_contained(keep, Value()))
    return failure();
  (void)convY;
  return g.finish({keep.front(), keep.back()});
}

TEST_F(GraphBuilderTest, EveryOpHasABuilder) {
  GraphBuilder g(&context, "every_op");
  FailureOr<func::FuncOp> f = buildEveryOp(g);
  ASSERT_TRUE(succeeded(f));
  ASSERT_TRUE(succeeded(verify(g.getModule())));

  std::set<std::string> registered, listed, built;
  for (RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() == RLXDialect::getDialectNamespace())
      registered.insert(name.getStringRef().str());
  for (const auto &entry : kBuilderOfOp)
    listed.insert(entry.first);
  g.getModule()->walk([&](Operation *op) {
    if (op->getDialect() &&
        op->getDialect()->getNamespace() == RLXDialect::getDialectNamespace())
      built.insert(op->getName().getStringRef().str());
  });
  auto missing = [](const std::set<std::string> &from,
                    const std::set<std::string> &in) {
    std::string names;
    for (const std::string &name : from)
      if (!in.count(name))
        names += " " + name;
    return names;
  };
  EXPECT_EQ(missing(registered, listed), "")
      << "ops without a GraphBuilder method in kBuilderOfOp";
  EXPECT_EQ(missing(listed, registered), "")
      << "kBuilderOfOp lists ops the dialect does not register";
  EXPECT_EQ(missing(registered, built), "")
      << "ops the builder calls of buildEveryOp did not emit";
}

//===----------------------------------------------------------------------===//
// Composite helpers, run on the CPU against values computed here
//===----------------------------------------------------------------------===//

/// The seed of this run's random inputs: RLX_TEST_SEED replays a failure,
/// otherwise a fresh one (printed).
static unsigned testSeed() {
  static const unsigned seed = [] {
    const char *fixed = std::getenv("RLX_TEST_SEED");
    unsigned value = fixed && *fixed ? static_cast<unsigned>(std::stoul(fixed))
                                     : std::random_device()();
    llvm::outs() << "seed " << value << " (replay with RLX_TEST_SEED=" << value
                 << ")\n";
    return value;
  }();
  return seed;
}

/// Row-major host tensors and the graphs that consume them.
class GraphBuilderRunTest : public GraphBuilderTest {
protected:
  GraphBuilderRunTest() : rng(testSeed()) {
    rlx::registerAllExecutionTargets();
    options.runtimeLibrary = RLX_CPU_RUNTIME_PATH;
  }

  /// Appends the next graph argument, uniform values in [-1, 1), and
  /// returns its index in `arguments`.
  size_t random(std::vector<int64_t> shape) {
    rlxrt::HostTensor tensor(rlxrt::DType::F32, std::move(shape));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (int64_t i = 0; i < tensor.numElements(); ++i)
      tensor.dataAs<float>()[i] = uniform(rng);
    arguments.push_back(std::move(tensor));
    return arguments.size() - 1;
  }
  const float *data(size_t argument) const {
    return arguments[argument].dataAs<float>();
  }

  /// Finishes `g` with `outputs`, compiles it for the CPU and runs it on
  /// `arguments` (in the order of the graph's leaves).
  std::vector<rlxrt::HostTensor> run(GraphBuilder &g, ArrayRef<Value> outputs) {
    if (failed(g.finish(outputs))) {
      ADD_FAILURE() << "the graph does not verify";
      return {};
    }
    OwningOpRef<ModuleOp> module = g.takeModule();
    StringRef name = g.getFunction().getName();
    auto target = rlxrt::lookupExecutionTarget("cpu");
    if (!target) {
      ADD_FAILURE() << llvm::toString(target.takeError());
      return {};
    }
    auto graph = (*target)->compile(*module, name, options);
    if (!graph) {
      ADD_FAILURE() << llvm::toString(graph.takeError());
      return {};
    }
    auto results = (*graph)->run(arguments);
    if (!results) {
      ADD_FAILURE() << llvm::toString(results.takeError());
      return {};
    }
    return std::move(*results);
  }

  std::mt19937 rng;
  rlxrt::CompileOptions options;
  std::vector<rlxrt::HostTensor> arguments;
};

/// Checks `actual` against `expected` element by element within
/// `tolerance * max(1, max |expected|)`: f32 rounding relative to the
/// scale of the values.
static void expectClose(const rlxrt::HostTensor &actual,
                        ArrayRef<double> expected, double tolerance,
                        StringRef what) {
  ASSERT_EQ(actual.numElements(), static_cast<int64_t>(expected.size()))
      << what.str() << " is " << actual.describe();
  double scale = 1.0;
  for (double e : expected)
    scale = std::max(scale, std::abs(e));
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR(actual.getAsDouble(i), expected[i], tolerance * scale)
        << what.str() << "[" << i << "]";
}

/// The DFT of the real `x[0 .. n)` zero-padded to `m`, bins `0 .. bins)`.
static void naiveRealDft(const float *x, int64_t n, int64_t m, int64_t bins,
                         std::vector<double> &re, std::vector<double> &im) {
  for (int64_t k = 0; k < bins; ++k) {
    double sumRe = 0, sumIm = 0;
    for (int64_t t = 0; t < n; ++t) {
      double angle = -2 * M_PI * static_cast<double>(k * t % m) / m;
      sumRe += x[t] * std::cos(angle);
      sumIm += x[t] * std::sin(angle);
    }
    re.push_back(sumRe);
    im.push_back(sumIm);
  }
}

/// f32 rounding of a length-m FFT grows with log2(m).
static double fftTolerance(int64_t m) { return 1e-5 * std::log2(m); }

TEST_F(GraphBuilderRunTest, RfftMatchesTheDft) {
  // 12 samples are padded to 16: 9 bins.
  GraphBuilder g(&context, "rfft");
  Value x = g.input("x", {3, 12}, g.f32());
  auto [re, im] = g.rfft(x);
  ASSERT_TRUE(re && im);
  EXPECT_EQ(re.getType(), RankedTensorType::get({3, 9}, g.f32()));
  Value power = g.psdReal(x);
  auto [fullRe, fullIm] = g.fftReal(x);
  // The inverse with 1/m gives back the padded signal.
  Value roundTrip = g.ifftSpectrum(fullRe, fullIm, FftNorm::Forward);
  Value padded = g.padToPowerOfTwo(x);
  size_t signal = random({3, 12});
  auto out = run(g, {re, im, power, fullRe, fullIm, roundTrip, padded});
  ASSERT_EQ(out.size(), 7u);
  std::vector<double> expectedRe, expectedIm, expectedPower;
  std::vector<double> expectedFullRe, expectedFullIm, expectedPadded;
  for (int64_t row = 0; row < 3; ++row) {
    const float *x = data(signal) + row * 12;
    naiveRealDft(x, 12, 16, 9, expectedRe, expectedIm);
    naiveRealDft(x, 12, 16, 16, expectedFullRe, expectedFullIm);
    for (int64_t t = 0; t < 16; ++t)
      expectedPadded.push_back(t < 12 ? x[t] : 0.0);
  }
  for (size_t i = 0; i < expectedRe.size(); ++i)
    expectedPower.push_back(
        (expectedRe[i] * expectedRe[i] + expectedIm[i] * expectedIm[i]) / 16);
  expectClose(out[0], expectedRe, fftTolerance(16), "re");
  expectClose(out[1], expectedIm, fftTolerance(16), "im");
  expectClose(out[2], expectedPower, 2 * fftTolerance(16), "psdReal");
  expectClose(out[3], expectedFullRe, fftTolerance(16), "fftReal re");
  expectClose(out[4], expectedFullIm, fftTolerance(16), "fftReal im");
  expectClose(out[5], expectedPadded, 2 * fftTolerance(16), "ifftSpectrum");
  expectClose(out[6], expectedPadded, 0, "padToPowerOfTwo");
}

TEST_F(GraphBuilderRunTest, IrfftInvertsTheHalfSpectrum) {
  // 5 bins: a transform of length 8, truncated to 7 samples.
  GraphBuilder g(&context, "irfft");
  Value re = g.input("re", {2, 5}, g.f32());
  Value im = g.input("im", {2, 5}, g.f32());
  Value y = g.irfft(re, im, 7, FftNorm::Forward);
  ASSERT_TRUE(y);
  EXPECT_EQ(y.getType(), RankedTensorType::get({2, 7}, g.f32()));
  size_t spectrumRe = random({2, 5}), spectrumIm = random({2, 5});
  auto out = run(g, {y});
  ASSERT_EQ(out.size(), 1u);
  // x[t] = 1/8 sum_k X[k] e^{2 pi i k t / 8}, X[8 - k] = conj(X[k]): the
  // imaginary parts of DC and Nyquist do not contribute.
  std::vector<double> expected;
  for (int64_t row = 0; row < 2; ++row) {
    const float *r = data(spectrumRe) + row * 5;
    const float *i = data(spectrumIm) + row * 5;
    for (int64_t t = 0; t < 7; ++t) {
      double sum = r[0] + r[4] * std::cos(M_PI * t);
      for (int64_t k = 1; k < 4; ++k) {
        double angle = 2 * M_PI * k * t / 8;
        sum += 2 * (r[k] * std::cos(angle) - i[k] * std::sin(angle));
      }
      expected.push_back(sum / 8);
    }
  }
  expectClose(out[0], expected, fftTolerance(8), "irfft");
}

TEST_F(GraphBuilderRunTest, StftAndPsd) {
  // 20 samples, frames of 6 (padded to 8: 5 bins) every 4: 4 frames.
  GraphBuilder g(&context, "stft");
  Value x = g.input("x", {2, 20}, g.f32());
  Value frames = g.stft(x, 6, 4, FftNorm::Ortho);
  ASSERT_TRUE(frames);
  EXPECT_EQ(frames.getType(), RankedTensorType::get({4, 2, 10}, g.f32()));
  Value re = g.input("re", {3, 8}, g.f32());
  Value im = g.input("im", {3, 8}, g.f32());
  Value power = g.psd(re, im);
  size_t signal = random({2, 20});
  size_t spectrumRe = random({3, 8}), spectrumIm = random({3, 8});
  auto out = run(g, {frames, power});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> expected;
  for (int64_t f = 0; f < 4; ++f)
    for (int64_t row = 0; row < 2; ++row) {
      std::vector<double> bins, binsIm;
      naiveRealDft(data(signal) + row * 20 + f * 4, 6, 8, 5, bins, binsIm);
      for (double v : bins)
        expected.push_back(v / std::sqrt(8.0));
      for (double v : binsIm)
        expected.push_back(v / std::sqrt(8.0));
    }
  expectClose(out[0], expected, fftTolerance(8), "stft");
  std::vector<double> expectedPower;
  for (int64_t i = 0; i < 24; ++i) {
    double r = data(spectrumRe)[i], m = data(spectrumIm)[i];
    expectedPower.push_back((r * r + m * m) / 8);
  }
  expectClose(out[1], expectedPower, 1e-6, "psd");
}

TEST_F(GraphBuilderRunTest, FftConvolution) {
  // 5 and 4 taps: 8 outputs, with a transform of 16 (nFft = 10 rounds up).
  GraphBuilder g(&context, "fft_conv");
  Value a = g.input("a", {2, 5}, g.f32());
  Value b = g.input("b", {2, 4}, g.f32());
  Value conv = g.fftConv1d(a, b, 10);
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv.getType(), RankedTensorType::get({2, 8}, g.f32()));
  size_t aArg = random({2, 5}), bArg = random({2, 4});
  auto out = run(g, {conv});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> expected(16, 0.0);
  for (int64_t row = 0; row < 2; ++row)
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 4; ++j)
        expected[row * 8 + i + j] +=
            data(aArg)[row * 5 + i] * data(bArg)[row * 4 + j];
  expectClose(out[0], expected, 2 * fftTolerance(16), "fftConv1d");
}

TEST_F(GraphBuilderRunTest, FftnOnComplexTensors) {
  // |fftn(x)|^2 over both axes of a [4, 8] signal, and the round trip.
  GraphBuilder g(&context, "fftn");
  Value x = g.input("x", {4, 8}, g.f32());
  Value z = g.cast(x, ComplexType::get(g.f32()));
  Value spectrum = g.fftn(z, {1, 0});
  Value power = g.complexNormSq(spectrum);
  Value back = g.complexNormSq(g.ifftn(spectrum, {0, -1}, FftNorm::Forward));
  Value rows = g.complexNormSq(g.fftAxis(z, 0));
  size_t signal = random({4, 8});
  auto out = run(g, {power, back, rows});
  ASSERT_EQ(out.size(), 3u);
  const float *v = data(signal);
  std::vector<double> expected, squares, columns;
  for (int64_t k0 = 0; k0 < 4; ++k0)
    for (int64_t k1 = 0; k1 < 8; ++k1) {
      double re = 0, im = 0, colRe = 0, colIm = 0;
      for (int64_t t0 = 0; t0 < 4; ++t0) {
        for (int64_t t1 = 0; t1 < 8; ++t1) {
          double angle = -2 * M_PI * (k0 * t0 / 4.0 + k1 * t1 / 8.0);
          re += v[t0 * 8 + t1] * std::cos(angle);
          im += v[t0 * 8 + t1] * std::sin(angle);
        }
        double angle = -2 * M_PI * k0 * t0 / 4.0;
        colRe += v[t0 * 8 + k1] * std::cos(angle);
        colIm += v[t0 * 8 + k1] * std::sin(angle);
      }
      expected.push_back(re * re + im * im);
      squares.push_back(v[k0 * 8 + k1] * v[k0 * 8 + k1]);
      columns.push_back(colRe * colRe + colIm * colIm);
    }
  expectClose(out[0], expected, 2 * fftTolerance(32), "|fftn|^2");
  expectClose(out[1], squares, 2 * fftTolerance(32), "|ifftn(fftn)|^2");
  expectClose(out[2], columns, 2 * fftTolerance(4), "|fftAxis(0)|^2");
}

TEST_F(GraphBuilderRunTest, FftFrequencies) {
  GraphBuilder g(&context, "freqs");
  Value all = g.fftfreq(7, 0.5);
  Value half = g.rfftfreq(8, 0.1);
  auto out = run(g, {all, half});
  ASSERT_EQ(out.size(), 2u);
  // NumPy: fftfreq(7, 0.5) and rfftfreq(8, 0.1).
  expectClose(out[0],
              {0, 1 / 3.5, 2 / 3.5, 3 / 3.5, -3 / 3.5, -2 / 3.5, -1 / 3.5},
              1e-7, "fftfreq");
  expectClose(out[1], {0, 1.25, 2.5, 3.75, 5}, 1e-7, "rfftfreq");
}

/// `a [m, k] @ b [k, n]` in double.
static std::vector<double> matmulOf(const std::vector<double> &a,
                                    const std::vector<double> &b, int64_t m,
                                    int64_t k, int64_t n) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t l = 0; l < k; ++l)
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] += a[i * k + l] * b[l * n + j];
  return c;
}

static std::vector<double> valuesOf(const rlxrt::HostTensor &t) {
  std::vector<double> values;
  for (int64_t i = 0; i < t.numElements(); ++i)
    values.push_back(t.getAsDouble(i));
  return values;
}

TEST_F(GraphBuilderRunTest, SwigluFfn) {
  GraphBuilder g(&context, "swiglu");
  Value x = g.input("x", {4, 8}, g.f32());
  Value up = g.param("up", {8, 16}, g.f32());
  Value gate = g.param("gate", {8, 16}, g.f32());
  Value down = g.param("down", {16, 8}, g.f32());
  auto [first, second] = g.sharedMatMulPair(x, up, gate);
  Value y = g.swigluFfn(x, up, gate, down);
  Value fused = g.fusedSwigluFfn(x, up, gate, down);
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{4, 8}, {8, 16}, {8, 16}, {16, 8}})
    random(shape);
  auto out = run(g, {first, second, y, fused});
  const auto &args = arguments;
  ASSERT_EQ(out.size(), 4u);
  std::vector<double> xs = valuesOf(args[0]);
  std::vector<double> ups = matmulOf(xs, valuesOf(args[1]), 4, 8, 16);
  std::vector<double> gates = matmulOf(xs, valuesOf(args[2]), 4, 8, 16);
  std::vector<double> hidden;
  for (size_t i = 0; i < ups.size(); ++i)
    hidden.push_back(gates[i] / (1 + std::exp(-gates[i])) * ups[i]);
  std::vector<double> expected = matmulOf(hidden, valuesOf(args[3]), 4, 16, 8);
  expectClose(out[0], ups, 1e-5, "x @ up");
  expectClose(out[1], gates, 1e-5, "x @ gate");
  expectClose(out[2], expected, 1e-5, "swigluFfn");
  expectClose(out[3], expected, 1e-5, "fusedSwigluFfn");
}

TEST_F(GraphBuilderRunTest, AttentionBackwardAll) {
  // [B, H, S, D] = [1, 2, 4, 8], no mask, scale 1/sqrt(8).
  const int64_t heads = 2, s = 4, d = 8;
  GraphBuilder g(&context, "attention_grads");
  std::vector<int64_t> shape{1, heads, s, d};
  Value q = g.input("q", shape, g.f32());
  Value k = g.input("k", shape, g.f32());
  Value v = g.input("v", shape, g.f32());
  Value dy = g.input("dy", shape, g.f32());
  auto [dq, dk, dv] = g.attentionBackwardAll(q, k, v, dy, heads, d);
  for (int i = 0; i < 4; ++i)
    random(shape);
  auto out = run(g, {dq, dk, dv});
  const auto &args = arguments;
  ASSERT_EQ(out.size(), 3u);
  // Per head: P = softmax(Q K^T c), dV = P^T dY, dP = dY V^T,
  // dS = P * (dP - rowsum(P * dP)), dQ = dS K c, dK = dS^T Q c.
  std::vector<double> eq, ek, ev;
  double c = 1 / std::sqrt(static_cast<double>(d));
  for (int64_t h = 0; h < heads; ++h) {
    auto at = [&](int arg, int64_t i, int64_t j) {
      return args[arg].getAsDouble((h * s + i) * d + j);
    };
    std::vector<double> p(s * s), ds(s * s);
    for (int64_t i = 0; i < s; ++i) {
      double top = -1e300, total = 0;
      for (int64_t j = 0; j < s; ++j) {
        double dot = 0;
        for (int64_t l = 0; l < d; ++l)
          dot += at(0, i, l) * at(1, j, l);
        p[i * s + j] = dot * c;
        top = std::max(top, p[i * s + j]);
      }
      for (int64_t j = 0; j < s; ++j)
        total += p[i * s + j] = std::exp(p[i * s + j] - top);
      double rowDot = 0;
      std::vector<double> dp(s);
      for (int64_t j = 0; j < s; ++j) {
        p[i * s + j] /= total;
        for (int64_t l = 0; l < d; ++l)
          dp[j] += at(3, i, l) * at(2, j, l);
        rowDot += p[i * s + j] * dp[j];
      }
      for (int64_t j = 0; j < s; ++j)
        ds[i * s + j] = p[i * s + j] * (dp[j] - rowDot);
    }
    for (int64_t i = 0; i < s; ++i)
      for (int64_t l = 0; l < d; ++l) {
        double gq = 0, gk = 0, gv = 0;
        for (int64_t j = 0; j < s; ++j) {
          gq += ds[i * s + j] * at(1, j, l) * c;
          gk += ds[j * s + i] * at(0, j, l) * c;
          gv += p[j * s + i] * at(3, j, l);
        }
        eq.push_back(gq);
        ek.push_back(gk);
        ev.push_back(gv);
      }
  }
  expectClose(out[0], eq, 1e-5, "dq");
  expectClose(out[1], ek, 1e-5, "dk");
  expectClose(out[2], ev, 1e-5, "dv");
}

TEST_F(GraphBuilderRunTest, ScanVariants) {
  // h_{t+1} = h_t * w + x_t over 5 steps of [4] carries.
  GraphBuilder g(&context, "scans");
  Value h0 = g.input("h0", {4}, g.f32());
  Value w = g.input("w", {4}, g.f32());
  Value xs = g.input("xs", {5, 4}, g.f32());
  auto affine = [&](ValueRange a) {
    return SmallVector<Value>{g.add(g.mul(a[0], a[1]), a[2])};
  };
  auto halve = [&](ValueRange a) {
    return SmallVector<Value>{g.mul(a[0], g.splat({}, g.f32(), 0.5))};
  };
  Value last = g.scanWithBcastsAndXs(h0, {w}, {xs}, 5, affine);
  Value summed = g.scanWithXs(h0, {xs}, 5, [&](ValueRange a) {
    return SmallVector<Value>{g.add(a[0], a[1])};
  });
  Value halved = g.scan(h0, 5, halve);
  Value trajectory = g.scanTrajectory(h0, 5, halve);
  Value checkpoints = g.scanCheckpointed(h0, 5, 2, halve);
  ASSERT_TRUE(checkpoints);
  EXPECT_EQ(checkpoints.getType(), RankedTensorType::get({2, 4}, g.f32()));
  random({4});
  random({4});
  random({5, 4});
  auto out = run(g, {last, summed, halved, trajectory, checkpoints});
  const auto &args = arguments;
  ASSERT_EQ(out.size(), 5u);
  std::vector<double> h = valuesOf(args[0]), sum = h, half = h;
  std::vector<double> rows;
  for (int64_t t = 0; t < 5; ++t)
    for (int64_t i = 0; i < 4; ++i) {
      double x = args[2].getAsDouble(t * 4 + i);
      h[i] = h[i] * args[1].getAsDouble(i) + x;
      sum[i] += x;
      half[i] *= 0.5;
      rows.push_back(half[i]);
    }
  expectClose(out[0], h, 1e-5, "scanWithBcastsAndXs");
  expectClose(out[1], sum, 1e-5, "scanWithXs");
  expectClose(out[2], half, 1e-6, "scan");
  expectClose(out[3], rows, 1e-6, "scanTrajectory");
  // Rows floor(t * 5 / 2) for t < 2: the carries after steps 1 and 3.
  std::vector<double> kept(rows.begin(), rows.begin() + 4);
  kept.insert(kept.end(), rows.begin() + 8, rows.begin() + 12);
  expectClose(out[4], kept, 1e-6, "scanCheckpointed");
}

TEST_F(GraphBuilderRunTest, LayerNorm2dAndConvTranspose2d) {
  const int64_t n = 2, c = 3, hw = 4, cout = 2, k = 3;
  GraphBuilder g(&context, "image_ops");
  Value x = g.input("x", {n, c, hw, hw}, g.f32());
  Value gamma = g.param("gamma", {c}, g.f32());
  Value beta = g.param("beta", {c}, g.f32());
  Value w = g.param("w", {c, cout, k, k}, g.f32());
  Value normalized = g.layerNorm2d(x, gamma, beta, 1e-5f);
  // H_out = (4 - 1) * 2 - 2 * 1 + (3 - 1) + 1 + 1 = 8.
  Value up = g.convTranspose2d(x, w, {2, 2}, {1, 1}, {1, 1}, {1, 1});
  ASSERT_TRUE(up);
  EXPECT_EQ(up.getType(), RankedTensorType::get({n, cout, 8, 8}, g.f32()));
  random({n, c, hw, hw});
  random({c});
  random({c});
  random({c, cout, k, k});
  auto out = run(g, {normalized, up});
  const auto &args = arguments;
  ASSERT_EQ(out.size(), 2u);
  auto xAt = [&](int64_t b, int64_t ch, int64_t i, int64_t j) {
    return args[0].getAsDouble(((b * c + ch) * hw + i) * hw + j);
  };
  std::vector<double> expectedNorm(n * c * hw * hw);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < hw; ++i)
      for (int64_t j = 0; j < hw; ++j) {
        double mean = 0, var = 0;
        for (int64_t ch = 0; ch < c; ++ch)
          mean += xAt(b, ch, i, j) / c;
        for (int64_t ch = 0; ch < c; ++ch)
          var += (xAt(b, ch, i, j) - mean) * (xAt(b, ch, i, j) - mean) / c;
        for (int64_t ch = 0; ch < c; ++ch)
          expectedNorm[((b * c + ch) * hw + i) * hw + j] =
              (xAt(b, ch, i, j) - mean) / std::sqrt(var + 1e-5) *
                  args[1].getAsDouble(ch) +
              args[2].getAsDouble(ch);
      }
  // Each input element scatters into out[b, co, i*2 - 1 + kh, j*2 - 1 + kw].
  std::vector<double> expectedUp(n * cout * 8 * 8, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < hw; ++i)
        for (int64_t j = 0; j < hw; ++j)
          for (int64_t co = 0; co < cout; ++co)
            for (int64_t kh = 0; kh < k; ++kh)
              for (int64_t kw = 0; kw < k; ++kw) {
                int64_t oh = i * 2 - 1 + kh, ow = j * 2 - 1 + kw;
                if (oh < 0 || oh >= 8 || ow < 0 || ow >= 8)
                  continue;
                expectedUp[((b * cout + co) * 8 + oh) * 8 + ow] +=
                    xAt(b, ch, i, j) *
                    args[3].getAsDouble(((ch * cout + co) * k + kh) * k + kw);
              }
  expectClose(out[0], expectedNorm, 1e-5, "layerNorm2d");
  expectClose(out[1], expectedUp, 1e-5, "convTranspose2d");
}

TEST_F(GraphBuilderTest, GraphsShareAModule) {
  GraphBuilder first(&context, "first");
  Value x = first.input("x", {4}, first.f32());
  ASSERT_TRUE(succeeded(first.finish({first.relu(x)})));
  GraphBuilder second(first.getModule(), "second");
  EXPECT_EQ(second.getContext(), &context);
  Value y = second.input("y", {4}, second.f32());
  second.setName("frozen");
  EXPECT_TRUE(isa<NameLoc>(second.getLoc()));
  // The generic form builds any op with the same checks.
  StopGradientOp frozen = second.create<StopGradientOp>(y);
  ASSERT_TRUE(frozen);
  // Null values stand for absent optional operands and attributes.
  FusedSwiGLUOp gated = second.createWithOptional<FusedSwiGLUOp>(
      {frozen}, frozen, TypeAttr(), UnitAttr());
  ASSERT_TRUE(gated);
  EXPECT_EQ(gated.getType(), RankedTensorType::get({2}, second.f32()));
  ASSERT_TRUE(succeeded(second.finish({gated.getResult()})));
  OwningOpRef<ModuleOp> module = first.takeModule();
  EXPECT_EQ(llvm::range_size(module->getOps<func::FuncOp>()), 2u);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(GraphBuilderTest, CompositeArgumentsAreDiagnosed) {
  CapturedDiagnostics diags(context);
  // One builder per error: a failed builder builds nothing more.
  auto fails = [&](function_ref<Value(GraphBuilder &)> build) {
    GraphBuilder g(&context, "bad_signal");
    EXPECT_FALSE(build(g));
    EXPECT_TRUE(g.hasErrors());
  };
  fails([](GraphBuilder &g) {
    return g.rfft(g.input("ints", {8}, g.i32())).first;
  });
  fails([](GraphBuilder &g) {
    Value re = g.input("re", {5}, g.f32());
    return g.irfft(re, re, 9);
  });
  fails(
      [](GraphBuilder &g) { return g.stft(g.input("x", {5}, g.f32()), 6, 1); });
  fails([](GraphBuilder &g) { return g.fftfreq(0); });
  for (const char *message :
       {"the real FFT helpers need an f32 or f64 signal, got "
        "'tensor<8xi32>'",
        "irfft of 5 bins gives a signal of length 1 to 8 (2 * (bins - 1)), "
        "got n = 9",
        "stft needs 1 <= frame length <= 5 (the signal length) and hop >= 1, "
        "got frame length 6 and hop 1",
        "fftfreq needs n >= 1 and a finite positive sample spacing, got n = "
        "0"})
    EXPECT_NE(diags.messages.find(message), std::string::npos)
        << diags.messages;
}

TEST_F(GraphBuilderTest, RegionBodyErrorsDoNotLeaveHalfBuiltOps) {
  CapturedDiagnostics diags(context);
  GraphBuilder g(&context, "bad_body");
  Value x = g.input("x", {4}, g.f32());
  Value w = g.input("w", {3, 3}, g.f32());
  Value y = g.scan(x, 3, [&](ValueRange a) {
    return SmallVector<Value>{g.matmul(a[0], w)};
  });
  EXPECT_FALSE(y);
  EXPECT_TRUE(g.hasErrors());
  EXPECT_NE(diags.messages.find("lhs must have rank >= 2"), std::string::npos)
      << diags.messages;
  // The scan was erased with its body; the function holds no rlx op.
  EXPECT_EQ(countOps(g.getFunction(), "rlx.scan"), 0);
  // A body that reads a value from outside its isolated region is the
  // scan verifier's to report.
  GraphBuilder h(&context, "captures");
  Value v = h.input("v", {4}, h.f32());
  Value bias = h.input("bias", {4}, h.f32());
  EXPECT_FALSE(h.scan(v, 2, [&](ValueRange a) {
    return SmallVector<Value>{h.add(a[0], bias)};
  }));
  EXPECT_NE(diags.messages.find("'rlx.binary' op using value defined "
                                "outside the region"),
            std::string::npos)
      << diags.messages;
}

} // namespace
