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
    OpTime time{timers.labels[id], 0, 0,
                id < timers.costs.size() ? timers.costs[id] : OpCost{}};
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
  bool anyCost = llvm::any_of(times, [](const OpTime &time) {
    return time.cost.bytes > 0 || time.cost.flops > 0;
  });
  os << "  ms/run      %  calls/run" << (anyCost ? "     GB/s  TFLOP/s" : "")
     << "  op\n";
  for (const OpTime &time : times) {
    double msPerRun = time.totalMs / runs;
    os << llvm::format("%8.3f %6.1f%% %10.1f", msPerRun,
                       wallMs > 0 ? 100 * time.totalMs / wallMs : 0.0,
                       static_cast<double>(time.calls) / runs);
    if (anyCost) {
      // bytes / ms / 1e6 = GB/s; flops / ms / 1e9 = TFLOP/s.
      if (time.cost.bytes > 0 && msPerRun > 0)
        os << llvm::format(" %8.1f", time.cost.bytes / msPerRun / 1e6);
      else
        os << "        -";
      if (time.cost.flops > 0 && msPerRun > 0)
        os << llvm::format(" %8.2f", time.cost.flops / msPerRun / 1e9);
      else
        os << "        -";
    }
    os << "  " << time.label << "\n";
  }
}

void rlxrt::parseProfileLabels(llvm::StringRef lines,
                               std::vector<std::string> &labels,
                               std::vector<OpCost> &costs) {
  for (llvm::StringRef rest = lines; !rest.empty();) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    auto [label, costText] = line.split('\t');
    labels.push_back(label.str());
    OpCost cost;
    auto [bytes, flops] = costText.split(' ');
    // A malformed or missing cost is unknown, not an error: the label
    // still names the timer.
    if (bytes.getAsInteger(10, cost.bytes) || cost.bytes < 0)
      cost.bytes = 0;
    if (flops.getAsInteger(10, cost.flops) || cost.flops < 0)
      cost.flops = 0;
    costs.push_back(cost);
  }
}
