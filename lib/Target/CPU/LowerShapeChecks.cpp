//===- LowerShapeChecks.cpp - run-time shape checks call the runtime ------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Lowerings of ops with `?` dims check at run time what the verifier could
// not (sizes that must agree) with `cf.assert`. Upstream lowers an assert to
// a call of `abort`, which would take a Python process or a C++ caller down
// with it; here a failed check calls `rlx_rt_fail(message)`, which records
// the message as the run's error, and rlx-cpu-return-on-failure makes the
// code return after the call (docs/abi.md).
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPULOWERSHAPECHECKS
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr llvm::StringLiteral kShapeErrorFn = "rlx_rt_fail";

struct RLXCPULowerShapeChecksPass
    : rlx::impl::RLXCPULowerShapeChecksBase<RLXCPULowerShapeChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;
    MLIRContext *ctx = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto errorFn = module.lookupSymbol<func::FuncOp>(kShapeErrorFn);
    if (!errorFn) {
      errorFn = func::FuncOp::create(b, module.getLoc(), kShapeErrorFn,
                                     b.getFunctionType({ptrType}, {}));
      errorFn.setPrivate();
    }
    // One NUL-terminated global per distinct message.
    llvm::StringMap<LLVM::GlobalOp> messages;
    for (cf::AssertOp op : asserts) {
      std::string text = op.getMsg().str();
      LLVM::GlobalOp &global = messages[text];
      if (!global) {
        b.setInsertionPointToEnd(module.getBody());
        std::string bytes = text;
        bytes.push_back('\0');
        auto arrayType =
            LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), bytes.size());
        global = LLVM::GlobalOp::create(
            b, op.getLoc(), arrayType, /*isConstant=*/true,
            LLVM::Linkage::Private,
            "rlx_shape_check_" + std::to_string(messages.size()),
            b.getStringAttr(bytes));
      }
      b.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value failed = arith::XOrIOp::create(
          b, loc, op.getArg(),
          arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
      auto ifOp = scf::IfOp::create(b, loc, failed, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value message = LLVM::AddressOfOp::create(b, loc, global);
      func::CallOp::create(b, loc, errorFn, ValueRange{message});
      op.erase();
    }
  }
};

} // namespace
