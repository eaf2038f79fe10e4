//===- ScalarOps.h - scalar semantics of rlx elementwise ops ----*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The one definition of each elementwise op's math on scalars, as arith /
// math / complex ops. The linalg lowering builds `linalg.generic` bodies with
// it, and fusion builds `rlx.elementwise_region` bodies with it, so both
// compute exactly the same thing.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_UTILS_SCALAROPS_H
#define RLX_DIALECT_RLX_UTILS_SCALAROPS_H

#include "rlx/Dialect/RLX/IR/RLXEnums.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace rlx {

/// `kind(x)`. f16/bf16 are computed in f32 and rounded back once.
Value emitActivation(OpBuilder &b, Location loc, ActivationKind kind, Value x);

/// `lhs kind rhs` on two scalars of the same type. Lowered code carries
/// unsigned rlx integers (ui8, ui32) as signless values, so `isUnsigned`
/// selects unsigned division and ordering.
Value emitBinary(OpBuilder &b, Location loc, BinaryKind kind, Value lhs,
                 Value rhs, bool isUnsigned = false);

/// `x` converted from the rlx element type `from` to the rlx element type
/// `to` by the rules of `rlx.cast` (truncating, saturating float -> integer
/// with NaN -> 0; wrapping integer -> integer; round-to-nearest-even into
/// floats; `!= 0` into i1; complex <-> real). `x` and the result are carried
/// signless (ui8 as i8), so `from` and `to` give the signedness. 8-bit
/// floats and bf16 are rounded by integer arithmetic, which needs no runtime
/// support and keeps subnormals.
Value emitCast(OpBuilder &b, Location loc, Value x, Type from, Type to);

/// `lhs kind rhs` as an i1: IEEE comparisons for floats (false with a NaN
/// except `ne`), unsigned ones for `isUnsigned` integers and i1, `eq`/`ne`
/// only for complex values.
Value emitCompare(OpBuilder &b, Location loc, CompareKind kind, Value lhs,
                  Value rhs, bool isUnsigned = false);

/// `cond ? onTrue : onFalse`.
Value emitWhere(OpBuilder &b, Location loc, Value cond, Value onTrue,
                Value onFalse);

} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_UTILS_SCALAROPS_H
