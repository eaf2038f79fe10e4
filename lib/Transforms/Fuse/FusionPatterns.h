//===- FusionPatterns.h - rlx-fuse pattern sets -----------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The rlx-fuse patterns live in one file per fused op family; this header
// holds their shared base (near-miss reporting) and match helpers, and the
// functions that add each family's patterns.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_TRANSFORMS_FUSE_FUSIONPATTERNS_H
#define RLX_LIB_TRANSFORMS_FUSE_FUSIONPATTERNS_H

#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace rlx {

/// Base of the fusion patterns: `nearMiss` reports (once per op and reason)
/// why a candidate did not fuse, when asked to.
template <typename OpTy> struct FusionPattern : OpRewritePattern<OpTy> {
  FusionPattern(MLIRContext *ctx, bool report)
      : OpRewritePattern<OpTy>(ctx), report(report) {}

  LogicalResult nearMiss(Operation *op, PatternRewriter &rewriter,
                         const Twine &fused, const Twine &why) const {
    if (report && !op->hasAttr(kReported)) {
      op->emitRemark() << "not fused into " << fused << ": " << why;
      // Mark the op so the greedy driver's revisits do not repeat remarks.
      rewriter.modifyOpInPlace(
          op, [&] { op->setAttr(kReported, UnitAttr::get(op->getContext())); });
    }
    return failure();
  }

  static constexpr StringLiteral kReported = "rlx.fuse_reported";
  bool report;
};

/// A value produced by `OpTy` whose only use is the op being fused.
template <typename OpTy> OpTy singleUseProducer(Value value) {
  auto op = value.getDefiningOp<OpTy>();
  return op && op->hasOneUse() ? op : OpTy();
}

/// `bias` is a rank-1 `[n]` tensor of `type`'s element type, `n` the last
/// (static) dim of `type`.
inline bool isRowBias(Value bias, RankedTensorType type) {
  auto biasType = cast<RankedTensorType>(bias.getType());
  return biasType.getRank() == 1 && !type.isDynamicDim(type.getRank() - 1) &&
         biasType.getDimSize(0) == type.getDimSize(type.getRank() - 1) &&
         biasType.getElementType() == type.getElementType();
}

/// SwiGLU: narrow-split + silu + mul, and the dual-matmul form.
void populateSwiGLUFusionPatterns(RewritePatternSet &patterns, bool report);

/// The attention-block chain (QKV projection .. out-projection). Runs before
/// the matmul-bias patterns, which would otherwise take its projections.
void populateAttentionBlockFusionPatterns(RewritePatternSet &patterns,
                                          bool report);

/// The post-LN encoder layer, matched on the fused ops the earlier phases
/// produce.
void populateTransformerLayerFusionPatterns(RewritePatternSet &patterns,
                                            bool report);

/// A linear layer `input @ weight (+ bias) (-> activation)`, and the ops that
/// compute it in program order (the last one produces the layer's value).
struct LinearLayer {
  Value input, weight, bias;
  std::optional<ActivationKind> activation;
  SmallVector<Operation *, 3> ops;
};

/// `value` as a linear layer: an `rlx.fused_matmul_bias_act`, or a `matmul`
/// (+ `add` of a row bias) (+ `activation` when `allowActivation`) whose
/// intermediates have one use. The use count of `value` itself is left to
/// the caller.
inline std::optional<LinearLayer> matchLinear(Value value,
                                              bool allowActivation) {
  if (auto fused = value.getDefiningOp<FusedMatMulBiasActOp>()) {
    if (fused.getActivation() && !allowActivation)
      return std::nullopt;
    return LinearLayer{fused.getInput(),
                       fused.getWeight(),
                       fused.getBias(),
                       fused.getActivation(),
                       {fused}};
  }
  if (auto act = value.getDefiningOp<ActivationOp>()) {
    std::optional<LinearLayer> layer;
    if (allowActivation && act.getInput().hasOneUse())
      layer = matchLinear(act.getInput(), /*allowActivation=*/false);
    if (!layer)
      return std::nullopt;
    layer->activation = act.getKind();
    layer->ops.push_back(act);
    return layer;
  }
  if (auto add = value.getDefiningOp<BinaryOp>()) {
    if (add.getKind() != BinaryKind::Add)
      return std::nullopt;
    for (int i = 0; i < 2; ++i) {
      auto matmul = singleUseProducer<MatMulOp>(add->getOperand(i));
      Value bias = add->getOperand(1 - i);
      if (matmul && isRowBias(bias, matmul.getType()))
        return LinearLayer{matmul.getLhs(),
                           matmul.getRhs(),
                           bias,
                           std::nullopt,
                           {matmul, add}};
    }
    return std::nullopt;
  }
  if (auto matmul = value.getDefiningOp<MatMulOp>())
    return LinearLayer{
        matmul.getLhs(), matmul.getRhs(), Value(), std::nullopt, {matmul}};
  return std::nullopt;
}

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_TRANSFORMS_FUSE_FUSIONPATTERNS_H
