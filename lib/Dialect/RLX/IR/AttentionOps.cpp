//===- AttentionOps.cpp - attention and rotary embeddings -----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerAttentionOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXAttentionOps.cpp.inc"
      >();
}

/// Product of positive attribute values; std::nullopt on int64 overflow.
static std::optional<int64_t> checkedMul(ArrayRef<int64_t> factors) {
  int64_t product = 1;
  for (int64_t factor : factors)
    if (llvm::MulOverflow(product, factor, product))
      return std::nullopt;
  return product;
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

namespace {
/// Batch and sequence length of one attention input.
struct AttentionDims {
  int64_t batch;
  int64_t seq;
};
} // namespace

/// Checks the heads of `name` against num_heads/head_dim and returns its
/// batch and sequence dims. The caller has checked the rank is 3 or 4.
static FailureOr<AttentionDims> verifyAttentionInput(Operation *op,
                                                     StringRef name, Value v,
                                                     int64_t numHeads,
                                                     int64_t headDim) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
  if (shape.size() == 4) {
    if (!dimsCompatible(shape[1], numHeads)) {
      op->emitOpError() << name << " " << formatShape(shape) << " has "
                        << shape[1] << " heads (dim 1 of [B, H, S, D]) but "
                        << "num_heads = " << numHeads;
      return failure();
    }
    if (!dimsCompatible(shape[3], headDim)) {
      op->emitOpError() << name << " " << formatShape(shape) << " has head dim "
                        << shape[3]
                        << " (dim 3 of [B, H, S, D]) but head_dim = "
                        << headDim;
      return failure();
    }
    return AttentionDims{shape[0], shape[2]};
  }
  // The caller has checked num_heads * head_dim does not overflow.
  if (!dimsCompatible(shape[2], numHeads * headDim)) {
    op->emitOpError() << name << " " << formatShape(shape) << " has last dim "
                      << shape[2]
                      << " but num_heads * head_dim = " << numHeads * headDim
                      << " (layout [B, S, H * D])";
    return failure();
  }
  return AttentionDims{shape[0], shape[1]};
}

LogicalResult AttentionOp::verify() {
  int64_t numHeads = getNumHeadsAttr().getInt();
  int64_t headDim = getHeadDimAttr().getInt();
  if (!checkedMul({numHeads, headDim}))
    return emitOpError() << "num_heads * head_dim overflows int64";

  ArrayRef<int64_t> qShape = getQuery().getType().getShape();
  ArrayRef<int64_t> kShape = getKey().getType().getShape();
  ArrayRef<int64_t> vShape = getValue().getType().getShape();
  int64_t rank = qShape.size();
  if (rank != 3 && rank != 4)
    return emitOpError() << "query must be [B, H, S, D] (rank 4) or "
                            "[B, S, H * D] (rank 3), got "
                         << formatShape(qShape);
  if (static_cast<int64_t>(kShape.size()) != rank)
    return emitOpError() << "key " << formatShape(kShape)
                         << " must have the rank of query "
                         << formatShape(qShape);
  if (static_cast<int64_t>(vShape.size()) != rank)
    return emitOpError() << "value " << formatShape(vShape)
                         << " must have the rank of query "
                         << formatShape(qShape);

  FailureOr<AttentionDims> q =
      verifyAttentionInput(*this, "query", getQuery(), numHeads, headDim);
  if (failed(q))
    return failure();
  FailureOr<AttentionDims> k =
      verifyAttentionInput(*this, "key", getKey(), numHeads, headDim);
  if (failed(k))
    return failure();
  FailureOr<AttentionDims> v =
      verifyAttentionInput(*this, "value", getValue(), numHeads, headDim);
  if (failed(v))
    return failure();
  if (!dimsCompatible(q->batch, k->batch))
    return emitOpError() << "batch sizes differ: query " << formatShape(qShape)
                         << " has B = " << q->batch << " but key "
                         << formatShape(kShape) << " has B = " << k->batch;
  if (!dimsCompatible(q->batch, v->batch))
    return emitOpError() << "batch sizes differ: query " << formatShape(qShape)
                         << " has B = " << q->batch << " but value "
                         << formatShape(vShape) << " has B = " << v->batch;
  if (!dimsCompatible(k->seq, v->seq))
    return emitOpError() << "key and value sequence lengths differ: key "
                         << formatShape(kShape) << " has Sk = " << k->seq
                         << " but value " << formatShape(vShape) << " has "
                         << v->seq;

  MaskKind kind = getMaskKind();
  StringRef kindName = stringifyEnum(kind);
  bool takesMask = kind == MaskKind::Custom || kind == MaskKind::Bias;
  Value mask = getMask();
  if (takesMask && !mask)
    return emitOpError() << "mask_kind '" << kindName
                         << "' requires a mask operand";
  if (!takesMask && mask)
    return emitOpError() << "mask_kind '" << kindName
                         << "' takes no mask operand (only 'custom' and "
                            "'bias' do)";

  std::optional<uint64_t> window = getWindow();
  if (kind == MaskKind::SlidingWindow && !window)
    return emitOpError()
           << "mask_kind 'sliding_window' requires the window attribute";
  if (kind != MaskKind::SlidingWindow && window)
    return emitOpError() << "window is only valid with mask_kind "
                            "'sliding_window', not '"
                         << kindName << "'";

  if ((kind == MaskKind::Causal || kind == MaskKind::SlidingWindow) &&
      !ShapedType::isDynamic(q->seq) && !ShapedType::isDynamic(k->seq) &&
      k->seq < q->seq)
    return emitOpError() << "mask_kind '" << kindName
                         << "' needs at least as many keys as queries, got "
                            "Sk = "
                         << k->seq << " < Sq = " << q->seq;

  if (mask) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    Type elementType = getQuery().getType().getElementType();
    if (maskType.getElementType() != elementType)
      return emitOpError() << "mask element type " << maskType.getElementType()
                           << " differs from query element type "
                           << elementType;
    SmallVector<int64_t> expected;
    StringRef layout;
    if (kind == MaskKind::Custom) {
      expected = {q->batch, k->seq};
      layout = "[B, Sk]";
    } else {
      expected = {q->batch, numHeads, q->seq, k->seq};
      layout = "[B, H, Sq, Sk]";
    }
    ArrayRef<int64_t> maskShape = maskType.getShape();
    bool matches =
        maskShape.size() == expected.size() &&
        llvm::all_of(llvm::zip(maskShape, expected), [](auto dims) {
          return dimsCompatible(std::get<0>(dims), std::get<1>(dims));
        });
    if (!matches)
      return emitOpError() << "mask_kind '" << kindName << "' needs a "
                           << layout << " mask " << formatShape(expected)
                           << ", got " << formatShape(maskShape);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// RopeOp
//===----------------------------------------------------------------------===//

LogicalResult RopeOp::verify() {
  int64_t headDim = getHeadDimAttr().getInt();
  int64_t nRot = getNRotAttr().getInt();
  if (nRot < 2 || nRot % 2 != 0 || nRot > headDim)
    return emitOpError() << "n_rot must be even, positive and <= head_dim = "
                         << headDim << ", got " << nRot;

  ArrayRef<int64_t> shape = getInput().getType().getShape();
  int64_t seq;
  switch (shape.size()) {
  case 4:
    if (!dimsCompatible(shape[3], headDim))
      return emitOpError() << "input " << formatShape(shape) << " has head dim "
                           << shape[3]
                           << " (dim 3 of [B, H, S, D]) but head_dim = "
                           << headDim;
    seq = shape[2];
    break;
  case 3:
  case 2:
    if (!ShapedType::isDynamic(shape.back()) && shape.back() % headDim != 0)
      return emitOpError() << "input " << formatShape(shape) << " has last dim "
                           << shape.back()
                           << ", not a multiple of head_dim = " << headDim;
    seq = shape[shape.size() - 2];
    break;
  default:
    return emitOpError() << "input must be [B, H, S, D], [B, S, H * D] or "
                            "[S, H * D], got "
                         << formatShape(shape);
  }

  ArrayRef<int64_t> tableShape = getCos().getType().getShape();
  if (tableShape.size() != 2 || !dimsCompatible(tableShape[0], seq) ||
      !dimsCompatible(tableShape[1], nRot / 2))
    return emitOpError() << "cos and sin must be [S, n_rot / 2] = "
                         << formatShape({seq, nRot / 2}) << " for input "
                         << formatShape(shape) << ", got "
                         << formatShape(tableShape);
  return success();
}

//===----------------------------------------------------------------------===//
// AxialRope2dOp
//===----------------------------------------------------------------------===//

LogicalResult AxialRope2dOp::verify() {
  int64_t endX = getEndXAttr().getInt();
  int64_t endY = getEndYAttr().getInt();
  int64_t headDim = getHeadDimAttr().getInt();
  int64_t numHeads = getNumHeadsAttr().getInt();
  int64_t repeat = getRepeatFactorAttr().getInt();
  if (headDim < 4 || headDim % 4 != 0)
    return emitOpError() << "head_dim must be a positive multiple of 4 (x and "
                            "y rotate head_dim / 4 pairs each), got "
                         << headDim;

  std::optional<int64_t> hidden = checkedMul({numHeads, headDim});
  std::optional<int64_t> seq = checkedMul({endX, endY, repeat});
  if (!hidden || !seq)
    return emitOpError() << "num_heads * head_dim or end_x * end_y * "
                            "repeat_factor overflows int64";

  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (shape.size() != 3)
    return emitOpError() << "input must be [B, S, num_heads * head_dim] "
                            "(rank 3), got "
                         << formatShape(shape);
  if (!dimsCompatible(shape[2], *hidden))
    return emitOpError() << "input " << formatShape(shape) << " has last dim "
                         << shape[2]
                         << " but num_heads * head_dim = " << *hidden;
  if (!dimsCompatible(shape[1], *seq))
    return emitOpError() << "input " << formatShape(shape)
                         << " has S = " << shape[1]
                         << " but end_x * end_y * repeat_factor = " << *seq;
  return success();
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXAttentionOps.cpp.inc"
