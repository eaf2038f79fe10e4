//===- QuantGemm.cpp - quantized GEMMs that decode per tile ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.dequant_matmul of the int8/int4 block schemes and of GGUF q4_0 and
// q8_0, called from compiled graphs (rlx-cpu-lower-quant-matmul). The
// weight is never decoded whole:
//
// - Up to kMaxFusedRows rows of x (decoding a token, a GEMV-like product
//   bound by memory bandwidth), each thread takes a range of output
//   columns, decodes their packed blocks into registers-sized scratch and
//   accumulates the dot products at once, so the packed bytes are read
//   once and nothing else is written.
// - More rows: the weight is decoded one panel of columns at a time (a
//   panel of at most kPanelBytes of f32, so it stays in L2) and each panel
//   multiplied by OpenBLAS's sgemm, which runs on its own threads, into its
//   columns of the result. The decode runs on the calling thread: an
//   OpenMP region beside OpenBLAS's threads leaves its workers spinning
//   through the sgemm (KMP_BLOCKTIME), which made the whole product about
//   twice as slow on a 2-core machine.
//
// Each format's decode is one function here (decodeQ4_0, decodeQ8_0,
// decodeBlockRow), used by both paths. The lowering's decoder emits IR and
// cannot run here, so these formats have a second, C++ statement of the
// same formulas: both follow docs/quantization.md step by step (one f32
// operation per step, no contraction into FMAs), so the decoded weights
// are bit-identical to the IR decoder's
// (lib/Conversion/RLXToLinalg/DequantToLinalg.cpp) and to the tests' NumPy
// reference. Only the summation order of the products differs from a
// decode-then-GEMM: the fused path keeps 32 (GGUF) or one (block schemes)
// partial sums per output and adds them at the end.
//
// The fused kernels and the panel decoders are compiled for AVX-512
// (x86-64-v4), for AVX2 with FMA (x86-64-v3) and for the baseline
// instruction set, and the loader picks the one this CPU runs
// (target_clones).
//
//===----------------------------------------------------------------------===//

#include "BlasKernels.h"

#include "rlx/Runtime/QuantGemm.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

using rlxrt::QuantGemmFormat;

namespace {

/// Elements and bytes of a GGUF q4_0 / q8_0 block.
constexpr int64_t kGgufElements = 32;
constexpr int64_t kQ4_0Bytes = 18;
constexpr int64_t kQ8_0Bytes = 34;
/// Rows of x up to which the fused path runs; more take the panel GEMM.
constexpr int64_t kMaxFusedRows = 8;
/// Output columns per task of the fused block-scheme kernel.
constexpr int64_t kFusedColumns = 64;
/// The decoded f32 bytes of one panel of the GEMM path (half of a 2 MiB
/// L2, leaving room for the sgemm's packed blocks of x).
constexpr int64_t kPanelBytes = 1 << 20;

// The helpers are forced inline so that each clone of a kernel compiles
// them for its own instruction set.
#define RLX_INLINE inline __attribute__((always_inline))

#if defined(__x86_64__) && defined(__clang__)
#define RLX_MULTIVERSIONED                                                     \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define RLX_MULTIVERSIONED
#endif

/// The little-endian IEEE half at `p`, widened to f32 (exactly).
RLX_INLINE float halfToFloat(const uint8_t *p) {
  uint32_t h = p[0] | uint32_t(p[1]) << 8;
  uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 31,
           mantissa = h & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in f32.
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  uint32_t bits = exponent == 31
                      ? sign | 0x7f800000u | mantissa << 13
                      : sign | (exponent + 112) << 23 | mantissa << 13;
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// The 32 weights of a q4_0 block: f32(q - 8) * d.
RLX_INLINE void decodeQ4_0(const uint8_t *block, float *out) {
  float d = halfToFloat(block);
  const uint8_t *qs = block + 2;
  for (int j = 0; j < 16; ++j) {
    out[j] = static_cast<float>((qs[j] & 15) - 8) * d;
    out[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
  }
}

/// The 32 weights of a q8_0 block: f32(q) * d.
RLX_INLINE void decodeQ8_0(const uint8_t *block, float *out) {
  float d = halfToFloat(block);
  const int8_t *qs = reinterpret_cast<const int8_t *>(block + 2);
  for (int j = 0; j < 32; ++j)
    out[j] = static_cast<float>(qs[j]) * d;
}

template <QuantGemmFormat F> constexpr int64_t ggufBlockBytes() {
  return F == QuantGemmFormat::GgufQ4_0 ? kQ4_0Bytes : kQ8_0Bytes;
}

template <QuantGemmFormat F>
RLX_INLINE void decodeGgufBlock(const uint8_t *block, float *out) {
  if constexpr (F == QuantGemmFormat::GgufQ4_0)
    decodeQ4_0(block, out);
  else
    decodeQ8_0(block, out);
}

/// An int8/int4 block-scheme weight W [K, N] and its scales.
struct BlockWeight {
  bool nibbles;
  const uint8_t *w;
  const float *scale, *zeroPoint;
  int64_t n, blockSize;
};

/// W[row, n0 .. n0 + width) of a block-scheme weight: (f32(q) - zp) * scale
/// (f32(q) * scale without a zero point). For nibbles `n0` and `width` are
/// even.
RLX_INLINE void decodeBlockRow(const BlockWeight &wt, int64_t row, int64_t n0,
                               int64_t width, float *out) {
  if (wt.nibbles) {
    const uint8_t *bytes = wt.w + row * (wt.n / 2) + n0 / 2;
    for (int64_t p = 0; p < width / 2; ++p) {
      out[2 * p] = static_cast<float>(bytes[p] & 15);
      out[2 * p + 1] = static_cast<float>(bytes[p] >> 4);
    }
  } else {
    const int8_t *q = reinterpret_cast<const int8_t *>(wt.w) + row * wt.n + n0;
    for (int64_t j = 0; j < width; ++j)
      out[j] = static_cast<float>(q[j]);
  }
  int64_t at = row / wt.blockSize * wt.n + n0;
  const float *scale = wt.scale + at;
  if (wt.zeroPoint) {
    const float *zeroPoint = wt.zeroPoint + at;
    for (int64_t j = 0; j < width; ++j)
      out[j] = (out[j] - zeroPoint[j]) * scale[j];
  } else {
    for (int64_t j = 0; j < width; ++j)
      out[j] *= scale[j];
  }
}

/// out[r, col] = sum_k x[r, k] W[k, col] for one GGUF column and `M` rows
/// of x: 32 partial sums per row (in registers), one per position in the
/// block.
template <QuantGemmFormat F, int M>
RLX_INLINE void fusedGgufColumnRows(const float *x, const uint8_t *column,
                                    float *out, int64_t n, int64_t k) {
  float acc[M][kGgufElements] = {};
  float w[kGgufElements];
  for (int64_t b = 0; b < k / kGgufElements; ++b) {
    decodeGgufBlock<F>(column + b * ggufBlockBytes<F>(), w);
    const float *xb = x + b * kGgufElements;
    for (int r = 0; r < M; ++r)
      for (int j = 0; j < kGgufElements; ++j)
        acc[r][j] += xb[r * k + j] * w[j];
  }
  for (int r = 0; r < M; ++r) {
    float sum = 0;
    for (int j = 0; j < kGgufElements; ++j)
      sum += acc[r][j];
    out[r * n] = sum;
  }
}

/// The above for `m` (M .. kMaxFusedRows) rows, with `m` a constant.
template <QuantGemmFormat F, int M = 1>
RLX_INLINE void fusedGgufColumn(const float *x, const uint8_t *column,
                                float *out, int64_t m, int64_t n, int64_t k) {
  if constexpr (M < kMaxFusedRows)
    if (m > M)
      return fusedGgufColumn<F, M + 1>(x, column, out, m, n, k);
  fusedGgufColumnRows<F, M>(x, column, out, n, k);
}

RLX_MULTIVERSIONED
void fusedQ4_0Column(const float *x, const uint8_t *column, float *out,
                     int64_t m, int64_t n, int64_t k) {
  fusedGgufColumn<QuantGemmFormat::GgufQ4_0>(x, column, out, m, n, k);
}

RLX_MULTIVERSIONED
void fusedQ8_0Column(const float *x, const uint8_t *column, float *out,
                     int64_t m, int64_t n, int64_t k) {
  fusedGgufColumn<QuantGemmFormat::GgufQ8_0>(x, column, out, m, n, k);
}

/// out[r, n0 .. n0 + width) for a block-scheme weight (`m` <=
/// kMaxFusedRows, `width` <= kFusedColumns), decoding one row of the
/// column range at a time.
RLX_MULTIVERSIONED
void fusedBlockColumns(const BlockWeight &wt, const float *x, float *out,
                       int64_t m, int64_t k, int64_t n0, int64_t width) {
  float acc[kMaxFusedRows][kFusedColumns] = {};
  float w[kFusedColumns];
  for (int64_t row = 0; row < k; ++row) {
    decodeBlockRow(wt, row, n0, width, w);
    for (int64_t r = 0; r < m; ++r) {
      float xv = x[r * k + row];
      for (int64_t j = 0; j < width; ++j)
        acc[r][j] += xv * w[j];
    }
  }
  for (int64_t r = 0; r < m; ++r)
    std::memcpy(out + r * wt.n + n0, acc[r], width * sizeof(float));
}

/// The `k` weights of one GGUF column (a row of the bytes) into `out`.
RLX_MULTIVERSIONED
void decodeQ4_0Column(const uint8_t *column, int64_t k, float *out) {
  for (int64_t b = 0; b < k / kGgufElements; ++b)
    decodeQ4_0(column + b * kQ4_0Bytes, out + b * kGgufElements);
}

RLX_MULTIVERSIONED
void decodeQ8_0Column(const uint8_t *column, int64_t k, float *out) {
  for (int64_t b = 0; b < k / kGgufElements; ++b)
    decodeQ8_0(column + b * kQ8_0Bytes, out + b * kGgufElements);
}

/// decodeBlockRow, compiled for each instruction set.
RLX_MULTIVERSIONED
void decodePanelRow(const BlockWeight &wt, int64_t row, int64_t n0,
                    int64_t width, float *out) {
  decodeBlockRow(wt, row, n0, width, out);
}

/// Columns per decoded panel: kPanelBytes of f32 rows of `k`, a multiple
/// of 16 (at least 16), at most `n`.
int64_t panelColumns(int64_t n, int64_t k) {
  int64_t columns = kPanelBytes / (4 * std::max<int64_t>(k, 1)) / 16 * 16;
  return std::min(std::max<int64_t>(columns, 16), n);
}

/// out [M, N] = x [M, K] * W, one panel of columns at a time:
/// `decodePanel(n0, width, panel)` writes W[:, n0 .. n0 + width) into
/// `panel`, as [width, K] rows (`transposed`) or [K, width].
template <typename DecodePanel>
void panelMatmul(bool transposed, const float *x, float *out, int64_t m,
                 int64_t n, int64_t k, DecodePanel decodePanel) {
  int64_t columns = panelColumns(n, k);
  std::vector<float> panel(columns * k);
  std::fill(out, out + m * n, 0.0f);
  for (int64_t n0 = 0; n0 < n; n0 += columns) {
    int64_t width = std::min(columns, n - n0);
    decodePanel(n0, width, panel.data());
    rlxrt::sgemmAccumulate(transposed, x, k, panel.data(),
                           transposed ? k : width, out + n0, n, m, width, k);
  }
}

template <QuantGemmFormat F>
void ggufMatmul(const float *x, const uint8_t *w, float *out, int64_t m,
                int64_t n, int64_t k) {
  int64_t rowBytes = k / kGgufElements * ggufBlockBytes<F>();
  if (m <= kMaxFusedRows) {
    auto column =
        F == QuantGemmFormat::GgufQ4_0 ? fusedQ4_0Column : fusedQ8_0Column;
#pragma omp parallel for schedule(static)
    for (int64_t col = 0; col < n; ++col)
      column(x, w + col * rowBytes, out + col, m, n, k);
    return;
  }
  // The panel holds W^T: rows of K, as the bytes store them; the sgemm
  // reads it transposed.
  auto decodeColumn =
      F == QuantGemmFormat::GgufQ4_0 ? decodeQ4_0Column : decodeQ8_0Column;
  panelMatmul(/*transposed=*/true, x, out, m, n, k,
              [&](int64_t n0, int64_t width, float *panel) {
                for (int64_t c = 0; c < width; ++c)
                  decodeColumn(w + (n0 + c) * rowBytes, k, panel + c * k);
              });
}

void blockMatmul(const BlockWeight &wt, const float *x, float *out, int64_t m,
                 int64_t k) {
  int64_t n = wt.n;
  if (m <= kMaxFusedRows) {
    int64_t tasks = (n + kFusedColumns - 1) / kFusedColumns;
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < tasks; ++t) {
      int64_t n0 = t * kFusedColumns;
      fusedBlockColumns(wt, x, out, m, k, n0, std::min(kFusedColumns, n - n0));
    }
    return;
  }
  // The panel is W[:, n0 .. n0 + width) row-major; panel widths are
  // multiples of 16 (or all of N, which is even for nibbles).
  panelMatmul(/*transposed=*/false, x, out, m, n, k,
              [&](int64_t n0, int64_t width, float *panel) {
                for (int64_t row = 0; row < k; ++row)
                  decodePanelRow(wt, row, n0, width, panel + row * width);
              });
}

template <typename T> const T *pointer(int64_t address) {
  return reinterpret_cast<const T *>(static_cast<intptr_t>(address));
}

} // namespace

extern "C" {

/// out [M, N] = x [M, K] * W [K, N]; see include/rlx/Runtime/QuantGemm.h.
void rlx_rt_quant_matmul(int64_t format, int64_t x, int64_t w, int64_t scale,
                         int64_t zeroPoint, int64_t out, int64_t m, int64_t n,
                         int64_t k, int64_t blockSize) {
  float *result = reinterpret_cast<float *>(static_cast<intptr_t>(out));
  if (m <= 0 || n <= 0)
    return;
  if (k <= 0) {
    std::fill(result, result + m * n, 0.0f);
    return;
  }
  const float *xs = pointer<float>(x);
  const uint8_t *bytes = pointer<uint8_t>(w);
  switch (static_cast<QuantGemmFormat>(format)) {
  case QuantGemmFormat::GgufQ4_0:
    ggufMatmul<QuantGemmFormat::GgufQ4_0>(xs, bytes, result, m, n, k);
    return;
  case QuantGemmFormat::GgufQ8_0:
    ggufMatmul<QuantGemmFormat::GgufQ8_0>(xs, bytes, result, m, n, k);
    return;
  case QuantGemmFormat::Int8Block:
  case QuantGemmFormat::Int4Block: {
    BlockWeight wt{static_cast<QuantGemmFormat>(format) ==
                       QuantGemmFormat::Int4Block,
                   bytes,
                   pointer<float>(scale),
                   pointer<float>(zeroPoint),
                   n,
                   blockSize};
    blockMatmul(wt, xs, result, m, k);
    return;
  }
  }
}

} // extern "C"
