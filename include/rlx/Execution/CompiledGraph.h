//===- CompiledGraph.h - a graph ready to run on host tensors ---*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A compiled graph knows its signature and runs with host tensors through
// the `rlx_graph_run` entry (GraphEntry.h). Targets make one by compiling a
// module (ExecutionTarget.h); CompiledGraph::load makes one from a shared
// library compiled ahead of time.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_COMPILEDGRAPH_H
#define RLX_EXECUTION_COMPILEDGRAPH_H

#include "rlx/Execution/GraphABI.h"
#include "rlx/Execution/GraphSignature.h"
#include "rlx/Execution/Profile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <memory>
#include <optional>

namespace rlxrt {

struct BenchOptions {
  /// Untimed runs first, so caches, page tables and thread pools are warm.
  unsigned warmUpRuns = 2;
  unsigned timedRuns = 10;
  /// Read between runs: once another thread (or a signal handler) sets it,
  /// the bench stops with an error saying how many runs it made, so a host
  /// can cancel a long bench. A target's own bench entry (CUDA's) runs to
  /// its end.
  const std::atomic<bool> *interrupt = nullptr;
};

/// Wall times of the timed runs of CompiledGraph::bench, in milliseconds.
struct BenchResult {
  unsigned runs = 0;
  double medianMs = 0;
  double p90Ms = 0;
  double minMs = 0;
  double totalMs = 0;
  /// The most bytes the runtime's buffers held at once during the timed
  /// runs, where the runtime counts them (CompiledGraph::setBufferCounters).
  std::optional<int64_t> peakBytes;
};

class CompiledGraph {
public:
  /// A graph whose code stays valid while `code` (an execution engine, a
  /// library handle, ...) is alive.
  CompiledGraph(GraphSignature signature, GraphRunFn run,
                std::shared_ptr<void> code);

  /// Loads a shared library compiled ahead of time (by any target's
  /// emitSharedLibrary) and reads its signature. The library stays loaded
  /// for the life of the process: its runtime may own threads.
  static llvm::Expected<std::unique_ptr<CompiledGraph>>
  load(llvm::StringRef path);

  const GraphSignature &getSignature() const { return signature; }

  /// Fails unless `arguments` match the signature in count, dtypes and
  /// shapes; the message names the first tensor that does not.
  llvm::Error checkArguments(llvm::ArrayRef<HostTensor> arguments) const;
  /// Fails unless the graph takes `count` arguments; the message names them.
  llvm::Error checkArgumentCount(size_t count) const;
  /// Zero-initialised tensors of the output dtypes and shapes; an error
  /// naming the output that cannot be allocated.
  llvm::Expected<std::vector<HostTensor>> allocateOutputs() const;

  /// Runs once with `arguments` in signature order.
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::ArrayRef<HostTensor> arguments) const;
  /// Runs once, writing into `outputs` (as from allocateOutputs).
  llvm::Error run(llvm::ArrayRef<HostTensor> arguments,
                  llvm::MutableArrayRef<HostTensor> outputs) const;

  /// Runs once on dense row-major argument buffers the caller owns, of the
  /// shapes `argumentShapes` (which must match the signature, any size for a
  /// `?` dim); returns the outputs, of the shapes this run gave them. What a
  /// graph with `?` dims runs through (the C API's rlxGraphRunShaped).
  llvm::Expected<std::vector<HostTensor>>
  runShapedBuffers(llvm::ArrayRef<const void *> arguments,
                   llvm::ArrayRef<std::vector<int64_t>> argumentShapes) const;

  /// Fails unless there are as many buffers as arguments and as outputs.
  llvm::Error checkBufferCounts(size_t numArguments, size_t numOutputs) const;
  /// Runs once on dense row-major buffers the caller owns, `arguments` in
  /// signature order, each of its spec's dtype and shape (which a raw
  /// pointer cannot show, so only the counts are checked).
  llvm::Error runBuffers(llvm::ArrayRef<const void *> arguments,
                         llvm::ArrayRef<void *> outputs) const;

  /// Runs `options.warmUpRuns` times, then times `options.timedRuns` runs
  /// (at least one), writing into `outputs`. The profile timers, if any,
  /// count the timed runs only.
  llvm::Expected<BenchResult> bench(llvm::ArrayRef<HostTensor> arguments,
                                    llvm::MutableArrayRef<HostTensor> outputs,
                                    const BenchOptions &options) const;

  /// bench on caller-owned buffers, as runBuffers takes them.
  llvm::Expected<BenchResult>
  benchBuffers(llvm::ArrayRef<const void *> arguments,
               llvm::ArrayRef<void *> outputs,
               const BenchOptions &options) const;

  /// A target's own timing of runs (GraphABI.h); without one, bench times
  /// each rlx_graph_run call on the host's clock.
  void setBenchFunction(GraphBenchFn bench) { benchFn = bench; }

  /// A target's own loop of training steps (GraphABI.h: rlx_graph_steps),
  /// which keeps the data where it computes; runSteps uses it when there.
  void setStepsFunction(GraphStepsFn steps) { stepsFn = steps; }
  bool hasOwnSteps() const { return stepsFn != nullptr; }
  /// Runs the target's own steps on `plan` (GraphSteps.h), through the
  /// runtime's call guard where it has one: a failure inside is the error.
  llvm::Error runOwnSteps(llvm::MutableArrayRef<HostTensor> arguments,
                          llvm::MutableArrayRef<HostTensor> outputs,
                          const rlx_graph_step_plan &plan) const;

  /// The runtime's count of the bytes its buffers hold; without one,
  /// bench reports no peak.
  void setBufferCounters(BufferPeakFn peak, BufferResetPeakFn resetPeak) {
    peakFn = peak;
    resetPeakFn = resetPeak;
  }
  /// Looks both counter functions up with `lookup(symbol)` and keeps them if
  /// both exist; also the guarded run and the output free of a runtime that
  /// runs graphs with `?` dims (GraphABI.h).
  template <typename LookupFn> void bindBufferCounters(LookupFn lookup) {
    auto peak = reinterpret_cast<BufferPeakFn>(lookup(kBufferPeakSymbol));
    auto reset =
        reinterpret_cast<BufferResetPeakFn>(lookup(kBufferResetPeakSymbol));
    if (peak && reset)
      setBufferCounters(peak, reset);
    guardedRunFn = reinterpret_cast<GuardedRunFn>(lookup(kGuardedRunSymbol));
    callGuardedFn = reinterpret_cast<CallGuardedFn>(lookup(kCallGuardedSymbol));
    freeOutputFn = reinterpret_cast<FreeOutputFn>(lookup(kFreeOutputSymbol));
    liveFn = reinterpret_cast<BufferLiveFn>(lookup(kBufferLiveSymbol));
    failAllocationFn = reinterpret_cast<DebugFailAllocationFn>(
        lookup(kDebugFailAllocationSymbol));
    auto concurrent =
        reinterpret_cast<ConcurrentRunsFn>(lookup(kConcurrentRunsSymbol));
    concurrentRuns = concurrent && concurrent();
  }

  /// Whether several threads may run this graph at once: where its runtime
  /// says so (rlx_rt_concurrent_runs: the CPU runtime gives each run its own
  /// buffers from a locked pool and keeps a run's failure state per thread,
  /// and the compiled code writes no global) and the graph is not profiled
  /// (its per-op timers are shared counters). Other runtimes make no such
  /// promise (cuda's replays a CUDA graph captured from an earlier run), so
  /// their runs take turns (the C API's per-graph lock, docs/c-api.md).
  bool allowsConcurrentRuns() const { return concurrentRuns && !isProfiled(); }

  /// The bytes the runtime's buffers hold now; -1 where it does not count
  /// them. With a run's failure, they return to their value before it.
  int64_t liveBufferBytes() const { return liveFn ? liveFn() : -1; }
  /// Test hook (docs/security.md): `after` more allocations of the
  /// runtime's buffers succeed and the next one fails, once; negative turns
  /// it off. Fails for a runtime without the hook.
  llvm::Error failAllocationForTesting(int64_t after) const;

  /// Per-op timers, for graphs compiled with profiling.
  void setProfileTimers(ProfileTimers timers) {
    profileTimers = std::move(timers);
  }
  /// Binds the per-op timers of a graph loaded from a library (`load`) that
  /// lists them (GraphABI.h: rlx_graph_profile_labels); fails, naming the
  /// library, for one compiled without them.
  llvm::Error bindLibraryProfile();
  bool isProfiled() const { return profileTimers.has_value(); }
  /// The per-op timers; null unless profiled.
  const ProfileTimers *getProfileTimers() const {
    return profileTimers ? &*profileTimers : nullptr;
  }
  /// The time per timer since compilation or the last reset; empty unless
  /// profiled.
  std::vector<OpTime> readProfile() const;
  void resetProfile() const;

private:
  llvm::Error checkOutputs(llvm::ArrayRef<HostTensor> outputs) const;
  MemRefDescriptors describe(llvm::ArrayRef<HostTensor> arguments,
                             llvm::ArrayRef<HostTensor> outputs) const;
  MemRefDescriptors describeBuffers(llvm::ArrayRef<const void *> arguments,
                                    llvm::ArrayRef<void *> outputs) const;
  llvm::Expected<BenchResult>
  benchDescriptors(MemRefDescriptors &descriptors,
                   const BenchOptions &options) const;
  /// One call of the graph, through the runtime's guard where it has one: a
  /// failure inside the compiled code is the error (std::errc::
  /// not_enough_memory for an allocation).
  llvm::Error invoke(MemRefDescriptors &descriptors) const;
  /// The error of a guarded call's `status` and `message` (GraphABI.h).
  llvm::Error guardStatus(int status, const char *message) const;
  /// `call(context)` through the runtime's call guard where it has one: a
  /// failure inside is the error, as in invoke.
  llvm::Error callGuarded(void (*call)(void *), void *context) const;
  /// benchFn's runs, through the runtime's call guard where it has one.
  llvm::Error callBench(MemRefDescriptors &descriptors, unsigned warmUpRuns,
                        unsigned timedRuns, float *runMs) const;
  /// Argument descriptors of `data` with `shapes`, then one empty
  /// descriptor per output, which a graph that returns its outputs fills.
  MemRefDescriptors
  describeReturning(llvm::ArrayRef<const void *> data,
                    llvm::ArrayRef<const std::vector<int64_t> *> shapes) const;
  /// Copies the outputs a graph returned into host tensors and frees them.
  llvm::Expected<std::vector<HostTensor>>
  takeReturnedOutputs(const MemRefDescriptors &descriptors) const;
  /// One call of a graph that returns its outputs, on arguments `data` of
  /// `shapes`: describeReturning, invoke, takeReturnedOutputs.
  llvm::Expected<std::vector<HostTensor>>
  runReturning(llvm::ArrayRef<const void *> data,
               llvm::ArrayRef<const std::vector<int64_t> *> shapes) const;
  /// Frees the outputs a graph returned (bench's runs).
  void freeReturnedOutputs(const MemRefDescriptors &descriptors) const;

  GraphSignature signature;
  GraphRunFn runFn;
  GraphBenchFn benchFn = nullptr;
  GraphStepsFn stepsFn = nullptr;
  BufferPeakFn peakFn = nullptr;
  BufferResetPeakFn resetPeakFn = nullptr;
  GuardedRunFn guardedRunFn = nullptr;
  CallGuardedFn callGuardedFn = nullptr;
  FreeOutputFn freeOutputFn = nullptr;
  BufferLiveFn liveFn = nullptr;
  DebugFailAllocationFn failAllocationFn = nullptr;
  bool concurrentRuns = false;
  std::shared_ptr<void> code;
  /// The library `load` opened (never closed), and its path.
  void *library = nullptr;
  std::string libraryPath;
  std::optional<ProfileTimers> profileTimers;
};

/// Loads the custom op plugin `path` (docs/custom-ops.md) and calls its
/// `rlx_plugin_init`, which registers its ops. The path rules of
/// CompiledGraph::load apply: made absolute (never searched on the library
/// path) and checked to be a whole ELF shared library for this machine
/// before it is mapped. Fails naming the file when it is missing or not
/// such a library, lacks the init symbol, or its init fails. Never
/// unloaded: registered kernels stay callable.
llvm::Error loadCustomOpPlugin(llvm::StringRef path);

/// The absolute paths of the plugins loadCustomOpPlugin loaded, in load
/// order: their ops shape what a graph compiles to, so the compile cache
/// keys on them.
std::vector<std::string> getLoadedCustomOpPlugins();

} // namespace rlxrt

#endif // RLX_EXECUTION_COMPILEDGRAPH_H
