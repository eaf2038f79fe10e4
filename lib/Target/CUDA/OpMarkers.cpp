//===- OpMarkers.cpp - the rlx op of each piece of host work --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-cuda-op-markers brackets the host's work with runtime calls naming the
// rlx op it came from: the runtime's errors say which op failed, and its
// per-op profile times the GPU work between the markers with events.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CUDA/Passes.h"
#include "rlx/Transforms/OpLabels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCUDAOPMARKERS
#include "rlx/Target/CUDA/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr StringLiteral kBegin = "rlx_cuda_op_begin";
constexpr StringLiteral kEnd = "rlx_cuda_op_end";

/// Host work that belongs to an op: launches, runtime calls, device memory
/// and copies, and control flow holding them. Synchronizations (`gpu.wait`)
/// stay outside: they wait for whatever came before.
bool isHostWork(Operation *op) {
  if (auto call = dyn_cast<func::CallOp>(op))
    return call.getCallee() != kBegin && call.getCallee() != kEnd;
  return isa<gpu::LaunchFuncOp, gpu::AllocOp, gpu::MemcpyOp, gpu::MemsetOp,
             memref::CopyOp>(op) ||
         op->getNumRegions() > 0;
}

struct RLXCUDAOpMarkersPass
    : rlx::impl::RLXCUDAOpMarkersBase<RLXCUDAOpMarkersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto declare = [&](StringRef name, TypeRange inputs) {
      if (module.lookupSymbol(name))
        return;
      func::FuncOp::create(b, module.getLoc(), name,
                           FunctionType::get(ctx, inputs, {}))
          .setPrivate();
    };
    declare(kBegin, {b.getI64Type(), ptrType});
    declare(kEnd, {b.getI64Type()});

    // One constant string per label, made when the label is first used.
    SmallVector<LLVM::GlobalOp> labelGlobals;
    Value runId;
    bracketLabelledWork(
        module, isHostWork,
        [&](OpBuilder &builder, Location loc, int64_t id, StringRef label) {
          if (static_cast<size_t>(id) == labelGlobals.size()) {
            OpBuilder::InsertionGuard guard(builder);
            builder.setInsertionPointToEnd(module.getBody());
            std::string text = label.str();
            text.push_back('\0');
            auto type =
                LLVM::LLVMArrayType::get(builder.getI8Type(), text.size());
            labelGlobals.push_back(LLVM::GlobalOp::create(
                builder, loc, type, /*isConstant=*/true,
                LLVM::Linkage::Internal, ("rlx_op_label_" + Twine(id)).str(),
                builder.getStringAttr(text)));
          }
          runId = arith::ConstantIntOp::create(builder, loc, id, 64);
          Value text =
              LLVM::AddressOfOp::create(builder, loc, labelGlobals[id]);
          func::CallOp::create(builder, loc, kBegin, TypeRange(),
                               ValueRange{runId, text});
        },
        [&](OpBuilder &builder, Location loc, int64_t) {
          func::CallOp::create(builder, loc, kEnd, TypeRange(), runId);
        });
  }
};

} // namespace
