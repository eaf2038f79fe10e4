//===- GraphBuilder.cpp - build rlx graphs from C++ -----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/IR/GraphBuilder.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

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
  return resultOf(create<ActivationOp>(kind, x));
}

Value GraphBuilder::binary(BinaryKind kind, Value lhs, Value rhs) {
  return resultOf(create<BinaryOp>(kind, lhs, rhs));
}

Value GraphBuilder::matmul(Value lhs, Value rhs) {
  return resultOf(create<MatMulOp>(lhs, rhs));
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
