//===- RLXCustomOps.td - registry-dispatched custom ops ----*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXCUSTOMOPS_TD
#define RLX_DIALECT_RLX_IR_RLXCUSTOMOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

#endif // RLX_DIALECT_RLX_IR_RLXCUSTOMOPS_TD
