//===- GraphRunner.cpp - run a compiled graph on host tensors -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A graph compiled by rlx-cuda-pipeline takes device buffers. The graph
// entry of its library (`rlx_graph_run`, docs/abi.md) takes host buffers
// like every target's, and calls these functions with the graph's
// signature and its device-side entry: they copy the arguments to device
// buffers, run the graph on the calling thread's graph stream
// (GraphStream.h) and copy the outputs back. The signature gives every buffer's
// size, so nothing here depends on the graph.
//
// Runs after the first replay a CUDA graph captured from one run
// (CapturedRun): the whole graph is one launch.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/CUDARuntime.h"
#include "rlx/Runtime/GraphSteps.h"
#include "rlx/Runtime/HostTensor.h"

#include "DeviceAllocator.h"
#include "Driver.h"
#include "GraphStream.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

using namespace rlxrt::cuda;

namespace {

/// One argument or output of a graph, from its signature line.
struct BufferSpec {
  bool isOutput = false;
  size_t rank = 0;
  size_t bytes = 0;
};

/// Parses the signature's lines, `KIND NAME DTYPE DIMS [param=PARAM]` (KIND
/// input, parameter, state, argument or output, after the `graph` and
/// `flops` header lines) with
/// single spaces between fields and DIMS a comma-separated list (empty for
/// rank 0); a malformed line is fatal, naming it.
std::vector<BufferSpec> parseSignature(const char *caller,
                                       const char *signature) {
  std::vector<BufferSpec> specs;
  std::istringstream lines(signature);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::istringstream split(line);
    std::string field;
    while (std::getline(split, field, ' '))
      fields.push_back(field);
    if (fields.empty())
      continue;
    const std::string &kind = fields[0];
    auto malformed = [&](const std::string &why) {
      fatal(caller, "graph signature line '" + line + "': " + why);
    };
    // The header lines of GraphSignature::serialize; every other line is a
    // buffer, and one skipped would shift every later buffer onto the wrong
    // argument, so an unknown kind is an error.
    if (kind == "graph" || kind == "flops")
      continue;
    if (kind != "input" && kind != "parameter" && kind != "state" &&
        kind != "argument" && kind != "output")
      malformed("unknown kind '" + kind + "'");
    if (fields.size() < 3)
      malformed("expected KIND NAME DTYPE DIMS");
    std::optional<rlxrt::DType> type = rlxrt::parseDTypeName(fields[2]);
    if (!type)
      malformed("unknown dtype '" + fields[2] + "'");
    BufferSpec spec;
    spec.isOutput = kind == "output";
    size_t elements = 1;
    std::istringstream sizes(fields.size() > 3 ? fields[3] : "");
    std::string size;
    while (std::getline(sizes, size, ',')) {
      char *end = nullptr;
      unsigned long long dim = std::strtoull(size.c_str(), &end, 10);
      if (size.empty() || *end != '\0' ||
          (dim != 0 && elements > SIZE_MAX / dim))
        malformed("bad dim '" + size + "'");
      elements *= dim;
      ++spec.rank;
    }
    if (elements > SIZE_MAX / rlxrt::dtypeSize(*type))
      malformed("byte size overflows");
    spec.bytes = elements * rlxrt::dtypeSize(*type);
    specs.push_back(spec);
  }
  return specs;
}

/// The specs of `signature`, parsed once per graph.
const std::vector<BufferSpec> &specsOf(const char *caller,
                                       const char *signature) {
  static std::mutex mutex;
  static std::map<const char *, std::vector<BufferSpec>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(signature);
  if (it == cache.end())
    it = cache.emplace(signature, parseSignature(caller, signature)).first;
  return it->second;
}

/// The graph's buffers on the device: a device descriptor per host
/// descriptor, same shape, dense.
class DeviceBuffers {
public:
  DeviceBuffers(const Session &cu, const std::vector<BufferSpec> &specs,
                void **hostDescriptors, CUstream stream)
      : specs(specs), stream(stream) {
    for (size_t i = 0; i < specs.size(); ++i) {
      const BufferSpec &spec = specs[i];
      auto *hostFields = static_cast<int64_t *>(hostDescriptors[i]);
      std::vector<int64_t> fields(3 + 2 * spec.rank);
      std::memcpy(fields.data(), hostFields, fields.size() * sizeof(int64_t));
      // A zero-byte buffer still gets a distinct, valid pointer.
      void *device = allocateDevice(cu, spec.bytes ? spec.bytes : 1, stream);
      fields[0] = fields[1] = reinterpret_cast<int64_t>(device);
      fields[2] = 0;
      deviceFields.push_back(std::move(fields));
    }
    for (std::vector<int64_t> &fields : deviceFields)
      pointers.push_back(fields.data());
  }
  DeviceBuffers(const DeviceBuffers &) = delete;
  DeviceBuffers &operator=(const DeviceBuffers &) = delete;

  ~DeviceBuffers() {
    Session cu(__func__, Session::Kind::Release);
    if (cu.driverShutDown())
      return;
    for (std::vector<int64_t> &fields : deviceFields)
      freeMemory(cu, reinterpret_cast<void *>(fields[1]), stream);
  }

  void **descriptors() { return pointers.data(); }

  /// Whether `hostDescriptors` have the sizes and strides these buffers were
  /// made for.
  bool sameShapes(void **hostDescriptors) const {
    for (size_t i = 0; i < specs.size(); ++i) {
      auto *hostFields = static_cast<int64_t *>(hostDescriptors[i]);
      if (!std::equal(deviceFields[i].begin() + 3, deviceFields[i].end(),
                      hostFields + 3))
        return false;
    }
    return true;
  }

  void upload(const Session &cu, void **hostDescriptors) {
    for (size_t i = 0; i < specs.size(); ++i)
      if (!specs[i].isOutput)
        copyToDevice(cu, i, hostData(hostDescriptors, i));
  }

  void download(const Session &cu, void **hostDescriptors) {
    for (size_t i = 0; i < specs.size(); ++i)
      if (specs[i].isOutput)
        copyToHost(cu, hostDescriptors, i);
    cu.check(cu->cuStreamSynchronize(stream), "cuStreamSynchronize");
  }

  /// Stream-ordered copies of buffer `i`'s bytes (no wait).
  void copyToDevice(const Session &cu, size_t i, const void *host) {
    if (specs[i].bytes)
      cu.check(cu->cuMemcpyAsync(device(i), reinterpret_cast<CUdeviceptr>(host),
                                 specs[i].bytes, stream),
               "cuMemcpyAsync (argument to device)");
  }
  void copyToHost(const Session &cu, void **hostDescriptors, size_t i) {
    if (specs[i].bytes)
      cu.check(cu->cuMemcpyAsync(
                   reinterpret_cast<CUdeviceptr>(hostData(hostDescriptors, i)),
                   device(i), specs[i].bytes, stream),
               "cuMemcpyAsync (output to host)");
  }
  /// Buffer `from`'s bytes into buffer `to`, of the same size.
  void copyOnDevice(const Session &cu, size_t from, size_t to) {
    if (specs[from].bytes)
      cu.check(cu->cuMemcpyAsync(device(to), device(from), specs[from].bytes,
                                 stream),
               "cuMemcpyAsync (output to argument)");
  }

  CUdeviceptr device(size_t i) const {
    return static_cast<CUdeviceptr>(deviceFields[i][1]);
  }

private:
  /// Host data of buffer `i`: the aligned pointer plus the offset, which the
  /// ABI gives in elements; the byte size of an element is bytes/elements.
  char *hostData(void **hostDescriptors, size_t i) const {
    auto *fields = static_cast<int64_t *>(hostDescriptors[i]);
    size_t elements = 1;
    for (size_t d = 0; d < specs[i].rank; ++d)
      elements *= fields[3 + d];
    size_t elementBytes = elements ? specs[i].bytes / elements : 0;
    return reinterpret_cast<char *>(fields[1]) + fields[2] * elementBytes;
  }

  const std::vector<BufferSpec> &specs;
  CUstream stream;
  std::vector<std::vector<int64_t>> deviceFields;
  std::vector<void *> pointers;
};

using DeviceEntry = void (*)(void **);

/// Whether warmed-up runs replay a CUDA graph: unless RLX_CUDA_GRAPHS=0
/// (rlx-run --cuda-graphs=false); never while --profile records events
/// around each op, which a replay would not, nor under
/// CUDA_LAUNCH_BLOCKING=1, whose point is to fault at the launch of the op
/// named.
bool replayEnabled() {
  auto isSet = [](const char *name, const char *value) {
    const char *setting = std::getenv(name);
    return setting && std::strcmp(setting, value) == 0;
  };
  if (isSet("RLX_CUDA_GRAPHS", "0") || isSet("CUDA_LAUNCH_BLOCKING", "1"))
    return false;
  return !opProfileEnabled();
}

std::atomic<uint64_t> moduleUnloads{0};

/// One run of a graph's device entry captured as a CUDA graph on the thread's
/// graph stream, replayed with one launch. A graph run is a few dozen
/// kernels, copies and cuBLAS calls whose host-side cost (a few microseconds
/// each) exceeds their time on the GPU at small batches; a replay pays it
/// once. The capture binds the descriptors' device addresses, so replays run
/// on the same buffers, and the temporaries the entry allocates come from
/// the capture's own memory. `run` is the work captured: the device entry
/// on its descriptors, and for training steps the copies after it.
class CapturedRun {
public:
  CapturedRun(const Session &cu, const std::function<void()> &run,
              CUstream stream)
      : stream(stream), unloadsSeen(moduleUnloads.load()) {
    memory.begin(stream);
    // Relaxed: the entry's allocations may call cuMemAlloc, which the other
    // modes forbid on a capturing thread.
    cu.check(cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED),
             "cuStreamBeginCapture");
    run();
    CUgraph graph = nullptr;
    CUresult ended = cu->cuStreamEndCapture(stream, &graph);
    memory.end();
    cu.check(ended, "cuStreamEndCapture");
    cu.check(cu->cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
    cu.check(cu->cuGraphDestroy(graph), "cuGraphDestroy");
  }
  CapturedRun(const CapturedRun &) = delete;
  CapturedRun &operator=(const CapturedRun &) = delete;

  ~CapturedRun() {
    Session cu(__func__, Session::Kind::Release);
    if (cu.driverShutDown())
      return;
    // The memory goes back to the driver once the last replay is done.
    cu.check(cu->cuStreamSynchronize(stream), "cuStreamSynchronize");
    cu.check(cu->cuGraphExecDestroy(exec), "cuGraphExecDestroy");
  }

  void replay(const Session &cu) {
    cu.check(cu->cuGraphLaunch(exec, stream), "cuGraphLaunch");
  }

  /// False once a module was unloaded after the capture.
  bool valid() const { return unloadsSeen == moduleUnloads.load(); }

private:
  CUstream stream;
  uint64_t unloadsSeen;
  GraphMemory memory;
  CUgraphExec exec = nullptr;
};

/// rlx_cuda_graph_run's state for one graph on one thread: its first call
/// runs eagerly (loading modules, creating library handles, planning GEMMs:
/// work a capture must not contain); the second captures a run on buffers
/// kept for the later calls, which only copy and replay.
struct ReplayedGraph {
  DeviceEntry entry = nullptr;
  const char *signature = nullptr;
  std::unique_ptr<DeviceBuffers> buffers;
  std::unique_ptr<CapturedRun> run;
};

/// The graphs a thread replays, most recently used last. Each holds its
/// buffers and temporaries, so only the last few are kept.
constexpr size_t kReplayedGraphsPerThread = 4;
thread_local std::vector<std::unique_ptr<ReplayedGraph>> *replayedGraphs =
    nullptr;

ReplayedGraph &replayedGraph(DeviceEntry entry, const char *signature) {
  if (!replayedGraphs)
    replayedGraphs = new std::vector<std::unique_ptr<ReplayedGraph>>;
  auto &graphs = *replayedGraphs;
  // Captures from before a module unload may name its kernels.
  for (auto &graph : graphs)
    if (graph->run && !graph->run->valid()) {
      graph->run.reset();
      graph->buffers.reset();
    }
  auto it = std::find_if(graphs.begin(), graphs.end(), [&](const auto &g) {
    return g->entry == entry && g->signature == signature;
  });
  std::unique_ptr<ReplayedGraph> graph;
  if (it != graphs.end()) {
    graph = std::move(*it);
    graphs.erase(it);
  } else {
    graph = std::make_unique<ReplayedGraph>();
    graph->entry = entry;
    graph->signature = signature;
    if (graphs.size() == kReplayedGraphsPerThread)
      graphs.erase(graphs.begin());
  }
  graphs.push_back(std::move(graph));
  return *graphs.back();
}

} // namespace

void rlxrt::cuda::noteModuleUnload() { ++moduleUnloads; }

extern "C" void rlx_cuda_graph_run(const char *signature, DeviceEntry entry,
                                   void **hostDescriptors, int32_t graphFlags) {
  const char *caller = __func__;
  runGraphEntry([&] {
    Session cu(caller);
    CUstream stream = graphStream(cu);
    const std::vector<BufferSpec> &specs = specsOf(caller, signature);
    if (!replayEnabled() || (graphFlags & RLX_CUDA_GRAPH_READS_ON_HOST)) {
      DeviceBuffers buffers(cu, specs, hostDescriptors, stream);
      buffers.upload(cu, hostDescriptors);
      entry(buffers.descriptors());
      buffers.download(cu, hostDescriptors);
      return;
    }
    ReplayedGraph &graph = replayedGraph(entry, signature);
    if (graph.buffers && !graph.buffers->sameShapes(hostDescriptors)) {
      graph.run.reset();
      graph.buffers.reset();
    }
    bool firstRun = !graph.buffers;
    if (firstRun)
      graph.buffers =
          std::make_unique<DeviceBuffers>(cu, specs, hostDescriptors, stream);
    DeviceBuffers &buffers = *graph.buffers;
    buffers.upload(cu, hostDescriptors);
    if (firstRun) {
      entry(buffers.descriptors());
    } else {
      if (!graph.run)
        graph.run = std::make_unique<CapturedRun>(
            cu, [&] { entry(buffers.descriptors()); }, stream);
      graph.run->replay(cu);
    }
    buffers.download(cu, hostDescriptors);
  });
}

extern "C" void rlx_cuda_graph_bench(const char *signature, DeviceEntry entry,
                                     void **hostDescriptors, int32_t warmUpRuns,
                                     int32_t timedRuns, float *runMs,
                                     int32_t graphFlags) {
  const char *caller = __func__;
  runGraphEntry([&] {
    Session cu(caller);
    CUstream stream = graphStream(cu);
    DeviceBuffers buffers(cu, specsOf(caller, signature), hostDescriptors,
                          stream);
    buffers.upload(cu, hostDescriptors);
    for (int32_t i = 0; i < warmUpRuns; ++i)
      entry(buffers.descriptors());
    // Warmed-up runs replay one capture. A run without warm-up (rlx-run
    // without --bench) stays eager: it is the one run.
    std::unique_ptr<CapturedRun> captured;
    if (warmUpRuns > 0 && replayEnabled() &&
        !(graphFlags & RLX_CUDA_GRAPH_READS_ON_HOST)) {
      captured = std::make_unique<CapturedRun>(
          cu, [&] { entry(buffers.descriptors()); }, stream);
      captured->replay(cu); // The first launch of a graph uploads it.
    }
    auto run = [&] {
      if (captured)
        captured->replay(cu);
      else
        entry(buffers.descriptors());
    };
    // The graph's work runs on this thread's graph stream, so events there
    // bracket all of it.
    CUevent start, stop;
    cu.check(cu->cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    cu.check(cu->cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
    for (int32_t i = 0; i < timedRuns; ++i) {
      cu.check(cu->cuEventRecord(start, stream), "cuEventRecord");
      run();
      cu.check(cu->cuEventRecord(stop, stream), "cuEventRecord");
      cu.check(cu->cuEventSynchronize(stop), "cuEventSynchronize");
      cu.check(cu->cuEventElapsedTime(&runMs[i], start, stop),
               "cuEventElapsedTime");
    }
    cu.check(cu->cuEventDestroy(start), "cuEventDestroy");
    cu.check(cu->cuEventDestroy(stop), "cuEventDestroy");
    buffers.download(cu, hostDescriptors);
  });
}

namespace {

/// Checks `plan` against the graph's buffers (`arguments` of them are
/// arguments, the rest outputs); a plan that does not fit is fatal, naming
/// the entry.
void checkStepPlan(const char *caller, const std::vector<BufferSpec> &specs,
                   size_t arguments, const rlx_graph_step_plan &plan) {
  size_t outputs = specs.size() - arguments;
  auto fail = [&](const std::string &why) {
    fatal(caller, "invalid step plan: " + why);
  };
  auto checkIndex = [&](int32_t index, size_t count, const char *what) {
    if (index < 0 || static_cast<size_t>(index) >= count)
      fail(std::string(what) + " index " + std::to_string(index) +
           " is out of range [0, " + std::to_string(count) + ")");
  };
  if (plan.steps < 0 || plan.feedbackCount < 0 || plan.batchedCount < 0 ||
      plan.watchedCount < 0)
    fail("negative count");
  for (int32_t i = 0; i < plan.feedbackCount; ++i) {
    checkIndex(plan.feedbackOutputs[i], outputs, "fed-back output");
    checkIndex(plan.feedbackArguments[i], arguments, "fed-back argument");
    if (specs[arguments + plan.feedbackOutputs[i]].bytes !=
        specs[plan.feedbackArguments[i]].bytes)
      fail("output " + std::to_string(plan.feedbackOutputs[i]) +
           " and argument " + std::to_string(plan.feedbackArguments[i]) +
           " differ in size");
  }
  for (int32_t i = 0; i < plan.batchedCount; ++i) {
    checkIndex(plan.batchedArguments[i], arguments, "batched argument");
    if (!plan.batchedData[i])
      fail("batched argument " + std::to_string(plan.batchedArguments[i]) +
           " has no data");
  }
  for (int32_t i = 0; i < plan.watchedCount; ++i)
    checkIndex(plan.watchedOutputs[i], outputs, "watched output");
}

} // namespace

extern "C" void rlx_cuda_graph_steps(const char *signature, DeviceEntry entry,
                                     void **hostDescriptors,
                                     const rlx_graph_step_plan *plan,
                                     int32_t graphFlags) {
  const char *caller = __func__;
  runGraphEntry([&] {
    Session cu(caller);
    CUstream stream = graphStream(cu);
    const std::vector<BufferSpec> &specs = specsOf(caller, signature);
    // Arguments come first in the signature, then the outputs.
    size_t arguments = std::count_if(specs.begin(), specs.end(),
                                     [](const auto &s) { return !s.isOutput; });
    checkStepPlan(caller, specs, arguments, *plan);
    DeviceBuffers buffers(cu, specs, hostDescriptors, stream);
    buffers.upload(cu, hostDescriptors);
    // A step is the graph, then its trained parameters becoming the next
    // step's arguments, all on the device; captured once, a step is one
    // launch. Nothing crosses to the host but the batches and the watched
    // outputs.
    auto step = [&] {
      entry(buffers.descriptors());
      for (int32_t i = 0; i < plan->feedbackCount; ++i)
        buffers.copyOnDevice(cu, arguments + plan->feedbackOutputs[i],
                             plan->feedbackArguments[i]);
    };
    bool replay =
        replayEnabled() && !(graphFlags & RLX_CUDA_GRAPH_READS_ON_HOST);
    std::unique_ptr<CapturedRun> captured;
    for (int32_t s = 0; s < plan->steps; ++s) {
      for (int32_t i = 0; i < plan->batchedCount; ++i) {
        size_t argument = plan->batchedArguments[i];
        buffers.copyToDevice(cu, argument,
                             static_cast<const char *>(plan->batchedData[i]) +
                                 s * specs[argument].bytes);
      }
      // The first step runs eagerly: it loads modules and plans GEMMs, work
      // a capture must not contain.
      if (s == 0 || !replay) {
        step();
      } else {
        if (!captured)
          captured = std::make_unique<CapturedRun>(cu, step, stream);
        captured->replay(cu);
      }
      if (plan->watchedCount == 0 && !plan->afterStep)
        continue;
      for (int32_t i = 0; i < plan->watchedCount; ++i)
        buffers.copyToHost(cu, hostDescriptors,
                           arguments + plan->watchedOutputs[i]);
      cu.check(cu->cuStreamSynchronize(stream), "cuStreamSynchronize");
      if (plan->afterStep)
        plan->afterStep(plan->context, s);
    }
    for (int32_t i = 0; i < plan->feedbackCount; ++i)
      buffers.copyToHost(cu, hostDescriptors, plan->feedbackArguments[i]);
    buffers.download(cu, hostDescriptors);
  });
}
