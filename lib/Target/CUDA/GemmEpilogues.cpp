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
// Training keeps a tanh-GELU layer's pre-activation for the gradient: the
// forward GEMM then writes it beside the activation (GELU_AUX_BIAS,
// rlx_cuda.matmul_bias_gelu_aux), and the backward GEMM that produces the
// layer output's cotangent multiplies it by GELU's derivative and sums the
// bias gradient on the way out (DGELU_BGRAD, rlx_cuda.matmul_dgelu).
// cuBLASLt's GELU is the tanh form only, so exact (erf) GELU keeps the
// bias epilogue and a kernel after it.
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

#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

using namespace mlir;
using namespace mlir::rlx;

/// Whether cuBLASLt's epilogue GEMMs take `matmul`: an input of rank 2 or 3
/// by a weight of rank 2, f32/f16/bf16, in a graph function (not nested in
/// an rlx region), its product used once.
static bool isEpilogueGemm(MatMulOp matmul) {
  auto inputType = cast<RankedTensorType>(matmul.getLhs().getType());
  auto weightType = cast<RankedTensorType>(matmul.getRhs().getType());
  return (inputType.getRank() == 2 || inputType.getRank() == 3) &&
         weightType.getRank() == 2 &&
         isa<Float32Type, Float16Type, BFloat16Type>(
             inputType.getElementType()) &&
         isa<func::FuncOp>(matmul->getParentOp()) && matmul->hasOneUse();
}

/// Whether the auxiliary-buffer epilogues take products of `weightType`'s
/// columns: a static multiple of 8, which keeps every row of the auxiliary
/// buffer 16-byte aligned as cuBLASLt's GELU_AUX epilogues want it.
static bool fitsAuxEpilogue(RankedTensorType weightType) {
  int64_t columns = weightType.getShape()[1];
  return !ShapedType::isDynamic(columns) && columns % 8 == 0;
}

bool rlx::formMatmulBias(RewriterBase &rewriter, MatMulOp matmul) {
  auto weightType = cast<RankedTensorType>(matmul.getRhs().getType());
  Type elementType = weightType.getElementType();
  if (!isEpilogueGemm(matmul))
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

  // A tanh GELU beside other users of the pre-activation (its gradient):
  // both from one GEMM.
  auto isGeluApprox = [&](Operation *user) {
    auto act = dyn_cast<ActivationOp>(user);
    return act && act.getKind() == ActivationKind::GeluApprox &&
           act.getType() == add.getType();
  };
  if (!add->hasOneUse() && fitsAuxEpilogue(weightType) &&
      llvm::count_if(add->getUsers(), isGeluApprox) == 1) {
    auto gelu =
        cast<ActivationOp>(*llvm::find_if(add->getUsers(), isGeluApprox));
    // Every op the GEMM does the work of: its profile label names them all.
    Location loc =
        rewriter.getFusedLoc({matmul.getLoc(), add->getLoc(), gelu.getLoc()});
    rewriter.setInsertionPoint(add);
    auto type = cast<RankedTensorType>(product.getType());
    Value init = createEmptyLike(rewriter, loc, product);
    Value auxInit = createEmptyLike(rewriter, loc, product);
    auto fused = cuda::MatmulBiasGeluAuxOp::create(
        rewriter, loc, TypeRange{type, type}, matmul.getLhs(), matmul.getRhs(),
        bias, init, auxInit);
    rewriter.replaceOp(gelu, fused.getResult()[0]);
    rewriter.replaceOp(add, fused.getResult()[1]);
    rewriter.eraseOp(matmul);
    return true;
  }

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

  Location loc = rewriter.getFusedLoc(
      last == add
          ? ArrayRef<Location>{matmul.getLoc(), add->getLoc()}
          : ArrayRef<Location>{matmul.getLoc(), add->getLoc(), last->getLoc()});
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

bool rlx::formMatmulDgelu(RewriterBase &rewriter, ActivationBackwardOp op) {
  auto matmul = op.getDy().getDefiningOp<MatMulOp>();
  if (op.getKind() != ActivationKind::GeluApprox || !matmul ||
      !isEpilogueGemm(matmul) || matmul.getType() != op.getType() ||
      !fitsAuxEpilogue(cast<RankedTensorType>(matmul.getRhs().getType())))
    return false;
  auto type = cast<RankedTensorType>(op.getType());
  int64_t rank = type.getRank();
  int64_t columns = type.getShape().back();
  // The bias gradient: a sum of the result over every row, if the graph
  // has one; the epilogue computes it anyway.
  auto rowAxes = llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
  ReduceOp biasGradient;
  for (Operation *user : op->getUsers())
    if (auto reduce = dyn_cast<ReduceOp>(user);
        reduce && reduce.getKind() == ReduceKind::Sum &&
        reduce.getAxes() == ArrayRef<int64_t>(rowAxes)) {
      biasGradient = reduce;
      break;
    }

  SmallVector<Location> fusedLocs = {matmul.getLoc(), op.getLoc()};
  if (biasGradient)
    fusedLocs.push_back(biasGradient.getLoc());
  Location loc = rewriter.getFusedLoc(fusedLocs);
  rewriter.setInsertionPoint(op);
  auto rowType = RankedTensorType::get({columns}, type.getElementType());
  Value init = createEmptyLike(rewriter, loc, op.getDy());
  Value biasGradInit =
      tensor::EmptyOp::create(rewriter, loc, rowType, ValueRange());
  auto fused = cuda::MatmulDgeluOp::create(
      rewriter, loc, TypeRange{type, rowType}, matmul.getLhs(), matmul.getRhs(),
      op.getX(), init, biasGradInit);
  if (biasGradient) {
    Value sum = fused.getResult()[1];
    if (biasGradient.getKeepDim()) {
      SmallVector<int64_t> shape(rank, 1);
      shape.back() = columns;
      sum =
          PrimitiveBuilder(rewriter, biasGradient.getLoc()).reshape(sum, shape);
    }
    rewriter.replaceOp(biasGradient, sum);
  }
  rewriter.replaceOp(op, fused.getResult()[0]);
  rewriter.eraseOp(matmul);
  return true;
}

/// A call of the runtime's cuBLASLt entry point `base`_<type> on `buffers`
/// ([.., M, K] input, [K, N] weight, [N] row, then [.., M, N] buffers, of
/// which a rank-2 input and outputs get a unit batch), with the epilogue
/// code and the flags.
static void createEpilogueGemmCall(RewriterBase &rewriter, Operation *op,
                                   StringRef base, ValueRange buffers,
                                   int32_t epilogue, bool allowTf32) {
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  Type elementType =
      cast<MemRefType>(buffers.front().getType()).getElementType();
  // The verifiers admit f32, f16 and bf16, which all have entry points.
  std::string name = (base + "_" + *gemmTypeSuffix(elementType)).str();

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
  // The weight (second) and the row (third) keep their shapes.
  SmallVector<Value> arguments(buffers);
  for (size_t i = 0, e = buffers.size(); i < e; ++i)
    if (i != 1 && i != 2)
      arguments[i] = withBatch(buffers[i]);
  createDeviceRuntimeCall(rewriter, loc, op->getParentOfType<ModuleOp>(), name,
                          arguments,
                          {epilogue, allowTf32 ? RLX_CUDA_GEMM_ALLOW_TF32 : 0});
  rewriter.eraseOp(op);
}

void rlx::lowerMatmulBias(RewriterBase &rewriter, cuda::MatmulBiasOp op,
                          bool allowTf32) {
  int32_t epilogue = RLX_CUDA_EPILOGUE_BIAS;
  if (std::optional<ActivationKind> kind = op.getActivation())
    epilogue = *kind == ActivationKind::Relu ? RLX_CUDA_EPILOGUE_RELU_BIAS
                                             : RLX_CUDA_EPILOGUE_GELU_BIAS;
  createEpilogueGemmCall(
      rewriter, op, "rlx_cuda_matmul_bias",
      {op.getInput(), op.getWeight(), op.getBias(), op.getInit()}, epilogue,
      allowTf32);
}

void rlx::lowerMatmulBiasGeluAux(RewriterBase &rewriter,
                                 cuda::MatmulBiasGeluAuxOp op, bool allowTf32) {
  createEpilogueGemmCall(rewriter, op, "rlx_cuda_matmul_bias_aux",
                         {op.getInput(), op.getWeight(), op.getBias(),
                          op.getInit(), op.getAuxInit()},
                         RLX_CUDA_EPILOGUE_GELU_AUX_BIAS, allowTf32);
}

void rlx::lowerMatmulDgelu(RewriterBase &rewriter, cuda::MatmulDgeluOp op,
                           bool allowTf32) {
  // The runtime's argument order: the row vector (here the bias gradient it
  // writes) before the outputs, the auxiliary buffer last.
  createEpilogueGemmCall(rewriter, op, "rlx_cuda_matmul_bias_aux",
                         {op.getInput(), op.getWeight(), op.getBiasGradInit(),
                          op.getInit(), op.getPreActivation()},
                         RLX_CUDA_EPILOGUE_DGELU_BGRAD, allowTf32);
}
