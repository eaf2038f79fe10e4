//===- RLXInterfaces.h - rlx op interfaces ----------------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXINTERFACES_H
#define RLX_DIALECT_RLX_IR_RLXINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include "rlx/Dialect/RLX/IR/RLXInterfaces.h.inc"

#endif // RLX_DIALECT_RLX_IR_RLXINTERFACES_H
