//===- CompilePhase.cpp - progress lines of long compile phases -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/CompilePhase.h"
#include "rlx/Execution/Progress.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace rlxrt;

CompilePhase::CompilePhase(llvm::StringRef name, bool reportAlways)
    : name(name.str()), reportAlways(reportAlways),
      start(std::chrono::steady_clock::now()) {}

CompilePhase::~CompilePhase() {
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ProgressReport report =
      reportAlways ? ProgressReport::All : getProgressReport();
  if (report == ProgressReport::None ||
      (report == ProgressReport::Long && seconds <= 1.0))
    return;
  llvm::errs() << "rlx: compile phase '" << name << "' took "
               << llvm::format("%.2f", seconds) << " s\n";
  llvm::errs().flush();
}
