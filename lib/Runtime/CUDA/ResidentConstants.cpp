//===- ResidentConstants.cpp - graph constants kept on the device ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-cuda-resident-constants turns each constant a graph takes (a constant
// global of its library) into a call of rlx_cuda_resident_constant with the
// constant's host address and byte size. The first call in a device context
// uploads the bytes to memory of their own; every later call returns that
// copy. A run therefore copies nothing for its constants, and a CUDA graph
// captured from one holds no copy node for them: copied on every run, a 1 MB
// constant took 0.1 ms of a 2.1 ms LLM decode step on an H200.
//
// A constant's bytes never change while its library is loaded, so the host
// address, the size and the context name the copy. A library unloaded frees
// the copies of its constants: the next one loaded may place other bytes at
// the same address.
//
//===----------------------------------------------------------------------===//

#include "ResidentConstants.h"

#include "Driver.h"
#include "GraphStream.h"

#include "rlx/Runtime/CUDARuntime.h"
#include "rlx/Runtime/MemRefDescriptor.h"

#include <cstdint>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace rlxrt::cuda;

namespace {

/// What names a device copy: the same bytes in another context (device) get
/// a copy of their own.
struct ConstantKey {
  uintptr_t host;
  int64_t bytes;
  CUcontext context;

  bool operator<(const ConstantKey &other) const {
    return std::tie(host, bytes, context) <
           std::tie(other.host, other.bytes, other.context);
  }
};

struct ResidentConstant {
  CUdeviceptr device;
  /// The base of the shared object that holds the host bytes (dladdr), null
  /// when none does (a JIT-compiled graph).
  const void *owner;
};

std::mutex constantsMutex;

std::map<ConstantKey, ResidentConstant> &residentConstants() {
  // Never destroyed: graph libraries unload their modules from global
  // destructors, which may run after this file's.
  static auto *constants = new std::map<ConstantKey, ResidentConstant>;
  return *constants;
}

const void *sharedObjectOf(const void *address) {
  Dl_info info;
  if (address && dladdr(address, &info) && info.dli_fbase)
    return info.dli_fbase;
  return nullptr;
}

/// Device memory for a constant, straight from the driver: it is never
/// freed on a stream, so it must never reach the caching allocator (which
/// would hand it to another buffer) nor a captured graph's memory.
CUdeviceptr allocateConstant(const Session &cu, int64_t bytes) {
  CUdeviceptr device = 0;
  CUresult result = cu->cuMemAlloc(&device, bytes);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    // Blocks the caching allocator keeps free may be what is missing.
    rlx_cuda_release_cached_memory();
    result = cu->cuMemAlloc(&device, bytes);
  }
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    fatal(cu.caller(), "out of device memory: " + std::to_string(bytes) +
                           " bytes requested on device " +
                           std::to_string(cu.device()) +
                           " for a constant of the graph");
  cu.check(result, "cuMemAlloc");
  return device;
}

/// The device copy of `bytes` at `host`, made now: a copy on the graph
/// stream, waited for, so that every stream of every thread may read it once
/// it is in the cache.
CUdeviceptr upload(const Session &cu, const void *host, int64_t bytes) {
  CUstream stream = graphStream(cu);
  // Runs are captured only after an eager run of the same graph, which made
  // the copies; a constant first met during a capture (a graph whose first
  // run was captured) cannot be copied there: the copy would be a node of
  // the graph, and the wait below is illegal while capturing.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  cu.check(cu->cuStreamIsCapturing(stream, &capture), "cuStreamIsCapturing");
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE)
    fatal(cu.caller(),
          "a constant of " + std::to_string(bytes) +
              " bytes is first used while the run is captured as a CUDA "
              "graph; constants are uploaded by an eager run of the graph "
              "first (RLX_CUDA_GRAPHS=0 runs without graphs)");
  CUdeviceptr device = allocateConstant(cu, bytes);
  CUresult copied = cu->cuMemcpyAsync(
      device, reinterpret_cast<CUdeviceptr>(host), bytes, stream);
  if (copied == CUDA_SUCCESS)
    copied = cu->cuStreamSynchronize(stream);
  if (copied != CUDA_SUCCESS) {
    cu->cuMemFree(device);
    cu.check(copied, "cuMemcpyAsync (constant to device)");
  }
  return device;
}

} // namespace

/// The device copy of the `bytes` bytes at `host` (a constant of a compiled
/// graph) in the calling thread's context, as a byte buffer. Thread-safe; a
/// copy is made once per context and kept until its library is unloaded.
extern "C" void
_mlir_ciface_rlx_cuda_resident_constant(rlxrt::MemRefDescriptor<char, 1> *copy,
                                        intptr_t host, int64_t bytes) {
  Session cu("rlx_cuda_resident_constant");
  CUdeviceptr device = 0;
  if (bytes > 0) {
    CUcontext context = nullptr;
    cu.check(cu->cuCtxGetCurrent(&context), "cuCtxGetCurrent");
    ConstantKey key{static_cast<uintptr_t>(host), bytes, context};
    std::lock_guard<std::mutex> lock(constantsMutex);
    std::map<ConstantKey, ResidentConstant> &constants = residentConstants();
    auto it = constants.find(key);
    if (it == constants.end()) {
      const void *hostBytes = reinterpret_cast<const void *>(host);
      CUdeviceptr uploaded = upload(cu, hostBytes, bytes);
      it = constants
               .emplace(key,
                        ResidentConstant{uploaded, sharedObjectOf(hostBytes)})
               .first;
    }
    device = it->second.device;
  }
  copy->allocated = copy->aligned = reinterpret_cast<char *>(device);
  copy->offset = 0;
  copy->sizes[0] = bytes;
  copy->strides[0] = 1;
}

void rlxrt::cuda::releaseResidentConstants(const void *moduleImage) {
  std::vector<std::pair<CUcontext, CUdeviceptr>> released;
  {
    std::lock_guard<std::mutex> lock(constantsMutex);
    std::map<ConstantKey, ResidentConstant> &constants = residentConstants();
    if (constants.empty())
      return;
    const void *owner = sharedObjectOf(moduleImage);
    for (auto it = constants.begin(); it != constants.end();) {
      if (it->second.owner != owner) {
        ++it;
        continue;
      }
      released.push_back({it->first.context, it->second.device});
      it = constants.erase(it);
    }
  }
  if (released.empty())
    return;
  Session cu("mgpuModuleUnload", Session::Kind::Release);
  if (cu.driverShutDown())
    return;
  // Each copy is freed in its own context (cuMemFree waits for the work
  // using it), then the thread's context is current again.
  CUcontext current = nullptr;
  cu.check(cu->cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  for (auto [context, device] : released) {
    cu.check(cu->cuCtxSetCurrent(context), "cuCtxSetCurrent");
    cu.check(cu->cuMemFree(device), "cuMemFree");
  }
  cu.check(cu->cuCtxSetCurrent(current), "cuCtxSetCurrent");
}
