//===- Cudnn.cpp - the convolutions of compiled graphs on cuDNN -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Forward, backward-data and backward-filter convolutions on NCHW or NHWC
// buffers, run by cuDNN 9 on the calling thread's graph stream so that they are
// ordered with the graph's kernels. cuDNN is opened with dlopen at the first
// call, like cuBLAS, so the runtime and the graphs compiled against it load
// where cuDNN is absent; rlx_cuda_cudnn_available lets a caller choose the
// generic kernels instead of aborting there.
//
// The few cuDNN types and functions used are declared here rather than taken
// from cudnn.h, so that building the runtime never needs cuDNN: the values
// are those of cuDNN 9's stable C ABI (cudnn_graph.h, cudnn_cnn.h).
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/CUDARuntime.h"

#include "DeviceAllocator.h"
#include "Driver.h"
#include "GraphStream.h"
#include "ToolkitLibrary.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

using namespace rlxrt::cuda;

namespace {

// cuDNN 9's C ABI, as far as the legacy convolution API needs it.
using cudnnStatus = int;
using cudnnHandle = struct CudnnContext *;
using cudnnTensorDesc = struct CudnnTensorStruct *;
using cudnnFilterDesc = struct CudnnFilterStruct *;
using cudnnConvDesc = struct CudnnConvolutionStruct *;
constexpr int kCudnnSuccess = 0;
/// Not a cuDNN status: a direction outside the enum.
constexpr int kNotRun = -1;
constexpr int kCudnnNCHW = 0;
constexpr int kCudnnNHWC = 1;
constexpr int kCudnnCrossCorrelation = 1;
constexpr int kCudnnTensorOpMath = 1, kCudnnFmaMath = 3;
constexpr int kCudnnFloat = 0, kCudnnHalf = 2, kCudnnBFloat16 = 9;

/// The algorithm-performance records of the three directions share this
/// layout (cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t).
struct AlgoPerf {
  int algo;
  cudnnStatus status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

/// The three convolution directions share one argument shape: the heuristic
/// takes the descriptors in the direction's own order, as does the call.
/// The heuristic reports each candidate's workspace size, so the separate
/// workspace queries are not bound.
struct CudnnApi {
  cudnnStatus (*create)(cudnnHandle *) = nullptr;
  cudnnStatus (*setStream)(cudnnHandle, CUstream) = nullptr;
  const char *(*errorString)(cudnnStatus) = nullptr;
  cudnnStatus (*createTensor)(cudnnTensorDesc *) = nullptr;
  cudnnStatus (*setTensor4d)(cudnnTensorDesc, int, int, int, int, int,
                             int) = nullptr;
  cudnnStatus (*destroyTensor)(cudnnTensorDesc) = nullptr;
  cudnnStatus (*createFilter)(cudnnFilterDesc *) = nullptr;
  cudnnStatus (*setFilter4d)(cudnnFilterDesc, int, int, int, int, int,
                             int) = nullptr;
  cudnnStatus (*destroyFilter)(cudnnFilterDesc) = nullptr;
  cudnnStatus (*createConv)(cudnnConvDesc *) = nullptr;
  cudnnStatus (*setConv2d)(cudnnConvDesc, int, int, int, int, int, int, int,
                           int) = nullptr;
  cudnnStatus (*setGroupCount)(cudnnConvDesc, int) = nullptr;
  cudnnStatus (*setMathType)(cudnnConvDesc, int) = nullptr;
  cudnnStatus (*destroyConv)(cudnnConvDesc) = nullptr;
  // Forward: x, w, conv, y.
  cudnnStatus (*fwdAlgo)(cudnnHandle, cudnnTensorDesc, cudnnFilterDesc,
                         cudnnConvDesc, cudnnTensorDesc, int, int *,
                         AlgoPerf *) = nullptr;
  cudnnStatus (*fwd)(cudnnHandle, const void *, cudnnTensorDesc, const void *,
                     cudnnFilterDesc, const void *, cudnnConvDesc, int, void *,
                     size_t, const void *, cudnnTensorDesc, void *) = nullptr;
  // Backward data: w, dy, conv, dx.
  cudnnStatus (*bwdDataAlgo)(cudnnHandle, cudnnFilterDesc, cudnnTensorDesc,
                             cudnnConvDesc, cudnnTensorDesc, int, int *,
                             AlgoPerf *) = nullptr;
  cudnnStatus (*bwdData)(cudnnHandle, const void *, cudnnFilterDesc,
                         const void *, cudnnTensorDesc, const void *,
                         cudnnConvDesc, int, void *, size_t, const void *,
                         cudnnTensorDesc, void *) = nullptr;
  // Backward filter: x, dy, conv, dw.
  cudnnStatus (*bwdFilterAlgo)(cudnnHandle, cudnnTensorDesc, cudnnTensorDesc,
                               cudnnConvDesc, cudnnFilterDesc, int, int *,
                               AlgoPerf *) = nullptr;
  cudnnStatus (*bwdFilter)(cudnnHandle, const void *, cudnnTensorDesc,
                           const void *, cudnnTensorDesc, const void *,
                           cudnnConvDesc, int, void *, size_t, const void *,
                           cudnnFilterDesc, void *) = nullptr;
};

template <typename Bind> void bindCudnn(CudnnApi &api, Bind &bind) {
  bind(api.create, "cudnnCreate");
  bind(api.setStream, "cudnnSetStream");
  bind(api.errorString, "cudnnGetErrorString");
  bind(api.createTensor, "cudnnCreateTensorDescriptor");
  bind(api.setTensor4d, "cudnnSetTensor4dDescriptor");
  bind(api.destroyTensor, "cudnnDestroyTensorDescriptor");
  bind(api.createFilter, "cudnnCreateFilterDescriptor");
  bind(api.setFilter4d, "cudnnSetFilter4dDescriptor");
  bind(api.destroyFilter, "cudnnDestroyFilterDescriptor");
  bind(api.createConv, "cudnnCreateConvolutionDescriptor");
  bind(api.setConv2d, "cudnnSetConvolution2dDescriptor");
  bind(api.setGroupCount, "cudnnSetConvolutionGroupCount");
  bind(api.setMathType, "cudnnSetConvolutionMathType");
  bind(api.destroyConv, "cudnnDestroyConvolutionDescriptor");
  bind(api.fwdAlgo, "cudnnGetConvolutionForwardAlgorithm_v7");
  bind(api.fwd, "cudnnConvolutionForward");
  bind(api.bwdDataAlgo, "cudnnGetConvolutionBackwardDataAlgorithm_v7");
  bind(api.bwdData, "cudnnConvolutionBackwardData");
  bind(api.bwdFilterAlgo, "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
  bind(api.bwdFilter, "cudnnConvolutionBackwardFilter");
}

/// Opens cuDNN once: RLX_CUDNN_LIBRARY, else libcudnn.so.9 on the loader's
/// path, else the CUDA toolkit's copy.
const CudnnApi &cudnn(const char *caller) {
  return openToolkitApi<CudnnApi>(
      caller, "RLX_CUDNN_LIBRARY", "libcudnn.so.9", "cuDNN",
      [](CudnnApi &api, auto &bind) { bindCudnn(api, bind); });
}

void check(const CudnnApi &api, cudnnStatus status, const char *call,
           const char *caller) {
  if (status != kCudnnSuccess)
    fatal(caller,
          std::string(call) + " failed with " + api.errorString(status));
}

cudnnHandle threadHandle(const Session &cu, const CudnnApi &api) {
  thread_local cudnnHandle handle = nullptr;
  if (!handle) {
    check(api, api.create(&handle), "cudnnCreate", cu.caller());
    check(api, api.setStream(handle, graphStream(cu)), "cudnnSetStream",
          cu.caller());
  }
  return handle;
}

enum class Direction { Forward, BackwardData, BackwardFilter };

/// One convolution's geometry, the key of the algorithm cache: the direction,
/// element type, flags (math, layout), input NCHW, filter KCRS, output NCHW
/// (the logical extents, whatever the buffers' layout), then padding, stride
/// and dilation (height, width).
using Geometry = std::array<int64_t, 21>;

/// The descriptors of one geometry with the heuristic's algorithm and its
/// workspace size, kept for the process's life: graphs replay the same
/// geometries on every run, so the heuristic runs once per geometry.
struct Plan {
  cudnnTensorDesc x = nullptr, y = nullptr;
  cudnnFilterDesc w = nullptr;
  cudnnConvDesc conv = nullptr;
  int algo = 0;
  size_t workspace = 0;
  /// The heuristic's supported candidates (algorithm, workspace bytes), in
  /// its order; the first is used until the plan is tuned.
  std::vector<std::pair<int, size_t>> candidates;
  bool tuned = false;
};

int checkedInt(int64_t value, const char *caller) {
  if (value < 0 || value > INT_MAX)
    fatal(caller, "convolution dimension " + std::to_string(value) +
                      " is out of cuDNN's int range");
  return static_cast<int>(value);
}

Plan makePlan(const Session &cu, const CudnnApi &api, cudnnHandle handle,
              const Geometry &g) {
  const char *caller = cu.caller();
  auto i = [&](int index) { return checkedInt(g[index], caller); };
  auto direction = static_cast<Direction>(g[0]);
  int dataType = i(1), flags = i(2);
  Plan plan;
  check(api, api.createTensor(&plan.x), "cudnnCreateTensorDescriptor", caller);
  check(api, api.createTensor(&plan.y), "cudnnCreateTensorDescriptor", caller);
  check(api, api.createFilter(&plan.w), "cudnnCreateFilterDescriptor", caller);
  check(api, api.createConv(&plan.conv), "cudnnCreateConvolutionDescriptor",
        caller);
  // The descriptors take logical extents (N, C, H, W) and the layout.
  int format = flags & RLX_CUDA_CONV_CHANNELS_LAST ? kCudnnNHWC : kCudnnNCHW;
  check(api, api.setTensor4d(plan.x, format, dataType, i(3), i(4), i(5), i(6)),
        "cudnnSetTensor4dDescriptor", caller);
  check(api, api.setFilter4d(plan.w, dataType, format, i(7), i(8), i(9), i(10)),
        "cudnnSetFilter4dDescriptor", caller);
  check(api,
        api.setTensor4d(plan.y, format, dataType, i(11), i(12), i(13), i(14)),
        "cudnnSetTensor4dDescriptor", caller);
  // Half types always accumulate in f32; f32 uses tensor cores (TF32) only
  // when the pipeline allows TF32, as PyTorch by default does not.
  check(api,
        api.setConv2d(plan.conv, i(15), i(16), i(17), i(18), i(19), i(20),
                      kCudnnCrossCorrelation, kCudnnFloat),
        "cudnnSetConvolution2dDescriptor", caller);
  // The group count is the input's channels over the filter's.
  int groups = i(4) / std::max(i(8), 1);
  check(api, api.setGroupCount(plan.conv, groups),
        "cudnnSetConvolutionGroupCount", caller);
  int math = dataType != kCudnnFloat              ? kCudnnTensorOpMath
             : (flags & RLX_CUDA_GEMM_ALLOW_TF32) ? kCudnnTensorOpMath
                                                  : kCudnnFmaMath;
  check(api, api.setMathType(plan.conv, math), "cudnnSetConvolutionMathType",
        caller);

  constexpr int kRequested = 8;
  AlgoPerf perf[kRequested];
  int returned = 0;
  switch (direction) {
  case Direction::Forward:
    check(api,
          api.fwdAlgo(handle, plan.x, plan.w, plan.conv, plan.y, kRequested,
                      &returned, perf),
          "cudnnGetConvolutionForwardAlgorithm_v7", caller);
    break;
  case Direction::BackwardData:
    check(api,
          api.bwdDataAlgo(handle, plan.w, plan.y, plan.conv, plan.x, kRequested,
                          &returned, perf),
          "cudnnGetConvolutionBackwardDataAlgorithm_v7", caller);
    break;
  case Direction::BackwardFilter:
    check(api,
          api.bwdFilterAlgo(handle, plan.x, plan.y, plan.conv, plan.w,
                            kRequested, &returned, perf),
          "cudnnGetConvolutionBackwardFilterAlgorithm_v7", caller);
    break;
  }
  // The heuristic ranks its candidates; keep those that are supported
  // (with f32 and TF32 off, only those that keep full f32 math) and start
  // with the first.
  for (int index = 0; index < returned; ++index) {
    if (perf[index].status != kCudnnSuccess)
      continue;
    if (math == kCudnnFmaMath && perf[index].mathType == kCudnnTensorOpMath)
      continue;
    plan.candidates.push_back({perf[index].algo, perf[index].memory});
  }
  if (plan.candidates.empty())
    fatal(caller, "cuDNN's heuristic found no algorithm for this convolution");
  std::tie(plan.algo, plan.workspace) = plan.candidates.front();
  plan.tuned = plan.candidates.size() == 1;
  return plan;
}

/// Whether the first call of each geometry times the heuristic's
/// candidates (RLX_CUDNN_AUTOTUNE, on unless 0), as PyTorch's
/// cudnn.benchmark does: the heuristic's first choice is often not the
/// fastest (for ResNet-50 at batch 1, the convolutions took twice the time
/// of the generic kernels with it).
bool autotuneEnabled() {
  static const bool enabled = [] {
    const char *value = std::getenv("RLX_CUDNN_AUTOTUNE");
    return !value || std::string(value) != "0";
  }();
  return enabled;
}

/// Runs one convolution with `plan`'s descriptors, algorithm `algo` and a
/// workspace; returns cuDNN's status.
using RunConvolution = std::function<cudnnStatus(
    const Plan &plan, int algo, void *workspace, size_t workspaceBytes)>;

/// Times each candidate of `plan` on the call's own buffers (one warm-up
/// run and the median of three timed ones, CUDA events on `stream`) and
/// keeps the fastest. Outside a stream capture only: a captured run is
/// never executed, so its plan stays with the heuristic's choice until a
/// later uncaptured call.
void tune(const Session &cu, Plan &plan, CUstream stream,
          const RunConvolution &runWith) {
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  cu.check(cu->cuStreamIsCapturing(stream, &capture), "cuStreamIsCapturing");
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return;
  CUevent start, stop;
  cu.check(cu->cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  cu.check(cu->cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  float best = std::numeric_limits<float>::infinity();
  // A candidate the heuristic reported as supported may still refuse the
  // call (cuDNN 9 returns CUDNN_STATUS_BAD_PARAM for some bf16 NCHW
  // algorithms): it is dropped, and the others are timed.
  std::vector<std::pair<int, size_t>> working;
  for (auto [algo, workspaceBytes] : plan.candidates) {
    void *workspace = allocateDevice(cu, workspaceBytes, stream);
    if (runWith(plan, algo, workspace, workspaceBytes) != kCudnnSuccess) {
      if (workspace)
        freeMemory(cu, workspace, stream);
      continue;
    }
    working.push_back({algo, workspaceBytes});
    float times[3];
    for (float &ms : times) {
      cu.check(cu->cuEventRecord(start, stream), "cuEventRecord");
      runWith(plan, algo, workspace, workspaceBytes);
      cu.check(cu->cuEventRecord(stop, stream), "cuEventRecord");
      cu.check(cu->cuEventSynchronize(stop), "cuEventSynchronize");
      cu.check(cu->cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    }
    if (workspace)
      freeMemory(cu, workspace, stream);
    std::sort(std::begin(times), std::end(times));
    if (times[1] < best) {
      best = times[1];
      plan.algo = algo;
      plan.workspace = workspaceBytes;
    }
  }
  // With none working, the call below reports the heuristic's first
  // choice's error.
  if (!working.empty())
    plan.candidates = std::move(working);
  cu.check(cu->cuEventDestroy(start), "cuEventDestroy");
  cu.check(cu->cuEventDestroy(stop), "cuEventDestroy");
  plan.tuned = true;
}

/// A plan's descriptors (fixed once made) and the algorithm chosen when it
/// was asked for.
struct Choice {
  const Plan *plan;
  int algo;
  size_t workspace;
};

/// The plan of `geometry`, made at its first call and tuned at its first
/// uncaptured call; plans are kept for the process's life. The lock is
/// held while tuning, so concurrent first calls time alone.
Choice planFor(const Session &cu, const CudnnApi &api, cudnnHandle handle,
               const Geometry &geometry, CUstream stream,
               const RunConvolution &runWith) {
  static std::mutex mutex;
  static std::map<Geometry, Plan> plans;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = plans.find(geometry);
  if (found == plans.end())
    found = plans.emplace(geometry, makePlan(cu, api, handle, geometry)).first;
  Plan &plan = found->second;
  if (!plan.tuned && autotuneEnabled())
    tune(cu, plan, stream, runWith);
  return {&plan, plan.algo, plan.workspace};
}

/// x (N,C,H,W), w (K,C/groups,R,S), y (N,K,P,Q), or with
/// RLX_CUDA_CONV_CHANNELS_LAST in `flags` x (N,H,W,C), w (K,R,S,C/groups),
/// y (N,P,Q,K): the forward convolution writes y, backward data writes x
/// from y and w, backward filter writes w from x and y. Each overwrites its
/// output (beta 0).
void convolution(const char *caller, Direction direction, int dataType,
                 size_t elementBytes, int32_t flags, const Descriptor<4> *x,
                 const Descriptor<4> *w, const Descriptor<4> *y,
                 const int64_t *padding, const int64_t *stride,
                 const int64_t *dilation) {
  for (const Descriptor<4> *d : {x, w, y})
    for (int dim = 0; dim < 4; ++dim)
      if (d->sizes[dim] == 0)
        return;
  Session cu(caller);
  const CudnnApi &api = cudnn(caller);
  cudnnHandle handle = threadHandle(cu, api);
  // The logical NCHW extents of a buffer: channels last keeps C at dim 3.
  bool channelsLast = flags & RLX_CUDA_CONV_CHANNELS_LAST;
  auto extent = [&](const Descriptor<4> *d, int dim) {
    static constexpr int kFromNHWC[] = {0, 3, 1, 2};
    return d->sizes[channelsLast ? kFromNHWC[dim] : dim];
  };
  Geometry geometry = {
      static_cast<int64_t>(direction),
      dataType,
      flags & (RLX_CUDA_GEMM_ALLOW_TF32 | RLX_CUDA_CONV_CHANNELS_LAST),
      extent(x, 0),
      extent(x, 1),
      extent(x, 2),
      extent(x, 3),
      extent(w, 0),
      extent(w, 1),
      extent(w, 2),
      extent(w, 3),
      extent(y, 0),
      extent(y, 1),
      extent(y, 2),
      extent(y, 3),
      padding[0],
      padding[1],
      stride[0],
      stride[1],
      dilation[0],
      dilation[1]};
  auto pointer = [&](const Descriptor<4> *d) {
    return d->aligned + d->offset * elementBytes;
  };
  CUstream stream = graphStream(cu);
  float one = 1, zero = 0;
  RunConvolution runWith = [&](const Plan &p, int algo, void *workspace,
                               size_t workspaceBytes) -> cudnnStatus {
    switch (direction) {
    case Direction::Forward:
      return api.fwd(handle, &one, p.x, pointer(x), p.w, pointer(w), p.conv,
                     algo, workspace, workspaceBytes, &zero, p.y, pointer(y));
    case Direction::BackwardData:
      return api.bwdData(handle, &one, p.w, pointer(w), p.y, pointer(y), p.conv,
                         algo, workspace, workspaceBytes, &zero, p.x,
                         pointer(x));
    case Direction::BackwardFilter:
      return api.bwdFilter(handle, &one, p.x, pointer(x), p.y, pointer(y),
                           p.conv, algo, workspace, workspaceBytes, &zero, p.w,
                           pointer(w));
    }
    return kNotRun;
  };
  static constexpr const char *kCall[] = {"cudnnConvolutionForward",
                                          "cudnnConvolutionBackwardData",
                                          "cudnnConvolutionBackwardFilter"};
  Choice choice = planFor(cu, api, handle, geometry, stream, runWith);
  // Stream-ordered workspace from the caching allocator: freed once the
  // convolution queued before it no longer uses it.
  void *workspace = allocateDevice(cu, choice.workspace, stream);
  cudnnStatus status =
      runWith(*choice.plan, choice.algo, workspace, choice.workspace);
  if (workspace)
    freeMemory(cu, workspace, stream);
  // An untuned plan (autotuning off, or a first call inside a stream
  // capture) tries the heuristic's other candidates when its first choice
  // refuses the call.
  for (auto [algo, workspaceBytes] : choice.plan->candidates) {
    if (status == kCudnnSuccess)
      break;
    if (algo == choice.algo)
      continue;
    workspace = allocateDevice(cu, workspaceBytes, stream);
    status = runWith(*choice.plan, algo, workspace, workspaceBytes);
    if (workspace)
      freeMemory(cu, workspace, stream);
  }
  check(api, status, kCall[static_cast<int>(direction)], caller);
}

} // namespace

/// Whether cuDNN opens here; graphs compiled with cuDNN convolutions ask
/// before the first one so that a machine without it runs the generic
/// kernels (with a one-line notice) instead of aborting.
extern "C" bool rlx_cuda_cudnn_available() {
  static bool available = [] {
    std::string error;
    void *library = openToolkitLibrary("RLX_CUDNN_LIBRARY", "libcudnn.so.9",
                                       "cuDNN", error);
    if (!library)
      fprintf(stderr, "rlx: %s; convolutions run as generic kernels\n",
              error.c_str());
    return library != nullptr;
  }();
  return available;
}

#define RLX_CUDA_CONV_ENTRY(suffix, cudnnType, bytes)                          \
  extern "C" void _mlir_ciface_rlx_cuda_conv2d_##suffix(                       \
      const Descriptor<4> *x, const Descriptor<4> *w, const Descriptor<4> *y,  \
      int32_t padH, int32_t padW, int32_t strideH, int32_t strideW,            \
      int32_t dilationH, int32_t dilationW, int32_t flags) {                   \
    const int64_t padding[] = {padH, padW}, stride[] = {strideH, strideW},     \
                  dilation[] = {dilationH, dilationW};                         \
    convolution(__func__, Direction::Forward, cudnnType, bytes, flags, x, w,   \
                y, padding, stride, dilation);                                 \
  }                                                                            \
  extern "C" void _mlir_ciface_rlx_cuda_conv2d_backward_data_##suffix(         \
      const Descriptor<4> *x, const Descriptor<4> *w, const Descriptor<4> *y,  \
      int32_t padH, int32_t padW, int32_t strideH, int32_t strideW,            \
      int32_t dilationH, int32_t dilationW, int32_t flags) {                   \
    const int64_t padding[] = {padH, padW}, stride[] = {strideH, strideW},     \
                  dilation[] = {dilationH, dilationW};                         \
    convolution(__func__, Direction::BackwardData, cudnnType, bytes, flags, x, \
                w, y, padding, stride, dilation);                              \
  }                                                                            \
  extern "C" void _mlir_ciface_rlx_cuda_conv2d_backward_filter_##suffix(       \
      const Descriptor<4> *x, const Descriptor<4> *w, const Descriptor<4> *y,  \
      int32_t padH, int32_t padW, int32_t strideH, int32_t strideW,            \
      int32_t dilationH, int32_t dilationW, int32_t flags) {                   \
    const int64_t padding[] = {padH, padW}, stride[] = {strideH, strideW},     \
                  dilation[] = {dilationH, dilationW};                         \
    convolution(__func__, Direction::BackwardFilter, cudnnType, bytes, flags,  \
                x, w, y, padding, stride, dilation);                           \
  }

RLX_CUDA_CONV_ENTRY(f32, kCudnnFloat, 4)
RLX_CUDA_CONV_ENTRY(f16, kCudnnHalf, 2)
RLX_CUDA_CONV_ENTRY(bf16, kCudnnBFloat16, 2)
