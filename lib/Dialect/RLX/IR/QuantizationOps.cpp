//===- QuantizationOps.cpp - quantization and fake quantization -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerQuantizationOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXQuantizationOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// The same shape as `type` with element type `elementType`; `type` itself
/// when it is not a ranked tensor (inference stays total).
static Type withElementType(Type type, Type elementType) {
  if (auto ranked = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(ranked.getShape(), elementType);
  return type;
}

/// Resolves an optional channel axis against `shape`. Returns failure (after
/// emitting) when the axis is out of range; `channels` is the channel count
/// (1 without an axis, possibly dynamic).
static LogicalResult resolveAxis(Operation *op, std::optional<int64_t> axis,
                                 ArrayRef<int64_t> shape, int64_t &channels,
                                 std::optional<int64_t> &normalized) {
  channels = 1;
  normalized = std::nullopt;
  if (!axis)
    return success();
  normalized = normalizeAxis(*axis, shape.size());
  if (!normalized)
    return op->emitOpError()
           << "axis " << *axis << " is out of range for input "
           << formatShape(shape) << " of rank " << shape.size();
  channels = shape[*normalized];
  return success();
}

/// Checks that a per-channel payload has 1 or `channels` entries.
static LogicalResult verifyPayloadLength(Operation *op, StringRef name,
                                         size_t length,
                                         std::optional<int64_t> axis,
                                         int64_t channels) {
  if (length == 1)
    return success();
  if (!axis)
    return op->emitOpError()
           << name << " has " << length
           << " entries, expected 1 (per-tensor: no axis is set)";
  // A dynamic channel dim may match any per-channel payload.
  if (ShapedType::isDynamic(channels))
    return success();
  if (static_cast<int64_t>(length) != channels)
    return op->emitOpError()
           << name << " has " << length << " entries, expected 1 or dim(axis "
           << *axis << ") = " << channels;
  return success();
}

/// Verifier shared by rlx.quantize and rlx.dequantize.
static LogicalResult verifyAffineQuant(Operation *op, RankedTensorType input,
                                       std::optional<int64_t> axis,
                                       ArrayRef<float> scales,
                                       ArrayRef<int32_t> zeroPoints) {
  int64_t channels;
  std::optional<int64_t> normalized;
  if (failed(resolveAxis(op, axis, input.getShape(), channels, normalized)))
    return failure();
  if (scales.empty())
    return op->emitOpError() << "scales must not be empty";
  if (zeroPoints.empty())
    return op->emitOpError() << "zero_points must not be empty";
  if (failed(
          verifyPayloadLength(op, "scales", scales.size(), axis, channels)) ||
      failed(verifyPayloadLength(op, "zero_points", zeroPoints.size(), axis,
                                 channels)))
    return failure();
  for (auto [i, scale] : llvm::enumerate(scales))
    if (!(scale > 0.0f) || !std::isfinite(scale))
      return op->emitOpError() << "scales[" << i << "] = " << scale
                               << " must be positive and finite";
  for (auto [i, zp] : llvm::enumerate(zeroPoints))
    if (zp < -128 || zp > 127)
      return op->emitOpError() << "zero_points[" << i << "] = " << zp
                               << " is outside the i8 range [-128, 127]";
  return success();
}

/// Checks a per-channel scale or state tensor: shape `[dim(axis)]`, or `[1]`
/// without an axis, and the input's element type.
static LogicalResult verifyChannelTensor(Operation *op, StringRef name,
                                         RankedTensorType input,
                                         RankedTensorType tensor,
                                         std::optional<int64_t> axis) {
  int64_t channels;
  std::optional<int64_t> normalized;
  if (failed(resolveAxis(op, axis, input.getShape(), channels, normalized)))
    return failure();
  ArrayRef<int64_t> shape = tensor.getShape();
  if (shape.size() != 1 || !dimsCompatible(shape[0], channels)) {
    InFlightDiagnostic diag = op->emitOpError() << name << " must have shape "
                                                << formatShape({channels});
    if (axis)
      diag << " (dim(axis " << *axis << ") of input "
           << formatShape(input.getShape()) << ")";
    else
      diag << " (per-tensor: no axis is set)";
    return diag << ", got " << formatShape(shape);
  }
  if (tensor.getElementType() != input.getElementType())
    return op->emitOpError()
           << name << " element type " << tensor.getElementType()
           << " differs from input element type " << input.getElementType();
  return success();
}

/// Checks that an upstream gradient has the type of the forward input.
static LogicalResult verifySameAsInput(Operation *op, StringRef name,
                                       RankedTensorType input,
                                       RankedTensorType tensor) {
  if (tensor != input)
    return op->emitOpError() << name << " type " << tensor
                             << " differs from input type " << input;
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeOp / DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult
QuantizeOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                             Adaptor adaptor,
                             SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.push_back(withElementType(adaptor.getInput().getType(),
                                                IntegerType::get(context, 8)));
  return success();
}

LogicalResult QuantizeOp::verify() {
  return verifyAffineQuant(*this, getInput().getType(), getAxis(), getScales(),
                           getZeroPoints());
}

LogicalResult
DequantizeOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                               Adaptor adaptor,
                               SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.push_back(
      withElementType(adaptor.getInput().getType(), Float32Type::get(context)));
  return success();
}

LogicalResult DequantizeOp::verify() {
  return verifyAffineQuant(*this, getInput().getType(), getAxis(), getScales(),
                           getZeroPoints());
}

//===----------------------------------------------------------------------===//
// FakeQuantizeOp
//===----------------------------------------------------------------------===//

LogicalResult
FakeQuantizeOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.push_back(adaptor.getInput().getType());
  ScaleModeAttr mode = inferenceAttr(adaptor.getScaleModeAttr(),
                                     adaptor.getAttributes(), "scale_mode");
  if (mode && mode.getValue() == ScaleMode::Ema) {
    // The updated state has the state's type; without a state (malformed,
    // reported by the verifier) fall back to the input's type.
    Value state = adaptor.getState();
    inferredReturnTypes.push_back(state ? state.getType()
                                        : adaptor.getInput().getType());
  }
  return success();
}

LogicalResult FakeQuantizeOp::verify() {
  RankedTensorType input = getInput().getType();
  int64_t channels;
  std::optional<int64_t> normalized;
  if (failed(resolveAxis(*this, getAxis(), input.getShape(), channels,
                         normalized)))
    return failure();
  ScaleMode mode = getScaleMode();
  StringRef modeName = stringifyEnum(mode);
  bool decay = static_cast<bool>(getEmaDecayAttr());
  if (mode == ScaleMode::Ema) {
    if (!decay)
      return emitOpError()
             << "scale_mode 'ema' requires an ema_decay attribute";
  } else if (decay) {
    return emitOpError() << "ema_decay is only meaningful with scale_mode "
                            "'ema', but scale_mode is '"
                         << modeName << "'";
  }
  bool needsState = mode != ScaleMode::PerBatch;
  if (needsState && !getState())
    return emitOpError() << "scale_mode '" << modeName
                         << "' requires a state operand (one scale per "
                            "channel)";
  if (!needsState && getState())
    return emitOpError() << "scale_mode 'per_batch' takes no state operand";
  if (getState() &&
      failed(verifyChannelTensor(*this, "state", input,
                                 cast<RankedTensorType>(getState().getType()),
                                 getAxis())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// LSQ ops
//===----------------------------------------------------------------------===//

LogicalResult FakeQuantizeLSQOp::verify() {
  return verifyChannelTensor(*this, "scale", getInput().getType(),
                             getScale().getType(), getAxis());
}

/// Verifier shared by the two LSQ backward ops.
static LogicalResult verifyLSQBackward(Operation *op,
                                       std::optional<int64_t> axis,
                                       RankedTensorType input,
                                       RankedTensorType scale,
                                       RankedTensorType dy) {
  if (failed(verifyChannelTensor(op, "scale", input, scale, axis)))
    return failure();
  return verifySameAsInput(op, "dy", input, dy);
}

LogicalResult FakeQuantizeLSQBackwardXOp::verify() {
  return verifyLSQBackward(*this, getAxis(), getInput().getType(),
                           getScale().getType(), getDy().getType());
}

LogicalResult FakeQuantizeLSQBackwardScaleOp::verify() {
  return verifyLSQBackward(*this, getAxis(), getInput().getType(),
                           getScale().getType(), getDy().getType());
}

//===----------------------------------------------------------------------===//
// FakeQuantizeBackwardOp
//===----------------------------------------------------------------------===//

LogicalResult FakeQuantizeBackwardOp::verify() {
  RankedTensorType input = getInput().getType();
  int64_t channels;
  std::optional<int64_t> normalized;
  if (failed(resolveAxis(*this, getAxis(), input.getShape(), channels,
                         normalized)))
    return failure();
  return verifySameAsInput(*this, "dy", input, getDy().getType());
}

OpFoldResult FakeQuantizeBackwardOp::fold(FoldAdaptor) {
  // The identity estimator passes the upstream gradient through unchanged.
  if (getSte() == SteKind::Identity)
    return getDy();
  return {};
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXQuantizationOps.cpp.inc"
