//===- CUDARuntime.h - queries and timers of the CUDA runtime ---*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The C API that tools and benchmarks use beside the `mgpu*` entry points of
// librlx_cuda_runtime.so (which compiled graphs call and which abort on any
// CUDA error). Nothing here aborts: a machine without a driver or device is an
// answer, not a crash. Plain C types only, so the header needs no cuda.h.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_CUDARUNTIME_H
#define RLX_RUNTIME_CUDARUNTIME_H

#include "rlx/Runtime/GraphSteps.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The last arguments of the GEMM entry points that compiled graphs call
 * (rlx_cuda_[batch_]matmul_<type>, rlx_cuda_matmul_bias[_aux]_<type>): the
 * flags, and for matmul_bias the epilogue. */
enum {
  /* Flag: f32 GEMMs may use TF32 tensor-core math. */
  RLX_CUDA_GEMM_ALLOW_TF32 = 1,
  /* Flag of the convolution entry points (rlx_cuda_conv2d*): the input and
   * output buffers are NHWC and the filter KRSC (channels last), not NCHW
   * and KCRS. */
  RLX_CUDA_CONV_CHANNELS_LAST = 2,
  /* Flag of the GEMM entry points: C = A * B, overwriting C (cuBLAS's
   * beta = 0), instead of C += A * B. */
  RLX_CUDA_GEMM_OVERWRITE = 4
};
enum {
  RLX_CUDA_EPILOGUE_BIAS = 0,
  RLX_CUDA_EPILOGUE_RELU_BIAS = 1,
  RLX_CUDA_EPILOGUE_GELU_BIAS = 2,
  /* matmul_bias_aux: the GELU output, and the pre-activation in `aux`. */
  RLX_CUDA_EPILOGUE_GELU_AUX_BIAS = 3,
  /* matmul_bias_aux: `d` = gelu'(`aux`) * product, and `bias` receives the
   * sum of `d`'s rows (the bias gradient). */
  RLX_CUDA_EPILOGUE_DGELU_BGRAD = 4
};

/// Returns 1 when the CUDA driver loads and the selected device (0, or
/// RLX_CUDA_DEVICE) exists, else 0. Writes a NUL-terminated line into
/// `message` (when `size` > 0): the device's name, or why CUDA is unusable.
int rlx_cuda_available(char *message, size_t size);

/// Takes the calling thread's last release error: returns 1 and writes the
/// message (NUL-terminated, when `size` > 0) of the first failure of a
/// free, destroy or unload entry point outside any guarded run since the
/// last call, which then forgets it; else 0. Such a failure has no caller
/// to return it to (they run in destructors): it neither ends the process
/// nor is printed, and inside a guarded run (rlx_rt_run_guarded) it is the
/// run's status instead.
int rlx_cuda_last_release_error(char *message, size_t size);

/// A pair of timing events; see rlx_cuda_time_begin.
typedef struct rlx_cuda_timer rlx_cuda_timer;

/// Records a start event on `stream` (a CUstream; null is the legacy default
/// stream, which orders against all blocking streams). Aborts like the mgpu*
/// entry points when CUDA is unusable.
rlx_cuda_timer *rlx_cuda_time_begin(void *stream);

/// Records the end event on `stream`, waits for it, frees `timer` and returns
/// the milliseconds between the two events on the device's clock.
float rlx_cuda_time_end(rlx_cuda_timer *timer, void *stream);

/// Returns the device memory the caching allocator holds for reuse to the
/// driver, after the work that last used it has finished.
void rlx_cuda_release_cached_memory(void);

/// `graphFlags` of rlx_cuda_graph_run and rlx_cuda_graph_bench: the
/// graph's host code reads results of the GPU during a run (a loop bound, an
/// index), so a CUDA graph capture, which runs the host code without them,
/// cannot stand for a run (rlx-cuda-drop-host-waits marks such graphs).
enum { RLX_CUDA_GRAPH_READS_ON_HOST = 1 };

/// The host side of a compiled graph's `rlx_graph_run` (docs/abi.md):
/// copies the arguments described by `hostDescriptors` (one memref
/// descriptor per line of `signature`, arguments then outputs) to device
/// buffers, calls `deviceEntry` with descriptors of those buffers on this
/// thread's graph stream, and copies the outputs back. From the second call
/// of a graph on a thread, the run is a replay of a CUDA graph captured
/// once, on device buffers kept for that graph (docs/cuda.md, "CUDA
/// graphs"; RLX_CUDA_GRAPHS=0 turns it off), unless `graphFlags` has
/// RLX_CUDA_GRAPH_READS_ON_HOST. Aborts naming the CUDA call on any error.
void rlx_cuda_graph_run(const char *signature,
                        void (*deviceEntry)(void **descriptors),
                        void **hostDescriptors, int32_t graphFlags);

/// Like rlx_cuda_graph_run, with the arguments copied once: runs the graph
/// `warmUpRuns` times, then `timedRuns` times, writing each timed run's
/// duration (CUDA events around the run on the graph stream) to `runMs`;
/// the outputs are those of the last run. With at least one warm-up run, the
/// timed runs replay a CUDA graph captured after the warm-up (unless
/// `graphFlags` has RLX_CUDA_GRAPH_READS_ON_HOST).
void rlx_cuda_graph_bench(const char *signature,
                          void (*deviceEntry)(void **descriptors),
                          void **hostDescriptors, int32_t warmUpRuns,
                          int32_t timedRuns, float *runMs, int32_t graphFlags);

/// The host side of a compiled graph's `rlx_graph_steps` (GraphSteps.h):
/// copies the arguments to device buffers once and runs `plan->steps`
/// steps there, each the device entry and then device-to-device copies of
/// the fed-back outputs into their arguments (from the second step one
/// replay of a CUDA graph of both, as in rlx_cuda_graph_run). Per step only
/// the batched arguments' slices go to the device and the watched outputs
/// come back; the fed-back arguments and all outputs come back at the end.
/// Aborts naming the CUDA call on any error, or the plan's fault.
void rlx_cuda_graph_steps(const char *signature,
                          void (*deviceEntry)(void **descriptors),
                          void **hostDescriptors,
                          const rlx_graph_step_plan *plan, int32_t graphFlags);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // RLX_RUNTIME_CUDARUNTIME_H
