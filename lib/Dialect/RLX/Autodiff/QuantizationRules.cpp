//===- QuantizationRules.cpp - derivatives of the quantization ops --------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// quantize, dequantize, fake_quantize and fake_quantize_lsq. Rounding has a
// zero derivative almost everywhere, so these rules use straight-through
// estimators: rounding counts as the identity. The i8 values of quantize and
// dequantize stand for `x / scale + zero_point`, so their derivatives (f32,
// see Differentiation.h) are in units of the scale: quantize divides by the
// scale and dequantize multiplies by it, and `dequantize(quantize(x))` has
// the derivative of PyTorch's fake_quantize_per_{tensor,channel}_affine (1
// where the value is not saturated, 0 where it is). Every rule here has a
// diagonal Jacobian, so each is one partial derivative applied to the
// cotangent (VJP) or the tangent (JVP).
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

/// The rules of an op with a diagonal Jacobian: its `partial` (the
/// derivative times `v`) applied to the cotangent and to the tangent.
template <typename OpT>
static LogicalResult applyPartial(OpT op, PrimitiveBuilder &p, ValueRange in,
                                  MutableArrayRef<Value> out, StringRef pass) {
  if (failed(requireStaticShapes(op, op->getOperand(0), pass)))
    return failure();
  if (in[0])
    out[0] = partial(op, p, in[0]);
  return success();
}

/// The non-negative axis of an optional `axis` attribute of a rank-`rank`
/// operand.
static std::optional<int64_t> channelAxis(IntegerAttr axis, int64_t rank) {
  if (!axis)
    return std::nullopt;
  int64_t value = axis.getInt();
  return value < 0 ? value + rank : value;
}

/// One f32 value per channel (or one for every channel) as a constant that
/// broadcasts against a rank-`rank` tensor with channels along `axis`.
static Value perChannel(PrimitiveBuilder &p, ArrayRef<float> values,
                        std::optional<int64_t> axis, int64_t rank) {
  Type f32 = p.b.getF32Type();
  if (values.size() == 1)
    return p.scalar(f32, values.front());
  auto type = RankedTensorType::get({int64_t(values.size())}, f32);
  Value vector =
      ConstantOp::create(p.b, p.loc, DenseElementsAttr::get(type, values));
  return p.alongAxis(vector, rank, *axis);
}

//===----------------------------------------------------------------------===//
// quantize, dequantize
//===----------------------------------------------------------------------===//

/// `v / scale` where `round(x / scale) + zero_point` lies in the i8 range,
/// 0 where it saturates.
static Value partial(QuantizeOp op, PrimitiveBuilder &p, Value v) {
  Value x = op.getInput();
  int64_t rank = shapeOf(x).size();
  std::optional<int64_t> axis = channelAxis(op.getAxisAttr(), rank);
  SmallVector<float> zeroPoints(op.getZeroPoints().begin(),
                                op.getZeroPoints().end());
  Value scale = perChannel(p, op.getScales(), axis, rank);
  Value unrounded =
      p.add(p.div(x, scale), perChannel(p, zeroPoints, axis, rank));
  return insideRange(p, unrounded, -128.5, 127.5, p.div(v, scale));
}

/// `x = (q - zero_point) * scale`: `v * scale`.
static Value partial(DequantizeOp op, PrimitiveBuilder &p, Value v) {
  int64_t rank = shapeOf(op.getInput()).size();
  return p.mul(v, perChannel(p, op.getScales(),
                             channelAxis(op.getAxisAttr(), rank), rank));
}

//===----------------------------------------------------------------------===//
// fake_quantize
//===----------------------------------------------------------------------===//

/// The straight-through estimator `ste` of the op applied to `v`. With
/// per-batch scales the dedicated kernel recomputes the scale from the
/// input; with a state the scale is the op's (the blended one, which the
/// `ema` mode returns as `updated_state`), and the estimator is composed.
/// The scale counts as a constant, as in PyTorch's fake quantization.
static Value partial(FakeQuantizeOp op, PrimitiveBuilder &p, Value v) {
  SteKind ste = op.getSte();
  if (ste == SteKind::Identity)
    return v;
  Value x = op.getInput();
  if (op.getScaleMode() == ScaleMode::PerBatch)
    return FakeQuantizeBackwardOp::create(p.b, p.loc, x, v, op.getBitsAttr(),
                                          op.getAxisAttr(), op.getSteAttr());
  Type et = elementTypeOf(x);
  int64_t rank = shapeOf(x).size();
  Value scale =
      op.getScaleMode() == ScaleMode::Ema
          ? op.getUpdatedState()
          : p.binary(BinaryKind::Max, op.getState(), p.scalar(et, 1e-12));
  if (std::optional<int64_t> axis = channelAxis(op.getAxisAttr(), rank))
    scale = p.alongAxis(scale, rank, *axis);
  double qmax = double((int64_t(1) << (op.getBits() - 1)) - 1);
  Value one = p.scalar(et, 1.0);
  switch (ste) {
  case SteKind::ClippedIdentity: {
    Value bound = p.mul(scale, p.scalar(et, qmax));
    Value inside =
        p.compare(CompareKind::Le, p.activation(ActivationKind::Abs, x), bound);
    return p.where(inside, v, p.scalar(et, 0.0));
  }
  case SteKind::Tanh: {
    Value t = p.activation(ActivationKind::Tanh, p.div(x, scale));
    return p.mul(v, p.sub(one, p.mul(t, t)));
  }
  case SteKind::HardTanh: {
    Value z = p.div(x, p.mul(scale, p.scalar(et, qmax)));
    Value slope = p.binary(BinaryKind::Max, p.scalar(et, 0.0),
                           p.sub(one, p.activation(ActivationKind::Abs, z)));
    return p.mul(v, slope);
  }
  case SteKind::Identity:
    break;
  }
  return v;
}

/// The rules of the three ops with a diagonal Jacobian. fake_quantize: the
/// state (ema, fixed) gets none, and a cotangent of the updated state is
/// dropped (the scale is a constant).
static LogicalResult vjpRule(QuantizeOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  return applyPartial(op, p, dys, dxs, "rlx-autodiff");
}
static LogicalResult jvpRule(QuantizeOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  return applyPartial(op, p, txs, tys, "rlx-jvp");
}
static LogicalResult vjpRule(DequantizeOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  return applyPartial(op, p, dys, dxs, "rlx-autodiff");
}
static LogicalResult jvpRule(DequantizeOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  return applyPartial(op, p, txs, tys, "rlx-jvp");
}
static LogicalResult vjpRule(FakeQuantizeOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  return applyPartial(op, p, dys, dxs, "rlx-autodiff");
}
static LogicalResult jvpRule(FakeQuantizeOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  return applyPartial(op, p, txs, tys, "rlx-jvp");
}

//===----------------------------------------------------------------------===//
// fake_quantize_lsq
//===----------------------------------------------------------------------===//

/// The dedicated kernels: `x` straight through where the clamp does not
/// saturate, the scale LSQ's `psi(x / s)` summed over its channel.
static LogicalResult vjpRule(FakeQuantizeLSQOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  Value x = op.getInput(), s = op.getScale();
  dxs[0] = FakeQuantizeLSQBackwardXOp::create(
      p.b, p.loc, x, s, dys[0], op.getBitsAttr(), op.getAxisAttr());
  dxs[1] = FakeQuantizeLSQBackwardScaleOp::create(
      p.b, p.loc, x, s, dys[0], op.getBitsAttr(), op.getAxisAttr());
  return success();
}

/// `backward_x(t_x) + psi(x / s) t_s`, with `psi(z) = y / s - z` where the
/// clamp does not saturate and `y / s = sign(z) q_max` where it does, so
/// `psi = y / s - backward_x(x / s)` (the kernel masks the saturated `z`).
static LogicalResult jvpRule(FakeQuantizeLSQOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  if (failed(requireStaticShapes(op, op.getInput(), "rlx-jvp")))
    return failure();
  Value x = op.getInput(), s = op.getScale();
  int64_t rank = shapeOf(x).size();
  std::optional<int64_t> axis = channelAxis(op.getAxisAttr(), rank);
  auto broadcast = [&](Value perChannel) {
    return axis ? p.alongAxis(perChannel, rank, *axis) : perChannel;
  };
  auto straightThrough = [&](Value v) -> Value {
    return FakeQuantizeLSQBackwardXOp::create(
        p.b, p.loc, x, s, v, op.getBitsAttr(), op.getAxisAttr());
  };
  tys[0] = sumOverTangents(p, txs, [&](unsigned i, Value t) -> Value {
    if (i == 0)
      return straightThrough(t);
    Value scale = broadcast(s);
    Value psi =
        p.sub(p.div(op.getResult(), scale), straightThrough(p.div(x, scale)));
    return p.mul(psi, broadcast(t));
  });
  return success();
}

void attachQuantizationRules(MLIRContext *ctx) {
  attachRules<QuantizeOp, DequantizeOp, FakeQuantizeOp, FakeQuantizeLSQOp>(ctx);
}

} // namespace rlx
} // namespace mlir
