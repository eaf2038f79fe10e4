//===- RunStatus.cpp - failures of compiled graphs' runs ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A failure inside a compiled graph's run (a temporary buffer that cannot be
// allocated, a run-time shape check, a custom op's kernel) ends the run with
// an error, never the process: the graph runs inside other programs (the C
// API, Python). The runtime function that fails records the failure in the
// run's status and returns; the compiled code checks the status after each
// failable call and returns early (rlx-cpu-return-on-failure; the design is
// in docs/architecture.md, "Failures in compiled code").
//
// The status lives on the run's calling thread: the compiled code makes its
// failable calls there (the pass rejects one inside a parallel loop), and
// kernels that use threads of their own report on it. A run is started by
// rlx_rt_run_guarded, which runners call and which returns the failure to
// them, or else by the graph's C interface (rlx_rt_run_enter/exit) when a
// program calls rlx_graph_run directly; such a failure has nowhere to go but
// stderr. Either way the buffers of the pool the failed run still holds are
// freed when it ends, so nothing leaks and the graph can run again.
//
//===----------------------------------------------------------------------===//

#include "RunStatus.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <unordered_set>

extern "C" void _mlir_memref_to_llvm_free(void *block);

namespace {

struct Run {
  bool failed = false;
  bool outOfMemory = false;
  /// Fixed storage: recording a failure must not allocate (it may be the
  /// allocation that failed).
  char message[1024] = {0};
  /// The pool blocks handed out during the run and not freed yet.
  std::unordered_set<void *> blocks;
};

/// The run on this thread, if any.
thread_local Run *currentRun = nullptr;
/// The run of a graph called directly (rlx_rt_run_enter), reused.
thread_local Run directRun;

/// Frees the blocks a failed run still holds: what it allocated before the
/// failure, including outputs it would have returned.
void releaseBlocks(Run &run) {
  std::unordered_set<void *> blocks;
  blocks.swap(run.blocks);
  for (void *block : blocks)
    _mlir_memref_to_llvm_free(block);
}

void reset(Run &run) {
  run.failed = false;
  run.outOfMemory = false;
  run.message[0] = '\0';
  run.blocks.clear();
}

} // namespace

void rlxrt::cpu::recordRunFailure(const char *message, bool outOfMemory) {
  Run *run = currentRun;
  if (!run || run->failed)
    return;
  run->failed = true;
  run->outOfMemory = outOfMemory;
  std::snprintf(run->message, sizeof(run->message), "%s",
                message ? message : "unknown failure");
}

bool rlxrt::cpu::noteRunAllocation(void *block) {
  Run *run = currentRun;
  if (!run)
    return true;
  try {
    run->blocks.insert(block);
  } catch (const std::bad_alloc &) {
    return false;
  }
  return true;
}

void rlxrt::cpu::noteRunFree(void *block) {
  if (Run *run = currentRun)
    run->blocks.erase(block);
}

extern "C" {

/// Called by the compiled code where a run-time check fails (a `?` dim bound
/// inconsistently, rlx-cpu-lower-shape-checks); the code returns right after.
__attribute__((visibility("default"))) void rlx_rt_fail(const char *message) {
  rlxrt::cpu::recordRunFailure(message);
}

/// Whether the run on this thread has failed: what the compiled code checks
/// after each call that can fail.
__attribute__((visibility("default"))) int32_t rlx_rt_run_failed(void) {
  Run *run = currentRun;
  return run && run->failed;
}

/// Called on entry to a graph's C interface: starts a run unless one is
/// under way on this thread (rlx_rt_run_guarded's); returns whether it did.
__attribute__((visibility("default"))) int32_t rlx_rt_run_enter(void) {
  if (currentRun)
    return 0;
  reset(directRun);
  currentRun = &directRun;
  return 1;
}

/// Called when a graph's C interface returns, with rlx_rt_run_enter's
/// result. A run started there has no caller to report to: its failure is
/// printed.
__attribute__((visibility("default"))) void rlx_rt_run_exit(int32_t started) {
  if (!started || currentRun != &directRun)
    return;
  currentRun = nullptr;
  if (directRun.failed) {
    releaseBlocks(directRun);
    std::fprintf(stderr, "error: %s\n", directRun.message);
    std::fflush(stderr);
  }
  reset(directRun);
}

/// Runs `run(descriptors)` as one run: returns 0 when it succeeded, else the
/// failure's message in `message` and 1, or 2 when the failure was an
/// allocation. The run's buffers are freed on failure.
__attribute__((visibility("default"))) int
rlx_rt_run_guarded(void (*run)(void **), void **descriptors, char *message,
                   size_t size) {
  Run state;
  Run *outer = currentRun;
  currentRun = &state;
  run(descriptors);
  currentRun = outer;
  if (!state.failed)
    return 0;
  releaseBlocks(state);
  if (message && size > 0)
    std::snprintf(message, size, "%s", state.message);
  return state.outOfMemory ? 2 : 1;
}

/// Declares that several threads may run one graph of this runtime at once
/// (CompiledGraph::allowsConcurrentRuns): a run's status is per thread and
/// its buffers come from the locked pool, one set per run.
__attribute__((visibility("default"))) int32_t rlx_rt_concurrent_runs(void) {
  return 1;
}

/// Outputs a graph returns are buffers of the runtime's pool.
__attribute__((visibility("default"))) void
rlx_rt_free_output(void *allocated) {
  _mlir_memref_to_llvm_free(allocated);
}

} // extern "C"
