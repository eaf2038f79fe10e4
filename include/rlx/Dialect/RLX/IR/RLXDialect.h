//===- RLXDialect.h - rlx dialect -------------------------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXDIALECT_H
#define RLX_DIALECT_RLX_IR_RLXDIALECT_H

#include "mlir/IR/Dialect.h"

#include "rlx/Dialect/RLX/IR/RLXDialect.h.inc"

#endif // RLX_DIALECT_RLX_IR_RLXDIALECT_H
