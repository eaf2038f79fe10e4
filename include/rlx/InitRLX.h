//===- InitRLX.h - register everything an rlx tool needs --------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_INITRLX_H
#define RLX_INITRLX_H

namespace mlir {
class DialectRegistry;
namespace rlx {

/// Adds the rlx dialect and every upstream dialect and dialect extension
/// the rlx pipelines produce or consume.
void registerAllDialects(DialectRegistry &registry);

/// Registers the rlx passes and pipelines and the upstream passes.
void registerAllPasses();

/// Registers every execution target (rlx/Execution/ExecutionTarget.h) this
/// build has: `cpu`.
void registerAllExecutionTargets();

} // namespace rlx
} // namespace mlir

#endif // RLX_INITRLX_H
