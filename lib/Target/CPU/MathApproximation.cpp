//===- MathApproximation.cpp - vectorizable f32 math ----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPUMATHAPPROXIMATION
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {

/// A splat of `value` of `type` (f32 or a vector of f32).
Value f32Constant(OpBuilder &b, Location loc, Type type, float value) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vector, b.getF32FloatAttr(value)));
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

/// The polynomial log reads its input's exponent from the bits, which a
/// subnormal does not hold: it returns log(FLT_MIN) = -87.3 for 1e-40, whose
/// log is -92.1. Subnormal inputs are scaled into the normal range first,
/// log(x) = log(x * 2^24) - 24 ln 2; zero, negative and NaN inputs keep
/// their results (-inf, NaN, NaN).
void scaleSubnormalLogInputs(Operation *root) {
  SmallVector<math::LogOp> logs;
  root->walk([&](math::LogOp log) {
    if (getElementTypeOrSelf(log.getType()).isF32())
      logs.push_back(log);
  });
  for (math::LogOp log : logs) {
    OpBuilder b(log);
    Location loc = log.getLoc();
    Type type = log.getType();
    Value x = log.getOperand();
    Value isSubnormal = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OLT, x,
        f32Constant(b, loc, type, std::numeric_limits<float>::min()));
    Value scaled = arith::SelectOp::create(
        b, loc, isSubnormal,
        arith::MulFOp::create(b, loc, x, f32Constant(b, loc, type, 0x1p24f)),
        x);
    Value logScaled = math::LogOp::create(b, loc, scaled, log.getFastmath());
    Value corrected = arith::SubFOp::create(
        b, loc, logScaled,
        f32Constant(b, loc, type, 24.0f * 0.693147180559945309f));
    log.replaceAllUsesWith(
        arith::SelectOp::create(b, loc, isSubnormal, corrected, logScaled)
            .getResult());
    log.erase();
  }
}

/// The polynomial exp builds 2^k from the exponent bits and flushes results
/// below FLT_MIN (x < ln FLT_MIN = -87.34) to zero, where IEEE gives
/// subnormals down to x = -103.97. Inputs below -87 are shifted up by 32,
/// which is exact for |x| < 128 (x + 32 keeps x's unit in the last place),
/// and the normal exp(x + 32) is scaled by exp(-32): both rounding errors
/// are far below a subnormal's spacing, so the result is within one
/// subnormal unit of exp(x). -inf, NaN and the inputs that underflow below
/// the smallest subnormal keep their results (0, NaN, 0).
void scaleSubnormalExpResults(Operation *root) {
  SmallVector<math::ExpOp> exps;
  root->walk([&](math::ExpOp exp) {
    if (getElementTypeOrSelf(exp.getType()).isF32())
      exps.push_back(exp);
  });
  for (math::ExpOp exp : exps) {
    OpBuilder b(exp);
    Location loc = exp.getLoc();
    Type type = exp.getType();
    Value x = exp.getOperand();
    Value isSubnormal = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OLT, x,
        f32Constant(b, loc, type, -87.0f));
    Value shifted = arith::SelectOp::create(
        b, loc, isSubnormal,
        arith::AddFOp::create(b, loc, x, f32Constant(b, loc, type, 32.0f)), x);
    Value expShifted = math::ExpOp::create(b, loc, shifted, exp.getFastmath());
    Value scaled = arith::MulFOp::create(
        b, loc, expShifted, f32Constant(b, loc, type, 1.2664165549094176e-14f));
    exp.replaceAllUsesWith(
        arith::SelectOp::create(b, loc, isSubnormal, scaled, expShifted)
            .getResult());
    exp.erase();
  }
}

struct RLXCPUMathApproximationPass
    : rlx::impl::RLXCPUMathApproximationBase<RLXCPUMathApproximationPass> {
  void runOnOperation() override {
    scaleSubnormalLogInputs(getOperation());
    scaleSubnormalExpResults(getOperation());
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return llvm::is_contained(
          {math::ExpOp::getOperationName(), math::LogOp::getOperationName(),
           math::TanhOp::getOperationName(), math::ErfOp::getOperationName(),
           math::AtanOp::getOperationName()},
          name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
