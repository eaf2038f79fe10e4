//===- LinalgToCuBLAS.cpp - GEMMs on device buffers to cuBLAS -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "KernelOps.h"

#include "rlx/Conversion/GemmCalls.h"
#include "rlx/Runtime/CUDARuntime.h"
#include "rlx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

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

/// Whether `op` only reads `root` (a copy out of it).
bool onlyReads(Operation *op, Value root) {
  auto copy = dyn_cast<memref::CopyOp>(op);
  return copy && rlx::viewRoot(copy.getSource()) == root &&
         rlx::viewRoot(copy.getTarget()) != root;
}

/// The `linalg.fill` of zero that last wrote `buffer` before `at`, when
/// nothing but reads touched the buffer since; null otherwise. `read` tells
/// whether something read those zeros in between.
linalg::FillOp zeroFillReaching(Value buffer, Operation *at, bool &read) {
  Value root = rlx::viewRoot(buffer);
  read = false;
  for (Operation *op = at->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(op);
        fill && fill.getDpsInits()[0] == buffer) {
      Value value = fill.getDpsInputs()[0];
      return matchPattern(value, m_AnyZeroFloat()) ||
                     matchPattern(value, m_Zero())
                 ? fill
                 : nullptr;
    }
    if (onlyReads(op, root))
      read = true;
    else if (rlx::touchesBuffer(op, root))
      return nullptr;
  }
  return nullptr;
}

/// The op that zeroes `gemm`'s product before the GEMM accumulates into it
/// (the matmul lowering's `linalg.fill` of zero, or a `memref.copy` of such
/// a fill when bufferization shares one fill between products of a
/// shape), if the GEMM can overwrite the product instead (cuBLAS's beta =
/// 0); `redundant` tells whether that op can go too (nothing else reads
/// what it wrote).
Operation *zeroInitBefore(linalg::LinalgOp gemm, bool &redundant) {
  Value product = gemm.getDpsInits()[0];
  bool read = false;
  if (linalg::FillOp fill = zeroFillReaching(product, gemm, read)) {
    redundant = !read;
    return fill;
  }
  if (read)
    return nullptr;
  Value root = rlx::viewRoot(product);
  for (Operation *op = gemm->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto copy = dyn_cast<memref::CopyOp>(op);
        copy && copy.getTarget() == product) {
      bool zerosRead;
      redundant = true;
      return zeroFillReaching(copy.getSource(), copy, zerosRead) ? copy
                                                                 : nullptr;
    }
    if (rlx::touchesBuffer(op, root))
      return nullptr;
  }
  return nullptr;
}

/// The half float type that every use of `value` rounds it to first, if
/// all of its uses are such roundings.
Type roundedTypeOfUses(Value value) {
  Type rounded;
  for (Operation *user : value.getUsers()) {
    auto truncation = dyn_cast<arith::TruncFOp>(user);
    if (!truncation || (rounded && truncation.getType() != rounded))
      return nullptr;
    rounded = truncation.getType();
  }
  return rounded;
}

/// Whether `generic` only rounds its one input, element for element, into
/// its output (the half matmul lowering's last step when nothing fused
/// into it).
bool isRoundingCopy(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto truncation = yield.getOperand(0).getDefiningOp<arith::TruncFOp>();
  return body.getOperations().size() == 2 && truncation &&
         truncation.getIn() == body.getArgument(0);
}

/// An f16/bf16 GEMM's f32 product, zeroed by `zeroInit`, that every
/// reader rounds to the half type before anything else (the half matmul
/// lowering: the product is accumulated in f32 and rounded once). cuBLAS
/// accumulates in f32 and rounds its output once too, so the GEMM can
/// write the half type itself and the f32 buffer and the rounding go:
/// - a lone reader that only copies the rounded product into its output
///   becomes the GEMM's output (that reader is gone);
/// - otherwise the product becomes a half buffer, which the readers
///   (through its reshapes) take as it is.
/// Returns the half buffer for the GEMM to write, or null (nothing
/// changed) when the product is read otherwise.
Value foldRounding(linalg::LinalgOp gemm, Operation *zeroInit,
                   DominanceInfo &dominance) {
  Value product = gemm.getDpsInits()[0];
  auto alloc = product.getDefiningOp<memref::AllocOp>();
  if (!alloc || !zeroInit)
    return nullptr;
  auto productType = cast<MemRefType>(product.getType());
  if (!productType.getElementType().isF32() ||
      !productType.getLayout().isIdentity())
    return nullptr;
  // The product's readers, directly or through one reshape each.
  SmallVector<Operation *> views;
  SmallVector<std::pair<linalg::GenericOp, unsigned>> reads;
  Type half;
  auto addRead = [&](OpOperand &use) {
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!generic || !generic.isDpsInput(&use))
      return false;
    Type rounded = roundedTypeOfUses(generic.getMatchingBlockArgument(&use));
    if (!rounded || (half && rounded != half))
      return false;
    half = rounded;
    reads.emplace_back(generic, use.getOperandNumber());
    return true;
  };
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == gemm.getOperation() || user == zeroInit ||
        isa<memref::DeallocOp>(user))
      continue;
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
      views.push_back(user);
      for (OpOperand &viewUse : user->getResult(0).getUses())
        if (!addRead(viewUse))
          return nullptr;
    } else if (!addRead(use)) {
      return nullptr;
    }
  }
  Type input = gemm.getDpsInputs()[0].getType();
  if (!half || getElementTypeOrSelf(input) != half)
    return nullptr;

  OpBuilder b(gemm);
  Location loc = gemm.getLoc();
  // A lone rounding copy into a buffer that exists at the GEMM and that
  // nothing touches until the copy: the GEMM writes that buffer.
  if (reads.size() == 1 && views.size() <= 1 &&
      isRoundingCopy(reads.front().first)) {
    linalg::GenericOp copy = reads.front().first;
    Value target = copy.getDpsInits()[0];
    bool untouched =
        copy->getBlock() == gemm->getBlock() && gemm->isBeforeInBlock(copy) &&
        dominance.properlyDominates(target, gemm.getOperation()) &&
        cast<MemRefType>(target.getType()).getLayout().isIdentity();
    for (Operation *op = gemm->getNextNode(); untouched && op != copy;
         op = op->getNextNode())
      untouched = !rlx::touchesBuffer(op, rlx::viewRoot(target));
    if (untouched) {
      Value view = target;
      if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(
              views.empty() ? nullptr : views.front()))
        view = memref::CollapseShapeOp::create(
            b, loc, target, expand.getReassociationIndices());
      else if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(
                   views.empty() ? nullptr : views.front()))
        view = memref::ExpandShapeOp::create(
            b, loc, MemRefType::get(productType.getShape(), half), target,
            collapse.getReassociationIndices());
      copy->erase();
      for (Operation *op : views)
        op->erase();
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      return view;
    }
  }

  // The product in the half type, read as the rounded value it was.
  OpBuilder atAlloc(alloc);
  auto halfAlloc = memref::AllocOp::create(
      atAlloc, alloc.getLoc(), MemRefType::get(productType.getShape(), half),
      alloc.getDynamicSizes(), alloc.getSymbolOperands(),
      alloc.getAlignmentAttr());
  for (Operation *view : views) {
    OpBuilder atView(view);
    Value halfView;
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(view))
      halfView = memref::ExpandShapeOp::create(
          atView, view->getLoc(),
          MemRefType::get(expand.getType().getShape(), half), halfAlloc,
          expand.getReassociationIndices());
    else
      halfView = memref::CollapseShapeOp::create(
          atView, view->getLoc(), halfAlloc,
          cast<memref::CollapseShapeOp>(view).getReassociationIndices());
    view->getResult(0).replaceAllUsesWith(halfView);
    view->erase();
  }
  product.replaceUsesWithIf(halfAlloc, [&](OpOperand &use) {
    return use.getOwner() != gemm.getOperation() && use.getOwner() != zeroInit;
  });
  for (auto [generic, operand] : reads) {
    BlockArgument argument =
        generic.getMatchingBlockArgument(&generic->getOpOperand(operand));
    argument.setType(half);
    for (Operation *truncation :
         llvm::make_early_inc_range(argument.getUsers())) {
      truncation->getResult(0).replaceAllUsesWith(argument);
      truncation->erase();
    }
  }
  return halfAlloc;
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
    DominanceInfo dominance(module);
    for (auto [op, gemm] : gemms)
      rewrite(module, op, gemm, dominance);
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
               const rlx::TransposableGemm &gemm, DominanceInfo &dominance) {
    std::optional<std::string> suffix = entrySuffix(gemm);
    if (!suffix)
      return;
    OpBuilder b(op);
    SmallVector<Value> operands = op->getOperands();
    // The product's zero fill is a kernel of its own; the GEMM overwrites
    // the product instead (beta = 0).
    bool redundant = false;
    Operation *zeroInit = zeroInitBefore(op, redundant);
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
    if (Value rounded = foldRounding(op, zeroInit, dominance)) {
      suffix = rlx::gemmTypeSuffix(gemm.inputTypes[0])->str();
      operands[2] = rounded;
    }
    bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
    Value product = op.getDpsInits()[0];
    auto eraseGemm = [&] {
      op->erase();
      if (zeroInit && redundant)
        zeroInit->erase();
      if (operands[2] != product && product.use_empty())
        product.getDefiningOp()->erase();
    };
    // A few rows times a transposed weight: the GEMV kernel, which
    // overwrites the product (so only where its zero init was found).
    if (!batched && zeroInit &&
        rlx::replaceGemmByGemv(b, op, operands[0], operands[1], operands[2],
                               dominance)) {
      for (unsigned i : {0u, 1u})
        if (operands[i] != op->getOperand(i) && operands[i].use_empty())
          operands[i].getDefiningOp()->erase();
      eraseGemm();
      return;
    }
    std::string name =
        (Twine(batched ? "rlx_cuda_batch_matmul_" : "rlx_cuda_matmul_") +
         *suffix)
            .str();
    int32_t flags = (allowTf32 ? RLX_CUDA_GEMM_ALLOW_TF32 : 0) |
                    (zeroInit ? RLX_CUDA_GEMM_OVERWRITE : 0);
    rlx::createDeviceRuntimeCall(b, op.getLoc(), module, name, operands,
                                 {flags});
    eraseGemm();
  }
};

} // namespace
