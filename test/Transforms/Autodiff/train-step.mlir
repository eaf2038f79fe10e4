// RUN: rlx-opt %s --rlx-autodiff="func=f optimizer=sgd lr=0.5 momentum=0.9" | FileCheck %s
// RUN: rlx-opt %s --rlx-autodiff="func=f optimizer=adam lr=0.01" | FileCheck %s --check-prefix=ADAM

// The training step returns [loss, updated parameters..., updated state...],
// each update named {rlx.param = "<name>"} after the argument it replaces.

// CHECK-LABEL: func.func @f_grad(
// CHECK-LABEL: func.func @f_train_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x3xf64> {rlx.input = "x"}, %[[W:[^:]*]]: tensor<3x2xf64> {rlx.param = "w"}, %[[M:[^:]*]]: tensor<3x2xf64> {rlx.param = "w.momentum"})
// CHECK-SAME: -> (tensor<f64>, tensor<3x2xf64> {rlx.param = "w"}, tensor<3x2xf64> {rlx.param = "w.momentum"})
// CHECK: rlx.matmul %[[X]], %[[W]]
// CHECK: %[[XT:.*]] = rlx.transpose %[[X]]
// CHECK: %[[G:.*]] = rlx.matmul %[[XT]]
// CHECK: %[[MU:.*]] = rlx.constant dense<9.000000e-01> : tensor<f64>
// CHECK: %[[MM:.*]] = rlx.binary mul %[[M]], %[[MU]]
// CHECK: %[[BUF:.*]] = rlx.binary add %[[MM]], %[[G]]
// CHECK: %[[LR:.*]] = rlx.constant dense<5.000000e-01> : tensor<f64>
// CHECK: %[[STEP:.*]] = rlx.binary mul %[[BUF]], %[[LR]]
// CHECK: %[[W1:.*]] = rlx.binary sub %[[W]], %[[STEP]]
// CHECK: return %{{.*}}, %[[W1]], %[[BUF]]

// ADAM-LABEL: func.func @f_train_step(
// ADAM-SAME: {rlx.param = "w"}, %{{.*}}: tensor<f64> {rlx.param = "adam.step"}, %{{.*}}: tensor<3x2xf64> {rlx.param = "w.adam_m"}, %{{.*}}: tensor<3x2xf64> {rlx.param = "w.adam_v"})
// ADAM-SAME: -> (tensor<f64>, tensor<3x2xf64> {rlx.param = "w"}, tensor<f64> {rlx.param = "adam.step"}, tensor<3x2xf64> {rlx.param = "w.adam_m"}, tensor<3x2xf64> {rlx.param = "w.adam_v"})
func.func @f(%x: tensor<4x3xf64> {rlx.input = "x"},
             %w: tensor<3x2xf64> {rlx.param = "w"}) -> tensor<f64> {
  %h = rlx.matmul %x, %w : tensor<4x3xf64>, tensor<3x2xf64>
  %l = rlx.reduce sum %h axes = [0, 1] : tensor<4x2xf64>
  return %l : tensor<f64>
}
