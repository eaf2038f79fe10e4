//===- PrimitiveBuilder.h - the shared builder of rlx ops -------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The one builder of rlx ops that decompositions, fusion and autodiff emit
// with: short calls at one location, result types inferred. Callers check
// shapes before emitting, so it does not verify; GraphBuilder wraps it and
// adds verification and diagnostics for user-facing construction.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_UTILS_PRIMITIVEBUILDER_H
#define RLX_DIALECT_RLX_UTILS_PRIMITIVEBUILDER_H

#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace rlx {

class PrimitiveBuilder {
public:
  /// Inside a rewrite: failures are reported to `rewriter` as match
  /// failures.
  PrimitiveBuilder(RewriterBase &rewriter, Location loc)
      : b(rewriter), loc(loc), rewriter(&rewriter) {}
  PrimitiveBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  /// Gives up on building `op`'s replacement: a match failure with `reason`
  /// inside a rewrite, a plain failure otherwise.
  LogicalResult fail(Operation *op, const Twine &reason) {
    if (rewriter)
      return rewriter->notifyMatchFailure(op, reason);
    return failure();
  }

  Value matmul(Value lhs, Value rhs) {
    return MatMulOp::create(b, loc, lhs, rhs);
  }
  Value binary(BinaryKind kind, Value lhs, Value rhs) {
    return BinaryOp::create(b, loc, kind, lhs, rhs);
  }
  Value add(Value lhs, Value rhs) { return binary(BinaryKind::Add, lhs, rhs); }
  Value sub(Value lhs, Value rhs) { return binary(BinaryKind::Sub, lhs, rhs); }
  Value mul(Value lhs, Value rhs) { return binary(BinaryKind::Mul, lhs, rhs); }
  Value div(Value lhs, Value rhs) { return binary(BinaryKind::Div, lhs, rhs); }
  /// `x @ w (+ bias)`, bias broadcast over rows.
  Value linear(Value x, Value w, Value bias) {
    Value y = matmul(x, w);
    return bias ? add(y, bias) : y;
  }
  Value activation(ActivationKind kind, Value x) {
    return ActivationOp::create(b, loc, kind, x);
  }
  Value conjugate(Value z) { return ConjugateOp::create(b, loc, z); }
  Value cast(Value x, Type elementType) {
    return CastOp::create(b, loc, x, elementType);
  }
  Value narrow(Value x, int64_t axis, int64_t start, int64_t length) {
    return NarrowOp::create(b, loc, x, b.getI64IntegerAttr(axis),
                            b.getI64IntegerAttr(start),
                            b.getI64IntegerAttr(length));
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    return ReshapeOp::create(b, loc, x, shape);
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    return TransposeOp::create(b, loc, x, perm);
  }
  Value layerNorm(Value x, Value gamma, Value beta, int64_t axis,
                  FloatAttr eps) {
    return LayerNormOp::create(b, loc, x, gamma, beta,
                               b.getI64IntegerAttr(axis), eps);
  }
  Value rmsNorm(Value x, Value gamma, Value beta, int64_t axis, FloatAttr eps) {
    return RmsNormOp::create(b, loc, x, gamma, beta, b.getI64IntegerAttr(axis),
                             eps);
  }
  Value rope(Value x, Value cos, Value sin, int64_t headDim, int64_t nRot) {
    return RopeOp::create(b, loc, x, cos, sin, b.getI64IntegerAttr(headDim),
                          b.getI64IntegerAttr(nRot));
  }
  /// A splat constant of `shape` with `elementType`: `value` converted to
  /// it (truncated toward zero for an integer type).
  Value splat(ArrayRef<int64_t> shape, Type elementType, double value) {
    auto type = RankedTensorType::get(shape, elementType);
    TypedAttr element =
        llvm::isa<IntegerType>(elementType)
            ? TypedAttr(b.getIntegerAttr(elementType,
                                         static_cast<int64_t>(value)))
            : TypedAttr(b.getFloatAttr(elementType, value));
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type, element));
  }
  /// Zeros of the static `type`, of any element type.
  Value zeros(RankedTensorType type) {
    // A complex zero is the cast of a real one: the builder has no complex
    // zero attribute.
    if (auto complex = llvm::dyn_cast<ComplexType>(type.getElementType()))
      return cast(zeros(type.clone(complex.getElementType())), complex);
    return ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
  }
  /// Zeros of `like`'s static shape and element type (an absent norm shift,
  /// a zero gradient or tangent).
  Value zerosLike(Value like) {
    return zeros(llvm::cast<RankedTensorType>(like.getType()));
  }
  /// A rank-0 zero of any element type, broadcast by the binary ops.
  Value zeroScalar(Type elementType) {
    return zeros(RankedTensorType::get({}, elementType));
  }
  /// A rank-0 constant `value` of `elementType`, broadcast by the binary ops.
  Value scalar(Type elementType, double value) {
    return splat({}, elementType, value);
  }
  /// `offset + step * i` for i in `0, 1, ..., n - 1` as an i64 tensor of
  /// `shape`, whose element count is `n`, computed in IR (no constant of n
  /// values).
  Value iota(ArrayRef<int64_t> shape, int64_t n, int64_t offset = 0,
             int64_t step = 1);
  Value reduce(ReduceKind kind, Value x, ArrayRef<int64_t> axes, bool keepDim) {
    return ReduceOp::create(b, loc, kind, x, axes, keepDim);
  }
  /// `probs * (v - sum(probs * v))` over `axis`: the softmax Jacobian at the
  /// probabilities `probs` (symmetric) applied to `v`, the derivative of
  /// every softmax in either direction.
  Value softmaxJacobian(Value probs, Value v, int64_t axis) {
    Value dot =
        reduce(ReduceKind::Sum, mul(probs, v), {axis}, /*keepDim=*/true);
    return mul(probs, sub(v, dot));
  }
  /// `[D]` reshaped to broadcast along `axis` of a rank-`rank` tensor:
  /// `[D, 1, ..., 1]` with one 1 per dim after `axis`.
  Value alongAxis(Value vector, int64_t rank, int64_t axis);
  /// `x` with its last two dims swapped.
  Value swapLastTwo(Value x);
  Value compare(CompareKind kind, Value lhs, Value rhs) {
    return CompareOp::create(b, loc, kind, lhs, rhs);
  }
  /// 1 where `0 <= labels < classes`, else 0, as `elementType` of `labels`'
  /// shape: the rows the softmax cross-entropy counts (an out-of-range
  /// label, PyTorch's ignore_index -100 among them, is ignored).
  Value labelsInRange(Value labels, int64_t classes, Type elementType) {
    Type labelType = getElementTypeOrSelf(labels.getType());
    Value low = cast(compare(CompareKind::Ge, labels, scalar(labelType, 0)),
                     elementType);
    Value high =
        cast(compare(CompareKind::Lt, labels, scalar(labelType, classes)),
             elementType);
    return mul(low, high);
  }
  Value where(Value cond, Value onTrue, Value onFalse) {
    return WhereOp::create(b, loc, cond, onTrue, onFalse);
  }
  /// `x` broadcast NumPy-style to `shape`, keeping its element type. A
  /// static `x` of lower rank is first reshaped to the rank (left padded
  /// with 1s), one of higher rank (a one-element `[1]` predicate for a
  /// rank-0 value) down to it. A dynamic dim of `shape` keeps the aligned
  /// dim of `x`; the consumer's own broadcast stretches it.
  Value broadcastTo(Value x, ArrayRef<int64_t> shape) {
    auto type = llvm::cast<RankedTensorType>(x.getType());
    int64_t rank = shape.size();
    if (type.hasStaticShape() && type.getRank() != rank) {
      SmallVector<int64_t> padded(std::max<int64_t>(rank - type.getRank(), 0),
                                  1);
      if (type.getRank() < rank)
        llvm::append_range(padded, type.getShape());
      else
        padded.assign(rank, 1);
      x = reshape(x, padded);
    }
    if (llvm::cast<RankedTensorType>(x.getType()).getShape() == shape)
      return x;
    SmallVector<int64_t> target = llvm::map_to_vector(
        shape, [](int64_t d) { return ShapedType::isDynamic(d) ? -1 : d; });
    return ExpandOp::create(b, loc, x, target);
  }

  /// `x` summed down to the static `shape` it was broadcast from (NumPy
  /// rules): over its extra leading axes and over every axis where `shape`
  /// has a 1 and `x` does not, with one keep-dim reduction and a reshape.
  /// Returns `x` itself when it already has `shape`.
  Value sumToShape(Value x, ArrayRef<int64_t> shape);
  /// `dy`, the result of a reduction of a `shape` tensor over `axes`
  /// (`keepDim` as the reduction had it), broadcast back to `shape`.
  Value expandReduced(Value dy, ArrayRef<int64_t> shape, ArrayRef<int64_t> axes,
                      bool keepDim);

  /// Every `kernel` window of each `[H, W]` plane of the NCHW `x` (static C,
  /// H and W) as a row of `kH kW` taps, row-major in the window: `[N C,
  /// H_out W_out, kH kW]`, by `rlx.im2col` (no dilation). Taps in the
  /// padding hold `padValue` (the identity of a pooling reduction).
  Value poolWindows(Value x, ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                    ArrayRef<int64_t> padding, double padValue);
  /// The i1 mask of the first tap (in row-major window order) equal to the
  /// maximum of its window, over the last axis of `windows`: where max
  /// pooling routes its cotangent and reads its tangent.
  Value firstMaximumTaps(Value windows);
  /// col2im, the adjoint of `rlx.im2col` on one-channel planes: `taps` `[P,
  /// kH kW, H_out, W_out]` scattered back into `[P, 1, H, W]`, adding up
  /// where windows overlap and dropping the padding, as the transposed
  /// convolution with the identity kernel `w[t, 0, kh, kw] = (t == kh kW +
  /// kw)`.
  Value col2im(Value taps, int64_t h, int64_t w, ArrayRef<int64_t> kernel,
               ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
               ArrayRef<int64_t> dilation);

  /// `f'(x)` of activation `kind` in closed form, or null for the kinds
  /// whose gradient is not a product with the cotangent (relu, abs, neg,
  /// round). Defined once, in Derivatives.cpp.
  Value activationDerivative(ActivationKind kind, Value x);
  /// `f''(x)` of activation `kind` in closed form, or null where it is 0
  /// (relu, abs and neg almost everywhere; round's straight-through
  /// estimator). Second derivatives (Hessian-vector products) use it.
  Value activationSecondDerivative(ActivationKind kind, Value x);
  /// The vector-Jacobian product of activation `kind` at `x` with the
  /// cotangent `dy`: what `rlx.activation_backward` computes.
  Value activationVJP(ActivationKind kind, Value x, Value dy);

  /// What the attention core of a fused attention block or transformer
  /// layer needs besides its packed `qkv` projection.
  struct AttentionCore {
    int64_t numHeads, headDim;
    MaskKindAttr maskKind;
    Value mask;
    IntegerAttr window;
    FloatAttr scoreScale;
    Value ropeCos, ropeSin;
  };
  /// The softmax probabilities `[B, H, Sq, Sk]` of an `rlx.attention` on
  /// `[B, H, S, D]` operands, recomputed exactly as the op defines them, with
  /// what their derivatives need besides.
  struct AttentionProbabilities {
    Value probs;
    /// `tanh(s / c)` of the soft cap `c` (null without one).
    Value capTanh;
    /// The score scale, a rank-0 constant.
    Value scale;
  };
  /// Static sequence lengths are required where a mask needs them
  /// (positional and key-padding masks), and Sk >= Sq for the positional
  /// ones; the caller checks.
  AttentionProbabilities
  attentionProbabilities(Value q, Value k, Value mask, MaskKind kind,
                         std::optional<int64_t> window, FloatAttr scoreScale,
                         FloatAttr softcap, int64_t headDim);

  /// Splits `qkv` [B, S, 3I] into heads, applies rope to q and k when the
  /// core has tables, attends, and merges the heads back to [B, S, I].
  /// Fails without emitting anything when S is dynamic.
  FailureOr<Value> attentionCore(Value qkv, const AttentionCore &core);

  /// The primitives `rlx.fused_transformer_layer` is defined as, computing
  /// `op`'s result from its operands (`op` itself is left alone). Fails
  /// without emitting anything when the sequence length is dynamic.
  FailureOr<Value> transformerLayer(FusedTransformerLayerOp op);

  OpBuilder &b;
  Location loc;

private:
  RewriterBase *rewriter = nullptr;
};

/// Every axis of a rank-`rank` tensor except `axis`.
SmallVector<int64_t> allAxesBut(int64_t rank, int64_t axis);

/// A fused location naming the composite op `op` it came from.
inline Location decompositionLoc(Operation *op) {
  MLIRContext *ctx = op->getContext();
  return FusedLoc::get(ctx, {op->getLoc()},
                       StringAttr::get(ctx, op->getName().getStringRef()));
}

} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_UTILS_PRIMITIVEBUILDER_H
