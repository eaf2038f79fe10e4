//===- FusedDecompositions.cpp - fused ops into primitives ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Each fused op's definition as primitive rlx ops, the inverse of the
// corresponding rlx-fuse pattern.
//
//===----------------------------------------------------------------------===//

#include "UnfusePatterns.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

struct UnfuseMatMulBiasAct : OpRewritePattern<FusedMatMulBiasActOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusedMatMulBiasActOp op,
                                PatternRewriter &rewriter) const override {
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    Value y = p.linear(op.getInput(), op.getWeight(), op.getBias());
    if (std::optional<ActivationKind> act = op.getActivation())
      y = p.activation(*act, y);
    rewriter.replaceOp(op, y);
    return success();
  }
};

template <typename OpTy, bool isRms>
struct UnfuseResidualNorm : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    Value sum = p.add(op.getX(), op.getResidual());
    if (Value bias = op.getBias())
      sum = p.add(sum, bias);
    Value beta = op.getBeta() ? op.getBeta() : p.zerosLike(op.getGamma());
    Value y = isRms
                  ? p.rmsNorm(sum, op.getGamma(), beta, -1, op.getEpsAttr())
                  : p.layerNorm(sum, op.getGamma(), beta, -1, op.getEpsAttr());
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct UnfuseSwiGLU : OpRewritePattern<FusedSwiGLUOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusedSwiGLUOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getInput().getType();
    int64_t last = type.getRank() - 1;
    if (type.isDynamicDim(last))
      return rewriter.notifyMatchFailure(op, "dynamic split dim");
    int64_t half = type.getDimSize(last) / 2;
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    Value low = p.narrow(op.getInput(), last, 0, half);
    Value high = p.narrow(op.getInput(), last, half, half);
    Value up = op.getGateFirst() ? high : low;
    Value gate = op.getGateFirst() ? low : high;
    Value y = p.mul(up, p.activation(ActivationKind::Silu, gate));
    if (std::optional<Type> castTo = op.getCastTo())
      y = p.cast(y, *castTo);
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct UnfuseLora : OpRewritePattern<LoraMatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoraMatMulOp op,
                                PatternRewriter &rewriter) const override {
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    Type elementType = op.getX().getType().getElementType();
    Value base = p.matmul(op.getX(), op.getW());
    Value low = p.matmul(p.matmul(op.getX(), op.getA()), op.getB());
    Value scale = p.splat({}, elementType, op.getScale().convertToDouble());
    rewriter.replaceOp(op, p.add(base, p.mul(low, scale)));
    return success();
  }
};

struct UnfuseAttentionBlock : OpRewritePattern<FusedAttentionBlockOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusedAttentionBlockOp op,
                                PatternRewriter &rewriter) const override {
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    if (op.getHidden().getType().isDynamicDim(1))
      return rewriter.notifyMatchFailure(op, "dynamic sequence length");
    PrimitiveBuilder::AttentionCore core{static_cast<int64_t>(op.getNumHeads()),
                                         static_cast<int64_t>(op.getHeadDim()),
                                         op.getMaskKindAttr(),
                                         op.getMask(),
                                         op.getWindowAttr(),
                                         op.getScoreScaleAttr(),
                                         op.getRopeCos(),
                                         op.getRopeSin()};
    Value qkv = p.linear(op.getHidden(), op.getQkvW(), op.getQkvB());
    FailureOr<Value> merged = p.attentionCore(qkv, core);
    if (failed(merged))
      return failure();
    rewriter.replaceOp(op, p.linear(*merged, op.getOutW(), op.getOutB()));
    return success();
  }
};

struct UnfuseTransformerLayer : OpRewritePattern<FusedTransformerLayerOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusedTransformerLayerOp op,
                                PatternRewriter &rewriter) const override {
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    FailureOr<Value> layer = p.transformerLayer(op);
    if (failed(layer))
      return failure();
    rewriter.replaceOp(op, *layer);
    return success();
  }
};

} // namespace

void rlx::populateFusedDecompositions(RewritePatternSet &patterns,
                                      const UnfusePolicy &policy) {
  MLIRContext *ctx = patterns.getContext();
  if (policy.wants(Decomposition::FusedMatMulBiasAct))
    patterns.add<UnfuseMatMulBiasAct>(ctx);
  if (policy.wants(Decomposition::FusedResidualLayerNorm))
    patterns.add<UnfuseResidualNorm<FusedResidualLNOp, false>>(ctx);
  if (policy.wants(Decomposition::FusedResidualRmsNorm))
    patterns.add<UnfuseResidualNorm<FusedResidualRmsNormOp, true>>(ctx);
  if (policy.wants(Decomposition::FusedSwiGLU))
    patterns.add<UnfuseSwiGLU>(ctx);
  if (policy.wants(Decomposition::LoraMatMul))
    patterns.add<UnfuseLora>(ctx);
  if (policy.wants(Decomposition::FusedAttentionBlock))
    patterns.add<UnfuseAttentionBlock>(ctx);
  if (policy.wants(Decomposition::FusedTransformerLayer))
    patterns.add<UnfuseTransformerLayer>(ctx);
}
