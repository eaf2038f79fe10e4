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

/// `op`'s weight `[K, N]` decoded by the op's own kernel, so that every
/// scheme is covered: GGUF bytes by `dequant_moe_weights` (one expert), the
/// other schemes as the op applied to the `[K, K]` identity, with `scale`,
/// `zeroPoint` and `globalScale` in place of the op's side operands.
static Value decodedWeight(DequantMatMulOp op, PrimitiveBuilder &p, Value scale,
                           Value zeroPoint, Value globalScale) {
  int64_t k = shapeOf(op.getX())[1], n = shapeOf(op.getResult())[1];
  if (ggufBlock(op.getScheme())) {
    auto stackType = RankedTensorType::get({1, k, n}, p.b.getF32Type());
    return p.reshape(DequantMoEWeightsOp::create(p.b, p.loc, stackType,
                                                 op.getWQ(), op.getScheme()),
                     {k, n});
  }
  return DequantMatMulOp::create(p.b, p.loc, identity(p, k), op.getWQ(), scale,
                                 zeroPoint, globalScale, op.getSchemeAttr(),
                                 op.getBlockSizeAttr());
}

/// `[ceil(K / block), N]` per-block values repeated over each block's rows:
/// `[K, N]`.
static Value expandBlocks(PrimitiveBuilder &p, Value perBlock, int64_t block,
                          int64_t k) {
  int64_t blocks = shapeOf(perBlock)[0], n = shapeOf(perBlock)[1];
  Value repeated =
      p.broadcastTo(p.reshape(perBlock, {blocks, 1, n}), {blocks, block, n});
  Value rows = p.reshape(repeated, {blocks * block, n});
  return blocks * block == k ? rows : p.narrow(rows, 0, 0, k);
}

/// The adjoint of expandBlocks: `[K, N]` summed over each block's rows.
static Value sumBlocks(PrimitiveBuilder &p, Value rows, int64_t block) {
  int64_t k = shapeOf(rows)[0], n = shapeOf(rows)[1];
  int64_t blocks = (k + block - 1) / block;
  if (blocks * block != k) {
    auto padType =
        RankedTensorType::get({blocks * block - k, n}, elementTypeOf(rows));
    rows = ConcatOp::create(p.b, p.loc, ValueRange{rows, p.zeros(padType)},
                            uint64_t(0));
  }
  return p.reduce(ReduceKind::Sum, p.reshape(rows, {blocks, block, n}), {1},
                  /*keepDim=*/false);
}

/// `y = x W`: `dx = dy W^T`, and with `G = x^T dy` (the gradient of `W`)
/// the side operands by the chain rule through `W`'s definition: block
/// schemes `W = (q - zp) s` (per block of `K`), fp8 `W = q s[n]`, NVFP4
/// `W = D gs`. The weight gets `G dW/dq`, straight-through: for an i8 `q`
/// (a quantize result, in units of its scale) `G s`, for an fp8 `q` the
/// same cast to its type; the nibble and GGUF bytes carry none.
static LogicalResult vjpRule(DequantMatMulOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")))
    return failure();
  Value x = op.getX(), wq = op.getWQ(), scale = op.getScale();
  Value zeroPoint = op.getZeroPoint(), globalScale = op.getGlobalScale();
  Value dy = dys[0];
  dxs[0] = p.matmul(
      dy, p.swapLastTwo(decodedWeight(op, p, scale, zeroPoint, globalScale)));
  if (ggufBlock(op.getScheme()))
    return success();
  int64_t k = shapeOf(x)[1];
  // The side operands are optional: their slots by ODS operand group.
  auto slot = [&](unsigned group) -> Value & {
    return dxs[op.getODSOperandIndexAndLength(group).first];
  };
  Value g = p.matmul(p.swapLastTwo(x), dy);
  auto onesLike = [&](Value v) {
    return p.splat(shapeOf(v), elementTypeOf(v), 1.0);
  };
  switch (op.getScheme()) {
  case QuantScheme::Int8Block:
  case QuantScheme::Int8BlockAsym:
  case QuantScheme::Int4Block: {
    int64_t block = *op.getBlockSize();
    Value unscaled = decodedWeight(op, p, onesLike(scale), zeroPoint, Value());
    slot(2) = sumBlocks(p, p.mul(g, unscaled), block);
    Value scaleRows = expandBlocks(p, scale, block, k);
    Value dw = p.mul(g, scaleRows);
    if (zeroPoint)
      slot(3) = p.activation(ActivationKind::Neg, sumBlocks(p, dw, block));
    if (op.getScheme() != QuantScheme::Int4Block)
      slot(1) = dw;
    return success();
  }
  case QuantScheme::Fp8E4M3:
  case QuantScheme::Fp8E5M2: {
    Value unscaled = decodedWeight(op, p, onesLike(scale), Value(), Value());
    slot(2) =
        p.reduce(ReduceKind::Sum, p.mul(g, unscaled), {0}, /*keepDim=*/false);
    slot(1) = p.cast(p.mul(g, scale), elementTypeOf(wq));
    return success();
  }
  case QuantScheme::Nvfp4Block: {
    Value unscaled =
        decodedWeight(op, p, scale, Value(), onesLike(globalScale));
    slot(4) = p.reshape(p.reduce(ReduceKind::Sum, p.mul(g, unscaled), {0, 1},
                                 /*keepDim=*/false),
                        {1});
    return success();
  }
  default:
    break;
  }
  return op.emitError() << "rlx-autodiff: no gradient rule for '"
                        << op->getName() << "' of scheme "
                        << stringifyQuantScheme(op.getScheme()) << " yet";
}

/// `t_x W + x t_W`, with `t_W` the tangent of the weight's definition (see
/// the VJP) in its operands' tangents.
static LogicalResult jvpRule(DequantMatMulOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-jvp")))
    return failure();
  Value x = op.getX(), scale = op.getScale(), zeroPoint = op.getZeroPoint();
  Value globalScale = op.getGlobalScale();
  int64_t k = shapeOf(x)[1];
  auto onesLike = [&](Value v) {
    return p.splat(shapeOf(v), elementTypeOf(v), 1.0);
  };
  std::optional<uint64_t> block = op.getBlockSize();
  auto perRow = [&](Value perBlock) {
    return expandBlocks(p, perBlock, *block, k);
  };
  // The side operands are optional: find each tangent's ODS operand group.
  auto group = [&](unsigned index) {
    for (unsigned g = 1; g < 5; ++g) {
      auto [start, length] = op.getODSOperandIndexAndLength(g);
      if (index >= start && index < start + length)
        return g;
    }
    return 0u;
  };
  SmallVector<Value> sideTangents(txs);
  sideTangents[0] = Value();
  Value tw = sumOverTangents(p, sideTangents, [&](unsigned i, Value t) {
    switch (group(i)) {
    case 1: // the weight, straight-through
      return p.mul(p.cast(t, p.b.getF32Type()), block ? perRow(scale) : scale);
    case 2: // the scale
      return block ? p.mul(decodedWeight(op, p, onesLike(scale), zeroPoint,
                                         Value()),
                           perRow(t))
                   : p.mul(decodedWeight(op, p, onesLike(scale), Value(),
                                         Value()),
                           t);
    case 3: // the zero point
      return p.activation(ActivationKind::Neg, p.mul(perRow(t), perRow(scale)));
    default: // the global scale
      return p.mul(
          decodedWeight(op, p, scale, zeroPoint, onesLike(globalScale)), t);
    }
  });
  SmallVector<Value> terms;
  if (txs[0])
    terms.push_back(applyToTangents(op, p, txs, {0}));
  if (tw)
    terms.push_back(p.matmul(x, tw));
  if (!terms.empty())
    tys[0] = terms.size() == 1 ? terms[0] : p.add(terms[0], terms[1]);
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

  /// `v * mult` where the output does not saturate: the straight-through
  /// derivative of the requantization applied to an accumulator's cotangent
  /// or tangent.
  Value requantize(PrimitiveBuilder &p, Value v) const {
    return p.mul(p.mul(v, p.scalar(p.b.getF32Type(), mult)), inside);
  }
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
  Value dacc = r.requantize(p, dys[0]);
  dxs[0] = p.matmul(dacc, p.swapLastTwo(r.w));
  dxs[1] = p.matmul(p.swapLastTwo(r.x), dacc);
  dxs[2] = p.reduce(ReduceKind::Sum, dacc, {0}, /*keepDim=*/false);
  return success();
}

/// `requantize(t_x w + x t_w + t_bias)`, `product` the op's bilinear
/// accumulation and `bias` the bias broadcast to the output.
template <typename QOp>
static LogicalResult requantizedJVP(QOp op, PrimitiveBuilder &p, ValueRange txs,
                                    MutableArrayRef<Value> tys,
                                    function_ref<Value(Value, Value)> product,
                                    function_ref<Value(Value)> bias) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-jvp")))
    return failure();
  Requantized r = requantized(op, p);
  Value tacc = sumOverTangents(p, txs, [&](unsigned i, Value t) -> Value {
    if (i == 0)
      return product(t, r.w);
    if (i == 1)
      return product(r.x, t);
    return bias(t);
  });
  tys[0] = r.requantize(p, tacc);
  return success();
}

static LogicalResult jvpRule(QMatMulOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  return requantizedJVP(
      op, p, txs, tys, [&](Value x, Value w) { return p.matmul(x, w); },
      [](Value bias) { return bias; });
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
  Value dacc = r.requantize(p, dys[0]);
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
  return requantizedJVP(
      op, p, txs, tys,
      [&](Value x, Value w) { return convolution(op, p, x, w); },
      [&](Value bias) { return p.alongAxis(bias, 4, 1); });
}

void attachMoERules(MLIRContext *ctx) {
  attachRules<GroupedMatMulOp, DequantGroupedMatMulOp, DequantMatMulOp,
              QMatMulOp, QConv2dOp>(ctx);
  // Its packed bytes carry no derivative.
  attachNoDerivatives<DequantMoEWeightsOp>(ctx);
}

} // namespace rlx
} // namespace mlir
