//===- NormalizationOps.cpp - normalization and resize --------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"
#include "rlx/Dialect/RLX/IR/ResizeGeometry.h"

#include <cmath>
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
// ResizeOp and its geometry
//===----------------------------------------------------------------------===//

namespace mlir::rlx::resize_geometry {

/// PyTorch's compute_scales_value: the reciprocal of the user's scale
/// factor, else in / out, in `T`.
template <typename T>
static T scaleOf(std::optional<double> scaleFactor, int64_t inSize,
                 int64_t outSize) {
  if (scaleFactor && *scaleFactor > 0)
    return static_cast<T>(1.0 / *scaleFactor);
  return static_cast<T>(inSize) / static_cast<T>(outSize);
}

/// PyTorch's nearest_idx / nearest_exact_idx, whose scale is an f32 for
/// every input type.
static int64_t nearestSource(bool exact, std::optional<double> scaleFactor,
                             int64_t o, int64_t inSize, int64_t outSize) {
  if (!exact && outSize == inSize)
    return o;
  if (!exact && outSize == 2 * inSize)
    return o >> 1;
  float scale = scaleOf<float>(scaleFactor, inSize, outSize);
  float position = exact ? static_cast<float>((o + 0.5) * scale)
                         : static_cast<float>(o) * scale;
  return std::min(static_cast<int64_t>(std::floor(position)), inSize - 1);
}

/// PyTorch's area_pixel_compute_scale and area_pixel_compute_source_index
/// (before the linear modes clamp it at 0), in `T`: the input position
/// that output position `o` reads.
template <typename T>
static T sourceOf(bool alignCorners, std::optional<double> scaleFactor,
                  int64_t o, int64_t inSize, int64_t outSize) {
  T scale = alignCorners ? (outSize > 1 ? static_cast<T>(inSize - 1) /
                                              static_cast<T>(outSize - 1)
                                        : T(0))
                         : scaleOf<T>(scaleFactor, inSize, outSize);
  return alignCorners ? scale * static_cast<T>(o)
                      : scale * (static_cast<T>(o) + T(0.5)) - T(0.5);
}

/// PyTorch's compute_source_index_and_lambda for linear modes, in `T`.
template <typename T>
static SmallVector<Tap, 2>
linearTaps(bool alignCorners, std::optional<double> scaleFactor, int64_t o,
           int64_t inSize, int64_t outSize) {
  if (outSize == inSize)
    return {Tap{o, 1.0}};
  T source = sourceOf<T>(alignCorners, scaleFactor, o, inSize, outSize);
  if (source < T(0))
    source = T(0);
  int64_t lower = std::min(static_cast<int64_t>(source), inSize - 1);
  int64_t upper = lower < inSize - 1 ? lower + 1 : lower;
  T upperWeight =
      std::min(std::max(source - static_cast<T>(lower), T(0)), T(1));
  T lowerWeight = T(1) - upperWeight;
  return {Tap{lower, static_cast<double>(lowerWeight)},
          Tap{upper, static_cast<double>(upperWeight)}};
}

/// PyTorch's bicubic taps (HelperInterpCubic::compute_indices_weights and
/// get_cubic_upsample_coefficients, A = -0.75), in `T`: the source
/// position is not clamped at 0, and the four positions around it are
/// clamped to the input (repeating an edge element, with its weight).
template <typename T>
static SmallVector<Tap, 2>
cubicTaps(bool alignCorners, std::optional<double> scaleFactor, int64_t o,
          int64_t inSize, int64_t outSize) {
  T source = sourceOf<T>(alignCorners, scaleFactor, o, inSize, outSize);
  int64_t floor = static_cast<int64_t>(std::floor(source));
  T t = source - static_cast<T>(floor);
  const T a = T(-0.75);
  auto near = [&](T d) { return ((a + T(2)) * d - (a + T(3))) * d * d + T(1); };
  auto far = [&](T d) {
    return ((a * d - T(5) * a) * d + T(8) * a) * d - T(4) * a;
  };
  T weights[4] = {far(t + T(1)), near(t), near(T(1) - t), far(T(2) - t)};
  SmallVector<Tap, 2> taps;
  for (int64_t k = 0; k < 4; ++k)
    taps.push_back(Tap{std::clamp<int64_t>(floor - 1 + k, 0, inSize - 1),
                       static_cast<double>(weights[k])});
  return taps;
}

TapTable forwardTaps(ResizeMode mode, bool alignCorners,
                     std::optional<double> scaleFactor, int64_t inSize,
                     int64_t outSize, bool inF64) {
  TapTable taps(outSize);
  for (int64_t o = 0; o < outSize; ++o) {
    switch (mode) {
    case ResizeMode::Nearest:
    case ResizeMode::NearestExact:
      taps[o] = {Tap{nearestSource(mode == ResizeMode::NearestExact,
                                   scaleFactor, o, inSize, outSize),
                     1.0}};
      break;
    case ResizeMode::Linear:
      taps[o] = inF64 ? linearTaps<double>(alignCorners, scaleFactor, o, inSize,
                                           outSize)
                      : linearTaps<float>(alignCorners, scaleFactor, o, inSize,
                                          outSize);
      break;
    case ResizeMode::Cubic:
      taps[o] =
          inF64
              ? cubicTaps<double>(alignCorners, scaleFactor, o, inSize, outSize)
              : cubicTaps<float>(alignCorners, scaleFactor, o, inSize, outSize);
      break;
    }
  }
  return taps;
}

TapTable adjointTaps(ResizeMode mode, bool alignCorners,
                     std::optional<double> scaleFactor, int64_t inSize,
                     int64_t outSize, bool inF64) {
  TapTable adjoint(inSize);
  TapTable forward =
      forwardTaps(mode, alignCorners, scaleFactor, inSize, outSize, inF64);
  for (auto [o, taps] : llvm::enumerate(forward)) {
    for (const Tap &tap : taps) {
      SmallVector<Tap, 2> &readers = adjoint[tap.index];
      if (!readers.empty() && readers.back().index == int64_t(o))
        readers.back().weight += tap.weight;
      else
        readers.push_back(Tap{int64_t(o), tap.weight});
    }
  }
  return adjoint;
}

LogicalResult verifyResize(Operation *op, StringRef operandName,
                           ShapedType operand, ResizeMode mode,
                           ArrayRef<int64_t> sizes, bool alignCorners,
                           std::optional<ArrayRef<double>> scales) {
  int64_t rank = operand.getRank();
  if (sizes.empty() || sizes.size() > 3)
    return op->emitOpError()
           << "resizes 1 to 3 trailing dims, got " << sizes.size() << " sizes";
  if (int64_t(sizes.size()) > rank)
    return op->emitOpError()
           << "has " << sizes.size() << " sizes but " << operandName << " "
           << formatShape(operand.getShape()) << " has rank " << rank;
  for (int64_t size : sizes)
    if (size < 1)
      return op->emitOpError()
             << "sizes must be positive, got " << formatShape(sizes);
  if (scales) {
    if (scales->size() != sizes.size())
      return op->emitOpError() << "has " << scales->size() << " scales for "
                               << sizes.size() << " resized dims";
    for (double scale : *scales)
      if (!(scale > 0) || !std::isfinite(scale))
        return op->emitOpError()
               << "scales must be positive and finite, got " << scale;
  }
  if (alignCorners && mode != ResizeMode::Linear && mode != ResizeMode::Cubic)
    return op->emitOpError() << "align_corners applies to linear and cubic "
                                "modes only, not "
                             << stringifyResizeMode(mode);
  ArrayRef<int64_t> resized =
      operand.getShape().take_back(static_cast<int64_t>(sizes.size()));
  for (int64_t dim : resized)
    if (ShapedType::isDynamic(dim) || dim < 1)
      return op->emitOpError()
             << "needs static positive resized dims: " << operandName << " "
             << formatShape(operand.getShape()) << " resizes its last "
             << sizes.size();
  return success();
}

} // namespace mlir::rlx::resize_geometry

/// `shape` with its last `sizes.size()` dims replaced by `sizes`; `shape`
/// itself when `sizes` does not fit (the verifier reports it).
static SmallVector<int64_t> resizedShape(ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> result(shape);
  if (sizes.size() <= result.size())
    llvm::copy(sizes, result.end() - sizes.size());
  return result;
}

LogicalResult
ResizeOp::inferReturnTypes(MLIRContext *context,
                           std::optional<Location> location, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
  DenseI64ArrayAttr sizes = inferenceAttr<DenseI64ArrayAttr>(
      adaptor.getProperties().sizes, adaptor.getAttributes(), "sizes");
  inferredReturnTypes.push_back(RankedTensorType::get(
      resizedShape(inputType.getShape(),
                   sizes ? sizes.asArrayRef() : ArrayRef<int64_t>()),
      inputType.getElementType()));
  return success();
}

LogicalResult ResizeOp::verify() {
  auto inputType = cast<RankedTensorType>(getInput().getType());
  if ((getMode() == ResizeMode::Linear || getMode() == ResizeMode::Cubic) &&
      !isa<FloatType>(inputType.getElementType()))
    return emitOpError() << stringifyResizeMode(getMode())
                         << " mode needs a floating-point input, got "
                         << inputType.getElementType();
  return resize_geometry::verifyResize(*this, "input", inputType, getMode(),
                                       getSizes(), getAlignCorners(),
                                       getScales());
}

/// A resize to the input's own sizes, at scale 1, reads each position.
OpFoldResult ResizeOp::fold(FoldAdaptor) {
  if (getInput().getType() != getType())
    return {};
  if (std::optional<ArrayRef<double>> scales = getScales())
    if (llvm::any_of(*scales, [](double scale) { return scale != 1.0; }))
      return {};
  return getInput();
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXNormalizationOps.cpp.inc"
