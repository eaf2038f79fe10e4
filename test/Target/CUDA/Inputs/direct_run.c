// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
// A host program calling a CUDA library's rlx_graph_run directly, outside
// any guarded run (docs/abi.md, "Failures"): direct_run LIBRARY RUNS.
// The library is examples/mlp.mlir compiled for the cuda target: x
// [8, 64], w1 [64, 256], b1 [256], w2 [256, 10], b2 [10] -> [8, 10]. Each
// run must return (a failure printed on stderr, not the process ended);
// the runtime's rlx_cuda_last_run_error then gives the failure once.

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { kTensors = 6, kMaxRank = 2 };

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[kMaxRank], strides[kMaxRank];
} Descriptor;

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: direct_run LIBRARY RUNS\n");
    return 2;
  }
  void *library = dlopen(argv[1], RTLD_NOW);
  if (!library) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  void (*run)(void **) = (void (*)(void **))dlsym(library, "rlx_graph_run");
  int (*lastError)(char *, size_t) =
      (int (*)(char *, size_t))dlsym(library, "rlx_cuda_last_run_error");
  if (!run || !lastError) {
    fprintf(stderr, "missing entry: %s\n", dlerror());
    return 2;
  }
  static const int64_t shapes[kTensors][kMaxRank] = {
      {8, 64}, {64, 256}, {256, 0}, {256, 10}, {10, 0}, {8, 10}};
  static const int ranks[kTensors] = {2, 2, 1, 2, 1, 2};
  Descriptor descriptors[kTensors];
  void *pointers[kTensors];
  for (int i = 0; i < kTensors; ++i) {
    int64_t count = shapes[i][0] * (ranks[i] == 2 ? shapes[i][1] : 1);
    float *data = calloc((size_t)count, sizeof(float));
    Descriptor d = {data, data, 0, {shapes[i][0], shapes[i][1]}, {0, 0}};
    // Row-major strides; a rank-1 descriptor ends at sizes[1] (its
    // stride), the layout of a rank-1 memref.
    if (ranks[i] == 2) {
      d.strides[0] = shapes[i][1];
      d.strides[1] = 1;
    } else {
      d.sizes[1] = 1;
    }
    descriptors[i] = d;
    pointers[i] = &descriptors[i];
  }
  int runs = atoi(argv[2]);
  for (int r = 0; r < runs; ++r) {
    run(pointers);
    char message[1024];
    int failed = lastError(message, sizeof message);
    printf("run %d returned; last run error: %d %s\n", r, failed, message);
    printf("taken again: %d\n", lastError(message, sizeof message));
  }
  printf("the host goes on\n");
  return 0;
}
