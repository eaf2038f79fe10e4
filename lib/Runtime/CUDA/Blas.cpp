//===- Blas.cpp - the GEMMs of compiled graphs on cuBLAS ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-cuda-linalg-to-cublas turns linalg.matmul and linalg.batch_matmul on
// device buffers into calls of these functions (through MLIR's C interface:
// one memref descriptor per operand). They call cuBLAS on the calling
// thread's graph stream, so the GEMM is ordered with the graph's kernels.
// cuBLAS is opened with dlopen at the first GEMM, like the driver, so the
// runtime loads without it.
//
// linalg's semantics are C += A * B on row-major buffers; cuBLAS is
// column-major, so the call computes C^T += B^T * A^T, which is the same
// memory. An operand may also be a transposed view (unit row stride, as
// the pass passes an operand its indexing map reads transposed): cuBLAS
// then reads it with CUBLAS_OP_T, without a copy.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/CUDARuntime.h"

#include "DeviceAllocator.h"
#include "Driver.h"
#include "GraphStream.h"
#include "ToolkitLibrary.h"

#include <cublas_api.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <string>

using namespace rlxrt::cuda;

namespace {

/// The cuBLAS functions the GEMMs need, at their C ABI names.
struct CublasApi {
  cublasStatus_t (*create)(cublasHandle_t *) = nullptr;
  cublasStatus_t (*setStream)(cublasHandle_t, CUstream) = nullptr;
  cublasStatus_t (*setWorkspace)(cublasHandle_t, void *, size_t) = nullptr;
  cublasStatus_t (*gemmStridedBatched)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
      const void *, const void *, cudaDataType, int, long long, const void *,
      cudaDataType, int, long long, const void *, void *, cudaDataType, int,
      long long, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  const char *(*statusString)(cublasStatus_t) = nullptr;
};

/// Opens cuBLAS once: RLX_CUBLAS_LIBRARY, else libcublas.so.13 on the
/// loader's path, else the CUDA toolkit's copy.
const CublasApi &cublas(const char *caller) {
  return openToolkitApi<CublasApi>(
      caller, "RLX_CUBLAS_LIBRARY", "libcublas.so.13", "cuBLAS",
      [](CublasApi &api, auto &bind) {
        bind(api.create, "cublasCreate_v2");
        bind(api.setStream, "cublasSetStream_v2");
        bind(api.setWorkspace, "cublasSetWorkspace_v2");
        bind(api.gemmStridedBatched, "cublasGemmStridedBatchedEx");
        bind(api.statusString, "cublasGetStatusString");
      });
}

void checkBlas(const CublasApi &api, cublasStatus_t status, const char *call,
               const char *caller) {
  checkCublasStatus(api.statusString, status, call, caller);
}

/// One cuBLAS handle per thread, bound to the thread's graph stream.
constexpr size_t kCublasWorkspaceBytes = 32u << 20;

cublasHandle_t threadHandle(const Session &cu, const CublasApi &api) {
  thread_local cublasHandle_t handle = nullptr;
  if (!handle) {
    checkBlas(api, api.create(&handle), "cublasCreate", cu.caller());
    checkBlas(api, api.setStream(handle, graphStream(cu)), "cublasSetStream",
              cu.caller());
    // A workspace of our own, so that no GEMM allocates one while its graph
    // is captured (GraphRunner.cpp); kept for the thread's life, like the
    // handle. cuBLAS's documented recommendation for Hopper.
    void *workspace =
        allocateDevice(cu, kCublasWorkspaceBytes, graphStream(cu));
    checkBlas(api, api.setWorkspace(handle, workspace, kCublasWorkspaceBytes),
              "cublasSetWorkspace", cu.caller());
  }
  return handle;
}

struct GemmTypes {
  cudaDataType input, output;
  cublasComputeType_t compute;
  size_t inputBytes, outputBytes;
  bool doubleScalars;
};

size_t bytesOf(cudaDataType type) {
  switch (type) {
  case CUDA_R_64F:
    return 8;
  case CUDA_R_16F:
  case CUDA_R_16BF:
    return 2;
  default:
    return 4;
  }
}

/// `input` operands accumulated into an `output` product: f64 in f64, f16
/// and bf16 in f32 (into an f16/bf16 or an f32 product), f32 in f32 or,
/// with RLX_CUDA_GEMM_ALLOW_TF32, on TF32 tensor cores.
GemmTypes typesOf(cudaDataType input, cudaDataType output, int32_t flags) {
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  if (input == CUDA_R_64F)
    compute = CUBLAS_COMPUTE_64F;
  else if (input == CUDA_R_32F && (flags & RLX_CUDA_GEMM_ALLOW_TF32))
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  return {input,          output,          compute,
          bytesOf(input), bytesOf(output), input == CUDA_R_64F};
}

int checkedInt(int64_t value, const char *what, const char *caller) {
  if (value < 0 || value > INT_MAX)
    fatal(caller, std::string("GEMM ") + what + " " + std::to_string(value) +
                      " is out of cuBLAS's int range");
  return static_cast<int>(value);
}

/// How cuBLAS reads a row-major operand in its column-major view: as
/// stored (unit inner stride; the view is the operand's transpose) with
/// the row stride as leading dimension, or, for a transposed view (unit
/// row stride), transposed with the inner stride as leading dimension.
/// rlx-cuda-linalg-to-cublas only passes operands of one of these layouts.
struct BlasOperand {
  cublasOperation_t operation;
  int leading;
};

template <int Rank>
BlasOperand blasOperand(const Descriptor<Rank> *d, const char *name,
                        const char *caller) {
  constexpr int row = Rank - 2, col = Rank - 1;
  int64_t rows = d->sizes[row], cols = d->sizes[col];
  int64_t rowStride = d->strides[row], colStride = d->strides[col];
  if (colStride == 1 || cols == 1) {
    int64_t leading =
        rows == 1 ? std::max<int64_t>(rowStride, cols) : rowStride;
    if (leading >= std::max<int64_t>(cols, 1))
      return {CUBLAS_OP_N, checkedInt(leading, "leading dimension", caller)};
  } else if (rowStride == 1 || rows == 1) {
    if (colStride >= std::max<int64_t>(rows, 1))
      return {CUBLAS_OP_T, checkedInt(colStride, "leading dimension", caller)};
  }
  fatal(caller, std::string("GEMM operand ") + name + " of " +
                    std::to_string(rows) + "x" + std::to_string(cols) +
                    " with strides [" + std::to_string(rowStride) + ", " +
                    std::to_string(colStride) +
                    "] is neither row- nor column-major");
}

/// C[b] += A[b] * B[b] (C[b] = ... with RLX_CUDA_GEMM_OVERWRITE) for
/// b < batch, on row-major or transposed views.
template <int Rank>
void gemm(const char *caller, cudaDataType input, cudaDataType output,
          int32_t flags, const Descriptor<Rank> *a, const Descriptor<Rank> *b,
          const Descriptor<Rank> *c) {
  constexpr int row = Rank - 2, col = Rank - 1;
  int64_t batch = Rank == 3 ? c->sizes[0] : 1;
  int64_t m = c->sizes[row], n = c->sizes[col], k = a->sizes[col];
  if (batch == 0 || m == 0 || n == 0)
    return;
  Session cu(caller);
  const CublasApi &api = cublas(caller);
  GemmTypes types = typesOf(input, output, flags);
  BlasOperand lhs = blasOperand(a, "A", caller);
  BlasOperand rhs = blasOperand(b, "B", caller);
  BlasOperand product = blasOperand(c, "C", caller);
  if (product.operation != CUBLAS_OP_N)
    fatal(caller, "GEMM product C is not row-major");
  auto pointer = [](const auto *d, size_t bytes) {
    return d->aligned + d->offset * bytes;
  };
  auto batchStride = [&](const auto *d) -> long long {
    return Rank == 3 ? d->strides[0] : 0;
  };
  bool overwrite = flags & RLX_CUDA_GEMM_OVERWRITE;
  float alpha32 = 1, beta32 = overwrite ? 0 : 1;
  double alpha64 = 1, beta64 = overwrite ? 0 : 1;
  const void *alpha =
      types.doubleScalars ? static_cast<const void *>(&alpha64) : &alpha32;
  const void *beta =
      types.doubleScalars ? static_cast<const void *>(&beta64) : &beta32;
  // Column-major view: C^T (n x m) += op(B)^T (n x k) * op(A)^T (k x m).
  checkBlas(api,
            api.gemmStridedBatched(
                threadHandle(cu, api), rhs.operation, lhs.operation,
                checkedInt(n, "N", caller), checkedInt(m, "M", caller),
                checkedInt(k, "K", caller), alpha, pointer(b, types.inputBytes),
                types.input, rhs.leading, batchStride(b),
                pointer(a, types.inputBytes), types.input, lhs.leading,
                batchStride(a), beta, pointer(c, types.outputBytes),
                types.output, product.leading, batchStride(c),
                checkedInt(batch, "batch", caller), types.compute,
                CUBLAS_GEMM_DEFAULT),
            "cublasGemmStridedBatchedEx", caller);
}

} // namespace

void *rlxrt::cuda::openToolkitLibrary(const char *envVar, const char *soname,
                                      const char *what, std::string &error) {
  std::string tried;
  const char *fromEnv = getenv(envVar);
  std::string candidates[] = {
      fromEnv ? fromEnv : "", soname,
      std::string("/usr/local/cuda/lib64/") + soname,
      std::string("/usr/local/cuda/targets/x86_64-linux/lib/") + soname};
  for (const std::string &candidate : candidates) {
    if (candidate.empty())
      continue;
    if (void *library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))
      return library;
    tried += (tried.empty() ? "" : ", ") + candidate;
  }
  error = std::string(what) + " not found (tried " + tried + "; set " + envVar +
          " to " + soname + ")";
  return nullptr;
}

#define RLX_CUDA_GEMM_ENTRY(suffix, input, output)                             \
  extern "C" void _mlir_ciface_rlx_cuda_matmul_##suffix(                       \
      const Descriptor<2> *a, const Descriptor<2> *b, const Descriptor<2> *c,  \
      int32_t flags) {                                                         \
    gemm<2>(__func__, input, output, flags, a, b, c);                          \
  }                                                                            \
  extern "C" void _mlir_ciface_rlx_cuda_batch_matmul_##suffix(                 \
      const Descriptor<3> *a, const Descriptor<3> *b, const Descriptor<3> *c,  \
      int32_t flags) {                                                         \
    gemm<3>(__func__, input, output, flags, a, b, c);                          \
  }

RLX_CUDA_GEMM_ENTRY(f32, CUDA_R_32F, CUDA_R_32F)
RLX_CUDA_GEMM_ENTRY(f64, CUDA_R_64F, CUDA_R_64F)
RLX_CUDA_GEMM_ENTRY(f16, CUDA_R_16F, CUDA_R_16F)
RLX_CUDA_GEMM_ENTRY(bf16, CUDA_R_16BF, CUDA_R_16BF)
// f16/bf16 operands accumulated into an f32 product (the f16/bf16 matmul
// lowering's form; cuBLAS documents these type combinations for GemmEx).
RLX_CUDA_GEMM_ENTRY(f16_f32, CUDA_R_16F, CUDA_R_32F)
RLX_CUDA_GEMM_ENTRY(bf16_f32, CUDA_R_16BF, CUDA_R_32F)
#undef RLX_CUDA_GEMM_ENTRY
