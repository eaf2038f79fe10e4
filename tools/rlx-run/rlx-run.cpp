//===- rlx-run.cpp - compile and run an rlx graph -------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-run FILE.mlir [--target cpu] [--entry NAME] [--input NAME=FILE.npy ...]
//         [--params FILE.safetensors] [--random-inputs --seed S]
//         [--output DIR] [--print] [--bench N]
//         [--check NAME=REF.npy --rtol R --atol A] [--profile]
//         [--steps N [--batched NAME,...]]
//
// Option handling over the execution library (rlx/Execution): compiles the
// graph for a registered target (or loads one compiled ahead of time), feeds
// inputs and parameters by their argument names (`rlx.input` / `rlx.param`),
// and writes, prints, checks or times the outputs. Every user error is one
// line on stderr and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Execution/CompileCache.h"
#include "rlx/Execution/CompilePhase.h"
#include "rlx/Execution/ExecutionTarget.h"
#include "rlx/InitRLX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cerrno>
#include <chrono>
#include <cstring>

#include <unistd.h>

using namespace mlir;
using namespace rlxrt;
using namespace rlxrun;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<graph.mlir> (- reads stdin)"),
                                      cl::cat(rlxrun::runCategory));

static cl::opt<std::string> emitSharedLib(
    "emit-shared-lib",
    cl::desc("Compile the graph ahead of time into a shared library OUT.so "
             "(needs only the target's runtime library, such as "
             "librlx_cpu_runtime.so, at run time) and exit"),
    cl::value_desc("OUT.so"), cl::cat(rlxrun::runCategory));
static cl::opt<std::string>
    entryName("entry",
              cl::desc("Graph function to run (default: the only public "
                       "function; with --steps, the only one with results "
                       "marked rlx.param)"),
              cl::cat(rlxrun::runCategory));
static cl::opt<std::string>
    target("target",
           cl::desc("Execution target (see the error for a wrong one)"),
           cl::init("cpu"), cl::cat(rlxrun::runCategory));
static cl::opt<bool> profile(
    "profile",
    cl::desc("Time each op and print the time per op, largest first, after "
             "the runs (the --bench runs if given). The cpu target compiles "
             "the graph with timers (also into --emit-shared-lib, for "
             "--load --profile); the cuda target times each op's GPU work "
             "with events"),
    cl::cat(rlxrun::runCategory));
static cl::opt<bool> useBlas("use-blas",
                             cl::desc("Call OpenBLAS for large matmuls"),
                             cl::init(true), cl::cat(rlxrun::runCategory));
static cl::opt<std::string> pipelineOptions(
    "pipeline-options",
    cl::desc("Options of the target's pipeline, as rlx-opt takes them "
             "(rlx-cpu-pipeline, rlx-cuda-pipeline), space separated: e.g. "
             "--target cuda --pipeline-options='allow-tf32 block-size=128'; "
             "--pipeline-options='matmul-precision=bf16' runs the CPU's f32 "
             "matmuls with bf16 inputs and f32 accumulation"),
    cl::cat(rlxrun::runCategory));
static cl::opt<std::string> runtimeLib(
    "runtime-lib",
    cl::desc("Path of the target's runtime library (default: "
             "lib/librlx_<target>_runtime.so beside the tool's bin/)"),
    cl::cat(rlxrun::runCategory));

static cl::opt<bool> noCache(
    "no-cache",
    cl::desc("Compile without the compile cache (docs/compile-cache.md): "
             "neither load a stored compile nor store this one"),
    cl::cat(rlxrun::runCategory));
static cl::opt<bool> cacheStats(
    "cache-stats",
    cl::desc("Print one line on stderr saying whether the compile cache "
             "had the graph (hit), compiled and stored it (miss) or was "
             "off; as RLX_CACHE_VERBOSE=1"),
    cl::cat(rlxrun::runCategory));
static cl::opt<bool> mlirTiming(
    "mlir-timing",
    cl::desc("Print MLIR's pass timing report and the time of every compile "
             "phase (parsing, the pass pipeline, LLVM) on stderr"),
    cl::cat(rlxrun::runCategory));

/// The function --steps runs when --entry is not given: the only public
/// one returning updated parameters, such as rlx-autodiff's @f_train_step
/// beside @f and @f_grad. Empty when there is not exactly one.
static std::string findTrainingStep(ModuleOp module) {
  std::string found;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
      if (fn.getResultAttr(i, rlx::RLXDialect::kParamAttrName)) {
        if (!found.empty())
          return {};
        found = fn.getName().str();
        break;
      }
  }
  return found;
}

/// The most module text rlx-run reads. Text is parsed whole in memory, at
/// several times its size; weights belong in tensor files (--params).
constexpr uint64_t kMaxModuleTextBytes = uint64_t(1) << 30;

/// The module text of the input file, or of standard input for `-`. Only a
/// regular file is read: /dev/zero ran the parser out of memory and
/// /dev/urandom was read forever. Standard input is read up to the bound.
static std::unique_ptr<llvm::MemoryBuffer> readModuleText() {
  std::string limit = "larger than " +
                      std::to_string(kMaxModuleTextBytes >> 30) +
                      " GiB (keep weights in tensor files: --params)";
  if (inputFile == "-") {
    std::string text;
    char chunk[1 << 16];
    while (true) {
      ssize_t n = ::read(STDIN_FILENO, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        fatal(llvm::Twine("cannot read standard input: ") +
              std::strerror(errno));
      if (n == 0)
        break;
      if (text.size() + static_cast<size_t>(n) > kMaxModuleTextBytes)
        fatal("the module text on standard input is " + limit);
      text.append(chunk, static_cast<size_t>(n));
    }
    return llvm::MemoryBuffer::getMemBufferCopy(text, "<stdin>");
  }
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(inputFile, status) ||
      status.type() == llvm::sys::fs::file_type::file_not_found)
    fatal("no such file '" + inputFile + "'");
  if (status.type() == llvm::sys::fs::file_type::directory_file)
    fatal("cannot read '" + inputFile + "': it is a directory, not a file");
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    fatal("cannot read '" + inputFile +
          "': it is not a regular file (for a pipe, pass `-` and the text on "
          "standard input)");
  if (status.getSize() > kMaxModuleTextBytes)
    fatal("'" + inputFile + "' is " + limit);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(inputFile);
  if (!buffer)
    fatal("cannot read '" + inputFile + "': " + buffer.getError().message());
  return std::move(*buffer);
}

/// The compile options the flags give.
static CompileOptions getCompileOptions() {
  CompileOptions options;
  options.useBlas = useBlas;
  options.profile = profile;
  options.pipelineOptions = pipelineOptions;
  options.runtimeLibrary = runtimeLib;
  options.timing = mlirTiming;
  return options;
}

/// Parses the module text in `context` and picks the graph to compile.
/// `sourceMgr` keeps the text for the diagnostics of the compile after.
static ParsedGraph parseGraph(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                              const llvm::MemoryBuffer &text) {
  CompilePhase phase("parsing", mlirTiming);
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text.getBuffer(),
                                       text.getBufferIdentifier()),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    fatal("cannot parse '" + inputFile + "' (see the diagnostics above)");
  std::string entry = entryName;
  if (entry.empty() && steps > 0)
    entry = findTrainingStep(*module);
  return {std::move(module), entry};
}

/// Compiles the graph file for `target` and sets `compileMs`; or, with
/// --emit-shared-lib, writes it as a library and returns null.
static std::unique_ptr<CompiledGraph>
compileGraph(const ExecutionTarget &target, double &compileMs) {
  std::unique_ptr<llvm::MemoryBuffer> text = readModuleText();
  DialectRegistry registry;
  rlx::registerAllDialects(registry);
  // The compiled graph keeps only code, so the IR may go with this scope.
  MLIRContext context(registry);
  // Diagnostics of parsing and compiling show the line they point at.
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  CompileOptions options = getCompileOptions();
  if (!emitSharedLib.empty()) {
    ParsedGraph parsed = parseGraph(context, sourceMgr, *text);
    GraphSignature signature = exitOnError(target.emitSharedLibrary(
        *parsed.module, parsed.entry, emitSharedLib, options));
    llvm::outs() << "wrote " << emitSharedLib << " (@" << signature.name
                 << "; run it with rlx-run --load " << emitSharedLib << ")\n";
    return nullptr;
  }
  CompileCacheConfig cache = exitOnError(CompileCacheConfig::fromEnvironment());
  if (noCache)
    cache.directory.clear();
  cache.verbose |= cacheStats;
  // With --steps and no --entry the training step is looked up in the
  // module: a rule of rlx-run's own, so part of the cache key.
  llvm::StringRef entryRule =
      entryName.empty() && steps > 0 ? "rlx-run training step" : "";
  auto start = std::chrono::steady_clock::now();
  auto graph = exitOnError(compileWithCache(
      target, text->getBuffer(), entryName, entryRule,
      [&]() -> llvm::Expected<ParsedGraph> {
        return parseGraph(context, sourceMgr, *text);
      },
      options, cache));
  compileMs = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  return graph;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "rlx-run: compile an rlx graph and run it\n\n"
      "Inputs and parameters are matched by their rlx.input / rlx.param "
      "names.\nOutputs are named output_0, output_1, ... in result order.\n");
  if (ranks > 0)
    return launchRanks(argc, argv, ranks);
  rlx::registerAllExecutionTargets();
  llvm::Expected<const ExecutionTarget *> executionTarget =
      lookupExecutionTarget(target);
  if (!executionTarget) {
    llvm::consumeError(executionTarget.takeError());
    fatal("unknown --target '" + target +
          "' (available: " + llvm::join(getExecutionTargetNames(), ", ") + ")");
  }
  if (loadSharedLib.empty() == inputFile.empty())
    fatal("give either a graph file or --load OUT.so");
  if (!loadSharedLib.empty() && !emitSharedLib.empty())
    fatal("--load and --emit-shared-lib exclude each other");
  if (!loadSharedLib.empty() && !pipelineOptions.empty())
    fatal("--pipeline-options applies when compiling; a --load library was "
          "compiled with its options already");

  loadPlugins();
  std::optional<double> compileMs;
  std::unique_ptr<CompiledGraph> graph;
  if (!loadSharedLib.empty()) {
    graph = exitOnError(CompiledGraph::load(loadSharedLib));
    if (profile)
      exitOnError(graph->bindLibraryProfile());
  } else
    graph = compileGraph(**executionTarget, compileMs.emplace());
  if (!graph)
    return 0;
  return runGraph(*graph, compileMs);
}
