//===- ReturnOnFailure.cpp - compiled code returns after a failed call ----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The runtime functions a graph calls may fail (an allocation, a run-time
// shape check, a custom op's kernel). They record the failure in the run's
// status and return (lib/Runtime/CPU/RunStatus.cpp); this pass makes the
// code check after each such call and return at once, so that the run ends
// with the error and the process goes on (docs/architecture.md, "Failures in
// compiled code"). It runs last, on the LLVM dialect, where the code is one
// control-flow graph per function and an early return is a branch.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPURETURNONFAILURE
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr llvm::StringLiteral kAllocFn = "_mlir_memref_to_llvm_alloc";
constexpr llvm::StringLiteral kRunFailedFn = "rlx_rt_run_failed";
constexpr llvm::StringLiteral kRunEnterFn = "rlx_rt_run_enter";
constexpr llvm::StringLiteral kRunExitFn = "rlx_rt_run_exit";
constexpr llvm::StringLiteral kInterfacePrefix = "_mlir_ciface_";

/// How a call shows that it failed.
enum class Check {
  None,
  /// An allocation: a null pointer.
  NullResult,
  /// The run's status (rlx_rt_run_failed) is set after it.
  RunStatus,
};

Check classify(ModuleOp module, LLVM::CallOp call) {
  std::optional<StringRef> callee = call.getCallee();
  if (!callee)
    return Check::None;
  if (*callee == kAllocFn)
    return Check::NullResult;
  // A function of the graph returns early when something it called failed.
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(*callee);
      fn && !fn.isExternal())
    return Check::RunStatus;
  // Every runtime function but the timers and the status's own may fail
  // (or may in a later runtime): checked, at the cost of a thread-local
  // read per library call.
  StringRef name = *callee;
  name.consume_front(kInterfacePrefix);
  if (!name.starts_with("rlx_rt_") || name.starts_with("rlx_rt_profile_") ||
      name.starts_with("rlx_rt_run_"))
    return Check::None;
  return Check::RunStatus;
}

LLVM::LLVMFuncOp declare(ModuleOp module, StringRef name, Type result,
                         ArrayRef<Type> arguments) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  return LLVM::LLVMFuncOp::create(
      b, module.getLoc(), name, LLVM::LLVMFunctionType::get(result, arguments));
}

struct RLXCPUReturnOnFailurePass
    : rlx::impl::RLXCPUReturnOnFailureBase<RLXCPUReturnOnFailurePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto i32 = IntegerType::get(ctx, 32);
    auto voidType = LLVM::LLVMVoidType::get(ctx);

    SmallVector<std::pair<LLVM::CallOp, Check>> calls;
    module.walk([&](LLVM::CallOp call) {
      Check check = classify(module, call);
      if (check != Check::None)
        calls.push_back({call, check});
    });
    if (calls.empty())
      return;

    // A parallel loop's body runs on other threads, where the run's status
    // is not kept and from where no branch leaves the function. The CPU
    // pipeline makes no such call there; a graph that did would crash on a
    // failure, so it is refused.
    for (auto [call, check] : calls)
      for (Operation *parent = call->getParentOp();
           parent && !isa<LLVM::LLVMFuncOp>(parent);
           parent = parent->getParentOp())
        if (isa<omp::OpenMPDialect>(parent->getDialect())) {
          call.emitError() << "rlx-cpu-return-on-failure: '"
                           << *call.getCallee()
                           << "' may fail, and is called in a parallel "
                              "loop, from where the run cannot end";
          return signalPassFailure();
        }

    LLVM::LLVMFuncOp runFailed = declare(module, kRunFailedFn, i32, {});
    // One exit block per function, returning zeros: the caller of a failed
    // run reads none of it.
    llvm::DenseMap<Operation *, Block *> exits;
    auto exitOf = [&](LLVM::LLVMFuncOp fn) {
      Block *&exit = exits[fn];
      if (exit)
        return exit;
      exit = new Block();
      fn.getBody().push_back(exit);
      OpBuilder b = OpBuilder::atBlockEnd(exit);
      Type result = fn.getFunctionType().getReturnType();
      if (isa<LLVM::LLVMVoidType>(result))
        LLVM::ReturnOp::create(b, fn.getLoc(), ValueRange());
      else
        LLVM::ReturnOp::create(
            b, fn.getLoc(),
            LLVM::ZeroOp::create(b, fn.getLoc(), result).getResult());
      return exit;
    };

    for (auto [call, check] : calls) {
      auto fn = call->getParentOfType<LLVM::LLVMFuncOp>();
      Block *exit = exitOf(fn);
      Block *before = call->getBlock();
      Block *after = before->splitBlock(std::next(call->getIterator()));
      OpBuilder b = OpBuilder::atBlockEnd(before);
      Location loc = call.getLoc();
      Value failed;
      if (check == Check::NullResult) {
        Value null = LLVM::ZeroOp::create(b, loc, call.getResult().getType());
        failed = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                      call.getResult(), null);
      } else {
        Value status =
            LLVM::CallOp::create(b, loc, runFailed, ValueRange()).getResult();
        Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
        failed =
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, status, zero);
      }
      // Failure is the unlikely side.
      LLVM::CondBrOp::create(b, loc, failed, exit, ValueRange(), after,
                             ValueRange(), std::make_pair(1u, 2000u));
    }

    // A graph's C interface is where a program calling the graph directly
    // enters: a run starts there unless a runner's guarded run has started
    // one (the runtime then reports the failure itself).
    LLVM::LLVMFuncOp enter = declare(module, kRunEnterFn, i32, {});
    LLVM::LLVMFuncOp exit = declare(module, kRunExitFn, voidType, {i32});
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
      if (fn.isExternal() || !fn.getName().starts_with(kInterfacePrefix))
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(&fn.getBody().front());
      Value started =
          LLVM::CallOp::create(b, fn.getLoc(), enter, ValueRange()).getResult();
      fn.walk([&](LLVM::ReturnOp ret) {
        b.setInsertionPoint(ret);
        LLVM::CallOp::create(b, ret.getLoc(), exit, ValueRange{started});
      });
    }
  }
};

} // namespace
