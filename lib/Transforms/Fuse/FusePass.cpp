//===- FusePass.cpp - rlx-fuse: primitive chains into fused ops -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Each pattern is the inverse of an rlx-unfuse decomposition and checks the
// dataflow that makes it valid. With `report`, a candidate that fails a
// check gets a remark naming the check.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXFUSE
#include "rlx/Transforms/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// matmul + add(bias) -> fused_matmul_bias_act (no activation yet).
struct FuseMatMulBias : FusionPattern<BinaryOp> {
  using FusionPattern::FusionPattern;
  LogicalResult matchAndRewrite(BinaryOp add,
                                PatternRewriter &rewriter) const override {
    if (add.getKind() != BinaryKind::Add)
      return failure();
    for (int i = 0; i < 2; ++i) {
      Value mm = add->getOperand(i), bias = add->getOperand(1 - i);
      auto matmul = mm.getDefiningOp<MatMulOp>();
      if (!matmul)
        continue;
      const char *name = "rlx.fused_matmul_bias_act";
      if (!matmul->hasOneUse())
        return nearMiss(add, rewriter, name,
                        "the matmul result has other uses");
      if (matmul.getRhs().getType().getRank() != 2)
        return nearMiss(add, rewriter, name, "the weight is not [K, N]");
      if (!isRowBias(bias, matmul.getType()))
        return nearMiss(add, rewriter, name,
                        "the added operand is not a [N] bias of the matmul's "
                        "element type");
      rewriter.replaceOpWithNewOp<FusedMatMulBiasActOp>(
          add, matmul.getLhs(), matmul.getRhs(), bias, ActivationKindAttr());
      return success();
    }
    return failure();
  }
};

/// activation(fused_matmul_bias_act without activation) -> with activation.
struct FuseActivationIntoMatMulBias : FusionPattern<ActivationOp> {
  using FusionPattern::FusionPattern;
  LogicalResult matchAndRewrite(ActivationOp act,
                                PatternRewriter &rewriter) const override {
    auto fused = act.getInput().getDefiningOp<FusedMatMulBiasActOp>();
    if (!fused || fused.getActivation())
      return failure();
    if (!fused->hasOneUse())
      return nearMiss(act, rewriter, "rlx.fused_matmul_bias_act",
                      "the pre-activation value has other uses");
    rewriter.replaceOpWithNewOp<FusedMatMulBiasActOp>(
        act, fused.getInput(), fused.getWeight(), fused.getBias(),
        act.getKindAttr());
    rewriter.eraseOp(fused);
    return success();
  }
};

/// add(x, residual) (+ add bias) + norm over the last axis.
template <typename NormOp, typename FusedOp>
struct FuseResidualNorm : FusionPattern<NormOp> {
  using FusionPattern<NormOp>::FusionPattern;
  LogicalResult matchAndRewrite(NormOp norm,
                                PatternRewriter &rewriter) const override {
    StringRef name = FusedOp::getOperationName();
    auto type = cast<RankedTensorType>(norm.getInput().getType());
    auto sum = norm.getInput().template getDefiningOp<BinaryOp>();
    if (!sum || sum.getKind() != BinaryKind::Add)
      return failure();
    int64_t axis = norm.getAxisAttr().getInt();
    if (axis != -1 && axis != type.getRank() - 1)
      return this->nearMiss(norm, rewriter, name,
                            "the norm is not over the last axis");
    if (!sum->hasOneUse())
      return this->nearMiss(norm, rewriter, name,
                            "the residual sum has other uses");
    Value x = sum.getLhs(), residual = sum.getRhs(), bias;
    // A bias added after the residual add: (x + r) + bias.
    if (isRowBias(sum.getRhs(), type)) {
      auto inner = singleUseProducer<BinaryOp>(sum.getLhs());
      if (!inner || inner.getKind() != BinaryKind::Add)
        return this->nearMiss(norm, rewriter, name,
                              "no residual add under the bias add");
      x = inner.getLhs();
      residual = inner.getRhs();
      bias = sum.getRhs();
    }
    if (x.getType() != type || residual.getType() != type)
      return this->nearMiss(norm, rewriter, name,
                            "x and residual do not both have the norm's "
                            "input type (the add broadcasts)");
    rewriter.replaceOpWithNewOp<FusedOp>(norm, x, residual, bias,
                                         norm.getGamma(), norm.getBeta(),
                                         norm.getEpsAttr());
    return success();
  }
};

/// x @ W + ((x @ A) @ B) * s -> lora_matmul(x, W, A, B, s).
struct FuseLora : FusionPattern<BinaryOp> {
  using FusionPattern::FusionPattern;
  LogicalResult matchAndRewrite(BinaryOp add,
                                PatternRewriter &rewriter) const override {
    if (add.getKind() != BinaryKind::Add)
      return failure();
    for (int i = 0; i < 2; ++i) {
      auto base = singleUseProducer<MatMulOp>(add->getOperand(i));
      auto scaled = singleUseProducer<BinaryOp>(add->getOperand(1 - i));
      if (!base || !scaled || scaled.getKind() != BinaryKind::Mul)
        continue;
      for (int j = 0; j < 2; ++j) {
        auto up = singleUseProducer<MatMulOp>(scaled->getOperand(j));
        FloatAttr scale;
        SplatElementsAttr splat;
        if (!up || !matchPattern(scaled->getOperand(1 - j), m_Constant(&splat)))
          continue;
        auto down = singleUseProducer<MatMulOp>(up.getLhs());
        if (!down || down.getLhs() != base.getLhs())
          continue;
        auto lowRank = cast<RankedTensorType>(up.getType());
        if (cast<ShapedType>(splat.getType()).getNumElements() != 1 ||
            !isa<FloatType>(splat.getElementType()))
          return nearMiss(add, rewriter, "rlx.lora_matmul",
                          "the scale is not a one-element float constant");
        // rlx.lora_matmul is [m, k] @ [k, n] + ([m, k] @ [k, r]) @ [r, n]:
        // batched (higher-rank) weights or adapters, or a sum that
        // broadcasts, are plain matmuls and stay unfused.
        auto rankOf = [](Value v) {
          return cast<RankedTensorType>(v.getType()).getRank();
        };
        if (llvm::any_of(ValueRange{base.getLhs(), base.getRhs(), down.getRhs(),
                                    up.getRhs()},
                         [&](Value v) { return rankOf(v) != 2; }) ||
            lowRank != add.getType() || base.getType() != add.getType())
          return nearMiss(add, rewriter, "rlx.lora_matmul",
                          "x, w, a and b are not all rank 2 ([m, k], [k, n], "
                          "[k, r], [r, n]) or the sum broadcasts");
        // rlx.lora_matmul holds its scale as an f32 attribute: an f64
        // graph's scale that f32 cannot represent exactly (0.1 would become
        // 0.100000001490116) stays an f64 multiply, unfused.
        APFloat value = splat.getSplatValue<APFloat>();
        APFloat single = value;
        bool inexact = false;
        single.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                       &inexact);
        if (inexact)
          return nearMiss(add, rewriter, "rlx.lora_matmul",
                          "the scale is not exact in f32, the precision of "
                          "the fused op's scale attribute");
        scale = rewriter.getF32FloatAttr(single.convertToFloat());
        rewriter.replaceOpWithNewOp<LoraMatMulOp>(add, base.getLhs(),
                                                  base.getRhs(), down.getRhs(),
                                                  up.getRhs(), scale);
        return success();
      }
    }
    return failure();
  }
};

/// The elementwise ops a region can hold: those with a scalar computation
/// (stop_gradient is kept: it marks where autodiff stops), outside region
/// bodies, whose ops are already fused.
bool isRegionable(Operation *op) {
  return isa<ScalarizableOpInterface>(op) &&
         !isa<ElementwiseRegionOp, BatchElementwiseRegionOp>(op->getParentOp());
}

/// The rank-0 `rlx.constant` of a splat constant that broadcasts into the
/// region (so its shape does not matter), or null.
DenseElementsAttr getRank0Splat(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return {};
  auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
  if (!splat)
    return {};
  return splat.resizeSplat(RankedTensorType::get({}, splat.getElementType()));
}

/// A maximal chain of elementwise ops ending at a sink -> one
/// rlx.elementwise_region. A producer joins the chain only if its one use is
/// in the chain and it has the sink's shape (a smaller intermediate would be
/// recomputed per output element); everything else becomes a region input.
struct FuseElementwiseChain : RewritePattern {
  FuseElementwiseChain(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *sink,
                                PatternRewriter &rewriter) const override {
    if (!isRegionable(sink))
      return failure();
    Type shapeType = sink->getResult(0).getType();
    auto sameShape = [&](Operation *op) {
      return cast<RankedTensorType>(op->getResult(0).getType()).getShape() ==
             cast<RankedTensorType>(shapeType).getShape();
    };
    // Not a sink if its only user would absorb it.
    if (sink->hasOneUse()) {
      Operation *user = *sink->getUsers().begin();
      if (isRegionable(user) && sameShape(user) &&
          user->getBlock() == sink->getBlock())
        return failure();
    }
    // Grow the chain backwards.
    llvm::SetVector<Operation *> chain;
    SmallVector<Operation *> worklist = {sink};
    chain.insert(sink);
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      for (Value operand : op->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (producer && !chain.contains(producer) && isRegionable(producer) &&
            producer->hasOneUse() && sameShape(producer) &&
            producer->getBlock() == sink->getBlock()) {
          chain.insert(producer);
          worklist.push_back(producer);
        }
      }
    }
    if (chain.size() < 2)
      return failure();
    // Program order, and the external inputs in first-use order.
    SmallVector<Operation *> ops(chain.begin(), chain.end());
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    // Splat constants become rank-0 constants of the body rather than
    // inputs: nothing to read per element, and the region is the same as
    // the one fused from the op that materialized them.
    llvm::SetVector<Value> inputs;
    llvm::MapVector<Value, DenseElementsAttr> rank0Constants;
    for (Operation *op : ops)
      for (Value operand : op->getOperands()) {
        if (chain.contains(operand.getDefiningOp()))
          continue;
        if (DenseElementsAttr splat = getRank0Splat(operand))
          rank0Constants.insert({operand, splat});
        else
          inputs.insert(operand);
      }
    if (inputs.empty())
      return failure();

    Location loc = rewriter.getFusedLoc(llvm::to_vector(
        llvm::map_range(ops, [](Operation *op) { return op->getLoc(); })));
    rewriter.setInsertionPoint(sink);
    auto region = ElementwiseRegionOp::create(
        rewriter, loc, shapeType, inputs.getArrayRef(), IntegerAttr());
    // The body: each op of the chain cloned on rank-0 tensors, computing
    // one element.
    Block *body = rewriter.createBlock(&region.getBody());
    auto rank0 = [](Value value) {
      return RankedTensorType::get({}, getElementTypeOrSelf(value));
    };
    IRMapping elements;
    for (Value input : inputs)
      elements.map(input, body->addArgument(rank0(input), loc));
    rewriter.setInsertionPointToStart(body);
    for (auto [value, splat] : rank0Constants)
      elements.map(value, ConstantOp::create(rewriter, value.getLoc(), splat));
    for (Operation *op : ops) {
      Operation *element = rewriter.clone(*op, elements);
      element->getResult(0).setType(rank0(op->getResult(0)));
    }
    YieldOp::create(rewriter, loc, elements.lookup(sink->getResult(0)));
    rewriter.replaceOp(sink, region.getResult());
    for (Operation *op : llvm::reverse(ops))
      if (op != sink)
        rewriter.eraseOp(op);
    return success();
  }
};

struct RLXFusePass : rlx::impl::RLXFuseBase<RLXFusePass> {
  using RLXFuseBase::RLXFuseBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Phase 1: the chains that contain matmuls the matmul-bias pattern
    // would otherwise take (attention blocks, SwiGLU projections).
    RewritePatternSet blocks(ctx);
    if (attentionBlock)
      populateAttentionBlockFusionPatterns(blocks, report);
    if (swiglu)
      populateSwiGLUFusionPatterns(blocks, report);
    if (failed(applyPatterns(std::move(blocks))))
      return signalPassFailure();
    // Phase 2: matmul + bias + activation, residual norms, LoRA.
    RewritePatternSet layers(ctx);
    if (lora)
      layers.add<FuseLora>(ctx, report);
    if (matmulBiasAct)
      layers.add<FuseMatMulBias, FuseActivationIntoMatMulBias>(ctx, report);
    if (residualNorm)
      layers.add<FuseResidualNorm<LayerNormOp, FusedResidualLNOp>,
                 FuseResidualNorm<RmsNormOp, FusedResidualRmsNormOp>>(ctx,
                                                                      report);
    if (failed(applyPatterns(std::move(layers))))
      return signalPassFailure();
    // Phase 3: whole encoder layers, out of the fused ops of phases 1-2.
    RewritePatternSet encoder(ctx);
    if (transformerLayer)
      populateTransformerLayerFusionPatterns(encoder, report);
    if (failed(applyPatterns(std::move(encoder))))
      return signalPassFailure();
    // Phase 4: elementwise chains last, so the fused ops above keep their
    // adds and activations.
    RewritePatternSet regions(ctx);
    if (elementwiseRegion)
      regions.add<FuseElementwiseChain>(ctx);
    if (failed(applyPatterns(std::move(regions))))
      signalPassFailure();
  }

private:
  /// Runs one phase to a fixpoint; an empty phase is skipped.
  LogicalResult applyPatterns(RewritePatternSet &&patterns) {
    if (patterns.getNativePatterns().empty())
      return success();
    return applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace
