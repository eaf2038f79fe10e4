// RUN: rlx-opt %s --rlx-autodiff="func=f wrt=b,x" | FileCheck %s

// The gradients come in wrt order, rlx.input arguments included; arguments
// not in wrt get none.
// CHECK-LABEL: func.func @f_grad(
// CHECK-SAME: -> (tensor<f32>, tensor<5xf32>, tensor<4x3xf32>)
// CHECK-NOT: rlx.transpose %arg0
// CHECK: return
func.func @f(%x: tensor<4x3xf32> {rlx.input = "x"},
             %w: tensor<3x5xf32> {rlx.param = "w"},
             %b: tensor<5xf32> {rlx.param = "b"}) -> tensor<f32> {
  %h = rlx.matmul %x, %w : tensor<4x3xf32>, tensor<3x5xf32>
  %y = rlx.binary add %h, %b : tensor<4x5xf32>, tensor<5xf32>
  %l = rlx.reduce sum %y axes = [0, 1] : tensor<4x5xf32>
  return %l : tensor<f32>
}
