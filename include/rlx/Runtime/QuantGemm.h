//===- QuantGemm.h - the CPU runtime's quantized GEMM entry point ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-cpu-lower-quant-matmul replaces rlx.dequant_matmul of the formats
// below by a call of rlx_rt_quant_matmul (lib/Runtime/CPU/QuantGemm.cpp),
// which decodes the packed weight one tile at a time beside the GEMM. The
// numbering is shared by the pass and the runtime; it is part of the
// compiled graphs' ABI, so values are never reused.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_QUANTGEMM_H
#define RLX_RUNTIME_QUANTGEMM_H

#include <cstdint>

namespace rlxrt {

/// The weight formats of rlx_rt_quant_matmul (docs/quantization.md).
enum class QuantGemmFormat : int64_t {
  /// i8 [K, N], f32 scale [ceil(K / block), N], optional f32 zero point.
  Int8Block = 0,
  /// u8 [K, N / 2] of nibbles, scales as Int8Block.
  Int4Block = 1,
  /// GGUF bytes: N rows of K / 32 blocks of 18 bytes.
  GgufQ4_0 = 2,
  /// GGUF bytes: N rows of K / 32 blocks of 34 bytes.
  GgufQ8_0 = 3,
};

} // namespace rlxrt

/// The name of the entry point, as compiled graphs call it:
///
///   void rlx_rt_quant_matmul(int64_t format, int64_t x, int64_t w,
///                            int64_t scale, int64_t zeroPoint, int64_t out,
///                            int64_t m, int64_t n, int64_t k,
///                            int64_t blockSize);
///
/// `x` [M, K] and `out` [M, N] are row-major f32, `w`, `scale` and
/// `zeroPoint` the packed operands (0 where absent; `blockSize` 0 for the
/// GGUF formats). Pointers travel as integers. `out` is overwritten.
#define RLX_RT_QUANT_MATMUL_NAME "rlx_rt_quant_matmul"

#endif // RLX_RUNTIME_QUANTGEMM_H
