// RUN: rlx-opt %s --rlx-autodiff="func=f optimizer=sgd lr=0.5" | FileCheck %s
// RUN: not rlx-opt %s --rlx-autodiff="func=only_state" 2>&1 | FileCheck %s --check-prefix=NONE

// A parameter marked rlx.state (batch norm's running statistics) is read by
// the graph but not trained: the default wrt leaves it out, so @f_grad has
// no gradient for it and the training step neither updates nor returns it.

// CHECK-LABEL: func.func @f_grad(
// CHECK-SAME: {rlx.param = "mean", rlx.state}
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32>)
// CHECK-LABEL: func.func @f_train_step(
// CHECK-SAME: %{{[^:]*}}: tensor<4x3xf32> {rlx.input = "x"}, %{{[^:]*}}: tensor<3xf32> {rlx.param = "w"}, %{{[^:]*}}: tensor<3xf32> {rlx.param = "mean", rlx.state})
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32> {rlx.param = "w"})
// CHECK-NOT: rlx.param = "mean"}
func.func @f(%x: tensor<4x3xf32> {rlx.input = "x"},
             %w: tensor<3xf32> {rlx.param = "w"},
             %mean: tensor<3xf32> {rlx.param = "mean", rlx.state}) -> tensor<f32> {
  %c = rlx.binary sub %x, %mean : tensor<4x3xf32>, tensor<3xf32>
  %h = rlx.binary mul %c, %w : tensor<4x3xf32>, tensor<3xf32>
  %l = rlx.reduce sum %h axes = [0, 1] : tensor<4x3xf32>
  return %l : tensor<f32>
}

// NONE: rlx-autodiff: @only_state has no rlx.param argument that is not rlx.state; name the arguments to differentiate with wrt=
func.func @only_state(%x: tensor<3xf32> {rlx.input = "x"},
                      %mean: tensor<3xf32> {rlx.param = "mean", rlx.state}) -> tensor<f32> {
  %c = rlx.binary sub %x, %mean : tensor<3xf32>, tensor<3xf32>
  %l = rlx.reduce sum %c axes = [0] : tensor<3xf32>
  return %l : tensor<f32>
}
