//===- BackwardOps.cpp - closed-form backward kernels ---------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/ConvGeometry.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"
#include "rlx/Dialect/RLX/IR/ResizeGeometry.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::conv_geometry;

void RLXDialect::registerBackwardOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXBackwardOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

static Type elementTypeOf(Value value) {
  return getElementTypeOrSelf(value.getType());
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

/// A rank-1 tensor `[d]`.
static RankedTensorType vectorType(int64_t d, Type elementType) {
  return RankedTensorType::get({d}, elementType);
}

/// The extent of `value` along `axis` (negative from the end); dynamic when
/// the value is unranked or the axis is out of range.
static int64_t extentAlong(Value value, IntegerAttr axisAttr) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !axisAttr)
    return ShapedType::kDynamic;
  std::optional<int64_t> axis =
      normalizeAxis(axisAttr.getInt(), type.getRank());
  return axis ? type.getDimSize(*axis) : ShapedType::kDynamic;
}

/// The last extent of a ranked value, dynamic otherwise.
static int64_t lastExtent(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() == 0)
    return ShapedType::kDynamic;
  return type.getShape().back();
}

/// True when two shapes have the same rank and pairwise compatible dims.
static bool shapesCompatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return a.size() == b.size() &&
         llvm::all_of(llvm::zip_equal(a, b), [](auto dims) {
           return dimsCompatible(std::get<0>(dims), std::get<1>(dims));
         });
}

/// Checks that operand `name` has the shape of operand `refName`.
static LogicalResult verifySameShape(Operation *op, StringRef name, Value value,
                                     StringRef refName, Value ref) {
  if (!shapesCompatible(shapeOf(value), shapeOf(ref)))
    return op->emitOpError() << name << " " << formatShape(shapeOf(value))
                             << " must have the shape of " << refName << " "
                             << formatShape(shapeOf(ref));
  return success();
}

/// Checks that operand `name` is the per-feature vector `[d]`, where `d` is
/// described by `what`.
static LogicalResult verifyFeatureVector(Operation *op, StringRef name,
                                         Value value, int64_t d,
                                         StringRef what) {
  ArrayRef<int64_t> shape = shapeOf(value);
  if (shape.size() != 1 || !dimsCompatible(shape[0], d))
    return op->emitOpError() << name << " must be " << formatShape({d}) << " ("
                             << what << "), got " << formatShape(shape);
  return success();
}

/// Normalises `axis` against operand `name`'s rank or reports it.
static FailureOr<int64_t> verifyAxis(Operation *op, int64_t axis,
                                     StringRef name, ArrayRef<int64_t> shape) {
  std::optional<int64_t> normalized = normalizeAxis(axis, shape.size());
  if (!normalized) {
    op->emitOpError() << "axis " << axis << " is out of range for " << name
                      << " " << formatShape(shape) << " of rank "
                      << shape.size();
    return failure();
  }
  return *normalized;
}

/// Verifies the operands of the feature-axis norms (layer norm, rms norm):
/// `dy` has `x`'s shape and every named vector is `[D]`, `D` the extent of
/// `x` along `axis`.
static LogicalResult
verifyAxisNorm(Operation *op, Value x, Value dy, int64_t axis,
               ArrayRef<std::pair<StringRef, Value>> vectors) {
  ArrayRef<int64_t> xShape = shapeOf(x);
  FailureOr<int64_t> normalized = verifyAxis(op, axis, "x", xShape);
  if (failed(normalized) || failed(verifySameShape(op, "dy", dy, "x", x)))
    return failure();
  int64_t d = xShape[*normalized];
  std::string what = "the extent of x " + formatShape(xShape) + " along axis " +
                     std::to_string(axis);
  for (auto [name, value] : vectors)
    if (failed(verifyFeatureVector(op, name, value, d, what)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ReluBackwardOp, ActivationBackwardOp
//===----------------------------------------------------------------------===//

LogicalResult ReluBackwardOp::verify() {
  return verifySameShape(getOperation(), "dy", getDy(), "x", getX());
}

LogicalResult ActivationBackwardOp::verify() {
  return verifySameShape(getOperation(), "dy", getDy(), "x", getX());
}

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

LogicalResult LayerNormBackwardInputOp::verify() {
  return verifyAxisNorm(getOperation(), getX(), getDy(), getAxisAttr().getInt(),
                        {{"gamma", getGamma()}});
}

LogicalResult LayerNormBackwardGammaOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  inferred.push_back(vectorType(
      extentAlong(adaptor.getX(),
                  inferenceAttr<IntegerAttr>(adaptor.getProperties().axis,
                                             adaptor.getAttributes(), "axis")),
      elementTypeOf(adaptor.getX())));
  return success();
}

LogicalResult LayerNormBackwardGammaOp::verify() {
  return verifyAxisNorm(getOperation(), getX(), getDy(), getAxisAttr().getInt(),
                        {});
}

//===----------------------------------------------------------------------===//
// RMS norm
//===----------------------------------------------------------------------===//

template <typename OpTy> static LogicalResult verifyRmsNormBackward(OpTy op) {
  return verifyAxisNorm(op.getOperation(), op.getX(), op.getDy(),
                        op.getAxisAttr().getInt(),
                        {{"gamma", op.getGamma()}, {"beta", op.getBeta()}});
}

LogicalResult RmsNormBackwardInputOp::verify() {
  return verifyRmsNormBackward(*this);
}

LogicalResult RmsNormBackwardGammaOp::verify() {
  return verifyRmsNormBackward(*this);
}

LogicalResult RmsNormBackwardBetaOp::verify() {
  return verifyRmsNormBackward(*this);
}

//===----------------------------------------------------------------------===//
// RopeBackwardOp
//===----------------------------------------------------------------------===//

LogicalResult RopeBackwardOp::verify() {
  int64_t headDim = getHeadDimAttr().getInt();
  int64_t nRot = getNRotAttr().getInt();
  if (nRot < 2 || nRot % 2 != 0 || nRot > headDim)
    return emitOpError() << "'n_rot' must be even, >= 2 and at most head_dim = "
                         << headDim << ", got " << nRot;
  ArrayRef<int64_t> dy = getDy().getType().getShape();
  int64_t seq;
  if (dy.size() == 3) {
    if (!ShapedType::isDynamic(dy[2]) && dy[2] % headDim != 0)
      return emitOpError() << "dy " << formatShape(dy)
                           << " has H * head_dim = " << dy[2]
                           << ", not a multiple of head_dim = " << headDim;
    seq = dy[1];
  } else if (dy.size() == 4) {
    if (!dimsCompatible(dy[3], headDim))
      return emitOpError() << "dy " << formatShape(dy)
                           << " has a head width of " << dy[3]
                           << " but head_dim is " << headDim;
    seq = dy[2];
  } else {
    return emitOpError()
           << "dy must be [B, S, H * head_dim] or [B, H, S, head_dim], got "
           << formatShape(dy);
  }
  ArrayRef<int64_t> cos = getCos().getType().getShape();
  if (cos.size() != 2 || !dimsCompatible(cos[1], nRot / 2))
    return emitOpError() << "cos must be [S, n_rot / 2] = "
                         << formatShape({seq, nRot / 2}) << ", got "
                         << formatShape(cos);
  if (!dimsCompatible(cos[0], seq))
    return emitOpError() << "cos " << formatShape(cos) << " has " << cos[0]
                         << " positions but dy " << formatShape(dy)
                         << " has S = " << seq;
  return verifySameShape(getOperation(), "sin", getSin(), "cos", getCos());
}

//===----------------------------------------------------------------------===//
// Group norm
//===----------------------------------------------------------------------===//

/// Verifies `x`, `dy` and `num_groups` of the group norm kernels and
/// returns the channel count C.
static FailureOr<int64_t> verifyGroupNorm(Operation *op, Value x, Value dy,
                                          int64_t numGroups) {
  ArrayRef<int64_t> xShape = shapeOf(x);
  if (failed(verifyNCHW(op, "x", xShape)) ||
      failed(verifySameShape(op, "dy", dy, "x", x)))
    return failure();
  if (!ShapedType::isDynamic(xShape[1]) && xShape[1] % numGroups != 0) {
    op->emitOpError() << "channels C = " << xShape[1] << " of x "
                      << formatShape(xShape)
                      << " are not divisible by num_groups = " << numGroups;
    return failure();
  }
  return xShape[1];
}

/// The channel count of an NCHW value, dynamic when unknown.
static int64_t channelsOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() != 4)
    return ShapedType::kDynamic;
  return type.getDimSize(1);
}

LogicalResult GroupNormBackwardInputOp::verify() {
  Operation *op = getOperation();
  FailureOr<int64_t> channels =
      verifyGroupNorm(op, getX(), getDy(), getNumGroupsAttr().getInt());
  if (failed(channels))
    return failure();
  StringRef what = "the channels of x";
  if (failed(verifyFeatureVector(op, "gamma", getGamma(), *channels, what)) ||
      failed(verifyFeatureVector(op, "beta", getBeta(), *channels, what)))
    return failure();
  return success();
}

LogicalResult GroupNormBackwardGammaOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  inferred.push_back(
      vectorType(channelsOf(adaptor.getX()), elementTypeOf(adaptor.getX())));
  return success();
}

LogicalResult GroupNormBackwardGammaOp::verify() {
  return verifyGroupNorm(getOperation(), getX(), getDy(),
                         getNumGroupsAttr().getInt());
}

LogicalResult GroupNormBackwardBetaOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  inferred.push_back(
      vectorType(channelsOf(adaptor.getX()), elementTypeOf(adaptor.getX())));
  return success();
}

LogicalResult GroupNormBackwardBetaOp::verify() {
  return verifyGroupNorm(getOperation(), getX(), getDy(),
                         getNumGroupsAttr().getInt());
}

//===----------------------------------------------------------------------===//
// Batch norm (inference statistics)
//===----------------------------------------------------------------------===//

/// Verifies a last-axis feature tensor and the `[C]` statistics vectors.
static LogicalResult
verifyBatchNorm(Operation *op, Value x, Value dy,
                ArrayRef<std::pair<StringRef, Value>> vectors) {
  ArrayRef<int64_t> xShape = shapeOf(x);
  if (xShape.empty())
    return op->emitOpError()
           << "x must have rank >= 1 (features on the last axis), got []";
  if (failed(verifySameShape(op, "dy", dy, "x", x)))
    return failure();
  for (auto [name, value] : vectors)
    if (failed(verifyFeatureVector(op, name, value, xShape.back(),
                                   "the last extent of x")))
      return failure();
  return success();
}

LogicalResult BatchNormInferenceBackwardInputOp::verify() {
  return verifyBatchNorm(
      getOperation(), getX(), getDy(),
      {{"gamma", getGamma()}, {"mean", getMean()}, {"var", getVar()}});
}

LogicalResult BatchNormInferenceBackwardGammaOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  inferred.push_back(
      vectorType(lastExtent(adaptor.getX()), elementTypeOf(adaptor.getX())));
  return success();
}

LogicalResult BatchNormInferenceBackwardGammaOp::verify() {
  return verifyBatchNorm(getOperation(), getX(), getDy(),
                         {{"mean", getMean()}, {"var", getVar()}});
}

LogicalResult BatchNormInferenceBackwardBetaOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  inferred.push_back(
      vectorType(lastExtent(adaptor.getDy()), elementTypeOf(adaptor.getDy())));
  return success();
}

LogicalResult BatchNormInferenceBackwardBetaOp::verify() {
  if (getDy().getType().getRank() == 0)
    return emitOpError()
           << "dy must have rank >= 1 (features on the last axis), got []";
  return success();
}

//===----------------------------------------------------------------------===//
// CumsumBackwardOp, GatherBackwardOp
//===----------------------------------------------------------------------===//

LogicalResult CumsumBackwardOp::verify() {
  return verifyAxis(getOperation(), getAxisAttr().getInt(), "dy",
                    getDy().getType().getShape());
}

LogicalResult GatherBackwardOp::verify() {
  ArrayRef<int64_t> dy = getDy().getType().getShape();
  ArrayRef<int64_t> indices = getIndices().getType().getShape();
  ArrayRef<int64_t> table = getResult().getType().getShape();
  if (table.empty())
    return emitOpError() << "result (the table) must have rank >= 1, got []";
  FailureOr<int64_t> axis =
      verifyAxis(getOperation(), getAxisAttr().getInt(), "the table", table);
  if (failed(axis))
    return failure();
  // The forward output is table[:axis] ++ indices ++ table[axis+1:].
  SmallVector<int64_t> expected(table.take_front(*axis));
  llvm::append_range(expected, indices);
  llvm::append_range(expected, table.drop_front(*axis + 1));
  if (!shapesCompatible(dy, expected))
    return emitOpError() << "dy " << formatShape(dy)
                         << " must be the gather output shape "
                         << formatShape(expected) << " of table "
                         << formatShape(table) << " and indices "
                         << formatShape(indices) << " along axis " << *axis;
  return success();
}

//===----------------------------------------------------------------------===//
// MaxPool2dBackwardOp
//===----------------------------------------------------------------------===//

static Window maxPoolWindow(MaxPool2dBackwardOp::Adaptor &adaptor) {
  return {
      windowArray(adaptor, adaptor.getProperties().kernel_size, "kernel_size"),
      windowArray(adaptor, adaptor.getProperties().stride, "stride"),
      windowArray(adaptor, adaptor.getProperties().padding, "padding"),
      {},
      {}};
}

/// Checks that `dy` has the forward output shape `expected`.
static LogicalResult verifyForwardOutput(Operation *op, Value dy,
                                         ArrayRef<int64_t> expected,
                                         StringRef forward) {
  ArrayRef<int64_t> shape = shapeOf(dy);
  if (!shapesCompatible(shape, expected))
    return op->emitOpError()
           << "dy " << formatShape(shape) << " must be the " << forward
           << " output shape " << formatShape(expected);
  return success();
}

LogicalResult MaxPool2dBackwardOp::verify() {
  Operation *op = getOperation();
  ArrayRef<int64_t> x = getX().getType().getShape();
  Adaptor adaptor(*this);
  Window window = maxPoolWindow(adaptor);
  if (failed(verifyNCHW(op, "x", x)) ||
      failed(verifyWindowAttrs(op, window, false, false)) ||
      failed(verifyPoolPadding(op, window)))
    return failure();
  FailureOr<SmallVector<int64_t, 2>> hw =
      verifySlidingOutput(op, "x", x, window, false);
  if (failed(hw))
    return failure();
  SmallVector<int64_t> expected = {x[0], x[1], (*hw)[0], (*hw)[1]};
  return verifyForwardOutput(op, getDy(), expected, "pool");
}

//===----------------------------------------------------------------------===//
// Conv2dBackwardInputOp, Conv2dBackwardWeightOp
//===----------------------------------------------------------------------===//

template <typename AdaptorT>
static Window convBackwardWindow(AdaptorT &adaptor) {
  return {
      windowArray(adaptor, adaptor.getProperties().kernel_size, "kernel_size"),
      windowArray(adaptor, adaptor.getProperties().stride, "stride"),
      windowArray(adaptor, adaptor.getProperties().padding, "padding"),
      windowArray(adaptor, adaptor.getProperties().dilation, "dilation"),
      {}};
}

LogicalResult Conv2dBackwardInputOp::verify() {
  Operation *op = getOperation();
  ArrayRef<int64_t> x = getResult().getType().getShape();
  ArrayRef<int64_t> dy = getDy().getType().getShape();
  ArrayRef<int64_t> weight = getWeight().getType().getShape();
  Adaptor adaptor(*this);
  Window window = convBackwardWindow(adaptor);
  if (failed(verifyNCHW(op, "result (the forward input)", x)) ||
      failed(verifyNCHW(op, "dy", dy)))
    return failure();
  if (weight.size() != 4)
    return emitOpError()
           << "weight must be [C_out, C_in/groups, kH, kW] (rank 4), got "
           << formatShape(weight);
  if (failed(verifyWindowAttrs(op, window, true, false)))
    return failure();
  int64_t groups = getGroupsAttr().getInt();
  if (failed(verifyGroupsDivide(op, groups, "result channels C_in", x[1])) ||
      failed(verifyGroupsDivide(
          op, groups, "output channels C_out (weight dim 0)", weight[0])))
    return failure();
  int64_t perGroup = exactDiv(x[1], groups);
  if (!dimsCompatible(weight[1], perGroup))
    return emitOpError() << "weight " << formatShape(weight)
                         << " has C_in/groups = " << weight[1] << " but result "
                         << formatShape(x) << " with groups = " << groups
                         << " needs " << perGroup;
  if (failed(verifyKernelMatchesWeight(op, weight, window.kernel)))
    return failure();
  FailureOr<SmallVector<int64_t, 2>> hw =
      verifySlidingOutput(op, "result", x, window, true);
  if (failed(hw))
    return failure();
  SmallVector<int64_t> expected = {x[0], weight[0], (*hw)[0], (*hw)[1]};
  return verifyForwardOutput(op, getDy(), expected, "forward conv");
}

LogicalResult Conv2dBackwardWeightOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
  auto dyType = dyn_cast<RankedTensorType>(adaptor.getDy().getType());
  SmallVector<int64_t> shape(4, ShapedType::kDynamic);
  IntegerAttr groupsAttr = inferenceAttr<IntegerAttr>(
      adaptor.getProperties().groups, adaptor.getAttributes(), "groups");
  int64_t groups = groupsAttr ? groupsAttr.getInt() : 0;
  if (dyType && dyType.getRank() == 4)
    shape[0] = dyType.getDimSize(1);
  if (xType && xType.getRank() == 4)
    shape[1] = exactDiv(xType.getDimSize(1), groups);
  ArrayRef<int64_t> kernel =
      windowArray(adaptor, adaptor.getProperties().kernel_size, "kernel_size");
  if (kernel.size() == 2) {
    shape[2] = kernel[0];
    shape[3] = kernel[1];
  }
  inferred.push_back(
      RankedTensorType::get(shape, elementTypeOf(adaptor.getX())));
  return success();
}

LogicalResult Conv2dBackwardWeightOp::verify() {
  Operation *op = getOperation();
  ArrayRef<int64_t> x = getX().getType().getShape();
  ArrayRef<int64_t> dy = getDy().getType().getShape();
  Adaptor adaptor(*this);
  Window window = convBackwardWindow(adaptor);
  if (failed(verifyNCHW(op, "x", x)) || failed(verifyNCHW(op, "dy", dy)) ||
      failed(verifyWindowAttrs(op, window, true, false)))
    return failure();
  int64_t groups = getGroupsAttr().getInt();
  if (failed(verifyGroupsDivide(op, groups, "input channels C_in", x[1])) ||
      failed(verifyGroupsDivide(op, groups, "output channels C_out (dy dim 1)",
                                dy[1])))
    return failure();
  FailureOr<SmallVector<int64_t, 2>> hw =
      verifySlidingOutput(op, "x", x, window, true);
  if (failed(hw))
    return failure();
  SmallVector<int64_t> expected = {x[0], dy[1], (*hw)[0], (*hw)[1]};
  return verifyForwardOutput(op, getDy(), expected, "forward conv");
}

//===----------------------------------------------------------------------===//
// Softmax cross-entropy
//===----------------------------------------------------------------------===//

/// Checks `logits [N, C]` and a `[N]` operand `name`.
static LogicalResult verifyLogitsAndRows(Operation *op, Value logits,
                                         StringRef name, Value rows) {
  ArrayRef<int64_t> l = shapeOf(logits);
  ArrayRef<int64_t> r = shapeOf(rows);
  if (l.size() != 2)
    return op->emitOpError()
           << "logits must be [N, C] (rank 2), got " << formatShape(l);
  if (r.size() != 1)
    return op->emitOpError()
           << name << " must be [N] (rank 1), got " << formatShape(r);
  if (!dimsCompatible(r[0], l[0]))
    return op->emitOpError()
           << name << " " << formatShape(r) << " has N = " << r[0]
           << " but logits " << formatShape(l) << " has N = " << l[0];
  return success();
}

LogicalResult SoftmaxCrossEntropyWithLogitsOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto logits = dyn_cast<RankedTensorType>(adaptor.getLogits().getType());
  int64_t n = logits && logits.getRank() >= 1 ? logits.getDimSize(0)
                                              : ShapedType::kDynamic;
  inferred.push_back(vectorType(n, elementTypeOf(adaptor.getLogits())));
  return success();
}

LogicalResult SoftmaxCrossEntropyWithLogitsOp::verify() {
  return verifyLogitsAndRows(getOperation(), getLogits(), "labels",
                             getLabels());
}

LogicalResult SoftmaxCrossEntropyBackwardOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyLogitsAndRows(op, getLogits(), "labels", getLabels())) ||
      failed(verifyLogitsAndRows(op, getLogits(), "d_loss", getDLoss())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionBackwardOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionBackwardOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto wrt = inferenceAttr<AttentionBwdWrtAttr>(adaptor.getProperties().wrt,
                                                adaptor.getAttributes(), "wrt");
  Value chosen = adaptor.getQ();
  if (wrt && wrt.getValue() == AttentionBwdWrt::Key)
    chosen = adaptor.getK();
  else if (wrt && wrt.getValue() == AttentionBwdWrt::Value)
    chosen = adaptor.getV();
  inferred.push_back(chosen.getType());
  return success();
}

/// Checks the layout of one of q, k, v: `[B, H, S, D]` or `[B, S, H * D]`.
static LogicalResult verifyAttentionLayout(Operation *op, StringRef name,
                                           ArrayRef<int64_t> shape,
                                           int64_t heads, int64_t headDim) {
  if (shape.size() == 4) {
    if (!dimsCompatible(shape[1], heads) || !dimsCompatible(shape[3], headDim))
      return op->emitOpError()
             << name << " " << formatShape(shape)
             << " must be [B, H, S, D] with H = num_heads = " << heads
             << " and D = head_dim = " << headDim;
    return success();
  }
  if (shape.size() == 3) {
    if (!dimsCompatible(shape[2], heads * headDim))
      return op->emitOpError()
             << name << " " << formatShape(shape)
             << " must be [B, S, H * D] with H * D = num_heads * head_dim = "
             << heads * headDim;
    return success();
  }
  return op->emitOpError() << name
                           << " must be [B, H, S, D] or [B, S, H * D], got "
                           << formatShape(shape);
}

LogicalResult AttentionBackwardOp::verify() {
  Operation *op = getOperation();
  int64_t heads = getNumHeadsAttr().getInt();
  int64_t headDim = getHeadDimAttr().getInt();
  // verifyAttentionLayout multiplies them.
  if (!llvm::checkedMul(heads, headDim))
    return emitOpError() << "num_heads * head_dim overflows int64";
  ArrayRef<int64_t> q = getQ().getType().getShape();
  ArrayRef<int64_t> k = getK().getType().getShape();
  if (failed(verifyAttentionLayout(op, "q", q, heads, headDim)))
    return failure();
  if (k.size() != q.size())
    return emitOpError() << "k " << formatShape(k)
                         << " must have the rank of q " << formatShape(q);
  if (failed(verifyAttentionLayout(op, "k", k, heads, headDim)) ||
      failed(verifySameShape(op, "v", getV(), "k", getK())))
    return failure();
  if (!dimsCompatible(k[0], q[0]))
    return emitOpError() << "k " << formatShape(k) << " has batch " << k[0]
                         << " but q " << formatShape(q) << " has batch "
                         << q[0];
  if (failed(verifySameShape(op, "dy", getDy(), "q", getQ())))
    return failure();

  MaskKind kind = getMaskKind();
  std::optional<uint64_t> window = getWindow();
  if (kind == MaskKind::SlidingWindow) {
    if (!getWindowAttr())
      return emitOpError()
             << "mask_kind 'sliding_window' requires the 'window' attribute";
  } else if (window) {
    return emitOpError() << "'window' is only valid with mask_kind "
                            "'sliding_window', got mask_kind '"
                         << stringifyEnum(kind) << "'";
  }

  bool wantsMask = kind == MaskKind::Custom || kind == MaskKind::Bias;
  Value mask = getMask();
  if (wantsMask && !mask)
    return emitOpError() << "mask_kind '" << stringifyEnum(kind)
                         << "' requires a mask operand";
  if (!wantsMask && mask)
    return emitOpError() << "mask_kind '" << stringifyEnum(kind)
                         << "' takes no mask operand";
  if (mask) {
    bool bhsd = q.size() == 4;
    int64_t batch = q[0];
    int64_t sq = bhsd ? q[2] : q[1];
    int64_t sk = bhsd ? k[2] : k[1];
    SmallVector<int64_t> expected =
        kind == MaskKind::Custom ? SmallVector<int64_t>{batch, sk}
                                 : SmallVector<int64_t>{batch, heads, sq, sk};
    ArrayRef<int64_t> maskShape = shapeOf(mask);
    if (!shapesCompatible(maskShape, expected))
      return emitOpError() << (kind == MaskKind::Custom
                                   ? "custom mask must be [B, Sk] = "
                                   : "bias mask must be [B, H, Sq, Sk] = ")
                           << formatShape(expected) << ", got "
                           << formatShape(maskShape);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ResizeBackwardOp
//===----------------------------------------------------------------------===//

LogicalResult ResizeBackwardOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto dyType = cast<RankedTensorType>(adaptor.getDy().getType());
  DenseI64ArrayAttr sizes = inferenceAttr<DenseI64ArrayAttr>(
      adaptor.getProperties().sizes, adaptor.getAttributes(), "sizes");
  SmallVector<int64_t> shape(dyType.getShape());
  // Sizes that do not fit are the verifier's to report.
  if (sizes && static_cast<size_t>(sizes.size()) <= shape.size())
    llvm::copy(sizes.asArrayRef(), shape.end() - sizes.size());
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, dyType.getElementType()));
  return success();
}

LogicalResult ResizeBackwardOp::verify() {
  return resize_geometry::verifyResize(
      *this, "dy", cast<RankedTensorType>(getDy().getType()), getMode(),
      getSizes(), getAlignCorners(), getScales());
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXBackwardOps.cpp.inc"
