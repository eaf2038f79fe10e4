//===- AheadOfTime.cpp - graphs as shared libraries -----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "AheadOfTime.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <dlfcn.h>

using namespace mlir;
using namespace rlxrt;

LogicalResult rlxrt::addGraphEntry(ModuleOp module,
                                   const GraphSignature &signature) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto voidType = LLVM::LLVMVoidType::get(ctx);

  std::string ciface = "_mlir_ciface_" + signature.name;
  auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(ciface);
  size_t count = signature.arguments.size() + signature.results.size();
  if (!callee || callee.getNumArguments() != count)
    return module.emitError() << "no C interface '" << ciface << "' taking "
                              << count << " memref descriptors";

  // void rlx_graph_run(ptr descriptors): descriptors[i] is the i-th memref
  // descriptor pointer of the C interface.
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, "rlx_graph_run", LLVM::LLVMFunctionType::get(voidType, ptrType));
  Block *body = entry.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  SmallVector<Value> descriptors;
  for (size_t i = 0; i < count; ++i) {
    Value slot =
        LLVM::GEPOp::create(b, loc, ptrType, ptrType, body->getArgument(0),
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    descriptors.push_back(LLVM::LoadOp::create(b, loc, ptrType, slot));
  }
  LLVM::CallOp::create(b, loc, callee, descriptors);
  LLVM::ReturnOp::create(b, loc, ValueRange());

  // const char rlx_graph_signature[] = "...\0";
  b.setInsertionPointToEnd(module.getBody());
  std::string text = signature.serialize();
  text.push_back('\0');
  auto arrayType =
      LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), text.size());
  LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                         LLVM::Linkage::External, "rlx_graph_signature",
                         b.getStringAttr(text));
  return success();
}

bool rlxrt::emitSharedLibrary(ModuleOp module, const std::string &output,
                              const std::string &runtimeLib,
                              std::string &error) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return false;
  }
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    error = llvm::toString(builder.takeError());
    return false;
  }
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto machine = builder->createTargetMachine();
  if (!machine) {
    error = llvm::toString(machine.takeError());
    return false;
  }
  ExecutionEngine::setupTargetTripleAndDataLayout(llvmModule.get(),
                                                  machine->get());
  if (llvm::Error err =
          makeOptimizingTransformer(3, 0, machine->get())(llvmModule.get())) {
    error = llvm::toString(std::move(err));
    return false;
  }

  llvm::SmallString<128> object;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("rlx-graph", "o", object)) {
    error = "cannot create a temporary object file: " + ec.message();
    return false;
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(object, ec);
    if (ec) {
      error = "cannot write '" + std::string(object) + "': " + ec.message();
      return false;
    }
    llvm::legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile)) {
      error = "the host target cannot emit object files";
      return false;
    }
    codegen.run(*llvmModule);
  }

  // Link against the CPU runtime (BLAS glue, strided copies, OpenMP).
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("cc");
  if (!linker)
    linker = llvm::sys::findProgramByName("clang");
  if (!linker) {
    error = "no C compiler driver (cc or clang) on PATH to link the library";
    return false;
  }
  std::string runtimeDir(llvm::sys::path::parent_path(runtimeLib));
  std::string rpath = "-Wl,-rpath," + runtimeDir;
  std::string libDir = "-L" + runtimeDir;
  // Always depend on the runtime: it also brings the OpenMP runtime that
  // parallel loops call.
  llvm::SmallVector<llvm::StringRef> args = {*linker,
                                             "-shared",
                                             "-o",
                                             output,
                                             object,
                                             libDir,
                                             rpath,
                                             "-Wl,--no-as-needed",
                                             "-lrlx_cpu_runtime",
                                             "-lm"};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, {}, 0, 0,
                                     &message);
  llvm::sys::fs::remove(object);
  if (rc != 0) {
    error = "linking '" + output + "' failed" +
            (message.empty() ? "" : ": " + message);
    return false;
  }
  return true;
}

std::optional<LoadedGraph> rlxrt::loadSharedLibrary(const std::string &path,
                                                    std::string &error) {
  // Keep the library loaded for the life of the process.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    error = "cannot load '" + path + "': " + dlerror();
    return std::nullopt;
  }
  auto *text = static_cast<const char *>(dlsym(handle, "rlx_graph_signature"));
  auto run = reinterpret_cast<GraphRunFn>(dlsym(handle, "rlx_graph_run"));
  if (!text || !run) {
    error = "'" + path +
            "' is not a compiled rlx graph (no rlx_graph_run / "
            "rlx_graph_signature)";
    return std::nullopt;
  }
  std::optional<GraphSignature> signature = GraphSignature::parse(text, error);
  if (!signature)
    return std::nullopt;
  return LoadedGraph{std::move(*signature), run};
}
