//===- GraphEntry.cpp - the entry point of compiled graphs ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/GraphEntry.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

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
      b, loc, kGraphRunSymbol, LLVM::LLVMFunctionType::get(voidType, ptrType));
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
                         LLVM::Linkage::External, kGraphSignatureSymbol,
                         b.getStringAttr(text));
  return success();
}

MemRefDescriptors::MemRefDescriptors(
    llvm::ArrayRef<const HostTensor *> tensors) {
  for (const HostTensor *tensor : tensors) {
    const std::vector<int64_t> &shape = tensor->shape();
    std::vector<int64_t> desc(3 + 2 * shape.size());
    // The graph writes outputs through the same kind of descriptor it reads
    // arguments from; constness is the caller's contract, not the ABI's.
    desc[0] = desc[1] = reinterpret_cast<int64_t>(tensor->data());
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
