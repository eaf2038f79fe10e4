// RUN: not rlx-opt %s --convert-rlx-to-linalg --split-input-file 2>&1 | FileCheck %s

// The decoded expert stack needs its shape at compile time.
// CHECK: error: 'rlx.dequant_moe_weights' op the CPU lowering needs a static result shape [E, K, N], got 'tensor<?x32x4xf32>'
func.func @moe_weights_dynamic(%p: tensor<?xui8>) -> tensor<?x32x4xf32> {
  %w = rlx.dequant_moe_weights gguf_q8_0 %p : tensor<?xui8> -> tensor<?x32x4xf32>
  return %w : tensor<?x32x4xf32>
}

// -----

// CHECK: error: 'rlx.dequant_grouped_matmul' op the CPU lowering needs static K and N, got input 'tensor<3x32xf32>' and result 'tensor<3x?xf32>'
func.func @grouped_dynamic_n(%x: tensor<3x32xf32>, %w: tensor<?xui8>, %i: tensor<3xi32>) -> tensor<3x?xf32> {
  %y = rlx.dequant_grouped_matmul gguf_q4_0 %x, %w, %i : tensor<3x32xf32>, tensor<?xui8>, tensor<3xi32> -> tensor<3x?xf32>
  return %y : tensor<3x?xf32>
}
