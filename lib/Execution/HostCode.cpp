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

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <unistd.h>

using namespace mlir;
using namespace rlxrt;

/// The names of `options`' options, read from their printed form
/// (`{name=value name={a,b} ...}`): each word at the outer level of braces,
/// up to its `=`.
static llvm::SmallVector<std::string>
optionNames(const mlir::detail::PassOptions &options) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  options.print(os);
  llvm::SmallVector<std::string> names;
  std::string name;
  int depth = 0;
  bool inName = false;
  for (char c : printed) {
    if (inName && c != '=' && c != ' ' && c != '}') {
      name += c;
      continue;
    }
    if (inName && !name.empty())
      names.push_back(name);
    inName = false;
    name.clear();
    if (c == '{')
      inName = ++depth == 1;
    else if (c == '}')
      --depth;
    else if (c == ' ' && depth == 1)
      inName = true;
  }
  return names;
}

/// The option of `options` closest in spelling to `unknown`, if one is
/// close enough to be what was meant (as LLVM's command line suggests).
static std::string closestOption(const mlir::detail::PassOptions &options,
                                 llvm::StringRef unknown) {
  std::string best;
  unsigned bestDistance = std::max<unsigned>(2, unknown.size() / 3) + 1;
  for (const std::string &name : optionNames(options)) {
    unsigned distance =
        llvm::StringRef(name).edit_distance(unknown, true, bestDistance);
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

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
  detail.consume_front("<Pass-Options-Parser>: ");
  std::string suggestion;
  llvm::StringRef unknown = detail;
  if (unknown.consume_front("no such option "))
    if (std::string closest = closestOption(options, unknown.trim());
        !closest.empty())
      suggestion = "; did you mean '" + closest + "'?";
  return llvm::createStringError(
      "invalid options '" + text.str() + "' for " + pipelineName.str() +
      (detail.empty() ? " (see the message above)"
                      : ": " + detail.str() + suggestion));
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

/// What makes a function an argument wrapper for markArgumentWrappers: a
/// call of at least kWrapperMinArguments arguments in a function of at most
/// kWrapperMaxBlocks basic blocks.
static constexpr unsigned kWrapperMinArguments = 32;
static constexpr unsigned kWrapperMaxBlocks = 8;

/// Marks the functions that mostly pass their arguments on to one call of
/// many arguments `optnone` (and `noinline`, which it needs): the C interface
/// of a graph function (`_mlir_ciface_*`, which unpacks each memref
/// descriptor pointer into its 3 + 2 * rank scalars, between the runtime's
/// run status calls), the graph entry that calls it and the ExecutionEngine's
/// packed wrappers. Compiled optimized, such a call with ResNet-50's 1,672
/// scalar arguments makes a basic block whose instruction selection and
/// post-RA scheduling grow quadratically: 5 to 6 s of its code generation at
/// -O3, against 0.2 s unoptimized, and no run time lost (each runs once per
/// graph run).
static void markArgumentWrappers(llvm::Module &module) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration() || function.size() > kWrapperMaxBlocks ||
        function.hasFnAttribute(llvm::Attribute::OptimizeNone))
      continue;
    bool wrapper =
        llvm::any_of(llvm::instructions(function), [](llvm::Instruction &inst) {
          auto *call = llvm::dyn_cast<llvm::CallBase>(&inst);
          return call && call->arg_size() >= kWrapperMinArguments;
        });
    if (!wrapper)
      continue;
    function.removeFnAttr(llvm::Attribute::AlwaysInline);
    function.addFnAttr(llvm::Attribute::NoInline);
    function.addFnAttr(llvm::Attribute::OptimizeNone);
  }
}

/// The host's target machine, which the optimizer (its cost model) and code
/// generation both use, as the JIT and the library path alike.
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostMachine(bool pic) {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  if (pic)
    builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return builder->createTargetMachine();
}

/// Compiles `module` with `machine` into the object file `objectPath`.
static llvm::Error emitObject(llvm::Module &module,
                              llvm::TargetMachine &machine,
                              llvm::StringRef objectPath) {
  std::error_code ec;
  llvm::raw_fd_ostream os(objectPath, ec);
  if (ec)
    return writeFailure("cannot write '" + objectPath + "': " + ec.message());
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the host target cannot emit object files");
  codegen.run(module);
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

/// Modules of fewer instructions are compiled in one piece: splitting them
/// would save less than it costs (a copy of the module through bitcode).
static constexpr size_t kSplitMinInstructions = 2000;

/// The threads code generation may use: RLX_COMPILE_THREADS where set (1
/// compiles in one piece), else the host's hardware threads, at most 8.
static unsigned codegenThreads() {
  unsigned threads = 0;
  if (const char *env = std::getenv("RLX_COMPILE_THREADS"))
    if (!llvm::StringRef(env).getAsInteger(10, threads) && threads > 0)
      return threads;
  return std::min(8u, llvm::hardware_concurrency().compute_thread_count());
}

/// Splits the optimized `module` into at most `parts` modules for code
/// generation on as many threads, each returned as bitcode (a module's
/// LLVMContext is not shared between threads). The functions go, largest
/// first, to the part with the fewest instructions so far; the global
/// variables to the first part. Locals become hidden globals under new
/// names, so that a part calls or reads what another defines; the library
/// the parts are linked into exports nothing more. Returns nothing where
/// the module stays whole: fewer than kSplitMinInstructions instructions,
/// one function, or what a split would break (comdats, aliases, appending
/// globals such as constructor lists, module assembly).
static std::vector<llvm::SmallString<0>> splitModule(llvm::Module &module,
                                                     unsigned parts) {
  if (parts < 2 || !module.getModuleInlineAsm().empty() ||
      !module.getComdatSymbolTable().empty() || !module.alias_empty() ||
      !module.ifunc_empty() ||
      llvm::any_of(module.globals(), [](llvm::GlobalVariable &global) {
        return global.hasAppendingLinkage();
      }))
    return {};
  llvm::SmallVector<std::pair<size_t, llvm::Function *>> functions;
  size_t total = 0;
  for (llvm::Function &function : module)
    if (!function.isDeclaration()) {
      functions.emplace_back(function.getInstructionCount(), &function);
      total += functions.back().first;
    }
  if (total < kSplitMinInstructions || functions.size() < 2)
    return {};
  parts = std::min<unsigned>(parts, functions.size());
  llvm::stable_sort(functions, [](const auto &a, const auto &b) {
    return a.first > b.first;
  });
  std::vector<size_t> sizes(parts, 0);
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> partOf;
  for (auto [size, function] : functions) {
    unsigned lightest = llvm::min_element(sizes) - sizes.begin();
    partOf[function] = lightest;
    sizes[lightest] += size;
  }
  auto externalize = [](llvm::GlobalValue &value) {
    if (!value.hasLocalLinkage())
      return;
    value.setName("__rlx_part." + value.getName());
    value.setLinkage(llvm::GlobalValue::ExternalLinkage);
    value.setVisibility(llvm::GlobalValue::HiddenVisibility);
  };
  for (llvm::Function &function : module)
    externalize(function);
  for (llvm::GlobalVariable &global : module.globals())
    externalize(global);
  std::vector<llvm::SmallString<0>> bitcode(parts);
  for (unsigned part = 0; part < parts; ++part) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> clone =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
          auto found = partOf.find(value);
          return (found == partOf.end() ? 0 : found->second) == part;
        });
    llvm::raw_svector_ostream os(bitcode[part]);
    llvm::WriteBitcodeToFile(*clone, os);
  }
  return bitcode;
}

/// Compiles the optimized `module` into PIC object files for this host, on
/// up to codegenThreads() threads (splitModule), and returns their paths
/// (temporary files, the caller's to remove), also where it fails.
static llvm::Error emitObjectFiles(llvm::Module &module,
                                   llvm::TargetMachine &machine,
                                   std::vector<std::string> &objectPaths) {
  unsigned threads = codegenThreads();
  std::vector<llvm::SmallString<0>> parts = splitModule(module, threads);
  for (size_t i = 0, e = std::max<size_t>(parts.size(), 1); i < e; ++i) {
    llvm::SmallString<128> object;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("rlx-graph", "o", object))
      return writeFailure("cannot create a temporary object file: " +
                          ec.message());
    objectPaths.push_back(std::string(object));
  }
  if (parts.empty())
    return emitObject(module, machine, objectPaths.front());
  std::vector<llvm::Error> errors;
  for (size_t i = 0; i < parts.size(); ++i)
    errors.push_back(llvm::Error::success());
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
  for (size_t i = 0; i < parts.size(); ++i)
    pool.async([&, i] {
      llvm::LLVMContext context;
      errors[i] = [&]() -> llvm::Error {
        auto part = llvm::parseBitcodeFile(
            llvm::MemoryBufferRef(parts[i], "rlx-graph-part"), context);
        if (!part)
          return part.takeError();
        auto partMachine = createHostMachine(/*pic=*/true);
        if (!partMachine)
          return partMachine.takeError();
        return emitObject(**part, **partMachine, objectPaths[i]);
      }();
    });
  pool.wait();
  llvm::Error all = llvm::Error::success();
  for (llvm::Error &error : errors)
    all = llvm::joinErrors(std::move(all), std::move(error));
  return all;
}

/// Compiles `module` (LLVM dialect) for this host into PIC object files,
/// whose paths go to `objectPaths` (also where it fails).
static llvm::Error emitObjectFiles(ModuleOp module,
                                   std::vector<std::string> &objectPaths,
                                   bool timing) {
  llvm::LLVMContext llvmContext;
  std::optional<CompilePhase> phase(std::in_place, "translation to LLVM IR",
                                    timing);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  phase.reset();
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  auto machine = createHostMachine(/*pic=*/true);
  if (!machine)
    return machine.takeError();
  ExecutionEngine::setupTargetTripleAndDataLayout(llvmModule.get(),
                                                  machine->get());
  markArgumentWrappers(*llvmModule);
  phase.emplace("LLVM optimization", timing);
  if (llvm::Error err =
          makeOptimizingTransformer(3, 0, machine->get())(llvmModule.get()))
    return err;
  phase.emplace("LLVM code generation", timing);
  return emitObjectFiles(*llvmModule, **machine, objectPaths);
}

/// Links `objectPaths` into the shared library `output`, which depends on
/// the runtime library even where no symbol needs it yet (the CPU runtime
/// also brings the OpenMP runtime that parallel loops call). Errors name
/// the library `name`.
static llvm::Error linkSharedLibrary(llvm::ArrayRef<std::string> objectPaths,
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
  llvm::SmallVector<llvm::StringRef> args = {*linker, "-shared", "-o", output};
  args.append(objectPaths.begin(), objectPaths.end());
  args.append({libDir, rpath, "-Wl,--no-as-needed", runtimeName, "-lm"});
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
  std::vector<std::string> objects;
  auto removeObjects = [&] {
    for (const std::string &object : objects)
      llvm::sys::fs::remove(object);
  };
  llvm::Error error = emitObjectFiles(module, objects, timing);
  if (error) {
    removeObjects();
    return error;
  }
  // Linked beside `outputPath` and renamed over it, so a failed link (a full
  // disk) leaves no truncated library where a loader would map it.
  llvm::SmallString<256> temp(llvm::sys::path::parent_path(outputPath));
  llvm::sys::path::append(temp, "." + llvm::sys::path::filename(outputPath) +
                                    ".tmp-%%%%%%");
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(temp, fd, temp)) {
    removeObjects();
    return writeFailure("cannot write '" + outputPath + "': " + ec.message());
  }
  ::close(fd);
  {
    CompilePhase phase("linking", timing);
    error = linkSharedLibrary(objects, temp, runtimeLibrary, outputPath);
  }
  removeObjects();
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
  // The optimizer gets the host's machine, as the library path's does (its
  // cost model decides vectorization and unrolling); the engine compiles
  // with a machine of its own, made the same way. The transformer runs after
  // the engine added its packed wrappers (`_mlir_<name>`), so it marks them
  // too.
  auto optimizerMachine = createHostMachine(/*pic=*/false);
  if (!optimizerMachine)
    return optimizerMachine.takeError();
  auto codegenMachine = createHostMachine(/*pic=*/false);
  if (!codegenMachine)
    return codegenMachine.takeError();
  // Each step reports as the library path's do: translation, optimization
  // (in create), and code generation (at the first lookup, which compiles
  // the whole module).
  std::optional<CompilePhase> step;
  auto translate = [&](Operation *op, llvm::LLVMContext &context) {
    step.emplace("translation to LLVM IR", timing);
    std::unique_ptr<llvm::Module> translated =
        translateModuleToLLVMIR(op, context);
    step.reset();
    return translated;
  };
  auto optimize = makeOptimizingTransformer(3, 0, optimizerMachine->get());
  auto transformer = [&](llvm::Module *llvmModule) {
    step.emplace("LLVM optimization", timing);
    markArgumentWrappers(*llvmModule);
    llvm::Error error = optimize(llvmModule);
    step.reset();
    return error;
  };
  ExecutionEngineOptions engineOptions;
  engineOptions.llvmModuleBuilder = translate;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.sharedLibPaths = libs;
  auto created = ExecutionEngine::create(module, engineOptions,
                                         std::move(*codegenMachine));
  if (!created)
    return llvm::createStringError("JIT compilation failed: " +
                                   llvm::toString(created.takeError()));
  std::shared_ptr<ExecutionEngine> engine = std::move(*created);
  step.emplace("LLVM code generation", timing);
  auto run = engine->lookup(kGraphRunSymbol);
  step.reset();
  if (!run)
    return llvm::createStringError("JIT compilation failed: " +
                                   llvm::toString(run.takeError()));
  // The optional entries (GraphABI.h): null where the module has none.
  auto lookupOptional = [&](llvm::StringRef symbol) -> llvm::Expected<void *> {
    if (!module.lookupSymbol(symbol))
      return nullptr;
    auto address = engine->lookup(symbol);
    if (!address)
      return llvm::createStringError("JIT compilation failed: " +
                                     llvm::toString(address.takeError()));
    return *address;
  };
  llvm::Expected<void *> benchFn = lookupOptional(kGraphBenchSymbol);
  if (!benchFn)
    return benchFn.takeError();
  llvm::Expected<void *> stepsFn = lookupOptional(kGraphStepsSymbol);
  if (!stepsFn)
    return stepsFn.takeError();
  auto graph = std::make_unique<CompiledGraph>(
      std::move(signature), reinterpret_cast<GraphRunFn>(*run),
      std::move(engine));
  graph->setBenchFunction(reinterpret_cast<GraphBenchFn>(*benchFn));
  graph->setStepsFunction(reinterpret_cast<GraphStepsFn>(*stepsFn));
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
