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

#include "rlx/Execution/GraphSignature.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"

namespace rlxrt {

using GraphRunFn = void (*)(void **descriptors);

inline constexpr llvm::StringLiteral kGraphRunSymbol = "rlx_graph_run";
inline constexpr llvm::StringLiteral kGraphSignatureSymbol =
    "rlx_graph_signature";

/// Adds `rlx_graph_run` and `rlx_graph_signature` to a module lowered to
/// the LLVM dialect whose graph has a C interface.
mlir::LogicalResult addGraphEntry(mlir::ModuleOp module,
                                  const GraphSignature &signature);

/// The argument of `rlx_graph_run` for dense row-major tensors: one ranked
/// memref descriptor {allocated, aligned, offset, sizes[rank],
/// strides[rank]} per tensor, and the array of pointers to them.
class MemRefDescriptors {
public:
  /// Describes `tensors` in order. The graph reads and writes their memory
  /// through the descriptors; the tensors must outlive every call.
  explicit MemRefDescriptors(llvm::ArrayRef<const HostTensor *> tensors);

  void **get() { return pointers.data(); }

private:
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> pointers;
};

} // namespace rlxrt

#endif // RLX_EXECUTION_GRAPHENTRY_H
