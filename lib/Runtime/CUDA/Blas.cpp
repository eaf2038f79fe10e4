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
// memory.
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
  cudaDataType data;
  cublasComputeType_t compute;
  size_t elementBytes;
  bool doubleScalars;
};

GemmTypes typesOf(cudaDataType data, int32_t flags) {
  switch (data) {
  case CUDA_R_64F:
    return {data, CUBLAS_COMPUTE_64F, 8, true};
  case CUDA_R_16F:
  case CUDA_R_16BF:
    return {data, CUBLAS_COMPUTE_32F, 2, false};
  default:
    return {CUDA_R_32F,
            (flags & RLX_CUDA_GEMM_ALLOW_TF32) ? CUBLAS_COMPUTE_32F_FAST_TF32
                                               : CUBLAS_COMPUTE_32F,
            4, false};
  }
}

int checkedInt(int64_t value, const char *what, const char *caller) {
  if (value < 0 || value > INT_MAX)
    fatal(caller, std::string("GEMM ") + what + " " + std::to_string(value) +
                      " is out of cuBLAS's int range");
  return static_cast<int>(value);
}

/// C[b] += A[b] * B[b] for b < batch, row-major with unit inner strides.
template <int Rank>
void gemm(const char *caller, cudaDataType data, int32_t flags,
          const Descriptor<Rank> *a, const Descriptor<Rank> *b,
          const Descriptor<Rank> *c) {
  constexpr int row = Rank - 2, col = Rank - 1;
  int64_t batch = Rank == 3 ? c->sizes[0] : 1;
  int64_t m = c->sizes[row], n = c->sizes[col], k = a->sizes[col];
  if (batch == 0 || m == 0 || n == 0)
    return;
  Session cu(caller);
  const CublasApi &api = cublas(caller);
  GemmTypes types = typesOf(data, flags);
  auto pointer = [&](const auto *d) {
    return d->aligned + d->offset * types.elementBytes;
  };
  auto batchStride = [&](const auto *d) -> long long {
    return Rank == 3 ? d->strides[0] : 0;
  };
  float alpha32 = 1, beta32 = 1;
  double alpha64 = 1, beta64 = 1;
  const void *alpha =
      types.doubleScalars ? static_cast<const void *>(&alpha64) : &alpha32;
  const void *beta =
      types.doubleScalars ? static_cast<const void *>(&beta64) : &beta32;
  // Column-major view: C^T (n x m) += B^T (n x k) * A^T (k x m).
  checkBlas(
      api,
      api.gemmStridedBatched(
          threadHandle(cu, api), CUBLAS_OP_N, CUBLAS_OP_N,
          checkedInt(n, "N", caller), checkedInt(m, "M", caller),
          checkedInt(k, "K", caller), alpha, pointer(b), types.data,
          checkedInt(std::max<int64_t>(b->strides[row], 1), "ldb", caller),
          batchStride(b), pointer(a), types.data,
          checkedInt(std::max<int64_t>(a->strides[row], 1), "lda", caller),
          batchStride(a), beta, pointer(c), types.data,
          checkedInt(std::max<int64_t>(c->strides[row], 1), "ldc", caller),
          batchStride(c), checkedInt(batch, "batch", caller), types.compute,
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

#define RLX_CUDA_GEMM_ENTRY(suffix, cudaType)                                  \
  extern "C" void _mlir_ciface_rlx_cuda_matmul_##suffix(                       \
      const Descriptor<2> *a, const Descriptor<2> *b, const Descriptor<2> *c,  \
      int32_t flags) {                                                         \
    gemm<2>(__func__, cudaType, flags, a, b, c);                               \
  }                                                                            \
  extern "C" void _mlir_ciface_rlx_cuda_batch_matmul_##suffix(                 \
      const Descriptor<3> *a, const Descriptor<3> *b, const Descriptor<3> *c,  \
      int32_t flags) {                                                         \
    gemm<3>(__func__, cudaType, flags, a, b, c);                               \
  }

RLX_CUDA_GEMM_ENTRY(f32, CUDA_R_32F)
RLX_CUDA_GEMM_ENTRY(f64, CUDA_R_64F)
RLX_CUDA_GEMM_ENTRY(f16, CUDA_R_16F)
RLX_CUDA_GEMM_ENTRY(bf16, CUDA_R_16BF)

#undef RLX_CUDA_GEMM_ENTRY
