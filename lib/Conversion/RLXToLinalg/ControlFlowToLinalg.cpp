//===- ControlFlowToLinalg.cpp - rlx.if, rlx.while, rlx.scan to scf -------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The CPU has real control flow, so the control-flow ops become scf ops on
// tensors: only the taken branch of an `rlx.if` runs, an `rlx.while` stops
// when its predicate does (or at `max_iterations`), and an `rlx.scan` is one
// loop over its steps. Region bodies move into the scf ops; the rlx ops in
// them are lowered like any other.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

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

  /// Row `t` of `[length, *row]` as a `row`-shaped tensor.
  static Value rowOf(OpBuilder &b, Location loc, Value stacked, Value t) {
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
  static Value storeRow(OpBuilder &b, Location loc, Value row, Value stacked,
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

} // namespace

void rlx::populateControlFlowToLinalgPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<IfLowering, WhileLowering, ScanLowering>(converter,
                                                        patterns.getContext());
}
