//===- AttentionFusion.cpp - rlx-fuse: attention, encoder layer -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The attention block (QKV projection .. output projection) is matched from
// its rlx.attention outwards, in the primitive form rlx-unfuse emits and the
// rank-3 (packed heads) form. The post-LN encoder layer is matched from its
// last norm backwards, on the fused ops the earlier phases leave.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// [B, S, H, D] <-> [B, H, S, D].
constexpr int64_t kHeadPerm[] = {0, 2, 1, 3};

/// Erases the swallowed ops of a chain, given producers first, once the
/// chain's last op has been replaced. Every one of them has its only use in
/// the chain, so consumers-first order leaves each without uses.
void eraseChain(PatternRewriter &rewriter, ArrayRef<Operation *> ops) {
  for (Operation *op : llvm::reverse(ops))
    rewriter.eraseOp(op);
}

/// The location of a fused op: the locations of the ops it replaces.
Location chainLoc(PatternRewriter &rewriter, ArrayRef<Operation *> ops) {
  return rewriter.getFusedLoc(llvm::to_vector(
      llvm::map_range(ops, [](Operation *op) { return op->getLoc(); })));
}

/// Base of the chain matchers: a failed check records why in `why`; a
/// failure with an empty `why` means the root is not a candidate at all.
struct ChainMatcher {
  LogicalResult fail(const Twine &reason) {
    why = reason.str();
    return failure();
  }
  std::string why;
};

/// Matches a chain from `RootOp` with `Matcher` and rewrites it to `FusedOp`;
/// a candidate that fails a check gets a near-miss remark.
template <typename RootOp, typename Matcher, typename FusedOp>
struct FuseChain : FusionPattern<RootOp> {
  using FusionPattern<RootOp>::FusionPattern;
  LogicalResult matchAndRewrite(RootOp root,
                                PatternRewriter &rewriter) const override {
    Matcher matcher(root);
    if (failed(matcher.match()))
      return matcher.why.empty()
                 ? failure()
                 : this->nearMiss(root, rewriter, FusedOp::getOperationName(),
                                  matcher.why);
    matcher.rewrite(rewriter);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Attention block
//===----------------------------------------------------------------------===//

/// One of q, k, v traced back from an attention operand to its narrow of
/// the QKV projection: narrow (-> reshape [B, S, H, D] -> transpose
/// [0, 2, 1, 3]), with an optional rope on either side of the head split.
struct HeadInput {
  NarrowOp narrow;
  RopeOp rope;
  ReshapeOp reshape;
  TransposeOp transpose;
  /// The ops from the narrow to the attention operand, producers first.
  SmallVector<Operation *, 4> ops;
};

/// The structure of `operand` as a head input; `narrow` is null when it is
/// not one. Checks nothing but op kinds.
HeadInput traceHeadInput(Value operand) {
  HeadInput head;
  Value current = operand;
  auto takeRope = [&] {
    if (auto rope = current.getDefiningOp<RopeOp>(); rope && !head.rope) {
      head.rope = rope;
      head.ops.push_back(rope);
      current = rope.getInput();
    }
  };
  takeRope();
  if (cast<RankedTensorType>(operand.getType()).getRank() == 4) {
    head.transpose = current.getDefiningOp<TransposeOp>();
    if (!head.transpose)
      return head;
    head.reshape = head.transpose.getInput().getDefiningOp<ReshapeOp>();
    if (!head.reshape)
      return head;
    head.ops.append({head.transpose, head.reshape});
    current = head.reshape.getInput();
    takeRope();
  }
  head.narrow = current.getDefiningOp<NarrowOp>();
  if (head.narrow)
    head.ops.push_back(head.narrow);
  std::reverse(head.ops.begin(), head.ops.end());
  return head;
}

/// QKV projection -> narrow x3 -> heads -> [rope q, k] -> attention ->
/// merge heads -> output projection, matched from the attention.
class AttentionBlockMatcher : public ChainMatcher {
public:
  explicit AttentionBlockMatcher(AttentionOp attn)
      : attn(attn), numHeads(attn.getNumHeads()), headDim(attn.getHeadDim()),
        inner(numHeads * headDim) {}

  LogicalResult match() {
    return success(succeeded(matchHeadInputs()) && succeeded(matchSplit()) &&
                   succeeded(matchProjection()) && succeeded(matchRope()) &&
                   succeeded(matchAttention()) && succeeded(matchMerge()) &&
                   succeeded(matchOutProjection()));
  }

  void rewrite(PatternRewriter &rewriter) {
    SmallVector<Operation *> chain(qkv.ops.begin(), qkv.ops.end());
    for (const HeadInput &head : heads)
      chain.append(head.ops);
    if (maskCast && maskCast->hasOneUse())
      chain.push_back(maskCast);
    chain.push_back(attn);
    chain.append(mergeOps);
    chain.append(out.ops);
    Location loc = chainLoc(rewriter, chain);
    Operation *last = chain.pop_back_val();
    rewriter.setInsertionPoint(last);
    Value ropeCos = heads[0].rope ? heads[0].rope.getCos() : Value();
    Value ropeSin = heads[0].rope ? heads[0].rope.getSin() : Value();
    auto fused = FusedAttentionBlockOp::create(
        rewriter, loc, last->getResult(0).getType(), qkv.input, qkv.weight,
        out.weight, mask, qkv.bias, out.bias, ropeCos, ropeSin,
        attn.getNumHeadsAttr(), attn.getHeadDimAttr(), attn.getMaskKindAttr(),
        attn.getWindowAttr(), attn.getScoreScaleAttr());
    rewriter.replaceOp(last, fused.getResult());
    eraseChain(rewriter, chain);
  }

private:
  static constexpr StringLiteral kNames[] = {"Q", "K", "V"};

  /// q, k and v each come from a narrow through single-use head ops that
  /// split exactly (num_heads, head_dim).
  LogicalResult matchHeadInputs() {
    for (int i = 0; i < 3; ++i) {
      heads[i] = traceHeadInput(attn->getOperand(i));
      if (!heads[i].narrow)
        // Without a Q slice this attention is no block candidate.
        return i == 0 ? failure()
                      : fail(Twine(kNames[i]) +
                             " is not a head split of a narrow");
      if (failed(checkHeadInput(heads[i], kNames[i])))
        return failure();
    }
    return success();
  }

  LogicalResult checkHeadInput(HeadInput &head, StringRef name) {
    for (Operation *op : head.ops)
      if (!op->hasOneUse())
        return fail(Twine("the ") + name + " " + describe(op) +
                    " has other uses");
    if (head.transpose &&
        head.transpose.getPerm() != ArrayRef<int64_t>(kHeadPerm))
      return fail(Twine("the ") + name + " head transpose is not [0, 2, 1, 3]");
    if (head.reshape) {
      auto from = cast<RankedTensorType>(head.reshape.getInput().getType());
      auto to = cast<RankedTensorType>(head.reshape.getType());
      if (from.getRank() != 3 || to.getRank() != 4 ||
          to.getShape().take_front(2) != from.getShape().take_front(2) ||
          to.getDimSize(2) != numHeads || to.getDimSize(3) != headDim)
        return fail(Twine("the ") + name +
                    " heads reshape does not match num_heads x head_dim");
    }
    return success();
  }

  static StringRef describe(Operation *op) {
    if (isa<NarrowOp>(op))
      return "slice";
    if (isa<ReshapeOp>(op))
      return "heads reshape";
    if (isa<TransposeOp>(op))
      return "heads transpose";
    return "rope";
  }

  /// The narrows cut one [B, S, 3I] tensor into q | k | v along its last
  /// axis.
  LogicalResult matchSplit() {
    Value source = heads[0].narrow.getInput();
    auto type = cast<RankedTensorType>(source.getType());
    if (type.getRank() != 3 || !type.hasStaticShape())
      return fail("the sliced tensor is not a static [B, S, 3I] tensor");
    for (int i = 0; i < 3; ++i) {
      NarrowOp narrow = heads[i].narrow;
      if (narrow.getInput() != source)
        return fail("Q, K and V are not slices of one projection");
      auto axis = static_cast<int64_t>(narrow.getAxis());
      if ((axis != 2 && axis != -1) ||
          static_cast<int64_t>(narrow.getStart()) != i * inner ||
          static_cast<int64_t>(narrow.getLen()) != inner ||
          type.getDimSize(2) != 3 * inner)
        return fail("the narrows do not split the projection in thirds of "
                    "num_heads x head_dim");
    }
    return success();
  }

  LogicalResult matchProjection() {
    Value source = heads[0].narrow.getInput();
    std::optional<LinearLayer> layer =
        matchLinear(source, /*allowActivation=*/false);
    if (!layer)
      return fail("the sliced tensor is not a QKV projection (matmul (+ "
                  "bias))");
    qkv = *layer;
    if (!llvm::hasNItems(source.getUses(), 3))
      return fail("the QKV projection has other uses");
    auto hidden = cast<RankedTensorType>(qkv.input.getType());
    if (hidden.getRank() != 3 ||
        qkv.weight.getType() !=
            RankedTensorType::get({hidden.getDimSize(2), 3 * inner},
                                  hidden.getElementType()))
      return fail("the QKV projection is not [B, S, E] x [E, 3I] of one "
                  "element type");
    if (qkv.bias &&
        !isRowBias(qkv.bias, cast<RankedTensorType>(source.getType())))
      return fail("the QKV bias is not a [3I] bias of the hidden state's "
                  "element type");
    return success();
  }

  /// Rope on q and k alike (same tables, all head_dim dims), or on neither.
  LogicalResult matchRope() {
    RopeOp q = heads[0].rope, k = heads[1].rope;
    if (heads[2].rope)
      return fail("V is rotated");
    if (bool(q) != bool(k))
      return fail("only one of Q and K is rotated");
    if (!q)
      return success();
    if (q.getCos() != k.getCos() || q.getSin() != k.getSin())
      return fail("Q and K are rotated with different tables");
    for (RopeOp rope : {q, k})
      if (static_cast<int64_t>(rope.getHeadDim()) != headDim ||
          static_cast<int64_t>(rope.getNRot()) != headDim)
        return fail("the rope does not rotate all head_dim dims of each "
                    "head");
    return success();
  }

  /// The fused op has no soft cap; its custom mask may be i1, so a cast
  /// from i1 (what rlx-unfuse emits) is looked through.
  LogicalResult matchAttention() {
    if (attn.getAttnLogitSoftcap())
      return fail("the attention has a logit soft cap");
    mask = attn.getMask();
    if (attn.getMaskKind() != MaskKind::Custom || !mask)
      return success();
    if (auto castOp = mask.getDefiningOp<CastOp>();
        castOp && getElementTypeOrSelf(castOp.getInput()).isInteger(1)) {
      maskCast = castOp;
      mask = castOp.getInput();
    }
    return success();
  }

  /// The attention output goes back to [B, S, I] (a rank-3 attention is
  /// already there).
  LogicalResult matchMerge() {
    merged = attn.getResult();
    if (!merged.hasOneUse())
      return fail("the attention output has other uses");
    if (attn.getType().getRank() == 3)
      return success();
    auto transpose = dyn_cast<TransposeOp>(*merged.getUsers().begin());
    auto reshape = transpose && transpose->hasOneUse()
                       ? dyn_cast<ReshapeOp>(*transpose->getUsers().begin())
                       : ReshapeOp();
    auto hidden = cast<RankedTensorType>(qkv.input.getType());
    if (!reshape || transpose.getPerm() != ArrayRef<int64_t>(kHeadPerm) ||
        reshape.getType().getShape() !=
            ArrayRef<int64_t>(
                {hidden.getDimSize(0), hidden.getDimSize(1), inner}))
      return fail("the heads are not merged back to [B, S, I] by a "
                  "[0, 2, 1, 3] transpose and a reshape");
    mergeOps = {transpose, reshape};
    merged = reshape.getResult();
    return success();
  }

  /// merged @ out_w (+ out_b), with a bias exactly when the QKV projection
  /// has one (the fused op's has_bias covers both).
  LogicalResult matchOutProjection() {
    if (!merged.hasOneUse())
      return fail("the merged heads have other uses");
    Operation *user = *merged.getUsers().begin();
    Type elementType = getElementTypeOrSelf(qkv.input);
    auto isWeight = [&](Value weight) {
      auto type = cast<RankedTensorType>(weight.getType());
      return type.getRank() == 2 && type.getElementType() == elementType;
    };
    if (auto fused = dyn_cast<FusedMatMulBiasActOp>(user);
        fused && fused.getInput() == merged && !fused.getActivation() &&
        isWeight(fused.getWeight())) {
      if (!qkv.bias)
        return fail("the output projection has a bias but the QKV "
                    "projection has none");
      out = {merged, fused.getWeight(), fused.getBias(), std::nullopt, {fused}};
      return success();
    }
    auto matmul = dyn_cast<MatMulOp>(user);
    if (!matmul || matmul.getLhs() != merged || !isWeight(matmul.getRhs()))
      return fail("the merged heads do not feed an output projection "
                  "(matmul by an [I, N] weight)");
    out = {merged, matmul.getRhs(), Value(), std::nullopt, {matmul}};
    if (!qkv.bias)
      return success();
    auto add = matmul->hasOneUse()
                   ? dyn_cast<BinaryOp>(*matmul->getUsers().begin())
                   : BinaryOp();
    Value bias;
    if (add && add.getKind() == BinaryKind::Add)
      bias = add.getLhs() == matmul.getResult() ? add.getRhs() : add.getLhs();
    if (!bias || !isRowBias(bias, matmul.getType()))
      return fail("the QKV projection has a bias but the output projection "
                  "has none");
    out.bias = bias;
    out.ops.push_back(add);
    return success();
  }

  AttentionOp attn;
  int64_t numHeads, headDim, inner;
  HeadInput heads[3];
  LinearLayer qkv, out;
  Value mask, merged;
  CastOp maskCast;
  SmallVector<Operation *, 2> mergeOps;
};

//===----------------------------------------------------------------------===//
// Transformer layer
//===----------------------------------------------------------------------===//

/// `value` is a splat zero constant (the beta rlx-unfuse makes up for an
/// absent layer-norm shift).
bool isZeroSplat(Value value) {
  SplatElementsAttr splat;
  return matchPattern(value, m_Constant(&splat)) &&
         isa<FloatType>(splat.getElementType()) &&
         splat.getSplatValue<APFloat>().isZero();
}

/// ln2(h1 + fc2(act(fc1(h1)))) with h1 = ln1(hidden + attention(hidden)),
/// matched from the second norm.
class TransformerLayerMatcher : public ChainMatcher {
public:
  explicit TransformerLayerMatcher(FusedResidualLNOp ln2) : ln2(ln2) {}

  LogicalResult match() {
    if (failed(findLayer()))
      return failure();
    return success(succeeded(matchResiduals()) && succeeded(matchUses()) &&
                   succeeded(matchAttention()) && succeeded(matchFfn()) &&
                   succeeded(matchParameters()));
  }

  void rewrite(PatternRewriter &rewriter) {
    SmallVector<Operation *> chain = {attn, ln1};
    chain.append(fc1.ops);
    chain.append(fc2.ops);
    chain.push_back(ln2);
    Location loc = chainLoc(rewriter, chain);
    chain.pop_back();
    // rlx-unfuse stands in a zero constant for an absent shift.
    auto shift = [](Value beta) { return isZeroSplat(beta) ? Value() : beta; };
    auto fc1Weight = cast<RankedTensorType>(fc1.weight.getType());
    rewriter.setInsertionPoint(ln2);
    auto layer = FusedTransformerLayerOp::create(
        rewriter, loc, ln2.getType(), hidden, attn.getQkvW(), attn.getQkvB(),
        attn.getOutW(), attn.getOutB(), ln1.getGamma(), shift(ln1.getBeta()),
        fc1.weight, fc1.bias, fc2.weight, fc2.bias, ln2.getGamma(),
        shift(ln2.getBeta()), attn.getMask(), attn.getNumHeadsAttr(),
        attn.getHeadDimAttr(),
        rewriter.getI64IntegerAttr(fc1Weight.getDimSize(1)), ln1.getEpsAttr(),
        ln2.getEpsAttr(),
        ActivationKindAttr::get(rewriter.getContext(), *fc1.activation));
    rewriter.replaceOp(ln2, layer.getResult());
    eraseChain(rewriter, chain);
  }

private:
  /// One operand of ln2 is a feed-forward block (two linear layers) over a
  /// residual norm of an attention block; otherwise ln2 is no candidate.
  LogicalResult findLayer() {
    for (int i = 0; i < 2; ++i) {
      std::optional<LinearLayer> second =
          matchLinear(ln2->getOperand(i), /*allowActivation=*/false);
      if (!second)
        continue;
      std::optional<LinearLayer> first =
          matchLinear(second->input, /*allowActivation=*/true);
      auto norm = first ? first->input.getDefiningOp<FusedResidualLNOp>()
                        : FusedResidualLNOp();
      if (!norm)
        continue;
      for (int j = 0; j < 2; ++j) {
        attn = norm->getOperand(j).getDefiningOp<FusedAttentionBlockOp>();
        if (!attn)
          continue;
        fc2 = *second;
        fc1 = *first;
        ln1 = norm;
        hidden = norm->getOperand(1 - j);
        residual2 = ln2->getOperand(1 - i);
        return success();
      }
    }
    return failure();
  }

  /// The residuals are the layer input and the first norm's output.
  LogicalResult matchResiduals() {
    if (hidden != attn.getHidden())
      return fail("the residual is not the layer input");
    if (residual2 != ln1.getResult())
      return fail("the second residual is not the first norm's output");
    if (ln1.getBias() || ln2.getBias())
      return fail("a residual norm adds a bias");
    return success();
  }

  /// Every swallowed value is used only inside the layer; the first norm's
  /// output feeds exactly the FFN and the second residual.
  LogicalResult matchUses() {
    if (!attn->hasOneUse())
      return fail("the attention output has other uses");
    if (!llvm::hasNItems(ln1->getUses(), 2))
      return fail("the first norm's output has other uses");
    if (!fc1.ops.back()->hasOneUse())
      return fail("the FFN hidden activation has other uses");
    if (!fc2.ops.back()->hasOneUse())
      return fail("the FFN output has other uses");
    return success();
  }

  /// The layer's attention: no rope, a key-padding mask or none, the
  /// default score scale, E = num_heads * head_dim.
  LogicalResult matchAttention() {
    if (attn.getRopeCos())
      return fail("the attention block applies rope");
    MaskKind kind = attn.getMaskKind();
    if (kind != MaskKind::None && kind != MaskKind::Custom)
      return fail("the mask kind is not none or custom (key padding)");
    if (std::optional<APFloat> scale = attn.getScoreScale()) {
      float expected = 1.0f / std::sqrt(static_cast<float>(attn.getHeadDim()));
      if (scale->convertToFloat() != expected)
        return fail("the attention scales scores by other than "
                    "1/sqrt(head_dim)");
    }
    auto type = attn.getHidden().getType();
    if (!type.hasStaticShape() ||
        type.getDimSize(2) !=
            static_cast<int64_t>(attn.getNumHeads() * attn.getHeadDim()) ||
        attn.getType() != type)
      return fail("the attention block is not [B, S, E] -> [B, S, E] with "
                  "E = num_heads * head_dim");
    return success();
  }

  LogicalResult matchFfn() {
    if (!fc1.activation)
      return fail("the FFN has no activation between its projections");
    auto type = attn.getHidden().getType();
    int64_t hiddenSize = type.getDimSize(2);
    auto fc1Weight = cast<RankedTensorType>(fc1.weight.getType());
    auto fc2Weight = cast<RankedTensorType>(fc2.weight.getType());
    if (fc1Weight.getRank() != 2 || fc1Weight.getDimSize(0) != hiddenSize ||
        fc2Weight !=
            RankedTensorType::get({fc1Weight.getDimSize(1), hiddenSize},
                                  type.getElementType()) ||
        fc1Weight.getElementType() != type.getElementType())
      return fail("the FFN weights are not [E, F] and [F, E] of the hidden "
                  "state's element type");
    return success();
  }

  /// The four projection biases come together or not at all (has_bias), in
  /// the hidden state's element type.
  LogicalResult matchParameters() {
    bool hasBias = bool(attn.getQkvB());
    if (bool(fc1.bias) != hasBias || bool(fc2.bias) != hasBias)
      return fail("the projection biases are not all present or all absent "
                  "(has_bias)");
    Type elementType = attn.getHidden().getType().getElementType();
    for (Value bias : {fc1.bias, fc2.bias})
      if (bias && getElementTypeOrSelf(bias) != elementType)
        return fail("an FFN bias is not of the hidden state's element type");
    return success();
  }

  FusedResidualLNOp ln2, ln1;
  FusedAttentionBlockOp attn;
  LinearLayer fc1, fc2;
  Value hidden, residual2;
};

} // namespace

void rlx::populateAttentionBlockFusionPatterns(RewritePatternSet &patterns,
                                               bool report) {
  patterns.add<
      FuseChain<AttentionOp, AttentionBlockMatcher, FusedAttentionBlockOp>>(
      patterns.getContext(), report);
}

void rlx::populateTransformerLayerFusionPatterns(RewritePatternSet &patterns,
                                                 bool report) {
  patterns.add<FuseChain<FusedResidualLNOp, TransformerLayerMatcher,
                         FusedTransformerLayerOp>>(patterns.getContext(),
                                                   report);
}
