//===- ExecutionTarget.h - targets that compile and run graphs --*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A target turns a module of rlx graphs into a CompiledGraph (JIT) or a
// shared library (ahead of time). Targets register themselves by name;
// runners look them up by the name a user gives:
//
//   mlir::rlx::registerAllExecutionTargets();          // rlx/InitRLX.h
//   auto target = rlxrt::lookupExecutionTarget("cpu");
//   auto graph = (*target)->compile(module, "mlp", {});
//   auto outputs = (*graph)->run(arguments);
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_EXECUTIONTARGET_H
#define RLX_EXECUTION_EXECUTIONTARGET_H

#include "rlx/Execution/CompiledGraph.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace rlxrt {

struct CompileOptions {
  /// Call the vendor BLAS for large matmuls.
  bool useBlas = true;
  /// Compile with per-op timers (CompiledGraph::readProfile).
  bool profile = false;
  /// Options of the target's pipeline in the textual form rlx-opt takes
  /// (`rlx-cpu-pipeline`, `rlx-cuda-pipeline`), such as
  /// "allow-tf32 block-size=128"; applied after `useBlas` and `profile`.
  std::string pipelineOptions;
  /// Path of the target's runtime library, which compiled graphs call and
  /// link against. Empty: the target's default location.
  std::string runtimeLibrary;
  /// Print MLIR's pass timing report and the time of every compile phase
  /// on stderr (CompilePhase).
  bool timing = false;
};

class ExecutionTarget {
public:
  virtual ~ExecutionTarget();

  /// The name users select the target by (`cpu`).
  virtual llvm::StringRef getName() const = 0;
  /// One line for listings.
  virtual llvm::StringRef getDescription() const = 0;

  /// Lowers graph `entry` of `module` (the only public function if empty)
  /// in place and compiles it to code that runs in this process.
  virtual llvm::Expected<std::unique_ptr<CompiledGraph>>
  compile(mlir::ModuleOp module, llvm::StringRef entry,
          const CompileOptions &options) const = 0;

  /// Lowers graph `entry` of `module` in place and writes a shared library
  /// with the graph entry (GraphEntry.h) to `outputPath`; it needs only the
  /// target's runtime library to run. Returns the graph's signature.
  virtual llvm::Expected<GraphSignature>
  emitSharedLibrary(mlir::ModuleOp module, llvm::StringRef entry,
                    llvm::StringRef outputPath,
                    const CompileOptions &options) const = 0;

  /// Whether the library emitSharedLibrary writes runs in this process as
  /// the graph `compile` returns would, so the compile cache
  /// (CompileCache.h) may store it in place of compiling. A target whose
  /// compile depends on more than the cache key holds (the devices of
  /// this process) says no, and is compiled each time.
  virtual bool supportsCompileCache() const { return false; }
};

/// Makes `target` available by its name. A second target of the same name
/// is ignored, so registration may run more than once.
void registerExecutionTarget(std::unique_ptr<ExecutionTarget> target);

/// The target named `name`, or an error listing the registered ones:
/// `unknown target 'x' (available: cpu)`.
llvm::Expected<const ExecutionTarget *>
lookupExecutionTarget(llvm::StringRef name);

/// The names of the registered targets, sorted.
std::vector<std::string> getExecutionTargetNames();

} // namespace rlxrt

#endif // RLX_EXECUTION_EXECUTIONTARGET_H
