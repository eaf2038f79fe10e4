/*===-- rlx-c/RLX.h - C API of RLX-MLIR ---------------------------*- C -*-===*\
|*                                                                            *|
|* Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM      *|
|* Exceptions. See the LICENSE file for license information.                 *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* Compiles rlx graphs for an execution target, reads their signature, binds *|
|* parameters and runs them on buffers the caller owns; writes and loads     *|
|* ahead-of-time shared libraries (docs/c-api.md). Plain C: usable from C,   *|
|* from any language's foreign-function interface (the Python package uses   *|
|* ctypes) and from C++.                                                      *|
|*                                                                            *|
|* Every function that can fail returns an RlxStatus: NULL on success, else  *|
|* an object holding the message (with the MLIR diagnostics, if any), which  *|
|* the caller frees with rlxStatusDestroy. Nothing aborts the host process.  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef RLX_C_RLX_H
#define RLX_C_RLX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define RLX_CAPI_EXPORTED __attribute__((visibility("default")))
#else
#define RLX_CAPI_EXPORTED
#endif

/* The version of this interface. It grows by one with every change that is
 * not backward compatible (a struct member or a function changed); a
 * program compares it with rlxGetAPIVersion() of the library it loaded. */
#define RLX_C_API_VERSION 2

/* The version of the library this program runs against. */
RLX_CAPI_EXPORTED int rlxGetAPIVersion(void);

/*===-------------------------------------------------------------------===*/
/* Status                                                                  */
/*===-------------------------------------------------------------------===*/

/* The outcome of a call: NULL means success. */
typedef struct RlxStatusImpl *RlxStatus;

/* The message of a failure, valid until the status is destroyed. */
RLX_CAPI_EXPORTED const char *rlxStatusGetMessage(RlxStatus status);
/* Frees a status; NULL is fine. */
RLX_CAPI_EXPORTED void rlxStatusDestroy(RlxStatus status);

/* What kind of failure a status is. */
typedef enum RlxStatusCode {
  RLX_STATUS_OK = 0,            /* a NULL status */
  RLX_STATUS_ERROR = 1,         /* any failure not named below */
  RLX_STATUS_OUT_OF_MEMORY = 2, /* memory could not be allocated (a buffer
                                   of a run, bound data) */
} RlxStatusCode;

/* The kind of `status`; RLX_STATUS_OK for NULL. */
RLX_CAPI_EXPORTED RlxStatusCode rlxStatusGetCode(RlxStatus status);
/* The message of the last status this thread got from the library that was
 * a failure, "" when none; valid until the next failure on this thread. For
 * hosts that keep only "it failed" at first and ask why later. */
RLX_CAPI_EXPORTED const char *rlxGetLastErrorMessage(void);

/*===-------------------------------------------------------------------===*/
/* Element types and tensor descriptions                                   */
/*===-------------------------------------------------------------------===*/

/* The element types a graph exchanges, stored as in C (bf16 and f16 as
 * their 16-bit patterns, bool as one byte, c64 as two floats). */
typedef enum RlxDType {
  RLX_DTYPE_F32 = 0,
  RLX_DTYPE_F64 = 1,
  RLX_DTYPE_F16 = 2,
  RLX_DTYPE_BF16 = 3,
  RLX_DTYPE_I8 = 4,
  RLX_DTYPE_I16 = 5,
  RLX_DTYPE_I32 = 6,
  RLX_DTYPE_I64 = 7,
  RLX_DTYPE_U8 = 8,
  RLX_DTYPE_U32 = 9,
  RLX_DTYPE_BOOL = 10,
  RLX_DTYPE_C64 = 11
} RlxDType;

/* Bytes per element of `dtype`; 0 for a value outside the enum. */
RLX_CAPI_EXPORTED size_t rlxDTypeGetSize(RlxDType dtype);
/* The rlx name of `dtype` (`f32`, `bf16`, `bool`, ...); "?" outside the
 * enum. */
RLX_CAPI_EXPORTED const char *rlxDTypeGetName(RlxDType dtype);

/* What a graph argument or result is. */
typedef enum RlxTensorKind {
  RLX_TENSOR_INPUT = 0,   /* an argument marked rlx.input */
  RLX_TENSOR_PARAM = 1,   /* an argument marked rlx.param */
  RLX_TENSOR_UNNAMED = 2, /* an argument with neither mark */
  RLX_TENSOR_OUTPUT = 3,  /* a result */
  RLX_TENSOR_STATE = 4    /* an argument marked rlx.param and rlx.state:
                             bound like a parameter, not trained */
} RlxTensorKind;

/* One argument or result of a graph. The pointers stay valid while the
 * graph lives. Every tensor is dense and row-major. */
typedef struct RlxTensorSpec {
  const char *name; /* outputs: output_0, output_1, ... */
  RlxTensorKind kind;
  RlxDType dtype;
  size_t rank;
  const int64_t *shape; /* `rank` dimensions */
  /* For an output: the parameter it updates (a training step's result
   * marked {rlx.param = NAME}); "" otherwise. */
  const char *param;
} RlxTensorSpec;

/*===-------------------------------------------------------------------===*/
/* Compiling                                                               */
/*===-------------------------------------------------------------------===*/

/* How to compile. Initialize with rlxCompileOptionsInit, then set fields. */
typedef struct RlxCompileOptions {
  /* The execution target: "cpu", or "cuda" where the library has it
   * (rlxGetTargetNames). Default "cpu". */
  const char *target;
  /* The graph function; NULL or "" for the module's only public one. */
  const char *entry;
  /* Options of the target's pipeline as rlx-opt takes them, e.g.
   * "allow-tf32 block-size=128"; NULL or "" for none. */
  const char *pipelineOptions;
  /* Nonzero: call the vendor BLAS for large matmuls. Default 1. */
  int useBlas;
  /* Nonzero: compile per-op timers. Default 0. */
  int profile;
  /* The target's runtime library; NULL or "" for the one beside this
   * library (librlx_<target>_runtime.so in the same folder). */
  const char *runtimeLibrary;
  /* Nonzero: compile through the persistent compile cache
   * (docs/compile-cache.md; RLX_CACHE_DIR and the other RLX_CACHE_*
   * variables configure it, RLX_CACHE_DIR= turns it off). Default 1. */
  int cache;
  /* Nonzero: print MLIR's pass timing report and the time of every compile
   * phase on stderr. Default 0. */
  int timing;
} RlxCompileOptions;

/* Sets every field of `options` to its default. */
RLX_CAPI_EXPORTED void rlxCompileOptionsInit(RlxCompileOptions *options);

/* The registered targets' names, comma separated ("cpu,cuda"). */
RLX_CAPI_EXPORTED const char *rlxGetTargetNames(void);

/* A compiled graph, its bound arguments and its signature. */
typedef struct RlxGraphImpl *RlxGraph;

/* Parses the module in file `path` and compiles it; on success sets
 * `*graph`, which the caller frees with rlxGraphDestroy. `options` may be
 * NULL for the defaults (here and in the functions below). */
RLX_CAPI_EXPORTED RlxStatus rlxCompileFile(const char *path,
                                           const RlxCompileOptions *options,
                                           RlxGraph *graph);
/* As rlxCompileFile, for the module text `source` of `length` bytes. */
RLX_CAPI_EXPORTED RlxStatus rlxCompileString(const char *source, size_t length,
                                             const RlxCompileOptions *options,
                                             RlxGraph *graph);

/* Compiles the module in file `path` ahead of time into the shared library
 * `outputPath`, which rlxGraphLoad (or rlx-run --load) runs; it needs only
 * the target's runtime library. */
RLX_CAPI_EXPORTED RlxStatus rlxEmitSharedLibraryFromFile(
    const char *path, const RlxCompileOptions *options, const char *outputPath);
/* As rlxEmitSharedLibraryFromFile, for module text. */
RLX_CAPI_EXPORTED RlxStatus rlxEmitSharedLibraryFromString(
    const char *source, size_t length, const RlxCompileOptions *options,
    const char *outputPath);

/* Loads a shared library compiled ahead of time. The library stays loaded
 * for the life of the process (its runtime may own threads). */
RLX_CAPI_EXPORTED RlxStatus rlxGraphLoad(const char *path, RlxGraph *graph);

/* Loads the custom op plugin `path` (a shared library exporting
 * rlx_plugin_init, which registers rlx.custom ops; docs/custom-ops.md)
 * under the path rules of rlxGraphLoad, and calls its init. Its ops are
 * then checked when graphs compile and called when they run. Plugins stay
 * loaded for the life of the process. */
RLX_CAPI_EXPORTED RlxStatus rlxLoadPlugin(const char *path);

/* Runs the passes `pipeline` (rlx-opt's textual form, such as
 * "rlx-autodiff{func=f wrt=w}" or "builtin.module(rlx-fuse)") on the module
 * text `source`; on success sets `*result` to the printed module, which the
 * caller frees with rlxStringDestroy. */
RLX_CAPI_EXPORTED RlxStatus rlxTransformString(const char *source,
                                               size_t length,
                                               const char *pipeline,
                                               char **result);
/* Frees a string this library returned; NULL is fine. */
RLX_CAPI_EXPORTED void rlxStringDestroy(char *string);

/* Frees a graph; NULL is fine. */
RLX_CAPI_EXPORTED void rlxGraphDestroy(RlxGraph graph);

/*===-------------------------------------------------------------------===*/
/* Signature                                                               */
/*===-------------------------------------------------------------------===*/

/* The graph function's name, without `@`. */
RLX_CAPI_EXPORTED const char *rlxGraphGetName(RlxGraph graph);
/* Inputs, parameters and unnamed arguments, in argument order. */
RLX_CAPI_EXPORTED size_t rlxGraphGetNumArguments(RlxGraph graph);
RLX_CAPI_EXPORTED size_t rlxGraphGetNumResults(RlxGraph graph);
/* Argument or result `index`; fails for an index out of range. */
RLX_CAPI_EXPORTED RlxStatus rlxGraphGetArgument(RlxGraph graph, size_t index,
                                                RlxTensorSpec *spec);
RLX_CAPI_EXPORTED RlxStatus rlxGraphGetResult(RlxGraph graph, size_t index,
                                              RlxTensorSpec *spec);
/* The index of the argument named `name`; fails, listing the arguments,
 * for an unknown name. */
RLX_CAPI_EXPORTED RlxStatus rlxGraphFindArgument(RlxGraph graph,
                                                 const char *name,
                                                 size_t *index);

/*===-------------------------------------------------------------------===*/
/* Binding arguments                                                       */
/*===-------------------------------------------------------------------===*/

/* Copies `size` bytes at `data` into the graph as argument `name` (an
 * input or a parameter), used by every later run that passes NULL for it.
 * `size` must be the argument's size in bytes. */
RLX_CAPI_EXPORTED RlxStatus rlxGraphBind(RlxGraph graph, const char *name,
                                         const void *data, size_t size);
/* Binds `count` arguments at once: names[i] gets sizes[i] bytes at data[i],
 * each checked as by rlxGraphBind. All are checked and copied before any is
 * bound, so a failure binds none, and a run in another thread sees either
 * none or all of them bound. */
RLX_CAPI_EXPORTED RlxStatus rlxGraphBindMany(RlxGraph graph,
                                             const char *const *names,
                                             const void *const *data,
                                             const size_t *sizes, size_t count);
/* Binds every tensor of the .safetensors file `path` that names an
 * argument (others are ignored, as in a checkpoint of a larger model);
 * fails if one's dtype or shape does not match. Sets `*bound` (may be NULL)
 * to the number bound. */
RLX_CAPI_EXPORTED RlxStatus rlxGraphBindSafetensors(RlxGraph graph,
                                                    const char *path,
                                                    size_t *bound);
/* The same for a .safetensors or GGUF file (GGUF when it starts with the
 * magic "GGUF" or its name ends in .gguf). A block-quantized GGUF tensor (q4_0,
 * q8_0, ...) binds as its packed bytes to a ui8 [bytes] argument, and where the
 * graph decodes that argument with a GGUF-scheme rlx.dequant_matmul (or the
 * MoE ops' dequant_grouped_matmul, dequant_moe_weights), only if
 * its type and row length are the ones decoded. Plain GGUF tensors have GGUF's
 * dims reversed (GGUF lists the innermost first). */
RLX_CAPI_EXPORTED RlxStatus rlxGraphBindParams(RlxGraph graph, const char *path,
                                               size_t *bound);
/* Nonzero if argument `index` has bound data. */
RLX_CAPI_EXPORTED int rlxGraphIsBound(RlxGraph graph, size_t index);

/*===-------------------------------------------------------------------===*/
/* Running                                                                 */
/*===-------------------------------------------------------------------===*/

/* Runs once. `arguments` holds rlxGraphGetNumArguments pointers in
 * argument order, each to a dense row-major buffer of the argument's dtype
 * and shape, or NULL to use the data bound to it (an error if none is);
 * `arguments` itself may be NULL when every argument is bound. `outputs`
 * holds rlxGraphGetNumResults pointers to buffers the graph writes. The
 * buffers stay the caller's; they are not copied. */
RLX_CAPI_EXPORTED RlxStatus rlxGraphRun(RlxGraph graph,
                                        const void *const *arguments,
                                        size_t numArguments,
                                        void *const *outputs,
                                        size_t numOutputs);

/* An output of rlxGraphRunShaped: `rank` dims at `shape` and the elements
 * at `data`, dense row-major, owned by the caller until rlxOutputDestroy. */
typedef struct RlxOutput {
  void *data;
  const int64_t *shape;
  size_t rank;
} RlxOutput;

/* Runs once a graph of any shapes, the way to run one with `?` dims
 * (docs/abi.md): `arguments` as rlxGraphRun takes them, and
 * `argumentShapes[i]` the dims of argument i (as many as its rank; NULL, or
 * `argumentShapes` NULL, for an argument of static shape or a bound one).
 * Fails, naming the tensor, for a shape that contradicts the signature, and
 * with the graph's message when the shapes contradict each other at run
 * time (a `?` dim of two operands that must agree). Fills `numOutputs`
 * outputs (rlxGraphGetNumResults), which the caller frees with
 * rlxOutputDestroy. */
RLX_CAPI_EXPORTED RlxStatus
rlxGraphRunShaped(RlxGraph graph, const void *const *arguments,
                  const int64_t *const *argumentShapes, size_t numArguments,
                  RlxOutput *outputs, size_t numOutputs);
/* Frees what rlxGraphRunShaped put in `output`; NULL is fine. */
RLX_CAPI_EXPORTED void rlxOutputDestroy(RlxOutput *output);

/* Wall times of rlxGraphBench's timed runs, in milliseconds. */
typedef struct RlxBenchResult {
  unsigned runs;
  double medianMs;
  double p90Ms;
  double minMs;
  double totalMs;
  /* The most bytes the runtime's buffers held at once, or -1 where the
   * runtime does not count them. */
  int64_t peakBytes;
} RlxBenchResult;

/* Runs `warmUpRuns` times, then times `timedRuns` runs (0 is an error),
 * with buffers as rlxGraphRun takes them. rlxGraphInterrupt stops it
 * between two runs. */
RLX_CAPI_EXPORTED RlxStatus
rlxGraphBench(RlxGraph graph, const void *const *arguments, size_t numArguments,
              void *const *outputs, size_t numOutputs, unsigned warmUpRuns,
              unsigned timedRuns, RlxBenchResult *result);

/* Per-op times of a graph compiled with `profile` (RlxCompileOptions):
 * sets `*result` to a JSON array of {"op": LABEL, "total_ms": T,
 * "calls": N}, largest total first, over the runs since the timers were
 * last reset (rlxGraphBench resets them after its warm-up runs), which the
 * caller frees with rlxStringDestroy. With a `tracePath`, also writes the
 * op calls recorded since rlxGraphStartTrace there as a Chrome trace
 * (chrome://tracing, ui.perfetto.dev). Fails for a graph compiled without
 * `profile`. */
RLX_CAPI_EXPORTED RlxStatus rlxGraphProfileReport(RlxGraph graph,
                                                  const char *tracePath,
                                                  char **result);

/* Starts recording every timed op call of a graph compiled with `profile`,
 * for rlxGraphProfileReport's trace. Fails where the target's runtime
 * keeps totals only. */
RLX_CAPI_EXPORTED RlxStatus rlxGraphStartTrace(RlxGraph graph);

/* Asks the rlxGraphBench running on `graph` to stop after its current run;
 * it then fails with "bench interrupted after N runs". Callable from any
 * thread and from a signal handler. A bench clears the request when it
 * starts, so a request made just before one starts is lost: send it until
 * the call returns. The CUDA target's benches run to their end. */
RLX_CAPI_EXPORTED void rlxGraphInterrupt(RlxGraph graph);

/*===-------------------------------------------------------------------===*/
/* Testing the failure paths (docs/security.md)                            */
/*===-------------------------------------------------------------------===*/

/* The bytes the buffers of the graph's runtime hold now (all graphs of that
 * runtime together), or -1 where the runtime does not count them. A failed
 * run gives back what it held: the count returns to its value before. */
RLX_CAPI_EXPORTED int64_t rlxGraphGetLiveBufferBytes(RlxGraph graph);
/* A test hook: `after` more allocations of buffers by the graph's runtime
 * succeed and the next one fails, once; a negative `after` turns it off. The
 * run that meets it fails with RLX_STATUS_OUT_OF_MEMORY. An error for a
 * runtime without the hook (cuda). */
RLX_CAPI_EXPORTED RlxStatus rlxGraphDebugFailAllocation(RlxGraph graph,
                                                        int64_t after);

#ifdef __cplusplus
}
#endif

#endif /* RLX_C_RLX_H */
