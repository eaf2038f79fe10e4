//===- SwiGLUFusion.cpp - rlx-fuse: SwiGLU --------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

using namespace mlir;
using namespace mlir::rlx;

void rlx::populateSwiGLUFusionPatterns(RewritePatternSet &patterns,
                                       bool report) {}
