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
#include "rlx/Transforms/OpLabels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPUPROFILE
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

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

    // Each run's end follows its begin: both read the one id constant.
    Value runId;
    bracketLabelledWork(
        module, isTimedWork,
        [&](OpBuilder &b, Location loc, int64_t id, StringRef) {
          runId = arith::ConstantIntOp::create(b, loc, id, 64);
          func::CallOp::create(b, loc, kBegin, TypeRange(), runId);
        },
        [&](OpBuilder &b, Location loc, int64_t) {
          func::CallOp::create(b, loc, kEnd, TypeRange(), runId);
        });
  }

  static constexpr StringLiteral kBegin = "rlx_rt_profile_begin";
  static constexpr StringLiteral kEnd = "rlx_rt_profile_end";
};

} // namespace
