//===- GraphBuilderRegions.cpp - rlx ops with regions ---------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The builders of the rlx ops that hold regions. A body is built by a
// callback with the same GraphBuilder, whose ops are verified as they are
// created; the region op itself is verified once its regions are complete.
// Ops whose result types follow from what the body yields (rlx.if,
// rlx.custom_fn, the fused region ops) build the body into a detached region
// first and move it into the op.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"
#include "rlx/IR/GraphBuilder.h"

using namespace mlir;
using namespace mlir::rlx;

LogicalResult GraphBuilder::buildRegion(Region &region, TypeRange argTypes,
                                        RegionBody body) {
  Block *block = new Block();
  region.push_back(block);
  for (Type type : argTypes)
    block->addArgument(type, currentLoc);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);
  SmallVector<Value> yielded = body(block->getArguments());
  if (failed(checkOperands(llvm::is_contained(yielded, Value()))))
    return failure();
  YieldOp::create(builder, currentLoc, yielded);
  return success();
}

Operation *GraphBuilder::finishRegionOp(Operation *op,
                                        LogicalResult regionsBuilt) {
  if (failed(regionsBuilt)) {
    op->erase();
    return nullptr;
  }
  if (failed(verifyCreated(op)))
    return nullptr;
  return op;
}

/// The types a built region yields.
static TypeRange yieldedTypes(Region &region) {
  return region.front().getTerminator()->getOperandTypes();
}

/// The type of one step of a per-step input `[length, ...]`; the op's
/// verifier reports an operand without the leading dim.
static Type perStepType(Value x) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() == 0)
    return x.getType();
  return RankedTensorType::get(type.getShape().drop_front(),
                               type.getElementType());
}

/// A rank-0 tensor of `x`'s element type: a block argument of the
/// elementwise region bodies.
static Type elementTensorType(Value x) {
  return RankedTensorType::get({}, getElementTypeOrSelf(x.getType()));
}

SmallVector<Value> GraphBuilder::ifElse(Value predicate, RegionBody thenBody,
                                        RegionBody elseBody) {
  if (failed(checkOperands(!predicate)))
    return {};
  Region thenRegion, elseRegion;
  if (failed(buildRegion(thenRegion, {}, thenBody)) ||
      failed(buildRegion(elseRegion, {}, elseBody)))
    return {};
  auto op =
      IfOp::create(builder, currentLoc, yieldedTypes(thenRegion), predicate);
  op.getThenRegion().takeBody(thenRegion);
  op.getElseRegion().takeBody(elseRegion);
  if (!finishRegionOp(op, success()))
    return {};
  return SmallVector<Value>(op.getResults());
}

SmallVector<Value>
GraphBuilder::whileLoop(ValueRange inits, RegionBody cond, RegionBody body,
                        std::optional<int64_t> maxIterations) {
  if (failed(checkOperands(llvm::is_contained(inits, Value()))))
    return {};
  auto op = WhileOp::create(builder, currentLoc, inits,
                            optionalI64Attr(maxIterations));
  TypeRange carried = inits.getTypes();
  LogicalResult built = buildRegion(op.getCond(), carried, cond);
  if (succeeded(built))
    built = buildRegion(op.getBody(), carried, body);
  if (!finishRegionOp(op, built))
    return {};
  return SmallVector<Value>(op.getResults());
}

Value GraphBuilder::scan(Value init, int64_t length, RegionBody body,
                         const ScanOptions &options) {
  if (failed(checkOperands(!init ||
                           llvm::is_contained(options.bcasts, Value()) ||
                           llvm::is_contained(options.xs, Value()))))
    return {};
  auto op = ScanOp::create(
      builder, currentLoc, init, options.bcasts, options.xs, i64Attr(length),
      unitAttrIf(options.saveTrajectory), i64Attr(options.numCheckpoints));
  SmallVector<Type> argTypes{init.getType()};
  llvm::append_range(argTypes, ValueRange(options.bcasts).getTypes());
  for (Value x : options.xs)
    argTypes.push_back(perStepType(x));
  if (!finishRegionOp(op, buildRegion(op.getBody(), argTypes, body)))
    return {};
  return op.getResult();
}

Value GraphBuilder::scanWithXs(Value init, ValueRange xs, int64_t length,
                               RegionBody body) {
  ScanOptions options;
  options.xs.assign(xs.begin(), xs.end());
  return scan(init, length, body, options);
}

Value GraphBuilder::scanWithBcastsAndXs(Value init, ValueRange bcasts,
                                        ValueRange xs, int64_t length,
                                        RegionBody body) {
  ScanOptions options;
  options.bcasts.assign(bcasts.begin(), bcasts.end());
  options.xs.assign(xs.begin(), xs.end());
  return scan(init, length, body, options);
}

Value GraphBuilder::scanTrajectory(Value init, int64_t length,
                                   RegionBody body) {
  ScanOptions options;
  options.saveTrajectory = true;
  return scan(init, length, body, options);
}

Value GraphBuilder::scanCheckpointed(Value init, int64_t length,
                                     int64_t numCheckpoints, RegionBody body) {
  ScanOptions options;
  options.saveTrajectory = true;
  options.numCheckpoints = numCheckpoints;
  return scan(init, length, body, options);
}

Value GraphBuilder::scanBackward(Value init, Value trajectory, Value upstream,
                                 int64_t length, RegionBody bodyVjp,
                                 const ScanBackwardOptions &options) {
  if (failed(checkOperands(!init || !trajectory || !upstream ||
                           llvm::is_contained(options.xs, Value()))))
    return {};
  auto op = ScanBackwardOp::create(builder, currentLoc, init, trajectory,
                                   upstream, options.xs, i64Attr(length),
                                   unitAttrIf(options.saveTrajectory),
                                   i64Attr(options.numCheckpoints));
  return finishScanBackward(op, bodyVjp, options);
}

Value GraphBuilder::scanBackwardXs(Value init, Value trajectory, Value upstream,
                                   int64_t length, int64_t xsIndex,
                                   RegionBody bodyVjp,
                                   const ScanBackwardOptions &options) {
  if (failed(checkOperands(!init || !trajectory || !upstream ||
                           llvm::is_contained(options.xs, Value()))))
    return {};
  auto op = ScanBackwardXsOp::create(
      builder, currentLoc, init, trajectory, upstream, options.xs,
      i64Attr(length), unitAttrIf(options.saveTrajectory),
      i64Attr(options.numCheckpoints), i64Attr(xsIndex));
  return finishScanBackward(op, bodyVjp, options);
}

Value GraphBuilder::finishScanBackward(Operation *op, RegionBody bodyVjp,
                                       const ScanBackwardOptions &options) {
  // Both ops: operand 0 is init; region 0 body_vjp
  // [carry, x_t..., d_output], region 1 the optional forward body
  // [carry, x_t...].
  Type carry = op->getOperand(0).getType();
  SmallVector<Type> forwardArgs{carry};
  for (Value x : options.xs)
    forwardArgs.push_back(perStepType(x));
  SmallVector<Type> vjpArgs(forwardArgs);
  vjpArgs.push_back(carry);
  LogicalResult built = buildRegion(op->getRegion(0), vjpArgs, bodyVjp);
  if (succeeded(built) && options.forwardBody)
    built = buildRegion(op->getRegion(1), forwardArgs, *options.forwardBody);
  if (!finishRegionOp(op, built))
    return {};
  return op->getResult(0);
}

Value GraphBuilder::customFn(ValueRange inputs, RegionBody forward,
                             std::optional<RegionBody> vjp,
                             std::optional<RegionBody> jvp) {
  if (failed(checkOperands(llvm::is_contained(inputs, Value()))))
    return {};
  Region forwardRegion;
  if (failed(buildRegion(forwardRegion, inputs.getTypes(), forward)))
    return {};
  TypeRange results = yieldedTypes(forwardRegion);
  if (results.size() != 1) {
    emitBuilderError() << "the forward body of rlx.custom_fn must yield one "
                          "value, got "
                       << results.size();
    return {};
  }
  Type result = results.front();
  auto op = CustomFnOp::create(builder, currentLoc, result, inputs);
  op.getFwdBody().takeBody(forwardRegion);
  LogicalResult built = success();
  if (vjp) {
    // [inputs..., primal_output, d_output] -> [d_inputs...]
    SmallVector<Type> args(inputs.getTypes());
    args.append({result, result});
    built = buildRegion(op.getVjpBody(), args, *vjp);
  }
  if (succeeded(built) && jvp) {
    // [inputs..., tangents...] -> [d_output]
    SmallVector<Type> args(inputs.getTypes());
    llvm::append_range(args, inputs.getTypes());
    built = buildRegion(op.getJvpBody(), args, *jvp);
  }
  if (!finishRegionOp(op, built))
    return {};
  return op.getResult();
}

Value GraphBuilder::elementwiseRegion(ValueRange inputs, RegionBody body,
                                      std::optional<int64_t> prologueInput) {
  if (failed(checkOperands(llvm::is_contained(inputs, Value()))))
    return {};
  Region bodyRegion;
  SmallVector<Type> args = llvm::map_to_vector(inputs, elementTensorType);
  if (failed(buildRegion(bodyRegion, args, body)))
    return {};
  // The result is the inputs' broadcast shape (the prologue input counts as
  // upsampled 2x) with the yielded element type; the verifier reports
  // shapes that do not broadcast and bodies that do not yield one scalar.
  SmallVector<int64_t> shape;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type)
      continue;
    SmallVector<int64_t> inputShape(type.getShape());
    if (prologueInput && *prologueInput == static_cast<int64_t>(index) &&
        inputShape.size() == 4)
      for (int64_t d : {2, 3})
        if (!ShapedType::isDynamic(inputShape[d]))
          inputShape[d] *= 2;
    shape = broadcastShapesOrDynamic(shape, inputShape);
  }
  TypeRange yielded = yieldedTypes(bodyRegion);
  Type element = yielded.size() == 1 ? getElementTypeOrSelf(yielded.front())
                                     : getElementTypeOrSelf(args.front());
  auto op = ElementwiseRegionOp::create(builder, currentLoc,
                                        RankedTensorType::get(shape, element),
                                        inputs, optionalI64Attr(prologueInput));
  op.getBody().takeBody(bodyRegion);
  if (!finishRegionOp(op, success()))
    return {};
  return op.getResult();
}

Value GraphBuilder::transformRegion(ValueRange inputs, RegionBody body) {
  if (failed(checkOperands(llvm::is_contained(inputs, Value()))))
    return {};
  Region bodyRegion;
  if (failed(buildRegion(bodyRegion, inputs.getTypes(), body)))
    return {};
  TypeRange yielded = yieldedTypes(bodyRegion);
  if (yielded.size() != 1) {
    emitBuilderError() << "the body of rlx.transform_region must yield one "
                          "value, got "
                       << yielded.size();
    return {};
  }
  auto op =
      TransformRegionOp::create(builder, currentLoc, yielded.front(), inputs);
  op.getBody().takeBody(bodyRegion);
  if (!finishRegionOp(op, success()))
    return {};
  return op.getResult();
}

SmallVector<Value> GraphBuilder::batchElementwiseRegion(ValueRange inputs,
                                                        RegionBody body) {
  if (failed(checkOperands(llvm::is_contained(inputs, Value()))))
    return {};
  if (inputs.empty()) {
    emitBuilderError() << "rlx.batch_elementwise_region needs at least one "
                          "input";
    return {};
  }
  Region bodyRegion;
  if (failed(buildRegion(bodyRegion, elementTensorType(inputs.front()), body)))
    return {};
  // Each result has its input's shape and the yielded element type.
  TypeRange yielded = yieldedTypes(bodyRegion);
  Type element = yielded.size() == 1
                     ? getElementTypeOrSelf(yielded.front())
                     : getElementTypeOrSelf(inputs.front().getType());
  SmallVector<Type> results;
  for (Value input : inputs) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    results.push_back(type ? Type(type.clone(element)) : input.getType());
  }
  auto op =
      BatchElementwiseRegionOp::create(builder, currentLoc, results, inputs);
  op.getBody().takeBody(bodyRegion);
  if (!finishRegionOp(op, success()))
    return {};
  return SmallVector<Value>(op.getResults());
}
