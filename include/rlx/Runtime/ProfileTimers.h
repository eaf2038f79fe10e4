//===- ProfileTimers.h - per-op timer entry points of a runtime -*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The C functions through which profiled graphs drive a target runtime's
// per-op timers and runners read them (docs/abi.md). The runtimes define
// them including this header, and the execution library takes the types
// of its function pointers from these declarations, so the definition and
// every indirect call agree on one function type (UBSan's function check
// compares them).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_PROFILETIMERS_H
#define RLX_RUNTIME_PROFILETIMERS_H

#include <cstdint>

extern "C" {
/// Starts and stops timer `id` (graphs call these around each op).
void rlx_rt_profile_begin(int64_t id);
void rlx_rt_profile_end(int64_t id);
/// The number of times timer `id` ran since the last reset; its total time
/// in milliseconds goes to `*totalMs`.
int64_t rlx_rt_profile_read(int64_t id, double *totalMs);
/// Clears every timer.
void rlx_rt_profile_reset();
/// Optional: switches timing on (nonzero) or off, where it is off until
/// asked for.
void rlx_rt_profile_enable(int32_t on);

/// One timed call, for a trace: its timer and when it ran, in microseconds
/// from the start of the trace.
struct RlxProfileEvent {
  int64_t id;
  double startUs;
  double durationUs;
};
/// Optional: with `on` nonzero, records every timed call from now on (the
/// trace starts empty, at time 0; rlx_rt_profile_reset empties it again);
/// with 0, stops recording. A runtime without it keeps totals only.
void rlx_rt_profile_trace(int32_t on);
/// Copies up to `capacity` recorded calls, in the order they ended, into
/// `events` and returns how many are recorded (call with 0 to size the
/// buffer). A runtime may bound the calls it keeps (the CPU's: 2^22).
int64_t rlx_rt_profile_trace_read(RlxProfileEvent *events, int64_t capacity);
}

#endif // RLX_RUNTIME_PROFILETIMERS_H
