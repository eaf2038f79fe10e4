//===- CompilePhase.h - progress lines of long compile phases ---*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A compile of a large model runs for tens of seconds; a line per phase
// that took long shows where it stands and where the time went:
//
//   rlx: compile phase 'rlx-cpu-pipeline' took 4.21 s
//
// RLX_PROGRESS picks which phases are reported (Progress.h): `0` none, `1`
// those longer than a second, `all` every phase. Unset, it is `1` when
// stderr is a terminal and `0` otherwise, so logs and piped output stay as
// they were. A compile with CompileOptions::timing reports every phase.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_COMPILEPHASE_H
#define RLX_EXECUTION_COMPILEPHASE_H

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <string>

namespace rlxrt {

/// Times one phase from construction to destruction and reports it on
/// stderr as RLX_PROGRESS says (always when `reportAlways`).
class CompilePhase {
public:
  explicit CompilePhase(llvm::StringRef name, bool reportAlways = false);
  ~CompilePhase();
  CompilePhase(const CompilePhase &) = delete;
  CompilePhase &operator=(const CompilePhase &) = delete;

private:
  std::string name;
  bool reportAlways;
  std::chrono::steady_clock::time_point start;
};

} // namespace rlxrt

#endif // RLX_EXECUTION_COMPILEPHASE_H
