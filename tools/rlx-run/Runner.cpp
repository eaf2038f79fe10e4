//===- Runner.cpp - running a compiled graph from the command line --------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "rlx/Execution/Progress.h"
#include "rlx/Execution/Tensors.h"
#include "rlx/Execution/TrainingSteps.h"
#include "rlx/Runtime/HostTensor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>

using namespace rlxrt;
using namespace rlxrun;
namespace cl = llvm::cl;

cl::opt<std::string> rlxrun::loadSharedLib(
    "load",
    cl::desc("Run a graph compiled with --emit-shared-lib instead of "
             "compiling <graph.mlir>"),
    cl::value_desc("OUT.so"), cl::cat(rlxrun::runCategory));
cl::OptionCategory rlxrun::runCategory("rlx-run options");
static cl::list<std::string>
    plugins("plugin",
            cl::desc("Load a custom op plugin (a shared library exporting "
                     "rlx_plugin_init, which registers rlx.custom ops; "
                     "docs/custom-ops.md) before compiling or running; "
                     "repeatable"),
            cl::value_desc("LIB.so"), cl::cat(rlxrun::runCategory));

void rlxrun::loadPlugins() {
  for (const std::string &plugin : plugins)
    exitOnError(loadCustomOpPlugin(plugin));
}

static cl::list<std::string>
    inputs("input",
           cl::desc("NAME=FILE.npy, NAME=FILE.safetensors:TENSOR or "
                    "NAME=FILE.gguf:TENSOR, NAME=FILE.npz:ARRAY: feed graph "
                    "input or parameter NAME from a .npy file or one tensor "
                    "of a .safetensors, GGUF or .npz file; FILE.npz (no "
                    "NAME=): every array of the archive to the argument of "
                    "its name"),
           cl::cat(rlxrun::runCategory));
static cl::opt<std::string>
    paramsFile("params",
               cl::desc("Parameters from a .safetensors, GGUF or .npz file "
                        "(by name; tensors naming no argument are ignored; "
                        "GGUF: by its magic, quantized tensors bind as packed "
                        "bytes to the weights of rlx.dequant_matmul)"),
               cl::cat(rlxrun::runCategory));
static cl::opt<bool> randomInputs(
    "random-inputs",
    cl::desc("Fill inputs and parameters not given otherwise with seeded "
             "random data (floats uniform in [-1, 1), integers in [0, 8), "
             "labels and indices below the size they index)"),
    cl::cat(rlxrun::runCategory));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of --random-inputs"),
                              cl::init(0), cl::cat(rlxrun::runCategory));
static cl::opt<std::string> outputDir(
    "output",
    cl::desc("Write each output to DIR/output_<i>.npy (with --steps: the "
             "last step's, and every parameter to DIR/params.safetensors); "
             "a path ending in .safetensors or .npz gets every output, as "
             "output_<i>, in that one file (.safetensors: the only way to "
             "write bf16). Under mpirun only rank 0 writes, unless the path "
             "holds {rank}"),
    cl::cat(rlxrun::runCategory));
cl::opt<unsigned> rlxrun::steps(
    "steps",
    cl::desc("Run a training step N times, feeding each result marked "
             "{rlx.param = NAME} back into the parameter NAME and printing "
             "the loss (the first result) per step"),
    cl::init(0), cl::cat(rlxrun::runCategory));
cl::opt<unsigned> rlxrun::ranks(
    "ranks",
    cl::desc("Start N processes, one per rank, each running the graph (the "
             "launcher for the cuda target's collectives over NCCL on one "
             "host; each rank works on the GPU of its rank); the exit status "
             "is the first failed rank's, the others stopped"),
    cl::init(0), cl::cat(rlxrun::runCategory));
static cl::list<std::string> batched(
    "batched",
    cl::desc("NAME: with --steps, the --input NAME holds one slice per step "
             "along its leading axis (step s uses slice s)"),
    cl::CommaSeparated, cl::cat(rlxrun::runCategory));
static cl::opt<bool> dataParallel(
    "data-parallel",
    cl::desc("Under mpirun -np N: every rank takes its slice (1/N) of dim 0 "
             "of each rlx.input tensor (of each step's slice with --batched; "
             "--random-inputs draws different inputs per rank), so the files "
             "hold the whole batch and the graph the per-rank batch; "
             "parameters stay the same on every rank. For training steps "
             "built by rlx-autodiff data-parallel=N"),
    cl::cat(rlxrun::runCategory));
static cl::opt<std::string> traceFile(
    "trace",
    cl::desc("With --profile: write every timed op call of the profiled runs "
             "to FILE as a Chrome trace (JSON; chrome://tracing, "
             "ui.perfetto.dev), one event per call named by its op; cpu "
             "target. `{rank}` in FILE is the MPI rank (rank 0 writes "
             "without it)"),
    cl::value_desc("FILE.json"), cl::cat(rlxrun::runCategory));
static cl::opt<bool> printOutputs("print",
                                  cl::desc("Print a summary of each output"),
                                  cl::cat(rlxrun::runCategory));
static cl::opt<unsigned>
    benchRuns("bench",
              cl::desc("Time N runs after warm-up and print one bench line"),
              cl::init(0), cl::cat(rlxrun::runCategory));
static cl::opt<bool> cudaGraphs(
    "cuda-graphs",
    cl::desc("cuda target: replay warmed-up runs (--bench's timed runs, "
             "--steps after the first) as one captured CUDA graph; "
             "--cuda-graphs=false launches every kernel of every run "
             "(as RLX_CUDA_GRAPHS=0 does)"),
    cl::init(true), cl::cat(rlxrun::runCategory));
static cl::list<std::string>
    checks("check",
           cl::desc("NAME=REF.npy (or REF.safetensors:TENSOR, "
                    "REF.npz:ARRAY): compare output NAME (output_<i> or <i>) "
                    "with a reference; exit 1 on mismatch"),
           cl::cat(rlxrun::runCategory));
static cl::opt<double> relTolerance("rtol",
                                    cl::desc("Relative tolerance of --check"),
                                    cl::init(1e-5),
                                    cl::cat(rlxrun::runCategory));
static cl::opt<double> absTolerance("atol",
                                    cl::desc("Absolute tolerance of --check"),
                                    cl::init(1e-6),
                                    cl::cat(rlxrun::runCategory));
const char *rlxrun::toolName = "rlx-run";

rlxrun::LaunchRank rlxrun::launchRank() {
  // The variables launchers set in each rank's environment: rlx-run
  // --ranks, Open MPI's mpirun, then PMI (MPICH's hydra, Slurm).
  auto read =
      [](std::initializer_list<const char *> names) -> std::optional<int64_t> {
    for (const char *name : names)
      if (const char *value = std::getenv(name))
        return std::strtoll(value, nullptr, 10);
    return std::nullopt;
  };
  LaunchRank result;
  std::optional<int64_t> size =
      read({"RLX_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"});
  std::optional<int64_t> rank =
      read({"RLX_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"});
  if (size && rank && *size > 0 && *rank >= 0 && *rank < *size) {
    result.rank = *rank;
    result.size = *size;
  }
  return result;
}

void rlxrun::fatal(const llvm::Twine &message) {
  llvm::errs() << toolName << ": error: " << message << "\n";
  std::exit(1);
}

void rlxrun::exitOnError(llvm::Error error) {
  if (error)
    fatal(llvm::toString(std::move(error)));
}

namespace {

/// This process's place in an MPI run (rank 0 of 1 otherwise).
const LaunchRank &thisRank() {
  static const LaunchRank rank = launchRank();
  return rank;
}

/// `path` with every `{rank}` replaced by this process's rank.
std::string perRank(llvm::StringRef path) {
  std::string result;
  std::string rank = std::to_string(thisRank().rank);
  while (true) {
    size_t at = path.find("{rank}");
    result += path.take_front(at).str();
    if (at == llvm::StringRef::npos)
      return result;
    result += rank;
    path = path.drop_front(at + 6);
  }
}

/// Whether this process writes --output: rank 0, or every rank when the
/// path names a file per rank.
bool writesOutputs() {
  return !outputDir.empty() && (thisRank().rank == 0 ||
                                llvm::StringRef(outputDir).contains("{rank}"));
}

/// Whether this process prints --print summaries, step lines and bench
/// lines: rank 0 only, so a run under mpirun prints them once.
bool printsProgress() { return thisRank().rank == 0; }

/// Returns the value or exits with `error` as the message.
template <typename T>
T valueOrExit(std::optional<T> value, const std::string &error) {
  if (!value)
    fatal(error);
  return std::move(*value);
}

std::pair<std::string, std::string> splitAssignment(const std::string &arg,
                                                    const char *flag) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    fatal(llvm::Twine("--") + flag + " expects NAME=FILE, got '" + arg + "'");
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

bool isNpz(llvm::StringRef path) { return path.ends_with(".npz"); }

/// Every tensor of a parameter file: .safetensors, GGUF or (by its
/// extension) .npz.
std::map<std::string, ParamTensor> readTensorFile(const std::string &path) {
  std::string error;
  return valueOrExit(readParamsFile(path, error), error);
}

/// The tensor of an --input path: FILE.npy, or one tensor of a parameter
/// file: FILE.safetensors:TENSOR, FILE.gguf:TENSOR or FILE.npz:ARRAY.
ParamTensor readInput(const std::string &path) {
  std::string error;
  size_t split = std::string::npos, suffix = 0;
  for (llvm::StringRef kind : {".safetensors:", ".gguf:", ".npz:"}) {
    size_t at = path.rfind(kind.str());
    if (at != std::string::npos && (split == std::string::npos || at > split)) {
      split = at;
      suffix = kind.size();
    }
  }
  if (split == std::string::npos)
    return ParamTensor{valueOrExit(readNpy(path, error), error), {}, {}};
  std::string file = path.substr(0, split + suffix - 1);
  std::string name = path.substr(split + suffix);
  auto tensors = readTensorFile(file);
  auto it = tensors.find(name);
  if (it == tensors.end()) {
    std::vector<std::string> names;
    for (const auto &entry : tensors)
      names.push_back(entry.first);
    fatal("'" + file + "' has no tensor '" + name +
          "' (it has: " + llvm::join(names, ", ") + ")");
  }
  return std::move(it->second);
}

/// --data-parallel: this rank's slice of `tensor` (for argument `spec`, read
/// from `path`) along `axis`: dim 0 of the batch, or dim 1 of a --batched
/// file whose dim 0 indexes the step. The ranks take equal slices in rank
/// order, so a mean over each rank's slice, averaged over the ranks, is the
/// mean over the whole batch; a batch that does not split evenly is an
/// error rather than slices whose means would need weights.
HostTensor sliceForRank(const TensorSpec &spec, HostTensor tensor, size_t axis,
                        const std::string &path) {
  const std::vector<int64_t> &shape = tensor.shape();
  int64_t ranks = thisRank().size, rank = thisRank().rank;
  std::string what = "input '" + spec.name + "' from '" + path + "'";
  std::string dimName = axis == 0 ? "dim 0" : "dim 1 (the batch of a step)";
  if (shape.size() <= axis)
    fatal("--data-parallel slices " + dimName + " of every rlx.input, but " +
          what + " is " + tensor.describe() + ", which has no " + dimName);
  int64_t rows = shape[axis];
  if (rows % ranks != 0)
    fatal("--data-parallel: " + what + " is " + tensor.describe() + ", whose " +
          dimName + " of " + std::to_string(rows) + " does not split into " +
          std::to_string(ranks) + " equal slices, one per rank");
  int64_t rowsPerRank = rows / ranks;
  std::vector<int64_t> sliceShape = shape;
  sliceShape[axis] = rowsPerRank;
  // A static batch dim of the graph (dim 0 of the argument in both cases)
  // is the per-rank batch.
  if (!spec.shape.empty() && spec.shape[0] >= 0 && spec.shape[0] != rowsPerRank)
    fatal("--data-parallel: " + what + " is " + tensor.describe() +
          ", so each of the " + std::to_string(ranks) + " ranks takes " +
          formatDims(sliceShape) + ", but the graph's '" + spec.name + "' is " +
          spec.describe() + ": the graph takes the per-rank " +
          "batch, and the file holds " + std::to_string(ranks) + " times it");
  int64_t outer = 1, inner = dtypeSize(tensor.dtype());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d < axis)
      outer *= shape[d];
    if (d > axis)
      inner *= shape[d];
  }
  HostTensor slice(tensor.dtype(), sliceShape);
  size_t sliceBytes = rowsPerRank * inner;
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(static_cast<char *>(slice.data()) + o * sliceBytes,
                static_cast<const char *>(tensor.data()) +
                    (o * rows + rank * rowsPerRank) * inner,
                sliceBytes);
  return slice;
}

/// Every argument's tensor: --input files, then --params, then (with
/// --steps) zeros for optimizer state, then random data. The --batched inputs
/// go to `batchedArguments`; their arguments get zeros until runSteps fills in
/// each step's slice.
std::vector<HostTensor>
gatherArguments(const GraphSignature &signature,
                std::vector<BatchedArgument> &batchedArguments) {
  std::map<std::string, HostTensor> provided;
  // (argument name, tensor, where it came from) of every --input.
  std::vector<std::tuple<std::string, ParamTensor, std::string>> given;
  for (const std::string &arg : inputs) {
    if (arg.find('=') == std::string::npos && isNpz(arg)) {
      for (auto &[name, tensor] : readTensorFile(perRank(arg))) {
        if (!signature.findArgument(name))
          fatal("'" + arg + "' has an array '" + name +
                "', which is not an argument of @" + signature.name +
                " (arguments: " + signature.argumentNames() + ")");
        given.emplace_back(name, std::move(tensor), arg + ":" + name);
      }
      continue;
    }
    auto [name, rawPath] = splitAssignment(arg, "input");
    std::string path = perRank(rawPath);
    if (!signature.findArgument(name))
      fatal("--input names '" + name + "', which is not an argument of @" +
            signature.name + " (arguments: " + signature.argumentNames() + ")");
    given.emplace_back(name, readInput(path), path);
  }
  for (auto &[name, tensor, path] : given) {
    const TensorSpec *spec = signature.findArgument(name);
    if (provided.count(name))
      fatal("argument '" + name + "' is given twice by --input ('" + path +
            "' is the second)");
    bool isBatched = llvm::is_contained(batched, name);
    if (dataParallel && spec->kind == TensorSpec::Kind::Input)
      tensor.tensor = sliceForRank(*spec, std::move(tensor.tensor),
                                   isBatched ? 1 : 0, path);
    if (isBatched) {
      batchedArguments.push_back(exitOnError(makeBatchedArgument(
          signature, name, std::move(tensor.tensor), steps, path)));
      provided[name] = exitOnError(spec->allocate());
      continue;
    }
    exitOnError(spec->checkMatches(tensor, "'" + path + "'"));
    provided[name] = std::move(tensor.tensor);
  }
  for (const std::string &name : batched)
    if (llvm::none_of(batchedArguments, [&](const BatchedArgument &b) {
          return signature.arguments[b.argument].name == name;
        }))
      fatal("--batched names '" + name + "', but no --input " + name +
            "=FILE.npy gives its slices");
  if (!paramsFile.empty()) {
    auto params = readTensorFile(perRank(paramsFile));
    for (auto &[name, tensor] : params) {
      const TensorSpec *spec = signature.findArgument(name);
      if (!spec || provided.count(name))
        continue; // Extra tensors in a checkpoint are fine.
      exitOnError(spec->checkMatches(tensor, "'" + paramsFile + "'"));
      provided[name] = std::move(tensor.tensor);
    }
  }
  std::vector<HostTensor> arguments;
  for (size_t i = 0; i < signature.arguments.size(); ++i) {
    const TensorSpec &spec = signature.arguments[i];
    auto it = provided.find(spec.name);
    if (it != provided.end()) {
      arguments.push_back(std::move(it->second));
      continue;
    }
    if (steps > 0 && isOptimizerState(signature, i)) {
      arguments.push_back(exitOnError(spec.allocate()));
      continue;
    }
    if (!randomInputs)
      fatal("no data for " + spec.kindName() + " '" + spec.name + "' (" +
            spec.describe() + "): pass --input " + spec.name +
            "=FILE.npy, --params FILE.safetensors|FILE.gguf|FILE.npz or "
            "--random-inputs");
    // Data-parallel ranks draw their own inputs (each its slice of a
    // batch) and the same parameters.
    uint64_t argumentSeed = seed;
    if (dataParallel && spec.kind == TensorSpec::Kind::Input)
      argumentSeed += static_cast<uint64_t>(thisRank().rank) << 32;
    arguments.push_back(
        exitOnError(randomArgument(signature, i, argumentSeed)));
  }
  return arguments;
}

void printBench(const BenchResult &bench, const GraphSignature &signature,
                std::optional<double> compileMs) {
  llvm::outs() << llvm::format(
      "bench: median %.3f ms, p90 %.3f ms, min %.3f ms over %u runs",
      bench.medianMs, bench.p90Ms, bench.minMs, bench.runs);
  if (signature.flops > 0)
    llvm::outs() << llvm::format(", %.1f GFLOP/s",
                                 signature.flops / bench.medianMs / 1e6);
  if (compileMs)
    llvm::outs() << llvm::format(" (compile %.0f ms)", *compileMs);
  llvm::outs() << "\n";
  // Temporaries only: the caller's argument and output buffers are not the
  // runtime's.
  if (bench.peakBytes)
    llvm::outs() << llvm::format(
        "memory: peak %lld bytes (%.2f MiB) in the runtime's buffers\n",
        static_cast<long long>(*bench.peakBytes), *bench.peakBytes / 1048576.0);
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

bool isSafetensorsOutput() {
  return llvm::StringRef(outputDir).ends_with(".safetensors");
}

/// --output names one file rather than a folder.
bool isOutputFile() { return isSafetensorsOutput() || isNpz(outputDir); }

/// --output FILE.safetensors or FILE.npz: every output in one file.
void writeOutputFile(const std::vector<HostTensor> &outputs) {
  std::map<std::string, HostTensor> named;
  for (size_t i = 0; i < outputs.size(); ++i) {
    HostTensor copy(outputs[i].dtype(), outputs[i].shape());
    std::memcpy(copy.data(), outputs[i].data(), outputs[i].sizeInBytes());
    named.emplace("output_" + std::to_string(i), std::move(copy));
  }
  std::string error, path = perRank(outputDir);
  if (!(isNpz(outputDir) ? writeNpz(path, named, error)
                         : writeSafetensors(path, named, error)))
    fatal(error);
}

/// Prints, writes and checks the outputs; false if a --check failed.
bool reportOutputs(const GraphSignature &signature,
                   const std::vector<HostTensor> &outputs) {
  std::string error;
  if (writesOutputs() && isOutputFile())
    writeOutputFile(outputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string name = "output_" + std::to_string(i);
    if (printOutputs && printsProgress())
      printSummary(name, outputs[i]);
    if (writesOutputs() && !isOutputFile()) {
      std::string dir = perRank(outputDir);
      llvm::sys::fs::create_directories(dir);
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, name + ".npy");
      if (!writeNpy(std::string(path), outputs[i], error))
        fatal(error);
    }
  }
  bool ok = true;
  for (const std::string &arg : checks) {
    auto [name, rawPath] = splitAssignment(arg, "check");
    std::string path = perRank(rawPath);
    std::string index = name.rfind("output_", 0) == 0 ? name.substr(7) : name;
    char *end = nullptr;
    unsigned long i = std::strtoul(index.c_str(), &end, 10);
    if (outputs.empty())
      fatal("--check names '" + name + "', but @" + signature.name +
            " has no outputs");
    if (index.empty() || *end || i >= outputs.size())
      fatal("--check names '" + name + "', but @" + signature.name +
            " has outputs output_0 .. output_" +
            std::to_string(outputs.size() - 1));
    HostTensor reference = readInput(path).tensor;
    std::string outputName = "output_" + std::to_string(i);
    Comparison comparison = exitOnError(compareTensors(
        outputs[i], outputName, reference, path, relTolerance, absTolerance));
    // Every rank checks its own outputs; under mpirun each line says whose.
    // The line goes out in one write: mpirun forwards each rank's output as
    // it arrives, so a line written in pieces interleaves with other ranks'.
    std::string line;
    llvm::raw_string_ostream lineStream(line);
    if (thisRank().size > 1)
      lineStream << "rank " << thisRank().rank << ": ";
    printComparison(lineStream, outputName, comparison);
    llvm::outs() << line;
    llvm::outs().flush();
    ok &= comparison.ok();
  }
  return ok;
}

/// Writes every parameter and state argument to DIR/params.safetensors, where
/// --params reads them back.
void writeParams(const GraphSignature &signature,
                 llvm::ArrayRef<HostTensor> arguments) {
  std::map<std::string, HostTensor> params;
  for (auto [spec, tensor] : llvm::zip_equal(signature.arguments, arguments)) {
    if (!spec.isParamOrState())
      continue;
    HostTensor copy = exitOnError(spec.allocate());
    std::memcpy(copy.data(), tensor.data(), tensor.sizeInBytes());
    params.emplace(spec.name, std::move(copy));
  }
  std::string dir = perRank(outputDir);
  llvm::sys::fs::create_directories(dir);
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, "params.safetensors");
  std::string error;
  if (!writeSafetensors(std::string(path), params, error))
    fatal(error);
}

/// Starts the timeline --trace asks for.
void startTraceIfAsked(const CompiledGraph &graph) {
  if (traceFile.empty())
    return;
  if (!graph.isProfiled())
    fatal("--trace writes the calls --profile times: give --profile too");
  if (llvm::Error error = startTrace(*graph.getProfileTimers()))
    fatal("--trace: " + llvm::toString(std::move(error)));
}

/// Writes the timeline of the profiled runs to --trace FILE.
void writeTraceIfAsked(const CompiledGraph &graph) {
  if (traceFile.empty() ||
      !(printsProgress() || llvm::StringRef(traceFile).contains("{rank}")))
    return;
  std::string path = perRank(traceFile);
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    fatal("cannot write '" + path + "': " + error.message());
  size_t events = writeChromeTrace(os, *graph.getProfileTimers(),
                                   graph.getSignature().name);
  os.close();
  if (os.has_error())
    fatal("cannot write '" + path + "': " + os.error().message());
  llvm::errs() << "rlx-run: wrote " << events << " op calls to " << path
               << "\n";
}

/// The most elements of the first result that --steps prints each step (a
/// loss has one; a greedy decoding step of a batch, a token per sequence).
constexpr int64_t kMaxStepValues = 64;

/// --steps: runs the training step, printing `step S: loss L` per step (or,
/// for a first result of several elements, `step S: V1 V2 ...`).
void trainSteps(const CompiledGraph &graph, std::vector<HostTensor> &arguments,
                std::vector<HostTensor> &outputs,
                std::vector<BatchedArgument> batchedArguments) {
  const GraphSignature &signature = graph.getSignature();
  int64_t values = 0;
  if (!signature.results.empty()) {
    values = 1;
    // Past kMaxStepValues the count stays there (no overflow).
    for (int64_t d : signature.results.front().shape)
      values = d < 0 || d > kMaxStepValues
                   ? kMaxStepValues + 1
                   : std::min(values * d, kMaxStepValues + 1);
  }
  if (values < 1 || values > kMaxStepValues)
    fatal("--steps prints the first result of @" + signature.name +
          " each step (the loss), which must have 1 to " +
          std::to_string(kMaxStepValues) + " elements; it is " +
          (signature.results.empty() ? std::string("missing")
                                     : signature.results.front().describe()));
  StepOptions options;
  options.steps = steps;
  options.batched = std::move(batchedArguments);
  // The step lines on stdout are the run's results; the progress line on
  // stderr (RLX_PROGRESS) adds the rate and the time left for a person.
  StepProgress progress(steps);
  // The loss only: a target that keeps the parameters (a GPU) sends back
  // nothing else per step.
  options.watchedOutputs = {0};
  options.afterStep = [&](unsigned step, llvm::ArrayRef<HostTensor> outputs) {
    if (!printsProgress())
      return;
    double loss = outputs.front().getAsDouble(0);
    // Nine significant digits: an f32 loss reads back exactly.
    if (values == 1) {
      llvm::outs() << llvm::format("step %u: loss %.9g\n", step + 1, loss);
    } else {
      llvm::outs() << llvm::format("step %u:", step + 1);
      for (int64_t i = 0; i < values; ++i)
        llvm::outs() << llvm::format(" %.9g", outputs.front().getAsDouble(i));
      llvm::outs() << "\n";
    }
    progress.update(step + 1, loss);
  };
  graph.resetProfile();
  StepResult result = exitOnError(runSteps(graph, arguments, outputs, options));
  progress.finish(result.stepMs);
  if (graph.isProfiled() && printsProgress())
    printProfile(llvm::outs(), graph.readProfile(), result.steps,
                 result.totalMs);
  writeTraceIfAsked(graph);
  if (writesOutputs())
    writeParams(signature, arguments);
}

} // namespace

int rlxrun::runGraph(const CompiledGraph &graph,
                     std::optional<double> compileMs) {
  const GraphSignature &signature = graph.getSignature();
  // The CUDA runtime reads it at each run; other targets ignore it.
  if (!cudaGraphs)
    setenv("RLX_CUDA_GRAPHS", "0", /*overwrite=*/1);
  // Without the flag a graph runs once; an explicit 0 asks for no training
  // step at all, which is never what was meant.
  if (steps.getNumOccurrences() > 0 && steps == 0)
    fatal("--steps 0 runs no training step; give --steps N with N >= 1, or "
          "leave --steps out to run the graph once");
  if (!batched.empty() && steps == 0)
    fatal("--batched gives one slice per step; it needs --steps N");
  if (steps > 0 && isOutputFile())
    fatal("--steps writes the outputs and the parameters into a folder: "
          "give --output DIR, not a .safetensors or .npz file");
  if (steps > 0 && benchRuns > 0)
    fatal("--steps and --bench exclude each other: --bench times repeated "
          "runs of the same arguments");
  // Before anything runs: a NaN tolerance would pass every comparison.
  if (!checks.empty())
    if (llvm::Error error = checkTolerances(relTolerance, absTolerance))
      fatal("--" + llvm::toString(std::move(error)));
  startTraceIfAsked(graph);
  std::vector<BatchedArgument> batchedArguments;
  std::vector<HostTensor> arguments =
      gatherArguments(signature, batchedArguments);
  // A graph with a `?` output returns outputs of the sizes of its run.
  std::vector<HostTensor> outputs =
      signature.returnsOutputs()
          ? std::vector<HostTensor>(signature.results.size())
          : exitOnError(graph.allocateOutputs());
  if (steps > 0 && signature.returnsOutputs())
    fatal("--steps needs outputs of static shapes; @" + signature.name +
          " has `?` dims in its outputs");
  if (steps > 0) {
    trainSteps(graph, arguments, outputs, std::move(batchedArguments));
    return reportOutputs(signature, outputs) ? 0 : 1;
  }

  // Without --bench the one run is the profiled one; with it, the first run
  // and two more warm up and the timers count the timed runs.
  BenchOptions benchOptions{/*warmUpRuns=*/0, /*timedRuns=*/1};
  if (benchRuns > 0)
    benchOptions = {/*warmUpRuns=*/3, /*timedRuns=*/benchRuns};
  BenchResult bench =
      exitOnError(graph.bench(arguments, outputs, benchOptions));
  if (benchRuns > 0 && printsProgress())
    printBench(bench, signature, compileMs);
  if (graph.isProfiled() && printsProgress())
    printProfile(llvm::outs(), graph.readProfile(), bench.runs, bench.totalMs);
  writeTraceIfAsked(graph);
  return reportOutputs(signature, outputs) ? 0 : 1;
}
