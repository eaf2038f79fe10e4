//===- GgufBlock.h - GGUF block geometry of the quantization schemes -----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_GGUFBLOCK_H
#define RLX_DIALECT_RLX_IR_GGUFBLOCK_H

#include "rlx/Dialect/RLX/IR/RLXEnums.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace rlx {

/// GGUF block geometry: elements per block and bytes per block.
struct GgufBlock {
  int64_t elements;
  int64_t bytes;
};

/// The GGUF block geometry of `scheme`, or std::nullopt for non-GGUF schemes
/// (the MoE verifiers and the derivative rules share it).
std::optional<GgufBlock> ggufBlock(QuantScheme scheme);

} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_IR_GGUFBLOCK_H
