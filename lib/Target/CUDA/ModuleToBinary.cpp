//===- ModuleToBinary.cpp - gpu.modules to binaries on several threads ----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-cuda-module-to-binary (Passes.td): upstream's gpu-module-to-binary
// with the modules serialized in parallel, then replaced in order.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCUDAMODULETOBINARY
#include "rlx/Target/CUDA/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {

/// One target of one module, and what serializing it gave.
struct Serialization {
  gpu::GPUModuleOp module;
  gpu::TargetAttrInterface target;
  std::optional<SmallVector<char, 0>> object;
};

struct ModuleToBinaryPass
    : rlx::impl::RLXCUDAModuleToBinaryBase<ModuleToBinaryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<gpu::CompilationTarget> kind =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
            .Cases({"assembly", "isa"}, gpu::CompilationTarget::Assembly)
            .Cases({"binary", "bin"}, gpu::CompilationTarget::Binary)
            .Cases({"fatbinary", "fatbin"}, gpu::CompilationTarget::Fatbin)
            .Default(std::nullopt);
    if (!kind) {
      module.emitError() << "rlx-cuda-module-to-binary: format '" << format
                         << "' is not isa, bin or fatbin";
      return signalPassFailure();
    }
    // Built before the threads start: they only read it.
    SymbolTable symbols(module);
    gpu::TargetOptions options(/*toolkitPath=*/"", /*librariesToLink=*/{},
                               /*cmdOptions=*/"", /*elfSection=*/"", *kind,
                               [&]() -> SymbolTable * { return &symbols; });

    SmallVector<Serialization> jobs;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      ArrayAttr targets = gpuModule.getTargetsAttr();
      if (!targets || targets.empty()) {
        gpuModule.emitError("the module has no target attributes");
        return signalPassFailure();
      }
      for (Attribute target : targets)
        jobs.push_back(
            {gpuModule, cast<gpu::TargetAttrInterface>(target), std::nullopt});
    }
    auto serialize = [&](Serialization &job) -> LogicalResult {
      job.object = job.target.serializeToObject(job.module, options);
      if (!job.object)
        return job.module.emitError(
            "an error happened while serializing the module");
      return success();
    };
    // The first alone: what serializing loads into the context on first
    // use (dialects, translation interfaces) is then loaded.
    bool anyFailed = !jobs.empty() && llvm::failed(serialize(jobs.front()));
    if (jobs.size() > 1 &&
        llvm::failed(failableParallelForEach(
            &getContext(), MutableArrayRef(jobs).drop_front(), serialize)))
      anyFailed = true;
    if (anyFailed)
      return signalPassFailure();

    OpBuilder builder(&getContext());
    for (size_t first = 0; first < jobs.size();) {
      gpu::GPUModuleOp gpuModule = jobs[first].module;
      SmallVector<Attribute> objects;
      size_t end = first;
      for (; end < jobs.size() && jobs[end].module == gpuModule; ++end) {
        Attribute object = jobs[end].target.createObject(
            gpuModule, *jobs[end].object, options);
        if (!object) {
          gpuModule.emitError("an error happened while creating the object");
          return signalPassFailure();
        }
        objects.push_back(object);
      }
      builder.setInsertionPointAfter(gpuModule);
      gpu::BinaryOp::create(
          builder, gpuModule.getLoc(), gpuModule.getName(),
          dyn_cast_or_null<gpu::OffloadingLLVMTranslationAttrInterface>(
              gpuModule.getOffloadingHandlerAttr()),
          builder.getArrayAttr(objects));
      gpuModule->erase();
      first = end;
    }
  }
};

} // namespace
