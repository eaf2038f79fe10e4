//===- RunGuard.cpp - failures of CUDA graph runs as statuses -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The runtime's entry points return nothing (MLIR's GPU lowering declares
// them so), so a driver, cuBLAS or cuDNN error ends in fatal(). Outside a
// guarded run that still prints the error and exits with status 1, as a
// command-line runner wants. Inside rlx_rt_run_guarded, which runners call
// for every run (CompiledGraph::invoke: the C API, Python), fatal() throws
// the error instead, the stack unwinds to the guard (destructors free the
// run's device buffers and release locks) and the guard returns the
// message as the run's status: the host process goes on.
//
// Fatal still exits where a throw could not reach the guard: inside a
// releasing session (those run in destructors, where a throw would end the
// process through std::terminate), while another exception unwinds, and
// where a frame between fatal() and the guard has no unwind information (a
// compiled graph's code built without it): the frames are walked first,
// and a walk that does not reach the guard exits as before.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>

#include <unwind.h>

using namespace rlxrt::cuda;

namespace {
/// Guarded runs under way on this thread (nested runs count each).
thread_local int guardedRuns = 0;
/// Live ExitOnFatal scopes on this thread.
thread_local int exitScopes = 0;
} // namespace

namespace {
int guardedCall(void (*call)(void *), void *context, char *message,
                size_t size);

/// Whether unwinding from here would reach guardedCall: every frame on the
/// way has unwind information. (guardedCall has internal linkage: another
/// runtime's rlx_rt_run_guarded loaded globally cannot stand in for it.)
bool guardReachable() {
  bool reached = false;
  auto visit = [](_Unwind_Context *context,
                  void *found) -> _Unwind_Reason_Code {
    void *function = _Unwind_FindEnclosingFunction(
        reinterpret_cast<void *>(_Unwind_GetIP(context)));
    if (function == reinterpret_cast<void *>(&guardedCall)) {
      *static_cast<bool *>(found) = true;
      return _URC_END_OF_STACK;
    }
    return _URC_NO_REASON;
  };
  _Unwind_Backtrace(visit, &reached);
  return reached;
}
} // namespace

ExitOnFatal::ExitOnFatal(bool active) : active(active) {
  if (active)
    ++exitScopes;
}

ExitOnFatal::~ExitOnFatal() {
  if (active)
    --exitScopes;
}

void rlxrt::cuda::throwIfGuarded(const std::string &message, bool outOfMemory) {
  if (guardedRuns == 0 || exitScopes > 0 || std::uncaught_exceptions() > 0 ||
      !guardReachable())
    return;
  throw RunFailure{message, outOfMemory};
}

namespace {
/// Calls `call(context)` as one guarded run: 0 when it succeeded, else the
/// failure's message in `message` and 1, or 2 when device memory ran out
/// (the CPU runtime's contract, GraphABI.h). Not inlined: its frame is what
/// guardReachable looks for.
__attribute__((noinline)) int guardedCall(void (*call)(void *), void *context,
                                          char *message, size_t size) {
  ++guardedRuns;
  try {
    call(context);
  } catch (const RunFailure &failure) {
    --guardedRuns;
    if (message && size > 0)
      std::snprintf(message, size, "%s", failure.message.c_str());
    return failure.outOfMemory ? 2 : 1;
  } catch (const std::bad_alloc &) {
    // Host memory for the runtime's own bookkeeping.
    --guardedRuns;
    if (message && size > 0)
      std::snprintf(message, size, "out of host memory in the CUDA runtime");
    return 2;
  } catch (const std::exception &error) {
    --guardedRuns;
    if (message && size > 0)
      std::snprintf(message, size, "%s", error.what());
    return 1;
  }
  --guardedRuns;
  return 0;
}
} // namespace

extern "C" __attribute__((visibility("default"))) int
rlx_rt_run_guarded(void (*run)(void **), void **descriptors, char *message,
                   size_t size) {
  struct Run {
    void (*run)(void **);
    void **descriptors;
  } call{run, descriptors};
  return guardedCall(
      [](void *context) {
        auto *call = static_cast<Run *>(context);
        call->run(call->descriptors);
      },
      &call, message, size);
}

/// Any call as a guarded run: what CompiledGraph wraps a graph's own bench
/// entry (rlx_graph_bench) in.
extern "C" __attribute__((visibility("default"))) int
rlx_rt_call_guarded(void (*call)(void *), void *context, char *message,
                    size_t size) {
  return guardedCall(call, context, message, size);
}
