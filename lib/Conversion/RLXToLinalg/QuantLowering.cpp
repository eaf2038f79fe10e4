//===- QuantLowering.cpp - rules shared by the integer and MoE lowerings --===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "QuantLowering.h"
#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::rlx;

Value rlx::buildRequantizeToI8(OpBuilder &b, Location loc, Value acc,
                               double mult, int64_t outZp) {
  Type f64 = b.getF64Type();
  Value wide = arith::SIToFPOp::create(b, loc, f64, acc);
  Value scaled =
      arith::MulFOp::create(b, loc, wide, floatConstant(b, loc, f64, mult));
  // Both terms are integers below 2^53, so the sum is exact.
  Value shifted = arith::AddFOp::create(
      b, loc, math::RoundEvenOp::create(b, loc, scaled),
      floatConstant(b, loc, f64, static_cast<double>(outZp)));
  Value clamped = arith::MinimumFOp::create(
      b, loc,
      arith::MaximumFOp::create(b, loc, shifted,
                                floatConstant(b, loc, f64, -128.0)),
      floatConstant(b, loc, f64, 127.0));
  return arith::FPToSIOp::create(b, loc, b.getI8Type(), clamped);
}

Value rlx::buildExpertTerm(
    OpBuilder &b, Location loc, Value id, Value experts, bool mayBeEmpty,
    Type type,
    function_ref<Value(OpBuilder &, Location, Value expert)> product) {
  Value expert = arith::IndexCastOp::create(b, loc, b.getIndexType(), id);
  // Unsigned: a negative id is huge, so out of range too.
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, expert, experts);
  Value zero = floatConstant(b, loc, type, 0.0);
  if (!mayBeEmpty) {
    Value safe = arith::SelectOp::create(
        b, loc, inRange, expert, arith::ConstantIndexOp::create(b, loc, 0));
    return arith::SelectOp::create(b, loc, inRange, product(b, loc, safe),
                                   zero);
  }
  return scf::IfOp::create(
             b, loc, inRange,
             [&](OpBuilder &tb, Location tl) {
               scf::YieldOp::create(tb, tl, product(tb, tl, expert));
             },
             [&](OpBuilder &eb, Location el) {
               scf::YieldOp::create(eb, el, zero);
             })
      .getResult(0);
}
