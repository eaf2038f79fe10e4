/*===-- rlx-c/CustomOps.h - the registry of rlx.custom ops --------*- C -*-===*\
|*                                                                            *|
|* Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM      *|
|* Exceptions. See the LICENSE file for license information.                 *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* The registry that gives `rlx.custom "NAME"` its meaning on the CPU: a      *|
|* shape function the compiler calls to check the op's declared result        *|
|* types, and a kernel the compiled graph calls when it runs. It lives in     *|
|* librlx_custom_ops.so, one registry per process shared by the compiler,     *|
|* the CPU runtime and plugins; a plugin (`rlx-run --plugin LIB.so`)          *|
|* exports `int rlx_plugin_init(void)`, which registers its ops               *|
|* (docs/custom-ops.md).                                                      *|
|*                                                                            *|
|* The ABI is C with raw pointers: every tensor a kernel sees is dense and    *|
|* row-major, so its data pointer, dtype and dims say everything.             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef RLX_C_CUSTOMOPS_H
#define RLX_C_CUSTOMOPS_H

#include "rlx-c/RLX.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this ABI; a plugin built against another version is
 * refused (rlx_plugin_init's caller compares rlxCustomOpsABIVersion). */
#define RLX_CUSTOM_OPS_ABI_VERSION 1

/* The most dims a custom op's tensor may have. */
#define RLX_CUSTOM_MAX_RANK 8

/* A tensor's type: dtype (RlxDType), rank and dims (dims[i] for i < rank;
 * -1 is a dim unknown when compiling). */
typedef struct RlxCustomTensorType {
  int32_t dtype;
  int32_t rank;
  int64_t dims[RLX_CUSTOM_MAX_RANK];
} RlxCustomTensorType;

/* A tensor when the graph runs: `data` points to its elements, dense and
 * row-major, `type` has no unknown dims. Inputs must not be written. */
typedef struct RlxCustomTensor {
  void *data;
  RlxCustomTensorType type;
} RlxCustomTensor;

/* The shape function: given the operands' types and the op's `attrs` (the
 * MLIR text of its attribute dictionary, "{}" when empty), writes the type
 * of each of the `numResults` results the op declares and returns 0, or
 * writes a message to `error` (at most `errorSize` bytes, NUL-terminated)
 * and returns nonzero to reject the operands. The compiler compares the
 * types written with the declared ones; a difference is an error too. */
typedef int (*RlxCustomShapeFn)(const RlxCustomTensorType *inputs,
                                size_t numInputs, const char *attrs,
                                RlxCustomTensorType *results, size_t numResults,
                                char *error, size_t errorSize);

/* The CPU kernel: reads `inputs`, writes every element of `outputs`
 * (allocated by the graph, of the declared types) and returns 0, or writes
 * a message to `error` and returns nonzero, which ends the run (compiled
 * code has no error path: the process prints it and exits with 1). */
typedef int (*RlxCustomKernelFn)(const RlxCustomTensor *inputs,
                                 size_t numInputs, RlxCustomTensor *outputs,
                                 size_t numOutputs, const char *attrs,
                                 char *error, size_t errorSize);

/* One op: its name (as in `rlx.custom "NAME"`), its shape function (may be
 * NULL: then the compiler checks nothing beyond the dtypes the ABI
 * carries) and its CPU kernel. The registry copies the name. */
typedef struct RlxCustomOpDef {
  const char *name;
  RlxCustomShapeFn shape;
  RlxCustomKernelFn cpuKernel;
} RlxCustomOpDef;

/* RLX_CUSTOM_OPS_ABI_VERSION of the library. */
RLX_CAPI_EXPORTED int rlxCustomOpsABIVersion(void);

/* Registers `def`; returns 0, or nonzero when the name is empty or taken
 * or the kernel is NULL (rlxCustomOpsLastError says which). Thread-safe. */
RLX_CAPI_EXPORTED int rlxRegisterCustomOp(const RlxCustomOpDef *def);

/* The registered op `name`, or NULL. The definition stays valid for the
 * life of the process (ops are never unregistered). */
RLX_CAPI_EXPORTED const RlxCustomOpDef *rlxFindCustomOp(const char *name);

/* The names of the registered ops, comma-separated, for messages. */
RLX_CAPI_EXPORTED const char *rlxCustomOpNames(void);

/* Why the last rlxRegisterCustomOp of this thread failed. */
RLX_CAPI_EXPORTED const char *rlxCustomOpsLastError(void);

/* The entry point a plugin exports: registers its ops and returns 0, or
 * nonzero on failure. */
typedef int (*RlxPluginInitFn)(void);
#define RLX_PLUGIN_INIT_SYMBOL "rlx_plugin_init"

#ifdef __cplusplus
}

#include <string>

namespace rlxrt {
/// The C++ form of rlxRegisterCustomOp: registers op `name` with its shape
/// function (may be null) and CPU kernel; returns an empty string, or why
/// the registry refused it.
inline std::string registerCustomOp(const char *name, RlxCustomShapeFn shape,
                                    RlxCustomKernelFn cpuKernel) {
  RlxCustomOpDef def = {name, shape, cpuKernel};
  return rlxRegisterCustomOp(&def) ? rlxCustomOpsLastError() : "";
}
} // namespace rlxrt
#endif

#endif /* RLX_C_CUSTOMOPS_H */
