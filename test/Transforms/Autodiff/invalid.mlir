// RUN: rlx-opt %s --split-input-file --verify-diagnostics --rlx-autodiff="func=f"

// An op on the loss's path without a gradient rule is named at its location
// (second order through a scan is not differentiated).
func.func @f(%x: tensor<3xf32> {rlx.param = "x"},
             %traj: tensor<2x3xf32> {rlx.input = "traj"}) -> tensor<f32> {
  // expected-error @+1 {{rlx-autodiff: no gradient rule for 'rlx.scan_backward'}}
  %d = rlx.scan_backward %x, %traj, %x : tensor<3xf32>, tensor<2x3xf32>,
      tensor<3xf32> length = 2 body_vjp {
  ^bb0(%c: tensor<3xf32>, %g: tensor<3xf32>):
    rlx.yield %g : tensor<3xf32>
  }
  %l = rlx.reduce sum %d axes = [0] : tensor<3xf32>
  return %l : tensor<f32>
}

// -----

// A wrt argument the loss does not depend on.
// expected-error @+1 {{rlx-autodiff: no gradient reaches 'b' (argument #1 of @f): the loss does not depend on it (zero-missing=true returns zeros instead)}}
func.func @f(%a: tensor<3xf32> {rlx.param = "a"}, %b: tensor<3xf32> {rlx.param = "b"}) -> tensor<f32> {
  %l = rlx.reduce sum %a axes = [0] : tensor<3xf32>
  return %l : tensor<f32>
}

// -----

// A gradient that only reaches through stop_gradient does not reach.
// expected-error @+1 {{no gradient reaches 'a'}}
func.func @f(%a: tensor<3xf32> {rlx.param = "a"}) -> tensor<f32> {
  %s = rlx.stop_gradient %a : tensor<3xf32>
  %l = rlx.reduce sum %s axes = [0] : tensor<3xf32>
  return %l : tensor<f32>
}

// -----

// No rlx.param argument and no wrt.
// expected-error @+1 {{rlx-autodiff: @f has no rlx.param argument; name the arguments to differentiate with wrt=}}
func.func @f(%a: tensor<3xf32> {rlx.input = "a"}) -> tensor<f32> {
  %l = rlx.reduce sum %a axes = [0] : tensor<3xf32>
  return %l : tensor<f32>
}

// -----

// An integer argument has no derivative.
// expected-error @+1 {{rlx-autodiff: argument 'n' of @f has type 'tensor<3xi64>'; only floating-point tensors have derivatives}}
func.func @f(%a: tensor<3xf32> {rlx.input = "a"}, %n: tensor<3xi64> {rlx.param = "n"}) -> tensor<f32> {
  %l = rlx.reduce sum %a axes = [0] : tensor<3xf32>
  return %l : tensor<f32>
}

// -----

// A dynamic argument cannot get a gradient of its own type.
// expected-error @+1 {{rlx-autodiff: argument 'a' of @f has a dynamic shape ('tensor<?xf32>'); derivatives need static shapes}}
func.func @f(%a: tensor<?xf32> {rlx.param = "a"}) -> tensor<f32> {
  %l = rlx.reduce sum %a axes = [0] : tensor<?xf32>
  return %l : tensor<f32>
}

// -----

// The loss must be floating point.
// expected-error @+1 {{rlx-autodiff: the first result of @f (the loss) must be a floating-point tensor}}
func.func @f(%a: tensor<3xf32> {rlx.param = "a"}) -> tensor<3xi1> {
  %c = rlx.compare gt %a, %a : tensor<3xf32>, tensor<3xf32>
  return %c : tensor<3xi1>
}

// -----

// The name @f_grad is taken.
// expected-error @+1 {{rlx-autodiff: the module already has a symbol @f_grad}}
func.func @f(%a: tensor<3xf32> {rlx.param = "a"}) -> tensor<f32> {
  %l = rlx.reduce sum %a axes = [0] : tensor<3xf32>
  return %l : tensor<f32>
}
func.func @f_grad() {
  return
}
