//===- OpLabels.h - which rlx ops lowered work came from --------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-tag-op-locations names each rlx op's location after the op; lowering,
// decomposition and fusion keep those names in the locations of the work
// they produce. The targets' profilers (and the CUDA runtime's error
// messages) label lowered work with them.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TRANSFORMS_OPLABELS_H
#define RLX_TRANSFORMS_OPLABELS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace mlir {
namespace rlx {

/// The module attribute that lists the labels of a graph's timers, indexed
/// by timer id.
inline constexpr llvm::StringLiteral kProfileLabelsAttrName =
    "rlx.profile_labels";

/// The module attribute that gives, by timer id, what one run of a label's
/// work moves and computes: `[bytes, flops]` (0 where unknown).
inline constexpr llvm::StringLiteral kProfileCostsAttrName =
    "rlx.profile_costs";

/// The module attribute rlx-tag-op-locations writes: the FLOPs of each rlx
/// op that has a count (`estimateFlops`), by the op's own label.
inline constexpr llvm::StringLiteral kOpFlopsAttrName = "rlx.op_flops";

/// `rlx.matmul+rlx.binary @ layer.mlir:12:8`: the rlx ops `loc` names, in
/// first-seen order, and its first file position; `(no rlx op)` when it
/// names none.
std::string getOpLabel(Location loc);

/// Brackets the work at the top level of each public function of `module`:
/// the ops `isWork` selects, grouped into runs of neighbours with one label
/// (an op's work split by others' gives several runs of that label), each
/// run preceded by what `begin(b, loc, id, label)` builds and followed by
/// what `end(b, loc, id)` builds. Ids number the labels in first-seen order;
/// the labels are stored, by id, in the module attribute
/// `kProfileLabelsAttrName`, and their costs in `kProfileCostsAttrName`:
/// the bytes of the distinct memref operands of each run's work (every
/// buffer read or written once: the least traffic the work can have;
/// static shapes only), summed over the label's runs, and the FLOPs of the
/// rlx ops its work came from (`kOpFlopsAttrName`).
void bracketLabelledWork(
    ModuleOp module, llvm::function_ref<bool(Operation *)> isWork,
    llvm::function_ref<void(OpBuilder &, Location, int64_t, StringRef)> begin,
    llvm::function_ref<void(OpBuilder &, Location, int64_t)> end);

} // namespace rlx
} // namespace mlir

#endif // RLX_TRANSFORMS_OPLABELS_H
