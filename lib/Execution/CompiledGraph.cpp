//===- CompiledGraph.cpp - a graph ready to run on host tensors -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/CompiledGraph.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include <dlfcn.h>

using namespace rlxrt;

static std::vector<const void *>
tensorData(llvm::ArrayRef<const HostTensor *> tensors) {
  std::vector<const void *> data;
  for (const HostTensor *tensor : tensors)
    data.push_back(tensor->data());
  return data;
}

static std::vector<const std::vector<int64_t> *>
tensorShapes(llvm::ArrayRef<const HostTensor *> tensors) {
  std::vector<const std::vector<int64_t> *> shapes;
  for (const HostTensor *tensor : tensors)
    shapes.push_back(&tensor->shape());
  return shapes;
}

MemRefDescriptors::MemRefDescriptors(llvm::ArrayRef<const HostTensor *> tensors)
    : MemRefDescriptors(tensorData(tensors), tensorShapes(tensors)) {}

MemRefDescriptors::MemRefDescriptors(
    llvm::ArrayRef<const void *> data,
    llvm::ArrayRef<const std::vector<int64_t> *> shapes) {
  for (auto [buffer, shapePtr] : llvm::zip_equal(data, shapes)) {
    const std::vector<int64_t> &shape = *shapePtr;
    std::vector<int64_t> desc(3 + 2 * shape.size());
    // The graph writes outputs through the same kind of descriptor it reads
    // arguments from; constness is the caller's contract, not the ABI's.
    desc[0] = desc[1] = reinterpret_cast<int64_t>(buffer);
    desc[2] = 0;
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      desc[3 + d] = shape[d];
      desc[3 + shape.size() + d] = stride;
      stride *= shape[d];
    }
    descriptors.push_back(std::move(desc));
  }
  for (std::vector<int64_t> &desc : descriptors)
    pointers.push_back(desc.data());
}

CompiledGraph::CompiledGraph(GraphSignature signature, GraphRunFn run,
                             std::shared_ptr<void> code)
    : signature(std::move(signature)), runFn(run), code(std::move(code)) {}

llvm::Expected<std::unique_ptr<CompiledGraph>>
CompiledGraph::load(llvm::StringRef path) {
  std::string pathText = path.str();
  // Never closed: unloading the graph could unload its runtime while the
  // runtime's worker threads still run.
  void *handle = dlopen(pathText.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return llvm::createStringError("cannot load '" + path + "': " + dlerror());
  auto *text =
      static_cast<const char *>(dlsym(handle, kGraphSignatureSymbol.data()));
  auto run =
      reinterpret_cast<GraphRunFn>(dlsym(handle, kGraphRunSymbol.data()));
  if (!text || !run)
    return llvm::createStringError(
        "'" + path + "' is not a compiled rlx graph (no " + kGraphRunSymbol +
        " / " + kGraphSignatureSymbol + ")");
  llvm::Expected<GraphSignature> signature = GraphSignature::parse(text);
  if (!signature)
    return signature.takeError();
  if (auto ready = reinterpret_cast<GraphReadyFn>(
          dlsym(handle, kGraphReadySymbol.data()))) {
    char reason[512] = {0};
    if (!ready(reason, sizeof(reason)))
      return llvm::createStringError("cannot run '" + path + "': " + reason);
  }
  auto graph = std::make_unique<CompiledGraph>(std::move(*signature), run,
                                               /*code=*/nullptr);
  graph->setBenchFunction(
      reinterpret_cast<GraphBenchFn>(dlsym(handle, kGraphBenchSymbol.data())));
  // Found in the library's dependencies too: its target's runtime.
  graph->bindBufferCounters(
      [&](llvm::StringRef symbol) { return dlsym(handle, symbol.data()); });
  graph->library = handle;
  graph->libraryPath = pathText;
  return graph;
}

llvm::Error CompiledGraph::bindLibraryProfile() {
  const char *lines = library ? static_cast<const char *>(dlsym(
                                    library, kGraphProfileLabelsSymbol.data()))
                              : nullptr;
  if (!lines)
    return llvm::createStringError(
        "'" + libraryPath +
        "' has no per-op timers (compile it with --profile; graphs for the "
        "cuda target always have them)");
  std::vector<std::string> labels;
  for (llvm::StringRef rest = lines; !rest.empty();) {
    auto [line, tail] = rest.split('\n');
    labels.push_back(line.str());
    rest = tail;
  }
  llvm::Expected<ProfileTimers> timers = bindProfileTimers(
      std::move(labels),
      [&](llvm::StringRef symbol) { return dlsym(library, symbol.data()); },
      "the runtime of '" + libraryPath + "'");
  if (!timers)
    return timers.takeError();
  setProfileTimers(std::move(*timers));
  return llvm::Error::success();
}

llvm::Error
CompiledGraph::checkArguments(llvm::ArrayRef<HostTensor> arguments) const {
  if (arguments.size() != signature.arguments.size())
    return llvm::createStringError("@" + signature.name + " takes " +
                                   std::to_string(signature.arguments.size()) +
                                   " arguments (" + signature.argumentNames() +
                                   "), got " +
                                   std::to_string(arguments.size()));
  for (auto [spec, tensor] : llvm::zip_equal(signature.arguments, arguments))
    if (llvm::Error error = spec.checkMatches(tensor))
      return error;
  return llvm::Error::success();
}

llvm::Error
CompiledGraph::checkOutputs(llvm::ArrayRef<HostTensor> outputs) const {
  if (outputs.size() != signature.results.size())
    return llvm::createStringError(
        "@" + signature.name + " has " +
        std::to_string(signature.results.size()) + " outputs, got " +
        std::to_string(outputs.size()) + " output tensors");
  for (auto [spec, tensor] : llvm::zip_equal(signature.results, outputs))
    if (llvm::Error error = spec.checkMatches(tensor))
      return error;
  return llvm::Error::success();
}

std::vector<HostTensor> CompiledGraph::allocateOutputs() const {
  std::vector<HostTensor> outputs;
  for (const TensorSpec &spec : signature.results)
    outputs.emplace_back(spec.dtype, spec.shape);
  return outputs;
}

MemRefDescriptors
CompiledGraph::describe(llvm::ArrayRef<HostTensor> arguments,
                        llvm::ArrayRef<HostTensor> outputs) const {
  std::vector<const HostTensor *> tensors;
  for (const HostTensor &tensor : arguments)
    tensors.push_back(&tensor);
  for (const HostTensor &tensor : outputs)
    tensors.push_back(&tensor);
  return MemRefDescriptors(tensors);
}

llvm::Expected<std::vector<HostTensor>>
CompiledGraph::run(llvm::ArrayRef<HostTensor> arguments) const {
  std::vector<HostTensor> outputs = allocateOutputs();
  if (llvm::Error error = run(arguments, outputs))
    return std::move(error);
  return outputs;
}

llvm::Error
CompiledGraph::run(llvm::ArrayRef<HostTensor> arguments,
                   llvm::MutableArrayRef<HostTensor> outputs) const {
  if (llvm::Error error = checkArguments(arguments))
    return error;
  if (llvm::Error error = checkOutputs(outputs))
    return error;
  runFn(describe(arguments, outputs).get());
  return llvm::Error::success();
}

llvm::Expected<BenchResult>
CompiledGraph::bench(llvm::ArrayRef<HostTensor> arguments,
                     llvm::MutableArrayRef<HostTensor> outputs,
                     const BenchOptions &options) const {
  if (llvm::Error error = checkArguments(arguments))
    return std::move(error);
  if (llvm::Error error = checkOutputs(outputs))
    return std::move(error);
  // Described once, so the timed region is the call alone.
  MemRefDescriptors descriptors = describe(arguments, outputs);
  return benchDescriptors(descriptors, options);
}

llvm::Error CompiledGraph::checkBufferCounts(size_t numArguments,
                                             size_t numOutputs) const {
  if (numArguments != signature.arguments.size())
    return llvm::createStringError("@" + signature.name + " takes " +
                                   std::to_string(signature.arguments.size()) +
                                   " arguments (" + signature.argumentNames() +
                                   "), got " + std::to_string(numArguments));
  if (numOutputs != signature.results.size())
    return llvm::createStringError(
        "@" + signature.name + " has " +
        std::to_string(signature.results.size()) + " outputs, got " +
        std::to_string(numOutputs) + " output buffers");
  return llvm::Error::success();
}

MemRefDescriptors
CompiledGraph::describeBuffers(llvm::ArrayRef<const void *> arguments,
                               llvm::ArrayRef<void *> outputs) const {
  std::vector<const void *> data(arguments.begin(), arguments.end());
  data.insert(data.end(), outputs.begin(), outputs.end());
  std::vector<const std::vector<int64_t> *> shapes;
  for (const TensorSpec &spec : signature.arguments)
    shapes.push_back(&spec.shape);
  for (const TensorSpec &spec : signature.results)
    shapes.push_back(&spec.shape);
  return MemRefDescriptors(data, shapes);
}

llvm::Error CompiledGraph::runBuffers(llvm::ArrayRef<const void *> arguments,
                                      llvm::ArrayRef<void *> outputs) const {
  if (llvm::Error error = checkBufferCounts(arguments.size(), outputs.size()))
    return error;
  runFn(describeBuffers(arguments, outputs).get());
  return llvm::Error::success();
}

llvm::Expected<BenchResult>
CompiledGraph::benchBuffers(llvm::ArrayRef<const void *> arguments,
                            llvm::ArrayRef<void *> outputs,
                            const BenchOptions &options) const {
  if (llvm::Error error = checkBufferCounts(arguments.size(), outputs.size()))
    return std::move(error);
  MemRefDescriptors descriptors = describeBuffers(arguments, outputs);
  return benchDescriptors(descriptors, options);
}

BenchResult CompiledGraph::benchDescriptors(MemRefDescriptors &descriptors,
                                            const BenchOptions &options) const {
  unsigned timedRuns = std::max(1u, options.timedRuns);
  std::vector<double> times;
  if (benchFn) {
    std::vector<float> runMs(timedRuns);
    unsigned warmUpRuns = options.warmUpRuns;
    if (profileTimers && warmUpRuns > 0) {
      // The target's bench runs its warm-ups itself; the per-op timers must
      // not count them (the first run pays for loading modules and creating
      // library handles), so they run in a call of their own first.
      benchFn(descriptors.get(), warmUpRuns - 1, 1, runMs.data());
      warmUpRuns = 0;
    }
    resetProfile();
    if (resetPeakFn)
      resetPeakFn();
    benchFn(descriptors.get(), warmUpRuns, timedRuns, runMs.data());
    times.assign(runMs.begin(), runMs.end());
  } else {
    for (unsigned i = 0; i < options.warmUpRuns; ++i)
      runFn(descriptors.get());
    resetProfile();
    if (resetPeakFn)
      resetPeakFn();
    for (unsigned i = 0; i < timedRuns; ++i) {
      auto start = std::chrono::steady_clock::now();
      runFn(descriptors.get());
      times.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    }
  }
  BenchResult result;
  if (peakFn)
    result.peakBytes = peakFn();
  result.runs = times.size();
  result.totalMs = std::accumulate(times.begin(), times.end(), 0.0);
  std::sort(times.begin(), times.end());
  result.medianMs = times[times.size() / 2];
  result.p90Ms = times[std::min(times.size() - 1, times.size() * 9 / 10)];
  result.minMs = times.front();
  return result;
}

std::vector<OpTime> CompiledGraph::readProfile() const {
  return profileTimers ? rlxrt::readProfile(*profileTimers)
                       : std::vector<OpTime>();
}

void CompiledGraph::resetProfile() const {
  if (profileTimers)
    profileTimers->reset();
}
