//===- LinalgToCuBLAS.cpp - GEMMs on device buffers to cuBLAS -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "KernelOps.h"

#include "rlx/Conversion/GemmCalls.h"
#include "rlx/Runtime/CUDARuntime.h"
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
    std::optional<StringRef> suffix = rlx::gemmTypeSuffix(elementType);
    if (!suffix)
      return;
    SmallVector<Value> operands = op->getOperands();
    if (!llvm::all_of(operands, hasUnitInnerStride))
      return;
    bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
    std::string name =
        (Twine(batched ? "rlx_cuda_batch_matmul_" : "rlx_cuda_matmul_") +
         *suffix)
            .str();
    OpBuilder b(op);
    rlx::createDeviceRuntimeCall(b, op.getLoc(), module, name, operands,
                                 {allowTf32 ? RLX_CUDA_GEMM_ALLOW_TF32 : 0});
    op->erase();
  }
};

} // namespace
