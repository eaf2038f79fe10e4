//===- BackwardDecompositions.cpp - backward ops into primitives ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Each backward kernel op as the primitive ops that compute the derivative of
// its forward op, recomputing the forward statistics (norm moments, softmax
// probabilities, window maxima) from the forward operands as the kernels do.
// Shapes a decomposition cannot express (mostly dynamic extents that index
// constants or reshapes need) fail to match with a reason; the op then stays.
//
//===----------------------------------------------------------------------===//

#include "UnfusePatterns.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rlx;

namespace {

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

Type elementTypeOf(Value v) { return getElementTypeOrSelf(v.getType()); }
bool allStatic(ArrayRef<int64_t> dims) {
  return llvm::none_of(dims, ShapedType::isDynamic);
}

/// The statistics a mean/variance normalisation recomputes over `axes` (kept
/// as size-1 dims): `xhat = (x - mean) * invStd`, `invStd = 1/sqrt(var+eps)`.
struct Normalized {
  Value xhat, invStd;
};
Normalized normalize(PrimitiveBuilder &p, Value x, ArrayRef<int64_t> axes,
                     FloatAttr eps) {
  Type et = elementTypeOf(x);
  Value centered = p.sub(x, p.reduce(ReduceKind::Mean, x, axes, true));
  Value var = p.reduce(ReduceKind::Mean, p.mul(centered, centered), axes, true);
  Value invStd = p.activation(ActivationKind::Rsqrt,
                              p.add(var, p.scalar(et, eps.getValueAsDouble())));
  return {p.mul(centered, invStd), invStd};
}

/// `invStd * (g - mean(g) - xhat * mean(g * xhat))`, means over `axes`: the
/// input gradient of `xhat` (layer and group norm) for the upstream
/// `g = dy * gamma`.
Value normalizedInputGrad(PrimitiveBuilder &p, Value g, Normalized n,
                          ArrayRef<int64_t> axes) {
  Value meanG = p.reduce(ReduceKind::Mean, g, axes, true);
  Value meanGX = p.reduce(ReduceKind::Mean, p.mul(g, n.xhat), axes, true);
  return p.mul(n.invStd, p.sub(p.sub(g, meanG), p.mul(n.xhat, meanGX)));
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

FailureOr<Value> reluBackward(PrimitiveBuilder &p, ReluBackwardOp op) {
  return p.activationVJP(ActivationKind::Relu, op.getX(), op.getDy());
}

FailureOr<Value> activationBackward(PrimitiveBuilder &p,
                                    ActivationBackwardOp op) {
  return p.activationVJP(op.getKind(), op.getX(), op.getDy());
}

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

template <typename OpTy> int64_t normAxis(OpTy op) {
  return *normalizeAxis(op.getAxisAttr().getInt(),
                        op.getX().getType().getRank());
}

FailureOr<Value> layerNormBackwardInput(PrimitiveBuilder &p,
                                        LayerNormBackwardInputOp op) {
  int64_t rank = op.getX().getType().getRank(), axis = normAxis(op);
  Normalized n = normalize(p, op.getX(), {axis}, op.getEpsAttr());
  Value g = p.mul(op.getDy(), p.alongAxis(op.getGamma(), rank, axis));
  return normalizedInputGrad(p, g, n, {axis});
}

FailureOr<Value> layerNormBackwardGamma(PrimitiveBuilder &p,
                                        LayerNormBackwardGammaOp op) {
  int64_t rank = op.getX().getType().getRank(), axis = normAxis(op);
  Normalized n = normalize(p, op.getX(), {axis}, op.getEpsAttr());
  return p.reduce(ReduceKind::Sum, p.mul(op.getDy(), n.xhat),
                  allAxesBut(rank, axis), false);
}

/// RMS norm `y = gamma * x * r + beta`, `r = 1 / sqrt(mean(x^2) + eps)`.
template <typename OpTy>
FailureOr<Value> rmsNormBackward(PrimitiveBuilder &p, OpTy op) {
  Value x = op.getX(), dy = op.getDy();
  int64_t rank = op.getX().getType().getRank(), axis = normAxis(op);
  SmallVector<int64_t> others = allAxesBut(rank, axis);
  // d_beta = sum of dy over every axis but axis.
  if constexpr (std::is_same_v<OpTy, RmsNormBackwardBetaOp>)
    return p.reduce(ReduceKind::Sum, dy, others, false);
  Value meanSq = p.reduce(ReduceKind::Mean, p.mul(x, x), {axis}, true);
  Value r =
      p.activation(ActivationKind::Rsqrt,
                   p.add(meanSq, p.scalar(elementTypeOf(x),
                                          op.getEpsAttr().getValueAsDouble())));
  // d_gamma = sum of dy * x * r over every axis but axis.
  if constexpr (std::is_same_v<OpTy, RmsNormBackwardGammaOp>)
    return p.reduce(ReduceKind::Sum, p.mul(dy, p.mul(x, r)), others, false);
  // d_x = r * (g - x * r^2 * mean(g * x)), g = dy * gamma.
  Value g = p.mul(dy, p.alongAxis(op.getGamma(), rank, axis));
  Value meanGX = p.reduce(ReduceKind::Mean, p.mul(g, x), {axis}, true);
  return p.mul(r, p.sub(g, p.mul(x, p.mul(p.mul(r, r), meanGX))));
}

/// Group norm statistics over `[N, G, C/G * H * W]`; fails without emitting
/// anything unless C, H and W are static.
template <typename OpTy>
FailureOr<Normalized> groupNormalize(PrimitiveBuilder &p, OpTy op) {
  ArrayRef<int64_t> shape = op.getX().getType().getShape();
  if (!allStatic(shape.drop_front()))
    return p.fail(op, "group reshapes need static C, H and W");
  int64_t groups = op.getNumGroups();
  int64_t perGroup = shape[1] / groups * shape[2] * shape[3];
  Value grouped = p.reshape(op.getX(), {-1, groups, perGroup});
  return normalize(p, grouped, {2}, op.getEpsAttr());
}

/// `[N, G, C/G * H * W]` back to `x`'s `[N, C, H, W]`.
template <typename OpTy> Value ungroup(PrimitiveBuilder &p, OpTy op, Value v) {
  ArrayRef<int64_t> shape = op.getX().getType().getShape();
  return p.reshape(v, {-1, shape[1], shape[2], shape[3]});
}

FailureOr<Value> groupNormBackwardInput(PrimitiveBuilder &p,
                                        GroupNormBackwardInputOp op) {
  FailureOr<Normalized> n = groupNormalize(p, op);
  if (failed(n))
    return failure();
  // g = dy * gamma[c], then the layer-norm formula over each group.
  Value g = p.mul(op.getDy(), p.alongAxis(op.getGamma(), 4, 1));
  g = p.reshape(g, cast<ShapedType>(n->xhat.getType()).getShape());
  return ungroup(p, op, normalizedInputGrad(p, g, *n, {2}));
}

FailureOr<Value> groupNormBackwardGamma(PrimitiveBuilder &p,
                                        GroupNormBackwardGammaOp op) {
  // sum over n, h, w of dy * xhat.
  FailureOr<Normalized> n = groupNormalize(p, op);
  if (failed(n))
    return failure();
  return p.reduce(ReduceKind::Sum, p.mul(op.getDy(), ungroup(p, op, n->xhat)),
                  {0, 2, 3}, false);
}

FailureOr<Value> groupNormBackwardBeta(PrimitiveBuilder &p,
                                       GroupNormBackwardBetaOp op) {
  return p.reduce(ReduceKind::Sum, op.getDy(), {0, 2, 3}, false);
}

/// Batch norm with frozen statistics, features on the last axis.
FailureOr<Value> batchNormBackwardInput(PrimitiveBuilder &p,
                                        BatchNormInferenceBackwardInputOp op) {
  Type et = elementTypeOf(op.getX());
  // dy * gamma / sqrt(var + eps).
  Value invStd = p.activation(
      ActivationKind::Rsqrt,
      p.add(op.getVar(), p.scalar(et, op.getEpsAttr().getValueAsDouble())));
  return p.mul(op.getDy(), p.mul(op.getGamma(), invStd));
}

FailureOr<Value> batchNormBackwardGamma(PrimitiveBuilder &p,
                                        BatchNormInferenceBackwardGammaOp op) {
  Type et = elementTypeOf(op.getX());
  int64_t rank = op.getX().getType().getRank();
  // Sum over the leading axes of dy * (x - mean) / sqrt(var + eps).
  Value invStd = p.activation(
      ActivationKind::Rsqrt,
      p.add(op.getVar(), p.scalar(et, op.getEpsAttr().getValueAsDouble())));
  Value xhat = p.mul(p.sub(op.getX(), op.getMean()), invStd);
  return p.reduce(ReduceKind::Sum, p.mul(op.getDy(), xhat),
                  allAxesBut(rank, rank - 1), false);
}

FailureOr<Value> batchNormBackwardBeta(PrimitiveBuilder &p,
                                       BatchNormInferenceBackwardBetaOp op) {
  int64_t rank = op.getDy().getType().getRank();
  return p.reduce(ReduceKind::Sum, op.getDy(), allAxesBut(rank, rank - 1),
                  false);
}

//===----------------------------------------------------------------------===//
// RoPE, scans, gathers, losses, complex
//===----------------------------------------------------------------------===//

FailureOr<Value> ropeBackward(PrimitiveBuilder &p, RopeBackwardOp op) {
  // A rotation's adjoint rotates by the negated angle: the forward rope
  // with sin negated (cos is even).
  Value negSin = p.activation(ActivationKind::Neg, op.getSin());
  return p.rope(op.getDy(), op.getCos(), negSin, op.getHeadDim(), op.getNRot());
}

FailureOr<Value> cumsumBackward(PrimitiveBuilder &p, CumsumBackwardOp op) {
  auto type = op.getDy().getType();
  int64_t axis = *normalizeAxis(op.getAxisAttr().getInt(), type.getRank());
  int64_t n = type.getDimSize(axis);
  if (ShapedType::isDynamic(n))
    return p.fail(op, "the reversal needs a static extent");
  // The adjoint of a prefix sum is the suffix sum: reverse along the axis
  // (a gather of n-1 .. 0), scan with the same exclusivity, reverse back.
  // Summing in the suffix order keeps it exact, unlike total - prefix.
  Value indices = p.iota({n}, n, /*offset=*/n - 1, /*step=*/-1);
  Value flipped = GatherOp::create(p.b, p.loc, op.getDy(), indices,
                                   static_cast<uint64_t>(axis));
  Value scanned = CumsumOp::create(
      p.b, p.loc, flipped, static_cast<uint64_t>(axis), op.getExclusive());
  Value unflipped = GatherOp::create(p.b, p.loc, scanned, indices,
                                     static_cast<uint64_t>(axis));
  return unflipped;
}

FailureOr<Value> gatherBackward(PrimitiveBuilder &p, GatherBackwardOp op) {
  auto tableType = op.getResult().getType();
  ArrayRef<int64_t> table = tableType.getShape();
  ArrayRef<int64_t> dyShape = op.getDy().getType().getShape();
  int64_t axis = *normalizeAxis(op.getAxisAttr().getInt(), table.size());
  int64_t indexRank = op.getIndices().getType().getRank();
  if (!allStatic(table) || !allStatic(dyShape))
    return p.fail(op, "needs static shapes");
  // dy is P ++ I ++ Q (P = table[:axis], I = indices, Q = table[axis+1:]).
  // scatter_add accumulates rows of [U, T] into [A, T]: move I to the
  // front, flatten to [|I|, |P| |Q|], scatter, then restore P ++ A ++ Q.
  int64_t rank = dyShape.size();
  SmallVector<int64_t> perm;
  for (int64_t i = axis; i < axis + indexRank; ++i)
    perm.push_back(i);
  for (int64_t i = 0; i < rank; ++i)
    if (i < axis || i >= axis + indexRank)
      perm.push_back(i);
  // Partial products of dy's and the table's dims: they fit in int64, as
  // the Unfuse pattern leaves ops with uncountable types.
  int64_t rows = 1;
  for (int64_t i = axis; i < axis + indexRank; ++i)
    rows *= dyShape[i];
  int64_t cols = 1;
  for (int64_t i = 0, e = table.size(); i < e; ++i)
    if (i != axis)
      cols *= table[i];
  Value updates = p.reshape(p.transpose(op.getDy(), perm), {rows, cols});
  Value indices = p.reshape(op.getIndices(), {rows});
  auto scatteredType =
      RankedTensorType::get({table[axis], cols}, tableType.getElementType());
  Value scattered =
      ScatterAddOp::create(p.b, p.loc, scatteredType, updates, indices);
  SmallVector<int64_t> front = {table[axis]};
  SmallVector<int64_t> back;
  for (int64_t i = 0, e = table.size(); i < e; ++i)
    if (i != axis)
      front.push_back(table[i]);
  // front is A ++ P ++ Q; move A back to position axis.
  for (int64_t i = 1; i <= axis; ++i)
    back.push_back(i);
  back.push_back(0);
  for (int64_t i = axis + 1, e = table.size(); i < e; ++i)
    back.push_back(i);
  return p.transpose(p.reshape(scattered, front), back);
}

FailureOr<Value> softmaxCrossEntropyBackward(PrimitiveBuilder &p,
                                             SoftmaxCrossEntropyBackwardOp op) {
  int64_t classes = op.getLogits().getType().getDimSize(1);
  if (ShapedType::isDynamic(classes))
    return p.fail(op, "the one-hot class index needs a static class count");
  Type et = elementTypeOf(op.getLogits());
  // (softmax(logits) - onehot(labels)) * d_loss[:, None]; a row whose label
  // is outside [0, C) is ignored (its loss is 0), so its gradient is 0.
  Value labels = p.reshape(p.cast(op.getLabels(), p.b.getI64Type()), {-1, 1});
  Value onehot = p.cast(
      p.compare(CompareKind::Eq, p.iota({classes}, classes), labels), et);
  Value probs = SoftmaxOp::create(p.b, p.loc, op.getLogits(), (uint64_t)1);
  Value dLoss = p.mul(p.reshape(op.getDLoss(), {-1, 1}),
                      p.labelsInRange(labels, classes, et));
  return p.mul(p.sub(probs, onehot), dLoss);
}

FailureOr<Value> complexNormSqBackward(PrimitiveBuilder &p,
                                       ComplexNormSqBackwardOp op) {
  // g * z for the real g: cast g to complex (imaginary part 0) and multiply.
  Value g = p.cast(op.getG(), elementTypeOf(op.getZ()));
  return p.mul(g, op.getZ());
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

FailureOr<Value> attentionBackward(PrimitiveBuilder &p,
                                   AttentionBackwardOp op) {
  auto qType = op.getQ().getType();
  auto kType = op.getK().getType();
  bool packed = qType.getRank() == 3;
  int64_t sq = qType.getDimSize(packed ? 1 : 2);
  int64_t sk = kType.getDimSize(packed ? 1 : 2);
  MaskKind kind = op.getMaskKind();
  bool positional = kind == MaskKind::Causal || kind == MaskKind::SlidingWindow;
  if ((packed || positional || kind == MaskKind::Custom) &&
      (ShapedType::isDynamic(sq) || ShapedType::isDynamic(sk)))
    return p.fail(op, "head splits and position or key-padding "
                      "masks need static sequence lengths");
  if (positional && sk < sq)
    return p.fail(op, "causal and sliding-window masks need Sk >= Sq");
  int64_t heads = op.getNumHeads(), dim = op.getHeadDim();
  // Work in [B, H, S, D]; the packed layout [B, S, H * D] splits heads.
  auto toHeads = [&](Value t, int64_t s) {
    if (!packed)
      return t;
    return p.transpose(p.reshape(t, {-1, s, heads, dim}), {0, 2, 1, 3});
  };
  auto fromHeads = [&](Value t, int64_t s) {
    if (!packed)
      return t;
    return p.reshape(p.transpose(t, {0, 2, 1, 3}), {-1, s, heads * dim});
  };
  Value q = toHeads(op.getQ(), sq), k = toHeads(op.getK(), sk);
  Value v = toHeads(op.getV(), sk), dy = toHeads(op.getDy(), sq);

  // Recompute the forward probabilities exactly as rlx.attention does.
  std::optional<int64_t> window;
  if (op.getWindow())
    window = static_cast<int64_t>(*op.getWindow());
  PrimitiveBuilder::AttentionProbabilities attention = p.attentionProbabilities(
      q, k, op.getMask(), kind, window, op.getScoreScaleAttr(),
      op.getAttnLogitSoftcapAttr(), dim);
  Value probs = attention.probs;
  Type et = elementTypeOf(op.getQ());

  AttentionBwdWrt wrt = op.getWrt();
  if (wrt == AttentionBwdWrt::Value) {
    // dV = p^T dy.
    return fromHeads(p.matmul(p.swapLastTwo(probs), dy), sk);
  }
  // dS = p * (dP - rowsum(p * dP)) with dP = dy v^T, through the soft cap
  // (d(c tanh(s/c))/ds = 1 - tanh^2) and the scale.
  Value dp = p.matmul(dy, p.swapLastTwo(v));
  Value ds = p.softmaxJacobian(probs, dp, 3);
  if (Value capTanh = attention.capTanh)
    ds = p.mul(ds, p.sub(p.scalar(et, 1.0), p.mul(capTanh, capTanh)));
  ds = p.mul(ds, attention.scale);
  if (wrt == AttentionBwdWrt::Query)
    return fromHeads(p.matmul(ds, k), sq);
  return fromHeads(p.matmul(p.swapLastTwo(ds), q), sk);
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// The output padding that makes a transposed convolution of `out` positions
/// produce `in` positions: the remainder a strided forward window dropped.
int64_t outputPadding(int64_t in, int64_t out, int64_t kernel, int64_t stride,
                      int64_t pad, int64_t dilation) {
  return in - ((out - 1) * stride - 2 * pad + dilation * (kernel - 1) + 1);
}

FailureOr<Value> conv2dBackwardInput(PrimitiveBuilder &p,
                                     Conv2dBackwardInputOp op) {
  ArrayRef<int64_t> x = op.getResult().getType().getShape();
  ArrayRef<int64_t> dy = op.getDy().getType().getShape();
  if (!allStatic(x.drop_front(2)) || !allStatic(dy.drop_front(2)))
    return p.fail(op, "the output padding needs static spatial extents");
  // conv_transpose2d infers N from dy and C_in from the weight.
  int64_t cin = op.getWeight().getType().getDimSize(1) * op.getGroups();
  if (x[0] != dy[0] || ShapedType::isDynamic(x[1]) || x[1] != cin)
    return p.fail(op,
                  "the result's N and C_in must be those of dy and the weight");
  ArrayRef<int64_t> k = op.getKernelSize(), s = op.getStride(),
                    pad = op.getPadding(), d = op.getDilation();
  SmallVector<int64_t> outPad = {
      outputPadding(x[2], dy[2], k[0], s[0], pad[0], d[0]),
      outputPadding(x[3], dy[3], k[1], s[1], pad[1], d[1])};
  // The transposed convolution with the forward weight [C_out, C_in/g, kH,
  // kW], read in conv_transpose2d's [C_in', C_out'/g, kH, kW] layout, is
  // the adjoint of the forward convolution with the same geometry.
  Value dx = ConvTranspose2dOp::create(p.b, p.loc, op.getDy(), op.getWeight(),
                                       k, s, pad, d, outPad, op.getGroups());
  return dx;
}

FailureOr<Value> conv2dBackwardWeight(PrimitiveBuilder &p,
                                      Conv2dBackwardWeightOp op) {
  ArrayRef<int64_t> x = op.getX().getType().getShape();
  ArrayRef<int64_t> dy = op.getDy().getType().getShape();
  if (!allStatic(x.drop_front()) || !allStatic(dy.drop_front()) ||
      !op.getType().hasStaticShape())
    return p.fail(op, "the column reshapes need static C, H and W");
  ArrayRef<int64_t> k = op.getKernelSize();
  int64_t groups = op.getGroups();
  int64_t cinG = x[1] / groups, coutG = dy[1] / groups;
  int64_t window = cinG * k[0] * k[1];
  // dW[co, ci, kh, kw] = sum over n, oh, ow of dy[n, co, oh, ow] times the
  // input the window (oh, ow) reads at (ci, kh, kw): im2col lays those
  // reads out as rows [N Ho Wo, C_in kH kW], so per group
  //   dW_g = dy_g [C_out/g, N Ho Wo] @ cols_g [N Ho Wo, C_in/g kH kW].
  Value cols = Im2ColOp::create(p.b, p.loc, op.getX(), k, op.getStride(),
                                op.getPadding(), op.getDilation());
  cols = p.transpose(p.reshape(cols, {-1, groups, window}), {1, 0, 2});
  Value dyRows =
      p.reshape(p.transpose(op.getDy(), {1, 0, 2, 3}), {groups, coutG, -1});
  Value dw = p.matmul(dyRows, cols);
  return p.reshape(dw, {dy[1], cinG, k[0], k[1]});
}

FailureOr<Value> maxPool2dBackward(PrimitiveBuilder &p,
                                   MaxPool2dBackwardOp op) {
  ArrayRef<int64_t> x = op.getX().getType().getShape();
  ArrayRef<int64_t> dyShape = op.getDy().getType().getShape();
  if (!allStatic(x.drop_front()) || !allStatic(dyShape.drop_front(2)))
    return p.fail(op, "the window reshapes need static C, H and W");
  Type et = elementTypeOf(op.getX());
  ArrayRef<int64_t> k = op.getKernelSize(), s = op.getStride(),
                    pad = op.getPadding();
  int64_t ho = dyShape[2], wo = dyShape[3], windows = ho * wo;
  int64_t taps = k[0] * k[1];
  // Every window of every (n, c) plane as a row of kH kW taps; the pool pads
  // with -inf, which is never the maximum.
  Value cols = p.poolWindows(op.getX(), k, s, pad,
                             -std::numeric_limits<double>::infinity());
  Value routed =
      p.where(p.firstMaximumTaps(cols), p.reshape(op.getDy(), {-1, windows, 1}),
              p.scalar(et, 0.0));
  // Scatter the taps back to their input positions, accumulating overlaps.
  routed = p.reshape(p.transpose(routed, {0, 2, 1}), {-1, taps, ho, wo});
  Value dx = p.col2im(routed, x[2], x[3], k, s, pad, {1, 1});
  return p.reshape(dx, {-1, x[1], x[2], x[3]});
}

/// Replaces an op by the value its decomposition returns, or leaves it
/// when the decomposition fails (before emitting anything).
template <typename OpTy,
          FailureOr<Value> (*decompose)(PrimitiveBuilder &, OpTy)>
struct Unfuse : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (findUncountableType(op))
      return rewriter.notifyMatchFailure(
          op, "a type whose dims multiply past int64");
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    FailureOr<Value> result = decompose(p, op);
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

} // namespace

void rlx::populateBackwardDecompositions(RewritePatternSet &patterns,
                                         const UnfusePolicy &policy) {
  MLIRContext *ctx = patterns.getContext();
  using D = Decomposition;
  if (policy.wants(D::ReluBackward))
    patterns.add<Unfuse<ReluBackwardOp, reluBackward>>(ctx);
  if (policy.wants(D::ActivationBackward))
    patterns.add<Unfuse<ActivationBackwardOp, activationBackward>>(ctx);
  if (policy.wants(D::LayerNormBackward))
    patterns.add<Unfuse<LayerNormBackwardInputOp, layerNormBackwardInput>,
                 Unfuse<LayerNormBackwardGammaOp, layerNormBackwardGamma>>(ctx);
  if (policy.wants(D::RmsNormBackward))
    patterns.add<
        Unfuse<RmsNormBackwardInputOp, rmsNormBackward<RmsNormBackwardInputOp>>,
        Unfuse<RmsNormBackwardGammaOp, rmsNormBackward<RmsNormBackwardGammaOp>>,
        Unfuse<RmsNormBackwardBetaOp, rmsNormBackward<RmsNormBackwardBetaOp>>>(
        ctx);
  if (policy.wants(D::GroupNormBackward))
    patterns.add<Unfuse<GroupNormBackwardInputOp, groupNormBackwardInput>,
                 Unfuse<GroupNormBackwardGammaOp, groupNormBackwardGamma>,
                 Unfuse<GroupNormBackwardBetaOp, groupNormBackwardBeta>>(ctx);
  if (policy.wants(D::BatchNormInferenceBackward))
    patterns
        .add<Unfuse<BatchNormInferenceBackwardInputOp, batchNormBackwardInput>,
             Unfuse<BatchNormInferenceBackwardGammaOp, batchNormBackwardGamma>,
             Unfuse<BatchNormInferenceBackwardBetaOp, batchNormBackwardBeta>>(
            ctx);
  if (policy.wants(D::RopeBackward))
    patterns.add<Unfuse<RopeBackwardOp, ropeBackward>>(ctx);
  if (policy.wants(D::CumsumBackward))
    patterns.add<Unfuse<CumsumBackwardOp, cumsumBackward>>(ctx);
  if (policy.wants(D::GatherBackward))
    patterns.add<Unfuse<GatherBackwardOp, gatherBackward>>(ctx);
  if (policy.wants(D::SoftmaxCrossEntropyBackward))
    patterns.add<
        Unfuse<SoftmaxCrossEntropyBackwardOp, softmaxCrossEntropyBackward>>(
        ctx);
  if (policy.wants(D::ComplexNormSqBackward))
    patterns.add<Unfuse<ComplexNormSqBackwardOp, complexNormSqBackward>>(ctx);
  if (policy.wants(D::AttentionBackward))
    patterns.add<Unfuse<AttentionBackwardOp, attentionBackward>>(ctx);
  if (policy.wants(D::Conv2dBackward))
    patterns.add<Unfuse<Conv2dBackwardInputOp, conv2dBackwardInput>,
                 Unfuse<Conv2dBackwardWeightOp, conv2dBackwardWeight>>(ctx);
  if (policy.wants(D::MaxPool2dBackward))
    patterns.add<Unfuse<MaxPool2dBackwardOp, maxPool2dBackward>>(ctx);
}
