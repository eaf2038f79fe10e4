//===- Profile.cpp - per-op timers of a compiled graph --------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/Profile.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

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

llvm::Error rlxrt::startTrace(const ProfileTimers &timers) {
  if (!timers.trace)
    return llvm::createStringError(
        "the graph's runtime keeps each op's total time only, not a timeline "
        "of its calls (traces come from the cpu target)");
  timers.trace(1);
  return llvm::Error::success();
}

size_t rlxrt::writeChromeTrace(llvm::raw_ostream &os,
                               const ProfileTimers &timers,
                               llvm::StringRef graphName) {
  std::vector<RlxProfileEvent> events;
  if (timers.traceRead) {
    events.resize(static_cast<size_t>(timers.traceRead(nullptr, 0)));
    events.resize(static_cast<size_t>(
        timers.traceRead(events.data(), static_cast<int64_t>(events.size()))));
  }
  llvm::json::Array traceEvents;
  // Metadata events name the process and thread rows of the viewer.
  traceEvents.push_back(llvm::json::Object{
      {"name", "process_name"},
      {"ph", "M"},
      {"pid", 1},
      {"tid", 1},
      {"args", llvm::json::Object{{"name", ("rlx @" + graphName).str()}}}});
  traceEvents.push_back(
      llvm::json::Object{{"name", "thread_name"},
                         {"ph", "M"},
                         {"pid", 1},
                         {"tid", 1},
                         {"args", llvm::json::Object{{"name", "graph ops"}}}});
  for (const RlxProfileEvent &event : events) {
    if (event.id < 0 || static_cast<size_t>(event.id) >= timers.labels.size())
      continue;
    size_t id = static_cast<size_t>(event.id);
    llvm::StringRef label = timers.labels[id];
    // A label reads `rlx.matmul @ graph.mlir:3:8`: the op names the event,
    // the whole label goes into its arguments.
    llvm::StringRef name = label.split(" @ ").first;
    llvm::json::Object args{{"label", label}, {"timer", int64_t(id)}};
    if (id < timers.costs.size()) {
      if (timers.costs[id].bytes > 0)
        args["bytes"] = timers.costs[id].bytes;
      if (timers.costs[id].flops > 0)
        args["flops"] = timers.costs[id].flops;
    }
    traceEvents.push_back(llvm::json::Object{{"name", name},
                                             {"cat", "op"},
                                             {"ph", "X"},
                                             {"pid", 1},
                                             {"tid", 1},
                                             {"ts", event.startUs},
                                             {"dur", event.durationUs},
                                             {"args", std::move(args)}});
  }
  os << llvm::formatv(
      "{0:2}\n", llvm::json::Value(llvm::json::Object{
                     {"traceEvents", std::move(traceEvents)},
                     {"displayTimeUnit", "ms"},
                     {"otherData", llvm::json::Object{{"graph", graphName}}}}));
  return events.size();
}
