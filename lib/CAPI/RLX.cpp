//===- RLX.cpp - the C API over the execution library ---------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Every entry point turns llvm::Error and MLIR diagnostics into an RlxStatus
// holding the message; none lets a failure reach the host as an abort or an
// exception.
//
//===----------------------------------------------------------------------===//

#include "rlx-c/RLX.h"

#include "rlx/Execution/CompileCache.h"
#include "rlx/Execution/ExecutionTarget.h"
#include "rlx/InitRLX.h"
#include "rlx/Runtime/HostTensor.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <shared_mutex>
#include <type_traits>

#include <dlfcn.h>

using namespace mlir;
using namespace rlxrt;

struct RlxStatusImpl {
  std::string message;
  RlxStatusCode code = RLX_STATUS_ERROR;
};

/// The message of the last failure returned on each thread
/// (rlxGetLastErrorMessage).
static thread_local std::string lastErrorMessage;

namespace {
/// A readers-writer lock in which a waiting writer holds back readers that
/// come after it: runs that keep overlapping never starve a bind, as they
/// would under std::shared_mutex alone (glibc's rwlock prefers readers).
class GraphLock {
public:
  void lock() {
    std::lock_guard<std::mutex> turn(turnstile);
    rw.lock();
  }
  void unlock() { rw.unlock(); }
  void lock_shared() {
    std::lock_guard<std::mutex> turn(turnstile);
    rw.lock_shared();
  }
  void unlock_shared() { rw.unlock_shared(); }

private:
  std::mutex turnstile;
  std::shared_mutex rw;
};
} // namespace

struct RlxGraphImpl {
  std::unique_ptr<CompiledGraph> graph;
  /// Shapes and names in the form RlxTensorSpec points into.
  std::vector<RlxTensorSpec> arguments;
  std::vector<RlxTensorSpec> results;
  std::vector<std::string> resultNames;
  /// Data bound to arguments (rlxGraphBind), empty where none is.
  std::vector<HostTensor> bound;
  std::vector<bool> isBound;
  /// Set by rlxGraphInterrupt, from any thread or a signal handler; read by
  /// a bench between its runs.
  std::atomic<bool> interrupt{false};
  /// The threading contract (docs/c-api.md): a run holds this lock from
  /// reading the bound data to its end, shared where the runtime lets runs
  /// of one graph overlap (CompiledGraph::allowsConcurrentRuns), else
  /// exclusive; a bind replaces bound data under it exclusively. So a run
  /// sees every bound tensor as before or as after a bind, never a buffer
  /// half rewritten or freed under it.
  GraphLock lock;
  bool concurrentRuns = false;
};

namespace {
/// The lock of one run of `graph` (shared or exclusive, as its runtime
/// allows), held for the run's whole call.
class RunLock {
public:
  explicit RunLock(RlxGraphImpl &graph)
      : mutex(graph.lock), shared(graph.concurrentRuns) {
    if (shared)
      mutex.lock_shared();
    else
      mutex.lock();
  }
  ~RunLock() {
    if (shared)
      mutex.unlock_shared();
    else
      mutex.unlock();
  }
  RunLock(const RunLock &) = delete;
  RunLock &operator=(const RunLock &) = delete;

private:
  GraphLock &mutex;
  bool shared;
};
} // namespace

// The enum values of RlxDType are DType's, so a cast converts them.
static_assert(RLX_DTYPE_F32 == static_cast<int>(DType::F32) &&
                  RLX_DTYPE_BF16 == static_cast<int>(DType::BF16) &&
                  RLX_DTYPE_U32 == static_cast<int>(DType::U32) &&
                  RLX_DTYPE_C64 == static_cast<int>(DType::C64),
              "RlxDType must mirror rlxrt::DType");

static RlxStatus makeStatus(const llvm::Twine &message,
                            RlxStatusCode code = RLX_STATUS_ERROR) {
  auto *status = new RlxStatusImpl{message.str(), code};
  lastErrorMessage = status->message;
  return status;
}

static RlxStatus makeStatus(llvm::Error error) {
  if (!error)
    return nullptr;
  // An allocation that failed (a run's buffer) is a kind of its own, which
  // hosts handle apart (Python's MemoryError).
  RlxStatusCode code = RLX_STATUS_ERROR;
  std::string message;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &info) {
    if (info.convertToErrorCode() == std::errc::not_enough_memory)
      code = RLX_STATUS_OUT_OF_MEMORY;
    if (!message.empty())
      message += "\n";
    message += info.message();
  });
  return makeStatus(message, code);
}

/// Registers the dialects' passes and the targets once per process: the
/// library may be loaded by a host that registered nothing itself.
static void initializeOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    rlx::registerAllPasses();
    rlx::registerAllExecutionTargets();
  });
}

/// The folder this library was loaded from, where the build and an
/// installation put the targets' runtime libraries too.
static std::string libraryFolder() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&rlxGetAPIVersion), &info) ||
      !info.dli_fname)
    return {};
  return std::string(llvm::sys::path::parent_path(info.dli_fname));
}

/// An MLIR context with every dialect, whose diagnostics go into a string
/// instead of stderr, so a failure's status carries them.
namespace {
class CapturingContext {
public:
  CapturingContext()
      : context(makeRegistry()), stream(diagnostics),
        handler(sourceMgr, &context, stream) {
    // The message names the failure and its location; a dump of the whole
    // failing op in generic form would bury it.
    context.printOpOnDiagnostic(false);
  }

  MLIRContext &get() { return context; }
  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }

  /// `error`'s message followed by the diagnostics reported so far.
  RlxStatus fail(llvm::Error error) {
    std::string message = llvm::toString(std::move(error));
    return makeStatus(withDiagnostics(message));
  }
  std::string withDiagnostics(llvm::StringRef message) {
    llvm::StringRef details = llvm::StringRef(diagnostics).rtrim();
    if (details.empty())
      return message.str();
    return (message + "\n" + details).str();
  }

private:
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    rlx::registerAllDialects(registry);
    return registry;
  }

  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  llvm::raw_string_ostream stream;
  SourceMgrDiagnosticHandler handler;
};
} // namespace

/// The module text of file `path` or of `source` (when `path` is null).
static std::unique_ptr<llvm::MemoryBuffer> readModuleText(const char *path,
                                                          const char *source,
                                                          size_t length,
                                                          std::string &error) {
  if (!path)
    return llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(source, length),
                                                "<string>");
  if (!llvm::sys::fs::is_regular_file(path)) {
    error = std::string("no such file '") + path + "'";
    return nullptr;
  }
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file) {
    error =
        "cannot read '" + std::string(path) + "': " + file.getError().message();
    return nullptr;
  }
  return std::move(*file);
}

/// Parses the module text `text` in `context`, whose source manager keeps
/// the buffer for the diagnostics of later passes.
static OwningOpRef<ModuleOp>
parseModuleText(CapturingContext &context,
                std::unique_ptr<llvm::MemoryBuffer> text, std::string &error) {
  std::string name = text->getBufferIdentifier().str();
  context.getSourceMgr().AddNewSourceBuffer(std::move(text), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      context.getSourceMgr(), ParserConfig(&context.get()));
  if (!module)
    error = context.withDiagnostics("cannot parse '" + name + "'");
  return module;
}

/// Parses the module of file `path` or of `source` (when `path` is null).
static OwningOpRef<ModuleOp> parseModule(CapturingContext &context,
                                         const char *path, const char *source,
                                         size_t length, std::string &error) {
  std::unique_ptr<llvm::MemoryBuffer> text =
      readModuleText(path, source, length, error);
  if (!text)
    return nullptr;
  return parseModuleText(context, std::move(text), error);
}

/// The execution library's options for `options` (defaults when null).
static CompileOptions toCompileOptions(const RlxCompileOptions *options,
                                       llvm::StringRef targetName) {
  RlxCompileOptions defaults;
  rlxCompileOptionsInit(&defaults);
  if (!options)
    options = &defaults;
  CompileOptions result;
  result.useBlas = options->useBlas != 0;
  result.profile = options->profile != 0;
  result.timing = options->timing != 0;
  if (options->pipelineOptions)
    result.pipelineOptions = options->pipelineOptions;
  if (options->runtimeLibrary && *options->runtimeLibrary) {
    result.runtimeLibrary = options->runtimeLibrary;
  } else {
    // The execution library looks beside the host executable's bin/, which
    // is the interpreter's for a Python host; this library's folder is
    // where the runtime is.
    llvm::SmallString<256> path(libraryFolder());
    llvm::sys::path::append(path, "librlx_" + targetName + "_runtime.so");
    result.runtimeLibrary = std::string(path);
  }
  return result;
}

static llvm::StringRef targetOf(const RlxCompileOptions *options) {
  return options && options->target && *options->target ? options->target
                                                        : "cpu";
}

static llvm::StringRef entryOf(const RlxCompileOptions *options) {
  return options && options->entry ? options->entry : "";
}

static RlxGraph wrapGraph(std::unique_ptr<CompiledGraph> compiled) {
  auto *graph = new RlxGraphImpl();
  graph->graph = std::move(compiled);
  graph->concurrentRuns = graph->graph->allowsConcurrentRuns();
  const GraphSignature &signature = graph->graph->getSignature();
  auto describe = [](const TensorSpec &spec, const char *name) {
    RlxTensorSpec result;
    result.name = name;
    result.kind = static_cast<RlxTensorKind>(spec.kind);
    result.dtype = static_cast<RlxDType>(spec.dtype);
    result.rank = spec.shape.size();
    result.shape = spec.shape.data();
    result.param = spec.param.c_str();
    return result;
  };
  static_assert(
      RLX_TENSOR_INPUT == static_cast<int>(TensorSpec::Kind::Input) &&
          RLX_TENSOR_OUTPUT == static_cast<int>(TensorSpec::Kind::Result) &&
          RLX_TENSOR_STATE == static_cast<int>(TensorSpec::Kind::State),
      "RlxTensorKind must mirror TensorSpec::Kind");
  for (const TensorSpec &spec : signature.arguments)
    graph->arguments.push_back(describe(spec, spec.name.c_str()));
  for (size_t i = 0; i < signature.results.size(); ++i)
    graph->resultNames.push_back("output_" + std::to_string(i));
  for (size_t i = 0; i < signature.results.size(); ++i)
    graph->results.push_back(
        describe(signature.results[i], graph->resultNames[i].c_str()));
  graph->bound.resize(signature.arguments.size());
  graph->isBound.assign(signature.arguments.size(), false);
  return graph;
}

static RlxStatus requireArgument(const void *pointer, const char *what) {
  if (pointer)
    return nullptr;
  return makeStatus(llvm::Twine(what) + " must not be NULL");
}

/// Where a module comes from: a file or text.
struct ModuleSource {
  /// The path, or the text.
  const char *data;
  bool fromFile;
  size_t length = 0;
};

/// Compiles into `*graph`, or with `outputPath` writes a shared library.
static RlxStatus compileImpl(ModuleSource source,
                             const RlxCompileOptions *options,
                             const char *outputPath, RlxGraph *graph) {
  if (RlxStatus status = requireArgument(
          source.data, source.fromFile ? "the path" : "the source"))
    return status;
  if (!outputPath)
    if (RlxStatus status = requireArgument(graph, "the graph result"))
      return status;
  initializeOnce();
  if (graph)
    *graph = nullptr;
  llvm::Expected<const ExecutionTarget *> target =
      lookupExecutionTarget(targetOf(options));
  if (!target)
    return makeStatus(target.takeError());
  std::string error;
  // Read before the context, whose source manager refers to it, and so
  // freed after it.
  std::unique_ptr<llvm::MemoryBuffer> text =
      source.fromFile
          ? readModuleText(source.data, nullptr, 0, error)
          : readModuleText(nullptr, source.data, source.length, error);
  if (!text)
    return makeStatus(error);
  CapturingContext context;
  CompileOptions compileOptions = toCompileOptions(options, targetOf(options));
  auto parse = [&]() -> llvm::Expected<ParsedGraph> {
    OwningOpRef<ModuleOp> module =
        parseModuleText(context,
                        llvm::MemoryBuffer::getMemBuffer(
                            text->getBuffer(), text->getBufferIdentifier(),
                            /*RequiresNullTerminator=*/false),
                        error);
    if (!module)
      return llvm::createStringError(error);
    return ParsedGraph{std::move(module), entryOf(options).str()};
  };
  if (outputPath) {
    llvm::Expected<ParsedGraph> parsed = parse();
    if (!parsed)
      return makeStatus(parsed.takeError());
    llvm::Expected<GraphSignature> signature = (*target)->emitSharedLibrary(
        *parsed->module, parsed->entry, outputPath, compileOptions);
    return signature ? nullptr : context.fail(signature.takeError());
  }
  llvm::Expected<CompileCacheConfig> cache =
      CompileCacheConfig::fromEnvironment();
  if (!cache)
    return makeStatus(cache.takeError());
  if (options && !options->cache)
    cache->directory.clear();
  llvm::Expected<std::unique_ptr<CompiledGraph>> compiled =
      compileWithCache(**target, text->getBuffer(), entryOf(options),
                       /*entryRule=*/"", parse, compileOptions, *cache);
  if (!compiled) {
    // A parse error carries its diagnostics already.
    if (!error.empty()) {
      llvm::consumeError(compiled.takeError());
      return makeStatus(error);
    }
    return context.fail(compiled.takeError());
  }
  *graph = wrapGraph(std::move(*compiled));
  return nullptr;
}

int rlxGetAPIVersion(void) { return RLX_C_API_VERSION; }

const char *rlxStatusGetMessage(RlxStatus status) {
  return status ? status->message.c_str() : "";
}

void rlxStatusDestroy(RlxStatus status) { delete status; }

RlxStatusCode rlxStatusGetCode(RlxStatus status) {
  return status ? status->code : RLX_STATUS_OK;
}

const char *rlxGetLastErrorMessage(void) { return lastErrorMessage.c_str(); }

/// The dtype a C caller passed, or nullopt when it is not one. C lets an
/// enum hold any int; in C++ a value outside the enumerators' range is
/// undefined behaviour (UBSan reports its load), so the bytes are read as
/// the underlying integer before any comparison.
static std::optional<DType> checkedDType(const RlxDType &dtype) {
  std::underlying_type_t<RlxDType> value;
  static_assert(sizeof(value) == sizeof(dtype));
  std::memcpy(&value, &dtype, sizeof(value));
  if (value < RLX_DTYPE_F32 || value > RLX_DTYPE_C64)
    return std::nullopt;
  return static_cast<DType>(value);
}

size_t rlxDTypeGetSize(RlxDType dtype) {
  std::optional<DType> checked = checkedDType(dtype);
  return checked ? dtypeSize(*checked) : 0;
}

const char *rlxDTypeGetName(RlxDType dtype) {
  std::optional<DType> checked = checkedDType(dtype);
  return checked ? dtypeName(*checked) : "?";
}

void rlxCompileOptionsInit(RlxCompileOptions *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof(*options));
  options->target = "cpu";
  options->useBlas = 1;
  options->cache = 1;
}

const char *rlxGetTargetNames(void) {
  initializeOnce();
  static std::string names = llvm::join(getExecutionTargetNames(), ",");
  return names.c_str();
}

RlxStatus rlxCompileFile(const char *path, const RlxCompileOptions *options,
                         RlxGraph *graph) {
  return compileImpl({path, /*fromFile=*/true}, options, nullptr, graph);
}

RlxStatus rlxCompileString(const char *source, size_t length,
                           const RlxCompileOptions *options, RlxGraph *graph) {
  return compileImpl({source, /*fromFile=*/false, length}, options, nullptr,
                     graph);
}

RlxStatus rlxEmitSharedLibraryFromFile(const char *path,
                                       const RlxCompileOptions *options,
                                       const char *outputPath) {
  return compileImpl({path, /*fromFile=*/true}, options, outputPath, nullptr);
}

RlxStatus rlxEmitSharedLibraryFromString(const char *source, size_t length,
                                         const RlxCompileOptions *options,
                                         const char *outputPath) {
  return compileImpl({source, /*fromFile=*/false, length}, options, outputPath,
                     nullptr);
}

RlxStatus rlxGraphLoad(const char *path, RlxGraph *graph) {
  if (RlxStatus status = requireArgument(path, "the path"))
    return status;
  if (RlxStatus status = requireArgument(graph, "the graph result"))
    return status;
  *graph = nullptr;
  if (!llvm::sys::fs::is_regular_file(path))
    return makeStatus(llvm::Twine("no such file '") + path + "'");
  llvm::Expected<std::unique_ptr<CompiledGraph>> loaded =
      CompiledGraph::load(path);
  if (!loaded)
    return makeStatus(loaded.takeError());
  *graph = wrapGraph(std::move(*loaded));
  return nullptr;
}

RlxStatus rlxLoadPlugin(const char *path) {
  if (RlxStatus status = requireArgument(path, "the path"))
    return status;
  if (llvm::Error error = loadCustomOpPlugin(path))
    return makeStatus(std::move(error));
  return nullptr;
}

RlxStatus rlxTransformString(const char *source, size_t length,
                             const char *pipeline, char **result) {
  if (RlxStatus status = requireArgument(source, "the source"))
    return status;
  if (RlxStatus status = requireArgument(pipeline, "the pipeline"))
    return status;
  if (RlxStatus status = requireArgument(result, "the result"))
    return status;
  *result = nullptr;
  initializeOnce();
  CapturingContext context;
  std::string error;
  OwningOpRef<ModuleOp> module =
      parseModule(context, nullptr, source, length, error);
  if (!module)
    return makeStatus(error);
  PassManager pm(&context.get());
  std::string parseErrors;
  llvm::raw_string_ostream errorStream(parseErrors);
  // A pipeline anchored on the module (`builtin.module(...)`) replaces the
  // pass manager's; parsed into it instead, it would nest and run on the
  // module's inner modules, of which there are none.
  llvm::StringRef pipelineText = llvm::StringRef(pipeline).trim();
  bool parsed = false;
  if (pipelineText.starts_with("builtin.module(")) {
    FailureOr<OpPassManager> anchored =
        parsePassPipeline(pipelineText, errorStream);
    if (succeeded(anchored)) {
      static_cast<OpPassManager &>(pm) = std::move(*anchored);
      parsed = true;
    }
  } else {
    parsed = succeeded(parsePassPipeline(pipelineText, pm, errorStream));
  }
  if (!parsed)
    return makeStatus(context.withDiagnostics(
        "invalid pass pipeline '" + std::string(pipeline) +
        "': " + llvm::StringRef(parseErrors).trim().str()));
  if (failed(pm.run(*module)))
    return makeStatus(context.withDiagnostics(
        "pass pipeline '" + std::string(pipeline) + "' failed"));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  *result = strdup(text.c_str());
  return nullptr;
}

void rlxStringDestroy(char *string) { free(string); }

void rlxGraphDestroy(RlxGraph graph) { delete graph; }

const char *rlxGraphGetName(RlxGraph graph) {
  return graph ? graph->graph->getSignature().name.c_str() : "";
}

size_t rlxGraphGetNumArguments(RlxGraph graph) {
  return graph ? graph->arguments.size() : 0;
}

size_t rlxGraphGetNumResults(RlxGraph graph) {
  return graph ? graph->results.size() : 0;
}

static RlxStatus getSpec(RlxGraph graph, size_t index,
                         const std::vector<RlxTensorSpec> &specs,
                         const char *what, RlxTensorSpec *spec) {
  if (RlxStatus status = requireArgument(spec, "the spec result"))
    return status;
  if (index >= specs.size())
    return makeStatus(llvm::Twine(what) + " index " + llvm::Twine(index) +
                      " is out of range: @" + rlxGraphGetName(graph) + " has " +
                      llvm::Twine(specs.size()));
  *spec = specs[index];
  return nullptr;
}

RlxStatus rlxGraphGetArgument(RlxGraph graph, size_t index,
                              RlxTensorSpec *spec) {
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  return getSpec(graph, index, graph->arguments, "argument", spec);
}

RlxStatus rlxGraphGetResult(RlxGraph graph, size_t index, RlxTensorSpec *spec) {
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  return getSpec(graph, index, graph->results, "result", spec);
}

RlxStatus rlxGraphFindArgument(RlxGraph graph, const char *name,
                               size_t *index) {
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  if (RlxStatus status = requireArgument(name, "the name"))
    return status;
  const GraphSignature &signature = graph->graph->getSignature();
  std::optional<size_t> found = signature.findArgumentIndex(name);
  if (!found)
    return makeStatus(llvm::Twine("'") + name + "' is not an argument of @" +
                      signature.name +
                      " (arguments: " + signature.argumentNames() + ")");
  if (index)
    *index = *found;
  return nullptr;
}

/// A copy of `size` bytes at `data` as argument `name` of `graph`, checked
/// against its spec; `index` is the argument's.
static RlxStatus copyForBind(RlxGraph graph, const char *name, const void *data,
                             size_t size, size_t &index,
                             std::optional<HostTensor> &tensor) {
  if (RlxStatus status = rlxGraphFindArgument(graph, name, &index))
    return status;
  if (RlxStatus status = requireArgument(data, "the data"))
    return status;
  const TensorSpec &spec = graph->graph->getSignature().arguments[index];
  if (spec.isDynamic())
    return makeStatus(llvm::Twine("'") + name + "' is " + spec.describe() +
                      ": a raw buffer has no shape to bind to its `?` dims "
                      "(pass it to rlxGraphRunShaped, or bind a tensor file)");
  // Sized before anything is allocated: a wrong size is an error without
  // allocating what the signature asks for, and a size that overflows
  // (a huge static shape) is one too.
  std::optional<int64_t> expected = checkedSizeInBytes(spec.dtype, spec.shape);
  if (!expected)
    return makeStatus(llvm::Twine("'") + name + "' is " + spec.describe() +
                      ": its byte count overflows a 64-bit size");
  if (static_cast<uint64_t>(*expected) != size)
    return makeStatus(llvm::Twine("'") + name + "' is " + spec.describe() +
                      ", " + llvm::Twine(*expected) + " bytes; got " +
                      llvm::Twine(size) + " bytes");
  std::string error;
  tensor = HostTensor::create(spec.dtype, spec.shape, error);
  if (!tensor)
    return makeStatus(llvm::Twine("'") + name + "': " + error);
  std::memcpy(tensor->data(), data, size);
  return nullptr;
}

RlxStatus rlxGraphBindMany(RlxGraph graph, const char *const *names,
                           const void *const *data, const size_t *sizes,
                           size_t count) {
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  if (count && (!names || !data || !sizes))
    return makeStatus("rlxGraphBindMany: names, data and sizes must not be "
                      "NULL when count is not 0");
  std::vector<std::pair<size_t, std::optional<HostTensor>>> copies(count);
  for (size_t i = 0; i < count; ++i)
    if (RlxStatus status = copyForBind(graph, names[i], data[i], sizes[i],
                                       copies[i].first, copies[i].second))
      return status;
  // Copied before the lock, swapped under one hold of it: runs wait only
  // for the swaps, see all of the tensors bound or none, and the replaced
  // data is freed with `copies`, when no run can hold it.
  std::unique_lock<GraphLock> lock(graph->lock);
  for (auto &[index, tensor] : copies) {
    std::swap(graph->bound[index], *tensor);
    graph->isBound[index] = true;
  }
  lock.unlock();
  return nullptr;
}

RlxStatus rlxGraphBind(RlxGraph graph, const char *name, const void *data,
                       size_t size) {
  return rlxGraphBindMany(graph, &name, &data, &size, 1);
}

/// Binds every tensor of `tensors` that names an argument of `graph`, all
/// checked before any is bound.
static RlxStatus
bindParams(RlxGraph graph, const char *path,
           std::optional<std::map<std::string, ParamTensor>> tensors,
           const std::string &error, size_t *bound) {
  if (!tensors)
    return makeStatus(error);
  const GraphSignature &signature = graph->graph->getSignature();
  // Checked in full before any is bound, so a failure binds nothing.
  std::vector<std::pair<size_t, HostTensor *>> matches;
  for (auto &[name, tensor] : *tensors) {
    std::optional<size_t> index = signature.findArgumentIndex(name);
    if (!index)
      continue;
    if (llvm::Error error = signature.arguments[*index].checkMatches(
            tensor, "'" + std::string(path) + "'"))
      return makeStatus(std::move(error));
    matches.emplace_back(*index, &tensor.tensor);
  }
  // All swapped under one hold of the lock: a run sees the whole file
  // bound or none of it; the replaced data is freed with `tensors`.
  {
    std::unique_lock<GraphLock> lock(graph->lock);
    for (auto [index, tensor] : matches) {
      std::swap(graph->bound[index], *tensor);
      graph->isBound[index] = true;
    }
  }
  if (bound)
    *bound = matches.size();
  return nullptr;
}

RlxStatus rlxGraphBindSafetensors(RlxGraph graph, const char *path,
                                  size_t *bound) {
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  if (RlxStatus status = requireArgument(path, "the path"))
    return status;
  std::string error;
  std::optional<std::map<std::string, ParamTensor>> params;
  if (auto tensors = readSafetensors(path, error))
    params = asParamTensors(std::move(*tensors));
  return bindParams(graph, path, std::move(params), error, bound);
}

RlxStatus rlxGraphBindParams(RlxGraph graph, const char *path, size_t *bound) {
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  if (RlxStatus status = requireArgument(path, "the path"))
    return status;
  std::string error;
  auto params = readParamsFile(path, error);
  return bindParams(graph, path, std::move(params), error, bound);
}

int rlxGraphIsBound(RlxGraph graph, size_t index) {
  if (!graph || index >= graph->isBound.size())
    return 0;
  std::shared_lock<GraphLock> lock(graph->lock);
  return graph->isBound[index];
}

/// The buffers of a run: the caller's, or the bound data where the caller
/// passes NULL.
static RlxStatus gatherBuffers(RlxGraph graph, const void *const *arguments,
                               size_t numArguments, void *const *outputs,
                               size_t numOutputs,
                               std::vector<const void *> &argumentData,
                               std::vector<void *> &outputData) {
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  const GraphSignature &signature = graph->graph->getSignature();
  // Without `arguments` every argument comes bound, whatever the count says.
  if (llvm::Error error = graph->graph->checkBufferCounts(
          arguments ? numArguments : signature.arguments.size(), numOutputs))
    return makeStatus(std::move(error));
  for (size_t i = 0; i < signature.arguments.size(); ++i) {
    const void *data = arguments ? arguments[i] : nullptr;
    if (!data && graph->isBound[i])
      data = graph->bound[i].data();
    if (!data) {
      const TensorSpec &spec = signature.arguments[i];
      return makeStatus("no data for " + spec.kindName() + " '" + spec.name +
                        "' (" + spec.describe() +
                        "): pass a buffer or bind it");
    }
    argumentData.push_back(data);
  }
  for (size_t i = 0; i < numOutputs; ++i) {
    if (!outputs || !outputs[i])
      return makeStatus("no buffer for output_" + llvm::Twine(i) + " (" +
                        signature.results[i].describe() + ")");
    outputData.push_back(outputs[i]);
  }
  return nullptr;
}

RlxStatus rlxGraphRun(RlxGraph graph, const void *const *arguments,
                      size_t numArguments, void *const *outputs,
                      size_t numOutputs) {
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  RunLock lock(*graph);
  std::vector<const void *> argumentData;
  std::vector<void *> outputData;
  if (RlxStatus status = gatherBuffers(graph, arguments, numArguments, outputs,
                                       numOutputs, argumentData, outputData))
    return status;
  return makeStatus(graph->graph->runBuffers(argumentData, outputData));
}

RlxStatus rlxGraphRunShaped(RlxGraph graph, const void *const *arguments,
                            const int64_t *const *argumentShapes,
                            size_t numArguments, RlxOutput *outputs,
                            size_t numOutputs) {
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  const GraphSignature &signature = graph->graph->getSignature();
  size_t count = arguments ? numArguments : signature.arguments.size();
  if (count != signature.arguments.size())
    return makeStatus("@" + signature.name + " takes " +
                      llvm::Twine(signature.arguments.size()) + " arguments (" +
                      signature.argumentNames() + "), got " +
                      llvm::Twine(count));
  if (numOutputs != signature.results.size())
    return makeStatus("@" + signature.name + " has " +
                      llvm::Twine(signature.results.size()) + " outputs, got " +
                      llvm::Twine(numOutputs) + " output slots");
  if (RlxStatus status = requireArgument(outputs, "the outputs"))
    return status;
  RunLock lock(*graph);
  std::vector<const void *> data;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < signature.arguments.size(); ++i) {
    const TensorSpec &spec = signature.arguments[i];
    const void *buffer = arguments ? arguments[i] : nullptr;
    if (buffer) {
      const int64_t *shape = argumentShapes ? argumentShapes[i] : nullptr;
      if (!shape && spec.isDynamic())
        return makeStatus("no shape for " + spec.kindName() + " '" + spec.name +
                          "' (" + spec.describe() + ")");
      shapes.emplace_back(
          shape ? std::vector<int64_t>(shape, shape + spec.shape.size())
                : spec.shape);
    } else if (graph->isBound[i]) {
      buffer = graph->bound[i].data();
      shapes.push_back(graph->bound[i].shape());
    } else {
      return makeStatus("no data for " + spec.kindName() + " '" + spec.name +
                        "' (" + spec.describe() +
                        "): pass a buffer or bind it");
    }
    data.push_back(buffer);
  }
  llvm::Expected<std::vector<HostTensor>> results =
      graph->graph->runShapedBuffers(data, shapes);
  if (!results)
    return makeStatus(results.takeError());
  // Every output or none: a copy that cannot be allocated frees the ones
  // made before it.
  llvm::MutableArrayRef<RlxOutput> slots(outputs, numOutputs);
  for (RlxOutput &output : slots)
    output = RlxOutput{nullptr, nullptr, 0};
  for (auto [i, tensor] : llvm::enumerate(*results)) {
    RlxOutput &output = slots[i];
    output.rank = tensor.shape().size();
    auto *shape = new (std::nothrow) int64_t[std::max<size_t>(1, output.rank)];
    output.shape = shape;
    output.data = std::malloc(std::max<size_t>(1, tensor.sizeInBytes()));
    if (!shape || !output.data) {
      for (RlxOutput &made : slots)
        rlxOutputDestroy(&made);
      return makeStatus("cannot allocate " + llvm::Twine(tensor.sizeInBytes()) +
                            " bytes for output_" + llvm::Twine(i),
                        RLX_STATUS_OUT_OF_MEMORY);
    }
    std::copy(tensor.shape().begin(), tensor.shape().end(), shape);
    std::memcpy(output.data, tensor.data(), tensor.sizeInBytes());
  }
  return nullptr;
}

void rlxOutputDestroy(RlxOutput *output) {
  if (!output)
    return;
  std::free(output->data);
  delete[] output->shape;
  output->data = nullptr;
  output->shape = nullptr;
  output->rank = 0;
}

RlxStatus rlxGraphBench(RlxGraph graph, const void *const *arguments,
                        size_t numArguments, void *const *outputs,
                        size_t numOutputs, unsigned warmUpRuns,
                        unsigned timedRuns, RlxBenchResult *result) {
  if (RlxStatus status = requireArgument(result, "the bench result"))
    return status;
  if (timedRuns == 0)
    return makeStatus("the bench needs at least 1 timed run, got 0");
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  RunLock lock(*graph);
  std::vector<const void *> argumentData;
  std::vector<void *> outputData;
  if (RlxStatus status = gatherBuffers(graph, arguments, numArguments, outputs,
                                       numOutputs, argumentData, outputData))
    return status;
  // An interrupt meant for an earlier call must not stop this one; one that
  // comes before this store is repeated by a host that still waits (the
  // Python package sends it until the call returns).
  graph->interrupt.store(false);
  llvm::Expected<BenchResult> bench = graph->graph->benchBuffers(
      argumentData, outputData,
      BenchOptions{warmUpRuns, timedRuns, &graph->interrupt});
  if (!bench)
    return makeStatus(bench.takeError());
  result->runs = bench->runs;
  result->medianMs = bench->medianMs;
  result->p90Ms = bench->p90Ms;
  result->minMs = bench->minMs;
  result->totalMs = bench->totalMs;
  result->peakBytes = bench->peakBytes.value_or(-1);
  return nullptr;
}

/// Sets `timers` to the per-op timers of `graph`; an error where it was
/// compiled without them.
static RlxStatus requireProfiled(RlxGraph graph, const ProfileTimers *&timers) {
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  timers = graph->graph->getProfileTimers();
  if (!timers)
    return makeStatus("@" + graph->graph->getSignature().name +
                      " was compiled without per-op timers (profile)");
  return nullptr;
}

RlxStatus rlxGraphStartTrace(RlxGraph graph) {
  const ProfileTimers *timers = nullptr;
  if (RlxStatus status = requireProfiled(graph, timers))
    return status;
  RunLock lock(*graph);
  if (llvm::Error error = startTrace(*timers))
    return makeStatus(std::move(error));
  return nullptr;
}

RlxStatus rlxGraphProfileReport(RlxGraph graph, const char *tracePath,
                                char **result) {
  const ProfileTimers *timers = nullptr;
  if (RlxStatus status = requireProfiled(graph, timers))
    return status;
  if (RlxStatus status = requireArgument(result, "the result"))
    return status;
  RunLock lock(*graph);
  if (tracePath && *tracePath) {
    std::error_code ec;
    llvm::raw_fd_ostream os(tracePath, ec);
    if (ec)
      return makeStatus("cannot write '" + std::string(tracePath) +
                        "': " + ec.message());
    writeChromeTrace(os, *timers, graph->graph->getSignature().name);
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      return makeStatus("cannot write '" + std::string(tracePath) +
                        "': " + message);
    }
  }
  llvm::json::Array ops;
  for (const OpTime &time : graph->graph->readProfile())
    ops.push_back(llvm::json::Object{
        {"op", time.label}, {"total_ms", time.totalMs}, {"calls", time.calls}});
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(ops));
  *result = strdup(text.c_str());
  return nullptr;
}

void rlxGraphInterrupt(RlxGraph graph) {
  // A lock-free atomic store: safe from a signal handler and other threads.
  if (graph)
    graph->interrupt.store(true);
}

int64_t rlxGraphGetLiveBufferBytes(RlxGraph graph) {
  return graph ? graph->graph->liveBufferBytes() : -1;
}

RlxStatus rlxGraphDebugFailAllocation(RlxGraph graph, int64_t after) {
  if (RlxStatus status = requireArgument(graph, "the graph"))
    return status;
  return makeStatus(graph->graph->failAllocationForTesting(after));
}
