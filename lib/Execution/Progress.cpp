//===- Progress.cpp - progress lines of long compiles and runs ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/Progress.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include <unistd.h>

using namespace rlxrt;

ProgressReport rlxrt::getProgressReport() {
  static const ProgressReport report = [] {
    const char *value = std::getenv("RLX_PROGRESS");
    if (!value)
      return ::isatty(STDERR_FILENO) ? ProgressReport::Long
                                     : ProgressReport::None;
    llvm::StringRef text = llvm::StringRef(value).trim();
    if (text == "all")
      return ProgressReport::All;
    if (text.empty() || text == "0")
      return ProgressReport::None;
    return ProgressReport::Long;
  }();
  return report;
}

std::string rlxrt::formatDuration(double seconds) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!std::isfinite(seconds) || seconds < 0)
    os << "?";
  else if (seconds < 0.01)
    os << llvm::format("%.2f ms", seconds * 1e3);
  else if (seconds < 1)
    os << llvm::format("%.0f ms", seconds * 1e3);
  else if (seconds < 10)
    os << llvm::format("%.1f s", seconds);
  else if (seconds < 60)
    os << llvm::format("%.0f s", seconds);
  else if (seconds < 3600) {
    long whole = std::lround(seconds);
    os << llvm::format("%ldm%02lds", whole / 60, whole % 60);
  } else {
    long minutes = std::lround(seconds / 60);
    os << llvm::format("%ldh%02ldm", minutes / 60, minutes % 60);
  }
  return text;
}

StepProgress::StepProgress(unsigned total)
    : total(total), report(getProgressReport()),
      start(std::chrono::steady_clock::now()), lastLine(start) {}

void StepProgress::update(unsigned done, double loss) {
  if (report == ProgressReport::None)
    return;
  auto now = std::chrono::steady_clock::now();
  bool last = done >= total;
  if (report == ProgressReport::Long &&
      !(now - lastLine >= std::chrono::seconds(1) || (last && printed)))
    return;
  printed = true;
  lastLine = now;
  double elapsed = std::chrono::duration<double>(now - start).count();
  double rate = elapsed > 0 ? done / elapsed : 0;
  llvm::errs() << llvm::format(
      "rlx: step %u/%u (%u%%), loss %.6g, ", done, total,
      unsigned(100.0 * done / std::max(total, 1u)), loss);
  if (rate >= 1)
    llvm::errs() << llvm::format("%.1f steps/s", rate);
  else
    llvm::errs() << formatDuration(rate > 0 ? 1 / rate : 0) << "/step";
  llvm::errs() << ", " << formatDuration(elapsed);
  if (!last)
    llvm::errs() << ", ETA "
                 << formatDuration(rate > 0 ? (total - done) / rate : -1);
  llvm::errs() << "\n";
  llvm::errs().flush();
}

void StepProgress::finish(llvm::ArrayRef<double> stepMs) {
  if (!printed || stepMs.empty())
    return;
  std::vector<double> sorted(stepMs.begin(), stepMs.end());
  double totalMs = 0;
  for (double ms : sorted)
    totalMs += ms;
  std::sort(sorted.begin(), sorted.end());
  llvm::errs() << "rlx: " << stepMs.size() << " steps in "
               << formatDuration(totalMs / 1e3) << ", median step "
               << formatDuration(sorted[sorted.size() / 2] / 1e3)
               << " (the first, which loads and prepares the graph: "
               << formatDuration(stepMs.front() / 1e3) << ")\n";
  llvm::errs().flush();
}
