//===- RLXShapeOps.td - shape manipulation and indexing ----*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXSHAPEOPS_TD
#define RLX_DIALECT_RLX_IR_RLXSHAPEOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

#endif // RLX_DIALECT_RLX_IR_RLXSHAPEOPS_TD
