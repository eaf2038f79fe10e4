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
#include "rlx/Dialect/RLX/Utils/ScalarOps.h"
#include "rlx/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
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
            !isa<FloatType>(splat.getElementType()) ||
            lowRank != add.getType() || base.getLhs().getType().getRank() != 2)
          return nearMiss(add, rewriter, "rlx.lora_matmul",
                          "the scale is not a one-element float constant or "
                          "x is not [m, k]");
        scale = rewriter.getF32FloatAttr(
            splat.getSplatValue<APFloat>().convertToDouble());
        rewriter.replaceOpWithNewOp<LoraMatMulOp>(add, base.getLhs(),
                                                  base.getRhs(), down.getRhs(),
                                                  up.getRhs(), scale);
        return success();
      }
    }
    return failure();
  }
};

/// The elementwise ops a region can hold (stop_gradient is kept: it marks
/// where autodiff stops).
bool isRegionable(Operation *op) {
  if (!isa<ActivationOp, BinaryOp, CompareOp, WhereOp, CastOp>(op))
    return false;
  // Region bodies compute on scalars of the rlx element types, and arith
  // has no unsigned integer types.
  auto unsignedInt = [](Type type) {
    auto elementType = cast<RankedTensorType>(type).getElementType();
    return elementType.isUnsignedInteger();
  };
  return llvm::none_of(op->getOperandTypes(), unsignedInt) &&
         llvm::none_of(op->getResultTypes(), unsignedInt);
}

/// The body of one region op: `op`'s per-element semantics on scalars, from
/// the same definitions the linalg lowering uses.
Value emitScalar(OpBuilder &b, Location loc, Operation *op,
                 ArrayRef<Value> args) {
  if (auto act = dyn_cast<ActivationOp>(op))
    return emitActivation(b, loc, act.getKind(), args[0]);
  if (auto bin = dyn_cast<BinaryOp>(op))
    return emitBinary(b, loc, bin.getKind(), args[0], args[1]);
  if (auto cmp = dyn_cast<CompareOp>(op))
    return emitCompare(b, loc, cmp.getKind(), args[0], args[1]);
  if (isa<WhereOp>(op))
    return emitWhere(b, loc, args[0], args[1], args[2]);
  auto castOp = cast<CastOp>(op);
  return emitCast(b, loc, args[0], getElementTypeOrSelf(castOp.getInput()),
                  getElementTypeOrSelf(castOp.getType()));
}

/// The scalar of a splat `rlx.constant` of integer or float elements that
/// broadcasts into the region (so its shape does not matter), or null.
TypedAttr splatScalarOf(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return {};
  auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
  if (!splat)
    return {};
  Type elementType = splat.getElementType();
  if (auto floatType = dyn_cast<FloatType>(elementType))
    return FloatAttr::get(floatType, splat.getSplatValue<APFloat>());
  if (auto intType = dyn_cast<IntegerType>(elementType);
      intType && intType.isSignless())
    return IntegerAttr::get(intType, splat.getSplatValue<APInt>());
  return {};
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
    // Splat constants become scalar constants of the body rather than
    // inputs: nothing to read per element, and the region is the same as
    // the one fused from the op that materialized them.
    llvm::SetVector<Value> inputs;
    llvm::MapVector<Value, TypedAttr> scalarConstants;
    for (Operation *op : ops)
      for (Value operand : op->getOperands()) {
        if (chain.contains(operand.getDefiningOp()))
          continue;
        if (TypedAttr scalar = splatScalarOf(operand))
          scalarConstants.insert({operand, scalar});
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
    Block *body = rewriter.createBlock(&region.getBody());
    IRMapping scalars;
    for (Value input : inputs)
      scalars.map(input, body->addArgument(getElementTypeOrSelf(input), loc));
    rewriter.setInsertionPointToStart(body);
    for (auto [value, scalar] : scalarConstants)
      scalars.map(value,
                  arith::ConstantOp::create(rewriter, value.getLoc(), scalar));
    for (Operation *op : ops) {
      SmallVector<Value> args = llvm::to_vector(llvm::map_range(
          op->getOperands(), [&](Value v) { return scalars.lookup(v); }));
      scalars.map(op->getResult(0),
                  emitScalar(rewriter, op->getLoc(), op, args));
    }
    YieldOp::create(rewriter, loc, scalars.lookup(sink->getResult(0)));
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
