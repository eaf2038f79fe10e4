//===- GemmCalls.h - GEMMs on buffers as library calls ----------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// What the targets' BLAS rewrites (rlx-linalg-to-blas for the CPU,
// rlx-cuda-linalg-to-cublas for CUDA) share: which linalg GEMMs a library
// call computes exactly, and the descriptor type the runtime reads.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_GEMMCALLS_H
#define RLX_CONVERSION_GEMMCALLS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir {
namespace rlx {

/// A linalg.matmul or linalg.batch_matmul on buffers whose operands are
/// read as stored, or, for the lhs and rhs, with their last two dims
/// exchanged (indexing maps the default ones with the last two results
/// swapped). `elementType` is the output's, `inputTypes` the lhs's and
/// rhs's: one type on every operand, unless `allowHalfInputs` admits the
/// mixed forms the f16/bf16 lowerings make: an f32 output accumulating the
/// product of two f16 or two bf16 operands (matmuls), or of an f32 and an
/// f16/bf16 operand (attention: its f32 probabilities times its values).
struct TransposableGemm {
  Type elementType;
  Type inputTypes[2];
  bool transposed[2] = {false, false};
};
std::optional<TransposableGemm>
matchTransposableGemm(linalg::LinalgOp op, bool allowHalfInputs = false);

/// `map` with its last two results exchanged: the map of the same operand
/// read transposed.
AffineMap swapLastTwoResults(AffineMap map);

/// Discardable unit attribute of the `linalg.generic` that
/// rlx.grouped_matmul lowers to (out[m, n] += input[m, k] *
/// weight[expert_idx[m], k, n], the weight read in the body). On buffers a
/// target may replace the marked generic by a library call that runs one
/// GEMM per expert (rlx-linalg-to-blas); elementwise fusion leaves it whole
/// so that it keeps the form matchGroupedGemm recognizes.
inline constexpr llvm::StringLiteral kGroupedMatMulAttrName =
    "rlx.grouped_matmul";

/// The buffers of a marked grouped-matmul generic: input [M, K], weight
/// [E, K, N], expert_idx [M] (i32 or i64), output [M, N], all of one float
/// element type (no mixed-precision accumulation).
struct GroupedGemm {
  Value input, weight, expertIdx, output;
  Type elementType;
};
std::optional<GroupedGemm> matchGroupedGemm(linalg::LinalgOp op);

/// A memref of `rank` with dynamic sizes, strides and offset: a runtime
/// function taking it reads the real ones from the descriptor.
MemRefType getFullyDynamicStridedType(Type elementType, int64_t rank);

} // namespace rlx
} // namespace mlir

#endif // RLX_CONVERSION_GEMMCALLS_H
