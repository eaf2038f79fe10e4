/* Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
 * Exceptions. See the LICENSE file for license information.
 *
 * Compiles and runs a graph through the installed C API and checks the
 * result: the runtime library is found beside the installed libRLXCAPI.so. */

#include "rlx-c/RLX.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  const char *source =
      "func.func @scale(%x: tensor<4xf32> {rlx.input = \"x\"}) -> "
      "tensor<4xf32> {\n"
      "  %0 = rlx.binary mul %x, %x : tensor<4xf32>, tensor<4xf32>\n"
      "  return %0 : tensor<4xf32>\n}\n";
  RlxCompileOptions options;
  rlxCompileOptionsInit(&options);
  RlxGraph graph = NULL;
  RlxStatus status = rlxCompileString(source, strlen(source), &options, &graph);
  if (status) {
    fprintf(stderr, "compile: %s\n", rlxStatusGetMessage(status));
    rlxStatusDestroy(status);
    return 1;
  }
  float x[4] = {1, -2, 3, 0.5f}, y[4] = {0};
  const void *arguments[1] = {x};
  void *outputs[1] = {y};
  status = rlxGraphRun(graph, arguments, 1, outputs, 1);
  if (status) {
    fprintf(stderr, "run: %s\n", rlxStatusGetMessage(status));
    rlxStatusDestroy(status);
    return 1;
  }
  rlxGraphDestroy(graph);
  for (int i = 0; i < 4; ++i)
    if (y[i] != x[i] * x[i]) {
      fprintf(stderr, "y[%d] = %g, expected %g\n", i, y[i], x[i] * x[i]);
      return 1;
    }
  printf("rlx-capi-consumer: OK\n");
  return 0;
}
