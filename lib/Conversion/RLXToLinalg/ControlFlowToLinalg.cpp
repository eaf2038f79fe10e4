//===- ControlFlowToLinalg.cpp - rlx control flow to scf ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The CPU has real control flow, so the control-flow ops become scf ops on
// tensors: only the taken branch of an `rlx.if` runs, an `rlx.while` stops
// when its predicate does (or at `max_iterations`), and an `rlx.scan` is one
// loop over its steps (its backward sweeps, `rlx.scan_backward(_xs)`, one
// reverse loop). Region bodies move into the scf ops; the rlx ops in
// them are lowered like any other.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/Utils/ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// The single element of a one-element `i1` predicate tensor (`[]` or
/// `[1]`).
Value extractPredicate(OpBuilder &b, Location loc, Value predicate) {
  auto type = cast<RankedTensorType>(predicate.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> indices(type.getRank(), zero);
  return tensor::ExtractOp::create(b, loc, predicate, indices);
}

/// Moves the single block of `from` to the end of `into`, binding its
/// arguments to `args`, and returns the operands of its `rlx.yield`, which
/// it erases.
SmallVector<Value> inlineBody(ConversionPatternRewriter &rewriter, Region &from,
                              Block *into, ValueRange args) {
  Block &body = from.front();
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Value> yielded(yield.getValues());
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&body, into, into->end(), args);
  return yielded;
}

/// Row `t` of `[length, *row]` as a `row`-shaped tensor.
Value rowOf(OpBuilder &b, Location loc, Value stacked, Value t) {
  auto type = cast<RankedTensorType>(stacked.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  offsets[0] = t;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, stacked);
  sizes[0] = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  auto rowType = RankedTensorType::get(type.getShape().drop_front(),
                                       type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, rowType, stacked, offsets,
                                        sizes, strides);
}

/// `stacked` with `row` written at row `index`.
Value storeRow(OpBuilder &b, Location loc, Value row, Value stacked,
               Value index) {
  auto type = cast<RankedTensorType>(stacked.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  offsets[0] = index;
  SmallVector<OpFoldResult> sizes;
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t size : type.getShape().drop_front())
    sizes.push_back(b.getIndexAttr(size));
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, row, stacked, offsets, sizes,
                                       strides);
}

struct IfLowering : OpConversionPattern<IfOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Type> resultTypes;
    if (failed(
            getTypeConverter()->convertTypes(op.getResultTypes(), resultTypes)))
      return failure();
    Value condition = extractPredicate(rewriter, loc, adaptor.getPredicate());
    auto ifOp = scf::IfOp::create(rewriter, loc, resultTypes, condition,
                                  /*addThenBlock=*/true,
                                  /*addElseBlock=*/true);
    for (auto [from, to] :
         {std::pair(&op.getThenRegion(), &ifOp.getThenRegion()),
          std::pair(&op.getElseRegion(), &ifOp.getElseRegion())}) {
      Block *block = &to->front();
      // An scf.if without results comes with terminators; ours replace
      // them.
      if (!block->empty())
        rewriter.eraseOp(block->getTerminator());
      SmallVector<Value> yielded = inlineBody(rewriter, *from, block, {});
      rewriter.setInsertionPointToEnd(block);
      scf::YieldOp::create(rewriter, loc, yielded);
    }
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

/// rlx.while -> scf.while. With `max_iterations`, an index counter rides
/// along and the loop also ends once the body ran that many times.
struct WhileLowering : OpConversionPattern<WhileOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WhileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Type> carriedTypes;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(),
                                                carriedTypes)))
      return failure();
    std::optional<uint64_t> bound = op.getMaxIterations();
    SmallVector<Value> inits(adaptor.getInits());
    SmallVector<Type> loopTypes(carriedTypes);
    if (bound) {
      inits.insert(inits.begin(),
                   arith::ConstantIndexOp::create(rewriter, loc, 0));
      loopTypes.insert(loopTypes.begin(), rewriter.getIndexType());
    }
    auto loop = scf::WhileOp::create(rewriter, loc, loopTypes, inits);
    SmallVector<Location> locs(loopTypes.size(), loc);
    size_t first = bound ? 1 : 0;

    // Before: the predicate (and the bound) decide; the carried values pass
    // on unchanged.
    Block *before =
        rewriter.createBlock(&loop.getBefore(), {}, loopTypes, locs);
    SmallVector<Value> condYield =
        inlineBody(rewriter, op.getCond(), before,
                   before->getArguments().drop_front(first));
    rewriter.setInsertionPointToEnd(before);
    Value proceed = extractPredicate(rewriter, loc, condYield.front());
    if (bound) {
      Value limit = arith::ConstantIndexOp::create(rewriter, loc, *bound);
      Value below =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                before->getArgument(0), limit);
      proceed = arith::AndIOp::create(rewriter, loc, proceed, below);
    }
    SmallVector<Value> forwarded;
    if (bound)
      forwarded.push_back(before->getArgument(0));
    llvm::append_range(forwarded, ArrayRef(condYield).drop_front());
    scf::ConditionOp::create(rewriter, loc, proceed, forwarded);

    // After: the body, and the counter steps.
    Block *after = rewriter.createBlock(&loop.getAfter(), {}, loopTypes, locs);
    SmallVector<Value> next = inlineBody(
        rewriter, op.getBody(), after, after->getArguments().drop_front(first));
    rewriter.setInsertionPointToEnd(after);
    if (bound) {
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      next.insert(next.begin(), arith::AddIOp::create(
                                    rewriter, loc, after->getArgument(0), one));
    }
    scf::YieldOp::create(rewriter, loc, next);
    rewriter.replaceOp(op, loop.getResults().drop_front(first));
    return success();
  }
};

/// rlx.scan -> scf.for over the steps. Step `t` reads row `t` of each xs;
/// with `save_trajectory` the loop also carries the trajectory and writes
/// the new carry into its row (every step, or only the checkpoint steps
/// `floor(k * length / K)` into row `k`).
struct ScanLowering : OpConversionPattern<ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto carryType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getInit().getType()));
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getResult().getType()));
    if (!carryType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic carry shape");
    int64_t length = op.getLength();
    bool saveTrajectory = op.getSaveTrajectory();
    int64_t checkpoints = op.getNumCheckpoints();
    bool everyStep =
        !saveTrajectory || checkpoints == 0 || checkpoints == length;

    SmallVector<Value> inits = {adaptor.getInit()};
    if (saveTrajectory)
      inits.push_back(tensor::EmptyOp::create(
          rewriter, loc, resultType.getShape(), resultType.getElementType()));
    Value lower = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value upper = arith::ConstantIndexOp::create(rewriter, loc, length);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(rewriter, loc, lower, upper, step, inits);
    Block *body = loop.getBody();
    rewriter.setInsertionPointToStart(body);
    Value t = loop.getInductionVar();

    // Block arguments of the scan body: carry, bcasts, then row t of each
    // xs.
    SmallVector<Value> args = {loop.getRegionIterArgs().front()};
    llvm::append_range(args, adaptor.getBcasts());
    for (Value xs : adaptor.getXs())
      args.push_back(rowOf(rewriter, loc, xs, t));
    // A loop with iter_args is built without a terminator: the body's ops,
    // then the yield of the next carry (and trajectory).
    SmallVector<Value> next = inlineBody(rewriter, op.getBody(), body, args);
    rewriter.setInsertionPointToEnd(body);
    SmallVector<Value> yields = {next.front()};
    if (saveTrajectory) {
      Value trajectory = loop.getRegionIterArgs()[1];
      yields.push_back(
          everyStep ? storeRow(rewriter, loc, next.front(), trajectory, t)
                    : storeCheckpoint(rewriter, loc, next.front(), trajectory,
                                      t, length, checkpoints));
    }
    scf::YieldOp::create(rewriter, loc, yields);
    rewriter.replaceOp(op, loop.getResults()[saveTrajectory ? 1 : 0]);
    return success();
  }

  /// Keeps the carry of step `t` in row `k` when `t == floor(k * length /
  /// K)` for some `k < K`: that `k` is `ceil(t * K / length)`.
  static Value storeCheckpoint(OpBuilder &b, Location loc, Value row,
                               Value stacked, Value t, int64_t length,
                               int64_t checkpoints) {
    auto index = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value k = arith::CeilDivUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, t, index(checkpoints)),
        index(length));
    Value kept = arith::DivUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, k, index(length)),
        index(checkpoints));
    Value isCheckpoint = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kept, t),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, k,
                              index(checkpoints)));
    auto ifOp = scf::IfOp::create(
        b, loc, isCheckpoint,
        [&](OpBuilder &nb, Location nl) {
          scf::YieldOp::create(nb, nl, storeRow(nb, nl, row, stacked, k));
        },
        [&](OpBuilder &nb, Location nl) {
          scf::YieldOp::create(nb, nl, stacked);
        });
    return ifOp.getResult(0);
  }
};

/// `lhs + rhs` for two tensors of `type`.
Value addTensors(OpBuilder &b, Location loc, RankedTensorType type, Value lhs,
                 Value rhs) {
  return buildBroadcastElementwise(
      b, loc, type, {lhs, rhs}, [](OpBuilder &nb, Location nl, ValueRange v) {
        return emitBinary(nb, nl, BinaryKind::Add, v[0], v[1]);
      });
}

/// rlx.scan_backward / rlx.scan_backward_xs -> one scf.for over
/// `t = length - 1 .. 0` threading the carry cotangent: step `t` runs
/// `body_vjp` on the carry that entered forward step `t`, row `t` of each
/// xs, and the cotangent of the step's output (the threaded one, plus row
/// `t` of `upstream` when the forward scan saved its trajectory). The xs
/// variant also carries the stacked gradient and writes row `t` of it.
///
/// The carry entering step `t > 0` is trajectory row `t - 1`. With
/// `0 < K < length` checkpoints only rows `floor(k * length / K)` exist, so
/// each step replays `forward_body` from the last checkpoint before it:
/// at most `ceil(length / K)` forward steps per backward step, and no
/// memory beyond one carry.
template <typename OpT> struct ScanBackwardLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpT>::OpAdaptor;
  static constexpr bool kStacksXs = std::is_same_v<OpT, ScanBackwardXsOp>;

  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter *converter = this->getTypeConverter();
    auto carryType =
        cast<RankedTensorType>(converter->convertType(op.getInit().getType()));
    if (!carryType.hasStaticShape() ||
        llvm::any_of(adaptor.getXs(), [](Value xs) {
          return !cast<RankedTensorType>(xs.getType()).hasStaticShape();
        }))
      return rewriter.notifyMatchFailure(op, "dynamic carry or xs shape");
    int64_t length = op.getLength();
    bool saveTrajectory = op.getSaveTrajectory();

    // The loop carries the carry cotangent (and the stacked dxs). Without a
    // saved trajectory `upstream` is the cotangent of the final carry.
    SmallVector<Value> inits = {saveTrajectory
                                    ? buildZeros(rewriter, loc, carryType, {})
                                    : adaptor.getUpstream()};
    if constexpr (kStacksXs) {
      auto dxsType =
          cast<RankedTensorType>(adaptor.getXs()[op.getXsIdx()].getType());
      inits.push_back(tensor::EmptyOp::create(rewriter, loc, dxsType.getShape(),
                                              dxsType.getElementType()));
    }
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto loop = scf::ForOp::create(rewriter, loc, index(0), index(length),
                                   index(1), inits);
    Block *body = loop.getBody();
    rewriter.setInsertionPointToStart(body);
    Value t = arith::SubIOp::create(rewriter, loc, index(length - 1),
                                    loop.getInductionVar());

    SmallVector<Value> args = {carryAt(rewriter, loc, op, adaptor, t)};
    for (Value xs : adaptor.getXs())
      args.push_back(rowOf(rewriter, loc, xs, t));
    Value dcarry = loop.getRegionIterArgs().front();
    if (saveTrajectory)
      dcarry = addTensors(rewriter, loc, carryType, dcarry,
                          rowOf(rewriter, loc, adaptor.getUpstream(), t));
    args.push_back(dcarry);
    SmallVector<Value> grads =
        inlineBody(rewriter, op.getBodyVjp(), body, args);
    rewriter.setInsertionPointToEnd(body);
    SmallVector<Value> yields = {grads.front()};
    if constexpr (kStacksXs)
      yields.push_back(storeRow(rewriter, loc, grads[1 + op.getXsIdx()],
                                loop.getRegionIterArgs()[1], t));
    scf::YieldOp::create(rewriter, loc, yields);
    rewriter.replaceOp(op, loop.getResults()[kStacksXs ? 1 : 0]);
    return success();
  }

  /// The carry entering forward step `t`: `init` at `t == 0`, else
  /// trajectory row `t - 1`, stored or recomputed.
  static Value carryAt(ConversionPatternRewriter &rewriter, Location loc,
                       OpT op, OpAdaptor adaptor, Value t) {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value isFirst =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, t, zero);
    auto ifOp = scf::IfOp::create(rewriter, loc, adaptor.getInit().getType(),
                                  isFirst, /*addThenBlock=*/true,
                                  /*addElseBlock=*/true);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(rewriter, loc, adaptor.getInit());
    rewriter.setInsertionPointToStart(&ifOp.getElseRegion().front());
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value previous = arith::SubIOp::create(rewriter, loc, t, one);
    int64_t checkpoints = op.getNumCheckpoints();
    Value carry =
        checkpoints > 0 && checkpoints < static_cast<int64_t>(op.getLength())
            ? recompute(rewriter, loc, op, adaptor, previous, checkpoints)
            : rowOf(rewriter, loc, adaptor.getTrajectory(), previous);
    scf::YieldOp::create(rewriter, loc, carry);
    return ifOp.getResult(0);
  }

  /// Trajectory row `s` from the last checkpoint `k` at or before it: the
  /// largest `k` with `floor(k * length / K) <= s` is
  /// `ceil((s + 1) * K / length) - 1`; its row holds the carry after step
  /// `r = floor(k * length / K)`, and steps `r + 1 .. s` replay
  /// `forward_body`.
  static Value recompute(ConversionPatternRewriter &rewriter, Location loc,
                         OpT op, OpAdaptor adaptor, Value s,
                         int64_t checkpoints) {
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value one = index(1);
    Value length = index(op.getLength());
    Value k = arith::SubIOp::create(
        rewriter, loc,
        arith::CeilDivUIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc,
                                  arith::AddIOp::create(rewriter, loc, s, one),
                                  index(checkpoints)),
            length),
        one);
    Value row = arith::DivUIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, k, length),
        index(checkpoints));
    Value start = rowOf(rewriter, loc, adaptor.getTrajectory(), k);
    auto replay = scf::ForOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, row, one),
        arith::AddIOp::create(rewriter, loc, s, one), one, ValueRange{start});
    Block *body = replay.getBody();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(body);
    SmallVector<Value> args = {replay.getRegionIterArgs().front()};
    for (Value xs : adaptor.getXs())
      args.push_back(rowOf(rewriter, loc, xs, replay.getInductionVar()));
    SmallVector<Value> next =
        inlineBody(rewriter, op.getForwardBody(), body, args);
    rewriter.setInsertionPointToEnd(body);
    scf::YieldOp::create(rewriter, loc, next);
    return replay.getResult(0);
  }
};

} // namespace

void rlx::populateControlFlowToLinalgPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<IfLowering, WhileLowering, ScanLowering,
               ScanBackwardLowering<ScanBackwardOp>,
               ScanBackwardLowering<ScanBackwardXsOp>>(converter,
                                                       patterns.getContext());
}
