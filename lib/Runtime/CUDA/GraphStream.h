//===- GraphStream.h - the stream compiled graphs run on --------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A compiled graph asks for a stream wherever a chain of its asynchronous
// copies and launches starts (mgpuStreamCreate) and destroys it where the
// chain ends. Each calling thread gets one stream for all of them instead,
// created once and kept: no run pays for creating streams, work that the
// graph does outside the chains (the runtime's own calls) stays ordered
// with its kernels, and a runner can time a run with events on it.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_RUNTIME_CUDA_GRAPHSTREAM_H
#define RLX_LIB_RUNTIME_CUDA_GRAPHSTREAM_H

#include "Driver.h"

namespace rlxrt::cuda {

/// The calling thread's graph stream, created on first use.
CUstream graphStream(const Session &cu);

/// Whether `stream` is a thread's graph stream (which is never destroyed).
bool isGraphStream(CUstream stream);

/// Called when a compiled graph's module is unloaded: a CUDA graph captured
/// before (GraphRunner.cpp) may launch its kernels and is never replayed
/// again. The library that held it may even be replaced by another at the
/// same address.
void noteModuleUnload();

} // namespace rlxrt::cuda

#endif // RLX_LIB_RUNTIME_CUDA_GRAPHSTREAM_H
