//===- DerivativeRules.h - the VJP/JVP rules of the rlx ops -----*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Attaches `DifferentiableOpInterface` (RLXInterfaces.td) to every rlx op
// that has derivative rules. The rules build with PrimitiveBuilder, one layer
// above the dialect, so they are external models rather than op methods.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_AUTODIFF_DERIVATIVERULES_H
#define RLX_DIALECT_RLX_AUTODIFF_DERIVATIVERULES_H

namespace mlir {
class DialectRegistry;
namespace rlx {

/// Adds the derivative rules of every op family to `registry`; they attach
/// when the rlx dialect loads.
void registerDerivativeRules(DialectRegistry &registry);

} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_AUTODIFF_DERIVATIVERULES_H
