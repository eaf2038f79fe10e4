//===- CPUExecutionTarget.cpp - run graphs on this host's CPU -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/CPUExecutionTarget.h"
#include "rlx/Execution/ExecutionTarget.h"
#include "rlx/Execution/GraphEntry.h"
#include "rlx/Execution/HostCode.h"
#include "rlx/Target/CPU/Passes.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/FileSystem.h"

#include <mutex>

using namespace mlir;
using namespace rlxrt;

namespace {

/// A module lowered for the CPU, with its graph entry.
struct LoweredGraph {
  GraphSignature signature;
  /// The runtime library the code calls.
  std::string runtimeLibrary;
};
} // namespace

/// Runs rlx-cpu-pipeline on `module` and adds the graph entry.
static llvm::Expected<LoweredGraph>
lower(ModuleOp module, llvm::StringRef entry, const CompileOptions &options) {
  llvm::Expected<GraphSignature> signature =
      GraphSignature::fromModule(module, entry);
  if (!signature)
    return signature.takeError();
  // Only the graph and what it uses: --entry f compiles f alone.
  eraseUnreachedFunctions(module, signature->name);
  // rlx-cpu-pipeline appends upstream pipelines in textual form, which
  // find their passes in the registry; an embedder need not have filled it.
  static std::once_flag passesRegistered;
  std::call_once(passesRegistered, [] { mlir::registerAllPasses(); });
  DialectRegistry translations;
  registerAllToLLVMIRTranslations(translations);
  module.getContext()->appendDialectRegistry(translations);

  PassManager pm(module.getContext());
  rlx::CPUPipelineOptions pipelineOptions;
  pipelineOptions.useBlas = options.useBlas;
  pipelineOptions.profile = options.profile;
  if (llvm::Error error = parsePipelineOptions(
          pipelineOptions, options.pipelineOptions, "rlx-cpu-pipeline"))
    return std::move(error);
  rlx::buildRLXCPUPipeline(pm, pipelineOptions);
  if (failed(runCompilePipeline(pm, module, options.timing)) ||
      failed(addGraphEntry(module, *signature)))
    return llvm::createStringError("compiling @" + signature->name +
                                   " for the CPU failed (see the diagnostics "
                                   "above)");

  llvm::Expected<std::string> runtime = findRuntimeLibrary(
      options.runtimeLibrary, "librlx_cpu_runtime.so", "CPU");
  if (!runtime)
    return runtime.takeError();
  return LoweredGraph{std::move(*signature), std::move(*runtime)};
}

namespace {
class CPUExecutionTarget : public ExecutionTarget {
public:
  llvm::StringRef getName() const override { return "cpu"; }
  llvm::StringRef getDescription() const override {
    return "this host's CPU (LLVM, OpenMP threads, OpenBLAS)";
  }

  llvm::Expected<std::unique_ptr<CompiledGraph>>
  compile(ModuleOp module, llvm::StringRef entry,
          const CompileOptions &options) const override {
    llvm::Expected<LoweredGraph> lowered = lower(module, entry, options);
    if (!lowered)
      return lowered.takeError();
    std::optional<ProfileTimers> timers;
    if (options.profile) {
      llvm::Expected<ProfileTimers> bound = bindModuleProfileTimers(
          module, lowered->runtimeLibrary, "the CPU runtime library");
      if (!bound)
        return bound.takeError();
      timers = std::move(*bound);
    }
    llvm::Expected<std::unique_ptr<CompiledGraph>> graph =
        jitCompileGraph(module, std::move(lowered->signature),
                        lowered->runtimeLibrary, options.timing);
    if (!graph)
      return graph.takeError();
    if (timers)
      (*graph)->setProfileTimers(std::move(*timers));
    return graph;
  }
  llvm::Expected<GraphSignature>
  emitSharedLibrary(ModuleOp module, llvm::StringRef entry,
                    llvm::StringRef outputPath,
                    const CompileOptions &options) const override {
    // With options.profile the library carries its timers' labels
    // (rlx_graph_profile_labels), for `--load --profile`.
    llvm::Expected<LoweredGraph> lowered = lower(module, entry, options);
    if (!lowered)
      return lowered.takeError();
    if (llvm::Error error = emitHostSharedLibrary(
            module, outputPath, lowered->runtimeLibrary, options.timing))
      return std::move(error);
    return std::move(lowered->signature);
  }
  // Both paths lower with the same pipeline for this host's CPU and compile
  // with the same LLVM settings.
  bool supportsCompileCache() const override { return true; }
};

} // namespace

void rlxrt::registerCPUExecutionTarget() {
  registerExecutionTarget(std::make_unique<CPUExecutionTarget>());
}
