//===- RLXCUDADialect.h - the CUDA target's kernel ops ----------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_CUDA_RLXCUDADIALECT_H
#define RLX_TARGET_CUDA_RLXCUDADIALECT_H

#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Dialect/RLX/IR/RLXEnums.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "rlx/Target/CUDA/RLXCUDADialect.h.inc"

namespace mlir::rlx::cuda::detail {
/// The memory effects of a kernel op: none on tensors; on buffers, reads of
/// every operand but the `inits`, which are written.
void getKernelOpEffects(
    Operation *op, MutableOperandRange inits,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects);
/// Replaces a kernel op on tensors by the same op on their buffers, without
/// results, writing the buffers of its `inits`.
LogicalResult
bufferizeKernelOp(Operation *op, MutableOperandRange inits,
                  RewriterBase &rewriter,
                  const bufferization::BufferizationOptions &options,
                  bufferization::BufferizationState &state);
} // namespace mlir::rlx::cuda::detail

#include <array>

#define GET_OP_CLASSES
#include "rlx/Target/CUDA/RLXCUDAOps.h.inc"

#endif // RLX_TARGET_CUDA_RLXCUDADIALECT_H
