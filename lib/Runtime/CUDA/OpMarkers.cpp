//===- OpMarkers.cpp - which rlx op the host is running, and its time -----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-cuda-op-markers brackets each rlx op's host work with
// rlx_cuda_op_begin / rlx_cuda_op_end. The runtime remembers the label of
// the op last begun on each thread, for its error messages. With profiling
// switched on (rlx_rt_profile_enable), every marker also records an event
// on the thread's graph stream; reading the profile waits for the events
// and adds each op's GPU time between its markers to its total.
//
// The rlx_rt_profile_* functions are the ones the CPU runtime exports for
// its timers (the same runner code reads both); a runner finds them through
// the graph library it loaded, whose dependencies hold one runtime.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "GraphStream.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

using namespace rlxrt::cuda;

namespace {

thread_local const char *lastOpLabel = nullptr;

/// One op's work between its markers, recorded and not yet read.
struct PendingSpan {
  int64_t id;
  CUevent start;
  CUevent end = nullptr;
};

struct OpTotals {
  double totalMs = 0;
  int64_t calls = 0;
};

struct OpProfile {
  /// Read without the lock: every marker asks, and profiling is off in
  /// ordinary runs.
  std::atomic<bool> enabled{false};
  std::mutex mutex;
  std::vector<CUevent> freeEvents;
  std::vector<PendingSpan> pending;
  std::vector<OpTotals> totals;

  CUevent takeEvent(const Session &cu) {
    if (!freeEvents.empty()) {
      CUevent event = freeEvents.back();
      freeEvents.pop_back();
      return event;
    }
    CUevent event;
    cu.check(cu->cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
    return event;
  }

  OpTotals &totalsOf(int64_t id) {
    if (static_cast<size_t>(id) >= totals.size())
      totals.resize(id + 1);
    return totals[id];
  }

  /// Waits for the recorded spans and adds them to their ops' totals.
  void fold(const Session &cu) {
    for (PendingSpan &span : pending) {
      if (!span.end) {
        freeEvents.push_back(span.start);
        continue;
      }
      cu.check(cu->cuEventSynchronize(span.end), "cuEventSynchronize");
      float ms = 0;
      cu.check(cu->cuEventElapsedTime(&ms, span.start, span.end),
               "cuEventElapsedTime");
      OpTotals &op = totalsOf(span.id);
      op.totalMs += ms;
      ++op.calls;
      freeEvents.push_back(span.start);
      freeEvents.push_back(span.end);
    }
    pending.clear();
  }
};

OpProfile &opProfile() {
  static OpProfile profile;
  return profile;
}

} // namespace

const char *rlxrt::cuda::lastOpBegun() { return lastOpLabel; }

bool rlxrt::cuda::opProfileEnabled() {
  return opProfile().enabled.load(std::memory_order_relaxed);
}

extern "C" {

void rlx_cuda_op_begin(int64_t id, const char *label) {
  lastOpLabel = label;
  OpProfile &profile = opProfile();
  if (!profile.enabled.load(std::memory_order_relaxed))
    return;
  std::lock_guard<std::mutex> lock(profile.mutex);
  Session cu(__func__);
  CUevent start = profile.takeEvent(cu);
  cu.check(cu->cuEventRecord(start, graphStream(cu)), "cuEventRecord");
  profile.pending.push_back({id, start});
}

void rlx_cuda_op_end(int64_t id) {
  OpProfile &profile = opProfile();
  if (!profile.enabled.load(std::memory_order_relaxed))
    return;
  std::lock_guard<std::mutex> lock(profile.mutex);
  if (profile.pending.empty() || profile.pending.back().id != id ||
      profile.pending.back().end)
    return;
  Session cu(__func__);
  CUevent end = profile.takeEvent(cu);
  cu.check(cu->cuEventRecord(end, graphStream(cu)), "cuEventRecord");
  profile.pending.back().end = end;
}

/// Switches the per-op events on (nonzero) or off.
void rlx_rt_profile_enable(int32_t on) {
  opProfile().enabled.store(on != 0, std::memory_order_relaxed);
}

/// The number of times op `id` ran since the last reset; its total GPU time
/// in milliseconds goes to `*totalMs`.
int64_t rlx_rt_profile_read(int64_t id, double *totalMs) {
  OpProfile &profile = opProfile();
  std::lock_guard<std::mutex> lock(profile.mutex);
  if (!profile.pending.empty())
    profile.fold(Session(__func__));
  const OpTotals &op = profile.totalsOf(id);
  *totalMs = op.totalMs;
  return op.calls;
}

void rlx_rt_profile_reset() {
  OpProfile &profile = opProfile();
  std::lock_guard<std::mutex> lock(profile.mutex);
  if (!profile.pending.empty())
    profile.fold(Session(__func__));
  profile.totals.clear();
}

} // extern "C"
