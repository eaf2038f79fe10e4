//===- ConvPoolOps.cpp - convolution and pooling (NCHW) -------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/ConvGeometry.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::conv_geometry;

void RLXDialect::registerConvPoolOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXConvPoolOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// A rank-4 tensor of unknown extents; the best-effort type of malformed ops.
static RankedTensorType unknownNCHW(Type elementType) {
  return RankedTensorType::get(SmallVector<int64_t>(4, ShapedType::kDynamic),
                               elementType);
}

/// A failed inference of `opName` whose result would have `shape`, an
/// extent of which does not fit in 64 bits (reported at `location`).
static LogicalResult overflowingResult(std::optional<Location> location,
                                       StringRef opName,
                                       ArrayRef<int64_t> shape) {
  if (location)
    emitError(*location) << "'" << opName
                         << "' op result dims overflow 64 bits: "
                         << formatShape(shape);
  return failure();
}

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

static Window convWindow(ConvOp::Adaptor &adaptor) {
  return {
      windowArray(adaptor, adaptor.getProperties().kernel_size, "kernel_size"),
      windowArray(adaptor, adaptor.getProperties().stride, "stride"),
      windowArray(adaptor, adaptor.getProperties().padding, "padding"),
      windowArray(adaptor, adaptor.getProperties().dilation, "dilation"),
      {}};
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto weightType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
  Type elementType = getElementTypeOrSelf(adaptor.getInput().getType());
  RankedTensorType result = unknownNCHW(elementType);
  Window window = convWindow(adaptor);
  if (inputType && weightType && inputType.getRank() == 4 &&
      weightType.getRank() == 4 && isWellFormed(window, true, false)) {
    FailureOr<SmallVector<int64_t, 2>> hw = inferredOutputHW(
        location, getOperationName(), inputType.getShape(), window, true,
        slidingOutputHW(inputType.getShape(), window));
    if (failed(hw))
      return failure();
    result = RankedTensorType::get(
        {inputType.getDimSize(0), weightType.getDimSize(0), (*hw)[0], (*hw)[1]},
        elementType);
  }
  inferred.push_back(result);
  return success();
}

LogicalResult ConvOp::verify() {
  Operation *op = getOperation();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> weight = getWeight().getType().getShape();
  Adaptor adaptor(*this);
  Window window = convWindow(adaptor);
  if (failed(verifyNCHW(op, "input", input)))
    return failure();
  if (weight.size() != 4)
    return emitOpError()
           << "weight must be [C_out, C_in/groups, kH, kW] (rank 4), got "
           << formatShape(weight);
  if (failed(verifyWindowAttrs(op, window, /*hasDilation=*/true,
                               /*hasOutputPadding=*/false)))
    return failure();
  int64_t groups = getGroupsAttr().getInt();
  if (failed(verifyGroupsDivide(op, groups, "input channels C_in", input[1])) ||
      failed(verifyGroupsDivide(
          op, groups, "output channels C_out (weight dim 0)", weight[0])))
    return failure();
  int64_t perGroup = exactDiv(input[1], groups);
  if (!dimsCompatible(weight[1], perGroup))
    return emitOpError() << "weight " << formatShape(weight)
                         << " has C_in/groups = " << weight[1] << " but input "
                         << formatShape(input) << " with groups = " << groups
                         << " needs " << perGroup;
  if (failed(verifyKernelMatchesWeight(op, weight, window.kernel)) ||
      failed(verifySlidingOutput(op, "input", input, window, true)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Im2ColOp
//===----------------------------------------------------------------------===//

static Window im2colWindow(Im2ColOp::Adaptor &adaptor) {
  return {
      windowArray(adaptor, adaptor.getProperties().kernel_size, "kernel_size"),
      windowArray(adaptor, adaptor.getProperties().stride, "stride"),
      windowArray(adaptor, adaptor.getProperties().padding, "padding"),
      windowArray(adaptor, adaptor.getProperties().dilation, "dilation"),
      {}};
}

LogicalResult Im2ColOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  Type elementType = getElementTypeOrSelf(adaptor.getInput().getType());
  SmallVector<int64_t> shape(2, ShapedType::kDynamic);
  Window window = im2colWindow(adaptor);
  if (inputType && inputType.getRank() == 4 &&
      isWellFormed(window, true, false)) {
    ArrayRef<int64_t> in = inputType.getShape();
    FailureOr<SmallVector<int64_t, 2>> hw =
        inferredOutputHW(location, getOperationName(), in, window, true,
                         slidingOutputHW(in, window));
    if (failed(hw))
      return failure();
    shape[0] = mulExtents(in[0], mulExtents((*hw)[0], (*hw)[1]));
    shape[1] =
        mulExtents(in[1], mulExtents(window.kernel[0], window.kernel[1]));
    if (anyOverflowingExtent(shape))
      return overflowingResult(location, getOperationName(), shape);
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult Im2ColOp::verify() {
  Operation *op = getOperation();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  Adaptor adaptor(*this);
  Window window = im2colWindow(adaptor);
  if (failed(verifyNCHW(op, "input", input)) ||
      failed(verifyWindowAttrs(op, window, true, false)) ||
      failed(verifySlidingOutput(op, "input", input, window, true)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ConvTranspose2dOp
//===----------------------------------------------------------------------===//

static Window convTransposeWindow(ConvTranspose2dOp::Adaptor &adaptor) {
  return {
      windowArray(adaptor, adaptor.getProperties().kernel_size, "kernel_size"),
      windowArray(adaptor, adaptor.getProperties().stride, "stride"),
      windowArray(adaptor, adaptor.getProperties().padding, "padding"),
      windowArray(adaptor, adaptor.getProperties().dilation, "dilation"),
      windowArray(adaptor, adaptor.getProperties().output_padding,
                  "output_padding")};
}

LogicalResult ConvTranspose2dOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto weightType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
  Type elementType = getElementTypeOrSelf(adaptor.getInput().getType());
  RankedTensorType result = unknownNCHW(elementType);
  Window window = convTransposeWindow(adaptor);
  IntegerAttr groupsAttr = inferenceAttr<IntegerAttr>(
      adaptor.getProperties().groups, adaptor.getAttributes(), "groups");
  int64_t groups = groupsAttr ? groupsAttr.getInt() : 0;
  if (inputType && weightType && inputType.getRank() == 4 &&
      weightType.getRank() == 4 && isWellFormed(window, true, true) &&
      groups >= 1) {
    FailureOr<SmallVector<int64_t, 2>> hw = inferredOutputHW(
        location, getOperationName(), inputType.getShape(), window, true,
        transposedOutputHW(inputType.getShape(), window));
    if (failed(hw))
      return failure();
    SmallVector<int64_t> shape = {inputType.getDimSize(0),
                                  mulExtents(weightType.getDimSize(1), groups),
                                  (*hw)[0], (*hw)[1]};
    if (anyOverflowingExtent(shape))
      return overflowingResult(location, getOperationName(), shape);
    result = RankedTensorType::get(shape, elementType);
  }
  inferred.push_back(result);
  return success();
}

LogicalResult ConvTranspose2dOp::verify() {
  Operation *op = getOperation();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> weight = getWeight().getType().getShape();
  Adaptor adaptor(*this);
  Window window = convTransposeWindow(adaptor);
  if (failed(verifyNCHW(op, "input", input)))
    return failure();
  if (weight.size() != 4)
    return emitOpError()
           << "weight must be [C_in, C_out/groups, kH, kW] (rank 4), got "
           << formatShape(weight);
  if (failed(verifyWindowAttrs(op, window, true, true)))
    return failure();
  for (unsigned i = 0; i < 2; ++i) {
    if (window.outputPadding[i] >= window.stride[i] &&
        window.outputPadding[i] >= window.dilation[i])
      return emitOpError() << "'output_padding' "
                           << formatShape(window.outputPadding)
                           << " must be smaller than either stride "
                           << formatShape(window.stride) << " or dilation "
                           << formatShape(window.dilation)
                           << " in each dimension";
  }
  int64_t groups = getGroupsAttr().getInt();
  if (failed(verifyGroupsDivide(op, groups, "input channels C_in", input[1])))
    return failure();
  if (!dimsCompatible(weight[0], input[1]))
    return emitOpError() << "weight " << formatShape(weight)
                         << " has C_in = " << weight[0] << " but input "
                         << formatShape(input) << " has C_in = " << input[1];
  if (failed(verifyKernelMatchesWeight(op, weight, window.kernel)))
    return failure();
  SmallVector<int64_t, 2> hw = transposedOutputHW(input, window);
  if (anyOverflowingExtent(hw))
    return emitOpError() << "output size overflows 64 bits: input "
                         << formatShape(input) << " with "
                         << describeWindow(window, true);
  if (anyEmptyExtent(hw)) {
    InFlightDiagnostic diag = emitOpError();
    describeMisfit(diag, "input", input, window, true, hw);
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PoolOp
//===----------------------------------------------------------------------===//

static Window poolWindow(PoolOp::Adaptor &adaptor) {
  return {
      windowArray(adaptor, adaptor.getProperties().kernel_size, "kernel_size"),
      windowArray(adaptor, adaptor.getProperties().stride, "stride"),
      windowArray(adaptor, adaptor.getProperties().padding, "padding"),
      {},
      {}};
}

LogicalResult PoolOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  Type elementType = getElementTypeOrSelf(adaptor.getInput().getType());
  RankedTensorType result = unknownNCHW(elementType);
  Window window = poolWindow(adaptor);
  if (inputType && inputType.getRank() == 4 &&
      isWellFormed(window, false, false)) {
    FailureOr<SmallVector<int64_t, 2>> hw = inferredOutputHW(
        location, getOperationName(), inputType.getShape(), window, false,
        slidingOutputHW(inputType.getShape(), window));
    if (failed(hw))
      return failure();
    result = RankedTensorType::get(
        {inputType.getDimSize(0), inputType.getDimSize(1), (*hw)[0], (*hw)[1]},
        elementType);
  }
  inferred.push_back(result);
  return success();
}

LogicalResult PoolOp::verify() {
  Operation *op = getOperation();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  Adaptor adaptor(*this);
  Window window = poolWindow(adaptor);
  if (getKind() == ReduceKind::Mean &&
      !isa<FloatType>(getInput().getType().getElementType()))
    return emitOpError() << "pool 'mean' requires a floating-point element "
                            "type, got "
                         << getInput().getType().getElementType();
  if (failed(verifyNCHW(op, "input", input)) ||
      failed(verifyWindowAttrs(op, window, false, false)))
    return failure();
  if (failed(verifyPoolPadding(op, window)) ||
      failed(verifySlidingOutput(op, "input", input, window, false)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXConvPoolOps.cpp.inc"
