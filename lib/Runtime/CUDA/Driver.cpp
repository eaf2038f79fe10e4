//===- Driver.cpp - the CUDA driver, loaded on first use ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

using namespace rlxrt::cuda;

#define RLX_CUDA_STRINGIFY_IMPL(x) #x
// Expands `x` first, so a versioned name (cuMemAlloc_v2) is looked up.
#define RLX_CUDA_STRINGIFY(x) RLX_CUDA_STRINGIFY_IMPL(x)

namespace {

/// More devices than any host this runtime serves; their contexts live in a
/// fixed table so the common path reads it without a lock.
constexpr int kMaxDevices = 64;

struct DriverState {
  DriverApi api;
  int deviceCount = 0;
  std::string error;
};

DriverState *openDriver() {
  // Never destroyed: compiled graphs unload their modules from global
  // destructors, possibly after this library's own.
  auto *state = new DriverState;
  const char *override = std::getenv("RLX_CUDA_DRIVER");
  std::string path = override && *override ? override : "libcuda.so.1";
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    state->error = "no CUDA driver (" + path +
                   " not found): " + (reason ? reason : "dlopen failed");
    return state;
  }
  DriverApi &api = state->api;
#define RLX_CUDA_DRIVER_FUNCTION(name)                                         \
  api.name = reinterpret_cast<decltype(api.name)>(                             \
      dlsym(library, RLX_CUDA_STRINGIFY(name)));                               \
  if (!api.name && state->error.empty())                                       \
    state->error = "CUDA driver too old: " + path + " has no " +               \
                   RLX_CUDA_STRINGIFY(name) + " (the runtime needs CUDA " +    \
                   std::to_string(CUDA_VERSION / 1000) + ".x)";
#include "DriverFunctions.def"
  if (!state->error.empty())
    return state;
  if (CUresult result = api.cuInit(0)) {
    state->error =
        std::string(result == CUDA_ERROR_NO_DEVICE ? "no CUDA device"
                                                   : "no usable CUDA driver") +
        ": cuInit failed with " + describe(api, result);
    return state;
  }
  if (CUresult result = api.cuDeviceGetCount(&state->deviceCount)) {
    state->error =
        "no CUDA device: cuDeviceGetCount failed with " + describe(api, result);
    return state;
  }
  if (state->deviceCount == 0)
    state->error = "no CUDA device: the driver reports none";
  return state;
}

const DriverState &driverState() {
  static const DriverState *state = openDriver();
  return *state;
}

/// The device RLX_CUDA_DEVICE names, or -1 when it names none. Unset, it is
/// the process's rank on its host when a launcher started it (one process
/// per GPU: rlx-run --ranks, mpirun, srun), else 0.
int environmentDevice() {
  static const int device = [] {
    const char *text = std::getenv("RLX_CUDA_DEVICE");
    if (!text || !*text) {
      for (const char *localRank :
           {"RLX_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
            "SLURM_LOCALID"})
        if ((text = std::getenv(localRank)) && *text)
          break;
      if (!text || !*text)
        return 0;
    }
    char *end = nullptr;
    long value = std::strtol(text, &end, 10);
    return *end || value < 0 || value >= kMaxDevices ? -1 : int(value);
  }();
  return device;
}

thread_local int threadDevice = -1;

std::atomic<CUcontext> primaryContexts[kMaxDevices];
std::mutex retainMutex;

} // namespace

std::string rlxrt::cuda::describe(const DriverApi &api, CUresult result) {
  const char *name = nullptr;
  const char *text = nullptr;
  if (api.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name) {
    // The toolkit's stub libcuda, found instead of a driver, names nothing.
    if (result == CUDA_ERROR_STUB_LIBRARY)
      return "CUDA_ERROR_STUB_LIBRARY (a stub libcuda, not a driver)";
    return "CUDA error " + std::to_string(int(result));
  }
  std::string described = name;
  if (api.cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    described += std::string(" (") + text + ")";
  return described;
}

const std::string &rlxrt::cuda::loadDriver(const DriverApi *&api) {
  const DriverState &state = driverState();
  api = state.error.empty() ? &state.api : nullptr;
  return state.error;
}

int rlxrt::cuda::currentDevice() {
  return threadDevice >= 0 ? threadDevice : environmentDevice();
}

void rlxrt::cuda::setCurrentDevice(int device) { threadDevice = device; }

std::string rlxrt::cuda::failureText(const char *caller,
                                     const std::string &message) {
  std::string text = message + " (in " + caller;
  if (const char *op = lastOpBegun())
    text += std::string("; last rlx op begun: ") + op;
  return text + ")";
}

void rlxrt::cuda::fatal(const char *caller, const std::string &message) {
  // Inside a guarded run the error is the run's status (RunGuard.cpp). The
  // allocator's messages for memory that ran out start so.
  throwIfGuarded(failureText(caller, message),
                 message.rfind("out of device memory", 0) == 0);
  if (const char *op = lastOpBegun())
    // A kernel's fault surfaces at a later synchronizing call, so the op
    // begun last may come after the one whose kernel failed.
    std::fprintf(stderr,
                 "rlx CUDA runtime: %s (in %s; last rlx op begun: %s; "
                 "CUDA_LAUNCH_BLOCKING=1 reports a kernel's fault at its "
                 "launch)\n",
                 message.c_str(), caller, op);
  else
    std::fprintf(stderr, "rlx CUDA runtime: %s (in %s)\n", message.c_str(),
                 caller);
  std::fflush(stdout);
  std::fflush(stderr);
  // Outside a guarded run there is no status to return (a graph's host
  // entries guard themselves, runGraphEntry: this is a program calling the
  // device entry itself, or a frame the throw could not cross). A failed
  // call is an error of the run, not a crash of the process: exit with
  // status 1 rather than abort (which hosts report as a crash, with a stack
  // dump). Destructors do not run: the driver may be unusable.
  std::_Exit(1);
}

Session::Session(const char *caller, Kind kind) : name(caller), kind(kind) {
  // A releasing session that cannot use the driver has nothing to release:
  // its failure is deferred (fail) and the entry point returns.
  std::string error = open();
  if (error.empty())
    return;
  shutDown = true;
  fail(error);
}

std::string Session::open() {
  const DriverState &state = driverState();
  if (!state.error.empty())
    return state.error;
  api = &state.api;
  ordinal = currentDevice();
  if (ordinal < 0) {
    const char *named = std::getenv("RLX_CUDA_DEVICE");
    return named && *named ? std::string("RLX_CUDA_DEVICE=") + named +
                                 " is not a device ordinal"
                           : std::string("the launcher's local rank is not a "
                                         "device ordinal; set RLX_CUDA_DEVICE");
  }
  if (ordinal >= state.deviceCount || ordinal >= kMaxDevices)
    return "no CUDA device " + std::to_string(ordinal) + " (" +
           std::to_string(state.deviceCount) + " found)";
  auto failed = [&](CUresult result, const char *call) {
    return std::string(call) + " failed with " + describe(result);
  };

  CUcontext context = primaryContexts[ordinal].load(std::memory_order_acquire);
  if (!context) {
    std::lock_guard<std::mutex> lock(retainMutex);
    context = primaryContexts[ordinal].load(std::memory_order_relaxed);
    if (!context) {
      CUdevice device;
      if (CUresult result = api->cuDeviceGet(&device, ordinal))
        return failed(result, "cuDeviceGet");
      // Retained for the life of the process: modules, streams and cached
      // blocks live in it until exit.
      if (CUresult result = api->cuDevicePrimaryCtxRetain(&context, device))
        return failed(result, "cuDevicePrimaryCtxRetain");
      primaryContexts[ordinal].store(context, std::memory_order_release);
    }
  }
  // The context is per thread: each thread that calls in gets it here.
  CUcontext current = nullptr;
  CUresult result = api->cuCtxGetCurrent(&current);
  if (result == CUDA_ERROR_DEINITIALIZED && kind == Kind::Release) {
    shutDown = true;
    return "";
  }
  if (result)
    return failed(result, "cuCtxGetCurrent");
  if (current != context)
    if (CUresult result = api->cuCtxSetCurrent(context))
      return failed(result, "cuCtxSetCurrent");
  return "";
}

void Session::check(CUresult result, const char *call) const {
  if (result == CUDA_ERROR_DEINITIALIZED && kind == Kind::Release)
    return;
  if (result != CUDA_SUCCESS)
    fail(std::string(call) + " failed with " + describe(result));
}

void Session::fail(const std::string &message) const {
  if (kind != Kind::Release)
    fatal(name, message);
  deferFailure(failureText(name, message));
}
