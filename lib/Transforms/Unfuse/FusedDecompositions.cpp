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

#include "PrimitiveBuilder.h"
#include "UnfusePatterns.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// A zero shift standing in for an absent norm beta: the shape and dtype of
/// `gamma`.
Value zeroLike(PrimitiveBuilder &p, Value gamma) {
  auto type = cast<RankedTensorType>(gamma.getType());
  return p.splat(type.getShape(), type.getElementType(), 0.0);
}

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
    Value beta = op.getBeta() ? op.getBeta() : zeroLike(p, op.getGamma());
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

/// The attention core shared by the attention block and the transformer
/// layer: split `qkv` [B, S, 3I] into heads, optional rope, attention, merge
/// heads back to [B, S, I].
struct AttentionCore {
  int64_t numHeads, headDim;
  MaskKindAttr maskKind;
  Value mask;
  IntegerAttr window;
  FloatAttr scoreScale;
  Value ropeCos, ropeSin;
};

FailureOr<Value> splitAttendMerge(PrimitiveBuilder &p, Value qkv,
                                  const AttentionCore &core) {
  // rlx.attention takes masks in the activation's float type: an i1 mask
  // becomes 1.0 (valid) / 0.0.
  Value mask = core.mask;
  Type elementType = cast<RankedTensorType>(qkv.getType()).getElementType();
  if (mask &&
      cast<RankedTensorType>(mask.getType()).getElementType() != elementType)
    mask = p.cast(mask, elementType);
  auto type = cast<RankedTensorType>(qkv.getType());
  int64_t seq = type.getDimSize(1);
  if (ShapedType::isDynamic(seq))
    return failure(); // Head reshapes need the sequence length.
  int64_t heads = core.numHeads, dim = core.headDim;
  int64_t inner = heads * dim;
  auto toHeads = [&](Value t) {
    return p.transpose(p.reshape(t, {-1, seq, heads, dim}), {0, 2, 1, 3});
  };
  Value q = toHeads(p.narrow(qkv, 2, 0, inner));
  Value k = toHeads(p.narrow(qkv, 2, inner, inner));
  Value v = toHeads(p.narrow(qkv, 2, 2 * inner, inner));
  if (core.ropeCos) {
    q = p.rope(q, core.ropeCos, core.ropeSin, dim, dim);
    k = p.rope(k, core.ropeCos, core.ropeSin, dim, dim);
  }
  OpBuilder &b = p.b;
  Value attended =
      AttentionOp::create(b, p.loc, q, k, v, mask, b.getI64IntegerAttr(heads),
                          b.getI64IntegerAttr(dim), core.maskKind, core.window,
                          core.scoreScale, FloatAttr());
  return p.reshape(p.transpose(attended, {0, 2, 1, 3}), {-1, seq, inner});
}

struct UnfuseAttentionBlock : OpRewritePattern<FusedAttentionBlockOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusedAttentionBlockOp op,
                                PatternRewriter &rewriter) const override {
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    if (op.getHidden().getType().isDynamicDim(1))
      return rewriter.notifyMatchFailure(op, "dynamic sequence length");
    AttentionCore core{static_cast<int64_t>(op.getNumHeads()),
                       static_cast<int64_t>(op.getHeadDim()),
                       op.getMaskKindAttr(),
                       op.getMask(),
                       op.getWindowAttr(),
                       op.getScoreScaleAttr(),
                       op.getRopeCos(),
                       op.getRopeSin()};
    Value qkv = p.linear(op.getHidden(), op.getQkvW(), op.getQkvB());
    FailureOr<Value> merged = splitAttendMerge(p, qkv, core);
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
    return success(succeeded(decomposeFusedTransformerLayer(rewriter, op)));
  }
};

} // namespace

FailureOr<Value>
rlx::decomposeFusedTransformerLayer(RewriterBase &rewriter,
                                    FusedTransformerLayerOp op) {
  if (op.getHidden().getType().isDynamicDim(1))
    return rewriter.notifyMatchFailure(op, "dynamic sequence length");
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  PrimitiveBuilder p(rewriter, decompositionLoc(op));
  MLIRContext *ctx = op.getContext();
  // The layer's mask is a [B, S] key-padding mask.
  AttentionCore core{
      static_cast<int64_t>(op.getNumHeads()),
      static_cast<int64_t>(op.getHeadDim()),
      MaskKindAttr::get(ctx, op.getMask() ? MaskKind::Custom : MaskKind::None),
      op.getMask(),
      IntegerAttr(),
      FloatAttr(),
      Value(),
      Value()};
  Value hidden = op.getHidden();
  Value qkv = p.linear(hidden, op.getQkvW(), op.getQkvB());
  FailureOr<Value> merged = splitAttendMerge(p, qkv, core);
  if (failed(merged))
    return failure();
  Value attnOut = p.linear(*merged, op.getOutW(), op.getOutB());
  Value ln1Beta = op.getLn1B() ? op.getLn1B() : zeroLike(p, op.getLn1G());
  Value h1 = p.layerNorm(p.add(hidden, attnOut), op.getLn1G(), ln1Beta, -1,
                         op.getEps1Attr());
  Value ff = p.activation(op.getActivation(),
                          p.linear(h1, op.getFc1W(), op.getFc1B()));
  Value ff2 = p.linear(ff, op.getFc2W(), op.getFc2B());
  Value ln2Beta = op.getLn2B() ? op.getLn2B() : zeroLike(p, op.getLn2G());
  Value out =
      p.layerNorm(p.add(h1, ff2), op.getLn2G(), ln2Beta, -1, op.getEps2Attr());
  rewriter.replaceOp(op, out);
  return out;
}

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
