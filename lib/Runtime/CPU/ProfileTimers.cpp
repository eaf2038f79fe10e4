//===- ProfileTimers.cpp - per-op timers of profiled graphs ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Graphs compiled with rlx-cpu-profile call rlx_rt_profile_begin/end around
// each timed op. The calls sit at the top level of the graph function,
// outside its parallel loops, so one thread calls them at a time and the
// timers need no locking. A runner reads them with rlx_rt_profile_read,
// and with rlx_rt_profile_trace on, every call is also recorded for a
// timeline (rlx-run --trace).
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/ProfileTimers.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

namespace {

struct Timer {
  std::chrono::steady_clock::time_point start;
  double totalMs = 0;
  int64_t calls = 0;
};

std::vector<Timer> &timers() {
  static std::vector<Timer> all;
  return all;
}

/// The calls a trace recorded. Bounded, so that a long run with a trace
/// cannot take all memory: 24 bytes a call, 2^22 calls at most (96 MiB);
/// later calls are counted in the totals only.
constexpr size_t kTraceLimit = size_t(1) << 22;
struct Trace {
  bool on = false;
  std::chrono::steady_clock::time_point origin;
  std::vector<RlxProfileEvent> events;
};

Trace &trace() {
  static Trace all;
  return all;
}

Timer &timer(int64_t id) {
  std::vector<Timer> &all = timers();
  if (static_cast<size_t>(id) >= all.size())
    all.resize(id + 1);
  return all[id];
}

} // namespace

extern "C" {

void rlx_rt_profile_begin(int64_t id) {
  timer(id).start = std::chrono::steady_clock::now();
}

void rlx_rt_profile_end(int64_t id) {
  auto now = std::chrono::steady_clock::now();
  Timer &t = timer(id);
  double ms = std::chrono::duration<double, std::milli>(now - t.start).count();
  t.totalMs += ms;
  ++t.calls;
  Trace &recording = trace();
  if (recording.on && recording.events.size() < kTraceLimit)
    recording.events.push_back(
        {id,
         std::chrono::duration<double, std::micro>(t.start - recording.origin)
             .count(),
         ms * 1e3});
}

int64_t rlx_rt_profile_read(int64_t id, double *totalMs) {
  const Timer &t = timer(id);
  *totalMs = t.totalMs;
  return t.calls;
}

void rlx_rt_profile_reset() {
  for (Timer &t : timers()) {
    t.totalMs = 0;
    t.calls = 0;
  }
  // The trace restarts with the totals: a runner resets after its warm-up
  // runs, and the timeline shows the runs the totals count.
  trace().events.clear();
  trace().origin = std::chrono::steady_clock::now();
}

void rlx_rt_profile_trace(int32_t on) {
  Trace &recording = trace();
  recording.on = on != 0;
  if (recording.on) {
    recording.events.clear();
    recording.origin = std::chrono::steady_clock::now();
  }
}

int64_t rlx_rt_profile_trace_read(RlxProfileEvent *events, int64_t capacity) {
  const std::vector<RlxProfileEvent> &recorded = trace().events;
  size_t count = capacity > 0 ? std::min(recorded.size(), size_t(capacity)) : 0;
  std::copy_n(recorded.begin(), count, events);
  return static_cast<int64_t>(recorded.size());
}

} // extern "C"
