//===- EntryPoints.cpp - the mgpu* functions compiled graphs call ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The host side of MLIR 22's GPU lowering (gpu-to-llvm and the gpu.binary
// translation) calls these functions; their names and signatures are that
// lowering's ABI, as declared in the LLVM IR it emits. The cuSPARSE entry
// points of the sparse lowering are not provided.
//
// Integer types follow the IR: `index` values arrive as intptr_t, sizes as
// 64-bit integers, the tensor-map enums as i64.
//
//===----------------------------------------------------------------------===//

#include "DeviceAllocator.h"
#include "Driver.h"
#include "GraphStream.h"
#include "ResidentConstants.h"

#include "rlx/Runtime/MemRefDescriptor.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using namespace rlxrt::cuda;

namespace {

/// Dynamic shared memory a kernel may use without opting in.
constexpr int32_t kDefaultDynamicSharedLimit = 48 * 1024;

CUdeviceptr devicePointer(const void *pointer) {
  return reinterpret_cast<CUdeviceptr>(pointer);
}

/// Lets `function` use `bytes` of dynamic shared memory: above 48 KiB a
/// kernel must opt in, up to what the device allows beside its static
/// shared memory.
void allowDynamicSharedMemory(const Session &cu, CUfunction function,
                              int32_t bytes) {
  if (bytes <= kDefaultDynamicSharedLimit)
    return;
  int allowed = 0;
  cu.check(
      cu->cuFuncGetAttribute(
          &allowed, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, function),
      "cuFuncGetAttribute");
  if (bytes <= allowed)
    return;
  CUdevice device;
  cu.check(cu->cuDeviceGet(&device, cu.device()), "cuDeviceGet");
  int optIn = 0, staticBytes = 0;
  cu.check(cu->cuDeviceGetAttribute(
               &optIn, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
               device),
           "cuDeviceGetAttribute");
  cu.check(cu->cuFuncGetAttribute(
               &staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function),
           "cuFuncGetAttribute");
  if (bytes > optIn - staticBytes)
    fatal(cu.caller(), "kernel asks for " + std::to_string(bytes) +
                           " bytes of dynamic shared memory; device " +
                           std::to_string(cu.device()) + " allows " +
                           std::to_string(optIn - staticBytes) +
                           " beside the kernel's " +
                           std::to_string(staticBytes) + " static bytes");
  cu.check(
      cu->cuFuncSetAttribute(
          function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
      "cuFuncSetAttribute");
}

/// The bytes of a dense memref and its first element; a failure of `cu`'s
/// entry point for a strided one, which host registration cannot describe
/// as one range (null in a releasing session, whose failure is deferred).
std::pair<void *, size_t> denseRange(const Session &cu, int64_t rank,
                                     void *descriptor, int64_t elementBytes) {
  auto *memref = static_cast<rlxrt::MemRefDescriptor<char, 1> *>(descriptor);
  const int64_t *sizes = memref->sizes;
  const int64_t *strides = sizes + rank;
  int64_t elements = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != elements) {
      cu.fail("memref is not densely packed (dimension " + std::to_string(i) +
              " has stride " + std::to_string(strides[i]) + ", expected " +
              std::to_string(elements) + ")");
      return {nullptr, 0};
    }
    elements *= sizes[i];
  }
  return {memref->aligned + memref->offset * elementBytes,
          size_t(elements * elementBytes)};
}

} // namespace

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

namespace {
/// A compiled graph loads its kernels from a global constructor, when the
/// library is opened; a module is therefore only recorded there and loaded
/// into the driver when its first kernel is looked up, so that a library
/// opens (and can say that no GPU is there) on any machine.
struct DeferredModule {
  const void *image;
  /// -1: a cubin; else the PTX JIT optimization level.
  int jitOptLevel;
  std::once_flag loaded;
  CUmodule module = nullptr;
};

CUmodule loadImage(const Session &cu, const DeferredModule &deferred) {
  CUmodule module = nullptr;
  if (deferred.jitOptLevel < 0) {
    cu.check(cu->cuModuleLoadData(&module, deferred.image), "cuModuleLoadData");
    return module;
  }
  // The PTX assembler's messages are the useful part of a failed JIT.
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {reinterpret_cast<void *>(intptr_t(deferred.jitOptLevel)),
                    log, reinterpret_cast<void *>(sizeof(log))};
  CUresult result =
      cu->cuModuleLoadDataEx(&module, deferred.image, 3, options, values);
  if (result != CUDA_SUCCESS && log[0])
    fatal(cu.caller(), "cuModuleLoadDataEx failed with " + cu.describe(result) +
                           ":\n" + log);
  cu.check(result, "cuModuleLoadDataEx");
  return module;
}
} // namespace

extern "C" void *mgpuModuleLoad(void *data, size_t /*sizeBytes*/) {
  return new DeferredModule{data, -1, {}, nullptr};
}

extern "C" void *mgpuModuleLoadJIT(void *data, int optLevel) {
  return new DeferredModule{data, std::max(optLevel, 0), {}, nullptr};
}

extern "C" void mgpuModuleUnload(void *handle) {
  noteModuleUnload();
  auto *deferred = static_cast<DeferredModule *>(handle);
  // The image lies in the graph library being closed, as do its constants.
  releaseResidentConstants(deferred->image);
  if (deferred->module) {
    Session cu(__func__, Session::Kind::Release);
    if (!cu.driverShutDown())
      cu.check(cu->cuModuleUnload(deferred->module), "cuModuleUnload");
  }
  delete deferred;
}

extern "C" CUfunction mgpuModuleGetFunction(void *handle, const char *name) {
  Session cu(__func__);
  auto *deferred = static_cast<DeferredModule *>(handle);
  std::call_once(deferred->loaded,
                 [&] { deferred->module = loadImage(cu, *deferred); });
  CUfunction function = nullptr;
  CUresult result = cu->cuModuleGetFunction(&function, deferred->module, name);
  if (result == CUDA_ERROR_NOT_FOUND)
    fatal(__func__, std::string("no kernel named '") + name + "' in module");
  cu.check(result, "cuModuleGetFunction");
  return function;
}

extern "C" void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t smem, CUstream stream,
                                 void **params, void **extra,
                                 size_t /*paramsCount*/) {
  Session cu(__func__);
  allowDynamicSharedMemory(cu, function, smem);
  cu.check(cu->cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                              blockZ, smem, stream, params, extra),
           "cuLaunchKernel");
}

// The lowering passes no parameter count to the cluster launch.
extern "C" void mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                                        intptr_t clusterY, intptr_t clusterZ,
                                        intptr_t gridX, intptr_t gridY,
                                        intptr_t gridZ, intptr_t blockX,
                                        intptr_t blockY, intptr_t blockZ,
                                        int32_t smem, CUstream stream,
                                        void **params, void **extra) {
  Session cu(__func__);
  allowDynamicSharedMemory(cu, function, smem);
  CUlaunchAttribute cluster = {};
  cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim.x = unsigned(clusterX);
  cluster.value.clusterDim.y = unsigned(clusterY);
  cluster.value.clusterDim.z = unsigned(clusterZ);
  CUlaunchConfig config = {};
  config.gridDimX = unsigned(gridX);
  config.gridDimY = unsigned(gridY);
  config.gridDimZ = unsigned(gridZ);
  config.blockDimX = unsigned(blockX);
  config.blockDimY = unsigned(blockY);
  config.blockDimZ = unsigned(blockZ);
  config.sharedMemBytes = unsigned(smem);
  config.hStream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  cu.check(cu->cuLaunchKernelEx(&config, function, params, extra),
           "cuLaunchKernelEx");
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

namespace {
thread_local CUstream threadGraphStream = nullptr;
std::mutex graphStreamsMutex;
std::vector<CUstream> &graphStreams() {
  static std::vector<CUstream> streams;
  return streams;
}
} // namespace

CUstream rlxrt::cuda::graphStream(const Session &cu) {
  if (!threadGraphStream) {
    cu.check(cu->cuStreamCreate(&threadGraphStream, CU_STREAM_NON_BLOCKING),
             "cuStreamCreate");
    std::lock_guard<std::mutex> lock(graphStreamsMutex);
    graphStreams().push_back(threadGraphStream);
  }
  return threadGraphStream;
}

bool rlxrt::cuda::isGraphStream(CUstream stream) {
  if (stream && stream == threadGraphStream)
    return true;
  std::lock_guard<std::mutex> lock(graphStreamsMutex);
  return std::find(graphStreams().begin(), graphStreams().end(), stream) !=
         graphStreams().end();
}

extern "C" CUstream mgpuStreamCreate() {
  Session cu(__func__);
  return graphStream(cu);
}

extern "C" void mgpuStreamDestroy(CUstream stream) {
  if (isGraphStream(stream))
    return;
  Session cu(__func__, Session::Kind::Release);
  if (cu.driverShutDown())
    return;
  cu.check(cu->cuStreamDestroy(stream), "cuStreamDestroy");
}

extern "C" void mgpuStreamSynchronize(CUstream stream) {
  Session cu(__func__);
  // Graphs wait on the host only to read the GPU's results, and such graphs
  // are never captured (RLX_CUDA_GRAPH_READS_ON_HOST): a wait here during a
  // capture is a graph compiled without that flag, whose capture would run
  // its host code on values the GPU has not computed.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  cu.check(cu->cuStreamIsCapturing(stream, &capture), "cuStreamIsCapturing");
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE)
    fatal(__func__, "a graph waits for the GPU on the host while its run is "
                    "captured as a CUDA graph (recompile it; "
                    "RLX_CUDA_GRAPHS=0 runs it without graphs)");
  cu.check(cu->cuStreamSynchronize(stream), "cuStreamSynchronize");
}

extern "C" void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  Session cu(__func__);
  cu.check(cu->cuStreamWaitEvent(stream, event, /*Flags=*/0),
           "cuStreamWaitEvent");
}

extern "C" CUevent mgpuEventCreate() {
  Session cu(__func__);
  CUevent event = nullptr;
  cu.check(cu->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

extern "C" void mgpuEventDestroy(CUevent event) {
  Session cu(__func__, Session::Kind::Release);
  if (cu.driverShutDown())
    return;
  cu.check(cu->cuEventDestroy(event), "cuEventDestroy");
}

extern "C" void mgpuEventSynchronize(CUevent event) {
  Session cu(__func__);
  cu.check(cu->cuEventSynchronize(event), "cuEventSynchronize");
}

extern "C" void mgpuEventRecord(CUevent event, CUstream stream) {
  Session cu(__func__);
  cu.check(cu->cuEventRecord(event, stream), "cuEventRecord");
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, CUstream stream,
                              bool isHostShared) {
  Session cu(__func__);
  return isHostShared ? allocateHostShared(cu, sizeBytes)
                      : allocateDevice(cu, sizeBytes, stream);
}

extern "C" void mgpuMemFree(void *pointer, CUstream stream) {
  Session cu(__func__, Session::Kind::Release);
  if (cu.driverShutDown())
    return;
  freeMemory(cu, pointer, stream);
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           CUstream stream) {
  Session cu(__func__);
  cu.check(cu->cuMemcpyAsync(devicePointer(dst), devicePointer(src), sizeBytes,
                             stream),
           "cuMemcpyAsync");
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             CUstream stream) {
  Session cu(__func__);
  cu.check(cu->cuMemsetD32Async(devicePointer(dst), value, count, stream),
           "cuMemsetD32Async");
}

extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             CUstream stream) {
  Session cu(__func__);
  cu.check(cu->cuMemsetD16Async(devicePointer(dst), value, count, stream),
           "cuMemsetD16Async");
}

extern "C" void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                          int64_t elementSizeBytes) {
  Session cu(__func__);
  auto [pointer, bytes] = denseRange(cu, rank, descriptor, elementSizeBytes);
  cu.check(cu->cuMemHostRegister(pointer, bytes, /*Flags=*/0),
           "cuMemHostRegister");
}

extern "C" void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                            int64_t elementSizeBytes) {
  Session cu(__func__, Session::Kind::Release);
  if (cu.driverShutDown())
    return;
  void *pointer = denseRange(cu, rank, descriptor, elementSizeBytes).first;
  if (pointer)
    cu.check(cu->cuMemHostUnregister(pointer), "cuMemHostUnregister");
}

extern "C" void mgpuSetDefaultDevice(int32_t device) {
  setCurrentDevice(device);
}

//===----------------------------------------------------------------------===//
// Tensor maps (nvgpu.tma.create.descriptor)
//===----------------------------------------------------------------------===//

namespace {

/// Bytes per element of each CUtensorMapDataType up to TFLOAT32_FTZ, the
/// types the nvgpu lowering emits.
constexpr int64_t kTensorMapElementBytes[] = {1, 2, 4, 4, 8, 8, 2,
                                              4, 8, 2, 4, 4, 4};

template <int Rank>
void readShape(void *descriptor, int64_t elementBytes, char *&address,
               cuuint64_t *globalDim, cuuint64_t *globalStrides) {
  auto *memref = static_cast<rlxrt::MemRefDescriptor<char, Rank> *>(descriptor);
  address = memref->aligned + memref->offset * elementBytes;
  // The tensor map lists dimensions innermost first; strides in bytes, for
  // every dimension but the innermost.
  for (int i = 0; i < Rank; ++i)
    globalDim[i] = cuuint64_t(memref->sizes[Rank - 1 - i]);
  for (int i = 0; i + 1 < Rank; ++i)
    globalStrides[i] = cuuint64_t(memref->strides[Rank - 2 - i] * elementBytes);
}

} // namespace

extern "C" void *mgpuTensorMapEncodeTiledMemref(
    int64_t tensorRank, void *descriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill, int64_t *boxDims) {
  Session cu(__func__);
  constexpr int64_t kTypes = std::size(kTensorMapElementBytes);
  if (dataType < 0 || dataType >= kTypes)
    fatal(__func__,
          "unsupported tensor map data type " + std::to_string(dataType));
  int64_t elementBytes = kTensorMapElementBytes[dataType];
  char *address = nullptr;
  cuuint64_t globalDim[5] = {1, 1, 1, 1, 1}, globalStrides[5] = {0};
  cuuint32_t box[5] = {1, 1, 1, 1, 1}, elementStrides[5] = {1, 1, 1, 1, 1};
  switch (tensorRank) {
  case 1:
    readShape<1>(descriptor, elementBytes, address, globalDim, globalStrides);
    break;
  case 2:
    readShape<2>(descriptor, elementBytes, address, globalDim, globalStrides);
    break;
  case 3:
    readShape<3>(descriptor, elementBytes, address, globalDim, globalStrides);
    break;
  case 4:
    readShape<4>(descriptor, elementBytes, address, globalDim, globalStrides);
    break;
  case 5:
    readShape<5>(descriptor, elementBytes, address, globalDim, globalStrides);
    break;
  default:
    fatal(__func__,
          "tensor maps have rank 1 to 5, not " + std::to_string(tensorRank));
  }
  for (int64_t i = 0; i < tensorRank; ++i)
    box[i] = cuuint32_t(boxDims[tensorRank - 1 - i]);

  CUtensorMap map;
  cu.check(cu->cuTensorMapEncodeTiled(
               &map, CUtensorMapDataType(dataType), cuuint32_t(tensorRank),
               address, globalDim, globalStrides, box, elementStrides,
               CUtensorMapInterleave(interleave), CUtensorMapSwizzle(swizzle),
               CUtensorMapL2promotion(l2Promotion),
               CUtensorMapFloatOOBfill(oobFill)),
           "cuTensorMapEncodeTiled");

  // Kernels read the map from device memory. Each graph run encodes the
  // same maps again (the caching allocator hands back the same buffers), so
  // one device copy per distinct map serves every run instead of leaking
  // one per call.
  using MapBytes = std::array<char, sizeof(CUtensorMap)>;
  static std::mutex mutex;
  static auto *copies = new std::map<std::pair<int, MapBytes>, CUdeviceptr>;
  MapBytes bytes;
  std::memcpy(bytes.data(), &map, sizeof(map));
  std::lock_guard<std::mutex> lock(mutex);
  CUdeviceptr &copy = (*copies)[{cu.device(), bytes}];
  if (!copy) {
    cu.check(cu->cuMemAlloc(&copy, sizeof(map)), "cuMemAlloc");
    cu.check(cu->cuMemcpy(copy, devicePointer(&map), sizeof(map)), "cuMemcpy");
  }
  return reinterpret_cast<void *>(copy);
}
