//===- LinalgToCuBLAS.cpp - GEMMs on device buffers to cuBLAS -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/GemmCalls.h"
#include "rlx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCUDALINALGTOCUBLAS
#include "rlx/Target/CUDA/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {

std::optional<StringRef> elementSuffix(Type type) {
  if (type.isF32())
    return StringRef("f32");
  if (type.isF64())
    return StringRef("f64");
  if (type.isF16())
    return StringRef("f16");
  if (type.isBF16())
    return StringRef("bf16");
  return std::nullopt;
}

/// cuBLAS reads rows with a leading dimension: the innermost stride must
/// be 1.
bool hasUnitInnerStride(Value operand) {
  auto type = cast<MemRefType>(operand.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return type.getRank() > 0 &&
         (strides.back() == 1 || type.getShape().back() == 1);
}

struct RLXCUDALinalgToCuBLASPass
    : rlx::impl::RLXCUDALinalgToCuBLASBase<RLXCUDALinalgToCuBLASPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto [op, elementType] : rlx::collectPlainGemms(module))
      rewrite(module, op, elementType);
  }

  void rewrite(ModuleOp module, linalg::LinalgOp op, Type elementType) {
    std::optional<StringRef> suffix = elementSuffix(elementType);
    if (!suffix)
      return;
    SmallVector<Value> operands = op->getOperands();
    if (!llvm::all_of(operands, hasUnitInnerStride))
      return;
    auto outType = cast<MemRefType>(operands[2].getType());

    bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
    std::string name =
        (Twine(batched ? "rlx_cuda_batch_matmul_" : "rlx_cuda_matmul_") +
         *suffix)
            .str();
    MemRefType argType =
        rlx::getFullyDynamicStridedType(elementType, outType.getRank());
    OpBuilder b(op);
    Type flagsType = b.getI32Type();
    func::FuncOp callee = module.lookupSymbol<func::FuncOp>(name);
    if (!callee) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      callee = func::FuncOp::create(
          b, module.getLoc(), name,
          b.getFunctionType({argType, argType, argType, flagsType}, {}));
      callee.setPrivate();
      callee->setAttr("llvm.emit_c_interface", b.getUnitAttr());
      // Its buffers are device buffers (rlx-cuda-map-to-gpu).
      callee->setAttr(rlx::kDeviceBuffersAttrName, b.getUnitAttr());
    }
    SmallVector<Value> args;
    for (Value operand : operands)
      args.push_back(memref::CastOp::create(b, op.getLoc(), argType, operand));
    args.push_back(arith::ConstantIntOp::create(b, op.getLoc(), flagsType,
                                                allowTf32 ? 1 : 0));
    func::CallOp::create(b, op.getLoc(), callee, args);
    op->erase();
  }
};

} // namespace
