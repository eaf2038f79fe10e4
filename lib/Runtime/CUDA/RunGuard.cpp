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
// A program that calls a graph's entry (rlx_graph_run) directly gets
// such a guard from the entry itself (runGraphEntry): the failure is
// printed and kept as the thread's last run error, and the entry returns.
//
// Fatal still exits where a throw could not reach the guard: while another
// exception unwinds, and where a frame between fatal() and the guard has no
// unwind information (a compiled graph's code built without it): the frames
// are walked first, and a walk that does not reach the guard exits as
// before. Releasing entry points (frees, destroys, unloads) run in
// destructors, where a throw would end the process through std::terminate:
// their failures are deferred instead (deferFailure), to the end of the
// guarded run they happen in, which returns the first as its status, or,
// outside one, to the thread's last release error
// (rlx_cuda_last_release_error).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <utility>

#include <unwind.h>

using namespace rlxrt::cuda;

namespace {
/// Guarded runs under way on this thread (nested runs count each).
thread_local int guardedRuns = 0;
/// Live ExitOnFatal scopes on this thread.
thread_local int exitScopes = 0;

/// A failure deferFailure recorded: the guarded run's under way, or the
/// thread's last release error outside one.
struct Deferred {
  bool failed = false;
  std::string message;
};
thread_local Deferred inRun;
thread_local Deferred lastRelease;
/// The last failure of a graph entry called outside a guarded run.
thread_local Deferred lastDirectRun;
} // namespace

void rlxrt::cuda::deferFailure(const std::string &text) {
  Deferred &into = guardedRuns > 0 ? inRun : lastRelease;
  if (into.failed)
    return;
  into.failed = true;
  into.message = text;
}

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
  // A nested run keeps its own deferred failure; the outer one's waits.
  Deferred outer = std::move(inRun);
  inRun = Deferred();
  auto end = [&](int status, const std::string &text) {
    --guardedRuns;
    if (status == 0 && inRun.failed) {
      // A free or destroy of the run failed, and nothing else did.
      status = 1;
      if (message && size > 0)
        std::snprintf(message, size, "%s", inRun.message.c_str());
    } else if (status != 0 && message && size > 0) {
      std::snprintf(message, size, "%s", text.c_str());
    }
    inRun = std::move(outer);
    return status;
  };
  ++guardedRuns;
  try {
    call(context);
  } catch (const RunFailure &failure) {
    return end(failure.outOfMemory ? 2 : 1, failure.message);
  } catch (const std::bad_alloc &) {
    // Host memory for the runtime's own bookkeeping.
    return end(2, "out of host memory in the CUDA runtime");
  } catch (const std::exception &error) {
    return end(1, error.what());
  }
  return end(0, "");
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

void rlxrt::cuda::runGraphEntry(void (*call)(void *), void *context) {
  if (guardedRuns > 0) {
    call(context);
    return;
  }
  char message[2048];
  if (guardedCall(call, context, message, sizeof message) == 0)
    return;
  lastDirectRun.failed = true;
  lastDirectRun.message = message;
  std::fprintf(stderr, "error: %s\n", message);
  std::fflush(stderr);
}

/// Takes the calling thread's last failure of a graph entry called outside
/// a guarded run (runGraphEntry): 1 and its message, else 0.
extern "C" __attribute__((visibility("default"))) int
rlx_cuda_last_run_error(char *message, size_t size) {
  Deferred taken = std::move(lastDirectRun);
  lastDirectRun = Deferred();
  if (message && size > 0)
    std::snprintf(message, size, "%s",
                  taken.failed ? taken.message.c_str() : "");
  return taken.failed;
}

/// Takes the calling thread's last release error: the first failure of a
/// free, destroy or unload outside any guarded run since the last call.
extern "C" __attribute__((visibility("default"))) int
rlx_cuda_last_release_error(char *message, size_t size) {
  if (!lastRelease.failed) {
    if (message && size > 0)
      message[0] = '\0';
    return 0;
  }
  if (message && size > 0)
    std::snprintf(message, size, "%s", lastRelease.message.c_str());
  lastRelease = Deferred();
  return 1;
}

/// Any call as a guarded run: what CompiledGraph wraps a graph's own bench
/// entry (rlx_graph_bench) in.
extern "C" __attribute__((visibility("default"))) int
rlx_rt_call_guarded(void (*call)(void *), void *context, char *message,
                    size_t size) {
  return guardedCall(call, context, message, size);
}
