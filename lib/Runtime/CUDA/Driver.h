//===- Driver.h - the CUDA driver, loaded on first use ----------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The runtime never links libcuda: it opens libcuda.so.1 (or the file named
// by RLX_CUDA_DRIVER) on first use, so the library and every graph compiled
// against it load on machines without a GPU, and module loads that run from
// global constructors find CUDA initialised whichever comes first.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_RUNTIME_CUDA_DRIVER_H
#define RLX_LIB_RUNTIME_CUDA_DRIVER_H

#include <cuda.h>

#include <string>
#include <type_traits>

namespace rlxrt::cuda {

/// The driver's functions, resolved from the library.
struct DriverApi {
#define RLX_CUDA_DRIVER_FUNCTION(name) decltype(&::name) name = nullptr;
#include "DriverFunctions.def"
};

/// Loads and initialises the driver once per process. Returns why CUDA is
/// unusable (no driver, a driver lacking a function, no device), or an empty
/// string; `api` is set when the result is empty. Never aborts.
const std::string &loadDriver(const DriverApi *&api);

/// The "CUDA_ERROR_X (description)" text of `result`.
std::string describe(const DriverApi &api, CUresult result);

/// The device the calling thread works on: the one mgpuSetDefaultDevice
/// chose, else RLX_CUDA_DEVICE, else the local rank of a launched process,
/// else 0.
int currentDevice();
void setCurrentDevice(int device);

/// Prints "rlx CUDA runtime: <message> (in <caller>; last rlx op begun:
/// <label>)" and exits with status 1. The lowering's entry points return
/// nothing, so there is no error to return; but inside a guarded run
/// (rlx_rt_run_guarded, RunGuard.cpp) it throws that text as a RunFailure,
/// which the guard returns as the run's status.
[[noreturn]] void fatal(const char *caller, const std::string &message);

/// "<message> (in <caller>; last rlx op begun: <label>)": the text of a
/// failure in an entry point, as fatal() reports it.
std::string failureText(const char *caller, const std::string &message);

/// Records the failure `text` (failureText's) of a releasing entry point,
/// which can neither throw (it runs in destructors) nor end the process:
/// inside a guarded run it becomes the run's status when the run ends
/// (unless the run fails first), outside one the calling thread's last
/// release error (rlx_cuda_last_release_error). The first failure is kept.
void deferFailure(const std::string &text);

/// What fatal() throws inside a guarded run.
struct RunFailure {
  std::string message;
  bool outOfMemory = false;
};

/// Throws RunFailure{message, outOfMemory} where fatal() may: inside a
/// guarded run, outside every ExitOnFatal scope, with no exception already
/// unwinding and every frame up to the guard unwindable. Else returns.
void throwIfGuarded(const std::string &message, bool outOfMemory);

/// Runs `call(context)`, the host side of a graph's entry (rlx_graph_run,
/// rlx_graph_bench, rlx_graph_steps): as it is inside a guarded run; outside
/// one (a program calling the library's entry directly) as a guarded run of
/// its own, whose failure is printed on stderr as `error: MESSAGE` and kept
/// as the thread's last run error (rlx_cuda_last_run_error) where fatal()
/// would have ended the process. The entry then returns, its outputs
/// unwritten, as a CPU graph's direct run does.
void runGraphEntry(void (*call)(void *), void *context);
template <typename Body> void runGraphEntry(Body &&body) {
  runGraphEntry(
      [](void *context) { (*static_cast<std::decay_t<Body> *>(context))(); },
      &body);
}

/// While one lives on a thread (constructed active), fatal() there exits as
/// outside a guarded run: releasing sessions hold one, as they run in
/// destructors, where a throw would end the process through std::terminate.
/// (Their failures go through Session::fail, which defers them; this is
/// the last resort for a fatal() call reached from one all the same.)
class ExitOnFatal {
public:
  explicit ExitOnFatal(bool active);
  ExitOnFatal(const ExitOnFatal &other) : ExitOnFatal(other.active) {}
  ExitOnFatal &operator=(const ExitOnFatal &) = delete;
  ~ExitOnFatal();

private:
  bool active;
};

/// The label of the rlx op whose host work the calling thread began last
/// (rlx_cuda_op_begin), or null.
const char *lastOpBegun();

/// Whether `--profile` records an event pair around each rlx op
/// (rlx_rt_profile_enable).
bool opProfileEnabled();

/// The driver as one runtime entry point sees it: constructing a Session
/// loads the driver and makes the primary context of the thread's device
/// current, exiting with a message naming `caller` when that fails.
class Session {
public:
  /// What an entry point does with the driver.
  enum class Kind {
    /// Creates or uses resources: any driver error is fatal.
    Use,
    /// Releases resources (unload, destroy, free). These run from global
    /// destructors when a compiled graph is unloaded at process exit, which
    /// may come after the driver has shut down and released everything
    /// itself; the session then reports `driverShutDown()` and the entry
    /// point has nothing left to do.
    Release,
  };
  explicit Session(const char *caller, Kind kind = Kind::Use);

  /// True for a releasing session with nothing to do: the driver has shut
  /// down, or it could not be used (no driver, no device; the failure is
  /// deferred, deferFailure).
  bool driverShutDown() const { return shutDown; }

  const DriverApi *operator->() const { return api; }
  int device() const { return ordinal; }
  const char *caller() const { return name; }

  std::string describe(CUresult result) const {
    return cuda::describe(*api, result);
  }
  /// Fails naming the driver call `call`, the error and the entry point
  /// unless `result` is CUDA_SUCCESS (or, in a releasing session, the
  /// driver reports that it has shut down): see fail().
  void check(CUresult result, const char *call) const;

  /// A failure of the entry point: fatal() in a session that uses
  /// resources; in a releasing one deferFailure() and a return, after
  /// which the entry point goes on releasing what it can.
  void fail(const std::string &message) const;

private:
  /// Loads the driver and makes the context current; why it cannot, or "".
  std::string open();

  const char *name;
  const DriverApi *api = nullptr;
  int ordinal = 0;
  Kind kind;
  bool shutDown = false;
  /// Releasing sessions run in destructors: their failures exit.
  ExitOnFatal exitOnFatal{kind == Kind::Release};
};

} // namespace rlxrt::cuda

#endif // RLX_LIB_RUNTIME_CUDA_DRIVER_H
