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

/// cuBLAS reads a matrix by columns with a leading dimension, and either as
/// stored or transposed: of a row-major operand, the innermost stride must
/// be 1 (read as stored) or the stride of the rows must be 1 (a transposed
/// view, read transposed), with the other stride static and at least the
/// extent it steps over. The runtime picks the operation from the strides
/// it is given (Blas.cpp); this checks at compile time that it can.
bool isBlasLayout(Value operand, bool allowTransposed) {
  auto type = cast<MemRefType>(operand.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() < 2 || failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t rank = type.getRank();
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  int64_t rowStride = strides[rank - 2], colStride = strides[rank - 1];
  auto atLeast = [](int64_t stride, int64_t extent) {
    return !ShapedType::isDynamic(stride) && !ShapedType::isDynamic(extent) &&
           stride >= extent;
  };
  if (colStride == 1 || cols == 1)
    return rows == 1 || atLeast(rowStride, cols);
  return allowTransposed && (rowStride == 1 || rows == 1) &&
         atLeast(colStride, rows);
}

struct RLXCUDALinalgToCuBLASPass
    : rlx::impl::RLXCUDALinalgToCuBLASBase<RLXCUDALinalgToCuBLASPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, rlx::TransposableGemm>> gemms;
    module.walk([&](linalg::LinalgOp op) {
      if (std::optional<rlx::TransposableGemm> gemm =
              rlx::matchTransposableGemm(op, /*allowHalfInputs=*/true))
        gemms.emplace_back(op, *gemm);
    });
    for (auto [op, gemm] : gemms)
      rewrite(module, op, gemm);
  }

  /// The runtime entry point's type suffix: the element type, or for f16
  /// and bf16 operands accumulated into an f32 product (the f16/bf16
  /// matmul lowering), `bf16_f32` or `f16_f32`; std::nullopt for the mixes
  /// cuBLAS has no GEMM for (an f32 operand beside a half one).
  static std::optional<std::string>
  entrySuffix(const rlx::TransposableGemm &gemm) {
    Type lhs = gemm.inputTypes[0], rhs = gemm.inputTypes[1];
    std::optional<StringRef> in = rlx::gemmTypeSuffix(lhs);
    if (!in || lhs != rhs)
      return std::nullopt;
    if (lhs == gemm.elementType)
      return in->str();
    if (gemm.elementType.isF32() && (lhs.isF16() || lhs.isBF16()))
      return (*in + "_f32").str();
    return std::nullopt;
  }

  void rewrite(ModuleOp module, linalg::LinalgOp op,
               const rlx::TransposableGemm &gemm) {
    std::optional<std::string> suffix = entrySuffix(gemm);
    if (!suffix)
      return;
    OpBuilder b(op);
    SmallVector<Value> operands = op->getOperands();
    // An operand read through a transposed indexing map is passed as a
    // transposed view of its buffer (the last two dims swapped): the
    // runtime sees its unit row stride and has cuBLAS read it transposed.
    for (unsigned i : {0u, 1u}) {
      if (!gemm.transposed[i])
        continue;
      auto type = cast<MemRefType>(operands[i].getType());
      SmallVector<unsigned> permutation =
          llvm::to_vector(llvm::seq<unsigned>(0, type.getRank()));
      std::swap(permutation[type.getRank() - 2],
                permutation[type.getRank() - 1]);
      operands[i] = memref::TransposeOp::create(
          b, op.getLoc(), operands[i],
          AffineMapAttr::get(
              AffineMap::getPermutationMap(permutation, b.getContext())));
    }
    if (!isBlasLayout(operands[0], /*allowTransposed=*/true) ||
        !isBlasLayout(operands[1], /*allowTransposed=*/true) ||
        !isBlasLayout(operands[2], /*allowTransposed=*/false)) {
      for (unsigned i : {0u, 1u})
        if (operands[i] != op->getOperand(i))
          operands[i].getDefiningOp()->erase();
      return;
    }
    bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
    std::string name =
        (Twine(batched ? "rlx_cuda_batch_matmul_" : "rlx_cuda_matmul_") +
         *suffix)
            .str();
    rlx::createDeviceRuntimeCall(b, op.getLoc(), module, name, operands,
                                 {allowTf32 ? RLX_CUDA_GEMM_ALLOW_TF32 : 0});
    op->erase();
  }
};

} // namespace
