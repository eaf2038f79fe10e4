//===- CPUExecutionTarget.cpp - run graphs on this host's CPU -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/CPUExecutionTarget.h"
#include "rlx/Execution/ExecutionTarget.h"
#include "rlx/Target/CPU/Passes.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

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

static std::string defaultRuntimeLibrary() {
  // The tools live in bin/ and the runtime in lib/, in the build tree and
  // in an installation alike.
  std::string exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&defaultRuntimeLibrary));
  llvm::SmallString<256> path(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(path, "..", "lib", "librlx_cpu_runtime.so");
  return std::string(path);
}

/// Runs rlx-cpu-pipeline on `module` and adds the graph entry.
static llvm::Expected<LoweredGraph>
lower(ModuleOp module, llvm::StringRef entry, const CompileOptions &options) {
  llvm::Expected<GraphSignature> signature =
      GraphSignature::fromModule(module, entry);
  if (!signature)
    return signature.takeError();
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
  rlx::buildRLXCPUPipeline(pm, pipelineOptions);
  if (failed(pm.run(module)) || failed(addGraphEntry(module, *signature)))
    return llvm::createStringError("compiling @" + signature->name +
                                   " for the CPU failed (see the diagnostics "
                                   "above)");

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  LoweredGraph lowered{std::move(*signature), options.runtimeLibrary};
  if (lowered.runtimeLibrary.empty())
    lowered.runtimeLibrary = defaultRuntimeLibrary();
  if (!llvm::sys::fs::exists(lowered.runtimeLibrary))
    return llvm::createStringError("CPU runtime library not found at '" +
                                   lowered.runtimeLibrary +
                                   "' (use --runtime-lib)");
  return lowered;
}

/// The timers that rlx-cpu-profile compiled into `module`, read from the
/// runtime library the graph calls.
static llvm::Expected<ProfileTimers>
bindProfileTimers(ModuleOp module, const std::string &runtime) {
  ProfileTimers timers;
  if (auto attr = module->getAttrOfType<ArrayAttr>(rlx::kProfileLabelsAttrName))
    for (Attribute label : attr)
      timers.labels.push_back(cast<StringAttr>(label).str());
  // The JIT loads the same library; opening it again yields that instance,
  // so these are the timers the graph updates.
  std::string error;
  auto library =
      llvm::sys::DynamicLibrary::getPermanentLibrary(runtime.c_str(), &error);
  if (!library.isValid())
    return llvm::createStringError(error);
  timers.read = reinterpret_cast<decltype(timers.read)>(
      library.getAddressOfSymbol("rlx_rt_profile_read"));
  timers.reset = reinterpret_cast<decltype(timers.reset)>(
      library.getAddressOfSymbol("rlx_rt_profile_reset"));
  if (!timers.read || !timers.reset)
    return llvm::createStringError("the CPU runtime library '" + runtime +
                                   "' has no profile timers (rebuild it)");
  return timers;
}

/// Compiles `module` (LLVM dialect) for this host into a PIC object file.
static llvm::Error emitObjectFile(ModuleOp module, llvm::StringRef objectPath) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto machine = builder->createTargetMachine();
  if (!machine)
    return machine.takeError();
  ExecutionEngine::setupTargetTripleAndDataLayout(llvmModule.get(),
                                                  machine->get());
  if (llvm::Error err =
          makeOptimizingTransformer(3, 0, machine->get())(llvmModule.get()))
    return err;
  std::error_code ec;
  llvm::raw_fd_ostream os(objectPath, ec);
  if (ec)
    return llvm::createStringError("cannot write '" + objectPath +
                                   "': " + ec.message());
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                      llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the host target cannot emit object files");
  codegen.run(*llvmModule);
  return llvm::Error::success();
}

/// Links `objectPath` into the shared library `output` against the CPU
/// runtime (BLAS glue, strided copies, OpenMP).
static llvm::Error linkSharedLibrary(llvm::StringRef objectPath,
                                     llvm::StringRef output,
                                     llvm::StringRef runtimeLib) {
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("cc");
  if (!linker)
    linker = llvm::sys::findProgramByName("clang");
  if (!linker)
    return llvm::createStringError(
        "no C compiler driver (cc or clang) on PATH to link the library");
  std::string runtimeDir(llvm::sys::path::parent_path(runtimeLib));
  std::string rpath = "-Wl,-rpath," + runtimeDir;
  std::string libDir = "-L" + runtimeDir;
  // Always depend on the runtime: it also brings the OpenMP runtime that
  // parallel loops call.
  llvm::SmallVector<llvm::StringRef> args = {*linker,
                                             "-shared",
                                             "-o",
                                             output,
                                             objectPath,
                                             libDir,
                                             rpath,
                                             "-Wl,--no-as-needed",
                                             "-lrlx_cpu_runtime",
                                             "-lm"};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0)
    return llvm::createStringError("linking '" + output + "' failed" +
                                   (message.empty() ? "" : ": " + message));
  return llvm::Error::success();
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
      llvm::Expected<ProfileTimers> bound =
          bindProfileTimers(module, lowered->runtimeLibrary);
      if (!bound)
        return bound.takeError();
      timers = std::move(*bound);
    }
    llvm::StringRef libs[] = {lowered->runtimeLibrary};
    ExecutionEngineOptions engineOptions;
    auto transformer = makeOptimizingTransformer(3, 0, nullptr);
    engineOptions.transformer = transformer;
    engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
    engineOptions.sharedLibPaths = libs;
    auto created = ExecutionEngine::create(module, engineOptions);
    if (!created)
      return llvm::createStringError("JIT compilation failed: " +
                                     llvm::toString(created.takeError()));
    std::shared_ptr<ExecutionEngine> engine = std::move(*created);
    auto address = engine->lookup(kGraphRunSymbol);
    if (!address)
      return llvm::createStringError("JIT compilation failed: " +
                                     llvm::toString(address.takeError()));
    auto graph = std::make_unique<CompiledGraph>(
        std::move(lowered->signature), reinterpret_cast<GraphRunFn>(*address),
        std::move(engine));
    if (timers)
      graph->setProfileTimers(std::move(*timers));
    return graph;
  }

  llvm::Expected<GraphSignature>
  emitSharedLibrary(ModuleOp module, llvm::StringRef entry,
                    llvm::StringRef outputPath,
                    const CompileOptions &options) const override {
    if (options.profile)
      return llvm::createStringError(
          "per-op timers need a graph compiled in this process; a shared "
          "library carries no timer labels");
    llvm::Expected<LoweredGraph> lowered = lower(module, entry, options);
    if (!lowered)
      return lowered.takeError();
    llvm::SmallString<128> object;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("rlx-graph", "o", object))
      return llvm::createStringError("cannot create a temporary object file: " +
                                     ec.message());
    llvm::Error error = emitObjectFile(module, object);
    if (!error)
      error = linkSharedLibrary(object, outputPath, lowered->runtimeLibrary);
    llvm::sys::fs::remove(object);
    if (error)
      return std::move(error);
    return std::move(lowered->signature);
  }
};

} // namespace

void rlxrt::registerCPUExecutionTarget() {
  registerExecutionTarget(std::make_unique<CPUExecutionTarget>());
}
