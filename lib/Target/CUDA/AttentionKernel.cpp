//===- AttentionKernel.cpp - fused attention on the GPU -------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.attention as one kernel (rlx_cuda.flash_attention). The generic
// lowering computes the [Sq, Sk] scores, their maxima, exponentials and sums
// as separate kernels over memory; here a block owns a tile of query rows of
// one (batch, head), streams the keys and values through shared memory and
// keeps the running maximum, sum and output rows in registers (online
// softmax), so the scores never leave the chip. Two kernels:
//
// - tensor cores (f16/bf16 with head dims in steps of 16, or f32 in steps
//   of 8; 16-byte aligned buffers): FlashAttention-2 on mma.sync
//   (m16n8k16, or m16n8k8 on TF32: operands split in two TF32 parts for
//   f32 accuracy, or rounded once under allow-tf32), a warp per 16 or 32
//   rows, tiles moved by cp.async while the previous one is computed on;
// - CUDA cores (everything else): a warp per row; lane `j` scores key `j`
//   of a 32-key tile, warp shuffles give the tile's maximum and sum, and the
//   running output row (lane `l` holding columns `l`, `l + 32`, ...) is
//   rescaled by the change of the running maximum before the tile's
//   probabilities are added in.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "KernelOps.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Target/CUDA/RLXCUDADialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rlx;

//===----------------------------------------------------------------------===//
// Forming the kernel op
//===----------------------------------------------------------------------===//

/// Whether `packed` is `split`, a static `[B, S, H, D]`, with its heads
/// side by side: `[B, S, H * D]`.
static bool packsHeads(RankedTensorType packed, RankedTensorType split) {
  return split.hasStaticShape() && split.getRank() == 4 &&
         packed.hasStaticShape() && packed.getRank() == 3 &&
         packed.getDimSize(0) == split.getDimSize(0) &&
         packed.getDimSize(1) == split.getDimSize(1) &&
         packed.getDimSize(2) == split.getDimSize(2) * split.getDimSize(3);
}

/// The `[B, S, H * D]` tensor that `heads`, a `[B, H, S, D]` operand of
/// attention, is split from, when it is `transpose [0, 2, 1, 3]` of
/// `reshape [B, S, H, D]` of one: the packed layout the kernel reads in place.
static Value packedSource(Value heads) {
  auto transpose = heads.getDefiningOp<TransposeOp>();
  if (!transpose || transpose.getPerm() != ArrayRef<int64_t>{0, 2, 1, 3})
    return {};
  auto reshape = transpose.getInput().getDefiningOp<ReshapeOp>();
  if (!reshape)
    return {};
  if (!packsHeads(cast<RankedTensorType>(reshape.getInput().getType()),
                  cast<RankedTensorType>(reshape.getType())))
    return {};
  return reshape.getInput();
}

/// The `[B, kv_heads, S, D]` keys or values that `heads`, a static
/// `[B, H, S, D]` operand of attention, repeats: `reshape [B, H, S, D]` of
/// `expand [B, kv_heads, H / kv_heads, S, D]` of `reshape
/// [B, kv_heads, 1, S, D]` of them (transformers' `repeat_kv`), so that
/// query head h reads head h / (H / kv_heads). Null otherwise.
static Value repeatedHeadsSource(Value heads) {
  auto merge = heads.getDefiningOp<ReshapeOp>();
  if (!merge)
    return {};
  auto expand = merge.getInput().getDefiningOp<ExpandOp>();
  if (!expand)
    return {};
  auto unsqueeze = expand.getInput().getDefiningOp<ReshapeOp>();
  if (!unsqueeze)
    return {};
  auto type = cast<RankedTensorType>(heads.getType());
  auto repeated = cast<RankedTensorType>(expand.getType());
  auto single = cast<RankedTensorType>(unsqueeze.getType());
  auto source = cast<RankedTensorType>(unsqueeze.getInput().getType());
  if (!type.hasStaticShape() || !source.hasStaticShape() ||
      type.getRank() != 4 || source.getRank() != 4 || repeated.getRank() != 5 ||
      single.getRank() != 5)
    return {};
  int64_t kvHeads = source.getDimSize(1);
  int64_t group = repeated.getDimSize(2);
  SmallVector<int64_t> expectSingle = {source.getDimSize(0), kvHeads, 1,
                                       source.getDimSize(2),
                                       source.getDimSize(3)};
  SmallVector<int64_t> expectRepeated = {source.getDimSize(0), kvHeads, group,
                                         source.getDimSize(2),
                                         source.getDimSize(3)};
  if (single.getShape() != ArrayRef(expectSingle) ||
      repeated.getShape() != ArrayRef(expectRepeated) || group < 1 ||
      type.getDimSize(0) != source.getDimSize(0) ||
      type.getDimSize(1) != kvHeads * group ||
      type.getDimSize(2) != source.getDimSize(2) ||
      type.getDimSize(3) != source.getDimSize(3))
    return {};
  return unsqueeze.getInput();
}

/// Erases the transpose, reshape, narrow and expand chains that split
/// `heads` off their projections or repeat them, where nothing else uses
/// them: the conversion to linalg would make each a copy.
static void eraseUnusedSplits(RewriterBase &rewriter, ArrayRef<Value> heads) {
  // Once each: the query, key and value may be one value.
  for (Value value : llvm::SetVector<Value>(heads.begin(), heads.end())) {
    while (Operation *producer = value.getDefiningOp()) {
      if (!isa<TransposeOp, ReshapeOp, NarrowOp, ExpandOp>(producer) ||
          !producer->use_empty())
        break;
      value = producer->getOperand(0);
      rewriter.eraseOp(producer);
    }
  }
}

/// `packed` itself, or, when it is a narrow of the last dim (the query, key
/// or value columns of a QKV projection), the same slice as a view.
static Value asView(RewriterBase &rewriter, Value packed) {
  auto narrow = packed.getDefiningOp<NarrowOp>();
  auto type = cast<RankedTensorType>(packed.getType());
  if (!narrow || static_cast<int64_t>(narrow.getAxis()) != type.getRank() - 1)
    return packed;
  return narrowAsView(rewriter, narrow);
}

/// The use of attention's `[B, H, S, D]` result that merges the heads back,
/// `reshape [B, S, H * D]` of `transpose [0, 2, 1, 3]`, when it is the
/// result's only use.
static ReshapeOp mergedHeadsUse(Value result) {
  if (!result.hasOneUse())
    return {};
  auto transpose = dyn_cast<TransposeOp>(*result.getUsers().begin());
  if (!transpose || transpose.getPerm() != ArrayRef<int64_t>{0, 2, 1, 3} ||
      !transpose.getResult().hasOneUse())
    return {};
  auto reshape = dyn_cast<ReshapeOp>(*transpose.getResult().getUsers().begin());
  if (!reshape || !packsHeads(cast<RankedTensorType>(reshape.getType()),
                              cast<RankedTensorType>(transpose.getType())))
    return {};
  return reshape;
}

bool rlx::formFlashAttention(RewriterBase &rewriter, AttentionOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  if (!isa<Float32Type, Float16Type, BFloat16Type>(type.getElementType()) ||
      static_cast<int64_t>(op.getHeadDim()) >
          cuda::FlashAttentionOp::kMaxHeadDim ||
      !isa<func::FuncOp>(op->getParentOp()))
    return false;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  float scale =
      op.getScoreScale()
          ? op.getScoreScale()->convertToFloat()
          : static_cast<float>(1.0 /
                               std::sqrt(static_cast<double>(op.getHeadDim())));
  // Heads split off a packed projection (a transposed copy each) are read
  // from the projection in place: the kernel takes [B, S, H * D] rows at any
  // row stride, so a narrow of a fused QKV projection is a view.
  Value query = op.getQuery(), key = op.getKey(), value = op.getValue();
  Value packedQuery = packedSource(query), packedKey = packedSource(key),
        packedValue = packedSource(value);
  bool packed = type.getRank() == 4 && packedQuery && packedKey && packedValue;
  if (packed) {
    query = asView(rewriter, packedQuery);
    key = asView(rewriter, packedKey);
    value = asView(rewriter, packedValue);
  }
  // Keys and values repeated per query head (grouped-query attention) are
  // read unrepeated: the kernel maps each query head to its key head.
  IntegerAttr kvHeads;
  Value sharedKey = repeatedHeadsSource(key),
        sharedValue = repeatedHeadsSource(value);
  if (!packed && sharedKey && sharedValue &&
      sharedKey.getType() == sharedValue.getType()) {
    key = sharedKey;
    value = sharedValue;
    kvHeads = rewriter.getI64IntegerAttr(
        cast<RankedTensorType>(key.getType()).getDimSize(1));
  }
  Value init = createEmptyLike(rewriter, loc, query);
  auto fused = cuda::FlashAttentionOp::create(
      rewriter, loc, TypeRange{init.getType()}, query, key, value, op.getMask(),
      init, op.getNumHeadsAttr(), op.getHeadDimAttr(), op.getMaskKindAttr(),
      op.getWindowAttr(), rewriter.getF32FloatAttr(scale),
      op.getAttnLogitSoftcapAttr(), kvHeads);
  if (!packed) {
    Value repeatedKey = op.getKey(), repeatedValue = op.getValue();
    rewriter.replaceOp(op, fused.getResult());
    if (kvHeads)
      eraseUnusedSplits(rewriter, {repeatedKey, repeatedValue});
    return true;
  }
  SmallVector<Value> splitHeads = {op.getQuery(), op.getKey(), op.getValue()};
  // The packed result is what merging the heads back gives; other users
  // get the heads split off it again.
  if (ReshapeOp merge = mergedHeadsUse(op.getResult())) {
    Operation *transpose = merge.getInput().getDefiningOp();
    rewriter.replaceOp(merge, fused.getResult());
    rewriter.eraseOp(transpose);
    rewriter.eraseOp(op);
    eraseUnusedSplits(rewriter, splitHeads);
    return true;
  }
  auto heads = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> split = {heads.getDimSize(0), heads.getDimSize(2),
                                heads.getDimSize(1), heads.getDimSize(3)};
  Value reshaped = ReshapeOp::create(rewriter, loc, fused->getResult(0),
                                     rewriter.getDenseI64ArrayAttr(split));
  Value transposed = TransposeOp::create(
      rewriter, loc, reshaped, rewriter.getDenseI64ArrayAttr({0, 2, 1, 3}));
  rewriter.replaceOp(op, transposed);
  eraseUnusedSplits(rewriter, splitHeads);
  return true;
}

//===----------------------------------------------------------------------===//
// What both kernels share
//===----------------------------------------------------------------------===//

namespace {

/// The op's operands and attributes, and the sizes the host reads from the
/// buffers.
struct AttentionProblem {
  AttentionProblem(OpBuilder &b, cuda::FlashAttentionOp op) {
    Location loc = op.getLoc();
    query = op.getQuery();
    key = op.getKey();
    value = op.getValue();
    mask = op.getMask();
    out = op.getInit();
    auto queryType = cast<MemRefType>(query.getType());
    elementType = queryType.getElementType();
    packed = queryType.getRank() == 3;
    numHeads = op.getNumHeads();
    if (std::optional<uint64_t> kvHeads = op.getKvHeads())
      kvGroup = numHeads / static_cast<int64_t>(*kvHeads);
    headDim = op.getHeadDim();
    maskKind = op.getMaskKind();
    window = op.getWindow() ? static_cast<int64_t>(*op.getWindow()) : 0;
    scale = op.getScoreScale().convertToDouble();
    if (op.getAttnLogitSoftcap())
      softcap = op.getAttnLogitSoftcap()->convertToDouble();
    unsigned seqDim = packed ? 1 : 2;
    batch = memref::DimOp::create(b, loc, query, 0);
    querySeq = memref::DimOp::create(b, loc, query, seqDim);
    keySeq = memref::DimOp::create(b, loc, key, seqDim);
  }

  Value query, key, value, mask, out;
  Type elementType;
  bool packed;
  int64_t numHeads, headDim;
  /// Query heads per key and value head (grouped-query attention).
  int64_t kvGroup = 1;
  MaskKind maskKind;
  int64_t window;
  double scale;
  std::optional<double> softcap;
  Value batch, querySeq, keySeq;
};

/// What a kernel body knows about its (batch, head) and its rows, and the
/// math both kernels apply to a score.
struct AttentionBlock {
  AttentionBlock(KernelBuilder &k, const AttentionProblem &p, Value batchHead,
                 Value firstRow, int64_t rows)
      : k(k), p(p), firstRow(firstRow) {
    batchIndex = k.div(batchHead, k.index(p.numHeads));
    headIndex = k.rem(batchHead, k.index(p.numHeads));
    kvHeadIndex =
        p.kvGroup == 1 ? headIndex : k.div(headIndex, k.index(p.kvGroup));
    lastQueryRow = k.sub(p.querySeq, k.index(1));
    lastKey = k.sub(p.keySeq, k.index(1));
    // Keys [keyBegin, keyEnd) that some row of the block may see. Causal
    // and sliding-window rows see keys up to `row + Sk - Sq`.
    keyBegin = k.index(0);
    keyEnd = p.keySeq;
    if (p.maskKind == MaskKind::Causal ||
        p.maskKind == MaskKind::SlidingWindow) {
      keyOffset = k.sub(p.keySeq, p.querySeq);
      Value lastRow =
          k.minIndex(k.add(firstRow, k.index(rows - 1)), lastQueryRow);
      keyEnd =
          k.minIndex(p.keySeq, k.add(k.add(lastRow, keyOffset), k.index(1)));
      if (p.maskKind == MaskKind::SlidingWindow)
        keyBegin = k.maxIndex(
            k.index(0), k.sub(k.add(firstRow, keyOffset), k.index(p.window)));
    }
  }

  /// The indices of element (position, column) of the (batch, head) in
  /// `buffer`, one of the op's operands, in the op's layout: the key and
  /// value are read at the head the query head shares.
  SmallVector<Value> indices(Value buffer, Value position, Value column) {
    Value head = buffer == p.key || buffer == p.value ? kvHeadIndex : headIndex;
    if (p.packed)
      return {batchIndex, position,
              k.add(k.mul(head, k.index(p.headDim)), column)};
    return {batchIndex, head, position, column};
  }

  /// Element (position, column) as f32.
  Value load(Value buffer, Value position, Value column) {
    return k.toF32(memref::LoadOp::create(k.b, k.loc, buffer,
                                          indices(buffer, position, column)));
  }

  /// `dot` scaled and soft-capped, times `factor` (the kernels keep scores
  /// in base 2, times log2 e): without a soft cap one multiply.
  Value scaledScore(Value dot, double factor) {
    if (!p.softcap)
      return k.mul(dot, k.f32(p.scale * factor));
    Value cap = k.f32(*p.softcap);
    Value s =
        k.mul(cap, math::TanhOp::create(
                       k.b, k.loc, k.div(k.mul(dot, k.f32(p.scale)), cap)));
    return factor == 1.0 ? s : k.mul(s, k.f32(factor));
  }

  /// The score of query `row` and key `keyIndex` from their dot product:
  /// scaled, soft-capped, biased, or -inf where the key is masked out or
  /// past the block's keys; times `factor`. `row` may be past the last query
  /// row (its result is not stored).
  Value score(Value dot, Value row, Value keyIndex, double factor = 1.0) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    // A bias adds to the scaled score, before the factor.
    bool biased = p.maskKind == MaskKind::Bias;
    Value s = scaledScore(dot, biased ? 1.0 : factor);
    Value clampedKey = k.minIndex(keyIndex, lastKey);
    Value visible = k.cmp(arith::CmpIPredicate::ult, keyIndex, keyEnd);
    auto also = [&](Value condition) {
      visible = arith::AndIOp::create(b, loc, visible, condition);
    };
    switch (p.maskKind) {
    case MaskKind::None:
      break;
    case MaskKind::Causal:
    case MaskKind::SlidingWindow: {
      Value last = k.add(row, keyOffset);
      also(k.cmp(arith::CmpIPredicate::sle, keyIndex, last));
      if (p.maskKind == MaskKind::SlidingWindow)
        also(k.cmp(arith::CmpIPredicate::sge, keyIndex,
                   k.sub(last, k.index(p.window))));
      break;
    }
    case MaskKind::Custom: {
      Value keep = k.toF32(memref::LoadOp::create(
          b, loc, p.mask, ValueRange{batchIndex, clampedKey}));
      also(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, keep,
                                 k.f32(0.5)));
      break;
    }
    case MaskKind::Bias: {
      Value bias = k.toF32(memref::LoadOp::create(
          b, loc, p.mask,
          ValueRange{batchIndex, headIndex, k.minIndex(row, lastQueryRow),
                     clampedKey}));
      s = k.add(s, bias);
      break;
    }
    }
    if (biased && factor != 1.0)
      s = k.mul(s, k.f32(factor));
    return k.select(visible, s,
                    k.f32(-std::numeric_limits<double>::infinity()));
  }

  /// `score` for a key every row of the block sees under no mask or the
  /// causal one (not the custom or bias masks, which apply per key).
  Value unmaskedScore(Value dot, double factor) {
    assert(p.maskKind == MaskKind::None || p.maskKind == MaskKind::Causal);
    return scaledScore(dot, factor);
  }

  KernelBuilder &k;
  const AttentionProblem &p;
  Value firstRow;
  Value batchIndex, headIndex, kvHeadIndex, lastQueryRow, lastKey;
  Value keyBegin, keyEnd, keyOffset;
};

/// A launch of `threads` threads per block, one block per `rows` query rows
/// of each (batch, head) (at least one block: a launch of no rows still
/// has one, which does nothing). The body runs, guarded, in blocks that
/// have rows, with the shared tiles `sharedBuffers` (static workgroup
/// buffers, or views of dynamic shared memory when they take more than the
/// 48 KiB a block may have statically), the block's (batch, head) and first
/// row.
gpu::LaunchOp createAttentionLaunch(
    OpBuilder &b, Location loc, const AttentionProblem &p, int64_t rows,
    int64_t threads, ArrayRef<MemRefType> sharedBuffers,
    function_ref<void(gpu::LaunchOp, ValueRange, Value, Value)> bodyFn) {
  KernelBuilder host{b, loc};
  Value rowBlocks =
      arith::CeilDivUIOp::create(b, loc, p.querySeq, host.index(rows));
  Value usedBlocks =
      host.mul(host.mul(p.batch, host.index(p.numHeads)), rowBlocks);
  OpBuilder::InsertionGuard guard(b);
  constexpr int64_t kStaticSharedLimit = 48 * 1024;
  int64_t sharedBytes = dynamicSharedBytes(sharedBuffers);
  bool dynamicShared = sharedBytes > kStaticSharedLimit;
  auto launch = createGuardedLaunch(b, loc, usedBlocks, threads,
                                    dynamicShared ? ArrayRef<MemRefType>()
                                                  : sharedBuffers,
                                    dynamicShared ? sharedBytes : 0);
  SmallVector<Value> tiles =
      dynamicShared ? sharedTilesInDynamicMemory(b, loc, sharedBuffers)
                    : SmallVector<Value>(launch.getWorkgroupAttributions());
  KernelBuilder k{b, loc};
  Value block = launch.getBlockIds().x;
  // Blocks of one (batch, head) are neighbours (they read the same keys and
  // values), except under a causal or sliding-window mask, where later rows
  // see more keys: there the last row blocks of every (batch, head) come
  // first, so that the short ones fill the end of the grid.
  Value batchHead = k.div(block, rowBlocks);
  Value rowBlock = k.rem(block, rowBlocks);
  if (p.maskKind == MaskKind::Causal || p.maskKind == MaskKind::SlidingWindow) {
    Value batchHeads = k.mul(p.batch, k.index(p.numHeads));
    batchHead = k.rem(block, batchHeads);
    rowBlock = k.sub(k.sub(rowBlocks, k.index(1)), k.div(block, batchHeads));
  }
  bodyFn(launch, tiles, batchHead, k.mul(rowBlock, k.index(rows)));
  return launch;
}

//===----------------------------------------------------------------------===//
// CUDA cores: a warp per query row
//===----------------------------------------------------------------------===//

/// Warps per block, one query row each.
constexpr int64_t kRowsPerBlock = 8;
constexpr int64_t kThreadsPerBlock = kRowsPerBlock * kWarpThreads;
/// Keys per shared-memory tile: one per lane.
constexpr int64_t kKeysPerTile = kWarpThreads;

void buildWarpPerRowKernel(OpBuilder &b, Location loc,
                           const AttentionProblem &p) {
  Type f32 = b.getF32Type();
  int64_t headDim = p.headDim;
  // Output columns per lane.
  int64_t columnsPerLane = llvm::divideCeil(headDim, kWarpThreads);
  // Lane j reads row j of the key tile: the padding column spreads the
  // rows over all banks.
  SmallVector<MemRefType> shared = {
      workgroupBufferType(b.getContext(), {kRowsPerBlock, headDim}, f32),
      workgroupBufferType(b.getContext(), {kKeysPerTile, headDim + 1}, f32),
      workgroupBufferType(b.getContext(), {kKeysPerTile, headDim}, f32)};
  createAttentionLaunch(
      b, loc, p, kRowsPerBlock, kThreadsPerBlock, shared,
      [&](gpu::LaunchOp launch, ValueRange sharedTiles, Value batchHead,
          Value firstRow) {
        KernelBuilder k{b, loc};
        AttentionBlock blk(k, p, batchHead, firstRow, kRowsPerBlock);
        Value queryTile = sharedTiles[0], keyTile = sharedTiles[1],
              valueTile = sharedTiles[2];
        Value thread = launch.getThreadIds().x;
        Value warp = k.div(thread, k.index(kWarpThreads));
        Value lane = k.rem(thread, k.index(kWarpThreads));
        Value row = k.add(firstRow, warp);
        Value zero = k.index(0);
        Value threads = k.index(kThreadsPerBlock);
        auto cooperativeLoop = [&](int64_t count,
                                   function_ref<void(Value, Value)> bodyFn) {
          auto loop =
              scf::ForOp::create(b, loc, thread, k.index(count), threads);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(loop.getBody());
          Value linear = loop.getInductionVar();
          bodyFn(k.div(linear, k.index(headDim)),
                 k.rem(linear, k.index(headDim)));
        };

        // The block's query rows, in shared memory (rows past the end repeat
        // the last one; their results are not stored).
        cooperativeLoop(kRowsPerBlock * headDim, [&](Value r, Value column) {
          Value position = k.minIndex(k.add(firstRow, r), blk.lastQueryRow);
          memref::StoreOp::create(b, loc, blk.load(p.query, position, column),
                                  queryTile, ValueRange{r, column});
        });

        double negInf = -std::numeric_limits<double>::infinity();
        SmallVector<Value> initial = {k.f32(negInf), k.f32(0.0)};
        initial.append(columnsPerLane, k.f32(0.0));
        auto tiles = scf::ForOp::create(b, loc, blk.keyBegin, blk.keyEnd,
                                        k.index(kKeysPerTile), initial);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(tiles.getBody());
          Value tileBegin = tiles.getInductionVar();
          Value runningMax = tiles.getRegionIterArgs()[0];
          Value runningSum = tiles.getRegionIterArgs()[1];
          SmallVector<Value> acc(tiles.getRegionIterArgs().drop_front(2));

          // Every warp is done with the previous tile before it is overwritten.
          gpu::BarrierOp::create(b, loc);
          cooperativeLoop(kKeysPerTile * headDim, [&](Value r, Value column) {
            Value position = k.add(tileBegin, r);
            Value inRange =
                k.cmp(arith::CmpIPredicate::ult, position, blk.keyEnd);
            Value clamped = k.minIndex(position, blk.lastKey);
            Value keyValue =
                k.select(inRange, blk.load(p.key, clamped, column), k.f32(0));
            Value valueValue =
                k.select(inRange, blk.load(p.value, clamped, column), k.f32(0));
            memref::StoreOp::create(b, loc, keyValue, keyTile,
                                    ValueRange{r, column});
            memref::StoreOp::create(b, loc, valueValue, valueTile,
                                    ValueRange{r, column});
          });
          gpu::BarrierOp::create(b, loc);

          // Lane j scores key tileBegin + j.
          auto dot = scf::ForOp::create(b, loc, zero, k.index(headDim),
                                        k.index(1), ValueRange{k.f32(0)});
          {
            OpBuilder::InsertionGuard dotGuard(b);
            b.setInsertionPointToStart(dot.getBody());
            Value column = dot.getInductionVar();
            Value qv = memref::LoadOp::create(b, loc, queryTile,
                                              ValueRange{warp, column});
            Value kv = memref::LoadOp::create(b, loc, keyTile,
                                              ValueRange{lane, column});
            scf::YieldOp::create(
                b, loc,
                math::FmaOp::create(b, loc, qv, kv, dot.getRegionIterArgs()[0])
                    .getResult());
          }
          Value score =
              blk.score(dot.getResult(0), row, k.add(tileBegin, lane));

          // Online softmax.
          Value newMax = arith::MaximumFOp::create(b, loc, runningMax,
                                                   k.warpReduce(score, true));
          Value pivot = k.pivotOfMax(newMax);
          Value probability = math::ExpOp::create(b, loc, k.sub(score, pivot));
          Value rescale = math::ExpOp::create(b, loc, k.sub(runningMax, pivot));
          Value newSum = math::FmaOp::create(b, loc, runningSum, rescale,
                                             k.warpReduce(probability, false));
          for (Value &column : acc)
            column = k.mul(column, rescale);

          // acc[c] += sum over the tile's keys t of p_t * V[t, lane + 32 c].
          auto weighted = scf::ForOp::create(
              b, loc, zero, k.index(kKeysPerTile), k.index(1), acc);
          {
            OpBuilder::InsertionGuard weightedGuard(b);
            b.setInsertionPointToStart(weighted.getBody());
            Value t = weighted.getInductionVar();
            Value tLane = arith::IndexCastOp::create(b, loc, b.getI32Type(), t);
            Value pt = gpu::ShuffleOp::create(b, loc, probability, tLane,
                                              k.i32(kWarpThreads),
                                              gpu::ShuffleMode::IDX)
                           .getShuffleResult();
            SmallVector<Value> next;
            for (auto [c, partial] :
                 llvm::enumerate(weighted.getRegionIterArgs())) {
              Value column = k.minIndex(k.add(lane, k.index(c * kWarpThreads)),
                                        k.index(headDim - 1));
              Value vv = memref::LoadOp::create(b, loc, valueTile,
                                                ValueRange{t, column});
              next.push_back(math::FmaOp::create(b, loc, pt, vv, partial));
            }
            scf::YieldOp::create(b, loc, next);
          }
          SmallVector<Value> yielded = {newMax, newSum};
          yielded.append(weighted.getResults().begin(),
                         weighted.getResults().end());
          scf::YieldOp::create(b, loc, yielded);
        }

        // out[row, lane + 32 c] = acc[c] / sum. A row that sees no key has sum
        // 0 and gets 0 / 0 = NaN, as rlx.attention specifies.
        Value rowValid = k.cmp(arith::CmpIPredicate::ult, row, p.querySeq);
        auto store =
            scf::IfOp::create(b, loc, rowValid, /*withElseRegion=*/false);
        b.setInsertionPointToStart(store.thenBlock());
        Value sum = tiles.getResult(1);
        for (int64_t c = 0; c < columnsPerLane; ++c) {
          Value column = k.add(lane, k.index(c * kWarpThreads));
          auto inHead = scf::IfOp::create(
              b, loc,
              k.cmp(arith::CmpIPredicate::ult, column, k.index(headDim)),
              /*withElseRegion=*/false);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(inHead.thenBlock());
          Value result = k.div(tiles.getResult(2 + c), sum);
          if (p.elementType != f32)
            result = arith::TruncFOp::create(b, loc, p.elementType, result);
          memref::StoreOp::create(b, loc, result, p.out,
                                  blk.indices(p.out, row, column));
        }
      });
}

//===----------------------------------------------------------------------===//
// Tensor cores: a warp per 16 query rows (f16, bf16; f32 as TF32)
//===----------------------------------------------------------------------===//

/// Warps per block; each computes one or two tiles of 16 query rows (the M
/// of mma.sync).
constexpr int64_t kMmaWarps = 4;
constexpr int64_t kMmaTileRows = 16;
constexpr int64_t kMmaThreads = kMmaWarps * kWarpThreads;
/// The xor offsets that fold the four lanes holding one row of an mma
/// fragment.
constexpr int64_t kQuadOffsets[] = {1, 2};

/// The tensor-core instruction a kernel runs and what follows from it.
struct MmaFormat {
  MmaFormat(Type elementType, bool allowTf32)
      : elementType(elementType), tf32(elementType.isF32()),
        split(tf32 && !allowTf32) {}

  Type elementType;
  /// f32 operands as TF32 on m16n8k8; otherwise 16-bit floats on
  /// m16n8k16.
  bool tf32;
  /// f32 to f32 accuracy: each operand is split into a TF32 part and the
  /// TF32 rounding of the rest, and a product is three mma.sync (big x
  /// small, small x big, big x big, the small terms first); the small x
  /// small term is below f32's rounding. Without the split (allow-tf32)
  /// operands are rounded once.
  bool split;
  /// The K of one mma.sync.
  int64_t kStep() const { return tf32 ? 8 : 16; }
  /// Keys per shared-memory tile: the two f32 tiles of 32 keys hold as many
  /// bytes as the 16-bit tiles of 64 and stay within the 48 KiB of static
  /// shared memory at head dim 128.
  int64_t keysPerTile(int64_t headDim) const {
    return tf32 || queryInShared(headDim) ? 32 : 64;
  }
  /// Tiles of 16 query rows a warp computes. Two share every key and value
  /// fragment read from shared memory (ldmatrix) between 32 rows, halving
  /// those reads: 16-bit floats up to head dim 128, whose accumulators then
  /// take D registers (TF32 fragments take twice the registers).
  int64_t rowTilesPerWarp(int64_t headDim) const {
    return !tf32 && headDim <= 128 ? 2 : 1;
  }
  /// Whether the query fragments are read from a shared tile of the block's
  /// rows at every K step rather than held in registers for the whole
  /// kernel: 16-bit head dims above 64, where the accumulators of two row
  /// tiles (D registers) and their query fragments (D / 2) would not fit
  /// beside the scores (as FlashAttention-2 does at head dim 128).
  bool queryInShared(int64_t headDim) const { return !tf32 && headDim > 64; }
  /// Elements per 16-byte global access.
  int64_t vectorWidth() const { return tf32 ? 4 : 8; }
  /// Elements of padding per shared row. 16-bit: the 8 rows of a matrix
  /// that ldmatrix reads (16 bytes each) then start in 8 different 16-byte
  /// bank groups. f32: a row is 4 banks off the one above, so the eight
  /// rows times four columns a warp reads per fragment hit 32 banks.
  int64_t rowPad() const { return tf32 ? 4 : 8; }
};

/// Whether the tensor-core kernel can run `p`: 16-bit floats with head
/// dims in steps of 16, or f32 in steps of 8; rows contiguous (innermost
/// stride 1: the 16-byte loads) at any row stride (views of a packed QKV
/// projection); the rows' alignment is checked at run time.
bool fitsTensorCores(const AttentionProblem &p) {
  if (isa<Float16Type, BFloat16Type>(p.elementType)) {
    if (p.headDim % 16 != 0)
      return false;
  } else if (!(p.elementType.isF32() && p.headDim % 8 == 0)) {
    return false;
  }
  for (Value buffer : {p.query, p.key, p.value, p.out}) {
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return false;
  }
  return true;
}

/// Emits the warp-level product `acc + a * b` of `format`'s mma.sync: for
/// 16-bit floats, `a` four and `b` two pairs of elements in the m16n8k16
/// fragment layouts; for TF32, `a` four and `b` two i32 of
/// nvvm.convert.float.to.tf32 in the m16n8k8 layouts, each followed by as
/// many small parts when the format splits operands. `acc` is four f32.
SmallVector<Value> mma(KernelBuilder &k, const MmaFormat &format,
                       ArrayRef<Value> a, ArrayRef<Value> b,
                       ArrayRef<Value> acc) {
  if (format.split) {
    MmaFormat single = format;
    single.split = false;
    ArrayRef<Value> aBig = a.take_front(4), aSmall = a.drop_front(4);
    ArrayRef<Value> bBig = b.take_front(2), bSmall = b.drop_front(2);
    SmallVector<Value> d = mma(k, single, aBig, bSmall, acc);
    d = mma(k, single, aSmall, bBig, d);
    return mma(k, single, aBig, bBig, d);
  }
  bool isBf16 = format.elementType.isBF16();
  // PTX takes f16 pairs as vectors, bf16 pairs as 32-bit registers.
  auto operand = [&](Value pair) -> Value {
    if (!isBf16)
      return pair;
    return LLVM::BitcastOp::create(k.b, k.loc, k.b.getI32Type(), pair);
  };
  SmallVector<Value> as, bs;
  for (Value pair : a)
    as.push_back(operand(pair));
  for (Value pair : b)
    bs.push_back(operand(pair));
  Type f32 = k.b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(k.b.getContext(), {f32, f32, f32, f32});
  NVVM::MMATypes ptxType = format.tf32 ? NVVM::MMATypes::tf32
                           : isBf16    ? NVVM::MMATypes::bf16
                                       : NVVM::MMATypes::f16;
  Value d = NVVM::MmaOp::create(
      k.b, k.loc, resultType, as, bs, acc,
      {16, 8, static_cast<int32_t>(format.kStep())}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> result;
  for (int64_t i = 0; i < 4; ++i)
    result.push_back(LLVM::ExtractValueOp::create(k.b, k.loc, d, i));
  return result;
}

/// FlashAttention-2 on mma.sync: a block of 4 warps per 64 or 128 query
/// rows of one (batch, head), a warp per one or two tiles of 16 rows
/// (MmaFormat::rowTilesPerWarp) whose query fragments stay in registers, key
/// and value tiles [keys, D] in shared memory. Per key tile a warp computes
/// the [16, keys] scores of each row tile with D/K x keys/8 mma.sync (each
/// key fragment serving every row tile), applies the mask and online
/// softmax to them in registers (thread `lane` holds rows lane/4 and
/// lane/4 + 8 of a row tile, the four threads of a quad share a row),
/// rounds the probabilities to the operand type and multiplies them into
/// its [16, D] output accumulators per row tile.
///
/// 16-bit floats: fragments come from the shared tiles through ldmatrix
/// (the value tile transposed), and the score fragments of two key blocks
/// are the A operand of the second product as they lie.
///
/// f32 (m16n8k8 on TF32): a thread's A operand holds columns lane%4 and
/// lane%4 + 4 of the K step while its scores are keys 2 (lane%4) and
/// 2 (lane%4) + 1 of a key block. The second product sums over the keys in
/// any order, so K index q stands for key 2q and K index q + 4 for key
/// 2q + 1: the scores serve as they lie, and each thread reads the value
/// rows of its own two keys. Operands are rounded to TF32 (cvt.rna), once
/// under `allowTf32`, else split in two parts for f32 accuracy (MmaFormat);
/// accumulation stays f32.
void buildTensorCoreKernel(OpBuilder &b, Location loc,
                           const AttentionProblem &p, bool allowTf32) {
  MmaFormat format(p.elementType, allowTf32);
  Type elementType = p.elementType;
  int64_t headDim = p.headDim;
  int64_t keysPerTile = format.keysPerTile(headDim);
  int64_t kSteps = headDim / format.kStep();
  int64_t valueBlocks = headDim / 8;
  int64_t keyBlocks = keysPerTile / 8;
  auto pairType = VectorType::get({2}, elementType);
  MemRefType tileType = workgroupBufferType(
      b.getContext(), {keysPerTile, headDim + format.rowPad()}, elementType);
  int64_t rowTiles = format.rowTilesPerWarp(headDim);
  int64_t rowsPerBlock = kMmaWarps * rowTiles * kMmaTileRows;
  bool queryInShared = format.queryInShared(headDim);
  SmallVector<MemRefType> shared = {tileType, tileType};
  if (queryInShared)
    shared.push_back(workgroupBufferType(
        b.getContext(), {rowsPerBlock, headDim + format.rowPad()},
        elementType));
  createAttentionLaunch(
      b, loc, p, rowsPerBlock, kMmaThreads, shared,
      [&](gpu::LaunchOp launch, ValueRange sharedTiles, Value batchHead,
          Value firstRow) {
        KernelBuilder k{b, loc};
        AttentionBlock blk(k, p, batchHead, firstRow, rowsPerBlock);
        Value keyTile = sharedTiles[0], valueTile = sharedTiles[1];
        Value queryTile = queryInShared ? sharedTiles[2] : Value();
        Value thread = launch.getThreadIds().x;
        Value warp = k.div(thread, k.index(kWarpThreads));
        Value lane = k.rem(thread, k.index(kWarpThreads));
        Value group = k.div(lane, k.index(4));
        Value quadLane = k.rem(lane, k.index(4));
        Value pairColumn = k.mul(quadLane, k.index(2));
        // ldmatrix: lane l gives the address of row l % 8 of 8x8 matrix l / 8.
        Value matrix = k.div(lane, k.index(8));
        Value matrixRow = k.rem(lane, k.index(8));
        // The rows this thread holds: in row tile t, rows[t][0] and
        // rows[t][1] = rows[t][0] + 8 (the halves of the mma fragments).
        Value warpRow =
            k.add(firstRow, k.mul(warp, k.index(rowTiles * kMmaTileRows)));
        SmallVector<std::array<Value, 2>> rows, clampedRows;
        for (int64_t t = 0; t < rowTiles; ++t) {
          Value row0 = k.add(k.add(warpRow, k.index(t * kMmaTileRows)), group);
          Value row1 = k.add(row0, k.index(8));
          rows.push_back({row0, row1});
          clampedRows.push_back({k.minIndex(row0, blk.lastQueryRow),
                                 k.minIndex(row1, blk.lastQueryRow)});
        }
        auto loadPair = [&](Value buffer, ValueRange indices) -> Value {
          auto load = vector::LoadOp::create(b, loc, pairType, buffer, indices);
          load.setAlignment(4);
          return load;
        };
        auto toTf32 = [&](Value x) -> Value {
          return NVVM::ConvertFloatToTF32Op::create(
              b, loc, b.getI32Type(), x, NVVM::FPRoundingMode::RNA,
              NVVM::SaturationMode::NONE, /*relu=*/false);
        }; // f32 fragment elements as the TF32 operand of `mma`: rounded, and
        // when the format splits, followed by the rounded remainders.
        auto tf32Fragment = [&](ArrayRef<Value> elements) {
          SmallVector<Value> operand;
          for (Value x : elements)
            operand.push_back(toTf32(x));
          if (format.split)
            for (size_t i = 0, e = elements.size(); i < e; ++i) {
              Value rounded =
                  arith::BitcastOp::create(b, loc, b.getF32Type(), operand[i]);
              operand.push_back(toTf32(k.sub(elements[i], rounded)));
            }
          return operand;
        };
        auto tileElement = [&](Value tile, Value row, Value column) -> Value {
          return memref::LoadOp::create(b, loc, tile, ValueRange{row, column});
        };

        // `count` 8x8 matrices of a shared tile, one pair per matrix in the mma
        // fragment layout (transposed: the tile holds the fragment's columns).
        auto loadMatrices = [&](Value tile, Value row, Value column,
                                int64_t count, bool transpose) {
          auto type = VectorType::get({count, 2}, elementType);
          Value matrices = nvgpu::LdMatrixOp::create(
              b, loc, type, tile, ValueRange{row, column}, transpose, count);
          SmallVector<Value> pairs;
          for (int64_t i = 0; i < count; ++i)
            pairs.push_back(vector::ExtractOp::create(b, loc, matrices, i));
          return pairs;
        };

        // Two f32 values rounded into a pair of the element type.
        auto pack = [&](Value x, Value y) -> Value {
          if (format.tf32)
            return vector::FromElementsOp::create(b, loc, pairType,
                                                  ValueRange{x, y});
          return vector::FromElementsOp::create(
              b, loc, pairType,
              ValueRange{arith::TruncFOp::create(b, loc, elementType, x),
                         arith::TruncFOp::create(b, loc, elementType, y)});
        };

        // ldmatrix addresses of a row tile's query A fragment in the shared
        // query tile: matrix m is rows [8 (m % 2), +8) x K columns
        // [8 (m / 2), +8) of the tile's 16 rows and the step's 16 columns.
        SmallVector<Value> queryRowOfLane;
        Value queryColumnOfLane = k.mul(k.div(matrix, k.index(2)), k.index(8));
        for (int64_t t = 0; t < rowTiles && queryInShared; ++t)
          queryRowOfLane.push_back(k.add(
              k.add(k.mul(warp, k.index(rowTiles * kMmaTileRows)),
                    k.index(t * kMmaTileRows)),
              k.add(k.mul(k.rem(matrix, k.index(2)), k.index(8)), matrixRow)));
        // Query A fragments of each row tile for every K step of the head
        // dim, unless they are read from the shared query tile.
        SmallVector<SmallVector<SmallVector<Value>>> queryFragments(rowTiles);
        for (int64_t t = 0; t < rowTiles && !queryInShared; ++t) {
          Value clampedRow0 = clampedRows[t][0],
                clampedRow1 = clampedRows[t][1];
          for (int64_t step = 0; step < kSteps; ++step) {
            if (format.tf32) {
              Value column = k.add(quadLane, k.index(8 * step));
              Value column4 = k.add(column, k.index(4));
              auto element = [&](Value row, Value col) -> Value {
                return memref::LoadOp::create(b, loc, p.query,
                                              blk.indices(p.query, row, col));
              };
              queryFragments[t].push_back(tf32Fragment(
                  {element(clampedRow0, column), element(clampedRow1, column),
                   element(clampedRow0, column4),
                   element(clampedRow1, column4)}));
              continue;
            }
            Value column = k.add(pairColumn, k.index(step * 16));
            Value column8 = k.add(column, k.index(8));
            queryFragments[t].push_back(
                {loadPair(p.query, blk.indices(p.query, clampedRow0, column)),
                 loadPair(p.query, blk.indices(p.query, clampedRow1, column)),
                 loadPair(p.query, blk.indices(p.query, clampedRow0, column8)),
                 loadPair(p.query,
                          blk.indices(p.query, clampedRow1, column8))});
          }
        }

        // Key and value tiles move with cp.async, 16 bytes a copy (keys past
        // the block's end zero-filled), a commit group per tile, in the order
        // of FlashAttention-2: a step's values land while its scores are
        // computed, the next step's keys while its probabilities multiply the
        // values. Before a tile is read, every thread waits for its copies
        // and a barrier for everyone else's; the same barrier tells that all
        // warps are done with the buffer the next copy overwrites.
        int64_t width = format.vectorWidth();
        int64_t vectorsPerRow = headDim / width;
        auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
        int64_t rowsPerPass = kMmaThreads / vectorsPerRow;
        Value firstRowOfCopy = k.div(thread, k.index(vectorsPerRow));
        Value columnOfCopy =
            k.mul(k.rem(thread, k.index(vectorsPerRow)), k.index(width));
        // Rows [tileBegin, tileBegin + tileRows) of `buffer` into `tile`, rows
        // at or past `end` as zeros, one commit group.
        auto copyRows = [&](Value buffer, Value tile, Value tileBegin,
                            int64_t tileRows, Value end) {
          int64_t vectorsPerTile = tileRows * vectorsPerRow;
          // Where this thread's copies go: when every pass of all threads
          // covers whole rows of the tile, pass i is the first moved down by
          // i * rowsPerPass rows, constant offsets from one address.
          bool wholeRows = kMmaThreads % vectorsPerRow == 0 &&
                           vectorsPerTile % kMmaThreads == 0;
          SmallVector<Value> tokens;
          for (int64_t first = 0; first < vectorsPerTile;
               first += kMmaThreads) {
            Value r, column;
            if (wholeRows) {
              r = k.add(firstRowOfCopy,
                        k.index(first / kMmaThreads * rowsPerPass));
              column = columnOfCopy;
            } else {
              // Threads past the tile's last vector repeat its copy: the
              // same bytes to the same place.
              Value linear = k.minIndex(k.add(thread, k.index(first)),
                                        k.index(vectorsPerTile - 1));
              r = k.div(linear, k.index(vectorsPerRow));
              column =
                  k.mul(k.rem(linear, k.index(vectorsPerRow)), k.index(width));
            }
            Value position = k.add(tileBegin, r);
            // A row past the end reads nothing (a source size of 0) and
            // fills its row with zeros; its address is never dereferenced.
            Value sourceElements =
                k.select(k.cmp(arith::CmpIPredicate::ult, position, end),
                         k.index(width), k.index(0));
            tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
                b, loc, tokenType, tile, ValueRange{r, column}, buffer,
                blk.indices(buffer, position, column), b.getIndexAttr(width),
                sourceElements, b.getUnitAttr()));
          }
          nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokenType, tokens);
        };
        auto copyTile = [&](Value buffer, Value tile, Value tileBegin) {
          copyRows(buffer, tile, tileBegin, keysPerTile, blk.keyEnd);
        };
        auto copyTileIf = [&](Value condition, Value buffer, Value tile,
                              Value tileBegin) {
          OpBuilder::InsertionGuard guard(b);
          auto ifOp = scf::IfOp::create(b, loc, condition,
                                        /*withElseRegion=*/false);
          b.setInsertionPointToStart(ifOp.thenBlock());
          copyTile(buffer, tile, tileBegin);
        };
        auto waitForTiles = [&] {
          // An empty group gives the token to wait on: the wait itself is for
          // every group this thread committed.
          Value none = nvgpu::DeviceAsyncCreateGroupOp::create(
              b, loc, tokenType, ValueRange{});
          nvgpu::DeviceAsyncWaitOp::create(b, loc, none,
                                           b.getI32IntegerAttr(0));
          gpu::BarrierOp::create(b, loc);
        };
        // The block's query rows (the first wait of the loop waits for them
        // too), then the first key tile.
        if (queryInShared)
          copyRows(p.query, queryTile, firstRow, rowsPerBlock, p.querySeq);
        copyTileIf(k.cmp(arith::CmpIPredicate::ult, blk.keyBegin, blk.keyEnd),
                   p.key, keyTile, blk.keyBegin);

        double negInf = -std::numeric_limits<double>::infinity();
        // Per row tile the running maxima and (per-thread partial) sums of
        // both rows; then per row tile the output accumulators, four per
        // block of 8 value columns.
        SmallVector<Value> initial;
        for (int64_t t = 0; t < rowTiles; ++t)
          initial.append({k.f32(negInf), k.f32(negInf), k.f32(0), k.f32(0)});
        int64_t accPerTile = 4 * valueBlocks;
        initial.append(rowTiles * accPerTile, k.f32(0));
        // The steps over key tiles [lower, upper), from `init`; `masked`
        // steps apply the mask and the end of the keys to each score, the
        // others only scale it.
        auto emitSteps = [&](Value lower, Value upper, ValueRange init,
                             bool masked) {
          auto tiles = scf::ForOp::create(b, loc, lower, upper,
                                          k.index(keysPerTile), init);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(tiles.getBody());
          Value tileBegin = tiles.getInductionVar();
          ValueRange carried = tiles.getRegionIterArgs();
          SmallVector<Value> acc(carried.drop_front(4 * rowTiles));

          // The key tile landed (copied by the previous step, or before the
          // loop), and every warp is done with the value tile: the tile's
          // values can start moving while the scores are computed.
          waitForTiles();
          copyTile(p.value, valueTile, tileBegin);

          // Scores [16, keys] per row tile: key block j holds keys 8j..8j+7
          // of the tile; this thread's entries are (rows[t][0] | rows[t][1])
          // x (8j + pairColumn + {0, 1}). Each key fragment serves every row
          // tile. Scores are kept in base 2 (times log2 e), so exponentials
          // are single exp2s.
          SmallVector<SmallVector<SmallVector<Value>>> scores(
              rowTiles, SmallVector<SmallVector<Value>>(
                            keyBlocks, SmallVector<Value>(4, k.f32(0))));
          auto product = [&](int64_t t, int64_t j, ArrayRef<Value> a,
                             ArrayRef<Value> fragment) {
            scores[t][j] = mma(k, format, a, fragment, scores[t][j]);
          };
          // 16-bit: one ldmatrix.x4 gives key block j's B fragments of K
          // steps `step` and step + 1: matrix m is columns [16 step + 8 m,
          // +8) of the block's 8 keys (x2, one step, when `two` is false).
          auto keyFragments = [&](int64_t j, int64_t step, bool two) {
            Value keyRow = k.add(k.index(8 * j), matrixRow);
            Value column = k.add(
                k.index(16 * step),
                k.mul(two ? matrix : k.rem(matrix, k.index(2)), k.index(8)));
            return loadMatrices(keyTile, keyRow, column, two ? 4 : 2, false);
          };
          if (queryInShared) {
            // K step by K step: the query fragments of two steps of every
            // row tile from the shared tile, then each key block's.
            for (int64_t step = 0; step < kSteps; step += 2) {
              bool two = step + 1 < kSteps;
              SmallVector<SmallVector<SmallVector<Value>>> a(rowTiles);
              for (int64_t t = 0; t < rowTiles; ++t)
                for (int64_t i = 0; i < (two ? 2 : 1); ++i)
                  a[t].push_back(loadMatrices(
                      queryTile, queryRowOfLane[t],
                      k.add(queryColumnOfLane, k.index(16 * (step + i))), 4,
                      false));
              for (int64_t j = 0; j < keyBlocks; ++j) {
                SmallVector<Value> fragments = keyFragments(j, step, two);
                for (int64_t t = 0; t < rowTiles; ++t) {
                  product(t, j, a[t][0], {fragments[0], fragments[1]});
                  if (two)
                    product(t, j, a[t][1], {fragments[2], fragments[3]});
                }
              }
            }
          }
          for (int64_t j = 0; j < keyBlocks && !queryInShared; ++j) {
            if (format.tf32) {
              // B operand: key 8j + group, head columns q and q + 4 of the
              // step.
              Value keyRow = k.add(k.index(8 * j), group);
              for (int64_t step = 0; step < kSteps; ++step) {
                Value column = k.add(k.index(8 * step), quadLane);
                SmallVector<Value> fragment = tf32Fragment(
                    {tileElement(keyTile, keyRow, column),
                     tileElement(keyTile, keyRow, k.add(column, k.index(4)))});
                for (int64_t t = 0; t < rowTiles; ++t)
                  product(t, j, queryFragments[t][step], fragment);
              }
              continue;
            }
            for (int64_t step = 0; step < kSteps; step += 2) {
              bool two = step + 1 < kSteps;
              SmallVector<Value> fragments = keyFragments(j, step, two);
              for (int64_t t = 0; t < rowTiles; ++t) {
                product(t, j, queryFragments[t][step],
                        {fragments[0], fragments[1]});
                if (two)
                  product(t, j, queryFragments[t][step + 1],
                          {fragments[2], fragments[3]});
              }
            }
          }
          for (int64_t j = 0; j < keyBlocks; ++j)
            for (int64_t t = 0; t < rowTiles; ++t)
              for (int64_t e = 0; e < 4; ++e) {
                Value keyIndex =
                    k.add(tileBegin, k.add(k.index(8 * j + e % 2), pairColumn));
                Value &score = scores[t][j][e];
                score =
                    masked ? blk.score(score, rows[t][e / 2], keyIndex, M_LOG2E)
                           : blk.unmaskedScore(score, M_LOG2E);
              }

          // Online softmax per row: this thread's maximum, then the quad's.
          SmallVector<Value> yielded;
          for (int64_t t = 0; t < rowTiles; ++t) {
            Value runningMax[2] = {carried[4 * t], carried[4 * t + 1]};
            Value runningSum[2] = {carried[4 * t + 2], carried[4 * t + 3]};
            Value pivot[2], rescale[2], newMax[2], newSum[2];
            for (int64_t half = 0; half < 2; ++half) {
              Value localMax = runningMax[half];
              for (auto &s : scores[t])
                for (int64_t e = 2 * half; e < 2 * half + 2; ++e)
                  localMax = arith::MaximumFOp::create(b, loc, localMax, s[e]);
              localMax =
                  k.shuffleReduce(localMax, kQuadOffsets, /*isMax=*/true);
              newMax[half] = localMax;
              pivot[half] = k.pivotOfMax(localMax);
              rescale[half] = math::Exp2Op::create(
                  b, loc, k.sub(runningMax[half], pivot[half]));
              newSum[half] = k.mul(runningSum[half], rescale[half]);
            }
            for (auto &s : scores[t])
              for (int64_t e = 0; e < 4; ++e) {
                s[e] = math::Exp2Op::create(b, loc, k.sub(s[e], pivot[e / 2]));
                newSum[e / 2] = k.add(newSum[e / 2], s[e]);
              }
            for (int64_t i = 0; i < accPerTile; ++i) {
              Value &x = acc[t * accPerTile + i];
              x = k.mul(x, rescale[(i % 4) / 2]);
            }
            yielded.append({newMax[0], newMax[1], newSum[0], newSum[1]});
          }

          // The values landed, and every warp is done with the key tile:
          // the next tile's keys move while the probabilities multiply the
          // values.
          waitForTiles();
          Value nextTile = k.add(tileBegin, k.index(keysPerTile));
          copyTileIf(k.cmp(arith::CmpIPredicate::ult, nextTile, blk.keyEnd),
                     p.key, keyTile, nextTile);

          // acc[t] += a[t] * bFragment for value block `block` of every row
          // tile t: one B fragment serves them all.
          auto accumulate = [&](int64_t block, ArrayRef<SmallVector<Value>> a,
                                ArrayRef<Value> bFragment) {
            for (int64_t t = 0; t < rowTiles; ++t) {
              int64_t first = t * accPerTile + 4 * block;
              SmallVector<Value> d = mma(k, format, a[t], bFragment,
                                         ArrayRef<Value>(acc).slice(first, 4));
              std::copy(d.begin(), d.end(), acc.begin() + first);
            }
          };
          if (format.tf32) {
            // Output += P V, one key block per K step, K indices q and q + 4
            // standing for keys 2q and 2q + 1 (above).
            for (int64_t j = 0; j < keyBlocks; ++j) {
              SmallVector<SmallVector<Value>> a;
              for (int64_t t = 0; t < rowTiles; ++t)
                a.push_back(tf32Fragment({scores[t][j][0], scores[t][j][2],
                                          scores[t][j][1], scores[t][j][3]}));
              Value keyRow = k.add(k.index(8 * j), pairColumn);
              Value keyRow1 = k.add(keyRow, k.index(1));
              for (int64_t n = 0; n < valueBlocks; ++n) {
                Value column = k.add(k.index(8 * n), group);
                accumulate(
                    n, a,
                    tf32Fragment({tileElement(valueTile, keyRow, column),
                                  tileElement(valueTile, keyRow1, column)}));
              }
            }
          } else {
            // Output += P V, 16 keys per K step: the probabilities of key
            // blocks 2c and 2c + 1, rounded, are the A fragment as they lie.
            for (int64_t c = 0; c < keyBlocks / 2; ++c) {
              SmallVector<SmallVector<Value>> a;
              for (int64_t t = 0; t < rowTiles; ++t) {
                ArrayRef<SmallVector<Value>> st = scores[t];
                a.push_back({pack(st[2 * c][0], st[2 * c][1]),
                             pack(st[2 * c][2], st[2 * c][3]),
                             pack(st[2 * c + 1][0], st[2 * c + 1][1]),
                             pack(st[2 * c + 1][2], st[2 * c + 1][3])});
              }
              // One ldmatrix.x4.trans gives the B fragments of value blocks n
              // and n + 1: matrix m is keys [16 c + 8 (m % 2), +8) x value
              // columns [8 (n + m / 2), +8), transposed.
              Value keyRow =
                  k.add(k.index(16 * c),
                        k.add(k.mul(k.rem(matrix, k.index(2)), k.index(8)),
                              matrixRow));
              for (int64_t n = 0; n < valueBlocks; n += 2) {
                Value column = k.mul(
                    k.add(k.index(n), k.div(matrix, k.index(2))), k.index(8));
                SmallVector<Value> fragments =
                    loadMatrices(valueTile, keyRow, column, 4, true);
                for (int64_t half = 0; half < 2; ++half)
                  accumulate(n + half, a,
                             {fragments[2 * half], fragments[2 * half + 1]});
              }
            }
          }
          yielded.append(acc);
          scf::YieldOp::create(b, loc, yielded);
          return tiles;
        };
        // Tiles every row of the block sees whole need no mask: with no mask
        // those before the last, partial one; causal, those up to the
        // diagonal of the block's first row. The others (and every tile of
        // the other mask kinds) are masked.
        Value unmaskedEnd = blk.keyBegin;
        if (p.maskKind == MaskKind::None || p.maskKind == MaskKind::Causal) {
          Value seenByAll = blk.keyEnd;
          if (p.maskKind == MaskKind::Causal)
            seenByAll = k.minIndex(
                seenByAll,
                k.maxIndex(k.index(0),
                           k.add(k.add(firstRow, blk.keyOffset), k.index(1))));
          Value wholeTiles =
              k.div(k.maxIndex(k.sub(seenByAll, blk.keyBegin), k.index(0)),
                    k.index(keysPerTile));
          unmaskedEnd =
              k.add(blk.keyBegin, k.mul(wholeTiles, k.index(keysPerTile)));
        }
        scf::ForOp unmasked =
            emitSteps(blk.keyBegin, unmaskedEnd, initial, /*masked=*/false);
        scf::ForOp tiles = emitSteps(unmaskedEnd, blk.keyEnd,
                                     unmasked.getResults(), /*masked=*/true);

        // out = acc / sum, the sums completed across the quad. A row that sees
        // no key has sum 0 and gets 0 / 0 = NaN, as rlx.attention specifies.
        for (int64_t t = 0; t < rowTiles; ++t) {
          for (int64_t half = 0; half < 2; ++half) {
            Value sum = k.shuffleReduce(tiles.getResult(4 * t + 2 + half),
                                        kQuadOffsets, /*isMax=*/false);
            OpBuilder::InsertionGuard guard(b);
            Value row = rows[t][half];
            auto store = scf::IfOp::create(
                b, loc, k.cmp(arith::CmpIPredicate::ult, row, p.querySeq),
                /*withElseRegion=*/false);
            b.setInsertionPointToStart(store.thenBlock());
            int64_t first = 4 * rowTiles + t * accPerTile;
            for (int64_t n = 0; n < valueBlocks; ++n) {
              Value x = k.div(tiles.getResult(first + 4 * n + 2 * half), sum);
              Value y =
                  k.div(tiles.getResult(first + 4 * n + 2 * half + 1), sum);
              Value column = k.add(pairColumn, k.index(8 * n));
              auto write = vector::StoreOp::create(
                  b, loc, pack(x, y), p.out, blk.indices(p.out, row, column));
              write.setAlignment(format.tf32 ? 8 : 4);
            }
          }
        }
      });
}

} // namespace

//===----------------------------------------------------------------------===//
// Lowering the kernel op to a gpu.launch
//===----------------------------------------------------------------------===//

void rlx::lowerFlashAttention(RewriterBase &rewriter, cuda::FlashAttentionOp op,
                              bool allowTf32) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  AttentionProblem problem(rewriter, op);
  if (!fitsTensorCores(problem)) {
    buildWarpPerRowKernel(rewriter, loc, problem);
    rewriter.eraseOp(op);
    return;
  }
  // The tensor-core kernel reads rows with 16-byte loads; rows that are not
  // 16-byte aligned (views at odd offsets or row strides) take the other
  // kernel.
  Value aligned =
      rowsAligned(rewriter, loc,
                  {problem.query, problem.key, problem.value, problem.out}, 16);
  auto choice = scf::IfOp::create(rewriter, loc, aligned,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(choice.thenBlock());
    buildTensorCoreKernel(rewriter, loc, problem, allowTf32);
    rewriter.setInsertionPointToStart(choice.elseBlock());
    buildWarpPerRowKernel(rewriter, loc, problem);
  }
  rewriter.eraseOp(op);
}
