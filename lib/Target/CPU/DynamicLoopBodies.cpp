//===- DynamicLoopBodies.cpp - linalg on `?` buffers in while loops -------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The CPU pipeline lowers linalg ops to affine loops, whose bounds must be
// valid affine dims. The dims of a `?` buffer defined inside an scf region
// are not: the buffers an scf.while carries (an rlx.while with a `?` carried
// tensor), or those a dynamic-length FFT allocates inside its scf.for over
// stages and its scf.if between algorithms. Linalg ops on such buffers
// become scf.for nests instead.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPUDYNAMICLOOPBODIESTOSCF
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

struct RLXCPUDynamicLoopBodiesToSCFPass
    : rlx::impl::RLXCPUDynamicLoopBodiesToSCFBase<
          RLXCPUDynamicLoopBodiesToSCFPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> targets;
    getOperation().walk([&](linalg::LinalgOp op) {
      // The affine loops' bounds would be dims of these operands: valid
      // only for buffers defined at the function's top level.
      bool invalidBounds = llvm::any_of(op->getOperands(), [](Value operand) {
        auto shaped = dyn_cast<ShapedType>(operand.getType());
        return shaped && !shaped.hasStaticShape() &&
               !affine::isTopLevelValue(operand);
      });
      if (invalidBounds)
        targets.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : targets) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToLoops(rewriter, op))) {
        op->emitOpError("with `?` dims inside a while loop could not be "
                        "lowered to loops");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
