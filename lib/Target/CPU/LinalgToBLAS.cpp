//===- LinalgToBLAS.cpp - call the BLAS runtime for matmuls on buffers ----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCalls.h"
#include "rlx/Conversion/GemmCalls.h"
#include "rlx/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXLINALGTOBLAS
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

static std::optional<StringRef> elementSuffix(Type type) {
  if (type.isF32())
    return StringRef("f32");
  if (type.isF64())
    return StringRef("f64");
  return std::nullopt;
}

struct RLXLinalgToBLASPass
    : rlx::impl::RLXLinalgToBLASBase<RLXLinalgToBLASPass> {
  using RLXLinalgToBLASBase::RLXLinalgToBLASBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (f32Library != "onednn" && f32Library != "openblas") {
      module.emitError() << "rlx-linalg-to-blas: f32-library must be onednn "
                            "or openblas, not '"
                         << f32Library << "'";
      return signalPassFailure();
    }
    if (matmulPrecision != "f32" && matmulPrecision != "bf16") {
      module.emitError() << "rlx-linalg-to-blas: matmul-precision must be "
                            "f32 or bf16, not '"
                         << matmulPrecision << "'";
      return signalPassFailure();
    }
    SmallVector<std::pair<linalg::LinalgOp, TransposableGemm>> gemms;
    module.walk([&](linalg::LinalgOp op) {
      if (std::optional<TransposableGemm> gemm =
              matchTransposableGemm(op, /*allowHalfInputs=*/true))
        gemms.emplace_back(op, *gemm);
    });
    for (auto [op, gemm] : gemms)
      rewrite(module, op, gemm);
    SmallVector<std::pair<linalg::LinalgOp, GroupedGemm>> grouped;
    module.walk([&](linalg::LinalgOp op) {
      if (std::optional<GroupedGemm> gemm = matchGroupedGemm(op))
        grouped.emplace_back(op, *gemm);
    });
    for (auto [op, gemm] : grouped)
      rewriteGrouped(module, op, gemm);
  }

  /// Whether `op` has at least minFlops iterations (or a dynamic range):
  /// smaller products run faster as loops than through a call.
  bool isLargeEnough(linalg::LinalgOp op) const {
    int64_t work = 1;
    for (int64_t range : op.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(range))
        return true; // Unknown at compile time: assume large.
      // Past int64 (an S x S score matrix of S = 2^32) is large.
      if (llvm::MulOverflow(work, range, work))
        return true;
    }
    return work >= minFlops;
  }

  /// A grouped matmul -> `rlx_rt_grouped_matmul_<float>_<index>(input,
  /// weight, expert_idx, out)`, which adds input[m] * weight[expert_idx[m]]
  /// to out[m] with one GEMM per expert, as the generic does row by row.
  void rewriteGrouped(ModuleOp module, linalg::LinalgOp op,
                      const GroupedGemm &gemm) {
    std::optional<StringRef> suffix = elementSuffix(gemm.elementType);
    Type idxType = cast<MemRefType>(gemm.expertIdx.getType()).getElementType();
    if (!suffix || !isLargeEnough(op) ||
        !(idxType.isInteger(32) || idxType.isInteger(64)))
      return;
    std::string name = (Twine("rlx_rt_grouped_matmul_") + *suffix + "_i" +
                        Twine(idxType.getIntOrFloatBitWidth()))
                           .str();
    SmallVector<Value> operands = {gemm.input, gemm.weight, gemm.expertIdx,
                                   gemm.output};
    OpBuilder b(op);
    SmallVector<Value> args;
    for (Value operand : operands) {
      auto type = cast<MemRefType>(operand.getType());
      args.push_back(memref::CastOp::create(
          b, op.getLoc(),
          getFullyDynamicStridedType(type.getElementType(), type.getRank()),
          operand));
    }
    func::FuncOp callee =
        getOrDeclareRuntime(module, name, ValueRange(args).getTypes());
    func::CallOp::create(b, op.getLoc(), callee, args);
    op->erase();
  }

  void rewrite(ModuleOp module, linalg::LinalgOp op,
               const TransposableGemm &gemm) {
    Type elementType = gemm.elementType;
    std::optional<StringRef> suffix = elementSuffix(elementType);
    if (!suffix)
      return;
    auto outType = cast<MemRefType>(op->getOperand(2).getType());
    SmallVector<Value> operands = op->getOperands();
    // Skip small products: loops beat the call overhead.
    if (!isLargeEnough(op))
      return;

    int64_t rank = outType.getRank();
    bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
    // f32 products run on the library and precision the options name;
    // f16/bf16 operands accumulated in f32 (the f16/bf16 lowerings) on
    // oneDNN, named by the operands' types: `bf16_f32` where both are
    // bf16, `f32_bf16_f32` for an f32 lhs and a bf16 rhs.
    std::string library;
    Type lhsType = gemm.inputTypes[0], rhsType = gemm.inputTypes[1];
    auto typeName = [](Type type) {
      return type.isBF16() ? "bf16" : type.isF16() ? "f16" : "f32";
    };
    if (lhsType != elementType || rhsType != elementType)
      library =
          lhsType == rhsType
              ? (Twine(typeName(lhsType)) + "_f32").str()
              : (Twine(typeName(lhsType)) + "_" + typeName(rhsType) + "_f32")
                    .str();
    else if (elementType.isF32())
      library = matmulPrecision == "bf16" ? "f32_bf16"
                : f32Library == "onednn"  ? "f32_onednn"
                                          : "f32";
    else
      library = *suffix;
    std::string name =
        (Twine(batched ? "rlx_rt_batch_matmul_" : "rlx_rt_matmul_") + library)
            .str();
    func::FuncOp callee = getOrDeclareRuntime(
        module, name,
        SmallVector<Type>{getFullyDynamicStridedType(lhsType, rank),
                          getFullyDynamicStridedType(rhsType, rank),
                          getFullyDynamicStridedType(elementType, rank)});
    OpBuilder b(op);
    // An operand read transposed is passed as a transposed view; the runtime
    // hands its unit row stride to BLAS as a transposed matrix.
    for (unsigned i : {0u, 1u}) {
      if (!gemm.transposed[i])
        continue;
      SmallVector<unsigned> perm =
          llvm::to_vector(llvm::seq<unsigned>(0, static_cast<unsigned>(rank)));
      std::swap(perm[rank - 1], perm[rank - 2]);
      operands[i] = memref::TransposeOp::create(
          b, op.getLoc(), operands[i],
          AffineMapAttr::get(
              AffineMap::getPermutationMap(perm, b.getContext())));
    }
    SmallVector<Value> args;
    for (auto [operand, type] :
         llvm::zip_equal(operands, callee.getFunctionType().getInputs()))
      args.push_back(memref::CastOp::create(b, op.getLoc(), type, operand));
    func::CallOp::create(b, op.getLoc(), callee, args);
    op->erase();
  }
};

} // namespace
