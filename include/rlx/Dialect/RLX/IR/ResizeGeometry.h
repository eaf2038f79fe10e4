//===- ResizeGeometry.h - taps of rlx.resize --------------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Which input positions each output position of `rlx.resize` reads, and
// with which weights, along one resized dim; the adjoint of that map for
// `rlx.resize_backward`; and the attribute checks both ops share. The
// verifiers, the folder and the linalg lowerings use it, so the semantics
// live in one place.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RESIZEGEOMETRY_H
#define RLX_DIALECT_RLX_IR_RESIZEGEOMETRY_H

#include "rlx/Dialect/RLX/IR/RLXEnums.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
namespace rlx {
namespace resize_geometry {

/// One input position read by an output position, and its weight.
struct Tap {
  int64_t index;
  double weight;
};

/// The taps of each position of one dim: `taps[o]` for output position `o`
/// (forward) or input position `i` (adjoint).
using TapTable = SmallVector<SmallVector<Tap, 2>>;

/// The taps of each of the `outSize` output positions when a dim of
/// `inSize` is resized, with PyTorch's index rules (F.interpolate) and its
/// arithmetic: in f64 when `inF64`, else in f32 (its CPU kernels' opmath
/// type for f32, f16 and bf16 inputs). `scaleFactor` is the user's scale
/// factor, if given. Sizes must be positive.
TapTable forwardTaps(ResizeMode mode, bool alignCorners,
                     std::optional<double> scaleFactor, int64_t inSize,
                     int64_t outSize, bool inF64);

/// The adjoint of `forwardTaps`: for each of the `inSize` input positions,
/// the output positions that read it and their weights (taps of one pair
/// merged).
TapTable adjointTaps(ResizeMode mode, bool alignCorners,
                     std::optional<double> scaleFactor, int64_t inSize,
                     int64_t outSize, bool inF64);

/// Checks the attributes shared by rlx.resize and rlx.resize_backward:
/// 1 to 3 positive `sizes` within the rank of `operand` (named
/// `operandName`), positive finite `scales` of the same count,
/// `align_corners` with `linear` only, and static positive trailing dims
/// of `operand`.
LogicalResult verifyResize(Operation *op, StringRef operandName,
                           ShapedType operand, ResizeMode mode,
                           ArrayRef<int64_t> sizes, bool alignCorners,
                           std::optional<ArrayRef<double>> scales);

/// The scale factor of resized dim `d` from the op's optional `scales`.
inline std::optional<double>
scaleFactorOf(std::optional<ArrayRef<double>> scales, size_t d) {
  if (!scales)
    return std::nullopt;
  return (*scales)[d];
}

} // namespace resize_geometry
} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_IR_RESIZEGEOMETRY_H
