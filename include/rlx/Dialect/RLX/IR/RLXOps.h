//===- RLXOps.h - rlx operations --------------------------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Declares every rlx op. Each op family is generated from its own .td file.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXOPS_H
#define RLX_DIALECT_RLX_IR_RLXOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "rlx/Dialect/RLX/IR/RLXAsmUtils.h"
#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Dialect/RLX/IR/RLXEnums.h"
#include "rlx/Dialect/RLX/IR/RLXInterfaces.h"

// One generated header per op family (RLXOpFamilies.def).
#include "rlx/Dialect/RLX/IR/RLXAllOps.h.inc"

#endif // RLX_DIALECT_RLX_IR_RLXOPS_H
