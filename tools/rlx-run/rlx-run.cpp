//===- rlx-run.cpp - compile and run an rlx graph on the CPU --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-run FILE.mlir [--entry NAME] [--input NAME=FILE.npy ...]
//         [--params FILE.safetensors] [--random-inputs --seed S]
//         [--output DIR] [--print] [--bench N]
//         [--check NAME=REF.npy --rtol R --atol A] [--profile]
//
// Compiles the graph with rlx-cpu-pipeline, JIT-compiles it with the MLIR
// ExecutionEngine, feeds inputs and parameters by their argument names
// (`rlx.input` / `rlx.param`), and writes, prints, checks or times the
// outputs. Every user error is one line on stderr and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "AheadOfTime.h"
#include "GraphSignature.h"
#include "OpProfiler.h"

#include "rlx/InitRLX.h"
#include "rlx/Runtime/HostTensor.h"
#include "rlx/Target/CPU/Passes.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>

using namespace mlir;
using namespace rlxrt;
namespace cl = llvm::cl;

static cl::OptionCategory runCategory("rlx-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<graph.mlir>"),
                                      cl::cat(runCategory));
static cl::opt<std::string> emitSharedLib(
    "emit-shared-lib",
    cl::desc("Compile the graph ahead of time into a shared library OUT.so "
             "(needs only librlx_cpu_runtime.so at run time) and exit"),
    cl::value_desc("OUT.so"), cl::cat(runCategory));
static cl::opt<std::string> loadSharedLib(
    "load",
    cl::desc("Run a graph compiled with --emit-shared-lib instead of "
             "compiling <graph.mlir>"),
    cl::value_desc("OUT.so"), cl::cat(runCategory));
static cl::opt<std::string>
    entryName("entry",
              cl::desc("Graph function to run (default: the only public "
                       "function)"),
              cl::cat(runCategory));
static cl::opt<std::string> target("target", cl::desc("Target: cpu"),
                                   cl::init("cpu"), cl::cat(runCategory));
static cl::list<std::string>
    inputs("input",
           cl::desc("NAME=FILE.npy: feed graph input or parameter "
                    "NAME from a .npy file"),
           cl::cat(runCategory));
static cl::opt<std::string>
    paramsFile("params", cl::desc("Parameters from a .safetensors file"),
               cl::cat(runCategory));
static cl::opt<bool> randomInputs(
    "random-inputs",
    cl::desc("Fill inputs and parameters not given otherwise with seeded "
             "random data (floats uniform in [-1, 1), integers in [0, 8))"),
    cl::cat(runCategory));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of --random-inputs"),
                              cl::init(0), cl::cat(runCategory));
static cl::opt<std::string>
    outputDir("output", cl::desc("Write each output to DIR/output_<i>.npy"),
              cl::cat(runCategory));
static cl::opt<bool> printOutputs("print",
                                  cl::desc("Print a summary of each output"),
                                  cl::cat(runCategory));
static cl::opt<unsigned>
    benchRuns("bench",
              cl::desc("Time N runs after warm-up and print one bench line"),
              cl::init(0), cl::cat(runCategory));
static cl::list<std::string>
    checks("check",
           cl::desc("NAME=REF.npy: compare output NAME (output_<i> or <i>) "
                    "with a reference; exit 1 on mismatch"),
           cl::cat(runCategory));
static cl::opt<double> relTolerance("rtol",
                                    cl::desc("Relative tolerance of --check"),
                                    cl::init(1e-5), cl::cat(runCategory));
static cl::opt<double> absTolerance("atol",
                                    cl::desc("Absolute tolerance of --check"),
                                    cl::init(1e-6), cl::cat(runCategory));
static cl::opt<bool> profile(
    "profile",
    cl::desc("Time each op (compiled with per-op timers) and print the time "
             "per op, largest first, after the runs (the --bench runs if "
             "given)"),
    cl::cat(runCategory));
static cl::opt<bool> useBlas("use-blas",
                             cl::desc("Call OpenBLAS for large matmuls"),
                             cl::init(true), cl::cat(runCategory));
static cl::opt<std::string> runtimeLib(
    "runtime-lib",
    cl::desc("Path of librlx_cpu_runtime.so (default: beside the tool)"),
    cl::cat(runCategory));

namespace {

/// Reports a user error on one line and exits with code 1.
[[noreturn]] void fatal(const llvm::Twine &message) {
  llvm::errs() << "rlx-run: error: " << message << "\n";
  std::exit(1);
}

std::pair<std::string, std::string> splitAssignment(const std::string &arg,
                                                    const char *flag) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    fatal(llvm::Twine("--") + flag + " expects NAME=FILE, got '" + arg + "'");
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

/// Checks that `tensor` matches what argument `arg` expects.
void checkTensorMatches(const TensorSpec &spec, const HostTensor &tensor,
                        const std::string &source) {
  if (tensor.dtype() != spec.dtype || tensor.shape() != spec.shape)
    fatal("tensor '" + spec.name + "' from " + source + " is " +
          tensor.describe() + ", the graph expects " + spec.describe());
}

HostTensor randomTensor(const TensorSpec &spec, uint64_t streamSeed) {
  HostTensor tensor(spec.dtype, spec.shape);
  std::mt19937_64 rng(streamSeed);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(0, 7);
  for (int64_t i = 0, e = tensor.numElements(); i < e; ++i) {
    switch (spec.dtype) {
    case DType::Bool:
      tensor.setFromDouble(i, integer(rng) & 1);
      break;
    case DType::I8:
    case DType::I16:
    case DType::I32:
    case DType::I64:
    case DType::U8:
    case DType::U32:
      tensor.setFromDouble(i, integer(rng));
      break;
    case DType::C64:
      tensor.dataAs<float>()[2 * i] = static_cast<float>(real(rng));
      tensor.dataAs<float>()[2 * i + 1] = static_cast<float>(real(rng));
      break;
    default:
      tensor.setFromDouble(i, real(rng));
      break;
    }
  }
  return tensor;
}

std::string defaultRuntimeLib(const char *argv0) {
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&defaultRuntimeLib));
  llvm::SmallString<256> path(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(path, "..", "lib", "librlx_cpu_runtime.so");
  return std::string(path);
}

void printSummary(const std::string &name, const HostTensor &tensor) {
  int64_t count = tensor.numElements();
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  for (int64_t i = 0; i < count; ++i) {
    double v = tensor.getAsDouble(i);
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  llvm::outs() << name << ": " << tensor.describe() << " = [";
  for (int64_t i = 0; i < std::min<int64_t>(count, 8); ++i)
    llvm::outs() << (i ? ", " : "")
                 << llvm::format("%.6g", tensor.getAsDouble(i));
  if (count > 8)
    llvm::outs() << ", ...";
  llvm::outs() << "]";
  if (count)
    llvm::outs() << llvm::format("  mean %.6g min %.6g max %.6g", sum / count,
                                 lo, hi);
  llvm::outs() << "\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "rlx-run: compile an rlx graph for the CPU and run it\n\n"
      "Inputs and parameters are matched by their rlx.input / rlx.param "
      "names.\nOutputs are named output_0, output_1, ... in result order.\n");
  if (target != "cpu")
    fatal("unknown --target '" + target + "' (available: cpu)");
  if (loadSharedLib.empty() == inputFile.empty())
    fatal("give either a graph file or --load OUT.so");
  if (!loadSharedLib.empty() && !emitSharedLib.empty())
    fatal("--load and --emit-shared-lib exclude each other");
  if (profile && (!loadSharedLib.empty() || !emitSharedLib.empty()))
    fatal("--profile compiles the graph with timers; it does not combine "
          "with --load or --emit-shared-lib");

  DialectRegistry registry;
  rlx::registerAllDialects(registry);
  rlx::registerAllPasses();
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module;

  std::string error;
  std::optional<GraphSignature> signature;
  GraphRunFn runGraph = nullptr;
  if (!loadSharedLib.empty()) {
    std::optional<LoadedGraph> loaded = loadSharedLibrary(loadSharedLib, error);
    if (!loaded)
      fatal(error);
    signature = std::move(loaded->signature);
    runGraph = loaded->run;
  } else {
    if (!llvm::sys::fs::exists(inputFile))
      fatal("no such file '" + inputFile + "'");
    module =
        parseSourceFile<ModuleOp>(inputFile, sourceMgr, ParserConfig(&context));
    if (!module)
      fatal("cannot parse '" + inputFile + "' (see the diagnostics above)");
    signature = GraphSignature::fromModule(*module, entryName, error);
    if (!signature)
      fatal(error);
  }

  // Compile (unless loaded): the CPU pipeline, then the graph entry.
  double compileMs = 0;
  std::unique_ptr<ExecutionEngine> engine;
  std::optional<OpProfiler> profiler;
  if (module) {
    auto compileStart = std::chrono::steady_clock::now();
    PassManager pm(&context);
    rlx::CPUPipelineOptions pipelineOptions;
    pipelineOptions.useBlas = useBlas;
    pipelineOptions.profile = profile;
    rlx::buildRLXCPUPipeline(pm, pipelineOptions);
    if (failed(pm.run(*module)) || failed(addGraphEntry(*module, *signature)))
      fatal("compiling @" + signature->name +
            " for the CPU failed (see the diagnostics above)");
    if (profile)
      profiler.emplace(*module);
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    std::string runtimePath =
        runtimeLib.empty() ? defaultRuntimeLib(argv[0]) : runtimeLib;
    if (!llvm::sys::fs::exists(runtimePath))
      fatal("CPU runtime library not found at '" + runtimePath +
            "' (use --runtime-lib)");
    if (profiler && !profiler->bind(runtimePath, error))
      fatal(error);
    if (!emitSharedLib.empty()) {
      if (!emitSharedLibrary(*module, emitSharedLib, runtimePath, error))
        fatal(error);
      llvm::outs() << "wrote " << emitSharedLib << " (@" << signature->name
                   << "; run it with rlx-run --load " << emitSharedLib << ")\n";
      return 0;
    }
    llvm::StringRef libs[] = {runtimePath};
    ExecutionEngineOptions engineOptions;
    auto transformer = makeOptimizingTransformer(3, 0, nullptr);
    engineOptions.transformer = transformer;
    engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
    engineOptions.sharedLibPaths = libs;
    auto created = ExecutionEngine::create(*module, engineOptions);
    if (!created)
      fatal("JIT compilation failed: " + llvm::toString(created.takeError()));
    engine = std::move(*created);
    auto address = engine->lookup("rlx_graph_run");
    if (!address)
      fatal("JIT compilation failed: " + llvm::toString(address.takeError()));
    runGraph = reinterpret_cast<GraphRunFn>(*address);
    compileMs = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - compileStart)
                    .count();
  }

  // Gather every argument's tensor: --input files, then --params, then
  // random data.
  std::map<std::string, HostTensor> provided;
  for (const std::string &arg : inputs) {
    auto [name, path] = splitAssignment(arg, "input");
    const TensorSpec *spec = signature->findArgument(name);
    if (!spec)
      fatal("--input names '" + name + "', which is not an argument of @" +
            signature->name + " (arguments: " + signature->argumentNames() +
            ")");
    std::optional<HostTensor> tensor = readNpy(path, error);
    if (!tensor)
      fatal(error);
    checkTensorMatches(*spec, *tensor, "'" + path + "'");
    provided[name] = std::move(*tensor);
  }
  if (!paramsFile.empty()) {
    auto params = readSafetensors(paramsFile, error);
    if (!params)
      fatal(error);
    for (auto &[name, tensor] : *params) {
      const TensorSpec *spec = signature->findArgument(name);
      if (!spec || provided.count(name))
        continue; // Extra tensors in a checkpoint are fine.
      checkTensorMatches(*spec, tensor, "'" + paramsFile + "'");
      provided[name] = std::move(tensor);
    }
  }
  std::vector<HostTensor> arguments;
  for (size_t i = 0; i < signature->arguments.size(); ++i) {
    const TensorSpec &spec = signature->arguments[i];
    auto it = provided.find(spec.name);
    if (it != provided.end()) {
      arguments.push_back(std::move(it->second));
      continue;
    }
    if (!randomInputs)
      fatal("no data for " + spec.kindName() + " '" + spec.name + "' (" +
            spec.describe() + "): pass --input " + spec.name +
            "=FILE.npy, --params FILE.safetensors or --random-inputs");
    arguments.push_back(randomTensor(spec, seed * 1000003 + i));
  }

  // rlx_graph_run(descriptors of args..., outs...).
  std::vector<HostTensor> outputs;
  for (const TensorSpec &spec : signature->results)
    outputs.emplace_back(spec.dtype, spec.shape);
  std::vector<std::vector<int64_t>> descriptors;
  auto describe = [&](HostTensor &tensor) {
    const std::vector<int64_t> &shape = tensor.shape();
    std::vector<int64_t> desc(3 + 2 * shape.size());
    desc[0] = desc[1] = reinterpret_cast<int64_t>(tensor.data());
    desc[2] = 0;
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      desc[3 + d] = shape[d];
      desc[3 + shape.size() + d] = stride;
      stride *= shape[d];
    }
    descriptors.push_back(std::move(desc));
  };
  for (HostTensor &tensor : arguments)
    describe(tensor);
  for (HostTensor &tensor : outputs)
    describe(tensor);
  std::vector<void *> descriptorPtrs;
  for (std::vector<int64_t> &desc : descriptors)
    descriptorPtrs.push_back(desc.data());
  auto invoke = [&]() { runGraph(descriptorPtrs.data()); };
  auto wallStart = std::chrono::steady_clock::now();
  invoke();
  double profiledMs = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - wallStart)
                          .count();
  unsigned profiledRuns = 1;

  if (benchRuns > 0) {
    for (int i = 0; i < 2; ++i) // Warm-up beyond the first run.
      invoke();
    if (profiler)
      profiler->reset();
    std::vector<double> times;
    for (unsigned i = 0; i < benchRuns; ++i) {
      auto start = std::chrono::steady_clock::now();
      invoke();
      times.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    }
    profiledMs = std::accumulate(times.begin(), times.end(), 0.0);
    profiledRuns = benchRuns;
    std::sort(times.begin(), times.end());
    double median = times[times.size() / 2];
    double p90 = times[std::min(times.size() - 1, times.size() * 9 / 10)];
    llvm::outs() << llvm::format(
        "bench: median %.3f ms, p90 %.3f ms, min %.3f ms over %u runs", median,
        p90, times.front(), benchRuns.getValue());
    if (signature->flops > 0)
      llvm::outs() << llvm::format(", %.1f GFLOP/s",
                                   signature->flops / median / 1e6);
    if (module)
      llvm::outs() << llvm::format(" (compile %.0f ms)", compileMs);
    llvm::outs() << "\n";
  }
  if (profiler)
    profiler->print(llvm::outs(), profiledRuns, profiledMs);

  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string name = "output_" + std::to_string(i);
    if (printOutputs)
      printSummary(name, outputs[i]);
    if (!outputDir.empty()) {
      llvm::sys::fs::create_directories(outputDir);
      llvm::SmallString<256> path(outputDir.getValue());
      llvm::sys::path::append(path, name + ".npy");
      if (!writeNpy(std::string(path), outputs[i], error))
        fatal(error);
    }
  }

  bool mismatch = false;
  for (const std::string &arg : checks) {
    auto [name, path] = splitAssignment(arg, "check");
    std::string index = name.rfind("output_", 0) == 0 ? name.substr(7) : name;
    char *end = nullptr;
    unsigned long i = std::strtoul(index.c_str(), &end, 10);
    if (index.empty() || *end || i >= outputs.size())
      fatal("--check names '" + name + "', but @" + signature->name +
            " has outputs output_0 .. output_" +
            std::to_string(outputs.size() - 1));
    std::optional<HostTensor> ref = readNpy(path, error);
    if (!ref)
      fatal(error);
    const HostTensor &out = outputs[i];
    if (ref->shape() != out.shape())
      fatal("reference '" + path + "' is " + ref->describe() + ", output_" +
            std::to_string(i) + " is " + out.describe());
    double maxAbs = 0, maxRel = 0;
    int64_t bad = 0;
    for (int64_t k = 0, e = out.numElements(); k < e; ++k) {
      double a = out.getAsDouble(k), b = ref->getAsDouble(k);
      double diff = std::fabs(a - b);
      if (std::isnan(a) != std::isnan(b))
        diff = INFINITY;
      else if (std::isnan(a))
        diff = 0;
      maxAbs = std::max(maxAbs, diff);
      if (b != 0)
        maxRel = std::max(maxRel, diff / std::fabs(b));
      if (diff > absTolerance + relTolerance * std::fabs(b))
        ++bad;
    }
    llvm::outs() << llvm::format(
        "check output_%lu: max abs err %.3g, max rel err %.3g, %lld of %lld "
        "outside atol %.3g + rtol %.3g: %s\n",
        i, maxAbs, maxRel, static_cast<long long>(bad),
        static_cast<long long>(out.numElements()), absTolerance.getValue(),
        relTolerance.getValue(), bad ? "FAIL" : "OK");
    mismatch |= bad > 0;
  }
  return mismatch ? 1 : 0;
}
