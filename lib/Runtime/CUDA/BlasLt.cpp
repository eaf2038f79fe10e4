//===- BlasLt.cpp - GEMMs with bias and activation epilogues (cuBLASLt) ---===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx_cuda.matmul_bias ops become calls of these functions: D = act(A W +
// bias) on row-major device buffers, A [B, M, K], W [K, N], bias [N],
// D [B, M, N], in one cublasLtMatmul whose epilogue adds the bias row and
// applies relu or GELU (tanh form) before the tiles are stored. The
// training epilogues (rlx_cuda.matmul_bias_gelu_aux, rlx_cuda.matmul_dgelu)
// also take an auxiliary [B, M, N] buffer: GELU_AUX_BIAS stores the
// pre-activation there beside the output, DGELU_BGRAD reads it to multiply
// the product by GELU's derivative and writes the sum of the result's rows
// (the bias gradient) into `bias`. cuBLASLt is
// column-major, so the call computes D^T = W^T A^T + bias, which is the
// same memory, with the bias along D^T's rows. cuBLASLt is opened with
// dlopen at the first call. Each thread keeps its handle, a workspace and
// the plan (descriptors and the algorithm the heuristic chose) of every
// problem shape it has run.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/CUDARuntime.h"

#include "DeviceAllocator.h"
#include "Driver.h"
#include "GraphStream.h"
#include "ToolkitLibrary.h"

#include <cublasLt.h>

#include <climits>
#include <cstdint>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

using namespace rlxrt::cuda;

namespace {

/// The cuBLASLt functions the epilogue GEMMs need.
struct CublasLtApi {
  cublasStatus_t (*create)(cublasLtHandle_t *) = nullptr;
  cublasStatus_t (*descCreate)(cublasLtMatmulDesc_t *, cublasComputeType_t,
                               cudaDataType_t) = nullptr;
  cublasStatus_t (*descSetAttribute)(cublasLtMatmulDesc_t,
                                     cublasLtMatmulDescAttributes_t,
                                     const void *, size_t) = nullptr;
  cublasStatus_t (*layoutCreate)(cublasLtMatrixLayout_t *, cudaDataType,
                                 uint64_t, uint64_t, int64_t) = nullptr;
  cublasStatus_t (*preferenceCreate)(cublasLtMatmulPreference_t *) = nullptr;
  cublasStatus_t (*preferenceSetAttribute)(cublasLtMatmulPreference_t,
                                           cublasLtMatmulPreferenceAttributes_t,
                                           const void *, size_t) = nullptr;
  cublasStatus_t (*preferenceDestroy)(cublasLtMatmulPreference_t) = nullptr;
  cublasStatus_t (*heuristic)(cublasLtHandle_t, cublasLtMatmulDesc_t,
                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                              cublasLtMatmulPreference_t, int,
                              cublasLtMatmulHeuristicResult_t *,
                              int *) = nullptr;
  cublasStatus_t (*matmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
                           const void *, cublasLtMatrixLayout_t, const void *,
                           cublasLtMatrixLayout_t, const void *, const void *,
                           cublasLtMatrixLayout_t, void *,
                           cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *,
                           void *, size_t, cudaStream_t) = nullptr;
  const char *(*statusString)(cublasStatus_t) = nullptr;
};

const CublasLtApi &cublasLt(const char *caller) {
  return openToolkitApi<CublasLtApi>(
      caller, "RLX_CUBLASLT_LIBRARY", "libcublasLt.so.13", "cuBLASLt",
      [](CublasLtApi &api, auto &bind) {
        bind(api.create, "cublasLtCreate");
        bind(api.descCreate, "cublasLtMatmulDescCreate");
        bind(api.descSetAttribute, "cublasLtMatmulDescSetAttribute");
        bind(api.layoutCreate, "cublasLtMatrixLayoutCreate");
        bind(api.preferenceCreate, "cublasLtMatmulPreferenceCreate");
        bind(api.preferenceSetAttribute,
             "cublasLtMatmulPreferenceSetAttribute");
        bind(api.preferenceDestroy, "cublasLtMatmulPreferenceDestroy");
        bind(api.heuristic, "cublasLtMatmulAlgoGetHeuristic");
        bind(api.matmul, "cublasLtMatmul");
        bind(api.statusString, "cublasLtGetStatusString");
      });
}

void check(const CublasLtApi &api, cublasStatus_t status, const char *call,
           const char *caller) {
  checkCublasStatus(api.statusString, status, call, caller);
}

/// The cuBLASLt epilogue of a code the compiler passes.
cublasLtEpilogue_t epilogueOf(int32_t code) {
  switch (code) {
  case RLX_CUDA_EPILOGUE_RELU_BIAS:
    return CUBLASLT_EPILOGUE_RELU_BIAS;
  case RLX_CUDA_EPILOGUE_GELU_BIAS:
    return CUBLASLT_EPILOGUE_GELU_BIAS;
  case RLX_CUDA_EPILOGUE_GELU_AUX_BIAS:
    return CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  case RLX_CUDA_EPILOGUE_DGELU_BGRAD:
    return CUBLASLT_EPILOGUE_DGELU_BGRAD;
  default:
    return CUBLASLT_EPILOGUE_BIAS;
  }
}

/// Workspace the heuristic may plan for, allocated once per thread.
constexpr size_t kWorkspaceBytes = 32u << 20;

/// Largest power of two (up to 256) dividing an address: the alignment
/// cuBLASLt's algorithms may assume for it.
uint32_t alignmentOf(const void *pointer) {
  auto address = reinterpret_cast<uintptr_t>(pointer);
  uint32_t alignment = 256;
  while (alignment > 1 && address % alignment != 0)
    alignment /= 2;
  return alignment;
}

/// A problem: types, epilogue, sizes, leading dimensions (weight, input,
/// output, auxiliary), alignments.
using PlanKey =
    std::tuple<int, int, int32_t, uint64_t, uint64_t, uint64_t, int64_t,
               int64_t, int64_t, uint32_t, uint32_t, uint32_t, int64_t>;

struct Plan {
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t weight, input, out;
  cublasLtMatmulAlgo_t algo;
  size_t workspaceBytes;
};

struct ThreadState {
  cublasLtHandle_t handle = nullptr;
  void *workspace = nullptr;
  std::map<PlanKey, Plan> plans;
};

int64_t checkedLeading(int64_t stride, int64_t rows, const char *what,
                       const char *caller) {
  int64_t leading = std::max(stride, rows);
  if (leading > INT_MAX)
    fatal(caller, std::string("GEMM ") + what + " leading dimension " +
                      std::to_string(leading) + " is out of cuBLASLt's range");
  return leading;
}

/// D = epilogue(A W, bias, aux); `aux` is null for the epilogues without an
/// auxiliary buffer.
void matmulBias(const char *caller, cudaDataType data, const Descriptor<3> *a,
                const Descriptor<2> *w, const Descriptor<1> *bias,
                const Descriptor<3> *d, const Descriptor<3> *aux,
                int32_t epilogueCode, int32_t flags) {
  int64_t batch = d->sizes[0], m = d->sizes[1], n = d->sizes[2],
          k = a->sizes[2];
  bool biasGradient = epilogueCode == RLX_CUDA_EPILOGUE_DGELU_BGRAD;
  if (n == 0)
    return;
  Session cu(caller);
  size_t elementBytes = data == CUDA_R_32F ? 4 : 2;
  if (batch == 0 || m == 0) {
    // No rows: the bias gradient, a sum over none, is zero.
    if (biasGradient) {
      char *start = bias->aligned + bias->offset * elementBytes;
      if (bias->strides[0] != 1)
        fatal(caller, "the bias gradient of a GEMM epilogue must be "
                      "contiguous");
      CUstream stream = graphStream(cu);
      if (elementBytes == 4)
        cu.check(cu->cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(start), 0,
                                      n, stream),
                 "cuMemsetD32Async");
      else
        cu.check(cu->cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(start), 0,
                                      n, stream),
                 "cuMemsetD16Async");
    }
    return;
  }
  const CublasLtApi &api = cublasLt(caller);
  auto pointer = [&](const auto *desc) {
    return desc->aligned + desc->offset * elementBytes;
  };
  // Rows of all batches one after another with one leading dimension: one
  // call over B * M rows; otherwise one call per batch.
  bool oneCall =
      batch == 1 || (a->strides[0] == m * a->strides[1] &&
                     d->strides[0] == m * d->strides[1] &&
                     (!aux || aux->strides[0] == m * aux->strides[1]));
  // The bias gradient sums every row: one call must see them all.
  if (biasGradient && !oneCall)
    fatal(caller, "the GEMM with the DGELU_BGRAD epilogue needs the rows of "
                  "all batches one after another (one leading dimension)");
  int64_t rows = oneCall ? batch * m : m;
  int64_t calls = oneCall ? 1 : batch;

  thread_local ThreadState state;
  CUstream stream = graphStream(cu);
  if (!state.handle) {
    check(api, api.create(&state.handle), "cublasLtCreate", caller);
    state.workspace = allocateDevice(cu, kWorkspaceBytes, stream);
  }
  cublasComputeType_t compute =
      data == CUDA_R_32F && (flags & RLX_CUDA_GEMM_ALLOW_TF32)
          ? CUBLAS_COMPUTE_32F_FAST_TF32
          : CUBLAS_COMPUTE_32F;
  cublasLtEpilogue_t epilogue = epilogueOf(epilogueCode);
  int64_t ldw = checkedLeading(w->strides[0], n, "weight", caller);
  int64_t lda = checkedLeading(a->strides[1], k, "input", caller);
  int64_t ldd = checkedLeading(d->strides[1], n, "output", caller);
  int64_t ldaux =
      aux ? checkedLeading(aux->strides[1], n, "auxiliary", caller) : 0;
  PlanKey key{data,
              compute,
              epilogueCode,
              uint64_t(rows),
              uint64_t(n),
              uint64_t(k),
              ldw,
              lda,
              ldd,
              alignmentOf(pointer(w)),
              alignmentOf(pointer(a)),
              alignmentOf(pointer(d)),
              ldaux};
  auto found = state.plans.find(key);
  if (found == state.plans.end()) {
    Plan plan;
    check(api, api.descCreate(&plan.desc, compute, CUDA_R_32F),
          "cublasLtMatmulDescCreate", caller);
    check(api,
          api.descSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                               &epilogue, sizeof(epilogue)),
          "cublasLtMatmulDescSetAttribute(EPILOGUE)", caller);
    if (aux)
      check(api,
            api.descSetAttribute(plan.desc,
                                 CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ldaux,
                                 sizeof(ldaux)),
            "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_LD)", caller);
    // Column-major: W^T is N x K (ld ldw), A^T is K x rows, D^T N x rows.
    check(api, api.layoutCreate(&plan.weight, data, n, k, ldw),
          "cublasLtMatrixLayoutCreate", caller);
    check(api, api.layoutCreate(&plan.input, data, k, rows, lda),
          "cublasLtMatrixLayoutCreate", caller);
    check(api, api.layoutCreate(&plan.out, data, n, rows, ldd),
          "cublasLtMatrixLayoutCreate", caller);
    cublasLtMatmulPreference_t preference;
    check(api, api.preferenceCreate(&preference),
          "cublasLtMatmulPreferenceCreate", caller);
    uint64_t workspace = kWorkspaceBytes;
    check(api,
          api.preferenceSetAttribute(preference,
                                     CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                     &workspace, sizeof(workspace)),
          "cublasLtMatmulPreferenceSetAttribute", caller);
    uint32_t alignments[3] = {std::get<9>(key), std::get<10>(key),
                              std::get<11>(key)};
    cublasLtMatmulPreferenceAttributes_t alignmentAttrs[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    uint32_t values[4] = {alignments[0], alignments[1], alignments[2],
                          alignments[2]};
    for (int i = 0; i < 4; ++i)
      check(api,
            api.preferenceSetAttribute(preference, alignmentAttrs[i],
                                       &values[i], sizeof(values[i])),
            "cublasLtMatmulPreferenceSetAttribute", caller);
    cublasLtMatmulHeuristicResult_t result;
    int count = 0;
    check(api,
          api.heuristic(state.handle, plan.desc, plan.weight, plan.input,
                        plan.out, plan.out, preference, 1, &result, &count),
          "cublasLtMatmulAlgoGetHeuristic", caller);
    api.preferenceDestroy(preference);
    if (count == 0)
      fatal(caller, "cuBLASLt has no algorithm for this GEMM with a bias "
                    "epilogue (M " +
                        std::to_string(rows) + ", N " + std::to_string(n) +
                        ", K " + std::to_string(k) + ")");
    plan.algo = result.algo;
    plan.workspaceBytes = result.workspaceSize;
    found = state.plans.emplace(key, plan).first;
  }
  const Plan &plan = found->second;
  const void *biasPointer = pointer(bias);
  check(api,
        api.descSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                             &biasPointer, sizeof(biasPointer)),
        "cublasLtMatmulDescSetAttribute(BIAS_POINTER)", caller);
  float alpha = 1, beta = 0;
  for (int64_t i = 0; i < calls; ++i) {
    const char *input = pointer(a) + i * a->strides[0] * elementBytes;
    char *out = pointer(d) + i * d->strides[0] * elementBytes;
    if (aux) {
      const void *auxPointer =
          pointer(aux) + i * aux->strides[0] * elementBytes;
      check(api,
            api.descSetAttribute(plan.desc,
                                 CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                                 &auxPointer, sizeof(auxPointer)),
            "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_POINTER)", caller);
    }
    check(api,
          api.matmul(state.handle, plan.desc, &alpha, pointer(w), plan.weight,
                     input, plan.input, &beta, out, plan.out, out, plan.out,
                     &plan.algo, state.workspace, plan.workspaceBytes,
                     reinterpret_cast<cudaStream_t>(stream)),
          "cublasLtMatmul", caller);
  }
}

} // namespace

#define RLX_CUDA_MATMUL_BIAS_ENTRY(suffix, cudaType)                           \
  extern "C" void _mlir_ciface_rlx_cuda_matmul_bias_##suffix(                  \
      const Descriptor<3> *a, const Descriptor<2> *w,                          \
      const Descriptor<1> *bias, const Descriptor<3> *d, int32_t epilogue,     \
      int32_t flags) {                                                         \
    matmulBias(__func__, cudaType, a, w, bias, d, nullptr, epilogue, flags);   \
  }                                                                            \
  extern "C" void _mlir_ciface_rlx_cuda_matmul_bias_aux_##suffix(              \
      const Descriptor<3> *a, const Descriptor<2> *w,                          \
      const Descriptor<1> *bias, const Descriptor<3> *d,                       \
      const Descriptor<3> *aux, int32_t epilogue, int32_t flags) {             \
    matmulBias(__func__, cudaType, a, w, bias, d, aux, epilogue, flags);       \
  }

RLX_CUDA_MATMUL_BIAS_ENTRY(f32, CUDA_R_32F)
RLX_CUDA_MATMUL_BIAS_ENTRY(f16, CUDA_R_16F)
RLX_CUDA_MATMUL_BIAS_ENTRY(bf16, CUDA_R_16BF)

#undef RLX_CUDA_MATMUL_BIAS_ENTRY
