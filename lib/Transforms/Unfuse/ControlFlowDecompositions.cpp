//===- ControlFlowDecompositions.cpp - control flow, regions --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "PrimitiveBuilder.h"
#include "UnfusePatterns.h"

using namespace mlir;
using namespace mlir::rlx;

void rlx::populateControlFlowDecompositions(RewritePatternSet &patterns,
                                            const UnfusePolicy &policy) {}
