//===- HostCode.cpp - a graph's host code, JIT or shared library --------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/HostCode.h"
#include "rlx/Execution/CompilePhase.h"
#include "rlx/Execution/GraphABI.h"
#include "rlx/Runtime/FileIO.h"
#include "rlx/Transforms/OpLabels.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
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

#include <unistd.h>

using namespace mlir;
using namespace rlxrt;

llvm::Error rlxrt::parsePipelineOptions(mlir::detail::PassOptions &options,
                                        llvm::StringRef text,
                                        llvm::StringRef pipelineName) {
  std::string message;
  llvm::raw_string_ostream stream(message);
  if (succeeded(options.parseFromString(text, stream)))
    return llvm::Error::success();
  // The option parser reports a bad value on stderr itself, and only
  // structural errors (an unknown option) through the stream.
  llvm::StringRef detail = llvm::StringRef(message).trim();
  return llvm::createStringError(
      "invalid options '" + text.str() + "' for " + pipelineName.str() +
      (detail.empty() ? " (see the message above)" : ": " + detail.str()));
}

llvm::Expected<std::string>
rlxrt::findRuntimeLibrary(llvm::StringRef requested, llvm::StringRef fileName,
                          llvm::StringRef targetLabel) {
  std::string path = requested.str();
  if (path.empty()) {
    // The tools live in bin/ and the runtime in lib/, in the build tree and
    // in an installation alike.
    std::string exe = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&rlxrt::findRuntimeLibrary));
    llvm::SmallString<256> beside(llvm::sys::path::parent_path(exe));
    llvm::sys::path::append(beside, "..", "lib", fileName);
    path = std::string(beside);
  }
  if (!llvm::sys::fs::exists(path))
    return llvm::createStringError(targetLabel +
                                   " runtime library not found "
                                   "at '" +
                                   path + "' (use --runtime-lib)");
  return path;
}

llvm::Error rlxrt::writeFailure(const llvm::Twine &message) {
  return llvm::make_error<llvm::StringError>(
      message, std::make_error_code(std::errc::io_error));
}

bool rlxrt::isWriteFailure(const llvm::Error &error) {
  bool found = false;
  // Inspected without consuming: the caller still reports or handles it.
  llvm::visitErrors(error, [&](const llvm::ErrorInfoBase &info) {
    found |= info.convertToErrorCode() == std::errc::io_error;
  });
  return found;
}

/// Compiles `module` (LLVM dialect) for this host into a PIC object file.
static llvm::Error emitObjectFile(ModuleOp module, llvm::StringRef objectPath,
                                  bool timing) {
  llvm::LLVMContext llvmContext;
  std::optional<CompilePhase> phase(std::in_place, "translation to LLVM IR",
                                    timing);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  phase.reset();
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
  phase.emplace("LLVM optimization", timing);
  if (llvm::Error err =
          makeOptimizingTransformer(3, 0, machine->get())(llvmModule.get()))
    return err;
  phase.emplace("LLVM code generation", timing);
  std::error_code ec;
  llvm::raw_fd_ostream os(objectPath, ec);
  if (ec)
    return writeFailure("cannot write '" + objectPath + "': " + ec.message());
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                      llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the host target cannot emit object files");
  codegen.run(*llvmModule);
  // A failed write (a full disk) must be an error, not the stream's fatal
  // error when it is destroyed with the failure unread.
  os.close();
  if (os.has_error()) {
    std::error_code writeError = os.error();
    os.clear_error();
    return writeFailure("cannot write '" + objectPath +
                        "': " + writeError.message());
  }
  return llvm::Error::success();
}

/// Links `objectPath` into the shared library `output`, which depends on
/// the runtime library even where no symbol needs it yet (the CPU runtime
/// also brings the OpenMP runtime that parallel loops call). Errors name
/// the library `name`.
static llvm::Error linkSharedLibrary(llvm::StringRef objectPath,
                                     llvm::StringRef output,
                                     llvm::StringRef runtimeLib,
                                     llvm::StringRef name) {
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("cc");
  if (!linker)
    linker = llvm::sys::findProgramByName("clang");
  if (!linker)
    return writeFailure(
        "no C compiler driver (cc or clang) on PATH to link the library");
  std::string runtimeDir(llvm::sys::path::parent_path(runtimeLib));
  // The library's own folder first, so a copy moved with its runtime runs
  // anywhere; then the runtime it was compiled against.
  std::string rpath = "-Wl,-rpath,$ORIGIN:" + runtimeDir;
  std::string libDir = "-L" + runtimeDir;
  std::string runtimeName = "-l:" + llvm::sys::path::filename(runtimeLib).str();
  llvm::SmallVector<llvm::StringRef> args = {
      *linker,     "-shared", "-o",  output,
      objectPath,  libDir,    rpath, "-Wl,--no-as-needed",
      runtimeName, "-lm"};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0)
    return writeFailure("linking '" + name + "' failed" +
                        (message.empty() ? "" : ": " + message));
  return llvm::Error::success();
}

LogicalResult rlxrt::runCompilePipeline(PassManager &pm, ModuleOp module,
                                        bool timing) {
  // The pass manager owns the timing manager, which prints its report when
  // the pass manager goes.
  if (timing)
    pm.enableTiming();
  CompilePhase phase("pass pipeline", timing);
  bool errorReported = false;
  ScopedDiagnosticHandler seeErrors(module.getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      errorReported = true;
    return failure(); // Not handled here: printed as before.
  });
  LogicalResult result = pm.run(module);
  return failure(failed(result) || errorReported);
}

llvm::Error rlxrt::emitHostSharedLibrary(ModuleOp module,
                                         llvm::StringRef outputPath,
                                         llvm::StringRef runtimeLibrary,
                                         bool timing) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::SmallString<128> object;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("rlx-graph", "o", object))
    return writeFailure("cannot create a temporary object file: " +
                        ec.message());
  llvm::Error error = emitObjectFile(module, object, timing);
  if (error) {
    llvm::sys::fs::remove(object);
    return error;
  }
  // Linked beside `outputPath` and renamed over it, so a failed link (a full
  // disk) leaves no truncated library where a loader would map it.
  llvm::SmallString<256> temp(llvm::sys::path::parent_path(outputPath));
  llvm::sys::path::append(temp, "." + llvm::sys::path::filename(outputPath) +
                                    ".tmp-%%%%%%");
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(temp, fd, temp)) {
    llvm::sys::fs::remove(object);
    return writeFailure("cannot write '" + outputPath + "': " + ec.message());
  }
  ::close(fd);
  {
    CompilePhase phase("linking", timing);
    error = linkSharedLibrary(object, temp, runtimeLibrary, outputPath);
  }
  llvm::sys::fs::remove(object);
  if (!error)
    if (std::optional<std::string> reason = detail::injectedWriteFailure())
      error = writeFailure("cannot write '" + outputPath + "': " + *reason);
  if (!error)
    if (std::error_code ec = llvm::sys::fs::rename(temp, outputPath))
      error =
          writeFailure("cannot write '" + outputPath + "': " + ec.message());
  if (error)
    llvm::sys::fs::remove(temp);
  return error;
}

llvm::Expected<std::unique_ptr<CompiledGraph>>
rlxrt::jitCompileGraph(ModuleOp module, GraphSignature signature,
                       llvm::StringRef runtimeLibrary, bool timing) {
  CompilePhase phase("LLVM JIT compilation", timing);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::StringRef libs[] = {runtimeLibrary};
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
  auto run = engine->lookup(kGraphRunSymbol);
  if (!run)
    return llvm::createStringError("JIT compilation failed: " +
                                   llvm::toString(run.takeError()));
  GraphBenchFn benchFn = nullptr;
  if (module.lookupSymbol(kGraphBenchSymbol)) {
    auto bench = engine->lookup(kGraphBenchSymbol);
    if (!bench)
      return llvm::createStringError("JIT compilation failed: " +
                                     llvm::toString(bench.takeError()));
    benchFn = reinterpret_cast<GraphBenchFn>(*bench);
  }
  auto graph = std::make_unique<CompiledGraph>(
      std::move(signature), reinterpret_cast<GraphRunFn>(*run),
      std::move(engine));
  graph->setBenchFunction(benchFn);
  // The engine loaded the runtime; opening it again yields that instance,
  // whose counters the graph's allocations update.
  std::string error;
  auto runtime = llvm::sys::DynamicLibrary::getPermanentLibrary(
      runtimeLibrary.str().c_str(), &error);
  if (runtime.isValid())
    graph->bindBufferCounters([&](llvm::StringRef symbol) {
      return runtime.getAddressOfSymbol(symbol.str().c_str());
    });
  return graph;
}

llvm::Expected<ProfileTimers>
rlxrt::bindModuleProfileTimers(mlir::ModuleOp module,
                               const std::string &runtimeLibrary,
                               llvm::StringRef runtimeName) {
  std::vector<std::string> labels;
  std::vector<OpCost> costs;
  if (auto attr = module->getAttrOfType<mlir::ArrayAttr>(
          mlir::rlx::kProfileLabelsAttrName))
    for (mlir::Attribute label : attr)
      labels.push_back(mlir::cast<mlir::StringAttr>(label).str());
  if (auto attr = module->getAttrOfType<mlir::ArrayAttr>(
          mlir::rlx::kProfileCostsAttrName))
    for (mlir::Attribute cost : attr) {
      auto pair = mlir::dyn_cast<mlir::DenseI64ArrayAttr>(cost);
      costs.push_back(pair && pair.size() == 2 ? OpCost{pair[0], pair[1]}
                                               : OpCost{});
    }
  std::string error;
  auto library = llvm::sys::DynamicLibrary::getPermanentLibrary(
      runtimeLibrary.c_str(), &error);
  if (!library.isValid())
    return llvm::createStringError(error);
  return bindProfileTimers(
      std::move(labels), std::move(costs),
      [&](llvm::StringRef symbol) {
        return library.getAddressOfSymbol(symbol.data());
      },
      (runtimeName + " '" + runtimeLibrary + "'").str());
}
