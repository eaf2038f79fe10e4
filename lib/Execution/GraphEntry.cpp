//===- GraphEntry.cpp - the entry point of compiled graphs ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/GraphEntry.h"
#include "rlx/Transforms/OpLabels.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace rlxrt;

LogicalResult rlxrt::addGraphEntry(ModuleOp module,
                                   const GraphSignature &signature,
                                   llvm::StringRef entrySymbol) {
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

  // void entry(ptr descriptors): descriptors[i] is the i-th memref
  // descriptor pointer of the C interface.
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, entrySymbol, LLVM::LLVMFunctionType::get(voidType, ptrType));
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

  // const char rlx_graph_profile_labels[] =
  //     "label 0\tBYTES FLOPS\nlabel 1\tBYTES FLOPS\n...\0";
  if (auto labels =
          module->getAttrOfType<ArrayAttr>(mlir::rlx::kProfileLabelsAttrName)) {
    auto costs =
        module->getAttrOfType<ArrayAttr>(mlir::rlx::kProfileCostsAttrName);
    std::string lines;
    for (auto [id, label] : llvm::enumerate(labels)) {
      lines += cast<StringAttr>(label).getValue().str();
      if (costs && id < costs.size())
        if (auto cost = dyn_cast<DenseI64ArrayAttr>(costs[id]);
            cost && cost.size() == 2)
          lines +=
              "\t" + std::to_string(cost[0]) + " " + std::to_string(cost[1]);
      lines += "\n";
    }
    lines.push_back('\0');
    auto linesType =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), lines.size());
    LLVM::GlobalOp::create(b, loc, linesType, /*isConstant=*/true,
                           LLVM::Linkage::External, kGraphProfileLabelsSymbol,
                           b.getStringAttr(lines));
  }
  return success();
}
