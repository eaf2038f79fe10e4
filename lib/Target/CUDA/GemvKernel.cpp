//===- GemvKernel.cpp - a few rows times a weight, a warp per column -----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Decoding a language model multiplies one row (or a few) by every weight
// matrix, read transposed (a Linear weight W [N, K] is stored row-major).
// cuBLAS reads the weights of such products at well under the device's
// bandwidth (1.6-1.9 TB/s of 4.2 on an H200), and the product is bound by
// that read alone. The GEMV kernel below gives each output column n a warp
// that streams W[n, :] in 16-byte loads (a warp reads 512 contiguous bytes
// per step), so the weights are read once, in long coalesced runs.
//
// The same kernel reads GGUF-packed weights (rlx_cuda.quant_gemv, formed
// from rlx.dequant_matmul): a lane takes a pair of blocks at a time (64
// elements in 36 bytes for Q4_0, 68 for Q8_0: whole 4-byte words), decodes
// them in registers and scales each block's dot by its `d`. The generic
// lowering instead decodes the whole weight to f32 on every call and
// multiplies that: five times the bytes of a Q4_0 weight written, then
// read again.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "KernelOps.h"

#include "rlx/Dialect/RLX/IR/GgufBlock.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Target/CUDA/RLXCUDADialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::rlx;

bool rlx::touchesBuffer(Operation *op, Value root) {
  WalkResult result = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (isa<MemRefType>(operand.getType()) && rlx::viewRoot(operand) == root)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

namespace {

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
  /// The GGUF scheme of a packed weight (`weight` its i8 bytes, N rows of
  /// K elements), or none for an f16/bf16 `weight` [N, K].
  std::optional<QuantScheme> scheme;
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

/// Whether `op` (or an op nested in it) writes a view of `root`: as an init
/// of a destination-style op, the target of a copy, or any other op touching
/// it that is not a view, a read or a deallocation.
bool writesBuffer(Operation *op, Value root) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (isa<ViewLikeOpInterface, memref::LoadOp, memref::DeallocOp,
            vector::LoadOp>(nested))
      return WalkResult::advance();
    if (auto copy = dyn_cast<memref::CopyOp>(nested))
      return rlx::viewRoot(copy.getTarget()) == root ? WalkResult::interrupt()
                                                     : WalkResult::advance();
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(nested)) {
      for (Value init : dps.getDpsInits())
        if (isa<MemRefType>(init.getType()) && rlx::viewRoot(init) == root)
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    for (Value operand : nested->getOperands())
      if (isa<MemRefType>(operand.getType()) && rlx::viewRoot(operand) == root)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `use` is a write of every element its op touches that reads
/// none of them first: a copy's target, the init of a linalg op whose body
/// does not read it, or of a kernel op (which never reads its inits).
bool overwrites(OpOperand &use) {
  Operation *op = use.getOwner();
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return use.get() == copy.getTarget();
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgOp.isDpsInit(&use) &&
           !linalgOp.payloadUsesValueFromOperand(&use);
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  return dps && isa<cuda::RLXCUDADialect>(op->getDialect()) &&
         dps.isDpsInit(&use);
}

/// The elementwise op that the GEMV writing `product` ([M, N]) can compute
/// in its place: the product's one reader, directly or through reshapes, a
/// linalg.generic of identity maps and parallel loops over M * N points (a
/// residual add, the activations fused into it) whose operands are static
/// contiguous buffers of that many elements, which does not read its
/// output, placed after `gemm` in its block with nothing between touching
/// its operands, and whose other operands exist at `gemm` (an allocation
/// of its output just before it moves up). The kernel then stores the op's
/// result instead of the product, which is never written: for a decode
/// step's projections that is the residual add's kernel gone. Bufferization
/// may give the products of several GEMMs one buffer, one after another:
/// only the users between `gemm` and the next op writing the buffer read
/// this product.
linalg::GenericOp gemvEpilogue(Operation *gemm, Value product,
                               DominanceInfo &dominance) {
  auto alloc = product.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return nullptr;
  auto productType = cast<MemRefType>(product.getType());
  int64_t points = productType.getNumElements();
  Block *block = gemm->getBlock();
  Operation *nextWrite = gemm->getNextNode();
  while (nextWrite && !writesBuffer(nextWrite, product))
    nextWrite = nextWrite->getNextNode();
  linalg::GenericOp reader;
  SmallVector<Value> pending = {product};
  while (!pending.empty()) {
    Value view = pending.pop_back_val();
    for (OpOperand &use : view.getUses()) {
      Operation *user = use.getOwner();
      if (user == gemm || isa<memref::DeallocOp>(user) ||
          (user == nextWrite && overwrites(use)))
        continue;
      // A view is followed wherever it is: its users are sorted out below.
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
        pending.push_back(user->getResult(0));
        continue;
      }
      // Users of the buffer's other products (before `gemm`, or after the
      // next write) are not this product's readers. The next write itself
      // may read this product too (an op in place).
      Operation *at = block->findAncestorOpInBlock(*user);
      if (at && (at->isBeforeInBlock(gemm) ||
                 (nextWrite && nextWrite->isBeforeInBlock(at))))
        continue;
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
      rlx::viewRoot(reader.getDpsInits()[0]) == product ||
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
        !dominance.properlyDominates(root, gemm))
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
  return GemvOperands{lhs,   weight,       out,     rows, columns,
                      depth, std::nullopt, nullptr, {}};
}

/// Elements of A and W a lane takes per step from a GGUF weight: a pair of
/// 32-element blocks, whose bytes are whole 4-byte words (36 for Q4_0, 68
/// for Q8_0) when K is a multiple of 64.
constexpr int64_t kQuantGroup = 64;
/// The most bytes of A that a block of the packed-weight kernel copies
/// into shared memory (see buildGemvKernel).
constexpr int64_t kStagedRowsBytes = 32 * 1024;

/// The f32 value 2^23 + byte, exactly, of `bytes`'s byte `index` (0-3):
/// the byte placed in the mantissa of 2^23 (bits 0x4B000000) by one byte
/// permute, where shifting and masking it out would take two integer
/// instructions (integer instructions issue at half the float rate, and
/// decoding is what bounds the kernel).
Value magicFloatOfByte(KernelBuilder &k, Value bytes, int64_t index) {
  OpBuilder &b = k.b;
  // Result bytes, low to high: `bytes`'s byte `index`, then bytes 4, 4 and
  // 7 of the pool, which are 0x4B000000's (0, 0, 0x4B).
  Value bits = NVVM::PermuteOp::create(
      b, k.loc, b.getI32Type(), bytes, k.i32(0x4B000000), k.i32(0x7440 | index),
      NVVM::PermuteModeAttr::get(b.getContext(), NVVM::PermuteMode::DEFAULT));
  return arith::BitcastOp::create(b, k.loc, b.getF32Type(), bits);
}

/// Block `block` (0 or 1) of a pair of GGUF blocks held in `words` (the
/// pair's bytes as little-endian 4-byte words): its scale `d` (f16,
/// widened) and its 32 quantized values as f32 (exact small integers), in
/// element order.
std::pair<Value, SmallVector<Value>> decodeBlock(KernelBuilder &k,
                                                 QuantScheme scheme,
                                                 ArrayRef<Value> words,
                                                 int64_t block) {
  OpBuilder &b = k.b;
  int64_t start = block * ggufBlock(scheme)->bytes;
  // `d` is the block's first two bytes: at byte 0 or 2 of a word (blocks
  // are 18 or 34 bytes), so never split between words.
  Value word = words[start / 4];
  if (start % 4)
    word = arith::ShRUIOp::create(b, k.loc, word, k.i32(8 * (start % 4)));
  Value bits = arith::TruncIOp::create(b, k.loc, b.getI16Type(), word);
  Value d = k.toF32(arith::BitcastOp::create(b, k.loc, b.getF16Type(), bits));
  // Each word of quants is masked (Q4_0: low and high nibbles apart) or
  // offset (Q8_0) once for its four bytes.
  DenseMap<int64_t, std::pair<Value, Value>> prepared;
  auto preparedWord = [&](int64_t index) {
    auto [it, inserted] = prepared.try_emplace(index);
    if (!inserted)
      return it->second;
    Value w = words[index];
    if (scheme == QuantScheme::GgufQ4_0) {
      Value nibbles = k.i32(0x0F0F0F0F);
      Value high = arith::ShRUIOp::create(b, k.loc, w, k.i32(4));
      it->second = {arith::AndIOp::create(b, k.loc, w, nibbles),
                    arith::AndIOp::create(b, k.loc, high, nibbles)};
    } else {
      // Flipping each byte's sign bit gives its value plus 128.
      it->second = {arith::XOrIOp::create(
                        b, k.loc, w, k.i32(static_cast<int32_t>(0x80808080))),
                    Value()};
    }
    return it->second;
  };
  auto minus = [&](Value x, double bias) {
    return arith::SubFOp::create(b, k.loc, x, k.f32(8388608.0 + bias))
        .getResult();
  };
  SmallVector<Value> values(32);
  for (int64_t j = 0; j < 16 && scheme == QuantScheme::GgufQ4_0; ++j) {
    // Q4_0: byte j of the quants holds element j in its low nibble and
    // element j + 16 in its high one, each 8 above its value.
    int64_t byte = start + 2 + j;
    auto [low, high] = preparedWord(byte / 4);
    values[j] = minus(magicFloatOfByte(k, low, byte % 4), 8);
    values[j + 16] = minus(magicFloatOfByte(k, high, byte % 4), 8);
  }
  for (int64_t j = 0; j < 32 && scheme == QuantScheme::GgufQ8_0; ++j) {
    int64_t byte = start + 2 + j;
    values[j] =
        minus(magicFloatOfByte(k, preparedWord(byte / 4).first, byte % 4), 128);
  }
  return {d, values};
}

/// The GEMV kernel: `split` warps per output column n (gemvWarpsPerColumn;
/// 8 warps per block of 256 threads), each warp a slice of K, each lane
/// loading a group of W[n, :] at a time (8 f16/bf16 elements, or a pair
/// of GGUF blocks) and the matching elements of each row of A (A is small:
/// it stays in L1 and L2), accumulating a partial dot per row in f32; the
/// warp sums the partials by xor shuffles, and with one warp per column
/// its lane 0 writes out[m, n], rounded once to the product's type; with
/// several, each warp's sums meet in shared memory and the column's first
/// warp adds them in order. With `vectorized` the loads of A are 16-byte
/// vector loads (rows 16-byte aligned) and so are those of a half weight,
/// a packed weight is read in 4-byte words (`words`, its bytes viewed as
/// i32); else every load is of one element or byte. Each step a lane
/// issues the loads of `unroll` groups before their arithmetic, for more
/// bytes in flight per warp.
///
/// A lane of the packed-weight kernel reads 64 consecutive elements of each
/// row of A per step, so a warp's loads of A are 128 bytes apart: each
/// 16-byte load of the warp touches 32 cache lines, and those loads, not
/// the weight, bounded the kernel (an H200 read Q4_0 weights at 0.9 TB/s).
/// When A is at most kStagedRowsBytes, the block first copies it into
/// shared memory with coalesced loads, each pair's eight or sixteen
/// 16-byte chunks placed in an order that the pair's index modulo 8 xors
/// (chunk c of pair p at p * chunks + (c ^ p % 8)): the eight lanes that
/// one shared-memory access serves then read distinct banks.
void buildGemvKernel(OpBuilder &b, Location loc, const GemvOperands &gemv,
                     bool vectorized, Value words) {
  rlx::KernelBuilder host{b, loc};
  int64_t groupElements = gemv.scheme ? kQuantGroup : kGemvGroup;
  int64_t groups = gemv.depth / groupElements;
  int64_t split = gemvWarpsPerColumn(gemv.columns, groups);
  int64_t columnsPerBlock = kGemvWarps / split;
  Value blocks = host.index(llvm::divideCeil(gemv.columns, columnsPerBlock));
  OpBuilder::InsertionGuard guard(b);
  Type inputElement = cast<MemRefType>(gemv.lhs.getType()).getElementType();
  int64_t inputBytes = inputElement.getIntOrFloatBitWidth() / 8;
  bool staged = gemv.scheme && vectorized &&
                gemv.rows * gemv.depth * inputBytes <= kStagedRowsBytes;
  // The shared buffers: the warps' sums when columns are split, and the
  // staged copy of A, which is read in 16-byte loads and so is in dynamic
  // shared memory, whose tiles start 128-byte aligned (a static workgroup
  // buffer of bf16 need only be 2-byte aligned). A kernel keeps all its
  // buffers static or all dynamic (sharedTilesInDynamicMemory).
  SmallVector<MemRefType> shared;
  if (staged)
    shared.push_back(rlx::workgroupBufferType(
        b.getContext(), {gemv.rows, gemv.depth}, inputElement));
  if (split > 1)
    shared.push_back(rlx::workgroupBufferType(
        b.getContext(), {kGemvWarps, gemv.rows}, b.getF32Type()));
  auto launch = rlx::createGuardedLaunch(
      b, loc, blocks, kGemvWarps * rlx::kWarpThreads,
      staged ? ArrayRef<MemRefType>() : ArrayRef<MemRefType>(shared),
      staged ? rlx::dynamicSharedBytes(shared) : 0);
  SmallVector<Value> buffers =
      staged ? rlx::sharedTilesInDynamicMemory(b, loc, shared)
             : SmallVector<Value>(launch.getWorkgroupAttributions());
  Value stagedRows = staged ? buffers.front() : Value();
  Value sums = split > 1 ? buffers.back() : Value();
  rlx::KernelBuilder k{b, loc};
  // 16-byte chunks of A per pair of blocks, and where chunk `c` of pair
  // `pair` is staged.
  int64_t chunkElements = 16 / inputBytes;
  int64_t pairChunks = kQuantGroup / chunkElements;
  auto stagedChunk = [&](Value pair, Value c) {
    Value rotation = k.rem(pair, k.index(8));
    Value within = arith::XOrIOp::create(b, loc, c, rotation);
    return k.add(k.mul(pair, k.index(pairChunks)), within);
  };
  if (staged) {
    // Every thread copies chunks of A, consecutive threads consecutive
    // chunks; the barrier is before any warp leaves for its columns.
    int64_t rowChunks = gemv.depth / chunkElements;
    auto vectorType = VectorType::get({chunkElements}, inputElement);
    scf::ForOp::create(
        b, loc, launch.getThreadIds().x, k.index(gemv.rows * rowChunks),
        k.index(kGemvWarps * rlx::kWarpThreads), ValueRange{},
        [&](OpBuilder &, Location, Value index, ValueRange) {
          Value row = k.div(index, k.index(rowChunks));
          Value chunk = k.rem(index, k.index(rowChunks));
          auto load = vector::LoadOp::create(
              b, loc, vectorType, gemv.lhs,
              ValueRange{row, k.mul(chunk, k.index(chunkElements))});
          load.setAlignment(16);
          Value at = stagedChunk(k.div(chunk, k.index(pairChunks)),
                                 k.rem(chunk, k.index(pairChunks)));
          auto store = vector::StoreOp::create(
              b, loc, load, stagedRows,
              ValueRange{row, k.mul(at, k.index(chunkElements))});
          store.setAlignment(16);
          scf::YieldOp::create(b, loc);
        });
    gpu::BarrierOp::create(b, loc);
  }
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

  // The elements of a 16-byte vector as f32.
  auto widenChunk = [&](Value chunk) {
    auto type = cast<VectorType>(chunk.getType());
    SmallVector<Value> elements;
    if (!type.getElementType().isBF16()) {
      for (int64_t i = 0; i < type.getNumElements(); ++i)
        elements.push_back(
            k.toF32(vector::ExtractOp::create(b, loc, chunk, i)));
      return elements;
    }
    // A bf16 is the high half of its f32: from each word of two, the low
    // one shifted up and the high one masked, one integer instruction each
    // (a widening per element takes two).
    Value words = vector::BitCastOp::create(
        b, loc, VectorType::get({type.getNumElements() / 2}, b.getI32Type()),
        chunk);
    for (int64_t i = 0; i < type.getNumElements() / 2; ++i) {
      Value word = vector::ExtractOp::create(b, loc, words, i);
      for (Value bits :
           {arith::ShLIOp::create(b, loc, word, k.i32(16)).getResult(),
            arith::AndIOp::create(b, loc, word,
                                  k.i32(static_cast<int32_t>(0xFFFF0000)))
                .getResult()})
        elements.push_back(
            arith::BitcastOp::create(b, loc, b.getF32Type(), bits));
    }
    return elements;
  };
  // `count` elements of `buffer`'s row `row` from element `first` on, as
  // f32: 16-byte vector loads when vectorized.
  auto loadElements = [&](Value buffer, Value row, Value first, int64_t count) {
    Type element = cast<MemRefType>(buffer.getType()).getElementType();
    SmallVector<Value> elements;
    if (!vectorized) {
      for (int64_t i = 0; i < count; ++i)
        elements.push_back(k.toF32(memref::LoadOp::create(
            b, loc, buffer, ValueRange{row, k.add(first, k.index(i))})));
      return elements;
    }
    int64_t width = 128 / element.getIntOrFloatBitWidth();
    auto vectorType = VectorType::get({width}, element);
    for (int64_t at = 0; at < count; at += width) {
      auto load =
          vector::LoadOp::create(b, loc, vectorType, buffer,
                                 ValueRange{row, k.add(first, k.index(at))});
      load.setAlignment(16);
      llvm::append_range(elements, widenChunk(load));
    }
    return elements;
  };
  // Row `m`'s elements of pair `pair` from the staged copy of A, as f32.
  auto loadStaged = [&](int64_t m, Value pair) {
    auto vectorType = VectorType::get({chunkElements}, inputElement);
    SmallVector<Value> elements;
    for (int64_t c = 0; c < pairChunks; ++c) {
      Value at = k.mul(stagedChunk(pair, k.index(c)), k.index(chunkElements));
      auto load = vector::LoadOp::create(b, loc, vectorType, stagedRows,
                                         ValueRange{k.index(m), at});
      load.setAlignment(16);
      llvm::append_range(elements, widenChunk(load));
    }
    return elements;
  };
  // A packed weight's pair of blocks `group` of row `column`: its words.
  int64_t pairBytes = gemv.scheme ? 2 * ggufBlock(*gemv.scheme)->bytes : 0;
  int64_t rowBytes = groups * pairBytes;
  auto loadWords = [&](Value group) {
    Value firstByte = k.add(k.mul(column, k.index(rowBytes)),
                            k.mul(group, k.index(pairBytes)));
    SmallVector<Value> pair;
    for (int64_t w = 0; w < pairBytes / 4; ++w) {
      if (vectorized) {
        Value at = k.add(k.div(firstByte, k.index(4)), k.index(w));
        pair.push_back(memref::LoadOp::create(b, loc, words, at));
        continue;
      }
      // Little-endian bytes into a word.
      Value word = k.i32(0);
      for (int64_t i = 0; i < 4; ++i) {
        Value byte = memref::LoadOp::create(
            b, loc, gemv.weight, k.add(firstByte, k.index(4 * w + i)));
        Value wide = arith::ExtUIOp::create(b, loc, b.getI32Type(), byte);
        if (i > 0)
          wide = arith::ShLIOp::create(b, loc, wide, k.i32(8 * i));
        word = arith::OrIOp::create(b, loc, word, wide);
      }
      pair.push_back(word);
    }
    return pair;
  };
  // Folds the group's loaded weight `loaded` with the group's elements of
  // each row of A (`inputs`) into `sums`.
  auto accumulate = [&](ArrayRef<Value> loaded,
                        ArrayRef<SmallVector<Value>> inputs,
                        MutableArrayRef<Value> sums) {
    if (!gemv.scheme) {
      for (int64_t m = 0; m < gemv.rows; ++m)
        for (int64_t i = 0; i < kGemvGroup; ++i)
          sums[m] =
              math::FmaOp::create(b, loc, inputs[m][i], loaded[i], sums[m]);
      return;
    }
    for (int64_t block = 0; block < 2; ++block) {
      auto [d, values] = decodeBlock(k, *gemv.scheme, loaded, block);
      for (int64_t m = 0; m < gemv.rows; ++m) {
        // Four chains of eight products, for fewer dependent FMAs in a row.
        SmallVector<Value> chains;
        for (int64_t chain = 0; chain < 4; ++chain) {
          Value dot;
          for (int64_t j = 8 * chain; j < 8 * chain + 8; ++j) {
            Value x = inputs[m][32 * block + j];
            dot =
                dot ? math::FmaOp::create(b, loc, x, values[j], dot).getResult()
                    : arith::MulFOp::create(b, loc, x, values[j]).getResult();
          }
          chains.push_back(dot);
        }
        Value dot =
            k.add(k.add(chains[0], chains[1]), k.add(chains[2], chains[3]));
        sums[m] = math::FmaOp::create(b, loc, d, dot, sums[m]);
      }
    }
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
            Value index = k.add(group, k.index(u * rlx::kWarpThreads));
            Value first = k.mul(index, k.index(groupElements));
            weights.push_back(gemv.scheme ? loadWords(index)
                                          : loadElements(gemv.weight, column,
                                                         first, kGemvGroup));
            inputs.emplace_back();
            for (int64_t m = 0; m < gemv.rows; ++m)
              inputs.back().push_back(staged
                                          ? loadStaged(m, index)
                                          : loadElements(gemv.lhs, k.index(m),
                                                         first, groupElements));
          }
          for (int64_t u = 0; u < unroll; ++u)
            accumulate(weights[u], inputs[u], sums);
          scf::YieldOp::create(b, loc, sums);
        });
    return SmallVector<Value>(loop.getResults());
  };
  // Fewer groups in flight per step for more rows (their loads and
  // accumulators take registers too); a pair of GGUF blocks is already
  // 9 or 17 loads.
  int64_t unroll = gemv.rows <= 2 ? 4 : gemv.rows <= 4 ? 2 : 1;
  if (gemv.scheme)
    unroll = gemv.rows <= 2 ? 2 : 1;
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

/// Whether the kernel for `gemv` may use vector loads of A and word loads
/// of a packed weight once the run-time alignment check passes: A's rows
/// have a unit inner stride and a static outer one that keeps 16-byte
/// rows, a packed weight is a plain byte buffer (which memref.view takes).
bool vectorizable(const GemvOperands &gemv) {
  std::optional<SmallVector<int64_t>> strides = stridesAtOffsetZero(gemv.lhs);
  int64_t bits = cast<MemRefType>(gemv.lhs.getType()).getElementTypeBitWidth();
  if (!strides || (*strides)[1] != 1 ||
      (gemv.rows > 1 && (ShapedType::isDynamic((*strides)[0]) ||
                         (*strides)[0] * bits % 128 != 0)))
    return false;
  return !gemv.scheme ||
         cast<MemRefType>(gemv.weight.getType()).getLayout().isIdentity();
}

/// The GEMV for `gemv` at `b`: the vectorized kernel when every row of A
/// and W starts 16-byte aligned at run time (a packed weight: 4-byte
/// aligned; always so in buffers the runtime allocates, a caller's device
/// buffer need not be), else the same kernel with element loads.
void createGemv(OpBuilder &b, Location loc, const GemvOperands &gemv) {
  if (!vectorizable(gemv)) {
    buildGemvKernel(b, loc, gemv, /*vectorized=*/false, Value());
    return;
  }
  Value aligned = gemv.scheme
                      ? arith::AndIOp::create(
                            b, loc, rlx::rowsAligned(b, loc, gemv.lhs, 16),
                            rlx::rowsAligned(b, loc, gemv.weight, 4))
                            .getResult()
                      : rlx::rowsAligned(b, loc, {gemv.lhs, gemv.weight}, 16);
  auto choice = scf::IfOp::create(b, loc, aligned, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(choice.thenBlock());
  Value words;
  if (gemv.scheme) {
    // The packed bytes as 4-byte words.
    int64_t bytes = cast<MemRefType>(gemv.weight.getType()).getNumElements();
    words = memref::ViewOp::create(
        b, loc, MemRefType::get({bytes / 4}, b.getI32Type()), gemv.weight,
        arith::ConstantIndexOp::create(b, loc, 0), ValueRange{});
  }
  buildGemvKernel(b, loc, gemv, /*vectorized=*/true, words);
  b.setInsertionPointToStart(choice.elseBlock());
  buildGemvKernel(b, loc, gemv, /*vectorized=*/false, Value());
}

/// The kernel for `gemv` at `b`, which replaces `gemm` (erased by the
/// caller), computing the product's one elementwise reader in its place
/// where gemvEpilogue finds one.
void emitGemv(OpBuilder &b, Operation *gemm, GemvOperands gemv,
              DominanceInfo &dominance) {
  Location loc = gemm->getLoc();
  if (linalg::GenericOp epilogue = gemvEpilogue(gemm, gemv.out, dominance)) {
    gemv.epilogue = epilogue;
    for (Value operand : epilogue->getOperands()) {
      Value root = rlx::viewRoot(operand);
      gemv.epilogueViews.push_back(
          root == gemv.out
              ? Value()
              : viewAsMatrix(b, loc, root, gemv.rows, gemv.columns));
    }
  }
  createGemv(b, loc, gemv);
  if (gemv.epilogue) {
    // The product is never written: the op, the views of the product and
    // its deallocation go.
    gemv.epilogue->erase();
    eraseUnusedViews(gemv.out);
  }
}

} // namespace

bool rlx::replaceGemmByGemv(OpBuilder &b, Operation *gemm, Value lhs, Value rhs,
                            Value out, DominanceInfo &dominance) {
  std::optional<GemvOperands> gemv =
      matchGemv(b, gemm->getLoc(), lhs, rhs, out);
  if (!gemv)
    return false;
  emitGemv(b, gemm, *gemv, dominance);
  return true;
}

bool rlx::formQuantGemv(RewriterBase &rewriter, DequantMatMulOp op) {
  QuantScheme scheme = op.getScheme();
  auto xType = op.getX().getType();
  auto bytesType = op.getWQ().getType();
  auto resultType = op.getType();
  if ((scheme != QuantScheme::GgufQ8_0 && scheme != QuantScheme::GgufQ4_0) ||
      !xType.hasStaticShape() || !bytesType.hasStaticShape() ||
      !resultType.hasStaticShape() || xType.getRank() != 2 ||
      xType.getDimSize(0) > cuda::QuantGemvOp::kMaxRows ||
      xType.getDimSize(1) % kQuantGroup != 0)
    return false;
  // A half model casts its activations to f32 around the product: the
  // kernel reads the narrow rows (widening is exact) and writes the
  // product's one cast to a half type (rounding the f32 sum once, as the
  // cast does).
  Value x = op.getX();
  if (auto widening = x.getDefiningOp<CastOp>();
      widening && isa<Float16Type, BFloat16Type>(
                      widening.getInput().getType().getElementType()))
    x = widening.getInput();
  Operation *replaced = op;
  Type outElement = resultType.getElementType();
  if (op->hasOneUse())
    if (auto rounding = dyn_cast<CastOp>(*op->user_begin());
        rounding && isa<Float16Type, BFloat16Type>(rounding.getTo())) {
      replaced = rounding;
      outElement = rounding.getTo();
    }
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  // The kernel reads the bytes as signless i8, what the generic lowering
  // turns ui8 into: this cast lowers to nothing.
  Value bytes = op.getWQ();
  if (!bytesType.getElementType().isSignlessInteger(8))
    bytes = CastOp::create(rewriter, loc, bytes,
                           TypeAttr::get(rewriter.getI8Type()));
  auto initType = resultType.clone(outElement);
  Value init =
      tensor::EmptyOp::create(rewriter, loc, initType.getShape(), outElement);
  auto gemv = cuda::QuantGemvOp::create(rewriter, loc, TypeRange{initType}, x,
                                        bytes, init, op.getSchemeAttr());
  rewriter.replaceOp(replaced, gemv.getResult());
  if (replaced != op.getOperation())
    rewriter.eraseOp(op);
  return true;
}

void rlx::lowerQuantGemv(RewriterBase &rewriter, cuda::QuantGemvOp op,
                         DominanceInfo &dominance) {
  auto x = cast<MemRefType>(op.getX().getType());
  auto init = cast<MemRefType>(op.getInit().getType());
  GemvOperands gemv{op.getX(),
                    op.getWQ(),
                    op.getInit(),
                    x.getDimSize(0),
                    init.getDimSize(1),
                    x.getDimSize(1),
                    op.getScheme(),
                    nullptr,
                    {}};
  rewriter.setInsertionPoint(op);
  emitGemv(rewriter, op, gemv, dominance);
  rewriter.eraseOp(op);
}
