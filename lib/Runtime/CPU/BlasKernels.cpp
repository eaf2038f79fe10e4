//===- BlasKernels.cpp - GEMM entry points called by compiled graphs ------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// `rlx-linalg-to-blas` replaces linalg matmuls by calls to these functions.
// Each computes C += A * B on strided memrefs, exactly the semantics of the
// linalg op it replaces (for rlx.grouped_matmul's generic: one such product
// per expert, on the rows of that expert). Operands with a unit stride in
// either dimension (row-major, or transposed views) go to OpenBLAS; any other
// layout takes a plain loop (same result).
//
// The f32 products have two more libraries, picked per call site at compile
// time (`rlx-linalg-to-blas`'s `f32-library` and `matmul-precision`):
// oneDNN's sgemm (`rlx_rt_*matmul_f32_onednn`), faster than OpenBLAS on the
// GEMM shapes measured in docs/perf/cpu.md, and oneDNN's matmul primitive
// on bf16 copies of both operands with f32 accumulation
// (`rlx_rt_*matmul_f32_bf16`, the opt-in `matmul-precision=bf16`).
//
// f16 and bf16 matmuls lower to products of f16/bf16 operands accumulated
// into an f32 buffer (rounded to the result type afterwards);
// `rlx_rt_*matmul_bf16_f32` runs them as oneDNN matmul primitives on the
// graph's buffers as they are (any strides, a batch in one call), made once
// per shape and layout; `rlx_rt_*matmul_f16_f32` converts the operands to
// f32 and calls oneDNN's sgemm, as oneDNN 2.6 has no f16 matmul on CPUs
// without AVX512-FP16 or AMX (MixedGemm says more); so do the products of
// an f32 and an f16/bf16 operand (`rlx_rt_*matmul_f32_bf16_f32` and kin:
// the f16/bf16 attention's probabilities times its values).
//
// OpenBLAS is opened here rather than linked, because it picks its kernels
// once, when it is loaded, from the CPU model it recognises, and a release
// that predates a CPU falls back to its baseline SSE3 kernels on it
// (OpenBLAS 0.3.21 runs Emerald Rapids Xeons, model 207, as "Prescott":
// sgemm at a quarter of the AVX-512 kernels' speed). Unless the user chose
// a core with OPENBLAS_CORETYPE, the library is opened with the core this
// CPU's instruction set supports named in that variable.
//
//===----------------------------------------------------------------------===//

#include "BlasKernels.h"

#include "rlx/Runtime/MemRefDescriptor.h"

#include <algorithm>
#include <cblas.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <tuple>
#include <vector>

using rlxrt::MemRefDescriptor;

namespace {

/// The OpenBLAS kernel set for this CPU's instruction set, for the Intel
/// CPUs that a release may not recognise by model; null where OpenBLAS's own
/// detection is trusted (other vendors, older instruction sets).
const char *openBlasCoreForThisCpu() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (!__builtin_cpu_is("intel"))
    return nullptr;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "Haswell";
#endif
  return nullptr;
}

/// The GEMMs of OpenBLAS, opened once when the runtime loads. Without the
/// library every product takes the plain loop, after one warning.
struct OpenBlas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;

  OpenBlas() {
    if (const char *core = openBlasCoreForThisCpu())
      setenv("OPENBLAS_CORETYPE", core, /*overwrite=*/0);
    void *handle = nullptr;
    for (const char *name : {"libopenblas.so.0", RLX_OPENBLAS_LIBRARY})
      if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
        break;
    if (handle) {
      sgemm = reinterpret_cast<decltype(sgemm)>(dlsym(handle, "cblas_sgemm"));
      dgemm = reinterpret_cast<decltype(dgemm)>(dlsym(handle, "cblas_dgemm"));
    }
    if (!sgemm || !dgemm)
      std::fprintf(stderr,
                   "rlx runtime: warning: OpenBLAS (libopenblas.so.0) could "
                   "not be opened (%s); matrix products run as plain loops\n",
                   handle ? "no cblas_sgemm/cblas_dgemm" : dlerror());
  }
};

const OpenBlas openBlas;

/// The library a product runs on: OpenBLAS, oneDNN's sgemm, or oneDNN's
/// matmul on bf16 copies of the operands (f32 accumulation). The last two
/// exist for f32 only.
enum class GemmLibrary { OpenBlas, OneDnnF32, OneDnnBf16 };

/// C[m,n] += A[m,k] * B[k,n] through oneDNN's matmul primitive with bf16
/// source and weights and an f32 destination: both operands are reordered
/// (converted, rounding to nearest even) into bf16 row-major scratch
/// buffers, then multiplied with the destination's old value added by a
/// sum post-op. The primitives of each shape and layout are made once and
/// kept.
class OneDnnBf16Gemm {
public:
  void run(const float *a, int64_t lda, bool transA, const float *b,
           int64_t ldb, bool transB, float *c, int64_t ldc, int64_t m,
           int64_t n, int64_t k) {
    Key key{m, n, k, lda, transA, ldb, transB, ldc};
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<Primitives> &prims = cache[key];
    if (!prims)
      prims = makePrimitives(key);
    using dnnl::memory;
    memory aF32(prims->aF32, engine, const_cast<float *>(a));
    memory bF32(prims->bF32, engine, const_cast<float *>(b));
    memory cF32(prims->c, engine, c);
    aScratch.resize(m * k);
    bScratch.resize(k * n);
    memory aBf16(prims->aBf16, engine, aScratch.data());
    memory bBf16(prims->bBf16, engine, bScratch.data());
    prims->convertA.execute(stream, aF32, aBf16);
    prims->convertB.execute(stream, bF32, bBf16);
    prims->matmul.execute(stream, {{DNNL_ARG_SRC, aBf16},
                                   {DNNL_ARG_WEIGHTS, bBf16},
                                   {DNNL_ARG_DST, cF32}});
    stream.wait();
  }

private:
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, bool, int64_t,
                         bool, int64_t>;
  struct Primitives {
    dnnl::memory::desc aF32, bF32, aBf16, bBf16, c;
    dnnl::reorder convertA, convertB;
    dnnl::matmul matmul;
  };

  /// A [rows, cols] f32 view with leading dimension `ld`, stored row-major
  /// or (`trans`) column-major.
  static dnnl::memory::desc f32View(int64_t rows, int64_t cols, int64_t ld,
                                    bool trans) {
    return dnnl::memory::desc({rows, cols}, dnnl::memory::data_type::f32,
                              trans ? dnnl::memory::dims{1, ld}
                                    : dnnl::memory::dims{ld, 1});
  }

  std::unique_ptr<Primitives> makePrimitives(const Key &key) {
    auto [m, n, k, lda, transA, ldb, transB, ldc] = key;
    using dnnl::memory;
    auto prims = std::make_unique<Primitives>();
    prims->aF32 = f32View(m, k, lda, transA);
    prims->bF32 = f32View(k, n, ldb, transB);
    prims->aBf16 =
        memory::desc({m, k}, memory::data_type::bf16, memory::format_tag::ab);
    prims->bBf16 =
        memory::desc({k, n}, memory::data_type::bf16, memory::format_tag::ab);
    prims->c = f32View(m, n, ldc, /*trans=*/false);
    prims->convertA = dnnl::reorder(dnnl::reorder::primitive_desc(
        engine, prims->aF32, engine, prims->aBf16));
    prims->convertB = dnnl::reorder(dnnl::reorder::primitive_desc(
        engine, prims->bF32, engine, prims->bBf16));
    dnnl::post_ops accumulate;
    accumulate.append_sum(1.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(accumulate);
    prims->matmul = dnnl::matmul(dnnl::matmul::primitive_desc(
        dnnl::matmul::desc(prims->aBf16, prims->bBf16, prims->c), attr,
        engine));
    return prims;
  }

  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::mutex mutex;
  std::map<Key, std::unique_ptr<Primitives>> cache;
  std::vector<uint16_t> aScratch, bScratch;
};

OneDnnBf16Gemm &oneDnnBf16Gemm() {
  static OneDnnBf16Gemm gemm;
  return gemm;
}

template <typename T>
bool gemm(GemmLibrary library, CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB,
          const T *a, const T *b, T *c, int64_t m, int64_t n, int64_t k,
          int64_t lda, int64_t ldb, int64_t ldc);

template <>
bool gemm<float>(GemmLibrary library, CBLAS_TRANSPOSE transA,
                 CBLAS_TRANSPOSE transB, const float *a, const float *b,
                 float *c, int64_t m, int64_t n, int64_t k, int64_t lda,
                 int64_t ldb, int64_t ldc) {
  switch (library) {
  case GemmLibrary::OneDnnF32:
    // Row-major, as cblas_sgemm with CblasRowMajor.
    return dnnl_sgemm(transA == CblasTrans ? 'T' : 'N',
                      transB == CblasTrans ? 'T' : 'N', m, n, k, 1.0f, a, lda,
                      b, ldb, 1.0f, c, ldc) == dnnl_success;
  case GemmLibrary::OneDnnBf16:
    oneDnnBf16Gemm().run(a, lda, transA == CblasTrans, b, ldb,
                         transB == CblasTrans, c, ldc, m, n, k);
    return true;
  case GemmLibrary::OpenBlas:
    break;
  }
  if (!openBlas.sgemm)
    return false;
  openBlas.sgemm(CblasRowMajor, transA, transB, m, n, k, 1.0f, a, lda, b, ldb,
                 1.0f, c, ldc);
  return true;
}

template <>
bool gemm<double>(GemmLibrary, CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB,
                  const double *a, const double *b, double *c, int64_t m,
                  int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  if (!openBlas.dgemm)
    return false;
  openBlas.dgemm(CblasRowMajor, transA, transB, m, n, k, 1.0, a, lda, b, ldb,
                 1.0, c, ldc);
  return true;
}

/// How BLAS reads a [rows, cols] view with `strides`: row-major (unit
/// column stride), or column-major (unit row stride, as a transposed view
/// is), with the leading dimension; none for other layouts. A single row or
/// column may carry any stride in the other dimension.
struct BlasOperand {
  CBLAS_TRANSPOSE trans;
  int64_t ld;
};
std::optional<BlasOperand> blasOperand(int64_t rows, int64_t cols,
                                       const int64_t strides[2]) {
  if ((strides[1] == 1 || cols == 1) && (rows == 1 || strides[0] >= cols))
    return BlasOperand{CblasNoTrans,
                       rows <= 1 ? std::max<int64_t>(cols, 1) : strides[0]};
  if ((strides[0] == 1 || rows == 1) && (cols == 1 || strides[1] >= rows))
    return BlasOperand{CblasTrans,
                       cols <= 1 ? std::max<int64_t>(rows, 1) : strides[1]};
  return std::nullopt;
}

/// C[m,n] += A[m,k] * B[k,n] on one matrix each, given as base pointers and
/// 2-D strides.
template <typename T>
void matmul2d(const T *a, const int64_t aStrides[2], const T *b,
              const int64_t bStrides[2], T *c, const int64_t cStrides[2],
              int64_t m, int64_t n, int64_t k,
              GemmLibrary library = GemmLibrary::OpenBlas) {
  if (m == 0 || n == 0 || k == 0)
    return;
  std::optional<BlasOperand> lhs = blasOperand(m, k, aStrides);
  std::optional<BlasOperand> rhs = blasOperand(k, n, bStrides);
  std::optional<BlasOperand> out = blasOperand(m, n, cStrides);
  if (lhs && rhs && out && out->trans == CblasNoTrans &&
      gemm<T>(library, lhs->trans, rhs->trans, a, b, c, m, n, k, lhs->ld,
              rhs->ld, out->ld))
    return;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      T av = a[i * aStrides[0] + p * aStrides[1]];
      for (int64_t j = 0; j < n; ++j)
        c[i * cStrides[0] + j * cStrides[1]] +=
            av * b[p * bStrides[0] + j * bStrides[1]];
    }
}

template <typename T>
void matmul(MemRefDescriptor<T, 2> *a, MemRefDescriptor<T, 2> *b,
            MemRefDescriptor<T, 2> *c,
            GemmLibrary library = GemmLibrary::OpenBlas) {
  matmul2d<T>(a->data(), a->strides, b->data(), b->strides, c->data(),
              c->strides, c->sizes[0], c->sizes[1], a->sizes[1], library);
}

template <typename T>
void batchMatmul(MemRefDescriptor<T, 3> *a, MemRefDescriptor<T, 3> *b,
                 MemRefDescriptor<T, 3> *c,
                 GemmLibrary library = GemmLibrary::OpenBlas) {
  for (int64_t batch = 0; batch < c->sizes[0]; ++batch)
    matmul2d<T>(a->data() + batch * a->strides[0], a->strides + 1,
                b->data() + batch * b->strides[0], b->strides + 1,
                c->data() + batch * c->strides[0], c->strides + 1, c->sizes[1],
                c->sizes[2], a->sizes[2], library);
}

/// out[m] += input[m] * weight[expertIdx[m]] for every row m whose expert
/// id is in [0, E), one GEMM per expert: rows of one expert that form one
/// contiguous run are multiplied in place; otherwise each expert's rows are
/// gathered into a packed [rows, K] block, multiplied into a zeroed
/// [rows, N] block, and added back to their rows of `out`.
template <typename T, typename I>
void groupedMatmul(MemRefDescriptor<T, 2> *input,
                   MemRefDescriptor<T, 3> *weight,
                   MemRefDescriptor<I, 1> *expertIdx,
                   MemRefDescriptor<T, 2> *out) {
  int64_t rows = input->sizes[0], k = input->sizes[1];
  int64_t experts = weight->sizes[0], n = weight->sizes[2];
  if (rows == 0 || k == 0 || n == 0 || experts == 0)
    return;
  const I *ids = expertIdx->data();
  int64_t idStride = expertIdx->strides[0];
  auto expertOf = [&](int64_t row) -> int64_t {
    int64_t id = static_cast<int64_t>(ids[row * idStride]);
    return id >= 0 && id < experts ? id : -1;
  };

  // Each expert's rows, in order, and whether they form one run.
  std::vector<std::vector<int64_t>> rowsOf(experts);
  for (int64_t row = 0; row < rows; ++row)
    if (int64_t expert = expertOf(row); expert >= 0)
      rowsOf[expert].push_back(row);

  const T *x = input->data();
  T *c = out->data();
  std::vector<T> packedInput, packedOut;
  for (int64_t expert = 0; expert < experts; ++expert) {
    const std::vector<int64_t> &group = rowsOf[expert];
    if (group.empty())
      continue;
    int64_t count = static_cast<int64_t>(group.size());
    const T *w = weight->data() + expert * weight->strides[0];
    if (group.back() - group.front() + 1 == count) {
      matmul2d<T>(x + group.front() * input->strides[0], input->strides, w,
                  weight->strides + 1, c + group.front() * out->strides[0],
                  out->strides, count, n, k);
      continue;
    }
    packedInput.resize(count * k);
    packedOut.assign(count * n, T(0));
    for (int64_t r = 0; r < count; ++r)
      for (int64_t p = 0; p < k; ++p)
        packedInput[r * k + p] =
            x[group[r] * input->strides[0] + p * input->strides[1]];
    const int64_t packedInputStrides[2] = {k, 1};
    const int64_t packedOutStrides[2] = {n, 1};
    matmul2d<T>(packedInput.data(), packedInputStrides, w, weight->strides + 1,
                packedOut.data(), packedOutStrides, count, n, k);
    for (int64_t r = 0; r < count; ++r)
      for (int64_t j = 0; j < n; ++j)
        c[group[r] * out->strides[0] + j * out->strides[1]] +=
            packedOut[r * n + j];
  }
}

/// The element type of an operand of a mixed-precision product.
enum class Elem { F32, F16, Bf16 };

/// A matrix operand of a mixed-precision product: [batch, rows, cols]
/// (batch 1 for a 2-D memref) with element strides.
struct MixedOperand {
  void *data;
  Elem type;
  int64_t sizes[3];
  int64_t strides[3];

  template <typename T, int Rank>
  static MixedOperand of(MemRefDescriptor<T, Rank> *d, Elem type) {
    static_assert(Rank == 2 || Rank == 3);
    MixedOperand op{d->data(), type, {1, 0, 0}, {0, 0, 0}};
    for (int i = 0; i < Rank; ++i) {
      op.sizes[3 - Rank + i] = d->sizes[i];
      op.strides[3 - Rank + i] = d->strides[i];
    }
    // A dim of size 1 may carry any stride (0, or a collapsed view's); give
    // it one past the others, a layout oneDNN's kernels accept.
    for (int i = 0; i < 3; ++i)
      if (op.sizes[i] == 1) {
        int64_t past = 1;
        for (int j = 0; j < 3; ++j)
          if (j != i && op.sizes[j] > 1)
            past = std::max(past, op.sizes[j] * op.strides[j]);
        op.strides[i] = past;
      }
    return op;
  }

  /// The element at [batch, row, col], as f32 (exact for every type).
  float load(int64_t batch, int64_t row, int64_t col) const;
};

float bf16ToFloat(uint16_t bits) {
  uint32_t word = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &word, sizeof(value));
  return value;
}

float f16ToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
  float magnitude;
  if (exponent == 0x1F)
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN()
                         : std::numeric_limits<float>::infinity();
  else if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400),
                           static_cast<int>(exponent) - 25);
  uint32_t word;
  std::memcpy(&word, &magnitude, sizeof(word));
  word |= sign;
  std::memcpy(&magnitude, &word, sizeof(word));
  return magnitude;
}

float MixedOperand::load(int64_t batch, int64_t row, int64_t col) const {
  int64_t at = batch * strides[0] + row * strides[1] + col * strides[2];
  if (type == Elem::F32)
    return static_cast<const float *>(data)[at];
  uint16_t bits = static_cast<const uint16_t *>(data)[at];
  return type == Elem::Bf16 ? bf16ToFloat(bits) : f16ToFloat(bits);
}

#if defined(__x86_64__)
/// f16 -> f32 of `count` contiguous values, 8 per F16C instruction.
__attribute__((target("avx,f16c"))) void
f16ToFloatF16c(const uint16_t *src, float *dst, int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                  reinterpret_cast<const __m128i *>(src + i))));
  for (; i < count; ++i)
    dst[i] = f16ToFloat(src[i]);
}
#endif

/// f16 or bf16 -> f32 of `count` contiguous values.
void halfRunToFloat(Elem type, const uint16_t *src, float *dst, int64_t count) {
  if (type == Elem::Bf16) {
    for (int64_t i = 0; i < count; ++i)
      dst[i] = bf16ToFloat(src[i]);
    return;
  }
#if defined(__x86_64__)
  static const bool f16c = __builtin_cpu_supports("f16c");
  if (f16c)
    return f16ToFloatF16c(src, dst, count);
#endif
  for (int64_t i = 0; i < count; ++i)
    dst[i] = f16ToFloat(src[i]);
}

/// The f32 matrix `batch` of `op` ([rows, cols]) for sgemm: an f32 operand
/// as it is, an f16/bf16 one as a dense f32 copy in `scratch`, in the same
/// orientation where one stride is 1 (so a transposed view stays a
/// transposed operand). Returns its data; its strides go to `strides`.
const float *floatMatrix(const MixedOperand &op, int64_t batch,
                         std::vector<float> &scratch, int64_t strides[2]) {
  int64_t rows = op.sizes[1], cols = op.sizes[2];
  if (op.type == Elem::F32) {
    strides[0] = op.strides[1];
    strides[1] = op.strides[2];
    return static_cast<const float *>(op.data) + batch * op.strides[0];
  }
  const uint16_t *src =
      static_cast<const uint16_t *>(op.data) + batch * op.strides[0];
  scratch.resize(rows * cols);
  float *dst = scratch.data();
  if (op.strides[2] == 1) {
    for (int64_t r = 0; r < rows; ++r)
      halfRunToFloat(op.type, src + r * op.strides[1], dst + r * cols, cols);
    strides[0] = cols;
    strides[1] = 1;
  } else if (op.strides[1] == 1) {
    for (int64_t c = 0; c < cols; ++c)
      halfRunToFloat(op.type, src + c * op.strides[2], dst + c * rows, rows);
    strides[0] = 1;
    strides[1] = rows;
  } else {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        dst[r * cols + c] = op.load(batch, r, c);
    strides[0] = cols;
    strides[1] = 1;
  }
  return dst;
}

/// C[b] += A[b] * B[b] for an f32 C and f16, bf16 or f32 A and B, at least
/// one of them f16/bf16, each batch matrix [M, K] x [K, N] with any strides:
/// the products the f16/bf16 lowerings accumulate in f32 (matmuls, C zeros
/// before the first product; the attention's probabilities, f32, times its
/// values).
///
/// bf16 A and B: one oneDNN matmul primitive over the whole batch, reading
/// the graph's buffers in their layout (a transposed weight through its
/// strides) and adding to C by a sum post-op; its `avx512_core_bf16`
/// kernels (vdpbf16ps, f32 accumulation) run at about 1.6x oneDNN's f32
/// speed on the CPU of docs/perf/cpu.md. The primitives are made once per
/// shape and layout (the key: sizes and strides of the three operands) and
/// kept per thread, as the convolutions' are (DnnlConvolution.cpp); they
/// hold no pointer to a graph buffer (docs/architecture.md, "Buffers
/// handed to libraries").
///
/// Otherwise the f16/bf16 operands are converted to f32 copies here (F16C
/// for f16) and multiplied by oneDNN's sgemm, the same f32 accumulation:
/// oneDNN 2.6 has no f16 matmul on CPUs without AVX512-FP16 or AMX, nor
/// one of mixed operand types, and its f16 -> f32 reorder is a scalar loop
/// (20 ms for a 768 x 768 weight).
///
/// What oneDNN refuses runs as a plain loop (the same result up to the
/// order of the additions); it refuses before writing C.
class MixedGemm {
public:
  static void run(const MixedOperand &a, const MixedOperand &b,
                  const MixedOperand &c) {
    int64_t batch = c.sizes[0], m = c.sizes[1], n = c.sizes[2], k = a.sizes[2];
    if (batch == 0 || m == 0 || n == 0 || k == 0)
      return;
    try {
      if (a.type != Elem::Bf16 || b.type != Elem::Bf16)
        return throughF32(a, b, c);
      thread_local MixedGemm context;
      return context.bf16(a, b, c);
    } catch (const dnnl::error &) {
    } catch (const std::bad_alloc &) {
    }
    loop(a, b, c);
  }

private:
  static dnnl::memory::desc describe(const MixedOperand &op,
                                     dnnl::memory::data_type type) {
    return dnnl::memory::desc({op.sizes[0], op.sizes[1], op.sizes[2]}, type,
                              {op.strides[0], op.strides[1], op.strides[2]});
  }

  void bf16(const MixedOperand &a, const MixedOperand &b,
            const MixedOperand &c) {
    using dnnl::memory;
    std::vector<int64_t> key;
    for (const MixedOperand *op : {&a, &b, &c})
      key.insert(key.end(), {op->sizes[0], op->sizes[1], op->sizes[2],
                             op->strides[0], op->strides[1], op->strides[2]});
    std::optional<dnnl::matmul> &matmul = cache[key];
    if (!matmul) {
      dnnl::post_ops accumulate;
      accumulate.append_sum(1.0f);
      dnnl::primitive_attr attr;
      attr.set_post_ops(accumulate);
      matmul = dnnl::matmul(dnnl::matmul::primitive_desc(
          dnnl::matmul::desc(describe(a, memory::data_type::bf16),
                             describe(b, memory::data_type::bf16),
                             describe(c, memory::data_type::f32)),
          attr, engine));
    }
    memory aMem(describe(a, memory::data_type::bf16), engine, a.data);
    memory bMem(describe(b, memory::data_type::bf16), engine, b.data);
    memory cMem(describe(c, memory::data_type::f32), engine, c.data);
    matmul->execute(
        stream,
        {{DNNL_ARG_SRC, aMem}, {DNNL_ARG_WEIGHTS, bMem}, {DNNL_ARG_DST, cMem}});
    stream.wait();
  }

  static void throughF32(const MixedOperand &a, const MixedOperand &b,
                         const MixedOperand &c) {
    thread_local std::vector<float> aScratch, bScratch;
    for (int64_t i = 0; i < c.sizes[0]; ++i) {
      int64_t aStrides[2], bStrides[2];
      const float *aF32 = floatMatrix(a, i, aScratch, aStrides);
      const float *bF32 = floatMatrix(b, i, bScratch, bStrides);
      matmul2d<float>(aF32, aStrides, bF32, bStrides,
                      static_cast<float *>(c.data) + i * c.strides[0],
                      c.strides + 1, c.sizes[1], c.sizes[2], a.sizes[2],
                      GemmLibrary::OneDnnF32);
    }
  }

  static void loop(const MixedOperand &a, const MixedOperand &b,
                   const MixedOperand &c) {
    float *out = static_cast<float *>(c.data);
    for (int64_t i = 0; i < c.sizes[0]; ++i)
      for (int64_t r = 0; r < c.sizes[1]; ++r)
        for (int64_t p = 0; p < a.sizes[2]; ++p) {
          float av = a.load(i, r, p);
          for (int64_t col = 0; col < c.sizes[2]; ++col)
            out[i * c.strides[0] + r * c.strides[1] + col * c.strides[2]] +=
                av * b.load(i, p, col);
        }
  }

  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::map<std::vector<int64_t>, std::optional<dnnl::matmul>> cache;
};

} // namespace

void rlxrt::sgemmAccumulate(bool transposeB, const float *a, int64_t lda,
                            const float *b, int64_t ldb, float *c, int64_t ldc,
                            int64_t m, int64_t n, int64_t k) {
  const int64_t aStrides[2] = {lda, 1};
  const int64_t bStrides[2] = {transposeB ? 1 : ldb, transposeB ? ldb : 1};
  const int64_t cStrides[2] = {ldc, 1};
  matmul2d<float>(a, aStrides, b, bStrides, c, cStrides, m, n, k);
}

extern "C" {

#define RLX_GROUPED_MATMUL(FLOAT, FSUFFIX, INT, ISUFFIX)                       \
  void _mlir_ciface_rlx_rt_grouped_matmul_##FSUFFIX##_##ISUFFIX(               \
      MemRefDescriptor<FLOAT, 2> *input, MemRefDescriptor<FLOAT, 3> *weight,   \
      MemRefDescriptor<INT, 1> *expertIdx, MemRefDescriptor<FLOAT, 2> *out) {  \
    groupedMatmul(input, weight, expertIdx, out);                              \
  }
RLX_GROUPED_MATMUL(float, f32, int32_t, i32)
RLX_GROUPED_MATMUL(float, f32, int64_t, i64)
RLX_GROUPED_MATMUL(double, f64, int32_t, i32)
RLX_GROUPED_MATMUL(double, f64, int64_t, i64)
#undef RLX_GROUPED_MATMUL

void _mlir_ciface_rlx_rt_matmul_f32(MemRefDescriptor<float, 2> *a,
                                    MemRefDescriptor<float, 2> *b,
                                    MemRefDescriptor<float, 2> *c) {
  matmul(a, b, c);
}

void _mlir_ciface_rlx_rt_matmul_f64(MemRefDescriptor<double, 2> *a,
                                    MemRefDescriptor<double, 2> *b,
                                    MemRefDescriptor<double, 2> *c) {
  matmul(a, b, c);
}

void _mlir_ciface_rlx_rt_batch_matmul_f32(MemRefDescriptor<float, 3> *a,
                                          MemRefDescriptor<float, 3> *b,
                                          MemRefDescriptor<float, 3> *c) {
  batchMatmul(a, b, c);
}

void _mlir_ciface_rlx_rt_batch_matmul_f64(MemRefDescriptor<double, 3> *a,
                                          MemRefDescriptor<double, 3> *b,
                                          MemRefDescriptor<double, 3> *c) {
  batchMatmul(a, b, c);
}

void _mlir_ciface_rlx_rt_matmul_f32_onednn(MemRefDescriptor<float, 2> *a,
                                           MemRefDescriptor<float, 2> *b,
                                           MemRefDescriptor<float, 2> *c) {
  matmul(a, b, c, GemmLibrary::OneDnnF32);
}

void _mlir_ciface_rlx_rt_batch_matmul_f32_onednn(
    MemRefDescriptor<float, 3> *a, MemRefDescriptor<float, 3> *b,
    MemRefDescriptor<float, 3> *c) {
  batchMatmul(a, b, c, GemmLibrary::OneDnnF32);
}

void _mlir_ciface_rlx_rt_matmul_f32_bf16(MemRefDescriptor<float, 2> *a,
                                         MemRefDescriptor<float, 2> *b,
                                         MemRefDescriptor<float, 2> *c) {
  matmul(a, b, c, GemmLibrary::OneDnnBf16);
}

void _mlir_ciface_rlx_rt_batch_matmul_f32_bf16(MemRefDescriptor<float, 3> *a,
                                               MemRefDescriptor<float, 3> *b,
                                               MemRefDescriptor<float, 3> *c) {
  batchMatmul(a, b, c, GemmLibrary::OneDnnBf16);
}

// f16/bf16 products accumulated in f32: `<lhs>_<rhs>_f32`, or `<type>_f32`
// where both operands have one type.
#define RLX_MIXED_MATMUL(NAME, A, TA, B, TB, RANK)                             \
  void _mlir_ciface_rlx_rt_##NAME(MemRefDescriptor<A, RANK> *a,                \
                                  MemRefDescriptor<B, RANK> *b,                \
                                  MemRefDescriptor<float, RANK> *c) {          \
    MixedGemm::run(MixedOperand::of(a, Elem::TA),                              \
                   MixedOperand::of(b, Elem::TB),                              \
                   MixedOperand::of(c, Elem::F32));                            \
  }
#define RLX_MIXED_MATMULS(NAME, A, TA, B, TB)                                  \
  RLX_MIXED_MATMUL(matmul_##NAME, A, TA, B, TB, 2)                             \
  RLX_MIXED_MATMUL(batch_matmul_##NAME, A, TA, B, TB, 3)
RLX_MIXED_MATMULS(bf16_f32, uint16_t, Bf16, uint16_t, Bf16)
RLX_MIXED_MATMULS(f16_f32, uint16_t, F16, uint16_t, F16)
RLX_MIXED_MATMULS(f32_bf16_f32, float, F32, uint16_t, Bf16)
RLX_MIXED_MATMULS(bf16_f32_f32, uint16_t, Bf16, float, F32)
RLX_MIXED_MATMULS(f32_f16_f32, float, F32, uint16_t, F16)
RLX_MIXED_MATMULS(f16_f32_f32, uint16_t, F16, float, F32)
#undef RLX_MIXED_MATMULS
#undef RLX_MIXED_MATMUL

} // extern "C"
