//===- QuantLowering.h - rules shared by the integer and MoE lowerings -*- C++
//-*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Scalar rules that two ops must apply identically: the i8 requantization
// of rlx.q_matmul and rlx.q_conv2d, and the out-of-range expert rule of
// rlx.grouped_matmul and rlx.dequant_grouped_matmul.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_CONVERSION_RLXTOLINALG_QUANTLOWERING_H
#define RLX_LIB_CONVERSION_RLXTOLINALG_QUANTLOWERING_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace rlx {

/// `saturate_i8(round_half_even(acc * mult) + outZp)` of an i32 `acc`,
/// computed in f64: the product is rounded once before the rounding to an
/// integer, and adding the zero point is exact.
Value buildRequantizeToI8(OpBuilder &b, Location loc, Value acc, double mult,
                          int64_t outZp);

/// A grouped matmul's term for a row of expert id `id` (i32 or i64):
/// `product(expert)` when `0 <= id < experts` (an index value), else a zero
/// of `type`. When `mayBeEmpty` (no expert 0 to read in its place) the
/// product is built under an scf.if; otherwise it is computed for expert 0
/// and discarded by a select.
Value buildExpertTerm(
    OpBuilder &b, Location loc, Value id, Value experts, bool mayBeEmpty,
    Type type,
    function_ref<Value(OpBuilder &, Location, Value expert)> product);

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_CONVERSION_RLXTOLINALG_QUANTLOWERING_H
