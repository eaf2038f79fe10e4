//===- AheadOfTime.h - graphs as shared libraries ---------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A compiled graph, JIT or shared library, exports the same two symbols:
//   const char rlx_graph_signature[];   // GraphSignature::serialize()
//   void rlx_graph_run(void **descriptors);
// `rlx_graph_run` takes one memref descriptor pointer per argument, then
// one per output, and calls `_mlir_ciface_<graph>`.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TOOLS_RLXRUN_AHEADOFTIME_H
#define RLX_TOOLS_RLXRUN_AHEADOFTIME_H

#include "GraphSignature.h"

#include "mlir/IR/BuiltinOps.h"

namespace rlxrt {

using GraphRunFn = void (*)(void **);

/// Adds `rlx_graph_run` and `rlx_graph_signature` to a module lowered to
/// the LLVM dialect.
mlir::LogicalResult addGraphEntry(mlir::ModuleOp module,
                                  const GraphSignature &signature);

/// Compiles a module with the graph entry to an object file for this host,
/// then links it with the CPU runtime into a shared library at `output`.
/// Fails with a message.
bool emitSharedLibrary(mlir::ModuleOp module, const std::string &output,
                       const std::string &runtimeLib, std::string &error);

/// A graph loaded from a shared library made by emitSharedLibrary.
struct LoadedGraph {
  GraphSignature signature;
  GraphRunFn run;
};
std::optional<LoadedGraph> loadSharedLibrary(const std::string &path,
                                             std::string &error);

} // namespace rlxrt

#endif // RLX_TOOLS_RLXRUN_AHEADOFTIME_H
