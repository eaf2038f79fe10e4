//===- CompilePhase.cpp - progress lines of long compile phases -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/CompilePhase.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>

#include <unistd.h>

using namespace rlxrt;

namespace {
enum class Report { None, Long, All };
} // namespace

/// RLX_PROGRESS, read once: the environment of a process does not change
/// under a compile.
static Report getReport() {
  static const Report report = [] {
    const char *value = std::getenv("RLX_PROGRESS");
    if (!value)
      return ::isatty(STDERR_FILENO) ? Report::Long : Report::None;
    llvm::StringRef text = llvm::StringRef(value).trim();
    if (text == "all")
      return Report::All;
    if (text.empty() || text == "0")
      return Report::None;
    return Report::Long;
  }();
  return report;
}

CompilePhase::CompilePhase(llvm::StringRef name, bool reportAlways)
    : name(name.str()), reportAlways(reportAlways),
      start(std::chrono::steady_clock::now()) {}

CompilePhase::~CompilePhase() {
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  Report report = reportAlways ? Report::All : getReport();
  if (report == Report::None || (report == Report::Long && seconds <= 1.0))
    return;
  llvm::errs() << "rlx: compile phase '" << name << "' took "
               << llvm::format("%.2f", seconds) << " s\n";
  llvm::errs().flush();
}
