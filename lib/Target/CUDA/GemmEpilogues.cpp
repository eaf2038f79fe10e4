//===- GemmEpilogues.cpp - GEMM, bias and activation in one cuBLASLt call -===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A linear layer is `rlx.matmul`, `rlx.binary add` of a bias row and often
// an activation. Lowered apart, the GEMM writes its [M, N] product and a
// second kernel reads it back to add the bias (and apply the activation)
// and writes it again. cuBLASLt applies the bias and relu/GELU to the
// product's tiles before they leave the GEMM (its epilogues), so the chain
// becomes one rlx_cuda.matmul_bias and, on buffers, one runtime call.
//
//===----------------------------------------------------------------------===//

#include "KernelOps.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Runtime/CUDARuntime.h"
#include "rlx/Target/CUDA/Passes.h"
#include "rlx/Target/CUDA/RLXCUDADialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rlx;

bool rlx::formMatmulBias(RewriterBase &rewriter, MatMulOp matmul) {
  auto inputType = cast<RankedTensorType>(matmul.getLhs().getType());
  auto weightType = cast<RankedTensorType>(matmul.getRhs().getType());
  Type elementType = inputType.getElementType();
  if ((inputType.getRank() != 2 && inputType.getRank() != 3) ||
      weightType.getRank() != 2 ||
      !isa<Float32Type, Float16Type, BFloat16Type>(elementType) ||
      !isa<func::FuncOp>(matmul->getParentOp()) || !matmul->hasOneUse())
    return false;
  Value product = matmul.getResult();
  auto add = dyn_cast<BinaryOp>(*matmul->getUsers().begin());
  if (!add || add.getKind() != BinaryKind::Add ||
      add.getType() != product.getType() || add.getLhs() == add.getRhs())
    return false;
  Value bias = add.getLhs() == product ? add.getRhs() : add.getLhs();
  auto biasType = cast<RankedTensorType>(bias.getType());
  if (biasType.getRank() != 1 || biasType.getElementType() != elementType ||
      biasType.getShape()[0] != weightType.getShape()[1] ||
      biasType.isDynamicDim(0))
    return false;

  Operation *last = add;
  ActivationKindAttr activation;
  if (add->hasOneUse())
    if (auto act = dyn_cast<ActivationOp>(*add->getUsers().begin());
        act && act.getType() == add.getType() &&
        (act.getKind() == ActivationKind::Relu ||
         act.getKind() == ActivationKind::GeluApprox)) {
      activation = act.getKindAttr();
      last = act;
    }

  Location loc = last->getLoc();
  rewriter.setInsertionPoint(last);
  auto type = cast<RankedTensorType>(product.getType());
  Value init = createEmptyLike(rewriter, loc, product);
  auto fused = cuda::MatmulBiasOp::create(rewriter, loc, TypeRange{type},
                                          matmul.getLhs(), matmul.getRhs(),
                                          bias, init, activation);
  rewriter.replaceOp(last, fused.getResult());
  if (last != add)
    rewriter.eraseOp(add);
  rewriter.eraseOp(matmul);
  return true;
}

void rlx::lowerMatmulBias(RewriterBase &rewriter, cuda::MatmulBiasOp op,
                          bool allowTf32) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type elementType = cast<MemRefType>(op.getInput().getType()).getElementType();
  // The verifier admits f32, f16 and bf16, which all have entry points.
  std::string name =
      ("rlx_cuda_matmul_bias_" + *gemmTypeSuffix(elementType)).str();

  // The runtime takes [B, M, K] x [K, N] + [N] -> [B, M, N]; a rank-2 input
  // and output get a unit batch.
  auto withBatch = [&](Value buffer) -> Value {
    auto type = cast<MemRefType>(buffer.getType());
    if (type.getRank() == 3)
      return buffer;
    SmallVector<int64_t> shape = {1, type.getDimSize(0), type.getDimSize(1)};
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1)};
    for (int64_t dim = 0; dim < 2; ++dim)
      sizes.push_back(memref::getMixedSize(rewriter, loc, buffer, dim));
    return memref::ExpandShapeOp::create(
        rewriter, loc, shape, buffer,
        SmallVector<ReassociationIndices>{{0, 1}, {2}}, sizes);
  };
  int32_t epilogue = RLX_CUDA_EPILOGUE_BIAS;
  if (std::optional<ActivationKind> kind = op.getActivation())
    epilogue = *kind == ActivationKind::Relu ? RLX_CUDA_EPILOGUE_RELU_BIAS
                                             : RLX_CUDA_EPILOGUE_GELU_BIAS;
  createDeviceRuntimeCall(rewriter, loc, op->getParentOfType<ModuleOp>(), name,
                          {withBatch(op.getInput()), op.getWeight(),
                           op.getBias(), withBatch(op.getInit())},
                          {epilogue, allowTf32 ? RLX_CUDA_GEMM_ALLOW_TF32 : 0});
  rewriter.eraseOp(op);
}
