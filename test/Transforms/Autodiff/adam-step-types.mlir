// RUN: rlx-opt %s --rlx-autodiff="func=f optimizer=adam lr=0.01" --split-input-file | FileCheck %s

// Adam's step count is f64 when a parameter is f64, else f32, whatever the
// first parameter's type: parameters of mixed types get valid IR, each
// taking the bias corrections in its own type.
// CHECK-LABEL: func.func @f_train_step(
// CHECK-SAME: %{{.*}}: tensor<f64> {rlx.param = "adam.step"}
// CHECK: rlx.cast %{{.*}} : tensor<f64> to f32
// CHECK: return
func.func @f(%x: tensor<4x3xf32> {rlx.input = "x"},
             %w: tensor<3x2xf32> {rlx.param = "w"},
             %s: tensor<f64> {rlx.param = "s"}) -> tensor<f32> {
  %h = rlx.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32>
  %l = rlx.reduce sum %h axes = [0, 1] : tensor<4x2xf32>
  %sc = rlx.cast %s : tensor<f64> to f32
  %o = rlx.binary mul %l, %sc : tensor<f32>, tensor<f32>
  return %o : tensor<f32>
}

// -----

// bf16 parameters count steps in f32: a bf16 count would stop at 256, as
// 256 + 1 rounds to 256, and the bias corrections would freeze there.
// CHECK-LABEL: func.func @f_train_step(
// CHECK-SAME: %{{.*}}: tensor<f32> {rlx.param = "adam.step"}
// CHECK-SAME: -> (tensor<bf16>, tensor<3x2xbf16> {rlx.param = "w"}, tensor<f32> {rlx.param = "adam.step"}
// CHECK: rlx.cast %{{.*}} : tensor<f32> to bf16
func.func @f(%x: tensor<4x3xbf16> {rlx.input = "x"},
             %w: tensor<3x2xbf16> {rlx.param = "w"}) -> tensor<bf16> {
  %h = rlx.matmul %x, %w : tensor<4x3xbf16>, tensor<3x2xbf16>
  %l = rlx.reduce sum %h axes = [0, 1] : tensor<4x2xbf16>
  return %l : tensor<bf16>
}
