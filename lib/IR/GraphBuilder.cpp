//===- GraphBuilder.cpp - build rlx graphs from C++ -----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/IR/GraphBuilder.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::rlx;

/// The `[kH, kW]` extent of a convolution weight `[.., .., kH, kW]`; empty
/// for a weight of another rank, which the op's verifier reports.
static SmallVector<int64_t> kernelOf(Value weight) {
  auto type =
      dyn_cast_or_null<RankedTensorType>(weight ? weight.getType() : Type());
  if (!type || type.getRank() != 4)
    return {};
  return {type.getDimSize(2), type.getDimSize(3)};
}

GraphBuilder::GraphBuilder(MLIRContext *context, StringRef name)
    : builder(context), graphLoc(UnknownLoc::get(context)),
      currentLoc(graphLoc) {
  context->loadDialect<RLXDialect, func::FuncDialect>();
  ownedModule = ModuleOp::create(graphLoc);
  module = *ownedModule;
  init(name);
}

GraphBuilder::GraphBuilder(ModuleOp module, StringRef name)
    : builder(module.getContext()), module(module),
      graphLoc(UnknownLoc::get(module.getContext())), currentLoc(graphLoc) {
  getContext()->loadDialect<RLXDialect, func::FuncDialect>();
  init(name);
}

void GraphBuilder::init(StringRef name) {
  graphLoc = NameLoc::get(builder.getStringAttr(name));
  currentLoc = graphLoc;
  builder.setInsertionPointToEnd(module.getBody());
  function = func::FuncOp::create(builder, graphLoc, name,
                                  builder.getFunctionType({}, {}));
  builder.setInsertionPointToEnd(function.addEntryBlock());
}

void GraphBuilder::setName(StringRef name) {
  currentLoc =
      name.empty()
          ? graphLoc
          : Location(NameLoc::get(builder.getStringAttr(name), graphLoc));
}

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

Value GraphBuilder::addLeaf(StringRef attrName, StringRef name,
                            ArrayRef<int64_t> shape, Type elementType) {
  auto type = RankedTensorType::get(shape, elementType);
  Block &entry = function.getBody().front();
  BlockArgument arg = entry.addArgument(type, currentLoc);
  SmallVector<Type> inputs(entry.getArgumentTypes());
  function.setType(builder.getFunctionType(inputs, {}));
  function.setArgAttr(arg.getArgNumber(), attrName,
                      builder.getStringAttr(name));
  // The dialect checks names (non-empty, unique) on the function.
  if (failed(getContext()
                 ->getLoadedDialect<RLXDialect>()
                 ->verifyRegionArgAttribute(
                     function, 0, arg.getArgNumber(),
                     builder.getNamedAttr(attrName,
                                          builder.getStringAttr(name))))) {
    failedState = true;
    return {};
  }
  return arg;
}

Value GraphBuilder::input(StringRef name, ArrayRef<int64_t> shape,
                          Type elementType) {
  return addLeaf(RLXDialect::kInputAttrName, name, shape, elementType);
}

Value GraphBuilder::param(StringRef name, ArrayRef<int64_t> shape,
                          Type elementType) {
  return addLeaf(RLXDialect::kParamAttrName, name, shape, elementType);
}

Value GraphBuilder::state(StringRef name, ArrayRef<int64_t> shape,
                          Type elementType) {
  Value arg = param(name, shape, elementType);
  if (arg)
    function.setArgAttr(llvm::cast<BlockArgument>(arg).getArgNumber(),
                        RLXDialect::kStateAttrName, builder.getUnitAttr());
  return arg;
}

Value GraphBuilder::constant(ElementsAttr value) {
  return resultOf(create<ConstantOp>(value));
}

Value GraphBuilder::constant(ArrayRef<int64_t> shape, ArrayRef<float> values) {
  auto type = RankedTensorType::get(shape, f32());
  if (static_cast<int64_t>(values.size()) != type.getNumElements()) {
    emitBuilderError() << "constant of shape " << formatShape(type.getShape())
                       << " needs " << type.getNumElements() << " values, got "
                       << values.size();
    return {};
  }
  return constant(DenseElementsAttr::get(type, values));
}

Value GraphBuilder::splat(ArrayRef<int64_t> shape, Type elementType,
                          double value) {
  auto type = RankedTensorType::get(shape, elementType);
  Attribute element;
  if (auto floatType = dyn_cast<FloatType>(elementType))
    element = builder.getFloatAttr(floatType, value);
  else if (isa<IntegerType>(elementType))
    element = builder.getIntegerAttr(elementType, static_cast<int64_t>(value));
  if (!element) {
    emitBuilderError() << "splat constants need a float or integer "
                       << "element type, got " << elementType;
    return {};
  }
  return constant(DenseElementsAttr::get(type, element));
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

Value GraphBuilder::activation(ActivationKind kind, Value x) {
  return emit({x}, [&](PrimitiveBuilder &p) { return p.activation(kind, x); });
}

Value GraphBuilder::binary(BinaryKind kind, Value lhs, Value rhs) {
  return emit({lhs, rhs},
              [&](PrimitiveBuilder &p) { return p.binary(kind, lhs, rhs); });
}

Value GraphBuilder::matmul(Value lhs, Value rhs) {
  return emit({lhs, rhs},
              [&](PrimitiveBuilder &p) { return p.matmul(lhs, rhs); });
}

Value GraphBuilder::linear(Value x, Value w, Value bias,
                           std::optional<ActivationKind> act) {
  Value y = matmul(x, w);
  if (bias)
    y = add(y, bias);
  if (act)
    y = activation(*act, y);
  return y;
}

Value GraphBuilder::compare(CompareKind kind, Value lhs, Value rhs) {
  return emit({lhs, rhs},
              [&](PrimitiveBuilder &p) { return p.compare(kind, lhs, rhs); });
}

Value GraphBuilder::where(Value cond, Value onTrue, Value onFalse) {
  return emit({cond, onTrue, onFalse}, [&](PrimitiveBuilder &p) {
    return p.where(cond, onTrue, onFalse);
  });
}

Value GraphBuilder::cast(Value x, Type elementType) {
  return emit({x}, [&](PrimitiveBuilder &p) { return p.cast(x, elementType); });
}

Value GraphBuilder::stopGradient(Value x) {
  return resultOf(create<StopGradientOp>(x));
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

Value GraphBuilder::reshape(Value x, ArrayRef<int64_t> newShape) {
  return emit({x}, [&](PrimitiveBuilder &p) { return p.reshape(x, newShape); });
}

Value GraphBuilder::transpose(Value x, ArrayRef<int64_t> perm) {
  return emit({x}, [&](PrimitiveBuilder &p) { return p.transpose(x, perm); });
}

Value GraphBuilder::narrow(Value x, int64_t axis, int64_t start,
                           int64_t length) {
  return emit({x}, [&](PrimitiveBuilder &p) {
    return p.narrow(x, axis, start, length);
  });
}

Value GraphBuilder::concat(ValueRange inputs, int64_t axis) {
  return resultOf(create<ConcatOp>(inputs, i64Attr(axis)));
}

Value GraphBuilder::expand(Value x, ArrayRef<int64_t> targetShape) {
  return resultOf(create<ExpandOp>(x, targetShape));
}

Value GraphBuilder::gather(Value table, Value indices, int64_t axis) {
  return resultOf(create<GatherOp>(table, indices, i64Attr(axis)));
}

//===----------------------------------------------------------------------===//
// Reductions and normalization
//===----------------------------------------------------------------------===//

Value GraphBuilder::reduce(ReduceKind kind, Value x, ArrayRef<int64_t> axes,
                           bool keepDim) {
  return emit({x}, [&](PrimitiveBuilder &p) {
    return p.reduce(kind, x, axes, keepDim);
  });
}

Value GraphBuilder::softmax(Value x, int64_t axis) {
  return resultOf(create<SoftmaxOp>(x, i64Attr(axis)));
}

Value GraphBuilder::cumsum(Value x, int64_t axis, bool exclusive) {
  return resultOf(create<CumsumOp>(x, i64Attr(axis), unitAttrIf(exclusive)));
}

std::pair<Value, Value> GraphBuilder::topK(Value x, int64_t k) {
  TopKOp op = create<TopKOp>(x, i64Attr(k));
  if (!op)
    return {};
  return {op->getResult(0), op->getResult(1)};
}

Value GraphBuilder::layerNorm(Value x, Value gamma, Value beta, int64_t axis,
                              float eps) {
  return emit({x, gamma, beta}, [&](PrimitiveBuilder &p) {
    return p.layerNorm(x, gamma, beta, axis, f32Attr(eps));
  });
}

Value GraphBuilder::rmsNorm(Value x, Value gamma, Value beta, int64_t axis,
                            float eps) {
  return emit({x, gamma, beta}, [&](PrimitiveBuilder &p) {
    return p.rmsNorm(x, gamma, beta, axis, f32Attr(eps));
  });
}

Value GraphBuilder::groupNorm(Value x, Value gamma, Value beta,
                              int64_t numGroups, float eps) {
  return resultOf(
      create<GroupNormOp>(x, gamma, beta, i64Attr(numGroups), f32Attr(eps)));
}

Value GraphBuilder::batchNormInference(Value x, Value gamma, Value beta,
                                       Value mean, Value var, float eps) {
  return resultOf(
      create<BatchNormInferenceOp>(x, gamma, beta, mean, var, f32Attr(eps)));
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

Value GraphBuilder::attention(Value q, Value k, Value v, int64_t numHeads,
                              int64_t headDim,
                              const AttentionOptions &options) {
  return resultOf(createWithOptional<AttentionOp>(
      {q, k, v}, q, k, v, options.mask, i64Attr(numHeads), i64Attr(headDim),
      MaskKindAttr::get(getContext(), options.maskKind),
      optionalI64Attr(options.window), optionalF32Attr(options.scoreScale),
      optionalF32Attr(options.logitSoftcap)));
}

Value GraphBuilder::rope(Value x, Value cos, Value sin, int64_t headDim,
                         int64_t nRot) {
  return emit({x, cos, sin}, [&](PrimitiveBuilder &p) {
    return p.rope(x, cos, sin, headDim, nRot);
  });
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

Value GraphBuilder::conv2d(Value x, Value weight, ArrayRef<int64_t> stride,
                           ArrayRef<int64_t> padding,
                           ArrayRef<int64_t> dilation, int64_t groups) {
  return resultOf(create<ConvOp>(x, weight, kernelOf(weight), stride, padding,
                                 dilation, static_cast<uint64_t>(groups)));
}

Value GraphBuilder::pool(ReduceKind kind, Value x, ArrayRef<int64_t> kernel,
                         ArrayRef<int64_t> stride, ArrayRef<int64_t> padding) {
  return resultOf(create<PoolOp>(kind, x, kernel, stride, padding));
}

//===----------------------------------------------------------------------===//
// Fused ops
//===----------------------------------------------------------------------===//

Value GraphBuilder::fusedMatMulBiasAct(Value x, Value w, Value bias,
                                       std::optional<ActivationKind> act) {
  ActivationKindAttr actAttr =
      act ? ActivationKindAttr::get(getContext(), *act) : ActivationKindAttr();
  return resultOf(createWithOptional<FusedMatMulBiasActOp>({x, w, bias}, x, w,
                                                           bias, actAttr));
}

Value GraphBuilder::fusedResidualLayerNorm(Value x, Value residual, Value bias,
                                           Value gamma, Value beta, float eps) {
  return resultOf(createWithOptional<FusedResidualLNOp>(
      {x, residual, gamma, beta}, x, residual, bias, gamma, beta,
      f32Attr(eps)));
}

Value GraphBuilder::fusedResidualRmsNorm(Value x, Value residual, Value bias,
                                         Value gamma, Value beta, float eps) {
  return resultOf(createWithOptional<FusedResidualRmsNormOp>(
      {x, residual, gamma}, x, residual, bias, gamma, beta, f32Attr(eps)));
}

Value GraphBuilder::fusedSwiGLU(Value x, bool gateFirst) {
  return resultOf(createWithOptional<FusedSwiGLUOp>({x}, x, TypeAttr(),
                                                    unitAttrIf(gateFirst)));
}

Value GraphBuilder::loraMatMul(Value x, Value w, Value a, Value b,
                               float scale) {
  return resultOf(create<LoraMatMulOp>(x, w, a, b, f32Attr(scale)));
}

Value GraphBuilder::fusedTransformerLayer(Value hidden,
                                          const TransformerLayerWeights &w,
                                          const TransformerLayerConfig &config,
                                          Value mask) {
  return resultOf(createWithOptional<FusedTransformerLayerOp>(
      {hidden, w.qkvW, w.outW, w.ln1Gamma, w.fc1W, w.fc2W, w.ln2Gamma}, hidden,
      w.qkvW, w.qkvB, w.outW, w.outB, w.ln1Gamma, w.ln1Beta, w.fc1W, w.fc1B,
      w.fc2W, w.fc2B, w.ln2Gamma, w.ln2Beta, mask, i64Attr(config.numHeads),
      i64Attr(config.headDim), i64Attr(config.intermediateSize),
      f32Attr(config.eps1), f32Attr(config.eps2),
      ActivationKindAttr::get(getContext(), config.activation)));
}

Value GraphBuilder::transformerLayer(Value hidden,
                                     const TransformerLayerWeights &w,
                                     const TransformerLayerConfig &config,
                                     Value mask) {
  // One definition of the layer: build the fused op, then expand it as the
  // shared builder defines it (rlx-unfuse does the same).
  Value fused = fusedTransformerLayer(hidden, w, config, mask);
  if (!fused)
    return {};
  auto op = fused.getDefiningOp<FusedTransformerLayerOp>();
  PrimitiveBuilder p(builder, decompositionLoc(op));
  FailureOr<Value> expanded = p.transformerLayer(op);
  if (failed(expanded)) {
    emitBuilderError() << "cannot expand the transformer layer into "
                          "primitives (dynamic sequence length)";
    op.erase();
    return {};
  }
  op.erase();
  return *expanded;
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

Value GraphBuilder::quantize(Value x, ArrayRef<float> scales,
                             ArrayRef<int32_t> zeroPoints,
                             std::optional<int64_t> axis) {
  return resultOf(
      create<QuantizeOp>(x, optionalI64Attr(axis), scales, zeroPoints));
}

Value GraphBuilder::dequantize(Value x, ArrayRef<float> scales,
                               ArrayRef<int32_t> zeroPoints,
                               std::optional<int64_t> axis) {
  return resultOf(
      create<DequantizeOp>(x, optionalI64Attr(axis), scales, zeroPoints));
}

std::pair<Value, Value>
GraphBuilder::fakeQuantize(Value x, int64_t bits,
                           const FakeQuantizeOptions &options) {
  FakeQuantizeOp op = createWithOptional<FakeQuantizeOp>(
      {x}, x, options.state, i64Attr(bits), optionalI64Attr(options.axis),
      SteKindAttr::get(getContext(), options.ste),
      ScaleModeAttr::get(getContext(), options.scaleMode),
      optionalF32Attr(options.emaDecay));
  if (!op)
    return {};
  return {op.getOutput(), op.getUpdatedState()};
}

Value GraphBuilder::fakeQuantizeBackward(Value x, Value dy, int64_t bits,
                                         SteKind ste,
                                         std::optional<int64_t> axis) {
  return resultOf(create<FakeQuantizeBackwardOp>(
      x, dy, i64Attr(bits), optionalI64Attr(axis),
      SteKindAttr::get(getContext(), ste)));
}

Value GraphBuilder::fakeQuantizeLSQ(Value x, Value scale, int64_t bits,
                                    std::optional<int64_t> axis) {
  return resultOf(create<FakeQuantizeLSQOp>(x, scale, i64Attr(bits),
                                            optionalI64Attr(axis)));
}

Value GraphBuilder::fakeQuantizeLSQBackwardX(Value x, Value scale, Value dy,
                                             int64_t bits,
                                             std::optional<int64_t> axis) {
  return resultOf(create<FakeQuantizeLSQBackwardXOp>(
      x, scale, dy, i64Attr(bits), optionalI64Attr(axis)));
}

Value GraphBuilder::fakeQuantizeLSQBackwardScale(Value x, Value scale, Value dy,
                                                 int64_t bits,
                                                 std::optional<int64_t> axis) {
  return resultOf(create<FakeQuantizeLSQBackwardScaleOp>(
      x, scale, dy, i64Attr(bits), optionalI64Attr(axis)));
}

//===----------------------------------------------------------------------===//
// Linear algebra and mixtures of experts
//===----------------------------------------------------------------------===//

Value GraphBuilder::dotGeneral(Value lhs, Value rhs,
                               ArrayRef<int64_t> lhsContracting,
                               ArrayRef<int64_t> rhsContracting,
                               ArrayRef<int64_t> lhsBatch,
                               ArrayRef<int64_t> rhsBatch) {
  return resultOf(create<DotGeneralOp>(lhs, rhs, lhsContracting, rhsContracting,
                                       lhsBatch, rhsBatch));
}

Value GraphBuilder::denseSolve(Value a, Value b) {
  return resultOf(create<DenseSolveOp>(a, b));
}

Value GraphBuilder::batchedDenseSolve(Value a, Value b) {
  return resultOf(create<BatchedDenseSolveOp>(a, b));
}

Value GraphBuilder::dequantMatMul(Value x, Value wQ, QuantScheme scheme,
                                  const DequantOperands &side) {
  return resultOf(createWithOptional<DequantMatMulOp>(
      {x, wQ}, x, wQ, side.scale, side.zeroPoint, side.globalScale,
      QuantSchemeAttr::get(getContext(), scheme),
      optionalI64Attr(side.blockSize)));
}

Value GraphBuilder::qMatMul(Value x, Value w, Value bias, int64_t xZeroPoint,
                            int64_t wZeroPoint, int64_t outZeroPoint,
                            float mult) {
  return resultOf(create<QMatMulOp>(x, w, bias, i64Attr(xZeroPoint),
                                    i64Attr(wZeroPoint), i64Attr(outZeroPoint),
                                    f32Attr(mult)));
}

Value GraphBuilder::groupedMatMul(Value input, Value weight, Value expertIdx) {
  return resultOf(create<GroupedMatMulOp>(input, weight, expertIdx));
}

Value GraphBuilder::dequantGroupedMatMul(Value input, Value weight,
                                         Value expertIdx, QuantScheme scheme,
                                         int64_t n) {
  if (failed(checkOperands(!input || !weight || !expertIdx)))
    return {};
  // The result is [M, n] f32; the verifier reports an input of another rank.
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  int64_t m = inputType && inputType.getRank() == 2 ? inputType.getDimSize(0)
                                                    : ShapedType::kDynamic;
  return resultOf(create<DequantGroupedMatMulOp>(
      RankedTensorType::get({m, n}, f32()), input, weight, expertIdx,
      QuantSchemeAttr::get(getContext(), scheme)));
}

Value GraphBuilder::dequantMoEWeights(Value packed, QuantScheme scheme,
                                      ArrayRef<int64_t> shape) {
  return resultOf(
      create<DequantMoEWeightsOp>(RankedTensorType::get(shape, f32()), packed,
                                  QuantSchemeAttr::get(getContext(), scheme)));
}

//===----------------------------------------------------------------------===//
// More convolution and geometry
//===----------------------------------------------------------------------===//

Value GraphBuilder::convTranspose2d(Value x, Value weight,
                                    ArrayRef<int64_t> stride,
                                    ArrayRef<int64_t> padding,
                                    ArrayRef<int64_t> dilation,
                                    ArrayRef<int64_t> outputPadding,
                                    int64_t groups) {
  return resultOf(create<ConvTranspose2dOp>(x, weight, kernelOf(weight), stride,
                                            padding, dilation, outputPadding,
                                            static_cast<uint64_t>(groups)));
}

Value GraphBuilder::im2col(Value x, ArrayRef<int64_t> kernel,
                           ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                           ArrayRef<int64_t> dilation) {
  return resultOf(create<Im2ColOp>(x, kernel, stride, padding, dilation));
}

Value GraphBuilder::qConv2d(Value x, Value w, Value bias,
                            ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                            ArrayRef<int64_t> dilation, int64_t groups,
                            int64_t xZeroPoint, int64_t wZeroPoint,
                            int64_t outZeroPoint, float mult) {
  return resultOf(
      create<QConv2dOp>(x, w, bias, builder.getDenseI64ArrayAttr(kernelOf(w)),
                        builder.getDenseI64ArrayAttr(stride),
                        builder.getDenseI64ArrayAttr(padding),
                        builder.getDenseI64ArrayAttr(dilation), i64Attr(groups),
                        i64Attr(xZeroPoint), i64Attr(wZeroPoint),
                        i64Attr(outZeroPoint), f32Attr(mult)));
}

Value GraphBuilder::layerNorm2d(Value x, Value gamma, Value beta, float eps) {
  return resultOf(create<LayerNorm2dOp>(x, gamma, beta, f32Attr(eps)));
}

Value GraphBuilder::resizeNearest2x(Value x) {
  return resultOf(create<ResizeNearest2xOp>(x));
}

/// The attributes rlx.resize and rlx.resize_backward share.
struct ResizeAttrs {
  ResizeModeAttr mode;
  DenseI64ArrayAttr sizes;
  UnitAttr alignCorners;
  DenseF64ArrayAttr scales;
};

static ResizeAttrs resizeAttrs(OpBuilder &b, ResizeMode mode,
                               ArrayRef<int64_t> sizes, bool alignCorners,
                               ArrayRef<double> scales) {
  return {
      ResizeModeAttr::get(b.getContext(), mode), b.getDenseI64ArrayAttr(sizes),
      alignCorners ? b.getUnitAttr() : UnitAttr(),
      scales.empty() ? DenseF64ArrayAttr() : b.getDenseF64ArrayAttr(scales)};
}

Value GraphBuilder::resize(Value x, ResizeMode mode, ArrayRef<int64_t> sizes,
                           bool alignCorners, ArrayRef<double> scales) {
  ResizeAttrs a = resizeAttrs(builder, mode, sizes, alignCorners, scales);
  return resultOf(
      create<ResizeOp>(x, a.mode, a.sizes, a.alignCorners, a.scales));
}

Value GraphBuilder::axialRope2d(Value x, int64_t endX, int64_t endY,
                                int64_t headDim, int64_t numHeads, float theta,
                                int64_t repeatFactor) {
  return resultOf(create<AxialRope2dOp>(x, i64Attr(endX), i64Attr(endY),
                                        i64Attr(headDim), i64Attr(numHeads),
                                        i64Attr(repeatFactor), f32Attr(theta)));
}

//===----------------------------------------------------------------------===//
// Sampling, scatter, state-space models
//===----------------------------------------------------------------------===//

Value GraphBuilder::sample(Value logits, int64_t topK, float topP,
                           float temperature, int64_t seed) {
  return resultOf(create<SampleOp>(logits, i64Attr(topK), f32Attr(topP),
                                   f32Attr(temperature), i64Attr(seed)));
}

Value GraphBuilder::scatterAdd(Value updates, Value indices, int64_t outDim) {
  if (failed(checkOperands(!updates || !indices)))
    return {};
  // [outDim, T] for updates [U, T]; the verifier reports other ranks.
  auto type = dyn_cast<RankedTensorType>(updates.getType());
  int64_t columns =
      type && type.getRank() == 2 ? type.getDimSize(1) : ShapedType::kDynamic;
  return resultOf(create<ScatterAddOp>(
      RankedTensorType::get({outDim, columns},
                            getElementTypeOrSelf(updates.getType())),
      updates, indices));
}

Value GraphBuilder::selectiveScan(Value x, Value delta, Value a, Value b,
                                  Value c, int64_t stateSize) {
  return resultOf(
      create<SelectiveScanOp>(x, delta, a, b, c, i64Attr(stateSize)));
}

Value GraphBuilder::gatedDeltaNet(Value q, Value k, Value v, Value g,
                                  Value beta, int64_t stateSize) {
  return resultOf(createWithOptional<GatedDeltaNetOp>(
      {q, k, v, g, beta}, q, k, v, g, beta, /*state=*/Value(),
      i64Attr(stateSize), /*carry_state=*/UnitAttr()));
}

std::pair<Value, Value>
GraphBuilder::gatedDeltaNetCarry(Value q, Value k, Value v, Value g, Value beta,
                                 Value state, int64_t stateSize) {
  GatedDeltaNetOp op = create<GatedDeltaNetOp>(
      q, k, v, g, beta, state, i64Attr(stateSize), builder.getUnitAttr());
  if (!op)
    return {};
  return {op.getOutput(), op.getFinalState()};
}

//===----------------------------------------------------------------------===//
// Gradients
//===----------------------------------------------------------------------===//

Value GraphBuilder::reluBackward(Value x, Value dy) {
  return resultOf(create<ReluBackwardOp>(x, dy));
}

Value GraphBuilder::activationBackward(ActivationKind kind, Value x, Value dy) {
  return resultOf(create<ActivationBackwardOp>(kind, x, dy));
}

Value GraphBuilder::layerNormBackwardInput(Value x, Value gamma, Value dy,
                                           int64_t axis, float eps) {
  return resultOf(create<LayerNormBackwardInputOp>(x, gamma, dy, i64Attr(axis),
                                                   f32Attr(eps)));
}

Value GraphBuilder::layerNormBackwardGamma(Value x, Value dy, int64_t axis,
                                           float eps) {
  return resultOf(
      create<LayerNormBackwardGammaOp>(x, dy, i64Attr(axis), f32Attr(eps)));
}

Value GraphBuilder::rmsNormBackwardInput(Value x, Value gamma, Value beta,
                                         Value dy, int64_t axis, float eps) {
  return resultOf(create<RmsNormBackwardInputOp>(x, gamma, beta, dy,
                                                 i64Attr(axis), f32Attr(eps)));
}

Value GraphBuilder::rmsNormBackwardGamma(Value x, Value gamma, Value beta,
                                         Value dy, int64_t axis, float eps) {
  return resultOf(create<RmsNormBackwardGammaOp>(x, gamma, beta, dy,
                                                 i64Attr(axis), f32Attr(eps)));
}

Value GraphBuilder::rmsNormBackwardBeta(Value x, Value gamma, Value beta,
                                        Value dy, int64_t axis, float eps) {
  return resultOf(create<RmsNormBackwardBetaOp>(x, gamma, beta, dy,
                                                i64Attr(axis), f32Attr(eps)));
}

Value GraphBuilder::ropeBackward(Value dy, Value cos, Value sin,
                                 int64_t headDim, int64_t nRot) {
  return resultOf(
      create<RopeBackwardOp>(dy, cos, sin, i64Attr(headDim), i64Attr(nRot)));
}

Value GraphBuilder::groupNormBackwardInput(Value x, Value gamma, Value beta,
                                           Value dy, int64_t numGroups,
                                           float eps) {
  return resultOf(create<GroupNormBackwardInputOp>(
      x, gamma, beta, dy, i64Attr(numGroups), f32Attr(eps)));
}

Value GraphBuilder::groupNormBackwardGamma(Value x, Value dy, int64_t numGroups,
                                           float eps) {
  return resultOf(create<GroupNormBackwardGammaOp>(x, dy, i64Attr(numGroups),
                                                   f32Attr(eps)));
}

Value GraphBuilder::groupNormBackwardBeta(Value x, Value dy, int64_t numGroups,
                                          float eps) {
  return resultOf(
      create<GroupNormBackwardBetaOp>(x, dy, i64Attr(numGroups), f32Attr(eps)));
}

Value GraphBuilder::batchNormInferenceBackwardInput(Value x, Value gamma,
                                                    Value mean, Value var,
                                                    Value dy, float eps) {
  return resultOf(create<BatchNormInferenceBackwardInputOp>(x, gamma, mean, var,
                                                            dy, f32Attr(eps)));
}

Value GraphBuilder::batchNormInferenceBackwardGamma(Value x, Value mean,
                                                    Value var, Value dy,
                                                    float eps) {
  return resultOf(create<BatchNormInferenceBackwardGammaOp>(x, mean, var, dy,
                                                            f32Attr(eps)));
}

Value GraphBuilder::batchNormInferenceBackwardBeta(Value dy) {
  return resultOf(create<BatchNormInferenceBackwardBetaOp>(dy));
}

Value GraphBuilder::cumsumBackward(Value dy, int64_t axis, bool exclusive) {
  return resultOf(
      create<CumsumBackwardOp>(dy, i64Attr(axis), unitAttrIf(exclusive)));
}

Value GraphBuilder::resizeBackward(Value dy, ResizeMode mode,
                                   ArrayRef<int64_t> inputSizes,
                                   bool alignCorners, ArrayRef<double> scales) {
  ResizeAttrs a = resizeAttrs(builder, mode, inputSizes, alignCorners, scales);
  return resultOf(
      create<ResizeBackwardOp>(dy, a.mode, a.sizes, a.alignCorners, a.scales));
}

Value GraphBuilder::gatherBackward(Value dy, Value indices, int64_t axis,
                                   ArrayRef<int64_t> tableShape) {
  if (failed(checkOperands(!dy || !indices)))
    return {};
  return resultOf(create<GatherBackwardOp>(
      RankedTensorType::get(tableShape, getElementTypeOrSelf(dy.getType())), dy,
      indices, i64Attr(axis)));
}

Value GraphBuilder::maxPool2dBackward(Value x, Value dy,
                                      ArrayRef<int64_t> kernel,
                                      ArrayRef<int64_t> stride,
                                      ArrayRef<int64_t> padding) {
  return resultOf(create<MaxPool2dBackwardOp>(x, dy, kernel, stride, padding));
}

Value GraphBuilder::conv2dBackwardInput(Value dy, Value weight,
                                        ArrayRef<int64_t> inputShape,
                                        ArrayRef<int64_t> stride,
                                        ArrayRef<int64_t> padding,
                                        ArrayRef<int64_t> dilation,
                                        int64_t groups) {
  if (failed(checkOperands(!dy || !weight)))
    return {};
  return resultOf(create<Conv2dBackwardInputOp>(
      RankedTensorType::get(inputShape, getElementTypeOrSelf(dy.getType())), dy,
      weight, kernelOf(weight), stride, padding, dilation,
      static_cast<uint64_t>(groups)));
}

Value GraphBuilder::conv2dBackwardWeight(
    Value x, Value dy, ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
    ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation, int64_t groups) {
  return resultOf(create<Conv2dBackwardWeightOp>(
      x, dy, kernel, stride, padding, dilation, static_cast<uint64_t>(groups)));
}

Value GraphBuilder::softmaxCrossEntropyWithLogits(Value logits, Value labels) {
  return resultOf(create<SoftmaxCrossEntropyWithLogitsOp>(logits, labels));
}

Value GraphBuilder::softmaxCrossEntropyBackward(Value logits, Value labels,
                                                Value dLoss) {
  return resultOf(create<SoftmaxCrossEntropyBackwardOp>(logits, labels, dLoss));
}

Value GraphBuilder::attentionBackward(AttentionBwdWrt wrt, Value q, Value k,
                                      Value v, Value dy, int64_t numHeads,
                                      int64_t headDim,
                                      const AttentionOptions &options) {
  return resultOf(createWithOptional<AttentionBackwardOp>(
      {q, k, v, dy}, q, k, v, dy, options.mask, i64Attr(numHeads),
      i64Attr(headDim), MaskKindAttr::get(getContext(), options.maskKind),
      optionalI64Attr(options.window), optionalF32Attr(options.scoreScale),
      optionalF32Attr(options.logitSoftcap),
      AttentionBwdWrtAttr::get(getContext(), wrt)));
}

//===----------------------------------------------------------------------===//
// Signal processing and complex numbers
//===----------------------------------------------------------------------===//

Value GraphBuilder::fft(Value x, bool inverse, FftNorm norm) {
  return resultOf(create<FftOp>(x, unitAttrIf(inverse),
                                FftNormAttr::get(getContext(), norm)));
}

Value GraphBuilder::fftButterflyStage(Value state, Value gate, Value rev,
                                      Value twRe, Value twIm, int64_t stage,
                                      int64_t nFft) {
  return resultOf(create<FftButterflyStageOp>(state, gate, rev, twRe, twIm,
                                              i64Attr(stage), i64Attr(nFft)));
}

Value GraphBuilder::logMel(Value spectrum, Value filterbank) {
  return resultOf(create<LogMelOp>(spectrum, filterbank));
}

Value GraphBuilder::logMelBackward(Value spectrum, Value filterbank, Value dy) {
  return resultOf(create<LogMelBackwardOp>(spectrum, filterbank, dy));
}

Value GraphBuilder::complexNormSq(Value z) {
  return resultOf(create<ComplexNormSqOp>(z));
}

Value GraphBuilder::conjugate(Value z) {
  return emit({z}, [&](PrimitiveBuilder &p) { return p.conjugate(z); });
}

Value GraphBuilder::complexNormSqBackward(Value z, Value g) {
  return resultOf(create<ComplexNormSqBackwardOp>(z, g));
}

//===----------------------------------------------------------------------===//
// Fused attention block, Gaussian splats, custom ops
//===----------------------------------------------------------------------===//

Value GraphBuilder::fusedAttentionBlock(Value hidden,
                                        const AttentionBlockWeights &w,
                                        int64_t numHeads, int64_t headDim,
                                        const AttentionOptions &options) {
  if (options.logitSoftcap) {
    emitBuilderError() << "rlx.fused_attention_block has no logit soft cap; "
                          "build the block from attention() instead";
    return {};
  }
  return resultOf(createWithOptional<FusedAttentionBlockOp>(
      {hidden, w.qkvW, w.outW}, hidden, w.qkvW, w.outW, options.mask, w.qkvB,
      w.outB, w.ropeCos, w.ropeSin, i64Attr(numHeads), i64Attr(headDim),
      MaskKindAttr::get(getContext(), options.maskKind),
      optionalI64Attr(options.window), optionalF32Attr(options.scoreScale)));
}

Value GraphBuilder::gaussianSplatRender(const SplatScene &scene,
                                        const SplatSettings &settings) {
  const SplatScene &s = scene;
  return resultOf(create<GaussianSplatRenderOp>(
      s.positions, s.scales, s.rotations, s.opacities, s.colors, s.shCoeffs,
      s.meta, i64Attr(settings.width), i64Attr(settings.height),
      i64Attr(settings.tileSize), f32Attr(settings.radiusScale),
      f32Attr(settings.alphaCutoff), i64Attr(settings.maxSplatSteps),
      f32Attr(settings.transmittanceThreshold),
      i64Attr(settings.maxListEntries)));
}

Value GraphBuilder::gaussianSplatRenderBackward(
    const SplatScene &scene, Value dLossRgba, const SplatSettings &settings,
    const SplatBackwardSettings &backward) {
  const SplatScene &s = scene;
  return resultOf(create<GaussianSplatRenderBackwardOp>(
      s.positions, s.scales, s.rotations, s.opacities, s.colors, s.shCoeffs,
      s.meta, dLossRgba, i64Attr(settings.width), i64Attr(settings.height),
      i64Attr(settings.tileSize), f32Attr(settings.radiusScale),
      f32Attr(settings.alphaCutoff), i64Attr(settings.maxSplatSteps),
      f32Attr(settings.transmittanceThreshold),
      i64Attr(settings.maxListEntries), f32Attr(backward.lossGradClip),
      i64Attr(backward.shBand), f32Attr(backward.maxAnisotropy)));
}

Value GraphBuilder::gaussianSplatPrepare(const SplatScene &scene,
                                         const SplatSettings &settings) {
  const SplatScene &s = scene;
  // The buffer's length is the backend's packing: stated as dynamic.
  return resultOf(create<GaussianSplatPrepareOp>(
      RankedTensorType::get({ShapedType::kDynamic}, f32()), s.positions,
      s.scales, s.rotations, s.opacities, s.colors, s.shCoeffs, s.meta,
      i64Attr(settings.width), i64Attr(settings.height),
      i64Attr(settings.tileSize), f32Attr(settings.radiusScale),
      f32Attr(settings.alphaCutoff), i64Attr(settings.maxSplatSteps),
      f32Attr(settings.transmittanceThreshold),
      i64Attr(settings.maxListEntries)));
}

Value GraphBuilder::gaussianSplatRasterize(Value prep, Value meta,
                                           const SplatSettings &settings) {
  return resultOf(create<GaussianSplatRasterizeOp>(
      prep, meta, i64Attr(settings.width), i64Attr(settings.height),
      i64Attr(settings.tileSize), f32Attr(settings.alphaCutoff),
      i64Attr(settings.maxSplatSteps), f32Attr(settings.transmittanceThreshold),
      i64Attr(settings.maxListEntries)));
}

Value GraphBuilder::gaussianSplatRenderDecomposed(
    const SplatScene &scene, const SplatSettings &settings) {
  return gaussianSplatRasterize(gaussianSplatPrepare(scene, settings),
                                scene.meta, settings);
}

SmallVector<Value> GraphBuilder::custom(StringRef name, ValueRange inputs,
                                        TypeRange resultTypes,
                                        DictionaryAttr attrs, bool pure) {
  if (failed(checkOperands(llvm::is_contained(inputs, Value()))))
    return {};
  CustomOp op = create<CustomOp>(
      resultTypes, builder.getStringAttr(name), inputs,
      attrs ? attrs : builder.getDictionaryAttr({}), unitAttrIf(pure));
  if (!op)
    return {};
  return SmallVector<Value>(op->getResults());
}

Value GraphBuilder::allReduce(CollectiveKind kind, Value x, GroupAttr group) {
  return resultOf(create<AllReduceOp>(kind, x, group));
}

Value GraphBuilder::allGather(Value x, int64_t dim, GroupAttr group) {
  return resultOf(create<AllGatherOp>(x, i64Attr(dim), group));
}

Value GraphBuilder::reduceScatter(CollectiveKind kind, Value x, int64_t dim,
                                  GroupAttr group) {
  return resultOf(create<ReduceScatterOp>(
      CollectiveKindAttr::get(builder.getContext(), kind), x, i64Attr(dim),
      group));
}

Value GraphBuilder::allToAll(Value x, int64_t splitDim, int64_t concatDim,
                             GroupAttr group) {
  return resultOf(
      create<AllToAllOp>(x, i64Attr(splitDim), i64Attr(concatDim), group));
}

Value GraphBuilder::broadcastFromRoot(Value x, int64_t root, GroupAttr group) {
  return resultOf(create<BroadcastOp>(x, i64Attr(root), group));
}

Value GraphBuilder::reduceToRoot(CollectiveKind kind, Value x, int64_t root,
                                 GroupAttr group) {
  return resultOf(create<ReduceToRootOp>(
      CollectiveKindAttr::get(builder.getContext(), kind), x, i64Attr(root),
      group));
}

Value GraphBuilder::emit(std::initializer_list<Value> operands,
                         function_ref<Value(PrimitiveBuilder &)> build) {
  if (failed(checkOperands(llvm::is_contained(operands, Value()))))
    return {};
  PrimitiveBuilder p(builder, currentLoc);
  Value result = build(p);
  if (failed(verifyCreated(result.getDefiningOp())))
    return {};
  return result;
}

//===----------------------------------------------------------------------===//
// Verification and finishing
//===----------------------------------------------------------------------===//

LogicalResult GraphBuilder::checkOperands(bool anyNullOperand) {
  if (finished) {
    emitError(currentLoc) << "graph '" << function.getName()
                          << "' is already finished";
    failedState = true;
    return failure();
  }
  // A null operand is the result of an op that already reported its error.
  if (anyNullOperand && !failedState) {
    emitError(currentLoc) << "null value passed to an rlx op builder";
    failedState = true;
  }
  return failure(failedState);
}

InFlightDiagnostic GraphBuilder::emitBuilderError() {
  failedState = true;
  return emitError(currentLoc);
}

LogicalResult GraphBuilder::verifyCreated(Operation *op) {
  if (succeeded(verify(op)))
    return success();
  op->erase();
  failedState = true;
  return failure();
}

FailureOr<func::FuncOp> GraphBuilder::finish(ArrayRef<Value> outputs) {
  if (failed(checkOperands(llvm::any_of(outputs, [](Value v) { return !v; }))))
    return failure();
  func::ReturnOp::create(builder, currentLoc, outputs);
  SmallVector<Type> inputs(function.getBody().front().getArgumentTypes());
  function.setType(
      builder.getFunctionType(inputs, ValueRange(outputs).getTypes()));
  finished = true;
  if (failed(verify(function))) {
    failedState = true;
    return failure();
  }
  return function;
}
