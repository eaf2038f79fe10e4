//===- TransposeForms.h - transposes that are something else ----*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// What the transpose canonicalization and the linalg lowering agree a
// transpose is, so that a graph lowered without canonicalizing first gets
// the same kernels.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_TRANSPOSEFORMS_H
#define RLX_DIALECT_RLX_IR_TRANSPOSEFORMS_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace rlx {

/// Whether transposing a static `inputType` by `perm` (a permutation, not
/// the identity) moves only dims of size 1, the others keeping their
/// order: the row-major element order is unchanged, so the transpose is
/// the reshape to its result shape.
inline bool isTransposeOfUnitDims(RankedTensorType inputType,
                                  ArrayRef<int64_t> perm) {
  if (!inputType.hasStaticShape())
    return false;
  bool moves = false;
  int64_t last = -1;
  for (auto [position, source] : llvm::enumerate(perm)) {
    moves |= static_cast<int64_t>(position) != source;
    if (inputType.getDimSize(source) == 1)
      continue;
    if (source < last)
      return false;
    last = source;
  }
  return moves;
}

} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_IR_TRANSPOSEFORMS_H
