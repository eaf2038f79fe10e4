/*===- capi-threads-test.c - the C API's threading contract ---------------===*\
|*                                                                            *|
|* Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM      *|
|* Exceptions. See the LICENSE file for license information.                 *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* capi-threads-test SCRATCH_DIR [RUNS]: y = x @ w, 384x384, x all ones.     *|
|* Several threads run the graph at once (rlxGraphRun and                   *|
|* rlxGraphRunShaped on the bound w, each into its own outputs) while       *|
|* another binds w as all ones, then all minus ones, over and over. Every   *|
|* output must be all 384 or all -384: a run sees w as bound before a bind  *|
|* or after it, never a mixture (docs/c-api.md, Threads). The same for a    *|
|* graph loaded from a shared library, and for a profiled graph, whose runs *|
|* take turns. Scripts/tsan.sh runs it under ThreadSanitizer. Exits 1 if    *|
|* any check failed.                                                        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "rlx-c/RLX.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define N 384
#define RUNNERS 4

static atomic_int failures = 0;

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

static const char *kMatmul =
    "func.func @mm(%x: tensor<384x384xf32> {rlx.input = \"x\"},\n"
    "              %w: tensor<384x384xf32> {rlx.param = \"w\"})\n"
    "    -> tensor<384x384xf32> {\n"
    "  %0 = rlx.matmul %x, %w : tensor<384x384xf32>, tensor<384x384xf32>\n"
    "  return %0 : tensor<384x384xf32>\n"
    "}\n";

static float ones[N * N], minusOnes[N * N];
static int runsPerThread = 20;

struct Shared {
  RlxGraph graph;
  const char *what;
  atomic_int runnersLeft;
  atomic_int mixed, sawPlus, sawMinus;
};

/* 1 or -1 when every element is 384 or -384 (an all-ones or all-minus-ones
   w), else 0. */
static int uniformSign(const float *y) {
  float first = y[0];
  if (first != (float)N && first != -(float)N)
    return 0;
  for (size_t i = 1; i < (size_t)N * N; ++i)
    if (y[i] != first)
      return 0;
  return first > 0 ? 1 : -1;
}

static void record(struct Shared *shared, const float *y, int run) {
  int sign = uniformSign(y);
  if (sign > 0)
    ++shared->sawPlus;
  else if (sign < 0)
    ++shared->sawMinus;
  else if (shared->mixed++ == 0)
    fprintf(stderr, "%s: run %d returned a mixture (y[0] %g, y[last] %g)\n",
            shared->what, run, y[0], y[(size_t)N * N - 1]);
}

static void *runner(void *arg) {
  struct Shared *shared = arg;
  float *y = malloc(sizeof(float) * N * N);
  const int64_t shape[2] = {N, N};
  for (int run = 0; y && run < runsPerThread; ++run) {
    /* Alternately the plain and the shaped entry; NULL: the bound w. */
    if (run % 2 == 0) {
      const void *arguments[2] = {ones, NULL};
      void *outputs[1] = {y};
      CHECK_OK(rlxGraphRun(shared->graph, arguments, 2, outputs, 1));
      record(shared, y, run);
    } else {
      const void *arguments[2] = {ones, NULL};
      const int64_t *shapes[2] = {shape, NULL};
      RlxOutput output;
      RlxStatus status =
          rlxGraphRunShaped(shared->graph, arguments, shapes, 2, &output, 1);
      CHECK_OK(status);
      if (!status) {
        record(shared, output.data, run);
        rlxOutputDestroy(&output);
      }
    }
  }
  free(y);
  --shared->runnersLeft;
  return NULL;
}

/* Binds w as all ones and all minus ones in turn until the runners end. */
static void *binder(void *arg) {
  struct Shared *shared = arg;
  for (int i = 0; shared->runnersLeft > 0; ++i) {
    const float *data = i % 2 ? minusOnes : ones;
    CHECK_OK(rlxGraphBind(shared->graph, "w", data, sizeof(ones)));
    if (!rlxGraphIsBound(shared->graph, 1))
      ++failures;
  }
  return NULL;
}

static void testGraph(RlxGraph graph, const char *what) {
  struct Shared shared = {graph, what, RUNNERS, 0, 0, 0};
  CHECK_OK(rlxGraphBind(graph, "w", ones, sizeof(ones)));
  pthread_t threads[RUNNERS + 1];
  for (int i = 0; i < RUNNERS; ++i)
    pthread_create(&threads[i], NULL, runner, &shared);
  pthread_create(&threads[RUNNERS], NULL, binder, &shared);
  for (int i = 0; i <= RUNNERS; ++i)
    pthread_join(threads[i], NULL);
  printf("%s: %d runs all 384, %d all -384, %d mixed\n", what,
         (int)shared.sawPlus, (int)shared.sawMinus, (int)shared.mixed);
  if (shared.mixed)
    ++failures;
  if (shared.sawPlus + shared.sawMinus != RUNNERS * runsPerThread)
    ++failures;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: capi-threads-test SCRATCH_DIR [RUNS]\n");
    return 2;
  }
  const char *dir = argv[1];
  mkdir(dir, 0755); /* An existing folder is fine. */
  if (argc > 2)
    runsPerThread = atoi(argv[2]);
  for (size_t i = 0; i < (size_t)N * N; ++i) {
    ones[i] = 1.0f;
    minusOnes[i] = -1.0f;
  }

  RlxCompileOptions options;
  rlxCompileOptionsInit(&options);
  RlxGraph graph = NULL;
  CHECK_OK(rlxCompileString(kMatmul, strlen(kMatmul), &options, &graph));
  if (!graph)
    return 1;
  testGraph(graph, "compiled");
  rlxGraphDestroy(graph);

  /* The same code loaded from a shared library. */
  char path[1024];
  snprintf(path, sizeof(path), "%s/threads-mm.so", dir);
  CHECK_OK(
      rlxEmitSharedLibraryFromString(kMatmul, strlen(kMatmul), &options, path));
  RlxGraph loaded = NULL;
  CHECK_OK(rlxGraphLoad(path, &loaded));
  if (loaded) {
    testGraph(loaded, "loaded");
    rlxGraphDestroy(loaded);
  }

  /* A profiled graph's runs take turns (shared per-op timers). */
  options.profile = 1;
  RlxGraph profiled = NULL;
  CHECK_OK(rlxCompileString(kMatmul, strlen(kMatmul), &options, &profiled));
  if (profiled) {
    testGraph(profiled, "profiled");
    rlxGraphDestroy(profiled);
  }

  if (failures)
    fprintf(stderr, "capi-threads-test: %d failures\n", (int)failures);
  return failures ? 1 : 0;
}
