//===- Progress.h - progress lines of long compiles and runs ----*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A long compile or training run shows where it stands on stderr:
//
//   rlx: compile phase 'pass pipeline' took 4.21 s
//   rlx: step 120/1000 (12%), loss 0.412, 8.3 steps/s, 14 s, ETA 1m46s
//
// RLX_PROGRESS picks what is reported: `0` nothing, `1` compile phases
// longer than a second and a step line at most once a second, `all` every
// phase and every step. Unset, it is `1` when stderr is a terminal and `0`
// otherwise, so logs and piped output stay as they were.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_PROGRESS_H
#define RLX_EXECUTION_PROGRESS_H

#include "llvm/ADT/ArrayRef.h"

#include <chrono>
#include <string>

namespace rlxrt {

enum class ProgressReport { None, Long, All };

/// RLX_PROGRESS as above, read once: the environment of a process does not
/// change under a compile or a run.
ProgressReport getProgressReport();

/// `seconds` for a person: `0.05 ms`, `420 ms`, `4.2 s`, `14 s`, `1m46s`,
/// `2h05m`.
std::string formatDuration(double seconds);

/// The step lines of a loop of `total` steps: with RLX_PROGRESS=1 the step
/// that ends a second since the last line prints one, and the last step
/// does when any line was printed (so a short run prints none); with `all`
/// every step prints one.
class StepProgress {
public:
  explicit StepProgress(unsigned total);
  /// Reports that step `done` (counted from 1) ended with `loss`.
  void update(unsigned done, double loss);
  /// After the last step, where any step line was printed: one line with
  /// the steps' total and median times (`stepMs`, each step's), and the
  /// first step's, which also loads and prepares the graph.
  void finish(llvm::ArrayRef<double> stepMs);

private:
  unsigned total;
  ProgressReport report;
  bool printed = false;
  std::chrono::steady_clock::time_point start, lastLine;
};

} // namespace rlxrt

#endif // RLX_EXECUTION_PROGRESS_H
