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
#include "rlx/Dialect/RLX/Autodiff/Sweep.h"
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
            getOperation(), func, wrt, "_jvp", kPass, Mode::Forward,
            [&](func::FuncOp f, func::FuncOp g, ArrayRef<unsigned> wrtArgs) {
              return differentiate(f, g, wrtArgs);
            })))
      signalPassFailure();
  }

  LogicalResult differentiate(func::FuncOp f, func::FuncOp g,
                              ArrayRef<unsigned> wrtArgs) {
    DenseMap<Value, Value> tangents;
    for (unsigned i : wrtArgs)
      tangents[g.getArgument(i)] = appendInputArgument(
          g, g.getArgument(i).getType(), ("t_" + argumentName(f, i)).str());

    Block &body = g.getBody().front();
    Operation *ret = body.getTerminator();
    if (failed(forwardSweep(body, tangents, kPass)))
      return failure();

    OpBuilder b(ret);
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
