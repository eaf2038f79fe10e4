//===- AttentionKernel.cpp - fused attention on the GPU -------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.attention as one kernel (rlx_cuda.flash_attention). The generic
// lowering computes the [Sq, Sk] scores, their maxima, exponentials and sums
// as separate kernels over memory; here each warp owns one query row and
// each block eight rows of one (batch, head). The block streams the keys and
// values through shared memory, 32 keys per tile; lane `j` of a warp scores
// key `j` of the tile against the warp's row, warp shuffles give the tile's
// maximum and sum, and the running output row (lane `l` holding columns
// `l`, `l + 32`, ...) is rescaled by the change of the running maximum
// (online softmax) before the tile's probabilities are added in.
//
//===----------------------------------------------------------------------===//

#include "KernelOps.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Target/CUDA/RLXCUDADialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr int64_t kWarpSize = 32;
/// Warps per block, one query row each.
constexpr int64_t kRowsPerBlock = 8;
constexpr int64_t kThreadsPerBlock = kRowsPerBlock * kWarpSize;
/// Keys per shared-memory tile: one per lane.
constexpr int64_t kKeysPerTile = kWarpSize;

/// Index and f32 arithmetic in a kernel body, without the boilerplate.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value f32(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  Value i32(int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  }
  Value add(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? arith::AddFOp::create(b, loc, x, y).getResult()
               : arith::AddIOp::create(b, loc, x, y).getResult();
  }
  Value sub(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? arith::SubFOp::create(b, loc, x, y).getResult()
               : arith::SubIOp::create(b, loc, x, y).getResult();
  }
  Value mul(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? arith::MulFOp::create(b, loc, x, y).getResult()
               : arith::MulIOp::create(b, loc, x, y).getResult();
  }
  Value div(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? arith::DivFOp::create(b, loc, x, y).getResult()
               : arith::DivUIOp::create(b, loc, x, y).getResult();
  }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value minIndex(Value x, Value y) {
    return arith::MinSIOp::create(b, loc, x, y);
  }
  Value maxIndex(Value x, Value y) {
    return arith::MaxSIOp::create(b, loc, x, y);
  }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  Value toF32(Value x) {
    if (x.getType().isF32())
      return x;
    return arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  }
  /// The warp-wide maximum or sum of a per-lane f32, in every lane.
  Value warpReduce(Value x, bool isMax) {
    for (int64_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
      Value other =
          gpu::ShuffleOp::create(b, loc, x, i32(offset), i32(kWarpSize),
                                 gpu::ShuffleMode::XOR)
              .getShuffleResult();
      x = isMax ? arith::MaximumFOp::create(b, loc, x, other).getResult()
                : arith::AddFOp::create(b, loc, x, other).getResult();
    }
    return x;
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Forming the kernel op
//===----------------------------------------------------------------------===//

bool rlx::formFlashAttention(RewriterBase &rewriter, AttentionOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  if (!isa<Float32Type, Float16Type, BFloat16Type>(type.getElementType()) ||
      static_cast<int64_t>(op.getHeadDim()) >
          cuda::FlashAttentionOp::kMaxHeadDim ||
      !isa<func::FuncOp>(op->getParentOp()))
    return false;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      sizes.push_back(tensor::DimOp::create(rewriter, loc, op.getQuery(), dim));
  Value init = tensor::EmptyOp::create(rewriter, loc, type, sizes);
  float scale =
      op.getScoreScale()
          ? op.getScoreScale()->convertToFloat()
          : static_cast<float>(1.0 /
                               std::sqrt(static_cast<double>(op.getHeadDim())));
  auto fused = cuda::FlashAttentionOp::create(
      rewriter, loc, TypeRange{type}, op.getQuery(), op.getKey(), op.getValue(),
      op.getMask(), init, op.getNumHeadsAttr(), op.getHeadDimAttr(),
      op.getMaskKindAttr(), op.getWindowAttr(), rewriter.getF32FloatAttr(scale),
      op.getAttnLogitSoftcapAttr());
  rewriter.replaceOp(op, fused.getResult());
  return true;
}

//===----------------------------------------------------------------------===//
// Lowering the kernel op to a gpu.launch
//===----------------------------------------------------------------------===//

void rlx::lowerFlashAttention(RewriterBase &rewriter,
                              cuda::FlashAttentionOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  KernelBuilder host{rewriter, loc};
  Value query = op.getQuery(), key = op.getKey(), value = op.getValue();
  Value mask = op.getMask(), out = op.getInit();
  auto queryType = cast<MemRefType>(query.getType());
  Type elementType = queryType.getElementType();
  Type f32 = rewriter.getF32Type();
  bool packed = queryType.getRank() == 3;
  unsigned seqDim = packed ? 1 : 2;
  int64_t numHeads = op.getNumHeads();
  int64_t headDim = op.getHeadDim();
  MaskKind maskKind = op.getMaskKind();
  int64_t window = op.getWindow() ? static_cast<int64_t>(*op.getWindow()) : 0;
  double scale = op.getScoreScale().convertToDouble();
  std::optional<double> softcap;
  if (op.getAttnLogitSoftcap())
    softcap = op.getAttnLogitSoftcap()->convertToDouble();
  // Output columns per lane.
  int64_t columnsPerLane = llvm::divideCeil(headDim, kWarpSize);

  // Host side: one block per 8 query rows of each (batch, head); a launch
  // of no rows still has one block, which does nothing.
  Value batch = memref::DimOp::create(rewriter, loc, query, 0);
  Value querySeq = memref::DimOp::create(rewriter, loc, query, seqDim);
  Value keySeq = memref::DimOp::create(rewriter, loc, key, seqDim);
  Value rowTiles = arith::CeilDivUIOp::create(rewriter, loc, querySeq,
                                              host.index(kRowsPerBlock));
  Value usedBlocks = host.mul(host.mul(batch, host.index(numHeads)), rowTiles);
  Value blocks = host.maxIndex(usedBlocks, host.index(1));
  Value one = host.index(1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, blocks, one, one,
                                      host.index(kThreadsPerBlock), one, one);
  auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto sharedTile = [&](int64_t rows, int64_t columns) {
    return MemRefType::get({rows, columns}, f32, MemRefLayoutAttrInterface(),
                           workgroup);
  };
  Value queryTile =
      launch.addWorkgroupAttribution(sharedTile(kRowsPerBlock, headDim), loc);
  // Lane j reads row j of the key tile: the padding column spreads the
  // rows over all banks.
  Value keyTile = launch.addWorkgroupAttribution(
      sharedTile(kKeysPerTile, headDim + 1), loc);
  Value valueTile =
      launch.addWorkgroupAttribution(sharedTile(kKeysPerTile, headDim), loc);

  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(rewriter, loc);
  rewriter.setInsertionPointToStart(&body);
  KernelBuilder k{rewriter, loc};
  OpBuilder &b = rewriter;

  Value thread = launch.getThreadIds().x;
  Value block = launch.getBlockIds().x;
  auto active = scf::IfOp::create(
      b, loc, k.cmp(arith::CmpIPredicate::ult, block, usedBlocks),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(active.thenBlock());
  Value warp = k.div(thread, k.index(kWarpSize));
  Value lane = k.rem(thread, k.index(kWarpSize));
  Value rowTile = k.rem(block, rowTiles);
  Value batchHead = k.div(block, rowTiles);
  Value batchIndex = k.div(batchHead, k.index(numHeads));
  Value headIndex = k.rem(batchHead, k.index(numHeads));
  Value firstRow = k.mul(rowTile, k.index(kRowsPerBlock));
  Value row = k.add(firstRow, warp);
  Value lastQueryRow = k.sub(querySeq, k.index(1));
  Value lastKey = k.sub(keySeq, k.index(1));

  // Element (batch, head, position, column) of an operand in the op's
  // layout, read as f32.
  auto load = [&](Value buffer, Value position, Value column) -> Value {
    SmallVector<Value> indices =
        packed ? SmallVector<Value>{batchIndex, position,
                                    k.add(k.mul(headIndex, k.index(headDim)),
                                          column)}
               : SmallVector<Value>{batchIndex, headIndex, position, column};
    return k.toF32(memref::LoadOp::create(b, loc, buffer, indices));
  };

  // The block's query rows, in shared memory (rows past the end repeat the
  // last one; their results are not stored).
  Value zero = k.index(0);
  Value threads = k.index(kThreadsPerBlock);
  auto cooperativeLoop = [&](int64_t count,
                             function_ref<void(Value, Value)> bodyFn) {
    auto loop = scf::ForOp::create(b, loc, thread, k.index(count), threads);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value linear = loop.getInductionVar();
    bodyFn(k.div(linear, k.index(headDim)), k.rem(linear, k.index(headDim)));
  };
  cooperativeLoop(kRowsPerBlock * headDim, [&](Value r, Value column) {
    Value position = k.minIndex(k.add(firstRow, r), lastQueryRow);
    memref::StoreOp::create(b, loc, load(query, position, column), queryTile,
                            ValueRange{r, column});
  });

  // Keys [begin, end) that some row of the block may see. Causal and
  // sliding-window rows see keys up to `row + Sk - Sq`.
  Value keyBegin = zero, keyEnd = keySeq, keyOffset;
  if (maskKind == MaskKind::Causal || maskKind == MaskKind::SlidingWindow) {
    keyOffset = k.sub(keySeq, querySeq);
    Value lastRow =
        k.minIndex(k.add(firstRow, k.index(kRowsPerBlock - 1)), lastQueryRow);
    keyEnd = k.minIndex(keySeq, k.add(k.add(lastRow, keyOffset), k.index(1)));
    if (maskKind == MaskKind::SlidingWindow)
      keyBegin =
          k.maxIndex(zero, k.sub(k.add(firstRow, keyOffset), k.index(window)));
  }

  double negInf = -std::numeric_limits<double>::infinity();
  SmallVector<Value> initial = {k.f32(negInf), k.f32(0.0)};
  initial.append(columnsPerLane, k.f32(0.0));
  auto tiles = scf::ForOp::create(b, loc, keyBegin, keyEnd,
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
      Value inRange = k.cmp(arith::CmpIPredicate::ult, position, keyEnd);
      Value clamped = k.minIndex(position, lastKey);
      Value keyValue = k.select(inRange, load(key, clamped, column), k.f32(0));
      Value valueValue =
          k.select(inRange, load(value, clamped, column), k.f32(0));
      memref::StoreOp::create(b, loc, keyValue, keyTile, ValueRange{r, column});
      memref::StoreOp::create(b, loc, valueValue, valueTile,
                              ValueRange{r, column});
    });
    gpu::BarrierOp::create(b, loc);

    // Lane j scores key tileBegin + j.
    auto dot = scf::ForOp::create(b, loc, zero, k.index(headDim), k.index(1),
                                  ValueRange{k.f32(0)});
    {
      OpBuilder::InsertionGuard dotGuard(b);
      b.setInsertionPointToStart(dot.getBody());
      Value column = dot.getInductionVar();
      Value qv =
          memref::LoadOp::create(b, loc, queryTile, ValueRange{warp, column});
      Value kv =
          memref::LoadOp::create(b, loc, keyTile, ValueRange{lane, column});
      Value sum =
          math::FmaOp::create(b, loc, qv, kv, dot.getRegionIterArgs()[0]);
      scf::YieldOp::create(b, loc, sum);
    }
    Value score = k.mul(dot.getResult(0), k.f32(scale));
    if (softcap) {
      Value cap = k.f32(*softcap);
      score = k.mul(cap, math::TanhOp::create(b, loc, k.div(score, cap)));
    }
    Value keyIndex = k.add(tileBegin, lane);
    Value clampedKey = k.minIndex(keyIndex, lastKey);
    Value visible = k.cmp(arith::CmpIPredicate::ult, keyIndex, keyEnd);
    auto also = [&](Value condition) {
      visible = arith::AndIOp::create(b, loc, visible, condition);
    };
    switch (maskKind) {
    case MaskKind::None:
      break;
    case MaskKind::Causal:
    case MaskKind::SlidingWindow: {
      Value last = k.add(row, keyOffset);
      also(k.cmp(arith::CmpIPredicate::sle, keyIndex, last));
      if (maskKind == MaskKind::SlidingWindow)
        also(k.cmp(arith::CmpIPredicate::sge, keyIndex,
                   k.sub(last, k.index(window))));
      break;
    }
    case MaskKind::Custom: {
      Value keep = k.toF32(memref::LoadOp::create(
          b, loc, mask, ValueRange{batchIndex, clampedKey}));
      also(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, keep,
                                 k.f32(0.5)));
      break;
    }
    case MaskKind::Bias: {
      Value bias = k.toF32(memref::LoadOp::create(
          b, loc, mask,
          ValueRange{batchIndex, headIndex, k.minIndex(row, lastQueryRow),
                     clampedKey}));
      score = k.add(score, bias);
      break;
    }
    }
    score = k.select(visible, score, k.f32(negInf));

    // Online softmax. While every key so far is masked out the maximum is
    // -inf; exponentials are then taken against 0, giving 0, not NaN.
    Value newMax = arith::MaximumFOp::create(b, loc, runningMax,
                                             k.warpReduce(score, true));
    Value allMasked = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            newMax, k.f32(negInf));
    Value pivot = k.select(allMasked, k.f32(0), newMax);
    Value probability = math::ExpOp::create(b, loc, k.sub(score, pivot));
    Value rescale = math::ExpOp::create(b, loc, k.sub(runningMax, pivot));
    Value newSum = math::FmaOp::create(b, loc, runningSum, rescale,
                                       k.warpReduce(probability, false));
    for (Value &column : acc)
      column = k.mul(column, rescale);

    // acc[c] += sum over the tile's keys t of p_t * V[t, lane + 32 c].
    auto weighted = scf::ForOp::create(b, loc, zero, k.index(kKeysPerTile),
                                       k.index(1), acc);
    {
      OpBuilder::InsertionGuard weightedGuard(b);
      b.setInsertionPointToStart(weighted.getBody());
      Value t = weighted.getInductionVar();
      Value tLane = arith::IndexCastOp::create(b, loc, b.getI32Type(), t);
      Value pt = gpu::ShuffleOp::create(b, loc, probability, tLane,
                                        k.i32(kWarpSize), gpu::ShuffleMode::IDX)
                     .getShuffleResult();
      SmallVector<Value> next;
      for (auto [c, partial] : llvm::enumerate(weighted.getRegionIterArgs())) {
        Value column = k.minIndex(k.add(lane, k.index(c * kWarpSize)),
                                  k.index(headDim - 1));
        Value vv =
            memref::LoadOp::create(b, loc, valueTile, ValueRange{t, column});
        next.push_back(math::FmaOp::create(b, loc, pt, vv, partial));
      }
      scf::YieldOp::create(b, loc, next);
    }
    SmallVector<Value> yielded = {newMax, newSum};
    yielded.append(weighted.getResults().begin(), weighted.getResults().end());
    scf::YieldOp::create(b, loc, yielded);
  }

  // out[row, lane + 32 c] = acc[c] / sum. A row that sees no key has sum 0
  // and gets 0 / 0 = NaN, as rlx.attention specifies.
  Value rowValid = k.cmp(arith::CmpIPredicate::ult, row, querySeq);
  auto store = scf::IfOp::create(b, loc, rowValid, /*withElseRegion=*/false);
  b.setInsertionPointToStart(store.thenBlock());
  Value sum = tiles.getResult(1);
  for (int64_t c = 0; c < columnsPerLane; ++c) {
    Value column = k.add(lane, k.index(c * kWarpSize));
    auto inHead = scf::IfOp::create(
        b, loc, k.cmp(arith::CmpIPredicate::ult, column, k.index(headDim)),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(inHead.thenBlock());
    Value result = k.div(tiles.getResult(2 + c), sum);
    if (elementType != f32)
      result = arith::TruncFOp::create(b, loc, elementType, result);
    SmallVector<Value> indices =
        packed ? SmallVector<Value>{batchIndex, row,
                                    k.add(k.mul(headIndex, k.index(headDim)),
                                          column)}
               : SmallVector<Value>{batchIndex, headIndex, row, column};
    memref::StoreOp::create(b, loc, result, out, indices);
  }
  rewriter.eraseOp(op);
}
