//===- FoldLimits.h - how large a constant the rlx folders build -*- C++
//-*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The limit shared by the elementwise and shape folders. Internal to the
// dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_FOLDLIMITS_H
#define RLX_DIALECT_RLX_IR_FOLDLIMITS_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace mlir {
namespace rlx {

/// Largest result, in elements, that a folder materialises as a new
/// non-splat constant. Larger folds would copy weights into the IR, and
/// folding time grows with the element count.
inline constexpr int64_t kMaxFoldElements = 1024;

/// The element count of a static tensor type, or std::nullopt when it is
/// dynamic or the product of its dims overflows int64 (2^32 x 2^32 x 2
/// would wrap to 0 and fold to `dense<>`): such types are never folded.
inline std::optional<int64_t> checkedElementCount(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType || !tensorType.hasStaticShape())
    return std::nullopt;
  int64_t count = 1;
  for (int64_t dim : tensorType.getShape())
    if (llvm::MulOverflow(count, dim, count))
      return std::nullopt;
  return count;
}

} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_IR_FOLDLIMITS_H
