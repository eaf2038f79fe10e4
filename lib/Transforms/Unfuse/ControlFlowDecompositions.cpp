//===- ControlFlowDecompositions.cpp - control flow, regions --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.if and rlx.while as straight-line selects; rlx.custom_fn,
// rlx.transform_region and the per-element bodies of the elementwise region
// ops inlined.
//
//===----------------------------------------------------------------------===//

#include "UnfusePatterns.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// The unrolled copies of cond + body are straight-line IR, n times the
/// loop's size. Beyond this bound the loop stays: the IR would be larger
/// than any target without a runtime loop could reasonably compile.
constexpr uint64_t kMaxUnrolledIterations = 4096;

/// Clones the ops of `body` (a single-block region of `composite`) before
/// the rewriter's insertion point with the block arguments bound to `args`;
/// returns the values its `rlx.yield` yields. Each clone keeps its own
/// location, fused with the composite's and named after it.
SmallVector<Value> cloneBody(RewriterBase &rewriter, Block &body,
                             ValueRange args, Operation *composite) {
  MLIRContext *ctx = composite->getContext();
  auto name = StringAttr::get(ctx, composite->getName().getStringRef());
  IRMapping mapping;
  mapping.map(body.getArguments(), args);
  for (Operation &op : body.without_terminator()) {
    Operation *copy = rewriter.clone(op, mapping);
    copy->walk([&](Operation *nested) {
      nested->setLoc(
          FusedLoc::get(ctx, {nested->getLoc(), composite->getLoc()}, name));
    });
  }
  return llvm::map_to_vector(body.getTerminator()->getOperands(), [&](Value v) {
    return mapping.lookupOrDefault(v);
  });
}

//===----------------------------------------------------------------------===//
// rlx.if, rlx.while, rlx.custom_fn, rlx.transform_region
//===----------------------------------------------------------------------===//

/// rlx.if -> both branches inlined + one rlx.where per result. Both branches
/// always run (an eager select): a target that asks for this trades the
/// cost of the branch not taken for straight-line code. A branch with side
/// effects would perform them even when not taken, so such an op stays.
struct IfToWhere : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    if (!isMemoryEffectFree(op))
      return rewriter.notifyMatchFailure(
          op, "a branch has side effects; running both would perform those "
              "of the branch not taken");
    // Without results and side effects the op computes nothing.
    if (op.getNumResults() == 0) {
      rewriter.eraseOp(op);
      return success();
    }
    SmallVector<Value> onTrue =
        cloneBody(rewriter, op.getThenRegion().front(), {}, op);
    SmallVector<Value> onFalse =
        cloneBody(rewriter, op.getElseRegion().front(), {}, op);
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    SmallVector<Value> results;
    for (auto [t, f, result] :
         llvm::zip_equal(onTrue, onFalse, op.getResults())) {
      // The i1 predicate, shaped like the result, stays i1.
      Value cond =
          p.broadcastTo(op.getPredicate(),
                        cast<RankedTensorType>(result.getType()).getShape());
      results.push_back(p.where(cond, t, f));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// rlx.while with `max_iterations = n` -> n copies of cond + body. An i1
/// flag, the conjunction of the predicates so far, says whether the loop is
/// still running; each carried value becomes `where(flag, body_out,
/// carried)`, so once the flag is false the values stop changing. The body
/// always runs n times. Without `max_iterations` the trip count is unknown
/// and the op stays.
struct UnrollWhile : OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhileOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<uint64_t> bound = op.getMaxIterations();
    if (!bound)
      return rewriter.notifyMatchFailure(
          op, "no max_iterations: the trip count is unknown");
    if (*bound > kMaxUnrolledIterations)
      return rewriter.notifyMatchFailure(op, "too many iterations to unroll");
    if (!isMemoryEffectFree(op))
      return rewriter.notifyMatchFailure(
          op, "the loop has side effects; the unrolled body runs after the "
              "loop would have ended");
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    SmallVector<Value> carried(op.getInits());
    Value running;
    for (uint64_t i = 0; i < *bound; ++i) {
      Value predicate =
          cloneBody(rewriter, op.getCond().front(), carried, op).front();
      predicate = p.broadcastTo(predicate, {});
      // `min` of i1 values is their logical and.
      running =
          running ? p.binary(BinaryKind::Min, running, predicate) : predicate;
      SmallVector<Value> next =
          cloneBody(rewriter, op.getBody().front(), carried, op);
      for (auto [value, updated] : llvm::zip_equal(carried, next)) {
        auto type = cast<RankedTensorType>(value.getType());
        value =
            p.where(p.broadcastTo(running, type.getShape()), updated, value);
      }
    }
    rewriter.replaceOp(op, carried);
    return success();
  }
};

/// rlx.custom_fn -> its forward body on the operands. The derivative rules
/// go: once decomposed nothing differentiates the op as a unit.
/// rlx.transform_region -> its geometry chain on the operands.
template <typename OpTy> struct InlineIsolatedBody : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Block &body = op->getRegion(0).front();
    rewriter.replaceOp(op, cloneBody(rewriter, body, op.getInputs(), op));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Elementwise region bodies
//===----------------------------------------------------------------------===//

/// Checks that the value the per-element `body` yields, computed on tensors
/// of the types `inputs` (every body op broadcasting NumPy-style), can be
/// broadcast to `resultShape` by rlx.expand.
LogicalResult checkElementBody(Block &body, ArrayRef<RankedTensorType> inputs,
                               ArrayRef<int64_t> resultShape,
                               std::string &why) {
  DenseMap<Value, SmallVector<int64_t>> shapes;
  for (auto [arg, type] : llvm::zip_equal(body.getArguments(), inputs))
    shapes[arg] = llvm::to_vector(type.getShape());
  for (Operation &op : body.without_terminator()) {
    // Rank-0 constants broadcast against everything.
    SmallVector<int64_t> shape;
    for (Value operand : op.getOperands()) {
      std::optional<SmallVector<int64_t>> joined =
          broadcastShapes(shape, shapes.lookup(operand));
      if (!joined) {
        why = "operand shapes do not broadcast";
        return failure();
      }
      shape = std::move(*joined);
    }
    shapes[op.getResult(0)] = std::move(shape);
  }
  Value yielded = body.getTerminator()->getOperand(0);
  SmallVector<int64_t> shape = shapes.lookup(yielded);
  int64_t offset = resultShape.size() - shape.size();
  // rlx.expand keeps a dynamic dim from its input, so a dynamic result dim
  // must come from a dynamic input dim.
  auto expressible = [&](int64_t i, int64_t dim) {
    int64_t from = i < offset ? 1 : shape[i - offset];
    return ShapedType::isDynamic(dim) ? ShapedType::isDynamic(from)
                                      : from == 1 || from == dim;
  };
  if (offset < 0 ||
      !llvm::all_of(
          llvm::enumerate(resultShape),
          [&](auto d) { return expressible(d.index(), d.value()); })) {
    why = "the yielded value cannot be broadcast to the result";
    return failure();
  }
  return success();
}

/// Inlines the per-element `body` (rlx ops on rank-0 tensors) on the
/// tensors `inputs`: each body op is re-created on the full-size operands,
/// which broadcast NumPy-style as the region's inputs do, with its result
/// type inferred again; rank-0 constants stay rank-0. The value it yields
/// is broadcast to `resultShape`. checkElementBody must have accepted it.
Value inlineElementBody(PrimitiveBuilder &p, Block &body, ValueRange inputs,
                        ArrayRef<int64_t> resultShape) {
  IRMapping tensors;
  tensors.map(body.getArguments(), inputs);
  for (Operation &op : body.without_terminator()) {
    Operation *copy = p.b.clone(op, tensors);
    copy->setLoc(p.loc);
    if (auto infer = dyn_cast<InferTypeOpInterface>(copy)) {
      SmallVector<Type> types;
      LogicalResult inferred = infer.inferReturnTypes(
          copy->getContext(), copy->getLoc(), copy->getOperands(),
          copy->getRawDictionaryAttrs(), copy->getPropertiesStorage(),
          copy->getRegions(), types);
      assert(succeeded(inferred) && "body ops infer their result types");
      (void)inferred;
      for (auto [result, type] : llvm::zip_equal(copy->getResults(), types))
        result.setType(type);
    }
  }
  Value yielded = tensors.lookup(body.getTerminator()->getOperand(0));
  return p.broadcastTo(yielded, resultShape);
}

RankedTensorType upsampled2x(RankedTensorType type) {
  auto twice = [](int64_t d) { return ShapedType::isDynamic(d) ? d : 2 * d; };
  ArrayRef<int64_t> s = type.getShape();
  return type.clone({s[0], s[1], twice(s[2]), twice(s[3])});
}

/// rlx.elementwise_region -> its body inlined on the inputs (the inverse of
/// rlx-fuse's elementwise-region). The prologue input is upsampled by an
/// explicit rlx.resize_nearest2x first.
struct UnfuseElementwiseRegion : OpRewritePattern<ElementwiseRegionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ElementwiseRegionOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<RankedTensorType> types =
        llvm::map_to_vector(op.getInputs().getTypes(),
                            [](Type t) { return cast<RankedTensorType>(t); });
    std::optional<uint64_t> prologue = op.getPrologueInput();
    if (prologue) {
      if (*prologue >= types.size() || types[*prologue].getRank() != 4)
        return rewriter.notifyMatchFailure(op, "prologue input not NCHW");
      types[*prologue] = upsampled2x(types[*prologue]);
    }
    Block &body = op.getBody().front();
    ArrayRef<int64_t> resultShape = op.getResult().getType().getShape();
    std::string why;
    if (failed(checkElementBody(body, types, resultShape, why)))
      return rewriter.notifyMatchFailure(op, why);
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    SmallVector<Value> inputs(op.getInputs());
    if (prologue)
      inputs[*prologue] =
          ResizeNearest2xOp::create(rewriter, p.loc, inputs[*prologue]);
    rewriter.replaceOp(op, inlineElementBody(p, body, inputs, resultShape));
    return success();
  }
};

/// rlx.batch_elementwise_region -> the body inlined once per batch input, as
/// for rlx.elementwise_region.
struct UnfuseBatchElementwiseRegion
    : OpRewritePattern<BatchElementwiseRegionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchElementwiseRegionOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    auto type = cast<RankedTensorType>(op.getInputs().front().getType());
    std::string why;
    if (failed(checkElementBody(body, type, type.getShape(), why)))
      return rewriter.notifyMatchFailure(op, why);
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    SmallVector<Value> results =
        llvm::map_to_vector(op.getInputs(), [&](Value input) {
          return inlineElementBody(p, body, input, type.getShape());
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void rlx::populateControlFlowDecompositions(RewritePatternSet &patterns,
                                            const UnfusePolicy &policy) {
  MLIRContext *ctx = patterns.getContext();
  if (policy.wants(Decomposition::IfToWhere))
    patterns.add<IfToWhere>(ctx);
  if (policy.wants(Decomposition::UnrollWhile))
    patterns.add<UnrollWhile>(ctx);
  if (policy.wants(Decomposition::InlineCustomFn))
    patterns.add<InlineIsolatedBody<CustomFnOp>>(ctx);
  if (policy.wants(Decomposition::ElementwiseRegion))
    patterns.add<UnfuseElementwiseRegion>(ctx);
  if (policy.wants(Decomposition::TransformRegion))
    patterns.add<InlineIsolatedBody<TransformRegionOp>>(ctx);
  if (policy.wants(Decomposition::BatchElementwiseRegion))
    patterns.add<UnfuseBatchElementwiseRegion>(ctx);
}
