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
// timers need no locking. A runner reads them with rlx_rt_profile_read.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/ProfileTimers.h"

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
  Timer &t = timer(id);
  t.totalMs += std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now() - t.start)
                   .count();
  ++t.calls;
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
}

} // extern "C"
