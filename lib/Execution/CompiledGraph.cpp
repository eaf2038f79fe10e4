//===- CompiledGraph.cpp - a graph ready to run on host tensors -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/CompiledGraph.h"

#include "rlx-c/CustomOps.h"
#include "rlx/Runtime/FileIO.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <numeric>
#include <system_error>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

using namespace rlxrt;
using rlxrt::detail::readAt;

namespace {

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#else
#error "unknown host architecture: name its ELF machine here"
#endif

/// Checks that `path` is a whole ELF shared library for this host before
/// dlopen maps it: the loader maps each segment's file range and a range
/// past the end of a truncated file faults (SIGBUS) on first touch.
llvm::Error checkSharedLibrary(const std::string &path) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("cannot load '" + path + "': " + why);
  };
  uint64_t fileSize = 0;
  std::string reason;
  detail::UniqueFd fd = detail::openRegularFile(path, fileSize, reason);
  if (!fd)
    return fail(reason);
  Elf64_Ehdr header;
  if (!readAt(fd.get(), 0, &header, sizeof(header)) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return fail("not an ELF shared library (no ELF header)");
  if (header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_machine != kHostMachine)
    return fail("an ELF file for another machine than this one");
  if (header.e_type != ET_DYN)
    return fail("an ELF file but not a shared library");
  // Compared without overflow: every field comes from the file.
  auto fits = [&](uint64_t offset, uint64_t count, uint64_t entrySize) {
    uint64_t bytes;
    return !__builtin_mul_overflow(count, entrySize, &bytes) &&
           offset <= fileSize && bytes <= fileSize - offset;
  };
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 ||
      !fits(header.e_phoff, header.e_phnum, sizeof(Elf64_Phdr)))
    return fail("truncated or malformed: its program headers are not within "
                "the file's " +
                llvm::Twine(fileSize) + " bytes");
  if (header.e_shnum != 0 &&
      !fits(header.e_shoff, header.e_shnum, header.e_shentsize))
    return fail("truncated: its section headers end past the file's " +
                llvm::Twine(fileSize) + " bytes");
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    if (!readAt(fd.get(), header.e_phoff + uint64_t(i) * sizeof(Elf64_Phdr),
                &segment, sizeof(segment)))
      return fail("truncated program headers");
    if (segment.p_filesz != 0 && !fits(segment.p_offset, segment.p_filesz, 1))
      return fail("truncated: segment " + llvm::Twine(i) + " spans bytes " +
                  llvm::Twine(segment.p_offset) + " to " +
                  llvm::Twine(segment.p_offset + segment.p_filesz) +
                  " but the file has " + llvm::Twine(fileSize));
  }
  return llvm::Error::success();
}

/// The size in bytes of the data symbol at `address` (its ELF st_size),
/// so that a text read from a library stays within its symbol even where
/// the NUL that ends it was edited away; nullopt where it cannot be told.
std::optional<size_t> symbolSize(const void *address) {
  Dl_info info;
  void *entry = nullptr;
  if (!dladdr1(address, &info, &entry, RTLD_DL_SYMENT) || !entry ||
      info.dli_saddr != address)
    return std::nullopt;
  return static_cast<const ElfW(Sym) *>(entry)->st_size;
}

/// The NUL-terminated text of symbol `name` of `library`: empty where the
/// library has no such symbol, an error where its NUL is not within it.
llvm::Expected<llvm::StringRef> symbolText(void *library,
                                           llvm::StringRef name) {
  auto *text = static_cast<const char *>(dlsym(library, name.data()));
  if (!text)
    return llvm::StringRef();
  std::optional<size_t> bytes = symbolSize(text);
  size_t length = bytes ? strnlen(text, *bytes) : 0;
  if (!bytes || length == *bytes)
    return llvm::createStringError("its " + name +
                                   " does not end within its symbol");
  return llvm::StringRef(text, length);
}

/// Checks the signature and profile labels of `library` against its
/// rlx_graph_abi (graphABIRecord) before anything of it is called: a
/// runner sizes the buffers from the signature, the code from its own
/// types, so an edited size would let the graph read past the buffers.
llvm::Expected<GraphSignature> readCheckedSignature(void *library) {
  llvm::Expected<llvm::StringRef> text =
      symbolText(library, kGraphSignatureSymbol);
  if (!text)
    return text.takeError();
  llvm::Expected<llvm::StringRef> labels =
      symbolText(library, kGraphProfileLabelsSymbol);
  if (!labels)
    return labels.takeError();
  auto *abi =
      static_cast<const uint64_t *>(dlsym(library, kGraphABISymbol.data()));
  if (!abi)
    return llvm::createStringError(
        "it has no " + kGraphABISymbol +
        " (written by an older compiler: compile it again)");
  std::optional<size_t> abiBytes = symbolSize(abi);
  if (!abiBytes || *abiBytes % sizeof(uint64_t))
    return llvm::createStringError("its " + kGraphABISymbol +
                                   " is not an array of 64-bit words");
  llvm::Expected<GraphSignature> signature = GraphSignature::parse(*text);
  if (!signature)
    return signature.takeError();
  if (llvm::Error error =
          checkGraphABIRecord(llvm::ArrayRef(abi, *abiBytes / sizeof(uint64_t)),
                              *signature, *text, *labels))
    return std::move(error);
  return signature;
}

} // namespace

static std::vector<const void *>
tensorData(llvm::ArrayRef<const HostTensor *> tensors) {
  std::vector<const void *> data;
  for (const HostTensor *tensor : tensors)
    data.push_back(tensor->data());
  return data;
}

static std::vector<const HostTensor *>
tensorPointers(llvm::ArrayRef<HostTensor> tensors) {
  std::vector<const HostTensor *> pointers;
  for (const HostTensor &tensor : tensors)
    pointers.push_back(&tensor);
  return pointers;
}

static std::vector<const std::vector<int64_t> *>
tensorShapes(llvm::ArrayRef<const HostTensor *> tensors) {
  std::vector<const std::vector<int64_t> *> shapes;
  for (const HostTensor *tensor : tensors)
    shapes.push_back(&tensor->shape());
  return shapes;
}

MemRefDescriptors::MemRefDescriptors(llvm::ArrayRef<const HostTensor *> tensors)
    : MemRefDescriptors(tensorData(tensors), tensorShapes(tensors)) {}

MemRefDescriptors::MemRefDescriptors(
    llvm::ArrayRef<const void *> data,
    llvm::ArrayRef<const std::vector<int64_t> *> shapes) {
  for (auto [buffer, shapePtr] : llvm::zip_equal(data, shapes)) {
    const std::vector<int64_t> &shape = *shapePtr;
    std::vector<int64_t> desc(3 + 2 * shape.size());
    // The graph writes outputs through the same kind of descriptor it reads
    // arguments from; constness is the caller's contract, not the ABI's.
    desc[0] = desc[1] = reinterpret_cast<int64_t>(buffer);
    desc[2] = 0;
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      desc[3 + d] = shape[d];
      desc[3 + shape.size() + d] = stride;
      stride *= shape[d];
    }
    descriptors.push_back(std::move(desc));
  }
  for (std::vector<int64_t> &desc : descriptors)
    pointers.push_back(desc.data());
}

CompiledGraph::CompiledGraph(GraphSignature signature, GraphRunFn run,
                             std::shared_ptr<void> code)
    : signature(std::move(signature)), runFn(run), code(std::move(code)) {}

llvm::Expected<std::unique_ptr<CompiledGraph>>
CompiledGraph::load(llvm::StringRef path) {
  // dlopen searches the library path for a name without a slash, never the
  // current directory; an absolute path loads exactly the file named.
  llvm::SmallString<256> absolute(path);
  if (std::error_code error = llvm::sys::fs::make_absolute(absolute))
    return llvm::createStringError("cannot load '" + path +
                                   "': " + error.message());
  std::string pathText = path.str();
  if (llvm::Error error = checkSharedLibrary(pathText))
    return error;
  // Never closed: unloading the graph could unload its runtime while the
  // runtime's worker threads still run.
  void *handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return llvm::createStringError("cannot load '" + path + "': " + dlerror());
  auto *text =
      static_cast<const char *>(dlsym(handle, kGraphSignatureSymbol.data()));
  auto run =
      reinterpret_cast<GraphRunFn>(dlsym(handle, kGraphRunSymbol.data()));
  if (!text || !run)
    return llvm::createStringError(
        "'" + path + "' is not a compiled rlx graph (no " + kGraphRunSymbol +
        " / " + kGraphSignatureSymbol + ")");
  llvm::Expected<GraphSignature> signature = readCheckedSignature(handle);
  if (!signature)
    return llvm::createStringError(
        "cannot load '" + path + "': " + llvm::toString(signature.takeError()));
  if (auto ready = reinterpret_cast<GraphReadyFn>(
          dlsym(handle, kGraphReadySymbol.data()))) {
    char reason[512] = {0};
    if (!ready(reason, sizeof(reason)))
      return llvm::createStringError("cannot run '" + path + "': " + reason);
  }
  auto graph = std::make_unique<CompiledGraph>(std::move(*signature), run,
                                               /*code=*/nullptr);
  graph->setBenchFunction(
      reinterpret_cast<GraphBenchFn>(dlsym(handle, kGraphBenchSymbol.data())));
  graph->setStepsFunction(
      reinterpret_cast<GraphStepsFn>(dlsym(handle, kGraphStepsSymbol.data())));
  // Found in the library's dependencies too: its target's runtime.
  graph->bindBufferCounters(
      [&](llvm::StringRef symbol) { return dlsym(handle, symbol.data()); });
  graph->library = handle;
  graph->libraryPath = pathText;
  return graph;
}

namespace {
struct LoadedPlugins {
  std::mutex mutex;
  std::vector<std::string> paths;
};
} // namespace

static LoadedPlugins &getLoadedPlugins() {
  static LoadedPlugins plugins;
  return plugins;
}

std::vector<std::string> rlxrt::getLoadedCustomOpPlugins() {
  LoadedPlugins &plugins = getLoadedPlugins();
  std::lock_guard<std::mutex> lock(plugins.mutex);
  return plugins.paths;
}

llvm::Error rlxrt::loadCustomOpPlugin(llvm::StringRef path) {
  llvm::SmallString<256> absolute(path);
  if (std::error_code error = llvm::sys::fs::make_absolute(absolute))
    return llvm::createStringError("cannot load plugin '" + path +
                                   "': " + error.message());
  if (llvm::Error error = checkSharedLibrary(path.str()))
    return error;
  void *handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return llvm::createStringError("cannot load plugin '" + path +
                                   "': " + dlerror());
  auto init =
      reinterpret_cast<RlxPluginInitFn>(dlsym(handle, RLX_PLUGIN_INIT_SYMBOL));
  if (!init)
    return llvm::createStringError(
        "'" + path + "' is not an rlx plugin: it exports no " +
        RLX_PLUGIN_INIT_SYMBOL + " (extern \"C\" int " +
        RLX_PLUGIN_INIT_SYMBOL + "(void), docs/custom-ops.md)");
  if (int status = init())
    return llvm::createStringError(
        "the " + llvm::Twine(RLX_PLUGIN_INIT_SYMBOL) + " of plugin '" + path +
        "' failed (returned " + llvm::Twine(status) +
        "): " + rlxCustomOpsLastError());
  LoadedPlugins &plugins = getLoadedPlugins();
  std::lock_guard<std::mutex> lock(plugins.mutex);
  plugins.paths.push_back(std::string(absolute));
  return llvm::Error::success();
}

llvm::Error CompiledGraph::bindLibraryProfile() {
  const char *lines = library ? static_cast<const char *>(dlsym(
                                    library, kGraphProfileLabelsSymbol.data()))
                              : nullptr;
  if (!lines)
    return llvm::createStringError(
        "'" + libraryPath +
        "' has no per-op timers (compile it with --profile; graphs for the "
        "cuda target always have them)");
  std::vector<std::string> labels;
  std::vector<OpCost> costs;
  parseProfileLabels(lines, labels, costs);
  llvm::Expected<ProfileTimers> timers = bindProfileTimers(
      std::move(labels), std::move(costs),
      [&](llvm::StringRef symbol) { return dlsym(library, symbol.data()); },
      "the runtime of '" + libraryPath + "'");
  if (!timers)
    return timers.takeError();
  setProfileTimers(std::move(*timers));
  return llvm::Error::success();
}

llvm::Error CompiledGraph::checkArgumentCount(size_t count) const {
  if (count == signature.arguments.size())
    return llvm::Error::success();
  return llvm::createStringError("@" + signature.name + " takes " +
                                 std::to_string(signature.arguments.size()) +
                                 " arguments (" + signature.argumentNames() +
                                 "), got " + std::to_string(count));
}

llvm::Error
CompiledGraph::checkArguments(llvm::ArrayRef<HostTensor> arguments) const {
  if (llvm::Error error = checkArgumentCount(arguments.size()))
    return error;
  for (auto [spec, tensor] : llvm::zip_equal(signature.arguments, arguments))
    if (llvm::Error error = spec.checkMatches(tensor))
      return error;
  return llvm::Error::success();
}

llvm::Error
CompiledGraph::checkOutputs(llvm::ArrayRef<HostTensor> outputs) const {
  if (outputs.size() != signature.results.size())
    return llvm::createStringError(
        "@" + signature.name + " has " +
        std::to_string(signature.results.size()) + " outputs, got " +
        std::to_string(outputs.size()) + " output tensors");
  for (auto [spec, tensor] : llvm::zip_equal(signature.results, outputs))
    if (llvm::Error error = spec.checkMatches(tensor))
      return error;
  return llvm::Error::success();
}

llvm::Expected<std::vector<HostTensor>> CompiledGraph::allocateOutputs() const {
  std::vector<HostTensor> outputs;
  for (const TensorSpec &spec : signature.results) {
    llvm::Expected<HostTensor> output = spec.allocate();
    if (!output)
      return output.takeError();
    outputs.push_back(std::move(*output));
  }
  return outputs;
}

MemRefDescriptors
CompiledGraph::describe(llvm::ArrayRef<HostTensor> arguments,
                        llvm::ArrayRef<HostTensor> outputs) const {
  std::vector<const HostTensor *> tensors;
  for (const HostTensor &tensor : arguments)
    tensors.push_back(&tensor);
  for (const HostTensor &tensor : outputs)
    tensors.push_back(&tensor);
  return MemRefDescriptors(tensors);
}

llvm::Expected<std::vector<HostTensor>>
CompiledGraph::run(llvm::ArrayRef<HostTensor> arguments) const {
  if (signature.returnsOutputs()) {
    if (llvm::Error error = checkArguments(arguments))
      return std::move(error);
    return runReturning(tensorData(tensorPointers(arguments)),
                        tensorShapes(tensorPointers(arguments)));
  }
  llvm::Expected<std::vector<HostTensor>> outputs = allocateOutputs();
  if (!outputs)
    return outputs.takeError();
  if (llvm::Error error = run(arguments, *outputs))
    return std::move(error);
  return outputs;
}

llvm::Error
CompiledGraph::run(llvm::ArrayRef<HostTensor> arguments,
                   llvm::MutableArrayRef<HostTensor> outputs) const {
  if (signature.returnsOutputs()) {
    if (outputs.size() != signature.results.size())
      return checkOutputs(outputs);
    llvm::Expected<std::vector<HostTensor>> results = run(arguments);
    if (!results)
      return results.takeError();
    std::move(results->begin(), results->end(), outputs.begin());
    return llvm::Error::success();
  }
  if (llvm::Error error = checkArguments(arguments))
    return error;
  if (llvm::Error error = checkOutputs(outputs))
    return error;
  MemRefDescriptors descriptors = describe(arguments, outputs);
  return invoke(descriptors);
}

llvm::Error CompiledGraph::invoke(MemRefDescriptors &descriptors) const {
  if (signature.returnsOutputs() && !freeOutputFn)
    return llvm::createStringError(
        "@" + signature.name +
        " returns outputs with `?` dims, but its runtime exports no " +
        kFreeOutputSymbol + " to free them");
  // Every run goes through the runtime's guard where it has one: a failure
  // inside the compiled code (an allocation, a shape check, a custom op, a
  // CUDA driver error) comes back as its status (docs/abi.md). A runtime
  // without one reports nothing this way.
  if (!guardedRunFn) {
    runFn(descriptors.get());
    return llvm::Error::success();
  }
  char message[1024] = {0};
  int status = guardedRunFn(runFn, descriptors.get(), message, sizeof(message));
  return guardStatus(status, message);
}

llvm::Error CompiledGraph::guardStatus(int status, const char *message) const {
  if (status == kRunFailedOutOfMemory)
    return llvm::createStringError(
        std::make_error_code(std::errc::not_enough_memory),
        "@" + signature.name + ": " + message);
  if (status)
    return llvm::createStringError("@" + signature.name + ": " + message);
  return llvm::Error::success();
}

llvm::Error CompiledGraph::callBench(MemRefDescriptors &descriptors,
                                     unsigned warmUpRuns, unsigned timedRuns,
                                     float *runMs) const {
  struct Call {
    GraphBenchFn bench;
    void **descriptors;
    int32_t warmUpRuns, timedRuns;
    float *runMs;
  } call{benchFn, descriptors.get(), static_cast<int32_t>(warmUpRuns),
         static_cast<int32_t>(timedRuns), runMs};
  auto run = [](void *context) {
    auto *call = static_cast<Call *>(context);
    call->bench(call->descriptors, call->warmUpRuns, call->timedRuns,
                call->runMs);
  };
  return callGuarded(run, &call);
}

llvm::Error CompiledGraph::callGuarded(void (*call)(void *),
                                       void *context) const {
  // Through the runtime's call guard where it has one (cuda's): a driver
  // error inside is the call's status, as in a run.
  if (!callGuardedFn) {
    call(context);
    return llvm::Error::success();
  }
  char message[1024] = {0};
  return guardStatus(callGuardedFn(call, context, message, sizeof(message)),
                     message);
}

llvm::Error
CompiledGraph::runOwnSteps(llvm::MutableArrayRef<HostTensor> arguments,
                           llvm::MutableArrayRef<HostTensor> outputs,
                           const rlx_graph_step_plan &plan) const {
  if (!stepsFn)
    return llvm::createStringError("@" + signature.name + " has no " +
                                   kGraphStepsSymbol + " entry");
  if (llvm::Error error = checkArguments(arguments))
    return error;
  if (llvm::Error error = checkOutputs(outputs))
    return error;
  MemRefDescriptors descriptors = describe(arguments, outputs);
  struct Call {
    GraphStepsFn steps;
    void **descriptors;
    const rlx_graph_step_plan *plan;
  } call{stepsFn, descriptors.get(), &plan};
  auto run = [](void *context) {
    auto *call = static_cast<Call *>(context);
    call->steps(call->descriptors, call->plan);
  };
  return callGuarded(run, &call);
}

MemRefDescriptors CompiledGraph::describeReturning(
    llvm::ArrayRef<const void *> data,
    llvm::ArrayRef<const std::vector<int64_t> *> shapes) const {
  std::vector<const void *> allData(data.begin(), data.end());
  std::vector<const std::vector<int64_t> *> allShapes(shapes.begin(),
                                                      shapes.end());
  // Placeholders of the outputs' ranks; the graph overwrites every field.
  std::vector<std::vector<int64_t>> empty;
  empty.reserve(signature.results.size());
  for (const TensorSpec &spec : signature.results)
    empty.emplace_back(spec.shape.size(), 0);
  for (const std::vector<int64_t> &shape : empty) {
    allData.push_back(nullptr);
    allShapes.push_back(&shape);
  }
  return MemRefDescriptors(allData, allShapes);
}

llvm::Expected<std::vector<HostTensor>> CompiledGraph::runReturning(
    llvm::ArrayRef<const void *> data,
    llvm::ArrayRef<const std::vector<int64_t> *> shapes) const {
  MemRefDescriptors descriptors = describeReturning(data, shapes);
  if (llvm::Error error = invoke(descriptors))
    return std::move(error);
  return takeReturnedOutputs(descriptors);
}

void CompiledGraph::freeReturnedOutputs(
    const MemRefDescriptors &descriptors) const {
  size_t first = signature.arguments.size();
  std::vector<int64_t> freed;
  for (size_t i = 0; i < signature.results.size(); ++i) {
    int64_t allocated = descriptors.descriptor(first + i)[0];
    if (allocated && !llvm::is_contained(freed, allocated)) {
      freeOutputFn(reinterpret_cast<void *>(allocated));
      freed.push_back(allocated);
    }
  }
}

llvm::Expected<std::vector<HostTensor>>
CompiledGraph::takeReturnedOutputs(const MemRefDescriptors &descriptors) const {
  size_t first = signature.arguments.size();
  std::vector<HostTensor> outputs;
  llvm::Error failure = llvm::Error::success();
  for (auto [i, spec] : llvm::enumerate(signature.results)) {
    const int64_t *desc = descriptors.descriptor(first + i);
    size_t rank = spec.shape.size();
    std::vector<int64_t> shape(desc + 3, desc + 3 + rank);
    const int64_t *strides = desc + 3 + rank;
    std::string error;
    std::optional<HostTensor> tensor =
        HostTensor::create(spec.dtype, shape, error);
    if (!tensor) {
      if (!failure)
        failure = llvm::createStringError(spec.kindName() + " '" + spec.name +
                                          "': " + error);
      continue;
    }
    // Element by element along the descriptor's strides: a returned buffer
    // is dense row-major, but the ABI allows any strides.
    size_t elementBytes = dtypeSize(spec.dtype);
    const char *source =
        reinterpret_cast<const char *>(desc[1]) + desc[2] * elementBytes;
    char *target = static_cast<char *>(tensor->data());
    std::vector<int64_t> index(rank, 0);
    for (int64_t n = 0, e = tensor->numElements(); n < e; ++n) {
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d)
        offset += index[d] * strides[d];
      std::memcpy(target + n * elementBytes, source + offset * elementBytes,
                  elementBytes);
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < shape[d])
          break;
        index[d] = 0;
      }
    }
    outputs.push_back(std::move(*tensor));
  }
  freeReturnedOutputs(descriptors);
  if (failure)
    return std::move(failure);
  return outputs;
}

llvm::Expected<std::vector<HostTensor>> CompiledGraph::runShapedBuffers(
    llvm::ArrayRef<const void *> arguments,
    llvm::ArrayRef<std::vector<int64_t>> argumentShapes) const {
  if (llvm::Error error = checkArgumentCount(arguments.size()))
    return error;
  if (argumentShapes.size() != arguments.size())
    return llvm::createStringError(
        "@" + signature.name + ": " + std::to_string(arguments.size()) +
        " argument buffers but " + std::to_string(argumentShapes.size()) +
        " shapes");
  std::vector<const std::vector<int64_t> *> shapes;
  for (auto [spec, shape] :
       llvm::zip_equal(signature.arguments, argumentShapes)) {
    bool matches = shape.size() == spec.shape.size();
    for (size_t d = 0; matches && d < shape.size(); ++d)
      matches = shape[d] >= 0 && (spec.shape[d] == TensorSpec::kDynamicDim ||
                                  spec.shape[d] == shape[d]);
    if (!matches) {
      TensorSpec given = spec;
      given.shape = shape;
      return llvm::createStringError("tensor '" + spec.name + "' is " +
                                     given.describe() + ", the graph expects " +
                                     spec.describe());
    }
    // No buffer has more bytes than a 64-bit size counts. The compiled code
    // multiplies the dims unchecked: a product that wraps would size its
    // loops and buffers from the wrapped value and read past the caller's.
    if (!checkedSizeInBytes(spec.dtype, shape)) {
      TensorSpec given = spec;
      given.shape = shape;
      return llvm::createStringError(
          "tensor '" + spec.name + "' is " + given.describe() +
          ": its element or byte count overflows a 64-bit size");
    }
    shapes.push_back(&shape);
  }
  if (signature.returnsOutputs())
    return runReturning(arguments, shapes);
  llvm::Expected<std::vector<HostTensor>> outputs = allocateOutputs();
  if (!outputs)
    return outputs.takeError();
  std::vector<const void *> data(arguments.begin(), arguments.end());
  for (HostTensor &output : *outputs) {
    data.push_back(output.data());
    shapes.push_back(&output.shape());
  }
  MemRefDescriptors descriptors(data, shapes);
  if (llvm::Error error = invoke(descriptors))
    return std::move(error);
  return outputs;
}

llvm::Expected<BenchResult>
CompiledGraph::bench(llvm::ArrayRef<HostTensor> arguments,
                     llvm::MutableArrayRef<HostTensor> outputs,
                     const BenchOptions &options) const {
  if (llvm::Error error = checkArguments(arguments))
    return std::move(error);
  if (signature.returnsOutputs()) {
    // Each run returns fresh outputs, freed after it; `outputs` come from
    // a run of their own first, which counts as a warm-up.
    resetProfile();
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error error = run(arguments, outputs))
      return std::move(error);
    if (options.timedRuns <= 1 && options.warmUpRuns == 0) {
      BenchResult result;
      result.runs = 1;
      result.totalMs = result.medianMs = result.p90Ms = result.minMs =
          std::chrono::duration<double, std::milli>(
              std::chrono::steady_clock::now() - start)
              .count();
      return result;
    }
    MemRefDescriptors descriptors =
        describeReturning(tensorData(tensorPointers(arguments)),
                          tensorShapes(tensorPointers(arguments)));
    BenchOptions rest = options;
    rest.warmUpRuns = options.warmUpRuns > 0 ? options.warmUpRuns - 1 : 0;
    return benchDescriptors(descriptors, rest);
  }
  if (llvm::Error error = checkOutputs(outputs))
    return std::move(error);
  // Described once, so the timed region is the call alone.
  MemRefDescriptors descriptors = describe(arguments, outputs);
  return benchDescriptors(descriptors, options);
}

llvm::Error CompiledGraph::checkBufferCounts(size_t numArguments,
                                             size_t numOutputs) const {
  for (const std::vector<TensorSpec> *specs :
       {&signature.arguments, &signature.results})
    for (const TensorSpec &spec : *specs)
      if (spec.isDynamic())
        return llvm::createStringError(
            "@" + signature.name + ": " + spec.kindName() + " '" + spec.name +
            "' is " + spec.describe() +
            "; a graph with `?` dims runs on buffers with their shapes "
            "given (rlxGraphRunShaped, CompiledGraph::runShapedBuffers)");
  if (numArguments != signature.arguments.size())
    return llvm::createStringError("@" + signature.name + " takes " +
                                   std::to_string(signature.arguments.size()) +
                                   " arguments (" + signature.argumentNames() +
                                   "), got " + std::to_string(numArguments));
  if (numOutputs != signature.results.size())
    return llvm::createStringError(
        "@" + signature.name + " has " +
        std::to_string(signature.results.size()) + " outputs, got " +
        std::to_string(numOutputs) + " output buffers");
  return llvm::Error::success();
}

MemRefDescriptors
CompiledGraph::describeBuffers(llvm::ArrayRef<const void *> arguments,
                               llvm::ArrayRef<void *> outputs) const {
  std::vector<const void *> data(arguments.begin(), arguments.end());
  data.insert(data.end(), outputs.begin(), outputs.end());
  std::vector<const std::vector<int64_t> *> shapes;
  for (const TensorSpec &spec : signature.arguments)
    shapes.push_back(&spec.shape);
  for (const TensorSpec &spec : signature.results)
    shapes.push_back(&spec.shape);
  return MemRefDescriptors(data, shapes);
}

llvm::Error CompiledGraph::runBuffers(llvm::ArrayRef<const void *> arguments,
                                      llvm::ArrayRef<void *> outputs) const {
  if (llvm::Error error = checkBufferCounts(arguments.size(), outputs.size()))
    return error;
  MemRefDescriptors descriptors = describeBuffers(arguments, outputs);
  return invoke(descriptors);
}

llvm::Expected<BenchResult>
CompiledGraph::benchBuffers(llvm::ArrayRef<const void *> arguments,
                            llvm::ArrayRef<void *> outputs,
                            const BenchOptions &options) const {
  if (llvm::Error error = checkBufferCounts(arguments.size(), outputs.size()))
    return std::move(error);
  MemRefDescriptors descriptors = describeBuffers(arguments, outputs);
  return benchDescriptors(descriptors, options);
}

llvm::Expected<BenchResult>
CompiledGraph::benchDescriptors(MemRefDescriptors &descriptors,
                                const BenchOptions &options) const {
  bool returns = signature.returnsOutputs();
  auto runOnce = [&]() -> llvm::Error {
    if (llvm::Error error = invoke(descriptors))
      return error;
    if (returns)
      freeReturnedOutputs(descriptors);
    return llvm::Error::success();
  };
  unsigned timedRuns = std::max(1u, options.timedRuns);
  std::vector<double> times;
  unsigned runsMade = 0;
  auto checkInterrupt = [&]() -> llvm::Error {
    if (options.interrupt && options.interrupt->load(std::memory_order_relaxed))
      return llvm::createStringError("@" + signature.name +
                                     ": bench interrupted after " +
                                     std::to_string(runsMade) + " runs");
    ++runsMade;
    return llvm::Error::success();
  };
  if (benchFn) {
    std::vector<float> runMs(timedRuns);
    unsigned warmUpRuns = options.warmUpRuns;
    if (profileTimers && warmUpRuns > 0) {
      // The target's bench runs its warm-ups itself; the per-op timers must
      // not count them (the first run pays for loading modules and creating
      // library handles), so they run in a call of their own first.
      if (llvm::Error error =
              callBench(descriptors, warmUpRuns - 1, 1, runMs.data()))
        return std::move(error);
      warmUpRuns = 0;
    }
    resetProfile();
    if (resetPeakFn)
      resetPeakFn();
    if (llvm::Error error =
            callBench(descriptors, warmUpRuns, timedRuns, runMs.data()))
      return std::move(error);
    times.assign(runMs.begin(), runMs.end());
  } else {
    for (unsigned i = 0; i < options.warmUpRuns; ++i) {
      if (llvm::Error error = checkInterrupt())
        return std::move(error);
      if (llvm::Error error = runOnce())
        return std::move(error);
    }
    resetProfile();
    if (resetPeakFn)
      resetPeakFn();
    for (unsigned i = 0; i < timedRuns; ++i) {
      if (llvm::Error error = checkInterrupt())
        return std::move(error);
      auto start = std::chrono::steady_clock::now();
      if (llvm::Error error = runOnce())
        return std::move(error);
      times.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    }
  }
  BenchResult result;
  if (peakFn)
    result.peakBytes = peakFn();
  result.runs = times.size();
  result.totalMs = std::accumulate(times.begin(), times.end(), 0.0);
  std::sort(times.begin(), times.end());
  result.medianMs = times[times.size() / 2];
  result.p90Ms = times[std::min(times.size() - 1, times.size() * 9 / 10)];
  result.minMs = times.front();
  return result;
}

std::vector<OpTime> CompiledGraph::readProfile() const {
  return profileTimers ? rlxrt::readProfile(*profileTimers)
                       : std::vector<OpTime>();
}

void CompiledGraph::resetProfile() const {
  if (profileTimers)
    profileTimers->reset();
}

llvm::Error CompiledGraph::failAllocationForTesting(int64_t after) const {
  if (!failAllocationFn)
    return llvm::createStringError(
        "@" + signature.name +
        ": its runtime has no allocation failure hook (" +
        kDebugFailAllocationSymbol + ")");
  failAllocationFn(after);
  return llvm::Error::success();
}
