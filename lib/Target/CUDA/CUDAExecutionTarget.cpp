//===- CUDAExecutionTarget.cpp - run graphs on an NVIDIA GPU --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CUDA/CUDAExecutionTarget.h"
#include "rlx/Execution/ExecutionTarget.h"
#include "rlx/Execution/GraphEntry.h"
#include "rlx/Execution/HostCode.h"
#include "rlx/Runtime/CUDARuntime.h"
#include "rlx/Target/CUDA/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;
using namespace rlxrt;

namespace {

/// The graph's own entry, on device buffers; `rlx_graph_run` wraps it.
constexpr llvm::StringLiteral kDeviceEntrySymbol = "rlx_graph_run_device";

LLVM::LLVMFuncOp declareFunction(OpBuilder &b, ModuleOp module, StringRef name,
                                 Type result, ArrayRef<Type> arguments) {
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  return LLVM::LLVMFuncOp::create(
      b, module.getLoc(), name, LLVM::LLVMFunctionType::get(result, arguments));
}

/// Adds the graph ABI (docs/abi.md) to a module lowered by
/// rlx-cuda-pipeline: `rlx_graph_run`, `rlx_graph_bench` and
/// `rlx_graph_steps` take host buffers and hand them, with the signature and the device entry, to the
/// runtime, which moves the data; `rlx_graph_ready` says whether a GPU is
/// there.
LogicalResult addCUDAGraphEntries(ModuleOp module,
                                  const GraphSignature &signature) {
  if (failed(addGraphEntry(module, signature, kDeviceEntrySymbol)))
    return failure();
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  OpBuilder b(ctx);
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type voidType = LLVM::LLVMVoidType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  Type i64 = IntegerType::get(ctx, 64);
  auto runtimeRun = declareFunction(b, module, "rlx_cuda_graph_run", voidType,
                                    {ptr, ptr, ptr, i32});
  auto runtimeBench =
      declareFunction(b, module, "rlx_cuda_graph_bench", voidType,
                      {ptr, ptr, ptr, i32, i32, ptr, i32});
  auto runtimeSteps = declareFunction(b, module, "rlx_cuda_graph_steps",
                                      voidType, {ptr, ptr, ptr, ptr, i32});
  // A graph whose host code reads the GPU's results is never captured.
  int32_t graphFlags = module->hasAttr(rlx::kCUDAHostReadsAttrName)
                           ? RLX_CUDA_GRAPH_READS_ON_HOST
                           : 0;
  auto runtimeAvailable =
      declareFunction(b, module, "rlx_cuda_available", i32, {ptr, i64});
  auto signatureText =
      module.lookupSymbol<LLVM::GlobalOp>(kGraphSignatureSymbol);
  auto deviceEntry = module.lookupSymbol<LLVM::LLVMFuncOp>(kDeviceEntrySymbol);

  // Each wrapper forwards its own arguments after (signature, device entry),
  // then the graph's flags.
  auto defineForwarder = [&](StringRef name, LLVM::LLVMFuncOp callee,
                             ArrayRef<Type> arguments) {
    b.setInsertionPointToEnd(module.getBody());
    auto fn = LLVM::LLVMFuncOp::create(
        b, loc, name, LLVM::LLVMFunctionType::get(voidType, arguments));
    Block *body = fn.addEntryBlock(b);
    b.setInsertionPointToStart(body);
    SmallVector<Value> operands = {
        LLVM::AddressOfOp::create(b, loc, signatureText),
        LLVM::AddressOfOp::create(b, loc, deviceEntry)};
    llvm::append_range(operands, body->getArguments());
    operands.push_back(LLVM::ConstantOp::create(b, loc, i32, graphFlags));
    LLVM::CallOp::create(b, loc, callee, operands);
    LLVM::ReturnOp::create(b, loc, ValueRange());
  };
  defineForwarder(kGraphRunSymbol, runtimeRun, {ptr});
  defineForwarder(kGraphBenchSymbol, runtimeBench, {ptr, i32, i32, ptr});
  defineForwarder(kGraphStepsSymbol, runtimeSteps, {ptr, ptr});

  b.setInsertionPointToEnd(module.getBody());
  auto ready = LLVM::LLVMFuncOp::create(
      b, loc, kGraphReadySymbol, LLVM::LLVMFunctionType::get(i32, {ptr, i64}));
  Block *body = ready.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  Value available =
      LLVM::CallOp::create(b, loc, runtimeAvailable, body->getArguments())
          .getResult();
  LLVM::ReturnOp::create(b, loc, available);
  return success();
}

struct LoweredGraph {
  GraphSignature signature;
  std::string runtimeLibrary;
};

/// Lowers `module` for the CUDA target. Without `cudnnUsable` (the process
/// that runs the graph cannot open cuDNN) convolutions are compiled as
/// generic kernels whatever the pipeline options say.
llvm::Expected<LoweredGraph> lower(ModuleOp module, llvm::StringRef entry,
                                   const CompileOptions &options,
                                   bool cudnnUsable = true) {
  llvm::Expected<GraphSignature> signature =
      GraphSignature::fromModule(module, entry);
  if (!signature)
    return signature.takeError();
  // Only the graph and what it uses: --entry f compiles f alone.
  eraseUnreachedFunctions(module, signature->name);
  DialectRegistry translations;
  registerAllToLLVMIRTranslations(translations);
  module.getContext()->appendDialectRegistry(translations);

  PassManager pm(module.getContext());
  rlx::CUDAPipelineOptions pipelineOptions;
  if (llvm::Error error = parsePipelineOptions(
          pipelineOptions, options.pipelineOptions, "rlx-cuda-pipeline"))
    return std::move(error);
  if (!cudnnUsable)
    pipelineOptions.cudnn = false;
  rlx::buildRLXCUDAPipeline(pm, pipelineOptions);
  if (failed(runCompilePipeline(pm, module, options.timing)) ||
      failed(addCUDAGraphEntries(module, *signature)))
    return llvm::createStringError("compiling @" + signature->name +
                                   " for CUDA failed (see the diagnostics "
                                   "above)");
  llvm::Expected<std::string> runtime = findRuntimeLibrary(
      options.runtimeLibrary, "librlx_cuda_runtime.so", "CUDA");
  if (!runtime)
    return runtime.takeError();
  return LoweredGraph{std::move(*signature), std::move(*runtime)};
}

/// Whether the runtime opens cuDNN in this process (it prints a one-line
/// notice when it cannot).
bool cudnnAvailable(const std::string &runtime) {
  auto library = llvm::sys::DynamicLibrary::getPermanentLibrary(
      runtime.c_str(), /*errMsg=*/nullptr);
  auto available = reinterpret_cast<bool (*)()>(
      library.getAddressOfSymbol("rlx_cuda_cudnn_available"));
  return available && available();
}

/// Fails unless the runtime finds a driver and a device in this process.
llvm::Error checkDevice(const std::string &runtime) {
  std::string error;
  auto library =
      llvm::sys::DynamicLibrary::getPermanentLibrary(runtime.c_str(), &error);
  if (!library.isValid())
    return llvm::createStringError("cannot load '" + runtime + "': " + error);
  auto available = reinterpret_cast<int (*)(char *, size_t)>(
      library.getAddressOfSymbol("rlx_cuda_available"));
  char reason[512] = {0};
  if (!available)
    return llvm::createStringError("'" + runtime +
                                   "' is not the rlx CUDA runtime");
  if (!available(reason, sizeof(reason)))
    return llvm::createStringError(
        std::string("cannot run on CUDA here: ") + reason +
        " (compile with --emit-shared-lib and run the library with "
        "rlx-run-aot on a GPU machine)");
  return llvm::Error::success();
}

class CUDAExecutionTarget : public ExecutionTarget {
public:
  llvm::StringRef getName() const override { return "cuda"; }
  llvm::StringRef getDescription() const override {
    return "an NVIDIA GPU (sm_90 cubins, the CUDA driver loaded at run time)";
  }

  llvm::Expected<std::unique_ptr<CompiledGraph>>
  compile(ModuleOp module, llvm::StringRef entry,
          const CompileOptions &options) const override {
    // The graph runs in this process: it compiles for what is here (a GPU,
    // and cuDNN or not).
    llvm::Expected<std::string> runtime = findRuntimeLibrary(
        options.runtimeLibrary, "librlx_cuda_runtime.so", "CUDA");
    if (!runtime)
      return runtime.takeError();
    if (llvm::Error error = checkDevice(*runtime))
      return std::move(error);
    llvm::Expected<LoweredGraph> lowered =
        lower(module, entry, options, cudnnAvailable(*runtime));
    if (!lowered)
      return lowered.takeError();
    // The op markers are always compiled in; --profile switches their
    // events on.
    std::optional<ProfileTimers> timers;
    if (options.profile) {
      llvm::Expected<ProfileTimers> bound = bindModuleProfileTimers(
          module, lowered->runtimeLibrary, "the CUDA runtime library");
      if (!bound)
        return bound.takeError();
      timers = std::move(*bound);
    }
    llvm::Expected<std::unique_ptr<CompiledGraph>> graph =
        jitCompileGraph(module, std::move(lowered->signature),
                        lowered->runtimeLibrary, options.timing);
    if (graph && timers)
      (*graph)->setProfileTimers(std::move(*timers));
    return graph;
  }

  llvm::Expected<GraphSignature>
  emitSharedLibrary(ModuleOp module, llvm::StringRef entry,
                    llvm::StringRef outputPath,
                    const CompileOptions &options) const override {
    llvm::Expected<LoweredGraph> lowered = lower(module, entry, options);
    if (!lowered)
      return lowered.takeError();
    if (llvm::Error error = emitHostSharedLibrary(
            module, outputPath, lowered->runtimeLibrary, options.timing))
      return std::move(error);
    return std::move(lowered->signature);
  }
};

} // namespace

void rlxrt::registerCUDAExecutionTarget() {
  registerExecutionTarget(std::make_unique<CUDAExecutionTarget>());
}
