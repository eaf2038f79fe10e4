//===- Sweep.cpp - reverse and forward sweeps over a block ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/Autodiff/Sweep.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::rlx;

bool rlx::isDifferentiable(Value v) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return false;
  Type element = type.getElementType();
  if (auto complex = llvm::dyn_cast<ComplexType>(element))
    element = complex.getElementType();
  return llvm::isa<FloatType>(element);
}

/// The quantized ops whose integer results stand for real numbers (a
/// quantized tensor in units of its scale): their derivatives treat rounding
/// as the identity (straight-through), so a derivative flows from a float
/// input through the integer values to a dequantization.
static bool hasStraightThroughResults(Operation *op) {
  return isa<QuantizeOp, QMatMulOp, QConv2dOp>(op);
}

bool rlx::carriesDerivative(Value v) {
  if (isDifferentiable(v))
    return true;
  Operation *def = v.getDefiningOp();
  return def && hasStraightThroughResults(def) &&
         llvm::isa<RankedTensorType>(v.getType());
}

Type rlx::derivativeType(Value v) {
  if (isDifferentiable(v))
    return v.getType();
  auto type = llvm::cast<RankedTensorType>(v.getType());
  return type.clone(Float32Type::get(v.getContext()));
}

DenseSet<Value> rlx::activeValues(Block &block, ValueRange seeds) {
  DenseSet<Value> active(seeds.begin(), seeds.end());
  for (Operation &op : block) {
    bool reached = llvm::any_of(op.getOperands(),
                                [&](Value v) { return active.contains(v); });
    if (!reached && op.getNumRegions())
      op.walk([&](Operation *nested) {
        for (Value v : nested->getOperands())
          reached |= active.contains(v);
      });
    if (reached)
      for (Value result : op.getResults())
        if (carriesDerivative(result))
          active.insert(result);
  }
  return active;
}

FailureOr<SmallVector<Value>>
rlx::reverseSweep(Block &block, OpBuilder &b, ValueRange outputs,
                  ValueRange cotangents, ValueRange wrt, StringRef pass) {
  // The forward ops are those before the insertion point (the block's
  // terminator); the VJPs go between them and it.
  OpBuilder::InsertPoint end = b.saveInsertionPoint();
  assert(end.getBlock() == &block && "the sweep is emitted into the block");
  SmallVector<Operation *> forward;
  for (Operation &op : llvm::make_range(block.begin(), end.getPoint()))
    forward.push_back(&op);
  PrimitiveBuilder p(b, block.getParentOp()->getLoc());
  DenseSet<Value> active = activeValues(block, wrt);
  DenseMap<Value, Value> adjoint;
  auto accumulate = [&](Value v, Value cotangent) {
    Value &slot = adjoint[v];
    slot = slot ? p.add(slot, cotangent) : cotangent;
  };
  for (auto [output, cotangent] : llvm::zip_equal(outputs, cotangents))
    if (active.contains(output))
      accumulate(output, cotangent);

  for (Operation *op : llvm::reverse(forward)) {
    SmallVector<Value> dys = llvm::map_to_vector(
        op->getResults(), [&](Value r) { return adjoint.lookup(r); });
    if (llvm::none_of(dys, [](Value v) { return bool(v); }))
      continue;
    auto differentiable = llvm::dyn_cast<DifferentiableOpInterface>(op);
    if (!differentiable)
      return op->emitError()
             << pass << ": no gradient rule for '" << op->getName() << "'";
    SmallVector<Value> dxs;
    b.restoreInsertionPoint(end);
    if (failed(differentiable.buildVJP(b, dys, dxs)))
      return failure();
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      if (!dxs[i] || !active.contains(operand))
        continue;
      if (dxs[i].getType() != derivativeType(operand))
        return op->emitError()
               << pass << ": the gradient rule of '" << op->getName()
               << "' gave operand #" << i << " a gradient of type "
               << dxs[i].getType() << ", expected " << derivativeType(operand);
      accumulate(operand, dxs[i]);
    }
  }
  b.restoreInsertionPoint(end);
  return llvm::map_to_vector(wrt, [&](Value v) { return adjoint.lookup(v); });
}

LogicalResult rlx::forwardSweep(Block &block, DenseMap<Value, Value> &tangents,
                                StringRef pass) {
  OpBuilder b(block.getParentOp()->getContext());
  SmallVector<Operation *> forward = llvm::map_to_vector(
      block.without_terminator(), [](Operation &op) { return &op; });
  for (Operation *op : forward) {
    SmallVector<Value> txs = llvm::map_to_vector(
        op->getOperands(), [&](Value v) { return tangents.lookup(v); });
    bool captures = false;
    if (op->getNumRegions())
      op->walk([&](Operation *nested) {
        for (Value v : nested->getOperands())
          captures |= tangents.contains(v);
      });
    if (!captures && llvm::none_of(txs, [](Value v) { return bool(v); }))
      continue;
    // Only rlx.if and rlx.while capture values, and their rules say why
    // they are not differentiated.
    auto differentiable = llvm::dyn_cast<DifferentiableOpInterface>(op);
    if (!differentiable)
      return op->emitError()
             << pass << ": no forward-mode rule for '" << op->getName() << "'";
    b.setInsertionPointAfter(op);
    SmallVector<Value> tys;
    if (failed(differentiable.buildJVP(b, txs, tys)))
      return failure();
    for (auto [result, tangent] : llvm::zip_equal(op->getResults(), tys)) {
      if (!tangent || !carriesDerivative(result))
        continue;
      if (tangent.getType() != derivativeType(result))
        return op->emitError()
               << pass << ": the forward-mode rule of '" << op->getName()
               << "' gave a tangent of type " << tangent.getType()
               << ", expected " << derivativeType(result);
      tangents[result] = tangent;
    }
  }
  return success();
}

void rlx::eraseDeadOps(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (op.use_empty() && isMemoryEffectFree(&op) &&
        !op.hasTrait<OpTrait::IsTerminator>())
      op.erase();
}
