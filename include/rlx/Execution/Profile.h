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

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rlxrt {

/// The timers of a profiled graph: one label per timer id (the rlx ops the
/// work came from and their source position) and the runtime's entry points
/// that read and clear them. A target fills these in when it compiles with
/// profiling.
struct ProfileTimers {
  std::vector<std::string> labels;
  /// Returns the calls of timer `id` and stores its total time.
  int64_t (*read)(int64_t id, double *totalMs) = nullptr;
  void (*reset)() = nullptr;
};

/// The time one timer measured since the last reset.
struct OpTime {
  std::string label;
  double totalMs;
  int64_t calls;
};

/// Reads every timer, largest total first (ties in timer order).
std::vector<OpTime> readProfile(const ProfileTimers &timers);

/// Prints a header line and one line per timer: the time per run, its share
/// of `wallMs` (the wall time of the `runs` profiled runs), and the calls per
/// run.
void printProfile(llvm::raw_ostream &os, llvm::ArrayRef<OpTime> times,
                  unsigned runs, double wallMs);

} // namespace rlxrt

#endif // RLX_EXECUTION_PROFILE_H
