//===- ShapeChecks.cpp - run-time shape errors and returned outputs -------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Graphs with `?` dims check at run time that the sizes of their inputs
// agree (rlx-cpu-lower-shape-checks); a failed check calls
// rlx_rt_shape_error. Compiled code has no error path of its own, so a run
// started by rlx_rt_run_guarded returns to it with the message (longjmp:
// the checks run on the graph's calling thread, outside parallel loops, and
// the frames it skips are compiled code without destructors). Outside a
// guarded run the process prints the message and exits with status 1.
//
//===----------------------------------------------------------------------===//

#include <csetjmp>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" void _mlir_memref_to_llvm_free(void *block);

namespace {
struct Guard {
  std::jmp_buf jump;
  const char *message = nullptr;
};
thread_local Guard *activeGuard = nullptr;
} // namespace

extern "C" void rlx_rt_shape_error(const char *message) {
  if (Guard *guard = activeGuard) {
    guard->message = message;
    std::longjmp(guard->jump, 1);
  }
  std::fprintf(stderr, "error: %s\n", message);
  std::fflush(stderr);
  // _Exit: the graph's threads may still run; exit handlers must not.
  std::_Exit(1);
}

extern "C" int rlx_rt_run_guarded(void (*run)(void **), void **descriptors,
                                  char *message, size_t size) {
  Guard guard;
  Guard *outer = activeGuard;
  activeGuard = &guard;
  if (setjmp(guard.jump) == 0) {
    run(descriptors);
    activeGuard = outer;
    return 0;
  }
  activeGuard = outer;
  if (message && size > 0) {
    std::strncpy(message, guard.message, size - 1);
    message[size - 1] = '\0';
  }
  return 1;
}

/// Outputs a graph returns are buffers of the runtime's pool.
extern "C" void rlx_rt_free_output(void *allocated) {
  _mlir_memref_to_llvm_free(allocated);
}
