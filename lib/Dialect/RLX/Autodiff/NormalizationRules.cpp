//===- NormalizationRules.cpp - derivatives of the norms ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// layer_norm (and layer_norm2d, a layer norm over NCHW channels), rms_norm,
// group_norm and batch_norm_inference differentiate to their dedicated
// backward ops; resize_nearest2x sums each 2 x 2 block back. The JVPs of the
// norms use the fact that the Jacobian of the normalisation (gamma = 1,
// beta = 0) is symmetric: applying it to a tangent is the backward-input op
// with unit gamma.
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

/// The feature axis of a norm, non-negative.
template <typename OpT> static int64_t featureAxis(OpT op) {
  int64_t rank = shapeOf(op.getInput()).size();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  return axis < 0 ? axis + rank : axis;
}

/// layer_norm2d is layer_norm over the channel axis of NCHW.
static int64_t featureAxis(LayerNorm2dOp) { return 1; }

/// The feature axis as the layer norm backward ops take it.
static IntegerAttr axisAttr(PrimitiveBuilder &, LayerNormOp op) {
  return op.getAxisAttr();
}
static IntegerAttr axisAttr(PrimitiveBuilder &p, LayerNorm2dOp) {
  return p.b.getI64IntegerAttr(1);
}

/// `dy` summed over every axis but the feature axis: the shift's gradient.
static Value sumToFeatures(PrimitiveBuilder &p, Value dy, int64_t axis,
                           Value like) {
  int64_t rank = shapeOf(dy).size();
  Value sum = p.reduce(ReduceKind::Sum, dy, allAxesBut(rank, axis),
                       /*keepDim=*/false);
  return shapeOf(sum) == shapeOf(like) ? sum : p.reshape(sum, shapeOf(like));
}

/// layer_norm and layer_norm2d.
template <typename OpT>
static LogicalResult layerNormVJP(OpT op, PrimitiveBuilder &p, ValueRange dys,
                                  MutableArrayRef<Value> dxs) {
  Value x = op.getInput(), dy = dys[0];
  IntegerAttr axis = axisAttr(p, op);
  dxs[0] = LayerNormBackwardInputOp::create(p.b, p.loc, x, op.getGamma(), dy,
                                            axis, op.getEpsAttr());
  dxs[1] = LayerNormBackwardGammaOp::create(p.b, p.loc, x, dy, axis,
                                            op.getEpsAttr());
  dxs[2] = sumToFeatures(p, dy, featureAxis(op), op.getBeta());
  return success();
}
static LogicalResult vjpRule(LayerNormOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  return layerNormVJP(op, p, dys, dxs);
}
static LogicalResult vjpRule(LayerNorm2dOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  return layerNormVJP(op, p, dys, dxs);
}

static LogicalResult vjpRule(RmsNormOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  Value x = op.getInput(), gamma = op.getGamma(), beta = op.getBeta();
  Value dy = dys[0];
  dxs[0] = RmsNormBackwardInputOp::create(p.b, p.loc, x, gamma, beta, dy,
                                          op.getAxisAttr(), op.getEpsAttr());
  dxs[1] = RmsNormBackwardGammaOp::create(p.b, p.loc, x, gamma, beta, dy,
                                          op.getAxisAttr(), op.getEpsAttr());
  dxs[2] = RmsNormBackwardBetaOp::create(p.b, p.loc, x, gamma, beta, dy,
                                         op.getAxisAttr(), op.getEpsAttr());
  return success();
}

/// `gamma * J t_x + t_gamma * normalized + t_beta`, the parameters
/// broadcast along the feature axis; `applyJacobian` is the unit-gamma
/// backward-input op and `normalized` the unit-gamma, zero-beta forward.
template <typename OpT>
static LogicalResult
normJVP(OpT op, PrimitiveBuilder &p, ValueRange txs, MutableArrayRef<Value> tys,
        function_ref<Value(Value ones, Value zeros, Value)> applyJacobian,
        function_ref<Value(Value ones, Value zeros)> normalized) {
  if (failed(requireStaticShapes(op, op.getGamma(), "rlx-jvp")))
    return failure();
  Value gamma = op.getGamma();
  int64_t rank = shapeOf(op.getInput()).size(), axis = featureAxis(op);
  Value ones = p.splat(shapeOf(gamma), elementTypeOf(gamma), 1.0);
  Value zeros = p.zerosLike(op.getBeta());
  auto features = [&](Value v) { return p.alongAxis(v, rank, axis); };
  Value sum = sumOverTangents(p, txs, [&](unsigned i, Value t) -> Value {
    if (i == 0)
      return p.mul(features(gamma), applyJacobian(ones, zeros, t));
    if (i == 1)
      return p.mul(features(t), normalized(ones, zeros));
    return features(t);
  });
  tys[0] = p.broadcastTo(sum, shapeOf(op.getResult()));
  return success();
}

template <typename OpT>
static LogicalResult layerNormJVP(OpT op, PrimitiveBuilder &p, ValueRange txs,
                                  MutableArrayRef<Value> tys) {
  Value x = op.getInput();
  return normJVP(
      op, p, txs, tys,
      [&](Value ones, Value, Value t) -> Value {
        return LayerNormBackwardInputOp::create(
            p.b, p.loc, x, ones, t, axisAttr(p, op), op.getEpsAttr());
      },
      [&](Value ones, Value zeros) {
        return p.layerNorm(x, ones, zeros, featureAxis(op), op.getEpsAttr());
      });
}
static LogicalResult jvpRule(LayerNormOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  return layerNormJVP(op, p, txs, tys);
}
static LogicalResult jvpRule(LayerNorm2dOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  return layerNormJVP(op, p, txs, tys);
}

static LogicalResult jvpRule(RmsNormOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  Value x = op.getInput();
  return normJVP(
      op, p, txs, tys,
      [&](Value ones, Value zeros, Value t) -> Value {
        return RmsNormBackwardInputOp::create(
            p.b, p.loc, x, ones, zeros, t, op.getAxisAttr(), op.getEpsAttr());
      },
      [&](Value ones, Value zeros) {
        return p.rmsNorm(x, ones, zeros, featureAxis(op), op.getEpsAttr());
      });
}

static LogicalResult vjpRule(GroupNormOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  Value x = op.getInput(), dy = dys[0];
  dxs[0] = GroupNormBackwardInputOp::create(
      p.b, p.loc, x, op.getGamma(), op.getBeta(), dy, op.getNumGroupsAttr(),
      op.getEpsAttr());
  dxs[1] = GroupNormBackwardGammaOp::create(
      p.b, p.loc, x, dy, op.getNumGroupsAttr(), op.getEpsAttr());
  dxs[2] = GroupNormBackwardBetaOp::create(
      p.b, p.loc, x, dy, op.getNumGroupsAttr(), op.getEpsAttr());
  return success();
}

/// The running statistics are frozen: they get no gradient.
static LogicalResult vjpRule(BatchNormInferenceOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  Value x = op.getInput(), dy = dys[0];
  Value mean = op.getRunningMean(), var = op.getRunningVar();
  dxs[0] = BatchNormInferenceBackwardInputOp::create(
      p.b, p.loc, x, op.getGamma(), mean, var, dy, op.getEpsAttr());
  dxs[1] = BatchNormInferenceBackwardGammaOp::create(p.b, p.loc, x, mean, var,
                                                     dy, op.getEpsAttr());
  dxs[2] = BatchNormInferenceBackwardBetaOp::create(p.b, p.loc, dy);
  return success();
}

/// Group norm's normalisation has a symmetric Jacobian like layer norm's:
/// `gamma * J t_x + t_gamma * normalized + t_beta`, per channel.
static LogicalResult jvpRule(GroupNormOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  Value x = op.getInput(), gamma = op.getGamma();
  if (failed(requireStaticShapes(op, gamma, "rlx-jvp")))
    return failure();
  int64_t rank = shapeOf(x).size();
  Value ones = p.splat(shapeOf(gamma), elementTypeOf(gamma), 1.0);
  Value zeros = p.zerosLike(op.getBeta());
  auto channels = [&](Value v) { return p.alongAxis(v, rank, 1); };
  Value sum = sumOverTangents(p, txs, [&](unsigned i, Value t) -> Value {
    if (i == 0)
      return p.mul(channels(gamma),
                   GroupNormBackwardInputOp::create(p.b, p.loc, x, ones, zeros,
                                                    t, op.getNumGroupsAttr(),
                                                    op.getEpsAttr()));
    if (i == 1)
      return p.mul(channels(t),
                   GroupNormOp::create(p.b, p.loc, x, ones, zeros,
                                       op.getNumGroupsAttr(), op.getEpsAttr()));
    return channels(t);
  });
  tys[0] = p.broadcastTo(sum, shapeOf(op.getResult()));
  return success();
}

/// Affine in `x` with frozen statistics: `dy * gamma * rsqrt(var + eps)` is
/// the backward-input op, for the input and (with `x - mean` as `dy`) for
/// gamma.
static LogicalResult jvpRule(BatchNormInferenceOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  if (txs[3] || txs[4])
    return op.emitError() << "rlx-jvp: the running statistics of '"
                          << op->getName() << "' are frozen (no derivative)";
  Value x = op.getInput(), mean = op.getRunningMean(), var = op.getRunningVar();
  Value sum = sumOverTangents(p, txs, [&](unsigned i, Value t) -> Value {
    if (i == 0)
      return BatchNormInferenceBackwardInputOp::create(
          p.b, p.loc, x, op.getGamma(), mean, var, t, op.getEpsAttr());
    if (i == 1)
      return BatchNormInferenceBackwardInputOp::create(
          p.b, p.loc, x, t, mean, var, p.sub(x, mean), op.getEpsAttr());
    return t;
  });
  tys[0] = p.broadcastTo(sum, shapeOf(op.getResult()));
  return success();
}

/// Each input pixel is copied into a 2 x 2 block: its gradient is the sum
/// of the block.
static LogicalResult vjpRule(ResizeNearest2xOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  dxs[0] = PoolOp::create(
      p.b, p.loc, ReduceKind::Sum, dys[0], p.b.getDenseI64ArrayAttr({2, 2}),
      p.b.getDenseI64ArrayAttr({2, 2}), p.b.getDenseI64ArrayAttr({0, 0}));
  return success();
}

/// rlx.resize is linear: its gradient is its adjoint, rlx.resize_backward
/// to the input's sizes, and the adjoint's gradient is the resize again.
static LogicalResult vjpRule(ResizeOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  ArrayRef<int64_t> inSizes =
      shapeOf(op.getInput()).take_back(op.getSizes().size());
  dxs[0] = ResizeBackwardOp::create(
      p.b, p.loc, dys[0], op.getModeAttr(), p.b.getDenseI64ArrayAttr(inSizes),
      op.getAlignCornersAttr(), op.getScalesAttr());
  return success();
}

static LogicalResult vjpRule(ResizeBackwardOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  ArrayRef<int64_t> outSizes =
      shapeOf(op.getDy()).take_back(op.getSizes().size());
  dxs[0] = ResizeOp::create(p.b, p.loc, dys[0], op.getModeAttr(),
                            p.b.getDenseI64ArrayAttr(outSizes),
                            op.getAlignCornersAttr(), op.getScalesAttr());
  return success();
}

void attachNormalizationRules(MLIRContext *ctx) {
  attachRules<LayerNormOp, LayerNorm2dOp, RmsNormOp, GroupNormOp,
              BatchNormInferenceOp>(ctx);
  attachLinearRules<ResizeNearest2xOp, ResizeOp, ResizeBackwardOp>(ctx);
}

} // namespace rlx
} // namespace mlir
