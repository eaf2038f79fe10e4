//===- GraphEntry.h - the entry point of compiled graphs --------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Every compiled graph, JIT or shared library and whatever its target,
// exports the same two symbols (docs/abi.md):
//   const char rlx_graph_signature[];   // GraphSignature::serialize()
//   void rlx_graph_run(void **descriptors);
// `rlx_graph_run` takes one memref descriptor pointer per argument, then
// one per output, and calls `_mlir_ciface_<graph>`.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_GRAPHENTRY_H
#define RLX_EXECUTION_GRAPHENTRY_H

#include "rlx/Execution/GraphABI.h"
#include "rlx/Execution/GraphSignature.h"

#include "mlir/IR/BuiltinOps.h"

namespace rlxrt {

/// Adds to a module lowered to the LLVM dialect `void
/// <entrySymbol>(void **descriptors)`, which calls the graph's C interface
/// `_mlir_ciface_<graph>` with one descriptor pointer per argument, then per
/// output, and the `rlx_graph_signature` string. Targets whose graphs do not
/// run on host memory name the call of the graph itself otherwise and add
/// an `rlx_graph_run` that moves the data.
mlir::LogicalResult
addGraphEntry(mlir::ModuleOp module, const GraphSignature &signature,
              llvm::StringRef entrySymbol = kGraphRunSymbol);

/// Erases every function of `module` that the graph function `graph` does
/// not reach through symbol uses (calls and any other reference, also from
/// the module's other top-level ops), before the target lowers it: a module
/// of several graphs compiles only the one that runs, and a function the
/// target cannot compile fails only the graphs that use it. Leaves the
/// module as it is when some op's symbol uses cannot be known.
void eraseUnreachedFunctions(mlir::ModuleOp module, llvm::StringRef graph);
} // namespace rlxrt

#endif // RLX_EXECUTION_GRAPHENTRY_H
