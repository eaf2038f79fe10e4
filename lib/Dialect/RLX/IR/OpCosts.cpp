//===- OpCosts.cpp - the arithmetic work of rlx ops -----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/OpCosts.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

using namespace mlir;
using namespace mlir::rlx;

/// The element count of a static shape, as a double (no overflow).
static std::optional<double> staticElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return std::nullopt;
  double elements = 1;
  for (int64_t dim : shaped.getShape())
    elements *= static_cast<double>(dim);
  return elements;
}

/// 2 K FLOPs per element of `result`, K the last dim of `lhs`.
static std::optional<double> productFlops(Value lhs, Value result) {
  std::optional<double> outputs = staticElements(result.getType());
  auto lhsType = cast<ShapedType>(lhs.getType());
  if (!outputs || ShapedType::isDynamic(lhsType.getShape().back()))
    return std::nullopt;
  return 2 * *outputs * static_cast<double>(lhsType.getShape().back());
}

/// The forward FLOPs of attention of `query` (its shape that of the output)
/// on `key`: each output element takes Sk query-key products and Sk
/// weighted values, 4 Sk FLOPs. Keys are dim 2 of [B, H, Sk, D], dim 1 of
/// [B, Sk, H D].
static std::optional<double> attentionFlops(Value query, Value key,
                                            MaskKind mask) {
  std::optional<double> outputs = staticElements(query.getType());
  auto keyType = cast<ShapedType>(key.getType());
  int64_t keys = keyType.getShape()[keyType.getRank() == 4 ? 2 : 1];
  if (!outputs || ShapedType::isDynamic(keys))
    return std::nullopt;
  double flops = 4 * *outputs * static_cast<double>(keys);
  return mask == MaskKind::Causal ? flops / 2 : flops;
}

std::optional<double> rlx::estimateFlops(Operation *op) {
  if (auto matmul = dyn_cast<MatMulOp>(op))
    return productFlops(matmul.getLhs(), matmul.getResult());
  if (auto fused = dyn_cast<FusedMatMulBiasActOp>(op))
    return productFlops(fused.getInput(), fused.getResult());
  if (auto attention = dyn_cast<AttentionOp>(op))
    return attentionFlops(attention.getQuery(), attention.getKey(),
                          attention.getMaskKind());
  if (auto backward = dyn_cast<AttentionBackwardOp>(op)) {
    // Five products of the forward's size where the forward has two.
    std::optional<double> forward = attentionFlops(
        backward.getQ(), backward.getK(), backward.getMaskKind());
    return forward ? std::optional<double>(2.5 * *forward) : std::nullopt;
  }
  if (auto conv = dyn_cast<ConvOp>(op)) {
    // Each output element sums C_in / groups * kH * kW products: the
    // weight's elements per output channel.
    std::optional<double> outputs = staticElements(conv.getType());
    auto weight = cast<ShapedType>(conv.getWeight().getType());
    std::optional<double> weights = staticElements(weight);
    if (!outputs || !weights || weight.getShape()[0] == 0)
      return std::nullopt;
    return 2 * *outputs * *weights / static_cast<double>(weight.getShape()[0]);
  }
  return std::nullopt;
}
