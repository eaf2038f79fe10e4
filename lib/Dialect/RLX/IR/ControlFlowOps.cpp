//===- ControlFlowOps.cpp - regions and control flow ----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerControlFlowOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXControlFlowOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

LogicalResult YieldOp::verify() {
  Operation *parent = (*this)->getParentOp();
  if (!parent || parent->getDialect() != (*this)->getDialect())
    return emitOpError() << "must terminate the region of an rlx op, not of '"
                         << (parent ? parent->getName().getStringRef()
                                    : StringRef("<none>"))
                         << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXControlFlowOps.cpp.inc"
