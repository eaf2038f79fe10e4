//===- GraphEntry.cpp - the entry point of compiled graphs ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/GraphEntry.h"
#include "rlx/Transforms/OpLabels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseSet.h"

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
  size_t numArguments = signature.arguments.size();
  size_t count = numArguments + signature.results.size();
  // A graph with a `?` output returns its outputs (docs/abi.md): its C
  // interface takes a pointer to the returned descriptors first.
  bool returns = signature.returnsOutputs() && !signature.results.empty();
  size_t expected = returns ? numArguments + 1 : count;
  if (!callee || callee.getNumArguments() != expected)
    return module.emitError() << "no C interface '" << ciface << "' taking "
                              << expected << " memref descriptor pointers";
  Type returnedType;
  if (returns) {
    auto inner = module.lookupSymbol<LLVM::LLVMFuncOp>(signature.name);
    if (!inner)
      return module.emitError() << "no function '" << signature.name << "'";
    returnedType = inner.getFunctionType().getReturnType();
  }

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
  if (!returns) {
    LLVM::CallOp::create(b, loc, callee, descriptors);
    LLVM::ReturnOp::create(b, loc, ValueRange());
  } else {
    // The callee writes its returned descriptors (one, or a struct of all)
    // to a slot here; each goes to the caller's output descriptor.
    Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                         b.getI64IntegerAttr(1));
    Value slot = LLVM::AllocaOp::create(b, loc, ptrType, returnedType, one);
    SmallVector<Value> operands = {slot};
    operands.append(descriptors.begin(), descriptors.begin() + numArguments);
    LLVM::CallOp::create(b, loc, callee, operands);
    Value returned = LLVM::LoadOp::create(b, loc, returnedType, slot);
    for (size_t i = 0, e = signature.results.size(); i < e; ++i) {
      Value descriptor =
          e == 1 ? returned
                 : LLVM::ExtractValueOp::create(b, loc, returned,
                                                ArrayRef<int64_t>{int64_t(i)})
                       .getResult();
      LLVM::StoreOp::create(b, loc, descriptor, descriptors[numArguments + i]);
    }
    LLVM::ReturnOp::create(b, loc, ValueRange());
  }

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
  std::string lines;
  if (auto labels =
          module->getAttrOfType<ArrayAttr>(mlir::rlx::kProfileLabelsAttrName)) {
    auto costs =
        module->getAttrOfType<ArrayAttr>(mlir::rlx::kProfileCostsAttrName);
    for (auto [id, label] : llvm::enumerate(labels)) {
      lines += cast<StringAttr>(label).getValue().str();
      if (costs && id < costs.size())
        if (auto cost = dyn_cast<DenseI64ArrayAttr>(costs[id]);
            cost && cost.size() == 2)
          lines +=
              "\t" + std::to_string(cost[0]) + " " + std::to_string(cost[1]);
      lines += "\n";
    }
    std::string labelText = lines + '\0';
    auto linesType =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), labelText.size());
    LLVM::GlobalOp::create(b, loc, linesType, /*isConstant=*/true,
                           LLVM::Linkage::External, kGraphProfileLabelsSymbol,
                           b.getStringAttr(labelText));
  }

  // const uint64_t rlx_graph_abi[]: the layout of the descriptors the entry
  // above reads and the texts' checksums, so that a loader rejects a
  // library whose signature was edited (it would size the buffers from the
  // edited text while the code keeps its own sizes).
  std::vector<uint64_t> abi =
      graphABIRecord(signature, llvm::StringRef(text).drop_back(), lines);
  SmallVector<int64_t> words(abi.begin(), abi.end());
  auto abiType = LLVM::LLVMArrayType::get(b.getI64Type(), words.size());
  LLVM::GlobalOp::create(
      b, loc, abiType, /*isConstant=*/true, LLVM::Linkage::External,
      kGraphABISymbol,
      DenseElementsAttr::get(
          RankedTensorType::get({int64_t(words.size())}, b.getI64Type()),
          ArrayRef<int64_t>(words)));
  return success();
}

void rlxrt::eraseUnreachedFunctions(ModuleOp module, llvm::StringRef graph) {
  auto root = module.lookupSymbol<func::FuncOp>(graph);
  if (!root)
    return;
  // Roots: the graph and every top-level op that is not a function, whose
  // references (a global's initializer, say) must stay resolvable.
  llvm::DenseSet<Operation *> reached;
  llvm::SmallVector<Operation *> worklist;
  auto reach = [&](Operation *op) {
    if (reached.insert(op).second)
      worklist.push_back(op);
  };
  reach(root);
  for (Operation &op : module.getBody()->getOperations())
    if (!isa<func::FuncOp>(op))
      reach(&op);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(op);
    if (!uses)
      return;
    for (const SymbolTable::SymbolUse &use : *uses)
      if (Operation *symbol =
              module.lookupSymbol(use.getSymbolRef().getRootReference()))
        reach(symbol);
  }
  for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!reached.contains(fn))
      fn.erase();
}
