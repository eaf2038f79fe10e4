//===- ExecutionTest.cpp - compile and run graphs through the library -----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/ExecutionTarget.h"
#include "rlx/Execution/HostCode.h"
#include "rlx/Execution/Tensors.h"
#include "rlx/Execution/TrainingSteps.h"
#include "rlx/InitRLX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace rlxrt;

namespace {

/// relu(x @ w) + b and, as a second output, x + x.
const char *kGraph = R"mlir(
func.func @mlp(%x: tensor<2x3xf32> {rlx.input = "x"},
               %w: tensor<3x4xf32> {rlx.param = "w"},
               %b: tensor<4xf32> {rlx.param = "b"})
    -> (tensor<2x4xf32>, tensor<2x3xf32>) {
  %0 = rlx.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32>
  %1 = rlx.activation relu %0 : tensor<2x4xf32>
  %2 = rlx.binary add %1, %b : tensor<2x4xf32>, tensor<4xf32>
  %3 = rlx.binary add %x, %x : tensor<2x3xf32>, tensor<2x3xf32>
  return %2, %3 : tensor<2x4xf32>, tensor<2x3xf32>
}
)mlir";

/// Fails the test with the error's message.
template <typename T> T take(llvm::Expected<T> value) {
  if (!value) {
    ADD_FAILURE() << llvm::toString(value.takeError());
    return T();
  }
  return std::move(*value);
}

std::string errorMessage(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : "no error";
}

HostTensor tensorOf(std::vector<int64_t> shape, std::vector<float> values) {
  HostTensor tensor(DType::F32, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    tensor.dataAs<float>()[i] = values[i];
  return tensor;
}

class ExecutionTest : public ::testing::Test {
protected:
  ExecutionTest() {
    DialectRegistry registry;
    rlx::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    rlx::registerAllExecutionTargets();
    options.runtimeLibrary = RLX_CPU_RUNTIME_PATH;
    module = parseSourceString<ModuleOp>(kGraph, &context);
    arguments.push_back(tensorOf({2, 3}, {1, -2, 3, 0.5f, 1, -1}));
    arguments.push_back(
        tensorOf({3, 4}, {1, 0, -1, 2, 0, 1, 1, -1, 2, -1, 0, 1}));
    arguments.push_back(tensorOf({4}, {0.5f, -0.5f, 0.25f, 0}));
  }

  const ExecutionTarget &cpu() { return *take(lookupExecutionTarget("cpu")); }

  /// The outputs of @mlp, computed here.
  void expectMlpOutputs(const std::vector<HostTensor> &outputs) {
    ASSERT_EQ(outputs.size(), 2u);
    const float *x = arguments[0].dataAs<float>();
    const float *w = arguments[1].dataAs<float>();
    const float *b = arguments[2].dataAs<float>();
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) {
        float sum = 0;
        for (int k = 0; k < 3; ++k)
          sum += x[i * 3 + k] * w[k * 4 + j];
        EXPECT_FLOAT_EQ(outputs[0].dataAs<float>()[i * 4 + j],
                        std::max(sum, 0.0f) + b[j])
            << "output_0[" << i << ", " << j << "]";
      }
    for (int i = 0; i < 6; ++i)
      EXPECT_FLOAT_EQ(outputs[1].dataAs<float>()[i], 2 * x[i]);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  CompileOptions options;
  std::vector<HostTensor> arguments;
};

TEST_F(ExecutionTest, SignatureFromModule) {
  ASSERT_TRUE(module);
  GraphSignature signature = take(GraphSignature::fromModule(*module, ""));
  EXPECT_EQ(signature.name, "mlp");
  ASSERT_EQ(signature.arguments.size(), 3u);
  EXPECT_EQ(signature.arguments[0].name, "x");
  EXPECT_EQ(signature.arguments[0].kind, TensorSpec::Kind::Input);
  EXPECT_EQ(signature.arguments[1].name, "w");
  EXPECT_EQ(signature.arguments[1].kind, TensorSpec::Kind::Param);
  EXPECT_EQ(signature.arguments[1].shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(signature.arguments[2].describe(), "[4] f32");
  ASSERT_EQ(signature.results.size(), 2u);
  EXPECT_EQ(signature.results[1].name, "output_1");
  EXPECT_EQ(signature.results[1].kind, TensorSpec::Kind::Result);
  EXPECT_EQ(signature.results[1].dtype, DType::F32);
  EXPECT_EQ(signature.flops, 2.0 * 2 * 4 * 3);

  // The text form embedded in shared libraries reads back the same.
  GraphSignature parsed = take(GraphSignature::parse(signature.serialize()));
  EXPECT_EQ(parsed.serialize(), signature.serialize());
  EXPECT_EQ(
      errorMessage(GraphSignature::fromModule(*module, "nope").takeError()),
      "no graph function @nope in the module");
}

TEST_F(ExecutionTest, CompileAndRunOnCPU) {
  ASSERT_TRUE(module);
  auto graph = take(cpu().compile(*module, "mlp", options));
  ASSERT_TRUE(graph);
  EXPECT_EQ(graph->getSignature().argumentNames(), "x, w, b");
  expectMlpOutputs(take(graph->run(arguments)));

  BenchResult bench = take(graph->bench(
      arguments, take(graph->allocateOutputs()), BenchOptions{1, 5}));
  EXPECT_EQ(bench.runs, 5u);
  EXPECT_LE(bench.minMs, bench.medianMs);
  EXPECT_LE(bench.medianMs, bench.p90Ms);
  // The CPU runtime counts its buffers; this graph needs none.
  EXPECT_EQ(bench.peakBytes, std::optional<int64_t>(0));
  EXPECT_FALSE(graph->isProfiled());
}

TEST_F(ExecutionTest, WrongArgumentsNameTheTensor) {
  ASSERT_TRUE(module);
  auto graph = take(cpu().compile(*module, "", options));
  ASSERT_TRUE(graph);
  arguments[1] = HostTensor(DType::F32, {4, 3});
  EXPECT_EQ(errorMessage(graph->run(arguments).takeError()),
            "tensor 'w' is [4, 3] f32, the graph expects [3, 4] f32");
  arguments[1] = HostTensor(DType::F64, {3, 4});
  EXPECT_EQ(errorMessage(graph->run(arguments).takeError()),
            "tensor 'w' is [3, 4] f64, the graph expects [3, 4] f32");
  arguments.pop_back();
  EXPECT_EQ(errorMessage(graph->run(arguments).takeError()),
            "@mlp takes 3 arguments (x, w, b), got 2");
}

TEST_F(ExecutionTest, SharedLibraryRunsLikeTheJIT) {
  ASSERT_TRUE(module);
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("rlx-exec-test", dir));
  llvm::SmallString<128> library(dir);
  llvm::sys::path::append(library, "mlp.so");
  GraphSignature written =
      take(cpu().emitSharedLibrary(*module, "mlp", library, options));
  EXPECT_EQ(written.name, "mlp");

  auto graph = take(CompiledGraph::load(library));
  ASSERT_TRUE(graph);
  EXPECT_EQ(graph->getSignature().serialize(), written.serialize());
  expectMlpOutputs(take(graph->run(arguments)));
  llvm::sys::fs::remove_directories(dir);
}

TEST_F(ExecutionTest, ProfiledGraphCountsEachOp) {
  ASSERT_TRUE(module);
  options.profile = true;
  auto graph = take(cpu().compile(*module, "mlp", options));
  ASSERT_TRUE(graph);
  ASSERT_TRUE(graph->isProfiled());
  take(graph->bench(arguments, take(graph->allocateOutputs()),
                    BenchOptions{2, 3}));
  std::vector<OpTime> times = graph->readProfile();
  ASSERT_FALSE(times.empty());
  for (const OpTime &time : times)
    EXPECT_EQ(time.calls, 3) << time.label;
}

TEST_F(ExecutionTest, UnknownTarget) {
  EXPECT_EQ(errorMessage(lookupExecutionTarget("tpu").takeError()),
            "unknown target 'tpu' (available: cpu, cuda)");
  std::vector<std::string> names = getExecutionTargetNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "cpu"), names.end());
}

/// A training step of loss = sum(w * x), one SGD step with lr 0.5 and the
/// step count as state.
const char *kTrainStep = R"mlir(
func.func @step(%x: tensor<3xf32> {rlx.input = "x"},
                %w: tensor<3xf32> {rlx.param = "w"},
                %n: tensor<f32> {rlx.param = "n"})
    -> (tensor<f32>, tensor<3xf32> {rlx.param = "w"},
        tensor<f32> {rlx.param = "n"}) {
  %0 = rlx.binary mul %w, %x : tensor<3xf32>, tensor<3xf32>
  %loss = rlx.reduce sum %0 axes = [0] : tensor<3xf32>
  %half = rlx.constant dense<0.5> : tensor<f32>
  %1 = rlx.binary mul %x, %half : tensor<3xf32>, tensor<f32>
  %w1 = rlx.binary sub %w, %1 : tensor<3xf32>, tensor<3xf32>
  %one = rlx.constant dense<1.0> : tensor<f32>
  %n1 = rlx.binary add %n, %one : tensor<f32>, tensor<f32>
  return %loss, %w1, %n1 : tensor<f32>, tensor<3xf32>, tensor<f32>
}
)mlir";

TEST_F(ExecutionTest, StepsFeedParametersBack) {
  OwningOpRef<ModuleOp> step =
      parseSourceString<ModuleOp>(kTrainStep, &context);
  ASSERT_TRUE(step);
  GraphSignature signature = take(GraphSignature::fromModule(*step, ""));
  ASSERT_EQ(signature.results.size(), 3u);
  EXPECT_EQ(signature.results[0].param, "");
  EXPECT_EQ(signature.results[1].param, "w");
  EXPECT_EQ(signature.results[2].param, "n");
  // The names survive the text form, rank 0 included.
  GraphSignature parsed = take(GraphSignature::parse(signature.serialize()));
  EXPECT_EQ(parsed.results[2].param, "n");
  EXPECT_EQ(parsed.serialize(), signature.serialize());

  auto graph = take(cpu().compile(*step, "", options));
  ASSERT_TRUE(graph);
  // x is batched: step s sees [s, s, s]; w starts at [1, 2, 3].
  HostTensor batches = tensorOf({4, 3}, {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3});
  StepOptions stepOptions;
  stepOptions.steps = 3;
  stepOptions.batched.push_back(take(makeBatchedArgument(
      graph->getSignature(), "x", std::move(batches), 3, "b.npy")));
  std::vector<float> losses;
  stepOptions.afterStep = [&](unsigned, llvm::ArrayRef<HostTensor> outputs) {
    losses.push_back(outputs[0].dataAs<float>()[0]);
  };
  std::vector<HostTensor> stepArguments;
  stepArguments.push_back(HostTensor(DType::F32, {3}));
  stepArguments.push_back(tensorOf({3}, {1, 2, 3}));
  stepArguments.push_back(HostTensor(DType::F32, {}));
  std::vector<HostTensor> outputs = take(graph->allocateOutputs());
  StepResult result =
      take(runSteps(*graph, stepArguments, outputs, stepOptions));
  EXPECT_EQ(result.steps, 3u);
  // w after the steps: [1, 2, 3] - 0.5 * (0 + 1 + 2).
  EXPECT_EQ(losses, (std::vector<float>{0, 6, 2 * (6 - 1.5f)}));
  EXPECT_FLOAT_EQ(stepArguments[1].dataAs<float>()[0], -0.5f);
  EXPECT_FLOAT_EQ(stepArguments[2].dataAs<float>()[0], 3);
  EXPECT_FLOAT_EQ(outputs[2].dataAs<float>()[0], 3);

  EXPECT_EQ(errorMessage(makeBatchedArgument(graph->getSignature(), "x",
                                             tensorOf({2, 3}, {}), 3, "b.npy")
                             .takeError()),
            "batched input 'x' from 'b.npy' has 2 slices, fewer than the 3 "
            "steps");
  EXPECT_EQ(errorMessage(makeBatchedArgument(graph->getSignature(), "x",
                                             tensorOf({3, 2}, {}), 3, "b.npy")
                             .takeError()),
            "batched input 'x' from 'b.npy' is [3, 2] f32; its leading axis "
            "indexes the step, so the graph expects [3, 3] f32 (or more "
            "slices)");
}

TEST(ExecutionStepsTest, FeedbackNeedsMatchingParameters) {
  GraphSignature signature;
  signature.name = "f";
  signature.arguments.push_back(
      {"w", TensorSpec::Kind::Param, DType::F32, {2}});
  signature.arguments.push_back(
      {"x", TensorSpec::Kind::Input, DType::F32, {2}});
  signature.results.push_back(
      {"output_0", TensorSpec::Kind::Result, DType::F32, {}});
  EXPECT_EQ(errorMessage(findParamFeedback(signature).takeError()),
            "@f has no result marked {rlx.param = \"<name>\"} to feed back; "
            "training steps come from rlx-autodiff with optimizer=sgd or adam "
            "(@<f>_train_step)");
  signature.results.push_back(
      {"output_1", TensorSpec::Kind::Result, DType::F32, {2}, "x"});
  EXPECT_EQ(errorMessage(findParamFeedback(signature).takeError()),
            "output_1 of @f (rlx.param = \"x\") names no parameter argument "
            "to feed back into (arguments: w, x)");
  signature.results[1].param = "w";
  signature.results[1].shape = {3};
  EXPECT_EQ(errorMessage(findParamFeedback(signature).takeError()),
            "output_1 of @f (rlx.param = \"w\") is [3] f32, but parameter "
            "'w' is [2] f32");
  signature.results[1].shape = {2};
  std::vector<ParamFeedback> feedback = take(findParamFeedback(signature));
  ASSERT_EQ(feedback.size(), 1u);
  EXPECT_EQ(feedback[0].result, 1u);
  EXPECT_EQ(feedback[0].argument, 0u);

  signature.arguments.push_back(
      {"w.adam_m", TensorSpec::Kind::Param, DType::F32, {2}});
  signature.arguments.push_back(
      {"x.momentum", TensorSpec::Kind::Param, DType::F32, {2}});
  signature.arguments.push_back(
      {"adam.step", TensorSpec::Kind::Param, DType::F32, {}});
  EXPECT_FALSE(isOptimizerState(signature, 0));
  EXPECT_TRUE(isOptimizerState(signature, 2));
  EXPECT_FALSE(isOptimizerState(signature, 3)); // x is no parameter
  EXPECT_TRUE(isOptimizerState(signature, 4));
}

TEST(ExecutionTensorsTest, RandomArgumentsAreSeededPerArgument) {
  GraphSignature signature;
  signature.arguments.push_back(
      {"a", TensorSpec::Kind::Input, DType::F32, {64}});
  signature.arguments.push_back(
      {"i", TensorSpec::Kind::Input, DType::I32, {64}});
  HostTensor a = take(randomArgument(signature, 0, 7));
  HostTensor again = take(randomTensor(signature.arguments[0], 7 * 1000003));
  HostTensor i = take(randomArgument(signature, 1, 7));
  for (int64_t k = 0; k < 64; ++k) {
    EXPECT_EQ(a.getAsDouble(k), again.getAsDouble(k));
    EXPECT_GE(a.getAsDouble(k), -1.0);
    EXPECT_LT(a.getAsDouble(k), 1.0);
    EXPECT_GE(i.getAsDouble(k), 0);
    EXPECT_LE(i.getAsDouble(k), 7);
  }
}

TEST(ExecutionTensorsTest, CompareWithinTolerances) {
  HostTensor out = tensorOf({3}, {1, 2, NAN});
  HostTensor ref = tensorOf({3}, {1, 2.1f, NAN});
  Comparison close = take(compareTensors(out, "y", ref, "r.npy", 0.1, 0));
  EXPECT_TRUE(close.ok());
  Comparison tight = take(compareTensors(out, "y", ref, "r.npy", 1e-3, 0));
  EXPECT_EQ(tight.mismatches, 1);
  std::string line;
  llvm::raw_string_ostream os(line);
  printComparison(os, "output_0", tight);
  EXPECT_EQ(line, "check output_0: max abs err 0.1, max rel err 0.0476, 1 of 3 "
                  "outside atol 0 + rtol 0.001: FAIL\n");
  EXPECT_EQ(errorMessage(compareTensors(out, "output_0", tensorOf({1}, {0}),
                                        "r.npy", 0, 0)
                             .takeError()),
            "reference 'r.npy' is [1] f32, output_0 is [3] f32");
}

TEST(ExecutionTensorsTest, NonFiniteReferencesMatchOnlyThemselves) {
  HostTensor ref = tensorOf({4}, {INFINITY, -INFINITY, NAN, 1});
  // An infinite reference scales the tolerance to infinity; it must still
  // take only the same infinity, and NaN only NaN.
  Comparison same =
      take(compareTensors(tensorOf({4}, {INFINITY, -INFINITY, NAN, 1}), "y",
                          ref, "r.npy", 1e-5, 1e-6));
  EXPECT_TRUE(same.ok());
  Comparison finite = take(compareTensors(tensorOf({4}, {1, -1, 0, 1}), "y",
                                          ref, "r.npy", 1e-5, 1e-6));
  EXPECT_EQ(finite.mismatches, 3);
  Comparison swapped =
      take(compareTensors(tensorOf({4}, {-INFINITY, INFINITY, INFINITY, NAN}),
                          "y", ref, "r.npy", 1e-5, 1e-6));
  EXPECT_EQ(swapped.mismatches, 4);
}

TEST(ExecutionTensorsTest, InvalidTolerancesAreErrors) {
  HostTensor t = tensorOf({1}, {1});
  EXPECT_EQ(errorMessage(checkTolerances(NAN, 0)),
            "rtol must be a finite number >= 0, got nan");
  EXPECT_EQ(errorMessage(checkTolerances(0, -1)),
            "atol must be a finite number >= 0, got -1");
  EXPECT_EQ(errorMessage(checkTolerances(0, INFINITY)),
            "atol must be a finite number >= 0, got inf");
  EXPECT_EQ(
      errorMessage(compareTensors(t, "y", t, "r.npy", NAN, 0).takeError()),
      "rtol must be a finite number >= 0, got nan");
}

TEST(ExecutionTensorsTest, ReferenceDTypeMustMatch) {
  HostTensor out = tensorOf({2}, {1, 2});
  HostTensor ref(DType::F64, {2});
  EXPECT_EQ(
      errorMessage(
          compareTensors(out, "output_0", ref, "r.npy", 0, 0).takeError()),
      "reference 'r.npy' is [2] f64, output_0 is [2] f32");
}

TEST(ExecutionTensorsTest, ComplexOutputsCompareBothParts) {
  HostTensor out(DType::C64, {2}), ref(DType::C64, {2});
  for (float *t : {out.dataAs<float>(), ref.dataAs<float>()}) {
    t[0] = 1; // 1 + 2i, 3 + 4i
    t[1] = 2;
    t[2] = 3;
    t[3] = 4;
  }
  EXPECT_TRUE(take(compareTensors(out, "y", ref, "r.npy", 0, 0)).ok());
  ref.dataAs<float>()[3] = 5; // Only an imaginary part differs.
  Comparison result = take(compareTensors(out, "y", ref, "r.npy", 0, 0));
  EXPECT_EQ(result.mismatches, 1);
  EXPECT_EQ(result.maxAbsError, 1);
}

/// Reports an error on the module but does not signal failure, as the
/// upstream affine vectorizer once did on strided memrefs.
struct ReportErrorButSucceed
    : public PassWrapper<ReportErrorButSucceed, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ReportErrorButSucceed)
  void runOnOperation() override {
    getOperation().emitError("reported, not signalled");
  }
};

TEST(ExecutionPipelineTest, AReportedErrorFailsTheCompile) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  int errorsSeen = 0;
  ScopedDiagnosticHandler count(&context, [&](Diagnostic &d) {
    errorsSeen += d.getSeverity() == DiagnosticSeverity::Error;
    return success();
  });
  PassManager clean(&context);
  EXPECT_TRUE(succeeded(runCompilePipeline(clean, *module)));

  PassManager plain(&context);
  plain.addPass(std::make_unique<ReportErrorButSucceed>());
  EXPECT_TRUE(succeeded(plain.run(*module)));
  PassManager checked(&context);
  checked.addPass(std::make_unique<ReportErrorButSucceed>());
  EXPECT_TRUE(failed(runCompilePipeline(checked, *module)));
  // The error still reached the handler installed before.
  EXPECT_EQ(errorsSeen, 2);
}

} // namespace
