//===- Profile.h - per-op timers of a compiled graph ------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A graph compiled with per-op timers updates counters in its target's
// runtime; these types read them back and print where the time went.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_PROFILE_H
#define RLX_EXECUTION_PROFILE_H

#include "rlx/Execution/GraphABI.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rlxrt {

/// The timers of a profiled graph: one label per timer id (the rlx ops the
/// work came from and their source position) and the runtime's entry points
/// that read and clear them. A target fills these in when it compiles with
/// profiling.
/// What one run of a timer's work moves and computes (0 where unknown):
/// the bytes of the buffers it reads and writes, each once, and its FLOPs.
struct OpCost {
  int64_t bytes = 0;
  int64_t flops = 0;
};

struct ProfileTimers {
  std::vector<std::string> labels;
  /// By timer id, where the graph records them; may be shorter than labels.
  std::vector<OpCost> costs;
  /// Returns the calls of timer `id` and stores its total time.
  ProfileReadFn read = nullptr;
  ProfileResetFn reset = nullptr;
  /// Null where the runtime keeps totals only (no timeline).
  ProfileTraceFn trace = nullptr;
  ProfileTraceReadFn traceRead = nullptr;
};

/// The timers labelled `labels`, whose runtime functions (GraphABI.h)
/// `lookup(symbol)` finds in the runtime that `runtimeName` names in the
/// error when they are missing; a runtime that times only when asked is
/// switched on.
template <typename LookupFn>
llvm::Expected<ProfileTimers>
bindProfileTimers(std::vector<std::string> labels, std::vector<OpCost> costs,
                  LookupFn lookup, llvm::StringRef runtimeName) {
  ProfileTimers timers;
  timers.labels = std::move(labels);
  timers.costs = std::move(costs);
  timers.read = reinterpret_cast<ProfileReadFn>(lookup(kProfileReadSymbol));
  timers.reset = reinterpret_cast<ProfileResetFn>(lookup(kProfileResetSymbol));
  if (!timers.read || !timers.reset)
    return llvm::createStringError(runtimeName +
                                   " has no per-op timers (rebuild it)");
  if (auto enable =
          reinterpret_cast<ProfileEnableFn>(lookup(kProfileEnableSymbol)))
    enable(1);
  timers.trace = reinterpret_cast<ProfileTraceFn>(lookup(kProfileTraceSymbol));
  timers.traceRead =
      reinterpret_cast<ProfileTraceReadFn>(lookup(kProfileTraceReadSymbol));
  if (!timers.traceRead)
    timers.trace = nullptr;
  return timers;
}

/// The time one timer measured since the last reset.
struct OpTime {
  std::string label;
  double totalMs;
  int64_t calls;
  OpCost cost;
};

/// Parses the lines of `rlx_graph_profile_labels` (GraphABI.h): `LABEL` or
/// `LABEL\tBYTES FLOPS`.
void parseProfileLabels(llvm::StringRef lines, std::vector<std::string> &labels,
                        std::vector<OpCost> &costs);

/// Reads every timer, largest total first (ties in timer order).
std::vector<OpTime> readProfile(const ProfileTimers &timers);

/// Prints a header line and one line per timer: the time per run, its share
/// of `wallMs` (the wall time of the `runs` profiled runs), the calls per
/// run and, where the graph records its costs, the GB/s of its buffers and
/// its TFLOP/s.
void printProfile(llvm::raw_ostream &os, llvm::ArrayRef<OpTime> times,
                  unsigned runs, double wallMs);

/// Starts recording every timed call for a timeline (the runtime's
/// rlx_rt_profile_trace); fails where the runtime keeps totals only.
llvm::Error startTrace(const ProfileTimers &timers);

/// Writes the calls recorded since startTrace (or the last reset) as a
/// Chrome trace (the Trace Event Format's JSON object, which
/// chrome://tracing, Perfetto's ui.perfetto.dev and TensorBoard read): one
/// complete event ("ph": "X") per call, named by its op, with the whole
/// label, timer id and costs as arguments, microseconds from the trace's
/// start. Returns the number of events written.
size_t writeChromeTrace(llvm::raw_ostream &os, const ProfileTimers &timers,
                        llvm::StringRef graphName);

} // namespace rlxrt

#endif // RLX_EXECUTION_PROFILE_H
