//===- CudaRuntimeTest.cpp - the CUDA runtime without a GPU ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// What the CUDA runtime does on a machine without a GPU: it loads, says why
// CUDA is unusable, and an entry point that needs CUDA fails with that
// reason, naming the rlx op begun last: inside a guarded run
// (rlx_rt_run_guarded) as the run's status, the process going on; outside
// one with exit status 1. A releasing entry point never exits: its failure
// is the guarded run's status, or outside one the thread's last release
// error. The runtime
// loads its driver once per process, so each test that chooses a driver
// runs in a fresh process (a death test in the threadsafe style, which
// re-executes the test binary).
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/CUDARuntime.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <string>

extern "C" {
void *mgpuStreamCreate();
void *mgpuModuleLoad(void *data, size_t sizeBytes);
void *mgpuModuleGetFunction(void *module, const char *name);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
void rlx_cuda_op_begin(int64_t id, const char *label);
void mgpuSetDefaultDevice(int32_t device);
void mgpuMemFree(void *pointer, void *stream);
int rlx_rt_run_guarded(void (*run)(void **), void **descriptors, char *message,
                       size_t size);
int rlx_rt_call_guarded(void (*call)(void *), void *context, char *message,
                        size_t size);
int rlx_cuda_last_release_error(char *message, size_t size);
}

namespace {

/// Runs of a graph as far as the runtime sees them: entry points called
/// between rlx_rt_run_guarded and the graph's code.
void allocates(void **) { mgpuMemAlloc(16, nullptr, false); }
void createsStream(void **) {
  rlx_cuda_op_begin(3, "rlx.softmax @ model.mlir:12:8");
  mgpuStreamCreate();
}
void frees(void **) { mgpuMemFree(reinterpret_cast<void *>(16), nullptr); }

/// Two guarded runs, the second after the first failed, then a guarded
/// call (how a bench runs): prints their statuses and messages and exits
/// with 0 when all failed with status 1.
[[noreturn]] void runGuardedTwice() {
  char first[512] = {0}, second[512] = {0}, third[512] = {0};
  int a = rlx_rt_run_guarded(allocates, nullptr, first, sizeof(first));
  int b = rlx_rt_run_guarded(createsStream, nullptr, second, sizeof(second));
  int c = rlx_rt_call_guarded([](void *) { allocates(nullptr); }, nullptr,
                              third, sizeof(third));
  std::fprintf(stderr, "statuses %d %d %d: %s | %s | %s\n", a, b, c, first,
               second, third);
  std::exit(a == 1 && b == 1 && c == 1 ? 0 : 3);
}

/// A free that fails in a guarded run, then one outside any: prints the
/// run's status, the last release error's twice (the second call finds it
/// taken) and their messages; exits with 0 when the run failed with status
/// 1 and the error was there once. (Each free had exited with status 1.)
[[noreturn]] void freeGuardedThenAlone() {
  char inRun[512] = {0}, alone[512] = {0};
  int a = rlx_rt_run_guarded(frees, nullptr, inRun, sizeof(inRun));
  int before = rlx_cuda_last_release_error(nullptr, 0);
  frees(nullptr);
  int b = rlx_cuda_last_release_error(alone, sizeof(alone));
  int c = rlx_cuda_last_release_error(nullptr, 0);
  std::fprintf(stderr, "status %d, last error %d %d %d: %s | %s\n", a, before,
               b, c, inRun, alone);
  std::exit(a == 1 && before == 0 && b == 1 && c == 0 ? 0 : 3);
}

class CudaRuntime : public ::testing::Test {
protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }

  /// Skips a test about a missing driver on a machine that has one.
  static bool driverInstalled() {
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (driver)
      dlclose(driver);
    return driver != nullptr;
  }
};

TEST_F(CudaRuntime, LoadsWithDlopenAndExportsEveryEntryPoint) {
  void *runtime = dlopen(RLX_CUDA_RUNTIME_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(runtime, nullptr) << dlerror();
  // Every function MLIR 22's GPU lowering declares (but the cuSPARSE ones),
  // and the tool API.
  for (const char *name : {"mgpuModuleLoad",
                           "mgpuModuleLoadJIT",
                           "mgpuModuleUnload",
                           "mgpuModuleGetFunction",
                           "mgpuLaunchKernel",
                           "mgpuLaunchClusterKernel",
                           "mgpuStreamCreate",
                           "mgpuStreamDestroy",
                           "mgpuStreamSynchronize",
                           "mgpuStreamWaitEvent",
                           "mgpuEventCreate",
                           "mgpuEventDestroy",
                           "mgpuEventSynchronize",
                           "mgpuEventRecord",
                           "mgpuMemAlloc",
                           "mgpuMemFree",
                           "mgpuMemcpy",
                           "mgpuMemset32",
                           "mgpuMemset16",
                           "mgpuMemHostRegisterMemRef",
                           "mgpuMemHostUnregisterMemRef",
                           "mgpuSetDefaultDevice",
                           "mgpuTensorMapEncodeTiledMemref",
                           "rlx_cuda_available",
                           "rlx_cuda_time_begin",
                           "rlx_cuda_time_end",
                           "rlx_cuda_release_cached_memory",
                           "rlx_cuda_last_release_error"})
    EXPECT_NE(dlsym(runtime, name), nullptr) << name;
  dlclose(runtime);
}

TEST_F(CudaRuntime, AvailableNamesTheMissingDriver) {
  if (driverInstalled())
    GTEST_SKIP() << "libcuda.so.1 is installed";
  char message[512];
  EXPECT_EQ(rlx_cuda_available(message, sizeof(message)), 0);
  EXPECT_NE(
      std::string(message).find("no CUDA driver (libcuda.so.1 not found)"),
      std::string::npos)
      << message;
  // A second question gets the same answer without loading again.
  EXPECT_EQ(rlx_cuda_available(nullptr, 0), 0);
}

TEST_F(CudaRuntime, EntryPointDiesWithoutADriver) {
  if (driverInstalled())
    GTEST_SKIP() << "libcuda.so.1 is installed";
  EXPECT_DEATH(mgpuStreamCreate(),
               "rlx CUDA runtime: no CUDA driver \\(libcuda\\.so\\.1 not "
               "found\\): .*\\(in mgpuStreamCreate\\)");
}

TEST_F(CudaRuntime, ErrorsNameTheLastOpBegun) {
  if (driverInstalled())
    GTEST_SKIP() << "libcuda.so.1 is installed";
  // An error is a failed run (status 1), not a crash; it names the rlx op
  // whose host work the thread began last (rlx-cuda-op-markers).
  EXPECT_EXIT(
      {
        rlx_cuda_op_begin(3, "rlx.softmax @ model.mlir:12:8");
        mgpuStreamCreate();
      },
      ::testing::ExitedWithCode(1),
      "rlx CUDA runtime: no CUDA driver .*\\(in mgpuStreamCreate; last rlx "
      "op begun: rlx\\.softmax @ model\\.mlir:12:8; CUDA_LAUNCH_BLOCKING=1 "
      "reports a kernel's fault at its launch\\)");
}

TEST_F(CudaRuntime, ModuleLoadWaitsForTheFirstKernel) {
  // What a compiled graph's global constructor does when its library is
  // opened: it must not need a driver, so a library opens anywhere and can
  // report that no GPU is there. The first kernel lookup loads the module.
  EXPECT_DEATH(
      {
        setenv("RLX_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
        char cubin[16] = {0};
        void *module = mgpuModuleLoad(cubin, sizeof(cubin));
        if (!module)
          abort();
        mgpuModuleGetFunction(module, "kernel");
      },
      "rlx CUDA runtime: no CUDA driver \\(/nonexistent/libcuda\\.so\\.1 not "
      "found\\): .*\\(in mgpuModuleGetFunction\\)");
}

TEST_F(CudaRuntime, SetDefaultDeviceNeedsNoDriver) {
  // Only records the choice; the driver is opened by the next call.
  mgpuSetDefaultDevice(0);
}

TEST_F(CudaRuntime, GuardedRunReturnsTheErrorWithoutADriver) {
  if (driverInstalled())
    GTEST_SKIP() << "libcuda.so.1 is installed";
  // Inside rlx_rt_run_guarded (how CompiledGraph runs every graph) the
  // error is the run's status, and the process goes on to the next run.
  EXPECT_EXIT(runGuardedTwice(), ::testing::ExitedWithCode(0),
              "statuses 1 1 1: no CUDA driver \\(libcuda\\.so\\.1 not "
              "found\\): .*\\(in mgpuMemAlloc\\) \\| no CUDA driver .*\\(in "
              "mgpuStreamCreate; last rlx op begun: rlx\\.softmax @ "
              "model\\.mlir:12:8\\)");
}

TEST_F(CudaRuntime, ReleasingEntryPointDefersItsFailure) {
  if (driverInstalled())
    GTEST_SKIP() << "libcuda.so.1 is installed";
  // Frees run in destructors, where a throw would end the process through
  // std::terminate, and had exited with status 1. Their failure is now the
  // guarded run's status when the run ends, or outside a run the thread's
  // last release error; the process goes on.
  EXPECT_EXIT(freeGuardedThenAlone(), ::testing::ExitedWithCode(0),
              "status 1, last error 0 1 0: no CUDA driver \\(libcuda\\.so\\.1 "
              "not found\\): .*\\(in mgpuMemFree\\) \\| no CUDA driver .*\\(in "
              "mgpuMemFree\\)");
}

#ifdef RLX_CUDA_STUB_DRIVER
TEST_F(CudaRuntime, StubDriverHasEveryFunctionButNoDevice) {
  // Had a versioned name been wrong, the answer would be "CUDA driver too
  // old: ... has no <name>" instead of cuInit's error.
  EXPECT_EXIT(
      {
        setenv("RLX_CUDA_DRIVER", RLX_CUDA_STUB_DRIVER, 1);
        char message[512];
        int available = rlx_cuda_available(message, sizeof(message));
        std::fprintf(stderr, "%s\n", message);
        std::exit(available);
      },
      ::testing::ExitedWithCode(0),
      "no usable CUDA driver: cuInit failed with CUDA_ERROR_STUB_LIBRARY");
}

TEST_F(CudaRuntime, EntryPointDiesWithTheStubDriver) {
  EXPECT_DEATH(
      {
        setenv("RLX_CUDA_DRIVER", RLX_CUDA_STUB_DRIVER, 1);
        mgpuMemAlloc(16, nullptr, false);
      },
      "rlx CUDA runtime: no usable CUDA driver: cuInit failed with "
      "CUDA_ERROR_STUB_LIBRARY.*\\(in mgpuMemAlloc\\)");
}
TEST_F(CudaRuntime, GuardedRunReturnsTheErrorWithTheStubDriver) {
  EXPECT_EXIT(
      {
        setenv("RLX_CUDA_DRIVER", RLX_CUDA_STUB_DRIVER, 1);
        runGuardedTwice();
      },
      ::testing::ExitedWithCode(0),
      "statuses 1 1 1: no usable CUDA driver: cuInit failed with "
      "CUDA_ERROR_STUB_LIBRARY.*\\(in mgpuMemAlloc\\) \\| "
      ".*CUDA_ERROR_STUB_LIBRARY");
}
#endif

} // namespace
