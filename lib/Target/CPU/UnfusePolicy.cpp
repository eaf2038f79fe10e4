//===- UnfusePolicy.cpp - what the CPU target decomposes ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"
#include "rlx/Transforms/Unfuse.h"

using namespace mlir;
using namespace mlir::rlx;

void rlx::registerCPUUnfusePolicy() {
  registerUnfusePolicy(
      {"cpu",
       "the linalg lowering handles primitives, rank-3 attention, the "
       "elementwise region ops, structured control flow (`rlx.if` / "
       "`rlx.while` / `rlx.scan` as scf, so only the taken branch runs and "
       "loops need no bound) and `softmax_cross_entropy_backward` directly; "
       "every other composite op is decomposed",
       SmallVector<Decomposition>(getLinalgLoweringDecompositions())});
}
