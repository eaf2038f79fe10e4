//===- TrainingSteps.cpp - running a training step repeatedly -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/TrainingSteps.h"

#include <chrono>
#include <cstring>

using namespace rlxrt;

llvm::Expected<std::vector<ParamFeedback>>
rlxrt::findParamFeedback(const GraphSignature &signature) {
  std::vector<ParamFeedback> feedback;
  for (size_t i = 0; i < signature.results.size(); ++i) {
    const TensorSpec &result = signature.results[i];
    if (result.param.empty())
      continue;
    std::string what = "output_" + std::to_string(i) + " of @" +
                       signature.name + " (rlx.param = \"" + result.param +
                       "\")";
    std::optional<size_t> argument = signature.findArgumentIndex(result.param);
    if (!argument || !signature.arguments[*argument].isParamOrState())
      return llvm::createStringError(
          what +
          " names no parameter argument to feed back into "
          "(arguments: " +
          signature.argumentNames() + ")");
    const TensorSpec &spec = signature.arguments[*argument];
    if (spec.dtype != result.dtype || spec.shape != result.shape)
      return llvm::createStringError(what + " is " + result.describe() +
                                     ", but parameter '" + spec.name + "' is " +
                                     spec.describe());
    feedback.push_back({i, *argument});
  }
  if (feedback.empty())
    return llvm::createStringError(
        "@" + signature.name +
        " has no result marked {rlx.param = \"<name>\"} to feed back; "
        "training steps come from rlx-autodiff with optimizer=sgd or adam "
        "(@<f>_train_step)");
  return feedback;
}

bool rlxrt::isOptimizerState(const GraphSignature &signature, size_t index) {
  const TensorSpec &spec = signature.arguments[index];
  if (spec.kind != TensorSpec::Kind::Param)
    return false;
  if (spec.name == "adam.step")
    return true;
  llvm::StringRef name = spec.name;
  for (llvm::StringRef suffix : {".momentum", ".adam_m", ".adam_v"}) {
    if (!name.consume_back(suffix))
      continue;
    const TensorSpec *param = signature.findArgument(name);
    return param && param->kind == TensorSpec::Kind::Param;
  }
  return false;
}

llvm::Expected<BatchedArgument>
rlxrt::makeBatchedArgument(const GraphSignature &signature,
                           llvm::StringRef name, HostTensor batches,
                           unsigned steps, llvm::StringRef source) {
  std::optional<size_t> argument = signature.findArgumentIndex(name);
  if (!argument)
    return llvm::createStringError(
        "batched input '" + name + "' is not an argument of @" +
        signature.name + " (arguments: " + signature.argumentNames() + ")");
  const TensorSpec &spec = signature.arguments[*argument];
  const std::vector<int64_t> &shape = batches.shape();
  bool sliceMatches =
      batches.dtype() == spec.dtype && !shape.empty() &&
      std::vector<int64_t>(shape.begin() + 1, shape.end()) == spec.shape;
  if (!sliceMatches) {
    std::vector<int64_t> expected = spec.shape;
    expected.insert(expected.begin(), steps);
    return llvm::createStringError(
        "batched input '" + name + "' from '" + source + "' is " +
        batches.describe() + "; its leading axis indexes the step, so the " +
        "graph expects " + formatDims(expected) + " " + dtypeName(spec.dtype) +
        " (or more slices)");
  }
  if (shape.front() < static_cast<int64_t>(steps))
    return llvm::createStringError(
        "batched input '" + name + "' from '" + source + "' has " +
        std::to_string(shape.front()) + " slices, fewer than the " +
        std::to_string(steps) + " steps");
  return BatchedArgument{*argument, std::move(batches)};
}

/// Copies slice `step` of `batched`'s batches into `argument`.
static void loadSlice(HostTensor &argument, const BatchedArgument &batched,
                      unsigned step) {
  size_t bytes = argument.sizeInBytes();
  std::memcpy(argument.data(),
              static_cast<const char *>(batched.batches.data()) + step * bytes,
              bytes);
}

/// runSteps through the graph's own steps entry: one call, with a plan of
/// the feedback, the batches and the outputs afterStep reads.
static llvm::Expected<StepResult> runOwnSteps(
    const CompiledGraph &graph, llvm::MutableArrayRef<HostTensor> arguments,
    llvm::MutableArrayRef<HostTensor> outputs, const StepOptions &options,
    llvm::ArrayRef<ParamFeedback> feedback) {
  std::vector<int32_t> feedbackOutputs, feedbackArguments, batchedArguments,
      watchedOutputs;
  std::vector<const void *> batchedData;
  for (const ParamFeedback &pair : feedback) {
    feedbackOutputs.push_back(pair.result);
    feedbackArguments.push_back(pair.argument);
  }
  for (const BatchedArgument &batched : options.batched) {
    batchedArguments.push_back(batched.argument);
    batchedData.push_back(batched.batches.data());
  }
  if (options.afterStep) {
    if (options.watchedOutputs.empty())
      for (size_t i = 0; i < outputs.size(); ++i)
        watchedOutputs.push_back(i);
    for (size_t i : options.watchedOutputs)
      watchedOutputs.push_back(i);
  }
  // Each step's time runs from the end of the last to the runtime's call
  // after it (the step's outputs read back); the callback's own time is
  // not the graph's.
  using Clock = std::chrono::steady_clock;
  struct Context {
    const StepOptions &options;
    llvm::ArrayRef<HostTensor> outputs;
    Clock::time_point lastEnd;
    std::vector<double> stepMs;
  } context{options, outputs, Clock::now(), {}};
  rlx_graph_step_plan plan = {};
  plan.steps = options.steps;
  plan.feedbackCount = feedbackOutputs.size();
  plan.feedbackOutputs = feedbackOutputs.data();
  plan.feedbackArguments = feedbackArguments.data();
  plan.batchedCount = batchedArguments.size();
  plan.batchedArguments = batchedArguments.data();
  plan.batchedData = batchedData.data();
  plan.watchedCount = watchedOutputs.size();
  plan.watchedOutputs = watchedOutputs.data();
  plan.afterStep = [](void *opaque, int32_t step) {
    auto *context = static_cast<Context *>(opaque);
    context->stepMs.push_back(std::chrono::duration<double, std::milli>(
                                  Clock::now() - context->lastEnd)
                                  .count());
    if (context->options.afterStep)
      context->options.afterStep(step, context->outputs);
    context->lastEnd = Clock::now();
  };
  plan.context = &context;
  context.lastEnd = Clock::now();
  if (llvm::Error error = graph.runOwnSteps(arguments, outputs, plan))
    return std::move(error);
  StepResult result;
  result.steps = options.steps;
  result.stepMs = std::move(context.stepMs);
  for (double ms : result.stepMs)
    result.totalMs += ms;
  // As the host loop leaves them: each batched argument holds its last
  // slice.
  if (options.steps > 0)
    for (const BatchedArgument &batched : options.batched)
      loadSlice(arguments[batched.argument], batched, options.steps - 1);
  return result;
}

llvm::Expected<StepResult> rlxrt::runSteps(
    const CompiledGraph &graph, llvm::MutableArrayRef<HostTensor> arguments,
    llvm::MutableArrayRef<HostTensor> outputs, const StepOptions &options) {
  llvm::Expected<std::vector<ParamFeedback>> feedback =
      findParamFeedback(graph.getSignature());
  if (!feedback)
    return feedback.takeError();
  for (size_t i : options.watchedOutputs)
    if (i >= outputs.size())
      return llvm::createStringError(
          "watched output " + std::to_string(i) + " of @" +
          graph.getSignature().name + ", which has " +
          std::to_string(outputs.size()) + " outputs");
  if (graph.hasOwnSteps())
    return runOwnSteps(graph, arguments, outputs, options, *feedback);
  StepResult result;
  for (unsigned step = 0; step < options.steps; ++step) {
    for (const BatchedArgument &batched : options.batched)
      loadSlice(arguments[batched.argument], batched, step);
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error error = graph.run(arguments, outputs))
      return std::move(error);
    result.stepMs.push_back(std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - start)
                                .count());
    result.totalMs += result.stepMs.back();
    ++result.steps;
    if (options.afterStep)
      options.afterStep(step, outputs);
    // Copied rather than swapped: the output keeps the step's result for
    // the caller, and the next run overwrites it in full anyway.
    for (const ParamFeedback &pair : *feedback)
      std::memcpy(arguments[pair.argument].data(), outputs[pair.result].data(),
                  outputs[pair.result].sizeInBytes());
  }
  return result;
}
