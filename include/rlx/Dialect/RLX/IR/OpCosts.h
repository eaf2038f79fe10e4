//===- OpCosts.h - the arithmetic work of rlx ops ---------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// FLOP counts of the ops whose time is arithmetic rather than memory:
// bench lines print GFLOP/s of a graph, profiles TFLOP/s of an op.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_OPCOSTS_H
#define RLX_DIALECT_RLX_IR_OPCOSTS_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir {
namespace rlx {

/// The floating-point operations of one run of `op`, a multiply-add
/// counting two, for static shapes of:
/// - `rlx.matmul`, `rlx.fused_matmul_bias_act`: 2 M N K per batch (the
///   bias and activation not counted);
/// - `rlx.attention`: 4 B H Sq Sk D (the two products), half of it with the
///   causal mask (the work of visible keys, as FlashAttention counts it);
///   `rlx.attention_backward` 2.5 times that (five products);
/// - `rlx.conv`: 2 N C_out H_out W_out (C_in / groups) kH kW.
/// None for other ops and dynamic shapes.
std::optional<double> estimateFlops(Operation *op);

} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_IR_OPCOSTS_H
