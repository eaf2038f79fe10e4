//===- RLXCPUDialect.h - the CPU target's runtime-call op -------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_CPU_RLXCPUDIALECT_H
#define RLX_TARGET_CPU_RLXCPUDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "rlx/Target/CPU/RLXCPUDialect.h.inc"

#define GET_OP_CLASSES
#include "rlx/Target/CPU/RLXCPUOps.h.inc"

#endif // RLX_TARGET_CPU_RLXCPUDIALECT_H
