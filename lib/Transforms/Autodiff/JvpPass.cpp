//===- JvpPass.cpp - rlx-jvp: forward mode --------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Adds @f_jvp: the forward ops of @f, each followed by its JVP rule
// (DifferentiableOpInterface) on the tangents of its operands. The contract
// is in Passes.td and docs/autodiff.md.
//
//===----------------------------------------------------------------------===//

#include "Differentiation.h"
#include "rlx/Dialect/RLX/Autodiff/DerivativeRules.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"
#include "rlx/Transforms/Passes.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXJVP
#include "rlx/Transforms/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr StringLiteral kPass = "rlx-jvp";

struct RLXJvpPass : rlx::impl::RLXJvpBase<RLXJvpPass> {
  using RLXJvpBase::RLXJvpBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<RLXDialect>();
    registerDerivativeRules(registry);
  }

  void runOnOperation() override {
    if (failed(deriveFunction(
            getOperation(), func, wrt, "_jvp", kPass,
            [&](func::FuncOp f, func::FuncOp g, ArrayRef<unsigned> wrtArgs) {
              return differentiate(f, g, wrtArgs);
            })))
      signalPassFailure();
  }

  LogicalResult differentiate(func::FuncOp f, func::FuncOp g,
                              ArrayRef<unsigned> wrtArgs) {
    MLIRContext *ctx = &getContext();
    DenseMap<Value, Value> tangents;
    for (unsigned i : wrtArgs)
      tangents[g.getArgument(i)] = appendInputArgument(
          g, g.getArgument(i).getType(), ("t_" + argumentName(f, i)).str());

    Block &body = g.getBody().front();
    Operation *ret = body.getTerminator();
    OpBuilder b(ctx);
    SmallVector<Operation *> forward = llvm::map_to_vector(
        body.without_terminator(), [](Operation &op) { return &op; });
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
      auto differentiable = llvm::dyn_cast<DifferentiableOpInterface>(op);
      if (!differentiable || captures)
        return op->emitError() << kPass << ": no forward-mode rule for '"
                               << op->getName() << "'";
      b.setInsertionPointAfter(op);
      SmallVector<Value> tys;
      if (failed(differentiable.buildJVP(b, txs, tys)))
        return failure();
      for (auto [result, tangent] : llvm::zip_equal(op->getResults(), tys)) {
        if (!tangent || !carriesDerivative(result))
          continue;
        if (tangent.getType() != derivativeType(result))
          return op->emitError()
                 << kPass << ": the forward-mode rule of '" << op->getName()
                 << "' gave a tangent of type " << tangent.getType()
                 << ", expected " << derivativeType(result);
        tangents[result] = tangent;
      }
    }

    b.setInsertionPoint(ret);
    PrimitiveBuilder p(b, g.getLoc());
    SmallVector<Value> results(ret->getOperands());
    for (Value result : ret->getOperands()) {
      Value tangent = tangents.lookup(result);
      if (!tangent) {
        if (!llvm::cast<RankedTensorType>(result.getType()).hasStaticShape())
          return f.emitError() << kPass << ": a result of @" << f.getName()
                               << " that no tangent reaches has a dynamic "
                                  "shape; its zero tangent cannot be built";
        tangent = p.zerosLike(result);
      }
      results.push_back(tangent);
    }
    setResults(f, g, results);
    eraseDeadOps(g);
    return success();
  }
};

} // namespace
