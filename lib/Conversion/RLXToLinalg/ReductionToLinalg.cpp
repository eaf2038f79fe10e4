//===- ReductionToLinalg.cpp - reductions, scans, softmax and top-k -------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

using namespace mlir;
using namespace mlir::rlx;

void rlx::populateReductionToLinalgPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {}
