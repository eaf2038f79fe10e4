//===- RLXEnums.h - rlx enums and enum attributes ---------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXENUMS_H
#define RLX_DIALECT_RLX_IR_RLXENUMS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "rlx/Dialect/RLX/IR/RLXEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "rlx/Dialect/RLX/IR/RLXAttrs.h.inc"

#endif // RLX_DIALECT_RLX_IR_RLXENUMS_H
