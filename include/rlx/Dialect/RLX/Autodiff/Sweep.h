//===- Sweep.h - reverse and forward sweeps over a block --------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The sweeps that apply the derivative rules to every op of a block. The
// passes run them on a function body; the rules of the region ops
// (`rlx.scan`) run them on a copy of their body, which is how the body's own
// derivative is built.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_AUTODIFF_SWEEP_H
#define RLX_DIALECT_RLX_AUTODIFF_SWEEP_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace rlx {

/// Whether `v` can carry a derivative of its own type: a floating-point or
/// complex tensor.
bool isDifferentiable(Value v);

/// Whether a derivative reaches `v` when its operands are active: a
/// differentiable value, or an integer result of a quantized op
/// (`quantize`, `q_matmul`, `q_conv2d`), whose derivative is straight-through.
bool carriesDerivative(Value v);

/// The type of `v`'s cotangent or tangent: `v`'s own type, or an f32 tensor
/// of its shape for the integer values of quantized ops.
Type derivativeType(Value v);

/// Every value of `block` that depends on `seeds` through values that carry
/// derivatives (ops with regions depend on what they capture).
DenseSet<Value> activeValues(Block &block, ValueRange seeds);

/// Emits, at `b`'s insertion point (in `block`, after its ops), the reverse
/// sweep over `block`'s ops without its terminator: `cotangents[i]` seeds
/// `outputs[i]`, each op with a cotangent on a result adds its VJP (rule of
/// DifferentiableOpInterface), and the cotangents of a value used several
/// times are added up. Returns the cotangent of each of `wrt` (null where
/// none arrives), or fails with an error at the op without a rule (`pass`
/// names the pass in it).
FailureOr<SmallVector<Value>> reverseSweep(Block &block, OpBuilder &b,
                                           ValueRange outputs,
                                           ValueRange cotangents,
                                           ValueRange wrt, StringRef pass);

/// Emits each op's JVP right after it, walking `block`'s ops without its
/// terminator in order. `tangents` holds the tangents of the values the
/// sweep starts from and receives those of every result (none for a value
/// no tangent reaches).
LogicalResult forwardSweep(Block &block, DenseMap<Value, Value> &tangents,
                           StringRef pass);

/// Erases the ops of `block` whose results are unused and that have no
/// effects (what a sweep computed and nothing reads).
void eraseDeadOps(Block &block);

} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_AUTODIFF_SWEEP_H
