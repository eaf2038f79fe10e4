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

/// The `OpTy` ops on f32 (scalar or vector) under `root`, collected before
/// rewriting so that the walk does not see the replacements.
template <typename OpTy> SmallVector<OpTy> f32Ops(Operation *root) {
  SmallVector<OpTy> ops;
  root->walk([&](OpTy op) {
    if (getElementTypeOrSelf(op.getType()).isF32())
      ops.push_back(op);
  });
  return ops;
}

/// The polynomial log reads its input's exponent from the bits, which a
/// subnormal does not hold: it returns log(FLT_MIN) = -87.3 for 1e-40, whose
/// log is -92.1. Subnormal inputs are scaled into the normal range first,
/// log(x) = log(x * 2^24) - 24 ln 2; zero, negative and NaN inputs keep
/// their results (-inf, NaN, NaN).
void scaleSubnormalLogInputs(Operation *root) {
  for (math::LogOp log : f32Ops<math::LogOp>(root)) {
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
  for (math::ExpOp exp : f32Ops<math::ExpOp>(root)) {
    OpBuilder b(exp);
    Location loc = exp.getLoc();
    Type type = exp.getType();
    Value x = exp.getOperand();
    Value isSubnormal =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
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

/// MLIR's polynomial atan is off by up to 40 ulp in f32. This one reduces
/// |x| to [-tan(pi/8), tan(pi/8)] with the identities
///   atan(x) = pi/2 + atan(-1/x)           for x > tan(3 pi/8),
///   atan(x) = pi/4 + atan((x-1)/(x+1))   for x > tan(pi/8),
/// and evaluates a degree-9 odd minimax polynomial there (Cephes' atanf),
/// with pi/2 and pi/4 added as two f32 parts: within 2 ulp over the whole
/// range (every positive finite f32 checked against atan in f64, in an
/// emulation of these operations; the sign is symmetric). The sign is restored
/// with copysign, so -0 stays -0; +-inf give +-pi/2 (-1/inf is 0) and NaN
/// propagates (every comparison is false, so no reduction is applied).
void expandAtan(Operation *root) {
  for (math::AtanOp atan : f32Ops<math::AtanOp>(root)) {
    OpBuilder b(atan);
    Location loc = atan.getLoc();
    Type type = atan.getType();
    auto c = [&](float value) { return f32Constant(b, loc, type, value); };
    auto gt = [&](Value x, float bound) -> Value {
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                   c(bound));
    };
    auto select = [&](Value cond, Value t, Value f) -> Value {
      return arith::SelectOp::create(b, loc, cond, t, f);
    };
    Value x = atan.getOperand();
    Value ax = math::AbsFOp::create(b, loc, x);
    Value one = c(1.0f);
    Value big = gt(ax, 2.414213562373095f);
    Value mid = gt(ax, 0.4142135623730950f);
    Value inverted =
        arith::NegFOp::create(b, loc, arith::DivFOp::create(b, loc, one, ax));
    Value shifted =
        arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, ax, one),
                              arith::AddFOp::create(b, loc, ax, one));
    Value t = select(big, inverted, select(mid, shifted, ax));
    // pi/2 and pi/4 as an f32 and its rounding error: near tan(pi/8) the
    // sum cancels to about half of pi/4, where the f32 constant alone is
    // 0.7 ulp off.
    Value base = select(big, c(1.5707963267948966f),
                        select(mid, c(0.7853981633974483f), c(0.0f)));
    Value baseError = select(big, c(-4.371138828673793e-8f),
                             select(mid, c(-2.1855694143368964e-8f), c(0.0f)));
    Value z = arith::MulFOp::create(b, loc, t, t);
    Value poly = c(8.05374449538e-2f);
    for (float coefficient :
         {-1.38776856032e-1f, 1.99777106478e-1f, -3.33329491539e-1f})
      poly = math::FmaOp::create(b, loc, poly, z, c(coefficient));
    // t + t z p(z): the leading term is added last, exactly.
    Value tz = arith::MulFOp::create(b, loc, t, z);
    Value reduced = math::FmaOp::create(b, loc, tz, poly, t);
    Value magnitude = arith::AddFOp::create(
        b, loc, base, arith::AddFOp::create(b, loc, reduced, baseError));
    atan.replaceAllUsesWith(
        math::CopySignOp::create(b, loc, magnitude, x).getResult());
    atan.erase();
  }
}

struct RLXCPUMathApproximationPass
    : rlx::impl::RLXCPUMathApproximationBase<RLXCPUMathApproximationPass> {
  void runOnOperation() override {
    scaleSubnormalLogInputs(getOperation());
    scaleSubnormalExpResults(getOperation());
    expandAtan(getOperation());
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return llvm::is_contained(
          {math::ExpOp::getOperationName(), math::LogOp::getOperationName(),
           math::TanhOp::getOperationName(), math::ErfOp::getOperationName()},
          name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
