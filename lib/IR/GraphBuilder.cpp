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

Value GraphBuilder::constant(ElementsAttr value) {
  return resultOf(create<ConstantOp>(value));
}

Value GraphBuilder::constant(ArrayRef<int64_t> shape, ArrayRef<float> values) {
  auto type = RankedTensorType::get(shape, f32());
  if (static_cast<int64_t>(values.size()) != type.getNumElements()) {
    emitError(currentLoc) << "constant of shape "
                          << formatShape(type.getShape()) << " needs "
                          << type.getNumElements() << " values, got "
                          << values.size();
    failedState = true;
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
    emitError(currentLoc) << "splat constants need a float or integer "
                          << "element type, got " << elementType;
    failedState = true;
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
  return resultOf(create<ConcatOp>(inputs, builder.getI64IntegerAttr(axis)));
}

Value GraphBuilder::expand(Value x, ArrayRef<int64_t> targetShape) {
  return resultOf(create<ExpandOp>(x, targetShape));
}

Value GraphBuilder::gather(Value table, Value indices, int64_t axis) {
  return resultOf(
      create<GatherOp>(table, indices, builder.getI64IntegerAttr(axis)));
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
  return resultOf(create<SoftmaxOp>(x, builder.getI64IntegerAttr(axis)));
}

Value GraphBuilder::cumsum(Value x, int64_t axis, bool exclusive) {
  return resultOf(
      create<CumsumOp>(x, builder.getI64IntegerAttr(axis),
                       exclusive ? builder.getUnitAttr() : UnitAttr()));
}

std::pair<Value, Value> GraphBuilder::topK(Value x, int64_t k) {
  TopKOp op = create<TopKOp>(x, builder.getI64IntegerAttr(k));
  if (!op)
    return {};
  return {op->getResult(0), op->getResult(1)};
}

Value GraphBuilder::layerNorm(Value x, Value gamma, Value beta, int64_t axis,
                              float eps) {
  return emit({x, gamma, beta}, [&](PrimitiveBuilder &p) {
    return p.layerNorm(x, gamma, beta, axis, builder.getF32FloatAttr(eps));
  });
}

Value GraphBuilder::rmsNorm(Value x, Value gamma, Value beta, int64_t axis,
                            float eps) {
  return emit({x, gamma, beta}, [&](PrimitiveBuilder &p) {
    return p.rmsNorm(x, gamma, beta, axis, builder.getF32FloatAttr(eps));
  });
}

Value GraphBuilder::groupNorm(Value x, Value gamma, Value beta,
                              int64_t numGroups, float eps) {
  return resultOf(create<GroupNormOp>(x, gamma, beta,
                                      builder.getI64IntegerAttr(numGroups),
                                      builder.getF32FloatAttr(eps)));
}

Value GraphBuilder::batchNormInference(Value x, Value gamma, Value beta,
                                       Value mean, Value var, float eps) {
  return resultOf(create<BatchNormInferenceOp>(x, gamma, beta, mean, var,
                                               builder.getF32FloatAttr(eps)));
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

Value GraphBuilder::attention(Value q, Value k, Value v, int64_t numHeads,
                              int64_t headDim,
                              const AttentionOptions &options) {
  auto optionalInt = [&](std::optional<int64_t> value) {
    return value ? builder.getI64IntegerAttr(*value) : IntegerAttr();
  };
  auto optionalFloat = [&](std::optional<float> value) {
    return value ? builder.getF32FloatAttr(*value) : FloatAttr();
  };
  return resultOf(createWithOptional<AttentionOp>(
      {q, k, v}, q, k, v, options.mask, builder.getI64IntegerAttr(numHeads),
      builder.getI64IntegerAttr(headDim),
      MaskKindAttr::get(getContext(), options.maskKind),
      optionalInt(options.window), optionalFloat(options.scoreScale),
      optionalFloat(options.logitSoftcap)));
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
  // The kernel extent is the weight's [.., .., kH, kW]; the op's verifier
  // reports a weight of the wrong rank.
  SmallVector<int64_t> kernel;
  if (auto type = dyn_cast_or_null<RankedTensorType>(weight ? weight.getType()
                                                            : Type());
      type && type.getRank() == 4)
    kernel = {type.getDimSize(2), type.getDimSize(3)};
  return resultOf(create<ConvOp>(x, weight, kernel, stride, padding, dilation,
                                 static_cast<uint64_t>(groups)));
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
      builder.getF32FloatAttr(eps)));
}

Value GraphBuilder::fusedResidualRmsNorm(Value x, Value residual, Value bias,
                                         Value gamma, Value beta, float eps) {
  return resultOf(create<FusedResidualRmsNormOp>(x, residual, bias, gamma, beta,
                                                 builder.getF32FloatAttr(eps)));
}

Value GraphBuilder::fusedSwiGLU(Value x, bool gateFirst) {
  return resultOf(createWithOptional<FusedSwiGLUOp>(
      {x}, x, TypeAttr(), gateFirst ? builder.getUnitAttr() : UnitAttr()));
}

Value GraphBuilder::loraMatMul(Value x, Value w, Value a, Value b,
                               float scale) {
  return resultOf(
      create<LoraMatMulOp>(x, w, a, b, builder.getF32FloatAttr(scale)));
}

Value GraphBuilder::fusedTransformerLayer(Value hidden,
                                          const TransformerLayerWeights &w,
                                          const TransformerLayerConfig &config,
                                          Value mask) {
  return resultOf(createWithOptional<FusedTransformerLayerOp>(
      {hidden, w.qkvW, w.outW, w.ln1Gamma, w.fc1W, w.fc2W, w.ln2Gamma}, hidden,
      w.qkvW, w.qkvB, w.outW, w.outB, w.ln1Gamma, w.ln1Beta, w.fc1W, w.fc1B,
      w.fc2W, w.fc2B, w.ln2Gamma, w.ln2Beta, mask,
      builder.getI64IntegerAttr(config.numHeads),
      builder.getI64IntegerAttr(config.headDim),
      builder.getI64IntegerAttr(config.intermediateSize),
      builder.getF32FloatAttr(config.eps1),
      builder.getF32FloatAttr(config.eps2),
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
    emitError(currentLoc) << "cannot expand the transformer layer into "
                             "primitives (dynamic sequence length)";
    op.erase();
    failedState = true;
    return {};
  }
  op.erase();
  return *expanded;
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
