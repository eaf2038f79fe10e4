//===- DeviceAllocator.cpp - memory behind mgpuMemAlloc -------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "DeviceAllocator.h"
#include "CachingAllocator.h"

#include "rlx/Runtime/CUDARuntime.h"

#include <mutex>
#include <string>
#include <unordered_set>

using namespace rlxrt::cuda;

namespace {

/// The caching allocator's device side: driver calls checked on behalf of
/// the entry point that `cu` names.
class DriverMemory final : public DeviceMemory {
public:
  explicit DriverMemory(const Session &cu) : cu(cu) {}

  void *allocate(size_t bytes) override {
    CUdeviceptr pointer = 0;
    CUresult result = cu->cuMemAlloc(&pointer, bytes);
    if (result == CUDA_ERROR_OUT_OF_MEMORY)
      return nullptr;
    cu.check(result, "cuMemAlloc");
    return reinterpret_cast<void *>(pointer);
  }

  void release(void *block) override {
    cu.check(cu->cuMemFree(reinterpret_cast<CUdeviceptr>(block)), "cuMemFree");
  }

  void *recordFence(void *stream) override {
    // Compiled graphs always free on a stream. Without one, the block's users
    // are unknown: wait for the whole device, as cuMemFree would.
    if (!stream) {
      cu.check(cu->cuCtxSynchronize(), "cuCtxSynchronize");
      return nullptr;
    }
    CUevent event = nullptr;
    cu.check(cu->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
             "cuEventCreate");
    cu.check(cu->cuEventRecord(event, static_cast<CUstream>(stream)),
             "cuEventRecord");
    return event;
  }

  void waitFence(void *fence) override {
    cu.check(cu->cuEventSynchronize(static_cast<CUevent>(fence)),
             "cuEventSynchronize");
    dropFence(fence);
  }

  void dropFence(void *fence) override {
    cu.check(cu->cuEventDestroy(static_cast<CUevent>(fence)), "cuEventDestroy");
  }

private:
  const Session &cu;
};

/// The memory of a graph being captured: no fences, since every use of its
/// blocks is a node of the one captured stream, in order.
class CapturedMemory final : public DeviceMemory {
public:
  CapturedMemory(const Session &cu, bool duringCapture)
      : driver(cu), cu(cu), duringCapture(duringCapture) {}
  void *allocate(size_t bytes) override { return driver.allocate(bytes); }
  void release(void *block) override {
    // The allocator gives its cached blocks back when the device runs out;
    // during a capture, nodes already captured still use them.
    if (duringCapture)
      fatal(cu.caller(), "out of device memory while capturing a CUDA graph "
                         "(RLX_CUDA_GRAPHS=0 runs without graphs)");
    driver.release(block);
  }
  void *recordFence(void *) override { return nullptr; }
  void waitFence(void *) override {}
  void dropFence(void *) override {}

private:
  DriverMemory driver;
  const Session &cu;
  bool duringCapture;
};

/// The graph memory this thread captures into, if any.
thread_local GraphMemory *capturing = nullptr;

CachingAllocator &deviceBlocks() {
  // Never destroyed: graphs free buffers from global destructors.
  static auto *allocator = new CachingAllocator;
  return *allocator;
}

std::mutex hostSharedMutex;
std::unordered_set<void *> &hostSharedBlocks() {
  static auto *blocks = new std::unordered_set<void *>;
  return *blocks;
}

} // namespace

void *rlxrt::cuda::allocateDevice(const Session &cu, uint64_t bytes,
                                  CUstream stream) {
  if (capturing && capturing->stream == stream) {
    CapturedMemory memory(cu, /*duringCapture=*/true);
    void *pointer =
        capturing->blocks.allocate(bytes, cu.device(), stream, memory);
    if (!pointer && bytes)
      fatal(cu.caller(), "out of device memory while capturing a CUDA graph: " +
                             std::to_string(bytes) +
                             " bytes requested on device " +
                             std::to_string(cu.device()) +
                             " (RLX_CUDA_GRAPHS=0 runs without graphs)");
    return pointer;
  }
  DriverMemory memory(cu);
  CachingAllocator &blocks = deviceBlocks();
  void *pointer = blocks.allocate(bytes, cu.device(), stream, memory);
  if (!pointer && bytes)
    fatal(cu.caller(), "out of device memory: " + std::to_string(bytes) +
                           " bytes requested on device " +
                           std::to_string(cu.device()) + ", " +
                           std::to_string(blocks.liveBytes()) +
                           " bytes in live allocations");
  return pointer;
}

void *rlxrt::cuda::allocateHostShared(const Session &cu, uint64_t bytes) {
  if (!bytes)
    return nullptr;
  void *pointer = nullptr;
  cu.check(
      cu->cuMemHostAlloc(&pointer, bytes,
                         CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
      "cuMemHostAlloc");
  std::lock_guard<std::mutex> lock(hostSharedMutex);
  hostSharedBlocks().insert(pointer);
  return pointer;
}

void rlxrt::cuda::freeMemory(const Session &cu, void *pointer,
                             CUstream stream) {
  if (!pointer)
    return;
  if (capturing && capturing->stream == stream) {
    CapturedMemory memory(cu, /*duringCapture=*/true);
    if (capturing->blocks.free(pointer, stream, memory))
      return;
    // A buffer from before the capture would need a fence the capture cannot
    // wait on; compiled graphs free only their own temporaries.
    return cu.fail("a captured graph freed memory it did not allocate "
                   "(RLX_CUDA_GRAPHS=0 runs without graphs)");
  }
  DriverMemory memory(cu);
  if (deviceBlocks().free(pointer, stream, memory))
    return;
  {
    std::lock_guard<std::mutex> lock(hostSharedMutex);
    if (!hostSharedBlocks().erase(pointer))
      return cu.fail("pointer was not allocated by mgpuMemAlloc");
  }
  // Pinned host memory is released at once: wait for its users first.
  if (void *fence = memory.recordFence(stream))
    memory.waitFence(fence);
  cu.check(cu->cuMemFreeHost(pointer), "cuMemFreeHost");
}

void GraphMemory::begin(CUstream captureStream) {
  stream = captureStream;
  capturing = this;
}

void GraphMemory::end() {
  if (capturing == this)
    capturing = nullptr;
  stream = nullptr;
}

GraphMemory::~GraphMemory() {
  end();
  Session cu(__func__, Session::Kind::Release);
  if (cu.driverShutDown())
    return;
  CapturedMemory memory(cu, /*duringCapture=*/false);
  blocks.releaseCached(memory);
}

extern "C" void rlx_cuda_release_cached_memory(void) {
  Session cu(__func__);
  DriverMemory memory(cu);
  deviceBlocks().releaseCached(memory);
}
