//===- RLXShapeUtils.h - shape rules shared by rlx ops ----------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Shape rules used by verifiers, type inference, rewrite patterns and
// lowerings alike, so each rule has exactly one definition.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXSHAPEUTILS_H
#define RLX_DIALECT_RLX_IR_RLXSHAPEUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir {
namespace rlx {

/// Renders a shape as `[4, ?, 768]` for diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);

/// NumPy (right-aligned) broadcast of two shapes. Dynamic dims broadcast
/// with 1 to dynamic and with a static size N > 1 to N. Returns std::nullopt
/// when two static dims differ and neither is 1.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                    ArrayRef<int64_t> rhs);

/// Best-effort broadcast for type inference of ops that failed verification:
/// dims that cannot broadcast become dynamic. Type inference is total so the
/// op's verifier, not the inference, reports the precise error.
SmallVector<int64_t> broadcastShapesOrDynamic(ArrayRef<int64_t> lhs,
                                              ArrayRef<int64_t> rhs);

/// True when two dims may be equal at run time (equal, or either dynamic).
bool dimsCompatible(int64_t a, int64_t b);

/// An inherent attribute as type inference sees it: from the op's
/// properties, or, while the op is parsed or built from a plain attribute
/// list (properties not populated yet), from the attribute dictionary.
template <typename AttrT>
AttrT inferenceAttr(AttrT fromProperties, DictionaryAttr attrs,
                    StringRef name) {
  if (fromProperties)
    return fromProperties;
  return attrs ? dyn_cast_or_null<AttrT>(attrs.get(name)) : AttrT();
}

/// Normalises an axis that may count from the end (`-1` is the last axis).
/// Returns std::nullopt when it is out of range for `rank`.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// The first operand or result type of `op` whose non-zero static dims
/// multiply past int64 (e.g. `tensor<2x6x4294967296x4294967296xf32>`), or
/// none. The verifiers accept such types (a type is not a buffer), but
/// rewrites that flatten or count elements, rows or windows (the
/// decompositions of rlx-unfuse, the linalg lowerings) compute products of
/// their dims, which would not fit in 64 bits; they leave or report such
/// an op instead.
std::optional<Type> findUncountableType(Operation *op);

} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_IR_RLXSHAPEUTILS_H
