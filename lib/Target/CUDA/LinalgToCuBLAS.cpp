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

/// Whether `op` or an op nested in it has an operand viewing `root`.
bool touchesBuffer(Operation *op, Value root) {
  WalkResult result = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (isa<MemRefType>(operand.getType()) && rlx::viewRoot(operand) == root)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
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
    else if (touchesBuffer(op, root))
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
    if (touchesBuffer(op, root))
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
      untouched = !touchesBuffer(op, rlx::viewRoot(target));
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

//===----------------------------------------------------------------------===//
// GEMV: a few rows times a transposed weight
//===----------------------------------------------------------------------===//
//
// Decoding a language model multiplies one row (or a few) by every weight
// matrix, read transposed (a Linear weight W [N, K] is stored row-major).
// cuBLAS reads the weights of such products at well under the device's
// bandwidth (1.6-1.9 TB/s of 4.2 on an H200), and the product is bound by
// that read alone. The GEMV kernel below gives each output column n a warp
// that streams W[n, :] in 16-byte loads (a warp reads 512 contiguous bytes
// per step), so the weights are read once, in long coalesced runs.

/// The most rows of A the GEMV kernel takes (one f32 accumulator each per
/// lane).
constexpr int64_t kGemvMaxRows = 8;
/// Below this many weight elements the product stays on cuBLAS: it is too
/// small for the read to dominate.
constexpr int64_t kGemvMinWeightElements = 65536;
/// Elements of one 16-byte load of f16/bf16.
constexpr int64_t kGemvGroup = 8;
/// Warps per block.
constexpr int64_t kGemvWarps = 8;
/// Warps the GEMV keeps resident for its loads to fill the device's memory
/// pipeline (about 62 of the 64 a multiprocessor holds, on an H200's 132):
/// a product with fewer output columns splits each column's dot over
/// several warps.
constexpr int64_t kGemvTargetWarps = 8192;

/// Warps per output column of a GEMV of `columns` columns and `groups`
/// 16-byte groups per row: a power of two up to kGemvWarps that keeps the
/// warps near kGemvTargetWarps and gives each warp a whole number of
/// groups per lane.
int64_t gemvWarpsPerColumn(int64_t columns, int64_t groups) {
  int64_t split = 1;
  while (split < kGemvWarps && columns * split * 2 <= kGemvTargetWarps &&
         groups % (split * 2 * rlx::kWarpThreads) == 0)
    split *= 2;
  return split;
}

/// The strides of `value`'s memref type when its offset is static 0.
std::optional<SmallVector<int64_t>> stridesAtOffsetZero(Value value) {
  auto type = cast<MemRefType>(value.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || offset != 0)
    return std::nullopt;
  return strides;
}

/// The operands of a GEMM that the GEMV kernel takes: A [M, K] row-major,
/// the weight W [N, K] row-major (B = W^T), the product [M, N].
struct GemvOperands {
  Value lhs, weight, out;
  int64_t rows, columns, depth;
  /// An elementwise op that reads the product and that the kernel computes
  /// in its place (GemvEpilogue), or null.
  linalg::GenericOp epilogue;
  /// Per operand of `epilogue`: its [M, N] view, or null for the product.
  SmallVector<Value> epilogueViews;
};

/// `value`, a static contiguous buffer of rows * columns elements, viewed as
/// [rows, columns] at `b`.
Value viewAsMatrix(OpBuilder &b, Location loc, Value value, int64_t rows,
                   int64_t columns) {
  auto type = cast<MemRefType>(value.getType());
  if (type.getShape() == ArrayRef<int64_t>{rows, columns})
    return value;
  if (type.getRank() > 1) {
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      all.front().push_back(d);
    value = memref::CollapseShapeOp::create(b, loc, value, all);
  }
  return memref::ExpandShapeOp::create(
      b, loc, MemRefType::get({rows, columns}, type.getElementType()), value,
      ArrayRef<ReassociationIndices>{{0, 1}});
}

/// The elementwise op that the GEMV writing `product` ([M, N], a buffer of
/// its own) can compute in its place: the product's one reader, directly
/// or through reshapes, a linalg.generic of identity maps and parallel
/// loops over M * N points (a residual add, the activations fused into it)
/// whose operands are static contiguous buffers of that many elements,
/// which does not read its output, placed after `gemm` in its block with
/// nothing between touching its operands, and whose other operands exist
/// at `gemm` (an allocation of its output just before it moves up). The
/// kernel then stores the op's result instead of the product, which is
/// never written: for a decode step's projections that is the residual
/// add's kernel gone.
linalg::GenericOp gemvEpilogue(linalg::LinalgOp gemm, Value product,
                               DominanceInfo &dominance) {
  auto alloc = product.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return nullptr;
  auto productType = cast<MemRefType>(product.getType());
  int64_t points = productType.getNumElements();
  linalg::GenericOp reader;
  SmallVector<Value> pending = {product};
  while (!pending.empty()) {
    Value view = pending.pop_back_val();
    for (OpOperand &use : view.getUses()) {
      Operation *user = use.getOwner();
      if (user == gemm.getOperation() || isa<memref::DeallocOp>(user))
        continue;
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
        pending.push_back(user->getResult(0));
        continue;
      }
      auto generic = dyn_cast<linalg::GenericOp>(user);
      if (!generic || reader || !generic.isDpsInput(&use))
        return nullptr;
      reader = generic;
    }
  }
  if (!reader || reader->getBlock() != gemm->getBlock() ||
      !gemm->isBeforeInBlock(reader) || reader.getNumDpsInits() != 1 ||
      reader.getNumReductionLoops() != 0 ||
      !llvm::all_of(reader.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }) ||
      reader.payloadUsesValueFromOperand(reader.getDpsInitOperand(0)) ||
      !reader.getBody()->getOps<linalg::IndexOp>().empty())
    return nullptr;
  // Every operand is a reshape of a buffer of its own points (so the
  // kernel reads and writes those buffers viewed as [M, N]).
  SmallVector<Value> roots;
  for (Value operand : reader->getOperands()) {
    Value root = rlx::viewRoot(operand);
    for (Value buffer : {operand, root}) {
      auto type = dyn_cast<MemRefType>(buffer.getType());
      if (!type || !type.hasStaticShape() || type.getNumElements() != points ||
          !type.getLayout().isIdentity())
        return nullptr;
    }
    if (root != product)
      roots.push_back(root);
  }
  // Nothing between the GEMM and the op touches its other operands but
  // their reshapes; an allocation of one there (its output's, usually)
  // moves up to the GEMM.
  SmallVector<Operation *> moved;
  for (Operation *op = gemm->getNextNode(); op != reader;
       op = op->getNextNode()) {
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op))
      continue;
    if (auto allocation = dyn_cast<memref::AllocOp>(op);
        allocation && allocation->getNumOperands() == 0 &&
        llvm::is_contained(roots, allocation.getResult())) {
      moved.push_back(op);
      continue;
    }
    if (llvm::any_of(roots,
                     [&](Value root) { return touchesBuffer(op, root); }))
      return nullptr;
  }
  for (Value root : roots)
    if (!llvm::is_contained(moved, root.getDefiningOp()) &&
        !dominance.properlyDominates(root, gemm.getOperation()))
      return nullptr;
  for (Operation *op : moved)
    op->moveBefore(gemm);
  return reader;
}

/// `lhs` [M, K], `rhs` [K, N] and `out` [M, N] as the GEMV kernel takes
/// them: M <= 8, K a static multiple of 8 and N static with N * K large
/// enough; f16 or bf16 operands of one type into a product of that type or
/// f32; A with unit inner stride and rows of a multiple of 8 elements, and
/// `rhs` a transposed view of a row-major [N, K] buffer, both at offset 0
/// (16-byte aligned rows in buffers the runtime allocates). The weight view
/// is created at `b` when `rhs` is not a memref.transpose already.
std::optional<GemvOperands> matchGemv(OpBuilder &b, Location loc, Value lhs,
                                      Value rhs, Value out) {
  auto lhsType = cast<MemRefType>(lhs.getType());
  auto rhsType = cast<MemRefType>(rhs.getType());
  auto outType = cast<MemRefType>(out.getType());
  Type element = lhsType.getElementType();
  if (lhsType.getRank() != 2 || rhsType.getRank() != 2 ||
      outType.getRank() != 2 || !isa<Float16Type, BFloat16Type>(element) ||
      rhsType.getElementType() != element ||
      (outType.getElementType() != element &&
       !outType.getElementType().isF32()))
    return std::nullopt;
  if (!lhsType.hasStaticShape() || !rhsType.hasStaticShape())
    return std::nullopt;
  int64_t rows = lhsType.getDimSize(0), depth = lhsType.getDimSize(1);
  int64_t columns = rhsType.getDimSize(1);
  if (rows > kGemvMaxRows || depth % kGemvGroup != 0 ||
      columns * depth < kGemvMinWeightElements)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> lhsStrides = stridesAtOffsetZero(lhs);
  std::optional<SmallVector<int64_t>> rhsStrides = stridesAtOffsetZero(rhs);
  if (!lhsStrides || !rhsStrides || (*lhsStrides)[1] != 1 ||
      (rows > 1 && (ShapedType::isDynamic((*lhsStrides)[0]) ||
                    (*lhsStrides)[0] % kGemvGroup != 0)) ||
      (*rhsStrides)[0] != 1 || (*rhsStrides)[1] != depth)
    return std::nullopt;
  Value weight;
  if (auto transpose = rhs.getDefiningOp<memref::TransposeOp>())
    weight = transpose.getIn();
  else
    weight = memref::TransposeOp::create(
        b, loc, rhs,
        AffineMapAttr::get(AffineMap::getPermutationMap(
            ArrayRef<unsigned>{1, 0}, b.getContext())));
  return GemvOperands{lhs, weight, out, rows, columns, depth, nullptr, {}};
}

/// The GEMV kernel: `split` warps per output column n (gemvWarpsPerColumn;
/// 8 warps per block of 256 threads), each warp a slice of K, each lane
/// loading 8 elements of W[n, :] at a time and the matching 8 of each row of
/// A (A is small: it stays in L1 and L2), accumulating a partial dot per row
/// in f32; the warp sums the partials by xor shuffles, and with one warp per
/// column its lane 0 writes out[m, n], rounded once to the product's type;
/// with several, each warp's sums meet in shared memory and the column's
/// first warp adds them in order. With `vectorized` the groups of 8 are
/// 16-byte vector loads (rows 16-byte aligned), else element loads. Each
/// step a lane issues the loads of `unroll` groups before their arithmetic,
/// for more bytes in flight per warp.
void buildGemvKernel(OpBuilder &b, Location loc, const GemvOperands &gemv,
                     bool vectorized) {
  rlx::KernelBuilder host{b, loc};
  int64_t groups = gemv.depth / kGemvGroup;
  int64_t split = gemvWarpsPerColumn(gemv.columns, groups);
  int64_t columnsPerBlock = kGemvWarps / split;
  Value blocks = host.index(llvm::divideCeil(gemv.columns, columnsPerBlock));
  OpBuilder::InsertionGuard guard(b);
  SmallVector<MemRefType> shared;
  if (split > 1)
    shared.push_back(rlx::workgroupBufferType(
        b.getContext(), {kGemvWarps, gemv.rows}, b.getF32Type()));
  auto launch = rlx::createGuardedLaunch(
      b, loc, blocks, kGemvWarps * rlx::kWarpThreads, shared);
  rlx::KernelBuilder k{b, loc};
  Value warp = k.div(launch.getThreadIds().x, k.index(rlx::kWarpThreads));
  Value lane = k.rem(launch.getThreadIds().x, k.index(rlx::kWarpThreads));
  Value column = k.add(k.mul(launch.getBlockIds().x, k.index(columnsPerBlock)),
                       k.div(warp, k.index(split)));
  Value part = k.rem(warp, k.index(split));
  Value inRange =
      k.cmp(arith::CmpIPredicate::ult, column, k.index(gemv.columns));
  Value isLeader = k.cmp(arith::CmpIPredicate::eq, lane, k.index(0));
  // The warps of the last block past the columns skip the loads (a
  // barrier follows when columns are split, which every warp reaches).
  auto inColumns = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPointToStart(inColumns.thenBlock());

  Type element = cast<MemRefType>(gemv.lhs.getType()).getElementType();
  auto vectorType = VectorType::get({kGemvGroup}, element);
  // The 8 elements of `buffer`'s row `row` from element `first` on, as f32.
  auto loadGroup = [&](Value buffer, Value row, Value first) {
    SmallVector<Value> elements;
    if (!vectorized) {
      for (int64_t i = 0; i < kGemvGroup; ++i)
        elements.push_back(k.toF32(memref::LoadOp::create(
            b, loc, buffer, ValueRange{row, k.add(first, k.index(i))})));
      return elements;
    }
    auto load = vector::LoadOp::create(b, loc, vectorType, buffer,
                                       ValueRange{row, first});
    load.setAlignment(16);
    for (int64_t i = 0; i < kGemvGroup; ++i)
      elements.push_back(
          k.toF32(vector::ExtractOp::create(b, loc, load.getResult(), i)));
    return elements;
  };
  // This warp's slice of the groups: [sliceBegin, sliceBegin + slice).
  int64_t slice = groups / split;
  Value sliceBegin = k.mul(part, k.index(slice));
  // Folds the groups `sliceBegin + g + lane + u * 32` (u < `unroll`) into
  // `partials`, for g from `begin` below `end` in steps of `unroll` * 32.
  auto sweep = [&](SmallVector<Value> partials, int64_t begin, int64_t end,
                   int64_t unroll) {
    if (begin >= end)
      return partials;
    auto loop = scf::ForOp::create(
        b, loc, k.add(k.add(sliceBegin, lane), k.index(begin)),
        k.add(sliceBegin, k.index(end)), k.index(unroll * rlx::kWarpThreads),
        partials, [&](OpBuilder &, Location, Value group, ValueRange state) {
          SmallVector<Value> sums(state);
          // Every load of the step first, then the products.
          SmallVector<SmallVector<Value>> weights;
          SmallVector<SmallVector<SmallVector<Value>>> inputs;
          for (int64_t u = 0; u < unroll; ++u) {
            Value first = k.mul(k.add(group, k.index(u * rlx::kWarpThreads)),
                                k.index(kGemvGroup));
            weights.push_back(loadGroup(gemv.weight, column, first));
            inputs.emplace_back();
            for (int64_t m = 0; m < gemv.rows; ++m)
              inputs.back().push_back(loadGroup(gemv.lhs, k.index(m), first));
          }
          for (int64_t u = 0; u < unroll; ++u)
            for (int64_t m = 0; m < gemv.rows; ++m)
              for (int64_t i = 0; i < kGemvGroup; ++i)
                sums[m] = math::FmaOp::create(b, loc, inputs[u][m][i],
                                              weights[u][i], sums[m]);
          scf::YieldOp::create(b, loc, sums);
        });
    return SmallVector<Value>(loop.getResults());
  };
  // Fewer groups in flight per step for more rows (their loads and
  // accumulators take registers too).
  int64_t unroll = gemv.rows <= 2 ? 4 : gemv.rows <= 4 ? 2 : 1;
  int64_t unrolledEnd =
      slice / (unroll * rlx::kWarpThreads) * unroll * rlx::kWarpThreads;
  SmallVector<Value> partials(gemv.rows, k.f32(0));
  partials = sweep(partials, 0, unrolledEnd, unroll);
  partials = sweep(partials, unrolledEnd, slice, 1);
  SmallVector<Value> dots =
      k.xorReduce(partials, rlx::KernelBuilder::kWarpOffsets,
                  [&](ArrayRef<Value> x, ArrayRef<Value> y) {
                    SmallVector<Value> sums;
                    for (auto [a, c] : llvm::zip_equal(x, y))
                      sums.push_back(k.add(a, c));
                    return sums;
                  });
  Type outElement = cast<MemRefType>(gemv.out.getType()).getElementType();
  // Writes out[m, column], rounded once to the product's type; with an
  // epilogue, its result at (m, column) instead, from that product.
  auto store = [&](int64_t m, Value dot) {
    if (!outElement.isF32())
      dot = arith::TruncFOp::create(b, loc, outElement, dot);
    SmallVector<Value> at = {k.index(m), column};
    if (!gemv.epilogue) {
      memref::StoreOp::create(b, loc, dot, gemv.out, at);
      return;
    }
    IRMapping mapping;
    Block *body = &gemv.epilogue->getRegion(0).front();
    for (auto [argument, view] :
         llvm::zip_equal(body->getArguments().drop_back(),
                         ArrayRef(gemv.epilogueViews).drop_back()))
      mapping.map(argument,
                  view ? memref::LoadOp::create(b, loc, view, at).getResult()
                       : dot);
    for (Operation &op : body->without_terminator())
      b.clone(op, mapping);
    Value result = mapping.lookup(body->getTerminator()->getOperand(0));
    memref::StoreOp::create(b, loc, result, gemv.epilogueViews.back(), at);
  };
  auto leader = scf::IfOp::create(b, loc, isLeader, /*withElseRegion=*/false);
  b.setInsertionPointToStart(leader.thenBlock());
  if (split == 1) {
    for (auto [m, dot] : llvm::enumerate(dots))
      store(m, dot);
    return;
  }
  // Each warp's sums into shared memory; after the barrier, which every
  // warp of the block reaches, lane 0 of the column's first warp adds its
  // column's sums in order.
  Value sums = launch.getWorkgroupAttributions()[0];
  for (auto [m, dot] : llvm::enumerate(dots))
    memref::StoreOp::create(b, loc, dot, sums, ValueRange{warp, k.index(m)});
  b.setInsertionPointAfter(inColumns);
  gpu::BarrierOp::create(b, loc);
  Value writes = arith::AndIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, inRange,
                            k.cmp(arith::CmpIPredicate::eq, part, k.index(0))),
      isLeader);
  auto writer = scf::IfOp::create(b, loc, writes, /*withElseRegion=*/false);
  b.setInsertionPointToStart(writer.thenBlock());
  for (int64_t m = 0; m < gemv.rows; ++m) {
    Value dot =
        memref::LoadOp::create(b, loc, sums, ValueRange{warp, k.index(m)});
    for (int64_t other = 1; other < split; ++other)
      dot =
          k.add(dot, memref::LoadOp::create(
                         b, loc, sums,
                         ValueRange{k.add(warp, k.index(other)), k.index(m)}));
    store(m, dot);
  }
}

/// Erases the reshapes of `buffer` that nothing uses, and its
/// deallocation when nothing but that and the GEMM is left.
void eraseUnusedViews(Value buffer) {
  for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
      eraseUnusedViews(user->getResult(0));
      if (user->use_empty())
        user->erase();
    }
  // An allocation only freed: it goes with its deallocation.
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || !llvm::all_of(buffer.getUsers(), [](Operation *user) {
        return isa<memref::DeallocOp>(user);
      }))
    return;
  for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
    user->erase();
  alloc->erase();
}

/// The GEMV for `gemv` at `b`: the vectorized kernel when every row of A
/// and W starts 16-byte aligned at run time (always so in buffers the
/// runtime allocates; a caller's device buffer need not be), else the same
/// kernel with element loads.
void createGemv(OpBuilder &b, Location loc, const GemvOperands &gemv) {
  auto choice = scf::IfOp::create(
      b, loc, rlx::rowsAligned(b, loc, {gemv.lhs, gemv.weight}, 16),
      /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(choice.thenBlock());
  buildGemvKernel(b, loc, gemv, /*vectorized=*/true);
  b.setInsertionPointToStart(choice.elseBlock());
  buildGemvKernel(b, loc, gemv, /*vectorized=*/false);
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
    if (!batched && zeroInit) {
      if (std::optional<GemvOperands> gemv = matchGemv(
              b, op.getLoc(), operands[0], operands[1], operands[2])) {
        if (linalg::GenericOp epilogue =
                gemvEpilogue(op, operands[2], dominance)) {
          gemv->epilogue = epilogue;
          for (Value operand : epilogue->getOperands()) {
            Value root = rlx::viewRoot(operand);
            gemv->epilogueViews.push_back(
                root == operands[2] ? Value()
                                    : viewAsMatrix(b, op.getLoc(), root,
                                                   gemv->rows, gemv->columns));
          }
        }
        createGemv(b, op.getLoc(), *gemv);
        if (gemv->epilogue) {
          // The product is never written: the op, the views of the product
          // and its deallocation go.
          gemv->epilogue->erase();
          eraseUnusedViews(operands[2]);
        }
        for (unsigned i : {0u, 1u})
          if (operands[i] != op->getOperand(i) && operands[i].use_empty())
            operands[i].getDefiningOp()->erase();
        eraseGemm();
        return;
      }
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
