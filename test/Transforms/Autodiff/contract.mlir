// RUN: rlx-opt %s --split-input-file --rlx-autodiff="func=f" | FileCheck %s

// The contract: @f stays; @f_grad takes @f's arguments (plus a d_loss
// cotangent for a loss of several elements) and returns [@f's results...,
// gradients in wrt order]; the default wrt is every rlx.param argument.

// CHECK-LABEL: func.func @f(
// CHECK-LABEL: func.func @f_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x3xf32> {rlx.input = "x"}, %[[W:[^:]*]]: tensor<3x5xf32> {rlx.param = "w"}, %[[B:[^:]*]]: tensor<5xf32> {rlx.param = "b"})
// CHECK-SAME: -> (tensor<f32>, tensor<4x5xf32>, tensor<3x5xf32>, tensor<5xf32>)
// The forward values are reused by the backward sweep.
// CHECK: %[[H:.*]] = rlx.matmul %[[X]], %[[W]]
// CHECK: %[[Y:.*]] = rlx.binary add %[[H]], %[[B]]
// CHECK: %[[A:.*]] = rlx.activation tanh %[[Y]]
// CHECK: %[[L:.*]] = rlx.reduce sum %[[A]] axes = [0, 1]
// A one-element loss is seeded with 1.
// CHECK: %[[ONE:.*]] = rlx.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DA:.*]] = rlx.expand
// CHECK: %[[DY:.*]] = rlx.activation_backward tanh %[[Y]], %[[DA]]
// The broadcast bias: its gradient summed back over the rows.
// CHECK: %[[DBS:.*]] = rlx.reduce sum %[[DY]] axes = [0] keep_dim
// CHECK: %[[DB:.*]] = rlx.reshape %[[DBS]] new_shape = [5]
// CHECK: %[[XT:.*]] = rlx.transpose %[[X]] perm = [1, 0]
// CHECK: %[[DW:.*]] = rlx.matmul %[[XT]], %[[DY]]
// CHECK: return %[[L]], %[[A]], %[[DW]], %[[DB]]
func.func @f(%x: tensor<4x3xf32> {rlx.input = "x"},
             %w: tensor<3x5xf32> {rlx.param = "w"},
             %b: tensor<5xf32> {rlx.param = "b"})
    -> (tensor<f32>, tensor<4x5xf32>) {
  %h = rlx.matmul %x, %w : tensor<4x3xf32>, tensor<3x5xf32>
  %y = rlx.binary add %h, %b : tensor<4x5xf32>, tensor<5xf32>
  %a = rlx.activation tanh %y : tensor<4x5xf32>
  %l = rlx.reduce sum %a axes = [0, 1] : tensor<4x5xf32>
  return %l, %a : tensor<f32>, tensor<4x5xf32>
}

// -----

// A loss of several elements takes its cotangent as a last argument; a value
// used twice accumulates its gradients.
// CHECK-LABEL: func.func @f_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<3xf64> {rlx.param = "x"}, %[[D:[^:]*]]: tensor<3xf64> {rlx.input = "d_loss"}) -> (tensor<3xf64>, tensor<3xf64>)
// CHECK: %[[SQ:.*]] = rlx.binary mul %[[X]], %[[X]]
// CHECK: %[[G0:.*]] = rlx.binary mul %[[D]], %[[X]]
// CHECK: %[[G1:.*]] = rlx.binary mul %[[D]], %[[X]]
// CHECK: %[[G:.*]] = rlx.binary add %[[G0]], %[[G1]]
// CHECK: return %[[SQ]], %[[G]]
func.func @f(%x: tensor<3xf64> {rlx.param = "x"}) -> tensor<3xf64> {
  %sq = rlx.binary mul %x, %x : tensor<3xf64>, tensor<3xf64>
  return %sq : tensor<3xf64>
}
