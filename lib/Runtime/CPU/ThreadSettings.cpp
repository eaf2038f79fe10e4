//===- ThreadSettings.cpp - OpenMP defaults of compiled graphs ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Compiled graphs alternate OpenMP loops with OpenBLAS calls, which run on
// OpenBLAS's own threads. By default an OpenMP worker spins for 200 ms after
// its loop, taking a core from the GEMM that follows: a 1024^3 sgemm then
// runs at half speed about one time in three. One millisecond covers the gap
// between neighbouring loops and releases the core for the GEMM. An explicit
// KMP_BLOCKTIME in the environment still wins.
//
//===----------------------------------------------------------------------===//

#include <cstdlib>

// The LLVM OpenMP runtime's extension API (omp.h's kmp_* functions).
extern "C" void kmp_set_blocktime(int milliseconds);

namespace {

struct OpenMPDefaults {
  OpenMPDefaults() {
    // The OpenMP runtime has read its environment by the time this library
    // is loaded, so set the blocktime through its API. It applies to the
    // loading thread's parallel regions: runners load the runtime and run
    // graphs on the same thread.
    if (!std::getenv("KMP_BLOCKTIME"))
      kmp_set_blocktime(1);
  }
};

const OpenMPDefaults openMPDefaults;

} // namespace
