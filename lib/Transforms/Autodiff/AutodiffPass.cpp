//===- AutodiffPass.cpp - rlx-autodiff: reverse mode ----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Adds @f_grad: the forward ops of @f, then one backward sweep built from
// each op's VJP rule (DifferentiableOpInterface). The contract is in
// Passes.td and docs/autodiff.md.
//
//===----------------------------------------------------------------------===//

#include "Differentiation.h"
#include "rlx/Dialect/RLX/Autodiff/DerivativeRules.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"
#include "rlx/Transforms/Passes.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXAUTODIFF
#include "rlx/Transforms/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr StringLiteral kPass = "rlx-autodiff";

/// Emits the backward sweep of `g` (a copy of the forward function) before
/// its return, seeded with `seed` at the loss, and returns the cotangent
/// of each `wrt` argument (null where none arrives). The cotangents of a
/// value used several times are added up.
FailureOr<SmallVector<Value>>
backwardSweep(func::FuncOp g, ArrayRef<unsigned> wrt, Value seed) {
  Operation *ret = g.getBody().front().getTerminator();
  OpBuilder b(ret);
  PrimitiveBuilder p(b, g.getLoc());
  DenseSet<Value> active = activeValues(g, wrt);
  DenseMap<Value, Value> cotangents;
  auto accumulate = [&](Value v, Value cotangent) {
    Value &slot = cotangents[v];
    slot = slot ? p.add(slot, cotangent) : cotangent;
  };
  Value loss = ret->getOperand(0);
  if (active.contains(loss))
    accumulate(loss, seed);

  SmallVector<Operation *> forward =
      llvm::map_to_vector(g.getBody().front().without_terminator(),
                          [](Operation &op) { return &op; });
  for (Operation *op : llvm::reverse(forward)) {
    SmallVector<Value> dys = llvm::map_to_vector(
        op->getResults(), [&](Value r) { return cotangents.lookup(r); });
    if (llvm::none_of(dys, [](Value v) { return bool(v); }))
      continue;
    auto differentiable = llvm::dyn_cast<DifferentiableOpInterface>(op);
    if (!differentiable)
      return op->emitError()
             << kPass << ": no gradient rule for '" << op->getName() << "'";
    SmallVector<Value> dxs;
    b.setInsertionPoint(ret);
    if (failed(differentiable.buildVJP(b, dys, dxs)))
      return failure();
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      if (!dxs[i] || !active.contains(operand))
        continue;
      if (dxs[i].getType() != operand.getType())
        return op->emitError()
               << kPass << ": the gradient rule of '" << op->getName()
               << "' gave operand #" << i << " a gradient of type "
               << dxs[i].getType() << ", expected " << operand.getType();
      accumulate(operand, dxs[i]);
    }
  }
  return llvm::map_to_vector(
      wrt, [&](unsigned i) { return cotangents.lookup(g.getArgument(i)); });
}

struct RLXAutodiffPass : rlx::impl::RLXAutodiffBase<RLXAutodiffPass> {
  using RLXAutodiffBase::RLXAutodiffBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<RLXDialect>();
    registerDerivativeRules(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (remat != "none") {
      module.emitError() << kPass << ": remat=" << remat
                         << " is not supported yet (only none)";
      return signalPassFailure();
    }
    if (optimizer != "none") {
      module.emitError() << kPass << ": optimizer=" << optimizer
                         << " is not supported yet (training steps are not "
                            "built)";
      return signalPassFailure();
    }
    if (failed(deriveFunction(
            module, func, wrt, "_grad", kPass,
            [&](func::FuncOp f, func::FuncOp g, ArrayRef<unsigned> wrtArgs) {
              return differentiate(f, g, wrtArgs);
            })))
      signalPassFailure();
  }

  LogicalResult differentiate(func::FuncOp f, func::FuncOp g,
                              ArrayRef<unsigned> wrtArgs) {
    Operation *ret = g.getBody().front().getTerminator();
    if (f.getNumResults() == 0 || !isDifferentiable(ret->getOperand(0)))
      return f.emitError() << kPass << ": the first result of @" << f.getName()
                           << " (the loss) must be a floating-point tensor";
    auto lossType = llvm::cast<RankedTensorType>(ret->getOperand(0).getType());
    OpBuilder b(ret);
    PrimitiveBuilder p(b, g.getLoc());

    // The seed: 1 for a one-element loss, else a cotangent argument.
    Value seed =
        lossType.hasStaticShape() && lossType.getNumElements() == 1
            ? p.splat(lossType.getShape(), lossType.getElementType(), 1.0)
            : Value(appendInputArgument(g, lossType, "d_loss"));

    FailureOr<SmallVector<Value>> grads = backwardSweep(g, wrtArgs, seed);
    if (failed(grads))
      return failure();

    SmallVector<Value> results(ret->getOperands());
    b.setInsertionPoint(ret);
    for (auto [i, grad] : llvm::zip_equal(wrtArgs, *grads)) {
      if (!grad && !zeroMissing)
        return f.emitError()
               << kPass << ": no gradient reaches '" << argumentName(f, i)
               << "' (argument #" << i << " of @" << f.getName()
               << "): the loss does not depend on it (zero-missing=true "
                  "returns zeros instead)";
      results.push_back(grad ? grad : p.zerosLike(g.getArgument(i)));
    }
    setResults(f, g, results);
    eraseDeadOps(g);
    return success();
  }
};

} // namespace
