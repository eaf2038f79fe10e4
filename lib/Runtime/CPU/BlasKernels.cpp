//===- BlasKernels.cpp - GEMM entry points called by compiled graphs ------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// `rlx-linalg-to-blas` replaces linalg matmuls by calls to these functions.
// Each computes C += A * B on strided memrefs, exactly the semantics of the
// linalg op it replaces. Row-major operands with unit inner stride go to
// OpenBLAS; any other layout takes a plain loop (same result).
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/MemRefDescriptor.h"

#include <algorithm>
#include <cblas.h>

using rlxrt::MemRefDescriptor;

namespace {

template <typename T>
void gemm(const T *a, const T *b, T *c, int64_t m, int64_t n, int64_t k,
          int64_t lda, int64_t ldb, int64_t ldc);

template <>
void gemm<float>(const float *a, const float *b, float *c, int64_t m, int64_t n,
                 int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, lda,
              b, ldb, 1.0f, c, ldc);
}

template <>
void gemm<double>(const double *a, const double *b, double *c, int64_t m,
                  int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, lda,
              b, ldb, 1.0, c, ldc);
}

/// The leading dimension BLAS needs for a [rows, cols] view with `stride`
/// between rows; a single row may carry any stride.
int64_t leadingDim(int64_t rows, int64_t cols, int64_t stride) {
  return rows <= 1 ? std::max<int64_t>(cols, 1) : stride;
}

/// C[m,n] += A[m,k] * B[k,n] on one matrix each, given as base pointers and
/// 2-D strides.
template <typename T>
void matmul2d(const T *a, const int64_t aStrides[2], const T *b,
              const int64_t bStrides[2], T *c, const int64_t cStrides[2],
              int64_t m, int64_t n, int64_t k) {
  if (m == 0 || n == 0 || k == 0)
    return;
  bool blasLayout =
      (aStrides[1] == 1 || k == 1) && (bStrides[1] == 1 || n == 1) &&
      (cStrides[1] == 1 || n == 1) && (m == 1 || aStrides[0] >= k) &&
      (k == 1 || bStrides[0] >= n) && (m == 1 || cStrides[0] >= n);
  if (blasLayout) {
    gemm<T>(a, b, c, m, n, k, leadingDim(m, k, aStrides[0]),
            leadingDim(k, n, bStrides[0]), leadingDim(m, n, cStrides[0]));
    return;
  }
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
            MemRefDescriptor<T, 2> *c) {
  matmul2d<T>(a->data(), a->strides, b->data(), b->strides, c->data(),
              c->strides, c->sizes[0], c->sizes[1], a->sizes[1]);
}

template <typename T>
void batchMatmul(MemRefDescriptor<T, 3> *a, MemRefDescriptor<T, 3> *b,
                 MemRefDescriptor<T, 3> *c) {
  for (int64_t batch = 0; batch < c->sizes[0]; ++batch)
    matmul2d<T>(a->data() + batch * a->strides[0], a->strides + 1,
                b->data() + batch * b->strides[0], b->strides + 1,
                c->data() + batch * c->strides[0], c->strides + 1, c->sizes[1],
                c->sizes[2], a->sizes[2]);
}

} // namespace

extern "C" {

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

} // extern "C"
