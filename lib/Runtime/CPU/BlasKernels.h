//===- BlasKernels.h - GEMMs for the runtime's own kernels ------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_RUNTIME_CPU_BLASKERNELS_H
#define RLX_LIB_RUNTIME_CPU_BLASKERNELS_H

#include <cstdint>

namespace rlxrt {

/// C[m, n] += A[m, k] * B on row-major buffers with leading dimensions
/// `lda`, `ldb`, `ldc`: B is [k, n], or with `transposeB` stored as
/// [n, k]. OpenBLAS's sgemm (with its threads), or a plain loop without it.
void sgemmAccumulate(bool transposeB, const float *a, int64_t lda,
                     const float *b, int64_t ldb, float *c, int64_t ldc,
                     int64_t m, int64_t n, int64_t k);

} // namespace rlxrt

#endif // RLX_LIB_RUNTIME_CPU_BLASKERNELS_H
