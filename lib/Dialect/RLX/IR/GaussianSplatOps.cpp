//===- GaussianSplatOps.cpp - Gaussian splatting --------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerGaussianSplatOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXGaussianSplatOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared rules
//===----------------------------------------------------------------------===//

/// The value of an integer attribute for inference; -1 when it is missing.
template <typename AdaptorT>
static int64_t inferenceInt(IntegerAttr fromProperties, AdaptorT &adaptor,
                            StringRef name) {
  IntegerAttr attr =
      inferenceAttr(fromProperties, adaptor.getAttributes(), name);
  return attr ? attr.getInt() : -1;
}

/// Length of the camera/render meta buffer.
static constexpr int64_t kMetaLength = 23;

/// height * width * 4, or none when the attributes are not positive or the
/// product does not fit in 64 bits.
static std::optional<int64_t> rgbaLength(int64_t width, int64_t height) {
  if (width <= 0 || height <= 0)
    return std::nullopt;
  std::optional<int64_t> pixels = llvm::checkedMul(width, height);
  return pixels ? llvm::checkedMul(*pixels, int64_t(4)) : std::nullopt;
}

/// `[height * width * 4]`, dynamic when rgbaLength has none (the verifier
/// reports why).
static Type rgbaType(MLIRContext *context, int64_t width, int64_t height) {
  int64_t length = rgbaLength(width, height).value_or(ShapedType::kDynamic);
  return RankedTensorType::get({length}, Float32Type::get(context));
}

/// Checks a rank-1 buffer of `length` elements (dynamic matches anything).
static LogicalResult expectBuffer(Operation *op, StringRef name,
                                  StringRef layout, ArrayRef<int64_t> shape,
                                  int64_t length) {
  if (shape.size() != 1 || !dimsCompatible(shape[0], length))
    return op->emitOpError()
           << name << " must have shape " << formatShape({length}) << " ("
           << layout << "), got " << formatShape(shape);
  return success();
}

/// Checks the seven scene operands; `n` receives the Gaussian count.
static LogicalResult verifyScene(Operation *op, ValueRange scene, int64_t &n) {
  auto shapeOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  ArrayRef<int64_t> opacities = shapeOf(scene[3]);
  if (opacities.size() != 1)
    return op->emitOpError() << "opacities must have rank 1 ([N]), got "
                             << formatShape(opacities);
  n = opacities[0];
  // Every buffer holds N * 4 or fewer elements per Gaussian; an N for which
  // that count overflows has no buffers.
  if (!ShapedType::isDynamic(n) && n > std::numeric_limits<int64_t>::max() / 4)
    return op->emitOpError()
           << "N = " << n << " Gaussians: N * 4 overflows a 64-bit size";
  auto times = [&](int64_t k) {
    return ShapedType::isDynamic(n) ? ShapedType::kDynamic : k * n;
  };
  if (failed(expectBuffer(op, "positions", "[N * 3]", shapeOf(scene[0]),
                          times(3))) ||
      failed(
          expectBuffer(op, "scales", "[N * 3]", shapeOf(scene[1]), times(3))) ||
      failed(expectBuffer(op, "rotations", "[N * 4]", shapeOf(scene[2]),
                          times(4))) ||
      failed(
          expectBuffer(op, "colors", "[N * 3]", shapeOf(scene[4]), times(3))))
    return failure();
  ArrayRef<int64_t> sh = shapeOf(scene[5]);
  if (sh.size() != 1)
    return op->emitOpError() << "sh_coeffs must have rank 1 ([N * C * 3]), got "
                             << formatShape(sh);
  if (!ShapedType::isDynamic(n) && !ShapedType::isDynamic(sh[0])) {
    bool ok = n == 0 ? sh[0] == 0 : sh[0] % (3 * n) == 0;
    if (!ok)
      return op->emitOpError()
             << "sh_coeffs has " << sh[0]
             << " elements, not a multiple of N * 3 = " << 3 * n;
  }
  return expectBuffer(op, "meta", "camera and render settings",
                      shapeOf(scene[6]), kMetaLength);
}

//===----------------------------------------------------------------------===//
// GaussianSplatRenderOp
//===----------------------------------------------------------------------===//

LogicalResult GaussianSplatRenderOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.push_back(
      rgbaType(context, inferenceInt(adaptor.getWidthAttr(), adaptor, "width"),
               inferenceInt(adaptor.getHeightAttr(), adaptor, "height")));
  return success();
}

LogicalResult GaussianSplatRenderOp::verify() {
  int64_t n;
  return verifyScene(*this, getOperands(), n);
}

//===----------------------------------------------------------------------===//
// GaussianSplatRenderBackwardOp
//===----------------------------------------------------------------------===//

LogicalResult GaussianSplatRenderBackwardOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  int64_t length = ShapedType::kDynamic;
  auto opacities = dyn_cast<RankedTensorType>(adaptor.getOpacities().getType());
  auto sh = dyn_cast<RankedTensorType>(adaptor.getShCoeffs().getType());
  if (opacities && sh && opacities.getRank() == 1 && sh.getRank() == 1 &&
      opacities.hasStaticShape() && sh.hasStaticShape()) {
    // Dynamic where the count overflows (the verifier reports it).
    std::optional<int64_t> perGaussian =
        llvm::checkedMul(opacities.getDimSize(0), int64_t(14));
    std::optional<int64_t> total =
        perGaussian ? llvm::checkedAdd(*perGaussian, sh.getDimSize(0))
                    : std::nullopt;
    length = total.value_or(ShapedType::kDynamic);
  }
  inferredReturnTypes.push_back(
      RankedTensorType::get({length}, Float32Type::get(context)));
  return success();
}

LogicalResult GaussianSplatRenderBackwardOp::verify() {
  int64_t n;
  if (failed(verifyScene(*this, getOperands().take_front(7), n)))
    return failure();
  std::optional<int64_t> rgba = rgbaLength(getWidth(), getHeight());
  if (!rgba)
    return emitOpError() << "width " << getWidth() << " x height "
                         << getHeight() << " x 4 is not a positive 64-bit size";
  return expectBuffer(*this, "d_loss_rgba", "[height * width * 4]",
                      getDLossRgba().getType().getShape(), *rgba);
}

//===----------------------------------------------------------------------===//
// GaussianSplatPrepareOp / GaussianSplatRasterizeOp
//===----------------------------------------------------------------------===//

LogicalResult GaussianSplatPrepareOp::verify() {
  int64_t n;
  if (failed(verifyScene(*this, getOperands(), n)))
    return failure();
  ArrayRef<int64_t> result = getResult().getType().getShape();
  if (result.size() != 1 || result[0] == 0)
    return emitOpError() << "result must be a non-empty rank-1 buffer, got "
                         << formatShape(result);
  return success();
}

LogicalResult GaussianSplatRasterizeOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.push_back(
      rgbaType(context, inferenceInt(adaptor.getWidthAttr(), adaptor, "width"),
               inferenceInt(adaptor.getHeightAttr(), adaptor, "height")));
  return success();
}

LogicalResult GaussianSplatRasterizeOp::verify() {
  ArrayRef<int64_t> prep = getPrep().getType().getShape();
  if (prep.size() != 1 || prep[0] == 0)
    return emitOpError() << "prep must be a non-empty rank-1 buffer, got "
                         << formatShape(prep);
  return expectBuffer(*this, "meta", "camera and render settings",
                      getMeta().getType().getShape(), kMetaLength);
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXGaussianSplatOps.cpp.inc"
