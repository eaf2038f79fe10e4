//===- Passes.h - target-independent rlx conversions -----------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_PASSES_H
#define RLX_CONVERSION_PASSES_H

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
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace math {
class MathDialect;
} // namespace math
namespace scf {
class SCFDialect;
} // namespace scf
namespace tensor {
class TensorDialect;
} // namespace tensor

namespace rlx {

#define GEN_PASS_DECL
#include "rlx/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rlx/Conversion/Passes.h.inc"

/// The front half of every target's pipeline: `rlx-unfuse` with
/// `unfuseTarget`'s policy, `convert-rlx-to-linalg` and elementwise fusion
/// (`rlx-fuse-elementwise`), with canonicalization and CSE between.
/// `formTargetKernels`, when given, adds the target's passes that replace
/// rlx ops by its dedicated kernel ops, after unfusing and before the
/// generic lowering.
void buildRLXToLinalgPipeline(
    OpPassManager &pm, StringRef unfuseTarget,
    llvm::function_ref<void(OpPassManager &)> formTargetKernels = nullptr);

/// Graph functions to functions on buffers, as every target's code
/// generator takes them: rlx-export-graph-functions, one-shot
/// bufferization across function boundaries (identity layouts), results
/// as caller-owned out-parameters, and the deallocation pipeline.
void buildGraphBufferizationPipeline(OpPassManager &pm);

} // namespace rlx
} // namespace mlir

#endif // RLX_CONVERSION_PASSES_H
