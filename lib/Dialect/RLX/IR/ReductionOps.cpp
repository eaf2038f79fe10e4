//===- ReductionOps.cpp - reductions, scans, softmax, top-k and sampling --===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerReductionOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXReductionOps.cpp.inc"
      >();
}

/// Checks a single `axis` attribute that may count from the end.
static LogicalResult verifySignedAxis(Operation *op, Value input,
                                      int64_t axis) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(input.getType()).getShape();
  int64_t rank = shape.size();
  if (rank == 0)
    return op->emitOpError() << "input must have rank >= 1, got []";
  if (!normalizeAxis(axis, rank))
    return op->emitOpError()
           << "axis " << axis << " is out of range for input "
           << formatShape(shape) << " of rank " << rank << " (expected ["
           << -rank << ", " << rank - 1 << "])";
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult
ReduceOp::inferReturnTypes(MLIRContext *context,
                           std::optional<Location> location, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> shape = inputType.getShape();
  // Missing or out-of-range axes are the verifier's to report; they are
  // ignored here.
  llvm::SmallBitVector reduced(shape.size());
  if (auto axes = inferenceAttr(adaptor.getProperties().axes,
                                adaptor.getAttributes(), "axes"))
    for (int64_t axis : axes.asArrayRef())
      if (axis >= 0 && axis < static_cast<int64_t>(shape.size()))
        reduced.set(axis);
  bool keepDim = static_cast<bool>(inferenceAttr(
      adaptor.getProperties().keep_dim, adaptor.getAttributes(), "keep_dim"));
  SmallVector<int64_t> resultShape;
  for (auto [index, dim] : llvm::enumerate(shape)) {
    if (!reduced.test(index))
      resultShape.push_back(dim);
    else if (keepDim)
      resultShape.push_back(1);
  }
  inferredReturnTypes.push_back(
      RankedTensorType::get(resultShape, inputType.getElementType()));
  return success();
}

LogicalResult ReduceOp::verify() {
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  int64_t rank = shape.size();
  llvm::SmallBitVector seen(rank);
  for (int64_t axis : getAxes()) {
    if (axis < 0 || axis >= rank)
      return emitOpError() << "axis " << axis << " is out of range for input "
                           << formatShape(shape) << " (axes must be in [0, "
                           << rank << "))";
    if (seen.test(axis))
      return emitOpError() << "axis " << axis << " appears more than once in "
                           << "axes " << formatShape(getAxes());
    seen.set(axis);
  }
  Type elementType = getInput().getType().getElementType();
  ReduceKind kind = getKind();
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Prod:
    return success();
  case ReduceKind::Mean:
    if (!isa<FloatType, ComplexType>(elementType))
      return emitOpError() << "reduce 'mean' requires a floating-point or "
                              "complex element type, got "
                           << elementType;
    return success();
  case ReduceKind::Max:
  case ReduceKind::Min:
    if (isa<ComplexType>(elementType))
      return emitOpError() << "reduce '" << stringifyEnum(kind)
                           << "' needs an ordered element type, got "
                           << elementType;
    return success();
  }
  llvm_unreachable("unknown reduce kind");
}

OpFoldResult ReduceOp::fold(FoldAdaptor) {
  // Over no axes, or over size-1 dims that are kept, every kind is the
  // identity.
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (getAxes().empty() ||
      (getKeepDim() &&
       llvm::all_of(getAxes(), [&](int64_t axis) { return shape[axis] == 1; })))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// CumsumOp
//===----------------------------------------------------------------------===//

LogicalResult CumsumOp::verify() {
  return verifySignedAxis(*this, getInput(), getAxisAttr().getInt());
}

OpFoldResult CumsumOp::fold(FoldAdaptor) {
  // An inclusive running sum over a single element is that element.
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  std::optional<int64_t> axis =
      normalizeAxis(getAxisAttr().getInt(), shape.size());
  if (!getExclusive() && axis && shape[*axis] == 1)
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return verifySignedAxis(*this, getInput(), getAxisAttr().getInt());
}

//===----------------------------------------------------------------------===//
// TopKOp
//===----------------------------------------------------------------------===//

LogicalResult
TopKOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                         Adaptor adaptor,
                         SmallVectorImpl<Type> &inferredReturnTypes) {
  auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
  SmallVector<int64_t> shape(inputType.getShape());
  // A rank-0 input or a missing or negative k is the verifier's to report.
  IntegerAttr kAttr =
      inferenceAttr(adaptor.getProperties().k, adaptor.getAttributes(), "k");
  int64_t k = kAttr ? kAttr.getInt() : -1;
  if (!shape.empty())
    shape.back() = k >= 0 ? k : ShapedType::kDynamic;
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, inputType.getElementType()));
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, IntegerType::get(context, 64)));
  return success();
}

LogicalResult TopKOp::verify() {
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (shape.empty())
    return emitOpError() << "input must have rank >= 1 ([..., N]), got []";
  int64_t k = getKAttr().getInt();
  if (!ShapedType::isDynamic(shape.back()) && k > shape.back())
    return emitOpError() << "k = " << k
                         << " exceeds the last dim N = " << shape.back()
                         << " of input " << formatShape(shape);
  return success();
}

//===----------------------------------------------------------------------===//
// SampleOp
//===----------------------------------------------------------------------===//

LogicalResult
SampleOp::inferReturnTypes(MLIRContext *context,
                           std::optional<Location> location, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto logitsType = cast<RankedTensorType>(adaptor.getLogits().getType());
  // A rank other than 2 is the verifier's to report.
  int64_t batch = logitsType.getRank() == 2 ? logitsType.getDimSize(0)
                                            : ShapedType::kDynamic;
  inferredReturnTypes.push_back(
      RankedTensorType::get({batch}, IntegerType::get(context, 64)));
  return success();
}

LogicalResult SampleOp::verify() {
  ArrayRef<int64_t> shape = getLogits().getType().getShape();
  if (shape.size() != 2)
    return emitOpError() << "logits must be [batch, vocab] (rank 2), got "
                         << formatShape(shape);
  int64_t topK = getTopKAttr().getInt();
  if (!ShapedType::isDynamic(shape[1]) && topK > shape[1])
    return emitOpError() << "top_k = " << topK << " exceeds the vocabulary "
                         << "size " << shape[1] << " of logits "
                         << formatShape(shape);
  return success();
}

//===----------------------------------------------------------------------===//
// ScatterAddOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterAddOp::verify() {
  ArrayRef<int64_t> updates = getUpdates().getType().getShape();
  ArrayRef<int64_t> indices = getIndices().getType().getShape();
  ArrayRef<int64_t> result = getResult().getType().getShape();
  if (updates.size() != 2)
    return emitOpError() << "updates must be [U, T] (rank 2), got "
                         << formatShape(updates);
  if (indices.size() != 1)
    return emitOpError() << "indices must be [U] (rank 1), got "
                         << formatShape(indices);
  if (!dimsCompatible(indices[0], updates[0]))
    return emitOpError() << "indices " << formatShape(indices) << " has "
                         << indices[0] << " entries but updates "
                         << formatShape(updates) << " has U = " << updates[0]
                         << " rows";
  if (result.size() != 2)
    return emitOpError() << "result must be [out_dim, T] (rank 2), got "
                         << formatShape(result);
  if (!dimsCompatible(result[1], updates[1]))
    return emitOpError() << "result " << formatShape(result) << " has "
                         << result[1] << " columns but updates "
                         << formatShape(updates) << " has T = " << updates[1];
  return success();
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXReductionOps.cpp.inc"
