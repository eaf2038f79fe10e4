//===- MoERules.cpp - derivatives of the quantized and expert matmuls -----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// grouped_matmul (input and weights), the matmuls on packed weights
// (dequant_matmul, dequant_grouped_matmul: the input only, the packed weights
// and their scales are frozen) and the integer ops q_matmul and q_conv2d,
// whose i8 values carry straight-through derivatives in f32 (see
// QuantizationRules.cpp): rounding counts as the identity, saturation as a
// clamp (no derivative where the output saturates).
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"
#include "rlx/Dialect/RLX/IR/GgufBlock.h"

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

/// The f32 `[K, K]` identity.
static Value identity(PrimitiveBuilder &p, int64_t k) {
  Value diagonal =
      p.compare(CompareKind::Eq, p.iota({k, 1}, k), p.iota({1, k}, k));
  return p.cast(diagonal, p.b.getF32Type());
}

//===----------------------------------------------------------------------===//
// grouped_matmul, dequant_grouped_matmul, dequant_moe_weights
//===----------------------------------------------------------------------===//

/// `dx[m] = dy[m] w[idx[m]]^T`: each row's expert weight gathered, times
/// `dy`, summed over `N`.
static Value groupedInputGradient(PrimitiveBuilder &p, Value weight,
                                  Value expertIdx, Value dy) {
  ArrayRef<int64_t> dyShape = shapeOf(dy);
  Value perRow = GatherOp::create(p.b, p.loc, weight, expertIdx, uint64_t(0));
  Value product = p.mul(perRow, p.reshape(dy, {dyShape[0], 1, dyShape[1]}));
  return p.reduce(ReduceKind::Sum, product, {2}, /*keepDim=*/false);
}

/// `dx` as above; `dw[e] = sum over the rows m of expert e of x[m]^T dy[m]`,
/// a batched matmul of the rows masked per expert (one-hot of the ids).
static LogicalResult vjpRule(GroupedMatMulOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  Value x = op.getInput(), w = op.getWeight(), idx = op.getExpertIdx();
  Value dy = dys[0];
  int64_t m = shapeOf(x)[0], k = shapeOf(x)[1], e = shapeOf(w)[0];
  int64_t n = shapeOf(dy)[1];
  dxs[0] = groupedInputGradient(p, w, idx, dy);
  Value ids = p.cast(p.reshape(idx, {1, m, 1}), p.b.getI64Type());
  Value oneHot = p.cast(p.compare(CompareKind::Eq, ids, p.iota({e, 1, 1}, e)),
                        elementTypeOf(x));
  Value rows = p.mul(oneHot, p.reshape(x, {1, m, k}));
  dxs[1] = p.matmul(p.swapLastTwo(rows), p.reshape(dy, {1, m, n}));
  return success();
}

/// Bilinear: the op on each tangent.
static LogicalResult jvpRule(GroupedMatMulOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  tys[0] = sumOverTangents(p, txs, [&](unsigned i, Value) {
    return applyToTangents(op, p, txs, {i});
  });
  return success();
}

/// The input only: the packed weights are frozen. The weight stack is decoded
/// once (`dequant_moe_weights`) for the gather.
static LogicalResult vjpRule(DequantGroupedMatMulOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  std::optional<GgufBlock> block = ggufBlock(op.getScheme());
  if (!block)
    return op.emitError() << "rlx-autodiff: no gradient rule for '"
                          << op->getName() << "' of scheme "
                          << stringifyQuantScheme(op.getScheme());
  int64_t k = shapeOf(op.getInput())[1], n = shapeOf(op.getResult())[1];
  int64_t experts =
      shapeOf(op.getWeight())[0] / (n * (k / block->elements) * block->bytes);
  auto stackType = RankedTensorType::get({experts, k, n}, p.b.getF32Type());
  Value stack = DequantMoEWeightsOp::create(p.b, p.loc, stackType,
                                            op.getWeight(), op.getScheme());
  dxs[0] = groupedInputGradient(p, stack, op.getExpertIdx(), dys[0]);
  return success();
}

static LogicalResult jvpRule(DequantGroupedMatMulOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  tys[0] = applyToTangents(op, p, txs, {0});
  return success();
}

//===----------------------------------------------------------------------===//
// dequant_matmul
//===----------------------------------------------------------------------===//

/// `dx = dy W^T` with the dequantized weight `W [K, N]`, decoded by the op's
/// own kernel so that every scheme is covered: GGUF bytes by
/// `dequant_moe_weights` (one expert), the other schemes as the op applied to
/// the `[K, K]` identity. The weights and their scales are frozen.
static LogicalResult vjpRule(DequantMatMulOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  int64_t k = shapeOf(op.getX())[1], n = shapeOf(op.getResult())[1];
  Value weight;
  if (ggufBlock(op.getScheme())) {
    auto stackType = RankedTensorType::get({1, k, n}, p.b.getF32Type());
    weight = p.reshape(DequantMoEWeightsOp::create(p.b, p.loc, stackType,
                                                   op.getWQ(), op.getScheme()),
                       {k, n});
  } else {
    weight = DequantMatMulOp::create(p.b, p.loc, identity(p, k), op.getWQ(),
                                     op.getScale(), op.getZeroPoint(),
                                     op.getGlobalScale(), op.getSchemeAttr(),
                                     op.getBlockSizeAttr());
  }
  dxs[0] = p.matmul(dys[0], p.swapLastTwo(weight));
  return success();
}

static LogicalResult jvpRule(DequantMatMulOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  for (unsigned i = 1; i < txs.size(); ++i)
    if (txs[i])
      return op.emitError() << "rlx-jvp: '" << op->getName()
                            << "' is differentiated in its input only; "
                               "operand #"
                            << i << " (weights, scales) is frozen";
  tys[0] = applyToTangents(op, p, txs, {0});
  return success();
}

//===----------------------------------------------------------------------===//
// q_matmul, q_conv2d
//===----------------------------------------------------------------------===//

/// The real-valued form of an integer op: its operands with the zero points
/// taken off (f32), and where its requantized output does not saturate.
struct Requantized {
  Value x, w;
  /// Where `round(acc * mult) + out_zp` lies in the i8 range.
  Value inside;
  double mult;
};

template <typename QOp>
static Requantized
requantized(QOp op, PrimitiveBuilder &p,
            function_ref<Value(Value, Value, Value)> accumulate) {
  Type f32 = p.b.getF32Type();
  Requantized r;
  r.mult = op.getMult().convertToDouble();
  r.x = p.sub(p.cast(op.getX(), f32),
              p.scalar(f32, double(op.getXZpAttr().getInt())));
  r.w = p.sub(p.cast(op.getW(), f32),
              p.scalar(f32, double(op.getWZpAttr().getInt())));
  Value acc = accumulate(r.x, r.w, p.cast(op.getBias(), f32));
  Value unrounded = p.add(p.mul(acc, p.scalar(f32, r.mult)),
                          p.scalar(f32, double(op.getOutZpAttr().getInt())));
  r.inside = insideRange(p, unrounded, -128.5, 127.5, p.scalar(f32, 1.0));
  return r;
}

/// `acc = (x - x_zp) (w - w_zp) + bias`: `d acc = dy * mult` where the output
/// does not saturate, then the matmul's VJP.
static Requantized requantized(QMatMulOp op, PrimitiveBuilder &p) {
  return requantized(op, p, [&](Value x, Value w, Value bias) {
    return p.add(p.matmul(x, w), bias);
  });
}

static LogicalResult vjpRule(QMatMulOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  Requantized r = requantized(op, p);
  Type f32 = p.b.getF32Type();
  Value dacc = p.mul(p.mul(dys[0], p.scalar(f32, r.mult)), r.inside);
  dxs[0] = p.matmul(dacc, p.swapLastTwo(r.w));
  dxs[1] = p.matmul(p.swapLastTwo(r.x), dacc);
  dxs[2] = p.reduce(ReduceKind::Sum, dacc, {0}, /*keepDim=*/false);
  return success();
}

static LogicalResult jvpRule(QMatMulOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-jvp")))
    return failure();
  Requantized r = requantized(op, p);
  Value tacc = sumOverTangents(p, txs, [&](unsigned i, Value t) -> Value {
    if (i == 0)
      return p.matmul(t, r.w);
    if (i == 1)
      return p.matmul(r.x, t);
    return t;
  });
  tys[0] = p.mul(p.mul(tacc, p.scalar(p.b.getF32Type(), r.mult)), r.inside);
  return success();
}

/// The convolution of `x` and `w` with `op`'s geometry.
static Value convolution(QConv2dOp op, PrimitiveBuilder &p, Value x, Value w) {
  return ConvOp::create(p.b, p.loc, x, w, op.getKernelSizeAttr(),
                        op.getStrideAttr(), op.getPaddingAttr(),
                        op.getDilationAttr(), op.getGroupsAttr());
}

static Requantized requantized(QConv2dOp op, PrimitiveBuilder &p) {
  return requantized(op, p, [&](Value x, Value w, Value bias) {
    return p.add(convolution(op, p, x, w), p.alongAxis(bias, 4, 1));
  });
}

/// As q_matmul, through the convolution's backward kernels.
static LogicalResult vjpRule(QConv2dOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  Requantized r = requantized(op, p);
  Type f32 = p.b.getF32Type();
  Value dacc = p.mul(p.mul(dys[0], p.scalar(f32, r.mult)), r.inside);
  dxs[0] = Conv2dBackwardInputOp::create(
      p.b, p.loc, r.x.getType(), dacc, r.w, op.getKernelSizeAttr(),
      op.getStrideAttr(), op.getPaddingAttr(), op.getDilationAttr(),
      op.getGroupsAttr());
  dxs[1] = Conv2dBackwardWeightOp::create(
      p.b, p.loc, r.x, dacc, op.getKernelSizeAttr(), op.getStrideAttr(),
      op.getPaddingAttr(), op.getDilationAttr(), op.getGroupsAttr());
  dxs[2] = p.reduce(ReduceKind::Sum, dacc, {0, 2, 3}, /*keepDim=*/false);
  return success();
}

static LogicalResult jvpRule(QConv2dOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-jvp")))
    return failure();
  Requantized r = requantized(op, p);
  Value tacc = sumOverTangents(p, txs, [&](unsigned i, Value t) -> Value {
    if (i == 0)
      return convolution(op, p, t, r.w);
    if (i == 1)
      return convolution(op, p, r.x, t);
    return p.alongAxis(t, 4, 1);
  });
  tys[0] = p.mul(p.mul(tacc, p.scalar(p.b.getF32Type(), r.mult)), r.inside);
  return success();
}

void attachMoERules(MLIRContext *ctx) {
  attachRules<GroupedMatMulOp, DequantGroupedMatMulOp, DequantMatMulOp,
              QMatMulOp, QConv2dOp>(ctx);
  // Its packed bytes carry no derivative.
  attachNoDerivatives<DequantMoEWeightsOp>(ctx);
}

} // namespace rlx
} // namespace mlir
