//===- Profile.cpp - per-op timers for compiled CPU graphs ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-cpu-profile brackets the work at the top level of each bufferized graph
// function with runtime timer calls, labelled with the rlx ops the work came
// from (the names rlx-tag-op-locations put into the locations).
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPUPROFILE
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// The rlx op names (in first-seen order) and the first file position in
/// `loc`.
void collectOrigins(Location loc, llvm::SetVector<StringRef> &names,
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

/// `rlx.matmul+rlx.binary @ layer.mlir:12:8`.
std::string profileLabel(Location loc) {
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

/// Work worth a timer: structured ops, runtime calls, copies and loops.
/// Allocations, views, constants and index arithmetic take no measurable
/// time.
bool isTimedWork(Operation *op) {
  return isa<linalg::LinalgOp, func::CallOp, memref::CopyOp>(op) ||
         op->getNumRegions() > 0;
}

struct RLXCPUProfilePass : rlx::impl::RLXCPUProfileBase<RLXCPUProfilePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto timerType = FunctionType::get(ctx, {b.getI64Type()}, {});
    for (StringRef name : {kBegin, kEnd})
      if (!module.lookupSymbol(name))
        func::FuncOp::create(b, module.getLoc(), name, timerType).setPrivate();

    // Timer ids by label, in first-seen order; one label may have several
    // groups (an op's work split by others).
    llvm::StringMap<int64_t> ids;
    SmallVector<Attribute> labelAttrs;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!fn.isPublic() || fn.isExternal())
        continue;
      // Groups of neighbouring timed ops with one label, each timed as one.
      SmallVector<std::pair<Operation *, Operation *>> groups;
      SmallVector<std::string> labels;
      for (Operation &op : fn.getBody().getOps()) {
        if (!isTimedWork(&op))
          continue;
        std::string label = profileLabel(op.getLoc());
        if (!labels.empty() && labels.back() == label) {
          groups.back().second = &op;
          continue;
        }
        groups.push_back({&op, &op});
        labels.push_back(label);
      }
      for (auto [group, label] : llvm::zip(groups, labels)) {
        auto [it, inserted] = ids.insert({label, ids.size()});
        if (inserted)
          labelAttrs.push_back(StringAttr::get(ctx, label));
        Location loc = group.first->getLoc();
        b.setInsertionPoint(group.first);
        Value id = arith::ConstantIntOp::create(b, loc, it->second, 64);
        func::CallOp::create(b, loc, kBegin, TypeRange(), id);
        b.setInsertionPointAfter(group.second);
        func::CallOp::create(b, loc, kEnd, TypeRange(), id);
      }
    }
    module->setAttr(kProfileLabelsAttrName, ArrayAttr::get(ctx, labelAttrs));
  }

  static constexpr StringLiteral kBegin = "rlx_rt_profile_begin";
  static constexpr StringLiteral kEnd = "rlx_rt_profile_end";
};

} // namespace
