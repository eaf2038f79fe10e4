//===- Profile.cpp - per-op timers of a compiled graph --------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/Profile.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <numeric>

using namespace rlxrt;

std::vector<OpTime> rlxrt::readProfile(const ProfileTimers &timers) {
  std::vector<OpTime> times;
  for (size_t id = 0; id < timers.labels.size(); ++id) {
    OpTime time{timers.labels[id], 0, 0};
    time.calls = timers.read(static_cast<int64_t>(id), &time.totalMs);
    times.push_back(std::move(time));
  }
  // Largest first; equal times keep timer order (program order).
  std::vector<size_t> order(times.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return times[a].totalMs != times[b].totalMs
               ? times[a].totalMs > times[b].totalMs
               : a < b;
  });
  std::vector<OpTime> sorted;
  for (size_t id : order)
    sorted.push_back(std::move(times[id]));
  return sorted;
}

void rlxrt::printProfile(llvm::raw_ostream &os, llvm::ArrayRef<OpTime> times,
                         unsigned runs, double wallMs) {
  double timedMs = std::accumulate(
      times.begin(), times.end(), 0.0,
      [](double sum, const OpTime &time) { return sum + time.totalMs; });
  os << llvm::format("profile: %zu timed ops, %.3f ms of %.3f ms per run "
                     "(%.1f%%) over %u runs\n",
                     times.size(), timedMs / runs, wallMs / runs,
                     wallMs > 0 ? 100 * timedMs / wallMs : 0.0, runs);
  os << "  ms/run      %  calls/run  op\n";
  for (const OpTime &time : times)
    os << llvm::format("%8.3f %6.1f%% %10.1f  ", time.totalMs / runs,
                       wallMs > 0 ? 100 * time.totalMs / wallMs : 0.0,
                       static_cast<double>(time.calls) / runs)
       << time.label << "\n";
}
