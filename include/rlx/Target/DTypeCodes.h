//===- DTypeCodes.h - element types as runtime dtype codes ------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The RlxDType code (include/rlx-c/RLX.h) of the element types that the
// targets' lowerings pass to runtime calls by code (the CPU's rlx.custom
// kernels and collectives, the CUDA target's collectives).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_DTYPECODES_H
#define RLX_TARGET_DTYPECODES_H

#include "rlx-c/RLX.h"

#include "mlir/IR/Types.h"

#include <cstdint>
#include <optional>

namespace mlir::rlx {

/// The code of a float or signless integer element type. Unsigned and
/// complex types are left out: the lowering to linalg changes their tensor
/// types, which the buffers handed to the runtime must keep.
inline std::optional<int32_t> runtimeDType(Type type) {
  if (type.isF32())
    return RLX_DTYPE_F32;
  if (type.isF64())
    return RLX_DTYPE_F64;
  if (type.isF16())
    return RLX_DTYPE_F16;
  if (type.isBF16())
    return RLX_DTYPE_BF16;
  if (type.isSignlessInteger(1))
    return RLX_DTYPE_BOOL;
  if (type.isSignlessInteger(8))
    return RLX_DTYPE_I8;
  if (type.isSignlessInteger(16))
    return RLX_DTYPE_I16;
  if (type.isSignlessInteger(32))
    return RLX_DTYPE_I32;
  if (type.isSignlessInteger(64))
    return RLX_DTYPE_I64;
  return std::nullopt;
}

} // namespace mlir::rlx

#endif // RLX_TARGET_DTYPECODES_H
