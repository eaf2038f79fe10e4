// RUN: rlx-opt %s --rlx-unfuse | rlx-opt --rlx-fuse | FileCheck %s

// rlx-unfuse then rlx-fuse gives the fused ops back.
// CHECK-LABEL: func.func @fused
// CHECK: rlx.fused_matmul_bias_act %arg0, %arg1, %arg2 activation silu
// CHECK: rlx.fused_residual_ln
// CHECK: rlx.lora_matmul
// CHECK-NOT: rlx.matmul
func.func @fused(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>,
                 %g: tensor<8xf32>, %a: tensor<8x2xf32>, %bb: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %0 = rlx.fused_matmul_bias_act %x, %w, %b activation silu : tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>
  %1 = rlx.fused_residual_ln %0, %x, %g, %b eps = 1.0e-5 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %2 = rlx.lora_matmul %1, %w, %a, %bb scale = 0.5 : tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x2xf32>, tensor<2x8xf32>
  return %2 : tensor<4x8xf32>
}
