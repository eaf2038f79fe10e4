//===- ToolApi.cpp - queries and timers for tools -------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/CUDARuntime.h"

#include "Driver.h"

#include <cstdio>
#include <string>

using namespace rlxrt::cuda;

namespace {

/// Why the thread's device is unusable, or its description.
bool describeDevice(std::string &text) {
  const DriverApi *api = nullptr;
  text = loadDriver(api);
  if (!api)
    return false;
  int count = 0, ordinal = currentDevice();
  CUdevice device;
  char name[256] = {0};
  int version = 0;
  if (api->cuDeviceGetCount(&count) != CUDA_SUCCESS || ordinal < 0 ||
      ordinal >= count || api->cuDeviceGet(&device, ordinal) != CUDA_SUCCESS ||
      api->cuDeviceGetName(name, sizeof(name), device) != CUDA_SUCCESS) {
    text = ordinal < 0 ? "RLX_CUDA_DEVICE is not a device ordinal"
                       : "no CUDA device " + std::to_string(ordinal) + " (" +
                             std::to_string(count) + " found)";
    return false;
  }
  api->cuDriverGetVersion(&version);
  text = std::string(name) + " (device " + std::to_string(ordinal) + " of " +
         std::to_string(count) + ", driver CUDA " +
         std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10) + ")";
  return true;
}

} // namespace

struct rlx_cuda_timer {
  CUevent start;
  CUevent stop;
};

extern "C" int rlx_cuda_available(char *message, size_t size) {
  std::string text;
  bool available = describeDevice(text);
  if (message && size)
    std::snprintf(message, size, "%s", text.c_str());
  return available ? 1 : 0;
}

extern "C" rlx_cuda_timer *rlx_cuda_time_begin(void *stream) {
  Session cu(__func__);
  auto *timer = new rlx_cuda_timer{};
  cu.check(cu->cuEventCreate(&timer->start, CU_EVENT_DEFAULT), "cuEventCreate");
  cu.check(cu->cuEventCreate(&timer->stop, CU_EVENT_DEFAULT), "cuEventCreate");
  cu.check(cu->cuEventRecord(timer->start, static_cast<CUstream>(stream)),
           "cuEventRecord");
  return timer;
}

extern "C" float rlx_cuda_time_end(rlx_cuda_timer *timer, void *stream) {
  Session cu(__func__);
  cu.check(cu->cuEventRecord(timer->stop, static_cast<CUstream>(stream)),
           "cuEventRecord");
  cu.check(cu->cuEventSynchronize(timer->stop), "cuEventSynchronize");
  float milliseconds = 0;
  cu.check(cu->cuEventElapsedTime(&milliseconds, timer->start, timer->stop),
           "cuEventElapsedTime");
  cu.check(cu->cuEventDestroy(timer->start), "cuEventDestroy");
  cu.check(cu->cuEventDestroy(timer->stop), "cuEventDestroy");
  delete timer;
  return milliseconds;
}
