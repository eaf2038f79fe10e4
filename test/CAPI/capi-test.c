/*===- capi-test.c - the C API from a C program
----------------------------===*\
|*                                                                            *|
|* Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM      *|
|* Exceptions. See the LICENSE file for license information.                 *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* capi-test SCRATCH_DIR: compiles a graph from a string and from a file,    *|
|* reads its signature, binds parameters from buffers and from a            *|
|* .safetensors file, runs it against outputs computed here, writes and     *|
|* loads a shared library, benchmarks, transforms a module, and takes every *|
|* error path, checking each message; failures inside runs (a shape check,  *|
|* each allocation of a run, a custom op's kernel) are statuses, and the    *|
|* graph runs again after each. Exits 1 if any check failed.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "rlx-c/CustomOps.h"
#include "rlx-c/RLX.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* Succeeds or reports the status's message. */
#define CHECK_OK(call)                                                         \
  do {                                                                         \
    RlxStatus s_ = (call);                                                     \
    if (s_) {                                                                  \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
              rlxStatusGetMessage(s_));                                        \
      rlxStatusDestroy(s_);                                                    \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* Fails with a message containing `needle`. */
static void expectError(RlxStatus status, const char *needle, int line) {
  if (!status) {
    fprintf(stderr, "capi-test.c:%d: expected an error with '%s'\n", line,
            needle);
    ++failures;
    return;
  }
  if (!strstr(rlxStatusGetMessage(status), needle)) {
    fprintf(stderr, "capi-test.c:%d: expected '%s' in: %s\n", line, needle,
            rlxStatusGetMessage(status));
    ++failures;
  }
  rlxStatusDestroy(status);
}
#define CHECK_ERROR(call, needle) expectError((call), (needle), __LINE__)

/* y = x @ w + b and relu(y): two outputs, so result order is checked. */
static const char *kGraph =
    "func.func @affine(%x: tensor<2x3xf32> {rlx.input = \"x\"},\n"
    "                  %w: tensor<3x4xf32> {rlx.param = \"w\"},\n"
    "                  %b: tensor<4xf32> {rlx.param = \"b\"})\n"
    "    -> (tensor<2x4xf32>, tensor<2x4xf32>) {\n"
    "  %0 = rlx.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32>\n"
    "  %1 = rlx.binary add %0, %b : tensor<2x4xf32>, tensor<4xf32>\n"
    "  %2 = rlx.activation relu %1 : tensor<2x4xf32>\n"
    "  return %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>\n"
    "}\n";

static float x[6], w[12], b[4];

static void fillData(void) {
  for (int i = 0; i < 6; ++i)
    x[i] = (float)(i - 2) * 0.5f;
  for (int i = 0; i < 12; ++i)
    w[i] = (float)((i * 7) % 5 - 2) * 0.25f;
  for (int i = 0; i < 4; ++i)
    b[i] = (float)i * 0.1f - 0.15f;
}

/* Runs `graph` with x given and w, b as `params` (NULL entries: bound)
 * and checks both outputs against the same computation here. */
static void runAndCheck(RlxGraph graph, const void *wArg, const void *bArg,
                        const char *what) {
  float y[8], r[8];
  memset(y, 0xff, sizeof(y));
  memset(r, 0xff, sizeof(r));
  const void *arguments[3] = {x, wArg, bArg};
  void *outputs[2] = {y, r};
  RlxStatus status = rlxGraphRun(graph, arguments, 3, outputs, 2);
  if (status) {
    fprintf(stderr, "%s: run failed: %s\n", what, rlxStatusGetMessage(status));
    rlxStatusDestroy(status);
    ++failures;
    return;
  }
  double maxError = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      float expected = b[j];
      for (int k = 0; k < 3; ++k)
        expected += x[i * 3 + k] * w[k * 4 + j];
      float relu = expected > 0 ? expected : 0;
      maxError = fmax(maxError, fabs(y[i * 4 + j] - expected));
      maxError = fmax(maxError, fabs(r[i * 4 + j] - relu));
    }
  printf("%s: max abs error %.3g\n", what, maxError);
  CHECK(maxError <= 1e-6);
}

static void checkSignature(RlxGraph graph) {
  CHECK(strcmp(rlxGraphGetName(graph), "affine") == 0);
  CHECK(rlxGraphGetNumArguments(graph) == 3);
  CHECK(rlxGraphGetNumResults(graph) == 2);
  RlxTensorSpec spec;
  CHECK_OK(rlxGraphGetArgument(graph, 0, &spec));
  CHECK(strcmp(spec.name, "x") == 0 && spec.kind == RLX_TENSOR_INPUT);
  CHECK(spec.dtype == RLX_DTYPE_F32 && spec.rank == 2);
  CHECK(spec.shape[0] == 2 && spec.shape[1] == 3);
  CHECK_OK(rlxGraphGetArgument(graph, 1, &spec));
  CHECK(strcmp(spec.name, "w") == 0 && spec.kind == RLX_TENSOR_PARAM);
  CHECK(spec.shape[0] == 3 && spec.shape[1] == 4);
  CHECK_OK(rlxGraphGetArgument(graph, 2, &spec));
  CHECK(strcmp(spec.name, "b") == 0 && spec.rank == 1 && spec.shape[0] == 4);
  CHECK_OK(rlxGraphGetResult(graph, 1, &spec));
  CHECK(strcmp(spec.name, "output_1") == 0 && spec.kind == RLX_TENSOR_OUTPUT);
  CHECK(spec.rank == 2 && spec.shape[0] == 2 && spec.shape[1] == 4);
  CHECK(strcmp(spec.param, "") == 0);
  size_t index = 99;
  CHECK_OK(rlxGraphFindArgument(graph, "b", &index));
  CHECK(index == 2);
}

/* A .safetensors file of w and b: an 8-byte little-endian header length,
 * the JSON header, then the data. */
static int writeParams(const char *path) {
  char header[256];
  int length = snprintf(
      header, sizeof(header),
      "{\"w\":{\"dtype\":\"F32\",\"shape\":[3,4],\"data_offsets\":[0,48]},"
      "\"b\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[48,64]}}");
  FILE *file = fopen(path, "wb");
  if (!file)
    return 0;
  unsigned char size[8] = {0};
  for (int i = 0; i < 8; ++i)
    size[i] = (unsigned char)(((unsigned long long)length >> (8 * i)) & 0xff);
  fwrite(size, 1, 8, file);
  fwrite(header, 1, (size_t)length, file);
  fwrite(w, sizeof(float), 12, file);
  fwrite(b, sizeof(float), 4, file);
  return fclose(file) == 0;
}

static void writeText(const char *path, const char *text) {
  FILE *file = fopen(path, "w");
  if (!file) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fputs(text, file);
  fclose(file);
}

/* Shapes given to rlxGraphRunShaped whose element or byte count overflows
 * 64 bits describe no buffer: the run must refuse them before the graph
 * reads (it wrapped to a tiny size and read past the buffer). */
static void testShapedSizes(void) {
  const char *dynamic =
      "func.func @t(%x: tensor<?x?xf32> {rlx.input = \"x\"}) "
      "-> tensor<?x?xf32> {\n"
      "  %0 = rlx.activation tanh %x : tensor<?x?xf32>\n"
      "  return %0 : tensor<?x?xf32>\n}\n";
  RlxGraph graph = NULL;
  CHECK_OK(rlxCompileString(dynamic, strlen(dynamic), NULL, &graph));
  if (!graph)
    return;
  float small[4] = {0, 1, 2, 3};
  const void *arguments[1] = {small};
  RlxOutput output = {NULL, NULL, 0};
  /* 2^33 * 2^31 elements: the product wraps to 0. */
  int64_t wrapping[2] = {(int64_t)1 << 33, (int64_t)1 << 31};
  const int64_t *shapes[1] = {wrapping};
  CHECK_ERROR(rlxGraphRunShaped(graph, arguments, shapes, 1, &output, 1),
              "overflows");
  /* 2^31 * 2^31 elements fit in int64_t, their f32 bytes do not. */
  int64_t bytes[2] = {(int64_t)1 << 31, (int64_t)1 << 31};
  shapes[0] = bytes;
  CHECK_ERROR(rlxGraphRunShaped(graph, arguments, shapes, 1, &output, 1),
              "overflows");
  CHECK(output.data == NULL && output.shape == NULL);
  /* A size that fits still runs. */
  int64_t fits[2] = {2, 2};
  shapes[0] = fits;
  CHECK_OK(rlxGraphRunShaped(graph, arguments, shapes, 1, &output, 1));
  CHECK(output.rank == 2 && output.shape[0] == 2 && output.shape[1] == 2);
  if (output.data)
    CHECK(fabs(((float *)output.data)[3] - tanh(3.0)) <= 1e-6);
  rlxOutputDestroy(&output);
  rlxGraphDestroy(graph);
}

/* Failures inside a run: a status, the run's buffers given back (the
 * runtime's live bytes as before), and the same graph right on the next
 * call. */
static void checkRecovered(RlxGraph graph, int64_t before, RlxStatus status,
                           RlxStatusCode code, const char *needle, int line) {
  if (!status) {
    fprintf(stderr, "capi-test.c:%d: expected a failed run ('%s')\n", line,
            needle);
    ++failures;
    return;
  }
  if (rlxStatusGetCode(status) != code ||
      !strstr(rlxStatusGetMessage(status), needle) ||
      strcmp(rlxGetLastErrorMessage(), rlxStatusGetMessage(status)) != 0) {
    fprintf(stderr, "capi-test.c:%d: expected code %d and '%s', got %d: %s\n",
            line, (int)code, needle, (int)rlxStatusGetCode(status),
            rlxStatusGetMessage(status));
    ++failures;
  }
  rlxStatusDestroy(status);
  int64_t after = rlxGraphGetLiveBufferBytes(graph);
  if (after != before) {
    fprintf(stderr,
            "capi-test.c:%d: the failed run kept buffers: %lld live bytes, "
            "%lld before\n",
            line, (long long)after, (long long)before);
    ++failures;
  }
}

/* y = tanh(x @ x) @ x + x on 8x8: temporaries between the products. */
static const char *kChain =
    "func.func @chain(%x: tensor<8x8xf32> {rlx.input = \"x\"}) "
    "-> tensor<8x8xf32> {\n"
    "  %0 = rlx.matmul %x, %x : tensor<8x8xf32>, tensor<8x8xf32>\n"
    "  %1 = rlx.activation tanh %0 : tensor<8x8xf32>\n"
    "  %2 = rlx.matmul %1, %x : tensor<8x8xf32>, tensor<8x8xf32>\n"
    "  %3 = rlx.binary add %2, %x : tensor<8x8xf32>, tensor<8x8xf32>\n"
    "  return %3 : tensor<8x8xf32>\n}\n";

static float chainX[64];

/* Runs the chain graph; sets *correct when the output matches C's. */
static RlxStatus runChain(RlxGraph graph, int *correct) {
  float y[64];
  const void *arguments[1] = {chainX};
  void *outputs[1] = {y};
  RlxStatus status = rlxGraphRun(graph, arguments, 1, outputs, 1);
  if (status)
    return status;
  double t[64], maxError = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      double sum = 0;
      for (int k = 0; k < 8; ++k)
        sum += chainX[i * 8 + k] * chainX[k * 8 + j];
      t[i * 8 + j] = tanh(sum);
    }
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      double sum = chainX[i * 8 + j];
      for (int k = 0; k < 8; ++k)
        sum += t[i * 8 + k] * chainX[k * 8 + j];
      maxError = fmax(maxError, fabs(y[i * 8 + j] - sum));
    }
  *correct = maxError <= 1e-4;
  return NULL;
}

/* add(x, y) with `?` rows: run-time shape checks, a returned output. */
static const char *kDynamicAdd =
    "func.func @add(%x: tensor<?x4xf32> {rlx.input = \"x\"},\n"
    "               %y: tensor<?x4xf32> {rlx.input = \"y\"}) "
    "-> tensor<?x4xf32> {\n"
    "  %0 = rlx.binary add %x, %y : tensor<?x4xf32>, tensor<?x4xf32>\n"
    "  %1 = rlx.activation tanh %0 : tensor<?x4xf32>\n"
    "  %2 = rlx.binary mul %1, %x : tensor<?x4xf32>, tensor<?x4xf32>\n"
    "  return %2 : tensor<?x4xf32>\n}\n";

/* Runs the dynamic graph on 3 rows; sets *correct as runChain does. */
static RlxStatus runDynamic(RlxGraph graph, int *correct) {
  float a[12], b[12];
  for (int i = 0; i < 12; ++i) {
    a[i] = 0.25f * (float)i - 1;
    b[i] = 0.5f - 0.125f * (float)i;
  }
  int64_t shape[2] = {3, 4};
  const int64_t *shapes[2] = {shape, shape};
  const void *arguments[2] = {a, b};
  RlxOutput output = {NULL, NULL, 0};
  RlxStatus status = rlxGraphRunShaped(graph, arguments, shapes, 2, &output, 1);
  if (status) {
    if (output.data || output.shape) {
      fprintf(stderr, "capi-test.c: a failed run filled its output\n");
      ++failures;
    }
    return status;
  }
  double maxError = 0;
  for (int i = 0; i < 12; ++i)
    maxError = fmax(maxError,
                    fabs(((float *)output.data)[i] - tanh(a[i] + b[i]) * a[i]));
  *correct = output.rank == 2 && output.shape[0] == 3 && maxError <= 1e-6;
  rlxOutputDestroy(&output);
  return NULL;
}

/* Fails allocation k of a run for k = 0, 1, ... until a run makes fewer:
 * each such run is an out-of-memory status that gives its buffers back, and
 * the next run is right. */
static void failEachAllocation(const char *what, RlxGraph graph,
                               RlxStatus (*run)(RlxGraph, int *)) {
  int64_t before = rlxGraphGetLiveBufferBytes(graph);
  CHECK(before >= 0);
  int k = 0;
  for (; k < 1000; ++k) {
    CHECK_OK(rlxGraphDebugFailAllocation(graph, k));
    int correct = 0;
    RlxStatus status = run(graph, &correct);
    if (!status) {
      CHECK(correct);
      break;
    }
    checkRecovered(graph, before, status, RLX_STATUS_OUT_OF_MEMORY,
                   "cannot allocate a temporary buffer", __LINE__);
    correct = 0;
    CHECK_OK(run(graph, &correct));
    CHECK(correct);
    CHECK(rlxGraphGetLiveBufferBytes(graph) == before);
  }
  CHECK_OK(rlxGraphDebugFailAllocation(graph, -1));
  printf("%s: each of its %d allocations failed the run cleanly\n", what, k);
  CHECK(k > 0);
}

/* A kernel that copies its operand and fails on a negative element. */
static int copyShape(const RlxCustomTensorType *inputs, size_t numInputs,
                     const char *attrs, RlxCustomTensorType *results,
                     size_t numResults, char *error, size_t errorSize) {
  (void)attrs;
  if (numInputs != 1 || numResults != 1) {
    snprintf(error, errorSize, "takes 1 operand and gives 1 result");
    return 1;
  }
  results[0] = inputs[0];
  return 0;
}

static int failOnNegative(const RlxCustomTensor *inputs, size_t numInputs,
                          RlxCustomTensor *outputs, size_t numOutputs,
                          const char *attrs, char *error, size_t errorSize) {
  (void)numInputs;
  (void)numOutputs;
  (void)attrs;
  const float *in = (const float *)inputs[0].data;
  float *out = (float *)outputs[0].data;
  for (int64_t i = 0; i < inputs[0].type.dims[0]; ++i) {
    if (in[i] < 0) {
      snprintf(error, errorSize, "element %lld is negative", (long long)i);
      return 1;
    }
    out[i] = in[i];
  }
  return 0;
}

static void testRunFailures(const char *dir) {
  for (int i = 0; i < 64; ++i)
    chainX[i] = 0.03125f * (float)((i * 7) % 17) - 0.25f;

  /* A shape check: `?` rows bound to 3 and 5. */
  RlxGraph graph = NULL;
  CHECK_OK(rlxCompileString(kDynamicAdd, strlen(kDynamicAdd), NULL, &graph));
  if (graph) {
    int64_t before = rlxGraphGetLiveBufferBytes(graph);
    float a[12] = {0}, b[20] = {0};
    int64_t three[2] = {3, 4}, five[2] = {5, 4};
    const int64_t *shapes[2] = {three, five};
    const void *arguments[2] = {a, b};
    RlxOutput output = {NULL, NULL, 0};
    checkRecovered(graph, before,
                   rlxGraphRunShaped(graph, arguments, shapes, 2, &output, 1),
                   RLX_STATUS_ERROR,
                   "shape mismatch in 'rlx.binary' at <string>:3:8: operand "
                   "#1 dim 0 differs from the result's dim 0",
                   __LINE__);
    CHECK(output.data == NULL && output.shape == NULL);
    int correct = 0;
    CHECK_OK(runDynamic(graph, &correct));
    CHECK(correct);
    failEachAllocation("dynamic graph", graph, runDynamic);
    rlxGraphDestroy(graph);
  }

  /* Every allocation of a static graph, compiled here and ahead of time. */
  graph = NULL;
  CHECK_OK(rlxCompileString(kChain, strlen(kChain), NULL, &graph));
  if (graph) {
    failEachAllocation("static graph", graph, runChain);
    rlxGraphDestroy(graph);
  }
  char library[1024];
  snprintf(library, sizeof(library), "%s/chain.so", dir);
  CHECK_OK(
      rlxEmitSharedLibraryFromString(kChain, strlen(kChain), NULL, library));
  graph = NULL;
  CHECK_OK(rlxGraphLoad(library, &graph));
  if (graph) {
    failEachAllocation("static graph ahead of time", graph, runChain);
    rlxGraphDestroy(graph);
  }

  /* A custom op whose kernel fails, between temporaries of the graph. */
  RlxCustomOpDef def = {"capi_test.fail_on_negative", copyShape,
                        failOnNegative};
  CHECK(rlxRegisterCustomOp(&def) == 0);
  const char *custom =
      "func.func @c(%x: tensor<4xf32> {rlx.input = \"x\"}) "
      "-> tensor<4xf32> {\n"
      "  %0 = rlx.activation tanh %x : tensor<4xf32>\n"
      "  %1 = rlx.custom \"capi_test.fail_on_negative\"(%0) pure : "
      "(tensor<4xf32>) -> tensor<4xf32>\n"
      "  %2 = rlx.binary add %1, %x : tensor<4xf32>, tensor<4xf32>\n"
      "  return %2 : tensor<4xf32>\n}\n";
  graph = NULL;
  CHECK_OK(rlxCompileString(custom, strlen(custom), NULL, &graph));
  if (graph) {
    int64_t before = rlxGraphGetLiveBufferBytes(graph);
    float in[4] = {0.5f, 1, -2, 3}, out[4] = {0};
    const void *arguments[1] = {in};
    void *outputs[1] = {out};
    checkRecovered(graph, before, rlxGraphRun(graph, arguments, 1, outputs, 1),
                   RLX_STATUS_ERROR,
                   "custom op 'capi_test.fail_on_negative' failed: element 2 "
                   "is negative",
                   __LINE__);
    in[2] = 2;
    CHECK_OK(rlxGraphRun(graph, arguments, 1, outputs, 1));
    for (int i = 0; i < 4; ++i)
      CHECK(fabs(out[i] - (tanh(in[i]) + in[i])) <= 1e-6);
    rlxGraphDestroy(graph);
  }
}

static void testErrors(const char *dir, RlxGraph graph) {
  char path[1024];
  RlxCompileOptions options;
  rlxCompileOptionsInit(&options);
  RlxGraph other = NULL;

  /* The parser's diagnostic, with its location, is in the message. */
  const char *bad = "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                    "  %0 = rlx.nonsense %x : tensor<2xf32>\n"
                    "  return %0 : tensor<2xf32>\n}\n";
  CHECK_ERROR(rlxCompileString(bad, strlen(bad), &options, &other),
              "<string>:2:");
  CHECK(other == NULL);
  /* A verifier error: mismatched matmul shapes. */
  const char *invalid =
      "func.func @f(%x: tensor<2x3xf32> {rlx.input = \"x\"},\n"
      "             %w: tensor<4x5xf32> {rlx.param = \"w\"}) "
      "-> tensor<2x5xf32> {\n"
      "  %0 = rlx.matmul %x, %w : tensor<2x3xf32>, tensor<4x5xf32>\n"
      "  return %0 : tensor<2x5xf32>\n}\n";
  CHECK_ERROR(rlxCompileString(invalid, strlen(invalid), &options, &other),
              "error:");
  CHECK_ERROR(rlxCompileFile("/nonexistent/graph.mlir", &options, &other),
              "no such file '/nonexistent/graph.mlir'");
  CHECK_ERROR(rlxCompileString(kGraph, strlen(kGraph), &options, NULL),
              "must not be NULL");

  options.target = "tpu";
  CHECK_ERROR(rlxCompileString(kGraph, strlen(kGraph), &options, &other),
              "unknown target 'tpu'");
  options.target = "cpu";
  options.entry = "missing";
  CHECK_ERROR(rlxCompileString(kGraph, strlen(kGraph), &options, &other),
              "missing");
  options.entry = NULL;
  options.pipelineOptions = "no-such-option=3";
  CHECK_ERROR(rlxCompileString(kGraph, strlen(kGraph), &options, &other),
              "invalid options 'no-such-option=3'");
  options.pipelineOptions = NULL;
  options.runtimeLibrary = "/nonexistent/librlx_cpu_runtime.so";
  CHECK_ERROR(rlxCompileString(kGraph, strlen(kGraph), &options, &other),
              "runtime library not found");
  options.runtimeLibrary = NULL;

  CHECK_ERROR(rlxGraphLoad("/nonexistent/graph.so", &other),
              "no such file '/nonexistent/graph.so'");
  snprintf(path, sizeof(path), "%s/not-a-library.so", dir);
  writeText(path, "not an ELF file\n");
  CHECK_ERROR(rlxGraphLoad(path, &other), "cannot load");
  CHECK_ERROR(rlxEmitSharedLibraryFromString(bad, strlen(bad), &options, path),
              "<string>:2:");

  RlxTensorSpec spec;
  CHECK_ERROR(rlxGraphGetArgument(graph, 3, &spec),
              "argument index 3 is out of range");
  CHECK_ERROR(rlxGraphGetResult(graph, 2, &spec),
              "result index 2 is out of range");
  CHECK_ERROR(rlxGraphFindArgument(graph, "z", NULL),
              "'z' is not an argument of @affine (arguments: x, w, b)");
  CHECK_ERROR(rlxGraphBind(graph, "z", w, sizeof(w)), "'z' is not an");
  CHECK_ERROR(rlxGraphBind(graph, "w", w, 4), "got 4 bytes");
  CHECK_ERROR(rlxGraphBindSafetensors(graph, "/nonexistent.safetensors", NULL),
              "/nonexistent.safetensors");
  CHECK_ERROR(rlxGraphBindParams(graph, "/nonexistent.gguf", NULL),
              "cannot read '/nonexistent.gguf'");

  float y[8], r[8];
  void *outputs[2] = {y, r};
  /* x is never bound. */
  CHECK_ERROR(rlxGraphRun(graph, NULL, 0, outputs, 2), "no data for input 'x'");
  const void *arguments[3] = {x, w, b};
  CHECK_ERROR(rlxGraphRun(graph, arguments, 2, outputs, 2),
              "takes 3 arguments");
  CHECK_ERROR(rlxGraphRun(graph, arguments, 3, outputs, 1), "has 2 outputs");
  void *missing[2] = {y, NULL};
  CHECK_ERROR(rlxGraphRun(graph, arguments, 3, missing, 2),
              "no buffer for output_1");

  testShapedSizes();

  char *text = NULL;
  CHECK_ERROR(rlxTransformString(kGraph, strlen(kGraph), "no-such-pass", &text),
              "invalid pass pipeline 'no-such-pass'");
  CHECK(text == NULL);
  /* A pass that fails reports its diagnostic: no function @missing. */
  CHECK_ERROR(rlxTransformString(kGraph, strlen(kGraph),
                                 "rlx-autodiff{func=missing}", &text),
              "failed");
  CHECK(rlxStatusGetMessage(NULL)[0] == '\0');
}

/* The entries (`<key>.so`) of compile cache folder `folder`; with `clear`,
 * removes them first. A missing folder has none. */
static int cacheEntries(const char *folder, int clear) {
  DIR *listing = opendir(folder);
  if (!listing)
    return 0;
  int count = 0;
  struct dirent *entry;
  while ((entry = readdir(listing)) != NULL) {
    size_t length = strlen(entry->d_name);
    if (length < 4 || strcmp(entry->d_name + length - 3, ".so") != 0)
      continue;
    if (clear) {
      char path[2048];
      snprintf(path, sizeof(path), "%s/%s", folder, entry->d_name);
      unlink(path);
    } else {
      ++count;
    }
  }
  closedir(listing);
  return count;
}

/* The compile cache (docs/compile-cache.md): a compile stores one entry, a
 * second compile of the same text and options loads it, other options are
 * another entry, and `cache = 0` neither loads nor stores. */
static void testCompileCache(const char *dir) {
  char folder[1024];
  snprintf(folder, sizeof(folder), "%s/compile-cache", dir);
  cacheEntries(folder, /*clear=*/1);
  setenv("RLX_CACHE_DIR", folder, 1);
  RlxCompileOptions options;
  rlxCompileOptionsInit(&options);
  CHECK(options.cache == 1 && options.timing == 0);
  const char *what[] = {"uncached", "stored", "loaded", "without BLAS"};
  int cache[] = {0, 1, 1, 1}, useBlas[] = {1, 1, 1, 0},
      entries[] = {0, 1, 1, 2};
  for (int i = 0; i < 4; ++i) {
    options.cache = cache[i];
    options.useBlas = useBlas[i];
    RlxGraph graph = NULL;
    CHECK_OK(rlxCompileString(kGraph, strlen(kGraph), &options, &graph));
    if (!graph)
      continue;
    checkSignature(graph);
    runAndCheck(graph, w, b, what[i]);
    rlxGraphDestroy(graph);
    CHECK(cacheEntries(folder, /*clear=*/0) == entries[i]);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: capi-test SCRATCH_DIR\n");
    return 2;
  }
  const char *dir = argv[1];
  mkdir(dir, 0755); /* An existing folder is fine. */
  char path[1024];
  fillData();

  CHECK(rlxGetAPIVersion() == RLX_C_API_VERSION);
  CHECK(strstr(rlxGetTargetNames(), "cpu") != NULL);
  CHECK(rlxDTypeGetSize(RLX_DTYPE_BF16) == 2);
  CHECK(rlxDTypeGetSize(RLX_DTYPE_C64) == 8);
  CHECK(strcmp(rlxDTypeGetName(RLX_DTYPE_I64), "i64") == 0);
  CHECK(rlxDTypeGetSize((RlxDType)42) == 0);

  RlxCompileOptions options;
  rlxCompileOptionsInit(&options);
  CHECK(options.useBlas == 1 && strcmp(options.target, "cpu") == 0);

  /* From a string: buffers for every argument. */
  RlxGraph graph = NULL;
  CHECK_OK(rlxCompileString(kGraph, strlen(kGraph), &options, &graph));
  if (!graph)
    return 1;
  checkSignature(graph);
  runAndCheck(graph, w, b, "string, caller buffers");

  /* NULL options are the defaults: the runtime beside the library. */
  RlxGraph defaults = NULL;
  CHECK_OK(rlxCompileString(kGraph, strlen(kGraph), NULL, &defaults));
  if (defaults) {
    runAndCheck(defaults, w, b, "string, NULL options");
    rlxGraphDestroy(defaults);
  }

  /* Parameters bound from buffers, the input passed. */
  CHECK(!rlxGraphIsBound(graph, 1));
  CHECK_OK(rlxGraphBind(graph, "w", w, sizeof(w)));
  CHECK_OK(rlxGraphBind(graph, "b", b, sizeof(b)));
  CHECK(rlxGraphIsBound(graph, 1) && rlxGraphIsBound(graph, 2));
  runAndCheck(graph, NULL, NULL, "string, bound parameters");

  /* Bound data is a copy: changing the caller's buffer after binding does
   * not change the run. */
  float saved = w[0];
  w[0] = 100.0f;
  {
    float y[8], r[8];
    const void *arguments[3] = {x, NULL, NULL};
    void *outputs[2] = {y, r};
    CHECK_OK(rlxGraphRun(graph, arguments, 3, outputs, 2));
    w[0] = saved;
    float expected = b[0];
    for (int k = 0; k < 3; ++k)
      expected += x[k] * w[k * 4];
    CHECK(fabs(y[0] - expected) <= 1e-6);
  }

  RlxBenchResult bench;
  {
    float y[8], r[8];
    const void *arguments[3] = {x, NULL, NULL};
    void *outputs[2] = {y, r};
    CHECK_OK(rlxGraphBench(graph, arguments, 3, outputs, 2, 1, 5, &bench));
    CHECK(bench.runs == 5 && bench.minMs >= 0 &&
          bench.minMs <= bench.medianMs && bench.medianMs <= bench.p90Ms);
    CHECK_ERROR(rlxGraphBench(graph, arguments, 3, outputs, 2, 0, 0, &bench),
                "at least 1 timed run");
    /* A request with no bench running is cleared by the next bench. */
    rlxGraphInterrupt(graph);
    CHECK_OK(rlxGraphBench(graph, arguments, 3, outputs, 2, 0, 2, &bench));
    rlxGraphInterrupt(NULL);
  }
  testErrors(dir, graph);
  rlxGraphDestroy(graph);

  /* From a file, parameters from a .safetensors file. */
  snprintf(path, sizeof(path), "%s/affine.mlir", dir);
  writeText(path, kGraph);
  graph = NULL;
  options.useBlas = 0;
  CHECK_OK(rlxCompileFile(path, &options, &graph));
  if (graph) {
    char params[1024];
    snprintf(params, sizeof(params), "%s/params.safetensors", dir);
    CHECK(writeParams(params));
    size_t bound = 0;
    CHECK_OK(rlxGraphBindSafetensors(graph, params, &bound));
    CHECK(bound == 2);
    runAndCheck(graph, NULL, NULL, "file, .safetensors parameters");
    /* The same file through the loader of either format. */
    bound = 0;
    CHECK_OK(rlxGraphBindParams(graph, params, &bound));
    CHECK(bound == 2);
    runAndCheck(graph, NULL, NULL, "file, parameters of either format");
    rlxGraphDestroy(graph);
  }

  /* Ahead of time: write a library, load it, run it. */
  char library[1024];
  snprintf(library, sizeof(library), "%s/affine.so", dir);
  CHECK_OK(rlxEmitSharedLibraryFromFile(path, &options, library));
  graph = NULL;
  CHECK_OK(rlxGraphLoad(library, &graph));
  if (graph) {
    checkSignature(graph);
    runAndCheck(graph, w, b, "shared library");
    rlxGraphDestroy(graph);
  }

  /* A transformation: the gradient of sum(relu(x @ w + b)) by rlx-autodiff,
   * checked against the derivative computed here. */
  const char *lossGraph =
      "func.func @f(%x: tensor<2x3xf32> {rlx.input = \"x\"},\n"
      "             %w: tensor<3x4xf32> {rlx.param = \"w\"},\n"
      "             %b: tensor<4xf32> {rlx.param = \"b\"}) -> tensor<f32> {\n"
      "  %0 = rlx.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32>\n"
      "  %1 = rlx.binary add %0, %b : tensor<2x4xf32>, tensor<4xf32>\n"
      "  %2 = rlx.activation relu %1 : tensor<2x4xf32>\n"
      "  %3 = rlx.reduce sum %2 axes = [0, 1] : tensor<2x4xf32>\n"
      "  return %3 : tensor<f32>\n}\n";
  char *gradText = NULL;
  CHECK_OK(rlxTransformString(lossGraph, strlen(lossGraph),
                              "rlx-autodiff{func=f wrt=b}", &gradText));
  if (gradText) {
    options.entry = "f_grad";
    graph = NULL;
    CHECK_OK(rlxCompileString(gradText, strlen(gradText), &options, &graph));
    rlxStringDestroy(gradText);
    if (graph) {
      CHECK(rlxGraphGetNumResults(graph) == 2);
      float loss = 0, db[4];
      const void *arguments[3] = {x, w, b};
      void *outputs[2] = {&loss, db};
      CHECK_OK(rlxGraphRun(graph, arguments, 3, outputs, 2));
      double expectedLoss = 0, maxError = 0;
      for (int j = 0; j < 4; ++j) {
        double grad = 0;
        for (int i = 0; i < 2; ++i) {
          double y = b[j];
          for (int k = 0; k < 3; ++k)
            y += x[i * 3 + k] * w[k * 4 + j];
          expectedLoss += y > 0 ? y : 0;
          grad += y > 0 ? 1 : 0;
        }
        maxError = fmax(maxError, fabs(db[j] - grad));
      }
      printf("gradient: loss %g (expected %g), max abs error of db %.3g\n",
             loss, expectedLoss, maxError);
      CHECK(fabs(loss - expectedLoss) <= 1e-5);
      CHECK(maxError <= 1e-6);
      rlxGraphDestroy(graph);
    }
  }

  testCompileCache(dir);
  testRunFailures(dir);

  rlxGraphDestroy(NULL);
  rlxStatusDestroy(NULL);
  if (failures) {
    fprintf(stderr, "capi-test: %d checks failed\n", failures);
    return 1;
  }
  printf("capi-test: all checks passed\n");
  return 0;
}
