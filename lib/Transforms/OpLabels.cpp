//===- OpLabels.cpp - which rlx ops lowered work came from ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Transforms/OpLabels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::rlx;

/// Visits, in order, the rlx op names (`onName`) and the file positions
/// (`onPosition`) that `loc` records its origins with: through names, fused
/// locations and the callees of call sites.
static void walkOrigins(Location loc, function_ref<void(NameLoc)> onName,
                        function_ref<void(FileLineColLoc)> onPosition) {
  if (auto named = dyn_cast<NameLoc>(loc)) {
    if (named.getName().getValue().starts_with("rlx."))
      onName(named);
    walkOrigins(named.getChildLoc(), onName, onPosition);
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations())
      walkOrigins(inner, onName, onPosition);
  } else if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    walkOrigins(callSite.getCallee(), onName, onPosition);
  } else if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    onPosition(file);
  }
}

std::string rlx::getOpLabel(Location loc) {
  // The rlx op names in first-seen order, and the first file position.
  llvm::SetVector<StringRef> names;
  std::optional<FileLineColLoc> position;
  walkOrigins(
      loc, [&](NameLoc named) { names.insert(named.getName().getValue()); },
      [&](FileLineColLoc file) {
        if (!position)
          position = file;
      });
  std::string label =
      names.empty() ? std::string("(no rlx op)") : llvm::join(names, "+");
  if (position)
    label +=
        " @ " +
        llvm::sys::path::filename(position->getFilename().getValue()).str() +
        ":" + std::to_string(position->getLine()) + ":" +
        std::to_string(position->getColumn());
  return label;
}

/// Every rlx op `loc` names, by the op's own label: what
/// rlx-tag-op-locations keyed its FLOPs by.
static void collectOpKeys(Location loc, llvm::StringSet<> &keys) {
  walkOrigins(
      loc, [&](NameLoc named) { keys.insert(getOpLabel(named)); },
      [](FileLineColLoc) {});
}

/// The bytes of a memref type with a static shape, else 0.
static int64_t staticBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() ||
      !memref.getElementType().isIntOrFloat())
    return 0;
  int64_t bits = memref.getElementTypeBitWidth();
  int64_t bytes = (bits + 7) / 8;
  for (int64_t dim : memref.getShape())
    if (llvm::MulOverflow(bytes, dim, bytes))
      return 0;
  return bytes;
}

/// The value `buffer` casts, through casts that only erase static sizes
/// (a runtime call takes dynamic memrefs): the buffer whose size is known.
static Value throughCasts(Value buffer) {
  while (auto cast = buffer.getDefiningOp<CastOpInterface>()) {
    if (cast->getNumOperands() != 1 ||
        !isa<MemRefType>(cast->getOperand(0).getType()))
      break;
    buffer = cast->getOperand(0);
  }
  return buffer;
}

namespace {
/// What the work of one label moves and computes per graph run.
struct LabelCost {
  int64_t bytes = 0;
  llvm::StringSet<> opKeys;
};
} // namespace

void rlx::bracketLabelledWork(
    ModuleOp module, llvm::function_ref<bool(Operation *)> isWork,
    llvm::function_ref<void(OpBuilder &, Location, int64_t, StringRef)> begin,
    llvm::function_ref<void(OpBuilder &, Location, int64_t)> end) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  llvm::StringMap<int64_t> ids;
  SmallVector<Attribute> labels;
  SmallVector<LabelCost> costs;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    // Runs of neighbouring work with one label.
    SmallVector<std::pair<Operation *, Operation *>> runs;
    SmallVector<std::string> runLabels;
    for (Operation &op : fn.getBody().front()) {
      if (!isWork(&op))
        continue;
      std::string label = getOpLabel(op.getLoc());
      if (!runLabels.empty() && runLabels.back() == label) {
        runs.back().second = &op;
        continue;
      }
      runs.push_back({&op, &op});
      runLabels.push_back(std::move(label));
    }
    for (auto [run, label] : llvm::zip(runs, runLabels)) {
      auto [it, inserted] = ids.insert({label, ids.size()});
      if (inserted) {
        labels.push_back(StringAttr::get(ctx, label));
        costs.emplace_back();
      }
      LabelCost &cost = costs[it->second];
      llvm::SetVector<Value> buffers;
      for (Operation *op = run.first;; op = op->getNextNode()) {
        if (isWork(op))
          op->walk([&](Operation *nested) {
            collectOpKeys(nested->getLoc(), cost.opKeys);
            // A view's buffer counts where the view is used; a buffer freed
            // counts where it was used.
            if (isa<ViewLikeOpInterface>(nested) ||
                hasEffect<MemoryEffects::Free>(nested))
              return;
            for (Value operand : nested->getOperands())
              if (isa<MemRefType>(operand.getType()))
                buffers.insert(throughCasts(operand));
          });
        if (op == run.second)
          break;
      }
      for (Value buffer : buffers)
        if (llvm::AddOverflow(cost.bytes, staticBytes(buffer.getType()),
                              cost.bytes))
          cost.bytes = std::numeric_limits<int64_t>::max();
      Location loc = run.first->getLoc();
      b.setInsertionPoint(run.first);
      begin(b, loc, it->second, label);
      b.setInsertionPointAfter(run.second);
      end(b, loc, it->second);
    }
  }
  module->setAttr(kProfileLabelsAttrName, ArrayAttr::get(ctx, labels));
  auto opFlops = module->getAttrOfType<DictionaryAttr>(kOpFlopsAttrName);
  SmallVector<Attribute> costAttrs;
  for (LabelCost &cost : costs) {
    int64_t flops = 0;
    if (opFlops)
      for (const auto &key : cost.opKeys)
        if (auto count = opFlops.getAs<IntegerAttr>(key.getKey()))
          if (llvm::AddOverflow(flops, count.getInt(), flops))
            flops = std::numeric_limits<int64_t>::max();
    costAttrs.push_back(DenseI64ArrayAttr::get(ctx, {cost.bytes, flops}));
  }
  module->setAttr(kProfileCostsAttrName, ArrayAttr::get(ctx, costAttrs));
}
