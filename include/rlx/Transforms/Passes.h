//===- Passes.h - rlx graph transformations ---------------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TRANSFORMS_PASSES_H
#define RLX_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace arith {
class ArithDialect;
} // namespace arith
namespace complex {
class ComplexDialect;
} // namespace complex
namespace func {
class FuncOp;
} // namespace func
namespace math {
class MathDialect;
} // namespace math
namespace rlx {

#define GEN_PASS_DECL
#include "rlx/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rlx/Transforms/Passes.h.inc"

} // namespace rlx
} // namespace mlir

#endif // RLX_TRANSFORMS_PASSES_H
