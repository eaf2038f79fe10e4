//===- NormalizationOps.cpp - normalization and resize --------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include <limits>

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerNormalizationOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXNormalizationOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Checks that a per-channel operand (`gamma`, `beta`, running statistics)
/// is `[C]`; `where` says which dim of the input C comes from.
static LogicalResult verifyPerChannel(Operation *op, StringRef name,
                                      Value operand, int64_t channels,
                                      StringRef where) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(operand.getType()).getShape();
  if (shape.size() != 1 || !dimsCompatible(shape[0], channels))
    return op->emitOpError()
           << name << " must be " << formatShape({channels})
           << " (C = " << where << "), got " << formatShape(shape);
  return success();
}

/// Shared verifier of the single-axis norms (layer_norm, rms_norm).
static LogicalResult verifyAxisNorm(Operation *op, Value input, Value gamma,
                                    Value beta, int64_t axis) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(input.getType()).getShape();
  int64_t rank = shape.size();
  if (rank == 0)
    return op->emitOpError() << "input must have rank >= 1, got []";
  std::optional<int64_t> normalized = normalizeAxis(axis, rank);
  if (!normalized)
    return op->emitOpError()
           << "axis " << axis << " is out of range for input "
           << formatShape(shape) << " of rank " << rank << " (expected ["
           << -rank << ", " << rank - 1 << "])";
  std::string where =
      "dim " + std::to_string(*normalized) + " of input " + formatShape(shape);
  if (failed(verifyPerChannel(op, "gamma", gamma, shape[*normalized], where)) ||
      failed(verifyPerChannel(op, "beta", beta, shape[*normalized], where)))
    return failure();
  return success();
}

/// Checks that `input` is NCHW and returns its shape.
static FailureOr<ArrayRef<int64_t>> verifyNCHW(Operation *op, Value input) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(input.getType()).getShape();
  if (shape.size() != 4) {
    op->emitOpError() << "input must be NCHW (rank 4), got "
                      << formatShape(shape);
    return failure();
  }
  return shape;
}

//===----------------------------------------------------------------------===//
// LayerNormOp, RmsNormOp
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  return verifyAxisNorm(*this, getInput(), getGamma(), getBeta(),
                        getAxisAttr().getInt());
}

LogicalResult RmsNormOp::verify() {
  return verifyAxisNorm(*this, getInput(), getGamma(), getBeta(),
                        getAxisAttr().getInt());
}

//===----------------------------------------------------------------------===//
// GroupNormOp
//===----------------------------------------------------------------------===//

LogicalResult GroupNormOp::verify() {
  FailureOr<ArrayRef<int64_t>> shape = verifyNCHW(*this, getInput());
  if (failed(shape))
    return failure();
  int64_t channels = (*shape)[1];
  int64_t groups = getNumGroupsAttr().getInt();
  if (!ShapedType::isDynamic(channels) && channels % groups != 0)
    return emitOpError() << "num_groups = " << groups
                         << " does not divide the channel count C = "
                         << channels << " of input " << formatShape(*shape);
  std::string where = "dim 1 of input " + formatShape(*shape);
  if (failed(verifyPerChannel(*this, "gamma", getGamma(), channels, where)) ||
      failed(verifyPerChannel(*this, "beta", getBeta(), channels, where)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// LayerNorm2dOp
//===----------------------------------------------------------------------===//

LogicalResult LayerNorm2dOp::verify() {
  FailureOr<ArrayRef<int64_t>> shape = verifyNCHW(*this, getInput());
  if (failed(shape))
    return failure();
  int64_t channels = (*shape)[1];
  std::string where = "dim 1 of input " + formatShape(*shape);
  if (failed(verifyPerChannel(*this, "gamma", getGamma(), channels, where)) ||
      failed(verifyPerChannel(*this, "beta", getBeta(), channels, where)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// BatchNormInferenceOp
//===----------------------------------------------------------------------===//

LogicalResult BatchNormInferenceOp::verify() {
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (shape.empty())
    return emitOpError() << "input must have rank >= 1 ([..., C]), got []";
  int64_t channels = shape.back();
  std::string where = "last dim of input " + formatShape(shape);
  if (failed(verifyPerChannel(*this, "gamma", getGamma(), channels, where)) ||
      failed(verifyPerChannel(*this, "beta", getBeta(), channels, where)) ||
      failed(verifyPerChannel(*this, "running_mean", getRunningMean(), channels,
                              where)) ||
      failed(verifyPerChannel(*this, "running_var", getRunningVar(), channels,
                              where)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ResizeNearest2xOp
//===----------------------------------------------------------------------===//

/// 2 * dim; dynamic when `dim` is.
static int64_t doubleDim(int64_t dim) {
  return ShapedType::isDynamic(dim) ? dim : 2 * dim;
}

LogicalResult ResizeNearest2xOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
  SmallVector<int64_t> shape(inputType.getShape());
  // A rank other than 4 is the verifier's to report.
  if (shape.size() == 4) {
    for (int64_t dim : {2, 3})
      if (!ShapedType::isDynamic(shape[dim]) &&
          shape[dim] > std::numeric_limits<int64_t>::max() / 2)
        return emitOptionalError(
            location,
            "'rlx.resize_nearest2x' op output size overflows 64 "
            "bits: input ",
            formatShape(shape), " doubles dim ", dim);
    shape[2] = doubleDim(shape[2]);
    shape[3] = doubleDim(shape[3]);
  }
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

LogicalResult ResizeNearest2xOp::verify() {
  return verifyNCHW(*this, getInput());
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXNormalizationOps.cpp.inc"
