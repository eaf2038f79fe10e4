//===- GraphABI.h - the symbols a compiled graph exports --------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The C interface of a compiled graph (docs/abi.md), for runners: no MLIR,
// so runners of ahead-of-time libraries build without it.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_GRAPHABI_H
#define RLX_EXECUTION_GRAPHABI_H

#include "rlx/Runtime/GraphSteps.h"
#include "rlx/Runtime/HostTensor.h"
#include "rlx/Runtime/ProfileTimers.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rlxrt {

/// `void rlx_graph_run(void **descriptors)`: one run on host memory.
using GraphRunFn = void (*)(void **descriptors);
/// Optional. `void rlx_graph_bench(void **descriptors, int32_t warmUpRuns,
/// int32_t timedRuns, float *runMs)`: runs like rlx_graph_run, timing each
/// timed run on the target's own clock (a GPU's events), with the data kept
/// where the target computes between runs.
using GraphBenchFn = void (*)(void **descriptors, int32_t warmUpRuns,
                              int32_t timedRuns, float *runMs);
/// Optional. `void rlx_graph_steps(void **descriptors, const
/// rlx_graph_step_plan *plan)`: training steps with the data kept where the
/// target computes between them (GraphSteps.h); without it a runner calls
/// rlx_graph_run once per step.
using GraphStepsFn = void (*)(void **descriptors,
                              const rlx_graph_step_plan *plan);
/// Optional. `int rlx_graph_ready(char *message, size_t size)`: 1 if the
/// graph can run in this process; 0 with the reason in `message` if not
/// (no GPU, no driver).
using GraphReadyFn = int (*)(char *message, size_t size);

/// Optional, in a target's runtime library: `int64_t
/// rlx_rt_buffer_peak_bytes(void)`, the most bytes the runtime's buffers
/// held at once since `void rlx_rt_buffer_reset_peak(void)`.
using BufferPeakFn = int64_t (*)();
using BufferResetPeakFn = void (*)();

/// In the CPU runtime (docs/abi.md): `int rlx_rt_run_guarded(run,
/// descriptors, message, size)` calls `run` as one run and returns 0, or the
/// message of the failure that ended it (a run-time shape check, a custom
/// op, an allocation) in `message` and 1, or kRunFailedOutOfMemory when an
/// allocation failed; the run's buffers are freed. `void
/// rlx_rt_free_output(void *allocated)` frees an output buffer the graph
/// returned.
using GuardedRunFn = int (*)(GraphRunFn run, void **descriptors, char *message,
                             size_t size);
inline constexpr int kRunFailedOutOfMemory = 2;
using FreeOutputFn = void (*)(void *allocated);
/// Optional, in a target's runtime: `int64_t rlx_rt_buffer_live_bytes(void)`,
/// the bytes its buffers hold now, and the test hook `void
/// rlx_rt_debug_fail_allocation(int64_t after)`: `after` more allocations
/// succeed and the next fails, once (negative: off).
using BufferLiveFn = int64_t (*)();
using DebugFailAllocationFn = void (*)(int64_t after);

/// Optional. `const char rlx_graph_profile_labels[]`: the labels of the
/// graph's per-op timers (or markers), one per line, by id (each optionally
/// followed by a tab and `BYTES FLOPS`, its work's cost per run), for graphs
/// compiled with them (the CPU's `--profile`; always on the cuda target).
/// Its target's runtime then exports `int64_t rlx_rt_profile_read(int64_t
/// id, double *totalMs)` (the runs of timer `id` since the last reset, its
/// total time into `*totalMs`) and `void rlx_rt_profile_reset(void)`, and,
/// where timing is off until asked for, `void rlx_rt_profile_enable(int32_t
/// on)`.
/// The types of the runtime's own declarations, so that calls through
/// these pointers have exactly the type of the function they reach.
using ProfileReadFn = decltype(&rlx_rt_profile_read);
using ProfileResetFn = decltype(&rlx_rt_profile_reset);
using ProfileEnableFn = decltype(&rlx_rt_profile_enable);
/// Optional, for timelines: rlx_rt_profile_trace(on) records each timed
/// call, rlx_rt_profile_trace_read copies them out (ProfileTimers.h).
using ProfileTraceFn = decltype(&rlx_rt_profile_trace);
using ProfileTraceReadFn = decltype(&rlx_rt_profile_trace_read);

inline constexpr llvm::StringLiteral kGraphRunSymbol = "rlx_graph_run";
inline constexpr llvm::StringLiteral kGraphBenchSymbol = "rlx_graph_bench";
inline constexpr llvm::StringLiteral kGraphStepsSymbol = "rlx_graph_steps";
inline constexpr llvm::StringLiteral kGraphReadySymbol = "rlx_graph_ready";
inline constexpr llvm::StringLiteral kGraphSignatureSymbol =
    "rlx_graph_signature";
inline constexpr llvm::StringLiteral kGraphProfileLabelsSymbol =
    "rlx_graph_profile_labels";
/// `const uint64_t rlx_graph_abi[]`: the layout of the entry's descriptors
/// and checksums of the two texts above (graphABIRecord), which a loader
/// checks before any call.
inline constexpr llvm::StringLiteral kGraphABISymbol = "rlx_graph_abi";
inline constexpr llvm::StringLiteral kProfileReadSymbol = "rlx_rt_profile_read";
inline constexpr llvm::StringLiteral kProfileResetSymbol =
    "rlx_rt_profile_reset";
inline constexpr llvm::StringLiteral kProfileEnableSymbol =
    "rlx_rt_profile_enable";
inline constexpr llvm::StringLiteral kProfileTraceSymbol =
    "rlx_rt_profile_trace";
inline constexpr llvm::StringLiteral kProfileTraceReadSymbol =
    "rlx_rt_profile_trace_read";
inline constexpr llvm::StringLiteral kBufferPeakSymbol =
    "rlx_rt_buffer_peak_bytes";
inline constexpr llvm::StringLiteral kBufferResetPeakSymbol =
    "rlx_rt_buffer_reset_peak";
inline constexpr llvm::StringLiteral kGuardedRunSymbol = "rlx_rt_run_guarded";
/// Optional. `int rlx_rt_call_guarded(void (*call)(void *), void *context,
/// char *message, size_t size)`: `call(context)` with the failures of
/// rlx_rt_run_guarded returned the same way; a runtime whose graphs have
/// their own bench entry (cuda's) exports it, and benches run through it.
inline constexpr llvm::StringLiteral kCallGuardedSymbol = "rlx_rt_call_guarded";
using CallGuardedFn = int (*)(void (*call)(void *), void *context,
                              char *message, size_t size);
inline constexpr llvm::StringLiteral kFreeOutputSymbol = "rlx_rt_free_output";
inline constexpr llvm::StringLiteral kBufferLiveSymbol =
    "rlx_rt_buffer_live_bytes";
inline constexpr llvm::StringLiteral kDebugFailAllocationSymbol =
    "rlx_rt_debug_fail_allocation";
/// Optional. `int32_t rlx_rt_concurrent_runs(void)`, nonzero: the runtime
/// lets several threads run one graph at once (the CPU runtime's).
inline constexpr llvm::StringLiteral kConcurrentRunsSymbol =
    "rlx_rt_concurrent_runs";
using ConcurrentRunsFn = int32_t (*)();

/// The argument of `rlx_graph_run` for dense row-major tensors: one ranked
/// memref descriptor {allocated, aligned, offset, sizes[rank],
/// strides[rank]} per tensor, and the array of pointers to them.
class MemRefDescriptors {
public:
  /// Describes `tensors` in order. The graph reads and writes their memory
  /// through the descriptors; the tensors must outlive every call.
  explicit MemRefDescriptors(llvm::ArrayRef<const HostTensor *> tensors);
  /// Describes dense row-major buffers at `data` of shapes `shapes`, in
  /// order: memory a caller owns, such as the C API's.
  MemRefDescriptors(llvm::ArrayRef<const void *> data,
                    llvm::ArrayRef<const std::vector<int64_t> *> shapes);

  void **get() { return pointers.data(); }
  /// Descriptor `i`, {allocated, aligned, offset, sizes, strides} as int64:
  /// where the graph writes the outputs it returns.
  const int64_t *descriptor(size_t i) const { return descriptors[i].data(); }

private:
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> pointers;
};

} // namespace rlxrt

#endif // RLX_EXECUTION_GRAPHABI_H
