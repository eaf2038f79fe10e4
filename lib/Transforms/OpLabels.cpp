//===- OpLabels.cpp - which rlx ops lowered work came from ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Transforms/OpLabels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

#include <optional>

using namespace mlir;
using namespace mlir::rlx;

/// The rlx op names (in first-seen order) and the first file position in
/// `loc`.
static void collectOrigins(Location loc, llvm::SetVector<StringRef> &names,
                           std::optional<FileLineColLoc> &position) {
  if (auto named = dyn_cast<NameLoc>(loc)) {
    if (named.getName().getValue().starts_with("rlx."))
      names.insert(named.getName().getValue());
    collectOrigins(named.getChildLoc(), names, position);
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations())
      collectOrigins(inner, names, position);
  } else if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    collectOrigins(callSite.getCallee(), names, position);
  } else if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    if (!position)
      position = file;
  }
}

std::string rlx::getOpLabel(Location loc) {
  llvm::SetVector<StringRef> names;
  std::optional<FileLineColLoc> position;
  collectOrigins(loc, names, position);
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

void rlx::bracketLabelledWork(
    ModuleOp module, llvm::function_ref<bool(Operation *)> isWork,
    llvm::function_ref<void(OpBuilder &, Location, int64_t, StringRef)> begin,
    llvm::function_ref<void(OpBuilder &, Location, int64_t)> end) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  llvm::StringMap<int64_t> ids;
  SmallVector<Attribute> labels;
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
      if (inserted)
        labels.push_back(StringAttr::get(ctx, label));
      Location loc = run.first->getLoc();
      b.setInsertionPoint(run.first);
      begin(b, loc, it->second, label);
      b.setInsertionPointAfter(run.second);
      end(b, loc, it->second);
    }
  }
  module->setAttr(kProfileLabelsAttrName, ArrayAttr::get(ctx, labels));
}
