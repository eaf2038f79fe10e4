//===- ShapeUtils.cpp - shape rules shared by rlx ops ---------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "mlir/IR/Operation.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::string rlx::formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t dim) {
    if (ShapedType::isDynamic(dim))
      os << '?';
    else
      os << dim;
  });
  os << ']';
  return text;
}

bool rlx::dimsCompatible(int64_t a, int64_t b) {
  return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
}

std::optional<SmallVector<int64_t>>
rlx::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Walk from the trailing dim; a missing leading dim counts as 1.
    int64_t a = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t b = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    int64_t &out = result[rank - 1 - i];
    if (a == 1) {
      out = b;
    } else if (b == 1) {
      out = a;
    } else if (ShapedType::isDynamic(a)) {
      out = b;
    } else if (ShapedType::isDynamic(b) || a == b) {
      out = a;
    } else {
      return std::nullopt;
    }
  }
  return result;
}

SmallVector<int64_t> rlx::broadcastShapesOrDynamic(ArrayRef<int64_t> lhs,
                                                   ArrayRef<int64_t> rhs) {
  if (std::optional<SmallVector<int64_t>> shape = broadcastShapes(lhs, rhs))
    return *shape;
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank, ShapedType::kDynamic);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t b = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    if (std::optional<SmallVector<int64_t>> dim = broadcastShapes({a}, {b}))
      result[rank - 1 - i] = dim->front();
  }
  return result;
}

std::optional<int64_t> rlx::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::optional<Type> rlx::findUncountableType(Operation *op) {
  auto uncountable = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank())
      return false;
    int64_t product = 1;
    for (int64_t dim : shaped.getShape())
      if (!ShapedType::isDynamic(dim) && dim != 0 &&
          llvm::MulOverflow(product, dim, product))
        return true;
    return false;
  };
  for (Type type : op->getOperandTypes())
    if (uncountable(type))
      return type;
  for (Type type : op->getResultTypes())
    if (uncountable(type))
      return type;
  return std::nullopt;
}
