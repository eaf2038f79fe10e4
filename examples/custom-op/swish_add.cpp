//===- swish_add.cpp - an rlx.custom op registered by a plugin ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A custom op plugin built outside the compiler (docs/custom-ops.md):
//
//   %z = rlx.custom "example.swish_add"(%x, %y) pure attrs {beta = 1.5 : f32}
//       : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
//
// computes z = x * sigmoid(beta * x) + y, with y broadcast along the rows
// (y has x's last dim). `beta` defaults to 1. rlx-run --plugin
// libswish_add_plugin.so loads it; rlx_plugin_init registers the op.
//
//===----------------------------------------------------------------------===//

#include "rlx-c/CustomOps.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

/// `beta` from the attribute text, "{beta = 1.5 : f32}"; 1 when absent.
float readBeta(const char *attrs) {
  const char *at = std::strstr(attrs, "beta = ");
  return at ? std::strtof(at + 7, nullptr) : 1.0f;
}

int shape(const RlxCustomTensorType *inputs, size_t numInputs,
          const char *attrs, RlxCustomTensorType *results, size_t numResults,
          char *error, size_t errorSize) {
  (void)attrs;
  if (numInputs != 2 || numResults != 1) {
    std::snprintf(error, errorSize, "takes 2 operands and gives 1 result");
    return 1;
  }
  const RlxCustomTensorType &x = inputs[0], &y = inputs[1];
  if (x.dtype != RLX_DTYPE_F32 || y.dtype != RLX_DTYPE_F32) {
    std::snprintf(error, errorSize, "x and y must be f32");
    return 1;
  }
  if (x.rank < 1 || y.rank != 1 || y.dims[0] != x.dims[x.rank - 1]) {
    std::snprintf(error, errorSize,
                  "y must be 1-D with x's last dim (x has rank %d, y rank "
                  "%d)",
                  x.rank, y.rank);
    return 1;
  }
  results[0] = x;
  return 0;
}

int kernel(const RlxCustomTensor *inputs, size_t numInputs,
           RlxCustomTensor *outputs, size_t numOutputs, const char *attrs,
           char *error, size_t errorSize) {
  (void)numInputs;
  (void)numOutputs;
  (void)error;
  (void)errorSize;
  const RlxCustomTensor &x = inputs[0];
  int64_t count = 1;
  for (int32_t d = 0; d < x.type.rank; ++d)
    count *= x.type.dims[d];
  int64_t row = x.type.dims[x.type.rank - 1];
  float beta = readBeta(attrs);
  const float *xs = static_cast<const float *>(x.data);
  const float *ys = static_cast<const float *>(inputs[1].data);
  float *zs = static_cast<float *>(outputs[0].data);
  for (int64_t i = 0; i < count; ++i)
    zs[i] = xs[i] / (1.0f + std::exp(-beta * xs[i])) + ys[i % row];
  return 0;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int rlx_plugin_init(void) {
  RlxCustomOpDef def = {"example.swish_add", shape, kernel};
  return rlxRegisterCustomOp(&def);
}
