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

llvm::Expected<StepResult> rlxrt::runSteps(
    const CompiledGraph &graph, llvm::MutableArrayRef<HostTensor> arguments,
    llvm::MutableArrayRef<HostTensor> outputs, const StepOptions &options) {
  llvm::Expected<std::vector<ParamFeedback>> feedback =
      findParamFeedback(graph.getSignature());
  if (!feedback)
    return feedback.takeError();
  StepResult result;
  for (unsigned step = 0; step < options.steps; ++step) {
    for (const BatchedArgument &batched : options.batched) {
      HostTensor &argument = arguments[batched.argument];
      size_t bytes = argument.sizeInBytes();
      std::memcpy(argument.data(),
                  static_cast<const char *>(batched.batches.data()) +
                      step * bytes,
                  bytes);
    }
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error error = graph.run(arguments, outputs))
      return std::move(error);
    result.totalMs += std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count();
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
